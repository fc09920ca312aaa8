"""Seed 004 "Riparazione navi" (RULES.md §7): a mobile base repairs the damaged ships beside it.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (ACT, BASE, G_ACTIVE, G_MOVE_DONE, G_PHASE, G_STEPS, OK, ON_MAP, PC_ACTIVATED, PC_DAMAGE, PC_FACING,
                     PC_POS, PC_REPAIRED, PC_REPAIR_PROGRESS, PC_STATUS, R_HAS_MOVED, R_NOTHING_TO_REPAIR, R_NOT_BASE,
                     R_WRONG_PHASE)
from .board import fp_cell, fp_size


@kernel(cache=True, forceinline=True)
def repair_reason(s, cfg, b, p):
    if s.g[b, G_PHASE] != ACT:
        return R_WRONG_PHASE
    i = s.g[b, G_ACTIVE]
    if cfg.slot_kind[i] != BASE:
        return R_NOT_BASE
    if s.g[b, G_STEPS] > 0 or s.g[b, G_MOVE_DONE]:
        return R_HAS_MOVED  # Seed 004: the repairing base does not move
    if repair_targets(s, cfg, b, p, i, False) == 0:
        return R_NOTHING_TO_REPAIR
    return OK


@kernel(cache=True, forceinline=True)
def repair_targets(s, cfg, b, p, i, apply):
    """Seed 004 "Riparazione navi": every damaged friendly ship adjacent to the
    base that has not acted this turn.  Returns how many; repairs them if ``apply``."""
    count = 0
    for j in range(cfg.slot_kind.shape[0]):
        if j == i or s.pc[b, p, j, PC_STATUS] != ON_MAP or s.pc[b, p, j, PC_ACTIVATED] or s.pc[b, p, j, PC_REPAIRED]:
            continue
        if s.pc[b, p, j, PC_DAMAGE] == 0:
            continue
        kj = cfg.slot_kind[j]
        adjacent = False
        for x in range(fp_size(cfg, BASE)):
            ca = fp_cell(cfg, p, BASE, s.pc[b, p, i, PC_POS], 0, x)
            for y in range(fp_size(cfg, kj)):
                if cfg.dist[ca, fp_cell(cfg, p, kj, s.pc[b, p, j, PC_POS], s.pc[b, p, j, PC_FACING], y)] <= 1:
                    adjacent = True
        if not adjacent:
            continue
        count += 1
        if apply:
            s.pc[b, p, j, PC_REPAIRED] = True
            if cfg.slot_kind[j] == BASE:
                # Seed 004: two turns of repair per damage on a mobile base.
                s.pc[b, p, j, PC_REPAIR_PROGRESS] += 1
                if s.pc[b, p, j, PC_REPAIR_PROGRESS] >= 2:
                    s.pc[b, p, j, PC_REPAIR_PROGRESS] = 0
                    s.pc[b, p, j, PC_DAMAGE] -= 1
            else:
                s.pc[b, p, j, PC_DAMAGE] -= 1
    return count


@kernel(cache=True, forceinline=True)
def repair(s, cfg, b, p):
    """Seed 004 "Riparazione navi": the base repairs every ship repair_targets names, and does not move."""
    repair_targets(s, cfg, b, p, s.g[b, G_ACTIVE], True)
    s.g[b, G_MOVE_DONE] = True
