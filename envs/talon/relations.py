"""What a captain reads between ships: the relational block of the observation (option
``relations``, on from talon_v1; RULES.md "Relations").

The scripted captain decides by bearings, ranges, arcs and expected damage *between* ships;
the ship table gives each ship's absolute hex and facing, from which a network would have
to learn hex geometry, the arcs of Talon 5.3 and the weapon tables of 8.3 before it could
tell that an enemy is in its front arc at range 3.  This block states those relations
directly, computed with the rules' own tables and functions (``cfg.dist``, ``cfg.arc_of``,
``cfg.wdmg``, ``reach_reason``, ``line_reason``, ``aim_penalty``, ``move_heading``), so
nothing here restates a rule:

* the pair table, one row per (own ship, enemy ship): range, the arc each lies in from the
  other, the shields facing, which of my groups could fire at it now and their expected
  damage, its threat to me, line of fire, egocentric offset;
* the action table, one row per action: what that action would do by the same measures
  (a move's destination: offence, threat through my shields, range and bearing to the
  nearest enemy, what is in the hex; a target's expected damage and what it gets through
  its shield; a group's or a firing ship's best shot; an AP use's effect), so that a policy
  can score each action from its own row (training/networks.py's pointer head).

Expected damages are in half points (x2), every value clipped to int8.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .fire import group_full, reach_reason
from .layout import (ARC_FRONT, CL_N_GROUPS, CL_N_HULL, CL_POINTS, G_GROUP, G_SHIP, G_TILES, GR_ARCS, GR_COUNT, GR_RED,
                     GR_WEAPON, GR_YELLOW, K_A_AP, K_A_FIRE_SHIP, K_A_GROUP, K_A_MOVE, K_A_TARGET, K_COLS, N_MOVES,
                     N_USES, OK, SH_C_SHIELDS, SH_CELL, SH_CLASS, SH_FACING, SH_FIRED, SH_GROUP_DEAD, SH_HULL_HITS,
                     SH_RED, SH_REINF, SH_SHIELD, SH_YEL, U_CHARGE, U_REINF, other)
from .movement import move_heading
from .ships import active, neighbour, to_axial
from .terrain import aim_penalty, line_reason, tile_at

# -- pair table: (own ship k, enemy ship t) x N_PF ----------------------------------------
PF_PRESENT = 0        # 1: both ships in play
PF_RANGE = 1          # hexes between them (Talon 5.2)
PF_ARC_OF_IT = 2      # arc of mine it lies in, + 1 (front, right, left, rear: Talon 5.3)
PF_ARC_OF_ME = 3      # arc of its I lie in, + 1: the shield my fire hits (8.3 step 6)
PF_ITS_SHIELD = 4     # what that shield absorbs: boxes + 1 if reinforced (6.2); 0 with shields down
PF_MY_SHIELD = 5      # what my shield facing it absorbs
PF_DMG_NOW = 6        # x2 expected damage of my groups that may fire at it now (charged, in reach, clear line)
PF_NET_NOW = 7        # x2 of that beyond its shield
PF_GROUPS_NOW = 8     # bit gi: my group gi may fire at it now
PF_DMG_REACH = 9      # x2 expected damage of my live groups that reach it, charged or not
PF_THREAT_NOW = 10    # x2 expected damage of its groups that may fire at me now
PF_THREAT_REACH = 11  # x2 expected damage of its live groups that reach me, charged or not
PF_BLOCKED = 12       # 1: a planet or black hole blocks the line (8.2.3, 17.2.2, 18.1)
PF_AHEAD = 13         # its axial offset from me, turned so that my bow points along +q
PF_ABEAM = 14         # ... and the other axial coordinate
PF_HEADING = 15       # its facing minus mine, mod 6
N_PF = 16

# -- action table: one row per action x N_AF ----------------------------------------------
AF_KNOWN = 0          # 1: the row describes this action (its family is covered)
AF_DMG = 1            # x2 expected damage the action leads to (a shot, a group, a ship, a position's offence)
AF_NET = 2            # x2 of that beyond the target's shield
AF_THREAT = 3         # x2 expected enemy damage beyond my shields there (a move's destination, a reinforced arc)
AF_RANGE = 4          # range to the nearest enemy after a move, or to the target
AF_FRONT = 5          # 1: the nearest enemy in my front arc after a move; a target's hull boxes left
AF_HAZARD = 6         # a move: 1 off the map edge (7.5), 2 into a friendly ship (7.4), 3 + kind of a terrain tile
AF_EXTRA = 7          # a move: range change to the nearest enemy; a target: points / 4; a charge: boxes missing
N_AF = 8


@kernel(cache=True)
def clip8(v):
    return max(-127, min(127, v))


@kernel(cache=True)
def half_points(x):
    """Expected damage ``x`` in half points, rounded, clipped to int8."""
    return clip8(int(2.0 * x + 0.5))


@kernel(cache=True)
def expected_damage(cfg, w, d, pen):
    """Mean damage of one shot of weapon ``w`` at range ``d`` with ``pen`` off the die (Talon 8.3
    step 5: the weapon table; 17.5, 18.1: a die below 1 misses); 0 out of the weapon's ranges."""
    if d < 1 or d < cfg.wmin[w] or d > cfg.wmax[w] or not cfg.wplay[w]:
        return 0.0
    tot = 0
    for die in range(1, 7):
        if die - pen >= 1:
            tot += cfg.wdmg[w, d, die - pen]
    return tot / 6.0


@kernel(cache=True)
def group_shot(s, cfg, b, c, gi, fc, facing, tc):
    """Expected damage of group ``gi`` of class ``c`` at ``fc``/``facing`` on a ship at ``tc``:
    0 unless it reaches (range and arc, 8.2.2) along a clear line (8.2.3)."""
    if fc < 0 or tc < 0 or fc == tc:
        return 0.0
    w = cfg.grp[c, gi, GR_WEAPON]
    if reach_reason(cfg, w, cfg.grp[c, gi, GR_ARCS], fc, facing, tc) != OK:
        return 0.0
    if line_reason(s, cfg, b, fc, tc) != OK:
        return 0.0
    pen = aim_penalty(s, cfg, b, fc, tc) if s.g[b, G_TILES] > 0 else 0
    return cfg.grp[c, gi, GR_COUNT] * expected_damage(cfg, w, cfg.dist[fc, tc], pen)


@kernel(cache=True)
def protection(sh, b, p, k, arc):
    """Damage ship ``k`` absorbs on shield ``arc`` before its hull: boxes + 1 for a reinforcement
    (Talon 6.2); none while its shields are down (critical 1)."""
    if arc < 0 or sh[b, p, k, SH_C_SHIELDS] > 0:
        return 0
    return sh[b, p, k, SH_SHIELD + arc] + (1 if sh[b, p, k, SH_REINF + arc] > 0 else 0)


@kernel(cache=True)
def may_shoot_now(sh, cfg, b, p, k, gi):
    """Group ``gi`` of ship ``k`` is alive and charged (8.1.1) and the ship has not fired (8.2.1)."""
    return not sh[b, p, k, SH_FIRED] and group_full(sh, cfg, b, p, k, gi)


@kernel(cache=True)
def fire_from(s, cfg, b, p, k, cell, facing, e, t, charged_only):
    """(expected damage, bitmask of groups) of ship ``k`` of ``p`` standing at ``cell``/``facing``
    on ship ``t`` of ``e``: its live groups, only those that may fire now if ``charged_only``."""
    sh = s.sh
    c = sh[b, p, k, SH_CLASS]
    tc = sh[b, e, t, SH_CELL]
    total = 0.0
    bits = 0
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        if (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
            continue
        if charged_only and not may_shoot_now(sh, cfg, b, p, k, gi):
            continue
        v = group_shot(s, cfg, b, c, gi, cell, facing, tc)
        if v > 0.0:
            total += v
            bits |= 1 << gi
    return total, bits


@kernel(cache=True)
def threat_on(s, cfg, b, e, t, p, cell, facing, k):
    """Expected damage ship ``t`` of ``e`` may fire now at a ship ``k`` of ``p`` standing at
    ``cell``/``facing`` beyond the shield facing it (its charged groups, 8.1.1)."""
    sh = s.sh
    c = sh[b, e, t, SH_CLASS]
    tcell = sh[b, e, t, SH_CELL]
    v = 0.0
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        if may_shoot_now(sh, cfg, b, e, t, gi):
            v += group_shot(s, cfg, b, c, gi, tcell, sh[b, e, t, SH_FACING], cell)
    if v <= 0.0 or cell == tcell:
        return v
    return max(0.0, v - protection(sh, b, p, k, cfg.arc_of[cell, tcell, facing]))


@kernel(cache=True)
def egocentric(cfg, fc, facing, tc):
    """Axial offset of hex ``tc`` from ``fc``, turned so that ``facing`` points along +q."""
    cols = cfg.k[K_COLS]
    q1, r1 = to_axial(fc, cols)
    q2, r2 = to_axial(tc, cols)
    x = q2 - q1
    z = r2 - r1
    y = -x - z
    for _ in range(facing):          # one hexside clockwise per step: (x, y, z) -> (-z, -x, -y)
        x, y, z = -z, -x, -y
    return x, z


@kernel(cache=True)
def write_pairs(s, cfg, b, v, obs, o):
    """The pair table from player ``v``'s side at ``obs[o:]`` (own ship major, enemy minor)."""
    sh = s.sh
    S = sh.shape[2]
    e = other(v)
    for k in range(S):
        if not active(sh, b, v, k):
            continue
        kc = sh[b, v, k, SH_CELL]
        kf = sh[b, v, k, SH_FACING]
        for t in range(S):
            if not active(sh, b, e, t):
                continue
            r = o + (k * S + t) * N_PF
            tc = sh[b, e, t, SH_CELL]
            tf = sh[b, e, t, SH_FACING]
            obs[r + PF_PRESENT] = 1
            obs[r + PF_RANGE] = clip8(cfg.dist[kc, tc])
            obs[r + PF_HEADING] = (tf - kf) % 6
            ahead, abeam = egocentric(cfg, kc, kf, tc)
            obs[r + PF_AHEAD] = clip8(ahead)
            obs[r + PF_ABEAM] = clip8(abeam)
            if kc == tc:
                continue                      # same hex: no arc (Talon 5.3), no fire (8.2.2)
            arc_it = cfg.arc_of[kc, tc, kf]
            arc_me = cfg.arc_of[tc, kc, tf]
            obs[r + PF_ARC_OF_IT] = arc_it + 1
            obs[r + PF_ARC_OF_ME] = arc_me + 1
            its_shield = protection(sh, b, e, t, arc_me)
            obs[r + PF_ITS_SHIELD] = its_shield
            obs[r + PF_MY_SHIELD] = protection(sh, b, v, k, arc_it)
            now, bits = fire_from(s, cfg, b, v, k, kc, kf, e, t, True)
            obs[r + PF_DMG_NOW] = half_points(now)
            obs[r + PF_NET_NOW] = half_points(max(0.0, now - its_shield))
            obs[r + PF_GROUPS_NOW] = bits
            obs[r + PF_DMG_REACH] = half_points(fire_from(s, cfg, b, v, k, kc, kf, e, t, False)[0])
            obs[r + PF_THREAT_NOW] = half_points(fire_from(s, cfg, b, e, t, tc, tf, v, k, True)[0])
            obs[r + PF_THREAT_REACH] = half_points(fire_from(s, cfg, b, e, t, tc, tf, v, k, False)[0])
            obs[r + PF_BLOCKED] = 1 if line_reason(s, cfg, b, kc, tc) != OK else 0


@kernel(cache=True)
def nearest_enemy(s, cfg, b, p, cell):
    """(slot, range) of the enemy ship nearest to ``cell``; (-1, 0) if none is in play."""
    sh = s.sh
    e = other(p)
    best, best_d = -1, 0
    for t in range(sh.shape[2]):
        if active(sh, b, e, t):
            d = cfg.dist[cell, sh[b, e, t, SH_CELL]]
            if best < 0 or d < best_d:
                best, best_d = t, d
    return best, best_d


@kernel(cache=True)
def best_offence(s, cfg, b, p, k, cell, facing):
    """(expected damage, beyond shields) of ship ``k`` at ``cell``/``facing``: each charged group
    on the enemy it damages most (what the ship could fire if it stood there)."""
    sh = s.sh
    e = other(p)
    c = sh[b, p, k, SH_CLASS]
    dmg = 0.0
    net = 0.0
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        if not group_full(sh, cfg, b, p, k, gi):
            continue
        best, best_net = 0.0, 0.0
        for t in range(sh.shape[2]):
            if active(sh, b, e, t):
                tc = sh[b, e, t, SH_CELL]
                x = group_shot(s, cfg, b, c, gi, cell, facing, tc)
                if x > best:
                    best = x
                    arc = cfg.arc_of[tc, cell, sh[b, e, t, SH_FACING]] if tc != cell else -1
                    best_net = max(0.0, x - protection(sh, b, e, t, arc))
        dmg += best
        net += best_net
    return dmg, net


@kernel(cache=True)
def write_move_rows(s, cfg, b, v, obs, o):
    """Rows of MOVE actions (ship k, move m): what the ship would face in the hex and facing the
    move leads to (Talon 7.1-7.3 by move_heading), the other ships where they are."""
    sh = s.sh
    S = sh.shape[2]
    e = other(v)
    for k in range(S):
        if not active(sh, b, v, k):
            continue
        cell = sh[b, v, k, SH_CELL]
        _, d_before = nearest_enemy(s, cfg, b, v, cell)
        for m in range(N_MOVES):
            row = o + (cfg.k[K_A_MOVE] + k * N_MOVES + m) * N_AF
            obs[row + AF_KNOWN] = 1
            f, d, _ = move_heading(sh[b, v, k, SH_FACING], m)
            nc = neighbour(cfg, cell, d)
            if nc < 0:
                obs[row + AF_HAZARD] = 1      # the map moves (7.5.1): the row says only that
                continue
            dmg, net = best_offence(s, cfg, b, v, k, nc, f)
            obs[row + AF_DMG] = half_points(dmg)
            obs[row + AF_NET] = half_points(net)
            threat = 0.0
            for t in range(S):
                if active(sh, b, e, t):
                    threat += threat_on(s, cfg, b, e, t, v, nc, f, k)
            obs[row + AF_THREAT] = half_points(threat)
            t, dn = nearest_enemy(s, cfg, b, v, nc)
            if t >= 0:
                obs[row + AF_RANGE] = clip8(dn)
                tc = sh[b, e, t, SH_CELL]
                obs[row + AF_FRONT] = 1 if tc != nc and cfg.arc_of[nc, tc, f] == ARC_FRONT else 0
                obs[row + AF_EXTRA] = clip8(dn - d_before)
            for j in range(S):
                if j != k and active(sh, b, v, j) and sh[b, v, j, SH_CELL] == nc:
                    obs[row + AF_HAZARD] = 2
            if s.g[b, G_TILES] > 0:
                kind = tile_at(s, b, nc)
                if kind > 0:
                    obs[row + AF_HAZARD] = 3 + kind


@kernel(cache=True)
def write_fire_rows(s, cfg, b, v, obs, o):
    """Rows of FIRE_SHIP k (its charged groups' best shots), GROUP gi and TARGET t (the chosen
    ship's group on each enemy, Talon 8.2-8.3)."""
    sh = s.sh
    S = sh.shape[2]
    e = other(v)
    for k in range(S):
        if active(sh, b, v, k):
            row = o + (cfg.k[K_A_FIRE_SHIP] + k) * N_AF
            dmg, net = best_offence(s, cfg, b, v, k, sh[b, v, k, SH_CELL], sh[b, v, k, SH_FACING])
            obs[row + AF_KNOWN] = 1
            obs[row + AF_DMG] = half_points(dmg)
            obs[row + AF_NET] = half_points(net)
    k = s.g[b, G_SHIP]
    if k < 0 or k >= S or not active(sh, b, v, k):
        return
    c = sh[b, v, k, SH_CLASS]
    kc = sh[b, v, k, SH_CELL]
    kf = sh[b, v, k, SH_FACING]
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        row = o + (cfg.k[K_A_GROUP] + gi) * N_AF
        obs[row + AF_KNOWN] = 1
        best, best_net = 0.0, 0.0
        for t in range(S):
            if active(sh, b, e, t):
                x = group_shot(s, cfg, b, c, gi, kc, kf, sh[b, e, t, SH_CELL])
                if x > best:
                    tc = sh[b, e, t, SH_CELL]
                    best = x
                    best_net = max(0.0, x - protection(sh, b, e, t, cfg.arc_of[tc, kc, sh[b, e, t, SH_FACING]]))
        obs[row + AF_DMG] = half_points(best)
        obs[row + AF_NET] = half_points(best_net)
    gi = s.g[b, G_GROUP]
    if gi < 0 or gi >= cfg.cls[c, CL_N_GROUPS]:
        return
    for t in range(S):
        if not active(sh, b, e, t):
            continue
        row = o + (cfg.k[K_A_TARGET] + t) * N_AF
        tc = sh[b, e, t, SH_CELL]
        x = group_shot(s, cfg, b, c, gi, kc, kf, tc)
        arc = cfg.arc_of[tc, kc, sh[b, e, t, SH_FACING]] if tc != kc else -1
        tcls = sh[b, e, t, SH_CLASS]
        obs[row + AF_KNOWN] = 1
        obs[row + AF_DMG] = half_points(x)
        obs[row + AF_NET] = half_points(max(0.0, x - protection(sh, b, e, t, arc)))
        obs[row + AF_RANGE] = clip8(cfg.dist[kc, tc])
        obs[row + AF_FRONT] = clip8(cfg.cls[tcls, CL_N_HULL] - sh[b, e, t, SH_HULL_HITS])
        obs[row + AF_EXTRA] = clip8(cfg.cls[tcls, CL_POINTS] // 4)


@kernel(cache=True)
def write_ap_rows(s, cfg, b, v, obs, o):
    """Rows of the AP uses that charge a group (Talon 6.1: what the group would deal once full,
    boxes still missing) and that reinforce a shield (6.2: the threat now on that arc)."""
    sh = s.sh
    S = sh.shape[2]
    e = other(v)
    for k in range(S):
        if not active(sh, b, v, k):
            continue
        base = o + (cfg.k[K_A_AP] + k * N_USES) * N_AF
        c = sh[b, v, k, SH_CLASS]
        kc = sh[b, v, k, SH_CELL]
        kf = sh[b, v, k, SH_FACING]
        for u in range(N_USES):
            obs[base + u * N_AF + AF_KNOWN] = 1
        for gi in range(cfg.cls[c, CL_N_GROUPS]):
            row = base + (U_CHARGE + gi) * N_AF
            best = 0.0
            for t in range(S):
                if active(sh, b, e, t):
                    best = max(best, group_shot(s, cfg, b, c, gi, kc, kf, sh[b, e, t, SH_CELL]))
            obs[row + AF_DMG] = half_points(best)
            obs[row + AF_EXTRA] = clip8(cfg.grp[c, gi, GR_RED] - sh[b, v, k, SH_RED + gi]
                                        + cfg.grp[c, gi, GR_YELLOW] - sh[b, v, k, SH_YEL + gi])
        for t in range(S):
            if not active(sh, b, e, t):
                continue
            tc = sh[b, e, t, SH_CELL]
            if tc == kc:
                continue
            arc = cfg.arc_of[kc, tc, kf]
            tcls = sh[b, e, t, SH_CLASS]
            x = 0.0
            for gi in range(cfg.cls[tcls, CL_N_GROUPS]):
                if not (sh[b, e, t, SH_GROUP_DEAD] >> gi) & 1:
                    x += group_shot(s, cfg, b, tcls, gi, tc, sh[b, e, t, SH_FACING], kc)
            row = base + (U_REINF + arc) * N_AF
            obs[row + AF_THREAT] = clip8(obs[row + AF_THREAT] + half_points(x))


@kernel(cache=True)
def write_relations(s, cfg, b, v, obs, o, n_actions):
    """The relational block at ``obs[o:]``: the pair table, then the action table (RULES.md
    "Relations"); ``obs`` is zero there already (write_obs clears everything after the planes)."""
    S = s.sh.shape[2]
    write_pairs(s, cfg, b, v, obs, o)
    a = o + S * S * N_PF
    write_move_rows(s, cfg, b, v, obs, a)
    write_fire_rows(s, cfg, b, v, obs, a)
    write_ap_rows(s, cfg, b, v, obs, a)
    return a + n_actions * N_AF
