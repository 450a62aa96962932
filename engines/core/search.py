"""The search player, written once for every game: single-observer information-set MCTS.

At each of its decisions the player searches `iterations` times. Every iteration

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
"""
from __future__ import annotations

import math

import numba
import numpy as np

from engines.core.harness import rank_nb
from engines.core.kernel import KERNEL_OPTIONS, inline_kernel
from engines.core.rng import below
from engines.core.spec import Column, PolicyInfo

W_ITERATIONS, W_ROLLOUT, W_EXPLORATION, W_ROLLOUT_CAP, W_SCORE, W_WIDENING = 0, 1, 2, 3, 4, 5
SEARCH_HEAD = 6                     # the rollout policy's weights start here
SEARCH_WEIGHTS = {"iterations": 400.0, "rollout": 0.0, "exploration": 0.7, "rollout_cap": 0.0,
                  "score_weight": 0.25, "widening": 1.0}
assert len(SEARCH_WEIGHTS) == SEARCH_HEAD
SEARCH_WEIGHT_RANGES = {"iterations": (1, 100_000), "exploration": (0, 100), "rollout_cap": (0, 1e6),
                        "score_weight": (0, 1), "widening": (0, 100)}
SEARCH_DESCRIPTION = ("Information-set MCTS: per decision `iterations` determinized searches (hidden "
                      "cards, bids and dice resampled from what the seat has seen), UCB1 with "
                      "availability counts, then `rollout` policy play-outs; plays the most visited action.")
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


@inline_kernel
def clone_pair_nb(st):
    """clone_nb for the common state shape (state vector, chance stream): Cityline, Skyline of
    the World and Project Skyline use it as theirs."""
    return st[0].copy(), st[1].copy()


@inline_kernel
def copy_pair_into_nb(dst, src):
    """copy_into_nb for the (state vector, chance stream) shape."""
    dst[0][:] = src[0]
    dst[1][:] = src[1]


_OPTIONS = {k: v for k, v in KERNEL_OPTIONS.items() if k != "cache"}


def make_search(g):
    """search_nb over the game adapter `g` (a module or namespace with the kernels above)."""
    clone, copy_into, determinize = g.clone_nb, g.copy_into_nb, g.determinize_nb
    n_players_of = g.n_players_nb
    to_move, actions, apply, rollout, outcome = g.to_move_nb, g.actions_nb, g.apply_nb, g.rollout_nb, g.outcome_nb
    max_actions = int(g.MAX_ACTIONS)

    @numba.njit(**_OPTIONS)
    def search_nb(st, ctx, w, prng, stats):
        me = to_move(st)
        legal = np.empty(max_actions, np.int64)
        n_root = actions(st, ctx, legal)
        stats[STAT_DECISIONS] += 1
        if n_root == 1:
            return legal[0]
        iterations = max(1, int(w[W_ITERATIONS]))
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
        lo, hi = math.inf, -math.inf           # range of final scores seen (any seat)
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
            # play-out
            steps = 0
            while to_move(sim) >= 0 and (cap_rollout <= 0 or steps < cap_rollout):
                a = rollout(sim, ctx, rollout_pid, rw, prng, legal)
                apply(sim, ctx, a)
                steps += 1
            simulated += steps
            # reward and back-propagation
            use_key = outcome(sim, ctx, score, key)
            for s in range(n_players):
                lo = min(lo, float(score[s]))
                hi = max(hi, float(score[s]))
            n_win, _, _, _ = rank_nb(score, key, use_key, rank)
            span = hi - lo if hi > lo else 1.0
            for s in range(n_players):
                share = 1.0 / n_win if rank[s] == 1 else 0.0
                reward[s] = (1.0 - beta) * share + beta * (score[s] - lo) / span
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
