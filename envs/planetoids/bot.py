"""Compiled opponents for Planetoids and the loop that lets them play.

``policy_action`` (built by core/loops.py from the bot below) picks an action for game ``b`` from its legal mask:

* ``RANDOM``: uniform over legal actions, drawn from the game's own policy
  stream (``s.policy_rng``), so opponents never disturb the game's dice.
* ``SCRIPTED``: a greedy player that knows what matters in Planetoids:
  launch transports, send each to its own uncolonised planetoid and wait
  there for it to appear, colonise; fire the best available shot; hunt enemy
  transports with cruisers and fighters; repair damaged ships at the bases.

``play_turns`` is what the SB3 wrapper calls: it applies the learner's action
in every game, then plays the opponent until it is the learner's decision
again, all inside one compiled range kernel per thread (core/loops.py).
"""
from __future__ import annotations

import sys

from ..core.kernel import kernel
from ..core import loops
from ..core.loops import specialise_loops
from ..core.sampling import first_legal
from . import rules as _rules
from .rules import (ACT, BASE, CI_PLANETOID, CRUISER, EXIT_FACE, EXIT_HEX, FIGHTER, FIXED, FX_OWNER,
                    G_ACTIVE, G_DECIDER, G_DONE, G_LAUNCHED, G_PHASE, K_A_COLONISE, K_A_END_ACT, K_A_END_TURN,
                    K_A_FACE, K_A_FIXED, K_A_HEX, K_A_LAUNCH, K_A_MOVE, K_A_PIECE, K_A_REPAIR,
                    K_A_TARGET, ON_MAP, PC_DAMAGE, PC_FACING, PC_POS, PC_STATUS, PL_CELL, SELECT,
                    SETUP, TRANSPORT, colour_now, fire_range, gain_toward, hunt_target, open_planetoid, step_game, to_hit)

RANDOM, SCRIPTED = loops.RANDOM, loops.SCRIPTED
POLICIES = {"random": RANDOM, "scripted": SCRIPTED}


@kernel(cache=True)
def _best_shot(s, cfg, b, p, i, mask):
    """Legal target with the best chance to hit (transports and fixed bases first)."""
    kind = cfg.slot_kind[i]
    colour = colour_now(s, cfg, b)
    q = 1 - p
    best, best_score = -1, 0.0
    for j in range(cfg.slot_kind.shape[0]):
        a = cfg.k[K_A_TARGET] + j
        if not mask[a]:
            continue
        tk = cfg.slot_kind[j]
        thr = to_hit(cfg, kind, tk, fire_range(s, cfg, b, p, i, q, tk, s.pc[b, q, j, PC_POS],
                                                s.pc[b, q, j, PC_FACING], colour)) + s.pc[b, p, i, PC_DAMAGE]
        value = 3.0 if tk == TRANSPORT else (1.5 if tk == FIGHTER else 1.0)
        sc = value * max(0, 7 - thr) / 6.0
        if sc > best_score:
            best, best_score = a, sc
    for f in range(cfg.planetoids.shape[0]):
        a = cfg.k[K_A_FIXED] + f
        if not mask[a]:
            continue
        thr = to_hit(cfg, kind, FIXED, fire_range(s, cfg, b, p, i, 0, FIGHTER, cfg.planetoids[f, PL_CELL], 0,
                                                   colour)) + s.pc[b, p, i, PC_DAMAGE]
        sc = 2.5 * max(0, 7 - thr) / 6.0
        if sc > best_score:
            best, best_score = a, sc
    return best


@kernel(cache=True)
def _step_towards(s, cfg, b, p, i, goal, mask):
    """Legal move or pivot that brings the bow closer to ``goal``; -1 if none."""
    if goal < 0:
        return -1
    pos = s.pc[b, p, i, PC_POS]
    best, best_gain = -1, 0
    for d in range(6):
        a = cfg.k[K_A_MOVE] + d
        if mask[a]:
            gain = gain_toward(cfg, pos, cfg.nbr[pos, d], goal)
            if gain > best_gain:
                best, best_gain = a, gain
    if best >= 0:
        return best
    # cruisers and transports: turn to face the goal when going straight no longer helps
    for f in range(6):
        a = cfg.k[K_A_FACE] + f
        if mask[a] and gain_toward(cfg, pos, cfg.nbr[pos, f], goal) > 0:
            return a
    return -1


@kernel(cache=True)
def scripted_action(s, cfg, b, mask):
    p = s.g[b, G_DECIDER]
    ph = s.g[b, G_PHASE]
    if ph == SETUP or ph == EXIT_HEX or ph == EXIT_FACE:
        a = first_legal(mask, cfg.k[K_A_HEX], cfg.k[K_A_MOVE])
        return a if a >= 0 else first_legal(mask, 0, mask.shape[0])
    if ph == SELECT:
        if s.g[b, G_LAUNCHED] < 0:
            # one transport at a time on the map is enough; then cruisers, then fighters
            n_tr = 0
            for j in range(cfg.slot_kind.shape[0]):
                if cfg.slot_kind[j] == TRANSPORT and s.pc[b, p, j, PC_STATUS] == ON_MAP:
                    n_tr += 1
            order = (TRANSPORT, CRUISER, FIGHTER) if n_tr < 2 else (CRUISER, TRANSPORT, FIGHTER)
            for kind in order:
                a = first_legal(mask, cfg.k[K_A_LAUNCH] + 3 * (kind - CRUISER),
                                 cfg.k[K_A_LAUNCH] + 3 * (kind - CRUISER) + 3)
                if a >= 0:
                    return a
        elif s.g[b, G_LAUNCHED] == FIGHTER:
            a = first_legal(mask, cfg.k[K_A_LAUNCH] + 6, cfg.k[K_A_LAUNCH] + 9)
            if a >= 0:
                return a
        a = first_legal(mask, cfg.k[K_A_PIECE], cfg.k[K_A_TARGET])
        return a if a >= 0 else cfg.k[K_A_END_TURN]
    if ph != ACT:
        return first_legal(mask, 0, mask.shape[0])
    i = s.g[b, G_ACTIVE]
    kind = cfg.slot_kind[i]
    if mask[cfg.k[K_A_COLONISE]]:
        return cfg.k[K_A_COLONISE]
    if mask[cfg.k[K_A_REPAIR]]:
        return cfg.k[K_A_REPAIR]
    shot = _best_shot(s, cfg, b, p, i, mask)
    if shot >= 0:
        return shot
    if kind == TRANSPORT:
        pos = s.pc[b, p, i, PC_POS]
        f = cfg.cell[pos, CI_PLANETOID]
        if f >= 0 and s.fx[b, f, FX_OWNER] < 0:
            return cfg.k[K_A_END_ACT]  # wait on the planetoid until it appears (seed 004 "Colonizzazione")
        goal = open_planetoid(s, cfg, b, p, i)
    elif kind == BASE:
        return cfg.k[K_A_END_ACT]  # bases hold position near home
    else:
        goal = hunt_target(s, cfg, b, p, i)
    a = _step_towards(s, cfg, b, p, i, goal, mask)
    return a if a >= 0 else cfg.k[K_A_END_ACT]


# The learner-versus-opponent loops, written once in envs/core/loops.py
LOOPS = specialise_loops("planetoids", step_game, scripted_action, G_DONE, G_DECIDER, sources=(_rules, sys.modules[__name__]),
                         policies=POLICIES)
play_turns, play_games, policy_actions, play = LOOPS.play_turns, LOOPS.play_games, LOOPS.policy_actions, LOOPS.play
policy_action = LOOPS.policy_action   # one game's built-in policy (serve.session calls it directly)
