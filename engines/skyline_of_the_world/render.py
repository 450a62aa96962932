"""Text rendering of a Skyline of the World table (pure Python, outside the kernels).

    Skyline of the World  turn 12  round 3  to move: seat 2 (build)  start seat 1
           0      1      2      3      4      5
    0   .      2a4    1b1   ...
    1   .     *3c2P   ...
    ...
    cell: height, owner of the top floor (a b c d = seats 0..3, n neutral, s/S Skyline of a/b.. -- shown as
    the seat letter in capitals), top value; P = penthouse on top; * = strategic cell

A cell reads `<height><top><value>`: height 0-5, the top floor's owner as a letter (a-d for
seats 0-3, A-D for their Skyline floors, n neutral), then its income value (P for a penthouse).
"""
from __future__ import annotations

import numpy as np

from engines.skyline_of_the_world.params import LEVELS, MAX_CELLS, N_STOCK, KernelParams
from engines.skyline_of_the_world.state import (
    BUILD_FLOOR, BUILD_NEUTRAL, BH, BS, BUY_BASE, CASH_BASE, END, FLOOR_CODE, KIND_PENT, KIND_SKY, M_PHASE, M_PLAYER, M_START,
    M_TRIGGER, M_TURN, NEUTRAL, OWNER_BITS, OWNER_MASK, CSUP, P_CASH, P_HAND, P_MISSION, P_PENTHOUSES, P_SKY_STOCK,
    P_STOCK, PB, PBASE, PH_OVER, PHASE_NAMES, SELL_BASE, STOP,
    SUP, TRADE_BASE,
)

LETTERS = "abcd"


def _kind_name(kp: KernelParams, k: int) -> str:
    return "neutral" if k == LEVELS else f"{int(kp.level_values[k])}M" + (" penthouse" if k == LEVELS - 1 else "")


def action_name(a: int, kp: KernelParams) -> str:
    w = int(kp.width)
    if a < STOP:
        what, cell = divmod(a, MAX_CELLS)
        r, c = divmod(cell, w)
        return f"build {('floor', 'neutral floor', 'Skyline floor')[what]} on [{r}, {c}]"
    if a == STOP:
        return "stop building"
    if a < TRADE_BASE:
        return f"cash bonus card {a - CASH_BASE}"
    if a < BUY_BASE:
        return f"trade in bonus card {a - TRADE_BASE}"
    if a < SELL_BASE:
        return f"buy a {_kind_name(kp, a - BUY_BASE)} floor"
    if a < END:
        return f"sell a {_kind_name(kp, a - SELL_BASE)} floor"
    return "end turn"


def _cell(d: np.ndarray, kp: KernelParams, cell: int) -> str:
    h = int(d[BH + cell])
    star = "*" if kp.strategic[cell] else " "
    if h == 0:
        return f"{star}0.. "
    code = int(d[BS + cell * LEVELS + h - 1])
    if code == NEUTRAL:
        who, val = "n", "-"
    else:
        kind, owner = (code - FLOOR_CODE) >> OWNER_BITS, (code - FLOOR_CODE) & OWNER_MASK
        who = LETTERS[owner].upper() if kind == KIND_SKY else LETTERS[owner]
        val = "P" if kind == KIND_PENT else ("-" if kind == KIND_SKY else str(int(kp.level_values[h - 1])))
    return f"{star}{h}{who}{val:<2}"


def render(d: np.ndarray, kp: KernelParams, viewer: int | None = None) -> str:
    """The grid, then each seat's cash, stock and hand (hidden values, -1 in an observation, show as ?)."""
    P = (len(d) - PBASE) // PB
    w, h = int(kp.width), int(kp.height)
    phase = int(d[M_PHASE])
    head = f"Skyline of the World  turn {int(d[M_TURN])}  round {int(d[M_TURN]) // P}  start seat {int(d[M_START])}"
    if phase != PH_OVER:
        head += f"  to move: seat {int(d[M_PLAYER])} ({PHASE_NAMES[phase]})"
    else:
        head += "  game over"
    if int(d[M_TRIGGER]) >= 0:
        head += f"  last round (ended by seat {int(d[M_TRIGGER])})"
    lines = [head, "      " + "".join(f"{c:<6}" for c in range(w))]
    for r in range(h):
        lines.append(f"{r:<4}  " + "".join(f"{_cell(d, kp, r * w + c):<6}" for c in range(w)))
    lines.append("cell: * strategic, height, top owner (a-d seats, A-D their Skyline floors, n neutral), "
                 "value (P penthouse)")
    if int(kp.pool) == 0:   # a supply per colour, the neutral floors shared
        for p in range(P):
            sup = " ".join(f"{_kind_name(kp, k)}:{int(d[CSUP + p * LEVELS + k])}" for k in range(LEVELS))
            lines.append(f"bank supply {LETTERS[p]}  {sup}")
        lines.append(f"bank supply    neutral:{int(d[SUP + LEVELS])}")
    else:
        sup = " ".join(f"{_kind_name(kp, k)}:{int(d[SUP + k])}" for k in range(N_STOCK))
        lines.append(f"bank supply  {sup}")
    for p in range(P):
        b = PBASE + p * PB
        cash = int(d[b + P_CASH])
        stock = [int(x) for x in d[b + P_STOCK:b + P_STOCK + N_STOCK]]
        stock_txt = "?" if stock[0] < 0 else " ".join(f"{_kind_name(kp, k)}x{n}" for k, n in enumerate(stock) if n)
        hand = int(d[b + P_HAND])
        mission = int(d[b + P_MISSION])
        cards = [i for i in range(64) if (hand >> i) & 1]
        hidden = viewer is not None and viewer != p
        lines.append(f"seat {p} ({LETTERS[p]})  cash {'?' if cash < 0 else cash}  penthouses "
                     f"{int(d[b + P_PENTHOUSES])}  Skyline in hand {'?' if d[b + P_SKY_STOCK] < 0 else int(d[b + P_SKY_STOCK])}"
                     f"  stock [{stock_txt or '-'}]  bonus {'hidden' if hidden else cards}"
                     f"  mission {'hidden' if hidden or mission < 0 else mission}")
    return "\n".join(lines)
