"""A line-up without a search seat never compiles the search.

Each game's batch loop exists as two cached kernels from one source (engines.core.adapter's
_templates, or an older game's batch.py): with the search, and scripted, where numba prunes
the search branch before typing. The search is most of a cold compile (Skyline 3000: about
nine minutes against one), so a scripted run must take the scripted kernel and that kernel
must not pull the search in. Checked in a fresh process with an empty numba cache, where every
kernel the run reaches really compiles (a kernel loaded from a filled cache would not show it).
The same probe checks that no kernel compiled twice for one literal constant, read-only array
or narrower signed integer argument, and that no kernel without reference counts returns an
array (engines.core.kernel says why for both: its caller would release a reference that was
never counted).
"""
import os
import subprocess
import sys

import pytest

from engines.registry import game_ids

# every compiled overload, in the probe's process, of a kernel without reference counts
# (engines.core.kernel) whose return type holds an array
RETURNS_ARRAY = """
import gc
from numba.core import types
from numba.core.registry import CPUDispatcher
def holds_array(t):
    return isinstance(t, types.Array) or (isinstance(t, types.BaseTuple) and any(holds_array(x) for x in t.types))
def uncounted_kernels_returning_arrays():
    checked, bad = 0, []
    for obj in gc.get_objects():
        try:
            is_dispatcher = isinstance(obj, CPUDispatcher)
        except ReferenceError:  # a weak proxy whose object is gone
            continue
        if is_dispatcher and obj.targetoptions.get("_nrt") is False:
            for sig, cres in obj.overloads.items():
                checked += 1
                if holds_array(cres.signature.return_type):
                    bad.append(f"{obj.py_func.__module__}.{obj.py_func.__qualname__}{sig}")
    return checked, bad
"""

PROBE = """
import importlib
from engines.core.lineup import make_lineup
from engines.registry import get_game
game = {game!r}
spec = get_game(game)
engine = getattr(importlib.import_module(f"engines.{{game}}"), "ENGINE", None)   # engines.core.adapter
batch = engine.built if engine else importlib.import_module(f"engines.{{game}}.batch")
search = engine.built if engine else importlib.import_module(f"engines.{{game}}.search")
p = spec.default_players
lineup = make_lineup(spec, [{policy!r}], p, True)
spec.simulate(spec.kernel_params(spec.variants.load(None), p), lineup.policy_ids(),
              lineup.weight_rows(spec.max_weights), True, 0, 0, 2)
# the other look-ahead player, Cityline's strong (rollouts per candidate), is pruned with the search
strong = getattr(importlib.import_module(f"engines.{{game}}.policies"), "strong_action_nb", None)
print(len(search.search_nb.signatures) + (len(strong.signatures) if strong else 0),
      len(batch.simulate_chunk_nb.signatures), len(batch.simulate_chunk_scripted_nb.signatures))
# kernels compiled twice for argument types that differ only in a literal value, a read-only
# flag or the width of a signed integer (engines.core.kernel: wrap the constant or the narrow
# value in np.int64), by name
import sys
from numba.core import types
from numba.core.registry import CPUDispatcher
def plain(t):
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed:
        return types.int64
    return t.copy(readonly=False) if isinstance(t, types.Array) else t
twice = set()
for name, mod in list(sys.modules.items()):
    if name.startswith("engines."):
        for obj in vars(mod).values():
            if isinstance(obj, CPUDispatcher) and len(obj.signatures) > 1:
                if len({{tuple(plain(t) for t in sig) for sig in obj.signatures}}) < len(obj.signatures):
                    twice.add(obj.py_func.__module__ + "." + obj.py_func.__qualname__)
print(" ".join(sorted(twice)) or "-")
# the step API's kernels too, then every kernel without reference counts compiled so far
g = spec.new_game(seed=3, game_index=0)
while not g.is_over():
    g.observation(g.current_player())
    g.apply(g.policy_action("random"))
g.scores()
checked, bad = uncounted_kernels_returning_arrays()
print(checked, " ".join(bad) or "-")
"""

# every policy of a game (the look-ahead players too), for the return check alone
EVERY_POLICY = """
from engines.core.lineup import make_lineup
from engines.registry import get_game
spec = get_game({game!r})
p = spec.default_players
kp = spec.kernel_params(spec.variants.load(None), p)
for name in spec.policies:
    lineup = make_lineup(spec, [name] + ["random"] * (p - 1), p, True)
    spec.simulate(kp, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), True, 0, 0, 1)
checked, bad = uncounted_kernels_returning_arrays()
print(checked, " ".join(bad) or "-")
"""

# the cheapest cold compile runs by default; the others (about a minute each) with the slow checks
CHEAP = "skyline_of_the_world"


def _run_fresh(code, tmp_path) -> list[str]:
    """stdout lines of `code` run in a fresh process with an empty numba cache, compiled (from a
    file: numba caches a kernel defined in `code` only if it has a source file)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    env.pop("NUMBA_DISABLE_JIT", None)
    script = tmp_path / "probe.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def _probe(game, policy, tmp_path):
    counts, twice, returns = _run_fresh(RETURNS_ARRAY + PROBE.format(game=game, policy=policy), tmp_path)[-3:]
    checked, returning = returns.split(" ", 1)
    return tuple(int(x) for x in counts.split()) + (twice, int(checked), returning)


@pytest.mark.parametrize("game", [g if g == CHEAP else pytest.param(g, marks=pytest.mark.slow)
                                  for g in game_ids()])
def test_a_scripted_lineup_compiles_no_search(game, tmp_path):
    searched, with_search, scripted, twice, checked, returning = _probe(game, "heuristic", tmp_path)
    assert (with_search, scripted) == (0, 1), "a scripted line-up must take the scripted kernel"
    assert searched == 0, "the scripted kernel compiled a look-ahead player (search, strong) in"
    # a literal constant (0, True), a module-level array or an int32 passed to a called kernel
    # compiles it once more for that type alone (engines.core.kernel): seconds of every cold start
    assert twice == "-", f"kernels compiled twice for a literal, read-only or int32 argument: {twice}"
    # a kernel without reference counts that returns an array hands its caller a reference
    # that was never counted (engines.core.kernel)
    assert checked >= 20, "the probe compiled too few kernels to mean anything"
    assert returning == "-", f"kernels without reference counts that return an array: {returning}"


@pytest.mark.slow
@pytest.mark.parametrize("game", game_ids())
def test_no_kernel_of_any_policy_returns_an_array(game, tmp_path):
    checked, returning = _run_fresh(RETURNS_ARRAY + EVERY_POLICY.format(game=game), tmp_path)[-1].split(" ", 1)
    assert int(checked) >= 20, "the probe compiled too few kernels to mean anything"
    assert returning == "-", f"kernels without reference counts that return an array: {returning}"


def test_the_return_check_finds_a_kernel_that_returns_an_array(tmp_path):
    code = RETURNS_ARRAY + """
import numpy as np
from engines.core.kernel import kernel
@kernel
def returns_its_argument(a):
    return a
returns_its_argument(np.zeros(3))
print(uncounted_kernels_returning_arrays()[1])
"""
    assert "returns_its_argument" in _run_fresh(code, tmp_path)[-1]


def _loops(game):
    """Where a game's compiled batch loops live: the core adapter's kernels (engines.core.adapter),
    or an older game's own batch.py."""
    import importlib

    engine = getattr(importlib.import_module(f"engines.{game}"), "ENGINE", None)
    return (engine.built, f"{game}_") if engine else (importlib.import_module(f"engines.{game}.batch"), "")


@pytest.mark.parametrize("game", game_ids())
def test_the_scripted_kernel_plays_the_games_of_the_search_kernel(game, monkeypatch):
    # the same source with the search branch pruned: a scripted line-up's games must not change
    # (the search kernel is what every run used before the split)
    import importlib

    import numpy as np

    from engines.core.lineup import make_lineup
    from engines.registry import get_game

    spec = get_game(game)
    batch, _ = _loops(game)
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

    batch, prefix = _loops(game)
    names = [f.py_func.__qualname__ for f in vars(batch).values() if isinstance(f, CPUDispatcher)]
    assert {prefix + "simulate_chunk_nb", prefix + "simulate_chunk_scripted_nb"} <= set(names)
    assert len(names) == len(set(names)), sorted(names)
