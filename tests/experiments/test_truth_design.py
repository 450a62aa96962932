"""The verdicts of the [sensitivity] and [tune] kinds (experiments/variant_design.py) in worlds of known
truth: a synthetic metric that is a known function of the keys plus game-to-game noise, on common random
numbers (game g's luck is the same at every design point) as the batches are.

"Key X matters for M": said of a key with no effect on M at most 5% of the time (Holm over keys x outputs);
said of a key with a large effect nearly always. Sobol' indices of an additive function land near their
known values. "Candidate meets the target": said of a candidate whose true figure is just outside the
target at most 5% of the time (equivalence tests at alpha / candidates), and nearly always of one well
inside; the tuner finds a known optimum."""
from pathlib import Path

import numpy as np
import pytest

from experiments import variant_design as D

KEYS = ["a", "b", "c", "d"]


def experiment(kind="sensitivity", targets=(), n_keys=4, **options):
    ranges = [D.KeyRange(k, k, None, "float", 0.0, 1.0) for k in KEYS[:n_keys]]
    defaults = {"sensitivity": {"trajectories": 6, "levels": 4, "sobol_base": 0, "max_sobol_keys": n_keys, "seed": 0},
                "tune": {"trials": 30, "keep": 3, "recheck_games": 500, "recheck_seed": 99, "seed": 0}}[kind]
    return D.DesignExperiment(Path("synthetic.toml"), "synthetic", "", "synthetic", "Synthetic", kind, "synthetic",
                              None, None, {}, {k: 0.5 for k in KEYS}, 2, None, True, 200, 0, ["y"], 0.95, ranges,
                              {**defaults, **options}, list(targets))


def world(effect, games, rng, point_sd=1.0, common_sd=3.0, outputs=("y",)):
    """evaluate(units) -> per-game values: effect(x) + the game's common luck + the point's own noise."""
    common = rng.normal(0, common_sd, games)
    seed = int(rng.integers(2**31))

    def evaluate(units):
        own = np.random.default_rng([seed, *np.round(np.asarray(units) * 1e6).astype(int)])
        return {(name, "all"): effect(units, name) + common + own.normal(0, point_sd, games) for name in outputs}
    return evaluate


def claims(effect, replicates, games=200, seed=0, **options):
    """Per (key, output): the share of replicates saying "matters"; and the share with any false claim
    (key d on y, or anything on the null output)."""
    rng = np.random.default_rng(seed)
    counts, false = {}, 0
    exp = experiment(**options)
    for _ in range(replicates):
        screening, *_ = D.analyse_sensitivity(exp, world(effect, games, rng, outputs=("y", "null")))
        for r in screening.iter_rows(named=True):
            counts[(r["key"], r["output"])] = counts.get((r["key"], r["output"]), 0) + bool(r["matters"])
        bad = screening.filter(((screening["key"] == "d") | (screening["output"] == "null")) & screening["matters"])
        false += bad.height > 0
    return {k: v / replicates for k, v in counts.items()}, false / replicates


def linear(units, name):
    return 0.0 if name == "null" else 1.0 * units[0] + 0.5 * units[1] * units[2]


def test_key_matters_quick():
    rates, false = claims(linear, 25)
    assert rates[("a", "y")] >= 0.9                       # a moves y by 1 across its range, noise sd 1 per game
    assert false <= 0.08                                  # d moves nothing, nothing moves the null output


@pytest.mark.slow
def test_key_matters_false_claims_at_most_5_percent_and_large_effects_found():
    rates, false = claims(linear, 200, seed=5)
    assert rates[("a", "y")] >= 0.95
    assert rates[("d", "y")] <= 0.05 and max(rates[(k, "null")] for k in KEYS) <= 0.05
    assert false <= 0.06                                  # family-wise (Holm over keys x outputs), 200 replicates


def test_sobol_indices_of_an_additive_world():
    # y = 2a + b: S1 = ST = 0.8 for a, 0.2 for b, 0 for c; common luck only (it cancels on the same games)
    exp = experiment(n_keys=3, sobol_base=64)
    evaluate = world(lambda u, name: 2 * u[0] + u[1], 100, np.random.default_rng(1), point_sd=0.0)
    screening, sobol, survivors, n_morris, n_sobol = D.analyse_sensitivity(exp, evaluate)
    assert set(survivors) == {"a", "b"} and n_morris == 6 * 4 and n_sobol == 64 * 4
    got = {r["key"]: r for r in sobol.iter_rows(named=True)}
    assert got["a"]["S1"] == pytest.approx(0.8, abs=0.1) and got["a"]["ST"] == pytest.approx(0.8, abs=0.1)
    assert got["b"]["ST"] == pytest.approx(0.2, abs=0.1)
    assert got["a"]["ST_low"] <= 0.8 <= got["a"]["ST_high"] + 0.05


def seat_world(means_of_units, games, rng, sd=5.0):
    """Two seats whose per-game score edges have known means; common luck per game."""
    common = rng.normal(0, sd, games)
    seed = int(rng.integers(2**31))

    def fresh(units):
        mu = means_of_units(units)
        own = np.random.default_rng([seed, *np.round(np.asarray(units) * 1e6).astype(int)])
        e = common + own.normal(0, sd, games)
        return {("seat_score_edge", "1st"): mu + e, ("seat_score_edge", "2nd"): -mu - e,
                ("game_length", "all"): 40 + 3 * np.asarray(units)[0] + own.normal(0, 2, games)}
    return fresh


TARGET = D.Target("seat_score_edge", "within", -2.0, 2.0)


def meets_rate(true_edge, replicates, games=500, seed=0):
    rng = np.random.default_rng(seed)
    exp = experiment("tune", [TARGET], n_keys=2)
    candidates = [np.array([0.1 * i, 0.5]) for i in range(3)]
    any_claim = 0
    for _ in range(replicates):
        fresh = seat_world(lambda u: true_edge, games, rng)
        start = fresh(np.array([0.9, 0.9]))
        targets, verdicts, changes = D.recheck(exp, candidates, start, fresh)
        any_claim += bool(verdicts["meets_all_targets"].any())
        assert set(changes["metric"]) == {"seat_score_edge", "game_length"}   # every metric beside the target
    return any_claim / replicates


def test_candidate_meets_the_target_false_claims_and_power():
    # just outside +-2 (2.1): "meets the target" is a false claim; each of 3 candidates at alpha/3
    assert meets_rate(2.1, 200, games=300) <= 0.05
    # well inside (0.5) with 500 games of sd ~7: shown nearly always
    assert meets_rate(0.5, 40, seed=1) >= 0.9


def test_at_least_target_false_claims():
    target = D.Target("game_length", "at_least", 42.0, np.inf)
    exp = experiment("tune", [target], n_keys=2)
    rng = np.random.default_rng(3)
    claims_ = 0
    for _ in range(150):
        fresh = seat_world(lambda u: 0.0, 300, rng)
        # game length 40 + 3 * units[0]: at units[0] = 2/3 exactly 42, the boundary
        _, verdicts, _ = D.recheck(exp, [np.array([2 / 3, 0.5])], fresh(np.array([0.0, 0.0])), fresh)
        claims_ += bool(verdicts["meets_all_targets"][0])
    assert claims_ / 150 <= 0.06


def test_the_tuner_finds_a_known_optimum():
    # the edge is 6 * (a - 0.7): zero at a = 0.7, outside +-2 for a < 0.37 or a > 1.03; b does nothing
    exp = experiment("tune", [TARGET], n_keys=2, trials=25)
    fresh = seat_world(lambda u: 6 * (u[0] - 0.7), 400, np.random.default_rng(4))
    trials, candidates = D.optimise(exp, fresh)
    assert trials.height == 25 and trials["a"][0] == 0.5         # the starting variant is trial 1
    assert abs(candidates[0][0] - 0.7) < 0.12
    _, verdicts, _ = D.recheck(exp, candidates[:3], fresh(np.array([0.0, 0.5])), fresh)
    assert verdicts["meets_all_targets"][0]


def test_survivors_tied_in_influence_keep_the_files_order():
    # a tops y1, b tops y2 (both a share of 1): the Sobol' stage must draw the same points on every run, or a
    # rerun is not free (it replayed 7 of 16 notebook points when polars' group order decided the tie)
    exp = experiment(n_keys=3, sobol_base=2, max_sobol_keys=2)
    for _ in range(5):
        evaluate = world(lambda u, name: 3 * u[0] if name == "y1" else 3 * u[1], 100, np.random.default_rng(2),
                         point_sd=0.0, outputs=("y1", "y2"))
        assert D.analyse_sensitivity(exp, evaluate)[2] == ["a", "b"]


# y = 2a + b + 1.5ac on the unit cube: V_a = 2.75^2/12, V_b = 1/12, V_c = 0.75^2/12, V_ac = 2.25/144, so the
# luck-free total indices are a 0.832, b 0.107, c 0.081.
V_PARTS = {"a": 2.75**2 / 12, "b": 1 / 12, "c": 0.75**2 / 12, "ac": 2.25 / 144}
TRUE_ST = {k: (V_PARTS[k] + V_PARTS["ac"] * (k != "b")) / sum(V_PARTS.values()) for k in "abc"}


def sobol_readings(point_sd, replicates, seed, games=100):
    """Sobol' rows of the [sensitivity] kind at N = 32 over replicates of a world with point noise and no
    common luck (so the noise share the rule reads is the real one: the worst case for it)."""
    rng = np.random.default_rng(seed)
    exp = experiment(n_keys=3, sobol_base=32)
    rows, answers = [], []
    for _ in range(replicates):
        evaluate = world(lambda u, name: 2 * u[0] + u[1] + 1.5 * u[0] * u[2], games, rng, point_sd=point_sd,
                         common_sd=0.0)
        screening, sobol, *_ = D.analyse_sensitivity(exp, evaluate)
        rows += list(sobol.iter_rows(named=True))
        answers.append(D.sensitivity_answer(exp, screening, sobol, games))
    return rows, answers


def wrong_share(rows):
    read = [r for r in rows if r["reading"] == "readable"]
    wrong = [r for r in read if not max(r["ST_low"], 0.0) <= TRUE_ST[r["key"]] <= min(r["ST_high"], 1.0)]
    return len(read), len(wrong) / max(len(read), 1)


def test_sobol_index_read_only_when_its_interval_holds_the_luck_free_truth():
    # point_sd 2 on 100 games: noise share ~0.05, at the rule's boundary (at 2.5, ~0.08, 14% of all intervals
    # missed the truth); at 5, ~0.25, an ST above 1 happens
    rows, _ = sobol_readings(2.0, 25, seed=3)
    n_read, wrong = wrong_share(rows)
    assert n_read >= 10 and wrong <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / n_read)
    rows, answers = sobol_readings(5.0, 10, seed=4)
    assert any(r["ST"] > 1 for r in rows)                      # the case the rule is for
    assert all(r["reading"] != "readable" for r in rows if r["ST"] > 1 or r["ST_low"] < -0.25)
    assert all("too wide to read" in a and "Largest total" not in a for a in answers if "Sobol'" in a)


@pytest.mark.slow
def test_sobol_reading_wrong_at_most_5_percent_across_noise_levels():
    for point_sd, seed in ((1.0, 11), (1.8, 12), (2.0, 13), (2.2, 14), (3.0, 15)):
        rows, _ = sobol_readings(point_sd, 60, seed=seed)
        n_read, wrong = wrong_share(rows)
        assert wrong <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / max(n_read, 1)), (point_sd, n_read, wrong)


def test_an_output_whose_largest_index_is_unreadable_names_no_largest_key():
    # the shipped Skyline 3000 map's game_length: draw_per_round ST 1.05 [0.57, 1.53] (too wide), deal_contract
    # 0.04 [0.02, 0.06] (readable): naming deal_contract as the largest would be wrong
    import polars as pl
    sobol = pl.DataFrame({"key": ["a", "b"], "output": ["y", "y"], "S1": [0.9, 0.03], "S1_low": [0.6, 0.01],
                          "S1_high": [1.2, 0.05], "ST": [1.05, 0.04], "ST_low": [0.57, 0.02], "ST_high": [1.53, 0.06],
                          "noise_share": [0.001, 0.001]})
    sobol = sobol.with_columns(pl.Series("reading", [D.sobol_reading(r["ST_low"], r["ST_high"], r["S1_low"],
                                                                     r["S1_high"], r["noise_share"])
                                                     for r in sobol.iter_rows(named=True)]))
    screening = pl.DataFrame({"key": ["a", "b"], "output": ["y", "y"], "matters": [True, True],
                              "p_adjusted": [0.001, 0.01]})
    answer = D.sensitivity_answer(experiment(n_keys=2), screening, sobol, 100)
    assert "Largest total" not in answer and "y (interval 0.96 wide)" in answer
