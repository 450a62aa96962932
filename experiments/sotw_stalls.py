"""Skyline of the World: why the stalled games of a run stalled (issue 23).

    python -m experiments.sotw_stalls results/<run> [results/<run> ...]

Replays each stalled game of the run folder (step API, the run's seed, variant and seat rotation:
the batch game exactly) and sorts its final position:

    dead board          no player can place anything, even with unlimited money and every floor
                        left in his colour's supply (and the neutral supply)
    broke, no way out   a player whom only money stops: no income, and he cannot pay a placement
                        even by selling his whole stock (policies.way_out_nb) or trading in cards
    other               a freeze the player could leave himself (the scripts' stuck moves do)

It also counts, per stalled game, the penthouses on the board and the neutral or Skyline floors
on a fifth level (a site no penthouse can take any more).
"""
from __future__ import annotations

import collections
import json
import sys

import polars as pl

from engines.skyline_of_the_world import new_game
from engines.skyline_of_the_world.policies import NO_FEE, stuck_nb, way_out_nb
from engines.skyline_of_the_world.rules import build_masks_nb, income_nb, supply_index_nb
from engines.skyline_of_the_world.state import BH, BS, LEVELS, P_HAND, P_STOCK, PB, PBASE


def classify(run: str) -> None:
    man = json.load(open(f'{run}/manifest.json'))
    lineup, P = man['lineup'], man['players']
    variant = man['variant']['source']
    overrides = man['variant'].get('overrides') or None
    g_ = pl.read_parquet(f'{run}/games/*.parquet')
    stalled = sorted(g_.filter(pl.col('stalled') == 1)['game'].to_list())
    cats = collections.Counter(); extra = collections.Counter()
    for gi in stalled:
        g = new_game(variant, n_players=P, seed=man['seed'], game_index=gi, overrides=overrides)
        pol = [lineup[((s + gi) if man['rotate'] else s) % len(lineup)] for s in range(P)]
        while not g.is_over():
            g.apply(g.policy_action(pol[g.current_player()]))
        d = g.state.data; cfg = g.kp.cfg
        placeable = False; broke = False
        for p in range(P):
            b = PBASE + p * PB
            e = d.copy()
            for k in range(LEVELS + 1):
                if e[b + P_STOCK + k] + e[supply_index_nb(cfg, p, k)] > 0:
                    e[b + P_STOCK + k] = 1
            fm, nm, sm = build_masks_nb(e, cfg, p)
            if fm | nm | sm:
                placeable = True
                if income_nb(d, cfg, p)[0] == 0 and stuck_nb(d, cfg, p) and way_out_nb(d, cfg, p)[0] == NO_FEE \
                        and bin(int(d[b + P_HAND])).count('1') < 3:
                    broke = True
        # pieces at level 5 that are not penthouses (neutral or Skyline floors on top of a fourth level)
        lvl5 = sum(1 for c in range(int(g.kp.width) * int(g.kp.height)) if d[BH + c] == 5 and not (5 <= d[BS + c * 5 + 4] <= 8))
        extra['level-5 blocks'] += lvl5
        extra['penthouses'] += sum(1 for c in range(int(g.kp.width) * int(g.kp.height)) if d[BH + c] == 5 and 5 <= d[BS + c * 5 + 4] <= 8)
        cats['dead board' if not placeable else ('broke, no way out' if broke else 'other')] += 1
    n = g_.height
    print(f"{run.split('/')[-1]}: {len(stalled)} stalled of {n}: " + ", ".join(f"{k} {v} ({v / n:.1%} of games)" for k, v in cats.items())
          + f"; per stalled game: {extra['penthouses'] / max(len(stalled), 1):.2f} penthouses, "
          f"{extra['level-5 blocks'] / max(len(stalled), 1):.2f} neutral/Skyline floors on a fifth level")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        classify(arg)
