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

Speed: the expert values every candidate of a decision, most of them a card, a draw or a bid
that leaves most of the board as it was. So what the board pays and the potentials are valued
once a sample, block by block and district by district (note_board_nb), and each candidate
values afresh only the blocks it changed: the same features to the bit. With the expert's fewer
state copies (engines.core.expert), 590 -> about 750 four-player games a second.

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
    B_BBTOT, B_GREEN, B_NBLD, B_NMALL, B_NSPACE, B_TALL, BOARD, C_PASSED, C_PHASE, C_ROUND, CONTRACT, CURVED, FLOOR,
    K_BPD, K_FIRST_FLOORS, K_N_BLOCKS, K_N_CARDS, K_N_DISTRICTS, K_N_PLAYERS, K_ROUNDS, K_TYPE, K_VALUE, MAX_BLOCKS,
    MAX_DISTRICTS, MAX_P, N_BOARD, N_PLROW, N_PROW, P_BILLBOARDS, P_NBUILD, P_NHAND, P_ROOFS, P_SCORE, P_ST_PLACED,
    PH_BID, PH_DRAW, PH_OVER, PLAYERS, PLH, PLR, POINTED, ROOF, TAB, hands_nb, pub_nb,
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


@inline_kernel
def district_potential_nb(pub, p, h, r, rem, dist):
    """potential_nb over the blocks of district `dist` alone (0.0 when none takes the building)."""
    best = 0.0
    bpd = pub[TAB + K_BPD]
    ff = pub[TAB + K_FIRST_FLOORS]
    same = district_roof_count_nb(pub, dist, r) if h == ff else 0   # fits_block_nb reads it for h == ff only
    for k in range(dist * bpd, dist * bpd + bpd):
        vac, own = install_spot_nb(pub, k, p)
        if not (vac or own) or not fits_block_nb(pub, k, h, r, same, ff, bpd):
            continue
        g = own_gain_nb(pub, p, h, k, rem)
        if g > best:
            best = g
    return best


@typed_kernel((PUB, I64, I64, I64, I64))
def potential_nb(pub, p, h, r, rem):
    """Best own gain (x remaining scorings) of a building of height h and roof
    r anywhere on the board (no Contract card needed): a building's promise.
    (rules.fits_block_nb, with each district's count of roof r read once.)"""
    best = 0.0
    for dist in range(pub[TAB + K_N_DISTRICTS]):
        g = district_potential_nb(pub, p, h, r, rem, dist)
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
    "exposed",      # round 1, construction: the seat's installed buildings x the rivals who have installed
                    # none, have not passed and hold a complete building (who can answer them before the first scoring)
    "roofable",     # min(incomplete buildings, Roof cards): roofs the hand can pay for (installable's
                    # step before: a linear sum of n_open and roof_cards cannot see that a Roof card is worth
                    # most while a building waits for it)
    # 1 for the heuristic's own pick (the expert's prior: engines.core.expert's prior_nb,
    # search.heuristic_pick_nb), 0 for every other candidate; features_nb writes 0
    PRIOR_FEATURE,
)
N_FEATURES = len(FEATURES)
(F_SCORE, F_BOARD, F_RIVAL, F_PORTS, F_READY, F_N_READY, F_OPEN, F_N_OPEN, F_OPEN_FLOORS, F_FLOOR_CARDS,
 F_ROOF_CARDS, F_CONTRACTS, F_INSTALLABLE, F_HAND_VALUE, F_HAND_CARDS, F_BILLBOARDS, F_VALUE_LAST,
 F_LEAD_FINAL, F_EXPOSED, F_ROOFABLE, F_HEURISTIC_PICK) = range(N_FEATURES)


@inline_kernel
def scorings_left_nb(pub):
    """Scoring Phases still to come: this round's unless it has been scored (the Draw Phase
    follows the scoring), none once the game is over."""
    phase = pub[C_PHASE]
    if phase == PH_OVER:
        return 0
    left = pub[TAB + K_ROUNDS] - pub[C_ROUND]
    return left - 1 if phase == PH_DRAW else left


# The memo the expert's candidates share (engines.core.expert's note_nb: out[N_FEATURES:]): what
# the board of the sample they start from pays, block by block, and the potentials its districts
# hold, valued as candidates need them. A candidate changes a block or two at most (a Billboard,
# an install, an item): its features read the rest from the memo and value afresh only the blocks,
# and the districts, it changed. A block's stamp tells (block_stamp_nb).
N_POT = 2 * MEMO_H           # potentials remembered per district (potential_memo_nb's index)
M_REM = 0                    # the sample's scorings left (NaN: no memo)
M_BSTAMP = 1                 # [M_BSTAMP + k]: block k's stamp
M_BPAY = M_BSTAMP + MAX_BLOCKS              # [M_BPAY + k * MAX_P + q]: what block k pays seat q
M_BCARDS = M_BPAY + MAX_BLOCKS * MAX_P      # [M_BCARDS + k]: the Spaceport cards it gives the seat
M_PAY = M_BCARDS + MAX_BLOCKS               # [M_PAY + q]: what the whole board pays seat q
M_CARDS = M_PAY + MAX_P                     # and the seat's Spaceport cards
M_DPOT = M_CARDS + 1                        # [M_DPOT + dist * N_POT + j]: a district's potentials (-1: not yet)
M_NEW_PAY = M_DPOT + MAX_DISTRICTS * N_POT  # the candidate's own: what its board pays
M_NEW_POT = M_NEW_PAY + MAX_P               # and the potentials of the districts it changed
MEMO_SIZE = M_NEW_POT + N_POT


@inline_kernel
def block_stamp_nb(pub, k):
    """A number every change of block k raises: a Billboard, an item or a building placed (a
    building counts twice, as it may cover a Billboard). Two states of one sample hold the same
    block k when, and only when, its stamps are equal (tests/skyline_3000/test_expert.py plays
    the rules to check it)."""
    o = BOARD + k * N_BOARD
    return 2 * pub[o + B_NBLD] + pub[o + B_BBTOT] + pub[o + B_GREEN] + pub[o + B_NMALL] + pub[o + B_NSPACE]


@inline_kernel
def block_pay_nb(pub, k, p, out, at):
    """What block k pays each seat q in one Scoring Phase as it stands, added to out[at + q]
    (points); returns the Spaceport cards it gives seat p (the rules' scoring_nb without writing)."""
    first, second = block_places_hyp_nb(pub, k, -1, 0, 0)
    if first | second == 0:
        return 0
    p1, p2 = block_points_hyp_nb(pub, k, 0, 0, 0)
    for q in range(pub[TAB + K_N_PLAYERS]):
        if (first >> q) & 1:
            out[at + q] += p1
        elif (second >> q) & 1:
            out[at + q] += p2
    ns = pub[BOARD + k * N_BOARD + B_NSPACE]
    if ns != 0 and ((first | second) >> p) & 1:
        return spaceport_cards_nb(pub, first, second, p, ns)
    return 0


@inline_kernel
def note_board_nb(d, cfg, aux, p, out):
    """The expert's note_nb: the sample's board, block by block (its stamps, what it pays and the
    Spaceport cards it gives seat p, the seat whose features read the memo), no potential valued yet."""
    pub = pub_nb(d)
    m = N_FEATURES
    out[m + M_REM] = scorings_left_nb(pub)
    P = pub[TAB + K_N_PLAYERS]
    for q in range(P):
        out[m + M_PAY + q] = 0.0
    cards = 0
    for k in range(pub[TAB + K_N_BLOCKS]):
        out[m + M_BSTAMP + k] = block_stamp_nb(pub, k)
        for q in range(P):
            out[m + M_BPAY + k * MAX_P + q] = 0.0
        c = block_pay_nb(pub, k, p, out, m + M_BPAY + k * MAX_P)
        out[m + M_BCARDS + k] = c
        cards += c
        for q in range(P):
            out[m + M_PAY + q] += out[m + M_BPAY + k * MAX_P + q]
    out[m + M_CARDS] = cards
    for j in range(pub[TAB + K_N_DISTRICTS] * N_POT):
        out[m + M_DPOT + j] = -1.0


@typed_kernel((PUB, I64, I64, I64, I64, F64_ARR, I64), inline=True)
def potential_in_memo_nb(pub, p, h, r, rem, m, changed):
    """potential_nb through the sample's memo m: the districts the state shares with the sample
    read (or fill) the sample's potentials; those it changed (bits of `changed`) are valued afresh."""
    if h >= MEMO_H:
        return potential_nb(pub, p, h, r, rem)
    j = h * 2 + r - 1
    nd = pub[TAB + K_N_DISTRICTS]
    best = 0.0
    if changed != 0:
        if m[M_NEW_POT + j] < 0.0:
            v = 0.0
            for dist in range(nd):
                if (changed >> dist) & 1:
                    v = max(v, district_potential_nb(pub, p, h, r, rem, dist))
            m[M_NEW_POT + j] = v
        best = m[M_NEW_POT + j]
    for dist in range(nd):
        if not (changed >> dist) & 1:
            i = M_DPOT + dist * N_POT + j
            if m[i] < 0.0:
                m[i] = district_potential_nb(pub, p, h, r, rem, dist)
            best = max(best, m[i])
    return best


@typed_kernel((PUB, I64, I64, I64, I64, F64_ARR, I64), inline=True)
def potential_lookup_nb(pub, p, h, r, rem, memo, changed):
    """potential_nb through a memo, written as potentials are valued: a decision's own
    (float64[N_POT], -1 = not yet: potential_memo_nb), or the expert's sample memo (note_board_nb's,
    for seat p and these scorings left; `changed`: the districts whose blocks are not the sample's,
    potential_in_memo_nb), which the candidates' features read too."""
    if memo.shape[0] == N_POT:
        return potential_memo_nb(pub, p, h, r, rem, memo)
    return potential_in_memo_nb(pub, p, h, r, rem, memo, changed)


@inline_kernel
def sample_memo_changed_nb(pub, f, rem):
    """For potential_lookup_nb in a state of the expert's sample: f is the expert's feature row
    (note_board_nb's memo after N_FEATURES, noted for the seat to move, or empty: none noted),
    rem the scorings left the caller values potentials for. When f's memo holds the potentials of
    these scorings left: `changed`, the districts whose blocks this state has changed (their
    potentials valued afresh, as features_nb values them); else -1 (no memo: the caller makes its
    own). (The caller slices the memo: a kernel without reference counts returns no array.)"""
    if f.shape[0] < N_FEATURES + MEMO_SIZE or f[N_FEATURES + M_REM] != rem:
        return np.int64(-1)
    changed = np.int64(0)
    bpd = pub[TAB + K_BPD]
    for k in range(pub[TAB + K_N_BLOCKS]):
        if block_stamp_nb(pub, k) != f[N_FEATURES + M_BSTAMP + k]:
            changed |= np.int64(1) << (k // bpd)
    if changed != 0:             # the changed districts' potentials are this state's own, valued afresh
        for j in range(N_POT):
            f[N_FEATURES + M_NEW_POT + j] = -1.0
    return changed


@inline_kernel
def exposed_nb(pub, p):
    """Round 1's construction phase: seat p's installed buildings (all of this round) x the rivals
    who have installed none yet, have not passed and hold a complete building: who may still
    answer them, building to top them, before the first scoring. 0 elsewhere. The tempo a score
    of the position cannot see: the expert opens as first builder by installing its starting
    buildings at once, and the seats after it top them (the preset expert_waits weighs this)."""
    if pub[C_ROUND] != 0 or pub[C_PHASE] >= PH_BID:
        return 0.0
    placed = pub[PLAYERS + p * N_PROW + P_ST_PLACED]
    if placed == 0:
        return 0.0
    n = 0
    for q in range(pub[TAB + K_N_PLAYERS]):
        if q == p or (pub[C_PASSED] >> q) & 1 or pub[PLAYERS + q * N_PROW + P_ST_PLACED] > 0:
            continue
        for i in range(pub[PLAYERS + q * N_PROW + P_NBUILD]):
            if pub[PLR + q * N_PLROW + i] != 0:
                n += 1
                break
    return float(placed * n)


@allocating_kernel
def features_nb(d, cfg, aux, p, out):
    """Seat p's features (FEATURES, in order) of the state d, into out[:N_FEATURES]. With out
    N_FEATURES + MEMO_SIZE long (the expert's), out[N_FEATURES:] is the sample's memo
    (note_board_nb); shorter, everything is valued afresh (in a scratch memo of its own)."""
    pub = pub_nb(d)
    P = pub[TAB + K_N_PLAYERS]
    hand = hands_nb(d, P, pub[TAB + K_N_CARDS])[p]
    rem = scorings_left_nb(pub)
    own = PLAYERS + p * N_PROW
    if out.shape[0] >= N_FEATURES + MEMO_SIZE:
        m = out[N_FEATURES:N_FEATURES + MEMO_SIZE]
    else:
        m = np.full(MEMO_SIZE, np.nan)
    pay = m[M_NEW_PAY:M_NEW_PAY + MAX_P]
    changed = 0        # districts whose blocks are not the sample's (all of them without a memo)
    if m[M_REM] == rem:
        cards = m[M_CARDS]
        for q in range(P):
            pay[q] = m[M_PAY + q]
        for k in range(pub[TAB + K_N_BLOCKS]):
            if block_stamp_nb(pub, k) != m[M_BSTAMP + k]:
                changed |= 1 << (k // pub[TAB + K_BPD])
                cards += block_pay_nb(pub, k, p, pay, 0) - m[M_BCARDS + k]
                for q in range(P):
                    pay[q] -= m[M_BPAY + k * MAX_P + q]
    else:
        changed = (1 << pub[TAB + K_N_DISTRICTS]) - 1
        cards = 0.0
        for q in range(P):
            pay[q] = 0.0
        for k in range(pub[TAB + K_N_BLOCKS]):
            cards += block_pay_nb(pub, k, p, pay, 0)
    if changed != 0:
        for j in range(N_POT):
            m[M_NEW_POT + j] = -1.0
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
            ready += potential_in_memo_nb(pub, p, h, r, rem, m, changed)
            n_ready += 1
        else:
            v = 0.0
            if pub[own + P_ROOFS + CURVED] > 0:
                v = potential_in_memo_nb(pub, p, h, CURVED, rem, m, changed)
            if pub[own + P_ROOFS + POINTED] > 0:
                v = max(v, potential_in_memo_nb(pub, p, h, POINTED, rem, m, changed))
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
    out[F_EXPOSED] = exposed_nb(pub, p)
    out[F_ROOFABLE] = min(n_open, n_roof)
    out[F_HEURISTIC_PICK] = 0.0
