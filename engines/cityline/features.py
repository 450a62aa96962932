"""Cityline's features for the learned expert (engines.core.expert): what a seat's own sheet is
worth, read from what that seat sees (its sheet, its own pending choice, the turn and the dice
on the table; every sheet is public, but no other sheet changes what this one scores).

`features_nb(d, cfg, fill, p, out)` describes seat p's sheet with p's own pending choice taken
as made (a roof drawn; a building filled in one go with the dice on the table), so the state
right after p's decision and the state after the whole turn is resolved read alike. The
estimates are the heuristic's building blocks (the `fill` tables: expected points and X's of
populating a building in one go with n dice); the model learns how much each is worth.
"""
from __future__ import annotations

import numpy as np

from engines.cityline.params import (
    K_CLOUD_BONUS, K_COLUMNS, K_CONSTRUCTION_TURNS, K_DICE, K_EMPTY_SCORES, K_FACES, K_MAX_FLOORS, K_MOON_BONUS,
    K_OCCUPANCY_TURNS, K_SAME_TYPE_ONCE, K_SUN_BONUS, K_TABLE, K_X_PENALTY, K_X_PER_PENALTY, MAX_DICE, TABLE_STRIDE,
)
from engines.cityline.rules import fill_outcome_nb, sky_bonus_nb, sky_of_nb
from engines.cityline.state import (
    F0, H0, M_PHASE, M_TURN, MOON, O0, P_C_EVEN, P_C_ODD, P_O_EVEN, P_O_ODD, P_PEND_C, P_PEND_V, P_SKY, PB, PBASE,
    PH_OCCUPY, PH_OVER, PH_REROLL, PH_ROOF, PS, R0, SUN, X0,
)
from engines.core.expert import PRIOR_FEATURE
from engines.core.kernel import kernel

# the features, in the model's order (the names of engines/cityline/expert.toml's weights)
FEATURES = (
    "bias",           # 1
    "sure",           # points of the finished buildings (same-type rule applied, left to right)
    "open_first",     # expected points of the open buildings, each populated with the next turn's dice
    "open_last",      # ... each with the dice of the last turn it could wait for
    "open_x",         # expected X penalty of populating the open buildings (next turn's dice)
    "open_floor",     # points the open buildings score as they stand (if never populated)
    "unroofed",       # expected points of the unroofed columns at their expected height, an average roof
    "unroofed_h",     # floors on the unroofed columns
    "n_unroofed",     # unroofed columns
    "n_open",         # open buildings
    "x_penalty",      # the X penalty as it stands
    "sky",            # expected sky bonus
    "clash",          # pairs of unfinished buildings of one roof type at one height (same-type rule)
    "short",          # open buildings beyond the occupancy turns left
    "progress",       # share of the game played (0 .. 1)
    "open_late",      # open_first x progress
    "unroofed_late",  # unroofed x progress
    # 1 for the heuristic's own pick (the expert's prior: engines.core.expert's prior_nb,
    # search.heuristic_pick_nb), 0 for every other candidate; features_nb writes 0
    PRIOR_FEATURE,
)
N_FEATURES = len(FEATURES)
F_HEURISTIC_PICK = FEATURES.index(PRIOR_FEATURE)
ASSUMED_OCC_DICE = 4   # dice a building is populated with when the occupancy phase is still ahead


@kernel
def sky_value_nb(cfg, sky, odd, even, k):
    """Expected sky bonus with `k` more set-aside dice of random parity (p = 1/2 each).
    sky < 0: still in construction, odd/even are construction counts: the sky itself is at stake,
    with a 70 % chance (sun, moon) or 50 % (cloud) that the occupancy majority then pays."""
    total = 0.0
    pj = 0.5 ** k
    coef = 1.0
    for j in range(k + 1):
        o = odd + j
        e = even + k - j
        if sky < 0:  # the time phase's rule on the imagined construction dice
            s = sky_of_nb(cfg, o, e)
            if s == SUN:
                b = 0.7 * cfg[K_SUN_BONUS]
            elif s == MOON:
                b = 0.7 * cfg[K_MOON_BONUS]
            else:
                b = 0.5 * cfg[K_CLOUD_BONUS]
        else:  # final scoring's rule on the imagined occupancy dice
            b = 1.0 * sky_bonus_nb(cfg, sky, o, e)
        total += coef * pj * b
        coef = coef * (k - j) / (j + 1)
    return total


@kernel
def _clamp_dice(n):
    return 1 if n < 1 else (MAX_DICE if n > MAX_DICE else n)


@kernel
def features_nb(d, cfg, fill, p, out):
    """Seat p's features (FEATURES) into out[:N_FEATURES], p's pending choice taken as made."""
    b = PBASE + p * PB
    phase = d[M_PHASE]
    turn = d[M_TURN]
    cols = cfg[K_COLUMNS]
    faces = cfg[K_FACES]
    dice = cfg[K_DICE]
    ct = cfg[K_CONSTRUCTION_TURNS]
    ot = cfg[K_OCCUPANCY_TURNS]
    pv = d[b + PS + P_PEND_V]
    pc = d[b + PS + P_PEND_C]
    roof_pending = phase == PH_ROOF and pv > 0
    occ_pending = phase == PH_OCCUPY and pv > 0
    building = phase == PH_REROLL or phase == PH_ROOF
    xr = cfg[K_X_PENALTY] / cfg[K_X_PER_PENALTY]
    # wall dice still to come, roofs still to choose, the next occupancy turn
    rem = 0
    roofs_left = 0
    t_next = 0
    if building:
        first = turn if phase == PH_REROLL else turn + 1
        for t in range(first, ct):
            rem += dice - t
        roofs_left = ct - turn - (1 if roof_pending else 0)
        progress = 0.5 * (turn + (1 if roof_pending else 0)) / ct
    elif phase == PH_OCCUPY:
        t_next = turn + (1 if occ_pending else 0)
        progress = 0.5 + 0.5 * t_next / ot
    else:
        t_next = ot
        progress = 1.0
    early = np.int64(rem / faces + 0.5)
    n_first = _clamp_dice(ASSUMED_OCC_DICE if building else dice - t_next)
    occ_left = ot - t_next
    # the sheet after p's own choice: sure points (same-type rule left to right), open and unroofed columns
    seen = np.int64(0)
    sure = 0.0
    xcount = 0
    n_open = 0
    n_unroofed = 0
    unroofed = 0.0
    unroofed_h = 0.0
    open_first = 0.0
    open_x = 0.0
    open_floor = 0.0
    clash = 0.0
    for c in range(cols):
        r = d[b + R0 + c]
        h = d[b + H0 + c]
        o = d[b + O0 + c]
        filled = d[b + F0 + c]
        xcount += d[b + X0 + c]
        if roof_pending and c == pc:
            r = pv
        if occ_pending and c == pc:
            placed, xs, _ = fill_outcome_nb(d, cfg, b, c)
            o += placed
            xcount += xs
            filled = 1
        if r == 0:
            n_unroofed += 1
            unroofed_h += h
            hh = h + early
            if hh > cfg[K_MAX_FLOORS]:
                hh = cfg[K_MAX_FLOORS]
            acc = 0.0
            for rr in range(1, faces + 1):
                acc += fill[0, rr, 0, hh, ASSUMED_OCC_DICE] - xr * fill[1, rr, 0, hh, ASSUMED_OCC_DICE]
            unroofed += acc / faces
            continue
        if filled == 1 or o >= h:
            if h == 0 and cfg[K_EMPTY_SCORES] == 0:
                continue
            if cfg[K_SAME_TYPE_ONCE] == 1:
                bit = np.int64(1) << (r * 9 + o)
                if seen & bit:
                    continue
                seen |= bit
            sure += cfg[K_TABLE + r * TABLE_STRIDE + o]
            continue
        n_open += 1
        oe = o + early
        if oe > h:
            oe = h
        open_first += fill[0, r, oe, h, n_first]
        open_x += xr * fill[1, r, oe, h, n_first]
        open_floor += cfg[K_TABLE + r * TABLE_STRIDE + o]
        for c2 in range(c + 1, cols):
            if d[b + R0 + c2] == r and d[b + H0 + c2] == h and d[b + F0 + c2] == 0:
                clash += 1.0
    # the last turn an open building could wait for
    n_last = _clamp_dice(n_first - (n_open - 1 if n_open > 0 else 0))
    open_last = 0.0
    if n_open > 0:
        for c in range(cols):
            r = d[b + R0 + c]
            if roof_pending and c == pc:
                r = pv
            h = d[b + H0 + c]
            o = d[b + O0 + c]
            if r == 0 or d[b + F0 + c] == 1 or o >= h or (occ_pending and c == pc):
                continue
            oe = o + early
            if oe > h:
                oe = h
            open_last += fill[0, r, oe, h, n_last]
    if building:
        odd = d[b + PS + P_C_ODD] + (pv & 1 if roof_pending else 0)
        even = d[b + PS + P_C_EVEN] + (1 - (pv & 1) if roof_pending else 0)
        sky = sky_value_nb(cfg, np.int64(-1), odd, even, roofs_left)
    else:
        odd = d[b + PS + P_O_ODD] + (pv & 1 if occ_pending else 0)
        even = d[b + PS + P_O_EVEN] + (1 - (pv & 1) if occ_pending else 0)
        k = n_open if n_open < occ_left else occ_left
        sky = sky_value_nb(cfg, d[b + PS + P_SKY], odd, even, np.int64(k if phase != PH_OVER else 0))
    out[0] = 1.0
    out[1] = sure
    out[2] = open_first
    out[3] = open_last
    out[4] = open_x
    out[5] = open_floor
    out[6] = unroofed
    out[7] = unroofed_h
    out[8] = n_unroofed
    out[9] = n_open
    out[10] = (xcount // cfg[K_X_PER_PENALTY]) * cfg[K_X_PENALTY]
    out[11] = sky
    out[12] = clash
    out[13] = float(max(0, n_open - occ_left)) if not building else 0.0
    out[14] = progress
    out[15] = open_first * progress
    out[16] = unroofed * progress
    out[F_HEURISTIC_PICK] = 0.0
