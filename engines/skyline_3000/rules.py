"""Skyline 3000 rules as pure kernels over `State` (see state.py for layouts).

Rulebook: shared/rules/skyline-3000.txt; defaults for its gaps:
shared/rules/GAPS.md (all of them data in variants/default.toml).

A turn is split into small decision points (the phases in state.py):

    PH_MAIN     pass | play Floor/Roof/Contract card c (to act) | billboard in
                block k | play card c without acting
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
from the chance stream in `secret[0:4]`, so the cards are the same whatever
the policies do, as far as the rules allow.
"""
from __future__ import annotations

import numpy as np

from engines.core.kernel import kernel
from engines.core.rng import CHANCE_STREAM, below, derive_seed, seed_into, shuffle
from engines.skyline_3000.state import (
    A_BID, A_BLOCK, A_HIGH, A_ITEM, A_PRICE, A_ROUND, A_SHIFT, A_STACK, A_TIE, A_WINNER,
    B_BB, B_BBTOT, B_BLDH, B_BLDO, B_FLOORS, B_GREEN, B_LVAC, B_NBLD, B_NMALL, B_NSPACE,
    B_ROOF, B_TALL, B_TOP, B_VAC, BID_FLAG, MAX_STACK_ITEMS, T_DEAL, T_DIST, T_GREEN,
    T_STACK_ITEMS, T_STACK_LEN, T_START_H, T_START_R, T_TYPE, T_VALUE, C_BIDDER, C_CUR, C_DECISIONS, C_DRAW_LEFT,
    C_DRAWER, C_DRAWN, C_FIRST_KEY, C_ITEM, C_KEY, C_N_AUC, C_PASSED, C_PCARD, C_PHASE,
    C_ROUND, C_STACK, C_STACK_POS, C_STALLED, C_STOCK, C_SUB, C_TURN, C_TURNS_TOTAL,
    C_WINNER, CONTRACT, DETAIL_MASK, FLOOR, GREENSPACE, K_BID, K_BILLBOARD, K_CONTRACT,
    K_DRAW, K_FLOOR, K_FLOOR_TARGET, K_INSTALL, K_NOACT, K_PASS, K_PLACE, K_ROOF,
    K_ROOF_TARGET, MAX_P, MEGAMALL, N_ALOG, N_BOARD, N_CTRL, N_PILE, N_PLAYER, N_TYPES,
    P_BILLBOARDS, P_BONUS, P_EV_BILLBOARD, P_EV_BUILDOVER, P_EV_FIRST, P_EV_SECOND,
    P_NBUILD, P_NHAND, P_ROOFS, P_SCORE, P_ST_BB, P_ST_BB_OVER, P_ST_BUILT, P_ST_EXTRA,
    P_ST_FLOORS, P_ST_PASS_R1, P_ST_PLACED, P_ST_SPENT, P_ST_WON, P_TURNS_ROUND,
    PH_BID, PH_DRAW, PH_FLOOR, PH_INSTALL, PH_MAIN, PH_OVER, PH_PLACE, PH_ROOF, PI_DECK,
    PI_DISC, PI_TOP, PL_H, PL_R, ROOF, S_BIDS, SPACEPORT, Obs, State,
)

# ====================================================================== setup


@kernel
def alloc_state_nb(kp):
    """Zeroed arrays sized for `kp` (fill them with reset_state_nb)."""
    P = kp.n_players
    NC = kp.n_cards
    return State(
        np.zeros(N_CTRL, np.int64),
        np.zeros((kp.n_blocks, N_BOARD), np.int32),
        np.zeros((P, 2, kp.max_buildings), np.int32),
        np.zeros((P, N_PLAYER + 2 * NC), np.int32),
        np.zeros((N_TYPES, N_PILE + NC), np.int32),
        np.zeros((kp.n_auctions, N_ALOG), np.int32),
        np.zeros((P, NC), np.int32),
        np.zeros((N_TYPES, NC), np.int32),
        np.zeros(S_BIDS + P, np.uint64),
    )


@kernel
def new_state_nb(kp, run_seed, game_index):
    """A new game (Preparation) for (run seed, game index)."""
    st = alloc_state_nb(kp)
    reset_state_nb(st, kp, run_seed, game_index)
    return st


@kernel
def reset_state_nb(st, kp, run_seed, game_index):
    """Preparation, in place: shuffle, deal, buildings, greenspaces, Key."""
    ctrl, board, plants, players, piles, alog, hands, decks, secret = st
    P = kp.n_players
    ctrl[:] = 0
    board[:] = 0
    plants[:] = 0
    players[:] = 0
    piles[:] = 0
    alog[:] = -1
    hands[:] = 0
    decks[:] = 0
    secret[:] = 0
    seed_into(secret, derive_seed(run_seed, game_index, CHANCE_STREAM))
    # Preparation: shuffle each card type into its own face-up stack
    tab = kp.tab
    for c in range(kp.n_cards):
        t = tab[T_TYPE + c]
        decks[t, piles[t, PI_DECK]] = c
        piles[t, PI_DECK] += 1
    for t in range(N_TYPES):
        shuffle(secret, decks[t], piles[t, PI_DECK])
        _set_top(piles, decks, t)
    # deal 2 Roof, 2 Floor, 4 Contract cards to each player
    for p in range(P):
        for t in (ROOF, FLOOR, CONTRACT):
            for _ in range(tab[T_DEAL + t]):
                c = draw_card_nb(piles, decks, secret, t)
                if c >= 0:
                    hands[p, players[p, P_NHAND]] = c
                    players[p, P_NHAND] += 1
    # supplies and the four starting buildings (from the shared floor stock)
    stock = kp.floor_stock
    for p in range(P):
        players[p, P_SCORE] = kp.start_score
        players[p, P_BILLBOARDS] = kp.billboards
        players[p, P_ROOFS + 1] = kp.curved_roofs
        players[p, P_ROOFS + 2] = kp.pointed_roofs
        players[p, P_ST_PASS_R1] = -1
        for i in range(kp.n_start):
            plants[p, PL_H, i] = tab[T_START_H + i]
            plants[p, PL_R, i] = tab[T_START_R + i]
            players[p, P_ROOFS + tab[T_START_R + i]] -= 1
            stock -= tab[T_START_H + i]
        players[p, P_NBUILD] = kp.n_start
    ctrl[C_STOCK] = stock
    for k in range(kp.n_blocks):
        board[k, B_VAC] = kp.small_platforms
        board[k, B_LVAC] = kp.large_platforms
    for g in range(kp.n_green):  # pre-placed Greenspaces
        k = tab[T_GREEN + g]
        board[k, B_VAC] -= 1
        board[k, B_GREEN] += 1
    key = below(secret, P)  # "Select a player randomly and give him the Key"
    ctrl[C_KEY] = key
    ctrl[C_FIRST_KEY] = key
    _begin_construction(ctrl, players, P)


# ====================================================================== cards


@kernel
def _set_top(piles, decks, t):
    n = piles[t, PI_DECK]
    piles[t, PI_TOP] = decks[t, n - 1] if n > 0 else -1


@kernel
def reshuffle_nb(piles, decks, secret, t):
    """Card Rules: an exhausted stack is rebuilt from its shuffled discards."""
    n = piles[t, PI_DISC]
    for j in range(n):
        decks[t, j] = piles[t, N_PILE + j]
    piles[t, PI_DECK] = n
    piles[t, PI_DISC] = 0
    shuffle(secret, decks[t], n)
    _set_top(piles, decks, t)


@kernel
def draw_card_nb(piles, decks, secret, t):
    """Top card of deck t (reshuffling its discards when empty), -1 if none.

    A deck emptied by the draw is rebuilt at once when discards wait, so its
    next card is visible; discards that arrive later are reshuffled at the
    next draw from the empty deck."""
    if piles[t, PI_DECK] == 0:
        if piles[t, PI_DISC] == 0:
            return -1
        reshuffle_nb(piles, decks, secret, t)
    n = piles[t, PI_DECK] - 1
    c = decks[t, n]
    piles[t, PI_DECK] = n
    if n == 0 and piles[t, PI_DISC] > 0:
        reshuffle_nb(piles, decks, secret, t)
    else:
        _set_top(piles, decks, t)
    return c


@kernel
def discard_nb(piles, t, c):
    piles[t, N_PILE + piles[t, PI_DISC]] = c
    piles[t, PI_DISC] += 1


@kernel
def hand_index_nb(hands, players, p, c):
    for i in range(players[p, P_NHAND]):
        if hands[p, i] == c:
            return i
    return -1


@kernel
def remove_from_hand_nb(hands, players, p, i):
    n = players[p, P_NHAND] - 1
    c = hands[p, i]
    hands[p, i] = hands[p, n]
    hands[p, n] = 0
    players[p, P_NHAND] = n
    return c


@kernel
def hand_mask_nb(hand, n):
    """Bit mask of the card ids in hand[:n]."""
    m = np.int64(0)
    for i in range(n):
        m |= np.int64(1) << np.int64(hand[i])
    return m


@kernel
def hand_value_nb(hand, n, tab):
    """Total card value of hand[:n] (tab = kp.tab)."""
    v = 0
    for i in range(n):
        v += tab[T_VALUE + hand[i]]
    return v


# ====================================================================== board rules


@kernel
def block_ok_nb(board, k, h, r, first_floors, bpd):
    """May a building of height h and roof r go into block k?

    Construction Phase: one roof type per block; not all blocks of a district
    with the same roof; the first building has exactly 1 floor; later ones are
    as tall as the block's tallest or one floor taller."""
    roof = board[k, B_ROOF]
    if roof == 0:
        if h != first_floors:
            return False
        d0 = (k // bpd) * bpd
        same = 0
        for j in range(d0, d0 + bpd):
            if j != k and board[j, B_ROOF] == r:
                same += 1
        return same < bpd - 1
    top = board[k, B_TOP]
    return r == roof and (h == top or h == top + 1)


@kernel
def installs_nb(board, plants, p, nbuild, d, bpd, n_blocks, first_floors, out, n0, only_any):
    """Install options of seat p in district d written to out[n0:]; returns the
    new count. With only_any, returns n0 + 1 at the first option found."""
    n = n0
    NB = n_blocks
    for i in range(nbuild):
        r = plants[p, PL_R, i]
        if r == 0:
            continue
        h = plants[p, PL_H, i]
        for k in range(d * bpd, d * bpd + bpd):
            if board[k, B_VAC] == 0 and board[k, B_BB + p] == 0:
                continue
            if not block_ok_nb(board, k, h, r, first_floors, bpd):
                continue
            if board[k, B_VAC] > 0:
                if only_any:
                    return n + 1
                out[n] = (K_INSTALL << A_SHIFT) | ((i * NB + k) * 2)
                n += 1
            if board[k, B_BB + p] > 0:
                if only_any:
                    return n + 1
                out[n] = (K_INSTALL << A_SHIFT) | ((i * NB + k) * 2 + 1)
                n += 1
    return n


@kernel
def block_places_nb(board, k, n_players, block_tie):
    """Scoring Phase: (first mask, second mask) of seats in block k."""
    return block_places_hyp_nb(board, k, n_players, block_tie, -1, 0, 0)


@kernel
def block_places_hyp_nb(board, k, n_players, block_tie, who, add, tall_who):
    """block_places_nb as if seat `who` had `add` more floors in block k and
    its tallest building there were `tall_who` (who = -1: the board as is).
    Policies use it to value an install without touching the board.

    Resolving Ties + GAPS mixed ties: among the seats tied for most floors,
    those with the tallest building take First (several if level), the rest
    of the tied group Second, and lower seats nothing. With one leader, the
    seats with the second-most floors all take Second. block_tie 1 ("share"):
    everyone tied for most floors takes First."""
    mx = 0
    for q in range(n_players):
        f = board[k, B_FLOORS + q] + (add if q == who else 0)
        if f > mx:
            mx = f
    if mx == 0:
        return 0, 0
    nmx = 0
    for q in range(n_players):
        if board[k, B_FLOORS + q] + (add if q == who else 0) == mx:
            nmx += 1
    first = 0
    second = 0
    if nmx == 1:
        mx2 = 0
        for q in range(n_players):
            f = board[k, B_FLOORS + q] + (add if q == who else 0)
            if f == mx:
                first |= 1 << q
            elif f > mx2:
                mx2 = f
        if mx2 > 0:
            for q in range(n_players):
                if board[k, B_FLOORS + q] + (add if q == who else 0) == mx2:
                    second |= 1 << q
    elif block_tie == 1:
        for q in range(n_players):
            if board[k, B_FLOORS + q] + (add if q == who else 0) == mx:
                first |= 1 << q
    else:
        tall = 0
        for q in range(n_players):
            tq = tall_who if q == who else board[k, B_TALL + q]
            if board[k, B_FLOORS + q] + (add if q == who else 0) == mx and tq > tall:
                tall = tq
        for q in range(n_players):
            if board[k, B_FLOORS + q] + (add if q == who else 0) == mx:
                tq = tall_who if q == who else board[k, B_TALL + q]
                if tq == tall:
                    first |= 1 << q
                else:
                    second |= 1 << q
    return first, second


@kernel
def block_points_nb(board, k, kp):
    """(First Place points, Second Place points) block k pays now."""
    return block_points_hyp_nb(board, k, kp, 0, 0, 0)


@kernel
def block_points_hyp_nb(board, k, kp, d_green, d_bb, d_mall):
    """block_points_nb with d_green more Greenspaces, d_bb more Billboards and
    d_mall more Megamalls in block k (a Megamall multiplies once, however many)."""
    g = board[k, B_GREEN] + d_green
    b = board[k, B_BBTOT] + d_bb
    mult = kp.megamall_mult if board[k, B_NMALL] + d_mall > 0 else 1
    p1 = (kp.first_base + kp.first_per_green * g + kp.first_per_bb * b) * mult
    p2 = (kp.second_base + kp.second_per_green * g + kp.second_per_bb * b) * mult
    return p1, p2


@kernel
def scoring_nb(board, players, kp):
    """Scoring Phase: score every block; set each seat's Spaceport bonus."""
    P = kp.n_players
    for q in range(P):
        players[q, P_BONUS] = 0
    for k in range(kp.n_blocks):
        first, second = block_places_nb(board, k, P, kp.block_tie)
        if first == 0:
            continue
        p1, p2 = block_points_nb(board, k, kp)
        ns = board[k, B_NSPACE]
        for q in range(P):
            if (first >> q) & 1:
                players[q, P_SCORE] += p1
                players[q, P_EV_FIRST] += p1
                players[q, P_BONUS] += kp.spaceport_first * ns
            elif (second >> q) & 1:
                players[q, P_SCORE] += p2
                players[q, P_EV_SECOND] += p2
                players[q, P_BONUS] += kp.spaceport_second * ns


# ====================================================================== flow
# Automatic steps between decisions; each returns the next one (a loop in
# _advance, so the kernels never recurse).
STEP_NONE, STEP_NEXT_AUCTION, STEP_NEXT_BIDDER, STEP_RESOLVE, STEP_SCORING, STEP_NEXT_DRAWER = range(6)


@kernel
def _begin_construction(ctrl, players, P):
    ctrl[C_PHASE] = PH_MAIN
    ctrl[C_PASSED] = 0
    ctrl[C_TURN] = 0
    ctrl[C_CUR] = ctrl[C_KEY]
    for q in range(P):
        players[q, P_TURNS_ROUND] = 0


@kernel
def _game_over(ctrl):
    ctrl[C_PHASE] = PH_OVER
    ctrl[C_CUR] = -1


@kernel
def _end_turn(st, kp):
    ctrl = st.ctrl
    p = ctrl[C_CUR]
    ctrl[C_TURN] += 1
    ctrl[C_TURNS_TOTAL] += 1
    players = st.players
    players[p, P_TURNS_ROUND] += 1
    if ctrl[C_TURN] >= kp.turn_cap:  # GAPS Everywhere: stalled game
        ctrl[C_STALLED] = 1
        _game_over(ctrl)
        return STEP_NONE
    P = kp.n_players
    ctrl[C_PHASE] = PH_MAIN
    for j in range(1, P + 1):  # clockwise, skipping seats that passed
        q = (p + j) % P
        if not (ctrl[C_PASSED] >> q) & 1:
            ctrl[C_CUR] = q
            return STEP_NONE
    ctrl[C_STACK] = -1
    return STEP_NEXT_AUCTION


@kernel
def _next_auction(st, kp):
    """Improvement Phase: the next stack with an item, or on to Scoring."""
    ctrl = st.ctrl
    s = ctrl[C_STACK] + 1
    tab = kp.tab
    while s < kp.n_stacks and ctrl[C_STACK_POS + s] >= tab[T_STACK_LEN + s]:
        s += 1
    if s >= kp.n_stacks:
        return STEP_SCORING
    ctrl[C_STACK] = s
    ctrl[C_ITEM] = tab[T_STACK_ITEMS + s * MAX_STACK_ITEMS + ctrl[C_STACK_POS + s]]
    ctrl[C_STACK_POS + s] += 1
    secret = st.secret
    for q in range(kp.n_players):
        secret[S_BIDS + q] = 0
    ctrl[C_BIDDER] = 0
    return STEP_NEXT_BIDDER


@kernel
def _next_bidder(st, kp):
    """Seats bid in turn from the Key Player (sealed: nobody sees earlier
    bids); a seat with an empty hand bids zero without a decision."""
    ctrl = st.ctrl
    P = kp.n_players
    players = st.players
    for j in range(ctrl[C_BIDDER], P):
        q = (ctrl[C_KEY] + j) % P
        if players[q, P_NHAND] > 0:
            ctrl[C_BIDDER] = j
            ctrl[C_CUR] = q
            ctrl[C_PHASE] = PH_BID
            return STEP_NONE
    return STEP_RESOLVE


@kernel
def _resolve_auction(st, kp):
    """Reveal bids; highest sum wins; ties: highest single card, then the Key
    Player / clockwise from him (Improvement Phase); all zero: item removed."""
    ctrl = st.ctrl
    board = st.board
    players = st.players
    piles = st.piles
    alog = st.alog
    hands = st.hands
    secret = st.secret
    tab = kp.tab
    P = kp.n_players
    row = ctrl[C_N_AUC]
    ctrl[C_N_AUC] += 1
    alog[row, A_ROUND] = ctrl[C_ROUND] + 1
    alog[row, A_STACK] = ctrl[C_STACK] + 1
    alog[row, A_ITEM] = ctrl[C_ITEM]
    for q in range(MAX_P):
        alog[row, A_BID + q] = -1
        alog[row, A_HIGH + q] = -1
    for q in range(P):
        m = np.int64(secret[S_BIDS + q])
        tot = 0
        hi = 0
        for i in range(players[q, P_NHAND]):
            c = hands[q, i]
            if (m >> c) & 1:
                v = tab[T_VALUE + c]
                tot += v
                if v > hi:
                    hi = v
        alog[row, A_BID + q] = tot
        alog[row, A_HIGH + q] = hi
    key = ctrl[C_KEY]
    w = -1
    for j in range(P):
        q = (key + j) % P
        bq = alog[row, A_BID + q]
        if bq == 0:
            continue
        if w < 0:
            w = q
            continue
        bw = alog[row, A_BID + w]
        if bq > bw or (kp.auction_tie == 0 and bq == bw and alog[row, A_HIGH + q] > alog[row, A_HIGH + w]):
            w = q
    alog[row, A_WINNER] = w
    alog[row, A_BLOCK] = -1
    if w < 0:
        alog[row, A_PRICE] = 0
        alog[row, A_TIE] = 0
        return STEP_NEXT_AUCTION
    price = alog[row, A_BID + w]
    n_sum = 0
    n_hi = 0
    for q in range(P):
        if alog[row, A_BID + q] == price:
            n_sum += 1
            if alog[row, A_HIGH + q] == alog[row, A_HIGH + w]:
                n_hi += 1
    if n_sum == 1:
        alog[row, A_TIE] = 0
    elif kp.auction_tie == 0 and n_hi == 1:
        alog[row, A_TIE] = 1
    else:
        alog[row, A_TIE] = 2
    alog[row, A_PRICE] = price
    # the winner discards the cards he bid; the others take theirs back
    m = np.int64(secret[S_BIDS + w])
    NC = kp.n_cards
    for i in range(players[w, P_NHAND] - 1, -1, -1):
        c = hands[w, i]
        if (m >> c) & 1:
            remove_from_hand_nb(hands, players, w, i)
            discard_nb(piles, tab[T_TYPE + c], c)
            players[w, N_PLAYER + NC + c] += 1
    for q in range(P):
        secret[S_BIDS + q] = 0
    players[w, P_ST_WON] += 1
    players[w, P_ST_SPENT] += price
    # placement: Greenspace on a vacant small platform, others on a large one
    item = ctrl[C_ITEM]
    col = B_VAC if item == GREENSPACE else B_LVAC
    for k in range(kp.n_blocks):
        if board[k, col] > 0:
            ctrl[C_WINNER] = w
            ctrl[C_CUR] = w
            ctrl[C_PHASE] = PH_PLACE
            return STEP_NONE
    return STEP_NEXT_AUCTION  # no legal place: the item is lost


@kernel
def _scoring_then_draw(st, kp):
    ctrl = st.ctrl
    scoring_nb(st.board, st.players, kp)
    if ctrl[C_ROUND] >= kp.rounds - 1:  # no Draw Phase after the final round
        _game_over(ctrl)
        return STEP_NONE
    ctrl[C_DRAWER] = 0
    return STEP_NEXT_DRAWER


@kernel
def _any_cards(piles):
    for t in range(N_TYPES):
        if piles[t, PI_DECK] + piles[t, PI_DISC] > 0:
            return True
    return False


@kernel
def _next_drawer(st, kp):
    """Draw Phase: from the Key Player clockwise, each seat draws its cards
    one at a time; when every deck and discard pile is empty, drawing stops."""
    ctrl = st.ctrl
    P = kp.n_players
    players = st.players
    if _any_cards(st.piles):
        for j in range(ctrl[C_DRAWER], P):
            q = (ctrl[C_KEY] + j) % P
            left = kp.draw_per_round + players[q, P_BONUS]
            if left > 0:
                ctrl[C_DRAWER] = j
                ctrl[C_DRAW_LEFT] = left
                ctrl[C_DRAWN] = 0
                ctrl[C_CUR] = q
                ctrl[C_PHASE] = PH_DRAW
                return STEP_NONE
    # the Key passes clockwise; next round
    ctrl[C_KEY] = (ctrl[C_KEY] + 1) % P
    ctrl[C_ROUND] += 1
    _begin_construction(ctrl, players, P)
    return STEP_NONE


@kernel
def _advance(st, kp, step):
    """Run the automatic steps (auction set-up and resolution, scoring, the
    Draw Phase hand-over) until the next decision."""
    while step != STEP_NONE:
        if step == STEP_NEXT_AUCTION:
            step = _next_auction(st, kp)
        elif step == STEP_NEXT_BIDDER:
            step = _next_bidder(st, kp)
        elif step == STEP_RESOLVE:
            step = _resolve_auction(st, kp)
        elif step == STEP_SCORING:
            step = _scoring_then_draw(st, kp)
        else:
            step = _next_drawer(st, kp)


# ====================================================================== API kernels


@kernel
def current_player_nb(st):
    return st.ctrl[C_CUR]


@kernel
def is_terminal_nb(st):
    return st.ctrl[C_PHASE] == PH_OVER


@kernel
def observe_nb(st, p):
    """What seat p may see: public arrays and its own hand (views, no copy)."""
    return Obs(st.ctrl, st.board, st.plants, st.players, st.piles, st.alog, st.hands[p], p)


@kernel
def action_kind_nb(a):
    if a & BID_FLAG:
        return K_BID
    return a >> A_SHIFT


@kernel
def legal_actions_nb(st, kp, out):
    """Write the legal action ids into out (int64[kp.max_actions]); return how
    many. In PH_BID it returns 0: a bid is any subset of the hand."""
    ctrl = st.ctrl
    board = st.board
    plants = st.plants
    players = st.players
    phase = ctrl[C_PHASE]
    p = ctrl[C_CUR]
    n = 0
    if phase == PH_MAIN:
        nb = players[p, P_NBUILD]
        incomplete = False
        complete = False
        for i in range(nb):
            if plants[p, PL_R, i] == 0:
                incomplete = True
            else:
                complete = True
        roofs = players[p, P_ROOFS + 1] + players[p, P_ROOFS + 2] > 0
        stock = ctrl[C_STOCK] > 0
        known = 0  # districts checked for an install option
        okd = 0    # districts with one
        out[n] = K_PASS << A_SHIFT
        n += 1
        hand = st.hands[p]
        tab = kp.tab
        for i in range(players[p, P_NHAND]):
            c = hand[i]
            t = tab[T_TYPE + c]
            if t == FLOOR:
                if stock:
                    out[n] = (K_FLOOR << A_SHIFT) | c
                    n += 1
            elif t == ROOF:
                if incomplete and roofs:
                    out[n] = (K_ROOF << A_SHIFT) | c
                    n += 1
            elif complete:
                d = tab[T_DIST + c]
                if not (known >> d) & 1:
                    known |= 1 << d
                    if installs_nb(board, plants, p, nb, d, kp.bpd, kp.n_blocks, kp.first_floors, out, 0, True) > 0:
                        okd |= 1 << d
                if (okd >> d) & 1:
                    out[n] = (K_CONTRACT << A_SHIFT) | c
                    n += 1
            out[n] = (K_NOACT << A_SHIFT) | c
            n += 1
        if players[p, P_BILLBOARDS] > 0:
            for k in range(kp.n_blocks):
                if board[k, B_VAC] > 0:
                    out[n] = (K_BILLBOARD << A_SHIFT) | k
                    n += 1
    elif phase == PH_FLOOR:
        nb = players[p, P_NBUILD]
        for i in range(nb):
            if plants[p, PL_R, i] == 0:
                out[n] = (K_FLOOR_TARGET << A_SHIFT) | i
                n += 1
        out[n] = (K_FLOOR_TARGET << A_SHIFT) | nb
        n += 1
    elif phase == PH_ROOF:
        for i in range(players[p, P_NBUILD]):
            if plants[p, PL_R, i] == 0:
                for r in range(1, 3):
                    if players[p, P_ROOFS + r] > 0:
                        out[n] = (K_ROOF_TARGET << A_SHIFT) | (i * 2 + r - 1)
                        n += 1
    elif phase == PH_INSTALL:
        d = kp.tab[T_DIST + ctrl[C_PCARD]]
        n = installs_nb(board, plants, p, players[p, P_NBUILD], d, kp.bpd, kp.n_blocks, kp.first_floors,
                        out, 0, False)
    elif phase == PH_PLACE:
        col = B_VAC if ctrl[C_ITEM] == GREENSPACE else B_LVAC
        for k in range(kp.n_blocks):
            if board[k, col] > 0:
                out[n] = (K_PLACE << A_SHIFT) | k
                n += 1
    elif phase == PH_DRAW:
        piles = st.piles
        for t in range(N_TYPES):
            if piles[t, PI_DECK] + piles[t, PI_DISC] > 0:
                out[n] = (K_DRAW << A_SHIFT) | t
                n += 1
    return n


@kernel
def _play_card(st, kp, p, c):
    """Construction: reveal card c from p's hand and discard it; False if absent."""
    i = hand_index_nb(st.hands, st.players, p, c)
    if i < 0:
        return False
    remove_from_hand_nb(st.hands, st.players, p, i)
    discard_nb(st.piles, kp.tab[T_TYPE + c], c)
    st.players[p, N_PLAYER + c] += 1
    return True


@kernel
def apply_action_nb(st, kp, action):
    """Apply one decision of the current player and run the game on to the
    next decision. Returns False (state untouched) for a bid that is not a
    subset of the hand, a card not in hand or an action of the wrong kind.
    Other actions are trusted to come from legal_actions_nb."""
    ctrl = st.ctrl
    board = st.board
    plants = st.plants
    players = st.players
    phase = ctrl[C_PHASE]
    p = ctrl[C_CUR]
    kind = action_kind_nb(action)
    d = action & DETAIL_MASK
    if phase == PH_MAIN:
        if kind == K_PASS:
            ctrl[C_DECISIONS] += 1
            ctrl[C_PASSED] |= 1 << p  # passing is final for this phase
            if ctrl[C_ROUND] == 0:
                players[p, P_ST_PASS_R1] = players[p, P_TURNS_ROUND]
            _advance(st, kp, _end_turn(st, kp))
        elif kind == K_BILLBOARD:
            if players[p, P_BILLBOARDS] <= 0 or board[d, B_VAC] <= 0:
                return False
            ctrl[C_DECISIONS] += 1
            board[d, B_VAC] -= 1
            board[d, B_BB + p] += 1
            board[d, B_BBTOT] += 1
            players[p, P_BILLBOARDS] -= 1
            players[p, P_SCORE] -= kp.billboard_cost
            players[p, P_EV_BILLBOARD] -= kp.billboard_cost
            players[p, P_ST_BB] += 1
            _advance(st, kp, _end_turn(st, kp))
        elif kind == K_FLOOR or kind == K_ROOF or kind == K_CONTRACT or kind == K_NOACT:
            if d >= kp.n_cards:
                return False
            if kind != K_NOACT and kp.tab[T_TYPE + d] != kind - K_FLOOR:
                return False
            if kind == K_FLOOR and ctrl[C_STOCK] <= 0:
                return False
            if not _play_card(st, kp, p, d):
                return False
            ctrl[C_DECISIONS] += 1
            if kind == K_NOACT:
                _advance(st, kp, _end_turn(st, kp))
            elif kind == K_FLOOR:
                ctrl[C_PHASE] = PH_FLOOR
                ctrl[C_SUB] = min(kp.floors_per_card, ctrl[C_STOCK])
            elif kind == K_ROOF:
                ctrl[C_PHASE] = PH_ROOF
            else:
                ctrl[C_PCARD] = d
                ctrl[C_PHASE] = PH_INSTALL
        else:
            return False
        return True
    if phase == PH_FLOOR:
        if kind != K_FLOOR_TARGET:
            return False
        nb = players[p, P_NBUILD]
        if d == nb:
            plants[p, PL_H, nb] = 1
            plants[p, PL_R, nb] = 0
            players[p, P_NBUILD] = nb + 1
        elif d < nb and plants[p, PL_R, d] == 0:
            plants[p, PL_H, d] += 1
        else:
            return False
        ctrl[C_DECISIONS] += 1
        ctrl[C_STOCK] -= 1
        ctrl[C_SUB] -= 1
        if ctrl[C_SUB] <= 0 or ctrl[C_STOCK] <= 0:
            _advance(st, kp, _end_turn(st, kp))
        return True
    if phase == PH_ROOF:
        if kind != K_ROOF_TARGET:
            return False
        i = d >> 1
        r = (d & 1) + 1
        if i >= players[p, P_NBUILD] or plants[p, PL_R, i] != 0 or players[p, P_ROOFS + r] <= 0:
            return False
        ctrl[C_DECISIONS] += 1
        plants[p, PL_R, i] = r
        players[p, P_ROOFS + r] -= 1
        players[p, P_ST_BUILT] += 1
        _advance(st, kp, _end_turn(st, kp))
        return True
    if phase == PH_INSTALL:
        if kind != K_INSTALL:
            return False
        onbb = d & 1
        k = (d >> 1) % kp.n_blocks
        i = (d >> 1) // kp.n_blocks
        nb = players[p, P_NBUILD]
        if i >= nb or plants[p, PL_R, i] == 0 or k // kp.bpd != kp.tab[T_DIST + ctrl[C_PCARD]]:
            return False
        h = plants[p, PL_H, i]
        r = plants[p, PL_R, i]
        if not block_ok_nb(board, k, h, r, kp.first_floors, kp.bpd):
            return False
        if onbb:
            if board[k, B_BB + p] <= 0:
                return False
            board[k, B_BB + p] -= 1  # the billboard leaves the game
            board[k, B_BBTOT] -= 1
            players[p, P_SCORE] -= kp.buildover_cost
            players[p, P_EV_BUILDOVER] -= kp.buildover_cost
            players[p, P_ST_BB_OVER] += 1
        else:
            if board[k, B_VAC] <= 0:
                return False
            board[k, B_VAC] -= 1
        ctrl[C_DECISIONS] += 1
        plants[p, PL_H, i] = plants[p, PL_H, nb - 1]
        plants[p, PL_R, i] = plants[p, PL_R, nb - 1]
        plants[p, PL_H, nb - 1] = 0
        plants[p, PL_R, nb - 1] = 0
        players[p, P_NBUILD] = nb - 1
        j = board[k, B_NBLD]
        board[k, B_BLDH + j] = h
        board[k, B_BLDO + j] = p
        board[k, B_NBLD] = j + 1
        board[k, B_FLOORS + p] += h
        if h > board[k, B_TALL + p]:
            board[k, B_TALL + p] = h
        if h > board[k, B_TOP]:
            board[k, B_TOP] = h
        board[k, B_ROOF] = r
        players[p, P_ST_PLACED] += 1
        players[p, P_ST_FLOORS] += h
        _advance(st, kp, _end_turn(st, kp))
        return True
    if phase == PH_BID:
        if kind != K_BID:
            return False
        m = action ^ BID_FLAG
        if m & ~hand_mask_nb(st.hands[p], players[p, P_NHAND]):
            return False  # not a subset of the hand
        ctrl[C_DECISIONS] += 1
        st.secret[S_BIDS + p] = np.uint64(m)
        ctrl[C_BIDDER] += 1
        _advance(st, kp, STEP_NEXT_BIDDER)
        return True
    if phase == PH_PLACE:
        if kind != K_PLACE or d >= kp.n_blocks:
            return False
        item = ctrl[C_ITEM]
        if item == GREENSPACE:
            if board[d, B_VAC] <= 0:
                return False
            board[d, B_VAC] -= 1
            board[d, B_GREEN] += 1
        else:
            if board[d, B_LVAC] <= 0:
                return False
            board[d, B_LVAC] -= 1
            if item == SPACEPORT:
                board[d, B_NSPACE] += 1
            else:
                board[d, B_NMALL] += 1
        ctrl[C_DECISIONS] += 1
        st.alog[ctrl[C_N_AUC] - 1, A_BLOCK] = d
        _advance(st, kp, STEP_NEXT_AUCTION)
        return True
    if phase == PH_DRAW:
        if kind != K_DRAW or d >= N_TYPES:
            return False
        piles = st.piles
        c = draw_card_nb(piles, st.decks, st.secret, d)
        if c < 0:
            return False
        ctrl[C_DECISIONS] += 1
        st.hands[p, players[p, P_NHAND]] = c
        players[p, P_NHAND] += 1
        ctrl[C_DRAWN] += 1
        if ctrl[C_DRAWN] > kp.draw_per_round:
            players[p, P_ST_EXTRA] += 1
        ctrl[C_DRAW_LEFT] -= 1
        if ctrl[C_DRAW_LEFT] <= 0:
            ctrl[C_DRAWER] += 1
            _advance(st, kp, STEP_NEXT_DRAWER)
        elif not _any_cards(piles):
            ctrl[C_DRAWER] = kp.n_players
            _advance(st, kp, STEP_NEXT_DRAWER)
        return True
    return False


# ====================================================================== results


@kernel
def final_result_nb(players, hands, kp, rank, hand_value):
    """End of the Game: rank[p] (1 = best) and hand_value[p]; returns
    (n_winners, points_tied, tie_break_decided). Ties on points go to the most
    card value left in hand (final_tie 0), then the win is shared."""
    P = kp.n_players
    best = -(1 << 30)
    for q in range(P):
        hand_value[q] = hand_value_nb(hands[q], players[q, P_NHAND], kp.tab)
        if players[q, P_SCORE] > best:
            best = players[q, P_SCORE]
    n_top = 0
    for q in range(P):
        if players[q, P_SCORE] == best:
            n_top += 1
    n_win = 0
    for q in range(P):
        r = 1
        for o in range(P):
            so = players[o, P_SCORE]
            sq = players[q, P_SCORE]
            if so > sq or (kp.final_tie == 0 and so == sq and hand_value[o] > hand_value[q]):
                r += 1
        rank[q] = r
        if r == 1:
            n_win += 1
    tied = n_top > 1
    return n_win, tied, tied and n_win == 1


@kernel
def block_check_nb(board, kp):
    """Re-check a board against the building rules (for tests): returns the
    first block that breaks roof uniformity / the district rule / the height
    sequence / the platform count, or -1. Roof uniformity holds by layout
    (one roof per block), so the district rule checks that no district has
    all its blocks with the same roof."""
    for k in range(kp.n_blocks):
        n = board[k, B_NBLD]
        top = 0
        for j in range(n):
            h = board[k, B_BLDH + j]
            if j == 0:
                if h != kp.first_floors:
                    return k
            elif h != top and h != top + 1:
                return k
            if h > top:
                top = h
        if n > 0 and top != board[k, B_TOP]:
            return k
        if n + board[k, B_VAC] + board[k, B_GREEN] + board[k, B_BBTOT] != kp.small_platforms:
            return k
    for d in range(kp.n_districts):
        r0 = board[d * kp.bpd, B_ROOF]
        if r0 == 0:
            continue
        all_same = True
        for k in range(d * kp.bpd, d * kp.bpd + kp.bpd):
            if board[k, B_ROOF] != r0:
                all_same = False
        if all_same:
            return d * kp.bpd
    return -1
