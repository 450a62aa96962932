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
    return float(cell.replace(",", ""))
