"""Per-group sums over slices of games equal the sums over all of them.

The report aggregates its tables UNIT_SLICE games at a time (analysis.stats), so its memory stays
that of one slice. These tests make the slices tiny and hold every sliced estimate to the same
estimate computed in one pass, on random tables with gaps in the game ids, groups that skip
slices, ties and missing values.
"""
import contextlib

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from analysis import stats


@st.composite
def tables(draw):
    rows = draw(st.integers(1, 120))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    games = np.sort(rng.choice(np.arange(draw(st.integers(1, 60)) * 3), size=rows))   # gaps and repeats
    return pl.DataFrame({
        "game": games.astype(np.int32),
        "group": rng.choice(["a", "b", "c"], size=rows, p=[0.6, 0.3, 0.1]),
        "win": rng.integers(0, 2, size=rows).astype(np.int8),
        "score": rng.integers(-5, 40, size=rows).astype(np.int32),
        "weight": rng.integers(0, 4, size=rows).astype(np.int32),
    })


@contextlib.contextmanager
def slices_of(games: int):
    """stats.UNIT_SLICE set to `games` within the block."""
    old = stats.UNIT_SLICE
    stats.UNIT_SLICE = games
    try:
        yield
    finally:
        stats.UNIT_SLICE = old


def one_pass(function, *args, **kwargs):
    """The function's result with every game in one slice."""
    with slices_of(10**9):
        return function(*args, **kwargs)


def assert_same(sliced: pl.DataFrame, whole: pl.DataFrame):
    assert sliced.columns == whole.columns
    assert sliced.height == whole.height
    for column in sliced.columns:
        a, b = sliced[column], whole[column]
        if a.dtype.is_float():
            np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=1e-9, atol=1e-9, equal_nan=True)
        else:
            assert a.to_list() == b.to_list(), column


@settings(max_examples=30, deadline=None)
@given(table=tables(), size=st.integers(1, 7))
def test_sliced_estimates_equal_one_pass(table, size):
    with slices_of(size):
        calls = [
            (stats.game_unit_rates, (table, "group", "win"), {}),
            (stats.game_unit_rates, (table, "group", "score"), {}),
            (stats.unit_ratio_table, (table, "group", "score", "weight"), {}),
            (stats.unit_ratio_table, (table, ["group", "win"], "weight"), {}),
            (stats.win_rates, (table.with_columns(pl.lit(1).alias("n_winners")), "group"), {}),
            (stats.mean_table, (table, "group", "score"), {"quantiles": (0.0, 0.1, 0.25, 0.5, 0.9, 1.0)}),
        ]
        for function, args, kwargs in calls:
            assert_same(function(*args, **kwargs), one_pass(function, *args, **kwargs))


@settings(max_examples=30, deadline=None)
@given(table=tables(), size=st.integers(1, 7))
def test_sliced_mean_table_is_polars_own(table, size):
    """Mean, std and quantiles combined over slices are what polars computes on the whole column."""
    with slices_of(size):
        sliced = stats.mean_table(table, "group", "score", quantiles=(0.0, 0.3, 0.5, 0.95, 1.0))
    score = pl.col("score").cast(pl.Float64)
    expected = table.group_by("group").agg(
        pl.len().alias("n"), score.mean().alias("mean"), score.std().alias("std"),
        *[score.quantile(q, interpolation="linear").alias(stats._quantile_name(q)) for q in (0.0, 0.3, 0.5, 0.95, 1.0)],
    ).sort("group")
    assert sliced["n"].to_list() == expected["n"].to_list()
    for column in ["mean", "std", "min", "q30", "q50", "q95", "max"]:
        np.testing.assert_allclose(sliced[column].to_numpy(), expected[column].to_numpy(), rtol=1e-9, atol=1e-9,
                                   equal_nan=True)


def test_a_range_hint_that_misses_games_still_counts_them():
    """unit_ranges says how to slice, never what: games outside the hinted range are counted too."""
    rng = np.random.default_rng(4)
    table = pl.DataFrame({"game": np.repeat(np.arange(50), 2), "group": np.tile(["a", "b"], 50),
                          "win": rng.integers(0, 2, 100), "score": rng.integers(0, 9, 100)})
    whole = one_pass(stats.game_unit_rates, table, "group", "win")
    with slices_of(4), stats.unit_ranges(game=(10, 30)):   # slices 10-13, ..., 26-29, 30-30, then the rest
        hinted = stats.game_unit_rates(table, "group", "win")
        rows = pl.concat(stats.collect_by_units(table))
        means = stats.mean_table(table, "group", "score", quantiles=(0.5,))
    assert_same(hinted, whole)
    assert rows.sort("game", "group").equals(table.sort("game", "group"))
    assert_same(means, one_pass(stats.mean_table, table, "group", "score", quantiles=(0.5,)))
    assert int(hinted["games"].sum()) == 100


def test_slices_read_each_game_once():
    table = pl.DataFrame({"game": [0, 0, 1, 5, 5, 5, 9, 12], "x": range(8)})
    with slices_of(3):
        pieces = list(stats.collect_by_units(table))
        whole = stats.aggregate_by_units(table, [], {"rows": (pl.len(), "sum"), "top": (pl.col("x").max(), "max"),
                                                     "games": (pl.col("game").n_unique(), "sum")})
    assert whole.rows() == [(8, 7, 5)]    # no `by`: one row over every slice
    assert [p["game"].to_list() for p in pieces] == [[0, 0, 1], [5, 5, 5], [9], [12]]


@pytest.mark.parametrize("values, counts", [([1.0], [1]), ([0.0, 2.0, 7.0], [3, 1, 2]), ([-1.5, 4.0], [1, 9])])
def test_quantile_of_counts_is_numpy_linear(values, counts):
    sample = np.repeat(values, counts)
    for q in (0.0, 0.05, 0.25, 0.5, 0.77, 1.0):
        assert stats.quantile_of_counts(np.array(values), np.array(counts), q) == pytest.approx(np.quantile(sample, q))


def test_an_empty_frame_gives_one_empty_slice():
    table = pl.DataFrame({"game": [], "x": []}, schema={"game": pl.Int32, "x": pl.Float64})
    with stats.unit_ranges(game=(0, 10 * stats.UNIT_SLICE)):
        pieces = list(stats.collect_by_units(table))
        means = stats.mean_table(table.with_columns(pl.lit("a").alias("g")), "g", "x", quantiles=(0.5,))
    assert len(pieces) == 1 and pieces[0].height == 0 and pieces[0].columns == ["game", "x"]
    assert means.height == 0


def test_position_wins_built_in_slices_is_the_whole_pivot():
    """The per-game win matrix (and seatings) read slice by slice, with a range hint that misses
    games at both ends, is the pivot of the whole table in game order."""
    from analysis.frames import position_wins

    rng = np.random.default_rng(7)
    games = np.repeat(np.arange(40) * 2, 3)
    table = pl.DataFrame({"game": games, "position": np.tile([0, 1, 2], 40), "win": rng.integers(0, 2, 120),
                          "policy": rng.choice(["greedy", "heuristic"], 120)})
    table = table.filter(~((pl.col("game") == 10) & (pl.col("position") == 1)))   # a game missing a seat
    whole = (table.pivot(on="position", index="game", values="win", sort_columns=True).sort("game")
             .select("0", "1", "2").fill_null(0).to_numpy().astype(float))
    seatings = (table.sort("game", "position").group_by("game", maintain_order=True)
                .agg(pl.col("policy").str.join("|"))["policy"].to_numpy())
    with slices_of(7), stats.unit_ranges(game=(20, 50)):
        wins, seated = position_wins(table.lazy(), 3, seating=True)
    np.testing.assert_array_equal(wins, whole)
    assert seated.tolist() == seatings.tolist()


def test_cluster_ols_in_slices_is_statsmodels_clustered_by_game():
    """stats.cluster_ols, summed a few games at a time, gives statsmodels' OLS with the covariance
    clustered by game (t on games - 1), and leaves out a column that never varies."""
    import statsmodels.api as sm

    rng = np.random.default_rng(11)
    games = np.repeat(np.arange(300), 4)
    shared = np.repeat(rng.normal(size=300), 4)                      # the seats of a game move together
    x1, x2 = rng.integers(0, 5, 1200).astype(float), rng.integers(0, 3, 1200).astype(float)
    y = 2.0 + 0.5 * x1 - 1.0 * x2 + shared + rng.normal(size=1200)
    table = pl.DataFrame({"game": games, "y": y, "x1": x1, "x2": x2, "flat": np.full(1200, 3.0)})
    with slices_of(7):
        got = stats.cluster_ols(table, "y", ["x1", "flat", "x2"])
    fit = sm.OLS(y, sm.add_constant(np.column_stack([x1, x2]))).fit(cov_type="cluster", cov_kwds={"groups": games},
                                                                     use_t=True)
    assert got["term"].to_list() == ["intercept", "x1", "x2"]
    np.testing.assert_allclose(got["coef"].to_numpy(), fit.params, rtol=1e-9)
    np.testing.assert_allclose(got.select("low", "high").to_numpy(), fit.conf_int(0.05), rtol=1e-9)


def test_cluster_ols_reads_a_slice_with_as_many_rows_as_terms():
    """A slice with as many rows as terms (a square array of scores) is summed as any other."""
    table = pl.DataFrame({"game": [0, 0, 1, 5, 5, 6], "y": [1.0, 3.0, 2.0, 5.0, 4.0, 7.0],
                          "a": [0.0, 1.0, 0.0, 2.0, 1.0, 3.0], "b": [1.0, 0.0, 0.0, 1.0, 1.0, 0.0]})
    with slices_of(2):   # games 0-1 (3 rows), 5-6 (3 rows)
        got = stats.cluster_ols(table, "y", ["a", "b"])
    whole = one_pass(stats.cluster_ols, table, "y", ["a", "b"])
    columns = ["coef", "low", "high"]
    np.testing.assert_allclose(got.select(columns).to_numpy(), whole.select(columns).to_numpy(), rtol=1e-9)
