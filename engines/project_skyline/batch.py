"""Project Skyline batch kernels: whole games in a jitted loop over the same rule kernels as
game.py (reset_nb, legal_nb, choose_action_nb, apply_nb).

`simulate(kparams, seat_policy_ids, seat_weights, rotate, seed, start, count)` plays games
[start, start + count) of run `seed`; game i depends only on (seed, i). Seating, stream
seeding, ranks and the required columns come from engines.core.harness; every output column is
written by name (PL_* / GA_* / CE_* resolved from tables.py at import).
"""
from __future__ import annotations

import numpy as np

from engines.core.lineup import seat_arrays
from engines.core.harness import (
    REQUIRED_GAME_COLUMNS, REQUIRED_PLAYER_COLUMNS, check_tables, column_arrays, columns, keep_alive_all,
    rank_nb, required_columns, seats_for_game_nb, seed_policies_nb, write_game_result_nb, write_seat_results_nb,
)
from engines.core.kernel import allocating_kernel, kernel, kernel_named
from engines.core.lowlevel import unowned
from engines.project_skyline.params import K_EXTRA_ROUND, K_N_AREAS, K_N_SP, K_ROUND_CAP, MAP_NAMES, KernelParams
from engines.core.search import N_STATS, STAT_SIMULATED
from engines.project_skyline.policies import RANDOM, ROW_WIDTH, SEARCH, choose_action_nb, random_action_nb
from engines.project_skyline.search import search_context_nb, search_nb
from engines.project_skyline.rules import card_count_nb, legal_nb, reset_nb, apply_nb, score_of_nb
from engines.project_skyline.state import (
    B_A_SCORED, B_H, B_TOP, END_STALLED, EV0, MAX_HEIGHT, M_DECISIONS, M_E_FLOOR, M_E_MONEY, M_ENDING, M_EVN, M_PHASE, M_PLAYER,
    M_ROUND, M_TURN, N_ACTIONS, PB, PBASE, PH_OVER, P_BOUGHT, P_BUILT, P_FINAL_CARDS, P_FINAL_END, P_FORFEIT,
    P_MONEY, P_PA, P_PLAYED, P_SOLD, P_SPENT_BUY, P_SPENT_UPG, P_SRC_AREA, P_SRC_BONUS, P_SRC_CARDS, P_SRC_MON,
    P_SRC_SELL, P_TAKEN, P_UPGRADES, P_UPOS,
)
from engines.project_skyline.tables import CARD_EVENTS, DTYPES, GAMES, PLAYERS, ROUNDS, TABLES

check_tables(TABLES)
PL_REQ = required_columns(PLAYERS, REQUIRED_PLAYER_COLUMNS)
GA_REQ = required_columns(GAMES, REQUIRED_GAME_COLUMNS)
(PL_ORDER, PL_MONEY, PL_M_CARDS, PL_M_MON, PL_M_AREA, PL_M_BONUS, PL_M_SELL, PL_M_VALUES, PL_M_END, PL_S_BUY,
 PL_S_UPG, PL_DECK, PL_UPGS, PL_UPOS, PL_BOUGHT, PL_TAKEN, PL_SOLD, PL_PLAYED, PL_BUILT, PL_FORFEIT, PL_TOWERS,
 PL_AREAS) = columns(
    PLAYERS, "turn_order", "money", "money_cards", "money_monuments", "money_areas", "money_bonuses", "money_sell",
    "money_card_values", "money_end", "spent_buy", "spent_upgrade", "deck_size", "upgrades", "upgrade_pos",
    "bought", "taken", "sold", "played", "floors_built", "floors_forfeited", "towers", "areas_present")
GA_TURNS, GA_ROUNDS, GA_ENDING, GA_MROUND, GA_FROUND, GA_AREAS, GA_TOP, GA_DROPPED, GA_SEARCH = columns(
    GAMES, "turns", "rounds", "ending", "money_round", "floor_round", "areas_scored", "top_score", "events_dropped",
    "search_simulated")
CE_GAME, CE_SEAT, CE_SLOT, CE_TURN, CE_CARD, CE_EVENT = columns(
    CARD_EVENTS, "game", "seat", "lineup_slot", "turn", "card", "event")
RS_GAME, RS_ROUND, RS_SEAT, RS_SCORE = columns(ROUNDS, "game", "round", "seat", "score")
N_PL, N_GA, N_CE, N_RS = len(PLAYERS.names), len(GAMES.names), len(CARD_EVENTS.names), len(ROUNDS.names)
EVENTS_PER_GAME = 400  # budget per game, pooled over the chunk
# the rounds table's first allocation per game (heuristic play lasts about 20 rounds); a chunk grows it
# when the next game could overrun it (round_cap rounds at most), so memory follows the rounds played
ROUNDS_PER_GAME = 32


@kernel
def record_round_nb(d, rs, rrow, k, rnd, P):
    """Each seat's score after round rnd (1-based) of game k, into rs[:, rrow:rrow + P], by the
    end's own kernel (score_of_nb: the money track until final scoring); returns the next free row."""
    for s in range(P):
        rs[RS_GAME, rrow] = k
        rs[RS_ROUND, rrow] = rnd
        rs[RS_SEAT, rrow] = s
        rs[RS_SCORE, rrow] = score_of_nb(d, s)
        rrow += 1
    return rrow


@allocating_kernel
def room_for_game_nb(rs, rrow, need):
    """rs, or a copy twice as large (or enough) when fewer than `need` rows are free after rrow."""
    if rrow + need <= rs.shape[1]:
        return rs
    grown = np.empty((rs.shape[0], max(2 * rs.shape[1], rrow + need)), rs.dtype)
    grown[:, :rrow] = rs[:, :rrow]
    return grown


def _play_game_kernel(with_search):
    """play_game_nb for line-ups with a search seat (with_search) or without one. `with_search`
    is a constant of the closure: numba prunes the search branch of the scripted kernel before
    typing, so a run of scripted players never compiles the search (most of a cold compile)."""
    @kernel_named("play_game_nb" if with_search else "play_game_scripted_nb")
    def play_game_nb(d, rng, cfg, seed, gi, pol, wts, prngs, legal, ce, crow, rs, rrow, k, slots, sctx, sstats):
        """Play game gi to the end; card events go to ce[:, crow:] (while the budget lasts), each
        round's scores to rs[:, rrow:] (room for round_cap rounds). A search seat decides with
        search_nb (context sctx, its counters added to sstats).
        Returns (next free event row, events dropped, next free rounds row)."""
        reset_nb(d, rng, cfg, seed, gi)
        seed_policies_nb(prngs, seed, gi)
        cap = ce.shape[1]
        dropped = 0
        P = slots.shape[0]
        done = 0  # rounds recorded
        while d[M_PHASE] != PH_OVER:
            p = d[M_PLAYER]
            turn = d[M_ROUND] + 1
            if with_search and pol[p] == SEARCH:  # lists its own actions
                a = search_nb((d, rng), sctx, wts[p], prngs[p], sstats)
            else:
                n = legal_nb(d, cfg, legal)
                if pol[p] == RANDOM:  # the same draw as choose_action_nb's, one call layer less
                    a = random_action_nb(d, prngs[p], legal, n)
                else:
                    a = choose_action_nb(pol[p], d, cfg, p, wts[p], prngs[p], legal, n)
            apply_nb(d, rng, cfg, a)
            for e in range(d[M_EVN]):
                if crow < cap:
                    ce[CE_GAME, crow] = k
                    ce[CE_SEAT, crow] = p
                    ce[CE_SLOT, crow] = slots[p]
                    ce[CE_TURN, crow] = turn
                    ce[CE_CARD, crow] = d[EV0 + 2 * e]
                    ce[CE_EVENT, crow] = d[EV0 + 2 * e + 1]
                    crow += 1
                else:
                    dropped += 1
            if d[M_ROUND] > done or d[M_PHASE] == PH_OVER:  # a round ended (the last one ends the game)
                done += 1
                rrow = record_round_nb(d, rs, rrow, k, done, P)
        return crow, dropped, rrow
    return play_game_nb


play_game_nb = _play_game_kernel(True)
play_game_scripted_nb = _play_game_kernel(False)


@kernel
def write_seat_columns_nb(d, cfg, s, row, pl):
    b = PBASE + s * PB
    pl[PL_ORDER, row] = s
    pl[PL_MONEY, row] = d[b + P_MONEY]
    pl[PL_M_CARDS, row] = d[b + P_SRC_CARDS]
    pl[PL_M_MON, row] = d[b + P_SRC_MON]
    pl[PL_M_AREA, row] = d[b + P_SRC_AREA]
    pl[PL_M_BONUS, row] = d[b + P_SRC_BONUS]
    pl[PL_M_SELL, row] = d[b + P_SRC_SELL]
    pl[PL_M_VALUES, row] = d[b + P_FINAL_CARDS]
    pl[PL_M_END, row] = d[b + P_FINAL_END]
    pl[PL_S_BUY, row] = d[b + P_SPENT_BUY]
    pl[PL_S_UPG, row] = d[b + P_SPENT_UPG]
    pl[PL_DECK, row] = card_count_nb(d, s)
    pl[PL_UPGS, row] = d[b + P_UPGRADES]
    pl[PL_UPOS, row] = d[b + P_UPOS]
    pl[PL_BOUGHT, row] = d[b + P_BOUGHT]
    pl[PL_TAKEN, row] = d[b + P_TAKEN]
    pl[PL_SOLD, row] = d[b + P_SOLD]
    pl[PL_PLAYED, row] = d[b + P_PLAYED]
    pl[PL_BUILT, row] = d[b + P_BUILT]
    pl[PL_FORFEIT, row] = d[b + P_FORFEIT]
    towers = 0
    for sp in range(cfg[K_N_SP]):
        if d[B_H + sp] == MAX_HEIGHT and d[B_TOP + sp] == s:
            towers += 1
    pl[PL_TOWERS, row] = towers
    areas = 0
    for a in range(cfg[K_N_AREAS]):
        if d[b + P_PA + a] > 0:
            areas += 1
    pl[PL_AREAS, row] = areas


def _simulate_chunk_kernel(with_search):
    """simulate_chunk_nb over play_game_nb (with_search) or play_game_scripted_nb: two cached
    kernels, chosen by simulate from the line-up."""
    @kernel_named("simulate_chunk_nb" if with_search else "simulate_chunk_scripted_nb", allocates=True)
    def simulate_chunk_nb(cfg, seat_policy_ids, seat_weights, rotate, seed, start, count):
        """Games [start, start + count): (players int32[N_PL, count*P], games int64[N_GA, count],
        card events int32[N_CE, rows], rounds int32[N_RS, rows]); matrix row j is table column j."""
        P = seat_policy_ids.shape[0]
        rs = np.empty((N_RS, count * P * ROUNDS_PER_GAME), np.int32)
        rrow = np.int64(0)
        pl = np.zeros((N_PL, count * P), np.int32)
        ga = np.zeros((N_GA, count), np.int64)
        ce_own = np.zeros((N_CE, count * EVENTS_PER_GAME), np.int32)
        d_own = np.zeros(PBASE + P * PB, np.int64)
        rng_own = np.zeros(4, np.uint64)
        prngs_own = np.zeros((P, 4), np.uint64)
        legal_own = np.empty(N_ACTIONS, np.int64)
        pol_own = np.empty(P, np.int64)
        wts_own = np.empty((P, seat_weights.shape[1]))
        d, rng, prngs, legal = unowned(d_own), unowned(rng_own), unowned(prngs_own), unowned(legal_own)
        pol, wts, ce = unowned(pol_own), unowned(wts_own), unowned(ce_own)
        cfg = unowned(cfg)
        slots = np.empty(P, np.int64)
        score = np.zeros(P, np.int64)
        key = np.zeros(P, np.int64)
        rank = np.zeros(P, np.int64)
        sctx = search_context_nb(cfg)
        sstats = np.zeros(N_STATS, np.int64)
        crow = np.int64(0)  # not a literal 0: see engines.core.kernel (one compile, not two)
        for k in range(count):
            gi = start + k
            seats_for_game_nb(gi, rotate, seat_policy_ids, seat_weights, slots, pol, wts)
            sstats[STAT_SIMULATED] = 0
            rs = room_for_game_nb(rs, rrow, P * cfg[K_ROUND_CAP])
            rs_b = unowned(rs)  # a borrowed view, as the other buffers (rs itself keeps the array alive)
            if with_search:
                crow, dropped, rrow = play_game_nb(d, rng, cfg, seed, gi, pol, wts, prngs, legal, ce, crow, rs_b, rrow,
                                                   k, slots, sctx, sstats)
            else:
                crow, dropped, rrow = play_game_scripted_nb(d, rng, cfg, seed, gi, pol, wts, prngs, legal, ce, crow,
                                                            rs_b, rrow, k, slots, sctx, sstats)
            top = 0
            for s in range(P):
                score[s] = score_of_nb(d, s)
                key[s] = card_count_nb(d, s)
                if score[s] > top:
                    top = score[s]
                write_seat_columns_nb(d, cfg, s, k * P + s, pl)
            n_win, n_top, winner, margin = rank_nb(score, key, np.bool_(True), rank)
            write_seat_results_nb(pl, k * P, PL_REQ, k, slots, score, rank, n_win)
            write_game_result_nb(ga, k, GA_REQ, k, winner, n_win, margin, d[M_DECISIONS],
                                 1 if d[M_ENDING] == END_STALLED else 0)
            ga[GA_TURNS, k] = d[M_TURN]
            ga[GA_ROUNDS, k] = d[M_ROUND] + 1
            ga[GA_ENDING, k] = d[M_ENDING]
            # M_E_MONEY holds the money end's last round (the trigger round + the extra round)
            ga[GA_MROUND, k] = 0 if d[M_E_MONEY] < 0 else d[M_E_MONEY] + 1 - cfg[K_EXTRA_ROUND]
            ga[GA_FROUND, k] = d[M_E_FLOOR] + 1
            scored = 0
            for a in range(cfg[K_N_AREAS]):
                scored += d[B_A_SCORED + a]
            ga[GA_AREAS, k] = scored
            ga[GA_TOP, k] = top
            ga[GA_DROPPED, k] = dropped
            ga[GA_SEARCH, k] = sstats[STAT_SIMULATED]
        keep_alive_all(d_own, rng_own, prngs_own, legal_own, pol_own, wts_own, ce_own, rs)
        return pl, ga, ce_own[:, :crow], rs[:, :rrow]
    return simulate_chunk_nb


simulate_chunk_nb = _simulate_chunk_kernel(True)
simulate_chunk_scripted_nb = _simulate_chunk_kernel(False)


def simulate(kparams: KernelParams, seat_policy_ids, seat_weights, rotate: bool, seed: int, start: int,
             count: int) -> dict[str, dict[str, np.ndarray]]:
    """Play games [start, start + count) of run `seed` -> {table: {column: array}} (tables.py)."""
    ids, w = seat_arrays(seat_policy_ids, seat_weights, kparams.n_players, min_width=ROW_WIDTH)
    chunk = simulate_chunk_nb if (ids == SEARCH).any() else simulate_chunk_scripted_nb
    pl, ga, ce, rs = chunk(kparams.cfg, ids, w, bool(rotate), np.uint64(seed), np.int64(start),
                       np.int64(count))
    map_code = np.full(count, MAP_NAMES.index(kparams.map_id) if kparams.map_id in MAP_NAMES else -1, np.int64)
    codes = np.array([c.code for c in kparams.cards], dtype=object)
    return {
        "players": column_arrays(pl, PLAYERS, DTYPES["players"], start),
        "games": column_arrays(ga, GAMES, DTYPES["games"], start, {"map": map_code}),
        "card_events": column_arrays(ce, CARD_EVENTS, DTYPES["card_events"], start,
                                     {"code": codes[ce[CE_CARD]] if ce.shape[1] else np.array([], object)}),
        "rounds": column_arrays(rs, ROUNDS, DTYPES["rounds"], start),
    }
