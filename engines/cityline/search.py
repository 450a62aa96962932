"""Cityline's side of the search player (engines.core.search): its state, what a seat cannot see,
and the actions the search tries.

    st  = (d, rng)                       the state vector and the chance stream (State's arrays)
    ctx = (cfg, fill, scratch, tp, cp)   the variant, the fill table, scratch for policies/scoring

Hidden from seat p (rules.observe_nb): the future dice (the chance stream), the re-roll reserve
(what a re-rolled die will show) and the pending choices of the seats before p in a simultaneous
roof / occupancy turn. `determinize_nb` redraws all three from the searcher's policy stream: a
fresh chance stream, a uniform reserve, and each pending choice uniformly among that seat's legal
choices (rules.redraw_hidden_choices_nb). A re-roll is searched over one mask per multiset of
re-rolled values (policies.canonical_mask_nb), as the strong policy does.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engines.cityline.params import K_FACES, K_TIE_BREAK, MAX_COLUMNS, MAX_FACES
from engines.cityline.policies import RANDOM, canonical_mask_nb, choose_action_nb, random_choice_nb
from engines.cityline.rules import apply_nb, legal_nb, redraw_hidden_choices_nb, score_nb, tie_key_nb
from engines.cityline.state import DR, M_NDICE, M_NPLAYERS, M_PHASE, M_PLAYER, PH_OVER, PH_REROLL
from engines.core.kernel import allocating_kernel, inline_kernel, ir_inline_kernel, kernel
from engines.core.rng import below, next_u64, seed_into
from engines.core.search import make_search
from engines.core.search import clone_pair_nb as clone_nb, copy_pair_into_nb as copy_into_nb  # (vector, stream)

MAX_ACTIONS = 256


@inline_kernel
def n_players_nb(st):
    return st[0][M_NPLAYERS]


@inline_kernel
def determinize_nb(st, ctx, p, prng):
    d, rng = st
    cfg = ctx[0]
    seed_into(rng, next_u64(prng))
    if d[M_PHASE] == PH_REROLL:
        for i in range(d[M_NDICE]):
            d[DR + i] = 1 + below(prng, cfg[K_FACES])
    redraw_hidden_choices_nb(d, cfg, p, prng, ctx[2])


@inline_kernel
def to_move_nb(st):
    d = st[0]
    return -1 if d[M_PHASE] == PH_OVER else d[M_PLAYER]


@inline_kernel
def actions_nb(st, ctx, out):
    d = st[0]
    if d[M_PHASE] == PH_REROLL:
        nd = d[M_NDICE]
        n = 0
        for mask in range(1 << nd):
            if canonical_mask_nb(d, nd, mask):
                out[n] = mask
                n += 1
        return n
    return legal_nb(d, ctx[0], out)


@inline_kernel
def apply_nb_(st, ctx, a):
    apply_nb(st[0], st[1], ctx[0], a)


@inline_kernel
def rollout_nb(st, ctx, pid, w, prng, buf):
    d = st[0]
    cfg, fill, scratch = ctx[0], ctx[1], ctx[3]
    if pid == RANDOM:
        return random_choice_nb(d, cfg, prng)
    n = 0
    if d[M_PHASE] != PH_REROLL:
        n = legal_nb(d, cfg, buf)
    return choose_action_nb(pid, d, cfg, fill, d[M_PLAYER], w, prng, buf, n, scratch)


@inline_kernel
def outcome_nb(st, ctx, score, key):
    d = st[0]
    for s in range(d[M_NPLAYERS]):
        sc, _, _, _, _ = score_nb(d, ctx[0], s, ctx[4], ctx[5])
        score[s] = sc
        key[s] = tie_key_nb(d, ctx[0], s)
    return ctx[0][K_TIE_BREAK] != 0   # scoring.tie_break: 'shared' (default) ranks on the score alone


search_nb = make_search(SimpleNamespace(
    MAX_ACTIONS=MAX_ACTIONS, n_players_nb=n_players_nb, clone_nb=clone_nb, copy_into_nb=copy_into_nb,
    determinize_nb=determinize_nb, to_move_nb=to_move_nb, actions_nb=actions_nb, apply_nb=apply_nb_,
    rollout_nb=rollout_nb, outcome_nb=outcome_nb))


@ir_inline_kernel
def search_context_nb(cfg, fill):
    """The ctx tuple a search needs (allocated once per batch chunk or step decision)."""
    return (cfg, fill, np.empty(MAX_ACTIONS, np.int64), np.empty(MAX_ACTIONS), np.zeros(MAX_FACES + 1, np.int64),
            np.zeros(MAX_COLUMNS, np.int64))


@allocating_kernel
def search_action_nb(d, rng, cfg, fill, w, prng, stats):
    """The search player's action for the seat to move (the step API's entry; cached)."""
    return search_nb((d, rng), search_context_nb(cfg, fill), w, prng, stats)
