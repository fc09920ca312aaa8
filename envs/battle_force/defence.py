"""Defence and reactions (SFBF 4.4 Difesa, Tabella ... Reazione alla Difesa, Equipaggio esperto): the
defender's cards in the order it likes, the attacker's answers (ECCM, Tractor Beam, Prime Team),
the windows in which each may play, and the target's choice that opens them.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.rng import roll_die
from .layout import (AK_FIGHTERS, AK_PBF, AK_PF, AK_SHIP, CC_TYPE, CD_LINK, CD_LOC, CD_MODE, CD_OFF, CD_SHIP, CD_WHO,
                     CL_DEF, CL_HAND, CL_RES, CL_SHIP, CX_CLOAK, CX_EM, CX_WEB, CX_WW, DB_DISENGAGE, DB_EM, DB_WW,
                     G_ACTIVE, G_ATK_KIND, G_ATK_SHIP, G_CANCELS, G_DECIDER, G_DEFENDER, G_DEF_BITS, G_DIE1, G_DIE2,
                     G_HELPER, G_PASSES, G_PENDING, G_PT_ADD, G_RETURN, G_ROLL, G_STAGE, G_TARGET, K_ADVANCED, K_NC,
                     K_TRAD, L_MAIN, L_RESERVE, L_SCREEN, N_WEAPONS, OK, PT_MODE_ADD, PT_MODE_CANCEL, PT_MODE_CANCEL_WW,
                     R_CARD_USE, R_COMBINE, R_DEF_SYMBOL, R_LINK, R_NO_WEAPON, R_ONCE, R_RANGE, R_SHIP_STATE, R_STAGE,
                     R_WW_EM, SH_CLOAK, SH_DIS, SH_EM, SH_LINE, SH_OWNER, SH_WEB, SH_WW, ST_ATK_CARDS, ST_DEFENCE,
                     ST_FTR_DEF, ST_LINK, ST_MUTINY_ATK, ST_PT_MODE, ST_REACT, T_DISENGAGE, T_DRONE, T_ECCM, T_ECM,
                     T_EM, T_PRIME, T_RS, T_SCATTER, T_TRACTOR, T_WW)
from .players import set_stage
from .ships import cloaked, uses_formation
from .cards import em_ecm_per_card, refill_empty_hand, set_card, stamp_seq
from .attack_table import any_link_for, defender_can_fire, pf_remaining, ww_active
from .formation import forced_advance, set_line
from .resolution import resolve_attack


@kernel(cache=True)
def pt_cancel_possible(s, cfg, b, ww):
    """Can a Prime Team cancel the target's cloak or web (``ww`` False) or its Wild Weasel (True)?
    SFBF Equipaggio esperto: "nega l'effetto dell'Occultamento, della Ragnatela o l'uso di un
    Vascello Diversivo"; the player chooses which."""
    t = s.g[b, G_TARGET]
    if t < 0:
        return False
    if not ww:
        return s.sh[b, t, SH_CLOAK] != 0 or s.sh[b, t, SH_WEB] != 0
    st = s.g[b, G_STAGE]
    if st == ST_PT_MODE:
        st = s.g[b, G_RETURN]
    return st == ST_REACT and ww_active(s, b)


@kernel(cache=True)
def count_own_def(s, cfg, b, p, typ):
    n = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_DEF and s.cd[b, c, CD_WHO] == p and cfg.card[c, CC_TYPE] == typ:
            n += 1
    return n


@kernel(cache=True)
def defence_card_reason(s, cfg, b, p, c):
    """SFBF 4.4 Difesa and the table of attacks, defences and reactions."""
    t = cfg.card[c, CC_TYPE]
    kind = s.g[b, G_ATK_KIND]
    tg = s.g[b, G_TARGET]
    bits = s.g[b, G_DEF_BITS]
    if t == T_RS:
        return OK
    if t == T_ECM:
        if em_ecm_per_card(cfg, kind) and not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_LINK
        return OK
    if t == T_EM:
        if s.sh[b, tg, SH_CLOAK] or s.sh[b, tg, SH_WEB]:
            return R_SHIP_STATE  # a cloaked or webbed ship cannot use Erratic Maneuvers
        # (a second Erratic Maneuvers on a ship that has one is allowed: SFBF 4.4 B forbids only
        # the same card twice and a Wild Weasel with it against the same attack)
        if bits & DB_WW:
            return R_WW_EM       # not with a Wild Weasel against the same attack
        if em_ecm_per_card(cfg, kind) and not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_LINK
        return OK
    if t == T_WW:
        if s.sh[b, tg, SH_WW]:
            return R_ONCE
        if bits & DB_EM:
            return R_WW_EM
        return OK
    if t == T_DISENGAGE:
        return OK
    if kind != AK_SHIP:
        return R_CARD_USE        # against fighters and PFs only the cards above (weapons fire before)
    if t < N_WEAPONS:
        if not defender_can_fire(s, cfg, b, tg, t, False):
            return R_NO_WEAPON
        if not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_DEF_SYMBOL
        return OK
    if t == T_TRACTOR:
        if s.sh[b, tg, SH_WW] or cloaked(s, b, tg):
            return R_SHIP_STATE  # Wild Weasel: no weapon, tractor beam included, in defence
        if not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_LINK
        return OK
    if t == T_SCATTER:
        if count_own_def(s, cfg, b, p, T_SCATTER) >= count_own_def(s, cfg, b, p, T_DRONE):
            return R_COMBINE     # a scatterpack goes with a drone card fired in defence (C1)
        if not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_LINK
        return OK
    return R_CARD_USE


@kernel(cache=True)
def react_card_reason(s, cfg, b, p, c):
    """The attacker's answers to a defence: ECCM, Tractor Beam, Prime Team."""
    t = cfg.card[c, CC_TYPE]
    kind = s.g[b, G_ATK_KIND]
    if t == T_ECCM:
        return OK if any_link_for(s, cfg, b, c, ST_REACT) else R_LINK
    if t == T_TRACTOR:
        # SFBF 4.4 F (X): "Se l'attacco è stato lanciato da una nave in Prima Linea": the ship that
        # fired or, for fighters, the carrier that launched them must be in the screen
        if (kind == AK_SHIP or kind == AK_FIGHTERS) and uses_formation(cfg) \
                and s.sh[b, s.g[b, G_ATK_SHIP], SH_LINE] != L_SCREEN:
            return R_RANGE
        return OK if any_link_for(s, cfg, b, c, ST_REACT) else R_LINK
    if t == T_PRIME:
        return OK
    return R_CARD_USE


@kernel(cache=True)
def play_to_table(s, b, c, loc, p):
    set_card(s, b, c, loc, p)
    stamp_seq(s, b, c)


@kernel(cache=True)
def open_windows(s, cfg, b):
    """SFBF 4.4: the defender plays defences in the order it likes; the attacker may answer;
    the exchange ends when both pass in a row (RULES.md 'Defence and reaction windows')."""
    s.g[b, G_PASSES] = 0
    set_stage(s, b, ST_DEFENCE, s.g[b, G_DEFENDER])


@kernel(cache=True)
def window_pass(s, cfg, b):
    s.g[b, G_PASSES] += 1
    if s.g[b, G_PASSES] >= 2:
        resolve_attack(s, cfg, b)
    elif s.g[b, G_STAGE] == ST_DEFENCE:
        set_stage(s, b, ST_REACT, s.g[b, G_ACTIVE])
    else:
        set_stage(s, b, ST_DEFENCE, s.g[b, G_DEFENDER])


@kernel(cache=True)
def window_played(s, cfg, b):
    s.g[b, G_PASSES] = 0


@kernel(cache=True)
def after_pending(s, cfg, b):
    """Back to the stage the pending card was played from, once it is linked / placed."""
    st = s.g[b, G_RETURN]
    who = s.g[b, G_DECIDER]
    s.g[b, G_PENDING] = -1
    set_stage(s, b, st, who)
    if st == ST_DEFENCE or st == ST_REACT:
        window_played(s, cfg, b)


@kernel(cache=True)
def start_link(s, cfg, b, c, ret):
    s.g[b, G_PENDING] = c
    s.g[b, G_RETURN] = ret
    set_stage(s, b, ST_LINK, s.g[b, G_DECIDER])


@kernel(cache=True)
def start_prime(s, cfg, b, c, ret):
    s.g[b, G_PENDING] = c
    s.g[b, G_RETURN] = ret
    if pt_cancel_possible(s, cfg, b, False) or pt_cancel_possible(s, cfg, b, True):
        set_stage(s, b, ST_PT_MODE, s.g[b, G_DECIDER])
    else:
        apply_prime(s, cfg, b, PT_MODE_ADD)


@kernel(cache=True)
def apply_prime(s, cfg, b, mode):
    """SFBF Equipaggio esperto: +1 to the attack (after doublings) or to a die roll; or cancel
    the target's cloak or web (marker removed), or its Wild Weasel for this attack, as chosen."""
    c = s.g[b, G_PENDING]
    s.cd[b, c, CD_MODE] = mode
    if mode == PT_MODE_ADD:
        s.g[b, G_PT_ADD] += 1
    elif mode == PT_MODE_CANCEL:
        t = s.g[b, G_TARGET]
        if s.sh[b, t, SH_CLOAK]:
            s.sh[b, t, SH_CLOAK] = 0
            s.g[b, G_CANCELS] |= CX_CLOAK
        else:
            s.sh[b, t, SH_WEB] = 0
            s.g[b, G_CANCELS] |= CX_WEB
    else:
        s.g[b, G_CANCELS] |= CX_WW
    after_pending(s, cfg, b)


@kernel(cache=True)
def apply_link(s, cfg, b, x):
    m = s.g[b, G_PENDING]
    s.cd[b, m, CD_LINK] = x
    tm = cfg.card[m, CC_TYPE]
    if s.g[b, G_RETURN] == ST_REACT:
        if tm == T_ECCM:
            s.cd[b, x, CD_OFF] = 1           # that ECM / Erratic Maneuvers does not count this attack
            if cfg.card[x, CC_TYPE] == T_EM:
                s.g[b, G_CANCELS] |= CX_EM
        elif tm == T_TRACTOR:
            s.g[b, G_CANCELS] |= CX_WW     # the "anchor" tactic against a Wild Weasel
    after_pending(s, cfg, b)


@kernel(cache=True)
def play_defence(s, cfg, b, p, c):
    t = cfg.card[c, CC_TYPE]
    tg = s.g[b, G_TARGET]
    if s.cd[b, c, CD_LOC] == CL_RES:
        set_card(s, b, c, CL_HAND, p)      # SFBF Carte Azione di Riserva, note (a)
        return
    if t == T_EM or t == T_WW or t == T_DISENGAGE:
        # these stay on the ship until the end of its owner's next turn
        set_card(s, b, c, CL_SHIP, tg)
        stamp_seq(s, b, c)
        if t == T_EM:
            s.sh[b, tg, SH_EM] = c + 1       # (the last one; clear_ship_cards finds them all)
            s.g[b, G_DEF_BITS] |= DB_EM
        elif t == T_WW:
            s.sh[b, tg, SH_WW] = c + 1
            s.g[b, G_DEF_BITS] |= DB_WW
            if uses_formation(cfg) and s.sh[b, tg, SH_LINE] == L_MAIN:
                set_line(s, cfg, b, tg, L_SCREEN)   # SFBF 4.4 F (X)
        else:
            s.sh[b, tg, SH_DIS] = c + 1
            s.g[b, G_DEF_BITS] |= DB_DISENGAGE
        refill_empty_hand(s, cfg, b, p)
        if t == T_DISENGAGE:
            if cfg.k[K_ADVANCED] and uses_formation(cfg):
                set_line(s, cfg, b, tg, L_RESERVE)  # SFBF 4.4 G (X): to the reserve
                forced_advance(s, cfg, b, p)
            resolve_attack(s, cfg, b)
            return
        if t == T_EM and em_ecm_per_card(cfg, s.g[b, G_ATK_KIND]) and not cfg.k[K_TRAD]:
            start_link(s, cfg, b, c, ST_DEFENCE)   # SFBF 4.4 B: the attack card it reduces
            return
        window_played(s, cfg, b)
        return
    play_to_table(s, b, c, CL_DEF, p)
    refill_empty_hand(s, cfg, b, p)
    if t < N_WEAPONS:
        s.cd[b, c, CD_SHIP] = tg
    if t < N_WEAPONS or t == T_TRACTOR or t == T_SCATTER or (t == T_ECM and em_ecm_per_card(cfg, s.g[b, G_ATK_KIND])):
        start_link(s, cfg, b, c, ST_DEFENCE)
        return
    window_played(s, cfg, b)


@kernel(cache=True)
def choose_target(s, cfg, b, p, i):
    kind = s.g[b, G_ATK_KIND]
    s.g[b, G_TARGET] = i
    s.g[b, G_DEFENDER] = s.sh[b, i, SH_OWNER]
    s.g[b, G_HELPER] = -1
    d = s.g[b, G_DEFENDER]
    if kind == AK_SHIP:
        set_stage(s, b, ST_ATK_CARDS, p)
    elif kind == AK_FIGHTERS or kind == AK_PBF:
        set_stage(s, b, ST_FTR_DEF, d)
    elif kind == AK_PF:
        # SFBF Flotta di Caccia Veloci: 2d6 plus what is left of the flotilla
        d1 = roll_die(s.rng, s.dice_script, s.dice, b, 6)
        d2 = roll_die(s.rng, s.dice_script, s.dice, b, 6)
        s.g[b, G_DIE1] = d1
        s.g[b, G_DIE2] = d2
        s.g[b, G_ROLL] = d1 + d2 + pf_remaining(s, cfg, b)
        open_windows(s, cfg, b)
    else:
        set_stage(s, b, ST_MUTINY_ATK, p)


@kernel(cache=True, inline="always")
def prime_mode_reason(s, cfg, b, mode):
    """SFBF Equipaggio esperto: +1, or cancel the target's cloak or web, or its Wild Weasel, where it has one."""
    if s.g[b, G_STAGE] != ST_PT_MODE:
        return R_STAGE
    if mode == PT_MODE_ADD:
        return OK
    return OK if pt_cancel_possible(s, cfg, b, mode == PT_MODE_CANCEL_WW) else R_STAGE
