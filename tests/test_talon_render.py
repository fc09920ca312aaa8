"""The Talon renderer: text board and RGB frame, on the default scenario, after
random legal play, in the firing and power stages, and on a scenario with
stacked and damaged ships.  Rendering must never change the state."""
import numpy as np
import pytest
from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import render as trender
from wargym.envs.talon import rules as R

NAMES = ("Patton", "Napoleon", "Guderian", "Service", "Sacrifice", "Justice")


@pytest.fixture(scope="module")
def core():
    """One game for the whole module (building a VecGame costs a second or two); each test resets it."""
    c = VecGame(game, 1)
    c.reset(seed=0)
    return c


def _snap(core):
    st = core.state.clone()
    return {k: v.copy() for k, v in st.arrays.items()}


def _same(before, core):
    after = core.state.arrays
    assert set(before) == set(after)
    for k, v in before.items():
        np.testing.assert_array_equal(v, after[k], err_msg=f"render changed state field {k}")


def _plain(core, viewer=0):
    return trender.render_ansi(trender.snapshot(core, 0), viewer, colour=False)


def _map_char(text, row, col):
    """The mark drawn in the middle of hex (row, col) of a plain ANSI board."""
    line = next(ln for ln in text.splitlines() if ln.startswith(f"{row:2d}  "))
    start = 4 + 2 * (row & 1) + 4 * col
    return line.ljust(start + 4)[start:start + 4]


def _reach(core, stages):
    """The game reset and played with random legal steps until its stage is one of ``stages``."""
    for seed in range(8):
        core.reset(seed=seed)
        if _play_until(core, stages, seed=seed):
            return core
    pytest.fail(f"no random game reached stage(s) {stages}")


def _play_until(core, stages, max_steps=800, seed=3):
    """Random legal steps until the stage is one of ``stages``; True when reached."""
    streams = new_streams(1, seed)
    act = np.zeros(1, dtype=np.int64)
    for _ in range(max_steps):
        st = int(core.state.g[0, R.G_STAGE])
        if st in stages and (st != R.ST_FIRE_TARGET or core.state.g[0, R.G_WLEFT] > 0):
            return True
        if core.terminated[0] or core.truncated[0]:
            return False
        sample_legal(core.mask, streams, act)
        core.step(act)
    return False


def test_ansi_default_scenario(core):
    core.reset(seed=0)
    before = _snap(core)
    text = trender.render(core, 0, "ansi")
    _same(before, core)
    assert isinstance(text, str)
    plain = trender.strip_ansi(text)
    assert plain == _plain(core)
    for name in NAMES:
        assert name in plain
    assert "Terran CA" in plain and "Talon CA" in plain
    g = core.state.g[0]
    assert g[R.G_IMPULSE] == 0 and "impulse A" in plain and "[A]" in plain
    assert f"round {g[R.G_ROUND]}/{g[R.G_ROUNDS]}" in plain
    assert game.STAGE_NAMES[int(g[R.G_STAGE])] in plain
    assert f"initiative: P{g[R.G_INIT]}" in plain
    assert "destroyed 0 SP" in plain
    # every ship in play at its hex with side, slot and bow arrow
    sh = core.state.sh[0]
    cols = int(core.cfg.k[R.K_COLS])
    for p in range(2):
        for k in range(sh.shape[1]):
            if sh[p, k, R.SH_STATUS] != R.SS_ACTIVE:
                continue
            r, c = divmod(int(sh[p, k, R.SH_CELL]), cols)
            mark = "BR"[p] + str(k) + trender.ARROWS[int(sh[p, k, R.SH_FACING])]
            assert _map_char(plain, r, c)[:3] == mark
    # the Terran CA's numbers: 3-3-2, shields 6/5/5/4, 6 hull boxes, three charged groups
    assert "3-3-2" in plain and "F 6/6  R 5/5  L 5/5  Rr 4/4" in plain and "hull 6/6" in plain
    assert "torpedo x1" in plain and "READY" in plain and "afterburners 2/2" in plain
    assert "Legend" in plain
    assert "\x1b[" not in _plain(core)


def test_rgb_default_scenario(core):
    core.reset(seed=0)
    before = _snap(core)
    frame = trender.render(core, 0, "rgb_array", 1)
    _same(before, core)
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
    assert frame.ndim == 3 and frame.shape[2] == 3
    assert 700 <= frame.shape[0] <= 1100 and 900 <= frame.shape[1] <= 1200
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 200
    # both side colours are on the picture
    for rgb in trender.SIDE_RGB:
        assert (np.abs(frame.astype(int) - rgb).sum(axis=2) < 30).sum() > 100


def test_bad_mode(core):
    with pytest.raises(ValueError):
        trender.render(core, 0, "human-readable")


def test_random_play_renders_without_changing_state(core):
    core.reset(seed=0)
    streams = new_streams(1, 11)
    act = np.zeros(1, dtype=np.int64)
    for t in range(300):
        if core.terminated[0] or core.truncated[0]:
            break
        before = _snap(core)
        text = trender.strip_ansi(trender.render(core, 0, "ansi", int(core.current_player[0])))
        if t % 150 == 149:
            frame = trender.render(core, 0, "rgb_array")
            assert frame.shape[2] == 3 and frame.dtype == np.uint8
        _same(before, core)
        g = core.state.g[0]
        imp = int(g[R.G_IMPULSE])
        assert ("power phase" if imp == 6 else f"impulse {'ABCDEF'[imp]}") in text
        assert f"P{int(g[R.G_DECIDER])}" in text
        sample_legal(core.mask, streams, act)
        core.step(act)
    final = trender.strip_ansi(trender.render(core, 0, "ansi"))
    assert "TALON" in final


def test_firing_stage_shows_arcs_of_the_firing_ship(core):
    _reach(core, (R.ST_FIRE_TARGET,))
    g, sh, cfg = core.state.g[0], core.state.sh[0], core.cfg
    p, k, gi = int(g[R.G_DECIDER]), int(g[R.G_SHIP]), int(g[R.G_GROUP])
    cell, facing = int(sh[p, k, R.SH_CELL]), int(sh[p, k, R.SH_FACING])
    before = _snap(core)
    plain = _plain(core, p)
    v = trender.snapshot(core, 0)
    frame = trender.render(core, 0, "rgb_array", p)
    _same(before, core)
    assert v.sel is not None and (v.sel.player, v.sel.slot) == (p, k)
    name = game.ship_name(cfg, int(sh[p, k, R.SH_CLASS]), int(sh[p, k, R.SH_NAME]))
    assert f"fires g{gi}" in plain and name in plain and "weapon(s) left" in plain
    assert f">{'BR'[p]}{k}" in plain                 # the table marks the selected ship
    # every empty hex carries the arc of the firing ship (upper case when in the group's reach)
    rows, cols = int(cfg.k[R.K_ROWS]), int(cfg.k[R.K_COLS])
    occupied = {int(sh[q, j, R.SH_CELL]) for q in range(2) for j in range(sh.shape[1])
                if sh[q, j, R.SH_STATUS] == R.SS_ACTIVE}
    reach = 0
    for c in range(rows * cols):
        if c in occupied:
            continue
        mark = _map_char(plain, *divmod(c, cols))[1]
        arc = int(cfg.arc_of[cell, c, facing])
        assert mark.lower() == trender.ARC_MAP[arc], (c, mark, arc)
        if mark.isupper():
            reach += 1
            assert (int(cfg.grp[int(sh[p, k, R.SH_CLASS]), gi, R.GR_ARCS]) >> arc) & 1
    assert reach > 0
    assert frame.ndim == 3 and frame.dtype == np.uint8
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 200


def test_power_phase(core):
    _reach(core, (R.ST_POWER,))
    before = _snap(core)
    plain = _plain(core)
    frame = trender.render(core, 0, "rgb_array")
    _same(before, core)
    assert "power phase" in plain and "choose the speed of" in plain and "[P]" in plain
    assert frame.shape[2] == 3


SCENARIO = {
    "players": [
        {"ships": [
            {"class": "terran_ca", "name": "Patton", "hex": [5, 5], "facing": "NE", "hull_hits": 2,
             "shields": [2, 5, 0, 4], "criticals": ["shields_down", "helm_down", "turn_plus_1"], "battery": True},
            {"class": "terran_dd", "hex": [5, 6], "facing": "SW", "reinforcements": {"front": "C", "rear": "D"},
             "slip": True, "turn_left": 2},
        ]},
        {"ships": [
            {"class": "talon_ca", "name": "Justice", "hex": [5, 5], "facing": "W",
             "criticals": ["ftl_offline", "power_loss"], "afterburners": 1},
            {"class": "talon_cl", "hex": [9, 9], "facing": "E", "charge": [[0, 0], [1, 2]]},
        ]},
    ],
    "impulse": "D", "round": 3, "initiative": 1,
}


def test_scenario_stacks_damage_and_markers(core):
    core.load_scenario(SCENARIO, seed=1)
    # a destroyed group and an initiative marker (not in the scenario format)
    core.state.sh[0, 1, 1, R.SH_GROUP_DEAD] = 1
    core.state.sh[0, 1, 1, R.SH_INIT_MARK] = 2
    before = _snap(core)
    plain = _plain(core, 1)
    frame = trender.render(core, 0, "rgb_array", 1)
    _same(before, core)
    assert "round 3/" in plain and "impulse D" in plain and "initiative: P1" in plain
    cell = _map_char(plain, 5, 5)
    assert cell[3] == "+" and cell[:2] in ("B0", "R0")        # two ships share hex (5,5)
    assert "Patton" in plain and "Justice" in plain and "Terran DD" in plain and "Talon CL" in plain
    assert "F 2/6" in plain and "L 0/5" in plain and "DOWN" in plain
    assert "F 3/3+C" in plain and "Rr 2/2+D" in plain          # reinforcements placed in C and D
    assert "hull 4/6" in plain
    assert "shields down" in plain and "helm down" in plain and "turn +1" in plain
    assert "FTL offline" in plain and "power loss" in plain
    assert "afterburners 1/2" in plain and "battery charged" in plain
    assert "DESTROYED" in plain and "defend initiative" in plain
    assert "slip" in plain
    assert "2-3-3" in plain                      # Terran CA 3-3-2, hull box -1 and Turn +1
    assert frame.dtype == np.uint8 and frame.shape[2] == 3
