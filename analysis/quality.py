"""Game-quality metrics: how a game's race unfolds, generic over the game contract.

A game declares its running score in its analysis module, analysis/<game_id>.py, and takes the
metrics and the report section from here (as analysis/skyline_3000.py does):

    ROUND_SCORES = RoundScores("rounds")   # a table: one row per game, round (1-based) and seat
    METRICS = {..., **quality.metrics(ROUND_SCORES)}     # its experiment metrics
    sections(run): [..., quality.quality_section(run, ROUND_SCORES)]   # the report's "Game quality" section

whose last round's score is the final score (Skyline 3000: engines/skyline_3000 writes the
`rounds` table). From it, per game (so every interval has the game as its unit, and two
variants played on the same seeds pair up game by game):

    lead_changes        times a seat took the lead alone from another seat that had led alone
    decided_round       the round from which the eventual winner led alone to the end
                        (one after the last round at which the winner was not leading alone)
    decided_last_round  1 if the winner was not leading alone before the last round
    leader_wins         per "after round r": share of that round's leaders who won (snowball)
    comeback            1 if the winner was not leading alone at halfway (after round ceil(R/2))
    winner_deficit      how far behind the leader the eventual winner was at worst (points; drama)

Games with a shared win are left out of the winner-based metrics (whose winner?), and stalled
games (the turn cap cut their rounds short) out of all of them. Ties and stalls have their
own generic metrics (tie_rate, stall_rate), and seat uniformity is the seat metrics'
(seat_win_rate, seat_edge); the report's "Game quality" section gathers them all.

Games of different lengths: Skyline 3000 plays a fixed number of rounds, Skyline of the World and
Project Skyline end when a trigger fires, so their games last different numbers of rounds. Each game
is read over its own rounds: after its last round its final standing holds (the score is carried
forward, so no lead changes and no deficit there), "the last round" and "halfway" are the game's
own, and "leader after round r" counts only the games that went on after round r (after a game's
last round the leader is the winner by definition), for the rounds after which at least half of the
games went on (Race.leader_rounds).

Which games: Skyline 3000 (its `rounds` table: points after each Scoring Phase), Skyline of the
World (prestige after each full turn cycle) and Project Skyline (the money track after each round,
the final score after the last) record their running score from their batch kernels; Cityline's points are
counted only when the sheet is scored at the end, and its players do not affect each other's sheets
(default rules; with multiplayer_reroll = "starting_player" seat 0's re-roll changes everyone's dice).

Choice, from the games table of a game that records it (the optional columns n_choices and
sum_legal, engines.core.harness CHOICE_COLUMNS: counted by the batch loop with the legal actions
the step API lists; today Cityline and Skyline 3000), per game:

    real_choice         share of the game's decisions with more than one legal action
    branching_factor    legal actions per decision, averaged over the game's decisions

A game whose table lacks the columns has no rows for them: "not measured", never "no choice".

Kingmaking (games of 3+ players): a counterfactual no result table can answer, measured by
replaying a sample of the run's games through the step API (analysis.kingmaking, which says how).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator

import numpy as np
import polars as pl

from analysis import kingmaking as K, stats
from analysis.frames import (ALL, Metric, RunData, estimate, fair_share, interval_text, pct, select, stall_rate,
                             tie_rate, zero)
from analysis.sections import Finding, Section

CONFIDENCE = 0.95


@dataclass(frozen=True)
class RoundScores:
    """Where a game writes each seat's running score after each round."""

    table: str
    round: str = "round"
    seat: str = "seat"
    score: str = "score"


class _GameLengths:
    """What a race's game lengths say (Race and RaceValues: `game`, `length` [G] and `rounds` R)."""

    @property
    def fixed_length(self) -> bool:
        return bool((self.length == self.rounds).all())

    def going_on(self, round_index: int) -> np.ndarray:
        """bool [G]: the game had rounds after round `round_index` (0-based)."""
        return self.length > round_index + 1

    @property
    def leader_rounds(self) -> int:
        """"Leader after round r" is read for r = 1..this: the rounds after which at least half of the
        games went on (R - 1 when every game plays R). Later rounds describe a shrinking minority of
        long games (a few games, intervals as wide as the scale) rather than the game."""
        return sum(1 for k in range(self.rounds - 1) if len(self.game) and self.going_on(k).mean() >= 0.5)


@dataclass
class Race(_GameLengths):
    """Scores [games, rounds, seats] of the games a race can be read from, and who won. A game
    shorter than R rounds has its last recorded scores carried forward to round R."""

    game: np.ndarray          # game index per row
    scores: np.ndarray        # int [G, R, P]
    win: np.ndarray           # bool [G, P]
    length: np.ndarray | None = None   # int [G]: rounds the game played (None: every game played R)

    def __post_init__(self):
        if self.length is None:
            self.length = np.full(len(self.game), self.scores.shape[1], np.int64)

    @property
    def rounds(self) -> int:
        return self.scores.shape[1]


    @cached_property
    def lead(self) -> np.ndarray:
        """bool [G, R, P]: the seat has the top score after the round (ties: every top seat)."""
        top = self.scores.max(axis=2, keepdims=True)
        return self.scores == top

    @cached_property
    def single(self) -> np.ndarray:
        return self.win.sum(axis=1) == 1

    @cached_property
    def single_winner(self) -> "Race":
        """The games with one winner."""
        sel = self.single
        return Race(self.game[sel], self.scores[sel], self.win[sel], self.length[sel])

    @cached_property
    def winner(self) -> np.ndarray:
        return self.win.argmax(axis=1)


def race_from_frames(rounds: pl.DataFrame, players: pl.DataFrame, games: pl.DataFrame,
                     spec: RoundScores, n_rounds: int | None = None, n_seats: int | None = None) -> Race:
    """The race of every game that was not stalled, from the declared round-score table (R and P
    from the frames unless given: a slice of a run is given the whole run's)."""
    keep = games.filter(pl.col("stalled") == 0)["game"] if "stalled" in games.columns else games["game"]
    rounds = rounds.filter(pl.col("game").is_in(keep.implode()))
    players = players.filter(pl.col("game").is_in(keep.implode()))
    ids = np.sort(players["game"].unique().to_numpy())
    if n_seats is None:
        n_seats = int(players["seat"].max()) + 1 if players.height else 0
    if n_rounds is None:
        n_rounds = int(rounds[spec.round].max()) if rounds.height else 0
    scores = np.zeros((len(ids), n_rounds, n_seats), np.int32)   # int32: half int64's memory
    gi = np.searchsorted(ids, rounds["game"].to_numpy())
    rnd = rounds[spec.round].to_numpy().astype(np.int64)
    scores[gi, rnd - 1, rounds[spec.seat].to_numpy().astype(np.int64)] = rounds[spec.score].to_numpy()
    length = np.zeros(len(ids), np.int64)
    np.maximum.at(length, gi, rnd)
    for k in range(1, n_rounds):  # a game's final standing holds after its last round
        over = length <= k
        scores[over, k] = scores[over, k - 1]
    win = np.zeros((len(ids), n_seats), bool)
    pi = np.searchsorted(ids, players["game"].to_numpy())
    win[pi, players["seat"].to_numpy().astype(np.int64)] = players["win"].to_numpy() > 0
    return Race(ids, scores, win, length)


def _slice_rows(run: RunData, table: str, columns: list[str], low: int) -> pl.DataFrame:
    """The columns (those the table has) of games low .. low + UNIT_SLICE - 1 below run.n_games."""
    scan = run.run.scan(table)
    names = scan.collect_schema().names()
    high = min(low + stats.UNIT_SLICE, run.n_games) - 1
    return scan.select([c for c in columns if c in names]).filter(pl.col("game").is_between(low, high)).collect()


def race(run: RunData, spec: RoundScores) -> "RaceValues | None":
    """The per-game values of the run's race, read stats.UNIT_SLICE games at a time from the three
    columns of each table it needs: the dense race of a slice is dropped once its values are kept."""
    if spec.table not in run.run.tables():  # a run folder written before the table
        return None
    cache = run.__dict__.setdefault("_race", {})
    if "race" not in cache:
        n_rounds = (run.run.scan(spec.table).filter(pl.col("game") < run.n_games)
                    .select(pl.col(spec.round).max()).collect().item())
        parts = [RaceValues.of(race_from_frames(
                     _slice_rows(run, spec.table, ["game", spec.round, spec.seat, spec.score], low),
                     _slice_rows(run, "players", ["game", "seat", "win"], low),
                     _slice_rows(run, "games", ["game", "stalled"], low),
                     spec, n_rounds=int(n_rounds or 0), n_seats=run.players_count))
                 for low in range(0, max(run.n_games, 1), stats.UNIT_SLICE)]
        cache["race"] = RaceValues.concat(parts)
    return cache["race"]


# --- per-game values (numpy over a Race) ------------------------------------------------

def lead_changes_values(r: Race) -> np.ndarray:
    """Times a seat took the lead alone from another seat that had led alone (a tie on the way
    counts no change of its own: leader A, then A and B level, then B alone is one change)."""
    lead = r.lead
    alone = lead.sum(axis=2) == 1
    leader = lead.argmax(axis=2)
    last = np.full(len(r.game), -1)
    changes = np.zeros(len(r.game))
    for k in range(r.rounds):
        changes += alone[:, k] & (last >= 0) & (leader[:, k] != last)
        last = np.where(alone[:, k], leader[:, k], last)
    return changes


def _winner_leads(r: Race) -> np.ndarray:
    """bool [G, R]: the (single) winner leads alone after the round (a lead shared with another seat,
    e.g. everyone still at the start score, is not a lead); after the last round the winner leads by
    definition (a tie on points settled by a tie-break)."""
    lead = r.lead
    alone = lead[np.arange(len(r.game)), :, r.winner] & (lead.sum(axis=2) == 1)
    alone |= np.arange(r.rounds)[None, :] >= (r.length - 1)[:, None]   # the game's last round, and on
    return alone


def decided_round_values(r: Race) -> np.ndarray:
    """1 + the last round at which the winner was not leading (1: led from the first round)."""
    behind = ~_winner_leads(r)
    last = r.rounds - 1 - np.argmax(behind[:, ::-1], axis=1)     # 0-based index of the last such round
    return np.where(behind.any(axis=1), last + 2, 1).astype(float)


def halfway(rounds: int) -> int:
    return max(1, math.ceil(rounds / 2))


def comeback_values(r: Race) -> np.ndarray:
    half = np.maximum(1, (r.length + 1) // 2) - 1   # halfway(length) - 1, per game
    return (~_winner_leads(r)[np.arange(len(r.game)), half]).astype(float)


def winner_deficit_values(r: Race) -> np.ndarray:
    top = r.scores.max(axis=2)
    mine = r.scores[np.arange(len(r.game)), :, r.winner]
    return (top - mine).max(axis=1).astype(float)


def leader_wins_values(r: Race, round_index: int) -> np.ndarray:
    lead = r.lead[:, round_index, :]
    return (lead & r.win).sum(axis=1) / lead.sum(axis=1)


def _frame(game, key: str, value) -> pl.DataFrame:
    """(game, key, value) rows, every row under the one key."""
    return pl.DataFrame({"game": np.asarray(game, np.int64), "value": np.asarray(value, float)},
                        schema={"game": pl.Int64, "value": pl.Float64}).select(
        "game", pl.lit(key, pl.Utf8).alias("key"), "value")


def _empty() -> pl.DataFrame:
    return _frame([], ALL, [])


def _single(values: str, spec: RoundScores):
    """A metric of the single-winner games: RaceValues' per-game `values`."""
    def compute(run: RunData) -> pl.DataFrame:
        v = race(run, spec)
        if v is None:
            return _empty()
        return _frame(v.game[v.single], ALL, getattr(v, values)[v.single])
    return compute


def lead_changes(run: RunData, spec: RoundScores) -> pl.DataFrame:
    v = race(run, spec)
    return _empty() if v is None else _frame(v.game, ALL, v.lead_changes)


def leader_wins(run: RunData, spec: RoundScores) -> pl.DataFrame:
    v = race(run, spec)
    return _empty() if v is None else leader_wins_frame(v)


def leader_wins_frame(r: "Race | RaceValues") -> pl.DataFrame:
    """Per game and "after round r": did the leader win (tied leaders share); a game counts after
    round r only if it went on after it."""
    parts = list(leader_wins_frames(r))
    return pl.concat(parts) if parts else _empty()


def leader_wins_frames(r: "Race | RaceValues") -> Iterator[pl.DataFrame]:
    """leader_wins_frame one round at a time (the report estimates each round's alone: a million
    games that last a dozen rounds would otherwise hold a dozen million rows)."""
    v = r if isinstance(r, RaceValues) else RaceValues.of(r)
    for k in range(v.leader_rounds):
        on = v.going_on(k)
        if on.any():
            yield _frame(v.game[on], after_round(k + 1), v.leader_wins(k)[on])


def after_round(k: int) -> str:
    return f"after round {k}"


def _round_order(key: str) -> int:
    """Rows in round order ("after round 2" before "after round 10"); other keys first."""
    return int(key.rsplit(" ", 1)[1]) if key.startswith("after round ") else 0


@dataclass
class RaceValues(_GameLengths):
    """What the metrics and verdicts read of a race, per game: the values above, the winner-based
    ones NaN for a shared win, and each round's leaders and winning leaders (exact counts, so the
    share is computed as from the race). A million long games' dense race does not fit in memory,
    these do: `race` keeps them slice by slice."""

    game: np.ndarray            # [G]
    length: np.ndarray          # [G] rounds the game played
    rounds: int                 # R
    single: np.ndarray          # bool [G]: one winner
    lead_changes: np.ndarray    # [G]
    decided_round: np.ndarray   # [G], NaN for a shared win
    comeback: np.ndarray        # [G], NaN for a shared win
    winner_deficit: np.ndarray  # [G], NaN for a shared win
    leaders: np.ndarray         # int8 [G, R]: seats leading after each round (ties: all of them)
    winning_leaders: np.ndarray  # int8 [G, R]: of those, the ones who won

    @classmethod
    def of(cls, r: Race) -> "RaceValues":
        single = r.single
        winner_based = {}
        for name, values_of in (("decided_round", decided_round_values), ("comeback", comeback_values),
                                ("winner_deficit", winner_deficit_values)):
            values = np.full(len(r.game), np.nan)
            values[single] = values_of(r.single_winner)
            winner_based[name] = values
        leaders = r.lead.sum(axis=2).astype(np.int8)
        winning_leaders = (r.lead & r.win[:, None, :]).sum(axis=2).astype(np.int8)
        return cls(r.game, r.length, r.rounds, single, lead_changes_values(r), leaders=leaders,
                   winning_leaders=winning_leaders, **winner_based)

    @classmethod
    def concat(cls, parts: list["RaceValues"]) -> "RaceValues":
        arrays = {name: np.concatenate([getattr(part, name) for part in parts])
                  for name in ("game", "length", "single", "lead_changes", "decided_round", "comeback",
                               "winner_deficit", "leaders", "winning_leaders")}
        return cls(rounds=parts[0].rounds, **arrays)


    def leader_wins(self, round_index: int) -> np.ndarray:
        """As leader_wins_values."""
        return self.winning_leaders[:, round_index] / self.leaders[:, round_index]

    @property
    def decided_last(self) -> np.ndarray:
        return np.where(self.single, (self.decided_round == self.length).astype(float), np.nan)


def metrics(spec: RoundScores) -> dict[str, Metric]:
    """The quality metrics of a game whose running score per round is where `spec` says (its
    analysis module declares ROUND_SCORES and adds these to its METRICS). A leader who wins no more
    often than an average seat wins 1/P (more with shared wins): the snowball's reference."""
    return {m.name: m for m in (
        Metric("lead_changes", "times per game a seat took the lead alone from another that had led alone (running score "
               "after each round; a tie on the way is no change of its own)",
               "mean", lambda run: lead_changes(run, spec), min_players=2),
        Metric("decided_round", "the round from which the eventual winner led alone to the end; "
               "1 + the last round at which the winner was not leading alone; shared wins left out", "mean",
               _single("decided_round", spec), min_players=2),
        Metric("decided_last_round", "share of games whose winner was not leading alone before the last round "
               "(decided late); shared wins left out", "proportion", _single("decided_last", spec), min_players=2),
        Metric("leader_wins", "per round r: share of games won by the player leading after round r "
               "(snowball; tied leaders share the game)", "proportion", lambda run: leader_wins(run, spec), reference=fair_share,
               min_players=2),
        Metric("comeback", "share of games won by a player who was not leading alone at halfway (after round ceil(R/2)); "
               "shared wins left out", "proportion", _single("comeback", spec), min_players=2),
        Metric("winner_deficit", "points the eventual winner was behind the leader at worst (0: led throughout; "
               "drama); shared wins left out", "mean", _single("winner_deficit", spec), reference=zero,
               min_players=2),
    )}


# --- choice (games columns n_choices, sum_legal) and kingmaking: every game ---------------------

CHOICE_COLUMNS = ("n_choices", "sum_legal")   # engines.core.harness CHOICE_COLUMNS (no numba import here)


def _choice_games(run: RunData) -> pl.DataFrame | None:
    games = run.table("games")
    if not set(CHOICE_COLUMNS) <= set(games.columns):
        return None
    return games.filter(pl.col("decisions") > 0)


def real_choice(run: RunData) -> pl.DataFrame:
    """Per game: the share of its decisions with more than one legal action (no rows: not recorded)."""
    games = _choice_games(run)
    return _empty() if games is None else select(games, ALL, pl.col("n_choices") / pl.col("decisions"))


def branching_factor(run: RunData) -> pl.DataFrame:
    """Per game: legal actions per decision, averaged over its decisions (no rows: not recorded)."""
    games = _choice_games(run)
    return _empty() if games is None else select(games, ALL, pl.col("sum_legal") / pl.col("decisions"))


CHOICE_METRICS = {m.name: m for m in (
    Metric("real_choice", "share of a game's decisions that offered more than one legal action (per game, "
           "then averaged over games); only for games that record it (games.n_choices)", "proportion", real_choice),
    Metric("branching_factor", "legal actions per decision, averaged over a game's decisions (a Skyline 3000 bid "
           "counts every subset of the hand); only for games that record it (games.sum_legal)", "mean",
           branching_factor),
    Metric("kingmaking", f"share of sampled games (the first {K.GAMES} not stalled, replayed through the step API) "
           "in which a player who could win with none of the tried actions changed who won by their choice; a "
           "lower bound (analysis.kingmaking)", "proportion", K.kingmaking_values, min_players=3),
)}


def forced_verdict(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[bool, tuple[float, float, float]]:
    """"Mostly forced": the games' mean share of decisions with a real choice is below 50%, said only
    when the interval's upper end is (Student t over the per-game shares)."""
    est = bonferroni_lower(values, 1, confidence)
    return bool(est[2] < 0.5), est


def kingmaking_verdict(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[bool, tuple[float, float, float]]:
    """"Kingmaking seen": the Wilson interval of the per-game 0/1 values excludes 0 (every counted
    game is an observed case, so this is said only when one was found)."""
    est = bonferroni_lower(values, 1, confidence)
    return bool(est[1] > 0), est


def choice_figures(data: RunData) -> dict:
    """The choice and kingmaking sentences, table rows and findings (empty parts when not measured)."""
    rows, sentences, findings = [], [], []
    share, branching = real_choice(data), branching_factor(data)
    if share.height:
        forced, (est, low, high) = forced_verdict(share["value"].to_numpy())
        b = estimate(CHOICE_METRICS["branching_factor"], branching, CONFIDENCE).row(0, named=True)
        rows.append(_row("real_choice", share.height, est, low, high))
        rows.append(_row("branching_factor", b["n"], b["estimate"], b["low"], b["high"]))
        text = (f"On average {_pct(est)} of a game's decisions offered more than one legal action (95% CI "
                f"{_ci(low, high, clip=(0, 1))}), with {b['estimate']:.1f} legal actions per decision (95% CI "
                f"{_ci(b['low'], b['high'], unit='', scale=1)}).")
        if forced:
            text = "Mostly forced moves: " + text[0].lower() + text[1:]
            findings.append(Finding(text, 53.0))
        sentences.append(text)
    else:
        sentences.append("Choice: not measured (this game's batch loop does not record its legal-action counts, "
                         "games.n_choices and sum_legal).")
    if data.players_count >= 3:
        try:
            frame = K.kingmaking_frame(data)
        except K.NotReplayable as why:
            sentences.append(f"Kingmaking: not measured ({why}).")
        else:
            if frame.height:
                seen, (est, low, high) = kingmaking_verdict(frame["kingmaking"].to_numpy().astype(float))
                rows.append(_row("kingmaking", frame.height, est, low, high))
                what = (f"in {_pct(est)} of {frame.height} sampled games (95% CI {_ci(low, high, clip=(0, 1))}) a "
                        "player who could win with none of the tried actions changed who won by their choice")
                how = (f"(each game replayed, the last {K.WINDOW_PER_SEAT} decisions per seat tried with up to "
                       f"{K.ACTIONS} actions each: a lower bound)")
                text = f"Kingmaking seen: {what} {how}." if seen else f"No kingmaking found: {what} {how}."
                sentences.append(text)
                if seen:
                    findings.append(Finding(text, 52.0))
    return {"rows": rows, "sentences": sentences, "findings": findings}


def quality_table(rows: list[dict], race_metrics: dict[str, Metric] | None = None) -> pl.DataFrame:
    """The metrics' table: a share of games (its interval under 'share 95% low/high', printed as a
    percentage) in its own columns, apart from a mean per game (the report printed leader_wins 0.6367 in
    one 'estimate' column with the lead changes per game)."""
    kinds = {name: m.kind for name, m in {**CHOICE_METRICS, **(race_metrics or {})}.items()}
    kinds.update(tie_rate="proportion", stall_rate="proportion")
    out = []
    for row in rows:
        share = kinds.get(row["metric"]) == "proportion"
        values = (row["estimate"], row["95% low"], row["95% high"])
        out.append({"metric": row["metric"], "key": row["key"], "games": row["games"],
                    **dict(zip(("share of games", "share 95% low", "share 95% high"),
                               values if share else (None,) * 3)),
                    **dict(zip(("mean", "95% low", "95% high"), (None,) * 3 if share else values))})
    schema = {"metric": pl.String, "key": pl.String, "games": pl.Int64, "share of games": pl.Float64,
              "share 95% low": pl.Float64, "share 95% high": pl.Float64, "mean": pl.Float64,
              "95% low": pl.Float64, "95% high": pl.Float64}
    return pl.DataFrame(out, schema=schema)


def _row(metric: str, n: int, est: float, low: float, high: float) -> dict:
    return {"metric": metric, "key": ALL, "games": n, "estimate": est, "95% low": low, "95% high": high}


# --- verdicts (each checked in tests/analysis/test_null_quality.py) ---------------------------

def bonferroni_lower(values: np.ndarray, families: int, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Mean and interval of 0/1 (or 0..1) per-game values, simultaneous over `families` (Bonferroni):
    Wilson when every value is 0/1, else Student t (analysis.metrics.estimate)."""
    level = 1 - (1 - confidence) / max(1, families)
    metric = Metric("_", "", "proportion", lambda run: None)
    est = estimate(metric, _frame(np.arange(len(values)), "x", values), level)
    if not est.height:
        return float("nan"), float("nan"), float("nan")
    row = est.row(0, named=True)
    return row["estimate"], row["low"], row["high"]


@dataclass
class RaceVerdicts:
    runaway_round: int | None        # the earliest round after which the leader wins most games, shown
    runaway: tuple[float, float, float] | None
    decided_late: bool
    late: tuple[float, float, float]
    decided_early: bool
    early: tuple[float, float, float]


def race_verdicts(r: "Race | RaceValues", confidence: float = CONFIDENCE) -> RaceVerdicts:
    """"Runaway leader": the leader after some round r < R wins more than half of the games, the
    interval's lower end above 50% (Bonferroni over the R-1 rounds). "Decided late": more than half of
    the single-winner games were won by a player not leading alone before the last round; "decided
    early": more than half by the player leading alone from round 1 on. Each is said only when the
    interval excludes 50%."""
    v = r if isinstance(r, RaceValues) else RaceValues.of(r)
    runaway_round, runaway = None, None
    for k in range(v.leader_rounds):
        values = v.leader_wins(k)[v.going_on(k)]
        values = values[np.isfinite(values)]
        est = bonferroni_lower(values, v.leader_rounds, confidence)
        if est[1] > 0.5:
            runaway_round, runaway = k + 1, est
            break
    decided = v.decided_round[v.single]
    late = bonferroni_lower((decided == v.length[v.single]).astype(float), 2, confidence)
    early = bonferroni_lower((decided == 1).astype(float), 2, confidence)
    return RaceVerdicts(runaway_round, runaway, late[1] > 0.5, late, early[1] > 0.5 and v.rounds > 1, early)


def outcome_figures(data: RunData, confidence: float = CONFIDENCE) -> dict:
    """Ties and stalls with their intervals over games (the generic tie_rate and stall_rate metrics,
    Wilson), and the range of the seats' win rates in turn order: a description only (a range of
    estimates has no honest interval at an even game: it is above 0 by chance alone); whether a seat's
    edge is more than chance is the seat section's test."""
    rows, parts = [], []
    for name, compute in (("tie_rate", tie_rate), ("stall_rate", stall_rate)):
        row = estimate(Metric(name, "", "proportion", compute), compute(data), confidence).row(0, named=True)
        rows.append({"metric": name, "key": ALL, "games": row["n"], "estimate": row["estimate"],
                     "95% low": row["low"], "95% high": row["high"]})
        parts.append(row)
    rates = data.seats("win").group_by("position").agg(pl.col("win").cast(pl.Float64).mean().alias("rate"))["rate"]
    tie, stall = parts
    sentence = (f"Ties: {_pct(tie['estimate'])} of games shared the win (95% CI "
                f"{_ci(tie['low'], tie['high'], clip=(0, 1))}); stalls: {_pct(stall['estimate'])} (95% CI "
                f"{_ci(stall['low'], stall['high'], clip=(0, 1))}). The seats in turn order won between "
                f"{_pct(rates.min())} and {_pct(rates.max())} of games (whether that is more than chance: "
                f"the seat section).")
    return {"rows": rows, "sentence": sentence}


_pct, _ci = pct, interval_text


CHOICE_METHOD = ("Choice: per game, the share of its decisions with more than one legal action and the legal "
                 "actions per decision (counted by the batch loop as the step API lists them), then averaged over "
                 "games (Student t); \"mostly forced\" is said only when the interval's upper end is below 50%.")


def quality_section(run, spec: RoundScores | None) -> Section | None:
    """The report's "Game quality" section: the race from the running score the game declares
    (`spec`; None: the game has none, e.g. Cityline), choice and kingmaking where measured, ties and
    stalls; None for a solo run."""
    if run.n_players < 2:
        return None
    data = RunData(run.path, run.games_done)
    data.__dict__["run"] = run
    generic = choice_figures(data)
    if spec is None:
        outcome = outcome_figures(data)
        text = " ".join(generic["sentences"] + [outcome["sentence"]]) + "\n\n" + CHOICE_METHOD
        return Section("Game quality", text, [("Game-quality metrics (per game, game as unit)",
                                               quality_table(generic["rows"] + outcome["rows"]))],
                       findings=generic["findings"])
    if spec.table not in run.tables():
        return Section("Game quality", f"This run folder has no `{spec.table}` table (the running score per "
                       "round; written by engines newer than this run): run the games again for these figures.")
    r = race(data, spec)
    if r is None or len(r.game) == 0 or r.rounds < 2:
        return Section("Game quality", "Too few games (or rounds) that were not stalled to read the race from.")
    rows, sentences, findings = [], [], []
    for name, metric in metrics(spec).items():
        # each key's rows apart (the estimate is per key): leader_wins has one key per round
        frames = leader_wins_frames(r) if name == "leader_wins" else [metric.compute(data)]
        est = pl.concat([estimate(metric, frame, CONFIDENCE) for frame in frames] or [estimate(metric, _empty())])
        for row in sorted(est.iter_rows(named=True), key=lambda row: _round_order(row["key"])):
            rows.append({"metric": name, "key": row["key"], "games": row["n"], "estimate": row["estimate"],
                         "95% low": row["low"], "95% high": row["high"]})
    v = race_verdicts(r)
    fair = fair_share(data)
    est_of = {(row["metric"], row["key"]): row for row in rows}
    first = est_of.get(("leader_wins", after_round(1)))
    if first is not None and v.runaway_round != 1:   # (else the runaway sentence says it)
        sentences.append(f"The player leading after round 1 went on to win {_pct(first['estimate'])} of games "
                         f"(95% CI {_ci(first['95% low'], first['95% high'], clip=(0, 1))}); a seat at random "
                         f"wins {_pct(fair)}.")
    if v.runaway_round is not None:
        est, low, high = v.runaway
        text = (f"Runaway leader: whoever leads after round {v.runaway_round} wins most games, "
                f"{_pct(est)} of them (simultaneous 95% CI {_ci(low, high, clip=(0, 1))}; a seat at random "
                f"wins {_pct(fair)}).")
        sentences.append(text)
        findings.append(Finding(text, 55.0))
    if v.decided_late:
        est, low, high = v.late
        text = (f"Decided late: in {_pct(est)} of games (95% CI {_ci(low, high, clip=(0, 1))}) the winner was "
                f"not leading alone before the last round.")
        sentences.append(text)
        findings.append(Finding(text, 54.0))
    elif v.decided_early:
        est, low, high = v.early
        text = (f"Decided early: in {_pct(est)} of games (95% CI {_ci(low, high, clip=(0, 1))}) the winner "
                f"led alone from round 1 to the end.")
        sentences.append(text)
        findings.append(Finding(text, 54.0))
    else:
        sentences.append(f"The winner led alone from round 1 on in {_pct(v.early[0])} of games (95% CI "
                         f"{_ci(v.early[1], v.early[2], clip=(0, 1))}) and was not leading alone before the last "
                         f"round in {_pct(v.late[0])} (95% CI {_ci(v.late[1], v.late[2], clip=(0, 1))}).")
    cb = est_of.get(("comeback", ALL))
    if cb is not None:
        when = (f"after round {halfway(r.rounds)} of {r.rounds}" if r.fixed_length else
                "at halfway (after round ceil(R/2) of the game's own R rounds)")
        sentences.append(f"Comebacks: {_pct(cb['estimate'])} of games (95% CI "
                         f"{_ci(cb['95% low'], cb['95% high'], clip=(0, 1))}) were won by a player not leading alone "
                         f"{when}.")
    lc = est_of.get(("lead_changes", ALL))
    dd = est_of.get(("winner_deficit", ALL))
    if lc is not None and dd is not None:
        sentences.append(f"The lead changed hands {lc['estimate']:.2f} times per game on average (95% CI "
                         f"{_ci(lc['95% low'], lc['95% high'], unit='', scale=1, digits=2)}); at worst the "
                         f"eventual winner was {dd['estimate']:.1f} points behind the leader on average (95% CI "
                         f"{_ci(dd['95% low'], dd['95% high'], unit=' points', scale=1)}).")
    outcome = outcome_figures(data)
    rows += generic["rows"] + outcome["rows"]
    sentences += generic["sentences"] + [outcome["sentence"]]
    findings += generic["findings"]
    table = quality_table(rows, metrics(spec))
    n_single = int(r.single.sum())
    rounds_text = (f"each of the {r.rounds} rounds" if r.fixed_length else
                   f"each round (games lasted {int(r.length.min())} to {int(r.length.max())} rounds, median "
                   f"{float(np.median(r.length)):g}; after a game's last round its final standing holds, and "
                   "'leader after round r' counts the games still going after round r, for the "
                   f"{r.leader_rounds} rounds after which at least half of the games went on)")
    method = (f"From the running score after {rounds_text} (table `{spec.table}`), over "
              f"{len(r.game):,} game{'' if len(r.game) == 1 else 's'} not stalled ({n_single:,} with a single "
              "winner, which the "
              "winner-based figures use). Intervals have the game as unit: Wilson for shares, Student t for "
              "means; the verdicts (runaway leader, decided late or early) are said only when the interval's "
              "lower end is above 50%, simultaneous over the rounds (Bonferroni). " + CHOICE_METHOD)
    text = " ".join(sentences) + "\n\n" + method
    return Section("Game quality", text, [("Game-quality metrics (per game, game as unit)", table)],
                   findings=findings)
