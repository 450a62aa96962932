"""Project Skyline's side of the search player (engines.core.search): its state, what a seat
cannot see, and the actions the search tries.

    st  = (d, rng)        the state vector and the chance stream (State's arrays)
    ctx = (cfg, pool)     the rule vector and a scratch buffer for determinize_nb

Hidden from seat p (rules.observe_nb): the other players' hands (their sizes are public), the
order of every draw pile (p's own included), the Upgrade draw pile and the chance stream (the
order of future reshuffles). What p can deduce: every player's cards as a multiset follow from
the public acquisitions (start deck, buys, takes, upgrades, sales, plays, discard piles), so the
other player's hand + draw pile is a known multiset split between the two at known sizes; p's own
draw pile is a known multiset; the Upgrade draw pile holds the upgrades not yet seen in public.
`determinize_nb` therefore pools each other player's hand and draw pile and deals them back at
the same sizes, shuffles p's draw pile and the Upgrade draw pile, and reseeds the chance stream,
all from the searcher's policy stream. Each pool is sorted before it is shuffled so the sample
depends on the multiset only, never on the hidden order it replaces.

Not used: a perfect-recall seat could sometimes place a card more precisely (a card another
player bought and kept is in that hand, not in the draw pile). The state holds no history, so
the sample is drawn from the observation's information (as the brief's information model says).

Actions: the legal list (rules.legal_nb enumerates every decision, at most a few dozen build
targets), so n >= 1 while the game runs.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engines.core.kernel import allocating_kernel, inline_kernel, ir_inline_kernel, kernel
from engines.core.rng import below, next_u64, seed_into
from engines.core.search import make_search
from engines.core.search import clone_pair_nb as clone_nb, copy_pair_into_nb as copy_into_nb  # (vector, stream)
from engines.project_skyline.params import MAX_UPG
from engines.project_skyline.policies import RANDOM, choose_action_nb, random_action_nb
from engines.project_skyline.rules import apply_nb, card_count_nb, final_scoring_nb, legal_nb, pb_nb, score_of_nb
from engines.project_skyline.state import (
    MAX_HAND, MAX_PILE, MK_UPG, MK_UPG_N, M_NPLAYERS, M_PHASE, M_PLAYER, N_ACTIONS, PH_OVER, P_DRAW, P_DRAW_N,
    P_HAND, P_HAND_N,
)

MAX_ACTIONS = N_ACTIONS
POOL = max(MAX_HAND + MAX_PILE, MAX_UPG)


@inline_kernel
def n_players_nb(st):
    return st[0][M_NPLAYERS]


@kernel
def deal_pool_nb(d, pool, i0, n0, i1, n1, prng):
    """Pool d[i0:i0+n0] and d[i1:i1+n1], sort, shuffle, deal back at the same sizes: a uniform
    redistribution that depends on the multiset only (not on the order it overwrites)."""
    n = n0 + n1
    for i in range(n0):
        pool[i] = d[i0 + i]
    for i in range(n1):
        pool[n0 + i] = d[i1 + i]
    for i in range(1, n):               # insertion sort: a few dozen cards at most
        v = pool[i]
        j = i - 1
        while j >= 0 and pool[j] > v:
            pool[j + 1] = pool[j]
            j -= 1
        pool[j + 1] = v
    for i in range(n - 1, 0, -1):       # Fisher-Yates (rng.shuffle's draws)
        j = below(prng, i + 1)
        v = pool[i]
        pool[i] = pool[j]
        pool[j] = v
    for i in range(n0):
        d[i0 + i] = pool[i]
    for i in range(n1):
        d[i1 + i] = pool[n0 + i]


@kernel
def determinize_nb(st, ctx, p, prng):
    d, rng = st
    pool = ctx[1]
    seed_into(rng, next_u64(prng))                       # future reshuffles
    deal_pool_nb(d, pool, MK_UPG, d[MK_UPG_N], MK_UPG, 0, prng)   # the Upgrade draw pile
    for q in range(d[M_NPLAYERS]):
        b = pb_nb(q)
        if q == p:  # own hand known, own draw pile a known multiset in unknown order
            deal_pool_nb(d, pool, b + P_DRAW, d[b + P_DRAW_N], b + P_DRAW, 0, prng)
        else:       # hand + draw pile: a known multiset split at known sizes
            deal_pool_nb(d, pool, b + P_HAND, d[b + P_HAND_N], b + P_DRAW, d[b + P_DRAW_N], prng)


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
    """The batch loop's decision: list the legal actions, random draws from them directly."""
    d = st[0]
    cfg = ctx[0]
    n = legal_nb(d, cfg, buf)
    if pid == RANDOM:
        return random_action_nb(d, prng, buf, n)
    return choose_action_nb(pid, d, cfg, d[M_PLAYER], w, prng, buf, n)


@inline_kernel
def outcome_nb(st, ctx, score, key):
    """Final money and card count (the tie-break), as the batch ranks them; a capped rollout is
    scored as if the game ended now (card values and end condition added to the money)."""
    d = st[0]
    if d[M_PHASE] != PH_OVER:
        final_scoring_nb(d, ctx[0])
    for s in range(d[M_NPLAYERS]):
        score[s] = score_of_nb(d, s)
        key[s] = card_count_nb(d, s)
    return True


search_nb = make_search(SimpleNamespace(
    MAX_ACTIONS=MAX_ACTIONS, n_players_nb=n_players_nb, clone_nb=clone_nb, copy_into_nb=copy_into_nb,
    determinize_nb=determinize_nb, to_move_nb=to_move_nb, actions_nb=actions_nb, apply_nb=apply_nb_,
    rollout_nb=rollout_nb, outcome_nb=outcome_nb))


@ir_inline_kernel
def search_context_nb(cfg):
    """The ctx tuple a search needs (allocated once per batch chunk or step decision)."""
    return cfg, np.empty(POOL, np.int64)


@allocating_kernel
def search_action_nb(d, rng, cfg, w, prng, stats):
    """The search player's action for the seat to move (the step API's entry; cached)."""
    return search_nb((d, rng), search_context_nb(cfg), w, prng, stats)
