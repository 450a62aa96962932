"""Seeded jitter (policies.JITTER): identical scripts sharing the dice play different games, and
jitter=0 is the plain script, decision for decision."""
import numpy as np
import polars as pl

from engines.cityline import SPEC, simulate
from engines.cityline import new_game
from engines.cityline.params import VARIANTS, kernel_params
from engines.cityline.policies import HEURISTIC_WEIGHTS, JITTER, heuristic_action_nb
from engines.core.lineup import make_lineup


def _players(policy, n=300):
    kp = kernel_params(VARIANTS.load(None), 4)
    ln = make_lineup(SPEC, [policy], 4, True)
    return pl.DataFrame(simulate(kp, ln.policy_ids(), ln.weight_rows(SPEC.max_weights), True, 3, 0, n)["players"])


def test_four_jittered_heuristics_are_four_players():
    assert HEURISTIC_WEIGHTS["jitter"] == JITTER > 0
    same = _players("heuristic").group_by("game").agg(pl.col("score").n_unique() == 1)["score"].mean()
    assert same < 0.3
    plain = _players("heuristic(jitter=0)").group_by("game").agg(pl.col("score").n_unique() == 1)["score"].mean()
    assert plain == 1.0        # without jitter: one game played four times


def test_zero_jitter_is_the_plain_heuristic_decision_for_decision():
    w = np.array([*list(HEURISTIC_WEIGHTS.values())[:-1], 0.0])
    for gi in range(5):
        g = new_game(n_players=2, seed=8, game_index=gi)
        while not g.is_over():
            a = g.policy_action("heuristic(jitter=0)")
            n = 0
            if g.phase() != "reroll":
                n = len(g.legal_actions())
                g._legal[:n] = g.legal_actions()
            plain = heuristic_action_nb(g.state.data, g.kp.cfg, g.kp.fill, g.current_player(), w, g._legal, n,
                                        np.empty(256))
            assert a == plain
            g.apply(a)
