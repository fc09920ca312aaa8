"""Plane geometry for games measured with a ruler (compiled, reusable).

Everything is in the table's units (UnionWars: centimetres, float32 state,
float64 arithmetic).  Models stand on round bases (circles); terrain pieces are
convex polygons given as ``(K, 2)`` vertex arrays in counter-clockwise or
clockwise order with ``n`` vertices used.  Distances between models are taken
from base edge to base edge, as skirmish rulebooks measure them.

Functions:

* ``edge_distance``: gap between two circles (negative when they overlap);
* ``point_segment_distance``: distance of a point from a segment;
* ``segment_segment_intersect``: do two closed segments meet;
* ``point_in_polygon``: is a point inside a convex polygon (edges included);
* ``point_polygon_distance``: 0 inside, else the distance to the nearest edge;
* ``circle_touches_polygon``: does a base overlap or touch a polygon;
* ``segment_crosses_polygon``: does a segment meet a polygon (inside or across);
* ``swept_circle_touches_polygon`` / ``swept_circle_hits_circle``: does a base
  moving along a segment meet a polygon or another base;
* ``bbox_gap``, ``segment_polygon_within``, ``point_polygon_within``: the same
  questions as thresholds, with a bounding-box rejection first (the hot paths);
* ``box_of``, ``box_gap`` and the ``*_boxed`` variants of the three tests above: the same
  rejection with the polygon's box computed once (``box_gap`` with a box from ``box_of`` equals ``bbox_gap``);
* ``segment_polygon_span``: the part (parameters t0..t1 in 0..1) of a segment
  inside a convex polygon, for "enters, leaves or crosses" tests;
* ``ray_hits_circle``: does a sight line pass through a base.
"""
from __future__ import annotations

import math

from .kernel import kernel

EPS = 1e-6


@kernel(cache=True, inline="always")
def edge_distance(ax, ay, ar, bx, by, br):
    return math.hypot(ax - bx, ay - by) - ar - br


@kernel(cache=True, inline="always")
def point_segment_distance(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    L2 = dx * dx + dy * dy
    t = 0.0
    if L2 > 0.0:
        t = ((px - ax) * dx + (py - ay) * dy) / L2
        t = min(1.0, max(0.0, t))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


@kernel(cache=True, inline="always")
def _cross(ax, ay, bx, by, cx, cy):
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@kernel(cache=True)
def segment_segment_intersect(ax, ay, bx, by, cx, cy, dx, dy):
    d1 = _cross(cx, cy, dx, dy, ax, ay)
    d2 = _cross(cx, cy, dx, dy, bx, by)
    d3 = _cross(ax, ay, bx, by, cx, cy)
    d4 = _cross(ax, ay, bx, by, dx, dy)
    if ((d1 > EPS and d2 < -EPS) or (d1 < -EPS and d2 > EPS)) and \
            ((d3 > EPS and d4 < -EPS) or (d3 < -EPS and d4 > EPS)):
        return True
    # touching and collinear cases: an end point on the other segment
    if point_segment_distance(ax, ay, cx, cy, dx, dy) <= EPS:
        return True
    if point_segment_distance(bx, by, cx, cy, dx, dy) <= EPS:
        return True
    if point_segment_distance(cx, cy, ax, ay, bx, by) <= EPS:
        return True
    if point_segment_distance(dx, dy, ax, ay, bx, by) <= EPS:
        return True
    return False


@kernel(cache=True)
def point_in_polygon(px, py, poly, n):
    """Convex polygon, either winding; points on an edge count as inside."""
    sign = 0
    for i in range(n):
        j = (i + 1) % n
        c = _cross(poly[i, 0], poly[i, 1], poly[j, 0], poly[j, 1], px, py)
        if c > EPS:
            if sign < 0:
                return False
            sign = 1
        elif c < -EPS:
            if sign > 0:
                return False
            sign = -1
    return True


@kernel(cache=True)
def point_polygon_distance(px, py, poly, n):
    if point_in_polygon(px, py, poly, n):
        return 0.0
    best = 1e30
    for i in range(n):
        j = (i + 1) % n
        d = point_segment_distance(px, py, poly[i, 0], poly[i, 1], poly[j, 0], poly[j, 1])
        if d < best:
            best = d
    return best


@kernel(cache=True)
def point_polygon_within(px, py, poly, n, d):
    """Is the point closer than ``d`` to the polygon (inside counts as 0)?  Boxes first."""
    if bbox_gap(px, py, px, py, poly, n) >= d:
        return False
    return point_polygon_distance(px, py, poly, n) < d


@kernel(cache=True)
def circle_touches_polygon(cx, cy, r, poly, n):
    return point_polygon_distance(cx, cy, poly, n) <= r + EPS


@kernel(cache=True, inline="always")
def bbox_gap(ax, ay, bx, by, poly, n):
    """A lower bound of the distance between segment a-b and the polygon: the gap between
    their bounding boxes (0 when the boxes overlap).  Cheap rejection for the exact tests."""
    x0, x1, y0, y1 = box_of(poly, n)
    return box_gap(ax, ay, bx, by, x0, x1, y0, y1)


@kernel(cache=True)
def box_of(poly, n):
    """The polygon's bounding box (x0, x1, y0, y1), for ``box_gap`` and the ``*_boxed`` tests."""
    px0, px1, py0, py1 = poly[0, 0], poly[0, 0], poly[0, 1], poly[0, 1]
    for i in range(1, n):
        px0 = min(px0, poly[i, 0])
        px1 = max(px1, poly[i, 0])
        py0 = min(py0, poly[i, 1])
        py1 = max(py1, poly[i, 1])
    return px0, px1, py0, py1


@kernel(cache=True, inline="always")
def box_gap(ax, ay, bx, by, x0, x1, y0, y1):
    """``bbox_gap`` against the box x0..x1, y0..y1 of ``box_of`` (the same arithmetic, the same result)."""
    gx = max(0.0, max(min(ax, bx) - x1, x0 - max(ax, bx)))
    gy = max(0.0, max(min(ay, by) - y1, y0 - max(ay, by)))
    return math.hypot(gx, gy)


@kernel(cache=True)
def point_polygon_within_boxed(px, py, poly, n, d, x0, x1, y0, y1):
    """``point_polygon_within`` with the polygon's box from ``box_of``."""
    if box_gap(px, py, px, py, x0, x1, y0, y1) >= d:
        return False
    return point_polygon_distance(px, py, poly, n) < d


@kernel(cache=True)
def segment_polygon_within_boxed(ax, ay, bx, by, poly, n, d, x0, x1, y0, y1):
    """``segment_polygon_within`` with the polygon's box from ``box_of``."""
    if box_gap(ax, ay, bx, by, x0, x1, y0, y1) >= d:
        return False
    return segment_polygon_distance(ax, ay, bx, by, poly, n) < d


@kernel(cache=True)
def segment_crosses_polygon_boxed(ax, ay, bx, by, poly, n, x0, x1, y0, y1):
    """``segment_crosses_polygon`` with the polygon's box from ``box_of``."""
    if box_gap(ax, ay, bx, by, x0, x1, y0, y1) > EPS:
        return False
    return segment_polygon_distance(ax, ay, bx, by, poly, n) <= EPS


@kernel(cache=True)
def segment_polygon_within(ax, ay, bx, by, poly, n, d):
    """Is the segment closer than ``d`` to the polygon (distance < d)?  Boxes first."""
    if bbox_gap(ax, ay, bx, by, poly, n) >= d:
        return False
    return segment_polygon_distance(ax, ay, bx, by, poly, n) < d


@kernel(cache=True)
def segment_polygon_distance(ax, ay, bx, by, poly, n):
    """0 when the segment meets the polygon, else the least distance between them."""
    if point_in_polygon(ax, ay, poly, n) or point_in_polygon(bx, by, poly, n):
        return 0.0
    best = 1e30
    for i in range(n):
        j = (i + 1) % n
        px, py, qx, qy = poly[i, 0], poly[i, 1], poly[j, 0], poly[j, 1]
        if segment_segment_intersect(ax, ay, bx, by, px, py, qx, qy):
            return 0.0
        best = min(best, point_segment_distance(px, py, ax, ay, bx, by),
                   point_segment_distance(ax, ay, px, py, qx, qy),
                   point_segment_distance(bx, by, px, py, qx, qy))
    return best


@kernel(cache=True)
def segment_crosses_polygon(ax, ay, bx, by, poly, n):
    if bbox_gap(ax, ay, bx, by, poly, n) > EPS:
        return False
    return segment_polygon_distance(ax, ay, bx, by, poly, n) <= EPS


@kernel(cache=True)
def swept_circle_touches_polygon(ax, ay, bx, by, r, poly, n, margin):
    """A base of radius ``r`` moving from a to b comes within ``margin`` of the polygon
    (``margin`` < 0 allows touching)."""
    return segment_polygon_distance(ax, ay, bx, by, poly, n) < r + margin


@kernel(cache=True)
def swept_circle_hits_circle(ax, ay, bx, by, r, cx, cy, cr, margin):
    """A base moving from a to b comes closer than ``margin`` (edge to edge) to a base at c."""
    return point_segment_distance(cx, cy, ax, ay, bx, by) < r + cr + margin


@kernel(cache=True)
def segment_polygon_span(ax, ay, bx, by, poly, n):
    """(t0, t1): the parameters of the segment a->b inside the convex polygon
    (Cyrus-Beck clipping); t0 > t1 when the segment misses it."""
    t0, t1 = 0.0, 1.0
    dx, dy = bx - ax, by - ay
    # orientation of the polygon: inside is to the left for counter-clockwise
    area = 0.0
    for i in range(n):
        j = (i + 1) % n
        area += poly[i, 0] * poly[j, 1] - poly[j, 0] * poly[i, 1]
    s = 1.0 if area > 0 else -1.0
    for i in range(n):
        j = (i + 1) % n
        ex, ey = poly[j, 0] - poly[i, 0], poly[j, 1] - poly[i, 1]
        # inward normal
        nx, ny = -ey * s, ex * s
        num = nx * (ax - poly[i, 0]) + ny * (ay - poly[i, 1])
        den = nx * dx + ny * dy
        if abs(den) < 1e-12:
            if num < 0:
                return 1.0, 0.0
            continue
        t = -num / den
        if den > 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return 1.0, 0.0
    return t0, t1


@kernel(cache=True, inline="always")
def ray_hits_circle(ax, ay, bx, by, cx, cy, cr):
    """The sight line a->b passes through the base at c (strictly inside its edge)."""
    return point_segment_distance(cx, cy, ax, ay, bx, by) < cr - EPS
