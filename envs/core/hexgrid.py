"""Hex-map geometry shared by every hex game in wargym (Planetoids, Talon).

Cells live in a rectangular array of ``rows x cols`` stored row-major, with
pointy-top hexes in the *odd-r* offset layout: odd rows sit half a hex to the
right.  A game may switch cells off (``valid == False``) to get a map whose
rows alternate in length, which is what a point-symmetric board needs.

Directions are numbered counter-clockwise from east::

    0 = E, 1 = NE, 2 = NW, 3 = W, 4 = SW, 5 = SE

so ``(d + 3) % 6`` is the opposite direction.  Everything a kernel needs is a
plain numpy array (``neighbors``, ``distance``) so it can be passed to Numba.
"""
from __future__ import annotations

import numpy as np

from .kernel import kernel

DIRECTION_NAMES = ("E", "NE", "NW", "W", "SW", "SE")

# (d_row, d_col) for even rows and for odd rows, per direction.
_EVEN_ROW = ((0, 1), (-1, 0), (-1, -1), (0, -1), (1, -1), (1, 0))
_ODD_ROW = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, 0), (1, 1))


class HexGrid:
    """Static geometry of one map: neighbour table and hex distances."""

    def __init__(self, rows: int, cols: int, valid: np.ndarray | None = None):
        if rows < 1 or cols < 1:
            raise ValueError(f"hex grid needs positive size, got {rows}x{cols}")
        self.rows, self.cols = rows, cols
        self.n_cells = rows * cols
        if valid is None:
            valid = np.ones(self.n_cells, dtype=np.bool_)
        self.valid = np.asarray(valid, dtype=np.bool_).reshape(self.n_cells)
        self.neighbors = self._neighbor_table()
        self.distance = self._distance_table()

    # -- coordinates -------------------------------------------------------
    def cell(self, row: int, col: int) -> int:
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"hex ({row}, {col}) is outside the {self.rows}x{self.cols} map")
        c = row * self.cols + col
        if not self.valid[c]:
            raise ValueError(f"hex ({row}, {col}) is not part of the map")
        return c

    def row_col(self, cell: int) -> tuple[int, int]:
        return divmod(int(cell), self.cols)

    def cube(self, cell: int) -> tuple[int, int, int]:
        r, c = self.row_col(cell)
        x = c - (r - (r & 1)) // 2
        return x, r, -x - r

    def center(self, cell: int) -> tuple[float, float]:
        """Centre in hex-width units (x to the right, y down), for renderers."""
        r, c = self.row_col(cell)
        return c + 0.5 * (r & 1), r * 0.8660254037844386

    # -- tables ------------------------------------------------------------
    def _neighbor_table(self) -> np.ndarray:
        nbr = np.full((self.n_cells, 6), -1, dtype=np.int32)
        for cell in range(self.n_cells):
            if not self.valid[cell]:
                continue
            r, c = divmod(cell, self.cols)
            deltas = _ODD_ROW if r & 1 else _EVEN_ROW
            for d, (dr, dc) in enumerate(deltas):
                rr, cc = r + dr, c + dc
                if 0 <= rr < self.rows and 0 <= cc < self.cols and self.valid[rr * self.cols + cc]:
                    nbr[cell, d] = rr * self.cols + cc
        return nbr

    def _distance_table(self) -> np.ndarray:
        cubes = np.array([self.cube(c) for c in range(self.n_cells)], dtype=np.int32)
        diff = np.abs(cubes[:, None, :] - cubes[None, :, :])
        dist = diff.max(axis=2).astype(np.int16)
        dist[~self.valid, :] = -1
        dist[:, ~self.valid] = -1
        return dist

    def path_distances(self, blocked: np.ndarray, enter_blocked_last: bool = True) -> np.ndarray:
        """All-pairs shortest path lengths that never pass *through* a blocked cell.

        With ``enter_blocked_last`` a path may end on a blocked cell (a shot at a
        base sitting on an obstacle).  Unreachable pairs get a large value.
        """
        return _all_pairs_bfs(self.neighbors, self.valid, np.asarray(blocked, np.bool_), enter_blocked_last)

    def line_orders(self) -> np.ndarray:
        """``order[d]``: every cell once, each after its neighbour in direction ``d``.

        Walking ``order[d]`` a kernel can compute, for all cells in one pass, how
        far a straight line in direction ``d`` runs before it hits something
        (each cell's run is its neighbour's plus one).  Built by walking every
        line backwards from the cell where it leaves the map."""
        order = np.empty((6, self.n_cells), dtype=np.int32)
        for d in range(6):
            n = 0
            for end in np.flatnonzero(self.neighbors[:, d] < 0):
                c = end
                while c >= 0:
                    order[d, n] = c
                    n += 1
                    c = self.neighbors[c, (d + 3) % 6]
            if n != self.n_cells or len(np.unique(order[d])) != self.n_cells:  # neighbours must be symmetric
                raise AssertionError(f"direction {d}: lines do not cover the map once")
        return order


@kernel(cache=True)
def _all_pairs_bfs(nbr, valid, blocked, enter_blocked_last):
    n = nbr.shape[0]
    far = np.int16(999)
    out = np.full((n, n), far, dtype=np.int16)
    queue = np.empty(n, dtype=np.int32)
    for src in range(n):
        if not valid[src]:
            continue
        out[src, src] = 0
        head, tail = 0, 0
        queue[tail] = src
        tail += 1
        while head < tail:
            c = queue[head]
            head += 1
            # A path may not continue out of a blocked cell (the source excepted).
            if blocked[c] and c != src:
                continue
            for d in range(6):
                m = nbr[c, d]
                if m < 0 or out[src, m] != far:
                    continue
                if blocked[m] and not enter_blocked_last:
                    continue
                out[src, m] = out[src, c] + 1
                queue[tail] = m
                tail += 1
    return out
