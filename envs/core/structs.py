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

from numba.core import types
from numba.experimental import structref


class WargymStruct(types.StructRef):
    def preprocess_fields(self, fields):
        # Literal types would make every value its own type; keep them plain.
        return tuple((name, types.unliteral(t)) for name, t in fields)


@structref.register
class OutputsType(WargymStruct):
    pass


class Outputs(structref.StructRefProxy):
    """Preallocated per-step outputs of a batched core (see VecGame)."""


OUTPUT_FIELDS = ("obs", "mask", "rewards", "term", "trunc", "player", "illegal", "final_obs")
structref.define_proxy(Outputs, OutputsType, list(OUTPUT_FIELDS))
