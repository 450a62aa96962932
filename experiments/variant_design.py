"""Which rule knobs matter, and which variant hits a target: the `[sensitivity]` and `[tune]`
experiment kinds (issue 28, items 2 and 3).

    skyline-lab run experiments/skyline_3000_sensitivity.toml
    skyline-lab run experiments/skyline_3000_tune_3p_seats.toml

Both read an ordinary `[experiment]` table (game, variant, overrides, players, policies or a
ladder `rung`, games per design point, seed, metrics) and declared ranges of variant keys:

    [sensitivity]                       # or [tune]
    rung = "heuristic"                  # every seat plays it (self-play), as a ladder rung; or experiment.policies
    [sensitivity.ranges]                # [low, high] of each key, inside the variant schema's legal range
    "scoring.megamall_multiplier" = [1, 4]
    "roof.5.table[3]" = [0, 8]          # one item of a list key

A range is refused before any game runs when it leaves the schema's range or when a set-up it
makes is invalid (each key alone at its ends, all keys at their lows, all at their highs, and
every design point the sensitivity map will play), naming the key and the reason.

Every design point is one batch of the experiment cache (results/_runs/) played on the SAME seed
(common random numbers: game i of every point has the same deals and dice), so a rerun plays
nothing and an interrupted one resumes. Any registered metric (analysis.metrics.metrics_for: the
generic ones, the game's own, quality metrics) is an output, one per (metric, key).

[sensitivity]: Morris screening (SALib: `trajectories` x (keys + 1) points on `levels` levels),
then Sobol first-order and total indices (SALib, Saltelli's scheme, `sobol_base` x (k + 2)
points) for the keys that survive screening. "Key X matters for M" is said only when an
elementary effect of X on M is shown by a paired test on the games (analysis.compare.
paired_difference, each step of a trajectory a pair of batches on the same games), Bonferroni
over X's steps, Holm over every key x output: the false claim rate is at most alpha
(tests/experiments/test_truth_design.py). Indices carry SALib's bootstrap intervals.

[tune]: optuna (TPE, seeded; one objective per target, multi-objective with several) proposes
points; each is one cached batch. Targets are named: `seat_score_edge = { within = 2 }` (every
key's mean inside +-2), `game_length = { between = [40, 50] }`, `decided_round = { at_least = 4 }`,
`roof_points = { within = 0.5, of = "mean" }` (every key within 0.5 of the mean of the keys, per
game). The `keep` best candidates are re-checked on a fresh seed against the starting variant:
paired differences of every metric (analysis.compare.compare_values, Benjamini-Hochberg over the
rows), and the targets by equivalence (two one-sided tests, analysis.stats.equivalence_p; one-sided
t for at_least / at_most), each key at alpha / keep (every key must pass: an intersection-union
test). "Candidate meets the target" is said only then. Each kept candidate is written as a
variant file in the experiment's own results folder, its comments holding its measured figures
and the command that made it.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis import metrics as M
from engines.core.lineup import LineupError
from engines.core.variant import VariantError
from engines.registry import get_game
from experiments.experiment import (
    CACHE_NAME, DEFAULT_RESULTS, EXPERIMENT_KEYS, NAME_RE, Experiment, ExperimentError, check_keys, expect_value,
    first_comment, check_known_metric, parse_overrides, require_ours_or_empty, parse_policies, prepare_plan, require_writable, ensure_run,
    load_experiment, run_experiment)
from experiments.runner import RunError

DESIGN_KINDS = ("sensitivity", "tune")
SENSITIVITY_KEYS = ("ranges", "rung", "trajectories", "levels", "sobol_base", "max_sobol_keys", "alpha", "seed")
TUNE_KEYS = ("ranges", "targets", "rung", "trials", "keep", "recheck_games", "recheck_seed", "alpha", "seed")
TARGET_KINDS = ("within", "between", "at_least", "at_most")
TARGET_KEYS = TARGET_KINDS + ("of", "keys")
ITEM_RE = re.compile(r"^(?P<key>[^\[\]]+)\[(?P<index>\d+)\]$")
MAX_DESIGN_POINTS = 5000
NUMERIC = ("int", "float", "bool")


# --- ranges ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class KeyRange:
    name: str                 # as written: "scoring.megamall_multiplier" or "roof.5.table[3]"
    key: str                  # the schema key
    index: int | None         # the item of a list key, or None
    kind: str                 # "int", "float" or "bool" (of the key or of its items)
    low: float
    high: float

    def value(self, unit: float) -> Any:
        """The value at `unit` in [0, 1] of the range (rounded for integer and boolean keys)."""
        x = self.low + float(unit) * (self.high - self.low)
        if self.kind == "bool":
            return bool(round(x))
        if self.kind == "int":
            return int(round(x))
        return round(x, 10)


def _flat_ranges(table: dict, prefix: str = "") -> dict[str, Any]:
    out = {}
    for key, value in table.items():
        if isinstance(value, dict):
            out.update(_flat_ranges(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def parse_ranges(source: str, where: str, spec, table: Any, base_flat: dict[str, Any],
                 base_overrides: dict[str, Any]) -> list[KeyRange]:
    table = expect_value(source, where, table, "table")
    flat = _flat_ranges(table)
    if not flat:
        raise ExperimentError(source, where, "names no variant key: \"section.key\" = [low, high]")
    schema = spec.variants.schema
    out = []
    for name, value in flat.items():
        at = f"{where}.{name}"
        match = ITEM_RE.match(name)
        key, index = (match["key"], int(match["index"])) if match else (name, None)
        if key not in schema:
            import difflib
            close = difflib.get_close_matches(key, list(schema), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ExperimentError(source, at, f"{spec.game_id} has no variant parameter '{key}'{hint}")
        if key in base_overrides:
            raise ExperimentError(source, at, "is also set in experiment.overrides; set it in one place")
        rule = schema[key]
        kind = rule.kind
        if index is not None:
            if kind not in ("int_list", "float_list"):
                raise ExperimentError(source, at, f"'{key}' is a {kind}, not a list: no item [{index}]")
            base = base_flat.get(key)
            if not isinstance(base, list) or index >= len(base):
                size = len(base) if isinstance(base, list) else 0
                raise ExperimentError(source, at, f"'{key}' has {size} items here; no item [{index}]")
            kind = kind[:-5]
        elif kind not in NUMERIC:
            raise ExperimentError(source, at, f"'{key}' is a {kind}; a range needs a number or true/false "
                                              f"(a list's item is written {key}[i])")
        if kind == "bool":
            if value != [False, True] and value != [True, False]:
                raise ExperimentError(source, at, f"a true/false key's range is [false, true], not {value!r}")
            low, high = 0.0, 1.0
        else:
            if not (isinstance(value, list) and len(value) == 2 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)):
                raise ExperimentError(source, at, f"must be [low, high], two finite numbers, not {value!r}")
            low, high = float(value[0]), float(value[1])
            if kind == "int" and not all(float(v).is_integer() for v in value):
                raise ExperimentError(source, at, f"'{key}' holds integers; the range must be too, not {value!r}")
            if not low < high:
                raise ExperimentError(source, at, f"low must be below high, not {value!r}")
            for end in (low, high):
                if rule.min is not None and end < rule.min or rule.max is not None and end > rule.max:
                    raise ExperimentError(source, at, f"{end:g} is outside the legal range of '{key}' "
                                                      f"[{rule.min:g}, {rule.max:g}] (the variant schema)")
        out.append(KeyRange(name, key, index, kind, low, high))
    return out


def overrides_at(ranges: list[KeyRange], units, base_flat: dict[str, Any],
                 base_overrides: dict[str, Any]) -> dict[str, Any]:
    """The experiment's overrides plus every ranged key at its point (`units` in [0, 1] per range)."""
    out = dict(base_overrides)
    for r, u in zip(ranges, units):
        v = r.value(u)
        if r.index is None:
            out[r.key] = v
        else:
            items = list(out.get(r.key, base_flat[r.key]))
            items[r.index] = v
            out[r.key] = items
    return out


def values_at(ranges: list[KeyRange], units) -> dict[str, Any]:
    return {r.name: r.value(u) for r, u in zip(ranges, units)}


# --- the parsed design experiment -----------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    metric: str
    kind: str                    # within, between, at_least, at_most
    low: float
    high: float
    relative: str = "zero"       # "zero": the values as they are; "mean": minus the mean of the keys in each game
    keys: tuple[str, ...] | None = None

    @property
    def text(self) -> str:
        what = f"{self.metric}{' (each key minus the mean of the keys)' if self.relative == 'mean' else ''}"
        if self.keys:
            what += f" [{', '.join(self.keys)}]"
        if self.kind == "within":
            return f"{what} within +-{self.high:g}"
        if self.kind == "between":
            return f"{what} between {self.low:g} and {self.high:g}"
        if self.kind == "at_least":
            return f"{what} at least {self.low:g}"
        return f"{what} at most {self.high:g}"

    def objective(self, means: dict[str, float]) -> float:
        """How far the worst key is from the target, in units of the target's half-width (or scale):
        <= 1 inside a within/between target, 0 when an at_least/at_most one holds."""
        vals = np.array([v for v in means.values()], dtype=float)
        if vals.size == 0 or not np.isfinite(vals).all():
            return float("inf")
        if self.kind in ("within", "between"):
            centre, half = (self.low + self.high) / 2, (self.high - self.low) / 2
            return float(np.max(np.abs(vals - centre)) / half)
        if self.kind == "at_least":
            return float(max(0.0, np.max(self.low - vals)) / max(abs(self.low), 1.0))
        return float(max(0.0, np.max(vals - self.high)) / max(abs(self.high), 1.0))

    def p_value(self, values: np.ndarray) -> float:
        """p of the test whose rejection says this key meets the target (TOST for within/between)."""
        from analysis.stats import equivalence_p
        values = np.asarray(values, dtype=float)
        values = values[np.isfinite(values)]
        if values.size < 2:
            return float("nan")
        if self.kind in ("within", "between"):
            centre, half = (self.low + self.high) / 2, (self.high - self.low) / 2
            return equivalence_p(values - centre, half)
        from scipy import stats as scipy_stats
        if float(values.min()) == float(values.max()):
            return 1.0
        if self.kind == "at_least":
            return float(scipy_stats.ttest_1samp(values, self.low, alternative="greater").pvalue)
        return float(scipy_stats.ttest_1samp(values, self.high, alternative="less").pvalue)


def parse_targets(source: str, table: Any, known: dict, game: str) -> list[Target]:
    table = expect_value(source, "tune.targets", table, "table")
    if not table:
        raise ExperimentError(source, "tune.targets", "names no target: metric = { within = 2 } ...")
    out = []
    for metric, body in table.items():
        at = f"tune.targets.{metric}"
        check_known_metric(source, at, metric, known, game)
        expect_value(source, at, body, "table")
        check_keys(source, at, body, TARGET_KEYS)
        kinds = [k for k in TARGET_KINDS if k in body]
        if len(kinds) != 1:
            raise ExperimentError(source, at, f"needs exactly one of {', '.join(TARGET_KINDS)}, not {kinds or 'none'}")
        kind = kinds[0]
        value = body[kind]
        if kind == "between":
            if not (isinstance(value, list) and len(value) == 2 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
                    and value[0] < value[1]):
                raise ExperimentError(source, f"{at}.between", f"must be [low, high] with low < high, not {value!r}")
            low, high = float(value[0]), float(value[1])
        else:
            expect_value(source, f"{at}.{kind}", value, "number")
            if kind == "within":
                if value <= 0:
                    raise ExperimentError(source, f"{at}.within", f"must be a positive margin, not {value}")
                low, high = -float(value), float(value)
            elif kind == "at_least":
                low, high = float(value), math.inf
            else:
                low, high = -math.inf, float(value)
        relative = expect_value(source, f"{at}.of", body.get("of", "zero"), "str")
        if relative not in ("zero", "mean"):
            raise ExperimentError(source, f"{at}.of", f"must be 'zero' or 'mean', not {relative!r}")
        keys = body.get("keys")
        if keys is not None:
            keys = tuple(expect_value(source, f"{at}.keys", keys, "str_list"))
        out.append(Target(metric, kind, low, high, relative, keys))
    return out


@dataclass(frozen=True)
class DesignExperiment:
    path: Path
    name: str
    question: str
    game: str
    title: str
    kind: str                     # "sensitivity" or "tune"
    source: str
    spec: Any
    variant: str | None
    overrides: dict[str, Any]
    base_flat: dict[str, Any]
    players: int | None
    policies: list[str] | None
    rotate: bool
    games: int
    seed: int
    metrics: list[str]
    confidence: float
    ranges: list[KeyRange]
    options: dict[str, Any]
    targets: list[Target] = field(default_factory=list)
    digest: str = ""

    @property
    def alpha(self) -> float:
        return float(self.options.get("alpha", 1 - self.confidence))

    def plan(self, units, *, seed: int | None = None, label: str = "", games: int | None = None):
        """The cached batch of one design point (validated by the runner's own checks)."""
        overrides = overrides_at(self.ranges, units, self.base_flat, self.overrides)
        where = {k: f"experiment.overrides.{k}" for k in self.overrides}
        for r in self.ranges:
            where[r.key] = f"{self.kind}.ranges.{r.name}"
        label = label or ", ".join(f"{r.name}={_fmt(v)}" for r, v in zip(self.ranges, values_at(self.ranges, units).values()))
        return prepare_plan(self.source, self.spec, self.game, label, values_at(self.ranges, units), self.variant,
                             overrides, self.players, self.policies, self.rotate, games or self.games,
                             self.seed if seed is None else seed, where, "sweep")

    def base_plan(self, *, seed: int | None = None, games: int | None = None):
        return prepare_plan(self.source, self.spec, self.game, "starting variant", {}, self.variant,
                             dict(self.overrides), self.players, self.policies, self.rotate, games or self.games,
                             self.seed if seed is None else seed,
                             {k: f"experiment.overrides.{k}" for k in self.overrides}, "sweep")


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def is_design_file(data: dict) -> bool:
    return any(k in data for k in DESIGN_KINDS)


def load(path: Path, data: dict, text: str) -> DesignExperiment:
    """Validate a [sensitivity] or [tune] file completely; nothing is played or written."""
    source = str(path)
    kinds = [k for k in DESIGN_KINDS if k in data]
    others = [k for k in ("sweep", "compare", "fairness", "ladder", "precision", "power") if k in data]
    if len(kinds) > 1 or others:
        second = (kinds[1:] + others)[0]
        raise ExperimentError(source, second, f"a [{kinds[0]}] experiment is a kind of its own; this file also has "
                                              f"[{second}]")
    kind = kinds[0]
    check_keys(source, "", data, ("experiment", kind))
    if "experiment" not in data:
        raise ExperimentError(source, "experiment", "missing: the file needs an [experiment] table")
    exp = expect_value(source, "experiment", data["experiment"], "table")
    check_keys(source, "experiment", exp, EXPERIMENT_KEYS)
    for unused in ("answer", "seat_margin"):
        if unused in exp:
            raise ExperimentError(source, f"experiment.{unused}", f"has no use in a [{kind}] experiment")
    if "game" not in exp:
        raise ExperimentError(source, "experiment.game", "missing: which game to play")
    game = expect_value(source, "experiment.game", exp["game"], "str")
    try:
        spec = get_game(game)
    except KeyError as exc:
        raise ExperimentError(source, "experiment.game", exc.args[0]) from None
    name = expect_value(source, "experiment.name", exp.get("name", path.stem), "str")
    if not NAME_RE.match(name):
        raise ExperimentError(source, "experiment.name", f"must be a folder name (letters, digits, _ . -), not {name!r}")
    question = expect_value(source, "experiment.question", exp.get("question", first_comment(text)), "str")
    games = expect_value(source, "experiment.games", exp.get("games", 200), "int")
    if not 2 <= games <= 10_000_000:
        raise ExperimentError(source, "experiment.games", f"must be between 2 and 10,000,000 games per design point, "
                                                          f"not {games}")
    seed = expect_value(source, "experiment.seed", exp.get("seed", 0), "int")
    if not 0 <= seed < 2**62:
        raise ExperimentError(source, "experiment.seed", f"must be between 0 and 2**62-1, not {seed}")
    confidence = expect_value(source, "experiment.confidence", exp.get("confidence", 0.95), "number")
    if not 0.5 <= confidence < 1:
        raise ExperimentError(source, "experiment.confidence", f"must be in [0.5, 1), not {confidence}")
    variant = exp.get("variant")
    if variant is not None:
        expect_value(source, "experiment.variant", variant, "str")
    base_overrides = parse_overrides(source, "experiment.overrides", exp.get("overrides", {}))
    players = exp.get("players")
    if players is not None:
        expect_value(source, "experiment.players", players, "int")
    policies = parse_policies(source, "experiment.policies", exp.get("policies"))
    rotate = expect_value(source, "experiment.rotate", exp.get("rotate", True), "bool")

    table = expect_value(source, kind, data[kind], "table")
    check_keys(source, kind, table, SENSITIVITY_KEYS if kind == "sensitivity" else TUNE_KEYS)
    if "rung" in table:
        rung = expect_value(source, f"{kind}.rung", table["rung"], "str")
        if policies is not None:
            raise ExperimentError(source, f"{kind}.rung", "sets every seat's policy (self-play at the rung); "
                                                          "leave experiment.policies out")
        policies = [rung]
    try:
        base_flat = spec.variants.load(variant, base_overrides, source=source).flat()
    except VariantError as exc:
        raise ExperimentError(source, f"experiment.overrides.{exc.key}" if exc.key in base_overrides
                              else "experiment.variant", exc.reason) from None
    if "ranges" not in table:
        raise ExperimentError(source, f"{kind}.ranges", "missing: the variant keys to vary, \"key\" = [low, high]")
    ranges = parse_ranges(source, f"{kind}.ranges", spec, table["ranges"], base_flat, base_overrides)

    known = M.metrics_for(game)
    metrics = expect_value(source, "experiment.metrics", exp.get("metrics", []), "str_list")
    for metric in metrics:
        check_known_metric(source, "experiment.metrics", metric, known, game)

    options: dict[str, Any] = {}

    def count(key, default, low, high):
        v = expect_value(source, f"{kind}.{key}", table.get(key, default), "int")
        if not low <= v <= high:
            raise ExperimentError(source, f"{kind}.{key}", f"must be between {low:,} and {high:,}, not {v}")
        options[key] = v

    if "alpha" in table:
        a = expect_value(source, f"{kind}.alpha", table["alpha"], "number")
        if not 0 < a < 0.5:
            raise ExperimentError(source, f"{kind}.alpha", f"must be between 0 and 0.5, not {a}")
        options["alpha"] = float(a)
    count("seed", seed, 0, 2**31 - 1)  # the design's own random numbers (Morris / Sobol / optuna)
    targets: list[Target] = []
    if kind == "sensitivity":
        if len(ranges) < 2:
            raise ExperimentError(source, "sensitivity.ranges", "a sensitivity map needs at least two keys")
        count("trajectories", 10, 2, 200)
        count("levels", 4, 2, 20)
        if options["levels"] % 2:
            raise ExperimentError(source, "sensitivity.levels", f"must be even (Morris' step is levels/(2(levels-1))), "
                                                                f"not {options['levels']}")
        count("sobol_base", 32, 0, 4096)
        if options["sobol_base"] and options["sobol_base"] & (options["sobol_base"] - 1):
            raise ExperimentError(source, "sensitivity.sobol_base", f"must be a power of 2 (Sobol' sequence) or 0 "
                                                                    f"(no Sobol' stage), not {options['sobol_base']}")
        count("max_sobol_keys", min(len(ranges), 8), 1, len(ranges))
        points = options["trajectories"] * (len(ranges) + 1) + options["sobol_base"] * (options["max_sobol_keys"] + 2)
        if points > MAX_DESIGN_POINTS:
            raise ExperimentError(source, "sensitivity", f"the design has up to {points:,} points; at most "
                                                         f"{MAX_DESIGN_POINTS:,} (fewer trajectories or a smaller sobol_base)")
        if not metrics:
            metrics = ["seat_score_edge", "game_length", "score_spread", "margin"] if (players or spec.default_players) > 1 \
                else ["score_mean", "game_length"]
    else:
        targets = parse_targets(source, table.get("targets"), known, game)
        count("trials", 50, 1, 10_000)
        count("keep", 3, 1, 20)
        count("recheck_games", max(games * 5, 1000), 2, 10_000_000)
        count("recheck_seed", seed + 1_000_003, 0, 2**62 - 1)
        if options["recheck_seed"] == seed:
            raise ExperimentError(source, "tune.recheck_seed", "must differ from experiment.seed: the re-check "
                                                               "plays games the tuning never saw")
        for t in targets:
            if t.metric not in metrics:
                metrics = [t.metric] + [m for m in metrics if m != t.metric]
        for m in (["seat_score_edge", "game_length", "score_spread", "margin"] if (players or spec.default_players) > 1
                  else ["score_mean", "game_length"]):
            if m not in metrics:
                metrics.append(m)  # every other metric beside the targeted ones
    experiment = DesignExperiment(path, name, question, game, spec.title, kind, source, spec, variant, base_overrides,
                                  base_flat, players, policies, rotate, games, seed, list(metrics), float(confidence),
                                  ranges, options, targets, hashlib.sha256(text.encode()).hexdigest()[:16])
    base = experiment.base_plan()
    n_players = base.players
    for metric in metrics:
        need = known[metric].min_players
        if n_players < need:
            raise ExperimentError(source, "experiment.metrics", f"'{metric}' needs at least {need} players, not {n_players}")
    check_setups(experiment, corner_points(len(ranges)))
    if kind == "sensitivity":
        check_setups(experiment, morris_design(experiment))
    return experiment


def corner_points(k: int) -> np.ndarray:
    """Each key alone at its low and its high (the others at the middle), all low, all high."""
    rows = []
    for i in range(k):
        for end in (0.0, 1.0):
            row = np.full(k, 0.5)
            row[i] = end
            rows.append(row)
    rows += [np.zeros(k), np.ones(k)]
    return np.array(rows)


def check_setups(experiment: DesignExperiment, units: np.ndarray) -> None:
    """Refuse, before any game, a range whose set-ups the game does not accept (the runner's own
    checks: schema, consistency, kernel parameters), naming the key and the reason."""
    seen = set()
    for row in units:
        values = values_at(experiment.ranges, row)
        key = json.dumps(values, sort_keys=True, default=str)
        if key in seen:
            continue
        seen.add(key)
        try:
            experiment.plan(row)
        except ExperimentError as exc:
            point = ", ".join(f"{k}={_fmt(v)}" for k, v in values.items())
            raise ExperimentError(exc.source, exc.key, f"the range makes an invalid set-up ({point}): {exc.reason}") \
                from None


# --- playing design points ---------------------------------------------------------------------

@dataclass
class PointData:
    """Per (metric, key): the per-game values of one design point, game-indexed (aligned across points)."""
    values: dict[tuple[str, str], np.ndarray]
    games_simulated: int
    path: Path


def read_point(game: str, path: Path, n_games: int, metrics: list[str]) -> dict[tuple[str, str], np.ndarray]:
    run = M.RunData(path, n_games)
    out = {}
    for name in metrics:
        frame = M.get_metric(game, name).compute(run)
        for (key,), sub in frame.group_by(["key"], maintain_order=True):
            v = np.full(n_games, np.nan)
            games = sub["game"].to_numpy()
            ok = games < n_games
            v[games[ok]] = sub["value"].to_numpy()[ok]
            out[(name, str(key))] = v
    return out


class Player:
    """Plays (or reads from the cache) the design points of one experiment, remembering each."""

    def __init__(self, experiment: DesignExperiment, cache: Path, workers: int = 1, progress: bool = False):
        self.experiment, self.cache, self.workers, self.progress = experiment, cache, workers, progress
        self.points: dict[str, PointData] = {}
        self.games_simulated = 0
        self.batches = 0

    def play(self, plan, n_games: int | None = None) -> PointData:
        n = n_games or self.experiment.games
        key = f"{plan.folder_name}:{n}"
        if key not in self.points:
            rec = ensure_run(plan, n, self.cache, workers=self.workers, progress=self.progress)
            self.games_simulated += rec.games_simulated
            self.batches += 1
            self.points[key] = PointData(read_point(self.experiment.game, rec.path, n, self.experiment.metrics),
                                         rec.games_simulated, rec.path)
        return self.points[key]


# --- [sensitivity] -------------------------------------------------------------------------------

def _problem(ranges: list[KeyRange]) -> dict:
    return {"num_vars": len(ranges), "names": [r.name for r in ranges], "bounds": [[0.0, 1.0]] * len(ranges)}


def morris_design(experiment: DesignExperiment) -> np.ndarray:
    from SALib.sample import morris as morris_sample
    o = experiment.options
    return morris_sample.sample(_problem(experiment.ranges), o["trajectories"], num_levels=o["levels"],
                                seed=o["seed"])


def sobol_design(experiment: DesignExperiment, survivors: list[int]) -> np.ndarray:
    """Saltelli's points over the surviving keys; the other keys stay at the starting variant's value
    (or the middle of their range when that lies outside it)."""
    from SALib.sample import sobol as sobol_sample
    o = experiment.options
    sub = [experiment.ranges[i] for i in survivors]
    inner = sobol_sample.sample(_problem(sub), o["sobol_base"], calc_second_order=False, seed=o["seed"])
    rows = np.tile(base_units(experiment), (inner.shape[0], 1))
    rows[:, survivors] = inner
    return rows


def base_units(experiment: DesignExperiment) -> np.ndarray:
    """The starting variant's position in each range (the middle when it lies outside)."""
    out = []
    for r in experiment.ranges:
        v = experiment.base_flat[r.key]
        v = v[r.index] if r.index is not None else v
        u = (float(v) - r.low) / (r.high - r.low)
        out.append(u if 0 <= u <= 1 else 0.5)
    return np.array(out)


def plan_games(experiment: DesignExperiment) -> dict[str, int]:
    """How many games the experiment plays at most (before the cache)."""
    o, k, n = experiment.options, len(experiment.ranges), experiment.games
    if experiment.kind == "sensitivity":
        morris = o["trajectories"] * (k + 1)
        sobol = o["sobol_base"] * (o["max_sobol_keys"] + 2)
        return {"morris_points": morris, "sobol_points_at_most": sobol, "games_per_point": n,
                "games_at_most": (morris + sobol) * n}
    recheck = (o["keep"] + 1) * o["recheck_games"]
    return {"trials": o["trials"], "games_per_trial": n, "recheck_games": recheck,
            "games_at_most": o["trials"] * n + recheck}


def plan_text(experiment: DesignExperiment) -> str:
    p = plan_games(experiment)
    if experiment.kind == "sensitivity":
        o = experiment.options
        return (f"{experiment.name}: Morris screening of {len(experiment.ranges)} keys, {o['trajectories']} trajectories "
                f"= {p['morris_points']} design points, then Sobol' for at most {o['max_sobol_keys']} surviving keys "
                f"(N = {o['sobol_base']}: at most {p['sobol_points_at_most']} points); {p['games_per_point']:,} games per "
                f"point on seed {experiment.seed}: at most {p['games_at_most']:,} games (cached points and repeated "
                f"rounded points are free)")
    return (f"{experiment.name}: {p['trials']} trials x {p['games_per_trial']:,} games on seed {experiment.seed}, then "
            f"the {experiment.options['keep']} best candidate{'s' if experiment.options['keep'] > 1 else ''} and the "
            f"starting variant re-checked on "
            f"{experiment.options['recheck_games']:,} fresh games each (seed {experiment.options['recheck_seed']}): at most "
            f"{p['games_at_most']:,} games (cached batches are free)")


def outputs_of(point: PointData) -> list[tuple[str, str]]:
    return list(point.values)


def output_name(o: tuple[str, str]) -> str:
    return o[0] if o[1] == M.ALL else f"{o[0]}[{o[1]}]"


def morris_steps(units: np.ndarray, trajectories: int, k: int) -> list[tuple[int, int, int, float]]:
    """(key, row a, row b, sign) for each step of each trajectory: rows a and b differ in `key` alone."""
    steps = []
    for t in range(trajectories):
        base = t * (k + 1)
        for j in range(k):
            a, b = base + j, base + j + 1
            diff = units[b] - units[a]
            i = int(np.argmax(np.abs(diff)))
            steps.append((i, a, b, float(np.sign(diff[i]))))
    return steps


def screening_tests(ranges: list[KeyRange], units: np.ndarray, trajectories: int,
                    values: list[dict[tuple[str, str], np.ndarray]], outputs: list[tuple[str, str]],
                    alpha: float) -> pl.DataFrame:
    """Per key and output: does moving the key change the output? Each trajectory step is a paired
    difference of two batches on the same games (analysis.compare.paired_difference); a key's p is
    the smallest over its distinct steps times their number (Bonferroni), then Holm over every key x
    output (analysis.compare.holm). A step between two points that round to the same set-up is no test."""
    from analysis.compare import holm, paired_difference

    k = len(ranges)
    steps = morris_steps(units, trajectories, k)
    rows = []
    for o in outputs:
        for i, r in enumerate(ranges):
            ps, seen = [], set()
            for key, a, b, sign in steps:
                if key != i:
                    continue
                va, vb = values[a].get(o), values[b].get(o)
                pair = (r.value(units[a][i]), r.value(units[b][i]),
                        tuple(x.value(u) for j, (x, u) in enumerate(zip(ranges, units[a])) if j != i))
                if va is None or vb is None or pair in seen or pair[0] == pair[1]:
                    continue
                seen.add(pair)
                ok = np.isfinite(va) & np.isfinite(vb)
                if ok.sum() < 2:
                    continue
                d = paired_difference(va[ok], vb[ok])
                if math.isfinite(d.p_value):
                    ps.append(d.p_value)
            p = min(1.0, len(ps) * min(ps)) if ps else float("nan")
            rows.append({"key": r.name, "output": output_name(o), "metric": o[0], "metric_key": o[1],
                         "steps_tested": len(ps), "p_value": p})
    table = pl.DataFrame(rows)
    p = table["p_value"].to_numpy()
    finite = np.isfinite(p)
    adjusted = np.full(p.size, np.nan)
    reject = np.zeros(p.size, dtype=bool)
    if finite.any():
        adj, rej = holm(p[finite], alpha)
        adjusted[finite], reject[finite] = adj, rej
    return table.with_columns(pl.Series("p_adjusted", adjusted), pl.Series("matters", reject))


def morris_indices(ranges: list[KeyRange], units: np.ndarray, Y: np.ndarray, levels: int, confidence: float,
                   seed: int) -> dict[str, np.ndarray]:
    from SALib.analyze import morris as morris_analyze
    return morris_analyze.analyze(_problem(ranges), units, Y, num_levels=levels, conf_level=confidence,
                                  num_resamples=200, seed=seed)


def sobol_indices(ranges: list[KeyRange], Y: np.ndarray, confidence: float, seed: int) -> dict[str, np.ndarray]:
    from SALib.analyze import sobol as sobol_analyze
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sobol_analyze.analyze(_problem(ranges), Y, calc_second_order=False, conf_level=confidence,
                                     num_resamples=200, seed=seed)


def _mean_matrix(values: list[dict], outputs: list[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Per point and output: the mean over games and the variance of that mean (game noise)."""
    Y = np.full((len(values), len(outputs)), np.nan)
    V = np.full_like(Y, np.nan)
    for p, vals in enumerate(values):
        for j, o in enumerate(outputs):
            v = vals.get(o)
            if v is None:
                continue
            v = v[np.isfinite(v)]
            if v.size:
                Y[p, j] = v.mean()
                V[p, j] = v.var(ddof=1) / v.size if v.size > 1 else np.nan
    return Y, V


# When a Sobol' index can be read. The estimator sees each point's mean over its games, so game-to-game luck
# adds the same variance to every key's total index (an output that is mostly luck gives every key an ST
# near 1 or above, however little it matters), and SALib's intervals do not widen for it: in worlds of known
# truth (tests/experiments/test_truth_design.py) their coverage of the luck-free index fell to 86% at a noise
# share of 0.08 and 80% at 0.14; at or below NOISE_READABLE it held at 95%. An interval wider than
# WIDTH_READABLE (half of the index's range [0, 1]) tells nothing a designer can use. Anything else is
# printed as too wide to read.
NOISE_READABLE = 0.05
WIDTH_READABLE = 0.5


def sobol_reading(st_low: float, st_high: float, s1_low: float, s1_high: float, noise_share: float) -> str:
    """'readable', or why the index cannot be read."""
    if not (math.isfinite(noise_share) and noise_share <= NOISE_READABLE):
        return f"too wide to read: game luck is {noise_share:.0%} of the spread over the points"
    width = max(st_high - st_low, s1_high - s1_low)
    if not (math.isfinite(width) and width <= WIDTH_READABLE):
        return f"too wide to read: interval {width:.2f} wide"
    return "readable"


def _unit(x: float) -> float:
    """An index's figure inside [0, 1], where every Sobol' index lies."""
    return min(max(x, 0.0), 1.0)


@dataclass
class SensitivityResult:
    experiment: DesignExperiment
    out: Path
    screening: pl.DataFrame          # key, output, mu_star, mu_star_conf, sigma, p_value, p_adjusted, matters
    sobol: pl.DataFrame              # key, output, S1, S1_low, S1_high, ST, ST_low, ST_high, noise_share
    survivors: list[str]
    morris_points: int
    sobol_points: int
    batches: int
    games_simulated: int
    games_per_point: int
    seconds: float
    answer: str = ""
    report: Path | None = None


def analyse_sensitivity(experiment: DesignExperiment, evaluate, check=None
                        ) -> tuple[pl.DataFrame, pl.DataFrame, list[str], int, int]:
    """The map from any `evaluate(units) -> {(metric, key): per-game values}` (a game's batches, or a
    synthetic world of known truth in the tests); `check(design)` runs on the Sobol' stage's points
    before any of them plays."""
    o = experiment.options
    ranges = experiment.ranges
    alpha = experiment.alpha
    units = morris_design(experiment)
    values = [evaluate(row) for row in units]
    outputs = list(dict.fromkeys(o_ for v in values for o_ in v))
    Y, _ = _mean_matrix(values, outputs)
    tests = screening_tests(ranges, units, o["trajectories"], values, outputs, alpha)
    frames = []
    for j, out in enumerate(outputs):
        y = Y[:, j]
        if not np.isfinite(y).all() or np.ptp(y) == 0:
            mu = {"mu_star": np.zeros(len(ranges)) if np.isfinite(y).all() else np.full(len(ranges), np.nan),
                  "mu_star_conf": np.full(len(ranges), np.nan), "sigma": np.full(len(ranges), np.nan)}
        else:
            mu = morris_indices(ranges, units, y, o["levels"], experiment.confidence, o["seed"])
        frames.append(pl.DataFrame({"key": [r.name for r in ranges], "output": output_name(out),
                                    "mu_star": np.asarray(mu["mu_star"], float),
                                    "mu_star_conf": np.asarray(mu["mu_star_conf"], float),
                                    "sigma": np.asarray(mu["sigma"], float)}))
    screening = pl.concat(frames).join(tests.drop("metric", "metric_key"), on=["key", "output"], how="left")
    # survivors: keys that matter for some output, most influential first (largest share of the output's
    # largest mu*), at most max_sobol_keys
    share = screening.with_columns((pl.col("mu_star") / pl.col("mu_star").max().over("output")).alias("share"))
    # (ties keep the file's order of the keys: a rerun must draw the same Sobol' points, all from the cache)
    order = {r.name: i for i, r in enumerate(ranges)}
    ranked = (share.filter(pl.col("matters")).group_by("key", maintain_order=True).agg(pl.col("share").max())
              .with_columns(pl.col("key").replace_strict(order, return_dtype=pl.Int64).alias("_order"))
              .sort(["share", "_order"], descending=[True, False], nulls_last=True))
    survivors = ranked["key"].to_list()[:o["max_sobol_keys"]] if ranked.height else []
    sobol_rows = []
    n_sobol = 0
    if survivors and o["sobol_base"]:
        idx = [next(i for i, r in enumerate(ranges) if r.name == s) for s in survivors]
        design = sobol_design(experiment, idx)
        if check is not None:
            check(design)
        n_sobol = design.shape[0]
        svalues = [evaluate(row) for row in design]
        SY, SV = _mean_matrix(svalues, outputs)
        sub = [ranges[i] for i in idx]
        for j, out in enumerate(outputs):
            y = SY[:, j]
            var = float(np.var(y)) if np.isfinite(y).all() else float("nan")
            noise = float(np.nanmean(SV[:, j]) / var) if var > 0 else float("nan")
            if not np.isfinite(y).all() or var == 0:
                continue
            s = sobol_indices(sub, y, experiment.confidence, o["seed"])
            for i, r in enumerate(sub):
                s1, s1c, st, stc = (float(s["S1"][i]), float(s["S1_conf"][i]), float(s["ST"][i]),
                                    float(s["ST_conf"][i]))
                sobol_rows.append({"key": r.name, "output": output_name(out), "S1": s1, "S1_low": s1 - s1c,
                                   "S1_high": s1 + s1c, "ST": st, "ST_low": st - stc, "ST_high": st + stc,
                                   "noise_share": noise,
                                   "reading": sobol_reading(st - stc, st + stc, s1 - s1c, s1 + s1c, noise)})
    schema = {"key": pl.Utf8, "output": pl.Utf8, "S1": pl.Float64, "S1_low": pl.Float64, "S1_high": pl.Float64,
              "ST": pl.Float64, "ST_low": pl.Float64, "ST_high": pl.Float64, "noise_share": pl.Float64,
              "reading": pl.Utf8}
    return screening, pl.DataFrame(sobol_rows, schema=schema), survivors, units.shape[0], n_sobol


def sensitivity_answer(experiment: DesignExperiment, screening: pl.DataFrame, sobol: pl.DataFrame,
                       games: int) -> str:
    lines = []
    for key in [r.name for r in experiment.ranges]:
        hit = screening.filter((pl.col("key") == key) & pl.col("matters")).sort("p_adjusted")
        if hit.height:
            outs = ", ".join(f"{r['output']} (p adj {r['p_adjusted']:.2g})" for r in hit.iter_rows(named=True))
            lines.append(f"- Key {key} matters for {outs}.")
        else:
            lines.append(f"- Key {key}: no effect shown on any output at {games:,} games per point (not shown to be "
                         f"without effect).")
    if sobol.height:
        # an output's largest index is named only when that very index is readable: the largest readable one
        # could sit under an unreadable larger one
        top = sobol.sort("ST", descending=True).group_by("output", maintain_order=True).first().sort("output")
        read = top.filter(pl.col("reading") == "readable")
        if read.height:
            lines.append("Largest total Sobol' index per output: " + "; ".join(
                f"{r['output']}: {r['key']} ST {_unit(r['ST']):.2f} [{_unit(r['ST_low']):.2f}, "
                f"{_unit(r['ST_high']):.2f}]" for r in read.iter_rows(named=True)) + ".")
        unread = top.filter(pl.col("reading") != "readable")
        if unread.height:
            lines.append("Largest Sobol' index too wide to read (the table's figures there, some above 1, are luck "
                         "and too few points, not influence; play more games per point or raise sobol_base): "
                         + "; ".join(f"{r['output']} ({r['reading'].removeprefix('too wide to read: ')})"
                                     for r in unread.iter_rows(named=True)) + ".")
    return "\n".join(lines)


def heat_map(screening: pl.DataFrame, sobol: pl.DataFrame, keys: list[str]):
    """Keys x outputs: each key's total Sobol' index where Sobol' ran and it is readable, else its Morris mu* as
    a share of the output's largest; a star marks 'matters' (screening test)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outputs = list(dict.fromkeys(screening["output"].to_list()))
    grid = np.full((len(keys), len(outputs)), np.nan)
    stars = np.zeros_like(grid, dtype=bool)
    share = screening.with_columns((pl.col("mu_star") / pl.col("mu_star").max().over("output")).alias("share"))
    for r in share.iter_rows(named=True):
        i, j = keys.index(r["key"]), outputs.index(r["output"])
        grid[i, j] = r["share"]
        stars[i, j] = bool(r["matters"])
    for r in sobol.filter(pl.col("reading") == "readable").iter_rows(named=True):
        grid[keys.index(r["key"]), outputs.index(r["output"])] = _unit(r["ST"])
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(outputs), 1.0 + 0.45 * len(keys)))
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(outputs)), outputs, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(keys)), keys, fontsize=8)
    for i in range(len(keys)):
        for j in range(len(outputs)):
            if np.isfinite(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}{'*' if stars[i, j] else ''}", ha="center", va="center", fontsize=7,
                        color="white" if grid[i, j] < 0.6 else "black")
    fig.colorbar(im, ax=ax, label="total Sobol' index (or Morris mu* share)")
    fig.tight_layout()
    return fig


def run_sensitivity(experiment: DesignExperiment, *, results: Path, cache: Path, workers: int = 1,
                    progress: bool = False, report: bool = True, say=None) -> SensitivityResult:
    t0 = time.perf_counter()
    out = results / experiment.name
    player = Player(experiment, cache, workers, progress)

    def evaluate(units):
        return player.play(experiment.plan(units)).values

    # the Sobol' stage's points are validated before any of them plays (the Morris ones were, at load)
    screening, sobol, survivors, n_morris, n_sobol = analyse_sensitivity(
        experiment, evaluate, check=lambda design: check_setups(experiment, design))
    result = SensitivityResult(experiment, out, screening, sobol, survivors, n_morris, n_sobol, player.batches,
                               player.games_simulated, experiment.games, time.perf_counter() - t0)
    result.answer = sensitivity_answer(experiment, screening, sobol, experiment.games)
    if report:
        result.report = write_sensitivity(result)
    return result


# --- [tune] ---------------------------------------------------------------------------------------

def target_values(target: Target, values: dict[tuple[str, str], np.ndarray]) -> dict[str, np.ndarray]:
    """Per key of the target's metric: the per-game values the target reads (minus the per-game mean of
    the keys for `of = "mean"`)."""
    keys = {k: v for (m, k), v in values.items() if m == target.metric}
    if target.relative == "mean" and keys:
        stack = np.vstack(list(keys.values()))
        centre = np.nanmean(stack, axis=0)
        keys = {k: v - centre for k, v in keys.items()}
    if target.keys:
        keys = {k: v for k, v in keys.items() if k in target.keys}
    return keys


def _means(d: dict[str, np.ndarray]) -> dict[str, float]:
    return {k: float(np.nanmean(v)) if np.isfinite(v).any() else float("nan") for k, v in d.items()}


@dataclass
class TuneResult:
    experiment: DesignExperiment
    out: Path
    trials: pl.DataFrame              # trial, key values, objective per target
    candidates: pl.DataFrame          # candidate, target, key, estimate, low, high, p_value, alpha, meets
    verdicts: pl.DataFrame            # candidate, meets_all, values, file
    changes: pl.DataFrame             # candidate vs starting variant: metric, key, difference, low, high, p_adjusted
    files: list[Path]
    batches: int
    games_simulated: int
    seconds: float
    answer: str = ""
    report: Path | None = None


def optimise(experiment: DesignExperiment, evaluate) -> tuple[pl.DataFrame, list[np.ndarray]]:
    """optuna over the unit cube (seeded TPE; one objective per target). The starting variant's point is
    the first trial. Returns the trial table and the distinct candidate points, best first (Pareto front
    first, then by the worst objective)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    o, targets, ranges = experiment.options, experiment.targets, experiment.ranges
    directions = ["minimize"] * len(targets)
    sampler = optuna.samplers.TPESampler(seed=o["seed"], multivariate=True, n_startup_trials=min(10, o["trials"]))
    study = optuna.create_study(directions=directions, sampler=sampler)
    study.enqueue_trial({r.name: float(u) for r, u in zip(ranges, base_units(experiment))})
    rows, points = [], []
    for t in range(o["trials"]):
        trial = study.ask()
        units = np.array([trial.suggest_float(r.name, 0.0, 1.0) for r in ranges])
        # snap to the values really played (integers), so equal set-ups are one point
        snapped = np.array([(float(r.value(u)) - r.low) / (r.high - r.low) for r, u in zip(ranges, units)])
        values = evaluate(snapped)
        objs = [t_.objective(_means(target_values(t_, values))) for t_ in targets]
        study.tell(trial, objs if len(objs) > 1 else objs[0])
        rows.append({"trial": t + 1, **values_at(ranges, snapped),
                     **{f"objective: {t_.text}": v for t_, v in zip(targets, objs)}, "worst": max(objs)})
        points.append(snapped)
    table = pl.DataFrame(rows)
    order = np.argsort(table["worst"].to_numpy(), kind="stable")
    front = {t.number for t in study.best_trials}
    order = sorted(order, key=lambda i: (i not in front, table["worst"][int(i)]))
    distinct, seen = [], set()
    for i in order:
        key = tuple(points[i])
        if key in seen or not math.isfinite(table["worst"][int(i)]):
            continue
        seen.add(key)
        distinct.append(points[i])
    return table, distinct


def recheck(experiment: DesignExperiment, candidates: list[np.ndarray], start: dict, fresh) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Each candidate on fresh games against the starting variant on the same fresh games: the targets
    by equivalence / one-sided tests (each key at alpha / candidates: every key must pass), every
    metric's paired difference from the start (Benjamini-Hochberg over every row)."""
    from analysis.compare import adjust_family, paired_difference

    alpha = experiment.alpha
    level = alpha / max(1, len(candidates))
    t_rows, v_rows, c_rows = [], [], []
    for c, units in enumerate(candidates, start=1):
        values = fresh(units)
        all_ok = True
        for target in experiment.targets:
            per_key = target_values(target, values)
            target_ok = bool(per_key)
            for key, v in per_key.items():
                p = target.p_value(v)
                ok = bool(math.isfinite(p) and p < level)
                target_ok &= ok
                finite = v[np.isfinite(v)]
                t_rows.append({"candidate": c, "target": target.text, "key": key,
                               "estimate": float(finite.mean()) if finite.size else float("nan"),
                               "p_value": p, "alpha": level, "shown": ok})
            all_ok &= target_ok
        v_rows.append({"candidate": c, "meets_all_targets": all_ok,
                       **{k: _fmt(v) for k, v in values_at(experiment.ranges, units).items()}})
        for (metric, key), vb in values.items():
            va = start.get((metric, key))
            if va is None:
                continue
            ok = np.isfinite(va) & np.isfinite(vb)
            d = paired_difference(va[ok], vb[ok], experiment.confidence)
            c_rows.append({"candidate": c, "metric": metric, "key": key, "start": d.mean_a, "candidate_value": d.mean_b,
                           "difference": d.estimate, "low": d.low, "high": d.high, "test": d.test, "p_value": d.p_value})
    changes = pl.DataFrame(c_rows)
    if changes.height:
        p = changes["p_value"].to_numpy()
        finite = np.isfinite(p)
        adj = np.full(p.size, np.nan)
        rej = np.zeros(p.size, dtype=bool)
        if finite.any():
            a = adjust_family(p[finite], alpha, "fdr_bh")
            adj[finite], rej[finite] = a.adjusted, a.reject
        changes = changes.with_columns(pl.Series("p_adjusted", adj), pl.Series("moved", rej))
    return pl.DataFrame(t_rows), pl.DataFrame(v_rows), changes


def candidate_toml(experiment: DesignExperiment, c: int, units: np.ndarray, target_rows: pl.DataFrame,
                   changes: pl.DataFrame, meets: bool, command: str) -> str:
    """A variant file of the candidate: extends the starting variant, sets the experiment's overrides and
    the tuned keys; its comments hold its re-checked figures and the command that made it."""
    overrides = overrides_at(experiment.ranges, units, experiment.base_flat, experiment.overrides)
    n = experiment.options["recheck_games"]
    lines = [f"# Candidate {c} of the [tune] experiment '{experiment.name}' ({experiment.game}).",
             f"# Made by: {command}",
             f"# Re-checked on {n:,} fresh games (seed {experiment.options['recheck_seed']}), paired with the starting "
             f"variant on the same games; each key tested at alpha "
             f"{float(target_rows['alpha'][0]) if target_rows.height else experiment.alpha:.4g}.",
             f"# Meets every target: {'yes (shown by the tests below)' if meets else 'NOT shown'}"]
    for r in target_rows.filter(pl.col("candidate") == c).iter_rows(named=True):
        lines.append(f"#   {r['target']}: {r['key']} = {r['estimate']:.4g} (p {r['p_value']:.3g}; "
                     f"{'shown' if r['shown'] else 'not shown'})")
    moved = changes.filter((pl.col("candidate") == c) & pl.col("moved")) if changes.height else changes
    if moved.height:
        lines.append("# What else moved against the starting variant (paired, Benjamini-Hochberg):")
        for r in moved.iter_rows(named=True):
            lines.append(f"#   {r['metric']}[{r['key']}]: {r['start']:.4g} -> {r['candidate_value']:.4g} "
                         f"({r['difference']:+.4g} [{r['low']:+.4g}, {r['high']:+.4g}])")
    base = experiment.variant or "default"
    if experiment.spec.variants._is_path(base):
        base = str(Path(base).resolve())
    lines.append(f"extends = {json.dumps(base)}")
    sections: dict[str, dict[str, Any]] = {}
    top: dict[str, Any] = {}
    for key, value in sorted(overrides.items()):
        if "." in key:
            section, leaf = key.rsplit(".", 1)
            sections.setdefault(section, {})[leaf] = value
        else:
            top[key] = value
    for key, value in top.items():
        lines.append(f"{key} = {_toml_value(value)}")
    for section, items in sections.items():
        lines.append(f"[{section}]")
        for leaf, value in items.items():
            lines.append(f"{leaf} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value) if isinstance(value, float) else str(value)


def tune_answer(experiment: DesignExperiment, verdicts: pl.DataFrame, targets: pl.DataFrame) -> str:
    lines = []
    for r in verdicts.iter_rows(named=True):
        c = r["candidate"]
        setting = ", ".join(f"{k.name}={r[k.name]}" for k in experiment.ranges)
        if r["meets_all_targets"]:
            lines.append(f"- Candidate {c} ({setting}) meets the target: every key shown inside it on fresh games.")
        else:
            missed = targets.filter((pl.col("candidate") == c) & ~pl.col("shown"))
            what = "; ".join(f"{t} ({', '.join(f'{m[0]} {m[1]:.3g}' for m in zip(g['key'], g['estimate']))})"
                             for (t,), g in missed.group_by(["target"], maintain_order=True))
            lines.append(f"- Candidate {c} ({setting}): not shown to meet {what}.")
    return "\n".join(lines) if lines else "No candidate could be played."


def run_tune(experiment: DesignExperiment, *, results: Path, cache: Path, workers: int = 1, progress: bool = False,
             report: bool = True, command: str = "") -> TuneResult:
    t0 = time.perf_counter()
    out = results / experiment.name
    player = Player(experiment, cache, workers, progress)
    o = experiment.options

    def evaluate(units):
        try:
            plan = experiment.plan(units)
        except ExperimentError as exc:  # a set-up inside the ranges the game refuses: no games, worst objective
            return {}
        return player.play(plan).values

    trials, candidates = optimise(experiment, evaluate)
    candidates = candidates[:o["keep"]]
    n, seed = o["recheck_games"], o["recheck_seed"]
    start = player.play(experiment.base_plan(seed=seed, games=n), n).values
    targets, verdicts, changes = recheck(
        experiment, candidates, start, lambda u: player.play(experiment.plan(u, seed=seed, games=n), n).values)
    files = []
    out.mkdir(parents=True, exist_ok=True)
    folder = out / "candidates"
    folder.mkdir(exist_ok=True)
    for old in folder.glob("candidate_*.toml"):  # ours: this folder is the experiment's own (checked before)
        old.unlink()
    command = command or f"skyline-lab run {experiment.path}"
    for c, units in enumerate(candidates, start=1):
        meets = bool(verdicts.filter(pl.col("candidate") == c)["meets_all_targets"][0])
        path = folder / f"candidate_{c}.toml"
        path.write_text(candidate_toml(experiment, c, units, targets, changes, meets, command))
        files.append(path)
    if verdicts.height:
        verdicts = verdicts.with_columns(pl.Series("file", [str(f) for f in files]))
    result = TuneResult(experiment, out, trials, targets, verdicts, changes, files, player.batches,
                        player.games_simulated, time.perf_counter() - t0)
    result.answer = tune_answer(experiment, verdicts, targets)
    if report:
        result.report = write_tune(result)
    return result


# --- reports ---------------------------------------------------------------------------------------

def _write(result, sections, tables: dict[str, pl.DataFrame], extra: dict) -> Path:
    from analysis.report import render_html, render_markdown
    out = result.out
    figures = out / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    for section in sections:
        for plot in section.plots:
            plot.figure.savefig(figures / f"{plot.name}.png", dpi=110)
    exp = result.experiment
    title = f"Experiment {exp.name}: {exp.title}"
    (out / "report.md").write_text(render_markdown(title, sections))
    (out / "report.html").write_text(render_html(title, sections, figures_dir=figures))
    for name, table in tables.items():
        if table.height:
            table.write_csv(out / f"{name}.csv")
    manifest = {"experiment": exp.name, "file": str(exp.path), "digest": exp.digest, "kind": exp.kind,
                "game": exp.game, "question": exp.question, "seed": exp.seed, "games_per_point": exp.games,
                "ranges": {r.name: [r.low, r.high] for r in exp.ranges}, "options": exp.options,
                "metrics": exp.metrics, "batches": result.batches, "games_simulated_now": result.games_simulated,
                "seconds": round(result.seconds, 3), **extra}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str))
    return out / "report.md"


def _setup(exp: DesignExperiment) -> pl.DataFrame:
    base = exp.base_plan()
    return pl.DataFrame({"setting": ["game", "variant", "overrides", "players", "line-up", "games per point", "seed"],
                         "value": [exp.game, exp.variant or "default", json.dumps(exp.overrides), str(base.players),
                                   ", ".join(base.policies), f"{exp.games:,}", str(exp.seed)]})


def write_sensitivity(result: SensitivityResult) -> Path:
    from analysis.sections import Plot, Section
    exp = result.experiment
    keys = [r.name for r in exp.ranges]
    ranges = pl.DataFrame({"key": keys, "low": [r.low for r in exp.ranges], "high": [r.high for r in exp.ranges],
                           "kind": [r.kind for r in exp.ranges]})
    method = (f"Morris screening (SALib): {exp.options['trajectories']} trajectories on {exp.options['levels']} levels, "
              f"{result.morris_points} points; mu* is the mean absolute change of an output when a key moves "
              f"{exp.options['levels'] / (2 * (exp.options['levels'] - 1)):.2f} of its range, with SALib's bootstrap "
              f"interval. 'Matters' = some step of the key changes the output by a paired test on the same games "
              f"(Bonferroni over its steps, Holm over every key x output at alpha {exp.alpha:g}); no claim is made "
              f"that a key does not matter. Sobol' first-order (S1) and total (ST) indices (SALib, Saltelli, "
              f"N = {exp.options['sobol_base']}, {result.sobol_points} points) for the surviving keys "
              f"({', '.join(result.survivors) or 'none'}), with SALib's bootstrap intervals; noise_share is the "
              f"game-to-game noise of a point's mean as a share of the output's variance over the points (near 1: "
              f"more games per point needed). An index is read (answer, heat map) only when noise_share is at most "
              f"{NOISE_READABLE:g} and its intervals are at most {WIDTH_READABLE:g} wide, clipped to [0, 1]; else "
              f"the table's 'reading' says it is too wide to read: luck adds to every key's total index, which is "
              f"how an ST above 1 arises. Every point plays games 0..{exp.games - 1} of seed {exp.seed}.")
    sections = [Section("Question", f"> {exp.question or '(no question written in the file)'}"),
                Section("Answer", result.answer),
                Section("Set-up", tables=[("experiment", _setup(exp)), ("ranges", ranges)]),
                Section("Method", method),
                Section("Sensitivity map", "Keys x outputs (a star: the key matters for the output).",
                        tables=[("Morris screening", result.screening), ("Sobol' indices", result.sobol)],
                        plots=[Plot("sensitivity_heat_map", heat_map(result.screening, result.sobol, keys),
                                    "total Sobol' index (surviving keys) or Morris mu* share, keys x outputs")]),
                Section("Cost", f"{result.batches} batches, {result.games_simulated:,} games simulated now "
                                f"(the rest from the cache), {result.seconds:,.1f} s.")]
    return _write(result, sections, {"screening": result.screening, "sobol": result.sobol},
                  {"survivors": result.survivors, "morris_points": result.morris_points,
                   "sobol_points": result.sobol_points})


def write_tune(result: TuneResult) -> Path:
    from analysis.sections import Section
    exp = result.experiment
    o = exp.options
    method = (f"optuna TPE (seed {o['seed']}; {'multi-objective, ' if len(exp.targets) > 1 else ''}one objective per "
              f"target: the worst key's distance from the target in units of its half-width), {o['trials']} trials "
              f"of {exp.games:,} games on seed {exp.seed}, the starting variant first. The {len(result.files)} best "
              f"distinct candidates were re-checked on {o['recheck_games']:,} fresh games (seed {o['recheck_seed']}) "
              f"with the starting variant on the same games: a 'within'/'between' target by two one-sided tests "
              f"(analysis.stats.equivalence_p), 'at least'/'at most' by a one-sided t-test, every key at alpha "
              f"{exp.alpha:g}/{len(result.files)}; a candidate meets the target only when every key is shown. Every "
              f"metric's paired change from the starting variant: analysis.compare.paired_difference, "
              f"Benjamini-Hochberg over all rows.")
    sections = [Section("Question", f"> {exp.question or '(no question written in the file)'}"),
                Section("Answer", result.answer),
                Section("Set-up", tables=[("experiment", _setup(exp)),
                                          ("targets", pl.DataFrame({"target": [t.text for t in exp.targets]}))]),
                Section("Method", method),
                Section("Candidates", "Each kept candidate's variant file (results folder, candidates/).",
                        tables=[("candidates", result.verdicts), ("targets on fresh games", result.candidates)]),
                Section("What else moved", "Every metric and key, candidate minus the starting variant on the same "
                                           "fresh games.", tables=[("paired changes", result.changes)]),
                Section("Trials", tables=[("trials", result.trials)]),
                Section("Cost", f"{result.batches} batches, {result.games_simulated:,} games simulated now "
                                f"(the rest from the cache), {result.seconds:,.1f} s.")]
    return _write(result, sections, {"trials": result.trials, "targets": result.candidates,
                                     "candidates": result.verdicts, "changes": result.changes},
                  {"candidates": [str(f) for f in result.files]})


# --- entry points ---------------------------------------------------------------------------------

def run_design(experiment: DesignExperiment, *, results: str | Path = DEFAULT_RESULTS, cache: str | Path | None = None,
               workers: int = 1, progress: bool = False, report: bool = True, games: int | None = None,
               command: str = ""):
    from dataclasses import replace
    if games is not None:
        if games < 2:
            raise ExperimentError("command line", "games", f"must be at least 2, not {games}")
        experiment = replace(experiment, games=games)
    results = Path(results)
    out = results / experiment.name
    cache_dir = Path(cache) if cache is not None else results / CACHE_NAME
    require_writable(out)
    require_writable(cache_dir)
    require_ours_or_empty(out)
    cache_dir.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    if experiment.kind == "sensitivity":
        return run_sensitivity(experiment, results=results, cache=cache_dir, workers=workers, progress=progress,
                               report=report)
    return run_tune(experiment, results=results, cache=cache_dir, workers=workers, progress=progress, report=report,
                    command=command)


def load_any(path: str | Path):
    """Any experiment file: a DesignExperiment for [sensitivity] / [tune], else experiment.load_experiment's."""
    path = Path(path)
    if path.is_file():
        try:
            data = tomllib.loads(text := path.read_text())
        except tomllib.TOMLDecodeError:
            data = None
        if isinstance(data, dict) and is_design_file(data):
            return load(path, data, text)
    return load_experiment(path)


def run_any(path_or_experiment, **options):
    """Run any experiment file (or a loaded one): run_design for [sensitivity] / [tune], else run_experiment."""
    experiment = path_or_experiment
    if not isinstance(experiment, (DesignExperiment, Experiment)):
        experiment = load_any(experiment)
    if isinstance(experiment, DesignExperiment):
        options.pop("precision", None)
        return run_design(experiment, **options)
    return run_experiment(experiment, **options)


def cli_run(path: Path, *, results: Path | None = None, workers: int = 1, progress: bool = True,
            report: bool = True, games: int | None = None):
    """`skyline-lab run <file>.toml`. A [sensitivity] or [tune] file: say what it will play, play it (from
    the cache where possible), print the answer and where the report is; any other kind:
    as experiment.cli_run. A bad file or option: one line, exit 2."""
    from dataclasses import replace

    import typer

    from experiments import experiment as E

    def play():
        experiment = load_any(path)
        if not isinstance(experiment, DesignExperiment):
            return run_experiment(path, results=results or DEFAULT_RESULTS, workers=workers, progress=progress,
                                  report=report, games=games)
        if games is not None:     # the CLI passes it only when --games was typed
            if games < 2:
                raise ExperimentError("command line", "games", f"must be at least 2, not {games}")
            experiment = replace(experiment, games=games)
        typer.echo(plan_text(experiment))
        command = f"skyline-lab run {path}" + (f" --games {games}" if games else "")
        return run_design(experiment, results=results or DEFAULT_RESULTS, workers=workers, progress=progress,
                          report=report, command=command)

    def played_line(result) -> str:
        if not isinstance(result, (SensitivityResult, TuneResult)):
            return E.played_line(result)
        return (f"{result.batches} batches, {result.games_simulated:,} games simulated now (the rest from the "
                f"cache) in {result.seconds:,.1f} s")

    return E.run_for_cli(play, played_line)
