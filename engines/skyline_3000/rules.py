"""Skyline 3000 rules as pure kernels over the buffers pub, hands, sec (see
state.py for the layout; the variant is in pub's table section).

Rulebook: Skyline 3000; what it leaves open is data in variants/default.toml
(one comment per rule choice).

A turn is split into small decision points (the phases in state.py):

    PH_MAIN     pass | play Floor/Roof/Contract card c (to act) | billboard in
                block k (with construction.billboard_costs_card: x hand card c,
                discarded) | play card c without acting
    PH_FLOOR    one Floor at a time: incomplete building i | a new building
    PH_ROOF     incomplete building i x roof type
    PH_INSTALL  complete building i x block k of the Contract's district x
                (vacant small platform | own billboard)
    PH_BID      sealed bid: BID_FLAG | mask of card ids (a subset of the hand);
                legal_actions_nb returns 0 here, the policy builds the mask
    PH_PLACE    the auction winner: block k
    PH_DRAW     deck t (among decks with cards in deck or discards)

Scoring, auctions' resolution, reshuffles and the Key passing happen inside
apply_action_nb, between decisions. All chance (shuffles, deal, Key) draws
from the chance stream in `sec[0:4]`, so the cards are the same whatever
the policies do, as far as the rules allow.
"""
from __future__ import annotations

import numpy as np

from engines.core.harness import rank_nb, seed_chance_nb
from engines.core.kernel import kernel
from engines.core.rng import below
from engines.skyline_3000._jit import BOOL, I64, I64_ARR, PUB, inline_kernel, typed_kernel
from engines.skyline_3000.state import (
    P_PAID, P_PLAYED,
    BB_BLOCK_MASK, BB_CARD_SHIFT, K_BB_CARD,
    A_BID, A_BLOCK, A_HIGH, A_ITEM, A_PRICE, A_ROUND, A_SHIFT, A_STACK, A_TIE, A_WINNER, ALOG,
    B_BB, B_BBTOT, B_BLDH, B_BLDO, B_FLOORS, B_GREEN, B_LVAC, B_NBLD, B_NMALL, B_NSPACE, B_ROOF,
    B_TALL, B_TOP, B_VAC, BID_FLAG, BOARD, C_BIDDER, C_CUR, C_DECISIONS, C_DRAW_LEFT, C_DRAWER,
    C_DRAWN, C_FIRST_KEY, C_ITEM, C_KEY, C_N_AUC, C_PASSED, C_PCARD, C_PHASE, C_ROUND, C_STACK,
    C_STACK_POS, C_STALLED, C_STOCK, C_SUB, C_TURN, C_TURNS_TOTAL, C_WINNER, CONTRACT, DETAIL_MASK,
    FLOOR, GREENSPACE, ACT_BID, ACT_BILLBOARD, ACT_CONTRACT, ACT_DRAW, ACT_FLOOR, ACT_FLOOR_TARGET, ACT_INSTALL,
    ACT_NOACT, ACT_PASS, ACT_PLACE, ACT_ROOF, ACT_ROOF_TARGET, MAX_CARDS, MAX_P, MAX_STACK_ITEMS, N_ALOG,
    N_BOARD, PI_DISCARDS, N_PIROW, N_PLROW, N_PROW, N_TYPES, P_BILLBOARDS, P_BONUS,
    P_EV_BILLBOARD, P_EV_BUILDOVER, P_EV_FIRST, P_EV_SECOND, P_NBUILD, P_NHAND, P_ROOFS, P_ROUND_SCORE, P_SCORE,
    P_ST_BB, P_ST_BB_OVER, P_ST_BUILT, P_ST_EXTRA, P_ST_FLOORS, P_ST_PASS_R1, P_ST_PLACED,
    P_ST_SPENT, P_ST_WON, P_TURNS_ROUND, PH_BID, PH_DRAW, PH_FLOOR, PH_INSTALL, PH_MAIN, PH_OVER,
    PH_PLACE, PH_ROOF, PI_DECK, PI_DISC, PI_TOP, PILES, PLANTS, PLAYERS, PLH, PLR, ROOF,
    S_BIDS, S_DECKS, SPACEPORT, K_BILLBOARD_COST, K_BLOCK_TIE, K_BUILDOVER_COST, K_BPD, K_DEAL, K_DIST, K_DRAW_PER_ROUND,
    K_FINAL_TIE, K_FIRST_BASE, K_FIRST_PER_BB, K_FIRST_FLOORS, K_FIRST_PER_GREEN, K_FLOORS_PER_CARD, K_GREEN, K_LARGE_PLATFORMS,
    K_MEGAMALL_MULT, K_N_BLOCKS, K_N_CARDS, K_N_DISTRICTS, K_N_GREEN, K_N_PLAYERS, K_N_STACKS, K_N_START, K_ROUNDS, K_SECOND_BASE,
    K_SECOND_PER_BB, K_SECOND_PER_GREEN, K_SIZE, K_SMALL_PLATFORMS, K_SPACEPORT_FIRST, K_SPACEPORT_SECOND, K_STACK_ITEMS,
    K_STACK_LEN, K_START_H, K_START_R, K_START_SCORE, K_FLOOR_STOCK, K_BILLBOARDS, K_CURVED_ROOFS, K_POINTED_ROOFS,
    K_TURN_CAP, K_TYPE, K_VALUE, TAB, K_AUCTION_TIE, K_MAX_BUILDINGS, K_GREEN_PLATFORM,
    K_HAND_LIMIT, K_MALL_STACKING, K_PORT_STACKING, K_SHORT_STOCK, K_UNPLACEABLE,
)

# ====================================================================== setup


@kernel
def reset_state_nb(pub, hands, sec, tab, run_seed, game_index):
    """Preparation, in place: shuffle, deal, buildings, greenspaces, Key.
    tab is KernelParams.tab (copied into pub's table section)."""
    pub[:PLANTS] = 0
    for j in range(K_SIZE):
        pub[TAB + j] = tab[j]
    for j in range(ALOG, PLANTS):
        pub[j] = -1
    P = pub[TAB + K_N_PLAYERS]
    NC = pub[TAB + K_N_CARDS]
    for p in range(P):
        for i in range(pub[TAB + K_MAX_BUILDINGS]):
            pub[PLH + p * N_PLROW + i] = 0
            pub[PLR + p * N_PLROW + i] = 0
    hands[:] = 0
    sec[:] = 0
    seed_chance_nb(sec, run_seed, game_index)
    # Preparation: shuffle each card type into its own face-up stack
    for c in range(NC):
        t = pub[TAB + K_TYPE + c]
        n = pub[PILES + t * N_PIROW + PI_DECK]
        sec[S_DECKS + t * MAX_CARDS + n] = c
        pub[PILES + t * N_PIROW + PI_DECK] = n + 1
    for t in range(N_TYPES):
        _shuffle_deck(sec, t, pub[PILES + t * N_PIROW + PI_DECK])
        _set_top(pub, sec, t)
    # deal 2 Roof, 2 Floor, 4 Contract cards to each player
    for p in range(P):
        for t in (ROOF, FLOOR, CONTRACT):
            for _ in range(pub[TAB + K_DEAL[t]]):
                c = draw_card_nb(pub, sec, t)
                if c >= 0:
                    o = PLAYERS + p * N_PROW + P_NHAND
                    hands[p, pub[o]] = c
                    pub[o] += 1
    # supplies and the four starting buildings (from the shared floor stock)
    stock = pub[TAB + K_FLOOR_STOCK]
    for p in range(P):
        o = PLAYERS + p * N_PROW
        pub[o + P_SCORE] = pub[TAB + K_START_SCORE]
        pub[o + P_BILLBOARDS] = pub[TAB + K_BILLBOARDS]
        pub[o + P_ROOFS + 1] = pub[TAB + K_CURVED_ROOFS]
        pub[o + P_ROOFS + 2] = pub[TAB + K_POINTED_ROOFS]
        pub[o + P_ST_PASS_R1] = -1
        ns = pub[TAB + K_N_START]
        for i in range(ns):
            h = pub[TAB + K_START_H + i]
            r = pub[TAB + K_START_R + i]
            pub[PLH + p * N_PLROW + i] = h
            pub[PLR + p * N_PLROW + i] = r
            pub[o + P_ROOFS + r] -= 1
            stock -= h
        pub[PLH + p * N_PLROW + ns] = 0
        pub[PLR + p * N_PLROW + ns] = 0
        pub[o + P_NBUILD] = ns
    pub[C_STOCK] = stock
    for k in range(pub[TAB + K_N_BLOCKS]):
        pub[BOARD + k * N_BOARD + B_VAC] = pub[TAB + K_SMALL_PLATFORMS]
        pub[BOARD + k * N_BOARD + B_LVAC] = pub[TAB + K_LARGE_PLATFORMS]
    # Preparation: "Place one Greenspace on each of the four marked platforms".
    # "extra": each marked platform is one more small platform of its block, born
    # holding its Greenspace, so the block's open platforms stay as they are;
    # "shared": the Greenspace takes one of the block's small platforms.
    shared = pub[TAB + K_GREEN_PLATFORM] == 1
    for g in range(pub[TAB + K_N_GREEN]):
        k = pub[TAB + K_GREEN + g]
        if shared:
            pub[BOARD + k * N_BOARD + B_VAC] -= 1
        pub[BOARD + k * N_BOARD + B_GREEN] += 1
    key = below(sec, np.int64(P))  # "Select a player randomly and give him the Key" (P: int32)
    pub[C_KEY] = key
    pub[C_FIRST_KEY] = key
    _begin_construction(pub, P)


# ====================================================================== cards


@kernel
def _shuffle_deck(sec, t, n):
    """Fisher-Yates shuffle of deck t's first n cards (engines.core.rng.shuffle's draws)."""
    o = S_DECKS + t * MAX_CARDS
    for i in range(n - 1, 0, -1):
        j = below(sec, i + 1)
        tmp = sec[o + i]
        sec[o + i] = sec[o + j]
        sec[o + j] = tmp


@inline_kernel
def _set_top(pub, sec, t):
    n = pub[PILES + t * N_PIROW + PI_DECK]
    pub[PILES + t * N_PIROW + PI_TOP] = np.int32(sec[S_DECKS + t * MAX_CARDS + n - 1]) if n > 0 else -1


@kernel
def reshuffle_nb(pub, sec, t):
    """Card Rules: an exhausted stack is rebuilt from its shuffled discards."""
    o = PILES + t * N_PIROW
    n = pub[o + PI_DISC]
    for j in range(n):
        sec[S_DECKS + t * MAX_CARDS + j] = pub[o + PI_DISCARDS + j]
    pub[o + PI_DECK] = n
    pub[o + PI_DISC] = 0
    _shuffle_deck(sec, t, n)
    _set_top(pub, sec, t)


@kernel
def draw_card_nb(pub, sec, t):
    """Top card of deck t (reshuffling its discards when empty), -1 if none.

    A deck emptied by the draw is rebuilt at once when discards wait, so its
    next card is visible; discards that arrive later are reshuffled at the
    next draw from the empty deck."""
    o = PILES + t * N_PIROW
    if pub[o + PI_DECK] == 0:
        if pub[o + PI_DISC] == 0:
            return -1
        reshuffle_nb(pub, sec, t)
    n = pub[o + PI_DECK] - 1
    c = np.int32(sec[S_DECKS + t * MAX_CARDS + n])
    sec[S_DECKS + t * MAX_CARDS + n] = 0   # a deck's places past its count hold 0: search.copy_state_nb skips them
    pub[o + PI_DECK] = n
    if n == 0 and pub[o + PI_DISC] > 0:
        reshuffle_nb(pub, sec, t)
    else:
        pub[o + PI_TOP] = np.int32(sec[S_DECKS + t * MAX_CARDS + n - 1]) if n > 0 else -1
    return c


@typed_kernel((PUB, I64, I64), inline=True)
def _discard(pub, t, c):
    o = PILES + t * N_PIROW
    pub[o + PI_DISCARDS + pub[o + PI_DISC]] = c
    pub[o + PI_DISC] += 1


@kernel
def hand_value_nb(hands, p, n, pub):
    """Total card value of hands[p, :n]."""
    v = 0
    for i in range(n):
        v += pub[TAB + K_VALUE + hands[p, i]]
    return v


# ====================================================================== board rules
# Each rule of the board exists once, as a kernel; legality (legal_actions_nb),
# effect (the do_* kernels) and the policies' look-ahead all call it.


@typed_kernel((PUB, I64, I64), inline=True)
def district_roof_count_nb(pub, d, r):
    """Blocks of district d whose roof is r."""
    bpd = pub[TAB + K_BPD]
    n = 0
    for j in range(d * bpd, d * bpd + bpd):
        if pub[BOARD + j * N_BOARD + B_ROOF] == r:
            n += 1
    return n


@typed_kernel((PUB, I64, I64, I64, I64, I64, I64), inline=True)
def fits_block_nb(pub, k, h, r, same, first_floors, bpd):
    """THE building rule: may a complete building of height h and roof r go
    into block k, when `same` blocks of k's district already have roof r?
    (first_floors, bpd: the variant's pub[TAB + K_FIRST_FLOORS] and
    pub[TAB + K_BPD], passed in so a scan reads them once.)

    Construction Phase: one roof type per block; not all blocks of a district
    with the same roof; the first building has exactly first_floors floors;
    later ones are as tall as the block's tallest or one floor taller."""
    o = BOARD + k * N_BOARD
    roof = pub[o + B_ROOF]
    if roof == 0:
        return h == first_floors and same < bpd - 1
    top = pub[o + B_TOP]
    return r == roof and (h == top or h == top + 1)


@inline_kernel
def block_ok_nb(pub, k, h, r):
    """May a building of height h and roof r go into block k? (fits_block_nb
    with its district's count of roof r.)"""
    bpd = pub[TAB + K_BPD]
    return fits_block_nb(pub, k, h, r, district_roof_count_nb(pub, k // bpd, r), pub[TAB + K_FIRST_FLOORS], bpd)


@typed_kernel((PUB, I64, I64), inline=True)
def install_spot_nb(pub, k, p):
    """(vacant small platform, own billboard of seat p) in block k: where a
    building may stand."""
    o = BOARD + k * N_BOARD
    return pub[o + B_VAC] > 0, pub[o + B_BB + p] > 0


@typed_kernel((PUB, I64, I64, I64_ARR, BOOL))
def installs_nb(pub, p, d, out, only_any):
    """Install options of seat p in district d written to out[0:]; returns the
    count. With only_any, returns 1 at the first option found (out untouched).
    Order: building i, then block k, then vacant platform before own billboard."""
    n = 0
    NB = pub[TAB + K_N_BLOCKS]
    bpd = pub[TAB + K_BPD]
    ff = pub[TAB + K_FIRST_FLOORS]
    k0 = d * bpd
    usable = 0   # blocks with a vacant platform or one of p's billboards
    for k in range(k0, k0 + bpd):
        vac, own = install_spot_nb(pub, k, p)
        if vac or own:
            usable += 1
    if usable == 0:
        return 0
    curved = district_roof_count_nb(pub, d, 1)
    pointed = district_roof_count_nb(pub, d, 2)
    ph = PLH + p * N_PLROW
    pr = PLR + p * N_PLROW
    for i in range(pub[PLAYERS + p * N_PROW + P_NBUILD]):
        r = pub[pr + i]
        if r == 0:
            continue
        h = pub[ph + i]
        same = curved if r == 1 else pointed
        for k in range(k0, k0 + bpd):
            vac, own = install_spot_nb(pub, k, p)
            if not (vac or own) or not fits_block_nb(pub, k, h, r, same, ff, bpd):
                continue
            if only_any:
                return 1
            if vac:
                out[n] = (ACT_INSTALL << A_SHIFT) | ((i * NB + k) * 2)
                n += 1
            if own:
                out[n] = (ACT_INSTALL << A_SHIFT) | ((i * NB + k) * 2 + 1)
                n += 1
    return n


@kernel
def block_places_nb(pub, k):
    """Scoring Phase: (first mask, second mask) of seats in block k."""
    return block_places_hyp_nb(pub, k, -1, 0, 0)


@typed_kernel((PUB, I64, I64, I64, I64))
def block_places_hyp_nb(pub, k, who, add, tall_who):
    """THE placing rule: (first mask, second mask) of seats in block k, as if
    seat `who` had `add` more floors there and its tallest building there were
    `tall_who` (who = -1: the board as is). Scoring calls it with who = -1;
    policies use it to value an install without touching the board.

    Resolving Ties + our mixed-tie rule (variants/default.toml): among the seats tied for most floors,
    those with the tallest building take First (several if level), the rest
    of the tied group Second, and lower seats nothing. With one leader, the
    seats with the second-most floors all take Second. block_tie 1 ("share"):
    everyone tied for most floors takes First."""
    n_players = pub[TAB + K_N_PLAYERS]
    o = BOARD + k * N_BOARD + B_FLOORS
    mx = 0
    for q in range(n_players):
        f = pub[o + q] + (add if q == who else 0)
        if f > mx:
            mx = f
    if mx == 0:
        return 0, 0
    first = 0
    nmx = 0
    for q in range(n_players):
        if pub[o + q] + (add if q == who else 0) == mx:
            nmx += 1
            first |= 1 << q
    second = 0
    if nmx == 1:
        mx2 = 0
        for q in range(n_players):
            f = pub[o + q] + (add if q == who else 0)
            if f != mx and f > mx2:
                mx2 = f
        if mx2 > 0:
            for q in range(n_players):
                if pub[o + q] + (add if q == who else 0) == mx2:
                    second |= 1 << q
        return first, second
    if pub[TAB + K_BLOCK_TIE] == 1:
        return first, 0
    ot = BOARD + k * N_BOARD + B_TALL
    tall = 0
    for q in range(n_players):
        if (first >> q) & 1:
            tq = tall_who if q == who else pub[ot + q]
            if tq > tall:
                tall = tq
    f1st = 0
    for q in range(n_players):
        if (first >> q) & 1:
            tq = tall_who if q == who else pub[ot + q]
            if tq == tall:
                f1st |= 1 << q
            else:
                second |= 1 << q
    return f1st, second


@typed_kernel((PUB, I64, I64, I64, I64), inline=True)
def block_points_hyp_nb(pub, k, d_green, d_bb, d_mall):
    """THE block value rule: (First Place points, Second Place points) block k
    pays with d_green more Greenspaces, d_bb more Billboards and d_mall more
    Megamalls (all 0: as it stands). Several Megamalls in a block (a variant with
    more large platforms) multiply once (megamall_stacking "once") or once each."""
    o = BOARD + k * N_BOARD
    g = pub[o + B_GREEN] + d_green
    b = pub[o + B_BBTOT] + d_bb
    n_mall = pub[o + B_NMALL] + d_mall
    mult = 1
    if n_mall > 0:
        mult = pub[TAB + K_MEGAMALL_MULT]
        if pub[TAB + K_MALL_STACKING] == 1:
            for _ in range(n_mall - 1):
                mult *= pub[TAB + K_MEGAMALL_MULT]
    p1 = (pub[TAB + K_FIRST_BASE] + pub[TAB + K_FIRST_PER_GREEN] * g + pub[TAB + K_FIRST_PER_BB] * b) * mult
    p2 = (pub[TAB + K_SECOND_BASE] + pub[TAB + K_SECOND_PER_GREEN] * g + pub[TAB + K_SECOND_PER_BB] * b) * mult
    return p1, p2


@typed_kernel((PUB, I64, I64, I64, I64), inline=True)
def spaceport_cards_nb(pub, first, second, p, ns):
    """Extra cards seat p draws from ns Spaceports of a block whose places are
    (first, second): per Spaceport (spaceport_stacking "each") or per block."""
    if pub[TAB + K_PORT_STACKING] == 1 and ns > 1:
        ns = 1
    if (first >> p) & 1:
        return pub[TAB + K_SPACEPORT_FIRST] * ns
    if (second >> p) & 1:
        return pub[TAB + K_SPACEPORT_SECOND] * ns
    return 0


@kernel
def scoring_nb(pub):
    """Scoring Phase: score every block; set each seat's Spaceport bonus."""
    P = pub[TAB + K_N_PLAYERS]
    for q in range(P):
        pub[PLAYERS + q * N_PROW + P_BONUS] = 0
    for k in range(pub[TAB + K_N_BLOCKS]):
        first, second = block_places_hyp_nb(pub, k, -1, 0, 0)
        if first == 0:
            continue
        p1, p2 = block_points_hyp_nb(pub, k, 0, 0, 0)
        ns = pub[BOARD + k * N_BOARD + B_NSPACE]
        for q in range(P):
            o = PLAYERS + q * N_PROW
            if (first >> q) & 1:
                pub[o + P_SCORE] += p1
                pub[o + P_EV_FIRST] += p1
            elif (second >> q) & 1:
                pub[o + P_SCORE] += p2
                pub[o + P_EV_SECOND] += p2
            pub[o + P_BONUS] += spaceport_cards_nb(pub, first, second, q, ns)
    for q in range(P):  # the running score, for the rounds table (game-quality metrics)
        o = PLAYERS + q * N_PROW
        pub[o + P_ROUND_SCORE + pub[C_ROUND]] = pub[o + P_SCORE]


@typed_kernel((PUB, I64, I64), inline=True)
def place_ok_nb(pub, k, item):
    """May an auctioned item go into block k? Greenspace: a vacant small
    platform; Spaceport / Megamall: a vacant large one."""
    return pub[BOARD + k * N_BOARD + (B_VAC if item == GREENSPACE else B_LVAC)] > 0


@inline_kernel
def deck_ok_nb(pub, t):
    """May a seat draw from deck t? (cards in the deck or in its discards)"""
    return pub[PILES + t * N_PIROW + PI_DECK] + pub[PILES + t * N_PIROW + PI_DISC] > 0


@typed_kernel((PUB, I64, I64), inline=True)
def billboard_ok_nb(pub, p, k):
    """May seat p put a billboard in block k? (one left, a vacant small platform; the card it
    may cost is billboard_choices_nb's)"""
    return pub[PLAYERS + p * N_PROW + P_BILLBOARDS] > 0 and pub[BOARD + k * N_BOARD + B_VAC] > 0


@inline_kernel
def billboard_choices_nb(pub, p):
    """Billboard actions of seat p per block that takes one: 1 (no card), or with
    construction.billboard_costs_card one per hand card (0 with an empty hand: no billboard)."""
    if pub[TAB + K_BB_CARD] == 0:
        return 1
    return pub[PLAYERS + p * N_PROW + P_NHAND]


@inline_kernel
def billboard_action_nb(k, c):
    """The billboard action in block k costing card c (-1: no card)."""
    return np.int64((ACT_BILLBOARD << A_SHIFT) | k | ((c + 1) << BB_CARD_SHIFT))


@inline_kernel
def billboard_card_nb(a):
    """The card a billboard action costs, -1 for none."""
    return ((a & DETAIL_MASK) >> BB_CARD_SHIFT) - 1


@inline_kernel
def floor_target_ok_nb(pub, p, i, nb):
    """May seat p, with nb buildings in its Plant, put a floor on building i?
    (an incomplete one, or i = nb: a new building)"""
    return i == nb or (i < nb and pub[PLR + p * N_PLROW + i] == 0)


@typed_kernel((PUB, I64, I64, I64, I64), inline=True)
def roof_target_ok_nb(pub, p, i, r, nb):
    """May seat p, with nb buildings in its Plant, put roof type r on building
    i? (incomplete, a roof r left)"""
    return i < nb and pub[PLR + p * N_PLROW + i] == 0 \
        and pub[PLAYERS + p * N_PROW + P_ROOFS + r] > 0


# ====================================================================== flow
# Automatic steps between decisions, in one loop (_advance) so the kernels
# never recurse.
STEP_NONE, STEP_NEXT_AUCTION, STEP_NEXT_BIDDER, STEP_RESOLVE, STEP_SCORING, STEP_NEXT_DRAWER = range(6)


@inline_kernel
def _begin_construction(pub, P):
    pub[C_PHASE] = PH_MAIN
    pub[C_PASSED] = 0
    pub[C_TURN] = 0
    pub[C_CUR] = pub[C_KEY]
    for q in range(P):
        pub[PLAYERS + q * N_PROW + P_TURNS_ROUND] = 0


@inline_kernel
def _end_turn(pub):
    """Construction: the next seat that has not passed, or on to the auctions."""
    p = pub[C_CUR]
    pub[C_TURN] += 1
    pub[C_TURNS_TOTAL] += 1
    pub[PLAYERS + p * N_PROW + P_TURNS_ROUND] += 1
    if pub[C_TURN] >= pub[TAB + K_TURN_CAP]:  # the turn cap: a stalled game
        pub[C_STALLED] = 1
        pub[C_PHASE] = PH_OVER
        pub[C_CUR] = -1
        return STEP_NONE
    P = pub[TAB + K_N_PLAYERS]
    pub[C_PHASE] = PH_MAIN
    passed = pub[C_PASSED]
    for j in range(1, P + 1):  # clockwise, skipping seats that passed
        q = p + j
        if q >= P:
            q -= P
        if not (passed >> q) & 1:
            pub[C_CUR] = q
            return STEP_NONE
    pub[C_STACK] = -1
    return STEP_NEXT_AUCTION


@inline_kernel
def _any_cards(pub):
    for t in range(N_TYPES):
        if deck_ok_nb(pub, t):
            return True
    return False


@inline_kernel
def _advance(pub, hands, sec, step):
    """Run the automatic steps (auction set-up and resolution, scoring, the
    Draw Phase hand-over) until the next decision. Inline on purpose: as a
    called kernel it cut about 5 s from a cold compile but cost the search
    about 2% per simulated decision (measured paired, three runs each)."""
    P = pub[TAB + K_N_PLAYERS]
    while step != STEP_NONE:
        if step == STEP_NEXT_AUCTION:
            # Improvement Phase: the next stack with an item, or on to Scoring
            s = pub[C_STACK] + 1
            ns = pub[TAB + K_N_STACKS]
            while s < ns and pub[C_STACK_POS + s] >= pub[TAB + K_STACK_LEN + s]:
                s += 1
            if s >= ns:
                step = STEP_SCORING
                continue
            pub[C_STACK] = s
            pub[C_ITEM] = pub[TAB + K_STACK_ITEMS + s * MAX_STACK_ITEMS + pub[C_STACK_POS + s]]
            pub[C_STACK_POS + s] += 1
            for q in range(P):
                sec[S_BIDS + q] = 0
            pub[C_BIDDER] = 0
            step = STEP_NEXT_BIDDER
        elif step == STEP_NEXT_BIDDER:
            # Seats bid in turn from the Key Player (sealed: nobody sees earlier
            # bids); a seat with an empty hand bids zero without a decision.
            step = STEP_RESOLVE
            for j in range(pub[C_BIDDER], P):
                q = (pub[C_KEY] + j) % P
                if pub[PLAYERS + q * N_PROW + P_NHAND] > 0:
                    pub[C_BIDDER] = j
                    pub[C_CUR] = q
                    pub[C_PHASE] = PH_BID
                    return
        elif step == STEP_RESOLVE:
            step = _resolve_auction(pub, hands, sec)
        elif step == STEP_SCORING:
            scoring_nb(pub)
            if pub[C_ROUND] >= pub[TAB + K_ROUNDS] - 1:  # no Draw Phase after the final round
                pub[C_PHASE] = PH_OVER
                pub[C_CUR] = -1
                return
            pub[C_DRAWER] = 0
            step = STEP_NEXT_DRAWER
        else:
            # Draw Phase: from the Key Player clockwise, each seat draws its cards
            # one at a time; when every deck and discard pile is empty, drawing stops.
            if _any_cards(pub):
                for j in range(pub[C_DRAWER], P):
                    q = (pub[C_KEY] + j) % P
                    left = pub[TAB + K_DRAW_PER_ROUND] + pub[PLAYERS + q * N_PROW + P_BONUS]
                    limit = pub[TAB + K_HAND_LIMIT]
                    if limit > 0 and left > limit - pub[PLAYERS + q * N_PROW + P_NHAND]:
                        left = limit - pub[PLAYERS + q * N_PROW + P_NHAND]  # a full hand draws no more
                    if left > 0:
                        pub[C_DRAWER] = j
                        pub[C_DRAW_LEFT] = left
                        pub[C_DRAWN] = 0
                        pub[C_CUR] = q
                        pub[C_PHASE] = PH_DRAW
                        return
            # the Key passes clockwise; next round
            pub[C_KEY] = (pub[C_KEY] + 1) % P
            pub[C_ROUND] += 1
            _begin_construction(pub, P)
            return


@inline_kernel
def sealed_bid_nb(pub, hands, q, m):
    """(sum of values, highest value) of seat q's sealed bid m (a mask of card ids) over its hand."""
    tot = 0
    hi = 0
    for i in range(pub[PLAYERS + q * N_PROW + P_NHAND]):
        c = hands[q, i]
        if (m >> c) & 1:
            v = pub[TAB + K_VALUE + c]
            tot += v
            if v > hi:
                hi = v
    return tot, hi


@inline_kernel
def auction_winner_nb(pub, hands, sec, me, m_me):
    """The seat that wins the auction under way with the sealed bids in sec, seat me's read as
    the mask m_me instead (me = -1: none), or -1 when every bid is empty: the highest sum; ties,
    under auction.tie "highest_card_then_key", to the higher single card; then to the first in the
    Key order. (sealed_bid_nb reads only the bits of the hand's card ids: the search's marks on a
    sealed bid, past them, are left alone.)"""
    P = pub[TAB + K_N_PLAYERS]
    key = pub[C_KEY]
    highest_card = pub[TAB + K_AUCTION_TIE] == 0
    w = -1
    bw = 0
    hw = 0
    for j in range(P):
        q = (key + j) % P
        b, h = sealed_bid_nb(pub, hands, q, m_me if q == me else np.int64(sec[S_BIDS + q]))
        if b == 0:
            continue
        if w < 0 or b > bw or (highest_card and b == bw and h > hw):
            w = q
            bw = b
            hw = h
    return w


@kernel
def _resolve_auction(pub, hands, sec):
    """Reveal bids; highest sum wins; ties: highest single card, then the Key
    Player / clockwise from him (Improvement Phase); all zero: item removed."""
    P = pub[TAB + K_N_PLAYERS]
    row = pub[C_N_AUC]
    pub[C_N_AUC] += 1
    a = ALOG + row * N_ALOG
    pub[a + A_ROUND] = pub[C_ROUND] + 1
    pub[a + A_STACK] = pub[C_STACK] + 1
    pub[a + A_ITEM] = pub[C_ITEM]
    for q in range(MAX_P):
        pub[a + A_BID + q] = -1
        pub[a + A_HIGH + q] = -1
    for q in range(P):      # q an int64, as auction_winner_nb's (one compiled sealed_bid_nb)
        tot, hi = sealed_bid_nb(pub, hands, np.int64(q), np.int64(sec[S_BIDS + q]))
        pub[a + A_BID + q] = tot
        pub[a + A_HIGH + q] = hi
    tie_rule = pub[TAB + K_AUCTION_TIE]
    w = auction_winner_nb(pub, hands, sec, -1, np.int64(0))
    pub[a + A_WINNER] = w
    pub[a + A_BLOCK] = -1
    if w < 0:
        pub[a + A_PRICE] = 0
        pub[a + A_TIE] = 0
        return STEP_NEXT_AUCTION
    price = pub[a + A_BID + w]
    n_sum = 0
    n_hi = 0
    for q in range(P):
        if pub[a + A_BID + q] == price:
            n_sum += 1
            if pub[a + A_HIGH + q] == pub[a + A_HIGH + w]:
                n_hi += 1
    if n_sum == 1:
        pub[a + A_TIE] = 0
    elif tie_rule == 0 and n_hi == 1:
        pub[a + A_TIE] = 1
    else:
        pub[a + A_TIE] = 2
    item = pub[C_ITEM]
    placeable = False
    for k in range(pub[TAB + K_N_BLOCKS]):
        if place_ok_nb(pub, k, item):
            placeable = True
            break
    if not placeable and pub[TAB + K_UNPLACEABLE] == 1:
        # auction.unplaceable_item "lost_refunded": no place for the item, so it is lost and
        # the winner takes his bid back like everyone else
        pub[a + A_PRICE] = 0
        for q in range(P):
            sec[S_BIDS + q] = 0
        pub[PLAYERS + w * N_PROW + P_ST_WON] += 1
        return STEP_NEXT_AUCTION
    pub[a + A_PRICE] = price
    # the winner discards the cards he bid; the others take theirs back
    m = np.int64(sec[S_BIDS + w])
    ow = PLAYERS + w * N_PROW
    for i in range(pub[ow + P_NHAND] - 1, -1, -1):
        c = hands[w, i]
        if (m >> c) & 1:
            n = pub[ow + P_NHAND] - 1
            hands[w, i] = hands[w, n]
            hands[w, n] = 0
            pub[ow + P_NHAND] = n
            _discard(pub, pub[TAB + K_TYPE + c], c)
            pub[ow + P_PAID + c] += 1
    for q in range(P):
        sec[S_BIDS + q] = 0
    pub[ow + P_ST_WON] += 1
    pub[ow + P_ST_SPENT] += price
    # placement: Greenspace on a vacant small platform, others on a large one
    if placeable:
        pub[C_WINNER] = w
        pub[C_CUR] = w
        pub[C_PHASE] = PH_PLACE
        return STEP_NONE
    return STEP_NEXT_AUCTION  # no legal place: the item is lost (auction.unplaceable_item "lost_paid": paid for)


# ---------------------------------------------------------------- construction options
# legal_actions_nb lists the construction actions with these helpers; a
# policy that picks the kind first (the random player) counts and picks with
# them too, without listing every action.


@inline_kernel
def floor_card_ok_nb(pub):
    """May a Floor card be played to act? (floors left in the shared stock; with
    short_floor_stock "needs_full_card", as many as a card places)"""
    if pub[TAB + K_SHORT_STOCK] == 1:
        return pub[C_STOCK] >= pub[TAB + K_FLOORS_PER_CARD]
    return pub[C_STOCK] > 0


@inline_kernel
def main_flags_nb(pub, p):
    """Construction, seat p: bit ACT_FLOOR if Floor cards are playable (stock
    left), ACT_ROOF if Roof cards are (an incomplete building and a roof left),
    ACT_CONTRACT if it has a complete building (the Contract card's district
    must offer an install too), ACT_BILLBOARD if it has billboards left (and a
    card to pay with, when a billboard costs one)."""
    op = PLAYERS + p * N_PROW
    incomplete = False
    complete = False
    pr = PLR + p * N_PLROW
    for i in range(pub[op + P_NBUILD]):
        if pub[pr + i] == 0:
            incomplete = True
        else:
            complete = True
    f = 0
    if floor_card_ok_nb(pub):
        f |= 1 << ACT_FLOOR
    if incomplete and pub[op + P_ROOFS + 1] + pub[op + P_ROOFS + 2] > 0:
        f |= 1 << ACT_ROOF
    if complete:
        f |= 1 << ACT_CONTRACT
    if pub[op + P_BILLBOARDS] > 0 and billboard_choices_nb(pub, p) > 0:
        f |= 1 << ACT_BILLBOARD
    return f


@typed_kernel((PUB, I64, I64, I64, I64, I64, I64_ARR), inline=True)
def card_ok_nb(pub, p, c, flags, known, okd, scratch):
    """May seat p play card c to act (Floor, Roof or Contract: action kind
    ACT_FLOOR + its type)? flags = main_flags_nb(pub, p); a Contract also needs
    an install in its district (installs_nb; districts already checked are in
    `known`, those with an install in `okd`; scratch: an int64 buffer installs_nb
    may use). Returns (ok, known, okd)."""
    t = pub[TAB + K_TYPE + c]
    if not (flags >> (ACT_FLOOR + t)) & 1:
        return False, known, okd
    if t != CONTRACT:
        return True, known, okd
    d = pub[TAB + K_DIST + c]
    if not (known >> d) & 1:
        known |= 1 << d
        if installs_nb(pub, p, d, scratch, np.bool_(True)) > 0:
            okd |= 1 << d
    return (okd >> d) & 1 != 0, known, okd


@inline_kernel
def main_kind_counts_nb(pub, hand, p, scratch):
    """How many construction actions of each kind legal_actions_nb lists for
    seat p (hand = its hand row): returns (counts, okd), the count of kind K at
    bits 8*K of counts (ACT_PASS..ACT_NOACT) and okd the districts whose Contract
    cards in hand are playable (card_ok_nb's, for main_kind_action_nb). For
    ACT_BILLBOARD it counts blocks: the actions are that x billboard_choices_nb
    (blocks x hand cards would not fit 8 bits)."""
    flags = main_flags_nb(pub, p)
    nf = 0
    nr = 0
    nc = 0
    known = 0
    okd = 0
    nh = pub[PLAYERS + p * N_PROW + P_NHAND]
    for i in range(nh):
        c = hand[i]
        ok, known, okd = card_ok_nb(pub, p, c, flags, known, okd, scratch)
        if ok:
            t = pub[TAB + K_TYPE + c]
            if t == FLOOR:
                nf += 1
            elif t == ROOF:
                nr += 1
            else:
                nc += 1
    nbb = 0
    if flags & (1 << ACT_BILLBOARD):
        for k in range(pub[TAB + K_N_BLOCKS]):
            if billboard_ok_nb(pub, p, k):
                nbb += 1
    counts = (np.int64(1) << (8 * ACT_PASS)) | (np.int64(nf) << (8 * ACT_FLOOR)) | (np.int64(nr) << (8 * ACT_ROOF)) \
        | (np.int64(nc) << (8 * ACT_CONTRACT)) | (np.int64(nbb) << (8 * ACT_BILLBOARD)) \
        | (np.int64(nh) << (8 * ACT_NOACT))
    return counts, okd


@inline_kernel
def main_kind_action_nb(pub, hand, p, kind, j, okd):
    """The j-th construction action of `kind` in legal_actions_nb's order
    (j < its count from main_kind_counts_nb, which also gave okd). A kind with
    a count > 0 is playable, so every card of its type is, except Contracts
    of districts outside okd."""
    if kind == ACT_PASS:
        return np.int64(ACT_PASS << A_SHIFT)
    if kind == ACT_BILLBOARD:
        per = billboard_choices_nb(pub, p)
        c = hand[j % per] if pub[TAB + K_BB_CARD] != 0 else -1
        j //= per
        for k in range(pub[TAB + K_N_BLOCKS]):
            if billboard_ok_nb(pub, p, k):
                if j == 0:
                    return billboard_action_nb(np.int64(k), np.int64(c))
                j -= 1
        return np.int64(-1)
    if kind == ACT_NOACT:
        return np.int64((ACT_NOACT << A_SHIFT) | hand[j])
    t = kind - ACT_FLOOR
    for i in range(pub[PLAYERS + p * N_PROW + P_NHAND]):
        c = hand[i]
        if pub[TAB + K_TYPE + c] != t or (t == CONTRACT and not (okd >> pub[TAB + K_DIST + c]) & 1):
            continue
        if j == 0:
            return np.int64((kind << A_SHIFT) | c)
        j -= 1
    return np.int64(-1)


# ====================================================================== API kernels
# One lister per decision kind (legality) and one do_* kernel per decision
# kind (effect). A do_* kernel returns the automatic step to run next
# (STEP_*), or STEP_ILLEGAL with the state untouched.
STEP_ILLEGAL = -1


@inline_kernel
def action_kind_nb(a):
    if a & BID_FLAG:
        return ACT_BID
    return a >> A_SHIFT


@inline_kernel
def list_main_nb(pub, hand, p, out):
    """PH_MAIN: pass, then per hand card (play to act if card_ok_nb, play
    without acting), then billboards by block (each with every hand card in hand
    order, when a billboard costs one)."""
    flags = main_flags_nb(pub, p)
    known = 0  # districts checked for an install option
    okd = 0    # districts with one
    n = 0
    out[n] = ACT_PASS << A_SHIFT
    n += 1
    for i in range(pub[PLAYERS + p * N_PROW + P_NHAND]):
        c = hand[i]
        ok, known, okd = card_ok_nb(pub, p, c, flags, known, okd, out)
        if ok:
            out[n] = ((ACT_FLOOR + pub[TAB + K_TYPE + c]) << A_SHIFT) | c
            n += 1
        out[n] = (ACT_NOACT << A_SHIFT) | c
        n += 1
    if not (flags >> ACT_BILLBOARD) & 1:
        return n
    costs = pub[TAB + K_BB_CARD] != 0
    for k in range(pub[TAB + K_N_BLOCKS]):
        if billboard_ok_nb(pub, p, k):
            if costs:
                for i in range(pub[PLAYERS + p * N_PROW + P_NHAND]):
                    out[n] = billboard_action_nb(np.int64(k), np.int64(hand[i]))
                    n += 1
            else:
                out[n] = billboard_action_nb(np.int64(k), np.int64(-1))
                n += 1
    return n


@inline_kernel
def list_floor_targets_nb(pub, p, out):
    n = 0
    nb = pub[PLAYERS + p * N_PROW + P_NBUILD]
    for i in range(nb + 1):
        if floor_target_ok_nb(pub, p, i, nb):
            out[n] = (ACT_FLOOR_TARGET << A_SHIFT) | i
            n += 1
    return n


@inline_kernel
def list_roof_targets_nb(pub, p, out):
    n = 0
    nb = pub[PLAYERS + p * N_PROW + P_NBUILD]
    for i in range(nb):
        if pub[PLR + p * N_PLROW + i] != 0:
            continue  # complete (roof_target_ok_nb's first test, skipped early)
        for r in range(1, 3):
            if roof_target_ok_nb(pub, p, i, r, nb):
                out[n] = (ACT_ROOF_TARGET << A_SHIFT) | (i * 2 + r - 1)
                n += 1
    return n


@inline_kernel
def list_places_nb(pub, item, out):
    n = 0
    for k in range(pub[TAB + K_N_BLOCKS]):
        if place_ok_nb(pub, k, item):
            out[n] = (ACT_PLACE << A_SHIFT) | k
            n += 1
    return n


@inline_kernel
def list_draws_nb(pub, out):
    n = 0
    for t in range(N_TYPES):
        if deck_ok_nb(pub, t):
            out[n] = (ACT_DRAW << A_SHIFT) | t
            n += 1
    return n


@inline_kernel
def legal_actions_nb(pub, hands, out):
    """Write the legal action ids into out (int64[kp.max_actions]); return how
    many. In PH_BID it returns 0: a bid is any subset of the hand."""
    phase = pub[C_PHASE]
    p = pub[C_CUR]
    if phase == PH_MAIN:
        return list_main_nb(pub, hands[p], p, out)
    if phase == PH_FLOOR:
        return list_floor_targets_nb(pub, p, out)
    if phase == PH_ROOF:
        return list_roof_targets_nb(pub, p, out)
    if phase == PH_INSTALL:
        return installs_nb(pub, p, pub[TAB + K_DIST + pub[C_PCARD]], out, np.bool_(False))
    if phase == PH_PLACE:
        return list_places_nb(pub, pub[C_ITEM], out)
    if phase == PH_DRAW:
        return list_draws_nb(pub, out)
    return 0


@inline_kernel
def n_legal_nb(pub, hands, out):
    """How many legal actions the seat to move has: the step API's len(legal_actions()). A bid is
    any subset of the hand (2^cards; legal_actions_nb lists none); otherwise legal_actions_nb's
    count (it lists into `out`)."""
    if pub[C_PHASE] == PH_BID:
        return np.int64(1) << pub[PLAYERS + pub[C_CUR] * N_PROW + P_NHAND]
    return legal_actions_nb(pub, hands, out)


@inline_kernel
def do_pass_nb(pub, p):
    """Pass: final for this construction phase."""
    pub[C_PASSED] |= 1 << p
    if pub[C_ROUND] == 0:
        op = PLAYERS + p * N_PROW
        pub[op + P_ST_PASS_R1] = pub[op + P_TURNS_ROUND]
    return _end_turn(pub)


@inline_kernel
def do_billboard_nb(pub, hands, p, d):
    """Put a billboard on a vacant small platform of block d & BB_BLOCK_MASK (it costs
    points; with construction.billboard_costs_card also the card in d's card field, discarded)."""
    k = d & BB_BLOCK_MASK
    c = ((d & DETAIL_MASK) >> BB_CARD_SHIFT) - 1
    if k >= pub[TAB + K_N_BLOCKS] or not billboard_ok_nb(pub, p, k):
        return STEP_ILLEGAL
    if pub[TAB + K_BB_CARD] == 0:
        if c >= 0:
            return STEP_ILLEGAL
    elif c < 0 or c >= pub[TAB + K_N_CARDS] or not spend_card_nb(pub, hands, p, c):
        return STEP_ILLEGAL
    op = PLAYERS + p * N_PROW
    ob = BOARD + k * N_BOARD
    pub[ob + B_VAC] -= 1
    pub[ob + B_BB + p] += 1
    pub[ob + B_BBTOT] += 1
    pub[op + P_BILLBOARDS] -= 1
    cost = pub[TAB + K_BILLBOARD_COST]
    pub[op + P_SCORE] -= cost
    pub[op + P_EV_BILLBOARD] -= cost
    pub[op + P_ST_BB] += 1
    return _end_turn(pub)


@inline_kernel
def spend_card_nb(pub, hands, p, c):
    """Card c leaves seat p's hand for its discard pile, played in construction (to act,
    without acting, or paying for a billboard); False, nothing touched, if p does not hold it."""
    op = PLAYERS + p * N_PROW
    nh = pub[op + P_NHAND]
    i = 0
    while i < nh and hands[p, i] != c:
        i += 1
    if i == nh:
        return False
    hands[p, i] = hands[p, nh - 1]
    hands[p, nh - 1] = 0
    pub[op + P_NHAND] = nh - 1
    _discard(pub, pub[TAB + K_TYPE + c], c)
    pub[op + P_PLAYED + c] += 1
    return True


@inline_kernel
def do_play_card_nb(pub, hands, p, kind, c):
    """Construction: reveal card c from the hand and discard it; ACT_NOACT ends
    the turn, ACT_FLOOR / ACT_ROOF / ACT_CONTRACT open the decision that places it."""
    if c >= pub[TAB + K_N_CARDS]:
        return STEP_ILLEGAL
    t = pub[TAB + K_TYPE + c]
    if kind != ACT_NOACT and t != kind - ACT_FLOOR:
        return STEP_ILLEGAL
    if kind == ACT_FLOOR and not floor_card_ok_nb(pub):
        return STEP_ILLEGAL
    if not spend_card_nb(pub, hands, p, c):
        return STEP_ILLEGAL
    if kind == ACT_NOACT:
        return _end_turn(pub)
    if kind == ACT_FLOOR:
        pub[C_PHASE] = PH_FLOOR
        pub[C_SUB] = min(pub[TAB + K_FLOORS_PER_CARD], pub[C_STOCK])
    elif kind == ACT_ROOF:
        pub[C_PHASE] = PH_ROOF
    else:
        pub[C_PCARD] = c
        pub[C_PHASE] = PH_INSTALL
    return STEP_NONE


@inline_kernel
def do_floor_nb(pub, p, i):
    """One floor from the stock onto building i (i = n_build: a new building)."""
    op = PLAYERS + p * N_PROW
    nb = pub[op + P_NBUILD]
    if not floor_target_ok_nb(pub, p, i, nb):
        return STEP_ILLEGAL
    ph = PLH + p * N_PLROW
    if i == nb:
        pub[ph + nb] = 1
        pub[PLR + p * N_PLROW + nb] = 0
        pub[op + P_NBUILD] = nb + 1
    else:
        pub[ph + i] += 1
    pub[C_STOCK] -= 1
    pub[C_SUB] -= 1
    if pub[C_SUB] <= 0 or pub[C_STOCK] <= 0:
        return _end_turn(pub)
    return STEP_NONE


@inline_kernel
def do_roof_nb(pub, p, i, r):
    """Roof type r onto incomplete building i: it is complete."""
    if not roof_target_ok_nb(pub, p, i, r, pub[PLAYERS + p * N_PROW + P_NBUILD]):
        return STEP_ILLEGAL
    op = PLAYERS + p * N_PROW
    pub[PLR + p * N_PLROW + i] = r
    pub[op + P_ROOFS + r] -= 1
    pub[op + P_ST_BUILT] += 1
    return _end_turn(pub)


@inline_kernel
def do_install_nb(pub, p, i, k, onbb):
    """Install complete building i into block k of the played Contract's
    district, on a vacant small platform or (onbb) on own billboard."""
    op = PLAYERS + p * N_PROW
    nb = pub[op + P_NBUILD]
    ph = PLH + p * N_PLROW
    pr = PLR + p * N_PLROW
    if i >= nb or pub[pr + i] == 0 or k // pub[TAB + K_BPD] != pub[TAB + K_DIST + pub[C_PCARD]]:
        return STEP_ILLEGAL
    h = pub[ph + i]
    r = pub[pr + i]
    vac, own = install_spot_nb(pub, k, p)
    if not (own if onbb else vac) or not block_ok_nb(pub, k, h, r):
        return STEP_ILLEGAL
    ob = BOARD + k * N_BOARD
    if onbb:
        pub[ob + B_BB + p] -= 1  # the billboard leaves the game
        pub[ob + B_BBTOT] -= 1
        cost = pub[TAB + K_BUILDOVER_COST]
        pub[op + P_SCORE] -= cost
        pub[op + P_EV_BUILDOVER] -= cost
        pub[op + P_ST_BB_OVER] += 1
    else:
        pub[ob + B_VAC] -= 1
    pub[ph + i] = pub[ph + nb - 1]
    pub[pr + i] = pub[pr + nb - 1]
    pub[ph + nb - 1] = 0
    pub[pr + nb - 1] = 0
    pub[op + P_NBUILD] = nb - 1
    j = pub[ob + B_NBLD]
    pub[ob + B_BLDH + j] = h
    pub[ob + B_BLDO + j] = p
    pub[ob + B_NBLD] = j + 1
    pub[ob + B_FLOORS + p] += h
    if h > pub[ob + B_TALL + p]:
        pub[ob + B_TALL + p] = h
    if h > pub[ob + B_TOP]:
        pub[ob + B_TOP] = h
    pub[ob + B_ROOF] = r
    pub[op + P_ST_PLACED] += 1
    pub[op + P_ST_FLOORS] += h
    return _end_turn(pub)


@inline_kernel
def do_bid_nb(pub, hands, sec, p, m):
    """Seal bid m (a mask of card ids; a subset of the hand)."""
    hm = np.int64(0)
    for i in range(pub[PLAYERS + p * N_PROW + P_NHAND]):
        hm |= np.int64(1) << np.int64(hands[p, i])
    if m & ~hm:
        return STEP_ILLEGAL  # not a subset of the hand
    sec[S_BIDS + p] = np.uint64(m)
    pub[C_BIDDER] += 1
    return STEP_NEXT_BIDDER


@inline_kernel
def do_place_nb(pub, k):
    """The auction winner places the item in block k."""
    if k >= pub[TAB + K_N_BLOCKS]:
        return STEP_ILLEGAL
    item = pub[C_ITEM]
    if not place_ok_nb(pub, k, item):
        return STEP_ILLEGAL
    ob = BOARD + k * N_BOARD
    if item == GREENSPACE:
        pub[ob + B_VAC] -= 1
        pub[ob + B_GREEN] += 1
    else:
        pub[ob + B_LVAC] -= 1
        if item == SPACEPORT:
            pub[ob + B_NSPACE] += 1
        else:
            pub[ob + B_NMALL] += 1
    pub[ALOG + (pub[C_N_AUC] - 1) * N_ALOG + A_BLOCK] = k
    return STEP_NEXT_AUCTION


@inline_kernel
def do_draw_nb(pub, hands, sec, p, t):
    """Draw one card from deck t (Draw Phase)."""
    if t >= N_TYPES or not deck_ok_nb(pub, t):
        return STEP_ILLEGAL
    c = draw_card_nb(pub, sec, t)
    op = PLAYERS + p * N_PROW
    hands[p, pub[op + P_NHAND]] = c
    pub[op + P_NHAND] += 1
    pub[C_DRAWN] += 1
    if pub[C_DRAWN] > pub[TAB + K_DRAW_PER_ROUND]:
        pub[op + P_ST_EXTRA] += 1
    pub[C_DRAW_LEFT] -= 1
    if pub[C_DRAW_LEFT] <= 0:
        pub[C_DRAWER] += 1
        return STEP_NEXT_DRAWER
    if not _any_cards(pub):
        pub[C_DRAWER] = pub[TAB + K_N_PLAYERS]
        return STEP_NEXT_DRAWER
    return STEP_NONE


@inline_kernel
def apply_action_nb(pub, hands, sec, action):
    """Apply one decision of the current player (the do_* kernel of its kind)
    and run the game on to the next decision. Returns False (state untouched)
    for an action of the wrong kind for the phase, a bid that is not a subset
    of the hand, a card not in hand, or a target the do_* kernel's rule test
    refuses; the full legality is legal_actions_nb's."""
    # int64 as compiled code sees it: in plain Python (NUMBA_DISABLE_JIT) an
    # int32 action (kind << 16 | card from an int32 hand) would overflow on `& BID_FLAG`
    action = np.int64(action)
    phase = pub[C_PHASE]
    p = pub[C_CUR]
    kind = action_kind_nb(action)
    d = action & DETAIL_MASK
    step = STEP_ILLEGAL
    if phase == PH_MAIN:
        if kind == ACT_PASS:
            step = do_pass_nb(pub, p)
        elif kind == ACT_BILLBOARD:
            step = do_billboard_nb(pub, hands, p, d)
        elif kind == ACT_FLOOR or kind == ACT_ROOF or kind == ACT_CONTRACT or kind == ACT_NOACT:
            step = do_play_card_nb(pub, hands, p, kind, d)
    elif phase == PH_FLOOR:
        if kind == ACT_FLOOR_TARGET:
            step = do_floor_nb(pub, p, d)
    elif phase == PH_ROOF:
        if kind == ACT_ROOF_TARGET:
            step = do_roof_nb(pub, p, d >> 1, (d & 1) + 1)
    elif phase == PH_INSTALL:
        if kind == ACT_INSTALL:
            NB = pub[TAB + K_N_BLOCKS]
            step = do_install_nb(pub, p, (d >> 1) // NB, (d >> 1) % NB, d & 1)
    elif phase == PH_BID:
        if kind == ACT_BID:
            step = do_bid_nb(pub, hands, sec, p, action ^ BID_FLAG)
    elif phase == PH_PLACE:
        if kind == ACT_PLACE:
            step = do_place_nb(pub, d)
    elif phase == PH_DRAW:
        if kind == ACT_DRAW:
            step = do_draw_nb(pub, hands, sec, p, d)
    if step == STEP_ILLEGAL:
        return False
    pub[C_DECISIONS] += 1
    if step != STEP_NONE:
        _advance(pub, hands, sec, step)
    return True


# ====================================================================== results


@kernel
def final_result_nb(pub, hands, score, rank, hand_value):
    """End of the Game: score[p], hand_value[p] and rank[p] (1 = best; the
    harness's rank_nb); returns (n_winners, n_top, winner, margin,
    tie_break_decided). Ties on points go to the most card value left in hand
    (final_tie 0), then the win is shared; n_top > 1: the top score was tied
    on points; winner: the last seat ranked 1; margin: its lead over the best
    other seat when it wins alone."""
    P = pub[TAB + K_N_PLAYERS]
    for q in range(P):
        score[q] = pub[PLAYERS + q * N_PROW + P_SCORE]
        hand_value[q] = hand_value_nb(hands, q, pub[PLAYERS + q * N_PROW + P_NHAND], pub)
    n_win, n_top, winner, margin = rank_nb(score, hand_value, pub[TAB + K_FINAL_TIE] == 0, rank)
    return n_win, n_top, winner, margin, n_top > 1 and n_win == 1


@kernel
def block_check_nb(pub):
    """Re-check a board against the building rules (for tests): returns the
    first block that breaks roof uniformity / the district rule / the height
    sequence / the platform count, or -1. Roof uniformity holds by layout
    (one roof per block), so the district rule checks that no district has
    all its blocks with the same roof."""
    bpd = pub[TAB + K_BPD]
    for k in range(pub[TAB + K_N_BLOCKS]):
        o = BOARD + k * N_BOARD
        n = pub[o + B_NBLD]
        top = 0
        for j in range(n):
            h = pub[o + B_BLDH + j]
            if j == 0:
                if h != pub[TAB + K_FIRST_FLOORS]:
                    return k
            elif h != top and h != top + 1:
                return k
            if h > top:
                top = h
        if n > 0 and top != pub[o + B_TOP]:
            return k
        small = pub[TAB + K_SMALL_PLATFORMS]
        if pub[TAB + K_GREEN_PLATFORM] == 0:  # "extra": each pre-placed Greenspace brought its own platform
            for g in range(pub[TAB + K_N_GREEN]):
                if pub[TAB + K_GREEN + g] == k:
                    small += 1
        if n + pub[o + B_VAC] + pub[o + B_GREEN] + pub[o + B_BBTOT] != small:
            return k
    for d in range(pub[TAB + K_N_DISTRICTS]):
        r0 = pub[BOARD + d * bpd * N_BOARD + B_ROOF]
        if r0 == 0:
            continue
        all_same = True
        for k in range(d * bpd, d * bpd + bpd):
            if pub[BOARD + k * N_BOARD + B_ROOF] != r0:
                all_same = False
        if all_same:
            return d * bpd
    return -1
