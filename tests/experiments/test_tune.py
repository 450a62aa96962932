"""`skyline-lab tune`: the defaults are the first trial, the same games every trial, an
out-of-sample check on another seed, and a preset written as data."""
import polars as pl
from typer.testing import CliRunner

from engines.core.presets import load_presets
from engines.registry import get_game
from experiments import tune as T
from experiments.cli import app


def test_tuning_the_heuristic_against_random_finds_and_checks_a_row(tmp_path, monkeypatch):
    result = T.tune("cityline", "heuristic", "random", players=2, trials=3, games=24, validate_games=30, seed=2)
    # trial 1 is the defaults: its value is the defaults' win share on the tuning games, played again here
    spec = get_game("cityline")
    kp = spec.kernel_params(spec.variants.load(None), 2)
    assert result.default_value == T._share(T._play(spec, kp, ["heuristic", "random"], 2, 2, 24))
    assert set(result.best) == set(T.search_space(get_game("cityline").policy("heuristic")))
    assert "jitter" not in result.best
    assert set(result.validation["matchup"]) == {"tuned vs defaults", "tuned vs opponent", "defaults vs opponent"}
    text = T.tune_text(result)
    assert "out of sample" in text and "verdict" in text
    monkeypatch.setenv("SKYLINE_LAB_PRESETS", str(tmp_path / "presets"))
    path = T.save_preset(result, "heuristic_test", 2)
    assert path == tmp_path / "presets" / "cityline.toml"   # the user's presets, not the engine's
    presets = load_presets(get_game("cityline").policies, path)
    assert presets["heuristic_test"].policy_id == get_game("cityline").policy("heuristic").policy_id
    assert "skyline-lab tune cityline heuristic" in path.read_text()


def test_a_search_policy_or_a_one_seat_table_cannot_be_tuned():
    cli = CliRunner()
    r = cli.invoke(app, ["tune", "cityline", "search", "--trials", "1", "-n", "2"])
    assert r.exit_code != 0 and "not a scripted policy" in r.output
    r = cli.invoke(app, ["tune", "cityline", "heuristic", "-p", "1", "--trials", "1", "-n", "2"])
    assert r.exit_code != 0 and "at least 2 players" in r.output
