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

from dataclasses import dataclass
from typing import Callable, Sequence

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


def win_rates(frame: pl.DataFrame | pl.LazyFrame, by: str | Sequence[str],
              confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Win rate per group with Wilson intervals, counted both ways.

    `frame` has one row per player and game with columns `win` (0/1, a
    shared win counts for each sharer) and `n_winners` (players sharing the
    game's win). Columns: by..., games, wins, win_rate, win_low, win_high,
    win_shares, share_rate, share_low, share_high. `games` counts
    player-games, so a policy filling two seats counts each game twice.
    """
    by = [by] if isinstance(by, str) else list(by)
    counts = (
        frame.lazy()
        .with_columns((pl.col("win").cast(pl.Float64) / pl.col("n_winners").cast(pl.Float64)).alias("win_share"))
        .group_by(by)
        .agg(pl.len().alias("games"),
             pl.col("win").cast(pl.Int64).sum().alias("wins"),
             pl.col("win_share").sum().alias("win_shares"))
        .sort(by)
        .collect()
    )
    n = counts["games"].to_numpy()
    win_low, win_high = wilson_interval(counts["wins"].to_numpy(), n, confidence)
    share_low, share_high = wilson_interval(counts["win_shares"].to_numpy(), n, confidence)
    return counts.select(
        *by, "games", "wins",
        (pl.col("wins") / pl.col("games")).alias("win_rate"),
        pl.Series("win_low", np.atleast_1d(win_low)),
        pl.Series("win_high", np.atleast_1d(win_high)),
        "win_shares",
        (pl.col("win_shares") / pl.col("games")).alias("share_rate"),
        pl.Series("share_low", np.atleast_1d(share_low)),
        pl.Series("share_high", np.atleast_1d(share_high)),
    )


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
               confidence: float = CONFIDENCE, quantiles: Sequence[float] = ()) -> pl.DataFrame:
    """Mean of `value` per group with a Student t interval, aggregated in polars.

    Columns: by..., n, mean, low, high, std, then q<pct> for each quantile
    asked (polars quantile, linear interpolation).
    """
    by = [by] if isinstance(by, str) else list(by)
    expr = pl.col(value) if isinstance(value, str) else value
    expr = expr.cast(pl.Float64)
    quantile_exprs = [expr.quantile(q, interpolation="linear").alias(_quantile_name(q)) for q in quantiles]
    table = (
        frame.lazy()
        .group_by(by)
        .agg(pl.len().alias("n"), expr.mean().alias("mean"), expr.std(ddof=1).alias("std"), *quantile_exprs)
        .sort(by)
        .collect()
    )
    low, high = t_interval_from_moments(table["n"].to_numpy(), table["mean"].to_numpy(),
                                        table["std"].fill_null(np.nan).to_numpy(), confidence)
    return table.select(
        *by, "n", "mean",
        pl.Series("low", np.atleast_1d(low)),
        pl.Series("high", np.atleast_1d(high)),
        "std", *[_quantile_name(q) for q in quantiles],
    )


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
