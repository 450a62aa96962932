"""Plain-Python mode (NUMBA_DISABLE_JIT=1): the intrinsics' Python twins keep
the compiled int64 semantics, and the mode CI asks for is the mode it gets.

The `jit_off` ones run in both modes: compiled in the default suite, plain
Python in CI's `NUMBA_DISABLE_JIT=1 pytest -m jit_off` step. Whole games in both modes are
compared with the same golden files (tests/golden/)."""
from __future__ import annotations

import os
from pathlib import Path

import numba
import numpy as np
import pytest

from engines import registry
from engines.core import lowlevel
from engines.core.kernel import KERNEL_OPTIONS, ir_inline_kernel, kernel
from engines.core.lowlevel import keep_alive, lowest_bit_index, nth_bit_index, popcount, unowned
from engines.core.rng import below, new_stream, next_u64



@kernel
def _popcount(x):
    return popcount(x)


@kernel
def _lowest(x):
    return lowest_bit_index(x)


@kernel
def _sum_unowned(a):
    v = unowned(a)
    s = 0
    for i in range(v.shape[0]):
        s += v[i]
    keep_alive(a)
    return s


# (value, popcount, lowest set bit) as compiled code sees the value: cast to int64 first
CASES = [
    (np.int64(1), 1, 0),
    (np.int64(0b101100), 3, 2),
    (np.int64(-1), 64, 0),                        # two's complement: every bit
    (np.int64(-(2 ** 63)), 1, 63),                # only the sign bit
    (np.int64(2 ** 62), 1, 62),
    (np.int32(-1), 64, 0),                        # int32 sign-extends to int64
    (np.uint32(0xFFFFFFFF), 32, 0),               # uint32 zero-extends
    (np.uint64(2 ** 64 - 2), 63, 1),              # uint64 keeps its bit pattern
    (np.int32(1 << 30), 1, 30),
]


@pytest.mark.jit_off
def test_the_mode_is_the_one_the_environment_asks_for():
    # CI's jit_off step must really run plain Python (else it tests nothing new),
    # and the default suite must really run compiled kernels
    off = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
    assert bool(numba.config.DISABLE_JIT) == off
    # every decorator the engines use: kernel, inline_kernel, ir_inline_kernel, one-signature njit
    typed = numba.njit((numba.int64,), **KERNEL_OPTIONS)(lambda x: x + 1)
    for k in (_popcount, next_u64, ir_inline_kernel(lambda x: x), typed):
        assert isinstance(k, numba.core.registry.CPUDispatcher) != off, k
    assert typed(np.int64(1)) == 2
    assert (lowlevel.popcount is lowlevel._popcount_py) == off


@pytest.mark.jit_off
@pytest.mark.parametrize("x,bits,low", CASES, ids=[f"{type(c[0]).__name__}({c[0]})" for c in CASES])
def test_bit_intrinsics_have_int64_semantics(x, bits, low):
    assert _popcount(x) == bits
    assert _lowest(x) == low
    # the Python twins agree whatever the mode
    assert lowlevel._popcount_py(x) == bits
    assert lowlevel._lowest_bit_index_py(x) == low


@pytest.mark.jit_off
def test_nth_bit_index_and_unowned_views():
    m = np.int64(0b1011_0010)
    assert [nth_bit_index(m, k) for k in range(4)] == [1, 4, 5, 7]
    a = np.arange(10, dtype=np.int64)
    assert _sum_unowned(a) == 45


# not in the jit_off subset: it compares the twins with the compiled intrinsics
_SECTION_MID = lowlevel.section_view(1, 3, np.int32)     # int64 items 1-2: four int32
_SECTION_TAIL = lowlevel.section_view(2, None, np.uint64)


@kernel
def _sections(d):
    mid, tail = _SECTION_MID(d), _SECTION_TAIL(d)
    mid[0] = 7                # writes d[1]'s low half: the view shares d's memory
    return mid.shape[0], tail.shape[0], tail[0]


@pytest.mark.jit_off
def test_section_views_are_slice_as_with_the_bounds_baked_in():
    d = np.arange(5, dtype=np.int64)
    n_mid, n_tail, first_tail = _sections(d)
    assert (n_mid, n_tail, first_tail) == (4, 3, 2)
    assert d[1] == 7 and list(d[2:]) == [2, 3, 4]


def test_python_twins_match_the_compiled_intrinsics_on_random_words():
    rng = np.random.default_rng(5)
    words = rng.integers(-(2 ** 63), 2 ** 63 - 1, size=500, dtype=np.int64)
    for w in words:
        assert lowlevel._popcount_py(w) == _popcount(w)
        if w != 0:
            assert lowlevel._lowest_bit_index_py(w) == _lowest(w)


@pytest.mark.jit_off
def test_streams_wrap_mod_2_64_as_compiled():
    # xoshiro256** / splitmix64 on numpy uint64 scalars must wrap, not grow:
    # pinned outputs (the same in both modes; the C reference is checked in test_rng)
    s = new_stream(np.uint64(1), 2, 3)
    assert [int(next_u64(s)) for _ in range(3)] == [6783168036057503764, 11126672546313350867,
                                                    2240956451281199523]
    assert s.dtype == np.uint64
    assert int(below(s, 7)) == 3


def _suite_conftest(config):
    """tests/conftest.py as pytest loaded it (--import-mode=importlib: not importable by name)."""
    want = Path(__file__).resolve().parent / "conftest.py"
    for plugin in config.pluginmanager.get_plugins():
        if Path(getattr(plugin, "__file__", "") or "").resolve() == want:
            return plugin
    raise LookupError(want)


@pytest.mark.jit_off
def test_every_registered_game_has_its_rule_tests_in_the_plain_python_subset(request, monkeypatch):
    # chosen from engines.registry: each game's tests/<game_id>/test_rules.py, whatever the game
    conftest = _suite_conftest(request.config)
    root = Path(__file__).resolve().parent.parent
    for game_id in registry.game_ids():
        rules = f"tests/{game_id}/test_rules.py"
        assert (root / rules).is_file(), f"{game_id} is registered but has no {rules}"
        assert conftest.jit_off_selected(rules, "test_anything_added_tomorrow")
    # a game registered tomorrow joins without an edit to the conftest; one not registered does not
    assert conftest.jit_off_selected("tests/new_game/test_rules.py", "test_x", game_ids=["new_game"])
    assert conftest.jit_off_selected("tests/new_game/test_scoring.py", "test_x", game_ids=["new_game"])
    assert not conftest.jit_off_selected("tests/new_game/test_rules.py", "test_x", game_ids=["cityline"])
    # game-play and search modules stay out, but for their listed short tests
    assert not conftest.jit_off_selected("tests/skyline_of_the_world/test_play.py", "test_x")
    assert not conftest.jit_off_selected("tests/cityline/test_search.py", "test_x")
    assert conftest.jit_off_selected("tests/cityline/test_play.py", "test_determinism_chunking")
    # a rule-level test too slow for plain Python leaves the subset by its name alone
    monkeypatch.setitem(conftest.JIT_OFF_TOO_SLOW, "tests/cityline/test_rules.py", {"test_slow"})
    assert not conftest.jit_off_selected("tests/cityline/test_rules.py", "test_slow")
    assert conftest.jit_off_selected("tests/cityline/test_rules.py", "test_other")
