"""Step-by-step Skyline of the World API over the same kernels as the batch loop.

    g = new_game(n_players=4, seed=7)
    while not g.is_terminal():
        a = g.policy_action("heuristic")      # or pick from g.legal_actions()
        print(g.action_name(a))
        g.apply(a)
    print(g, g.scores())

Game `game_index` of run `seed` deals the same setup as `simulate(..., seed, game_index, 1)`
and `policy_action` draws from the same per-seat policy stream, so a game played here with
policy_action for every decision replays the batch game exactly. The method names follow the
shared step Protocol (phase, current_player, legal_actions, action_name, apply,
observation(player), scores, is_over, render) with the older aliases (apply_action,
action_to_string, is_terminal) kept for the toolkit's conformance tests.
"""
from __future__ import annotations

import numpy as np

from engines.core.lineup import policy_row
from engines.core.rng import POLICY_STREAM, new_stream
from engines.core.search import N_STATS
from engines.core.variant import Variant
from engines.skyline_of_the_world.params import MAX_CELLS, VARIANTS, KernelParams, kernel_params
from engines.skyline_of_the_world.policies import MAX_WEIGHTS, POLICIES, SEARCH, choose_action_nb
from engines.skyline_of_the_world.render import action_name, render
from engines.skyline_of_the_world.rules import apply_nb, legal_nb, new_state_nb, observe_nb, score_parts_nb, \
    tie_key_nb
from engines.skyline_of_the_world.search import search_action_nb
from engines.skyline_of_the_world.state import (
    M_PHASE, M_PLAYER, N_ACTIONS, PH_OVER, PHASE_NAMES, State, copy_state, n_players_of,
)


class Game:
    def __init__(self, kp: KernelParams, state: State, seed: int, game_index: int, prngs: list[np.ndarray]):
        self.kp = kp
        self.state = state
        self.seed = seed
        self.game_index = game_index
        self._prngs = prngs
        self._legal = np.empty(N_ACTIONS, np.int64)
        self.search_stats = np.zeros(N_STATS, np.int64)  # engines.core.search STAT_*: what searches cost

    @property
    def n_players(self) -> int:
        return n_players_of(self.state)

    def phase(self) -> str:
        return PHASE_NAMES[int(self.state.data[M_PHASE])]

    def current_player(self) -> int:
        """Seat to move, -1 when the game is over."""
        return int(self.state.data[M_PLAYER])

    def legal_actions(self) -> list[int]:
        n = legal_nb(self.state.data, self.kp.cfg, self._legal)
        return [int(a) for a in self._legal[:n]]

    def action_name(self, action: int) -> str:
        return action_name(int(action), self.kp)

    action_to_string = action_name

    def apply(self, action: int) -> None:
        if self.is_over():
            raise ValueError("the game is over")
        if int(action) not in self.legal_actions():
            raise ValueError(f"illegal action {action} ({self.action_name(action)}) in phase {self.phase()}")
        apply_nb(self.state.data, self.state.rng, self.kp.cfg, int(action))

    apply_action = apply

    def policy_action(self, name: str, weights: np.ndarray | None = None) -> int:
        """The action policy `name` picks for the player to move (draws from that seat's stream).
        `name` may carry weights as in a line-up: "search(iterations=200, rollout=heuristic)"."""
        p = self.current_player()
        info, row = policy_row(POLICIES, name, MAX_WEIGHTS)
        if weights is not None:  # a shorter row reads zeros past its end, as simulate's (no jitter)
            given = np.asarray(weights, np.float64)
            row = np.zeros(max(MAX_WEIGHTS, len(given)))
            row[:len(given)] = given
        w = row
        if info.policy_id == SEARCH:
            return int(search_action_nb(self.state.data, self.state.rng, self.kp.cfg, w, self._prngs[p],
                                        self.search_stats))
        n = legal_nb(self.state.data, self.kp.cfg, self._legal)
        return int(choose_action_nb(info.policy_id, self.state.data, self.kp.cfg, p, w, self._prngs[p],
                                    self._legal, n))

    def observation(self, player: int) -> np.ndarray:
        """The state vector as `player` sees it (hidden parts masked, see rules.observe_nb)."""
        return observe_nb(self.state.data, self.kp.cfg, int(player))

    def is_over(self) -> bool:
        return int(self.state.data[M_PHASE]) == PH_OVER

    is_terminal = is_over

    def scores(self) -> list[int]:
        """Prestige per seat (final once the game is over)."""
        return [int(score_parts_nb(self.state.data, self.kp.cfg, p)[0]) for p in range(self.n_players)]

    def tie_keys(self) -> list[int]:
        return [int(tie_key_nb(self.state.data, self.kp.cfg, p)) for p in range(self.n_players)]

    def clone(self) -> "Game":
        return Game(self.kp, copy_state(self.state), self.seed, self.game_index, [p.copy() for p in self._prngs])

    def render(self, player: int | None = None) -> str:
        """The table as text; with `player`, as that player sees it (his observation)."""
        data = self.state.data if player is None else self.observation(player)
        return render(data, self.kp, viewer=player)

    def __str__(self) -> str:
        return self.render()


def new_game(variant: str | Variant | None = None, n_players: int | None = None, seed: int = 0,
             game_index: int = 0, overrides: dict | None = None) -> Game:
    """Game `game_index` of run `seed` (variant name, path or loaded Variant; default 4 players)."""
    if not isinstance(variant, Variant):
        variant = VARIANTS.load(variant, overrides)
    P = 4 if n_players is None else int(n_players)
    kp = kernel_params(variant, P)
    st = new_state_nb(kp.cfg, np.uint64(seed), np.int64(game_index))
    prngs = [new_stream(np.uint64(seed), np.int64(game_index), POLICY_STREAM + s) for s in range(P)]
    return Game(kp, st, seed, game_index, prngs)


__all__ = ["Game", "new_game", "MAX_CELLS"]
