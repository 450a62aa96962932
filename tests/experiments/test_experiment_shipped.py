"""The shipped experiments validate, run from one command at a small size, and
their reports answer their questions with intervals; the designer notebook runs."""
from pathlib import Path

import polars as pl
import pytest

from experiments.experiment import load_experiment, run_experiment

ROOT = Path(__file__).resolve().parents[2]
# [sensitivity] / [tune] files are read by experiments.variant_design (tests/experiments/test_design_files.py)
SHIPPED = sorted(p for p in (ROOT / "experiments").glob("*.toml")
                 if not any(line.strip() in ("[sensitivity]", "[tune]") for line in p.read_text().splitlines()))

def test_experiments_are_shipped():
    names = {p.stem for p in SHIPPED}
    assert {"skyline_megamall_multiplier", "skyline_3p_fairness", "skyline_fairness_matrix",
            "cityline_score_tables"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_experiment_validates(path):
    exp = load_experiment(path)
    assert exp.question.endswith("?")
    assert len(exp.plans) >= 2
    if exp.kind == "sweep":
        assert exp.plans[exp.baseline].params == {"scoring.megamall_multiplier": 2}
    if exp.name == "skyline_3p_fairness":
        assert [p.config.variant.get("board.small_platforms") for p in exp.plans] == [7, 5]
        assert {p.players for p in exp.plans} == {3}


QUICK = {"skyline_megamall_multiplier": 200, "skyline_3p_fairness": 200, "cityline_score_tables": 300,
         "skyline_fairness_matrix": 100}


@pytest.mark.parametrize("name", sorted(QUICK))
def test_shipped_experiment_runs_small_and_answers_with_intervals(name, tmp_path):
    result = run_experiment(ROOT / "experiments" / f"{name}.toml", results=tmp_path, games=QUICK[name],
                            precision=False)
    text = result.report.read_text()
    exp = result.experiment
    assert exp.question in text and "## Answer" in text
    assert "[" in result.answer and "95% intervals" in result.answer
    for metric in exp.metrics:
        assert result.estimates.filter(pl.col("metric") == metric).height > 0, metric
    finite = result.estimates.filter(pl.col("low").is_not_nan())
    assert (finite["low"] <= finite["estimate"]).all() and (finite["estimate"] <= finite["high"]).all()
    if exp.kind in ("sweep", "compare"):
        assert result.comparisons.height > 0 and "Bonferroni" in text
    if exp.kind == "fairness":
        assert result.fairness.height == len(exp.plans)
    assert (tmp_path / name / "report.html").is_file()


def test_designer_notebook_executes(tmp_path, monkeypatch):
    import nbclient
    import nbformat
    monkeypatch.setenv("SKYLINE_LAB_RESULTS", str(tmp_path))
    monkeypatch.setenv("SKYLINE_LAB_NOTEBOOK_GAMES", "200")
    notebook = nbformat.read(ROOT / "notebooks" / "designer_workflow.ipynb", as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    outputs = "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                        + str(o.get("data", {}).get("text/markdown", ""))
                        for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", []))
    assert "sweep.scoring.megamall_multiplier" in outputs and "must be at most" in outputs
    assert "a rerun simulated 0 new games" in outputs
    assert (tmp_path / "megamall_quick" / "report.md").is_file()
    assert (tmp_path / "three_player_quick" / "report.md").is_file()
