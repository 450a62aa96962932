"""Generate the default bonus-card and mission paths ONCE, from a fixed seed.

The output is pasted into variants/default.toml (the variant file is the source of
truth; nothing is generated when a variant loads). Re-running prints the same text:

    python -m engines.skyline_of_the_world.gen_paths

A path is an orthogonally connected walk of distinct cells, written as flat
[row, col, row, col, ...] pairs (rows and columns from 0, top left). The printed
deck has 42 bonus cards: here 12 three-cell paths and 9 four-cell paths, two cards
of each (so "two cards with the same path" exists), and 6 four-cell missions that
share no path with a bonus card.
"""
from __future__ import annotations

import random

SEED = 20261201
W = H = 6


def _walk(rng: random.Random, n: int) -> tuple[tuple[int, int], ...]:
    while True:
        cells = [(rng.randrange(H), rng.randrange(W))]
        while len(cells) < n:
            r, c = cells[-1]
            options = [(r + dr, c + dc) for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
                       if 0 <= r + dr < H and 0 <= c + dc < W and (r + dr, c + dc) not in cells]
            if not options:
                break
            cells.append(rng.choice(options))
        if len(cells) == n:
            return tuple(cells)


def generate(seed: int = SEED):
    rng = random.Random(seed)
    seen: set[frozenset] = set()

    def fresh(n):
        while True:
            p = _walk(rng, n)
            if frozenset(p) not in seen:
                seen.add(frozenset(p))
                return p

    bonus = [fresh(3) for _ in range(12)] + [fresh(4) for _ in range(9)]
    missions = [fresh(4) for _ in range(6)]
    return bonus, missions


def _flat(p):
    return "[" + ", ".join(f"{r}, {c}" for r, c in p) + "]"


def main() -> None:
    bonus, missions = generate()
    print("paths = [")
    for p in bonus:
        for _ in range(2):
            print(f"    {_flat(p)},")
    print("]")
    print("missions = [")
    for p in missions:
        print(f"    {_flat(p)},")
    print("]")


if __name__ == "__main__":
    main()
