"""Skyline 3000's jit decorators and the policy/chance stream draws.

`inline_kernel` (engines.core.kernel) is `kernel` with numba's IR inlining:
the small hot helpers are merged into their callers, so a decision costs no
calls (with their array arguments and reference counts) and the compiled
library has fewer levels to optimise. Called from Python, an inline kernel
is an ordinary jitted function.

`below_nb`, `random_bits_nb` are inline copies of engines.core.rng's
`below`, `random_bits` and `next_u64` (the same numbers, bit for bit;
tests/skyline_3000 checks them against the originals).
"""
from __future__ import annotations

import numba
import numpy as np

from engines.core.kernel import KERNEL_OPTIONS, inline_kernel  # noqa: F401 (re-exported)


_U5 = np.uint64(5)
_U9 = np.uint64(9)
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)


@inline_kernel
def next_u64_nb(s):
    """xoshiro256**: next 64-bit output, advancing `s` in place."""
    x = s[1] * _U5
    result = ((x << np.uint64(7)) | (x >> np.uint64(57))) * _U9
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = (s[3] << np.uint64(45)) | (s[3] >> np.uint64(19))
    return result


@inline_kernel
def below_nb(s, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32 (Lemire, unbiased)."""
    nn = np.uint64(n)
    m = (next_u64_nb(s) >> _U32) * nn
    if (m & _MASK32) < nn:
        t = (np.uint64(0) - nn) & _MASK32
        t = t % nn
        while (m & _MASK32) < t:
            m = (next_u64_nb(s) >> _U32) * nn
    return np.int64(m >> _U32)


@inline_kernel
def random_bits_nb(s, n):
    """A uniformly random subset of n <= 63 items as a bit mask."""
    if n == 0:
        return np.int64(0)
    return np.int64(next_u64_nb(s) & ((np.uint64(1) << np.uint64(n)) - np.uint64(1)))


def typed_kernel(sig):
    """`kernel` compiled for one signature only: jitted callers convert their
    arguments (int32 or a literal -> int64), so a helper called with mixed
    integer types compiles once instead of once per type combination."""
    def deco(fn):
        return numba.njit(sig, **KERNEL_OPTIONS)(fn)
    return deco


PUB = numba.types.Array(numba.int32, 1, "C")
I64 = numba.int64
F64 = numba.float64
