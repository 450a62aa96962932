"""Rules on hand-built positions (board diagrams in the docstrings: row, col -> pieces bottom to top)."""
import numpy as np
import pytest

from engines.skyline_of_the_world.params import MAX_CELLS
from engines.skyline_of_the_world.rules import BANK, NOBODY, can_build_nb, fee_nb
from engines.skyline_of_the_world.state import (
    BUILD_FLOOR, BUILD_NEUTRAL, BUILD_SKY, CASH_BASE, END, TRADE_BASE, M_BANK_NET, M_END_LEFT, M_PHASE, M_PLAYER, M_START, M_TRIGGER,
    P_CASH, P_FEES_PAID, P_FEES_RECV, P_HAND, P_PENTHOUSES, P_SKY_GOT, P_SKY_STOCK, P_STOCK, PH_OVER, STOP,
)
from sotw_helpers import cell, income, player, position, tie_keys

FULL = [5, 5, 5, 5, 5, 1]  # one of every floor in stock, one neutral


def build(g, what, r, c):
    a = what * MAX_CELLS + cell(g, r, c)
    assert a in g.legal_actions(), g.action_name(a)
    g.apply(a)


def ok(g, what, r, c, p=None):
    p = g.current_player() if p is None else p
    return bool(can_build_nb(g.state.data, g.kp.cfg, p, what, cell(g, r, c)))


# ---------------------------------------------------------------- income

def test_income_links_through_penthouse_and_skyline():
    """row 0: [0,0] a's 1M floor | [0,1] a b a b + a's penthouse | [0,2] b b + a's 4M floor:
    the penthouse (then a Skyline floor) pays nothing but links both neighbours."""
    g = position({(0, 0): "a", (0, 1): "ababPa", (0, 2): "bba"})
    assert income(g, 0) == 1 + 4            # 1M at (0,0) + 4M at (0,2), linked by the penthouse
    g = position({(0, 0): "a", (0, 1): "bA", (0, 2): "bba"})
    assert income(g, 0) == 1 + 4            # linked by a's Skyline floor
    g = position({(0, 0): "a", (0, 1): "bn", (0, 2): "bba"})
    assert income(g, 0) == 4                # a neutral floor breaks the chain: the best group pays


def test_income_is_one_group_only_and_capped():
    g = position({(0, 0): "a", (0, 1): "ba", (3, 3): "bba", (3, 4): "ba"})
    assert income(g, 0) == 4 + 2            # group {(3,3),(3,4)} = 6 beats {(0,0),(0,1)} = 3
    assert income(g, 1) == 0
    d = g.state.data
    d[player(g, 0) + P_CASH] = 27
    from engines.skyline_of_the_world.rules import start_turn_nb
    bank = d[M_BANK_NET]
    start_turn_nb(d, g.kp.cfg)
    assert d[player(g, 0) + P_CASH] == 30   # 27 + 6 capped at 30
    assert d[M_BANK_NET] == bank - 3        # only 3 left the bank


def test_diagonal_is_not_adjacent():
    g = position({(0, 0): "a", (1, 1): "ba"})
    assert income(g, 0) == 2


# ---------------------------------------------------------------- fees

@pytest.mark.parametrize("rule,pieces,what,expect", [
    ("placed", "", BUILD_FLOOR, (1, BANK)),          # ground: 1M to the bank
    ("placed", "b", BUILD_FLOOR, (2, 1)),            # on b's 1M floor: the placed 2M to b
    ("placed", "bab", BUILD_FLOOR, (6, 1)),          # level 4: 6M to b
    ("placed", "n", BUILD_FLOOR, (2, BANK)),         # on a neutral floor: placed value to the bank
    ("placed", "a", BUILD_NEUTRAL, (0, NOBODY)),     # neutral on his own floor: free
    ("placed", "b", BUILD_NEUTRAL, (5, 1)),          # neutral on b's floor: 5M to b
    ("placed", "", BUILD_NEUTRAL, (5, BANK)),        # neutral on the ground: to the bank
    ("placed", "b", BUILD_SKY, (5, 1)),              # Skyline floor on b's floor: 5M to b
    ("placed", "", BUILD_SKY, (5, BANK)),            # Skyline floor on the ground: to the bank
    ("placed", "a", BUILD_SKY, (0, NOBODY)),         # on his own floor: nothing
    ("placed", "abab", BUILD_FLOOR, (10, 1)),        # a penthouse on b's 6M floor: 10M to b
    ("below", "bab", BUILD_FLOOR, (4, 1)),           # fee variant: the 4M floor below, to b
    ("below", "b", BUILD_NEUTRAL, (1, 1)),           # neutral on b's 1M floor: 1M
    ("below", "n", BUILD_FLOOR, (2, BANK)),          # on a neutral floor: placed value to the bank
    ("below", "", BUILD_FLOOR, (1, BANK)),           # ground
    ("below", "B", BUILD_NEUTRAL, None),             # (neutral on a Skyline floor is illegal anyway)
])
def test_fee_cases(rule, pieces, what, expect):
    g = position({(2, 2): pieces} if pieces else {}, overrides={"fees.rule": rule})
    if expect is None:
        assert not ok(g, what, 2, 2)
        return
    amount, to = fee_nb(g.state.data, g.kp.cfg, 0, what, cell(g, 2, 2))
    assert (int(amount), int(to)) == expect


def test_fee_moves_money_between_players_and_bank():
    g = position({(2, 2): "b"}, cash=10, stock=[1, 1, 0, 0, 0, 1])
    d = g.state.data
    bank = d[M_BANK_NET]
    build(g, BUILD_FLOOR, 2, 2)                       # 2M floor on b's 1M floor: 2M to b
    assert d[player(g, 0) + P_CASH] == 8 and d[player(g, 1) + P_CASH] == 12
    assert d[player(g, 0) + P_FEES_PAID] == 2 and d[player(g, 1) + P_FEES_RECV] == 2
    build(g, BUILD_FLOOR, 3, 3)                       # ground: 1M to the bank
    assert d[player(g, 0) + P_CASH] == 7 and d[M_BANK_NET] == bank + 1
    build(g, BUILD_NEUTRAL, 2, 2)                     # neutral on his own 2M floor: free
    assert d[player(g, 0) + P_CASH] == 7


# ---------------------------------------------------------------- illegal placements

def test_illegal_placements():
    g = position({(0, 0): "a", (0, 1): "babaPb", (0, 2): "bbbb", (0, 3): "aB", (1, 1): "",
                  (0, 4): "bbab", (0, 5): "B"}, stock=FULL, cash=30)
    d = g.state.data
    assert not ok(g, BUILD_FLOOR, 0, 0)               # directly on his own floor
    assert ok(g, BUILD_NEUTRAL, 0, 0)                 # ...but a neutral floor may go there
    assert not ok(g, BUILD_FLOOR, 0, 1)               # nothing on a penthouse
    assert not ok(g, BUILD_NEUTRAL, 0, 1)
    assert not ok(g, BUILD_FLOOR, 0, 2)               # a penthouse needs a lower floor of his own
    assert ok(g, BUILD_FLOOR, 0, 4)                   # ...which he has here
    assert not ok(g, BUILD_FLOOR, 0, 3)               # not on another player's Skyline floor
    assert not ok(g, BUILD_NEUTRAL, 0, 3)             # a neutral floor never on a Skyline floor
    d[player(g, 0) + P_STOCK + 0] = 0
    assert not ok(g, BUILD_FLOOR, 4, 4)               # ground takes only a 1M floor (none left in stock)
    d[player(g, 0) + P_STOCK + 0] = 1
    assert ok(g, BUILD_FLOOR, 4, 4)
    d[player(g, 0) + P_CASH] = 0
    assert not ok(g, BUILD_FLOOR, 4, 4)               # the 1M ground fee cannot be paid
    assert ok(g, BUILD_NEUTRAL, 0, 0)                 # free on his own floor


def test_skyline_placement_rules():
    g = position({(1, 1): "b", (3, 3): "aB", (3, 4): "b", (3, 5): "b"}, stock=FULL, cash=30)
    d = g.state.data
    assert not ok(g, BUILD_SKY, 3, 4)                 # none received yet
    d[player(g, 0) + P_SKY_STOCK] = 2
    assert not ok(g, BUILD_SKY, 1, 1)                 # (1, 1) is a strategic area
    assert not ok(g, BUILD_SKY, 3, 3)                 # b's Skyline floor is in that building
    assert ok(g, BUILD_SKY, 3, 4)
    build(g, BUILD_SKY, 3, 4)
    assert not ok(g, BUILD_SKY, 3, 5)                 # not two Skyline floors in one turn
    g2 = position({(0, 0): "ababa"}, stock=FULL, cash=30)
    assert not ok(g2, BUILD_FLOOR, 0, 0) and not ok(g2, BUILD_NEUTRAL, 0, 0)  # five levels at most


def test_must_build_if_possible_then_must_buy():
    g = position({}, stock=[1, 0, 0, 0, 0, 0], cash=10)
    assert STOP not in g.legal_actions()          # a floor can be built: at least one
    g = position({(r, c): "a" for r in range(6) for c in range(6)}, stock=[0, 0, 0, 0, 0, 0], cash=10)
    assert g.legal_actions()[-1] == STOP          # nothing can be built
    g.apply(STOP)
    assert END not in g.legal_actions()           # nothing built: must buy a floor
    g.apply(g.legal_actions()[0])                 # buy
    assert END in g.legal_actions()


# ---------------------------------------------------------------- bonus cards

def _give_card(g, p, card):
    g.state.data[player(g, p) + P_HAND] |= 1 << card


def test_bonus_path_inside_larger_group_counts():
    # card 2 of the default deck: [1,1] [1,2] [1,3] (3 cells, 5M)
    assert list(g_cells(2)) == [(1, 1), (1, 2), (1, 3)]
    g = position({(1, 0): "a", (1, 1): "a", (1, 2): "a", (1, 3): "a", (2, 2): "a"}, stock=FULL)
    _give_card(g, 0, 2)
    _give_card(g, 0, 0)                           # card 0 needs [2,1], not held
    assert CASH_BASE + 2 in g.legal_actions()
    assert CASH_BASE + 0 not in g.legal_actions()
    cash = g.state.data[player(g, 0) + P_CASH]
    g.apply(CASH_BASE + 2)
    assert g.state.data[player(g, 0) + P_CASH] == cash + 5
    g2 = position({(1, 1): "a", (1, 2): "a", (1, 3): "b"}, stock=FULL)  # [1,3] is b's
    _give_card(g2, 0, 2)
    assert CASH_BASE + 2 not in g2.legal_actions()


def test_one_bonus_card_per_turn():
    g = position({(1, 1): "a", (1, 2): "a", (1, 3): "a", (0, 2): "a", (0, 3): "a"}, stock=FULL)
    _give_card(g, 0, 2)
    _give_card(g, 0, 3)                           # the same path, a second card
    _give_card(g, 0, 20)                          # [1,2] [0,2] [0,3]
    g.apply(CASH_BASE + 2)
    assert not any(CASH_BASE <= a < CASH_BASE + 48 for a in g.legal_actions())


def g_cells(card):
    from engines.skyline_of_the_world.params import VARIANTS
    p = VARIANTS.load(None).values["bonus"]["paths"][card]
    return [(p[i], p[i + 1]) for i in range(0, len(p), 2)]


# ---------------------------------------------------------------- penthouses and the end

def test_penthouse_effects_and_last_round():
    """Seat 1 builds its third penthouse with start seat 0 in a 4-player game: seats 2 and 3
    finish the round, then the game ends."""
    g = position({(0, 0): "aaba"}, n_players=4, to_move=1, stock=FULL, cash=30)
    d = g.state.data
    d[M_START] = 0
    d[player(g, 1) + P_PENTHOUSES] = 2
    d[player(g, 1) + P_SKY_GOT] = 1
    hands = [int(d[player(g, p) + P_HAND]) for p in range(4)]
    build(g, BUILD_FLOOR, 0, 0)
    assert d[player(g, 1) + P_PENTHOUSES] == 3
    assert d[M_TRIGGER] == 1 and d[M_END_LEFT] == 2
    assert d[player(g, 1) + P_SKY_STOCK] == 1 and d[player(g, 1) + P_SKY_GOT] == 2   # the second Skyline floor
    for p in (0, 2, 3):                                                             # the others drew a card
        assert bin(int(d[player(g, p) + P_HAND])).count("1") == bin(hands[p]).count("1") + 1
    turns = [1]
    while not g.is_over():
        if g.current_player() != turns[-1]:
            turns.append(g.current_player())
        g.apply(g.policy_action("greedy"))
    assert turns == [1, 2, 3]


def test_first_penthouse_gives_a_skyline_floor_everyone_once_variant():
    g = position({(0, 0): "aaba"}, n_players=4, to_move=1, stock=FULL, cash=30,
                 overrides={"end.last_round": "everyone_once"})
    d = g.state.data
    d[M_START] = 0
    build(g, BUILD_FLOOR, 0, 0)
    assert d[player(g, 1) + P_SKY_STOCK] == 1 and d[M_TRIGGER] == -1
    d[player(g, 1) + P_PENTHOUSES] = 2
    d[player(g, 1) + P_SKY_GOT] = 1
    g2 = position({(0, 0): "aaba"}, n_players=4, to_move=1, stock=FULL, cash=30,
                  overrides={"end.last_round": "everyone_once"})
    g2.state.data[M_START] = 0
    g2.state.data[player(g2, 1) + P_PENTHOUSES] = 2
    build(g2, BUILD_FLOOR, 0, 0)
    assert g2.state.data[M_END_LEFT] == 3         # every other player once more


def test_turn_cap_marks_stalled():
    from engines.skyline_of_the_world import new_game
    g = new_game(n_players=2, seed=1, overrides={"end.turn_cap": 6})
    while not g.is_over():
        g.apply(g.policy_action("random"))
    from engines.skyline_of_the_world.state import M_STALLED, M_TURN
    assert g.state.data[M_TURN] == 6 and g.state.data[M_STALLED] == 1


# ---------------------------------------------------------------- scoring and the tie chain

def test_scoring_and_tie_chain():
    # a: penthouse on (0,0) + strategic (1,1); b: strategic (2,4) + strategic (4,1): 2 - 2 on prestige
    g = position({(0, 0): "babaPa", (1, 1): "a", (2, 4): "b", (4, 1): "b"})
    d = g.state.data
    d[player(g, 0) + P_PENTHOUSES] = 1
    assert g.scores() == [2, 2]
    keys = tie_keys(g)
    assert keys[0] > keys[1]                      # tie chain: more penthouses wins
    from engines.core.harness import rank_nb
    rank = np.zeros(2, np.int64)
    n_win, _, winner, _ = rank_nb(np.array(g.scores()), np.array(keys), True, rank)
    assert (n_win, winner) == (1, 0)


def test_mission_scores_and_breaks_ties():
    from engines.skyline_of_the_world.state import P_MISSION
    # mission 3 of the default set: [4,4] [3,4] [2,4] [1,4]
    g = position({(4, 4): "a", (3, 4): "a", (2, 4): "a", (1, 4): "a", (4, 1): "b", (1, 1): "b"})
    d = g.state.data
    d[player(g, 0) + P_MISSION] = 3
    d[player(g, 1) + P_MISSION] = 0
    assert g.scores() == [2 + 1, 2]               # mission 2 + strategic (2,4) 1; b: two strategic cells
    g2 = position({(4, 4): "a", (3, 4): "a", (1, 4): "a", (2, 3): "b", (4, 1): "b", (1, 1): "b"})
    g2.state.data[player(g2, 0) + P_MISSION] = 3
    g2.state.data[player(g2, 0) + P_PENTHOUSES] = 0
    d2 = g2.state.data
    d2[player(g2, 1) + P_MISSION] = 0
    assert g2.scores()[0] == 0                   # (2,4) missing: no mission


def test_tournament_tiebreak_first_to_end():
    g = position({}, overrides={"scoring.tiebreak": "tournament"})
    d = g.state.data
    d[M_TRIGGER] = 1
    keys = tie_keys(g)
    assert keys[1] == keys[0] + 1
    g2 = position({})
    g2.state.data[M_TRIGGER] = 1
    assert tie_keys(g2)[0] == tie_keys(g2)[1]   # rulebook: still tied ("rematch")


def test_turn_cap_during_the_last_round_is_not_a_stall():
    from engines.skyline_of_the_world.state import M_STALLED, M_TURN
    g = position({(0, 0): "aaba"}, n_players=4, to_move=1, stock=FULL, cash=30, overrides={"end.turn_cap": 2})
    d = g.state.data
    d[M_START] = 0
    d[player(g, 1) + P_PENTHOUSES] = 2
    build(g, BUILD_FLOOR, 0, 0)                       # the third penthouse: seats 2 and 3 still to play
    while not g.is_over():
        g.apply(g.policy_action("greedy"))
    assert d[M_TURN] == 2 and d[M_STALLED] == 0   # the cap ended it after seat 2, but a penthouse had ended the game


def test_one_neutral_floor_bought_per_turn_and_sell_at_half():
    from engines.skyline_of_the_world.state import BUY_BASE, SELL_BASE, NEUTRAL_STOCK, P_STOCK
    g = position({(r, c): "a" for r in range(6) for c in range(6)}, stock=[0, 0, 0, 0, 0, 0], cash=20)
    g.apply(STOP)
    d = g.state.data
    g.apply(BUY_BASE + NEUTRAL_STOCK)
    assert d[player(g, 0) + P_CASH] == 15
    assert BUY_BASE + NEUTRAL_STOCK not in g.legal_actions()      # a second neutral floor this turn: no
    assert BUY_BASE + 3 in g.legal_actions()
    g.apply(SELL_BASE + NEUTRAL_STOCK)                             # sold back at half (5 // 2)
    assert d[player(g, 0) + P_CASH] == 17 and d[player(g, 0) + P_STOCK + NEUTRAL_STOCK] == 0
    assert BUY_BASE + NEUTRAL_STOCK not in g.legal_actions()      # still bought one this turn


def test_trade_in_three_cards_for_five():
    from engines.skyline_of_the_world.state import M_PHASE, PH_BUILD, PH_TRADE, P_TRADED_N
    g = position({}, stock=[1, 0, 0, 0, 0, 0], cash=3)
    d = g.state.data
    for c in (5, 9, 30, 31):
        _give_card(g, 0, c)
    assert TRADE_BASE + 5 in g.legal_actions()
    g.apply(TRADE_BASE + 5)
    assert d[M_PHASE] == PH_TRADE and all(TRADE_BASE <= a < TRADE_BASE + 48 for a in g.legal_actions())
    g.apply(TRADE_BASE + 30)
    assert d[player(g, 0) + P_CASH] == 3
    g.apply(TRADE_BASE + 9)
    assert d[M_PHASE] == PH_BUILD and d[player(g, 0) + P_CASH] == 8 and d[player(g, 0) + P_TRADED_N] == 1
    assert d[player(g, 0) + P_HAND] == 1 << 31
    assert not any(TRADE_BASE <= a < TRADE_BASE + 48 for a in g.legal_actions())   # one card left: no trade


def test_two_cards_with_the_same_path_not_in_one_turn():
    g = position({(1, 1): "a", (1, 2): "a", (1, 3): "a", (0, 2): "a", (0, 3): "a"}, stock=FULL,
                 overrides={"bonus.per_turn": 2})
    _give_card(g, 0, 2)
    _give_card(g, 0, 3)                           # cards 2 and 3 share a path
    _give_card(g, 0, 20)
    g.apply(CASH_BASE + 2)
    legal = g.legal_actions()
    assert CASH_BASE + 3 not in legal and CASH_BASE + 20 in legal
