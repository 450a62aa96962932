"""Cityline game state: one int64 vector plus the chance stream.

Rulebook: Cityline; its open points are rule choices in variants/default.toml (one comment each).

Why one flat vector: numba passes every array argument as a dozen machine
words, so a state of six arrays (and a parameter tuple of eight) made each
helper call cost more than the rule it computes (measured: 260 ns vs 75 ns
for final scoring). Kernels index the vector through the constants below;
`views(state, p)` / `fields(state, p)` give readable numpy views for Python code
and tests. Each part is declared once (META, DICE, SHEET, COUNTERS, ASIDE below,
engines.core.layout); the offsets are derived from those declarations.

    State.data  int64[N_DATA(P)]
      [0, M_END)        meta: M_* (phase, turn, player to decide, ...)
      [DV, DV + 8)      the rolled dice, in roll order; first data[M_NDICE] used
      [DR, DR + 8)      re-roll reserve: what die i shows if re-rolled (drawn with the roll)
      [DC, DC + 8)      dice per face, index 1..faces
      player p block at pbase(p) = PBASE + p * PB:
        + f * MAX_COLUMNS + c   sheet field f (S_*) of column c (0-based: column c + 1)
        + PS + k                counter k (P_*)
        + AS + ph * MAX_TURNS + t      set-aside die in phase ph (0 construction, 1 occupancy), turn t; 0 = none
    State.rng   uint64[4]  the chance stream (xoshiro256**)

Every sheet is public (players share a table). Hidden: the chance stream (future
dice), the re-roll reserve and, with 2+ players, the choices other players wrote
down this turn (P_PEND_*, until everyone has chosen).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from engines.cityline.params import MAX_COLUMNS, MAX_DICE, MAX_TURNS
from engines.core.adapter import State
from engines.core.layout import Field, Layout

# Each part of the vector is declared once below; `export` defines the offsets the kernels use
# as module-level ints (numba compiles them as constants), `views` gives Python numpy views.

# ---------------------------------------------------------------- meta: M_PHASE, M_TURN, ...
META = Layout("meta", [
    Field("phase", 1, "PH_*"),
    Field("turn", 1, "0-based turn within the phase"),
    Field("player", 1, "seat to decide (-1 when over)"),
    Field("ndice", 1, "dice rolled this turn"),
    Field("decisions", 1, "decisions taken so far"),
    Field("rerolled", 1, "dice re-rolled this turn"),
    Field("nplayers", 1, "players at the table"),
])
# --- META's constants, prefix M_ (python -m engines.core.layout FILE writes them: edit META) ---
M_PHASE = 0      # PH_*
M_TURN = 1       # 0-based turn within the phase
M_PLAYER = 2     # seat to decide (-1 when over)
M_NDICE = 3      # dice rolled this turn
M_DECISIONS = 4  # decisions taken so far
M_REROLLED = 5   # dice re-rolled this turn
M_NPLAYERS = 6   # players at the table
M_SIZE = 7       # the layout's size (meta)
M_END = 7        # the first index after it
META.check(globals(), "M_")

# ---------------------------------------------------------------- dice rows: DV, DR, DC
DICE = Layout("dice", [
    Field("v", MAX_DICE, "the rolled dice in roll order; first data[M_NDICE] used"),
    Field("r", MAX_DICE, "re-roll reserve: what die i shows if re-rolled (drawn with the roll)"),
    Field("c", MAX_DICE, "dice per face, index 1..faces"),
], start=META.end)
# --- DICE's constants, prefix D (python -m engines.core.layout FILE writes them: edit DICE) ---
DV = 7      # the rolled dice in roll order; first data[M_NDICE] used
DR = 15     # re-roll reserve: what die i shows if re-rolled (drawn with the roll)
DC = 23     # dice per face, index 1..faces
DSIZE = 24  # the layout's size (dice)
DEND = 31   # the first index after it
DICE.check(globals(), "D")
PBASE = DICE.end

# ---------------------------------------------------------------- a player's block (at pbase(p))
# sheet: field + c for column c (0-based: column c + 1): H0, R0, O0, X0, F0, E0
SHEET = Layout("sheet", [
    Field("h", MAX_COLUMNS, "walls: floors built, 0..max_floors"),
    Field("r", MAX_COLUMNS, "roof type 1..faces, 0 = no roof yet"),
    Field("o", MAX_COLUMNS, "occupants (early ones included)"),
    Field("x", MAX_COLUMNS, "X's drawn in the occupancy phase"),
    Field("f", MAX_COLUMNS, "1 once populated in an occupancy turn"),
    Field("e", MAX_COLUMNS, "early occupants (construction dice on a roofed column)"),
])
H0, R0, O0, X0, F0, E0 = SHEET.offset("h", "r", "o", "x", "f", "e")
N_SHEET = len(SHEET.fields)
S_H, S_ROOF, S_OCC, S_X, S_FILLED, S_EARLY = (o // MAX_COLUMNS for o in (H0, R0, O0, X0, F0, E0))  # sheet rows

# counters: PS + P_*
PS = SHEET.end
COUNTERS = Layout("counters", [
    Field("sky", 1, "SUN / MOON / CLOUD after the time phase, -1 before"),
    Field("c_odd", 1, "odd dice set aside in construction"),
    Field("c_even", 1, "even dice set aside in construction"),
    Field("o_odd", 1, "odd dice set aside in occupancy"),
    Field("o_even", 1, "even dice set aside in occupancy"),
    Field("pend_v", 1, "die value chosen this turn, 0 = not chosen yet (hidden from others)"),
    Field("pend_c", 1, "column chosen this turn (0-based)"),
    Field("active", 1, "occupancy: 1 if this player populates a building this turn"),
    Field("rerolled", 1, "dice this player re-rolled, whole game"),
    Field("wasted_walls", 1, "dice that would have built past max_floors (or on a column beyond the sheet)"),
    Field("wasted_early", 1, "early-occupant dice with no free space"),
    Field("forced_x", 1, "occupancy turns where no building matched (filled with X's)"),
    Field("occ_turns", 1, "occupancy turns this player took"),
])
# --- COUNTERS's constants, prefix P_ (python -m engines.core.layout FILE writes them: edit COUNTERS) ---
P_SKY = 0            # SUN / MOON / CLOUD after the time phase, -1 before
P_C_ODD = 1          # odd dice set aside in construction
P_C_EVEN = 2         # even dice set aside in construction
P_O_ODD = 3          # odd dice set aside in occupancy
P_O_EVEN = 4         # even dice set aside in occupancy
P_PEND_V = 5         # die value chosen this turn, 0 = not chosen yet (hidden from others)
P_PEND_C = 6         # column chosen this turn (0-based)
P_ACTIVE = 7         # occupancy: 1 if this player populates a building this turn
P_REROLLED = 8       # dice this player re-rolled, whole game
P_WASTED_WALLS = 9   # dice that would have built past max_floors (or on a column beyond the sheet)
P_WASTED_EARLY = 10  # early-occupant dice with no free space
P_FORCED_X = 11      # occupancy turns where no building matched (filled with X's)
P_OCC_TURNS = 12     # occupancy turns this player took
P_SIZE = 13          # the layout's size (counters)
P_END = 13           # the first index after it
COUNTERS.check(globals(), "P_")
N_PSTAT = COUNTERS.size

# set-aside dice: AS + ph * MAX_TURNS + t, ph 0 construction / 1 occupancy, turn t; 0 = none
AS = PS + N_PSTAT
ASIDE = Layout("aside", [
    Field("construction", MAX_TURNS, "construction set-aside die per turn"),
    Field("occupancy", MAX_TURNS, "occupancy set-aside die per turn"),
], start=AS)
PB = ASIDE.end


def n_data(n_players: int) -> int:
    return PBASE + n_players * PB


# ---------------------------------------------------------------- phases
PH_REROLL = 0    # construction: the re-roller picks a subset of dice to re-roll (bit mask)
PH_ROOF = 1      # construction: each player picks the die to set aside and the column to roof
PH_OCCUPY = 2    # occupancy: each active player picks the building to populate and the die to set aside
PH_OVER = 3
PHASE_NAMES = ("reroll", "roof", "occupy", "over")

# ---------------------------------------------------------------- sky
SUN, MOON, CLOUD = 0, 1, 2
SKY_NAMES = ("sun", "moon", "cloud")

# ---------------------------------------------------------------- actions (int ids)
# 0..255                      re-roll: bit i re-rolls die i (dice in roll order); 0 = keep all
# ROOF_BASE + (v-1)*8 + c     set aside a die showing v, roof column c + 1 with roof type v
# OCC_BASE  + (v-1)*8 + c     populate column c + 1, set aside a die showing v
REROLL_BASE = 0
ROOF_BASE = 256
OCC_BASE = 320
N_ACTIONS = 384
ACT_STRIDE = 8


def n_players_of(st: State) -> int:
    return (len(st.data) - PBASE) // PB


class PlayerView(NamedTuple):
    """Readable numpy views of one player's part of the state (Python side)."""

    sheet: np.ndarray   # int64[N_SHEET, MAX_COLUMNS], rows S_*
    stat: np.ndarray    # int64[N_PSTAT], P_*
    aside: np.ndarray   # int64[2, MAX_TURNS]


def views(st: State, p: int) -> PlayerView:
    b = PBASE + p * PB
    d = st.data
    return PlayerView(d[b:b + PS].reshape(N_SHEET, MAX_COLUMNS), d[b + PS:b + AS],
                      d[b + AS:b + PB].reshape(2, MAX_TURNS))


def fields(st: State, p: int | None = None) -> dict[str, np.ndarray]:
    """Every declared field by name as a view: the meta and dice fields (p None) or player p's
    sheet rows, counters and set-aside rows."""
    if p is None:
        return {**META.views(st.data), **DICE.views(st.data)}
    b = PBASE + p * PB
    return {**SHEET.views(st.data, b), **COUNTERS.views(st.data, b + PS), **ASIDE.views(st.data, b)}


def dice_of(st: State) -> list[int]:
    return [int(x) for x in st.data[DV:DV + st.data[M_NDICE]]]
