"""engines.core.kernel: jitted callers get a kernel without numba's CPython entry wrapper, and a
call from Python goes to its twin compiled with one, cached under a name of its own.

Checked in fresh processes sharing one numba cache: the second process loads both builds from
disk. Were the two builds cached under one name (numba's cache key does not tell them apart),
the second process's Python call would run the build without a wrapper and crash."""
import os
import subprocess
import sys
import textwrap

import pytest

KERNELS = '''
import numpy as np
from engines.core.kernel import inline_kernel, kernel, typed_kernel
import numba

@inline_kernel
def add_one(a, i):
    return a[i] + 1

@typed_kernel((numba.types.Array(numba.int64, 1, "C"), numba.int64), inline=True)
def add_two(a, i):
    return a[i] + 2

@kernel
def total(a):
    s = 0
    for i in range(a.shape[0]):
        s += add_one(a, np.int64(i)) + add_two(a, np.int64(i))
    return s
'''

PROBE = '''
import numpy as np
import kernels
a = np.arange(5, dtype=np.int64)
print(kernels.total(a), kernels.add_one(a, 2), kernels.add_two(a, 2))
import re
def wrapped(dispatcher):   # defines a CPython entry wrapper? (None: loaded from the cache, not readable)
    return [None if cres.library._disable_inspection
            else bool(re.search(r'define[^\\n]*@_ZN7cpython', cres.library.get_llvm_str()))
            for cres in dispatcher.overloads.values()]
for k in (kernels.total, kernels.add_one, kernels.add_two):
    twin = k._python_entry
    print(k.py_func.__name__, wrapped(k), twin.py_func.__qualname__, wrapped(twin),
          k.stats.cache_hits.total() + twin.stats.cache_hits.total())
'''


def _run(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=os.pathsep.join(
        [str(tmp_path), os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, str(tmp_path / "probe.py")], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.splitlines()


def test_jitted_callers_get_no_wrapper_and_python_calls_its_twin(tmp_path):
    (tmp_path / "kernels.py").write_text(textwrap.dedent(KERNELS))
    (tmp_path / "probe.py").write_text(textwrap.dedent(PROBE))
    first = _run(tmp_path)
    assert first[0] == "35 3 4"   # sum(2i + 3 for i < 5), then 2 + 1, 2 + 2
    for line, name in zip(first[1:], ("total", "add_one", "add_two")):
        assert line.startswith(f"{name} "), line
        # what jitted callers link: compiled without the wrapper; the twin, with it
        if name != "total":   # total is only ever called from Python
            assert f"{name} [False] {name}.python_entry [True] 0" == line
    cached = sorted(p.name.split("-")[0] for p in (tmp_path / "cache").rglob("*.nbi"))
    assert cached == ["kernels.add_one", "kernels.add_one.python_entry", "kernels.add_two",
                      "kernels.add_two.python_entry", "kernels.total.python_entry"]
    second = _run(tmp_path)   # from the cache: only what the calls need (a typed kernel compiles on first use)
    assert second[0] == first[0]
    assert [line.split(" ", 1)[1] for line in second[1:]] == [
        "[] total.python_entry [None] 1", "[] add_one.python_entry [None] 1",
        "[] add_two.python_entry [None] 1"]


@pytest.mark.jit_off
def test_without_the_jit_a_kernel_is_its_python_function():
    """Under NUMBA_DISABLE_JIT=1 (CI's jit_off step) a kernel is the function itself, to step
    through in a debugger; compiled, it is a JitCallerDispatcher whose Python call gives the same."""
    import numba

    from engines.core.kernel import JitCallerDispatcher, kernel, typed_kernel

    def add_one(a):
        return a + 1

    for k in (kernel(add_one), typed_kernel((numba.int64,))(add_one)):
        assert (k is add_one) == bool(numba.config.DISABLE_JIT)
        assert isinstance(k, JitCallerDispatcher) != bool(numba.config.DISABLE_JIT)
        assert k(41) == 42
