"""UnionWars as a decision machine: a new game (``reset_game``) and the batched entry points (the
contract of every wargym game, see core/contract.py).

The rules are in the chapter modules, each named after the seed's chapter it implements (RULES.md,
"Where the rules are"), each importing only the modules before it in ``CHAPTERS``; this module
re-exports every chapter's names, so that ``from wargym.envs.union_wars import rules as R`` reaches
them all.  Every decision goes through ``decisions.decide(s, cfg, b, a, apply)``: with ``apply``
False it only returns the reason code (0 = legal), so the mask, the step's own check and the env's
error message can never disagree.
"""
from __future__ import annotations

import sys

import numpy as np

from ..core.kernel import kernel
from ..core.ranges import specialise_ranges
from ..core.rng import draw_int, seed_stream
from .general import d6, roll_off
from .layout import *  # noqa: F401,F403  (the named columns and codes)
from .layout import config_view, outputs_view, state_view
from .melee import update_engagement
from .psychology import losses
from .sight import forget_sight, sight_cache_mismatches
from .turn import enter_tactical, refresh_turn
from .deployment import after_mission
from .decisions import decide, play
from .mask import write_mask
from .observation import write_obs
from . import (actions, bank, general, layout, melee, movement, psychology, shooting, sight,
               action_sequence, battle, decisions, deployment, mask, observation, reactions, relations, turn)

# the chapter modules, each importing only those before it (RULES.md, "Where the rules are"; tests/test_layout.py)
CHAPTERS = (layout, bank, general, sight, movement, shooting, melee, psychology, actions, reactions, battle,
            relations, turn, deployment, action_sequence, decisions, mask, observation)

# every chapter's names, so that ``from wargym.envs.union_wars import rules as R`` reaches them all
from .layout import *  # noqa: F401,F403
from .bank import *  # noqa: F401,F403
from .general import *  # noqa: F401,F403
from .sight import *  # noqa: F401,F403
from .movement import *  # noqa: F401,F403
from .shooting import *  # noqa: F401,F403
from .melee import *  # noqa: F401,F403
from .psychology import *  # noqa: F401,F403
from .actions import *  # noqa: F401,F403
from .reactions import *  # noqa: F401,F403
from .battle import *  # noqa: F401,F403
from .relations import *  # noqa: F401,F403
from .turn import *  # noqa: F401,F403
from .deployment import *  # noqa: F401,F403
from .action_sequence import *  # noqa: F401,F403
from .decisions import *  # noqa: F401,F403
from .mask import *  # noqa: F401,F403
from .observation import *  # noqa: F401,F403


@kernel(cache=True)
def reset_game(s, cfg, b, seed):
    s.rng[b] = seed_stream(seed)
    s.policy_rng[b] = seed_stream(seed ^ np.uint64(0x5EED))
    s.dice[b, :] = 0
    s.dice_script[b, :] = 0
    s.g[b, :] = 0
    s.md[b, :, :, :] = 0
    s.pos[b, :, :, :] = 0.0
    s.objs[b, :, :] = 0.0
    s.smoke[b, :, :] = 0.0
    s.rq[b, :, :] = 0
    s.geo[b, GEO_SHOT:GEO_SHOT + 5] = 0.0
    s.bk[b, :] = 0
    forget_sight(s, b)
    for c in (G_ACTOR, G_TGT, G_CONTROLLED, G_CMD0, G_CMD1, G_BASE0, G_BASE1, G_ASSASSIN0, G_ASSASSIN1, G_WINNER,
              G_RSLOT):
        s.g[b, c] = -1
    s.g[b, G_MAX_TURNS] = cfg.k[K_TURNS] * (1 if cfg.k[K_TURNS_TOTAL] else 2)
    for side in range(2):
        n = 0
        for i in range(N_SLOTS):
            p = cfg.army[side, i]
            s.md[b, side, i, MD_PROFILE] = max(p, 0)
            if p < 0:
                s.md[b, side, i, MD_STATUS] = ABSENT
                continue
            n += 1
            s.md[b, side, i, MD_STATUS] = RESERVE
            s.md[b, side, i, MD_CAR] = cfg.pf[p, PF_CAR]
            s.md[b, side, i, MD_FLASH_UNTIL] = -1
            if s.g[b, G_CMD0 + side] < 0 and cfg.pf[p, PF_TYPE] == TYPE_QG:
                s.g[b, G_CMD0 + side] = i   # IL COMANDANTE: the army's first QG model (RULES.md)
        s.g[b, G_START0 + side] = n
        if s.g[b, G_CMD0 + side] < 0:
            s.g[b, G_CMD0 + side] = 0
        s.g[b, G_ASSASSIN0 + side] = s.g[b, G_CMD0 + side]
        # MUNIZIONI LIMITATE: the charisma of the models with shooting or thrown weapons + the commander's bonus
        ammo = 0
        for i in range(N_SLOTS):
            p = cfg.army[side, i]
            if p >= 0 and cfg.pf[p, PF_R0] >= 0:
                ammo += cfg.pf[p, PF_CAR]
        ammo += cfg.pf[cfg.army[side, s.g[b, G_CMD0 + side]], PF_CARB]
        s.g[b, G_AMMO0 + side] = ammo
    # MISSIONI: "Tira un D6 per vedere che missione utilizzare" (or the option's mission)
    m = cfg.k[K_MISSION]
    if m == 0:
        m = d6(s, b)
    s.g[b, G_MISSION] = m
    if m == 6:
        # A SCELTA: "i giocatori effettuano uno spareggio: chi vince sceglie una missione"
        w, _ = roll_off(s, b, 0, 0)
        s.g[b, G_STAGE] = ST_MISSION
        s.g[b, G_DECIDER] = w
    else:
        after_mission(s, cfg, b)


@kernel(cache=True)
def _reward(s, b, o):
    o.rewards[b, 0] = 0.0
    o.rewards[b, 1] = 0.0
    if s.g[b, G_DONE]:
        w = s.g[b, G_WINNER]
        if w == 0 or w == 1:
            o.rewards[b, w] = 1.0
            o.rewards[b, 1 - w] = -1.0


@kernel(inline="always")  # Numba IR: no compiled copy of its own (see core/ranges.py)
def _step_one(s, cfg, o, b, a, auto_reset):
    o.term[b] = False
    o.trunc[b] = False
    before = losses(s, b, 1) - losses(s, b, 0)
    code = play(s, cfg, b, a)
    o.illegal[b] = code
    if code != OK:
        return
    s.g[b, G_DECISIONS] += 1
    _reward(s, b, o)
    if cfg.k[K_REWARD_KILLS]:
        # option reward="kills": the change of (enemy losses - own losses) / army size, every step
        after = losses(s, b, 1) - losses(s, b, 0)
        d = (after - before) / max(1, s.g[b, G_START0])
        o.rewards[b, 0] += d
        o.rewards[b, 1] -= d
    if s.g[b, G_DONE]:
        o.term[b] = True
    elif cfg.k[K_MAX_DECISIONS] > 0 and s.g[b, G_DECISIONS] >= cfg.k[K_MAX_DECISIONS]:
        o.trunc[b] = True
    if auto_reset and (o.term[b] or o.trunc[b]):
        for p in range(2):
            write_obs(s, cfg, b, p, o.final_obs[b, p])
        reset_game(s, cfg, b, np.uint64(draw_int(s.rng, b, 2**62)))
    write_obs(s, cfg, b, s.g[b, G_DECIDER], o.obs[b])
    write_mask(s, cfg, b, o.mask[b])
    o.player[b] = s.g[b, G_DECIDER]


@kernel(inline="always")
def step_game(s0, cfg0, b, a, out, auto_reset):
    """One decision in game ``b`` (sets ``out.illegal[b]``, 0 if legal): the loops' step
    (core/loops.py), inlined into them."""
    _step_one(state_view(s0), config_view(cfg0), outputs_view(out), b, a, auto_reset)


@kernel(inline="always")  # into reset_range (core/ranges.py), its one compiled entry point
def reset_one(s0, cfg0, b, seed, out):
    s, cfg, o = state_view(s0), config_view(cfg0), outputs_view(out)
    reset_game(s, cfg, b, seed)
    write_obs(s, cfg, b, s.g[b, G_DECIDER], o.obs[b])
    write_mask(s, cfg, b, o.mask[b])
    o.player[b] = s.g[b, G_DECIDER]


# The batched entry points VecGame calls, written once for every game (core/ranges.py)
step_range, reset_range = specialise_ranges("union_wars", step_game, reset_one, sources=(sys.modules[__name__],))


@kernel(cache=True)
def observe_game(s0, cfg0, b, p, obs, mask):
    s, cfg = state_view(s0), config_view(cfg0)
    write_obs(s, cfg, b, p, obs)
    mask[:] = 0
    if p == s.g[b, G_DECIDER] and not s.g[b, G_DONE]:
        write_mask(s, cfg, b, mask)


@kernel(cache=True)
def action_reason(s0, cfg0, b, a):
    return decide(state_view(s0), config_view(cfg0), b, a, False)


@kernel(cache=True)
def check_sight_cache(s0, cfg0, b):
    """(wrong, checked) cached sight answers of game ``b`` against fresh ones (tests)."""
    return sight_cache_mismatches(state_view(s0), config_view(cfg0), b)


@kernel(cache=True)
def start_battle_at(s0, cfg0, b, active):
    """Scenarios: begin the tactical phase of ``active``'s turn (game.apply_scenario).  The
    scenario is set after its command phase: charisma is refilled, no command test or reserves'
    4+ is rolled (they come in the next command phases, each inside a step)."""
    s, cfg = state_view(s0), config_view(cfg0)
    s.g[b, G_ACTIVE] = active
    s.g[b, G_FIRST] = active
    s.g[b, G_RESERVE_PLACING] = 0
    forget_sight(s, b)    # the scenario may have replaced the terrain
    update_engagement(s, cfg, b)
    if refresh_turn(s, cfg, b):
        enter_tactical(s, cfg, b)
