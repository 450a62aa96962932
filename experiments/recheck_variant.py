"""Re-check a kept variant at any rung: a "within" target by equivalence tests, every other metric beside it.

    python -m experiments.recheck_variant START_RUN CANDIDATE_RUN [--metric seat_score_edge] [--within 2]
                                          [--alpha 0.05]

START_RUN and CANDIDATE_RUN are run folders of one game made by `skyline-lab run` on the same seed, game
count and line-up (the starting rules and the candidate variant), so game g of one pairs with game g of the
other (common random numbers). Printed, as '#' lines ready for the variant file's comment:

- each key of the target metric (a seat edge: each seat) by two one-sided tests inside +-within, each at
  `alpha` (every key must be shown inside: an intersection-union test, valid at alpha without correction);
- every metric of the game (generic, the game's own, the game-quality ones) as a paired change from the
  starting rules, Benjamini-Hochberg over every row; only the moved ones are printed, as the [tune] kind's
  candidate files do.

Why a script and not the [tune] kind: the kind re-checks at the rung it tunes at, and a search rung costs
too much per trial to tune at; a kept candidate is re-checked at the stronger rung afterwards, here.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from analysis import metrics as M
from analysis.compare import adjust_family, paired_difference
from analysis.stats import equivalence_p

PAIRED_ON = ("game", "seed", "n_games", "players", "lineup", "rotate")


def _manifest(run: Path) -> dict:
    return json.loads((Path(run) / "manifest.json").read_text())


def per_game(run: Path, name: str, n_games: int) -> dict[str, np.ndarray]:
    """Per key of one metric: the per-game values, indexed by game (NaN where a game has none)."""
    frame = M.get_metric(_manifest(run)["game"], name).compute(M.RunData(Path(run), n_games))
    out = {}
    for (key,), sub in frame.group_by(["key"], maintain_order=True):
        v = np.full(n_games, np.nan)
        v[sub["game"].to_numpy()] = sub["value"].to_numpy()
        out[str(key)] = v
    return out


def recheck(start: Path, candidate: Path, metric: str = "seat_score_edge", within: float = 2.0,
            alpha: float = 0.05) -> dict:
    a, b = _manifest(start), _manifest(candidate)
    differ = [k for k in PAIRED_ON if a.get(k) != b.get(k)]
    if differ:
        raise ValueError(f"the two runs are not paired: they differ in {', '.join(differ)}")
    n, game = int(a["n_games"]), a["game"]
    target = []
    for key, v in per_game(candidate, metric, n).items():
        v = v[np.isfinite(v)]
        p = equivalence_p(v, within)
        target.append({"key": key, "estimate": float(v.mean()), "p_value": p, "shown": bool(p < alpha)})
    rows = []
    for name, spec in M.metrics_for(game).items():
        if spec.min_players > int(a["players"]):
            continue
        va, vb = per_game(start, name, n), per_game(candidate, name, n)
        for key in va:
            if key not in vb:
                continue
            ok = np.isfinite(va[key]) & np.isfinite(vb[key])
            if ok.sum() < 2:
                continue
            d = paired_difference(va[key][ok], vb[key][ok])
            rows.append({"metric": name, "key": key, "start": d.mean_a, "candidate": d.mean_b,
                         "difference": d.estimate, "low": d.low, "high": d.high, "p_value": d.p_value})
    p = np.array([r["p_value"] for r in rows], dtype=float)
    finite = np.isfinite(p)
    moved = np.zeros(p.size, dtype=bool)
    if finite.any():
        moved[finite] = adjust_family(p[finite], alpha, "fdr_bh").reject
    for r, m in zip(rows, moved):
        r["moved"] = bool(m)
    return {"game": game, "games": n, "seed": a["seed"], "lineup": a["lineup"], "metric": metric,
            "within": within, "alpha": alpha, "target": target, "meets": bool(target) and all(t["shown"] for t in target),
            "changes": rows}


def comment_lines(result: dict) -> list[str]:
    lineup = result["lineup"]
    who = f"{lineup[0]} in every seat" if len(set(lineup)) == 1 else ", ".join(lineup)
    lines = [f"# Re-checked with {who} on {result['games']:,} games (seed {result['seed']}), paired with the "
             f"starting rules on the same games; each key by two one-sided tests at alpha {result['alpha']:g}.",
             f"# {result['metric']} within +-{result['within']:g}: "
             f"{'shown for every key' if result['meets'] else 'NOT shown for every key'}"]
    for t in result["target"]:
        lines.append(f"#   {t['key']} = {t['estimate']:+.3g} (p {t['p_value']:.3g}; "
                     f"{'shown' if t['shown'] else 'not shown'})")
    moved = [r for r in result["changes"] if r["moved"]]
    lines.append("# What else moved against the starting rules (paired, Benjamini-Hochberg):"
                 if moved else "# Nothing else moved against the starting rules (paired, Benjamini-Hochberg).")
    for r in moved:
        lines.append(f"#   {r['metric']}[{r['key']}]: {r['start']:.4g} -> {r['candidate']:.4g} "
                     f"({r['difference']:+.4g} [{r['low']:+.4g}, {r['high']:+.4g}])")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("start", type=Path)
    parser.add_argument("candidate", type=Path)
    parser.add_argument("--metric", default="seat_score_edge")
    parser.add_argument("--within", type=float, default=2.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args(argv)
    if not (args.within > 0 and 0 < args.alpha < 1):
        parser.error("--within must be positive and --alpha in (0, 1)")
    print("\n".join(comment_lines(recheck(args.start, args.candidate, args.metric, args.within, args.alpha))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
