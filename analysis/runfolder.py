"""The run folder format, defined once: the writer (experiments/runner.py)
and every reader (analysis/run.py, the experiment cache) use these names.

    <run>/manifest.json                  config, resolved variant, seeds, versions, digests,
                                         status, sessions (timings of every session)
    <run>/<table>/part-NNNNNN.parquet    one file per chunk of games, per table
    <run>/<table>/.part-NNNNNN.parquet.tmp   a part being written (renamed when complete)
    <run>/_done/NNNNNN                   marker, written last: chunk NNNNNN is complete
                                         (JSON: {"games": games in the chunk, "tables":
                                         {table: {"rows", "bytes", "sha256"} of its part}})
    <run>/report/                        report.md, report.html (self-contained) and figures
    <run>/.lock                          held (flock) by the one process writing the folder

Chunks lie on a fixed grid: chunk k holds games [k*C, k*C + count) with C the
run's chunk size, and count = C except for the last chunk of the run's
n_games. A chunk counts as finished only when its marker's game count is the
count the plan asks for (so the short last chunk of a 5,000-game run is
redone, longer, when the run is extended to 10,000) and every part it lists
is there with its size and checksum. `verify` checks exactly that and
returns one-line reasons for whatever is wrong; nothing here raises a
traceback at a user for a damaged folder.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import numpy as np

MANIFEST = "manifest.json"
DONE = "_done"
REPORT = "report"
PART_PREFIX = "part-"
PART_SUFFIX = ".parquet"
_PART_NAME = re.compile(r"^part-(\d{6,})\.parquet$")
_MARKER_NAME = re.compile(r"^\d{6,}$")
# the folders of a run that are not tables
NOT_TABLES = {DONE, REPORT}
LOCK = ".lock"
# every top-level file a run folder may hold (anything else is not ours to delete)
RUN_FILES = {MANIFEST, MANIFEST + ".tmp", LOCK}


class RunFolderError(ValueError):
    """A run folder that cannot be read as it is; the message is one line for a user."""


class RunDamaged(RunFolderError):
    """A run folder whose finished chunks do not check out (missing, truncated or changed parts)."""


class RunLocked(RunFolderError):
    """Another process is writing this run folder."""


def manifest_path(run: Path) -> Path:
    return Path(run) / MANIFEST


def is_run_folder(run: Path) -> bool:
    return manifest_path(run).is_file()


def read_manifest(run: Path) -> dict:
    """The manifest, or RunFolderError with one line saying what is wrong with it."""
    path = manifest_path(run)
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise RunFolderError(f"{run} is not a run folder (no {MANIFEST})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunFolderError(f"{path} is unreadable ({_short(exc)})") from None
    if not isinstance(manifest, dict):
        raise RunFolderError(f"{path} is not a run manifest (not a JSON object)")
    for key, kind in (("game", str), ("players", int), ("lineup", list)):
        if not isinstance(manifest.get(key), kind):
            raise RunFolderError(f"{path} is not a run manifest ('{key}' is missing or not a {kind.__name__})")
    return manifest


def write_manifest(run: Path, manifest: dict) -> None:
    """Atomic: a reader sees the old manifest or the new one, never half of one."""
    path = manifest_path(run)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, default=_json_default))
    os.replace(tmp, path)


# --- what may be deleted, and who may write -----------------------------------------------

def not_replaceable(run: Path) -> str:
    """Why `run` may NOT be deleted to be replaced by a fresh run ('' when it may): only a
    folder this tool wrote (a manifest it recognises) holding nothing but what a run writes
    (the manifest, `_done/` markers, `report/`, table folders of part files). A user's
    folder, `.`, a results root holding runs, a git checkout: each is refused, untouched."""
    run = Path(run)
    try:
        resolved = run.resolve()
    except OSError as exc:
        return f"{run} cannot be resolved ({_short(exc)})"
    cwd = Path.cwd().resolve()
    if resolved == cwd or resolved in cwd.parents:
        return f"{run} is the current folder or one of its parents"
    if resolved == Path.home().resolve() or resolved == Path(resolved.anchor):
        return f"{run} is a home or root folder"
    if not manifest_path(run).is_file():
        return f"{run} is not a run folder of skyline-lab (no {MANIFEST})"
    try:
        manifest = read_manifest(run)
    except RunFolderError as exc:
        return f"{exc}, so it is not known to be a run folder"
    if "config_key" not in manifest or "sessions" not in manifest:
        return f"{manifest_path(run)} was not written by `skyline-lab run` (no config_key or sessions)"
    for entry in sorted(run.iterdir()):
        name = entry.name
        if entry.is_symlink():
            return f"{run} holds a link ({name}) that a run does not write"
        if entry.is_file():
            if name not in RUN_FILES:
                return f"{run} holds a file a run does not write ({name})"
            continue
        if not entry.is_dir():
            return f"{run} holds {name}, which a run does not write"
        if name == REPORT:
            continue  # the report is rebuilt from the tables at any time
        for inner in entry.iterdir():
            ok = (_MARKER_NAME.match(inner.name) or inner.name.endswith(".tmp")) if name == DONE else \
                (_PART_NAME.match(inner.name) or inner.name.endswith(".parquet.tmp"))
            if not ok or not inner.is_file() or inner.is_symlink():
                return f"{run} holds {name}/{inner.name}, which a run does not write"
    return ""


def clear_run(run: Path) -> int:
    """Delete a run folder's contents (checked by not_replaceable first), keeping its lock
    file so the caller keeps holding the lock. Returns the games it held."""
    import shutil

    reason = not_replaceable(run)
    if reason:
        raise RunFolderError(reason)
    held = games_done(run)
    for entry in Path(run).iterdir():
        if entry.name == LOCK:
            continue
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    return held


@contextlib.contextmanager
def writer_lock(run: Path):
    """Hold `<run>/.lock` (flock, exclusive) while writing the folder. A second writer is
    refused at once (RunLocked, one line naming the holder), never left to interleave
    manifests: both used to claim success. The lock dies with its process (kill -9 too)."""
    import fcntl

    path = Path(run) / LOCK
    handle = open(path, "a+")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise RunLocked(f"{run} is being written by another skyline-lab process ({holder}); "
                            "wait for it to finish, or choose another --out") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} on {platform.node()}")
        handle.flush()
        yield
    finally:
        handle.close()


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value)} to the manifest")


def _short(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


# --- the chunk plan -------------------------------------------------------------------------

def n_chunks(n_games: int, chunk_size: int) -> int:
    return -(-int(n_games) // int(chunk_size))


def planned_count(chunk: int, n_games: int, chunk_size: int) -> int:
    """Games chunk `chunk` holds in a run of `n_games` (0: not part of it)."""
    start = chunk * chunk_size
    return max(0, min(chunk_size, n_games - start))


def plan_chunks(n_games: int, chunk_size: int, skip: set[int] | frozenset = frozenset()) -> Iterator[tuple[int, int, int]]:
    """(chunk, start, count) of every chunk not in `skip`, lazily: a run of
    10**12 games is planned one chunk at a time, never as a list."""
    if chunk_size <= 0:
        raise ValueError(f"the chunk size must be positive, not {chunk_size}")
    chunk, start = 0, 0
    while start < n_games:
        count = min(chunk_size, n_games - start)
        if chunk not in skip:
            yield chunk, start, count
        chunk += 1
        start += count


# --- parts ----------------------------------------------------------------------------------

def part_name(chunk: int) -> str:
    return f"{PART_PREFIX}{chunk:06d}{PART_SUFFIX}"


def part_path(run: Path, table: str, chunk: int) -> Path:
    return Path(run) / table / part_name(chunk)


def temp_part_path(run: Path, table: str, chunk: int) -> Path:
    """Where a part is written before the rename that makes it final."""
    return Path(run) / table / f".{part_name(chunk)}.tmp"


def part_chunk(path: Path) -> int | None:
    """The chunk number of a part file (None: not a part file name)."""
    match = _PART_NAME.match(Path(path).name)
    return int(match.group(1)) if match else None


def part_files(run: Path, table: str) -> list[Path]:
    """Every final part file of `table`, finished chunk or not (a file whose
    name is not exactly a part name, e.g. 'part-000001 copy.parquet', is not one)."""
    folder = Path(run) / table
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if _PART_NAME.match(p.name))


def table_dirs(run: Path) -> list[str]:
    return sorted(p.name for p in Path(run).iterdir() if p.is_dir() and p.name not in NOT_TABLES
                  and not p.name.startswith("."))


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def part_record(path: Path, rows: int) -> dict:
    """What a done marker records of one part: enough to tell a missing,
    truncated, swapped or changed file from the one that was written."""
    return {"rows": int(rows), "bytes": Path(path).stat().st_size, "sha256": file_digest(path)}


# --- done markers -------------------------------------------------------------------------

def marker_path(run: Path, chunk: int) -> Path:
    return Path(run) / DONE / f"{chunk:06d}"


def write_done(run: Path, chunk: int, n_games: int, tables: dict[str, dict] | None = None) -> None:
    """Written last, atomically (a marker is whole or absent)."""
    marker = marker_path(run, chunk)
    marker.parent.mkdir(exist_ok=True)
    tmp = marker.parent / f".{marker.name}.tmp"
    tmp.write_text(json.dumps({"games": int(n_games), "tables": tables or {}}))
    os.replace(tmp, marker)


def marker_chunks(run: Path) -> set[int]:
    """Chunks with a marker file (checked or not); other files in _done/ are ignored."""
    done = Path(run) / DONE
    if not done.is_dir():
        return set()
    return {int(p.name) for p in done.iterdir() if _MARKER_NAME.match(p.name)}


def done_chunks(run: Path) -> set[int]:
    """Chunks whose marker exists (unchecked; `verify` checks them)."""
    return marker_chunks(run)


@dataclass
class Check:
    """What `verify` found in a run folder."""

    good: dict[int, int] = field(default_factory=dict)       # chunk -> games, verified
    damaged: dict[int, str] = field(default_factory=dict)    # chunk -> one-line reason
    short: set[int] = field(default_factory=set)             # finished with fewer games than the plan asks (extend)
    ignored: list[str] = field(default_factory=list)         # stray files, not read
    n_games: int | None = None                               # planned games (manifest)
    chunk_size: int | None = None
    checksums: bool = True

    @property
    def games(self) -> int:
        return sum(self.good.values())

    @property
    def planned_chunks(self) -> int | None:
        if self.n_games is None or not self.chunk_size:
            return None
        return n_chunks(self.n_games, self.chunk_size)

    @property
    def missing_chunks(self) -> int:
        planned = self.planned_chunks
        return 0 if planned is None else planned - len(self.good)

    @property
    def complete(self) -> bool:
        return not self.damaged and (self.missing_chunks == 0 if self.planned_chunks is not None
                                     else True)

    def first_problem(self) -> str:
        """One line: the first damaged chunk's reason and how many more."""
        if not self.damaged:
            return ""
        chunk = min(self.damaged)
        more = len(self.damaged) - 1
        return self.damaged[chunk] + (f" (and {more} more damaged chunk{'s' * (more > 1)})" if more else "")


def _read_marker(run: Path, chunk: int) -> dict | None:
    """The marker's content; {} for an empty (old-style) marker; None if unreadable."""
    try:
        text = marker_path(run, chunk).read_text()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _parquet_rows(path: Path) -> int | None:
    import pyarrow.parquet as pq

    try:
        return pq.read_metadata(path).num_rows
    except Exception:  # noqa: BLE001 - any unreadable file is a damaged part, reported in one line
        return None


def verify(run: Path, manifest: dict | None = None, checksums: bool = True) -> Check:
    """Check every done marker against its parts (existence, size, and with
    `checksums` the sha256), and the markers against the plan in the
    manifest. Never raises for a damaged folder: the reasons are in the Check."""
    run = Path(run)
    manifest = read_manifest(run) if manifest is None else manifest
    check = Check(checksums=checksums)
    try:
        check.n_games = int(manifest["n_games"]) if manifest.get("n_games") is not None else None
        check.chunk_size = int(manifest["chunk_size"]) if manifest.get("chunk_size") else None
    except (TypeError, ValueError):
        raise RunFolderError(f"{manifest_path(run)} is not a run manifest (bad n_games or chunk_size)") from None
    done = run / DONE
    if done.is_dir():
        check.ignored += [f"{DONE}/{p.name}" for p in done.iterdir()
                          if not _MARKER_NAME.match(p.name) and not p.name.endswith(".tmp")]
    tables = table_dirs(run) if run.is_dir() else []
    for table in tables:
        check.ignored += [f"{table}/{p.name}" for p in (run / table).iterdir()
                          if not _PART_NAME.match(p.name) and not p.name.endswith(".tmp")]
    for chunk in sorted(marker_chunks(run)):
        where = f"chunk {chunk} (games from {chunk * check.chunk_size:,})" if check.chunk_size else f"chunk {chunk}"
        marker = _read_marker(run, chunk)
        if marker is None:
            check.damaged[chunk] = f"{where}: its done marker is unreadable"
            continue
        expected = None
        if check.chunk_size and check.n_games is not None:
            expected = planned_count(chunk, check.n_games, check.chunk_size)
            if expected == 0:
                check.damaged[chunk] = f"{where}: a done marker for a chunk outside the run's {check.n_games:,} games"
                continue
        records = marker.get("tables")
        if records:  # a marker written with its parts' row counts and checksums
            reason = _check_parts(run, chunk, records, checksums)
            games = marker.get("games")
        else:  # an old-style marker: the parts must exist and be readable Parquet
            reason, games = _check_parts_plain(run, chunk, tables)
            games = marker.get("games", games)
        if reason:
            check.damaged[chunk] = f"{where}: {reason}"
            continue
        if not isinstance(games, int) or games <= 0:
            check.damaged[chunk] = f"{where}: its done marker has no game count"
        elif expected is not None and games < expected:
            check.short.add(chunk)  # finished as the short last chunk of a smaller run: redo it longer
        elif expected is not None and games > expected:
            check.damaged[chunk] = f"{where}: holds {games:,} games where the plan has {expected:,}"
        else:
            check.good[chunk] = games
    return check


def _check_parts(run: Path, chunk: int, records: dict, checksums: bool) -> str:
    for table, record in sorted(records.items()):
        path = part_path(run, table, chunk)
        if not path.is_file():
            return f"its {table} part {table}/{path.name} is missing"
        size = path.stat().st_size
        if isinstance(record, dict) and record.get("bytes") is not None and size != record["bytes"]:
            kind = "truncated" if size < record["bytes"] else "changed"
            return f"its {table} part {table}/{path.name} is {kind} ({size:,} bytes, written {record['bytes']:,})"
        if checksums and isinstance(record, dict) and record.get("sha256") and file_digest(path) != record["sha256"]:
            return f"its {table} part {table}/{path.name} has changed since it was written (checksum differs)"
    return ""


def _check_parts_plain(run: Path, chunk: int, tables: list[str]) -> tuple[str, int | None]:
    games = None
    for table in tables:
        path = part_path(run, table, chunk)
        if not path.is_file():
            return f"its {table} part {table}/{path.name} is missing", None
        rows = _parquet_rows(path)
        if rows is None:
            return f"its {table} part {table}/{path.name} is not readable Parquet", None
        if table == "games":
            games = rows
    return "", games


def games_done(run: Path, checksums: bool = False) -> int:
    """Games in all finished chunks whose parts check out (sizes; with
    `checksums` also the sha256)."""
    if not is_run_folder(run):
        return 0
    try:
        return verify(run, checksums=checksums).games
    except RunFolderError:
        return 0


def contiguous_games(run: Path) -> int:
    """Games in the unbroken run of verified chunks from chunk 0 (0 if unreadable)."""
    if not is_run_folder(run):
        return 0
    try:
        check = verify(run, checksums=False)
    except RunFolderError:
        return 0
    count, chunk = 0, 0
    while chunk in check.good:
        count += check.good[chunk]
        chunk += 1
    return count
