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
    other = server.handle({"v": 1, "type": "new_match", "game": "battle_force_v1", "seed": 1, "legal": True})
    m = server.match_board_map(other["match"])
    assert m["clickable"] and m["rects"] and {a for r in m["rects"] for a in r["actions"]} <= \
        {a["action"] for a in other["legal"]}


def test_union_wars_circles_are_where_the_renderer_draws_the_models(monkeypatch):
    """Union Wars' table: each model circle is centred on the disc the renderer draws for it, each
    lattice spot on its 10 cm cell (UW deployment and objectives: "spot (x, y) cm")."""
    from wargym.envs import union_wars_v2
    from wargym.envs.union_wars import render as uw_render
    env = union_wars_v2.raw_env()
    env.reset(seed=1)
    rng = np.random.default_rng(2)
    kinds = set()
    for _ in range(300):
        if env.core.terminated[0] or env.core.truncated[0]:
            break
        legal = env.legal_actions()
        circles = board.board_map("union_wars_v2", env.core, legal)["circles"]
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


# -- Battle Force: boxes on the card panels ---------------------------------------------------
def drawn_battle_force(monkeypatch, core):
    """What ``render_rgb`` draws for the player to decide, in the final picture's pixels: the action
    cards {(card id, x, y)}, the ship cards {(ship, x, y, w, h)} (the pool's compact cards by the
    '#i' under them), the damage spaces {(kind text or 'o', centre x, centre y)}, the deck's back."""
    from PIL import ImageDraw

    from wargym.envs.battle_force import render as V
    ss = V.SS
    cards, ships, texts, ellipses, backs = set(), set(), [], [], []
    original_card, original_ship, original_back = V._draw_action_card, V._draw_ship_card, V._draw_card_back

    def card(pt, cv, x, y, *a, **kw):
        cards.add((cv.id, round(x / ss, 2), round(y / ss, 2)))
        return original_card(pt, cv, x, y, *a, **kw)

    def ship(pt, s, x, y, owner_rgb, k=1.0):
        if not s.hidden:
            ships.add((s.i, round(x / ss, 2), round(y / ss, 2), round(V.CARD_W * k, 2), round(V.CARD_H * k, 2)))
        return original_ship(pt, s, x, y, owner_rgb, k)

    def back(pt, x, y, *a, **kw):
        backs.append((round(x / ss, 2), round(y / ss, 2)))
        return original_back(pt, x, y, *a, **kw)

    original_text, original_ellipse = V._Painter.text, ImageDraw.ImageDraw.ellipse

    def text(self, xy, s, *a, **kw):
        texts.append((s, xy[0] / ss, xy[1] / ss))
        return original_text(self, xy, s, *a, **kw)

    def ellipse(self, box, *a, **kw):
        ellipses.append(tuple(c / ss for c in box))
        return original_ellipse(self, box, *a, **kw)
    monkeypatch.setattr(V, "_draw_action_card", card)
    monkeypatch.setattr(V, "_draw_ship_card", ship)
    monkeypatch.setattr(V, "_draw_card_back", back)
    monkeypatch.setattr(V._Painter, "text", text)
    monkeypatch.setattr(ImageDraw.ImageDraw, "ellipse", ellipse)
    try:
        V.render(core, 0, "rgb_array", int(core.current_player[0]))
    finally:
        monkeypatch.undo()
    return cards, ships, texts, ellipses, backs


def assert_box_drawn(box, drawn, name):
    """SFBF's pieces where the renderer draws them: a card box on a drawn card, a ship box on a drawn
    ship card (or a pool card with its '#i'), a damage space on a drawn space of its kind."""
    from wargym.envs.battle_force import game as BG
    from wargym.envs.battle_force import render as V
    cards, ships, texts, ellipses, backs = drawn
    x0, y0, x1, y1 = box["x0"], box["y0"], box["x1"], box["y1"]
    if box["what"] == "card":
        assert (box["card"], x0, y0) in cards and (x1 - x0, y1 - y0) == (V.ACT_W, V.ACT_H)
        assert name.startswith(f"card {box['card']} (")
    elif box["what"] == "ship":
        assert name.startswith(f"ship {box['ship']} (")
        on_panel = any(s[0] == box["ship"] and abs(s[1] - x0) < 0.01 and abs(s[2] - y0) < 0.01
                       and abs(s[3] - (x1 - x0)) < 0.02 and abs(s[4] - (y1 - y0)) < 0.02 for s in ships)
        in_pool = any(t == f"#{box['ship']}" and abs(x - (x0 + x1) / 2) < 0.01 and abs(y - (y1 - 7)) < 0.01
                      for t, x, y in texts)
        assert on_panel or in_pool, box
    elif box["what"] == "space":
        assert name == f"damage space: {BG.SPACE_KINDS[box['kind']]}"
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if V.SPACE_ABBR[box["kind"]] == "o":   # a circle space is a circle, with no text
            assert any(abs(e[0] - x0) < 0.01 and abs(e[1] - y0) < 0.01 and abs(e[2] - x1) < 0.01 for e in ellipses)
        else:
            assert any(t == V.SPACE_ABBR[box["kind"]] and abs(x - cx) < 0.01 and abs(y - cy) < 0.01
                       for t, x, y in texts), box
    elif box["what"] == "deck":
        assert (x0, y0) in backs and name == "draw from the action deck"
    else:
        assert box["what"] == "discard pile"
        assert name in ("draw the top discard", "put the card on the discard pile") or name.startswith("card ")
        assert (x0 - backs[0][0], y0 - backs[0][1]) == (V.ACT_W + 14, 0)


@pytest.mark.parametrize("players, options, kinds_seen", [
    (2, {}, {"card", "ship", "space", "deck", "discard pile"}), (5, {}, {"card", "ship", "space", "discard pile"}),
    (4, {"game": "basic"}, {"card", "ship", "space"}), (3, {"ship_selection": "draft"}, {"card", "ship", "space"})])
def test_battle_force_boxes_are_where_the_renderer_draws_the_cards(monkeypatch, players, options, kinds_seen):
    """Every card, ship and damage-space box names legal actions that pick that card, ship or space
    (and only those), and sits where ``render_rgb`` draws it for the player to decide; every legal
    action that picks a card or ship the picture shows has a box.  (Random legal play, seeded; the
    draft shows the ship pool.)"""
    from wargym.envs import battle_force_v1
    env = battle_force_v1.raw_env(players=players, **options)
    env.reset(seed=players)
    rng = np.random.default_rng(3)
    kinds = set()
    for _ in range(100):
        if env.core.terminated[0] or env.core.truncated[0]:
            break
        legal = {int(a) for a in env.legal_actions()}
        boxes = board.board_map("battle_force_v1", env.core, sorted(legal))["rects"]
        drawn = drawn_battle_force(monkeypatch, env.core)
        named = set()
        for box in boxes:
            kinds.add(box["what"])
            assert box["actions"] and set(box["actions"]) <= legal
            for a in box["actions"]:
                assert_box_drawn(box, drawn, env.action_name(a))
            named |= set(box["actions"])
        shown_cards = {c for c, _x, _y in drawn[0]}
        shown_ships = {s[0] for s in drawn[1]} | {int(t[1:]) for t, _x, _y in drawn[2] if t[:1] == "#" and t[1:].isdigit()}
        for a in legal - named:
            name = env.action_name(a)
            assert not (name.startswith("card ") and int(name.split()[1]) in shown_cards), name
            assert not (name.startswith("ship ") and int(name.split()[1]) in shown_ships), name
        env.step(int(rng.choice(sorted(legal))))
    assert kinds_seen <= kinds
