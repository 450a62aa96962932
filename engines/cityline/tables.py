"""Cityline result tables: what `simulate` returns, one column per fact.

Seats are numbered 0..P-1 (seat 0 is the starting player); `lineup_slot` is the
position in the run's policy line-up (equal to the seat unless seats rotate).
Columns are 1..6 as on the sheet; roof types are the set-aside die value 1..6
(names per variant: default 1 Odds, 2 Evens, 3 Low, 4 High, 5 Pairs, 6 Any).
"""
import numpy as np

from engines.core.harness import N_CHOICES, SUM_LEGAL
from engines.core.search import SEARCH_SIMULATED

from engines.core.spec import Column, TableSpec

SKY_NAMES = ("sun", "moon", "cloud")
N_TYPES = 6

PLAYERS = TableSpec(
    "players",
    "one row per game and seat",
    (
        Column("game", "game index in the run"),
        Column("seat", "seat 0..P-1; seat 0 is the starting player"),
        Column("lineup_slot", "position in the policy line-up"),
        Column("score", "final points"),
        Column("rank", "1 = best; equal scores share a rank (unless scoring.tie_break orders them)"),
        Column("win", "1 if this seat is ranked first (shared or not; always 1 solo)"),
        Column("shared_win", "1 if this seat shares first place with another seat"),
        Column("sky", "0 sun, 1 moon, 2 cloud (from the construction set-aside dice)"),
        Column("sky_hit", "1 if the sky bonus or penalty applied"),
        Column("sky_bonus", "points from the sky (+3 sun, +1 moon, -2 cloud by default; 0 if not hit)"),
        Column("x_count", "X's on the sheet"),
        Column("x_penalty", "points lost to X's (positive number)"),
        Column("building_points", "points from buildings (score = building_points - x_penalty + sky_bonus)"),
    )
    + tuple(Column(f"points_type{r}", f"building points from roof type {r}") for r in range(1, N_TYPES + 1))
    + tuple(Column(f"buildings_type{r}", f"buildings (roof with room) of roof type {r}")
            for r in range(1, N_TYPES + 1))
    + (
        Column("dead_roofs", "roofs put on a column of height 0 (no room, scores nothing)"),
        Column("zeroed", "buildings scoring 0 because a same-type building scored that occupancy level"),
        Column("floors", "floors built, all columns"),
        Column("occupants", "occupants, all buildings (early ones included)"),
        Column("early_occupants", "occupants placed in the construction phase"),
        Column("wasted_walls", "construction dice lost to a column at max height"),
        Column("wasted_early", "early-occupant dice lost to a full building"),
        Column("forced_x", "occupancy turns where no building matched (a building filled with X's)"),
        Column("rerolled", "dice this seat re-rolled (solo player, or the starting player for the table)"),
        Column("occ_turns", "occupancy turns this seat populated a building"),
        Column("odd_construction", "odd dice among the construction set-aside dice (sky)"),
        Column("odd_occupancy", "odd dice among the occupancy set-aside dice"),
        Column("even_occupancy", "even dice among the occupancy set-aside dice"),
    ),
)

GAMES = TableSpec(
    "games",
    "one row per game",
    (
        Column("game", "game index in the run"),
        Column("winner", "winning seat, -1 if the top score is shared (solo: 0)"),
        Column("n_winners", "seats sharing the top score"),
        Column("margin", "winner's points minus the best other score (0 if shared or solo)"),
        Column("decisions", "decisions taken in the game (re-roll decisions included)"),
        Column("stalled", "always 0: a Cityline game always ends within 12 turns"),
        Column("top_score", "best score at the table"),
        SEARCH_SIMULATED,
        N_CHOICES,
        SUM_LEGAL,
    ),
)

DECISIONS = TableSpec(
    "decisions",
    "one row per game, seat and roof/occupancy decision (off when KernelParams.record_decisions = 0)",
    (
        Column("game", "game index in the run"),
        Column("seat", "seat deciding"),
        Column("lineup_slot", "its position in the policy line-up"),
        Column("phase", "0 construction (roof), 1 occupancy"),
        Column("turn", "turn 1..6 within the phase"),
        Column("n_dice", "dice rolled this turn"),
        Column("dice_code", "dice per face as digits, face 1 leftmost (1 1 2 4 6 6 -> 201102), after any re-roll"),
        Column("rerolled", "construction: dice re-rolled this turn before the choice"),
        Column("die", "value of the die set aside"),
        Column("column", "column roofed (construction) or populated (occupancy), 1..6"),
        Column("roof", "roof type of that column (construction: = die)"),
        Column("height", "floors of that column at the decision"),
        Column("placed", "construction: early occupants already in it; occupancy: occupants placed now"),
        Column("xs", "occupancy: X's drawn now"),
        Column("at_stake", "construction: points if the building fills; occupancy: table points it ends on"),
        Column("column_points", "points that column scored at the end (after the same-type rule)"),
    ),
)

TABLES = {t.name: t for t in (PLAYERS, GAMES, DECISIONS)}
PLAYER_COLUMNS = PLAYERS.names
GAME_COLUMNS = GAMES.names
DECISION_COLUMNS = DECISIONS.names

# the Parquet dtype of each column, by name (the kernels fill int32 / int64 / int8 matrices)
PLAYER_DTYPES = {
    **{n: np.int8 for n in PLAYERS.names},
    "game": np.int64, "score": np.int16, "building_points": np.int16, "x_penalty": np.int16,
    **{f"points_type{r}": np.int16 for r in range(1, N_TYPES + 1)},
}
GAME_DTYPES = {"game": np.int64, "winner": np.int8, "n_winners": np.int8, "margin": np.int16,
               "decisions": np.int16, "stalled": np.int8, "top_score": np.int16,
               "search_simulated": np.int64, "n_choices": np.int16, "sum_legal": np.int32}
DECISION_DTYPES = {**{n: np.int8 for n in DECISIONS.names}, "game": np.int64, "dice_code": np.int32}
DTYPES = {"players": PLAYER_DTYPES, "games": GAME_DTYPES, "decisions": DECISION_DTYPES}
