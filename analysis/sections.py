"""The unit a report is made of. The generic report (analysis/report.py)
writes the sections every game shares; each game adds its own from
`analysis/<game_id>.py: sections(run) -> list[Section]`, named in its
GameSpec.report. The report writer turns sections into Markdown + HTML with
PNG figures; a section never writes files itself."""
from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl
from matplotlib.figure import Figure


@dataclass
class Plot:
    name: str          # file stem, unique within the report: "seat_win_rates"
    figure: Figure
    caption: str


@dataclass
class Section:
    title: str
    text: str = ""                                   # Markdown, may be several paragraphs
    tables: list[tuple[str, pl.DataFrame]] = field(default_factory=list)  # (caption, table)
    plots: list[Plot] = field(default_factory=list)
