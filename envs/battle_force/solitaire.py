"""The solitaire game (SFBF Gioco in solitario): seat 1 is the rulebook's automaton, resolved inside
the core (option solitaire=True; RULES.md 'Solitaire').
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.rng import draw_int
from ..core.structs import local_i32, scratch_i32
from .layout import (AUTO, CC_TYPE, CC_VALUE, CD_LINK, CD_LOC, CD_MODE, CD_SHIP, CD_WHO, CL_HAND, G_ATK_KIND,
                     G_ATK_SHIP, G_POS, G_RETURN, G_STAGE, K_A_CARD, K_A_KIND, K_A_LINE, K_A_NAMED, K_A_NUM, K_A_RACE,
                     K_A_SHIP, K_NC, K_NS, K_WPN, L_MAIN, L_RESERVE, L_SCREEN, MAX_SHIPS, N_CDC, N_DONE, N_FIGHTERS,
                     N_KIND, N_PT_ADD, N_PT_CANCEL, N_PT_CANCEL_WW, N_TO_DISCARD, N_WEAPONS, OK, SC_N, SC_VP, SH_LINE,
                     SH_OWNER, ST_ATK_CARDS, ST_ATTACK, ST_CARRIER, ST_CEASE_KEEP, ST_CLOAK_SETUP, ST_DEFENCE,
                     ST_DISCARD, ST_DISC_DEST, ST_DUEL_PICK, ST_FORMATION, ST_FORM_DEST, ST_FTR_DEF, ST_LINK,
                     ST_MUTINY_ATK, ST_MUTINY_DEF, ST_PF_FIRE, ST_PICK, ST_PLACE, ST_PT_MODE, ST_RACE, ST_REACT,
                     ST_REPAIR, ST_REPAIR_SHIP, ST_SQUADRONS, ST_TARGET, T_CEASE, T_DISENGAGE, T_DISR, T_DRONE,
                     T_ENVELOPER, T_LGUNNER, T_MUTINY, T_OVERLOAD, T_PBF, T_PF, T_PHOTON, T_PLR, T_PLS, T_PRIME,
                     T_SCATTER)
from .ships import damage_of, in_fleet, symbols, uses_formation
from .cards import pop_deck, set_card
from .weapons import attack_limits_reason, wpn_needed
from .attack_table import card_attack_value, is_multiplier
from .formation import count_line, move_reason, set_line
from .attack import attack_phase_card_reason, attacker_state_reason, own_fleet_ships, target_reason


@kernel(cache=True)
def auto_layout(s, cfg, b):
    """SFBF Gioco in solitario: "Piazza le navi nemiche in un ordine a caso, la metà delle navi in
    Prima Linea le altre in Seconda Linea": a random order (its placement order, ``pos``, is the
    automaton's order of ships from then on), the first half (rounded up) in the screen."""
    order = scratch_i32(MAX_SHIPS)
    n = own_fleet_ships(s, b, AUTO, order)
    for j in range(n - 1, 0, -1):
        k = draw_int(s.rng, b, j + 1)
        x = order[j]
        order[j] = order[k]
        order[k] = x
    for j in range(n):
        i = order[j]
        s.g[b, G_POS] += 1
        s.pos[b, i] = s.g[b, G_POS]
        if uses_formation(cfg):
            set_line(s, cfg, b, i, L_SCREEN if j < (n + 1) // 2 else L_MAIN)
        elif s.sh[b, i, SH_LINE] < 0:
            set_line(s, cfg, b, i, L_SCREEN)


@kernel(cache=True, forceinline=True)
def first_by_pos(s, b, i, j):
    """Ship i comes before ship j (-1: none yet) in placement order."""
    return j < 0 or s.pos[b, i] < s.pos[b, j]


@kernel(cache=True)
def auto_target(s, cfg, b):
    """"La nave bersaglio dell'attacco è la prima a sinistra della tua Prima Linea": the agent's
    screen ship placed first (the leftmost; the renderer lists ships in placement order) that may
    be attacked; with none, the first such ship of its main body (RULES.md)."""
    best = -1
    best_main = -1
    for i in range(cfg.k[K_NS]):
        if target_reason(s, cfg, b, AUTO, i) != OK:
            continue
        if s.sh[b, i, SH_LINE] == L_SCREEN or not uses_formation(cfg):
            if first_by_pos(s, b, i, best):
                best = i
        elif first_by_pos(s, b, i, best_main):
            best_main = i
    return best if best >= 0 else best_main


@kernel(cache=True)
def auto_assigned_fires(s, cfg, b, i, t):
    """Can ship i fire the attack cards the automaton has given it plus one of type t?"""
    avail = local_i32(N_KIND)
    for k in range(N_KIND):
        avail[k] = symbols(s, cfg, b, i, k)
    cnt = local_i32(N_WEAPONS)
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO and s.cd[b, c, CD_SHIP] == i:
            x = cfg.card[c, CC_TYPE]
            if x < N_WEAPONS:
                cnt[x] += 1
    cnt[t] += 1
    need = wpn_needed(avail, cnt)
    return need >= 0 and need <= avail[K_WPN]


@kernel(cache=True)
def auto_ship_for(s, cfg, b, c, target):
    """"Se peschi una carta di Attacco, assegnala alla prima nave nemica che può utilizzarla": the
    first automaton ship (placement order) that may attack and can fire weapon card c at the target
    with a weapon not given another card; -1 if none."""
    t = cfg.card[c, CC_TYPE]
    best = -1
    if target < 0:
        return -1
    for i in range(cfg.k[K_NS]):
        if attacker_state_reason(s, cfg, b, AUTO, i) != OK or not first_by_pos(s, b, i, best):
            continue
        if attack_limits_reason(s, cfg, b, i, target, t) == OK and auto_assigned_fires(s, cfg, b, i, t):
            best = i
    return best


@kernel(cache=True)
def auto_multiplier_ok(s, cfg, b, c):
    """A combat card the automaton can use now: on a weapon card it has given a ship (Overload on
    a photon or disruptor, Enveloper on Plasma-S/R, Scatterpack on a drone, Legendary Gunner on any)
    that has no multiplier yet; it goes with that card's ship (-1: none)."""
    tm = cfg.card[c, CC_TYPE]
    for x in range(cfg.k[K_NC]):
        if s.cd[b, x, CD_LOC] != CL_HAND or s.cd[b, x, CD_WHO] != AUTO or s.cd[b, x, CD_SHIP] < 0:
            continue
        tx = cfg.card[x, CC_TYPE]
        if tx >= N_WEAPONS:
            continue
        ok = tm == T_LGUNNER or (tm == T_OVERLOAD and (tx == T_PHOTON or tx == T_DISR)) \
            or (tm == T_ENVELOPER and (tx == T_PLS or tx == T_PLR)) or (tm == T_SCATTER and tx == T_DRONE)
        if not ok:
            continue
        if tm == T_OVERLOAD and uses_formation(cfg) and s.sh[b, s.cd[b, x, CD_SHIP], SH_LINE] == L_MAIN:
            continue
        taken = False
        for m in range(cfg.k[K_NC]):
            if s.cd[b, m, CD_LOC] == CL_HAND and s.cd[b, m, CD_WHO] == AUTO and s.cd[b, m, CD_LINK] == x \
                    and is_multiplier(cfg.card[m, CC_TYPE]):
                taken = True
        if not taken:
            s.cd[b, c, CD_LINK] = x
            return s.cd[b, x, CD_SHIP]
    return -1


@kernel(cache=True)
def auto_prepare_attack(s, cfg, b):
    """The automaton's attack phase, before its decisions (SFBF Gioco in solitario): the attack
    cards it kept from its last turn are given again to the first ships that can use them; then,
    unless it holds a card to play at this first opportunity instead of an attack (PF Flotilla,
    Klingon Mutiny, Planet-Based Fighters, Organian Ceasefire) and no kept attack card, it draws
    action cards one at a time: an attack card goes to the first ship that can use it, a combat
    card onto such a card; the first card it cannot use so ends the drawing and is kept."""
    NC = cfg.k[K_NC]
    target = auto_target(s, cfg, b)
    kept = False
    for c in range(NC):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO:
            s.cd[b, c, CD_SHIP] = -1
            s.cd[b, c, CD_LINK] = -1
            s.cd[b, c, CD_MODE] = 1                 # kept from an earlier turn
    for c in range(NC):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO and cfg.card[c, CC_TYPE] < N_WEAPONS:
            i = auto_ship_for(s, cfg, b, c, target)
            if i >= 0:
                s.cd[b, c, CD_SHIP] = i
                kept = True
    for c in range(NC):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO and is_multiplier(cfg.card[c, CC_TYPE]):
            i = auto_multiplier_ok(s, cfg, b, c)
            if i >= 0:
                s.cd[b, c, CD_SHIP] = i
    if not kept:
        for c in range(NC):
            if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO:
                t = cfg.card[c, CC_TYPE]
                if (t == T_PF or t == T_MUTINY or t == T_PBF or t == T_CEASE) \
                        and attack_phase_card_reason(s, cfg, b, AUTO, c) == OK:
                    return
    for it in range(NC):
        c = pop_deck(s, cfg, b)
        if c < 0:
            return
        set_card(s, b, c, CL_HAND, AUTO)
        t = cfg.card[c, CC_TYPE]
        i = -1
        if t < N_WEAPONS:
            i = auto_ship_for(s, cfg, b, c, target)
        elif is_multiplier(t):
            i = auto_multiplier_ok(s, cfg, b, c)
        if i < 0:
            return                                   # the first card it cannot use
        s.cd[b, c, CD_SHIP] = i


@kernel(cache=True, forceinline=True)
def auto_card(s, cfg, b, c):
    return s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO


@kernel(cache=True)
def auto_attacker(s, cfg, b):
    """The ship that attacks: "Quindi conduci l'attacco utilizzando le carte che questa nave può
    utilizzare": the first ship (placement order) holding an attack card kept from its last turn
    ("deve essere usata nel suo prossimo turno"), else the first holding one drawn this turn."""
    best_kept = -1
    best = -1
    for c in range(cfg.k[K_NC]):
        if auto_card(s, cfg, b, c) and cfg.card[c, CC_TYPE] < N_WEAPONS:
            i = s.cd[b, c, CD_SHIP]
            if i < 0 or attacker_state_reason(s, cfg, b, AUTO, i) != OK:
                continue
            if s.cd[b, c, CD_MODE] == 1:
                if first_by_pos(s, b, i, best_kept):
                    best_kept = i
            elif first_by_pos(s, b, i, best):
                best = i
    return best_kept if best_kept >= 0 else best


@kernel(cache=True)
def auto_free_card(s, cfg, b, mask, last_type):
    """The first legal CARD action on a card the automaton does not keep for an attack (lowest
    card index; a card of type ``last_type`` only when nothing else is legal); -1 if none."""
    a0 = cfg.k[K_A_CARD]
    late = -1
    for c in range(cfg.k[K_NC]):
        if mask[a0 + c] and s.cd[b, c, CD_SHIP] < 0:
            if cfg.card[c, CC_TYPE] == last_type:
                late = a0 + c
            else:
                return a0 + c
    return late


@kernel(cache=True)
def auto_best_ship(s, cfg, b, mask, damaged):
    """The SHIP action on the legal ship placed first, or (``damaged``) the most damaged one."""
    a0 = cfg.k[K_A_SHIP]
    best = -1
    for i in range(cfg.k[K_NS]):
        if not mask[a0 + i]:
            continue
        if best < 0:
            best = i
        elif damaged:
            d, e = damage_of(s, b, i), damage_of(s, b, best)
            if d > e or (d == e and s.pos[b, i] < s.pos[b, best]):
                best = i
        elif s.pos[b, i] < s.pos[b, best]:
            best = i
    return a0 + best if best >= 0 else -1


@kernel(cache=True)
def auto_useless(s, cfg, b, c):
    """A card none of the automaton's ships could ever fire (or a combat card with no such weapon)."""
    t = cfg.card[c, CC_TYPE]
    ts = local_i32(3)
    n = 0
    if t < N_WEAPONS:
        ts[0] = t
        n = 1
    elif t == T_OVERLOAD:
        ts[0] = T_PHOTON
        ts[1] = T_DISR
        n = 2
    elif t == T_ENVELOPER:
        ts[0] = T_PLS
        ts[1] = T_PLR
        n = 2
    elif t == T_SCATTER:
        ts[0] = T_DRONE
        n = 1
    else:
        return False
    avail = local_i32(N_KIND)
    cnt = local_i32(N_WEAPONS)
    for i in range(cfg.k[K_NS]):
        if not in_fleet(s, b, i) or s.sh[b, i, SH_OWNER] != AUTO:
            continue
        for k in range(N_KIND):
            avail[k] = cfg.ship[i, SC_N + k]
        for j in range(n):
            for k in range(N_WEAPONS):
                cnt[k] = 0
            cnt[ts[j]] = 1
            need = wpn_needed(avail, cnt)
            if need >= 0 and need <= avail[K_WPN]:
                return False
    return True


@kernel(cache=True)
def auto_action(s, cfg, b, mask):
    """The automaton's choice at a decision of seat AUTO (SFBF Gioco in solitario; RULES.md
    'Solitaire'); every choice is one of the legal actions in ``mask``."""
    k = cfg.k
    st = s.g[b, G_STAGE]
    a = -1
    named = k[K_A_NAMED]
    if st == ST_PICK or st == ST_RACE:
        # ships and races of a two-player set-up, at random
        lo, hi = (k[K_A_SHIP], k[K_A_LINE]) if st == ST_PICK else (k[K_A_RACE], k[K_A_NAMED])
        n = 0
        for x in range(lo, hi):
            n += mask[x]
        if n > 0:
            r = draw_int(s.rng, b, n)
            for x in range(lo, hi):
                if mask[x]:
                    if r == 0:
                        a = x
                        break
                    r -= 1
    elif st == ST_REPAIR:
        # "alla prima opportunità": a Damage Control / Legendary Engineer; continuous damage control
        a = auto_free_card(s, cfg, b, mask, -1)
        if a < 0 and mask[named + N_CDC]:
            a = named + N_CDC
    elif st == ST_REPAIR_SHIP:
        a = auto_best_ship(s, cfg, b, mask, True)
    elif st == ST_FORMATION:
        a = auto_free_card(s, cfg, b, mask, -1)      # Reinforcements
        if a < 0:
            for i in range(k[K_NS]):
                if mask[k[K_A_SHIP] + i] and s.sh[b, i, SH_LINE] == L_RESERVE and (
                        move_reason(s, cfg, b, AUTO, i, L_SCREEN) == OK
                        or move_reason(s, cfg, b, AUTO, i, L_MAIN) == OK):
                    a = k[K_A_SHIP] + i              # a reserve ship comes back to the battle line
                    break
        if a < 0 and mask[named + N_DONE]:
            a = named + N_DONE
    elif st == ST_FORM_DEST:
        cs = count_line(s, b, AUTO, L_SCREEN)
        cm = count_line(s, b, AUTO, L_MAIN)
        first = L_SCREEN if cs <= cm else L_MAIN
        if mask[k[K_A_LINE] + first]:
            a = k[K_A_LINE] + first
        elif mask[k[K_A_LINE] + 1 - first]:
            a = k[K_A_LINE] + 1 - first
    elif st == ST_ATTACK:
        for t in (T_PF, T_MUTINY, T_PBF, T_CEASE):
            for c in range(k[K_NC]):
                if a < 0 and mask[k[K_A_CARD] + c] and cfg.card[c, CC_TYPE] == t:
                    a = k[K_A_CARD] + c
        if auto_attacker(s, cfg, b) >= 0:
            a = -1                                   # kept or drawn attack cards come first
            i = auto_attacker(s, cfg, b)
            if mask[k[K_A_SHIP] + i]:
                a = k[K_A_SHIP] + i
        if a < 0 and mask[named + N_FIGHTERS]:
            a = named + N_FIGHTERS                   # a carrier "se non hanno carte per effettuarlo"
        if a < 0:
            a = named + N_DONE
    elif st == ST_TARGET:
        kind = s.g[b, G_ATK_KIND]
        t = auto_target(s, cfg, b)
        if t >= 0 and mask[k[K_A_SHIP] + t]:
            a = k[K_A_SHIP] + t
        else:
            # (Klingon Mutiny, or the first target cannot be hit): the first legal, screen first
            best = -1
            for i in range(k[K_NS]):
                if mask[k[K_A_SHIP] + i]:
                    if best < 0 or s.sh[b, i, SH_LINE] < s.sh[b, best, SH_LINE] or (
                            s.sh[b, i, SH_LINE] == s.sh[b, best, SH_LINE] and s.pos[b, i] < s.pos[b, best]):
                        best = i
            if best >= 0:
                a = k[K_A_SHIP] + best
    elif st == ST_CARRIER:
        a = auto_best_ship(s, cfg, b, mask, False)
    elif st == ST_SQUADRONS:
        for x in range(k[K_A_RACE] - 1, k[K_A_NUM] - 1, -1):
            if mask[x]:
                a = x
                break
    elif st == ST_ATK_CARDS:
        ship = s.g[b, G_ATK_SHIP]
        for c in range(k[K_NC]):
            if a < 0 and mask[k[K_A_CARD] + c] and s.cd[b, c, CD_SHIP] == ship:
                a = k[K_A_CARD] + c                  # the cards given to the attacking ship
        if a < 0:
            for c in range(k[K_NC]):
                if a < 0 and mask[k[K_A_CARD] + c] and cfg.card[c, CC_TYPE] == T_PRIME:
                    a = k[K_A_CARD] + c              # any other card at the first opportunity
        if a < 0 and mask[named + N_DONE]:
            a = named + N_DONE
    elif st == ST_LINK:
        # against the strongest attack card; a combat card on the strongest own card
        ret = s.g[b, G_RETURN]
        best_v = -1
        for x in range(k[K_NC]):
            if mask[k[K_A_CARD] + x]:
                v = card_attack_value(s, cfg, b, x) if ret == ST_DEFENCE else cfg.card[x, CC_VALUE]
                if v > best_v:
                    best_v = v
                    a = k[K_A_CARD] + x
    elif st == ST_PT_MODE:
        for n in (N_PT_CANCEL, N_PT_CANCEL_WW, N_PT_ADD):
            if a < 0 and mask[named + n]:
                a = named + n
    elif st == ST_DEFENCE or st == ST_REACT or st == ST_FTR_DEF or st == ST_PF_FIRE or st == ST_MUTINY_ATK \
            or st == ST_MUTINY_DEF:
        # "Ogni altra carta ... deve essere usata in difesa ogni volta può essere utilizzata"
        a = auto_free_card(s, cfg, b, mask, T_DISENGAGE)
        if a < 0:
            a = named + N_DONE
    elif st == ST_PLACE:
        for x in range(k[K_A_NUM] - 1, k[K_A_KIND] - 1, -1):
            if mask[x]:
                a = x                                # circles first, then fighters, WPN, weapons
                break
    elif st == ST_DISCARD:
        for c in range(k[K_NC]):
            if a < 0 and mask[k[K_A_CARD] + c] and auto_useless(s, cfg, b, c):
                a = k[K_A_CARD] + c
        if a < 0:
            a = named + N_DONE
    elif st == ST_DISC_DEST:
        a = named + N_TO_DISCARD
    elif st == ST_DUEL_PICK:
        best_v = -1
        for i in range(k[K_NS]):
            if mask[k[K_A_SHIP] + i] and cfg.ship[i, SC_VP] > best_v:
                best_v = cfg.ship[i, SC_VP]
                a = k[K_A_SHIP] + i
    elif st == ST_CLOAK_SETUP or st == ST_CEASE_KEEP:
        a = named + N_DONE
    if a >= 0 and a < mask.shape[0] and mask[a]:
        return a
    for x in range(mask.shape[0]):
        if mask[x]:
            return x
    return -1
