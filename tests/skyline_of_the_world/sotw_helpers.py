"""Hand-built Skyline of the World positions.

A building is written bottom to top as a string of pieces: `a`..`d` a regular floor of seat
0..3, `A`..`D` their Skyline floors, `n` a neutral floor, `P` + seat letter a penthouse
(`Pa`). Regular floors take their level's value (1, 2, 4, 6), so "ab" is a's 1M floor under
b's 2M floor.
"""
from __future__ import annotations

import numpy as np

from engines.skyline_of_the_world import new_game
from engines.skyline_of_the_world.params import LEVELS, N_STOCK
from engines.skyline_of_the_world.rules import income_nb, recompute_tops_nb, start_turn_nb, tie_key_nb
from engines.skyline_of_the_world.state import (
    BH, BS, M_PHASE, M_PLAYER, M_SKY_BUILT, NEUTRAL, P_CASH, P_HAND, P_SKY_STOCK, P_STOCK, PB, PBASE, PH_BUILD,
)


def tie_keys(g) -> list[int]:
    """The tie chain per seat (rules.tie_key_nb: higher wins a tie on prestige)."""
    return [int(tie_key_nb(g.state.data, g.kp.cfg, p)) for p in range(g.n_players)]


def codes(text: str) -> list[int]:
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "P":
            out.append(5 + "abcd".index(text[i + 1]))
            i += 2
            continue
        if ch == "n":
            out.append(NEUTRAL)
        elif ch.islower():
            out.append(1 + "abcd".index(ch))
        else:
            out.append(9 + "ABCD".index(ch))
        i += 1
    assert len(out) <= LEVELS
    return out


def position(buildings: dict[tuple[int, int], str], n_players: int = 2, variant=None, overrides=None,
             to_move: int = 0, cash: int | None = None, stock=None):
    """A fresh game whose board is `buildings` ({(row, col): pieces}), seat `to_move` to build."""
    g = new_game(variant, n_players=n_players, seed=0, overrides=overrides)
    d = g.state.data
    w = int(g.kp.width)
    d[BH:BH + 49] = 0
    d[BS:BS + 49 * LEVELS] = 0
    for (r, c), text in buildings.items():
        cell = r * w + c
        cs = codes(text)
        d[BH + cell] = len(cs)
        d[BS + cell * LEVELS:BS + cell * LEVELS + len(cs)] = cs
    recompute_tops_nb(d, g.kp.cfg)
    for p in range(n_players):
        b = PBASE + p * PB
        if cash is not None:
            d[b + P_CASH] = cash
        if stock is not None:
            d[b + P_STOCK:b + P_STOCK + N_STOCK] = stock
        d[b + P_HAND] = 0
    d[M_PLAYER] = to_move
    d[M_PHASE] = PH_BUILD
    d[M_SKY_BUILT] = 0
    return g


def cell(g, r, c) -> int:
    return r * int(g.kp.width) + c


def income(g, p) -> int:
    return int(income_nb(g.state.data, g.kp.cfg, p)[0])


def player(g, p) -> int:
    return PBASE + p * PB
