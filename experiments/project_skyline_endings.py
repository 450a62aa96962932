"""Project Skyline: how games end, per map and player count (the rulebook's usual end is the
50-money one; the last-floor end is "the rare case").

    .venv/bin/python -m experiments.project_skyline_endings -n 400
    .venv/bin/python -m experiments.project_skyline_endings -n 200 --policy "search(iterations=20, rollout=heuristic)"
    .venv/bin/python -m experiments.project_skyline_endings -n 400 --set end.money=40 --maps tokyo --players 2

Every batch is an ordinary run folder (experiments.runner.run_batch) under results/_ps_endings/,
played afresh each time (a folder is keyed on the engine's code and variant values, not on the
contents of maps/*.toml and cards/*.toml, which this script serves to calibrate). For each map and player count it prints the
share of games ended by money, by the last floor (with its 95% Wilson interval over games: the
calibration's bound is "at most 10%") and by the round cap (stalled), the share in
which someone placed a last floor at all (anyLF: also in the money end's last round), the game length
in rounds, the winner's money (money track before final scoring, and final score), floors built
per player and, on an "areas" map (Tokyo), the share of player-games whose highest end-bonus tier
is each row of the map's end table.
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import polars as pl

from analysis.stats import wilson_interval
from experiments.runner import run_batch

OUT = Path("results/_ps_endings")


def parse_overrides(pairs: list[str]) -> dict:
    out = {}
    for p in pairs:
        key, _, value = p.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def end_tiers(map_name: str) -> list[tuple[int, int]]:
    """The map's end table [(areas at least, money)], highest first; [] on a towers map."""
    from engines.project_skyline.params import END_AREAS, load_map

    mp = load_map(map_name)
    return [tuple(x) for x in mp.end_table] if mp.end_kind == END_AREAS else []


def summarize(run, tiers: list[tuple[int, int]]) -> dict:
    g = run.load("games")
    pl_ = run.load("players")
    n = g.height
    win = pl_.filter(pl.col("rank") == 1).group_by("game").agg(pl.col("money").max(), pl.col("score").max())
    row = {
        "games": n,
        "money_end": float((g["ending"] == 1).mean()),
        "floor_end": float((g["ending"] == 2).mean()),
        "floor_end_ci": wilson_interval(int((g["ending"] == 2).sum()), n),
        "stalled": float((g["ending"] == 3).mean()),
        # someone placed a last floor at all (also in the money end's last round, which changes nothing)
        "any_last_floor": float((g["floor_round"] > 0).mean()) if "floor_round" in g.columns else float("nan"),
        "rounds": float(g["rounds"].mean()),
        "rounds_sd": float(g["rounds"].std()),
        "winner_money": float(win["money"].mean()),
        "winner_score": float(win["score"].mean()),
        "floors_built": float(pl_["floors_built"].mean()),
        "areas_present": float(pl_["areas_present"].mean()),
    }
    if tiers:
        a = pl_["areas_present"]
        shares = []
        below = a.len()
        for need, money in tiers:  # highest first: the share whose best tier is this one
            k = int((a >= need).sum()) - (a.len() - below)
            shares.append((need, money, k / a.len()))
            below -= k
        row["tiers"] = shares
        row["no_tier"] = below / a.len()
        row["reached"] = [(need, float((a >= need).mean())) for need, _ in tiers]  # at least this tier
    return row


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--games", type=int, default=400)
    ap.add_argument("--maps", nargs="+", default=["nyc", "tokyo"])
    ap.add_argument("--players", nargs="+", type=int, default=[2, 3, 4])
    ap.add_argument("--policy", default="heuristic")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("-j", "--workers", type=int, default=1)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    extra = parse_overrides(args.set)
    print(f"policy {args.policy}, {args.games} games per cell, seed {args.seed}" +
          (f", overrides {extra}" if extra else ""))
    head = (f"{'map':6} {'P':>2} {'money%':>7} {'floor%':>7} {'floor% 95%':>13} {'stall%':>7} "
            f"{'rounds':>7} {'win$':>6} "
            f"{'winscore':>8} {'floors':>6} {'areas':>6} {'anyLF%':>6}  end-bonus tier shares (best tier: share)")
    print(head)
    for m in args.maps:
        tiers = end_tiers(m)
        for p in args.players:
            ov = {"map": m, **extra}
            tag = hashlib.sha256(json.dumps([args.policy, ov, args.seed], sort_keys=True).encode()).hexdigest()[:10]
            kw = dict(overrides=ov, players=p, policies=[args.policy], n_games=args.games, seed=args.seed,
                      workers=args.workers, progress=False, out=Path(args.out) / f"{m}-{p}p-{tag}")
            # always afresh: a run folder is keyed on the engine's code and the variant's values,
            # not on the contents of the map and card files this script is used to calibrate
            run = run_batch("project_skyline", fresh=True, **kw)
            r = summarize(run, tiers)
            t = ""
            if tiers:
                t = ("  ".join(f"{need}+:{share:.0%}" for need, _, share in r["tiers"]) + f"  none:{r['no_tier']:.0%}"
                     + "  (at least: " + " ".join(f"{need}+:{share:.0%}" for need, share in r["reached"]) + ")")
            lo, hi = r["floor_end_ci"]
            print(f"{m:6} {p:>2} {r['money_end']:7.1%} {r['floor_end']:7.1%} {f'[{lo:.1%}, {hi:.1%}]':>13} "
                  f"{r['stalled']:7.1%} "
                  f"{r['rounds']:7.1f} {r['winner_money']:6.1f} {r['winner_score']:8.1f} {r['floors_built']:6.1f} "
                  f"{r['areas_present']:6.1f} {r['any_last_floor']:6.1%}  {t}", flush=True)


if __name__ == "__main__":
    main()
