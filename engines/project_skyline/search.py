"""Project Skyline's side of the engine adapter (engines.core.adapter): how a seat decides, what
the search tries, what a seat cannot see, and the final scores.

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

The learned expert (engines.core.expert) decides over the same pieces: the legal list, the
determinization and the rules, scoring each outcome with features.features_nb.

Actions: the legal list (rules.legal_nb enumerates every decision, at most a few dozen build
targets), so n >= 1 while the game runs.
"""
from __future__ import annotations

import numpy as np

from engines.core.expert import make_expert, prior_row
from engines.core.lowlevel import writable_view
from engines.core.kernel import inline_kernel, ir_inline_kernel, kernel
from engines.core.rng import below, next_u64, seed_into
from engines.project_skyline.params import MAX_UPG
from engines.project_skyline.features import N_FEATURES, features_nb
from engines.project_skyline.policies import EXPERT, HEURISTIC, POLICIES, RANDOM, choose_action_nb, random_action_nb
from engines.project_skyline.rules import apply_nb, card_count_nb, final_scoring_nb, legal_nb, pb_nb, score_of_nb
from engines.project_skyline.state import (
    MAX_HAND, MAX_PILE, MK_UPG, MK_UPG_N, M_NPLAYERS, M_PHASE, M_PLAYER, N_ACTIONS, PH_OVER, P_DRAW, P_DRAW_N,
    P_HAND, P_HAND_N,
)

# the legal list's size, and the adapter's int buffer determinize_nb pools the cards in
MAX_ACTIONS = max(N_ACTIONS, MAX_HAND + MAX_PILE, MAX_UPG)
WORK_WIDTH = 1   # outcome_nb keeps no score parts: the column writer reads the state


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
def determinize_nb(d, rng, cfg, p, prng, pool):
    seed_into(rng, next_u64(prng))                       # future reshuffles
    # np.int64: a literal offset or 0 would compile deal_pool_nb once more per literal value (the
    # expert determinizes inside the scripted kernel too)
    none = np.int64(0)
    deal_pool_nb(d, pool, np.int64(MK_UPG), d[MK_UPG_N], np.int64(MK_UPG), none, prng)   # the Upgrade draw pile
    for q in range(d[M_NPLAYERS]):
        b = pb_nb(q)
        if q == p:  # own hand known, own draw pile a known multiset in unknown order
            deal_pool_nb(d, pool, b + P_DRAW, d[b + P_DRAW_N], b + P_DRAW, none, prng)
        else:       # hand + draw pile: a known multiset split at known sizes
            deal_pool_nb(d, pool, b + P_HAND, d[b + P_HAND_N], b + P_DRAW, d[b + P_DRAW_N], prng)


@inline_kernel
def to_move_nb(d):
    return -1 if d[M_PHASE] == PH_OVER else d[M_PLAYER]


@ir_inline_kernel
def decide_nb(d, cfg, aux, pid, w, prng, legal, scratch):
    """Policy `pid` decides for the seat to move among the listed legal actions. No scripted
    policy looks ahead, so this is also the scripted loop's decide_scripted_nb."""
    n = legal_nb(d, cfg, legal)
    return decide_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch)


@ir_inline_kernel
def decide_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch):
    """decide_nb over the n legal actions listed in `legal` (the core's loop lists them once, to
    count the choice and to decide); random draws from them directly (choose_action_nb's draw,
    one call layer less); the expert lists its candidates itself."""
    if pid == EXPERT:
        return expert_nb(d, cfg, aux, w, prng, legal, scratch)
    if pid == RANDOM:
        return random_action_nb(d, prng, legal, n)
    return choose_action_nb(pid, d, cfg, d[M_PLAYER], w, prng, legal, n)


@inline_kernel
def outcome_nb(d, cfg, work, score, key):
    """Final money and card count (the tie-break), as the batch ranks them; a capped rollout is
    scored as if the game ended now (card values and end condition added to the money)."""
    if d[M_PHASE] != PH_OVER:
        final_scoring_nb(d, cfg)
    for s in range(d[M_NPLAYERS]):
        score[s] = score_of_nb(d, s)
        key[s] = card_count_nb(d, s)
    return True


# the heuristic's default weights with no jitter: how the expert's sample finishes its seat's turn
HEURISTIC_W = prior_row(POLICIES["heuristic"], 8)
SETTLE_CAP = 64   # decisions settle_nb plays at most (a safeguard: a turn is far shorter)


@kernel
def settle_nb(d, rng, cfg, aux, me, buf, f):
    """Play on, in the expert's sample, the rest of seat `me`'s turn as the heuristic plays it
    (default weights, no jitter), so that the expert scores each candidate as the first step of a
    finished turn (engines.core.expert's settle hook). A turn is several decisions (buy, symbol,
    play, targets, ..., discard) whose worth shows only when the turn is done: a card bought is
    played or kept, an effect resolved, a floor built. Measured (ladder of heuristic, expert and
    search(20) at 4 players, 300 games a table): scored mid-turn the expert rated -0.15 against
    search(20)'s 1.37; scored at the turn's end with the same weights, 0.95 against 0.73; refitted
    on turn-end states (the shipped model), 1.66 against 0.26."""
    w = writable_view(HEURISTIC_W)
    for _ in range(SETTLE_CAP):
        if d[M_PHASE] == PH_OVER or d[M_PLAYER] != me:
            return
        n = legal_nb(d, cfg, buf)
        # np.int64: a literal policy id would compile choose_action_nb once more (engines.core.kernel)
        apply_nb(d, rng, cfg, choose_action_nb(np.int64(HEURISTIC), d, cfg, me, w, rng, buf, n))


# the learned expert's kernels (engines.core.expert): its choice and the trainer's afterstate features
expert_nb, afterstate_nb, choices_nb = make_expert(apply_nb, determinize_nb, legal_nb, to_move_nb, features_nb,
                                                   N_FEATURES, MAX_ACTIONS, settle_nb=settle_nb)
