"""Step-by-step Cityline API over the same kernels as the batch loop.

    g = new_game(n_players=1, seed=7)
    while not g.is_terminal():
        a = g.policy_action("heuristic")      # or pick from g.legal_actions()
        print(g.action_to_string(a))
        g.apply_action(a)
    print(g, g.scores())

Game `game_index` of run `seed` rolls the same dice as `simulate(..., seed, game_index, 1)`,
and `policy_action` draws from the same per-seat policy stream, so a game played here with
policy_action for every decision replays the batch game exactly.
"""
from __future__ import annotations

import numpy as np

from engines.cityline.params import VARIANTS, KernelParams, kernel_params, roof_names
from engines.cityline.policies import POLICIES, SEARCH, choose_action_nb
from engines.cityline.search import search_action_nb
from engines.core.lineup import policy_row
from engines.core.search import N_STATS
from engines.cityline.render import render
from engines.cityline.rules import apply_nb, legal_nb, new_state_nb, observe_nb, scores_nb
from engines.cityline.state import (
    ACT_STRIDE, DV, M_NDICE, M_PHASE, M_PLAYER, OCC_BASE, PH_OVER, PH_REROLL, PH_ROOF, ROOF_BASE, State,
    copy_state, n_players_of,
)
from engines.core.rng import POLICY_STREAM, new_stream
from engines.core.variant import Variant


class Game:
    def __init__(self, kp: KernelParams, state: State, seed: int, game_index: int,
                 prngs: list[np.ndarray], names: list[str]):
        self.kp = kp
        self.state = state
        self.seed = seed
        self.game_index = game_index
        self._prngs = prngs
        self._names = names
        self._legal = np.empty(256, np.int64)
        self._scratch = np.empty(256)
        self.search_stats = np.zeros(N_STATS, np.int64)  # engines.core.search STAT_*: what searches cost

    @property
    def n_players(self) -> int:
        return n_players_of(self.state)

    def current_player(self) -> int:
        """Seat to decide, -1 when the game is over."""
        return int(self.state.data[M_PLAYER])

    def phase(self) -> str:
        return ("reroll", "roof", "occupy", "over")[int(self.state.data[M_PHASE])]

    def dice(self) -> list[int]:
        return [int(x) for x in self.state.data[DV:DV + self.state.data[M_NDICE]]]

    def legal_actions(self) -> list[int]:
        n = legal_nb(self.state.data, self.kp.cfg, self._legal)
        return [int(a) for a in self._legal[:n]]

    def action_to_string(self, action: int) -> str:
        a = int(action)
        if 0 <= a < ROOF_BASE:
            dice = self.dice()
            chosen = [dice[i] for i in range(len(dice)) if (a >> i) & 1]
            return f"re-roll {chosen}" if chosen else "keep all dice"
        if ROOF_BASE <= a < OCC_BASE:
            v, c = (a - ROOF_BASE) // ACT_STRIDE + 1, (a - ROOF_BASE) % ACT_STRIDE
            return f"set aside {v}, roof column {c + 1} as {self._names[v]}"
        v, c = (a - OCC_BASE) // ACT_STRIDE + 1, (a - OCC_BASE) % ACT_STRIDE
        return f"populate column {c + 1}, set aside {v}"

    def apply_action(self, action: int) -> None:
        if self.is_terminal():
            raise ValueError("the game is over")
        if int(action) not in self.legal_actions():
            raise ValueError(f"illegal action {action} ({self.action_to_string(action)}) "
                             f"in phase {self.phase()}")
        apply_nb(self.state.data, self.state.rng, self.kp.cfg, int(action))

    def policy_action(self, name: str, weights: np.ndarray | None = None) -> int:
        """The action policy `name` picks for the player to move (draws from that seat's stream).
        `name` may carry weights as in a line-up: "search(iterations=200, rollout=heuristic)"."""
        p = self.current_player()
        info, row = policy_row(POLICIES, name)
        w = row if weights is None else np.asarray(weights, np.float64)
        if info.policy_id == SEARCH:
            return int(search_action_nb(self.state.data, self.state.rng, self.kp.cfg, self.kp.fill, w,
                                        self._prngs[p], self.search_stats))
        n = 0
        if self.state.data[M_PHASE] != PH_REROLL:
            n = legal_nb(self.state.data, self.kp.cfg, self._legal)
        return int(choose_action_nb(info.policy_id, self.state.data, self.kp.cfg, self.kp.fill, p, w,
                                    self._prngs[p], self._legal, n, self._scratch))

    def observation(self, player: int) -> np.ndarray:
        """The state vector as `player` sees it (re-roll reserve and others' pending choices zeroed)."""
        return observe_nb(self.state, self.kp, player)

    def is_terminal(self) -> bool:
        return int(self.state.data[M_PHASE]) == PH_OVER

    def scores(self) -> list[int]:
        out = np.zeros(self.n_players, np.int64)
        scores_nb(self.state, self.kp, out)
        return [int(x) for x in out]

    def clone(self) -> "Game":
        return Game(self.kp, copy_state(self.state), self.seed, self.game_index,
                    [p.copy() for p in self._prngs], self._names)

    def __str__(self) -> str:
        return render(self.state, self.kp, self._names)

    # the StepGame names (engines.core.spec.StepGame): pure aliases of the methods above
    action_name = action_to_string
    apply = apply_action
    is_over = is_terminal
    render = __str__


def new_game(variant: str | Variant | None = None, n_players: int | None = None, seed: int = 0,
             game_index: int = 0, overrides: dict | None = None) -> Game:
    """Game `game_index` of run `seed` (variant name, path or loaded Variant; default 1 player)."""
    if not isinstance(variant, Variant):
        variant = VARIANTS.load(variant, overrides)
    P = 1 if n_players is None else int(n_players)
    kp = kernel_params(variant, P)
    st = new_state_nb(kp, np.uint64(seed), np.int64(game_index))
    prngs = [new_stream(np.uint64(seed), np.int64(game_index), POLICY_STREAM + s) for s in range(P)]
    return Game(kp, st, seed, game_index, prngs, roof_names(variant))
