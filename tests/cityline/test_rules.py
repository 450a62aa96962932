"""Construction and occupancy rules on hand-built positions."""
import numpy as np
import pytest

from engines.cityline.state import (
    M_PHASE, OCC_BASE, P_FORCED_X, P_WASTED_EARLY, P_WASTED_WALLS, PH_OCCUPY, PH_REROLL, PH_ROOF, ROOF_BASE,
    S_FILLED, S_H, S_OCC, S_X, dice_of, views,
)
from cityline_helpers import occupancy_position, set_dice, sheet_game


def occ_action(v, col):  # col 1-based
    return OCC_BASE + (v - 1) * 8 + (col - 1)


def roof_action(v, col):
    return ROOF_BASE + (v - 1) * 8 + (col - 1)


def test_reroll_replaces_chosen_dice_with_the_reserve_then_builds():
    g = sheet_game([(0, 0, 0, 0, 0)] * 6)
    set_dice(g, [1, 2, 3, 3, 5, 6], reserve=[4, 4, 4, 4, 4, 4], phase=PH_REROLL, turn=0)
    assert g.legal_actions() == list(range(64))
    g.apply(0b001100)  # re-roll both 3s
    assert dice_of(g.state) == [1, 2, 4, 4, 5, 6]
    sheet = views(g.state, 0).sheet
    assert sheet[S_H, :6].tolist() == [1, 1, 0, 2, 1, 1]
    assert g.phase() == "roof"


def test_keep_all_dice():
    g = sheet_game([(0, 0, 0, 0, 0)] * 6)
    set_dice(g, [2, 2, 2], reserve=[6, 6, 6], phase=PH_REROLL, turn=3)
    g.apply(0)
    assert dice_of(g.state) == [2, 2, 2] and views(g.state, 0).sheet[S_H, 1] == 3


def test_walls_past_max_floors_are_wasted():
    g = sheet_game([(4, 0, 0, 0, 0)] + [(0, 0, 0, 0, 0)] * 5)
    set_dice(g, [1, 1, 1], reserve=[2, 2, 2], phase=PH_REROLL, turn=3)
    g.apply(0)
    v = views(g.state, 0)
    assert v.sheet[S_H, 0] == 5 and v.stat[P_WASTED_WALLS] == 2


def test_early_occupants_fill_a_roofed_building_and_extra_ones_are_wasted():
    #            h roof occ x filled
    g = sheet_game([(0, 0, 0, 0, 0), (2, 3, 1, 0, 0)] + [(0, 0, 0, 0, 0)] * 4)
    set_dice(g, [2, 2, 2, 4], reserve=[1, 1, 1, 1], phase=PH_REROLL, turn=2)
    g.apply(0)
    v = views(g.state, 0)
    assert v.sheet[S_OCC, 1] == 2 and v.sheet[S_H, 1] == 2   # a roofed column grows no more
    assert v.stat[P_WASTED_EARLY] == 2


def test_roof_goes_on_any_unroofed_column_with_any_rolled_value():
    g = sheet_game([(2, 0, 0, 0, 0), (1, 4, 0, 0, 0), (0, 0, 0, 0, 0), (3, 2, 0, 0, 0), (0, 0, 0, 0, 0),
                    (0, 0, 0, 0, 0)])
    set_dice(g, [5, 5, 1], phase=PH_ROOF, turn=3)
    legal = set(g.legal_actions())
    expected = {roof_action(v, c) for v in (1, 5) for c in (1, 3, 5, 6)}
    assert legal == expected


@pytest.mark.parametrize("needs_walls", [False, True])
def test_roof_on_a_column_without_walls_unless_the_variant_asks_for_walls(needs_walls):
    # columns 1 and 3 have walls, 2 4 5 6 none (column 3 roofed already); dice 2 5
    over = {"construction.roof_needs_walls": needs_walls}
    g = sheet_game([(2, 0, 0, 0, 0), (0, 0, 0, 0, 0), (1, 4, 0, 0, 0)] + [(0, 0, 0, 0, 0)] * 3, overrides=over)
    set_dice(g, [2, 5], phase=PH_ROOF, turn=4)
    cols = (1,) if needs_walls else (1, 2, 4, 5, 6)
    assert set(g.legal_actions()) == {roof_action(v, c) for v in (2, 5) for c in cols}
    # no unroofed column has walls: any unroofed column, whatever the variant
    g = sheet_game([(0, 0, 0, 0, 0), (0, 0, 0, 0, 0), (1, 4, 0, 0, 0)] + [(0, 0, 0, 0, 0)] * 3, overrides=over)
    set_dice(g, [2, 5], phase=PH_ROOF, turn=4)
    assert set(g.legal_actions()) == {roof_action(v, c) for v in (2, 5) for c in (1, 2, 4, 5, 6)}


def test_populate_fills_in_one_go_with_occupants_then_xs():
    # column 1: Odds, height 5, one early occupant; dice 1 3 3 4 -> three odd dice
    g = occupancy_position([(5, 1, 1, 0, 0), (2, 2, 0, 0, 0)] + [(0, 0, 0, 0, 0)] * 4, [1, 3, 3, 4])
    g.apply(occ_action(3, 1))
    v = views(g.state, 0)
    assert (v.sheet[S_OCC, 0], v.sheet[S_X, 0], v.sheet[S_FILLED, 0]) == (4, 1, 1)


def test_only_matching_buildings_and_occupant_dice_are_legal():
    # Odds (col 1) and Evens (col 2) open, High (col 3) open; dice 1 1 3 -> only Odds matches
    g = occupancy_position([(3, 1, 0, 0, 0), (3, 2, 0, 0, 0), (3, 4, 0, 0, 0)] + [(0, 0, 0, 0, 0)] * 3,
                           [1, 1, 3])
    assert set(g.legal_actions()) == {occ_action(1, 1), occ_action(3, 1)}
    with pytest.raises(ValueError):
        g.apply(occ_action(1, 2))


def test_pairs_count_only_dice_whose_value_repeats():
    g = occupancy_position([(5, 5, 0, 0, 0)] + [(0, 0, 0, 0, 0)] * 5, [2, 2, 4, 6, 6, 6])
    # the set-aside die must be one that placed an occupant: 2 or 6, not the lone 4
    assert set(g.legal_actions()) == {occ_action(2, 1), occ_action(6, 1)}
    g.apply(occ_action(6, 1))
    v = views(g.state, 0)
    assert v.sheet[S_OCC, 0] == 5 and v.sheet[S_X, 0] == 0


def test_forced_x_fill_when_no_building_matches():
    # Evens (col 2) and High (col 4) open; dice 1 3 -> nothing matches: any open building, any die
    g = occupancy_position([(0, 1, 0, 0, 0), (3, 2, 1, 0, 0), (0, 0, 0, 0, 0), (2, 4, 0, 0, 0),
                            (0, 0, 0, 0, 0), (0, 0, 0, 0, 0)], [1, 3], turn=4)
    assert set(g.legal_actions()) == {occ_action(v, c) for v in (1, 3) for c in (2, 4)}
    g.apply(occ_action(3, 2))
    v = views(g.state, 0)
    assert (v.sheet[S_OCC, 1], v.sheet[S_X, 1]) == (1, 2) and v.stat[P_FORCED_X] == 1


def test_game_stops_when_every_building_is_full():
    g = occupancy_position([(2, 1, 0, 0, 0), (0, 2, 0, 0, 0), (1, 3, 1, 0, 0)] + [(0, 0, 0, 0, 0)] * 3,
                           [1, 1, 2, 5, 6, 6])
    g.apply(occ_action(1, 1))
    assert g.is_over() and g.legal_actions() == []


def test_illegal_action_is_refused():
    g = sheet_game([(0, 0, 0, 0, 0)] * 6)
    set_dice(g, [2, 3], phase=PH_ROOF, turn=4)
    with pytest.raises(ValueError):
        g.apply(roof_action(4, 1))  # no 4 was rolled
