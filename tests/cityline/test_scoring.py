"""Final scoring, one rule at a time, on hand-built sheets (default tables:
types 1-4 `0 1 2 4 7 11`, 5 Pairs `0 1 3 5 8 12`, 6 Any `0 0 1 2 4 6`)."""
import pytest

from cityline_helpers import score_parts, set_dice, sheet_game

SUN, MOON, CLOUD = 0, 1, 2


def test_each_building_scores_its_table_at_its_occupancy():
    #            h  roof occ x filled
    g = sheet_game([(5, 1, 5, 0, 1), (3, 5, 2, 1, 1), (4, 6, 4, 0, 1)])
    s = score_parts(g)
    assert s["cols"][:3] == [11, 3, 4]
    assert s["score"] == 11 + 3 + 4 - 0  # one X: no penalty yet


def test_same_type_same_occupancy_scores_once():
    g = sheet_game([(3, 1, 3, 0, 1), (4, 1, 3, 1, 1)])
    s = score_parts(g)
    assert s["cols"][:2] == [4, 0] and s["zeroed"] == 1
    assert s["types"][1] == 4


def test_same_type_different_occupancy_both_score():
    g = sheet_game([(3, 1, 3, 0, 1), (4, 1, 4, 0, 1)])
    s = score_parts(g)
    assert s["cols"][:2] == [4, 7] and s["zeroed"] == 0


def test_same_type_rule_can_be_switched_off():
    g = sheet_game([(3, 1, 3, 0, 1), (4, 1, 3, 1, 1)], overrides={"scoring.same_type_once_per_level": False})
    assert score_parts(g)["cols"][:2] == [4, 4]


@pytest.mark.parametrize("xs, penalty", [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2), (5, 2)])
def test_x_penalty_is_one_per_two_rounded_down(xs, penalty):
    g = sheet_game([(5, 6, 5 - xs, xs, 1)])
    s = score_parts(g)
    assert s["x"] == xs and s["xpen"] == penalty
    assert s["score"] == [6, 4, 2, 1, 0, 0][xs] - penalty


@pytest.mark.parametrize("sky, odd, even, bonus", [
    (SUN, 2, 1, 3), (SUN, 1, 1, 0), (SUN, 1, 2, 0),       # sun pays on a strict odd majority only
    (MOON, 1, 2, 1), (MOON, 2, 2, 0), (MOON, 3, 0, 0),    # moon on a strict even majority
    (CLOUD, 2, 1, -2), (CLOUD, 0, 3, -2), (CLOUD, 2, 2, 0), (CLOUD, 0, 0, 0),  # cloud costs on any majority
])
def test_sky_bonus(sky, odd, even, bonus):
    g = sheet_game([(2, 1, 2, 0, 1)], sky=sky, odd=odd, even=even)
    s = score_parts(g)
    assert s["bonus"] == bonus and s["score"] == 2 + bonus


def test_roof_on_an_empty_column_scores_nothing():
    # a table paying 3 points for 0 occupants would show a wrongly counted empty building
    g = sheet_game([(0, 6, 0, 0, 0), (2, 6, 0, 2, 1)], overrides={"roof.6.table": [3, 3, 3, 3, 3, 3]})
    s = score_parts(g)
    assert s["cols"][:2] == [0, 3]
    assert s["score"] == 3 - 1


def test_empty_building_scores_its_zero_occupant_points_in_the_variant():
    over = {"roof.6.table": [3, 3, 3, 3, 3, 3], "scoring.empty_building_scores": True}
    g = sheet_game([(0, 6, 0, 0, 0), (2, 1, 0, 2, 1)], overrides=over)
    s = score_parts(g)
    assert s["cols"][:2] == [3, 0]
    assert s["score"] == 3 - 1


def test_sky_is_judged_on_construction_dice():
    from engines.cityline import new_game
    from engines.cityline.state import P_SKY, views
    # play any game to the occupancy phase and check the sky against the set-aside dice
    for seed in range(30):
        g = new_game(seed=seed)
        while g.phase() != "occupy" and not g.is_over():
            g.apply(g.policy_action("random"))
        v = views(g.state, 0)
        odd = sum(1 for x in v.aside[0] if x % 2 == 1)
        even = sum(1 for x in v.aside[0] if x and x % 2 == 0)
        assert odd + even == 6
        assert v.stat[P_SKY] == (SUN if odd >= 4 else MOON if even >= 4 else CLOUD)


# GAPS.md's default score tables, written out here so a changed table (in code or in the default
# variant file) fails: points for 0..5 occupants of each roof type
DEFAULT_TABLES = {
    1: [0, 1, 2, 4, 7, 11],   # Odds
    2: [0, 1, 2, 4, 7, 11],   # Evens
    3: [0, 1, 2, 4, 7, 11],   # Low
    4: [0, 1, 2, 4, 7, 11],   # High
    5: [0, 1, 3, 5, 8, 12],   # Pairs
    6: [0, 0, 1, 2, 4, 6],    # Any
}


@pytest.mark.parametrize("occupants", range(6))
def test_every_roof_type_scores_its_default_table(occupants):
    # one 5-floor building of each roof type, all with the same occupants (types differ, so the
    # once-per-level rule does not apply); the rest of each building is X's
    g = sheet_game([(5, roof, occupants, 5 - occupants, 1) for roof in range(1, 7)])
    s = score_parts(g)
    assert s["cols"] == [DEFAULT_TABLES[roof][occupants] for roof in range(1, 7)]
    assert s["types"][1:] == s["cols"]
    xs = 6 * (5 - occupants)
    assert s["x"] == xs and s["score"] == sum(s["cols"]) - xs // 2


def test_the_default_variant_file_holds_the_same_tables():
    from engines.cityline.params import VARIANTS
    v = VARIANTS.load("default")
    assert {r: list(v.get(f"roof.{r}.table")) for r in range(1, 7)} == DEFAULT_TABLES


@pytest.mark.parametrize("roof, counted", [
    (1, 4),   # Odds: 1 3 5 5
    (2, 2),   # Evens: 2 4
    (3, 3),   # Low (1-3): 1 2 3
    (4, 3),   # High (4-6): 4 5 5
    (5, 2),   # Pairs: the two 5s (no other value repeats)
    (6, 6),   # Any: every die
])
def test_every_roof_type_counts_its_dice(roof, counted):
    # the default population rules: dice 1 2 3 4 5 5 populate a 5-floor building of each type
    from engines.cityline.state import P_ACTIVE, PH_OCCUPY, OCC_BASE, S_OCC, S_X, views
    g = sheet_game([(5, roof, 0, 0, 0)] + [(0, 0, 0, 0, 0)] * 5, sky=0)
    set_dice(g, [1, 2, 3, 4, 5, 5], phase=PH_OCCUPY, turn=0)
    views(g.state, 0).stat[P_ACTIVE] = 1
    die = next(v for v in (5, 4, 3, 2, 1) if g.legal_actions() and OCC_BASE + (v - 1) * 8 in g.legal_actions())
    g.apply(OCC_BASE + (die - 1) * 8)
    v = views(g.state, 0)
    assert (v.sheet[S_OCC, 0], v.sheet[S_X, 0]) == (min(counted, 5), 5 - min(counted, 5))
