"""Kingmaking: a decision by a player who can no longer win, whichever action they take, whose
choice changes who wins (games of 3+ players).

No result table can say it (it asks what another move would have done), so it is measured through
the step API (engines.core.spec.StepGame) on a sample of a run's games. Each sampled game is
replayed with the run's line-up (game i of run `seed`: the same deal, chance and policy streams,
the same seats; a replay whose final scores differ from the run's is counted as not replayable and
left out). At each of its last WINDOW_PER_SEAT x P decisions that offer a real choice, the seat to
move tries up to ACTIONS of its legal actions: its policy's own and others drawn at random
(a seeded generator per game). Each is applied to a copy of the state (clone(): the chance stream
and every seat's policy stream are copied too, and the deciding seat's policy is asked first so its
stream moves on as in the game), then the game is played to the end by the same policies. The
decision is kingmaking when the deciding seat wins in none of the tried continuations and they do
not all end with the same winners. A game counts 1 if any of its decisions is.

What it is: a lower bound on the share of games in which a player out of the race decided the
winner. Untried actions and earlier decisions might make a king too, and "cannot win" is judged
against the line-up's own play from there on, not against perfect play. Winners are the seats on
the top score (scores()); a game's own tie-break is not applied.

Chance: each continuation starts from the same chance stream state, but where the tried action
draws more or less chance than the game's own (a card drawn, dice rolled), the later draws fall
differently; part of a measured change of winner can then be luck the choice reshuffled.

Cost: at most GAMES games per run, each a replay plus, per tried decision, up to ACTIONS play-outs
of at most the window's length, and no new game once MAX_STEPS step-API decisions are spent. The
budget is in decisions, not seconds, so a report's figure does not depend on the machine, and it
keeps the measurement to a few seconds of a report's build (measured on 30-game runs of each game's
default line-up: 19-23 games sampled, 1.3-2.3 s of CPU). The figure says how many games it sampled.
A run whose line-up searches (games.search_simulated > 0) is not measured: every play-out would
search at each decision. Every estimate has the game as unit (Wilson interval).
"""
from __future__ import annotations

import numpy as np
import polars as pl

from analysis.frames import RunData, select
from analysis.sections import game_spec
from engines.core.spec import seat_slot

GAMES = 30             # games sampled per run (the first GAMES games that were not stalled)
WINDOW_PER_SEAT = 10   # the last 10 decisions per seat are tried
ACTIONS = 4            # actions tried per decision: the policy's own and up to 3 others
MAX_STEPS = 60_000     # step-API decisions per run, replays and play-outs: no new game after that
SCHEMA = {"game": pl.Int64, "kingmaking": pl.Int8, "tried": pl.Int64, "trailing": pl.Int64, "steps": pl.Int64}


class NotReplayable(Exception):
    """The run's games cannot be replayed by the engine at hand (why: the message)."""


def legal_list(game, rng: np.random.Generator, k: int) -> tuple[list[int], int]:
    """Up to k legal actions drawn at random, and how many are legal. A container too large to
    list (Skyline 3000's BidSpace) offers sample(rng) instead."""
    acts = game.legal_actions()
    n = len(acts)
    try:
        listed = list(acts)
    except TypeError:
        return [int(acts.sample(rng)) for _ in range(k)], n
    if len(listed) <= k:
        return [int(a) for a in listed], n
    return [int(listed[i]) for i in rng.choice(len(listed), k, replace=False)], n


def winners(game) -> frozenset[int]:
    scores = np.asarray(game.scores())
    return frozenset(int(s) for s in np.flatnonzero(scores == scores.max()))


def play_out(game, labels: list[str]) -> int:
    """Play to the end with the line-up's policies; returns the decisions taken."""
    steps = 0
    while not game.is_over():
        game.apply(game.policy_action(labels[game.current_player()]))
        steps += 1
    return steps


def branch(snapshot, labels: list[str], action: int | None) -> tuple[frozenset[int], int]:
    """Winners when the seat to move plays `action` (None: its policy's own) and the line-up plays
    on, and the decisions that took. The policy is asked first in every branch, so its stream is
    where the game left it."""
    g = snapshot.clone()
    own = g.policy_action(labels[g.current_player()])
    g.apply(own if action is None else action)
    steps = 1 + play_out(g, labels)
    return winners(g), steps


def game_kingmaking(new_game, labels: list[str], final_scores: list[int], seed: int, game_index: int,
                    window: int, actions: int) -> dict:
    """One game: replayed to the end keeping a copy of the state before each of its last `window`
    decisions, then each copy's alternatives tried (module docstring)."""
    g = new_game()
    snapshots = []
    steps = 0
    while not g.is_over():
        snapshots.append(g.clone())
        if len(snapshots) > window:
            snapshots.pop(0)
        g.apply(g.policy_action(labels[g.current_player()]))
        steps += 1
    if [int(x) for x in g.scores()] != [int(x) for x in final_scores]:
        raise NotReplayable(f"game {game_index} replays to other scores than the run's")
    rng = np.random.default_rng([seed, game_index])
    tried = trailing = 0
    king = 0
    for snap in snapshots:
        p = snap.current_player()
        options, n = legal_list(snap, rng, actions)
        if n < 2:
            continue
        tried += 1
        won, used = branch(snap, labels, None)
        outcomes, steps = {won}, steps + used
        for a in options:
            if any(p in w for w in outcomes):
                break    # the seat can win: no kingmaking here, whatever else is tried
            won, used = branch(snap, labels, a)
            outcomes.add(won)
            steps += used
        if not any(p in w for w in outcomes):
            trailing += 1
            if len(outcomes) > 1:
                king = 1
    return {"game": game_index, "kingmaking": king, "tried": tried, "trailing": trailing, "steps": steps}


def measure(data: RunData, games: int = GAMES, window_per_seat: int = WINDOW_PER_SEAT,
            actions: int = ACTIONS, max_steps: int = MAX_STEPS) -> pl.DataFrame:
    """Per sampled game: kingmaking (0/1), decisions tried, of which by a seat that could not win.
    Raises NotReplayable when the run cannot be replayed here."""
    run = data.run
    manifest = run.manifest
    spec = game_spec(run.game_id)
    if spec is None:
        raise NotReplayable(f"{run.game_id} is not a registered game")
    if manifest.get("source_digest") != spec.source_digest or "seed" not in manifest:
        raise NotReplayable("the run was played by another version of the engine (source digest)")
    P, seed, rotate = int(manifest["players"]), int(manifest["seed"]), bool(manifest.get("rotate"))
    lineup = list(manifest["lineup"])
    variant = spec.variants.load(None, overrides=manifest["variant"]["values"])
    table = data.table("games")
    if "search_simulated" in table.columns and table["search_simulated"].sum() > 0:
        raise NotReplayable("the line-up searches: every play-out would search at each decision, too costly")
    if "stalled" in table.columns:
        table = table.filter(pl.col("stalled") == 0)
    sample = sorted(int(i) for i in table["game"].to_list())[:games]
    scores = data.table("players", ("game", "seat", "score")).filter(pl.col("game").is_in(sample)).sort(["game", "seat"])
    final = {i: [] for i in sample}
    for i, s in zip(scores["game"].to_list(), scores["score"].to_list()):
        final[int(i)].append(int(s))
    rows, spent = [], 0
    for i in sample:
        if spent >= max_steps:
            break
        labels = [lineup[seat_slot(i, s, P, rotate)] for s in range(P)]
        try:
            rows.append(game_kingmaking(lambda: spec.new_game(variant, P, seed, i), labels, final[i], seed, i,
                                        window_per_seat * P, actions))
            spent += rows[-1]["steps"]
        except (KeyError, ValueError) as why:   # a label the step API cannot play, an illegal replay
            raise NotReplayable(f"game {i} could not be replayed through the step API: {why}") from None
    return pl.DataFrame(rows, schema=SCHEMA)


def kingmaking_frame(data: RunData) -> pl.DataFrame:
    """The measurement, once per RunData (the metric and the report section share it)."""
    cache = data.run.__dict__.setdefault("_kingmaking", {})   # the Run: shared by every RunData over it
    if data.n_games not in cache:
        try:
            cache[data.n_games] = measure(data)
        except NotReplayable as why:
            cache[data.n_games] = why
    if isinstance(cache[data.n_games], NotReplayable):
        raise cache[data.n_games]
    return cache[data.n_games]


def kingmaking_values(data: RunData) -> pl.DataFrame:
    """The experiment metric's values: per sampled game, 1 if a decision in it was kingmaking; no rows
    (not measured) for a run of fewer than 3 players or one this engine cannot replay."""
    if data.players_count < 3:
        return select(pl.DataFrame({"game": [], "kingmaking": []}), "all", pl.col("kingmaking"))
    try:
        frame = kingmaking_frame(data)
    except NotReplayable:
        frame = pl.DataFrame(schema=SCHEMA)
    return select(frame, "all", pl.col("kingmaking"))
