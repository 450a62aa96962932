"""Cityline policies: integer ids dispatched inside one jitted `choose_action_nb`.

Every policy reads only what its player may see: its own sheet (all sheets are
public), the shared dice and the turn; never the chance stream, the re-roll
reserve or another player's pending choice (the strong policy's rollouts
re-seed the dice they imagine and redraw the pending choices, see `_rollout_value_nb`;
tests/engines/test_observation.py scrambles all three and checks no decision changes).

    random     uniform over the legal actions -- (distinct die value, column)
               pairs, so a value rolled twice is not twice as likely (the C
               yardstick picks a die, hence its mean 11.19 vs our 11.48);
               the re-roll is a uniformly random subset of the dice (each die
               re-rolled with probability 1/2 = uniform over the 2^n masks)
    greedy     best immediate points: roofs the die type whose table pays most at
               the column's current height; populates the building that scores
               most right now (X's counted); never re-rolls; sets aside the
               lowest allowed die
    heuristic  one-ply evaluation with tunable weights (see HEURISTIC_WEIGHTS)
    strong     Monte Carlo rollouts over the compiled engine: for each candidate
               action (the heuristic's top `candidates`, every distinct re-roll),
               `rollouts` imagined continuations with freshly drawn dice, everyone
               then playing the heuristic; picks the best mean own final score.
               Candidates share rollout seeds (common random numbers).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.cityline.params import (
    K_COLUMNS, K_CONSTRUCTION_TURNS, K_DICE, K_FACES, K_MAX_FLOORS, K_MOON_MIN_EVEN,
    K_OCCUPANCY_TURNS, K_SAME_TYPE_ONCE, K_TABLE,
    K_X_PENALTY, K_X_PER_PENALTY, MAX_COLUMNS, MAX_FACES, TABLE_STRIDE,
)
from engines.core.kernel import allocating_kernel, ir_inline_kernel, kernel
from engines.core.lowlevel import nth_bit_index, popcount, writable_view
from engines.cityline.rules import (
    action_of_choice_nb, apply_nb, choice_mask_nb, redraw_hidden_choices_nb, decode_nb, fill_outcome_nb, legal_nb, n_open_nb, score_nb,
)
from engines.cityline.state import (
    ACT_STRIDE, DC, DR, DV, F0, H0, M_NDICE, M_PHASE, M_PLAYER, M_TURN, O0, OCC_BASE, P_C_EVEN,
    P_C_ODD, P_O_EVEN, P_O_ODD, P_SKY, PB, PBASE, PH_OVER, PH_REROLL, PH_ROOF, PS, R0, ROOF_BASE,
)
from engines.core.rng import below, next_u64, random_bits, seed_into, uniform
from engines.cityline.features import FEATURES, sky_value_nb
from engines.core.expert import EXPERT_FILE, expert_policy, load_model
from engines.core.lineup import policy_row
from engines.core.presets import PRESETS_FILE, add_presets
from engines.core.search import search_policy
from engines.core.spec import PolicyInfo

RANDOM, GREEDY, HEURISTIC, STRONG, SEARCH, EXPERT = 0, 1, 2, 3, 4, 5

# Seeded jitter: greedy and heuristic add a uniform draw in [0, jitter) points, from the seat's
# policy stream, to every candidate's value before taking the best. Exact ties (common: table
# points are integers) are then broken at random and near-ties (within `jitter`) sometimes, so
# four identical scripts sharing the dice play four different games instead of one game four
# times. 0.25 points is below any difference the heuristic means (its values move by whole table
# points); jitter=0 gives the unjittered scripts exactly (first listed wins a tie).
JITTER = 0.25
W_JITTER_HEURISTIC = 8   # heuristic's weight row: its 8 evaluation weights, then jitter
W_JITTER_GREEDY = 0
HEURISTIC_WEIGHTS = {
    "value": 1.0,        # weight of a building's expected points (table x chance of filling it)
    "growth": 0.5,       # share of the remaining construction dice of a face expected to reach its open column
    "variety": 2.0,      # penalty (points) for a second building of the same type at the same height
    "sky": 1.0,          # weight of the expected sky bonus when choosing set-aside dice
    "x_aversion": 1.0,   # weight of the expected X penalty
    "patience": 1.0,     # weight of a building's value if kept for a later occupancy turn
    "occ_dice": 4.0,     # dice assumed available when a building is populated (construction estimates)
    "reroll": 1.0,       # >= 0.5: re-roll dice that can build nothing (full or finished columns)
    "jitter": JITTER,    # seeded tie-break noise (points), see JITTER
}
STRONG_WEIGHTS = {
    "rollouts": 16.0,          # imagined continuations per candidate action
    "candidates": 6.0,         # roof / occupancy candidates kept from the heuristic's ranking (0 = all)
    "reroll_rollouts": 8.0,    # continuations per distinct re-roll subset
}
_HW = np.array(list(HEURISTIC_WEIGHTS.values()), dtype=np.float64)
_HW[W_JITTER_HEURISTIC] = 0.0   # the strong policy's rollouts: the plain heuristic

POLICIES = {
    "random": PolicyInfo("random", RANDOM, "uniform over legal actions; re-roll a uniformly random subset"),
    "greedy": PolicyInfo("greedy", GREEDY, "best immediate points; never re-rolls",
                         {"jitter": JITTER}),   # seeded tie-break noise (points), see JITTER
    "heuristic": PolicyInfo("heuristic", HEURISTIC, "one-ply evaluation with tunable weights",
                            dict(HEURISTIC_WEIGHTS)),
    "strong": PolicyInfo("strong", STRONG, "Monte Carlo rollouts of the heuristic per candidate action",
                         dict(STRONG_WEIGHTS)),
}
# the learned expert (engines.core.expert; its model is expert.toml beside this file, written by
# `skyline-lab train cityline`; dispatched by search.decide_nb, never by choose_action_nb)
POLICIES["expert"] = expert_policy(EXPERT, load_model(Path(__file__).parent / EXPERT_FILE, FEATURES))
# the search player (engines.core.search; Cityline's side in search.py, dispatched by the batch
# loop and the step API, never by choose_action_nb)
POLICIES["search"] = search_policy(SEARCH, dict(POLICIES))
# named weight presets (presets.toml beside this file; `skyline-lab tune` writes them), which the
# search may roll out too (rollout=heuristic_tuned)
add_presets(POLICIES, Path(__file__).parent / PRESETS_FILE)


def default_weights(name: str, width: int = 8) -> np.ndarray:
    """Policy `name`'s default weight row (a search player's includes its rollout's weights)."""
    return policy_row(POLICIES, name, width)[1]


# ---------------------------------------------------------------- shared estimates
# fill[0, r, occ, h, n] / fill[1, ...]: expected points / X's of populating a building of roof
# type r, occ occupants, height h in one go with n fresh dice (params._fill_tables)

@kernel
def _x_rate(cfg):
    return cfg[K_X_PENALTY] / cfg[K_X_PER_PENALTY]


@kernel
def _tab(cfg, r, o):
    return cfg[K_TABLE + r * TABLE_STRIDE + o]


@kernel
def _same_type_level_taken(d, cfg, b, c, r, level):
    """Another finished building of type r already sits at this occupancy level (so this one
    would score 0 under the same-type rule)."""
    if cfg[K_SAME_TYPE_ONCE] == 0:
        return False
    for e in range(cfg[K_COLUMNS]):
        if e != c and d[b + R0 + e] == r and d[b + H0 + e] > 0 and d[b + O0 + e] == level:
            if d[b + F0 + e] == 1 or d[b + O0 + e] == d[b + H0 + e]:
                return True
    return False


# ---------------------------------------------------------------- heuristic and greedy scores

@kernel
def _roof_scores_nb(d, cfg, fill, p, w, legal, n, out, greedy):
    b = PBASE + p * PB
    turn = d[M_TURN]
    faces = cfg[K_FACES]
    maxf = cfg[K_MAX_FLOORS]
    nd_occ = np.int64(w[6] + 0.5)
    if nd_occ < 1:
        nd_occ = 1
    if nd_occ > cfg[K_DICE]:
        nd_occ = cfg[K_DICE]
    xr = _x_rate(cfg) * w[4]
    # dice still to be rolled in later construction turns
    rem = 0
    for t in range(turn + 1, cfg[K_CONSTRUCTION_TURNS]):
        rem += cfg[K_DICE] - t
    grow = w[1] * rem / faces
    early = np.int64(grow + 0.5)
    last = turn + 1 >= cfg[K_CONSTRUCTION_TURNS]
    k_left = cfg[K_CONSTRUCTION_TURNS] - turn - 1
    sky_odd = sky_value_nb(cfg, np.int64(-1), d[b + PS + P_C_ODD] + 1, d[b + PS + P_C_EVEN], k_left)
    sky_even = sky_value_nb(cfg, np.int64(-1), d[b + PS + P_C_ODD], d[b + PS + P_C_EVEN] + 1, k_left)
    for i in range(n):
        v, c = decode_nb(legal[i], np.int64(ROOF_BASE))
        h = d[b + H0 + c]
        if greedy:
            out[i] = _tab(cfg, v, h)
            continue
        val = 0.0
        if h > 0:
            e = early if early < h else h
            val = w[0] * fill[0, v, e, h, nd_occ] - xr * fill[1, v, e, h, nd_occ]
            for c2 in range(cfg[K_COLUMNS]):
                if c2 != c and d[b + R0 + c2] == v and d[b + H0 + c2] == h:
                    val -= w[2]
        # what leaving column c open is worth: an average roof type at its expected final height
        if not last:
            hh = np.int64(h + grow + 0.5)
            if hh > maxf:
                hh = maxf
            if hh > 0:
                acc = 0.0
                for r in range(1, faces + 1):
                    acc += w[0] * fill[0, r, 0, hh, nd_occ] - xr * fill[1, r, 0, hh, nd_occ]
                val -= acc / faces
        val += w[3] * (sky_odd if v & 1 else sky_even)
        out[i] = val


@kernel
def _occupy_scores_nb(d, cfg, fill, p, w, legal, n, out, greedy):
    b = PBASE + p * PB
    nd = d[M_NDICE]
    turn = d[M_TURN]
    xr = _x_rate(cfg) * w[4]
    later_turn = turn + 1 < cfg[K_OCCUPANCY_TURNS] and nd > 1
    k_left = n_open_nb(d, cfg, b) - 1
    if k_left > cfg[K_OCCUPANCY_TURNS] - turn - 1:
        k_left = cfg[K_OCCUPANCY_TURNS] - turn - 1
    if k_left < 0:
        k_left = 0
    sky = d[b + PS + P_SKY]
    sky_odd = sky_value_nb(cfg, sky, d[b + PS + P_O_ODD] + 1, d[b + PS + P_O_EVEN], k_left)
    sky_even = sky_value_nb(cfg, sky, d[b + PS + P_O_ODD], d[b + PS + P_O_EVEN] + 1, k_left)
    for i in range(n):
        v, c = decode_nb(legal[i], np.int64(OCC_BASE))
        r = d[b + R0 + c]
        h = d[b + H0 + c]
        occ = d[b + O0 + c]
        placed, xs, _ = fill_outcome_nb(d, cfg, b, c)
        pts = _tab(cfg, r, occ + placed)
        if _same_type_level_taken(d, cfg, b, c, r, occ + placed):
            pts = 0
        if greedy:
            out[i] = pts - _x_rate(cfg) * xs - 1e-3 * v
            continue
        val = w[0] * pts - xr * xs
        # what keeping it for a later turn is worth (fewer dice then)
        if later_turn:
            val -= w[5] * (w[0] * fill[0, r, occ, h, nd - 1] - xr * fill[1, r, occ, h, nd - 1])
        else:
            val -= w[5] * w[0] * _tab(cfg, r, occ)
        val += w[3] * (sky_odd if v & 1 else sky_even)
        out[i] = val


@kernel
def action_scores_nb(d, cfg, fill, p, w, legal, n, out, greedy):
    """Heuristic (or greedy) score of each legal roof / occupancy action, into out[:n]."""
    if d[M_PHASE] == PH_ROOF:
        _roof_scores_nb(d, cfg, fill, p, w, legal, n, out, greedy)
    else:
        _occupy_scores_nb(d, cfg, fill, p, w, legal, n, out, greedy)


@kernel
def heuristic_reroll_nb(d, cfg, p, w):
    """Re-roll the dice that can build nothing on p's sheet: a face beyond the columns, an open
    column at max height, or a roofed column already full."""
    if w[7] < 0.5:
        return 0
    b = PBASE + p * PB
    mask = 0
    for i in range(d[M_NDICE]):
        c = d[DV + i] - 1
        wasted = False
        if c >= cfg[K_COLUMNS]:
            wasted = True
        elif d[b + R0 + c] == 0:
            wasted = d[b + H0 + c] >= cfg[K_MAX_FLOORS]
        else:
            wasted = d[b + O0 + c] >= d[b + H0 + c]
        if wasted:
            mask |= 1 << i
    return mask


@kernel
def _argmax(x, n):
    best = 0
    for i in range(1, n):
        if x[i] > x[best]:
            best = i
    return best


@kernel
def _jitter_nb(scratch, n, jitter, prng):
    """Seeded tie-break noise (see JITTER): uniform [0, jitter) points on each candidate."""
    if jitter > 0:
        for i in range(n):
            scratch[i] += jitter * uniform(prng)


@kernel
def heuristic_action_nb(d, cfg, fill, p, w, legal, n, scratch):
    if d[M_PHASE] == PH_REROLL:
        return heuristic_reroll_nb(d, cfg, p, w)
    action_scores_nb(d, cfg, fill, p, w, legal, n, scratch, np.bool_(False))
    return legal[_argmax(scratch, n)]


@kernel
def random_action_nb(d, prng, legal, n):
    """Uniform over the legal actions; the re-roll is a uniformly random subset of the dice."""
    if d[M_PHASE] == PH_REROLL:
        return random_bits(prng, d[M_NDICE])
    return legal[below(prng, n)]


@ir_inline_kernel
def random_choice_nb(d, cfg, prng):
    """random_action_nb without the legal list: the same draw, the same action (the k-th set bit
    of rules.choice_mask_nb is legal_nb's k-th action)."""
    if d[M_PHASE] == PH_REROLL:
        return random_bits(prng, d[M_NDICE])
    m = choice_mask_nb(d, cfg)
    return action_of_choice_nb(d, nth_bit_index(m, below(prng, popcount(m))))


# ---------------------------------------------------------------- strong: rollouts

@kernel
def _rollout_value_nb(d, cfg, fill, p, action, seed, sim, srng, legal, scores, tp, cp):
    """Own final score after `action` in one imagined continuation: the dice not seen yet are
    drawn from a stream seeded by `seed` (never the game's own chance stream; the re-roll reserve
    is imagined too), then everyone plays the default heuristic."""
    for i in range(d.shape[0]):  # not sim[:] = d: numba may copy the source first (an allocation)
        sim[i] = d[i]
    seed_into(srng, seed)
    redraw_hidden_choices_nb(sim, cfg, p, srng, legal)  # never the other seats' pending choices
    if sim[M_PHASE] == PH_REROLL:
        for i in range(sim[M_NDICE]):
            sim[DR + i] = 1 + below(srng, cfg[K_FACES])
    apply_nb(sim, srng, cfg, action)
    while sim[M_PHASE] != PH_OVER:
        q = sim[M_PLAYER]
        if sim[M_PHASE] == PH_REROLL:
            a = heuristic_reroll_nb(sim, cfg, q, writable_view(_HW))
        else:
            m = legal_nb(sim, cfg, legal)
            action_scores_nb(sim, cfg, fill, q, writable_view(_HW), legal, m, scores, np.bool_(False))
            a = legal[_argmax(scores, m)]
        apply_nb(sim, srng, cfg, a)
    s, _, _, _, _ = score_nb(sim, cfg, p, tp, cp)
    return s


@kernel
def canonical_mask_nb(d, nd, mask):
    """Among dice showing the same value, re-roll only the later ones: one mask per multiset."""
    for i in range(nd):
        if (mask >> i) & 1:
            for j in range(i + 1, nd):
                if d[DV + j] == d[DV + i] and not (mask >> j) & 1:
                    return False
    return True


@allocating_kernel
def strong_action_nb(d, cfg, fill, p, w, prng, legal, n):
    rollouts = np.int64(w[0])
    # the rollouts' working arrays, once per decision; _rollout_value_nb and the rules it runs are
    # kernels without reference counts, so only this loop's calls count them (a few per rollout of
    # hundreds of steps): the arrays are passed as they are, no unowned views to keep alive
    sim = np.empty_like(d)
    srng = np.empty(4, np.uint64)
    buf = np.empty(256, np.int64)
    scores = np.empty(256)
    tp = np.zeros(MAX_FACES + 1, np.int64)
    cp = np.zeros(MAX_COLUMNS, np.int64)
    base = next_u64(prng)
    cand = np.empty(256, np.int64)
    k = 0
    if d[M_PHASE] == PH_REROLL:
        nd = d[M_NDICE]
        rollouts = np.int64(w[2])
        for mask in range(1 << nd):
            if canonical_mask_nb(d, nd, mask):
                cand[k] = mask
                k += 1
    else:
        keep = np.int64(w[1])
        if keep <= 0 or keep >= n:
            for i in range(n):
                cand[i] = legal[i]
            k = n
        else:
            hs = np.empty(n)
            action_scores_nb(d, cfg, fill, p, writable_view(_HW), legal, n, hs, np.bool_(False))
            for j in range(keep):
                bi = _argmax(hs, n)
                cand[k] = legal[bi]
                k += 1
                hs[bi] = -1e18
    if rollouts < 1:
        rollouts = 1
    if k == 1:
        return cand[0]
    best = cand[0]
    best_val = -1e18
    for j in range(k):
        tot = 0.0
        for r in range(rollouts):
            seed = base ^ (np.uint64(r + 1) * np.uint64(0x9E3779B97F4A7C15))
            tot += _rollout_value_nb(d, cfg, fill, p, cand[j], seed, sim, srng, buf, scores, tp, cp)
        if tot > best_val:
            best_val = tot
            best = cand[j]
    return best


# ---------------------------------------------------------------- dispatch

@kernel
def choose_action_nb(policy_id, d, cfg, fill, p, w, prng, legal, n, scratch):
    """Action of player p under policy `policy_id` (weights w). In PH_REROLL every mask
    0..2^ndice-1 is legal and `legal` may be left unfilled; otherwise legal[:n] holds the legal
    actions (n >= 1). scratch: float64[>= n]."""
    if policy_id == STRONG:
        if d[M_PHASE] != PH_REROLL and n == 1:
            return legal[0]
        return strong_action_nb(d, cfg, fill, p, w, prng, legal, n)
    return choose_scripted_nb(policy_id, d, cfg, fill, p, w, prng, legal, n, scratch)


@kernel
def choose_scripted_nb(policy_id, d, cfg, fill, p, w, prng, legal, n, scratch):
    """choose_action_nb for the players without look-ahead: RANDOM, GREEDY, HEURISTIC (any
    other id plays as the heuristic). The batch loop of a line-up without a look-ahead player
    (strong, search) calls this one, so its kernel never compiles the strong player's rollouts
    (seconds of a cold start)."""
    if policy_id == RANDOM:
        return random_action_nb(d, prng, legal, n)
    phase = d[M_PHASE]
    if policy_id == GREEDY:
        if phase == PH_REROLL:
            return 0
        action_scores_nb(d, cfg, fill, p, w, legal, n, scratch, np.bool_(True))
        _jitter_nb(scratch, n, w[W_JITTER_GREEDY], prng)
        return legal[_argmax(scratch, n)]
    if phase == PH_REROLL:
        return heuristic_reroll_nb(d, cfg, p, w)
    action_scores_nb(d, cfg, fill, p, w, legal, n, scratch, np.bool_(False))
    if w.shape[0] > W_JITTER_HEURISTIC:
        _jitter_nb(scratch, n, w[W_JITTER_HEURISTIC], prng)
    return legal[_argmax(scratch, n)]
