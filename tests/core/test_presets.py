"""Named weight presets (engines.core.presets): loaded as ordinary policies, bad files refused
with the preset and the reason, written without losing the other presets."""
import pytest

from engines.core.lineup import parse_policy_text
from engines.core.presets import PresetError, add_presets, load_presets, write_preset
from engines.core.search import search_policy
from engines.core.spec import PolicyInfo

BASE = {"random": PolicyInfo("random", 0, "r"), "heuristic": PolicyInfo("heuristic", 1, "h", {"a": 1.0, "b": 2.0})}
POLICIES = {**BASE, "search": search_policy(2, BASE)}


def test_a_preset_is_the_base_policy_with_other_defaults(tmp_path):
    path = tmp_path / "presets.toml"
    write_preset(path, "heuristic_tuned", "heuristic", "tuned", {"b": 3.5}, "tuned by a test\nsecond line")
    write_preset(path, "heuristic_bold", "heuristic", "bold", {"a": 9.0}, "another")
    write_preset(path, "heuristic_tuned", "heuristic", "tuned again", {"b": 4.0}, "replaced")
    presets = load_presets(POLICIES, path)
    assert list(presets) == ["heuristic_tuned", "heuristic_bold"]
    tuned = presets["heuristic_tuned"]
    assert tuned.policy_id == 1 and tuned.weights == {"a": 1.0, "b": 4.0} and tuned.description == "tuned again"
    assert "# replaced" in path.read_text() and "# tuned by a test" not in path.read_text()
    assert load_presets(POLICIES, tmp_path / "none.toml") == {}


@pytest.mark.parametrize("text, why", [
    ('[x]\nbase = "oracle"\n', "base must be one of the scripted policies"),
    ('[x]\nbase = "search"\n', "base must be one of the scripted policies"),
    ('[x]\nbase = "heuristic"\nweights = { c = 1 }\n', "no weight 'c'"),
    ('[x]\nbase = "heuristic"\nweights = { a = "big" }\n', "must be a finite number"),
    ('[x]\nbase = "heuristic"\ncolour = 1\n', "unknown key"),
    ('[heuristic]\nbase = "heuristic"\n', "already a policy"),
    ('[x\n', "not valid TOML"),
])
def test_bad_preset_files_are_refused_with_the_reason(tmp_path, text, why):
    path = tmp_path / "presets.toml"
    path.write_text(text)
    with pytest.raises(PresetError, match=why):
        load_presets(POLICIES, path)


@pytest.mark.parametrize("default_rollout", ["random", "heuristic"])
def test_the_search_may_roll_out_a_preset_with_its_weights(tmp_path, default_rollout):
    path = tmp_path / "presets.toml"
    write_preset(path, "heuristic_tuned", "heuristic", "tuned", {"b": 3.5}, "tuned by a test")
    policies = {**BASE, "search": search_policy(2, BASE, rollout=default_rollout)}
    add_presets(policies, path)
    assert "heuristic_tuned" in policies and "heuristic_tuned" in policies["search"].choices["rollout"]
    tuned = parse_policy_text(policies, "search(rollout=heuristic_tuned)")
    plain = parse_policy_text(policies, "search(rollout=heuristic)")
    # the same kernel (the base's id), the preset's weights in the row's tail
    assert tuned.weights == plain.weights and tuned.tail == (1.0, 3.5) and plain.tail == (1.0, 2.0)
    # the label names the preset even where the id is the default rollout's; it parses back
    assert tuned.label == "search(rollout=heuristic_tuned)"
    assert parse_policy_text(policies, tuned.label).row == tuned.row
    assert plain.label == ("search" if default_rollout == "heuristic" else "search(rollout=heuristic)")


def test_every_game_loads_its_presets_and_the_search_may_roll_them_out():
    # the presets `skyline-lab tune --preset` wrote are policies of the game (run, step API, ladder)
    import tomllib
    from pathlib import Path

    from engines.registry import game_ids, get_game

    found = 0
    for game in game_ids():
        spec = get_game(game)
        path = Path(__import__(f"engines.{game}", fromlist=["x"]).__file__).parent / "presets.toml"
        if not path.is_file():
            continue
        for name in tomllib.loads(path.read_text()):
            found += 1
            assert name in spec.policies, f"{game} does not load its preset {name}"
            assert name in spec.policies["search"].choices["rollout"], f"{game}: search cannot roll out {name}"
    assert found, "no game ships a preset: nothing checked"
