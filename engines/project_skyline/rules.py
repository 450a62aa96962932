"""Project Skyline rules as kernels over the flat state vector (state.py) and the rule vector
`cfg` (params.py). The step API and the batch loop (engines.core.adapter, over the kernels
__init__.py's ENGINE names) and the policies call these same kernels; no rule exists twice.

A turn is split into small decisions (state.PH_*), each with its own kernel:

    I    PH_BUY      skip, buy a Basic pile, or upgrade hand card h into market slot j
    II   PH_SYMBOL   the symbol of this turn
         PH_PLAY     play a hand card with that symbol (or any, after U-13), or stop;
                     its effects resolve in order, asking on the way:
         PH_TARGET   the space of each floor (build: one floor a decision; stack: all on one)
         PH_TAKE     a Basic pile to take from (U-16; Tokyo monument)
         PH_SELL     a hand or discard card to sell (U-14), or none
    III  monuments   automatic (Tokyo "take" bonus: PH_TAKE)
    IV   areas       automatic; 2 players: PH_SITE moves the scored area's tile
    V    PH_DISCARD  discard a hand card, or draw (to the hand size, reshuffling)
    setup (2 players) PH_SITE: the extra construction-site tiles, start player first

`advance_nb` runs the automatic steps from the continuation `M_CONT` up to the next decision.

Readings of the rulebook (documented choices):
- Cards of the chosen symbol are played one at a time, each resolved before the next is
  chosen; cards gained during the turn (buy, U-16, U-17) may be played if they carry the
  symbol, as the glossary allows.
- Area scoring, a tie for the most top floors: variant key scoring.area_tie (default
  "second_stays": the highest count strictly below the first place's count takes half, rounded
  up; "no_second": a tie for first leaves no second place).
- A draw effect (U-17) meeting an empty draw pile shuffles the discard pile in as step V does
  (variant key turn.draw_reshuffle; false: it draws what the draw pile holds).
- Several areas completed in one turn score in area order (the order changes nothing but the
  2-player tile moves, which the scorer chooses after each).
- An area is complete when its last free space is built: restricted spaces (2-3 players) are
  not free (variant key scoring.complete_at; "every_space": only when every space is built, so
  an area holding a restricted space never scores).
- U-17's "furthest behind (alone or together with another person)" includes any tie for the
  least money (variant key turn.behind_ties; "one_other": alone or tied with exactly one other;
  "alone": no tie).
- Final money never goes below 0 (Money Track). Ties: most cards (hand, draw, discard).
"""
from __future__ import annotations

import numpy as np

from engines.core.harness import seed_chance_nb
from engines.core.kernel import allocating_kernel, inline_kernel, kernel
from engines.core.rng import shuffle
from engines.project_skyline.params import (
    BEHIND_ALONE, BEHIND_ONE_OTHER, BONUS_MONEY, BONUS_TAKE, BONUS_UPGRADE, END_TOWERS, K_AREA_FREE, K_AREA_N, K_AREA_SP, K_ASCORE,
    K_BASIC_COPIES, K_BASIC_TYPE, K_BEHIND_TIES, K_CARD_EFF, K_CARD_PRICE, K_CARD_SYM, K_CARD_VALUE, K_COSTS, K_DRAW_RESHUFFLE, K_END_KIND,
    K_END_MONEY, K_ETAB, K_AREA_TIE, K_EXTRA_ROUND, K_HAND_SIZE, K_LAND_SP, K_MON_AMT, K_MON_KIND, K_MON_NN, K_MON_REQ,
    K_MON_RULE, K_MON_SP, K_N_AREAS, K_N_COSTS, K_N_LAND, K_N_MON, K_N_PLAYERS, K_N_SP, K_N_START, K_N_TYPES,
    K_N_UPG, K_ROUND_CAP, K_SITES, K_SITE_AREA, K_SITE_TILES, K_SP_AREA, K_SP_BMONEY, K_SP_BUPG, K_SP_NB,
    K_SP_NN, K_START, K_TG_N, K_TG_SP, K_TOWER_MONEY, K_UPG, MAX_AREA_SP, MAX_EFF, MAX_MON_NB, MAX_NB, MAX_SP,
    MAX_UPG, MON_CHAIN, N_COLOURS, TIE_NO_SECOND, OP_BUILD, OP_DRAW, OP_EXTRA, OP_MONEY, OP_SELL, OP_STACK, OP_TAKE,
    TG_BUILDING,
)
from engines.project_skyline.state import (
    A_BUY, A_DISC, A_DONE, A_PLAY, A_SELL_DISC, A_SELL_HAND, A_SELL_SKIP, A_SITE, A_SKIP, A_SPACE, A_STOP,
    A_SYM, A_TAKE, A_UPG, B_A_FLOORS, B_A_FREE, B_A_SCORED, B_A_SITE, B_BTAKEN, B_COUNTS, B_H, B_LOHI, B_QUEUE,
    B_TOP, C_AREAS, C_BUY, C_DISCARD, C_EFFECTS, C_END, C_MON, C_PLAY, C_SETUP, C_SYMBOL, END_FLOOR, END_MONEY,
    END_STALLED, EV0, EV_BOUGHT, EV_MAX, EV_PLAYED, EV_TAKEN, EV_TRASHED, EV_UPGRADED, FLOORS, MAX_HAND,
    MAX_HEIGHT, MAX_PILE, MK_BASIC, MK_REMOVED, MK_UMK, MK_UPG, MK_UPG_N, M_AREAS_PEND, M_CONT, M_CUR,
    M_DECISIONS, M_DREW, M_EFF, M_ENDING, M_EVN, M_EXTRA, M_E_FLOOR, M_E_MONEY, M_MON_I, M_NPLAYERS, M_PEND_ARG,
    M_PEND_N, M_PEND_OP, M_PHASE, M_PLAYER, M_ROUND, M_SITE_LEFT, M_SYMBOL, M_TURN, PB, PBASE, PH_BUY,
    PH_DISCARD, PH_OVER, PH_PLAY, PH_SELL, PH_SITE, PH_SYMBOL, PH_TAKE, PH_TARGET, P_BOUGHT, P_BUILT, P_DISC,
    P_DISC_N, P_DRAW, P_DRAW_N, P_FINAL_CARDS, P_FINAL_END, P_FLOORS, P_FORFEIT, P_HAND, P_HAND_N, P_MONEY,
    P_PA, P_PLAYED, P_SOLD, P_SPENT_BUY, P_SPENT_UPG, P_SRC_AREA, P_SRC_BONUS, P_SRC_CARDS, P_SRC_MON,
    P_SRC_SELL, P_TAKEN, P_UPGRADES, P_UPOS,
)


@inline_kernel
def pb_nb(p):
    return PBASE + p * PB


# ---------------------------------------------------------------- small shared rules

@inline_kernel
def event_nb(d, card, kind):
    n = d[M_EVN]
    if n < EV_MAX:
        d[EV0 + 2 * n] = card
        d[EV0 + 2 * n + 1] = kind
        d[M_EVN] = n + 1


@inline_kernel
def gain_nb(d, cfg, p, amount, src):
    """Player p receives money from source field `src` (P_SRC_*); reaching the end money
    starts the end: finish this round, then (extra_round) one more."""
    b = pb_nb(p)
    d[b + P_MONEY] += amount
    d[b + src] += amount
    if d[b + P_MONEY] >= cfg[K_END_MONEY] and d[M_E_MONEY] < 0:
        d[M_E_MONEY] = d[M_ROUND] + (1 if cfg[K_EXTRA_ROUND] == 1 else 0)


@inline_kernel
def hand_remove_nb(d, b, h):
    """Remove hand card h (later cards move up one); returns its type."""
    t = d[b + P_HAND + h]
    n = d[b + P_HAND_N]
    for i in range(h, n - 1):
        d[b + P_HAND + i] = d[b + P_HAND + i + 1]
    d[b + P_HAND_N] = n - 1
    return t


@inline_kernel
def hand_add_nb(d, b, t):
    n = d[b + P_HAND_N]
    if n < MAX_HAND:
        d[b + P_HAND + n] = t
        d[b + P_HAND_N] = n + 1
    else:  # cannot happen with the shipped cards; keep the card rather than lose it
        d[b + P_DISC + d[b + P_DISC_N]] = t
        d[b + P_DISC_N] += 1


@inline_kernel
def discard_add_nb(d, b, t):
    d[b + P_DISC + d[b + P_DISC_N]] = t
    d[b + P_DISC_N] += 1


@kernel
def draw_cards_nb(d, rng, p, k):
    """Player p draws k cards; an empty draw pile is refilled by shuffling the discard pile
    (V. Draw). Returns the cards drawn."""
    b = pb_nb(p)
    got = 0
    for _ in range(k):
        if d[b + P_DRAW_N] == 0:
            n = d[b + P_DISC_N]
            if n == 0:
                break
            for i in range(n):
                d[b + P_DRAW + i] = d[b + P_DISC + i]
            d[b + P_DISC_N] = 0
            d[b + P_DRAW_N] = n
            shuffle(rng, d[b + P_DRAW:b + P_DRAW + n], n)
        n = d[b + P_DRAW_N] - 1
        hand_add_nb(d, b, d[b + P_DRAW + n])
        d[b + P_DRAW_N] = n
        got += 1
    return got


@inline_kernel
def umk_refill_nb(d, gap):
    """Refill the Upgrade market: cards left of the gap slide one right, a new card from the
    draw pile goes to the far left (slot 0; -1 if the pile is empty)."""
    for j in range(gap, 0, -1):
        d[MK_UMK + j] = d[MK_UMK + j - 1]
    n = d[MK_UPG_N]
    if n > 0:
        d[MK_UMK] = d[MK_UPG + n - 1]
        d[MK_UPG_N] = n - 1
    else:
        d[MK_UMK] = -1


@inline_kernel
def basic_left_nb(d):
    k = 0
    for c in range(N_COLOURS):
        k += d[MK_BASIC + c]
    return k


@inline_kernel
def upgrade_cost_nb(d, cfg, p):
    """Cost of player p's next upgrade, -1 when the marker is at the top."""
    u = d[pb_nb(p) + P_UPOS]
    if u >= cfg[K_N_COSTS]:
        return -1
    return cfg[K_COSTS + u]


@inline_kernel
def upgrade_match_nb(hand_sym, market_sym):
    """THE upgrade rule's symbol match: the new Upgrade card shows at least one symbol of the
    removed hand card (market_sym 0 for an empty slot). With the track cost (upgrade_cost_nb,
    paid from the player's money) it decides legality (legal_nb), the buy step's skip
    (buy_options_nb) and what the policies may choose."""
    return (hand_sym & market_sym) != 0


@inline_kernel
def target_room_nb(h, kind, floors_left, site_ok):
    """THE build rule, dynamic half: a floor may go on a space of height h from the effect's
    candidate list (cfg K_TG_SP holds, per target kind, the spaces meeting the card's place
    requirement and not restricted at this player count): under 7 floors, a floor left in the
    supply, U-10 only on a building, and with the 2-player sites a new building only in an area
    holding a construction-site tile (site_ok). Scalars only: numba calls with array arguments
    cost ~20 ns each inside loops."""
    if h >= MAX_HEIGHT or floors_left <= 0:
        return False
    if h == 0 and (kind == TG_BUILDING or not site_ok):
        return False
    return True


@inline_kernel
def any_target_nb(d, cfg, p, kind):
    fl = d[pb_nb(p) + P_FLOORS]
    base = K_TG_SP + kind * MAX_SP
    sites = cfg[K_SITES] == 1
    for i in range(cfg[K_TG_N + kind]):
        s = cfg[base + i]
        if target_room_nb(d[B_H + s], kind, fl, (not sites) or d[B_A_SITE + cfg[K_SP_AREA + s]] == 1):
            return True
    return False


@inline_kernel
def playable_nb(sym, symbol, extra):
    """A card with symbol bits `sym` may be played now: it shows the chosen symbol, or an extra
    play (U-13) is left."""
    return extra > 0 or ((sym >> symbol) & 1) == 1


@inline_kernel
def any_playable_nb(d, cfg, p):
    b = pb_nb(p)
    for h in range(d[b + P_HAND_N]):
        if playable_nb(cfg[K_CARD_SYM + d[b + P_HAND + h]], d[M_SYMBOL], d[M_EXTRA]):
            return True
    return False


@inline_kernel
def poorest_nb(d, cfg, p):
    """Player p is furthest behind on the money track for U-17 (turn.behind_ties): the least
    money alone, or tied with any number of players ("any_tie"), with exactly one other
    ("one_other"), or with nobody ("alone")."""
    m = d[pb_nb(p) + P_MONEY]
    tied = 0
    for q in range(d[M_NPLAYERS]):
        mq = d[pb_nb(q) + P_MONEY]
        if mq < m:
            return False
        if q != p and mq == m:
            tied += 1
    rule = cfg[K_BEHIND_TIES]
    if rule == BEHIND_ALONE:
        return tied == 0
    if rule == BEHIND_ONE_OTHER:
        return tied <= 1
    return True


@inline_kernel
def area_value_nb(cfg, floors):
    """Money an area is worth with this many floors (the map's scoring table)."""
    for i in range(4):
        need = cfg[K_ASCORE + 2 * i]
        if need > 0 and floors >= need:
            return cfg[K_ASCORE + 2 * i + 1]
    return 0


@kernel
def area_tops_nb(d, cfg, a):
    """d[B_COUNTS + q] = top floors of seat q in area a."""
    for q in range(d[M_NPLAYERS]):
        d[B_COUNTS + q] = 0
    for i in range(cfg[K_AREA_N + a]):
        t = d[B_TOP + cfg[K_AREA_SP + a * MAX_AREA_SP + i]]
        if t >= 0:
            d[B_COUNTS + t] += 1


@inline_kernel
def area_places_nb(d, cfg, P):
    """(first, second) place counts from the top counts d[B_COUNTS + seat]: the most top floors,
    and the highest count strictly below it (0 if none). With scoring.area_tie = "no_second", a
    tie for the most top floors leaves no second place (second 0)."""
    first = 0
    tied = 0
    for r in range(P):
        if d[B_COUNTS + r] > first:
            first = d[B_COUNTS + r]
            tied = 1
        elif d[B_COUNTS + r] == first and first > 0:
            tied += 1
    second = 0
    if tied > 1 and cfg[K_AREA_TIE] == TIE_NO_SECOND:
        return first, second
    for r in range(P):
        cr = d[B_COUNTS + r]
        if cr < first and cr > second:
            second = cr
    return first, second


@inline_kernel
def area_payout_nb(value, c, first, second):
    """THE area-scoring rule: what a seat with c top floors receives from an area worth `value`:
    the most top floors get the full value (ties: each), the next lower count half, rounded up
    (ties: each); nothing without a top floor (so no second place when one seat is alone)."""
    if c == 0:
        return 0
    if c == first:
        return value
    if c == second:
        return (value + 1) // 2
    return 0


@kernel
def chain_reach_nb(d, cfg, p):
    """NYC: the spaces whose top floor is p's and that connect to the landmark through p's top
    floors (ferries count as adjacency; monuments are never part of a chain), as two 64-bit
    masks d[B_LOHI] (spaces 0..63) and d[B_LOHI + 1] (64..)."""
    lo = np.int64(0)
    hi = np.int64(0)
    n = 0
    for i in range(cfg[K_N_LAND]):
        s = cfg[K_LAND_SP + i]
        if d[B_TOP + s] == p:
            d[B_QUEUE + n] = s
            n += 1
            if s < 64:
                lo |= np.int64(1) << s
            else:
                hi |= np.int64(1) << (s - 64)
    i = 0
    while i < n:
        s = d[B_QUEUE + i]
        i += 1
        for k in range(cfg[K_SP_NN + s]):
            t = cfg[K_SP_NB + s * MAX_NB + k]
            if d[B_TOP + t] != p:
                continue
            if t < 64:
                bit = np.int64(1) << t
                if lo & bit:
                    continue
                lo |= bit
            else:
                bit = np.int64(1) << (t - 64)
                if hi & bit:
                    continue
                hi |= bit
            d[B_QUEUE + n] = t
            n += 1
    d[B_LOHI] = lo
    d[B_LOHI + 1] = hi


@inline_kernel
def in_mask_nb(lo, hi, s):
    if s < 64:
        return ((lo >> s) & 1) == 1
    return ((hi >> (s - 64)) & 1) == 1


@kernel
def monuments_held_nb(d, cfg, p):
    """THE monument rule -- bit m: p scores monument m now. NYC (chain): one of its adjacent
    spaces is in p's landmark chain (chain_reach_nb). Tokyo (count): at least `requires`
    adjacent spaces carry p's top floor."""
    chain = cfg[K_MON_RULE] == MON_CHAIN
    if chain:
        chain_reach_nb(d, cfg, p)
    lo = d[B_LOHI]
    hi = d[B_LOHI + 1]
    out = np.int64(0)
    for m in range(cfg[K_N_MON]):
        k = 0
        for i in range(cfg[K_MON_NN + m]):
            s = cfg[K_MON_SP + m * MAX_MON_NB + i]
            if chain:
                if in_mask_nb(lo, hi, s):
                    k = 1 << 20
                    break
            elif d[B_TOP + s] == p:
                k += 1
        if (chain and k > 0) or (not chain and k >= cfg[K_MON_REQ + m]):
            out |= np.int64(1) << m
    return out


@kernel
def place_floors_nb(d, cfg, p, s, k):
    """Place up to k floors of p on space s (the 7-floor cap and p's supply limit them; the
    rest is forfeited). The first floor of a building takes the space's one-time bonus and may
    complete its area (scored in step IV). Returns the floors placed."""
    b = pb_nb(p)
    room = MAX_HEIGHT - d[B_H + s]
    put = k if k < room else room
    if put > d[b + P_FLOORS]:
        put = d[b + P_FLOORS]
    d[b + P_FORFEIT] += k - put
    a = cfg[K_SP_AREA + s]
    for _ in range(put):
        if d[B_H + s] == 0:
            if d[B_BTAKEN + s] == 0:
                d[B_BTAKEN + s] = 1
                if cfg[K_SP_BMONEY + s] > 0:
                    gain_nb(d, cfg, p, cfg[K_SP_BMONEY + s], np.int64(P_SRC_BONUS))
                if cfg[K_SP_BUPG + s] > 0 and d[b + P_UPOS] > 0:
                    d[b + P_UPOS] -= 1
            d[B_A_FREE + a] -= 1
            if d[B_A_FREE + a] == 0 and d[B_A_SCORED + a] == 0:
                d[M_AREAS_PEND] |= np.int64(1) << a
        d[B_H + s] += 1
        d[B_TOP + s] = p
        d[B_A_FLOORS + a] += 1
        d[b + P_PA + a] += 1
        d[b + P_FLOORS] -= 1
        d[b + P_BUILT] += 1
    if d[b + P_FLOORS] == 0 and d[M_E_FLOOR] < 0:
        d[M_E_FLOOR] = d[M_ROUND]  # last floor placed: the game ends with this round
    return put


@kernel
def score_area_nb(d, cfg, a):
    """Step IV for area a: pay first and second place, mark it scored, refresh the Upgrade
    market (the far-right card leaves the game, the rest slide right, a new card at the left)."""
    P = d[M_NPLAYERS]
    value = area_value_nb(cfg, d[B_A_FLOORS + a])
    area_tops_nb(d, cfg, a)
    first, second = area_places_nb(d, cfg, P)
    for q in range(P):
        pay = area_payout_nb(value, d[B_COUNTS + q], first, second)
        if pay > 0:
            gain_nb(d, cfg, q, pay, np.int64(P_SRC_AREA))
    d[B_A_SCORED + a] = 1
    u = d[MK_UMK + 3]
    if u >= 0:
        d[MK_REMOVED + u] += 1
    umk_refill_nb(d, np.int64(3))


@inline_kernel
def site_target_ok_nb(d, cfg, a, setup):
    """A construction-site tile may go to area a: none lies there; when moved after a scoring,
    the area must also be completely unbuilt."""
    if d[B_A_SITE + a] == 1:
        return False
    if setup:
        return True
    return d[B_A_FLOORS + a] == 0


@inline_kernel
def any_site_target_nb(d, cfg, setup):
    for a in range(cfg[K_N_AREAS]):
        if site_target_ok_nb(d, cfg, a, setup):
            return True
    return False


@inline_kernel
def can_buy_nb(left, money, price):
    """A Basic pile with cards left, at a price the player can pay."""
    return left > 0 and money >= price


@kernel
def buy_options_nb(d, cfg, p):
    """(any Basic pile affordable, any upgrade possible)."""
    buy = False
    money = d[pb_nb(p) + P_MONEY]
    for c in range(N_COLOURS):
        if can_buy_nb(d[MK_BASIC + c], money, cfg[K_CARD_PRICE + cfg[K_BASIC_TYPE + c]]):
            buy = True
            break
    upg = False
    b = pb_nb(p)
    cost = upgrade_cost_nb(d, cfg, p)
    if cost >= 0 and d[b + P_MONEY] >= cost:
        m = 0
        for j in range(4):
            if d[MK_UMK + j] >= 0:
                m |= cfg[K_CARD_SYM + d[MK_UMK + j]]
        for h in range(d[b + P_HAND_N]):
            if upgrade_match_nb(cfg[K_CARD_SYM + d[b + P_HAND + h]], np.int64(m)):  # some slot matches
                upg = True
                break
    return buy, upg


@inline_kernel
def has_sellable_nb(d, p):
    b = pb_nb(p)
    return d[b + P_HAND_N] + d[b + P_DISC_N] > 0


# ---------------------------------------------------------------- the automatic steps

@kernel
def final_scoring_nb(d, cfg):
    """End of the game: card money values (hand, draw and discard piles) and the map's end
    condition, into P_FINAL_CARDS / P_FINAL_END."""
    P = d[M_NPLAYERS]
    for p in range(P):
        b = pb_nb(p)
        v = 0
        for i in range(d[b + P_HAND_N]):
            v += cfg[K_CARD_VALUE + d[b + P_HAND + i]]
        for i in range(d[b + P_DRAW_N]):
            v += cfg[K_CARD_VALUE + d[b + P_DRAW + i]]
        for i in range(d[b + P_DISC_N]):
            v += cfg[K_CARD_VALUE + d[b + P_DISC + i]]
        d[b + P_FINAL_CARDS] = v
        e = 0
        if cfg[K_END_KIND] == END_TOWERS:
            for s in range(cfg[K_N_SP]):
                if d[B_H + s] == MAX_HEIGHT and d[B_TOP + s] == p:
                    e += cfg[K_TOWER_MONEY]
        else:
            k = 0
            for a in range(cfg[K_N_AREAS]):
                if d[b + P_PA + a] > 0:
                    k += 1
            for i in range(4):
                need = cfg[K_ETAB + 2 * i]
                if need > 0 and k >= need:
                    e = cfg[K_ETAB + 2 * i + 1]
                    break
        d[b + P_FINAL_END] = e


@inline_kernel
def score_of_nb(d, p):
    """Final money of p: money + card values + end condition, never below 0."""
    b = pb_nb(p)
    s = d[b + P_MONEY] + d[b + P_FINAL_CARDS] + d[b + P_FINAL_END]
    return s if s > 0 else 0


@inline_kernel
def card_count_nb(d, p):
    """Cards of p in hand, draw and discard piles (the first tie-break)."""
    b = pb_nb(p)
    return d[b + P_HAND_N] + d[b + P_DRAW_N] + d[b + P_DISC_N]


@kernel
def end_turn_nb(d, rng, cfg):
    """Step V's draw, then the next player; at the end of a round, the end of the game if its
    last round is done (or the round cap is reached: stalled)."""
    p = d[M_PLAYER]
    b = pb_nb(p)
    need = cfg[K_HAND_SIZE] - d[b + P_HAND_N]
    if need > 0:
        draw_cards_nb(d, rng, p, need)
    d[M_TURN] += 1
    P = d[M_NPLAYERS]
    if p == P - 1:
        r = d[M_ROUND]
        em = d[M_E_MONEY]
        ef = d[M_E_FLOOR]
        over = 0
        # what ended the game is the trigger whose last round this is; the last floor cuts the
        # game short only when placed before the money trigger's last round (a last floor placed
        # in the round the money end already made the last one changes nothing: a money end)
        if em >= 0 and r >= em and (ef < 0 or em <= ef):
            over = END_MONEY
        elif ef >= 0 and r >= ef:
            over = END_FLOOR
        elif r + 1 >= cfg[K_ROUND_CAP]:
            over = END_STALLED
        if over != 0:
            d[M_ENDING] = over
            d[M_PHASE] = PH_OVER
            d[M_PLAYER] = -1
            final_scoring_nb(d, cfg)
            return
        d[M_ROUND] = r + 1
        p = 0
    else:
        p += 1
    d[M_PLAYER] = p
    d[M_SYMBOL] = -1
    d[M_EXTRA] = 0
    d[M_DREW] = 0
    d[M_CUR] = -1
    d[M_CONT] = C_BUY


@kernel
def resolve_effects_nb(d, rng, cfg):
    """Resolve the current card's effects from M_EFF on; returns True if a decision is needed
    (the phase is set), False once the card is done (it goes to the discard pile)."""
    p = d[M_PLAYER]
    b = pb_nb(p)
    while True:
        if d[M_PEND_N] > 0 and d[M_PEND_OP] != OP_SELL:
            if any_target_nb(d, cfg, p, d[M_PEND_ARG]):
                d[M_PHASE] = PH_TARGET
                return True
            d[b + P_FORFEIT] += d[M_PEND_N]  # carried out as far as possible
            d[M_PEND_N] = 0
        e = d[M_EFF]
        t = d[M_CUR]
        if e >= MAX_EFF:
            break
        o = K_CARD_EFF + (t * MAX_EFF + e) * 3
        op = cfg[o]
        if op == 0:
            break
        n = cfg[o + 1]
        arg = cfg[o + 2]
        d[M_EFF] = e + 1
        if op == OP_MONEY:
            gain_nb(d, cfg, p, n, np.int64(P_SRC_CARDS))
        elif op == OP_BUILD or op == OP_STACK:
            d[M_PEND_OP] = op
            d[M_PEND_N] = n
            d[M_PEND_ARG] = arg
        elif op == OP_DRAW:
            if d[M_DREW] == 0:
                d[M_DREW] = 1
                k = arg if poorest_nb(d, cfg, p) else n
                if cfg[K_DRAW_RESHUFFLE] == 0 and k > d[b + P_DRAW_N]:
                    k = d[b + P_DRAW_N]  # the draw pile only: no reshuffle in the middle of a turn
                draw_cards_nb(d, rng, p, k)
        elif op == OP_TAKE:
            if basic_left_nb(d) > 0:
                d[M_PHASE] = PH_TAKE
                return True
        elif op == OP_SELL:
            if has_sellable_nb(d, p):
                d[M_PEND_OP] = OP_SELL
                d[M_PEND_N] = n
                d[M_PHASE] = PH_SELL
                return True
        elif op == OP_EXTRA:
            d[M_EXTRA] += 1
    discard_add_nb(d, b, d[M_CUR])
    d[M_CUR] = -1
    return False


@kernel
def advance_nb(d, rng, cfg):
    """Run the automatic steps from M_CONT up to the next decision (or the end)."""
    while True:
        if d[M_PHASE] == PH_OVER:
            return
        c = d[M_CONT]
        p = d[M_PLAYER]
        b = pb_nb(p)
        if c == C_BUY:
            buy, upg = buy_options_nb(d, cfg, p)
            if buy or upg:
                d[M_PHASE] = PH_BUY
                return
            d[M_CONT] = C_SYMBOL
        elif c == C_SYMBOL:
            if d[b + P_HAND_N] > 0:
                d[M_PHASE] = PH_SYMBOL
                return
            d[M_CONT] = C_MON
            d[M_MON_I] = 0
        elif c == C_PLAY:
            if any_playable_nb(d, cfg, p):
                d[M_PHASE] = PH_PLAY
                return
            d[M_CONT] = C_MON
            d[M_MON_I] = 0
        elif c == C_EFFECTS:
            if resolve_effects_nb(d, rng, cfg):
                return
            d[M_CONT] = C_PLAY
        elif c == C_MON:
            held = monuments_held_nb(d, cfg, p)
            m = d[M_MON_I]
            while m < cfg[K_N_MON]:
                if (held >> m) & 1:
                    kind = cfg[K_MON_KIND + m]
                    if kind == BONUS_MONEY:
                        gain_nb(d, cfg, p, cfg[K_MON_AMT + m], np.int64(P_SRC_MON))
                    elif kind == BONUS_UPGRADE:
                        if d[b + P_UPOS] > 0:
                            d[b + P_UPOS] -= 1
                    elif kind == BONUS_TAKE and basic_left_nb(d) > 0:
                        d[M_MON_I] = m + 1
                        d[M_PHASE] = PH_TAKE
                        return
                m += 1
            d[M_MON_I] = m
            d[M_CONT] = C_AREAS
        elif c == C_AREAS:
            pend = d[M_AREAS_PEND]
            if pend == 0:
                d[M_CONT] = C_DISCARD
                continue
            a = 0
            while ((pend >> a) & 1) == 0:
                a += 1
            d[M_AREAS_PEND] = pend & ~(np.int64(1) << a)
            score_area_nb(d, cfg, a)
            if cfg[K_SITES] == 1 and d[B_A_SITE + a] == 1:
                d[B_A_SITE + a] = 0  # the scorer moves it to a completely unbuilt area, if any
                if any_site_target_nb(d, cfg, np.bool_(False)):
                    d[M_PHASE] = PH_SITE
                    return
        elif c == C_DISCARD:
            if d[b + P_HAND_N] > 0:
                d[M_PHASE] = PH_DISCARD
                return
            d[M_CONT] = C_END
        elif c == C_END:
            end_turn_nb(d, rng, cfg)
        elif c == C_SETUP:
            if d[M_SITE_LEFT] > 0 and any_site_target_nb(d, cfg, np.bool_(True)):
                d[M_PLAYER] = (cfg[K_SITE_TILES] - 1 - d[M_SITE_LEFT]) % d[M_NPLAYERS]
                d[M_PHASE] = PH_SITE
                return
            d[M_SITE_LEFT] = 0
            d[M_PLAYER] = 0
            d[M_CONT] = C_BUY


# ---------------------------------------------------------------- setup

@kernel
def reset_nb(d, rng, cfg, seed, game_index):
    """Set up game `game_index` of run `seed`: shuffled Upgrade deck and market, full Basic
    piles, each player's start deck shuffled and 4 cards drawn, construction sites with 2
    players; then runs to the first decision."""
    d[:] = 0
    P = cfg[K_N_PLAYERS]
    d[M_NPLAYERS] = P
    seed_chance_nb(rng, seed, game_index)
    for s in range(cfg[K_N_SP]):
        d[B_TOP + s] = -1
    for a in range(cfg[K_N_AREAS]):
        d[B_A_FREE + a] = cfg[K_AREA_FREE + a]
    for c in range(N_COLOURS):
        d[MK_BASIC + c] = cfg[K_BASIC_COPIES + c]
    n = cfg[K_N_UPG]
    for i in range(n):
        d[MK_UPG + i] = cfg[K_UPG + i]
    d[MK_UPG_N] = n
    shuffle(rng, d[MK_UPG:MK_UPG + n], n)
    for j in range(4):
        k = d[MK_UPG_N] - 1
        d[MK_UMK + j] = d[MK_UPG + k]
        d[MK_UPG_N] = k
    for p in range(P):
        b = pb_nb(p)
        d[b + P_FLOORS] = FLOORS
        k = cfg[K_N_START]
        for i in range(k):
            d[b + P_DRAW + i] = cfg[K_START + i]
        d[b + P_DRAW_N] = k
        shuffle(rng, d[b + P_DRAW:b + P_DRAW + k], k)
        draw_cards_nb(d, rng, p, cfg[K_HAND_SIZE])
    d[M_E_MONEY] = -1
    d[M_E_FLOOR] = -1
    d[M_SYMBOL] = -1
    d[M_CUR] = -1
    d[M_PLAYER] = 0
    if cfg[K_SITES] == 1:
        d[B_A_SITE + cfg[K_SITE_AREA]] = 1
        d[M_SITE_LEFT] = cfg[K_SITE_TILES] - 1
        d[M_CONT] = C_SETUP
    else:
        d[M_CONT] = C_BUY
    advance_nb(d, rng, cfg)


# ---------------------------------------------------------------- legal actions

@kernel
def legal_nb(d, cfg, out):
    """Fill out[:n] with the legal action ids of the player to move; returns n (0 when over)."""
    ph = d[M_PHASE]
    p = d[M_PLAYER]
    b = pb_nb(p)
    n = 0
    if ph == PH_BUY:
        out[0] = A_SKIP
        n = 1
        money = d[b + P_MONEY]
        for c in range(N_COLOURS):
            if can_buy_nb(d[MK_BASIC + c], money, cfg[K_CARD_PRICE + cfg[K_BASIC_TYPE + c]]):
                out[n] = A_BUY + c
                n += 1
        cost = upgrade_cost_nb(d, cfg, p)
        if cost >= 0 and d[b + P_MONEY] >= cost:
            for h in range(d[b + P_HAND_N]):
                hs = cfg[K_CARD_SYM + d[b + P_HAND + h]]
                for j in range(4):
                    u = d[MK_UMK + j]
                    if u >= 0 and upgrade_match_nb(hs, cfg[K_CARD_SYM + u]):
                        out[n] = A_UPG + h * 4 + j
                        n += 1
    elif ph == PH_SYMBOL:
        m = 0
        for h in range(d[b + P_HAND_N]):
            m |= cfg[K_CARD_SYM + d[b + P_HAND + h]]
        for c in range(N_COLOURS):
            if (m >> c) & 1:
                out[n] = A_SYM + c
                n += 1
    elif ph == PH_PLAY:
        for h in range(d[b + P_HAND_N]):
            if playable_nb(cfg[K_CARD_SYM + d[b + P_HAND + h]], d[M_SYMBOL], d[M_EXTRA]):
                out[n] = A_PLAY + h
                n += 1
        out[n] = A_STOP
        n += 1
    elif ph == PH_TARGET:
        kind = d[M_PEND_ARG]
        fl = d[b + P_FLOORS]
        base = K_TG_SP + kind * MAX_SP
        sites = cfg[K_SITES] == 1
        for i in range(cfg[K_TG_N + kind]):
            s = cfg[base + i]
            if target_room_nb(d[B_H + s], kind, fl, (not sites) or d[B_A_SITE + cfg[K_SP_AREA + s]] == 1):
                out[n] = A_SPACE + s
                n += 1
    elif ph == PH_TAKE:
        for c in range(N_COLOURS):
            if d[MK_BASIC + c] > 0:
                out[n] = A_TAKE + c
                n += 1
    elif ph == PH_SELL:
        for h in range(d[b + P_HAND_N]):
            out[n] = A_SELL_HAND + h
            n += 1
        for t in range(cfg[K_N_TYPES]):
            for i in range(d[b + P_DISC_N]):
                if d[b + P_DISC + i] == t:
                    out[n] = A_SELL_DISC + t
                    n += 1
                    break
        out[n] = A_SELL_SKIP
        n += 1
    elif ph == PH_SITE:
        setup = d[M_CONT] == C_SETUP
        for a in range(cfg[K_N_AREAS]):
            if site_target_ok_nb(d, cfg, a, setup):
                out[n] = A_SITE + a
                n += 1
    elif ph == PH_DISCARD:
        for h in range(d[b + P_HAND_N]):
            out[n] = A_DISC + h
            n += 1
        if d[b + P_HAND_N] <= cfg[K_HAND_SIZE]:
            out[n] = A_DONE
            n += 1
    return n


# ---------------------------------------------------------------- one kernel per decision kind

@kernel
def buy_nb(d, rng, cfg, a):
    """I. Buy or upgrade: skip, buy from a Basic pile, or upgrade a hand card."""
    p = d[M_PLAYER]
    b = pb_nb(p)
    if a >= A_UPG:
        h = (a - A_UPG) // 4
        j = (a - A_UPG) % 4
        cost = upgrade_cost_nb(d, cfg, p)
        d[b + P_MONEY] -= cost
        d[b + P_SPENT_UPG] += cost
        d[b + P_UPOS] += 1
        d[b + P_UPGRADES] += 1
        old = hand_remove_nb(d, b, h)
        d[MK_REMOVED + old] += 1
        event_nb(d, old, np.int64(EV_TRASHED))
        new = d[MK_UMK + j]
        hand_add_nb(d, b, new)
        event_nb(d, new, np.int64(EV_UPGRADED))
        umk_refill_nb(d, j)
    elif a >= A_BUY:
        c = a - A_BUY
        t = cfg[K_BASIC_TYPE + c]
        price = cfg[K_CARD_PRICE + t]
        d[b + P_MONEY] -= price
        d[b + P_SPENT_BUY] += price
        d[MK_BASIC + c] -= 1
        d[b + P_BOUGHT] += 1
        hand_add_nb(d, b, t)
        event_nb(d, t, np.int64(EV_BOUGHT))
    d[M_CONT] = C_SYMBOL


@kernel
def symbol_nb(d, rng, cfg, a):
    """II. The symbol of this turn."""
    d[M_SYMBOL] = a - A_SYM
    d[M_CONT] = C_PLAY


@kernel
def play_nb(d, rng, cfg, a):
    """II. Play hand card h (an off-symbol card uses an extra play) and resolve it, or stop."""
    p = d[M_PLAYER]
    b = pb_nb(p)
    if a == A_STOP:
        d[M_CONT] = C_MON
        d[M_MON_I] = 0
        return
    h = a - A_PLAY
    t = d[b + P_HAND + h]
    if ((cfg[K_CARD_SYM + t] >> d[M_SYMBOL]) & 1) == 0:
        d[M_EXTRA] -= 1
    hand_remove_nb(d, b, h)
    d[b + P_PLAYED] += 1
    event_nb(d, t, np.int64(EV_PLAYED))
    d[M_CUR] = t
    d[M_EFF] = 0
    d[M_PEND_N] = 0
    d[M_CONT] = C_EFFECTS


@kernel
def target_nb(d, rng, cfg, a):
    """II. A build target: one floor (build), or all the effect's floors on one space (stack)."""
    p = d[M_PLAYER]
    s = a - A_SPACE
    if d[M_PEND_OP] == OP_STACK:
        place_floors_nb(d, cfg, p, s, d[M_PEND_N])
        d[M_PEND_N] = 0
    else:
        place_floors_nb(d, cfg, p, s, np.int64(1))
        d[M_PEND_N] -= 1


@kernel
def take_nb(d, rng, cfg, a):
    """A free Basic market card into the hand (U-16, a Tokyo monument)."""
    p = d[M_PLAYER]
    b = pb_nb(p)
    c = a - A_TAKE
    t = cfg[K_BASIC_TYPE + c]
    d[MK_BASIC + c] -= 1
    d[b + P_TAKEN] += 1
    hand_add_nb(d, b, t)
    event_nb(d, t, np.int64(EV_TAKEN))


@kernel
def sell_nb(d, rng, cfg, a):
    """U-14: remove a hand or discard card from the game for money, or nothing."""
    p = d[M_PLAYER]
    b = pb_nb(p)
    if a != A_SELL_SKIP:
        if a >= A_SELL_DISC:
            t = a - A_SELL_DISC
            n = d[b + P_DISC_N]
            for i in range(n):
                if d[b + P_DISC + i] == t:
                    d[b + P_DISC + i] = d[b + P_DISC + n - 1]
                    d[b + P_DISC_N] = n - 1
                    break
        else:
            t = hand_remove_nb(d, b, a - A_SELL_HAND)
        d[MK_REMOVED + t] += 1
        d[b + P_SOLD] += 1
        event_nb(d, t, np.int64(EV_TRASHED))
        gain_nb(d, cfg, p, d[M_PEND_N], np.int64(P_SRC_SELL))
    d[M_PEND_N] = 0


@kernel
def site_nb(d, rng, cfg, a):
    """2 players: a construction-site tile goes to area a (setup, or moved after a scoring)."""
    d[B_A_SITE + a - A_SITE] = 1
    if d[M_CONT] == C_SETUP:
        d[M_SITE_LEFT] -= 1


@kernel
def discard_nb(d, rng, cfg, a):
    """V. Discard a hand card, or draw (A_DONE)."""
    if a == A_DONE:
        d[M_CONT] = C_END
        return
    b = pb_nb(d[M_PLAYER])
    discard_add_nb(d, b, hand_remove_nb(d, b, a - A_DISC))


@kernel
def apply_nb(d, rng, cfg, a):
    """Apply a legal action of the player to move (the step API checks legality), then run the
    automatic steps to the next decision. M_EVN / EV list the card events of this decision."""
    d[M_DECISIONS] += 1
    d[M_EVN] = 0
    ph = d[M_PHASE]
    if ph == PH_BUY:
        buy_nb(d, rng, cfg, a)
    elif ph == PH_SYMBOL:
        symbol_nb(d, rng, cfg, a)
    elif ph == PH_PLAY:
        play_nb(d, rng, cfg, a)
    elif ph == PH_TARGET:
        target_nb(d, rng, cfg, a)
    elif ph == PH_TAKE:
        take_nb(d, rng, cfg, a)
    elif ph == PH_SELL:
        sell_nb(d, rng, cfg, a)
    elif ph == PH_SITE:
        site_nb(d, rng, cfg, a)
    elif ph == PH_DISCARD:
        discard_nb(d, rng, cfg, a)
    advance_nb(d, rng, cfg)


# ---------------------------------------------------------------- the step API's observation

@allocating_kernel
def observe_nb(d, cfg, player):
    """What `player` sees: a copy of the state vector with other hands hidden (-1, sizes kept),
    every draw pile's order hidden (others' entries -1, the own pile sorted), the Upgrade draw
    pile hidden (-1) and the scratch zeroed. Slots past a pile's size are cleared too (they hold
    stale cards, e.g. the cards a player drew). The chance stream is not part of it."""
    o = d.copy()
    for i in range(MAX_UPG):
        o[MK_UPG + i] = -1
    for s in range(cfg[K_N_SP]):
        o[B_QUEUE + s] = 0
    for i in range(6):
        o[B_COUNTS + i] = 0  # counts and lohi: scratch
    for p in range(o[M_NPLAYERS]):
        b = pb_nb(p)
        n = o[b + P_DRAW_N]
        if p == player:
            o[b + P_DRAW:b + P_DRAW + n] = np.sort(o[b + P_DRAW:b + P_DRAW + n])
            for i in range(n, MAX_PILE):
                o[b + P_DRAW + i] = -1
            for i in range(o[b + P_HAND_N], MAX_HAND):
                o[b + P_HAND + i] = -1
        else:
            for i in range(MAX_PILE):
                o[b + P_DRAW + i] = -1
            for i in range(MAX_HAND):
                o[b + P_HAND + i] = -1
        for i in range(o[b + P_DISC_N], MAX_PILE):
            o[b + P_DISC + i] = -1
    return o
