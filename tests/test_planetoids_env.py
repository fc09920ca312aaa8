"""Env contract, determinism, state management and fuzz tests for planetoids_v0."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs import planetoids_v0
from wargym.envs.core.batch import BatchState
from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame
from wargym.envs.planetoids import game, rules
from wargym.envs.planetoids.rules import (BASE, CI_PDIST_ALL, CI_PLANETOID, CI_TERRAIN, CRUISER,
                                          FIGHTER, ON_MAP, PC_DAMAGE, PC_POS, PC_STATUS, PL_COLOUR, SPACE,
                                          TRANSPORT)


# -- PettingZoo contract --------------------------------------------------------
def test_api_test_on_a_whole_game_and_a_second_episode():
    # api_test stops at the first episode end; play a full game and a second reset too.
    env = planetoids_v0.env(turns=3)
    for episode in range(2):
        env.reset(seed=episode)
        rng = np.random.default_rng(episode)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                assert "scores" in info
                env.step(None)
                continue
            assert obs["action_mask"].any(), "mask must never be empty while the game is live"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.agents == []


def test_observation_spaces_and_mask_only_for_acting_agent():
    env = planetoids_v0.env()
    env.reset(seed=0)
    acting = env.agent_selection
    other = [a for a in env.agents if a != acting][0]
    obs = env.observe(acting)
    assert env.observation_space(acting).contains(obs)
    assert obs["observation"].shape == (len(game.OBS_CHANNELS), 9, 21)
    assert obs["action_mask"].sum() > 0
    assert env.observe(other)["action_mask"].sum() == 0


def test_illegal_action_raises_and_changes_nothing():
    env = planetoids_v0.env()
    env.reset(seed=0)
    before = env.unwrapped.clone_state()
    illegal = int(np.flatnonzero(env.unwrapped.core.mask[0] == 0)[0])
    with pytest.raises(ValueError, match=rf"action {illegal} \(.*\) is illegal: "):
        env.step(illegal)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(10_000)
    after = env.unwrapped.clone_state()
    for k in before.arrays:
        np.testing.assert_array_equal(before.arrays[k], after.arrays[k])


def test_unknown_option_is_rejected():
    with pytest.raises(ValueError, match="unknown Planetoids option"):
        planetoids_v0.env(colour="purple")
    with pytest.raises(ValueError, match="keep_away"):
        planetoids_v0.env(keep_away="sometimes")


# -- determinism ---------------------------------------------------------------------


# -- state: clone, save, load -----------------------------------------------------------
def _play(core, streams, steps):
    actions = np.zeros(core.num_envs, dtype=np.int64)
    for _ in range(steps):
        sample_legal(core.mask, streams, actions)
        core.step(actions)


def test_save_load_round_trip(tmp_path):
    core = VecGame(game, 4)
    core.reset(seed=3)
    _play(core, new_streams(4, 3), 400)
    path = tmp_path / "game.npz"
    core.save(path)
    streams = new_streams(4, 99)
    twin = VecGame(game, 4)
    twin.load(path)
    np.testing.assert_array_equal(core.obs, twin.obs)
    np.testing.assert_array_equal(core.mask, twin.mask)
    s1, s2 = streams.copy(), streams.copy()
    _play(core, s1, 300)
    _play(twin, s2, 300)
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
    other = VecGame(game, 2, {"reserve": {"cruiser": 1, "transport": 1, "fighter": 1}})
    with pytest.raises(ValueError, match="schema|options"):
        other.load(good)
    # a state whose values break the invariants
    st, _ = BatchState.load(core.spec, good)
    st.pc[0, 0, 0, PC_STATUS] = 9
    st.save(tmp_path / "evil.npz", meta={"options": core.options})
    with pytest.raises(ValueError, match="planetoids state holds impossible values"):
        core.load(tmp_path / "evil.npz")
    for k in before.arrays:
        np.testing.assert_array_equal(before.arrays[k], core.state.arrays[k])


def test_malformed_scenarios_are_rejected():
    env = planetoids_v0.raw_env()
    env.reset(seed=0)
    before = env.clone_state()
    bad = [
        ({"pieces": [{"player": 0, "kind": "dreadnought", "hex": [4, 4]}]}, "kind"),
        ({"pieces": [{"player": 0, "kind": "fighter", "hex": [40, 4]}]}, "not on the map"),
        ({"pieces": [{"player": 0, "kind": "fighter", "hex": [2, 3]}]}, "impassable"),
        ({"pieces": [{"player": 0, "kind": "cruiser", "hex": [4, 9], "facing": "E"}]}, "keep"),
        ({"pieces": [{"player": 2, "kind": "fighter", "hex": [4, 4]}]}, "player"),
        ({"pieces": [], "fixed_bases": [{"player": 0, "hex": [4, 4]}]}, "planetoid"),
        ({"pieces": [], "turn": 99}, "turn"),
        ({"pieces": [], "wat": 1}, "unknown scenario key"),
        ({"pieces": [{"player": 0, "kind": "fighter", "hex": [4, 4], "damage": 1}]}, "damage"),
    ]
    for scenario, message in bad:
        with pytest.raises(ValueError, match=message):
            env.reset(seed=0, options={"scenario": scenario})
        after = env.clone_state()
        for k in before.arrays:
            np.testing.assert_array_equal(before.arrays[k], after.arrays[k])


def test_fixed_setup_places_bases_legally():
    core = VecGame(game, 1, {"setup": "fixed"})
    core.reset(seed=0)
    assert core.state.g[0, rules.G_PHASE] == rules.SELECT
    for p in range(2):
        for slot in range(2):
            pos = int(core.state.pc[0, p, slot, PC_POS])
            assert rules.setup_reason(core.state.view, core._k, 0, p, pos) == rules.OK


# -- random-play fuzz with invariants -------------------------------------------------------
def _check_invariants(core, step):
    cfg, st = core.cfg, core.state
    kind = cfg.slot_kind
    status, pos, damage = st.pc[..., PC_STATUS], st.pc[..., PC_POS], st.pc[..., PC_DAMAGE]
    live = (status == ON_MAP) | (status == rules.HYPER)
    assert ((damage[live] >= 0) & (damage[live] <= rules.MAX_HITS)).all(), f"step {step}: damage out of range"
    assert (damage[:, :, kind == FIGHTER][live[:, :, kind == FIGHTER]] == 0).all(), \
        f"step {step}: a damaged fighter survived"
    assert ((st.fx[..., 1] >= 0) & (st.fx[..., 1] <= rules.MAX_HITS)).all()
    playing = ~game.done(st)
    assert core.mask[playing].any(axis=1).all(), f"step {step}: empty mask in a live game"
    for b in range(core.num_envs):
        colour = int(cfg.colour_seq[min(st.g[b, rules.G_TURN], len(cfg.colour_seq) - 1)])
        cover = np.zeros((2, len(cfg.cell)), int)
        for p in range(2):
            for i in np.flatnonzero(status[b, p] == ON_MAP):
                k = int(kind[i])
                cells = [int(rules.fp_cell(core._k, p, k, int(pos[b, p, i]), int(st.pc[b, p, i, 2]), j))
                         for j in range(int(rules.fp_size(core._k, k)))]
                for c in cells:
                    assert c >= 0 and cfg.cell[c, CI_TERRAIN] == SPACE, f"step {step}: piece on impassable hex"
                    f = cfg.cell[c, CI_PLANETOID]
                    if k != TRANSPORT and f >= 0 and st.g[b, rules.G_PHASE] != rules.OVER:
                        assert cfg.planetoids[f, PL_COLOUR] != colour, f"step {step}: ship inside a planetoid"
                    if k in (BASE, CRUISER):
                        need = 3 if k == BASE else 2
                        assert cfg.cell[c, CI_PDIST_ALL] >= need, f"step {step}: too close to a planetoid"
                    assert st.cells[b, c, rules.C_BLOCKED] < 0, f"step {step}: piece on a blocked hex"
                    cover[p, c] += 1
        assert not ((cover[0] > 0) & (cover[1] > 0)).any(), f"step {step}: enemy pieces share a hex"
        # scores shown to the player to move agree with the rules' scoring
        me = int(st.g[b, rules.G_DECIDER])
        sc = game.scores(st, b)
        assert core.obs[b, 44, 0, 0] == sc[me] and core.obs[b, 45, 0, 0] == sc[1 - me]


def test_random_play_fuzz_invariants():
    batch = 24
    core = VecGame(game, batch)
    core.reset(seed=2024)
    streams = new_streams(batch, 2024)
    actions = np.zeros(batch, dtype=np.int64)
    step = 0
    while not core.terminated.all():
        sample_legal(core.mask, streams, actions)
        core.step(actions, active=~core.terminated)
        step += 1
        if step % 7 == 0:
            _check_invariants(core, step)
    _check_invariants(core, step)
    assert (core.state.g[:, rules.G_TURN] == 51).all()
    # zero-sum terminal rewards agree with the scores
    for b in range(batch):
        s0, s1 = game.scores(core.state, b)
        assert core.rewards[b, 0] == np.sign(s0 - s1) and core.rewards[b, 1] == -np.sign(s0 - s1)


def test_truncation_option():
    core = VecGame(game, 2, {"max_decisions": 50})
    core.reset(seed=0)
    streams = new_streams(2, 0)
    _play(core, streams, 50)
    assert core.truncated.all() and not core.terminated.any()


# -- the step rewrites only what changed (VecGame.obs_key) ------------------------
def _check_buffers(core, step):
    for b in range(core.num_envs):
        obs, mask = core.observe(b, int(core.current_player[b]))
        assert np.array_equal(obs, core.obs[b]), (step, b)
        assert np.array_equal(mask, core.mask[b]), (step, b)


def test_incremental_observation_equals_a_full_write_at_every_step():
    """Every step's buffer equals a fresh observation, across episode ends
    (auto-reset) and set_state (the path of load and load_scenario too)."""
    core = VecGame(game, 12, {"turns": 3}, auto_reset=True)
    core.reset(seed=5)
    streams = new_streams(12, 2)
    actions = np.zeros(12, dtype=np.int64)
    ends = 0
    for step in range(700):
        sample_legal(core.mask, streams, actions)
        core.step(actions)
        ends += int((core.terminated | core.truncated).sum())
        _check_buffers(core, step)
        if step == 300:
            core.set_state(core.state.select([0, 3]), index=[0, 3])
    assert ends > 20


def test_incremental_observation_after_set_state_blocks_every_hex_and_damages_every_piece():
    """set_state rewrites whole planes under the step's feet; the next steps
    still show exactly what a fresh observation shows."""
    core = VecGame(game, 6, auto_reset=True)
    core.reset(seed=9)
    streams = new_streams(6, 3)
    actions = np.zeros(6, dtype=np.int64)
    for step in range(1100):
        if step == 800:
            st = core.state.select(range(6))
            st.cells[:3, :, rules.C_BLOCKED] = np.where(core.cfg.cell[:, rules.CI_TERRAIN] == rules.SPACE,
                                                        st.g[:3, rules.G_DECIDER, None], -1)
            st.pc[:3, :, :, rules.PC_DAMAGE] = np.maximum(st.pc[:3, :, :, rules.PC_DAMAGE], 1)
            core.set_state(st)
        sample_legal(core.mask, streams, actions)
        core.step(actions)
        _check_buffers(core, step)
