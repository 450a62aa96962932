"""The one decorator every rule kernel uses.

Options are set once here (like stumpy's `config`): `cache=True` so a new
process (a joblib or Dask worker, the CLI) loads compiled code from
`__pycache__` instead of compiling again; `nogil` so threads could share a
process; no fastmath, because scores are integers and bit-identical replays
matter more than a few percent; no C-callable wrapper (`no_cfunc_wrapper`):
numba builds one per compiled function for first-class function values, which
no kernel is, and it was about a tenth of Skyline 3000's cold start.

With `NUMBA_DISABLE_JIT=1` every kernel runs as plain Python: the same rules,
stepped through in a debugger.

Constants passed to a called kernel. From jitted code, numba types a literal
argument by its value (`f(d, 0)`, `f(d, True)`: Literal[int](0),
Literal[bool](True)) and compiles `f` once for each such type besides the
one for ordinary int64 / bool; a module-level array is a read-only constant,
another type again. Each extra copy is a whole compile of `f` and of every
kernel it inlines (a policy: seconds of a cold start). So a constant
argument is written `np.int64(0)`, `np.bool_(True)`, and a module-level
array is passed as `writable_view(ARRAY)` (engines.core.lowlevel). The same
goes for a value read from an int32 array (a game's public state may be one):
`f(rng, np.int64(pub[i]))`, or `f` compiles once more for int32. This holds
for inline kernels too: each is compiled once per signature, like any kernel.
tests/test_scripted_kernels.py fails when a kernel compiles twice this way.

Inlining is LLVM's, not numba's. An `inline_kernel` is compiled once, as its
own function, and marked `alwaysinline` (numba's `forceinline`): LLVM copies
its machine-level code into each caller when the caller's library is linked,
so the hot path has no calls and the kernel is typed and lowered only once.
numba's own inlining (`inline="always"`) copies the Python-level IR instead
and types it again at every call site, and again for every site of every
kernel that inlines it: Skyline 3000's scripted batch loop spent 35 of its
~70 s cold start there, for the same speed (measured paired, random play).
`ir_inline_kernel` keeps numba's inlining where it measured better: the few
search helpers that return or create arrays (a state tuple, under the
caller's reference counting); Cityline's small decision helpers (its random
game ran 3% slower with LLVM's inlining, paired); and a thin dispatch or game
loop copied into its only caller, which spares LLVM one more level of
linking and emitting all the code below it.

No CPython wrapper for jitted callers. numba gives every compiled function an
entry point that unboxes Python arguments, and LLVM inlines the whole body
(an inline kernel's whole call tree) into it: a second copy, optimised and
emitted to machine code for every kernel, though only the few a Python caller
reaches ever run it. A `kernel` or `inline_kernel` is compiled without it
(`no_cpython_wrapper`); a call from Python (a test, the step API, the batch
entry of a game whose loop is a plain kernel) goes to a twin of the same
source compiled with one, on its first such call (JitCallerDispatcher). This
took Skyline 3000's cold start from 31.2 to 28.7 s (mean of 4 runs paired with
the old tree, one per core, on a 2-core machine).
"""
from __future__ import annotations

import types

import numba
from numba.core.registry import CPUDispatcher

KERNEL_OPTIONS = dict(cache=True, nogil=True, fastmath=False, boundscheck=False, no_cfunc_wrapper=True)
# set explicitly either way: numba lets a called function inherit the caller's setting otherwise
# (for forceinline too: a plain kernel called from an inline one would be inlined everywhere)
NO_REFCOUNTS = dict(_nrt=False, forceinline=False)
REFCOUNTS = dict(_nrt=True, forceinline=False)
INLINE = dict(_nrt=False, forceinline=True)


class JitCallerDispatcher(CPUDispatcher):
    """A kernel compiled for jitted callers only, without a CPython entry wrapper (above). Called
    from Python, it hands the call to its twin: the same source under the name
    `<name>.python_entry` (its own entry in numba's on-disk cache, whose key does not tell the two
    builds apart), compiled with the wrapper on the first Python call."""

    _python_entry = None
    _signature = None
    _declared_compiled = True

    def _compile_declared(self):
        """A `typed_kernel` compiles its one signature when it is first needed (a jitted caller
        types a call to it, or Python calls it), not when its module is imported: a process that
        only reads a game's tables (a report) loads no machine code, and a caller loaded from the
        cache never needs the callee's."""
        if not self._declared_compiled:
            self._declared_compiled = True
            self.compile(self._signature)
            self.disable_compile()

    def get_call_template(self, args, kws):
        self._compile_declared()
        return super().get_call_template(args, kws)

    def __call__(self, *args, **kwargs):
        if self._python_entry is None:
            fn = self.py_func
            twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
            twin.__qualname__ = fn.__qualname__ + ".python_entry"
            twin.__module__, twin.__doc__ = fn.__module__, fn.__doc__
            # compiled as a plain `kernel` was before this class: an inline kernel's twin is
            # called, not inlined, and both kinds run without reference counts
            signature = [self._signature] if self._signature is not None else None
            self._python_entry = numba.njit(signature, **NO_REFCOUNTS, **KERNEL_OPTIONS)(twin)
        return self._python_entry(*args, **kwargs)


def _jit_caller_kernel(fn, options: dict, signature=None):
    if numba.config.DISABLE_JIT:
        return fn
    compile_options = {k: v for k, v in KERNEL_OPTIONS.items() if k != "cache"}
    dispatcher = JitCallerDispatcher(py_func=fn, locals={}, targetoptions=dict(
        nopython=True, no_cpython_wrapper=True, **options, **compile_options))
    dispatcher.enable_caching()
    dispatcher._signature = signature
    # as numba.njit(signature), for that signature only (jitted callers convert their arguments to
    # it), but compiled on first use (_compile_declared)
    dispatcher._declared_compiled = signature is None
    return dispatcher


def kernel(fn):
    """Compile `fn` as a rule kernel: arrays and scalars in, scalars (or a tuple of them) out;
    it writes into arrays it is given and allocates none (no reference counts, above)."""
    return _jit_caller_kernel(fn, NO_REFCOUNTS)


def allocating_kernel(fn):
    """Compile `fn` as a kernel that creates (or returns) arrays, with numba's reference counts."""
    return numba.njit(**REFCOUNTS, **KERNEL_OPTIONS)(fn)


def inline_kernel(fn):
    """A small hot `kernel` (no allocation, no reference counts) that LLVM copies into each
    jitted caller: no call on the hot path. Compiled once per signature; the copies cost only
    LLVM's optimisation of the caller (above). Called from Python it is an ordinary kernel."""
    return _jit_caller_kernel(fn, INLINE)


def typed_kernel(signature, inline: bool = False):
    """`kernel` (or `inline_kernel`, inline=True) for one signature only, compiled on first use: jitted
    callers convert their arguments to it (an int32 or a literal to int64), so a helper called
    with mixed integer types compiles once instead of once per combination."""
    def deco(fn):
        return _jit_caller_kernel(fn, INLINE if inline else NO_REFCOUNTS, signature)
    return deco


def ir_inline_kernel(fn):
    """numba's own inlining (`inline="always"`): the body is typed again inside each caller and
    takes the caller's reference counting. Only where measured better (above); everything else
    is an `inline_kernel` (compile time)."""
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
