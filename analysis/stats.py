"""Intervals, tests and histograms for the reports: thin wrappers over
statsmodels, scipy and numpy, so every number in a report comes from a
well-kept library and each function says which interval or test it is.

All intervals are two-sided, 95% unless `confidence` says otherwise.

Win counting. A shared win counts for every sharer in the `win` column
(the engines' contract). `win_rates` reports two rates side by side:

    win_rate    mean of `win`: a shared win counts as a full win for each
                sharer, so rates over all seats can add up to more than 1;
    share_rate  mean of `win_share` = win / n_winners: a win shared by k
                players counts 1/k for each, so the rates of all seats of a
                game add up to exactly 1 and 1/P is the fair share.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import math
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np
import polars as pl
from scipy import stats as scipy_stats
from statsmodels.stats.proportion import proportion_confint

CONFIDENCE = 0.95

WILSON = "Wilson score interval (statsmodels proportion_confint, method='wilson')"
T_INTERVAL = "Student t interval of the mean (scipy.stats.t)"
BOOTSTRAP = "bootstrap interval (scipy.stats.bootstrap, BCa, seeded)"
CHI_SQUARE = "chi-square goodness-of-fit test against equal shares (scipy.stats.chisquare)"


# --- proportions -------------------------------------------------------------

def wilson_interval(successes, n, confidence: float = CONFIDENCE):
    """Wilson score interval for `successes` out of `n` trials.

    Scalars or arrays (element-wise). `successes` may be fractional (a sum of
    win shares); the interval is then the Wilson formula applied to that
    count, exact only when nothing is shared. Returns (low, high); NaN where
    n == 0. Wilson 5/10 -> (0.2366, 0.7634).
    """
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    # Clip to [0, 1]: for 0 or n successes the bound lands a rounding error outside.
    low = np.where(n > 0, np.clip(low, 0, 1), np.nan)
    high = np.where(n > 0, np.clip(high, 0, 1), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


SMALL_COUNT = 3
RATE_INTERVAL = ("Wilson score interval, exact (Clopper-Pearson) when at most 3 games fall on one side: Wilson's "
                 "coverage falls to 0.84-0.89 near 0 and 1 (1 event in 400 games at a rate of 0.0003), the exact "
                 "one never below 0.95; together never below 0.93 over rates 1e-4..1-1e-4 and 20..5,000 games")


def rate_interval(successes, n, confidence: float = CONFIDENCE):
    """A rate's interval that cannot leave [0, 1] and covers at small counts (RATE_INTERVAL): Wilson,
    and Clopper-Pearson (statsmodels 'beta') when successes or failures number at most SMALL_COUNT.
    Scalars or arrays; NaN where n == 0."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    low, high = wilson_interval(successes, n, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        e_low, e_high = proportion_confint(np.round(successes), np.where(n > 0, n, 1), alpha=1 - confidence,
                                           method="beta")
    small = (np.minimum(successes, n - successes) <= SMALL_COUNT) & (n > 0)
    low = np.where(small, np.nan_to_num(e_low, nan=0.0), low)
    high = np.where(small, np.nan_to_num(e_high, nan=1.0), high)
    low, high = np.minimum(low, np.where(n > 0, successes / np.where(n > 0, n, 1), np.nan)), high
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def proportion_table(frame: pl.DataFrame | pl.LazyFrame, by: str | Sequence[str], flag: str,
                     confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Share of rows with `flag` (a 0/1 column) per group, with Wilson intervals.

    Aggregates in polars first (one row per group), so it is cheap on
    millions of rows. Columns: by..., n, count, rate, low, high.
    """
    by = [by] if isinstance(by, str) else list(by)
    counts = (
        frame.lazy()
        .group_by(by)
        .agg(pl.len().alias("n"), pl.col(flag).cast(pl.Float64).sum().alias("count"))
        .sort(by)
        .collect()
    )
    low, high = wilson_interval(counts["count"].to_numpy(), counts["n"].to_numpy(), confidence)
    return counts.with_columns(
        (pl.col("count") / pl.col("n")).alias("rate"),
        pl.Series("low", np.atleast_1d(low)),
        pl.Series("high", np.atleast_1d(high)),
    )


GAME_UNIT = ("the game is the unit: each group's wins are summed per game first, then the interval runs over "
             "games (when a group holds k seats in every game and wins at most once per game: the rate interval "
             "(Wilson, exact at 3 or fewer wins or losses) of its per-game win over games, divided by k; "
             "otherwise the ratio estimate with a cluster-robust standard error grouped by game, as "
             "statsmodels OLS cov_type='cluster', and a Student t quantile on games - 1 degrees of freedom)")


def cluster_rate_interval(games, total_n, total_w, sum_ww, sum_wn, sum_nn, confidence: float = CONFIDENCE):
    """Ratio estimate W/N with its cluster-robust interval, clusters = games.

    Each game g contributes w_g (e.g. the wins of a policy's seats) out of n_g
    (its seats). The estimate r = sum w_g / sum n_g is the per-player-game
    rate; its variance is G/(G-1) * sum (w_g - r n_g)^2 / N^2, exactly the
    cluster-robust variance of statsmodels OLS of the per-row outcome on a
    constant with cov_type='cluster' grouped by game. Works on arrays (one
    element per group) from the moments sum w, sum w^2, sum w n, sum n^2, so
    millions of rows are aggregated in polars first. Returns (rate, low, high);
    NaN bounds below 2 games.
    """
    games = np.asarray(games, dtype=float)
    total_n = np.asarray(total_n, dtype=float)
    total_w = np.asarray(total_w, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = total_w / total_n
        resid = np.maximum(np.asarray(sum_ww, float) - 2 * rate * np.asarray(sum_wn, float)
                           + rate ** 2 * np.asarray(sum_nn, float), 0.0)
        se = np.sqrt(games / (games - 1) * resid) / total_n
        q = scipy_stats.t.ppf(0.5 + confidence / 2, np.maximum(games - 1, 1))
    low = np.where(games >= 2, rate - q * se, np.nan)
    high = np.where(games >= 2, rate + q * se, np.nan)
    if np.ndim(low) == 0:
        return float(rate), float(low), float(high)
    return rate, low, high


def cluster_share(w, n, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(share, low, high): sum w / sum n over per-game arrays (w_g of n_g in game g), with the
    cluster-robust interval of cluster_rate_interval (clusters = games) clipped to [0, 1]: the
    normal interval of a share near 0 or 1 crosses it. NaN bounds below 2 games; all NaN without
    any n."""
    n = np.asarray(n, dtype=float)
    w = np.asarray(w, dtype=float)
    if n.sum() == 0:
        return math.nan, math.nan, math.nan
    share, lo, hi = cluster_rate_interval(len(n), n.sum(), w.sum(), (w * w).sum(), (w * n).sum(), (n * n).sum(),
                                          confidence)
    if len(n) < 2 or not math.isfinite(lo):
        return share, math.nan, math.nan
    return share, max(0.0, lo), min(1.0, hi)


# --- sums over slices of games -------------------------------------------------------------
# A run's tables hold a row per game, player, auction or round, millions of rows; a report's
# estimates need per-group sums of them (and of per-game sums). Sums over disjoint sets of games
# add up, so every such table is aggregated UNIT_SLICE games at a time and the slices combined:
# the report's memory is that of one slice, whatever the number of games. The filter on the game
# reaches the Parquet scans through polars' predicate pushdown, so a slice reads only its rows.

UNIT_SLICE = 10_000
"""Units (games) aggregated per pass. Memory against time, measured on Skyline 3000's report: at
100,000 games slices of 10,000 peaked at 479 MB, 25,000 at 538, 50,000 at 705, one pass at 973;
at 1,000,000 games slices of 10,000 took 131 s, 50,000 took 55 s (each pass scans the part files)."""

_UNIT_RANGES: contextvars.ContextVar[dict[str, tuple[int, int]]] = contextvars.ContextVar("unit_ranges", default={})


@contextlib.contextmanager
def unit_ranges(**ranges: tuple[int, int] | None):
    """Within the block, slices of a unit's ids run over the given (low, high), e.g.
    game=(0, 99_999) from a run's games table, instead of being found in each frame (None: found).

    A hint about how to slice, never about what: ids outside the range are still counted, in one
    more pass. Finding the ids of a frame built by joins costs as much memory as the join itself.
    """
    token = _UNIT_RANGES.set(_UNIT_RANGES.get() | {unit: bounds for unit, bounds in ranges.items() if bounds})
    try:
        yield
    finally:
        _UNIT_RANGES.reset(token)


def _unit_slices(frame: pl.LazyFrame, unit: str) -> list[pl.Expr | None]:
    """Filters that split `frame` into runs of UNIT_SLICE consecutive unit ids ([None]: one pass)."""
    schema = frame.collect_schema()
    if unit not in schema or not schema[unit].is_integer():
        return [None]
    bounds = _UNIT_RANGES.get().get(unit)
    if bounds is None:
        bounds = frame.select(pl.col(unit).min(), pl.col(unit).max().alias("high")).collect(engine="streaming").row(0)
        if bounds[0] is None:
            return [None]
    low, high = int(bounds[0]), int(bounds[1])
    if high - low < UNIT_SLICE:
        return [None]
    ids = pl.col(unit)
    return ([ids.is_between(start, min(start + UNIT_SLICE - 1, high)) for start in range(low, high + 1, UNIT_SLICE)]
            + [ids.is_between(low, high).not_().fill_null(True)])   # ids outside the range, and none


def collect_by_units(frame: pl.DataFrame | pl.LazyFrame, unit: str = "game") -> Iterator[pl.DataFrame]:
    """The rows of `frame`, UNIT_SLICE units at a time (empty slices skipped; one empty frame
    when there are no rows)."""
    frame = frame.lazy()
    piece, given = None, False
    for keep in _unit_slices(frame, unit):
        piece = (frame if keep is None else frame.filter(keep)).collect(engine="streaming")
        if piece.height:
            given = True
            yield piece
    if not given:
        yield piece


def _by_slices(frame: pl.DataFrame | pl.LazyFrame, unit: str,
               query: Callable[[pl.LazyFrame], pl.LazyFrame]) -> list[pl.DataFrame]:
    """`query` collected on each slice of UNIT_SLICE units of `frame`."""
    frame = frame.lazy()
    return [query(frame if keep is None else frame.filter(keep)).collect(engine="streaming")
            for keep in _unit_slices(frame, unit)]


_COMBINE = {"sum": pl.Expr.sum, "min": pl.Expr.min, "max": pl.Expr.max, "all": pl.Expr.all}


def aggregate_by_units(frame: pl.DataFrame | pl.LazyFrame, by: Sequence[str],
                       aggregates: dict[str, tuple[pl.Expr, str]], unit: str = "game",
                       per_unit: Sequence[pl.Expr] = ()) -> pl.DataFrame:
    """Per-group aggregates of `frame`'s rows, UNIT_SLICE units at a time, sorted by `by` (no `by`:
    one row, over every row).

    `aggregates` is {name: (expression, how)}; how ("sum", "min", "max" or "all") combines the
    slices, so each expression must be one that combines that way (a count, a sum, a minimum;
    `n_unique` of the unit is a sum, since a unit lies in one slice). With `per_unit`, rows are
    first aggregated per (group, unit) with those expressions and `aggregates` runs on that.
    """
    by = list(by)

    def grouped(part: pl.LazyFrame | pl.DataFrame, expressions: list[pl.Expr]):
        return part.group_by(by).agg(expressions).sort(by) if by else part.select(expressions)

    def query(part: pl.LazyFrame) -> pl.LazyFrame:
        if per_unit:
            part = part.group_by(*by, unit).agg(per_unit)
        return grouped(part, [expression.alias(name) for name, (expression, _) in aggregates.items()])

    parts = _by_slices(frame, unit, query)
    if len(parts) == 1:
        return parts[0]
    return grouped(pl.concat(parts), [_COMBINE[how](pl.col(name)).alias(name) for name, (_, how) in aggregates.items()])


CLUSTER_OLS = ("least squares with a cluster-robust covariance grouped by the independent unit (the game: its "
               "seats are not independent), as statsmodels OLS cov_type='cluster' with use_t, and a Student t "
               "quantile on units - 1 degrees of freedom")


def cluster_ols(frame: pl.DataFrame | pl.LazyFrame, y: str, xs: Sequence[str], unit: str = "game",
                confidence: float = CONFIDENCE) -> pl.DataFrame:
    """y on an intercept and the columns xs (CLUSTER_OLS), summed UNIT_SLICE units at a time: X'X
    and X'y in a first pass, each unit's X'e in a second, so a million games' rows are never held
    at once. A column constant over every row is left out (it is the intercept). Columns: term
    ("intercept", then the xs kept), coef, low, high. Fewer than 2 units or rows than terms: NaN
    bounds."""
    frame = frame.lazy().select(pl.col(unit), *[pl.col(c).cast(pl.Float64) for c in (y, *xs)])
    k = len(xs) + 1
    xtx, xty, rows, units = np.zeros((k, k)), np.zeros(k), 0, 0
    for piece in collect_by_units(frame, unit):
        x = np.column_stack([np.ones(piece.height), piece.select(xs).to_numpy()])
        xtx += x.T @ x
        xty += x.T @ piece[y].to_numpy()
        rows += piece.height
        units += piece[unit].n_unique()
    mean = xtx[0] / max(rows, 1)
    keep = [0] + [j for j in range(1, k) if xtx[j, j] / max(rows, 1) - mean[j] ** 2 > 1e-12 * max(1.0, mean[j] ** 2)]
    bread = np.linalg.pinv(xtx[np.ix_(keep, keep)])
    beta = bread @ xty[keep]
    meat = np.zeros((len(keep), len(keep)))
    for piece in collect_by_units(frame, unit):
        x = np.column_stack([np.ones(piece.height), piece.select(xs).to_numpy()])[:, keep]
        scores = x * (piece[y].to_numpy() - x @ beta)[:, None]
        per_unit = (pl.DataFrame(scores, orient="row").with_columns(piece[unit].alias("_unit"))
                    .group_by("_unit").sum().drop("_unit").to_numpy())
        meat += per_unit.T @ per_unit
    terms = len(keep)
    if units >= 2 and rows > terms:
        correction = units / (units - 1) * (rows - 1) / (rows - terms)   # statsmodels' small-sample factor
        se = np.sqrt(np.clip(np.diag(correction * bread @ meat @ bread), 0, None))
        q = scipy_stats.t.ppf(0.5 + confidence / 2, units - 1)
        low, high = beta - q * se, beta + q * se
    else:
        low = high = np.full(terms, np.nan)
    return pl.DataFrame({"term": ["intercept"] + [xs[j - 1] for j in keep[1:]], "coef": beta, "low": low,
                         "high": high})


def _cluster_moments(units: str, total_n: str, **more: tuple[pl.Expr, str]) -> dict[str, tuple[pl.Expr, str]]:
    """The sums cluster_rate_interval needs, over per-unit n_g and w_g (aggregate_by_units' form)."""
    n_g, w_g = pl.col("n_g"), pl.col("w_g")
    return {units: (pl.len(), "sum"), total_n: (n_g.sum(), "sum"), "total": (w_g.sum(), "sum"),
            "sww": ((w_g ** 2).sum(), "sum"), "swn": ((w_g * n_g).sum(), "sum"), "snn": ((n_g ** 2).sum(), "sum"),
            **more}


def game_unit_rates(frame: pl.DataFrame | pl.LazyFrame, by: str | Sequence[str], value: str,
                    confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Rate of `value` per group with the game as the unit (see GAME_UNIT).

    `frame` has one row per player-game with a `game` column. Columns: by...,
    player_games, games, total, rate, low, high, interval ("Wilson over games"
    or "cluster-robust by game").
    """
    by = [by] if isinstance(by, str) else list(by)
    per_game = [pl.len().cast(pl.Float64).alias("n_g"), pl.col(value).cast(pl.Float64).sum().alias("w_g"),
                pl.col(value).cast(pl.Float64).is_between(0.0, 1.0).all().alias("unit_g")]
    n_g, w_g = pl.col("n_g"), pl.col("w_g")
    groups = aggregate_by_units(frame, by, unit="game", per_unit=per_game, aggregates=_cluster_moments(
        "games", "player_games", seats_min=(n_g.min(), "min"), seats_max=(n_g.max(), "max"),
        binary=(w_g.is_in([0.0, 1.0]).all(), "all"), unit=(pl.col("unit_g").all(), "all")))
    groups = groups.with_columns((pl.col("seats_min") == pl.col("seats_max")).alias("fixed_k"),
                                 pl.col("seats_min").alias("seats_k"))
    rate, low, high = cluster_rate_interval(groups["games"].to_numpy(), groups["player_games"].to_numpy(),
                                            groups["total"].to_numpy(), groups["sww"].to_numpy(),
                                            groups["swn"].to_numpy(), groups["snn"].to_numpy(), confidence)
    # k seats per game whose per-game total is 0 or 1 (one policy in k seats of a single-winner game): the
    # per-game team win is a proportion over games; the rate per seat is its interval divided by k, which
    # cannot leave [0, 1] and covers rare and near-certain rates (the cluster-robust one printed a negative
    # bound for 1 win in 2,000 two-seat games and covered a rate of 0.00025 in 5-18% of runs)
    k = groups["seats_k"].to_numpy().astype(float)
    wilson = (groups["fixed_k"] & groups["binary"]).to_numpy()
    w_low, w_high = rate_interval(groups["total"].to_numpy(), groups["games"].to_numpy(), confidence)
    low = np.where(wilson, w_low / k, np.atleast_1d(low))
    high = np.where(wilson, w_high / k, np.atleast_1d(high))
    # a rate of values in [0, 1] (wins, shares, flags) cannot leave [0, 1]: a cluster-robust bound outside is clipped
    unit = groups["unit"].to_numpy()
    low = np.where(unit, np.clip(low, 0.0, 1.0), low)
    high = np.where(unit, np.clip(high, 0.0, 1.0), high)
    return groups.select(
        *by, pl.col("player_games").cast(pl.Int64), pl.col("games").cast(pl.Int64), "total",
        pl.Series("rate", np.atleast_1d(rate).astype(float)), pl.Series("low", np.atleast_1d(low).astype(float)),
        pl.Series("high", np.atleast_1d(high).astype(float)),
        pl.Series("interval", np.where(wilson, np.where(k == 1, "Wilson over games", "Wilson over games, per seat"),
                                       "cluster-robust by game")),
    )


UNIT_RATIO = ("ratio estimate sum(numerator) / sum(denominator) per group with a cluster-robust standard error "
              "grouped by the independent unit (statsmodels WLS of numerator/denominator on a constant, weights = "
              "denominator, cov_type='cluster') and a Student t quantile on units - 1 degrees of freedom")


def unit_ratio_table(frame: pl.DataFrame | pl.LazyFrame, by: str | Sequence[str], numerator: str,
                     denominator: str | None = None, unit: str = "game",
                     confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Share sum(numerator) / sum(denominator) per group, clustered by `unit` (see UNIT_RATIO).

    Rows are summed per group and unit first (a unit is a game, or a chunk of
    games when a table is only kept summed per chunk), then the interval runs
    over units with `cluster_rate_interval`. `denominator` None counts rows
    (then numerator is usually a 0/1 flag). A group seen in fewer than 2 units,
    or with no denominator, gets NaN bounds. Columns: by..., units, total_n,
    total, rate, low, high.
    """
    by = [by] if isinstance(by, str) else list(by)
    den = pl.len().cast(pl.Float64) if denominator is None else pl.col(denominator).cast(pl.Float64).sum()
    per_unit = [den.alias("n_g"), pl.col(numerator).cast(pl.Float64).sum().alias("w_g")]
    groups = aggregate_by_units(frame, by, _cluster_moments("units", "total_n"), unit=unit, per_unit=per_unit)
    rate, low, high = cluster_rate_interval(groups["units"].to_numpy(), groups["total_n"].to_numpy(),
                                            groups["total"].to_numpy(), groups["sww"].to_numpy(),
                                            groups["swn"].to_numpy(), groups["snn"].to_numpy(), confidence)
    usable = groups["total_n"].to_numpy() > 0
    return groups.select(
        *by, pl.col("units").cast(pl.Int64), "total_n", "total",
        pl.Series("rate", np.where(usable, np.atleast_1d(rate), np.nan).astype(float)),
        pl.Series("low", np.where(usable, np.atleast_1d(low), np.nan).astype(float)),
        pl.Series("high", np.where(usable, np.atleast_1d(high), np.nan).astype(float)),
    )


def win_rates(frame: pl.DataFrame | pl.LazyFrame, by: str | Sequence[str],
              confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Win rate per group, counted both ways, with the game as the unit.

    `frame` has one row per player and game with columns `game`, `win` (0/1,
    a shared win counts for each sharer) and `n_winners` (players sharing the
    game's win). Columns: by..., player_games, games, wins, win_rate, win_low,
    win_high, win_shares, share_rate, share_low, share_high, interval.

    The seats of one game are not independent (one policy in several seats
    wins together under shared dice; with one winner, its seats' wins exclude
    each other), so every interval runs over games (GAME_UNIT): a group with
    one seat per game and 0/1 outcomes gets a Wilson interval over games,
    anything else the cluster-robust interval grouped by game.
    """
    by = [by] if isinstance(by, str) else list(by)
    frame = frame.lazy().with_columns(
        (pl.col("win").cast(pl.Float64) / pl.col("n_winners").cast(pl.Float64)).alias("win_share"))
    wins = game_unit_rates(frame, by, "win", confidence)
    shares = game_unit_rates(frame, by, "win_share", confidence)
    return wins.select(
        *by, "player_games", "games", pl.col("total").round(0).cast(pl.Int64).alias("wins"),
        pl.col("rate").alias("win_rate"), pl.col("low").alias("win_low"), pl.col("high").alias("win_high"),
        shares["total"].alias("win_shares"), shares["rate"].alias("share_rate"), shares["low"].alias("share_low"),
        shares["high"].alias("share_high"), "interval",
    )


# --- seats in turn order -------------------------------------------------------

SEAT_TEST = ("Cochran's Q test (statsmodels cochrans_q) that every turn-order position has the same win "
             "probability, with the game as the block: it tests the per-game seat edges (a seat's win minus "
             "the mean win of its game), so a shared win counts for every sharer and no game is dropped; "
             "with one winner per game it equals the chi-square test of the winner's position")


@dataclass(frozen=True)
class SeatTest:
    statistic: float
    p_value: float
    dof: int
    informative_games: int   # games whose seats did not all win or all lose
    games: int
    stratified: bool = False  # the stratified Wald test (STRATIFIED_SEAT_TEST), not Cochran's Q


STRATIFIED_SEAT_TEST = ("stratified by seating (which policy sat at which position): a Wald chi-square test that "
                        "the mean per-game edge of every position is 0, its covariance from the edges' deviations "
                        "from their seating's own means. Rotating seats balance the policies over the positions, "
                        "which cancels their strength from the edges; Cochran's Q still counted it as noise "
                        "(size 0.022 at 5%, power 0.19 where random seating gave 0.26)")


def seat_test(win_matrix, strata=None) -> SeatTest:
    """Cochran's Q on a games x positions 0/1 win matrix (see SEAT_TEST); with `strata` (one label per
    game: the seating, e.g. which policy sat at each position) the stratified Wald test
    (STRATIFIED_SEAT_TEST) when the seating varies.

    Games in which every seat won (a fully shared win) or none did carry no
    information about seats; when no game is left the test is undefined and
    p_value is NaN: the caller must say so, never turn it into a verdict.
    """
    from statsmodels.stats.contingency_tables import cochrans_q

    x = np.asarray(win_matrix, dtype=float)
    games, positions = x.shape
    row = x.sum(axis=1)
    informative = int(((row > 0) & (row < positions)).sum())
    if informative == 0 or positions < 2:
        return SeatTest(float("nan"), float("nan"), positions - 1, informative, games)
    if strata is not None:
        labels = np.asarray(strata)[(row > 0) & (row < positions)]
        kinds = np.unique(labels)
        if 1 < len(kinds) < informative - positions:
            return _stratified_seat_test(x[(row > 0) & (row < positions)], labels, kinds, games)
    result = cochrans_q(x[(row > 0) & (row < positions)])
    return SeatTest(float(result.statistic), float(result.pvalue), int(result.df), informative, games)


def _stratified_seat_test(x: np.ndarray, labels: np.ndarray, kinds: np.ndarray, games: int) -> SeatTest:
    edges = x - x.mean(axis=1, keepdims=True)
    resid = edges.copy()
    for k in kinds:
        resid[labels == k] -= edges[labels == k].mean(axis=0)
    n, positions = edges.shape
    cov = resid.T @ resid / max(n - len(kinds), 1) / n        # covariance of the mean edges
    m = edges.mean(axis=0)[:-1]                               # the edges sum to 0: drop one position
    try:
        statistic = float(m @ np.linalg.solve(cov[:-1, :-1], m))
    except np.linalg.LinAlgError:
        return SeatTest(float("nan"), float("nan"), positions - 1, n, games)
    # Hotelling's T^2 on the residual degrees of freedom: the covariance is estimated
    q, df = positions - 1, max(n - len(kinds), positions)
    f = (df - q + 1) / (df * q) * statistic
    return SeatTest(statistic, float(scipy_stats.f.sf(f, q, df - q + 1)), q, n, games, True)


def seat_edge_table(win_matrix, confidence: float = CONFIDENCE, family: int | None = None) -> pl.DataFrame:
    """Each position's mean per-game edge (win minus the game's mean win) with a
    t interval over games, simultaneous over `family` tests (Bonferroni; default:
    the positions in the matrix) so the interval excludes 0 exactly when the
    adjusted p-value is below 1 - confidence. Columns: position, games, edge,
    low, high, p_value, p_adjusted."""
    x = np.asarray(win_matrix, dtype=float)
    games, positions = x.shape
    family = positions if family is None else family
    edges = x - x.mean(axis=1, keepdims=True)
    level = 1 - (1 - confidence) / family
    rows = []
    for position in range(positions):
        estimate = mean_t_interval(edges[:, position], level)
        p = _t_test_p(edges[:, position])
        rows.append({"position": position, "games": games, "edge": estimate.value, "low": estimate.low,
                     "high": estimate.high, "p_value": p, "p_adjusted": min(1.0, p * family)})
    return pl.DataFrame(rows)


def _t_test_p(values) -> float:
    """Two-sided one-sample t-test of mean 0 (scipy); 1 for all-zero values, NaN below 2 values."""
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float("nan")
    if np.all(values == values[0]):
        # A constant sample: the sign test is the only honest answer (all n on one side).
        return 1.0 if values[0] == 0 else float(min(1.0, 2 * 0.5 ** values.size))
    return float(scipy_stats.ttest_1samp(values, 0.0).pvalue)


# --- means -------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """A point estimate with its interval."""

    value: float
    low: float
    high: float
    n: int


def t_interval_from_moments(n, mean, std, confidence: float = CONFIDENCE):
    """Student t interval of a mean from its sufficient statistics.

    `std` is the sample standard deviation (ddof=1). Scalars or arrays;
    NaN where n < 2. Lets a report aggregate millions of rows in polars and
    only hand (n, mean, std) per group to scipy.
    """
    n = np.asarray(n, dtype=float)
    mean = np.asarray(mean, dtype=float)
    std = np.asarray(std, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        standard_error = std / np.sqrt(n)
        low, high = scipy_stats.t.interval(confidence, df=np.maximum(n - 1, 1), loc=mean, scale=standard_error)
    low = np.where(n >= 2, low, np.nan)
    high = np.where(n >= 2, high, np.nan)
    # A constant sample has a zero-width interval (scipy gives NaN for scale 0).
    low = np.where((n >= 2) & (std == 0), mean, low)
    high = np.where((n >= 2) & (std == 0), mean, high)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def mean_t_interval(values, confidence: float = CONFIDENCE) -> Estimate:
    """Mean of `values` with its Student t interval. [1,2,3,4,5] -> 3 (1.037, 4.963)."""
    values = np.asarray(values, dtype=float)
    n = values.size
    mean = float(values.mean()) if n else float("nan")
    std = float(values.std(ddof=1)) if n > 1 else float("nan")
    low, high = t_interval_from_moments(n, mean, std, confidence)
    return Estimate(mean, low, high, n)


def mean_table(frame: pl.DataFrame | pl.LazyFrame, by: str | Sequence[str], value: str | pl.Expr,
               confidence: float = CONFIDENCE, quantiles: Sequence[float] = (), unit: str = "game") -> pl.DataFrame:
    """Mean of `value` per group with a Student t interval over rows, aggregated in polars.

    Columns: by..., n, mean, low, high, std, then q<pct> for each quantile
    asked (linear interpolation, as polars' and numpy's default). Summed
    UNIT_SLICE units (games) at a time: counts, sums and squared deviations
    per slice, combined exactly (Chan et al.'s pairwise update), and the
    quantiles from the value counts, so a table of millions of rows needs the
    memory of one slice and of its distinct values.
    """
    by = [by] if isinstance(by, str) else list(by)
    expr = (pl.col(value) if isinstance(value, str) else value).cast(pl.Float64)
    frame = frame.lazy().with_columns(expr.alias("__value"))
    x = pl.col("__value")
    parts = pl.concat(_by_slices(frame, unit, lambda part: part.group_by(by).agg(
        pl.len().alias("n"), x.count().alias("k"), x.sum().alias("s"), ((x - x.mean()) ** 2).sum().alias("m2"))))
    mean = pl.col("s").sum().over(by) / pl.col("k").sum().over(by)
    table = (parts.with_columns(mean.alias("mean"))
             .group_by(by).agg(pl.col("n").sum(), pl.col("k").sum(), pl.col("mean").first(),
                               (pl.col("m2") + pl.col("k") * (pl.col("s") / pl.col("k") - pl.col("mean")) ** 2)
                               .fill_nan(0.0).sum().alias("m2"))
             .with_columns(pl.when(pl.col("k") > 1).then((pl.col("m2") / (pl.col("k") - 1)).sqrt()).alias("std"))
             .sort(by))
    if quantiles:
        counts = pl.concat(_by_slices(frame, unit, lambda part: part.filter(x.is_not_null())
                                      .group_by(*by, "__value").agg(pl.len().alias("count"))))
        counts = counts.group_by(*by, "__value").agg(pl.col("count").sum()).sort(*by, "__value")
        columns = {_quantile_name(q): [] for q in quantiles}
        for key in table.select(by).iter_rows():
            group = counts.filter(pl.all_horizontal([pl.col(b) == k for b, k in zip(by, key)]))
            for q in quantiles:
                columns[_quantile_name(q)].append(quantile_of_counts(group["__value"].to_numpy(),
                                                                     group["count"].to_numpy(), q))
        table = table.with_columns(pl.Series(name, values, dtype=pl.Float64) for name, values in columns.items())
    low, high = t_interval_from_moments(table["n"].to_numpy(), table["mean"].to_numpy(),
                                        table["std"].fill_null(np.nan).to_numpy(), confidence)
    return table.select(
        *by, pl.col("n").cast(pl.UInt32), "mean",
        pl.Series("low", np.atleast_1d(low)),
        pl.Series("high", np.atleast_1d(high)),
        "std", *[_quantile_name(q) for q in quantiles],
    )


def quantile_of_counts(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """The q-quantile (linear interpolation) of a sample given as sorted distinct values and their counts."""
    if len(values) == 0:
        return math.nan
    cumulative = np.cumsum(counts)
    position = q * (cumulative[-1] - 1)
    below = math.floor(position)
    at = lambda k: float(values[np.searchsorted(cumulative, k, side="right")])  # noqa: E731 (the k-th in order)
    low_value = at(below)
    return low_value + (position - below) * (at(min(below + 1, cumulative[-1] - 1)) - low_value)


def _quantile_name(q: float) -> str:
    return f"q{round(q * 100):02d}" if q not in (0.0, 1.0) else ("min" if q == 0 else "max")


# --- bootstrap -----------------------------------------------------------------

def bootstrap_interval(values, statistic: Callable = np.median, confidence: float = CONFIDENCE,
                       n_resamples: int = 9999, seed: int = 0, method: str = "BCa") -> Estimate:
    """Bootstrap interval of any one-sample statistic (scipy.stats.bootstrap).

    Seeded, so a report rebuilds identically. `statistic` must accept an
    `axis` keyword (numpy reductions do); BCa by default, "percentile" or
    "basic" also accepted. Costs n_resamples x len(values): sample large
    inputs first.
    """
    values = np.asarray(values, dtype=float)
    result = scipy_stats.bootstrap((values,), statistic, confidence_level=confidence, n_resamples=n_resamples,
                                   method=method, rng=np.random.default_rng(seed), vectorized=True)
    interval = result.confidence_interval
    return Estimate(float(statistic(values)), float(interval.low), float(interval.high), values.size)


# --- tests ---------------------------------------------------------------------

@dataclass(frozen=True)
class ChiSquareResult:
    statistic: float
    p_value: float
    dof: int


def chisquare_uniform(counts) -> ChiSquareResult:
    """Chi-square goodness-of-fit of `counts` against equal expected counts.

    [30, 10, 20] -> statistic 10.0, p = 0.00674 (2 degrees of freedom).
    """
    counts = np.asarray(counts, dtype=float)
    result = scipy_stats.chisquare(counts)
    return ChiSquareResult(float(result.statistic), float(result.pvalue), counts.size - 1)


# --- histograms -----------------------------------------------------------------

def histogram(values, bins="auto", weights=None, value_range=None):
    """numpy.histogram: (counts, edges). Pass `weights` = counts per value
    to histogram an aggregated (value, count) table without expanding it."""
    return np.histogram(np.asarray(values), bins=bins, weights=weights, range=value_range)


def integer_bin_edges(low: float, high: float, max_bins: int = 60) -> np.ndarray:
    """Edges for integer-valued data: one bin per integer when the range is
    small, else the smallest whole width that keeps at most `max_bins` bins.
    Edges sit on half-integers so each integer falls inside a bin."""
    low, high = int(np.floor(low)), int(np.ceil(high))
    width = max(1, int(np.ceil((high - low + 1) / max_bins)))
    return np.arange(low, high + width + 1, width) - 0.5


def value_counts_histogram(counts: pl.DataFrame, value: str, count: str = "count", max_bins: int = 60):
    """Histogram of an aggregated (value, count) table of integer values.

    The table is what `group_by(value).len()` gives; millions of rows
    become at most a few hundred before numpy sees them.
    Returns (counts, edges).
    """
    values = counts[value].cast(pl.Float64).to_numpy()
    weights = counts[count].cast(pl.Float64).to_numpy()
    if values.size == 0:
        return np.zeros(0), np.zeros(1)
    edges = integer_bin_edges(values.min(), values.max(), max_bins)
    return histogram(values, bins=edges, weights=weights)


# --- per-game values whose mean is tested against 0 (seat edges, ladder findings) ------------

def two_values(values) -> tuple[float, float, int] | None:
    """(low, high, count of high) when the values take exactly two values, one below 0 and one above
    (a seat's win minus its fair share, without shared wins); else None."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return None
    low, high = float(values.min()), float(values.max())
    if not low < 0 < high:
        return None
    upper = int((values == high).sum())
    if upper + int((values == low).sum()) != values.size:
        return None
    return low, high, upper


@functools.lru_cache(maxsize=65536)
def _binomial_p(k: int, n: int, p: float, alternative: str = "two-sided") -> float:
    return float(scipy_stats.binomtest(k, n, p, alternative=alternative).pvalue)


def zero_mean_p(values) -> float:
    """Two-sided p-value of mean 0 for per-game values. Two-valued values (a win and a loss) are a
    proportion: the exact binomial test (scipy binomtest) of the share of the upper value against the
    share that makes the mean 0 (the t-test is far too bold in the tail of a rare outcome: 9 wins of 80
    against a fair 20 give p = 2e-4 by t, 5e-3 exactly); a constant sample: the sign test (3 of 3 gives
    0.25, never 0); anything else: the one-sample t-test (scipy's t distribution); NaN below 2 values."""
    from scipy.special import stdtr

    values = np.asarray(values, dtype=float)
    n = values.size
    if n < 2:
        return float("nan")
    low, high = float(values.min()), float(values.max())
    if low == high:
        return 1.0 if low == 0 else float(min(1.0, 2 * 0.5 ** n))
    two = two_values(values)
    if two is not None:
        return _binomial_p(two[2], n, -two[0] / (two[1] - two[0]))
    sd = float(values.std(ddof=1))
    t = float(values.mean()) / (sd / math.sqrt(n))
    return float(2 * stdtr(n - 1, -abs(t)))


def zero_mean_interval(values, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """An interval for the mean of per-game values: for two-valued values (zero_mean_p) the Wilson
    interval of the upper value's share mapped onto the values (it cannot leave their range and covers
    near 0 and 1), a constant sample: NaN (nothing says how far the mean could be: no interval, no
    verdict), anything else the Student t interval."""
    values = np.asarray(values, dtype=float)
    n = values.size
    if n < 2 or float(values.min()) == float(values.max()):
        return float("nan"), float("nan")
    two = two_values(values)
    if two is not None:
        lo, hi = rate_interval(two[2], n, confidence)
        return two[0] + (two[1] - two[0]) * float(lo), two[0] + (two[1] - two[0]) * float(hi)
    mean, sd = float(values.mean()), float(values.std(ddof=1))
    return tuple(float(x) for x in t_interval_from_moments(n, mean, sd, confidence))


def equivalence_p(values, margin: float) -> float:
    """Two one-sided tests that the mean of per-game values lies inside (-margin, margin): the larger of
    the two one-sided p-values (statsmodels ttost_paired; for two-valued values, exact binomial tests of
    the upper value's share at the two margins). A constant sample shows nothing: 1."""
    from statsmodels.stats.weightstats import ttost_paired

    values = np.asarray(values, dtype=float)
    n = values.size
    if n < 2 or float(values.min()) == float(values.max()):
        return 1.0
    two = two_values(values)
    if two is not None:
        low, high, k = two
        p_low = (-margin - low) / (high - low)
        p_high = (margin - low) / (high - low)
        above = 0.0 if p_low <= 0 else _binomial_p(k, n, min(p_low, 1.0), "greater")
        below = 0.0 if p_high >= 1 else _binomial_p(k, n, max(p_high, 0.0), "less")
        return float(max(above, below))
    return float(ttost_paired(values, np.zeros_like(values), -margin, margin)[0])
