"""``kernel``: ``numba.njit`` compiled once per kind of argument, not once per constant.

Numba types a call from one compiled function to another with the arguments' exact types, and
compiles the callee for them: ``decide(s, cfg, b, a, False)`` and ``decide(s, cfg, b, a, True)``
are two compiles of the whole decision graph (``Literal[bool](False)``, ``Literal[bool](True)``),
and a third where ``a`` was read from an int32 column instead of an int64 loop index.  Each
specialisation compiles the callee again, and its callees for their own new argument types, so
the copies multiply down the call graph: measured in the on-disk cache of 2026-12-05, UnionWars
held 572 compiled specialisations of 209 functions (``sight._line`` 29, ``bank.mark_pending``
35), Battle Force 563 of 221, Talon 312 of 172, Planetoids 174 of 85 (issue 30).

A ``kernel`` called from another kernel is compiled for the arguments' widened types instead:
a literal as its plain type, an integer narrower than 64 bits as int64 (the call site converts
the value, as it does for any of Numba's own promotions).  Floats, arrays and records keep their
types, so no result changes.  A function whose body needs a literal argument (a tuple indexed by
it, ``numba.literally``) fails to type with the widened arguments and is compiled as asked.
Called from Python, a kernel is compiled for the arguments as Numba types them, as ``njit`` is.
It uses Numba internals (``Dispatcher.get_call_template``), as ``package_cache`` does.

Kernels are optimised by LLVM at level 1, not Numba's default 3 (``COMPILE_OPT``; an explicit
``NUMBA_OPT`` in the environment still decides).  Measured 2026-12-06, each game from an empty
cache, A/B in alternating processes (README, Cold start): a cold compile costs 10-34 % less CPU
(Planetoids' first AEC step 51.5 -> 34 s) and the batched cores, AEC steps and compiled self-play
run as fast (Planetoids, Talon, Battle Force) or at most 5 % slower (UnionWars): the rule graphs
are branchy integer code, where level 3's extra passes find little, and they pay for them on
every module Numba links, which repeats each callee's optimisation in every caller.
"""
from __future__ import annotations

import os

import numba as nb
from numba.core import config, errors, types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher

# LLVM's optimisation level for wargym's kernels (module docstring); None: Numba's own (NUMBA_OPT set)
COMPILE_OPT = None if "NUMBA_OPT" in os.environ else 1


def widened(t: types.Type) -> types.Type:
    """The type a kernel is compiled for when another kernel passes it an argument of type ``t``."""
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.bitwidth < 64:
        return types.int64
    return t


class WideningDispatcher(CPUDispatcher):
    """Numba's CPU dispatcher whose calls from compiled code are typed with ``widened`` arguments."""

    def get_call_template(self, args, kws):
        # Numba internals (the call template, the argument folding): where a Numba version lacks them,
        # kernels compile as plain njit does
        fold = getattr(getattr(self, "_compiler", None), "fold_argument_types", None)
        if self._can_compile and fold is not None:
            _pysig, folded = fold(args, kws)   # keywords and defaults in place
            wide = tuple(widened(a) for a in folded)
            if wide != tuple(folded):
                try:
                    return super().get_call_template(wide, {})
                except errors.NumbaError:
                    pass        # the body needs the exact (literal) types: compiled for them below
        return super().get_call_template(args, kws)

    def compile(self, sig):
        # config.OPT is read while the module is optimised, inside this compile; the global
        # compiler lock (reentrant) keeps any other thread's compile from seeing the change
        level = getattr(config, "_OptLevel", None)
        if COMPILE_OPT is None or level is None or config.OPT == COMPILE_OPT:
            return super().compile(sig)
        with global_compiler_lock:
            saved, config.OPT = config.OPT, level(COMPILE_OPT)
            try:
                return super().compile(sig)
            finally:
                config.OPT = saved


def kernel(function=None, **options):
    """``numba.njit(**options)`` with calls from other kernels compiled for widened argument types."""
    def compile_lazily(f):
        dispatcher = nb.njit(**options)(f)
        dispatcher.__class__ = WideningDispatcher   # the same object and state; only the call typing differs
        return dispatcher
    return compile_lazily if function is None else compile_lazily(function)
