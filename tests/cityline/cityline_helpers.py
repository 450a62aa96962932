"""Hand-built Cityline positions for the rule tests."""
from __future__ import annotations

import numpy as np

from engines.cityline import new_game
from engines.cityline.state import (
    DC, DR, DV, M_NDICE, M_PHASE, M_PLAYER, M_TURN, P_ACTIVE, P_O_EVEN, P_O_ODD, P_SKY, S_FILLED, S_H, S_OCC,
    S_ROOF, S_X, views,
)


def sheet_game(columns, sky=-1, odd=0, even=0, n_players=1, variant=None, overrides=None):
    """A game whose seat-0 sheet is set column by column: columns = [(height, roof, occ, xs, filled)]."""
    g = new_game(variant, n_players=n_players, seed=1, overrides=overrides)
    v = views(g.state, 0)
    v.sheet[:] = 0
    for c, (h, r, o, x, f) in enumerate(columns):
        v.sheet[S_H, c], v.sheet[S_ROOF, c], v.sheet[S_OCC, c], v.sheet[S_X, c], v.sheet[S_FILLED, c] = h, r, o, x, f
    v.stat[P_SKY], v.stat[P_O_ODD], v.stat[P_O_EVEN] = sky, odd, even
    return g


def set_dice(g, dice, reserve=None, phase=None, turn=None):
    d = g.state.data
    n = len(dice)
    d[M_NDICE] = n
    d[DV:DV + 8] = 0
    d[DV:DV + n] = dice
    d[DC:DC + 8] = 0
    for x in dice:
        d[DC + x] += 1
    if reserve is not None:
        d[DR:DR + n] = reserve
    if phase is not None:
        d[M_PHASE] = phase
    if turn is not None:
        d[M_TURN] = turn
    d[M_PLAYER] = 0


def occupancy_position(columns, dice, turn=0):
    """Seat 0 in an occupancy turn with the given sheet and dice."""
    from engines.cityline.state import PH_OCCUPY
    g = sheet_game(columns, sky=0)
    set_dice(g, dice, phase=PH_OCCUPY, turn=turn)
    views(g.state, 0).stat[P_ACTIVE] = 1
    return g


def score_parts(g, p=0):
    from engines.cityline.rules import score_nb
    tp = np.zeros(7, np.int64)
    cp = np.zeros(6, np.int64)
    s, xc, xpen, bonus, zeroed = score_nb(g.state.data, g.kp.cfg, p, tp, cp)
    return dict(score=int(s), x=int(xc), xpen=int(xpen), bonus=int(bonus), zeroed=int(zeroed), types=tp.tolist(),
                cols=cp.tolist())
