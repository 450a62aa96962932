"""Skyline of the World's side of the engine adapter (engines.core.adapter): how a seat decides,
what the search tries, what a seat cannot see, and the final scores.

Hidden from seat p (rules.observe_nb), and what determinize_nb puts there instead (drawn only from
the searcher's policy stream; it never reads a hidden value, only the size of a hidden place and
the union of the hidden card places, which the seat knows):

- the bonus cards: the order of the undrawn pile and the other players' hands (and trade-ins in
  progress, always empty when p is to move). The seat knows the union of these places -- every
  card except its own and those that left the game, which were shown when cashed or handed to the
  bank -- and their sizes (cards in hand are counted on the table, the pile's size is the number
  drawn). The union is pooled as a set, shuffled, and dealt back keeping each place's size.
- the missions: every mission but the seat's own is dealt at random to the others (the unused
  ones go to the rest of the deal list).
- the chance stream: re-seeded (the rules use it at setup and, under bonus.empty_pile
  'reshuffle_traded' only, to shuffle the traded-in cards into a new pile in play: the sample's
  reshuffle is then its own, not the game's).
- covered variant only -- the other players' cash, stock and money counters, and the bank's
  balance (which would reveal the total cash):
    stock: with a supply per colour (supply.pool 'per_colour', the default) each player's regular
           floors and penthouses are exact: his colour's components minus its supply in the bank
           (on the table) and its floors on the board. The neutral floors (one shared supply),
           and every floor under a shared pool, are exact per kind in total, from public
           information (the components list minus the bank's supply, the floors on the board
           and the seat's own stock); each of those floors goes to a uniformly random other
           player. An approximation: the split between the others is not conditioned on what
           they were seen to build or the money they had.
    cash:  exact (the start cash) before a player's first turn -- he has earned nothing and, with
           no floor on the board, received no fee; afterwards uniform over 0..start cash. An
           approximation (a faithful posterior would need the game's history, which the state
           does not keep): scripted players mostly spend what they earn (mean cash between turns
           2-4 M for greedy and heuristic, 9 M for random, measured in 4-player games), so the
           estimate's mean (start cash / 2) sits between them.
    Skyline floors in hand: received minus built (both public), so exact.
    money counters and the bank balance: statistics no rule reads; zeroed.

The learned expert (engines.core.expert) decides over the same pieces: the full legal list, this
determinization and the rules, scoring each outcome with features.features_nb.

Actions: the full legal list (legal_nb). Rollouts play `rollout` (greedy by default, see
policies.py; random or heuristic) through decide_nb, the batch loop's own decision; a rollout
always ends, at the third penthouse's round or at the game's own turn cap (end.turn_cap, a stall), so the default rollout_cap
is 0 (to the end). Reward: prestige with the tie chain (rules.tie_key_nb), ranked by the harness.
"""
from __future__ import annotations

import numpy as np

from engines.core.expert import make_expert, prior_row
from engines.core.kernel import inline_kernel, ir_inline_kernel, kernel
from engines.core.lowlevel import lowest_bit_index, popcount, writable_view
from engines.core.rng import below, next_u64, seed_into, shuffle
from engines.skyline_of_the_world.params import (
    K_POOL, K_COVERED, K_N_CARDS, K_N_CELLS, K_N_MISSIONS, K_START_CASH, K_SUPPLY, K_SUPPLY_NEUTRAL, LEVELS, N_STOCK,
)
from engines.skyline_of_the_world.features import F_HEURISTIC_PICK, N_FEATURES, features_nb
from engines.skyline_of_the_world.policies import EXPERT, HEURISTIC, POLICIES, choose_action_nb
from engines.skyline_of_the_world.rules import apply_nb, legal_nb, pb_nb, score_parts_nb, tie_key_nb
from engines.skyline_of_the_world.state import (
    BH, BS, DECK, FLOOR_CODE, M_BANK_NET, M_DECK_POS, M_NPLAYERS, M_PHASE, M_PLAYER, MISSIONS, N_ACTIONS, NEUTRAL, PENT_CODE,
    NEUTRAL_STOCK, P_BOUGHT, P_CAP_LOST, P_CAP_LOST_OTHER, P_CASH, P_CASHED_VALUE, P_FEES_BANK, P_FEES_PAID, P_FEES_RECV,
    P_GOT_SELL, P_HAND, P_INCOME_SUM, P_MISSION, P_SKY_GOT, P_SKY_PLACED, P_SKY_STOCK, P_SOLD, P_SPENT_BUY,
    P_STOCK, P_TRADE_MASK, P_TURNS, PH_OVER, PH_TRADE, SUP, CSUP,
)

MAX_ACTIONS = N_ACTIONS
# a seat's row of the adapter's work matrix: the score parts the tables report
W_PENTHOUSES, W_STRATEGIC, W_MISSION = range(3)
WORK_WIDTH = 3


@kernel
def deal_hidden_cards_nb(d, cfg, p, pool, prng):
    """Pool the cards p cannot place (the undrawn pile, the others' hands and trade-ins) as a set,
    shuffle them and deal them back keeping every place's size."""
    P = d[M_NPLAYERS]
    nc = cfg[K_N_CARDS]
    pos = d[M_DECK_POS]
    hidden = np.int64(0)
    for i in range(pos, nc):
        hidden |= np.int64(1) << d[DECK + i]
    for q in range(P):
        if q != p:
            hidden |= d[pb_nb(q) + P_HAND] | d[pb_nb(q) + P_TRADE_MASK]
    n = np.int64(0)   # not a literal 0: shuffle would compile once more for Literal[int](0)
    while hidden != 0:   # ascending card ids: the list depends on the set only
        pool[n] = lowest_bit_index(hidden)
        hidden &= hidden - 1
        n += 1
    shuffle(prng, pool, n)
    k = 0
    for q in range(P):
        if q == p:
            continue
        b = pb_nb(q)
        for f in range(2):
            field = P_HAND if f == 0 else P_TRADE_MASK
            size = popcount(d[b + field])
            m = np.int64(0)
            for _ in range(size):
                m |= np.int64(1) << pool[k]
                k += 1
            d[b + field] = m
    for i in range(pos, nc):
        d[DECK + i] = pool[k]
        k += 1


@kernel
def deal_hidden_missions_nb(d, cfg, p, pool, prng):
    """Every mission but p's own, shuffled: the others' missions, then the unused rest of the deal."""
    P = d[M_NPLAYERS]
    mine = d[pb_nb(p) + P_MISSION]
    n = np.int64(0)   # not a literal 0 (as above)
    for m in range(cfg[K_N_MISSIONS]):
        if m != mine:
            pool[n] = m
            n += 1
    shuffle(prng, pool, n)
    k = 0
    for q in range(P):
        if q == p:
            d[MISSIONS + q] = mine
        else:
            d[MISSIONS + q] = pool[k]
            d[pb_nb(q) + P_MISSION] = pool[k]
            k += 1
    for i in range(P, cfg[K_N_MISSIONS]):
        d[MISSIONS + i] = pool[k]
        k += 1


@kernel
def others_stock_nb(d, cfg, p, k):
    """Floors of stock kind k the other players hold together, from public information only: the
    components (supply.floors / supply.neutral) minus the bank's supply, the pieces of that kind on
    the board and p's own stock."""
    on_board = 0
    for cell in range(cfg[K_N_CELLS]):
        h = d[BH + cell]
        if k == NEUTRAL_STOCK:
            for lv in range(h):
                if d[BS + cell * LEVELS + lv] == NEUTRAL:
                    on_board += 1
        elif h > k:
            code = d[BS + cell * LEVELS + k]
            if 1 <= code <= 8:   # a regular floor or a penthouse (Skyline and neutral floors come from elsewhere)
                on_board += 1
    total = cfg[K_SUPPLY_NEUTRAL] if k == NEUTRAL_STOCK else cfg[K_SUPPLY + k]
    return total - d[SUP + k] - on_board - d[pb_nb(p) + P_STOCK + k]


@kernel
def colour_stock_nb(d, cfg, q, k):
    """Floors of level k + 1 in player q's stock under a supply per colour, from public information:
    his colour's components (supply.colour) minus its supply in the bank and its floors on the board."""
    on_board = 0
    for cell in range(cfg[K_N_CELLS]):
        if d[BH + cell] > k:
            code = d[BS + cell * LEVELS + k]
            if code == FLOOR_CODE + q or code == PENT_CODE + q:   # his regular floor or penthouse on that level
                on_board += 1
    return cfg[K_SUPPLY + k] - d[CSUP + q * LEVELS + k] - on_board


@kernel
def sample_covered_nb(d, cfg, p, prng):
    """The covered variant: the others' cash, stock and money counters, sampled (module docstring)."""
    P = d[M_NPLAYERS]
    d[M_BANK_NET] = 0
    for q in range(P):
        if q == p:
            continue
        b = pb_nb(q)
        d[b + P_CASH] = cfg[K_START_CASH] if d[b + P_TURNS] == 0 else below(prng, cfg[K_START_CASH] + 1)
        d[b + P_SKY_STOCK] = d[b + P_SKY_GOT] - d[b + P_SKY_PLACED]
        for k in range(N_STOCK):
            d[b + P_STOCK + k] = 0
            d[b + P_BOUGHT + k] = 0
            d[b + P_SOLD + k] = 0
        d[b + P_INCOME_SUM] = 0
        d[b + P_FEES_PAID] = 0
        d[b + P_FEES_RECV] = 0
        d[b + P_FEES_BANK] = 0
        d[b + P_CAP_LOST] = 0
        d[b + P_CAP_LOST_OTHER] = 0
        d[b + P_CASHED_VALUE] = 0
        d[b + P_SPENT_BUY] = 0
        d[b + P_GOT_SELL] = 0
    for k in range(N_STOCK):
        if k < LEVELS and cfg[K_POOL] == 0:
            for q in range(P):
                if q != p:
                    d[pb_nb(q) + P_STOCK + k] = colour_stock_nb(d, cfg, q, k)
            continue
        for _ in range(others_stock_nb(d, cfg, p, k)):
            o = below(prng, P - 1)
            q = o if o < p else o + 1
            d[pb_nb(q) + P_STOCK + k] += 1



@inline_kernel
def determinize_nb(d, rng, cfg, p, prng, buf):
    """Redraw what seat p cannot see (module docstring); `buf` is the pool of cards, then of missions."""
    seed_into(rng, next_u64(prng))
    deal_hidden_cards_nb(d, cfg, p, buf, prng)
    deal_hidden_missions_nb(d, cfg, p, buf, prng)
    if cfg[K_COVERED] == 1:
        sample_covered_nb(d, cfg, p, prng)


@inline_kernel
def to_move_nb(d):
    return -1 if d[M_PHASE] == PH_OVER else d[M_PLAYER]


@ir_inline_kernel
def decide_scripted_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch):
    """Scripted policy `pid` (random, greedy, heuristic, a preset) decides for the seat to move
    over the n legal actions listed in `legal` (the core's loop lists them once, to count the
    choice and to decide)."""
    return choose_action_nb(pid, d, cfg, d[M_PLAYER], w, prng, legal, n)


@ir_inline_kernel
def decide_scripted_nb(d, cfg, aux, pid, w, prng, legal, scratch):
    """decide_scripted_listed_nb, listing the actions first."""
    return choose_action_nb(pid, d, cfg, d[M_PLAYER], w, prng, legal, legal_nb(d, cfg, legal))


@ir_inline_kernel
def decide_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch):
    """decide_scripted_listed_nb and the learned expert, which lists the actions again (the same
    list) inside its kernel, shared with the trainer's, and plays the rules forward: only the
    look-ahead loop compiles it, so the scripted line-ups' first run compiles none of it."""
    if pid == EXPERT:
        return expert_nb(d, cfg, aux, w, prng, legal, scratch)
    return decide_scripted_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch)


@ir_inline_kernel
def decide_nb(d, cfg, aux, pid, w, prng, legal, scratch):
    """decide_listed_nb, listing the actions first (the search's rollouts and the step API)."""
    if pid == EXPERT:
        return expert_nb(d, cfg, aux, w, prng, legal, scratch)
    return decide_scripted_nb(d, cfg, aux, pid, w, prng, legal, scratch)


@inline_kernel
def search_actions_nb(d, cfg, out):
    return legal_nb(d, cfg, out)


@inline_kernel
def outcome_nb(d, cfg, work, score, key):
    """Prestige and the tie chain per seat; work[s] keeps the score parts the tables report."""
    for s in range(d[M_NPLAYERS]):
        prestige, pent, strat, md = score_parts_nb(d, cfg, s)
        score[s] = prestige
        key[s] = tie_key_nb(d, cfg, s)
        work[s, W_PENTHOUSES] = pent
        work[s, W_STRATEGIC] = strat
        work[s, W_MISSION] = md
    return True


# the expert's prior: the heuristic's pick at its default weights, no jitter
HEURISTIC_W = prior_row(POLICIES["heuristic"])


@kernel
def heuristic_pick_nb(d, cfg, aux, rng, buf):
    """The heuristic's action for the seat to move (features.F_HEURISTIC_PICK marks it)."""
    n = legal_nb(d, cfg, buf)
    return choose_action_nb(HEURISTIC, d, cfg, d[M_PLAYER], writable_view(HEURISTIC_W), rng, buf, n)


@inline_kernel
def expert_prior_nb(d, cfg, aux, rng, buf, legal, n, f):
    """heuristic_pick_nb, the expert's prior (it lists the actions itself into buf: the expert's
    list, legal[:n], and the features row f are left alone)."""
    return heuristic_pick_nb(d, cfg, aux, rng, buf)


@kernel
def settle_nb(d, rng, cfg, aux, p, buf, f):
    """The expert's afterstate: a trade-in begun is completed (its remaining cards picked as the
    heuristic gives them, the card furthest from completion first) before it is scored, so the
    first card given reads as what the trade is -- three cards for trade_value -- and not as a
    card lost for nothing (the money comes only with the last card)."""
    while d[M_PHASE] == PH_TRADE and d[M_PLAYER] == p:
        apply_nb(d, rng, cfg, heuristic_pick_nb(d, cfg, aux, rng, buf))


# the learned expert's kernels (engines.core.expert): its choice and the trainer's afterstate features
expert_nb, afterstate_nb, choices_nb = make_expert(apply_nb, determinize_nb, search_actions_nb, to_move_nb, features_nb,
                                                   N_FEATURES, MAX_ACTIONS, settle_nb=settle_nb,
                                                   prior_nb=expert_prior_nb, prior_feature=F_HEURISTIC_PICK)
