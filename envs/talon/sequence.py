"""Talon's sequence of play and initiative (rulebook sections 3 and 4): turns,
impulses, the initiative check, the end of the round and of the game; advancing to the
next decision and applying one."""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.structs import borrow
from .layout import (END_DONE, END_PULL, END_RETREAT0, END_RETREAT1, END_SUPPLY, GR_COUNT, G_COLL_QUEUE,
                     G_COLL_RESUME, G_DECIDER, G_DONE, G_END_STEP, G_GROUP, G_IMPULSE, G_INIT, G_MOVE_PLAYER,
                     G_PENDING_TURN, G_PULL_A, G_PULL_B, G_PULL_NEXT, G_RESUME, G_ROUND, G_ROUNDS, G_SERIAL, G_SHIP,
                     G_SP0, G_SP1, G_STAGE, G_TILES, G_TURN, G_WINNER, G_WLEFT, K_A_AP, K_A_COLLIDE, K_A_DONE,
                     K_A_EXPLODE, K_A_FIRE_SHIP, K_A_GROUP, K_A_INIT, K_A_MOVE, K_A_PULL, K_A_RETREAT, K_A_SPEED,
                     K_A_TARGET, K_A_UNREINF, K_HEAVY, K_RETREAT, N_MOVES, N_USES, SH_AB_NOW, SH_AP_SPENT, SH_ARRIVE, SH_CELL,
                     SH_CLASS, SH_CURVE, SH_FIRED, SH_INIT_MARK, SH_MOVED, SH_PENDING, SH_RED, SH_REINF, SH_STATUS,
                     SH_YEL, SS_ACTIVE, SS_RESERVE, ST_AP, ST_COLLIDE, ST_EXPLODE, ST_FIRE_GROUP, ST_FIRE_SHIP,
                     ST_FIRE_TARGET, ST_INIT, ST_MOVE, ST_OVER, ST_POWER, ST_PULL, ST_PUSH, ST_RETREAT, ST_ROUND_END, ST_TURN_END,
                     W_FUSION, W_WAVE, GR_WEAPON,
                     TK_BLACK_HOLE, TK_NONE, TK_NEBULA, TK_ASTEROID, TR_CELL, TR_KIND, other)
from .fire import explode, fire_weapon, repairs, resolve_explosions
from .heavy_weapons import apply_wave_damage, choose_push, fire_fusion, fire_wave, wave_damage_due
from .movement import apply_move, collide, next_collision, pull_ship
from .power import apply_ap, begin_power_phase, end_power_phase, next_power_ship, set_curve
from .retreat import jump_to_ftl
from .terrain import pull_hexes, tile_at
from .legality import stage_has_choice
# --- Talon 13 missiles ---
from .layout import K_MISSILES
from .missiles import apply_missile_action, new_missile_impulse
# --- Talon 14 bases, 12 fighters, 16 docking ---
from .layout import K_A_DOCK, K_A_FTR_AP, K_BASES
from .bases import rotate_bases
from .fighters import N_FTR_USES, send_fighter_ap
from .docking import dock
from .victory import decided_at_once, has_conditions, winner_at_end


# ---------------------------------------------------------------------------------
# Sequence of play (Talon 3.2): advancing to the next decision
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def turn_player(s, b):
    g = borrow(s.g)
    return g[b, G_INIT] if g[b, G_TURN] == 0 else other(g[b, G_INIT])


@kernel(cache=True)
def check_end(s, cfg, b):
    """The game ends when a side has no ship left in play or to arrive (or after the last
    round, see end_round)."""
    sh = borrow(s.sh)
    alive = 0
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_STATUS] == SS_ACTIVE or sh[b, p, k, SH_STATUS] == SS_RESERVE:
                alive |= 1 << p      # a side whose reinforcements are still to come fights on (3.2)
                break
    if alive == 3:
        return False
    finish(s, b)
    return True


@kernel(cache=True)
def finish(s, b):
    """The end of the game: the scenario's victory conditions decide when it has any (victory.py),
    else victory by ship points destroyed (issue 3, RULES.md 'End of the game')."""
    g = borrow(s.g)
    g[b, G_DONE] = 1
    g[b, G_STAGE] = ST_OVER
    w = winner_at_end(s, b)
    if w >= 0:
        g[b, G_WINNER] = w
    elif g[b, G_SP0] > g[b, G_SP1]:
        g[b, G_WINNER] = 0
    elif g[b, G_SP1] > g[b, G_SP0]:
        g[b, G_WINNER] = 1
    else:
        g[b, G_WINNER] = 2


@kernel(cache=True)
def begin_turn(s, cfg, b):
    """Start of a player's turn: expire its reinforcements of this letter (Talon 6.2.3)."""
    g = borrow(s.g)
    p = turn_player(s, b)
    sh = borrow(s.sh)
    letter = g[b, G_IMPULSE] + 1
    for k in range(sh.shape[2]):
        if sh[b, p, k, SH_STATUS] == SS_ACTIVE:
            sh[b, p, k, SH_FIRED] = 0
            for a in range(4):
                if sh[b, p, k, SH_REINF + a] == letter:
                    sh[b, p, k, SH_REINF + a] = 0
    g[b, G_STAGE] = ST_AP
    g[b, G_DECIDER] = p
    g[b, G_PENDING_TURN] = p


@kernel(cache=True)
def _calm(s, b):
    """No explosion is pending and both sides have a ship in play: resolve_explosions and
    check_end would change nothing (the usual case, tested without calling them)."""
    sh = borrow(s.sh)
    alive = 0
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_PENDING]:
                return False
            if sh[b, p, k, SH_STATUS] == SS_ACTIVE or sh[b, p, k, SH_STATUS] == SS_RESERVE:
                alive |= 1 << p
    return alive == 3


@kernel(cache=True)
def new_impulse(s, cfg, b):
    g = borrow(s.g)
    sh = borrow(s.sh)
    for p in range(2):
        for k in range(sh.shape[2]):
            sh[b, p, k, SH_AP_SPENT] = 0
            sh[b, p, k, SH_MOVED] = 0
            sh[b, p, k, SH_AB_NOW] = 0
            sh[b, p, k, SH_INIT_MARK] = 0   # 4.2 markers removed before the next impulse
    g[b, G_SERIAL] += 1
    if borrow(cfg.k)[K_MISSILES]:
        new_missile_impulse(s, b)           # Talon 13.4 missiles move every impulse
    g[b, G_TURN] = 0


@kernel(cache=True)
def initiative_check(s, cfg, b):
    """End of impulse (Talon 4.2): more change than defend markers lets the initiative be turned.

    Only the markers on ships still in play count: a marker leaves the map with its
    ship (8.6.1, leave_play).  Returns True when a player must decide.  The decision
    goes to the player who placed more change markers; on a tie, to the player
    without the initiative."""
    g = borrow(s.g)
    sh = borrow(s.sh)
    ch = np.zeros(2, dtype=np.int64)
    de = 0
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_STATUS] == SS_ACTIVE:
                if sh[b, p, k, SH_INIT_MARK] == 1:
                    ch[p] += 1
                elif sh[b, p, k, SH_INIT_MARK] == 2:
                    de += 1
    if ch[0] + ch[1] <= de:
        return False
    holder = g[b, G_INIT]
    if ch[0] > ch[1]:
        chooser = 0
    elif ch[1] > ch[0]:
        chooser = 1
    else:
        chooser = other(holder)
    g[b, G_DECIDER] = chooser
    g[b, G_STAGE] = ST_INIT
    return True


@kernel(cache=True)
def after_impulse(s, cfg, b):
    """Next impulse, or the power phase after impulse F (Talon 3.2)."""
    g = borrow(s.g)
    new_impulse(s, cfg, b)
    if g[b, G_IMPULSE] >= 5:
        begin_power_phase(s, cfg, b)
    else:
        g[b, G_IMPULSE] += 1
        begin_turn(s, cfg, b)


@kernel(cache=True)
def end_round(s, cfg, b):
    g = borrow(s.g)
    g[b, G_ROUND] += 1
    if g[b, G_ROUND] > g[b, G_ROUNDS]:
        finish(s, b)
        return
    g[b, G_IMPULSE] = 0
    g[b, G_TURN] = 0
    begin_turn(s, cfg, b)


# ---------------------------------------------------------------------------------
# After the power phase (Talon 3.2): black holes pull (18.2), supply, retreat (11)
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def arrival_hex(s, cfg, b, p, cell):
    """Where a reinforcement arrives: its scenario hex, or if a friendly ship is there or the
    hex is barred (a planet, black hole or worm hole, or a hex nearer than 2 to a black hole,
    18.1), the nearest hex that is not, lowest cell first (RULES.md 'Supply')."""
    sh = s.sh
    dist = cfg.dist
    n = dist.shape[0]
    best = -1
    best_d = 1 << 30
    for c in range(n):
        d = dist[cell, c]
        if d >= best_d:
            continue
        ok = True
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_STATUS] == SS_ACTIVE and sh[b, p, k, SH_CELL] == c:
                ok = False
        for i in range(s.g[b, G_TILES]):
            kind = s.tr[b, i, TR_KIND]
            x = s.tr[b, i, TR_CELL]
            if x == c and kind != TK_NEBULA and kind != TK_ASTEROID:
                ok = False
            if kind == TK_BLACK_HOLE and dist[x, c] < 2:
                ok = False
        if ok:
            best = c
            best_d = d
    return best


@kernel(cache=True)
def supply_phase(s, cfg, b):
    """Supply phase (Talon 3.2 "distribuire i rinforzi come da specifiche dello scenario"):
    the scenario's reinforcements for this round arrive, the initiative player's first."""
    sh = s.sh
    g = s.g
    for i in range(2):
        p = g[b, G_INIT] if i == 0 else other(g[b, G_INIT])
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_STATUS] == SS_RESERVE and sh[b, p, k, SH_ARRIVE] == g[b, G_ROUND]:
                cell = arrival_hex(s, cfg, b, p, sh[b, p, k, SH_CELL])
                if cell >= 0:
                    sh[b, p, k, SH_CELL] = cell
                    sh[b, p, k, SH_STATUS] = SS_ACTIVE


@kernel(cache=True)
def round_end_step(s, cfg, b):
    """One step of the end of the round (Talon 3.2): 0 when something was done (the caller
    resolves collisions and explosions before the next step), 1 when a player must decide
    (ST_PULL, ST_RETREAT), 2 when the round is over."""
    g = s.g
    sh = s.sh
    S = sh.shape[2]
    step = g[b, G_END_STEP]
    if step == END_PULL:
        # 18.2 once a round after the power phase, every ship one hex nearer the black
        # hole, the initiative player's ships first
        if g[b, G_TILES] > 0:
            while g[b, G_PULL_NEXT] < 2 * S:
                i = g[b, G_PULL_NEXT]
                g[b, G_PULL_NEXT] = i + 1
                p = g[b, G_INIT] if i < S else other(g[b, G_INIT])
                k = i % S
                if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
                    continue
                ha, hb = pull_hexes(s, cfg, b, p, k)
                if ha < 0:
                    continue
                if ha != hb:
                    # along a hexside: the owner decides (18.2)
                    g[b, G_SHIP] = k
                    g[b, G_PULL_A] = ha
                    g[b, G_PULL_B] = hb
                    g[b, G_STAGE] = ST_PULL
                    g[b, G_DECIDER] = p
                    return 1
                pull_ship(s, cfg, b, p, k, ha)
                return 0
        g[b, G_END_STEP] = END_SUPPLY
        return 0
    if step == END_SUPPLY:
        supply_phase(s, cfg, b)
        g[b, G_END_STEP] = END_RETREAT0
        return 0
    if step == END_RETREAT0 or step == END_RETREAT1:
        if cfg.k[K_RETREAT]:
            p = g[b, G_INIT] if step == END_RETREAT0 else other(g[b, G_INIT])
            g[b, G_STAGE] = ST_RETREAT
            g[b, G_DECIDER] = p
            return 0            # advance asks whether the player has a ship that may jump
        g[b, G_END_STEP] = step + 1
        return 0
    return 2


@kernel(cache=True)
def advance(s, cfg, b):
    """Resolve everything that needs no choice until the next decision (or the end)."""
    g = borrow(s.g)
    for _ in range(10000):
        if g[b, G_DONE] or (has_conditions(g, b) and decided_at_once(s, b)):
            return
        st = g[b, G_STAGE]
        # interruptions first: pending explosions (8.6.3) and collisions (7.4)
        if st != ST_EXPLODE and st != ST_INIT and not _calm(s, b):
            if resolve_explosions(s, cfg, b):
                if st != ST_EXPLODE:
                    g[b, G_RESUME] = st
                g[b, G_STAGE] = ST_EXPLODE
                return
            if check_end(s, cfg, b):
                return
        if st == ST_COLLIDE:
            g[b, G_DECIDER] = g[b, G_MOVE_PLAYER]
            return
        if st == ST_EXPLODE:
            # an explosion order was chosen: continue exploding, then resume
            if resolve_explosions(s, cfg, b):
                return
            if check_end(s, cfg, b):
                return
            g[b, G_STAGE] = g[b, G_RESUME]
            g[b, G_DECIDER] = g[b, G_PENDING_TURN]
            continue
        if st == ST_INIT:
            return
        if (st == ST_MOVE or st == ST_ROUND_END or st == ST_FIRE_TARGET) and g[b, G_COLL_QUEUE] != 0:
            if next_collision(s, b):
                g[b, G_STAGE] = ST_COLLIDE
                g[b, G_DECIDER] = g[b, G_MOVE_PLAYER]
                return
        if st == ST_POWER:
            if next_power_ship(s, cfg, b):
                return
            end_power_phase(s, cfg, b)
            # the rest of the round (3.2, 18.2), once the explosions are resolved
            g[b, G_STAGE] = ST_ROUND_END
            g[b, G_END_STEP] = END_PULL
            g[b, G_PULL_NEXT] = 0
            g[b, G_TURN] = 0
            continue
        if st == ST_ROUND_END:
            r = round_end_step(s, cfg, b)
            if r == 1:
                return
            if r == 2:
                end_round(s, cfg, b)
            continue
        if st == ST_PULL or st == ST_PUSH:
            return
        if st == ST_TURN_END:
            # 15.1.3 the wave cannon's damage at the end of the turn; the explosions it
            # causes are resolved (above) before the turn ends
            if borrow(cfg.k)[K_HEAVY] and wave_damage_due(s, b):
                apply_wave_damage(s, cfg, b)
                continue
            end_turn(s, cfg, b)
            if g[b, G_STAGE] == ST_INIT:
                return
            continue
        if st == ST_RETREAT:
            if stage_has_choice(s, cfg, b):
                return
            g[b, G_END_STEP] += 1
            g[b, G_STAGE] = ST_ROUND_END
            continue
        p = turn_player(s, b)
        g[b, G_DECIDER] = p
        if st == ST_MOVE and borrow(cfg.k)[K_BASES]:
            rotate_bases(s, cfg, b, p)      # Talon 14 bases turn instead of moving (once: marked moved)
        if stage_has_choice(s, cfg, b):
            return
        # nothing to decide here: move on
        nxt = stage_after(st)
        if nxt == ST_TURN_END and not (borrow(cfg.k)[K_HEAVY] and wave_damage_due(s, b)):
            end_turn(s, cfg, b)             # the usual end of a turn, without a pass through ST_TURN_END
            if g[b, G_STAGE] == ST_INIT:
                return
            continue
        g[b, G_STAGE] = nxt


@kernel(cache=True, inline="always")
def stage_after(st):
    """The stage that follows ``st`` when the player is done with it or has nothing to decide
    in it (Talon 3.2): AP, then movement, then fire; a group's targets lead back to the choice
    of a group, that to the choice of the next firing ship.  After the fire stage the
    turn ends (ST_TURN_END: wave cannon damage, 15.1.3, then end_turn).  (A function of the stage alone, so the loop in advance calls
    nothing that takes the state structs.)"""
    if st == ST_AP:
        return ST_MOVE
    if st == ST_MOVE or st == ST_FIRE_GROUP:
        return ST_FIRE_SHIP
    if st == ST_FIRE_TARGET:
        return ST_FIRE_GROUP
    return ST_TURN_END


@kernel(cache=True)
def end_turn(s, cfg, b):
    """Repairs close the turn (Talon 3.2); the second player's turn or the end of the impulse follows."""
    g = borrow(s.g)
    p = turn_player(s, b)
    repairs(s, cfg, b, p)
    if g[b, G_TURN] == 0:
        g[b, G_TURN] = 1
        begin_turn(s, cfg, b)
        return
    if initiative_check(s, cfg, b):
        return
    after_impulse(s, cfg, b)


@kernel(cache=True)
def apply_action(s, cfg, b, a):
    k_ = borrow(cfg.k)
    sh = borrow(s.sh)
    grp = borrow(cfg.grp)
    g = borrow(s.g)
    p = g[b, G_DECIDER]
    st = g[b, G_STAGE]
    if k_[K_MISSILES] and apply_missile_action(s, cfg, b, p, st, a):    # --- Talon 13 missiles ---
        advance(s, cfg, b)
        return
    if a < k_[K_A_UNREINF]:
        i = a - k_[K_A_AP]
        apply_ap(s, cfg, b, p, i // N_USES, i % N_USES)
    elif a < k_[K_A_FTR_AP]:
        i = a - k_[K_A_UNREINF]
        sh[b, p, i // 4, SH_REINF + i % 4] = 0        # 6.2.3 removed at will
    elif a < k_[K_A_MOVE]:
        i = a - k_[K_A_FTR_AP]                         # Talon 12.2.2 an AP sent to a squadron
        S = sh.shape[2]
        send_fighter_ap(s, cfg, b, p, i // (N_FTR_USES * S), (i // N_FTR_USES) % S, i % N_FTR_USES)
    elif a < k_[K_A_DOCK]:
        i = a - k_[K_A_MOVE]
        apply_move(s, cfg, b, p, i // N_MOVES, i % N_MOVES)
    elif a < k_[K_A_FIRE_SHIP]:
        i = a - k_[K_A_DOCK]                           # Talon 16.2 docking or landing
        dock(s, cfg, b, p, i // N_MOVES, i % N_MOVES)
    elif a < k_[K_A_GROUP]:
        k = a - k_[K_A_FIRE_SHIP]
        sh[b, p, k, SH_FIRED] = 1                       # 8.2.1 this ship completes its fire now
        g[b, G_SHIP] = k
        g[b, G_STAGE] = ST_FIRE_GROUP
    elif a < k_[K_A_TARGET]:
        gi = a - k_[K_A_GROUP]
        k = g[b, G_SHIP]
        c = sh[b, p, k, SH_CLASS]
        sh[b, p, k, SH_RED + gi] = 0                    # 8.3 step 3: empty the bar
        sh[b, p, k, SH_YEL + gi] = 0
        g[b, G_GROUP] = gi
        g[b, G_WLEFT] = grp[c, gi, GR_COUNT]
        g[b, G_STAGE] = ST_FIRE_TARGET
    elif a < k_[K_A_SPEED]:
        t = a - k_[K_A_TARGET]
        k = g[b, G_SHIP]
        gi = g[b, G_GROUP]
        w = grp[sh[b, p, k, SH_CLASS], gi, GR_WEAPON]
        g[b, G_WLEFT] -= 1
        if w == W_FUSION:
            fire_fusion(s, cfg, b, p, k, gi)            # 15.2 every ship in the cone
        elif w == W_WAVE:
            fire_wave(s, cfg, b, p, k, gi, t)           # 15.1 push now, damage at the end of the turn
        else:
            fire_weapon(s, cfg, b, p, k, gi, t)
    elif a < k_[K_A_INIT]:
        d = a - k_[K_A_SPEED]
        k = g[b, G_SHIP]
        set_curve(s, cfg, b, p, k, sh[b, p, k, SH_CURVE] + (1 - d))
        g[b, G_SHIP] = k + 1
    elif a < k_[K_A_COLLIDE]:
        # 4.2 the chooser keeps/takes the initiative, or gives it away
        g[b, G_INIT] = p if a == k_[K_A_INIT] else other(p)
        after_impulse(s, cfg, b)
    elif a < k_[K_A_EXPLODE]:
        collide(s, cfg, b, a == k_[K_A_COLLIDE])
        g[b, G_STAGE] = g[b, G_COLL_RESUME]
    elif a < k_[K_A_PULL]:
        explode(s, cfg, b, p, a - k_[K_A_EXPLODE])
    elif a < k_[K_A_RETREAT] and st == ST_PUSH:
        choose_push(s, cfg, b, p, a != k_[K_A_PULL])   # 15.1.2 the firer picks the hex
    elif a < k_[K_A_RETREAT]:
        # 18.2 the owner picks the hex of a pull along a hexside
        cell = g[b, G_PULL_A] if a == k_[K_A_PULL] else g[b, G_PULL_B]
        g[b, G_STAGE] = ST_ROUND_END
        pull_ship(s, cfg, b, p, g[b, G_SHIP], cell)
    elif a < k_[K_A_DONE]:
        jump_to_ftl(s, b, p, a - k_[K_A_RETREAT])      # 11.1.2
    elif st == ST_RETREAT:                              # done: no (more) ships jump
        g[b, G_END_STEP] += 1
        g[b, G_STAGE] = ST_ROUND_END
    else:                                               # done
        g[b, G_STAGE] = stage_after(st)
    advance(s, cfg, b)
