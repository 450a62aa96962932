"""The game notebooks run top to bottom, as Jupyter runs them (kernel python3,
working directory notebooks/), and say what they are meant to say:

- notebooks/step_by_step.ipynb steps Skyline 3000 and Cityline games through the
  step API; its parity cells assert that stepping with the compiled policies
  gives exactly the batch kernel's games; its last section asks which kinds of
  decision a better policy wins (experiments/search_gap.py);
- notebooks/cityline.ipynb explores a Cityline run (a small one made here with
  run_batch and passed through CITYLINE_RUN) and writes its report.

A cell error fails the test (nbclient raises CellExecutionError).
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
# per cell: generous, so a cold numba cache (first compile of both engines) still passes
CELL_TIMEOUT = 600


def execute(name: str, cwd: Path = NOTEBOOKS) -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(notebook, kernel_name="python3", timeout=CELL_TIMEOUT,
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return notebook


def cell_text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(output.get("text", ""))
        parts.append(output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def code_cells(notebook) -> list:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def the_cell(notebook, source_snippet: str):
    matches = [cell for cell in code_cells(notebook) if source_snippet in cell.source]
    assert len(matches) == 1, f"expected one cell containing {source_snippet!r}, found {len(matches)}"
    return matches[0]


def n_images(notebook) -> int:
    return sum("image/png" in output.get("data", {})
               for cell in code_cells(notebook) for output in cell.get("outputs", []))


def test_step_by_step_notebook():
    notebook = execute("step_by_step.ipynb")
    text = "\n".join(cell_text(cell) for cell in code_cells(notebook))

    # the board, the observation without other hands, readable legal moves, a refused move
    assert "Red district" in text and "seat 0: score 5" in text
    assert "other seats' cards in it: none" in text and "arrays are read-only views: True" in text
    assert "play Floor" in cell_text(the_cell(notebook, "legal = game.legal_actions()\npd.DataFrame"))
    assert "refused: illegal action" in text
    # a round by the compiled heuristic, an auction bid by hand, a Python policy's full game
    assert "decisions in round 1" in text
    auction = cell_text(the_cell(notebook, "space = game.legal_actions()"))
    assert "BidSpace(" in auction and "legal? True" in auction and " won and will place the " in auction
    assert "builder (Python)" in cell_text(the_cell(notebook, "result = play(g, [builder"))

    # stepping == batch: the cells assert it; check they ran to their verdict
    parity = cell_text(the_cell(notebook, "PARITY_SEED, N_PARITY"))
    assert "identical: all 12 games" in parity
    assert "identical: 20 Cityline games" in cell_text(the_cell(notebook, "cl_batch = cityline.simulate"))

    # the Cityline solo game, by hand and by the heuristic, to its final sheet
    assert "by hand: re-roll" in text or "by hand: keep all dice" in text
    assert "by hand: set aside" in text and "by hand: populate column" in text
    final = cell_text(the_cell(notebook, "final score"))
    assert "phase over" in final and "set aside: construction" in final and "final score:" in final

    # which decisions the heuristic wins over random play: both kinds, each with its verdict, and the plot
    gap = the_cell(notebook, "run_gap(GapPlan(")
    assert all(word in printed(gap) for word in ("all", "roof", "occupy", "gains"))
    assert any("image/png" in output.get("data", {}) for output in gap.get("outputs", []))


def printed(cell) -> str:
    """What a cell printed (stream output), not what it displayed."""
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def assert_says_what_the_report_says(cell, report_md: str) -> None:
    """One answer: every line a notebook cell prints from a report section (its text, verdict and table
    captions) is in the report built from the same run, word for word."""
    lines = [line.strip() for line in printed(cell).splitlines() if line.strip()]
    assert lines, "the cell printed nothing"
    missing = [line for line in lines if line not in report_md]
    assert not missing, f"printed by the notebook but not in the report: {missing}"


def test_cityline_notebook_on_a_small_run(tmp_path, monkeypatch):
    from experiments.runner import run_batch

    # the game's default line-up (4 players: heuristic, greedy, random, random), as the notebook plays it
    run = run_batch("cityline", n_games=500, seed=3, out=tmp_path / "run", workers=1, progress=False)
    monkeypatch.setenv("CITYLINE_RUN", str(run.path))
    default_out = ROOT / "results" / "notebook-cityline"
    existed = default_out.exists()

    notebook = execute("cityline.ipynb")

    assert str(run.path) in cell_text(the_cell(notebook, 'os.environ.get("CITYLINE_RUN")'))
    assert "2,000 player-games" in cell_text(the_cell(notebook, 'run.load("players")'))
    # score distribution, points per roof type, roof choices, sky, die value by turn, seat win rates
    assert n_images(notebook) == 6
    roof_points = cell_text(the_cell(notebook, "type_cols = "))
    assert all(name in roof_points for name in ("Odds", "Evens", "Low", "High", "Pairs", "Any"))
    sky = cell_text(the_cell(notebook, "sky = (players.group_by"))
    assert "sun" in sky and "hit rate" in sky
    assert (run.path / "report" / "report.html").is_file()
    assert existed or not default_out.exists()  # it used CITYLINE_RUN, it played no batch of its own
    # one answer: the die values (intervals over games, not over dice) and the seat verdict are the report's
    report_md = (run.path / "report" / "report.md").read_text()
    assert_says_what_the_report_says(the_cell(notebook, "cityline.die_value_by_turn(run)"), report_md)
    seats = the_cell(notebook, "show(seat_win_rates(run))")
    assert "turn order" in printed(seats) or "Turn order" in printed(seats)
    assert_says_what_the_report_says(seats, report_md)


@pytest.mark.slow
def test_cityline_notebook_plays_its_own_batch(tmp_path, monkeypatch):
    monkeypatch.delenv("CITYLINE_RUN", raising=False)
    execute("cityline.ipynb", cwd=tmp_path)  # outside notebooks/: the run goes to ./results
    out = tmp_path / "results" / "notebook-cityline"
    assert (out / "report" / "report.html").is_file()
    from analysis.run import Run

    assert Run.open(out).manifest["games_done"] == 20_000


def test_skyline_of_the_world_notebook_on_a_small_run(tmp_path, monkeypatch):
    from experiments.runner import run_batch

    run = run_batch("skyline_of_the_world", policies=["heuristic", "greedy", "random", "random"], n_games=300,
                    seed=3, out=tmp_path / "run", progress=False)
    monkeypatch.setenv("SOTW_RUN", str(run.path))
    notebook = execute("skyline_of_the_world.ipynb")
    assert str(run.path) in cell_text(the_cell(notebook, 'os.environ.get("SOTW_RUN")'))
    assert n_images(notebook) == 2  # the report's seat figure, income curves
    assert (run.path / "report" / "report.html").is_file()
    # one answer: the ender's rate and the turn-order verdict are printed by the report's own sections
    report_md = (run.path / "report" / "report.md").read_text()
    ender = the_cell(notebook, "sotw.end_trigger(run)")
    assert "the player who built it won" in printed(ender)
    assert_says_what_the_report_says(ender, report_md)
    assert_says_what_the_report_says(the_cell(notebook, "seats = seat_win_rates(run)"), report_md)


def test_project_skyline_notebook_on_a_small_run(tmp_path, monkeypatch):
    from analysis.report import build_report
    from experiments.runner import run_batch

    run = run_batch("project_skyline", players=4, policies=["heuristic"], n_games=200, seed=3,
                    out=tmp_path / "run", workers=1, progress=False)
    monkeypatch.setenv("PS_RUN", str(run.path))
    notebook = execute("project_skyline.ipynb")
    report_md = build_report(run.path).read_text()
    # one answer: the card curves and the endings are the report's sections, word for word
    assert_says_what_the_report_says(the_cell(notebook, "ps.card_value_curves(run)"), report_md)
    assert_says_what_the_report_says(the_cell(notebook, "show(ps.endings(run))"), report_md)
    # the forced-acquisition effects come from the toolkit's paired test, not a hand-made normal interval
    forced = cell_text(the_cell(notebook, "def seat0_wins"))
    assert all(code in forced for code in ("B-01", "B-02", "B-03", "B-04")) and "McNemar" in forced
