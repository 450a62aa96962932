"""`skyline-lab`: run batches of simulated games and read what they say.

Thin on purpose (like csvs-to-sqlite's cli.py): options are parsed here,
everything else is a library call a notebook can make too.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from engines.registry import DEFAULT_GAME  # cheap: game packages load on first use

def _usage_name(self) -> str:
    """An argument on the usage line in words: GAME, [GAME] when optional. typer 0.29 writes a
    required one in braces ({run_dir}), which reads as a template to fill, not a word."""
    name = self.display_name_raw
    return (name if self.required else f"[{name}]") + ("..." if self.nargs != 1 else "")


if hasattr(typer.core.TyperArgument, "_usage_display_name"):
    typer.core.TyperArgument._usage_display_name = _usage_name

# typer 0.29 vendors click (typer.core._click); older typers use click itself
try:
    _click = typer.core._click
except AttributeError:  # pragma: no cover - typer < 0.29
    import click as _click


class _OneLineUsage(_click.exceptions.ClickException):
    """A usage mistake (a word where a number goes, an unknown option, a missing argument) refused
    like every other bad input: one line on stderr, exit 2. Click printed four (usage, a hint, a
    blank line, the error)."""
    exit_code = 2

    def __init__(self, error, command_path: str):
        super().__init__(error.format_message())
        self.command_path = command_path

    def show(self, file=None) -> None:
        typer.echo(f"error: {self.format_message().rstrip('.')} (see `{self.command_path} --help`)", err=True)


class _Group(typer.core.TyperGroup):
    """The command group: refuses usage mistakes in one line (its own and every command's)."""

    @staticmethod
    def _one_line(error, ctx):
        if isinstance(error, _click.exceptions.NoArgsIsHelpError):   # bare `skyline-lab`: the help
            return error
        where = error.ctx or ctx
        return _OneLineUsage(error, where.command_path if where is not None else "skyline-lab")

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except _click.exceptions.UsageError as error:
            raise self._one_line(error, ctx) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except _click.exceptions.UsageError as error:
            raise self._one_line(error, ctx) from None


app = typer.Typer(
    cls=_Group,
    add_completion=False,
    no_args_is_help=True,
    # Plain click help: rich read "[power]" in help text as a markup tag and
    # dropped it, and cut long examples off with "..." in its option table.
    # Click wraps every word to the terminal and prints text as written.
    rich_markup_mode=None,
    help="Simulate board games by the million and see which seats, cards and rules win.\n\n"
    "Typical use: `skyline-lab run skyline_3000 --games 100000 --policy heuristic --policy random` "
    "then open results/<run>/report/report.html.",
)


# The most games one run may ask for. At the warm rate of one machine
# (~8,000 Skyline games/s on 2 cores) 10^9 games take about a day and a half;
# more is a typo or a job to split into runs with different seeds.
MAX_GAMES = 1_000_000_000
# The most games in one chunk: a chunk's tables are held in memory at once.
MAX_CHUNK_SIZE = 1_000_000

DASK_HINT = 'the dask backend needs dask, which is not installed: pip install -e ".[dask]"'

# The rules a command plays, written once for every command that plays games (run, train).
VariantOption = Annotated[Optional[str], typer.Option(
    "--variant", "-V", metavar="NAME_OR_FILE", help="Variant name or path to a variant .toml file (every game).")]
SetOption = Annotated[Optional[List[str]], typer.Option(
    "--set", metavar="KEY=VALUE",
    help="Change one rule for every game, e.g. --set scoring.megamall_multiplier=3 (repeatable; "
    "`skyline-lab variants GAME --show default` lists the keys).")]

# Options of `run` that describe one batch; an experiment file sets them per
# batch itself, so on `run experiment.toml` they are refused, never ignored.
BATCH_ONLY_OPTIONS = {
    "players": "--players", "policy": "--policy", "variant": "--variant", "set_": "--set",
    "rotate": "--rotate/--fixed-seats", "seed": "--seed", "backend": "--backend",
    "scheduler": "--scheduler", "chunk_size": "--chunk-size", "fresh": "--fresh",
}


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _workers(workers: int | None) -> int:
    """--workers as given, every core when left out; a count below 1 refused in one line."""
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        _fail(f"workers must be positive, not {workers}")
    return workers


def _typed_options(ctx: typer.Context, names) -> list[str]:
    """Which of these parameters the user typed (not left at their default).
    Asks typer's own context: typer vendors click, so `click.get_current_context()`
    sees no context at all and every option looks untyped."""
    typed = []
    for name in names:
        source = ctx.get_parameter_source(name)
        if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
            typed.append(name)
    return typed


def _check_counts(games: int, players: Optional[int], chunk_size: Optional[int]) -> None:
    """Refuse counts the runner would silently replace (0 means "default" to it)."""
    if games > MAX_GAMES:
        _fail(f"--games {games:,} is more than one run may play ({MAX_GAMES:,}, about a day and a half "
              "on one machine); split it into runs with different --seed values")
    if players is not None and players < 1:
        _fail(f"--players must be at least 1, not {players}")
    if chunk_size is not None and not 1 <= chunk_size <= MAX_CHUNK_SIZE:
        _fail(f"--chunk-size must be between 1 and {MAX_CHUNK_SIZE:,} games, not {chunk_size:,}")


def _dask_missing() -> bool:
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        return True
    return False


def _variant_players(game: str, variant: Optional[str], overrides: dict) -> int:
    from engines.registry import get_game

    spec = get_game(game)
    return spec.variants.load(variant, overrides).values.get("players") or spec.default_players


def _rules_tag(variant: Optional[str], overrides: dict) -> str:
    """A folder name's part for rules other than the default: "-<variant>" and a short hash of the
    --set changes (so a ladder on other rules never lands in the default rules' folder)."""
    if not variant and not overrides:
        return ""
    tag = f"-{Path(variant).stem}" if variant else ""
    if overrides:
        tag += "-" + hashlib.sha256(json.dumps(overrides, sort_keys=True).encode()).hexdigest()[:8]
    return tag


def _user_errors():
    from engines.core.lineup import LineupError
    from engines.core.presets import PresetError
    from engines.core.variant import VariantError
    from analysis.runfolder import RunFolderError
    from experiments.runner import RunError

    # RunFolderError: a damaged or unreadable run folder, refused by the reader in one line
    return (RunError, RunFolderError, VariantError, LineupError, PresetError, KeyError, FileNotFoundError)


@app.command(short_help="Simulate a batch of games (or an experiment file).")
def run(
    ctx: typer.Context,
    game: str = typer.Argument(DEFAULT_GAME, metavar="GAME",
                               help="Game id (see `skyline-lab games`) or an experiment file."),
    games: int = typer.Option(20_000, "--games", "-n", help=f"How many games to simulate (at most {MAX_GAMES:,})."),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="Number of players (default: the variant's)."),
    policy: Optional[List[str]] = typer.Option(
        None, "--policy", metavar="POLICY",
        help="Policy per seat: repeat once per seat, or give one for all seats. "
        "Tune weights as name(weight=value, ...), e.g. --policy 'heuristic(bid_fraction=1.2)'. "
        "Default: the game's own line-up (Skyline 3000: heuristic, greedy, random, random).",
    ),
    variant: VariantOption = None,
    set_: SetOption = None,
    rotate: bool = typer.Option(True, "--rotate/--fixed-seats",
                                help="Rotate the line-up so each policy sits in each seat equally often."),
    seed: int = typer.Option(0, "--seed", help="Run seed: the same seed and settings give the same games."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Results folder (default results/<run name>)."),
    workers: Optional[int] = typer.Option(None, "--workers", "-j",
                                          help="Worker processes (default: every core of this machine)."),
    backend: str = typer.Option("joblib", "--backend", help="joblib (this machine) or dask (a cluster)."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address; without it a local cluster."),
    chunk_size: Optional[int] = typer.Option(
        None, "--chunk-size", help=f"Games per chunk written to disk (1 to {MAX_CHUNK_SIZE:,}; default: from --games)."),
    report: bool = typer.Option(True, "--report/--no-report", help="Write the report when the games are done."),
    fresh: bool = typer.Option(False, "--fresh", help="Replace the results folder instead of resuming it."),
    progress: bool = typer.Option(True, "--progress/--quiet", help="Show a progress bar."),
    verbose: bool = typer.Option(False, "--verbose", "-v",
                                 help="Say more: the run's timings (compile, engine load, play) when done."),
):
    """Simulate a batch of games (resumes an interrupted run of the same settings).

    GAME may be an experiment file (experiments/<name>.toml): it runs every batch it describes and writes
    results/<name>/report.html (and report.md). With a file only --games (games per batch), --out (the
    results root), --workers, --quiet and --no-report apply; the file sets everything else per batch."""
    workers = _workers(workers)
    if scheduler and backend != "dask":
        _fail("--scheduler is a Dask scheduler's address: it needs --backend dask")
    if game.endswith(".toml"):
        from experiments.variant_design import cli_run  # every kind: [sensitivity] / [tune] there, the rest in experiment.py

        typed = _typed_options(ctx, BATCH_ONLY_OPTIONS)
        if typed:
            # experiment.run_experiment has no way to take these per run: refuse rather than ignore
            names = ", ".join(BATCH_ONLY_OPTIONS[t] for t in typed)
            _fail(f"{names} cannot be used with an experiment file ({game} sets them per batch); "
                  "edit the file or drop the option")
        _check_counts(games, None, None)
        typed_games = games if _typed_options(ctx, ["games"]) else None   # else the file's count
        cli_run(Path(game), results=out, workers=workers, progress=progress, report=report, games=typed_games)
        return
    _check_counts(games, players, chunk_size)
    if backend == "dask" and _dask_missing():
        _fail(DASK_HINT)  # before anything is written: no empty run folder marked complete
    from engines.core.variant import parse_override
    from engines.registry import get_game
    from experiments.runner import run_batch

    try:
        overrides = dict(parse_override(s) for s in (set_ or []))
        # no --policy: the line-up the game declares (GameSpec.default_lineup), fitted to
        # the table: -p, else the variant's own player count (a 3-player variant used to
        # get the 4-seat line-up and be refused)
        policies = (list(policy) if policy else
                    get_game(game).default_policies(players or _variant_players(game, variant, overrides)))
        result = run_batch(game, variant=variant, overrides=overrides, players=players, policies=policies,
                           rotate=rotate, n_games=games, seed=seed, out=out, workers=workers,
                           chunk_size=chunk_size, backend=backend, scheduler=scheduler, progress=progress,
                           fresh=fresh)
    except _user_errors() as exc:
        _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))
    except ImportError as exc:
        if backend != "dask":
            raise
        _fail(f"{DASK_HINT} ({exc})")
    except KeyboardInterrupt:
        typer.echo("\ninterrupted: completed chunks are kept; run the same command again to resume", err=True)
        raise typer.Exit(code=130)
    m = result.manifest
    rate = m["timings"].get("games_per_s")
    typer.echo(f"{m['games_done']} games in {result.path}" + (f" ({rate:,.0f} games/s)" if rate else ""))
    if verbose:
        t = m["timings"]
        typer.echo(f"this session: {t.get('games_this_session', 0):,} games; compile {t.get('compile_seconds', 0):.2f} s, "
                   f"workers' engine load {t.get('load_seconds', 0):.2f} s, play {t.get('simulate_seconds', 0):.2f} s, "
                   f"in all {t.get('seconds', 0):.2f} s; {len(m.get('sessions') or [])} session(s) on this folder")
    if report:
        _build_report(result.path)


def _build_report(path: Path) -> None:
    from analysis.report import build_report

    written = build_report(path)
    typer.echo(f"report: {written.parent / 'report.html'} (and report.md)")


@app.command("report", short_help="Rebuild a run's report from its Parquet files.")
def report_cmd(run_dir: Path = typer.Argument(..., metavar="FOLDER", help="A results folder written by `run`.")):
    """Rebuild a run's report from its Parquet files alone."""
    try:
        _build_report(run_dir)
    except _user_errors() as exc:
        _fail(str(exc))


@app.command("games")
def games_cmd():
    """List the games and their player counts."""
    from engines.registry import game_ids, get_game

    for gid in game_ids():
        spec = get_game(gid)
        typer.echo(f"{gid:14s} {spec.title} ({spec.min_players}-{spec.max_players} players, "
                   f"default {spec.default_players}), engine {spec.engine_version}")


@app.command("policies")
def policies_cmd(game: str = typer.Argument(DEFAULT_GAME, metavar="GAME", help="Game id.")):
    """List a game's policies and their tunable weights."""
    from engines.registry import get_game
    from experiments.user_presets import presets_file, user_presets, with_user_presets

    try:
        spec = with_user_presets(get_game(game))
        mine = user_presets(get_game(game))
    except _user_errors() as exc:
        _fail(exc.args[0] if isinstance(exc, KeyError) else str(exc))
    width = _width()
    for info in spec.policies.values():
        where = f" (user preset, {presets_file(game)})" if info.name in mine else ""
        typer.echo(_wrap(f"{info.name}: {info.description}{where}", width, "    "))
        # as a line-up writes them (the README's search(rollout=heuristic)), never a choice's code
        shown = [f"{name}={_shown(info, name, value)}" for name, value in info.weights.items()]
        if shown:
            typer.echo(_wrap(", ".join(shown), width, "    ", "    "))


@app.command("variants")
def variants_cmd(
    game: str = typer.Argument(DEFAULT_GAME, metavar="GAME", help="Game id."),
    show: Optional[str] = typer.Option(None, "--show", metavar="VARIANT",
                                       help="Print one variant's resolved rules, each with its comment."),
):
    """List a game's variants, or show one variant's full rules."""
    from engines.core.variant import flatten
    from engines.registry import get_game

    try:
        spec = get_game(game)
        if show:
            variant = spec.variants.load(show)
            comments = spec.variants.comments(show)
            for key, value in flatten(variant.values).items():
                line = f"{key} = {_toml(value)}"
                typer.echo(f"{line:40s} # {comments[key]}" if comments.get(key) else line)
            return
    except _user_errors() as exc:
        _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))
    width = _width()
    for name, about in spec.variants.describe().items():
        typer.echo(_wrap(f"{name:28s} {about}", width, " " * 29))


def _width() -> int:
    import shutil

    return max(40, min(shutil.get_terminal_size((80, 24)).columns, 120))


def _wrap(text: str, width: int, indent: str, first: str = "") -> str:
    """A listing line wrapped to the terminal, never cut."""
    import textwrap

    return textwrap.fill(text, width=width, initial_indent=first, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False)


def _shown(info, name: str, value: float) -> str:
    """A weight as a line-up writes it: a choice by its name (rollout=heuristic), else the number."""
    for choice, v in (info.choices.get(name) or {}).items():
        if v == value:
            return choice
    return f"{value:g}"


def _toml(value) -> str:
    """A value as it is written in a variant file (true, "key", [1, 2])."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, (str, list)) else str(value)


@app.command("power", short_help="How many games an experiment needs.")
def power_cmd(
    experiment: Path = typer.Argument(..., metavar="EXPERIMENT.toml", help="An experiment file (experiments/<name>.toml)."),
    effect: Optional[List[str]] = typer.Option(
        None, "--effect", metavar="METRIC=SIZE",
        help="An effect to detect, e.g. --effect seat_score_edge=2 (repeatable; default: the effects in the "
        "file's [power] table)."),
    pilot: int = typer.Option(2000, "--pilot", help="Pilot games per batch (cached: the real run reuses them)."),
    power: Optional[float] = typer.Option(None, "--power", help="Chance of detecting the effect (default 0.8)."),
    alpha: Optional[float] = typer.Option(None, "--alpha", help="Test level (default 0.05)."),
    workers: int = typer.Option(1, "--workers", "-j", help="Worker processes."),
):
    """How many games an experiment needs to detect an effect (e.g. a 2-point seat edge)."""
    from experiments.experiment import cli_power

    cli_power(experiment, effects=list(effect or []), pilot=pilot, power=power, alpha=alpha, workers=workers)


@app.command("ladder", short_help="Play and rate the game's skill ladder.")
def ladder_cmd(
    game: str = typer.Argument(DEFAULT_GAME, metavar="GAME", help="Game id."),
    games: Optional[int] = typer.Option(None, "--games", "-n",
                                        help="Games per rating table (default: the game's ladder_games)."),
    findings_games: Optional[int] = typer.Option(
        None, "--findings-games", help="Self-play games per rung for the findings (0: none; default: the game's)."),
    rung: Optional[List[str]] = typer.Option(None, "--rung", metavar="POLICY",
                                             help="A rung, weakest first (repeat; default: the game's ladder)."),
    players: Optional[int] = typer.Option(
        None, "--players", "-p", help="Seats per table (default: the variant's, else the game's ladder's)."),
    variant: VariantOption = None,
    set_: SetOption = None,
    seed: int = typer.Option(0, "--seed", help="Run seed."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Ladder folder (default results/ladder-GAME-...)."),
    workers: Optional[int] = typer.Option(None, "--workers", "-j", help="Worker processes (default: every core)."),
    progress: bool = typer.Option(True, "--progress/--quiet", help="Show progress bars."),
):
    """Play the game's skill ladder (mixed tables of random ... search), fit ratings with intervals,
    report balance findings per rung; prints the ladder and writes ladder.md / ladder.png.

    --variant and --set play the ladder on those rules (as `run` and `train` do): e.g. a model
    trained on a variant with `train --preset NAME` is weighed on the rules it learned."""
    from engines.core.variant import parse_override
    from experiments.ladder import ladder_text, plan_ladder, run_ladder

    workers = _workers(workers)
    try:
        overrides = dict(parse_override(s) for s in (set_ or []))
        plan = plan_ladder(game, games=games, findings_games=findings_games, players=players,
                           rungs=list(rung) if rung else None, seed=seed, variant=variant, overrides=overrides)
        name = f"ladder-{game}{_rules_tag(variant, overrides)}-{plan.players}p-seed{seed}-{plan.games}g"
        folder = out or Path("results") / name
        result = run_ladder(plan, folder, workers=workers, progress=progress)
    except _user_errors() as exc:
        _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))
    except KeyboardInterrupt:
        typer.echo("\ninterrupted: finished games are kept; run the same command again to resume", err=True)
        raise typer.Exit(code=130)
    typer.echo(ladder_text(result))
    typer.echo(f"ladder: {folder / 'ladder.md'} (plot: {folder / 'ladder.png'})")


@app.command("tune", short_help="Tune a policy's weights against an opponent.")
def tune_cmd(
    game: str = typer.Argument(..., metavar="GAME", help="Game id."),
    policy: str = typer.Argument(..., metavar="POLICY", help="The policy whose weights are tuned (greedy, heuristic, expert)."),
    against: str = typer.Option("search(iterations=100)", "--against", metavar="POLICY",
                                help="The opponent in every other seat."),
    players: int = typer.Option(2, "--players", "-p", help="Seats per game."),
    trials: int = typer.Option(30, "--trials", help="Weight rows the optimiser tries (the defaults first)."),
    games: int = typer.Option(200, "--games", "-n", help="Games per trial (the same games every trial)."),
    validate_games: int = typer.Option(400, "--validate-games", help="Fresh games for the out-of-sample check."),
    seed: int = typer.Option(0, "--seed", help="Tuning seed (the check uses another)."),
    variant: VariantOption = None,
    set_: SetOption = None,
    preset: Optional[str] = typer.Option(None, "--preset", help="Save the best row as this named preset "
                                         "in your presets file ($SKYLINE_LAB_PRESETS/GAME.toml, else "
                                         "results/presets/GAME.toml; no engine file changes); default: "
                                         "print only."),
):
    """Tune a policy's named weights against an opponent (optuna, common random numbers); report
    the gain out of sample and optionally keep the weights as a named preset.

    --variant and --set tune on those rules (the preset's comment names them)."""
    from engines.core.variant import parse_override
    from engines.registry import get_game
    from experiments.tune import check_counts, save_preset, tune, tune_text

    try:
        check_counts(trials=trials, games=games, validate_games=validate_games, seed=seed)
        overrides = dict(parse_override(s) for s in (set_ or []))
        get_game(game).variants.load(variant, overrides)   # bad rules: refused before any game
        if preset is not None:   # its name, before any game is played
            from experiments.user_presets import check_new_preset

            check_new_preset(get_game(game), preset)
        result = tune(game, policy, against, players=players, trials=trials, games=games,
                      validate_games=validate_games, seed=seed, variant=variant, overrides=overrides)
        typer.echo(tune_text(result))
        if preset:
            typer.echo(f"preset '{preset}' written to {save_preset(result, preset, seed)}")
    except _user_errors() as exc:
        _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))


@app.command("train", short_help="Learn a game's expert policy by expert iteration.")
def train_cmd(
    game: str = typer.Argument(..., metavar="GAME", help="Game id."),
    out: Optional[Path] = typer.Option(None, "--out", help="The training folder (default results/train/GAME-sSEED); "
                                       "a rerun with the same options resumes it."),
    players: str = typer.Option("4", "--players", "-p", metavar="N[,N...]",
                                help="Seats per game; several counts separated by commas (2,3,4) train one "
                                "model on all of them."),
    variant: VariantOption = None,
    set_: SetOption = None,
    mix: Optional[List[str]] = typer.Option(
        None, "--mix", metavar="'KEY=VALUE ...'",
        help="One setting of a training mixture: rule changes on top of --variant and --set, several "
        "separated by spaces. Repeat it to train one model on several settings, e.g. --mix map=nyc "
        "--mix map=tokyo; the games are dealt in turn to every (mix, player count) pair and the "
        "evaluation games split evenly among them."),
    seed: int = typer.Option(0, "--seed", help="Training seed (every game and sample derives from it)."),
    iterations: int = typer.Option(3, "--iterations", help="Expert iterations at most (stops at the first that "
                                   "does not improve)."),
    games: int = typer.Option(100, "--games", "-n", help="Search games recorded per iteration (all settings)."),
    budget: int = typer.Option(20, "--budget", help="The search player's play-outs per decision."),
    eval_games: int = typer.Option(2000, "--eval-games", help="Expert vs heuristic games judging each iteration "
                                   "(all settings)."),
    ridge: float = typer.Option(1e-3, "--ridge", help="Ridge penalty of the fit."),
    target: str = typer.Option("choice", "--target", help="What the evaluation is fitted to: choice (the "
                               "search's choices, conditional logit) or score (the mover's final score, "
                               "least squares)."),
    tune_trials: int = typer.Option(0, "--tune-trials", help="After each fit, tune its weights by play against "
                                    "the heuristic (optuna, this many weight rows, on games of their own); kept "
                                    "only when they also beat the fit on the evaluation games. 0: no tuning."),
    self_tune_trials: int = typer.Option(0, "--self-tune-trials", help="Then tune the weights once more by play, "
                                         "against themselves (this many weight rows at half the seats, the weights "
                                         "they start from at the others): what pays against the heuristic's weak "
                                         "play need not pay against good play. Kept only when they beat the weights "
                                         "they started from on the evaluation games (95% interval above 0). 0: not."),
    self_tune_table: str = typer.Option("self", "--self-tune-table", help="Who plays the other half of the seats "
                                        "in --self-tune-trials: self (the weights they start from) or mixed (those "
                                        "and the heuristic in turn, so that exploiting one opponent does not pay)."),
    self_tune_players: str = typer.Option("", "--self-tune-players", help="Play --self-tune-trials at these of "
                                          "the --players only, e.g. 4 (default: all of them)."),
    tune_range: float = typer.Option(1.5, "--tune-range", help="The most --tune-trials and --self-tune-trials "
                                     "move a weight from the fit, in standard deviations of its feature. Widen it "
                                     "for a feature that is rarely nonzero: its spread is small, so the default "
                                     "range may not reach a weight that changes play."),
    roll_in: str = typer.Option("search", "--roll-in", help="Who plays the recorded games after the first "
                                "iteration: search (the search player, rolling out the best expert so far) or "
                                "expert (the best expert so far, each decision labelled by the search rolling "
                                "out the heuristic: DAgger, so that the expert learns the search's move where its "
                                "own play goes)."),
    install_model: bool = typer.Option(False, "--install", help="Write the best model into the game's package "
                                       "(engines/GAME/expert.toml): the `expert` policy plays it from then on."),
    preset: Optional[str] = typer.Option(None, "--preset", help="Also keep the best model as this named preset of "
                                         "yours ($SKYLINE_LAB_PRESETS/GAME.toml, else results/presets/GAME.toml): "
                                         "e.g. `ladder --rung expert --rung NAME` compares it with the shipped "
                                         "model, no engine file changed."),
):
    """Learn GAME's expert: record search games, fit a linear evaluation, play it against the heuristic,
    roll it out in the next iteration's search (engines/core/expert.py, experiments/train.py).

    One model may learn several settings: e.g. `skyline-lab train project_skyline --players 2,3,4
    --mix map=nyc --mix map=tokyo` plays both maps at 2, 3 and 4 players. The model file keeps the
    command that made it."""
    from experiments.train import TrainError, TrainPlan, install, ladder_commands, parse_players, save_preset, train

    folder = out or Path("results") / "train" / f"{game}-s{seed}"
    try:
        plan = TrainPlan(game, parse_players(players), seed, iterations, games, budget, eval_games, ridge, target,
                         variant, tuple(set_ or ()), tuple(mix or ()), tune_trials, self_tune_trials,
                         self_tune_table,
                         parse_players(self_tune_players, "--self-tune-players") if self_tune_players else (),
                         roll_in, tune_range)
        plan.check()  # every option, before anything is written
        if preset is not None:
            from engines.registry import get_game
            from experiments.user_presets import check_new_preset

            check_new_preset(get_game(game), preset)
        manifest = train(plan, folder, progress=True, log=typer.echo)
        typer.echo(f"training in {folder}: {len(manifest['iterations'])} iteration(s)"
                   + (f"; stopped: {manifest['stopped']}" if manifest["stopped"] else ""))
        if install_model:
            typer.echo(f"model written to {install(plan, folder)}")
        if preset is not None:
            typer.echo(f"preset '{preset}' written to {save_preset(plan, folder, preset)}")
            typer.echo("its margin over the heuristic is not its strength (a model can learn to exploit the "
                       "heuristic): weigh it against the shipped expert and the search with")
            for command in ladder_commands(plan, preset):
                typer.echo(f"  {command}")
    except (TrainError, *_user_errors()) as exc:
        _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))


@app.command("gap", short_help="Where a stronger policy's moves gain over a base policy's, by decision kind.")
def gap_cmd(
    game: str = typer.Argument(..., metavar="GAME", help="Game id."),
    base: str = typer.Option("expert", "--base", metavar="POLICY", help="The policy every seat plays."),
    better: str = typer.Option("search(iterations=20, rollout=heuristic)", "--better", metavar="POLICY",
                               help="The policy one seat plays at one kind of decision."),
    games: int = typer.Option(300, "--games", "-n", help="Games per arm (the same games in every arm)."),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="Seats (default: the game's)."),
    seed: int = typer.Option(0, "--seed", help="Run seed."),
    variant: VariantOption = None,
    set_: SetOption = None,
    by: str = typer.Option("phase", "--by", help="A kind of decision: its phase, or (action) its phase and what the "
                           "better policy's move does there, e.g. 'construction: place a billboard'."),
    seat: str = typer.Option("rotate", "--seat", help="The seat that changes: rotate (game index mod seats: every "
                             "seat in turn) or first (the seat that moves first, e.g. Skyline 3000's first builder)."),
    workers: Optional[int] = typer.Option(None, "--workers", "-j", help="Worker processes (default: every core)."),
):
    """For each kind of decision (the game's phase, or with --by action what the move does), the
    points a seat gains by playing the better policy's moves there and the base policy's
    elsewhere, against seats of the base policy; paired by game, with 95% intervals
    (experiments/search_gap.py). Says where a learned expert still falls short of the search."""
    from experiments.search_gap import GapError, GapPlan, gap_text, run_gap

    workers = _workers(workers)
    try:
        plan = GapPlan(game, base, better, games, players, seed, by=by, variant=variant, sets=tuple(set_ or ()),
                       seat=seat)
        typer.echo(gap_text(run_gap(plan, workers=workers, progress=True)))
    except (GapError, *_user_errors()) as exc:
        _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))


@app.command("bench", short_help="Measure games per second, start-up, memory.")
def bench_cmd(
    quick: bool = typer.Option(False, "--quick", help="A short run for smoke tests (figures less stable)."),
):
    """Measure games per second, start-up time and memory (prints figures)."""
    from experiments import benchmark

    benchmark.main(quick=quick)


def main() -> None:  # pragma: no cover - console entry
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
