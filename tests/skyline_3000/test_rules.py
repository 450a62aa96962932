"""Skyline 3000 rules on hand-built positions: the rulebook's worked examples,
every tie rule, and the GAPS.md defaults. Seats: 0 Orange, 1 Purple,
2 Green, 3 White (the rulebook's colours). Blocks 3-5 are the Yellow district."""
import numpy as np
import pytest

from engines.skyline_3000 import rules as R
from engines.skyline_3000.engine import new_game
from engines.skyline_3000.render import card_name
from engines.skyline_3000.state import (
    A_BID, A_BLOCK, A_HIGH, A_PRICE, A_TIE, A_WINNER, B_BB, B_BBTOT, B_GREEN, B_LVAC, B_NSPACE,
    B_VAC, BID_FLAG, C_CUR, C_KEY, C_N_AUC, C_PASSED, C_PHASE, C_ROUND, C_STACK_POS, CONTRACT,
    CURVED, FLOOR, ACT_BILLBOARD, ACT_CONTRACT, ACT_DRAW, ACT_INSTALL, ACT_NOACT, ACT_PASS, ACT_PLACE, P_BONUS,
    P_EV_FIRST, P_EV_SECOND, P_NHAND, P_SCORE, P_ST_EXTRA, PH_BID, PH_DRAW, PH_INSTALL, PH_MAIN,
    PH_PLACE, PI_DECK, PI_DISC, PI_TOP, PL_H, PL_R, POINTED, ROOF, PI_DISCARDS, P_NBUILD,
    B_FLOORS, B_NBLD, B_NMALL, C_ITEM, GREENSPACE, P_BILLBOARDS, B_TALL, C_STOCK, ACT_FLOOR, BB_CARD_SHIFT, TAB, K_BB_CARD,
)
from skyline_builders import (
    GREEN, ORANGE, PURPLE, WHITE, billboard, build, card_id, empty_board, green, kp_for, megamall,
    players_array, position, set_hand, spaceport,
)

A_ = lambda kind, detail=0: (kind << 16) | detail  # noqa: E731


def score_board(kp, board):
    st = position(kp, board)
    R.scoring_nb(st.pub)
    return st.players


# ---------------------------------------------------------------- scoring


def test_yellow_district_worked_example():
    """Scoring Phase example, Yellow blocks A-C (our blocks 3, 4, 5).

    A (3): Purple 3 floors, Green 2; 1 Greenspace, 1 Billboard, Spaceport
    B (4): Green 5 (2+3), White 5 (1+4, taller), Orange 3; 2 Greenspaces, Megamall
    C (5): Orange 2, Green 1, White 1, Purple 1; 1 Billboard
    -> Purple +5, White +9, Orange +3, Green +7.
    """
    kp = kp_for()
    b = empty_board(kp)
    build(b, 3, PURPLE, 1)
    build(b, 3, GREEN, 2)
    build(b, 3, PURPLE, 2)
    green(b, 3)
    billboard(b, 3, ORANGE)
    spaceport(b, 3)
    for owner, h in BLOCK_B:
        build(b, 4, owner, h)
    green(b, 4, 2)
    megamall(b, 4)
    assert b[4, B_VAC] == 0  # Block B fills all 7 small platforms of the default board
    for owner, h in ((GREEN, 1), (WHITE, 1), (PURPLE, 1), (ORANGE, 2)):
        build(b, 5, owner, h)
    billboard(b, 5, PURPLE)
    pl = score_board(kp, b)
    assert pl[:, P_SCORE].tolist() == [3, 5, 7, 9]
    # Block A: Purple first (4), Green second (2); Spaceport: Purple +2, Green +1 cards
    assert pl[PURPLE, P_BONUS] == 2 and pl[GREEN, P_BONUS] == 1
    assert pl[WHITE, P_BONUS] == 0 and pl[ORANGE, P_BONUS] == 0
    assert (pl[:, P_EV_FIRST] + pl[:, P_EV_SECOND]).tolist() == [3, 5, 7, 9]


# Yellow Block B of the Scoring example, in an order whose heights are legal one after the other:
# White 1 + 4 = 5 (taller), Green 2 + 3 = 5, Orange 3.
BLOCK_B = ((WHITE, 1), (GREEN, 2), (ORANGE, 3), (GREEN, 3), (WHITE, 4))


def _places(kp, board, k=0):
    return R.block_places_nb(position(kp, board).pub, k)


def block_ok(board, k, h, r, kp=None):
    """May a building (h floors, roof r) go into block k of this board? (default variant)"""
    return R.block_ok_nb(position(kp or kp_for(), board).pub, k, h, r)


def masks(*seats):
    m = 0
    for s in seats:
        m |= 1 << s
    return m


def test_floor_tie_broken_by_tallest_building():
    # block 0: Orange 1+2 = 3 floors (tallest 2); Purple 3 floors in one building
    kp = kp_for()
    b = empty_board(kp)
    build(b, 0, ORANGE, 1)
    build(b, 0, ORANGE, 2)
    build(b, 0, PURPLE, 3)
    assert _places(kp, b) == (masks(PURPLE), masks(ORANGE))


def test_full_tie_shares_first_and_nobody_second():
    # Orange 2, Purple 2 (both tallest 2), Green 1 -> Orange & Purple first, none second
    kp = kp_for()
    b = empty_board(kp)
    build(b, 0, GREEN, 1)
    build(b, 0, ORANGE, 2)
    build(b, 0, PURPLE, 2)
    assert _places(kp, b) == (masks(ORANGE, PURPLE), 0)
    green(b, 0)
    pl = score_board(kp, b)
    assert pl[:, P_SCORE].tolist() == [3, 3, 0, 0]


def test_second_place_tie_all_score_second():
    # Orange 1+2+3 = 6 first; Purple 2 and Green 2 tie for second: both score Second
    kp = kp_for()
    b = empty_board(kp)
    build(b, 0, ORANGE, 1)
    build(b, 0, PURPLE, 2)
    build(b, 0, GREEN, 2)
    build(b, 0, ORANGE, 2)
    build(b, 0, ORANGE, 3)
    billboard(b, 0, WHITE)
    assert _places(kp, b) == (masks(ORANGE), masks(PURPLE, GREEN))
    pl = score_board(kp, b)
    assert pl[:, P_SCORE].tolist() == [3, 1, 1, 0]


def test_mixed_tie_gaps_rule():
    """GAPS: tied for most floors -> those with the tallest building take First
    (several if level), the rest of the tied group Second, lower seats nothing.
    Orange 1+3 = 4 (tallest 3), Purple 1+3 = 4 (3), Green 2+2 = 4 (2), White 2."""
    kp = kp_for()
    b = empty_board(kp)
    for owner, h in ((ORANGE, 1), (PURPLE, 1), (GREEN, 2), (WHITE, 2), (GREEN, 2), (ORANGE, 3)):
        build(b, 0, owner, h, platform=False)
    build(b, 0, PURPLE, 3, platform=False)
    assert _places(kp, b) == (masks(ORANGE, PURPLE), masks(GREEN))
    kp_share = kp_for(variant="no_tiebreak")
    assert _places(kp_share, b) == (masks(ORANGE, PURPLE, GREEN), 0)


def test_single_builder_takes_first_only_and_empty_block_pays_nobody():
    kp = kp_for()
    b = empty_board(kp)
    build(b, 0, WHITE, 1)
    green(b, 0, 2)
    assert _places(kp, b) == (masks(WHITE), 0)
    assert _places(kp, b, 1) == (0, 0)
    green(b, 1)
    assert score_board(kp, b)[:, P_SCORE].tolist() == [0, 0, 0, 4]


def test_megamall_doubles_first_and_second_and_variant_triples():
    kp = kp_for()
    b = empty_board(kp)
    build(b, 0, ORANGE, 1)
    build(b, 0, ORANGE, 2)
    build(b, 0, PURPLE, 2)
    green(b, 0)
    billboard(b, 0, GREEN)
    megamall(b, 0)
    assert score_board(kp, b)[:, P_SCORE].tolist() == [8, 4, 0, 0]
    assert score_board(kp_for(variant="megamall_triple"), b)[:, P_SCORE].tolist() == [12, 6, 0, 0]


# ---------------------------------------------------------------- building rules


def test_roof_type_of_a_block():
    # a block holding a Green curved building takes only curved roofs
    kp = kp_for()
    b = empty_board(kp)
    build(b, 3, GREEN, 1, CURVED)
    assert block_ok(b, 3, 1, CURVED)
    assert not block_ok(b, 3, 1, POINTED)


def test_district_cannot_have_three_blocks_of_one_roof():
    # two of the three Yellow blocks are curved: the third must be pointed
    kp = kp_for()
    b = empty_board(kp)
    build(b, 3, GREEN, 1, CURVED)
    build(b, 4, WHITE, 1, CURVED)
    assert not block_ok(b, 5, 1, CURVED)
    assert block_ok(b, 5, 1, POINTED)
    assert block_ok(b, 2, 1, CURVED)  # another district is free


def test_height_example_1_then_2_then_2_or_3():
    kp = kp_for()
    b = empty_board(kp)
    assert not block_ok(b, 0, 2, CURVED)  # the first building has exactly 1 floor
    assert block_ok(b, 0, 1, CURVED)
    build(b, 0, PURPLE, 1)
    assert [block_ok(b, 0, h, CURVED) for h in (1, 2, 3)] == [True, True, False]
    build(b, 0, GREEN, 2)
    assert [block_ok(b, 0, h, CURVED) for h in (1, 2, 3, 4)] == [False, True, True, False]


# ---------------------------------------------------------------- the board (GAPS.md)

MARKED = (1, 3, 5, 7)  # variants/default.toml: the blocks of the pre-placed Greenspaces


def test_default_board_7_open_platforms_and_an_extra_marked_one_per_pre_placed_greenspace():
    st = new_game(seed=2).state
    for k in range(9):
        marked = int(k in MARKED)
        # 7 open everywhere; a marked block has 8 small platforms, one holding its Greenspace
        assert (st.board[k, B_VAC], st.board[k, B_GREEN]) == (7, marked), k
        assert st.board[k, B_LVAC] == 1
    assert R.block_check_nb(st.pub) == -1
    st.board[1, B_VAC] = 8  # the count check knows block 1 has 8 small platforms, not 9
    assert R.block_check_nb(st.pub) == 1


def test_six_platforms_variant_reproduces_the_old_board():
    st = new_game(variant="six_platforms", seed=2).state
    for k in range(9):
        marked = int(k in MARKED)
        # 6 small platforms everywhere; a pre-placed Greenspace takes one of them
        assert (st.board[k, B_VAC], st.board[k, B_GREEN]) == (6 - marked, marked), k
    assert R.block_check_nb(st.pub) == -1
    st.board[1, B_VAC] = 6  # 6 open + the Greenspace would be 7 small platforms: wrong on this board
    assert R.block_check_nb(st.pub) == 1


def _block_b_through_the_rules(variant):
    """Round 1 of a real game, driven through legal actions only, building the rulebook's
    Block B in our block 4 (Yellow district, no pre-placed Greenspace): the five buildings
    of BLOCK_B installed with Yellow Contract cards (each owner given one complete curved
    building of that height and the card when its turn comes; the others play a card
    without acting while they still have to build, then pass), then the round's auctions,
    with auction stack 3 holding a Megamall on top so that round 1 offers both
    Greenspaces and the Megamall. Every bidder bids one card; the winner places the item
    in block 4 when the rules allow it, elsewhere otherwise. Returns the game at the
    round-1 Draw Phase (after the Scoring Phase) and the items block 4 could not take."""
    g = new_game(variant=variant, seed=4, overrides={"auction.stacks": [[0, 0, 0, 0], [0, 0, 0, 0], [2, 2, 1, 1]]})
    st, kp = g.state, g.kp
    todo = list(BLOCK_B)
    contracts = [card_id(kp, CONTRACT, v, district=1) for v in range(1, 6)]
    while g.state.phase == PH_MAIN:
        p = g.current_player()
        if todo and todo[0][0] == p:
            h = todo.pop(0)[1]
            st.plants[p, PL_H, 0], st.plants[p, PL_R, 0] = h, CURVED
            st.players[p, P_NBUILD] = 1
            c = contracts.pop()
            set_hand(st, p, [c] + [x for x in st.hands[p, :st.players[p, P_NHAND]] if x != c])
            g.apply(A_(ACT_CONTRACT, c))
            g.apply(A_(ACT_INSTALL, (0 * kp.n_blocks + 4) * 2))  # building 0, block 4, vacant platform
        elif any(q == p for q, _ in todo):
            g.apply(next(a for a in g.legal_actions() if a >> 16 == ACT_NOACT))
        else:
            g.apply(A_(ACT_PASS))
    assert not todo and st.board[4, B_NBLD] == 5
    refused = []
    while g.state.phase in (PH_BID, PH_PLACE):
        if g.state.phase == PH_BID:
            space = g.legal_actions()
            g.apply(space.bid(list(space.cards)[:1]))
        else:
            legal = g.legal_actions()
            if A_(ACT_PLACE, 4) not in legal:
                refused.append(int(g.state.ctrl[C_ITEM]))
            g.apply(A_(ACT_PLACE, 4) if A_(ACT_PLACE, 4) in legal else legal[0])
    assert g.state.phase == PH_DRAW and g.state.ctrl[C_ROUND] == 0
    return g, refused


def test_rulebook_block_b_is_reachable_and_scores_as_printed():
    """Scoring Phase example, Block B: White 8 (2 + 2 Greenspaces, x2 Megamall), Green 4
    (2 Greenspaces x2), Orange nothing. It needs 7 small platforms in one block: the
    default board has them, so the position arises through legal actions and scores so."""
    g, refused = _block_b_through_the_rules(None)
    st = g.state
    assert refused == []
    b = st.board[4]
    assert (b[B_VAC], b[B_GREEN], b[B_NMALL], b[B_NBLD]) == (0, 2, 1, 5)
    assert [int(b[B_FLOORS + q]) for q in (ORANGE, GREEN, WHITE)] == [3, 5, 5]
    assert R.block_check_nb(st.pub) == -1
    # no other block holds a building, so round 1's Scoring Phase pays Block B alone
    assert (st.players[:, P_SCORE] - 5).tolist() == [0, 0, 4, 8]
    assert st.players[WHITE, P_EV_FIRST] == 8 and st.players[GREEN, P_EV_SECOND] == 4


def test_rulebook_block_b_does_not_fit_the_six_platform_board():
    # 6 small platforms: after the five buildings only one Greenspace fits in block 4
    # (and a pre-placed Greenspace block has only 5 open), so the second is refused there
    g, refused = _block_b_through_the_rules("six_platforms")
    assert refused == [GREENSPACE]
    assert (g.state.board[4, B_VAC], g.state.board[4, B_GREEN]) == (0, 1)


# ---------------------------------------------------------------- construction flow


def _game(n=4, seed=1, **over):
    return new_game(n_players=n, seed=seed, overrides=over or None)


def test_billboard_costs_and_building_over_own_billboard_removes_it():
    g = _game()
    st, kp = g.state, g.kp
    p = g.current_player()
    k = 0  # Red block 0: no building yet
    g.apply(A_(ACT_BILLBOARD, k))
    assert st.players[p, P_SCORE] == 4 and st.board[k, B_BB + p] == 1 and st.board[k, B_VAC] == 6
    # everyone else passes; p installs its 1-floor curved building on its billboard
    while g.current_player() != p:
        g.apply(A_(ACT_PASS))
    c = card_id(kp, CONTRACT, 1, district=0)
    set_hand(st, p, [c])
    g.apply(A_(ACT_CONTRACT, c))
    assert g.state.phase == PH_INSTALL
    acts = g.legal_actions()
    onbb = [a for a in acts if a & 1 and ((a & 0xFFFF) >> 1) % 9 == k]
    assert onbb, [g.action_name(a) for a in acts]
    assert "on own billboard" in g.action_name(onbb[0])
    g.apply(onbb[0])
    assert st.players[p, P_SCORE] == 3
    assert st.board[k, B_BB + p] == 0 and st.board[k, B_BBTOT] == 0 and st.board[k, B_VAC] == 6
    # another seat's billboard is no platform: test_only_own_billboards_take_a_building



BB_COSTS_CARD = "construction.billboard_costs_card"


def _billboards(g):
    return [a for a in g.legal_actions() if a >> 16 == ACT_BILLBOARD]


def _refused(g, a):
    """The rules kernel refuses action a, leaving the state as it was."""
    from engines.skyline_3000.state import copy_state
    c = copy_state(g.state)
    ok = R.apply_action_nb(c.pub, c.hands, c.sec, np.int64(a))
    return not ok and (c.pub == g.state.pub).all() and (c.hands == g.state.hands).all()


def _empty_my_hand(g):
    """The Key Player plays every card without acting, the others pass: a position the rules reach
    (no card moved by hand) where the seat to move holds nothing. Returns that seat."""
    p = g.current_player()
    while g.state.players[p, P_NHAND] > 0:
        if g.current_player() == p:
            g.apply(A_(ACT_NOACT, int(g.state.hands[p, 0])))
        else:
            g.apply(A_(ACT_PASS))
    while g.current_player() != p:
        g.apply(A_(ACT_PASS))
    return p


def test_billboard_needs_no_card_by_default():
    # construction.billboard_costs_card = false (GAPS.md): 1 point and a billboard, the hand untouched
    g = _game()
    st, kp = g.state, g.kp
    p = g.current_player()
    hand = sorted(st.hands[p, :st.players[p, P_NHAND]].tolist())
    bbs = _billboards(g)
    assert bbs == [A_(ACT_BILLBOARD, k) for k in range(kp.n_blocks)]   # one per block, no card field
    assert g.action_name(bbs[0]) == "place a billboard in Red block 1"
    assert _refused(g, A_(ACT_BILLBOARD, (hand[0] + 1) << BB_CARD_SHIFT))   # a card is no part of it
    disc = st.piles[:, PI_DISC].copy()
    g.apply(A_(ACT_BILLBOARD, 4))
    assert sorted(st.hands[p, :st.players[p, P_NHAND]].tolist()) == hand
    assert (st.piles[:, PI_DISC] == disc).all()
    assert st.players[p, P_SCORE] == 4 and st.board[4, B_BB + p] == 1 and st.players[p, P_BILLBOARDS] == 4
    # an empty hand places a billboard all the same
    g = _game(seed=2)
    p = _empty_my_hand(g)
    assert len(_billboards(g)) == g.kp.n_blocks
    g.apply(A_(ACT_BILLBOARD, 0))
    assert g.state.players[p, P_SCORE] == 4 and g.state.board[0, B_BB + p] == 1


def test_billboard_costs_the_chosen_card_when_the_key_is_on():
    g = _game(**{BB_COSTS_CARD: True})
    st, kp = g.state, g.kp
    p = g.current_player()
    hand = st.hands[p, :st.players[p, P_NHAND]].tolist()
    # one billboard per block and hand card, in hand order
    assert _billboards(g) == [A_(ACT_BILLBOARD, k | (c + 1) << BB_CARD_SHIFT) for k in range(kp.n_blocks) for c in hand]
    c = hand[3]
    a = A_(ACT_BILLBOARD, 4 | (c + 1) << BB_CARD_SHIFT)
    assert g.action_name(a) == f"place a billboard in Yellow block 2, paying with {card_name(g.kp, c)}"
    assert _refused(g, A_(ACT_BILLBOARD, 4))                           # no card: refused
    outside = next(x for x in range(kp.n_cards) if x not in hand)
    assert _refused(g, A_(ACT_BILLBOARD, 4 | (outside + 1) << BB_CARD_SHIFT))   # not in hand: refused
    t = kp.card_types()[c]
    disc = st.piles[t, PI_DISC]
    g.apply(a)
    left = st.hands[p, :st.players[p, P_NHAND]].tolist()
    assert sorted(left) == sorted(x for x in hand if x != c)        # exactly the chosen card is gone
    assert st.piles[t, PI_DISC] == disc + 1 and st.piles[t, PI_DISCARDS + disc] == c
    assert st.players[p, P_SCORE] == 4 and st.board[4, B_BB + p] == 1 and st.players[p, P_BILLBOARDS] == 4


def test_billboard_that_costs_a_card_is_illegal_with_an_empty_hand():
    g = _game(seed=2, **{BB_COSTS_CARD: True})
    p = _empty_my_hand(g)
    assert _billboards(g) == []
    assert _refused(g, A_(ACT_BILLBOARD, 0))
    assert g.legal_actions() == [A_(ACT_PASS)]
    # the same position with the key off (only the rule table differs) offers every block
    g.state.pub[TAB + K_BB_CARD] = 0
    assert len(_billboards(g)) == g.kp.n_blocks
    g.state.pub[TAB + K_BB_CARD] = 1
    counts, _ = R.main_kind_counts_nb(g.state.pub, g.state.hands[p], p, np.zeros(g.kp.max_actions, np.int64))
    assert (counts >> (8 * ACT_BILLBOARD)) & 255 == 0

def _seed_where_key_holds(n_players, ctype, district, **over):
    """The first seed whose Key Player was dealt a card of this type and district (a real deal: no card
    is moved, so the position stays one the rules can reach)."""
    for seed in range(200):
        g = _game(n=n_players, seed=seed, **over)
        st, kp = g.state, g.kp
        key = int(st.ctrl[C_KEY])
        for c in st.hands[key, :st.players[key, P_NHAND]]:
            if kp.card_types()[c] == ctype and kp.card_districts()[c] == district:
                return g, int(c)
    raise LookupError("no such deal in 200 seeds")


def test_only_own_billboards_take_a_building():
    """Construction Phase: a building may go "onto a small platform that already contains one of his own
    Billboards"; another player's billboard is no platform. The position is played, not written: two
    players and two small platforms a block (a variant), billboards placed by the rules, the board
    consistent (block_check_nb) at every step."""
    g, contract = _seed_where_key_holds(2, CONTRACT, 0, **{"board.small_platforms": 2})
    st, kp = g.state, g.kp
    me = g.current_player()
    other = 1 - me
    assert me == st.ctrl[C_KEY]

    def play(seat, action):
        assert g.current_player() == seat
        g.apply(action)
        assert R.block_check_nb(st.pub) == -1  # a board the rules could build

    # Red district: block 0 gets one billboard each (full), block 1 (its pre-placed Greenspace on its own
    # marked platform, two open) only the other's two (full), block 2 one of mine and one open platform
    play(me, A_(ACT_BILLBOARD, 0))
    play(other, A_(ACT_BILLBOARD, 0))
    play(me, A_(ACT_BILLBOARD, 2))
    play(other, A_(ACT_BILLBOARD, 1))
    play(me, A_(ACT_BILLBOARD, 4))   # Yellow: a turn spent elsewhere
    play(other, A_(ACT_BILLBOARD, 1))
    assert st.board[0, B_VAC] == 0 and st.board[1, B_VAC] == 0 and st.board[2, B_VAC] == 1
    assert st.board[1, B_BB + other] == 2 and st.board[1, B_BB + me] == 0 and st.board[1, B_GREEN] == 1
    play(me, A_(ACT_CONTRACT, contract))
    assert g.state.phase == PH_INSTALL
    nb = kp.n_blocks
    where = {(((a & 0xFFFF) >> 1) % nb, a & 1) for a in g.legal_actions()}
    # block 0: on my billboard only; block 2: the open platform or my billboard; block 1: nothing
    assert where == {(0, 1), (2, 0), (2, 1)}
    # a building of mine that fits block 1 (1 floor) may not go onto the other's billboard there, nor
    # onto a platform that is not open: the rule kernel refuses it and leaves the state as it was
    i = next(i for i in range(st.players[me, P_NBUILD]) if st.plants[me, PL_H, i] == 1)
    before = st.pub.copy()
    for onbb in (1, 0):
        forged = A_(ACT_INSTALL, (i * nb + 1) * 2 + onbb)
        assert forged not in g.legal_actions()
        assert not R.apply_action_nb(st.pub, st.hands, st.sec, np.int64(forged))
        assert np.array_equal(st.pub, before)
    # onto my own billboard in block 0: it leaves the game, the platform holds the building, 1 point
    play(me, A_(ACT_INSTALL, (i * nb + 0) * 2 + 1))
    assert st.board[0, B_BB + me] == 0 and st.board[0, B_BB + other] == 1 and st.board[0, B_BBTOT] == 1
    assert st.board[0, B_NBLD] == 1 and st.board[0, B_FLOORS + me] == 1 and st.board[0, B_VAC] == 0
    assert st.players[me, P_SCORE] == 5 - 3 - 1   # three billboards placed, one built over
    assert st.players[me, P_BILLBOARDS] == 5 - 3  # the built-over billboard is not returned


def test_play_card_without_acting_is_not_a_pass_and_pass_is_final():
    g = _game()
    st = g.state
    p = g.current_player()
    a = next(a for a in g.legal_actions() if a >> 16 == ACT_NOACT)
    n = st.players[p, P_NHAND]
    g.apply(a)
    assert st.players[p, P_NHAND] == n - 1
    assert not (st.ctrl[C_PASSED] >> p) & 1
    # next seat passes; it never comes back this phase, while p still plays
    q = g.current_player()
    g.apply(A_(ACT_PASS))
    seen = []
    for _ in range(200):
        if g.state.phase != PH_MAIN:
            break
        seen.append(g.current_player())
        g.apply(A_(ACT_PASS) if g.current_player() != p else next(
            (a for a in g.legal_actions() if a >> 16 == ACT_NOACT), A_(ACT_PASS)))
    assert q not in seen
    assert p in seen  # p kept playing cards while the others had passed


def test_contract_needs_a_legal_install_in_its_district():
    g = _game()
    st, kp = g.state, g.kp
    p = g.current_player()
    # fill Red district with pointed buildings of height 5: nothing of ours fits
    for k in range(3):
        st.board[k, B_VAC] = 0
    c = card_id(kp, CONTRACT, 3, district=0)
    set_hand(st, p, [c])
    assert A_(ACT_CONTRACT, c) not in g.legal_actions()
    assert A_(ACT_NOACT, c) in g.legal_actions()


# ---------------------------------------------------------------- auctions


def _to_auction(g, hands):
    """Everyone passes construction; then give the seats these hands."""
    while g.state.phase == PH_MAIN:
        g.apply(A_(ACT_PASS))
    assert g.state.phase == PH_BID
    for p, cards in hands.items():
        set_hand(g.state, p, cards)


def _bid(g, values_by_seat):
    """Each bidder in turn bids cards of these values (BidSpace.bid_values)."""
    while g.state.phase == PH_BID:
        p = g.current_player()
        space = g.legal_actions()
        a = space.bid_values(values_by_seat.get(p, []))
        assert a in space
        g.apply(a)


def test_auction_worked_example_purple_wins_with_2_plus_5():
    # Orange 6 + STOP; Purple 2, 5, STOP = 7; Green STOP = 0 -> Purple wins the Greenspace
    g = _game(n=3)
    kp = g.kp
    f = lambda v, skip=(): card_id(kp, FLOOR, v, skip=skip)  # noqa: E731
    o6, p2, p5, g8 = f(6), f(2), f(5), f(8)
    _to_auction(g, {ORANGE: [o6, f(4, skip=(o6, p2, p5))], PURPLE: [p2, p5], GREEN: [g8]})
    _bid(g, {ORANGE: [6], PURPLE: [2, 5], GREEN: []})
    row = g.state.alog[0]
    assert row[A_BID:A_BID + 3].tolist() == [6, 7, 0]
    assert row[A_WINNER] == PURPLE and row[A_PRICE] == 7 and row[A_TIE] == 0
    assert g.state.players[PURPLE, P_NHAND] == 0          # Purple discards the 2 and the 5
    assert g.state.players[ORANGE, P_NHAND] == 2          # the others take theirs back
    assert g.state.phase == PH_PLACE and g.current_player() == PURPLE
    free = g.legal_actions()
    assert len(free) == 9
    g.apply(A_(ACT_PLACE, 4))
    assert g.state.board[4, B_GREEN] == 1 and g.state.alog[0, A_BLOCK] == 4


def test_auction_tie_highest_card_then_key_order():
    g = _game(n=4)
    kp = g.kp
    key = int(g.state.ctrl[C_KEY])
    ids = iter(range(24))  # floor cards, values 1..8 three times
    by_value = {}
    for c in ids:
        by_value.setdefault(int(kp.card_values()[c]), []).append(c)
    s1, s2, s3 = (key + 1) % 4, (key + 2) % 4, (key + 3) % 4
    # s1: 3 + 4 = 7 (high 4); s2: 7 (high 7) -> s2 wins on the highest card
    _to_auction(g, {key: [], s1: [by_value[3][0], by_value[4][0]], s2: [by_value[7][0]], s3: [by_value[1][0]]})
    _bid(g, {s1: [3, 4], s2: [7], s3: [1]})
    row = g.state.alog[0]
    assert row[A_WINNER] == s2 and row[A_TIE] == 1 and row[A_HIGH + s1] == 4 and row[A_HIGH + s2] == 7
    # second auction: s1 bids 4 (card 4), s3 bids 4 (card 4): equal high card -> closest to the Key
    g.apply(g.legal_actions()[0])  # s2 places its Greenspace
    set_hand(g.state, s1, [by_value[4][1]])
    set_hand(g.state, s3, [by_value[4][2]])
    _bid(g, {s1: [4], s3: [4]})
    row = g.state.alog[1]
    assert row[A_WINNER] == s1 and row[A_TIE] == 2


def test_auction_tie_key_variant_ignores_high_card():
    g = new_game(variant="no_tiebreak", seed=1)
    kp = g.kp
    key = int(g.state.ctrl[C_KEY])
    s1, s2 = (key + 1) % 4, (key + 2) % 4
    c3, c4, c7 = card_id(kp, FLOOR, 3), card_id(kp, FLOOR, 4), card_id(kp, FLOOR, 7)
    _to_auction(g, {key: [], s1: [c3, c4], s2: [c7], (key + 3) % 4: []})
    _bid(g, {s1: [3, 4], s2: [7]})
    row = g.state.alog[0]
    assert row[A_WINNER] == s1 and row[A_TIE] == 2


def test_all_zero_bids_remove_the_item():
    g = _game()
    _to_auction(g, {})
    while g.state.ctrl[C_N_AUC] == 0:
        g.apply(g.legal_actions().zero)
    row = g.state.alog[0]
    assert row[A_WINNER] == -1 and row[A_BLOCK] == -1
    assert g.state.phase == PH_BID  # straight on to stack 2's auction
    assert g.state.ctrl[C_STACK_POS + 0] == 1 and g.state.ctrl[C_N_AUC] == 1


def test_item_with_no_place_is_lost_but_paid_for():
    g = _game()
    kp = g.kp
    g.state.board[:, B_VAC] = 0  # no vacant small platform anywhere
    c = card_id(kp, FLOOR, 5)
    key = int(g.state.ctrl[C_KEY])
    _to_auction(g, {key: [c]})
    _bid(g, {key: [5]})
    row = g.state.alog[0]
    assert row[A_WINNER] == key and row[A_PRICE] == 5 and row[A_BLOCK] == -1
    assert g.state.phase != PH_PLACE and g.state.players[key, P_NHAND] == 0


def test_item_with_no_place_refunded_variant_returns_the_bid():
    # auction.unplaceable_item = "lost_refunded": the item is lost, the winner keeps his cards
    g = _game(**{"auction.unplaceable_item": "lost_refunded"})
    kp = g.kp
    g.state.board[:, B_VAC] = 0
    c = card_id(kp, FLOOR, 5)
    key = int(g.state.ctrl[C_KEY])
    _to_auction(g, {key: [c]})
    while g.state.ctrl[C_N_AUC] == 0:   # the first auction only (he keeps his card for the next)
        space = g.legal_actions()
        g.apply(space.bid_values([5] if g.current_player() == key else []))
    row = g.state.alog[0]
    assert row[A_WINNER] == key and row[A_BID + key] == 5 and row[A_PRICE] == 0 and row[A_BLOCK] == -1
    assert g.state.phase == PH_BID and g.state.players[key, P_NHAND] == 1 and g.state.hands[key, 0] == c
    assert g.state.piles[FLOOR, PI_DISC] == 0


@pytest.mark.parametrize("stacking, factor", [("once", 2), ("each", 4)])
def test_several_megamalls_in_a_block_multiply_once_or_each(stacking, factor):
    kp = kp_for(**{"board.large_platforms": 2, "scoring.megamall_stacking": stacking})
    board = empty_board(kp)
    build(board, 4, ORANGE, 1)
    megamall(board, 4)
    megamall(board, 4)
    assert score_board(kp, board)[ORANGE, P_EV_FIRST] == 2 * factor


@pytest.mark.parametrize("stacking, cards", [("each", 4), ("once", 2)])
def test_several_spaceports_in_a_block_pay_each_or_once(stacking, cards):
    kp = kp_for(**{"board.large_platforms": 2, "scoring.spaceport_stacking": stacking})
    board = empty_board(kp)
    build(board, 4, ORANGE, 1)
    spaceport(board, 4)
    spaceport(board, 4)
    assert score_board(kp, board)[ORANGE, P_BONUS] == cards


@pytest.mark.parametrize("rule, playable", [("place_what_is_left", True), ("needs_full_card", False)])
def test_a_floor_card_when_one_floor_is_left(rule, playable):
    g = _game(**{"construction.short_floor_stock": rule})
    st, kp = g.state, g.kp
    p = g.current_player()
    c = card_id(kp, FLOOR, 3)
    set_hand(st, p, [c])
    st.ctrl[C_STOCK] = 1
    assert (A_(ACT_FLOOR, c) in g.legal_actions()) == playable
    if playable:
        n = st.players[p, P_NBUILD]
        g.apply(A_(ACT_FLOOR, c))
        g.apply(g.legal_actions()[-1])   # the one floor left starts a new building
        assert st.ctrl[C_STOCK] == 0 and st.players[p, P_NBUILD] == n + 1 and g.state.phase == PH_MAIN


def test_hand_limit_stops_the_draw_spaceport_cards_included():
    # cards.hand_limit = 10: hands of 8 draw 2 (the Spaceport First's 2 extra cards are lost, too)
    g = _game(n=2, seed=4, **{"cards.hand_limit": 10})
    st = g.state
    a = int(st.ctrl[C_KEY])
    build(st.board, 0, a, 1)
    spaceport(st.board, 0)
    _to_draw(g)
    assert st.players[a, P_BONUS] == 2
    hands0 = st.players[:, P_NHAND].copy()
    assert hands0.tolist() == [8, 8]
    while g.state.phase == PH_DRAW:
        g.apply(g.legal_actions()[0])
    assert st.players[:, P_NHAND].tolist() == [10, 10] and st.ctrl[C_ROUND] == 1


def test_bid_must_be_subset_of_hand():
    g = _game()
    _to_auction(g, {})
    p = g.current_player()
    other = int(g.state.hands[(p + 1) % 4, 0])
    bad = BID_FLAG | (1 << other)
    assert bad not in g.legal_actions()
    with pytest.raises(ValueError):
        g.apply(bad)


# ---------------------------------------------------------------- draw phase


def _to_draw(g):
    while g.state.phase not in (PH_DRAW,):
        if g.state.phase == PH_MAIN:
            g.apply(A_(ACT_PASS))
        elif g.state.phase == PH_BID:
            g.apply(g.legal_actions().zero)
        else:
            g.apply(g.legal_actions()[0])


def test_spaceport_extra_draws_first_two_second_one():
    g = _game(seed=4)
    st = g.state
    key = int(st.ctrl[C_KEY])
    a, b_ = (key + 1) % 4, (key + 2) % 4
    build(st.board, 0, a, 1)
    build(st.board, 0, a, 2)
    build(st.board, 0, b_, 2)
    spaceport(st.board, 0)
    _to_draw(g)
    assert st.players[a, P_BONUS] == 2 and st.players[b_, P_BONUS] == 1
    hands0 = st.players[:, P_NHAND].copy()
    while g.state.phase == PH_DRAW:
        g.apply(g.legal_actions()[0])
    drawn = st.players[:, P_NHAND] - hands0
    assert drawn[a] == 8 and drawn[b_] == 7 and drawn[key] == 6
    assert st.players[a, P_ST_EXTRA] == 2 and st.players[b_, P_ST_EXTRA] == 1
    assert st.ctrl[C_KEY] == (key + 1) % 4 and st.ctrl[C_ROUND] == 1  # Key passes clockwise


def test_spaceport_bonus_comes_from_each_scoring_phase_alone():
    """Draw Phase, Spaceports: the extra cards go to the First / Second Place of each Spaceport block "in
    the preceding Scoring Phase": summed over the Spaceport blocks (first in one, second in the other:
    3 cards), set afresh by every Scoring Phase, never carried over or accumulated."""
    kp = kp_for()
    board = empty_board(kp)
    for k, (a, b) in ((0, (ORANGE, PURPLE)), (3, (PURPLE, ORANGE))):   # a: 3 floors (First), b: 2 (Second)
        build(board, k, a, 1)
        build(board, k, a, 2)
        build(board, k, b, 2)
        spaceport(board, k)
    build(board, 6, GREEN, 1)   # First in a block with no Spaceport: no cards
    st = position(kp, board)
    R.scoring_nb(st.pub)
    assert st.players[:, P_BONUS].tolist() == [3, 3, 0, 0]
    R.scoring_nb(st.pub)        # the next Scoring Phase, the same board: the same bonus, not twice it
    assert st.players[:, P_BONUS].tolist() == [3, 3, 0, 0]
    # Green outbuilds both in block 0 (5 floors); a Megamall in block 3 doubles points, not cards
    build(st.board, 0, GREEN, 2)
    build(st.board, 0, GREEN, 3)
    megamall(st.board, 3)
    R.scoring_nb(st.pub)
    assert st.players[:, P_BONUS].tolist() == [1 + 1, 2, 2, 0]   # Purple's Second in block 0 is gone
    # nobody left in block 3: its Spaceport pays nobody; the bonus falls, it is not kept from before
    st.board[3, B_FLOORS:B_FLOORS + 4] = 0
    st.board[3, B_TALL:B_TALL + 4] = 0
    R.scoring_nb(st.pub)
    assert st.players[:, P_BONUS].tolist() == [1, 0, 2, 0]


def test_spaceport_extra_cards_are_drawn_per_draw_phase_not_accumulated():
    # two rounds on the same board: First in the Spaceport block draws 6 + 2 each Draw Phase (not 6 + 4)
    g = _game(n=2, seed=4)
    st = g.state
    a = int(st.ctrl[C_KEY])
    b_ = 1 - a
    build(st.board, 0, a, 1)
    build(st.board, 0, a, 2)
    build(st.board, 0, b_, 2)
    spaceport(st.board, 0)
    for rnd in (0, 1):
        _to_draw(g)
        assert st.ctrl[C_ROUND] == rnd
        hands0 = st.players[:, P_NHAND].copy()
        while g.state.phase == PH_DRAW:
            g.apply(g.legal_actions()[0])
        assert (st.players[:, P_NHAND] - hands0).tolist() == ([8, 7] if a == 0 else [7, 8])


def test_draw_phase_goes_from_the_key_player_clockwise_each_drawing_all_his_cards():
    """Draw Phase: "Beginning with the Key Player and proceeding clockwise ... The Key Player draws all of
    his cards, then the player to his left draws all of her cards"; then the Key passes to the left, so
    the next Draw Phase starts one seat on. Three players (so clockwise is not just "the other one"),
    3 cards a round (a variant) so two rounds never run the decks dry; the seat after the Key has a
    Spaceport First (+2)."""
    g = _game(n=3, seed=5, **{"cards.draw_per_round": 3})
    st = g.state
    for rnd in (0, 1):
        key = int(st.ctrl[C_KEY])
        bonus_seat = (key + 1) % 3
        st.board[0, B_FLOORS:B_FLOORS + 4] = 0
        st.board[0, B_FLOORS + bonus_seat] = 1   # (scoring reads floors; the Spaceport block is block 0)
        if st.board[0, B_NSPACE] == 0:
            spaceport(st.board, 0)
        _to_draw(g)
        order = []
        while g.state.phase == PH_DRAW:
            order.append(g.current_player())
            g.apply(g.legal_actions()[0])
        assert order == [key] * 3 + [bonus_seat] * 5 + [(key + 2) % 3] * 3, (rnd, key, order)
        assert st.ctrl[C_KEY] == (key + 1) % 3 and st.ctrl[C_ROUND] == rnd + 1


def test_reshuffle_and_empty_deck_fallback():
    g = _game(seed=2)
    st, kp = g.state, g.kp
    _to_draw(g)
    piles, decks = st.piles, st.decks
    # Roof deck: move every card left in it to its discards
    n = piles[ROOF, PI_DECK]
    for j in range(n):
        piles[ROOF, PI_DISCARDS + piles[ROOF, PI_DISC]] = decks[ROOF, j]
        piles[ROOF, PI_DISC] += 1
    piles[ROOF, PI_DECK] = 0
    piles[ROOF, PI_TOP] = -1
    ndisc = int(piles[ROOF, PI_DISC])
    assert A_(ACT_DRAW, ROOF) in g.legal_actions()  # discards wait: the deck can be drawn
    g.apply(A_(ACT_DRAW, ROOF))
    assert piles[ROOF, PI_DISC] == 0 and piles[ROOF, PI_DECK] == ndisc - 1
    assert piles[ROOF, PI_TOP] == decks[ROOF, ndisc - 2]  # the new top is visible
    # Floor deck and discards both empty: no Floor draw offered
    piles[FLOOR, PI_DECK] = 0
    piles[FLOOR, PI_DISC] = 0
    piles[FLOOR, PI_TOP] = -1
    assert A_(ACT_DRAW, FLOOR) not in g.legal_actions()
    # one Contract card left in all: once it is drawn, drawing stops and round 2 starts
    piles[ROOF, PI_DECK] = 0
    piles[ROOF, PI_DISC] = 0
    piles[ROOF, PI_TOP] = -1
    piles[CONTRACT, PI_DECK] = 1
    piles[CONTRACT, PI_DISC] = 0
    piles[CONTRACT, PI_TOP] = decks[CONTRACT, 0]
    assert g.legal_actions() == [A_(ACT_DRAW, CONTRACT)]
    g.apply(A_(ACT_DRAW, CONTRACT))
    assert g.state.phase == PH_MAIN and st.ctrl[C_ROUND] == 1


# ---------------------------------------------------------------- end of game


def test_final_tie_hand_value_then_shared():
    kp = kp_for()
    players = players_array(kp, scores=[30, 30, 30, 10])
    hands = np.zeros((4, kp.n_cards), np.int32)
    c8, c1 = card_id(kp, FLOOR, 8), card_id(kp, FLOOR, 1)
    hands[0, 0] = c8
    players[0, P_NHAND] = 1
    hands[1, 0] = c1
    players[1, P_NHAND] = 1
    score = np.zeros(4, np.int64)
    rank = np.zeros(4, np.int64)
    hv = np.zeros(4, np.int64)
    n_win, n_top, winner, margin, tb = R.final_result_nb(position(kp, players=players).pub, hands, score, rank, hv)
    assert rank.tolist() == [1, 2, 3, 4] and (n_win, n_top > 1, tb) == (1, True, True)
    assert winner == 0 and margin == 0  # level on points: won on hand value, by 0 points
    hands[1, 0] = card_id(kp, FLOOR, 8, skip=(c8,))
    n_win, n_top, winner, margin, tb = R.final_result_nb(position(kp, players=players).pub, hands, score, rank, hv)
    assert rank.tolist() == [1, 1, 3, 4] and n_win == 2 and not tb
    kp2 = kp_for(variant="no_tiebreak")
    n_win, n_top, winner, margin, tb = R.final_result_nb(position(kp2, players=players).pub, hands, score, rank, hv)
    assert rank.tolist() == [1, 1, 1, 4] and n_win == 3


def test_no_draw_phase_after_final_round_and_four_rounds():
    g = _game(seed=3)
    rounds_seen = set()
    while not g.is_over():
        rounds_seen.add(int(g.state.ctrl[C_ROUND]))
        assert not (g.state.phase == PH_DRAW and g.state.ctrl[C_ROUND] == 3)
        g.apply(g.policy_action("random"))
    assert rounds_seen == {0, 1, 2, 3}
    assert g.state.ctrl[C_N_AUC] == 12
