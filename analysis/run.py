"""A finished (or partly finished) run on disk, as the analysis sees it.

The folder's format (manifest, part files, done markers) is defined in
analysis/runfolder.py, which the writer (experiments/runner.py) uses too.

Opening a run checks it (runfolder.verify): every done marker's parts must
be there with the size and checksum that were written. A damaged run is
refused with one line naming the first damaged chunk and the command that
repairs it (running the same `run` command again re-simulates exactly the
damaged chunks: game i depends only on (seed, i)). A run that is merely
unfinished (interrupted, killed) opens, and says how many games it holds,
counted from the verified markers, never from the manifest's own count.
"""
from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from analysis import runfolder
from analysis.runfolder import RunDamaged, RunFolderError  # noqa: F401 - re-exported for callers

if TYPE_CHECKING:
    import polars as pl


def resume_command(path: Path, manifest: dict) -> str | None:
    """The `skyline-lab run` command that resumes or repairs the run in `path`
    (the runner records it without --out, so a moved or copied folder names itself)."""
    command = manifest.get("command")
    if not isinstance(command, str) or not command:
        return None
    import shlex

    return f"{command} --out {shlex.quote(str(path))}"


def repair_hint(path: Path, manifest: dict) -> str:
    command = resume_command(path, manifest)
    return (f"run `{command}` to re-simulate them" if command
            else "run the same `skyline-lab run` command again to re-simulate them")


@dataclass(frozen=True)
class Run:
    path: Path
    check: runfolder.Check | None = field(default=None, compare=False, repr=False)

    @classmethod
    def open(cls, path: str | Path, verify: bool = True, checksums: bool = True) -> "Run":
        """Open a run folder; RunFolderError (one line) for a folder that is not
        a readable run, RunDamaged for one whose finished chunks do not check out."""
        path = Path(path)
        if not runfolder.is_run_folder(path):
            raise RunFolderError(f"{path} is not a run folder (no manifest.json)")
        manifest = runfolder.read_manifest(path)
        check = None
        if verify:
            check = runfolder.verify(path, manifest, checksums=checksums)
            if check.damaged:
                raise RunDamaged(f"{path} is damaged: {check.first_problem()}; {repair_hint(path, manifest)}")
            if manifest.get("status") == "complete" and check.missing_chunks:
                missing = check.missing_chunks
                raise RunDamaged(f"{path} is damaged: its manifest says complete but {missing:,} "
                                 f"chunk{'s' * (missing > 1)} of games {'are' if missing > 1 else 'is'} missing; "
                                 f"{repair_hint(path, manifest)}")
        run = cls(path, check)
        run.__dict__["manifest"] = manifest  # cached_property slot: read once
        return run

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

    @property
    def games_done(self) -> int:
        """Games in verified finished chunks (the manifest's own count is not
        believed: a killed run never updated it)."""
        if self.check is not None:
            return self.check.games
        return runfolder.games_done(self.path)

    @property
    def n_games(self) -> int | None:
        value = self.manifest.get("n_games")
        return int(value) if isinstance(value, int) else None

    @property
    def is_partial(self) -> bool:
        return self.n_games is not None and self.games_done < self.n_games

    @property
    def status(self) -> str:
        """The manifest's status, except that a run marked "running" whose
        process is gone (killed) is "stopped"."""
        status = str(self.manifest.get("status", "?"))
        if status == "running" and not _still_running(self.manifest):
            return "stopped (the process that ran it is gone)"
        return status

    def done_chunks(self) -> set[int]:
        """Finished chunks: verified ones when the run was opened with checks."""
        if self.check is not None:
            return set(self.check.good)
        return runfolder.done_chunks(self.path)

    def parts(self, table: str) -> list[Path]:
        """The table's part files of finished chunks only: an interrupted
        chunk may have renamed some tables' parts before its marker."""
        done = self.done_chunks()
        return [p for p in runfolder.part_files(self.path, table) if runfolder.part_chunk(p) in done]

    def tables(self) -> list[str]:
        return [name for name in runfolder.table_dirs(self.path) if self.parts(name)]

    def scan(self, table: str) -> pl.LazyFrame:
        files = self.parts(table) if (self.path / table).is_dir() else []
        if not files:
            raise FileNotFoundError(f"run {self.path} has no '{table}' table")
        # imported here, not at the top: the runner opens run folders on every CLI start and
        # never reads a table, and polars costs about 0.15 s to import
        import polars as pl

        return pl.scan_parquet(files)

    def game_range(self) -> tuple[int, int] | None:
        """(first, last) game id in the finished chunks' games table; None without one."""
        if "games" not in self.tables():
            return None
        import polars as pl

        low, high = self.scan("games").select(pl.col("game").min(), pl.col("game").max().alias("high")).collect().row(0)
        return None if low is None else (int(low), int(high))

    def load(self, table: str) -> pl.DataFrame:
        return self.scan(table).collect()


def _still_running(manifest: dict) -> bool:
    """Whether the process named in the manifest is alive (True when unknown:
    another host, or an old manifest without a pid)."""
    pid, host = manifest.get("pid"), manifest.get("host")
    if not isinstance(pid, int) or host != platform.node():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
