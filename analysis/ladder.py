"""The skill ladder: ratings of a game's policies from mixed tables, and findings per rung.

Ratings. Every game of every ladder table gives one finishing order of the rungs at that
table (`players.rank`; seats of one rung at one table count once, by their best seat). A
Plackett-Luce model (choix.ilsr_rankings, the maximum-likelihood fit) turns the finishing
orders into one strength per rung, on a log scale centred on the rungs' mean (0): a rung
`d` above another finishes ahead of it in a head-to-head with probability 1 / (1 + e^-d).
Only differences are identified, so the zero is a convention. The mean (choix's own) takes no
rung as the fixed point: anchored on the weakest rung instead, that rung's spread (random is
almost never ahead of anything, so its strength is pinned only loosely) entered every other
rung's interval, and adjacent intervals overlapped where the differences were clear
(Skyline 3000: every adjacent difference's interval above 0, three pairs "overlapping").
Shared places (a shared win, equal scores) are ordered at random, seeded, so a tie counts
half each way on average.

Intervals. The game is the unit: the percentile bootstrap resamples whole games within each
table (stratified, seeded) and refits, so every interval says how much the ratings would move
with other games of the same tables. Adjacent rungs are also compared head to head: the
share of the games in which both sat where the higher rung finished ahead (a tie counts
half), with a Wilson interval over those games.

Ordered means: for every pair of adjacent rungs the higher one's rating is larger and the
bootstrap interval of the difference excludes 0; "separated" additionally asks that the two
rating intervals do not overlap (the issue's criterion).

Findings per rung (the ladder command's self-play runs and an experiment's [ladder]): one
balance figure (a metric and key) at every rung, and a plain verdict (`rung_verdict`): holds
at every rung / appears only for weak play (only search rungs count as strong) / changes sign /
no rung shows an effect beyond noise (not evidence of balance) / undetermined (a NaN, or a
figure with no fair value to be compared with). What counts as an effect is `key_effects`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from analysis.stats import wilson_interval

BOOTSTRAP_REPLICATES = 200
CONFIDENCE = 0.95
ALPHA = 1e-3  # choix's ridge on the log-strengths: keeps a rung that always wins (or loses) finite


@dataclass(frozen=True)
class TableGames:
    """One ladder table: its rungs by line-up slot and its players table (game, lineup_slot, rank)."""

    rungs: tuple[str, ...]
    players: pl.DataFrame


def finishing_orders(table: TableGames, rung_index: dict[str, int], rng: np.random.Generator) -> list[list[int]]:
    """One ranking per game (best first) of the rungs at the table; ties in random order."""
    frame = (table.players.select("game", "lineup_slot", "rank")
             .with_columns(pl.col("lineup_slot").map_elements(lambda s: rung_index[table.rungs[s]],
                                                              return_dtype=pl.Int64).alias("rung"))
             .group_by("game", "rung").agg(pl.col("rank").min())
             .sort("game", "rung"))  # a fixed row order: the seeded tie draws land on the same rows
    games = frame["game"].to_numpy()
    rung = frame["rung"].to_numpy()
    rank = frame["rank"].to_numpy().astype(float)
    tie = rng.random(len(rank))
    order = np.lexsort((tie, rank, games))
    out: list[list[int]] = []
    current, items = None, []
    for i in order:
        if games[i] != current:
            if items:
                out.append(items)
            current, items = games[i], []
        items.append(int(rung[i]))
    if items:
        out.append(items)
    return [r for r in out if len(r) >= 2]


def fit_strengths(n_rungs: int, rankings: list[list[int]]) -> np.ndarray:
    """Plackett-Luce log-strengths (choix), centred on their mean (above)."""
    import choix

    params = choix.ilsr_rankings(n_rungs, rankings, alpha=ALPHA, max_iter=1000, tol=1e-10)
    return params - params.mean()


def head_to_head(tables: list[TableGames], low: str, high: str) -> tuple[int, float]:
    """(games where both rungs sat, score of `high`: 1 per game it finished ahead, 1/2 per tie)."""
    games, score = 0, 0.0
    for t in tables:
        if low not in t.rungs or high not in t.rungs:
            continue
        best = (t.players.with_columns(pl.col("lineup_slot").map_elements(lambda s: t.rungs[s], return_dtype=pl.Utf8)
                                       .alias("rung"))
                .group_by("game", "rung").agg(pl.col("rank").min())
                .pivot(on="rung", index="game", values="rank"))
        a, b = best[low].to_numpy(), best[high].to_numpy()
        games += len(a)
        score += float((b < a).sum() + 0.5 * (b == a).sum())
    return games, score


@dataclass
class Ladder:
    ratings: pl.DataFrame       # rung, rating, low, high, games
    steps: pl.DataFrame         # lower, higher, difference, low, high, h2h_games, h2h_share, h2h_low, h2h_high, verdict
    ordered: bool               # every adjacent difference > 0 with its interval above 0
    separated: bool             # ... and adjacent rating intervals do not overlap
    games: int                  # games played in all


def fit_ladder(rungs: list[str], tables: list[TableGames], seed: int = 0,
               replicates: int = BOOTSTRAP_REPLICATES, confidence: float = CONFIDENCE) -> Ladder:
    """Ratings with bootstrap intervals over games, and the adjacent-rung checks."""
    index = {r: i for i, r in enumerate(rungs)}
    rng = np.random.default_rng(seed)
    per_table = [finishing_orders(t, index, rng) for t in tables]
    everything = [r for orders in per_table for r in orders]
    if not everything:
        raise ValueError("the ladder tables hold no finished game with two rungs")
    point = fit_strengths(len(rungs), everything)
    boots = np.empty((replicates, len(rungs)))
    for b in range(replicates):
        sample = []
        for orders in per_table:
            if orders:
                pick = rng.integers(0, len(orders), len(orders))
                sample.extend(orders[i] for i in pick)
        boots[b] = fit_strengths(len(rungs), sample)
    tail = (1 - confidence) / 2
    low = np.quantile(boots, tail, axis=0)
    high = np.quantile(boots, 1 - tail, axis=0)
    played = [sum(1 for r in everything if i in r) for i in range(len(rungs))]
    ratings = pl.DataFrame({"rung": rungs, "rating": point, "low": low, "high": high, "games": played})
    rows = []
    ordered = separated = True
    for i in range(len(rungs) - 1):
        diff = boots[:, i + 1] - boots[:, i]
        d_low, d_high = np.quantile(diff, tail), np.quantile(diff, 1 - tail)
        n, score = head_to_head(tables, rungs[i], rungs[i + 1])
        h_low, h_high = wilson_interval(score, n, confidence) if n else (math.nan, math.nan)
        apart = low[i + 1] > high[i]
        if point[i + 1] > point[i] and d_low > 0:
            verdict = "ordered, intervals apart" if apart else "ordered (difference > 0), intervals overlap"
        elif point[i + 1] > point[i]:
            verdict = "not separated: the difference's interval includes 0"
        else:
            verdict = "NOT ordered: the lower rung rates higher"
        ordered &= bool(point[i + 1] > point[i] and d_low > 0)
        separated &= bool(point[i + 1] > point[i] and d_low > 0 and apart)
        rows.append({"lower": rungs[i], "higher": rungs[i + 1], "difference": float(point[i + 1] - point[i]),
                     "low": float(d_low), "high": float(d_high), "h2h_games": n,
                     "h2h_share": score / n if n else math.nan, "h2h_low": float(h_low), "h2h_high": float(h_high),
                     "verdict": verdict})
    return Ladder(ratings, pl.DataFrame(rows), ordered, separated, len(everything))


# ---------------------------------------------------------------- findings per rung

STRONG_PREFIX = "search"   # only search rungs count as strong play ("appears only for weak play")
FAIR_VALUE = "its fair value"
KEY_MEAN = "the mean of the keys in the same games"
NO_FAIR_VALUE = "no fair value"
UNDETERMINED_NAN = "undetermined: a rung has no estimate (NaN)"
UNDETERMINED_NO_REFERENCE = "undetermined: the metric has no fair value to compare with"


def is_strong(rung: str) -> bool:
    return rung.startswith(STRONG_PREFIX)


def weak_rungs(rungs) -> set[str]:
    """The scripted rungs (random, greedy, heuristic ...): every rung that is not a search."""
    return {r for r in rungs if not is_strong(r)}


def rung_verdict(rows: list[dict], weak: set[str]) -> str:
    """One finding (a metric and key) across the rungs' self-play runs: each row has rung,
    estimate, low, high and `reference` (the fair value). A NaN never becomes a verdict:
    neither a NaN estimate nor a NaN reference (a figure with nothing to be compared with)."""
    signs = {}
    for r in rows:
        if any(math.isnan(r[k]) for k in ("estimate", "low", "high")):
            return UNDETERMINED_NAN
        ref = r["reference"]
        if ref is None or math.isnan(ref):
            return UNDETERMINED_NO_REFERENCE
        signs[r["rung"]] = 1 if r["low"] > ref else (-1 if r["high"] < ref else 0)
    significant = {k: s for k, s in signs.items() if s != 0}
    if not significant:
        return "no rung shows an effect beyond noise (not evidence of balance: that needs an equivalence margin)"
    if len(set(significant.values())) > 1:
        return "changes sign between rungs: it describes the players, not the game"
    if len(significant) == len(signs):
        return "holds at every rung"
    strong = [k for k in signs if k not in weak]
    # without a strong rung nothing can be said about strong play: "only for weak play" needs one
    if strong and all(signs[k] == 0 for k in strong):
        return "appears only for weak play (scripted rungs), not for the search rungs"
    return "appears at some rungs only: " + ", ".join(k for k, s in signs.items() if s != 0)


def key_effects(metric, values: pl.DataFrame, reference: float, confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Per key of one rung's per-game `values` (game, key, value) of `metric` (analysis.metrics.Metric):
    the quantity a verdict judges, as effect, effect_low, effect_high, effect_reference, judged_against.

    A metric with a fair value (a seat edge: 0, a win rate: the fair share) is judged as it is.
    Competing keys without one (roof types) are judged by each key's per-game difference from the
    mean of the keys in the same game: a roof type stands out when it earns more or less than the
    average roof type, and pairing on the game cancels the dice. Anything else has nothing to be
    compared with (reference NaN: the verdict says undetermined)."""
    from analysis.metrics import estimate

    if reference is not None and not math.isnan(reference):
        est, ref, against = estimate(metric, values, confidence), float(reference), FAIR_VALUE
    elif metric.dominance and values["key"].n_unique() > 1:
        deviation = values.with_columns(pl.col("value") - pl.col("value").mean().over("game"))
        est = estimate(replace(metric, kind="mean"), deviation, confidence)
        ref, against = 0.0, KEY_MEAN
    else:
        est, ref, against = estimate(metric, values, confidence), math.nan, NO_FAIR_VALUE
    return est.select("key", pl.col("estimate").alias("effect"), pl.col("low").alias("effect_low"),
                      pl.col("high").alias("effect_high")).with_columns(
        pl.lit(ref, pl.Float64).alias("effect_reference"), pl.lit(against).alias("judged_against"))


FINDINGS_SCHEMA = {"metric": pl.Utf8, "key": pl.Utf8, "rung": pl.Utf8, "n": pl.Int64, "estimate": pl.Float64,
                   "low": pl.Float64, "high": pl.Float64, "reference": pl.Float64, "effect": pl.Float64,
                   "effect_low": pl.Float64, "effect_high": pl.Float64, "effect_reference": pl.Float64,
                   "judged_against": pl.Utf8}


def rung_findings(name: str, metric, values: pl.DataFrame, reference: float, rung: str,
                  confidence: float = CONFIDENCE) -> pl.DataFrame:
    """One rung's figures of one metric, per key: the estimate and interval as the metric
    defines them, and next to them what the verdict judges (key_effects)."""
    from analysis.metrics import estimate

    ref = math.nan if reference is None else float(reference)
    est = estimate(metric, values, confidence)
    effects = key_effects(metric, values, ref, confidence)
    frame = est.join(effects, on="key", how="left").with_columns(
        pl.lit(name).alias("metric"), pl.lit(rung).alias("rung"), pl.lit(ref, pl.Float64).alias("reference"))
    return frame.select(list(FINDINGS_SCHEMA)).cast(FINDINGS_SCHEMA)


def ladder_verdicts(findings: pl.DataFrame, rungs: list[str]) -> pl.DataFrame:
    """metric, key, verdict for every (metric, key) of `findings` (one row per metric, key and
    rung with effect, effect_low, effect_high, effect_reference). A rung without a row for the
    key counts as a NaN, so a missing figure is undetermined, never quietly left out."""
    weak = weak_rungs(rungs)
    out = []
    for (metric, key), group in findings.group_by(["metric", "key"], maintain_order=True):
        by_rung = {r["rung"]: r for r in group.iter_rows(named=True)}
        rows = []
        for rung in rungs:
            r = by_rung.get(rung)
            rows.append({"rung": rung, "estimate": _float(r, "effect"), "low": _float(r, "effect_low"),
                         "high": _float(r, "effect_high"), "reference": _float(r, "effect_reference")})
        out.append({"metric": metric, "key": key, "verdict": rung_verdict(rows, weak)})
    return pl.DataFrame(out, schema={"metric": pl.Utf8, "key": pl.Utf8, "verdict": pl.Utf8})


def _float(row: dict | None, name: str) -> float:
    value = None if row is None else row.get(name)
    return math.nan if value is None else float(value)
