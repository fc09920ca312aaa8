"""Union Wars: every field of a state from outside checked against the ranges and cross-field
invariants the kernels rely on (``envs/core/validate.py`` says why and how).  Plain numpy: no
kernel calls or reads this module (it is left out of the package's cache digest)."""
from __future__ import annotations

import numpy as np

from ..core.validate import check_dice
from . import layout as L


def validate_state(cfg, state) -> None:
    check_dice(state)
    g, md = state.g, state.md
    checks = (
        ((g[:, L.G_STAGE] >= 0) & (g[:, L.G_STAGE] < L.N_STAGES)).all(), "stage out of range",
        np.isin(g[:, L.G_DECIDER], (0, 1)).all(), "decider out of range",
        ((md[..., L.MD_STATUS] >= 0) & (md[..., L.MD_STATUS] <= L.REMOVED)).all(), "model status out of range",
        (md[..., L.MD_CAR] >= 0).all(), "negative charisma",
        ((md[..., L.MD_PROFILE] >= 0) & (md[..., L.MD_PROFILE] < len(cfg.pf))).all(), "profile out of range",
    )
    for ok, what in zip(checks[::2], checks[1::2]):
        if not ok:
            raise ValueError(f"corrupt UnionWars state: {what}")
