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

No reference counts in rule kernels. numba counts references to every array
a function receives (a call into its runtime on entry and on each exit, even
for the uncounted views of engines.core.lowlevel.unowned): measured with
perf, those calls were 9% of a random Cityline game and 13% of a Skyline
3000 one. A rule kernel works on arrays its caller owns and creates none, so
`kernel` compiles without numba's runtime (`_nrt=False`): no counts at all.
A kernel that creates arrays (a batch loop's buffers, a fresh state, a copy
for an observation) is an `allocating_kernel`; numba refuses at compile time
a `kernel` that tries to allocate ("No implementation of function ...
empty"), so the mark cannot be forgotten silently. One rule the compiler does
not check: a `kernel` must not return an array (its caller would release a
reference that was never counted); tests/test_scripted_kernels.py checks
every compiled kernel's return type.
"""
from __future__ import annotations

import numba

KERNEL_OPTIONS = dict(cache=True, nogil=True, fastmath=False, boundscheck=False)
# set explicitly either way: numba lets a called function inherit the caller's setting otherwise
NO_REFCOUNTS = dict(_nrt=False)
REFCOUNTS = dict(_nrt=True)


def kernel(fn):
    """Compile `fn` as a rule kernel: arrays and scalars in, scalars (or a tuple of them) out;
    it writes into arrays it is given and allocates none (no reference counts, above)."""
    return numba.njit(**NO_REFCOUNTS, **KERNEL_OPTIONS)(fn)


def allocating_kernel(fn):
    """Compile `fn` as a kernel that creates (or returns) arrays, with numba's reference counts."""
    return numba.njit(**REFCOUNTS, **KERNEL_OPTIONS)(fn)


def inline_kernel(fn):
    """A small hot kernel numba copies into each jitted caller: no call boundary
    (and no reference counts on its array arguments) on the hot path. Use it
    sparingly: every inlined body is compiled again in each caller (compile time).
    Called from Python it is an ordinary jitted function."""
    return numba.njit(inline="always", **KERNEL_OPTIONS)(fn)


def kernel_named(name: str, allocates: bool = False):
    """`kernel` for one of several compiled variants of one source (closures made by a factory,
    like each game's scripted and search batch loops): each variant gets its own name, so numba's
    on-disk cache and its registry of compiled environments keep them apart. Two variants under
    one name, compiled in different processes and then loaded into one, share an environment
    name: the second's returned arrays lose their dtype ("NRT_adapt_ndarray_to_python: 'descr'
    is NULL")."""
    def deco(fn):
        fn.__name__ = fn.__qualname__ = name
        return allocating_kernel(fn) if allocates else kernel(fn)
    return deco
