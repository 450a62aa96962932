"""The skill ladder: ratings of a game's policies from mixed tables, and findings per rung.

Ratings. Every game of every ladder table gives one finishing order of the rungs at that
table (`players.rank`; seats of one rung at one table count once, by their best seat). A
Plackett-Luce model (choix.ilsr_rankings, the maximum-likelihood fit) turns the finishing
orders into one strength per rung, on a log scale anchored at the lowest rung (0): a rung
`d` above another finishes ahead of it in a head-to-head with probability 1 / (1 + e^-d).
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
"""
from __future__ import annotations

import math
from dataclasses import dataclass

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
    """Plackett-Luce log-strengths (choix), shifted so rung 0 is 0."""
    import choix

    params = choix.ilsr_rankings(n_rungs, rankings, alpha=ALPHA, max_iter=1000, tol=1e-10)
    return params - params[0]


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

def rung_verdict(rows: list[dict], weak: set[str]) -> str:
    """One finding (a metric and key) across the rungs' self-play runs: each row has rung,
    estimate, low, high and `reference` (the fair value). A NaN never becomes a verdict."""
    signs = {}
    for r in rows:
        if any(math.isnan(r[k]) for k in ("estimate", "low", "high")):
            return "undetermined: a rung has no estimate (NaN)"
        ref = r["reference"]
        signs[r["rung"]] = 1 if r["low"] > ref else (-1 if r["high"] < ref else 0)
    significant = {k: s for k, s in signs.items() if s != 0}
    if not significant:
        return "no rung shows an effect beyond noise (not evidence of balance: that needs an equivalence margin)"
    if len(set(significant.values())) > 1:
        return "changes sign between rungs: it describes the players, not the game"
    if len(significant) == len(signs):
        return "holds at every rung"
    strong = [k for k in signs if k not in weak]
    if all(signs[k] == 0 for k in strong):
        return "appears only for weak play (scripted rungs), not for the search rungs"
    return "appears at some rungs only: " + ", ".join(k for k, s in signs.items() if s != 0)
