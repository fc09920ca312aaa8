"""FUOCO, FUOCO SOPPRESSIVO, FUOCO DI REAZIONE, the protection rolls and LO STATO FISICO.

Also the REGOLE SPECIALI ARSENALE that act when shooting (RAFFICA, PISTOLA, ASSALTO,
BINATA, POTENZIATA, IMPULSO, INERZIALI, FRAMMENTAZIONE, FUMOGENO, SATURAZIONE,
FLASHBANG, DA LANCIO) and the optional rules MUNIZIONI LIMITATE, INCEPPAMENTO, LA NOTTE.
"""
from __future__ import annotations

import math

from ..core.kernel import kernel
from .bank import bank_amount, bank_reach, bank_roll
from .general import (d6, test_d6, has_flag, is_active, model_distance, on_table, radius, round_up, set_flag, stat)
from .layout import (TK_ARMOUR, TK_HIT, TK_SHIELD, TK_JAM, TK_OVERLAP, TK_SPOT, TK_SUPPRESSIVE, TK_THROW, GEO_SHOT, ACTIVE, EX_WEAPONS, F_ALERT, F_HIDDEN, F_PRONE, F_SATURATED, F_WOUNDED, F_PIN_TEST,
                     G_AMMO0, G_COORD0, G_NIGHT, G_SEGN0, G_TURN, K_AMMO, K_JAM, MAX_SMOKE, MD_FATIGUE, MD_FLAGS,
                     MD_FLASH_UNTIL, MD_JAMMED, MD_MELEE_DEALT, MD_MORALE, MD_STATUS, MD_WOUNDS, N_SLOTS, OK, OOC,
                     PF_ADT, PF_ARM, PF_COS, PF_EXPERT, PF_FS, PF_R0, PF_RULES, PF_SHIELD, PF_SN, R_ALLY_BLOCKS,
                     R_JAMMED, R_NO_AMMO, R_NO_TARGET, R_NO_WEAPON, R_NOT_IN_SIGHT, R_OUT_OF_RANGE, REMOVED,
                     SR_CAMO, WP_RANGE, WP_RATE, WP_RULES, WR_ASSAULT, WR_BURST, WR_FLASH, WR_FRAG, WR_IMPULSE,
                     WR_INDIRECT, WR_INERTIAL, WR_PISTOL, WR_POWER, WR_SATURATION, WR_SMOKE, WR_THROWN, WR_TWIN,
                     WR_MONO, F_ENGAGED, N_DIST, R_NOT_AREA_WEAPON, R_OFF_TABLE, TABLE_CM)
from .movement import direction_angle
from .sight import ALLY_IN_WAY, COVERED_BY_ENEMY, OBSCURED, SEEN, SMOKE, first_model_on_line, sight, sight_to_point

FRAG_RADIUS = 3.0   # FRAMMENTAZIONE: "tutti i modelli entro i 3cm (misura dalla basetta)"


@kernel(cache=True, inline="always")
def weapon_of(s, cfg, b, side, i, w):
    return cfg.pf[s.md[b, side, i, 0], PF_R0 + w]


@kernel(cache=True, inline="always")
def max_range(s, cfg, b, side, i, wpn):
    if cfg.wp[wpn, WP_RULES] & WR_THROWN:
        return 10.0 * stat(s, cfg, b, side, i, PF_COS) + 12.0   # DA LANCIO: COS x 10 + 2D6 at most
    return float(cfg.wp[wpn, WP_RANGE])


@kernel(cache=True)
def fire_reason(s, cfg, b, side, i, w, ts, ti):
    """Can (side, i) shoot weapon slot ``w`` at (ts, ti)?  (Range is checked here: the mask
    offers only targets in range, RULES.md "Fuoco".)"""
    wpn = weapon_of(s, cfg, b, side, i, w)
    if wpn < 0:
        return R_NO_WEAPON
    if s.md[b, side, i, MD_JAMMED] & (1 << w):
        return R_JAMMED
    if cfg.k[K_AMMO] and s.g[b, G_AMMO0 + side] <= 0:
        return R_NO_AMMO
    if not on_table(s, b, ts, ti) or (ts == side and ti == i):
        return R_NO_TARGET
    if has_flag(s, b, ts, ti, F_HIDDEN):
        return R_NOT_IN_SIGHT
    # range before sight: measuring is cheap, sight lines are not
    out_of_range = model_distance(s, cfg, b, side, i, ts, ti) > max_range(s, cfg, b, side, i, wpn)
    if out_of_range:
        return R_OUT_OF_RANGE
    vis = sight(s, cfg, b, side, i, ts, ti, True)
    coord = s.g[b, G_COORD0 + side] == ti + 1 and ts != side
    if (cfg.wp[wpn, WP_RULES] & WR_INDIRECT) and coord and not has_flag(s, b, ts, ti, F_HIDDEN):
        pass  # COORDINATE DI TIRO: indirect fire at the signalled model needs no line of sight
    else:
        if vis & ALLY_IN_WAY:
            return R_ALLY_BLOCKS
        if not vis & SEEN:
            return R_NOT_IN_SIGHT
    return OK


@kernel(cache=True)
def hit_modifier(s, cfg, b, side, i, wpn, ts, ti, vis, dist, reaction):
    """FUOCO's bonus and malus (plus those of other headings that act on the fire roll)."""
    rules = cfg.wp[wpn, WP_RULES]
    mod = 0
    thrown = (rules & WR_THROWN) != 0
    if not thrown and not (rules & (WR_PISTOL | WR_ASSAULT)) and dist > cfg.wp[wpn, WP_RANGE] / 2.0:
        mod -= 1                          # "a più di metà gittata"
    if vis & OBSCURED:
        mod -= 1                          # "oscurato (basta una minima parte)"
        if has_flag(s, b, ts, ti, F_ALERT):
            mod -= 1                      # IN ALLERTA: partially obscured from the shooter
    if vis & SMOKE:
        mod -= 1                          # FUMOGENO: shooting through the smoke
    if dist <= 3.0 * stat(s, cfg, b, side, i, PF_SN):
        mod += 1                          # "entro il valore di SNx3"
    if has_flag(s, b, side, i, 1 << 14):  # F_FROM_HIDDEN: NASCOSTO, firing from hidden
        mod += 1
    if has_flag(s, b, side, i, 1 << 5):   # F_AIMED: MIRA
        mod += 1
    if has_flag(s, b, ts, ti, F_PRONE):
        mod -= 1                          # A TERRA
    if stat(s, cfg, b, ts, ti, PF_RULES) & SR_CAMO:
        mod -= 1                          # MIMETISMO
    if reaction:
        mod -= 1                          # FUOCO DI REAZIONE
    mod -= s.md[b, side, i, MD_FATIGUE]   # LA FATICA
    if s.g[b, G_SEGN0 + side] == ti + 1 and ts != side:
        mod += 1                          # SEGNALATORE
    if (rules & WR_INDIRECT) and s.g[b, G_COORD0 + side] == ti + 1 and ts != side:
        mod += 1                          # COORDINATE DI TIRO
    if stat(s, cfg, b, side, i, PF_EXPERT) == EX_WEAPONS:
        mod += 1                          # ESPERTO (armi)
    return mod


@kernel(cache=True)
def hit_roll(s, cfg, b, side, i, target, mod):
    """One to-hit die: natural 1 misses, natural 6 hits (TEST); FLASHBANG: "colpisce solo al 6".
    Returns (hit, natural)."""
    r = d6(s, b)
    if r == 1:
        return False, r
    if r == 6:
        return True, r
    if s.md[b, side, i, MD_FLASH_UNTIL] >= s.g[b, G_TURN]:
        return False, r
    margin = r + mod - target
    return bank_roll(s, cfg, b, side, i, TK_HIT, margin >= 0, margin), r   # ESPLORAZIONE


@kernel(cache=True)
def night_spotted(s, cfg, b, side, i, dist):
    """LA NOTTE: a target (or a point) ``dist`` cm away is made out on 2D6 + SN x 10 >= dist, a
    roll the ESPLORAZIONE bank may turn (fire, a throw at a point, a charge)."""
    spot = d6(s, b) + d6(s, b) + 10 * stat(s, cfg, b, side, i, PF_SN)
    return bank_reach(s, cfg, b, side, i, TK_SPOT, spot, dist)


@kernel(cache=True)
def throw_roll(s, cfg, b, side, i):
    """DA LANCIO: how far the model throws, COS x 10 + 2D6 cm (compared with the distance once
    the hit dice are rolled, through the ESPLORAZIONE bank: TK_THROW)."""
    return 10 * stat(s, cfg, b, side, i, PF_COS) + d6(s, b) + d6(s, b)


@kernel(cache=True)
def wound(s, cfg, b, ts, ti):
    """LE FERITE: a wound marker; FS markers = fuori combattimento (lying down); a further
    wound on a model out of combat removes it.  Returns 1 (a wound was inflicted)."""
    if s.md[b, ts, ti, MD_STATUS] == OOC:
        s.md[b, ts, ti, MD_STATUS] = REMOVED
        return 1
    s.md[b, ts, ti, MD_WOUNDS] += 1
    s.md[b, ts, ti, MD_FLAGS] |= F_WOUNDED
    if s.md[b, ts, ti, MD_WOUNDS] >= stat(s, cfg, b, ts, ti, PF_FS):
        s.md[b, ts, ti, MD_STATUS] = OOC
        s.md[b, ts, ti, MD_FLAGS] &= ~(F_ENGAGED | F_HIDDEN | F_ALERT)
    return 1


@kernel(cache=True)
def protection_roll(s, cfg, b, ts, ti, r, need, kind):
    """A shield or armour die ``r`` of model (ts, ti) against ``need``: a natural 1 fails and a
    natural 6 succeeds (TEST), the rest may be turned by the ESPLORAZIONE bank."""
    if r == 1 or r == 6:
        return r >= need
    return bank_roll(s, cfg, b, ts, ti, kind, r >= need, r - need)


@kernel(cache=True)
def protect(s, cfg, b, ts, ti, natural_hit, wrules, melee):
    """The protection rolls: "prima il tiro scudo, poi il tiro armatura" (shield: D6 >= shield
    value; armour: D6 >= ARM, RULES.md "Tiri protezione").  POTENZIATA negates the armour
    roll, IMPULSO (and MONOMOLECOLARE in melee) make the target repeat a successful armour
    roll.  Colpi Letali: a natural 6 to hit and an armour roll of 1 remove the model; a model
    without armour (or whose armour is negated) still rolls the D6.
    Returns wounds inflicted (0 or 1)."""
    if not is_active(s, b, ts, ti) and s.md[b, ts, ti, MD_STATUS] != OOC:
        return 0
    sh = stat(s, cfg, b, ts, ti, PF_SHIELD)
    if sh > 0 and protection_roll(s, cfg, b, ts, ti, d6(s, b), sh, TK_SHIELD):
        return 0
    arm = stat(s, cfg, b, ts, ti, PF_ARM)
    r = d6(s, b)
    saved = arm > 0 and not (wrules & WR_POWER) and protection_roll(s, cfg, b, ts, ti, r, arm, TK_ARMOUR)
    if saved and ((wrules & WR_IMPULSE) or (melee and (wrules & WR_MONO))):
        r = d6(s, b)
        saved = protection_roll(s, cfg, b, ts, ti, r, arm, TK_ARMOUR)
    if saved:
        return 0
    if natural_hit == 6 and r == 1:
        s.md[b, ts, ti, MD_STATUS] = REMOVED    # Colpi Letali
        return 1
    return wound(s, cfg, b, ts, ti)


@kernel(cache=True)
def spend_ammo(s, cfg, b, side):
    if cfg.k[K_AMMO]:
        s.g[b, G_AMMO0 + side] -= 1


@kernel(cache=True)
def place_smoke(s, b, x, y):
    for q in range(MAX_SMOKE):
        if s.smoke[b, q, 2] == 0:
            s.smoke[b, q, 0] = x
            s.smoke[b, q, 1] = y
            s.smoke[b, q, 2] = s.g[b, G_TURN] + 1   # the turn it was placed, + 1
            return


@kernel(cache=True)
def hits_on_model(s, cfg, b, os, j, hits, sixes, wrules, suppressive):
    """The hits of one FUOCO on model (os, j): markers and effects, then the protection rolls.
    Returns the wounds inflicted."""
    dealt = 0
    if hits > 0:
        s.md[b, os, j, MD_MORALE] += 1 if not suppressive else 0   # "ottiene anche un segnalino morale"
        if wrules & WR_SATURATION:
            s.md[b, os, j, MD_FLAGS] |= F_SATURATED
        if wrules & WR_FLASH:
            s.md[b, os, j, MD_FLASH_UNTIL] = s.g[b, G_TURN] + 1   # "fino alla fine del turno seguente"
        if wrules & (WR_FRAG | WR_FLASH):
            s.md[b, os, j, MD_FLAGS] |= F_PIN_TEST      # IL TEST DI INCHIODAMENTO (RULES.md)
    for h in range(hits):
        if suppressive:
            # FUOCO SOPPRESSIVO: "1D3 segnalini morale invece di essere ferito"
            # (an amount roll of the firing side the ESPLORAZIONE bank may move)
            s.md[b, os, j, MD_MORALE] += bank_amount(s, cfg, b, 1 - os, -1, TK_SUPPRESSIVE, (d6(s, b) + 1) // 2, True, 0)
            s.md[b, os, j, MD_FLAGS] |= F_PIN_TEST
        elif not (wrules & (WR_SMOKE | WR_FLASH)):
            dealt += protect(s, cfg, b, os, j, 6 if h < sixes else 0, wrules, False)
    return dealt


@kernel(cache=True)
def apply_hits(s, cfg, b, side, ts, ti, hits, sixes, wrules, suppressive, count_for_melee, shooter):
    """Hits on (ts, ti) (FRAMMENTAZIONE: and on every model within 3 cm of it)."""
    dealt = 0
    for os in range(2):
        for j in range(N_SLOTS):
            if not on_table(s, b, os, j):
                continue
            if not (os == ts and j == ti):
                if not (wrules & WR_FRAG) or model_distance(s, cfg, b, ts, ti, os, j) > FRAG_RADIUS:
                    continue
            dealt += hits_on_model(s, cfg, b, os, j, hits, sixes, wrules, suppressive)
    if count_for_melee and shooter >= 0:
        s.md[b, side, shooter, MD_MELEE_DEALT] += dealt
    return dealt


@kernel(cache=True)
def resolve_fire(s, cfg, b, side, i, w, ts, ti, suppressive, reaction):
    """One FUOCO / FUOCO SOPPRESSIVO / FUOCO DI REAZIONE with weapon slot ``w`` at (ts, ti).
    Returns the wounds inflicted.  The caller has checked fire_reason at declaration; what
    changed since (the target moved away, went to ground, ...) is measured now."""
    wpn = weapon_of(s, cfg, b, side, i, w)
    wrules = cfg.wp[wpn, WP_RULES]
    spend_ammo(s, cfg, b, side)
    s.geo[b, GEO_SHOT + 0] = s.pos[b, side, i, 0]
    s.geo[b, GEO_SHOT + 1] = s.pos[b, side, i, 1]
    s.geo[b, GEO_SHOT + 2] = s.pos[b, ts, ti, 0]
    s.geo[b, GEO_SHOT + 3] = s.pos[b, ts, ti, 1]
    s.geo[b, GEO_SHOT + 4] = 1
    if not on_table(s, b, ts, ti):
        return 0
    vis = sight(s, cfg, b, side, i, ts, ti, True)
    indirect_ok = (wrules & WR_INDIRECT) != 0 and s.g[b, G_COORD0 + side] == ti + 1
    if not vis & SEEN and not indirect_ok:
        return 0
    dist = model_distance(s, cfg, b, side, i, ts, ti)
    if s.g[b, G_NIGHT]:
        if not night_spotted(s, cfg, b, side, i, dist):
            return 0                        # LA NOTTE: beyond the spotting roll the target is out of sight
    # Modelli Sovrapposti: 4+ to shoot the chosen target (with the cover malus), else the first in line
    if vis & COVERED_BY_ENEMY and not indirect_ok:
        if test_d6(s, cfg, b, side, i, 4, 0, TK_OVERLAP):
            vis |= OBSCURED
        else:
            ti = first_model_on_line(s, cfg, b, side, i, ts, ti)
            vis = sight(s, cfg, b, side, i, ts, ti, False) | SEEN
            dist = model_distance(s, cfg, b, side, i, ts, ti)
            s.geo[b, GEO_SHOT + 2] = s.pos[b, ts, ti, 0]
            s.geo[b, GEO_SHOT + 3] = s.pos[b, ts, ti, 1]
    thrown = (wrules & WR_THROWN) != 0
    reach = 0
    if thrown:
        # DA LANCIO: hit roll without range malus, then it must reach
        reach = throw_roll(s, cfg, b, side, i)
    rate = cfg.wp[wpn, WP_RATE]
    if (wrules & WR_BURST) and dist <= round_up(cfg.wp[wpn, WP_RANGE] / 2.0):
        rate += 1                           # RAFFICA: +1 shot at half range (rounded up)
    if dist > max_range(s, cfg, b, side, i, wpn):
        return 0                            # "se sei fuori gittata i colpi mancano automaticamente"
    mod = hit_modifier(s, cfg, b, side, i, wpn, ts, ti, vis, dist, reaction)
    adt = stat(s, cfg, b, side, i, PF_ADT)
    hits = 0
    sixes = 0
    ones = 0
    for _ in range(rate):
        hit, nat = hit_roll(s, cfg, b, side, i, adt, mod)
        if not hit and (wrules & WR_TWIN):
            if nat == 1:
                ones += 1
            hit, nat = hit_roll(s, cfg, b, side, i, adt, mod)   # BINATA: repeat a failed hit roll
        if nat == 1:
            ones += 1
        if hit:
            hits += 1
            if nat == 6:
                sixes += 1
    # INCEPPAMENTO (option): as many 1s as a third of CADENZA jams the weapon
    if cfg.k[K_JAM] and not thrown and not (wrules & WR_IMPULSE) and ones >= max(1, round_up(cfg.wp[wpn, WP_RATE] / 3.0)):
        if not ((wrules & WR_INERTIAL) and test_d6(s, cfg, b, side, i, 4, 0, TK_JAM)):
            s.md[b, side, i, MD_JAMMED] |= 1 << w
    if thrown and (hits == 0 or not bank_reach(s, cfg, b, side, i, TK_THROW, reach, dist)):
        return 0
    if hits > 0 and (wrules & WR_SMOKE):
        place_smoke(s, b, s.pos[b, ts, ti, 0], s.pos[b, ts, ti, 1])
    # sixes first: hits are ordered so the first ``sixes`` of them carry a natural 6
    return apply_hits(s, cfg, b, side, ts, ti, hits, sixes, wrules, suppressive,
                      reaction and has_flag(s, b, side, i, F_ENGAGED), i)


# -- DA LANCIO at a point of the table (RULES.md "REGOLE SPECIALI ARSENALE") -------------------------
@kernel(cache=True)
def throw_point(s, cfg, b, side, i, wpn, choice):
    """The point of throw choice ``choice`` (the movement lattice, ``direction * 5 + quarters``):
    direction ``choice // 5`` (22.5 degree steps, as MOVIMENTO), ``quarters``/4 of the longest
    throw (COS x 10 + 12) measured from the thrower's base edge."""
    d = choice // (N_DIST + 1)
    q = choice % (N_DIST + 1)
    a = direction_angle(d)
    r = radius(s, cfg, b, side, i) + max_range(s, cfg, b, side, i, wpn) * q / N_DIST
    return s.pos[b, side, i, 0] + r * math.cos(a), s.pos[b, side, i, 1] + r * math.sin(a)


@kernel(cache=True)
def point_fire_reason(s, cfg, b, side, i, w, choice):
    """Can (side, i) throw weapon slot ``w`` at point ``choice``?  DA LANCIO: "indica un
    bersaglio o un punto"; only weapons with an area (FRAMMENTAZIONE, FUMOGENO) are offered
    points (RULES.md); the point is on the table, in the front arc and not behind blocking terrain."""
    wpn = weapon_of(s, cfg, b, side, i, w)
    if wpn < 0:
        return R_NO_WEAPON
    rules = cfg.wp[wpn, WP_RULES]
    if not (rules & WR_THROWN) or not (rules & (WR_FRAG | WR_SMOKE)):
        return R_NOT_AREA_WEAPON
    if s.md[b, side, i, MD_JAMMED] & (1 << w):
        return R_JAMMED
    if cfg.k[K_AMMO] and s.g[b, G_AMMO0 + side] <= 0:
        return R_NO_AMMO
    if choice % (N_DIST + 1) == 0:
        return R_NO_TARGET          # the thrower's own base is not a point to throw at
    px, py = throw_point(s, cfg, b, side, i, wpn, choice)
    if px < 0.0 or px > TABLE_CM or py < 0.0 or py > TABLE_CM:
        return R_OFF_TABLE
    if not sight_to_point(s, cfg, b, side, i, px, py) & SEEN:
        return R_NOT_IN_SIGHT
    return OK


@kernel(cache=True)
def point_hit_modifier(s, cfg, b, side, i, vis, dist):
    """FUOCO's modifiers that belong to the thrower when there is no target model (RULES.md):
    no range malus (DA LANCIO), -1 through smoke, +1 within SN x 3, +1 from hidden, +1 after
    MIRA, -1 per fatigue marker, +1 ESPERTO armi."""
    mod = 0
    if vis & SMOKE:
        mod -= 1                          # FUMOGENO: throwing through the smoke
    if dist <= 3.0 * stat(s, cfg, b, side, i, PF_SN):
        mod += 1                          # "entro il valore di SNx3"
    if has_flag(s, b, side, i, 1 << 14):  # F_FROM_HIDDEN
        mod += 1
    if has_flag(s, b, side, i, 1 << 5):   # F_AIMED: MIRA
        mod += 1
    mod -= s.md[b, side, i, MD_FATIGUE]   # LA FATICA
    if stat(s, cfg, b, side, i, PF_EXPERT) == EX_WEAPONS:
        mod += 1                          # ESPERTO (armi)
    return mod


@kernel(cache=True)
def resolve_point_fire(s, cfg, b, side, i, w, choice):
    """FUOCO with a thrown weapon at a point (DA LANCIO): the throw reaches COS x 10 + 2D6, the
    hit roll has no range malus; a hit that reaches the point applies the weapon there:
    FUMOGENO places its marker at the point, FRAMMENTAZIONE hits every model whose base is
    within 3 cm of the point (the blast centred on it).  Returns the wounds inflicted."""
    wpn = weapon_of(s, cfg, b, side, i, w)
    wrules = cfg.wp[wpn, WP_RULES]
    spend_ammo(s, cfg, b, side)
    px, py = throw_point(s, cfg, b, side, i, wpn, choice)
    s.geo[b, GEO_SHOT + 0] = s.pos[b, side, i, 0]
    s.geo[b, GEO_SHOT + 1] = s.pos[b, side, i, 1]
    s.geo[b, GEO_SHOT + 2] = px
    s.geo[b, GEO_SHOT + 3] = py
    s.geo[b, GEO_SHOT + 4] = 1
    vis = sight_to_point(s, cfg, b, side, i, px, py)
    if not vis & SEEN:
        return 0                            # the thrower turned or was moved by a reaction
    dist = math.hypot(px - s.pos[b, side, i, 0], py - s.pos[b, side, i, 1]) - radius(s, cfg, b, side, i)
    if s.g[b, G_NIGHT]:
        if not night_spotted(s, cfg, b, side, i, dist):
            return 0                        # LA NOTTE: the point must be made out first, as a target
    reach = throw_roll(s, cfg, b, side, i)
    mod = point_hit_modifier(s, cfg, b, side, i, vis, dist)
    adt = stat(s, cfg, b, side, i, PF_ADT)
    hits = 0
    sixes = 0
    for _ in range(cfg.wp[wpn, WP_RATE]):
        hit, nat = hit_roll(s, cfg, b, side, i, adt, mod)
        if not hit and (wrules & WR_TWIN):
            hit, nat = hit_roll(s, cfg, b, side, i, adt, mod)
        if hit:
            hits += 1
            if nat == 6:
                sixes += 1
    if hits == 0 or not bank_reach(s, cfg, b, side, i, TK_THROW, reach, dist):
        return 0                            # "se il tiro per colpire fallisce, il colpo manca"
    if wrules & WR_SMOKE:
        place_smoke(s, b, px, py)
    dealt = 0
    if wrules & WR_FRAG:
        for os in range(2):
            for j in range(N_SLOTS):
                if not on_table(s, b, os, j):
                    continue
                gap = math.hypot(s.pos[b, os, j, 0] - px, s.pos[b, os, j, 1] - py) - radius(s, cfg, b, os, j)
                if gap <= FRAG_RADIUS:
                    dealt += hits_on_model(s, cfg, b, os, j, hits, sixes, wrules, False)
    return dealt
