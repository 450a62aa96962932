"""Named weight presets (engines.core.presets): loaded as ordinary policies, bad files refused
with the preset and the reason, written without losing the other presets."""
import pytest

from engines.core.presets import PresetError, load_presets, write_preset
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
