"""Where a legal action is on the board picture: the page's clicks on a hex (issue 17).

``board_map(game, core, legal)`` answers, for the PNG that ``render(core, 0, "rgb_array")``
draws now, which hexes name which legal actions, with each hex's centre and radius in
the picture's pixels.  A click inside a hex then means its actions: one is played, several
filter the list.

The hex games (Planetoids, Talon) give hexes; Union Wars, a table measured in centimetres,
gives circles (its models, and the 10 cm deployment and objective spots); Battle Force, a card
game drawn as panels of cards, gives boxes (its action cards, ship cards and damage spaces).

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


ANCHORS = {"planetoids_v2": planetoids_anchors, "planetoids_v1": planetoids_anchors, "talon_v1": talon_anchors,
           "planetoids_v0": planetoids_anchors, "talon_v0": talon_anchors}


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


CIRCLES = {"union_wars_v2": union_wars_circles, "union_wars_v1": union_wars_circles, "union_wars_v0": union_wars_circles}


# -- Battle Force: cards and ship cards on panels ----------------------------------------------
class _Rects:
    """Boxes of the picture (supersampled pixels while collected) and the actions each names."""

    def __init__(self, ss):
        self.ss, self.boxes = ss, []

    def add(self, what, x, y, w, h, actions, **extra):
        if actions:
            self.boxes.append({"what": what, **extra, "x0": x, "y0": y, "x1": x + w, "y1": y + h,
                               "actions": sorted(actions)})

    def final(self) -> list[dict]:
        """In the final picture's pixels (the renderer scales its drawing down by ``ss``)."""
        return [{**b, **{c: round(b[c] / self.ss, 2) for c in ("x0", "y0", "x1", "y1")}} for b in self.boxes]


def battle_force_rects(core, legal) -> list[dict]:
    """Battle Force's picture (``envs/battle_force/render.py: render_rgb``, drawn for the player to
    decide): each action card (hand, reserve, the table's attack and defence rows, the card in play)
    names the legal action that picks that card; the action deck names drawing from it, the discard
    pile drawing its top card, putting a card on it, or picking its top card; each ship card (the
    fleets' panels, the ship pool) names the action that picks that ship; while damage is placed or markers are
    removed, each damage space of that ship names the action of its kind (SFBF: damage is placed
    space by space, of a kind the damaged ship still has uncovered).

    The placement is ``render_rgb``'s, step by step, with the renderer's own layout helpers
    (``_fleet_layout``, ``_card_scale``, ``_panel_height``, ``_table_height``) and constants; the tests
    check every box against the cards the renderer draws."""
    from ..envs.battle_force import game as G
    from ..envs.battle_force import render as V
    from ..envs.battle_force import rules as R
    k = core.cfg.k
    legal = {int(a) for a in legal}
    card_of = {c: int(k[R.K_A_CARD]) + c for c in range(int(k[R.K_NC]))}
    ship_of = {i: int(k[R.K_A_SHIP]) + i for i in range(int(k[R.K_NS]))}
    kind_of = {kk: int(k[R.K_A_KIND]) + kk for kk in range(R.N_KIND)}
    named = {n: G.action_index(core.cfg, "NAMED", n) for n in G.NAMED_ACTIONS}
    v = V.snapshot(core, 0, int(core.current_player[0]))
    u = V.SS
    out = _Rects(u)

    def card(cv, x, y):
        out.add("card", x, y, V.ACT_W * u, V.ACT_H * u, {card_of[cv.id]} & legal, card=cv.id)

    spaces_of = {R.ST_PLACE: v.table.dmg_ship, R.ST_UNMARK: v.table.rep_ship}.get(v.stage, -1)

    def ship(s, x, y, scale):
        if s is None or s.hidden:
            return
        w, h = V.CARD_W * u * scale, V.CARD_H * u * scale
        out.add("ship", x, y, w, h, {ship_of[s.i]} & legal, ship=s.i)
        if s.i == spaces_of:          # _draw_ship_card's damage spaces
            bs, gap = V._BOX * u * scale, V._BOX_GAP * u * scale
            gx0 = x + (w - (V._BOX_COLS * bs + (V._BOX_COLS - 1) * gap)) / 2
            gy0 = y + 53 * u * scale
            j = 0
            for kk, n, _cov in s.spaces:
                for _m in range(n):
                    col, row = j % V._BOX_COLS, j // V._BOX_COLS
                    out.add("space", gx0 + col * (bs + gap), gy0 + row * (bs + gap), bs, bs, {kind_of[kk]} & legal,
                            ship=s.i, kind=kk)
                    j += 1

    def panel(pv, x0, y0, width, with_hand, scale):
        """``_draw_panel``: the fleet by lines, then (the viewer's) hand and reserve."""
        cards, _titles, bottom = V._fleet_layout(pv, x0 + 10 * u, x0 + width - 10 * u, y0 + V._PANEL_HEAD * u, scale)
        for s, cx, cy in cards:
            ship(s, cx, cy, scale)
        if not with_hand:
            return
        y = bottom + (18 * u if pv.destroyed else 0) + 4 * u
        x, yy = x0 + 12 * u, y + 16 * u
        for cv in pv.hand:
            if x + V.ACT_W * u > x0 + width - 10 * u:
                break
            card(cv, x, yy)
            x += (V.ACT_W + 6) * u
        if v.advanced:
            x += 18 * u
            for cv in pv.reserve:
                if x + V.ACT_W * u > x0 + width - 10 * u:
                    break
                card(cv, x, yy)
                x += (V.ACT_W + 6) * u

    def pool(x0, y0, width):
        """``_draw_pool``: compact ship cards; returns the bottom y."""
        sc = 0.62
        x, y = x0, y0 + 18 * u
        w = V.CARD_W * u * sc
        for s in sorted(v.pool, key=lambda s: s.i):
            if x + w > x0 + width:
                x, y = x0, y + (V.CARD_H * sc + 6) * u
            out.add("ship", x, y, w, V.CARD_H * u * sc, {ship_of[s.i]} & legal, ship=s.i)
            x += w + 6 * u
        return y + (V.CARD_H * sc + 8) * u

    def table(x0, y0, width, height):
        """``_draw_table``: the discard pile's top, the attack and defence rows, the card in play."""
        t = v.table
        x, y = x0 + 14 * u, y0 + 32 * u
        out.add("deck", x, y, V.ACT_W * u, V.ACT_H * u, {named["draw from the action deck"]} & legal)
        x += (V.ACT_W + 14) * u
        pile = {named["draw the top discard"], named["put the card on the discard pile"]} & legal
        if v.top_discard is not None:
            pile |= {card_of[v.top_discard.id]} & legal
        out.add("discard pile", x, y, V.ACT_W * u, V.ACT_H * u, pile)
        ax0, ax1 = x0 + 220 * u, x0 + width - 190 * u
        ry = y0 + 14 * u + 16 * u
        for entries in (t.attack_cards, t.defence_cards):
            if not entries:
                continue
            x = ax0 + 56 * u
            for e in entries:
                if x + V.ACT_W * u > ax1:
                    break
                if e.doubler is not None:
                    if x + (2 * V.ACT_W + 22) * u > ax1:
                        break
                    card(e.card, x, ry + 6 * u)
                    card(e.doubler.card, x + (V.ACT_W + 18) * u, ry + 6 * u)
                    x += (2 * V.ACT_W + 32) * u
                else:
                    card(e.card, x, ry + 6 * u)
                    x += (V.ACT_W + 8) * u
            ry += (V.ACT_H + 24) * u
        if t.pending is None:
            return
        rx, ry = x0 + width - 178 * u, y0 + 14 * u
        if t.kind != R.AK_NONE and t.roll:
            ry += 40 * u
        lines = [t.squadrons and t.kind == R.AK_FIGHTERS, t.kind in (R.AK_FIGHTERS, R.AK_PBF, R.AK_PF) and t.def_fire,
                 t.pf_left is not None, t.pt_add, t.pt_sub, *t.cancels, t.predicted is not None]
        ry += 16 * u * sum(1 for ln in lines if ln)
        ry += 36 * u * (bool(t.dmg_left) + bool(t.rep_left))
        if ry + (V.ACT_H + 20) * u < y0 + height:
            card(t.pending, rx, ry + 16 * u)

    # render_rgb: header, the other players' panels (one or two a row), the pool, the table, the viewer
    W = (1200 if v.P <= 3 else 1400) * u
    m, header_h = 12 * u, 56 * u
    me, others = v.players[0], v.players[1:]
    ncols = 1 if len(others) <= 1 else 2
    pw_other = (W - 2 * m - (ncols - 1) * m) / ncols
    ks = {pv.p: 1.0 if ncols == 1 else V._card_scale(pv, pw_other) for pv in others}
    y = header_h + m
    for j in range(0, len(others), ncols):
        row = others[j:j + ncols]
        h = max(V._panel_height(None, pv, pw_other, False, ks[pv.p]) for pv in row)
        for col, pv in enumerate(row):
            panel(pv, m + col * (pw_other + m), y, pw_other, False, ks[pv.p])
        y += h + m
    if v.pool:
        y = pool(m, y, W - 2 * m)
    table_h = V._table_height(v) * u
    table(m, y, W - 2 * m, table_h)
    panel(me, m, y + table_h + m, W - 2 * m, True, 1.0)
    return out.final()


RECTS = {"battle_force_v1": battle_force_rects, "battle_force_v0": battle_force_rects}


def board_map(game: str, core, legal) -> dict:
    """The places of the picture that name legal actions (pixels of the PNG): ``{"clickable": bool,
    "hex_radius": r, "hexes": [{"cell", "row", "col", "x", "y", "actions": [ids]}], "circles":
    [{"what", "x", "y", "r", "actions": [ids]}], "rects": [{"what", "x0", "y0", "x1", "y1", "actions": [ids]}]}``:
    hexes on a hex map, circles on a table, boxes (cards) on Battle Force's panels."""
    if game in CIRCLES:
        return {"clickable": True, "hexes": [], "circles": CIRCLES[game](core, legal), "rects": []}
    if game in RECTS:
        return {"clickable": True, "hexes": [], "circles": [], "rects": RECTS[game](core, legal)}
    if game not in ANCHORS:
        return {"clickable": False, "hexes": [], "circles": [], "rects": []}
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
    return {"clickable": True, "hex_radius": round(geometry.radius, 3), "hexes": hexes, "circles": [], "rects": []}
