"""Skyline of the World: the stall rate and the floors built per colour in run folders (issue 23).

    python -m experiments.sotw_supply_figures results/<run> [results/<run> ...]

For each run folder: players, line-up, games, the stall rate (games the turn cap ended, with a 95%
Wilson interval over games), the mean turns, floors sold per game, and per level (1M, 2M, 4M, 6M,
penthouses) the mean and the max floors built per player (one player = one colour) with the share
of players who built more than one colour's supply (8, 6, 4, 3, 3).
Reads the Parquet tables only (polars), so it works on any run of the game.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import polars as pl
from statsmodels.stats.proportion import proportion_confint

LEVELS = ("1", "2", "4", "6", "ph")
PER_COLOUR = (8, 6, 4, 3, 3)   # GAPS.md / the components list divided by the 4 colours


def figures(run: Path) -> dict:
    man = json.loads((run / "manifest.json").read_text())
    players = pl.read_parquet(run / "players" / "*.parquet")
    games = pl.read_parquet(run / "games" / "*.parquet")
    n = games.height
    stalled = int(games["stalled"].sum())
    lo, hi = proportion_confint(stalled, n, method="wilson")
    out = {"run": run.name, "players": man["players"], "lineup": ",".join(man["lineup"]), "games": n,
           "stall": stalled / n, "stall_lo": lo, "stall_hi": hi, "turns": float(games["turns"].mean()),
           "sold": float(sum(players[f"sold_{s}"].sum() for s in LEVELS + ("neutral",))) / n}
    for s, cap in zip(LEVELS, PER_COLOUR):
        col = players[f"built_{s}"]
        out[f"built_{s}_mean"] = float(col.mean())
        out[f"built_{s}_max"] = int(col.max())
        out[f"over_{s}"] = float((col > cap).mean())
    return out


def main(argv: list[str]) -> None:
    rows = [figures(Path(a)) for a in argv]
    head = ("run", "P", "line-up", "games", "stall [95% CI]", "turns", "sold/game") + tuple(
        f"{s} mean/max >{c}" for s, c in zip(LEVELS, PER_COLOUR))
    print(" | ".join(head))
    for r in rows:
        cells = [r["run"], str(r["players"]), r["lineup"], str(r["games"]),
                 f"{r['stall']:.3f} [{r['stall_lo']:.3f}, {r['stall_hi']:.3f}]", f"{r['turns']:.1f}",
                 f"{r['sold']:.2f}"]
        cells += [f"{r[f'built_{s}_mean']:.2f}/{r[f'built_{s}_max']} {r[f'over_{s}']:.1%}" for s in LEVELS]
        print(" | ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1:])
