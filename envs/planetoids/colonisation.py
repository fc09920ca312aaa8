"""Seed 004 "Colonizzazione (Basi Fisse)" (RULES.md §8): a transport founds a fixed base on a
visible planetoid.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (ACT, CI_PLANETOID, FX_HITS, FX_OWNER, G_ACTIVE, G_COLONISED, G_PHASE, OK, PC_DAMAGE, PC_POS,
                     R_COLONISED, R_DAMAGED, R_NOT_TRANSPORT, R_NO_PLANETOID, R_WRONG_PHASE, TRANSPORT)
from .board import colour_now, visible


@kernel(cache=True, forceinline=True)
def colonise_reason(s, cfg, b, p):
    """Seed 004 "Colonizzazione": an undamaged transport on a visible planetoid."""
    if s.g[b, G_PHASE] != ACT:
        return R_WRONG_PHASE
    i = s.g[b, G_ACTIVE]
    if cfg.slot_kind[i] != TRANSPORT:
        return R_NOT_TRANSPORT
    if s.pc[b, p, i, PC_DAMAGE] > 0:
        return R_DAMAGED
    cell = s.pc[b, p, i, PC_POS]
    if not visible(cfg, colour_now(s, cfg, b), cell):
        return R_NO_PLANETOID
    if s.fx[b, cfg.cell[cell, CI_PLANETOID], FX_OWNER] >= 0:
        return R_COLONISED
    return OK


@kernel(cache=True, forceinline=True)
def colonise(s, cfg, b, p):
    """Seed 004 "Colonizzazione": the transport founds a fixed base on its planetoid."""
    f = cfg.cell[s.pc[b, p, s.g[b, G_ACTIVE], PC_POS], CI_PLANETOID]
    s.fx[b, f, FX_OWNER] = p
    s.fx[b, f, FX_HITS] = 0
    s.g[b, G_COLONISED] = 1
