"""A small SYNTHETIC run folder, written without any engine, for the analysis tests.

The numbers are random, but every table follows the exact Skyline 3000
schemas in `engines/skyline_3000/tables.py` (plus the runner's `policy`
column on every table with a `lineup_slot`, dictionary-encoded as the runner
writes it), the folder layout in
`analysis/run.py`, and the facts the tables promise about each other:

- players: ranks by (score, hand value), `win` = rank 1, `shared_win` when
  several seats share rank 1; `key_player` is the seat given in games.first_key;
- games: winner / n_winners / margin / points_tied / tie_break_decided agree
  with the players table;
- auctions: the winner is the highest bid, ties broken by highest card then
  Key order (the round's Key Player is first_key + round - 1, clockwise), the
  price is the winning bid, everyone bidding zero leaves the item unsold;
  players.improvements_won and players.spent agree with the auctions.

A game that is not "skyline_3000" gets only the contract columns every game
shares (players: game, seat, lineup_slot, score, rank, win, shared_win,
policy; games: game, winner, n_winners, margin, decisions, stalled).

Reuse from another test folder without installing anything:

    spec = importlib.util.spec_from_file_location("synthetic_run", ROOT / "tests/analysis/synthetic_run.py")
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from engines.skyline_3000.tables import TABLES as SKYLINE_TABLES

# Stack 3 holds the 2 Spaceports on top of the 2 Megamalls (rulebook, Preparation).
GREENSPACE, SPACEPORT, MEGAMALL = 0, 1, 2
MAX_SEATS = 4  # the auctions table always has bid_0..bid_3


def write_synthetic_run(
    path: str | Path,
    *,
    game: str = "skyline_3000",
    n_games: int = 600,
    players: int = 3,
    lineup: list[str] | None = None,
    rotate: bool = True,
    seed: int = 0,
    chunk_size: int = 200,
    seat_bonus: list[float] | None = None,
    policy_bonus: dict[str, float] | None = None,
) -> Path:
    """Write a run folder at `path` and return it.

    seat_bonus / policy_bonus add points to a seat or a policy so tests can
    plant an effect (a favoured seat) that the report must find.
    """
    path = Path(path)
    lineup = list(lineup) if lineup is not None else (["heuristic", "random", "heuristic", "random"][:players])
    if len(lineup) != players:
        raise ValueError("lineup needs one policy label per player")
    seat_bonus = np.asarray(seat_bonus if seat_bonus is not None else [0.0] * players, dtype=float)
    policy_bonus = policy_bonus if policy_bonus is not None else {"heuristic": 4.0}
    rng = np.random.default_rng(seed)

    tables = _skyline_tables if game == "skyline_3000" else _generic_tables
    frames = tables(rng, n_games, players, lineup, rotate, seat_bonus, policy_bonus)

    path.mkdir(parents=True, exist_ok=True)
    (path / "_done").mkdir(exist_ok=True)
    for chunk, start in enumerate(range(0, n_games, chunk_size)):
        stop = min(start + chunk_size, n_games)
        for name, frame in frames.items():
            if name == "card_use":
                part = _card_use_chunk(rng, start, lineup)
            else:
                part = frame.filter(pl.col("game").is_between(start, stop - 1))
            (path / name).mkdir(exist_ok=True)
            pq.write_table(_with_runner_policy(part, lineup), path / name / f"part-{chunk:06d}.parquet")
        (path / "_done" / f"{chunk:06d}").touch()

    manifest = {
        "run": path.name,
        "game": game,
        "title": "Skyline 3000" if game == "skyline_3000" else game.replace("_", " ").title(),
        "players": players,
        "lineup": lineup,
        "policies": {label: {"policy": label, "weights": {"bid_fraction": 0.5} if label == "heuristic" else {}}
                     for label in dict.fromkeys(lineup)},
        "rotate": rotate,
        "n_games": n_games,
        "games_done": n_games,
        "seed": seed,
        "variant": {"name": "default", "digest": "0123456789abcdef",
                    "values": {"auction.tie_break": "highest card, then key order", "rounds": 4}},
        "engine_version": "0.0-synthetic",
        "versions": {"numpy": np.__version__, "polars": pl.__version__},
        "timings": {"seconds": 1.5, "games_per_s": n_games / 1.5},
        "created": "2025-01-01T00:00:00+00:00",
        "status": "complete",
    }
    (path / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return path


def _with_runner_policy(frame: pl.DataFrame, lineup: list[str]) -> pa.Table:
    """As experiments/runner.py writes it: `policy` is a dictionary array whose
    indices are the line-up slots (so repeated labels repeat in the dictionary)."""
    table = frame.drop("policy", strict=False).to_arrow()
    if "lineup_slot" in frame.columns:
        slots = pa.array(frame["lineup_slot"].cast(pl.Int32).to_numpy())
        table = table.append_column("policy", pa.DictionaryArray.from_arrays(slots, pa.array(lineup, pa.string())))
    return table


def _seating(n_games: int, players: int, lineup: list[str], rotate: bool):
    game = np.repeat(np.arange(n_games), players)
    seat = np.tile(np.arange(players), n_games)
    slot = (seat + game) % players if rotate else seat
    policy = np.asarray(lineup)[slot]
    return game, seat, slot, policy


def _rank_players(score: np.ndarray, hand_value: np.ndarray):
    """score, hand_value: [G, P]. Competition rank on (score, hand value); 1 = best."""
    better_score = score[:, None, :] > score[:, :, None]
    level_score_better_hand = (score[:, None, :] == score[:, :, None]) & (hand_value[:, None, :] > hand_value[:, :, None])
    return 1 + (better_score | level_score_better_hand).sum(axis=2)


def _generic_tables(rng, n_games, players, lineup, rotate, seat_bonus, policy_bonus):
    game, seat, slot, policy = _seating(n_games, players, lineup, rotate)
    bonus = np.array([policy_bonus.get(p, 0.0) for p in policy]) + seat_bonus[seat]
    score = (rng.poisson(20, size=game.size) + np.round(bonus)).astype(np.int32).reshape(n_games, players)
    # Cityline-like: highest score wins, level scores share the win.
    rank = _rank_players(score, np.zeros_like(score))
    win = rank == 1
    n_winners = win.sum(axis=1)
    top = score.max(axis=1)
    best_other = np.sort(score, axis=1)[:, -2] if players > 1 else top  # solo: no margin
    players_frame = pl.DataFrame({
        "game": game.astype(np.int64), "seat": seat.astype(np.int8), "lineup_slot": slot.astype(np.int8),
        "score": score.ravel(), "rank": rank.ravel().astype(np.int8), "win": win.ravel().astype(np.int8),
        "shared_win": (win & (n_winners[:, None] > 1)).ravel().astype(np.int8), "policy": policy,
    })
    games_frame = pl.DataFrame({
        "game": np.arange(n_games, dtype=np.int64),
        "winner": np.where(n_winners == 1, win.argmax(axis=1), -1).astype(np.int8),
        "n_winners": n_winners.astype(np.int8),
        "margin": np.where(n_winners == 1, top - best_other, 0).astype(np.int32),
        "decisions": rng.integers(10, 40, size=n_games).astype(np.int32),
        "stalled": (rng.random(n_games) < 0.02).astype(np.int8),
    })
    return {"players": players_frame, "games": games_frame}


def _skyline_tables(rng, n_games, players, lineup, rotate, seat_bonus, policy_bonus):
    game, seat, slot, policy = _seating(n_games, players, lineup, rotate)
    slot_of_seat = slot.reshape(n_games, players)
    first_key = rng.integers(0, players, size=n_games)

    auctions = _auctions(rng, n_games, players, first_key, slot_of_seat)
    won = np.zeros((n_games, players), dtype=np.int64)
    spent = np.zeros((n_games, players), dtype=np.int64)
    sold = auctions["winner"] >= 0
    np.add.at(won, (auctions["game"][sold], auctions["winner"][sold]), 1)
    np.add.at(spent, (auctions["game"][sold], auctions["winner"][sold]), auctions["price"][sold])

    # Scores: a base, a bonus per improvement won (so price/score curves have a slope),
    # the planted policy and seat effects, and a small Key Player edge.
    bonus = (np.array([policy_bonus.get(p, 0.0) for p in policy]) + seat_bonus[seat]).reshape(n_games, players)
    key = (np.arange(players)[None, :] == first_key[:, None])
    score = (rng.poisson(30, size=(n_games, players)) + 2 * won + np.round(bonus) + key).astype(np.int32)
    cards_left = rng.integers(0, 6, size=(n_games, players))
    hand_value = (cards_left * rng.integers(1, 9, size=(n_games, players))).astype(np.int32)
    # Some games end level on points AND hand value: a shared win.
    shared = rng.random(n_games) < 0.03
    score[shared, 1] = score[shared, 0] = score[shared].max(axis=1)
    hand_value[shared, 1] = hand_value[shared, 0] = hand_value[shared, :2].max(axis=1)

    rank = _rank_players(score, hand_value)
    win = rank == 1
    n_winners = win.sum(axis=1)
    top = score.max(axis=1)
    points_tied = (score == top[:, None]).sum(axis=1) > 1
    tie_break_decided = points_tied & (n_winners == 1)
    best_other = np.sort(score, axis=1)[:, -2]
    margin = np.where(n_winners == 1, top - best_other, 0)

    def per_seat(values, dtype=np.int32):
        return np.asarray(values).ravel().astype(dtype)

    players_frame = pl.DataFrame({
        "game": game.astype(np.int64),
        "seat": seat.astype(np.int8),
        "lineup_slot": slot.astype(np.int8),
        "key_player": per_seat(key, np.int8),
        "score": per_seat(score),
        "rank": per_seat(rank, np.int8),
        "win": per_seat(win, np.int8),
        "shared_win": per_seat(win & (n_winners[:, None] > 1), np.int8),
        "tie_break_win": per_seat(win & tie_break_decided[:, None], np.int8),
        "cards_left": per_seat(cards_left, np.int16),
        "hand_value_left": per_seat(hand_value, np.int16),
        "buildings_built": per_seat(rng.integers(0, 8, size=game.size), np.int16),
        "buildings_placed": per_seat(rng.integers(0, 8, size=game.size), np.int16),
        "floors_placed": per_seat(rng.integers(0, 20, size=game.size), np.int16),
        "billboards_placed": per_seat(rng.integers(0, 4, size=game.size), np.int16),
        "billboards_built_over": per_seat(rng.integers(0, 2, size=game.size), np.int16),
        "improvements_won": per_seat(won, np.int16),
        "spent": per_seat(spent, np.int16),
        "points_first": per_seat(rng.integers(0, 30, size=game.size), np.int16),
        "points_second": per_seat(rng.integers(0, 15, size=game.size), np.int16),
        "points_billboards": per_seat(-rng.integers(0, 4, size=game.size), np.int16),
        "extra_cards": per_seat(rng.integers(0, 5, size=game.size), np.int16),
        "passes_round1": per_seat(rng.integers(0, 6, size=game.size), np.int16),
        "policy": policy,
    })
    decisions = rng.integers(60, 140, size=n_games).astype(np.int32)
    # the choice columns from a generator of their own: the other columns keep their draws
    choice_rng = np.random.default_rng(n_games)
    n_choices = choice_rng.binomial(decisions, 0.8).astype(np.int32)
    games_frame = pl.DataFrame({
        "game": np.arange(n_games, dtype=np.int64),
        "first_key": first_key.astype(np.int8),
        "winner": np.where(n_winners == 1, win.argmax(axis=1), -1).astype(np.int8),
        "n_winners": n_winners.astype(np.int8),
        "margin": margin.astype(np.int32),
        "points_tied": points_tied.astype(np.int8),
        "tie_break_decided": tie_break_decided.astype(np.int8),
        "decisions": decisions,
        "construction_turns": rng.integers(20, 60, size=n_games).astype(np.int32),
        "stalled": (rng.random(n_games) < 0.01).astype(np.int8),
        "n_choices": n_choices,
        "sum_legal": (decisions + n_choices * choice_rng.integers(1, 12, size=n_games)).astype(np.int64),
        "search_simulated": np.zeros(n_games, np.int64),   # no search seat in these line-ups
    })
    auctions_frame = pl.DataFrame(auctions)
    # the running score after each of 4 rounds: a share of the final score that grows round by round
    # (noisy, so leads change), the last round's = the final score
    rounds = 4
    share = np.sort(rng.random((n_games, players, rounds - 1)), axis=2)
    running = np.concatenate([np.round(score[:, :, None] * share), score[:, :, None]], axis=2).astype(np.int32)
    rounds_frame = pl.DataFrame({
        "game": np.repeat(np.arange(n_games, dtype=np.int64), players * rounds),
        "round": np.tile(np.arange(1, rounds + 1), n_games * players).astype(np.int8),
        "seat": np.tile(np.repeat(np.arange(players), rounds), n_games).astype(np.int8),
        "score": running.ravel(),
    })
    for name, frame in (("players", players_frame), ("games", games_frame), ("auctions", auctions_frame),
                        ("rounds", rounds_frame)):
        # The policy column is the runner's; everything else must be the engine's schema exactly.
        expected = SKYLINE_TABLES[name].names + (["policy"] if name == "players" else [])
        assert frame.columns == expected, (name, frame.columns)
    return {"players": players_frame, "games": games_frame, "auctions": auctions_frame,
            "rounds": rounds_frame, "card_use": None}


def _auctions(rng, n_games, players, first_key, slot_of_seat):
    """12 auctions a game: rounds 1-4 x stacks 1-3."""
    n = n_games * 12
    game = np.repeat(np.arange(n_games), 12)
    round_ = np.tile(np.repeat(np.arange(1, 5), 3), n_games)
    stack = np.tile(np.arange(1, 4), 4 * n_games)
    item = np.where(stack < 3, GREENSPACE, np.where(round_ <= 2, SPACEPORT, MEGAMALL))

    # Each seat bids 0-3 cards of value 1-8; richer items draw more cards.
    n_cards = rng.integers(0, 3, size=(n, players)) + (item[:, None] > 0) * rng.integers(0, 2, size=(n, players))
    cards = rng.integers(1, 9, size=(n, players, 4))
    used = np.arange(4)[None, None, :] < n_cards[:, :, None]
    bids = np.where(used, cards, 0).sum(axis=2)
    highs = np.where(used, cards, 0).max(axis=2)

    # Winner: highest bid, then highest single card, then Key order (distance clockwise from the Key).
    key_seat = (first_key[game] + round_ - 1) % players
    key_distance = (np.arange(players)[None, :] - key_seat[:, None]) % players
    order = bids * 1000 + highs * 10 + (players - 1 - key_distance)
    winner = order.argmax(axis=1)
    top_bid = bids.max(axis=1)
    tied_bid = (bids == top_bid[:, None]).sum(axis=1) > 1
    top_high_among_tied = np.where(bids == top_bid[:, None], highs, -1)
    tied_high = (top_high_among_tied == top_high_among_tied.max(axis=1)[:, None]).sum(axis=1) > 1
    unsold = top_bid == 0
    tie_break = np.where(unsold | ~tied_bid, 0, np.where(tied_high, 2, 1))
    winner = np.where(unsold, -1, winner)

    columns = {"game": game.astype(np.int64), "round": round_.astype(np.int8), "stack": stack.astype(np.int8),
               "item": item.astype(np.int8)}
    for s in range(MAX_SEATS):
        columns[f"bid_{s}"] = (bids[:, s] if s < players else np.full(n, -1)).astype(np.int16)
    for s in range(MAX_SEATS):
        columns[f"high_{s}"] = (highs[:, s] if s < players else np.zeros(n)).astype(np.int16)
    columns["winner"] = winner.astype(np.int8)
    columns["winner_slot"] = np.where(unsold, -1, slot_of_seat[game, np.maximum(winner, 0)]).astype(np.int8)
    columns["price"] = np.where(unsold, 0, top_bid).astype(np.int16)
    columns["tie_break"] = tie_break.astype(np.int8)
    columns["block"] = np.where(unsold, -1, rng.integers(0, 9, size=n)).astype(np.int8)
    return columns


def _card_use_chunk(rng, start: int, lineup: list[str]) -> pl.DataFrame:
    """Card use summed over one chunk: per line-up slot, card type and value.
    Default decks: Floor and Contract values 1-8, Roof 1-7 (GAPS.md)."""
    rows = []
    for slot, policy in enumerate(lineup):
        for card_type, top_value in ((0, 8), (1, 7), (2, 8)):
            for value in range(1, top_value + 1):
                # High values are bid more often, low ones played: a visible pattern.
                rows.append({"game": start, "lineup_slot": slot, "card_type": card_type, "value": value,
                             "played": int(rng.poisson(40 - 3 * value)), "bid": int(rng.poisson(5 * value)),
                             "kept": int(rng.poisson(8)), "policy": policy})
    frame = pl.DataFrame(rows, schema={"game": pl.Int64, "lineup_slot": pl.Int8, "card_type": pl.Int8,
                                       "value": pl.Int8, "played": pl.Int32, "bid": pl.Int32,
                                       "kept": pl.Int32, "policy": pl.String})
    assert frame.columns == SKYLINE_TABLES["card_use"].names + ["policy"]
    return frame
