"""Step-by-step Project Skyline API over the same kernels as the batch loop.

    g = new_game(n_players=4, seed=7)
    while not g.is_over():
        a = g.policy_action("heuristic")      # or pick from g.legal_actions()
        print(g.action_name(a))
        g.apply(a)
    print(g.render(), g.scores())

Game `game_index` of run `seed` deals the same cards as `simulate(..., seed, game_index, 1)`,
and `policy_action` draws from the same per-seat policy stream, so a game played here with
policy_action for every decision replays the batch game exactly.
"""
from __future__ import annotations

import numpy as np

from engines.core.lineup import policy_row
from engines.core.rng import POLICY_STREAM, new_stream
from engines.core.search import N_STATS
from engines.core.variant import Variant
from engines.project_skyline.params import COLOURS, VARIANTS, KernelParams, kernel_params
from engines.project_skyline.policies import POLICIES, ROW_WIDTH, SEARCH, choose_action_nb
from engines.project_skyline.search import search_action_nb
from engines.project_skyline.render import SEATS, card_code, render
from engines.project_skyline.rules import apply_nb, card_count_nb, legal_nb, new_state_nb, observe_nb, score_of_nb
from engines.project_skyline.state import (
    A_BUY, A_DISC, A_DONE, A_PLAY, A_SELL_DISC, A_SELL_HAND, A_SELL_SKIP, A_SITE, A_SKIP, A_SPACE, A_STOP, A_SYM,
    A_TAKE, A_UPG, M_PHASE, M_PLAYER, MK_UMK, N_ACTIONS, P_HAND, PB, PBASE, PH_OVER, PHASE_NAMES, State,
    copy_state, n_players_of,
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

    def current_player(self) -> int:
        """Seat to decide, -1 when the game is over."""
        return int(self.state.data[M_PLAYER])

    def phase(self) -> str:
        return PHASE_NAMES[int(self.state.data[M_PHASE])]

    def legal_actions(self) -> list[int]:
        n = legal_nb(self.state.data, self.kp.cfg, self._legal)
        return [int(a) for a in self._legal[:n]]

    def action_name(self, action: int) -> str:
        a, kp, d = int(action), self.kp, self.state.data
        hand = PBASE + max(self.current_player(), 0) * PB + P_HAND
        mp = kp.map
        if a == A_SKIP:
            return "neither buy nor upgrade"
        if A_BUY <= a < A_UPG:
            t = int(kp.basic_type[a - A_BUY])
            return f"buy {card_code(kp, t)} ({COLOURS[a - A_BUY]} pile, {kp.cards[t].price} money)"
        if A_UPG <= a < A_SYM:
            h, j = (a - A_UPG) // 4, (a - A_UPG) % 4
            return f"upgrade {card_code(kp, int(d[hand + h]))} into {card_code(kp, int(d[MK_UMK + j]))} (slot {j})"
        if A_SYM <= a < A_PLAY:
            return f"play {COLOURS[a - A_SYM]}"
        if A_PLAY <= a < A_STOP:
            return f"play {card_code(kp, int(d[hand + a - A_PLAY]))}"
        if a == A_STOP:
            return "stop playing"
        if A_SPACE <= a < A_TAKE:
            r, c, area = mp.cells[a - A_SPACE]
            return f"build on row {r} col {c} (area {area})"
        if A_TAKE <= a < A_SELL_HAND:
            return f"take {card_code(kp, int(kp.basic_type[a - A_TAKE]))}"
        if A_SELL_HAND <= a < A_SELL_DISC:
            return f"sell {card_code(kp, int(d[hand + a - A_SELL_HAND]))} from hand"
        if A_SELL_DISC <= a < A_SELL_SKIP:
            return f"sell {card_code(kp, a - A_SELL_DISC)} from discard"
        if a == A_SELL_SKIP:
            return "sell nothing"
        if A_SITE <= a < A_DISC:
            return f"construction site to area {mp.area_names[a - A_SITE]}"
        if A_DISC <= a < A_DONE:
            return f"discard {card_code(kp, int(d[hand + a - A_DISC]))}"
        if a == A_DONE:
            return "draw"
        return f"action {a}"

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
        info, row = policy_row(POLICIES, name, ROW_WIDTH)
        if weights is not None:  # the kernels read a row at least ROW_WIDTH wide
            row = np.zeros(max(ROW_WIDTH, len(weights)))
            row[:len(weights)] = np.asarray(weights, np.float64)
        if info.policy_id == SEARCH:
            return int(search_action_nb(self.state.data, self.state.rng, self.kp.cfg, row, self._prngs[p],
                                        self.search_stats))
        n = legal_nb(self.state.data, self.kp.cfg, self._legal)
        return int(choose_action_nb(info.policy_id, self.state.data, self.kp.cfg, p, row, self._prngs[p],
                                    self._legal, n))

    def observation(self, player: int) -> np.ndarray:
        """The state vector as `player` sees it (other hands and every pile order hidden)."""
        return observe_nb(self.state.data, self.kp.cfg, int(player))

    def is_over(self) -> bool:
        return int(self.state.data[M_PHASE]) == PH_OVER

    is_terminal = is_over

    def scores(self) -> list[int]:
        """Final money per seat (money + card values + end condition once over; the money track
        before)."""
        return [int(score_of_nb(self.state.data, p)) for p in range(self.n_players)]

    def card_counts(self) -> list[int]:
        return [int(card_count_nb(self.state.data, p)) for p in range(self.n_players)]

    def clone(self) -> "Game":
        return Game(self.kp, copy_state(self.state), self.seed, self.game_index, [p.copy() for p in self._prngs])

    def render(self, viewer: int | None = None) -> str:
        return render(self.state, self.kp, viewer)

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
    return Game(kp, State(st.data, st.rng), seed, game_index, prngs)


__all__ = ["Game", "new_game", "SEATS"]
