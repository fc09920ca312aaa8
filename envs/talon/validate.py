"""Talon: every field of a state from outside checked against the ranges and cross-field invariants
the kernels rely on (``envs/core/validate.py`` says why and how).  Plain numpy: no kernel calls or
reads this module (it is left out of the package's cache digest)."""
from __future__ import annotations

import numpy as np

from ..core.validate import Columns, check_dice, check_range
from . import layout as R

INT32_MAX = 2 ** 31 - 1
INT16_MAX = 2 ** 15 - 1
G = Columns.of("g", R, "G_", R.N_G)
SH = Columns.of("sh", R, "SH_", R.N_SH)
TR = Columns.of("tr", R, "TR_", R.N_TR)
MS = Columns.of("ms", R, "MS_", R.N_MS)


def validate_state(cfg, state) -> None:
    """Reject a state whose values no rule can produce (a corrupt or forged save)."""
    check_dice(state)
    S = state.sh.shape[2]
    n_cells = int(cfg.k[R.K_ROWS] * cfg.k[R.K_COLS])
    _check_scalars(state.g, S, n_cells, state.tr.shape[1], state.ms.shape[1], cfg)
    _check_ships(state.sh, n_cells, cfg)
    _check_collision_queue(state.g, state.sh)
    _check_terrain(state.g, state.tr, n_cells)
    _check_missiles(state.ms, S, n_cells)


def _check_scalars(g, S: int, n_cells: int, n_tiles: int, n_missiles: int, cfg) -> None:
    ship, cell = (-1, S - 1), (-1, n_cells - 1)
    stage = (0, R.ST_LAUNCH)
    G.check(g, {
        R.G_DONE: (0, 1), R.G_DECIDER: (0, 1), R.G_ROUND: (0, 101), R.G_IMPULSE: (0, 6), R.G_INIT: (0, 1),
        R.G_TURN: (0, 1), R.G_STAGE: (R.ST_AP, R.ST_LAUNCH), R.G_SHIP: ship, R.G_GROUP: (-1, 2),
        R.G_WLEFT: (0, INT16_MAX), R.G_RESUME: stage, R.G_SERIAL: (0, INT32_MAX), R.G_COLL_MOVER: ship,
        R.G_COLL_OTHER: ship, R.G_COLL_ORIGIN: cell, R.G_COLL_ARC: (-1, 3), R.G_COLL_QUEUE: (0, (1 << S) - 1),
        R.G_DECISIONS: (0, INT32_MAX), R.G_SP0: (0, INT32_MAX), R.G_SP1: (0, INT32_MAX), R.G_WINNER: (-1, 2),
        R.G_ROUNDS: (1, 100), R.G_PP_TURN: (0, 2), R.G_MOVE_PLAYER: (-1, 1), R.G_PENDING_TURN: (-1, 1),
        R.G_FLEET0: (0, INT32_MAX), R.G_FLEET1: (0, INT32_MAX), R.G_TILES: (0, n_tiles), R.G_COLL_RESUME: stage,
        R.G_END_STEP: (0, R.END_DONE), R.G_PULL_NEXT: (0, 2 * S), R.G_PULL_A: cell, R.G_PULL_B: cell,
        R.G_PUSH_SHIP: ship, R.G_PUSH_DIR_A: (-1, 5), R.G_PUSH_DIR_B: (-1, 5), R.G_MISSILE: (-1, n_missiles - 1),
        R.G_DOCK_SHIPS: (0, 1), R.G_LANDING: (0, 1), R.G_LAUNCH_TARGET: ship, R.G_VC_OTHERWISE: (0, 3),
        R.G_VC_MET: (0, (1 << R.N_VC) - 1)})
    for v in range(R.N_VC):
        at = R.G_VC + v * R.N_VCF
        name = f"g[G_VC + {v}:"
        check_range(g[:, at + R.VC_KIND], R.VK_NONE, R.VK_HOLD, name + "VC_KIND]")
        check_range(g[:, at + R.VC_PLAYER], 0, 1, name + "VC_PLAYER]")
        check_range(g[:, at + R.VC_SHIPS], 0, (1 << S) - 1, name + "VC_SHIPS]")
        check_range(g[:, at + R.VC_COUNT], 0, INT32_MAX, name + "VC_COUNT]")


def _check_ships(sh, n_cells: int, cfg) -> None:
    nc = len(cfg.classes)
    cls, status = sh[..., R.SH_CLASS], sh[..., R.SH_STATUS]
    SH.check(sh, {R.SH_CLASS: (-1, nc - 1), R.SH_STATUS: (R.SS_EMPTY, R.SS_RESERVE)})
    if np.any((status != R.SS_EMPTY) & (cls < 0)):
        raise ValueError("sh[SH_CLASS] is -1 (no ship) for a ship in play")
    ci = np.where(cls >= 0, cls, 0)              # (every index now within the class table)
    live = status != R.SS_EMPTY
    on = status == R.SS_ACTIVE
    c = cfg.cls[ci]                              # (B, 2, S, N_CL): each ship's class row
    SH.check(sh, {R.SH_CELL: (0, n_cells - 1), R.SH_FACING: (0, 5)}, on)
    SH.check(sh, {R.SH_CELL: (-1, n_cells - 1), R.SH_FACING: (-1, 5)}, live)
    SH.check(sh, {
        R.SH_NAME: (0, INT16_MAX), R.SH_CURVE: (0, c[..., R.CL_N_CURVES] - 1),
        R.SH_POWER: (-INT16_MAX, INT16_MAX), R.SH_TURN_LEFT: (0, 99), R.SH_SLIP: (0, 1), R.SH_AP_SPENT: (0, 1),
        R.SH_MOVED: (0, 1), R.SH_FIRED: (0, 1), R.SH_HULL_HITS: (0, c[..., R.CL_N_HULL]),
        R.SH_GROUP_DEAD: (0, 7), R.SH_BATTERY: (0, 1), R.SH_AB_LEFT: (0, c[..., R.CL_AFTERBURNERS]),
        R.SH_INIT_MARK: (0, 2), R.SH_C_TURN: (0, 2), R.SH_PENDING: (0, 1), R.SH_AB_NOW: (0, 1),
        R.SH_ARRIVE: (0, 101), R.SH_DOCKED: (0, sh.shape[2])}, live)
    for col in (R.SH_C_SHIELDS, R.SH_C_HELM, R.SH_C_TURN_AT, R.SH_C_POWER, R.SH_C_POWER_AT, R.SH_C_FTL,
                R.SH_C_PLOSS):
        check_range(sh[..., col], 0, INT32_MAX, f"sh[{SH.names[col]}]", live)
    for a in range(4):
        check_range(sh[..., R.SH_SHIELD + a], 0, c[..., R.CL_SHIELD + a], f"sh[SH_SHIELD + {a}]", live)
        check_range(sh[..., R.SH_REINF + a], 0, 7, f"sh[SH_REINF + {a}]", live)
        check_range(sh[..., R.SH_WAVE + a], 0, INT16_MAX, f"sh[SH_WAVE + {a}]", live)
    grp = cfg.grp[ci]                            # (B, 2, S, 3, N_GR)
    for gi in range(3):
        check_range(sh[..., R.SH_RED + gi], 0, grp[..., gi, R.GR_RED], f"sh[SH_RED + {gi}]", live)
        check_range(sh[..., R.SH_YEL + gi], 0, grp[..., gi, R.GR_YELLOW], f"sh[SH_YEL + {gi}]", live)


def _check_collision_queue(g, sh) -> None:
    """The friendly ships still to collide with (7.4) are active ships of the moving player."""
    for b in range(g.shape[0]):
        queue, p = int(g[b, R.G_COLL_QUEUE]), int(g[b, R.G_MOVE_PLAYER])
        active = sh[b, max(p, 0), :, R.SH_STATUS] == R.SS_ACTIVE
        allowed = int(np.sum(active.astype(np.int64) << np.arange(active.size))) if p >= 0 else 0
        if queue & ~allowed:
            raise ValueError("g[G_COLL_QUEUE] names ships that are not the moving player's active ships")


def _check_terrain(g, tr, n_cells: int) -> None:
    n_tiles = g[:, R.G_TILES]
    used = np.arange(tr.shape[1])[None, :] < n_tiles[:, None]
    TR.check(tr, {R.TR_KIND: (R.TK_NONE, R.N_TK - 1), R.TR_CELL: (-1, n_cells - 1)})
    TR.check(tr, {R.TR_KIND: (R.TK_PLANET, R.N_TK - 1), R.TR_CELL: (0, n_cells - 1)}, used)


def _check_missiles(ms, S: int, n_cells: int) -> None:
    MS.check(ms, {R.MS_STATUS: (R.MI_NONE, R.MI_DAMAGED)})
    live = ms[..., R.MS_STATUS] != R.MI_NONE
    MS.check(ms, {R.MS_OWNER: (0, 1), R.MS_CELL: (0, n_cells - 1), R.MS_FACING: (0, 5), R.MS_TARGET: (-1, S - 1),
                  R.MS_MOVED: (0, 1)}, live)
