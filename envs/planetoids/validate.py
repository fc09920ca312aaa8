"""Planetoids: every field of a state from outside checked against the ranges and cross-field
invariants the kernels rely on (``envs/core/validate.py`` says why and how)."""
from __future__ import annotations

import numpy as np

from ..core.validate import Columns, check_dice, check_range
from . import rules as R

INT32_MAX = 2 ** 31 - 1
G = Columns.of("g", R, "G_", R.N_G)
PC = Columns.of("pc", R, "PC_", R.N_PC)
FX = Columns.of("fx", R, "FX_", R.N_FX)
CELLS = Columns.of("cells", R, "C_", R.N_C)


def validate_state(cfg, state) -> None:
    n_cells, n_pieces = len(cfg.cell), len(cfg.slot_kind)
    check_dice(state)
    g = state.g
    G.check(g, {
        R.G_TURN: (0, len(cfg.colour_seq)), R.G_DECIDER: (0, 1), R.G_PHASE: (R.SETUP, R.OVER),
        R.G_SETUP_COUNT: (0, 4), R.G_ACTIVE: (-1, n_pieces - 1), R.G_STEPS: (0, int(cfg.kinds[:, R.KP_MAX_STEPS].max())),
        R.G_SHOTS: (0, 127), R.G_MOVE_DONE: (0, 1), R.G_NO_FIRE: (0, 1), R.G_LAUNCHED: (-1, R.FIGHTER),
        R.G_LAUNCH_COUNT: (0, 3), R.G_EXIT_CELL: (-1, n_cells - 1), R.G_DECISIONS: (0, INT32_MAX),
        R.G_DONE: (0, 1), R.G_LAST_DIE: (0, 6), R.G_COLONISED: (0, 1), R.G_SPACE_SHOTS: (0, n_cells)})
    pc = state.pc
    status = pc[..., R.PC_STATUS]
    PC.check(pc, {R.PC_STATUS: (R.RESERVE, R.DESTROYED), R.PC_POS: (-1, n_cells - 1), R.PC_FACING: (0, 5),
                  R.PC_DAMAGE: (0, R.MAX_HITS + 1), R.PC_REPAIR_PROGRESS: (0, 1), R.PC_ACTIVATED: (0, 1),
                  R.PC_REPAIRED: (0, 1), R.PC_SHOT: (0, 1)})
    # only a piece destroyed by its 5th hit keeps that 5th damage
    check_range(pc[..., R.PC_DAMAGE], 0, R.MAX_HITS, "pc[PC_DAMAGE] of a piece not destroyed",
                status != R.DESTROYED)
    # a mobile base never enters hyperspace (R_BASE_NO_HYPER)
    if np.any((status == R.HYPER) & (np.asarray(cfg.slot_kind) == R.BASE)):
        raise ValueError("pc[PC_STATUS] puts a mobile base in hyperspace")
    on_map = status == R.ON_MAP
    pos = np.where(on_map, pc[..., R.PC_POS], 0)
    if not cfg.cell[pos, R.CI_VALID][on_map].all() or (pc[..., R.PC_POS][on_map] < 0).any():
        raise ValueError("pc[PC_POS] of a piece on the map is not a hex of the map")
    FX.check(state.fx, {R.FX_OWNER: (-1, 1), R.FX_HITS: (0, R.MAX_HITS + 1), R.FX_SHOT: (0, 1)})
    CELLS.check(state.cells, {R.C_BLOCKED: (-1, 127), R.C_SHOT: (0, 1), R.C_OCC: (0, 127), R.C_OCC1: (0, 127),
                              R.C_DEAD: (0, 1)})
    _check_active_piece(g, pc, n_cells, cfg)


def _check_active_piece(g, pc, n_cells: int, cfg) -> None:
    """While a piece acts it is the mover's and stands on the map; while it leaves hyperspace
    (a piece selected in hyperspace, seed 004 'Iperspazio') it is still in hyperspace until its
    exit hex (and facing) is chosen, and the exit hex is on the map."""
    for b in range(g.shape[0]):
        phase, active = int(g[b, R.G_PHASE]), int(g[b, R.G_ACTIVE])
        if phase not in (R.ACT, R.EXIT_HEX, R.EXIT_FACE) or g[b, R.G_DONE]:
            continue
        if active < 0:
            raise ValueError(f"g[G_ACTIVE] is -1 in phase {R.PHASE_NAMES[phase]}")
        st = int(pc[b, g[b, R.G_DECIDER], active, R.PC_STATUS])
        if st != (R.ON_MAP if phase == R.ACT else R.HYPER):
            raise ValueError(f"g[G_ACTIVE] names a piece {'not on the map' if phase == R.ACT else 'not in hyperspace'} "
                             f"in phase {R.PHASE_NAMES[phase]}")
        cell = int(g[b, R.G_EXIT_CELL])
        if phase == R.EXIT_FACE and not (0 <= cell < n_cells and cfg.cell[cell, R.CI_VALID]):
            raise ValueError("g[G_EXIT_CELL] is not a hex of the map while leaving hyperspace")
