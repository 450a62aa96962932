"""Skyline of the World's features for the learned expert (engines.core.expert): what seat p's
position is worth, read only from what p sees -- the public board (top floors, heights,
everyone's penthouses and Skyline floors placed), the turn, and p's own cash, stock, hand and
mission. Never another player's hand, mission, cash or stock (hidden in the covered variant),
nor the pile: the expert scores determinized samples, and a feature reading a redrawn place
would make its choice depend on the draw.

The heuristic values an action by what it changes: income gained, income taken from the
opponent it covers, prestige points, mission cells and bonus-card cells held, fees paid, and
floors bought for the income they could bring. Every one of those is the difference of a
feature below between two afterstates (income, opp_income, public, mission_cells, bonus, cash,
stock), so a linear model over them can reproduce the heuristic's choices among builds; the
rest (the score as it stands, the lead, game progress and its interactions, resources) is what
the search sees in its play-outs and the heuristic does not. The hand is split into unfinished
cards and the money of finished ones, so that cashing a card (money moves from the card to the
cash) and trading cards in read as what they are.
"""
from __future__ import annotations

import numpy as np

from engines.core.expert import PRIOR_FEATURE
from engines.core.kernel import kernel
from engines.core.lowlevel import lowest_bit_index, popcount
from engines.skyline_of_the_world.params import (
    K_CAP, K_CARD_LEN, K_CARD_MASK, K_END_PENTHOUSES, K_MISSION_MASK, K_MISSION_POINTS, K_PAY3, K_PAY4,
    K_PT_PENTHOUSE, K_PT_STRATEGIC, K_STRATEGIC_MASK, LEVELS, N_STOCK,
)
from engines.skyline_of_the_world.rules import (
    build_masks_nb, fee_of_nb, income_of_mask_nb, path_done_nb, pb_nb, price_nb, top_nb,
)
from engines.skyline_of_the_world.state import (
    BH, BUILD_FLOOR, HM, M_NPLAYERS, M_TRIGGER, OWN, P_CASH, P_HAND, P_MISSION, P_PENTHOUSES, P_SKY_STOCK, P_STOCK,
)

# the features, in the model's order (the names of engines/skyline_of_the_world/expert.toml's weights)
FEATURES = (
    "bias",           # 1
    "public",         # own public prestige: penthouses and strategic areas held, in points
    "mission_done",   # own mission complete (its points; the others' missions are hidden)
    "penthouses",     # own penthouses built (the tie chain's first key; the last one ends the game)
    "mission_cells",  # own mission cells held (top floors): the heuristic's mission term
    "bonus",          # cells held on the own unfinished bonus card closest to completion: the heuristic's bonus term
    "income",         # own income (the most valuable connected group of top floors): the heuristic's income
    "opp_income",     # the others' incomes, summed: covering a top floor lowers it (the heuristic's blocking)
    "lead",           # own prestige minus the best other player's public prestige
    "cash",           # own cash (fees paid and floors bought come out of it)
    "cap_waste",      # money the next income would lose to the cash cap as things stand
    "stock",          # price of the floors in own stock (what a bought floor is worth before it is placed)
    "ready",          # price of one floor of each level in stock that has a site now (the heuristic's reason to buy)
    "pent_stock",     # penthouses in own stock
    "sky_stock",      # Skyline floors received, not yet built
    "cards_open",     # unfinished bonus cards held
    "cards_done",     # money of the finished bonus cards held (not yet cashed)
    "sites",          # cells where own stock could be placed now, money aside (0: nothing to build)
    "progress",       # the most penthouses anyone has built / the penthouses that end the game (1 once triggered)
    "income_late",    # income x progress
    "cash_late",      # cash x progress
    "lead_final",     # lead once the ending penthouse is built (0 before): ending the game while ahead
    # the race to the ending penthouse (a penthouse is bought in one turn's invest phase and built in
    # a later build phase, its fee paid then from the cash after income): what the search's
    # play-outs see and a one-step evaluation does not, the money for the next penthouse
    "pent_site",      # a cell where own penthouse could be built (money and stock aside)
    "pent_ready",     # a penthouse in stock, a site, and the cash after the next income pays its fee
    "pent_afford",    # no penthouse in stock, a site, and cash and next income pay its price and its fee
    # 1 for the heuristic's own pick (the expert's prior: engines.core.expert's prior_nb,
    # search.heuristic_pick_nb), 0 for every other candidate; features_nb writes 0
    PRIOR_FEATURE,
)
N_FEATURES = len(FEATURES)
F_HEURISTIC_PICK = FEATURES.index(PRIOR_FEATURE)


@kernel
def hand_nb(d, cfg, p, own):
    """(cells held on the unfinished card closest to completion, unfinished cards, money of the
    finished cards) of p's hand."""
    hand = d[pb_nb(p) + P_HAND]
    best = 0
    n_open = 0
    money = 0
    while hand != 0:
        c = lowest_bit_index(hand)
        hand &= hand - 1
        k = popcount(own & cfg[K_CARD_MASK + c])
        if k == cfg[K_CARD_LEN + c]:
            money += cfg[K_PAY3] if k == 3 else cfg[K_PAY4]
            continue
        n_open += 1
        if k > best:
            best = k
    return best, n_open, money


@kernel
def best_bonus_progress_nb(d, cfg, p, own):
    """Cells held on the held bonus card closest to completion (completed cards count their length)."""
    hand = d[pb_nb(p) + P_HAND]
    best = 0
    while hand != 0:
        c = lowest_bit_index(hand)
        hand &= hand - 1
        k = popcount(own & cfg[K_CARD_MASK + c])
        if k > best:
            best = k
    return best


@kernel
def features_nb(d, cfg, aux, p, out):
    """Seat p's features (FEATURES) into out[:N_FEATURES]. `aux` is the game's auxiliary argument
    (cfg again: Skyline of the World has no tables beside its rule vector)."""
    b = pb_nb(p)
    own = d[OWN + p]
    sm = cfg[K_STRATEGIC_MASK]
    mm = cfg[K_MISSION_MASK + d[b + P_MISSION]]
    pent = d[b + P_PENTHOUSES]
    public = pent * cfg[K_PT_PENTHOUSE] + popcount(own & sm) * cfg[K_PT_STRATEGIC]
    md = 1 if path_done_nb(d, cfg, p, mm) else 0
    income, _ = income_of_mask_nb(d, cfg, own)
    opp_income = 0
    best_other = 0
    most_pent = pent
    for q in range(d[M_NPLAYERS]):
        if q == p:
            continue
        inc_q, _ = income_of_mask_nb(d, cfg, d[OWN + q])
        opp_income += inc_q
        pq = d[pb_nb(q) + P_PENTHOUSES]
        s = pq * cfg[K_PT_PENTHOUSE] + popcount(d[OWN + q] & sm) * cfg[K_PT_STRATEGIC]
        if s > best_other:
            best_other = s
        if pq > most_pent:
            most_pent = pq
    lead = public + md * cfg[K_MISSION_POINTS] - best_other
    stock = 0
    for k in range(N_STOCK):
        stock += d[b + P_STOCK + k] * price_nb(cfg, k)
    fm, nm, skm = build_masks_nb(d, cfg, p)
    # the sites of each level, one floor of every level assumed in stock (sites_nb's rule, all levels at once)
    held = np.int64(0)   # the stock of each level, 8 bits a level (no array: kernels do not allocate)
    for k in range(LEVELS):
        held |= d[b + P_STOCK + k] << (8 * k)
        d[b + P_STOCK + k] = 1
    all_fm, _, _ = build_masks_nb(d, cfg, p)
    ready = 0
    for k in range(LEVELS):
        n = (held >> (8 * k)) & 255
        d[b + P_STOCK + k] = n
        if n > 0 and (all_fm & d[HM + k]) != 0:
            ready += price_nb(cfg, k)
    pent_sites = all_fm & d[HM + LEVELS - 1]
    # the cheapest fee of an own penthouse now (-1: no site), as the rule states it: under
    # cash.fee_over_cap 'unpaid' the part paid depends on the recipient's cash, hidden when covered
    pent_fee = -1
    m = pent_sites
    while m != 0:
        cell = lowest_bit_index(m)
        m &= m - 1
        fee, _ = fee_of_nb(cfg, p, BUILD_FLOOR, d[BH + cell], top_nb(d, cell))
        if pent_fee < 0 or fee < pent_fee:
            pent_fee = fee
    triggered = d[M_TRIGGER] >= 0
    progress = 1.0 if triggered else min(1.0, most_pent / max(1, cfg[K_END_PENTHOUSES]))
    cash = d[b + P_CASH]
    bonus, cards_open, cards_done = hand_nb(d, cfg, p, own)
    out[0] = 1.0
    out[1] = public
    out[2] = md * cfg[K_MISSION_POINTS]
    out[3] = pent
    out[4] = popcount(own & mm)
    out[5] = bonus
    out[6] = income
    out[7] = opp_income
    out[8] = lead
    out[9] = cash
    out[10] = max(0, cash + income - cfg[K_CAP])
    out[11] = stock
    out[12] = ready
    out[13] = d[b + P_STOCK + LEVELS - 1]
    out[14] = d[b + P_SKY_STOCK]
    out[15] = cards_open
    out[16] = cards_done
    out[17] = popcount(fm | nm | skm)
    out[18] = progress
    out[19] = income * progress
    out[20] = cash * progress
    out[21] = lead if triggered else 0.0
    cash_next = min(cash + income, cfg[K_CAP])
    pent_held = d[b + P_STOCK + LEVELS - 1]
    out[22] = 1.0 if pent_fee >= 0 else 0.0
    out[23] = 1.0 if pent_fee >= 0 and pent_held > 0 and cash_next >= pent_fee else 0.0
    out[24] = 1.0 if pent_fee >= 0 and pent_held == 0 and cash + income >= price_nb(cfg, LEVELS - 1) + pent_fee else 0.0
    out[F_HEURISTIC_PICK] = 0.0
