"""LA MISCHIA: engagement, simultaneous combat, the winner, multiple combats.

Reading (RULES.md "Mischia"): models of opposite sides in base contact are engaged.  In
the melee phase each connected group of engaged models fights: every model that is not
out of combat attacks one enemy in base contact with one of its melee weapons, both
chosen by its owner ("scegli un modello, un arma da mischia a disposizione e un
bersaglio"; a decision only when there is more than one enemy or weapon).  Every choice
of a round is made before the dice, then all rolls are made before any wound is applied
("in simultanea").  The side
that inflicted more wounds in the group (reaction fire against the charge included) or
eliminated every enemy wins; a tie fights again; every model of the losing side in the
group is removed; winners stay where they are (consolidating 2D6 is a "may": not offered).
"""
from __future__ import annotations

import math

from ..core.kernel import kernel
from ..core.structs import local_i32
from .general import d6, has_flag, is_active, on_table, radius, stat, wounds_left
from .layout import (TK_HIT, K_MELEE_AUTO, MELEE_BARE_HANDS, MELEE_NO_TARGET, MELEE_UNCHOSEN, MD_MELEE_TGT, MD_MELEE_WPN, OK,
                     R_NOT_IN_CONTACT, R_NO_WEAPON, F_MELEE_DONE, F_MELEE_GROUP, G_ACTIVE, G_MELEE_ROUND,
                     EX_MARTIAL, F_ALERT, F_WON, F_CHARGER, F_COUNTERCHARGER, F_COVER, F_ENGAGED, F_FROM_HIDDEN, F_PRONE,
                     F_SATURATED, G_TURN, MD_CHARGE_AT, MD_FATIGUE, MD_FLAGS, MD_FLASH_UNTIL, MD_MELEE_DEALT,
                     MD_STATUS, N_SLOTS, OOC, PF_ADM, PF_AT, PF_EXPERT, PF_M0, PF_R0, REMOVED,
                     WP_MELEE, WP_RULES, WR_BARE, WR_BLADE, WR_MONO, WR_PISTOL, WR_POWER)
from .shooting import protect
from .bank import bank_roll

CONTACT = 0.05   # bases within 0.05 cm are in contact


@kernel(cache=True, inline="always")
def in_contact(s, cfg, b, sa, ia, sb, ib):
    d = math.hypot(s.pos[b, sa, ia, 0] - s.pos[b, sb, ib, 0], s.pos[b, sa, ia, 1] - s.pos[b, sb, ib, 1])
    return d - radius(s, cfg, b, sa, ia) - radius(s, cfg, b, sb, ib) <= CONTACT


@kernel(cache=True)
def update_engagement(s, cfg, b):
    """MODELLI INGAGGIATI: "quando due o più modelli avversari sono a contatto di basetta"."""
    for side in range(2):
        for i in range(N_SLOTS):
            s.md[b, side, i, MD_FLAGS] &= ~F_ENGAGED
    for i in range(N_SLOTS):
        if not on_table(s, b, 0, i):
            continue
        for j in range(N_SLOTS):
            if not on_table(s, b, 1, j):
                continue
            if not (is_active(s, b, 0, i) or is_active(s, b, 1, j)):
                continue
            if in_contact(s, cfg, b, 0, i, 1, j):
                # IN ALLERTA lasts "fintanto che non si muove o viene ingaggiato in mischia"
                s.md[b, 0, i, MD_FLAGS] = (s.md[b, 0, i, MD_FLAGS] | F_ENGAGED) & ~F_ALERT
                s.md[b, 1, j, MD_FLAGS] = (s.md[b, 1, j, MD_FLAGS] | F_ENGAGED) & ~F_ALERT
    for side in range(2):
        for i in range(N_SLOTS):
            f = s.md[b, side, i, MD_FLAGS]
            if f & F_ENGAGED:
                continue
            # CARICA's bonuses (+1D3 AT, +1 to hit, +1 "da nascosto", the charged model's "al riparo")
            # and FUOCO DI REAZIONE's wounds "in caso di ingaggio" are for "la mischia seguente": a
            # model no longer engaged (the target left by RIPIEGARE or CONTROMOSSA, or was removed)
            # keeps none of them for a later fire or melee (RULES.md)
            if f & F_CHARGER:
                f &= ~(F_CHARGER | F_COUNTERCHARGER | F_FROM_HIDDEN)
                s.md[b, side, i, MD_CHARGE_AT] = 0
            s.md[b, side, i, MD_FLAGS] = f & ~F_COVER
            s.md[b, side, i, MD_MELEE_DEALT] = 0


@kernel(cache=True)
def extra_attacks(s, cfg, b, side, i):
    """BIANCA / PISTOLA: +1 attack when a melee weapon or pistol is combined with another."""
    n = 0
    for w in range(2):
        wpn = cfg.pf[s.md[b, side, i, 0], PF_M0 + w]
        if wpn >= 0 and cfg.wp[wpn, WP_RULES] & WR_BLADE:
            n += 1
        wpn = cfg.pf[s.md[b, side, i, 0], PF_R0 + w]
        if wpn >= 0 and cfg.wp[wpn, WP_RULES] & WR_PISTOL:
            n += 1
    return 1 if n >= 2 else 0


@kernel(cache=True)
def melee_modifier(s, cfg, b, side, i, first_round, wrules):
    mod = 0
    if first_round:
        if has_flag(s, b, side, i, F_CHARGER):
            mod += 1                       # CARICA: +1 to hit for the charger
            if has_flag(s, b, side, i, F_FROM_HIDDEN):
                mod += 1                   # NASCOSTO: charging from hidden
        if has_flag(s, b, side, i, F_COVER) and not has_flag(s, b, side, i, F_SATURATED):
            mod += 1                       # charged while in cover (not after SATURAZIONE)
        if has_flag(s, b, side, i, F_COUNTERCHARGER):
            mod -= 1                       # CONTROCARICA
    if has_flag(s, b, side, i, F_PRONE):
        mod -= 1                           # A TERRA
    if wrules & WR_BARE:
        mod -= 1                           # MANI NUDE
    mod -= s.md[b, side, i, MD_FATIGUE]    # LA FATICA
    if stat(s, cfg, b, side, i, PF_EXPERT) == EX_MARTIAL:
        mod += 1                           # ESPERTO (arti marziali)
    return mod


@kernel(cache=True)
def melee_target_reason(s, cfg, b, side, i, j):
    """LA MISCHIA: the attacker's target is an enemy model in base contact with it (one out of
    combat too: a further wound removes it, LE FERITE)."""
    if j < 0 or j >= N_SLOTS or not on_table(s, b, 1 - side, j) or not in_contact(s, cfg, b, side, i, 1 - side, j):
        return R_NOT_IN_CONTACT
    return OK


@kernel(cache=True)
def melee_weapon_reason(s, cfg, b, side, i, w):
    """LA MISCHIA: "un arma da mischia a disposizione": one of the model's melee weapon slots."""
    if w < 0 or w > 1 or cfg.pf[s.md[b, side, i, 0], PF_M0 + w] < 0:
        return R_NO_WEAPON
    return OK


@kernel(cache=True)
def best_melee_target(s, cfg, b, side, i):
    """The bot's choice (and the choice before the seed's reading was implemented): the enemy in
    contact with the fewest wounds left, models out of combat last."""
    best, best_left = -1, 999
    for j in range(N_SLOTS):
        if melee_target_reason(s, cfg, b, side, i, j) == OK:
            left = wounds_left(s, cfg, b, 1 - side, j)
            if s.md[b, 1 - side, j, MD_STATUS] == OOC:
                left = 100   # out of combat: last
            if left < best_left:
                best, best_left = j, left
    return best


@kernel(cache=True)
def best_melee_weapon_slot(s, cfg, b, side, i):
    """The bot's weapon: POTENZIATA, then MONOMOLECOLARE, then any; bare hands last."""
    best, score = MELEE_BARE_HANDS, -1
    for w in range(2):
        wpn = cfg.pf[s.md[b, side, i, 0], PF_M0 + w]
        if wpn < 0:
            continue
        r = cfg.wp[wpn, WP_RULES]
        sc = 3 if r & WR_POWER else (2 if r & WR_MONO else 1)
        if r & WR_BARE:
            sc = 0
        if sc > score:
            best, score = w, sc
    return best


@kernel(cache=True)
def melee_weapon_of(s, cfg, b, side, i):
    """The weapon the model attacks with this round (-1: bare hands)."""
    w = s.md[b, side, i, MD_MELEE_WPN]
    return -1 if w < 0 else cfg.pf[s.md[b, side, i, 0], PF_M0 + w]


@kernel(cache=True)
def fight_round(s, cfg, b, group, first):
    """One round of a melee group (``group[side * N_SLOTS + i]`` = 1 for members) with the
    attacks chosen in MD_MELEE_TGT / MD_MELEE_WPN.  Returns the losing side, -1 when every
    model fell (the combat ends), or -2 for a tie (fight again)."""
    hits_on = local_i32(16)    # pending hits per model (side * N_SLOTS + slot)
    six_on = local_i32(16)
    rules_on = local_i32(16)
    for k in range(16):
        hits_on[k] = 0
        six_on[k] = 0
        rules_on[k] = 0
    for side in range(2):
        for i in range(N_SLOTS):
            if group[side * N_SLOTS + i] == 0 or not is_active(s, b, side, i):
                continue
            t = s.md[b, side, i, MD_MELEE_TGT]
            if t < 0:
                continue
            wpn = melee_weapon_of(s, cfg, b, side, i)
            wr = WR_BARE if wpn < 0 else cfg.wp[wpn, WP_RULES]
            attacks = stat(s, cfg, b, side, i, PF_AT) + extra_attacks(s, cfg, b, side, i)
            if first:
                attacks += s.md[b, side, i, MD_CHARGE_AT]   # CARICA: +1D3 attacks
            mod = melee_modifier(s, cfg, b, side, i, first, wr)
            adm = stat(s, cfg, b, side, i, PF_ADM)
            flashed = s.md[b, side, i, MD_FLASH_UNTIL] >= s.g[b, G_TURN]
            for _ in range(attacks):
                r = d6(s, b)
                hit = r == 6
                if r != 1 and r != 6 and not flashed:
                    # to hit in melee: ADM; ESPLORAZIONE may turn it
                    hit = bank_roll(s, cfg, b, side, i, TK_HIT, r + mod >= adm, r + mod - adm)
                if hit:
                    k = (1 - side) * N_SLOTS + t
                    hits_on[k] += 1
                    rules_on[k] |= wr
                    if r == 6:
                        six_on[k] += 1
    dealt0 = 0
    dealt1 = 0
    if first:
        for i in range(N_SLOTS):
            if group[i]:
                dealt0 += s.md[b, 0, i, MD_MELEE_DEALT]
            if group[N_SLOTS + i]:
                dealt1 += s.md[b, 1, i, MD_MELEE_DEALT]
    for side in range(2):
        for j in range(N_SLOTS):
            k = side * N_SLOTS + j
            for h in range(hits_on[k]):
                w = protect(s, cfg, b, side, j, 6 if h < six_on[k] else 0, rules_on[k], True)
                if side == 1:
                    dealt0 += w
                else:
                    dealt1 += w
    alive0 = 0
    alive1 = 0
    for i in range(N_SLOTS):
        if group[i] and is_active(s, b, 0, i):
            alive0 += 1
        if group[N_SLOTS + i] and is_active(s, b, 1, i):
            alive1 += 1
    if alive0 == 0 and alive1 == 0:
        loser = -1
    elif alive1 == 0:
        loser = 1
    elif alive0 == 0:
        loser = 0
    elif dealt0 > dealt1:
        loser = 1
    elif dealt1 > dealt0:
        loser = 0
    else:
        return -2   # "in caso di pareggio effettua un ulteriore combattimento"
    if loser >= 0:
        for i in range(N_SLOTS):
            if group[loser * N_SLOTS + i] and on_table(s, b, loser, i):
                s.md[b, loser, i, MD_STATUS] = REMOVED   # "automaticamente eliminati"
            if group[(1 - loser) * N_SLOTS + i] and is_active(s, b, 1 - loser, i):
                s.md[b, 1 - loser, i, MD_FLAGS] |= F_WON  # "possono consolidare la loro posizione di 2D6"
    return loser


MELEE_ROUNDS = 20   # ties fight again; after 20 tied rounds the group stops (no winner)


@kernel(cache=True)
def _clear_choices(s, b):
    for side in range(2):
        for i in range(N_SLOTS):
            s.md[b, side, i, MD_MELEE_TGT] = MELEE_UNCHOSEN
            s.md[b, side, i, MD_MELEE_WPN] = MELEE_UNCHOSEN


@kernel(cache=True)
def melee_start(s, cfg, b):
    """LA FASE DI MISCHIA begins: no group has fought yet."""
    update_engagement(s, cfg, b)
    for side in range(2):
        for i in range(N_SLOTS):
            s.md[b, side, i, MD_FLAGS] &= ~(F_MELEE_GROUP | F_MELEE_DONE)
    _clear_choices(s, b)
    s.g[b, G_MELEE_ROUND] = 0


@kernel(cache=True)
def _current_group(s, b, group):
    """Fill ``group`` with the group fighting now; False when none is."""
    any_member = False
    for k in range(16):
        group[k] = 1 if (s.md[b, k // N_SLOTS, k % N_SLOTS, MD_FLAGS] & F_MELEE_GROUP) else 0
        if group[k]:
            any_member = True
    return any_member


@kernel(cache=True)
def _next_group(s, cfg, b, group):
    """Flood the next group of models in contact that has not fought; False when none is left."""
    for side0 in range(2):
        for i0 in range(N_SLOTS):
            if has_flag(s, b, side0, i0, F_MELEE_DONE) or not on_table(s, b, side0, i0) \
                    or not has_flag(s, b, side0, i0, F_ENGAGED):
                continue
            for k in range(16):
                group[k] = 0
            group[side0 * N_SLOTS + i0] = 1
            changed = True
            while changed:
                changed = False
                for k in range(16):
                    if group[k] == 0:
                        continue
                    sa, ia = k // N_SLOTS, k % N_SLOTS
                    for j in range(N_SLOTS):
                        kk = (1 - sa) * N_SLOTS + j
                        if group[kk] == 0 and on_table(s, b, 1 - sa, j) and in_contact(s, cfg, b, sa, ia, 1 - sa, j):
                            group[kk] = 1
                            changed = True
            for k in range(16):
                if group[k]:
                    s.md[b, k // N_SLOTS, k % N_SLOTS, MD_FLAGS] |= F_MELEE_GROUP | F_MELEE_DONE
            s.g[b, G_MELEE_ROUND] = 0
            _clear_choices(s, b)
            return True
    return False


@kernel(cache=True)
def _pending_choice(s, cfg, b, group):
    """The first attack of this round still to choose: (side, slot, 1 = target / 2 = weapon),
    the active player's models first; choices with one option are made here.  (-1, -1, 0)
    when every attacker has chosen."""
    for k in range(2):
        side = s.g[b, G_ACTIVE] if k == 0 else 1 - s.g[b, G_ACTIVE]
        for i in range(N_SLOTS):
            if group[side * N_SLOTS + i] == 0 or not is_active(s, b, side, i):
                continue
            if cfg.k[K_MELEE_AUTO]:
                # option melee_choices="auto": the choices the scripted bot would make
                s.md[b, side, i, MD_MELEE_TGT] = best_melee_target(s, cfg, b, side, i)
                s.md[b, side, i, MD_MELEE_WPN] = best_melee_weapon_slot(s, cfg, b, side, i)
                if s.md[b, side, i, MD_MELEE_TGT] < 0:
                    s.md[b, side, i, MD_MELEE_TGT] = MELEE_NO_TARGET
                continue
            if s.md[b, side, i, MD_MELEE_TGT] == MELEE_UNCHOSEN:
                n, last = 0, -1
                for j in range(N_SLOTS):
                    if melee_target_reason(s, cfg, b, side, i, j) == OK:
                        n += 1
                        last = j
                if n >= 2:
                    return side, i, 1
                s.md[b, side, i, MD_MELEE_TGT] = last if n == 1 else MELEE_NO_TARGET
            if s.md[b, side, i, MD_MELEE_WPN] == MELEE_UNCHOSEN:
                n, last = 0, MELEE_BARE_HANDS
                for w in range(2):
                    if melee_weapon_reason(s, cfg, b, side, i, w) == OK:
                        n += 1
                        last = w
                if n >= 2 and s.md[b, side, i, MD_MELEE_TGT] >= 0:
                    return side, i, 2
                s.md[b, side, i, MD_MELEE_WPN] = last
    return -1, -1, 0


@kernel(cache=True)
def melee_continue(s, cfg, b):
    """Fight the melee phase on until an attacker's owner must choose (returns (side, slot,
    1 = target / 2 = weapon)) or every group has fought (returns (-1, -1, 0), markers cleared)."""
    group = local_i32(16)
    for _ in range(1000):
        if not _current_group(s, b, group):
            if not _next_group(s, cfg, b, group):
                melee_end(s, cfg, b)
                return -1, -1, 0
        side, i, kind = _pending_choice(s, cfg, b, group)
        if kind != 0:
            return side, i, kind
        rnd = s.g[b, G_MELEE_ROUND]
        result = fight_round(s, cfg, b, group, rnd == 0)
        _clear_choices(s, b)
        if result == -2 and rnd + 1 < MELEE_ROUNDS:
            s.g[b, G_MELEE_ROUND] = rnd + 1
            continue
        for k in range(16):
            s.md[b, k // N_SLOTS, k % N_SLOTS, MD_FLAGS] &= ~F_MELEE_GROUP
    melee_end(s, cfg, b)
    return -1, -1, 0


@kernel(cache=True)
def melee_end(s, cfg, b):
    """The end of LA FASE DI MISCHIA: charge bonuses and the phase's markers go."""
    for side in range(2):
        for i in range(N_SLOTS):
            s.md[b, side, i, MD_FLAGS] &= ~(F_MELEE_GROUP | F_MELEE_DONE)
    _clear_choices(s, b)
    for side in range(2):
        for i in range(N_SLOTS):
            s.md[b, side, i, MD_CHARGE_AT] = 0
            s.md[b, side, i, MD_MELEE_DEALT] = 0
            s.md[b, side, i, MD_FLAGS] &= ~(F_CHARGER | F_COUNTERCHARGER | F_COVER | F_FROM_HIDDEN)
    update_engagement(s, cfg, b)
