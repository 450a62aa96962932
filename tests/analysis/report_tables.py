"""Read the tables of a report.md back, to check its numbers against the data."""
from __future__ import annotations

import re


def markdown_tables(markdown: str) -> dict[str, list[dict[str, str]]]:
    """{caption: rows} for every '*caption*' + pipe table in a report.md."""
    tables = {}
    lines = markdown.splitlines()
    for i, line in enumerate(lines):
        caption = re.fullmatch(r"\*(.+)\*", line)
        if not caption or i + 2 >= len(lines) or not lines[i + 2].startswith("|"):
            continue
        block = []
        for row in lines[i + 2:]:
            if not row.startswith("|"):
                break
            block.append([cell.strip() for cell in row.strip("|").split(" | ")])
        header, body = block[0], block[2:]
        tables[caption.group(1)] = [dict(zip(header, row)) for row in body]
    return tables


def number(cell: str) -> float:
    """'1,234' -> 1234.0; a percentage '21.4%' -> 0.214 (tables print rates and shares as percentages);
    percentage points '-4.3 points' -> -0.043 (a seat's edge, a difference of win rates)."""
    cell = cell.replace(",", "")
    if cell.endswith(" points"):
        return float(cell.removesuffix(" points")) / 100
    return float(cell[:-1]) / 100 if cell.endswith("%") else float(cell)


def percent(rate: float) -> str:
    """How a report table prints a rate or a share: 0.2135 -> '21.4%'."""
    from analysis.report import percent_cell

    return percent_cell("rate", rate)
