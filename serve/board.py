"""Where a legal action is on the board picture: the page's clicks on a hex (issue 17).

``board_map(game, core, legal)`` answers, for the PNG that ``render(core, 0, "rgb_array")``
draws now, which hexes name which legal actions, with each hex's centre and radius in
the picture's pixels.  A click inside a hex then means its actions: one is played, several
filter the list.

The hex games (Planetoids, Talon) give hexes; Union Wars, a table measured in centimetres,
gives circles (its models, and the 10 cm deployment and objective spots); Battle Force, a card
game drawn as panels of cards, gives nothing: its actions are clicked in the list.

The pixel mapping is the renderers' own ``centre(cell)`` (a closure inside ``render_rgb``
that other code cannot call), written out again here from the same constants; the tests
draw the real picture and check every hex centre against the hexagons the renderer paints.
What each action points at comes from the renderers' ``snapshot`` (pieces, ships, their
hexes) and the games' tables (neighbours, ramps), not from parsing the action names.
"""
from __future__ import annotations

import math

import numpy as np

from ..envs.core.hexgrid import HexGrid

SQRT3 = math.sqrt(3.0)
ROW_STEP = 0.8660254   # the renderers' row pitch in hex widths (sqrt(3)/2)


class Geometry:
    """Hex centres in the final picture's pixels (the supersampled drawing scaled down by ``ss``)."""

    def __init__(self, rows, cols, ox, oy, width, ss):
        self.rows, self.cols, self.ox, self.oy, self.w, self.ss = rows, cols, ox, oy, width, ss

    @property
    def radius(self) -> float:
        """Centre to corner (pointy-top hex), in picture pixels."""
        return self.w / SQRT3 / self.ss

    def centre(self, cell: int) -> tuple[float, float]:
        r, c = divmod(int(cell), self.cols)
        x = self.ox + (c + 0.5 * (r & 1) + 0.5) * self.w
        y = self.oy + self.w / SQRT3 + r * ROW_STEP * self.w
        return x / self.ss, y / self.ss


def planetoids_geometry(rows: int, cols: int) -> Geometry:
    """``envs/planetoids/render.py: render_rgb``'s map placement."""
    from ..envs.planetoids.render import SS
    w = max(18.0, min(64.0, (1000 - 80) / (cols + 0.5))) * SS
    margin, label_gap, header_h = 24 * SS, 18 * SS, 118 * SS
    map_w = (cols + 0.5) * w
    width = int(max(map_w + 2 * margin + label_gap, 900 * SS))
    return Geometry(rows, cols, (width - map_w) / 2 + label_gap / 2, header_h + label_gap, w, SS)


def talon_geometry(rows: int, cols: int) -> Geometry:
    """``envs/talon/render.py: render_rgb``'s map panel."""
    from ..envs.talon.render import SS
    w = max(12.0, min(44.0, 560 / (cols + 0.5), 580 / ((rows - 1) * ROW_STEP + 1.16))) * SS
    margin, label_gap, header_h = 12 * SS, 20 * SS, 100 * SS
    map_w = (cols + 0.5) * w
    panel_w = max(map_w + label_gap + 2 * margin, 560 * SS)
    ox = margin + label_gap + (panel_w - 2 * margin - label_gap - map_w) / 2
    return Geometry(rows, cols, ox, header_h + label_gap, w, SS)


_GRIDS: dict = {}


def _neighbours(rows: int, cols: int) -> np.ndarray:
    """The odd-r neighbour table of a full rows x cols map (Talon's map has no holes)."""
    if (rows, cols) not in _GRIDS:
        _GRIDS[(rows, cols)] = HexGrid(rows, cols).neighbors
    return _GRIDS[(rows, cols)]


# -- what each action points at ---------------------------------------------------------------
def planetoids_anchors(core, legal) -> tuple[Geometry, dict]:
    from ..envs.planetoids import game as G
    from ..envs.planetoids import render
    from ..envs.planetoids import rules
    v = render.snapshot(core, 0)
    lay = G.layout(core.cfg)
    nbr, ramps = core.cfg.nbr, core.cfg.ramps
    p = v.current
    mine = {x.slot: x for x in v.pieces if x.player == p}
    theirs = {x.slot: x for x in v.pieces if x.player != p}
    # the hex a direction is counted from: the exit hex while leaving hyperspace, else the active piece
    pivot = v.exit_cell if v.phase in (rules.EXIT_HEX, rules.EXIT_FACE) and v.exit_cell >= 0 else (
        v.active_piece.pos if v.active_piece is not None else -1)

    def toward(d):
        return [int(nbr[pivot, d])] if pivot >= 0 and nbr[pivot, d] >= 0 else []

    anchors = {}
    for a in legal:
        a = int(a)
        if a < lay.a_target:                       # select own piece a
            cells = mine[a].cells if a in mine else []
        elif a < lay.a_fixed:                      # fire at enemy piece j
            j = a - lay.a_target
            cells = theirs[j].cells if j in theirs else []
        elif a < lay.a_hex:                        # fire at the fixed base on planetoid f
            cells = [int(lay.planetoid_cell[a - lay.a_fixed])]
        elif a < lay.a_move:                       # a hex: place a base, fire into space, leave hyperspace
            cells = [a - lay.a_hex]
        elif a < lay.a_face:                       # move one hex in direction d
            cells = toward(a - lay.a_move)
        elif a < lay.a_hyper:                      # face direction d: the hex it will face
            cells = toward(a - lay.a_face)
        elif a < lay.a_launch:                     # enter hyperspace: no hex
            cells = []
        elif a < lay.a_colonise:                   # launch from ramp k (3 ramps a player)
            cells = [int(ramps[p, (a - lay.a_launch) % 3, 0])]
        elif a in (lay.a_colonise, lay.a_repair) and v.active_piece is not None:
            cells = v.active_piece.cells
        else:
            cells = []
        if cells:
            anchors[a] = [int(c) for c in cells]
    return planetoids_geometry(v.rows, v.cols), anchors


def talon_anchors(core, legal) -> tuple[Geometry, dict]:
    from ..envs.talon import layout as L
    from ..envs.talon import render
    v = render.snapshot(core, 0)
    k = core.cfg.k
    p = v.current
    nbr = _neighbours(v.rows, v.cols)

    def at(player, slot):
        s = v.by_slot.get((player, slot))
        return [s.cell] if s is not None and s.cell >= 0 else []

    def destination(slot, m):
        """Talon 7.2.1 / 7.3.1: a turn rotates one hexside then advances; a side slip advances
        diagonally; both ahead-left (or right) of the bow.  Off the map (7.5, the map moves): none."""
        s = v.by_slot.get((p, slot))
        if s is None or s.cell < 0:
            return []
        d = {L.M_STRAIGHT: s.facing, L.M_TURN_LEFT: s.facing + 1, L.M_SLIP_LEFT: s.facing + 1,
             L.M_TURN_RIGHT: s.facing + 5, L.M_SLIP_RIGHT: s.facing + 5}[m] % 6
        c = int(nbr[s.cell, d])
        return [c] if c >= 0 else []

    anchors = {}
    for a in legal:
        a = int(a)
        if a < k[L.K_A_UNREINF]:                   # ship i spends AP
            cells = at(p, (a - k[L.K_A_AP]) // L.N_USES)
        elif a < k[L.K_A_MOVE]:                    # ship i removes a shield reinforcement
            cells = at(p, (a - k[L.K_A_UNREINF]) // 4)
        elif a < k[L.K_A_FIRE_SHIP]:               # ship i moves: the hex it moves into
            i = a - k[L.K_A_MOVE]
            cells = destination(i // L.N_MOVES, i % L.N_MOVES)
        elif a < k[L.K_A_GROUP]:                   # fire with ship i
            cells = at(p, a - k[L.K_A_FIRE_SHIP])
        elif a < k[L.K_A_TARGET]:                  # a weapon group: a line of the ship card, not a hex
            cells = []
        elif a < k[L.K_A_SPEED]:                   # fire at enemy ship j
            cells = at(1 - p, a - k[L.K_A_TARGET])
        elif k[L.K_A_EXPLODE] <= a < k[L.K_A_DONE]:  # own ship i explodes next
            cells = at(p, a - k[L.K_A_EXPLODE])
        else:
            cells = []
        if cells:
            anchors[a] = [int(c) for c in cells]
    return talon_geometry(v.rows, v.cols), anchors


ANCHORS = {"planetoids_v0": planetoids_anchors, "talon_v0": talon_anchors}


def union_wars_circles(core, legal) -> list[dict]:
    """Union Wars' table (``envs/union_wars/render.py: rgb``, ``px``: x right, y up, ``SCALE`` px a cm):
    a model names the actions that pick it (as the model to act, as a target, as the controlled
    model); a spot of the 10 cm lattice names the action that places something there.  Enemy models
    the renderer hides from the client (hidden, UW "nascosto") are never named.  Moves go by
    direction and distance, with terrain in the way: they stay in the list."""
    from ..envs.union_wars import layout as L
    from ..envs.union_wars import render
    st, k, pf = core.state, core.cfg.k, core.cfg.pf
    size = int(L.TABLE_CM * render.SCALE) + 2 * render.MARGIN
    p = int(core.current_player[0])

    def px(x, y):
        return render.MARGIN + float(x) * render.SCALE, size - render.MARGIN - float(y) * render.SCALE

    def model(side, slot):
        if int(st.md[0, side, slot, L.MD_STATUS]) not in (L.ACTIVE, L.OOC):
            return None
        if side != p and int(st.md[0, side, slot, L.MD_FLAGS]) & L.F_HIDDEN:
            return None
        x, y = px(st.pos[0, side, slot, 0], st.pos[0, side, slot, 1])
        r = pf[int(st.md[0, side, slot, L.MD_PROFILE]), L.PF_RADIUS_MM] / 20.0 * render.SCALE
        return ("model", side, slot), x, y, max(float(r), 8.0)

    circles: dict = {}
    for a in legal:
        a = int(a)
        if k[L.K_A_MODEL] <= a < k[L.K_A_ACT]:
            spot = model(p, a - k[L.K_A_MODEL])
        elif k[L.K_A_THEIR] <= a < k[L.K_A_MINE]:
            spot = model(1 - p, a - k[L.K_A_THEIR])
        elif k[L.K_A_MINE] <= a < k[L.K_A_MOVE]:
            spot = model(p, a - k[L.K_A_MINE])
        elif k[L.K_A_SPOT] <= a < k[L.K_A_PIECE]:
            sp = a - k[L.K_A_SPOT]
            spot = ("spot", sp), *px(5 + 10 * (sp % L.LATTICE), 5 + 10 * (sp // L.LATTICE)), 5.0 * render.SCALE
        else:
            spot = None
        if spot is not None:
            key, x, y, r = spot
            circles.setdefault(key, {"what": key[0], "x": round(x, 2), "y": round(y, 2), "r": round(r, 2),
                                     "actions": []})["actions"].append(a)
    return list(circles.values())


CIRCLES = {"union_wars_v0": union_wars_circles}


def board_map(game: str, core, legal) -> dict:
    """The places of the picture that name legal actions (pixels of the PNG): ``{"clickable": bool,
    "hex_radius": r, "hexes": [{"cell", "row", "col", "x", "y", "actions": [ids]}], "circles":
    [{"what", "x", "y", "r", "actions": [ids]}]}``: hexes on a hex map, circles on a table."""
    if game in CIRCLES:
        return {"clickable": True, "hexes": [], "circles": CIRCLES[game](core, legal)}
    if game not in ANCHORS:
        return {"clickable": False, "hexes": [], "circles": []}
    geometry, anchors = ANCHORS[game](core, legal)
    by_cell: dict = {}
    for a, cells in anchors.items():
        for c in dict.fromkeys(cells):
            by_cell.setdefault(c, []).append(a)
    hexes = []
    for c in sorted(by_cell):
        x, y = geometry.centre(c)
        r, col = divmod(c, geometry.cols)
        hexes.append({"cell": c, "row": r, "col": col, "x": round(x, 2), "y": round(y, 2),
                      "actions": sorted(by_cell[c])})
    return {"clickable": True, "hex_radius": round(geometry.radius, 3), "hexes": hexes, "circles": []}
