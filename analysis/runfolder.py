"""The run folder format, defined once: the writer (experiments/runner.py)
and every reader (analysis/run.py, the experiment cache) use these names.

    <run>/manifest.json                  config, resolved variant, seeds, versions, digests, timings
    <run>/<table>/part-NNNNNN.parquet    one file per chunk of games, per table
    <run>/<table>/.part-NNNNNN.parquet.tmp   a part being written (renamed when complete)
    <run>/_done/NNNNNN                   marker, written last: chunk NNNNNN is complete
                                         (JSON: {"games": number of games in the chunk})
    <run>/report/                        report.md, report.html and figures

A part counts only when its chunk's marker exists: an interrupted chunk may
have renamed some tables' parts before its marker.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

MANIFEST = "manifest.json"
DONE = "_done"
REPORT = "report"
PART_PREFIX = "part-"
PART_SUFFIX = ".parquet"


def manifest_path(run: Path) -> Path:
    return Path(run) / MANIFEST


def is_run_folder(run: Path) -> bool:
    return manifest_path(run).is_file()


def read_manifest(run: Path) -> dict:
    return json.loads(manifest_path(run).read_text())


def write_manifest(run: Path, manifest: dict) -> None:
    """Atomic: a reader sees the old manifest or the new one, never half of one."""
    path = manifest_path(run)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, default=_json_default))
    os.replace(tmp, path)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value)} to the manifest")


# --- parts ----------------------------------------------------------------------------------

def part_name(chunk: int) -> str:
    return f"{PART_PREFIX}{chunk:06d}{PART_SUFFIX}"


def part_path(run: Path, table: str, chunk: int) -> Path:
    return Path(run) / table / part_name(chunk)


def temp_part_path(run: Path, table: str, chunk: int) -> Path:
    """Where a part is written before the rename that makes it final."""
    return Path(run) / table / f".{part_name(chunk)}.tmp"


def part_chunk(path: Path) -> int:
    """The chunk number of a part file."""
    return int(Path(path).name[len(PART_PREFIX):-len(PART_SUFFIX)])


def part_files(run: Path, table: str) -> list[Path]:
    """Every final part file of `table`, finished chunk or not."""
    return sorted((Path(run) / table).glob(f"{PART_PREFIX}*{PART_SUFFIX}"))


# --- done markers -------------------------------------------------------------------------

def marker_path(run: Path, chunk: int) -> Path:
    return Path(run) / DONE / f"{chunk:06d}"


def write_done(run: Path, chunk: int, n_games: int) -> None:
    marker = marker_path(run, chunk)
    marker.parent.mkdir(exist_ok=True)
    marker.write_text(json.dumps({"games": n_games}))


def done_chunks(run: Path) -> set[int]:
    """Chunks whose every table was written (the writer marks them last)."""
    done = Path(run) / DONE
    return {int(p.name) for p in done.iterdir() if p.name.isdigit()} if done.is_dir() else set()


def games_done(run: Path) -> int:
    """Games in all finished chunks, from the markers."""
    return sum(json.loads(marker_path(run, c).read_text())["games"] for c in done_chunks(run))


def contiguous_games(run: Path) -> int:
    """Games in the unbroken run of finished chunks from chunk 0, for a folder
    whose chunks all hold the manifest's chunk_size games (0 if unreadable)."""
    if not is_run_folder(run):
        return 0
    try:
        chunk_size = int(read_manifest(run).get("chunk_size") or 0)
    except (json.JSONDecodeError, ValueError):
        return 0
    chunks = done_chunks(run)
    count = 0
    while count in chunks:
        count += 1
    return count * chunk_size
