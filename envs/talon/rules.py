"""Talon rules (seed 000, sections 3-11 and 17-19) as Numba kernels: the game's kernel
module (``game.kernels``) with the batched entry points, and the one place other code
imports the rules from (it re-exports every chapter module's names).

The rules live in modules that follow the rulebook's chapters (RULES.md "Code layout"):
``layout`` (state layout and codes), ``ships`` (2.2, 4.1, 5), ``terrain`` (17-19),
``power`` (6, 9, 10), ``movement`` (7, entering terrain hexes, the pull of 18.2), ``fire``
(8), ``retreat`` (11), ``sequence`` (3, 4, the end of the round: pull, supply, retreat),
``legality`` (the mask and the reason of an illegal action), ``deploy`` (setting up),
``observation``.

Every decision the rules leave to a player is one step: the player whose
decision it is is ``g[b, G_DECIDER]``.  Everything without a choice (dice,
expiry of reinforcements, repairs, charging, explosions of a single ship) is
resolved while advancing to the next decision (``sequence.advance``).

Section numbers in comments refer to the 2nd-edition Italian rulebook
(seed 000), e.g. ``# Talon 7.2.2``; RULES.md explains every interpretation.
"""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.ranges import specialise_ranges
from ..core.rng import draw_int
from ..core.structs import borrow
from .layout import (CL_POINTS, G_DECIDER, G_DECISIONS, G_DONE, G_FLEET0, G_FLEET1, G_SP0, G_SP1,
                     G_WINNER, K_MAX_DECISIONS, K_REWARD, OK, REWARD_DAMAGE, REWARD_WIN, SH_CLASS, SH_STATUS,
                     SS_DESTROYED, SS_EMPTY)
from .legality import action_reason, write_mask
from .sequence import apply_action
from .deploy import reset_game
from .observation import write_obs
from .ships import hull_worn
from .deploy import *  # noqa: F401,F403  (re-exports: see the module docstring)
from .fire import *  # noqa: F401,F403
from .layout import *  # noqa: F401,F403
from .legality import *  # noqa: F401,F403
from .movement import *  # noqa: F401,F403
from .observation import *  # noqa: F401,F403
from .power import *  # noqa: F401,F403
from .relations import *  # noqa: F401,F403
from .sequence import *  # noqa: F401,F403
from .ships import *  # noqa: F401,F403
from .terrain import *  # noqa: F401,F403
from .retreat import *  # noqa: F401,F403
from .heavy_weapons import *  # noqa: F401,F403
from .bases import *  # noqa: F401,F403
from .fighters import *  # noqa: F401,F403
from .missiles import *  # noqa: F401,F403
from .docking import *  # noqa: F401,F403
from .victory import *  # noqa: F401,F403
from . import (bases, deploy, docking, fighters, fire, heavy_weapons, layout, legality, missiles, movement, observation, power,
               relations, retreat, sequence, ships, terrain, victory)


# the chapter modules, each importing only those before it (RULES.md, "Code layout"; tests/test_layout.py)
CHAPTERS = (layout, ships, bases, terrain, fire, power, retreat, fighters, victory, missiles, movement, docking,
            heavy_weapons, legality, sequence, deploy, relations, observation)


@kernel(inline="always")  # into reset_range (through reset_one)
def write_outputs(s, cfg, b, obs, mask):
    write_obs(s, cfg, b, s.g[b, G_DECIDER], obs)
    write_mask(s, cfg, b, mask)


# ---------------------------------------------------------------------------------
# Batched entry points (same contract as every wargym game, see core/vec.py)
# ---------------------------------------------------------------------------------
@kernel(inline="always")  # into reset_range (core/ranges.py), its one compiled entry point
def reset_one(s, cfg, b, seed, out):
    reset_game(s, cfg, b, seed)
    write_outputs(s, cfg, b, out.obs[b], out.mask[b])
    out.player[b] = s.g[b, G_DECIDER]


@kernel(cache=True)
def final_reward(s, b, p):
    w = s.g[b, G_WINNER]
    if w == 2:
        return 0.0
    return 1.0 if w == p else -1.0


@kernel(cache=True, forceinline=True)
def hull_share_lost(s, cfg, b, p):
    """Option reward="damage": the ship points of player p's ships not destroyed, each weighted by the
    share of its hull boxes marked (8.4): a destroyed ship's points are in the other player's G_SP
    (8.6.1), a retreated one keeps its damage."""
    sh = s.sh
    lost = 0.0
    for k in range(sh.shape[2]):
        st = sh[b, p, k, SH_STATUS]
        if st == SS_EMPTY or st == SS_DESTROYED:
            continue
        lost += cfg.cls[sh[b, p, k, SH_CLASS], CL_POINTS] * hull_worn(sh, cfg, b, p, k)
    return lost


@kernel(cache=True, forceinline=True)
def reward_balance(s, cfg, b):
    """What a dense reward measures, player 0's lead: the ship points destroyed (reward="points"), plus
    under reward="damage" the points' share of the hull marked on ships still in the game."""
    g = s.g
    lead = float(g[b, G_SP0] - g[b, G_SP1])
    if cfg.k[K_REWARD] == REWARD_DAMAGE:
        lead += hull_share_lost(s, cfg, b, 1) - hull_share_lost(s, cfg, b, 0)
    return lead


# Inlined (Numba IR) into the step's one compiled entry point, step_range (core/ranges.py), and into
# the loops (core/loops.py): a compiled step_game of its own would compile the whole step once more.
@kernel(inline="always")
def step_game(s, cfg, b, a, out, auto_reset):
    o_rewards = borrow(out.rewards)
    o_term = borrow(out.term)
    o_trunc = borrow(out.trunc)
    o_illegal = borrow(out.illegal)
    k_ = borrow(cfg.k)
    o_final_obs = borrow(out.final_obs)
    o_obs = borrow(out.obs)
    o_mask = borrow(out.mask)
    o_player = borrow(out.player)
    o_rewards[b, :] = 0
    o_term[b] = False
    o_trunc[b] = False
    code = action_reason(s, cfg, b, a)
    o_illegal[b] = code
    if code != OK:
        return
    g = borrow(s.g)
    dense = k_[K_REWARD] != REWARD_WIN
    before = reward_balance(s, cfg, b) if dense else 0.0
    apply_action(s, cfg, b, a)
    g[b, G_DECISIONS] += 1
    if dense:
        # options reward="points" and "damage": change of the balance, scaled by the mean fleet
        scale = max(1.0, 0.5 * (g[b, G_FLEET0] + g[b, G_FLEET1]))
        d = (reward_balance(s, cfg, b) - before) / scale
        o_rewards[b, 0] = d
        o_rewards[b, 1] = -d
    if g[b, G_DONE]:
        o_term[b] = True
        if not dense:
            o_rewards[b, 0] = final_reward(s, b, 0)
            o_rewards[b, 1] = final_reward(s, b, 1)
    elif k_[K_MAX_DECISIONS] > 0 and g[b, G_DECISIONS] >= k_[K_MAX_DECISIONS]:
        o_trunc[b] = True
    if (o_term[b] or o_trunc[b]) and auto_reset:
        for p in range(2):
            write_obs(s, cfg, b, p, o_final_obs[b, p])
        reset_game(s, cfg, b, np.uint64(draw_int(s.rng, b, 2**62)))
    # write_outputs with its calls spelled out (one call level less per step)
    p = g[b, G_DECIDER]
    write_obs(s, cfg, b, p, o_obs[b])
    write_mask(s, cfg, b, o_mask[b])
    o_player[b] = p


# The batched entry points VecGame calls, written once for every game (core/ranges.py)
step_range, reset_range = specialise_ranges("talon", step_game, reset_one, sources=(layout,))


@kernel(cache=True)
def observe_game(s, cfg, b, p, obs, mask):
    write_obs(s, cfg, b, p, obs)
    mask[:] = 0
    if p == s.g[b, G_DECIDER] and not s.g[b, G_DONE]:
        write_mask(s, cfg, b, mask)
