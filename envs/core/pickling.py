"""Pickling and deep-copying envs as what they were made from plus what happened since.

Worker pools ship envs between processes (Gymnasium's ``AsyncVectorEnv``, SB3's
``SubprocVecEnv``, Tianshou, TorchRL, Ray) and tools deep-copy them.  An env holds
things that cannot or should not travel: the game module and its compiled
kernels, spaces whose ``sample()`` asks the env for its mask (a bound method),
render windows.  ``RebuiltOnUnpickle`` therefore pickles an object as the
arguments of its constructor and the state the subclass names
(``_dynamic_state``); unpickling calls the constructor again, in the new process,
and then ``_restore_state``.  A module among the arguments (``game=`` given as
a module) travels as its import path.
"""
from __future__ import annotations

import importlib
import types
from dataclasses import dataclass


@dataclass(frozen=True)
class ModulePath:
    """A module among the constructor arguments, by its import path."""
    name: str


def _portable(value):
    return ModulePath(value.__name__) if isinstance(value, types.ModuleType) else value


def _resolved(value):
    return importlib.import_module(value.name) if isinstance(value, ModulePath) else value


def rebuild(cls, kwargs: dict):
    """``cls(**kwargs)`` with the modules imported again (the unpickling side of ``__reduce__``)."""
    return cls(**{k: _resolved(v) for k, v in kwargs.items()})


class RebuiltOnUnpickle:
    """Mixin: pickles and deep-copies as ``cls(**constructor arguments)`` plus ``_dynamic_state()``.

    The subclass calls ``_remember_arguments(...)`` in ``__init__`` with the arguments
    that make an equal object and implements the two state methods."""

    def _remember_arguments(self, **kwargs) -> None:
        self.__dict__["_constructor_arguments"] = {k: _portable(v) for k, v in kwargs.items()}

    def __reduce__(self):
        return rebuild, (type(self), self._constructor_arguments), self._dynamic_state()

    def __setstate__(self, state) -> None:
        self._restore_state(state)

    def _dynamic_state(self):
        raise NotImplementedError

    def _restore_state(self, state) -> None:
        raise NotImplementedError
