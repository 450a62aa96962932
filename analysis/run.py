"""A finished (or partly finished) run on disk, as the analysis sees it.

Layout written by `engines.core.runner`:

    results/<run>/manifest.json          config, resolved variant, seeds, versions, timings
    results/<run>/<table>/part-NNNNNN.parquet   one file per chunk of games, per table
    results/<run>/_done/NNNNNN           marker: chunk NNNNNN is complete
    results/<run>/report/                report.md, report.html and figures
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import polars as pl


@dataclass(frozen=True)
class Run:
    path: Path

    @classmethod
    def open(cls, path: str | Path) -> "Run":
        path = Path(path)
        if not (path / "manifest.json").is_file():
            raise FileNotFoundError(f"{path} is not a run folder (no manifest.json)")
        return cls(path)

    @cached_property
    def manifest(self) -> dict:
        return json.loads((self.path / "manifest.json").read_text())

    @property
    def game_id(self) -> str:
        return self.manifest["game"]

    @property
    def n_players(self) -> int:
        return int(self.manifest["players"])

    @property
    def lineup(self) -> list[str]:
        """Policy label per line-up slot."""
        return list(self.manifest["lineup"])

    @property
    def report_dir(self) -> Path:
        return self.path / "report"

    def done_chunks(self) -> set[int]:
        """Chunks whose every table was written (the runner marks them last)."""
        done = self.path / "_done"
        return {int(p.name) for p in done.iterdir()} if done.is_dir() else set()

    def parts(self, table: str) -> list[Path]:
        """The table's part files of finished chunks only: an interrupted
        chunk may have renamed some tables' parts before its marker."""
        done = self.done_chunks()
        return sorted(p for p in (self.path / table).glob("part-*.parquet") if int(p.stem[5:]) in done)

    def tables(self) -> list[str]:
        return sorted(p.name for p in self.path.iterdir() if p.is_dir() and self.parts(p.name))

    def scan(self, table: str) -> pl.LazyFrame:
        files = self.parts(table) if (self.path / table).is_dir() else []
        if not files:
            raise FileNotFoundError(f"run {self.path} has no '{table}' table")
        return pl.scan_parquet(files)

    def load(self, table: str) -> pl.DataFrame:
        return self.scan(table).collect()
