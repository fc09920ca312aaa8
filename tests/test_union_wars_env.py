"""union_wars_v2 (and v1 where a test needs no action table): PettingZoo contract, determinism, state management, renderers, the bot,
and a random-play fuzz with the game's invariants."""
from __future__ import annotations

import math

import numpy as np
import pytest

from wargym.envs import union_wars_v1, union_wars_v2
from wargym.envs.core.geometry import point_polygon_distance
from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame
from wargym.envs.union_wars import bot, game
from wargym.envs.union_wars import layout as L


def test_render_modes():
    env = union_wars_v2.env(render_mode="rgb_array")
    env.reset(seed=3)
    for _ in range(60):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (620, 620, 3)
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 4
    text = union_wars_v2.env(render_mode="ansi")
    text.reset(seed=3)
    assert "UnionWars" in text.render()


def _fuzz_check(core):
    s, cfg = core.state, core.cfg
    for b in range(core.num_envs):
        md = s.md[b]
        assert (md[..., L.MD_CAR] >= 0).all(), "charisma never negative"
        for p in range(2):
            for i in range(L.N_SLOTS):
                st = md[p, i, L.MD_STATUS]
                prof = cfg.pf[md[p, i, L.MD_PROFILE]]
                if st == L.ACTIVE:
                    assert md[p, i, L.MD_WOUNDS] < prof[L.PF_FS], "an active model has fewer wounds than FS"
                if st not in (L.ACTIVE, L.OOC):
                    continue
                x, y = s.pos[b, p, i, :2]
                r = prof[L.PF_RADIUS_MM] / 20.0
                assert r - 1e-3 <= x <= 120 - r + 1e-3 and r - 1e-3 <= y <= 120 - r + 1e-3
                for t in range(L.T_MAX):
                    if s.tinfo[b, t, L.TI_KIND] == L.T_IMPASSABLE:
                        assert point_polygon_distance(x, y, s.terr[b, t], s.tinfo[b, t, L.TI_NVERT]) >= r - 0.02
                for q in range(2):
                    for j in range(L.N_SLOTS):
                        if (q, j) <= (p, i) or s.md[b, q, j, L.MD_STATUS] not in (L.ACTIVE, L.OOC):
                            continue
                        rq = cfg.pf[s.md[b, q, j, L.MD_PROFILE], L.PF_RADIUS_MM] / 20.0
                        gap = math.hypot(x - s.pos[b, q, j, 0], y - s.pos[b, q, j, 1]) - r - rq
                        assert gap >= -0.02, "no base inside another"
                if md[p, i, L.MD_FLAGS] & L.F_ENGAGED:
                    assert st in (L.ACTIVE, L.OOC)
    return _sight_cache_checked(core)


def _sight_cache_checked(core):
    """The sight cache (sight.py) holds exactly what fresh sight lines give; returns how many
    cached answers were compared."""
    from wargym.envs.union_wars import rules
    checked = 0
    for b in range(core.num_envs):
        wrong, n = rules.check_sight_cache(core.state.view, core.cfg.struct, b)
        assert wrong == 0, f"game {b}: {wrong} of {n} cached sight answers differ from a fresh computation"
        checked += n
    return checked


def test_random_play_fuzz_invariants():
    core = VecGame(game, 16, {"mission": "roll", "reserves": True, "ammo": True, "jamming": True, "night": "choose",
                              "time": True})
    core.reset(seed=11)
    streams = new_streams(16, 5)
    actions = np.zeros(16, np.int64)
    finished = 0
    cached = 0
    for step in range(3000):
        assert (core.mask.sum(1) > 0)[~core.terminated].all(), "a live game always has a legal action"
        sample_legal(core.mask, streams, actions)
        core.step(actions, active=~core.terminated)
        if step % 50 == 0:
            cached += _fuzz_check(core)
        elif step % 5 == 0:
            cached += _sight_cache_checked(core)
        finished = int(core.terminated.sum())
        if finished == 16:
            break
    cached += _fuzz_check(core)
    assert finished >= 8
    assert cached > 1000, "the fuzz compared the sight cache with fresh sight lines"


def _trajectory(batch, seed, steps, index=0, parallel=False):
    core = VecGame(game, batch, auto_reset=True, parallel=parallel)
    core.reset(seed=seed)
    streams = new_streams(batch, seed)
    acts = np.zeros(batch, np.int64)
    out = []
    for _ in range(steps):
        sample_legal(core.mask, streams, acts)
        core.step(acts)
        out.append((int(acts[index]), hash(core.obs[index].tobytes())))
    return out


def test_game_does_not_depend_on_batch_size_or_threads():
    # game 0 must play the same whatever B (streams of sample_legal are per game too)
    a = _trajectory(1, 4, 200)
    b = _trajectory(8, 4, 200, parallel=True)
    assert a == b


def test_clone_save_load_round_trip(tmp_path):
    env = union_wars_v1.raw_env()
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(60):
        env.step(int(rng.choice(env.legal_actions())))
    snap = env.clone_state()
    obs = env.observe(env.agent_selection)["observation"].copy()
    env.save(tmp_path / "g.npz")
    for _ in range(20):
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(env.legal_actions())))
    env.set_state(snap)
    assert (env.observe(env.agent_selection)["observation"] == obs).all()
    env2 = union_wars_v1.raw_env()
    env2.reset(seed=9)
    env2.load(tmp_path / "g.npz")
    assert (env2.observe(env2.agent_selection)["observation"] == obs).all()
    with pytest.raises(ValueError, match="options"):
        union_wars_v1.raw_env(turns=5).load(tmp_path / "g.npz")


def test_bad_scenario_is_refused_and_changes_nothing():
    env = union_wars_v1.raw_env(table="open_field", mission=1)
    env.reset(seed=0)
    before = env.clone_state()
    bad = [{"models": [{"player": 0, "slot": 0, "x": -3, "y": 10}]},
           {"models": [{"player": 0, "slot": 0, "x": 30, "y": 10}, {"player": 1, "slot": 0, "x": 31, "y": 10}]},
           {"models": [{"player": 0, "slot": 7, "x": 30, "y": 10}]},
           {"mission": 9},
           {"bogus": 1}]
    for sc in bad:
        with pytest.raises(ValueError):
            env.reset(seed=0, options={"scenario": sc})
        assert all((env.core.state.arrays[k] == before.arrays[k]).all() for k in before.arrays)


def test_illegal_action_error_names_the_rule_and_changes_nothing():
    env = union_wars_v1.raw_env()
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    snap = env.clone_state()
    with pytest.raises(ValueError, match="illegal"):
        env.step(illegal)
    assert all((env.core.state.arrays[k] == snap.arrays[k]).all() for k in snap.arrays)
    with pytest.raises(TypeError):
        env.step(1.0)


def test_hidden_enemy_models_are_not_in_the_observation():
    env = union_wars_v1.raw_env(table="open_field", mission=1)
    env.reset(seed=0, options={"scenario": {"models": [
        {"player": 0, "slot": 2, "x": 60, "y": 20}, {"player": 1, "slot": 6, "x": 60, "y": 80, "flags": ["hidden"]}]}})
    parts = game.split_obs(env.core.cfg, env.observe("player_0")["observation"])
    assert parts["models"][L.N_SLOTS + 6].sum() == 0
    parts1 = game.split_obs(env.core.cfg, env.observe("player_1")["observation"])
    assert parts1["models"][6, 0] == 1 and parts1["models"][6, 11] == 1   # its owner sees it, hidden


def test_scripted_bot_beats_random_in_both_seats():
    core = VecGame(game, 40)
    core.reset(seed=21)
    bot.play(core, ["scripted", "random"])
    w0 = core.state.g[:, L.G_WINNER].copy()
    core.reset(seed=22)
    bot.play(core, ["random", "scripted"])
    w1 = core.state.g[:, L.G_WINNER]
    assert (w0 == 0).sum() >= 32 and (w1 == 1).sum() >= 32


def test_sb3_adapters_accept_the_game_module():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env
    from wargym.wrappers.sb3 import WargymSingleAgentEnv, WargymVecEnv
    env = WargymSingleAgentEnv(game=game, opponent="scripted", options={"max_decisions": 300})
    check_env(env)
    vec = WargymVecEnv(game, n_envs=4, opponent="random", options={"max_decisions": 200}, seed=0)
    vec.reset()
    for _ in range(50):
        masks = vec.action_masks()
        vec.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))


def test_union_wars_v1_lets_the_mover_choose_its_facing_and_v0_keeps_the_old_play():
    """A change of play is a new version (MOVIMENTO "muovere ... e/o ruotare", RULES.md facing):
    union_wars_v1 asks for the facing after a move, union_wars_v0 (facing="travel") does not."""
    import pettingzoo

    import wargym  # noqa: F401  (registers the games)
    from wargym.envs import union_wars_v0
    new, old = union_wars_v1.raw_env(), union_wars_v0.raw_env()
    assert new.metadata["name"] == "union_wars_v1" and old.metadata["name"] == "union_wars_v0"
    assert new.core.options["facing"] == "choose" and old.core.options["facing"] == "travel"
    assert union_wars_v0.raw_env(options={"facing": "choose"}).core.options["facing"] == "choose"
    assert pettingzoo.make("aec", "wargym/union_wars_v0").unwrapped.metadata["name"] == "union_wars_v0"
