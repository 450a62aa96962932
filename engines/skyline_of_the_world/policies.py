"""Skyline of the World policies: integer ids dispatched inside one jitted `choose_action_nb`.

Every policy reads the public board and its own hand and mission only (never the pile order,
another player's hand or mission, nor -- in the covered variant -- another player's cash or
stock): the evaluations below touch OWN / TOPV / heights (public), the mover's own block, and
the other players' penthouse counts (public).

    random     layered: an action kind uniformly among the kinds with a legal action (build a
               floor / a neutral floor / a Skyline floor, stop building, cash a card, trade in,
               buy, sell, end the turn), then uniformly among that kind's legal actions
    greedy     best immediate income plus points: each build valued by the income it adds plus 5
               per prestige point gained, a completed bonus card cashed first, stops building when
               nothing adds value; buys the most valuable floor it can place next turn; never buys
               neutral floors; trades in cards and sells floors only to get out of a freeze (below)
    heuristic  the same moves valued with named weights (HEURISTIC_WEIGHTS): income growth,
               blocking (income taken from the opponent whose top floor is covered, neutral floors
               included), penthouse and end timing, strategic areas, mission and bonus progress,
               fees paid and a cash reserve; the same way out of a freeze
    expert     the learned expert (engines.core.expert): each action's outcome scored by a linear
               model over features.py's description of what the seat sees (expert.toml, written
               by `skyline-lab train skyline_of_the_world`); no search
    search     information-set MCTS (engines.core.search; this game's adapter in search.py):
               determinized searches with random / greedy / heuristic play-outs

A freeze ("stuck", stuck_nb): no income, and too little cash to pay the cheapest placement any floor
in the stock (or a Skyline floor) allows. Nothing changes by waiting, so both scripts do what a
person would: trade in three bonus cards for money (weight `stuck_trade`), and find the cheapest
placement they can still pay for by selling the rest of the stock at half value, with a floor in
stock or one bought from their supply (way_out_nb); then sell the other floors until it is paid
for, buy its floor if needed, and never spend that money on another floor (weight `stuck_sell`).
Before these moves no scripted player ever sold a floor, and the heuristic traded cards in only
below a cash reserve (0 by default: never).

Greedy and heuristic break ties with seeded noise (weight `jitter`, see GREEDY_WEIGHTS), so
self-play of identical players does not repeat itself; jitter=0 is the noiseless player.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.core.expert import EXPERT_FILE, expert_policy, load_model
from engines.core.kernel import inline_kernel, kernel
from engines.core.lowlevel import lowest_bit_index, popcount
from engines.core.lineup import policy_row
from engines.core.presets import PRESETS_FILE, add_presets
from engines.core.rng import below, uniform
from engines.core.search import search_policy
from engines.core.spec import PolicyInfo
from engines.skyline_of_the_world.features import FEATURES, best_bonus_progress_nb
from engines.skyline_of_the_world.params import (
    K_CARD_LEN, K_CARD_MASK, K_CAP, K_NEUTRAL_SELLABLE, K_END_PENTHOUSES, K_LEVEL_VALUES, K_MISSION_MASK, K_N_CELLS, K_PAY3, K_PAY4,
    K_PT_PENTHOUSE, K_PT_STRATEGIC, K_STRATEGIC_MASK, K_TRADE_IN, LEVELS, MAX_CELLS,
)
from engines.skyline_of_the_world.rules import (
    NOBODY, build_masks_nb, can_build_nb, fee_nb, income_of_mask_nb, pb_nb, piece_owner_nb, price_nb, score_parts_nb,
    supply_index_nb, top_nb,
)
from engines.skyline_of_the_world.state import (
    AK_BUY, AK_CASH, AK_END, AK_FLOOR, AK_SELL, AK_STOP, AK_TRADE, BUILD_FLOOR, BUILD_NEUTRAL, BUILD_SKY, BH, BUY_BASE, HM,
    CASH_BASE, EMPTY, END, M_NPLAYERS, M_PHASE, M_TRIGGER, N_KINDS, NEUTRAL, NEUTRAL_STOCK, OWN, P_CASH, P_HAND,
    P_MISSION, P_PENTHOUSES, P_STOCK, PH_TRADE, SELL_BASE, STOP, TOPV, TRADE_BASE,
)

RANDOM, GREEDY, HEURISTIC, SEARCH, EXPERT = 0, 1, 2, 3, 4

# Defaults from a small tuning against greedy (seed 99, 800 games each at 2 and 4 players; the
# reported win rates use other seeds): keeping no cash reserve and ending the game whenever
# possible (timing 0) beat the cautious settings -- the player who ends the game wins most games.
HEURISTIC_WEIGHTS = {
    "income": 1.0,         # value of 1M more income per turn (own paying group)
    "blocking": 1.0,       # value of 1M less income for the opponent whose top floor is covered
    "penthouse": 8.0,      # value of a prestige point (penthouse, strategic area, mission) in millions
    "timing": 0.0,         # > 0.5: a game-ending penthouse is taken only when it leaves us ahead on prestige
    "mission": 2.0,        # value of one more mission cell held (top floor)
    "bonus": 1.5,          # value of one more cell held on the bonus card closest to completion
    "fee": 0.3,            # cost of 1M paid as a fee (to a player or the bank)
    "reserve": 0.0,        # cash (millions) kept back when buying floors
    "jitter": 0.01,        # tie-break noise: see GREEDY_WEIGHTS
    "stuck_trade": 1.0,    # > 0: frozen (no income, no placement paid for), trade in bonus cards for money
    "stuck_sell": 1.0,     # > 0: frozen, sell floors from the stock (keeping the cheapest to place) to pay one
}
# Self-play of identical scripted players must not collapse into identical games: greedy and
# heuristic add uniform noise in [0, jitter) to each candidate's value, drawn from the seat's policy
# stream, so equal candidates are broken at random and values closer than `jitter` sometimes.
# The default 0.01 lies below every difference greedy means (its fee tie-break is 0.01 per million),
# so it only breaks exact ties there; jitter=0 draws nothing and keeps the first listed (the old play).
GREEDY_WEIGHTS = {
    "jitter": 0.01,        # uniform noise in [0, jitter) added to each candidate's value (0: none, no draw)
    "stuck_trade": 1.0,    # as the heuristic's: out of a freeze by trading in bonus cards
    "stuck_sell": 1.0,     # as the heuristic's: out of a freeze by selling floors
}
_HW = np.array(list(HEURISTIC_WEIGHTS.values()), dtype=np.float64)
W_INCOME, W_BLOCK, W_PENT, W_TIMING, W_MISSION, W_BONUS, W_FEE, W_RESERVE, W_JITTER, W_STUCK_TRADE, \
    W_STUCK_SELL = range(11)
W_GREEDY_JITTER, W_GREEDY_STUCK_TRADE, W_GREEDY_STUCK_SELL = range(3)
MAX_WEIGHTS = len(HEURISTIC_WEIGHTS)   # the widest scripted row (GameSpec.max_weights)

POLICIES = {
    "random": PolicyInfo("random", RANDOM, "layered: uniform action kind, then uniform among its legal actions"),
    "greedy": PolicyInfo("greedy", GREEDY, "best immediate income plus points", dict(GREEDY_WEIGHTS)),
    "heuristic": PolicyInfo("heuristic", HEURISTIC, "weighted income, blocking, penthouses, paths, fees, reserve",
                            dict(HEURISTIC_WEIGHTS)),
}
# the learned expert (engines.core.expert; its model is expert.toml beside this file, written by
# `skyline-lab train skyline_of_the_world`; dispatched by search.decide_listed_nb, never by
# choose_action_nb). Declared before the search so that the search may roll it out.
POLICIES["expert"] = expert_policy(EXPERT, load_model(Path(__file__).parent / EXPERT_FILE, FEATURES))
# the search player (engines.core.search; this game's side in search.py, dispatched by the batch
# loop and the step API, never by choose_action_nb). Its default rollout is greedy, not random:
# in 8 two-player games each, search(iterations=200) beat greedy 7 times with greedy rollouts
# (heuristic rollouts: 7, at twice the cost per simulated decision) but only twice with random ones.
POLICIES["search"] = search_policy(SEARCH, dict(POLICIES), rollout="greedy")
# named weight presets (presets.toml beside this file; `skyline-lab tune` writes them), which the
# search may roll out too (rollout=heuristic_tuned)
add_presets(POLICIES, Path(__file__).parent / PRESETS_FILE)


def default_weights(name: str, width: int = MAX_WEIGHTS) -> np.ndarray:
    """Policy `name`'s default weight row; `name` may carry weights as in a line-up
    ("search(iterations=200, rollout=heuristic)": the row includes the rollout's weights)."""
    return policy_row(POLICIES, name, width)[1]


@inline_kernel
def kind_of_nb(a):
    """The action kind (state.AK_*) of action id a."""
    if a < STOP:
        return a // MAX_CELLS  # AK_FLOOR, AK_NEUTRAL, AK_SKY
    if a == STOP:
        return AK_STOP
    if a < TRADE_BASE:
        return AK_CASH
    if a < BUY_BASE:
        return AK_TRADE
    if a < SELL_BASE:
        return AK_BUY
    if a < END:
        return AK_SELL
    return AK_END


@kernel
def random_action_nb(prng, legal, n):
    """Layered uniform choice: a kind among those present, then an action of that kind. legal[:n]
    is ascending, so each kind's actions are contiguous."""
    kinds = 0
    last = -1
    for i in range(n):
        k = kind_of_nb(legal[i])
        if k != last:
            kinds += 1
            last = k
    pick = below(prng, np.int64(kinds))
    # the pick-th run of equal kinds
    last = -1
    i = 0
    while i < n:
        k = kind_of_nb(legal[i])
        j = i
        while j < n and kind_of_nb(legal[j]) == k:
            j += 1
        if pick == 0:
            return legal[i + below(prng, j - i)]
        pick -= 1
        i = j
    return legal[0]


# ---------------------------------------------------------------- evaluation helpers (public information)

@kernel
def build_effect_nb(d, cfg, p, what, cell):
    """What building `what` on `cell` would do, by the rules' own masks: (own income after,
    income the covered opponent loses, prestige gained, opponent seat or -1, new own mask).
    Temporarily edits OWN / TOPV and restores them."""
    h = d[BH + cell]
    below_code = top_nb(d, cell)
    opp = -1
    if below_code != EMPTY and below_code != NEUTRAL and piece_owner_nb(below_code) != p:
        opp = piece_owner_nb(below_code)
    bit = np.int64(1) << cell
    old_topv = d[TOPV + cell]
    own_old = d[OWN + p]
    new_topv = 0
    if what == BUILD_FLOOR and h < LEVELS - 1:
        new_topv = cfg[K_LEVEL_VALUES + h]
    if what == BUILD_NEUTRAL:
        own_new = own_old & ~bit
    else:
        own_new = own_old | bit
    d[TOPV + cell] = new_topv
    inc_after, _ = income_of_mask_nb(d, cfg, own_new)
    opp_loss = 0
    if opp >= 0:
        d[TOPV + cell] = old_topv
        before, _ = income_of_mask_nb(d, cfg, d[OWN + opp])
        after, _ = income_of_mask_nb(d, cfg, d[OWN + opp] & ~bit)
        opp_loss = before - after
    d[TOPV + cell] = old_topv
    # prestige: a penthouse, strategic areas, the mission
    pts = 0
    if what == BUILD_FLOOR and h == LEVELS - 1:
        pts += cfg[K_PT_PENTHOUSE]
    sm = cfg[K_STRATEGIC_MASK]
    pts += (popcount(own_new & sm) - popcount(own_old & sm)) * cfg[K_PT_STRATEGIC]
    return inc_after, opp_loss, pts, opp, own_new


@kernel
def sites_nb(d, cfg, p, k):
    """Sites where a floor of level k + 1 could go if he had one (build_masks_nb's floor rule,
    money aside): the heuristic's reason to buy that floor."""
    b = pb_nb(p)
    had = d[b + P_STOCK + k]
    d[b + P_STOCK + k] = 1
    fm, _, _ = build_masks_nb(d, cfg, p)
    d[b + P_STOCK + k] = had
    return popcount(fm & d[HM + k])


NO_FEE = 1 << 40   # no placement at all


@kernel
def cheapest_placement_nb(d, cfg, p):
    """The fee of the cheapest placement the floors in p's stock (and a Skyline floor in hand) allow
    now, money aside (build_masks_nb); NO_FEE when there is none."""
    fm, nm, sm = build_masks_nb(d, cfg, p)
    best = NO_FEE
    for what in range(3):
        m = fm if what == BUILD_FLOOR else (nm if what == BUILD_NEUTRAL else sm)
        while m != 0:
            cell = lowest_bit_index(m)
            m &= m - 1
            amount, to = fee_nb(d, cfg, p, what, cell)
            if to == NOBODY:
                amount = 0
            if amount < best:
                best = amount
    return best


@kernel
def stuck_nb(d, cfg, p):
    """The freeze: no income, and less cash than the cheapest placement of p's stock costs (or
    nothing in the stock to place). Waiting changes nothing for him."""
    if d[pb_nb(p) + P_CASH] >= cheapest_placement_nb(d, cfg, p):
        return False
    inc, _ = income_of_mask_nb(d, cfg, d[OWN + p])
    return inc == 0


@kernel
def way_out_nb(d, cfg, p):
    """A frozen player's way out: the cheapest placement he can still pay for by selling the rest of
    his stock (at half value) -- with a floor of his stock, or with one he buys from his supply (or
    the neutral supply) first. Returns (money it needs: fee, plus the price if bought; its stock
    kind), or (NO_FEE, -1) when even selling everything would not pay for one."""
    b = pb_nb(p)
    cash = d[b + P_CASH]
    held = np.int64(0)
    wealth = cash
    for k in range(LEVELS + 1):
        if k < LEVELS or cfg[K_NEUTRAL_SELLABLE] == 1:
            wealth += d[b + P_STOCK + k] * (price_nb(cfg, k) // 2)
    best = NO_FEE
    best_k = -1
    for k in range(LEVELS + 1):
        held = d[b + P_STOCK + k]
        if held == 0 and d[supply_index_nb(cfg, p, k)] <= 0:
            continue
        # the sites of one floor of kind k, the rest of the stock set aside
        saved = np.int64(0)
        for j in range(LEVELS + 1):
            if j != k and d[b + P_STOCK + j] > 0:
                saved |= np.int64(1) << j
        for j in range(LEVELS + 1):
            if (saved >> j) & 1:
                d[b + P_STOCK + j] = -d[b + P_STOCK + j]   # negative: not in stock for build_masks_nb
        d[b + P_STOCK + k] = 1
        fm, nm, _ = build_masks_nb(d, cfg, p)
        d[b + P_STOCK + k] = held
        for j in range(LEVELS + 1):
            if (saved >> j) & 1:
                d[b + P_STOCK + j] = -d[b + P_STOCK + j]
        m = nm if k == NEUTRAL_STOCK else fm
        price = 0 if held > 0 else price_nb(cfg, k)
        avail = wealth - (price_nb(cfg, k) // 2 if held > 0 else 0)   # the kept floor is not sold
        while m != 0:
            cell = lowest_bit_index(m)
            m &= m - 1
            amount, to = fee_nb(d, cfg, p, np.int64(BUILD_NEUTRAL if k == NEUTRAL_STOCK else BUILD_FLOOR), cell)
            if to == NOBODY:
                amount = 0
            need = amount + price
            if need <= avail and need < best:
                best = need
                best_k = k
    return best, best_k


@kernel
def action_value_nb(pid, d, cfg, p, w, a, inc_now, mission_now, bonus_now):
    """The greedy (pid GREEDY) or heuristic value of legal action a for player p."""
    b = pb_nb(p)
    cash = d[b + P_CASH]
    if a < STOP:
        what = a // MAX_CELLS
        cell = a % MAX_CELLS
        inc_after, opp_loss, pts, opp, own_new = build_effect_nb(d, cfg, p, what, cell)
        amount, to = fee_nb(d, cfg, p, what, cell)
        if to == NOBODY:
            amount = 0
        if pid == GREEDY:
            return (inc_after - inc_now) + 5.0 * pts - 0.01 * amount
        v = w[W_INCOME] * (inc_after - inc_now) + w[W_BLOCK] * opp_loss + w[W_PENT] * pts - w[W_FEE] * amount
        mm = cfg[K_MISSION_MASK + d[b + P_MISSION]]
        v += w[W_MISSION] * (popcount(own_new & mm) - mission_now)
        v += w[W_BONUS] * (best_bonus_progress_nb(d, cfg, p, own_new) - bonus_now)
        if what == BUILD_FLOOR and d[BH + cell] == LEVELS - 1 and w[W_TIMING] > 0.5 \
                and d[b + P_PENTHOUSES] + 1 == cfg[K_END_PENTHOUSES] and d[M_TRIGGER] < 0:
            # the game-ending penthouse: take it only if it leaves us ahead on prestige now
            # (the others' missions are hidden: compare public prestige, plus our own mission)
            mine, _, _, _ = score_parts_nb(d, cfg, p)
            mine += pts
            best = -1
            for q in range(d[M_NPLAYERS]):
                if q != p:
                    s = d[pb_nb(q) + P_PENTHOUSES] * cfg[K_PT_PENTHOUSE] \
                        + popcount(d[OWN + q] & cfg[K_STRATEGIC_MASK]) * cfg[K_PT_STRATEGIC]
                    if s > best:
                        best = s
            v += w[W_PENT] * (2.0 if mine > best else -2.0)
        return v
    if a == STOP:
        return 0.0
    if a < TRADE_BASE:
        c = a - CASH_BASE
        return 100.0 + (cfg[K_PAY3] if cfg[K_CARD_LEN + c] == 3 else cfg[K_PAY4])
    if a < BUY_BASE:
        c = a - TRADE_BASE
        if d[M_PHASE] == PH_TRADE:  # give away the card furthest from completion
            return -1.0 * popcount(d[OWN + p] & cfg[K_CARD_MASK + c]) / cfg[K_CARD_LEN + c]
        if w[W_GREEDY_STUCK_TRADE if pid == GREEDY else W_STUCK_TRADE] > 0.0 and stuck_nb(d, cfg, p):
            # frozen: money from the cards, the one furthest from completion first
            return 1.0 - popcount(d[OWN + p] & cfg[K_CARD_MASK + c]) / cfg[K_CARD_LEN + c]
        if pid == GREEDY:
            return -1.0
        if cash < w[W_RESERVE] and popcount(d[b + P_HAND]) >= cfg[K_TRADE_IN] + 1:
            return 0.5 - popcount(d[OWN + p] & cfg[K_CARD_MASK + c]) / cfg[K_CARD_LEN + c]
        return -1.0
    if a < SELL_BASE:
        k = a - BUY_BASE
        price = price_nb(cfg, k)
        if w[W_GREEDY_STUCK_SELL if pid == GREEDY else W_STUCK_SELL] > 0.0 and stuck_nb(d, cfg, p):
            need, kind = way_out_nb(d, cfg, p)
            if need != NO_FEE:
                if k == kind and d[b + P_STOCK + k] == 0 and cash >= need:
                    return 50.0   # the floor of the way out, with the money for its fee next turn
                if cash - price < need:
                    return -1.0   # never spend the money the way out needs
        if k == NEUTRAL_STOCK:
            if pid == GREEDY or d[b + P_STOCK + NEUTRAL_STOCK] > 0:
                return -1.0
            return 0.5 * w[W_BLOCK] if cash - price >= w[W_RESERVE] + 5 else -1.0
        if d[b + P_STOCK + k] > 0:
            return -1.0
        if k == LEVELS - 1:
            if sites_nb(d, cfg, p, LEVELS - 1) == 0:
                return -1.0
            if pid == GREEDY:
                return 5.0
            return w[W_PENT] * 0.5 if cash - price >= (w[W_RESERVE] if d[M_TRIGGER] < 0 else 0) else -1.0
        if sites_nb(d, cfg, p, k) == 0:
            return -1.0
        if pid == GREEDY:
            return 0.5 * cfg[K_LEVEL_VALUES + k]
        if cash - price < w[W_RESERVE]:
            return -1.0
        return w[W_INCOME] * 0.5 * cfg[K_LEVEL_VALUES + k]
    if a < END:
        k = a - SELL_BASE
        if w[W_GREEDY_STUCK_SELL if pid == GREEDY else W_STUCK_SELL] <= 0.0 or price_nb(cfg, k) // 2 == 0:
            return -2.0
        if not stuck_nb(d, cfg, p):
            return -2.0
        need, keep = way_out_nb(d, cfg, p)
        if need == NO_FEE or cash >= need or (k == keep and d[b + P_STOCK + k] <= 1):
            return -2.0
        # frozen: sell the floor bringing the most, never the one the way out places
        return 0.5 + 0.01 * (price_nb(cfg, k) // 2)
    return 0.0


@kernel
def choose_action_nb(pid, d, cfg, p, w, prng, legal, n):
    """The action policy `pid` picks among legal[:n] for player p (w: its weight row)."""
    if pid == RANDOM:
        return random_action_nb(prng, legal, n)
    b = pb_nb(p)
    inc_now = 0
    mission_now = 0
    bonus_now = 0
    if legal[0] < STOP:
        inc_now, _ = income_of_mask_nb(d, cfg, d[OWN + p])
        mission_now = popcount(d[OWN + p] & cfg[K_MISSION_MASK + d[b + P_MISSION]])
        bonus_now = best_bonus_progress_nb(d, cfg, p, d[OWN + p])
    jitter = w[W_GREEDY_JITTER] if pid == GREEDY else w[W_JITTER]
    best = legal[0]
    best_v = -1e300
    for i in range(n):
        v = action_value_nb(pid, d, cfg, p, w, legal[i], inc_now, mission_now, bonus_now)
        if jitter > 0.0:
            v += jitter * uniform(prng)
        if v > best_v:
            best_v = v
            best = legal[i]
    return best
