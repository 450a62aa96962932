"""Low-level helpers for the hot loops: reference-count-free views, bit counts.

`unowned(a)`: a view of array `a` that carries no reference count.
`writable_view(a)`: a module-level constant array typed as an ordinary one
(one compile of the kernel it is passed to, not two).
`matrix_view(a, rows, cols)`: a 1-D array's head as a matrix, without reshape's C call.
`slice_as(a, start, stop, dtype)`: a fixed part of a vector as another dtype, unchecked.
`section_view(start, stop, dtype)`: the same with the bounds baked in, one call a view.
`copy_words(dst, src, first, end)`: dst[first:end] = src[first:end], a loop LLVM vectorizes.

Why: numba reference-counts every array it hands to a compiled function or
slices out of another array, and each count is an atomic add on the array's
memory record (measured here: about a third of a random Cityline game went to
two atomic instructions, some 14 of them per decision). A view whose memory
record is NULL makes those calls return at once. The batch loop takes such
views of arrays it owns and keeps alive for the whole chunk (see
`simulate_chunk_nb` in each game's batch.py), so the rule kernels are the same kernels, just called
without the bookkeeping.

Only for views that cannot outlive their owner: never return one, never store
one, and keep a later use of the owner (`keep_alive`) so numba does not free
it after its last mention.

Plain-Python mode: with `NUMBA_DISABLE_JIT=1` an `@intrinsic` cannot be
called (it only exists inside compiled code), so each intrinsic has a
plain-Python twin used instead, with the compiled semantics on int64:
`unowned(a)` is `a` itself (Python counts references anyway), `popcount` and
`lowest_bit_index` read the argument's 64-bit two's-complement pattern (so
popcount(-1) is 64, as `ctpop` on an int64 says) and return an int64. Every kernel then
runs as ordinary Python, e.g. to step through a rule in a debugger.
"""
from __future__ import annotations

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic
from numba.core.imputils import impl_ret_borrowed
from numba.np.arrayobj import make_array, populate_array

from engines.core.kernel import inline_kernel, kernel


_MASK64 = (1 << 64) - 1


def _unowned_py(arr):
    """Plain-Python `unowned`: the array itself."""
    return arr


def _popcount_py(x):
    """Plain-Python `popcount`: set bits of x's int64 bit pattern."""
    return np.int64((int(x) & _MASK64).bit_count())


def _lowest_bit_index_py(x):
    """Plain-Python `lowest_bit_index`: index of the lowest set bit of x's int64 bit pattern."""
    v = int(x) & _MASK64
    if v == 0:
        # compiled: cttz with zero undefined; the kernels never ask (documented precondition)
        raise ValueError("lowest_bit_index(0) is undefined")
    return np.int64((v & -v).bit_length() - 1)


def _view_without_count(arr, out_type):
    """Codegen of a view of `arr` typed `out_type`, sharing its data, with no memory record
    (so no reference count): the one body behind `unowned` and `writable_view`."""
    def codegen(context, builder, sig, args):
        src = make_array(arr)(context, builder, args[0])
        out = make_array(out_type)(context, builder)
        populate_array(out, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize,
                       meminfo=None)
        return out._getvalue()

    return out_type(arr), codegen


@intrinsic
def unowned(typingctx, arr):
    if not isinstance(arr, types.Array):
        return None
    return _view_without_count(arr, arr)


@intrinsic
def writable_view(typingctx, arr):
    """The same array typed writable. numba freezes a module-level array into the compiled code
    as a read-only constant, a type of its own: a kernel called with it and with ordinary arrays
    compiles twice (a whole policy, seconds of a cold start). Pass constants through this where
    the callee only reads them; never write through the view (the constant may be read-only
    memory). For module-level constants only: the view carries no reference count."""
    if not isinstance(arr, types.Array):
        return None
    return _view_without_count(arr, arr.copy(readonly=False))  # a constant lives as long as the code


@intrinsic
def matrix_view(typingctx, arr, rows, cols):
    """The first rows * cols items of a 1-D C-contiguous array as a C-contiguous rows x cols
    matrix sharing its data and memory record (counted as any view), without `reshape`: numba's
    reshape calls a C helper (numba_attempt_nocopy_reshape) that LLVM can neither inline nor drop,
    some tens of nanoseconds for a view a state vector's kernel takes at every call. The caller
    guarantees rows * cols <= len(arr)."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"
            and isinstance(rows, types.Integer) and isinstance(cols, types.Integer)):
        return None
    out_type = arr.copy(ndim=2, layout="C")

    def codegen(context, builder, sig, args):
        src = make_array(arr)(context, builder, args[0])
        out = make_array(out_type)(context, builder)
        r = context.cast(builder, args[1], sig.args[1], types.intp)
        c = context.cast(builder, args[2], sig.args[2], types.intp)
        itemsize = src.itemsize
        populate_array(out, data=src.data, shape=[r, c], strides=[builder.mul(c, itemsize), itemsize],
                       itemsize=itemsize, meminfo=src.meminfo, parent=None)
        return impl_ret_borrowed(context, builder, out_type, out._getvalue())

    return out_type(arr, rows, cols), codegen


@intrinsic
def slice_as(typingctx, arr, start, stop, dtype):
    """arr[start:stop].view(dtype) for a 1-D C-contiguous array, without the slice's clamping nor
    the view's checks: a pointer and a length. The caller guarantees 0 <= start <= stop <=
    len(arr) and a whole number of `dtype` items in the part (a state vector's fixed sections)."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"
            and isinstance(start, types.Integer) and isinstance(stop, types.Integer)
            and isinstance(dtype, (types.NumberClass, types.DType))):
        return None
    item = dtype.instance_type if isinstance(dtype, types.NumberClass) else dtype.dtype
    out_type = types.Array(item, 1, "C", readonly=not arr.mutable)

    def codegen(context, builder, sig, args):
        a = context.cast(builder, args[1], sig.args[1], types.intp)
        b = context.cast(builder, args[2], sig.args[2], types.intp)
        return _part_as(context, builder, arr, out_type, args[0], a, b)

    return out_type(arr, start, stop, dtype), codegen


def _part_as(context, builder, arr, out_type, src_value, a, b):
    """Codegen of items a..b of the 1-D array `src_value` (typed `arr`) as a view typed
    `out_type` (another item type, the same memory record): slice_as's and section_view's body."""
    src = make_array(arr)(context, builder, src_value)
    out = make_array(out_type)(context, builder)
    item = out_type.dtype
    size_in = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(arr.dtype)))
    size_out = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(item)))
    data = builder.bitcast(builder.gep(src.data, [a]), context.get_data_type(item).as_pointer())
    n = builder.sdiv(builder.mul(builder.sub(b, a), size_in), size_out)
    populate_array(out, data=data, shape=[n], strides=[size_out], itemsize=size_out, meminfo=src.meminfo,
                   parent=None)
    return impl_ret_borrowed(context, builder, out_type, out._getvalue())


def section_view(start: int, stop: int | None, dtype):
    """A view maker for a fixed section of a state vector: section_view(s, e, dt)(a) is
    slice_as(a, s, e, dt) (e None: to the end of a), the bounds and dtype baked into one call.
    Why: a kernel copied into its callers by numba (ir_inline_kernel) brings every global it
    reads as IR that each caller types again; slice_as's bounds and dtype were four such
    statements at each of a game loop's many views (Skyline 3000's buffers)."""
    dt = np.dtype(dtype)
    if numba.config.DISABLE_JIT:
        return lambda arr: arr[start:stop].view(dt)
    item = numba.from_dtype(dt)

    @intrinsic
    def view(typingctx, arr):
        if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"):
            return None
        out_type = types.Array(item, 1, "C", readonly=not arr.mutable)

        def codegen(context, builder, sig, args):
            end = make_array(arr)(context, builder, args[0]).nitems if stop is None else \
                context.get_constant(types.intp, stop)
            return _part_as(context, builder, arr, out_type, args[0], context.get_constant(types.intp, start), end)

        return out_type(arr), codegen

    return view


def _slice_as_py(arr, start, stop, dtype):
    """Plain-Python `slice_as`."""
    return arr[start:stop].view(dtype)


def _matrix_view_py(arr, rows, cols):
    """Plain-Python `matrix_view`."""
    return arr[:int(rows) * int(cols)].reshape(int(rows), int(cols))


@kernel
def keep_alive(a):
    """A use of `a` (placed after the last use of its unowned views)."""
    return a.shape[0]


@intrinsic
def keep_alive_all(typingctx, *owners):
    """A use of every owner array, placed after the last use of its unowned views; returns how
    many. It compiles to nothing (a kernel taking the owners was compiled for each loop's mix of
    array types: 0.1 s of Skyline 3000's cold start)."""
    def codegen(context, builder, sig, args):
        return context.get_constant(types.intp, len(owners))

    return types.intp(types.StarArgTuple.from_types(owners)), codegen


def _keep_alive_all_py(*owners):
    """Plain-Python `keep_alive_all`: the count."""
    return len(owners)


@intrinsic
def popcount(typingctx, x):
    """Set bits of an int64 (one instruction)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], x, types.int64)
        return builder.ctpop(v)

    return types.int64(x), codegen


@intrinsic
def lowest_bit_index(typingctx, x):
    """Index of the lowest set bit of a non-zero int64."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], x, types.int64)
        return builder.cttz(v, context.get_constant(types.boolean, True).type(1))

    return types.int64(x), codegen


if numba.config.DISABLE_JIT:
    # an @intrinsic is not callable from Python: use the plain twins above
    unowned = _unowned_py  # noqa: F811
    keep_alive_all = _keep_alive_all_py  # noqa: F811
    writable_view = _unowned_py  # noqa: F811 (the array itself, as unowned)
    popcount = _popcount_py  # noqa: F811
    lowest_bit_index = _lowest_bit_index_py  # noqa: F811
    matrix_view = _matrix_view_py  # noqa: F811
    slice_as = _slice_as_py  # noqa: F811


@kernel
def nth_bit_index(m, k):
    """Index of the k-th (0-based, from the lowest) set bit of m; m has more than k set bits.
    A binary search on bit counts, without a branch: clearing the k lowest bits one by one ends
    its loop after a random number of rounds, which the processor mispredicts."""
    x = np.uint64(m)
    k = np.int64(k)
    pos = np.int64(0)
    for half in (32, 16, 8, 4, 2, 1):
        low = popcount(x & ((np.uint64(1) << np.uint64(half)) - np.uint64(1)))
        up = np.int64(k >= low)  # 1: the bit is in the upper half
        k -= low * up
        x >>= np.uint64(half * up)
        pos += half * up
    return pos


@inline_kernel
def copy_words(dst, src, first, end):
    """dst[first:end] = src[first:end] (1-D arrays), indexed by unsigned integers: with a signed
    index numba checks for a negative one (counted from the end), a branch in the loop that keeps
    LLVM from vectorizing it when `first` is known at run time only (Skyline 3000's state copy:
    a hand buffer's 136 words and a seat row's 322, 354 ns signed, 32 ns unsigned)."""
    o = np.uint64(first)
    for i in range(np.uint64(end - first)):
        dst[o + i] = src[o + i]
