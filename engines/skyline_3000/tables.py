"""Skyline 3000 result tables: what `simulate` returns, one column per fact.

Seats are numbered 0..P-1 clockwise; `lineup_slot` is the position in the
run's policy line-up (equal to the seat unless seats rotate).
"""
import numpy as np

from engines.core.harness import N_CHOICES, SUM_LEGAL
from engines.core.search import SEARCH_SIMULATED
from engines.core.spec import Column, TableSpec

ITEM_NAMES = ("greenspace", "spaceport", "megamall")
TIE_BREAK_NAMES = ("none", "highest card", "key order")
CARD_TYPE_NAMES = ("floor", "roof", "contract")

PLAYERS = TableSpec(
    "players",
    "one row per game and seat",
    (
        Column("game", "game index in the run"),
        Column("seat", "seat, clockwise from 0"),
        Column("lineup_slot", "position in the policy line-up"),
        Column("key_player", "1 if this seat held the Key in round 1"),
        Column("score", "final points"),
        Column("rank", "1 = best; players level on points and hand value share a rank"),
        Column("win", "1 if this seat won (a shared win counts for each sharer)"),
        Column("shared_win", "1 if this seat shares the win"),
        Column("tie_break_win", "1 if this seat won only through the hand-value tie-break"),
        Column("cards_left", "cards in hand at the end"),
        Column("hand_value_left", "total card value in hand at the end (the tie-break)"),
        Column("buildings_built", "buildings completed (roofed) in the Plant, setup ones excluded"),
        Column("buildings_placed", "buildings installed on the board"),
        Column("floors_placed", "floors installed on the board"),
        Column("billboards_placed", "billboards put on the board"),
        Column("billboards_built_over", "own billboards replaced by a building"),
        Column("improvements_won", "auctions won"),
        Column("spent", "total card value paid in won auctions"),
        Column("points_first", "points from First Place in blocks, all rounds"),
        Column("points_second", "points from Second Place in blocks, all rounds"),
        Column("points_billboards", "points lost to billboards (negative)"),
        Column("extra_cards", "cards drawn thanks to Spaceports"),
        Column("passes_round1", "construction turn (0-based) on which the seat passed in round 1"),
    ),
)

AUCTIONS = TableSpec(
    "auctions",
    "one row per auction: 3 per round, 12 per game",
    (
        Column("game", "game index in the run"),
        Column("round", "round 1-4"),
        Column("stack", "auction house stack 1-3"),
        Column("item", "0 greenspace, 1 spaceport, 2 megamall"),
        Column("bid_0", "seat 0's bid (sum of card values), -1 if no such seat"),
        Column("bid_1", "seat 1's bid"),
        Column("bid_2", "seat 2's bid"),
        Column("bid_3", "seat 3's bid"),
        Column("high_0", "seat 0's highest bid card, 0 if it bid nothing"),
        Column("high_1", "seat 1's highest bid card"),
        Column("high_2", "seat 2's highest bid card"),
        Column("high_3", "seat 3's highest bid card"),
        Column("winner", "winning seat, -1 if everyone bid zero"),
        Column("winner_slot", "winning seat's line-up slot, -1 if none"),
        Column("price", "card value the winner paid (= winning bid; 0 when auction.unplaceable_item = \"lost_refunded\" gave it back)"),
        Column("tie_break", "0 none, 1 highest single card, 2 Key order"),
        Column("block", "block 0-8 where the item was placed, -1 if not placed"),
    ),
)

GAMES = TableSpec(
    "games",
    "one row per game",
    (
        Column("game", "game index in the run"),
        Column("first_key", "seat holding the Key in round 1"),
        Column("winner", "winning seat, -1 if the win is shared"),
        Column("n_winners", "players sharing the win"),
        Column("margin", "winner's points minus the best other score (0 if shared)"),
        Column("points_tied", "1 if the top score was tied on points"),
        Column("tie_break_decided", "1 if hand value decided the winner"),
        Column("decisions", "decisions taken in the game"),
        Column("construction_turns", "construction turns played, all rounds"),
        Column("stalled", "1 if the turn cap ended the game"),
        N_CHOICES,
        SUM_LEGAL,
        SEARCH_SIMULATED,
    ),
)

CARD_USE = TableSpec(
    "card_use",
    "card use summed over a chunk of games, by line-up slot, card type and value",
    (
        Column("game", "first game index of the chunk"),
        Column("lineup_slot", "position in the policy line-up"),
        Column("card_type", "0 floor, 1 roof, 2 contract"),
        Column("value", "card value"),
        Column("played", "cards played in construction (with or without acting, or paid for a billboard)"),
        Column("bid", "cards paid in won auctions"),
        Column("kept", "cards left in hand at the end"),
    ),
)

ROUNDS = TableSpec(
    "rounds",
    "one row per game, round and seat: the running score (what the game-quality metrics read)",
    (
        Column("game", "game index in the run"),
        Column("round", "round 1..game.rounds"),
        Column("seat", "seat, clockwise from 0"),
        Column("score", "the seat's points after this round's Scoring Phase (the last round's: before the "
                        "end's tie-break, = players.score)"),
    ),
)

TABLES = {t.name: t for t in (PLAYERS, AUCTIONS, GAMES, CARD_USE, ROUNDS)}

# column dtypes: int32 unless named here (codes and flags int8; the counts that outgrow int32 int64)
_INT8 = ("seat", "lineup_slot", "round", "stack", "item", "winner", "winner_slot", "tie_break", "block",
         "key_player", "rank", "win", "shared_win", "tie_break_win", "first_key", "n_winners", "points_tied",
         "tie_break_decided", "stalled", "card_type", "value")
_INT64 = {"games": ("sum_legal", "search_simulated"), "rounds": ("game",)}
DTYPES = {t.name: {c: np.int8 if c in _INT8 else np.int64 if c in _INT64.get(t.name, ()) else np.int32
                   for c in t.names} for t in TABLES.values()}
