"""ANSI summary and a top-down ``rgb_array`` drawing of the table."""
from __future__ import annotations

import math

import numpy as np

from . import layout as L

SCALE = 5          # pixels per cm
MARGIN = 10
SIDE_COLOURS = ((40, 90, 220), (200, 40, 40))
TERRAIN_COLOURS = {L.T_ROUGH: (150, 190, 110), L.T_IMPASSABLE: (110, 100, 90)}


def _model_lines(core, b, viewer):
    s, cfg = core.state, core.cfg
    out = []
    for side in range(2):
        for i in range(L.N_SLOTS):
            st = int(s.md[b, side, i, L.MD_STATUS])
            if st == L.ABSENT:
                continue
            f = int(s.md[b, side, i, L.MD_FLAGS])
            if side != viewer and f & L.F_HIDDEN:
                out.append(f"  p{side} #{i}: hidden")
                continue
            name = cfg.profile_names[int(s.md[b, side, i, L.MD_PROFILE])][1]
            x, y, fa = (float(v) for v in s.pos[b, side, i])
            marks = [n for n, bit in (("hidden", L.F_HIDDEN), ("alert", L.F_ALERT), ("down", L.F_PRONE),
                                      ("suppressed", L.F_SUPPRESSED), ("engaged", L.F_ENGAGED)) if f & bit]
            cmd = " (commander)" if int(s.g[b, L.G_CMD0 + side]) == i else ""
            fs = int(cfg.pf[int(s.md[b, side, i, L.MD_PROFILE]), L.PF_FS])
            out.append(f"  p{side} #{i} {name}{cmd}: {L.STATUS_NAMES[st]}"
                       + (f" at ({x:.1f}, {y:.1f}) facing {math.degrees(fa) % 360:.0f}°" if st in (L.ACTIVE, L.OOC) else "")
                       + f", wounds {int(s.md[b, side, i, L.MD_WOUNDS])}/{fs}, morale {int(s.md[b, side, i, L.MD_MORALE])},"
                       f" fatigue {int(s.md[b, side, i, L.MD_FATIGUE])}, CAR {int(s.md[b, side, i, L.MD_CAR])}"
                       + (f" [{', '.join(marks)}]" if marks else ""))
    return out


def ansi(core, b, viewer=0) -> str:
    g = core.state.g[b]
    head = (f"UnionWars — mission {L.MISSION_NAMES[int(g[L.G_MISSION])]}, turn {int(g[L.G_TURN]) + 1}/"
            f"{int(g[L.G_MAX_TURNS])}, active player {int(g[L.G_ACTIVE])}, stage {L.STAGE_NAMES[int(g[L.G_STAGE])]}"
            f" (player {int(g[L.G_DECIDER])} decides)")
    if g[L.G_DONE]:
        w = int(g[L.G_WINNER])
        head += f" — over: {'draw' if w == 2 else f'player {w} wins'}"
    if g[L.G_STAGE] in (L.ST_TARGET, L.ST_REACT, L.ST_REACT_KIND, L.ST_COUNTERMOVE, L.ST_FACING):
        head += f"\n  declared: {L.ACTION_NAMES[int(g[L.G_ACT])]} by p{int(g[L.G_ACTOR_SIDE])} #{int(g[L.G_ACTOR])}"
        if g[L.G_TGT] >= 0:
            head += f" at #{int(g[L.G_TGT])}"
    if g[L.G_STAGE] == L.ST_BANK:
        bk = core.state.bk[b]
        name, kind, margin = L.TEST_NAMES[int(bk[L.BK_KIND])], int(bk[L.BK_KIND]), int(bk[L.BK_MARGIN])
        who = f"p{int(bk[L.BK_ROLLER])}" + (f" #{int(bk[L.BK_SLOT])}" if bk[L.BK_SLOT] >= 0 else "")
        owner, points = int(bk[L.BK_OWNER]), int(bk[L.BK_NEED])
        if kind >= L.TK_FIRST_AMOUNT:
            side = "for" if bk[L.BK_OWNER] == bk[L.BK_ROLLER] else "against"
            head += (f"\n  ESPLORAZIONE: {who}'s {name} rolled {margin}; player {owner} may spend up to "
                     f"{points} bank points to move it {side} the roller")
        else:
            outcome = "passed" if margin >= 0 else "failed"
            if kind == L.TK_ROLLOFF:
                what = f"{name} won by p{0 if margin >= 0 else 1}"
            elif bk[L.BK_ROLLER] == L.ROLLER_NONE:
                what = f"the game's {name} {outcome}"
            else:
                what = f"{who}'s {name} {outcome}"
            head += (f"\n  ESPLORAZIONE: {what} by {abs(margin)}; player {owner} may spend {points} bank points "
                     "to turn it")
    n_t = int((core.state.tinfo[b, :, L.TI_KIND] != 0).sum())
    return "\n".join([head, f"  terrain pieces: {n_t}; exploration bank {int(g[L.G_BANK0])}/{int(g[L.G_BANK1])}"]
                     + _model_lines(core, b, viewer))


def _fill_polygon(img, pts, colour):
    h, w, _ = img.shape
    xs, ys = pts[:, 0], pts[:, 1]
    x0, x1 = max(0, int(xs.min())), min(w - 1, int(xs.max()) + 1)
    y0, y1 = max(0, int(ys.min())), min(h - 1, int(ys.max()) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = np.ones(xx.shape, bool)
    n = len(pts)
    sign = None
    for k in range(n):
        ax, ay = pts[k]
        bx, by = pts[(k + 1) % n]
        c = (bx - ax) * (yy - ay) - (by - ay) * (xx - ax)
        inside &= (c >= 0) if (sign is None or sign) else (c <= 0)
        if sign is None:
            area = sum(pts[q][0] * pts[(q + 1) % n][1] - pts[(q + 1) % n][0] * pts[q][1] for q in range(n))
            sign = area >= 0
            inside = np.ones(xx.shape, bool) & ((c >= 0) if sign else (c <= 0))
    img[y0:y1, x0:x1][inside] = colour


def _disc(img, cx, cy, r, colour, ring=False):
    h, w, _ = img.shape
    x0, x1 = max(0, int(cx - r - 1)), min(w, int(cx + r + 2))
    y0, y1 = max(0, int(cy - r - 1)), min(h, int(cy + r + 2))
    if x1 <= x0 or y1 <= y0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d = np.hypot(xx - cx, yy - cy)
    sel = (np.abs(d - r) < 0.8) if ring else (d <= r)
    img[y0:y1, x0:x1][sel] = colour


def _line(img, x0, y0, x1, y1, colour):
    n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
    xs = np.linspace(x0, x1, n).astype(int)
    ys = np.linspace(y0, y1, n).astype(int)
    ok = (xs >= 0) & (ys >= 0) & (xs < img.shape[1]) & (ys < img.shape[0])
    img[ys[ok], xs[ok]] = colour


def rgb(core, b, viewer=0) -> np.ndarray:
    s, cfg = core.state, core.cfg
    size = int(L.TABLE_CM * SCALE) + 2 * MARGIN
    img = np.full((size, size, 3), 235, np.uint8)
    img[MARGIN:size - MARGIN, MARGIN:size - MARGIN] = (215, 205, 170)

    def px(x, y):   # table y grows upward on screen
        return MARGIN + x * SCALE, size - MARGIN - y * SCALE
    for t in range(L.T_MAX):
        kind = int(s.tinfo[b, t, L.TI_KIND])
        if kind == L.T_NONE:
            continue
        n = int(s.tinfo[b, t, L.TI_NVERT])
        pts = np.array([px(*s.terr[b, t, v]) for v in range(n)], float)
        colour = TERRAIN_COLOURS[kind]
        if s.tinfo[b, t, L.TI_EXPLORED]:
            colour = tuple(min(255, c + 40) for c in colour)
        _fill_polygon(img, pts, colour)
    for q in range(L.MAX_OBJ):
        if s.objs[b, q, 2] > 0:
            _disc(img, *px(s.objs[b, q, 0], s.objs[b, q, 1]), 6, (230, 200, 0))
    for q in range(L.MAX_SMOKE):
        if s.smoke[b, q, 2] > 0:
            _disc(img, *px(s.smoke[b, q, 0], s.smoke[b, q, 1]), 4 * SCALE, (200, 200, 200))
    for side in range(2):
        for i in range(L.N_SLOTS):
            st = int(s.md[b, side, i, L.MD_STATUS])
            if st not in (L.ACTIVE, L.OOC):
                continue
            f = int(s.md[b, side, i, L.MD_FLAGS])
            if side != viewer and f & L.F_HIDDEN:
                continue
            p = int(s.md[b, side, i, L.MD_PROFILE])
            r = cfg.pf[p, L.PF_RADIUS_MM] / 20.0 * SCALE
            cx, cy = px(s.pos[b, side, i, 0], s.pos[b, side, i, 1])
            ctrl = (2 * cfg.pf[p, L.PF_SN]) * SCALE + r
            if st == L.ACTIVE and not f & L.F_ENGAGED:
                _disc(img, cx, cy, ctrl, tuple(int(0.5 * c + 0.5 * 200) for c in SIDE_COLOURS[side]), ring=True)
            colour = SIDE_COLOURS[side] if st == L.ACTIVE else (90, 90, 90)
            _disc(img, cx, cy, r, colour)
            fa = float(s.pos[b, side, i, 2])
            _line(img, cx, cy, cx + 1.6 * r * math.cos(fa), cy - 1.6 * r * math.sin(fa), (255, 255, 255))
            if f & L.F_PRONE:
                _disc(img, cx, cy, r * 0.4, (0, 0, 0))
            if f & L.F_SUPPRESSED:
                _disc(img, cx, cy, r + 2, (255, 140, 0), ring=True)
    if s.geo[b, L.GEO_SHOT + 4]:
        x0, y0 = px(s.geo[b, L.GEO_SHOT + 0], s.geo[b, L.GEO_SHOT + 1])
        x1, y1 = px(s.geo[b, L.GEO_SHOT + 2], s.geo[b, L.GEO_SHOT + 3])
        _line(img, x0, y0, x1, y1, (255, 0, 200))
    return img


def render(core, b: int, mode: str, viewer: int = 0):
    if mode == "ansi":
        return ansi(core, b, viewer)
    return rgb(core, b, viewer)
