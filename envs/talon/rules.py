"""Talon basic rules (seed 000, sections 3-10) as Numba kernels.

State of B games lives in packed int32 arrays (see ``game.state_spec``):

* ``g[b, G_*]``          per-game scalars (round, impulse, initiative, stage ...)
* ``sh[b, p, k, SH_*]``  ship ``k`` of player ``p`` (class, hex, facing, curve,
                          shields, hull, charge bars, criticals, markers ...)

Static data (ship classes, weapon tables, impulse chart, critical table, arc
table of the map) comes in the config struct built by ``game.build_config``.

Every decision the rules leave to a player is one step: the player whose
decision it is is ``g[b, G_CURRENT]``.  Everything without a choice (dice,
expiry of reinforcements, repairs, charging, explosions of a single ship) is
resolved here while advancing to the next decision (``advance``).

Section numbers in comments refer to the 2nd-edition Italian rulebook
(seed 000), e.g. ``# Talon 7.2.2``; RULES.md explains every interpretation.
"""
from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from ..core.rng import draw_int, roll_die, seed_stream
from ..core.structs import borrow

# -- per-game scalars g[b, G_*] ------------------------------------------------
G_DONE = 0          # game over
G_CURRENT = 1       # player to decide
G_ROUND = 2         # 1-based round number (Talon 3.1)
G_IMPULSE = 3       # 0..5 = impulses A..F, 6 = power phase
G_INIT = 4          # player holding the initiative (Talon 4.1)
G_TURN = 5          # 0: initiative player's turn of the impulse, 1: second player's
G_STAGE = 6         # ST_* below
G_SHIP = 7          # active own ship (firing ship, ship in the power phase)
G_GROUP = 8         # weapon group being fired
G_WLEFT = 9         # weapons of that group still to fire
G_RESUME = 10       # stage to return to after an interruption (collision/explosion order)
G_SERIAL = 11       # impulses played so far (timing of repairs, Talon 8.7)
G_COLL_MOVER = 12   # ship that moved into a friendly ship's hex (Talon 7.4)
G_COLL_OTHER = 13   # the friendly ship it collides with
G_COLL_ORIGIN = 14  # hex the mover came from
G_COLL_ARC = 15     # mover's shield arc facing the other ship
G_COLL_QUEUE = 16   # bitmask of further friendly ships still to collide with
G_DECISIONS = 17    # decisions taken so far (truncation)
G_SP0 = 18          # ship points destroyed by player 0 (enemy ships destroyed)
G_SP1 = 19          # ship points destroyed by player 1
G_WINNER = 20       # -1 undecided, 0/1, 2 draw
G_ROUNDS = 21       # rounds the game lasts
G_PP_TURN = 22      # power phase: 0 initiative player, 1 second player
G_MOVE_PLAYER = 23  # player whose ship moved (collision owner)
G_PENDING_TURN = 24 # the turn's player while an interruption is decided
G_FLEET0 = 25       # ship points of player 0's fleet at the start (reward scale)
G_FLEET1 = 26
N_G = 27

# -- stages --------------------------------------------------------------------
ST_AP = 1           # spend AP (Talon 6.1)
ST_MOVE = 2         # move ships (Talon 7)
ST_FIRE_SHIP = 3    # choose the next ship to fire (Talon 8.2.1)
ST_FIRE_GROUP = 4   # choose a charged weapon group of that ship (Talon 8.3 step 1)
ST_FIRE_TARGET = 5  # choose the target of the next weapon (Talon 8.3 step 4)
ST_POWER = 6        # choose the speed of a ship (Talon 9.3)
ST_INIT = 7         # decide who holds the initiative (Talon 4.2)
ST_COLLIDE = 8      # choose which colliding ship takes damage first (Talon 7.4)
ST_EXPLODE = 9      # choose which of several own ships explodes first (Talon 8.6.3)
ST_OVER = 10

# -- ships sh[b, p, k, SH_*] ---------------------------------------------------
SH_CLASS = 0        # index into the class table, -1 = empty slot
SH_STATUS = 1       # SS_* below
SH_NAME = 2         # counter name index within the class
SH_CELL = 3
SH_FACING = 4       # 0..5 = E, NE, NW, W, SW, SE
SH_CURVE = 5        # row of the class's power curve in use (Talon 5.4)
SH_POWER = 6        # Power written on the counter: curve power + modifiers (Talon 8.4.2)
SH_TURN_LEFT = 7    # hexes still to go straight before the next turn (turn marker on the ship, Talon 7.2.2 option 2)
SH_SLIP = 8         # side-slip marker (Talon 7.3.2)
SH_AP_SPENT = 9     # AP spent this impulse (Talon 5.1: at most one)
SH_MOVED = 10       # moved this impulse (Talon 5.1: at most one hex)
SH_FIRED = 11       # has fired (chosen as firer) this turn (Talon 8.2.1)
SH_SHIELD = 12      # 4 columns: remaining shield boxes front, right, left, rear
SH_REINF = 16       # 4 columns: reinforcement marker, impulse letter + 1 (0 = none) (Talon 6.2)
SH_HULL_HITS = 20   # hull boxes marked, from the left
SH_RED = 21         # 3 columns: red boxes charged per group
SH_YEL = 24         # 3 columns: yellow boxes charged per group
SH_GROUP_DEAD = 27  # bitmask of destroyed groups (critical 5/9)
SH_BATTERY = 28     # battery charged (Talon 10.1)
SH_AB_LEFT = 29     # afterburners not yet used (Talon 10.2)
SH_INIT_MARK = 30   # 1 change initiative, 2 defend initiative (Talon 4.2)
SH_C_SHIELDS = 31   # critical markers: impulse serial + 1 when placed, 0 = none (Talon 8.5, 8.7)
SH_C_HELM = 32
SH_C_TURN = 33      # Turn +1 / +2 marker: the extra turn radius
SH_C_TURN_AT = 34
SH_C_POWER = 35     # Power -1 marker
SH_C_POWER_AT = 36
SH_C_FTL = 37
SH_C_PLOSS = 38
SH_PENDING = 39     # destroyed, explosion not yet resolved (Talon 8.6.3)
SH_AB_NOW = 40      # used an afterburner this impulse (Talon 10.2.3)
N_SH = 41

SS_EMPTY = 0
SS_ACTIVE = 1
SS_DESTROYED = 2
SS_RETREATED = 3

ARC_FRONT = 0
ARC_RIGHT = 1
ARC_LEFT = 2
ARC_REAR = 3

# -- AP uses (Talon 6.1) -----------------------------------------------------------
U_SLIP = 0
U_TURN = 1
U_CHARGE = 2        # 3 uses: charge a yellow box of group 0, 1, 2
U_BATTERY = 5
U_REINF = 6         # 4 uses: reinforce front, right, left, rear
U_CHANGE = 10
U_DEFEND = 11
N_USES = 12

# -- moves (Talon 7.1) --------------------------------------------------------------
M_STRAIGHT = 0
M_TURN_LEFT = 1
M_TURN_RIGHT = 2
M_SLIP_LEFT = 3
M_SLIP_RIGHT = 4
N_MOVES = 5

# -- critical results (Talon 8.5, table in data/tables.json) -----------------------
CR_NONE = 0
CR_SECONDARY = 1
CR_SHIELDS = 2
CR_HELM = 3
CR_WEAPON = 4
CR_TURN = 5
CR_POWER = 6
CR_HULL_FTL = 7
CR_PLOSS = 8
CR_BREACH = 9

# -- weapons ----------------------------------------------------------------------
W_DISRUPTOR = 0
W_TORPEDO = 1
W_LASER = 2
W_FUSION = 3
W_WAVE = 4
W_MISSILE = 5

# -- config scalars k[K_*] --------------------------------------------------------
K_ROWS = 0
K_COLS = 1
K_SHIPS = 2          # ship slots per player
K_N_ACTIONS = 3
K_A_AP = 4
K_A_UNREINF = 5
K_A_MOVE = 6
K_A_FIRE_SHIP = 7
K_A_GROUP = 8
K_A_TARGET = 9
K_A_SPEED = 10
K_A_INIT = 11
K_A_COLLIDE = 12
K_A_EXPLODE = 13
K_A_DONE = 14
K_EDITION = 15       # 2 = 2nd edition (default), 1 = 1st-edition reinforcement rules
K_ROUNDS = 16
K_REPAIRABLE = 17    # bitmask over CR_* of markers that can be repaired
K_REWARD_POINTS = 18 # 1: dense reward from ship points, 0: +1/-1/0 at the end
K_MAX_DECISIONS = 19
K_SCENARIO = 20      # 0: fixed template, 1: fleets drawn to a point budget
K_BUDGET = 21
K_N_CLASSES = 22
K_TOTAL_SP = 23      # unused by the kernels (normalisation is per game)
K_OBS_PLANES = 24
K_OBS_SHIP = 25      # features per ship in the observation table
K_OBS_GLOBAL = 26
K_FIRST_INIT = 27    # who starts with the initiative in the template (-1: die roll)
N_K = 28

# class table cls[c, CL_*]
CL_POINTS = 0
CL_EXPLOSION = 1
CL_N_CURVES = 2
CL_START = 3
CL_N_HULL = 4
CL_N_GROUPS = 5
CL_BATTERY = 6
CL_AFTERBURNERS = 7
CL_SHIELD = 8        # 4 columns
CL_PLAYABLE = 12     # 1 if sections 1-10 cover the class (or option advanced_classes="inert")
CL_RACE = 13
CL_N_NAMES = 14
N_CL = 15

# weapon groups grp[c, g, GR_*]
GR_WEAPON = 0
GR_COUNT = 1
GR_ARCS = 2          # bitmask over ARC_*
GR_RED = 3
GR_YELLOW = 4
N_GR = 5

# template tp[p, k, TP_*]
TP_CLASS = 0
TP_NAME = 1
TP_CELL = 2
TP_FACING = 3
N_TP = 4

# -- reasons an action is illegal (texts in game.REASONS) --------------------------
OK = 0
R_GAME_OVER = 1
R_STAGE = 2
R_NO_SHIP = 3
R_NO_AP = 4
R_AP_SPENT = 5
R_SLIP_PLACED = 6
R_NO_TURN_MARKER = 7
R_NO_GROUP = 8
R_BAR_FULL = 9
R_NO_BATTERY = 10
R_BATTERY_CHARGED = 11
R_BATTERY_AP = 12
R_REINF_PLACED = 13
R_REINF_LIMIT = 14
R_SHIELDS_DOWN = 15
R_ARC_DESTROYED = 16
R_NO_REINF = 17
R_NO_MOVE = 18
R_MOVED = 19
R_NO_AFTERBURNER = 20
R_TURN_MARKER = 21
R_HELM_DOWN = 22
R_NO_SLIP = 23
R_MUST_MOVE = 24
R_FIRED = 25
R_NOT_CHARGED = 26
R_NO_TARGET = 27
R_NOT_ENEMY = 28
R_OUT_OF_ARC = 29
R_OUT_OF_RANGE = 30
R_NO_SUCH_SPEED = 31
R_NEGATIVE_POWER = 32
R_POWER_LOSS = 33
R_NOT_PENDING = 34
R_UNPLAYABLE_WEAPON = 35
R_NO_SUCH_ACTION = 36
R_INIT_MARKED = 37


@nb.njit(cache=True, inline="always")
def other(p):
    return 1 - p


# ---------------------------------------------------------------------------------
# Geometry on the odd-r hex grid (shared conventions: envs/core/hexgrid.py)
# ---------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def to_axial(cell, cols):
    r = cell // cols
    c = cell % cols
    return c - (r - (r & 1)) // 2, r


@nb.njit(cache=True, inline="always")
def from_axial(q, r, rows, cols):
    """Cell of axial (q, r), or -1 off the map."""
    if r < 0 or r >= rows:
        return -1
    c = q + (r - (r & 1)) // 2
    if c < 0 or c >= cols:
        return -1
    return r * cols + c


# axial step per direction E, NE, NW, W, SW, SE
DQ = np.array([1, 1, 0, -1, -1, 0], dtype=np.int64)
DR = np.array([0, -1, -1, 0, 1, 1], dtype=np.int64)


@nb.njit(cache=True, inline="always")
def axial_distance(q1, r1, q2, r2):
    dq = q1 - q2
    dr = r1 - r2
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


# ---------------------------------------------------------------------------------
# Borrowed views of the state and the config for the rule functions
# ---------------------------------------------------------------------------------
# The rule functions read the state as ``s.sh``/``s.g`` and the config as ``cfg.cls``,
# ``cfg.grp`` ... through borrow(), so they take either the structs or these views.
# Callers that ask many of them (the mask, stage_has_choice, action_reason) pass the
# views: an inlined function's struct arguments would each cost an atomic reference
# count increment and decrement per call (core/structs.py), borrowed arrays nothing.
StateView = namedtuple("StateView", ["sh", "g"])
ConfigView = namedtuple("ConfigView", ["k", "cls", "grp", "curve", "hull", "chart", "wplay", "wmin", "wmax",
                                       "dist", "arc_of"])


@nb.njit(cache=True, inline="always")
def state_view(s):
    return StateView(borrow(s.sh), borrow(s.g))


@nb.njit(cache=True, inline="always")
def config_view(cfg):
    return ConfigView(borrow(cfg.k), borrow(cfg.cls), borrow(cfg.grp), borrow(cfg.curve), borrow(cfg.hull),
                      borrow(cfg.chart), borrow(cfg.wplay), borrow(cfg.wmin), borrow(cfg.wmax), borrow(cfg.dist),
                      borrow(cfg.arc_of))


# ---------------------------------------------------------------------------------
# Ship helpers
# ---------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def active(sh, b, p, k):
    return sh[b, p, k, SH_STATUS] == SS_ACTIVE


@nb.njit(cache=True, inline="always")
def hull_modifier(sh, cfg, b, p, k):
    """Power modifier in the left-most unmarked hull box (Talon 8.4.2)."""
    c = sh[b, p, k, SH_CLASS]
    h = sh[b, p, k, SH_HULL_HITS]
    if h >= borrow(cfg.cls)[c, CL_N_HULL]:
        return 0
    return borrow(cfg.hull)[c, h, 0]


@nb.njit(cache=True, inline="always")
def power_at_curve(sh, cfg, b, p, k, curve):
    """Power a ship would have on ``curve`` with its damage (Talon 5.4.4, 8.4.2, critical 8)."""
    c = sh[b, p, k, SH_CLASS]
    return borrow(cfg.curve)[c, curve, 0] + hull_modifier(sh, cfg, b, p, k) - sh[b, p, k, SH_C_POWER]


@nb.njit(cache=True, inline="always")
def speed_of(sh, cfg, b, p, k):
    return borrow(cfg.curve)[sh[b, p, k, SH_CLASS], sh[b, p, k, SH_CURVE], 1]


@nb.njit(cache=True, inline="always")
def turn_radius(sh, cfg, b, p, k):
    """Turn radius of the curve plus the Turn +1/+2 critical marker (Talon 5.4, critical 6)."""
    return cfg.curve[sh[b, p, k, SH_CLASS], sh[b, p, k, SH_CURVE], 2] + sh[b, p, k, SH_C_TURN]


@nb.njit(cache=True, inline="always")
def in_chart(cfg, impulse, value):
    """Is ``value`` printed in the box of ``impulse`` (Talon 4.1)?"""
    if value < 1 or value > 6 or impulse > 5:
        return False
    return borrow(cfg.chart)[impulse, value] != 0


@nb.njit(cache=True, inline="always")
def chart_ap(sh, cfg, b, p, k, impulse):
    return in_chart(cfg, impulse, sh[b, p, k, SH_POWER])


@nb.njit(cache=True, inline="always")
def must_move(sh, cfg, b, p, k, impulse):
    return in_chart(cfg, impulse, speed_of(sh, cfg, b, p, k))


@nb.njit(cache=True, inline="always")
def group_full(sh, cfg, b, p, k, gi):
    """A group fires only with its whole bar charged (Talon 8.1.1)."""
    c = sh[b, p, k, SH_CLASS]
    if (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
        return False
    grp = borrow(cfg.grp)
    return sh[b, p, k, SH_RED + gi] >= grp[c, gi, GR_RED] and sh[b, p, k, SH_YEL + gi] >= grp[c, gi, GR_YELLOW]


@nb.njit(cache=True, inline="always")
def reinforcements(sh, b, p, k):
    n = 0
    for a in range(4):
        if sh[b, p, k, SH_REINF + a] > 0:
            n += 1
    return n


@nb.njit(cache=True, inline="always")
def reinforce_limit(sh, cfg, b, p, k):
    """2nd ed. 6.2.2: two per ship.  1st ed. 6.2.2: half the Power, rounded down, at least 1."""
    if borrow(cfg.k)[K_EDITION] == 1:
        return max(1, sh[b, p, k, SH_POWER] // 2)
    return 2


# ---------------------------------------------------------------------------------
# Damage, criticals, destruction (Talon 8.4-8.6)
# ---------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def leave_play(sh, b, p, k, status):
    """The ship's counter leaves the map: destroyed (Talon 8.6.1 "la nave è immediatamente
    distrutta. Rimuovere il segnalino") or retreated (7.5.2 "viene rimossa dal gioco").
    The markers on it leave with it: its initiative marker no longer counts (4.2), and
    nothing collides with it any more (7.4, next_collision)."""
    sh[b, p, k, SH_STATUS] = status
    sh[b, p, k, SH_INIT_MARK] = 0


@nb.njit(cache=True)
def destroy(s, cfg, b, p, k):
    """The last hull box is marked or the FTL core breaches: the ship is destroyed (Talon 8.6.1).

    Its explosion (8.6.2) waits in the queue: several ships destroyed at once
    explode in the order their owners choose (8.6.3)."""
    sh = s.sh
    if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
        return
    leave_play(sh, b, p, k, SS_DESTROYED)
    sh[b, p, k, SH_PENDING] = 1
    pts = cfg.cls[sh[b, p, k, SH_CLASS], CL_POINTS]
    s.g[b, G_SP0 + other(p)] += pts


@nb.njit(cache=True)
def destroy_weapon_group(s, cfg, b, p, k):
    """Critical 5/9: a die per intact group, the highest is destroyed, ties re-rolled (Talon 8.5)."""
    sh = s.sh
    c = sh[b, p, k, SH_CLASS]
    cand = 0
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        if not (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
            cand |= 1 << gi
    while cand != 0:
        n = 0
        for gi in range(3):
            if (cand >> gi) & 1:
                n += 1
        if n == 1:
            break
        best = 0
        nxt = 0
        for gi in range(3):
            if (cand >> gi) & 1:
                v = roll_die(s.rng, s.dice_script, s.dice, b, 6)
                if v > best:
                    best = v
                    nxt = 1 << gi
                elif v == best:
                    nxt |= 1 << gi
        cand = nxt
    for gi in range(3):
        if (cand >> gi) & 1:
            sh[b, p, k, SH_GROUP_DEAD] |= 1 << gi
            sh[b, p, k, SH_RED + gi] = 0
            sh[b, p, k, SH_YEL + gi] = 0


@nb.njit(cache=True)
def critical(s, cfg, b, p, k):
    """Roll 2d6 on the critical damage table and apply the result at once (Talon 8.4.3, 8.5).

    Returns the extra hull damage the result causes (2: 3 boxes, 10: 1 box); the
    caller marks it, so that no kernel is recursive (Numba cannot cache recursion)."""
    sh = s.sh
    roll = roll_die(s.rng, s.dice_script, s.dice, b, 6) + roll_die(s.rng, s.dice_script, s.dice, b, 6)
    res = cfg.crit[roll]
    stamp = s.g[b, G_SERIAL] + 1
    if res == CR_SECONDARY:
        return 3
    elif res == CR_SHIELDS:
        # Shields down until repaired: reinforcements are destroyed, damage goes to the hull.
        if sh[b, p, k, SH_C_SHIELDS] == 0:
            sh[b, p, k, SH_C_SHIELDS] = stamp
        for a in range(4):
            sh[b, p, k, SH_REINF + a] = 0
    elif res == CR_HELM:
        if sh[b, p, k, SH_C_HELM] == 0:
            sh[b, p, k, SH_C_HELM] = stamp
    elif res == CR_WEAPON:
        destroy_weapon_group(s, cfg, b, p, k)
    elif res == CR_TURN:
        if sh[b, p, k, SH_C_TURN] < 2:  # "Turn +1", flipped to "+2" (the marker has two sides)
            sh[b, p, k, SH_C_TURN] += 1
            sh[b, p, k, SH_C_TURN_AT] = stamp
    elif res == CR_POWER:
        if sh[b, p, k, SH_C_POWER] == 0:  # one Power -1 marker; a second 8 has no effect (RULES.md)
            sh[b, p, k, SH_C_POWER] = 1
            sh[b, p, k, SH_C_POWER_AT] = stamp
    elif res == CR_HULL_FTL:
        if sh[b, p, k, SH_C_FTL] == 0:
            sh[b, p, k, SH_C_FTL] = stamp
        return 1
    elif res == CR_PLOSS:
        if sh[b, p, k, SH_C_PLOSS] == 0:  # a second 11 has no effect (8.5 example)
            sh[b, p, k, SH_C_PLOSS] = stamp
    elif res == CR_BREACH:
        destroy(s, cfg, b, p, k)
    return 0


@nb.njit(cache=True)
def hull_damage(s, cfg, b, p, k, n):
    """Mark ``n`` hull boxes from the left; critical boxes roll at once (Talon 8.4.1, 8.4.3),
    and a secondary explosion's boxes are marked next (critical 2)."""
    sh = s.sh
    c = sh[b, p, k, SH_CLASS]
    while n > 0:
        n -= 1
        if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
            return
        h = sh[b, p, k, SH_HULL_HITS]
        sh[b, p, k, SH_HULL_HITS] = h + 1
        if h + 1 >= cfg.cls[c, CL_N_HULL]:
            destroy(s, cfg, b, p, k)
            return
        if cfg.hull[c, h, 1]:
            n += critical(s, cfg, b, p, k)


@nb.njit(cache=True)
def damage(s, cfg, b, p, k, arc, n):
    """``n`` points on shield arc ``arc``: reinforcement first, then shield boxes, then hull (Talon 6.2.1, 8.4.1)."""
    sh = s.sh
    for i in range(n):
        if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
            return
        if sh[b, p, k, SH_C_SHIELDS] == 0:
            if sh[b, p, k, SH_REINF + arc] > 0:
                sh[b, p, k, SH_REINF + arc] = 0
                continue
            if sh[b, p, k, SH_SHIELD + arc] > 0:
                sh[b, p, k, SH_SHIELD + arc] -= 1
                continue
        hull_damage(s, cfg, b, p, k, 1)


@nb.njit(cache=True)
def random_arc(s, b):
    """Explosion in the same hex: a die per shield arc, the highest is hit, ties re-rolled (Talon 8.6.2)."""
    cand = 15
    while True:
        n = 0
        last = 0
        for a in range(4):
            if (cand >> a) & 1:
                n += 1
                last = a
        if n == 1:
            return last
        best = 0
        nxt = 0
        for a in range(4):
            if (cand >> a) & 1:
                v = roll_die(s.rng, s.dice_script, s.dice, b, 6)
                if v > best:
                    best = v
                    nxt = 1 << a
                elif v == best:
                    nxt |= 1 << a
        cand = nxt


@nb.njit(cache=True)
def explode(s, cfg, b, p, k):
    """Explosion damage to every ship in the same and in adjacent hexes (Talon 8.6.2).

    Damage goes to the player to move's ships first, in slot order: every ship's
    damage is independent, so the order only decides which die each roll uses."""
    sh = s.sh
    sh[b, p, k, SH_PENDING] = 0
    strength = cfg.cls[sh[b, p, k, SH_CLASS], CL_EXPLOSION]
    if strength <= 0:
        return
    cell = sh[b, p, k, SH_CELL]
    first = s.g[b, G_PENDING_TURN]
    for i in range(2):
        q = first if i == 0 else other(first)
        for j in range(sh.shape[2]):
            if not active(sh, b, q, j):
                continue
            tc = sh[b, q, j, SH_CELL]
            if tc == cell:
                damage(s, cfg, b, q, j, random_arc(s, b), strength)
            elif cfg.dist[tc, cell] == 1:
                damage(s, cfg, b, q, j, cfg.arc_of[tc, cell, sh[b, q, j, SH_FACING]], strength)


@nb.njit(cache=True)
def pending_count(sh, b, p):
    n = 0
    last = -1
    for k in range(sh.shape[2]):
        if sh[b, p, k, SH_PENDING]:
            n += 1
            last = k
    return n, last


@nb.njit(cache=True)
def resolve_explosions(s, cfg, b):
    """Explode destroyed ships until none is pending or an owner must choose the order (Talon 8.6.3).

    The player whose turn it is orders its own ships first.  Returns True when
    a decision (ST_EXPLODE) is needed."""
    g = borrow(s.g)
    sh = borrow(s.sh)
    none = True
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_PENDING]:
                none = False
    if none:
        return False   # the usual case, without the helper calls below
    first = g[b, G_PENDING_TURN]
    while True:
        n0, k0 = pending_count(sh, b, first)
        if n0 > 1:
            g[b, G_CURRENT] = first
            return True
        if n0 == 1:
            explode(s, cfg, b, first, k0)
            continue
        n1, k1 = pending_count(sh, b, other(first))
        if n1 > 1:
            g[b, G_CURRENT] = other(first)
            return True
        if n1 == 1:
            explode(s, cfg, b, other(first), k1)
            continue
        return False


# ---------------------------------------------------------------------------------
# The moving map (Talon 7.5)
# ---------------------------------------------------------------------------------
@nb.njit(cache=True)
def best_shift(s, cfg, b, extra_q, extra_r):
    """The translation that fits every ship and the hex about to be entered on
    the map and centres them best; (0, 0, False) when none exists (Talon 7.5.1).

    In doubled-width coordinates (x2 = 2q + r = 2 col + row parity) a hex is on
    the odd-r map iff 0 <= x2 <= 2 cols - 1 and 0 <= r <= rows - 1, so only the
    bounding box of the pieces matters; a translation (dq, dr) adds 2 dq + dr to x2."""
    rows = cfg.k[K_ROWS]
    cols = cfg.k[K_COLS]
    sh = s.sh
    xmin = 2 * extra_q + extra_r
    xmax = xmin
    ymin = extra_r
    ymax = extra_r
    for p in range(2):
        for k in range(sh.shape[2]):
            if active(sh, b, p, k):
                q, r = to_axial(sh[b, p, k, SH_CELL], cols)
                x2 = 2 * q + r
                xmin = min(xmin, x2)
                xmax = max(xmax, x2)
                ymin = min(ymin, r)
                ymax = max(ymax, r)
    best = 1 << 60
    bq = 0
    br = 0
    found = False
    for dr in range(-ymin, rows - ymax):
        for dq in range(-(cols + rows), cols + rows + 1):
            dx = 2 * dq + dr
            if xmin + dx < 0 or xmax + dx > 2 * cols - 1:
                continue
            # distance of the box centre from the map centre (x in half hexes, y in rows)
            cx = (xmin + xmax + 2 * dx) - (2 * (cols - 1) + 1)
            cy = (ymin + ymax + 2 * dr) - (rows - 1)
            score = (cx * cx + 3 * cy * cy) * 1000 + abs(dq) + abs(dr)
            if score < best:
                best = score
                bq = dq
                br = dr
                found = True
    return bq, br, found


@nb.njit(cache=True)
def apply_shift(s, cfg, b, dq, dr):
    rows = cfg.k[K_ROWS]
    cols = cfg.k[K_COLS]
    sh = s.sh
    for p in range(2):
        for k in range(sh.shape[2]):
            if active(sh, b, p, k):
                q, r = to_axial(sh[b, p, k, SH_CELL], cols)
                sh[b, p, k, SH_CELL] = from_axial(q + dq, r + dr, rows, cols)


@nb.njit(cache=True)
def forced_withdrawal(s, cfg, b):
    """Ships 6 or more hexes from the nearest other ship leave the battle (Talon 7.5.2)."""
    cols = cfg.k[K_COLS]
    sh = s.sh
    S = sh.shape[2]
    gone = np.zeros((2, S), dtype=np.bool_)
    any_gone = False
    for p in range(2):
        for k in range(S):
            if not active(sh, b, p, k):
                continue
            q1, r1 = to_axial(sh[b, p, k, SH_CELL], cols)
            near = 1 << 30
            for p2 in range(2):
                for k2 in range(S):
                    if (p2 == p and k2 == k) or not active(sh, b, p2, k2):
                        continue
                    q2, r2 = to_axial(sh[b, p2, k2, SH_CELL], cols)
                    near = min(near, axial_distance(q1, r1, q2, r2))
            if near >= 6:
                gone[p, k] = True
                any_gone = True
    for p in range(2):
        for k in range(S):
            if gone[p, k]:
                leave_play(sh, b, p, k, SS_RETREATED)
    return any_gone


# ---------------------------------------------------------------------------------
# Legality: each rule's condition stated once, as a function returning 0 (legal) or
# the reason code.  write_mask asks them for every candidate action of the current
# stage, stage_has_choice whether any is legal, action_reason (and so step_game and
# why_illegal) for one action.  They are inlined where they are called
# (inline="always"), so the mask's loops compile to one function without calls; a
# condition that depends only on the ship (ap_ship_reason, may_move, fire_ship_reason,
# group_ready_reason) is its own function, asked once per ship or group before the
# per-action conditions.  The stage an action family belongs to is checked once, in
# action_reason (the mask only looks at the current stage's families).
# ---------------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def ap_source(s, cfg, b, p, k):
    """1: AP from the impulse chart, 2: from the battery (Talon 10.1.2), 0: none."""
    sh = borrow(s.sh)
    g = borrow(s.g)
    if chart_ap(sh, cfg, b, p, k, g[b, G_IMPULSE]):
        return 1
    if sh[b, p, k, SH_BATTERY]:
        return 2
    return 0


@nb.njit(cache=True, inline="always")
def ap_ship_reason(s, cfg, b, p, k):
    """May ship ``k`` spend an AP now at all (Talon 5.1, 6.1, 10.1.2)?"""
    sh = borrow(s.sh)
    if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
        return R_NO_SHIP
    if ap_source(s, cfg, b, p, k) == 0:
        return R_NO_AP
    if sh[b, p, k, SH_AP_SPENT]:
        return R_AP_SPENT
    return OK


@nb.njit(cache=True, inline="always")
def ap_use_reason(s, cfg, b, p, k, u):
    """May ship ``k``, which has an AP to spend (ap_ship_reason), spend it on use ``u`` (Talon 6.1)?"""
    sh = borrow(s.sh)
    cls = borrow(cfg.cls)
    grp = borrow(cfg.grp)
    k_ = borrow(cfg.k)
    c = sh[b, p, k, SH_CLASS]
    if u == U_SLIP:
        return R_SLIP_PLACED if sh[b, p, k, SH_SLIP] else OK
    if u == U_TURN:
        return OK if sh[b, p, k, SH_TURN_LEFT] > 0 else R_NO_TURN_MARKER
    if U_CHARGE <= u < U_CHARGE + 3:
        gi = u - U_CHARGE
        if gi >= cls[c, CL_N_GROUPS] or (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
            return R_NO_GROUP
        return OK if sh[b, p, k, SH_YEL + gi] < grp[c, gi, GR_YELLOW] else R_BAR_FULL
    if u == U_BATTERY:
        if not cls[c, CL_BATTERY]:
            return R_NO_BATTERY
        if sh[b, p, k, SH_BATTERY]:
            return R_BATTERY_CHARGED
        return OK if ap_source(s, cfg, b, p, k) == 1 else R_BATTERY_AP   # 10.1.3 not from itself
    if U_REINF <= u < U_REINF + 4:
        a = u - U_REINF
        if sh[b, p, k, SH_REINF + a] > 0:
            return R_REINF_PLACED
        if sh[b, p, k, SH_C_SHIELDS] > 0:
            return R_SHIELDS_DOWN
        if k_[K_EDITION] == 1 and sh[b, p, k, SH_SHIELD + a] == 0:
            return R_ARC_DESTROYED
        if reinforcements(sh, b, p, k) >= reinforce_limit(sh, cfg, b, p, k):
            return R_REINF_LIMIT
        return OK
    if u == U_CHANGE or u == U_DEFEND:
        return R_INIT_MARKED if sh[b, p, k, SH_INIT_MARK] else OK
    return R_NO_SUCH_ACTION


@nb.njit(cache=True, inline="always")
def ap_reason(s, cfg, b, p, k, u):
    """May ship ``k`` spend its AP of this impulse on use ``u`` (Talon 6.1)?"""
    r = ap_ship_reason(s, cfg, b, p, k)
    if r != OK:
        return r
    return ap_use_reason(s, cfg, b, p, k, u)


@nb.njit(cache=True, inline="always")
def unreinforce_reason(s, cfg, b, p, k, a):
    """The owner may remove a reinforcement before it expires (Talon 6.2.3)."""
    sh = borrow(s.sh)
    if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
        return R_NO_SHIP
    return OK if sh[b, p, k, SH_REINF + a] > 0 else R_NO_REINF


@nb.njit(cache=True, inline="always")
def must_still_move(s, cfg, b, p, k):
    """Ship ``k`` has its speed in this impulse's box and has not moved yet (Talon 7.1)."""
    sh = borrow(s.sh)
    return (sh[b, p, k, SH_STATUS] == SS_ACTIVE and not sh[b, p, k, SH_MOVED]
            and must_move(sh, cfg, b, p, k, borrow(s.g)[b, G_IMPULSE]))


@nb.njit(cache=True, inline="always")
def may_move(s, cfg, b, p, k):
    """0 if ship ``k`` may move now: it must (Talon 7.1) or can burn an afterburner (10.2)."""
    sh = borrow(s.sh)
    if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
        return R_NO_SHIP
    if sh[b, p, k, SH_MOVED]:
        return R_MOVED
    if must_move(sh, cfg, b, p, k, borrow(s.g)[b, G_IMPULSE]):
        return OK
    if sh[b, p, k, SH_AB_LEFT] > 0:
        return OK
    return R_NO_AFTERBURNER


@nb.njit(cache=True, inline="always")
def move_kind_reason(s, cfg, b, p, k, m):
    """May ship ``k``, which may move (may_move), make move ``m`` (Talon 7.1-7.3, critical 4)?"""
    sh = borrow(s.sh)
    if m == M_STRAIGHT:
        return OK
    if sh[b, p, k, SH_C_HELM] > 0:
        return R_HELM_DOWN  # critical 4: straight only
    if m == M_TURN_LEFT or m == M_TURN_RIGHT:
        return OK if sh[b, p, k, SH_TURN_LEFT] == 0 else R_TURN_MARKER
    return OK if sh[b, p, k, SH_SLIP] else R_NO_SLIP


@nb.njit(cache=True, inline="always")
def move_reason(s, cfg, b, p, k, m):
    r = may_move(s, cfg, b, p, k)
    if r != OK:
        return r
    return move_kind_reason(s, cfg, b, p, k, m)


@nb.njit(cache=True, inline="always")
def target_reason(s, cfg, b, p, k, gi, t):
    """May weapon group ``gi`` of ship ``k`` fire at enemy ship ``t`` (Talon 8.2.2, 8.3 step 2)?"""
    sh = borrow(s.sh)
    grp = borrow(cfg.grp)
    e = other(p)
    if sh[b, e, t, SH_STATUS] != SS_ACTIVE:
        return R_NOT_ENEMY
    c = sh[b, p, k, SH_CLASS]
    w = grp[c, gi, GR_WEAPON]
    if not borrow(cfg.wplay)[w]:
        return R_UNPLAYABLE_WEAPON
    fc = sh[b, p, k, SH_CELL]
    tc = sh[b, e, t, SH_CELL]
    d = borrow(cfg.dist)[fc, tc]
    if d < borrow(cfg.wmin)[w] or d > borrow(cfg.wmax)[w] or d == 0:
        return R_OUT_OF_RANGE
    arc = borrow(cfg.arc_of)[fc, tc, sh[b, p, k, SH_FACING]]
    if not (grp[c, gi, GR_ARCS] >> arc) & 1:
        return R_OUT_OF_ARC
    return OK


@nb.njit(cache=True, inline="always")
def group_ready_reason(s, cfg, b, p, k, gi):
    """Is group ``gi`` of ship ``k`` there, charged and playable (Talon 8.1.1, 8.3 step 1)?"""
    sh = borrow(s.sh)
    cls = borrow(cfg.cls)
    c = sh[b, p, k, SH_CLASS]
    if gi >= cls[c, CL_N_GROUPS]:
        return R_NO_GROUP
    if not group_full(sh, cfg, b, p, k, gi):
        return R_NOT_CHARGED
    if not borrow(cfg.wplay)[borrow(cfg.grp)[c, gi, GR_WEAPON]]:
        return R_UNPLAYABLE_WEAPON
    return OK


@nb.njit(cache=True, inline="always")
def group_reason(s, cfg, b, p, k, gi):
    """May ship ``k`` fire group ``gi`` now: ready, with a target (Talon 8.3 steps 1-2)?"""
    r = group_ready_reason(s, cfg, b, p, k, gi)
    if r != OK:
        return r
    for t in range(borrow(s.sh).shape[2]):
        if target_reason(s, cfg, b, p, k, gi, t) == OK:
            return OK
    return R_NO_TARGET


@nb.njit(cache=True, inline="always")
def fire_ship_reason(s, cfg, b, p, k):
    """Ship ``k`` is in play and has not fired this turn (Talon 8.2.1)."""
    sh = borrow(s.sh)
    if sh[b, p, k, SH_STATUS] != SS_ACTIVE:
        return R_NO_SHIP
    if sh[b, p, k, SH_FIRED]:
        return R_FIRED
    return OK


@nb.njit(cache=True, inline="always")
def can_fire(s, cfg, b, p, k):
    """May ship ``k`` be chosen to fire: it may, and a group of it may fire (Talon 8.2.1, 8.3)?"""
    r = fire_ship_reason(s, cfg, b, p, k)
    if r != OK:
        return r
    r = R_NO_GROUP
    for gi in range(borrow(cfg.cls)[borrow(s.sh)[b, p, k, SH_CLASS], CL_N_GROUPS]):
        r = group_reason(s, cfg, b, p, k, gi)
        if r == OK:
            return OK
    return r


@nb.njit(cache=True, inline="always")
def speed_reason(s, cfg, b, p, d):
    """Speed choice ``d`` (0 slower, 1 same, 2 faster) for the ship in the power phase (Talon 5.4.3, 9.3)."""
    sh = borrow(s.sh)
    cls = borrow(cfg.cls)
    k = borrow(s.g)[b, G_SHIP]
    c = sh[b, p, k, SH_CLASS]
    if sh[b, p, k, SH_C_PLOSS] > 0 and d != 1:
        return R_POWER_LOSS
    # curves are listed from fastest to slowest: slower = next row
    curve = sh[b, p, k, SH_CURVE] + (1 - d)
    if curve < 0 or curve >= cls[c, CL_N_CURVES]:
        return R_NO_SUCH_SPEED
    if power_at_curve(sh, cfg, b, p, k, curve) < 0:
        return R_NEGATIVE_POWER
    return OK


@nb.njit(cache=True, inline="always")
def explode_reason(s, b, p, k):
    """Only a ship destroyed and not yet exploded can be chosen to explode next (Talon 8.6.3)."""
    return OK if borrow(s.sh)[b, p, k, SH_PENDING] else R_NOT_PENDING


@nb.njit(cache=True, inline="always")
def done_reason(s, cfg, b, p, st):
    """May the player end the stage: AP and fire are optional (6.1, 8.2); the move stage
    ends only when no ship must still move (7.1)."""
    if st == ST_AP or st == ST_FIRE_SHIP or st == ST_FIRE_GROUP:
        return OK
    if st == ST_MOVE:
        for k in range(borrow(s.sh).shape[2]):
            if must_still_move(s, cfg, b, p, k):
                return R_MUST_MOVE
        return OK
    return R_STAGE


@nb.njit(cache=True, inline="always")
def action_reason(s_, cfg_, b, a):
    """Reason code why action ``a`` is illegal in game ``b`` now (0 = legal)."""
    s = state_view(s_)
    cfg = config_view(cfg_)
    g = s.g
    k_ = cfg.k
    if g[b, G_DONE]:
        return R_GAME_OVER
    if a < 0 or a >= k_[K_N_ACTIONS]:
        return R_NO_SUCH_ACTION
    p = g[b, G_CURRENT]
    st = g[b, G_STAGE]
    if a < k_[K_A_MOVE]:
        if st != ST_AP:
            return R_STAGE
        if a < k_[K_A_UNREINF]:
            i = a - k_[K_A_AP]
            return ap_reason(s, cfg, b, p, i // N_USES, i % N_USES)
        i = a - k_[K_A_UNREINF]
        return unreinforce_reason(s, cfg, b, p, i // 4, i % 4)
    if a < k_[K_A_FIRE_SHIP]:
        if st != ST_MOVE:
            return R_STAGE
        i = a - k_[K_A_MOVE]
        return move_reason(s, cfg, b, p, i // N_MOVES, i % N_MOVES)
    if a < k_[K_A_GROUP]:
        if st != ST_FIRE_SHIP:
            return R_STAGE
        return can_fire(s, cfg, b, p, a - k_[K_A_FIRE_SHIP])
    if a < k_[K_A_TARGET]:
        if st != ST_FIRE_GROUP:
            return R_STAGE
        return group_reason(s, cfg, b, p, g[b, G_SHIP], a - k_[K_A_GROUP])
    if a < k_[K_A_SPEED]:
        if st != ST_FIRE_TARGET:
            return R_STAGE
        return target_reason(s, cfg, b, p, g[b, G_SHIP], g[b, G_GROUP], a - k_[K_A_TARGET])
    if a < k_[K_A_INIT]:
        if st != ST_POWER:
            return R_STAGE
        return speed_reason(s, cfg, b, p, a - k_[K_A_SPEED])
    if a < k_[K_A_COLLIDE]:
        return OK if st == ST_INIT else R_STAGE
    if a < k_[K_A_EXPLODE]:
        return OK if st == ST_COLLIDE else R_STAGE
    if a < k_[K_A_DONE]:
        if st != ST_EXPLODE:
            return R_STAGE
        k = a - k_[K_A_EXPLODE]
        return explode_reason(s, b, p, k) if k < borrow(s.sh).shape[2] else R_NOT_PENDING
    return done_reason(s, cfg, b, p, st)


# ---------------------------------------------------------------------------------
# Applying decisions
# ---------------------------------------------------------------------------------
@nb.njit(cache=True)
def apply_ap(s, cfg, b, p, k, u):
    """Spend the ship's AP of this impulse (Talon 6.1); from the battery if the chart gives none (10.1.2)."""
    g = borrow(s.g)
    sh = borrow(s.sh)
    if ap_source(s, cfg, b, p, k) == 2:
        sh[b, p, k, SH_BATTERY] = 0
    sh[b, p, k, SH_AP_SPENT] = 1
    if u == U_SLIP:
        sh[b, p, k, SH_SLIP] = 1                      # 6.1 enable a side slip
    elif u == U_TURN:
        sh[b, p, k, SH_TURN_LEFT] -= 1                # 6.1 power through a turn
    elif U_CHARGE <= u < U_CHARGE + 3:
        sh[b, p, k, SH_YEL + u - U_CHARGE] += 1       # 6.1 active charging, 8.1.2
    elif u == U_BATTERY:
        sh[b, p, k, SH_BATTERY] = 1                   # 10.1.3
    elif U_REINF <= u < U_REINF + 4:
        sh[b, p, k, SH_REINF + u - U_REINF] = g[b, G_IMPULSE] + 1   # 6.2, letter of this impulse
    elif u == U_CHANGE:
        sh[b, p, k, SH_INIT_MARK] = 1                 # 4.2
    elif u == U_DEFEND:
        sh[b, p, k, SH_INIT_MARK] = 2


@nb.njit(cache=True)
def apply_move(s, cfg, b, p, k, m):
    """Move one hex: straight, turn (rotate then advance, 7.2.1) or side slip (7.3.1).

    Returns True if the ship ended in a friendly ship's hex (collision, 7.4)."""
    k_ = borrow(cfg.k)
    g = borrow(s.g)
    sh = borrow(s.sh)
    rows = k_[K_ROWS]
    cols = k_[K_COLS]
    if not must_move(sh, cfg, b, p, k, g[b, G_IMPULSE]):
        sh[b, p, k, SH_AB_LEFT] -= 1                  # 10.2.2 afterburner
        sh[b, p, k, SH_AB_NOW] = 1
    sh[b, p, k, SH_MOVED] = 1
    f = sh[b, p, k, SH_FACING]
    if m == M_TURN_LEFT:
        f = (f + 1) % 6
    elif m == M_TURN_RIGHT:
        f = (f + 5) % 6
    d = f
    arc = ARC_FRONT
    if m == M_SLIP_LEFT:
        d = (f + 1) % 6
        arc = ARC_LEFT
    elif m == M_SLIP_RIGHT:
        d = (f + 5) % 6
        arc = ARC_RIGHT
    q, r = to_axial(sh[b, p, k, SH_CELL], cols)
    nq = q + DQ[d]
    nr = r + DR[d]
    if from_axial(nq, nr, rows, cols) < 0:
        # 7.5.1 the moving map: shift everything so there is room to move
        dq, dr, ok = best_shift(s, cfg, b, nq, nr)
        if not ok:
            forced_withdrawal(s, cfg, b)              # 7.5.2
            if not active(sh, b, p, k):
                return False
            dq, dr, ok = best_shift(s, cfg, b, nq, nr)
            if not ok:
                # No room even after 7.5.2: the ship leaves the battle (RULES.md).
                leave_play(sh, b, p, k, SS_RETREATED)
                return False
        apply_shift(s, cfg, b, dq, dr)
        q += dq
        r += dr
        nq += dq
        nr += dr
    origin = from_axial(q, r, rows, cols)
    sh[b, p, k, SH_CELL] = from_axial(nq, nr, rows, cols)
    sh[b, p, k, SH_FACING] = f
    # 7.2.2 turn marker: placed turn-radius hexes ahead after a turn; each
    # straight move or side slip brings it one hex closer (7.3.2).
    if m == M_TURN_LEFT or m == M_TURN_RIGHT:
        sh[b, p, k, SH_TURN_LEFT] = turn_radius(sh, cfg, b, p, k)
    elif sh[b, p, k, SH_TURN_LEFT] > 0:
        sh[b, p, k, SH_TURN_LEFT] -= 1
    sh[b, p, k, SH_SLIP] = 0                          # 7.3.2 removed at the next move, used or not
    # 7.4 collisions with ships of the same side in the new hex
    queue = 0
    cell = sh[b, p, k, SH_CELL]
    for j in range(sh.shape[2]):
        if j != k and active(sh, b, p, j) and sh[b, p, j, SH_CELL] == cell:
            queue |= 1 << j
    g[b, G_COLL_MOVER] = k
    g[b, G_COLL_ORIGIN] = origin
    g[b, G_COLL_ARC] = arc
    g[b, G_COLL_QUEUE] = queue
    g[b, G_MOVE_PLAYER] = p
    return queue != 0


@nb.njit(cache=True)
def collide(s, cfg, b, mover_first):
    """3 damage to each ship on its shields facing the other (Talon 7.4), in the order chosen."""
    sh = s.sh
    p = s.g[b, G_MOVE_PLAYER]
    k = s.g[b, G_COLL_MOVER]
    j = s.g[b, G_COLL_OTHER]
    arc_mover = s.g[b, G_COLL_ARC]
    arc_other = cfg.arc_of[sh[b, p, j, SH_CELL], s.g[b, G_COLL_ORIGIN], sh[b, p, j, SH_FACING]]
    if mover_first:
        damage(s, cfg, b, p, k, arc_mover, 3)
        damage(s, cfg, b, p, j, arc_other, 3)
    else:
        damage(s, cfg, b, p, j, arc_other, 3)
        damage(s, cfg, b, p, k, arc_mover, 3)


@nb.njit(cache=True)
def next_collision(s, b):
    """Pop the next friendly ship the mover collides with; False when none is left.

    Talon 8.6.1 with 7.4: a destroyed ship is removed at once, so a mover destroyed
    by an earlier collision (or by the explosion that followed it) collides with
    nothing more, and a ship of the queue that is no longer in play is skipped."""
    g = s.g
    sh = s.sh
    p = g[b, G_MOVE_PLAYER]
    q = g[b, G_COLL_QUEUE]
    if not active(sh, b, p, g[b, G_COLL_MOVER]):
        q = 0
    while q != 0:
        j = 0
        while not (q >> j) & 1:
            j += 1
        q &= ~(1 << j)
        if active(sh, b, p, j):
            g[b, G_COLL_QUEUE] = q
            g[b, G_COLL_OTHER] = j
            return True
    g[b, G_COLL_QUEUE] = 0
    return False


@nb.njit(cache=True)
def fire_weapon(s, cfg, b, p, k, gi, t):
    """One weapon of the group at target ``t``: a die on the weapon table by range (Talon 8.3 step 5),
    damage on the target's shield arc that contains the firer (8.3 step 6)."""
    sh = s.sh
    e = other(p)
    c = sh[b, p, k, SH_CLASS]
    w = cfg.grp[c, gi, GR_WEAPON]
    fc = sh[b, p, k, SH_CELL]
    tc = sh[b, e, t, SH_CELL]
    die = roll_die(s.rng, s.dice_script, s.dice, b, 6)
    n = cfg.wdmg[w, cfg.dist[fc, tc], die]
    if n > 0:
        damage(s, cfg, b, e, t, cfg.arc_of[tc, fc, sh[b, e, t, SH_FACING]], n)


# ---------------------------------------------------------------------------------
# Sequence of play (Talon 3.2): advancing to the next decision
# ---------------------------------------------------------------------------------
@nb.njit(cache=True)
def turn_player(s, b):
    g = borrow(s.g)
    return g[b, G_INIT] if g[b, G_TURN] == 0 else other(g[b, G_INIT])


@nb.njit(cache=True)
def check_end(s, cfg, b):
    """The game ends when a side has no ship left (or after the last round, see end_round)."""
    sh = borrow(s.sh)
    alive = 0
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_STATUS] == SS_ACTIVE:
                alive |= 1 << p
                break
    if alive == 3:
        return False
    finish(s, b)
    return True


@nb.njit(cache=True)
def finish(s, b):
    """Victory by ship points destroyed (issue 3, RULES.md 'End of the game')."""
    g = borrow(s.g)
    g[b, G_DONE] = 1
    g[b, G_STAGE] = ST_OVER
    if g[b, G_SP0] > g[b, G_SP1]:
        g[b, G_WINNER] = 0
    elif g[b, G_SP1] > g[b, G_SP0]:
        g[b, G_WINNER] = 1
    else:
        g[b, G_WINNER] = 2


@nb.njit(cache=True)
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
    g[b, G_CURRENT] = p
    g[b, G_PENDING_TURN] = p


@nb.njit(cache=True, inline="always")
def _ap_ship_any(s, cfg, b, p, k):
    """Ship ``k`` may remove a reinforcement or spend its AP on some use (stage ST_AP)."""
    for a in range(4):
        if unreinforce_reason(s, cfg, b, p, k, a) == OK:
            return True
    if ap_ship_reason(s, cfg, b, p, k) != OK:
        return False
    for u in range(N_USES):
        if ap_use_reason(s, cfg, b, p, k, u) == OK:
            return True
    return False


@nb.njit(cache=True)
def stage_has_choice(s_, cfg_, b):
    """Is there anything for the player to decide in the current stage: is any action of
    the stage's families other than "done" legal (stopping at the first)?"""
    s = state_view(s_)
    cfg = config_view(cfg_)
    g = s.g
    sh = s.sh
    S = sh.shape[2]
    p = g[b, G_CURRENT]
    st = g[b, G_STAGE]
    if st == ST_AP:
        for k in range(S):
            if _ap_ship_any(s, cfg, b, p, k):
                return True
        return False
    if st == ST_MOVE:
        for k in range(S):
            if may_move(s, cfg, b, p, k) == OK:
                return True
        return False
    if st == ST_FIRE_SHIP:
        for k in range(S):
            if can_fire(s, cfg, b, p, k) == OK:
                return True
        return False
    if st == ST_FIRE_GROUP or st == ST_FIRE_TARGET:
        k = g[b, G_SHIP]
        # the firing ship must still be there, and in ST_FIRE_TARGET have weapons left (8.3)
        if sh[b, p, k, SH_STATUS] != SS_ACTIVE or (st == ST_FIRE_TARGET and g[b, G_WLEFT] <= 0):
            return False
        if st == ST_FIRE_GROUP:
            for gi in range(3):
                if group_reason(s, cfg, b, p, k, gi) == OK:
                    return True
            return False
        gi = g[b, G_GROUP]
        for t in range(S):
            if target_reason(s, cfg, b, p, k, gi, t) == OK:
                return True
        return False
    return True


@nb.njit(cache=True)
def _calm(s, b):
    """No explosion is pending and both sides have a ship in play: resolve_explosions and
    check_end would change nothing (the usual case, tested without calling them)."""
    sh = borrow(s.sh)
    alive = 0
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_PENDING]:
                return False
            if sh[b, p, k, SH_STATUS] == SS_ACTIVE:
                alive |= 1 << p
    return alive == 3


@nb.njit(cache=True)
def stage_has_choice_ref(s, cfg, b):
    """Reference statement of stage_has_choice through the per-action reasons (tests)."""
    p = s.g[b, G_CURRENT]
    st = s.g[b, G_STAGE]
    sh = s.sh
    S = sh.shape[2]
    if st == ST_AP:
        for k in range(S):
            if not active(sh, b, p, k):
                continue
            for a in range(4):
                if sh[b, p, k, SH_REINF + a] > 0:
                    return True
            if ap_source(s, cfg, b, p, k) and not sh[b, p, k, SH_AP_SPENT]:
                for u in range(N_USES):
                    if ap_reason(s, cfg, b, p, k, u) == OK:
                        return True
        return False
    if st == ST_MOVE:
        for k in range(S):
            if may_move(s, cfg, b, p, k) == OK:
                return True
        return False
    if st == ST_FIRE_SHIP:
        for k in range(S):
            if can_fire(s, cfg, b, p, k) == OK:
                return True
        return False
    if st == ST_FIRE_GROUP:
        k = s.g[b, G_SHIP]
        if not active(sh, b, p, k):
            return False
        for gi in range(3):
            if group_reason(s, cfg, b, p, k, gi) == OK:
                return True
        return False
    if st == ST_FIRE_TARGET:
        k = s.g[b, G_SHIP]
        if s.g[b, G_WLEFT] <= 0 or not active(sh, b, p, k):
            return False
        for t in range(S):
            if target_reason(s, cfg, b, p, k, s.g[b, G_GROUP], t) == OK:
                return True
        return False
    return True


@nb.njit(cache=True)
def repairs(s, cfg, b, p):
    """End of the turn: each repairable critical marker placed before this impulse is repaired on a 6 (Talon 8.7)."""
    g = borrow(s.g)
    k_ = borrow(cfg.k)
    sh = borrow(s.sh)
    now = g[b, G_SERIAL] + 1
    rep = k_[K_REPAIRABLE]
    for k in range(sh.shape[2]):
        if not active(sh, b, p, k):
            continue
        if (rep >> CR_SHIELDS) & 1 and 0 < sh[b, p, k, SH_C_SHIELDS] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_SHIELDS] = 0    # shields return exactly as they were
        if (rep >> CR_HELM) & 1 and 0 < sh[b, p, k, SH_C_HELM] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_HELM] = 0
        if (rep >> CR_TURN) & 1 and sh[b, p, k, SH_C_TURN] > 0 and sh[b, p, k, SH_C_TURN_AT] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_TURN] = 0
                sh[b, p, k, SH_C_TURN_AT] = 0
        if (rep >> CR_POWER) & 1 and sh[b, p, k, SH_C_POWER] > 0 and sh[b, p, k, SH_C_POWER_AT] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_POWER] = 0
                sh[b, p, k, SH_C_POWER_AT] = 0
        if (rep >> CR_HULL_FTL) & 1 and 0 < sh[b, p, k, SH_C_FTL] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_FTL] = 0
        if (rep >> CR_PLOSS) & 1 and 0 < sh[b, p, k, SH_C_PLOSS] < now:
            if roll_die(s.rng, s.dice_script, s.dice, b, 6) == 6:
                sh[b, p, k, SH_C_PLOSS] = 0


@nb.njit(cache=True)
def passive_charge(s, cfg, b, p):
    """Power phase charging (Talon 9.2): one red box per group while red boxes are missing,
    else as many yellow boxes as the group has weapons.  Blocked by Power Loss (9.3)."""
    cls = borrow(cfg.cls)
    grp = borrow(cfg.grp)
    sh = borrow(s.sh)
    for k in range(sh.shape[2]):
        if not active(sh, b, p, k) or sh[b, p, k, SH_C_PLOSS] > 0:
            continue
        c = sh[b, p, k, SH_CLASS]
        for gi in range(cls[c, CL_N_GROUPS]):
            if (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1:
                continue
            if sh[b, p, k, SH_RED + gi] < grp[c, gi, GR_RED]:
                sh[b, p, k, SH_RED + gi] += 1
            else:
                y = sh[b, p, k, SH_YEL + gi] + grp[c, gi, GR_COUNT]
                sh[b, p, k, SH_YEL + gi] = min(y, grp[c, gi, GR_YELLOW])


@nb.njit(cache=True)
def set_curve(s, cfg, b, p, k, curve):
    """Write the new curve and the Power it gives with the hull modifier (Talon 9.3)."""
    sh = borrow(s.sh)
    sh[b, p, k, SH_CURVE] = curve
    sh[b, p, k, SH_POWER] = power_at_curve(sh, cfg, b, p, k, curve)


@nb.njit(cache=True)
def next_power_ship(s, cfg, b):
    """Find the next ship that has a speed to choose; ships with one option are set directly."""
    g = borrow(s.g)
    cls = borrow(cfg.cls)
    sh = borrow(s.sh)
    S = sh.shape[2]
    while g[b, G_PP_TURN] < 2:
        p = g[b, G_INIT] if g[b, G_PP_TURN] == 0 else other(g[b, G_INIT])
        g[b, G_CURRENT] = p
        k = g[b, G_SHIP]
        while k < S:
            if active(sh, b, p, k):
                g[b, G_SHIP] = k
                n_ok = 0
                last = 1
                for d in range(3):
                    if speed_reason(s, cfg, b, p, d) == OK:
                        n_ok += 1
                        last = d
                if n_ok > 1:
                    return True
                # one or no legal speed: keep/take it; the modifiers still apply (9.3)
                c = sh[b, p, k, SH_CLASS]
                curve = sh[b, p, k, SH_CURVE] + (1 - last)
                if n_ok == 0:
                    curve = sh[b, p, k, SH_CURVE]
                curve = min(max(curve, 0), cls[c, CL_N_CURVES] - 1)
                set_curve(s, cfg, b, p, k, curve)
            k += 1
        g[b, G_PP_TURN] += 1
        g[b, G_SHIP] = 0
        if g[b, G_PP_TURN] == 1:
            passive_charge(s, cfg, b, other(g[b, G_INIT]))
    return False


@nb.njit(cache=True)
def begin_power_phase(s, cfg, b):
    """After impulse F (Talon 9.1): the initiative player first."""
    g = borrow(s.g)
    g[b, G_IMPULSE] = 6
    g[b, G_STAGE] = ST_POWER
    g[b, G_PP_TURN] = 0
    g[b, G_SHIP] = 0
    passive_charge(s, cfg, b, g[b, G_INIT])


@nb.njit(cache=True)
def end_power_phase(s, cfg, b):
    """Ships with Power below zero break apart (Talon 5.4.5); the round ends (9.4)."""
    g = borrow(s.g)
    sh = borrow(s.sh)
    g[b, G_PENDING_TURN] = g[b, G_INIT]
    for p in range(2):
        for k in range(sh.shape[2]):
            if active(sh, b, p, k) and sh[b, p, k, SH_POWER] < 0:
                destroy(s, cfg, b, p, k)


@nb.njit(cache=True)
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
    g[b, G_TURN] = 0


@nb.njit(cache=True)
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
    g[b, G_CURRENT] = chooser
    g[b, G_STAGE] = ST_INIT
    return True


@nb.njit(cache=True)
def after_impulse(s, cfg, b):
    """Next impulse, or the power phase after impulse F (Talon 3.2)."""
    g = borrow(s.g)
    new_impulse(s, cfg, b)
    if g[b, G_IMPULSE] >= 5:
        begin_power_phase(s, cfg, b)
    else:
        g[b, G_IMPULSE] += 1
        begin_turn(s, cfg, b)


@nb.njit(cache=True)
def end_round(s, cfg, b):
    g = borrow(s.g)
    g[b, G_ROUND] += 1
    if g[b, G_ROUND] > g[b, G_ROUNDS]:
        finish(s, b)
        return
    g[b, G_IMPULSE] = 0
    g[b, G_TURN] = 0
    begin_turn(s, cfg, b)


@nb.njit(cache=True)
def advance(s, cfg, b):
    """Resolve everything that needs no choice until the next decision (or the end)."""
    g = borrow(s.g)
    for _ in range(10000):
        if g[b, G_DONE]:
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
            g[b, G_CURRENT] = g[b, G_MOVE_PLAYER]
            return
        if st == ST_EXPLODE:
            # an explosion order was chosen: continue exploding, then resume
            if resolve_explosions(s, cfg, b):
                return
            if check_end(s, cfg, b):
                return
            g[b, G_STAGE] = g[b, G_RESUME]
            g[b, G_CURRENT] = g[b, G_PENDING_TURN]
            continue
        if st == ST_INIT:
            return
        if st == ST_MOVE and g[b, G_COLL_QUEUE] != 0:
            if next_collision(s, b):
                g[b, G_STAGE] = ST_COLLIDE
                g[b, G_CURRENT] = g[b, G_MOVE_PLAYER]
                return
        if st == ST_POWER:
            if next_power_ship(s, cfg, b):
                return
            end_power_phase(s, cfg, b)
            g[b, G_STAGE] = ST_AP  # the next round begins once the explosions are resolved
            g[b, G_IMPULSE] = 0
            g[b, G_TURN] = 0
            g[b, G_RESUME] = ST_AP
            if resolve_explosions(s, cfg, b):
                g[b, G_STAGE] = ST_EXPLODE
                return
            if check_end(s, cfg, b):
                return
            end_round(s, cfg, b)
            continue
        p = turn_player(s, b)
        g[b, G_CURRENT] = p
        if stage_has_choice(s, cfg, b):
            return
        # nothing to decide here: move on
        if st == ST_AP:
            g[b, G_STAGE] = ST_MOVE
        elif st == ST_MOVE:
            g[b, G_STAGE] = ST_FIRE_SHIP
        elif st == ST_FIRE_TARGET:
            g[b, G_STAGE] = ST_FIRE_GROUP
        elif st == ST_FIRE_GROUP:
            g[b, G_STAGE] = ST_FIRE_SHIP
        elif st == ST_FIRE_SHIP:
            end_turn(s, cfg, b)
            if g[b, G_STAGE] == ST_INIT:
                return


@nb.njit(cache=True)
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


@nb.njit(cache=True)
def apply_action(s, cfg, b, a):
    k_ = borrow(cfg.k)
    sh = borrow(s.sh)
    grp = borrow(cfg.grp)
    g = borrow(s.g)
    p = g[b, G_CURRENT]
    st = g[b, G_STAGE]
    if a < k_[K_A_UNREINF]:
        i = a - k_[K_A_AP]
        apply_ap(s, cfg, b, p, i // N_USES, i % N_USES)
    elif a < k_[K_A_MOVE]:
        i = a - k_[K_A_UNREINF]
        sh[b, p, i // 4, SH_REINF + i % 4] = 0        # 6.2.3 removed at will
    elif a < k_[K_A_FIRE_SHIP]:
        i = a - k_[K_A_MOVE]
        apply_move(s, cfg, b, p, i // N_MOVES, i % N_MOVES)
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
        fire_weapon(s, cfg, b, p, g[b, G_SHIP], g[b, G_GROUP], t)
        g[b, G_WLEFT] -= 1
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
        g[b, G_STAGE] = ST_MOVE
    elif a < k_[K_A_DONE]:
        explode(s, cfg, b, p, a - k_[K_A_EXPLODE])
    else:
        if st == ST_AP:
            g[b, G_STAGE] = ST_MOVE
        elif st == ST_MOVE:
            g[b, G_STAGE] = ST_FIRE_SHIP
        elif st == ST_FIRE_GROUP:
            g[b, G_STAGE] = ST_FIRE_SHIP
        elif st == ST_FIRE_SHIP:
            end_turn(s, cfg, b)
    advance(s, cfg, b)


# ---------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------
@nb.njit(cache=True)
def place_ship(s, cfg, b, p, k, c, name, cell, facing):
    """A ship as a scenario starts it: start curve, full shields, charged bars (8.1.3),
    empty battery (10.1.4), all afterburners."""
    sh = s.sh
    sh[b, p, k, :] = 0
    sh[b, p, k, SH_CLASS] = c
    sh[b, p, k, SH_STATUS] = SS_ACTIVE
    sh[b, p, k, SH_NAME] = name
    sh[b, p, k, SH_CELL] = cell
    sh[b, p, k, SH_FACING] = facing
    for a in range(4):
        sh[b, p, k, SH_SHIELD + a] = cfg.cls[c, CL_SHIELD + a]
    for gi in range(cfg.cls[c, CL_N_GROUPS]):
        sh[b, p, k, SH_RED + gi] = cfg.grp[c, gi, GR_RED]
        sh[b, p, k, SH_YEL + gi] = cfg.grp[c, gi, GR_YELLOW]
    sh[b, p, k, SH_AB_LEFT] = cfg.cls[c, CL_AFTERBURNERS]
    set_curve(s, cfg, b, p, k, cfg.cls[c, CL_START])


@nb.njit(cache=True)
def draw_fleet(s, cfg, b, p):
    """Option scenario="fleet": classes drawn at random among the playable ones of the
    player's race until the point budget admits no more, each counter used once (RULES.md)."""
    sh = s.sh
    S = sh.shape[2]
    left = cfg.k[K_BUDGET]
    names = np.zeros(cfg.cls.shape[0], dtype=np.int64)
    for k in range(S):
        n = 0
        for i in range(cfg.fleet_cls.shape[1]):
            c = cfg.fleet_cls[p, i]
            if c >= 0 and cfg.cls[c, CL_POINTS] <= left and names[c] < cfg.cls[c, CL_N_NAMES]:
                n += 1
        if n == 0:
            break
        pick = roll_die(s.rng, s.dice_script, s.dice, b, n) - 1
        for i in range(cfg.fleet_cls.shape[1]):
            c = cfg.fleet_cls[p, i]
            if c >= 0 and cfg.cls[c, CL_POINTS] <= left and names[c] < cfg.cls[c, CL_N_NAMES]:
                if pick == 0:
                    place_ship(s, cfg, b, p, k, c, names[c],
                               cfg.fleet_cells[p, k], cfg.fleet_facing[p])
                    names[c] += 1
                    left -= cfg.cls[c, CL_POINTS]
                    break
                pick -= 1


@nb.njit(cache=True)
def start_game(s, cfg, b):
    """Begin round 1 (or the scenario's round/impulse) with the initiative player's turn."""
    g = s.g
    sh = s.sh
    g[b, G_FLEET0] = 0
    g[b, G_FLEET1] = 0
    for p in range(2):
        for k in range(sh.shape[2]):
            if sh[b, p, k, SH_STATUS] != SS_EMPTY:
                g[b, G_FLEET0 + p] += cfg.cls[sh[b, p, k, SH_CLASS], CL_POINTS]
    g[b, G_TURN] = 0
    g[b, G_WINNER] = -1
    begin_turn(s, cfg, b)
    advance(s, cfg, b)


@nb.njit(cache=True)
def reset_game(s, cfg, b, seed):
    s.rng[b] = seed_stream(seed)
    s.policy_rng[b] = seed_stream(seed ^ np.uint64(0x5EED))
    s.dice[b, :] = 0
    s.dice_script[b, :] = 0
    s.g[b, :] = 0
    s.sh[b, :, :, :] = 0
    s.sh[b, :, :, SH_CLASS] = -1
    if cfg.k[K_SCENARIO] == 1:
        draw_fleet(s, cfg, b, 0)
        draw_fleet(s, cfg, b, 1)
    else:
        for p in range(2):
            for k in range(s.sh.shape[2]):
                c = cfg.tmpl[p, k, TP_CLASS]
                if c >= 0:
                    place_ship(s, cfg, b, p, k, c, cfg.tmpl[p, k, TP_NAME], cfg.tmpl[p, k, TP_CELL],
                               cfg.tmpl[p, k, TP_FACING])
    s.g[b, G_ROUND] = 1
    s.g[b, G_ROUNDS] = cfg.k[K_ROUNDS]
    first = cfg.k[K_FIRST_INIT]
    if first < 0:
        first = 0 if roll_die(s.rng, s.dice_script, s.dice, b, 6) <= 3 else 1
    s.g[b, G_INIT] = first
    start_game(s, cfg, b)


# ---------------------------------------------------------------------------------
# Observation and mask
# ---------------------------------------------------------------------------------
P_OWN_FACING = 0     # 6 planes: own ships by facing
P_ENEMY_FACING = 6   # 6 planes: enemy ships by facing
P_OWN_SLOT = 12      # own ship slot + 1
P_ENEMY_SLOT = 13    # enemy ship slot + 1
P_ACTIVE = 14        # the active ship (firing / power phase / colliding)
P_ACTIVE_ARC = 15    # arc of the active ship each hex is in, + 1
N_PLANES = 16

F_STATUS = 0
F_CLASS = 1
F_ROW = 2
F_COL = 3
F_FACING = 4
F_CURVE = 5
F_POWER = 6
F_SPEED = 7
F_TURN_RADIUS = 8
F_TURN_LEFT = 9
F_SLIP = 10
F_AP_NOW = 11
F_AP_SPENT = 12
F_MUST_MOVE = 13
F_MOVED = 14
F_FIRED = 15
F_SHIELD = 16        # 4
F_REINF = 20         # 4
F_HULL_LEFT = 24
F_HULL_MOD = 25
F_HULL_CRIT = 26
F_GROUP = 27         # 3 x (red charged, red boxes, yellow charged, yellow boxes, destroyed)
F_HAS_BATTERY = 42
F_BATTERY = 43
F_AFTERBURNERS = 44
F_INIT_MARK = 45
F_C_SHIELDS = 46
F_C_HELM = 47
F_C_TURN = 48
F_C_POWER = 49
F_C_FTL = 50
F_C_PLOSS = 51
F_POINTS = 52        # ship points / 4
N_SF = 53

O_ROUND = 0
O_IMPULSE = 1
O_HAVE_INIT = 2
O_MY_TURN = 3
O_STAGE = 4
O_SHIP = 5
O_GROUP = 6
O_WLEFT = 7
O_SEAT = 8
O_SP_MINE = 9        # ship points destroyed by me / 8
O_SP_THEIRS = 10
O_ROUNDS = 11
O_CHANGE_MINE = 12
O_CHANGE_THEIRS = 13
O_DEFEND = 14
O_DECIDER = 15
N_GLOBAL = 16


@nb.njit(cache=True, inline="always")
def clip8(v):
    return min(127, max(-128, v))


@nb.njit(cache=True)
def write_obs_ref(s, cfg, b, v, obs):
    """Observation from player ``v``'s side (layout in game.OBS_LAYOUT / RULES.md), written
    in full.  Reference statement of ``write_obs``, kept for the tests."""
    g = s.g
    sh = s.sh
    S = sh.shape[2]
    cols = cfg.k[K_COLS]
    n = cfg.k[K_ROWS] * cols
    obs[:] = 0
    imp = g[b, G_IMPULSE]
    st = g[b, G_STAGE]
    act_p = -1
    act_k = -1
    if st == ST_FIRE_GROUP or st == ST_FIRE_TARGET or st == ST_POWER:
        act_p = g[b, G_CURRENT]
        act_k = g[b, G_SHIP]
    elif st == ST_COLLIDE:
        act_p = g[b, G_MOVE_PLAYER]
        act_k = g[b, G_COLL_MOVER]
    base_t = N_PLANES * n
    for side in range(2):
        p = v if side == 0 else other(v)
        for k in range(S):
            o = base_t + (side * S + k) * N_SF
            stt = sh[b, p, k, SH_STATUS]
            obs[o + F_STATUS] = stt
            c = sh[b, p, k, SH_CLASS]
            if c < 0:
                continue
            obs[o + F_CLASS] = c + 1
            if stt != SS_ACTIVE:
                obs[o + F_POINTS] = cfg.cls[c, CL_POINTS] // 4
                continue
            cell = sh[b, p, k, SH_CELL]
            f = sh[b, p, k, SH_FACING]
            plane = P_OWN_FACING if side == 0 else P_ENEMY_FACING
            obs[(plane + f) * n + cell] += 1
            slot = P_OWN_SLOT if side == 0 else P_ENEMY_SLOT
            if obs[slot * n + cell] == 0:
                obs[slot * n + cell] = k + 1
            obs[o + F_ROW] = cell // cols
            obs[o + F_COL] = cell % cols
            obs[o + F_FACING] = f
            obs[o + F_CURVE] = sh[b, p, k, SH_CURVE]
            obs[o + F_POWER] = sh[b, p, k, SH_POWER]
            obs[o + F_SPEED] = speed_of(sh, cfg, b, p, k)
            obs[o + F_TURN_RADIUS] = turn_radius(sh, cfg, b, p, k)
            obs[o + F_TURN_LEFT] = sh[b, p, k, SH_TURN_LEFT]
            obs[o + F_SLIP] = sh[b, p, k, SH_SLIP]
            if imp < 6:
                obs[o + F_AP_NOW] = ap_source(s, cfg, b, p, k)
                obs[o + F_MUST_MOVE] = must_move(sh, cfg, b, p, k, imp)
            obs[o + F_AP_SPENT] = sh[b, p, k, SH_AP_SPENT]
            obs[o + F_MOVED] = sh[b, p, k, SH_MOVED]
            obs[o + F_FIRED] = sh[b, p, k, SH_FIRED]
            for a in range(4):
                obs[o + F_SHIELD + a] = sh[b, p, k, SH_SHIELD + a]
                obs[o + F_REINF + a] = sh[b, p, k, SH_REINF + a]
            h = sh[b, p, k, SH_HULL_HITS]
            obs[o + F_HULL_LEFT] = cfg.cls[c, CL_N_HULL] - h
            if h < cfg.cls[c, CL_N_HULL]:
                obs[o + F_HULL_MOD] = cfg.hull[c, h, 0]
                obs[o + F_HULL_CRIT] = cfg.hull[c, h, 1]
            for gi in range(cfg.cls[c, CL_N_GROUPS]):
                og = o + F_GROUP + 5 * gi
                obs[og] = sh[b, p, k, SH_RED + gi]
                obs[og + 1] = cfg.grp[c, gi, GR_RED]
                obs[og + 2] = sh[b, p, k, SH_YEL + gi]
                obs[og + 3] = cfg.grp[c, gi, GR_YELLOW]
                obs[og + 4] = (sh[b, p, k, SH_GROUP_DEAD] >> gi) & 1
            obs[o + F_HAS_BATTERY] = cfg.cls[c, CL_BATTERY]
            obs[o + F_BATTERY] = sh[b, p, k, SH_BATTERY]
            obs[o + F_AFTERBURNERS] = sh[b, p, k, SH_AB_LEFT]
            obs[o + F_INIT_MARK] = sh[b, p, k, SH_INIT_MARK]
            obs[o + F_C_SHIELDS] = sh[b, p, k, SH_C_SHIELDS] > 0
            obs[o + F_C_HELM] = sh[b, p, k, SH_C_HELM] > 0
            obs[o + F_C_TURN] = sh[b, p, k, SH_C_TURN]
            obs[o + F_C_POWER] = sh[b, p, k, SH_C_POWER]
            obs[o + F_C_FTL] = sh[b, p, k, SH_C_FTL] > 0
            obs[o + F_C_PLOSS] = sh[b, p, k, SH_C_PLOSS] > 0
            obs[o + F_POINTS] = cfg.cls[c, CL_POINTS] // 4
    if act_k >= 0 and act_k < S and sh[b, act_p, act_k, SH_STATUS] == SS_ACTIVE:
        ac = sh[b, act_p, act_k, SH_CELL]
        af = sh[b, act_p, act_k, SH_FACING]
        obs[P_ACTIVE * n + ac] = 1 if act_p == v else 2
        for cell in range(n):
            if cell != ac:
                obs[P_ACTIVE_ARC * n + cell] = cfg.arc_of[ac, cell, af] + 1
    o = base_t + 2 * S * N_SF
    obs[o + O_ROUND] = clip8(g[b, G_ROUND])
    obs[o + O_IMPULSE] = imp
    obs[o + O_HAVE_INIT] = g[b, G_INIT] == v
    obs[o + O_MY_TURN] = turn_player(s, b) == v
    obs[o + O_STAGE] = st
    obs[o + O_SHIP] = g[b, G_SHIP]
    obs[o + O_GROUP] = g[b, G_GROUP]
    obs[o + O_WLEFT] = g[b, G_WLEFT]
    obs[o + O_SEAT] = v
    obs[o + O_SP_MINE] = clip8(g[b, G_SP0 + v] // 8)
    obs[o + O_SP_THEIRS] = clip8(g[b, G_SP0 + other(v)] // 8)
    obs[o + O_ROUNDS] = clip8(g[b, G_ROUNDS])
    ch_m = 0
    ch_t = 0
    de = 0
    for p in range(2):
        for k in range(S):
            m = sh[b, p, k, SH_INIT_MARK]
            if m == 1:
                if p == v:
                    ch_m += 1
                else:
                    ch_t += 1
            elif m == 2:
                de += 1
    obs[o + O_CHANGE_MINE] = ch_m
    obs[o + O_CHANGE_THEIRS] = ch_t
    obs[o + O_DEFEND] = de
    obs[o + O_DECIDER] = g[b, G_CURRENT] == v


@nb.njit(cache=True)
def write_obs(s, cfg, b, v, obs):
    """Observation from player ``v``'s side, equal to ``write_obs_ref``.

    ``obs`` must hold zeros or an observation ``write_obs`` wrote earlier (any game,
    any player, same config), as every buffer of VecGame does: the hex planes are not
    zeroed in full but only where the previous observation marked ships, which it
    lists in its own ship table (and the two active-ship planes when it had one).
    Entries that cannot come from write_obs (cells off the map) make it zero the
    whole buffer, so a foreign buffer never leads to writes outside it."""
    s_view = state_view(s)
    cfg_view = config_view(cfg)
    g = s_view.g
    sh = s_view.sh
    cls = borrow(cfg.cls)
    grp = borrow(cfg.grp)
    curve = borrow(cfg.curve)
    hull = borrow(cfg.hull)
    k_ = borrow(cfg.k)
    S = sh.shape[2]
    rows = k_[K_ROWS]
    cols = k_[K_COLS]
    n = rows * cols
    base_t = N_PLANES * n
    # -- undo the previous observation's marks on the hex planes
    clean = True
    for e in range(2 * S):
        o = base_t + e * N_SF
        if obs[o + F_STATUS] != SS_ACTIVE:
            continue
        r = obs[o + F_ROW]
        c = obs[o + F_COL]
        f = obs[o + F_FACING]
        if r < 0 or r >= rows or c < 0 or c >= cols or f < 0 or f > 5:
            clean = False
            break
        cell = r * cols + c
        if e < S:
            obs[(P_OWN_FACING + f) * n + cell] = 0
            obs[P_OWN_SLOT * n + cell] = 0
        else:
            obs[(P_ENEMY_FACING + f) * n + cell] = 0
            obs[P_ENEMY_SLOT * n + cell] = 0
    if not clean:
        obs[:] = 0
    elif obs[P_ACTIVE_ARC * n] != 0 or obs[P_ACTIVE_ARC * n + 1] != 0:
        # the previous observation had an active ship: its arc plane covers every hex but one
        obs[P_ACTIVE * n:(P_ACTIVE_ARC + 1) * n] = 0
    obs[base_t:] = 0
    # -- ships
    imp = g[b, G_IMPULSE]
    st = g[b, G_STAGE]
    act_p = -1
    act_k = -1
    if st == ST_FIRE_GROUP or st == ST_FIRE_TARGET or st == ST_POWER:
        act_p = g[b, G_CURRENT]
        act_k = g[b, G_SHIP]
    elif st == ST_COLLIDE:
        act_p = g[b, G_MOVE_PLAYER]
        act_k = g[b, G_COLL_MOVER]
    ch_m = 0
    ch_t = 0
    de = 0
    for side in range(2):
        p = v if side == 0 else 1 - v
        plane = P_OWN_FACING if side == 0 else P_ENEMY_FACING
        slot = P_OWN_SLOT if side == 0 else P_ENEMY_SLOT
        for k in range(S):
            m = sh[b, p, k, SH_INIT_MARK]
            if m == 1:
                if side == 0:
                    ch_m += 1
                else:
                    ch_t += 1
            elif m == 2:
                de += 1
            o = base_t + (side * S + k) * N_SF
            stt = sh[b, p, k, SH_STATUS]
            obs[o + F_STATUS] = stt
            c = sh[b, p, k, SH_CLASS]
            if c < 0:
                continue
            obs[o + F_CLASS] = c + 1
            if stt != SS_ACTIVE:
                obs[o + F_POINTS] = cls[c, CL_POINTS] // 4
                continue
            cell = sh[b, p, k, SH_CELL]
            f = sh[b, p, k, SH_FACING]
            obs[(plane + f) * n + cell] += 1
            if obs[slot * n + cell] == 0:
                obs[slot * n + cell] = k + 1
            obs[o + F_ROW] = cell // cols
            obs[o + F_COL] = cell % cols
            obs[o + F_FACING] = f
            cv = sh[b, p, k, SH_CURVE]
            pw = sh[b, p, k, SH_POWER]
            sp = curve[c, cv, 1]
            obs[o + F_CURVE] = cv
            obs[o + F_POWER] = pw
            obs[o + F_SPEED] = sp
            obs[o + F_TURN_RADIUS] = curve[c, cv, 2] + sh[b, p, k, SH_C_TURN]
            obs[o + F_TURN_LEFT] = sh[b, p, k, SH_TURN_LEFT]
            obs[o + F_SLIP] = sh[b, p, k, SH_SLIP]
            if imp < 6:
                obs[o + F_AP_NOW] = ap_source(s_view, cfg_view, b, p, k)
                obs[o + F_MUST_MOVE] = must_move(sh, cfg_view, b, p, k, imp)
            obs[o + F_AP_SPENT] = sh[b, p, k, SH_AP_SPENT]
            obs[o + F_MOVED] = sh[b, p, k, SH_MOVED]
            obs[o + F_FIRED] = sh[b, p, k, SH_FIRED]
            for a in range(4):
                obs[o + F_SHIELD + a] = sh[b, p, k, SH_SHIELD + a]
                obs[o + F_REINF + a] = sh[b, p, k, SH_REINF + a]
            h = sh[b, p, k, SH_HULL_HITS]
            nh = cls[c, CL_N_HULL]
            obs[o + F_HULL_LEFT] = nh - h
            if h < nh:
                obs[o + F_HULL_MOD] = hull[c, h, 0]
                obs[o + F_HULL_CRIT] = hull[c, h, 1]
            dead = sh[b, p, k, SH_GROUP_DEAD]
            for gi in range(cls[c, CL_N_GROUPS]):
                og = o + F_GROUP + 5 * gi
                obs[og] = sh[b, p, k, SH_RED + gi]
                obs[og + 1] = grp[c, gi, GR_RED]
                obs[og + 2] = sh[b, p, k, SH_YEL + gi]
                obs[og + 3] = grp[c, gi, GR_YELLOW]
                obs[og + 4] = (dead >> gi) & 1
            obs[o + F_HAS_BATTERY] = cls[c, CL_BATTERY]
            obs[o + F_BATTERY] = sh[b, p, k, SH_BATTERY]
            obs[o + F_AFTERBURNERS] = sh[b, p, k, SH_AB_LEFT]
            obs[o + F_INIT_MARK] = m
            obs[o + F_C_SHIELDS] = sh[b, p, k, SH_C_SHIELDS] > 0
            obs[o + F_C_HELM] = sh[b, p, k, SH_C_HELM] > 0
            obs[o + F_C_TURN] = sh[b, p, k, SH_C_TURN]
            obs[o + F_C_POWER] = sh[b, p, k, SH_C_POWER]
            obs[o + F_C_FTL] = sh[b, p, k, SH_C_FTL] > 0
            obs[o + F_C_PLOSS] = sh[b, p, k, SH_C_PLOSS] > 0
            obs[o + F_POINTS] = cls[c, CL_POINTS] // 4
    if act_k >= 0 and act_k < S and sh[b, act_p, act_k, SH_STATUS] == SS_ACTIVE:
        ac = sh[b, act_p, act_k, SH_CELL]
        af = sh[b, act_p, act_k, SH_FACING]
        arc_of = borrow(cfg.arc_of)
        obs[P_ACTIVE * n + ac] = 1 if act_p == v else 2
        o = P_ACTIVE_ARC * n
        for cell in range(n):
            obs[o + cell] = arc_of[ac, cell, af] + 1
        obs[o + ac] = 0
    o = base_t + 2 * S * N_SF
    obs[o + O_ROUND] = clip8(g[b, G_ROUND])
    obs[o + O_IMPULSE] = imp
    obs[o + O_HAVE_INIT] = g[b, G_INIT] == v
    obs[o + O_MY_TURN] = (g[b, G_INIT] if g[b, G_TURN] == 0 else 1 - g[b, G_INIT]) == v
    obs[o + O_STAGE] = st
    obs[o + O_SHIP] = g[b, G_SHIP]
    obs[o + O_GROUP] = g[b, G_GROUP]
    obs[o + O_WLEFT] = g[b, G_WLEFT]
    obs[o + O_SEAT] = v
    obs[o + O_SP_MINE] = clip8(g[b, G_SP0 + v] // 8)
    obs[o + O_SP_THEIRS] = clip8(g[b, G_SP0 + 1 - v] // 8)
    obs[o + O_ROUNDS] = clip8(g[b, G_ROUNDS])
    obs[o + O_CHANGE_MINE] = ch_m
    obs[o + O_CHANGE_THEIRS] = ch_t
    obs[o + O_DEFEND] = de
    obs[o + O_DECIDER] = g[b, G_CURRENT] == v


@nb.njit(cache=True)
def mask_range(s, cfg, b, mask, lo, hi):
    for a in range(lo, hi):
        if action_reason(s, cfg, b, a) == OK:
            mask[a] = 1


@nb.njit(cache=True)
def write_mask_ref(s, cfg, b, mask):
    """Reference mask: ``action_reason`` for every action of the current stage's families.

    Slow (one call per action, each decoding its action number); kept for the tests,
    which check on random-play states that ``write_mask`` gives exactly this."""
    mask[:] = 0
    if s.g[b, G_DONE]:
        return
    k = cfg.k
    st = s.g[b, G_STAGE]
    if st == ST_AP:
        mask_range(s, cfg, b, mask, k[K_A_AP], k[K_A_MOVE])
    elif st == ST_MOVE:
        mask_range(s, cfg, b, mask, k[K_A_MOVE], k[K_A_FIRE_SHIP])
    elif st == ST_FIRE_SHIP:
        mask_range(s, cfg, b, mask, k[K_A_FIRE_SHIP], k[K_A_GROUP])
    elif st == ST_FIRE_GROUP:
        mask_range(s, cfg, b, mask, k[K_A_GROUP], k[K_A_TARGET])
    elif st == ST_FIRE_TARGET:
        mask_range(s, cfg, b, mask, k[K_A_TARGET], k[K_A_SPEED])
    elif st == ST_POWER:
        mask_range(s, cfg, b, mask, k[K_A_SPEED], k[K_A_INIT])
    elif st == ST_INIT:
        mask_range(s, cfg, b, mask, k[K_A_INIT], k[K_A_COLLIDE])
    elif st == ST_COLLIDE:
        mask_range(s, cfg, b, mask, k[K_A_COLLIDE], k[K_A_EXPLODE])
    elif st == ST_EXPLODE:
        mask_range(s, cfg, b, mask, k[K_A_EXPLODE], k[K_A_DONE])
    mask_range(s, cfg, b, mask, k[K_A_DONE], k[K_A_DONE] + 1)


@nb.njit(cache=True)
def write_mask(s_, cfg_, b, mask):
    """Legal actions of the player to decide: ``action_reason(a) == OK`` for every ``a``,
    asked of the same per-rule functions ship by ship (only the current stage's families
    can be legal; the stage is known, so it is not asked again per action)."""
    s = state_view(s_)
    cfg = config_view(cfg_)
    k_ = cfg.k
    g = s.g
    sh = s.sh
    S = sh.shape[2]
    mask[:] = 0
    if g[b, G_DONE]:
        return
    st = g[b, G_STAGE]
    p = g[b, G_CURRENT]
    if st == ST_AP:
        a_ap = k_[K_A_AP]
        a_un = k_[K_A_UNREINF]
        for k in range(S):
            for a in range(4):
                if unreinforce_reason(s, cfg, b, p, k, a) == OK:
                    mask[a_un + 4 * k + a] = 1
            if ap_ship_reason(s, cfg, b, p, k) == OK:
                o = a_ap + N_USES * k
                for u in range(N_USES):
                    if ap_use_reason(s, cfg, b, p, k, u) == OK:
                        mask[o + u] = 1
    elif st == ST_MOVE:
        a_mv = k_[K_A_MOVE]
        for k in range(S):
            if may_move(s, cfg, b, p, k) == OK:
                o = a_mv + N_MOVES * k
                for m in range(N_MOVES):
                    if move_kind_reason(s, cfg, b, p, k, m) == OK:
                        mask[o + m] = 1
    elif st == ST_FIRE_SHIP:
        a_fs = k_[K_A_FIRE_SHIP]
        for k in range(S):
            if can_fire(s, cfg, b, p, k) == OK:
                mask[a_fs + k] = 1
    elif st == ST_FIRE_GROUP:
        a_gr = k_[K_A_GROUP]
        k = g[b, G_SHIP]
        for gi in range(3):
            if group_reason(s, cfg, b, p, k, gi) == OK:
                mask[a_gr + gi] = 1
    elif st == ST_FIRE_TARGET:
        a_tg = k_[K_A_TARGET]
        k = g[b, G_SHIP]
        gi = g[b, G_GROUP]
        for t in range(S):
            if target_reason(s, cfg, b, p, k, gi, t) == OK:
                mask[a_tg + t] = 1
    elif st == ST_POWER:
        a_sp = k_[K_A_SPEED]
        for d in range(3):
            if speed_reason(s, cfg, b, p, d) == OK:
                mask[a_sp + d] = 1
    elif st == ST_INIT:
        mask[k_[K_A_INIT]] = 1
        mask[k_[K_A_INIT] + 1] = 1
    elif st == ST_COLLIDE:
        mask[k_[K_A_COLLIDE]] = 1
        mask[k_[K_A_COLLIDE] + 1] = 1
    elif st == ST_EXPLODE:
        a_ex = k_[K_A_EXPLODE]
        for k in range(S):
            if explode_reason(s, b, p, k) == OK:
                mask[a_ex + k] = 1
    if done_reason(s, cfg, b, p, st) == OK:
        mask[k_[K_A_DONE]] = 1


@nb.njit(cache=True)
def write_outputs(s, cfg, b, obs, mask):
    write_obs(s, cfg, b, s.g[b, G_CURRENT], obs)
    write_mask(s, cfg, b, mask)


# ---------------------------------------------------------------------------------
# Batched entry points (same contract as every wargym game, see core/vec.py)
# ---------------------------------------------------------------------------------
@nb.njit(cache=True)
def reset_one(s, cfg, b, seed, out):
    reset_game(s, cfg, b, seed)
    write_outputs(s, cfg, b, out.obs[b], out.mask[b])
    out.player[b] = s.g[b, G_CURRENT]


@nb.njit(cache=True, parallel=True)
def reset_games(states, cfgs, seeds, idx, outs):
    if idx.shape[0] < 16:
        # a few games (the AEC env resets one): waking the thread pool costs far more
        # than they take, milliseconds on a loaded machine
        for j in range(idx.shape[0]):
            reset_one(states[0], cfgs[0], idx[j], seeds[j], outs[0])
        return
    n = len(states)
    m = idx.shape[0]
    for c in nb.prange(n):
        t = nb.get_thread_id()
        s, cfg, out = states[t], cfgs[t], outs[t]
        for j in range(c * m // n, (c + 1) * m // n):
            reset_one(s, cfg, idx[j], seeds[j], out)


@nb.njit(cache=True)
def final_reward(s, b, p):
    w = s.g[b, G_WINNER]
    if w == 2:
        return 0.0
    return 1.0 if w == p else -1.0


@nb.njit(cache=True)
def step_game(s, cfg, b, a, out, auto_reset):
    o_rewards = borrow(out.rewards)
    o_term = borrow(out.term)
    o_trunc = borrow(out.trunc)
    o_illegal = borrow(out.illegal)
    k_ = borrow(cfg.k)
    o_final_obs = borrow(out.final_obs)
    o_obs = borrow(out.obs)
    o_mask = borrow(out.mask)
    o_player = borrow(out.player)
    o_rewards[b, :] = 0
    o_term[b] = False
    o_trunc[b] = False
    code = action_reason(s, cfg, b, a)
    o_illegal[b] = code
    if code != OK:
        return
    g = borrow(s.g)
    before = g[b, G_SP0] - g[b, G_SP1]
    apply_action(s, cfg, b, a)
    g[b, G_DECISIONS] += 1
    if k_[K_REWARD_POINTS]:
        # option reward="points": change of the ship-point balance, scaled by the mean fleet
        scale = max(1.0, 0.5 * (g[b, G_FLEET0] + g[b, G_FLEET1]))
        d = ((g[b, G_SP0] - g[b, G_SP1]) - before) / scale
        o_rewards[b, 0] = d
        o_rewards[b, 1] = -d
    if g[b, G_DONE]:
        o_term[b] = True
        if not k_[K_REWARD_POINTS]:
            o_rewards[b, 0] = final_reward(s, b, 0)
            o_rewards[b, 1] = final_reward(s, b, 1)
    elif k_[K_MAX_DECISIONS] > 0 and g[b, G_DECISIONS] >= k_[K_MAX_DECISIONS]:
        o_trunc[b] = True
    if (o_term[b] or o_trunc[b]) and auto_reset:
        for p in range(2):
            write_obs(s, cfg, b, p, o_final_obs[b, p])
        reset_game(s, cfg, b, np.uint64(draw_int(s.rng, b, 2**62)))
    # write_outputs with its calls spelled out (one call level less per step)
    p = g[b, G_CURRENT]
    write_obs(s, cfg, b, p, o_obs[b])
    write_mask(s, cfg, b, o_mask[b])
    o_player[b] = p


@nb.njit(cache=True, parallel=True)
def step_games(states, cfgs, actions, active_, outs, auto_reset):
    """Advance every active game by one decision, in parallel over games.

    The batch is cut into one contiguous chunk per thread struct set: taking the
    structs out of the tuples once per chunk instead of once per game saves their
    reference counting in the loop."""
    B = actions.shape[0]
    n = len(states)
    for c in nb.prange(n):
        t = nb.get_thread_id()
        step_range(states[t], cfgs[t], actions, active_, outs[t], auto_reset, c * B // n, (c + 1) * B // n)


@nb.njit(cache=True)
def step_single(s, cfg, b, a, out, auto_reset):
    out.illegal[b] = 0
    step_game(s, cfg, b, a, out, auto_reset)


@nb.njit(cache=True)
def step_range(s, cfg, actions, active_, out, auto_reset, lo, hi):
    """Games ``lo`` .. ``hi - 1`` of a batch step, in the calling thread."""
    illegal = borrow(out.illegal)
    for b in range(lo, hi):
        illegal[b] = 0
        if active_[b]:
            step_game(s, cfg, b, actions[b], out, auto_reset)


@nb.njit(cache=True)
def step_games_serial(s, cfg, actions, active_, out, auto_reset):
    step_range(s, cfg, actions, active_, out, auto_reset, 0, actions.shape[0])


@nb.njit(cache=True)
def observe_game(s, cfg, b, p, obs, mask):
    write_obs(s, cfg, b, p, obs)
    mask[:] = 0
    if p == s.g[b, G_CURRENT] and not s.g[b, G_DONE]:
        write_mask(s, cfg, b, mask)
