"""Cards and maps are data: the shipped files load, and a bad file is refused naming the file,
the row or space, and the reason."""
import re
from pathlib import Path

import pytest

from engines.project_skyline.params import (
    CARDS_DIR, MAPS_DIR, OP_BUILD, OP_DRAW, OP_STACK, TG_WATER, DataError, VARIANTS, kernel_params, load_cards,
    load_map, parse_effect,
)


def test_shipped_cards():
    cards = load_cards("standard")
    codes = [c.code for c in cards]
    assert codes[:8] == [f"S-0{i}" for i in range(1, 9)]
    assert sum(c.kind == 2 for c in cards) == 32          # 4 sets of U-10..U-17
    assert sum(c.copies for c in cards if c.kind == 1) == 28
    s02 = cards[codes.index("S-02")]
    assert s02.effects == ((OP_STACK, 2, 1),)             # 2 floors on one grey space
    u17 = cards[codes.index("U-17g")]
    assert u17.effects == ((OP_DRAW, 2, 3),)
    flat = load_cards("u17_flat")
    assert flat[[c.code for c in flat].index("U-17r")].effects == ((OP_DRAW, 2, 2),)
    assert len(flat) == len(cards)


def test_shipped_maps():
    nyc, tokyo = load_map("nyc"), load_map("tokyo")
    assert len(nyc.mon_names) == 8 and nyc.has_landmark
    assert len(tokyo.mon_names) == 9 and not tokyo.has_landmark
    # "about 60 buildable spaces in about 16 areas per map" (our designs: NYC 62 in 16, Tokyo 64
    # in 16; the first NYC had 77 in 19, the first Tokyo 78 in 20), 4 areas per colour, 2-6 spaces each
    assert (len(nyc.cells), len(nyc.area_names)) == (62, 16)
    assert (len(tokyo.cells), len(tokyo.area_names)) == (64, 16)
    for mp in (nyc, tokyo):
        assert sorted(mp.area_colour) == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
        sizes = [mp.space_area.count(a) for a in range(len(mp.area_names))]
        assert 2 <= min(sizes) and max(sizes) <= 6
    # NYC keeps its features: ferries across the west river, water on both edges, the landmark
    # between the monuments; a ferry makes (2,1) and (2,3) adjacent across the river
    a, b = nyc.space_of[(2, 1)], nyc.space_of[(2, 3)]
    assert b in nyc.neighbours[a]
    assert nyc.water[nyc.space_of[(0, 2)]] and nyc.water[nyc.space_of[(4, 9)]]
    assert sum(nyc.landmark_adj) == 4
    assert sum(nyc.restricted) == 6 and sum(tokyo.restricted) == 6


def test_map_is_a_variant_key():
    kp = kernel_params(VARIANTS.load("default", {"map": "tokyo"}), 3)
    assert kp.map.name == "Tokyo" and kp.n_mon == 9
    with pytest.raises(ValueError, match="map"):
        VARIANTS.load("default", {"map": "paris"})


def test_effect_words():
    assert parse_effect("build 2 water", "f", "r") == (OP_BUILD, 2, TG_WATER)
    with pytest.raises(DataError, match="unknown effect word 'teleport'"):
        parse_effect("teleport 2", "f.toml", "row 3")
    with pytest.raises(DataError, match="unknown place 'moon'"):
        parse_effect("build 1 moon", "f.toml", "row 3")


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_bad_card_file_names_file_row_and_reason(tmp_path):
    text = (CARDS_DIR / "standard.toml").read_text().replace('effect = ["money 1"] },\n  { code = "S-06"',
                                                                'effect = ["mony 1"] },\n  { code = "S-06"')
    p = _write(tmp_path, "bad.toml", text)
    with pytest.raises(DataError) as e:
        load_cards(p)
    assert str(p) in str(e.value) and "S-05" in str(e.value) and "unknown effect word 'mony'" in str(e.value)


def test_every_card_has_a_name_and_a_bad_name_is_refused(tmp_path):
    for cards in (load_cards("standard"), load_cards("u17_flat")):
        assert all(1 <= len(c.name) <= 24 for c in cards)
        assert len({c.base for c in cards}) == len({(c.base, c.name) for c in cards})   # one name per code
    text = (CARDS_DIR / "standard.toml").read_text()
    p = _write(tmp_path, "noname.toml", text.replace('name = "Grey income", ', ''))
    with pytest.raises(DataError) as e:
        load_cards(p)
    assert "S-06" in str(e.value) and "a card needs a name" in str(e.value)
    p = _write(tmp_path, "longname.toml", text.replace('"Grey income"', '"' + "x" * 25 + '"'))
    with pytest.raises(DataError, match="S-06.*1..24 characters"):
        load_cards(p)


def test_market_missing_a_colour_is_refused(tmp_path):
    lines = [ln for ln in (CARDS_DIR / "standard.toml").read_text().splitlines() if '"B-04"' not in ln]
    p = _write(tmp_path, "nored.toml", "\n".join(lines))
    with pytest.raises(DataError, match="no pile for colour red"):
        load_cards(p)


def test_monument_off_the_map_is_refused(tmp_path):
    text = re.sub(r'(\{ id = "8", bonus = "money \d" \},)', r'\1 { id = "9", bonus = "money 1" },',
                  (MAPS_DIR / "nyc.toml").read_text())
    assert '"9"' in text
    p = _write(tmp_path, "m.toml", text)
    with pytest.raises(DataError) as e:
        load_map(p)
    assert "monument 9" in str(e.value) and "off the map" in str(e.value) and str(p) in str(e.value)


def test_area_with_no_spaces_is_refused(tmp_path):
    text = (MAPS_DIR / "nyc.toml").read_text().replace('p = "red" }', 'p = "red", z = "red" }')
    p = _write(tmp_path, "a.toml", text)
    with pytest.raises(DataError, match="area 'z': area with no spaces"):
        load_map(p)


def test_unknown_area_letter_names_the_space(tmp_path):
    text = (MAPS_DIR / "nyc.toml").read_text().replace("a a a ~ b b", "a x a ~ b b", 1)
    p = _write(tmp_path, "x.toml", text)
    with pytest.raises(DataError, match=r"space row 0 col 1 \('x'\): area 'x' has no colour"):
        load_map(p)


def test_product_does_not_reference_shared_notes():
    root = Path(__file__).resolve().parents[2] / "engines" / "project_skyline"
    for path in list(root.rglob("*.py")) + list(root.rglob("*.toml")):
        text = path.read_text()
        assert "GAPS" not in text and "../shared" not in text and "shared/rules" not in text, path
