"""The shared plane geometry (envs/core/geometry.py) that UnionWars measures with."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core import geometry as G

SQUARE = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]], np.float32)
CLOCKWISE = SQUARE[::-1].copy()


def test_edge_distance_is_base_edge_to_base_edge():
    assert G.edge_distance(0.0, 0.0, 1.0, 10.0, 0.0, 2.0) == pytest.approx(7.0)
    assert G.edge_distance(0.0, 0.0, 1.0, 2.0, 0.0, 2.0) < 0        # overlapping bases


@pytest.mark.parametrize("poly", [SQUARE, CLOCKWISE])
def test_point_in_and_distance_to_a_convex_polygon_either_winding(poly):
    assert G.point_in_polygon(5.0, 5.0, poly, 4)
    assert G.point_in_polygon(10.0, 5.0, poly, 4)                      # on an edge counts as inside
    assert not G.point_in_polygon(11.0, 5.0, poly, 4)
    assert G.point_polygon_distance(13.0, 14.0, poly, 4) == pytest.approx(5.0)
    assert G.point_polygon_within(10.5, 5.0, poly, 4, 1.0)
    assert not G.point_polygon_within(12.0, 5.0, poly, 4, 1.0)


def test_segments_and_polygons():
    assert G.segment_segment_intersect(0.0, 0.0, 2.0, 2.0, 0.0, 2.0, 2.0, 0.0)
    assert not G.segment_segment_intersect(0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0)
    assert G.segment_crosses_polygon(-5.0, 5.0, 15.0, 5.0, SQUARE, 4)   # straight through
    assert not G.segment_crosses_polygon(-5.0, 12.0, 15.0, 12.0, SQUARE, 4)
    assert G.segment_polygon_distance(-5.0, 12.0, 15.0, 12.0, SQUARE, 4) == pytest.approx(2.0)
    assert G.segment_polygon_within(-5.0, 12.0, 15.0, 12.0, SQUARE, 4, 2.5)
    assert not G.segment_polygon_within(-5.0, 12.0, 15.0, 12.0, SQUARE, 4, 1.5)
    t0, t1 = G.segment_polygon_span(-10.0, 5.0, 20.0, 5.0, SQUARE, 4)
    assert (t0, t1) == (pytest.approx(1 / 3), pytest.approx(2 / 3))
    t0, t1 = G.segment_polygon_span(-10.0, 20.0, 20.0, 20.0, SQUARE, 4)
    assert t0 > t1                                                     # misses


def test_bounding_box_gap_is_a_lower_bound():
    assert G.bbox_gap(13.0, 14.0, 13.0, 14.0, SQUARE, 4) == pytest.approx(5.0)
    assert G.bbox_gap(5.0, 5.0, 20.0, 20.0, SQUARE, 4) == 0.0


def test_swept_bases_and_sight_lines():
    # a base of radius 1 moving along y = 0 passes 1.5 cm from a base of radius 1 at (5, 3): gap 1 - ...
    assert G.swept_circle_hits_circle(0.0, 0.0, 10.0, 0.0, 1.0, 5.0, 3.0, 1.0, 1.5)
    assert not G.swept_circle_hits_circle(0.0, 0.0, 10.0, 0.0, 1.0, 5.0, 3.0, 1.0, 0.5)
    assert G.swept_circle_touches_polygon(-5.0, -1.5, 15.0, -1.5, 2.0, SQUARE, 4, 0.0)
    assert G.ray_hits_circle(0.0, 0.0, 10.0, 0.0, 5.0, 0.5, 1.0)
    assert not G.ray_hits_circle(0.0, 0.0, 10.0, 0.0, 5.0, 1.5, 1.0)
