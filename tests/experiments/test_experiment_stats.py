"""The statistics of experiments against the libraries' own answers and known values."""
import math

import numpy as np
import polars as pl
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import NormalIndPower, TTestIndPower, TTestPower
from statsmodels.stats.proportion import proportion_effectsize

from analysis import compare as C
from analysis import power as P
from analysis.fairness import seat_edges
from analysis import metrics as M


def _correlated(n=2000, seed=0, shift=0.3):
    rng = np.random.default_rng(seed)
    luck = rng.normal(0, 3, n)              # what both arms share (the same deals and dice)
    a = luck + rng.normal(0, 1, n)
    b = luck + shift + rng.normal(0, 1, n)
    return a, b


def test_identical_arms_differ_by_exactly_zero():
    a, _ = _correlated()
    d = C.paired_difference(a, a.copy())
    assert d.estimate == 0 and d.low == 0 and d.high == 0 and d.p_value == 1.0 and d.test == C.IDENTICAL


def test_paired_matches_scipy_ttest_rel():
    a, b = _correlated()
    d = C.paired_difference(a, b)
    ref = scipy_stats.ttest_rel(b, a)
    ci = ref.confidence_interval(0.95)
    assert d.test == C.PAIRED_T
    assert d.estimate == pytest.approx(np.mean(b - a))
    assert (d.low, d.high) == pytest.approx((ci.low, ci.high))
    assert d.p_value == pytest.approx(ref.pvalue)
    # the t interval by hand: mean +- t(0.975, n-1) * sd / sqrt(n)
    half = scipy_stats.t.ppf(0.975, a.size - 1) * np.std(b - a, ddof=1) / math.sqrt(a.size)
    assert d.high - d.estimate == pytest.approx(half)


def test_paired_interval_narrower_than_unpaired_on_the_same_data():
    a, b = _correlated()
    paired = C.paired_difference(a, b)
    unpaired = C.unpaired_difference(a, b)
    assert paired.estimate == pytest.approx(unpaired.estimate)
    assert (paired.high - paired.low) < 0.5 * (unpaired.high - unpaired.low)
    ref = scipy_stats.ttest_ind(b, a, equal_var=False).confidence_interval(0.95)
    assert (unpaired.low, unpaired.high) == pytest.approx((ref.low, ref.high))
    assert unpaired.test == C.WELCH


def test_binary_outcomes_use_mcnemar():
    rng = np.random.default_rng(1)
    a = (rng.random(500) < 0.3).astype(float)
    b = np.where(rng.random(500) < 0.85, a, 1 - a)
    d = C.paired_difference(a, b)
    table = [[np.sum((a == 0) & (b == 0)), np.sum((a == 0) & (b == 1))],
             [np.sum((a == 1) & (b == 0)), np.sum((a == 1) & (b == 1))]]
    assert d.test == C.MCNEMAR
    # From 25 discordant games up: the score test (no continuity correction), which Tango's interval inverts.
    assert d.p_value == pytest.approx(mcnemar(np.array(table), exact=False, correction=False).pvalue)


def test_mcnemar_known_value():
    # Few discordant pairs: the exact binomial test. 1 vs 9 discordant -> p = 2 * P(X <= 1 | 10, 0.5) = 0.021484375
    a = np.array([1] * 1 + [0] * 9 + [1] * 20 + [0] * 20, dtype=float)
    b = np.array([0] * 1 + [1] * 9 + [1] * 20 + [0] * 20, dtype=float)
    assert C.paired_difference(a, b).p_value == pytest.approx(0.021484375)


def test_holm_matches_statsmodels_and_known_values():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    adjusted, reject = C.holm(p)
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])  # Holm by hand: sorted p x (4, 3, 2, 1), running max
    assert reject.tolist() == [True, False, False, True]
    ref = multipletests(p, alpha=0.05, method="holm")
    assert adjusted == pytest.approx(ref[1]) and reject.tolist() == ref[0].tolist()
    with_nan, _ = C.holm([0.01, float("nan"), 0.04])
    assert with_nan[0] == pytest.approx(0.02) and math.isnan(with_nan[1]) and with_nan[2] == pytest.approx(0.04)


def test_compare_values_pairs_on_game_and_key():
    a = pl.DataFrame({"game": [0, 1, 2, 0, 1, 2], "key": ["x"] * 3 + ["y"] * 3, "value": [1.0, 2, 3, 4, 5, 6]})
    b = a.with_columns(pl.col("value") + pl.when(pl.col("key") == "x").then(1.0).otherwise(0.0))
    table = C.add_holm(C.compare_values(a, b.reverse(), paired=True))
    rows = {r["key"]: r for r in table.iter_rows(named=True)}
    # x: +1 in all 3 games. Three games on one side is p = 2 * 0.5^3 = 0.25 by the sign test,
    # not p = 0: the interval stays unbounded until enough games agree.
    assert rows["x"]["difference"] == 1.0 and rows["x"]["p_value"] == 0.25 and rows["x"]["test"] == C.SIGN
    assert rows["x"]["low"] == -math.inf and rows["x"]["high"] == math.inf
    assert rows["y"]["difference"] == 0.0 and rows["y"]["p_value"] == 1.0
    assert table["p_holm"].to_list() == pytest.approx([0.5, 1.0])


def test_power_matches_statsmodels_and_known_values():
    assert P.games_for_mean(0.5, 1.0) == 34       # Cohen: d = 0.5, one-sample, 80% power -> 33.4
    assert P.games_for_two_means(0.5, 1.0) == 64  # Cohen: d = 0.5, two samples -> 63.8 per group
    raw = TTestPower().solve_power(effect_size=2 / 9.0, alpha=0.05, power=0.8)
    assert P.games_for_mean(2, 9.0) == math.ceil(raw)
    raw = TTestIndPower().solve_power(effect_size=2 / 9.0, alpha=0.05, power=0.9)
    assert P.games_for_two_means(2, 9.0, power=0.9) == math.ceil(raw)
    raw = NormalIndPower().solve_power(effect_size=proportion_effectsize(0.27, 0.25), alpha=0.05, power=0.8, ratio=0)
    assert P.games_for_proportion(0.25, 0.27) == math.ceil(raw) == 3775
    n = P.games_for_mean(0.1, 0.5)
    assert P.detectable_effect(n, 0.5) <= 0.1 < P.detectable_effect(n - 1, 0.5) * 1.01
    # pairing: the same effect needs fewer games when the differences spread less
    a, b = _correlated()
    assert P.games_for_mean(0.3, np.std(b - a, ddof=1)) * 4 < P.games_for_two_means(0.3, np.std(a, ddof=1))


def test_estimates_wilson_and_t_known_values():
    metric_p = M.Metric("p", "", "proportion", lambda run: None)
    metric_m = M.Metric("m", "", "mean", lambda run: None)
    wins = pl.DataFrame({"game": range(10), "key": ["all"] * 10, "value": [1.0] * 5 + [0.0] * 5})
    row = M.estimate(metric_p, wins).row(0, named=True)
    assert row["interval"] == M.WILSON
    assert (row["low"], row["high"]) == pytest.approx((0.2366, 0.7634), abs=1e-4)  # Wilson 5/10
    values = pl.DataFrame({"game": range(5), "key": ["all"] * 5, "value": [1.0, 2, 3, 4, 5]})
    row = M.estimate(metric_m, values).row(0, named=True)
    assert row["interval"] == M.T
    assert (row["estimate"], row["low"], row["high"]) == pytest.approx((3.0, 1.0367, 4.9633), abs=1e-4)


def test_seat_edges_match_ttest_1samp():
    rng = np.random.default_rng(4)
    x = rng.normal(0.05, 0.5, 400)
    frame = pl.DataFrame({"game": range(400), "key": ["1st"] * 400, "value": x})
    row = seat_edges(frame).row(0, named=True)
    ref = scipy_stats.ttest_1samp(x, 0.0)
    assert row["p_value"] == pytest.approx(ref.pvalue)
    assert (row["low"], row["high"]) == pytest.approx(tuple(ref.confidence_interval(0.95)))


def _edges(n, edge, rng):
    w = (rng.random((n, 3)) < np.array([1 / 3 + edge, 1 / 3, 1 / 3 - edge])).astype(float)
    e = w - w.mean(axis=1, keepdims=True)
    return pl.DataFrame({"game": np.repeat(np.arange(n), 3), "key": np.tile(["1st", "2nd", "3rd"], n),
                         "value": e.ravel()})


def test_seat_edge_changes_find_the_seat_that_changed_and_cover_the_truth():
    from analysis.fairness import seat_edge_changes

    rng = np.random.default_rng(3)
    unfair, fair = _edges(4000, 0.08, rng), _edges(4000, 0.0, rng)
    table = seat_edge_changes([("unfair", "fair", unfair, fair)])
    first = table.filter(pl.col("seat") == "1st").row(0, named=True)
    assert first["changed"] and first["high"] < 0 and first["edge_a"] > 0.05
    same = seat_edge_changes([("a", "a", unfair, unfair)])
    assert not same["changed"].any() and (same["change"] == 0).all()


@pytest.mark.slow
def test_seat_edge_changes_cover_simultaneously():
    """True change of the 1st seat's edge -0.03 (the max-|edge| change it replaces: mean estimate -0.0165,
    coverage 0.72): every seat's simultaneous interval covers its true change in >= 93% of runs."""
    from analysis.fairness import seat_edge_changes

    rng = np.random.default_rng(8)
    hits = []
    truth = {"1st": -0.03, "2nd": 0.0, "3rd": 0.03}
    for _ in range(300):
        a, b = _edges(1000, 0.03, rng), _edges(1000, 0.0, rng)
        t = seat_edge_changes([("a", "b", a, b)])
        hits.append(all(r["low"] <= truth[r["seat"]] <= r["high"] for r in t.iter_rows(named=True)))
    assert np.mean(hits) >= 0.93, np.mean(hits)
