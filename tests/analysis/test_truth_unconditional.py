"""Unconditional per-game comparisons on synthetic data of KNOWN truth (issue 8.6).

Truth: a rule change makes players build a Pairs roof twice as often (every seat
instead of half), each worth half as much (5 points instead of 10), so what Pairs
earns a player per game is unchanged: 5 points in both arms. The old metric
averaged over the seats that built one and joined the arms on games where both
did: a choice-dependent subset, and a "difference" of -5 points. Compared per game
over every seat (0 for a seat that built none), the arms do not differ.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from analysis import compare as C


def arm(rng, build_probability: float, points: float, games: int = 3000, players: int = 3) -> pl.DataFrame:
    built = rng.random((games, players)) < build_probability
    value = np.where(built, rng.poisson(points, (games, players)), 0)
    return pl.DataFrame({"game": np.repeat(np.arange(games), players), "seat": np.tile(np.arange(players), games),
                         "buildings_type5": built.ravel().astype(np.int64), "points_type5": value.ravel()})


def test_roof_points_compare_every_game_unconditionally():
    names = {5: "5 Pairs"}
    misses = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        a = C.roof_points_per_game(arm(rng, 0.5, 10.0), names)
        b = C.roof_points_per_game(arm(rng, 1.0, 5.0), names)
        table = C.compare_values(a, b, paired=True)
        row = table.row(0, named=True)
        assert row["n"] == 3000                       # every game, not the games where both built one
        misses += not (row["low"] <= 0.0 <= row["high"])  # truth: no difference
    assert misses <= 5                                 # 95% intervals: about 2 of 40 miss
