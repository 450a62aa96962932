"""Declarative experiments: a designer's question written down once, in TOML.

    skyline-lab run experiments/skyline_megamall_multiplier.toml

An experiment file names a game, a base set-up and the metrics of interest,
plus at most one of a sweep, a comparison, a fairness matrix or a skill ladder:

    # What happens to the first builder's edge if Megamalls triple instead of double?
    [experiment]
    game = "skyline_3000"
    variant = "default"                 # optional; a variant name or a .toml path
    overrides = { "scoring.first_base" = 2 }   # optional rule changes for every run
    players = 4                         # optional; the variant's default otherwise
    policies = ["heuristic"]            # one for every seat, or one per seat
    rotate = true                       # optional; seats rotate through the line-up
    games = 20000
    seed = 1
    metrics = ["first_builder_win_rate", "seat_edge", "score_spread", "margin"]
    answer = ["first_builder_win_rate"]    # optional; metrics the answer discusses (default: the first)
    confidence = 0.95                   # optional
    seat_margin = 0.02                  # optional: largest seat edge that does not matter; "fair" is
                                        # concluded only when every seat is shown inside +-margin (TOST)

    [sweep]                             # a grid: every combination is one batch
    "scoring.megamall_multiplier" = [1, 2, 3, 4]        # or { start = 1, stop = 4, step = 1 }

    [compare]                           # or named arms, each a change of the base
    baseline = "printed"                # optional; the first arm otherwise
    [compare.printed]
    [compare.tighter]
    variant = "three_player_5_platforms"   # arms may set variant, overrides, players, policies, rotate

    [fairness]                          # or: seat win rates for players x policy skill
    players = [2, 3, 4]
    policies = ["random", "greedy", "heuristic"]   # weakest first

    [ladder]                            # or: every figure at each rung of the skill ladder
    rungs = ["random", "greedy", "heuristic", "search(iterations=100)"]   # weakest first; default:
                                        # the game's GameSpec.ladder (a game without one must name them)
    players = 4                         # optional (or experiment.players; not both)

    [precision]                         # optional: add games until the intervals are narrow enough
    metrics = ["first_builder_win_rate"]   # default: the answer metrics
    half_width = 0.005                  # target 95% half-width
    max_games = 200000                  # cap per batch
    on = "differences"                  # or "estimates"; default: differences for sweeps/comparisons

    [power]                             # optional: games needed to detect these effects
    effects = { seat_score_edge = 2.0 }
    power = 0.8
    alpha = 0.05

Everything is validated before any game runs or any folder is made: an
unknown key, a parameter the game does not have, a value outside the
variant's range, an unknown policy or metric is refused with the file, the
key and the reason (ExperimentError).

A ladder is a kind of its own (not combined with a sweep or a comparison: their
baselines and paired contrasts are between arms, a ladder's verdict is across
rungs). Each rung is one self-play batch, every seat the rung's policy, so
experiment.policies is refused there; the report gets "Across the ladder":
each metric and key per rung side by side, weakest first, with a verdict
(analysis.ladder.row_verdict, paired on the game, corrected over rungs x keys; "search..." rungs
and the game's strong_policies count as strong play; "no effect" only inside seat_margin or the metric's declared margin).

Every arm of an experiment is played on the same seed, so game i of every
arm has the same deals and dice wherever the rules allow: differences are
paired game by game (analysis/compare.py). Each batch is a run folder of the
runner under a shared cache (results/_runs/ by default), named after
everything that determines its games (game, engine version, engine source
digest, variant digest, players, line-up, rotation, seed), so the same batch
is never simulated twice, an interrupted experiment resumes, asking for more
games extends the folder instead of starting again, and an edited engine
never reuses games played before the edit.
"""
from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
import re
import time
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis import metrics as M
from analysis import runfolder
from analysis.ladder import is_strong
from engines.core.lineup import LineupError
from engines.core.variant import VariantError, flatten
from engines.registry import get_game
from experiments.ladder import default_findings
from experiments.runner import RunConfig, RunError, default_chunk_size, prepare, run_batch

KINDS = ("single", "sweep", "compare", "fairness", "ladder")
TOP_KEYS = ("experiment", "sweep", "compare", "fairness", "ladder", "precision", "power")
EXPERIMENT_KEYS = ("name", "question", "game", "variant", "overrides", "players", "policies", "rotate", "games",
                   "seed", "metrics", "answer", "confidence", "seat_margin")
ARM_KEYS = ("variant", "overrides", "players", "policies", "rotate", "label")
COMPARE_OPTIONS = ("baseline", "pairs")
FAIRNESS_KEYS = ("players", "policies")
LADDER_KEYS = ("rungs", "players")
PRECISION_KEYS = ("metrics", "half_width", "max_games", "on")
POWER_KEYS = ("effects", "power", "alpha")
RANGE_KEYS = {"start", "stop", "step"}
MAX_POINTS = 200
DEFAULT_METRICS = ["seat_win_rate", "seat_edge", "score_mean", "score_spread", "margin", "game_length",
                   "tie_rate", "stall_rate"]
SOLO_DEFAULT_METRICS = ["score_mean", "game_length", "stall_rate"]
DEFAULT_RESULTS = Path("results")
CACHE_NAME = "_runs"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# a search seat makes a game cost seconds, not microseconds: small chunks keep an
# interrupted batch's loss, the progress bar and the spread over workers fine-grained
SEARCH_CHUNK = 25


class ExperimentError(ValueError):
    """An experiment file that cannot run: names the file, the key and why."""

    def __init__(self, source: str, key: str, reason: str):
        self.source, self.key, self.reason = source, key, reason
        super().__init__(f"{source}: key '{key}': {reason}")


# --- the parsed experiment -----------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    """One batch of an experiment: an arm, a sweep point or a fairness cell."""

    label: str
    params: dict[str, Any]            # swept values at this point; for fairness {"players", "policy"}
    variant: str | None
    overrides: dict[str, Any]
    players: int
    policies: list[str]
    rotate: bool
    config: RunConfig
    engine_version: str

    @property
    def key(self) -> dict[str, Any]:
        """The runner's key of this batch: engine version, engine source digest,
        variant digest, line-up, seed (and chunk size)."""
        return self.config.key(self.engine_version)

    @property
    def folder_name(self) -> str:
        """Cache folder: everything that determines the games, nothing else
        (so an edited engine or variant gets a folder of its own)."""
        key = _games_key(self.key)
        short = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:10]
        c = self.config
        return f"{c.game}-{c.variant.name}-{c.players}p-seed{c.seed}-{short}"


def _games_key(key: dict[str, Any]) -> dict[str, Any]:
    """A run key without the chunk size: what decides the games themselves."""
    return {k: v for k, v in key.items() if k != "chunk_size"}


@dataclass(frozen=True)
class Precision:
    metrics: list[str]
    half_width: float
    max_games: int
    on: str   # "estimates" or "differences"


@dataclass(frozen=True)
class PowerSpec:
    effects: dict[str, float]
    power: float = 0.8
    alpha: float = 0.05


@dataclass(frozen=True)
class Experiment:
    path: Path
    name: str
    question: str
    game: str
    title: str
    kind: str
    plans: list[Plan]
    baseline: int
    pairs: str                         # "baseline" or "all"
    games: int
    seed: int
    metrics: list[str]
    answer: list[str]
    confidence: float
    precision: Precision | None
    power: PowerSpec | None
    sweep_keys: list[str] = field(default_factory=list)
    fairness_players: list[int] = field(default_factory=list)
    fairness_policies: list[str] = field(default_factory=list)
    rungs: list[str] = field(default_factory=list)   # a ladder's rungs, weakest first (one batch each)
    digest: str = ""
    margin: float | None = None        # seat-edge equivalence margin (win-rate points); None: no fairness test

    @property
    def all_metrics(self) -> list[str]:
        """Metrics to compute: the asked ones, the precision and power ones, and the balance ones."""
        names = list(self.metrics)
        extra = list(self.answer)
        if self.precision:
            extra += self.precision.metrics
        if self.power:
            extra += list(self.power.effects)
        if max(p.players for p in self.plans) > 1:
            extra += ["seat_win_rate", "seat_edge"]
        extra += [m.name for m in M.metrics_for(self.game).values() if m.dominance]
        for name in extra:
            if name not in names:
                names.append(name)
        return names

    def pairs_to_compare(self) -> list[tuple[int, int]]:
        if self.kind not in ("sweep", "compare") or len(self.plans) < 2:
            return []
        if self.pairs == "all":
            return list(itertools.combinations(range(len(self.plans)), 2))
        return [(self.baseline, i) for i in range(len(self.plans)) if i != self.baseline]


# --- reading and validating a file -------------------------------------------------------

def first_comment(text: str) -> str:
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            words = stripped.lstrip("#").strip()
            if not words and lines:
                break  # the question is the first paragraph of comments
            if words:
                lines.append(words)
        elif stripped:
            break
        elif lines:
            break
    return " ".join(lines).strip()


def _unknown(source: str, where: str, key: str, known) -> ExperimentError:
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    prefix = f"{where}." if where else ""
    return ExperimentError(source, f"{prefix}{key}", f"unknown key{hint}; known: {', '.join(known)}")


def check_known_metric(source: str, where: str, metric: str, known, game: str) -> None:
    if metric not in known:
        close = difflib.get_close_matches(metric, list(known), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        if new := M.renamed_metric(game, metric):
            hint = f" (renamed: use '{new}')"
        raise ExperimentError(source, where, f"unknown metric '{metric}' for {game}{hint}; known: {', '.join(known)}")


def check_keys(source: str, where: str, table: dict, known) -> None:
    for key in table:
        if key not in known:
            raise _unknown(source, where, key, known)


def expect_value(source: str, key: str, value: Any, kind: str) -> Any:
    ok = {
        "str": isinstance(value, str),
        "int": isinstance(value, int) and not isinstance(value, bool),
        # nan and inf are TOML numbers, but nan compares False with every bound and passed them
        "number": isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value),
        "bool": isinstance(value, bool),
        "table": isinstance(value, dict),
        "str_list": isinstance(value, list) and all(isinstance(v, str) for v in value),
        "int_list": isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value),
    }[kind]
    if not ok:
        words = {"str": "a string", "int": "an integer", "number": "a finite number", "bool": "true or false",
                 "table": "a table", "str_list": "a list of strings", "int_list": "a list of integers"}
        raise ExperimentError(source, key, f"must be {words[kind]}, not {value!r}")
    return value


def _sweep_values(source: str, key: str, value: Any) -> list[Any]:
    where = f"sweep.{key}"
    if isinstance(value, dict):
        check_keys(source, where, value, ("start", "stop", "step"))
        if "start" not in value or "stop" not in value:
            raise ExperimentError(source, where, "a range needs start and stop (and optionally step)")
        start, stop, step = value["start"], value["stop"], value.get("step", 1)
        for name, v in (("start", start), ("stop", stop), ("step", step)):
            expect_value(source, f"{where}.{name}", v, "number")
        if step <= 0:
            raise ExperimentError(source, f"{where}.step", f"must be positive, not {step}")
        if stop < start:
            raise ExperimentError(source, f"{where}.stop", f"must not be below start ({start}), not {stop}")
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        if count > MAX_POINTS:
            raise ExperimentError(source, where, f"the range has {count} values; at most {MAX_POINTS}")
        integral = all(isinstance(v, int) for v in (start, stop, step))
        return [start + i * step if integral else round(start + i * step, 10) for i in range(count)]
    if not isinstance(value, list) or not value:
        raise ExperimentError(source, where, f"must be a non-empty list of values or a range "
                                             f"{{ start = .., stop = .., step = .. }}, not {value!r}")
    return list(value)


def _flatten_sweep(source: str, table: dict, prefix: str = "") -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and not (set(value) <= RANGE_KEYS and {"start", "stop"} <= set(value)):
            out.update(_flatten_sweep(source, value, dotted + "."))
        else:
            out[dotted] = _sweep_values(source, dotted, value)
    return out


def parse_overrides(source: str, where: str, value: Any) -> dict[str, Any]:
    expect_value(source, where, value, "table")
    return flatten(value)


def parse_policies(source: str, where: str, value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return list(expect_value(source, where, value, "str_list"))


def _short(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def _format_param(value: Any) -> str:
    return json.dumps(value) if isinstance(value, (list, dict)) else str(value)


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment file; nothing is written or played."""
    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise ExperimentError(source, "(file)", "no such experiment file")
    text = path.read_text()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(source, "(file)", f"not valid TOML: {exc}") from None
    if design := [k for k in ("sensitivity", "tune") if k in data]:
        raise ExperimentError(source, design[0], f"a [{design[0]}] experiment is read by "
                                                 "experiments.variant_design.load_any (`skyline-lab run` reads both)")
    check_keys(source, "", data, TOP_KEYS)
    if "experiment" not in data:
        raise ExperimentError(source, "experiment", "missing: the file needs an [experiment] table")
    exp = expect_value(source, "experiment", data["experiment"], "table")
    check_keys(source, "experiment", exp, EXPERIMENT_KEYS)

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
    games = expect_value(source, "experiment.games", exp.get("games", 10_000), "int")
    if games < 2:
        raise ExperimentError(source, "experiment.games", f"must be at least 2, not {games}")
    if games > 1_000_000_000:
        raise ExperimentError(source, "experiment.games", f"must be at most 1,000,000,000 per batch, not {games:,}")
    seed = expect_value(source, "experiment.seed", exp.get("seed", 0), "int")
    if not 0 <= seed < 2**63:
        raise ExperimentError(source, "experiment.seed", f"must be between 0 and 2**63-1, not {seed}")
    confidence = expect_value(source, "experiment.confidence", exp.get("confidence", 0.95), "number")
    if not 0.5 <= confidence < 1:
        raise ExperimentError(source, "experiment.confidence", f"must be in [0.5, 1), not {confidence}")
    margin = exp.get("seat_margin")
    if margin is not None:
        expect_value(source, "experiment.seat_margin", margin, "number")
        if not 0 < margin < 1:
            raise ExperimentError(source, "experiment.seat_margin", f"must be between 0 and 1, not {margin}")
        margin = float(margin)
    base_variant = exp.get("variant")
    if base_variant is not None:
        expect_value(source, "experiment.variant", base_variant, "str")
    base_overrides = parse_overrides(source, "experiment.overrides", exp.get("overrides", {}))
    base_players = exp.get("players")
    if base_players is not None:
        expect_value(source, "experiment.players", base_players, "int")
    base_policies = parse_policies(source, "experiment.policies", exp.get("policies"))
    base_rotate = expect_value(source, "experiment.rotate", exp.get("rotate", True), "bool")

    kinds = [k for k in ("sweep", "compare", "fairness", "ladder") if k in data]
    if len(kinds) > 1:
        why = ("; a ladder plays every rung of one set-up (write one ladder file per set-up)"
               if "ladder" in kinds else "")
        raise ExperimentError(source, kinds[1], f"an experiment is one of a sweep, a comparison, a fairness "
                                                f"matrix or a ladder; this file has [{kinds[0]}] and [{kinds[1]}]{why}")
    kind = kinds[0] if kinds else "single"

    # (label, params, variant, overrides, players, policies, rotate, where-map for errors)
    raw_plans: list[tuple[str, dict, str | None, dict, int | None, list[str] | None, bool, dict[str, str]]] = []
    base_where = {k: f"experiment.overrides.{k}" for k in base_overrides}
    baseline, pairs = 0, "baseline"
    arm_of: dict[str, str] = {}   # a compare batch's label -> its arm's table name (errors name the table)
    arm_keys: dict[str, set[str]] = {}   # ... and the keys the arm sets itself (else [experiment]'s apply)
    sweep_keys: list[str] = []
    fairness_players: list[int] = []
    fairness_policies: list[str] = []
    rungs: list[str] = []
    players_key = "experiment.players"

    if kind == "single":
        raw_plans.append((base_variant or "default", {}, base_variant, base_overrides, base_players,
                          base_policies, base_rotate, base_where))
    elif kind == "sweep":
        table = expect_value(source, "sweep", data["sweep"], "table")
        grid = _flatten_sweep(source, table)
        if not grid:
            raise ExperimentError(source, "sweep", "names no parameter to sweep")
        for key in grid:
            if key not in spec.variants.schema:
                close = difflib.get_close_matches(key, list(spec.variants.schema), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise ExperimentError(source, f"sweep.{key}", f"{spec.game_id} has no variant parameter '{key}'{hint}")
            if key in base_overrides:
                raise ExperimentError(source, f"sweep.{key}", "is also set in experiment.overrides; set it in one place")
        sweep_keys = list(grid)
        points = list(itertools.product(*grid.values()))
        if len(points) > MAX_POINTS:
            raise ExperimentError(source, "sweep", f"the grid has {len(points)} points; at most {MAX_POINTS}")
        shorts = [_short(k) for k in sweep_keys]
        names = shorts if len(set(shorts)) == len(shorts) else sweep_keys
        for point in points:
            params = dict(zip(sweep_keys, point))
            label = ", ".join(f"{n}={_format_param(v)}" for n, v in zip(names, point))
            where = {**base_where, **{k: f"sweep.{k}" for k in params}}
            raw_plans.append((label, params, base_variant, {**base_overrides, **params}, base_players,
                              base_policies, base_rotate, where))
    elif kind == "compare":
        table = expect_value(source, "compare", data["compare"], "table")
        arms = {k: v for k, v in table.items() if isinstance(v, dict)}
        for key, value in table.items():
            if not isinstance(value, dict) and key not in COMPARE_OPTIONS:
                raise _unknown(source, "compare", key, COMPARE_OPTIONS + ("<arm name> (a table)",))
        if len(arms) < 2:
            raise ExperimentError(source, "compare", f"needs at least two arms ([compare.<name>] tables), not {len(arms)}")
        for arm, body in arms.items():
            where_arm = f"compare.{arm}"
            check_keys(source, where_arm, body, ARM_KEYS)
            variant = body.get("variant", base_variant)
            if variant is not None:
                expect_value(source, f"{where_arm}.variant", variant, "str")
            overrides = parse_overrides(source, f"{where_arm}.overrides", body.get("overrides", {}))
            players = body.get("players", base_players)
            if players is not None:
                expect_value(source, f"{where_arm}.players", players, "int")
            policies = parse_policies(source, f"{where_arm}.policies", body.get("policies", base_policies))
            rotate = expect_value(source, f"{where_arm}.rotate", body.get("rotate", base_rotate), "bool")
            label = expect_value(source, f"{where_arm}.label", body.get("label", arm), "str")
            where = {**base_where, **{k: f"{where_arm}.overrides.{k}" for k in overrides}}
            raw_plans.append((label, {}, variant, {**base_overrides, **overrides}, players, policies, rotate, where))
            arm_of[label] = arm
            arm_keys[label] = set(body)
        arm_names = list(arms)
        if "baseline" in table:
            wanted = expect_value(source, "compare.baseline", table["baseline"], "str")
            if wanted not in arm_names:
                raise ExperimentError(source, "compare.baseline", f"no arm '{wanted}' (arms: {', '.join(arm_names)})")
            baseline = arm_names.index(wanted)
        pairs = expect_value(source, "compare.pairs", table.get("pairs", "baseline"), "str")
        if pairs not in ("baseline", "all"):
            raise ExperimentError(source, "compare.pairs", f"must be 'baseline' or 'all', not {pairs!r}")
    elif kind == "ladder":
        rungs, ladder_players = _ladder_table(source, spec, data["ladder"], exp)
        if ladder_players is not None:
            players_key = "ladder.players"
        for rung in rungs:  # self-play: every seat the rung's policy
            raw_plans.append((rung, {"rung": rung}, base_variant, base_overrides, ladder_players or base_players,
                              [rung], base_rotate, base_where))
    else:  # fairness
        table = expect_value(source, "fairness", data["fairness"], "table")
        check_keys(source, "fairness", table, FAIRNESS_KEYS)
        default_players = [p for p in (2, 3, 4, 5, 6) if spec.min_players <= p <= spec.max_players]
        fairness_players = list(expect_value(source, "fairness.players", table.get("players", default_players), "int_list"))
        fairness_policies = list(expect_value(source, "fairness.policies", table.get("policies", list(spec.policies)),
                                         "str_list"))
        if not fairness_players or not fairness_policies:
            raise ExperimentError(source, "fairness", "needs at least one player count and one policy")
        for p in fairness_players:
            if p < 2:
                raise ExperimentError(source, "fairness.players", f"seat fairness needs 2+ players, not {p}")
        for policy in fairness_policies:
            for p in fairness_players:
                raw_plans.append((f"{policy} {p}p", {"policy": policy, "players": p}, base_variant, base_overrides,
                                  p, [policy], base_rotate, base_where))

    # metrics
    metrics = expect_value(source, "experiment.metrics", exp.get("metrics", None) or [], "str_list") or None
    known = M.metrics_for(game)
    answer = expect_value(source, "experiment.answer", exp.get("answer", []), "str_list")
    for where, names in (("experiment.metrics", metrics or []), ("experiment.answer", answer)):
        for metric in names:
            check_known_metric(source, where, metric, known, game)

    # every batch, validated by the runner's own checks (variant ranges, line-ups, players)
    plans: list[Plan] = []
    for label, params, variant, overrides, players, policies, rotate, where in raw_plans:
        plans.append(prepare_plan(source, spec, game, label, params, variant, overrides, players, policies,
                                   rotate, games, seed, where, kind, players_key, arm=arm_of.get(label),
                                   arm_keys=arm_keys.get(label)))
    labels = [p.label for p in plans]
    if len(set(labels)) != len(labels):
        dup = next(label for label in labels if labels.count(label) > 1)
        raise ExperimentError(source, kind, f"two batches share the label '{dup}'")

    min_players = min(p.players for p in plans)
    if metrics is None:
        metrics = DEFAULT_METRICS if min_players > 1 else SOLO_DEFAULT_METRICS
        if kind == "fairness":
            metrics = ["seat_win_rate", "seat_edge"]
        if kind == "ladder":  # the ladder command's figures per rung
            metrics = [m for m in default_findings(game) if known[m].min_players <= min_players] or metrics
    for metric in list(metrics) + list(answer):
        need = known[metric].min_players
        if min_players < need:
            raise ExperimentError(source, "experiment.metrics",
                                  f"'{metric}' needs at least {need} players; a batch here has {min_players}")
    if kind == "fairness":
        for metric in ("seat_win_rate", "seat_edge"):
            if metric not in metrics:
                metrics = list(metrics) + [metric]
    if not answer:
        answer = ["seat_edge"] if kind == "fairness" else [metrics[0]]

    precision = None
    if "precision" in data:
        table = expect_value(source, "precision", data["precision"], "table")
        check_keys(source, "precision", table, PRECISION_KEYS)
        p_metrics = expect_value(source, "precision.metrics", table.get("metrics", list(answer)), "str_list")
        for metric in p_metrics:
            check_known_metric(source, "precision.metrics", metric, known, game)
        if "half_width" not in table:
            raise ExperimentError(source, "precision.half_width", "missing: the target half-width of the intervals")
        half_width = expect_value(source, "precision.half_width", table["half_width"], "number")
        if half_width <= 0:
            raise ExperimentError(source, "precision.half_width", f"must be positive, not {half_width}")
        max_games = expect_value(source, "precision.max_games", table.get("max_games", max(games, 100_000)), "int")
        if max_games > 1_000_000_000:
            raise ExperimentError(source, "precision.max_games", f"must be at most 1,000,000,000 per batch, "
                                                                 f"not {max_games:,}")
        if max_games < games:
            raise ExperimentError(source, "precision.max_games", f"must be at least experiment.games ({games}), "
                                                                 f"not {max_games}")
        default_on = "differences" if kind in ("sweep", "compare") else "estimates"
        on = expect_value(source, "precision.on", table.get("on", default_on), "str")
        if on not in ("estimates", "differences"):
            raise ExperimentError(source, "precision.on", f"must be 'estimates' or 'differences', not {on!r}")
        if on == "differences" and kind not in ("sweep", "compare"):
            raise ExperimentError(source, "precision.on", "'differences' needs a [sweep] or [compare]")
        precision = Precision(list(p_metrics), float(half_width), int(max_games), on)

    power = None
    if "power" in data:
        table = expect_value(source, "power", data["power"], "table")
        check_keys(source, "power", table, POWER_KEYS)
        effects = expect_value(source, "power.effects", table.get("effects", {}), "table")
        if not effects:
            raise ExperimentError(source, "power.effects", "names no effect: { metric = size, ... }")
        for metric, size in effects.items():
            check_known_metric(source, "power.effects", metric, known, game)
            expect_value(source, f"power.effects.{metric}", size, "number")
            if size <= 0:
                raise ExperimentError(source, f"power.effects.{metric}", f"must be positive, not {size}")
        level = expect_value(source, "power.power", table.get("power", 0.8), "number")
        alpha = expect_value(source, "power.alpha", table.get("alpha", 1 - confidence), "number")
        for key, v in (("power.power", level), ("power.alpha", alpha)):
            if not 0 < v < 1:
                raise ExperimentError(source, key, f"must be between 0 and 1, not {v}")
        power = PowerSpec({k: float(v) for k, v in effects.items()}, float(level), float(alpha))

    base_flat = {}
    if kind == "sweep":
        base_flat = spec.variants.load(base_variant, base_overrides, source=source).flat()
        baseline = next((i for i, p in enumerate(plans)
                         if all(base_flat.get(k) == v for k, v in p.params.items())), 0)

    return Experiment(
        path=path, name=name, question=question, game=game, title=spec.title, kind=kind, plans=plans,
        baseline=baseline, pairs=pairs, games=games, seed=seed, metrics=list(metrics), answer=list(answer),
        confidence=float(confidence), precision=precision, power=power, sweep_keys=sweep_keys,
        fairness_players=fairness_players, fairness_policies=fairness_policies, rungs=rungs,
        digest=hashlib.sha256(text.encode()).hexdigest()[:16], margin=margin,
    )


def _ladder_table(source: str, spec, table: Any, exp: dict) -> tuple[list[str], int | None]:
    """The [ladder] table: its rungs (default: the game's declared ladder) and its players."""
    table = expect_value(source, "ladder", table, "table")
    check_keys(source, "ladder", table, LADDER_KEYS)
    if "policies" in exp:
        raise ExperimentError(source, "experiment.policies", "a [ladder] sets every seat's policy (each rung plays "
                                                             "itself); leave experiment.policies out")
    if "rungs" in table:
        rungs = list(expect_value(source, "ladder.rungs", table["rungs"], "str_list"))
    elif spec.ladder:
        rungs = list(spec.ladder)
    else:
        raise ExperimentError(source, "ladder.rungs", f"{spec.game_id} declares no skill ladder (GameSpec.ladder): "
                                                      "name the rungs, weakest first")
    if len(rungs) < 2:
        raise ExperimentError(source, "ladder.rungs", f"a ladder needs at least two rungs to compare, not {len(rungs)}")
    if len(set(rungs)) != len(rungs):
        dup = next(r for r in rungs if rungs.count(r) > 1)
        raise ExperimentError(source, "ladder.rungs", f"the rung '{dup}' is named twice")
    players = table.get("players")
    if players is not None:
        expect_value(source, "ladder.players", players, "int")
        if "players" in exp:
            raise ExperimentError(source, "ladder.players", "is also set in experiment.players; set it in one place")
    return rungs, players


def prepare_plan(source, spec, game, label, params, variant, overrides, players, policies, rotate, games, seed,
                  where: dict[str, str], kind: str, players_key: str = "experiment.players",
                  arm: str | None = None, arm_keys: set[str] | None = None) -> Plan:
    # an error names the table the user wrote: [compare.<arm>] (its table name, not its label) when the
    # arm sets the key itself, else [experiment], whose value the arm inherited
    context = "experiment" if kind in ("single", "sweep", "fairness", "ladder") else f"compare.{arm or label}"

    def where_set(name: str) -> str:
        return "experiment" if arm_keys is not None and name not in arm_keys else context
    try:
        _, config = prepare(game, variant=variant, overrides=overrides, players=players, policies=policies,
                            rotate=rotate, n_games=games, seed=seed)
    except VariantError as exc:
        if exc.key in where:
            value = overrides.get(exc.key)
            raise ExperimentError(source, where[exc.key], f"{exc.reason} (value {_format_param(value)})") from None
        if exc.key == "variant" or "no variant" in exc.reason:
            raise ExperimentError(source, f"{context}.variant", exc.reason) from None
        raise ExperimentError(source, f"{context}.variant", str(exc)) from None
    except LineupError as exc:
        if kind == "ladder":
            raise ExperimentError(source, "ladder.rungs", f"rung '{label}': {exc}") from None
        raise ExperimentError(source, f"{where_set('policies')}.policies", str(exc)) from None
    except RunError as exc:
        key = f"{where_set('players')}.players" if "players" in str(exc) else context
        if kind == "ladder":
            key = players_key if "players" in str(exc) else "ladder"
        if kind == "fairness":
            key = "fairness.players" if "players" in str(exc) else "fairness"
        raise ExperimentError(source, key, str(exc)) from None
    lineup = list(config.lineup.labels)
    return Plan(label, dict(params), variant, dict(overrides), config.players, lineup, rotate, config,
                spec.engine_version)


# --- running -----------------------------------------------------------------------------

@dataclass
class RunRecord:
    plan: Plan
    path: Path
    games_simulated: int = 0
    seconds: float = 0.0


def _available_games(path: Path) -> int:
    """Games in the contiguous run of finished chunks from chunk 0. Every batch
    this module starts is a whole number of chunks, so that is chunks x chunk size."""
    return runfolder.contiguous_games(path)


def ensure_run(plan: Plan, n_games: int, cache: Path, workers: int = 1, progress: bool = False) -> RunRecord:
    """Make sure the cache holds at least `n_games` finished games of `plan`;
    simulate only what is missing. Game counts are kept to whole chunks so a
    later, longer request extends the folder exactly."""
    path = cache / plan.folder_name
    record = RunRecord(plan, path)
    chunk = None
    fresh = False
    if runfolder.is_run_folder(path):
        old = runfolder.read_manifest(path)
        if _games_key(old.get("config_key") or {}) != _games_key(plan.key):
            fresh = True  # not these games (another engine source or variant): never reuse, replace
        else:
            chunk = int(old.get("chunk_size") or 0) or None
            if _available_games(path) >= n_games:
                return record
    if chunk is None:  # equal chunks of about the runner's default size that add up to n_games
        size = SEARCH_CHUNK if any(is_strong(p) for p in plan.policies) else default_chunk_size(n_games)
        pieces = int(math.ceil(n_games / size))
        chunk = int(math.ceil(n_games / pieces))
    n_run = int(math.ceil(n_games / chunk) * chunk)
    c = plan.config
    run = run_batch(c.game, variant=plan.variant, overrides=plan.overrides, players=c.players,
                    policies=list(plan.policies), rotate=plan.rotate, n_games=n_run, seed=c.seed, out=path,
                    workers=workers, chunk_size=chunk, progress=progress, fresh=fresh)
    timings = run.manifest.get("timings", {})
    record.games_simulated = int(timings.get("games_this_session") or 0)
    record.seconds = float(timings.get("seconds") or 0.0)
    return record


@dataclass
class Analysis:
    """Every number of an experiment at one game count."""

    n_games: int
    estimates: pl.DataFrame          # plan, metric, key, n, estimate, low, high, sd, interval (+ params)
    comparisons: pl.DataFrame        # metric, key, arm_a, arm_b, difference, low, high, p_value, family, p_adjusted, ...
    values: dict[tuple[int, str], pl.DataFrame]


def analyse(experiment: Experiment, paths: list[Path], n_games: int) -> Analysis:
    from analysis.compare import compare_values

    data = [M.RunData(path, n_games) for path in paths]
    values: dict[tuple[int, str], pl.DataFrame] = {}
    frames = []
    for i, (plan, run) in enumerate(zip(experiment.plans, data)):
        for name in experiment.all_metrics:
            metric = M.get_metric(experiment.game, name)
            if plan.players < metric.min_players:
                continue
            vals = metric.compute(run)
            values[(i, name)] = vals
            est = M.estimate(metric, vals, experiment.confidence)
            reference = metric.reference(run) if metric.reference else None
            frames.append(est.with_columns(pl.lit(i).alias("plan_index"), pl.lit(plan.label).alias("plan"),
                                           pl.lit(name).alias("metric"),
                                           pl.lit(reference, pl.Float64).alias("reference")))
    estimates = pl.concat(frames, how="vertical") if frames else pl.DataFrame()
    if estimates.height:
        estimates = estimates.select("plan_index", "plan", "metric", "key", "n", "estimate", "low", "high", "sd",
                                     "reference", "interval")

    rows = []
    for a, b in experiment.pairs_to_compare():
        for name in experiment.all_metrics:
            if (a, name) not in values or (b, name) not in values:
                continue
            table = compare_values(values[(a, name)], values[(b, name)], paired=True,
                                   confidence=experiment.confidence)
            unpaired = compare_values(values[(a, name)], values[(b, name)], paired=False,
                                      confidence=experiment.confidence)
            table = table.join(unpaired.select("key", ((pl.col("high") - pl.col("low")) / 2).alias("unpaired_half_width")),
                               on="key", how="left")
            rows.append(table.with_columns(pl.lit(name).alias("metric"), pl.lit(a).alias("_a"), pl.lit(b).alias("_b"),
                                           pl.lit(experiment.plans[a].label).alias("arm_a"),
                                           pl.lit(experiment.plans[b].label).alias("arm_b")))
    if rows:
        comparisons = _families(experiment, pl.concat(rows, how="vertical"), values)
    else:
        comparisons = pl.DataFrame()
    return Analysis(n_games, estimates, comparisons, values)


def _families(experiment: Experiment, table: pl.DataFrame, values: dict) -> pl.DataFrame:
    """Primary family: the answer metrics, each contrast once (Bonferroni, simultaneous
    intervals); every other row: Benjamini-Hochberg with false-coverage-rate intervals;
    rows whose per-game differences are all 0 are not tested. Each row's interval is
    recomputed at its family's level, so it excludes 0 exactly when the row is flagged."""
    from analysis.compare import (FAMILIES, PRIMARY, SECONDARY, UNTESTED, adjust_family, compare_values,
                                  duplicate_contrasts, paired_vectors)

    alpha = 1 - experiment.confidence
    primary_metrics = list(dict.fromkeys(experiment.answer))
    rows = table.with_row_index("_row").to_dicts()
    family, duplicate_of = {}, {}
    primary_diffs = {}
    for r in sorted(rows, key=lambda r: (primary_metrics.index(r["metric"]) if r["metric"] in primary_metrics
                                         else len(primary_metrics), r["_row"])):
        if r["test"] == "identical":
            family[r["_row"]] = UNTESTED
            continue
        family[r["_row"]] = PRIMARY if r["metric"] in primary_metrics else SECONDARY
        if r["paired"]:
            primary_diffs[r["_row"]] = (r["_a"], r["_b"], paired_vectors(values[(r["_a"], r["metric"])],
                                                                         values[(r["_b"], r["metric"])], r["key"]))
    # One contrast, one family, tested once: per pair of arms, a row whose per-game differences repeat an
    # earlier row's (primary rows come first) is that row's duplicate, in its family with its adjusted p
    # (seat_win_rate[1st] and first_builder_win_rate sat twice in the secondary family, and a secondary
    # row repeating a primary contrast got a second adjusted p)
    by_pair: dict[tuple, dict] = {}
    for row, (a, b, d) in primary_diffs.items():
        by_pair.setdefault((a, b), {})[row] = d
    for diffs in by_pair.values():
        duplicate_of.update(duplicate_contrasts(diffs))
    for row, first in duplicate_of.items():
        family[row] = family[first]
    label = {r["_row"]: f"{r['metric']} ({r['key']})" for r in rows}

    p_adjusted = {r["_row"]: 1.0 for r in rows}
    significant = {r["_row"]: False for r in rows}
    level = {r["_row"]: experiment.confidence for r in rows}
    for name, method in ((PRIMARY, "bonferroni"), (SECONDARY, "fdr_bh")):
        members = [r for r in rows if family[r["_row"]] == name and r["_row"] not in duplicate_of]
        adj = adjust_family([r["p_value"] for r in members], alpha, method)
        for r, p, rej in zip(members, adj.adjusted, adj.reject):
            p_adjusted[r["_row"]], significant[r["_row"]], level[r["_row"]] = float(p), bool(rej), adj.level
    for row, first in duplicate_of.items():
        p_adjusted[row], significant[row], level[row] = p_adjusted[first], significant[first], level[first]

    # Intervals at each row's family level (from the same test inversion as its p-value).
    low, high = {}, {}
    cache: dict[tuple, pl.DataFrame] = {}
    for r in rows:
        if r["test"] == "identical":
            low[r["_row"]], high[r["_row"]] = r["low"], r["high"]
            continue
        key = (r["_a"], r["_b"], r["metric"], level[r["_row"]])
        if key not in cache:
            cache[key] = compare_values(values[(r["_a"], r["metric"])], values[(r["_b"], r["metric"])], paired=True,
                                        confidence=level[r["_row"]])
        hit = cache[key].filter(pl.col("key") == r["key"]).row(0, named=True)
        low[r["_row"]], high[r["_row"]] = hit["low"], hit["high"]
    order = [r["_row"] for r in rows]
    nominal_half = ((table["high"] - table["low"]) / 2).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = table["unpaired_half_width"].to_numpy() / nominal_half
    out = table.with_columns(
        pl.Series("pairing_gain", gain, pl.Float64),
        pl.Series("low", [low[i] for i in order], pl.Float64), pl.Series("high", [high[i] for i in order], pl.Float64),
        pl.Series("family", [family[i] for i in order]),
        pl.Series("duplicate_of", [label[duplicate_of[i]] if i in duplicate_of else None for i in order], pl.Utf8),
        pl.Series("interval_level", [level[i] for i in order], pl.Float64),
        pl.Series("p_adjusted", [p_adjusted[i] for i in order], pl.Float64),
        pl.Series("significant", [significant[i] for i in order], pl.Boolean),
    )
    assert set(FAMILIES) >= set(family.values())
    return out.select("metric", "key", "arm_a", "arm_b", "n", "mean_a", "mean_b", "difference", "low", "high",
                      "interval_level", "sd", "unpaired_half_width", "pairing_gain", "p_value", "test", "family",
                      "duplicate_of",
                      "p_adjusted", "significant", "paired")


def widest_half_width(experiment: Experiment, analysis: Analysis) -> float:
    """The widest half-width among the precision metrics' intervals."""
    p = experiment.precision
    assert p is not None
    table = analysis.comparisons if p.on == "differences" else analysis.estimates
    if table.height == 0:
        return float("nan")
    sub = table.filter(pl.col("metric").is_in(p.metrics))
    if sub.height == 0:
        return float("nan")
    return float(((sub["high"] - sub["low"]) / 2).max())


def next_game_count(n: int, half_width: float, target: float, cap: int) -> int:
    """Games needed for `target` if the half-width shrinks as 1/sqrt(n), with 10% to spare."""
    if not math.isfinite(half_width) or half_width <= target:
        return n
    wanted = int(math.ceil(n * (half_width / target) ** 2 * 1.1))
    return int(min(cap, max(wanted, n + 1)))


@dataclass
class ExperimentResult:
    experiment: Experiment
    out: Path
    cache: Path
    records: list[RunRecord]
    analysis: Analysis
    precision_log: list[dict]
    seconds: float
    report: Path | None = None
    power: pl.DataFrame | None = None
    fairness: pl.DataFrame | None = None
    fairness_change: pl.DataFrame | None = None
    balance: pl.DataFrame | None = None
    ladder: pl.DataFrame | None = None      # across the ladder: metric, key, rung, estimate, verdict ([ladder])
    answer: str = ""

    @property
    def games_simulated(self) -> int:
        return sum(r.games_simulated for r in self.records)

    @property
    def estimates(self) -> pl.DataFrame:
        return self.analysis.estimates

    @property
    def comparisons(self) -> pl.DataFrame:
        return self.analysis.comparisons


def require_writable(path: Path) -> None:
    probe = path
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise RunError(f"cannot write results to {path}: {probe} is a file")


def require_ours_or_empty(out: Path) -> None:
    """Refuse, before any game, to write the report into a folder this tool did not write:
    an experiment's folder is empty or holds the manifest of an earlier report of it."""
    if not out.is_dir() or not any(out.iterdir()):
        if out.exists() and not out.is_dir():
            raise RunError(f"cannot write the experiment's report to {out}: it is a file")
        return
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError):
        manifest = None
    if not isinstance(manifest, dict) or "experiment" not in manifest or "batches" not in manifest:
        raise RunError(f"{out} exists and is not an experiment folder of skyline-lab; nothing was written "
                       "(move it, or choose another --out)")


def run_experiment(
    experiment: Experiment | str | Path,
    *,
    results: str | Path = DEFAULT_RESULTS,
    cache: str | Path | None = None,
    workers: int = 1,
    progress: bool = False,
    games: int | None = None,
    report: bool = True,
    precision: bool = True,
) -> ExperimentResult:
    """Run every batch of an experiment (from the cache where possible), add
    games until the precision target is met, and write results/<name>/.

    `games` overrides the file's game count (a quick look or a pilot); the
    precision section still applies unless `precision` is False.
    """
    if not isinstance(experiment, Experiment):
        experiment = load_experiment(experiment)
    if games is not None:
        if games < 2:
            raise ExperimentError("command line", "games", f"must be at least 2, not {games}")
        experiment = replace(experiment, games=games)
        if experiment.precision and experiment.precision.max_games < games:
            experiment = replace(experiment, precision=replace(experiment.precision, max_games=games))
    if not precision:
        experiment = replace(experiment, precision=None)
    results = Path(results)
    out = results / experiment.name
    cache_dir = Path(cache) if cache is not None else results / CACHE_NAME
    require_writable(out)
    require_writable(cache_dir)
    require_ours_or_empty(out)
    cache_dir.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    n = experiment.games
    records = {i: RunRecord(plan, cache_dir / plan.folder_name) for i, plan in enumerate(experiment.plans)}
    log: list[dict] = []
    while True:
        for i, plan in enumerate(experiment.plans):
            rec = ensure_run(plan, n, cache_dir, workers=workers, progress=progress)
            records[i].games_simulated += rec.games_simulated
            records[i].seconds += rec.seconds
        analysis = analyse(experiment, [r.path for r in records.values()], n)
        if experiment.precision is None:
            break
        p = experiment.precision
        width = widest_half_width(experiment, analysis)
        reached = math.isfinite(width) and width <= p.half_width
        log.append({"games": n, "widest_half_width": width, "target": p.half_width, "reached": reached})
        if reached or n >= p.max_games:
            break
        n = next_game_count(n, width, p.half_width, p.max_games)

    result = ExperimentResult(experiment, out, cache_dir, list(records.values()), analysis, log,
                              time.perf_counter() - t0)
    from experiments import experiment_report

    experiment_report.summarise(result)
    if report:
        result.report = experiment_report.write(result)
    return result


def plan_power(experiment: Experiment | str | Path, *, pilot_games: int = 2000,
               effects: dict[str, float] | None = None, power: float | None = None, alpha: float | None = None,
               results: str | Path = DEFAULT_RESULTS, cache: str | Path | None = None, workers: int = 1,
               progress: bool = False) -> tuple[pl.DataFrame, Analysis]:
    """Answer 'how many games?' before the experiment: play a pilot of each
    batch (cached, so the real run reuses it) and size the experiment from its sds."""
    if not isinstance(experiment, Experiment):
        experiment = load_experiment(experiment)
    effects = effects if effects is not None else (experiment.power.effects if experiment.power else None)
    if not effects:
        raise ExperimentError(str(experiment.path), "power.effects",
                              "no effect to size: add [power] effects = { metric = size } or pass --effect")
    known = M.metrics_for(experiment.game)
    for metric in effects:
        if metric not in known:
            new = M.renamed_metric(experiment.game, metric)
            renamed = f" (renamed: use '{new}')" if new else ""
            raise ExperimentError("command line", "effect",
                                  f"unknown metric '{metric}'{renamed} (known: {', '.join(known)})")
    if metric_not_computed := [m for m in effects if m not in experiment.all_metrics]:
        experiment = replace(experiment, metrics=experiment.metrics + metric_not_computed)
    cache_dir = Path(cache) if cache is not None else Path(results) / CACHE_NAME
    cache_dir.mkdir(parents=True, exist_ok=True)
    paths = [ensure_run(plan, pilot_games, cache_dir, workers=workers, progress=progress).path
             for plan in experiment.plans]
    analysis = analyse(experiment, paths, pilot_games)
    from experiments.experiment_report import power_table

    return power_table(experiment, analysis, effects, power, alpha), analysis


# --- command line (called from experiments/cli.py) ------------------------------------------

def cli_errors() -> tuple[type[Exception], ...]:
    """What a command refuses in one line (exit 2) rather than as a traceback."""
    return (ExperimentError, RunError, VariantError, LineupError, FileNotFoundError)


def run_for_cli(play, counts):
    """The one way a command runs an experiment file: `play()` runs it; a refusal is one line and
    exit 2, Ctrl-C exit 130 with how to resume; then the answer, `counts(result)` (what was played
    and how long it took) and where the report is."""
    import typer

    try:
        result = play()
    except cli_errors() as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2)
    except KeyboardInterrupt:
        typer.echo("\ninterrupted: finished batches are cached; run the same command again to resume", err=True)
        raise typer.Exit(code=130)
    typer.echo(result.answer)
    typer.echo("\n" + counts(result))
    if result.report:
        typer.echo(f"report: {result.report.parent / 'report.html'} (and report.md)")
    return result


def cli_run(path: Path, *, results: Path | None = None, workers: int = 1, progress: bool = True,
            report: bool = True, games: int | None = None) -> ExperimentResult:
    """`skyline-lab run experiments/<file>.toml`: run it, print where the report is.
    `games` (the CLI passes it only when --games was typed; None: the file's count) overrides the
    file's game count; `results` (--out) is the results root."""
    return run_for_cli(
        lambda: run_experiment(path, results=results or DEFAULT_RESULTS, workers=workers, progress=progress,
                               report=report, games=games),
        played_line)


def played_line(result: ExperimentResult) -> str:
    """What a run of an experiment file played, for the command line."""
    return (f"{len(result.records)} batches x {result.analysis.n_games:,} games "
            f"({result.games_simulated:,} simulated now, the rest from the cache) in {result.seconds:,.1f} s")


def cli_power(path: Path, *, effects: list[str] | None = None, pilot: int = 2000, power: float | None = None,
              alpha: float | None = None, results: Path | None = None, workers: int = 1,
              progress: bool = True) -> pl.DataFrame:
    """`skyline-lab power experiments/<file>.toml --effect seat_score_edge=2`: games needed, from a pilot."""
    import typer

    try:
        if not 2 <= pilot <= 10_000_000:
            raise ExperimentError("command line", "pilot", f"must be between 2 and 10,000,000 games per batch, not {pilot}")
        for name, value in (("power", power), ("alpha", alpha)):
            if value is not None and not (math.isfinite(value) and 0 < value < 1):
                raise ExperimentError("command line", name, f"must be a probability strictly between 0 and 1, "
                                                            f"not {value:g}")
        if workers < 1:
            raise ExperimentError("command line", "workers", f"must be at least 1, not {workers}")
        parsed = None
        if effects:
            parsed = {}
            for text in effects:
                if "=" not in text:
                    raise ExperimentError("command line", "effect", f"'{text}' must be metric=size")
                key, raw = (s.strip() for s in text.split("=", 1))
                try:
                    parsed[key] = float(raw)
                except ValueError:
                    raise ExperimentError("command line", "effect", f"size of '{key}' must be a number, not '{raw}'") from None
                if not (math.isfinite(parsed[key]) and parsed[key] > 0):
                    raise ExperimentError("command line", "effect",
                                          f"size of '{key}' must be a positive finite number, not {raw}")
        table, analysis = plan_power(path, pilot_games=pilot, effects=parsed, power=power, alpha=alpha,
                                     results=results or DEFAULT_RESULTS, workers=workers, progress=progress)
    except cli_errors() as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2)
    for row in table.iter_rows(named=True):
        line = (f"{row['metric']}: to detect {row['effect']:g} ({row['question']}) with power {row['power']:g} at "
                f"alpha {row['alpha']:g} in a family of {row['family']} tests (alpha/{row['family']} each): "
                f"{row['games_needed']:,} games per batch")
        if row["games_needed_unpaired"] is not None:
            line += f" (paired on the same seeds; unpaired batches would need {row['games_needed_unpaired']:,})"
        line += f"; sd {row['sd']:.3g} from a {analysis.n_games:,}-game pilot"
        typer.echo(line)
    return table
