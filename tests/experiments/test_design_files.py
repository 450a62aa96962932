"""[sensitivity] and [tune] experiment files (experiments/variant_design.py) on the toy game Coin: strict
validation (one line, exit 2, nothing written), a range that makes an invalid set-up refused before any
game, the plan said up front, a rerun played entirely from the cache, candidate variant files that load
and hold their figures and command, and never writing over a folder the tool did not make."""
import tomllib
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from experiments import variant_design as D
from experiments.cli import app
from experiments.experiment import ExperimentError, load_experiment

ROOT = Path(__file__).resolve().parents[2]
cli = CliRunner()

SENSITIVITY = """# Which Coin rules move the seat edges?
[experiment]
game = "coin"
players = 3
games = 120
seed = 3
metrics = ["seat_score_edge", "game_length"]

[sensitivity]
rung = "strong"
trajectories = 4
sobol_base = 8
[sensitivity.ranges]
"scoring.multiplier" = [1, 4]
"scoring.key_bonus" = [0, 5]
"board.platforms" = [3, 6]
"""

TUNE = """# Which Coin rules make the Key Player's edge small?
[experiment]
game = "coin"
players = 3
games = 120
seed = 3

[tune]
rung = "strong"
trials = 8
keep = 2
recheck_games = 600
[tune.ranges]
scoring.multiplier = [1, 4]
scoring.key_bonus = [0, 5]
[tune.targets]
seat_score_edge = { within = 1.5 }
"""


def _write(tmp_path, text, name="design.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


BAD = [
    (SENSITIVITY, ('"scoring.multiplier" = [1, 4]', '"scoring.multipler" = [1, 4]'), "sensitivity.ranges.scoring.multipler",
     "did you mean 'scoring.multiplier'"),
    (SENSITIVITY, ('"scoring.multiplier" = [1, 4]', '"scoring.multiplier" = [1, 9]'), "sensitivity.ranges.scoring.multiplier",
     "9 is outside the legal range of 'scoring.multiplier' [1, 4]"),
    (SENSITIVITY, ('"scoring.multiplier" = [1, 4]', '"scoring.multiplier" = [3, 2]'), "sensitivity.ranges.scoring.multiplier",
     "low must be below high"),
    (SENSITIVITY, ('"scoring.multiplier" = [1, 4]', '"scoring.multiplier" = [1.5, 4]'), "sensitivity.ranges.scoring.multiplier",
     "holds integers"),
    (SENSITIVITY, ('"scoring.multiplier" = [1, 4]', '"scoring.multiplier[0]" = [1, 4]'), "sensitivity.ranges.scoring.multiplier[0]",
     "not a list"),
    (SENSITIVITY, ("trajectories = 4", "trajectories = 1"), "sensitivity.trajectories", "must be between 2"),
    (SENSITIVITY, ("sobol_base = 8", "sobol_base = 12"), "sensitivity.sobol_base", "power of 2"),
    (SENSITIVITY, ("sobol_base = 8", "sobol_bass = 8"), "sensitivity.sobol_bass", "did you mean 'sobol_base'"),
    (SENSITIVITY, ('rung = "strong"', 'rung = "expert"'), "experiment.policies", "unknown policy 'expert'"),
    (SENSITIVITY, ('"game_length"]', '"game_lenght"]'), "experiment.metrics", "did you mean 'game_length'"),
    (SENSITIVITY, ("[sensitivity]\n", "[sweep]\n\"board.platforms\" = [4, 5]\n[sensitivity]\n"), "sweep",
     "a kind of its own"),
    (TUNE, ("within = 1.5", "within = -1"), "tune.targets.seat_score_edge.within", "positive margin"),
    (TUNE, ("within = 1.5", "within = 1.5, between = [1, 2]"), "tune.targets.seat_score_edge", "exactly one of"),
    (TUNE, ("seat_score_edge = {", "seat_score_egde = {"), "tune.targets.seat_score_egde", "unknown metric"),
    (TUNE, ("recheck_games = 600", "recheck_seed = 3"), "tune.recheck_seed", "must differ from experiment.seed"),
    (TUNE, ("trials = 8", "trials = 0"), "tune.trials", "must be between 1"),
]


@pytest.mark.parametrize("text, change, key, reason", BAD, ids=[b[2] + ":" + b[3][:20] for b in BAD])
def test_bad_design_files_are_refused_in_one_line(tmp_path, monkeypatch, text, change, key, reason):
    assert change[0] in text
    path = _write(tmp_path, text.replace(*change))
    with pytest.raises(ExperimentError) as exc:
        D.load_any(path)
    assert exc.value.key == key and reason in exc.value.reason, str(exc.value)
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    result = cli.invoke(app, ["run", str(path)])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and key in lines[0], result.output
    assert sorted(tmp_path.rglob("*")) == before


def test_a_range_making_an_invalid_setup_is_refused_before_any_game(tmp_path, monkeypatch):
    # Skyline 3000 refuses a variant where no card is ever dealt or drawn: all four card counts at 0
    text = """[experiment]
game = "skyline_3000"
players = 3
[sensitivity]
[sensitivity.ranges]
"cards.deal_roof" = [0, 2]
"cards.deal_floor" = [0, 2]
"cards.deal_contract" = [0, 4]
"cards.draw_per_round" = [0, 6]
"""
    path = _write(tmp_path, text)
    with pytest.raises(ExperimentError) as exc:
        D.load_any(path)
    assert exc.value.key.startswith("sensitivity.ranges.cards.") or exc.value.key.startswith("experiment")
    assert "invalid set-up" in exc.value.reason and "no card is ever dealt or drawn" in exc.value.reason
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, ["run", str(path)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "results").exists()


def test_plain_loader_and_power_point_to_the_design_reader(tmp_path):
    path = _write(tmp_path, SENSITIVITY)
    with pytest.raises(ExperimentError, match="variant_design.load_any"):
        load_experiment(path)
    result = cli.invoke(app, ["power", str(path), "--effect", "seat_score_edge=1"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_sensitivity_runs_says_its_plan_and_reruns_from_the_cache(tmp_path, monkeypatch):
    path = _write(tmp_path, SENSITIVITY)
    monkeypatch.chdir(tmp_path)
    first = cli.invoke(app, ["run", str(path), "--out", str(tmp_path / "results"), "-j", "1", "--quiet"])
    assert first.exit_code == 0, first.output
    plan = first.output.splitlines()[0]
    assert "4 trajectories = 16 design points" in plan and "120 games per point" in plan
    assert "Key scoring.multiplier matters for seat_score_edge" in first.output
    platforms = next(line for line in first.output.splitlines() if line.startswith("- Key board.platforms"))
    assert "matters for" in platforms and "seat_score_edge[2nd]" in platforms  # the 2nd seat gets 6 - platforms
    assert "matters for game_length" not in first.output                          # Coin's length ignores the rules
    out = tmp_path / "results" / "design"
    assert {"report.md", "report.html", "screening.csv", "manifest.json"} <= {p.name for p in out.iterdir()}
    assert (out / "figures" / "sensitivity_heat_map.png").is_file()
    text = (out / "report.md").read_text()
    assert "## Sensitivity map" in text and "Sobol" in text
    again = cli.invoke(app, ["run", str(path), "--out", str(tmp_path / "results"), "-j", "1", "--quiet"])
    assert again.exit_code == 0 and ", 0 games simulated now" in again.output, again.output
    sobol = pl.read_csv(out / "sobol.csv")
    assert sobol.height > 0 and (sobol["ST_low"] <= sobol["ST"]).all()


def test_tune_keeps_candidates_as_variant_files_with_figures_and_command(tmp_path):
    path = _write(tmp_path, TUNE)
    result = D.run_any(path, results=tmp_path / "results")
    assert len(result.files) == 2
    assert result.trials.height == 8 and result.trials["scoring.multiplier"][0] == 2    # the starting variant first
    best = result.files[0]
    text = best.read_text()
    assert best.parent == tmp_path / "results" / "design" / "candidates"
    assert "# Made by: skyline-lab run" in text and "seat_score_edge within +-1.5" in text
    data = tomllib.loads(text)
    from engines.registry import get_game
    loaded = get_game("coin").variants.load(str(best))
    row = result.verdicts.row(0, named=True)
    assert loaded.get("scoring.multiplier") == int(row["scoring.multiplier"]) and data["extends"] == "default"
    # every metric beside the targeted one, against the starting variant on the same fresh games
    assert {"seat_score_edge", "game_length", "margin"} <= set(result.changes["metric"])
    # Coin's Key edge is key_bonus * (multiplier - 1) * 2 for strong play: multiplier 1 or key bonus 0 meets +-1.5
    if row["meets_all_targets"]:
        assert int(row["scoring.multiplier"]) == 1 or int(row["scoring.key_bonus"]) == 0
    assert "meets the target" in result.answer
    again = D.run_any(path, results=tmp_path / "results")
    assert again.games_simulated == 0


def test_never_writes_into_a_folder_it_did_not_make(tmp_path):
    path = _write(tmp_path, TUNE)
    mine = tmp_path / "results" / "design"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(Exception, match="not an experiment folder"):
        D.run_any(path, results=tmp_path / "results")
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


DESIGNS = sorted(p for p in (ROOT / "experiments").glob("*.toml")
                 if any(line.strip() in ("[sensitivity]", "[tune]") for line in p.read_text().splitlines()))


def test_full_size_design_files_are_shipped_and_validate():
    names = {p.stem: D.load_any(p) for p in DESIGNS}
    assert {"skyline_3000_sensitivity", "skyline_3000_tune_3p_seats", "cityline_roof_tables_tune"} <= set(names)
    sens = names["skyline_3000_sensitivity"]
    assert sens.kind == "sensitivity" and len(sens.ranges) >= 10 and len(sens.metrics) >= 4
    assert sens.policies == ["heuristic"] and sens.question.endswith("?")
    tune = names["skyline_3000_tune_3p_seats"]
    assert tune.options["trials"] >= 50 and tune.base_plan().players == 3
    assert [t.text for t in tune.targets] == ["seat_score_edge within +-2"]
    roofs = names["cityline_roof_tables_tune"]
    assert roofs.targets[0].relative == "mean" and roofs.ranges[0].index == 2
    # the budget: each fits 30 min on 2 cores at the heuristic rung (games counted up front; the
    # heuristic plays some 2,000-4,000 four-player games/s a core: the full map ran in 95 s, its file says)
    assert D.plan_games(sens)["games_at_most"] <= 250_000 and D.plan_games(tune)["games_at_most"] <= 30_000


def test_sensitivity_and_tuning_notebook_executes(tmp_path, monkeypatch):
    import nbclient
    import nbformat
    monkeypatch.setenv("SKYLINE_LAB_RESULTS", str(tmp_path))
    monkeypatch.setenv("SKYLINE_LAB_NOTEBOOK_GAMES", "100")
    notebook = nbformat.read(ROOT / "notebooks" / "sensitivity_and_tuning.ipynb", as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    outputs = "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                        + str(o.get("data", {}).get("text/markdown", ""))
                        for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", []))
    assert "8 design points" in outputs and "100 games per point" in outputs
    assert "key 'sensitivity.ranges.scoring.x_penalty': 90 is outside the legal range" in outputs
    assert "a rerun simulated 0 new games" in outputs
    assert "# Candidate 1 of the [tune] experiment 'cityline_tables_quick'" in outputs
    assert (tmp_path / "cityline_map_quick" / "figures" / "sensitivity_heat_map.png").is_file()
    assert (tmp_path / "cityline_tables_quick" / "candidates" / "candidate_1.toml").is_file()
