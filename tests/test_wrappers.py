"""SB3 / Gymnasium adapters and opponents (training itself: test_training.py)."""
from __future__ import annotations

import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

from helpers.play import SHORT_GAME
from wargym.training.evaluate import win_rate, win_rate_builtin
from wargym.registration import GAME_KEYS
from wargym.wrappers.sb3 import WargymSingleAgentEnv, WargymVecEnv, load_game


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_single_agent_env_passes_sb3_check_env():
    check_env(WargymSingleAgentEnv(opponent="random"), warn=True)


def test_single_agent_env_rejects_illegal_actions():
    env = WargymSingleAgentEnv(opponent="scripted")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match="is illegal"):
        env.step(illegal)


def test_vec_env_masks_and_episode_end():
    env = WargymVecEnv(n_envs=4, opponent="scripted", options={"turns": 3}, seed=1)
    obs = env.reset()
    assert obs.shape == (4, int(np.prod(env.board_shape)))
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(5000):
        masks = env.action_masks()
        assert masks.shape == (4, env.action_space.n) and masks.any(axis=1).all()
        assert np.stack(env.env_method("action_masks")).shape == masks.shape
        actions = [rng.choice(np.flatnonzero(m)) for m in masks]
        obs, rewards, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert rewards[i] in (-1.0, 0.0, 1.0)
            finished += 1
        if finished >= 8:
            break
    assert finished >= 8


@pytest.mark.parametrize("game_key", GAME_KEYS)
def test_the_final_scores_in_infos_agree_with_the_result(game_key):
    # infos' scores and is_success read the observation through split_obs: talon_v1's relational block
    # follows the globals, and reading them from the end of the vector gave [0, 0] in every game
    from wargym.arena.matches import arena_options
    # Planetoids' short game (its long one is thousands of decisions); the others at full length, where the
    # scripted bot has the time to destroy, kill or score what makes the two scores differ
    options = SHORT_GAME[game_key] if game_key == "planetoids" else {}
    env = WargymVecEnv(game_key, n_envs=4, opponent="scripted", options=arena_options(game_key, options), seed=2)
    env.reset()
    rng = np.random.default_rng(0)
    ended = []
    while len(ended) < 6:
        actions = [rng.choice(np.flatnonzero(m)) for m in env.action_masks()]
        _, rewards, dones, infos = env.step(actions)
        ended += [(rewards[i], infos[i]) for i in np.flatnonzero(dones)]
    for reward, info in ended:
        own, other = info["scores"]
        assert np.sign(own - other) == reward and info["is_success"] == (reward > 0), (reward, info["scores"])
    assert any(reward != 0 for reward, _ in ended)   # the scripted bot beats random: scores that differ


def test_vec_env_with_a_callable_opponent_matches_builtin_random_protocol():
    def first_legal(obs, masks):
        return np.array([np.flatnonzero(m)[0] for m in masks])
    env = WargymVecEnv(n_envs=3, opponent=first_legal, options={"turns": 2}, seed=0)
    env.reset()
    rng = np.random.default_rng(1)
    done_seen = False
    for _ in range(3000):
        obs, rewards, dones, infos = env.step([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        done_seen |= dones.any()
        if done_seen:
            break
    assert done_seen


def test_scripted_opponent_beats_random_clearly():
    result = win_rate_builtin("scripted", opponent="random", n_games=20, seed=3)
    assert result["win_rate"] >= 0.9, result


def test_mixture_of_builtin_opponents_one_per_game_every_seat():
    env = WargymVecEnv(n_envs=8, opponent="random, scripted", options={"turns": 2}, seed=0)
    bot = env.loop.game.bot
    # game b plays entry (b // 2) % 2 in both seats; the learner's seat alternates b % 2
    expected = [bot.POLICIES[n] for n in ("random", "random", "scripted", "scripted") * 2]
    assert env.loop.opponent_ids.tolist() == [[p, p] for p in expected]
    env.reset()
    env.step([np.flatnonzero(m)[0] for m in env.action_masks()])


@pytest.mark.parametrize("spec", ["random,grandmaster", "scripted,"])
def test_mixture_names_two_or_more_builtin_policies(spec):
    with pytest.raises(ValueError, match="two or more built-in policies"):
        WargymVecEnv(n_envs=2, opponent=spec, options={"turns": 2})


def test_frozen_model_as_opponent(tmp_path):
    from sb3_contrib import MaskablePPO
    env = WargymVecEnv(n_envs=2, opponent="random", options={"turns": 2}, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0)
    vs_model = WargymVecEnv(n_envs=2, opponent=model, options={"turns": 2}, seed=0)
    result = win_rate("random", opponent=model, n_games=2, options={"turns": 2})
    assert result["games"] == 2
    vs_model.reset()
    vs_model.step([np.flatnonzero(m)[0] for m in vs_model.action_masks()])


@pytest.mark.parametrize("game_key", GAME_KEYS)
def test_the_compiled_loops_are_given_writable_arrays_whatever_the_batch(game_key):
    """A read-only array is another Numba signature: the loops (the largest kernels) would be
    compiled a second time beside those `wargym compile` made (issue 30).  One game (the
    Gymnasium adapter's case) and a per-game policy array both pass writable C-ordered copies."""
    from wargym.envs.core.vec import VecGame
    venv = WargymVecEnv(game_key, n_envs=1, opponent="scripted", seed=0)
    venv.reset()
    venv.step(np.array([int(np.flatnonzero(venv.action_masks()[0])[0])], dtype=np.int64))
    assert venv.loop.opponent_ids.flags.writeable and venv.loop.opponent_ids.flags.c_contiguous
    game = load_game(game_key)
    core = VecGame(game, 2)
    core.reset(seed=1)
    game.bot.play(core, np.zeros((2, core.num_players), dtype=np.int64))
    signatures = game.bot.LOOPS.ranges.play_turns.signatures + game.bot.LOOPS.ranges.play_games.signatures
    # one signature each: no read-only array, no Fortran or any-layout copy of the C arrays
    assert signatures and not any("readonly" in str(sig) or "d, F)" in str(sig) or "d, A)" in str(sig)
                                  for sig in signatures)
