"""Variant validation: every refusal names the key and the reason."""
import pytest

from engines.cityline.params import VARIANTS, kernel_params
from engines.core.variant import VariantError


def test_shipped_variants_load():
    for name in VARIANTS.names():
        kernel_params(VARIANTS.load(name), 2)


def test_default_matches_gaps():
    kp = kernel_params(VARIANTS.load(), 1)
    assert kp.table[1].tolist()[:6] == [0, 1, 2, 4, 7, 11]
    assert kp.table[5].tolist()[:6] == [0, 1, 3, 5, 8, 12]
    assert kp.table[6].tolist()[:6] == [0, 0, 1, 2, 4, 6]
    assert (kp.columns, kp.max_floors, kp.dice, kp.construction_turns, kp.occupancy_turns) == (6, 5, 6, 6, 6)
    assert (kp.sun_bonus, kp.moon_bonus, kp.cloud_bonus) == (3, 1, -2)
    assert kp.reroll_multi == 0 and kp.reroll_solo == 1
    assert kp.roof_needs_walls == 0 and kp.empty_scores == 0


@pytest.mark.parametrize("overrides, key, words", [
    ({"game.colums": 6}, "game.colums", "unknown key"),
    ({"game.max_floors": 0}, "game.max_floors", "at least"),
    ({"sky.sun_bonus": 99}, "sky.sun_bonus", "at most"),
    ({"roof.2.table": [0, 1, 2]}, "roof.2.table", "max_floors + 1"),
    ({"roof.3.rule": "primes"}, "roof.3.rule", "must be one of"),
    ({"roof.3.params": [5, 2]}, "roof.3.params", "lo <= hi"),
    ({"roof.5.params": []}, "roof.5.params", "min_copies"),
    ({"construction.multiplayer_reroll": "everyone"}, "construction.multiplayer_reroll", "must be one of"),
    ({"game.construction_turns": 7}, "game.construction_turns", ""),
    ({"sky.moon_min_even": 2}, "sky.moon_min_even", "both"),
    ({"construction.roof_needs_walls": 1}, "construction.roof_needs_walls", "true or false"),
    ({"scoring.empty_building_scores": "yes"}, "scoring.empty_building_scores", "true or false"),
])
def test_bad_values_are_refused_with_the_key(overrides, key, words):
    with pytest.raises(VariantError) as err:
        VARIANTS.load("default", overrides)
    assert err.value.key == key and words in err.value.reason


def test_unknown_key_in_a_file(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('extends = "default"\n[scoring]\nx_penalty_per = 3\n')
    with pytest.raises(VariantError) as err:
        VARIANTS.load(str(path))
    assert err.value.key == "scoring.x_penalty_per"


def test_a_new_roof_type_without_code():
    # roof 6 becomes "Sixes": only dice showing 6 count
    v = VARIANTS.load("default", {"roof.6.rule": "set", "roof.6.params": [6], "roof.6.table": [0, 5, 9, 12, 14, 15]})
    kp = kernel_params(v, 1)
    assert kp.roof_faces[6] == 1 << 6 and kp.table[6, 1] == 5
