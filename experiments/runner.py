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
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from analysis import runfolder
from analysis.run import Run
from engines.core.lineup import Lineup, make_lineup
from engines.core.presets import PresetError
from engines.core.spec import GameSpec
from engines.core.variant import Variant
from engines.registry import get_game
from experiments.user_presets import used_presets, with_user_presets

DEFAULT_RESULTS = Path("results")
MAX_CHUNK = 10_000
MIN_CHUNK = 250
BACKENDS = ("joblib", "dask")
COMPILE_NOTICE_AFTER = 1.0  # seconds of warm-up before the user is told the engine is being compiled


class RunError(ValueError):
    """A run that cannot start as asked; the message is one line for a user."""


class DifferentRunError(RunError):
    """The folder asked for holds a run of another configuration (a caller that plays into folders
    of its own, as the ladder does, says so in its own words)."""


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
    # the user's presets the line-up seats, by value (JSON; experiments.user_presets): "" for none,
    # so a run without one keeps the key it always had
    user_presets: str = ""

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
            **({"user_presets": json.loads(self.user_presets)} if self.user_presets else {}),
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
    parent_pid: int = 0   # the run's process: a worker exits when it is gone (0: not watched)


def default_chunk_size(n_games: int) -> int:
    """Depends on n_games only, never on the worker count (chunk-summed tables
    such as card use must not change with the number of workers)."""
    return int(min(MAX_CHUNK, max(MIN_CHUNK, n_games // 16)))


@dataclass(frozen=True)
class ChunkTiming:
    """Where a chunk's worker spent its time: loading the engine (its first chunk of a
    configuration in this process: import, compiled-code cache load, one warm-up game) apart
    from simulating the chunk; `start` is the wall-clock (time.time) start of the simulation."""

    load: float
    simulate: float
    start: float


_WARM: set = set()   # (game, variant digest, players, policy ids) already loaded in this process


def simulate_chunk(task: ChunkTask) -> tuple[int, int, dict[str, dict[str, np.ndarray]], ChunkTiming]:
    """Runs in a worker: play one chunk and return its columns, with the time spent loading
    the engine apart from the time spent playing."""
    _watch_parent(task.parent_pid)
    t_load = time.perf_counter()
    spec = get_game(task.game)
    kparams = spec.kernel_params(task.variant, task.players)
    warm_key = (task.game, task.variant.digest, task.players, tuple(task.policy_ids.tolist()))
    if warm_key not in _WARM:
        # the first call loads every compiled kernel of the line-up from numba's cache
        spec.simulate(kparams, task.policy_ids, task.weights, task.rotate, task.seed, task.start, 1)
        _WARM.add(warm_key)
    load = time.perf_counter() - t_load
    start, t0 = time.time(), time.perf_counter()
    tables = spec.simulate(kparams, task.policy_ids, task.weights, task.rotate, task.seed, task.start, task.count)
    return task.chunk, task.count, tables, ChunkTiming(load, time.perf_counter() - t0, start)


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
        spec = with_user_presets(get_game(game))
    except KeyError as exc:
        raise RunError(exc.args[0]) from None
    except PresetError as exc:
        raise RunError(f"user presets: {exc}") from None
    if n_games <= 0:
        raise RunError(f"the number of games must be positive, not {n_games}")
    if seed < 0 or seed >= 2**63:
        raise RunError(f"the seed must be between 0 and 2**63-1, not {seed}")
    resolved = spec.variants.load(variant, overrides)
    # None: the variant's count, else the game's; 0 is refused below, never read as "default"
    n_players = players if players is not None else (resolved.values.get("players") or spec.default_players)
    if not spec.min_players <= n_players <= spec.max_players:
        raise RunError(f"{spec.title} is for {spec.min_players}-{spec.max_players} players, not {n_players}")
    # no line-up given: the one the game declares (GameSpec.default_lineup), as the CLI plays it;
    # it used to be random in every seat here (run_batch, experiment files without `policies`)
    lineup = make_lineup(spec, None if policies is None else list(policies), n_players, rotate)
    spec.kernel_params(resolved, n_players)  # the kernel-side checks run now, not in a worker
    size = default_chunk_size(n_games) if chunk_size is None else chunk_size   # 0 is refused, not "default"
    if size <= 0:
        raise RunError(f"the chunk size must be positive, not {size}")
    used = used_presets(spec, lineup)
    return spec, RunConfig(game, resolved, n_players, lineup, seed, size, spec.source_digest,
                           json.dumps({k: {"base": v["base"], "weights": v["weights"]} for k, v in used.items()},
                                      sort_keys=True) if used else "")


def rules_text(variant: str | None, overrides: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> str:
    """The rules a command plays, in words for its report: the variant and the --set changes on
    top, e.g. "variant default, sky.sun_bonus = 30"."""
    items = overrides.items() if isinstance(overrides, Mapping) else overrides
    return f"variant {variant or 'default'}" + "".join(f", {k} = {v!r}" for k, v in items)


def rules_options(variant: str | None, sets: Iterable[str] = ()) -> str:
    """The same rules as command-line options (" --variant V --set K=V ..."; empty on the
    default rules), quoted for a shell: what a printed command needs to play them again."""
    return "".join([f" --variant {shlex.quote(variant)}" if variant else "",
                    *(f" --set {shlex.quote(s)}" for s in sets)])


def default_run_name(config: RunConfig) -> str:

    # the name ignores n_games and chunking, so asking for more games extends the same folder;
    # it includes the engine's source digest, so an edited engine starts a new folder
    key = json.dumps({k: v for k, v in config.key("").items() if k != "chunk_size"}, sort_keys=True)
    short = hashlib.sha256(key.encode()).hexdigest()[:8]
    return f"{config.game}-{config.variant.name}-{config.players}p-seed{config.seed}-{short}"


def _iter_chunks(config: RunConfig, n_games: int) -> Iterator[tuple[int, int, int]]:
    return runfolder.plan_chunks(n_games, config.chunk_size)


def _arrow_column(values: np.ndarray) -> pa.Array:
    """A numpy column as an Arrow array without a copy. Numeric columns are wrapped from their
    buffer: `pa.array(ndarray)` would import pandas (pyarrow asks it whether the input is a
    pandas object), a third of a second on every CLI start and every worker's first chunk.
    The Arrow array is the one `pa.array` gives (same type, same values, no nulls)."""
    values = np.asarray(values)
    if values.dtype.kind not in "iuf" or values.ndim != 1:
        return pa.array(values)
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def _arrow_strings(labels: list[str]) -> pa.Array:
    """Line-up labels as an Arrow string array, built from its buffers (no pandas import)."""
    encoded = [label.encode() for label in labels]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    offsets[1:] = np.cumsum([len(b) for b in encoded])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded) or b" ")])


def _write_chunk(out: Path, spec: GameSpec, labels: list[str], chunk: int, n_games: int,
                 tables: dict[str, dict[str, np.ndarray]]) -> None:
    # the policy column's dictionary holds each label once: with a label repeated (two random
    # seats) pyarrow's Parquet writer wrote the dictionary page in either of two byte orders,
    # at random (measured: 112 against 88 in 200 writes of one table), so a seeded run was the
    # same table but not the same file
    unique = list(dict.fromkeys(labels))
    dictionary = _arrow_strings(unique)
    label_index = np.array([unique.index(label) for label in labels], dtype=np.int32)
    records = {}
    for name, columns in tables.items():
        if name not in spec.tables:
            raise RunError(f"{spec.game_id} returned an undeclared table '{name}'")
        arrays = {c: _arrow_column(columns[c]) for c in spec.tables[name].names}
        if "lineup_slot" in columns:
            policy = label_index[columns["lineup_slot"]]
            arrays["policy"] = pa.DictionaryArray.from_arrays(_arrow_column(policy), dictionary)
        (out / name).mkdir(exist_ok=True)
        tmp = runfolder.temp_part_path(out, name, chunk)
        table = pa.Table.from_arrays(list(arrays.values()), names=list(arrays))
        pq.write_table(table, tmp, compression="zstd")
        records[name] = runfolder.part_record(tmp, table.num_rows)  # checksum of the bytes as written
        os.replace(tmp, runfolder.part_path(out, name, chunk))
    runfolder.write_done(out, chunk, n_games, records)


def _watch_parent(parent_pid: int) -> None:
    """In a worker process: exit as soon as the run's process is gone (killed
    with -9, say), instead of idling on for minutes holding its memory."""
    global _WATCHING
    if _WATCHING or parent_pid in (0, os.getpid()):
        return
    _WATCHING = True
    import threading

    def watch() -> None:
        while True:
            try:
                os.kill(parent_pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass
            if os.getppid() == 1:  # re-parented to init: our parent died
                os._exit(1)
            time.sleep(0.5)

    threading.Thread(target=watch, name="skyline-lab-parent-watch", daemon=True).start()


_WATCHING = False


def _run_tasks(tasks: Iterable[ChunkTask], workers: int, backend: str, scheduler: str | None) -> Iterable:
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


def _check_backend(backend: str, scheduler: str | None = None) -> None:
    """Refuse, before anything is written, a backend that is not installed."""
    if backend not in BACKENDS:
        raise RunError(f"unknown backend '{backend}' (known: {', '.join(BACKENDS)})")
    if backend == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise RunError("the dask backend needs Dask: pip install 'dask[distributed]' "
                           "(or run without --backend dask)") from None
    if scheduler:
        _check_scheduler(scheduler)


SCHEDULER_TIMEOUT = 5.0  # seconds to reach a Dask scheduler before the run is refused


def _check_scheduler(address: str) -> None:
    """Refuse, in one line and within seconds, a scheduler nobody answers at (Dask's own
    client waited 30 s, then printed a 186-line traceback after the run folder was written)."""
    import socket
    from urllib.parse import urlparse

    parsed = urlparse(address if "://" in address else f"tcp://{address}")
    if parsed.scheme not in ("tcp", "tls"):
        return  # inproc://, ucx://: left to Dask
    try:
        host, port = parsed.hostname, parsed.port or 8786
    except ValueError:
        raise RunError(f"--scheduler {address} is not an address of the form tcp://host:port") from None
    if not host:
        raise RunError(f"--scheduler {address} is not an address of the form tcp://host:port")
    try:
        with socket.create_connection((host, port), timeout=SCHEDULER_TIMEOUT):
            pass
    except OSError as exc:
        raise RunError(f"no Dask scheduler answers at {address} ({exc.strerror or exc}); "
                       "start one (dask scheduler) or run without --scheduler") from None


def repeat_command(config: RunConfig, n_games: int, variant: str | None,
                   overrides: dict[str, Any] | None) -> str:
    """The `skyline-lab run` command that resumes (or repairs) this run, without
    its --out (the reader adds the folder it is reading: analysis.run.resume_command)."""
    import shlex

    words = ["skyline-lab", "run", config.game, "-n", str(n_games), "--seed", str(config.seed),
             "-p", str(config.players)]
    for label in config.lineup.labels:
        words += ["--policy", label]
    if variant:
        words += ["--variant", str(variant)]
    for key, value in (overrides or {}).items():
        words += ["--set", f"{key}={json.dumps(value) if not isinstance(value, str) else value}"]
    if not config.lineup.rotate:
        words.append("--fixed-seats")
    words += ["--chunk-size", str(config.chunk_size)]
    return " ".join(shlex.quote(w) for w in words)


def _say(progress: bool, message: str) -> None:
    if progress:
        import sys

        print(message, file=sys.stderr, flush=True)


def _warm_up(spec: GameSpec, config: RunConfig, progress: bool) -> float:
    """Play one game here before the progress bar starts, so the compile time
    (numba builds the engine the first time, then caches it on disk) is
    timed apart from the simulation and the user is told why nothing moves."""
    import threading

    notice = threading.Timer(COMPILE_NOTICE_AFTER, _say, (progress, f"{spec.title}: building the compiled engine (first run "
                                                   "only; later runs load it from the cache) ..."))
    notice.daemon = True
    t0 = time.perf_counter()
    notice.start()
    try:
        kparams = spec.kernel_params(config.variant, config.players)
        ids = config.lineup.policy_ids()
        spec.simulate(kparams, ids, config.lineup.weight_rows(spec.max_weights),
                      config.lineup.rotate, config.seed, 0, 1)
        _WARM.add((config.game, config.variant.digest, config.players, tuple(ids.tolist())))
    finally:
        notice.cancel()
    return time.perf_counter() - t0


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
    the same configuration is resumed (or extended to more games): its
    chunks are verified and only missing, short or damaged ones are played.
    One of a different configuration is refused unless `fresh`. A folder
    never loses finished games: asking for fewer games than it holds keeps them."""
    if workers <= 0:
        raise RunError(f"workers must be positive, not {workers}")
    _check_backend(backend, scheduler)
    spec, config = prepare(game, variant=variant, overrides=overrides, players=players, policies=policies,
                           rotate=rotate, n_games=n_games, seed=seed, chunk_size=chunk_size)
    out_path = Path(out) if out else DEFAULT_RESULTS / default_run_name(config)
    _writable_target(out_path)
    # nothing but a run folder of this tool is ever deleted or written into: decided before
    # anything is written, so a refusal leaves the folder exactly as it was
    if out_path.exists() and not out_path.is_dir():
        raise RunError(f"cannot write results to {out_path}: it is a file")
    if out_path.is_dir() and any(out_path.iterdir()):
        if fresh:
            reason = runfolder.not_replaceable(out_path)
            if reason:
                raise RunError(f"--fresh replaces only a run folder of skyline-lab: {reason}; "
                               "nothing was removed (choose another --out)")
        elif not runfolder.is_run_folder(out_path):
            raise RunError(f"{out_path} exists and is not a run folder; choose another --out")
    out_path.mkdir(parents=True, exist_ok=True)
    try:
        with runfolder.writer_lock(out_path):
            return _run_locked(spec, config, out_path, game=game, variant=variant, overrides=overrides,
                               n_games=n_games, seed=seed, workers=workers, chunk_size=chunk_size,
                               backend=backend, scheduler=scheduler, progress=progress, fresh=fresh)
    except runfolder.RunLocked as exc:
        raise RunError(str(exc)) from None


def _close_dead_sessions(out_path: Path, sessions: list[dict]) -> list[dict]:
    """Sessions the manifest still calls "running" when we hold the writer lock are dead
    (killed, machine lost): their process would hold the lock. Mark them so, with the games
    their chunks added (the verified markers written since they started simulating) and the
    time until their last marker, so time and throughput count every session."""
    out = []
    for s in sessions:
        s = dict(s) if isinstance(s, dict) else s
        if isinstance(s, dict) and s.get("status") == "running":
            since = s.get("simulating_since")
            markers = []
            if isinstance(since, (int, float)):
                for chunk in runfolder.marker_chunks(out_path):
                    with contextlib.suppress(OSError):
                        mtime = runfolder.marker_path(out_path, chunk).stat().st_mtime
                        if mtime >= since:
                            markers.append((chunk, mtime))
            games = 0
            for chunk, _ in markers:
                record = runfolder._read_marker(out_path, chunk) or {}
                games += int(record.get("games") or 0)
            simulate = max((m for _, m in markers), default=since) - since if markers else 0.0
            compile_s = float(s.get("compile_seconds") or 0.0)
            s.update(status="died", games=games, simulate_seconds=round(simulate, 3),
                     seconds=round(compile_s + simulate, 3), compile_seconds=round(compile_s, 3),
                     games_per_s=round(games / simulate, 1) if simulate > 0 and games else None,
                     error="the process ended without finishing (killed?); found by the next session")
        out.append(s)
    return out


def _play_span(first_start: float | None, end: float) -> float:
    """Seconds of play: from the moment the first worker started simulating (after its engine
    loaded) to the last chunk written. Neither the parent's compile nor the workers' start-up
    and engine load counts; writing the parts does (a run is played and written)."""
    return max(0.0, end - first_start) if first_start is not None else 0.0


def _run_locked(spec: GameSpec, config: RunConfig, out_path: Path, *, game: str, variant, overrides, n_games: int,
                seed: int, workers: int, chunk_size, backend: str, scheduler, progress: bool, fresh: bool) -> Run:
    manifest_path = runfolder.manifest_path(out_path)
    key = config.key(spec.engine_version)
    old: dict = {}
    if fresh and manifest_path.is_file():
        try:
            held = runfolder.clear_run(out_path)
        except runfolder.RunFolderError as exc:
            raise RunError(f"--fresh replaces only a run folder of skyline-lab: {exc}; nothing was removed") from None
        _say(True, f"--fresh: removed the run folder {out_path} ({held:,} games)")
    elif manifest_path.is_file():
        try:
            old = runfolder.read_manifest(out_path)
        except runfolder.RunFolderError as exc:
            raise RunError(f"{exc}; pass --fresh to replace the folder") from None
        if chunk_size is None and "chunk_size" in old:
            config = replace(config, chunk_size=int(old["chunk_size"]))  # a resumed run keeps its chunking
            key = config.key(spec.engine_version)
        if old.get("config_key") != key:
            raise DifferentRunError(f"{out_path} holds a different run; choose another --out or pass --fresh to "
                                    "replace it")

    # what the folder holds: verified chunks count, damaged or short ones are played again
    size = config.chunk_size
    check = runfolder.verify(out_path, {"n_games": None, "chunk_size": size}) if old else runfolder.Check()
    if check.good:
        last = max(check.good)
        held_to = last * size + check.good[last]
        if held_to > n_games:
            _say(progress, f"{out_path} already holds games up to {held_to:,}; keeping them (asked for {n_games:,})")
            n_games = held_to
    if old:
        check = runfolder.verify(out_path, {"n_games": n_games, "chunk_size": size})
    redo = set(check.damaged) | set(check.short)
    if check.damaged:  # said even with progress off: a repair must never be silent
        _say(True, f"re-simulating {len(check.damaged)} damaged chunk{'s' * (len(check.damaged) > 1)}: "
                       f"{check.first_problem()}")
    if check.short:
        _say(progress, f"extending the last chunk of the earlier run ({len(check.short)} chunk) to its full size")
    # sessions that died before this one: closed from their markers, before any marker is dropped
    sessions = _close_dead_sessions(out_path, list(old.get("sessions") or []))
    for chunk in redo:  # their markers go first, so a crash now cannot leave them counted
        runfolder.marker_path(out_path, chunk).unlink(missing_ok=True)
    good = set(check.good)
    n_chunks = runfolder.n_chunks(n_games, size)
    pending = n_chunks - len(good)
    games_before = check.games
    parent = os.getpid() if backend == "joblib" and workers > 1 else 0
    tasks = (
        ChunkTask(game, config.variant, config.players, config.lineup.policy_ids(),
                  config.lineup.weight_rows(spec.max_weights), config.lineup.rotate, seed, chunk, start, count,
                  parent)
        for chunk, start, count in runfolder.plan_chunks(n_games, size, good)
    )

    session = {"started": _now(), "status": "running", "games": 0, "games_before": games_before,
               "backend": backend, "workers": workers}
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
        "chunk_size": size,
        "variant": {"name": config.variant.name, "source": config.variant.source, "digest": config.variant.digest,
                    "overrides": config.variant.overrides, "values": config.variant.values},
        "engine_version": spec.engine_version,
        "source_digest": spec.source_digest,
        "config_key": key,
        # the user's presets this line-up seats, by value, with the file they came from
        **({"user_presets": used_presets(spec, config.lineup)} if config.user_presets else {}),
        "command": repeat_command(config, n_games, variant, overrides),
        "versions": _versions(),
        "backend": backend,
        "workers": workers,
        "created": old.get("created") or _now(),  # the folder's first session, kept across resumes
        "status": "running",
        "pid": os.getpid(),
        "host": platform.node(),
        "games_done": games_before,
        "timings": {},
        "sessions": sessions + [session],
    }
    runfolder.write_manifest(out_path, manifest)

    t0 = time.perf_counter()
    compile_seconds = 0.0
    games_now, worker_seconds, load_seconds = 0, 0.0, 0.0
    first_start: float | None = None
    status, error = "complete", None
    bar = None
    try:
        if pending:
            compile_seconds = _warm_up(spec, config, progress)
            # from now on a chunk's marker is this session's: a session killed later is
            # credited with the chunks marked since (see _close_dead_sessions)
            session.update(compile_seconds=round(compile_seconds, 3), simulating_since=time.time())
            runfolder.write_manifest(out_path, manifest)
        bar = _progress_bar(n_games, games_before, progress, f"{spec.title} {config.players}p")
        # no more workers than chunks: a small run stays in this process and starts at once
        n_workers = max(1, min(workers, pending))
        for chunk, count, tables, timing in _run_tasks(tasks, n_workers, backend, scheduler):
            _write_chunk(out_path, spec, config.lineup.labels, chunk, count, tables)
            games_now += count
            worker_seconds += timing.simulate
            load_seconds += timing.load
            first_start = timing.start if first_start is None else min(first_start, timing.start)
            if bar is not None:
                bar.update(count)
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except BaseException as exc:  # any other error: the run failed, and says why
        status, error = "failed", f"{type(exc).__name__}: {runfolder._short(exc)}"
        raise
    finally:
        if bar is not None:
            bar.close()
        wall = time.perf_counter() - t0
        # throughput of play alone, in every worker: from the first chunk's simulation to the
        # last chunk written, not the parent's compile nor each worker's start-up and engine
        # load (which used to count: 4,000 Cityline games, 2,891 games/s with -j 1, 462 with -j 2)
        simulate = _play_span(first_start, time.time())
        done_now = runfolder.games_done(out_path)  # from the verified markers: exact even if interrupted
        if status == "complete" and done_now < n_games:
            status, error = "failed", f"only {done_now:,} of {n_games:,} games were written"
        timings = {
            "seconds": round(wall, 3),
            "compile_seconds": round(compile_seconds, 3),
            "load_seconds": round(load_seconds, 3),
            "simulate_seconds": round(simulate, 3),
            "games_this_session": games_now,
            "games_per_s": round(games_now / simulate, 1) if simulate > 0 and games_now else None,
            "worker_seconds": round(worker_seconds, 3),
        }
        session.update(status=status, finished=_now(), games=games_now, **timings)
        session.pop("simulating_since", None)
        if error:
            session["error"] = error
        manifest.update(status=status, games_done=done_now, timings=timings)
        if error:
            manifest["error"] = error
        else:
            manifest.pop("error", None)
        runfolder.write_manifest(out_path, manifest)
    return Run.open(out_path, checksums=False)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _progress_bar(total: int, initial: int, enabled: bool, label: str):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, unit="game", unit_scale=True, desc=label, smoothing=0.1)
