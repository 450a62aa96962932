"""Sweep and comparison tables and plots, from already-computed estimates.

    sweep_table          the combined table: one row per (point, metric, key),
                         a column per swept parameter
    metric_vs_parameter  one metric against the (first) swept parameter, one
                         line per key and combination of the other parameters,
                         with the 95% interval as error bars
    arms_plot            one metric per arm of a comparison, grouped by key
    differences_plot     each arm's paired difference from the baseline with
                         its interval (a forest plot)

Figures are matplotlib `Figure` objects (no pyplot state), as in analysis/plots.py.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from analysis.plots import new_figure


def _label(value: Any) -> str:
    return json.dumps(value) if isinstance(value, (list, dict)) else str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def sweep_table(estimates: pl.DataFrame, params: list[dict[str, Any]], keys: list[str]) -> pl.DataFrame:
    """estimates (with plan_index) + one column per swept parameter.

    Numeric parameters stay numeric; anything else (a score table) is shown as text.
    """
    columns = {}
    for key in keys:
        vals = [p[key] for p in params]
        if all(_is_number(v) for v in vals):
            columns[key] = pl.Series(key, [float(v) for v in vals])
        else:
            columns[key] = pl.Series(key, [_label(v) for v in vals])
    frame = pl.DataFrame({"plan_index": list(range(len(params))), **{k: s for k, s in columns.items()}})
    table = estimates.join(frame.with_columns(pl.col("plan_index").cast(estimates["plan_index"].dtype)),
                           on="plan_index", how="left")
    return table.select(*keys, "metric", "key", "estimate", "low", "high", "n", "sd", "reference", "interval",
                        "plan").sort(["metric", "key", *keys])


def metric_vs_parameter(estimates: pl.DataFrame, params: list[dict[str, Any]], keys: list[str], metric: str,
                        title: str = "", confidence: float = 0.95) -> Figure:
    """`metric` against keys[0]; one line per key and combination of the other swept parameters."""
    x_key = keys[0]
    xs = [p[x_key] for p in params]
    numeric = all(_is_number(v) for v in xs)
    categories = list(dict.fromkeys(_label(v) for v in xs))
    sub = estimates.filter(pl.col("metric") == metric)
    figure, (axes,) = new_figure(1)
    groups: dict[tuple, list[tuple[float, float, float, float]]] = {}
    for row in sub.iter_rows(named=True):
        p = params[row["plan_index"]]
        others = tuple((k, _label(p[k])) for k in keys[1:])
        x = float(p[x_key]) if numeric else float(categories.index(_label(p[x_key])))
        groups.setdefault((row["key"], others), []).append((x, row["estimate"], row["low"], row["high"]))
    n_groups = len(groups)
    spread = 0.0 if n_groups <= 1 else 0.25
    span = (max(xs) - min(xs)) if numeric and len(set(xs)) > 1 else 1.0
    for i, ((key, others), points) in enumerate(sorted(groups.items())):
        points.sort()
        x, y, lo, hi = (np.array(v, dtype=float) for v in zip(*points))
        offset = (i - (n_groups - 1) / 2) * spread * span / max(len(set(xs)), 2) / max(n_groups, 1)
        label = key if key != "all" else metric
        if others:
            label += " (" + ", ".join(f"{k.rsplit('.', 1)[-1]}={v}" for k, v in others) + ")"
        err = np.clip(np.vstack([y - lo, hi - y]), 0, None)
        axes.errorbar(x + offset, y, yerr=err, marker="o", capsize=3, label=label)
    reference = sub["reference"].drop_nulls()
    if reference.len():
        ref = float(reference.mean())
        axes.axhline(ref, color="0.4", linestyle="--", linewidth=1, label=f"fair value {ref:.3g}")
    if not numeric:
        axes.set_xticks(range(len(categories)), categories, rotation=20, fontsize=7)
    elif len(set(xs)) <= 12:
        axes.set_xticks(sorted({float(x) for x in xs}))
    axes.set_xlabel(x_key)
    axes.set_ylabel(metric)
    axes.set_title(title or f"{metric} vs {x_key} ({confidence:.0%} intervals)")
    axes.grid(alpha=0.3)
    if n_groups > 1 or reference.len():
        axes.legend(fontsize=7)
    return figure


def arms_plot(estimates: pl.DataFrame, arms: list[str], metric: str, confidence: float = 0.95,
              by: str = "arm") -> Figure:
    """`metric` for each arm (x: key, one marker series per arm) with intervals; `by` names
    what the arms are in the title ("rung" for a ladder's self-play batches)."""
    sub = estimates.filter(pl.col("metric") == metric)
    keys = sorted(dict.fromkeys(sub["key"].to_list()))
    figure, (axes,) = new_figure(1)
    width = 0.8 / max(len(arms), 1)
    for i, arm in enumerate(arms):
        rows = {r["key"]: r for r in sub.filter(pl.col("plan") == arm).iter_rows(named=True)}
        xs, ys, lo, hi = [], [], [], []
        for j, key in enumerate(keys):
            if key in rows:
                xs.append(j - 0.4 + width * (i + 0.5))
                ys.append(rows[key]["estimate"])
                lo.append(rows[key]["low"])
                hi.append(rows[key]["high"])
        if xs:
            y = np.array(ys)
            err = np.clip(np.vstack([y - np.array(lo), np.array(hi) - y]), 0, None)
            axes.errorbar(xs, y, yerr=err, fmt="o", capsize=3, label=arm)
    reference = sub["reference"].drop_nulls()
    if reference.len():
        axes.axhline(float(reference.mean()), color="0.4", linestyle="--", linewidth=1, label="fair value")
    axes.set_xticks(range(len(keys)), keys)
    axes.set_ylabel(metric)
    axes.set_title(f"{metric} by {by} ({confidence:.0%} intervals)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=7)
    return figure


def differences_plot(comparisons: pl.DataFrame, metric: str, confidence: float = 0.95) -> Figure:
    """Paired differences (b - a) with intervals at each row's family level; filled markers are significant
    after the family correction (Bonferroni for the primary family, Benjamini-Hochberg for the others)."""
    sub = comparisons.filter(pl.col("metric") == metric)
    labels = [f"{r['arm_b']} − {r['arm_a']}" + ("" if r["key"] == "all" else f" [{r['key']}]")
              for r in sub.iter_rows(named=True)]
    figure, (axes,) = new_figure(1, figsize=(7.0, max(2.0, 0.35 * len(labels) + 1.2)))
    y = np.arange(len(labels))[::-1]
    d = sub["difference"].to_numpy()
    err = np.clip(np.vstack([d - sub["low"].to_numpy(), sub["high"].to_numpy() - d]), 0, None)
    significant = sub["significant"].fill_null(False).to_numpy()
    for yi, di, e0, e1, sig in zip(y, d, err[0], err[1], significant):
        axes.errorbar([di], [yi], xerr=[[e0], [e1]], fmt="o", capsize=3, color="C3" if sig else "C0",
                      markerfacecolor="C3" if sig else "white")
    axes.axvline(0, color="0.4", linestyle="--", linewidth=1)
    axes.set_yticks(y, labels, fontsize=7)
    axes.set_xlabel(f"difference in {metric}")
    axes.set_title(f"{metric}: paired differences (family-adjusted intervals; red = significant after correction)",
                   fontsize=9)
    axes.grid(alpha=0.3, axis="x")
    return figure


def fairness_plot(estimates: pl.DataFrame, cells: list[tuple[str, int, int]], policies: list[str],
                  confidence: float = 0.95) -> Figure:
    """Seat win rates against player count, one panel per policy, with the fair share."""
    figure, axes_list = new_figure(len(policies), figsize=(3.6 * len(policies), 3.6))
    sub = estimates.filter(pl.col("metric") == "seat_win_rate")
    for axes, policy in zip(axes_list, policies):
        counts = sorted({p for pol, p, _ in cells if pol == policy})
        seats = sorted({r["key"] for r in sub.iter_rows(named=True)})
        for j, seat in enumerate(seats):
            xs, ys, lo, hi = [], [], [], []
            for pol, p, index in cells:
                if pol != policy:
                    continue
                row = sub.filter((pl.col("plan_index") == index) & (pl.col("key") == seat))
                if row.height:
                    r = row.row(0, named=True)
                    xs.append(p + (j - (len(seats) - 1) / 2) * 0.08)
                    ys.append(r["estimate"])
                    lo.append(r["low"])
                    hi.append(r["high"])
            if xs:
                yv = np.array(ys)
                err = np.clip(np.vstack([yv - np.array(lo), np.array(hi) - yv]), 0, None)
                axes.errorbar(xs, yv, yerr=err, fmt="o", capsize=2, label=seat)
        axes.plot(counts, [1 / p for p in counts], "k_", markersize=18, label="fair share")
        axes.set_xticks(counts)
        axes.set_xlabel("players")
        axes.set_title(policy)
        axes.grid(alpha=0.3)
    axes_list[0].set_ylabel(f"seat win rate ({confidence:.0%} Wilson)")
    axes_list[-1].legend(fontsize=7)
    return figure
