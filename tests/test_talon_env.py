"""Env contract, determinism, state management and fuzz tests for talon_v0."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import render_test

from wargym.envs import talon_v0
from wargym.envs.core.batch import BatchState
from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import check_invariants


# -- PettingZoo contract ------------------------------------------------------------------
def test_pettingzoo_render_test():
    render_test(lambda render_mode=None: talon_v0.env(render_mode=render_mode))


def test_whole_games_end_with_a_result():
    env = talon_v0.env(rounds=3)
    for episode in range(2):
        env.reset(seed=episode)
        rng = np.random.default_rng(episode)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                assert set(info) == {"scores", "winner", "rounds"}
                env.step(None)
                continue
            assert obs["action_mask"].any(), "mask must never be empty while the game is live"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.agents == []


def test_observation_layout_is_documented():
    env = talon_v0.raw_env()
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)["observation"]
    parts = game.split_obs(env.core.cfg, obs)
    assert parts["planes"].shape == (R.N_PLANES, 18, 16)
    assert parts["ships"].shape == (2, 8, R.N_SF)
    assert parts["globals"].shape == (R.N_GLOBAL,)
    assert parts["globals"][R.O_SEAT] == env.agent_name_mapping[env.agent_selection]
    # three own and three enemy ships in play in the default scenario
    assert (parts["ships"][:, :, R.F_STATUS] == R.SS_ACTIVE).sum(axis=1).tolist() == [3, 3]
    assert parts["planes"][:R.P_OWN_SLOT].sum() == 6


def test_unknown_option_is_rejected():
    with pytest.raises(ValueError, match="unknown Talon option"):
        talon_v0.env(speed_of_light=3)
    with pytest.raises(ValueError, match="edition"):
        talon_v0.env(edition=3)


# -- determinism -------------------------------------------------------------------------------


# -- state: clone, save, load ---------------------------------------------------------------------
def _play(core, streams, steps):
    actions = np.zeros(core.num_envs, dtype=np.int64)
    for _ in range(steps):
        sample_legal(core.mask, streams, actions)
        core.step(actions)


def test_save_load_round_trip(tmp_path):
    core = VecGame(game, 4, auto_reset=True)
    core.reset(seed=3)
    _play(core, new_streams(4, 3), 300)
    path = tmp_path / "talon.npz"
    core.save(path)
    twin = VecGame(game, 4, auto_reset=True)
    twin.load(path)
    np.testing.assert_array_equal(core.obs, twin.obs)
    np.testing.assert_array_equal(core.mask, twin.mask)
    s = new_streams(4, 99)
    _play(core, s.copy(), 300)
    _play(twin, s.copy(), 300)
    for k in core.state.arrays:
        np.testing.assert_array_equal(core.state.arrays[k], twin.state.arrays[k])


def test_corrupt_or_foreign_save_file_is_rejected_and_changes_nothing(tmp_path):
    core = VecGame(game, 2)
    core.reset(seed=1)
    good = tmp_path / "good.npz"
    core.save(good)
    before = core.clone_state()
    bad = tmp_path / "bad.npz"
    bad.write_bytes(good.read_bytes()[:200])
    with pytest.raises(ValueError, match="not a readable wargym save file"):
        core.load(bad)
    other = VecGame(game, 2, {"edition": 1})
    with pytest.raises(ValueError, match="options"):
        other.load(good)
    st, _ = BatchState.load(core.spec, good)
    st.sh[0, 0, 0, R.SH_SHIELD] = 99
    st.save(tmp_path / "evil.npz", meta={"options": core.options})
    with pytest.raises(ValueError, match="impossible values"):
        core.load(tmp_path / "evil.npz")
    for k in before.arrays:
        np.testing.assert_array_equal(before.arrays[k], core.state.arrays[k])


# -- scenarios ------------------------------------------------------------------------------------
def test_example_of_play_scenario():
    # issue 3: Patton, Napoleon, Guderian against Service, Sacrifice, Justice
    core = VecGame(game, 1)
    core.reset(seed=0)
    names = [[game.ship_name(core.cfg, int(core.state.sh[0, p, k, R.SH_CLASS]), int(core.state.sh[0, p, k, R.SH_NAME]))
              for k in range(3)] for p in range(2)]
    assert names == [["Patton", "Napoleon", "Guderian"], ["Service", "Sacrifice", "Justice"]]


def test_fleet_scenario_respects_the_budget():
    core = VecGame(game, 16, {"scenario": "fleet", "budget": 300})
    core.reset(seed=4)
    sh = core.state.sh
    for b in range(16):
        for p in range(2):
            classes = [int(c) for c in sh[b, p, :, R.SH_CLASS] if c >= 0]
            pts = sum(core.cfg.classes[c]["points"] for c in classes)
            assert 0 < pts <= 300
            race = "terran" if p == 0 else "talon"
            assert all(core.cfg.classes[c]["race"] == race and not core.cfg.classes[c]["advanced"] for c in classes)
            # nothing more fits: no class with a counter left is cheap enough
            left = [c for c in core.cfg.fleet_cls[p] if c >= 0
                    and classes.count(c) < len(core.cfg.classes[c]["counters"])]
            assert all(300 - pts < core.cfg.classes[c]["points"] for c in left) or len(classes) == core.cfg.k[R.K_SHIPS]
            names = [(c, int(n)) for c, n in zip(sh[b, p, :, R.SH_CLASS], sh[b, p, :, R.SH_NAME]) if c >= 0]
            assert len(set(names)) == len(names)          # each counter once


def test_scenario_through_the_aec_reset():
    env = talon_v0.raw_env()
    sc = {"players": [{"ships": [{"class": "terran_cl", "name": "Thor", "hex": [8, 4], "facing": "E"}]},
                      {"ships": [{"class": "talon_ff", "name": "Surprise", "hex": [8, 10], "facing": "W"}]}],
          "initiative": 1, "rounds": 2}
    env.reset(seed=0, options={"scenario": sc})
    assert env.core.state.g[0, R.G_ROUNDS] == 2
    assert env.agent_selection in env.agents


# -- fuzz -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"scenario": "fleet", "budget": 500}, {"edition": 1, "rounds": 4}])
def test_random_play_fuzz_invariants(options):
    core = VecGame(game, 20, options)      # B >= 16: the parallel kernels
    core.reset(seed=11)
    streams = new_streams(20, 11)
    actions = np.zeros(20, dtype=np.int64)
    finished = 0
    for _ in range(4000):
        live = ~core.terminated
        if not live.any():
            break
        sample_legal(core.mask, streams, actions)
        core.step(actions, active=live)
        for b in range(20):
            check_invariants(core, b)
        finished = int(core.terminated.sum())
    assert finished > 0


def test_truncation_option():
    core = VecGame(game, 2, {"max_decisions": 30})
    core.reset(seed=0)
    streams = new_streams(2, 0)
    actions = np.zeros(2, dtype=np.int64)
    for _ in range(30):
        sample_legal(core.mask, streams, actions)
        core.step(actions)
    assert core.truncated.all()
