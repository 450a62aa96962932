"""Golden playthroughs: seeded games written move by move, compared exactly.

Every registered game has its files here, one convention for all (tests/
golden/test_golden.py fails for a game without a played recipe, a batch
recipe and a plain-Python replay). Each file under tests/golden/<game>/ is
produced by one recipe below and nothing else: a `Play` recipe steps one game through the game's step API
(engines.registry -> spec.new_game) and writes, per decision, the move
number, the seat to move, how many actions were legal and the action's
name, with the rendered state every `render_every` moves and at the end,
then the final scores. A `Batch` recipe writes every result table of a few
batch games (spec.simulate), column by column with its dtype, so the
Parquet tables the runner writes are pinned too.

The moves are chosen by a seeded policy that is part of the recipe: each seat
is either a compiled policy name (the game's own `policy_action`, drawing from
that seat's policy stream exactly as the batch loop does) or "index" (a
uniform pick from the legal list by a numpy Generator seeded with
`pick_seed`; Skyline 3000 bids: each hand card with probability 1/2).

Regenerate (only on purpose, after a rule change you mean; review the diff):

    PYTHONPATH=. .venv/bin/python tests/golden/regenerate.py

The files are written from compiled kernels only (refused under
NUMBA_DISABLE_JIT): the plain-Python mode is checked against them.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Play:
    name: str
    game: str
    n_players: int
    seats: tuple[str, ...]        # per seat: compiled policy name, or "index"
    seed: int
    game_index: int = 0
    variant: str | None = None
    pick_seed: int = 0            # numpy Generator for the "index" seats
    render_every: int = 100
    jit_off: bool = True          # also replayed in plain Python (CI's jit_off subset)

    @property
    def path(self) -> Path:
        return HERE / self.game / f"{self.name}.txt"


@dataclass(frozen=True)
class Batch:
    name: str
    game: str
    n_players: int
    seats: tuple[str, ...]        # line-up slots: compiled policy names
    seed: int
    start: int
    count: int
    rotate: bool = True
    variant: str | None = None
    jit_off: bool = True

    @property
    def path(self) -> Path:
        return HERE / self.game / f"{self.name}.txt"


RECIPES: list[Play | Batch] = [
    # Skyline 3000: 4 and 2 players, every policy, a variant, a game by index
    Play("play_4p_mixed_policies", "skyline_3000", 4, ("random", "greedy", "heuristic", "heuristic"),
         seed=11, render_every=75),
    Play("play_2p_heuristic_vs_random", "skyline_3000", 2, ("heuristic", "random"), seed=5, game_index=3,
         render_every=60),
    Play("play_2p_index", "skyline_3000", 2, ("index", "index"), seed=3, pick_seed=3, render_every=60),
    Play("play_4p_megamall_triple_index_vs_greedy", "skyline_3000", 4, ("index", "greedy", "index", "greedy"),
         seed=8, game_index=1, variant="megamall_triple", pick_seed=8, render_every=100),
    Batch("batch_4p", "skyline_3000", 4, ("random", "greedy", "heuristic", "random"), seed=2024, start=7,
          count=3),
    # the board played as default before issue 12 (6 small platforms, Greenspaces on 4 of them):
    # the same games as batch_4p had then, table for table
    Batch("batch_4p_six_platforms", "skyline_3000", 4, ("random", "greedy", "heuristic", "random"), seed=2024,
          start=7, count=3, variant="six_platforms"),
    Batch("batch_2p_no_tiebreak", "skyline_3000", 2, ("heuristic", "greedy"), seed=99, start=0, count=3,
          variant="no_tiebreak"),
    Batch("batch_3p_5_platforms", "skyline_3000", 3, ("heuristic", "random", "greedy"), seed=7, start=40,
          count=2, variant="three_player_5_platforms"),
    # Cityline: solo and 3 players, every policy, a variant, a game by index
    Play("play_solo_heuristic", "cityline", 1, ("heuristic",), seed=7, render_every=8),
    Play("play_solo_index", "cityline", 1, ("index",), seed=1, game_index=4, pick_seed=1, render_every=8),
    Play("play_solo_strong", "cityline", 1, ("strong",), seed=21, render_every=100),
    Play("play_3p_mixed_policies", "cityline", 3, ("random", "greedy", "heuristic"), seed=2, render_every=15),
    Play("play_3p_triples_index", "cityline", 3, ("index", "heuristic", "index"), seed=4, variant="triples",
         pick_seed=4, render_every=15),
    Batch("batch_solo", "cityline", 1, ("heuristic",), seed=31, start=5, count=3),
    Batch("batch_3p", "cityline", 3, ("random", "greedy", "heuristic"), seed=32, start=0, count=3),
    Batch("batch_2p_flat_tables_strong", "cityline", 2, ("strong", "greedy"), seed=33, start=2, count=2,
          variant="flat_tables"),
    # Skyline of the World: the 4-player game its own folder pinned before (seed 2026), with and without
    # the scripts' jitter (jitter=0: the moves written before the weight existed), 2 players by index
    Play("play_4p_heuristic_vs_greedy", "skyline_of_the_world", 4, ("heuristic", "greedy", "heuristic", "greedy"),
         seed=2026, render_every=100, jit_off=False),
    Play("play_4p_heuristic_vs_greedy_jitter0", "skyline_of_the_world", 4,
         ("heuristic(jitter=0)", "greedy(jitter=0)", "heuristic(jitter=0)", "greedy(jitter=0)"), seed=2026,
         render_every=100, jit_off=False),
    Play("play_2p_covered_index", "skyline_of_the_world", 2, ("index", "heuristic"), seed=6, variant="covered",
         pick_seed=6, render_every=100),
    Batch("batch_3p", "skyline_of_the_world", 3, ("heuristic", "greedy", "random"), seed=41, start=0, count=2),
    # Project Skyline: the games its own folder pinned before (New York 4 players seed 3, Tokyo 2 players
    # seed 5), with and without jitter, and a batch
    Play("play_nyc_4p_mixed_policies", "project_skyline", 4, ("heuristic", "greedy", "random", "heuristic"),
         seed=3, render_every=100, jit_off=False),
    Play("play_nyc_4p_mixed_policies_jitter0", "project_skyline", 4,
         ("heuristic(jitter=0)", "greedy(jitter=0)", "random", "heuristic(jitter=0)"), seed=3, render_every=100,
         jit_off=False),
    Play("play_tokyo_2p_heuristic_vs_random", "project_skyline", 2, ("heuristic", "random"), seed=5,
         variant="tokyo", render_every=100),
    Play("play_tokyo_2p_heuristic_vs_random_jitter0", "project_skyline", 2, ("heuristic(jitter=0)", "random"),
         seed=5, variant="tokyo", render_every=100, jit_off=False),
    Batch("batch_3p", "project_skyline", 3, ("heuristic", "greedy", "random"), seed=42, start=0, count=2),
]


# ---------------------------------------------------------------- step API
# The step API's names are being unified (issue 7: apply / action_name /
# is_over / render); these accept either spelling, so the files keep
# guarding behaviour across the rename.

def _method(g, *names):
    for n in names:
        f = getattr(g, n, None)
        if f is not None:
            return f
    raise AttributeError(f"{type(g).__name__} has none of {names}")


def _is_over(g) -> bool:
    return bool(_method(g, "is_over", "is_terminal")())


def _render(g) -> str:
    f = getattr(g, "render", None)
    return f() if callable(f) else str(g)


def _scores(g) -> list[int]:
    return [int(x) for x in _method(g, "scores")()]


def _pick(legal, rng: np.random.Generator) -> int:
    if isinstance(legal, (list, tuple)):
        return int(legal[int(rng.integers(len(legal)))])
    # a bid space (Skyline 3000): any subset of the hand
    cards = list(legal.cards)
    keep = rng.random(len(cards)) < 0.5
    return int(legal.bid([c for c, k in zip(cards, keep) if k]))


def play_text(r: Play) -> str:
    from engines.registry import get_game

    spec = get_game(r.game)
    g = spec.new_game(r.variant, r.n_players, r.seed, r.game_index)
    rng = np.random.default_rng(r.pick_seed)
    apply = _method(g, "apply", "apply_action")
    name = _method(g, "action_name", "action_to_string")
    out = [
        f"# golden playthrough {r.game}/{r.name} (tests/golden/regenerate.py)",
        f"# variant {r.variant or 'default'}, {r.n_players} player(s), seed {r.seed}, game index {r.game_index}",
        f"# seats: {', '.join(f'{s}: {p}' for s, p in enumerate(r.seats))}"
        + (f"  (index picks: numpy default_rng({r.pick_seed}))" if "index" in r.seats else ""),
        "# move  seat  legal  action",
        "",
        "== start ==",
        _render(g).rstrip(),
        "",
    ]
    move = 0
    while not _is_over(g):
        p = int(g.current_player())
        legal = g.legal_actions()
        pol = r.seats[p]
        a = _pick(legal, rng) if pol == "index" else int(g.policy_action(pol))
        out.append(f"{move:5d}  p{p}  {len(legal):6d}  {name(a)}")
        apply(a)
        move += 1
        if move % r.render_every == 0 and not _is_over(g):
            out += ["", f"== after move {move} ==", _render(g).rstrip(), ""]
        if move > 100_000:
            raise RuntimeError("the game does not end")
    out += ["", f"== end after {move} moves ==", _render(g).rstrip(), "",
            "scores " + " ".join(str(s) for s in _scores(g)), ""]
    return "\n".join(out)


def batch_text(r: Batch) -> str:
    from engines.core.lineup import make_lineup
    from engines.registry import get_game

    spec = get_game(r.game)
    kp = spec.kernel_params(spec.variants.load(r.variant), r.n_players)
    lineup = make_lineup(spec, list(r.seats), r.n_players, r.rotate)
    ids, w = lineup.policy_ids(), lineup.weight_rows(spec.max_weights)
    tables = spec.simulate(kp, ids, w, r.rotate, r.seed, r.start, r.count)
    out = [
        f"# golden batch {r.game}/{r.name} (tests/golden/regenerate.py)",
        f"# variant {r.variant or 'default'}, {r.n_players} player(s), line-up {', '.join(r.seats)}, "
        f"rotate {r.rotate}, seed {r.seed}, games [{r.start}, {r.start + r.count})",
        "",
    ]
    for t in sorted(tables):
        cols = tables[t]
        n = len(next(iter(cols.values()))) if cols else 0
        out.append(f"== table {t}: {n} rows ==")
        for c, v in cols.items():
            v = np.asarray(v)
            vals = " ".join(repr(float(x)) if v.dtype.kind == "f" else repr(str(x)) if v.dtype.kind in "OUS"
                            else str(int(x)) for x in v)   # names (Project Skyline's cards) quoted
            out.append(f"{c} [{v.dtype}] {vals}")
        out.append("")
    return "\n".join(out)


def text(r: Play | Batch) -> str:
    return play_text(r) if isinstance(r, Play) else batch_text(r)


def main() -> int:
    import numba

    if numba.config.DISABLE_JIT:
        print("refusing to write golden files in plain-Python mode (NUMBA_DISABLE_JIT): "
              "they are written from the compiled kernels", file=sys.stderr)
        return 2
    for r in RECIPES:
        r.path.parent.mkdir(parents=True, exist_ok=True)
        t = text(r)
        old = r.path.read_text() if r.path.exists() else None
        r.path.write_text(t)
        print(f"{'unchanged' if old == t else 'written  '} {r.path.relative_to(HERE)} ({len(t)} bytes)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    raise SystemExit(main())
