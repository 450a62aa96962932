"""The one decorator every rule kernel uses.

Options are set once here (like stumpy's `config`): `cache=True` so a new
process (a joblib or Dask worker, the CLI) loads compiled code from
`__pycache__` instead of compiling again; `nogil` so threads could share a
process; no fastmath, because scores are integers and bit-identical replays
matter more than a few percent.

With `NUMBA_DISABLE_JIT=1` every kernel runs as plain Python: the same rules,
stepped through in a debugger.

Constants passed to a called kernel. From jitted code, numba types a literal
argument by its value (`f(d, 0)`, `f(d, True)`: Literal[int](0),
Literal[bool](True)) and compiles `f` once for each such type besides the
one for ordinary int64 / bool; a module-level array is a read-only constant,
another type again. Each extra copy is a whole compile of `f` and of every
kernel it inlines (a policy: seconds of a cold start). So a constant
argument is written `np.int64(0)`, `np.bool_(True)`, and a module-level
array is passed as `writable_view(ARRAY)` (engines.core.lowlevel). Inline
kernels are exempt (they are copied into the caller anyway).
tests/test_scripted_kernels.py fails when a kernel compiles twice this way.
"""
from __future__ import annotations

import numba

KERNEL_OPTIONS = dict(cache=True, nogil=True, fastmath=False, boundscheck=False)


def kernel(fn):
    """Compile `fn` as a rule kernel (arrays and scalars in, arrays and scalars out)."""
    return numba.njit(**KERNEL_OPTIONS)(fn)


def inline_kernel(fn):
    """A small hot kernel numba copies into each jitted caller: no call boundary
    (and no reference counts on its array arguments) on the hot path. Use it
    sparingly: every inlined body is compiled again in each caller (compile time).
    Called from Python it is an ordinary jitted function."""
    return numba.njit(inline="always", **KERNEL_OPTIONS)(fn)


def kernel_named(name: str):
    """`kernel` for one of several compiled variants of one source (closures made by a factory,
    like each game's scripted and search batch loops): each variant gets its own name, so numba's
    on-disk cache and its registry of compiled environments keep them apart. Two variants under
    one name, compiled in different processes and then loaded into one, share an environment
    name: the second's returned arrays lose their dtype ("NRT_adapt_ndarray_to_python: 'descr'
    is NULL")."""
    def deco(fn):
        fn.__name__ = fn.__qualname__ = name
        return kernel(fn)
    return deco
