"""Cityline's side of the engine adapter (engines.core.adapter): how a seat decides, what the
search tries, what a seat cannot see, and the final scores.

Hidden from seat p (rules.observe_nb): the future dice (the chance stream), the re-roll reserve
(what a re-rolled die will show) and the pending choices of the seats before p in a simultaneous
roof / occupancy turn. `determinize_nb` redraws all three from the searcher's policy stream: a
fresh chance stream, a uniform reserve, and each pending choice uniformly among that seat's legal
choices (rules.redraw_hidden_choices_nb). A re-roll is searched over one mask per multiset of
re-rolled values (policies.canonical_mask_nb), as the strong policy does.

The learned expert (engines.core.expert) decides over the same pieces: the search's action list,
its determinization and the rules, scoring each outcome with features.features_nb.
"""
from __future__ import annotations

import numpy as np

from engines.cityline.params import K_FACES, K_TIE_BREAK, MAX_COLUMNS, MAX_FACES
from engines.cityline.features import F_HEURISTIC_PICK, N_FEATURES, features_nb
from engines.cityline.policies import EXPERT, HEURISTIC, POLICIES, RANDOM, canonical_mask_nb, choose_action_nb, choose_scripted_nb, \
    random_action_nb, random_choice_nb
from engines.cityline.rules import apply_nb, legal_nb, redraw_hidden_choices_nb, score_nb, tie_key_nb
from engines.cityline.state import DR, M_NDICE, M_NPLAYERS, M_PHASE, M_PLAYER, PH_OVER, PH_REROLL
from engines.core.expert import make_expert, prior_row
from engines.core.kernel import allocating_kernel, inline_kernel, ir_inline_kernel
from engines.core.lowlevel import writable_view
from engines.core.rng import below, next_u64, seed_into

MAX_ACTIONS = 256
# a seat's row of the adapter's work matrix: points per roof type, points per column, score parts
W_TYPE_POINTS = 0
W_COLUMN_POINTS = W_TYPE_POINTS + MAX_FACES + 1
W_XCOUNT, W_XPENALTY, W_BONUS, W_ZEROED = range(W_COLUMN_POINTS + MAX_COLUMNS, W_COLUMN_POINTS + MAX_COLUMNS + 4)
WORK_WIDTH = W_ZEROED + 1


@inline_kernel
def to_move_nb(d):
    return -1 if d[M_PHASE] == PH_OVER else d[M_PLAYER]


@ir_inline_kernel
def listed_nb(d, cfg, legal):
    """The legal actions a policy is given: none on a re-roll, where every mask is legal."""
    return 0 if d[M_PHASE] == PH_REROLL else legal_nb(d, cfg, legal)


@ir_inline_kernel
def decide_nb(d, cfg, fill, pid, w, prng, legal, scratch):
    """Policy `pid` decides for the seat to move; random draws from the choice set without listing
    it (random_action_nb's draw)."""
    if pid == EXPERT:
        return expert_nb(d, cfg, fill, w, prng, legal, scratch)
    if pid == RANDOM:
        return random_choice_nb(d, cfg, prng)
    return choose_action_nb(pid, d, cfg, fill, d[M_PLAYER], w, prng, legal, listed_nb(d, cfg, legal), scratch)


@ir_inline_kernel
def decide_scripted_nb(d, cfg, fill, pid, w, prng, legal, scratch):
    """decide_nb without the look-ahead players (compiles no rollouts, and not the expert, which
    plays the rules forward: the scripted line-ups' first run compiles none of it)."""
    if pid == RANDOM:
        return random_choice_nb(d, cfg, prng)
    return choose_scripted_nb(pid, d, cfg, fill, d[M_PLAYER], w, prng, legal, listed_nb(d, cfg, legal), scratch)


@ir_inline_kernel
def decide_listed_nb(d, cfg, fill, pid, w, prng, legal, n, scratch):
    """decide_nb over the n legal actions the core's loop listed in `legal` (it lists them once,
    to count the choice and to decide): random draws from the list (random_action_nb: the same
    draw as random_choice_nb's). On a re-roll the list holds every mask, which no policy reads."""
    if pid == EXPERT:
        return expert_nb(d, cfg, fill, w, prng, legal, scratch)
    if pid == RANDOM:
        return random_action_nb(d, prng, legal, n)
    return choose_action_nb(pid, d, cfg, fill, d[M_PLAYER], w, prng, legal, n, scratch)


@ir_inline_kernel
def decide_scripted_listed_nb(d, cfg, fill, pid, w, prng, legal, n, scratch):
    """decide_listed_nb without the look-ahead players and the expert."""
    if pid == RANDOM:
        return random_action_nb(d, prng, legal, n)
    return choose_scripted_nb(pid, d, cfg, fill, d[M_PLAYER], w, prng, legal, n, scratch)


@inline_kernel
def search_actions_nb(d, cfg, out):
    if d[M_PHASE] == PH_REROLL:
        nd = d[M_NDICE]
        n = 0
        for mask in range(1 << nd):
            if canonical_mask_nb(d, nd, mask):
                out[n] = mask
                n += 1
        return n
    return legal_nb(d, cfg, out)


@inline_kernel
def determinize_nb(d, rng, cfg, p, prng, buf):
    seed_into(rng, next_u64(prng))
    if d[M_PHASE] == PH_REROLL:
        for i in range(d[M_NDICE]):
            d[DR + i] = 1 + below(prng, cfg[K_FACES])
    redraw_hidden_choices_nb(d, cfg, p, prng, buf)


@inline_kernel
def outcome_nb(d, cfg, work, score, key):
    """Final score and tie-break key per seat; work[s] keeps the parts the tables report."""
    for s in range(d[M_NPLAYERS]):
        ws = work[s]
        sc, xc, xpen, bonus, zeroed = score_nb(d, cfg, s, ws[W_TYPE_POINTS:W_COLUMN_POINTS],
                                               ws[W_COLUMN_POINTS:W_COLUMN_POINTS + MAX_COLUMNS])
        score[s] = sc
        key[s] = tie_key_nb(d, cfg, s)
        ws[W_XCOUNT] = xc
        ws[W_XPENALTY] = xpen
        ws[W_BONUS] = bonus
        ws[W_ZEROED] = zeroed
    return cfg[K_TIE_BREAK] != 0   # scoring.tie_break: 'shared' (default) ranks on the score alone


# the expert's prior: the heuristic's pick at its default weights, no jitter
HEURISTIC_W = prior_row(POLICIES["heuristic"])


@allocating_kernel
def heuristic_pick_nb(d, cfg, fill, rng, buf, legal, n, f):
    """The heuristic's action for the seat to move (features.F_HEURISTIC_PICK marks it; on a
    re-roll its mask is marked only where it is the canonical one the expert lists). It lists
    the rules' actions itself (the expert's list, legal[:n], is the search's; the features row f
    holds no memo)."""
    # choose_scripted_nb, not decide_scripted_nb: that dispatches the expert, whose prior this is
    return choose_scripted_nb(HEURISTIC, d, cfg, fill, d[M_PLAYER], writable_view(HEURISTIC_W), rng, buf,
                              listed_nb(d, cfg, buf), np.empty(MAX_ACTIONS))


# the learned expert's kernels (engines.core.expert): its choice and the trainer's afterstate features
expert_nb, afterstate_nb, choices_nb = make_expert(apply_nb, determinize_nb, search_actions_nb, to_move_nb, features_nb,
                                       N_FEATURES, MAX_ACTIONS, prior_nb=heuristic_pick_nb,
                                       prior_feature=F_HEURISTIC_PICK)
