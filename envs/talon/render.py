"""Talon renderer: a text board ("ansi") and a picture ("rgb_array").

``render(core, b, mode, viewer)`` draws game ``b`` of a ``VecGame`` of the Talon
game.  Both modes show the same things:

* a header: round, impulse (A-F or the power phase) with the impulse chart,
  who holds the initiative, whose decision it is and the stage, the ship points
  each player has destroyed, and the active ship/group while firing or choosing
  a speed;
* the hex map with every ship in play at its hex: side (player 0 blue, player 1
  red), facing (arrow) and slot number; several ships may share a hex;
* the arcs of the selected ship (the firing ship, or the ship whose speed is
  being chosen): front, right, left and rear hexes are shaded/marked, and while
  a group fires, the hexes in its arcs and range stand out;
* a ship table (a card per ship in the picture): counter name, class, status,
  hex, facing, Power-Speed-Turn radius, hexes before the next turn, side-slip
  marker, shields left of their boxes with reinforcements, hull boxes,
  charge bars of each weapon group, battery, afterburners, critical markers,
  initiative markers and what the ship gets/did this impulse;
* a legend.

``viewer`` (the player whose decision it is) only chooses what to highlight.
The renderer reads the state; it never changes it.
"""
from __future__ import annotations

import math
import os
import re
import types

import numpy as np

from ..core.hexgrid import DIRECTION_NAMES
from ..core.render import font as _font
from ..core.render import mix as _mix
from ..core.render import sgr as _sgr
from . import game as G
from . import rules as R

__all__ = ["ANSI_LEGEND", "render", "render_ansi", "render_rgb", "snapshot", "strip_ansi"]

ARROWS = "\u2192\u2197\u2196\u2190\u2199\u2198"   # bow facing E, NE, NW, W, SW, SE
SIDE_LETTERS = "BR"                               # map letter of player 0 (blue) and player 1 (red)
SIDE_COLOURS = ("blue", "red")
DEFAULT_SIDE_NAMES = ("Terran", "Talon")
SLOT_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"
ARC_SHORT = ("F", "R", "L", "Rr")                 # front, right, left, rear (shield and arc labels)
ARC_MAP = "frla"                                  # ANSI map marks: front, right, left, rear (aft)
WEAPON_WORDS = {"disruptor": "disruptor", "torpedo": "torpedo", "laser": "laser", "fusion_cannon": "fusion",
                "wave_cannon": "wave cannon", "missile": "missile"}
STATUS_WORDS = {R.SS_EMPTY: "empty", R.SS_ACTIVE: "in play", R.SS_DESTROYED: "destroyed",
                R.SS_RETREATED: "retreated", R.SS_RESERVE: "to arrive"}
# terrain tiles (Talon 17-19): map letter and colour, by kind code TK_*
TERRAIN_CHARS = {R.TK_PLANET: "O", R.TK_ASTEROID: "*", R.TK_NEBULA: "~", R.TK_BLACK_HOLE: "@", R.TK_WORM_HOLE: "W"}
TERRAIN_SGR = {R.TK_PLANET: "32", R.TK_ASTEROID: "33", R.TK_NEBULA: "35", R.TK_BLACK_HOLE: "1;37", R.TK_WORM_HOLE: "36"}
TERRAIN_RGB = {R.TK_PLANET: (70, 150, 90), R.TK_ASTEROID: (150, 120, 80), R.TK_NEBULA: (150, 80, 170),
               R.TK_BLACK_HOLE: (0, 0, 0), R.TK_WORM_HOLE: (60, 200, 210)}
INIT_WORDS = {1: "change initiative", 2: "defend initiative"}
SQRT3 = math.sqrt(3.0)


# ----------------------------------------------------------------------------
# the state in plain Python
# ----------------------------------------------------------------------------
def _side_names(cfg, sh) -> list[str]:
    """'Terran' / 'Talon' from the race of each side's ships (fallback: player 0 Terran, 1 Talon)."""
    out = []
    for p in range(2):
        races = {int(cfg.cls[int(c), R.CL_RACE]) for c in sh[p, :, R.SH_CLASS] if c >= 0}
        out.append(DEFAULT_SIDE_NAMES[races.pop()] if len(races) == 1 else DEFAULT_SIDE_NAMES[p])
    if out[0] == out[1]:
        out = [f"{out[0]} {p}" for p in range(2)]
    return out


def _ship_view(cfg, g, sh, p, k, stage):
    row = [int(x) for x in sh[p, k]]
    c = row[R.SH_CLASS]
    info = cfg.classes[c]
    s = types.SimpleNamespace()
    s.player, s.slot, s.cls = p, k, c
    s.id = SIDE_LETTERS[p] + SLOT_CHARS[k % len(SLOT_CHARS)]
    s.name = G.ship_name(cfg, c, row[R.SH_NAME])
    s.class_name = info.get("name", info.get("key", "?"))
    s.status = row[R.SH_STATUS]
    s.pending = bool(row[R.SH_PENDING]) and s.status == R.SS_DESTROYED
    s.status_word = "exploding" if s.pending else STATUS_WORDS.get(s.status, f"status {s.status}")
    s.active = s.status == R.SS_ACTIVE
    n_cells = int(cfg.k[R.K_ROWS] * cfg.k[R.K_COLS])
    s.cell = row[R.SH_CELL] if 0 <= row[R.SH_CELL] < n_cells else -1
    s.row, s.col = divmod(s.cell, int(cfg.k[R.K_COLS])) if s.cell >= 0 else (-1, -1)
    s.facing = row[R.SH_FACING] % 6
    n_curves = int(cfg.cls[c, R.CL_N_CURVES])
    curve = min(max(row[R.SH_CURVE], 0), max(n_curves - 1, 0))
    s.power = row[R.SH_POWER]
    s.speed = int(cfg.curve[c, curve, 1])
    s.turn_radius = int(cfg.curve[c, curve, 2]) + row[R.SH_C_TURN]
    s.turn_left = row[R.SH_TURN_LEFT]
    s.slip = bool(row[R.SH_SLIP])
    s.shields = []
    for a in range(4):
        s.shields.append((row[R.SH_SHIELD + a], int(cfg.cls[c, R.CL_SHIELD + a]), row[R.SH_REINF + a]))
    s.n_hull = int(cfg.cls[c, R.CL_N_HULL])
    s.hull_hits = min(max(row[R.SH_HULL_HITS], 0), s.n_hull)
    s.hull_left = s.n_hull - s.hull_hits
    s.hull_crit = [bool(cfg.hull[c, j, 1]) for j in range(s.n_hull)]
    s.hull_power = [int(cfg.hull[c, j, 0]) for j in range(s.n_hull)]
    s.groups = []
    for gi in range(int(cfg.cls[c, R.CL_N_GROUPS])):
        w = int(cfg.grp[c, gi, R.GR_WEAPON])
        key = G.WEAPON_KEYS[w] if 0 <= w < len(G.WEAPON_KEYS) else f"weapon {w}"
        arcs_mask = int(cfg.grp[c, gi, R.GR_ARCS])
        gv = types.SimpleNamespace(
            index=gi, weapon=WEAPON_WORDS.get(key, key), count=int(cfg.grp[c, gi, R.GR_COUNT]),
            arcs=",".join(ARC_SHORT[a] for a in range(4) if (arcs_mask >> a) & 1),
            arcs_mask=arcs_mask,
            red=row[R.SH_RED + gi], red_max=int(cfg.grp[c, gi, R.GR_RED]),
            yel=row[R.SH_YEL + gi], yel_max=int(cfg.grp[c, gi, R.GR_YELLOW]),
            dead=bool((row[R.SH_GROUP_DEAD] >> gi) & 1), playable=bool(cfg.wplay[w]))
        gv.ready = (not gv.dead and gv.red >= gv.red_max and gv.yel >= gv.yel_max)
        s.groups.append(gv)
    s.is_base = bool(cfg.cls[c, R.CL_BASE])              # Talon 14: drawn as a station
    s.is_squadron = bool(cfg.cls[c, R.CL_FIGHTER]) and bool(cfg.k[R.K_FIGHTERS])   # Talon 12: its fighters
    s.has_battery = bool(cfg.cls[c, R.CL_BATTERY])
    s.battery = bool(row[R.SH_BATTERY])
    s.ab_total = int(cfg.cls[c, R.CL_AFTERBURNERS])
    s.ab_left = row[R.SH_AB_LEFT]
    s.crits = []
    if row[R.SH_C_SHIELDS]:
        s.crits.append("shields down")
    if row[R.SH_C_HELM]:
        s.crits.append("helm down")
    if row[R.SH_C_TURN]:
        s.crits.append(f"turn +{row[R.SH_C_TURN]}")
    if row[R.SH_C_POWER]:
        s.crits.append(f"power -{row[R.SH_C_POWER]}")
    if row[R.SH_C_FTL]:
        s.crits.append("FTL offline")
    if row[R.SH_C_PLOSS]:
        s.crits.append("power loss")
    s.shields_down = bool(row[R.SH_C_SHIELDS])
    s.init_mark = row[R.SH_INIT_MARK]
    imp = int(g[R.G_IMPULSE])

    def in_chart(value):
        return 0 <= imp <= 5 and 1 <= value <= 6 and bool(cfg.chart[imp, value])
    s.chart_ap = s.active and in_chart(s.power)
    s.must_move = s.active and in_chart(s.speed)
    s.ap_spent = bool(row[R.SH_AP_SPENT])
    s.moved = bool(row[R.SH_MOVED])
    s.fired = bool(row[R.SH_FIRED])
    s.ab_now = bool(row[R.SH_AB_NOW])
    s.flags = []                                   # this impulse, in words
    if s.active and 0 <= imp <= 5 and not (g[R.G_DONE] or stage == R.ST_OVER):
        if s.chart_ap:
            s.flags.append("AP spent" if s.ap_spent else "AP")
        elif s.battery and s.ap_spent:
            s.flags.append("AP spent (battery)")
        if s.must_move:
            s.flags.append("moved" if s.moved else "must move")
        elif s.moved:
            s.flags.append("afterburner" if s.ab_now else "moved")
        if s.fired:
            s.flags.append("fired")
    s.selected = False
    return s


def snapshot(core, b: int) -> types.SimpleNamespace:
    """Everything the renderers draw, read once (as copies) from game ``b`` of ``core``."""
    cfg, st = core.cfg, core.state
    g = np.array(st.g[b], copy=True)
    sh = np.array(st.sh[b], copy=True)
    v = types.SimpleNamespace()
    v.cfg = cfg
    v.rows, v.cols = int(cfg.k[R.K_ROWS]), int(cfg.k[R.K_COLS])
    v.round, v.rounds = int(g[R.G_ROUND]), int(g[R.G_ROUNDS])
    v.impulse = int(g[R.G_IMPULSE])
    v.impulse_name = (f"impulse {G.IMPULSE_LETTERS[v.impulse]}" if 0 <= v.impulse <= 5 else "power phase")
    v.impulse_letter = G.IMPULSE_LETTERS[v.impulse] if 0 <= v.impulse <= 5 else "P"
    v.chart = [[n for n in range(1, 7) if cfg.chart[i, n]] for i in range(6)]
    v.init = int(g[R.G_INIT])
    v.current = int(g[R.G_DECIDER])
    v.stage = int(g[R.G_STAGE])
    v.over = bool(g[R.G_DONE]) or v.stage == R.ST_OVER
    v.stage_name = G.STAGE_NAMES.get(v.stage, f"stage {v.stage}")
    v.winner = int(g[R.G_WINNER])
    v.sp = [int(g[R.G_SP0]), int(g[R.G_SP1])]
    v.fleet = [int(g[R.G_FLEET0]), int(g[R.G_FLEET1])]
    v.ship_slot, v.group, v.wleft = int(g[R.G_SHIP]), int(g[R.G_GROUP]), int(g[R.G_WLEFT])
    v.coll = (int(g[R.G_MOVE_PLAYER]), int(g[R.G_COLL_MOVER]), int(g[R.G_COLL_OTHER]))
    v.side = _side_names(cfg, sh)
    S = sh.shape[1]
    v.ships = [[_ship_view(cfg, g, sh, p, k, v.stage) for k in range(S) if sh[p, k, R.SH_CLASS] >= 0]
               for p in range(2)]
    v.by_slot = {(s.player, s.slot): s for side in v.ships for s in side}
    # terrain tiles by hex (Talon 17-19)
    v.terrain = {int(st.tr[b, i, R.TR_CELL]): int(st.tr[b, i, R.TR_KIND]) for i in range(int(g[R.G_TILES]))}
    v.cell_ships = {}
    for side in v.ships:
        for s in side:
            if s.active and s.cell >= 0:
                v.cell_ships.setdefault(s.cell, []).append(s)
    # the selected ship: the firing ship, or the ship whose speed is chosen
    v.sel = None
    if not v.over and v.stage in (R.ST_FIRE_GROUP, R.ST_FIRE_TARGET, R.ST_POWER):
        s = v.by_slot.get((v.current, v.ship_slot))
        if s is not None and s.active and s.cell >= 0:
            v.sel = s
            s.selected = True
    n = v.rows * v.cols
    v.arc = np.full(n, -1, dtype=np.int64)      # arc of the selected ship containing each hex
    v.reach = np.zeros(n, dtype=bool)           # in arc and range of the group being fired
    v.fire_group = None
    if v.sel is not None:
        v.arc = np.asarray(cfg.arc_of[v.sel.cell, :, v.sel.facing], dtype=np.int64).copy()
        if v.stage == R.ST_FIRE_TARGET and 0 <= v.group < len(v.sel.groups):
            gv = v.sel.groups[v.group]
            v.fire_group = gv
            w = int(cfg.grp[v.sel.cls, v.group, R.GR_WEAPON])
            d = np.asarray(cfg.dist[v.sel.cell], dtype=np.int64)
            in_arc = np.array([a >= 0 and (gv.arcs_mask >> int(a)) & 1 for a in v.arc], dtype=bool)
            v.reach = in_arc & (d >= max(1, int(cfg.wmin[w]))) & (d <= int(cfg.wmax[w]))
    # map order in a shared hex: the selected ship on top, then by player and slot
    for lst in v.cell_ships.values():
        lst.sort(key=lambda s: (not s.selected, s.player, s.slot))
    # --- Talon 13 missiles: the counters in play, by slot ---
    v.missiles = _missile_views(st.ms[b], sh, v)
    v.cell_missiles = {}
    for mv in v.missiles:
        v.cell_missiles.setdefault(mv.cell, []).append(mv)
    return v


# --- Talon 13 missiles ---
def _missile_views(ms, sh, v) -> list:
    """Each missile counter in play: slot, owner, hex, facing, damaged side (13.6), the ship it
    tracks (None when it lost its target, 13.3)."""
    out = []
    for m in range(ms.shape[0]):
        if ms[m, R.MS_STATUS] == R.MI_NONE:
            continue
        owner, t = int(ms[m, R.MS_OWNER]), int(ms[m, R.MS_TARGET])
        target = v.by_slot.get((1 - owner, t)) if t >= 0 else None
        if target is not None and not target.active:
            target = None
        out.append(types.SimpleNamespace(slot=m, owner=owner, cell=int(ms[m, R.MS_CELL]),
                                         facing=int(ms[m, R.MS_FACING]),
                                         damaged=int(ms[m, R.MS_STATUS]) == R.MI_DAMAGED, target=target,
                                         moved=bool(ms[m, R.MS_MOVED])))
    return out


def _missile_text(v, mv) -> str:
    r, c = divmod(mv.cell, v.cols)
    aim = f"-> {_ship_label(mv.target)}" if mv.target is not None else "no target (goes straight)"
    return (f"m{mv.slot} P{mv.owner} at ({r},{c}) facing {DIRECTION_NAMES[mv.facing]} {aim}"
            + (" [damaged]" if mv.damaged else "") + (" [moved]" if mv.moved else ""))


def _hex_text(s) -> str:
    return f"{s.row},{s.col}" if s.cell >= 0 else "-"


def _pst(s) -> str:
    return f"{s.power}-{s.speed}-{s.turn_radius}"


def _ship_label(s) -> str:
    return f"{s.id} {s.name}"


def _group_text(gv) -> str:
    return f"{gv.weapon} x{gv.count}"


def _winner_text(v) -> str:
    if v.winner in (0, 1):
        return f"P{v.winner} {v.side[v.winner]} wins"
    return "a draw"


def _status_text(v) -> str:
    """The decision at hand, in one sentence."""
    if v.over:
        return f"Game over: {_winner_text(v)} (ship points destroyed {v.sp[0]} : {v.sp[1]})."
    p = v.current
    who = f"P{p} {v.side[p]}"
    own = [s for s in v.ships[p] if s.active]
    st = v.stage
    if st == R.ST_AP:
        ap = [s.id for s in own if s.chart_ap and not s.ap_spent]
        bat = [s.id for s in own if not s.chart_ap and s.battery and not s.ap_spent]
        extra = (f" (chart AP: {', '.join(ap) or 'none'}" + (f"; battery: {', '.join(bat)}" if bat else "") + ")")
        return f"{who}: spend AP or pass{extra}."
    if st == R.ST_MOVE:
        must = [s.id for s in own if s.must_move and not s.moved]
        ab = [s.id for s in own if not s.must_move and not s.moved and s.ab_left > 0]
        txt = f"{who}: move ships (must move: {', '.join(must) or 'none'}"
        return txt + (f"; afterburner possible: {', '.join(ab)})." if ab else ").")
    if st == R.ST_FIRE_SHIP:
        return f"{who}: choose a ship to fire, or pass."
    if st == R.ST_FIRE_GROUP:
        s = v.sel
        name = _ship_label(s) if s else f"ship {v.ship_slot}"
        ready = [f"g{gv.index}" for gv in s.groups if gv.ready] if s else []
        return f"{who}: {name} fires: choose a charged group ({', '.join(ready) or 'none'}) or stop."
    if st == R.ST_FIRE_TARGET:
        s = v.sel
        name = _ship_label(s) if s else f"ship {v.ship_slot}"
        grp = f"g{v.group} {_group_text(v.fire_group)}" if v.fire_group else f"group {v.group}"
        return f"{who}: {name} fires {grp}, {v.wleft} weapon(s) left: choose the target."
    if st == R.ST_POWER:
        s = v.sel
        if s is None:
            return f"{who}: power phase."
        return f"{who}: power phase: choose the speed of {_ship_label(s)} (now {_pst(s)})."
    if st == R.ST_INIT:
        holder = f"P{v.init} {v.side[v.init]}"
        return f"{who}: initiative ({holder} holds it): take/keep it or give it to the opponent."
    if st == R.ST_COLLIDE:
        mp, mover, other = v.coll
        a, b = v.by_slot.get((mp, mover)), v.by_slot.get((mp, other))
        an = _ship_label(a) if a else f"ship {mover}"
        bn = _ship_label(b) if b else f"ship {other}"
        return f"{who}: collision: {an} entered the hex of {bn}: choose which takes damage first."
    if st == R.ST_EXPLODE:
        pend = [_ship_label(s) for s in v.ships[p] if s.pending]
        return f"{who}: choose which ship explodes next ({', '.join(pend) or '-'})."
    return f"{who}: {v.stage_name}."


# ----------------------------------------------------------------------------
# ANSI
# ----------------------------------------------------------------------------
ANSI_COLOUR = os.environ.get("NO_COLOR") is None   # set False (or NO_COLOR=1) for plain text
_SIDE_SGR = ("1;34", "1;31")                       # bold blue, bold red
_ARC_SGR = ("32", "36", "33", "35")                # front green, right cyan, left yellow, rear magenta
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")

ANSI_LEGEND = (
    "Legend: B0\u2192 ship of P0 (blue), slot 0, bow east   R3\u2190 ship of P1 (red), slot 3, bow west",
    "  + more ships share the hex   # a base (Talon 14)   1-3 a squadron's fighters left (12)   . empty hex",
    "  f r l a: front / right / left / rear arc of the selected ship (*); F R L A: in arc and range of",
    "  the group firing.  Table: P-S-TR Power-Speed-Turn radius, turn: hexes before it may turn,",
    "  shields left/boxes, +A reinforcement placed in impulse A, hull boxes left/total,",
    "  g0 weapon xN arcs red r/boxes yellow y/boxes, READY = bar full, DESTROYED = group lost.",
    "  Terrain: OO planet, ** asteroids, ~~ nebula, @@ black hole, WW worm hole (after a ship: its tile).",
)


def strip_ansi(text: str) -> str:
    """The text without ANSI colour codes."""
    return _ANSI_RE.sub("", text)

def _ansi_cell(v, c: int, colour: bool) -> str:
    """Four characters for hex ``c``: a ship (side, slot, bow arrow) plus '+' for a stack,
    an arc mark of the selected ship, or a dot."""
    stack = v.cell_ships.get(c)
    if stack:
        s = stack[0]
        code = _SIDE_SGR[s.player] + (";7" if s.selected else "")
        more = ("+" if len(stack) > 1 else "#" if s.is_base       # '#': a base (Talon 14)
                else str(s.hull_left) if s.is_squadron else " ")       # a squadron's fighters left (12)
        tmark = TERRAIN_CHARS[v.terrain[c]] if c in v.terrain else more
        return _sgr(f"{SIDE_LETTERS[s.player]}{SLOT_CHARS[s.slot % 36]}{ARROWS[s.facing]}", code, colour) + tmark
    if c in v.terrain:
        kind = v.terrain[c]
        return " " + _sgr(TERRAIN_CHARS[kind] * 2, TERRAIN_SGR[kind], colour) + " "
    if c in getattr(v, "cell_missiles", {}):               # --- Talon 13 missiles: 'm' (damaged: 'x') ---
        mv = v.cell_missiles[c][0]
        return " " + _sgr(("x" if mv.damaged else "m") + ARROWS[mv.facing], _SIDE_SGR[mv.owner], colour) + " "
    a = int(v.arc[c])
    if a >= 0:
        mark = ARC_MAP[a].upper() if v.reach[c] else ARC_MAP[a]
        return " " + _sgr(mark, _ARC_SGR[a] + (";1" if v.reach[c] else ""), colour) + "  "
    return " .  "


def _shields_text(s) -> str:
    parts = []
    for a, (left, total, reinf) in enumerate(s.shields):
        t = f"{ARC_SHORT[a]} {left}/{total}"
        if reinf > 0:
            t += "+" + (G.IMPULSE_LETTERS[reinf - 1] if 1 <= reinf <= 6 else "?")
        parts.append(t)
    return "  ".join(parts)


def _hull_text(s) -> str:
    t = f"hull {s.hull_left}/{s.n_hull}"
    if s.active and s.hull_hits < s.n_hull:
        nxt = s.hull_power[s.hull_hits]
        t += f" (next box {nxt:+d}{', critical' if s.hull_crit[s.hull_hits] else ''})"
    return t


def _groups_text(s) -> str:
    if not s.groups:
        return "no weapons"
    out = []
    for gv in s.groups:
        t = f"g{gv.index} {_group_text(gv)} {gv.arcs} red {gv.red}/{gv.red_max} yel {gv.yel}/{gv.yel_max}"
        if gv.dead:
            t += " DESTROYED"
        elif gv.ready:
            t += " READY"
        if not gv.playable:
            t += " (advanced)"
        out.append(t)
    return " | ".join(out)


def _ansi_ship(s, v, colour: bool) -> list[str]:
    mark = ">" if s.selected else " "
    head = (f"{mark}{_sgr(f'{s.id:<3}', _SIDE_SGR[s.player], colour)}{s.name:<14.14}{s.class_name:<12.12}"
            f"{s.status_word:<10}")
    if not s.active:
        return [head.rstrip() + f"  hull {s.hull_left}/{s.n_hull}"]
    head += (f"{_hex_text(s):<6}{DIRECTION_NAMES[s.facing]:<3}{ARROWS[s.facing]}  {_pst(s):<7}"
             f"{s.turn_left:<5}{'slip' if s.slip else '-'}")
    lines = [head.rstrip()]
    extra = [_hull_text(s)]
    if s.has_battery:
        extra.append("battery " + ("charged" if s.battery else "empty"))
    if s.ab_total:
        extra.append(f"afterburners {s.ab_left}/{s.ab_total}")
    lines.append("     shields " + _shields_text(s) + ("  DOWN" if s.shields_down else "") + "   " + "  ".join(extra))
    lines.append("     " + _groups_text(s))
    notes = []
    if s.crits:
        notes.append(_sgr("critical: " + ", ".join(s.crits), "1;31", colour))
    if s.is_base:
        notes.append("base: turns clockwise in its speed's impulses, never moves (14)")
    if s.is_squadron:
        notes.append(f"squadron: {s.hull_left} of 3 fighters left (12)")
    if s.init_mark:
        notes.append("marker: " + INIT_WORDS.get(s.init_mark, str(s.init_mark)))
    if s.flags:
        notes.append(f"{v.impulse_name}: " + ", ".join(s.flags))
    if notes:
        lines.append("     " + "   ".join(notes))
    return lines


def render_ansi(v, viewer: int = 0, colour: bool | None = None) -> str:
    colour = ANSI_COLOUR if colour is None else bool(colour)
    track = " ".join(f"[{x}]" if x == v.impulse_letter else x for x in G.IMPULSE_LETTERS + "P")
    chart = ""
    if 0 <= v.impulse <= 5:
        chart = f" (chart {' '.join(str(n) for n in v.chart[v.impulse])})"
    holder = f"P{v.init} {v.side[v.init]}"
    out = [_sgr("TALON", "1", colour) + f"  round {min(v.round, v.rounds)}/{v.rounds}  "
           + _sgr(v.impulse_name, "1", colour) + chart + f"  {track}  initiative: {holder}"]
    for p in range(2):
        mark = ">" if p == viewer and not v.over else " "
        n_in = sum(s.active for s in v.ships[p])
        tags = []
        if p == v.init:
            tags.append("initiative")
        if p == v.current and not v.over:
            tags.append(f"to decide: {v.stage_name}")
        side = _sgr(f"P{p} {v.side[p]} ({SIDE_COLOURS[p]}, {SIDE_LETTERS[p]})", _SIDE_SGR[p], colour)
        out.append(f"{mark} {side}  destroyed {v.sp[p]} SP  ships in play {n_in}/{len(v.ships[p])}"
                   + (f"  [{'; '.join(tags)}]" if tags else ""))
    out.append("  " + _sgr(_status_text(v), "1;33" if v.over else "", colour))
    if v.sel is not None:
        s = v.sel
        txt = f"  selected ship (*): {_ship_label(s)} at {_hex_text(s)} facing {DIRECTION_NAMES[s.facing]}"
        if v.fire_group is not None:
            txt += f", firing g{v.group} {_group_text(v.fire_group)} ({v.wleft} left)"
        out.append(txt)
    # the map: 4 characters per hex, odd rows shifted by 2
    pad = " " * 4
    out.append(pad + "".join(f"{c:<4}" for c in range(v.cols)).rstrip())
    for r in range(v.rows):
        cells = "".join(_ansi_cell(v, r * v.cols + c, colour) for c in range(v.cols))
        out.append((f"{r:2d}  " + ("  " if r & 1 else "") + cells).rstrip())
    # the ship table
    out.append("")
    out.append(f" {'id':<3}{'name':<14}{'class':<12}{'status':<10}{'hex':<6}{'face':<6}{'P-S-TR':<7}{'turn':<5}slip")
    for p in range(2):
        out.append(_sgr(f"P{p} {v.side[p]}", _SIDE_SGR[p], colour) + f": {v.sp[p]} SP destroyed")
        for s in v.ships[p]:
            out.extend(_ansi_ship(s, v, colour))
    if v.missiles:                                          # --- Talon 13 missiles ---
        out.append("missiles (m, damaged x): " + "; ".join(_missile_text(v, mv) for mv in v.missiles))
    out.extend(ANSI_LEGEND)
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------
# RGB (Pillow)
# ----------------------------------------------------------------------------
SS = 2                                             # supersampling factor (anti-aliasing)
BG = (8, 11, 22)
PANEL = (14, 19, 36)
HEX_FILL = (19, 26, 47)
HEX_EDGE = (48, 60, 95)
TEXT = (226, 231, 242)
TEXT_DIM = (140, 150, 172)
SIDE_RGB = ((72, 146, 255), (238, 72, 62))         # player 0 blue, player 1 red
ARC_RGB = ((70, 200, 110), (60, 170, 235), (235, 170, 50), (175, 110, 215))  # front, right, left, rear
SEL_RGB = (255, 234, 110)
SHIELD_RGB = (110, 196, 255)
REINF_RGB = (255, 214, 80)
HULL_RGB = (205, 210, 222)
LOST_RGB = (58, 62, 76)
CRIT_RGB = (242, 78, 66)
RED_RGB = (226, 58, 48)
YEL_RGB = (242, 202, 48)
OK_RGB = (110, 225, 130)


def _unit(d: int):
    """Pixel direction (x right, y down) of hex direction d, unit length."""
    ang = math.radians(60 * d)
    return math.cos(ang), -math.sin(ang)


class _Painter:
    """Drawing primitives in supersampled pixels.  With ``draw=None`` it only measures."""

    def __init__(self, draw):
        self.d = draw

    def text(self, xy, s, size, fill=TEXT, bold=False, anchor="la"):
        if self.d is not None:
            self.d.text(xy, s, font=_font(size, bold), fill=fill, anchor=anchor)

    def text_width(self, s, size, bold=False):
        return _font(size, bold).getlength(s)

    def hexagon(self, cx, cy, w, fill=None, outline=None, width=1, shrink=1.0):
        r = w / SQRT3 * shrink
        pts = [(cx + r * math.cos(math.radians(-90 + 60 * k)), cy + r * math.sin(math.radians(-90 + 60 * k)))
               for k in range(6)]
        if fill is not None:
            self.d.polygon(pts, fill=fill)
        if outline is not None:
            self.d.line(pts + [pts[0]], fill=outline, width=max(1, int(width)), joint="curve")

    def disc(self, cx, cy, r, fill=None, outline=None, width=1):
        self.d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline, width=max(1, int(width)))

    def box(self, x, y, s, fill=None, outline=None, width=1):
        """A square of side s with its left edge at x, centred vertically on y."""
        if self.d is not None:
            self.d.rectangle((x, y - s / 2, x + s, y + s / 2), fill=fill, outline=outline, width=max(1, int(width)))

    def ship(self, cx, cy, facing, length, col, label, label_size, selected=False):
        """An arrowhead hull pointing along the bow, with the slot number on it."""
        ux, uy = _unit(facing)
        px, py = -uy, ux

        def at(along, side):
            return (cx + ux * along * length + px * side * length, cy + uy * along * length + py * side * length)

        hull = [at(0.55, 0), at(0.1, 0.26), at(-0.42, 0.34), at(-0.3, 0.0), at(-0.42, -0.34), at(0.1, -0.26)]
        edge = _mix(col, (0, 0, 0), 0.7)
        if selected:
            self.d.polygon([at(0.75, 0), at(0.12, 0.42), at(-0.6, 0.52), at(-0.45, 0.0), at(-0.6, -0.52),
                            at(0.12, -0.42)], fill=SEL_RGB)
        self.d.polygon(hull, fill=col)
        self.d.line(hull + [hull[0]], fill=edge, width=max(1, int(length * 0.06)), joint="curve")
        if label:
            lx, ly = at(-0.04, 0)
            self.text((lx, ly), label, label_size, fill=(255, 255, 255), bold=True, anchor="mm")

    # --- Talon 14 bases ---
    def base(self, cx, cy, facing, length, col, label, label_size, selected=False):
        """A base: a ring station (it does not move) with a spike at its bow, the slot number on it."""
        ux, uy = _unit(facing)
        r = 0.5 * length
        edge = _mix(col, (0, 0, 0), 0.7)
        if selected:
            self.disc(cx, cy, r * 1.35, fill=SEL_RGB)
        self.d.polygon([(cx + ux * r * 1.45, cy + uy * r * 1.45), (cx - uy * r * 0.45, cy + ux * r * 0.45),
                        (cx + uy * r * 0.45, cy - ux * r * 0.45)], fill=edge)
        self.disc(cx, cy, r, fill=col, outline=edge, width=max(1, int(length * 0.08)))
        self.disc(cx, cy, r * 0.45, fill=_mix(col, (255, 255, 255), 0.35))
        if label:
            self.text((cx, cy), label, label_size, fill=(10, 10, 20), bold=True, anchor="mm")

    # --- Talon 12 fighters ---
    def squadron(self, cx, cy, facing, length, col, label, label_size, fighters, selected=False):
        """A fighter squadron: one small arrowhead per fighter left, in a V along the bow (12.1.1)."""
        ux, uy = _unit(facing)
        px, py = -uy, ux
        spots = ((0.28, 0.0), (-0.12, 0.3), (-0.12, -0.3))[:max(0, fighters)]
        if selected:
            self.disc(cx, cy, 0.5 * length, fill=SEL_RGB)
        for along, side in spots:
            self.ship(cx + (ux * along + px * side) * length, cy + (uy * along + py * side) * length, facing,
                      0.42 * length, col, "", label_size)
        if label:
            self.text((cx - ux * 0.42 * length, cy - uy * 0.42 * length), label, label_size * 0.8,
                      fill=(255, 255, 255), bold=True, anchor="mm")

    def badge(self, cx, cy, r, label, fill=(235, 235, 245), fg=(10, 10, 20)):
        self.disc(cx, cy, r, fill=fill, outline=(10, 10, 10), width=max(1, r * 0.15))
        self.text((cx, cy + r * 0.05), label, r * 1.45, fill=fg, bold=True, anchor="mm")


def _stack_offsets(n):
    """Offsets (in hex widths) and scale for n ships in one hex."""
    if n <= 1:
        return [(0.0, 0.0)], 1.0
    if n == 2:
        return [(-0.2, 0.0), (0.2, 0.0)], 0.7
    if n == 3:
        return [(0.0, -0.2), (-0.2, 0.15), (0.2, 0.15)], 0.62
    return [(-0.19, -0.17), (0.19, -0.17), (-0.19, 0.17), (0.19, 0.17)], 0.55


# -- ship cards --------------------------------------------------------------------
CARD_W = 404
_ROW = 18          # px per flow row in a card
_BOX = 7           # px of a shield/hull/charge box
_GAP = 8           # px between flow items


class _Flow:
    """Items placed left to right in rows, wrapping at the card's right edge."""

    def __init__(self, x0, x1, y0):
        self.x0, self.x1, self.x, self.y = x0, x1, x0, y0
        self.used = False

    def newline(self):
        if self.used:
            self.x, self.y, self.used = self.x0, self.y + _ROW * SS, False

    def item(self, w, fn, pt):
        if self.used and self.x + w > self.x1:
            self.newline()
        if pt.d is not None:
            fn(self.x, self.y)
        self.x += w + _GAP * SS
        self.used = True

    def bottom(self):
        """The lower edge of the last row."""
        return self.y + (_ROW / 2 if self.used else -_ROW / 2) * SS


def _boxes(pt, x, y, items, size):
    """Boxes left to right: items are (fill, outline); returns the width."""
    step = size + 2 * SS
    for i, (fill, outline) in enumerate(items):
        pt.box(x + i * step, y, size, fill=fill, outline=outline, width=SS)
    return len(items) * step - 2 * SS if items else 0


def _chip(pt, label, colour, size):
    w = pt.text_width(label, size, True) + 10 * SS

    def fn(x, y):
        pt.d.rounded_rectangle((x, y - 7.5 * SS, x + w, y + 7.5 * SS), radius=4 * SS, fill=_mix(PANEL, colour, 0.25),
                               outline=colour, width=SS)
        pt.text((x + w / 2, y), label, size, fill=_mix(colour, (255, 255, 255), 0.45), bold=True, anchor="mm")
    return w, fn


def _card(pt, v, s, x0, y0, width):
    """Draw (or, with pt.d None, measure) the card of ship ``s``; returns its bottom y."""
    u = SS
    small, tiny = 12 * u, 11 * u
    compact = not s.active
    fl = _Flow(x0 + 10 * u, x0 + width - 10 * u, y0 + 33 * u)
    if not compact:
        # row 2: movement
        stats = f"P-S-TR {_pst(s)}   turn in {s.turn_left}"
        fl.item(pt.text_width(stats, small), lambda x, y: pt.text((x, y), stats, small, fill=TEXT, anchor="lm"), pt)
        chips = []
        if s.slip:
            chips.append(("SLIP", (190, 190, 255)))
        if s.init_mark:
            chips.append(("CHANGE INIT" if s.init_mark == 1 else "DEFEND INIT", (255, 160, 90)))
        for f in s.flags:
            chips.append((f.upper(), OK_RGB if f in ("AP", "must move") else TEXT_DIM))
        for label, c in chips:
            w, fn = _chip(pt, label, c, 10 * u)
            fl.item(w, fn, pt)
        fl.newline()
        # row 3: shields
        for a, (left, total, reinf) in enumerate(s.shields):
            lab = ARC_SHORT[a]
            lw = pt.text_width(lab, tiny, True) + 3 * u
            items = [(SHIELD_RGB if j < left else None, SHIELD_RGB if j < left else LOST_RGB) for j in range(total)]
            if s.shields_down:
                items = [(_mix(SHIELD_RGB, PANEL, 0.7) if j < left else None, LOST_RGB) for j in range(total)]
            bw = len(items) * (_BOX + 2) * u - 2 * u if items else 0
            rw = (_BOX + 4) * u + pt.text_width("A", 9 * u, True) if reinf > 0 else 0

            def fn(x, y, lab=lab, lw=lw, items=items, bw=bw, reinf=reinf):
                pt.text((x, y), lab, tiny, fill=TEXT_DIM, bold=True, anchor="lm")
                _boxes(pt, x + lw, y, items, _BOX * u)
                if reinf > 0:
                    rx = x + lw + bw + 4 * u
                    letter = G.IMPULSE_LETTERS[reinf - 1] if 1 <= reinf <= 6 else "?"
                    pt.d.rectangle((rx, y - 6 * u, rx + 12 * u, y + 6 * u), fill=REINF_RGB, outline=(40, 30, 0),
                                   width=u)
                    pt.text((rx + 6 * u, y + 0.5 * u), letter, 9 * u, fill=(30, 20, 0), bold=True, anchor="mm")
            fl.item(lw + bw + (rw + 4 * u if reinf > 0 else 0), fn, pt)
        if s.shields_down:
            w, fn = _chip(pt, "SHIELDS DOWN", CRIT_RGB, 10 * u)
            fl.item(w, fn, pt)
        fl.newline()
        # row 4: hull, battery, afterburners, criticals
        lab = "hull"
        lw = pt.text_width(lab, tiny, True) + 4 * u
        items = []
        for j in range(s.n_hull):
            hit = j < s.hull_hits
            items.append((LOST_RGB if hit else HULL_RGB, CRIT_RGB if s.hull_crit[j] else (90, 95, 110)))
        bw = len(items) * (_BOX + 2) * u - 2 * u if items else 0
        cnt = f"{s.hull_left}/{s.n_hull}"
        cw = pt.text_width(cnt, tiny) + 4 * u

        def hull_fn(x, y):
            pt.text((x, y), lab, tiny, fill=TEXT_DIM, bold=True, anchor="lm")
            _boxes(pt, x + lw, y, items, _BOX * u)
            for j in range(s.hull_hits):       # hit boxes crossed out
                bx = x + lw + j * (_BOX + 2) * u
                h = _BOX * u / 2
                pt.d.line([(bx, y - h), (bx + _BOX * u, y + h)], fill=(150, 150, 160), width=u)
            pt.text((x + lw + bw + 4 * u, y), cnt, tiny, fill=TEXT, anchor="lm")
        fl.item(lw + bw + cw, hull_fn, pt)
        if s.has_battery:
            bl = "battery"
            bw2 = pt.text_width(bl, tiny, True) + 20 * u

            def bat_fn(x, y, bl=bl):
                pt.text((x, y), bl, tiny, fill=TEXT_DIM, bold=True, anchor="lm")
                bx = x + pt.text_width(bl, tiny, True) + 4 * u
                pt.d.rectangle((bx, y - 5 * u, bx + 13 * u, y + 5 * u), fill=OK_RGB if s.battery else None,
                               outline=OK_RGB if s.battery else TEXT_DIM, width=u)
                pt.d.rectangle((bx + 13 * u, y - 2 * u, bx + 15 * u, y + 2 * u), fill=TEXT_DIM)
            fl.item(bw2, bat_fn, pt)
        if s.ab_total:
            al = "AB"
            aw = pt.text_width(al, tiny, True) + 4 * u + s.ab_total * 11 * u

            def ab_fn(x, y, al=al):
                pt.text((x, y), al, tiny, fill=TEXT_DIM, bold=True, anchor="lm")
                bx = x + pt.text_width(al, tiny, True) + 4 * u
                for j in range(s.ab_total):
                    tri = [(bx + j * 11 * u, y - 5 * u), (bx + j * 11 * u + 9 * u, y), (bx + j * 11 * u, y + 5 * u)]
                    if j < s.ab_left:
                        pt.d.polygon(tri, fill=(255, 150, 60))
                    else:
                        pt.d.line(tri + [tri[0]], fill=LOST_RGB, width=u)
            fl.item(aw, ab_fn, pt)
        for crit in s.crits:
            if crit == "shields down":
                continue
            w, fn = _chip(pt, crit.upper(), CRIT_RGB, 10 * u)
            fl.item(w, fn, pt)
        fl.newline()
        # row 5: weapon groups
        for gv in s.groups:
            lab = f"g{gv.index} {gv.weapon}\u00d7{gv.count} {gv.arcs}"
            lw = pt.text_width(lab, tiny, v.fire_group is gv) + 4 * u
            items = ([(RED_RGB if j < gv.red else None, RED_RGB) for j in range(gv.red_max)]
                     + [(YEL_RGB if j < gv.yel else None, YEL_RGB) for j in range(gv.yel_max)])
            if gv.dead:
                items = [(None, LOST_RGB)] * (gv.red_max + gv.yel_max)
            bw = len(items) * (_BOX + 2) * u - 2 * u if items else 0
            mark = "\u2713" if gv.ready and gv.playable else ""
            mw = pt.text_width(mark, small, True) + 3 * u if mark else 0

            def grp_fn(x, y, lab=lab, lw=lw, items=items, bw=bw, gv=gv, mark=mark):
                firing = v.fire_group is gv
                fill = SEL_RGB if firing else (TEXT_DIM if gv.dead else TEXT)
                pt.text((x, y), lab, tiny, fill=fill, bold=firing, anchor="lm")
                _boxes(pt, x + lw, y, items, _BOX * u)
                if gv.red_max and gv.yel_max and not gv.dead:   # red | yellow divider
                    dx = x + lw + gv.red_max * (_BOX + 2) * u - 1 * u
                    pt.d.line([(dx, y - 6 * u), (dx, y + 6 * u)], fill=TEXT_DIM, width=u)
                if gv.dead:
                    pt.d.line([(x, y), (x + lw + bw, y)], fill=CRIT_RGB, width=2 * u)
                if mark:
                    pt.text((x + lw + bw + 3 * u, y), mark, small, fill=OK_RGB, bold=True, anchor="lm")
            fl.item(lw + bw + mw, grp_fn, pt)
        if not s.groups:
            fl.item(pt.text_width("no weapons", tiny), lambda x, y: pt.text((x, y), "no weapons", tiny,
                                                                             fill=TEXT_DIM, anchor="lm"), pt)
    return (fl.bottom() if not compact else y0 + 22 * u) + 6 * u


def _card_frame(pt, v, s, x0, y0, width, bottom):
    u = SS
    col = SIDE_RGB[s.player]
    fill = _mix(PANEL, col, 0.10 if s.active else 0.03)
    outline = SEL_RGB if s.selected else _mix(col, PANEL, 0.35 if s.active else 0.7)
    pt.d.rounded_rectangle((x0, y0, x0 + width, bottom), radius=7 * u, fill=fill, outline=outline,
                           width=(3 if s.selected else 1) * u)
    y = y0 + 13 * u
    bw = pt.text_width(s.id, 12 * u, True) + 10 * u
    pt.d.rounded_rectangle((x0 + 8 * u, y - 8 * u, x0 + 8 * u + bw, y + 8 * u), radius=4 * u,
                           fill=col if s.active else _mix(col, PANEL, 0.6))
    pt.text((x0 + 8 * u + bw / 2, y), s.id, 12 * u, fill=(255, 255, 255), bold=True, anchor="mm")
    x = x0 + 16 * u + bw
    pt.text((x, y), s.name, 14 * u, fill=TEXT if s.active else TEXT_DIM, bold=True, anchor="lm")
    x += pt.text_width(s.name, 14 * u, True) + 8 * u
    pt.text((x, y), s.class_name, 12 * u, fill=TEXT_DIM, anchor="lm")
    if s.active:
        right = f"hex {_hex_text(s)}  {DIRECTION_NAMES[s.facing]}"
        pt.text((x0 + width - 30 * u, y), right, 12 * u, fill=TEXT, anchor="rm")
        pt.ship(x0 + width - 16 * u, y, s.facing, 18 * u, col, "", 1)
    else:
        right = f"{s.status_word.upper()}  hull {s.hull_left}/{s.n_hull}"
        pt.text((x0 + width - 10 * u, y), right, 12 * u, fill=CRIT_RGB if s.status == R.SS_DESTROYED else TEXT_DIM,
                bold=True, anchor="rm")


def _cards_layout(v, x0, y0, col_w, two_columns):
    """(ship, x, y, bottom) for every card, and the bottom of the panel; side headers at (p, x, y)."""
    u = SS
    meas = _Painter(None)
    cards, heads = [], []
    bottoms = []
    y = y0
    for p in range(2):
        x = x0 + (p * (col_w + 12 * u) if two_columns else 0)
        if two_columns:
            y = y0
        heads.append((p, x, y))
        y += 24 * u
        for s in v.ships[p]:
            bottom = _card(meas, v, s, x, y, col_w)
            cards.append((s, x, y, bottom))
            y = bottom + 6 * u
        y += 6 * u
        bottoms.append(y)
    return cards, heads, max(bottoms)


LEGEND_ITEMS = ("Terran ship (P0) slot 0", "Talon ship (P1) slot 0", "selected ship", "ships in one hex",
                "front arc", "right arc", "left arc", "rear arc", "in arc and range of the firing group",
                "shield box (lost: hollow)", "reinforcement (impulse)", "hull box (hit: crossed)",
                "critical hull box", "red charge box", "yellow charge box", "bar full: can fire",
                "battery", "afterburner", "planet", "asteroids", "nebula", "black hole", "worm hole")
LEGEND_TILES = (R.TK_PLANET, R.TK_ASTEROID, R.TK_NEBULA, R.TK_BLACK_HOLE, R.TK_WORM_HOLE)   # items 18-22


LEGEND_NOTES = ("Cards: P-S-TR = Power-Speed-Turn radius;  turn in N = hexes before the ship may turn;",
                "shields F R L Rr = front right left rear;  g0-g2 = weapon groups, weapon \u00d7 count, arcs.")


def _legend_positions(width):
    u = SS
    out = []
    left, right = 30 * u, width - 10 * u
    x, y = left, 16 * u
    for label in LEGEND_ITEMS:
        need = 22 * u + _font(11 * u).getlength(label) + 18 * u
        if x + need - 18 * u > right and x > left:
            x, y = left, y + 24 * u
        out.append((x, y))
        x += need
    return out, y + (20 + 16 * len(LEGEND_NOTES)) * u


def _tile(pt, cx, cy, W, kind):
    """A terrain tile (Talon 17-19) in the hex of width ``W`` centred at (cx, cy)."""
    u = SS
    col = TERRAIN_RGB[kind]
    if kind == R.TK_PLANET:
        pt.disc(cx, cy, 0.42 * W, fill=col, outline=_mix(col, TEXT, 0.4), width=u)
    elif kind == R.TK_ASTEROID:
        for dx, dy, r in ((-0.2, -0.12, 0.1), (0.15, -0.18, 0.08), (0.05, 0.12, 0.12), (-0.22, 0.2, 0.07),
                          (0.25, 0.15, 0.06)):
            pt.disc(cx + dx * W, cy + dy * W, r * W, fill=col)
    elif kind == R.TK_NEBULA:
        pt.hexagon(cx, cy, W, fill=_mix(HEX_FILL, col, 0.55), outline=col, width=u, shrink=0.96)
    elif kind == R.TK_BLACK_HOLE:
        pt.disc(cx, cy, 0.4 * W, fill=col, outline=(250, 180, 60), width=2 * u)
    else:
        pt.disc(cx, cy, 0.38 * W, fill=_mix(HEX_FILL, col, 0.3), outline=col, width=2 * u)
        pt.disc(cx, cy, 0.12 * W, fill=col)


def _draw_legend(pt, v, x0, y0, width):
    u = SS
    pos, _h = _legend_positions(width)
    for i, note in enumerate(LEGEND_NOTES):
        pt.text((x0 + 14 * u, y0 + pos[-1][1] + (24 + 16 * i) * u), note, 11 * u, fill=TEXT_DIM, anchor="lm")
    w = 26 * u
    for k, (label, (x, y)) in enumerate(zip(LEGEND_ITEMS, pos)):
        x, y = x0 + x, y0 + y
        if k in (0, 1):
            pt.hexagon(x, y, w, fill=HEX_FILL, outline=HEX_EDGE, width=u)
            pt.ship(x, y, 0 if k == 0 else 3, 0.62 * w, SIDE_RGB[k], "0", 8 * u)
        elif k == 2:
            pt.hexagon(x, y, w, fill=HEX_FILL, outline=SEL_RGB, width=2 * u, shrink=0.92)
            pt.ship(x, y, 1, 0.62 * w, SIDE_RGB[0], "1", 8 * u, selected=True)
        elif k == 3:
            pt.hexagon(x, y, w, fill=HEX_FILL, outline=HEX_EDGE, width=u)
            offs, sc = _stack_offsets(2)
            for j, (dx, dy) in enumerate(offs):
                pt.ship(x + dx * w, y + dy * w, 0, 0.62 * w * sc, SIDE_RGB[j], str(j + 1), 7 * u)
        elif 4 <= k <= 7:
            pt.hexagon(x, y, w, fill=_mix(HEX_FILL, ARC_RGB[k - 4], 0.32), outline=HEX_EDGE, width=u)
        elif k == 8:
            pt.hexagon(x, y, w, fill=_mix(HEX_FILL, ARC_RGB[0], 0.62), outline=_mix(ARC_RGB[0], TEXT, 0.5), width=u)
        elif k == 9:
            pt.box(x - 10 * u, y, _BOX * u, fill=SHIELD_RGB, outline=SHIELD_RGB, width=u)
            pt.box(x + 1 * u, y, _BOX * u, outline=LOST_RGB, width=u)
        elif k == 10:
            pt.d.rectangle((x - 6 * u, y - 6 * u, x + 6 * u, y + 6 * u), fill=REINF_RGB, outline=(40, 30, 0), width=u)
            pt.text((x, y + 0.5 * u), "A", 9 * u, fill=(30, 20, 0), bold=True, anchor="mm")
        elif k == 11:
            pt.box(x - 10 * u, y, _BOX * u, fill=HULL_RGB, outline=(90, 95, 110), width=u)
            pt.box(x + 1 * u, y, _BOX * u, fill=LOST_RGB, outline=(90, 95, 110), width=u)
            pt.d.line([(x + 1 * u, y - 4 * u), (x + 9 * u, y + 4 * u)], fill=(150, 150, 160), width=u)
        elif k == 12:
            pt.box(x - 4 * u, y, _BOX * u, fill=HULL_RGB, outline=CRIT_RGB, width=u)
        elif k == 13:
            pt.box(x - 10 * u, y, _BOX * u, fill=RED_RGB, outline=RED_RGB, width=u)
            pt.box(x + 1 * u, y, _BOX * u, outline=RED_RGB, width=u)
        elif k == 14:
            pt.box(x - 10 * u, y, _BOX * u, fill=YEL_RGB, outline=YEL_RGB, width=u)
            pt.box(x + 1 * u, y, _BOX * u, outline=YEL_RGB, width=u)
        elif k == 15:
            pt.text((x, y), "\u2713", 13 * u, fill=OK_RGB, bold=True, anchor="mm")
        elif k == 16:
            pt.d.rectangle((x - 7 * u, y - 5 * u, x + 6 * u, y + 5 * u), fill=OK_RGB, outline=OK_RGB, width=u)
            pt.d.rectangle((x + 6 * u, y - 2 * u, x + 8 * u, y + 2 * u), fill=TEXT_DIM)
        elif k == 17:
            pt.d.polygon([(x - 5 * u, y - 5 * u), (x + 4 * u, y), (x - 5 * u, y + 5 * u)], fill=(255, 150, 60))
        elif k >= 18:
            pt.hexagon(x, y, w, fill=HEX_FILL, outline=HEX_EDGE, width=u)
            _tile(pt, x, y, w, LEGEND_TILES[k - 18])
        pt.text((x + 20 * u, y), label, 11 * u, fill=TEXT_DIM, anchor="lm")


def _draw_header(pt, v, viewer, width, h):
    u = SS
    d = pt.d
    m = 16 * u
    d.rectangle((0, 0, width, h - 4 * u), fill=(12, 17, 33))
    d.line([(0, h - 4 * u), (width, h - 4 * u)], fill=HEX_EDGE, width=u)
    y = 20 * u
    pt.text((m, y), "TALON", 20 * u, fill=TEXT, bold=True, anchor="lm")
    x = m + pt.text_width("TALON", 20 * u, True) + 22 * u
    s = f"Round {min(v.round, v.rounds)} / {v.rounds}"
    pt.text((x, y), s, 17 * u, fill=TEXT, bold=True, anchor="lm")
    x += pt.text_width(s, 17 * u, True) + 22 * u
    # impulse track A-F and the power phase, with the chart numbers of each impulse
    pt.text((x, y), "Impulse", 13 * u, fill=TEXT_DIM, anchor="lm")
    x += pt.text_width("Impulse", 13 * u) + 8 * u
    for i, letter in enumerate(G.IMPULSE_LETTERS + "P"):
        cur = (i == v.impulse) and not v.over
        bw = 34 * u
        box = (x, y - 14 * u, x + bw - 3 * u, y + 14 * u)
        d.rounded_rectangle(box, radius=4 * u, fill=SEL_RGB if cur else (26, 33, 56),
                            outline=SEL_RGB if cur else HEX_EDGE, width=u)
        fg = (20, 20, 30) if cur else TEXT
        pt.text((x + (bw - 3 * u) / 2, y - 5 * u), letter if letter != "P" else "PP", 13 * u, fill=fg, bold=True,
                anchor="mm")
        sub = "".join(str(n) for n in v.chart[i]) if i < 6 else "power"
        pt.text((x + (bw - 3 * u) / 2, y + 8 * u), sub, 8 * u, fill=(60, 60, 70) if cur else TEXT_DIM, anchor="mm")
        x += bw
    x += 12 * u
    if v.over:
        pt.text((width - m, y), "GAME OVER", 18 * u, fill=SEL_RGB, bold=True, anchor="rm")
    else:
        txt = f"stage: {v.stage_name}"
        pt.text((width - m, y), txt, 13 * u, fill=TEXT, bold=True, anchor="rm")
    # a panel per side
    pw = (width - 3 * m) / 2
    for p in range(2):
        x0, y0 = m + p * (pw + m), 40 * u
        x1, y1 = x0 + pw, y0 + 26 * u
        col = SIDE_RGB[p]
        deciding = p == v.current and not v.over
        d.rounded_rectangle((x0, y0, x1, y1), radius=6 * u, fill=_mix((12, 17, 33), col, 0.2 if p == viewer else 0.05),
                            outline=col if deciding else _mix(col, (12, 17, 33), 0.55), width=(2 if deciding else 1) * u)
        yy = (y0 + y1) / 2
        pt.disc(x0 + 13 * u, yy, 6 * u, fill=col)
        name = f"P{p} {v.side[p]}"
        pt.text((x0 + 25 * u, yy), name, 14 * u, fill=TEXT, bold=True, anchor="lm")
        xx = x0 + 25 * u + pt.text_width(name, 14 * u, True) + 10 * u
        if p == v.init:
            w, fn = _chip(pt, "INITIATIVE", SEL_RGB, 10 * u)
            fn(xx, yy)
            xx += w + 8 * u
        if deciding:
            w, fn = _chip(pt, "TO DECIDE", OK_RGB, 10 * u)
            fn(xx, yy)
        n_in = sum(s.active for s in v.ships[p])
        pt.text((x1 - 10 * u, yy), f"ships {n_in}/{len(v.ships[p])}   destroyed {v.sp[p]} SP", 13 * u, fill=col,
                bold=True, anchor="rm")
    pt.text((m, 83 * u), _status_text(v), 13 * u, fill=TEXT, anchor="lm")


def render_rgb(v, viewer: int = 0) -> np.ndarray:
    from PIL import Image, ImageDraw

    u = SS
    rows, cols = v.rows, v.cols
    # the map panel: hex width chosen so that the map is about 560 x 560 px
    w_final = max(12.0, min(44.0, 560 / (cols + 0.5), 580 / ((rows - 1) * 0.8660254 + 1.16)))
    W = w_final * u
    Rr = W / SQRT3
    margin = 12 * u
    label_gap = 20 * u
    header_h = 100 * u
    map_w = (cols + 0.5) * W
    map_h = (rows - 1) * 0.8660254 * W + 2 * Rr
    panel_w = max(map_w + label_gap + 2 * margin, 560 * u)
    ox = margin + label_gap + (panel_w - 2 * margin - label_gap - map_w) / 2
    oy = header_h + label_gap
    legend_w = panel_w - margin
    _pos, legend_h = _legend_positions(legend_w)
    left_h = oy + map_h + 12 * u + legend_h + margin
    # the ship cards: one column, or one column per side when one column gets too tall
    n_cards = sum(len(x) for x in v.ships)
    cards_x = panel_w + margin
    cards, heads, cards_bottom = _cards_layout(v, cards_x, header_h + 8 * u, CARD_W * u, False)
    two = n_cards > 0 and cards_bottom > max(left_h, 1000 * u)
    if two:
        cards, heads, cards_bottom = _cards_layout(v, cards_x, header_h + 8 * u, CARD_W * u, True)
    width = int(cards_x + (2 if two else 1) * CARD_W * u + (12 * u if two else 0) + margin)
    height = int(max(left_h, cards_bottom + margin))

    img = Image.new("RGB", (width, height), BG)
    d = ImageDraw.Draw(img)
    pt = _Painter(d)

    def centre(cell):
        r, c = divmod(int(cell), cols)
        return ox + (c + 0.5 * (r & 1) + 0.5) * W, oy + Rr + r * 0.8660254 * W

    # a few faint stars behind the map
    rng = np.random.default_rng(7)
    for _ in range(int(width * height / (1400 * u * u))):
        x, y = rng.uniform(0, panel_w), rng.uniform(header_h, height)
        s = rng.uniform(0.4, 1.1) * u
        lum = int(rng.integers(60, 150))
        d.ellipse((x - s, y - s, x + s, y + s), fill=(lum, lum, min(255, lum + 25)))

    # -- hexes, shaded by the arcs of the selected ship ---------------------------
    N = rows * cols
    for c in range(N):
        cx, cy = centre(c)
        fill, edge = HEX_FILL, HEX_EDGE
        a = int(v.arc[c])
        if a >= 0:
            fill = _mix(HEX_FILL, ARC_RGB[a], 0.62 if v.reach[c] else 0.3)
            if v.reach[c]:
                edge = _mix(ARC_RGB[a], TEXT, 0.5)
        pt.hexagon(cx, cy, W, fill=fill, outline=edge, width=1.1 * u)
    # -- terrain tiles (Talon 17-19) ---------------------------------------------------
    for c, kind in v.terrain.items():
        cx, cy = centre(c)
        _tile(pt, cx, cy, W, kind)
    if v.sel is not None:
        cx, cy = centre(v.sel.cell)
        pt.hexagon(cx, cy, W, fill=_mix(HEX_FILL, SEL_RGB, 0.2), outline=SEL_RGB, width=2.5 * u, shrink=0.92)
        # the arc boundary lines from the selected ship (30 degrees either side of the bow and stern)
        x_lo, x_hi, y_lo, y_hi = ox, ox + map_w, oy, oy + map_h
        for deg in (30, 150, 210, 330):
            ang = math.radians(60 * v.sel.facing + deg)
            dx, dy = math.cos(ang), -math.sin(ang)
            t = min((x_hi - cx) / dx if dx > 1e-9 else (x_lo - cx) / dx if dx < -1e-9 else math.inf,
                    (y_hi - cy) / dy if dy > 1e-9 else (y_lo - cy) / dy if dy < -1e-9 else math.inf)
            d.line([(cx, cy), (cx + dx * t, cy + dy * t)], fill=_mix(HEX_EDGE, SEL_RGB, 0.35), width=u)

    # -- ships ---------------------------------------------------------------------
    for c, stack in v.cell_ships.items():
        cx, cy = centre(c)
        offs, scale = _stack_offsets(len(stack))
        shown = stack[:len(offs)]
        for s, (dx, dy) in reversed(list(zip(shown, offs))):
            if s.is_squadron:                                   # Talon 12: the fighters left
                pt.squadron(cx + dx * W, cy + dy * W, s.facing, 0.74 * W * scale, SIDE_RGB[s.player],
                            SLOT_CHARS[s.slot % 36], 0.3 * W * max(scale, 0.75), s.hull_left, selected=s.selected)
                continue
            draw = pt.base if s.is_base else pt.ship          # Talon 14 bases: a station
            draw(cx + dx * W, cy + dy * W, s.facing, 0.74 * W * scale, SIDE_RGB[s.player],
                 SLOT_CHARS[s.slot % 36], 0.3 * W * max(scale, 0.75), selected=s.selected)
        if len(stack) > 1:
            pt.badge(cx + 0.33 * W, cy - 0.33 * W, 0.13 * W, str(len(stack)))
    # --- Talon 13 missiles: a small arrowhead in its side's colour, hollow when damaged ---
    for c, stack in v.cell_missiles.items():
        cx, cy = centre(c)
        for i, mv in enumerate(stack[:3]):
            _draw_missile(d, cx - 0.2 * W + 0.2 * W * i, cy + 0.2 * W, 0.24 * W, mv, u)
    # re-clip: everything outside the map panel belongs to the cards
    d.rectangle((panel_w, header_h, width, height), fill=BG)

    # -- coordinates -----------------------------------------------------------------
    step = 1 if w_final >= 22 else 2 if w_final >= 15 else 5      # fewer labels on a crowded map
    for c in range(0, cols, step):
        x, _ = centre(c)
        pt.text((x, oy - 5 * u), str(c), 10 * u, fill=TEXT_DIM, anchor="ms")
    for r in range(0, rows, 1 if w_final >= 15 else 2):
        x, y = centre(r * cols)
        pt.text((x - W * 0.6, y), str(r), 10 * u, fill=TEXT_DIM, anchor="rm")

    # -- legend --------------------------------------------------------------------------
    ly = oy + map_h + 12 * u
    d.rounded_rectangle((margin, ly, panel_w - margin / 2, ly + legend_h - 4 * u), radius=6 * u, fill=PANEL,
                        outline=HEX_EDGE, width=u)
    _draw_legend(pt, v, margin, ly, legend_w)

    # -- ship cards ----------------------------------------------------------------------
    for p, x, y in heads:
        col = SIDE_RGB[p]
        pt.disc(x + 8 * u, y + 10 * u, 6 * u, fill=col)
        pt.text((x + 20 * u, y + 10 * u), f"P{p} {v.side[p]} fleet", 14 * u, fill=col, bold=True, anchor="lm")
        pt.text((x + CARD_W * u - 4 * u, y + 10 * u), f"destroyed {v.sp[p]} SP", 12 * u, fill=TEXT_DIM,
                anchor="rm")
    for s, x, y, bottom in cards:
        _card_frame(pt, v, s, x, y, CARD_W * u, bottom - 4 * u)
        _card(pt, v, s, x, y, CARD_W * u)

    _draw_header(pt, v, viewer, width, header_h)
    out = img.resize((width // u, height // u), Image.LANCZOS)
    return np.asarray(out.convert("RGB"), dtype=np.uint8)


# --- Talon 13 missiles ---
def _draw_missile(d, cx, cy, size, mv, u):
    """A missile counter: an arrowhead pointing along its facing, filled in its side's colour,
    hollow with a coloured outline on its damaged side (13.6)."""
    ang = math.radians(60 * mv.facing)
    fx, fy = math.cos(ang), -math.sin(ang)
    px, py = -fy, fx
    pts = [(cx + fx * size, cy + fy * size), (cx - fx * size * 0.7 + px * size * 0.6, cy - fy * size * 0.7 + py * size * 0.6),
           (cx - fx * size * 0.35, cy - fy * size * 0.35),
           (cx - fx * size * 0.7 - px * size * 0.6, cy - fy * size * 0.7 - py * size * 0.6)]
    col = SIDE_RGB[mv.owner]
    if mv.damaged:
        d.polygon(pts, fill=BG, outline=col, width=max(1, int(1.5 * u)))
    else:
        d.polygon(pts, fill=col, outline=TEXT, width=max(1, u))


# ----------------------------------------------------------------------------
def render(core, b: int, mode: str, viewer: int = 0):
    """Draw game ``b`` of ``core``: ``mode`` "ansi" returns a str, "rgb_array" (or
    "human") an HxWx3 uint8 array.  ``viewer`` is the player highlighted as "you"."""
    v = snapshot(core, int(b))
    viewer = int(viewer) if viewer in (0, 1) else v.current
    if mode == "ansi":
        return render_ansi(v, viewer)
    if mode in ("rgb_array", "human"):
        return render_rgb(v, viewer)
    raise ValueError(f"Talon renders 'ansi' or 'rgb_array', not {mode!r}")
