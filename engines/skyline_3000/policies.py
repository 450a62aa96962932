"""Skyline 3000 scripted players, jitted, all with one signature:

    policy(pub, hand, legal, n, w, rng) -> action (int64)

pub    the public buffer (state.py): board, plants, players, piles, auction
       log, the variant table; the seat to act is pub[C_CUR]
hand   int32[:] the seat's own hand, hand[:players[seat, P_NHAND]] (never
       another hand, the deck order or pending sealed bids: those live in
       other buffers the policies never receive)
legal  int64[:] legal action ids, legal[:n] valid (n = 0 in a bid decision:
       the policy builds BID_FLAG | mask of card ids from hand)
w      float64[W] the seat's weight row; rng the seat's own uint64[4]
       stream (engines.core.rng, POLICY_STREAM + seat)

`choose_action_nb(policy_id, ...)` dispatches on the integer id, so the batch
loop compiles once for every line-up. `POLICIES` is the name -> PolicyInfo
registry the runner and the CLI read; its "search" entry is the search player
(engines.core.search over search.py), which needs the whole state and is
called by the batch loop and the step API, not through choose_action_nb.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.core.kernel import allocating_kernel, ir_inline_kernel, kernel
from engines.core.lowlevel import writable_view
from engines.skyline_3000._jit import F64, F64_ARR, I64, PUB, U64_ARR, inline_kernel, typed_kernel
from engines.core.presets import PRESETS_FILE, add_presets
from engines.core.rng import below, random_bits, uniform
from engines.core.search import search_policy
from engines.core.spec import PolicyInfo
from engines.core.expert import EXPERT_FILE, expert_policy, load_model
from engines.skyline_3000.features import FEATURES, N_POT, potential_lookup_nb, potential_nb
from engines.skyline_3000.rules import (
    billboard_card_nb, billboard_choices_nb, block_places_hyp_nb, block_points_hyp_nb, district_roof_count_nb,
    fits_block_nb, install_spot_nb, main_kind_action_nb, main_kind_counts_nb, place_ok_nb, spaceport_cards_nb,
)
from engines.skyline_3000.state import (
    A_SHIFT, BB_BLOCK_MASK, B_NSPACE, B_ROOF, B_TALL, B_TOP, BID_FLAG, BOARD, C_CUR, C_ITEM, C_PCARD, C_PHASE,
    C_ROUND, CONTRACT, DETAIL_MASK, FLOOR, GREENSPACE, ACT_BILLBOARD, ACT_CONTRACT, ACT_FLOOR,
    ACT_FLOOR_TARGET, ACT_INSTALL, ACT_NOACT, ACT_PASS, ACT_PLACE, ACT_ROOF, ACT_ROOF_TARGET, MEGAMALL, N_BOARD,
    N_PIROW, N_PLROW, N_PROW, P_NBUILD, P_NHAND, P_ROOFS, PH_BID, PH_DRAW, PH_FLOOR, PH_INSTALL,
    PH_MAIN, PH_PLACE, PH_ROOF, PI_TOP, PILES, PLAYERS, PLH, PLR, ROOF, SPACEPORT, K_BILLBOARD_COST,
    K_BB_CARD, K_BUILDOVER_COST, K_BPD, K_DIST, K_FIRST_FLOORS, K_N_BLOCKS, K_N_PLAYERS, K_ROUNDS, K_TYPE, K_VALUE, TAB,
)

RANDOM, GREEDY, HEURISTIC, SEARCH, EXPERT = 0, 1, 2, 3, 4

# ====================================================================== random


@inline_kernel
def random_bid_nb(hand, nh, rng):
    """Each hand card joins the bid with probability 1/2 (one 64-bit draw)."""
    bits = random_bits(rng, nh)
    m = np.int64(0)
    for i in range(nh):
        if (bits >> i) & 1:
            m |= np.int64(1) << np.int64(hand[i])
    return m | BID_FLAG


@inline_kernel
def policy_random_nb(pub, hand, legal, n, w, rng):
    """Uniform action KIND first, then uniform among that kind's actions, as
    the C reference player (benchmark --c-reference): in construction the kind is
    one of pass / floor / roof / contract / billboard / card without acting,
    then the card (or block; a billboard that costs a card: block and card),
    then each detail decision uniformly. Bids: each
    hand card joins with probability 1/2. Draws: uniform among decks that
    still have cards (deck or discards). In construction it ignores `legal`
    (the batch loop does not list it there) and counts the options per kind
    with the rules' helpers; the draws are those over the listed actions."""
    phase = pub[C_PHASE]
    if phase == PH_BID:
        return random_bid_nb(hand, pub[PLAYERS + pub[C_CUR] * N_PROW + P_NHAND], rng)
    if phase == PH_MAIN:
        # the same draws as below over legal_actions_nb's list, without the
        # list: count the options of each kind, pick a kind, then its j-th
        p = pub[C_CUR]
        counts, okd = main_kind_counts_nb(pub, hand, p, legal)
        nk = 0
        for k in range(ACT_NOACT + 1):
            if (counts >> (8 * k)) & 255:
                nk += 1
        kind = 0
        if nk > 1:
            pick = below(rng, np.int64(nk))
            for k in range(ACT_NOACT + 1):
                if (counts >> (8 * k)) & 255:
                    if pick == 0:
                        kind = k
                        break
                    pick -= 1
        else:
            for k in range(ACT_NOACT + 1):
                if (counts >> (8 * k)) & 255:
                    kind = k
        cnt = (counts >> (8 * kind)) & 255
        if kind == ACT_BILLBOARD:  # counted in blocks
            cnt *= billboard_choices_nb(pub, p)
        return main_kind_action_nb(pub, hand, p, kind, below(rng, cnt), okd)
    kinds = 0
    for j in range(n):
        kinds |= 1 << (legal[j] >> A_SHIFT)
    nk = 0
    for k in range(16):
        nk += (kinds >> k) & 1
    if nk == 1:
        return legal[below(rng, n)]
    pick = below(rng, np.int64(nk))
    kind = 0
    for k in range(16):
        if (kinds >> k) & 1:
            if pick == 0:
                kind = k
                break
            pick -= 1
    cnt = 0
    for j in range(n):
        if (legal[j] >> A_SHIFT) == kind:
            cnt += 1
    pick = below(rng, np.int64(cnt))
    for j in range(n):
        if (legal[j] >> A_SHIFT) == kind:
            if pick == 0:
                return legal[j]
            pick -= 1
    return legal[0]


# ====================================================================== shared valuation helpers


@inline_kernel
def jitter_nb(rng, jitter):
    """Tie-break noise for one candidate: uniform in [0, jitter) points from the seat's stream
    (the `jitter` weight of greedy and heuristic); with jitter 0 nothing is drawn, so the
    stream and the decision are exactly what they were before the weight existed."""
    if jitter > 0.0:
        return jitter * uniform(rng)
    return 0.0


@inline_kernel
def share_nb(pub, first, second, p, p1, p2):
    """(own points, opponents' points) of seat p when the seats in mask
    `first` take p1 and those in `second` p2."""
    own = 0
    opp = 0
    for q in range(pub[TAB + K_N_PLAYERS]):
        v = 0
        if (first >> q) & 1:
            v = p1
        elif (second >> q) & 1:
            v = p2
        if q == p:
            own = v
        else:
            opp += v
    return own, opp


@typed_kernel((PUB, I64, I64, I64, I64, I64))
def block_eval_pair_nb(pub, k, p, d_green, d_bb, d_mall):
    """(own points, opponents' points) block k pays now, as it stands and with
    d_green more Greenspaces, d_bb more Billboards and d_mall more Megamalls:
    (own0, opp0, own1, opp1)."""
    first, second = block_places_hyp_nb(pub, k, -1, 0, 0)
    if first == 0:
        return 0, 0, 0, 0
    p1, p2 = block_points_hyp_nb(pub, k, 0, 0, 0)
    own0, opp0 = share_nb(pub, first, second, p, p1, p2)
    p1, p2 = block_points_hyp_nb(pub, k, d_green, d_bb, d_mall)
    own1, opp1 = share_nb(pub, first, second, p, p1, p2)
    return own0, opp0, own1, opp1


@inline_kernel
def install_gain_nb(pub, p, h, k, contest, card_pts, rem, draws):
    """Points (own gain + contest x opponents' loss, per remaining scoring, plus
    Spaceport cards valued card_pts each per remaining draw) of adding a
    building of height h (>= 1) for seat p to block k."""
    o = BOARD + k * N_BOARD
    tall = pub[o + B_TALL + p]
    if h > tall:
        tall = h
    first0, second0 = block_places_hyp_nb(pub, k, -1, 0, 0)
    first1, second1 = block_places_hyp_nb(pub, k, p, h, tall)
    p1, p2 = block_points_hyp_nb(pub, k, 0, 0, 0)
    own0 = 0
    opp0 = 0
    if first0 != 0:
        own0, opp0 = share_nb(pub, first0, second0, p, p1, p2)
    own1 = 0
    opp1 = 0
    if first1 != 0:
        own1, opp1 = share_nb(pub, first1, second1, p, p1, p2)
    sp = 0
    ns = pub[o + B_NSPACE]
    if ns != 0:
        sp = spaceport_cards_nb(pub, first1, second1, p, ns) - spaceport_cards_nb(pub, first0, second0, p, ns)
    return ((own1 - own0) + contest * (opp0 - opp1)) * rem + sp * card_pts * draws


@typed_kernel((PUB, I64, I64, I64, F64, F64, I64, I64))
def item_gain_nb(pub, p, item, k, contest, card_pts, rem, draws):
    """Points for seat p of placing `item` in block k (as install_gain_nb)."""
    if item == SPACEPORT:
        first, second = block_places_hyp_nb(pub, k, -1, 0, 0)
        return float(spaceport_cards_nb(pub, first, second, p, 1) * draws) * card_pts
    dg = 1 if item == GREENSPACE else 0
    dm = 1 if item == MEGAMALL else 0
    own0, opp0, own1, opp1 = block_eval_pair_nb(pub, k, p, dg, 0, dm)
    return ((own1 - own0) - contest * (opp1 - opp0)) * rem


@typed_kernel((PUB, I64, I64, F64, F64, I64, I64, F64, U64_ARR))
def best_item_place_nb(pub, p, item, contest, card_pts, rem, draws, jitter, rng):
    """(best block, its value) for placing `item`; block -1 if no place. Blocks are
    compared with jitter_nb's noise added; the value returned is the block's own."""
    best = -1
    bv = -1e18
    bj = -1e18
    for k in range(pub[TAB + K_N_BLOCKS]):
        if not place_ok_nb(pub, k, item):
            continue
        v = item_gain_nb(pub, p, item, k, contest, card_pts, rem, draws)
        vj = v + jitter_nb(rng, jitter)
        if vj > bj:
            bj = vj
            bv = v
            best = k
    return best, bv


@typed_kernel((PUB, I64, I64, F64, F64, I64, I64, I64, F64, U64_ARR))
def best_install_nb(pub, p, d, contest, card_pts, rem, draws, buildover, jitter, rng):
    """(value, detail) of the best install of seat p in district d (the
    options of rules.installs_nb, in its order, with its rule kernels),
    compared with jitter_nb's noise added (the value returned is the install's own)."""
    bv = -1e18
    bj = -1e18
    bd = -1
    NB = pub[TAB + K_N_BLOCKS]
    bpd = pub[TAB + K_BPD]
    ff = pub[TAB + K_FIRST_FLOORS]
    curved = district_roof_count_nb(pub, d, 1)
    pointed = district_roof_count_nb(pub, d, 2)
    for i in range(pub[PLAYERS + p * N_PROW + P_NBUILD]):
        r = pub[PLR + p * N_PLROW + i]
        if r == 0:
            continue
        h = pub[PLH + p * N_PLROW + i]
        same = curved if r == 1 else pointed
        for k in range(d * bpd, d * bpd + bpd):
            vac, own = install_spot_nb(pub, k, p)
            if not (vac or own) or not fits_block_nb(pub, k, h, r, same, ff, bpd):
                continue
            g = install_gain_nb(pub, p, h, k, contest, card_pts, rem, draws)
            if vac:
                gj = g + jitter_nb(rng, jitter)
                if gj > bj:
                    bj = gj
                    bv = g
                    bd = (i * NB + k) * 2
            if own:
                g2 = g - buildover
                g2j = g2 + jitter_nb(rng, jitter)
                if g2j > bj:
                    bj = g2j
                    bv = g2
                    bd = (i * NB + k) * 2 + 1
    return bv, bd


@typed_kernel((PUB, PUB, I64, I64, I64))
def cheapest_card_nb(pub, hand, nh, t, d):
    """The lowest-value card of type t (t < 0: any type; and district d for Contracts) in hand,
    the first in hand order among equals, or -1."""
    best = -1
    bv = 1 << 30
    for i in range(nh):
        c = hand[i]
        if t >= 0 and pub[TAB + K_TYPE + c] != t:
            continue
        if d >= 0 and pub[TAB + K_DIST + c] != d:
            continue
        if pub[TAB + K_VALUE + c] < bv:
            bv = pub[TAB + K_VALUE + c]
            best = c
    return best


@kernel
def bid_to_target_nb(pub, hand, nh, target):
    """A bid mask of the cheapest cards, added in ascending value until the
    sum reaches `target` (0 cards if target <= 0)."""
    m = np.int64(0)
    s = 0
    while s < target:
        best = -1
        bv = 1 << 30
        for i in range(nh):
            c = hand[i]
            if (m >> c) & 1:
                continue
            if pub[TAB + K_VALUE + c] < bv:
                bv = pub[TAB + K_VALUE + c]
                best = c
        if best < 0:
            break
        m |= np.int64(1) << np.int64(best)
        s += bv
    return m | BID_FLAG


@kernel
def _find(legal, n, a):
    for j in range(n):
        if legal[j] == a:
            return True
    return False


# ====================================================================== greedy


GW_CARD_POINTS, GW_JITTER = range(2)


@kernel
def policy_greedy_nb(pub, hand, legal, n, w, rng):
    """Best immediate points, i.e. as if the block were scored right now.

    Construction: the install (Contract card, cheapest of its district) or
    billboard that most raises its own points now, net of costs, when > 0;
    otherwise a Roof card (cheapest) when it has an incomplete building, else a
    Floor card (cheapest) when it has no incomplete building taller than 1,
    else pass. A billboard that costs a card (construction.billboard_costs_card)
    pays with the lowest-value hand card, worth its value / card_points points
    (greedy's own rate when it bids). Floors go on its tallest incomplete building below the tallest
    block height + 1, else start a new one; roofs go on the tallest incomplete
    building, with the type whose best install scores most now. Installs and
    placements: the most points now. Bids: cheapest cards until the sum
    reaches card_points x (points the item would add now at its best place;
    a Spaceport card counts 1 point). Draws: the deck whose visible top card
    is worth most (unknown top = 4). Candidates are compared with jitter_nb's
    noise (weight jitter) added: ties go to a random one."""
    p = pub[C_CUR]
    op = PLAYERS + p * N_PROW
    phase = pub[C_PHASE]
    nh = pub[op + P_NHAND]
    jit = w[GW_JITTER]
    if phase == PH_BID:
        k, v = best_item_place_nb(pub, p, pub[C_ITEM], 0.0, 1.0, 1, 1, jit, rng)
        if k < 0 or v <= 0:
            return BID_FLAG
        return bid_to_target_nb(pub, hand, nh, v * w[GW_CARD_POINTS])
    if phase == PH_PLACE:
        k, v = best_item_place_nb(pub, p, pub[C_ITEM], 0.0, 1.0, 1, 1, jit, rng)
        return (ACT_PLACE << A_SHIFT) | k
    if phase == PH_DRAW:
        bt = -1
        bv = -1.0
        for j in range(n):
            t = legal[j] & DETAIL_MASK
            top = pub[PILES + t * N_PIROW + PI_TOP]
            v = (pub[TAB + K_VALUE + top] if top >= 0 else 4) + jitter_nb(rng, jit)
            if v > bv:
                bv = v
                bt = legal[j]
        return bt
    if phase == PH_INSTALL:
        d = pub[TAB + K_DIST + pub[C_PCARD]]
        v, det = best_install_nb(pub, p, d, 0.0, 0.0, 1, 0, pub[TAB + K_BUILDOVER_COST], jit, rng)
        return (ACT_INSTALL << A_SHIFT) | det
    nb = pub[op + P_NBUILD]
    ph = PLH + p * N_PLROW
    pr = PLR + p * N_PLROW
    if phase == PH_FLOOR:
        maxh = 1
        for k in range(pub[TAB + K_N_BLOCKS]):
            ob = BOARD + k * N_BOARD
            if pub[ob + B_ROOF] != 0 and pub[ob + B_TOP] + 1 > maxh:
                maxh = pub[ob + B_TOP] + 1
        bi = -1
        bh = 0.0
        for i in range(nb):
            if pub[pr + i] == 0 and pub[ph + i] < maxh:
                h = pub[ph + i] + jitter_nb(rng, jit)
                if h > bh:
                    bh = h
                    bi = i
        if bi < 0:
            bi = nb
        return (ACT_FLOOR_TARGET << A_SHIFT) | bi
    if phase == PH_ROOF:
        bi = -1
        bh = 0.0
        for i in range(nb):
            if pub[pr + i] == 0:
                h = pub[ph + i] + jitter_nb(rng, jit)
                if h > bh:
                    bh = h
                    bi = i
        br = 1
        bv = -1.0
        for r in range(1, 3):
            if pub[op + P_ROOFS + r] > 0:
                v = potential_nb(pub, p, pub[ph + bi], r, 1) + jitter_nb(rng, jit)
                if v > bv or (v == bv and pub[op + P_ROOFS + r] > pub[op + P_ROOFS + br]):
                    bv = v
                    br = r
        return (ACT_ROOF_TARGET << A_SHIFT) | (bi * 2 + br - 1)
    # PH_MAIN: the best install or billboard worth more than 0 (the noise orders the
    # candidates, never lifts one over 0)
    best_a = ACT_PASS << A_SHIFT
    best_v = 0.0
    done = 0
    bb_card = cheapest_card_nb(pub, hand, nh, -1, -1) if pub[TAB + K_BB_CARD] != 0 else -1
    for j in range(n):
        kind = legal[j] >> A_SHIFT
        det = legal[j] & DETAIL_MASK
        if kind == ACT_CONTRACT:
            d = pub[TAB + K_DIST + det]
            if (done >> d) & 1:
                continue
            done |= 1 << d
            v, _ = best_install_nb(pub, p, d, 0.0, 0.0, 1, 0, pub[TAB + K_BUILDOVER_COST], jit, rng)
            vj = v + jitter_nb(rng, jit)
            if v > 0 and vj > best_v:
                best_v = vj
                best_a = (ACT_CONTRACT << A_SHIFT) | cheapest_card_nb(pub, hand, nh, CONTRACT, d)
        elif kind == ACT_BILLBOARD:
            c = billboard_card_nb(legal[j])
            if c != bb_card:  # one card per block: the cheapest
                continue
            own0, opp0, own1, opp1 = block_eval_pair_nb(pub, det & BB_BLOCK_MASK, p, 0, 1, 0)
            v = own1 - own0 - pub[TAB + K_BILLBOARD_COST]
            if c >= 0 and w[GW_CARD_POINTS] > 0:
                v -= pub[TAB + K_VALUE + c] / w[GW_CARD_POINTS]
            vj = v + jitter_nb(rng, jit)
            if v > 0 and vj > best_v:
                best_v = vj
                best_a = legal[j]
    if best_v > 0:
        return best_a
    c = cheapest_card_nb(pub, hand, nh, ROOF, -1)
    if c >= 0 and _find(legal, n, (ACT_ROOF << A_SHIFT) | c):
        return (ACT_ROOF << A_SHIFT) | c
    c = cheapest_card_nb(pub, hand, nh, FLOOR, -1)
    if c >= 0 and _find(legal, n, (ACT_FLOOR << A_SHIFT) | c):
        tall_incomplete = False
        for i in range(nb):
            if pub[pr + i] == 0 and pub[ph + i] > 1:
                tall_incomplete = True
        if not tall_incomplete:
            return (ACT_FLOOR << A_SHIFT) | c
    return ACT_PASS << A_SHIFT


# ====================================================================== heuristic

W_GREEN, W_SPACEPORT, W_MEGAMALL, W_BID, W_HEIGHT, W_BILLBOARD, W_HOLD, W_CONTEST, W_JITTER, W_BB_CARD = range(10)


@inline_kernel
def heuristic_item_value_nb(pub, p, w, rng):
    """(best block, value) of the item on auction for seat p, as the heuristic
    values it (weights w, jitter drawn from rng): the best placement's gain over
    the scorings left, x value_green / value_megamall; block -1 if it has no
    place. (The search player's bid candidates scale their targets by it too.)"""
    rem = pub[TAB + K_ROUNDS] - pub[C_ROUND]
    item = pub[C_ITEM]
    k, v = best_item_place_nb(pub, p, item, w[W_CONTEST], w[W_SPACEPORT], rem, rem - 1, w[W_JITTER], rng)
    if item == GREENSPACE:
        v *= w[W_GREEN]
    elif item == MEGAMALL:
        v *= w[W_MEGAMALL]
    return k, v


@inline_kernel
def heuristic_bid_nb(pub, hand, nh, k, v, w):
    """The heuristic's sealed bid (weights w) for the seat to move, whose hand row is `hand` (nh
    cards), given its value of the item (k, v) = heuristic_item_value_nb: the cheapest cards up to
    bid_fraction x the value, everything in the last round, nothing for an item with no place or
    no worth. Kept apart from the valuing so that the search's bid candidates (search.bid_mask_nb),
    which value the item once for several rules, bid as the heuristic does."""
    if k < 0 or v <= 0:
        return BID_FLAG
    target = v * w[W_BID]
    if pub[TAB + K_ROUNDS] - pub[C_ROUND] == 1:
        target = 1e9  # cards are worth little after the last auctions
    return bid_to_target_nb(pub, hand, nh, target)


NO_MEMO = np.empty(0)   # policy_heuristic_nb's memo argument: none (heuristic_move_nb makes its own)


@allocating_kernel
def policy_heuristic_nb(pub, hand, legal, n, w, rng):
    """heuristic_move_nb with a memo of its own (the scripted heuristic's move)."""
    return heuristic_move_nb(pub, hand, legal, n, w, rng, writable_view(NO_MEMO), np.int64(0))


@allocating_kernel
def heuristic_move_nb(pub, hand, legal, n, w, rng, memo, changed):
    """Values moves by the points they promise over the scorings left.

    Auctions: the item's value is its best placement's gain over the
    remaining scorings (own gain minus contest x opponents' gain), weighted by
    value_green / value_megamall; a Spaceport is worth its extra cards x
    value_spaceport per remaining Draw Phase. It bids the cheapest cards up to
    bid_fraction x that value (in card value), everything it holds in the last
    round when the item is worth having.
    Construction: an install is worth its block gain (own First/Second points
    with greenspaces, billboards and a Megamall, the Spaceport cards, plus
    contest x the points it takes from opponents) x scorings left; a billboard
    billboard_value x its gain to itself net of its cost (when it costs a card,
    construction.billboard_costs_card, it pays with the lowest-value hand card, which costs
    billboard_card_points on top of its bidding power: the construction turn it will not pay for); a Roof card the best
    promise of the roofed building (x build_height_bias); a Floor card
    build_height_bias when it has no complete building with a use. Every
    card played costs hold_card_value x its value (the bidding power lost; none
    in the last round once the auctions matter less). The best positive value
    is played, else it passes. Candidates are compared with jitter_nb's noise
    (weight jitter) added: ties go to a random one.

    The potentials it reads (features.potential_nb) go through `memo`
    (features.potential_lookup_nb, with `changed`): empty, it makes one for
    the decision; the expert passes the memo its candidates' features share
    (features.sample_memo_changed_nb), so a potential is valued once for both."""
    p = pub[C_CUR]
    op = PLAYERS + p * N_PROW
    phase = pub[C_PHASE]
    nh = pub[op + P_NHAND]
    rem = pub[TAB + K_ROUNDS] - pub[C_ROUND]  # scorings left including this round's
    draws = rem - 1                           # draw phases left
    last = rem == 1
    contest = w[W_CONTEST]
    card_pts = w[W_SPACEPORT]
    hold = w[W_HOLD] * (0.3 if last else 1.0)
    jit = w[W_JITTER]
    if phase == PH_BID or phase == PH_PLACE:
        k, v = heuristic_item_value_nb(pub, p, w, rng)
        if phase == PH_PLACE:
            return (ACT_PLACE << A_SHIFT) | k
        return heuristic_bid_nb(pub, hand, nh, k, v, w)
    if phase == PH_DRAW:
        bt = legal[0]
        bv = -1e18
        for j in range(n):
            t = legal[j] & DETAIL_MASK
            top = pub[PILES + t * N_PIROW + PI_TOP]
            val = pub[TAB + K_VALUE + top] if top >= 0 else 4
            v = hold * val
            have = 0
            for i in range(nh):
                if pub[TAB + K_TYPE + hand[i]] == t:
                    have += 1
            if t == CONTRACT:
                v += 1.0 if have < 3 else 0.2
            elif t == ROOF:
                v += 0.6 if have == 0 else 0.0
            else:
                v += 0.5 if have == 0 else 0.0
            v += jitter_nb(rng, jit)
            if v > bv:
                bv = v
                bt = legal[j]
        return bt
    bo_cost = pub[TAB + K_BUILDOVER_COST]
    if phase == PH_INSTALL:
        d = pub[TAB + K_DIST + pub[C_PCARD]]
        v, det = best_install_nb(pub, p, d, contest, card_pts, rem, draws, bo_cost, jit, rng)
        return (ACT_INSTALL << A_SHIFT) | det
    nb = pub[op + P_NBUILD]
    ph = PLH + p * N_PLROW
    pr = PLR + p * N_PLROW
    if memo.shape[0] == 0:
        memo = np.full(N_POT, -1.0)   # potentials already valued this decision
    if phase == PH_FLOOR:
        # grow the incomplete building with the best promise once roofed (worth more than
        # 0: the noise orders the candidates, never lifts one over 0)
        bi = nb
        bv = 0.0
        for i in range(nb):
            if pub[pr + i] != 0:
                continue
            h = pub[ph + i] + 1
            v = 0.0
            for r in range(1, 3):
                pv = potential_lookup_nb(pub, p, h, r, rem, memo, changed)
                if pv > v:
                    v = pv
            v += w[W_HEIGHT] * 0.1 * h
            vj = v + jitter_nb(rng, jit)
            if v > 0 and vj > bv:
                bv = vj
                bi = i
        return (ACT_FLOOR_TARGET << A_SHIFT) | bi
    if phase == PH_ROOF:
        ba = legal[0]
        bv = -1e18
        for j in range(n):
            det = legal[j] & DETAIL_MASK
            i = det >> 1
            r = (det & 1) + 1
            v = potential_lookup_nb(pub, p, pub[ph + i], r, rem, memo, changed) + 0.01 * pub[ph + i] + jitter_nb(rng, jit)
            if v > bv:
                bv = v
                ba = legal[j]
        return ba
    # PH_MAIN: the best card or billboard worth more than 0 (the noise orders the candidates,
    # never lifts one over 0)
    best_a = ACT_PASS << A_SHIFT
    best_v = 0.0
    done = 0
    has_roof_card = False
    has_floor_card = False
    bb_card = cheapest_card_nb(pub, hand, nh, -1, -1) if pub[TAB + K_BB_CARD] != 0 else -1
    for j in range(n):
        kind = legal[j] >> A_SHIFT
        det = legal[j] & DETAIL_MASK
        if kind == ACT_CONTRACT:
            d = pub[TAB + K_DIST + det]
            if (done >> d) & 1:
                continue
            done |= 1 << d
            c = cheapest_card_nb(pub, hand, nh, CONTRACT, d)
            v, _ = best_install_nb(pub, p, d, contest, card_pts, rem, draws, bo_cost, jit, rng)
            v -= hold * pub[TAB + K_VALUE + c]
            vj = v + jitter_nb(rng, jit)
            if v > 0 and vj > best_v:
                best_v = vj
                best_a = (ACT_CONTRACT << A_SHIFT) | c
        elif kind == ACT_BILLBOARD:
            c = billboard_card_nb(legal[j])
            if c != bb_card:  # one card per block: the cheapest
                continue
            own0, opp0, own1, opp1 = block_eval_pair_nb(pub, det & BB_BLOCK_MASK, p, 0, 1, 0)
            v = w[W_BILLBOARD] * ((own1 - own0) - contest * (opp1 - opp0)) * rem - pub[TAB + K_BILLBOARD_COST]
            if c >= 0:
                v -= hold * pub[TAB + K_VALUE + c] + w[W_BB_CARD]
            vj = v + jitter_nb(rng, jit)
            if v > 0 and vj > best_v:
                best_v = vj
                best_a = legal[j]
        elif kind == ACT_ROOF:
            has_roof_card = True
        elif kind == ACT_FLOOR:
            has_floor_card = True
    if has_roof_card:
        c = cheapest_card_nb(pub, hand, nh, ROOF, -1)
        pv = 0.0
        for i in range(nb):
            if pub[pr + i] == 0:
                for r in range(1, 3):
                    if pub[op + P_ROOFS + r] > 0:
                        v = potential_lookup_nb(pub, p, pub[ph + i], r, rem, memo, changed)
                        if v > pv:
                            pv = v
        v = 0.5 * w[W_HEIGHT] * pv - hold * pub[TAB + K_VALUE + c]
        vj = v + jitter_nb(rng, jit)
        if v > 0 and vj > best_v:
            best_v = vj
            best_a = (ACT_ROOF << A_SHIFT) | c
    if has_floor_card and rem >= 2:
        useful = 0
        for i in range(nb):
            r = pub[pr + i]
            if r != 0 and potential_lookup_nb(pub, p, pub[ph + i], r, rem, memo, changed) > 0:
                useful += 1
        if useful < 2:
            c = cheapest_card_nb(pub, hand, nh, FLOOR, -1)
            v = w[W_HEIGHT] * (2 - useful) - hold * pub[TAB + K_VALUE + c]
            vj = v + jitter_nb(rng, jit)
            if v > 0 and vj > best_v:
                best_v = vj
                best_a = (ACT_FLOOR << A_SHIFT) | c
    return best_a


# ====================================================================== dispatch


@ir_inline_kernel
def choose_action_nb(policy_id, pub, hand, legal, n, w, rng):
    """The action of policy `policy_id` (RANDOM, GREEDY, HEURISTIC) for the
    seat to act, pub[C_CUR]; hand is that seat's hand row. (SEARCH is not
    dispatched here: it needs the whole state; the batch loop and the step
    API call search.py for it.) numba copies this dispatch into its callers
    (ir_inline_kernel): a kernel of its own would add one more level of
    linking every policy's code in a cold compile."""
    if policy_id == GREEDY:
        return policy_greedy_nb(pub, hand, legal, n, w, rng)
    if policy_id == HEURISTIC:
        return policy_heuristic_nb(pub, hand, legal, n, w, rng)
    return policy_random_nb(pub, hand, legal, n, w, rng)


# The scripted players' `jitter` weight: every candidate's value gets a uniform random noise in
# [0, jitter) points, drawn from the seat's own policy stream (jitter_nb), so equal candidates are
# broken at random and candidates closer than `jitter` sometimes swap: identical scripts no longer
# play identical games. The default is half the heuristic's smallest deliberate preference (0.01
# point a floor when it picks the building to roof), so no deliberate order is ever reversed.
# jitter=0 draws nothing and plays exactly as before the weight existed.
JITTER = 0.005
# The heuristic's price of the card a billboard costs (construction.billboard_costs_card), on top of
# hold_card_value x its value: a card is also a construction turn it will not pay for. Chosen by a
# sweep of 2000 games each, heuristic(billboard_card_points=X) against heuristic(billboard_value=0)
# (which never places a billboard), --set construction.billboard_costs_card=true --seed 1, its win rate
# at 2 players / at 4 players (one against three): X=0 29.3% / 14.8%, 1 40.1% / 18.4%, 2 46.7% / 22.4%,
# 2.5 50.5% / 23.0%, 3 50.8% / 23.5% (no billboard at all). With no card (the default rule) the weight
# is never read: billboards are then worth having (the heuristic beats the one that never places one,
# 62.5% at 2 players).
BB_CARD_POINTS = 2.5

POLICIES = {
    "random": PolicyInfo("random", RANDOM, "Uniform action kind first, then uniform details (as the C "
                         "reference player); bids: each card with probability 1/2; draws: a uniform deck.", {}),
    "greedy": PolicyInfo("greedy", GREEDY, "Best immediate points (as if scored now); bids the cheapest "
                         "cards up to card_points x the item's immediate points.",
                         {"card_points": 2.0,     # card value bid per point the item adds now
                          "jitter": JITTER}),     # tie-break noise (points), see JITTER
    "heuristic": PolicyInfo(
        "heuristic", HEURISTIC,
        "Values installs, billboards, roofs and items by the points they promise over the scorings left; "
        "bids a fraction of that, all-in in the last round.",
        {
            "value_green": 1.0,        # multiplier on a Greenspace's value at auction
            "value_spaceport": 0.6,    # points per extra card (Spaceport draws)
            "value_megamall": 1.0,     # multiplier on a Megamall's value at auction
            "bid_fraction": 1.5,       # card value bid per point of item value
            "build_height_bias": 1.0,  # value of growing/roofing buildings
            "billboard_value": 1.0,    # multiplier on a billboard's block gain
            "hold_card_value": 0.15,   # points per card value kept for bidding
            "contest": 0.5,            # weight of opponents' points taken/given
            "jitter": JITTER,          # tie-break noise (points), see JITTER
            # points a card paid for a billboard is worth beyond its bidding power (only with
            # construction.billboard_costs_card; see BB_CARD_POINTS)
            "billboard_card_points": BB_CARD_POINTS,
        },
    ),
}
# the learned expert (engines.core.expert; its model is expert.toml beside this file, written by
# `skyline-lab train skyline_3000`): it reads the whole state, so search.decide_nb dispatches it,
# never choose_action_nb. Declared before the search, which may roll it out.
POLICIES["expert"] = expert_policy(EXPERT, load_model(Path(__file__).parent / EXPERT_FILE, FEATURES))
# the search player (engines.core.search; Skyline 3000's side in search.py, dispatched by the
# batch loop and the step API, never by choose_action_nb)
POLICIES["search"] = search_policy(SEARCH, dict(POLICIES))
# named weight presets (presets.toml beside this file; `skyline-lab tune` writes them), which the
# search may roll out too (rollout=heuristic_tuned)
add_presets(POLICIES, Path(__file__).parent / PRESETS_FILE)
