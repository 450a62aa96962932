"""notebooks/skyline_3000.ipynb runs top to bottom on a run folder (synthetic here:
SKYLINE_RUN points the notebook at it, so no engine is needed)."""
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from synthetic_run import write_synthetic_run

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "skyline_3000.ipynb"


def test_notebook_runs_without_errors(tmp_path, monkeypatch):
    run = write_synthetic_run(tmp_path / "run", n_games=400, players=3)
    monkeypatch.setenv("SKYLINE_RUN", str(run))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    # Raises CellExecutionError on the first failing cell.
    NotebookClient(notebook, kernel_name="python3", timeout=120,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert sum("image/png" in output.get("data", {}) for output in outputs) == 4  # the four main plots
    assert (run / "report" / "report.html").is_file()
    assert not (tmp_path / "results").exists()  # it used SKYLINE_RUN, it did not play a batch
    # one answer: the seat cell prints the report's own turn-order verdict, word for word (it once ran a
    # chi-square by physical seat and printed "no seat favoured" where the report found turn order mattered)
    seat_cell = next(c for c in notebook.cells if c.cell_type == "code" and "seat_win_rates(run)" in c.source)
    printed = "".join(o.get("text", "") for o in seat_cell.outputs if o.get("output_type") == "stream")
    verdict = next(line for line in printed.splitlines() if "position" in line and "games" in line)
    report = (run / "report" / "report.md").read_text()
    assert verdict.strip() and verdict.strip() in report


@pytest.mark.slow
def test_notebook_plays_its_own_batch_without_skyline_run(tmp_path, monkeypatch):
    monkeypatch.delenv("SKYLINE_RUN", raising=False)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, kernel_name="python3", timeout=600,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert (tmp_path / "results" / "notebook-skyline_3000" / "report" / "report.html").is_file()
