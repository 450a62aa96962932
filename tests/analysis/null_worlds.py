"""Synthetic ladders of known truth for the per-rung verdicts (analysis.ladder), fed through the
project's own code: each rung's per-game seat edges go through `rung_findings` and the verdicts
through `ladder_row_verdicts`, exactly as the ladder command and an experiment's [ladder] do.

The world: 4 seats, one winner per game, 5 rungs (3 scripted, 2 search), `games` games per rung on
the same seeds: every rung plays game g on the same deal, so with probability RHO a game's winner is
drawn from one uniform shared by all rungs (common random numbers), otherwise from the rung's own.
A scenario gives the first seat's win rate at each rung; the other seats share the rest evenly.

Each verdict is checked against the truth claim by claim (analysis.ladder.RowVerdict): a sign claimed
at a rung whose true edge has another sign (or is 0), a claimed weak - strong contrast of the wrong
sign, a claimed pooled sign of the wrong sign, a rung claimed within the margin whose true edge is
outside it. A ladder makes a false claim when any row does (family-wise).

    python tests/analysis/null_worlds.py [--replicates 400] [--old REV]

prints the figures per scenario (with --old, for the verdicts of that git revision as well).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np
import polars as pl

RUNGS = ["random", "greedy", "heuristic", "search(iterations=100)", "search"]
WEAK = RUNGS[:3]
SEATS = ("1st", "2nd", "3rd", "4th")
RHO = 0.3
GAMES = 80

# the first seat's win rate at each rung (a fair seat: 0.25)
SCENARIOS = {
    "no effect anywhere": [0.25] * 5,
    "same moderate effect at every rung (+0.10)": [0.35] * 5,
    "same large effect at every rung (+0.30)": [0.55] * 5,
    "effect at weak rungs only (+0.30)": [0.55] * 3 + [0.25] * 2,
    "sign flip (+0.25 weak, -0.20 search)": [0.50] * 3 + [0.05] * 2,
}
# the verdict that is right for the first seat's row, where the effect is large enough for 80 games
# (per-rung power >= 0.96 at the ladder's corrected level); None: no claim anywhere is right
RIGHT = {
    "no effect anywhere": None,
    "same moderate effect at every rung (+0.10)": None,          # too small for 80 games: reported only
    "same large effect at every rung (+0.30)": {"holds"},
    "effect at weak rungs only (+0.30)": {"only_weak", "larger_weak"},
    "sign flip (+0.25 weak, -0.20 search)": {"changes_sign"},
}


def true_edges(first: list[float]) -> dict[str, dict[str, float]]:
    """key -> rung -> true seat edge (win rate minus the mean seat's 1/4)."""
    out = {}
    for i, seat in enumerate(SEATS):
        out[seat] = {r: (p if i == 0 else (1 - p) / 3) - 0.25 for r, p in zip(RUNGS, first)}
    return out


def simulate_winners(first: list[float], games: int, rng: np.random.Generator) -> np.ndarray:
    """rung x game: the winning seat (0 = first in turn order)."""
    shared = rng.random(games)
    out = np.empty((len(first), games), dtype=np.int64)
    for j, p in enumerate(first):
        u = np.where(rng.random(games) < RHO, shared, rng.random(games))
        cuts = np.cumsum([p] + [(1 - p) / 3] * 3)
        out[j] = np.minimum(np.searchsorted(cuts, u, side="right"), 3)
    return out


def seat_edge_values(winners: np.ndarray) -> pl.DataFrame:
    """The seat_edge metric's per-game values (analysis.metrics.seat_edge): win minus the game's mean win."""
    games = winners.size
    seat = np.tile(np.arange(4), games)
    game = np.repeat(np.arange(games), 4)
    win = (np.repeat(winners, 4) == seat).astype(float)
    return pl.DataFrame({"game": game, "key": np.array(SEATS)[seat], "value": win - 0.25})


@dataclass
class Row:
    key: str
    kind: str
    signs: dict
    contrast: int = 0
    pooled: int = 0
    within: tuple = ()
    margin: float = math.nan


OLD_KINDS = (("holds at every rung", "holds"), ("appears only for weak play", "only_weak"),
             ("changes sign", "changes_sign"), ("appears at some rungs only", "some"),
             ("no rung shows", "undetermined"), ("undetermined", "undetermined"))


def verdict_rows_direct(winners: np.ndarray, margin: float | None, strong: tuple[str, ...] = ()) -> list[Row]:
    """The same verdicts as verdict_rows straight from analysis.ladder.row_verdict (what
    ladder_row_verdicts calls once per key), without building the findings frames: 5x faster, and
    test_null_ladder checks it gives the very same verdicts. `strong`: rungs a game declares strong
    play besides the search (GameSpec.strong_policies)."""
    from analysis.ladder import row_verdict, weak_rungs

    weak = weak_rungs(RUNGS, strong)
    tests = len(SEATS) * (len(RUNGS) + 2)
    out = []
    for i, key in enumerate(SEATS):
        effects = {r: (winners[j] == i).astype(float) - 0.25 for j, r in enumerate(RUNGS)}
        v = row_verdict(effects, RUNGS, weak, tests=tests, rows=len(SEATS), margin=margin)
        out.append(Row(key, v.kind, dict(v.signs), v.contrast, v.pooled, v.within, v.margin))
    return out


def verdict_rows(ladder_module, winners: np.ndarray, margin: float | None, strong: tuple[str, ...] = ()) -> list[Row]:
    """The verdict of every key, through the module's own rung_findings and verdicts."""
    from analysis.metrics import GENERIC

    if ladder_module == "direct":
        return verdict_rows_direct(winners, margin, strong)

    metric = GENERIC["seat_edge"]
    parts = [ladder_module.rung_findings("seat_edge", metric, seat_edge_values(winners[j]), 0.0, rung)
             for j, rung in enumerate(RUNGS)]
    if hasattr(ladder_module, "ladder_row_verdicts"):
        found = ladder_module.concat_findings(parts)
        margins = {} if margin is None else {"seat_edge": margin}
        declared = {"strong": strong} if strong else {}   # a revision before strong_policies takes none
        return [Row(k, v.kind, dict(v.signs), v.contrast, v.pooled, v.within, v.margin)
                for _, k, v in ladder_module.ladder_row_verdicts(found, RUNGS, margins, **declared)]
    # the verdicts before issue 24: a text per row; what it claims is read off the per-rung intervals
    findings = pl.concat(parts)
    out = []
    for r in ladder_module.ladder_verdicts(findings, RUNGS).iter_rows(named=True):
        kind = next(k for prefix, k in OLD_KINDS if r["verdict"].startswith(prefix))
        rows = findings.filter(pl.col("key") == r["key"])
        signs = {}
        if kind != "undetermined":
            for f in rows.iter_rows(named=True):
                s = 1 if f["effect_low"] > 0 else (-1 if f["effect_high"] < 0 else 0)
                if s:
                    signs[f["rung"]] = s
        within = tuple(r for r in RUNGS if r not in WEAK) if kind == "only_weak" else ()
        out.append(Row(r["key"], kind, signs, within=within, margin=1e-9))
    return out


def false_claims(row: Row, truth: dict[str, float], weak=WEAK) -> list[str]:
    """What the row claims that the truth denies (`weak`: the rungs counted as weak play)."""
    wrong = []
    for rung, s in row.signs.items():
        if np.sign(round(truth[rung], 12)) != s:
            wrong.append(f"sign at {rung}")
    if row.contrast:
        d = np.mean([truth[r] for r in weak]) - np.mean([truth[r] for r in RUNGS if r not in weak])
        if np.sign(round(d, 12)) != row.contrast:
            wrong.append("contrast")
    if row.pooled and np.sign(round(np.mean(list(truth.values())), 12)) != row.pooled:
        wrong.append("pooled")
    for rung in row.within:
        if abs(truth[rung]) > row.margin + 1e-12:
            wrong.append(f"within at {rung}")
    return wrong


CLAIMS = {"holds", "only_weak", "larger_weak", "only_strong", "larger_strong", "changes_sign", "some",
          "on_average", "no_effect"}
EFFECT_CLAIMS = CLAIMS - {"no_effect"}


@dataclass
class Figures:
    scenario: str
    replicates: int
    false_claim: float        # any row claims something false (family-wise)
    any_effect: float         # any row claims an effect
    first_row: dict           # verdict kind -> share of replicates (the first seat's row)
    right: float              # the first row's verdict is right (RIGHT), or no claim at all (null world)
    any_kind: dict            # verdict kind -> share of replicates where some row has it


def run_scenario(name: str, replicates: int, ladder_module=None, seed: int = 0, games: int = GAMES,
                 margin: float | None = 0.02, strong: tuple[str, ...] = ()) -> Figures:
    """`strong`: rungs declared strong play besides the search (GameSpec.strong_policies)."""
    from analysis.ladder import weak_rungs

    if ladder_module is None:
        from analysis import ladder as ladder_module
    weak = sorted(weak_rungs(RUNGS, strong))
    first = SCENARIOS[name]
    truth = true_edges(first)
    rng = np.random.default_rng(seed)
    false = effect = right = 0
    kinds: dict[str, int] = {}
    any_kind: dict[str, int] = {}
    for _ in range(replicates):
        rows = verdict_rows(ladder_module, simulate_winners(first, games, rng), margin, strong)
        false += any(false_claims(r, truth[r.key], weak) for r in rows)
        effect += any(r.kind in EFFECT_CLAIMS for r in rows)
        top = next(r for r in rows if r.key == SEATS[0])
        kinds[top.kind] = kinds.get(top.kind, 0) + 1
        for k in {r.kind for r in rows}:
            any_kind[k] = any_kind.get(k, 0) + 1
        want = RIGHT[name]
        right += (not any(r.kind in CLAIMS for r in rows)) if want is None else (top.kind in want)
    share = lambda d: {k: v / replicates for k, v in sorted(d.items())}  # noqa: E731
    return Figures(name, replicates, false / replicates, effect / replicates, share(kinds), right / replicates,
                   share(any_kind))


def _old_module(rev: str):
    import importlib.util
    import subprocess
    import tempfile
    from pathlib import Path

    text = subprocess.run(["git", "show", f"{rev}:analysis/ladder.py"], capture_output=True, text=True,
                          check=True).stdout
    path = Path(tempfile.mkdtemp()) / "old_ladder.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("old_ladder", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_ladder"] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--replicates", type=int, default=400)
    ap.add_argument("--old", default=None, help="also the verdicts of this git revision (e.g. 6b46779)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--direct", action="store_true", help="the new verdicts via row_verdict (5x faster)")
    args = ap.parse_args(argv)
    modules = [("after", "direct" if args.direct else None)] + ([("before", _old_module(args.old))] if args.old else [])
    for name in SCENARIOS:
        for label, module in modules:
            f = run_scenario(name, args.replicates, module, seed=args.seed)
            print(f"{name} | {label}: false claim {f.false_claim:.3f}, any effect claimed {f.any_effect:.3f}, "
                  f"right {f.right:.3f}; first seat {f.first_row}; some row {f.any_kind}", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, ".")
    main(sys.argv[1:])
