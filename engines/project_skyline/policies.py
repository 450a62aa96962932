"""Project Skyline policies: integer ids dispatched inside one jitted `choose_action_nb`.

Policies read the state vector but only what their player may see: the board, markets, money
and piles' sizes (public), their own hand and own pile contents; never another hand, the order
of a draw pile, the Upgrade draw pile or the chance stream (game.observation is the enforced
view; these kernels keep to it by construction).

    random     layered: a kind of action uniformly among the kinds available (buy step: skip /
               buy / upgrade; play step: play / stop; sell: sell / none; discard: discard /
               draw), then one of its actions uniformly; single-kind decisions uniform
    greedy     the most money this turn: never spends (no buy, no upgrade), picks the symbol
               with the most money on its cards, builds where the money comes now (bonus
               spaces, completing an area, a monument's bonus), sells whenever it can
    heuristic  a one-ply evaluation with named weights (HEURISTIC_WEIGHTS)

Greedy and heuristic score every candidate of a decision and take the best. Their `jitter`
weight adds to each candidate's score a uniform random amount in [0, jitter) drawn from the
seat's policy stream, so equal candidates are chosen at random (not always the first listed)
and candidates within `jitter` points of each other sometimes swap: identical scripted seats
no longer play identical games. jitter = 0 draws nothing and decides exactly as before it
existed (tests/project_skyline/playthroughs/*_jitter0.txt).
    expert     the learned expert (engines.core.expert; features.py): a linear evaluation of
               each candidate's outcome as the seat sees it, no search
    search     information-set MCTS (engines.core.search; this game's side in search.py,
               dispatched by the batch loop and the step API, never by choose_action_nb)
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.core.expert import EXPERT_FILE, expert_policy, load_model
from engines.core.kernel import inline_kernel, kernel
from engines.core.lowlevel import writable_view
from engines.core.lineup import policy_row
from engines.core.rng import below, uniform
from engines.core.presets import PRESETS_FILE, add_presets
from engines.core.search import SEARCH_HEAD, search_policy
from engines.core.spec import PolicyInfo
from engines.project_skyline.features import (
    FEATURES, TURNS, card_power_nb, progress_nb,  # the shared estimates
)
from engines.project_skyline.params import (
    BONUS_MONEY, END_TOWERS, K_BASIC_TYPE, K_CARD_EFF, K_CARD_PRICE, K_CARD_SYM, K_CARD_VALUE, K_END_KIND,
    K_MON_AMT, K_MON_KIND, K_MON_NN, K_MON_REQ, K_MON_RULE, K_MON_SP, K_N_MON, K_SP_AREA,
    K_SP_BMONEY, K_SP_BUPG, K_SP_LAND, K_SP_MDIST, K_SP_NB, K_SP_NN, K_TOWER_MONEY, MAX_EFF, MAX_MON_NB, MAX_NB,
    MON_CHAIN, OP_BUILD, OP_DRAW, OP_EXTRA, OP_MONEY, OP_SELL, OP_STACK, OP_TAKE,
)
from engines.project_skyline.rules import (
    area_payout_nb, area_places_nb, area_tops_nb, area_value_nb, card_count_nb, chain_reach_nb, in_mask_nb,
    pb_nb, upgrade_cost_nb,
)
from engines.project_skyline.state import (
    A_BUY, A_DISC, A_DONE, A_PLAY, A_SELL_DISC, A_SELL_HAND, A_SELL_SKIP, A_SITE, A_SKIP, A_SPACE, A_STOP,
    A_SYM, A_TAKE, A_UPG, B_A_FLOORS, B_A_FREE, B_A_SCORED, B_BTAKEN, B_COUNTS, B_H, B_LOHI, B_TOP, MAX_HEIGHT,
    MK_UMK, M_NPLAYERS, M_PEND_N, M_PEND_OP, M_PHASE, PH_BUY, PH_DISCARD, PH_PLAY, PH_SELL, PH_SITE, PH_SYMBOL,
    PH_TAKE, PH_TARGET, P_DISC, P_DISC_N, P_DRAW, P_DRAW_N, P_HAND, P_HAND_N, P_MONEY, P_PA, P_UPOS,
)

RANDOM, GREEDY, HEURISTIC, SEARCH, EXPERT = 0, 1, 2, 3, 4

HEURISTIC_WEIGHTS = {
    "area": 1.0,         # area majorities: value of a lead change (x the area's worth)
    "monument": 1.0,     # monument connections (NYC chain / Tokyo adjacency), per-turn bonus x 3
    "deck": 1.0,         # deck quality: a card's money and build power per draw, over the turns left
    "upgrade": 1.0,      # upgrade timing: weight of the track cost against the card gained
    "endgame": 1.0,      # end-game card values, weighted by how near the end is
    "money": 1.0,        # money now: bonus spaces, completing an area
    "tower": 1.0,        # the map's end condition: NYC 7-floor tops, Tokyo areas reached
    "force_card": 0.0,   # card type + 1: take that card at the first chance (0 = off; experiments)
    "jitter": 0.05,      # tie-break noise: uniform in [0, jitter) points added to each candidate
}
W_AREA, W_MON, W_DECK, W_UPG, W_END, W_MONEY, W_TOWER, W_FORCE, W_JITTER = range(9)
# greedy's row holds its jitter only, in slot 0; it evaluates with the fixed row below (the
# heuristic's defaults: it reads money, monument, deck, endgame and tower from it; force_card off).
# Before this row existed greedy read those slots from its own row, all zeros, valued every target
# at 0 and built on the first legal space.
GREEDY_WEIGHTS = {"jitter": 0.05}
G_JITTER = 0
_GREEDY_EVAL = np.array(list(HEURISTIC_WEIGHTS.values()), dtype=np.float64)
_GREEDY_EVAL[W_FORCE] = 0.0
_GREEDY_EVAL[W_JITTER] = 0.0

POLICIES = {
    "random": PolicyInfo("random", RANDOM, "layered: an action kind uniformly, then its details uniformly"),
    "greedy": PolicyInfo("greedy", GREEDY, "most money this turn; never buys or upgrades; "
                         "jitter: uniform tie-break noise of at most `jitter` points per candidate",
                         dict(GREEDY_WEIGHTS)),
    "heuristic": PolicyInfo("heuristic", HEURISTIC, "one-ply evaluation with named weights; jitter: "
                            "uniform tie-break noise of at most `jitter` points per candidate",
                            dict(HEURISTIC_WEIGHTS)),
}
N_WEIGHTS = len(HEURISTIC_WEIGHTS)  # the widest scripted row; scripted kernels read w[:N_WEIGHTS]
# the learned expert (engines.core.expert; its model is expert.toml beside this file, written by
# `skyline-lab train project_skyline`; dispatched by search.decide_listed_nb, never by
# choose_action_nb)
POLICIES["expert"] = expert_policy(EXPERT, load_model(Path(__file__).parent / EXPERT_FILE, FEATURES))
# the search player (engines.core.search; this game's side in search.py, dispatched by the batch
# loop and the step API, never by choose_action_nb); it may roll out the expert
POLICIES["search"] = search_policy(SEARCH, dict(POLICIES))
# named weight presets (presets.toml beside this file; `skyline-lab tune` writes them), which the
# search may roll out too (rollout=heuristic_tuned)
add_presets(POLICIES, Path(__file__).parent / PRESETS_FILE)
# every weight row handed to the kernels is at least this wide, so a search seat's rollout
# weights (its row from SEARCH_HEAD on) hold a whole scripted row: greedy reads w[W_FORCE]
ROW_WIDTH = SEARCH_HEAD + N_WEIGHTS


def default_weights(name: str, width: int = ROW_WIDTH) -> np.ndarray:
    """Policy `name`'s default weight row (a search player's includes its rollout's weights);
    `name` may carry weights as in a line-up: "search(iterations=200, rollout=heuristic)"."""
    return policy_row(POLICIES, name, width)[1]


# ---------------------------------------------------------------- random (layered)

@inline_kernel
def kind_of_nb(ph, a):
    """The action's kind within its decision (random policy's first layer)."""
    if ph == PH_BUY:
        if a == A_SKIP:
            return 0
        return 1 if a < A_UPG else 2
    if ph == PH_PLAY:
        return 1 if a == A_STOP else 0
    if ph == PH_SELL:
        return 1 if a == A_SELL_SKIP else 0
    if ph == PH_DISCARD:
        return 1 if a == A_DONE else 0
    return 0


@kernel
def random_action_nb(d, prng, legal, n):
    ph = d[M_PHASE]
    c0 = 0
    c1 = 0
    c2 = 0
    for i in range(n):
        k = kind_of_nb(ph, legal[i])
        if k == 0:
            c0 += 1
        elif k == 1:
            c1 += 1
        else:
            c2 += 1
    nk = (c0 > 0) + (c1 > 0) + (c2 > 0)
    r = below(prng, nk)
    kind = 0
    cnt = c0
    if c0 == 0 or r > 0:
        if c0 > 0:
            r -= 1
        if c1 > 0 and r == 0:
            kind, cnt = 1, c1
        else:
            kind, cnt = 2, c2
    j = below(prng, np.int64(cnt))
    for i in range(n):
        if kind_of_nb(ph, legal[i]) == kind:
            if j == 0:
                return legal[i]
            j -= 1
    return legal[0]


# ---------------------------------------------------------------- shared estimates
# (progress_nb and card_power_nb live in features.py: the expert's features are built from them
# too; a seat's deck size is the rules' card_count_nb)

@kernel
def card_worth_nb(d, cfg, p, t, w, prog):
    """What owning card t is worth to p from now on: its power per draw over the turns left,
    plus its end-game money value as the end nears."""
    turns_left = TURNS * (1.0 - prog) + 1.0
    per_turn = 4.0 / max(4, card_count_nb(d, p) + 1)
    return (w[W_DECK] * card_power_nb(cfg, t) * turns_left * per_turn
            + w[W_END] * cfg[K_CARD_VALUE + t] * (0.3 + 0.7 * prog))


@kernel
def owns_nb(d, p, t):
    b = pb_nb(p)
    for i in range(d[b + P_HAND_N]):
        if d[b + P_HAND + i] == t:
            return True
    for i in range(d[b + P_DRAW_N]):
        if d[b + P_DRAW + i] == t:
            return True
    for i in range(d[b + P_DISC_N]):
        if d[b + P_DISC + i] == t:
            return True
    return False


@kernel
def space_value_nb(d, cfg, p, s, k, w, greedy):
    """Value for p of placing k floors on space s (k > 1: a stack). greedy: money this turn only.
    NYC: p's landmark chain must be in d[B_LOHI] (chain_reach_nb)."""
    lo = d[B_LOHI]
    hi = d[B_LOHI + 1]
    h = d[B_H + s]
    put = k if k < MAX_HEIGHT - h else MAX_HEIGHT - h
    a = cfg[K_SP_AREA + s]
    prev = d[B_TOP + s]
    v = 0.0
    if h == 0 and d[B_BTAKEN + s] == 0:
        v += w[W_MONEY] * cfg[K_SP_BMONEY + s]
        if cfg[K_SP_BUPG + s] > 0 and d[pb_nb(p) + P_UPOS] > 0:
            v += w[W_MONEY] * (0.0 if greedy else 2.0)
    P = d[M_NPLAYERS]
    if d[B_A_SCORED + a] == 0:
        area_tops_nb(d, cfg, a)
        worth = area_value_nb(cfg, d[B_A_FLOORS + a] + put)
        first, second = area_places_nb(d, cfg, P)
        before = area_payout_nb(worth, d[B_COUNTS + p], first, second)
        if prev != p:
            d[B_COUNTS + p] += 1
            if prev >= 0:
                d[B_COUNTS + prev] -= 1
        first, second = area_places_nb(d, cfg, P)
        after = area_payout_nb(worth, d[B_COUNTS + p], first, second)
        if h == 0 and d[B_A_FREE + a] == 1:
            v += w[W_MONEY] * after  # completes the area: scored this turn
        elif not greedy:
            v += w[W_AREA] * 0.5 * (after - before)
    if prev != p:
        if cfg[K_MON_RULE] == MON_CHAIN:
            linked = cfg[K_SP_LAND + s] == 1
            if not linked:
                for i in range(cfg[K_SP_NN + s]):
                    if in_mask_nb(lo, hi, cfg[K_SP_NB + s * MAX_NB + i]):
                        linked = True
                        break
            if linked:
                for m in range(cfg[K_N_MON]):
                    adj = False
                    held = False
                    for i in range(cfg[K_MON_NN + m]):
                        t = cfg[K_MON_SP + m * MAX_MON_NB + i]
                        if t == s:
                            adj = True
                        if in_mask_nb(lo, hi, t):
                            held = True
                    if adj and not held:
                        bonus = cfg[K_MON_AMT + m] if cfg[K_MON_KIND + m] == BONUS_MONEY else (0 if greedy else 2)
                        v += w[W_MON] * bonus * (1.0 if greedy else 3.0)
                if not greedy:
                    v += w[W_MON] * 2.0 / (1.0 + cfg[K_SP_MDIST + s])
        else:
            for m in range(cfg[K_N_MON]):
                adj = False
                cnt = 0
                for i in range(cfg[K_MON_NN + m]):
                    t = cfg[K_MON_SP + m * MAX_MON_NB + i]
                    if t == s:
                        adj = True
                    if d[B_TOP + t] == p:
                        cnt += 1
                if adj:
                    req = cfg[K_MON_REQ + m]
                    bonus = cfg[K_MON_AMT + m] if cfg[K_MON_KIND + m] == BONUS_MONEY else (0 if greedy else 2)
                    if cnt + 1 == req:
                        v += w[W_MON] * bonus * (1.0 if greedy else 3.0)
                    elif cnt + 1 < req and not greedy:
                        v += w[W_MON] * bonus * (cnt + 1.0) / req
    if not greedy:
        if cfg[K_END_KIND] == END_TOWERS:
            if h + put == MAX_HEIGHT:
                v += w[W_TOWER] * cfg[K_TOWER_MONEY]
            elif h + put == MAX_HEIGHT - 1:
                v -= w[W_TOWER] * 1.0
        elif d[pb_nb(p) + P_PA + a] == 0:
            v += w[W_TOWER] * 1.5
        v -= 0.5 * (k - put)  # forfeited floors
    return v


@inline_kernel
def noise_nb(prng, jitter):
    """One candidate's tie-break noise, uniform in [0, jitter); no draw at all when jitter is 0
    (so jitter = 0 leaves the decisions and the seat's stream exactly as without it)."""
    if jitter > 0.0:
        return jitter * uniform(prng)
    return 0.0


@kernel
def best_target_nb(d, cfg, p, w, prng, jitter, legal, n, greedy):
    if cfg[K_MON_RULE] == MON_CHAIN:
        chain_reach_nb(d, cfg, p)
    k = d[M_PEND_N] if d[M_PEND_OP] == OP_STACK else 1
    best = legal[0]
    bv = -1e18
    for i in range(n):
        s = legal[i] - A_SPACE
        v = space_value_nb(d, cfg, p, s, k, w, greedy) + noise_nb(prng, jitter)
        if v > bv:
            bv = v
            best = legal[i]
    return best


@kernel
def card_money_now_nb(cfg, t):
    v = 0
    for e in range(MAX_EFF):
        o = K_CARD_EFF + (t * MAX_EFF + e) * 3
        if cfg[o] == OP_MONEY:
            v += cfg[o + 1]
        elif cfg[o] == OP_SELL:
            v += cfg[o + 1]
    return v


@kernel
def play_priority_nb(cfg, t):
    """Order of play: cards that bring cards first, then builds, then money."""
    op = cfg[K_CARD_EFF + t * MAX_EFF * 3]
    if op == OP_DRAW or op == OP_TAKE or op == OP_EXTRA:
        return 3
    if op == OP_BUILD or op == OP_STACK:
        return 2
    if op == OP_SELL:
        return 0
    return 1


# ---------------------------------------------------------------- greedy and heuristic

@kernel
def scripted_action_nb(d, cfg, p, w, prng, jitter, legal, n, greedy):
    """Greedy or heuristic: the best-scoring candidate, each score plus noise_nb (the sentinels
    that start a search for the best, e.g. -1e18, get none: they are no candidates)."""
    ph = d[M_PHASE]
    b = pb_nb(p)
    prog = progress_nb(d, cfg)
    if ph == PH_TARGET:
        return best_target_nb(d, cfg, p, w, prng, jitter, legal, n, greedy)
    if ph == PH_BUY:
        if greedy:
            return A_SKIP
        force = int(w[W_FORCE]) - 1
        if force >= 0 and not owns_nb(d, p, force):
            for i in range(n):
                a = legal[i]
                if A_BUY <= a < A_UPG and cfg[K_BASIC_TYPE + a - A_BUY] == force:
                    return a
                if a >= A_UPG and d[MK_UMK + (a - A_UPG) % 4] == force:
                    return a
        best = A_SKIP
        bv = noise_nb(prng, jitter)  # skipping is worth 0
        for i in range(n):
            a = legal[i]
            if a == A_SKIP:
                continue
            if a < A_UPG:
                t = cfg[K_BASIC_TYPE + a - A_BUY]
                v = card_worth_nb(d, cfg, p, t, w, prog) - cfg[K_CARD_PRICE + t]
            else:
                h = (a - A_UPG) // 4
                new = d[MK_UMK + (a - A_UPG) % 4]
                old = d[b + P_HAND + h]
                v = (card_worth_nb(d, cfg, p, new, w, prog) - card_worth_nb(d, cfg, p, old, w, prog)
                     - w[W_UPG] * upgrade_cost_nb(d, cfg, p))
            v += noise_nb(prng, jitter)
            if v > bv:
                bv = v
                best = a
        return best
    if ph == PH_SYMBOL:
        best = legal[0]
        bv = -1.0
        for i in range(n):
            c = legal[i] - A_SYM
            v = 0.0
            for h in range(d[b + P_HAND_N]):
                t = d[b + P_HAND + h]
                if (cfg[K_CARD_SYM + t] >> c) & 1:
                    v += card_money_now_nb(cfg, t) * 10.0 + 1.0 if greedy else card_power_nb(cfg, t)
            v += noise_nb(prng, jitter)
            if v > bv:
                bv = v
                best = legal[i]
        return best
    if ph == PH_PLAY:
        best = A_STOP
        bp = -1.0
        for i in range(n):
            a = legal[i]
            if a == A_STOP:
                continue
            pr = play_priority_nb(cfg, d[b + P_HAND + a - A_PLAY]) + noise_nb(prng, jitter)
            if pr > bp:
                bp = pr
                best = a
        return best
    if ph == PH_TAKE:
        force = int(w[W_FORCE]) - 1
        best = legal[0]
        bv = -1e18
        for i in range(n):
            t = cfg[K_BASIC_TYPE + legal[i] - A_TAKE]
            v = card_worth_nb(d, cfg, p, t, w, prog) + noise_nb(prng, jitter)
            if t == force:
                v += 1e9
            if v > bv:
                bv = v
                best = legal[i]
        return best
    if ph == PH_SELL:
        best = A_SELL_SKIP
        # heuristic: sell only cards worth about 1 (money cards); greedy: always sell
        bv = 1e18 if greedy else 1.01 + noise_nb(prng, jitter)
        for i in range(n):
            a = legal[i]
            if a == A_SELL_SKIP:
                continue
            t = d[b + P_HAND + a - A_SELL_HAND] if a < A_SELL_DISC else a - A_SELL_DISC
            v = card_power_nb(cfg, t) + w[W_END] * cfg[K_CARD_VALUE + t] + noise_nb(prng, jitter)
            if v < bv:
                bv = v
                best = a
        return best
    if ph == PH_SITE:
        best = legal[0]
        bv = -1.0
        for i in range(n):
            a = legal[i] - A_SITE
            v = d[B_A_FREE + a] + noise_nb(prng, jitter)
            if v > bv:
                bv = v
                best = legal[i]
        return best
    if ph == PH_DISCARD:
        if legal[n - 1] == A_DONE:
            return A_DONE
        best = legal[0]
        bv = 1e18
        for i in range(n):
            t = d[b + P_HAND + legal[i] - A_DISC]
            v = card_power_nb(cfg, t) + noise_nb(prng, jitter)
            if v < bv:
                bv = v
                best = legal[i]
        return best
    return legal[0]


@kernel
def choose_action_nb(pid, d, cfg, p, w, prng, legal, n):
    """The action of policy `pid` for player p among legal[:n]."""
    if pid == RANDOM:
        return random_action_nb(d, prng, legal, n)
    if pid == GREEDY:
        return scripted_action_nb(d, cfg, p, writable_view(_GREEDY_EVAL), prng, w[G_JITTER], legal, n,
                                  np.bool_(True))
    return scripted_action_nb(d, cfg, p, w, prng, w[W_JITTER], legal, n, np.bool_(False))
