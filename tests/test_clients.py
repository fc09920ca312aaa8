"""wargym in the RL libraries our users already have (issue 27): worker pools that fork or
spawn (Gymnasium's AsyncVectorEnv, SB3's SubprocVecEnv, Tianshou, TorchRL), pickled and
deep-copied envs and spaces, seeding that carries over resets, Gymnasium's and SB3's
checkers on every game and player count, ``max_cycles`` and the shared result infos.

Everything is kept tiny (two workers, a few steps): spawned children load the kernels
from Numba's cache, which the rest of the suite has filled.  The snippets in README's
"With your RL library" section are the ones run here.
"""
from __future__ import annotations

import copy
import multiprocessing
import pickle
import subprocess
import sys
import textwrap

import gymnasium
import numpy as np
import pettingzoo
import pytest

import wargym  # noqa: F401  (registers the ids)
from wargym.registration import GAMES, gymnasium_id, pettingzoo_id

ENVS = list(GAMES)
FIRST = ENVS[0]  # the game the worker-pool tests run (any would do; the first is the quickest)
# every game at its default player count, and Battle Force at every other count
CASES = [(module, {}) for module in ENVS] + [("battle_force_v1", {"players": n}) for n in (3, 4, 5, 6)]
CASE_IDS = [f"{m}-{o.get('players', 'default')}" for m, o in CASES]


def _aec(module, **kwargs):
    return pettingzoo.make("aec", pettingzoo_id(module), **kwargs)


def _legal_steps(env, steps, rng):
    """Up to ``steps`` random legal decisions through the AEC API (stops when the game ends)."""
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            return
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))


def _run_script(directory, code: str, timeout: int = 240) -> str:
    """Run ``code`` as a user's script (``python script.py``: workers started by spawn or
    forkserver import it again) and return its output."""
    script = directory / "script.py"
    script.write_text(textwrap.dedent(code))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


# -- pickling and deep copies ------------------------------------------------------------------
def test_legal_discrete_pickles_without_its_mask_hook():
    env = gymnasium.make(gymnasium_id(FIRST)).unwrapped
    env.reset(seed=0)
    for space in (pickle.loads(pickle.dumps(env.action_space)), copy.deepcopy(env.action_space)):
        assert space == env.action_space and space._mask_fn is None
        assert 0 <= space.sample() < space.n  # a plain Discrete now


@pytest.mark.parametrize("module", ENVS)
def test_aec_env_pickles_and_deep_copies_mid_game(module):
    env = _aec(module, max_cycles=500)
    env.reset(seed=5)
    _legal_steps(env, 6, np.random.default_rng(0))
    for duplicate in (lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy):
        twin = duplicate(env)
        assert twin.agent_selection == env.agent_selection and twin.infos == env.infos
        assert twin.unwrapped.core.options == env.unwrapped.core.options
        # both go on alike, and a reset() continues the same seeded stream in both
        for e in (env, twin):
            _legal_steps(e, 4, np.random.default_rng(1))
        np.testing.assert_array_equal(twin.observe(twin.agent_selection)["observation"],
                                      env.observe(env.agent_selection)["observation"])
    fresh = _aec(module)
    assert pickle.loads(pickle.dumps(fresh)).unwrapped.core.has_games is False  # before any reset


@pytest.mark.parametrize("module", ENVS)
def test_gymnasium_adapter_pickles_mid_game(module):
    env = gymnasium.make(gymnasium_id(module))
    env.reset(seed=2)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    twin = pickle.loads(pickle.dumps(env))
    for e in (env, twin):
        a = int(np.flatnonzero(e.unwrapped.action_masks())[-1])
        obs, *_ = e.step(a)
    np.testing.assert_array_equal(obs, twin.unwrapped.loop.core.obs[0].reshape(-1))
    assert twin.unwrapped.action_space._mask_fn is not None  # rebuilt by the constructor, hook and all


# -- worker pools ----------------------------------------------------------------------------------
@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_gymnasium_async_vector_env(context):
    envs = gymnasium.make_vec(gymnasium_id(FIRST), num_envs=2 if context == "fork" else 1,  # (spawn: imports)
                              vectorization_mode="async", vector_kwargs={"context": context})
    try:
        obs, _ = envs.reset(seed=0)
        masks = envs.call("action_masks")
        obs, rewards, terminated, truncated, _ = envs.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        assert obs.shape == (envs.num_envs, *envs.single_observation_space.shape)
    finally:
        envs.close()


def test_sb3_subproc_vec_env_after_a_reset_with_fork():
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    parent = gymnasium.make(gymnasium_id(FIRST))
    parent.reset(seed=0)  # the parent has run the kernels before it forks
    envs = make_vec_env(gymnasium_id(FIRST), n_envs=2, vec_env_cls=SubprocVecEnv,
                        vec_env_kwargs={"start_method": "fork"})
    try:
        envs.reset()
        masks = np.stack(envs.env_method("action_masks"))
        envs.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    finally:
        envs.close()


def test_sb3_subproc_vec_env_plain_id_in_a_script(tmp_path):
    """The README's snippet: ``import wargym`` at the top of the script registers the ids in the
    workers too (SB3 starts them with forkserver or spawn, which import the main script again)."""
    out = _run_script(tmp_path, f"""
        import wargym  # registers "wargym/..." here and in every worker
        from stable_baselines3.common.env_util import make_vec_env
        from stable_baselines3.common.vec_env import SubprocVecEnv

        if __name__ == "__main__":
            envs = make_vec_env("{gymnasium_id(FIRST)}", n_envs=1, vec_env_cls=SubprocVecEnv)
            print(envs.reset().shape)
            envs.close()
    """)
    assert out.strip().startswith("(1,")


def test_fork_after_import_after_a_reset_and_after_a_parallel_batch(tmp_path):
    """No thread pool at import, and a forked child that plays one env or steps a large batch
    survives whatever its parent did: nothing of a step enters an OpenMP parallel region (GNU
    OpenMP would kill the child), large batches run on Python threads (threads.py)."""
    out = _run_script(tmp_path, f"""
        import os
        import numpy as np
        from numba.np.ufunc import parallel
        import wargym, pettingzoo
        from wargym.envs.core.vec import VecGame
        from wargym.envs.core.threads import PARALLEL_FROM

        def child_plays():
            pid = os.fork()
            if pid == 0:
                env = pettingzoo.make("aec", "{pettingzoo_id(FIRST)}")
                env.reset(seed=1)
                for _ in range(5):
                    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
                # a large batch too: its ranges run on Python threads, which a child starts anew
                big = VecGame(env.unwrapped.game, PARALLEL_FROM)
                big.reset(seed=0)
                big.step(np.array([np.flatnonzero(m)[0] for m in big.mask]))
                os._exit(0)
            assert os.waitpid(pid, 0)[1] == 0, "the forked child died"

        from wargym.envs import {FIRST}
        print("pool after import:", parallel._is_initialized)
        child_plays()                                   # after import
        env = pettingzoo.make("aec", "{pettingzoo_id(FIRST)}")
        env.reset(seed=0)
        child_plays()                                   # after a reset
        core = VecGame(env.unwrapped.game, PARALLEL_FROM)
        core.reset(seed=0)
        core.step(np.array([np.flatnonzero(m)[0] for m in core.mask]))
        child_plays()                                   # after a parallel batch
        print("ok")
    """)
    assert "pool after import: False" in out and out.strip().endswith("ok")


# -- seeding ----------------------------------------------------------------------------------------
def _games_after_resets(make, resets=3):
    """The state after each of ``resets`` resets, the first seeded, the others not."""
    env = make()
    states = []
    for i in range(resets):
        env.reset(seed=11 if i == 0 else None)
        states.append(env.unwrapped.core.clone_state() if hasattr(env.unwrapped, "core")
                      else env.unwrapped.loop.core.clone_state())
    return states


def _same(a, b):
    return all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)


@pytest.mark.parametrize("module", ENVS)
def test_seeded_replay_across_resets(module):
    for make in (lambda: _aec(module), lambda: gymnasium.make(gymnasium_id(module))):
        first, second = _games_after_resets(make), _games_after_resets(make)
        assert all(_same(a, b) for a, b in zip(first, second))
        assert not _same(first[0], first[1])  # reset() starts a new game, not the seeded one again


def test_batched_core_continues_the_seeded_stream():
    from wargym.envs.core.vec import VecGame
    game = _aec(FIRST).unwrapped.game

    def run():
        core = VecGame(game, 2)
        core.reset(seed=4)
        core.reset()
        return core.clone_state()
    assert _same(run(), run())


# -- checkers and the illegal-action contract --------------------------------------------------------
@pytest.mark.parametrize("module,options", CASES, ids=CASE_IDS)
def test_gymnasium_check_env(module, options):
    from gymnasium.utils.env_checker import check_env
    env = gymnasium.make(gymnasium_id(module), options=options, illegal_action="lose")
    assert "render_fps" in env.metadata
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("module,options", CASES, ids=CASE_IDS)
def test_sb3_check_env(module, options):
    from stable_baselines3.common.env_checker import check_env
    check_env(gymnasium.make(gymnasium_id(module), options=options).unwrapped)


@pytest.mark.parametrize("module", ENVS)
def test_illegal_action_raises_by_default_and_loses_on_request(module):
    env = _aec(module)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal"):
        env.step(illegal)
    env = _aec(module, illegal_action="lose")
    env.reset(seed=0)
    mover = env.agent_selection
    env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[mover] == -1 and "illegal_action" in env.infos[mover]
    adapter = gymnasium.make(gymnasium_id(module), illegal_action="lose").unwrapped
    adapter.reset(seed=0)
    illegal = int(np.flatnonzero(~adapter.action_masks())[0])
    _, reward, terminated, truncated, info = adapter.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False) and "illegal_action" in info
    with pytest.raises(ValueError, match="illegal_action"):
        _aec(module, illegal_action="forfeit")


# -- max_cycles and the result infos ---------------------------------------------------------------
@pytest.mark.parametrize("module", ENVS)
def test_max_cycles_and_the_result_info_schema(module):
    env = _aec(module, max_cycles=3)
    env.reset(seed=0)
    players = len(env.possible_agents)
    for info in env.infos.values():  # from reset on, neutral
        assert info["winner"] == -1 and info["scores"] == [0] * players and isinstance(info["rounds"], int)
        # numbers and fixed-length lists of numbers only: clients make tensors of them
        assert all(np.asarray(v).dtype.kind in "biuf" for v in info.values()), info
    _legal_steps(env, 3, np.random.default_rng(0))
    assert all(env.truncations.values())  # cut off after max_cycles decisions
    for info in env.infos.values():
        assert {"winner", "scores", "rounds"} <= set(info) and info["winner"] == -1
    with pytest.raises(ValueError, match="max_cycles"):
        _aec(module, max_cycles=3, max_decisions=4)


# -- the other libraries' own wrappers -----------------------------------------------------------------
def test_tianshou_subproc_vector_env_with_fork():
    tianshou_env = pytest.importorskip("tianshou.env", reason="tianshou is in the clients extra")

    def make():
        return tianshou_env.PettingZooEnv(_aec(FIRST))
    envs = tianshou_env.SubprocVectorEnv([make, make], context="fork")
    try:
        obs, _ = envs.reset()
        first = [int(np.flatnonzero(o["mask"])[0]) for o in obs]
        envs.step(np.array(first))
    finally:
        envs.close()


@pytest.mark.parametrize("module", ENVS)
def test_torchrl_pettingzoo_wrapper_specs(module):
    pytest.importorskip("torchrl", reason="torchrl is in the clients extra")
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs
    check_env_specs(PettingZooWrapper(_aec(module), use_mask=True))  # the infos' specs come from reset's


def test_torchrl_parallel_env_with_fork():
    pytest.importorskip("torchrl", reason="torchrl is in the clients extra")
    from torchrl.envs import ParallelEnv, PettingZooWrapper

    def make(**kwargs):
        return PettingZooWrapper(_aec(FIRST, **kwargs), use_mask=True)
    # random actions: the batched env's spec does not see each worker's mask, so an illegal
    # action ends that game (PettingZoo classic's contract) instead of raising
    envs = ParallelEnv(2, lambda: make(illegal_action="lose"), mp_start_method="fork")
    try:
        envs.rollout(3)
    finally:
        envs.close()
