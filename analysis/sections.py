"""The unit a report is made of. The generic report (analysis/report.py)
writes the sections every game shares; each game adds its own from its
analysis module, found by the game id (analysis/plugins.py, `game_module`):

    analysis/<game_id>.py   sections(run) -> list[Section]   the game's report pages
                            METRICS: dict[str, Metric]        its experiment metrics

Both are optional: a game without the module gets the generic sections and
metrics only. The report writer turns sections into Markdown + HTML with PNG
figures; a section never writes files itself."""
from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl
from matplotlib.figure import Figure

from engines.core.spec import GameSpec


@dataclass
class Plot:
    name: str          # file stem, unique within the report: "seat_win_rates"
    figure: Figure
    caption: str


@dataclass
class Finding:
    """One sentence of the report's opening summary, built from computed numbers (never picked
    out of section text): plain words, percentages, positions counted from 1st, units on money
    and points, no test name and no p-value (those stay in the section). `importance` orders the
    summary (larger first); a test that found nothing makes no finding."""
    sentence: str
    importance: float = 50.0


@dataclass
class Section:
    title: str
    text: str = ""                                   # Markdown, may be several paragraphs
    tables: list[tuple[str, pl.DataFrame]] = field(default_factory=list)  # (caption, table)
    plots: list[Plot] = field(default_factory=list)
    # the section's findings for the report's opening summary (Finding: a plain sentence and its
    # importance); a section without findings adds nothing to the summary
    findings: list[Finding] = field(default_factory=list)


def game_spec(game_id: str) -> GameSpec | None:
    """The game's contract through the registry; None for a game that is not
    registered (a run folder can be analysed without its engine)."""
    from engines.registry import get_game

    try:
        return get_game(game_id)
    except (KeyError, ImportError):  # unknown here, or its engine is not installed
        return None
