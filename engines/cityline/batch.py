"""Cityline batch kernels: whole games in a jitted loop over the same rule kernels as game.py.

`simulate(kparams, seat_policy_ids, seat_weights, rotate, seed, start, count)` plays games
[start, start + count) of run `seed`; game i depends only on (seed, i): its dice come from
chance stream (seed, i, CHANCE_STREAM) and seat s's policy draws from (seed, i, POLICY_STREAM + s).
Seating, stream seeding, ranks and the required columns come from the shared harness
(engines.core.harness); this module keeps only what is Cityline's own. Every output column
is written by name: the PL_* / GA_* / DE_* positions below are resolved from tables.py at
import (a misspelled or removed column fails here).
"""
from __future__ import annotations

import numpy as np

from engines.core.lineup import seat_arrays
from engines.cityline.params import K_FACES, K_COLUMNS, K_CONSTRUCTION_TURNS, K_OCCUPANCY_TURNS, \
    K_RECORD_DECISIONS, K_TABLE, K_TIE_BREAK, MAX_COLUMNS, MAX_FACES, TABLE_STRIDE, KernelParams
from engines.cityline.policies import RANDOM, SEARCH, STRONG, choose_action_nb, choose_scripted_nb, random_choice_nb
from engines.cityline.search import search_context_nb, search_nb
from engines.cityline.rules import apply_nb, decode_nb, fill_outcome_nb, legal_nb, reset_nb, score_nb, tie_key_nb
from engines.cityline.state import (
    DC, E0, H0, M_DECISIONS, M_NDICE, M_PHASE, M_PLAYER, M_REROLLED, M_TURN, O0, OCC_BASE, P_C_ODD,
    P_FORCED_X, P_O_EVEN, P_O_ODD, P_OCC_TURNS, P_REROLLED, P_SKY, P_WASTED_EARLY, P_WASTED_WALLS, PB, PBASE,
    PH_OVER, PH_REROLL, PH_ROOF, PS, R0, ROOF_BASE,
)
from engines.cityline.tables import DECISIONS, DTYPES, GAMES, N_TYPES, PLAYERS, TABLES
from engines.core.harness import (
    REQUIRED_GAME_COLUMNS, REQUIRED_PLAYER_COLUMNS, check_tables, column_arrays, columns, keep_alive_all,
    rank_nb, required_columns, seats_for_game_nb, seed_policies_nb, write_game_result_nb,
    write_seat_results_nb,
)
from engines.core.kernel import inline_kernel, kernel, kernel_named
from engines.core.lowlevel import unowned
from engines.core.search import N_STATS, STAT_SIMULATED

# ---------------------------------------------------------------- output columns, by name
check_tables(TABLES)
PL_REQ = required_columns(PLAYERS, REQUIRED_PLAYER_COLUMNS)
GA_REQ = required_columns(GAMES, REQUIRED_GAME_COLUMNS)
(PL_SKY, PL_SKY_HIT, PL_SKY_BONUS, PL_X, PL_XPEN, PL_BPTS, PL_DEAD, PL_ZEROED, PL_FLOORS, PL_OCC, PL_EARLY,
 PL_WWALLS, PL_WEARLY, PL_FORCED, PL_REROLLED, PL_OCC_TURNS, PL_C_ODD, PL_O_ODD, PL_O_EVEN) = columns(
    PLAYERS, "sky", "sky_hit", "sky_bonus", "x_count", "x_penalty", "building_points", "dead_roofs", "zeroed",
    "floors", "occupants", "early_occupants", "wasted_walls", "wasted_early", "forced_x", "rerolled", "occ_turns",
    "odd_construction", "odd_occupancy", "even_occupancy")
PL_PTS_TYPE = columns(PLAYERS, *(f"points_type{r}" for r in range(1, N_TYPES + 1)))      # by roof type - 1
PL_BLD_TYPE = columns(PLAYERS, *(f"buildings_type{r}" for r in range(1, N_TYPES + 1)))
GA_TOP, GA_SEARCH = columns(GAMES, "top_score", "search_simulated")
(DE_SEAT, DE_SLOT, DE_PHASE, DE_TURN, DE_NDICE, DE_REROLLED, DE_DIE, DE_COL, DE_ROOF, DE_HEIGHT, DE_PLACED,
 DE_XS, DE_STAKE, DE_COLPTS) = columns(
    DECISIONS, "seat", "lineup_slot", "phase", "turn", "n_dice", "rerolled", "die", "column", "roof", "height",
    "placed", "xs", "at_stake", "column_points")
N_PL, N_GA, N_DE = len(PLAYERS.names), len(GAMES.names), len(DECISIONS.names)
# the decisions matrix is int8 (the table's dtype, no conversion): its game and dice_code rows are
# unused, those two columns live in their own int64 / int32 arrays
assert DTYPES["decisions"]["dice_code"] == np.int32 and N_TYPES == MAX_FACES


@inline_kernel
def dice_code_nb(d, faces):
    """Counts per face as decimal digits, face 1 leftmost: 1 1 2 4 6 6 -> 201102."""
    code = 0
    for f in range(1, faces + 1):
        code = code * 10 + d[DC + f]
    return code


@inline_kernel
def record_decision_nb(d, cfg, a, dec, dcode, row):
    """One `decisions` row for the roof / occupancy action `a` about to be applied."""
    p = d[M_PLAYER]
    b = PBASE + p * PB
    dec[DE_SEAT, row] = p
    dec[DE_TURN, row] = d[M_TURN] + 1
    dec[DE_NDICE, row] = d[M_NDICE]
    dcode[row] = dice_code_nb(d, cfg[K_FACES])
    if d[M_PHASE] == PH_ROOF:
        v, c = decode_nb(a, np.int64(ROOF_BASE))
        dec[DE_PHASE, row] = 0
        dec[DE_REROLLED, row] = d[M_REROLLED]
        dec[DE_ROOF, row] = v
        dec[DE_PLACED, row] = d[b + O0 + c]
        dec[DE_XS, row] = 0
        dec[DE_STAKE, row] = cfg[K_TABLE + v * TABLE_STRIDE + d[b + H0 + c]]
    else:
        v, c = decode_nb(a, np.int64(OCC_BASE))
        r = d[b + R0 + c]
        placed, xs, _ = fill_outcome_nb(d, cfg, b, c)
        dec[DE_PHASE, row] = 1
        dec[DE_REROLLED, row] = 0
        dec[DE_ROOF, row] = r
        dec[DE_PLACED, row] = placed
        dec[DE_XS, row] = xs
        dec[DE_STAKE, row] = cfg[K_TABLE + r * TABLE_STRIDE + d[b + O0 + c] + placed]
    dec[DE_DIE, row] = v
    dec[DE_COL, row] = c + 1
    dec[DE_HEIGHT, row] = d[b + H0 + c]


def _play_game_kernel(with_search):
    """play_game_nb for line-ups with a look-ahead seat (with_search: search or strong) or without
    one. `with_search` is a constant of the closure: numba prunes the look-ahead branches of the
    scripted kernel before typing, so a run of scripted players never compiles the search nor the
    strong player's rollouts (most of a cold compile)."""
    @kernel_named("play_game_nb" if with_search else "play_game_scripted_nb")
    def play_game_nb(d, rng, cfg, fill, seed, gi, pol, wts, prngs, legal, scratch, dec, dcode, drow, sctx, sstats):
        """Play game gi of run `seed` to the end in (d, rng) with the step API's kernels (reset_nb,
        legal_nb, choose_action_nb, apply_nb; search_nb for a search seat, with context sctx and
        its counters in sstats); pol[s] / wts[s] are seat s's policy id and weights.
        Decisions go to dec[drow:] when cfg[K_RECORD_DECISIONS]; returns the next free row."""
        reset_nb(d, rng, cfg, seed, gi)
        seed_policies_nb(prngs, seed, gi)
        record = cfg[K_RECORD_DECISIONS] == 1
        while d[M_PHASE] != PH_OVER:
            p = d[M_PLAYER]
            phase = d[M_PHASE]
            if pol[p] == RANDOM:  # random_action_nb's draw, sampled from the choice set without listing it
                a = random_choice_nb(d, cfg, prngs[p])
            elif with_search and pol[p] == SEARCH:
                a = search_nb((d, rng), sctx, wts[p], prngs[p], sstats)
            else:
                n = 0
                if phase != PH_REROLL:  # every mask is legal: policies draw the re-roll themselves
                    n = legal_nb(d, cfg, legal)
                if with_search:
                    a = choose_action_nb(pol[p], d, cfg, fill, p, wts[p], prngs[p], legal, n, scratch)
                else:
                    a = choose_scripted_nb(pol[p], d, cfg, fill, p, wts[p], prngs[p], legal, n, scratch)
            if record and phase != PH_REROLL:
                record_decision_nb(d, cfg, a, dec, dcode, drow)
                drow += 1
            apply_nb(d, rng, cfg, a)
        return drow
    return play_game_nb


play_game_nb = _play_game_kernel(True)
play_game_scripted_nb = _play_game_kernel(False)


@kernel
def write_seat_columns_nb(d, cfg, s, row, players, tp, xc, xpen, bonus, zeroed, sc):
    """Seat s's own Cityline columns (the required ones come from the harness)."""
    b = PBASE + s * PB
    players[PL_SKY, row] = d[b + PS + P_SKY]
    players[PL_SKY_HIT, row] = 1 if bonus != 0 else 0
    players[PL_SKY_BONUS, row] = bonus
    players[PL_X, row] = xc
    players[PL_XPEN, row] = xpen
    players[PL_BPTS, row] = sc + xpen - bonus
    players[PL_ZEROED, row] = zeroed
    for r in range(1, MAX_FACES + 1):
        players[PL_PTS_TYPE[r - 1], row] = tp[r]
        players[PL_BLD_TYPE[r - 1], row] = 0
    floors = 0
    occ = 0
    early = 0
    dead = 0
    for c in range(cfg[K_COLUMNS]):
        floors += d[b + H0 + c]
        occ += d[b + O0 + c]
        early += d[b + E0 + c]
        r = d[b + R0 + c]
        if r > 0:
            if d[b + H0 + c] > 0:
                players[PL_BLD_TYPE[r - 1], row] += 1
            else:
                dead += 1
    players[PL_DEAD, row] = dead
    players[PL_FLOORS, row] = floors
    players[PL_OCC, row] = occ
    players[PL_EARLY, row] = early
    players[PL_WWALLS, row] = d[b + PS + P_WASTED_WALLS]
    players[PL_WEARLY, row] = d[b + PS + P_WASTED_EARLY]
    players[PL_FORCED, row] = d[b + PS + P_FORCED_X]
    players[PL_REROLLED, row] = d[b + PS + P_REROLLED]
    players[PL_OCC_TURNS, row] = d[b + PS + P_OCC_TURNS]
    players[PL_C_ODD, row] = d[b + PS + P_C_ODD]
    players[PL_O_ODD, row] = d[b + PS + P_O_ODD]
    players[PL_O_EVEN, row] = d[b + PS + P_O_EVEN]


def _simulate_chunk_kernel(with_search):
    """simulate_chunk_nb over play_game_nb (with_search) or play_game_scripted_nb: two cached
    kernels, chosen by simulate from the line-up."""
    @kernel_named("simulate_chunk_nb" if with_search else "simulate_chunk_scripted_nb", allocates=True)
    def simulate_chunk_nb(cfg, fill, seat_policy_ids, seat_weights, rotate, seed, start, count):
        """Games [start, start + count): (players int32[N_PL, count*P], games int64[N_GA, count],
        decisions int8[N_DE, rows], dice codes int32[rows], run game numbers int64[rows]); matrix
        row j is table column j (tables.py order); the decisions matrix's code and game rows are unused."""
        P = seat_policy_ids.shape[0]
        per_game = P * (cfg[K_CONSTRUCTION_TURNS] + cfg[K_OCCUPANCY_TURNS]) if cfg[K_RECORD_DECISIONS] == 1 else 0
        # column-major (one contiguous row per table column): the Python side converts each column
        # with one contiguous cast; every decisions field is written, none zeroed
        dec_own = np.empty((N_DE, count * per_game), np.int8)
        dcode_own = np.empty(count * per_game, np.int32)
        dgame_own = np.empty(count * per_game, np.int64)
        players = np.zeros((N_PL, count * P), np.int32)
        games = np.zeros((N_GA, count), np.int64)
        # working arrays, allocated once per chunk; the hot loop uses views without reference counts
        # (engines/core/harness.py: the refcount-free buffer pattern), owners kept alive at the end
        d_own = np.zeros(PBASE + P * PB, np.int64)
        rng_own = np.zeros(4, np.uint64)
        prngs_own = np.zeros((P, 4), np.uint64)
        legal_own = np.empty(256, np.int64)
        scratch_own = np.empty(256)
        pol_own = np.empty(P, np.int64)
        wts_own = np.empty((P, seat_weights.shape[1]))
        tp_own = np.zeros(MAX_FACES + 1, np.int64)
        cp_own = np.zeros((P, MAX_COLUMNS), np.int64)
        d, rng, prngs, legal, scratch = unowned(d_own), unowned(rng_own), unowned(prngs_own), unowned(legal_own), \
            unowned(scratch_own)
        pol, wts, tp, cp = unowned(pol_own), unowned(wts_own), unowned(tp_own), unowned(cp_own)
        dec, dcode, dgame = unowned(dec_own), unowned(dcode_own), unowned(dgame_own)
        cfg = unowned(cfg)
        fill = unowned(fill)
        slots_own = np.empty(P, np.int64)
        score_own = np.zeros(P, np.int64)
        rank_own = np.zeros(P, np.int64)
        key_own = np.zeros(P, np.int64)
        # the per-game bookkeeping too: each owned array handed to a kernel costs an atomic count
        slots, score, rank, key = unowned(slots_own), unowned(score_own), unowned(rank_own), unowned(key_own)
        use_key = cfg[K_TIE_BREAK] != 0   # scoring.tie_break: 'shared' (default) ranks on the score alone
        sctx = search_context_nb(cfg, fill)
        sstats = np.zeros(N_STATS, np.int64)
        pl_b, ga_b = unowned(players), unowned(games)
        ids_b, sw_b = unowned(seat_policy_ids), unowned(seat_weights)
        drow = np.int64(0)  # not a literal 0: see engines.core.kernel (one compile, not two)
        for k in range(count):
            gi = start + k
            seats_for_game_nb(gi, rotate, ids_b, sw_b, slots, pol, wts)
            d0 = drow
            sstats[STAT_SIMULATED] = 0
            if with_search:
                drow = play_game_nb(d, rng, cfg, fill, seed, gi, pol, wts, prngs, legal, scratch, dec, dcode, drow,
                                    sctx, sstats)
            else:
                drow = play_game_scripted_nb(d, rng, cfg, fill, seed, gi, pol, wts, prngs, legal, scratch, dec, dcode,
                                             drow, sctx, sstats)
            top = -(1 << 30)
            for s in range(P):
                sc, xc, xpen, bonus, zeroed = score_nb(d, cfg, s, tp, cp[s])
                score[s] = sc
                key[s] = tie_key_nb(d, cfg, s)
                if sc > top:
                    top = sc
                write_seat_columns_nb(d, cfg, s, k * P + s, pl_b, tp, xc, xpen, bonus, zeroed, sc)
            n_win, n_top, winner, margin = rank_nb(score, key, use_key, rank)
            write_seat_results_nb(pl_b, k * P, PL_REQ, k, slots, score, rank, n_win)
            write_game_result_nb(ga_b, k, GA_REQ, k, winner, n_win, margin, d[M_DECISIONS], 0)
            ga_b[GA_TOP, k] = top
            ga_b[GA_SEARCH, k] = sstats[STAT_SIMULATED]
            for r in range(d0, drow):
                dgame[r] = gi  # the run's game number: no conversion on the Python side
                s = dec[DE_SEAT, r]
                dec[DE_SLOT, r] = slots[s]
                dec[DE_COLPTS, r] = cp[s, dec[DE_COL, r] - 1]
        keep_alive_all(d_own, rng_own, prngs_own, legal_own, scratch_own, pol_own, wts_own, tp_own, cp_own,
                       slots_own, score_own, rank_own, key_own, seat_policy_ids, seat_weights)
        return players, games, dec_own[:, :drow], dcode_own[:drow], dgame_own[:drow]
    return simulate_chunk_nb


simulate_chunk_nb = _simulate_chunk_kernel(True)
simulate_chunk_scripted_nb = _simulate_chunk_kernel(False)


def simulate(kparams: KernelParams, seat_policy_ids, seat_weights, rotate: bool, seed: int, start: int,
             count: int) -> dict[str, dict[str, np.ndarray]]:
    """Play games [start, start + count) of run `seed` -> {table: {column: array}} (tables.py)."""
    ids, w = seat_arrays(seat_policy_ids, seat_weights, kparams.n_players, min_width=8)
    chunk = simulate_chunk_nb if ((ids == SEARCH) | (ids == STRONG)).any() else simulate_chunk_scripted_nb
    players, games, dec, dcode, dgame = chunk(kparams.cfg, kparams.fill, ids, w, bool(rotate),
                                              np.uint64(seed), np.int64(start), np.int64(count))
    return {
        "players": column_arrays(players, PLAYERS, DTYPES["players"], start),
        "games": column_arrays(games, GAMES, DTYPES["games"], start),
        "decisions": column_arrays(dec, DECISIONS, DTYPES["decisions"], start, {"game": dgame, "dice_code": dcode}),
    }
