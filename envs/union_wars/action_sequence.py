"""An action and its reactions (LE AZIONI, LE REAZIONI, LA FASE TATTICA): declaring an action,
asking the other side for a reaction, resolving the two in the rules' order, and ending the action.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .actions import (ABILITY_FAILED, FATIGUE_GROUP, ability_bit, ability_effect, ability_test, action_cost, delegate,
                      execute_action, is_controlled, mental_duel, pay, target_side, tire)
from .general import has_flag, is_active
from .layout import *  # noqa: F401,F403  (the named columns and codes)
from .melee import update_engagement
from .reactions import apply_prone, execute_reaction, reaction_group, reactor_can
from .sight import reveal_hidden
from .turn import check_sudden


@kernel(cache=True)
def any_reactor(s, cfg, b):
    rs = 1 - s.g[b, G_ACTIVE]
    if s.g[b, G_NREACT] >= MAX_REACT:
        return False
    for j in range(N_SLOTS):
        if reactor_can(s, cfg, b, rs, j):
            return True
    return False


@kernel(cache=True)
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


@kernel(cache=True)
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


@kernel(cache=True)
def declared_duel(s, b, j):
    """Did the reacting side's model j declare DUELLO MENTALE against the action being resolved?"""
    for k in range(s.g[b, G_NREACT]):
        if s.rq[b, k, 0] == j and s.rq[b, k, 1] == RK_DUEL:
            return True
    return False


@kernel(cache=True)
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


@kernel(cache=True)
def finish_action(s, cfg, b):
    update_engagement(s, cfg, b)
    reveal_hidden(s, cfg, b)
    if check_sudden(s, cfg, b):
        return
    s.g[b, G_STAGE] = ST_SELECT
    s.g[b, G_DECIDER] = s.g[b, G_ACTIVE]
    s.g[b, G_RSLOT] = -1
