"""Checks of a game state that comes from outside (a save file, ``set_state``), written once.

The kernels index their arrays without bounds checks, so a count or an index out of range
in a forged save becomes an out-of-bounds write.  Every state from outside goes through
``check_state`` before any kernel sees it:

1. ``check_layout``: the fields the game's ``StateSpec`` declares, each with its dtype and
   shape, and the truncation flags;
2. the game's ``validate_state`` (its per-field ranges, stated with ``Columns`` below, and
   the cross-field invariants its kernels rely on).

Whatever fails raises ``ValueError`` naming the field (``g[G_SETUP_COUNT]``) and changes nothing.
"""
from __future__ import annotations

import numpy as np

from .rng import DICE_SCRIPT_LEN


def check_state(game, cfg, state) -> None:
    """The whole check of a state from outside (see the module's doc)."""
    check_layout(state.spec, state)
    try:
        game.validate_state(cfg, state)
    except (ValueError, IndexError, OverflowError, TypeError) as exc:  # (the last three: a check that ran off a table)
        raise ValueError(f"{state.spec.game} state holds impossible values: {exc}") from None


def check_layout(spec, state) -> None:
    """Every declared field present with the declared dtype and shape ``(B, *shape)``."""
    n = state.batch_size
    for name, shape, dtype in spec.fields:
        a = state.arrays.get(name)
        if not isinstance(a, np.ndarray):
            raise ValueError(f"state field {name!r} is missing or not a numpy array")
        if a.dtype != np.dtype(dtype) or a.shape != (n, *shape):
            raise ValueError(f"state field {name!r} has shape {a.shape} {a.dtype}, expected {(n, *shape)} "
                             f"{np.dtype(dtype)}")
    extra = set(state.arrays) - {name for name, _, _ in spec.fields}
    if extra:
        raise ValueError(f"state has fields {sorted(extra)} that {spec.game} does not declare")
    t = state.truncated
    if not isinstance(t, np.ndarray) or t.dtype != np.bool_ or t.shape != (n,):
        raise ValueError(f"state truncation flags must be bool ({n},)")


def check_range(values, lo, hi, what: str, where=True) -> None:
    """Every value within ``lo..hi`` (arrays broadcast) where ``where`` holds, or a ValueError
    naming ``what`` and the first value out of range."""
    values = np.asarray(values)
    bad = ((values < lo) | (values > hi)) & where
    if np.any(bad):
        first = np.broadcast_to(values, bad.shape)[bad].reshape(-1)[0]
        raise ValueError(f"{what} must be in {np.min(lo)}..{np.max(hi)}, got {first}")


def check_dice(state) -> None:
    """The scripted dice every game shares: (length, position) within the script, values 0..6."""
    d = state.dice
    check_range(d[:, 0], 0, DICE_SCRIPT_LEN, "dice[length]")
    check_range(d[:, 1], 0, DICE_SCRIPT_LEN, "dice[position]")
    if np.any(d[:, 1] > d[:, 0]):
        raise ValueError("dice[position] is past dice[length]")
    check_range(state.dice_script, 0, 6, "dice_script")


class Columns:
    """The named columns of a packed field (``g[:, G_TURN]``): ``check`` each column against its
    declared range.  A range is ``(lo, hi)``; either may be a number or an array broadcasting
    against the column (per game, per piece)."""

    def __init__(self, field: str, names: dict[int, str]):
        self.field, self.names = field, names

    @classmethod
    def of(cls, field: str, module, prefix: str, count: int) -> "Columns":
        """The columns ``prefix*`` of ``module`` (e.g. ``G_`` of a game's rules), by their index."""
        names = {getattr(module, k): k for k in dir(module) if k.startswith(prefix) and isinstance(getattr(module, k), int)
                 and 0 <= getattr(module, k) < count}
        return cls(field, names)

    def check(self, array, ranges: dict, where=True) -> None:
        """``ranges``: {column: (lo, hi)}; columns not named are left alone.  ``where``
        (broadcasting against ``array[..., 0]``) limits the check to the rows it marks."""
        for col, (lo, hi) in ranges.items():
            check_range(array[..., col], lo, hi, f"{self.field}[{self.names.get(col, col)}]", where)
