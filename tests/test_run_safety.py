"""Never destroy what the tool did not create (issue 25, item 1): `--fresh` replaces only a run
folder of skyline-lab; a second writer on a folder is refused; the manifest's sessions stay true
after a kill -9; throughput counts play only, in every worker.

Every test here failed before: --fresh deleted whatever --out named (a user's folder, `.` with
its .git, `results/` with every run), two writers both claimed success, a killed session stayed
"running, 0 games" forever, and -j 2 counted each worker's engine load as simulation.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analysis import runfolder
from experiments import runner
from experiments.cli import app
from experiments.runner import RunError, run_batch

ROOT = Path(__file__).resolve().parents[1]
GAME = "skyline_3000"
cli = CliRunner()


def _tree(folder: Path) -> dict:
    """Every file under `folder` with its bytes: what must survive a refusal untouched."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_line_refusal(result, *phrases):
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for phrase in phrases:
        assert phrase in lines[0], (phrase, result.output)


def _run(out, *extra):
    return cli.invoke(app, ["run", GAME, "-n", "20", "--out", str(out), "--quiet", "--no-report", "-j", "1", *extra])


def test_fresh_refuses_a_users_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "some_folder"
    (mine / "drafts").mkdir(parents=True)
    (mine / "notes.txt").write_text("a year of notes")
    (mine / "drafts" / "rules.md").write_text("my rules")
    before = _tree(mine)
    _one_line_refusal(_run(mine, "--fresh"), "--fresh replaces only a run folder", "nothing was removed")
    assert _tree(mine) == before


def test_fresh_refuses_the_current_folder_and_a_git_checkout(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / "main.py").write_text("print('hello')\n")
    monkeypatch.chdir(project)
    before = _tree(project)
    _one_line_refusal(_run(Path("."), "--fresh"), "current folder")
    assert _tree(project) == before
    _one_line_refusal(_run(project, "--fresh"), "nothing was removed")
    assert _tree(project) == before


def test_fresh_refuses_the_results_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path / "results" / "a").exit_code == 0
    (tmp_path / "results" / "_runs").mkdir()
    (tmp_path / "results" / "_runs" / "cached.txt").write_text("cache")
    before = _tree(tmp_path / "results")
    _one_line_refusal(_run(tmp_path / "results", "--fresh"), "not a run folder of skyline-lab")
    assert _tree(tmp_path / "results") == before


def test_fresh_refuses_a_run_folder_holding_a_users_file(tmp_path):
    out = tmp_path / "run"
    assert _run(out).exit_code == 0
    (out / "my_analysis.ipynb").write_text("{}")
    before = _tree(out)
    _one_line_refusal(_run(out, "--fresh"), "my_analysis.ipynb", "nothing was removed")
    assert _tree(out) == before


def test_fresh_replaces_a_run_folder_and_says_so(tmp_path):
    out = tmp_path / "run"
    assert _run(out, "--seed", "1").exit_code == 0
    result = _run(out, "--seed", "2", "--fresh")
    assert result.exit_code == 0, result.output
    assert f"--fresh: removed the run folder {out} (20 games)" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 2 and len(manifest["sessions"]) == 1


def test_a_second_writer_is_refused_and_the_first_keeps_the_folder(tmp_path):
    out = tmp_path / "run"
    assert _run(out).exit_code == 0
    before = _tree(out)
    with runfolder.writer_lock(out):  # as a run in another process holds it
        with pytest.raises(RunError, match="is being written by another skyline-lab process"):
            run_batch(GAME, n_games=40, out=out, progress=False)
        result = _run(out)
        _one_line_refusal(result, "being written by another skyline-lab process", f"pid {os.getpid()}")
    assert _tree(out) == before
    assert _run(out).exit_code == 0  # the lock goes with its holder


def test_a_killed_session_is_marked_died_and_counted(tmp_path):
    out = tmp_path / "r"
    code = (f"from experiments.runner import run_batch\n"
            f"run_batch({GAME!r}, n_games=2_000_000, chunk_size=500, workers=1, out={str(out)!r}, "
            f"policies=['random'], progress=False)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        deadline = time.time() + 240
        while len(runfolder.marker_chunks(out)) < 3:
            assert proc.poll() is None and time.time() < deadline, "the run did not start"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    killed = json.loads((out / "manifest.json").read_text())
    assert killed["sessions"][-1]["status"] == "running"
    written = runfolder.games_done(out)
    # the next session (asking for fewer games keeps them all and plays nothing new)
    again = run_batch(GAME, n_games=500, chunk_size=500, out=out, policies=["random"], progress=False)
    first, second = again.manifest["sessions"]
    assert first["status"] == "died" and "killed" in first["error"]
    assert first["games"] == written >= 1500
    assert first["simulate_seconds"] > 0 and first["games_per_s"] > 0
    assert second["status"] == "complete"
    from analysis.report import session_times

    times = session_times(again.manifest)
    assert times["games_per_s"] == pytest.approx(
        (first["games"] + second["games"]) / (first["simulate_seconds"] + second["simulate_seconds"]))


def test_play_span_leaves_out_the_workers_engine_load():
    assert runner._play_span(None, 10.0) == 0.0
    assert runner._play_span(4.0, 10.0) == 6.0


def _games_per_s(out: Path, workers: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "experiments.cli", "run", "cityline", "-n", "4000", "-p", "4", "--policy",
                    "heuristic", "-j", str(workers), "--out", str(out), "--quiet", "--no-report"],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    return json.loads((out / "manifest.json").read_text())["timings"]["games_per_s"]


def test_throughput_with_two_workers_is_not_their_engine_load(tmp_path):
    # the same 4,000 games used to report ~6,000 games/s with -j 1 and ~550 with -j 2 (each new
    # worker's import and compiled-code load counted as play); now the load is timed apart
    one = _games_per_s(tmp_path / "one", 1)
    two = _games_per_s(tmp_path / "two", 2)
    assert two > 0.3 * one, (one, two)
    manifest = json.loads((tmp_path / "two" / "manifest.json").read_text())
    assert manifest["timings"]["load_seconds"] > 0


def test_an_experiment_never_writes_into_a_users_folder(tmp_path, monkeypatch):
    # its report, manifest.json and CSVs went into results/<name>/ whatever that folder held
    experiment = ROOT / "experiments" / "skyline_fairness_matrix.toml"
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "out" / "skyline_fairness_matrix"
    mine.mkdir(parents=True)
    (mine / "manifest.json").write_text('{"mine": true}')
    (mine / "report.md").write_text("my report")
    before = _tree(mine)
    result = cli.invoke(app, ["run", str(experiment), "--games", "8", "--out", str(tmp_path / "out"), "--quiet"])
    _one_line_refusal(result, "not an experiment folder of skyline-lab")
    assert _tree(mine) == before
