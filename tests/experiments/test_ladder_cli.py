"""`skyline-lab ladder`: plays the rating tables and the self-play runs as resumable run folders,
prints and writes the ladder, and never reports a ladder with a missing part."""
import json
import shutil

import pytest

import polars as pl
from typer.testing import CliRunner

from analysis.run import Run
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


def test_the_ladder_plays_the_rules_it_is_given(tmp_path, monkeypatch):
    """--variant / --set reach every table (the tables' run folders hold them, and the games differ
    from the default rules' on the same seed), the ladder says which rules it played, the default
    folder name keeps other rules apart, and a bad key is refused before anything is written."""
    base = ["ladder", "cityline", "-p", "2", "--rung", "greedy", "--rung", "heuristic", "-n", "40",
            "--findings-games", "0", "-j", "1", "--quiet", "--seed", "4"]
    default = cli.invoke(app, base + ["-o", str(tmp_path / "default")])
    assert default.exit_code == 0, default.output
    assert "Rules: variant default." in default.output
    changed = cli.invoke(app, base + ["-o", str(tmp_path / "sun"), "--set", "sky.sun_bonus=30"])
    assert changed.exit_code == 0, changed.output
    assert "Rules: variant default, sky.sun_bonus = 30." in changed.output
    for folder, changes in (("default", {}), ("sun", {"sky.sun_bonus": 30})):
        manifest = json.loads((tmp_path / folder / "tables" / "table00" / "manifest.json").read_text())
        assert manifest["variant"]["overrides"] == changes
    s_default, s_sun = (Run.open(tmp_path / folder / "tables" / "table00").scan("players").select("score").collect()
                        for folder in ("default", "sun"))
    assert s_default.height == s_sun.height == 80 and not s_default.equals(s_sun)
    # the default folder: other rules get their own
    monkeypatch.chdir(tmp_path)
    named = cli.invoke(app, base[:2] + ["-p", "2", "--rung", "greedy", "--rung", "heuristic", "-n", "2",
                                        "--findings-games", "0", "-j", "1", "--quiet", "--set", "sky.sun_bonus=30"])
    assert named.exit_code == 0, named.output
    (folder,) = (tmp_path / "results").iterdir()
    assert folder.name.startswith("ladder-cityline-") and folder.name != "ladder-cityline-2p-seed0-2g"
    # a ladder folder of other rules is refused in one line, in the ladder's words (it has no --fresh)
    other = cli.invoke(app, base + ["-o", str(tmp_path / "default"), "--set", "sky.sun_bonus=31"])
    assert other.exit_code == 2 and "holds a ladder of other settings" in other.output, other.output
    assert "--fresh" not in other.output
    assert json.loads((tmp_path / "default" / "tables" / "table00" / "manifest.json").read_text())[
        "variant"]["overrides"] == {}
    bad = cli.invoke(app, base + ["-o", str(tmp_path / "bad"), "--set", "sky.nope=1"])
    assert bad.exit_code == 2 and "sky.nope" in bad.output and not (tmp_path / "bad").exists()


def test_a_variant_for_a_number_of_players_sets_the_tables():
    """Without -p a ladder on a variant made for 3 players plays 3-seat tables (the game's ladder
    plays 4), and -p still decides when given."""
    assert plan_ladder("skyline_3000", rungs=["greedy", "heuristic"]).players == 4
    assert plan_ladder("skyline_3000", rungs=["greedy", "heuristic"], variant="three_player_5_platforms").players == 3
    assert plan_ladder("skyline_3000", rungs=["greedy", "heuristic"], players=2).players == 2
