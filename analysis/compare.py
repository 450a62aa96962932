"""Differences between two arms of an experiment, paired wherever possible.

Arms played on the same seed see the same deals and dice in game i (common
random numbers), so the per-game difference b_i - a_i cancels the luck the
two games share and its spread is far smaller than either arm's: pairing on
the game index needs far fewer games for the same interval. Arms that cannot
be paired (different seeds or game counts) are compared unpaired.

Each comparison names its test. An experiment then corrects its p-values by
family (experiments.experiment._families, adjust_family below): the primary
family (the metrics that answer the question, each contrast once) by
Bonferroni with simultaneous intervals at 1 - alpha/m, every other comparison
by Benjamini-Hochberg with false-coverage-rate intervals; a contrast that
repeats another (the same per-game differences up to a constant) is tested
once, in the first one's family, and shares its adjusted p. `holm` and
`add_holm` are Holm's step-down correction for callers that want it; the
experiment report does not use them.

    paired t        scipy.stats.ttest_rel on the per-game differences, with
                    its Student t interval of the mean difference
    McNemar         paired 0/1 outcomes (a win, a tie, a stall). From 25
                    discordant games up: the score test (statsmodels mcnemar,
                    no continuity correction) and the score interval it
                    inverts (Tango 1998), so the interval excludes 0 exactly
                    when p < alpha. Below 25 discordant games: the exact
                    binomial McNemar test (statsmodels, exact=True) and the
                    Clopper-Pearson interval it inverts, conditional on the
                    number of discordant games
    sign test       differences that are all the same non-zero number: the
                    exact sign test (n games on one side: p = 2 * 0.5^n), so
                    3 games never give p = 0
    Welch t         scipy.stats.ttest_ind(equal_var=False) and its interval
                    when the arms are not paired
    Bonferroni      primary family: p_adjusted = min(1, m p) (adjust_family)
    BH              every other comparison: statsmodels multipletests(method="fdr_bh")
    Holm            statsmodels.stats.multitest.multipletests(method="holm"), holm() only
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as scipy_stats
from statsmodels.stats.contingency_tables import mcnemar
from scipy.optimize import brentq
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

CONFIDENCE = 0.95
PAIRED_T = "paired t"
MCNEMAR = "McNemar"
WELCH = "Welch t"
IDENTICAL = "identical"

METHODS = {
    PAIRED_T: "paired t-test on the per-game differences (scipy.stats.ttest_rel), "
              "Student t interval of the mean difference",
    MCNEMAR: "McNemar's test on paired 0/1 outcomes (statsmodels.stats.contingency_tables.mcnemar; exact "
             "binomial below 25 discordant pairs, else chi-square with continuity correction); interval: "
             "Student t interval of the mean per-game difference",
    WELCH: "Welch's unequal-variance t-test (scipy.stats.ttest_ind, equal_var=False) and its interval "
           "(arms not played on the same seeds)",
    IDENTICAL: "every per-game difference is the same number: the interval is that number, no test needed",
}
HOLM = ("Holm's step-down correction (statsmodels.stats.multitest.multipletests, method='holm'): holm() and "
        "add_holm() only; an experiment corrects by family (FAMILIES)")
EXACT_BELOW = 25  # discordant pairs under which McNemar's test is the exact binomial one
SIGN = "sign test"
METHODS[MCNEMAR] = ("paired 0/1 outcomes: from 25 discordant games up, McNemar's score test (statsmodels mcnemar, "
                    "no continuity correction) with the Tango score interval it inverts; below, the exact binomial "
                    "McNemar test with the Clopper-Pearson interval it inverts, conditional on the number of "
                    "discordant games. The interval excludes 0 exactly when p < 1 - confidence")
METHODS[SIGN] = ("every per-game difference is the same non-zero number: the exact sign test (p = 2 * 0.5^n); "
                 "the interval is that number once p < 1 - confidence, unbounded before")


@dataclass(frozen=True)
class Difference:
    """b - a with its interval and the test that produced the p-value."""

    estimate: float
    low: float
    high: float
    p_value: float
    n: int
    test: str
    sd: float          # sd of the per-game differences (paired) or pooled sd (Welch)
    mean_a: float
    mean_b: float


def _is_binary(*arrays: np.ndarray) -> bool:
    return all(np.isin(a, (0.0, 1.0)).all() for a in arrays)


def paired_difference(a, b, confidence: float = CONFIDENCE) -> Difference:
    """Mean of b_i - a_i over pairs i, its interval and a test of zero that agree.

    0/1 outcomes: McNemar (score test and Tango's score interval, or the exact
    test and its Clopper-Pearson interval below EXACT_BELOW discordant games);
    differences that are all the same non-zero number: the exact sign test;
    anything else: the paired t-test and its interval. Identical arms give
    exactly 0 with a zero-width interval and p = 1.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired samples must have the same length, not {a.size} and {b.size}")
    n = a.size
    d = b - a
    mean = float(d.mean()) if n else float("nan")
    sd = float(d.std(ddof=1)) if n > 1 else float("nan")
    mean_a, mean_b = float(a.mean()) if n else float("nan"), float(b.mean()) if n else float("nan")
    if n < 2:
        return Difference(mean, float("nan"), float("nan"), float("nan"), n, PAIRED_T, sd, mean_a, mean_b)
    if np.all(d == 0):
        return Difference(0.0, 0.0, 0.0, 1.0, n, IDENTICAL, 0.0, mean_a, mean_b)
    if _is_binary(a, b):
        only_b = int(((a == 0) & (b == 1)).sum())
        only_a = int(((a == 1) & (b == 0)).sum())
        p_value, low, high = paired_proportions(only_b, only_a, n, confidence)
        return Difference(mean, low, high, p_value, n, MCNEMAR, sd, mean_a, mean_b)
    if sd == 0 or np.allclose(d, d[0], rtol=0.0, atol=1e-9):
        p_value = float(min(1.0, 2 * 0.5 ** n))
        low, high = (mean, mean) if p_value < 1 - confidence else (-math.inf, math.inf)
        return Difference(mean, low, high, p_value, n, SIGN, 0.0, mean_a, mean_b)
    with warnings.catch_warnings():  # near-constant differences: scipy warns, the answer stands
        warnings.simplefilter("ignore", RuntimeWarning)
        result = scipy_stats.ttest_rel(b, a)
    interval = result.confidence_interval(confidence)
    return Difference(mean, float(interval.low), float(interval.high), float(result.pvalue), n, PAIRED_T, sd,
                      mean_a, mean_b)


def paired_proportions(only_b: int, only_a: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """p-value and interval of the paired difference of two proportions,
    (only_b - only_a) / n, from the discordant counts (see MCNEMAR).

    Returns (p, low, high); the interval excludes 0 exactly when p < 1 - confidence.
    """
    discordant = only_a + only_b
    if discordant == 0:
        return 1.0, 0.0, 0.0
    table = np.array([[n - discordant, only_b], [only_a, 0]])
    if discordant < EXACT_BELOW:
        p_value = float(mcnemar(table, exact=True).pvalue)
        low_pi, high_pi = proportion_confint(only_b, discordant, alpha=1 - confidence, method="beta")
        scale = discordant / n
        return p_value, float((2 * low_pi - 1) * scale), float((2 * high_pi - 1) * scale)
    p_value = float(mcnemar(table, exact=False, correction=False).pvalue)
    low, high = tango_interval(only_b, only_a, n, confidence)
    return p_value, low, high


def _tango_z(delta: float, x12: int, x21: int, n: int) -> float:
    """Tango's score statistic for H0: p12 - p21 = delta (Stat Med 1998; 17:891-908)."""
    A = 2.0 * n
    B = -x12 - x21 + (2.0 * n - x12 + x21) * delta
    C = -x21 * delta * (1.0 - delta)
    p21 = (-B + math.sqrt(max(B * B - 4 * A * C, 0.0))) / (2 * A)
    var = n * (2 * p21 + delta * (1 - delta))
    numerator = x12 - x21 - n * delta
    if var <= 0:
        return math.copysign(math.inf, numerator) if numerator else 0.0
    return numerator / math.sqrt(var)


def tango_interval(x12: int, x21: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Tango's score interval for a difference of paired proportions (x12 - x21) / n:
    every delta whose score test is not rejected. At delta = 0 the score test is
    McNemar's chi-square without continuity correction."""
    z = float(scipy_stats.norm.ppf(0.5 + confidence / 2))
    estimate = (x12 - x21) / n
    eps = 1e-12
    f_low = lambda t: _tango_z(t, x12, x21, n) - z  # noqa: E731  decreasing in t
    f_high = lambda t: _tango_z(t, x12, x21, n) + z  # noqa: E731
    low = -1.0 if f_low(-1 + eps) <= 0 else brentq(f_low, -1 + eps, estimate, xtol=1e-12)
    high = 1.0 if f_high(1 - eps) >= 0 else brentq(f_high, estimate, 1 - eps, xtol=1e-12)
    return float(low), float(high)


def unpaired_difference(a, b, confidence: float = CONFIDENCE) -> Difference:
    """mean(b) - mean(a) by Welch's t-test, for arms that share no seeds."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    mean_a, mean_b = float(a.mean()), float(b.mean())
    diff = mean_b - mean_a
    n = int(min(a.size, b.size))
    if a.size < 2 or b.size < 2:
        return Difference(diff, float("nan"), float("nan"), float("nan"), n, WELCH, float("nan"), mean_a, mean_b)
    sd_a, sd_b = float(a.std(ddof=1)), float(b.std(ddof=1))
    pooled = float(np.sqrt((sd_a**2 + sd_b**2) / 2))
    if sd_a == 0 and sd_b == 0:
        return Difference(diff, diff, diff, 1.0 if diff == 0 else 0.0, n, IDENTICAL, 0.0, mean_a, mean_b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = scipy_stats.ttest_ind(b, a, equal_var=False)
    interval = result.confidence_interval(confidence)
    return Difference(diff, float(interval.low), float(interval.high), float(result.pvalue), n, WELCH,
                      pooled, mean_a, mean_b)


def holm(p_values, alpha: float = 1 - CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Holm-adjusted p-values and which hypotheses are rejected at `alpha`.

    NaN p-values (a comparison without enough games) stay NaN and are not
    counted among the comparisons.
    """
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    reject = np.zeros(p.shape, dtype=bool)
    ok = ~np.isnan(p)
    if ok.any():
        rej, adj, _, _ = multipletests(p[ok], alpha=alpha, method="holm")
        adjusted[ok] = adj
        reject[ok] = rej
    return adjusted, reject


DIFF_SCHEMA = {
    "key": pl.Utf8, "n": pl.Int64, "mean_a": pl.Float64, "mean_b": pl.Float64, "difference": pl.Float64,
    "low": pl.Float64, "high": pl.Float64, "sd": pl.Float64, "p_value": pl.Float64, "test": pl.Utf8,
    "paired": pl.Boolean,
}


def compare_values(a: pl.DataFrame, b: pl.DataFrame, paired: bool, confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Per key, b - a for two frames of per-game values (columns game, key, value).

    Paired: rows are matched on (game, key); a game missing from one arm is
    dropped from both. Unpaired: each arm's values per key as they are.
    Returns one row per key present in both arms (columns of DIFF_SCHEMA).
    """
    rows = []
    keys = [k for k in a["key"].unique(maintain_order=True).to_list() if k in set(b["key"].to_list())]
    for key in keys:
        va = a.filter(pl.col("key") == key)
        vb = b.filter(pl.col("key") == key)
        if paired:
            joined = va.join(vb, on=["game", "key"], how="inner", suffix="_b").sort("game")
            diff = paired_difference(joined["value"].to_numpy(), joined["value_b"].to_numpy(), confidence)
        else:
            diff = unpaired_difference(va["value"].to_numpy(), vb["value"].to_numpy(), confidence)
        rows.append({"key": key, "n": diff.n, "mean_a": diff.mean_a, "mean_b": diff.mean_b,
                     "difference": diff.estimate, "low": diff.low, "high": diff.high, "sd": diff.sd,
                     "p_value": diff.p_value, "test": diff.test, "paired": paired})
    return pl.DataFrame(rows, schema=DIFF_SCHEMA)


def add_holm(table: pl.DataFrame, alpha: float = 1 - CONFIDENCE) -> pl.DataFrame:
    """Add p_holm and significant (Holm-adjusted p < alpha) over every row of `table`."""
    if table.height == 0:
        return table.with_columns(pl.lit(None, pl.Float64).alias("p_holm"), pl.lit(None, pl.Boolean).alias("significant"))
    adjusted, reject = holm(table["p_value"].to_numpy(), alpha)
    return table.with_columns(pl.Series("p_holm", adjusted), pl.Series("significant", reject))


# --- families of comparisons (issue 8.5) ----------------------------------------------------------

PRIMARY = "primary"
SECONDARY = "secondary"
UNTESTED = "untested"
BONFERRONI = ("primary family (the metrics that answer the experiment's question, each contrast once): "
              "Bonferroni, p_adjusted = min(1, m p), with simultaneous intervals at level 1 - alpha/m, so an "
              "interval excludes 0 exactly when p_adjusted < alpha")
FDR = ("every other comparison: Benjamini-Hochberg false-discovery rate (statsmodels multipletests, "
       "method='fdr_bh'), with false-coverage-rate intervals at level 1 - R alpha/m (R = rows flagged; "
       "Benjamini & Yekutieli 2005), so an interval excludes 0 exactly when the row is flagged")
FAMILIES = {PRIMARY: BONFERRONI, SECONDARY: FDR,
            UNTESTED: "all per-game differences are 0 (the arms played identically): nothing to test, "
                      "left out of every family"}


@dataclass(frozen=True)
class FamilyAdjustment:
    adjusted: np.ndarray
    reject: np.ndarray
    level: float      # confidence level of the intervals that agree with `reject`
    size: int         # hypotheses in the family (NaN p-values not counted)


def adjust_family(p_values, alpha: float = 1 - CONFIDENCE, method: str = "bonferroni") -> FamilyAdjustment:
    """Adjusted p-values, flags and the interval level that agrees with the flags.

    bonferroni: p m < alpha; intervals at 1 - alpha/m. fdr_bh: Benjamini-Hochberg;
    intervals at 1 - max(R, 1) alpha / m (the false-coverage-rate level). For a
    test and interval from the same inversion, interval excludes 0 <=> flagged.
    """
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    reject = np.zeros(p.shape, dtype=bool)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return FamilyAdjustment(adjusted, reject, 1 - alpha, 0)
    if method == "bonferroni":
        adjusted[ok] = np.minimum(1.0, p[ok] * m)
        reject[ok] = p[ok] < alpha / m
        level = 1 - alpha / m
    elif method == "fdr_bh":
        rej, adj, _, _ = multipletests(p[ok], alpha=alpha, method="fdr_bh")
        adjusted[ok] = adj
        reject[ok] = rej
        level = 1 - max(int(rej.sum()), 1) * alpha / m
    else:
        raise ValueError(f"unknown correction {method!r}")
    return FamilyAdjustment(adjusted, reject, float(level), m)


def duplicate_contrasts(differences: dict[tuple, np.ndarray]) -> dict[tuple, tuple]:
    """Rows that test the same contrast: their per-game differences are equal up to a
    constant (first_builder_win_rate, seat_win_rate[1st]; first_builder_edge without shared
    wins). Returns {row: the first row (in insertion order) it repeats}."""
    seen: list[tuple[tuple, np.ndarray]] = []
    out = {}
    for row, d in differences.items():
        centred = np.asarray(d, dtype=float) - float(np.mean(d)) if len(d) else np.asarray(d, dtype=float)
        for first, other in seen:
            if other.shape == centred.shape and np.allclose(other, centred, rtol=0, atol=1e-12):
                out[row] = first
                break
        else:
            seen.append((row, centred))
    return out


def paired_vectors(a: pl.DataFrame, b: pl.DataFrame, key: str) -> np.ndarray:
    """Per-game b - a for one key, paired on the game index (as compare_values pairs them)."""
    va = a.filter(pl.col("key") == key)
    vb = b.filter(pl.col("key") == key)
    joined = va.join(vb, on=["game", "key"], how="inner", suffix="_b").sort("game")
    return (joined["value_b"] - joined["value"]).to_numpy()


DOMINANCE = ("the best key beats every other key in a paired comparison on the same games (per-game difference, "
             "paired test and interval as above, each at the stated level; an intersection-union test, so no "
             "correction is needed), not merely non-overlapping marginal intervals")


def dominance(values: pl.DataFrame, top: str, confidence: float = CONFIDENCE) -> dict:
    """Does `top` beat every other key of one batch's per-game values (game, key, value)?

    Each other key is compared with `top` on the games where both have a value.
    Returns dominates, and the closest rival's key, difference (top - rival),
    low and high."""
    keys = [k for k in values["key"].unique(maintain_order=True).to_list() if k != top]
    top_values = values.filter(pl.col("key") == top).select("game", pl.col("value").alias("top"))
    closest = None
    for key in keys:
        joined = values.filter(pl.col("key") == key).join(top_values, on="game", how="inner").sort("game")
        diff = paired_difference(joined["value"].to_numpy(), joined["top"].to_numpy(), confidence)
        if closest is None or not (diff.low >= closest[1].low):
            closest = (key, diff)
    if closest is None:
        return {"dominates": False, "closest": None, "difference": float("nan"), "low": float("nan"),
                "high": float("nan")}
    key, diff = closest
    return {"dominates": bool(diff.low > 0), "closest": key, "difference": diff.estimate, "low": diff.low,
            "high": diff.high}


# --- unconditional per-game quantities (issue 8.6) -------------------------------------------------

UNCONDITIONAL = ("every game counts: a seat that built no building of a roof type scores 0 with it, so two arms "
                 "are compared on the same games and the same seats, not on the choice-dependent subsets of "
                 "games where both built that roof")


def roof_points_per_game(players: pl.DataFrame, names: dict[int, str]) -> pl.DataFrame:
    """Cityline: per game and roof type, the mean over ALL seats of the points that roof
    type earned (0 for a seat that built none). Unconditional, so a paired comparison
    between arms uses every game. Columns game, key, value (the experiment metric layout).

    Replaces experiments/cityline_metrics.roof_points, which averaged points per
    building over the seats that built one and so compared arms on games where both
    built that roof (a subset chosen by the players' choices)."""
    frames = []
    for r, name in names.items():
        frames.append(players.group_by("game").agg(pl.col(f"points_type{r}").cast(pl.Float64).mean().alias("value"))
                      .with_columns(pl.lit(name).alias("key")))
    return (pl.concat(frames).select(pl.col("game").cast(pl.Int64), pl.col("key").cast(pl.Utf8),
                                     pl.col("value").cast(pl.Float64)).sort(["game", "key"]))
