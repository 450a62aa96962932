"""Skyline of the World's side of the search player (engines.core.search): its state, what a seat
cannot see, and the actions the search tries.

    st  = (d, rng)                 the state vector and the chance stream (State's arrays)
    ctx = (cfg, cards, missions)   the rule vector and two scratch lists for determinize_nb

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

Actions: the full legal list (legal_nb). Rollouts play `rollout` (greedy by default, see
policies.py; random or heuristic) over the listed legal actions exactly as the batch loop does; a rollout always ends, at the third
penthouse's round or at the game's own turn cap (end.turn_cap, a stall), so the default rollout_cap
is 0 (to the end). Reward: prestige with the tie chain (rules.tie_key_nb), ranked by the harness.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engines.core.kernel import allocating_kernel, inline_kernel, ir_inline_kernel, kernel
from engines.core.lowlevel import lowest_bit_index, popcount
from engines.core.rng import below, next_u64, seed_into, shuffle
from engines.core.search import make_search
from engines.core.search import clone_pair_nb as clone_nb, copy_pair_into_nb as copy_into_nb  # (vector, stream)
from engines.skyline_of_the_world.params import (
    K_POOL, K_COVERED, K_N_CARDS, K_N_CELLS, K_N_MISSIONS, K_START_CASH, K_SUPPLY, K_SUPPLY_NEUTRAL, LEVELS, MAX_CARDS,
    MAX_MISSIONS, N_STOCK,
)
from engines.skyline_of_the_world.policies import choose_action_nb
from engines.skyline_of_the_world.rules import apply_nb, legal_nb, pb_nb, score_parts_nb, tie_key_nb
from engines.skyline_of_the_world.state import (
    BH, BS, DECK, M_BANK_NET, M_DECK_POS, M_NPLAYERS, M_PHASE, M_PLAYER, MISSIONS, N_ACTIONS, NEUTRAL,
    NEUTRAL_STOCK, P_BOUGHT, P_CAP_LOST, P_CAP_LOST_OTHER, P_CASH, P_CASHED_VALUE, P_FEES_BANK, P_FEES_PAID, P_FEES_RECV,
    P_GOT_SELL, P_HAND, P_INCOME_SUM, P_MISSION, P_SKY_GOT, P_SKY_PLACED, P_SKY_STOCK, P_SOLD, P_SPENT_BUY,
    P_STOCK, P_TRADE_MASK, P_TURNS, PH_OVER, SUP, CSUP,
)

MAX_ACTIONS = N_ACTIONS


@inline_kernel
def n_players_nb(st):
    return st[0][M_NPLAYERS]


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
    n = 0
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
    n = 0
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
            if code == 1 + q or code == 5 + q:   # his regular floor or penthouse on that level
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
def determinize_nb(st, ctx, p, prng):
    d, rng = st
    cfg = ctx[0]
    seed_into(rng, next_u64(prng))
    deal_hidden_cards_nb(d, cfg, p, ctx[1], prng)
    deal_hidden_missions_nb(d, cfg, p, ctx[2], prng)
    if cfg[K_COVERED] == 1:
        sample_covered_nb(d, cfg, p, prng)


@inline_kernel
def to_move_nb(st):
    d = st[0]
    return -1 if d[M_PHASE] == PH_OVER else d[M_PLAYER]


@inline_kernel
def actions_nb(st, ctx, out):
    return legal_nb(st[0], ctx[0], out)


@inline_kernel
def apply_nb_(st, ctx, a):
    apply_nb(st[0], st[1], ctx[0], a)


@inline_kernel
def rollout_nb(st, ctx, pid, w, prng, buf):
    """The batch loop's decision: list the legal actions, let policy pid choose."""
    d = st[0]
    n = legal_nb(d, ctx[0], buf)
    return choose_action_nb(pid, d, ctx[0], d[M_PLAYER], w, prng, buf, n)


@inline_kernel
def outcome_nb(st, ctx, score, key):
    d = st[0]
    for s in range(d[M_NPLAYERS]):
        score[s] = score_parts_nb(d, ctx[0], s)[0]
        key[s] = tie_key_nb(d, ctx[0], s)
    return True


search_nb = make_search(SimpleNamespace(
    MAX_ACTIONS=MAX_ACTIONS, n_players_nb=n_players_nb, clone_nb=clone_nb, copy_into_nb=copy_into_nb,
    determinize_nb=determinize_nb, to_move_nb=to_move_nb, actions_nb=actions_nb, apply_nb=apply_nb_,
    rollout_nb=rollout_nb, outcome_nb=outcome_nb))


@ir_inline_kernel
def search_context_nb(cfg):
    """The ctx tuple a search needs (allocated once per batch chunk or step decision)."""
    return cfg, np.empty(MAX_CARDS, np.int64), np.empty(MAX_MISSIONS, np.int64)


@allocating_kernel
def search_action_nb(d, rng, cfg, w, prng, stats):
    """The search player's action for the seat to move (the step API's entry; cached)."""
    return search_nb((d, rng), search_context_nb(cfg), w, prng, stats)
