"""The search player in Cityline: a named policy in runs and the step API, the same games in both,
stronger than the scripts it rolls out, and blind to what its seat cannot see."""
import numpy as np
import pytest

from engines.cityline import SPEC, simulate
from engines.cityline.game import new_game
from engines.cityline.params import VARIANTS, kernel_params
from engines.cityline.rules import observe_nb
from engines.cityline.search import determinize_nb, search_action_nb, search_context_nb
from engines.cityline.state import DR, M_NDICE, M_PHASE, M_PLAYER, P_PEND_C, P_PEND_V, PB, PBASE, PH_OCCUPY, PH_ROOF, PS
from engines.core.lineup import make_lineup, policy_row
from engines.core.rng import new_stream
from engines.core.search import SEARCH_HEAD


def run(lineup, n_players, count, seed=5, start=0):
    kp = kernel_params(VARIANTS.load(None), n_players)
    ln = make_lineup(SPEC, lineup, n_players, True)
    return simulate(kp, ln.policy_ids(), ln.weight_rows(SPEC.max_weights), True, seed, start, count)


def test_search_is_a_named_policy_with_a_rollout_written_by_name():
    ln = make_lineup(SPEC, ["search(iterations=50, rollout=heuristic)"], 1, False)
    assert ln.labels == ["search(iterations=50, rollout=heuristic)"]
    row = ln.weight_rows(8)[0]
    heur = list(SPEC.policies["heuristic"].weights.values())
    assert row[0] == 50 and row[1] == SPEC.policies["heuristic"].policy_id
    assert list(row[SEARCH_HEAD:SEARCH_HEAD + len(heur)]) == heur      # the rollout's weights follow the search's


def test_step_api_replays_the_batch_game_with_search_seats():
    t = run(["search(iterations=30)", "heuristic", "search(iterations=20, rollout=greedy)"], 3, 2, seed=9, start=4)
    for k, gi in enumerate((4, 5)):
        g = new_game(n_players=3, seed=9, game_index=gi)
        slots = [(s + gi) % 3 for s in range(3)]
        names = ["search(iterations=30)", "heuristic", "search(iterations=20, rollout=greedy)"]
        while not g.is_terminal():
            g.apply_action(g.policy_action(names[slots[g.current_player()]]))
        got = t["players"]["score"][k * 3:(k + 1) * 3]
        assert list(got) == g.scores()
    assert (t["games"]["search_simulated"] > 0).all()


def test_search_beats_the_random_player_and_matches_the_heuristic_solo():
    n = 60
    s = run(["search(iterations=200)"], 1, n)["players"]["score"].astype(float)
    r = run(["random"], 1, n)["players"]["score"].astype(float)
    h = run(["heuristic"], 1, n)["players"]["score"].astype(float)
    assert s.mean() > r.mean() + 5
    assert s.mean() > h.mean() - 1.0     # same dice (common random numbers): random rollouts match the script


def _decision_states(n_players, n_games=6, seed=2):
    """States met in heuristic games, at every decision (the dice stream moves on)."""
    out = []
    for gi in range(n_games):
        g = new_game(n_players=n_players, seed=seed, game_index=gi)
        while not g.is_terminal():
            out.append(g.clone())
            g.apply_action(g.policy_action("heuristic"))
    return out


def _scramble(g, rng):
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


@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic", "strong(rollouts=2, reroll_rollouts=2)",
                                    "search(iterations=16)", "search(iterations=8, rollout=heuristic)"])
def test_no_policy_reads_what_its_seat_cannot_see(policy):
    rng = np.random.default_rng(0)
    states = _decision_states(1, n_games=3)[::2] + _decision_states(3, n_games=2)[::3]  # solo re-rolls
    assert any(g.phase() == "reroll" for g in states)
    for g in states:
        p = g.current_player()
        a = g.clone().policy_action(policy)
        h = g.clone()
        _scramble(h, rng)
        assert np.array_equal(observe_nb(h.state, h.kp, p), observe_nb(g.state, g.kp, p))
        assert h.policy_action(policy) == a, (policy, g.phase())


def test_determinization_keeps_what_the_seat_sees_and_redraws_the_rest():
    changed = 0
    for g in _decision_states(3, n_games=2)[::2]:
        p = g.current_player()
        h = g.clone()
        before = h.state.rng.copy(), h.state.data.copy()
        ctx = search_context_nb(g.kp.cfg, g.kp.fill)
        determinize_nb((h.state.data, h.state.rng), ctx, p, new_stream(1, 2, 3))
        assert np.array_equal(observe_nb(h.state, h.kp, p), observe_nb(g.state, g.kp, p))
        changed += not np.array_equal(before[0], h.state.rng)
    assert changed > 0
