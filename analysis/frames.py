"""What a game's analysis module (analysis/<game_id>.py) builds on: its public API.

A game's module writes report sections and experiment metrics from these pieces
and from `analysis.stats`, `analysis.plots`, `analysis.run`, never from
`analysis.report` or `analysis.metrics`: those two load the game's module
(analysis/plugins.py), so a game importing them would import its own loader
(tests/test_layers.py fails on that, and on any private name imported across
modules).

    RunData, Metric                      a metric's input and its declaration
    frame, select                        a metric's values: columns game, key, value
    fair_share, zero                     reference values of a metric (the average seat's win rate; 0)
    SEAT_MARGIN, ORDINALS, ALL           seat margin, positions as players count them, the key "all"
    ordinal, ordinal_column,             0 -> "1st"; a 0-based position column as "1st", "2nd", ...
    position_column                      a table's 0-based seat column as positions, first
    pct, interval_text                   numbers as a designer reads them
    with_policy_strings, scan_players,   the players table as the report reads it
    players_with_winners
    labels                               names of a game's coded values (its GameSpec.labels)
    Section, Plot, Finding               the report's units (analysis/sections.py)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl

from analysis import stats
from analysis.run import Run
from analysis.sections import Finding, Plot, Section, game_spec  # noqa: F401 - re-exported for game modules
from engines.core.spec import TurnOrder

ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th")
ALL = "all"

# a seat whose win rate is within 2 points of the average seat's does not matter to a designer (the
# experiments' default `seat_margin` example); an experiment's seat_margin or [ladder] margins override it
SEAT_MARGIN = 0.02


@dataclass
class RunData:
    """The first `n_games` games of one run folder, as metrics read them."""

    path: Path
    n_games: int

    @cached_property
    def run(self) -> Run:
        return Run.open(self.path)

    @property
    def players_count(self) -> int:
        return self.run.n_players

    @property
    def game_id(self) -> str:
        return self.run.game_id

    @cached_property
    def turn_order(self) -> TurnOrder | None:
        """The game's declared turn order (None: seat 0 moves first, or the game is not registered)."""
        spec = game_spec(self.game_id)
        return spec.turn_order if spec is not None else None

    def table(self, name: str, columns: tuple[str, ...] | None = None) -> pl.DataFrame:
        """The table's rows of the first n_games games; only `columns` when given (a million
        games' players table is 300 MB whole, a few MB per column)."""
        cache = self.__dict__.setdefault("_tables", {})
        if (name, None) in cache and columns is not None:
            return cache[(name, None)].select(columns)
        if (name, columns) not in cache:
            scan = self.run.scan(name)
            scan = scan if columns is None else scan.select(columns)
            frame = scan.filter(pl.col("game") < self.n_games).collect()
            if "policy" in frame.columns:
                frame = frame.with_columns(pl.col("policy").cast(pl.Utf8))
            cache[(name, columns)] = frame
        return cache[(name, columns)]

    @cached_property
    def players(self) -> pl.DataFrame:
        """players + `position` (0 = first in turn order) and `order` label, `n_winners`."""
        seats = self.seats()
        order = pl.col("position").replace_strict(dict(enumerate(ORDINALS)), return_dtype=pl.Utf8).alias("order")
        return seats.select(pl.exclude("n_winners"), order, "n_winners")

    def seats(self, *columns: str) -> pl.DataFrame:
        """The players table's rows with only the given columns (all when none), plus game, seat,
        win, `position` (0 = first in turn order) and `n_winners`, sorted by game and position."""
        order = self.turn_order
        if columns:
            needed = ["game", "seat", "win", *(c for c in columns if c not in ("game", "seat", "win"))]
            if order is not None and order.table == "players" and order.name not in needed:
                needed.append(order.name)
            players = self.table("players", tuple(needed))
        else:
            players = self.table("players")
        p = self.players_count
        if order is not None and order.table == "games":      # a column with the seat that moves first
            games = self.table("games", ("game", order.name))
            first = games.select("game", pl.col(order.name).cast(pl.Int64).alias("_first"))
            players = players.join(first, on="game", how="left")
        elif order is not None and order.table == "players":  # a 0/1 flag on the seat that moves first
            first = players.filter(pl.col(order.name) == 1).select("game", pl.col("seat").cast(pl.Int64).alias("_first"))
            players = players.join(first, on="game", how="left")
        elif order is not None:
            raise ValueError(f"{self.game_id}: turn order column '{order.column}' is not in players or games")
        else:
            players = players.with_columns(pl.lit(0, pl.Int64).alias("_first"))
        position = ((pl.col("seat").cast(pl.Int64) - pl.col("_first").fill_null(0)) % p).alias("position")
        players = players.with_columns(position).drop("_first")
        n_winners = players.group_by("game").agg(pl.col("win").cast(pl.Int64).sum().alias("n_winners"))
        return players.join(n_winners, on="game", how="left").sort(["game", "position"])


@dataclass(frozen=True)
class Metric:
    name: str
    doc: str
    kind: str                                  # "proportion" or "mean"
    compute: Callable[[RunData], pl.DataFrame]
    reference: Callable[[RunData], float] | None = None   # the fair value, drawn on plots
    dominance: bool = False                    # keys compete: say whether one dominates
    per_seat: bool = False                     # keys are seats in turn order
    min_players: int = 1
    margin: float | None = None                # equivalence margin: the largest effect that does not matter;
                                               # "no effect" / "fair" is said only when shown inside it (TOST)


def frame(game, key, value) -> pl.DataFrame:
    return pl.DataFrame({"game": game, "key": key, "value": value}).with_columns(
        pl.col("game").cast(pl.Int64), pl.col("key").cast(pl.Utf8), pl.col("value").cast(pl.Float64))


def select(frame: pl.DataFrame, key: pl.Expr | str, value: pl.Expr) -> pl.DataFrame:
    key_expr = pl.lit(key) if isinstance(key, str) else key
    return frame.select(pl.col("game").cast(pl.Int64), key_expr.cast(pl.Utf8).alias("key"),
                        value.cast(pl.Float64).alias("value"))


def fair_share(run: RunData) -> float:
    """The average seat's win rate: 1/P, plus a little when shared wins count for each sharer."""
    games = run.table("games")
    winners = float(games["n_winners"].cast(pl.Float64).mean()) if games.height else 1.0
    return winners / run.players_count


def zero(run: RunData) -> float:
    """No edge: the fair value of a difference."""
    return 0.0


def labels(game_id: str, kind: str) -> tuple[str, ...]:
    """Names of a coded column's values, as the game's GameSpec declares them (`labels[kind]`):
    one source for the engine's tables and the report."""
    spec = game_spec(game_id)
    if spec is None or kind not in spec.labels:
        raise KeyError(f"{game_id} declares no labels for '{kind}'")
    return spec.labels[kind]


# --- positions and numbers as a designer reads them --------------------------------

def ordinal_column(column: str) -> pl.Expr:
    """A 0-based position as players count it: 1st, 2nd, ... (every report counts from 1st)."""
    return pl.col(column).cast(pl.Int64).map_elements(ordinal, return_dtype=pl.String).alias(column)


def position_column(table: pl.DataFrame, column: str) -> pl.DataFrame:
    """A table's 0-based seat or turn-order column replaced by `position` counted from 1st, first."""
    return table.with_columns(ordinal_column(column).alias("position")).select(
        "position", *[c for c in table.columns if c != column])


def ordinal(index: int) -> str:
    """0 -> '1st', 1 -> '2nd', ..."""
    return ORDINALS[index] if 0 <= index < len(ORDINALS) else f"{index + 1}th"


def pct(rate: float, digits: int = 1) -> str:
    """0.2307 -> '23.1%' (NaN: 'n/a')."""
    if rate is None or not math.isfinite(rate):
        return "n/a"
    value = 100 * rate
    return f"{0.0 if abs(value) < 0.5 * 10 ** -digits else value:.{digits}f}%"


def interval_text(low: float, high: float, *, unit: str = "%", scale: float = 100, digits: int = 1,
                  clip: tuple[float, float] | None = None) -> str:
    """'19.2-27.4%' from bounds; 'too few games' when the interval is empty or undefined (NaN),
    never 'nan-nan'. `clip` keeps a share's interval inside its range, e.g. (0, 1)."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return "too few games"
    if clip is not None:
        low, high = max(low, clip[0]), min(high, clip[1])
    low, high = (0.0 if abs(v * scale) < 0.5 * 10 ** -digits else v * scale for v in (low, high))
    return f"{low:.{digits}f}-{high:.{digits}f}{unit}"


def signed_points(gap: float) -> str:
    """A signed difference of two rates in percentage points: 0.026 -> '+2.6 points'."""
    if gap is None or not math.isfinite(gap):
        return "n/a"
    value = 0.0 if abs(100 * gap) < 0.05 else 100 * gap
    return f"{value:+.1f} points"


def format_p(p: float) -> str:
    """A p-value in a section's text: 3 decimals (0.956, 0.002), scientific below 0.001 (4.27e-13)."""
    if p is None or not math.isfinite(p):
        return "n/a"
    return f"{p:.2e}" if p < 1e-3 else f"{p:.3f}"


def rate_with_interval(rate: float, low: float, high: float, *, level: str = "95%") -> str:
    """A rate and its interval as the report prints them in text: '23.1% (95% 19.2-27.4%)'; a share's bounds
    stay in [0, 1]. Every section's text prints its rates through this and pct (never 0.2307)."""
    return f"{pct(rate)} ({level} {interval_text(low, high, clip=(0, 1))})"


# --- shared frames --------------------------------------------------------------

def with_policy_strings(frame: pl.LazyFrame) -> pl.LazyFrame:
    """The runner writes `policy` dictionary-encoded (polars reads a Categorical,
    and repeated labels repeat in the dictionary); plain strings group and
    sort by label everywhere."""
    if "policy" in frame.collect_schema().names():
        return frame.with_columns(pl.col("policy").cast(pl.String))
    return frame


def scan_players(run: Run) -> pl.LazyFrame:
    return with_policy_strings(run.scan("players"))


def players_with_winners(run: Run) -> pl.LazyFrame:
    """players joined with games.n_winners, so a win can also be counted as a share."""
    n_winners = run.scan("games").select(pl.col("game").cast(pl.Int64), "n_winners")
    return scan_players(run).with_columns(pl.col("game").cast(pl.Int64)).join(n_winners, on="game", how="left")


def position_wins(frame: pl.LazyFrame, n_players: int, seating: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """(wins, seatings) from a frame of (game, position, win[, policy]) rows: wins is float
    [games, positions], a row per game in game order, each turn-order position's win (0.0 where a
    game has no row for it; a position no game has is left out); seatings, with `seating`, the
    policies by position per game ("a|b|a"). Built UNIT_SLICE games at a time
    (stats.collect_by_units): only this matrix grows with the games, not the row tables behind it."""
    policy = [pl.col("policy").cast(pl.Utf8)] if seating else []
    columns = ["game", "position", pl.col("win").cast(pl.Float64), *policy]
    names = [str(p) for p in range(n_players)]
    games, blocks, seatings, seen = [], [], [], set()
    for piece in stats.collect_by_units(frame.select(columns)):
        wide = piece.pivot(on="position", index="game", values="win", sort_columns=True).sort("game")
        seen.update(c for c in wide.columns if c in names)
        games.append(wide["game"].to_numpy())
        blocks.append(wide.select(pl.col(c) if c in wide.columns else pl.lit(None, pl.Float64).alias(c) for c in names)
                      .fill_null(0.0).to_numpy())
        if seating:
            order = (piece.sort("game", "position").group_by("game", maintain_order=True)
                     .agg(pl.col("policy").str.join("|").alias("seating")))
            seatings.append(wide.select("game").join(order, on="game", how="left")["seating"].fill_null("").to_numpy())
    game = np.concatenate(games)
    wins = np.concatenate(blocks)[:, [p for p, name in enumerate(names) if name in seen]]
    seated = np.concatenate(seatings) if seating else None
    if len(game) > 1 and not np.all(np.diff(game) > 0):   # the slice of games outside the hinted range comes last
        order = np.argsort(game, kind="stable")
        wins, seated = wins[order], (seated[order] if seating else None)
    return wins, seated


# --- estimates with their intervals (the game is the unit) ------------------------------------

def tie_rate(run: RunData) -> pl.DataFrame:
    return select(run.table("games"), ALL, (pl.col("n_winners") > 1))


def stall_rate(run: RunData) -> pl.DataFrame:
    return select(run.table("games"), ALL, pl.col("stalled") > 0)


WILSON = "Wilson"
T = "t"
INTERVALS = {
    WILSON: "Wilson score interval (statsmodels proportion_confint, method='wilson') for 0/1 outcomes",
    T: "Student t interval of the mean (scipy.stats.t) for everything else",
}
ESTIMATE_SCHEMA = {"key": pl.Utf8, "n": pl.Int64, "estimate": pl.Float64, "low": pl.Float64,
                   "high": pl.Float64, "sd": pl.Float64, "interval": pl.Utf8}


def estimate(metric: Metric, values: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per key: n, mean, interval (Wilson for 0/1 proportions, else Student t), sd of the values."""
    from analysis.stats import t_interval_from_moments, wilson_interval

    grouped = (
        values.group_by("key", maintain_order=True)
        .agg(pl.len().alias("n"), pl.col("value").mean().alias("estimate"), pl.col("value").std(ddof=1).alias("sd"),
             pl.col("value").sum().alias("total"), pl.col("value").is_in([0.0, 1.0]).all().alias("binary"))
    )
    rows = []
    for row in grouped.iter_rows(named=True):
        n, mean = int(row["n"]), float(row["estimate"])
        sd = float(row["sd"]) if row["sd"] is not None else float("nan")
        if metric.kind == "proportion" and row["binary"]:
            low, high = wilson_interval(row["total"], n, confidence)
            low, high = min(low, mean), max(high, mean)  # Wilson's bound at 0 or n can miss by 1e-17
            method = WILSON
        else:
            low, high = t_interval_from_moments(n, mean, sd, confidence)
            method = T
        rows.append({"key": row["key"], "n": n, "estimate": mean, "low": float(low), "high": float(high),
                     "sd": sd, "interval": method})
    return pl.DataFrame(rows, schema=ESTIMATE_SCHEMA).sort("key")
