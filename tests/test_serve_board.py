"""Clicks on the board of ``wargym serve``'s page (issue 17: "clickable on the board"): the hex
centres that ``serve/board.py`` gives are the ones the renderers paint, and each hex names the
actions that act on it (a move's hex is where the piece or ship ends up)."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs import planetoids_v0, talon_v0
from wargym.envs.planetoids import game as G
from wargym.envs.planetoids import render as planetoids_render
from wargym.envs.planetoids import rules as P
from wargym.envs.talon import layout as TL
from wargym.envs.talon import render as talon_render
from wargym.serve import board
from wargym.serve.session import Server


def painted_hexagons(monkeypatch, render_module, core) -> np.ndarray:
    """(x, y, width) of every hexagon the renderer paints, in the picture's pixels."""
    seen = []
    original = render_module._Painter.hexagon

    def record(self, cx, cy, w, *args, **kwargs):
        seen.append((cx / render_module.SS, cy / render_module.SS, w / render_module.SS))
        return original(self, cx, cy, w, *args, **kwargs)
    monkeypatch.setattr(render_module._Painter, "hexagon", record)
    render_module.render(core, 0, "rgb_array", 0)
    return np.array(seen)


def assert_centres_painted(painted, geometry, cells):
    for c in cells:
        x, y = geometry.centre(c)
        hit = (np.abs(painted[:, 0] - x) < 1e-6) & (np.abs(painted[:, 1] - y) < 1e-6)
        assert hit.any(), f"cell {c}: no hexagon painted at ({x:.2f}, {y:.2f})"
        assert np.isclose(painted[hit, 2], geometry.w / geometry.ss).any()


def test_planetoids_hex_centres_are_the_painted_ones(monkeypatch):
    env = planetoids_v0.raw_env()
    env.reset(seed=1)
    v = planetoids_render.snapshot(env.core, 0)
    painted = painted_hexagons(monkeypatch, planetoids_render, env.core)
    assert_centres_painted(painted, board.planetoids_geometry(v.rows, v.cols), np.flatnonzero(v.valid))


@pytest.mark.parametrize("rows, cols", [(18, 16), (12, 34), (40, 14)])
def test_talon_hex_centres_are_the_painted_ones(monkeypatch, rows, cols):
    """(the hex size follows the map's width or its height, whichever binds)"""
    env = talon_v0.raw_env(options={"map_rows": rows, "map_cols": cols})
    env.reset(seed=1)
    v = talon_render.snapshot(env.core, 0)
    painted = painted_hexagons(monkeypatch, talon_render, env.core)
    assert_centres_painted(painted, board.talon_geometry(v.rows, v.cols), range(v.rows * v.cols))


def play_and_check(env, game, check, decisions):
    """Random legal play (seeded); ``check(env, action, cells)`` for every anchored legal action."""
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(decisions):
        if env.core.terminated[0] or env.core.truncated[0]:
            break
        legal = env.legal_actions()
        _geometry, anchors = board.ANCHORS[game](env.core, legal)
        assert set(anchors) <= {int(a) for a in legal}
        for a, cells in anchors.items():
            checked += check(env, a, cells)
        env.step(int(rng.choice(legal)))
    return checked


def test_talon_a_move_is_anchored_where_the_ship_ends_up():
    env = talon_v0.raw_env()
    env.reset(seed=4)
    k = env.core.cfg.k

    def check(env, a, cells):
        if not k[TL.K_A_MOVE] <= a < k[TL.K_A_FIRE_SHIP]:
            return 0
        p = int(env.core.current_player[0])
        ship = (a - k[TL.K_A_MOVE]) // TL.N_MOVES
        saved = env.clone_state()
        env.step(a)   # Talon 7.2.1 / 7.3.1; an anchored move never needs the map to move (7.5)
        assert [int(env.core.state.sh[0, p, ship, TL.SH_CELL])] == cells, env.action_name(a)
        env.set_state(saved)
        return 1
    assert play_and_check(env, "talon_v0", check, 120) > 20


def test_planetoids_anchors_follow_the_pieces():
    env = planetoids_v0.raw_env()
    env.reset(seed=4)
    lay = G.layout(env.core.cfg)

    def check(env, a, cells):
        st = env.core.state
        p = int(env.core.current_player[0])
        if a < lay.a_target:      # select own piece a: its hexes, its anchor hex among them
            assert int(st.pc[0, p, a, P.PC_POS]) in cells
        elif lay.a_hex <= a < lay.a_move:
            assert cells == [a - lay.a_hex]
        elif lay.a_move <= a < lay.a_face:   # move one hex: where the active piece goes
            i = int(st.g[0, P.G_ACTIVE])
            saved = env.clone_state()
            env.step(a)
            assert [int(env.core.state.pc[0, p, i, P.PC_POS])] == cells, env.action_name(a)
            env.set_state(saved)
        return 1
    assert play_and_check(env, "planetoids_v0", check, 150) > 50


def test_the_server_gives_the_map_of_the_clients_turn_only():
    server = Server()
    reply = server.handle({"v": 1, "type": "new_match", "game": "talon_v0", "seed": 7, "legal": True})
    assert reply["ok"] and reply["your_turn"]
    m = server.match_board_map(reply["match"])
    assert m["clickable"] and m["seq"] == reply["seq"] and m["state_hash"] == reply["state_hash"]
    legal = {a["action"] for a in reply["legal"]}
    named = {a for h in m["hexes"] for a in h["actions"]}
    assert named and named <= legal
    other = server.handle({"v": 1, "type": "new_match", "game": "battle_force_v0", "seed": 1})
    assert server.match_board_map(other["match"])["clickable"] is False


def test_union_wars_circles_are_where_the_renderer_draws_the_models(monkeypatch):
    """Union Wars' table: each model circle is centred on the disc the renderer draws for it, each
    lattice spot on its 10 cm cell (UW deployment and objectives: "spot (x, y) cm")."""
    from wargym.envs import union_wars_v0
    from wargym.envs.union_wars import render as uw_render
    env = union_wars_v0.raw_env()
    env.reset(seed=1)
    rng = np.random.default_rng(2)
    kinds = set()
    for _ in range(300):
        if env.core.terminated[0] or env.core.truncated[0]:
            break
        legal = env.legal_actions()
        circles = board.board_map("union_wars_v0", env.core, legal)["circles"]
        assert {a for c in circles for a in c["actions"]} <= {int(a) for a in legal}
        discs = []
        original = uw_render._disc
        monkeypatch.setattr(uw_render, "_disc", lambda img, cx, cy, r, *a, **k: (discs.append((cx, cy)),
                                                                                  original(img, cx, cy, r, *a, **k)))
        uw_render.render(env.core, 0, "rgb_array", int(env.core.current_player[0]))
        monkeypatch.undo()
        for c in circles:
            kinds.add(c["what"])
            if c["what"] == "model":
                assert any(abs(c["x"] - x) < 0.01 and abs(c["y"] - y) < 0.01 for x, y in discs)
            else:
                name = env.action_name(c["actions"][0])   # "spot (x, y) cm"
                x_cm, y_cm = (int(v) for v in name[name.index("(") + 1:name.index(")")].split(","))
                size = 120 * uw_render.SCALE + 2 * uw_render.MARGIN    # the 120 cm table
                assert (c["x"], c["y"]) == (uw_render.MARGIN + uw_render.SCALE * x_cm,
                                            size - uw_render.MARGIN - uw_render.SCALE * y_cm)
        env.step(int(rng.choice(legal)))
    assert kinds == {"model", "spot"}
