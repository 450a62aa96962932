"""Project Skyline result tables: what `simulate` returns, one column per fact.

Seats are numbered 0..P-1 clockwise; seat 0 holds the start marker, so the seat is the
turn-order position (`turn_order`, kept as its own column for the toolkit's turn-order
metrics). Money is the money track; the final score adds the card values and the map's end
condition and never goes below 0.
"""
import numpy as np

from engines.core.harness import N_CHOICES, SUM_LEGAL
from engines.core.search import SEARCH_SIMULATED
from engines.core.spec import Column, TableSpec

PLAYERS = TableSpec(
    "players",
    "one row per game and seat",
    (
        Column("game", "game index in the run"),
        Column("seat", "seat 0..P-1, clockwise from the start player"),
        Column("lineup_slot", "position in the policy line-up"),
        Column("score", "final money (money track + card values + end condition, at least 0)"),
        Column("rank", "1 = best; ties broken by most cards, then shared"),
        Column("win", "1 if ranked first (shared or not)"),
        Column("shared_win", "1 if ranked first together with another seat"),
        Column("turn_order", "position in turn order, 0 = start player (= seat)"),
        Column("money", "money track at the end, before final scoring"),
        Column("money_cards", "money from card effects (money words)"),
        Column("money_monuments", "money from monument bonuses"),
        Column("money_areas", "money from area scorings"),
        Column("money_bonuses", "money from one-time bonus spaces"),
        Column("money_sell", "money from selling cards (U-14)"),
        Column("money_card_values", "final scoring: card money values"),
        Column("money_end", "final scoring: the map's end condition"),
        Column("spent_buy", "money paid for Basic cards"),
        Column("spent_upgrade", "money paid on the upgrade track"),
        Column("deck_size", "cards owned at the end (hand, draw and discard piles)"),
        Column("upgrades", "upgrades made"),
        Column("upgrade_pos", "upgrade marker at the end (0 lowest)"),
        Column("bought", "cards bought from the Basic market"),
        Column("taken", "cards taken free (U-16, Tokyo monuments)"),
        Column("sold", "cards sold (U-14)"),
        Column("played", "cards played"),
        Column("floors_built", "floors placed"),
        Column("floors_forfeited", "floors forfeited (7-floor cap, no legal space)"),
        Column("towers", "7-floor buildings topped by this seat at the end"),
        Column("areas_present", "areas holding at least one of this seat's floors"),
    ),
)

GAMES = TableSpec(
    "games",
    "one row per game",
    (
        Column("game", "game index in the run"),
        Column("winner", "winning seat, -1 if shared"),
        Column("n_winners", "seats sharing first place"),
        Column("margin", "winner's score minus the best other score (0 if shared)"),
        Column("decisions", "decisions taken in the game"),
        Column("stalled", "1 if the round cap ended the game"),
        Column("map", "0 nyc, 1 tokyo (index in the engine's map list)"),
        Column("turns", "turns played, all players"),
        Column("rounds", "rounds played"),
        Column("ending", "1 money reached the end money, 2 last floor placed (before the money end's last round), "
                         "3 stalled"),
        Column("money_round", "round (1-based) in which someone first reached the end money, 0 never"),
        Column("floor_round", "round (1-based) in which someone placed their last floor, 0 never"),
        Column("areas_scored", "areas scored"),
        Column("top_score", "best score at the table"),
        Column("events_dropped", "card events not recorded (over the per-chunk budget)"),
        SEARCH_SIMULATED,
        N_CHOICES,
        SUM_LEGAL,
    ),
)

CARD_EVENTS = TableSpec(
    "card_events",
    "one row per card event: bought, upgraded into, played, trashed (upgraded away or sold), taken",
    (
        Column("game", "game index in the run"),
        Column("seat", "seat of the player"),
        Column("lineup_slot", "its position in the policy line-up"),
        Column("turn", "the player's turn number (= round + 1)"),
        Column("card", "card type id (engine order)"),
        Column("code", "card code, e.g. B-03 or U-17g (upgrade: set colour g/y/w/r)"),
        Column("event", "0 bought, 1 upgraded_into, 2 played, 3 trashed, 4 taken"),
    ),
)

# A round is what the rules call one: every seat's turn from the start player (seat 0) on, so
# after it every seat has had as many turns as every other and the money track compares fairly
# (after a single turn it would favour whoever just moved). The game checks its end only there.
ROUNDS = TableSpec(
    "rounds",
    "one row per game, round and seat: the running score (what the game-quality metrics read)",
    (
        Column("game", "game index in the run"),
        Column("round", "round 1..games.rounds"),
        Column("seat", "seat 0..P-1"),
        Column("score", "the seat's score after this round (rules.score_of_nb): the money track during the game "
                        "(the 50-money race), and after the last round, once final scoring has added card values "
                        "and the end condition, the final score (= players.score)"),
    ),
)

TABLES = {t.name: t for t in (PLAYERS, GAMES, CARD_EVENTS, ROUNDS)}

DTYPES = {
    "players": {**{n: np.int16 for n in PLAYERS.names}, "game": np.int64, "seat": np.int8, "lineup_slot": np.int8,
                "rank": np.int8, "win": np.int8, "shared_win": np.int8, "turn_order": np.int8},
    "games": {**{n: np.int32 for n in GAMES.names}, "game": np.int64, "winner": np.int8, "n_winners": np.int8,
              "stalled": np.int8, "map": np.int8, "ending": np.int8, "search_simulated": np.int64},
    "card_events": {"game": np.int64, "seat": np.int8, "lineup_slot": np.int8, "turn": np.int16, "card": np.int8,
                    "code": object, "event": np.int8},
    "rounds": {"game": np.int64, "round": np.int16, "seat": np.int8, "score": np.int32},
}
