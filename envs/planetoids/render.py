"""Planetoids renderer: a text board ("ansi") and a picture ("rgb_array").

``render(core, b, mode, viewer)`` draws game ``b`` of a ``VecGame``.  Both
modes show the same things:

* a header: colour turn (n of 51), this turn's and next turn's planetoid
  colour, player to move, phase, scores, reserves, ships in hyperspace and
  what the active piece is doing;
* the hex map (pointy-top, odd rows shifted half a hex right): space,
  asteroid belts, home planets, launch ramps, planetoids (solid when they exist
  this colour turn, faint otherwise), fixed bases with their hits, hexes
  blocked by shots, and the pieces on the map with facing, damage and stacks;
* a legend.

``viewer`` (the player whose decision it is) only chooses what to highlight.
The renderer reads the state; it never changes it.
"""
from __future__ import annotations

import math
import textwrap
import types

import numpy as np

from ..core.hexgrid import DIRECTION_NAMES
from ..core.render import font as _font, mix as _mix
from . import rules
from .rules import (C_BLOCKED, FX_HITS, FX_OWNER, G_ACTIVE, G_DECIDER, G_EXIT_CELL, G_LAST_DIE, G_LAUNCH_COUNT,
                    G_LAUNCHED, G_PHASE, G_SETUP_COUNT, G_SHOTS, G_STEPS, G_TURN, PC_ACTIVATED, PC_DAMAGE,
                    PC_FACING, PC_POS, PC_STATUS)

KIND_LETTERS = "BCTF"                      # mobile base, cruiser, transport, fighter
KIND_WORDS = ("base", "cruiser", "transport", "fighter")
COLOUR_LETTERS = "BRY"                     # planetoid colours blue, red, yellow
ARROWS = "\u2192\u2197\u2196\u2190\u2199\u2198"  # bow facing E, NE, NW, W, SW, SE
FIXED_LETTER = "S"                         # fixed base (station) on a planetoid
SQRT3 = math.sqrt(3.0)

__all__ = ["render", "render_ansi", "render_rgb", "snapshot", "ANSI_LEGEND"]


# ----------------------------------------------------------------------------
# the state in plain Python
# ----------------------------------------------------------------------------
def snapshot(core, b: int) -> types.SimpleNamespace:
    """Everything the renderers draw, read once from game ``b`` of ``core``."""
    cfg, st, game = core.cfg, core.state, core.game
    lay = game.layout(cfg)
    g, pc, fx, cells = st.g[b], st.pc[b], st.fx[b], st.cells[b]
    n_turns = len(cfg.colour_seq)
    turn = int(g[G_TURN])
    t = min(max(turn, 0), n_turns - 1)
    v = types.SimpleNamespace()
    v.rows, v.cols = lay.rows, lay.cols
    v.valid = np.asarray(lay.valid, bool)
    v.terrain = np.asarray(lay.terrain)
    v.home_owner = np.asarray(lay.home_owner)
    v.ramp_owner = np.asarray(lay.ramp_owner)
    v.planetoid_at = np.asarray(lay.planetoid_at)
    v.planetoid_cell = np.asarray(lay.planetoid_cell)
    v.planetoid_colour = np.asarray(lay.planetoid_colour)
    v.ramp_dir = {}
    for p in range(cfg.ramps.shape[0]):
        for k in range(cfg.ramps.shape[1]):
            v.ramp_dir[int(cfg.ramps[p, k, 0])] = int(cfg.ramps[p, k, 1])
    v.n_turns = n_turns
    v.turn = turn
    v.over = int(g[G_PHASE]) == rules.OVER or turn >= n_turns
    v.colour = int(cfg.colour_seq[t])
    v.next_colour = int(cfg.colour_seq[t + 1]) if t + 1 < n_turns and not v.over else -1
    v.current = int(g[G_DECIDER])
    v.phase = int(g[G_PHASE])
    v.phase_name = rules.PHASE_NAMES[v.phase] if 0 <= v.phase < len(rules.PHASE_NAMES) else str(v.phase)
    v.active = int(g[G_ACTIVE])
    v.steps, v.shots = int(g[G_STEPS]), int(g[G_SHOTS])
    v.launched, v.launch_count = int(g[G_LAUNCHED]), int(g[G_LAUNCH_COUNT])
    v.setup_count = int(g[G_SETUP_COUNT])
    v.exit_cell = int(g[G_EXIT_CELL])
    v.last_die = int(g[G_LAST_DIE])
    v.scores = [int(x) for x in game.scores(st, b)]
    v.blocked = np.asarray(cells[:, C_BLOCKED]).astype(int)
    v.fixed = {}   # cell -> (owner, hits, planetoid colour)
    for f in range(fx.shape[0]):
        if fx[f, FX_OWNER] >= 0:
            v.fixed[int(v.planetoid_cell[f])] = (int(fx[f, FX_OWNER]), int(fx[f, FX_HITS]),
                                                 int(v.planetoid_colour[f]))
    v.pieces, v.reserve, v.hyper = [], [[0] * 4 for _ in range(2)], [[] for _ in range(2)]
    v.cell_pieces = {}
    for p in range(2):
        for i in range(len(cfg.slot_kind)):
            kind = int(cfg.slot_kind[i])
            status = int(pc[p, i, PC_STATUS])
            if status == rules.RESERVE:
                v.reserve[p][kind] += 1
            elif status == rules.HYPER:
                v.hyper[p].append(kind)
            if status != rules.ON_MAP:
                continue
            pos, facing = int(pc[p, i, PC_POS]), int(pc[p, i, PC_FACING])
            covered = _footprint(cfg, p, kind, pos, facing)
            piece = types.SimpleNamespace(
                player=p, slot=i, kind=kind, pos=pos, facing=facing % 6, damage=int(pc[p, i, PC_DAMAGE]),
                cells=[c for c in covered if 0 <= c < len(v.valid)],
                done=bool(pc[p, i, PC_ACTIVATED]) and p == v.current and not v.over,
                active=(p == v.current and i == v.active and not v.over))
            v.pieces.append(piece)
            for c in piece.cells:
                v.cell_pieces.setdefault(c, []).append(piece)
    v.active_piece = next((x for x in v.pieces if x.active), None)
    v.active_kind = int(cfg.slot_kind[v.active]) if 0 <= v.active < len(cfg.slot_kind) else -1
    return v


def _footprint(cfg, player, kind, pos, facing):
    """The hexes a piece covers, bow/anchor first, from the rules' own footprint
    functions (``rules.fp_size`` / ``rules.fp_cell``)."""
    n = int(rules.fp_size(cfg.struct, kind))
    return [int(rules.fp_cell(cfg.struct, player, kind, pos, facing, k)) for k in range(n)]


def _rc(v, cell: int) -> str:
    r, c = divmod(int(cell), v.cols)
    return f"({r},{c})"


def _colour_word(c: int) -> str:
    return ("blue", "red", "yellow")[c] if 0 <= c < 3 else "-"


def _reserve_text(v, p: int) -> str:
    r = v.reserve[p]
    return f"C{r[rules.CRUISER]} T{r[rules.TRANSPORT]} F{r[rules.FIGHTER]}"


def _hyper_text(v, p: int) -> str:
    if not v.hyper[p]:
        return "-"
    return " ".join(f"{KIND_LETTERS[k]}x{v.hyper[p].count(k)}" for k in (rules.CRUISER, rules.TRANSPORT,
                                                                         rules.FIGHTER) if k in v.hyper[p])


def _status_text(v) -> str:
    """What the player to move is doing, in one line."""
    p = v.current
    if v.over:
        a, b = v.scores
        result = "a draw" if a == b else f"player {0 if a > b else 1} wins"
        return f"Game over after {v.n_turns} turns: {result} ({a} : {b})."
    who = f"Player {p}"
    if v.phase == rules.SETUP:
        return f"{who}: place mobile base {v.setup_count // 2 + 1} of 2 next to the home planet."
    die = f"  Last die: {v.last_die}." if v.last_die > 0 else ""
    if v.phase == rules.SELECT or v.active < 0:
        launched = ""
        if v.launch_count > 0 and 0 <= v.launched < 4:
            launched = f" (launched {v.launch_count} {KIND_WORDS[v.launched]}{'s' if v.launch_count > 1 else ''})"
        return f"{who}: select a piece, launch from a ramp, or end the move{launched}.{die}"
    kind = KIND_WORDS[v.active_kind] if 0 <= v.active_kind < 4 else "piece"
    a = v.active_piece
    if v.phase == rules.EXIT_HEX:
        return f"{who}: {kind} #{v.active} leaves hyperspace: choose the exit hex.{die}"
    if v.phase == rules.EXIT_FACE:
        at = _rc(v, v.exit_cell) if v.exit_cell >= 0 else "?"
        return f"{who}: {kind} #{v.active} leaves hyperspace at {at}: choose its facing.{die}"
    if a is None:
        return f"{who}: {kind} #{v.active} acting.{die}"
    facing = f" facing {DIRECTION_NAMES[a.facing]}" if a.kind in (rules.CRUISER, rules.TRANSPORT) else ""
    dmg = f", damage {a.damage}" if a.damage else ""
    return (f"{who}: {kind} #{v.active} at {_rc(v, a.pos)}{facing}{dmg}: moved {v.steps}, "
            f"fired {v.shots}.{die}")


# ----------------------------------------------------------------------------
# ANSI
# ----------------------------------------------------------------------------
ANSI_LEGEND = (
    "Legend: . space  # asteroids  H/h home planet of P0/P1  =\u2192 ramp, launches east",
    "  OB OR OY planetoid blue/red/yellow, there this turn   ob or oy not this turn",
    "  P0 UPPER, P1 lower: B base  C cruiser  T transport  F fighter  S fixed base",
    "  C\u2192 bow, facing east  C2 stern/base with 2 damage  3F stack of 3  Sb S on blue",
    "  X blocked  ? hyperspace exit   lists: C#2 = slot 2 (row,col) facing, d damage",
)


def _ansi_cell(v, c: int) -> str:
    if not v.valid[c]:
        return "  "
    stack = v.cell_pieces.get(c, [])
    fixed = v.fixed.get(c)
    if stack:
        n = len(stack) + (1 if fixed else 0)
        top = min(stack, key=lambda x: (x.kind, x.pos != c))  # bases first, then a bow in this hex
        letter = KIND_LETTERS[top.kind]
        if top.player == 1:
            letter = letter.lower()
        if n > 1:
            return f"{min(n, 9)}{letter}"
        if top.kind in (rules.CRUISER, rules.TRANSPORT) and c == top.pos:
            return letter + ARROWS[top.facing]
        if top.kind == rules.FIGHTER:
            return letter + " "
        is_anchor = c == top.cells[-1] if top.kind != rules.BASE else c == top.pos
        return letter + (str(min(top.damage, 9)) if top.damage and is_anchor else " ")
    if c == v.exit_cell and v.phase == rules.EXIT_FACE:
        return "? "
    if fixed:
        owner, _hits, col = fixed
        letter = FIXED_LETTER if owner == 0 else FIXED_LETTER.lower()
        cl = COLOUR_LETTERS[col]
        return letter + (cl if col == v.colour else cl.lower())
    if v.blocked[c] >= 0:
        return "X "
    f = v.planetoid_at[c]
    if f >= 0:
        col = int(v.planetoid_colour[f])
        return "O" + COLOUR_LETTERS[col] if col == v.colour else "o" + COLOUR_LETTERS[col].lower()
    t = v.terrain[c]
    if t == rules.PLANET:
        return "H " if v.home_owner[c] == 0 else "h "
    if v.ramp_owner[c] >= 0:
        return "=" + ARROWS[v.ramp_dir.get(c, 0) % 6]
    if t == rules.ASTEROID:
        return "# "
    return ". "


def _wrap(prefix: str, items: list[str], width: int = 80) -> list[str]:
    lines, line = [], prefix
    for item in items:
        if len(line) + len(item) + 2 > width and line.strip():
            lines.append(line.rstrip())
            line = " " * len(prefix)
        line += item + "  "
    lines.append(line.rstrip())
    return lines


def render_ansi(v, viewer: int = 0) -> str:
    turn_no = min(v.turn + 1, v.n_turns)
    nxt = f" (next {_colour_word(v.next_colour)})" if v.next_colour >= 0 else ""
    who = "game over" if v.over else f"P{v.current} to move  phase {v.phase_name}"
    out = [f"Planetoids  turn {turn_no}/{v.n_turns}  colour {_colour_word(v.colour).upper()}{nxt}  {who}"]
    for p in range(2):
        mark = ">" if p == viewer and not v.over else " "
        case = "UPPER" if p == 0 else "lower"
        out.append(f"{mark} P{p} ({case}): score {v.scores[p]:2d}  reserve {_reserve_text(v, p)}  "
                   f"hyperspace {_hyper_text(v, p)}")
    out.extend(textwrap.wrap(_status_text(v), 80, subsequent_indent="  "))
    # column numbers (tens, then units), aligned with the even rows
    pad = " " * 4
    if v.cols > 10:
        out.append(pad + "".join(f"{c // 10 if c >= 10 else ' '} " for c in range(v.cols)).rstrip())
    out.append(pad + "".join(f"{c % 10} " for c in range(v.cols)).rstrip())
    for r in range(v.rows):
        cells = "".join(_ansi_cell(v, r * v.cols + c) for c in range(v.cols))
        out.append((f"{r:2d}  " + (" " if r & 1 else "") + cells).rstrip())
    for p in range(2):
        items = []
        for x in v.pieces:
            if x.player != p:
                continue
            letter = KIND_LETTERS[x.kind] if p == 0 else KIND_LETTERS[x.kind].lower()
            facing = DIRECTION_NAMES[x.facing] if x.kind in (rules.CRUISER, rules.TRANSPORT) else ""
            items.append(("*" if x.active else "") + f"{letter}#{x.slot}{_rc(v, x.pos)}{facing}"
                         + (f" d{x.damage}" if x.damage else ""))
        out.extend(_wrap(f"P{p} on map: ", items or ["-"]))
    if v.fixed:
        items = [f"P{o} {_rc(v, c)} {_colour_word(col)} hits {h}" for c, (o, h, col) in sorted(v.fixed.items())]
        out.extend(_wrap("Fixed bases: ", items))
    out.extend(ANSI_LEGEND)
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------
# RGB (Pillow)
# ----------------------------------------------------------------------------
SS = 2                                             # supersampling factor (anti-aliasing)
BG = (6, 9, 20)
HEX_SPACE = (15, 22, 42)
HEX_EDGE = (40, 52, 84)
TEXT = (226, 231, 242)
TEXT_DIM = (140, 150, 172)
PLAYER_RGB = ((64, 214, 120), (236, 86, 226))     # player 0 green, player 1 magenta
PLANETOID_RGB = ((66, 135, 255), (238, 64, 56), (250, 208, 44))
ASTEROID_FILL = (38, 34, 32)
BLOCKED_RGB = (255, 112, 48)
HILITE = (255, 246, 150)
DAMAGE_RGB = (214, 40, 40)


def _dim(rgb, t: float = 0.45):
    return _mix(rgb, (0, 0, 0), t)


def _unit(d: int):
    """Pixel direction (x right, y down) of hex direction d, unit length."""
    ang = math.radians(60 * d)
    return math.cos(ang), -math.sin(ang)


class _Painter:
    """Drawing primitives in supersampled pixels; ``w`` is the hex width."""

    def __init__(self, draw):
        self.d = draw

    def hexagon(self, cx, cy, w, fill=None, outline=None, width=1, shrink=1.0):
        r = w / SQRT3 * shrink
        pts = [(cx + r * math.cos(math.radians(-90 + 60 * k)), cy + r * math.sin(math.radians(-90 + 60 * k)))
               for k in range(6)]
        self.d.polygon(pts, fill=fill)
        if outline is not None:
            self.d.line(pts + [pts[0]], fill=outline, width=max(1, int(width)), joint="curve")

    def disc(self, cx, cy, r, fill=None, outline=None, width=1):
        self.d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline, width=max(1, int(width)))

    def dashed_circle(self, cx, cy, r, colour, width, n=12):
        box = (cx - r, cy - r, cx + r, cy + r)
        step = 360 / n
        for k in range(n):
            self.d.arc(box, k * step, k * step + step * 0.55, fill=colour, width=max(1, int(width)))

    def text(self, xy, s, size, fill=TEXT, bold=False, anchor="la"):
        self.d.text(xy, s, font=_font(int(size), bold), fill=fill, anchor=anchor)

    def text_width(self, s, size, bold=False):
        return self.d.textlength(s, font=_font(int(size), bold))

    def badge(self, cx, cy, r, label, fill=DAMAGE_RGB, fg=(255, 255, 255)):
        self.disc(cx, cy, r, fill=fill, outline=(10, 10, 10), width=max(1, r * 0.18))
        self.text((cx, cy + r * 0.05), label, r * 1.45, fill=fg, bold=True, anchor="mm")

    # -- terrain -----------------------------------------------------------
    def asteroids(self, cx, cy, w, seed):
        rng = np.random.default_rng(seed)
        for _ in range(7):
            a, rr = rng.uniform(0, 2 * math.pi), rng.uniform(0.0, 0.3) * w
            x, y = cx + rr * math.cos(a), cy + rr * math.sin(a)
            size = rng.uniform(0.05, 0.12) * w
            shade = int(rng.integers(90, 150))
            pts = [(x + size * rng.uniform(0.7, 1.2) * math.cos(2 * math.pi * k / 6),
                    y + size * rng.uniform(0.7, 1.2) * math.sin(2 * math.pi * k / 6)) for k in range(6)]
            self.d.polygon(pts, fill=(shade, int(shade * 0.88), int(shade * 0.74)), outline=(30, 26, 24))

    def home_planet(self, cx, cy, w, player):
        col = PLAYER_RGB[player]
        r = 0.40 * w
        self.disc(cx, cy, r * 1.12, fill=_mix(col, BG, 0.75))
        self.disc(cx, cy, r, fill=_mix(col, (30, 50, 90), 0.55), outline=col, width=w * 0.04)
        self.disc(cx - r * 0.3, cy - r * 0.3, r * 0.45, fill=_mix(col, (255, 255, 255), 0.35))
        self.text((cx, cy + r * 0.25), "H", w * 0.3, fill=(255, 255, 255), bold=True, anchor="mm")

    def ramp(self, cx, cy, w, player, d):
        col = PLAYER_RGB[player]
        ux, uy = _unit(d)
        px, py = -uy, ux
        for off in (-0.16, 0.12):
            tip = (cx + ux * (off + 0.2) * w, cy + uy * (off + 0.2) * w)
            a = (cx + (ux * off - px * 0.2) * w, cy + (uy * off - py * 0.2) * w)
            bb = (cx + (ux * off + px * 0.2) * w, cy + (uy * off + py * 0.2) * w)
            self.d.line([a, tip, bb], fill=_mix(col, HEX_SPACE, 0.25), width=max(1, int(w * 0.07)),
                        joint="curve")

    def planetoid(self, cx, cy, w, colour, visible, soon=False):
        col = PLANETOID_RGB[colour]
        r = 0.31 * w
        if visible:
            self.disc(cx, cy, r * 1.25, fill=_mix(col, HEX_SPACE, 0.8))
            self.disc(cx, cy, r, fill=col, outline=_mix(col, (255, 255, 255), 0.5), width=w * 0.03)
            self.disc(cx - r * 0.35, cy - r * 0.35, r * 0.35, fill=_mix(col, (255, 255, 255), 0.45))
        else:
            self.dashed_circle(cx, cy, r, _mix(col, HEX_SPACE, 0.25 if soon else 0.5), w * 0.035)

    def blocked(self, cx, cy, w):
        r = 0.26 * w
        for sx in (-1, 1):
            self.d.line([(cx - r, cy - sx * r), (cx + r, cy + sx * r)], fill=BLOCKED_RGB, width=max(1, int(w * 0.075)))

    def fixed_base(self, cx, cy, w, owner, hits, faded=False):
        col = PLAYER_RGB[owner]
        if faded:
            col = _mix(col, HEX_SPACE, 0.35)
        h = 0.22 * w
        self.d.rectangle((cx - h, cy - h, cx + h, cy + h), fill=col, outline=(12, 12, 18), width=max(1, int(w * 0.04)))
        # battlements
        t = h * 0.45
        for k in (-1, 0, 1):
            x = cx + k * h * 0.7
            self.d.rectangle((x - t * 0.4, cy - h - t, x + t * 0.4, cy - h), fill=col, outline=(12, 12, 18),
                             width=max(1, int(w * 0.02)))
        self.text((cx, cy + h * 0.1), "S", h * 1.4, fill=(15, 15, 22), bold=True, anchor="mm")
        if hits:
            self.badge(cx + h * 1.25, cy + h * 1.05, 0.13 * w, str(hits))

    # -- pieces ------------------------------------------------------------
    def base(self, centres, w, col, edge, label, label_rgb):
        if len(centres) > 1:  # a hull joining the hexes it covers, with a dark rim
            ring = centres + [centres[0]] if len(centres) > 2 else centres
            for colour, thick in ((edge, 0.62), (col, 0.5)):
                self.d.line(ring, fill=colour, width=int(w * thick), joint="curve")
                if len(centres) > 2:
                    self.d.polygon(centres, fill=colour)
        for (x, y) in centres:
            self.disc(x, y, 0.31 * w, fill=col, outline=edge, width=w * 0.05)
            self.disc(x, y, 0.15 * w, fill=_mix(col, (0, 0, 0), 0.35))
        gx = sum(x for x, _ in centres) / len(centres)
        gy = sum(y for _, y in centres) / len(centres)
        self.disc(gx, gy, 0.17 * w, fill=(245, 245, 250), outline=edge, width=w * 0.03)
        self.text((gx, gy + 0.01 * w), label, 0.24 * w, fill=label_rgb, bold=True, anchor="mm")

    def ship(self, stern, bow, facing, w, col, edge, label, transport):
        ux, uy = _unit(facing)
        px, py = -uy, ux
        sx, sy = stern
        bx, by = bow
        if stern == bow:  # one-hex ship
            sx, sy = bx - ux * 0.22 * w, by - uy * 0.22 * w
            bx, by = bx + ux * 0.05 * w, by + uy * 0.05 * w
        half = (0.25 if transport else 0.16) * w
        back = 0.32 * w
        nose = 0.4 * w if transport else 0.47 * w

        def at(x, y, along, side):
            return (x + ux * along + px * side, y + uy * along + py * side)

        if transport:  # a wide box with a blunt nose
            hull = [at(sx, sy, -back, -half), at(sx, sy, -back, half), at(bx, by, 0.1 * w, half),
                    at(bx, by, nose, half * 0.45), at(bx, by, nose, -half * 0.45), at(bx, by, 0.1 * w, -half)]
        else:  # a slim pointed hull with swept wings at the stern
            hull = [at(sx, sy, -back, -half * 0.6), at(sx, sy, -back * 0.8, -half * 1.7),
                    at(sx, sy, -back * 0.05, -half * 1.7), at(sx, sy, back * 0.35, -half),
                    at(bx, by, -0.05 * w, -half * 0.95), at(bx, by, nose, 0), at(bx, by, -0.05 * w, half * 0.95),
                    at(sx, sy, back * 0.35, half), at(sx, sy, -back * 0.05, half * 1.7),
                    at(sx, sy, -back * 0.8, half * 1.7), at(sx, sy, -back, half * 0.6)]
        self.d.polygon(hull, fill=col)
        self.d.line(hull + [hull[0]], fill=edge, width=max(1, int(w * 0.045)), joint="curve")
        # bow triangle: the facing at a glance
        tip = nose * (0.97 if transport else 0.9)
        tri = [at(bx, by, tip, 0), at(bx, by, tip - 0.26 * w, 0.11 * w), at(bx, by, tip - 0.26 * w, -0.11 * w)]
        self.d.polygon(tri, fill=(250, 250, 250), outline=edge)
        if label:  # on the stern
            self.text((sx, sy), label, 0.27 * w, fill=(12, 14, 22), bold=True, anchor="mm")

    def fighter(self, cx, cy, r, col, edge):
        """A small diamond with a light rim, so that it shows on top of its own side's ships."""
        pts = [(cx, cy - r), (cx + r * 0.8, cy), (cx, cy + r), (cx - r * 0.8, cy)]
        self.d.polygon(pts, fill=col)
        self.d.line(pts + [pts[0]], fill=(240, 242, 250), width=max(1, int(r * 0.2)), joint="curve")
        self.disc(cx, cy, r * 0.28, fill=edge)


def _fighter_slots(n, crowded):
    """Offsets (in hex widths) for n fighters in one hex."""
    if crowded:
        ring = [(-0.28, -0.2), (0.28, -0.2), (-0.28, 0.22), (0.28, 0.22)]
        return ring[:max(1, min(n, 4))]
    return {1: [(0, 0)], 2: [(-0.17, 0), (0.17, 0)], 3: [(0, -0.16), (-0.17, 0.13), (0.17, 0.13)]}.get(
        n, [(-0.16, -0.15), (0.16, -0.15), (-0.16, 0.15), (0.16, 0.15)])


def render_rgb(v, viewer: int = 0) -> np.ndarray:
    from PIL import Image, ImageDraw

    cols, rows = v.cols, v.rows
    target = 1000
    w_final = max(18.0, min(64.0, (target - 80) / (cols + 0.5)))
    W = w_final * SS
    R = W / SQRT3
    margin = 24 * SS
    label_gap = 18 * SS
    header_h = 118 * SS
    map_w = (cols + 0.5) * W
    map_h = (rows - 1) * 0.8660254 * W + 2 * R
    width = int(max(map_w + 2 * margin + label_gap, 900 * SS))
    ox = (width - map_w) / 2 + label_gap / 2
    oy = header_h + label_gap
    legend_h = _legend_height(LEGEND_LABELS, width)
    height = int(oy + map_h + 10 * SS + legend_h)

    img = Image.new("RGB", (width, height), BG)
    d = ImageDraw.Draw(img)
    pt = _Painter(d)

    def centre(cell):
        # HexGrid.center in pixels: x = col + 0.5 * (row odd), y = row * sqrt(3)/2 (hex widths)
        r, c = divmod(int(cell), cols)
        return ox + (c + 0.5 * (r & 1) + 0.5) * W, oy + R + r * 0.8660254 * W

    # stars
    rng = np.random.default_rng(12345)
    for _ in range(int(width * height / (900 * SS * SS))):
        x, y = rng.uniform(0, width), rng.uniform(0, height)
        s = rng.uniform(0.5, 1.4) * SS
        lum = int(rng.integers(70, 190))
        d.ellipse((x - s, y - s, x + s, y + s), fill=(lum, lum, min(255, lum + 25)))

    # -- terrain ---------------------------------------------------------------
    N = rows * cols
    for c in range(N):
        if not v.valid[c]:
            continue
        cx, cy = centre(c)
        fill = HEX_SPACE
        if v.terrain[c] == rules.ASTEROID:
            fill = ASTEROID_FILL
        elif v.terrain[c] == rules.PLANET and v.home_owner[c] >= 0:
            fill = _mix(HEX_SPACE, PLAYER_RGB[v.home_owner[c]], 0.16)
        elif v.ramp_owner[c] >= 0:
            fill = _mix(HEX_SPACE, PLAYER_RGB[v.ramp_owner[c]], 0.22)
        if v.blocked[c] >= 0:
            fill = _mix(fill, BLOCKED_RGB, 0.18)
        pt.hexagon(cx, cy, W, fill=fill, outline=HEX_EDGE, width=1.2 * SS)
    for c in range(N):
        if not v.valid[c]:
            continue
        cx, cy = centre(c)
        if v.terrain[c] == rules.SPACE and v.planetoid_at[c] < 0:
            r2 = np.random.default_rng(c + 99)
            for _ in range(2):
                x, y = cx + r2.uniform(-0.3, 0.3) * W, cy + r2.uniform(-0.3, 0.3) * W
                lum = int(r2.integers(45, 80))
                d.ellipse((x - SS * 0.8, y - SS * 0.8, x + SS * 0.8, y + SS * 0.8), fill=(lum, lum, lum + 20))
        if v.terrain[c] == rules.ASTEROID:
            pt.asteroids(cx, cy, W, c)
        elif v.terrain[c] == rules.PLANET:
            pt.home_planet(cx, cy, W, max(0, int(v.home_owner[c])))
        if v.ramp_owner[c] >= 0:
            pt.ramp(cx, cy, W, int(v.ramp_owner[c]), v.ramp_dir.get(c, 0))
        f = v.planetoid_at[c]
        if f >= 0:
            col = int(v.planetoid_colour[f])
            pt.planetoid(cx, cy, W, col, col == v.colour, soon=col == v.next_colour)
        if v.blocked[c] >= 0:
            pt.blocked(cx, cy, W)

    # -- highlights: active piece and chosen exit hex ------------------------
    hl = HILITE if viewer == v.current else _mix(HILITE, PLAYER_RGB[v.current], 0.4)
    if v.active_piece is not None:
        for c in v.active_piece.cells:
            cx, cy = centre(c)
            pt.hexagon(cx, cy, W, fill=_mix(HEX_SPACE, hl, 0.18), shrink=0.96)
            pt.hexagon(cx, cy, W, outline=hl, width=3.2 * SS, shrink=0.93)
    if v.exit_cell >= 0 and v.phase == rules.EXIT_FACE:
        cx, cy = centre(v.exit_cell)
        pt.hexagon(cx, cy, W, outline=hl, width=3.2 * SS, shrink=0.93)
        pt.dashed_circle(cx, cy, 0.3 * W, hl, 2 * SS)

    # -- fixed bases -----------------------------------------------------------
    for c, (owner, hits, col) in v.fixed.items():
        cx, cy = centre(c)
        pt.fixed_base(cx, cy, W, owner, hits, faded=(col != v.colour))

    # -- pieces ------------------------------------------------------------------
    def colours(piece):
        col = PLAYER_RGB[piece.player]
        if piece.done and not piece.active:
            col = _mix(col, (120, 124, 132), 0.6)
        return col, _mix(col, (0, 0, 0), 0.7)

    ship_index: dict = {}
    for piece in sorted(v.pieces, key=lambda x: x.kind):
        col, edge = colours(piece)
        letter = KIND_LETTERS[piece.kind]
        if piece.kind == rules.BASE:
            pts = [centre(c) for c in piece.cells]
            pt.base(pts, W, col, edge, letter, _dim(PLAYER_RGB[piece.player], 0.55))
            if piece.damage:
                gx, gy = sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)
                pt.badge(gx + 0.2 * W, gy - 0.17 * W, 0.14 * W, str(piece.damage))
        elif piece.kind in (rules.CRUISER, rules.TRANSPORT):
            k = ship_index.get(piece.pos, 0)
            ship_index[piece.pos] = k + 1
            ux, uy = _unit(piece.facing)
            off = (0, 0.22, -0.22, 0.36, -0.36)[k % 5] * W
            ox_, oy_ = -uy * off, ux * off
            bow = centre(piece.cells[0])
            stern = centre(piece.cells[1]) if len(piece.cells) > 1 else bow
            bow = (bow[0] + ox_, bow[1] + oy_)
            stern = (stern[0] + ox_, stern[1] + oy_)
            pt.ship(stern, bow, piece.facing, W, col, edge, letter, piece.kind == rules.TRANSPORT)
            if piece.damage:
                pt.badge(stern[0] - 0.24 * W, stern[1] - 0.26 * W, 0.14 * W, str(piece.damage))
    fighters: dict = {}
    for piece in v.pieces:
        if piece.kind == rules.FIGHTER and piece.cells:
            fighters.setdefault(piece.cells[0], []).append(piece)
    for c, group in fighters.items():
        crowded = len(v.cell_pieces.get(c, [])) > len(group) or c in v.fixed
        slots = _fighter_slots(len(group), crowded)
        cx, cy = centre(c)
        for k, piece in enumerate(group[:len(slots)]):
            col, edge = colours(piece)
            dx, dy = slots[k]
            pt.fighter(cx + dx * W, cy + dy * W, 0.17 * W, col, edge)
    # stack counts
    for c, stack in v.cell_pieces.items():
        n = len(stack) + (1 if c in v.fixed else 0)
        if n > 1:
            cx, cy = centre(c)
            pt.badge(cx + 0.3 * W, cy - 0.3 * W, 0.13 * W, str(n), fill=(235, 235, 245), fg=(10, 10, 20))

    # -- coordinates ---------------------------------------------------------------
    for c in range(cols):
        x, _ = centre(c)
        pt.text((x, oy - 5 * SS), str(c), 11 * SS, fill=TEXT_DIM, anchor="ms")
    for r in range(rows):
        first = next((r * cols + c for c in range(cols) if v.valid[r * cols + c]), r * cols)
        x, y = centre(first)
        pt.text((x - W * 0.62, y), str(r), 11 * SS, fill=TEXT_DIM, anchor="rm")

    _draw_header(pt, v, viewer, width, header_h)
    _draw_legend(pt, v, width, height - legend_h, legend_h)

    out = img.resize((width // SS, height // SS), Image.LANCZOS)
    return np.asarray(out.convert("RGB"), dtype=np.uint8)


def _reserve_icons(pt, x, y, p, u, counts, size_text):
    """Small ship icons followed by 'xN'; returns the x after the last one."""
    col = PLAYER_RGB[p]
    edge = _mix(col, (0, 0, 0), 0.7)
    for kind, n in counts:
        if kind == rules.FIGHTER:
            pt.fighter(x + u * 0.5, y, u * 0.42, col, edge)
            x += u * 1.1
        else:
            pt.ship((x + u * 0.45, y), (x + u * 1.35, y), 0, u * 1.6, col, edge, "", kind == rules.TRANSPORT)
            x += u * 2.3
        s = f"\u00d7{n}"
        pt.text((x, y), s, size_text, fill=TEXT if n else TEXT_DIM, anchor="lm")
        x += pt.text_width(s, size_text) + u * 0.8
    return x


def _draw_header(pt, v, viewer, width, h):
    d = pt.d
    m = 20 * SS
    d.rectangle((0, 0, width, h - 6 * SS), fill=(12, 17, 33))
    d.line([(0, h - 6 * SS), (width, h - 6 * SS)], fill=HEX_EDGE, width=SS)
    y = 20 * SS
    pt.text((m, y), "PLANETOIDS", 20 * SS, fill=TEXT, bold=True, anchor="lm")
    x = m + pt.text_width("PLANETOIDS", 20 * SS, True) + 26 * SS
    turn_no = min(v.turn + 1, v.n_turns)
    s = f"Turn {turn_no} / {v.n_turns}"
    pt.text((x, y), s, 17 * SS, fill=TEXT, bold=True, anchor="lm")
    x += pt.text_width(s, 17 * SS, True) + 26 * SS
    col = PLANETOID_RGB[v.colour]
    pt.disc(x + 9 * SS, y, 9 * SS, fill=col, outline=_mix(col, (255, 255, 255), 0.5), width=SS)
    s = f"{_colour_word(v.colour).upper()} planetoids"
    pt.text((x + 24 * SS, y), s, 16 * SS, fill=_mix(col, (255, 255, 255), 0.35), bold=True, anchor="lm")
    x += 24 * SS + pt.text_width(s, 16 * SS, True) + 22 * SS
    if v.next_colour >= 0:
        ncol = PLANETOID_RGB[v.next_colour]
        pt.text((x, y), "next:", 14 * SS, fill=TEXT_DIM, anchor="lm")
        x += pt.text_width("next:", 14 * SS) + 8 * SS
        pt.dashed_circle(x + 7 * SS, y, 7 * SS, ncol, 2 * SS, n=8)
        pt.text((x + 20 * SS, y), _colour_word(v.next_colour), 14 * SS, fill=TEXT_DIM, anchor="lm")
    s = "GAME OVER" if v.over else f"phase: {v.phase_name}"
    pt.text((width - m, y), s, 15 * SS, fill=HILITE if v.over else TEXT_DIM, bold=v.over, anchor="rm")

    # one panel per player
    pw = (width - 3 * m) / 2
    for p in range(2):
        x0, y0 = m + p * (pw + m), 36 * SS
        x1, y1 = x0 + pw, y0 + 46 * SS
        col = PLAYER_RGB[p]
        to_move = p == viewer and not v.over
        d.rounded_rectangle((x0, y0, x1, y1), radius=8 * SS, fill=_mix((12, 17, 33), col, 0.16 if to_move else 0.05),
                            outline=col if to_move else _mix(col, (12, 17, 33), 0.6), width=(2 if to_move else 1) * SS)
        yy = y0 + 13 * SS
        pt.disc(x0 + 16 * SS, yy, 7 * SS, fill=col)
        name = f"Player {p}" + ("  \u25b6 to move" if to_move else "")
        pt.text((x0 + 30 * SS, yy), name, 15 * SS, fill=TEXT, bold=True, anchor="lm")
        pt.text((x1 - 12 * SS, yy), f"score {v.scores[p]}", 16 * SS, fill=col, bold=True, anchor="rm")
        yy = y0 + 33 * SS
        pt.text((x0 + 12 * SS, yy), "reserve", 12 * SS, fill=TEXT_DIM, anchor="lm")
        xx = x0 + 12 * SS + pt.text_width("reserve", 12 * SS) + 8 * SS
        r = v.reserve[p]
        xx = _reserve_icons(pt, xx, yy, p, 9 * SS, [(rules.CRUISER, r[rules.CRUISER]),
                                                        (rules.TRANSPORT, r[rules.TRANSPORT]),
                                                        (rules.FIGHTER, r[rules.FIGHTER])], 12 * SS)
        xx += 8 * SS
        pt.text((xx, yy), "hyperspace", 12 * SS, fill=TEXT_DIM, anchor="lm")
        xx += pt.text_width("hyperspace", 12 * SS) + 8 * SS
        hyp = [(k, v.hyper[p].count(k)) for k in (rules.CRUISER, rules.TRANSPORT, rules.FIGHTER) if k in v.hyper[p]]
        if hyp:
            _reserve_icons(pt, xx, yy, p, 9 * SS, hyp, 12 * SS)
        else:
            pt.text((xx, yy), "none", 12 * SS, fill=TEXT_DIM, anchor="lm")
    pt.text((m, 98 * SS), _status_text(v), 14 * SS, fill=TEXT, anchor="lm")


_LEGEND_ROW = 36  # px between legend rows


def _legend_positions(labels, width):
    """Icon centres (x, y from the legend top) of legend items laid out left to right."""
    out, x, y = [], 0.0, 24 * SS
    left, right = 36 * SS, width - 16 * SS
    x = left
    for label in labels:
        need = 22 * SS + _font(12 * SS).getlength(label) + 34 * SS
        if x + need - 34 * SS > right and x > left:
            x, y = left, y + _LEGEND_ROW * SS
        out.append((x, y))
        x += need
    return out


def _legend_height(labels, width):
    return int(_legend_positions(labels, width)[-1][1] + 48 * SS)


LEGEND_LABELS = ("space", "asteroid belt", "home planet", "launch ramp", "planetoid (this turn)",
                 "planetoid (other turns)", "blocked hex", "fixed base (hits)", "mobile base", "cruiser (bow \u25b8)",
                 "transport", "fighter", "damage", "stacked pieces", "active piece", "moved this turn",
                 "hyperspace exit")


def _draw_legend(pt, v, width, y0, h):
    d = pt.d
    d.rectangle((0, y0, width, y0 + h), fill=(12, 17, 33))
    d.line([(0, y0), (width, y0)], fill=HEX_EDGE, width=SS)
    w = 30 * SS
    col, edge = PLAYER_RGB[0], _dim(PLAYER_RGB[0], 0.7)

    def tile(x, y, fill=HEX_SPACE):
        pt.hexagon(x, y, w, fill=fill, outline=HEX_EDGE, width=SS)

    def icon(k, x, y):
        if k == 0:
            tile(x, y)
        elif k == 1:
            tile(x, y, ASTEROID_FILL)
            pt.asteroids(x, y, w, 3)
        elif k == 2:
            tile(x, y, _mix(HEX_SPACE, col, 0.16))
            pt.home_planet(x, y, w, 0)
        elif k == 3:
            tile(x, y, _mix(HEX_SPACE, col, 0.22))
            pt.ramp(x, y, w, 0, 0)
        elif k == 4:
            tile(x, y)
            pt.planetoid(x, y, w, v.colour, True)
        elif k == 5:
            tile(x, y)
            pt.planetoid(x, y, w, (v.colour + 1) % 3, False)
        elif k == 6:
            tile(x, y, _mix(HEX_SPACE, BLOCKED_RGB, 0.18))
            pt.blocked(x, y, w)
        elif k == 7:
            tile(x, y)
            pt.planetoid(x, y, w, v.colour, True)
            pt.fixed_base(x, y, w * 1.2, 0, 1)
        elif k == 8:
            pt.base([(x - 0.25 * w, y + 0.2 * w), (x + 0.25 * w, y + 0.2 * w), (x, y - 0.22 * w)], w * 0.7,
                    col, edge, "B", _dim(col, 0.55))
        elif k in (9, 10):
            pt.ship((x - 0.35 * w, y), (x + 0.3 * w, y), 0, w * 0.8, col, edge, "", k == 10)
        elif k == 11:
            pt.fighter(x, y, 0.28 * w, col, edge)
        elif k == 12:
            pt.badge(x, y, 0.3 * w, "2")
        elif k == 13:
            pt.badge(x, y, 0.3 * w, "3", fill=(235, 235, 245), fg=(10, 10, 20))
        elif k == 14:
            pt.hexagon(x, y, w, fill=_mix(HEX_SPACE, HILITE, 0.18), outline=HILITE, width=2.5 * SS, shrink=0.93)
        elif k == 15:
            pt.fighter(x, y, 0.28 * w, _mix(col, (120, 124, 132), 0.6), edge)
        elif k == 16:
            tile(x, y)
            pt.hexagon(x, y, w, outline=HILITE, width=2.5 * SS, shrink=0.93)
            pt.dashed_circle(x, y, 0.3 * w, HILITE, 1.5 * SS)

    for k, (label, (x, y)) in enumerate(zip(LEGEND_LABELS, _legend_positions(LEGEND_LABELS, width))):
        icon(k, x, y0 + y)
        pt.text((x + 22 * SS, y0 + y), label, 12 * SS, fill=TEXT_DIM, anchor="lm")
    s = "Player 0 green, player 1 magenta.  A planetoid exists (and blocks) only in the turns of its colour."
    pt.text((16 * SS, y0 + h - 14 * SS), s, 12 * SS, fill=TEXT_DIM, anchor="lm")


# ----------------------------------------------------------------------------
def render(core, b, mode, viewer=0):
    """Draw game ``b`` of ``core``: ``mode`` "ansi" returns a str, "rgb_array" an
    HxWx3 uint8 array.  ``viewer`` is the player to move (highlighted)."""
    v = snapshot(core, int(b))
    viewer = int(viewer) if viewer in (0, 1) else v.current
    if mode == "ansi":
        return render_ansi(v, viewer)
    if mode in ("rgb_array", "human"):
        return render_rgb(v, viewer)
    raise ValueError(f"Planetoids renders 'ansi' or 'rgb_array', not {mode!r}")
