"""A chart's group names as a person sees them: a long name (a rung with its weights written out)
must not widen the figure or run its labels into each other (analysis/plots.tick_label)."""
import warnings

import matplotlib.image
import numpy as np

from analysis.plots import FIGSIZE, TICK_LINES, TICK_WIDTH, rate_chart, tick_label

LONG = "expert(" + ", ".join(f"w_feature{i}={0.1234567 * i:.7g}" for i in range(19)) + ")"


def test_a_long_name_keeps_the_chart_its_width(tmp_path):
    labels = ["heuristic", "expert", LONG, "search(iterations=20, rollout=heuristic)"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # "constrained_layout not applied" was the first sign
        figure = rate_chart(labels, [-0.7, -0.3, 0.0, 1.0], [-0.8, -0.4, -0.1, 0.9], [-0.6, -0.2, 0.1, 1.2],
                            title="ladder", ylabel="rating", from_zero=False)
        figure.savefig(tmp_path / "chart.png", dpi=100, bbox_inches="tight")
    width = matplotlib.image.imread(tmp_path / "chart.png").shape[1]
    assert width <= 1.2 * FIGSIZE[0] * 100
    ticks = [t.get_text() for t in figure.axes[0].get_xticklabels()]
    assert ticks[:2] == ["heuristic", "expert"]                  # a short name as it is
    assert ticks[3] == "search(iterations=20,\nrollout=heuristic)"  # wrapped after its comma
    lines = ticks[2].split("\n")
    assert len(lines) == TICK_LINES and all(len(x) <= TICK_WIDTH for x in lines) and lines[-1].endswith("…")
    assert lines[0] == "expert(w_feature0=0,"


def test_a_tick_label_keeps_every_character_of_a_name_that_fits():
    for name in ["", "a", "x" * TICK_WIDTH, "expert(w_score=0.2659, w_board=0.1648)"]:
        text = tick_label(name)
        assert text.replace("\n", " ") == name and len(text.split("\n")) <= TICK_LINES
    assert tick_label("y" * (TICK_WIDTH + 5)).split("\n") == ["y" * TICK_WIDTH, "y" * 5]
