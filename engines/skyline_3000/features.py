"""Skyline 3000's features for the learned expert (engines.core.expert): what seat p's position
is worth, read only from what p sees -- the public board (every block's floors, tallest
buildings, Greenspaces, Billboards, Megamalls, Spaceports), every score and hand size, p's own
Plant, roof supply and hand. Never another hand, a deck below its visible top or a sealed bid:
the expert scores determinized samples, and a feature reading a redrawn place would make its
choice depend on the draw.

Points come from the board, scored after every round: so the position is mostly what the board
pays each seat per scoring as it stands, times the scorings left (`board`, `rival`), plus what
the seat's Plant could still add (`ready`, `open`: the heuristic's potential of each building,
the best own gain anywhere on the board) and the cards that build and bid (`hand_value` and
the card types). The expert scores a decision after its consequences are in (search.settle_nb:
a sealed bid is scored once the auction is over and the item placed, a card once the floors,
roof or install it pays for are placed), so winning an auction reads as the item on the board
against the cards paid for it.

The shared estimates the heuristic reads too (own_gain_nb, potential_nb) live here; policies.py
imports them (no import cycle: this module imports no policy).
"""
from __future__ import annotations

import numpy as np

from engines.core.expert import PRIOR_FEATURE
from engines.core.kernel import allocating_kernel
from engines.skyline_3000._jit import F64_ARR, I64, PUB, inline_kernel, typed_kernel
from engines.skyline_3000.rules import (
    block_places_hyp_nb, block_points_hyp_nb, district_roof_count_nb, fits_block_nb, install_spot_nb,
    spaceport_cards_nb,
)
from engines.skyline_3000.state import (
    B_BBTOT, B_GREEN, B_NBLD, B_NMALL, B_NSPACE, B_TALL, BOARD, C_PHASE, C_ROUND, CONTRACT, CURVED, FLOOR, K_BPD, K_FIRST_FLOORS, K_N_BLOCKS, K_N_CARDS,
    K_N_PLAYERS, K_ROUNDS, MAX_P, K_TYPE, K_VALUE, N_BOARD, N_PLROW, N_PROW, P_BILLBOARDS, P_NBUILD, P_NHAND, P_ROOFS,
    P_SCORE, PH_DRAW, PH_OVER, PLAYERS, PLH, PLR, POINTED, ROOF, TAB, hands_nb, pub_nb,
)


@inline_kernel
def own_gain_nb(pub, p, h, k, rem):
    """Seat p's own gain (x rem) of a building of height h (>= 1) in block k, as a float (the
    heuristic's install gain without the contest, Spaceport and card terms)."""
    o = BOARD + k * N_BOARD
    tall = pub[o + B_TALL + p]
    if h > tall:
        tall = h
    first0, second0 = block_places_hyp_nb(pub, k, -1, 0, 0)
    first1, second1 = block_places_hyp_nb(pub, k, p, h, tall)
    p1, p2 = block_points_hyp_nb(pub, k, 0, 0, 0)
    own0 = p1 if (first0 >> p) & 1 else (p2 if (second0 >> p) & 1 else 0)
    own1 = p1 if (first1 >> p) & 1 else (p2 if (second1 >> p) & 1 else 0)
    return float((own1 - own0) * rem)


@typed_kernel((PUB, I64, I64, I64, I64))
def potential_nb(pub, p, h, r, rem):
    """Best own gain (x remaining scorings) of a building of height h and roof
    r anywhere on the board (no Contract card needed): a building's promise.
    (rules.fits_block_nb, with each district's count of roof r read once.)"""
    best = 0.0
    bpd = pub[TAB + K_BPD]
    ff = pub[TAB + K_FIRST_FLOORS]
    first_ok = h == ff
    same = 0  # blocks of the current district with roof r
    for k in range(pub[TAB + K_N_BLOCKS]):
        if first_ok and k % bpd == 0:
            same = district_roof_count_nb(pub, k // bpd, r)
        vac, own = install_spot_nb(pub, k, p)
        if not (vac or own) or not fits_block_nb(pub, k, h, r, same, ff, bpd):
            continue
        g = own_gain_nb(pub, p, h, k, rem)
        if g > best:
            best = g
    return best


MEMO_H = 16  # potential_memo_nb remembers heights below this


@typed_kernel((PUB, I64, I64, I64, I64, F64_ARR), inline=True)
def potential_memo_nb(pub, p, h, r, rem, memo):
    """potential_nb, remembered in memo (float64[2 * MEMO_H], -1 = not yet)
    for the decision at hand."""
    if h >= MEMO_H:
        return potential_nb(pub, p, h, r, rem)
    j = h * 2 + r - 1
    if memo[j] < 0.0:
        memo[j] = potential_nb(pub, p, h, r, rem)
    return memo[j]


# the features, in the model's order (the names of engines/skyline_3000/expert.toml's weights)
FEATURES = (
    "score",        # own score
    "board",        # what the board pays the seat per scoring as it stands, x the scorings left
    "rival",        # the best other seat's score + its board x the scorings left (hand sizes only: its cards are hidden)
    "ports",        # Spaceport cards the seat would draw per scoring as the board stands, x the scorings left
    "ready",        # the complete buildings in the Plant: each one's best own gain anywhere (potential), summed
    "n_ready",      # complete buildings in the Plant
    "open",         # the incomplete buildings: each one's potential with the better roof still in supply, summed
    "n_open",       # incomplete buildings in the Plant
    "open_floors",  # floors in them
    "floor_cards",  # Floor cards in hand
    "roof_cards",   # Roof cards in hand
    "contracts",    # Contract cards in hand
    "installable",  # min(complete buildings, Contract cards): installs the hand can pay for
    "hand_value",   # the hand's card values (auction power; the final tie-break)
    "hand_cards",   # cards in hand
    "billboards",   # Billboards left in supply
    "value_last",   # hand_value in the last round and after (cards left then buy only tie-breaks and late bids)
    "lead_final",   # own score minus the best other's once the game is over (0 before): winning
    # 1 for the heuristic's own pick (the expert's prior: engines.core.expert's prior_nb,
    # search.heuristic_pick_nb), 0 for every other candidate; features_nb writes 0
    PRIOR_FEATURE,
)
N_FEATURES = len(FEATURES)
(F_SCORE, F_BOARD, F_RIVAL, F_PORTS, F_READY, F_N_READY, F_OPEN, F_N_OPEN, F_OPEN_FLOORS, F_FLOOR_CARDS,
 F_ROOF_CARDS, F_CONTRACTS, F_INSTALLABLE, F_HAND_VALUE, F_HAND_CARDS, F_BILLBOARDS, F_VALUE_LAST,
 F_LEAD_FINAL, F_HEURISTIC_PICK) = range(N_FEATURES)


@inline_kernel
def scorings_left_nb(pub):
    """Scoring Phases still to come: this round's unless it has been scored (the Draw Phase
    follows the scoring), none once the game is over."""
    phase = pub[C_PHASE]
    if phase == PH_OVER:
        return 0
    left = pub[TAB + K_ROUNDS] - pub[C_ROUND]
    return left - 1 if phase == PH_DRAW else left


# The memo the expert's candidates share (engines.core.expert's note_nb, out[N_FEATURES:]): what
# the board pays and the potentials it has valued, for the board of the sample the candidates start
# from. A candidate that leaves that board as it is (a draw, a Floor or Roof card, a bid that
# changes nothing placed, ...) reuses it; one that changes the board is valued afresh in the
# scratch part. The board's stamp tells them apart (board_stamp_nb).
M_STAMP = 0                  # the sample's board stamp (NaN: no memo)
M_REM = 1                    # its scorings left
M_PAID = 2                   # 1 once M_PAY and M_CARDS hold what that board pays
M_CARDS = 3                  # the Spaceport cards it gives the seat
M_PAY = 4                    # [M_PAY + q]: what it pays seat q per scoring
M_POT = M_PAY + MAX_P        # [M_POT + j]: potential_memo_nb's memo for that board (-1: not yet)
M_FRESH_PAY = M_POT + 2 * MEMO_H      # scratch for a board of its own
M_FRESH_POT = M_FRESH_PAY + MAX_P
MEMO_SIZE = M_FRESH_POT + 2 * MEMO_H


@inline_kernel
def board_stamp_nb(pub):
    """A number every change of the board raises: a Billboard, an item or a building placed (a
    building counts twice, as it may cover a Billboard). Two states of one sample hold the same
    board when, and only when, their stamps are equal (tests/skyline_3000/test_expert.py plays
    the rules to check it)."""
    stamp = 0
    for k in range(pub[TAB + K_N_BLOCKS]):
        o = BOARD + k * N_BOARD
        stamp += 2 * pub[o + B_NBLD] + pub[o + B_BBTOT] + pub[o + B_GREEN] + pub[o + B_NMALL] + pub[o + B_NSPACE]
    return stamp


@inline_kernel
def note_board_nb(d, cfg, aux, p, out):
    """The expert's note_nb: the sample's board, its stamp, nothing valued on it yet."""
    pub = pub_nb(d)
    out[N_FEATURES + M_STAMP] = board_stamp_nb(pub)
    out[N_FEATURES + M_REM] = scorings_left_nb(pub)
    out[N_FEATURES + M_PAID] = 0.0
    for j in range(2 * MEMO_H):
        out[N_FEATURES + M_POT + j] = -1.0


@inline_kernel
def board_pay_nb(pub, p, out, at):
    """What the board pays each seat in one Scoring Phase as it stands, into out[at + q] (points),
    and the Spaceport cards it gives seat p: the rules' scoring_nb without writing, every block's
    places read once for all seats."""
    P = pub[TAB + K_N_PLAYERS]
    for q in range(P):
        out[at + q] = 0.0
    cards = 0
    for k in range(pub[TAB + K_N_BLOCKS]):
        first, second = block_places_hyp_nb(pub, k, -1, 0, 0)
        if first | second == 0:
            continue
        p1, p2 = block_points_hyp_nb(pub, k, 0, 0, 0)
        for q in range(P):
            if (first >> q) & 1:
                out[at + q] += p1
            elif (second >> q) & 1:
                out[at + q] += p2
        ns = pub[BOARD + k * N_BOARD + B_NSPACE]
        if ns != 0 and ((first | second) >> p) & 1:
            cards += spaceport_cards_nb(pub, first, second, p, ns)
    return cards


@allocating_kernel
def features_nb(d, cfg, aux, p, out):
    """Seat p's features (FEATURES, in order) of the state d, into out[:N_FEATURES]. With out
    N_FEATURES + MEMO_SIZE long (the expert's), out[N_FEATURES:] is the sample's memo
    (note_board_nb); shorter, everything is valued afresh (two small scratch arrays of its own)."""
    pub = pub_nb(d)
    P = pub[TAB + K_N_PLAYERS]
    hand = hands_nb(d, P, pub[TAB + K_N_CARDS])[p]
    rem = scorings_left_nb(pub)
    own = PLAYERS + p * N_PROW
    if out.shape[0] >= N_FEATURES + MEMO_SIZE:
        m = out[N_FEATURES:N_FEATURES + MEMO_SIZE]
    else:
        m = np.full(MEMO_SIZE, np.nan)
    if m[M_STAMP] == board_stamp_nb(pub) and m[M_REM] == rem:   # the sample's board
        if m[M_PAID] == 0.0:
            m[M_CARDS] = board_pay_nb(pub, p, m, M_PAY)
            m[M_PAID] = 1.0
        cards = m[M_CARDS]
        pay = m[M_PAY:M_PAY + MAX_P]
        memo = m[M_POT:M_POT + 2 * MEMO_H]
    else:
        cards = float(board_pay_nb(pub, p, m, M_FRESH_PAY))
        pay = m[M_FRESH_PAY:M_FRESH_PAY + MAX_P]
        memo = m[M_FRESH_POT:M_FRESH_POT + 2 * MEMO_H]
        for j in range(2 * MEMO_H):
            memo[j] = -1.0
    pts = pay[p]
    best_other = -1e18
    best_score = -1e18
    for q in range(P):
        if q == p:
            continue
        sq = pub[PLAYERS + q * N_PROW + P_SCORE]
        pq = pay[q]
        if sq + pq * rem > best_other:
            best_other = float(sq + pq * rem)
        if sq > best_score:
            best_score = float(sq)
    ready = 0.0
    n_ready = 0
    open_v = 0.0
    n_open = 0
    floors = 0
    for i in range(pub[own + P_NBUILD]):
        h = pub[PLH + p * N_PLROW + i]
        r = pub[PLR + p * N_PLROW + i]
        if r != 0:
            ready += potential_memo_nb(pub, p, h, r, rem, memo)
            n_ready += 1
        else:
            v = 0.0
            if pub[own + P_ROOFS + CURVED] > 0:
                v = potential_memo_nb(pub, p, h, CURVED, rem, memo)
            if pub[own + P_ROOFS + POINTED] > 0:
                v = max(v, potential_memo_nb(pub, p, h, POINTED, rem, memo))
            open_v += v
            n_open += 1
            floors += h
    nh = pub[own + P_NHAND]
    n_floor = 0
    n_roof = 0
    n_contract = 0
    value = 0
    for i in range(nh):
        c = hand[i]
        t = pub[TAB + K_TYPE + c]
        if t == FLOOR:
            n_floor += 1
        elif t == ROOF:
            n_roof += 1
        elif t == CONTRACT:
            n_contract += 1
        value += pub[TAB + K_VALUE + c]
    score = pub[own + P_SCORE]
    out[F_SCORE] = score
    out[F_BOARD] = pts * rem
    out[F_RIVAL] = best_other
    out[F_PORTS] = cards * rem
    out[F_READY] = ready
    out[F_N_READY] = n_ready
    out[F_OPEN] = open_v
    out[F_N_OPEN] = n_open
    out[F_OPEN_FLOORS] = floors
    out[F_FLOOR_CARDS] = n_floor
    out[F_ROOF_CARDS] = n_roof
    out[F_CONTRACTS] = n_contract
    out[F_INSTALLABLE] = min(n_ready, n_contract)
    out[F_HAND_VALUE] = value
    out[F_HAND_CARDS] = nh
    out[F_BILLBOARDS] = pub[own + P_BILLBOARDS]
    out[F_VALUE_LAST] = value if rem <= 1 else 0
    out[F_LEAD_FINAL] = score - best_score if pub[C_PHASE] == PH_OVER else 0.0
    out[F_HEURISTIC_PICK] = 0.0
