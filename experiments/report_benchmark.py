"""How long `skyline-lab report` takes on a small run, per game and per phase.

    python -m experiments.report_benchmark [--games 10] [--out results/report-benchmark] [GAME ...]

For each game (default: every registered game) it plays a run of --games games once (default line-up,
one worker; the folder is reused afterwards), then times, each in a fresh interpreter as the CLI runs:

- `report`: the whole command, `skyline-lab report <run>` (wall and CPU seconds of the child), after one
  warm-up build (the first build of a session also fills the OS file cache);
- its phases, in one more fresh interpreter: imports (analysis.report, the game's analysis module and its
  GameSpec through the registry), sections (generic and the game's), of which replays (the kingmaking
  measurement: a sample of games replayed through the step API, loading the engine's compiled kernels),
  figures (PNG rendering) and writing (Markdown, HTML with the figures embedded; write_report renders
  the PNGs again, and that second rendering is not counted).

CPU seconds are the honest figure on a shared machine (wall time counts waiting for the cores). Figures
are printed, not asserted: no timed test fails on a busy machine.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

def time_phases(run_path: Path, game: str) -> dict:
    """CPU seconds of each phase of one report build, in this interpreter (call it in a fresh one:
    `--phases RUN GAME`, so that the imports are counted)."""
    clock = time.process_time
    t0, w0 = clock(), time.perf_counter()
    import analysis.kingmaking as kingmaking
    import analysis.report as report
    from analysis.plugins import game_module
    from analysis.run import Run
    from analysis.sections import game_spec
    game_module(game)
    game_spec(game)
    t1 = clock()
    spent = {"replays": 0.0, "png": 0.0}

    def timed(name, function):
        def call(*args, **kwargs):
            start = clock()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += clock() - start
        return call

    kingmaking.measure = timed("replays", kingmaking.measure)
    run = Run.open(run_path)
    sections = report.label_play(run, report.generic_sections(run) + report.game_sections(run) + [report.appendix(run)])
    t2 = clock()
    figures = Path(run_path) / "report" / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    for section in sections:
        for plot in section.plots:
            report.save_png(plot.figure, figures / f"{plot.name}.png")
    t3 = clock()
    report.save_png = timed("png", report.save_png)   # write_report renders the figures again: not counted
    report.write_report(run, sections)
    t4 = clock()
    return {"imports": t1 - t0, "sections": t2 - t1, "replays": spent["replays"], "figures": t3 - t2,
            "writing": t4 - t3 - spent["png"], "n_figures": sum(len(s.plots) for s in sections),
            "wall": time.perf_counter() - w0}


def ensure_run(game: str, games: int, out: Path) -> Path:
    """The run to report: the folder is reused while it matches today's engine (run_batch resumes it,
    playing nothing), and played again when the engine changed since (run_batch refuses it)."""
    from experiments.runner import RunError, run_batch

    path = out / game
    try:
        run_batch(game, n_games=games, seed=0, out=path, workers=1, progress=False)
    except RunError:
        run_batch(game, n_games=games, seed=0, out=path, workers=1, progress=False, fresh=True)
    return path


def child_seconds(command: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> None:
    from engines.registry import game_ids

    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--phases"]:          # the child that times the phases
        print(json.dumps(time_phases(Path(argv[1]), argv[2])))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games_to_time", nargs="*", metavar="GAME", help="games to time (default: every game)")
    parser.add_argument("--games", type=int, default=10, help="games in each run (default 10)")
    parser.add_argument("--out", type=Path, default=Path("results/report-benchmark"))
    args = parser.parse_args(argv)
    cli = str(Path(sys.executable).with_name("skyline-lab"))
    print(f"{'game':<22}{'report wall':>12}{'report CPU':>12}{'imports':>9}{'sections':>10}{'replays':>9}"
          f"{'figures':>9}{'writing':>9}  (CPU s; replays = kingmaking, part of sections; figures = PNGs)")
    for game in args.games_to_time or game_ids():
        run = ensure_run(game, args.games, args.out)
        child_seconds([cli, "report", str(run)])                  # warm-up
        wall, cpu = child_seconds([cli, "report", str(run)])
        phases = json.loads(subprocess.run([sys.executable, "-m", "experiments.report_benchmark", "--phases",
                                            str(run), game], check=True,
                                           capture_output=True, text=True, env=os.environ).stdout)
        print(f"{game:<22}{wall:>11.2f}s{cpu:>11.2f}s{phases['imports']:>9.2f}{phases['sections']:>10.2f}"
              f"{phases['replays']:>9.2f}{phases['figures']:>9.2f}{phases['writing']:>9.2f}  "
              f"({phases['n_figures']} figures)")


if __name__ == "__main__":
    main()
