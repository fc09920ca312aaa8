"""LE AZIONI (LA FASE TATTICA): which actions a model may declare, their cost in charisma,
their targets, and what they do.  ABILITA' (the abilities) are here too.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.kernel import kernel
from ..core.geometry import point_polygon_distance, segment_crosses_polygon
from .bank import bank_amount, bank_roll
from .layout import T_MAX, T_NONE, TI_KIND, TI_NVERT, TK_ABILITY, TK_AID, TK_CHARGE_AT, TK_DUEL, TK_GENIO

from .general import (d6, test_d6, discipline_test, exhausted, has_flag, in_control_area, is_active, model_distance, on_table,
                      roll_off, stat)
from .layout import (AB_CONTROLLO, AB_COORDINATE, AB_GENIO, AB_RICHIAMO, AB_SEGNALATORE, AK_AID, AK_AIM, AK_ALERT,
                     AK_CHARGE, AK_CONC, AK_CONTROLLO, AK_COORDINATE, AK_DELEGATE, AK_FIRE0, AK_FIRE1, AK_FLY,
                     AK_GENIO, AK_HIDE, AK_MOVE, AK_RECOVER, AK_RICHIAMO, AK_SEGNALATORE, AK_SUPP0, AK_SUPP1,
                     AK_UNJAM, ACTIVE, EQ_AMPLIFIER, EQ_COMMS, EQ_MEDKIT, EX_MEDICINE, EX_MIND, F_AIMED, F_ALERT,
                     F_CHARGER, F_CONCENTRATED, F_COVER, F_ENGAGED, F_FROM_HIDDEN, F_HIDDEN, F_PRONE, F_RECOVERED,
                     F_SUPPRESSED, G_ACTIVE, G_BONUS0, G_CHARGE_OK, G_CMD0, G_CONTROLLED, G_COORD0, G_FACE_DIR, G_FIRST,
                     G_NIGHT, G_SEGN0, G_TURN, K_JAM, MD_CAR, MD_CHARGE_AT, MD_CMD_BONUS, MD_CONTROLLED, MD_FATIGUE,
                     MD_FLAGS, MD_JAMMED, MD_MORALE, MD_STATUS, MD_USED, MD_WOUNDS, N_SLOTS, OK, OOC, PF_ABIL,
                     PF_CAR, PF_COS, PF_EQUIP, PF_EXPERT, PF_FS, PF_M, PF_R0, PF_RULES, PF_SN, R_CANNOT_ACT,
                     R_ENGAGED, R_FATIGUED, R_NO_CHARISMA, R_NO_TARGET, R_NO_WEAPON, R_NO_WOUND, R_NOT_AVAILABLE,
                     R_NOT_COMMANDER, R_NOT_FLYER, R_NOT_IN_CONTACT_TERRAIN, R_NOT_IN_SIGHT, R_NOT_SUPPRESSED,
                     R_RECOVERED, R_TOO_FAR, R_IMMOBILE, R_JAMMED, SR_CAMO, SR_FLY, SR_IMMOBILE, SR_PSIONIC,
                     SR_MAGE, SR_SCOUT, WP_RULES, WR_THROWN, N_MOVES, N_DIRS, N_DIST)
from .melee import in_contact, update_engagement
from .movement import charge_move, execute_move, move_reason
from .shooting import night_spotted, fire_reason, point_fire_reason, resolve_fire, resolve_point_fire, weapon_of
from .sight import SEEN, can_see_any, sight, touching_any_terrain

ACTION_COST = np.array([1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1], np.int64)
# LA FATICA: actions of the same group repeated in a turn tire the model (bit in MD_USED).  One
# action, one group whatever its variant: MOVIMENTO on foot or in flight, FUOCO (and FUOCO
# SOPPRESSIVO) with weapon 1 or 2, ABILITA' whichever ability ("il modello utilizza una delle abilità")
FATIGUE_GROUP = np.array([0, 1, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11, 11, 11, 11, -1, 0], np.int64)
SCOUT_SECOND_MOVE = 1 << 23     # ESPLORATORE: the second move of a turn does not tire
ABILITY_FAILED = 24             # MD_USED bits 24..28: an ability whose test failed this turn
TARGET_NONE, TARGET_THEIRS, TARGET_MINE, TARGET_MOVE = 0, 1, 2, 3
ACTION_TARGET = np.array([3, 1, 1, 1, 1, 1, 0, 0, 2, 0, 0, 0, 0, 2, 1, 1, 0, 1, 2, 3], np.int64)


@kernel(cache=True, inline="always")
def ability_bit(ak):
    if ak == AK_RICHIAMO:
        return AB_RICHIAMO
    if ak == AK_SEGNALATORE:
        return AB_SEGNALATORE
    if ak == AK_CONTROLLO:
        return AB_CONTROLLO
    if ak == AK_GENIO:
        return AB_GENIO
    if ak == AK_COORDINATE:
        return AB_COORDINATE
    return 0


@kernel(cache=True, inline="always")
def is_controlled(s, b, side, i):
    """ABILITA' CONTROLLO: the enemy model the active player may make act once this turn."""
    return side != s.g[b, G_ACTIVE] and s.g[b, G_CONTROLLED] == i


@kernel(cache=True, inline="always")
def action_cost(s, cfg, b, side, i, ak):
    """The charisma an action costs now: 0 for the controlled enemy model and for an
    ESPLORATORE's free move in its side's first tactical phase; doubled while suppressed."""
    if is_controlled(s, b, side, i):
        return 0
    c = ACTION_COST[ak]
    if (ak == AK_MOVE or ak == AK_FLY) and (stat(s, cfg, b, side, i, PF_RULES) & SR_SCOUT) \
            and s.g[b, G_TURN] < 2 and not (s.md[b, side, i, MD_USED] & 1):
        return 0
    if has_flag(s, b, side, i, F_SUPPRESSED):
        c *= 2   # IL TEST DI SOPPRESSIONE: "il doppio dei punti carisma"
    return c


@kernel(cache=True, inline="always")
def can_pay(s, b, side, i, cost):
    """Charisma: the model's own points, or one of the side's GENIO TATTICO bonus actions."""
    return cost == 0 or s.md[b, side, i, MD_CAR] >= cost or s.g[b, G_BONUS0 + side] > 0


@kernel(cache=True)
def pay(s, b, side, i, cost):
    if cost == 0:
        return
    if s.md[b, side, i, MD_CAR] < cost:
        s.g[b, G_BONUS0 + side] -= 1     # a bonus action pays the whole action
    else:
        s.md[b, side, i, MD_CAR] -= cost


@kernel(cache=True, inline="always")
def model_reason(s, cfg, b, side, i):
    """May (side, i) declare any action now (before looking at which)?"""
    if not is_active(s, b, side, i):
        return R_CANNOT_ACT
    if side != s.g[b, G_ACTIVE] and not is_controlled(s, b, side, i):
        return R_CANNOT_ACT
    if has_flag(s, b, side, i, F_ENGAGED):
        return R_ENGAGED          # RULES.md: engaged models fight in the melee phase, they do not act
    if has_flag(s, b, side, i, F_PRONE):
        return R_CANNOT_ACT       # A TERRA / inchiodato: "non può fare nulla"
    if has_flag(s, b, side, i, F_RECOVERED):
        return R_RECOVERED        # RIPRESA: "non può effettuare nessun'altra azione"
    return OK


@kernel(cache=True)
def delegate_reason(s, cfg, b, side, i):
    """IL COMANDANTE hands out its bonus charisma "durante la fase tattica" (AK_DELEGATE).  It is
    not one of LE AZIONI (RULES.md): no cost, no LA FATICA, no reactions, it does not reveal a
    hidden commander nor use up MIRA / CONCENTRAZIONE, and LA FATICA's "solamente ... Ripresa",
    RIPRESA's "nessun'altra azione" and the engaged models' melee do not forbid it; a model down
    (A TERRA: "non può fare nulla") or out of combat does nothing."""
    if not is_active(s, b, side, i) or side != s.g[b, G_ACTIVE]:
        return R_CANNOT_ACT
    if s.g[b, G_CMD0 + side] != i or s.md[b, side, i, MD_CMD_BONUS] <= 0:
        return R_NOT_COMMANDER
    if has_flag(s, b, side, i, F_PRONE):
        return R_CANNOT_ACT
    return OK


@kernel(cache=True)
def kind_reason(s, cfg, b, side, i, ak):
    """Legality of action kind ``ak`` for (side, i), not looking at targets."""
    if ak == AK_DELEGATE:
        return delegate_reason(s, cfg, b, side, i)
    code = model_reason(s, cfg, b, side, i)
    if code != OK:
        return code
    controlled = is_controlled(s, b, side, i)
    if controlled and not (ak == AK_MOVE or ak == AK_FLY or ak == AK_FIRE0 or ak == AK_FIRE1
                           or ak == AK_SUPP0 or ak == AK_SUPP1 or ak == AK_CHARGE):
        return R_NOT_AVAILABLE    # RULES.md: the controlled model moves, shoots or charges
    if exhausted(s, cfg, b, side, i) and ak != AK_RECOVER:
        return R_FATIGUED         # LA FATICA: "potrà solamente dichiarare l'azione Ripresa"
    if not can_pay(s, b, side, i, action_cost(s, cfg, b, side, i, ak)):
        return R_NO_CHARISMA
    rules = stat(s, cfg, b, side, i, PF_RULES)
    if (ak == AK_FLY or ak == AK_CHARGE) and (rules & SR_IMMOBILE):
        return R_IMMOBILE         # IMMOBILE "non può muovere"; MOVIMENTO may still "ruotare" (move_reason)
    if ak == AK_FLY and not (rules & SR_FLY):
        return R_NOT_FLYER
    if ak == AK_FIRE0 or ak == AK_FIRE1 or ak == AK_SUPP0 or ak == AK_SUPP1:
        w = 0 if (ak == AK_FIRE0 or ak == AK_SUPP0) else 1
        wpn = weapon_of(s, cfg, b, side, i, w)
        if wpn < 0 or ((ak == AK_SUPP0 or ak == AK_SUPP1) and (cfg.wp[wpn, WP_RULES] & WR_THROWN)):
            return R_NO_WEAPON
        if s.md[b, side, i, MD_JAMMED] & (1 << w):
            return R_JAMMED
    if ak == AK_HIDE:
        if has_flag(s, b, side, i, F_HIDDEN):
            return R_NOT_AVAILABLE
        x, y = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
        if not (rules & SR_CAMO) and not touching_any_terrain(s, b, x, y, cfg.pf[s.md[b, side, i, 0], 13] / 20.0):
            return R_NOT_IN_CONTACT_TERRAIN   # NASCOSTO (MIMETISMO: anywhere)
    if ak == AK_ALERT:
        if has_flag(s, b, side, i, F_ALERT):
            return R_NOT_AVAILABLE
        x, y = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
        if not touching_any_terrain(s, b, x, y, cfg.pf[s.md[b, side, i, 0], 13] / 20.0):
            return R_NOT_IN_CONTACT_TERRAIN
    if ak == AK_AIM:
        if has_flag(s, b, side, i, F_AIMED) or (weapon_of(s, cfg, b, side, i, 0) < 0):
            return R_NOT_AVAILABLE
    if ak == AK_CONC:
        if has_flag(s, b, side, i, F_CONCENTRATED) or stat(s, cfg, b, side, i, PF_ABIL) == 0:
            return R_NOT_AVAILABLE
    if ak == AK_UNJAM:
        if not cfg.k[K_JAM] or s.md[b, side, i, MD_JAMMED] == 0:
            return R_NOT_AVAILABLE
    ab = ability_bit(ak)
    if ab:
        if not (stat(s, cfg, b, side, i, PF_ABIL) & ab):
            return R_NOT_AVAILABLE
        if s.md[b, side, i, MD_USED] & (1 << (ABILITY_FAILED + ak - AK_RICHIAMO)):
            return R_NOT_AVAILABLE    # TEST DI ABILITA': failed, "nemmeno provare a ripetere l'azione"
        if ak == AK_CONTROLLO and s.g[b, G_CONTROLLED] >= 0:
            return R_NOT_AVAILABLE    # one controlled model at a time
    return OK


@kernel(cache=True)
def target_reason(s, cfg, b, side, i, ak, ts, tj):
    """Legality of target (ts, tj) for action ``ak`` of (side, i)."""
    if not on_table(s, b, ts, tj) or (ts == side and tj == i and ak != AK_RICHIAMO):
        return R_NO_TARGET
    sn = stat(s, cfg, b, side, i, PF_SN)
    if ak == AK_FIRE0 or ak == AK_FIRE1:
        return fire_reason(s, cfg, b, side, i, 0 if ak == AK_FIRE0 else 1, ts, tj)
    if ak == AK_SUPP0 or ak == AK_SUPP1:
        return fire_reason(s, cfg, b, side, i, 0 if ak == AK_SUPP0 else 1, ts, tj)
    if not is_active(s, b, ts, tj) and ak != AK_AID:
        return R_NO_TARGET
    if ak == AK_CHARGE:
        # CARICA: "un bersaglio in vista o un bersaglio entro l'area di controllo (anche se non in vista)"
        if model_distance(s, cfg, b, side, i, ts, tj) > stat(s, cfg, b, side, i, PF_M) + 12:
            return R_TOO_FAR
        if not can_see_any(s, cfg, b, side, i, ts, tj):
            return R_NOT_IN_SIGHT
        return OK
    if ak == AK_AID:
        if ts != side or s.md[b, ts, tj, MD_WOUNDS] <= 0:
            return R_NO_WOUND
        if not in_contact(s, cfg, b, side, i, ts, tj):
            return R_TOO_FAR     # SOCCORSO: "un modello con cui è a contatto"
        return OK
    if ak == AK_RICHIAMO:
        if ts != side or not has_flag(s, b, ts, tj, F_SUPPRESSED):
            return R_NOT_SUPPRESSED
        if model_distance(s, cfg, b, side, i, ts, tj) > 10 * sn:
            return R_TOO_FAR
        return OK
    if ak == AK_SEGNALATORE or ak == AK_COORDINATE:
        if not (sight(s, cfg, b, side, i, ts, tj, True) & SEEN):
            return R_NOT_IN_SIGHT
        return OK
    if ak == AK_CONTROLLO:
        if has_flag(s, b, ts, tj, F_HIDDEN):
            return R_NOT_IN_SIGHT
        if model_distance(s, cfg, b, side, i, ts, tj) > 10 * sn:
            return R_TOO_FAR
        return OK
    if ak == AK_DELEGATE:
        if ts != side or tj == i:
            return R_NO_TARGET
        if model_distance(s, cfg, b, side, i, ts, tj) > 10 * sn:
            return R_TOO_FAR     # IL COMANDANTE: "entro il raggio di comando"
        return OK
    return R_NO_TARGET


@kernel(cache=True, inline="always")
def target_side(s, b, side, ak):
    """Enemy-targeted actions aim at the decider's opponent (for the controlled model that is
    its own side: "viene considerato a tutti gli effetti un modello nemico")."""
    if ACTION_TARGET[ak] == TARGET_MINE:
        return side
    return 1 - s.g[b, G_ACTIVE]


@kernel(cache=True)
def any_target(s, cfg, b, side, i, ak):
    kind = ACTION_TARGET[ak]
    if kind == TARGET_NONE:
        return True
    if kind == TARGET_MOVE:
        return True   # rotating on the spot is always possible
    ts = target_side(s, b, side, ak)
    for j in range(N_SLOTS):
        if target_reason(s, cfg, b, side, i, ak, ts, j) == OK:
            return True
    if ak == AK_FIRE0 or ak == AK_FIRE1:
        # DA LANCIO: "indica un bersaglio o un punto"
        # the nearest point straight ahead first: it is nearly always legal, so one check is enough
        w = 0 if ak == AK_FIRE0 else 1
        ahead = int(round(s.pos[b, side, i, 2] / (2.0 * math.pi / N_DIRS))) % N_DIRS
        first = ahead * (N_DIST + 1) + 1
        for k in range(N_MOVES):
            if point_fire_reason(s, cfg, b, side, i, w, (first + k) % N_MOVES) == OK:
                return True
    return False


@kernel(cache=True)
def action_reason(s, cfg, b, side, i, ak):
    code = kind_reason(s, cfg, b, side, i, ak)
    if code != OK:
        return code
    if not any_target(s, cfg, b, side, i, ak):
        return R_NO_TARGET
    return OK


@kernel(cache=True)
def any_action(s, cfg, b, side, i):
    if action_reason(s, cfg, b, side, i, AK_DELEGATE) == OK:
        return True     # IL COMANDANTE's charisma: not an action (delegate_reason)
    if model_reason(s, cfg, b, side, i) != OK:
        return False
    for ak in (AK_MOVE, AK_RECOVER, AK_AIM, AK_HIDE, AK_FIRE0, AK_FIRE1, AK_CHARGE, AK_SUPP0, AK_SUPP1, AK_ALERT,
               AK_AID, AK_CONC, AK_UNJAM, AK_RICHIAMO, AK_SEGNALATORE, AK_CONTROLLO, AK_GENIO, AK_COORDINATE,
               AK_FLY):
        if action_reason(s, cfg, b, side, i, ak) == OK:
            return True
    return False


# -- execution ------------------------------------------------------------------------------------
@kernel(cache=True)
def tire(s, cfg, b, side, i, group):
    """LA FATICA: an action or reaction already used this turn gives a fatigue marker after it."""
    if group < 0:
        return
    bit = 1 << group
    if s.md[b, side, i, MD_USED] & bit:
        if group == 0 and (stat(s, cfg, b, side, i, PF_RULES) & SR_SCOUT) \
                and not (s.md[b, side, i, MD_USED] & SCOUT_SECOND_MOVE):
            s.md[b, side, i, MD_USED] |= SCOUT_SECOND_MOVE
            return
        s.md[b, side, i, MD_FATIGUE] += 1
    s.md[b, side, i, MD_USED] |= bit


@kernel(cache=True)
def ability_test(s, cfg, b, side, i):
    """IL TEST DI ABILITA': a discipline test, +1 after CONCENTRAZIONE, +1 ESPERTO (mente)."""
    mod = 0
    if has_flag(s, b, side, i, F_CONCENTRATED):
        mod += 1
    if stat(s, cfg, b, side, i, PF_EXPERT) == EX_MIND:
        mod += 1
    return discipline_test(s, cfg, b, side, i, mod, TK_ABILITY)


@kernel(cache=True)
def duel_bonus(s, cfg, b, side, i):
    n = 0
    if has_flag(s, b, side, i, F_CONCENTRATED):
        n += 1
    if stat(s, cfg, b, side, i, PF_EXPERT) == EX_MIND:
        n += 1
    if stat(s, cfg, b, side, i, PF_EQUIP) & EQ_AMPLIFIER:
        n += 1
    return n


@kernel(cache=True)
def mental_duel(s, cfg, b, side, i, ds, dj):
    """DUELLO MENTALE: a roll-off adding each model's charisma points; the ability works only
    if the attacker scores higher ("se il difensore ottiene un valore uguale o superiore ...
    l'abilità non funziona").  Returns True if the attacker wins."""
    a = d6(s, b) + s.md[b, side, i, MD_CAR] + duel_bonus(s, cfg, b, side, i)
    d = d6(s, b) + s.md[b, ds, dj, MD_CAR] + duel_bonus(s, cfg, b, ds, dj)
    # the ESPLORAZIONE bank may turn it: the attacker's bonus or the defender's of the margin
    return bank_roll(s, cfg, b, side, i, TK_DUEL, a > d, a - d - 1)


@kernel(cache=True)
def charge_cover(s, cfg, b, side, i, ts, tj):
    """CARICA: the charged model "al riparo (in base alla direzione dell'assalto)": it touches
    a scenic element that the line of the charge crosses (RULES.md)."""
    from_x, from_y = s.pos[b, side, i, 0], s.pos[b, side, i, 1]
    return _cover_between(s, cfg, b, ts, tj, from_x, from_y)


@kernel(cache=True)
def _cover_between(s, cfg, b, ts, tj, fx, fy):
    x, y = s.pos[b, ts, tj, 0], s.pos[b, ts, tj, 1]
    r = cfg.pf[s.md[b, ts, tj, 0], 13] / 20.0
    for t in range(T_MAX):
        if s.tinfo[b, t, TI_KIND] == T_NONE:
            continue
        n = s.tinfo[b, t, TI_NVERT]
        if point_polygon_distance(x, y, s.terr[b, t], n) <= r + 0.5 and \
                segment_crosses_polygon(fx, fy, x, y, s.terr[b, t], n):
            return True
    return False


@kernel(cache=True)
def do_charge(s, cfg, b, side, i, ts, tj, counter):
    """CARICA (and CONTROCARICA with ``counter``): move, and if contact is made mark the
    charge's bonuses for the melee.  Returns True on contact."""
    cover = charge_cover(s, cfg, b, side, i, ts, tj)
    if counter and in_contact(s, cfg, b, side, i, ts, tj):
        reached = True     # already in contact: the counter-charger does not move
    else:
        if s.g[b, G_NIGHT]:
            # LA NOTTE: assaulting a model needs it spotted first, unless it is in the control area
            # (found without a roll, AREA DI CONTROLLO)
            if not in_control_area(s, cfg, b, side, i, ts, tj) and \
                    not night_spotted(s, cfg, b, side, i, model_distance(s, cfg, b, side, i, ts, tj)):
                return False
        reached = charge_move(s, cfg, b, side, i, ts, tj)
    if reached:
        s.md[b, side, i, MD_FLAGS] |= F_CHARGER
        if counter:
            s.md[b, side, i, MD_FLAGS] |= 1 << 8   # F_COUNTERCHARGER
        # "un bonus al valore di AT pari a 1D3" (an amount roll the ESPLORAZIONE bank may move)
        s.md[b, side, i, MD_CHARGE_AT] = bank_amount(s, cfg, b, side, i, TK_CHARGE_AT, (d6(s, b) + 1) // 2, True, 0)
        if cover:
            s.md[b, ts, tj, MD_FLAGS] |= F_COVER
        update_engagement(s, cfg, b)
    return reached


@kernel(cache=True)
def execute_action(s, cfg, b, side, i, ak, ts, tj, move):
    """Carry out a declared action (the reactions that go before it have been applied)."""
    if not is_active(s, b, side, i):
        return
    if ak == AK_MOVE:
        execute_move(s, cfg, b, side, i, move, False, False, s.g[b, G_FACE_DIR] - 1)
    elif ak == AK_FLY:
        execute_move(s, cfg, b, side, i, move, True, False, s.g[b, G_FACE_DIR] - 1)
    elif (ak == AK_FIRE0 or ak == AK_FIRE1) and tj < 0:
        resolve_point_fire(s, cfg, b, side, i, 0 if ak == AK_FIRE0 else 1, move)   # DA LANCIO at a point
    elif ak == AK_FIRE0 or ak == AK_FIRE1:
        resolve_fire(s, cfg, b, side, i, 0 if ak == AK_FIRE0 else 1, ts, tj, False, False)
    elif ak == AK_SUPP0 or ak == AK_SUPP1:
        resolve_fire(s, cfg, b, side, i, 0 if ak == AK_SUPP0 else 1, ts, tj, True, False)
    elif ak == AK_CHARGE:
        s.g[b, G_CHARGE_OK] = 1 if do_charge(s, cfg, b, side, i, ts, tj, False) else 0
    elif ak == AK_HIDE:
        s.md[b, side, i, MD_FLAGS] |= F_HIDDEN
    elif ak == AK_ALERT:
        s.md[b, side, i, MD_FLAGS] |= F_ALERT
    elif ak == AK_AID:
        # SOCCORSO: "tira un D6, se ottieni un 5+ la ferita è curata"
        bonus = (1 if stat(s, cfg, b, side, i, PF_EXPERT) == EX_MEDICINE else 0) + \
                (1 if stat(s, cfg, b, side, i, PF_EQUIP) & EQ_MEDKIT else 0)
        if test_d6(s, cfg, b, side, i, 5, bonus, TK_AID) and s.md[b, ts, tj, MD_WOUNDS] > 0:
            s.md[b, ts, tj, MD_WOUNDS] -= 1
            if s.md[b, ts, tj, MD_STATUS] == OOC:
                s.md[b, ts, tj, MD_STATUS] = ACTIVE   # Fuori Combattimento: back when a wound is healed
                s.md[b, ts, tj, MD_FLAGS] |= F_PRONE   # still lying down until the end phase
                s.md[b, ts, tj, 8] = s.g[b, G_TURN]    # MD_PRONE_UNTIL: this turn's end phase
    elif ak == AK_RECOVER:
        # RIPRESA: CAR morale markers, COS fatigue markers and the suppression marker
        s.md[b, side, i, MD_MORALE] = max(0, s.md[b, side, i, MD_MORALE] - stat(s, cfg, b, side, i, PF_CAR))
        s.md[b, side, i, MD_FATIGUE] = max(0, s.md[b, side, i, MD_FATIGUE] - stat(s, cfg, b, side, i, PF_COS))
        s.md[b, side, i, MD_FLAGS] &= ~F_SUPPRESSED
        s.md[b, side, i, MD_FLAGS] |= F_RECOVERED
    elif ak == AK_AIM:
        s.md[b, side, i, MD_FLAGS] |= F_AIMED
    elif ak == AK_CONC:
        s.md[b, side, i, MD_FLAGS] |= F_CONCENTRATED
    elif ak == AK_UNJAM:
        s.md[b, side, i, MD_JAMMED] = 0       # DISINCEPPARE
    # MIRA / CONCENTRAZIONE act on the action "che esegue immediatamente dopo"
    if ak != AK_AIM:
        s.md[b, side, i, MD_FLAGS] &= ~F_AIMED
    if ak != AK_CONC and ability_bit(ak) == 0:
        s.md[b, side, i, MD_FLAGS] &= ~F_CONCENTRATED


@kernel(cache=True)
def delegate(s, b, side, i, tj):
    """IL COMANDANTE: one bonus charisma point to the ally (side, tj); not an action (delegate_reason)."""
    s.md[b, side, i, MD_CMD_BONUS] -= 1
    s.md[b, side, tj, MD_CAR] += 1


@kernel(cache=True)
def ability_effect(s, cfg, b, side, i, ak, ts, tj):
    """What a successful ability does (ABILITA')."""
    if ak == AK_RICHIAMO:
        s.md[b, ts, tj, MD_FLAGS] &= ~F_SUPPRESSED
    elif ak == AK_SEGNALATORE:
        s.g[b, G_SEGN0 + side] = tj + 1
    elif ak == AK_COORDINATE:
        # by voice within SN x 10 or anywhere with a communicator: the signalled model
        s.g[b, G_COORD0 + side] = tj + 1
    elif ak == AK_GENIO:
        s.g[b, G_BONUS0 + side] += bank_amount(s, cfg, b, side, i, TK_GENIO, d6(s, b), True, 0)   # "1D6 azioni bonus"
    elif ak == AK_CONTROLLO:
        s.g[b, G_CONTROLLED] = tj
    s.md[b, side, i, MD_FLAGS] &= ~F_CONCENTRATED
