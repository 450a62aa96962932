"""The search player in Project Skyline: a named policy in runs and the step API, the same games in
both, stronger than the scripts it is measured against, and blind to what its seat cannot see."""

import numpy as np
import pytest

from engines.core.lineup import make_lineup
from engines.core.search import SEARCH_HEAD
from engines.core.rng import new_stream
from engines.core.search import STAT_SIMULATED
from engines.project_skyline import SPEC, simulate
from engines.project_skyline import new_game
from engines.project_skyline.params import VARIANTS, kernel_params
from engines.project_skyline.search import MAX_ACTIONS, determinize_nb
from engines.project_skyline.state import (
    MK_UPG, MK_UPG_N, M_NPLAYERS, P_DRAW, P_DRAW_N, P_HAND, P_HAND_N, PB, PBASE,
)
from tests.project_skyline.hidden import decision_states as _decision_states


def run(lineup, n_players, count, seed=5, start=0, variant=None):
    kp = kernel_params(VARIANTS.load(variant), n_players)
    ln = make_lineup(SPEC, lineup, n_players, True)
    return simulate(kp, ln.policy_ids(), ln.weight_rows(SPEC.max_weights), True, seed, start, count)


def test_search_is_a_named_policy_with_a_rollout_written_by_name():
    ln = make_lineup(SPEC, ["search(iterations=50, rollout=heuristic)"], 2, False)
    assert ln.labels == ["search(iterations=50, rollout=heuristic)"] * 2
    row = ln.weight_rows(SPEC.max_weights)[0]
    heur = list(SPEC.policies["heuristic"].weights.values())
    assert row[0] == 50 and row[1] == SPEC.policies["heuristic"].policy_id
    assert list(row[SEARCH_HEAD:SEARCH_HEAD + len(heur)]) == heur   # the rollout's weights follow the search's


@pytest.mark.parametrize("variant, names", [
    (None, ("search(iterations=6)", "heuristic", "search(iterations=4, rollout=greedy)")),
    ("tokyo", ("random", "search(iterations=4, rollout=heuristic, rollout_cap=40)")),
])
def test_step_api_replays_the_batch_game_with_search_seats(variant, names):
    P = len(names)
    t = run(list(names), P, 2, seed=9, start=4, variant=variant)
    for k, gi in enumerate((4, 5)):
        g = new_game(variant, P, 9, gi)
        slots = [(s + gi) % P for s in range(P)]
        while not g.is_over():
            g.apply(g.policy_action(names[slots[g.current_player()]]))
        assert g.scores() == [int(x) for x in t["players"]["score"][k * P:(k + 1) * P]]
        assert int(g.search_stats[STAT_SIMULATED]) == int(t["games"]["search_simulated"][k])
    assert (t["games"]["search_simulated"] > 0).all()
    assert (run(["heuristic"], P, 1, variant=variant)["games"]["search_simulated"] == 0).all()


def _report(label, t):
    pl = t["players"]
    s = pl["lineup_slot"]
    win = pl["win"][s == 0].mean()
    print(f"{label}: {len(t['games']['game'])} games, search wins {win:.0%}, "
          f"mean score {pl['score'][s == 0].mean():.1f} vs {pl['score'][s != 0].mean():.1f}")
    return win


def test_search_beats_the_random_player():
    win = _report("search(iterations=40) vs random, 2p", run(["search(iterations=40)", "random"], 2, 6))
    assert win == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("opponent, least", [("random", 0.9), ("greedy", 0.5)])
def test_search_200_against_the_scripts(opponent, least):
    """search(iterations=200), random rollouts, heads-up (seats rotate) over 24 games."""
    win = _report(f"search(iterations=200) vs {opponent}, 2p",
                  run(["search(iterations=200)", opponent], 2, 24, seed=17))
    assert win >= least


# ---------------------------------------------------------------- hidden information

SITUATIONS = [(None, 4), (None, 2), ("tokyo", 3), ("tokyo", 2)]


@pytest.fixture(scope="module")
def states():
    return {(v, p): _decision_states(v, p, every=9 if p > 2 else 5) for v, p in SITUATIONS}


def _hidden_multisets(d, me):
    """Per other player the multiset of hand + draw pile; the seat's own draw pile; the Upgrade pile."""
    out = []
    for q in range(int(d[M_NPLAYERS])):
        b = PBASE + q * PB
        h, k = int(d[b + P_HAND_N]), int(d[b + P_DRAW_N])
        cards = list(d[b + P_DRAW:b + P_DRAW + k]) + ([] if q == me else list(d[b + P_HAND:b + P_HAND + h]))
        out.append(sorted(cards))
    out.append(sorted(d[MK_UPG:MK_UPG + int(d[MK_UPG_N])]))
    return out


def test_determinization_keeps_what_the_seat_sees_and_redraws_the_rest(states):
    prng = new_stream(1, 2, 3)
    hands_changed = 0
    for v, n in SITUATIONS:
        for g in states[(v, n)]:
            p = g.current_player()
            h = g.clone()
            before = h.state.data.copy(), h.state.rng.copy()
            determinize_nb(h.state.data, h.state.rng, g.kp.cfg, p, prng, np.empty(MAX_ACTIONS, np.int64))
            d = h.state.data
            assert np.array_equal(h.observation(p), g.observation(p))
            assert _hidden_multisets(d, p) == _hidden_multisets(before[0], p)
            assert not np.array_equal(before[1], h.state.rng)
            for q in range(n):
                b = PBASE + q * PB + P_HAND
                if q != p and not np.array_equal(d[b:b + d[b - P_HAND + P_HAND_N]],
                                                 before[0][b:b + d[b - P_HAND + P_HAND_N]]):
                    hands_changed += 1
    assert hands_changed > 10
