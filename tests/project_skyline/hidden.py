"""What a seat of Project Skyline cannot see, for the conformance suite's hidden-information test
(tests/test_conformance.py runs it for every registered game): POLICIES (every declared policy,
search at small budgets), states() (the decision states to check them at), scramble(g, rng)
(everything the seat to move cannot see, changed: written from the rulebook, not from the
engine's determinization) and check_states(states) (the states reach the situations that matter)."""

import numpy as np

from engines.project_skyline import new_game
from engines.project_skyline.params import MAX_UPG
from engines.project_skyline.state import (
    MAX_HAND, MAX_PILE, MK_UPG, MK_UPG_N, M_NPLAYERS, P_DRAW, P_DRAW_N, P_HAND, P_HAND_N, PB, PBASE,
)

POLICIES = ["random", "greedy", "heuristic", "expert", "search(iterations=12)",
            "search(iterations=6, rollout=heuristic)", "search(iterations=6, rollout=heuristic, halving=0)"]


def decision_states(variant, n_players, n_games=1, every=7, seed=2):
    """States met in heuristic games (every `every`-th decision)."""
    out = []
    for gi in range(n_games):
        g = new_game(variant, n_players, seed, gi)
        k = 0
        while not g.is_over():
            if k % every == 0:
                out.append(g.clone())
            g.apply(g.policy_action("heuristic"))
            k += 1
    return out


_decision_states = decision_states


SITUATIONS = [(None, 4), (None, 2), ("tokyo", 3), ("tokyo", 2)]
_SITUATION_STATES = {}


def situation_states() -> dict:
    if not _SITUATION_STATES:
        _SITUATION_STATES.update({(v, p): _decision_states(v, p, every=9 if p > 2 else 5) for v, p in SITUATIONS})
    return _SITUATION_STATES


_STATES = []


def states() -> list:
    """The decision states the hidden-information test checks every policy at (built once)."""
    if not _STATES:
        _STATES.extend([g for situation in situation_states().values() for g in situation])
    return _STATES


def scramble(g, rng):
    """Everything the seat to move cannot see, changed, written from the rulebook rather than
    from the engine's determinization: another player's cards in hand and draw pile are a
    multiset the seat can deduce, split between the two at public sizes, so deal them anew;
    every draw pile's order (the seat's own too) and the Upgrade draw pile's order are unknown;
    the chance stream (future reshuffles) too; and slots past a pile's size hold nothing."""
    d = g.state.data
    me = g.current_player()
    n_types = len(g.kp.cards)
    g.state.rng[:] = rng.integers(1, 2**63, 4, dtype=np.uint64)
    n = int(d[MK_UPG_N])
    d[MK_UPG:MK_UPG + n] = rng.permutation(d[MK_UPG:MK_UPG + n])
    d[MK_UPG + n:MK_UPG + MAX_UPG] = rng.integers(0, n_types, MAX_UPG - n)
    for q in range(int(d[M_NPLAYERS])):
        b = PBASE + q * PB
        h, k = int(d[b + P_HAND_N]), int(d[b + P_DRAW_N])
        if q == me:
            d[b + P_DRAW:b + P_DRAW + k] = rng.permutation(d[b + P_DRAW:b + P_DRAW + k])
        else:
            cards = rng.permutation(np.concatenate([d[b + P_HAND:b + P_HAND + h], d[b + P_DRAW:b + P_DRAW + k]]))
            d[b + P_HAND:b + P_HAND + h] = cards[:h]
            d[b + P_DRAW:b + P_DRAW + k] = cards[h:]
            d[b + P_HAND + h:b + P_HAND + MAX_HAND] = rng.integers(0, n_types, MAX_HAND - h)
        d[b + P_DRAW + k:b + P_DRAW + MAX_PILE] = rng.integers(0, n_types, MAX_PILE - k)


def check_states(states) -> None:
    for situation, found in situation_states().items():
        assert {"buy", "symbol", "play", "target", "discard"} <= {g.phase() for g in found}, situation
