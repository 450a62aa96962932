"""analysis.stats against known values and against the libraries it wraps."""
import numpy as np
import polars as pl
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.proportion import proportion_confint

from analysis import stats


# --- Wilson ------------------------------------------------------------------------

def test_wilson_five_of_ten_matches_the_literature():
    # Wilson score interval for 5/10 at 95%: (0.2366, 0.7634) (Newcombe 1998, Table I style values).
    low, high = stats.wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4)
    assert high == pytest.approx(0.7634, abs=1e-4)


def test_wilson_zero_and_all_successes():
    # 0/10: (0, 0.2775); 10/10: (0.7225, 1), the classic values.
    assert stats.wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert stats.wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)


def test_wilson_is_statsmodels_elementwise_and_nan_for_no_trials():
    successes, n = np.array([3, 17, 250]), np.array([7, 40, 1000])
    low, high = stats.wilson_interval(successes, n, confidence=0.9)
    want_low, want_high = proportion_confint(successes, n, alpha=0.1, method="wilson")
    np.testing.assert_allclose(low, want_low)
    np.testing.assert_allclose(high, want_high)
    low, high = stats.wilson_interval([1, 0], [2, 0])
    assert np.isnan(low[1]) and np.isnan(high[1]) and not np.isnan(low[0])


def test_proportion_table_counts_and_intervals():
    frame = pl.DataFrame({"group": ["a"] * 10 + ["b"] * 4, "flag": [1] * 5 + [0] * 5 + [1, 1, 1, 0]})
    table = stats.proportion_table(frame.lazy(), "group", "flag")
    a = table.row(0, named=True)
    assert (a["group"], a["n"], a["count"], a["rate"]) == ("a", 10, 5, 0.5)
    assert (a["low"], a["high"]) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert table.row(1, named=True)["rate"] == 0.75


# --- win rates ------------------------------------------------------------------------

def test_win_rates_count_shared_wins_both_ways():
    # Game 0: seat 0 wins alone. Game 1: seats 0 and 1 share. Game 2: seat 1 wins alone.
    frame = pl.DataFrame({
        "game":      [0, 0, 1, 1, 2, 2],
        "seat":      [0, 1, 0, 1, 0, 1],
        "win":       [1, 0, 1, 1, 0, 1],
        "n_winners": [1, 1, 2, 2, 1, 1],
    })
    rates = stats.win_rates(frame, "seat")
    seat0 = rates.row(0, named=True)
    assert seat0["games"] == 3 and seat0["wins"] == 2
    assert seat0["win_rate"] == pytest.approx(2 / 3)
    assert seat0["share_rate"] == pytest.approx(1.5 / 3)
    # 2 of 3: at most 3 wins or losses, the exact interval (stats.rate_interval), not Wilson
    assert (seat0["win_low"], seat0["win_high"]) == pytest.approx(stats.rate_interval(2, 3))
    # Win shares of all seats add up to the number of games; wins do not.
    assert rates["win_shares"].sum() == pytest.approx(3)
    assert rates["wins"].sum() == 4


# --- means --------------------------------------------------------------------------------

def test_t_interval_known_value():
    # mean 3, sd 1.5811, t(0.975, 4) = 2.7764 -> 3 -/+ 1.9632
    estimate = stats.mean_t_interval([1, 2, 3, 4, 5])
    assert estimate.value == 3 and estimate.n == 5
    assert (estimate.low, estimate.high) == pytest.approx((1.0368, 4.9632), abs=1e-4)


def test_t_interval_matches_scipy_and_handles_degenerate_samples():
    values = np.random.default_rng(1).normal(10, 3, size=200)
    want = scipy_stats.t.interval(0.99, len(values) - 1, loc=values.mean(), scale=scipy_stats.sem(values))
    got = stats.mean_t_interval(values, confidence=0.99)
    assert (got.low, got.high) == pytest.approx(want)
    assert np.isnan(stats.mean_t_interval([4.0]).low)
    constant = stats.mean_t_interval([2.0, 2.0, 2.0])
    assert (constant.low, constant.high) == (2.0, 2.0)


def test_mean_table_matches_numpy_per_group():
    rng = np.random.default_rng(2)
    frame = pl.DataFrame({"policy": rng.choice(["a", "b"], size=500), "score": rng.integers(0, 60, size=500)})
    table = stats.mean_table(frame.lazy(), "policy", "score", quantiles=(0.0, 0.5, 1.0))
    for row in table.iter_rows(named=True):
        values = frame.filter(pl.col("policy") == row["policy"])["score"].to_numpy()
        direct = stats.mean_t_interval(values)
        assert row["n"] == values.size
        assert (row["mean"], row["low"], row["high"]) == pytest.approx((direct.value, direct.low, direct.high))
        assert (row["min"], row["q50"], row["max"]) == pytest.approx((values.min(), np.median(values), values.max()))


# --- bootstrap --------------------------------------------------------------------------------

def test_bootstrap_is_scipy_bootstrap_with_a_seed():
    values = np.random.default_rng(3).exponential(2.0, size=300)
    got = stats.bootstrap_interval(values, np.median, n_resamples=2000, seed=7)
    want = scipy_stats.bootstrap((values,), np.median, n_resamples=2000, rng=np.random.default_rng(7)).confidence_interval
    assert (got.low, got.high) == pytest.approx((want.low, want.high))
    assert got.value == pytest.approx(np.median(values))
    again = stats.bootstrap_interval(values, np.median, n_resamples=2000, seed=7)
    assert (again.low, again.high) == (got.low, got.high)


def test_bootstrap_interval_covers_the_true_median():
    # Exponential(scale 2): true median 2 ln 2 = 1.386.
    values = np.random.default_rng(4).exponential(2.0, size=2000)
    estimate = stats.bootstrap_interval(values, np.median, n_resamples=2000, method="percentile")
    assert estimate.low < 2 * np.log(2) < estimate.high
    assert estimate.high - estimate.low < 0.3


# --- chi-square ----------------------------------------------------------------------------------

def test_chisquare_known_value():
    # sum((o - 20)^2 / 20) = (100 + 100 + 0) / 20 = 10; chi2(2) tail at 10 = exp(-5).
    result = stats.chisquare_uniform([30, 10, 20])
    assert result.statistic == pytest.approx(10.0)
    assert result.p_value == pytest.approx(np.exp(-5))
    assert result.dof == 2
    assert stats.chisquare_uniform([50, 50, 50, 50]).p_value == pytest.approx(1.0)


# --- histograms ----------------------------------------------------------------------------------

def test_histogram_of_value_counts_equals_histogram_of_expanded_values():
    rng = np.random.default_rng(5)
    raw = rng.poisson(30, size=5000)
    counts = pl.DataFrame({"score": raw}).group_by("score").agg(pl.len().alias("count"))
    got_counts, got_edges = stats.value_counts_histogram(counts, "score")
    want_counts, _ = np.histogram(raw, bins=got_edges)
    np.testing.assert_array_equal(got_counts, want_counts)
    assert got_counts.sum() == raw.size


def test_integer_bin_edges_hold_every_integer_once():
    edges = stats.integer_bin_edges(-3, 250, max_bins=40)
    assert len(edges) - 1 <= 41
    counts, _ = np.histogram(np.arange(-3, 251), bins=edges)
    assert counts.sum() == 254  # nothing falls outside
    unit = stats.integer_bin_edges(0, 10)
    np.testing.assert_array_equal(np.diff(unit), 1)
    assert unit[0] == -0.5


def test_cluster_rate_interval_is_statsmodels_ols_clustered_by_game():
    # A policy in 1-3 seats of each game: the ratio estimate and its cluster-robust
    # standard error equal statsmodels OLS on a constant with cov_type='cluster'.
    import statsmodels.api as sm

    rng = np.random.default_rng(7)
    games = np.repeat(np.arange(40), rng.integers(1, 4, 40))
    wins = (rng.random(games.size) < 0.3).astype(float)
    fit = sm.OLS(wins, np.ones(games.size)).fit(cov_type="cluster", cov_kwds={"groups": games})
    frame = pl.DataFrame({"game": games, "policy": "a", "win": wins})
    table = stats.game_unit_rates(frame, "policy", "win")
    row = table.row(0, named=True)
    assert row["rate"] == pytest.approx(fit.params[0])
    q = scipy_stats.t.ppf(0.975, 39)
    assert row["high"] - row["rate"] == pytest.approx(q * fit.bse[0], rel=1e-9)
    assert row["interval"] == "cluster-robust by game" and row["games"] == 40


def test_unit_ratio_table_is_statsmodels_wls_clustered_by_unit():
    # Shares with unequal denominators (e.g. one roof type out of each seat's
    # buildings), 1-3 rows per unit: the ratio estimate and its interval equal
    # statsmodels WLS of numerator/denominator on a constant, weights =
    # denominator, cov_type='cluster' by unit, with a t quantile on units - 1.
    import statsmodels.api as sm

    rng = np.random.default_rng(11)
    units = np.repeat(np.arange(30), rng.integers(1, 4, 30))
    den = rng.integers(1, 9, units.size).astype(float)
    num = rng.binomial(den.astype(int), 0.35).astype(float)
    fit = sm.WLS(num / den, np.ones(units.size), weights=den).fit(cov_type="cluster", cov_kwds={"groups": units})
    frame = pl.DataFrame({"chunk": units, "policy": "a", "num": num, "den": den})
    row = stats.unit_ratio_table(frame, "policy", "num", "den", unit="chunk").row(0, named=True)
    assert row["rate"] == pytest.approx(fit.params[0])
    q = scipy_stats.t.ppf(0.975, 29)
    assert row["high"] - row["rate"] == pytest.approx(q * fit.bse[0], rel=1e-9)
    assert row["rate"] - row["low"] == pytest.approx(q * fit.bse[0], rel=1e-9)
    assert row["units"] == 30 and row["total"] == num.sum() and row["total_n"] == den.sum()
    single = stats.unit_ratio_table(frame.with_columns(pl.lit(0).alias("chunk")), "policy", "num", "den",
                                    unit="chunk").row(0, named=True)
    assert np.isnan(single["low"]) and np.isnan(single["high"])  # one unit: no interval


def test_cluster_share_clips_to_a_share_and_never_makes_a_bound_from_one_game():
    from analysis.stats import cluster_share

    share, lo, hi = cluster_share([0, 0, 1, 0], [5, 4, 6, 5])     # a share near 0: the normal interval crosses it
    assert lo == 0.0 and 0.0 < share < hi <= 1.0
    share, lo, hi = cluster_share([3], [5])
    assert share == 0.6 and np.isnan(lo) and np.isnan(hi)
    assert all(np.isnan(x) for x in cluster_share([], []))
