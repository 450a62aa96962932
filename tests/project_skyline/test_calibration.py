"""The shipped maps keep the rulebook's endings (issue 23's calibration, guarded).

Our maps and cards are our own design; they were calibrated so that Project Skyline plays as its
rulebook describes it: the 50-money end is the usual one and the last-floor end "the rare case"
(at most 10% of games), each map has about 16 areas, and on Tokyo no end-bonus tier is the best
tier of most players. The figures and the runs that chose each number are in the map files'
comments (engines/project_skyline/maps/*.toml); this test replays the heuristic cells of that
table with the same seed, so a change to a map or a card that undoes the calibration fails here
(the search-rung cells cost minutes each and stay in the files' comments).

Seeded, so it is a regression guard, not a statistical verdict: the same data gives the same
games, and the thresholds are the issue's.
"""
from __future__ import annotations

import pytest

from experiments.project_skyline_endings import end_tiers, summarize
from experiments.runner import run_batch

pytestmark = pytest.mark.slow

GAMES = 400      # per map and player count, as in the map files' heuristic lines
SEED = 23


@pytest.mark.parametrize("map_name", ["nyc", "tokyo"])
def test_each_map_has_about_sixteen_areas(map_name):
    from engines.project_skyline.params import load_map

    assert 14 <= len(load_map(map_name).area_names) <= 18


@pytest.mark.parametrize("map_name", ["nyc", "tokyo"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_heuristic_play_ends_as_the_rulebook_says(tmp_path, map_name, players):
    run = run_batch("project_skyline", overrides={"map": map_name}, players=players, policies=["heuristic"],
                    n_games=GAMES, seed=SEED, workers=1, progress=False, out=tmp_path / "run")
    row = summarize(run, end_tiers(map_name))
    assert row["games"] == GAMES
    assert row["money_end"] >= 0.90, f"{map_name} {players}p: the money end came in {row['money_end']:.1%}"
    assert row["floor_end"] <= 0.10, f"{map_name} {players}p: the last floor ended {row['floor_end']:.1%}"
    assert row["stalled"] == 0
    for need, _, share in row.get("tiers", []):
        assert share <= 0.5, f"{map_name} {players}p: {share:.0%} of players end on the {need}+ tier"
