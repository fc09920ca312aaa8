"""Numba ``structref`` plumbing shared by every game.

Kernels receive the game state, the static config and the output buffers as
three struct references.  Passing a structref into compiled code costs one
pointer, where a namedtuple of N arrays costs N array unboxings (about 1 us
each here): this is what keeps a single AEC step in the microseconds.

The numpy arrays stay owned by Python; the struct holds views of the same
memory, so writes from either side are seen by the other.  Never rebind an
array, assign into it.

Each game declares its own struct classes at module level (Numba's on-disk
cache finds types again by their import path)::

    @structref.register
    class MyStateType(WargymStruct): pass
    class MyState(structref.StructRefProxy): pass
    structref.define_proxy(MyState, MyStateType, FIELD_NAMES)
"""
from __future__ import annotations

from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed
from numba.core.datamodel import models, register_default
from numba.core.typing.templates import AttributeTemplate
from numba.experimental import structref
from numba.extending import infer_getattr, intrinsic, lower_getattr_generic


class WargymStruct(types.StructRef):
    def preprocess_fields(self, fields):
        # Literal types would make every value its own type; keep them plain.
        return tuple((name, types.unliteral(t)) for name, t in fields)


@structref.register
class OutputsType(WargymStruct):
    pass


class Outputs(structref.StructRefProxy):
    """Preallocated per-step outputs of a batched core (see VecGame)."""


# obs_key[b]: what the planes of obs[b] now hold, for games that rewrite only the
# entries whose content changed (see VecGame.obs_key); column 0 = 0 means "unknown".
OUTPUT_FIELDS = ("obs", "mask", "rewards", "term", "trunc", "player", "illegal", "final_obs", "obs_key")
structref.define_proxy(Outputs, OutputsType, list(OUTPUT_FIELDS))


@intrinsic
def borrow(typingctx, arr):
    """``arr`` without its reference count: a view whose meminfo and parent are NULL.

    Reading an array field of a struct (``s.g``, ``cfg.k``, ``out.obs``) or passing
    an array to a function that is not inlined costs an atomic reference-count
    increment and decrement.  Atomics wait for the CPU's pending stores, and a step
    writes kilobytes of observation, so in Talon and Planetoids these were about
    half of a batched step before the hot kernels read their arrays through this.
    The view is valid while the struct that owns the array lives, which is the
    whole kernel call: never return it or keep it elsewhere."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, value=args[0])
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()
    return arr(arr), codegen


def _stack_array(n, dtype, zeroed):
    """Code for a 1-D array of ``n`` (a constant) ``dtype`` elements in the caller's stack frame."""
    if not isinstance(n, types.IntegerLiteral):
        return None
    size = n.literal_value
    arrty = types.Array(dtype, 1, "C")
    width = dtype.bitwidth // 8

    def codegen(context, builder, sig, args):
        intp = context.get_value_type(types.intp)
        data = cgutils.alloca_once(builder, context.get_value_type(dtype), size=size)
        if zeroed:
            cgutils.memset(builder, data, intp(width * size), 0)
        ary = context.make_array(arrty)(context, builder)
        context.populate_array(ary, data=data, shape=[intp(size)], strides=[intp(width)], itemsize=intp(width),
                               meminfo=None)
        return ary._getvalue()
    return arrty(n), codegen


@intrinsic
def local_i32(typingctx, n):
    """A zeroed int32 array of ``n`` (a constant) elements in the caller's stack frame.

    For small scratch arrays in code that runs thousands of times per decision (Battle
    Force's legality checks count cards by type in them): np.zeros would allocate and free
    heap memory, with its atomic statistics, each time.  Never return it or keep it beyond
    the function that made it."""
    return _stack_array(n, types.int32, zeroed=True)


@intrinsic
def scratch_i32(typingctx, n):
    """``local_i32`` without the zeroing, for scratch that is written before it is read
    (Planetoids sizes such scratch for the largest map and uses the part this map needs)."""
    return _stack_array(n, types.int32, zeroed=False)


@intrinsic
def scratch_u64(typingctx, n):
    """``scratch_i32`` of uint64 elements (Battle Force's table of observation words)."""
    return _stack_array(n, types.uint64, zeroed=False)


# -- views passed by reference -----------------------------------------------------------------
class ViewRef(types.Type):
    """A pointer to a tuple of arrays (a game's state/config/outputs view) in the stack frame
    of the kernel that built it (``by_ref``).

    A compiled call passes a tuple of N arrays as all their members flattened (an array of
    rank r is 5 + 2r machine words), so every function that is not inlined and takes a state
    and a config view of 20 arrays costs ~200 arguments, 35-40 ns a call however little it
    does.  A ``ViewRef`` is one pointer; ``ref.name`` reads that array from the tuple (the
    arrays are borrowed, see ``borrow``, so reading costs no reference counting).  Never
    return it or keep it beyond the kernel call that made it."""

    def __init__(self, view):
        self.view = view
        super().__init__(name=f"ViewRef({view})")


@register_default(ViewRef)
class _ViewRefModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, dmm.lookup(fe_type.view).get_data_type().as_pointer())


@intrinsic
def by_ref(typingctx, view):
    """``view`` (a named tuple of borrowed arrays) copied into this stack frame, as a ``ViewRef``."""
    if not isinstance(view, types.BaseNamedTuple):
        return None

    def codegen(context, builder, sig, args):
        dm = context.data_model_manager[sig.args[0]]
        ptr = cgutils.alloca_once(builder, dm.get_data_type())
        builder.store(dm.as_data(builder, args[0]), ptr)
        return ptr
    return ViewRef(view)(view), codegen


@infer_getattr
class _ViewRefAttributes(AttributeTemplate):
    key = ViewRef

    def generic_resolve(self, typ, attr):
        if attr in typ.view.fields:
            return typ.view.types[typ.view.fields.index(attr)]
        return None


@lower_getattr_generic(ViewRef)
def _view_ref_getattr(context, builder, typ, value, attr):
    idx = typ.view.fields.index(attr)
    aty = typ.view.types[idx]
    dm = context.data_model_manager[aty]
    zero = cgutils.int32_t(0)
    field_ptr = builder.gep(value, [zero, cgutils.int32_t(idx)], inbounds=True)
    # the tuple is written once by by_ref and never again: let LLVM hoist and merge the loads
    raw = builder.load(field_ptr)
    raw.set_metadata("invariant.load", builder.module.add_metadata([]))
    val = dm.from_data(builder, raw)
    if isinstance(aty, types.Array):
        # borrowed arrays: a constant NULL meminfo lets LLVM drop reference counting altogether
        ary = context.make_array(aty)(context, builder, value=val)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        val = ary._getvalue()
    return impl_ret_borrowed(context, builder, aty, val)
