"""Talon: every field of a state from outside checked against the ranges and cross-field invariants
the kernels rely on (``envs/core/validate.py`` says why and how).  Plain numpy: no kernel calls or
reads this module (it is left out of the package's cache digest)."""
from __future__ import annotations

import numpy as np

from ..core.validate import check_dice
from . import layout as R


def validate_state(cfg, state) -> None:
    """Reject a loaded state whose values no rule can produce (corrupt save file)."""
    g, sh = state.g, state.sh
    n_cells = int(cfg.k[R.K_ROWS] * cfg.k[R.K_COLS])
    nc = len(cfg.classes)
    problems = []
    if ((g[:, R.G_CURRENT] < 0) | (g[:, R.G_CURRENT] > 1)).any():
        problems.append("player to move")
    if ((g[:, R.G_STAGE] < R.ST_AP) | (g[:, R.G_STAGE] > R.ST_LAUNCH)).any():
        problems.append("stage")
    if ((g[:, R.G_IMPULSE] < 0) | (g[:, R.G_IMPULSE] > 6)).any():
        problems.append("impulse")
    if ((g[:, R.G_INIT] < 0) | (g[:, R.G_INIT] > 1)).any():
        problems.append("initiative")
    cls = sh[..., R.SH_CLASS]
    status = sh[..., R.SH_STATUS]
    if ((cls < -1) | (cls >= nc)).any() or ((status < 0) | (status > 4)).any() or ((status > 0) & (cls < 0)).any():
        problems.append("ship class/status")
    on = status == R.SS_ACTIVE
    if (on & ((sh[..., R.SH_CELL] < 0) | (sh[..., R.SH_CELL] >= n_cells))).any():
        problems.append("ship hex")
    if (on & ((sh[..., R.SH_FACING] < 0) | (sh[..., R.SH_FACING] > 5))).any():
        problems.append("ship facing")
    ci = np.where(cls >= 0, cls, 0)
    if (on & ((sh[..., R.SH_CURVE] < 0) | (sh[..., R.SH_CURVE] >= cfg.cls[ci, R.CL_N_CURVES]))).any():
        problems.append("power curve")
    if (on & ((sh[..., R.SH_HULL_HITS] < 0) | (sh[..., R.SH_HULL_HITS] >= cfg.cls[ci, R.CL_N_HULL]))).any():
        problems.append("hull boxes")
    for a in range(4):
        if (on & ((sh[..., R.SH_SHIELD + a] < 0) | (sh[..., R.SH_SHIELD + a] > cfg.cls[ci, R.CL_SHIELD + a]))).any():
            problems.append("shield boxes")
            break
    for gi in range(3):
        if (on & ((sh[..., R.SH_RED + gi] < 0) | (sh[..., R.SH_RED + gi] > cfg.grp[ci, gi, R.GR_RED])
                  | (sh[..., R.SH_YEL + gi] < 0) | (sh[..., R.SH_YEL + gi] > cfg.grp[ci, gi, R.GR_YELLOW]))).any():
            problems.append("charge bars")
            break
    tr = state.tr
    n_tiles = g[:, R.G_TILES]
    if ((n_tiles < 0) | (n_tiles > tr.shape[1])).any():
        problems.append("terrain tile count")
    elif ((tr[..., R.TR_KIND] < 0) | (tr[..., R.TR_KIND] >= R.N_TK)
          | (tr[..., R.TR_CELL] < 0) | (tr[..., R.TR_CELL] >= n_cells)).any():
        problems.append("terrain tiles")
    ms = state.ms                                         # --- Talon 13 missiles ---
    live = ms[..., R.MS_STATUS] != R.MI_NONE
    if (((ms[..., R.MS_STATUS] < 0) | (ms[..., R.MS_STATUS] > R.MI_DAMAGED)).any()
            or (live & ((ms[..., R.MS_CELL] < 0) | (ms[..., R.MS_CELL] >= n_cells) | (ms[..., R.MS_FACING] < 0)
                        | (ms[..., R.MS_FACING] > 5) | (ms[..., R.MS_OWNER] < 0) | (ms[..., R.MS_OWNER] > 1)
                        | (ms[..., R.MS_TARGET] < -1) | (ms[..., R.MS_TARGET] >= sh.shape[2]))).any()):
        problems.append("missiles")
    if problems:
        raise ValueError(f"save file holds impossible values ({', '.join(problems)}); refusing to load it")
