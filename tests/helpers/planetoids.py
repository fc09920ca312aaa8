"""Planetoids' shared test helpers (from tests/test_planetoids_rules.py): the default map's
planetoid hexes, the hex distance of RULES.md written out independently of the kernels, the
piece slots of the default reserve and the scenario builders ``pc`` and ``scen``.
"""
from __future__ import annotations

import json

from wargym.envs.planetoids import game as pgame

MAP = json.loads((pgame.DATA / "default_map.json").read_text())
PLANETOIDS = [(x[0], x[1]) for x in MAP["planetoids"]]


def cube(rc):
    r, c = rc
    x = c - (r - (r & 1)) // 2
    return x, r, -x - r


def hexdist(a, b):
    return max(abs(p - q) for p, q in zip(cube(a), cube(b)))


# Piece slots with the default reserve (4 cruisers, 4 transports, 12 fighters).
BASE_A, BASE_B, CRU, TRA, FIG = 0, 1, 2, 6, 10


def pc(player, kind, hex=None, facing="E", damage=0, status="map"):
    d = {"player": player, "kind": kind, "facing": facing, "damage": damage, "status": status}
    if hex is not None:
        d["hex"] = list(hex)
    return d


def scen(pieces=(), turn=0, to_move=0, **kw):
    return {"turn": turn, "to_move": to_move, "pieces": list(pieces), **kw}
