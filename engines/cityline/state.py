"""Cityline game state: one int64 vector plus the chance stream.

Rulebook: shared/rules/cityline.txt; open points: shared/rules/GAPS.md.

Why one flat vector: numba passes every array argument as a dozen machine
words, so a state of six arrays (and a parameter tuple of eight) made each
helper call cost more than the rule it computes (measured: 260 ns vs 75 ns
for final scoring). Kernels index the vector through the constants below;
`views(state, p)` gives readable numpy views for Python code and tests.

    State.data  int64[N_DATA(P)]
      [0, 8)            meta: M_* (phase, turn, player to decide, ...)
      [DV, DV + 8)      the rolled dice, sorted ascending; first data[M_NDICE] used
      [DR, DR + 8)      re-roll reserve: what die i shows if re-rolled (drawn with the roll)
      [DC, DC + 8)      dice per face, index 1..faces
      player p block at pbase(p) = PBASE + p * PB:
        + f * MAX_COLUMNS + c   sheet field f (S_*) of column c (0-based: column c + 1)
        + PS + k                counter k (P_*)
        + AS + ph * 8 + t       set-aside die in phase ph (0 construction, 1 occupancy), turn t; 0 = none
    State.rng   uint64[4]  the chance stream (xoshiro256**)

Every sheet is public (players share a table). Hidden: the chance stream (future
dice), the re-roll reserve and, with 2+ players, the choices other players wrote
down this turn (P_PEND_*, until everyone has chosen).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from engines.cityline.params import MAX_COLUMNS, MAX_DICE, MAX_TURNS

# ---------------------------------------------------------------- meta
M_PHASE = 0      # PH_*
M_TURN = 1       # 0-based turn within the phase
M_PLAYER = 2     # seat to decide (-1 when over)
M_NDICE = 3      # dice rolled this turn
M_DECISIONS = 4  # decisions taken so far
M_REROLLED = 5   # dice re-rolled this turn
M_NPLAYERS = 6

# ---------------------------------------------------------------- dice rows
DV = 8
DR = DV + MAX_DICE
DC = DR + MAX_DICE
PBASE = DC + MAX_DICE

# ---------------------------------------------------------------- sheet fields (f * MAX_COLUMNS + c)
S_H = 0          # walls: floors built, 0..max_floors
S_ROOF = 1       # roof type 1..faces, 0 = no roof yet
S_OCC = 2        # occupants (early ones included)
S_X = 3          # X's drawn in the occupancy phase
S_FILLED = 4     # 1 once populated in an occupancy turn
S_EARLY = 5      # early occupants (construction dice on a roofed column)
N_SHEET = 6
H0 = S_H * MAX_COLUMNS
R0 = S_ROOF * MAX_COLUMNS
O0 = S_OCC * MAX_COLUMNS
X0 = S_X * MAX_COLUMNS
F0 = S_FILLED * MAX_COLUMNS
E0 = S_EARLY * MAX_COLUMNS

# ---------------------------------------------------------------- player counters (PS + k)
PS = N_SHEET * MAX_COLUMNS
P_SKY = 0        # SUN / MOON / CLOUD after the time phase, -1 before
P_C_ODD = 1      # odd dice set aside in construction
P_C_EVEN = 2     # even dice set aside in construction
P_O_ODD = 3      # odd dice set aside in occupancy
P_O_EVEN = 4     # even dice set aside in occupancy
P_PEND_V = 5     # die value chosen this turn, 0 = not chosen yet (hidden from others)
P_PEND_C = 6     # column chosen this turn (0-based)
P_ACTIVE = 7     # occupancy: 1 if this player populates a building this turn
P_REROLLED = 8   # dice this player re-rolled, whole game
P_WASTED_WALLS = 9   # dice that would have built past max_floors (or on a column beyond the sheet)
P_WASTED_EARLY = 10  # early-occupant dice with no free space
P_FORCED_X = 11      # occupancy turns where no building matched (filled with X's)
P_OCC_TURNS = 12     # occupancy turns this player took
N_PSTAT = 16
AS = PS + N_PSTAT
PB = AS + 2 * MAX_TURNS


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
# 0..255                      re-roll: bit i re-rolls die i (dice sorted ascending); 0 = keep all
# ROOF_BASE + (v-1)*8 + c     set aside a die showing v, roof column c + 1 with roof type v
# OCC_BASE  + (v-1)*8 + c     populate column c + 1, set aside a die showing v
REROLL_BASE = 0
START = -1       # internal: reset_nb's 'roll the first turn' (not a decision)
ROOF_BASE = 256
OCC_BASE = 320
N_ACTIONS = 384
ACT_STRIDE = 8


class State(NamedTuple):
    data: np.ndarray   # int64[n_data(P)], layout above
    rng: np.ndarray    # uint64[4]


def alloc_state(n_players: int) -> State:
    return State(np.zeros(n_data(n_players), np.int64), np.zeros(4, np.uint64))


def copy_state(st: State) -> State:
    return State(st.data.copy(), st.rng.copy())


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


def dice_of(st: State) -> list[int]:
    return [int(x) for x in st.data[DV:DV + st.data[M_NDICE]]]
