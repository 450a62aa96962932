"""[ladder] in experiment files: every figure at each rung of the skill ladder (each rung a
self-play batch), side by side with a verdict; bad ladder tables are refused with the file,
the key and the reason; a NaN never becomes a verdict."""
import math
import textwrap
from pathlib import Path

import polars as pl
import pytest

from analysis import ladder as L
from engines.registry import get_game
from experiments import experiment_report as R
from experiments.experiment import ExperimentError, load_experiment, run_experiment

ROOT = Path(__file__).resolve().parents[2]

# coin (tests/experiments/coingame.py): the first player's bonus grows with skill (0 for random)
LADDER = """
# Does the Key edge hold at every skill level?
[experiment]
game = "coin"
players = 3
overrides = { "scoring.multiplier" = 3 }
games = 600
seed = 4
metrics = ["first_builder_win_rate", "seat_edge", "margin"]
answer = ["first_builder_win_rate"]

[ladder]
rungs = ["random", "greedy", "strong"]
"""


def _write(tmp_path, text, name="lad.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_ladder_file_parses_into_one_self_play_batch_per_rung(tmp_path):
    exp = load_experiment(_write(tmp_path, LADDER))
    assert exp.kind == "ladder" and exp.rungs == ["random", "greedy", "strong"]
    assert [p.label for p in exp.plans] == exp.rungs
    assert [p.policies for p in exp.plans] == [[r] * 3 for r in exp.rungs]
    assert {p.players for p in exp.plans} == {3} and exp.pairs_to_compare() == []
    # players may be given in the [ladder] table instead
    moved = load_experiment(_write(tmp_path, LADDER.replace("players = 3\n", "").replace(
        "[ladder]\n", "[ladder]\nplayers = 2\n")))
    assert {p.players for p in moved.plans} == {2}


def test_the_default_rungs_are_the_games_declared_ladder(tmp_path):
    spec = get_game("cityline")
    exp = load_experiment(_write(tmp_path, """
        # Cityline at every rung?
        [experiment]
        game = "cityline"
        players = 2
        games = 10
        [ladder]
        """))
    assert exp.rungs == list(spec.ladder) and [p.label for p in exp.plans] == list(spec.ladder)
    assert exp.metrics == ["seat_edge", "roof_points"]   # the ladder command's figures per rung by default


BAD = [
    # (change to LADDER, key named, words in the reason)
    (("rungs = [", "rung = ["), "ladder.rung", "unknown key (did you mean 'rungs'?)"),
    (('"strong"]', '"expert"]'), "ladder.rungs", "rung 'expert': unknown policy 'expert' for coin"),
    (('rungs = ["random", "greedy", "strong"]', ""), "ladder.rungs", "coin declares no skill ladder"),
    (('rungs = ["random", "greedy", "strong"]', 'rungs = ["strong"]'), "ladder.rungs", "at least two rungs"),
    (('"greedy", "strong"]', '"greedy", "greedy"]'), "ladder.rungs", "the rung 'greedy' is named twice"),
    (('rungs = ["random", "greedy", "strong"]', "rungs = [1, 2]"), "ladder.rungs", "must be a list of strings"),
    (("seed = 4", 'seed = 4\npolicies = ["strong"]'), "experiment.policies", "a [ladder] sets every seat's policy"),
    (("[ladder]\n", "[ladder]\nplayers = 2\n"), "ladder.players", "set it in one place"),
    (("players = 3\n", ""), "ladder.players", "Coin is for 1-4 players, not 9"),
    (("[ladder]", '[sweep]\n"scoring.key_bonus" = [1, 2]\n[ladder]'), "ladder",
     "a ladder plays every rung of one set-up"),
    (("[ladder]", '[precision]\nhalf_width = 0.1\non = "differences"\n[ladder]'), "precision.on",
     "'differences' needs a [sweep] or [compare]"),
]


@pytest.mark.parametrize("change, key, reason", BAD, ids=[b[1] + ":" + b[2][:24] for b in BAD])
def test_bad_ladder_tables_are_refused_naming_file_key_and_reason(tmp_path, change, key, reason):
    text = LADDER.replace(*change)
    if reason.endswith("not 9"):
        text = text.replace("[ladder]\n", "[ladder]\nplayers = 9\n")
    path = _write(tmp_path, text)
    results = tmp_path / "results"
    with pytest.raises(ExperimentError) as info:
        run_experiment(path, results=results)
    error = info.value
    assert error.source == str(path) and error.key == key and reason in error.reason, str(error)
    assert not results.exists()  # refused before any folder was made


def test_coin_ladder_end_to_end_reports_each_figure_per_rung_with_a_verdict(tmp_path):
    path = _write(tmp_path, LADDER)
    result = run_experiment(path, results=tmp_path / "results")
    table = result.ladder
    assert table["rung"].unique(maintain_order=True).to_list() == ["random", "greedy", "strong"]
    verdicts = dict(table.filter(pl.col("metric") == "first_builder_win_rate")
                    .select("rung", "verdict").iter_rows())
    # random players get no Key bonus; greedy and strong do: the edge is the players', and with
    # no search rung "appears only for weak play" can never be said
    some = "shows at greedy, strong (+); undetermined at random at 600 games per rung"
    assert set(verdicts.values()) == {some}
    margin = table.filter(pl.col("metric") == "margin")["verdict"].unique().to_list()
    assert margin == [L.UNDETERMINED_NO_REFERENCE]   # a margin has no fair value: no verdict
    text = result.report.read_text()
    assert "## Across the ladder" in text and some in result.answer
    # the Results table names the line-up that produced each number
    assert "| strong | strong in every seat | first_builder_win_rate |" in text
    out = tmp_path / "results" / "lad"
    assert pl.read_csv(out / "ladder.csv").height == table.height
    assert pl.read_parquet(out / "ladder.parquet").equals(table)
    again = run_experiment(path, results=tmp_path / "results")
    assert again.games_simulated == 0 and again.ladder.equals(table)   # cached: never simulated twice
    # each rung's run report says whose play every figure shows
    from analysis.report import build_report

    report = build_report(result.records[2].path).read_text()
    summary = report.split("## Summary of findings")[1].split("## Contents")[0]
    assert "played by strong in every seat" in summary and "Played by strong in every seat." in report


def test_cityline_ladder_with_a_search_rung_end_to_end(tmp_path):
    """The shipped Cityline file at a tiny size: every rung played (search included), the report's
    Across the ladder section has one row and one verdict per metric and key."""
    result = run_experiment(ROOT / "experiments" / "cityline_roof_values_ladder.toml", results=tmp_path, games=8,
                            precision=False)
    exp = result.experiment
    assert exp.rungs[-1].startswith("search") and [r.plan.policies[0] for r in result.records] == exp.rungs
    text = result.report.read_text()
    section = text.split("## Across the ladder", 1)[1].split("\n## ", 1)[0]
    header = next(line for line in section.splitlines() if line.startswith("| metric |"))
    assert header == "| metric | key | " + " | ".join(exp.rungs) + " | judged against | verdict |"
    rows = [line for line in section.splitlines() if line.startswith("| roof_points |")
            or line.startswith("| seat_edge |")]
    keys = result.ladder.select("metric", "key").unique()
    assert len(rows) == keys.height == 6 + 4       # six roof types, four seats
    for line in rows:
        verdict = line.rstrip(" |").rsplit("|", 1)[1].strip()
        assert verdict.startswith(("holds at every rung", "appears only for weak play", "changes sign",
                                   "larger for", "shows at", "present on average", "no effect at any rung",
                                   "undetermined"))
    roof = result.ladder.filter(pl.col("metric") == "roof_points")
    assert set(roof["judged_against"]) == {L.KEY_MEAN}   # roof types against the average roof type


def test_a_nan_estimate_gives_undetermined_and_shows_as_na():
    exp = type("Exp", (), {"rungs": ["random", "heuristic", "search(iterations=4)"]})()
    rows = []
    for rung, value in zip(exp.rungs, (0.1, math.nan, 0.1)):
        rows.append({"metric": "seat_edge", "key": "1st", "rung": rung, "n": 10, "estimate": value,
                     "low": value - 0.05, "high": value + 0.05, "reference": 0.0, "effect": value,
                     "effect_low": value - 0.05, "effect_high": value + 0.05, "effect_reference": 0.0,
                     "judged_against": L.FAIR_VALUE})
    findings = pl.DataFrame(rows, schema=L.FINDINGS_SCHEMA)
    effects = pl.DataFrame(schema=L.EFFECTS_SCHEMA)
    verdicts = L.ladder_verdicts(L.RungFindings(findings, effects), exp.rungs).drop("kind")
    assert verdicts["verdict"].to_list() == [L.UNDETERMINED_NAN]
    view = R.ladder_view(exp, findings.join(verdicts, on=["metric", "key"]))
    assert view["heuristic"][0] == "n/a" and view["verdict"][0].startswith("undetermined")
    # a rung with no row at all is a NaN too, never a smaller ladder
    missing = L.ladder_verdicts(L.RungFindings(findings.filter(pl.col("rung") != "heuristic").with_columns(
        pl.lit(0.1).alias("effect"), pl.lit(0.05).alias("effect_low"), pl.lit(0.15).alias("effect_high")), effects),
        exp.rungs)
    assert missing["verdict"].to_list() == [L.UNDETERMINED_NAN]


def test_the_skyline_3000_ladder_file_validates_with_the_rungs_that_exist(tmp_path):
    """Skyline 3000's search player is added on another branch: until it is here, the file is
    validated without its search rung, and its only refusal must be that missing policy."""
    path = ROOT / "experiments" / "skyline_first_builder_ladder.toml"
    if "search" in get_game("skyline_3000").policies:
        exp = load_experiment(path)
    else:
        with pytest.raises(ExperimentError) as info:
            load_experiment(path)
        assert info.value.key == "ladder.rungs" and "unknown policy 'search' for skyline_3000" in info.value.reason
        text = path.read_text().replace('    "search(iterations=50)",', "")
        exp = load_experiment(_write(tmp_path, text, "skyline_first_builder_ladder.toml"))
    assert exp.game == "skyline_3000" and {p.players for p in exp.plans} == {4}
    assert exp.rungs[:3] == ["random", "greedy", "heuristic"]
    assert exp.metrics == ["first_builder_win_rate", "seat_edge"]
