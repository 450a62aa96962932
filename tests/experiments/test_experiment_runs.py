"""Experiments end to end on the toy game `coin` (known effects, fast): sweeps,
comparisons, fairness, caching and resuming, precision and power, reports, CLI."""
import json
import textwrap

import polars as pl
import pytest
from typer.testing import CliRunner

from analysis import power as P
from experiments.cli import app
from experiments.experiment import load_experiment, next_game_count, run_experiment

SWEEP = """
# Does the Key edge grow with the multiplier?
[experiment]
game = "coin"
players = 3
policies = ["strong"]
games = 600
seed = 1
metrics = ["first_builder_win_rate", "seat_edge", "margin", "stall_rate"]

[sweep]
"scoring.multiplier" = [1, 2, 3]

[power]
effects = { first_builder_win_rate = 0.05 }
"""

COMPARE = """
# Does the tight board change anything?
[experiment]
game = "coin"
players = 3
policies = ["greedy"]
games = 500
seed = 2
metrics = ["seat_edge", "score_spread", "game_length", "tie_rate"]
answer = ["seat_edge"]

[compare]
[compare.printed]
[compare.again]
label = "printed again"
[compare.tight]
variant = "tight"
"""


def _write(tmp_path, text, name):
    path = tmp_path / f"{name}.toml"
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    return run_experiment(_write(tmp, SWEEP, "key_sweep"), results=tmp / "results"), tmp


def test_sweep_finds_the_planted_effect(sweep):
    result, _ = sweep
    est = result.estimates.filter(pl.col("metric") == "first_builder_win_rate").sort("plan_index")
    assert est["interval"].to_list() == ["Wilson"] * 3
    rates = est["estimate"].to_list()
    assert rates[0] < rates[1] < rates[2]
    # with multiplier 1 there is no Key bonus: the Key Player's interval holds the fair share
    assert est["low"][0] < est["reference"][0] < est["high"][0]
    assert est["reference"][0] > 1 / 3 and est["reference"][0] < 0.4  # 1/3 plus the shared wins
    edge = result.estimates.filter((pl.col("metric") == "seat_edge") & (pl.col("key") == "1st")).sort("plan_index")
    assert edge["low"][0] < 0 < edge["high"][0] and edge["low"][2] > 0
    comp = result.comparisons.filter(pl.col("metric") == "first_builder_win_rate")
    assert comp["arm_a"].unique().to_list() == ["multiplier=2"]
    assert comp["significant"].all() and comp["test"].unique().to_list() == ["McNemar"]
    # common random numbers: the paired interval is narrower than the unpaired one
    assert ((comp["high"] - comp["low"]) / 2 < comp["unpaired_half_width"]).all()
    # stalls do not depend on the rules here: identical per game, so exactly 0
    stall = result.comparisons.filter(pl.col("metric") == "stall_rate")
    assert stall["difference"].to_list() == [0.0, 0.0] and stall["test"].unique().to_list() == ["identical"]


def test_sweep_writes_the_report(sweep):
    result, tmp = sweep
    out = tmp / "results" / "key_sweep"
    assert result.report == out / "report.md"
    text = result.report.read_text()
    assert "Does the Key edge grow with the multiplier?" in text
    for words in ("Wilson score interval", "McNemar", "Bonferroni", "Benjamini-Hochberg", "paired t-test", "95%"):
        assert words in text
    for name in ("report.html", "estimates.csv", "comparisons.csv", "balance.csv", "power.csv", "manifest.json",
                 "figures/sweep_first_builder_win_rate.png", "figures/differences_first_builder_win_rate.png"):
        assert (out / name).is_file(), name
    manifest = json.loads((out / "manifest.json").read_text())
    assert [b["games_in_run"] for b in manifest["batches"]] == [600, 600, 600]
    table = pl.read_csv(out / "estimates.csv")
    assert table.filter(pl.col("metric") == "margin").height == 3


def test_rerun_simulates_nothing_new(sweep):
    result, tmp = sweep
    assert result.games_simulated == 3 * 600
    again = run_experiment(tmp / "key_sweep.toml", results=tmp / "results")
    assert again.games_simulated == 0
    assert again.estimates.equals(result.estimates)


def test_interrupted_run_resumes_and_more_games_extend(sweep, tmp_path):
    result, tmp = sweep
    folder = result.records[0].path
    markers = sorted((folder / "_done").iterdir())
    markers[-1].unlink()  # as if killed before the last chunk's marker
    again = run_experiment(tmp / "key_sweep.toml", results=tmp / "results")
    chunk = json.loads((folder / "manifest.json").read_text())["chunk_size"]
    assert again.games_simulated == chunk
    assert again.estimates.equals(result.estimates)
    more = run_experiment(tmp / "key_sweep.toml", results=tmp / "results", games=1000)
    assert more.analysis.n_games == 1000
    assert more.games_simulated == 3 * (1000 - 600) + 3 * (-1000 % chunk)


def test_power_table_matches_statsmodels(sweep):
    result, _ = sweep
    assert result.power["question"].to_list() == ["one batch: effect against the reference value",
                                                  "two batches: paired difference"]
    row = result.power.row(1, named=True)
    comp = result.comparisons.filter(pl.col("metric") == "first_builder_win_rate")
    sd_diff = comp["sd"].max()
    assert row["sd"] == pytest.approx(sd_diff)
    # Sized for the family the comparison is tested in (alpha / family size).
    tested = result.comparisons.filter((pl.col("family") == "primary") & pl.col("duplicate_of").is_null())
    assert row["family"] == tested.height >= 1
    assert row["games_needed"] == P.games_for_mean(0.05, sd_diff, family=row["family"])
    sd_values = result.estimates.filter(pl.col("metric") == "first_builder_win_rate")["sd"].max()
    assert row["games_needed_unpaired"] == P.games_for_two_means(0.05, sd_values, family=row["family"])
    assert row["games_needed"] < row["games_needed_unpaired"]


def test_compare_identical_arms_share_the_cache_and_differ_by_zero(tmp_path):
    result = run_experiment(_write(tmp_path, COMPARE, "cmp"), results=tmp_path / "results")
    assert result.records[0].path == result.records[1].path       # same games, one folder
    assert result.games_simulated == 2 * 500                      # printed and tight, not printed twice
    same = result.comparisons.filter(pl.col("arm_b") == "printed again")
    assert same.height > 0
    assert (same["difference"] == 0).all() and (same["low"] == 0).all() and (same["high"] == 0).all()
    assert not same["significant"].any()
    tight = result.comparisons.filter((pl.col("arm_b") == "tight") & (pl.col("metric") == "seat_edge"))
    second = tight.filter(pl.col("key") == "2nd").row(0, named=True)
    assert second["difference"] > 0 and second["significant"]     # 2 platforms fewer help the 2nd seat
    # The non-primary rows: Benjamini-Hochberg over that family, as statsmodels computes it.
    from statsmodels.stats.multitest import multipletests
    others = result.comparisons.filter((pl.col("family") == "secondary") & pl.col("p_value").is_not_nan())
    assert others["p_adjusted"].to_list() == pytest.approx(
        list(multipletests(others["p_value"].to_numpy(), method="fdr_bh")[1]))
    assert "Largest seat edge" in result.answer


def test_fairness_matrix_shows_a_conclusion_that_holds_only_for_weak_play(tmp_path):
    text = """
    # Which seat wins, by skill?
    [experiment]
    game = "coin"
    games = 1200
    seed = 4
    [fairness]
    players = [2, 3]
    policies = ["random", "strong"]
    """
    result = run_experiment(_write(tmp_path, text, "fair"), results=tmp_path / "results")
    matrix = result.fairness
    assert matrix.height == 4 and set(matrix["players"]) == {2, 3}
    # No margin set: nothing is "fair"; random play shows no seat edge, strong play a real one.
    assert (~matrix.filter(pl.col("policy") == "random")["unfair"]).all() and not matrix["fair"].any()
    strong = matrix.filter(pl.col("policy") == "strong")
    assert strong["unfair"].all() and strong["largest edge seat"].to_list() == ["1st", "1st"]
    # never "balanced" from "no seat edge detected": without a margin random play is undetermined, and
    # the paired test across skill levels says where the edge differs
    assert result.answer.startswith("Seat fairness: unfair with strong play; undetermined with random play "
                                    "(no seat edge shown; no margin set"), result.answer
    assert "balanced" not in result.answer.lower()
    assert (tmp_path / "results" / "fair" / "fairness.csv").is_file()
    assert (tmp_path / "results" / "fair" / "figures" / "fairness_seat_win_rates.png").is_file()


def test_precision_adds_games_until_the_target_with_a_cap(tmp_path):
    text = COMPARE + """
    [precision]
    metrics = ["seat_edge"]
    half_width = 0.012
    max_games = 5000
    """
    result = run_experiment(_write(tmp_path, text, "precise"), results=tmp_path / "results")
    log = result.precision_log
    assert log[0]["games"] == 500 and not log[0]["reached"]
    assert log[-1]["reached"] and log[-1]["widest_half_width"] <= 0.012
    assert result.analysis.n_games == log[-1]["games"] <= 5000
    capped = run_experiment(_write(tmp_path, text.replace("0.012", "0.001"), "capped"), results=tmp_path / "results")
    assert capped.precision_log[-1]["games"] == 5000 and not capped.precision_log[-1]["reached"]
    assert "not reached" in capped.answer
    assert next_game_count(1000, 0.02, 0.01, 10**6) == 4400 and next_game_count(1000, 0.02, 0.01, 3000) == 3000


def test_cli_runs_an_experiment_file_and_answers_the_power_question(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path, SWEEP, "cli_sweep")
    runner = CliRunner()
    result = runner.invoke(app, ["run", str(path), "--games", "300", "--quiet", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "report: results/cli_sweep/report.html" in result.output
    assert (tmp_path / "results" / "cli_sweep" / "report.html").is_file()
    power = runner.invoke(app, ["power", str(path), "--effect", "seat_score_edge=2", "--pilot", "300", "-j", "1"])
    assert power.exit_code == 0, power.output
    assert "seat_score_edge: to detect 2" in power.output and "games per batch" in power.output
    bad = runner.invoke(app, ["power", str(path), "--effect", "seat_scor_edge=2", "--pilot", "300", "-j", "1"])
    assert bad.exit_code == 2 and "unknown metric 'seat_scor_edge'" in bad.output


def test_an_edited_engine_never_reuses_a_cached_batch(tmp_path, monkeypatch):
    # Cached batches (results/_runs) are keyed on the engine's source digest with the variant
    # digest: after an edit (a new digest) every game is simulated again, in a folder of its own.
    import dataclasses

    import coingame

    path = _write(tmp_path, COMPARE, "cmp")
    first = run_experiment(path, results=tmp_path / "results", report=False)
    assert first.games_simulated == 2 * 500
    again = run_experiment(path, results=tmp_path / "results", report=False)
    assert again.games_simulated == 0                               # same engine: all from the cache
    monkeypatch.setattr(coingame, "SPEC", dataclasses.replace(coingame.SPEC, source_digest="edited-rules"))
    edited = run_experiment(path, results=tmp_path / "results", report=False)
    assert edited.games_simulated == 2 * 500
    assert {r.path for r in edited.records}.isdisjoint({r.path for r in first.records})
    manifest = json.loads((edited.records[0].path / "manifest.json").read_text())
    assert manifest["source_digest"] == "edited-rules" == manifest["config_key"]["source_digest"]


def test_a_cache_folder_of_other_games_is_replaced_not_reused(tmp_path):
    # Even under the right name, a folder whose manifest key differs is never read as these games.
    path = _write(tmp_path, COMPARE, "cmp")
    first = run_experiment(path, results=tmp_path / "results", report=False)
    folder = first.records[0].path
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["config_key"]["source_digest"] = "someone-else"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    again = run_experiment(path, results=tmp_path / "results", report=False)
    assert again.games_simulated == 500   # the tampered batch (shared by two arms) is played again, once


def test_one_contrast_one_family_even_outside_the_primary_family(tmp_path):
    """seat_win_rate[1st] and first_builder_win_rate are one contrast (the coin game's first builder is
    the 1st seat): with neither in the answer, the secondary family tests it once; first_builder_edge
    (the same contrast without shared wins) in the answer takes the secondary duplicates into its family."""
    text = SWEEP.replace('metrics = ["first_builder_win_rate", "seat_edge", "margin", "stall_rate"]',
                         'metrics = ["first_builder_win_rate", "seat_win_rate", "margin"]\n'
                         'answer = ["margin"]').replace("[power]\neffects = { first_builder_win_rate = 0.05 }\n", "")
    result = run_experiment(_write(tmp_path, text, "dups"), results=tmp_path / "results")
    table = result.comparisons
    for row in table.filter(pl.col("duplicate_of").is_not_null()).iter_rows(named=True):
        first = table.filter((pl.format("{} ({})", "metric", "key") == row["duplicate_of"])
                             & (pl.col("arm_a") == row["arm_a"]) & (pl.col("arm_b") == row["arm_b"])).row(0, named=True)
        assert (row["family"], row["p_adjusted"]) == (first["family"], first["p_adjusted"])
    fb = table.filter(pl.col("metric") == "first_builder_win_rate")
    seat1 = table.filter((pl.col("metric") == "seat_win_rate") & (pl.col("key") == "1st"))
    assert fb.height and seat1.height
    # one of the two is the other's duplicate in every pair of arms, never both tested
    assert (fb["duplicate_of"].is_not_null() | seat1["duplicate_of"].is_not_null()).all()
