"""Cityline metrics: is every roof type worth picking?

Keys are roof types as "<die value> <name>" with the names of the run's own
variant (default: 1 Odds, 2 Evens, 3 Low, 4 High, 5 Pairs, 6 Any), read
from the players table's points_type<r> and buildings_type<r> columns.
A game's value is the mean over its seats that built that roof type, so a
seat that never built a Pairs building does not count as scoring 0 with it.
"""
from __future__ import annotations

import polars as pl

from experiments.metrics import Metric, RunData, _select

N_TYPES = 6


def _names(run: RunData) -> dict[int, str]:
    roofs = run.run.manifest.get("variant", {}).get("values", {}).get("roof", {})
    return {r: f"{r} {roofs.get(str(r), {}).get('name', f'type {r}')}" for r in range(1, N_TYPES + 1)}


def _long(run: RunData) -> pl.DataFrame:
    """One row per game, seat and roof type: buildings, points, and the seat's totals."""
    p = run.table("players")
    names = _names(run)
    frames = []
    for r in range(1, N_TYPES + 1):
        frames.append(p.select(
            "game", "seat",
            pl.lit(names[r]).alias("roof"),
            pl.col(f"buildings_type{r}").cast(pl.Float64).alias("buildings"),
            pl.col(f"points_type{r}").cast(pl.Float64).alias("points"),
            pl.sum_horizontal([pl.col(f"buildings_type{k}") for k in range(1, N_TYPES + 1)]).cast(pl.Float64)
            .alias("all_buildings"),
            pl.col("building_points").cast(pl.Float64).alias("all_points"),
        ))
    return pl.concat(frames)


def roof_points(run: RunData) -> pl.DataFrame:
    long = _long(run).filter(pl.col("buildings") > 0)
    per_game = (long.group_by(["game", "roof"])
                .agg((pl.col("points") / pl.col("buildings")).mean().alias("v")).sort(["game", "roof"]))
    return _select(per_game, pl.col("roof"), pl.col("v"))


def roof_share(run: RunData) -> pl.DataFrame:
    long = _long(run).filter(pl.col("all_buildings") > 0)
    per_game = (long.group_by(["game", "roof"])
                .agg((pl.col("buildings") / pl.col("all_buildings")).mean().alias("v")).sort(["game", "roof"]))
    return _select(per_game, pl.col("roof"), pl.col("v"))


def roof_points_share(run: RunData) -> pl.DataFrame:
    long = _long(run).filter(pl.col("all_points") > 0)
    per_game = (long.group_by(["game", "roof"])
                .agg((pl.col("points") / pl.col("all_points")).mean().alias("v")).sort(["game", "roof"]))
    return _select(per_game, pl.col("roof"), pl.col("v"))


def x_penalty(run: RunData) -> pl.DataFrame:
    per_game = run.table("players").group_by("game").agg(pl.col("x_penalty").cast(pl.Float64).mean().alias("v"))
    return _select(per_game.sort("game"), "all", pl.col("v"))


def sky_hit_rate(run: RunData) -> pl.DataFrame:
    per_game = run.table("players").group_by("game").agg(pl.col("sky_hit").cast(pl.Float64).mean().alias("v"))
    return _select(per_game.sort("game"), "all", pl.col("v"))


METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("roof_points", "mean points per building of each roof type (buildings with room; per game, the mean "
           "over the seats that built one)", "mean", roof_points, dominance=True),
    Metric("roof_share", "share of a player's buildings that have each roof type", "mean", roof_share),
    Metric("roof_points_share", "share of a player's building points that come from each roof type", "mean",
           roof_points_share),
    Metric("x_penalty", "points lost to X's per player", "mean", x_penalty),
    Metric("sky_hit_rate", "share of players whose sky bonus or penalty applied", "mean", sky_hit_rate),
)}
