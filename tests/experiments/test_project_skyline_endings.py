"""The Project Skyline endings table's figures, on a hand-made run (no games played)."""
from __future__ import annotations

import polars as pl
import pytest

from experiments import project_skyline_endings as endings


class _Run:
    def __init__(self, **frames):
        self.frames = frames

    def load(self, name):
        return self.frames[name]


def _run(endings_codes):
    n = len(endings_codes)
    games = pl.DataFrame({"game": range(n), "ending": endings_codes, "rounds": [10] * n,
                          "floor_round": [0] * n})
    players = pl.DataFrame({"game": [g for g in range(n) for _ in (0, 1)],
                            "rank": [1, 2] * n, "money": [55, 40] * n, "score": [60, 45] * n,
                            "floors_built": [20, 18] * n, "areas_present": [7, 6] * n})
    return _Run(games=games, players=players)


def test_the_last_floor_share_carries_its_wilson_interval():
    # 1 last-floor end in 20 games: Wilson 95% [0.89%, 23.6%] (the calibration bound, 10%, inside)
    r = endings.summarize(_run([2] + [1] * 19), [])
    assert r["floor_end"] == pytest.approx(0.05)
    lo, hi = r["floor_end_ci"]
    assert lo == pytest.approx(0.00889, abs=1e-4)
    assert hi == pytest.approx(0.2361, abs=1e-4)
    assert r["money_end"] == pytest.approx(0.95)
    assert r["winner_money"] == 55


def test_no_last_floor_end_still_bounds_the_share_above_zero():
    lo, hi = endings.summarize(_run([1] * 100), [])["floor_end_ci"]
    assert lo == pytest.approx(0.0, abs=1e-9)
    assert hi == pytest.approx(0.0370, abs=1e-4)
