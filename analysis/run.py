"""A finished (or partly finished) run on disk, as the analysis sees it.

The folder's format (manifest, part files, done markers) is defined in
analysis/runfolder.py, which the writer (experiments/runner.py) uses too.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import polars as pl

from analysis import runfolder


@dataclass(frozen=True)
class Run:
    path: Path

    @classmethod
    def open(cls, path: str | Path) -> "Run":
        path = Path(path)
        if not runfolder.is_run_folder(path):
            raise FileNotFoundError(f"{path} is not a run folder (no manifest.json)")
        return cls(path)

    @cached_property
    def manifest(self) -> dict:
        return runfolder.read_manifest(self.path)

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
        return self.path / runfolder.REPORT

    def done_chunks(self) -> set[int]:
        """Chunks whose every table was written (the runner marks them last)."""
        return runfolder.done_chunks(self.path)

    def parts(self, table: str) -> list[Path]:
        """The table's part files of finished chunks only: an interrupted
        chunk may have renamed some tables' parts before its marker."""
        done = self.done_chunks()
        return [p for p in runfolder.part_files(self.path, table) if runfolder.part_chunk(p) in done]

    def tables(self) -> list[str]:
        return sorted(p.name for p in self.path.iterdir() if p.is_dir() and self.parts(p.name))

    def scan(self, table: str) -> pl.LazyFrame:
        files = self.parts(table) if (self.path / table).is_dir() else []
        if not files:
            raise FileNotFoundError(f"run {self.path} has no '{table}' table")
        return pl.scan_parquet(files)

    def load(self, table: str) -> pl.DataFrame:
        return self.scan(table).collect()
