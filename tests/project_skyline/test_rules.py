"""Project Skyline rules on hand-built positions (NYC map unless named; grid in maps/nyc.toml):

         0 1 2 3 4 5 6 7 8 9 10
    r0:  a a a ~ b b c c c ~ ~        areas: a green, b grey, c white, d red, e grey,
    r1:  a 1 ~ ~ b 2 c d d d ~        f white, g green, h red, i grey, j white, k green,
    r2:  e e ~ f f f 3 d g g ~        l red, m white, n green, o grey, p red;
    r3:  e 4 ~ h h L i i i g ~        L landmark, digits monuments,
    r4:  e e ~ h h i i 5 k k ~        ferries (2,1)-(2,3), (6,1)-(6,3)
    r5:  j 6 ~ l l l m m k k ~
    r6:  j j ~ n 7 l m m o o ~
    r7:  j ~ ~ n n p p 8 o o ~
    r8:  ~ ~ ~ ~ p p ~ ~ ~ ~ ~
"""
import numpy as np
import pytest

from engines.project_skyline.rules import (
    advance_nb, area_payout_nb, area_places_nb, monuments_held_nb, score_area_nb, upgrade_cost_nb,
)
from engines.project_skyline.state import (
    A_BUY, A_SELL_DISC, A_SELL_SKIP, A_SITE, A_SPACE, A_STOP, A_TAKE, A_UPG, B_A_SITE, B_COUNTS, B_H,
    C_BUY, END_FLOOR, END_MONEY, M_CONT, M_E_MONEY, M_ENDING, M_PLAYER, M_ROUND, MK_BASIC, MK_REMOVED,
    MK_UMK, P_DISC, P_DISC_N, P_FLOORS, P_FORFEIT, P_UPOS, fields,
)
from tests.project_skyline.ps_helpers import (
    build, game, hand_codes, money, pb, play, set_draw, set_hand, set_money, space, targets, to_play,
    top, type_of,
)

GREEN_NYC = {(0, 0), (0, 1), (0, 2), (1, 0), (2, 8), (2, 9), (3, 9), (4, 8), (4, 9), (5, 8), (5, 9), (6, 3),
             (7, 3), (7, 4)}


def mon_index(g, name):
    return g.kp.map.mon_names.index(name)


def held(g, p):
    return int(monuments_held_nb(g.state.data, g.kp.cfg, p))


# ---------------------------------------------------------------- card effects

def test_s01_builds_one_floor_in_a_green_area():
    g = game(4)
    to_play(g, 0, ["S-01"], "green")
    play(g)
    assert g.phase() == "target"
    assert targets(g) == GREEN_NYC  # 4 players: no restricted zones
    g.apply(A_SPACE + space(g, 0, 0))
    assert top(g, 0, 0) == 0 and money(g, 0) == 2  # (0,0) carries a one-time money 2 bonus


def test_s02_stacks_two_on_one_grey_space_and_the_7_floor_cap_forfeits():
    g = game(4)
    build(g, 1, 0, 4, 6)
    to_play(g, 0, ["S-02"], "grey")
    play(g)
    assert (0, 4) in targets(g)
    g.apply(A_SPACE + space(g, 0, 4))
    d = g.state.data
    assert d[B_H + space(g, 0, 4)] == 7 and top(g, 0, 0 + 4) == 0
    assert d[pb(0) + P_FORFEIT] == 1 and d[pb(0) + P_FLOORS] == 29
    # a 7-floor building takes no more floors
    to_play(g, 2, ["S-02"], "grey")
    play(g)
    assert (0, 4) not in targets(g)


def test_s04_builds_red_and_pays_one():
    g = game(4)
    to_play(g, 0, ["S-04"], "red")
    play(g)
    g.apply(A_SPACE + space(g, 1, 7))
    assert top(g, 1, 7) == 0 and money(g, 0) == 1


def test_money_card():
    g = game(4)
    to_play(g, 0, ["S-05", "S-06"], "green")
    assert g.legal_actions() == [48, A_STOP]  # only the green card
    play(g)
    assert money(g, 0) == 1


def test_u10_builds_only_on_buildings():
    g = game(4)
    build(g, 1, 5, 3)
    build(g, 2, 6, 9)
    to_play(g, 0, ["U-10g"], "green")
    play(g)
    assert targets(g) == {(5, 3), (6, 9)}


def test_u11_builds_next_to_water_in_any_area():
    g = game(4)
    to_play(g, 0, ["U-11g"], "green")
    play(g)
    t = targets(g)
    assert (0, 2) in t and (2, 3) in t and (4, 9) in t and (2, 5) not in t
    assert (0, 1) not in t and (3, 4) not in t


def test_u12_builds_next_to_a_monument_not_the_landmark():
    g = game(4)
    to_play(g, 0, ["U-12g"], "green")
    play(g)
    t = targets(g)
    assert (2, 5) in t and (1, 6) in t and (0, 1) in t
    assert (3, 4) not in t  # next to the landmark only


def test_u13_allows_one_card_of_another_symbol():
    g = game(4)
    to_play(g, 0, ["U-13g", "S-06", "S-07"], "green")
    assert g.legal_actions() == [48, A_STOP]
    play(g)
    assert g.legal_actions() == [48, 49, A_STOP]
    play(g)  # S-06 (grey) through the extra play
    assert money(g, 0) == 1 and g.phase() == "discard"  # nothing playable left: steps III-IV ran


def test_u14_sells_a_discard_card_for_two():
    g = game(4)
    d = g.state.data
    d[pb(0) + P_DISC_N] = 1
    d[pb(0) + P_DISC] = type_of(g, "S-05")
    to_play(g, 0, ["U-14g"], "green")
    play(g)
    assert g.phase() == "sell" and A_SELL_SKIP in g.legal_actions()
    g.apply(A_SELL_DISC + type_of(g, "S-05"))
    assert money(g, 0) == 2 and d[MK_REMOVED + type_of(g, "S-05")] == 1 and d[pb(0) + P_DISC_N] == 1  # U-14 itself


def test_u16_takes_a_basic_card_free_and_it_is_playable():
    g = game(4)
    to_play(g, 0, ["U-16r"], "red")
    play(g)
    assert g.phase() == "take"
    g.apply(A_TAKE + 3)  # red pile: B-04
    assert hand_codes(g, 0) == ["B-04"] and g.state.data[MK_BASIC + 3] == 6 and money(g, 0) == 0
    assert 48 in g.legal_actions()  # B-04 shows the red symbol


@pytest.mark.parametrize("own, others, drawn", [(5, 3, 2), (0, 3, 3), (3, 3, 3)])
def test_u17_draws_two_or_three_when_poorest(own, others, drawn):
    g = game(4)
    for p in range(4):
        set_money(g, p, others)
    set_money(g, 0, own)
    set_draw(g, 0, ["S-05", "S-06", "S-07", "S-08", "S-01"])
    to_play(g, 0, ["U-17g", "U-17y"], "green")
    play(g)
    assert len(hand_codes(g, 0)) == 1 + drawn


def test_u17_only_once_per_turn():
    g = game(4)
    set_money(g, 0, 9)
    set_draw(g, 0, ["S-05", "S-06", "S-07", "S-08", "S-01"])
    to_play(g, 0, ["U-17g", "U-17g"], "green")
    play(g)
    play(g)  # the second copy resolves, draws nothing
    assert sorted(hand_codes(g, 0)) == ["S-01", "S-08"]


# ---------------------------------------------------------------- areas

def test_area_payout_ties_and_half_rounded_up():
    d = np.zeros(20000, np.int64)
    g = game(4)

    def pay(value, counts):
        d[B_COUNTS:B_COUNTS + 4] = counts
        first, second = area_places_nb(d, g.kp.cfg, 4)
        return [area_payout_nb(value, c, first, second) for c in counts]

    assert pay(3, [2, 1, 1, 0]) == [3, 2, 2, 0]
    assert pay(3, [2, 2, 1, 0]) == [3, 3, 2, 0]   # tie for first: both full, second place stays
    assert pay(13, [1, 0, 3, 0]) == [7, 0, 13, 0]
    assert pay(12, [4, 0, 0, 0]) == [12, 0, 0, 0]  # alone: no second place


def test_area_scoring_when_the_last_free_space_is_built():
    g = game(4)
    d = g.state.data
    build(g, 1, 0, 4)
    build(g, 1, 0, 5)
    right = int(d[MK_UMK + 3])
    to_play(g, 0, ["S-02"], "grey")
    play(g)
    g.apply(A_SPACE + space(g, 1, 4))   # completes area b: 4 floors -> worth 3
    assert money(g, 1) == 3 and money(g, 0) == 2
    assert d[MK_REMOVED + right] == 1   # market refresh: the far-right card left the game
    # scored once only
    to_play(g, 2, ["U-10y"], "grey")
    play(g)
    g.apply(A_SPACE + space(g, 0, 4))
    assert money(g, 1) == 3 and money(g, 2) == 0


def test_area_value_table_nyc_and_tokyo():
    for variant, big in ((None, 12), ("tokyo", 13)):
        g = game(4, variant)
        d = g.state.data
        kp = g.kp
        a = kp.map.area_names.index("b") if variant is None else kp.map.area_names.index("a")
        fields(g.state)["a_floors"][a] = 9
        cells = [s for s in range(kp.n_sp) if kp.sp_area[s] == a]
        d[B_H + cells[0]] = 7
        fields(g.state)["top"][cells[0]] = 2
        score_area_nb(d, kp.cfg, a)
        assert money(g, 2) == big


# ---------------------------------------------------------------- monuments

def test_nyc_chain_to_the_landmark_and_losing_it_when_built_over():
    g = game(4)
    m5 = mon_index(g, "5")
    build(g, 0, 3, 6)              # next to the landmark
    assert not held(g, 0) >> m5 & 1
    build(g, 0, 3, 7)              # next to monument 5
    assert held(g, 0) >> m5 & 1
    build(g, 1, 3, 6)              # built over: the chain breaks
    assert not held(g, 0) >> m5 & 1


def test_nyc_ferries_link_and_monuments_never_link():
    g = game(4)
    m4, m2, m3 = mon_index(g, "4"), mon_index(g, "2"), mon_index(g, "3")
    for r, c in ((3, 4), (3, 3), (2, 3)):
        build(g, 0, r, c)
    assert not held(g, 0) >> m4 & 1
    build(g, 0, 2, 1)              # across the river by ferry
    assert held(g, 0) >> m4 & 1
    # seat 1: (4,5) by the landmark, (4,6) by monument 5, (4,8) across monument 5: a chain
    # never runs through a monument, so (4,8) is not reached
    for r, c in ((4, 5), (4, 6), (4, 8)):
        build(g, 1, r, c)
    from engines.project_skyline.rules import chain_reach_nb
    from engines.project_skyline.state import B_LOHI
    chain_reach_nb(g.state.data, g.kp.cfg, 1)
    lo = int(g.state.data[B_LOHI])
    reached = {g.kp.map.cells[s][:2] for s in range(64) if lo >> s & 1}
    assert reached == {(4, 5), (4, 6)}
    assert held(g, 1) >> mon_index(g, "5") & 1


def test_nyc_monument_bonus_is_paid_every_turn():
    g = game(4)
    build(g, 0, 3, 6)
    build(g, 0, 3, 7)
    to_play(g, 0, ["S-05"], "green")
    g.apply(A_STOP)
    m5 = mon_index(g, "5")
    assert g.kp.map.mon_kind[m5] == 0 and money(g, 0) == g.kp.map.mon_amt[m5] > 0   # monument 5's money


def test_tokyo_adjacent_count():
    g = game(4, "tokyo")
    m1 = mon_index(g, "1")         # (0,7), requires 2 of (0,6), (0,8), (1,7)
    build(g, 0, 0, 6)
    assert not held(g, 0) >> m1 & 1
    build(g, 0, 0, 8)
    assert held(g, 0) >> m1 & 1
    build(g, 1, 0, 8)
    assert not held(g, 0) >> m1 & 1


# ---------------------------------------------------------------- buy and upgrade

def _at_buy(g, p, hand, market, cash):
    d = g.state.data
    d[M_PLAYER] = p
    set_hand(g, p, hand)
    for j, code in enumerate(market):
        d[MK_UMK + j] = type_of(g, code)
    set_money(g, p, cash)
    d[M_CONT] = C_BUY
    advance_nb(d, g.state.rng, g.kp.cfg)


def test_upgrade_needs_a_shared_symbol():
    g = game(4)
    _at_buy(g, 0, ["S-01", "S-02"], ["U-10g", "U-10y", "U-11w", "U-11r"], 2)
    ups = [a for a in g.legal_actions() if a >= A_UPG]
    assert ups == [A_UPG + 0 * 4 + 0, A_UPG + 1 * 4 + 1]
    # B-01 (green, white) may become the white U-11
    _at_buy(g, 0, ["B-01"], ["U-10g", "U-10y", "U-11w", "U-11r"], 2)
    assert [a for a in g.legal_actions() if a >= A_UPG] == [A_UPG + 0, A_UPG + 2]


def test_upgrade_track_costs_1_2_3_5_then_none():
    g = game(4)
    d = g.state.data
    costs = []
    for u in range(5):
        d[pb(0) + P_UPOS] = u
        costs.append(int(upgrade_cost_nb(d, g.kp.cfg, 0)))
    assert costs == [1, 2, 3, 5, -1]
    d[pb(0) + P_UPOS] = 0
    _at_buy(g, 0, ["S-01"], ["U-10g", "U-10y", "U-11w", "U-11r"], 10)
    g.apply(A_UPG + 0)
    assert money(g, 0) == 9 and d[pb(0) + P_UPOS] == 1
    assert d[MK_REMOVED + type_of(g, "S-01")] == 1 and "U-10g" in hand_codes(g, 0)
    # the market slid right and revealed a new card at the far left
    assert d[MK_UMK + 1] != type_of(g, "U-10g") or d[MK_UMK + 0] >= 0


def test_buy_pays_the_price_and_cannot_overspend():
    g = game(4)
    _at_buy(g, 0, ["S-01"], ["U-10g", "U-10y", "U-11w", "U-11r"], 3)
    legal = g.legal_actions()
    assert A_BUY + 0 in legal and A_BUY + 3 not in legal  # B-01 costs 3, B-04 costs 4
    g.apply(A_BUY + 0)
    assert money(g, 0) == 0 and "B-01" in hand_codes(g, 0)


def test_no_money_skips_the_buy_step():
    g = game(4)
    _at_buy(g, 0, ["S-05"], ["U-10g", "U-10y", "U-11w", "U-11r"], 0)
    assert g.phase() == "symbol"


# ---------------------------------------------------------------- 2 players and restricted zones

def test_restricted_zones_with_2_and_3_players_only():
    for players, blocked in ((2, True), (3, True), (4, False)):
        g = game(players)
        if players == 2:
            g.state.data[B_A_SITE:B_A_SITE + 24] = 1  # sites everywhere: test restriction only
        to_play(g, 0, ["U-10g", "S-01"], "green")
        play(g, 1)
        assert ((0, 8) in targets(g)) is False  # (0,8) is white anyway
        g2 = game(players)
        if players == 2:
            g2.state.data[B_A_SITE:B_A_SITE + 24] = 1
        to_play(g2, 0, ["S-02"], "grey")
        play(g2)
        assert ((4, 0) not in targets(g2)) is blocked


def test_two_player_setup_places_construction_sites_alternately():
    g = game(2)
    d = g.state.data
    site = g.kp.map.area_names.index(g.kp.map.area_names[int(g.kp.site_area)])
    assert d[B_A_SITE + site] == 1
    assert g.phase() == "site" and g.current_player() == 0
    assert A_SITE + site not in g.legal_actions()
    g.apply(A_SITE + 0)
    assert g.phase() == "site" and g.current_player() == 1
    g.apply(A_SITE + 1)
    assert g.phase() in ("buy", "symbol") and g.current_player() == 0
    assert d[B_A_SITE:B_A_SITE + 24].sum() == 3


def test_two_player_new_buildings_only_in_site_areas():
    g = game(2)
    d = g.state.data
    d[B_A_SITE:B_A_SITE + 24] = 0
    area_a = g.kp.map.area_names.index("a")
    d[B_A_SITE + area_a] = 1
    build(g, 1, 2, 8)              # a building in green area g (no tile)
    to_play(g, 0, ["S-01"], "green")
    play(g)
    t = targets(g)
    assert t == {(0, 0), (0, 1), (0, 2), (1, 0), (2, 8)}


def test_two_player_site_moves_after_scoring_to_an_unbuilt_area():
    g = game(2)
    d = g.state.data
    d[B_A_SITE:B_A_SITE + 24] = 0
    b = g.kp.map.area_names.index("b")
    d[B_A_SITE + b] = 1
    build(g, 1, 0, 4)
    build(g, 1, 0, 5)
    build(g, 1, 3, 3)              # area h is built: no longer a target
    to_play(g, 0, ["S-02"], "grey")
    play(g)
    g.apply(A_SPACE + space(g, 1, 4))
    assert g.phase() == "site" and g.current_player() == 0
    areas = {g.kp.map.area_names[a - A_SITE] for a in g.legal_actions()}
    assert "b" not in areas and "h" not in areas and "a" in areas
    g.apply(A_SITE + g.kp.map.area_names.index("o"))
    assert d[B_A_SITE + b] == 0 and d[B_A_SITE + g.kp.map.area_names.index("o")] == 1


# ---------------------------------------------------------------- the end

def _finish_randomly(g):
    while not g.is_over():
        g.apply(g.policy_action("random"))


def test_end_money_finishes_the_round_plus_one():
    g = game(4)
    set_money(g, 2, 49)
    to_play(g, 2, ["S-05"], "green")
    play(g)
    d = g.state.data
    assert d[M_E_MONEY] == 1       # reached in round 0: round 1 is the last
    _finish_randomly(g)
    assert d[M_ROUND] == 1 and d[M_ENDING] == END_MONEY


def test_end_money_without_extra_round():
    g = game(4, overrides={"end.extra_round": False})
    set_money(g, 2, 49)
    to_play(g, 2, ["S-05"], "green")
    play(g)
    _finish_randomly(g)
    assert g.state.data[M_ROUND] == 0


def test_last_floor_ends_at_the_end_of_the_round():
    g = game(4)
    d = g.state.data
    d[pb(1) + P_FLOORS] = 1
    to_play(g, 1, ["S-01"], "green")
    play(g)
    g.apply(A_SPACE + space(g, 0, 1))
    assert d[pb(1) + P_FLOORS] == 0
    _finish_randomly(g)
    assert d[M_ROUND] == 0 and d[M_ENDING] == END_FLOOR


def test_final_scoring_towers_card_values_and_tie_break():
    g = game(2, overrides={"setup.construction_sites": False})
    d = g.state.data
    build(g, 0, 0, 0, 7)
    set_money(g, 0, 10)
    set_money(g, 1, 5)
    from engines.project_skyline.rules import final_scoring_nb, score_of_nb
    final_scoring_nb(d, g.kp.cfg)
    # start cards are worth 0; one 7-floor building topped by seat 0: 5 money
    assert int(fields(g.state, 0)["final_end"][0]) == 5 and int(fields(g.state, 0)["final_cards"][0]) == 0
    assert int(score_of_nb(d, 0)) == 10 + 5 and int(score_of_nb(d, 1)) == 5
    fields(g.state, 1)["money"][0] = -3  # never below 0
    assert int(score_of_nb(d, 1)) == 0
