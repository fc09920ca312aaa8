"""What ``step()`` accepts as an action, for every front end (AEC env, Gymnasium adapter).

An action is one integer.  Accepted: a Python ``int``, a numpy integer scalar
(``np.int64(3)``) and a 0-d integer array (what SB3's ``predict`` returns for one
observation).  Refused with ``TypeError``, before anything changes:

- floats, even whole ones: ``57.7`` is not action 57, and ``57.0`` is as likely a bug;
- strings: ``"126"`` is not action 126;
- ``bool``: ``True`` is an ``int`` to Python, but as an action it would silently play action 1;
- ``None`` for an agent that is to act (``None`` is only for an agent that is done);
- arrays of any other shape or dtype.

Whether the integer is in range and legal is the caller's check (an illegal
action is a ``ValueError`` naming the rule it breaks).
"""
from __future__ import annotations

import numbers

import numpy as np


def as_action(action, who: str, num_actions: int) -> int:
    """``action`` as a Python int, or ``TypeError`` naming ``who``, what was passed and what is expected."""
    if type(action) is int:  # the common case first: one type test
        return action
    if isinstance(action, numbers.Integral) and not isinstance(action, bool):  # numpy integers, IntEnum
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    raise TypeError(f"{who}: an action is one integer in 0..{num_actions - 1} (int or numpy integer), "
                    f"got {_describe(action)}")


def _describe(value) -> str:
    if value is None:
        return "None (None is the action only of an agent that is done)"
    if isinstance(value, (bool, np.bool_)):
        return f"{value!r} (a bool; it would play action {int(value)}: pass an int)"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return f"{text if len(text) <= 40 else text[:37] + '...'} ({type(value).__name__})"
