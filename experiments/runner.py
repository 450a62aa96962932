"""Batch runs: N games of one variant and line-up, in chunks, on any backend.

Game i depends only on (seed, i); a chunk is the games [k*C, (k+1)*C), so
the same run gives the same tables on one worker, two workers or a Dask
cluster (tested). Workers return plain numpy columns; only this process
writes files, one Parquet part per chunk and table, each written to a
temporary name and renamed, then a `_done/<chunk>` marker. Killing a run
therefore never leaves a half-written part that counts, and running the same
command again resumes from the chunks that are missing. Memory stays flat:
at most a few chunks are in flight whatever the number of games.
"""
from __future__ import annotations

import contextlib
import hashlib
import datetime as dt
import importlib.metadata
import json
import os
import platform
import subprocess
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from analysis import runfolder
from analysis.run import Run
from engines.core.lineup import Lineup, make_lineup
from engines.core.spec import GameSpec
from engines.core.variant import Variant
from engines.registry import get_game

DEFAULT_RESULTS = Path("results")
MAX_CHUNK = 10_000
MIN_CHUNK = 250
BACKENDS = ("joblib", "dask")


class RunError(ValueError):
    """A run that cannot start as asked; the message is one line for a user."""


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's results (and nothing that does not)."""

    game: str
    variant: Variant
    players: int
    lineup: Lineup
    seed: int
    chunk_size: int
    source_digest: str = ""   # the engine's source (GameSpec.source_digest): an edited rule is another run

    def key(self, engine_version: str) -> dict[str, Any]:
        """What must match for a folder's chunks to be reused (resume, cache):
        the engine's source digest and the variant's digest together, so no
        edit to a rule or a rule value can reuse games played before it."""
        return {
            "game": self.game,
            "engine_version": engine_version,
            "source_digest": self.source_digest,
            "variant_digest": self.variant.digest,
            "players": self.players,
            "lineup": self.lineup.labels,
            "rotate": self.lineup.rotate,
            "seed": self.seed,
            "chunk_size": self.chunk_size,
        }


@dataclass(frozen=True)
class ChunkTask:
    game: str
    variant: Variant
    players: int
    policy_ids: np.ndarray
    weights: np.ndarray
    rotate: bool
    seed: int
    chunk: int
    start: int
    count: int


def default_chunk_size(n_games: int) -> int:
    """Depends on n_games only, never on the worker count (chunk-summed tables
    such as card use must not change with the number of workers)."""
    return int(min(MAX_CHUNK, max(MIN_CHUNK, n_games // 16)))


def simulate_chunk(task: ChunkTask) -> tuple[int, int, dict[str, dict[str, np.ndarray]], float]:
    """Runs in a worker: play one chunk and return its columns."""
    spec = get_game(task.game)
    t0 = time.perf_counter()
    kparams = spec.kernel_params(task.variant, task.players)
    tables = spec.simulate(kparams, task.policy_ids, task.weights, task.rotate, task.seed, task.start, task.count)
    return task.chunk, task.count, tables, time.perf_counter() - t0


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("skyline-lab", "numpy", "numba", "polars", "pyarrow", "pandas", "joblib"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            out[pkg] = importlib.metadata.version(pkg)
    with contextlib.suppress(Exception):
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent, timeout=5).stdout.strip()
        if sha:
            out["git"] = sha
    return out


def _writable_target(out: Path) -> None:
    """Refuse, before anything is written, a folder we could not write into
    (tried for real: permission bits say nothing to root or on read-only mounts)."""
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise RunError(f"cannot write results to {out}: {probe} is a file")
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as exc:
        raise RunError(f"cannot write results to {out}: {exc.strerror or exc}") from None


def prepare(
    game: str,
    *,
    variant: str | None = None,
    overrides: dict[str, Any] | None = None,
    players: int | None = None,
    policies: list[str] | None = None,
    rotate: bool = True,
    n_games: int = 10_000,
    seed: int = 0,
    chunk_size: int | None = None,
) -> tuple[GameSpec, RunConfig]:
    """Validate a request completely; raises RunError/VariantError/LineupError
    before any file is touched."""
    try:
        spec = get_game(game)
    except KeyError as exc:
        raise RunError(exc.args[0]) from None
    if n_games <= 0:
        raise RunError(f"the number of games must be positive, not {n_games}")
    if seed < 0 or seed >= 2**63:
        raise RunError(f"the seed must be between 0 and 2**63-1, not {seed}")
    resolved = spec.variants.load(variant, overrides)
    n_players = players or resolved.values.get("players") or spec.default_players
    if not spec.min_players <= n_players <= spec.max_players:
        raise RunError(f"{spec.title} is for {spec.min_players}-{spec.max_players} players, not {n_players}")
    lineup = make_lineup(spec, policies, n_players, rotate)
    spec.kernel_params(resolved, n_players)  # the kernel-side checks run now, not in a worker
    size = chunk_size or default_chunk_size(n_games)
    if size <= 0:
        raise RunError(f"the chunk size must be positive, not {size}")
    return spec, RunConfig(game, resolved, n_players, lineup, seed, size, spec.source_digest)


def default_run_name(config: RunConfig) -> str:

    # the name ignores n_games and chunking, so asking for more games extends the same folder;
    # it includes the engine's source digest, so an edited engine starts a new folder
    key = json.dumps({k: v for k, v in config.key("").items() if k != "chunk_size"}, sort_keys=True)
    short = hashlib.sha256(key.encode()).hexdigest()[:8]
    return f"{config.game}-{config.variant.name}-{config.players}p-seed{config.seed}-{short}"


def _iter_chunks(config: RunConfig, n_games: int) -> Iterator[tuple[int, int, int]]:
    chunk, start = 0, 0
    while start < n_games:
        count = min(config.chunk_size, n_games - start)
        yield chunk, start, count
        chunk += 1
        start += count


def _write_chunk(out: Path, spec: GameSpec, labels: list[str], chunk: int, n_games: int,
                 tables: dict[str, dict[str, np.ndarray]]) -> None:
    dictionary = pa.array(labels, type=pa.string())
    for name, columns in tables.items():
        if name not in spec.tables:
            raise RunError(f"{spec.game_id} returned an undeclared table '{name}'")
        arrays = {c: pa.array(columns[c]) for c in spec.tables[name].names}
        if "lineup_slot" in columns:
            slots = pa.array(np.asarray(columns["lineup_slot"], dtype=np.int32))
            arrays["policy"] = pa.DictionaryArray.from_arrays(slots, dictionary)
        (out / name).mkdir(exist_ok=True)
        tmp = runfolder.temp_part_path(out, name, chunk)
        pq.write_table(pa.table(arrays), tmp, compression="zstd")
        os.replace(tmp, runfolder.part_path(out, name, chunk))
    runfolder.write_done(out, chunk, n_games)


def _run_tasks(tasks: list[ChunkTask], workers: int, backend: str, scheduler: str | None) -> Iterable:
    if backend == "joblib":
        if workers == 1:
            return map(simulate_chunk, tasks)
        from joblib import Parallel, delayed

        return Parallel(n_jobs=workers, return_as="generator_unordered", pre_dispatch="2*n_jobs")(
            delayed(simulate_chunk)(t) for t in tasks
        )
    if backend == "dask":
        from experiments.dask_backend import run_on_dask

        return run_on_dask(simulate_chunk, tasks, workers, scheduler)
    raise RunError(f"unknown backend '{backend}' (known: {', '.join(BACKENDS)})")


def run_batch(
    game: str,
    *,
    variant: str | None = None,
    overrides: dict[str, Any] | None = None,
    players: int | None = None,
    policies: list[str] | None = None,
    rotate: bool = True,
    n_games: int = 10_000,
    seed: int = 0,
    out: str | Path | None = None,
    workers: int = 1,
    chunk_size: int | None = None,
    backend: str = "joblib",
    scheduler: str | None = None,
    progress: bool = True,
    fresh: bool = False,
) -> Run:
    """Play `n_games` games and write their tables under `out` (default
    results/<game>-<variant>-<P>p-seed<seed>-<hash>). An existing folder of
    the same configuration is resumed (or extended to more games); one of a
    different configuration is refused unless `fresh`."""
    if workers <= 0:
        raise RunError(f"workers must be positive, not {workers}")
    if backend not in BACKENDS:
        raise RunError(f"unknown backend '{backend}' (known: {', '.join(BACKENDS)})")
    spec, config = prepare(game, variant=variant, overrides=overrides, players=players, policies=policies,
                           rotate=rotate, n_games=n_games, seed=seed, chunk_size=chunk_size)
    out_path = Path(out) if out else DEFAULT_RESULTS / default_run_name(config)
    _writable_target(out_path)

    manifest_path = runfolder.manifest_path(out_path)
    key = config.key(spec.engine_version)
    if manifest_path.is_file() and not fresh:
        old = runfolder.read_manifest(out_path)
        if chunk_size is None and "chunk_size" in old:
            config = replace(config, chunk_size=int(old["chunk_size"]))  # a resumed run keeps its chunking
            key = config.key(spec.engine_version)
        if old.get("config_key") != key:
            raise RunError(f"{out_path} holds a different run; choose another --out or pass --fresh to replace it")
    elif out_path.exists() and any(out_path.iterdir()):
        if not fresh:
            raise RunError(f"{out_path} exists and is not a run folder; choose another --out")
    if fresh and out_path.exists():
        import shutil

        shutil.rmtree(out_path)
    out_path.mkdir(parents=True, exist_ok=True)

    done = runfolder.done_chunks(out_path)
    tasks = [
        ChunkTask(game, config.variant, config.players, config.lineup.policy_ids(),
                  config.lineup.weight_rows(spec.max_weights), config.lineup.rotate, seed, chunk, start, count)
        for chunk, start, count in _iter_chunks(config, n_games)
        if chunk not in done
    ]
    games_before = runfolder.games_done(out_path)

    manifest = {
        "run": out_path.name,
        "game": game,
        "title": spec.title,
        "players": config.players,
        "lineup": config.lineup.labels,
        "policies": {s.label: {"policy": s.info.name, "weights": s.weights} for s in config.lineup.seats},
        "rotate": config.lineup.rotate,
        "n_games": n_games,
        "seed": seed,
        "chunk_size": config.chunk_size,
        "variant": {"name": config.variant.name, "source": config.variant.source, "digest": config.variant.digest,
                    "overrides": config.variant.overrides, "values": config.variant.values},
        "engine_version": spec.engine_version,
        "source_digest": spec.source_digest,
        "config_key": key,
        "versions": _versions(),
        "backend": backend,
        "workers": workers,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "status": "running",
        "games_done": games_before,
        "timings": {},
    }
    runfolder.write_manifest(out_path, manifest)

    bar = _progress_bar(n_games, games_before, progress, f"{spec.title} {config.players}p")
    t0 = time.perf_counter()
    games_now, worker_seconds = 0, 0.0
    status = "complete"
    try:
        # no more workers than chunks: a small run stays in this process and starts at once
        n_workers = max(1, min(workers, len(tasks)))
        for chunk, count, tables, seconds in _run_tasks(tasks, n_workers, backend, scheduler):
            _write_chunk(out_path, spec, config.lineup.labels, chunk, count, tables)
            games_now += count
            worker_seconds += seconds
            if bar is not None:
                bar.update(count)
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        if bar is not None:
            bar.close()
        wall = time.perf_counter() - t0
        manifest["status"] = status
        manifest["games_done"] = runfolder.games_done(out_path)  # from the markers: exact even if interrupted mid-way
        manifest["timings"] = {
            "seconds": round(wall, 3),
            "games_this_session": games_now,
            "games_per_s": round(games_now / wall, 1) if wall > 0 and games_now else None,
            "worker_seconds": round(worker_seconds, 3),
        }
        runfolder.write_manifest(out_path, manifest)
    return Run.open(out_path)


def _progress_bar(total: int, initial: int, enabled: bool, label: str):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, unit="game", unit_scale=True, desc=label, smoothing=0.1)
