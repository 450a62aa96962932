"""Speed, start-up and memory figures, printed (never asserted in tests).

    python -m experiments.benchmark            # full figures (a few minutes)
    python -m experiments.benchmark --quick    # smaller runs, same figures
    python -m experiments.benchmark --policy expert --skip-startup --skip-million
        # only the cases whose policy is named (repeatable; --game GAME likewise): e.g. the
        # learned experts' speed
    python -m experiments.benchmark --c-reference ../shared/reference/c
        # also builds the C random playouts and times them against ours in
        # alternating rounds, printing the median ratio and its range (a
        # change in the machine's speed falls on both sides of a round)

What it measures, on one core unless said:
  * games/s for each line-up every registered game declares (GameSpec.benchmark),
    compile time excluded (one warm-up call first), as the best of a few repeats;
    the games are played as a run of that many games plays them: in calls of
    the runner's chunk size (experiments.runner.default_chunk_size, at most
    10,000 games), each returning its tables;
  * start-up: a fresh process importing a game and playing one game, with
    an empty numba cache (cold: everything compiles) and with the cache
    filled (what every CLI call and every worker pays), and the CLI itself;
  * a 1,000,000-game heuristic run of the CLI's default game (Skyline 3000) with both cores through the
    real runner, its wall time and the peak memory of the whole process
    tree, next to smaller runs to show memory stays flat, and the same of
    `skyline-lab report` on each run folder.
"""
from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from engines.core.spec import BenchmarkCase


def plan(games: list[str] | None = None, policies: list[str] | None = None) -> list[tuple[str, BenchmarkCase]]:
    """(game, case) for every case every registered game declares; only `games`' and only those
    whose policy (its name, before any weights) is one of `policies`, when given."""
    from engines.registry import game_ids, get_game

    return [(game, case) for game in game_ids() if not games or game in games
            for case in get_game(game).benchmark if not policies or case.policy.split("(")[0] in policies]


def simulation_timer(game: str, players: int, policy: str | list[str], n: int, variant: str = "",
                     warm_full_size: bool = True):
    """A callable that plays `n` fresh games of the line-up and returns (seconds, mean decisions
    per game, mean decisions a search seat simulated per game), compiled and warmed up first.
    The games are played as a run of `n` games plays them, in calls of the runner's chunk size
    (default_chunk_size: at most 10,000 games), each returning its tables: one call of 400,000
    Cityline games wrote some 150 MB of tables, which glibc maps afresh on every call (blocks
    above its 32 MB mmap ceiling are never reused), a cost no run pays (1/1.21 of the chunked
    speed, measured paired). Decisions come from the games table's required `decisions` column,
    so games whose random players decide differently compare per decision too; simulated ones
    from `search_simulated` (0 without a search seat)."""
    from engines.core.lineup import make_lineup
    from analysis import runfolder
    from engines.registry import get_game
    from experiments.runner import default_chunk_size

    spec = get_game(game)
    lineup = make_lineup(spec, [policy] if isinstance(policy, str) else list(policy), players, True)
    kp = spec.kernel_params(spec.variants.load(variant or None), players)
    ids, w = lineup.policy_ids(), lineup.weight_rows(spec.max_weights)
    chunk = default_chunk_size(n)

    def play(seed: int, first: int) -> tuple[float, float]:
        """Games [first, first + n) of run `seed`, chunk by chunk: (mean decisions, mean simulated)."""
        decisions = simulated = 0.0
        for _, start, count in runfolder.plan_chunks(n, chunk):
            games = spec.simulate(kp, ids, w, True, seed, first + start, count)["games"]
            decisions += float(np.sum(games["decisions"]))
            simulated += float(np.sum(games.get("search_simulated", np.zeros(1))))
        return decisions / n, simulated / n

    spec.simulate(kp, ids, w, True, 0, 0, max(1, min(chunk, n) // 100))  # compile / load from cache
    if warm_full_size:
        # one untimed pass: the first calls pay the first touch of fresh output memory, which a
        # long run's workers pay once
        play(0, 0)
    calls = itertools.count()

    def timed_call() -> tuple[float, float, float]:
        first = next(calls) * n
        t0 = time.perf_counter()
        decisions, simulated = play(1, first)
        return time.perf_counter() - t0, decisions, simulated

    return timed_call


def games_per_second(game: str, players: int, policy: str | list[str], n: int,
                     repeats: int = 3, variant: str = "") -> tuple[float, float, float]:
    """(games/s, mean decisions per game, mean decisions a search seat simulated per game): the
    best of `repeats` timed calls of simulate (see simulation_timer; a single call, for the slow
    search line-ups, is not warmed up at full size)."""
    timed_call = simulation_timer(game, players, policy, n, variant, warm_full_size=repeats > 1)
    best, decisions, simulated = min(timed_call() for _ in range(repeats))
    return n / best, decisions, simulated


def simulated_case(case: BenchmarkCase) -> bool:
    """A line-up with a search seat: few, slow games."""
    return any(p.startswith("search") for p in (case.lineup or (case.policy,)))


def _first_game_seconds(game: str, cache_dir: str) -> float:
    code = (
        "import time; t=time.perf_counter();"
        "from engines.core.lineup import make_lineup; from engines.registry import get_game;"
        f"s=get_game('{game}'); p=s.default_players; l=make_lineup(s,['random'],p,True);"
        "s.simulate(s.kernel_params(s.variants.load(None),p),l.policy_ids(),l.weight_rows(s.max_weights),True,0,0,1);"
        "print(time.perf_counter()-t)"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True, text=True)
    return time.perf_counter() - t0


def _cli_seconds(args: list[str], cache_dir: str, out: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "experiments.cli", *args, "--out", out, "--quiet", "--no-report", "--fresh"],
                   check=True, env=env, capture_output=True)
    return time.perf_counter() - t0


def _tree_rss_bytes(pid: int) -> int:
    """Resident memory of a process and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            ppid, pages = int(fields[1]), int(fields[21])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
        rss[int(entry)] = pages * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        total += rss.get(p, 0)
        stack.extend(children.get(p, []))
    return total


def run_with_peak_memory(args: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident memory (whole process tree) of a CLI run."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "experiments.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss_bytes(proc.pid))
        time.sleep(0.05)
    if proc.returncode:
        raise RuntimeError(f"run failed: {' '.join(args)}")
    return time.perf_counter() - t0, peak


def build_c_reference(c_dir: Path) -> Path:
    """Build the C yardsticks into a temporary folder and return it."""
    build = Path(tempfile.mkdtemp(prefix="cref-"))
    for src in c_dir.glob("*"):
        if src.is_file():
            shutil.copy(src, build / src.name)
    subprocess.run(["make", "-C", str(build)], check=True, capture_output=True)
    return build


def c_games_per_second(build: Path, program: str, games: int, seed: int = 1) -> float:
    """games/s of one run of a C program (its own clock, so process start is not counted)."""
    text = subprocess.run([str(build / program), str(games), str(seed)], check=True,
                          capture_output=True, text=True).stdout
    fields = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
    return float(fields["games_per_s"])


def paired_ratio_to_c(timed_call, n: int, build: Path, program: str, c_games: int,
                      rounds: int) -> tuple[list[float], list[float], list[float], float, float]:
    """Our games/s against C's, timed in alternating rounds (C, ours, ours, C, C, ours, ...), so
    a change in the machine's speed during the run falls on both sides of nearly every ratio;
    returns (per-round ratios, our and C's per-round games/s, and timed_call's mean decisions and
    simulated decisions per game)."""
    ratios, ours, cs = [], [], []
    for r in range(rounds):
        if r % 2 == 0:
            c = c_games_per_second(build, program, c_games, seed=r + 1)
        seconds, decisions, simulated = timed_call()
        if r % 2 == 1:
            c = c_games_per_second(build, program, c_games, seed=r + 1)
        ours.append(n / seconds)
        cs.append(c)
        ratios.append(ours[-1] / c)
    return ratios, ours, cs, decisions, simulated


def main(quick: bool = False, c_dir: str | None = None, skip_million: bool = False, games: list[str] | None = None,
         policies: list[str] | None = None, skip_startup: bool = False) -> None:
    from engines.registry import DEFAULT_GAME, game_ids

    scale = 0.25 if quick else 1.0
    print(f"# Skyline Lab benchmark  (python {sys.version.split()[0]}, {os.cpu_count()} cores)")
    unknown = sorted(set(games or ()) - set(game_ids()))
    if unknown:
        raise SystemExit(f"error: unknown game {', '.join(unknown)} (known: {', '.join(game_ids())})")
    cases = plan(games, policies)
    if not cases:
        raise SystemExit(f"error: no benchmark case plays {', '.join(policies or ())} in {', '.join(games or game_ids())}")
    build = build_c_reference(Path(c_dir)) if c_dir else None
    rounds = 4 if quick else 6

    print("\n## Throughput, one core, compile excluded (best of 3; against C: median of "
          f"{rounds} alternating rounds)")
    print(f"{'game':20s} {'players':>7s} {'policy':10s} {'games/s':>12s} {'us/game':>9s} {'ns/decision':>11s}  vs C")
    random_ns: dict[tuple[str, int], float] = {}
    searches = []
    for game, case in cases:
        players, policy = case.players, case.policy
        n = max(2 if simulated_case(case) else 50, int(case.games * scale))
        lineup = list(case.lineup) or policy
        ratio = ""
        if build is not None and case.c_reference:
            timed_call = simulation_timer(game, players, lineup, n, case.variant)
            c_games_per_second(build, case.c_reference, max(1, case.c_games // 100))  # page the program in
            c_games = max(1, int(case.c_games * scale) // rounds)
            ratios, rates, c_rates, decisions, simulated = paired_ratio_to_c(
                timed_call, n, build, case.c_reference, c_games, rounds)
            rate = float(np.median(rates))
            ratio = (f"{np.median(ratios):.2f}x C (rounds {min(ratios):.2f}-{max(ratios):.2f}; "
                     f"C {np.median(c_rates):,.0f}/s)")
        else:
            rate, decisions, simulated = games_per_second(game, players, lineup, n,
                                                          repeats=1 if simulated_case(case) else 3,
                                                          variant=case.variant)
        per_decision = 1e9 / rate / decisions if decisions else float("nan")
        if policy == "random" and not case.variant:
            random_ns[(game, players)] = per_decision
        if simulated > 0:
            searches.append((game, case, rate, decisions, simulated))
        label = f"{policy} ({case.variant})" if case.variant else policy
        print(f"{game:20s} {players:7d} {label:10s} {rate:12,.0f} {1e6 / rate:9.1f} {per_decision:11.0f}  {ratio}")
    if searches:
        print("\n## The search player's cost (simulated decisions: tree walks and play-outs inside its searches)")
        print("ns per simulated decision = the games' whole time / decisions simulated (the other seats' own "
              "moves included, so an upper bound); vs random = random play's ns/decision at the same table "
              "/ that figure (the goal: at least 0.40)")
        for game, case, rate, decisions, simulated in searches:
            ns_sim = 1e9 / rate / simulated
            base = random_ns.get((game, case.players))
            vs = f"{base / ns_sim:5.2f}" if base else "  n/a"
            n_search = sum(1 for p in (case.lineup or (case.policy,) * case.players) if p.startswith("search"))
            search_decisions = decisions * n_search / case.players   # per game, seats deciding in turn
            print(f"{game:20s} {case.policy:44s} {ns_sim:6.0f} ns/simulated decision (vs random {vs}), "
                  f"{simulated / search_decisions:9,.0f} simulated per search decision, "
                  f"{rate * search_decisions:7,.1f} search decisions/s, {60 * rate:7,.1f} games/minute")

    if skip_startup:
        return
    print("\n## Start-up: fresh process to first finished game")
    for game in game_ids():
        if games and game not in games:
            continue
        cache = tempfile.mkdtemp(prefix="numba-cache-")
        cold = _first_game_seconds(game, cache)
        warm = _first_game_seconds(game, cache)
        print(f"{game:20s} cold (empty cache) {cold:6.1f} s   cached {warm:5.2f} s")
        shutil.rmtree(cache, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "cache")
        _cli_seconds(["run", DEFAULT_GAME, "--games", "10"], cache, os.path.join(tmp, "r"))
        warm = _cli_seconds(["run", DEFAULT_GAME, "--games", "10"], cache, os.path.join(tmp, "r"))
        print(f"CLI `skyline-lab run {DEFAULT_GAME} --games 10`, cache filled: {warm:.2f} s")

    if skip_million:
        return
    print(f"\n## Memory and wall time of whole runs (heuristic {DEFAULT_GAME}, default players, 2 workers), "
          "then of `skyline-lab report` on each")
    sizes = [100_000, 1_000_000] if not quick else [20_000, 100_000]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            args = ["run", DEFAULT_GAME, "--games", str(n), "--policy", "heuristic", "--workers", "2",
                    "--out", os.path.join(tmp, f"run{n}"), "--quiet", "--no-report", "--fresh"]
            wall, peak = run_with_peak_memory(args)
            print(f"{n:>9,d} games: {wall:7.1f} s wall, {n / wall:9,.0f} games/s, peak memory {peak / 2**20:7.0f} MiB")
            # the report reads the tables UNIT_SLICE games at a time (analysis.stats): its memory too stays flat
            wall, peak = run_with_peak_memory(["report", os.path.join(tmp, f"run{n}")])
            print(f"{'':>9s}  report: {wall:7.1f} s wall, peak memory {peak / 2**20:7.0f} MiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--c-reference", metavar="DIR", help="folder with the C reference sources (and Makefile)")
    parser.add_argument("--skip-million", action="store_true", help="skip the whole-run memory measurement")
    parser.add_argument("--skip-startup", action="store_true", help="throughput only: no start-up or memory figures")
    parser.add_argument("--game", action="append", help="only this game's cases (repeatable)")
    parser.add_argument("--policy", action="append", help="only the cases of this policy, e.g. expert (repeatable)")
    ns = parser.parse_args()
    main(quick=ns.quick, c_dir=ns.c_reference, skip_million=ns.skip_million, games=ns.game, policies=ns.policy,
         skip_startup=ns.skip_startup)
