"""`skyline-lab ladder`: plays the rating tables and the self-play runs as resumable run folders,
prints and writes the ladder, and never reports a ladder with a missing part."""
import shutil

import pytest

import polars as pl
from typer.testing import CliRunner

from experiments.cli import app
from experiments.ladder import ladder_tables, plan_ladder, tables_how
from experiments.runner import RunError

cli = CliRunner()
RUNGS = ["random", "greedy", "heuristic", "search(iterations=4)"]


def _args(out):
    args = ["ladder", "cityline", "-p", "3", "-n", "30", "--findings-games", "6", "-o", str(out), "-j", "1", "--quiet"]
    for r in RUNGS:
        args += ["--rung", r]
    return args


def test_tables_cover_every_rung_in_every_combination():
    assert ladder_tables(("a", "b", "c", "d"), 3) == (("a", "b", "c"), ("a", "b", "d"), ("a", "c", "d"),
                                                       ("b", "c", "d"))
    assert ladder_tables(("a", "b"), 3) == (("a", "a", "a"), ("a", "a", "b"), ("a", "b", "b"), ("b", "b", "b"))
    plan = plan_ladder("cityline", games=31, findings_games=5, players=3, rungs=RUNGS)
    assert plan.games == 33 and plan.findings_games == 6   # whole seat rotations
    assert tables_how(plan) == "every 3 of the 4 rungs"
    assert tables_how(plan_ladder("cityline", rungs=["random", "greedy"], players=3)).endswith("repeats allowed")
    # rungs are the runner's canonical labels (a default weight is not written), named once
    assert plan_ladder("cityline", rungs=["random", "search(iterations=400)"], players=2).rungs == ("random", "search")
    with pytest.raises(RunError, match="twice"):
        plan_ladder("cityline", rungs=["search", "search(iterations=400)"], players=2)


def test_ladder_command_writes_ratings_findings_and_plot(tmp_path):
    out = tmp_path / "lad"
    result = cli.invoke(app, _args(out))
    assert result.exit_code == 0, result.output
    assert "| random | -" in result.output and "Findings per rung" in result.output
    ratings = pl.read_parquet(out / "ratings.parquet")
    assert ratings["rung"].to_list() == RUNGS
    r = dict(zip(ratings["rung"], ratings["rating"]))
    assert r["heuristic"] > r["random"]                    # 4 tables x 30 games: a wide gap
    assert abs(sum(r.values())) < 1e-9                      # centred on the rungs' mean
    findings = pl.read_parquet(out / "findings.parquet")
    assert set(findings["rung"]) == set(RUNGS) and set(findings["metric"]) == {"seat_edge", "roof_points"}
    assert (out / "ladder.png").stat().st_size > 0 and "Skill ladder" in (out / "ladder.md").read_text()
    # resumed: the finished runs are reused, the ladder is the same
    again = cli.invoke(app, _args(out))
    assert again.exit_code == 0, again.output
    assert pl.read_parquet(out / "ratings.parquet").equals(ratings)
    # a missing run is played again, never silently left out
    shutil.rmtree(out / "tables" / "table01")
    third = cli.invoke(app, _args(out))
    assert third.exit_code == 0 and (out / "tables" / "table01" / "manifest.json").is_file()


def test_a_game_without_a_ladder_or_a_one_seat_table_is_refused(tmp_path):
    result = cli.invoke(app, ["ladder", "cityline", "-p", "1", "-o", str(tmp_path / "x")])
    assert result.exit_code == 2 and "needs tables of 2-6 players, not 1" in result.output, result.output
    assert not (tmp_path / "x").exists()
