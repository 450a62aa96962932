"""The one decorator every rule kernel uses.

Options are set once here (like stumpy's `config`): `cache=True` so a new
process (a joblib or Dask worker, the CLI) loads compiled code from
`__pycache__` instead of compiling again; `nogil` so threads could share a
process; no fastmath, because scores are integers and bit-identical replays
matter more than a few percent.

With `NUMBA_DISABLE_JIT=1` every kernel runs as plain Python: the same rules,
stepped through in a debugger.
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
