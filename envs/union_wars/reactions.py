"""LE REAZIONI: who may react to a declared action, at what cost, and what each reaction does.

Readings (RULES.md "Reazioni"): the reacting player declares reactions one model at a time
after the action is declared (one reaction per model per action; option
``reactions_per_model="any"`` lifts it); A TERRA is applied before the action, every other
reaction after it in the order declared.  A reaction is free when the acting model is in
the reactor's control area when the action is declared or its declared path passes
through it (AREA DI CONTROLLO).
"""
from __future__ import annotations

import math

from ..core.kernel import kernel
from ..core.geometry import point_segment_distance
from .actions import do_charge, is_controlled, mental_duel, tire
from .melee import in_contact
from .general import exhausted, has_flag, in_control_area, is_active, control_range, model_distance, radius, stat
from .layout import (AK_CHARGE, AK_CONTROLLO, AK_FLY, AK_MOVE, F_CHARGER, F_ENGAGED, F_FROM_HIDDEN, F_HIDDEN, F_PRONE,
                     F_SUPPRESSED, G_ACT, G_ACTOR,
                     G_ACTOR_SIDE, G_CHARGE_OK, G_MOVE, G_NREACT, G_TGT, K_REACT_ONCE, MD_CAR, MD_FATIGUE, MD_REACTED, N_SLOTS,
                     OK, PF_COS, PF_M, PF_RULES, R_ALREADY_REACTED, R_CANNOT_ACT, R_ENGAGED, R_FATIGUED, R_IMMOBILE,
                     R_NO_CHARISMA, R_NO_REACTION_TARGET, R_NOT_AVAILABLE, R_NOT_IN_SIGHT, R_NOT_PSIONIC, R_TOO_FAR, RK_COUNTERCHARGE,
                     RK_COUNTERMOVE, RK_DUEL, RK_FALLBACK, RK_FIRE0, RK_FIRE1, RK_PRONE, SR_IMMOBILE, SR_MAGE,
                     SR_PSIONIC, G_TURN, MD_PRONE_UNTIL, MD_FLAGS)
from .movement import fall_back, move_allowance, move_target
from .psychology import go_prone
from .shooting import fire_reason, resolve_fire
from .sight import can_see_any

REACTION_COST = 2
REACTION_GROUP0 = 16   # MD_USED bits 16..22: reactions used this turn (LA FATICA)


@kernel(cache=True, inline="always")
def reaction_group(rk):
    """LA FATICA's memory bit of reaction ``rk``: "una reazione già utilizzata durante il turno" is
    the reaction, not the weapon: FUOCO DI REAZIONE with weapon 1 or 2 is one reaction (as FUOCO
    arma 1 / arma 2 are one action)."""
    return REACTION_GROUP0 + (RK_FIRE0 if rk == RK_FIRE1 else rk)


@kernel(cache=True)
def path_in_area(s, cfg, b, rs, j):
    """AREA DI CONTROLLO: the acting model "passa o dichiara un'azione entro tale area"."""
    a_side, a = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    if in_control_area(s, cfg, b, rs, j, a_side, a):
        return True
    ak = s.g[b, G_ACT]
    cr = control_range(s, cfg, b, rs, j)
    if cr < 0:
        return False
    x0, y0 = s.pos[b, a_side, a, 0], s.pos[b, a_side, a, 1]
    if ak == AK_MOVE or ak == AK_FLY:
        x1, y1, _f, _d = move_target(s, b, a_side, a, s.g[b, G_MOVE],
                                     move_allowance(s, cfg, b, a_side, a, ak == AK_FLY, False))
    elif ak == AK_CHARGE:
        x1, y1 = s.pos[b, 1 - a_side, s.g[b, G_TGT], 0], s.pos[b, 1 - a_side, s.g[b, G_TGT], 1]
    else:
        return False
    d = point_segment_distance(s.pos[b, rs, j, 0], s.pos[b, rs, j, 1], x0, y0, x1, y1)
    return d - radius(s, cfg, b, rs, j) - radius(s, cfg, b, a_side, a) <= cr


@kernel(cache=True)
def reaction_cost(s, cfg, b, rs, j):
    if path_in_area(s, cfg, b, rs, j):
        return 0
    c = REACTION_COST
    if has_flag(s, b, rs, j, F_SUPPRESSED):
        c *= 2
    return c


@kernel(cache=True)
def reactor_reason(s, cfg, b, rs, j):
    """May (rs, j) react at all to the declared action?"""
    a_side, a = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    if a_side == rs:
        return R_NO_REACTION_TARGET   # the controlled model's action draws no reactions (RULES.md)
    if not is_active(s, b, rs, j) or is_controlled(s, b, rs, j):
        return R_CANNOT_ACT
    if has_flag(s, b, rs, j, F_ENGAGED):
        return R_ENGAGED              # "i modelli ingaggiati non possono reagire in nessun modo"
    if has_flag(s, b, rs, j, F_PRONE):
        return R_CANNOT_ACT
    if exhausted(s, cfg, b, rs, j):
        return R_FATIGUED             # LA FATICA: "non potrà reagire in nessun modo"
    if s.md[b, rs, j, MD_REACTED] and cfg.k[K_REACT_ONCE]:
        return R_ALREADY_REACTED
    if s.md[b, rs, j, MD_CAR] < reaction_cost(s, cfg, b, rs, j):
        return R_NO_CHARISMA          # (before the sight lines: counting points is cheap)
    if not can_see_any(s, cfg, b, rs, j, a_side, a):
        return R_NOT_IN_SIGHT         # "con uno o più modelli in vista"
    return OK


@kernel(cache=True)
def reaction_reason(s, cfg, b, rs, j, rk):
    code = reactor_reason(s, cfg, b, rs, j)
    if code != OK:
        return code
    return reaction_kind_reason(s, cfg, b, rs, j, rk)


@kernel(cache=True)
def reactor_can(s, cfg, b, rs, j):
    """May (rs, j) declare some reaction now?"""
    if reactor_reason(s, cfg, b, rs, j) != OK:
        return False
    for rk in range(7):
        if reaction_kind_reason(s, cfg, b, rs, j, rk) == OK:
            return True
    return False


@kernel(cache=True)
def stacking_reason(s, b, j, rk):
    """Option reactions_per_model="any": the reactions model j already declared against this
    action (the reaction queue; the reactors are the non-active side).  A TERRA "non è cumulabile
    con altri tipi di azioni o reazioni" and after it "non può fare nulla"; RIPIEGARE ends down
    ("va a terra") and the reactions declared after it resolve after it: nothing more is declared
    after either, and A TERRA not after another reaction (RULES.md)."""
    for k in range(s.g[b, G_NREACT]):
        if s.rq[b, k, 0] != j:
            continue
        if s.rq[b, k, 1] == RK_PRONE or s.rq[b, k, 1] == RK_FALLBACK:
            return R_CANNOT_ACT
        if rk == RK_PRONE:
            return R_NOT_AVAILABLE
    return OK


@kernel(cache=True)
def reaction_kind_reason(s, cfg, b, rs, j, rk):
    """The part of reaction_reason that depends on the reaction (the reactor may react)."""
    a_side, a = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    code = stacking_reason(s, b, j, rk)
    if code != OK:
        return code
    rules = stat(s, cfg, b, rs, j, PF_RULES)
    if (rk == RK_FALLBACK or rk == RK_COUNTERCHARGE) and (rules & SR_IMMOBILE):
        return R_IMMOBILE     # IMMOBILE "non può muovere"; CONTROMOSSA may still "ruotare" (movement.move_reason)
    if rk == RK_FIRE0 or rk == RK_FIRE1:
        return fire_reason(s, cfg, b, rs, j, 0 if rk == RK_FIRE0 else 1, a_side, a)
    if rk == RK_COUNTERCHARGE:
        if model_distance(s, cfg, b, rs, j, a_side, a) > stat(s, cfg, b, rs, j, PF_M) + 12:
            return R_TOO_FAR
    if rk == RK_DUEL:
        if not (rules & (SR_PSIONIC | SR_MAGE)):
            return R_NOT_PSIONIC
        if s.g[b, G_ACT] != AK_CONTROLLO:
            return R_NO_REACTION_TARGET   # only psionic/magic abilities (APS/AMG) can be blocked
    return OK


@kernel(cache=True)
def declare_reaction(s, cfg, b, rs, j, rk, slot):
    """Spend the charisma now ("ogni volta che dichiari ... i punti carisma vengono spesi")."""
    cost = reaction_cost(s, cfg, b, rs, j)
    s.md[b, rs, j, MD_CAR] -= cost
    s.md[b, rs, j, MD_REACTED] = 1
    if s.md[b, rs, j, MD_FLAGS] & F_HIDDEN:
        # NASCOSTO: out of sight "fintanto che non dichiara un'azione o una reazione"; a reaction
        # fire or counter-charge is made from hidden (+1 to hit, as the action's)
        s.md[b, rs, j, MD_FLAGS] &= ~F_HIDDEN
        if rk == RK_FIRE0 or rk == RK_FIRE1 or rk == RK_COUNTERCHARGE:
            s.md[b, rs, j, MD_FLAGS] |= F_FROM_HIDDEN
    s.rq[b, slot, 0] = j
    s.rq[b, slot, 1] = rk
    s.rq[b, slot, 2] = 1 if cost == 0 else 0


@kernel(cache=True)
def apply_prone(s, cfg, b, rs, j):
    """A TERRA: "la reazione si esegue prima che l'avversario esegua la propria azione"."""
    if is_active(s, b, rs, j):
        go_prone(s, b, rs, j)
        tire(s, cfg, b, rs, j, reaction_group(RK_PRONE))


@kernel(cache=True)
def execute_reaction(s, cfg, b, rs, j, rk):
    """Every reaction but A TERRA and CONTROMOSSA (whose destination is a decision), after the action."""
    a_side, a = s.g[b, G_ACTOR_SIDE], s.g[b, G_ACTOR]
    if not is_active(s, b, rs, j):
        return
    if rk == RK_FALLBACK:
        # RIPIEGARE: after the action (after contact, against a charge); then pinned and down
        fall_back(s, cfg, b, rs, j)
        if is_active(s, b, rs, j):
            go_prone(s, b, rs, j)
    elif rk == RK_FIRE0 or rk == RK_FIRE1:
        if not has_flag(s, b, rs, j, F_ENGAGED) or s.g[b, G_ACT] == AK_CHARGE:
            resolve_fire(s, cfg, b, rs, j, 0 if rk == RK_FIRE0 else 1, a_side, a, False, True)
    elif rk == RK_COUNTERCHARGE and is_active(s, b, a_side, a):
        if s.g[b, G_ACT] == AK_CHARGE and s.g[b, G_TGT] == j and s.g[b, G_CHARGE_OK]:
            # CONTROCARICA: "sposta il modello solo se il tuo nemico non ti raggiunge": reached, the
            # counter-charger does not move but still charges (its +1D3 AT, +1 and -1 in the melee;
            # RULES.md); do_charge does not move a counter-charger already in base contact
            if in_contact(s, cfg, b, rs, j, a_side, a):
                do_charge(s, cfg, b, rs, j, a_side, a, True)
        elif not has_flag(s, b, rs, j, F_ENGAGED):
            do_charge(s, cfg, b, rs, j, a_side, a, True)
    # every declared reaction that resolves ends here (LA FATICA: "alla fine dell'esecuzione")
    if not has_flag(s, b, rs, j, F_CHARGER):
        s.md[b, rs, j, MD_FLAGS] &= ~F_FROM_HIDDEN   # the bonus from hidden is for this reaction only
    tire(s, cfg, b, rs, j, reaction_group(rk))
