"""Runs that never lie (issue 9): no silent data loss, honest status, damage refused in one line.

Every test here failed on the runner before done markers carried checksums
and the chunk plan was checked against them.
"""
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from analysis import runfolder
from analysis.run import Run, RunDamaged, RunFolderError
from experiments import runner
from experiments.cli import app
from experiments.runner import RunError, run_batch

ROOT = Path(__file__).resolve().parents[1]
GAME = "skyline_3000"
ARGS = dict(policies=["heuristic", "random", "greedy", "random"], seed=5, chunk_size=200, progress=False)
cli = CliRunner()


def _tables(run):
    out = {}
    for name in run.tables():
        frame = run.load(name)
        keys = [c for c in ("game", "seat", "round", "stack", "lineup_slot", "card_type", "value") if c in frame.columns]
        out[name] = frame.sort(keys)
    return out


def _same(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].equals(b[name]), name


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """600 games in 3 chunks of 200, played in one go: the reference every repair must give back."""
    return run_batch(GAME, n_games=600, out=tmp_path_factory.mktemp("whole") / "run", **ARGS)


def _copy(run, tmp_path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(run.path, out)
    return out


# --- 1. extending a run never drops games -------------------------------------------------------

def test_extending_a_run_plays_every_game(whole, tmp_path):
    out = tmp_path / "run"
    run_batch(GAME, n_games=300, out=out, **ARGS)  # chunks of 200 and 100
    grown = run_batch(GAME, n_games=600, out=out, **ARGS)
    # before: the short chunk 1 (100 games) counted as done, so 500 games were "complete"
    assert grown.load("games").height == 600 and grown.games_done == 600
    assert grown.manifest["status"] == "complete" and grown.manifest["games_done"] == 600
    _same(_tables(whole), _tables(grown))
    # asking for fewer games than the folder holds keeps them all
    again = run_batch(GAME, n_games=300, out=out, **ARGS)
    assert again.games_done == 600 and again.manifest["n_games"] == 600
    assert again.manifest["timings"]["games_this_session"] == 0


def test_chunk_plan_is_lazy_and_memory_stays_flat(tmp_path, monkeypatch):
    # -n 10**12 must not build a list of every chunk (it took 2 GB in 40 s before)
    plan = runfolder.plan_chunks(10**12, 10_000)
    assert next(plan) == (0, 0, 10_000) and next(plan) == (1, 10_000, 10_000)
    pulled = []

    def three_then_stop(tasks, workers, backend, scheduler):
        for task in tasks:
            pulled.append(task.chunk)
            if len(pulled) == 3:
                raise KeyboardInterrupt
        return []

    monkeypatch.setattr(runner, "_run_tasks", three_then_stop)
    runner._warm_up(*runner.prepare(GAME, n_games=10), progress=False)  # compile outside the measurement
    tracemalloc.start()
    with pytest.raises(KeyboardInterrupt):
        # 300,000 chunks of one game: a list of tasks is well over 20 MB, a generator a few KB
        run_batch(GAME, n_games=300_000, chunk_size=1, out=tmp_path / "big", progress=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert pulled == [0, 1, 2]
    assert peak < 20 * 2**20, f"{peak / 2**20:.1f} MB"


# --- every part verifiable; damage refused in one line, repaired by the same command --------------

def _delete_part(run):
    (run / "players" / "part-000001.parquet").unlink()


def _truncate_part(run):
    path = run / "games" / "part-000002.parquet"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _change_a_byte(run):
    path = run / "players" / "part-000000.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size: only the checksum can tell
    path.write_bytes(bytes(data))


def _swap_parts(run):
    a, b = run / "games" / "part-000000.parquet", run / "games" / "part-000001.parquet"
    a.write_bytes(b.read_bytes())


def _delete_marker_of_complete_run(run):
    (run / "_done" / "000001").unlink()


def _garbage_marker(run):
    (run / "_done" / "000002").write_text("{not json")


def _stray_marker(run):
    (run / "_done" / "000009").write_text(json.dumps({"games": 200, "tables": {}}))


DAMAGE = {
    "missing part": (_delete_part, "players part players/part-000001.parquet is missing"),
    "truncated part": (_truncate_part, "is truncated"),
    "changed byte": (_change_a_byte, "checksum differs"),
    "part copied over another": (_swap_parts, "games/part-000000.parquet"),
    "marker deleted, manifest says complete": (_delete_marker_of_complete_run, "1 chunk of games is missing"),
    "unreadable marker": (_garbage_marker, "done marker is unreadable"),
    "marker outside the plan": (_stray_marker, "outside the run's 600 games"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_damage_is_refused_in_one_line_and_repaired_by_the_same_command(whole, tmp_path, case, capsys):
    damage, reason = DAMAGE[case]
    out = _copy(whole, tmp_path)
    damage(out)
    with pytest.raises(RunDamaged) as error:
        Run.open(out)
    message = str(error.value)
    assert reason in message and "\n" not in message
    assert f"--out {out}`" in message and "skyline-lab run" in message  # names *this* folder, not the original

    # `skyline-lab report` on it: the one line and exit 2, never a traceback nor a report
    result = cli.invoke(app, ["report", str(out)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().startswith("error:") and reason in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (out / "report" / "report.md").exists()

    # the command the message names repairs it: exactly the damaged chunks are simulated again
    command = shlex.split(message.split("run `", 1)[1].split("`", 1)[0])
    assert command[:2] == ["skyline-lab", "run"]
    repaired = cli.invoke(app, command[1:] + ["--quiet", "--no-report", "--workers", "1"])
    assert repaired.exit_code == 0, repaired.output
    run = Run.open(out)
    assert run.manifest["status"] == "complete"
    # one damaged chunk of 200 is played again (a stray marker is only dropped: its games are not in the plan)
    assert run.manifest["timings"]["games_this_session"] == (0 if case == "marker outside the plan" else 200)
    _same(_tables(whole), _tables(run))


def test_stray_and_duplicate_files_are_ignored(whole, tmp_path):
    out = _copy(whole, tmp_path)
    (out / "_done" / ".DS_Store").write_bytes(b"\0\1junk")       # crashed resume before
    (out / "players" / ".DS_Store").write_bytes(b"junk")
    part = out / "games" / "part-000000.parquet"
    shutil.copy(part, out / "games" / "part-000000 (1).parquet")  # a file manager's duplicate
    shutil.copy(part, out / "games" / "part-000007.parquet")      # a part no marker vouches for
    run = Run.open(out)
    assert run.games_done == 600 and run.load("games").height == 600
    assert "_done/.DS_Store" in run.check.ignored and "games/part-000000 (1).parquet" in run.check.ignored
    again = run_batch(GAME, n_games=600, out=out, **ARGS)  # resume with the strays present
    assert again.manifest["timings"]["games_this_session"] == 0 and again.load("games").height == 600


@pytest.mark.parametrize("content, reason", [("{", "is unreadable"), ("[1, 2]", "not a JSON object"),
                                             ('{"game": "skyline_3000"}', "'players' is missing")])
def test_bad_manifest_is_one_line(whole, tmp_path, content, reason):
    out = _copy(whole, tmp_path)
    (out / "manifest.json").write_text(content)
    with pytest.raises(RunFolderError, match=reason):
        Run.open(out)
    result = cli.invoke(app, ["report", str(out)])
    assert result.exit_code == 2 and reason in result.output and len(result.output.strip().splitlines()) == 1
    with pytest.raises(RunError, match="--fresh"):
        run_batch(GAME, n_games=600, out=out, **ARGS)


# --- 2. honest status ------------------------------------------------------------------------------

def test_an_error_is_recorded_as_failed_not_complete(tmp_path, monkeypatch):
    real = runner._write_chunk
    calls = []

    def disk_full_on_second(*args):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(*args)

    monkeypatch.setattr(runner, "_write_chunk", disk_full_on_second)
    with pytest.raises(OSError):
        run_batch(GAME, n_games=600, out=tmp_path / "r", **ARGS)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "No space left on device" in manifest["error"]
    assert manifest["games_done"] == 200 and manifest["sessions"][-1]["status"] == "failed"
    run = Run.open(tmp_path / "r")  # a partial run opens, and says so
    assert run.is_partial and run.games_done == 200


def test_rerunning_a_finished_command_keeps_its_history(tmp_path):
    first = run_batch(GAME, n_games=400, out=tmp_path / "r", **ARGS)
    created, timings = first.manifest["created"], first.manifest["timings"]
    assert timings["games_this_session"] == 400 and timings["simulate_seconds"] > 0
    time.sleep(1.1)  # `created` has one-second resolution
    again = run_batch(GAME, n_games=400, out=tmp_path / "r", **ARGS)
    m = again.manifest
    assert m["created"] == created
    assert [s["games"] for s in m["sessions"]] == [400, 0]
    assert m["sessions"][0]["simulate_seconds"] == timings["simulate_seconds"]
    from analysis.report import session_times

    assert session_times(m)["games_per_s"] == pytest.approx(400 / timings["simulate_seconds"])


def test_dask_missing_fails_before_writing(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if dask were not installed
    with pytest.raises(RunError, match=r"pip install 'dask\[distributed\]'"):
        run_batch(GAME, n_games=100, out=tmp_path / "r", backend="dask", progress=False)
    assert not (tmp_path / "r").exists()


# --- 3. compile time apart ---------------------------------------------------------------------------

def test_compile_time_is_timed_apart_and_announced(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runner, "COMPILE_NOTICE_AFTER", 0.0)  # as if compiling took long
    run = run_batch(GAME, n_games=400, out=tmp_path / "r", policies=["random"] * 4, seed=1, chunk_size=200,
                    progress=True)
    assert "building the compiled engine (first run only; later runs load it from the cache)" in capsys.readouterr().err
    t = run.manifest["timings"]
    assert t["compile_seconds"] > 0 and t["simulate_seconds"] > 0
    # simulation is the time some worker played games: not the compile, nor writing the parts
    assert t["seconds"] >= t["compile_seconds"] + t["simulate_seconds"] - 2e-3
    # simulate_seconds is rounded to the millisecond, games_per_s comes from the unrounded time: a
    # fast run (tens of ms) moves by more than 1% between the two
    s = t["simulate_seconds"]
    assert 400 / (s + 5e-4) * 0.999 <= t["games_per_s"] <= 400 / max(s - 5e-4, 1e-9) * 1.001


# --- kill -9: the reader counts markers; the workers do not outlive the run -----------------------------

def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_kill_9_status_and_workers_die_with_the_run(tmp_path):
    out = tmp_path / "r"
    code = (f"from experiments.runner import run_batch\n"
            f"run_batch({GAME!r}, n_games=2_000_000, chunk_size=2000, workers=2, out={str(out)!r}, progress=False)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env)
    try:
        deadline = time.time() + 240
        while len(runfolder.marker_chunks(out)) < 3:
            assert proc.poll() is None and time.time() < deadline, "the run did not start"
            time.sleep(0.2)
        workers = _descendants(proc.pid)
        assert workers, "no worker processes"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 10
        while any(_alive(p) for p in workers) and time.time() < deadline:
            time.sleep(0.2)
        left = [p for p in workers if _alive(p)]
        assert not left, f"processes outlived the killed run by 10 s: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "running" and manifest["games_done"] == 0  # never updated: it was killed
    run = Run.open(out)
    assert run.status.startswith("stopped")
    assert run.games_done == 2000 * len(run.check.good) >= 6000  # counted from the verified markers
    from analysis.report import run_summary

    rows = dict(run_summary(run).tables[0][1].iter_rows())
    assert rows["games done (verified chunks)"] == f"{run.games_done:,}"
    assert rows["status"].startswith("stopped")
