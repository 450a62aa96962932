"""Cityline batch kernels: whole games in a jitted loop over the same rule kernels as game.py.

`simulate(kparams, seat_policy_ids, seat_weights, rotate, seed, start, count)` plays games
[start, start + count) of run `seed`; game i depends only on (seed, i): its dice come from
chance stream (seed, i, CHANCE_STREAM) and seat s's policy draws from (seed, i, POLICY_STREAM + s).
"""
from __future__ import annotations

import numpy as np

from engines.cityline.params import K_COLUMNS, K_FACES, K_RECORD_DECISIONS, K_TABLE, MAX_COLUMNS, MAX_FACES, \
    TABLE_STRIDE, K_CONSTRUCTION_TURNS, K_OCCUPANCY_TURNS, KernelParams
from engines.cityline.policies import RANDOM, choose_action_nb, random_choice_nb
from engines.cityline.rules import apply_nb, legal_nb, matches_nb, reset_nb, score_nb
from engines.cityline.state import (
    ACT_STRIDE, AS, DC, E0, H0, M_DECISIONS, M_NDICE, M_PHASE, M_PLAYER, M_REROLLED, M_TURN, O0,
    OCC_BASE, P_C_ODD, P_FORCED_X, P_O_EVEN, P_O_ODD, P_OCC_TURNS, P_REROLLED, P_SKY, P_WASTED_EARLY,
    P_WASTED_WALLS, PB, PBASE, PH_OVER, PH_REROLL, PH_ROOF, PS, R0, ROOF_BASE, n_data,
)
from engines.core.lowlevel import keep_alive, unowned
from engines.cityline.tables import DECISION_COLUMNS, GAME_COLUMNS, PLAYER_COLUMNS, TABLES
from engines.core.kernel import kernel
from engines.core.rng import POLICY_STREAM, derive_seed, seed_into

# column positions in the kernels' output matrices (same order as tables.py)
(PL_GAME, PL_SEAT, PL_SLOT, PL_SCORE, PL_RANK, PL_WIN, PL_SHARED, PL_SKY, PL_SKY_HIT, PL_SKY_BONUS,
 PL_X, PL_XPEN, PL_BPTS) = range(13)
PL_PTS_TYPE = 13                # points_type1..6
PL_BLD_TYPE = 19                # buildings_type1..6
(PL_DEAD, PL_ZEROED, PL_FLOORS, PL_OCC, PL_EARLY, PL_WWALLS, PL_WEARLY, PL_FORCED, PL_REROLLED,
 PL_OCC_TURNS, PL_C_ODD, PL_O_ODD, PL_O_EVEN) = range(25, 38)
N_PL = 38
GA_GAME, GA_WINNER, GA_NWIN, GA_MARGIN, GA_DECISIONS, GA_STALLED, GA_TOP = range(7)
N_GA = 7
(DE_GAME, DE_SEAT, DE_SLOT, DE_PHASE, DE_TURN, DE_NDICE, DE_CODE, DE_REROLLED, DE_DIE, DE_COL, DE_ROOF,
 DE_HEIGHT, DE_PLACED, DE_XS, DE_STAKE, DE_COLPTS) = range(16)
N_DE = 16

assert len(PLAYER_COLUMNS) == N_PL and len(GAME_COLUMNS) == N_GA and len(DECISION_COLUMNS) == N_DE


@kernel
def dice_code_nb(d, faces):
    """Counts per face as decimal digits, face 1 leftmost: 1 1 2 4 6 6 -> 201102."""
    code = 0
    for f in range(1, faces + 1):
        code = code * 10 + d[DC + f]
    return code


@kernel
def record_decision_nb(d, cfg, a, dec, dcode, row):
    """One `decisions` row for the roof / occupancy action `a` about to be applied."""
    p = d[M_PLAYER]
    b = PBASE + p * PB
    phase = d[M_PHASE]
    dec[DE_SEAT, row] = p
    dec[DE_TURN, row] = d[M_TURN] + 1
    dec[DE_NDICE, row] = d[M_NDICE]
    dcode[row] = dice_code_nb(d, cfg[K_FACES])
    if phase == PH_ROOF:
        x = a - ROOF_BASE
        v = x // ACT_STRIDE + 1
        c = x % ACT_STRIDE
        dec[DE_PHASE, row] = 0
        dec[DE_REROLLED, row] = d[M_REROLLED]
        dec[DE_ROOF, row] = v
        dec[DE_PLACED, row] = d[b + O0 + c]
        dec[DE_XS, row] = 0
        dec[DE_STAKE, row] = cfg[K_TABLE + v * TABLE_STRIDE + d[b + H0 + c]]
    else:
        x = a - OCC_BASE
        v = x // ACT_STRIDE + 1
        c = x % ACT_STRIDE
        r = d[b + R0 + c]
        m = matches_nb(d, cfg, r)
        free = d[b + H0 + c] - d[b + O0 + c]
        placed = m if m < free else free
        dec[DE_PHASE, row] = 1
        dec[DE_REROLLED, row] = 0
        dec[DE_ROOF, row] = r
        dec[DE_PLACED, row] = placed
        dec[DE_XS, row] = free - placed
        dec[DE_STAKE, row] = cfg[K_TABLE + r * TABLE_STRIDE + d[b + O0 + c] + placed]
    dec[DE_DIE, row] = v
    dec[DE_COL, row] = c + 1
    dec[DE_HEIGHT, row] = d[b + H0 + c]


@kernel
def play_game_nb(d, rng, cfg, fill, seed, gi, pol, wts, prngs, legal, scratch, dec, dcode, drow):
    """Play game gi of run `seed` to the end in (d, rng) with the step API's kernels (reset_nb,
    legal_nb, choose_action_nb, apply_nb); pol[s] / wts[s] are seat s's policy id and weights.
    Decisions go to dec[drow:] when cfg[K_RECORD_DECISIONS]; returns the next free row."""
    P = pol.shape[0]
    reset_nb(d, rng, cfg, seed, gi)
    for s in range(P):
        seed_into(prngs[s], derive_seed(seed, gi, POLICY_STREAM + s))
    record = cfg[K_RECORD_DECISIONS] == 1
    while d[M_PHASE] != PH_OVER:
        p = d[M_PLAYER]
        phase = d[M_PHASE]
        if pol[p] == RANDOM:  # random_action_nb's draw, sampled from the choice set without listing it
            a = random_choice_nb(d, cfg, prngs[p])
        else:
            n = 0
            if phase != PH_REROLL:  # every mask is legal: policies draw the re-roll themselves
                n = legal_nb(d, cfg, legal)
            a = choose_action_nb(pol[p], d, cfg, fill, p, wts[p], prngs[p], legal, n, scratch)
        if record and phase != PH_REROLL:
            record_decision_nb(d, cfg, a, dec, dcode, drow)
            drow += 1
        apply_nb(d, rng, cfg, a)
    return drow


@kernel
def simulate_chunk_nb(cfg, fill, seat_policy_ids, seat_weights, rotate, seed, start, count):
    """Games [start, start + count): (players int32[N_PL, count*P], games int64[N_GA, count],
    decisions int8[N_DE, rows], dice codes int32[rows], decision game numbers int64[rows]); matrix
    row j is table column j (tables.py order); the decisions matrix's code and game rows are unused."""
    P = seat_policy_ids.shape[0]
    d = np.zeros(PBASE + P * PB, np.int64)
    rng = np.zeros(4, np.uint64)
    prngs = np.zeros((P, 4), np.uint64)
    legal = np.empty(256, np.int64)
    scratch = np.empty(256)
    pol = np.empty(P, np.int64)
    wts = np.empty((P, seat_weights.shape[1]))
    slots = np.empty(P, np.int64)
    per_game = P * (cfg[K_CONSTRUCTION_TURNS] + cfg[K_OCCUPANCY_TURNS]) if cfg[K_RECORD_DECISIONS] == 1 else 0
    # column-major (one contiguous row per table column): the Python side converts each column
    # with one contiguous cast. Decisions: the int8 columns in one matrix (the table's own dtype,
    # so no conversion), dice codes and game numbers apart; every field is written, none zeroed
    dec = np.empty((N_DE, count * per_game), np.int8)
    dcode = np.empty(count * per_game, np.int32)
    dgame = np.empty(count * per_game, np.int64)
    players = np.zeros((N_PL, count * P), np.int32)
    games = np.zeros((N_GA, count), np.int64)
    tp = np.zeros(MAX_FACES + 1, np.int64)
    cp = np.zeros((P, MAX_COLUMNS), np.int64)
    score = np.zeros(P, np.int64)
    drow = 0
    # the hot loop works on views without reference counts (engines/core/lowlevel.py); owners stay alive below
    d_own, rng_own, prngs_own, legal_own, scratch_own, tp_own, cp_own = d, rng, prngs, legal, scratch, tp, cp
    dec_own, dcode_own, dgame_own, wts_own, pol_own = dec, dcode, dgame, wts, pol
    d = unowned(d_own)
    rng = unowned(rng_own)
    prngs = unowned(prngs_own)
    legal = unowned(legal_own)
    scratch = unowned(scratch_own)
    tp = unowned(tp_own)
    cp = unowned(cp_own)
    dec = unowned(dec_own)
    dcode = unowned(dcode_own)
    dgame = unowned(dgame_own)
    wts = unowned(wts_own)
    pol = unowned(pol_own)
    cfg = unowned(cfg)
    fill = unowned(fill)
    for k in range(count):
        gi = start + k
        for s in range(P):
            slot = (s + gi) % P if rotate else s
            slots[s] = slot
            pol[s] = seat_policy_ids[slot]
            wts[s, :] = seat_weights[slot]
        d0 = drow
        drow = play_game_nb(d, rng, cfg, fill, seed, gi, pol, wts, prngs, legal, scratch, dec, dcode, drow)
        top = -(1 << 30)
        for s in range(P):
            row = k * P + s
            sc, xc, xpen, bonus, zeroed = score_nb(d, cfg, s, tp, cp[s])
            score[s] = sc
            if sc > top:
                top = sc
            b = PBASE + s * PB
            players[PL_GAME, row] = k
            players[PL_SEAT, row] = s
            players[PL_SLOT, row] = slots[s]
            players[PL_SCORE, row] = sc
            players[PL_SKY, row] = d[b + PS + P_SKY]
            players[PL_SKY_HIT, row] = 1 if bonus != 0 else 0
            players[PL_SKY_BONUS, row] = bonus
            players[PL_X, row] = xc
            players[PL_XPEN, row] = xpen
            players[PL_BPTS, row] = sc + xpen - bonus
            players[PL_ZEROED, row] = zeroed
            floors = 0
            occ = 0
            early = 0
            dead = 0
            for r in range(1, MAX_FACES + 1):
                players[PL_PTS_TYPE + r - 1, row] = tp[r]
            for c in range(cfg[K_COLUMNS]):
                floors += d[b + H0 + c]
                occ += d[b + O0 + c]
                early += d[b + E0 + c]
                r = d[b + R0 + c]
                if r > 0:
                    if d[b + H0 + c] > 0:
                        players[PL_BLD_TYPE + r - 1, row] += 1
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
        nwin = 0
        winner = -1
        second = -(1 << 30)
        for s in range(P):
            row = k * P + s
            rank = 1
            for q in range(P):
                if score[q] > score[s]:
                    rank += 1
            players[PL_RANK, row] = rank
            if score[s] == top:
                nwin += 1
                winner = s
            elif score[s] > second:
                second = score[s]
        for s in range(P):
            if score[s] == top:
                players[PL_WIN, k * P + s] = 1
                players[PL_SHARED, k * P + s] = 1 if nwin > 1 else 0
        games[GA_GAME, k] = k
        games[GA_WINNER, k] = winner if nwin == 1 else -1
        games[GA_NWIN, k] = nwin
        games[GA_MARGIN, k] = top - second if (nwin == 1 and P > 1) else 0
        games[GA_DECISIONS, k] = d[M_DECISIONS]
        games[GA_STALLED, k] = 0
        games[GA_TOP, k] = top
        for r in range(d0, drow):
            dgame[r] = k
            s = dec[DE_SEAT, r]
            dec[DE_SLOT, r] = slots[s]
            dec[DE_COLPTS, r] = cp[s, dec[DE_COL, r] - 1]
    keep_alive(d_own) + keep_alive(rng_own) + keep_alive(prngs_own) + keep_alive(legal_own)
    keep_alive(scratch_own) + keep_alive(tp_own) + keep_alive(cp_own) + keep_alive(wts_own) + keep_alive(pol_own)
    return players, games, dec_own[:, :drow], dcode_own[:drow], dgame_own[:drow]


def _columns(matrix: np.ndarray, names, dtypes, game_offset: int, special: dict | None = None):
    """matrix[j] is column j of the table (special[name] instead, where given)."""
    out = {}
    for j, (name, dt) in enumerate(zip(names, dtypes)):
        col = matrix[j] if special is None or name not in special else special[name]
        if name == "game":
            col = col.astype(np.int64) + game_offset
        else:
            col = col.astype(dt, copy=False)
        out[name] = col
    return out


def simulate(kparams: KernelParams, seat_policy_ids, seat_weights, rotate: bool, seed: int, start: int,
             count: int) -> dict[str, dict[str, np.ndarray]]:
    """Play games [start, start + count) of run `seed` -> {table: {column: array}} (tables.py)."""
    ids = np.ascontiguousarray(seat_policy_ids, dtype=np.int64)
    w = np.ascontiguousarray(seat_weights, dtype=np.float64)
    if w.ndim == 1:
        w = w.reshape(len(ids), -1)
    if len(ids) != kparams.n_players or w.shape[0] != kparams.n_players:
        raise ValueError(f"line-up has {len(ids)} policies and {w.shape[0]} weight rows "
                         f"for {kparams.n_players} players")
    if w.shape[1] < 8:
        w = np.hstack([w, np.zeros((w.shape[0], 8 - w.shape[1]))])
    players, games, dec, dcode, dgame = simulate_chunk_nb(kparams.cfg, kparams.fill, ids, w, bool(rotate),
                                                   np.uint64(seed), np.int64(start), np.int64(count))
    t = TABLES
    return {
        "players": _columns(players, t["players"].names, PLAYER_DTYPES, start),
        "games": _columns(games, t["games"].names, GAME_DTYPES, start),
        "decisions": _columns(dec, t["decisions"].names, DECISION_DTYPES, start, {"game": dgame, "dice_code": dcode}),
    }


PLAYER_DTYPES = [np.int64, np.int8, np.int8, np.int16, np.int8, np.int8, np.int8, np.int8, np.int8, np.int8,
                 np.int8, np.int8, np.int16] + [np.int16] * 6 + [np.int8] * 6 + [np.int8] * 13
GAME_DTYPES = [np.int64, np.int8, np.int8, np.int16, np.int16, np.int8, np.int16]
DECISION_DTYPES = [np.int64, np.int8, np.int8, np.int8, np.int8, np.int8, np.int32] + [np.int8] * 9
