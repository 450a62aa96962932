"""Seat fairness: is any seat's edge real, at which player counts and skill levels?

A seat's edge in one game is its win (0/1, a shared win counts for each
sharer) minus the mean win of all seats of that game; its mean over games is
the seat's win rate minus the average seat's, 0 when the game is fair. The
per-game edges are independent across games, so each seat's mean edge gets a
Student t interval and a one-sample t-test against 0 (scipy.stats.ttest_1samp),
and the p-values of every seat of every cell of the matrix are corrected
together with Holm's method (statsmodels multipletests), so a table of 36
seats does not cry wolf.

The fairness matrix crosses player counts with policy skill (weakest first):
a balance conclusion that holds for random players but not for heuristic
ones is reported as holding only for weak play.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as scipy_stats

from analysis.compare import holm

EDGE_TEST = ("one-sample t-test of each seat's per-game edge against 0 (scipy.stats.ttest_1samp), "
             "Holm-corrected over all seats shown (statsmodels multipletests)")
SEAT_SCHEMA = {"key": pl.Utf8, "n": pl.Int64, "edge": pl.Float64, "low": pl.Float64, "high": pl.Float64,
               "p_value": pl.Float64}


def seat_edges(values: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per seat (key): mean edge, t interval and the t-test p-value against 0.
    `values` are per-game seat edges (game, key, value)."""
    rows = []
    for key in values["key"].unique(maintain_order=True).to_list():
        x = values.filter(pl.col("key") == key)["value"].to_numpy().astype(float)
        n = x.size
        mean = float(x.mean()) if n else float("nan")
        if n < 2:
            low = high = p = float("nan")
        elif np.all(x == x[0]):
            low = high = mean
            p = 1.0 if mean == 0 else 0.0
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                result = scipy_stats.ttest_1samp(x, 0.0)
            ci = result.confidence_interval(confidence)
            low, high, p = float(ci.low), float(ci.high), float(result.pvalue)
        rows.append({"key": key, "n": n, "edge": mean, "low": low, "high": high, "p_value": p})
    return pl.DataFrame(rows, schema=SEAT_SCHEMA).sort("key")


@dataclass
class Cell:
    policy: str
    players: int
    win_rates: pl.DataFrame   # estimates of seat_win_rate: key, estimate, low, high
    edges: pl.DataFrame       # per-game seat edges: game, key, value


def fairness_matrix(cells: list[Cell], confidence: float = 0.95) -> pl.DataFrame:
    """One row per (policy, players): each seat's win rate with its interval,
    the largest seat edge with its interval, its Holm-adjusted p-value (over
    every seat of every cell) and a verdict."""
    alpha = 1 - confidence
    seat_rows = []
    for index, cell in enumerate(cells):
        edges = seat_edges(cell.edges, confidence).with_columns(pl.lit(index).alias("cell"))
        seat_rows.append(edges)
    all_seats = pl.concat(seat_rows) if seat_rows else pl.DataFrame(schema={**SEAT_SCHEMA, "cell": pl.Int32})
    adjusted, reject = holm(all_seats["p_value"].to_numpy(), alpha)
    all_seats = all_seats.with_columns(pl.Series("p_holm", adjusted), pl.Series("significant", reject))

    rows = []
    for index, cell in enumerate(cells):
        seats = all_seats.filter(pl.col("cell") == index)
        worst = seats.sort(pl.col("edge").abs(), descending=True).row(0, named=True)
        significant = seats.filter(pl.col("significant"))
        if significant.height:
            favoured = significant.filter(pl.col("edge") > 0)["key"].to_list()
            hurt = significant.filter(pl.col("edge") < 0)["key"].to_list()
            parts = []
            if favoured:
                parts.append(f"{', '.join(favoured)} favoured")
            if hurt:
                parts.append(f"{', '.join(hurt)} behind")
            verdict = "unfair: " + "; ".join(parts)
        else:
            verdict = "no seat edge detected"
        row = {"policy": cell.policy, "players": cell.players}
        rates = {r["key"]: r for r in cell.win_rates.iter_rows(named=True)}
        for key in sorted(rates):
            r = rates[key]
            row[f"{key} win rate"] = f"{r['estimate']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
        row.update({"fair share": 1 / cell.players, "largest edge seat": worst["key"], "largest edge": worst["edge"],
                    "edge low": worst["low"], "edge high": worst["high"], "p (Holm)": worst["p_holm"],
                    "fair": not significant.height, "verdict": verdict, "games": int(worst["n"])})
        rows.append(row)
    table = pl.DataFrame(rows)
    seat_columns = sorted({c for c in table.columns if c.endswith(" win rate")})
    first = ["policy", "players", "games", "fair share"]
    rest = ["largest edge seat", "largest edge", "edge low", "edge high", "p (Holm)", "fair", "verdict"]
    return table.select(first + seat_columns + rest)


def fairness_conclusion(matrix: pl.DataFrame, policies_weakest_first: list[str]) -> str:
    """A paragraph: where the game is fair, and whether that holds only for weak play."""
    def fmt(r):
        return (f"{r['largest edge seat']} seat {r['largest edge']:+.3f} "
                f"[{r['edge low']:+.3f}, {r['edge high']:+.3f}] at {r['players']} players")

    fair_policies, unfair_policies, lines = [], [], []
    for policy in policies_weakest_first:
        sub = matrix.filter(pl.col("policy") == policy)
        if sub.height == 0:
            continue
        bad = sub.filter(~pl.col("fair"))
        if bad.height == 0:
            fair_policies.append(policy)
            worst = sub.sort(pl.col("largest edge").abs(), descending=True).row(0, named=True)
            lines.append(f"**{policy}**: no seat edge detected at "
                         f"{', '.join(str(p) for p in sub['players'].to_list())} players "
                         f"(largest: {fmt(worst)}).")
        else:
            unfair_policies.append(policy)
            edges = "; ".join(fmt(r) for r in bad.iter_rows(named=True))
            lines.append(f"**{policy}**: unfair — {edges}.")
    if not unfair_policies:
        head = ("No seat edge is detectable at any player count or skill level tested: with these games the "
                "seating is fair within the intervals shown.")
    elif not fair_policies:
        head = "The seating is unfair at every skill level tested."
    else:
        order = {p: i for i, p in enumerate(policies_weakest_first)}
        weakest_unfair = min(order[p] for p in unfair_policies)
        strongest_fair = max(order[p] for p in fair_policies)
        if strongest_fair < weakest_unfair:
            head = (f"Fair only for weak play: no seat edge with {', '.join(fair_policies)} players, but with "
                    f"{', '.join(unfair_policies)} players a seat edge is real. A balance conclusion drawn from "
                    f"{', '.join(fair_policies)} play does not hold for skilled play.")
        elif max(order[p] for p in unfair_policies) < min(order[p] for p in fair_policies):
            head = (f"Unfair only for weak play: a seat edge with {', '.join(unfair_policies)} players "
                    f"disappears with {', '.join(fair_policies)} players.")
        else:
            head = (f"Mixed: fair with {', '.join(fair_policies)} players, unfair with {', '.join(unfair_policies)} "
                    f"players.")
    return head + "\n\n" + "\n".join(f"- {line}" for line in lines)


UNFAIRNESS = ("largest |seat edge| of each batch; its change between two batches played on the same seeds by a "
              "paired percentile bootstrap over games (scipy.stats.bootstrap, 999 resamples of whole games, seeded)")


def _edge_matrix(values: pl.DataFrame) -> pl.DataFrame:
    return values.pivot(on="key", index="game", values="value").sort("game")


def unfairness_change(edges_a: pl.DataFrame, edges_b: pl.DataFrame, confidence: float = 0.95,
                      n_resamples: int = 999, seed: int = 0) -> dict:
    """Is b fairer than a? Unfairness = max over seats of |mean edge|. Returns
    unfairness of a and b, the change b - a and its paired bootstrap interval
    (resampling whole games, so each seat's edges and both arms move together)."""
    a = _edge_matrix(edges_a)
    b = _edge_matrix(edges_b)
    seats = [c for c in a.columns if c != "game" and c in b.columns]
    joined = a.select("game", *seats).join(b.select("game", *seats), on="game", how="inner", suffix="_b")
    xa = joined.select(seats).to_numpy().astype(float)
    xb = joined.select([f"{s}_b" for s in seats]).to_numpy().astype(float)

    def statistic(index, axis=-1):
        index = np.asarray(index, dtype=np.int64)
        return np.abs(xb[index].mean(axis=-2)).max(axis=-1) - np.abs(xa[index].mean(axis=-2)).max(axis=-1)

    u_a = float(np.abs(xa.mean(axis=0)).max())
    u_b = float(np.abs(xb.mean(axis=0)).max())
    index = np.arange(xa.shape[0])
    result = scipy_stats.bootstrap((index,), statistic, confidence_level=confidence, n_resamples=n_resamples,
                                   method="percentile", vectorized=True, batch=100,
                                   rng=np.random.default_rng(seed))
    interval = result.confidence_interval
    return {"unfairness_a": u_a, "unfairness_b": u_b, "change": u_b - u_a, "low": float(interval.low),
            "high": float(interval.high), "games": int(xa.shape[0])}
