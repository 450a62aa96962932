"""What a seat of Cityline cannot see, for the conformance suite's hidden-information test
(tests/test_conformance.py runs it for every registered game): POLICIES (every declared policy,
search at small budgets), states() (the decision states to check them at), scramble(g, rng)
(everything the seat to move cannot see, changed: written from the rulebook, not from the
engine's determinization) and check_states(states) (the states reach the situations that matter)."""
import numpy as np

from engines.cityline import new_game
from engines.cityline.state import (
    DR, M_PHASE, M_PLAYER, P_PEND_C, P_PEND_V, PB, PBASE, PH_OCCUPY, PH_ROOF, PS,
)

POLICIES = ["random", "greedy", "heuristic", "strong(rollouts=2, reroll_rollouts=2)",
            "search(iterations=16)", "search(iterations=8, rollout=heuristic)",
            "search(iterations=16, halving=0)", "search(iterations=8, rollout=heuristic, halving=0)",
            "heuristic_tuned",   # the shipped preset (engines/cityline/presets.toml)
            "expert", "search(iterations=8, rollout=expert)"]   # the learned expert (expert.toml), and rolled out


def decision_states(n_players, n_games=6, seed=2):
    """States met in heuristic games, at every decision (the dice stream moves on)."""
    out = []
    for gi in range(n_games):
        g = new_game(n_players=n_players, seed=seed, game_index=gi)
        while not g.is_over():
            out.append(g.clone())
            g.apply(g.policy_action("heuristic"))
    return out


_decision_states = decision_states


_STATES = []


def states() -> list:
    """The decision states the hidden-information test checks every policy at (built once)."""
    if not _STATES:
        _STATES.extend(_decision_states(1, n_games=3)[::2] + _decision_states(3, n_games=2)[::3])  # solo re-rolls
    return _STATES


def scramble(g, rng):
    """Everything the seat to move cannot see, changed (written from the rulebook, not from the
    engine's determinization): the future dice, the re-roll reserve, earlier seats' pending choices."""
    d = g.state.data
    g.state.rng[:] = rng.integers(1, 2**63, 4, dtype=np.uint64)
    d[DR:DR + 8] = rng.integers(1, 7, 8)
    me = int(d[M_PLAYER])
    if d[M_PHASE] in (PH_ROOF, PH_OCCUPY):
        for q in range(me):
            b = PBASE + q * PB + PS
            d[b + P_PEND_V] = rng.integers(1, 7)
            d[b + P_PEND_C] = rng.integers(0, 6)


def check_states(states) -> None:
    assert any(g.phase() == "reroll" for g in states)
