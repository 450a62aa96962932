"""A line-up without a search seat never compiles the search.

Each game's batch loop exists as two cached kernels from one source (batch.py's
_play_game_kernel / _simulate_chunk_kernel): with the search, and scripted, where numba prunes
the search branch before typing. The search is most of a cold compile (Skyline 3000: about
nine minutes against one), so a scripted run must take the scripted kernel and that kernel
must not pull the search in. Checked in a fresh process with an empty numba cache, where every
kernel the run reaches really compiles (a kernel loaded from a filled cache would not show it).
The same probe checks that no kernel compiled twice for one literal constant or read-only array
argument (engines.core.kernel says why and how to avoid it).
"""
import os
import subprocess
import sys

import pytest

from engines.registry import game_ids

PROBE = """
import importlib
from engines.core.lineup import make_lineup
from engines.registry import get_game
game = {game!r}
spec = get_game(game)
batch = importlib.import_module(f"engines.{{game}}.batch")
search = importlib.import_module(f"engines.{{game}}.search")
p = spec.default_players
lineup = make_lineup(spec, [{policy!r}], p, True)
spec.simulate(spec.kernel_params(spec.variants.load(None), p), lineup.policy_ids(),
              lineup.weight_rows(spec.max_weights), True, 0, 0, 2)
# the other look-ahead player, Cityline's strong (rollouts per candidate), is pruned with the search
strong = getattr(importlib.import_module(f"engines.{{game}}.policies"), "strong_action_nb", None)
print(len(search.search_nb.signatures) + (len(strong.signatures) if strong else 0),
      len(batch.simulate_chunk_nb.signatures), len(batch.simulate_chunk_scripted_nb.signatures))
# kernels compiled twice for argument types that differ only in a literal value or a read-only
# flag (engines.core.kernel: wrap the constant), by name
import sys
from numba.core import types
from numba.core.registry import CPUDispatcher
def plain(t):
    t = types.unliteral(t)
    return t.copy(readonly=False) if isinstance(t, types.Array) else t
twice = set()
for name, mod in list(sys.modules.items()):
    if name.startswith("engines."):
        for obj in vars(mod).values():
            if isinstance(obj, CPUDispatcher) and len(obj.signatures) > 1:
                if len({{tuple(plain(t) for t in sig) for sig in obj.signatures}}) < len(obj.signatures):
                    twice.add(obj.py_func.__module__ + "." + obj.py_func.__qualname__)
print(" ".join(sorted(twice)) or "-")
"""

# the cheapest cold compile runs by default; the others (about a minute each) with the slow checks
CHEAP = "skyline_of_the_world"


def _probe(game, policy, tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", PROBE.format(game=game, policy=policy)], env=env,
                         capture_output=True, text=True, check=True)
    counts, twice = out.stdout.splitlines()[-2:]
    return tuple(int(x) for x in counts.split()) + (twice,)


@pytest.mark.parametrize("game", [g if g == CHEAP else pytest.param(g, marks=pytest.mark.slow)
                                  for g in game_ids()])
def test_a_scripted_lineup_compiles_no_search(game, tmp_path):
    searched, with_search, scripted, twice = _probe(game, "heuristic", tmp_path)
    assert (with_search, scripted) == (0, 1), "a scripted line-up must take the scripted kernel"
    assert searched == 0, "the scripted kernel compiled a look-ahead player (search, strong) in"
    # a literal constant (0, True) or a module-level array passed to a called kernel compiles
    # it once more for that type alone (engines.core.kernel): seconds of every cold start
    assert twice == "-", f"kernels compiled twice for a literal or read-only argument: {twice}"


@pytest.mark.parametrize("game", game_ids())
def test_the_scripted_kernel_plays_the_games_of_the_search_kernel(game, monkeypatch):
    # the same source with the search branch pruned: a scripted line-up's games must not change
    # (the search kernel is what every run used before the split)
    import importlib

    import numpy as np

    from engines.core.lineup import make_lineup
    from engines.registry import get_game

    spec = get_game(game)
    batch = importlib.import_module(f"engines.{game}.batch")
    p = spec.default_players
    names = [("heuristic", "greedy", "random")[s % 3] for s in range(p)]
    lineup = make_lineup(spec, names, p, True)
    kp = spec.kernel_params(spec.variants.load(None), p)
    ids, w = lineup.policy_ids(), lineup.weight_rows(spec.max_weights)
    scripted = spec.simulate(kp, ids, w, True, 7, 3, 12)
    monkeypatch.setattr(batch, "simulate_chunk_scripted_nb", batch.simulate_chunk_nb)
    searching = spec.simulate(kp, ids, w, True, 7, 3, 12)
    assert scripted.keys() == searching.keys()
    for table, cols in scripted.items():
        assert cols.keys() == searching[table].keys()
        for c, values in cols.items():
            np.testing.assert_array_equal(values, searching[table][c], err_msg=f"{table}.{c}")



@pytest.mark.parametrize("game", game_ids())
def test_each_kernel_variant_has_its_own_name(game):
    # numba names a compiled kernel's environment by its qualified name and a per-process counter.
    # Two variants under one name, compiled by processes whose counters met, then both loaded from
    # the cache into one process (a ladder worker: search tables, then scripted self-play), shared
    # an environment, and the second's returned arrays failed ("'descr' is NULL"). Seen once in a
    # Skyline of the World ladder; a distinct name per variant (engines.core.kernel.kernel_named)
    # rules it out whatever the counters
    import importlib

    from numba.core.registry import CPUDispatcher

    batch = importlib.import_module(f"engines.{game}.batch")
    names = [f.py_func.__qualname__ for f in vars(batch).values() if isinstance(f, CPUDispatcher)]
    assert {"simulate_chunk_nb", "simulate_chunk_scripted_nb"} <= set(names)
    assert len(names) == len(set(names)), sorted(names)
