"""Skyline 3000 on the core's engine adapter (engines.core.adapter): the batch loop, the step API,
the search glue and their lifetimes are the core's, built from ENGINE below over this game's
kernels (search.py: how a seat decides, what the search tries and cannot see, the scores;
columns.py: the result columns) and its Python answers (render.py: names, text, the result).
The package imports this module on first use (engines.skyline_3000.ENGINE), so that SPEC stays
cheap to build.

    g = new_game(seed=7)
    while not g.is_over():
        acts = g.legal_actions()          # list of ints, or a BidSpace
        g.apply(g.policy_action("heuristic"))
    print(result(g))

A bid decision (phase PH_BID) has too many subsets to list: legal_actions()
returns a `BidSpace` over the bidder's hand: `len(space)`, `a in space`,
`space.cards` (card ids), `space.bid(card_ids)` and `space.bid_values(values)`
build the action (BID_FLAG | card-id mask); `space.zero` bids nothing.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from engines.core.adapter import Engine
from engines.skyline_3000 import columns, search
from engines.skyline_3000.params import VARIANTS, kernel_params
from engines.skyline_3000.policies import EXPERT, POLICIES, SEARCH
from engines.skyline_3000.render import PHASES, action_name, render, result
from engines.skyline_3000.state import (
    BID_FLAG, C_PHASE, D_NPLAYERS, D_PUB, D_SEC, MAX_P, P_NHAND, P_SCORE, PH_BID, State, state_size,
)
from engines.skyline_3000.tables import DTYPES, TABLES


class BidSpace:
    """The legal bids of the current bidder: every subset of its hand."""

    def __init__(self, cards: Iterable[int], values: Iterable[int]):
        self.cards = [int(c) for c in cards]
        self.values = {c: int(v) for c, v in zip(self.cards, values)}
        self._mask = 0
        for c in self.cards:
            self._mask |= 1 << c

    zero = BID_FLAG

    def __len__(self) -> int:
        return 1 << len(self.cards)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, (int, np.integer)):
            return False
        a = int(action)
        return bool(a & BID_FLAG) and a >= 0 and ((a ^ BID_FLAG) & ~self._mask) == 0

    def __iter__(self):
        raise TypeError("a BidSpace is too large to list; build bids with .bid(cards)")

    def bid(self, cards: Iterable[int]) -> int:
        """The action bidding these card ids (each must be in the hand)."""
        m = 0
        for c in cards:
            if int(c) not in self.values:
                raise ValueError(f"card {c} is not in the bidder's hand")
            m |= 1 << int(c)
        return BID_FLAG | m

    def sample(self, rng: np.random.Generator) -> int:
        """A bid drawn uniformly from the space (each hand card joins with probability 1/2): the
        StepGame way to draw from a container too large to list."""
        return self.bid(c for c in self.cards if rng.random() < 0.5)

    def bid_values(self, values: Iterable[int]) -> int:
        """A bid of hand cards with these values (any cards carrying them)."""
        left = list(self.cards)
        chosen = []
        for v in values:
            c = next((c for c in left if self.values[c] == v), None)
            if c is None:
                raise ValueError(f"no card of value {v} left in the hand")
            left.remove(c)
            chosen.append(c)
        return self.bid(chosen)

    def __repr__(self) -> str:
        return f"BidSpace({len(self.cards)} cards: any subset)"


def bid_space(game) -> BidSpace | None:
    """The legal actions where they are too many to list: a bid's (any subset of the hand)."""
    st = game.state
    if st.phase != PH_BID:
        return None
    p = game.current_player()
    hand = st.hands[p, : st.players[p, P_NHAND]]
    return BidSpace(hand, game.kp.card_values()[hand])


def observation(kp, st: State, player: int) -> dict[str, np.ndarray]:
    """What `player` may see (read-only views): public arrays + own hand."""
    out = {name: getattr(st, name) for name in ("ctrl", "board", "plants", "players", "piles", "alog")}
    out["hand"] = st.hands[player, : st.players[player, P_NHAND]]
    out["seat"] = np.int64(player)
    return {k: _readonly(np.asarray(v)) for k, v in out.items()}


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


ENGINE = Engine(
    name="skyline_3000", game_file=__file__, module=__name__, tables=TABLES, dtypes=DTYPES, records="auctions",
    wide=(), policies=POLICIES, search_id=SEARCH, lookahead_ids=(SEARCH, EXPERT), max_actions=search.MAX_ACTIONS,
    max_players=MAX_P, work_width=search.WORK_WIDTH, n_players_slot=D_NPLAYERS, variants=VARIANTS,
    kernel_params=kernel_params, default_players=None, weight_width=8, state_size=state_size,
    rows_per_game=columns.rows_per_game, side="rounds", side_rows_per_game=columns.rounds_per_game, side_grows=False,
    acc_shape=columns.card_use_shape, chunk_tables=columns.card_use_table,
    step_state=State.of, legal_space=bid_space, phase=lambda data: PHASES[int(data[D_PUB:D_SEC].view(np.int32)[C_PHASE])],
    action_name=action_name, render=lambda g: render(g.state, g.kp), observe=observation,
    scores=lambda g: g.state.players[:, P_SCORE].copy(),
    kernels=dict(reset_nb=search.reset_nb, legal_nb=search.legal_nb, apply_nb=search.apply_nb,
                 to_move_nb=search.to_move_nb, decide_nb=search.decide_nb, decide_scripted_nb=search.decide_scripted_nb,
                 decide_listed_nb=search.decide_listed_nb, decide_scripted_listed_nb=search.decide_scripted_listed_nb, search_actions_nb=search.search_actions_nb,
                 determinize_nb=search.determinize_nb, outcome_nb=search.outcome_nb, chosen_nb=search.real_action_nb,
                 copy_state_nb=search.copy_state_nb, step_nb=columns.step_nb, side_nb=columns.side_nb,
                 finish_nb=columns.finish_nb, accumulate_nb=columns.accumulate_nb))
simulate = ENGINE.simulate
new_game = ENGINE.new_game

PolicyLike = str | int | Callable[[dict, Any], int]


def play(game, policies: list[PolicyLike], max_decisions: int = 100_000) -> dict[str, Any]:
    """Play `game` to the end. Each seat's policy is a compiled policy name or a Python function
    (observation, legal_actions) -> action (slow, for prototyping). Returns result(game)."""
    for _ in range(max_decisions):
        if game.is_over():
            break
        p = game.current_player()
        pol = policies[p]
        a = pol(game.observation(p), game.legal_actions()) if callable(pol) else game.policy_action(pol)
        game.apply(a)
    return result(game)
