"""The few chart shapes the reports use, each drawn from already aggregated
numbers (a rate and its interval per group, a histogram's counts and edges),
never from raw rows.

Figures are built with `matplotlib.figure.Figure`, not pyplot: nothing is
registered with a GUI backend, so there is nothing to close, a report can be
built in a notebook without touching its inline backend, and `savefig` to PNG
renders with Agg.
"""
from __future__ import annotations

import textwrap
from typing import Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

FIGSIZE = (7.0, 4.0)


def new_figure(n_panels: int = 1, figsize: tuple[float, float] | None = None) -> tuple[Figure, list[Axes]]:
    """A constrained-layout figure with `n_panels` side by side."""
    if figsize is None:
        figsize = (FIGSIZE[0] if n_panels == 1 else 4.2 * n_panels, FIGSIZE[1])
    figure = Figure(figsize=figsize, layout="constrained")
    axes = figure.subplots(1, n_panels, squeeze=False)[0]
    return figure, list(axes)


def _error_extent(rate, low, high) -> np.ndarray:
    """matplotlib's yerr wants distances below and above the point, not bounds.
    Clipped at 0: Wilson's bound for 0 successes can sit 1e-17 above the rate."""
    rate, low, high = (np.asarray(v, dtype=float) for v in (rate, low, high))
    return np.clip(np.vstack([rate - low, high - rate]), 0, None)


TICK_WIDTH = 24   # characters a tick label's line holds
TICK_LINES = 3    # lines a tick label takes at most


def tick_label(text: str) -> str:
    """A group's name as a tick label: wrapped at TICK_WIDTH characters (after a comma or a space where
    one falls) and cut after TICK_LINES lines with an ellipsis, so a long name (a policy with its
    weights written out: 'expert(w_score=0.27, w_board=0.16, ...)') cannot push the points off the
    figure or run into its neighbours. The report's tables keep the whole name."""
    lines = textwrap.wrap(str(text), TICK_WIDTH, break_on_hyphens=False) or [""]
    if len(lines) > TICK_LINES:
        lines = lines[:TICK_LINES]
        lines[-1] = lines[-1][:TICK_WIDTH - 1] + "…"
    return "\n".join(lines)


def draw_reference(axes: Axes, value: float | None, label: str | None) -> None:
    if value is not None:
        axes.axhline(value, color="0.4", linestyle="--", linewidth=1, label=label)


def rate_chart(labels: Sequence[str], rate, low, high, *, title: str, ylabel: str,
               reference: float | None = None, reference_label: str | None = None,
               axes: Axes | None = None, from_zero: bool = True,
               point_label: str = "rate, 95% interval") -> Figure:
    """One point per group with its interval as an error bar, and an optional
    reference line (e.g. the fair share 1/P). `from_zero=False` for differences:
    the axis then spans the values, so small differences stay visible."""
    figure = None
    if axes is None:
        figure, (axes,) = new_figure()
    x = np.arange(len(labels))
    axes.errorbar(x, rate, yerr=_error_extent(rate, low, high), fmt="o", capsize=4, label=point_label)
    draw_reference(axes, reference, reference_label)
    axes.set_xticks(x, [tick_label(label) for label in labels])
    axes.set_title(title)
    axes.set_ylabel(ylabel)
    if from_zero:
        axes.set_ylim(bottom=0)
    axes.legend(loc="best", fontsize="small")
    return figure if figure is not None else axes.figure


def rate_lines(series: Mapping[str, tuple], *, title: str, xlabel: str, ylabel: str,
               reference: float | None = None, reference_label: str | None = None,
               xticklabels: Sequence[str] | None = None, axes: Axes | None = None) -> Figure:
    """One line per series: `series[name] = (x, value, low, high)`, drawn with
    error bars; x may be positions with `xticklabels` naming them."""
    figure = None
    if axes is None:
        figure, (axes,) = new_figure()
    for offset, (name, (x, value, low, high)) in zip(_dodge(len(series)), series.items()):
        axes.errorbar(np.asarray(x, dtype=float) + offset, value, yerr=_error_extent(value, low, high),
                      marker="o", capsize=3, label=name)
    draw_reference(axes, reference, reference_label)
    if xticklabels is not None:
        axes.set_xticks(np.arange(len(xticklabels)), [tick_label(label) for label in xticklabels])
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    if axes.get_legend_handles_labels()[0]:   # every point may have been left out (too few games)
        axes.legend(loc="best", fontsize="small")
    return figure if figure is not None else axes.figure


def _dodge(n: int, width: float = 0.2) -> np.ndarray:
    """Small horizontal offsets so overlapping error bars stay readable."""
    return np.linspace(-width / 2, width / 2, n) if n > 1 else np.zeros(1)


def histogram_steps(series: Mapping[str, tuple[np.ndarray, np.ndarray]], *, title: str, xlabel: str,
                    density: bool = True, axes: Axes | None = None) -> Figure:
    """Outline histograms, `series[name] = (counts, edges)`, as shares of each
    series' total so groups of different sizes compare."""
    figure = None
    if axes is None:
        figure, (axes,) = new_figure()
    for name, (counts, edges) in series.items():
        counts = np.asarray(counts, dtype=float)
        total = counts.sum()
        heights = counts / total if density and total > 0 else counts
        axes.stairs(heights, edges, label=name, linewidth=1.5)
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel("share of games" if density else "games")
    if len(series) > 1:
        axes.legend(loc="best", fontsize="small")
    return figure if figure is not None else axes.figure


def stacked_shares(categories: Sequence, shares: Mapping[str, np.ndarray], *, title: str, xlabel: str,
                   ylabel: str, axes: Axes | None = None) -> Figure:
    """Stacked bars: for each category, how its total splits into parts
    (`shares[part]` aligned with `categories`, summing to 1 per category)."""
    figure = None
    if axes is None:
        figure, (axes,) = new_figure()
    x = np.arange(len(categories))
    bottom = np.zeros(len(categories))
    for part, values in shares.items():
        values = np.nan_to_num(np.asarray(values, dtype=float))
        axes.bar(x, values, bottom=bottom, label=part)
        bottom += values
    axes.set_xticks(x, [str(c) for c in categories])
    axes.set_ylim(0, 1)
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)   # what is shared: cards, money, ... (the caller says; no default)
    # Below the axes: stacked bars fill the whole panel, any inside spot hides a bar.
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=len(shares), fontsize="small")
    return figure if figure is not None else axes.figure
