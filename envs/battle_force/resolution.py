"""The resolution of an attack (SFBF 4.5 Risoluzione): the defender places the damage, a ship is
destroyed (its card kept for its points) or a PF Flotilla and fighters take their losses, and
every card used in or against the attack is discarded before play goes on.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (AK_FIGHTERS, AK_NONE, AK_PF, CD_LINK, CD_LOC, CD_OFF, CL_SHIP, G_ACTIVE, G_ATK_KIND, G_ATK_SHIP,
                     G_ATTACKS, G_CANCELS, G_DEFENDER, G_DEF_BITS, G_DEF_FIRE, G_DMG_BY, G_DMG_LEFT, G_DMG_SHIP, G_DUEL,
                     G_ENDED, G_FTR_LOST, G_HELPER, G_NO_MORE_ATTACKS, G_ORDER_KIND, G_PENDING, G_PT_ADD, G_PT_SUB,
                     G_ROLL, G_SDECK_N, G_SQUADRONS, G_TABLE_N, G_TARGET, K_DRAW_DISCARD, K_END_ELIM, K_END_KILLS,
                     K_FTR, K_NC, K_NS, K_SECOND_ATTACK, K_TRAD, N_KIND, ORD_TABLE, PL_KILLS, PL_SCORE, SC_N, SC_VP,
                     SH_CLOAK, SH_COV, SH_DOWN, SH_LINE, SH_LOC, SH_OWNER, SH_SHOTS, SH_WEB, SL_DECK, SL_OUT, SL_VP,
                     ST_DISCARD, ST_DISC_ORDER, ST_PLACE)
from .players import set_stage
from .ships import fleet_size, free_spaces
from .cards import clear_ship_cards, order_card_ok, to_discard
from .attack_table import attack_damage, on_table
from .formation import forced_advance
from .victory import finish, game_should_end
from .sequence import enter_attack, enter_discard


@kernel(cache=True)
def destroy_ship(s, cfg, b, i, by, no_vp):
    """SFBF 4.5 Risoluzione: the destroyer keeps the ship card for its victory points; a ship
    destroyed by a PF Flotilla gives no points and goes to the bottom of the ship deck."""
    owner = s.sh[b, i, SH_OWNER]
    clear_ship_cards(s, cfg, b, i)
    for k in range(N_KIND):
        s.sh[b, i, SH_COV + k] = 0
    s.sh[b, i, SH_CLOAK] = 0
    s.sh[b, i, SH_WEB] = 0
    s.sh[b, i, SH_DOWN] = 0
    s.sh[b, i, SH_LINE] = 0
    if s.g[b, G_DUEL]:
        s.sh[b, i, SH_LOC] = SL_OUT   # tie-break duel: the scores are already settled
        s.sh[b, i, SH_OWNER] = -1
    elif no_vp or by < 0:
        n = s.g[b, G_SDECK_N]
        for j in range(n, 0, -1):
            s.sdeck[b, j] = s.sdeck[b, j - 1]
        s.sdeck[b, 0] = i
        s.g[b, G_SDECK_N] = n + 1
        s.sh[b, i, SH_LOC] = SL_DECK
        s.sh[b, i, SH_OWNER] = -1
    else:
        s.sh[b, i, SH_LOC] = SL_VP
        s.sh[b, i, SH_OWNER] = by
        s.pl[b, by, PL_SCORE] += cfg.ship[i, SC_VP]
        s.pl[b, by, PL_KILLS] += 1
        if cfg.k[K_END_KILLS] > 0 and s.pl[b, by, PL_KILLS] >= cfg.k[K_END_KILLS] and not s.g[b, G_DUEL]:
            s.g[b, G_ENDED] = 1      # optional end condition 3
    forced_advance(s, cfg, b, owner)
    if cfg.k[K_END_ELIM] and fleet_size(s, b, owner) == 0 and not s.g[b, G_DUEL]:
        s.g[b, G_ENDED] = 1          # optional end condition 4


@kernel(cache=True)
def cover_all(s, cfg, b, i):
    for k in range(N_KIND):
        s.sh[b, i, SH_COV + k] = cfg.ship[i, SC_N + k]


@kernel(cache=True)
def cover_auto(s, cfg, b, i, n):
    """Traditional rules: damage is a count, so where markers go does not matter (circles first)."""
    for k in range(N_KIND - 1, -1, -1):
        while n > 0 and s.sh[b, i, SH_COV + k] < cfg.ship[i, SC_N + k]:
            s.sh[b, i, SH_COV + k] += 1
            n -= 1


@kernel(cache=True)
def resolve_attack(s, cfg, b):
    dmg = attack_damage(s, cfg, b)
    kind = s.g[b, G_ATK_KIND]
    if kind == AK_FIGHTERS:
        # SFBF F5: 6+ damage to the fighters destroys a squadron, 12+ both
        fire = s.g[b, G_DEF_FIRE]
        lost = 2 if fire >= 12 else (1 if fire >= 6 else 0)
        lost = min(lost, s.g[b, G_SQUADRONS])
        c = s.g[b, G_ATK_SHIP]
        for k in range(lost):
            if s.sh[b, c, SH_COV + K_FTR] < cfg.ship[c, SC_N + K_FTR]:
                s.sh[b, c, SH_COV + K_FTR] += 1
        s.g[b, G_FTR_LOST] = lost
    by = s.g[b, G_ACTIVE]
    no_vp = kind == AK_PF        # a PF kill gives no victory points
    begin_damage(s, cfg, b, s.g[b, G_TARGET], dmg, by, no_vp)


@kernel(cache=True)
def begin_damage(s, cfg, b, i, n, by, no_vp):
    """SFBF 4.5: the defender places one marker per damage point, one per space; with every
    space covered, the next point destroys the ship."""
    if n <= 0:
        attack_end(s, cfg, b)
        return
    free = free_spaces(s, cfg, b, i)
    if n > free:
        destroy_ship(s, cfg, b, i, by, no_vp)
        attack_end(s, cfg, b)
        return
    if n == free:
        cover_all(s, cfg, b, i)
        attack_end(s, cfg, b)
        return
    if cfg.k[K_TRAD]:
        cover_auto(s, cfg, b, i, n)
        attack_end(s, cfg, b)
        return
    s.g[b, G_DMG_SHIP] = i
    s.g[b, G_DMG_LEFT] = n
    s.g[b, G_DMG_BY] = by
    set_stage(s, b, ST_PLACE, s.sh[b, i, SH_OWNER])


@kernel(cache=True)
def attack_end(s, cfg, b):
    """Every card used in or against the attack is discarded (SFBF 4.5); option draw_discard: the
    active player puts them on the pile one at a time, in the order it likes (SFBF Regole
    Opzionali, Pescare: "è il giocatore attivo a determinare quali carte giocate ... sono in cima
    agli scarti")."""
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_SHIP:
            s.cd[b, c, CD_OFF] = 0           # an ECCM cancels an Erratic Maneuvers for one attack
            s.cd[b, c, CD_LINK] = -1
    for i in range(cfg.k[K_NS]):
        s.sh[b, i, SH_SHOTS] = 0
    kind = s.g[b, G_ATK_KIND]
    s.g[b, G_CANCELS] = 0
    s.g[b, G_PT_ADD] = 0
    s.g[b, G_PT_SUB] = 0
    s.g[b, G_DEF_BITS] = 0
    s.g[b, G_DEF_FIRE] = 0
    s.g[b, G_ROLL] = 0
    s.g[b, G_SQUADRONS] = 0
    s.g[b, G_HELPER] = -1
    s.g[b, G_PENDING] = -1
    s.g[b, G_TARGET] = -1
    s.g[b, G_DEFENDER] = -1
    s.g[b, G_DMG_LEFT] = 0
    s.g[b, G_ATK_KIND] = AK_NONE
    if kind != AK_NONE:
        s.g[b, G_ATTACKS] += 1
    if cfg.k[K_DRAW_DISCARD] and s.g[b, G_TABLE_N] >= 2 and not game_should_end(s, cfg, b):
        s.g[b, G_ORDER_KIND] = ORD_TABLE
        set_stage(s, b, ST_DISC_ORDER, s.g[b, G_ACTIVE])
        return
    for c in range(cfg.k[K_NC]):
        if on_table(s, b, c):
            to_discard(s, b, c)
    after_attack(s, cfg, b)


@kernel(cache=True)
def order_next(s, cfg, b, c):
    """Card c goes on top of the discard pile; when none is left, play goes on."""
    to_discard(s, b, c)
    for x in range(cfg.k[K_NC]):
        if order_card_ok(s, cfg, b, x):
            return
    if s.g[b, G_ORDER_KIND] == ORD_TABLE:
        s.g[b, G_ORDER_KIND] = 0
        after_attack(s, cfg, b)
    else:
        s.g[b, G_ORDER_KIND] = 0
        set_stage(s, b, ST_DISCARD, s.g[b, G_ACTIVE])


@kernel(cache=True)
def after_attack(s, cfg, b):
    if game_should_end(s, cfg, b):
        finish(s, cfg, b)
        return
    if cfg.k[K_SECOND_ATTACK] and s.g[b, G_ATTACKS] < 2 and not s.g[b, G_NO_MORE_ATTACKS]:
        enter_attack(s, cfg, b)  # optional rule: a second attack from another ship
    else:
        enter_discard(s, cfg, b)
