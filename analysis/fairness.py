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


EDGE_TEST = ("each seat's per-game edge against 0: a win and a loss (single-winner games) as the proportion it "
             "is, the exact binomial test with a Wilson interval; otherwise a one-sample t-test; "
             "Bonferroni over every seat of every batch shown, with simultaneous intervals at level 1 - alpha/m "
             "(an interval excludes 0 exactly when the seat is flagged; simultaneous, so the interval of the "
             "seat picked as the largest edge stays valid although it was selected)")
EQUIVALENCE = ("equivalence (fairness): two one-sided tests (TOST: exact binomial for a win and a loss, else "
               "statsmodels ttost_paired) of each seat's per-game edge against the margin +-m; the seating is fair within m "
               "when every seat passes (intersection-union test, no correction needed): its 1 - 2 alpha "
               "interval lies inside (-m, m). Without a margin no test can conclude \"fair\".")
SELECTED = ("the largest |edge| is the maximum of several estimates: it is biased upward (most near 0), so "
            "read it with its simultaneous interval, not as an unbiased estimate")
SEAT_SCHEMA = {"key": pl.Utf8, "n": pl.Int64, "edge": pl.Float64, "low": pl.Float64, "high": pl.Float64,
               "p_value": pl.Float64}


def seat_edges(values: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per seat (key): mean edge, interval and p-value against 0 (analysis.stats.zero_mean_p and
    zero_mean_interval: a seat's win minus its fair share in single-winner games is a proportion, tested
    exactly and given a Wilson interval; 3 wins of 3 give p = 0.25 and no interval, never p = 0; other
    edges the t-test and interval). `values` are per-game seat edges (game, key, value)."""
    from analysis.stats import zero_mean_interval, zero_mean_p

    rows = []
    for key in values["key"].unique(maintain_order=True).to_list():
        x = values.filter(pl.col("key") == key)["value"].to_numpy().astype(float)
        n = x.size
        mean = float(x.mean()) if n else float("nan")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = zero_mean_interval(x, confidence)
            p = zero_mean_p(x)
        rows.append({"key": key, "n": n, "edge": mean, "low": low, "high": high, "p_value": p})
    return pl.DataFrame(rows, schema=SEAT_SCHEMA).sort("key")


def seat_family(cells_edges: list[pl.DataFrame], confidence: float = 0.95,
                margin: float | None = None) -> pl.DataFrame:
    """Every seat of every cell (batch) in ONE family: the same seat gets the same
    adjusted p-value wherever it is shown (balance table and fairness matrix).

    Columns: cell, key, n, edge, low, high (simultaneous, Bonferroni level),
    p_value, p_adjusted, significant, and with a margin: p_tost, equivalent
    (the seat's edge is shown inside +-margin: analysis.stats.equivalence_p, exact for a win and a loss;
    a constant sample, e.g. 3 games whose edges are all 0, shows nothing).
    """
    from analysis.compare import adjust_family
    from analysis.stats import equivalence_p

    alpha = 1 - confidence
    frames = [seat_edges(edges, confidence).with_columns(pl.lit(i).alias("cell")) for i, edges in enumerate(cells_edges)]
    seats = pl.concat(frames) if frames else pl.DataFrame(schema={**SEAT_SCHEMA, "cell": pl.Int32})
    adj = adjust_family(np.nan_to_num(seats["p_value"].to_numpy(), nan=1.0), alpha, "bonferroni")
    low, high, p_tost = [], [], []
    for row in seats.iter_rows(named=True):
        x = cells_edges[row["cell"]].filter(pl.col("key") == row["key"])["value"].to_numpy().astype(float)
        sim = seat_edges(pl.DataFrame({"game": np.arange(x.size), "key": row["key"], "value": x}), adj.level)
        low.append(sim["low"][0])
        high.append(sim["high"][0])
        p_tost.append(equivalence_p(x, margin) if margin is not None and x.size >= 2 else float("nan"))
    seats = seats.with_columns(pl.Series("low", low, pl.Float64), pl.Series("high", high, pl.Float64),
                               pl.Series("p_adjusted", adj.adjusted), pl.Series("significant", adj.reject),
                               pl.Series("p_tost", p_tost, pl.Float64))
    return seats.with_columns((pl.col("p_tost").fill_nan(1.0) < alpha).fill_null(False).alias("equivalent"))


@dataclass
class Cell:
    policy: str
    players: int
    win_rates: pl.DataFrame   # estimates of seat_win_rate: key, estimate, low, high
    edges: pl.DataFrame       # per-game seat edges: game, key, value


def fairness_matrix(cells: list[Cell], confidence: float = 0.95, margin: float | None = None,
                    strong: tuple[str, ...] = ()) -> pl.DataFrame:
    """One row per (policy, players): each seat's win rate with its interval,
    the largest seat edge with its simultaneous interval (Bonferroni over every
    seat of every cell), its adjusted p-value and a verdict. "fair" only from
    equivalence: every seat's edge shown inside +-margin by TOST; without a
    margin a cell is "no seat edge detected", never fair. `strong`: the game's strong_policies
    (analysis.ladder.is_strong), for the verdict across skill levels."""
    all_seats = seat_family([cell.edges for cell in cells], confidence, margin)
    across = across_policies(cells, margin, 1 - confidence, strong)

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
                    "games": int(worst["n"]), "across skill levels": across.get(cell.players, "")})
        rows.append(row)
    table = pl.DataFrame(rows)
    seat_columns = sorted({c for c in table.columns if c.endswith(" win rate")})
    first = ["policy", "players", "games", "fair share"]
    rest = ["largest edge seat", "largest edge", "edge low", "edge high", "p (adjusted)", "unfair", "fair", "verdict",
            "across skill levels"]
    return table.select(first + seat_columns + rest)


def across_policies(cells: list[Cell], margin: float | None, alpha: float = 0.05,
                    strong: tuple[str, ...] = ()) -> dict[int, str]:
    """Per player count with two or more policies: each seat's edge across the policies (weakest first),
    judged as the ladder judges a finding across its rungs (analysis.ladder.row_verdict: paired on the
    game, every batch being played on the same seeds; corrected over every policy x seat of the matrix;
    a sign flip always reported; "no effect" only inside the margin). One text per player count."""
    from analysis.ladder import row_verdict, weak_rungs

    by_players: dict[int, list[Cell]] = {}
    for cell in cells:
        by_players.setdefault(cell.players, []).append(cell)
    groups = {p: cs for p, cs in by_players.items() if len(cs) >= 2}
    rows = sum(len(cs[0].edges["key"].unique()) for cs in groups.values())
    tests = sum(len(cs[0].edges["key"].unique()) * (len(cs) + 1 + (1 if 0 < len(weak_rungs([c.policy for c in cs], strong))
                                                                    < len(cs) else 0)) for cs in groups.values())
    out = {}
    for players, cs in groups.items():
        policies = [c.policy for c in cs]
        parts = []
        for key in sorted(cs[0].edges["key"].unique().to_list()):
            effects = {}
            for c in cs:
                e = c.edges.filter(pl.col("key") == key)
                a = np.full(int(e["game"].max()) + 1 if e.height else 0, np.nan)
                a[e["game"].to_numpy()] = e["value"].to_numpy()
                effects[c.policy] = a
            n = max(a.size for a in effects.values())
            effects = {k: np.pad(a, (0, n - a.size), constant_values=np.nan) for k, a in effects.items()}
            v = row_verdict(effects, policies, weak_rungs(policies, strong), tests=tests, rows=rows, margin=margin,
                            alpha=alpha)
            parts.append(f"{key}: " + v.text.replace("rung", "skill level"))
        out[players] = " | ".join(parts)
    return out


def fairness_conclusion(matrix: pl.DataFrame, policies_weakest_first: list[str]) -> str:
    """A paragraph: where each skill level is shown unfair, shown fair (only with a margin: equivalence),
    or undetermined; and what the paired tests across skill levels show (a sign flip always). Never
    "fair" or "balanced" from "no seat edge detected"."""
    def fmt(r):
        return (f"{r['largest edge seat']} seat {r['largest edge']:+.3f} "
                f"[{r['edge low']:+.3f}, {r['edge high']:+.3f}] at {r['players']} players")

    status, lines = {}, []
    for policy in policies_weakest_first:
        sub = matrix.filter(pl.col("policy") == policy)
        if sub.height == 0:
            continue
        bad = sub.filter(pl.col("unfair"))
        counts = ", ".join(str(p) for p in sub["players"].to_list())
        if bad.height:
            status[policy] = "unfair"
            lines.append(f"**{policy}**: unfair — " + "; ".join(fmt(r) for r in bad.iter_rows(named=True)) + ".")
        elif sub["fair"].all():
            status[policy] = "fair"
            lines.append(f"**{policy}**: fair within the margin (every seat's edge shown inside it) at {counts} "
                         "players.")
        else:
            status[policy] = "undetermined"
            worst = sub.sort(pl.col("largest edge").abs(), descending=True).row(0, named=True)
            lines.append(f"**{policy}**: undetermined at {counts} players: no seat edge shown, and fairness "
                         f"within a margin not shown (largest, selected as the largest: {fmt(worst)}).")
    parts = []
    for word, text in (("unfair", "unfair with {} play"), ("fair", "fair within the margin with {} play"),
                       ("undetermined", "undetermined with {} play (no seat edge shown; "
                        + ("fairness within the margin not shown: more games needed)" if "fair" in matrix.columns
                           and matrix["verdict"].str.contains("not shown").any()
                           else "no margin set, so fairness cannot be concluded)"))):
        chosen = [p for p, s in status.items() if s == word]
        if chosen:
            parts.append(text.format(", ".join(chosen)))
    head = "Seat fairness: " + "; ".join(parts) + "." if parts else "Seat fairness: no cell."
    across = [f"at {r['players']} players: {r['across skill levels']}"
              for r in matrix.unique("players", maintain_order=True).iter_rows(named=True)
              if r.get("across skill levels")]
    flips = [f"{r['players']} players, {part}" for r in matrix.unique("players", maintain_order=True).iter_rows(named=True)
             for part in (r.get("across skill levels") or "").split(" | ") if "changes sign" in part]
    if flips:
        head += " A seat edge changes sign between skill levels: " + " | ".join(flips) + "."
    if across:
        lines.append("Across skill levels (paired on the game, corrected over every policy and seat): "
                     + " | ".join(across) + ".")
    return head + "\n\n" + "\n".join(f"- {line}" for line in lines)


UNFAIRNESS = ("each seat's edge in both batches and its paired change b - a (per-game edges paired on the game: "
              "analysis.compare.paired_difference), with simultaneous intervals over every seat of every compared "
              "pair (Bonferroni, level 1 - alpha/m): a seat's edge changed when its interval excludes 0. (The "
              "change in the largest |seat edge| it replaces was biased, -0.0165 on average for a true -0.030, "
              "and its bootstrap interval covered 72% of the time.)")


def seat_edge_changes(pairs: list[tuple[str, str, pl.DataFrame, pl.DataFrame]],
                      confidence: float = 0.95) -> pl.DataFrame:
    """Per compared pair (label a, label b, per-game seat edges of a and of b, played on the same seeds) and
    seat: edge_a, edge_b, change (b - a, paired on the game), its simultaneous interval (Bonferroni over
    every seat of every pair), p, p_adjusted, changed."""
    from analysis.compare import adjust_family, paired_difference

    cells = []
    for label_a, label_b, edges_a, edges_b in pairs:
        a, b = _edge_matrix(edges_a), _edge_matrix(edges_b)
        seats = [c for c in a.columns if c != "game" and c in b.columns]
        joined = a.select("game", *seats).join(b.select("game", *seats), on="game", how="inner", suffix="_b")
        for seat in seats:
            cells.append((label_a, label_b, seat, joined[seat].to_numpy().astype(float),
                          joined[f"{seat}_b"].to_numpy().astype(float)))
    p = [paired_difference(xa, xb, confidence).p_value for *_, xa, xb in cells]
    adj = adjust_family(p, 1 - confidence, "bonferroni")
    rows = []
    for (label_a, label_b, seat, xa, xb), p_value, p_adj, flagged in zip(cells, p, adj.adjusted, adj.reject):
        d = paired_difference(xa, xb, adj.level)
        rows.append({"arm_a": label_a, "arm_b": label_b, "seat": seat, "games": d.n, "edge_a": d.mean_a,
                     "edge_b": d.mean_b, "change": d.estimate, "low": d.low, "high": d.high,
                     "interval_level": adj.level, "p_value": p_value, "p_adjusted": float(p_adj),
                     "changed": bool(flagged)})
    return pl.DataFrame(rows)


def _edge_matrix(values: pl.DataFrame) -> pl.DataFrame:
    return values.pivot(on="key", index="game", values="value").sort("game")
