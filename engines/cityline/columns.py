"""Cityline's result columns: the per-decision record hook and the end-of-game column writer the
core's batch loop calls (engines.core.adapter). Every output column is written by name: the
PL_* / GA_* / DE_* positions below are resolved from tables.py at import (a misspelled or removed
column fails here)."""
from __future__ import annotations

import numpy as np

from engines.cityline.params import K_COLUMNS, K_FACES, K_RECORD_DECISIONS, K_TABLE, MAX_FACES, TABLE_STRIDE
from engines.cityline.rules import apply_nb, decode_nb, fill_outcome_nb
from engines.cityline.search import W_BONUS, W_COLUMN_POINTS, W_TYPE_POINTS, W_XCOUNT, W_XPENALTY, W_ZEROED
from engines.cityline.state import (
    DC, E0, H0, M_NDICE, M_PHASE, M_PLAYER, M_REROLLED, M_TURN, O0, OCC_BASE, P_C_ODD, P_FORCED_X, P_O_EVEN,
    P_O_ODD, P_OCC_TURNS, P_REROLLED, P_SKY, P_WASTED_EARLY, P_WASTED_WALLS, PB, PBASE, PH_REROLL, PH_ROOF, PS,
    R0, ROOF_BASE,
)
from engines.cityline.tables import DECISIONS, DTYPES, GAMES, N_TYPES, PLAYERS
from engines.core.harness import columns
from engines.core.kernel import inline_kernel, kernel

(PL_SKY, PL_SKY_HIT, PL_SKY_BONUS, PL_X, PL_XPEN, PL_BPTS, PL_DEAD, PL_ZEROED, PL_FLOORS, PL_OCC, PL_EARLY,
 PL_WWALLS, PL_WEARLY, PL_FORCED, PL_REROLLED, PL_OCC_TURNS, PL_C_ODD, PL_O_ODD, PL_O_EVEN) = columns(
    PLAYERS, "sky", "sky_hit", "sky_bonus", "x_count", "x_penalty", "building_points", "dead_roofs", "zeroed",
    "floors", "occupants", "early_occupants", "wasted_walls", "wasted_early", "forced_x", "rerolled", "occ_turns",
    "odd_construction", "odd_occupancy", "even_occupancy")
PL_PTS_TYPE = columns(PLAYERS, *(f"points_type{r}" for r in range(1, N_TYPES + 1)))      # by roof type - 1
PL_BLD_TYPE = columns(PLAYERS, *(f"buildings_type{r}" for r in range(1, N_TYPES + 1)))
GA_TOP = columns(GAMES, "top_score")
(DE_SEAT, DE_SLOT, DE_PHASE, DE_TURN, DE_NDICE, DE_REROLLED, DE_DIE, DE_COL, DE_ROOF, DE_HEIGHT, DE_PLACED,
 DE_XS, DE_STAKE, DE_COLPTS) = columns(
    DECISIONS, "seat", "lineup_slot", "phase", "turn", "n_dice", "rerolled", "die", "column", "roof", "height",
    "placed", "xs", "at_stake", "column_points")
WIDE = ("dice_code",)     # kept in int64 beside the int8 decisions matrix: the adapter's wide[0]
W_DICE_CODE = 0
assert DTYPES["decisions"]["dice_code"] == np.int32 and N_TYPES == MAX_FACES


def rows_per_game(kp, n_players: int) -> int:
    """Decisions rows one game records at most: one per seat and roof / occupancy turn."""
    return n_players * (kp.construction_turns + kp.occupancy_turns) if kp.record_decisions == 1 else 0


@inline_kernel
def dice_code_nb(d, faces):
    """Counts per face as decimal digits, face 1 leftmost: 1 1 2 4 6 6 -> 201102."""
    code = 0
    for f in range(1, faces + 1):
        code = code * 10 + d[DC + f]
    return code


@inline_kernel
def record_decision_nb(d, cfg, a, dec, wide, row):
    """One `decisions` row for the roof / occupancy action `a` about to be applied."""
    p = d[M_PLAYER]
    b = PBASE + p * PB
    dec[DE_SEAT, row] = p
    dec[DE_TURN, row] = d[M_TURN] + 1
    dec[DE_NDICE, row] = d[M_NDICE]
    wide[W_DICE_CODE, row] = dice_code_nb(d, cfg[K_FACES])
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


@inline_kernel
def step_nb(d, rng, cfg, a, dec, wide, row):
    """Apply `a`; a roof or occupancy decision is recorded first (cfg[K_RECORD_DECISIONS])."""
    if cfg[K_RECORD_DECISIONS] == 1 and d[M_PHASE] != PH_REROLL:
        record_decision_nb(d, cfg, a, dec, wide, row)
        row += 1
    apply_nb(d, rng, cfg, a)
    return row


@kernel
def write_seat_columns_nb(d, cfg, s, row, players, ws):
    """Seat s's own Cityline columns (the required ones are the core's); ws: its work row."""
    b = PBASE + s * PB
    bonus = ws[W_BONUS]
    players[PL_SKY, row] = d[b + PS + P_SKY]
    players[PL_SKY_HIT, row] = 1 if bonus != 0 else 0
    players[PL_SKY_BONUS, row] = bonus
    players[PL_X, row] = ws[W_XCOUNT]
    players[PL_XPEN, row] = ws[W_XPENALTY]
    players[PL_ZEROED, row] = ws[W_ZEROED]
    for r in range(1, MAX_FACES + 1):
        players[PL_PTS_TYPE[r - 1], row] = ws[W_TYPE_POINTS + r]
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


@kernel
def finish_nb(d, cfg, work, score, k, row0, players, games, dec, wide, r0, r1, slots):
    """Game k's own columns: each seat's, the top score, and its decisions' line-up slots and
    column points (known once the game is scored)."""
    top = -(1 << 30)
    for s in range(slots.shape[0]):
        ws = work[s]
        if score[s] > top:
            top = score[s]
        players[PL_BPTS, row0 + s] = score[s] + ws[W_XPENALTY] - ws[W_BONUS]
        write_seat_columns_nb(d, cfg, s, row0 + s, players, ws)
    games[GA_TOP, k] = top
    for r in range(r0, r1):
        s = dec[DE_SEAT, r]
        dec[DE_SLOT, r] = slots[s]
        dec[DE_COLPTS, r] = work[s, W_COLUMN_POINTS + dec[DE_COL, r] - 1]
