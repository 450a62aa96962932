"""Skyline 3000's jit decorators and the numba types of its one-signature kernels.

`inline_kernel` (engines.core.kernel) is `kernel` with numba's IR inlining:
the small hot helpers are merged into their callers, so a decision costs no
calls (with their array arguments and reference counts) and the compiled
library has fewer levels to optimise. Called from Python, an inline kernel
is an ordinary jitted function.

The stream draws (`below`, `random_bits`) come from engines.core.rng, whose
per-draw functions are inline kernels too.
"""
from __future__ import annotations

import numba

from engines.core.kernel import KERNEL_OPTIONS, NO_REFCOUNTS, inline_kernel  # noqa: F401 (re-exported)


def typed_kernel(sig):
    """`kernel` (no reference counts, no allocation) compiled for one signature
    only: jitted callers convert their arguments (int32 or a literal ->
    int64), so a helper called with mixed integer types compiles once instead
    of once per type combination."""
    def deco(fn):
        return numba.njit(sig, **NO_REFCOUNTS, **KERNEL_OPTIONS)(fn)
    return deco


PUB = numba.types.Array(numba.int32, 1, "C")
I64_ARR = numba.types.Array(numba.int64, 1, "C")
U64_ARR = numba.types.Array(numba.uint64, 1, "C")   # a random stream (engines.core.rng)
I64 = numba.int64
F64 = numba.float64
