"""Every decision of a player, one function per action family: ``decide(s, cfg, b, a, apply)``
returns the reason code (0 = legal) and, with ``apply``, carries the decision out, so that the mask,
the step's own check and the env's error message can never disagree.
"""
from __future__ import annotations

import math

from ..core.kernel import kernel
from .actions import (ACTION_TARGET, TARGET_MINE, TARGET_MOVE, TARGET_NONE, action_reason as declare_reason, any_action,
                      is_controlled, target_reason, target_side, tire)
from .bank import bank_may_ask, record_answer, restore_snapshot, start_recording, take_snapshot
from .battle import base_piece_ok, edge_is_low, objective_reason, spot_reason
from .layout import *  # noqa: F401,F403  (the named columns and codes)
from .melee import melee_target_reason, melee_weapon_reason, update_engagement
from .movement import consolidate_reason, direction_angle, execute_move, move_reason, move_target, place
from .reactions import declare_reaction, reaction_group, reaction_reason, reactor_can, reactor_reason, stacking_reason
from .shooting import point_fire_reason
from .turn import end_tactical, melee_resume, next_consolidation
from .deployment import (OPT_NIGHT_CHOOSE, OPT_NIGHT_ON, after_mission, after_side, deploy_continue, deployment_order,
                         next_to_deploy, start_battle)
from .action_sequence import any_reactor, declare_action, resolve


@kernel(cache=True)
def decide(s, cfg, b, a, apply):
    """Reason code of action ``a`` in game ``b`` (0 = legal); with ``apply`` also play it."""
    if s.g[b, G_DONE]:
        return R_GAME_OVER
    k = cfg.k
    if a < 0 or a >= k[K_N_ACTIONS]:
        return R_NO_SUCH_ACTION
    code = stage_reason(s, cfg, b, a)
    if code != OK:
        return code
    st = s.g[b, G_STAGE]
    me = s.g[b, G_DECIDER]
    if st == ST_BANK:
        return bank_answer_reason(s, cfg, b, a)     # applied by play (a replay of the step)
    if a >= k[K_A_PASS]:
        return _pass(s, cfg, b, st, me, apply)
    if a >= k[K_A_REACT]:
        return _react_kind(s, cfg, b, st, me, a - k[K_A_REACT], apply)
    if a >= k[K_A_CHOICE]:
        return _choice(s, cfg, b, st, me, a - k[K_A_CHOICE], apply)
    if a >= k[K_A_PIECE]:
        return _piece(s, cfg, b, st, me, a - k[K_A_PIECE], apply)
    if a >= k[K_A_SPOT]:
        return _spot(s, cfg, b, st, me, a - k[K_A_SPOT], apply)
    if a >= k[K_A_MOVE]:
        return _move(s, cfg, b, st, me, a - k[K_A_MOVE], apply)
    if a >= k[K_A_MINE]:
        return _target(s, cfg, b, st, me, a - k[K_A_MINE], apply)
    if a >= k[K_A_THEIR]:
        if st == ST_MELEE_TARGET:
            return _melee_target(s, cfg, b, me, a - k[K_A_THEIR], apply)
        if st == ST_SELECT:
            return _select(s, cfg, b, st, me, 1 - me, a - k[K_A_THEIR], apply)
        return _target(s, cfg, b, st, me, a - k[K_A_THEIR], apply)
    if a >= k[K_A_ACT]:
        return _action_kind(s, cfg, b, st, me, a - k[K_A_ACT], apply)
    if st == ST_REACT:
        return _reactor(s, cfg, b, me, a - k[K_A_MODEL], apply)
    return _select(s, cfg, b, st, me, me, a - k[K_A_MODEL], apply)


@kernel(cache=True)
def stage_ranges(s, cfg, b):
    """RULES.md "Actions": the action families the stage allows, as three ranges [lo, hi) of action
    ids (an unused one empty).  Asked by ``decide`` before any family's own condition and by the
    mask for its candidates, so that the stage table is stated once."""
    k = cfg.k
    st = s.g[b, G_STAGE]
    if st == ST_SELECT:
        return (k[K_A_MODEL], k[K_A_MODEL] + N_SLOTS, k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS,
                k[K_A_PASS], k[K_A_PASS] + 1)
    if st == ST_ACTION:
        return k[K_A_ACT], k[K_A_ACT] + N_AK, 0, 0, 0, 0
    if st == ST_TARGET:
        ak = s.g[b, G_ACT]
        kind = ACTION_TARGET[ak]
        if kind == TARGET_MOVE:
            return k[K_A_MOVE], k[K_A_MOVE] + N_MOVES, 0, 0, 0, 0
        if kind == TARGET_MINE:
            return k[K_A_MINE], k[K_A_MINE] + N_SLOTS, 0, 0, 0, 0
        if ak == AK_FIRE0 or ak == AK_FIRE1:   # an enemy model, or DA LANCIO: a point
            return k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS, k[K_A_MOVE], k[K_A_MOVE] + N_MOVES, 0, 0
        return k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS, 0, 0, 0, 0
    if st == ST_REACT:
        return k[K_A_MODEL], k[K_A_MODEL] + N_SLOTS, k[K_A_PASS], k[K_A_PASS] + 1, 0, 0
    if st == ST_REACT_KIND:
        return k[K_A_REACT], k[K_A_REACT] + N_RK, 0, 0, 0, 0
    if st == ST_MELEE_TARGET:
        return k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS, 0, 0, 0, 0
    if st == ST_FACING or st == ST_COUNTERMOVE:
        return k[K_A_MOVE], k[K_A_MOVE] + N_MOVES, 0, 0, 0, 0
    if st == ST_CONSOLIDATE:
        return k[K_A_MOVE], k[K_A_MOVE] + N_MOVES, k[K_A_PASS], k[K_A_PASS] + 1, 0, 0
    if st == ST_DEPLOY:
        return k[K_A_SPOT], k[K_A_SPOT] + N_SPOTS, k[K_A_PASS], k[K_A_PASS] + 1, 0, 0
    if st == ST_OBJECTIVE:
        return k[K_A_SPOT], k[K_A_SPOT] + N_SPOTS, 0, 0, 0, 0
    if st == ST_BASE:
        return k[K_A_PIECE], k[K_A_PIECE] + T_MAX, 0, 0, 0, 0
    if st == ST_BANK:
        return k[K_A_CHOICE], k[K_A_CHOICE] + N_CHOICES, k[K_A_PASS], k[K_A_PASS] + 1, 0, 0
    if (st == ST_MISSION or st == ST_SIDE or st == ST_DEPLOY_ORDER or st == ST_INITIATIVE or st == ST_NIGHT
            or st == ST_MELEE_WEAPON):
        return k[K_A_CHOICE], k[K_A_CHOICE] + N_CHOICES, 0, 0, 0, 0
    return 0, 0, 0, 0, 0, 0     # ST_OVER: nothing


@kernel(cache=True, inline="always")
def stage_reason(s, cfg, b, a):
    """OK if action ``a``'s family is one the stage allows (``stage_ranges``); else the bank's own
    refusal at its question (it names ESPLORAZIONE), R_WRONG_STAGE at any other stage."""
    lo0, hi0, lo1, hi1, lo2, hi2 = stage_ranges(s, cfg, b)
    if lo0 <= a < hi0 or lo1 <= a < hi1 or lo2 <= a < hi2:
        return OK
    return R_BANK_ANSWER if s.g[b, G_STAGE] == ST_BANK else R_WRONG_STAGE


@kernel(cache=True)
def bank_answer_reason(s, cfg, b, a):
    """ESPLORAZIONE (stage ST_BANK): pass keeps the points; a roll that passes or fails: choice 0
    spends the points shown; an amount roll: choice c spends c + 1 points, at most the points
    shown.  The question is asked only when the bank holds them (bank.py), so all are legal."""
    if a == cfg.k[K_A_PASS]:
        return OK
    c = a - cfg.k[K_A_CHOICE]
    if c == 0 or (0 < c < s.bk[b, BK_NEED] and s.bk[b, BK_KIND] >= TK_FIRST_AMOUNT):
        return OK
    return R_BANK_ANSWER


@kernel(inline="always")  # into the step (one caller): no compiled copy of its own
def replay_step(s, cfg, b):
    """Play the step's action from its start with the bank decisions recorded so far; at the
    first bank-eligible roll with no decision, go back to the start and ask its owner."""
    s.bk[b, BK_EVENT] = 0
    s.bk[b, BK_PENDING] = 0
    s.bk[b, BK_SPENT0] = 0
    s.bk[b, BK_SPENT1] = 0
    s.bk[b, BK_RECORDING] = 1
    code = decide(s, cfg, b, s.bk[b, BK_ACTION], True)
    s.bk[b, BK_RECORDING] = 0
    if code == OK and s.bk[b, BK_PENDING]:
        restore_snapshot(s, b)
        s.g[b, G_STAGE] = ST_BANK
        s.g[b, G_DECIDER] = s.bk[b, BK_OWNER]   # may be the non-active player, as with reactions
    return code


@kernel(inline="always")  # into the step (one caller): no compiled copy of its own
def play(s, cfg, b, a):
    """decide(apply=True) with the ESPLORAZIONE bank's questions (bank.py: snapshot and replay).
    Without "ask" or with both banks empty the step is played as it is, nothing kept."""
    if s.g[b, G_STAGE] == ST_BANK and not s.g[b, G_DONE]:
        code = decide(s, cfg, b, a, False)
        if code != OK:
            return code
        record_answer(s, b, 0 if a == cfg.k[K_A_PASS] else a - cfg.k[K_A_CHOICE] + 1)
        restore_snapshot(s, b)
        return replay_step(s, cfg, b)
    if not bank_may_ask(s, cfg, b):
        return decide(s, cfg, b, a, True)
    take_snapshot(s, b)
    start_recording(s, b, a)
    return replay_step(s, cfg, b)


@kernel(cache=True)
def _select(s, cfg, b, st, me, side, i, apply):
    if side != me and not is_controlled(s, b, side, i):
        return R_CANNOT_ACT
    if not any_action(s, cfg, b, side, i):
        return R_CANNOT_ACT
    if apply:
        s.g[b, G_ACTOR] = i
        s.g[b, G_ACTOR_SIDE] = side
        s.g[b, G_STAGE] = ST_ACTION
    return OK


@kernel(cache=True)
def _action_kind(s, cfg, b, st, me, ak, apply):
    if ak >= N_AK:
        return R_NO_SUCH_ACTION
    code = declare_reason(s, cfg, b, s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR], ak)
    if code != OK or not apply:
        return code
    s.g[b, G_ACT] = ak
    s.g[b, G_TGT] = -1
    s.g[b, G_MOVE] = 0
    s.g[b, G_FACE_DIR] = 0
    if ACTION_TARGET[ak] == TARGET_NONE:
        declare_action(s, cfg, b)
    else:
        s.g[b, G_STAGE] = ST_TARGET
    return OK


@kernel(cache=True)
def _target(s, cfg, b, st, me, j, apply):
    ak = s.g[b, G_ACT]     # stage_ranges: an enemy or own model as this action's target names it
    side, i = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    code = target_reason(s, cfg, b, side, i, ak, target_side(s, b, side, ak), j)
    if code != OK or not apply:
        return code
    s.g[b, G_TGT] = j
    declare_action(s, cfg, b)
    return OK


@kernel(cache=True)
def _move(s, cfg, b, st, me, choice, apply):
    if st == ST_TARGET:
        ak = s.g[b, G_ACT]
        side, i = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
        if ak == AK_FIRE0 or ak == AK_FIRE1:
            # DA LANCIO: a point of the movement lattice (RULES.md); G_TGT -1 marks a point
            code = point_fire_reason(s, cfg, b, side, i, 0 if ak == AK_FIRE0 else 1, choice)
            if code != OK or not apply:
                return code
            s.g[b, G_TGT] = -1
            s.g[b, G_MOVE] = choice
            declare_action(s, cfg, b)
            return OK
        code = move_reason(s, cfg, b, side, i, choice, ak == AK_FLY, False)   # a moving action
        if code != OK or not apply:
            return code
        s.g[b, G_MOVE] = choice
        if facing_asked(cfg, choice):
            ask_facing(s, b, FACE_ACTION, choice)
            return OK
        declare_action(s, cfg, b)
        return OK
    if st == ST_CONSOLIDATE:
        j = s.g[b, G_RSLOT]
        code = consolidate_reason(s, cfg, b, me, j, choice, float(s.g[b, G_CONSOL]))
        if code != OK or not apply:
            return code
        if facing_asked(cfg, choice):
            ask_facing(s, b, FACE_CONSOLIDATION, choice)
            return OK
        consolidate(s, cfg, b, me, j, choice, -1)
        return OK
    if st == ST_COUNTERMOVE:
        j = s.g[b, G_RSLOT]
        code = move_reason(s, cfg, b, me, j, choice, False, True)
        if code != OK or not apply:
            return code
        if facing_asked(cfg, choice):
            ask_facing(s, b, FACE_COUNTERMOVE, choice)
            return OK
        counter_move(s, cfg, b, me, j, choice, -1)
        return OK
    # ST_FACING, the last stage stage_ranges gives the moves to.  MOVIMENTO "muovere ... e/o ruotare":
    # the facing at the end of the move, a rotate-only choice
    if choice % (N_DIST + 1) != 0:
        return R_FACING
    if not apply:
        return OK
    d = choice // (N_DIST + 1)
    kind = s.g[b, G_FACE]
    s.g[b, G_FACE] = FACE_NONE
    if kind == FACE_ACTION:
        s.g[b, G_FACE_DIR] = d + 1
        declare_action(s, cfg, b)
    elif kind == FACE_COUNTERMOVE:
        counter_move(s, cfg, b, me, s.g[b, G_RSLOT], s.g[b, G_FACE_MOVE], d)
    else:
        consolidate(s, cfg, b, me, s.g[b, G_RSLOT], s.g[b, G_FACE_MOVE], d)
    return OK


@kernel(cache=True, inline="always")
def facing_asked(cfg, choice):
    """Option facing="choose": a move that goes somewhere (not a rotation) asks the mover for the
    facing it ends with; "travel": it faces the way it went."""
    return not cfg.k[K_FACING_TRAVEL] and choice % (N_DIST + 1) != 0


@kernel(cache=True)
def ask_facing(s, b, kind, choice):
    """Stage ST_FACING: the same decider chooses the direction the model ends facing."""
    s.g[b, G_FACE] = kind
    s.g[b, G_FACE_MOVE] = choice
    s.g[b, G_STAGE] = ST_FACING


@kernel(cache=True)
def consolidate(s, cfg, b, side, j, choice, face):
    """LA MISCHIA: the winner (side, j) consolidates with move ``choice`` of the 2D6 cm, ending
    facing direction ``face`` (-1: the way it went); then the next winner."""
    x1, y1, f, _d = move_target(s, b, side, j, choice, float(s.g[b, G_CONSOL]))
    place(s, cfg, b, side, j, x1, y1, f if face < 0 else direction_angle(face))
    s.md[b, side, j, MD_FLAGS] &= ~F_WON
    next_consolidation(s, cfg, b)


@kernel(cache=True)
def counter_move(s, cfg, b, side, j, choice, face):
    """CONTROMOSSA: M/2 or a rotation, otherwise as MOVIMENTO; then the action's other reactions."""
    execute_move(s, cfg, b, side, j, choice, False, True, face)
    tire(s, cfg, b, side, j, reaction_group(RK_COUNTERMOVE))
    update_engagement(s, cfg, b)
    resolve(s, cfg, b, False)


@kernel(cache=True)
def _reactor(s, cfg, b, me, j, apply):
    if s.g[b, G_NREACT] >= MAX_REACT:
        return R_NOT_AVAILABLE
    if not reactor_can(s, cfg, b, me, j):
        code = reactor_reason(s, cfg, b, me, j)
        if code == OK:
            code = stacking_reason(s, b, j, -1)   # down after its A TERRA or RIPIEGARE (option "any")
        return code if code != OK else R_NOT_AVAILABLE
    if apply:
        s.g[b, G_RSLOT] = j
        s.g[b, G_STAGE] = ST_REACT_KIND
    return OK


@kernel(cache=True)
def _react_kind(s, cfg, b, st, me, rk, apply):
    if rk >= N_RK:
        return R_NO_SUCH_ACTION
    j = s.g[b, G_RSLOT]
    code = reaction_reason(s, cfg, b, me, j, rk)
    if code != OK or not apply:
        return code
    declare_reaction(s, cfg, b, me, j, rk, s.g[b, G_NREACT])
    s.g[b, G_NREACT] += 1
    if any_reactor(s, cfg, b):
        s.g[b, G_STAGE] = ST_REACT
    else:
        resolve(s, cfg, b, True)
    return OK


@kernel(cache=True)
def _pass(s, cfg, b, st, me, apply):
    if st == ST_SELECT:
        if apply:
            end_tactical(s, cfg, b)     # the active player ends the tactical phase
        return OK
    if st == ST_REACT:
        if apply:
            resolve(s, cfg, b, True)    # no (further) reactions
        return OK
    if st == ST_CONSOLIDATE:
        if apply:
            s.md[b, me, s.g[b, G_RSLOT], MD_FLAGS] &= ~F_WON   # stays where it is
            next_consolidation(s, cfg, b)
        return OK
    # ST_DEPLOY, the last stage stage_ranges gives the pass to (the bank's is decide's)
    side = me
    i = next_to_deploy(s, b, side)
    has_spot = any_spot(s, cfg, b, side, i)
    if s.g[b, G_RESERVE_PLACING]:
        if has_spot:
            return R_RESERVE_LIMIT
        if apply:
            s.md[b, side, i, MD_FLAGS] &= ~F_ENTERING   # nowhere to enter: stays in reserve
            deploy_continue(s, cfg, b)
        return OK
    kept = 0
    n = 0
    for j in range(N_SLOTS):
        if cfg.army[side, j] >= 0:
            n += 1
            if s.md[b, side, j, MD_FLAGS] & F_KEPT:
                kept += 1
    # LE RISERVE (option): "fino alla metà dei modelli"; a model with no legal spot stays out
    if has_spot and not (cfg.k[K_RESERVES] and kept + 1 <= n // 2):
        return R_RESERVE_LIMIT
    if apply:
        if cfg.k[K_RESERVES] and kept + 1 <= n // 2:
            s.md[b, side, i, MD_FLAGS] |= F_KEPT
        else:
            s.md[b, side, i, MD_STATUS] = ABSENT
        deploy_continue(s, cfg, b)
    return OK


@kernel(cache=True)
def any_spot(s, cfg, b, side, i):
    for sp in range(N_SPOTS):
        if spot_reason(s, cfg, b, side, i, cfg.spots[sp, 0], cfg.spots[sp, 1]) == OK:
            return True
    return False


@kernel(cache=True)
def _spot(s, cfg, b, st, me, sp, apply):
    x, y = cfg.spots[sp, 0], cfg.spots[sp, 1]
    if st == ST_DEPLOY:
        i = next_to_deploy(s, b, me)
        code = spot_reason(s, cfg, b, me, i, x, y)
        if code != OK or not apply:
            return code
        s.md[b, me, i, MD_STATUS] = ACTIVE
        s.md[b, me, i, MD_FLAGS] &= ~(F_ENTERING | F_KEPT)
        s.pos[b, me, i, 0] = x
        s.pos[b, me, i, 1] = y
        s.pos[b, me, i, 2] = math.pi / 2 if edge_is_low(s, b, me) else -math.pi / 2   # facing the enemy edge
        deploy_continue(s, cfg, b)
        return OK
    # ST_OBJECTIVE, the other stage stage_ranges gives the spots to
    code = objective_reason(s, cfg, b, x, y)
    if code != OK or not apply:
        return code
    q = s.g[b, G_OBJ_PLACED]
    s.objs[b, q, 0] = x
    s.objs[b, q, 1] = y
    s.objs[b, q, 2] = 1
    s.g[b, G_OBJ_PLACED] = q + 1
    if q + 1 >= s.g[b, G_NOBJ]:
        deployment_order(s, cfg, b)
    else:
        s.g[b, G_DECIDER] = 1 - me     # "alternandoti con il tuo avversario"
    return OK


@kernel(cache=True)
def _piece(s, cfg, b, st, me, t, apply):
    if t >= T_MAX or not base_piece_ok(s, b, me, t) or s.g[b, G_BASE0 + 1 - me] == t:
        return R_PIECE
    if apply:
        s.g[b, G_BASE0 + me] = t
        if s.g[b, G_BASE0 + 1 - me] < 0:
            s.g[b, G_DECIDER] = 1 - me
        else:
            deployment_order(s, cfg, b)
    return OK


@kernel(cache=True)
def _melee_target(s, cfg, b, me, j, apply):
    """LA MISCHIA: the attacker's owner chooses which enemy in contact it attacks."""
    side, i = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    code = melee_target_reason(s, cfg, b, side, i, j)
    if code != OK or not apply:
        return code
    s.md[b, side, i, MD_MELEE_TGT] = j
    melee_resume(s, cfg, b)
    return OK


@kernel(cache=True)
def _melee_weapon(s, cfg, b, me, w, apply):
    """LA MISCHIA: ... and with which of its melee weapons (choice 0 / 1 = weapon slot)."""
    side, i = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    code = melee_weapon_reason(s, cfg, b, side, i, w)
    if code != OK or not apply:
        return code
    s.md[b, side, i, MD_MELEE_WPN] = w
    melee_resume(s, cfg, b)
    return OK


@kernel(cache=True)
def _choice(s, cfg, b, st, me, c, apply):
    if st == ST_MELEE_WEAPON:
        return _melee_weapon(s, cfg, b, me, c, apply)
    n = 5 if st == ST_MISSION else 2     # stage_ranges: a set-up question
    if c >= n:
        return R_NO_SUCH_ACTION
    if not apply:
        return OK
    if st == ST_MISSION:
        s.g[b, G_MISSION] = c + 1
        after_mission(s, cfg, b)
    elif st == ST_SIDE:
        # "Il giocatore che vince sceglie in che lato schierare": 0 = the y = 0 edge, 1 = the far one
        s.g[b, G_EDGE0] = c if me == 0 else 1 - c
        after_side(s, cfg, b)
    elif st == ST_DEPLOY_ORDER:
        s.g[b, G_DEPLOYER] = me if c == 0 else 1 - me
        s.g[b, G_STAGE] = ST_DEPLOY
        deploy_continue(s, cfg, b)
    elif st == ST_INITIATIVE:
        s.g[b, G_FIRST] = me if c == 0 else 1 - me
        if cfg.k[K_NIGHT] == OPT_NIGHT_CHOOSE:
            s.g[b, G_STAGE] = ST_NIGHT    # LA NOTTE: the initiative winner chooses
        else:
            s.g[b, G_NIGHT] = 1 if cfg.k[K_NIGHT] == OPT_NIGHT_ON else 0
            start_battle(s, cfg, b)
    else:
        s.g[b, G_NIGHT] = c
        start_battle(s, cfg, b)
    return OK
