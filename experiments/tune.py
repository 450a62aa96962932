"""`skyline-lab tune GAME POLICY --against OPPONENT`: tune a policy's named weights (a script's,
or a learned expert's feature weights).

A black-box optimiser (optuna's TPE sampler, seeded) proposes weight rows; each is played
in one seat against `against` in the others (seats rotating), on the SAME games every trial
(games [0, games) of the tuning seed: common random numbers, so two proposals differ by their
play, not by their luck). The objective is the tuned seat's mean win share (a k-way shared
win counts 1/k; 1/P is an even share). The policy's own defaults are the first trial.

The best row is then checked on games the optimiser never saw (another seed): the tuned
weights against the defaults head to head, and each against the opponent, with 95% intervals
over games (analysis.stats.win_rates). A tuning that does not beat the defaults out of sample
says so. With --preset NAME the best row becomes the user's named preset (experiments.user_presets:
a file outside the engine's source digest), usable as `--policy NAME` anywhere.
"""
from __future__ import annotations

import inspect
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from analysis.stats import win_rates
from engines.core.lineup import make_lineup
from engines.core.presets import PRESETS_FILE, write_preset
from engines.registry import get_game
from experiments.runner import RunError, rules_options, rules_text
from experiments.user_presets import check_preset_name, presets_file, with_user_presets

# not tuned: the tie-break noise, the experiment switch and the expert's samples (a compute budget
# a trial would spend, not a preference: its declared range reaches 1,000 samples a decision)
FIXED = ("jitter", "force_card", "samples")


@dataclass
class TuneResult:
    game: str
    policy: str
    against: str
    players: int
    trials: int
    games: int
    best: dict[str, float]
    best_value: float
    default_value: float
    validation: pl.DataFrame     # matchup, policy, games, share_rate, share_low, share_high
    preset_path: Path | None = None
    variant: str | None = None   # the rules it was tuned on: the variant (None: the default) ...
    overrides: tuple[tuple[str, object], ...] = ()   # ... and the --set changes on top, sorted

    def rules(self) -> str:
        """The rules the weights were tuned on, in words."""
        return rules_text(self.variant, self.overrides)

    def rules_options(self) -> str:
        """The same as command-line options (empty on the default rules)."""
        return rules_options(self.variant, [f"{k}={json.dumps(v)}" for k, v in self.overrides])


def _label(policy: str, weights: dict[str, float]) -> str:
    return f"{policy}(" + ", ".join(f"{k}={v:.6g}" for k, v in weights.items()) + ")" if weights else policy


def _play(spec, kp, lineup_texts: list[str], players: int, seed: int, games: int) -> pl.DataFrame:
    lineup = make_lineup(spec, lineup_texts, players, True)
    tables = spec.simulate(kp, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), True, seed, 0, games)
    frame = pl.DataFrame({k: tables["players"][k] for k in ("game", "lineup_slot", "win")})
    n_win = frame.group_by("game").agg(pl.col("win").cast(pl.Int64).sum().alias("n_winners"))
    labels = pl.DataFrame({"lineup_slot": list(range(players)), "policy": lineup_texts},
                          schema={"lineup_slot": frame["lineup_slot"].dtype, "policy": pl.Utf8})
    return frame.join(n_win, on="game").join(labels, on="lineup_slot")


def _share(frame: pl.DataFrame, slot: int = 0) -> float:
    f = frame.filter(pl.col("lineup_slot") == slot)
    return float((f["win"].cast(pl.Float64) / f["n_winners"].cast(pl.Float64)).mean())


def search_space(info) -> dict[str, tuple[float, float]]:
    """Each tunable weight's range: its declared range, else from 0 to twice the default (at least
    1) on the default's side: [0, max(2v, 1)], or [-max(2|v|, 1), 0] for a negative default (a learned
    expert's penalties), so the defaults, trial 1, are a row the space holds."""
    out = {}
    for k, v in info.weights.items():
        if k in FIXED:
            continue
        reach = max(2.0 * abs(v), 1.0)
        lo, hi = info.weight_ranges.get(k, (-reach, 0.0) if v < 0 else (0.0, reach))
        out[k] = (float(lo), float(hi))
    return out


MAX_TRIALS = 10_000
MAX_GAMES = 10_000_000


def check_counts(*, trials: int, games: int, validate_games: int, seed: int = 0) -> None:
    """Refuse, before any game, counts that would crash the optimiser or the check (RunError, one line)."""
    if not 1 <= trials <= MAX_TRIALS:
        raise RunError(f"--trials must be between 1 and {MAX_TRIALS:,} (trial 1 is the defaults), not {trials}")
    if not 1 <= games <= MAX_GAMES:
        raise RunError(f"--games must be between 1 and {MAX_GAMES:,} games per trial, not {games}")
    if not 1 <= validate_games <= MAX_GAMES:
        raise RunError(f"--validate-games must be between 1 and {MAX_GAMES:,}, not {validate_games}")
    if not 0 <= seed < 2**63:
        raise RunError(f"--seed must be between 0 and 2**63-1, not {seed}")


def tune(game: str, policy: str, against: str, *, players: int = 2, trials: int = 30, games: int = 200,
         validate_games: int = 400, seed: int = 0, variant: str | None = None, overrides: dict | None = None,
         progress: bool = False) -> TuneResult:
    check_counts(trials=trials, games=games, validate_games=validate_games, seed=seed)
    import optuna

    spec = with_user_presets(get_game(game))
    info = spec.policy(policy)
    if info.follow or info.choices:
        raise RunError(f"{policy} is not a scripted policy or a learned expert (numeric weights): tune greedy, heuristic "
                       "or expert")
    space = search_space(info)
    if not space:
        raise RunError(f"{policy} has no tunable weights")
    if players < 2:
        raise RunError("tuning needs at least 2 players (the objective is the win share)")
    if players > spec.max_players:
        raise RunError(f"{spec.title} is for {spec.min_players}-{spec.max_players} players, not {players}")
    make_lineup(spec, [policy, *[against] * (players - 1)], players, True)  # refuse a bad opponent now
    kp = spec.kernel_params(spec.variants.load(variant, overrides or {}), players)
    others = [against] * (players - 1)

    def objective(trial) -> float:
        weights = {k: trial.suggest_float(k, lo, hi) for k, (lo, hi) in space.items()}
        return _share(_play(spec, kp, [_label(policy, weights), *others], players, seed, games))

    if not progress:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed))
    study.enqueue_trial({k: min(max(info.weights[k], lo), hi) for k, (lo, hi) in space.items()})
    study.optimize(objective, n_trials=trials, show_progress_bar=progress)
    best = dict(study.best_params)
    default_value = float(study.trials[0].value)

    # out of sample: a seed the optimiser never saw
    check_seed = seed + 1_000_003
    tuned = _label(policy, best)
    rows = []
    half = [tuned if s % 2 == 0 else policy for s in range(players)]
    for matchup, lineup in (("tuned vs defaults", half), ("tuned vs opponent", [tuned, *others]),
                            ("defaults vs opponent", [policy, *others])):
        frame = _play(spec, kp, lineup, players, check_seed, validate_games)
        frame = frame.with_columns(pl.when(pl.col("policy") == tuned).then(pl.lit("tuned"))
                                   .when(pl.col("policy") == policy).then(pl.lit("defaults"))
                                   .otherwise(pl.lit("opponent")).alias("who"))
        rates = win_rates(frame, "who")
        for r in rates.iter_rows(named=True):
            rows.append({"matchup": matchup, "who": r["who"], "games": r["games"], "share_rate": r["share_rate"],
                         "share_low": r["share_low"], "share_high": r["share_high"]})
    return TuneResult(game, policy, against, players, trials, games, best, float(study.best_value), default_value,
                      pl.DataFrame(rows), variant=variant, overrides=tuple(sorted((overrides or {}).items())))


def package_presets_path(game: str) -> Path:
    """The presets the game ships (engine data, in its source digest): edited by hand in a
    commit, never by `tune` (experiments.user_presets says where a user's go)."""
    return Path(inspect.getfile(get_game(game).simulate)).parent / PRESETS_FILE


def save_preset(result: TuneResult, name: str, seed: int, path: Path | None = None) -> Path:
    """Keep the best row as the user's preset `name` (experiments.user_presets: outside every
    engine digest, so no earlier run or cached batch is invalidated)."""
    check_preset_name(name)
    spec = with_user_presets(get_game(result.game))
    shipped = get_game(result.game).policies
    if name in shipped:
        raise RunError(f"'{name}' is already a policy of {result.game} (shipped); choose another preset name")
    if name in spec.policies and spec.policies[name].policy_id != spec.policies[result.policy].policy_id:
        raise RunError(f"'{name}' is already a user preset of another policy of {result.game}")
    row = result.validation.filter((pl.col("matchup") == "tuned vs defaults") & (pl.col("who") == "tuned")).row(0, named=True)
    comment = (f"tuned by `skyline-lab tune {result.game} {result.policy} --against '{result.against}' "
               f"--players {result.players} --trials {result.trials} --games {result.games} --seed {seed}"
               f"{result.rules_options()}`\n"
               f"in sample: win share {result.best_value:.3f} (defaults {result.default_value:.3f}) vs {result.against}; "
               f"out of sample vs the defaults: {row['share_rate']:.3f} [{row['share_low']:.3f}, {row['share_high']:.3f}] "
               f"over {row['games']} games (even share {1 / result.players:.3f})")
    path = Path(path) if path is not None else presets_file(result.game)
    path.parent.mkdir(parents=True, exist_ok=True)
    tuned = spec.policies[result.policy]
    # a preset of a preset is written over the base policy's kernel, with every weight it changes
    base_name = next(p.name for p in spec.policies.values() if p.policy_id == tuned.policy_id and not p.follow)
    root = spec.policies[base_name].weights
    changed = {k: v for k, v in {**tuned.weights, **result.best}.items() if not math.isclose(v, root[k])}
    write_preset(path, name, base_name, f"{result.policy} tuned against {result.against}", changed, comment)
    result.preset_path = path
    return path


def tune_text(result: TuneResult) -> str:
    lines = [f"# Tuning {result.policy} for {result.game}: {result.trials} trials x {result.games} games "
             f"against {result.against}, {result.players} players, {result.rules()}",
             f"in sample (the tuning games): win share {result.best_value:.3f}, defaults {result.default_value:.3f}, "
             f"even share {1 / result.players:.3f}",
             "best weights: " + ", ".join(f"{k}={v:.4g}" for k, v in result.best.items()),
             "", "out of sample (fresh seed), win share with 95% intervals over games:"]
    for r in result.validation.iter_rows(named=True):
        lines.append(f"  {r['matchup']:22s} {r['who']:9s} {r['share_rate']:.3f} "
                     f"[{r['share_low']:.3f}, {r['share_high']:.3f}]  ({r['games']} games)")
    h2h = result.validation.filter((pl.col("matchup") == "tuned vs defaults") & (pl.col("who") == "tuned"))
    if h2h.height:
        r = h2h.row(0, named=True)
        even = 1 / result.players
        verdict = ("stronger than the defaults" if r["share_low"] > even else
                   "weaker than the defaults" if r["share_high"] < even else
                   "not shown to differ from the defaults (the interval includes an even share)")
        lines.append(f"verdict: the tuned weights are {verdict} head to head (even share {even:.3f} per seat).")
    return "\n".join(lines)
