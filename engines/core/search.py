"""The search player, written once for every game: determinized Monte Carlo search over the
compiled rules, in two forms that share the determinization, the play-outs and the reward:

  halving=1 (the default): sequential halving at the root with common random numbers (below,
            after the weights). The strongest at the budgets a batch run can afford: in
            Skyline 3000 one search(iterations=400, rollout=heuristic) seat wins about nine
            games in ten against three heuristic players;
  halving=0: single-observer information-set MCTS (ISMCTS), a tree over every decision.

ISMCTS. At each of its decisions the player searches `iterations` times. Every iteration

  1. copies the real state and *determinizes* it: everything the deciding player cannot
     see (other hands, deck orders, sealed bids, future dice) is overwritten with a sample
     consistent with what that player has seen; the search never reads the hidden values;
  2. walks down one shared tree whose nodes are actions (an information-set tree: the same
     node serves every determinization in which its action is legal), choosing by UCB1
     with availability counts (Cowling, Powley & Whitehouse 2012, "ISMCTS"), widening each
     node progressively from the rollout policy's own choice (weight `widening`);
  3. adds one node, then plays the game out with a scripted rollout policy (random, greedy,
     heuristic ... any of the game's policies except search itself);
  4. scores the finished game with the harness's ranking and backs the reward up the path
     (each node is credited with the reward of the seat that chose its action).

It plays the most visited root action. The reward of a seat is

    (1 - score_weight) * win share  +  score_weight * score rescaled into [0, 1]

where the win share is 1 for a sole win, 1/k for a k-way shared win, 0 otherwise, and the
score is rescaled by the range of final scores seen so far in this search (any seat). The score term
keeps a signal where the win share has none: when every play-out is won (weak rollout
opponents) or lost, and in a one-seat game (whose reward is the rescaled score alone).

What a game provides (its `search.py`, a handful of small kernels over its own state):

    MAX_ACTIONS                        size of the action buffer
    clone_nb(st) -> st                 a fresh copy of the state tuple
    copy_into_nb(dst, src)             copy a state tuple into another of the same shape
    determinize_nb(st, ctx, p, prng)   resample, in place, everything seat p cannot see
    n_players_nb(st) -> P
    to_move_nb(st) -> seat             -1 when the game is over
    actions_nb(st, ctx, out) -> n      the actions the search considers, n >= 1 while the game
                                       runs (the legal list; a finite candidate list where the
                                       legal set is not enumerated, e.g. sealed bids)
    apply_nb(st, ctx, a)
    rollout_nb(st, ctx, pid, w, prng, buf) -> a   scripted policy `pid` (weights w) decides
    outcome_nb(st, ctx, score, key) -> use_key    final (or, at the rollout cap, current)
                                       score per seat and the tie-break key rank_nb reads

`make_search(adapter)` returns `search_nb(st, ctx, w, prng, stats) -> action`. It is a
closure over the game's kernels, which numba cannot cache on disk; the game calls it from
its own cached kernels (its batch loop and a `search_action_nb` wrapper for the step API),
whose cache holds the compiled search too.

Weights (the search policy's row; the rollout policy's own weights follow at SEARCH_HEAD):

    iterations   iterations per decision (the budget)
    rollout      policy id of the rollout policy (written by name: rollout=heuristic)
    exploration  the UCB1 constant c (rewards lie in [0, 1])
    rollout_cap  at most this many rollout decisions (0: to the end); a capped rollout is
                 scored on the current scores
    score_weight the share of the reward that is the rescaled score (above)
    widening     progressive widening: a node visited n times may have at most
                 1 + widening * sqrt(n) children, and its first child is the rollout policy's
                 own choice (so a small budget refines the script's move against a few
                 alternatives instead of sampling every action a couple of times); 0: classic
                 UCT, every action tried once before any is tried twice
    halving      1: search the root by sequential halving with common random numbers instead of
                 the tree (below); 0: the ISMCTS tree
    caution      halving: the search plays another action than its rollout policy's own choice
                 only when that action's mean advantage under the same samples exceeds `caution`
                 standard errors (0: whenever it is ahead)

Sequential halving (Karnin, Koren & Somekh 2013; the root search of Gumbel MuZero), `halving=1`.
The budget (`iterations` play-outs) is split evenly over ceil(log2 K) rounds for the K root
actions. In each round every surviving action is played out from the *same* determinizations
with the *same* rollout stream (common random numbers: the same hidden cards, future dice and
rollout choices for every action), and the worse half is dropped by mean reward so far. Paired
play-outs compare actions under the same luck, so small differences between good moves show
within a budget where the tree's unpaired means are still noise. The rollout policy's own choice
stays in to the last round, and the final pick replaces it only with evidence (`caution`): the
best of many noisy means is biased upwards (the winner's curse), and without this a small
budget plays worse than the script it rolls out. (Where the rollout policy's choice is not
among the listed actions, e.g. a sealed bid searched over candidate rules, nothing is kept.)
`widening` and `exploration` are not used;
every round gives each survivor at least one play-out.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from engines.core.harness import rank_nb
from engines.core.kernel import KERNEL_OPTIONS, NO_REFCOUNTS, REFCOUNTS, ir_inline_kernel
from engines.core.rng import below, next_u64, seed_into
from engines.core.spec import Column, PolicyInfo

W_ITERATIONS, W_ROLLOUT, W_EXPLORATION, W_ROLLOUT_CAP, W_SCORE, W_WIDENING, W_HALVING, W_CAUTION = range(8)
SEARCH_HEAD = 8                     # the rollout policy's weights start here
SEARCH_WEIGHTS = {"iterations": 400.0, "rollout": 0.0, "exploration": 0.7, "rollout_cap": 0.0,
                  "score_weight": 0.25, "widening": 1.0, "halving": 1.0, "caution": 1.0}
assert len(SEARCH_WEIGHTS) == SEARCH_HEAD
SEARCH_WEIGHT_RANGES = {"iterations": (1, 100_000), "exploration": (0, 100), "rollout_cap": (0, 1e6),
                        "score_weight": (0, 1), "widening": (0, 100), "halving": (0, 1), "caution": (0, 100)}
SEARCH_DESCRIPTION = ("Determinized Monte Carlo search: per decision `iterations` play-outs by the `rollout` "
                      "policy from samples of what the seat cannot see (hidden cards, bids, dice). "
                      "halving=1: sequential halving over the actions, every action played out under the "
                      "same samples; halving=0: information-set MCTS (UCB1 tree, availability counts).")
# stats[STAT_*]: what the searches did, summed (the benchmark's per-decision cost)
STAT_DECISIONS, STAT_ITERATIONS, STAT_SIMULATED = 0, 1, 2
N_STATS = 3
# every game's `games` table carries it (the benchmark's search cost per simulated decision)
SEARCH_SIMULATED = Column("search_simulated", "decisions the search seats simulated for their choices in "
                          "this game (tree walks and rollouts; 0 with no search seat)")



def search_policy(policy_id: int, scripted: dict[str, PolicyInfo], rollout: str = "random",
                  name: str = "search", **defaults: float) -> PolicyInfo:
    """The search player as one of a game's named policies: `search(iterations=400,
    rollout=heuristic)`. Its rollout may be any of the game's `scripted` policies (never a
    search); that policy's default weights follow the search's own in the weight row."""
    weights = dict(SEARCH_WEIGHTS)
    weights["rollout"] = float(scripted[rollout].policy_id)
    for k, v in defaults.items():
        if k not in weights:
            raise KeyError(f"the search player has no weight '{k}'")
        weights[k] = float(v)
    return PolicyInfo(name, policy_id, SEARCH_DESCRIPTION, weights,
                      choices={"rollout": {p.name: p.policy_id for p in scripted.values()}},
                      follow="rollout", weight_ranges=dict(SEARCH_WEIGHT_RANGES))


@ir_inline_kernel
def clone_pair_nb(st):
    """clone_nb for the common state shape (state vector, chance stream): Cityline, Skyline of
    the World and Project Skyline use it as theirs."""
    return st[0].copy(), st[1].copy()


@ir_inline_kernel
def copy_pair_into_nb(dst, src):
    """copy_into_nb for the (state vector, chance stream) shape."""
    dst[0][:] = src[0]
    dst[1][:] = src[1]


_OPTIONS = {k: v for k, v in KERNEL_OPTIONS.items() if k != "cache"}
# the play-out is a rule kernel (no reference counts: engines.core.kernel); the two searches
# allocate their trees and tallies
_PLAY_OUT = dict(_OPTIONS, **NO_REFCOUNTS)
_SEARCH = dict(_OPTIONS, **REFCOUNTS)


def make_search(g):
    """search_nb over the game adapter `g` (a module or namespace with the kernels above)."""
    clone, copy_into, determinize = g.clone_nb, g.copy_into_nb, g.determinize_nb
    n_players_of = g.n_players_nb
    to_move, actions, apply, rollout, outcome = g.to_move_nb, g.actions_nb, g.apply_nb, g.rollout_nb, g.outcome_nb
    max_actions = int(g.MAX_ACTIONS)

    @numba.njit(**_PLAY_OUT)
    def play_out_nb(sim, ctx, pid, rw, prng, buf, cap, score, key, rank, span):
        """Both searches' play-out: the rollout policy to the end (or `cap` decisions), then the
        finishing order into rank; span[0:2] widens to the range of final scores seen. Returns
        (decisions played, number of winners)."""
        steps = 0
        while to_move(sim) >= 0 and (cap <= 0 or steps < cap):
            apply(sim, ctx, rollout(sim, ctx, pid, rw, prng, buf))
            steps += 1
        use_key = outcome(sim, ctx, score, key)
        for s in range(score.shape[0]):
            span[0] = min(span[0], float(score[s]))
            span[1] = max(span[1], float(score[s]))
        n_win, _, _, _ = rank_nb(score, key, use_key, rank)
        return steps, n_win

    @numba.njit(**_SEARCH)
    def halving_nb(st, ctx, w, prng, stats, me, legal, n_root):
        iterations = max(1, int(w[W_ITERATIONS]))
        rollout_pid = int(w[W_ROLLOUT])
        cap_rollout = int(w[W_ROLLOUT_CAP])
        rw = w[SEARCH_HEAD:]
        n_players = n_players_of(st)
        beta = 1.0 if n_players == 1 else min(1.0, max(0.0, w[W_SCORE]))
        cand = legal[:n_root].copy()
        alive = np.arange(n_root)            # indices into cand, best first after each round
        n_alive = n_root
        wins = np.zeros(n_root)              # the searcher's summed win share per action
        pts = np.zeros(n_root)               # its summed final score
        count = np.zeros(n_root)
        value = np.empty(n_root)
        # paired against the script's choice, per sample: sums of the win-share and score differences,
        # their squares and product (the final pick's standard error)
        dw = np.zeros(n_root)
        ds = np.zeros(n_root)
        dww = np.zeros(n_root)
        dss = np.zeros(n_root)
        dws = np.zeros(n_root)
        base = clone(st)
        sim = clone(st)
        rprng = np.empty(4, np.uint64)
        buf = np.empty(max_actions, np.int64)
        # the rollout policy's own choice (on the real state: a scripted policy reads only what its
        # seat sees) stays in to the last round, so the search plays another action only when it did
        # better under the same samples in every round it was compared
        scripted = -1
        a0 = rollout(base, ctx, rollout_pid, rw, prng, buf)
        for i in range(n_root):
            if cand[i] == a0:
                scripted = i
        score = np.zeros(n_players, np.int64)
        key = np.zeros(n_players, np.int64)
        rank = np.zeros(n_players, np.int64)
        span = np.array([math.inf, -math.inf])     # range of final scores seen (any seat)
        rounds = 0
        k = 1
        while k < n_root:
            k *= 2
            rounds += 1
        simulated = 0
        played = 0
        for _ in range(rounds):
            per = max(1, iterations // (n_alive * rounds))
            for _ in range(per):
                copy_into(base, st)
                determinize(base, ctx, me, prng)
                rseed = next_u64(prng)
                win0 = 0.0
                pts0 = 0.0
                for jj in range(n_alive + 1):
                    # the script's choice first (its values pair the others'), then the rest
                    if jj == 0:
                        if scripted < 0:
                            continue
                        i = scripted
                    else:
                        i = alive[jj - 1]
                        if i == scripted:
                            continue
                    copy_into(sim, base)
                    seed_into(rprng, rseed)      # the same rollout luck for every action
                    apply(sim, ctx, cand[i])
                    steps, n_win = play_out_nb(sim, ctx, rollout_pid, rw, rprng, buf, cap_rollout, score, key,
                                               rank, span)
                    simulated += steps + 1
                    played += 1
                    win = 1.0 / n_win if rank[me] == 1 else 0.0
                    wins[i] += win
                    pts[i] += score[me]
                    count[i] += 1.0
                    if i == scripted:
                        win0 = win
                        pts0 = float(score[me])
                    elif scripted >= 0:
                        a_w = win - win0
                        a_s = score[me] - pts0
                        dw[i] += a_w
                        ds[i] += a_s
                        dww[i] += a_w * a_w
                        dss[i] += a_s * a_s
                        dws[i] += a_w * a_s
            lo = span[0]
            width = span[1] - lo if span[1] > lo else 1.0
            for j in range(n_alive):
                i = alive[j]
                value[i] = (1.0 - beta) * wins[i] / count[i] + beta * (pts[i] / count[i] - lo) / width
                if i == scripted:
                    value[i] += 1e-9                   # a tie keeps the script's choice
            # best first (stable: ties keep the listed order); keep the better half
            order = np.argsort(-value[alive[:n_alive]], kind="mergesort")
            alive[:n_alive] = alive[:n_alive][order]
            keep = (n_alive + 1) // 2
            if scripted >= 0 and keep > 1:
                for j in range(keep, n_alive):
                    if alive[j] == scripted:           # dropped: it takes the last surviving place
                        alive[j] = alive[keep - 1]
                        alive[keep - 1] = scripted
            n_alive = keep
        stats[STAT_ITERATIONS] += played
        stats[STAT_SIMULATED] += simulated
        best = alive[0]
        if scripted >= 0 and best != scripted:
            # switch from the script's choice only if the paired advantage is clear
            n = count[best]
            u, v = 1.0 - beta, beta / (span[1] - span[0] if span[1] > span[0] else 1.0)
            mean = (u * dw[best] + v * ds[best]) / n
            second = (u * u * dww[best] + 2.0 * u * v * dws[best] + v * v * dss[best]) / n
            se = math.sqrt(max(0.0, second - mean * mean) / max(1.0, n - 1.0))
            if n < 2.0 or mean <= w[W_CAUTION] * se:
                best = scripted
        return cand[best]

    @numba.njit(**_SEARCH)
    def search_nb(st, ctx, w, prng, stats):
        me = to_move(st)
        legal = np.empty(max_actions, np.int64)
        n_root = actions(st, ctx, legal)
        stats[STAT_DECISIONS] += 1
        if n_root == 1:
            return legal[0]
        iterations = max(1, int(w[W_ITERATIONS]))
        if w[W_HALVING] > 0:
            return halving_nb(st, ctx, w, prng, stats, me, legal, n_root)
        rollout_pid = int(w[W_ROLLOUT])
        c = w[W_EXPLORATION]
        cap_rollout = int(w[W_ROLLOUT_CAP])
        widening = w[W_WIDENING]
        rw = w[SEARCH_HEAD:]
        sim = clone(st)
        n_players = n_players_of(st)
        # the tree: node 0 is the root; children are a linked list (first child, next sibling)
        cap = iterations + 1
        act = np.zeros(cap, np.int64)
        who = np.zeros(cap, np.int64)          # the seat that chose act[node]
        first = np.full(cap, -1, np.int64)
        sib = np.full(cap, -1, np.int64)
        visits = np.zeros(cap, np.float64)
        avail = np.zeros(cap, np.float64)      # iterations in which the node's action was legal
        total = np.zeros(cap, np.float64)      # summed reward of seat who[node]
        path = np.empty(cap + 1, np.int64)
        n_children = np.zeros(cap, np.int64)
        hint = np.empty(max_actions, np.int64)   # the rollout policy's scratch when it names a first child
        n_nodes = 1
        score = np.zeros(n_players, np.int64)
        key = np.zeros(n_players, np.int64)
        rank = np.zeros(n_players, np.int64)
        reward = np.zeros(n_players, np.float64)
        span = np.array([math.inf, -math.inf])   # range of final scores seen (any seat)
        beta = 1.0 if n_players == 1 else min(1.0, max(0.0, w[W_SCORE]))
        simulated = 0
        for _ in range(iterations):
            copy_into(sim, st)
            determinize(sim, ctx, me, prng)
            node = 0
            depth = 0
            path[0] = 0
            # selection and expansion
            while True:
                q = to_move(sim)
                if q < 0:
                    break
                n = actions(sim, ctx, legal)
                n_untried = 0
                pick = -1
                best = -1
                best_v = -math.inf
                for i in range(n):
                    a = legal[i]
                    ch = first[node]
                    while ch >= 0 and act[ch] != a:
                        ch = sib[ch]
                    if ch < 0:
                        n_untried += 1
                        if below(prng, n_untried) == 0:   # uniform among the untried (reservoir)
                            pick = a
                    else:
                        avail[ch] += 1.0
                        mean = total[ch] / visits[ch]
                        v = mean + c * math.sqrt(math.log(avail[ch]) / visits[ch])
                        if v > best_v:
                            best_v = v
                            best = ch
                if n_untried > 0 and widening > 0 and (
                        best >= 0 and n_children[node] >= 1 + int(widening * math.sqrt(visits[node]))):
                    n_untried = 0        # not wide enough yet: choose among the children
                if n_untried > 0:
                    if widening > 0 and n_children[node] == 0:
                        # the first child is the rollout policy's choice, when the search lists it
                        a0 = rollout(sim, ctx, rollout_pid, rw, prng, hint)
                        for i in range(n):
                            if legal[i] == a0:
                                pick = a0
                                break
                    new = n_nodes
                    n_nodes += 1
                    act[new] = pick
                    who[new] = q
                    sib[new] = first[node]
                    first[node] = new
                    n_children[node] += 1
                    avail[new] = 1.0
                    apply(sim, ctx, pick)
                    simulated += 1
                    depth += 1
                    path[depth] = new
                    break
                apply(sim, ctx, act[best])
                simulated += 1
                node = best
                depth += 1
                path[depth] = node
            # play-out, reward and back-propagation
            steps, n_win = play_out_nb(sim, ctx, rollout_pid, rw, prng, legal, cap_rollout, score, key, rank, span)
            simulated += steps
            width = span[1] - span[0] if span[1] > span[0] else 1.0
            for s in range(n_players):
                share = 1.0 / n_win if rank[s] == 1 else 0.0
                reward[s] = (1.0 - beta) * share + beta * (score[s] - span[0]) / width
            visits[0] += 1.0
            for d in range(1, depth + 1):
                nd = path[d]
                visits[nd] += 1.0
                total[nd] += reward[who[nd]]
        stats[STAT_ITERATIONS] += iterations
        stats[STAT_SIMULATED] += simulated
        # the most visited root action (ties: the better mean, then the first listed)
        best = -1
        ch = first[0]
        while ch >= 0:
            if best < 0 or visits[ch] > visits[best] or (
                    visits[ch] == visits[best] and total[ch] > total[best]):
                best = ch
            ch = sib[ch]
        return act[best]

    return search_nb
