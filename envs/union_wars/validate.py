"""Union Wars: every field of a state from outside checked against the ranges and cross-field
invariants the kernels rely on (``envs/core/validate.py`` says why and how).  Plain numpy: no
kernel calls or reads this module (it is left out of the package's cache digest).

The bank's snapshot (``snap_*``) is the state at the start of a step, put back when a bank
question is answered: it is checked as the live state is."""
from __future__ import annotations

import numpy as np

from ..core.validate import Columns, check_dice, check_range
from . import layout as L

INT32_MAX = 2 ** 31 - 1
MAX_COORD = 1e6          # a float of the state (a position, a cached box) is finite and at most this large
SLOT = (-1, L.N_SLOTS - 1)
LIVE_AND_SNAPSHOT = ("", "snap_")   # field name prefixes
G = {p: Columns.of(p + "g", L, "G_", L.N_G) for p in LIVE_AND_SNAPSHOT}
MD = {p: Columns.of(p + "md", L, "MD_", L.N_MD) for p in LIVE_AND_SNAPSHOT}
TI = {p: Columns.of(p + "tinfo", L, "TI_", L.N_TI) for p in LIVE_AND_SNAPSHOT}
BK = Columns.of("bk", L, "BK_", L.N_BK)


def validate_state(cfg, state) -> None:
    check_dice(state)
    for name, array in state.arrays.items():
        if array.dtype.kind == "f":
            check_range(np.nan_to_num(array, nan=np.inf), -MAX_COORD, MAX_COORD, f"{name} (finite)")
    n_profiles = len(cfg.pf)
    for prefix in LIVE_AND_SNAPSHOT:
        a = {k: state.arrays[prefix + k] for k in ("g", "md", "pos", "tinfo", "objs", "smoke", "rq")}
        _check_scalars(a["g"], prefix)
        _check_models(a["md"], a["pos"], n_profiles, prefix)
        _check_terrain(a["tinfo"], state.terr, prefix)
        _check_markers(a["objs"], a["smoke"], a["rq"], a["g"], prefix)
    _check_bank(state.bk)


def _check_scalars(g, prefix: str) -> None:
    G[prefix].check(g, {
        L.G_TURN: (0, 1000), L.G_ACTIVE: (0, 1), L.G_DECIDER: (0, 1), L.G_STAGE: (0, L.N_STAGES - 1),
        L.G_DONE: (0, 1), L.G_WINNER: (-1, 2), L.G_DECISIONS: (0, INT32_MAX), L.G_MISSION: (0, len(L.MISSION_NAMES) - 1),
        L.G_FIRST: (-1, 1), L.G_ACTOR: SLOT, L.G_ACTOR_SIDE: (-1, 1), L.G_ACT: (-1, L.N_AK - 1),
        L.G_TGT: (L.MELEE_UNCHOSEN, max(L.N_SLOTS, L.N_SPOTS, L.T_MAX) - 1),
        L.G_MOVE: (-1, max(L.N_MOVES, L.N_SPOTS) - 1),
        L.G_NREACT: (0, L.MAX_REACT), L.G_RSLOT: SLOT, L.G_BANK0: (0, 1000), L.G_BANK1: (0, 1000),
        L.G_EDGE0: (0, 1), L.G_DEPLOYER: (-1, 1), L.G_NOBJ: (0, L.MAX_OBJ), L.G_OBJ_PLACED: (0, L.MAX_OBJ),
        L.G_NIGHT: (0, 1), L.G_MAX_TURNS: (0, 1000), L.G_START0: (0, L.N_SLOTS), L.G_START1: (0, L.N_SLOTS),
        L.G_BASE0: (-1, L.T_MAX - 1), L.G_BASE1: (-1, L.T_MAX - 1), L.G_PLACER: (-1, 1),
        L.G_CHARGE_OK: (0, 1), L.G_RESERVE_PLACING: SLOT, L.G_ASSASSIN0: SLOT, L.G_ASSASSIN1: SLOT,
        L.G_EXPLORE_WINNER: (0, 1), L.G_CM_PTR: (-1, 2 * L.N_SLOTS), L.G_SEGN0: (0, L.N_SLOTS),
        L.G_SEGN1: (0, L.N_SLOTS), L.G_COORD0: (0, L.N_SLOTS), L.G_COORD1: (0, L.N_SLOTS),
        L.G_CONTROLLED: SLOT, L.G_CMD0: SLOT, L.G_CMD1: SLOT, L.G_CONSOL: (0, 100), L.G_MELEE_ROUND: (0, 1000),
        L.G_BONUS0: (-1000, 1000), L.G_BONUS1: (-1000, 1000), L.G_AMMO0: (-1000, 1000), L.G_AMMO1: (-1000, 1000)})


def _check_models(md, pos, n_profiles: int, prefix: str) -> None:
    status = md[..., L.MD_STATUS]
    MD[prefix].check(md, {L.MD_STATUS: (L.ABSENT, L.REMOVED), L.MD_PROFILE: (0, n_profiles - 1)})
    present = status != L.ABSENT
    MD[prefix].check(md, {
        L.MD_WOUNDS: (0, 1000), L.MD_MORALE: (0, 1000), L.MD_FATIGUE: (0, 1000), L.MD_CAR: (0, 1000),
        L.MD_FLAGS: (0, (1 << 21) - 1), L.MD_USED: (0, INT32_MAX), L.MD_PRONE_UNTIL: (-1, 1000),
        L.MD_CHARGE_AT: (0, 1000), L.MD_MELEE_DEALT: (0, 1000), L.MD_FLASH_UNTIL: (-1, 1000), L.MD_JAMMED: (0, 3),
        L.MD_REACTED: (0, 1000), L.MD_ENGAGED_WITH: (-1, INT32_MAX), L.MD_CMD_BONUS: (-1000, 1000),
        L.MD_CONTROLLED: (0, 1), L.MD_ACTIONS: (0, 1000), L.MD_HIT_BY: (-1, INT32_MAX), L.MD_MELEE_TGT: (L.MELEE_UNCHOSEN, L.N_SLOTS - 1),
        L.MD_MELEE_WPN: (L.MELEE_UNCHOSEN, 1)}, present)
    on_table = status == L.ACTIVE
    for axis, what in ((0, "x"), (1, "y")):
        check_range(pos[..., axis], 0.0, L.TABLE_CM, f"{prefix}pos[{what}] of a model on the table", on_table)


def _check_terrain(tinfo, terr, prefix: str) -> None:
    TI[prefix].check(tinfo, {L.TI_KIND: (L.T_NONE, L.T_IMPASSABLE), L.TI_HEIGHT: (0, 1000), L.TI_EXPLORED: (0, 1),
                     L.TI_NVERT: (0, 4)})
    piece = tinfo[..., L.TI_KIND] != L.T_NONE
    check_range(tinfo[..., L.TI_NVERT], 3, 4, f"{prefix}tinfo[TI_NVERT] of a terrain piece", piece)
    if prefix == "":   # (the snapshot keeps no outline: terrain pieces never move)
        check_range(terr, 0.0, L.TABLE_CM, "terr (a vertex on the table)")


def _check_markers(objs, smoke, rq, g, prefix: str) -> None:
    for name, markers in (("objs", objs), ("smoke", smoke)):
        placed = markers[..., 2] > 0
        for axis, what in ((0, "x"), (1, "y")):
            check_range(markers[..., axis], 0.0, L.TABLE_CM, f"{prefix}{name}[{what}] of a marker", placed)
    declared = np.arange(L.MAX_REACT)[None, :] < g[:, L.G_NREACT][:, None]
    check_range(rq[..., 0], 0, L.N_SLOTS - 1, f"{prefix}rq[model]", declared)
    check_range(rq[..., 1], 0, L.N_RK - 1, f"{prefix}rq[reaction]", declared)
    check_range(rq[..., 2], 0, 1, f"{prefix}rq[free]", declared)


def _check_bank(bk) -> None:
    BK.check(bk, {
        L.BK_RECORDING: (0, 1), L.BK_EVENT: (0, L.MAX_BANK_ASKS), L.BK_NDEC: (0, L.MAX_BANK_ASKS),
        L.BK_ANSWERS: (0, INT32_MAX), L.BK_PENDING: (0, 1), L.BK_OWNER: (-1, 1), L.BK_ROLLER: (-1, L.ROLLER_NONE),
        L.BK_SLOT: SLOT, L.BK_KIND: (L.TK_NONE, L.TK_FATIGUE), L.BK_NEED: (0, 1000), L.BK_MARGIN: (-1000, 1000),
        L.BK_SPENT0: (0, 1000), L.BK_SPENT1: (0, 1000), L.BK_WOUNDS: (-1000, 1000),
        L.BK_RESEED_AT: (0, L.MAX_BANK_ASKS)})   # (BK_RESEED_LO / HI: any two halves of a stream word)
    check_range(bk[:, L.BK_AMOUNT0:L.BK_AMOUNT0 + L.MAX_BANK_ASKS], 0, L.MAX_BANK_AMOUNT, "bk[BK_AMOUNT0 + k]")
