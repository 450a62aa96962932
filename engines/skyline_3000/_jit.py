"""Skyline 3000's jit decorators and the numba types of its one-signature kernels.

`inline_kernel` (engines.core.kernel) is `kernel` marked for LLVM to copy into
each caller: the small hot helpers cost no calls, and each is typed once.
`typed_kernel(sig, inline=True)` is the same for one signature (both from
engines.core.kernel).

The stream draws (`below`, `random_bits`) come from engines.core.rng, whose
per-draw functions are inline kernels too.
"""
from __future__ import annotations

import numba

from engines.core.kernel import inline_kernel, typed_kernel  # noqa: F401 (re-exported)

PUB = numba.types.Array(numba.int32, 1, "C")
I64_ARR = numba.types.Array(numba.int64, 1, "C")
F64_ARR = numba.types.Array(numba.float64, 1, "C")
U64_ARR = numba.types.Array(numba.uint64, 1, "C")   # a random stream (engines.core.rng)
I64 = numba.int64
F64 = numba.float64
BOOL = numba.boolean
