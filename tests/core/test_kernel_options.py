"""Rule kernels run without numba's reference counts (engines.core.kernel). The compiler refuses
such a kernel that allocates; the one rule it leaves to us is that such a kernel returns no
array: its caller would release a reference that was never counted (a use-after-free for an
owned array).

Checked in a fresh process with an empty numba cache, where every kernel a game reaches really
compiles (a kernel loaded from a filled cache is only its caller's machine code: its own
signature is not there to inspect)."""
from __future__ import annotations

import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from engines.core.kernel import kernel
from engines.registry import game_ids

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="compiled kernels only")

CHECK = """
import gc
from numba.core import types
from numba.core.registry import CPUDispatcher

def holds_array(t):
    if isinstance(t, types.Array):
        return True
    return isinstance(t, types.BaseTuple) and any(holds_array(x) for x in t.types)

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

PLAY = """
from engines.core.lineup import make_lineup
from engines.registry import get_game
spec = get_game({game!r})
p = spec.default_players
kp = spec.kernel_params(spec.variants.load(None), p)
for name in {policies!r} or list(spec.policies):
    lineup = make_lineup(spec, [name] + ["random"] * (p - 1), p, True)
    spec.simulate(kp, lineup.policy_ids(), lineup.weight_rows(spec.max_weights), True, 0, 0, 1)
g = spec.new_game(seed=3, game_index=0)
while not g.is_over():
    g.observation(g.current_player())
    g.apply(g.policy_action("random"))
g.scores()
checked, bad = uncounted_kernels_returning_arrays()
print(checked)
print(" ".join(bad) or "-")
"""

# the cheapest cold compile, scripted policies only, runs by default; every game with every
# policy (the searches too, a minute or more each) with the slow checks
CHEAP = "skyline_of_the_world"


def _probe(game, policies, tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", CHECK + PLAY.format(game=game, policies=policies)], env=env,
                         capture_output=True, text=True, check=True)
    checked, bad = out.stdout.splitlines()[-2:]
    return int(checked), bad


def test_the_check_finds_a_kernel_that_returns_an_array():
    @kernel
    def returns_its_argument(a):
        return a

    returns_its_argument(np.zeros(3))
    scope: dict = {}
    exec(CHECK, scope)
    _, bad = scope["uncounted_kernels_returning_arrays"]()
    assert any("returns_its_argument" in b for b in bad)


def test_scripted_kernels_return_no_array(tmp_path):
    checked, bad = _probe(CHEAP, ["random", "greedy", "heuristic"], tmp_path)
    assert checked >= 20, "the probe compiled too few kernels to mean anything"
    assert bad == "-", f"kernels without reference counts that return an array: {bad}"


@pytest.mark.slow
@pytest.mark.parametrize("game", game_ids())
def test_no_kernel_of_any_policy_returns_an_array(game, tmp_path):
    checked, bad = _probe(game, [], tmp_path)
    assert checked >= 20, "the probe compiled too few kernels to mean anything"
    assert bad == "-", f"kernels without reference counts that return an array: {bad}"
