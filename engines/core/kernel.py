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
