"""Skyline 3000 step by step (OpenSpiel style), over the same kernels as the
batch loop: every call below goes to rules.py / policies.py.

    g = new_game(seed=7)
    while not g.is_terminal():
        acts = g.legal_actions()          # list of ints, or a BidSpace
        g.apply_action(g.policy_action("heuristic"))
    print(g.result())

A bid decision (phase PH_BID) has too many subsets to list: legal_actions()
returns a `BidSpace` over the bidder's hand: `len(space)`, `a in space`,
`space.cards` (card ids), `space.bid(card_ids)` and `space.bid_values(values)`
build the action (BID_FLAG | card-id mask); `space.zero` bids nothing.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from engines.core.harness import seed_policies_nb
from engines.core.lineup import policy_row
from engines.core.search import N_STATS
from engines.core.variant import Variant
from engines.skyline_3000 import rules as R
from engines.skyline_3000.params import VARIANTS, KernelParams, kernel_params
from engines.skyline_3000.policies import POLICIES, SEARCH, choose_action_nb
from engines.skyline_3000.engine import ENGINE
from engines.skyline_3000.search import real_action_nb, reset_nb
from engines.skyline_3000.render import CARD_TYPE_LABEL, DISTRICT_NAMES, ITEM_LABEL, ROOF_LABEL, render
from engines.skyline_3000.state import (
    A_SHIFT, BB_BLOCK_MASK, BB_CARD_SHIFT, BID_FLAG, C_CUR, C_ITEM, C_PHASE, C_STALLED, DETAIL_MASK, ACT_BID, ACT_BILLBOARD, ACT_CONTRACT,
    ACT_DRAW, ACT_FLOOR, ACT_FLOOR_TARGET, ACT_INSTALL, ACT_NOACT, ACT_PASS, ACT_PLACE, ACT_ROOF, ACT_ROOF_TARGET,
    P_NBUILD, P_NHAND, P_SCORE, PH_BID, PH_OVER, PL_H, PL_R, State, copy_state,
)

PHASE_NAMES = ("construction", "place floor", "roof", "install", "bid", "place item", "draw", "over")


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


class SkylineGame:
    """One game of Skyline 3000; state in `self.state` (rules kernels' layout)."""

    def __init__(self, kp: KernelParams, state: State, prng: np.ndarray, variant: Variant | None = None):
        self.kp = kp
        self.state = state
        self.prng = prng          # uint64[P, 4]: each seat's policy stream
        self.variant = variant
        self._legal = np.zeros(kp.max_actions, np.int64)
        self.history: list[int] = []
        self.search_stats = np.zeros(N_STATS, np.int64)  # engines.core.search STAT_*: what searches cost

    # ------------------------------------------------------------ flow
    @property
    def n_players(self) -> int:
        return self.kp.n_players

    def phase(self) -> str:
        """The phase's name (the StepGame contract: the same in every game)."""
        return PHASE_NAMES[self.phase_id]

    @property
    def phase_id(self) -> int:
        """The phase as the kernels code it (state.PH_*)."""
        return int(self.state.ctrl[C_PHASE])

    def current_player(self) -> int:
        return int(self.state.ctrl[C_CUR])

    def is_terminal(self) -> bool:
        return int(self.state.ctrl[C_PHASE]) == PH_OVER

    def _legal_array(self) -> np.ndarray:
        n = R.legal_actions_nb(self.state.pub, self.state.hands, self._legal)
        return self._legal[:n]

    def legal_actions(self) -> list[int] | BidSpace:
        if self.is_terminal():
            return []
        if self.phase_id == PH_BID:
            p = self.current_player()
            hand = self.state.hands[p, : self.state.players[p, P_NHAND]]
            return BidSpace(hand, self.kp.card_values()[hand])
        return [int(a) for a in self._legal_array()]

    def apply_action(self, action: int) -> None:
        """Apply `action` for the current player; ValueError if illegal."""
        if self.is_terminal():
            raise ValueError("the game is over")
        a = int(action)
        if self.phase_id != PH_BID and a not in set(self._legal_array().tolist()):
            raise ValueError(f"illegal action {a} ({self.action_to_string(a)}) in phase {self.phase()}")
        st = self.state
        if not R.apply_action_nb(st.pub, st.hands, st.sec, np.int64(a)):
            raise ValueError(f"illegal action {a} ({self.action_to_string(a)})")
        self.history.append(a)

    def policy_action(self, policy: str | int, weights: dict[str, float] | np.ndarray | None = None) -> int:
        """The compiled policy's choice for the current player, drawn from that
        seat's policy stream exactly as the batch kernel does. `policy` may
        carry weights as in a line-up: "search(iterations=200, rollout=heuristic)";
        `weights` (a row, or named weights of the policy) override them."""
        if isinstance(policy, str):
            info, w = policy_row(POLICIES, policy)
        else:
            info = next(i for i in POLICIES.values() if i.policy_id == int(policy))
            w = policy_row(POLICIES, info.name)[1]
        if isinstance(weights, np.ndarray):
            w = np.zeros(max(8, len(weights)))
            w[: len(weights)] = weights
        elif weights:
            names = list(info.weights)
            for k, v in weights.items():
                w[names.index(k)] = v
        p = self.current_player()
        st = self.state
        if info.policy_id == SEARCH:
            a = ENGINE.built.search_action_nb(st.data, st.rng, self.kp.cfg, self.kp.aux, w, self.prng[p],
                                              self.search_stats)
            return int(real_action_nb(st.data, np.int64(a)))
        n = R.legal_actions_nb(st.pub, st.hands, self._legal)
        return int(choose_action_nb(info.policy_id, st.pub, st.hands[p], self._legal, n, w, self.prng[p]))

    # ------------------------------------------------------------ views
    def observation(self, player: int) -> dict[str, np.ndarray]:
        """What `player` may see (read-only views): public arrays + own hand."""
        st = self.state
        out = {name: getattr(st, name) for name in ("ctrl", "board", "plants", "players", "piles", "alog")}
        out["hand"] = st.hands[player, : st.players[player, P_NHAND]]
        out["seat"] = np.int64(player)
        return {k: _readonly(np.asarray(v)) for k, v in out.items()}

    def scores(self) -> np.ndarray:
        return self.state.players[:, P_SCORE].copy()

    def result(self) -> dict[str, Any]:
        """Final ranks, winners and how the tie (if any) was settled."""
        P = self.n_players
        score = np.zeros(P, np.int64)
        rank = np.zeros(P, np.int64)
        hv = np.zeros(P, np.int64)
        n_win, n_top, winner, margin, tb = R.final_result_nb(self.state.pub, self.state.hands, score, rank, hv)
        winners = [int(p) for p in range(P) if rank[p] == 1]
        return {
            "scores": self.scores().tolist(),
            "ranks": rank.tolist(),
            "hand_values": hv.tolist(),
            "winners": winners,
            "shared": n_win > 1,
            "tie_break": "hand value" if tb else ("shared" if n_win > 1 else "none"),
            "stalled": bool(self.state.ctrl[C_STALLED]),
        }

    def clone(self) -> "SkylineGame":
        g = SkylineGame(self.kp, copy_state(self.state), self.prng.copy(), self.variant)
        g.history = list(self.history)
        return g

    def __str__(self) -> str:
        return render(self.state, self.kp)

    # ------------------------------------------------------------ strings
    def card_name(self, c: int) -> str:
        t = int(self.kp.card_types()[c])
        v = int(self.kp.card_values()[c])
        if t == 2:
            return f"Contract({DISTRICT_NAMES[int(self.kp.card_districts()[c])]}) {v}"
        return f"{CARD_TYPE_LABEL[t]} {v}"

    def action_to_string(self, action: int) -> str:
        a = int(action)
        kind = ACT_BID if a & BID_FLAG else a >> A_SHIFT
        d = a & DETAIL_MASK
        p = self.current_player()
        NB = self.kp.n_blocks
        bpd = self.kp.bpd

        def block(k: int) -> str:
            return f"{DISTRICT_NAMES[k // bpd]} block {k % bpd + 1}"

        if kind == ACT_PASS:
            return "pass"
        if kind == ACT_FLOOR:
            return f"play {self.card_name(d)} to build"
        if kind == ACT_ROOF:
            return f"play {self.card_name(d)} to roof a building"
        if kind == ACT_CONTRACT:
            return f"play {self.card_name(d)} to install a building"
        if kind == ACT_NOACT:
            return f"play {self.card_name(d)} without acting"
        if kind == ACT_BILLBOARD:
            c = (d >> BB_CARD_SHIFT) - 1
            where = f"place a billboard in {block(d & BB_BLOCK_MASK)}"
            return where if c < 0 else f"{where}, paying with {self.card_name(c)}"
        if kind == ACT_FLOOR_TARGET:
            if p >= 0 and d == self.state.players[p, P_NBUILD]:
                return "start a new building with a floor"
            h = self.state.plants[p, PL_H, d] if p >= 0 else 0
            return f"add a floor to building {d} ({h} floors)"
        if kind == ACT_ROOF_TARGET:
            i, r = d >> 1, (d & 1) + 1
            h = self.state.plants[p, PL_H, i] if p >= 0 else 0
            return f"put a {ROOF_LABEL[r]} roof on building {i} ({h} floors)"
        if kind == ACT_INSTALL:
            onbb = d & 1
            k = (d >> 1) % NB
            i = (d >> 1) // NB
            h = self.state.plants[p, PL_H, i] if p >= 0 else 0
            r = self.state.plants[p, PL_R, i] if p >= 0 else 0
            where = "on own billboard in " if onbb else "in "
            return f"install {h}-floor {ROOF_LABEL[r]} building {where}{block(k)}"
        if kind == ACT_PLACE:
            return f"place the {ITEM_LABEL[int(self.state.ctrl[C_ITEM])]} in {block(d)}"
        if kind == ACT_DRAW:
            return f"draw from the {CARD_TYPE_LABEL[d]} deck"
        if kind == ACT_BID:
            m = a ^ BID_FLAG
            cards = [c for c in range(self.kp.n_cards) if (m >> c) & 1]
            if not cards:
                return "bid nothing (STOP first) = 0"
            vals = self.kp.card_values()
            return "bid " + " + ".join(self.card_name(c) for c in cards) + f" = {int(sum(vals[c] for c in cards))}"
        return f"action {a}"

    # the StepGame names (engines.core.spec.StepGame): pure aliases of the methods above
    action_name = action_to_string
    apply = apply_action
    is_over = is_terminal
    render = __str__


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


def new_game(variant: str | Variant | None = None, n_players: int | None = None, seed: int = 0,
             game_index: int = 0, overrides: dict[str, Any] | None = None) -> SkylineGame:
    """A new game: the same deal as game `game_index` of a batch run with `seed`."""
    if not isinstance(variant, Variant):
        variant = VARIANTS.load(variant, overrides)
    kp = kernel_params(variant, n_players)
    st = State.empty(kp)
    reset_nb(st.data, st.rng, kp.cfg, np.uint64(seed), np.int64(game_index))
    prng = np.zeros((kp.n_players, 4), np.uint64)
    seed_policies_nb(prng, np.uint64(seed), np.int64(game_index))
    return SkylineGame(kp, st, prng, variant)


PolicyLike = str | int | Callable[[dict, Any], int]


def play(game: SkylineGame, policies: list[PolicyLike], max_decisions: int = 100_000) -> dict[str, Any]:
    """Play `game` to the end. Each seat's policy is a compiled policy name/id
    or a Python function (observation, legal_actions) -> action (slow, for
    prototyping). Returns game.result()."""
    for _ in range(max_decisions):
        if game.is_terminal():
            break
        p = game.current_player()
        pol = policies[p]
        if callable(pol):
            a = pol(game.observation(p), game.legal_actions())
        else:
            a = game.policy_action(pol)
        game.apply_action(a)
    return game.result()
