"""The table of attacks, defences and reactions (SFBF 4.4, Tabella): which card doubles or cancels
which (``link_ok``), what is still live, defence reductions under cloak and web, and what an attack
deals once every card is on the table (SFBF 4.5 Risoluzione: ``attack_damage``), fighters' and PF
Flotillas' fire included.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import scratch_i32
from .layout import (AK_FIGHTERS, AK_PBF, AK_PF, AK_SHIP, CC_DEF, CC_TYPE, CC_VALUE, CD_LINK, CD_LOC, CD_OFF, CD_WHO,
                     CL_ATK, CL_DEF, CL_SHIP, CX_WW, DB_DISENGAGE, D_DRONE, D_PLASMA, G_ATK_KIND, G_CANCELS, G_DEF_BITS,
                     G_DEF_FIRE, G_PT_ADD, G_RETURN, G_ROLL, G_TARGET, K_NC, K_PF_MODE, K_TRAD, MAX_CARDS, N_WEAPONS,
                     SH_CLOAK, SH_WEB, SH_WW, ST_ATK_CARDS, ST_DEFENCE, ST_FTR_DEF, ST_PF_FIRE, ST_REACT, T_DISR,
                     T_DRONE, T_ECCM, T_ECM, T_EM, T_ENVELOPER, T_LGUNNER, T_OVERLOAD, T_PHOTON, T_PLR, T_PLS, T_RS,
                     T_SCATTER, T_TRACTOR)
from .players import half_up
from .ships import cloaked, in_fleet, webbed
from .cards import em_ecm_per_card, is_phaser, is_plasma, is_seeking
from .weapons import ship_fires


@kernel(cache=True, inline="always")
def is_multiplier(t):
    return t == T_OVERLOAD or t == T_ENVELOPER or t == T_SCATTER or t == T_LGUNNER


@kernel(cache=True, inline="always")
def on_table(s, b, c):
    loc = s.cd[b, c, CD_LOC]
    return loc == CL_ATK or loc == CL_DEF


@kernel(cache=True)
def multiplier_of(s, cfg, b, x):
    """The combat card doubling weapon card x (Overload, Enveloper, Scatterpack, Legendary
    Gunner), or -1."""
    for c in range(cfg.k[K_NC]):
        if on_table(s, b, c) and s.cd[b, c, CD_LINK] == x and is_multiplier(cfg.card[c, CC_TYPE]) \
                and s.cd[b, c, CD_LOC] == s.cd[b, x, CD_LOC]:
            return c
    return -1


@kernel(cache=True, inline="always")
def is_canceller(t):
    # defence cards that remove one drone card or its scatterpack (SFBF 4.4 C1, C2, D)
    return t == T_DRONE or t == T_PLR or t == T_PLS or t == T_TRACTOR or t == T_SCATTER


@kernel(cache=True)
def cancels_on(s, cfg, b, x):
    n = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_DEF and s.cd[b, c, CD_LINK] == x and not s.cd[b, c, CD_OFF]:
            t = cfg.card[c, CC_TYPE]
            if is_canceller(t) or ((t == T_ECM or t == T_EM) and cfg.k[K_TRAD]):
                n += 1
    return n


@kernel(cache=True)
def layers(s, cfg, b, x):
    """A drone card with a scatterpack takes two cancellations: the first removes the
    scatterpack, the second the drone (SFBF 4.4 C1, D)."""
    return 2 if (cfg.card[x, CC_TYPE] == T_DRONE and multiplier_of(s, cfg, b, x) >= 0) else 1


@kernel(cache=True)
def em_on_target(s, cfg, b, c):
    """Card c is an Erratic Maneuvers on the current target, not cancelled by an ECCM for this attack."""
    return (s.cd[b, c, CD_LOC] == CL_SHIP and s.cd[b, c, CD_WHO] == s.g[b, G_TARGET]
            and cfg.card[c, CC_TYPE] == T_EM and s.cd[b, c, CD_OFF] == 0)


@kernel(cache=True)
def attack_live(s, cfg, b, x):
    """Attack card x still counts (not every layer cancelled)."""
    return s.cd[b, x, CD_LOC] == CL_ATK and cancels_on(s, cfg, b, x) < layers(s, cfg, b, x)


@kernel(cache=True)
def defence_halved(s, cfg, b):
    """Cloak and web halve the effect of every defence card of the ship (SFBF Occultamento,
    Ragnatela); rounded down (RULES.md)."""
    t = s.g[b, G_TARGET]
    return (s.sh[b, t, SH_CLOAK] != 0) or (s.sh[b, t, SH_WEB] != 0)


@kernel(cache=True)
def defence_effect(s, cfg, b, v):
    """A defence card's reduction v, halved (rounded down) under the target's cloak or web
    and again while its Wild Weasel works (SFBF 4.4 F: "Altre difese hanno effetto al 50%")."""
    if defence_halved(s, cfg, b):
        v = v // 2
    if ww_active(s, b):
        v = v // 2
    return v


@kernel(cache=True)
def ww_active(s, b):
    t = s.g[b, G_TARGET]
    return s.sh[b, t, SH_WW] != 0 and not (s.g[b, G_CANCELS] & CX_WW)


@kernel(cache=True)
def card_attack_value(s, cfg, b, x):
    """Damage of attack card x after its multiplier, cancellations and phaser reductions."""
    t = cfg.card[x, CC_TYPE]
    v = cfg.card[x, CC_VALUE]
    n_cancel = cancels_on(s, cfg, b, x)
    m = multiplier_of(s, cfg, b, x)
    lay = 2 if (t == T_DRONE and m >= 0) else 1
    if n_cancel >= lay:
        return 0
    if m >= 0 and n_cancel == 0:
        v *= 2
    # SFBF 4.4 C3: a phaser fired in defence reduces a drone or plasma card by its value
    red = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_DEF and s.cd[b, c, CD_LINK] == x and is_phaser(cfg.card[c, CC_TYPE]):
            red += defence_effect(s, cfg, b, cfg.card[c, CC_VALUE])
    v = max(0, v - red)
    # SFBF 4.4 F: Wild Weasel eliminates drone and plasma cards (with their enveloper/scatterpack)
    if is_seeking(t) and ww_active(s, b):
        return 0
    return v


@kernel(cache=True)
def defence_fire_total(s, cfg, b, who):
    """Damage that player ``who`` (-1: every player) fired this attack at fighters or at a PF
    Flotilla: each weapon card's value, doubled by its multiplier."""
    tot = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_DEF and (who < 0 or s.cd[b, c, CD_WHO] == who) \
                and cfg.card[c, CC_TYPE] < N_WEAPONS:
            v = cfg.card[c, CC_VALUE]
            if multiplier_of(s, cfg, b, c) >= 0:
                v *= 2
            tot += v
    return tot


@kernel(cache=True, inline="always")
def pf_fire_total(s, cfg, b):
    """Damage every player fired at a PF Flotilla (SFBF Flotta di Caccia Veloci)."""
    return defence_fire_total(s, cfg, b, -1)


@kernel(cache=True)
def attack_damage(s, cfg, b):
    """SFBF 4.5 Risoluzione: the damage the target takes."""
    kind = s.g[b, G_ATK_KIND]
    t = s.g[b, G_TARGET]
    if s.g[b, G_DEF_BITS] & DB_DISENGAGE:
        return 0                 # SFBF 4.4 G: the whole attack is avoided
    NC = cfg.k[K_NC]
    per_card = em_ecm_per_card(cfg, kind)
    total = 0
    seeking = 0                  # damage of the drone and plasma cards (not "fuoco diretto")
    if kind == AK_SHIP:
        # each attack card's damage after its multiplier, cancellations and phaser reductions
        vals = scratch_i32(MAX_CARDS)
        ids = scratch_i32(MAX_CARDS)
        n = 0
        for x in range(NC):
            if s.cd[b, x, CD_LOC] == CL_ATK and cfg.card[x, CC_TYPE] < N_WEAPONS:
                vals[n] = card_attack_value(s, cfg, b, x)
                ids[n] = x
                n += 1
        if per_card and not cfg.k[K_TRAD]:
            # SFBF 4.4 B, E: an ECM or Erratic Maneuvers reduces the attack card it was played on (with
            # its Overload, Scatterpack, ...: "la totalità dell'attacco"), never below 0: "l'eccedenza
            # del suo effetto viene ignorata"; an Erratic Maneuvers left on the ship from an earlier
            # attack goes on the strongest card (RULES.md)
            for rnd in range(2):
                for c in range(NC):
                    ty = cfg.card[c, CC_TYPE]
                    if ty == T_ECM:
                        if s.cd[b, c, CD_LOC] != CL_DEF or s.cd[b, c, CD_OFF] or rnd == 1:
                            continue
                    elif ty != T_EM or not em_on_target(s, cfg, b, c):
                        continue
                    x = s.cd[b, c, CD_LINK]
                    linked = x >= 0 and s.cd[b, x, CD_LOC] == CL_ATK
                    if linked != (rnd == 0):
                        continue
                    j = -1
                    for jj in range(n):
                        if (linked and ids[jj] == x) or (not linked and (j < 0 or vals[jj] > vals[j])):
                            j = jj
                    if j >= 0:
                        vals[j] = max(0, vals[j] - defence_effect(s, cfg, b, cfg.card[c, CC_VALUE]))
        elif cfg.k[K_TRAD]:
            # traditional rules: each Erratic Maneuvers on the target removes the strongest attack card
            for c in range(NC):
                if em_on_target(s, cfg, b, c):
                    j = -1
                    for jj in range(n):
                        if j < 0 or vals[jj] > vals[j]:
                            j = jj
                    if j >= 0:
                        vals[j] = 0
        for j in range(n):
            total += vals[j]
            if is_seeking(cfg.card[ids[j], CC_TYPE]):
                seeking += vals[j]
        if total > 0:
            total += s.g[b, G_PT_ADD]          # Prime Team: +1 after the multipliers
    elif kind == AK_FIGHTERS or kind == AK_PBF:
        # SFBF Attacco dei caccia F4: dice minus the defence fire; negative means no effect
        total = max(0, s.g[b, G_ROLL] + s.g[b, G_PT_ADD] - s.g[b, G_DEF_FIRE])
    elif kind == AK_PF:
        total = s.g[b, G_ROLL] + s.g[b, G_PT_ADD]
    if total <= 0:
        return 0
    # reductions on the whole attack: Reinforce Shields 3; ECM its value and each Erratic Maneuvers
    # 4 when they act on the whole attack (fighters, PFs, option em_ecm='whole_attack')
    halved = defence_halved(s, cfg, b)
    red = 0
    for c in range(NC):
        ty = cfg.card[c, CC_TYPE]
        if s.cd[b, c, CD_LOC] == CL_DEF and not s.cd[b, c, CD_OFF]:
            if ty == T_RS or (ty == T_ECM and not per_card):
                red += defence_effect(s, cfg, b, cfg.card[c, CC_VALUE])
        elif ty == T_EM and not per_card and em_on_target(s, cfg, b, c):
            red += defence_effect(s, cfg, b, cfg.card[c, CC_VALUE])
    total = max(0, total - red)
    if ww_active(s, b):
        # SFBF 4.4 F: other damage halved after the other reductions (7 becomes 4); a cloaked or
        # webbed ship's Wild Weasel is itself halved: three quarters of the damage get through
        total = (3 * total + 3) // 4 if halved else half_up(total)
    if cloaked(s, b, t):
        total = half_up(total)   # SFBF Regole sull'Occultamento: "tutto il danno" halved, 5 become 3
    elif webbed(s, b, t):
        # SFBF Regole sulla Ragnatela Toliana: "Il fuoco diretto ... è ridotto del 50%, per eccesso":
        # drone and plasma damage passes whole, the rest (direct fire, fighters F4, PFs) is halved
        seek = min(total, seeking)
        total = seek + half_up(total - seek)
    return total


@kernel(cache=True)
def defender_can_fire(s, cfg, b, i, t, vs_fighters):
    """Ship i fires weapon card type t in defence: not cloaked, no Wild Weasel on it, no phasers
    under a web (except at fighters, SFBF Attacco dei caccia F4), and a free matching weapon."""
    if not in_fleet(s, b, i) or cloaked(s, b, i) or s.sh[b, i, SH_WW]:
        return False
    if webbed(s, b, i) and is_phaser(t) and not vs_fighters:
        return False
    return ship_fires(s, cfg, b, i, t)


@kernel(cache=True)
def def_weapon_link_ok(s, cfg, b, m, x):
    """Defence weapon card m against attack card x (SFBF 4.4 C1-C3 and the card symbols)."""
    if s.cd[b, x, CD_LOC] != CL_ATK or not attack_live(s, cfg, b, x):
        return False
    tm = cfg.card[m, CC_TYPE]
    tx = cfg.card[x, CC_TYPE]
    bits = cfg.card[m, CC_DEF]
    if tx == T_DRONE:
        return (bits & D_DRONE) != 0 and (tm == T_DRONE or tm == T_PLR or tm == T_PLS or is_phaser(tm))
    if is_plasma(tx):
        return (bits & D_PLASMA) != 0 and is_phaser(tm)
    return False


@kernel(cache=True)
def link_ok(s, cfg, b, m, x):
    """May pending card m be linked to card x in the current stage?"""
    if m < 0 or x == m:
        return False
    tm = cfg.card[m, CC_TYPE]
    p = s.cd[b, m, CD_WHO]
    ret = s.g[b, G_RETURN]
    if is_multiplier(tm) and (ret == ST_ATK_CARDS or ret == ST_FTR_DEF or ret == ST_PF_FIRE):
        loc = CL_ATK if ret == ST_ATK_CARDS else CL_DEF
        if s.cd[b, x, CD_LOC] != loc or s.cd[b, x, CD_WHO] != p:
            return False
        tx = cfg.card[x, CC_TYPE]
        if tx >= N_WEAPONS or multiplier_of(s, cfg, b, x) >= 0:
            return False
        if tm == T_OVERLOAD:
            return tx == T_PHOTON or tx == T_DISR
        if tm == T_ENVELOPER:
            return tx == T_PLS or tx == T_PLR
        if tm == T_SCATTER:
            return tx == T_DRONE
        return True              # Legendary Gunner: any one fire card
    if ret == ST_DEFENCE:
        if tm == T_TRACTOR or tm == T_SCATTER:
            return s.cd[b, x, CD_LOC] == CL_ATK and cfg.card[x, CC_TYPE] == T_DRONE and attack_live(s, cfg, b, x)
        if (tm == T_ECM or tm == T_EM) and em_ecm_per_card(cfg, s.g[b, G_ATK_KIND]):
            # SFBF 4.4 B, E: on one attack card (traditional rules: it removes that card)
            return s.cd[b, x, CD_LOC] == CL_ATK and cfg.card[x, CC_TYPE] < N_WEAPONS and attack_live(s, cfg, b, x)
        if tm < N_WEAPONS:
            return def_weapon_link_ok(s, cfg, b, m, x)
        return False
    if ret == ST_REACT:
        t = s.g[b, G_TARGET]
        if tm == T_ECCM:
            # SFBF 4.4 B, E: cancels one ECM or one Erratic Maneuvers on the target for this attack
            if s.cd[b, x, CD_LOC] == CL_DEF and cfg.card[x, CC_TYPE] == T_ECM and not s.cd[b, x, CD_OFF]:
                return True
            return em_on_target(s, cfg, b, x)
        if tm == T_TRACTOR:
            return x == s.sh[b, t, SH_WW] - 1 and not (s.g[b, G_CANCELS] & CX_WW)
    return False


@kernel(cache=True)
def any_link(s, cfg, b, m):
    for x in range(cfg.k[K_NC]):
        if link_ok(s, cfg, b, m, x):
            return True
    return False


@kernel(cache=True)
def any_link_for(s, cfg, b, m, ret):
    old = s.g[b, G_RETURN]
    s.g[b, G_RETURN] = ret
    ok = any_link(s, cfg, b, m)
    s.g[b, G_RETURN] = old
    return ok


@kernel(cache=True)
def pf_remaining(s, cfg, b):
    """Option pf_damage: 'remaining_boxes' (12 minus the damage it took, rule text) or
    'remaining_pfs' (6 PFs, one lost per 2 damage, card table)."""
    f = s.g[b, G_DEF_FIRE]
    if cfg.k[K_PF_MODE] == 0:
        return max(0, 12 - f)
    return max(0, 6 - f // 2)
