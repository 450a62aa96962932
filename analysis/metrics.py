"""Named metrics an experiment file may ask for, computed from a run's tables.

Every metric gives one value per game and key: a frame with columns `game`
(the game index, so two arms played on the same seeds pair up game by game),
`key` (a seat, a policy, a roof type, or "all") and `value`. Its estimate
is the mean of `value` over the games, per key:

    proportion  0/1 values (a win, a tie, a stall): Wilson interval
    mean        anything else: Student t interval

Seats are counted in turn order, which is what a designer means by "seat":
"1st" is the player who moves first, "2nd" the next clockwise, and so on.
Who moves first is declared by the game (GameSpec.turn_order; Skyline 3000:
the first builder, i.e. the round-1 Key Player, games.first_key; without a
declaration: seat 0, as in Cityline). In Skyline 3000 the Key is dealt at random, so physical seat
numbers carry no edge; turn order does.

Generic metrics work for every game (they read only the contract columns of
`players` and `games`); a game's own metrics are the `METRICS` dict of its
analysis module, analysis/<game_id>.py, found by the game id.
"""
from __future__ import annotations

import polars as pl

# RunData, Metric and the helpers below are analysis.frames' (the public API a game's metrics use too);
# re-exported here, where the generic metrics were written with the leading underscore
from analysis.frames import ALL, ORDINALS, SEAT_MARGIN, Metric, RunData  # noqa: F401 - re-exported
from analysis.frames import fair_share as _fair_share, select as _select, zero as _zero
from analysis.frames import (ESTIMATE_SCHEMA, INTERVALS, T, WILSON, estimate, stall_rate,  # noqa: F401 - re-exported
                             tie_rate)
from analysis.plugins import game_module
from analysis.quality import CHOICE_METRICS



def seat_win_rate(run: RunData) -> pl.DataFrame:
    return _select(run.players, pl.col("order"), pl.col("win"))


def seat_edge(run: RunData) -> pl.DataFrame:
    p = run.players
    return _select(p, pl.col("order"), pl.col("win") - pl.col("win").cast(pl.Float64).mean().over("game"))


def seat_score_edge(run: RunData) -> pl.DataFrame:
    p = run.players
    return _select(p, pl.col("order"), pl.col("score") - pl.col("score").cast(pl.Float64).mean().over("game"))


def policy_win_rate(run: RunData) -> pl.DataFrame:
    grouped = run.players.group_by(["game", "policy"]).agg(pl.col("win").cast(pl.Float64).mean().alias("v"))
    return _select(grouped.sort(["game", "policy"]), pl.col("policy"), pl.col("v"))


def score_mean(run: RunData) -> pl.DataFrame:
    grouped = run.players.group_by(["game", "policy"]).agg(pl.col("score").cast(pl.Float64).mean().alias("v"))
    return _select(grouped.sort(["game", "policy"]), pl.col("policy"), pl.col("v"))


def score_spread(run: RunData) -> pl.DataFrame:
    grouped = run.players.group_by("game").agg(pl.col("score").cast(pl.Float64).std(ddof=0).alias("v"))
    return _select(grouped.sort("game"), ALL, pl.col("v"))


def margin(run: RunData) -> pl.DataFrame:
    return _select(run.table("games"), ALL, pl.col("margin"))


def game_length(run: RunData) -> pl.DataFrame:
    return _select(run.table("games"), ALL, pl.col("decisions"))


GENERIC: dict[str, Metric] = {m.name: m for m in (
    Metric("seat_win_rate", "share of games won by each seat in turn order (a shared win counts for each sharer)",
           "proportion", seat_win_rate, reference=_fair_share, per_seat=True,
           margin=SEAT_MARGIN),
    Metric("seat_edge", "each seat's win rate minus the game's average seat win rate (0 = fair); "
           "per game: the seat's win minus the mean win of all seats", "mean", seat_edge, reference=_zero,
           per_seat=True, min_players=2, margin=SEAT_MARGIN),
    Metric("seat_score_edge", "each seat's score minus the mean score of its game, in points (0 = fair)",
           "mean", seat_score_edge, reference=_zero, per_seat=True, min_players=2),
    Metric("policy_win_rate", "share of seats each policy wins (per game: mean win of its seats)",
           "mean", policy_win_rate, reference=_fair_share, dominance=True),
    Metric("score_mean", "mean final score of each policy's seats", "mean", score_mean, dominance=True),
    Metric("score_spread", "standard deviation of the final scores within a game (points)", "mean", score_spread,
           min_players=2),
    Metric("margin", "winner's points minus the best other score (0 for a shared win)", "mean", margin,
           min_players=2),
    Metric("game_length", "decisions taken in a game", "mean", game_length),
    Metric("tie_rate", "share of games whose win is shared", "proportion", tie_rate, min_players=2),
    Metric("stall_rate", "share of games ended by the turn cap", "proportion", stall_rate),
    # real_choice, branching_factor (games that record them), kingmaking (3+ players): analysis/quality.py
    *CHOICE_METRICS.values(),
)}

def metrics_for(game_id: str) -> dict[str, Metric]:
    """The generic metrics plus the game's own (`METRICS` in analysis/<game_id>.py, if any)."""
    out = dict(GENERIC)
    module = game_module(game_id)
    out.update(getattr(module, "METRICS", {}) if module is not None else {})
    return out


def renamed_metric(game_id: str, name: str) -> str | None:
    """The new name of a metric the game renamed (`RENAMED_METRICS` in its analysis module), or None."""
    module = game_module(game_id)
    return (getattr(module, "RENAMED_METRICS", {}) if module is not None else {}).get(name)


def get_metric(game_id: str, name: str) -> Metric:
    known = metrics_for(game_id)
    if name not in known:
        new = renamed_metric(game_id, name)
        renamed = f"; renamed, use '{new}'" if new else ""
        raise KeyError(f"unknown metric '{name}' for {game_id}{renamed} (known: {', '.join(known)})")
    return known[name]


