"""UnionWars as a decision machine: the turn sequence (TURNO DI GIOCO), setup (IN BATTAGLIA),
the legal-action mask, the observation and the batched entry points.

Every decision goes through ``decide(s, cfg, b, a, apply)``: with ``apply`` False it only
returns the reason code (0 = legal), so the mask, the step's own check and the env's error
message can never disagree.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..core.rng import draw_int, seed_stream
from .actions import (ACTION_TARGET, FATIGUE_GROUP, ABILITY_FAILED, TARGET_MINE, TARGET_MOVE, TARGET_NONE,
                      TARGET_THEIRS, ability_bit, ability_effect, ability_test, action_cost,
                      any_action, delegate, execute_action, is_controlled, mental_duel, pay, target_reason,
                      target_side, tire)
from .actions import action_reason as declare_reason
from .bank import bank_amount, bank_may_ask, record_answer, restore_snapshot, start_recording, take_snapshot
from .battle import (base_piece_ok, edge_is_low, final_result, generate_terrain, mission_score, objective_reason,
                     spot_reason, sudden_end)
from .general import (banked_roll_off, d6, game_test_d6, has_flag, is_active, on_table, roll_off, round_up, stat,
                      test_d6)
from .layout import *  # noqa: F401,F403  (the named columns and codes)
from .layout import (config_ref, outputs_ref, state_ref)
from .melee import melee_continue, melee_start, melee_target_reason, melee_weapon_reason, update_engagement
from .movement import (consolidate_reason, direction_angle, execute_move, move_reason, move_target,
                       pieces_in_reach, place)
from .relations import mover, write_action_table
from .psychology import choose_commander, command_test, command_test_needed, control_phase, losses
from .reactions import (reaction_group, apply_prone, declare_reaction, execute_reaction, reaction_kind_reason,
                        reaction_reason, reactor_can, reactor_reason, stacking_reason)
from .sight import forget_sight, reveal_hidden, sight_cache_mismatches
from .shooting import point_fire_reason

OPT_NIGHT_OFF, OPT_NIGHT_ON, OPT_NIGHT_CHOOSE = 0, 1, 2


# ----------------------------------------------------------------------------------------------
# setup: IN BATTAGLIA
# ----------------------------------------------------------------------------------------------
@nb.njit(cache=True)
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


@nb.njit(cache=True)
def scouts(cfg, side):
    n = 0
    for i in range(N_SLOTS):
        p = cfg.army[side, i]
        if p >= 0 and (cfg.pf[p, PF_RULES] & SR_SCOUT):
            n += 1
    return n


@nb.njit(cache=True)
def after_mission(s, cfg, b):
    generate_terrain(s, cfg, b)
    forget_sight(s, b)
    # ESPLORAZIONE: 1D6 + 1 per ESPLORATORE; the margin is a bank of bonus/malus points
    w, margin = roll_off(s, b, scouts(cfg, 0), scouts(cfg, 1))
    s.g[b, G_EXPLORE_WINNER] = w
    s.g[b, G_BANK0 + w] = margin
    s.g[b, G_STAGE] = ST_SIDE
    s.g[b, G_DECIDER] = w


@nb.njit(cache=True)
def after_side(s, cfg, b):
    w = s.g[b, G_EXPLORE_WINNER]
    m = s.g[b, G_MISSION]
    if m == M_OBJECTIVES:
        s.g[b, G_NOBJ] = 3 + (d6(s, b) + 1) // 2    # "3 + 1D3 obiettivi"
        s.g[b, G_OBJ_PLACED] = 0
        s.g[b, G_STAGE] = ST_OBJECTIVE
        s.g[b, G_DECIDER] = w
        return
    if m == M_BASES:
        if not (any_base_piece(s, b, 0) and any_base_piece(s, b, 1)):
            s.g[b, G_MISSION] = M_EXTERMINATION   # no scenic element to be a base: RULES.md
        else:
            s.g[b, G_STAGE] = ST_BASE
            s.g[b, G_DECIDER] = w
            return
    deployment_order(s, cfg, b)


@nb.njit(cache=True)
def any_base_piece(s, b, side):
    for t in range(T_MAX):
        if base_piece_ok(s, b, side, t) and s.g[b, G_BASE0 + 1 - side] != t:
            return True
    return False


@nb.njit(cache=True)
def deployment_order(s, cfg, b):
    """SCHIERAMENTO: roll-off; the winner decides to deploy first or second."""
    w = banked_roll_off(s, cfg, b, TK_ROLLOFF)
    s.g[b, G_STAGE] = ST_DEPLOY_ORDER
    s.g[b, G_DECIDER] = w


@nb.njit(cache=True)
def next_to_deploy(s, b, side):
    reserve = s.g[b, G_RESERVE_PLACING] != 0
    for i in range(N_SLOTS):
        if s.md[b, side, i, MD_STATUS] != RESERVE:
            continue
        f = s.md[b, side, i, MD_FLAGS]
        if reserve and (f & F_ENTERING):
            return i
        if not reserve and not (f & F_KEPT):
            return i
    return -1


@nb.njit(cache=True)
def deploy_continue(s, cfg, b):
    """Hand the deployment to whoever still has models to place, or start the battle."""
    reveal_hidden(s, cfg, b)    # a reserve placed near a hidden enemy finds it (AREA DI CONTROLLO)
    if s.g[b, G_RESERVE_PLACING]:
        if next_to_deploy(s, b, s.g[b, G_ACTIVE]) >= 0:
            return
        s.g[b, G_RESERVE_PLACING] = 0
        enter_tactical(s, cfg, b)
        return
    d = s.g[b, G_DEPLOYER]
    if next_to_deploy(s, b, d) >= 0:
        s.g[b, G_DECIDER] = d
        return
    if next_to_deploy(s, b, 1 - d) >= 0:
        s.g[b, G_DEPLOYER] = 1 - d
        s.g[b, G_DECIDER] = 1 - d
        return
    # INIZIATIVA: roll-off, the winner decides who starts
    w = banked_roll_off(s, cfg, b, TK_ROLLOFF)
    s.g[b, G_STAGE] = ST_INITIATIVE
    s.g[b, G_DECIDER] = w


@nb.njit(cache=True)
def start_battle(s, cfg, b):
    s.g[b, G_ACTIVE] = s.g[b, G_FIRST]
    s.g[b, G_TURN] = 0
    start_turn(s, cfg, b)


# ----------------------------------------------------------------------------------------------
# TURNO DI GIOCO
# ----------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def end_game(s, b, winner):
    s.g[b, G_WINNER] = winner
    s.g[b, G_DONE] = 1
    s.g[b, G_STAGE] = ST_OVER


@nb.njit(cache=True)
def check_sudden(s, cfg, b):
    w = sudden_end(s, cfg, b)
    if w >= 0:
        end_game(s, b, w)
        return True
    return False


@nb.njit(cache=True)
def start_turn(s, cfg, b):
    """LA FASE DI COMANDO, then the tactical phase."""
    if refresh_turn(s, cfg, b):
        command_phase_rolls(s, cfg, b)


@nb.njit(cache=True)
def refresh_turn(s, cfg, b):
    """The start of a player turn: commanders, charisma, this turn's memory.  Returns False if
    the game ended (a side has no model left)."""
    p = s.g[b, G_ACTIVE]
    for side in range(2):
        choose_commander(s, cfg, b, side)
        for i in range(N_SLOTS):
            # "ogni turno i punti carisma si rigenerano" (option charisma_refresh)
            if side == p or not cfg.k[K_CAR_REFRESH]:
                s.md[b, side, i, MD_CAR] = stat(s, cfg, b, side, i, PF_CAR)
            s.md[b, side, i, MD_USED] = 0
            s.md[b, side, i, MD_REACTED] = 0
        c = s.g[b, G_CMD0 + side]
        if c >= 0:
            s.md[b, side, c, MD_CMD_BONUS] = stat(s, cfg, b, side, c, PF_CARB)
    # AREA DI CONTROLLO: "i modelli nascosti entro tale area vengono individuati": a FLASHBANG that
    # ran out at the end of the turn gives an area back (RULES.md)
    reveal_hidden(s, cfg, b)
    return not check_sudden(s, cfg, b)


@nb.njit(cache=True)
def command_phase_rolls(s, cfg, b):
    """LA FASE DI COMANDO's rolls (the command test, the reserves), then the tactical phase."""
    p = s.g[b, G_ACTIVE]
    # IL TEST DI COMANDO
    if command_test_needed(s, b, p) and not command_test(s, cfg, b, p):
        end_game(s, b, 1 - p)
        return
    # LE RISERVE: 4+ to enter, placed in the deployment zone
    entering = False
    for i in range(N_SLOTS):
        if s.md[b, p, i, MD_STATUS] == RESERVE and (s.md[b, p, i, MD_FLAGS] & F_KEPT):
            if test_d6(s, cfg, b, p, i, 4, 0, TK_RESERVE):
                s.md[b, p, i, MD_FLAGS] |= F_ENTERING
                entering = True
    if entering:
        s.g[b, G_RESERVE_PLACING] = 1
        s.g[b, G_STAGE] = ST_DEPLOY
        s.g[b, G_DECIDER] = p
        return
    enter_tactical(s, cfg, b)


@nb.njit(cache=True)
def enter_tactical(s, cfg, b):
    s.g[b, G_STAGE] = ST_SELECT
    s.g[b, G_DECIDER] = s.g[b, G_ACTIVE]


@nb.njit(cache=True)
def final_phase(s, cfg, b):
    """LA FASE FINALE: remove the markers no longer needed."""
    t = s.g[b, G_TURN]
    for side in range(2):
        for i in range(N_SLOTS):
            f = s.md[b, side, i, MD_FLAGS]
            if (f & F_PRONE) and s.md[b, side, i, MD_PRONE_UNTIL] <= t:
                f &= ~F_PRONE
            f &= ~(F_AIMED | F_CONCENTRATED | F_RECOVERED | F_SATURATED | F_COVER | F_ENTERING | F_WON)
            s.md[b, side, i, MD_FLAGS] = f
    for q in range(MAX_SMOKE):
        # FUMOGENO: from the turn after it was placed, 4+ in the final phase clears it
        if s.smoke[b, q, 2] > 0 and s.smoke[b, q, 2] - 1 < t and game_test_d6(s, cfg, b, 4, TK_SMOKE):
            s.smoke[b, q, 2] = 0
    s.g[b, G_SEGN0] = 0
    s.g[b, G_SEGN1] = 0
    s.g[b, G_COORD0] = 0
    s.g[b, G_COORD1] = 0
    s.g[b, G_CONTROLLED] = -1   # CONTROLLO: "alla fine del turno il modello torna sotto il controllo"
    s.g[b, G_BONUS0] = 0
    s.g[b, G_BONUS1] = 0


@nb.njit(cache=True)
def end_tactical(s, cfg, b):
    """End of the tactical phase: LA FASE DI MISCHIA, DI CONTROLLO, FINALE, next turn."""
    melee_start(s, cfg, b)
    melee_resume(s, cfg, b)


@nb.njit(cache=True)
def melee_resume(s, cfg, b):
    """LA MISCHIA: fight until an attacker's owner chooses its target or weapon (stages *melee
    target* / *melee weapon*: the attacker is G_ACTOR_SIDE / G_ACTOR, its chosen target G_TGT),
    then the consolidations."""
    side, i, kind = melee_continue(s, cfg, b)
    if kind != 0:
        s.g[b, G_STAGE] = ST_MELEE_TARGET if kind == 1 else ST_MELEE_WEAPON
        s.g[b, G_DECIDER] = side
        s.g[b, G_ACTOR_SIDE] = side
        s.g[b, G_ACTOR] = i
        s.g[b, G_TGT] = s.md[b, side, i, MD_MELEE_TGT] if kind == 2 else -1
        return
    if check_sudden(s, cfg, b):
        return
    next_consolidation(s, cfg, b)


@nb.njit(cache=True)
def next_consolidation(s, cfg, b):
    """LA MISCHIA: each winner in turn (the active player's first) may consolidate 2D6 cm, then
    the control phase follows."""
    # the engagements ended (winners have a control area again) or a winner consolidated: hidden
    # models inside an area "vengono individuati" (AREA DI CONTROLLO)
    reveal_hidden(s, cfg, b)
    for k in range(2):
        side = s.g[b, G_ACTIVE] if k == 0 else 1 - s.g[b, G_ACTIVE]
        for i in range(N_SLOTS):
            if (s.md[b, side, i, MD_FLAGS] & F_WON) and (stat(s, cfg, b, side, i, PF_RULES) & SR_IMMOBILE):
                s.md[b, side, i, MD_FLAGS] &= ~F_WON   # IMMOBILE: "non può muovere" (no consolidation)
                continue
            if s.md[b, side, i, MD_FLAGS] & F_WON:
                # 2D6 cm, an amount roll the ESPLORAZIONE bank may move
                s.g[b, G_CONSOL] = bank_amount(s, cfg, b, side, i, TK_CONSOLIDATION, d6(s, b) + d6(s, b), True, 0)
                s.g[b, G_STAGE] = ST_CONSOLIDATE
                s.g[b, G_DECIDER] = side
                s.g[b, G_RSLOT] = i
                return
    s.g[b, G_RSLOT] = -1
    after_melee(s, cfg, b)


@nb.njit(cache=True)
def after_melee(s, cfg, b):
    control_phase(s, cfg, b, s.g[b, G_ACTIVE])
    if check_sudden(s, cfg, b):
        return
    final_phase(s, cfg, b)
    s.g[b, G_TURN] += 1
    if s.g[b, G_TURN] >= s.g[b, G_MAX_TURNS]:
        # IL TEMPO (option): 4+ and both players play another turn
        if cfg.k[K_TIME] and game_test_d6(s, cfg, b, 4, TK_TIME):
            s.g[b, G_MAX_TURNS] += 1 if cfg.k[K_TURNS_TOTAL] else 2
        else:
            end_game(s, b, final_result(s, cfg, b))
            return
    s.g[b, G_ACTIVE] = 1 - s.g[b, G_ACTIVE]
    start_turn(s, cfg, b)


# ----------------------------------------------------------------------------------------------
# an action and its reactions
# ----------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def any_reactor(s, cfg, b):
    rs = 1 - s.g[b, G_ACTIVE]
    if s.g[b, G_NREACT] >= MAX_REACT:
        return False
    for j in range(N_SLOTS):
        if reactor_can(s, cfg, b, rs, j):
            return True
    return False


@nb.njit(cache=True)
def declare_action(s, cfg, b):
    side, i, ak = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR], s.g[b, G_ACT]
    s.g[b, G_NREACT] = 0
    for j in range(N_SLOTS):
        s.md[b, 1 - s.g[b, G_ACTIVE], j, MD_REACTED] = 0
    s.geo[b, GEO_SHOT + 4] = 0
    if ak == AK_DELEGATE:
        # IL COMANDANTE's charisma is not one of LE AZIONI (actions.delegate_reason): nothing is paid,
        # revealed, used up or tired, and no reaction is asked
        delegate(s, b, side, i, s.g[b, G_TGT])
        finish_action(s, cfg, b)
        return
    pay(s, b, side, i, action_cost(s, cfg, b, side, i, ak))
    if has_flag(s, b, side, i, F_HIDDEN):
        # NASCOSTO: out of sight "fintanto che non dichiara un'azione o una reazione"
        s.md[b, side, i, MD_FLAGS] &= ~F_HIDDEN
        s.md[b, side, i, MD_FLAGS] |= F_FROM_HIDDEN
    if is_controlled(s, b, side, i):
        s.g[b, G_CONTROLLED] = -2   # its one free action is used
    if any_reactor(s, cfg, b):
        s.g[b, G_STAGE] = ST_REACT
        s.g[b, G_DECIDER] = 1 - s.g[b, G_ACTIVE]
        return
    resolve(s, cfg, b, True)


@nb.njit(cache=True)
def run_action(s, cfg, b):
    side, i, ak, tj = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR], s.g[b, G_ACT], s.g[b, G_TGT]
    ts = target_side(s, b, side, ak)
    rs = 1 - s.g[b, G_ACTIVE]
    # A TERRA first
    for k in range(s.g[b, G_NREACT]):
        if s.rq[b, k, 1] == RK_PRONE:
            apply_prone(s, cfg, b, rs, s.rq[b, k, 0])
    if ability_bit(ak):
        if ability_test(s, cfg, b, side, i):
            works = True
            if ak == AK_CONTROLLO:
                # DUELLO MENTALE of declared psionic reactors, and of the target itself
                for k in range(s.g[b, G_NREACT]):
                    if s.rq[b, k, 1] == RK_DUEL and is_active(s, b, rs, s.rq[b, k, 0]):
                        if not mental_duel(s, cfg, b, side, i, rs, s.rq[b, k, 0]):
                            works = False
                # the target's own duel ("ha diritto ad effettuare un duello mentale ... se dispone di
                # punti carisma"): free, no LA FATICA, and once: a target that declared DUELLO
                # MENTALE against this action has fought its duel (RULES.md)
                if works and s.md[b, ts, tj, MD_CAR] > 0 and not declared_duel(s, b, tj) and \
                        not mental_duel(s, cfg, b, side, i, ts, tj):
                    works = False
            if works:
                ability_effect(s, cfg, b, side, i, ak, ts, tj)
        else:
            # IL TEST DI ABILITA': "non puoi usare l'abilità e nemmeno provare a ripetere l'azione":
            # that ability, this turn (RULES.md)
            s.md[b, side, i, MD_USED] |= 1 << (ABILITY_FAILED + ak - AK_RICHIAMO)
        # CONCENTRAZIONE was for this ability; MIRA was for a fire "che esegue immediatamente dopo"
        s.md[b, side, i, MD_FLAGS] &= ~(F_CONCENTRATED | F_AIMED)
    else:
        execute_action(s, cfg, b, side, i, ak, ts, tj, s.g[b, G_MOVE])
    if ak != AK_CHARGE or not s.g[b, G_CHARGE_OK]:
        # "carica da nascosto": +1 in the melee that follows; a charge that falls short has none,
        # and the model's next action is not from hidden
        s.md[b, side, i, MD_FLAGS] &= ~F_FROM_HIDDEN
    if is_active(s, b, side, i) or s.md[b, side, i, MD_STATUS] == OOC:
        tire(s, cfg, b, side, i, FATIGUE_GROUP[ak])
    update_engagement(s, cfg, b)


@nb.njit(cache=True)
def declared_duel(s, b, j):
    """Did the reacting side's model j declare DUELLO MENTALE against the action being resolved?"""
    for k in range(s.g[b, G_NREACT]):
        if s.rq[b, k, 0] == j and s.rq[b, k, 1] == RK_DUEL:
            return True
    return False


@nb.njit(cache=True)
def resolve(s, cfg, b, first):
    """Run the declared action, then each reaction after it in declaration order; stop for a
    counter-move's destination (a decision of the reacting player)."""
    if first:
        run_action(s, cfg, b)
        s.g[b, G_CM_PTR] = 0
    rs = 1 - s.g[b, G_ACTIVE]
    while s.g[b, G_CM_PTR] < s.g[b, G_NREACT]:
        k = s.g[b, G_CM_PTR]
        s.g[b, G_CM_PTR] = k + 1
        j, rk = s.rq[b, k, 0], s.rq[b, k, 1]
        if rk == RK_PRONE or rk == RK_DUEL:
            if rk == RK_DUEL:
                tire(s, cfg, b, rs, j, reaction_group(rk))
            continue
        if rk == RK_COUNTERMOVE:
            # "al termine dell'azione avversaria": after a charge that reached, in base contact too
            # (declared before it; MOVIMENTO's 1 cm lets it leave the contact, RULES.md)
            if is_active(s, b, rs, j) and not has_flag(s, b, rs, j, F_PRONE):
                s.g[b, G_STAGE] = ST_COUNTERMOVE
                s.g[b, G_DECIDER] = rs
                s.g[b, G_RSLOT] = j
                return
            continue
        execute_reaction(s, cfg, b, rs, j, rk)
        update_engagement(s, cfg, b)
    finish_action(s, cfg, b)


@nb.njit(cache=True)
def finish_action(s, cfg, b):
    update_engagement(s, cfg, b)
    reveal_hidden(s, cfg, b)
    if check_sudden(s, cfg, b):
        return
    s.g[b, G_STAGE] = ST_SELECT
    s.g[b, G_DECIDER] = s.g[b, G_ACTIVE]
    s.g[b, G_RSLOT] = -1


# ----------------------------------------------------------------------------------------------
# decisions
# ----------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def decide(s, cfg, b, a, apply):
    """Reason code of action ``a`` in game ``b`` (0 = legal); with ``apply`` also play it."""
    if s.g[b, G_DONE]:
        return R_GAME_OVER
    k = cfg.k
    if a < 0 or a >= k[K_N_ACTIONS]:
        return R_NO_SUCH_ACTION
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
        return _target(s, cfg, b, st, me, a - k[K_A_MINE], True, apply)
    if a >= k[K_A_THEIR]:
        if st == ST_MELEE_TARGET:
            return _melee_target(s, cfg, b, me, a - k[K_A_THEIR], apply)
        if st == ST_SELECT:
            return _select(s, cfg, b, st, me, 1 - me, a - k[K_A_THEIR], apply)
        return _target(s, cfg, b, st, me, a - k[K_A_THEIR], False, apply)
    if a >= k[K_A_ACT]:
        return _action_kind(s, cfg, b, st, me, a - k[K_A_ACT], apply)
    if st == ST_REACT:
        return _reactor(s, cfg, b, me, a - k[K_A_MODEL], apply)
    return _select(s, cfg, b, st, me, me, a - k[K_A_MODEL], apply)


@nb.njit(cache=True)
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


@nb.njit(inline="always")  # into the step (one caller): no compiled copy of its own
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


@nb.njit(inline="always")  # into the step (one caller): no compiled copy of its own
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


@nb.njit(cache=True)
def _select(s, cfg, b, st, me, side, i, apply):
    if st != ST_SELECT:
        return R_WRONG_STAGE
    if side != me and not is_controlled(s, b, side, i):
        return R_CANNOT_ACT
    if not any_action(s, cfg, b, side, i):
        return R_CANNOT_ACT
    if apply:
        s.g[b, G_ACTOR] = i
        s.g[b, G_ACTOR_SIDE] = side
        s.g[b, G_STAGE] = ST_ACTION
    return OK


@nb.njit(cache=True)
def _action_kind(s, cfg, b, st, me, ak, apply):
    if st != ST_ACTION:
        return R_WRONG_STAGE
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


@nb.njit(cache=True)
def _target(s, cfg, b, st, me, j, mine, apply):
    if st != ST_TARGET:
        return R_WRONG_STAGE
    ak = s.g[b, G_ACT]
    kind = ACTION_TARGET[ak]
    if kind == TARGET_MOVE or kind == TARGET_NONE or (kind == TARGET_MINE) != mine:
        return R_NO_TARGET
    side, i = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    code = target_reason(s, cfg, b, side, i, ak, target_side(s, b, side, ak), j)
    if code != OK or not apply:
        return code
    s.g[b, G_TGT] = j
    declare_action(s, cfg, b)
    return OK


@nb.njit(cache=True)
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
        if ACTION_TARGET[ak] != TARGET_MOVE:
            return R_NO_TARGET
        code = move_reason(s, cfg, b, side, i, choice, ak == AK_FLY, False)
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
    if st == ST_FACING:
        # MOVIMENTO "muovere ... e/o ruotare": the facing at the end of the move, a rotate-only choice
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
    return R_WRONG_STAGE


@nb.njit(cache=True, inline="always")
def facing_asked(cfg, choice):
    """Option facing="choose": a move that goes somewhere (not a rotation) asks the mover for the
    facing it ends with; "travel": it faces the way it went."""
    return not cfg.k[K_FACING_TRAVEL] and choice % (N_DIST + 1) != 0


@nb.njit(cache=True)
def ask_facing(s, b, kind, choice):
    """Stage ST_FACING: the same decider chooses the direction the model ends facing."""
    s.g[b, G_FACE] = kind
    s.g[b, G_FACE_MOVE] = choice
    s.g[b, G_STAGE] = ST_FACING


@nb.njit(cache=True)
def consolidate(s, cfg, b, side, j, choice, face):
    """LA MISCHIA: the winner (side, j) consolidates with move ``choice`` of the 2D6 cm, ending
    facing direction ``face`` (-1: the way it went); then the next winner."""
    x1, y1, f, _d = move_target(s, b, side, j, choice, float(s.g[b, G_CONSOL]))
    place(s, cfg, b, side, j, x1, y1, f if face < 0 else direction_angle(face))
    s.md[b, side, j, MD_FLAGS] &= ~F_WON
    next_consolidation(s, cfg, b)


@nb.njit(cache=True)
def counter_move(s, cfg, b, side, j, choice, face):
    """CONTROMOSSA: M/2 or a rotation, otherwise as MOVIMENTO; then the action's other reactions."""
    execute_move(s, cfg, b, side, j, choice, False, True, face)
    tire(s, cfg, b, side, j, reaction_group(RK_COUNTERMOVE))
    update_engagement(s, cfg, b)
    resolve(s, cfg, b, False)


@nb.njit(cache=True)
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


@nb.njit(cache=True)
def _react_kind(s, cfg, b, st, me, rk, apply):
    if st != ST_REACT_KIND:
        return R_WRONG_STAGE
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


@nb.njit(cache=True)
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
    if st == ST_DEPLOY:
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
    return R_WRONG_STAGE


@nb.njit(cache=True)
def any_spot(s, cfg, b, side, i):
    for sp in range(N_SPOTS):
        if spot_reason(s, cfg, b, side, i, cfg.spots[sp, 0], cfg.spots[sp, 1]) == OK:
            return True
    return False


@nb.njit(cache=True)
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
    if st == ST_OBJECTIVE:
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
    return R_WRONG_STAGE


@nb.njit(cache=True)
def _piece(s, cfg, b, st, me, t, apply):
    if st != ST_BASE:
        return R_WRONG_STAGE
    if t >= T_MAX or not base_piece_ok(s, b, me, t) or s.g[b, G_BASE0 + 1 - me] == t:
        return R_PIECE
    if apply:
        s.g[b, G_BASE0 + me] = t
        if s.g[b, G_BASE0 + 1 - me] < 0:
            s.g[b, G_DECIDER] = 1 - me
        else:
            deployment_order(s, cfg, b)
    return OK


@nb.njit(cache=True)
def _melee_target(s, cfg, b, me, j, apply):
    """LA MISCHIA: the attacker's owner chooses which enemy in contact it attacks."""
    side, i = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    code = melee_target_reason(s, cfg, b, side, i, j)
    if code != OK or not apply:
        return code
    s.md[b, side, i, MD_MELEE_TGT] = j
    melee_resume(s, cfg, b)
    return OK


@nb.njit(cache=True)
def _melee_weapon(s, cfg, b, me, w, apply):
    """LA MISCHIA: ... and with which of its melee weapons (choice 0 / 1 = weapon slot)."""
    side, i = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    code = melee_weapon_reason(s, cfg, b, side, i, w)
    if code != OK or not apply:
        return code
    s.md[b, side, i, MD_MELEE_WPN] = w
    melee_resume(s, cfg, b)
    return OK


@nb.njit(cache=True)
def _choice(s, cfg, b, st, me, c, apply):
    if st == ST_MELEE_WEAPON:
        return _melee_weapon(s, cfg, b, me, c, apply)
    n = 5 if st == ST_MISSION else 2
    if st not in (ST_MISSION, ST_SIDE, ST_DEPLOY_ORDER, ST_INITIATIVE, ST_NIGHT):
        return R_WRONG_STAGE
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


# ----------------------------------------------------------------------------------------------
# mask
# ----------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def write_mask(s, cfg, b, mask):
    mask[:] = 0
    if s.g[b, G_DONE]:
        return
    k = cfg.k
    st = s.g[b, G_STAGE]
    lo = np.zeros(4, np.int64)
    hi = np.zeros(4, np.int64)
    n = 0
    if st == ST_SELECT:
        lo[0], hi[0] = k[K_A_MODEL], k[K_A_MODEL] + N_SLOTS
        lo[1], hi[1] = k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS
        lo[2], hi[2] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 3
    elif st == ST_ACTION:
        lo[0], hi[0] = k[K_A_ACT], k[K_A_ACT] + N_AK
        n = 1
    elif st == ST_TARGET:
        kind = ACTION_TARGET[s.g[b, G_ACT]]
        if kind == TARGET_MOVE:
            lo[0], hi[0] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES
        elif kind == TARGET_MINE:
            lo[0], hi[0] = k[K_A_MINE], k[K_A_MINE] + N_SLOTS
        else:
            lo[0], hi[0] = k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS
        n = 1
        if s.g[b, G_ACT] == AK_FIRE0 or s.g[b, G_ACT] == AK_FIRE1:
            lo[1], hi[1] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES   # DA LANCIO: a point
            n = 2
    elif st == ST_REACT:
        lo[0], hi[0] = k[K_A_MODEL], k[K_A_MODEL] + N_SLOTS
        lo[1], hi[1] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 2
    elif st == ST_REACT_KIND:
        lo[0], hi[0] = k[K_A_REACT], k[K_A_REACT] + N_RK
        n = 1
    elif st == ST_MELEE_TARGET:
        lo[0], hi[0] = k[K_A_THEIR], k[K_A_THEIR] + N_SLOTS
        n = 1
    elif st == ST_FACING:
        lo[0], hi[0] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES
        n = 1
    elif st == ST_COUNTERMOVE:
        lo[0], hi[0] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES
        n = 1
    elif st == ST_CONSOLIDATE:
        lo[0], hi[0] = k[K_A_MOVE], k[K_A_MOVE] + N_MOVES
        lo[1], hi[1] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 2
    elif st == ST_DEPLOY:
        lo[0], hi[0] = k[K_A_SPOT], k[K_A_SPOT] + N_SPOTS
        lo[1], hi[1] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 2
    elif st == ST_OBJECTIVE:
        lo[0], hi[0] = k[K_A_SPOT], k[K_A_SPOT] + N_SPOTS
        n = 1
    elif st == ST_BASE:
        lo[0], hi[0] = k[K_A_PIECE], k[K_A_PIECE] + T_MAX
        n = 1
    elif st == ST_BANK:
        lo[0], hi[0] = k[K_A_CHOICE], k[K_A_CHOICE] + N_CHOICES
        lo[1], hi[1] = k[K_A_PASS], k[K_A_PASS] + 1
        n = 2
    else:
        lo[0], hi[0] = k[K_A_CHOICE], k[K_A_CHOICE] + N_CHOICES
        n = 1
    if st == ST_DEPLOY:
        # the same test as decide -> _spot, with the model to place found once
        me = s.g[b, G_DECIDER]
        i = next_to_deploy(s, b, me)
        for sp in range(N_SPOTS):
            if spot_reason(s, cfg, b, me, i, cfg.spots[sp, 0], cfg.spots[sp, 1]) == OK:
                mask[k[K_A_SPOT] + sp] = 1
        if decide(s, cfg, b, k[K_A_PASS], False) == OK:
            mask[k[K_A_PASS]] = 1
        return
    if st == ST_COUNTERMOVE or st == ST_CONSOLIDATE or (st == ST_TARGET and ACTION_TARGET[s.g[b, G_ACT]] == TARGET_MOVE):
        # the same tests as decide -> _move, with the terrain pieces out of every path's reach left out
        side, i, allowance, flying = mover(s, cfg, b, s.g[b, G_DECIDER])
        half = st == ST_COUNTERMOVE
        near = pieces_in_reach(s, cfg, b, side, i, allowance)
        for c in range(N_MOVES):
            if st == ST_CONSOLIDATE:
                code = consolidate_reason(s, cfg, b, side, i, c, allowance, near)
            else:
                code = move_reason(s, cfg, b, side, i, c, flying, half, near)
            if code == OK:
                mask[k[K_A_MOVE] + c] = 1
        if st == ST_CONSOLIDATE and decide(s, cfg, b, k[K_A_PASS], False) == OK:
            mask[k[K_A_PASS]] = 1
        return
    if st == ST_REACT_KIND:
        # the same test as decide -> _react_kind, with the reactor's part (its sight lines) done once
        me, j = s.g[b, G_DECIDER], s.g[b, G_RSLOT]
        if reactor_reason(s, cfg, b, me, j) == OK:
            for rk in range(N_RK):
                if reaction_kind_reason(s, cfg, b, me, j, rk) == OK:
                    mask[k[K_A_REACT] + rk] = 1
        return
    for r in range(n):
        for a in range(lo[r], hi[r]):
            if decide(s, cfg, b, a, False) == OK:
                mask[a] = 1


# ----------------------------------------------------------------------------------------------
# observation (documented field by field in RULES.md "Osservazione")
# ----------------------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def _i8(v):
    return np.int8(max(-128, min(127, v)))


@nb.njit(cache=True)
def declared_target_side(s, b):
    """The side of the model G_TGT names while an action or a melee blow is under way (-1: no
    model is targeted now).  union_wars_v1 flagged that slot on both sides, and after the
    action had ended."""
    st = s.g[b, G_STAGE]
    if s.g[b, G_TGT] < 0:
        return -1
    if st == ST_MELEE_WEAPON:
        return 1 - s.g[b, G_ACTOR_SIDE]
    if st == ST_REACT or st == ST_REACT_KIND or st == ST_COUNTERMOVE or st == ST_BANK:
        return target_side(s, b, s.g[b, G_ACTOR_SIDE], s.g[b, G_ACT])
    return -1


@nb.njit(cache=True)
def write_obs(s, cfg, b, me, obs):
    obs[:] = 0
    relations = cfg.k[K_RELATIONS]
    target_of_declared = declared_target_side(s, b)
    for rel in range(2):
        side = me if rel == 0 else 1 - me
        for i in range(N_SLOTS):
            o = (rel * N_SLOTS + i) * N_MF
            st = s.md[b, side, i, MD_STATUS]
            f = s.md[b, side, i, MD_FLAGS]
            if st == ABSENT:
                continue
            if rel == 1 and (f & F_HIDDEN):
                continue   # hidden models stay hidden
            p = s.md[b, side, i, MD_PROFILE]
            obs[o + 0] = 1 if (st == ACTIVE or st == OOC) else (3 if st == REMOVED and relations else 2)
            obs[o + 1] = _i8(int(s.pos[b, side, i, 0] + 0.5))
            obs[o + 2] = _i8(int(s.pos[b, side, i, 1] + 0.5))
            obs[o + 3] = _i8(int(round(s.pos[b, side, i, 2] / (2 * math.pi) * N_DIRS)) % N_DIRS)
            obs[o + 4] = _i8(p)
            obs[o + 5] = _i8(st)
            obs[o + 6] = _i8(s.md[b, side, i, MD_WOUNDS])
            obs[o + 7] = _i8(cfg.pf[p, PF_FS])
            obs[o + 8] = _i8(s.md[b, side, i, MD_MORALE])
            obs[o + 9] = _i8(s.md[b, side, i, MD_FATIGUE])
            obs[o + 10] = _i8(s.md[b, side, i, MD_CAR])
            obs[o + 11] = 1 if f & F_HIDDEN else 0
            obs[o + 12] = 1 if f & F_ALERT else 0
            obs[o + 13] = 1 if f & F_PRONE else 0
            obs[o + 14] = 1 if f & F_SUPPRESSED else 0
            obs[o + 15] = 1 if f & F_ENGAGED else 0
            obs[o + 16] = 1 if s.g[b, G_CMD0 + side] == i else 0
            obs[o + 17] = 1 if (s.g[b, G_ACTOR] == i and s.g[b, G_ACTOR_SIDE] == side and s.g[b, G_STAGE] >= ST_ACTION) else 0
            if relations:
                obs[o + 18] = 1 if (s.g[b, G_TGT] == i and side == target_of_declared) else 0
            else:
                obs[o + 18] = 1 if (s.g[b, G_TGT] == i and s.g[b, G_STAGE] >= ST_REACT) else 0
            obs[o + 19] = _i8(cfg.pf[p, PF_M])
            obs[o + 20] = _i8(cfg.pf[p, PF_ADT])
            obs[o + 21] = _i8(cfg.pf[p, PF_ADM])
            obs[o + 22] = _i8(cfg.pf[p, PF_ARM])
            obs[o + 23] = _i8(cfg.pf[p, PF_SN])
            obs[o + 24] = _i8(s.md[b, side, i, MD_JAMMED])
            obs[o + 25] = _i8(cfg.pf[p, PF_RADIUS_MM])
            obs[o + 26] = 1 if is_controlled(s, b, side, i) else 0
            obs[o + 27] = _i8(s.md[b, side, i, MD_REACTED] + 2 * ((f & F_AIMED) != 0) + 4 * ((f & F_CONCENTRATED) != 0))
    base = 2 * N_SLOTS * N_MF
    for t in range(T_MAX):
        o = base + t * N_TF
        kind = s.tinfo[b, t, TI_KIND]
        if kind == T_NONE:
            continue
        obs[o] = _i8(kind)
        obs[o + 1] = _i8(s.tinfo[b, t, TI_HEIGHT])
        n = s.tinfo[b, t, TI_NVERT]
        cx = 0.0
        cy = 0.0
        for v in range(n):
            cx += s.terr[b, t, v, 0] / n
            cy += s.terr[b, t, v, 1] / n
        obs[o + 2] = _i8(int(cx + 0.5))
        obs[o + 3] = _i8(int(cy + 0.5))
        for v in range(4):
            obs[o + 4 + 2 * v] = _i8(int(s.terr[b, t, v, 0] + 0.5))
            obs[o + 5 + 2 * v] = _i8(int(s.terr[b, t, v, 1] + 0.5))
        e = s.tinfo[b, t, TI_EXPLORED]
        obs[o + 12] = 0 if e == 0 else (1 if e == me + 1 else 2)
        if s.g[b, G_BASE0 + me] == t:
            obs[o + 12] += 4
        if s.g[b, G_BASE0 + 1 - me] == t:
            obs[o + 12] += 8
    o = base + T_MAX * N_TF
    g = s.g
    v = np.zeros(N_GF, np.int64)
    v[0] = g[b, G_TURN]
    v[1] = g[b, G_MAX_TURNS]
    v[2] = g[b, G_ACTIVE] == me
    v[3] = g[b, G_STAGE]
    v[4] = g[b, G_DECIDER] == me
    v[5] = g[b, G_MISSION]
    v[6] = g[b, G_ACT]
    v[7] = g[b, G_ACTOR]
    v[8] = g[b, G_ACTOR_SIDE] == me
    v[9] = g[b, G_TGT]
    v[10] = g[b, G_CONSOL] if g[b, G_STAGE] == ST_CONSOLIDATE else (
        g[b, G_FACE_MOVE] if g[b, G_STAGE] == ST_FACING else g[b, G_MOVE])
    v[11] = g[b, G_BANK0 + me]
    v[12] = g[b, G_BANK0 + 1 - me]
    if g[b, G_STAGE] == ST_BANK:
        # the banks as they stand at the pending roll: less what this step spent before it
        v[11] -= s.bk[b, BK_SPENT0 + me]
        v[12] -= s.bk[b, BK_SPENT0 + 1 - me]
    v[13] = g[b, G_BONUS0 + me]
    v[14] = g[b, G_BONUS0 + 1 - me]
    v[15] = g[b, G_AMMO0 + me]
    v[16] = g[b, G_AMMO0 + 1 - me]
    v[17] = g[b, G_NIGHT]
    v[18] = edge_is_low(s, b, me)
    v[19] = g[b, G_CONTROLLED]
    v[20] = g[b, G_SEGN0 + me]
    v[21] = g[b, G_COORD0 + me]
    v[22] = g[b, G_NREACT]
    v[23] = g[b, G_RSLOT]
    v[24] = mission_score(s, cfg, b, me)
    v[25] = mission_score(s, cfg, b, 1 - me)
    if g[b, G_DONE]:
        v[26] = 1 if g[b, G_WINNER] == me else (-1 if g[b, G_WINNER] == 1 - me else 0)
    v[27] = g[b, G_DONE]
    v[28] = g[b, G_FIRST] == me
    v[29] = g[b, G_CMD0 + me]
    v[30] = g[b, G_CMD0 + 1 - me]
    v[31] = g[b, G_NOBJ]
    v[32] = losses(s, b, me)
    v[33] = losses(s, b, 1 - me)
    v[34] = me
    v[35] = g[b, G_DEPLOYER] == me
    v[36] = g[b, G_RESERVE_PLACING]
    v[37] = g[b, G_SEGN0 + 1 - me]
    v[38] = g[b, G_COORD0 + 1 - me]
    v[39] = g[b, G_CHARGE_OK]
    for q in range(N_GF):
        obs[o + q] = _i8(v[q])
    o += N_GF
    for q in range(MAX_OBJ):
        if s.objs[b, q, 2] > 0:
            obs[o + 3 * q] = _i8(int(s.objs[b, q, 0] + 0.5))
            obs[o + 3 * q + 1] = _i8(int(s.objs[b, q, 1] + 0.5))
            obs[o + 3 * q + 2] = 1
    o += 3 * MAX_OBJ
    for q in range(MAX_SMOKE):
        if s.smoke[b, q, 2] > 0:
            obs[o + 3 * q] = _i8(int(s.smoke[b, q, 0] + 0.5))
            obs[o + 3 * q + 1] = _i8(int(s.smoke[b, q, 1] + 0.5))
            obs[o + 3 * q + 2] = 1
    if relations:
        # union_wars_v2: the action table after the rest (relations.py; RULES.md "Observation")
        write_action_table(s, cfg, b, me, obs, N_OBS + (N_BANK_OBS if cfg.k[K_BANK] == BANK_ASK else 0))
    if cfg.k[K_BANK] == BANK_ASK and s.g[b, G_STAGE] == ST_BANK:
        # exploration_bank="ask": the pending roll (RULES.md "Observation")
        o = N_OBS
        obs[o] = 1
        obs[o + 1] = 0 if s.bk[b, BK_ROLLER] == ROLLER_NONE else (1 if s.bk[b, BK_ROLLER] == me else -1)
        obs[o + 2] = _i8(s.bk[b, BK_KIND])
        obs[o + 3] = _i8(s.bk[b, BK_SLOT])
        obs[o + 4] = _i8(s.bk[b, BK_NEED])
        obs[o + 5] = _i8(s.bk[b, BK_MARGIN])


# ----------------------------------------------------------------------------------------------
# batched entry points
# ----------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def _reward(s, b, o):
    o.rewards[b, 0] = 0.0
    o.rewards[b, 1] = 0.0
    if s.g[b, G_DONE]:
        w = s.g[b, G_WINNER]
        if w == 0 or w == 1:
            o.rewards[b, w] = 1.0
            o.rewards[b, 1 - w] = -1.0


@nb.njit(inline="always")  # Numba IR: no compiled copy of its own (see step_range)
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


@nb.njit(cache=True, nogil=True)
def step_range(s0, cfg0, actions, active, out, auto_reset, lo, hi):
    """Games ``lo`` .. ``hi - 1`` of a batch step, in the calling thread (VecGame cuts a batch into
    one range per thread, core/threads.py; VecGame.step_one steps one game as a range of one).
    The step's one compiled entry point: each entry point compiles the whole step, obs and mask
    code once more, so ``_step_one`` and ``step_game`` are inlined, not compiled on their own."""
    s, cfg, o = state_ref(s0), config_ref(cfg0), outputs_ref(out)
    for b in range(lo, hi):
        o.illegal[b] = 0
        if active[b]:
            _step_one(s, cfg, o, b, actions[b], auto_reset)


@nb.njit(inline="always")
def step_game(s0, cfg0, b, a, out, auto_reset):
    """One decision in game ``b`` (sets ``out.illegal[b]``, 0 if legal): the loops' step
    (core/loops.py), inlined into them."""
    _step_one(state_ref(s0), config_ref(cfg0), outputs_ref(out), b, a, auto_reset)


@nb.njit(inline="always")  # into reset_range, its one compiled entry point
def _reset_one(s0, cfg0, out, b, seed):
    s, cfg, o = state_ref(s0), config_ref(cfg0), outputs_ref(out)
    reset_game(s, cfg, b, seed)
    write_obs(s, cfg, b, s.g[b, G_DECIDER], o.obs[b])
    write_mask(s, cfg, b, o.mask[b])
    o.player[b] = s.g[b, G_DECIDER]


@nb.njit(cache=True, nogil=True)
def reset_range(s, cfg, seeds, idx, out, lo, hi):
    """New games ``idx[lo:hi]`` from ``seeds[lo:hi]``, in the calling thread (as step_range)."""
    for j in range(lo, hi):
        _reset_one(s, cfg, out, idx[j], seeds[j])


@nb.njit(cache=True)
def observe_game(s0, cfg0, b, p, obs, mask):
    s, cfg = state_ref(s0), config_ref(cfg0)
    write_obs(s, cfg, b, p, obs)
    mask[:] = 0
    if p == s.g[b, G_DECIDER] and not s.g[b, G_DONE]:
        write_mask(s, cfg, b, mask)


@nb.njit(cache=True)
def action_reason(s0, cfg0, b, a):
    return decide(state_ref(s0), config_ref(cfg0), b, a, False)


@nb.njit(cache=True)
def check_sight_cache(s0, cfg0, b):
    """(wrong, checked) cached sight answers of game ``b`` against fresh ones (tests)."""
    return sight_cache_mismatches(state_ref(s0), config_ref(cfg0), b)


@nb.njit(cache=True)
def start_battle_at(s0, cfg0, b, active):
    """Scenarios: begin the tactical phase of ``active``'s turn (game.apply_scenario).  The
    scenario is set after its command phase: charisma is refilled, no command test or reserves'
    4+ is rolled (they come in the next command phases, each inside a step)."""
    s, cfg = state_ref(s0), config_ref(cfg0)
    s.g[b, G_ACTIVE] = active
    s.g[b, G_FIRST] = active
    s.g[b, G_RESERVE_PLACING] = 0
    forget_sight(s, b)    # the scenario may have replaced the terrain
    update_engagement(s, cfg, b)
    if refresh_turn(s, cfg, b):
        enter_tactical(s, cfg, b)
