"""Rules the rulebook prints (and GAPS.md reads), each written down as a test on a hand-built position:
the supply per colour, the 30M cash cap on every gain, the 4-cell bonus cards, the tie chain
(penthouses before the mission), a penthouse's income of 0 in play, the most valuable income group.

These use only the public action ids and the player block, so they also run against older engines:
the supply and cap tests fail on the engine before issue 23 (one shared pool, only income capped).
"""
import numpy as np
import pytest

from engines.core.harness import rank_nb
from engines.skyline_of_the_world import new_game
from engines.skyline_of_the_world.params import MAX_CELLS
from engines.skyline_of_the_world.rules import start_turn_nb
from engines.skyline_of_the_world.state import (
    BUILD_NEUTRAL, BUILD_SKY, DECK, M_MUST_BUY, M_PHASE, P_SKY_STOCK, PH_INVEST, PH_TRADE,
    CSUP, END, M_DECK_POS, BUILD_FLOOR, BUY_BASE, CASH_BASE, M_BANK_NET, M_PLAYER, P_CASH, P_HAND, P_MISSION, P_PENTHOUSES, P_STOCK, SELL_BASE,
    STOP, TRADE_BASE,
)
from sotw_helpers import cell, income, player, position, tie_keys

pytestmark = pytest.mark.jit_off   # rule tests: also in CI's plain-Python subset (16 s there)

FULL = [5, 5, 5, 5, 5, 1]
PENTHOUSE = 4          # stock kind of the penthouse (levels 1..5 are kinds 0..4)


def build(g, what, r, c):
    a = what * MAX_CELLS + cell(g, r, c)
    assert a in g.legal_actions(), g.action_name(a)
    g.apply(a)


def cash(g, p):
    return int(g.state.data[player(g, p) + P_CASH])


def stock(g, p, k):
    return int(g.state.data[player(g, p) + P_STOCK + k])


def buy_until_refused(g, k, limit=60):
    """Buy floors of kind k (cash kept topped up) until the rules refuse; how many were bought."""
    n = 0
    while BUY_BASE + k in g.legal_actions() and n < limit:
        g.state.data[player(g, g.current_player()) + P_CASH] = 30
        g.apply(BUY_BASE + k)
        n += 1
    return n


# ---------------------------------------------------------------- the supply per colour

@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("kind,per_colour,start", [(0, 8, 2), (1, 6, 1), (2, 4, 0), (3, 3, 0), (PENTHOUSE, 3, 0)])
def test_each_colour_buys_only_its_own_supply(players, kind, per_colour, start):
    """8 x 1M, 6 x 2M, 4 x 4M, 3 x 6M, 3 penthouses per colour at every player count; the setup's
    2 x 1M and 1 x 2M come out of the player's own colour."""
    g = position({}, n_players=players, stock=[0, 0, 0, 0, 0, 0], cash=30)
    for p in range(players):
        g.state.data[M_PLAYER] = p
        g.state.data[player(g, p) + P_STOCK:player(g, p) + P_STOCK + 6] = 0
        if p == 0:
            g.apply(STOP)
        bought = buy_until_refused(g, kind)
        # the stock was emptied by hand, so the setup's floors are neither in the stock nor the supply
        assert bought == per_colour - start, (p, bought)
        assert stock(g, p, kind) == per_colour - start
    assert all(g.state.data[player(g, p) + P_CASH] >= 0 for p in range(players))


def test_a_colour_sold_out_does_not_stop_another():
    g = position({}, n_players=2, stock=[0, 0, 0, 0, 0, 0], cash=30)
    g.apply(STOP)
    assert buy_until_refused(g, 3) == 3                  # seat 0's three 6M floors
    g.state.data[M_PLAYER] = 1
    assert BUY_BASE + 3 in g.legal_actions()             # seat 1's colour still has its own three


def test_a_sold_floor_goes_back_to_its_colour():
    g = position({}, n_players=2, stock=[0, 0, 0, 0, 0, 0], cash=30)
    g.apply(STOP)
    assert buy_until_refused(g, 3) == 3
    g.apply(SELL_BASE + 3)                               # back to seat 0's colour: he may buy it again
    assert BUY_BASE + 3 in g.legal_actions()
    g.apply(BUY_BASE + 3)
    assert BUY_BASE + 3 not in g.legal_actions()


def test_no_player_builds_a_fourth_penthouse():
    """Three penthouses per colour: after three bought (or built) there is no fourth to buy."""
    g = position({}, n_players=4, stock=[0, 0, 0, 0, 0, 0], cash=30)
    g.apply(STOP)
    assert buy_until_refused(g, PENTHOUSE) == 3


def test_shared_pool_variant_sells_the_whole_components_list():
    """variants/shared_pool.toml: one pool of 12 x 6M for the table, from which one player may take all."""
    g = position({}, n_players=2, stock=[0, 0, 0, 0, 0, 0], cash=30, variant="shared_pool")
    g.apply(STOP)
    assert buy_until_refused(g, 3) == 12


# ---------------------------------------------------------------- the cash cap on every gain

def test_cap_on_a_fee_received():
    """b builds his 2M floor on a's 1M floor and pays a 2M; a, at 29M, keeps 30M and 1M is lost."""
    g = position({(0, 0): "a"}, to_move=1, stock=FULL, cash=20)
    d = g.state.data
    d[player(g, 0) + P_CASH] = 29
    bank = int(d[M_BANK_NET])
    build(g, BUILD_FLOOR, 0, 0)
    assert cash(g, 0) == 30 and cash(g, 1) == 18
    assert int(d[M_BANK_NET]) == bank + 1                # the part a could not hold went to the bank


def test_cap_on_a_fee_at_the_cap():
    """The issue's case: at the cap a fee adds nothing (the old engine let 30 + 2 stay 32)."""
    g = position({(0, 0): "a"}, to_move=1, stock=FULL, cash=20)
    g.state.data[player(g, 0) + P_CASH] = 30
    build(g, BUILD_FLOOR, 0, 0)
    assert cash(g, 0) == 30


def test_cap_on_a_sale():
    g = position({}, stock=[0, 0, 0, 5, 0, 0], cash=30)   # nothing to build: stop, then sell
    g.apply(STOP)
    g.apply(SELL_BASE + 3)                               # half of 6M
    assert cash(g, 0) == 30 and stock(g, 0, 3) == 4


def test_cap_on_a_bonus_card():
    # card 2: [1,1] [1,2] [1,3], 5M
    g = position({(1, 1): "a", (1, 2): "a", (1, 3): "a"}, stock=FULL, cash=28)
    g.state.data[player(g, 0) + P_HAND] = 1 << 2
    g.apply(CASH_BASE + 2)
    assert cash(g, 0) == 30


def test_cap_on_a_trade_in():
    g = position({}, stock=FULL, cash=27)
    g.state.data[player(g, 0) + P_HAND] = (1 << 5) | (1 << 9) | (1 << 30)
    for c in (5, 9, 30):
        g.apply(TRADE_BASE + c)
    assert cash(g, 0) == 30


def test_cap_on_income():
    g = position({(3, 3): "bbba"}, stock=FULL, cash=27)   # a's 6M top floor
    start_turn_nb(g.state.data, g.kp.cfg)
    assert cash(g, 0) == 30


def test_after_income_variant_caps_only_income():
    g = position({(0, 0): "a"}, to_move=1, stock=FULL, cash=20, overrides={"cash.cap_rule": "after_income"})
    g.state.data[player(g, 0) + P_CASH] = 30
    build(g, BUILD_FLOOR, 0, 0)
    assert cash(g, 0) == 32


# ---------------------------------------------------------------- bonus cards of four cells

def test_four_cell_bonus_card_pays_eight_and_needs_every_cell():
    # card 24: [5,5] [4,5] [4,4] [5,4], 8M (cards 24..41 are the four-cell paths)
    four = {(5, 5): "a", (4, 5): "a", (4, 4): "a", (5, 4): "a"}
    g = position({**four, (3, 4): "a"}, stock=FULL, cash=5)   # inside a larger group: still counts
    g.state.data[player(g, 0) + P_HAND] = 1 << 24
    assert CASH_BASE + 24 in g.legal_actions()
    g.apply(CASH_BASE + 24)
    assert cash(g, 0) == 13
    for missing in four:
        three = {k: v for k, v in four.items() if k != missing}
        g = position({**three, missing: "ab"}, stock=FULL, cash=5)   # b holds one cell's top floor
        g.state.data[player(g, 0) + P_HAND] = 1 << 24
        assert CASH_BASE + 24 not in g.legal_actions()


# ---------------------------------------------------------------- the tie chain

def _ranks(g):
    rank = np.zeros(g.n_players, np.int64)
    n_win, _, winner, _ = rank_nb(np.array(g.scores()), np.array(tie_keys(g)), True, rank)
    return n_win, winner


MISSION_1 = {(2, 5): "b", (3, 5): "b", (4, 5): "b", (5, 5): "b"}   # mission 1's path, no strategic cell


def _tie(a_cells, a_pent, b_pent, b_mission=1):
    """b holds mission 1's path; a holds `a_cells` (strategic cells among them); penthouse counts by hand."""
    g = position({**MISSION_1, **{c: "a" for c in a_cells}})
    d = g.state.data
    d[player(g, 0) + P_MISSION] = 0                      # mission 0: not held
    d[player(g, 1) + P_MISSION] = b_mission
    d[player(g, 0) + P_PENTHOUSES] = a_pent
    d[player(g, 1) + P_PENTHOUSES] = b_pent
    return g


def test_tie_chain_penthouses_before_the_mission():
    """Equal prestige, 3 each: a two penthouses + strategic [1,1]; b one penthouse + his mission.
    The chain asks the penthouses first: a wins although only b completed his mission."""
    g = _tie([(1, 1)], a_pent=2, b_pent=1)
    assert g.scores() == [3, 3]
    assert _ranks(g) == (1, 0)


def test_tie_chain_mission_after_equal_penthouses():
    """Equal prestige and equal penthouses: the completed mission wins; with no mission on either
    side the first place is shared (the rulebook's "rematch")."""
    g = _tie([(1, 1), (4, 1)], a_pent=1, b_pent=1)       # a 1 + 2 strategic = 3; b 1 + mission 2 = 3
    assert g.scores() == [3, 3]
    assert _ranks(g) == (1, 1)
    g = position({(1, 1): "a", (4, 1): "b"})             # 1 - 1, no penthouses, no missions held
    g.state.data[player(g, 0) + P_MISSION] = 1
    g.state.data[player(g, 1) + P_MISSION] = 1
    assert g.scores() == [1, 1]
    assert _ranks(g)[0] == 2                             # shared first place


# ---------------------------------------------------------------- penthouses pay no income

def test_penthouse_income_is_zero_in_play():
    """a builds a penthouse on b's 6M floor next to a's 1M floor: his income stays 1 (the penthouse
    pays 0 and links), and his next turn pays exactly that."""
    g = position({(0, 0): "abab", (0, 1): "a"}, stock=FULL, cash=20)
    assert income(g, 0) == 1
    build(g, BUILD_FLOOR, 0, 0)                              # the fifth level: a penthouse
    assert int(g.state.data[player(g, 0) + P_PENTHOUSES]) == 1
    assert income(g, 0) == 1
    before = cash(g, 0)
    start_turn_nb(g.state.data, g.kp.cfg)                # a's next income
    assert cash(g, 0) == before + 1
    g = position({(0, 0): "ababPa"}, stock=FULL, cash=20)
    assert income(g, 0) == 0                             # a penthouse alone pays nothing


def test_income_is_the_most_valuable_group_not_the_largest():
    """Three linked 1M floors (3 buildings, 3M) against one 6M floor (1 building): the 6M pays."""
    g = position({(0, 0): "a", (0, 1): "a", (0, 2): "a", (3, 3): "bbba"})
    assert income(g, 0) == 6


# ---------------------------------------------------------------- the scripted players' way out of a freeze

@pytest.mark.parametrize("policy", ["heuristic", "greedy"])
def test_frozen_player_trades_in_cards(policy):
    """No income, no cash, a 1M floor whose ground site costs 1M: the scripts trade in three bonus
    cards (5M) and build; with stuck_trade=0 they stop (the old play, frozen for good)."""
    g = position({(0, 0): "ab"}, stock=[1, 0, 0, 0, 0, 0], cash=0)   # b's floor on top: a has no income
    g.state.data[player(g, 0) + P_HAND] = (1 << 5) | (1 << 9) | (1 << 30)
    assert income(g, 0) == 0
    a = g.policy_action(policy)
    assert TRADE_BASE <= a < TRADE_BASE + 48, g.action_name(a)
    assert g.policy_action(f"{policy}(stuck_trade=0)") == STOP


@pytest.mark.parametrize("policy", ["heuristic", "greedy"])
def test_frozen_player_sells_a_floor_to_pay_a_placement(policy):
    """No income, no cash, no cards; a 1M floor (its ground site costs 1M) and a 6M floor with no site:
    the scripts sell the 6M floor (3M), keeping the 1M floor; with stuck_sell=0 they end the turn."""
    g = position({(0, 0): "ab"}, stock=[1, 0, 0, 1, 0, 0], cash=0)
    assert income(g, 0) == 0
    g.apply(STOP)                                        # nothing can be paid for
    assert g.policy_action(policy) == SELL_BASE + 3
    from engines.skyline_of_the_world.state import END
    assert g.policy_action(f"{policy}(stuck_sell=0)") == END
    g.apply(SELL_BASE + 3)
    assert cash(g, 0) == 3 and stock(g, 0, 0) == 1
    a = g.policy_action(policy)
    assert a != SELL_BASE + 0                            # the floor of the way out is kept


# ---------------------------------------------------------------- rule choices the rulebook leaves open (variant keys)

def test_penthouse_over_his_skyline_floor_only_is_a_variant_key():
    """a's only floor in the building is his Skyline floor at the bottom: penthouse.skyline_counts
    (default true) lets him build the penthouse there, false does not."""
    board = {(0, 0): "Abnb"}
    g = position(board, stock=FULL, cash=30)
    assert (BUILD_FLOOR * MAX_CELLS + cell(g, 0, 0)) in g.legal_actions()
    g = position(board, stock=FULL, cash=30, overrides={"penthouse.skyline_counts": False})
    assert (BUILD_FLOOR * MAX_CELLS + cell(g, 0, 0)) not in g.legal_actions()
    g = position({(0, 0): "Aanb"}, stock=FULL, cash=30, overrides={"penthouse.skyline_counts": False})
    assert (BUILD_FLOOR * MAX_CELLS + cell(g, 0, 0)) in g.legal_actions()   # a regular floor of his counts


def test_trade_ins_per_turn_is_a_variant_key():
    six = (1 << 5) | (1 << 9) | (1 << 30) | (1 << 31) | (1 << 12) | (1 << 13)
    for limit, again in ((0, True), (1, False)):
        g = position({}, stock=[0, 0, 0, 5, 0, 0], cash=0, overrides={"bonus.trades_per_turn": limit})
        g.state.data[player(g, 0) + P_HAND] = six
        for c in (5, 9, 30):
            g.apply(TRADE_BASE + c)
        assert cash(g, 0) == 5
        assert any(TRADE_BASE <= a < TRADE_BASE + 48 for a in g.legal_actions()) == again


def test_selling_neutral_floors_is_a_variant_key():
    for sellable in (True, False):
        g = position({}, stock=[0, 0, 0, 0, 0, 1], cash=0, overrides={"neutral.sellable": sellable})
        g.apply(STOP)                                    # a neutral floor on the empty ground: 5M, none
        assert (SELL_BASE + 5 in g.legal_actions()) == sellable


def _no_build_position(overrides):
    """Seat 0 holds the top of every cell with an empty stock: nothing can be built, so after STOP he
    must buy a floor if possible (Invest or Divest)."""
    g = position({(r, c): "a" for r in range(6) for c in range(6)}, stock=[0, 0, 0, 0, 0, 0], cash=10,
                 overrides=overrides)
    g.apply(STOP)
    return g


@pytest.mark.parametrize("reading", ["any_floor", "own_colour"])
def test_forced_buy_counts_neutral_floors_is_a_variant_key(reading):
    """invest.forced_buy: 'any_floor' (default) -- buying a neutral floor meets the obligation, and
    a neutral floor left to buy keeps it alive; 'own_colour' -- only a floor of his colour does."""
    g = _no_build_position({"invest.forced_buy": reading})
    assert END not in g.legal_actions()
    g.apply(BUY_BASE + 5)                                # a neutral floor
    assert (END in g.legal_actions()) == (reading == "any_floor")
    g.apply(BUY_BASE + 0)                                # a 1M floor of his colour: met either way
    assert END in g.legal_actions()
    g = _no_build_position({"invest.forced_buy": reading})
    d = g.state.data
    d[CSUP:CSUP + 5] = 0                                 # his colour sold out: only a neutral floor to buy
    assert BUY_BASE + 5 in g.legal_actions()
    assert (END in g.legal_actions()) == (reading == "own_colour")


@pytest.mark.parametrize("reading,owner_cash,paid", [("bank", 29, 2), ("unpaid", 29, 1), ("bank", 30, 2),
                                                     ("unpaid", 30, 0)])
def test_fee_to_an_owner_at_the_cap_is_a_variant_key(reading, owner_cash, paid):
    """b builds his 2M floor on a's 1M floor. cash.fee_over_cap 'bank' (default): b pays 2M, a keeps
    up to 30M, the rest goes to the bank; 'unpaid': b pays only what a can still hold."""
    g = position({(0, 0): "a"}, to_move=1, stock=FULL, cash=20, overrides={"cash.fee_over_cap": reading})
    d = g.state.data
    d[player(g, 0) + P_CASH] = owner_cash
    bank = int(d[M_BANK_NET])
    build(g, BUILD_FLOOR, 0, 0)
    assert cash(g, 0) == 30 and cash(g, 1) == 20 - paid
    assert int(d[M_BANK_NET]) == bank + paid - (30 - owner_cash)


def test_unpaid_fee_makes_a_build_affordable():
    """Under 'unpaid' a build costs what the owner can receive: b with no cash may build on the floor
    of a player at the cap (free), not under 'bank'."""
    for reading, legal in (("bank", False), ("unpaid", True)):
        g = position({(0, 0): "a"}, to_move=1, stock=FULL, cash=0, overrides={"cash.fee_over_cap": reading})
        g.state.data[player(g, 0) + P_CASH] = 30
        assert ((BUILD_FLOOR * MAX_CELLS + cell(g, 0, 0)) in g.legal_actions()) == legal


@pytest.mark.parametrize("reading", ["nothing", "reshuffle_traded"])
def test_draw_from_an_empty_bonus_pile_is_a_variant_key(reading):
    """Seat 1 trades three cards in, then builds a penthouse with the pile empty. bonus.empty_pile
    'nothing' (default): the others draw nothing; 'reshuffle_traded': the traded-in cards become the
    new pile and seats 2, 3, 0 draw one each."""
    g = position({(0, 0): "aaba"}, n_players=4, to_move=1, stock=FULL, cash=30,
                 overrides={"bonus.empty_pile": reading})
    d = g.state.data
    d[M_DECK_POS] = int(g.kp.n_cards)                    # the pile is empty
    traded = (1 << 3) | (1 << 17) | (1 << 40)
    d[player(g, 1) + P_HAND] = traded
    for c in (3, 17, 40):
        g.apply(TRADE_BASE + c)
    assert cash(g, 1) == 30 and int(d[player(g, 1) + P_HAND]) == 0
    build(g, BUILD_FLOOR, 0, 0)                              # seat 1's penthouse
    hands = [int(d[player(g, p) + P_HAND]) for p in (2, 3, 0)]
    if reading == "nothing":
        assert hands == [0, 0, 0]
    else:
        assert all(bin(h).count("1") == 1 for h in hands) and sum(hands) == traded
        assert int(d[M_DECK_POS]) == int(g.kp.n_cards)   # the new pile is drawn out again


# ---------------------------------------------------------------- build.forced

@pytest.mark.parametrize("reading", ["any_floor", "regular"])
def test_forced_build_counts_neutral_floors_is_a_variant_key(reading):
    """build.forced 'any_floor' (default): a neutral floor that can be placed keeps the obligation to
    build alive and placing it meets it; 'regular': only a regular floor or penthouse does."""
    over = {"build.forced": reading}
    g = position({}, stock=[0, 0, 0, 0, 0, 1], cash=10, overrides=over)     # only a neutral floor to place
    assert (STOP in g.legal_actions()) == (reading == "regular")
    g = position({}, stock=[1, 0, 0, 0, 0, 1], cash=10, overrides=over)
    build(g, BUILD_NEUTRAL, 0, 0)
    assert (STOP in g.legal_actions()) == (reading == "any_floor")        # a 1M floor can still go on the ground
    build(g, BUILD_FLOOR, 0, 1)
    assert STOP in g.legal_actions()


@pytest.mark.parametrize("reading", ["any_floor", "regular"])
def test_forced_build_reading_sets_the_forced_buy(reading):
    """Invest or Divest: "if you were not able to build a floor in phase 2, you must buy": a player who
    placed only a neutral floor must buy under 'regular', not under 'any_floor'."""
    g = position({}, stock=[0, 0, 0, 0, 0, 1], cash=10, overrides={"build.forced": reading})
    build(g, BUILD_NEUTRAL, 0, 0)                                              # 5M to the bank
    g.apply(STOP)
    assert int(g.state.data[M_MUST_BUY]) == (reading == "regular")
    assert (END in g.legal_actions()) == (reading == "any_floor")
    g.apply(BUY_BASE + 0)
    assert END in g.legal_actions()


@pytest.mark.parametrize("reading", ["any_floor", "regular"])
def test_forced_build_counts_skyline_floors_is_a_variant_key(reading):
    g = position({}, stock=[1, 0, 0, 0, 0, 0], cash=10, overrides={"build.forced": reading})
    g.state.data[player(g, 0) + P_SKY_STOCK] = 1
    build(g, BUILD_SKY, 0, 0)
    assert (STOP in g.legal_actions()) == (reading == "any_floor")


# ---------------------------------------------------------------- skyline.other_skyline

@pytest.mark.parametrize("reading", ["building", "directly_on"])
def test_skyline_floor_in_a_building_with_another_skyline_floor_is_a_variant_key(reading):
    """b built over his own Skyline floor at (3, 3); at (3, 4) b's Skyline floor is the top.
    skyline.other_skyline 'building' (default): a's Skyline floor goes in neither building;
    'directly_on': only not directly on b's, so (3, 3) is open to it."""
    g = position({(3, 3): "aBb", (3, 4): "aB", (3, 5): "a"}, stock=FULL, cash=30,
                 overrides={"skyline.other_skyline": reading})
    g.state.data[player(g, 0) + P_SKY_STOCK] = 1
    legal = g.legal_actions()
    assert ((BUILD_SKY * MAX_CELLS + cell(g, 3, 3)) in legal) == (reading == "directly_on")
    assert (BUILD_SKY * MAX_CELLS + cell(g, 3, 4)) not in legal
    assert (BUILD_SKY * MAX_CELLS + cell(g, 3, 5)) in legal


# ---------------------------------------------------------------- bonus.draw_order

@pytest.mark.parametrize("reading,drawers", [("left", (2, 3, 0)), ("right", (0, 3, 2))])
def test_penthouse_draw_order_is_a_variant_key(reading, drawers):
    """Seat 1 builds a penthouse at 4 players with two cards left in the pile: bonus.draw_order 'left'
    (default) gives them to seats 2 and 3 (seat 0 goes without), 'right' to seats 0 and 3."""
    g = position({(0, 0): "aaba"}, n_players=4, to_move=1, stock=FULL, cash=30,
                 overrides={"bonus.draw_order": reading})
    d = g.state.data
    n = int(g.kp.n_cards)
    d[M_DECK_POS] = n - 2
    top, second = int(d[DECK + n - 2]), int(d[DECK + n - 1])
    build(g, BUILD_FLOOR, 0, 0)
    assert [int(d[player(g, p) + P_HAND]) for p in drawers] == [1 << top, 1 << second, 0]


# ---------------------------------------------------------------- bonus.phases

@pytest.mark.parametrize("reading", ["build_invest", "build"])
def test_bonus_card_phases_is_a_variant_key(reading):
    """Seat 0 holds card 0's path [1, 1], [2, 1], [2, 2] and three cards. bonus.phases 'build_invest'
    (default): he may cash or trade in while building and while investing; 'build': only while
    building, though a trade-in begun there is completed."""
    def hand_position():
        g = position({(1, 1): "a", (2, 1): "a", (2, 2): "a"}, stock=[0] * 6, cash=0,
                     overrides={"bonus.phases": reading})
        g.state.data[player(g, 0) + P_HAND] = (1 << 0) | (1 << 2) | (1 << 4)
        return g
    g = hand_position()
    assert CASH_BASE + 0 in g.legal_actions() and TRADE_BASE + 2 in g.legal_actions()
    g.apply(STOP)
    assert int(g.state.data[M_PHASE]) == PH_INVEST
    legal = g.legal_actions()
    assert (CASH_BASE + 0 in legal) == (TRADE_BASE + 2 in legal) == (reading == "build_invest")
    g = hand_position()
    g.apply(TRADE_BASE + 2)
    assert int(g.state.data[M_PHASE]) == PH_TRADE
    g.apply(TRADE_BASE + 4)
    g.apply(TRADE_BASE + 0)
    assert cash(g, 0) == 5
