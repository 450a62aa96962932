"""Metrics computed from run tables by hand-checkable examples."""
import json

import polars as pl
import pytest

from analysis import cityline as CM
from analysis import metrics as M
from analysis import skyline_3000 as SK


def _run(tmp_path, players: pl.DataFrame, games: pl.DataFrame, n_players: int, values=None, game="x"):
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, frame in (("players", players), ("games", games)):
        (tmp_path / name).mkdir()
        frame.write_parquet(tmp_path / name / "part-000000.parquet")
    (tmp_path / "_done").mkdir()
    (tmp_path / "_done" / "000000").write_text("{}")
    (tmp_path / "manifest.json").write_text(json.dumps(
        {"game": game, "players": n_players, "lineup": ["a"] * n_players, "variant": {"values": values or {}}}))
    return M.RunData(tmp_path, n_games=10)


def test_seat_metrics_follow_turn_order_from_the_key(tmp_path):
    # The run is of `coin`, whose GameSpec declares turn_order = games.first_key (the Key moves first).
    # game 0: the Key is seat 2 and wins; game 1: the Key is seat 0, seats 0 and 1 share the win
    players = pl.DataFrame({
        "game": [0, 0, 0, 1, 1, 1], "seat": [0, 1, 2, 0, 1, 2], "lineup_slot": [0, 1, 2, 0, 1, 2],
        "key_player": [0, 0, 1, 1, 0, 0], "score": [10, 12, 20, 15, 15, 9], "win": [0, 0, 1, 1, 1, 0],
        "policy": ["p", "p", "q", "p", "p", "q"]})
    games = pl.DataFrame({"game": [0, 1], "first_key": [2, 0], "n_winners": [1, 2], "margin": [8, 0],
                          "decisions": [30, 40], "stalled": [0, 1]})
    run = _run(tmp_path, players, games, 3, game="coin")
    win = M.seat_win_rate(run).sort(["game", "key"])
    assert win.filter(pl.col("key") == "1st")["value"].to_list() == [1.0, 1.0]   # the Key won both
    assert win.filter(pl.col("key") == "2nd")["value"].to_list() == [0.0, 1.0]   # seat 0 after Key 2, seat 1 after Key 0
    assert win.filter(pl.col("key") == "3rd")["value"].to_list() == [0.0, 0.0]
    edge = M.seat_edge(run).filter((pl.col("game") == 1) & (pl.col("key") == "1st"))["value"].item()
    assert edge == pytest.approx(1 - 2 / 3)
    assert SK.first_builder_win_rate(run)["value"].to_list() == [1.0, 1.0]
    spread = M.score_spread(run)["value"].to_list()
    assert spread == pytest.approx([pl.Series([10, 12, 20]).std(ddof=0), pl.Series([15, 15, 9]).std(ddof=0)])
    assert M.tie_rate(run)["value"].to_list() == [0.0, 1.0] and M.stall_rate(run)["value"].to_list() == [0.0, 1.0]
    assert M._fair_share(run) == pytest.approx(1.5 / 3)
    pw = M.policy_win_rate(run).sort(["game", "key"])
    assert pw["value"].to_list() == [0.0, 1.0, 1.0, 0.0]  # p: 0/2 then 2/2; q: 1 then 0
    sse = M.seat_score_edge(run).filter(pl.col("game") == 0).sort("key")["value"].to_list()
    assert sse == pytest.approx([20 - 14, 10 - 14, 12 - 14])  # 1st = seat 2, 2nd = seat 0, 3rd = seat 1


def test_cityline_roof_points_are_unconditional(tmp_path):
    row = {"game": [0, 0], "seat": [0, 1], "lineup_slot": [0, 1], "score": [30, 20], "win": [1, 0],
           "building_points": [30, 20], "x_penalty": [2, 4], "sky_hit": [1, 0]}
    for r in range(1, 7):
        row[f"points_type{r}"] = [0, 0]
        row[f"buildings_type{r}"] = [0, 0]
    row["points_type5"], row["buildings_type5"] = [24, 0], [2, 0]   # seat 0: two Pairs buildings, 24 points
    row["points_type6"], row["buildings_type6"] = [6, 20], [1, 4]   # Any: 6 per building, then 5
    players = pl.DataFrame(row)
    games = pl.DataFrame({"game": [0], "n_winners": [1], "margin": [10], "decisions": [12], "stalled": [0]})
    roofs = {str(r): {"name": n} for r, n in enumerate(["Odds", "Evens", "Low", "High", "Pairs", "Any"], start=1)}
    run = _run(tmp_path, players, games, 2, {"roof": roofs})
    points = {r["key"]: r["value"] for r in CM.roof_points(run).iter_rows(named=True)}
    # every seat counts, 0 for a roof type it never built (seat 1 has no Pairs): the arms of a
    # comparison are then paired on the same games, not on games where both built that roof
    assert points == {"1 Odds": 0.0, "2 Evens": 0.0, "3 Low": 0.0, "4 High": 0.0, "5 Pairs": 12.0, "6 Any": 13.0}
    share = {r["key"]: r["value"] for r in CM.roof_share(run).iter_rows(named=True)}
    assert share["5 Pairs"] == pytest.approx((2 / 3 + 0) / 2) and share["6 Any"] == pytest.approx((1 / 3 + 1) / 2)
    assert CM.x_penalty(run)["value"].item() == 3.0


def test_without_a_declared_turn_order_seat_0_is_first(tmp_path):
    # The same tables as a game "x" that is not registered (so declares nothing): seats count
    # from seat 0 even though a first_key column is there (declared, not sniffed).
    players = pl.DataFrame({"game": [0, 0, 0], "seat": [0, 1, 2], "lineup_slot": [0, 1, 2], "score": [10, 12, 20],
                            "win": [0, 0, 1], "policy": ["p", "p", "q"]})
    games = pl.DataFrame({"game": [0], "first_key": [2], "n_winners": [1], "margin": [8], "decisions": [30],
                          "stalled": [0]})
    run = _run(tmp_path, players, games, 3)
    win = {r["key"]: r["value"] for r in M.seat_win_rate(run).iter_rows(named=True)}
    assert win == {"1st": 0.0, "2nd": 0.0, "3rd": 1.0}


def test_a_games_own_metrics_come_from_its_analysis_module():
    # found by the game id (analysis.<game_id>), not by a table in generic code
    assert set(SK.METRICS) <= set(M.metrics_for("skyline_3000"))
    assert set(CM.METRICS) <= set(M.metrics_for("cityline"))
    assert "first_builder_win_rate" not in M.metrics_for("cityline")
    assert set(M.metrics_for("no_such_game")) == set(M.GENERIC)



def test_every_game_with_a_running_score_gets_the_quality_metrics():
    # the games whose engines write a rounds table declare ROUND_SCORES; their experiments read the race
    quality = {"lead_changes", "decided_round", "decided_last_round", "leader_wins", "comeback", "winner_deficit"}
    for game in ("skyline_3000", "skyline_of_the_world", "project_skyline"):
        assert quality <= set(M.metrics_for(game)), game
    assert not quality & set(M.metrics_for("cityline"))


def test_turn_order_declared_as_a_players_flag(tmp_path, monkeypatch):
    # TurnOrder("players.key_player"): the seat whose flag is 1 moves first; same positions as games.first_key
    import dataclasses

    import coingame
    from engines.core.spec import TurnOrder

    players = pl.DataFrame({
        "game": [0, 0, 0, 1, 1, 1], "seat": [0, 1, 2, 0, 1, 2], "lineup_slot": [0, 1, 2, 0, 1, 2],
        "key_player": [0, 0, 1, 0, 1, 0], "score": [10, 12, 20, 15, 15, 9], "win": [0, 0, 1, 1, 1, 0],
        "policy": ["p", "p", "q", "p", "p", "q"]})
    games = pl.DataFrame({"game": [0, 1], "first_key": [2, 1], "n_winners": [1, 2], "margin": [8, 0],
                          "decisions": [30, 40], "stalled": [0, 1]})
    by_column = M.seat_win_rate(_run(tmp_path / "a", players, games, 3, game="coin")).sort(["game", "key"])
    monkeypatch.setattr(coingame, "SPEC", dataclasses.replace(coingame.SPEC,
                                                              turn_order=TurnOrder("players.key_player")))
    by_flag = M.seat_win_rate(_run(tmp_path / "b", players, games, 3, game="coin")).sort(["game", "key"])
    assert by_flag.equals(by_column)
    assert by_flag.filter(pl.col("key") == "1st")["value"].to_list() == [1.0, 1.0]  # seat 2, then seat 1


def test_choice_metrics_from_the_games_table_and_not_measured_without_it(tmp_path):
    from analysis import quality as Q
    games = pl.DataFrame({"game": [0, 1, 2], "n_winners": [1, 1, 1], "margin": [1, 2, 3], "decisions": [10, 4, 0],
                          "stalled": [0, 0, 0], "n_choices": [5, 4, 0], "sum_legal": [30, 8, 0]})
    players = pl.DataFrame({"game": [0, 0, 1, 1, 2, 2], "seat": [0, 1] * 3, "lineup_slot": [0, 1] * 3,
                            "score": [1, 2, 3, 4, 5, 6], "win": [0, 1, 0, 1, 0, 1]})
    run = _run(tmp_path / "new", players, games, 2, game="cityline")
    known = M.metrics_for("cityline")
    assert [tuple(r) for r in known["real_choice"].compute(run).iter_rows()] == [(0, "all", 0.5), (1, "all", 1.0)]
    assert [tuple(r) for r in known["branching_factor"].compute(run).iter_rows()] == [(0, "all", 3.0),
                                                                                        (1, "all", 2.0)]
    assert known["kingmaking"].compute(run).height == 0          # 2 players: not a kingmaking game
    assert Q.choice_figures(run)["sentences"][0].startswith("On average 75.0% of a game's decisions")
    run = _run(tmp_path / "old", players, games.drop("n_choices", "sum_legal"), 2, game="cityline")
    assert known["real_choice"].compute(run).height == 0 and known["branching_factor"].compute(run).height == 0
    assert Q.choice_figures(run)["sentences"][0].startswith("Choice: not measured")
