"""Coin: a toy game registered only in the experiment tests.

Fast (numpy, no numba), with the contract tables every game writes and
known effects an experiment must find: the first player (the Key Player)
gets key_bonus * (multiplier - 1) * skill points, where skill is 0 for
random, 0.5 for greedy and 1 for strong players; with fewer than 6
platforms the 2nd seat gets (6 - platforms) points. Chance (the base
scores, the Key) depends only on (seed, game index): common random numbers.

It is also the proof of the recipe for a new game (README, Layout): this
module is its engine package, coin_analysis.py its analysis module (installed
as analysis.coin by conftest.py) and conftest.py's `registry.register` its
registration line; nothing else in the toolkit names it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.core.spec import BenchmarkCase, Column, GameSpec, PolicyInfo, TableSpec, TurnOrder
from engines.core.variant import Rule, VariantLoader

SCHEMA = {
    "scoring.multiplier": Rule("int", min=1, max=4),
    "scoring.key_bonus": Rule("int", min=0, max=5),
    "board.platforms": Rule("int", min=3, max=6),
}
POLICIES = {
    "random": PolicyInfo("random", 0, "no skill"),
    "greedy": PolicyInfo("greedy", 1, "some skill", {"skill": 0.5}),
    "strong": PolicyInfo("strong", 2, "full skill", {"skill": 1.0}),
}
SKILL = np.array([0.0, 0.5, 1.0])
PLAYERS = TableSpec("players", "one row per game and seat", tuple(Column(c, c) for c in (
    "game", "seat", "lineup_slot", "key_player", "score", "rank", "win", "shared_win")))
GAMES = TableSpec("games", "one row per game", tuple(Column(c, c) for c in (
    "game", "first_key", "winner", "n_winners", "margin", "decisions", "stalled")))


def kernel_params(variant, players):
    return (variant.get("scoring.multiplier"), variant.get("scoring.key_bonus"), variant.get("board.platforms"))


def simulate(kparams, policy_ids, weights, rotate, seed, start, count):
    multiplier, key_bonus, platforms = kparams
    p = len(policy_ids)
    games = np.arange(start, start + count)
    base = np.empty((count, p))
    key = np.empty(count, dtype=np.int64)
    decisions = np.empty(count, dtype=np.int32)
    stalled = np.empty(count, dtype=np.int8)
    for j, i in enumerate(games):
        rng = np.random.Generator(np.random.PCG64([seed, int(i)]))
        base[j] = rng.integers(0, 20, size=p)
        key[j] = rng.integers(0, p)
        decisions[j] = 10 + rng.integers(0, 10)
        stalled[j] = rng.random() < 0.02
    seat = np.arange(p)
    slot = (seat[None, :] + games[:, None]) % p if rotate else np.broadcast_to(seat, (count, p))
    skill = SKILL[np.asarray(policy_ids)[slot]]
    is_key = seat[None, :] == key[:, None]
    second = seat[None, :] == (key[:, None] + 1) % p
    score = np.round(base + is_key * key_bonus * (multiplier - 1) * skill * 2 + second * (6 - platforms)).astype(np.int32)
    top = score.max(axis=1)
    win = score == top[:, None]
    n_winners = win.sum(axis=1)
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    best_other = np.sort(score, axis=1)[:, -2] if p > 1 else top
    return {
        "players": {
            "game": np.repeat(games, p), "seat": np.tile(seat, count).astype(np.int8),
            "lineup_slot": slot.ravel().astype(np.int8), "key_player": is_key.ravel().astype(np.int8),
            "score": score.ravel(), "rank": rank.ravel().astype(np.int8), "win": win.ravel().astype(np.int8),
            "shared_win": (win & (n_winners[:, None] > 1)).ravel().astype(np.int8),
        },
        "games": {
            "game": games, "first_key": key.astype(np.int8),
            "winner": np.where(n_winners == 1, win.argmax(axis=1), -1).astype(np.int8),
            "n_winners": n_winners.astype(np.int8),
            "margin": np.where(n_winners == 1, top - best_other, 0).astype(np.int32),
            "decisions": decisions, "stalled": stalled,
        },
    }


SPEC = GameSpec(
    game_id="coin", title="Coin", engine_version="coin-1", min_players=1, max_players=4, default_players=3,
    variants=VariantLoader("coin", Path(__file__).parent / "coin_variants", SCHEMA),
    policies=POLICIES, tables={"players": PLAYERS, "games": GAMES}, kernel_params=kernel_params,
    simulate=simulate, new_game=lambda *a, **k: None,
    default_lineup=("strong", "greedy", "random"),
    turn_order=TurnOrder("games.first_key", "the Key Player moves first"),
    benchmark=(BenchmarkCase(3, "random", 1000),),
    source_digest="coin-source-1",
)
