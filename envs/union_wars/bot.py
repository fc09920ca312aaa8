"""Compiled opponents for UnionWars and the loops that let them play.

* ``RANDOM``: uniform over legal actions, from the game's policy stream.
* ``SCRIPTED``: shoots the most wounded enemy it can hit, charges with models good in melee,
  otherwise walks toward the mission's goal (the nearest enemy it knows of, not a hidden one;
  an objective, the enemy base, an unexplored element) stopping at half its weapon's range
  (relations.py states the goal, which union_wars_v2's action table measures moves against); reacts to an enemy
  action with reaction fire when it can (free reactions first); recovers when suppressed or
  tired; deploys near the middle of its zone and takes the first turn.
"""
from __future__ import annotations

import math
import sys

from ..core.kernel import kernel
from ..core import loops
from ..core.loops import specialise_loops
from ..core.sampling import first_legal
from . import actions as _actions
from . import bank as _bank
from . import battle as _battle
from . import general as _general
from . import melee as _melee
from . import movement as _movement
from . import psychology as _psychology
from . import reactions as _reactions
from . import relations as _relations
from . import rules as _rules
from . import shooting as _shooting
from . import sight as _sight
from .general import exhausted, model_distance, on_table, radius, stat, wounds_left
from .layout import (AK_AID, AK_CHARGE, AK_FIRE0, AK_FIRE1, AK_GENIO, AK_HIDE, AK_MOVE, AK_RECOVER, AK_CONTROLLO,
                     AK_SEGNALATORE, AK_RICHIAMO, AK_FLY, F_SUPPRESSED, G_ACT, G_ACTIVE, G_ACTOR, G_ACTOR_SIDE,
                     G_DECIDER, G_RSLOT, G_STAGE, K_A_ACT, K_A_CHOICE, K_A_MODEL, K_A_MOVE, K_A_PASS,
                     K_A_REACT, K_A_SPOT, K_A_THEIR, K_A_MINE, MD_CAR, MD_FLAGS, MD_USED,
                     N_DIST, N_MOVES, N_SLOTS, N_SPOTS, PF_FS, PF_R0, PF_RULES, RK_FIRE0, RK_FIRE1, ST_ACTION,
                     ST_COUNTERMOVE, ST_DEPLOY, ST_REACT, ST_REACT_KIND, ST_SELECT, ST_TARGET, ST_CONSOLIDATE,
                     ST_MELEE_TARGET, ST_MELEE_WEAPON, WP_RATE, WP_RULES, WR_FRAG, WR_THROWN, G_NREACT, ST_BANK,
                     BK_KIND, BK_ROLLER, BK_SLOT, TK_ABILITY, TK_ARMOUR, TK_COMMAND, TK_FLIGHT, TK_PINNING, TK_SHIELD,
                     TK_SUPPRESSION, TK_CHARGE, TK_DUEL, BK_WOUNDS, ROLLER_NONE, ST_FACING, G_FACE_MOVE)
from .relations import facing_toward_goal, mover, off_goal, stand_off, wanted_stand
from .rules import step_game
from .layout import G_DONE, config_view, state_view

RANDOM, SCRIPTED = loops.RANDOM, loops.SCRIPTED
POLICIES = {"random": RANDOM, "scripted": SCRIPTED}


@kernel(cache=True)
def best_move(s, cfg, b, side, i, mask, base, half, flying):
    """The legal move ending nearest where the model wants to stand (relations.wanted_stand),
    facing its goal on ties."""
    gx, gy, want = wanted_stand(s, cfg, b, side, i)
    allow = _movement.move_allowance(s, cfg, b, side, i, flying, half)
    best, best_v = -1, 1e9
    for c in range(N_MOVES):
        if not mask[base + c]:
            continue
        nx, ny, a, _d = _movement.move_target(s, b, side, i, c, allow)
        v = off_goal(gx, gy, want, nx, ny)
        # face the goal at the end: prefer directions pointing at it
        v += 0.01 * abs(math.atan2(math.sin(math.atan2(gy - ny, gx - nx) - a), math.cos(math.atan2(gy - ny, gx - nx) - a)))
        if v < best_v:
            best, best_v = base + c, v
    return best


@kernel(cache=True)
def best_facing(s, cfg, b, me):
    """Option facing="choose" (stage ST_FACING): end the move facing the goal it walks toward
    (relations.goal_point: the nearest enemy, an objective, ...), seen from where the move ends."""
    side, i, allow, _fly = mover(s, cfg, b, me)
    mv = s.g[b, G_FACE_MOVE]
    x, y, _a, _d = _movement.move_target(s, b, side, i, mv, allow)
    return facing_toward_goal(s, cfg, b, side, i, x, y, mv // (N_DIST + 1))


@kernel(cache=True)
def fire_value(s, cfg, b, side, i, ak, tj):
    ts = 1 - s.g[b, G_ACTIVE]
    w = 0 if ak == AK_FIRE0 else 1
    wpn = cfg.pf[s.md[b, side, i, 0], PF_R0 + w]
    return cfg.wp[wpn, WP_RATE] * 10 - wounds_left(s, cfg, b, ts, tj)


@kernel(cache=True)
def fire_at_a_model(s, cfg, b, side, i, ak):
    """A fire action with an enemy model to shoot at: the bot throws at a point only to hit
    models, never at an empty table (DA LANCIO)."""
    if _actions.kind_reason(s, cfg, b, side, i, ak) != 0:
        return False
    ts = _actions.target_side(s, b, side, ak)
    for j in range(N_SLOTS):
        if _actions.target_reason(s, cfg, b, side, i, ak, ts, j) == 0:
            return True
    return False


@kernel(cache=True)
def has_fire(s, cfg, b, side, i):
    for ak in (AK_FIRE0, AK_FIRE1):
        if fire_at_a_model(s, cfg, b, side, i, ak):
            return True
    return False


@kernel(cache=True)
def blast_score(s, cfg, b, ts, px, py, tj):
    """FRAMMENTAZIONE: enemies (side ``ts``) caught by a blast of 3 cm around the point (or, with
    ``tj`` >= 0, around model ``tj``'s base) minus twice the other side's models caught."""
    v = 0
    for os in range(2):
        for j in range(N_SLOTS):
            if not on_table(s, b, os, j):
                continue
            if tj >= 0:
                caught = (os == ts and j == tj) or model_distance(s, cfg, b, ts, tj, os, j) <= _shooting.FRAG_RADIUS
            else:
                caught = math.hypot(s.pos[b, os, j, 0] - px, s.pos[b, os, j, 1] - py) - radius(s, cfg, b, os, j) \
                    <= _shooting.FRAG_RADIUS
            if caught:
                v += 1 if os == ts else -2
    return v


@kernel(cache=True)
def best_blast_point(s, cfg, b, side, i, ak, mask, best, best_target):
    """DA LANCIO with FRAMMENTAZIONE: a lattice point whose 3 cm blast catches more enemy models
    (and no more allies) than the blast around the chosen target model; else ``best``."""
    w = 0 if ak == AK_FIRE0 else 1
    wpn = cfg.pf[s.md[b, side, i, 0], PF_R0 + w]
    rules = cfg.wp[wpn, WP_RULES]
    if not (rules & WR_THROWN) or not (rules & WR_FRAG):
        return best
    ts = _actions.target_side(s, b, side, ak)
    k = cfg.k
    best_v = blast_score(s, cfg, b, ts, 0.0, 0.0, best_target) if best_target >= 0 else 0
    for c in range(N_MOVES):
        if not mask[k[K_A_MOVE] + c]:
            continue
        px, py = _shooting.throw_point(s, cfg, b, side, i, wpn, c)
        v = blast_score(s, cfg, b, ts, px, py, -1)
        if v > best_v:
            best, best_v = k[K_A_MOVE] + c, v
    return best


@kernel(cache=True)
def bank_worth_spending(s, cfg, b, me):
    """ESPLORAZIONE: spend to save one's own model or army (a failed command, suppression,
    pinning or flight test, a failed shield or armour roll that would put it out of combat) or
    to make one's charge reach; spend to make an enemy ability (its test or its mental duel),
    suppression or command test fail, or an enemy charge fall short; keep the points otherwise
    (to-hit dice, one's own failed ability test or duel, an enemy pinning, roll-offs, the
    game's own rolls and the rest)."""
    kind = s.bk[b, BK_KIND]
    roller = s.bk[b, BK_ROLLER]
    if roller == ROLLER_NONE:
        return False
    if roller == me:
        if kind == TK_SHIELD or kind == TK_ARMOUR:
            # a failed protection roll that would put the model out of combat (LE FERITE), by
            # its wounds when it rolled (the state shown is the step's start)
            return s.bk[b, BK_WOUNDS] + 1 >= stat(s, cfg, b, me, s.bk[b, BK_SLOT], PF_FS)
        return kind == TK_COMMAND or kind == TK_SUPPRESSION or kind == TK_PINNING or kind == TK_FLIGHT or \
            kind == TK_CHARGE
    return kind == TK_ABILITY or kind == TK_DUEL or kind == TK_SUPPRESSION or kind == TK_COMMAND or \
        kind == TK_CHARGE


@kernel(cache=True)
def scripted_action(s0, cfg0, b, mask):
    s, cfg = state_view(s0), config_view(cfg0)
    k = cfg.k
    st = s.g[b, G_STAGE]
    me = s.g[b, G_DECIDER]
    if st == ST_SELECT:
        # shooters first, then chargers, then anyone who has not moved
        for pass_ in range(3):
            for i in range(N_SLOTS):
                if not mask[k[K_A_MODEL] + i]:
                    continue
                if pass_ == 0 and has_fire(s, cfg, b, me, i):
                    return k[K_A_MODEL] + i
                if pass_ == 1 and _actions.action_reason(s, cfg, b, me, i, AK_CHARGE) == 0 \
                        and stand_off(s, cfg, b, me, i) == 0.0:
                    return k[K_A_MODEL] + i
                if pass_ == 2 and not (s.md[b, me, i, MD_USED] & 1) and s.md[b, me, i, MD_CAR] >= 1 \
                        and not (stat(s, cfg, b, me, i, PF_RULES) & 128):
                    return k[K_A_MODEL] + i
        for i in range(N_SLOTS):
            if mask[k[K_A_THEIR] + i]:
                return k[K_A_THEIR] + i     # the enemy model under CONTROLLO
        return k[K_A_PASS]
    if st == ST_ACTION:
        side, i = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
        base = k[K_A_ACT]
        if side == me and (s.md[b, side, i, MD_FLAGS] & F_SUPPRESSED or
                           exhausted(s, cfg, b, side, i)) and mask[base + AK_RECOVER]:
            return base + AK_RECOVER
        for ak in (AK_GENIO, AK_CONTROLLO):
            if mask[base + ak] and side == me:
                return base + ak
        if mask[base + AK_CHARGE] and stand_off(s, cfg, b, side, i) == 0.0:
            return base + AK_CHARGE
        best, best_rate = -1, -1
        for ak in (AK_FIRE0, AK_FIRE1):
            if mask[base + ak] and fire_at_a_model(s, cfg, b, side, i, ak):
                wpn = cfg.pf[s.md[b, side, i, 0], PF_R0 + (0 if ak == AK_FIRE0 else 1)]
                if cfg.wp[wpn, WP_RATE] > best_rate:
                    best, best_rate = base + ak, cfg.wp[wpn, WP_RATE]
        if best >= 0:
            return best
        if mask[base + AK_CHARGE]:
            return base + AK_CHARGE
        for ak in (AK_RICHIAMO, AK_AID, AK_SEGNALATORE):
            if mask[base + ak]:
                return base + ak
        if mask[base + AK_FLY]:
            return base + AK_FLY
        if mask[base + AK_MOVE]:
            return base + AK_MOVE
        if mask[base + AK_HIDE]:
            return base + AK_HIDE
        if mask[base + AK_RECOVER]:
            return base + AK_RECOVER
        a = first_legal(mask, base, base + 20)
        return a
    if st == ST_TARGET:
        side, i, ak = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR], s.g[b, G_ACT]
        if ak == AK_MOVE or ak == AK_FLY:
            return best_move(s, cfg, b, side, i, mask, k[K_A_MOVE], False, ak == AK_FLY)
        if ak == AK_FIRE0 or ak == AK_FIRE1:
            best, best_v = -1, -1e9
            for j in range(N_SLOTS):
                if mask[k[K_A_THEIR] + j]:
                    v = fire_value(s, cfg, b, side, i, ak, j)
                    if v > best_v:
                        best, best_v = k[K_A_THEIR] + j, v
            best = best_blast_point(s, cfg, b, side, i, ak, mask, best, best - k[K_A_THEIR] if best >= 0 else -1)
            if best < 0:
                best = first_legal(mask, k[K_A_MOVE], k[K_A_MOVE] + N_MOVES)
            return best
        if ak == AK_CHARGE:
            best, best_d = -1, 1e9
            ts = 1 - s.g[b, G_ACTIVE]
            for j in range(N_SLOTS):
                if mask[k[K_A_THEIR] + j]:
                    d = model_distance(s, cfg, b, side, i, ts, j)
                    if d < best_d:
                        best, best_d = k[K_A_THEIR] + j, d
            return best
        a = first_legal(mask, k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS)
        if a < 0:
            a = first_legal(mask, k[K_A_MINE], k[K_A_MINE] + N_SLOTS)
        return a
    if st == ST_REACT:
        if s.g[b, G_NREACT] >= 2:
            return k[K_A_PASS]
        # reaction fire: free reactors first, then any that keeps 2 points
        for free_only in (True, False):
            for j in range(N_SLOTS):
                if not mask[k[K_A_MODEL] + j]:
                    continue
                free = _reactions.reaction_cost(s, cfg, b, me, j) == 0
                if free_only and not free:
                    continue
                for rk in (RK_FIRE0, RK_FIRE1):
                    if _reactions.reaction_reason(s, cfg, b, me, j, rk) == 0:
                        return k[K_A_MODEL] + j
        return k[K_A_PASS]
    if st == ST_REACT_KIND:
        j = s.g[b, G_RSLOT]
        best, best_rate = -1, -1
        for rk in (RK_FIRE0, RK_FIRE1):
            if mask[k[K_A_REACT] + rk]:
                wpn = cfg.pf[s.md[b, me, j, 0], PF_R0 + (rk - RK_FIRE0)]
                if cfg.wp[wpn, WP_RATE] > best_rate:
                    best, best_rate = k[K_A_REACT] + rk, cfg.wp[wpn, WP_RATE]
        if best >= 0:
            return best
        return first_legal(mask, k[K_A_REACT], k[K_A_REACT] + 7)
    if st == ST_COUNTERMOVE:
        return best_move(s, cfg, b, me, s.g[b, G_RSLOT], mask, k[K_A_MOVE], True, False)
    if st == ST_CONSOLIDATE:
        return k[K_A_PASS]     # winners hold their ground
    if st == ST_FACING:
        return k[K_A_MOVE] + best_facing(s, cfg, b, me) * (N_DIST + 1)
    if st == ST_MELEE_TARGET:
        # LA MISCHIA: the enemy in contact with the fewest wounds left
        j = _melee.best_melee_target(s, cfg, b, s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR])
        if j >= 0:
            return k[K_A_THEIR] + j
    if st == ST_MELEE_WEAPON:
        # ... with its best melee weapon (POTENZIATA, then MONOMOLECOLARE)
        w = _melee.best_melee_weapon_slot(s, cfg, b, s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR])
        if w >= 0:
            return k[K_A_CHOICE] + w
    if st == ST_BANK:
        return k[K_A_CHOICE] if bank_worth_spending(s, cfg, b, me) else k[K_A_PASS]
    if st == ST_DEPLOY:
        # the legal spot nearest the middle of the table's width, spread by slot
        best, best_v = -1, 1e9
        for sp in range(N_SPOTS):
            if mask[k[K_A_SPOT] + sp]:
                v = abs(cfg.spots[sp, 0] - 60.0) + 0.01 * cfg.spots[sp, 1] * (1 if me == 0 else -1)
                if v < best_v:
                    best, best_v = k[K_A_SPOT] + sp, v
        if best >= 0:
            return best
        return k[K_A_PASS]
    a = first_legal(mask, k[K_A_CHOICE], k[K_A_CHOICE] + 5)
    if a >= 0:
        return a
    return first_legal(mask, 0, mask.shape[0])


LOOPS = specialise_loops("union_wars", step_game, scripted_action, G_DONE, G_DECIDER,
                         sources=(_rules, _actions, _bank, _battle, _general, _melee, _movement, _psychology, _reactions,
                                  _shooting, _sight, _relations, sys.modules[__name__]),
                         policies=POLICIES)
play_turns, play_games, policy_actions, play = LOOPS.play_turns, LOOPS.play_games, LOOPS.policy_actions, LOOPS.play
policy_action = LOOPS.policy_action   # one game's built-in policy (serve.session calls it directly)
