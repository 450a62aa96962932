"""The run report on synthetic runs of KNOWN truth: turn order, shared wins, the game as the unit.

Each run folder is written straight from numpy (no engine) with only the
contract columns, so the truth is whatever the generator planted:

- issue 8.1: the first player in turn order (the round-1 Key Player, dealt to a
  random seat) wins 4% of games against a fair 24%; physical seats are balanced.
  The seat section must flag turn order (the old report tested physical seats).
- issue 8.3: every game a shared win by all seats (Cityline, four identical
  heuristic players on shared dice): no seat test is possible and no verdict may
  be printed (the old report printed "not balanced" from a NaN chi-square);
  and position 0 sharing half its wins: per-game edges find it.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import polars as pl

import pytest

from analysis.report import build_report
from analysis.run import Run
from engines import registry
from engines.core.spec import GameSpec, TurnOrder
from report_tables import markdown_tables, number


def _toy_spec(game_id: str, turn_order: TurnOrder | None) -> GameSpec:
    """A contract with no engine behind it: the report reads only what a game declares."""
    return GameSpec(game_id=game_id, title="Truth", engine_version="0", min_players=2, max_players=6,
                    default_players=4, variants=None, policies={}, tables={}, kernel_params=None,
                    simulate=None, new_game=None, turn_order=turn_order)


@pytest.fixture(autouse=True)
def toy_games(monkeypatch):
    """toy_truth: seat 0 moves first (no declaration); toy_keyed: the seat in games.first_key
    moves first, declared as Skyline 3000 declares its round-1 Key Player."""
    import sys
    import types

    for game_id, order in (("toy_truth", None), ("toy_keyed", TurnOrder("games.first_key", "dealt at random"))):
        module = types.ModuleType(f"_toy_{game_id}")
        module.SPEC = _toy_spec(game_id, order)
        monkeypatch.setitem(sys.modules, module.__name__, module)
        registry.register(game_id, module.__name__)
    yield
    registry.unregister("toy_truth")
    registry.unregister("toy_keyed")


def write_run(path: Path, win: np.ndarray, *, first: np.ndarray | None = None, lineup=None,
              game_id: str = "toy_truth") -> Path:
    """A run folder from a games x seats 0/1 win matrix; `first` = the seat that moves first
    (written as players.key_player, as Skyline 3000 does), None = seat 0 starts."""
    n_games, players = win.shape
    lineup = lineup or ["random"] * players
    game = np.repeat(np.arange(n_games), players)
    seat = np.tile(np.arange(players), n_games)
    score = (win * 10 + 20).ravel()
    n_winners = win.sum(axis=1)
    frame = {"game": game.astype(np.int64), "seat": seat.astype(np.int8), "lineup_slot": seat.astype(np.int8),
             "score": score.astype(np.int32), "rank": np.where(win.ravel() == 1, 1, 2).astype(np.int8),
             "win": win.ravel().astype(np.int8),
             "shared_win": (win & (n_winners[:, None] > 1)).ravel().astype(np.int8),
             "policy": np.asarray(lineup)[seat]}
    if first is not None:
        frame["key_player"] = (seat == np.repeat(first, players)).astype(np.int8)
    games = pl.DataFrame({"game": np.arange(n_games, dtype=np.int64),
                          "winner": np.where(n_winners == 1, win.argmax(axis=1), -1).astype(np.int8),
                          "n_winners": n_winners.astype(np.int8),
                          "margin": np.where(n_winners == 1, 10, 0).astype(np.int32),
                          "decisions": np.full(n_games, 30, np.int32), "stalled": np.zeros(n_games, np.int8)})
    if first is not None:
        games = games.with_columns(pl.Series("first_key", first.astype(np.int8)))
    path.mkdir(parents=True)
    (path / "_done").mkdir()
    for name, table in (("players", pl.DataFrame(frame)), ("games", games)):
        (path / name).mkdir()
        table.write_parquet(path / name / "part-000000.parquet")
    (path / "_done" / "000000").touch()
    (path / "manifest.json").write_text(json.dumps({
        "run": path.name, "game": game_id, "title": "Truth", "players": players, "lineup": lineup,
        "rotate": True, "n_games": n_games, "games_done": n_games, "seed": 0, "status": "complete"}))
    return path


def seat_section(markdown: str) -> str:
    return re.search(r"## Win rate by seat\n(.*?)\n## ", markdown, re.S).group(1)


def test_turn_order_edge_is_flagged_when_the_first_player_is_dealt_at_random(tmp_path):
    # Truth: the first player wins 4%, each other position 32%; the first seat is uniform
    # over physical seats, so every physical seat wins exactly (4 + 3 x 32) / 4 = 25% on average.
    rng = np.random.default_rng(1)
    n, players = 3000, 4
    first = rng.integers(0, players, n)
    position_of_winner = np.where(rng.random(n) < 0.04, 0, rng.integers(1, players, n))
    win = np.zeros((n, players), dtype=np.int64)
    win[np.arange(n), (first + position_of_winner) % players] = 1
    run = write_run(tmp_path / "keyed", win, first=first, game_id="toy_keyed")
    markdown = build_report(run).read_text()
    section = seat_section(markdown)
    assert "**not** balanced" in section
    rows = markdown_tables(markdown)["Win rate by turn-order position, 95% intervals over games"]
    first_row = next(r for r in rows if r["position"] == "1st")   # positions count from 1st
    assert number(first_row["95% high"]) < 0.06  # the 4% truth, far below the fair 25%
    # Position 0 is the seat the contract's declared column names.
    from analysis.report import turn_order_position

    positions = turn_order_position(Run.open(run)).collect().join(
        pl.DataFrame({"game": np.arange(n), "first": first}), on="game")
    assert (positions.filter(pl.col("position") == 0)["seat"] == positions.filter(pl.col("position") == 0)["first"]).all()


def test_all_shared_wins_give_no_seat_verdict(tmp_path):
    # Cityline with four identical heuristic players on shared dice: every game all four win.
    win = np.ones((2000, 4), dtype=np.int64)
    markdown = build_report(write_run(tmp_path / "shared", win)).read_text()
    section = seat_section(markdown)
    assert "no test is possible" in section
    assert "balanced" not in section and "nan" not in section.lower().replace("n/a", "")


def test_a_seat_that_only_ever_shares_its_wins_is_found(tmp_path):
    # Truth: position 0 shares the win with one other seat in half the games and never wins
    # alone; the other half a single winner among positions 1-3. Position 0 wins 50%, the others
    # 1/3 each: position 0 is FAVOURED. Dropping shared wins would see it win nothing.
    rng = np.random.default_rng(2)
    n = 2000
    win = np.zeros((n, 4), dtype=np.int64)
    shared = rng.random(n) < 0.5
    other = rng.integers(1, 4, n)
    win[np.arange(n), other] = 1
    win[shared, 0] = 1
    markdown = build_report(write_run(tmp_path / "half_shared", win)).read_text()
    edges = markdown_tables(markdown)["Per-game seat edges by position (win minus the game's mean win)"]
    edge0 = next(r for r in edges if r["position"] == "1st")
    assert number(edge0["simultaneous 95% low"]) > 0
    assert "1st position (+" in seat_section(markdown)
