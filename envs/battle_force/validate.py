"""Battle Force: every field of a state from outside checked against the ranges and cross-field
invariants the kernels rely on (``envs/core/validate.py`` says why and how)."""
from __future__ import annotations

import numpy as np

from ..core.validate import check_dice
from . import rules as R


def validate_state(cfg, state) -> None:
    """Reject a loaded state whose values no rule can produce (corrupt save file)."""
    check_dice(state)
    g, cd, sh, pl = state.g, state.cd, state.sh, state.pl
    NC, NS, P = (int(cfg.k[x]) for x in (R.K_NC, R.K_NS, R.K_P))
    problems = []
    if ((g[:, R.G_STAGE] < 0) | (g[:, R.G_STAGE] >= R.N_STAGES)).any():
        problems.append("stage")
    if ((g[:, R.G_DECIDER] < 0) | (g[:, R.G_DECIDER] >= P)).any() or (
            (g[:, R.G_ACTIVE] < 0) | (g[:, R.G_ACTIVE] >= P)).any():
        problems.append("player to move")
    if ((cd[..., R.CD_LOC] < 0) | (cd[..., R.CD_LOC] > R.CL_SHIP)).any():
        problems.append("card location")
    held = (cd[..., R.CD_LOC] == R.CL_HAND) | (cd[..., R.CD_LOC] == R.CL_RES)
    if (held & ((cd[..., R.CD_WHO] < 0) | (cd[..., R.CD_WHO] >= P))).any():
        problems.append("card holder")
    for b in range(state.batch_size):
        for p in range(P):
            if pl[b, p, R.PL_HAND] != int(((cd[b, :, R.CD_LOC] == R.CL_HAND) & (cd[b, :, R.CD_WHO] == p)).sum()):
                problems.append("hand count")
                break
        deck = state.deck[b, :g[b, R.G_DECK_N]]
        disc = state.disc[b, :g[b, R.G_DISC_N]]
        if not (0 <= g[b, R.G_DECK_N] <= NC and 0 <= g[b, R.G_DISC_N] <= NC) or (
                (cd[b, deck, R.CD_LOC] != R.CL_DECK).any() or (cd[b, disc, R.CD_LOC] != R.CL_DISC).any()):
            problems.append("deck / discard pile")
        if len(deck) + len(disc) != int(((cd[b, :, R.CD_LOC] == R.CL_DECK) | (cd[b, :, R.CD_LOC] == R.CL_DISC)).sum()):
            problems.append("deck / discard pile")
    if ((sh[..., R.SH_LOC] < 0) | (sh[..., R.SH_LOC] > R.SL_VP)).any():
        problems.append("ship location")
    cov = sh[..., R.SH_COV:R.SH_COV + R.N_KIND]
    if (cov < 0).any() or (cov > cfg.ship[None, :, R.SC_N:R.SC_N + R.N_KIND]).any():
        problems.append("damage markers")
    fleet = sh[..., R.SH_LOC] == R.SL_FLEET
    if (fleet & ((sh[..., R.SH_OWNER] < 0) | (sh[..., R.SH_OWNER] >= P))).any():
        problems.append("ship owner")
    if problems:
        raise ValueError(f"save file holds impossible values ({', '.join(sorted(set(problems)))}); refusing to load it")
