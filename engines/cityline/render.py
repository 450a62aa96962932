"""Text rendering of Cityline sheets (pure Python, outside the kernels).

    seat 0  sky: sun (construction odd 4 / even 2)   score 23
    col        1    2    3    4    5    6
    roof      Odd  Evn  Low  Hi   Prs  Any
    5         .    o    .    .    .    .
    4         .    o    x    .    o    .
    ...
    aside C   1 3 4 5 5 6      aside O  1 5 3
"""
from __future__ import annotations

import numpy as np

from engines.cityline.params import KernelParams
from engines.cityline.state import (
    ACT_STRIDE, AS, DV, H0, M_NDICE, M_PHASE, M_PLAYER, M_TURN, O0, P_C_EVEN, P_C_ODD, P_PEND_V, P_SKY, PB, PBASE, PH_OVER,
    PHASE_NAMES, PS, R0, SKY_NAMES, X0, E0, OCC_BASE, ROOF_BASE, State, dice_of, n_players_of,
)

SHORT = ["--", "Odd", "Evn", "Low", "Hi", "Prs", "Any"]


def render_sheet(st: State, kp: KernelParams, p: int, names: list[str] | None = None) -> str:
    d = st.data
    b = PBASE + p * PB
    cols = kp.columns
    short = [n[:3] for n in names] if names else SHORT
    sky = int(d[b + PS + P_SKY])
    sky_txt = SKY_NAMES[sky] if sky >= 0 else "?"
    tp = np.zeros(7, np.int64)
    cp = np.zeros(6, np.int64)
    from engines.cityline.rules import score_nb
    score, xc, xpen, bonus, _ = score_nb(d, kp.cfg, p, tp, cp)
    lines = [f"seat {p}  sky: {sky_txt} (construction odd {d[b + PS + P_C_ODD]} / even "
             f"{d[b + PS + P_C_EVEN]})  score {score} (X's {xc}: -{xpen}, sky {bonus:+d})"]
    lines.append("col    " + "".join(f"{c + 1:>5}" for c in range(cols)))
    lines.append("roof   " + "".join(f"{short[d[b + R0 + c]] if d[b + R0 + c] else '':>5}" for c in range(cols)))
    for lvl in range(kp.max_floors, 0, -1):
        row = []
        for c in range(cols):
            h, occ, xs = d[b + H0 + c], d[b + O0 + c], d[b + X0 + c]
            if lvl > h:
                ch = "."
            elif lvl <= occ:
                ch = "o"  # occupant (early ones included)
            elif lvl <= occ + xs:
                ch = "x"
            else:
                ch = "_"  # built, still empty
            row.append(f"{ch:>5}")
        lines.append(f"{lvl:<7}" + "".join(row))
    lines.append("points " + "".join(f"{cp[c]:>5}" for c in range(cols)))
    lines.append("early  " + "".join(f"{d[b + E0 + c]:>5}" for c in range(cols)))
    ca = [int(x) for x in d[b + AS:b + AS + 8] if x]
    oa = [int(x) for x in d[b + AS + 8:b + AS + 16] if x]
    lines.append(f"set aside: construction {ca}  occupancy {oa}")
    return "\n".join(lines)


def render(st: State, kp: KernelParams, names: list[str] | None = None) -> str:
    d = st.data
    phase = int(d[M_PHASE])
    head = f"Cityline  phase {PHASE_NAMES[phase]}  turn {int(d[M_TURN]) + 1}"
    if phase != PH_OVER:
        head += f"  to move: seat {int(d[M_PLAYER])}  dice {[int(x) for x in d[DV:DV + d[M_NDICE]]]}"
    parts = [head]
    for p in range(n_players_of(st)):
        parts.append(render_sheet(st, kp, p, names))
    return "\n\n".join(parts)


def action_name(st: State, a: int, names: list[str]) -> str:
    """An action in words (names: roof type names, params.roof_names)."""
    if 0 <= a < ROOF_BASE:
        dice = dice_of(st)
        chosen = [dice[i] for i in range(len(dice)) if (a >> i) & 1]
        return f"re-roll {chosen}" if chosen else "keep all dice"
    if ROOF_BASE <= a < OCC_BASE:
        v, c = (a - ROOF_BASE) // ACT_STRIDE + 1, (a - ROOF_BASE) % ACT_STRIDE
        return f"set aside {v}, roof column {c + 1} as {names[v]}"
    v, c = (a - OCC_BASE) // ACT_STRIDE + 1, (a - OCC_BASE) % ACT_STRIDE
    return f"populate column {c + 1}, set aside {v}"
