"""`skyline-lab`: run batches of simulated games and read what they say.

Thin on purpose (like csvs-to-sqlite's cli.py): options are parsed here,
everything else is a library call a notebook can make too.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from engines.registry import DEFAULT_GAME  # cheap: game packages load on first use

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Simulate board games by the million and see which seats, cards and rules win.\n\n"
    "Typical use: `skyline-lab run skyline_3000 --games 100000 --policy heuristic --policy random` "
    "then open results/<run>/report/report.html.",
)


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _user_errors():
    from engines.core.lineup import LineupError
    from engines.core.variant import VariantError
    from analysis.runfolder import RunFolderError
    from experiments.runner import RunError

    # RunFolderError: a damaged or unreadable run folder, refused by the reader in one line
    return (RunError, RunFolderError, VariantError, LineupError, KeyError, FileNotFoundError)


@app.command()
def run(
    game: str = typer.Argument(DEFAULT_GAME, help="Game id (see `skyline-lab games`)."),
    games: int = typer.Option(20_000, "--games", "-n", help="How many games to simulate."),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="Number of players (default: the variant's)."),
    policy: Optional[List[str]] = typer.Option(
        None, "--policy",
        help="Policy per seat, repeat once per seat, or give one for all seats. "
        "Tune weights as name(weight=value, ...), e.g. 'heuristic(value_megamall=6)'. "
        "Default: the game's own line-up (Skyline 3000: heuristic, greedy, random, random).",
    ),
    variant: Optional[str] = typer.Option(None, "--variant", "-v", help="Variant name or path to a variant .toml file."),
    set_: Optional[List[str]] = typer.Option(
        None, "--set", help="Change one rule for this run: key=value, e.g. scoring.megamall_multiplier=3 (repeatable)."),
    rotate: bool = typer.Option(True, "--rotate/--fixed-seats",
                                help="Rotate the line-up so each policy sits in each seat equally often."),
    seed: int = typer.Option(0, "--seed", help="Run seed: the same seed and settings give the same games."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Results folder (default results/<run name>)."),
    workers: Optional[int] = typer.Option(None, "--workers", "-j",
                                          help="Worker processes (default: every core of this machine)."),
    backend: str = typer.Option("joblib", "--backend", help="joblib (this machine) or dask (a cluster)."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address; without it a local cluster."),
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size", help="Games per chunk written to disk."),
    report: bool = typer.Option(True, "--report/--no-report", help="Write the report when the games are done."),
    fresh: bool = typer.Option(False, "--fresh", help="Replace the results folder instead of resuming it."),
    progress: bool = typer.Option(True, "--progress/--quiet", help="Show a progress bar."),
):
    """Simulate a batch of games (resumes an interrupted run of the same settings).

    GAME may be an experiment file (experiments/<name>.toml): it runs every batch it
    describes and writes results/<name>/report.md (--out: the results root)."""
    workers = (os.cpu_count() or 1) if workers is None else workers
    if game.endswith(".toml"):
        from experiments.experiment import cli_run

        cli_run(Path(game), results=out, workers=workers, progress=progress, report=report, games=games)
        return
    from engines.core.variant import parse_override
    from engines.registry import get_game
    from experiments.runner import run_batch

    try:
        # no --policy: the line-up the game declares (GameSpec.default_lineup)
        policies = list(policy) if policy else get_game(game).default_policies(players)
        overrides = dict(parse_override(s) for s in (set_ or []))
        result = run_batch(game, variant=variant, overrides=overrides, players=players, policies=policies,
                           rotate=rotate, n_games=games, seed=seed, out=out, workers=workers,
                           chunk_size=chunk_size, backend=backend, scheduler=scheduler, progress=progress,
                           fresh=fresh)
    except _user_errors() as exc:
        _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))
    except KeyboardInterrupt:
        typer.echo("\ninterrupted: completed chunks are kept; run the same command again to resume", err=True)
        raise typer.Exit(code=130)
    m = result.manifest
    rate = m["timings"].get("games_per_s")
    typer.echo(f"{m['games_done']} games in {result.path}" + (f" ({rate:,.0f} games/s)" if rate else ""))
    if report:
        _build_report(result.path)


def _build_report(path: Path) -> None:
    from analysis.report import build_report

    written = build_report(path)
    typer.echo(f"report: {written}")


@app.command("report")
def report_cmd(run_dir: Path = typer.Argument(..., help="A results folder written by `run`.")):
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
def policies_cmd(game: str = typer.Argument(DEFAULT_GAME, help="Game id.")):
    """List a game's policies and their tunable weights."""
    from engines.registry import get_game

    try:
        spec = get_game(game)
    except KeyError as exc:
        _fail(exc.args[0])
    for info in spec.policies.values():
        typer.echo(f"{info.name}: {info.description}")
        for name, value in info.weights.items():
            typer.echo(f"    {name} = {value:g}")


@app.command("variants")
def variants_cmd(
    game: str = typer.Argument(DEFAULT_GAME, help="Game id."),
    show: Optional[str] = typer.Option(None, "--show", help="Print one variant's resolved rules."),
):
    """List a game's variants, or show one variant's full rules."""
    from engines.core.variant import flatten
    from engines.registry import get_game

    try:
        spec = get_game(game)
        if show:
            variant = spec.variants.load(show)
            for key, value in flatten(variant.values).items():
                typer.echo(f"{key} = {value!r}")
            return
    except _user_errors() as exc:
        _fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))
    for name, about in spec.variants.describe().items():
        typer.echo(f"{name:28s} {about}")


@app.command("power")
def power_cmd(
    experiment: Path = typer.Argument(..., help="An experiment file (experiments/<name>.toml)."),
    effect: Optional[List[str]] = typer.Option(
        None, "--effect", help="metric=size to detect, e.g. seat_score_edge=2 (repeatable; default: the file's [power])."),
    pilot: int = typer.Option(2000, "--pilot", help="Pilot games per batch (cached: the real run reuses them)."),
    power: Optional[float] = typer.Option(None, "--power", help="Chance of detecting the effect (default 0.8)."),
    alpha: Optional[float] = typer.Option(None, "--alpha", help="Test level (default 0.05)."),
    workers: int = typer.Option(1, "--workers", "-j", help="Worker processes."),
):
    """How many games an experiment needs to detect an effect (e.g. a 2-point seat edge)."""
    from experiments.experiment import cli_power

    cli_power(experiment, effects=list(effect or []), pilot=pilot, power=power, alpha=alpha, workers=workers)


@app.command("bench")
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
