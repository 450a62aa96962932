"""Skyline of the World rules as kernels over the flat state vector (state.py) and the
rule vector `cfg` (params.KernelParams.cfg).

The step API and the batch loop (engines.core.adapter) and the policies call these same
kernels; no rule exists twice. One kernel per decision kind (build_nb, stop_nb,
cash_nb, trade_nb, buy_nb, sell_nb, end_turn_nb), each paired with the legality
kernel it shares with legal_nb and the policies (can_build_nb / fee_nb, can_cash_nb,
can_buy_nb, ...).

A turn as decisions (state.PH_*):

    income                                           automatic, at the start of the turn
    PH_BUILD   build one floor (cell, what)          repeat; at least one if possible
               cash a bonus card / trade in cards    (also in PH_INVEST, unless bonus.phases 'build')
               STOP                                  legal once a floor is built or none can be
    PH_INVEST  buy / sell one floor                  repeat; one neutral floor per turn;
               END                                   legal unless a floor must be bought
    PH_TRADE   the remaining cards of a trade-in

Chance: the chance stream shuffles the bonus pile and the missions and picks the start
player at setup; every later draw is the top of the shuffled pile. Only under bonus.empty_pile
'reshuffle_traded' does it shuffle again in play: the traded-in cards, when the pile runs out.
"""
from __future__ import annotations

import numpy as np

from engines.core.harness import seed_chance_nb
from engines.core.kernel import allocating_kernel, inline_kernel, kernel
from engines.core.lowlevel import lowest_bit_index, popcount
from engines.core.rng import below
from engines.skyline_of_the_world.params import (
    K_CARD_PHASES, K_DRAW_ORDER, K_FORCED_BUILD, K_OTHER_SKY, K_EMPTY_PILE, K_FEE_OVER_CAP, K_FORCED_BUY, K_POOL, K_PENT_SKY, K_TRADES_PER_TURN, K_NEUTRAL_SELLABLE, K_BOARD_MASK, K_BONUS_PER_TURN, K_CAP, K_CAP_RULE, K_CARD_LEN, K_CARD_MASK, K_CARD_PATH, K_COVERED,
    K_END_PENTHOUSES, K_FEE_RULE, K_LAST_ROUND, K_LEVEL_VALUES, K_MAX_FEE, K_MISSION_MASK, K_MISSION_POINTS, K_N_CARDS,
    K_N_CELLS, K_N_MISSIONS, K_N_PLAYERS, K_NEUTRAL_PER_TURN, K_NEUTRAL_PRICE, K_NEUTRAL_VALUE, K_NOT_FIRST_COL,
    K_NOT_LAST_COL, K_PAY3, K_PAY4, K_PT_PENTHOUSE, K_PT_STRATEGIC, K_SKY_OPEN, K_SKY_PER_TURN, K_SKYLINE_MAX,
    K_SKYLINE_VALUE, K_START_CARDS, K_START_CASH, K_START_STOCK, K_STRATEGIC, K_STRATEGIC_MASK, K_SUPPLY,
    K_SUPPLY_NEUTRAL, K_TIEBREAK, K_TRADE_IN, K_TRADE_VALUE, K_TURN_CAP, K_WIDTH, LEVELS, MAX_CARDS, MAX_CELLS, MAX_MISSIONS,
    N_STOCK,
)
from engines.skyline_of_the_world.state import (
    BUILD_FLOOR, BUILD_NEUTRAL, BUILD_SKY, BH, BS, BUILD_BASE, BUY_BASE, CASH_BASE, DECK, EMPTY, END, FLOOR_CODE, KIND_FLOOR,
    KIND_NEUTRAL, OWNER_BITS, OWNER_MASK, PENT_CODE, SKY_CODE,
    KIND_PENT, KIND_SKY, M_BANK_NET, M_BOUGHT, M_BUILT, M_BUILT_REGULAR, M_CASHED, M_CASHED_PATHS, M_DECISIONS, M_DECK_POS,
    M_DISCARD, M_END_LEFT, M_INCOME, M_INCOME_GROUP, M_MUST_BUY, M_NEUTRAL_BOUGHT, M_NPLAYERS, M_PHASE, M_PLAYER, M_SKY_BUILT,
    M_STALLED, M_START, M_TRADE_N, M_TRADED, HM, TOP_SKY, TOP_NEUTRAL, PRESENT, SKYIN, M_TRADE_RET, M_TRIGGER, M_TURN, MISSIONS, NEUTRAL, NEUTRAL_STOCK, OWN, P_BLOCKS,
    P_BOUGHT, P_BUILT, P_CAP_HITS, P_CAP_LOST, P_CAP_LOST_OTHER, P_CASH, P_CASHED_N, P_CASHED_VALUE, P_FEES_BANK, P_FEES_PAID,
    P_FEES_RECV, P_GOT_SELL, P_HAND, P_INCOME_MAX, P_INCOME_SUM, P_MISSION, P_PENTHOUSES, P_SKY_GOT, P_SKY_PLACED,
    P_SKY_STOCK, P_SOLD, P_SPENT_BUY, P_STOCK, P_TRADE_MASK, P_TRADED_N, P_TURNS, PB, PBASE, PH_BUILD,
    PH_INVEST, PH_OVER, PH_TRADE, SELL_BASE, STOP, SUP, CSUP, TOPV, TRADE_BASE,
)

BANK = -1      # fee recipient: the bank
NOBODY = -2    # fee recipient: nobody (the builder's own floor)


@inline_kernel
def pb_nb(p):
    """Offset of player p's block."""
    return PBASE + p * PB


@inline_kernel
def top_nb(d, cell):
    """Piece code of the top floor of `cell` (0 = empty site)."""
    h = d[BH + cell]
    if h == 0:
        return EMPTY
    return d[BS + cell * LEVELS + h - 1]


@inline_kernel
def piece_kind_nb(code):
    """KIND_* of a piece code (not EMPTY)."""
    return (code - FLOOR_CODE) >> OWNER_BITS


@inline_kernel
def piece_owner_nb(code):
    """The seat owning a piece code (not EMPTY nor NEUTRAL)."""
    return (code - FLOOR_CODE) & OWNER_MASK


@inline_kernel
def owned_by_nb(code, p):
    """A floor, penthouse or Skyline floor of player p (what counts for income, paths and areas)."""
    return code != EMPTY and code != NEUTRAL and piece_owner_nb(code) == p


# ---------------------------------------------------------------- income: the most valuable connected group

@inline_kernel
def grow_nb(cfg, comp, allowed):
    """The connected part of `allowed` (a cell mask) containing `comp` (orthogonal adjacency)."""
    w = cfg[K_WIDTH]
    nf = cfg[K_NOT_FIRST_COL]
    nl = cfg[K_NOT_LAST_COL]
    while True:
        g = comp | ((comp & nl) << 1) | ((comp & nf) >> 1) | (comp << w) | (comp >> w)
        g &= allowed
        if g == comp:
            return comp
        comp = g


@kernel
def income_of_mask_nb(d, cfg, own):
    """(income, buildings) of the most valuable connected group of the cell mask `own` (not the one
    with the most buildings; between groups of equal value, the larger is reported): the sum of the
    top floors' income values (TOPV: penthouses, Skyline floors pay nothing but link)."""
    best = 0
    best_n = 0
    rest = own
    while rest != 0:
        seed = rest & (-rest)
        comp = grow_nb(cfg, seed, own)
        rest &= ~comp
        v = 0
        m = comp
        while m != 0:
            c = lowest_bit_index(m)
            v += d[TOPV + c]
            m &= m - 1
        if v > best or (v == best and popcount(comp) > best_n):
            best = v
            best_n = popcount(comp)
    return best, best_n


@inline_kernel
def income_nb(d, cfg, p):
    """Player p's income now: (money, buildings in the paying group)."""
    return income_of_mask_nb(d, cfg, d[OWN + p])


# ---------------------------------------------------------------- money

@inline_kernel
def pay_bank_nb(d, p, amount):
    d[pb_nb(p) + P_CASH] -= amount
    d[M_BANK_NET] += amount


@kernel
def gain_nb(d, cfg, p, amount, is_income):
    """Player p receives `amount` from the bank (income, a sale, a bonus card, a trade-in); cash stops
    at the cap and the rest stays in the bank (cap_rule 'always', the default: every gain;
    'after_income': income only). Returns the amount lost to the cap (other than income: counted in
    P_CAP_LOST_OTHER; the caller counts income's)."""
    b = pb_nb(p)
    cash = d[b + P_CASH] + amount
    lost = 0
    if (is_income or cfg[K_CAP_RULE] == 1) and cash > cfg[K_CAP]:
        lost = cash - cfg[K_CAP]
        if lost > amount:
            lost = amount  # cash already above the cap (after_income: a fee earlier): keep it, gain nothing
        cash -= lost
    d[b + P_CASH] = cash
    if not is_income:
        d[b + P_CAP_LOST_OTHER] += lost
    d[M_BANK_NET] -= amount - lost
    return lost


@kernel
def receive_fee_nb(d, cfg, q, amount):
    """A fee paid to player q: under cap_rule 'always' (the default) his cash stops at the cap and the
    rest of the fee goes to the bank (counted in q's P_CAP_LOST_OTHER); 'after_income' keeps it all."""
    b = pb_nb(q)
    d[b + P_FEES_RECV] += amount
    cash = d[b + P_CASH] + amount
    if cfg[K_CAP_RULE] == 1 and cash > cfg[K_CAP]:
        lost = cash - cfg[K_CAP]
        if lost > amount:
            lost = amount
        d[M_BANK_NET] += lost
        d[b + P_CAP_LOST_OTHER] += lost
        cash -= lost
    d[b + P_CASH] = cash


# ---------------------------------------------------------------- building: the placement rules

@inline_kernel
def placed_value_nb(cfg, what, h):
    """Value of the piece placed on a building of height h (a regular floor: its level's value)."""
    if what == BUILD_FLOOR:
        return cfg[K_LEVEL_VALUES + h]
    if what == BUILD_NEUTRAL:
        return cfg[K_NEUTRAL_VALUE]
    return cfg[K_SKYLINE_VALUE]


@inline_kernel
def fee_of_nb(cfg, p, what, h, below):
    """THE fee rule: (amount, recipient) of placing `what` on a building of height h whose top piece
    is `below` (0 = the ground). recipient is a seat, BANK (ground or a neutral floor below) or
    NOBODY (the builder's own floor: free). Rule 'placed': the placed piece's value; 'below': the
    value of the floor built on (ground and neutral floors: the placed value, to the bank)."""
    placed = placed_value_nb(cfg, what, h)
    if below == EMPTY or below == NEUTRAL:
        return placed, BANK
    owner = piece_owner_nb(below)
    if owner == p:
        return 0, NOBODY
    if cfg[K_FEE_RULE] == 0:
        return placed, owner
    if piece_kind_nb(below) == KIND_SKY:
        return cfg[K_SKYLINE_VALUE], owner
    return cfg[K_LEVEL_VALUES + h - 1], owner


@inline_kernel
def fee_due_nb(d, cfg, amount, to):
    """What the builder pays of a fee `amount` to `to`: all of it, except under cash.fee_over_cap
    'unpaid' (with cap_rule 'always'), where a player receiving it is paid only what his cash can
    still hold below the cap (default 'bank': paid in full, receive_fee_nb sends the rest to the bank)."""
    if to >= 0 and cfg[K_FEE_OVER_CAP] == 1:
        room = cfg[K_CAP] - d[pb_nb(to) + P_CASH]
        if room < 0:
            room = 0
        if amount > room:
            return room
    return amount


@inline_kernel
def fee_nb(d, cfg, p, what, cell):
    """fee_of_nb for building `what` on `cell` now, as the builder pays it (fee_due_nb)."""
    amount, to = fee_of_nb(cfg, p, what, d[BH + cell], top_nb(d, cell))
    return fee_due_nb(d, cfg, amount, to), to


@inline_kernel
def regular_presence_nb(d, p, m):
    """The cells of mask m whose building holds a regular floor of player p (not only his Skyline floor)."""
    out = np.int64(0)
    while m != 0:
        cell = lowest_bit_index(m)
        m &= m - 1
        for lv in range(d[BH + cell]):
            if d[BS + cell * LEVELS + lv] == FLOOR_CODE + p:
                out |= np.int64(1) << cell
                break
    return out


@inline_kernel
def build_masks_nb(d, cfg, p):
    """THE placement rules, money aside: the cells where player p may place a regular floor, a
    neutral floor and a Skyline floor now, as three cell masks. Legality (legal_nb,
    can_build_nb), the effect's preconditions and the policies all ask this kernel.

    - at most five levels; nothing on a penthouse (a penthouse is the fifth level);
    - a regular floor: one of the level's value in stock (ground: 1M only, by construction);
      never directly on his own floor; on a Skyline floor only his own (unless
      skyline.others_may_build_on); a penthouse only in a building where he owns a lower floor
      (a regular floor; his Skyline floor too unless penthouse.skyline_counts is false);
    - a neutral floor: in stock; any level, also on his own floor; never on a Skyline floor;
    - a Skyline floor: received and not yet built; one per turn; not on a strategic cell; not in
      a building holding another player's Skyline floor (skyline.other_skyline 'building'; under
      'directly_on' only not directly on one)."""
    b = pb_nb(p)
    open_ = cfg[K_BOARD_MASK] & ~d[HM + LEVELS]
    top_sky = d[TOP_SKY]
    own = d[OWN + p]
    fm = np.int64(0)
    for h in range(LEVELS):
        if d[b + P_STOCK + h] > 0:
            if h == LEVELS - 1:
                pm = d[HM + h] & d[PRESENT + p]
                if cfg[K_PENT_SKY] == 0:
                    pm = regular_presence_nb(d, p, pm)
                fm |= pm
            else:
                fm |= d[HM + h]
    blocked = own & ~top_sky                      # his own regular floor on top
    if cfg[K_SKY_OPEN] == 0:
        blocked |= top_sky & ~own                 # another player's Skyline floor
    fm &= ~blocked
    nm = np.int64(0)
    if d[b + P_STOCK + NEUTRAL_STOCK] > 0:
        nm = open_ & ~top_sky
    sm = np.int64(0)
    if d[b + P_SKY_STOCK] > 0 and d[M_SKY_BUILT] < cfg[K_SKY_PER_TURN]:
        if cfg[K_OTHER_SKY] == 0:
            others = np.int64(0)
            for q in range(d[M_NPLAYERS]):
                if q != p:
                    others |= d[SKYIN + q]
        else:
            others = top_sky & ~own                   # another player's Skyline floor on top
        sm = open_ & ~cfg[K_STRATEGIC_MASK] & ~others
    return fm, nm, sm


@inline_kernel
def afford_mask_nb(d, cfg, p, what, m):
    """The cells of mask m where player p can pay the fee of placing `what` (fee_of_nb)."""
    cash = d[pb_nb(p) + P_CASH]
    if cash >= cfg[K_MAX_FEE]:
        return m
    out = m
    while m != 0:
        cell = lowest_bit_index(m)
        m &= m - 1
        amount, to = fee_of_nb(cfg, p, what, d[BH + cell], top_nb(d, cell))
        amount = fee_due_nb(d, cfg, amount, to)
        if to != NOBODY and cash < amount:
            out &= ~(np.int64(1) << cell)
    return out


@inline_kernel
def legal_build_masks_nb(d, cfg, p):
    """build_masks_nb with the fee affordable."""
    fm, nm, sm = build_masks_nb(d, cfg, p)
    return afford_mask_nb(d, cfg, p, np.int64(BUILD_FLOOR), fm), afford_mask_nb(d, cfg, p, np.int64(BUILD_NEUTRAL), nm), \
        afford_mask_nb(d, cfg, p, np.int64(BUILD_SKY), sm)


@kernel
def can_build_nb(d, cfg, p, what, cell):
    """May player p build `what` on `cell` now (placement and fee)?"""
    fm, nm, sm = build_masks_nb(d, cfg, p)
    m = fm if what == BUILD_FLOOR else (nm if what == BUILD_NEUTRAL else sm)
    return afford_mask_nb(d, cfg, p, what, m & (np.int64(1) << cell)) != 0


@kernel
def any_build_nb(d, cfg, p):
    """Some floor can be built (the 'at least one floor if possible' rule): any piece (build.forced
    'any_floor', the default), or a regular floor or penthouse ('regular')."""
    fm, nm, sm = legal_build_masks_nb(d, cfg, p)
    if cfg[K_FORCED_BUILD] == 1:
        return fm != 0
    return (fm | nm | sm) != 0


@inline_kernel
def built_counted_nb(d, cfg):
    """Floors built this turn that meet the 'at least one floor' rule (build.forced)."""
    if cfg[K_FORCED_BUILD] == 1:
        return d[M_BUILT_REGULAR]
    return d[M_BUILT]


# ---------------------------------------------------------------- bonus cards

@inline_kernel
def path_done_nb(d, cfg, p, mask):
    """Player p holds the top floor of every cell of the path (it may be part of a larger group)."""
    return (d[OWN + p] & mask) == mask


@inline_kernel
def cards_open_nb(d, cfg):
    """Bonus cards may be cashed or traded in now: in the build and invest phases (bonus.phases
    'build_invest', the default), or in the build phase only ('build'); a trade-in once begun is
    always completed."""
    return cfg[K_CARD_PHASES] == 0 or d[M_PHASE] != PH_INVEST


@inline_kernel
def can_cash_nb(d, cfg, p, card):
    b = pb_nb(p)
    if not cards_open_nb(d, cfg):
        return False
    if ((d[b + P_HAND] >> card) & 1) == 0 or d[M_CASHED] >= cfg[K_BONUS_PER_TURN]:
        return False
    if (d[M_CASHED_PATHS] >> cfg[K_CARD_PATH + card]) & 1:
        return False  # not two cards with the same path in one turn
    return path_done_nb(d, cfg, p, cfg[K_CARD_MASK + card])


@inline_kernel
def can_trade_nb(d, cfg, p, card):
    """A card towards a trade-in: held, and enough cards to complete it (in PH_TRADE: any held card)."""
    b = pb_nb(p)
    if ((d[b + P_HAND] >> card) & 1) == 0:
        return False
    if d[M_PHASE] == PH_TRADE:
        return True
    if not cards_open_nb(d, cfg):
        return False
    if cfg[K_TRADES_PER_TURN] > 0 and d[M_TRADED] >= cfg[K_TRADES_PER_TURN]:
        return False
    return popcount(d[b + P_HAND]) >= cfg[K_TRADE_IN]


@kernel
def draw_card_nb(d, rng, cfg, q):
    """Player q draws the top card of the bonus pile. An empty pile gives nothing (bonus.empty_pile
    'nothing', the default); under 'reshuffle_traded' the cards traded in to the bank first become a
    new pile, shuffled by the chance stream (the last places of DECK, ascending ids then shuffled)."""
    nc = cfg[K_N_CARDS]
    if d[M_DECK_POS] >= nc and cfg[K_EMPTY_PILE] == 1 and d[M_DISCARD] != 0:
        m = d[M_DISCARD]
        pos = nc - popcount(m)
        i = pos
        while m != 0:
            d[DECK + i] = lowest_bit_index(m)
            m &= m - 1
            i += 1
        for i in range(nc - 1, pos, -1):
            j = pos + below(rng, i - pos + 1)
            t = d[DECK + i]
            d[DECK + i] = d[DECK + j]
            d[DECK + j] = t
        d[M_DECK_POS] = pos
        d[M_DISCARD] = 0
    if d[M_DECK_POS] < nc:
        card = d[DECK + d[M_DECK_POS]]
        d[M_DECK_POS] += 1
        d[pb_nb(q) + P_HAND] |= np.int64(1) << card


# ---------------------------------------------------------------- invest / divest

@inline_kernel
def price_nb(cfg, k):
    if k == NEUTRAL_STOCK:
        return cfg[K_NEUTRAL_PRICE]
    return cfg[K_LEVEL_VALUES + k]


@inline_kernel
def supply_index_nb(cfg, p, k):
    """Where the bank's floors of stock kind k that player p buys (and sells back) are counted: his
    colour's own supply (supply.pool 'per_colour', levels 1..5) or the shared one (the neutral
    floors always; every kind under pool 'shared')."""
    if k < LEVELS and cfg[K_POOL] == 0:
        return CSUP + p * LEVELS + k
    return SUP + k


@inline_kernel
def can_buy_nb(d, cfg, p, k):
    """A floor of kind k left in the supply p buys from, money for it, and (neutral) the per-turn limit."""
    if d[supply_index_nb(cfg, p, k)] <= 0 or d[pb_nb(p) + P_CASH] < price_nb(cfg, k):
        return False
    return k != NEUTRAL_STOCK or d[M_NEUTRAL_BOUGHT] < cfg[K_NEUTRAL_PER_TURN]


@kernel
def any_buy_nb(d, cfg, p, kinds):
    """Some floor of stock kinds 0 .. kinds - 1 can be bought (N_STOCK: any; LEVELS: his colour's)."""
    for k in range(kinds):
        if can_buy_nb(d, cfg, p, k):
            return True
    return False


@inline_kernel
def can_sell_nb(d, cfg, p, k):
    """A floor of kind k in stock (a neutral floor only if neutral.sellable)."""
    if k == NEUTRAL_STOCK and cfg[K_NEUTRAL_SELLABLE] == 0:
        return False
    return d[pb_nb(p) + P_STOCK + k] > 0


@inline_kernel
def can_end_nb(d, cfg, p):
    """The turn may end unless no floor was built and one can still be bought (invest.forced_buy
    'any_floor', the default: any floor, neutral included, bought or buyable; 'own_colour': only a
    regular floor or penthouse meets the obligation, and only one of those buyable makes it)."""
    if d[M_MUST_BUY] == 0:
        return True
    if cfg[K_FORCED_BUY] == 0:
        return d[M_BOUGHT] > 0 or not any_buy_nb(d, cfg, p, np.int64(N_STOCK))
    return d[M_BOUGHT] > d[M_NEUTRAL_BOUGHT] or not any_buy_nb(d, cfg, p, np.int64(LEVELS))


@inline_kernel
def can_stop_nb(d, cfg, p):
    """Building may stop once a floor is built, or if none can be (build.forced: which floors count)."""
    return built_counted_nb(d, cfg) > 0 or not any_build_nb(d, cfg, p)


# ---------------------------------------------------------------- setup and turns

@kernel
def start_turn_nb(d, cfg):
    """Phase 1 of the player to move: earn income (the most valuable connected group of his top
    floors, cash cap), then build."""
    p = d[M_PLAYER]
    b = pb_nb(p)
    d[M_BUILT] = 0
    d[M_BUILT_REGULAR] = 0
    d[M_SKY_BUILT] = 0
    d[M_CASHED] = 0
    d[M_CASHED_PATHS] = 0
    d[M_NEUTRAL_BOUGHT] = 0
    d[M_BOUGHT] = 0
    d[M_MUST_BUY] = 0
    d[M_TRADE_N] = 0
    d[M_TRADED] = 0
    inc, n = income_nb(d, cfg, p)
    d[M_INCOME] = inc
    d[M_INCOME_GROUP] = n
    lost = gain_nb(d, cfg, p, inc, np.bool_(True))
    d[b + P_INCOME_SUM] += inc - lost
    if inc > d[b + P_INCOME_MAX]:
        d[b + P_INCOME_MAX] = inc
    if lost > 0:
        d[b + P_CAP_HITS] += 1
        d[b + P_CAP_LOST] += lost
    d[M_PHASE] = PH_BUILD


@kernel
def reset_nb(d, rng, cfg, seed, game_index):
    """Set up game `game_index` of run `seed`: supply, stocks and cash, the shuffled bonus pile
    and missions, 3 cards and a mission each, a random start player; then his first income."""
    d[:] = 0
    P = cfg[K_N_PLAYERS]
    d[M_NPLAYERS] = P
    d[M_TRIGGER] = -1
    seed_chance_nb(rng, seed, game_index)
    for k in range(LEVELS):
        if cfg[K_POOL] == 0:   # per colour: each colour's supply less its own setup stock
            for q in range(P):
                d[CSUP + q * LEVELS + k] = cfg[K_SUPPLY + k] - cfg[K_START_STOCK + k]
        else:
            d[SUP + k] = cfg[K_SUPPLY + k] - P * cfg[K_START_STOCK + k]
    d[SUP + NEUTRAL_STOCK] = cfg[K_SUPPLY_NEUTRAL]
    d[HM] = cfg[K_BOARD_MASK]
    nc = cfg[K_N_CARDS]
    for i in range(nc):
        d[DECK + i] = i
    for i in range(nc - 1, 0, -1):
        j = below(rng, i + 1)
        t = d[DECK + i]
        d[DECK + i] = d[DECK + j]
        d[DECK + j] = t
    nm = cfg[K_N_MISSIONS]
    for i in range(nm):
        d[MISSIONS + i] = i
    for i in range(nm - 1, 0, -1):
        j = below(rng, i + 1)
        t = d[MISSIONS + i]
        d[MISSIONS + i] = d[MISSIONS + j]
        d[MISSIONS + j] = t
    for p in range(P):
        b = pb_nb(p)
        d[b + P_CASH] = cfg[K_START_CASH]
        for k in range(LEVELS):
            d[b + P_STOCK + k] = cfg[K_START_STOCK + k]
        d[b + P_MISSION] = d[MISSIONS + p]
    for _ in range(cfg[K_START_CARDS]):
        for p in range(P):
            draw_card_nb(d, rng, cfg, p)
    start = below(rng, P)
    d[M_START] = start
    d[M_PLAYER] = start
    start_turn_nb(d, cfg)


# ---------------------------------------------------------------- one kernel per decision kind

@kernel
def penthouse_effects_nb(d, rng, cfg, p):
    """A penthouse built by p: the others draw a bonus card, going round from his left (bonus.draw_order
    'left', the default) or his right ('right'); the first brings a Skyline floor;
    the game-ending one (the first to reach end.penthouses) brings another and starts the last round."""
    P = d[M_NPLAYERS]
    b = pb_nb(p)
    d[b + P_PENTHOUSES] += 1
    for i in range(1, P):
        draw_card_nb(d, rng, cfg, (p + i) % P if cfg[K_DRAW_ORDER] == 0 else (p - i + P) % P)
    n = d[b + P_PENTHOUSES]
    if n == 1 and d[b + P_SKY_GOT] < cfg[K_SKYLINE_MAX]:
        d[b + P_SKY_GOT] += 1
        d[b + P_SKY_STOCK] += 1
    if n == cfg[K_END_PENTHOUSES] and d[M_TRIGGER] < 0:
        d[M_TRIGGER] = p
        if d[b + P_SKY_GOT] < cfg[K_SKYLINE_MAX]:
            d[b + P_SKY_GOT] += 1
            d[b + P_SKY_STOCK] += 1
        if cfg[K_LAST_ROUND] == 1:
            d[M_END_LEFT] = P - 1
        else:
            d[M_END_LEFT] = (d[M_START] - p - 1 + P) % P


@kernel
def build_nb(d, rng, cfg, what, cell):
    """Place `what` on `cell` for the player to move (legal: can_build_nb): pay the fee, update the
    top-floor masks and income values, then the penthouse effects."""
    d[M_DECISIONS] += 1
    p = d[M_PLAYER]
    b = pb_nb(p)
    h = d[BH + cell]
    amount, to = fee_nb(d, cfg, p, what, cell)
    below = top_nb(d, cell)
    if to == BANK:
        pay_bank_nb(d, p, amount)
        d[b + P_FEES_BANK] += amount
    elif to >= 0:
        d[b + P_CASH] -= amount
        d[b + P_FEES_PAID] += amount
        receive_fee_nb(d, cfg, to, amount)
    if below != EMPTY and below != NEUTRAL:
        d[OWN + piece_owner_nb(below)] &= ~(np.int64(1) << cell)
    bit = np.int64(1) << cell
    if what == BUILD_FLOOR:
        if h == LEVELS - 1:
            code = PENT_CODE + p
            d[TOPV + cell] = 0
        else:
            code = FLOOR_CODE + p
            d[TOPV + cell] = cfg[K_LEVEL_VALUES + h]
        d[b + P_STOCK + h] -= 1
        d[b + P_BUILT + h] += 1
        d[M_BUILT_REGULAR] += 1
        d[OWN + p] |= bit
    elif what == BUILD_NEUTRAL:
        code = NEUTRAL
        d[TOPV + cell] = 0
        d[b + P_STOCK + NEUTRAL_STOCK] -= 1
        d[b + P_BUILT + NEUTRAL_STOCK] += 1
        if below != EMPTY and below != NEUTRAL and piece_owner_nb(below) != p:
            d[b + P_BLOCKS] += 1
    else:
        code = SKY_CODE + p
        d[TOPV + cell] = 0
        d[b + P_SKY_STOCK] -= 1
        d[b + P_SKY_PLACED] += 1
        d[M_SKY_BUILT] += 1
        d[OWN + p] |= bit
    d[BS + cell * LEVELS + h] = code
    d[BH + cell] = h + 1
    d[HM + h] &= ~bit
    d[HM + h + 1] |= bit
    if below == NEUTRAL:
        d[TOP_NEUTRAL] &= ~bit
    elif below != EMPTY and piece_kind_nb(below) == KIND_SKY:
        d[TOP_SKY] &= ~bit
    if code == NEUTRAL:
        d[TOP_NEUTRAL] |= bit
    elif code == SKY_CODE + p:
        d[TOP_SKY] |= bit
        d[SKYIN + p] |= bit
        d[PRESENT + p] |= bit
    elif code == FLOOR_CODE + p:
        d[PRESENT + p] |= bit
    d[M_BUILT] += 1
    if code == PENT_CODE + p:
        penthouse_effects_nb(d, rng, cfg, p)


@kernel
def stop_nb(d, cfg):
    """Stop building; a player who built no floor (build.forced: which floors count) must buy a floor
    if he can."""
    d[M_DECISIONS] += 1
    d[M_MUST_BUY] = 1 if built_counted_nb(d, cfg) == 0 else 0
    d[M_PHASE] = PH_INVEST


@kernel
def cash_nb(d, cfg, card):
    """Hand in a completed bonus card: 5M for three cells, 8M for four."""
    d[M_DECISIONS] += 1
    p = d[M_PLAYER]
    b = pb_nb(p)
    d[b + P_HAND] &= ~(np.int64(1) << card)
    pay = cfg[K_PAY3] if cfg[K_CARD_LEN + card] == 3 else cfg[K_PAY4]
    d[M_CASHED] += 1
    d[M_CASHED_PATHS] |= np.int64(1) << cfg[K_CARD_PATH + card]
    lost = gain_nb(d, cfg, p, pay, np.bool_(False))
    d[b + P_CASHED_N] += 1
    d[b + P_CASHED_VALUE] += pay - lost


@kernel
def trade_nb(d, cfg, card):
    """Give `card` to the bank towards a trade-in; the last of trade_in cards brings trade_value."""
    d[M_DECISIONS] += 1
    p = d[M_PLAYER]
    b = pb_nb(p)
    d[b + P_HAND] &= ~(np.int64(1) << card)
    d[b + P_TRADE_MASK] |= np.int64(1) << card
    if d[M_PHASE] != PH_TRADE:
        d[M_TRADE_RET] = d[M_PHASE]
    d[M_TRADE_N] += 1
    if d[M_TRADE_N] >= cfg[K_TRADE_IN]:
        gain_nb(d, cfg, p, cfg[K_TRADE_VALUE], np.bool_(False))
        d[b + P_TRADED_N] += 1
        d[M_TRADED] += 1
        d[M_DISCARD] |= d[b + P_TRADE_MASK]
        d[b + P_TRADE_MASK] = 0
        d[M_TRADE_N] = 0
        d[M_PHASE] = d[M_TRADE_RET]
    else:
        d[M_PHASE] = PH_TRADE


@kernel
def buy_nb(d, cfg, k):
    """Buy a floor of stock kind k at its value (neutral: its price) into the stock."""
    d[M_DECISIONS] += 1
    p = d[M_PLAYER]
    b = pb_nb(p)
    price = price_nb(cfg, k)
    pay_bank_nb(d, p, price)
    d[supply_index_nb(cfg, p, k)] -= 1
    d[b + P_STOCK + k] += 1
    d[b + P_BOUGHT + k] += 1
    d[b + P_SPENT_BUY] += price
    d[M_BOUGHT] += 1
    if k == NEUTRAL_STOCK:
        d[M_NEUTRAL_BOUGHT] += 1


@kernel
def sell_nb(d, cfg, k):
    """Sell a floor from the stock to the bank at half its value, rounded down (the cash cap applies);
    it goes back to the supply it was bought from (his colour's, or the shared one)."""
    d[M_DECISIONS] += 1
    p = d[M_PLAYER]
    b = pb_nb(p)
    half = price_nb(cfg, k) // 2
    lost = gain_nb(d, cfg, p, half, np.bool_(False))
    d[supply_index_nb(cfg, p, k)] += 1
    d[b + P_STOCK + k] -= 1
    d[b + P_SOLD + k] += 1
    d[b + P_GOT_SELL] += half - lost


@kernel
def end_turn_nb(d, cfg):
    """End the turn: the game ends after the last turn of the final round (or at the turn cap,
    flagged stalled); else the player to the left earns income and builds."""
    d[M_DECISIONS] += 1
    p = d[M_PLAYER]
    d[pb_nb(p) + P_TURNS] += 1
    d[M_TURN] += 1
    over = False
    if d[M_TRIGGER] >= 0:
        if d[M_END_LEFT] == 0:
            over = True
        else:
            d[M_END_LEFT] -= 1
    if not over and d[M_TURN] >= cfg[K_TURN_CAP]:
        over = True
        if d[M_TRIGGER] < 0:  # the cap cutting a last round short is not a stall
            d[M_STALLED] = 1
    if over:
        d[M_PHASE] = PH_OVER
        d[M_PLAYER] = -1
        return
    d[M_PLAYER] = (p + 1) % d[M_NPLAYERS]
    start_turn_nb(d, cfg)


@kernel
def apply_nb(d, rng, cfg, a):
    """Apply action id `a` (legal) for the player to move: dispatch to its decision kernel."""
    if a < STOP:
        build_nb(d, rng, cfg, (a - BUILD_BASE) // MAX_CELLS, (a - BUILD_BASE) % MAX_CELLS)
    elif a == STOP:
        stop_nb(d, cfg)
    elif a < TRADE_BASE:
        cash_nb(d, cfg, a - CASH_BASE)
    elif a < BUY_BASE:
        trade_nb(d, cfg, a - TRADE_BASE)
    elif a < SELL_BASE:
        buy_nb(d, cfg, a - BUY_BASE)
    elif a < END:
        sell_nb(d, cfg, a - SELL_BASE)
    else:
        end_turn_nb(d, cfg)


# ---------------------------------------------------------------- legal actions

@kernel
def legal_nb(d, cfg, out):
    """Fill out[:n] with the legal action ids of the player to move (ascending); n = 0 when over."""
    phase = d[M_PHASE]
    if phase == PH_OVER:
        return 0
    p = d[M_PLAYER]
    b = pb_nb(p)
    n = 0
    nc = cfg[K_N_CELLS]
    if phase == PH_TRADE:
        for card in range(cfg[K_N_CARDS]):
            if can_trade_nb(d, cfg, p, card):
                out[n] = TRADE_BASE + card
                n += 1
        return n
    if phase == PH_BUILD:
        m0, m1, m2 = legal_build_masks_nb(d, cfg, p)
        counted = (m0 | m1 | m2) if cfg[K_FORCED_BUILD] == 0 else m0
        for what in range(3):
            m = m0 if what == 0 else (m1 if what == 1 else m2)
            while m != 0:
                out[n] = BUILD_BASE + what * MAX_CELLS + lowest_bit_index(m)
                n += 1
                m &= m - 1
        if built_counted_nb(d, cfg) > 0 or counted == 0:
            out[n] = STOP
            n += 1
    hand = d[b + P_HAND]
    m = hand
    while m != 0:
        card = lowest_bit_index(m)
        m &= m - 1
        if can_cash_nb(d, cfg, p, card):
            out[n] = CASH_BASE + card
            n += 1
    if cards_open_nb(d, cfg) and popcount(hand) >= cfg[K_TRADE_IN] and (cfg[K_TRADES_PER_TURN] == 0 or d[M_TRADED] < cfg[K_TRADES_PER_TURN]):
        m = hand
        while m != 0:
            card = lowest_bit_index(m)
            m &= m - 1
            out[n] = TRADE_BASE + card
            n += 1
    if phase == PH_INVEST:
        for k in range(N_STOCK):
            if can_buy_nb(d, cfg, p, k):
                out[n] = BUY_BASE + k
                n += 1
        for k in range(N_STOCK):
            if can_sell_nb(d, cfg, p, k):
                out[n] = SELL_BASE + k
                n += 1
        if can_end_nb(d, cfg, p):
            out[n] = END
            n += 1
    return n


# ---------------------------------------------------------------- scoring

@kernel
def score_parts_nb(d, cfg, p):
    """(prestige, penthouses, strategic areas held, mission done) of player p now."""
    b = pb_nb(p)
    pent = d[b + P_PENTHOUSES]
    strat = popcount(d[OWN + p] & cfg[K_STRATEGIC_MASK])
    md = 1 if path_done_nb(d, cfg, p, cfg[K_MISSION_MASK + d[b + P_MISSION]]) else 0
    prestige = pent * cfg[K_PT_PENTHOUSE] + strat * cfg[K_PT_STRATEGIC] + md * cfg[K_MISSION_POINTS]
    return prestige, pent, strat, md


@kernel
def tie_key_nb(d, cfg, p):
    """The tie chain as one number (higher wins a tie on prestige): penthouses, then the mission,
    then (tournament) the first to build the game-ending penthouse."""
    _, pent, _, md = score_parts_nb(d, cfg, p)
    key = (pent * 2 + md) * 2
    if cfg[K_TIEBREAK] == 1 and d[M_TRIGGER] == p:
        key += 1
    return key


@allocating_kernel
def observe_nb(d, cfg, player):
    """What `player` sees: a copy of the state vector with the hidden parts zeroed -- the pile order
    and the mission deal, the other players' hands, missions and trade-ins in progress and, in the
    covered variant, their cash, stock, Skyline floors in hand and money counters (and the bank's
    balance, which would reveal the total cash)."""
    o = d.copy()
    for i in range(MAX_CARDS):
        o[DECK + i] = -1
    for i in range(MAX_MISSIONS):
        o[MISSIONS + i] = -1
    for q in range(o[M_NPLAYERS]):
        if q == player:
            continue
        b = pb_nb(q)
        o[b + P_HAND] = 0
        o[b + P_MISSION] = -1
        o[b + P_TRADE_MASK] = 0
        if cfg[K_COVERED] == 1:
            o[b + P_CASH] = -1
            for k in range(N_STOCK):
                o[b + P_STOCK + k] = -1
                o[b + P_BOUGHT + k] = -1
                o[b + P_SOLD + k] = -1
            o[b + P_SKY_STOCK] = -1
            o[b + P_INCOME_SUM] = -1
            o[b + P_FEES_PAID] = -1
            o[b + P_FEES_RECV] = -1
            o[b + P_FEES_BANK] = -1
            o[b + P_CAP_LOST] = -1
            o[b + P_CAP_LOST_OTHER] = -1
            o[b + P_CASHED_VALUE] = -1
            o[b + P_SPENT_BUY] = -1
            o[b + P_GOT_SELL] = -1
    if cfg[K_COVERED] == 1:
        o[M_BANK_NET] = 0
    return o


@kernel
def recompute_tops_nb(d, cfg):
    """Rebuild the derived top-floor data (OWN masks, TOPV values) from the floors on the board:
    for hand-built positions, and as the check that build_nb keeps them right."""
    for p in range(4):
        d[OWN + p] = 0
        d[PRESENT + p] = 0
        d[SKYIN + p] = 0
    for h in range(LEVELS + 1):
        d[HM + h] = 0
    d[TOP_SKY] = 0
    d[TOP_NEUTRAL] = 0
    for cell in range(cfg[K_N_CELLS]):
        h = d[BH + cell]
        bit = np.int64(1) << cell
        d[HM + h] |= bit
        d[TOPV + cell] = 0
        for lv in range(h):
            c = d[BS + cell * LEVELS + lv]
            if c == NEUTRAL:
                continue
            k = piece_kind_nb(c)
            if k == KIND_FLOOR or k == KIND_SKY:
                d[PRESENT + piece_owner_nb(c)] |= bit
            if k == KIND_SKY:
                d[SKYIN + piece_owner_nb(c)] |= bit
        if h == 0:
            continue
        code = d[BS + cell * LEVELS + h - 1]
        if code == NEUTRAL:
            d[TOP_NEUTRAL] |= bit
        elif piece_kind_nb(code) == KIND_SKY:
            d[TOP_SKY] |= bit
        if code == NEUTRAL:
            continue
        d[OWN + piece_owner_nb(code)] |= np.int64(1) << cell
        if piece_kind_nb(code) == KIND_FLOOR:
            d[TOPV + cell] = cfg[K_LEVEL_VALUES + h - 1]
