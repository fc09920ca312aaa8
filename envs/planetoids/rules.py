"""Planetoids (seed 004) as Numba kernels over batched state: a new game (``reset_game``) and the
batched entry points (the contract of every wargym game, see core/contract.py).

Every rule cites the seed section it implements (`# Seed 004 "Movimento"`); ``RULES.md`` beside this file
states the same rules in English with every interpretation.  The rules are in the chapter modules, each named
after the rulebook's chapter it implements (RULES.md, "Where the rules are"), each importing only the modules
before it in ``CHAPTERS``; this module re-exports every chapter's names, so that
``from wargym.envs.planetoids import rules as R`` reaches all of them (``game.kernels`` is this module).

``s`` is the namedtuple of state arrays (leading batch dimension), ``cfg`` the namedtuple of static map tables
and options built by ``game.py``; ``b`` indexes one game.  Each legality check returns a *reason code*
(0 = legal).  The mask builder, the step kernel's own check and the AEC env's error message all call the same
functions, so the mask can never disagree with what ``step`` accepts.
"""
from __future__ import annotations

import sys

import numpy as np

from ..core.kernel import kernel
from ..core.ranges import specialise_ranges
from ..core.rng import draw_int, seed_stream
from .layout import (C_BLOCKED, FX_HITS, FX_OWNER, G_ACTIVE, G_DECIDER, G_DECISIONS, G_DONE, G_EXIT_CELL, G_LAST_DIE,
                     G_LAUNCHED, G_LAUNCH_COUNT, G_PHASE, G_SETUP_COUNT, G_TURN, K_FIXED_SETUP, K_MAX_DECISIONS,
                     K_REWARD_SCORE, OK, ON_MAP, PC_ACTIVATED, PC_DAMAGE, PC_FACING, PC_POS, PC_REPAIRED,
                     PC_REPAIR_PROGRESS, PC_STATUS, RESERVE, R_NO_SUCH_ACTION, SETUP, config_view, outputs_view,
                     state_view)
from .board import _occupancy, build_occupancy
from .turn import begin_colour_turn, clear_activation, score
from .legality import _mask, write_mask
from .actions import decide
from .observation import _obs, write_obs
from . import (action_table, actions, board, colonisation, combat, hyperspace, layout, legality, movement, observation,
               phases, repair, turn)

# the chapter modules, each importing only those before it (RULES.md, "Where the rules are")
CHAPTERS = (layout, board, combat, turn, hyperspace, phases, movement, repair, colonisation, legality, actions,
            action_table, observation)

# every chapter's names, so that ``from wargym.envs.planetoids import rules as R`` reaches them all
from .layout import *  # noqa: F401,F403
from .board import *  # noqa: F401,F403
from .combat import *  # noqa: F401,F403
from .turn import *  # noqa: F401,F403
from .hyperspace import *  # noqa: F401,F403
from .phases import *  # noqa: F401,F403
from .movement import *  # noqa: F401,F403
from .repair import *  # noqa: F401,F403
from .colonisation import *  # noqa: F401,F403
from .legality import *  # noqa: F401,F403
from .actions import *  # noqa: F401,F403
from .action_table import *  # noqa: F401,F403
from .observation import *  # noqa: F401,F403


@kernel(inline="always")  # into reset_range (through reset_one)
def write_outputs(s, cfg, b, obs, mask, key):
    """The buffers of game ``b`` after a reset; ``key`` is its row of obs_key."""
    _obs(state_view(s), config_view(cfg), b, s.g[b, G_DECIDER], obs, key)
    write_mask(s, cfg, b, mask)


@kernel(cache=True, forceinline=False)
def reset_game(s0, cfg0, b, seed):
    s, cfg = state_view(s0), config_view(cfg0)
    s.rng[b] = seed_stream(seed)
    s.policy_rng[b] = seed_stream(seed ^ np.uint64(0x5EED))
    s.dice[b, :] = 0
    s.dice_script[b, :] = 0
    s.g[b, G_TURN] = 0
    s.g[b, G_DECIDER] = 0
    s.g[b, G_PHASE] = SETUP
    s.g[b, G_SETUP_COUNT] = 0
    s.pc[b, :, :, PC_STATUS] = RESERVE
    s.pc[b, :, :, PC_POS] = -1
    s.pc[b, :, :, PC_FACING] = 0
    s.pc[b, :, :, PC_DAMAGE] = 0
    s.pc[b, :, :, PC_REPAIR_PROGRESS] = 0
    s.pc[b, :, :, PC_ACTIVATED] = False
    s.pc[b, :, :, PC_REPAIRED] = False
    s.g[b, G_ACTIVE] = -1
    clear_activation(s, b)
    s.g[b, G_LAUNCHED] = -1
    s.g[b, G_LAUNCH_COUNT] = 0
    s.g[b, G_EXIT_CELL] = -1
    s.cells[b, :, C_BLOCKED] = -1
    s.fx[b, :, FX_OWNER] = -1
    s.fx[b, :, FX_HITS] = 0
    s.g[b, G_DECISIONS] = 0
    s.g[b, G_DONE] = False
    s.g[b, G_LAST_DIE] = 0
    if cfg.k[K_FIXED_SETUP]:
        # Option setup="fixed": bases go to the map's listed start hexes.
        for p in range(2):
            for k in range(2):
                s.pc[b, p, k, PC_STATUS] = ON_MAP
                s.pc[b, p, k, PC_POS] = cfg.start_cells[p, k]
        s.g[b, G_SETUP_COUNT] = 4
        _occupancy(s, cfg, b)
        begin_colour_turn(s, cfg, b)
    _occupancy(s, cfg, b)


@kernel(inline="always")  # into reset_range (core/ranges.py), its one compiled entry point
def reset_one(s, cfg, b, seed, out):
    reset_game(s, cfg, b, seed)
    write_outputs(s, cfg, b, out.obs[b], out.mask[b], out.obs_key[b])
    out.player[b] = s.g[b, G_DECIDER]


@kernel(inline="always")  # Numba IR: no compiled copy of its own (see core/ranges.py)
def _step_one(s0, cfg0, s, cfg, o, b, a, auto_reset):
    """One decision in game ``b``: ``s``, ``cfg``, ``o`` are views (for the
    inlined code), ``s0``, ``cfg0`` the structs they view (for the calls that
    are not inlined: ``decide`` and the end-of-game path)."""
    o.rewards[b, :] = 0
    o.term[b] = False
    o.trunc[b] = False
    score_reward = cfg.k[K_REWARD_SCORE] != 0
    before = score(s, cfg, b, 0) - score(s, cfg, b, 1) if score_reward else 0
    code = R_NO_SUCH_ACTION if (a < 0 or a >= o.mask.shape[1]) else decide(s0, cfg0, b, a, np.bool_(True))
    o.illegal[b] = code
    if code != OK:
        return
    s.g[b, G_DECISIONS] += 1
    if score_reward:
        # Option reward="score": the change of the score difference, every step.
        d = (score(s, cfg, b, 0) - score(s, cfg, b, 1)) - before
        o.rewards[b, 0] = d
        o.rewards[b, 1] = -d
    if s.g[b, G_DONE]:
        o.term[b] = True
        if not score_reward:
            diff = score(s, cfg, b, 0) - score(s, cfg, b, 1)
            w = 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)
            o.rewards[b, 0] = w
            o.rewards[b, 1] = -w
    elif cfg.k[K_MAX_DECISIONS] > 0 and s.g[b, G_DECISIONS] >= cfg.k[K_MAX_DECISIONS]:
        o.trunc[b] = True
    if auto_reset and (o.term[b] or o.trunc[b]):
        for p in range(2):
            write_obs(s0, cfg0, b, p, o.final_obs[b, p])
        reset_game(s0, cfg0, b, next_seed(s, b))
    _obs(s, cfg, b, s.g[b, G_DECIDER], o.obs[b], o.obs_key[b])
    _mask(s, cfg, b, o.mask[b])
    o.player[b] = s.g[b, G_DECIDER]


@kernel(cache=True, forceinline=False)
def next_seed(s, b):
    return np.uint64(draw_int(s.rng, b, 2**62))


@kernel(inline="always")
def step_game(s0, cfg0, b, a, out, auto_reset):
    """One decision in game ``b`` (sets ``out.illegal[b]``, 0 if legal): the loops' step
    (core/loops.py), inlined into them."""
    _step_one(s0, cfg0, state_view(s0), config_view(cfg0), outputs_view(out), b, a, auto_reset)


# The batched entry points VecGame calls, written once for every game (core/ranges.py)
step_range, reset_range = specialise_ranges("planetoids", step_game, reset_one, sources=(sys.modules[__name__],))


@kernel(cache=True)
def observe_game(s, cfg, b, p, obs, mask):
    build_occupancy(s, cfg, b)
    write_obs(s, cfg, b, p, obs)
    mask[:] = 0
    if p == s.g[b, G_DECIDER] and not s.g[b, G_DONE]:
        write_mask(s, cfg, b, mask)
