"""Seat fairness: is any seat's edge real, at which player counts and skill levels?

A seat's edge in one game is its win (0/1, a shared win counts for each
sharer) minus the mean win of all seats of that game; its mean over games is
the seat's win rate minus the average seat's, 0 when the game is fair. The
per-game edges are independent across games, so each seat's mean edge gets a
Student t interval and a one-sample t-test against 0 (scipy.stats.ttest_1samp),
and the p-values of every seat of every cell of the matrix are corrected
together (Bonferroni, with simultaneous intervals that agree with the flags),
so a table of 36 seats does not cry wolf. "Fair" is only ever concluded from
an equivalence test against a margin the experiment sets (TOST).

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


EDGE_TEST = ("one-sample t-test of each seat's per-game edge against 0 (scipy.stats.ttest_1samp), "
             "Bonferroni over every seat of every batch shown, with simultaneous intervals at level 1 - alpha/m "
             "(an interval excludes 0 exactly when the seat is flagged; simultaneous, so the interval of the "
             "seat picked as the largest edge stays valid although it was selected)")
EQUIVALENCE = ("equivalence (fairness): two one-sided t-tests (TOST, statsmodels ttost_paired) of each seat's "
               "per-game edge, paired within the game, against the margin +-m; the seating is fair within m "
               "when every seat passes (intersection-union test, no correction needed): its 1 - 2 alpha "
               "interval lies inside (-m, m). Without a margin no test can conclude \"fair\".")
SELECTED = ("the largest |edge| is the maximum of several estimates: it is biased upward (most near 0), so "
            "read it with its simultaneous interval, not as an unbiased estimate")
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


def seat_family(cells_edges: list[pl.DataFrame], confidence: float = 0.95,
                margin: float | None = None) -> pl.DataFrame:
    """Every seat of every cell (batch) in ONE family: the same seat gets the same
    adjusted p-value wherever it is shown (balance table and fairness matrix).

    Columns: cell, key, n, edge, low, high (simultaneous, Bonferroni level),
    p_value, p_adjusted, significant, and with a margin: p_tost, equivalent
    (the seat's edge is inside +-margin).
    """
    from statsmodels.stats.weightstats import ttost_paired

    from analysis.compare import adjust_family

    alpha = 1 - confidence
    frames = [seat_edges(edges, confidence).with_columns(pl.lit(i).alias("cell")) for i, edges in enumerate(cells_edges)]
    seats = pl.concat(frames) if frames else pl.DataFrame(schema={**SEAT_SCHEMA, "cell": pl.Int32})
    adj = adjust_family(seats["p_value"].to_numpy(), alpha, "bonferroni")
    low, high, p_tost = [], [], []
    for row in seats.iter_rows(named=True):
        x = cells_edges[row["cell"]].filter(pl.col("key") == row["key"])["value"].to_numpy().astype(float)
        sim = seat_edges(pl.DataFrame({"game": np.arange(x.size), "key": row["key"], "value": x}), adj.level)
        low.append(sim["low"][0])
        high.append(sim["high"][0])
        if margin is not None and x.size >= 2:
            if np.all(x == x[0]):
                p_tost.append(0.0 if abs(x[0]) < margin and x.size >= 2 else 1.0)
            else:
                p_tost.append(float(ttost_paired(x, np.zeros_like(x), -margin, margin)[0]))
        else:
            p_tost.append(float("nan"))
    seats = seats.with_columns(pl.Series("low", low, pl.Float64), pl.Series("high", high, pl.Float64),
                               pl.Series("p_adjusted", adj.adjusted), pl.Series("significant", adj.reject),
                               pl.Series("p_tost", p_tost, pl.Float64))
    return seats.with_columns((pl.col("p_tost") < alpha).fill_null(False).alias("equivalent"))


@dataclass
class Cell:
    policy: str
    players: int
    win_rates: pl.DataFrame   # estimates of seat_win_rate: key, estimate, low, high
    edges: pl.DataFrame       # per-game seat edges: game, key, value


def fairness_matrix(cells: list[Cell], confidence: float = 0.95, margin: float | None = None) -> pl.DataFrame:
    """One row per (policy, players): each seat's win rate with its interval,
    the largest seat edge with its simultaneous interval (Bonferroni over every
    seat of every cell), its adjusted p-value and a verdict. "fair" only from
    equivalence: every seat's edge shown inside +-margin by TOST; without a
    margin a cell is "no seat edge detected", never fair."""
    all_seats = seat_family([cell.edges for cell in cells], confidence, margin)

    rows = []
    for index, cell in enumerate(cells):
        seats = all_seats.filter(pl.col("cell") == index)
        worst = seats.sort(pl.col("edge").abs(), descending=True).row(0, named=True)
        significant = seats.filter(pl.col("significant"))
        equivalent = margin is not None and bool(seats["equivalent"].all())
        if significant.height:
            favoured = significant.filter(pl.col("edge") > 0)["key"].to_list()
            hurt = significant.filter(pl.col("edge") < 0)["key"].to_list()
            parts = []
            if favoured:
                parts.append(f"{', '.join(favoured)} favoured")
            if hurt:
                parts.append(f"{', '.join(hurt)} behind")
            verdict = "unfair: " + "; ".join(parts)
        elif equivalent:
            verdict = f"fair within +-{margin:g} (every seat's edge, TOST)"
        elif margin is not None:
            verdict = f"no seat edge detected, but fairness within +-{margin:g} not shown (more games needed)"
        else:
            verdict = "no seat edge detected (no margin set: fairness cannot be concluded)"
        row = {"policy": cell.policy, "players": cell.players}
        rates = {r["key"]: r for r in cell.win_rates.iter_rows(named=True)}
        for key in sorted(rates):
            r = rates[key]
            row[f"{key} win rate"] = f"{r['estimate']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
        row.update({"fair share": 1 / cell.players, "largest edge seat": worst["key"], "largest edge": worst["edge"],
                    "edge low": worst["low"], "edge high": worst["high"], "p (adjusted)": worst["p_adjusted"],
                    "unfair": bool(significant.height), "fair": equivalent, "verdict": verdict,
                    "games": int(worst["n"])})
        rows.append(row)
    table = pl.DataFrame(rows)
    seat_columns = sorted({c for c in table.columns if c.endswith(" win rate")})
    first = ["policy", "players", "games", "fair share"]
    rest = ["largest edge seat", "largest edge", "edge low", "edge high", "p (adjusted)", "unfair", "fair", "verdict"]
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
        bad = sub.filter(pl.col("unfair"))
        if bad.height == 0:
            fair_policies.append(policy)
            worst = sub.sort(pl.col("largest edge").abs(), descending=True).row(0, named=True)
            shown = "fair within the margin (equivalence shown)" if sub["fair"].all() else "no seat edge detected"
            lines.append(f"**{policy}**: {shown} at "
                         f"{', '.join(str(p) for p in sub['players'].to_list())} players "
                         f"(largest, selected as the largest: {fmt(worst)}).")
        else:
            unfair_policies.append(policy)
            edges = "; ".join(fmt(r) for r in bad.iter_rows(named=True))
            lines.append(f"**{policy}**: unfair — {edges}.")
    if not unfair_policies:
        if matrix["fair"].all():
            head = ("The seating is fair at every player count and skill level tested: every seat's edge is "
                    "shown to lie inside the margin (equivalence test).")
        else:
            head = ("No seat edge is detectable at any player count or skill level tested, but that is not proof "
                    "of fairness: set a margin (largest seat edge that does not matter) to test equivalence.")
    elif not fair_policies:
        head = "The seating is unfair at every skill level tested."
    else:
        order = {p: i for i, p in enumerate(policies_weakest_first)}
        weakest_unfair = min(order[p] for p in unfair_policies)
        strongest_fair = max(order[p] for p in fair_policies)
        if strongest_fair < weakest_unfair:
            head = (f"Balanced only for weak play: no seat edge with {', '.join(fair_policies)} players, but with "
                    f"{', '.join(unfair_policies)} players a seat edge is real. A balance conclusion drawn from "
                    f"{', '.join(fair_policies)} play does not hold for skilled play.")
        elif max(order[p] for p in unfair_policies) < min(order[p] for p in fair_policies):
            head = (f"Unfair only for weak play: a seat edge with {', '.join(unfair_policies)} players "
                    f"disappears with {', '.join(fair_policies)} players.")
        else:
            head = (f"Mixed: no seat edge detected with {', '.join(fair_policies)} players, unfair with "
                    f"{', '.join(unfair_policies)} players.")
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
