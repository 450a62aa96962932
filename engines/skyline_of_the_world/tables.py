"""Skyline of the World result tables: what `simulate` returns, one column per fact.

Seats are numbered 0..P-1; the start player is drawn at random, so `turn_order` (0 = the
start player, 1 = the player on his left, ...) is the column for turn-order questions.
Stock kinds: floors of 1, 2, 4, 6, 10 (penthouse) million and the neutral floor (default
values; a variant may change the first five).
"""
import numpy as np

from engines.core.harness import N_CHOICES, SUM_LEGAL
from engines.core.search import SEARCH_SIMULATED
from engines.core.spec import Column, TableSpec

KIND_SUFFIX = ("1", "2", "4", "6", "ph", "neutral")   # column suffix per stock kind (default values)

PLAYERS = TableSpec(
    "players",
    "one row per game and seat",
    (
        Column("game", "game index in the run"),
        Column("seat", "seat 0..P-1"),
        Column("lineup_slot", "position in the policy line-up"),
        Column("score", "prestige points"),
        Column("rank", "1 = best; the tie chain (penthouses, then mission; tournament: first to end) splits ties"),
        Column("win", "1 if ranked first (a shared first place counts for each)"),
        Column("shared_win", "1 if ranked first together with another seat"),
        Column("turn_order", "0 = the start player, 1 = the next player on his left, ..."),
        Column("penthouses", "penthouses built"),
        Column("strategic", "strategic areas whose top floor this seat holds at the end"),
        Column("mission_done", "1 if the mission path is held at the end"),
        Column("triggered_end", "1 if this seat built the game-ending penthouse"),
        Column("cash", "cash at the end (millions)"),
        Column("income_total", "income received over the game (after the cap)"),
        Column("income_max", "largest income in one turn (before the cap)"),
        Column("income_final", "income the final board would pay this seat"),
        Column("turns", "turns played"),
        Column("bonus_cashed", "bonus cards cashed"),
        Column("bonus_value", "money from bonus cards"),
        Column("bonus_traded", "trade-ins of three cards"),
        Column("bonus_held", "bonus cards held at the end"),
        Column("fees_paid", "fees paid to other players"),
        Column("fees_received", "fees received from other players"),
        Column("fees_bank", "fees paid to the bank (ground and neutral floors)"),
        Column("cap_hits", "turns whose income the 30M cap cut"),
        Column("cap_lost", "income lost to the cap"),
        Column("cap_lost_other", "other gains lost to the cap (fees received, sales, bonus cards, trade-ins)"),
        Column("skyline_built", "Skyline floors built"),
        Column("blocks", "neutral floors placed on another player's top floor"),
        Column("spent_buying", "money spent buying floors"),
        Column("got_selling", "money from selling floors"),
    )
    + tuple(Column(f"bought_{s}", f"floors bought: {s}") for s in KIND_SUFFIX)
    + tuple(Column(f"sold_{s}", f"floors sold: {s}") for s in KIND_SUFFIX)
    + tuple(Column(f"built_{s}", f"floors built: {s}") for s in KIND_SUFFIX),
)

GAMES = TableSpec(
    "games",
    "one row per game",
    (
        Column("game", "game index in the run"),
        Column("winner", "winning seat, -1 if the first place is shared"),
        Column("n_winners", "seats ranked first"),
        Column("margin", "winner's prestige minus the best other prestige (0 if shared)"),
        Column("decisions", "decisions taken in the game"),
        Column("stalled", "1 if the turn cap ended the game before a third penthouse"),
        Column("turns", "player turns played"),
        Column("start_player", "seat of the start player"),
        Column("trigger_seat", "seat that built the game-ending penthouse, -1 if none"),
        Column("trigger_order", "turn_order of that seat, -1 if none"),
        Column("trigger_won", "1 if that seat won (alone or shared), -1 if none"),
        Column("top_score", "best prestige at the table"),
        Column("penthouses", "penthouses on the board"),
        Column("floors", "floors on the board"),
        Column("bank_net", "money paid to the bank minus money paid by it"),
        SEARCH_SIMULATED,
        N_CHOICES,
        SUM_LEGAL,
    ),
)

INCOME = TableSpec(
    "income",
    "one row per game and turn: the income the player to move earned (off when record_income = 0)",
    (
        Column("game", "game index in the run"),
        Column("seat", "seat whose turn it is"),
        Column("lineup_slot", "its position in the policy line-up"),
        Column("turn", "player turn number in the game, from 0"),
        Column("round", "round number, from 0 (turn // players)"),
        Column("income", "income earned (before the cap)"),
        Column("group", "buildings in the paying group"),
        Column("cash", "cash after the income"),
    ),
)

# A round is one full turn cycle from the start player (turns M_TURN = k*P .. (k+1)*P - 1): after it
# every seat has had as many turns as every other, so scores compare fairly; a single turn would
# favour whoever just moved. The last round may be partial (the turn cap, or a variant's end that
# lets fewer than P turns follow the trigger).
ROUNDS = TableSpec(
    "rounds",
    "one row per game, round and seat: the running score (what the game-quality metrics read)",
    (
        Column("game", "game index in the run"),
        Column("round", "round 1.. (a full turn cycle from the start player; the last may be partial)"),
        Column("seat", "seat 0..P-1"),
        Column("score", "the seat's prestige after this round, as the end scores it (rules.score_parts_nb); "
                        "the last round's = players.score"),
    ),
)

TABLES = {t.name: t for t in (PLAYERS, GAMES, INCOME, ROUNDS)}

# money sums over a game reach past int16 when a variant allows long games (fuzzing found cap_lost
# at 32,778 with a turn cap of 4,785): every count and sum is int32, flags and seats int8
PLAYER_DTYPES = {**{n: np.int32 for n in PLAYERS.names}, "game": np.int64, "seat": np.int8,
                 "lineup_slot": np.int8, "rank": np.int8, "win": np.int8, "shared_win": np.int8,
                 "turn_order": np.int8, "mission_done": np.int8, "triggered_end": np.int8}
GAME_DTYPES = {**{n: np.int32 for n in GAMES.names}, "game": np.int64, "winner": np.int8, "n_winners": np.int8,
               "decisions": np.int32, "stalled": np.int8, "start_player": np.int8, "trigger_seat": np.int8,
               "trigger_order": np.int8, "trigger_won": np.int8, "bank_net": np.int32, "search_simulated": np.int64}
INCOME_DTYPES = {**{n: np.int16 for n in INCOME.names}, "game": np.int64, "seat": np.int8, "lineup_slot": np.int8}
ROUND_DTYPES = {"game": np.int64, "round": np.int16, "seat": np.int8, "score": np.int32}
DTYPES = {"players": PLAYER_DTYPES, "games": GAME_DTYPES, "income": INCOME_DTYPES, "rounds": ROUND_DTYPES}
