"""Counter-seeded random streams for kernels: xoshiro256** with Lemire's
bounded integers, seeded by splitmix64.

Why not `np.random` inside kernels: it is ~8x slower per call (numba-notes),
and its state is per process, so game `i` would depend on which worker ran
it. Here every game owns its streams, derived from (run seed, game index,
stream id), so game `i` is the same on one worker, two workers or a cluster.

A stream is a `uint64[4]` array, advanced in place. The per-draw functions
(`next_u64`, `below`, `random_bits`, `uniform`) are inline kernels: numba
copies them into each caller, so a draw in a hot loop costs no call and no
reference count on the stream array. The algorithms and the
seeding match the C reference playouts' `common.h` (benchmark --c-reference) bit for bit (tested), so the
C yardstick and the engines draw the same numbers from the same seed.

Streams used by the engines (one game, one run seed):
    CHANCE  deals, shuffles, dice: the same for every policy line-up, so
            comparisons between policies or variants see the same luck
            (common random numbers) as far as the rules allow;
    POLICY + seat  each seat's own stream for randomised policies.
"""
from __future__ import annotations

import warnings

import numba
import numpy as np

from engines.core.kernel import allocating_kernel, inline_kernel, kernel

if numba.config.DISABLE_JIT:
    # Plain-Python mode: the uint64 arithmetic below runs on numpy uint64
    # scalars, which wrap mod 2**64 exactly as the compiled code does but warn
    # on each wrap; the wrap is the algorithm here, not an accident.
    warnings.filterwarnings("ignore", "overflow encountered in scalar", RuntimeWarning, __name__)

CHANCE_STREAM = 0
POLICY_STREAM = 1  # seat s uses POLICY_STREAM + s

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U5 = np.uint64(5)
_U9 = np.uint64(9)
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)


@inline_kernel
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@kernel
def splitmix64(x):
    """One splitmix64 step: (new counter, output)."""
    x = x + _GOLDEN
    z = x
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return x, z ^ (z >> np.uint64(31))


@kernel
def seed_into(state, seed):
    """Fill `state` (uint64[4]) from a 64-bit seed, as common.h's seed_rng."""
    x = np.uint64(seed)
    for i in range(4):
        x, z = splitmix64(x)
        state[i] = z


@kernel
def derive_seed(run_seed, game_index, stream):
    """A 64-bit seed for (run seed, game index, stream), mixing each in turn."""
    x = np.uint64(run_seed)
    x, a = splitmix64(x)
    x, b = splitmix64(a ^ np.uint64(game_index))
    x, c = splitmix64(b ^ (np.uint64(stream) * _GOLDEN))
    return c


@allocating_kernel
def new_stream(run_seed, game_index, stream):
    state = np.empty(4, dtype=np.uint64)
    seed_into(state, derive_seed(run_seed, game_index, stream))
    return state


@inline_kernel
def next_u64(s):
    """xoshiro256**: next 64-bit output, advancing `s` in place."""
    result = _rotl(s[1] * _U5, np.int64(7)) * _U9
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], np.int64(45))
    return result


@inline_kernel
def below(s, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32 (Lemire, unbiased)."""
    nn = np.uint64(n)
    m = (next_u64(s) >> _U32) * nn
    if (m & _MASK32) < nn:
        t = (np.uint64(0) - nn) & _MASK32
        t = t % nn
        while (m & _MASK32) < t:
            m = (next_u64(s) >> _U32) * nn
    return np.int64(m >> _U32)


@inline_kernel
def uniform(s):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@inline_kernel
def random_bits(s, n):
    """A uniformly random subset of n <= 63 items as a bit mask (common.h pick_subset)."""
    if n == 0:
        return np.int64(0)
    return np.int64(next_u64(s) & ((np.uint64(1) << np.uint64(n)) - np.uint64(1)))


@kernel
def shuffle(s, a, n):
    """Fisher-Yates shuffle of a[:n] in place, as common.h's shuffle."""
    for i in range(n - 1, 0, -1):
        j = below(s, i + 1)
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp
