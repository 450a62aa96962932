"""Skyline of the World batch kernels: whole games in a jitted loop over the same rule
kernels as game.py.

`simulate(kparams, seat_policy_ids, seat_weights, rotate, seed, start, count)` plays games
[start, start + count) of run `seed`; game i depends only on (seed, i): its setup comes from
chance stream (seed, i, CHANCE_STREAM), seat s's policy draws from (seed, i, POLICY_STREAM + s).
Seating, stream seeding, ranks and the required columns come from the shared harness; every
output column is written by name (positions resolved from tables.py at import).
"""
from __future__ import annotations

import numpy as np

from engines.core.lineup import seat_arrays
from engines.core.harness import (
    REQUIRED_GAME_COLUMNS, REQUIRED_PLAYER_COLUMNS, check_tables, column_arrays, columns, keep_alive_all,
    rank_nb, required_columns, seats_for_game_nb, seed_policies_nb, write_game_result_nb, write_seat_results_nb,
)
from engines.core.kernel import kernel, kernel_named
from engines.core.search import N_STATS, STAT_SIMULATED
from engines.core.lowlevel import popcount, unowned
from engines.skyline_of_the_world.params import K_N_CELLS, K_RECORD_INCOME, K_TURN_CAP, KernelParams, N_STOCK
from engines.skyline_of_the_world.policies import MAX_WEIGHTS, SEARCH, choose_action_nb
from engines.skyline_of_the_world.rules import apply_nb, income_nb, legal_nb, pb_nb, reset_nb, score_parts_nb, \
    tie_key_nb
from engines.skyline_of_the_world.search import search_context_nb, search_nb
from engines.skyline_of_the_world.state import (
    BH, M_BANK_NET, M_DECISIONS, M_INCOME, M_INCOME_GROUP, M_PHASE, M_PLAYER, M_STALLED, M_START, M_TRIGGER,
    M_TURN, N_ACTIONS, P_BLOCKS, P_BOUGHT, P_BUILT, P_CAP_HITS, P_CAP_LOST, P_CAP_LOST_OTHER, P_CASH, P_CASHED_N, P_CASHED_VALUE,
    P_FEES_BANK, P_FEES_PAID, P_FEES_RECV, P_GOT_SELL, P_HAND, P_INCOME_MAX, P_INCOME_SUM, P_SKY_PLACED, P_SOLD,
    P_SPENT_BUY, P_TRADED_N, P_TURNS, PB, PBASE, PH_OVER,
)
from engines.skyline_of_the_world.tables import DTYPES, GAMES, INCOME, KIND_SUFFIX, PLAYERS, ROUNDS, TABLES

check_tables(TABLES)
PL_REQ = required_columns(PLAYERS, REQUIRED_PLAYER_COLUMNS)
GA_REQ = required_columns(GAMES, REQUIRED_GAME_COLUMNS)
(PL_ORDER, PL_PENT, PL_STRAT, PL_MISSION, PL_TRIG, PL_CASH, PL_INC_TOT, PL_INC_MAX, PL_INC_FIN, PL_TURNS,
 PL_BCASHED, PL_BVALUE, PL_BTRADED, PL_BHELD, PL_FPAID, PL_FRECV, PL_FBANK, PL_CAPH, PL_CAPL, PL_SKY,
 PL_BLOCKS, PL_SPENT, PL_GOT, PL_CAPO) = columns(
    PLAYERS, "turn_order", "penthouses", "strategic", "mission_done", "triggered_end", "cash", "income_total",
    "income_max", "income_final", "turns", "bonus_cashed", "bonus_value", "bonus_traded", "bonus_held",
    "fees_paid", "fees_received", "fees_bank", "cap_hits", "cap_lost", "skyline_built", "blocks",
    "spent_buying", "got_selling", "cap_lost_other")
PL_BOUGHT = columns(PLAYERS, *(f"bought_{s}" for s in KIND_SUFFIX))
PL_SOLD = columns(PLAYERS, *(f"sold_{s}" for s in KIND_SUFFIX))
PL_BUILT = columns(PLAYERS, *(f"built_{s}" for s in KIND_SUFFIX))
(GA_TURNS, GA_START, GA_TSEAT, GA_TORDER, GA_TWON, GA_TOP, GA_PENT, GA_FLOORS, GA_BANK, GA_SEARCH) = columns(
    GAMES, "turns", "start_player", "trigger_seat", "trigger_order", "trigger_won", "top_score", "penthouses",
    "floors", "bank_net", "search_simulated")
(IN_GAME, IN_SEAT, IN_SLOT, IN_TURN, IN_ROUND, IN_INC, IN_GROUP, IN_CASH) = columns(
    INCOME, "game", "seat", "lineup_slot", "turn", "round", "income", "group", "cash")
(RS_GAME, RS_ROUND, RS_SEAT, RS_SCORE) = columns(ROUNDS, "game", "round", "seat", "score")
N_PL, N_GA, N_IN, N_RS = len(PLAYERS.names), len(GAMES.names), len(INCOME.names), len(ROUNDS.names)


@kernel
def record_round_nb(d, cfg, rs, rrow, k, rnd, P):
    """Each seat's prestige after round rnd (1-based) of game k, into rs[:, rrow:rrow + P], scored
    by the end's own kernel (score_parts_nb); returns the next free row."""
    for s in range(P):
        prestige, _, _, _ = score_parts_nb(d, cfg, s)
        rs[RS_GAME, rrow] = k
        rs[RS_ROUND, rrow] = rnd
        rs[RS_SEAT, rrow] = s
        rs[RS_SCORE, rrow] = prestige
        rrow += 1
    return rrow


def _play_game_kernel(with_search):
    """play_game_nb for line-ups with a search seat (with_search) or without one. `with_search`
    is a constant of the closure: numba prunes the search branch of the scripted kernel before
    typing, so a run of scripted players never compiles the search (most of a cold compile)."""
    @kernel_named("play_game_nb" if with_search else "play_game_scripted_nb")
    def play_game_nb(d, rng, cfg, seed, gi, pol, wts, prngs, legal, inc, irow, rs, rrow, k, slots, sctx, sstats):
        """Play game gi of run `seed` to the end with the step API's kernels (reset_nb, legal_nb,
        choose_action_nb, apply_nb; search_nb for a search seat, with context sctx and its counters
        in sstats); each turn's income goes to inc[:, irow:] when recording, each round's scores to
        rs[:, rrow:] (the rounds table). Returns the next free income row and rounds row."""
        reset_nb(d, rng, cfg, seed, gi)
        seed_policies_nb(prngs, seed, gi)
        record = cfg[K_RECORD_INCOME] == 1
        P = slots.shape[0]
        next_turn = 0
        done = 0  # rounds recorded
        while d[M_PHASE] != PH_OVER:
            p = d[M_PLAYER]
            if record and d[M_TURN] == next_turn:
                inc[IN_GAME, irow] = k
                inc[IN_SEAT, irow] = p
                inc[IN_SLOT, irow] = slots[p]
                inc[IN_TURN, irow] = next_turn
                inc[IN_ROUND, irow] = next_turn // P
                inc[IN_INC, irow] = d[M_INCOME]
                inc[IN_GROUP, irow] = d[M_INCOME_GROUP]
                inc[IN_CASH, irow] = d[pb_nb(p) + P_CASH]
                irow += 1
                next_turn += 1
            if with_search and pol[p] == SEARCH:
                a = search_nb((d, rng), sctx, wts[p], prngs[p], sstats)
            else:
                n = legal_nb(d, cfg, legal)
                a = choose_action_nb(pol[p], d, cfg, p, wts[p], prngs[p], legal, n)
            apply_nb(d, rng, cfg, a)
            t = d[M_TURN]
            if t >= (done + 1) * P or (d[M_PHASE] == PH_OVER and t > done * P):
                done += 1
                rrow = record_round_nb(d, cfg, rs, rrow, k, done, P)
        return irow, rrow
    return play_game_nb


play_game_nb = _play_game_kernel(True)
play_game_scripted_nb = _play_game_kernel(False)


@kernel
def write_seat_columns_nb(d, cfg, s, row, pl, pent, strat, md, P):
    """Seat s's own columns (the required ones come from the harness)."""
    b = pb_nb(s)
    pl[PL_ORDER, row] = (s - d[M_START] + P) % P
    pl[PL_PENT, row] = pent
    pl[PL_STRAT, row] = strat
    pl[PL_MISSION, row] = md
    pl[PL_TRIG, row] = 1 if d[M_TRIGGER] == s else 0
    pl[PL_CASH, row] = d[b + P_CASH]
    pl[PL_INC_TOT, row] = d[b + P_INCOME_SUM]
    pl[PL_INC_MAX, row] = d[b + P_INCOME_MAX]
    fin, _ = income_nb(d, cfg, s)
    pl[PL_INC_FIN, row] = fin
    pl[PL_TURNS, row] = d[b + P_TURNS]
    pl[PL_BCASHED, row] = d[b + P_CASHED_N]
    pl[PL_BVALUE, row] = d[b + P_CASHED_VALUE]
    pl[PL_BTRADED, row] = d[b + P_TRADED_N]
    pl[PL_BHELD, row] = popcount(d[b + P_HAND])
    pl[PL_FPAID, row] = d[b + P_FEES_PAID]
    pl[PL_FRECV, row] = d[b + P_FEES_RECV]
    pl[PL_FBANK, row] = d[b + P_FEES_BANK]
    pl[PL_CAPH, row] = d[b + P_CAP_HITS]
    pl[PL_CAPL, row] = d[b + P_CAP_LOST]
    pl[PL_CAPO, row] = d[b + P_CAP_LOST_OTHER]
    pl[PL_SKY, row] = d[b + P_SKY_PLACED]
    pl[PL_BLOCKS, row] = d[b + P_BLOCKS]
    pl[PL_SPENT, row] = d[b + P_SPENT_BUY]
    pl[PL_GOT, row] = d[b + P_GOT_SELL]
    for k in range(N_STOCK):
        pl[PL_BOUGHT[k], row] = d[b + P_BOUGHT + k]
        pl[PL_SOLD[k], row] = d[b + P_SOLD + k]
        pl[PL_BUILT[k], row] = d[b + P_BUILT + k]


def _simulate_chunk_kernel(with_search):
    """simulate_chunk_nb over play_game_nb (with_search) or play_game_scripted_nb: two cached
    kernels, chosen by simulate from the line-up."""
    @kernel_named("simulate_chunk_nb" if with_search else "simulate_chunk_scripted_nb", allocates=True)
    def simulate_chunk_nb(cfg, seat_policy_ids, seat_weights, rotate, seed, start, count):
        """Games [start, start + count): (players int64[N_PL, count*P], games int64[N_GA, count],
        income int32[N_IN, rows], rounds int32[N_RS, rows]); matrix row j is table column j (tables.py order)."""
        P = seat_policy_ids.shape[0]
        per_game = cfg[K_TURN_CAP] if cfg[K_RECORD_INCOME] == 1 else 0
        # the rounds table's rows: P a round, at most ceil(turn cap / P) rounds a game (the cap ends every game)
        rs_own = np.empty((N_RS, count * P * ((cfg[K_TURN_CAP] + P - 1) // P)), np.int32)
        players = np.zeros((N_PL, count * P), np.int64)
        games = np.zeros((N_GA, count), np.int64)
        inc_own = np.empty((N_IN, count * per_game), np.int32)
        d_own = np.zeros(PBASE + P * PB, np.int64)
        rng_own = np.zeros(4, np.uint64)
        prngs_own = np.zeros((P, 4), np.uint64)
        legal_own = np.empty(N_ACTIONS, np.int64)
        pol_own = np.empty(P, np.int64)
        wts_own = np.empty((P, seat_weights.shape[1]))
        d, rng, prngs, legal = unowned(d_own), unowned(rng_own), unowned(prngs_own), unowned(legal_own)
        pol, wts, inc, rs = unowned(pol_own), unowned(wts_own), unowned(inc_own), unowned(rs_own)
        cfg = unowned(cfg)  # the caller keeps the rule vector alive
        slots = np.empty(P, np.int64)
        score = np.zeros(P, np.int64)
        key = np.zeros(P, np.int64)
        rank = np.zeros(P, np.int64)
        sctx = search_context_nb(cfg)
        sstats = np.zeros(N_STATS, np.int64)
        irow = np.int64(0)  # not a literal 0: see engines.core.kernel (one compile, not two)
        rrow = np.int64(0)
        for k in range(count):
            gi = start + k
            seats_for_game_nb(gi, rotate, seat_policy_ids, seat_weights, slots, pol, wts)
            sstats[STAT_SIMULATED] = 0
            if with_search:
                irow, rrow = play_game_nb(d, rng, cfg, seed, gi, pol, wts, prngs, legal, inc, irow, rs, rrow, k, slots,
                                          sctx, sstats)
            else:
                irow, rrow = play_game_scripted_nb(d, rng, cfg, seed, gi, pol, wts, prngs, legal, inc, irow, rs, rrow,
                                                   k, slots, sctx, sstats)
            pent_total = 0
            top = -1
            for s in range(P):
                prestige, pent, strat, md = score_parts_nb(d, cfg, s)
                score[s] = prestige
                key[s] = tie_key_nb(d, cfg, s)
                pent_total += pent
                if prestige > top:
                    top = prestige
                write_seat_columns_nb(d, cfg, s, k * P + s, players, pent, strat, md, P)
            n_win, n_top, winner, margin = rank_nb(score, key, np.bool_(True), rank)
            write_seat_results_nb(players, k * P, PL_REQ, k, slots, score, rank, n_win)
            write_game_result_nb(games, k, GA_REQ, k, winner, n_win, margin, d[M_DECISIONS], d[M_STALLED])
            games[GA_TURNS, k] = d[M_TURN]
            games[GA_START, k] = d[M_START]
            t = d[M_TRIGGER]
            games[GA_TSEAT, k] = t
            games[GA_TORDER, k] = (t - d[M_START] + P) % P if t >= 0 else -1
            games[GA_TWON, k] = (1 if rank[t] == 1 else 0) if t >= 0 else -1
            games[GA_TOP, k] = top
            games[GA_PENT, k] = pent_total
            fl = 0
            for c in range(cfg[K_N_CELLS]):
                fl += d[BH + c]
            games[GA_FLOORS, k] = fl
            games[GA_BANK, k] = d[M_BANK_NET]
            games[GA_SEARCH, k] = sstats[STAT_SIMULATED]
        keep_alive_all(d_own, rng_own, prngs_own, legal_own, pol_own, wts_own, inc_own, rs_own)
        return players, games, inc_own[:, :irow], rs_own[:, :rrow]
    return simulate_chunk_nb


simulate_chunk_nb = _simulate_chunk_kernel(True)
simulate_chunk_scripted_nb = _simulate_chunk_kernel(False)


def simulate(kparams: KernelParams, seat_policy_ids, seat_weights, rotate: bool, seed: int, start: int,
             count: int) -> dict[str, dict[str, np.ndarray]]:
    """Play games [start, start + count) of run `seed` -> {table: {column: array}} (tables.py)."""
    ids, w = seat_arrays(seat_policy_ids, seat_weights, kparams.n_players, min_width=MAX_WEIGHTS)
    chunk = simulate_chunk_nb if (ids == SEARCH).any() else simulate_chunk_scripted_nb
    players, games, inc, rs = chunk(kparams.cfg, ids, w, bool(rotate), np.uint64(seed), np.int64(start),
                                np.int64(count))
    out = {
        "players": column_arrays(players, PLAYERS, DTYPES["players"], start),
        "games": column_arrays(games, GAMES, DTYPES["games"], start),
        "rounds": column_arrays(rs, ROUNDS, DTYPES["rounds"], start),
    }
    if kparams.record_income:
        out["income"] = column_arrays(inc, INCOME, DTYPES["income"], start)
    return out
