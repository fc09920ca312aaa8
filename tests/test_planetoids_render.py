"""The Planetoids renderer: text board, RGB frame, PettingZoo's render_test."""
import numpy as np
import pytest

from wargym.envs import planetoids_v0
from wargym.envs.planetoids import render as prender
from wargym.envs.planetoids import rules

SCENARIO = {
    "turn": 4, "to_move": 0,
    "pieces": [
        {"player": 0, "kind": "cruiser", "hex": [4, 3], "facing": "E"},
        {"player": 0, "kind": "transport", "hex": [2, 9], "facing": "SW", "damage": 2},
        {"player": 0, "kind": "fighter", "hex": [5, 3]},
        {"player": 0, "kind": "fighter", "hex": [5, 3]},
        {"player": 0, "kind": "cruiser", "status": "hyper"},
        {"player": 1, "kind": "fighter", "hex": [4, 12]},
        {"player": 1, "kind": "base", "hex": [2, 19], "damage": 3},
    ],
    "fixed_bases": [{"player": 0, "hex": [4, 10], "hits": 1}],
    "blocked": [{"hex": [3, 9], "by": 1}],
}


def _random_play(env, n, seed=0, every=25):
    """Play up to n random legal moves, rendering every few moves."""
    rng = np.random.default_rng(seed)
    frames = [env.render()]
    for t in range(n):
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if t % every == every - 1:
            frames.append(env.render())
    frames.append(env.render())
    return frames


def _map_cell(text, row, col):
    """The two characters drawn for hex (row, col) on the ANSI board."""
    line = next(ln for ln in text.splitlines() if ln.startswith(f"{row:2d}  "))
    start = 4 + (row & 1) + 2 * col
    return line.ljust(start + 2)[start:start + 2]  # board lines carry no trailing blanks


def test_ansi_random_play():
    env = planetoids_v0.env(render_mode="ansi")
    env.reset(seed=0)
    for text in _random_play(env, 200):
        assert isinstance(text, str) and text.strip()
        assert "Planetoids  turn " in text and "/51" in text
        assert "score" in text and "reserve" in text and "Legend" in text
        assert max(len(line) for line in text.splitlines()) <= 80
    env.close()


def test_rgb_random_play():
    env = planetoids_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    frames = _random_play(env, 200, every=100)
    for frame in frames:
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
        assert frame.ndim == 3 and frame.shape[2] == 3
        assert 900 <= frame.shape[1] <= 1100 and 400 <= frame.shape[0] <= 900
        assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 50
    assert frames[0].shape == frames[-1].shape
    env.close()


def test_pettingzoo_render_test(monkeypatch):
    from pettingzoo.test import render_test
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    render_test(planetoids_v0.env)


def test_scenario_ansi_shows_pieces():
    env = planetoids_v0.env(render_mode="ansi")
    env.reset(seed=0, options={"scenario": SCENARIO})
    text = env.render()
    assert _map_cell(text, 4, 3) == "C" + prender.ARROWS[0]   # bow, facing east
    assert _map_cell(text, 4, 2) == "C "                      # stern
    assert _map_cell(text, 4, 12) == "f "                     # player 1 fighter
    assert _map_cell(text, 5, 3) == "2F"                      # two fighters stacked
    assert _map_cell(text, 2, 9) == "T" + prender.ARROWS[4]   # transport bow, facing SW
    assert _map_cell(text, 1, 9) == "T2"                      # its stern, with 2 damage
    assert _map_cell(text, 2, 19) == "b3"                     # damaged player 1 base anchor
    assert _map_cell(text, 4, 10) == "Sb"                     # fixed base on a (hidden) blue planetoid
    assert _map_cell(text, 3, 9) == "X "                      # blocked hex
    # terrain, read back from the map tables
    core = env.unwrapped.core
    lay = core.game.layout(core.cfg)
    colour = int(core.cfg.colour_seq[SCENARIO["turn"]])
    occupied = {(4, 3), (4, 2), (4, 12), (5, 3), (2, 9), (1, 9), (4, 10), (3, 9), (2, 19), (2, 18), (1, 18)}
    for cell in range(lay.rows * lay.cols):
        rc = divmod(cell, lay.cols)
        if not lay.valid[cell] or rc in occupied:
            continue
        if lay.terrain[cell] == rules.ASTEROID:
            assert _map_cell(text, *rc) == "# "
        elif lay.terrain[cell] == rules.PLANET:
            assert _map_cell(text, *rc) == ("H " if lay.home_owner[cell] == 0 else "h ")
        elif lay.planetoid_at[cell] >= 0:
            c = int(lay.planetoid_colour[lay.planetoid_at[cell]])
            assert _map_cell(text, *rc) == ("O" + "BRY"[c] if c == colour else "o" + "bry"[c])
        elif lay.ramp_owner[cell] >= 0:
            assert _map_cell(text, *rc)[0] == "="
        else:
            assert _map_cell(text, *rc) == ". "
    assert "turn 5/51" in text and "colour RED" in text and "next yellow" in text
    assert "hyperspace Cx1" in text
    assert "P0 (4,10) blue hits 1" in text
    env.close()


def test_scenario_rgb_and_state_untouched():
    env = planetoids_v0.env(render_mode="rgb_array")
    env.reset(seed=0, options={"scenario": SCENARIO})
    core = env.unwrapped.core
    before = [a.copy() for a in (core.state.g, core.state.pc, core.state.fx, core.state.cells)]
    frame = env.render()
    after = (core.state.g, core.state.pc, core.state.fx, core.state.cells)
    assert all(np.array_equal(x, y) for x, y in zip(before, after))
    pixels = frame.reshape(-1, 3).astype(int)
    for rgb in prender.PLAYER_RGB:   # both sides' pieces are drawn in their colours
        assert (np.abs(pixels - rgb).sum(axis=1) < 30).sum() > 100
    env.close()


def test_bad_mode():
    env = planetoids_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError):
        prender.render(env.unwrapped.core, 0, "svg")
