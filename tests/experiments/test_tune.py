"""`skyline-lab tune`: the defaults are the first trial, the same games every trial, an
out-of-sample check on another seed, and a preset written as data."""
import polars as pl
from typer.testing import CliRunner

from engines.core.presets import load_presets
from engines.registry import game_ids, get_game
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


def test_every_policy_s_defaults_are_a_row_of_its_search_space():
    """Trial 1 is the defaults only if the space holds them: a learned expert's negative weights
    (its penalties) get a range on their own side of 0, and its samples (a compute budget, not a
    preference) are not tuned."""
    checked = 0
    for game in game_ids():
        for info in get_game(game).policies.values():
            if info.follow or info.choices:
                continue
            space = T.search_space(info)
            assert "samples" not in space and "jitter" not in space
            for k, (lo, hi) in space.items():
                assert lo <= info.weights[k] <= hi, (game, info.name, k, info.weights[k], (lo, hi))
                checked += info.weights[k] < 0
    assert checked > 10   # the experts' negative weights are among them


def test_tuning_the_expert_starts_from_its_own_weights():
    """`tune GAME expert`: trial 1 plays the shipped model's row itself (its value is the shipped
    expert's win share on the tuning games, played again here), and the tuned row keeps its samples."""
    result = T.tune("cityline", "expert", "heuristic", players=2, trials=2, games=16, validate_games=16, seed=3)
    spec = get_game("cityline")
    kp = spec.kernel_params(spec.variants.load(None), 2)
    assert result.default_value == T._share(T._play(spec, kp, ["expert", "heuristic"], 2, 3, 16))
    assert "samples" not in result.best
    assert any(v < 0 for v in result.best.values())


def test_tuning_plays_the_rules_it_is_given(tmp_path, monkeypatch):
    """`tune --variant/--set`: trial 1 is the defaults' win share on those rules (not the default
    rules'), the text and the preset's comment name them (the comment's command tunes on them
    again), and a bad key is refused before any game."""
    spec = get_game("cityline")
    args = dict(players=2, trials=1, games=24, validate_games=8, seed=2)
    plain = T.tune("cityline", "heuristic", "greedy", **args)
    sunny = T.tune("cityline", "heuristic", "greedy", overrides={"sky.sun_bonus": 30}, **args)
    kp = spec.kernel_params(spec.variants.load(None, {"sky.sun_bonus": 30}), 2)
    assert sunny.default_value == T._share(T._play(spec, kp, ["heuristic", "greedy"], 2, 2, 24))
    assert sunny.default_value != plain.default_value
    assert "variant default, sky.sun_bonus = 30" in T.tune_text(sunny)
    assert "variant default" in T.tune_text(plain) and "sun_bonus" not in T.tune_text(plain)
    monkeypatch.setenv("SKYLINE_LAB_PRESETS", str(tmp_path / "presets"))
    text = T.save_preset(sunny, "sunny", 2).read_text()
    assert "--seed 2 --set sky.sun_bonus=30`" in text
    r = CliRunner().invoke(app, ["tune", "cityline", "heuristic", "--against", "random", "--trials", "1", "-n", "2",
                                 "--set", "sky.nope=1"])
    assert r.exit_code == 2 and "sky.nope" in r.output
