"""LA MISCHIA: engagement, simultaneous combat, the winner, multiple combats.

Reading (RULES.md "Mischia"): models of opposite sides in base contact are engaged.  In
the melee phase each connected group of engaged models fights: every model that is not
out of combat attacks one engaged enemy (the one with the fewest wounds left: the
seed lets the player choose; this implementation chooses for them) with its best melee
weapon.  All rolls are made before any wound is applied ("in simultanea").  The side
that inflicted more wounds in the group (reaction fire against the charge included) or
eliminated every enemy wins; a tie fights again; every model of the losing side in the
group is removed; winners stay where they are (consolidating 2D6 is a "may": not offered).
"""
from __future__ import annotations

import math

import numba as nb

from ..core.structs import local_i32
from .general import d6, has_flag, is_active, on_table, radius, stat
from .layout import (EX_MARTIAL, F_WON, F_CHARGER, F_COUNTERCHARGER, F_COVER, F_ENGAGED, F_FROM_HIDDEN, F_PRONE,
                     F_SATURATED, G_TURN, MD_CHARGE_AT, MD_FATIGUE, MD_FLAGS, MD_FLASH_UNTIL, MD_MELEE_DEALT,
                     MD_STATUS, MD_WOUNDS, N_SLOTS, OOC, PF_ADM, PF_AT, PF_EXPERT, PF_FS, PF_M0, PF_R0, REMOVED,
                     WP_MELEE, WP_RULES, WR_BARE, WR_BLADE, WR_MONO, WR_PISTOL, WR_POWER)
from .shooting import protect

CONTACT = 0.05   # bases within 0.05 cm are in contact


@nb.njit(cache=True)
def in_contact(s, cfg, b, sa, ia, sb, ib):
    d = math.hypot(s.pos[b, sa, ia, 0] - s.pos[b, sb, ib, 0], s.pos[b, sa, ia, 1] - s.pos[b, sb, ib, 1])
    return d - radius(s, cfg, b, sa, ia) - radius(s, cfg, b, sb, ib) <= CONTACT


@nb.njit(cache=True)
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
                s.md[b, 0, i, MD_FLAGS] |= F_ENGAGED
                s.md[b, 1, j, MD_FLAGS] |= F_ENGAGED


@nb.njit(cache=True)
def melee_weapon(s, cfg, b, side, i):
    """The model's best melee weapon (POTENZIATA, then MONOMOLECOLARE, then any); -1 = bare hands."""
    best, score = -1, -1
    for w in range(2):
        wpn = cfg.pf[s.md[b, side, i, 0], PF_M0 + w]
        if wpn < 0:
            continue
        r = cfg.wp[wpn, WP_RULES]
        sc = 3 if r & WR_POWER else (2 if r & WR_MONO else 1)
        if r & WR_BARE:
            sc = 0
        if sc > score:
            best, score = wpn, sc
    return best


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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


@nb.njit(cache=True)
def pick_target(s, cfg, b, side, i):
    best, best_left = -1, 999
    for j in range(N_SLOTS):
        if on_table(s, b, 1 - side, j) and in_contact(s, cfg, b, side, i, 1 - side, j):
            left = stat(s, cfg, b, 1 - side, j, PF_FS) - s.md[b, 1 - side, j, MD_WOUNDS]
            if s.md[b, 1 - side, j, MD_STATUS] == OOC:
                left = 100   # out of combat: last
            if left < best_left:
                best, best_left = j, left
    return best


@nb.njit(cache=True)
def fight_group(s, cfg, b, group):
    """One melee group (``group[side * N_SLOTS + i]`` = 1 for members) to its end."""
    hits_on = local_i32(16)    # pending hits per model (side * N_SLOTS + slot)
    six_on = local_i32(16)
    rules_on = local_i32(16)
    for rnd in range(20):
        first = rnd == 0
        for k in range(16):
            hits_on[k] = 0
            six_on[k] = 0
            rules_on[k] = 0
        for side in range(2):
            for i in range(N_SLOTS):
                if group[side * N_SLOTS + i] == 0 or not is_active(s, b, side, i):
                    continue
                t = pick_target(s, cfg, b, side, i)
                if t < 0:
                    continue
                wpn = melee_weapon(s, cfg, b, side, i)
                wr = WR_BARE if wpn < 0 else cfg.wp[wpn, WP_RULES]
                attacks = stat(s, cfg, b, side, i, PF_AT) + extra_attacks(s, cfg, b, side, i)
                if first:
                    attacks += s.md[b, side, i, MD_CHARGE_AT]   # CARICA: +1D3 attacks
                mod = melee_modifier(s, cfg, b, side, i, first, wr)
                adm = stat(s, cfg, b, side, i, PF_ADM)
                flashed = s.md[b, side, i, MD_FLASH_UNTIL] >= s.g[b, G_TURN]
                for _ in range(attacks):
                    r = d6(s, b)
                    hit = r == 6 or (r != 1 and not flashed and r + mod >= adm)
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
            continue   # "in caso di pareggio effettua un ulteriore combattimento"
        if loser >= 0:
            for i in range(N_SLOTS):
                if group[loser * N_SLOTS + i] and on_table(s, b, loser, i):
                    s.md[b, loser, i, MD_STATUS] = REMOVED   # "automaticamente eliminati"
                if group[(1 - loser) * N_SLOTS + i] and is_active(s, b, 1 - loser, i):
                    s.md[b, 1 - loser, i, MD_FLAGS] |= F_WON  # "possono consolidare la loro posizione di 2D6"
        return


@nb.njit(cache=True)
def melee_phase(s, cfg, b):
    """LA FASE DI MISCHIA: every group of engaged models fights."""
    update_engagement(s, cfg, b)
    group = local_i32(16)
    done = local_i32(16)
    for k in range(16):
        done[k] = 0
    for side0 in range(2):
        for i0 in range(N_SLOTS):
            if done[side0 * N_SLOTS + i0] or not on_table(s, b, side0, i0) or not has_flag(s, b, side0, i0, F_ENGAGED):
                continue
            # flood the group of models in contact
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
                    done[k] = 1
            fight_group(s, cfg, b, group)
    for side in range(2):
        for i in range(N_SLOTS):
            s.md[b, side, i, MD_CHARGE_AT] = 0
            s.md[b, side, i, MD_MELEE_DEALT] = 0
            s.md[b, side, i, MD_FLAGS] &= ~(F_CHARGER | F_COUNTERCHARGER | F_COVER | F_FROM_HIDDEN)
    update_engagement(s, cfg, b)
