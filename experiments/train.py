"""`skyline-lab train GAME`: learn a game's expert (engines.core.expert) by expert iteration.

Each iteration

  1. plays `games` games with the search player in every seat (`search(iterations=budget)`,
     rolling out the heuristic in the first iteration, the best expert so far after it), and
     records for every decision the features of the mover's outcome (the game's
     `afterstate_nb`: a determinized copy, the chosen action applied, the mover's features)
     and, once the game ends, the mover's final score as the target. With `roll_in` "expert"
     (--roll-in expert) the games after the first iteration are played by the best expert so far
     instead, and the search (rolling out the heuristic) labels every decision without playing it
     (DAgger): the expert learns what the search would do where its own play goes;
  2. fits the expert's weights to every row recorded so far by ridge least squares (numpy),
     its quality the R^2 on the last fifth of the games (held out of the fit, then refitted on all);
  3. with `tune_trials` > 0 (--tune-trials), improves the fitted weights by play: optuna's seeded
     TPE sampler moves every weight but the bias, each by at most `tune_range` (--tune-range,
     default TUNE_RANGE) in the utility per standard deviation of its feature (the fit's own rows:
     a feature that is rarely nonzero has a small spread, so a wider range lets its weight reach
     a size that changes play), the fit itself the first trial, to
     raise the expert's mean score margin over the heuristic on games of their own (run seed =
     plan seed + TUNE_SEED_OFFSET, never the evaluation's games). The imitation cannot learn a
     plan whose steps the search takes at one of many equivalent moments (Skyline of the World's
     trade-in of three bonus cards, made at any step of a turn: at every other step the fit reads
     the search as declining it); play can. The tuned weights are kept only when they also beat
     the fit on the evaluation games (step 4), which they never saw;
  3b. with `self_tune_trials` > 0 (--self-tune-trials), tunes the kept weights once more, the same
     way, against themselves: at half the seats the weights being tuned, at the other half the
     weights the step starts from (run seed = plan seed + TUNE_SEED_OFFSET + 1). The heuristic is a
     weak table: weights tuned against it learn what pays against its play (an opening its seats
     punish less than the expert's own do: Skyline 3000's first builder installing at once costs
     it 10.6 points a game against three heuristics, 19.8 against three experts; README,
     expert_waits); against themselves they learn what
     pays against the play they make. Kept only when they beat the weights they started from on
     the evaluation games, the margin's 95% interval above 0. A row tuned against one opponent can
     also learn to exploit it, so a self-tuned model is judged on the ladder (the README has what it
     did for Skyline of the World, whose model it lifted, and for Skyline 3000, whose it did not).
     With `self_tune_table` "mixed" (--self-tune-table mixed) the other half of the seats are the
     start weights and the heuristic in turn (4 players: tuned, start, tuned, heuristic, and the
     two swapped in the second half of the games, so that 2 and 3 players meet both): a row that
     learns to exploit one opponent loses to the other. Kept only when it beats the start's margin
     against the same table on the evaluation games by more than the difference's 95% interval.
     `self_tune_players` (--self-tune-players 4) plays this step at some of the player counts only
     (its tuning and its judging; step 4 still judges at all of them);
  4. plays the new expert against the heuristic (expert, heuristic, expert, heuristic, seats
     rotating, the same games every iteration) and keeps it when its mean score margin over
     the heuristic beats the best so far; it stops after the first iteration that does not.

A plan trains on one setting or on several: `variant` and `sets` (the `run` command's --variant
and --set) apply to every game; each of `mixes` (--mix "KEY=VALUE ...") is one setting of the
mixture on top of them, and `players` may hold several counts (--players 2,3,4). The cells are
every (mix, player count) pair, mixes outer; search game number i plays cell i mod (number of
cells), and the evaluation games are split evenly over the cells (a cell's games a range of its
own), the margin the cells' mean. A plan of one cell plays exactly the games it played before
mixes existed.

Everything lives in a run-like folder: train.json (the plan and one entry per finished
iteration), data_NNN.npz (the rows of iteration NNN), model_NNN.toml, and expert.toml (the best
model). A rerun with the same plan resumes after the last finished iteration; a folder of another
plan is refused, and so is a folder the trainer did not make (or a second trainer on one folder:
a writer lock, as a run folder has); no file the trainer did not write is touched. Every draw comes from the seed:
the same plan gives the same files.
"""
from __future__ import annotations

import json
import math
import re
import shlex
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from analysis import runfolder
from engines.core.expert import ExpertModel, load_model, model_text, model_weights
from engines.core.lineup import make_lineup, policy_row
from engines.core.rng import new_stream
from engines.core.search import SEARCH_HEAD
from engines.core.variant import Variant, VariantError, parse_override
from engines.registry import get_game
from experiments.runner import rules_options

MANIFEST = "train.json"
TRAIN_FILES = {MANIFEST, "expert.toml", runfolder.LOCK}
TRAIN_FILE_RE = re.compile(r"^(data_\d{3}\.npz|model_\d{3}\.toml)$")   # and TRAIN_FILES: all it writes
RECORD_STREAM = 1_000   # the recorder's own chance stream per game (never a seat's policy stream)
EVAL_SEED_OFFSET = 1    # the evaluation games' run seed: plan seed + this
TUNE_SEED_OFFSET = 1_000_003   # the tuning games' plan seed: plan seed + this (their run seed one more)
TUNE_RANGE = 1.5        # the most a tuned weight moves by default: in the utility, per standard deviation of its feature
MAX_TUNE_RANGE = 20.0   # more is a typo: 20 standard deviations already swamp every other term of the utility


TARGETS = ("choice", "score")
# who plays the recorded games after the first iteration (the search labels every decision either way)
ROLL_INS = ("search", "expert")
# who sits at the other half of the seats when the weights are tuned again (step 3b)
SELF_TUNE_TABLES = ("self", "mixed")
# the most a plan may ask for: more is a typo (a search game costs seconds; the budget is the
# search policy's own iterations range)
TRAIN_LIMITS = {"iterations": 1_000, "games": 10_000_000, "budget": 100_000, "eval_games": 10_000_000}
MAX_TUNE_TRIALS = 10_000


class TrainError(ValueError):
    pass


def parse_players(text: str, option: str = "--players") -> tuple[int, ...]:
    """`--players 4` or `--players 2,3,4` -> (4,) or (2, 3, 4)."""
    try:
        counts = tuple(int(x) for x in str(text).split(","))
    except ValueError:
        raise TrainError(f"{option} takes a count or counts separated by commas (2,3,4), not '{text}'") from None
    return counts


def mix_overrides(mix: str) -> dict:
    """One --mix's rule changes: KEY=VALUE pairs separated by spaces (a value with spaces quoted)."""
    try:
        words = shlex.split(mix)
    except ValueError as exc:
        raise VariantError(f"--mix {mix}", mix, f"cannot be read ({exc})") from None
    if not words:
        raise VariantError(f"--mix {mix!r}", mix, "a mix must change at least one rule, e.g. --mix map=tokyo")
    out = {}
    for word in words:
        try:
            key, value = parse_override(word)
        except VariantError as exc:   # it names --set, the option it was written for
            raise VariantError(f"--mix {mix}", exc.key, exc.reason) from None
        if key in out:
            raise VariantError(f"--mix {mix}", key, "set twice in one mix")
        out[key] = value
    return out


@dataclass(frozen=True)
class Cell:
    """One setting of a training mixture: its --mix text ("": none), rules and player count."""

    mix: str
    variant: Variant
    players: int

    @property
    def label(self) -> str:
        return f"{self.mix or self.variant.name} {self.players}p"


@dataclass(frozen=True)
class TrainPlan:
    game: str
    players: tuple[int, ...] = (4,)  # player counts (an int is one)
    seed: int = 0
    iterations: int = 3        # at most
    games: int = 100           # search games per iteration (all cells)
    budget: int = 20           # the search player's play-outs per decision
    eval_games: int = 2000     # expert vs heuristic games per iteration (all cells)
    ridge: float = 1e-3        # ridge penalty (per row) on the weights, the bias excepted
    target: str = "choice"     # what is fitted: "choice" (the search's choices) or "score" (the final score)
    variant: str | None = None  # every game's variant (name or file; None: the default)
    sets: tuple[str, ...] = ()  # every game's rule changes (--set KEY=VALUE)
    mixes: tuple[str, ...] = ()  # the mixture's settings on top (--mix "KEY=VALUE ..."); (): one
    tune_trials: int = 0       # weight rows tried when tuning the fit by play (0: the fit as it is)
    self_tune_trials: int = 0  # weight rows tried when tuning them again against themselves (0: not)
    self_tune_table: str = "self"  # step 3b's opponents: "self" (the start weights) or "mixed" (and the heuristic)
    self_tune_players: tuple[int, ...] = ()  # step 3b's player counts (some of `players`; (): all of them)
    roll_in: str = "search"    # who plays the games recorded after iteration 0: "search" or "expert" (DAgger)
    tune_range: float = TUNE_RANGE  # the most the tuning moves a weight, per standard deviation of its feature

    def __post_init__(self):
        players = (self.players,) if isinstance(self.players, int) else tuple(int(p) for p in self.players)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "self_tune_players", tuple(int(p) for p in self.self_tune_players))
        object.__setattr__(self, "sets", tuple(self.sets))
        object.__setattr__(self, "mixes", tuple(self.mixes))

    def check(self) -> None:
        spec = _expert_spec(self.game)
        if not self.players:
            raise TrainError("players must name at least one player count")
        for p in self.players:
            if p < 2:
                raise TrainError(f"players must be at least 2 (the expert is measured against the heuristic), not {p}")
            if not spec.min_players <= p <= spec.max_players:
                raise TrainError(f"{spec.title} is for {spec.min_players}-{spec.max_players} players, not {p}")
        for name, items in (("players", self.players), ("mix", self.mixes),
                            ("self-tune-players", self.self_tune_players)):
            twice = sorted({str(x) for x in items if items.count(x) > 1})
            if twice:
                raise TrainError(f"--{name} {twice[0]} is given twice (each setting once)")
        for name, most in TRAIN_LIMITS.items():
            if not 1 <= getattr(self, name) <= most:
                raise TrainError(f"{name} must be at least 1, not {getattr(self, name)}" if getattr(self, name) < 1
                                 else f"{name} must be at most {most:,}, not {getattr(self, name):,}")
        if not 0 <= self.seed < 2**63:   # the run seed's range everywhere (run, ladder, tune)
            raise TrainError(f"seed must be >= 0, not {self.seed}" if self.seed < 0
                             else f"seed must be at most 2**63-1, not {self.seed}")
        for name in ("tune_trials", "self_tune_trials"):
            if not 0 <= getattr(self, name) <= MAX_TUNE_TRIALS:
                raise TrainError(f"{name} must be between 0 (no tuning) and {MAX_TUNE_TRIALS:,}, "
                                 f"not {getattr(self, name)}")
        if not self.self_tune_trials and (self.self_tune_table != "self" or self.self_tune_players):
            raise TrainError("self_tune_table and self_tune_players shape the tuning against itself: give "
                             "self_tune_trials too (--self-tune-trials N)")
        for p in self.self_tune_players:
            if p not in self.players:
                raise TrainError(f"self_tune_players must be some of the players ({','.join(map(str, self.players))}), "
                                 f"not {p}")
        if self.self_tune_table not in SELF_TUNE_TABLES:
            raise TrainError(f"self_tune_table must be one of {', '.join(SELF_TUNE_TABLES)}, "
                             f"not '{self.self_tune_table}'")
        if not (math.isfinite(self.tune_range) and 0 < self.tune_range <= MAX_TUNE_RANGE):
            raise TrainError(f"tune_range must be above 0 and at most {MAX_TUNE_RANGE:g} (standard deviations of "
                             f"a feature), not {self.tune_range}")
        if self.tune_range != TUNE_RANGE and not (self.tune_trials or self.self_tune_trials):
            raise TrainError("tune_range bounds the tuning by play: give tune_trials or self_tune_trials too "
                             "(--tune-trials N)")
        if self.roll_in not in ROLL_INS:
            raise TrainError(f"roll_in must be one of {', '.join(ROLL_INS)}, not '{self.roll_in}'")
        if self.target not in TARGETS:
            raise TrainError(f"target must be one of {', '.join(TARGETS)}, not '{self.target}'")
        if not (self.ridge >= 0 and math.isfinite(self.ridge)):
            raise TrainError(f"ridge must be a finite number >= 0, not {self.ridge}")
        n = len(self.cells())
        if self.eval_games < n:
            raise TrainError(f"eval_games must be at least the number of cells ({n}: every mix at every "
                             f"player count), not {self.eval_games}")

    def expert_plays(self, iteration: int) -> bool:
        """Whether the best expert so far, not the search, plays iteration `iteration`'s recorded
        games (--roll-in expert, after the first iteration: it has no expert yet)."""
        return self.roll_in == "expert" and iteration > 0

    def cells(self) -> list[Cell]:
        """Every (mix, player count) pair, mixes outer, each with its rules resolved and checked
        (the variant loader's checks and the kernel's: a VariantError names the option to blame)."""
        spec = _expert_spec(self.game)
        base = dict(parse_override(s) for s in self.sets)
        spec.variants.load(self.variant, base)  # a --set to blame is named as --set
        out = []
        for mix in self.mixes or (None,):
            variant = (spec.variants.load(self.variant, base) if mix is None else
                       spec.variants.load(self.variant, {**base, **mix_overrides(mix)}, source=f"--mix {mix}"))
            for p in self.players:
                spec.kernel_params(variant, p)
                out.append(Cell(mix or "", variant, p))
        return out

    def command(self) -> str:
        """The command that makes this plan's model (expert.toml keeps it)."""
        tail = rules_options(self.variant, self.sets) + "".join(f" --mix {shlex.quote(m)}" for m in self.mixes)
        return (f"skyline-lab train {shlex.quote(self.game)} --players {','.join(map(str, self.players))} "
                f"--seed {self.seed} --iterations {self.iterations} --games {self.games} --budget {self.budget} "
                f"--eval-games {self.eval_games} --ridge {self.ridge:g} --target {self.target}"
                + (f" --tune-trials {self.tune_trials}" if self.tune_trials else "")
                + (f" --self-tune-trials {self.self_tune_trials}" if self.self_tune_trials else "")
                + (f" --self-tune-table {self.self_tune_table}" if self.self_tune_table != "self" else "")
                + (f" --self-tune-players {','.join(map(str, self.self_tune_players))}" if self.self_tune_players
                   else "")
                + (f" --tune-range {self.tune_range:g}" if self.tune_range != TUNE_RANGE else "")
                + (f" --roll-in {self.roll_in}" if self.roll_in != "search" else "") + tail)


WEIGH_AGAINST = "search(iterations=20, rollout=heuristic)"


def ladder_commands(plan: TrainPlan, name: str) -> list[str]:
    """The ladders that weigh preset `name` (a model of this plan) against the heuristic, the shipped
    expert and search(20), one per setting it learned (every mix at every player count). Its margin
    over the heuristic, which the training reports, is not its strength: a model tuned against the
    heuristic can learn to exploit it and still lose more often to the search (README: Skyline
    3000's model that expects the heuristic's replies)."""
    rules = rules_options(plan.variant, plan.sets)
    rungs = "".join(f" --rung {shlex.quote(r)}" for r in ("heuristic", "expert", name, WEIGH_AGAINST))
    out = []
    for mix in plan.mixes or ("",):
        sets = "".join(f" --set {shlex.quote(item)}" for item in shlex.split(mix))
        for p in plan.players:
            out.append(f"skyline-lab ladder {shlex.quote(plan.game)} -p {p}{rules}{sets}{rungs}")
    return out


def _expert_spec(game: str):
    spec = get_game(game)
    if spec.expert is None:
        raise TrainError(f"{game} declares no expert yet (GameSpec.expert: its features and afterstate kernel)")
    return spec


def search_row(spec, budget: int, model: ExpertModel | None) -> tuple[str, np.ndarray]:
    """The search player's policy text and weight row, rolling out `model` (None: the heuristic)."""
    rollout = "heuristic" if model is None else spec.expert.policy
    text = f"search(iterations={budget}, rollout={rollout})"
    _, row = policy_row(spec.policies, text)
    if model is not None:
        tail = model.row()
        row = np.concatenate([row[:SEARCH_HEAD], tail])
    return text, row


def labelled_row(legal: np.ndarray, label: int) -> int | None:
    """The candidate row of the search's move `label` when the decision is a choice the tables
    keep (more than one candidate, the move among them exactly once); None otherwise."""
    hit = np.flatnonzero(legal == label)
    return int(hit[0]) if len(legal) > 1 and len(hit) == 1 else None


def play_and_record(spec, plan: TrainPlan, iteration: int, model: ExpertModel | None, progress=None) -> dict:
    """Iteration `iteration`'s tables: per decision the features of the played action's outcome
    (X), the mover's final score (y) and the game (game); per decision with a choice, every
    candidate's features (C, rows start..start + n of decision k), the search's choice's row
    (chosen) and the game (cgame).

    `model` is the best expert so far (None in the first iteration). The search rolls it out and
    plays the games; with plan.roll_in "expert" the expert plays them instead and the search, rolling
    out the heuristic (the same teacher every iteration), only labels each decision: the
    imitation then also learns what the search would do where the expert's own play leads, which
    the search's games never visit (DAgger: Ross, Gordon and Bagnell 2011)."""
    roll_in = model if plan.expert_plays(iteration) else None
    text, row = search_row(spec, plan.budget, model if roll_in is None else None)
    roll_row = None if roll_in is None else roll_in.row()
    cells = plan.cells()
    xs, ys, gs = [], [], []
    cands, chosen, cgame = [], [], []
    rows = 0
    for k in range(plan.games):
        gi = iteration * plan.games + k
        cell = cells[gi % len(cells)]
        g = spec.new_game(cell.variant, cell.players, plan.seed, gi)
        rec = new_stream(np.uint64(plan.seed), np.int64(gi), RECORD_STREAM)
        movers = []
        while not g.is_over():
            p = g.current_player()
            label = g.policy_action(text, weights=row)
            a = label if roll_in is None else g.policy_action(spec.expert.policy, weights=roll_row)
            xs.append(spec.expert.features_after(g, a, rec))
            legal, feats = spec.expert.choices(g, rec)
            at = labelled_row(legal, label)
            if at is not None:
                cands.append(feats)
                chosen.append(rows + at)
                cgame.append(gi)
                rows += len(legal)
            movers.append(p)
            g.apply(a)
        score = g.scores()
        ys.extend(float(score[p]) for p in movers)
        gs.extend([gi] * len(movers))
        if progress is not None:
            progress.update(1)
    nf = len(spec.expert.features)
    C = np.vstack(cands) if cands else np.zeros((0, nf))
    starts = np.cumsum([0] + [len(c) for c in cands[:-1]]) if cands else np.zeros(0, np.int64)
    return {"X": np.array(xs).reshape(-1, nf), "y": np.array(ys), "game": np.array(gs, np.int64), "C": C,
            "start": np.asarray(starts, np.int64), "chosen": np.array(chosen, np.int64),
            "cgame": np.array(cgame, np.int64)}


FIT_DIGITS = 7   # significant digits kept of a fitted weight (fit_choice); smaller ones are 0


def _choice_nll(C, start, chosen, group, picked, lam, w):
    """The penalised negative log-likelihood of the conditional logit, its gradient and every
    candidate's probability."""
    u = C @ w
    m = np.maximum.reduceat(u, start)
    e = np.exp(u - m[group])
    z = np.add.reduceat(e, start)
    p = e / z[group]
    value = -(u[chosen].sum() - (m + np.log(z)).sum()) + lam * (w @ w)
    grad = -(picked - p @ C) + 2 * lam * w
    return value, grad, p


def fit_choice(C: np.ndarray, start: np.ndarray, chosen: np.ndarray, ridge: float) -> np.ndarray:
    """Conditional logit on the search's choices (a candidate's probability ~ exp(w . features)),
    ridge-penalised. Weights in logit units: the expert plays their argmax.

    Newton's method with a backtracking line search, run to convergence (the problem is convex
    and has a few dozen weights), the weights then rounded to FIT_DIGITS significant digits: the
    same tables give the same model file whatever the number of BLAS threads. (scipy's L-BFGS,
    stopped at its default tolerance, gave weights differing by up to 0.8% between a 1- and a
    2-thread BLAS on the same Project Skyline tables.)"""
    D, F = len(start), C.shape[1]
    group = np.repeat(np.arange(D), np.diff(np.append(start, len(C))))
    lam = ridge * D
    picked = C[chosen].sum(0)
    w = np.zeros(F)
    value, grad, p = _choice_nll(C, start, chosen, group, picked, lam, w)
    for _ in range(200):
        Cp = C * p[:, None]
        mean = np.add.reduceat(Cp, start)            # each decision's expected features
        H = C.T @ Cp - mean.T @ mean + 2 * lam * np.eye(F)
        step = np.linalg.lstsq(H, grad, rcond=None)[0]   # least squares: a weight no row moves stays 0
        decrement = float(grad @ step)
        if decrement <= 1e-20 * max(1.0, abs(value)):
            break
        t = 1.0
        v1, g1, p1 = _choice_nll(C, start, chosen, group, picked, lam, w - step)
        while v1 > value - 1e-4 * t * decrement:
            t *= 0.5
            if t < 1e-10:     # no step lowers the loss: w is the optimum to float precision
                return _rounded(w)
            v1, g1, p1 = _choice_nll(C, start, chosen, group, picked, lam, w - t * step)
        w, value, grad, p = w - t * step, v1, g1, p1
    return _rounded(w)


def _rounded(w: np.ndarray) -> np.ndarray:
    """w to FIT_DIGITS significant digits of its largest weight's scale and of its own (a weight
    below that scale, the rounding's noise floor, is 0)."""
    floor = float(np.abs(w).max(initial=0.0)) * 10.0 ** -FIT_DIGITS
    return np.array([0.0 if abs(x) < floor else float(f"{x:.{FIT_DIGITS}g}") for x in w])


def choice_quality(C, start, chosen, w) -> tuple[float, float]:
    """(share of decisions where the weights' best candidate is the search's choice, mean log-likelihood)."""
    if len(start) == 0:
        return 0.0, 0.0
    u = C @ w
    ends = np.append(start[1:], len(C))
    hits, ll = 0, 0.0
    for s0, e0, c in zip(start, ends, chosen):
        seg = u[s0:e0]
        hits += int(s0 + int(np.argmax(seg)) == c)
        m = seg.max()
        ll += u[c] - m - np.log(np.exp(seg - m).sum())
    return hits / len(start), ll / len(start)


def fit(X: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """Ridge least squares (the bias, column 0, unpenalised), rounded as fit_choice's weights (the
    solver's last bits depend on the BLAS threads)."""
    n, f = X.shape
    pen = np.sqrt(ridge * n) * np.eye(f)
    pen[0, 0] = 0.0
    A = np.vstack([X, pen])
    b = np.concatenate([y, np.zeros(f)])
    return _rounded(np.linalg.lstsq(A, b, rcond=None)[0])


def r2(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    res = y - X @ w
    tot = y - y.mean()
    return float(1.0 - (res @ res) / max(tot @ tot, 1e-12))


def fit_with_holdout(X, y, games, ridge) -> tuple[np.ndarray, float, float]:
    """(weights fitted on every row, R^2 in sample, R^2 on the last fifth of the games when
    fitted without them)."""
    ids = np.unique(games)
    cut = ids[int(len(ids) * 0.8)] if len(ids) >= 5 else ids[-1] + 1
    train = games < cut
    held = 0.0
    if train.any() and (~train).any():
        held = r2(X[~train], y[~train], fit(X[train], y[train], ridge))
    w = fit(X, y, ridge)
    return w, r2(X, y, w), held


def evaluate(spec, plan: TrainPlan, model: ExpertModel, against: ExpertModel | None = None,
             mixed: bool = False) -> dict:
    """The expert against the heuristic (or against the expert of weights `against`: then the
    heuristic_* figures are that opponent's; with `mixed`, against `against` and the heuristic in
    turn, each in half the games at 2 and 3 players): half the seats each, rotating, the same games
    every time; the evaluation games split evenly over the plan's cells (the first cells one more
    when they do not divide), each cell its own range of games. Several cells: the cells' means and each
    cell's figures under "cells"."""
    cells = plan.cells()
    n = len(cells)
    counts = [plan.eval_games // n + (c < plan.eval_games % n) for c in range(n)]
    starts = np.cumsum([0] + counts[:-1])
    results = [_evaluate_cell(spec, cell, model, plan.seed + EVAL_SEED_OFFSET, int(start), count, against,
                              mixed)
               for cell, start, count in zip(cells, starts, counts)]
    if n == 1:
        return results[0]
    out = {k: float(np.mean([r[k] for r in results])) for k in results[0]}
    out["margin_se"] = float(np.sqrt(sum(r["margin_se"] ** 2 for r in results)) / n)
    out["cells"] = [{"cell": cell.label, "games": count, **r} for cell, count, r in zip(cells, counts, results)]
    return out


def _evaluate_cell(spec, cell: Cell, model: ExpertModel, seed: int, start: int, count: int,
                   against: ExpertModel | None = None, mixed: bool = False) -> dict:
    P = cell.players
    # each seat's weight row when it plays an expert (None: the heuristic): the expert at the even
    # seats; at the odd ones `against`, or (mixed) `against` and the heuristic taking turns, the
    # second half of the games with the two swapped, so that every cell meets both
    if mixed:
        half = count - count // 2
        parts = [([model if s % 2 == 0 else (against if s % 4 == 1 else None) for s in range(P)], start, half),
                 ([model if s % 2 == 0 else (None if s % 4 == 1 else against) for s in range(P)], start + half,
                  count - half)]
    else:
        parts = [([model if s % 2 == 0 else against for s in range(P)], start, count)]
    S, E, W = [], [], []
    for seat_models, first, n in parts:
        if n:
            score, expert, win = _play_seats(spec, cell, seat_models, seed, first, n)
            S.append(score)
            E.append(expert)
            W.append(win)
    S, E, W = np.vstack(S), np.vstack(E), np.vstack(W)
    n = len(S)
    # per game: the experts' mean score minus the opponents' (a paired margin, its standard error)
    diff = (S * E).sum(1) / E.sum(1) - (S * ~E).sum(1) / (~E).sum(1)
    return {"margin": float(diff.mean()), "margin_se": float(diff.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
            "expert_score": float(S[E].mean()), "heuristic_score": float(S[~E].mean()),
            "expert_win": float(W[E].mean()), "heuristic_win": float(W[~E].mean())}


def _play_seats(spec, cell: Cell, seat_models: list, seed: int, start: int, count: int):
    """Games start..start+count-1 of the cell with line-up slot s played by seat_models[s] (None:
    the heuristic), seats rotating: each game's scores, whether a seat was an even slot's (the
    expert's), and its win, as (games, players) arrays."""
    P = cell.players
    seat_rows = [None if m is None else m.row() for m in seat_models]
    lineup = make_lineup(spec, ["heuristic" if r is None else spec.expert.policy for r in seat_rows], P, True)
    ids = lineup.policy_ids()
    rows = lineup.weight_rows(spec.max_weights)
    width = max(len(r) for r in seat_rows if r is not None)
    rows = np.hstack([rows, np.zeros((P, max(0, width - rows.shape[1])))])
    for s, r in enumerate(seat_rows):
        if r is not None:
            rows[s, :] = 0.0
            rows[s, :len(r)] = r
    kp = spec.kernel_params(cell.variant, P)
    t = spec.simulate(kp, ids, rows, True, seed, start, count)["players"]
    slot = np.asarray(t["lineup_slot"])
    expert = np.isin(slot, [s for s in range(P) if s % 2 == 0])
    return (np.asarray(t["score"], np.float64).reshape(count, P), expert.reshape(count, P),
            np.asarray(t["win"], np.float64).reshape(count, P))


def fit_all(data: list[dict], plan: TrainPlan, it: int) -> tuple[np.ndarray, str]:
    """The weights fitted to every iteration's tables so far, and the fit's quality in words (on the
    last fifth of the games, held out of a first fit)."""
    games = len(np.unique(np.concatenate([d["game"] for d in data])))
    # the games the rows come from: the search's, and with --roll-in expert the expert's after iteration 0
    source = (f"games ({it * plan.games:,} of them played by the expert, the search labelling)"
              if plan.expert_plays(it) else "search games")
    if plan.target == "score":
        X = np.vstack([d["X"] for d in data])
        y = np.concatenate([d["y"] for d in data])
        g = np.concatenate([d["game"] for d in data])
        w, fit_in, fit_out = fit_with_holdout(X, y, g, plan.ridge)
        return w, (f"iteration {it}: final scores of {len(y):,} decisions of {games:,} {source}, "
                   f"R^2 {fit_in:.3f} in sample, {fit_out:.3f} on held-out games")
    Cs, starts, chosen, cg, off = [], [], [], [], 0
    for d in data:
        Cs.append(d["C"])
        starts.append(d["start"] + off)
        chosen.append(d["chosen"] + off)
        cg.append(d["cgame"])
        off += len(d["C"])
    C, start, ch, cg = np.vstack(Cs), np.concatenate(starts), np.concatenate(chosen), np.concatenate(cg)
    ids = np.unique(cg)
    cut = ids[int(len(ids) * 0.8)] if len(ids) >= 5 else ids[-1] + 1
    k = int(np.searchsorted(cg, cut)) if np.all(np.diff(cg) >= 0) else len(cg)
    held = (0.0, 0.0)
    if 0 < k < len(cg):
        w0 = fit_choice(C[:start[k]], start[:k], ch[:k], plan.ridge)
        held = choice_quality(C, start[k:], ch[k:], w0)
    w = fit_choice(C, start, ch, plan.ridge)
    acc, ll = choice_quality(C, start, ch, w)
    return w, (f"iteration {it}: the search's choices at {len(start):,} decisions of {games:,} {source}, "
               f"its choice ranked first {acc:.3f} in sample ({held[0]:.3f} on held-out games), "
               f"log-likelihood {ll:.3f} a decision ({held[1]:.3f} held out)")


def feature_scales(data: list[dict], plan: TrainPlan) -> np.ndarray:
    """Each feature's standard deviation over the rows the fit read (0: a constant feature)."""
    rows = np.vstack([d["X" if plan.target == "score" else "C"] for d in data])
    return rows.std(0) if len(rows) else np.zeros(rows.shape[1])


def tune_by_play(spec, plan: TrainPlan, w: np.ndarray, scales: np.ndarray, it: int, progress: bool = False,
                 evaluate_fn=None, against_self: bool = False) -> tuple[np.ndarray, dict, dict]:
    """Step 3 of the module's loop: the fitted weights `w` moved by optuna (seeded TPE, `plan.tune_trials`
    rows, the fit itself first) to raise the expert's margin over the heuristic on the tuning games;
    kept only when they beat the fit on the evaluation games too. Returns (the weights kept, what
    happened: both margins on the evaluation games and whether the tuned weights were kept, the kept
    weights' evaluation: step 4's, played once).

    against_self (step 3b): `plan.self_tune_trials` rows, each played against `w` itself (the
    weights at the other half of the seats: evaluate_fn(spec, plan, model, against=model of w)),
    on tuning games of their own (seed one more); kept only when they beat `w` on the evaluation
    games with the margin's 95% interval above 0, and the evaluation returned is against `w`, not
    the heuristic's (for `w` kept: {"margin": 0.0}, what `w` makes against itself by definition)."""
    import optuna

    judge = evaluate if evaluate_fn is None else evaluate_fn
    stage = 1 if against_self else 0
    trials = plan.self_tune_trials if against_self else plan.tune_trials
    mixed = against_self and plan.self_tune_table == "mixed"
    if against_self:
        start = _model(spec, plan, w, "")
        if plan.self_tune_players:   # its games (tuning and judging) at these player counts only
            plan = replace(plan, players=plan.self_tune_players)
        field = {"mixed": True} if mixed else {}

        def evaluate_fn(spec, plan, model):
            return judge(spec, plan, model, against=start, **field)
    else:
        evaluate_fn = judge
    features = spec.expert.features
    moved = [i for i, f in enumerate(features) if f != "bias" and scales[i] > 0]
    # a run seed's range, whatever the plan's
    tune_plan = replace(plan, seed=(plan.seed + TUNE_SEED_OFFSET + stage) % 2**62)

    def weights(z: dict) -> np.ndarray:
        out = np.array(w, np.float64)
        for i in moved:
            out[i] += z[features[i]] / scales[i]
        return _rounded(out)

    def objective(trial) -> float:
        z = {features[i]: trial.suggest_float(features[i], -plan.tune_range, plan.tune_range) for i in moved}
        return evaluate_fn(spec, tune_plan, _model(spec, plan, weights(z), ""))["margin"]

    optuna.logging.set_verbosity(optuna.logging.WARNING)   # a line per trial: the progress bar says enough
    sampler = optuna.samplers.TPESampler(seed=(plan.seed + it + stage * TUNE_SEED_OFFSET) % 2**32)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    study.enqueue_trial({features[i]: 0.0 for i in moved})
    study.optimize(objective, n_trials=trials, show_progress_bar=progress)
    tuned = weights(study.best_params)
    tuned_eval = evaluate_fn(spec, plan, _model(spec, plan, tuned, ""))
    if mixed:
        # the start at the tuned row's seats, against the same table: the tuned row is kept only
        # when its margin beats the start's by more than the 95% interval of the difference (taken
        # as independent: the two share the deals, which only narrows the true interval)
        fitted_eval = evaluate_fn(spec, plan, start)
        low = tuned_eval["margin"] - fitted_eval["margin"] - 1.96 * math.hypot(
            tuned_eval.get("margin_se", 0.0), fitted_eval.get("margin_se", 0.0))
        kept = bool(low > 0)
    elif against_self:
        # the margin is over the start itself: kept only when its 95% interval lies above 0 (a
        # row that ties its start is noise that the best of many trials always looks better by)
        fitted_eval = {"margin": 0.0}
        low = tuned_eval["margin"] - 1.96 * tuned_eval.get("margin_se", 0.0)
        kept = bool(low > 0)
    else:
        fitted_eval = evaluate_fn(spec, plan, _model(spec, plan, w, ""))
        kept = bool(tuned_eval["margin"] > fitted_eval["margin"])
    return (tuned if kept else np.asarray(w, np.float64)), {
        "trials": trials,
        "against": ("itself and the heuristic" if mixed else "itself") if against_self else "heuristic",
        "tuning_margin": float(study.best_value),
        "tuning_margin_of_the_fit": float(study.trials[0].value),
        "fitted_margin": float(fitted_eval["margin"]), "tuned_margin": float(tuned_eval["margin"]),
        **({"tuned_margin_low": float(low)} if against_self else {}), "kept": kept,
        # kept or not, the best row (to play it on the ladder as expert(w_<feature>=...))
        "tuned_weights": [float(x) for x in tuned]}, \
        (tuned_eval if kept else fitted_eval)


def tune_text(plan: TrainPlan, tuned: dict) -> str:
    """What the tuning did, in words (appended to the fit's)."""
    return (f"; tuned by play ({tuned['trials']:,} weight rows, optuna TPE, each weight within "
            f"{plan.tune_range:g} standard deviations of its feature, on {plan.eval_games:,} games of their own "
            f"against the heuristic: margin {tuned['tuning_margin']:+.3f} there against the fit's "
            f"{tuned['tuning_margin_of_the_fit']:+.3f}), on the evaluation games {tuned['tuned_margin']:+.3f} "
            f"against the fit's {tuned['fitted_margin']:+.3f}: "
            + ("the tuned weights kept" if tuned["kept"] else "the fit kept (the tuning did not carry over)"))


def self_tune_text(plan: TrainPlan, tuned: dict) -> str:
    """What the tuning against itself did, in words (appended after the first tuning's)."""
    if plan.self_tune_table == "mixed":
        return (f"; tuned again against itself and the heuristic ({tuned['trials']:,} weight rows at half the "
                f"seats, the weights they started from and the heuristic taking turns at the others, on "
                f"{plan.eval_games:,} games of their own: margin {tuned['tuning_margin']:+.3f} there against the "
                f"start's {tuned['tuning_margin_of_the_fit']:+.3f}), on the evaluation games "
                f"{tuned['tuned_margin']:+.3f} against the start's {tuned['fitted_margin']:+.3f} (the difference's "
                f"95% low end {tuned['tuned_margin_low']:+.3f}): "
                + ("the weights tuned against the table kept" if tuned["kept"]
                   else "the weights it started from kept (not separated from them)"))
    return (f"; tuned again against itself ({tuned['trials']:,} weight rows at half the seats, the weights they "
            f"started from at the others, on {plan.eval_games:,} games of their own: margin "
            f"{tuned['tuning_margin']:+.3f} there), on the evaluation games {tuned['tuned_margin']:+.3f} over the "
            f"weights they started from (95% low end {tuned['tuned_margin_low']:+.3f}): "
            + ("the weights tuned against themselves kept" if tuned["kept"]
               else "the weights it started from kept (not separated from them)"))


def check_folder(folder: Path) -> None:
    """Refuse a folder the trainer did not make (a user's files could be overwritten: its
    expert.toml, say) and a file, before anything is written. A folder of the trainer's own
    files only, train.json or not yet (killed in iteration 0), is resumed."""
    if folder.exists() and not folder.is_dir():
        raise TrainError(f"cannot write the training to {folder}: it is a file; choose another --out")
    if not folder.is_dir():
        return
    names = sorted((p.name for p in folder.iterdir()), key=lambda name: (name.startswith("."), name))
    strange = [n for n in names if n not in TRAIN_FILES and not TRAIN_FILE_RE.match(n)]
    if not strange and "expert.toml" in names and MANIFEST not in names:
        strange = ["expert.toml"]   # the trainer writes its expert.toml after train.json: a user's model
    if strange:
        raise TrainError(f"{folder} is not a training folder of skyline-lab (it holds {strange[0]}); nothing "
                         "was written: choose another --out")


def _load_manifest(folder: Path, plan: TrainPlan) -> dict:
    path = folder / MANIFEST
    if path.is_file():
        manifest = json.loads(path.read_text())
        if not _same_plan(manifest.get("plan"), plan):
            raise TrainError(f"{folder} holds a training of another plan ({manifest.get('plan')}); "
                             "use another folder or the same options")
        return manifest
    # as train.json holds it (lists, not tuples): a fresh and a resumed training return the same
    return {"plan": json.loads(json.dumps(asdict(plan))), "iterations": [], "stopped": ""}


def _same_plan(stored, plan: TrainPlan) -> bool:
    """Whether a manifest's plan is `plan` (read back as a plan: lists are tuples again, and a
    folder written before mixes existed, players a single count, is the same one-cell plan)."""
    try:
        return TrainPlan(**stored) == plan
    except TypeError:
        return False


def _model(spec, plan: TrainPlan, weights, fit_text: str) -> ExpertModel:
    return ExpertModel(tuple(spec.expert.features), tuple(float(x) for x in weights), 1, plan.command(), fit_text)


def _read_model(spec, entry: dict, plan: TrainPlan) -> ExpertModel:
    return _model(spec, plan, entry["weights"], entry["fit"])


def train(plan: TrainPlan, folder: str | Path, progress: bool = False, log=print) -> dict:
    """Run (or resume) the training in `folder`; returns the manifest."""
    plan.check()
    spec = _expert_spec(plan.game)
    folder = Path(folder)
    check_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    # one writer at a time (two trainings of one folder both wrote train.json); RunLocked says who holds it
    with runfolder.writer_lock(folder):
        return _train_locked(plan, spec, folder, progress, log)


def _train_locked(plan: TrainPlan, spec, folder: Path, progress: bool, log) -> dict:
    manifest = _load_manifest(folder, plan)
    done = manifest["iterations"]
    best = max(done, key=lambda e: e["eval"]["margin"], default=None)
    while len(done) < plan.iterations and not manifest["stopped"]:
        it = len(done)
        rollout = None if best is None else _read_model(spec, best, plan)
        bar = None
        if progress:
            from tqdm import tqdm
            who = "expert" if plan.expert_plays(it) else "search"
            bar = tqdm(total=plan.games, desc=f"iteration {it} {who} games", unit="game")
        tables = play_and_record(spec, plan, it, rollout, bar)
        if bar is not None:
            bar.close()
        np.savez(folder / f"data_{it:03d}.npz", **tables)
        data = [dict(np.load(folder / f"data_{j:03d}.npz")) for j in range(it + 1)]
        w, fit_text = fit_all(data, plan, it)
        tuned = ev = self_tuned = None
        scales = feature_scales(data, plan)
        if plan.tune_trials:   # it has played the kept weights on the evaluation games already
            w, tuned, ev = tune_by_play(spec, plan, w, scales, it, progress)
            fit_text += tune_text(plan, tuned)
        if plan.self_tune_trials:
            w, self_tuned, _ = tune_by_play(spec, plan, w, scales, it, progress, against_self=True)
            fit_text += self_tune_text(plan, self_tuned)
            if self_tuned["kept"]:
                ev = None   # new weights: step 4 plays them against the heuristic
        model = _model(spec, plan, w, fit_text)
        (folder / f"model_{it:03d}.toml").write_text(model_text(model))
        if ev is None:
            ev = evaluate(spec, plan, model)
        played = f"expert of iteration {best['iteration']}" if plan.expert_plays(it) else "search"
        entry = {"iteration": it, "rollout": ("heuristic" if rollout is None or plan.expert_plays(it)
                                              else f"expert of iteration {best['iteration']}"),
                 "played_by": played,
                 "decisions": int(len(tables["y"])),
                 "weights": [float(x) for x in w], "fit": fit_text, "eval": ev,
                 **({"tuned": tuned} if tuned is not None else {}),
                 **({"self_tuned": self_tuned} if self_tuned is not None else {})}
        done.append(entry)
        log(f"{fit_text}; expert vs heuristic: margin {ev['margin']:+.3f} ± {1.96 * ev['margin_se']:.3f} points, "
            f"win {ev['expert_win']:.3f} vs {ev['heuristic_win']:.3f}"
            + "".join(f"\n  {c['cell']}: margin {c['margin']:+.3f} ± {1.96 * c['margin_se']:.3f}, "
                      f"win {c['expert_win']:.3f} vs {c['heuristic_win']:.3f}" for c in ev.get("cells", ())))
        if best is not None and ev["margin"] <= best["eval"]["margin"]:
            manifest["stopped"] = f"iteration {it} did not improve on iteration {best['iteration']}"
        else:
            best = entry
        (folder / MANIFEST).write_text(json.dumps(manifest, indent=1))
    if best is not None:
        (folder / "expert.toml").write_text(model_text(_read_model(spec, best, plan)))
    return manifest


def save_preset(plan: TrainPlan, folder: str | Path, name: str, path: str | Path | None = None) -> Path:
    """Keep the folder's best model as the user's preset `name` of the expert (experiments.user_presets,
    outside every engine digest): a ladder plays it as `--rung NAME` beside the shipped `expert`,
    no engine file changed. Every weight is written (to the model's 7 digits: the same row to the
    bit), so the preset stays this model whatever the shipped one becomes."""
    from engines.core.presets import write_preset
    from experiments.user_presets import check_new_preset, presets_file

    spec = _expert_spec(plan.game)
    check_new_preset(spec, name)
    src = Path(folder) / "expert.toml"
    if not src.is_file():
        raise TrainError(f"{folder} has no trained model yet")
    model = load_model(src, spec.expert.features)
    weights = model_weights(model)
    path = presets_file(plan.game) if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_preset(path, name, spec.expert.policy, "a learned expert of skyline-lab train (the command above)", weights,
                 f"made by: {model.command}\n{model.fit}", digits=7)
    return path


def install(plan: TrainPlan, folder: str | Path) -> Path:
    """Copy the folder's best model into the game's package (its expert.toml)."""
    spec = _expert_spec(plan.game)
    src = Path(folder) / "expert.toml"
    if not src.is_file():
        raise TrainError(f"{folder} has no trained model yet")
    dst = Path(spec.expert.model_file)
    dst.write_text(src.read_text())
    return dst
