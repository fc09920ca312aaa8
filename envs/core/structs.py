"""Numba ``structref`` plumbing shared by every game.

Kernels receive the game state, the static config and the output buffers as
three struct references.  Passing a structref into compiled code costs one
pointer, where a namedtuple of N arrays costs N array unboxings (about 1 us
each here): this is what keeps a single AEC step in the microseconds.

The numpy arrays stay owned by Python; the struct holds views of the same
memory, so writes from either side are seen by the other.  Never rebind an
array, assign into it.

Inside the kernels every game reads its structs through ``view(st)`` (below): the struct's
arrays, borrowed, behind one pointer, so that neither reading a field nor passing the state to a
function that is not inlined counts references.  Each game's ``layout`` names its
``state_view`` / ``config_view`` / ``outputs_view`` after it.

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


# -- views: a struct's arrays, borrowed, behind one pointer ------------------------------------
# Reading an array field of a struct (``s.sh``, ``cfg.k``) costs a reference-count increment
# and, when the value dies, a decrement; passing a struct to a function that is not inlined
# costs two more, atomic, on the struct itself.  In a step these were about half of the time.
# The kernel entry points therefore turn each struct into a *view* once per call: the address
# of the struct's payload, typed so that Numba counts nothing.  Passing a view is passing one
# pointer, and each field read from it gives the array with a null meminfo, a constant the
# compiler sees, so the count operations on it are deleted at compile time (Numba's refprune
# pass drops increments and decrements of a constant null).  Rules functions are written
# against ``s.field`` / ``cfg.field`` and accept a struct or a view alike.  A view is valid
# while its struct lives, which is the whole kernel call (Python holds the struct): it must
# not be returned or kept.


class StructView(types.Type):
    """The payload of a struct of type ``struct_type``, borrowed (see above)."""

    def __init__(self, struct_type):
        self.struct_type = struct_type
        super().__init__(name=f"View({struct_type})")


@register_default(StructView)
class _StructViewModel(models.PrimitiveModel):
    """A plain pointer to the payload: nothing for Numba's reference counting to see."""

    def __init__(self, dmm, fe_type):
        payload = dmm.lookup(fe_type.struct_type.get_data_type()).get_value_type()
        super().__init__(dmm, fe_type, payload.as_pointer())


@infer_getattr
class _StructViewAttributes(AttributeTemplate):
    key = StructView

    def generic_resolve(self, typ, attr):
        return typ.struct_type.field_dict.get(attr)


@lower_getattr_generic(StructView)
def _struct_view_getattr(context, builder, typ, val, attr):
    payload = cgutils.create_struct_proxy(typ.struct_type.get_data_type())(context, builder, ref=val)
    index = payload._datamodel.get_field_position(attr)
    # A struct's fields are never rebound while a kernel runs (its arrays are assigned into, never
    # replaced), so the load is invariant: LLVM may hoist it out of loops and merge repeated reads,
    # as it would with the array values themselves in registers.
    raw = builder.load(payload._get_ptr_by_index(index))
    raw.set_metadata("invariant.load", builder.module.add_metadata([]))
    value = payload._cast_member_to_value(index, raw)
    fieldtype = typ.struct_type.field_dict[attr]
    if isinstance(fieldtype, types.Array):
        ary = context.make_array(fieldtype)(context, builder, value=value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        value = ary._getvalue()
    return impl_ret_borrowed(context, builder, fieldtype, value)


@intrinsic
def view(typingctx, st):
    """The view of struct ``st`` (a view is returned as it is)."""
    if isinstance(st, StructView):
        return st(st), lambda context, builder, sig, args: args[0]
    if not isinstance(st, types.StructRef):
        return None

    def codegen(context, builder, sig, args):
        meminfo = cgutils.create_struct_proxy(st)(context, builder, value=args[0]).meminfo
        data = context.nrt.meminfo_data(builder, meminfo)
        return builder.bitcast(data, context.get_value_type(sig.return_type))
    return StructView(st)(st), codegen
