"""wargym on Ray RLlib (issue 18): the envs, the masked module, training, checkpoints, league.

Needs the ``rllib`` extra (skipped without ray).  The training tests share one
``ray.init(num_cpus=2)`` and train a few tiny iterations per game with two env
runners: they check the plumbing (legal actions only, finite statistics, checkpoints
the arena loads), not learning.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from helpers.play import SHORT_GAME  # noqa: E402
from wargym.registration import GAME_KEYS  # noqa: E402
from wargym.rllib.envs import MASK_KEY, OBS_KEY, WargymMultiAgentEnv, WargymVectorEnv  # noqa: E402

# every game; Battle Force at each table size
TABLES = [(g, {}) for g in GAME_KEYS if g != "battle_force"] + [("battle_force", {"players": p}) for p in range(2, 7)]
TABLE_IDS = [f"{g}-{o.get('players', 2)}p" for g, o in TABLES]


def legal_choice(rng, mask):
    return int(rng.choice(np.flatnonzero(mask)))


# -- (1) the environments -----------------------------------------------------------------------
@pytest.mark.parametrize("game,options", TABLES, ids=TABLE_IDS)
def test_multi_agent_env_passes_rllib_check_and_plays_whole_games(game, options):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments
    env = WargymMultiAgentEnv(game, options=options, seed=3)
    check_multiagent_environments(env)
    P = env.core.num_players
    assert env.possible_agents == [f"player_{p}" for p in range(P)]
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=11)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(20_000):
        # only the agent to act receives an observation, with its legal actions
        (agent,) = obs
        assert agent == f"player_{env.core.current_player[0]}"
        assert env.observation_spaces[agent].contains(obs[agent])
        assert obs[agent][MASK_KEY].any()
        obs, rewards, terminated, truncated, _ = env.step({agent: legal_choice(rng, obs[agent][MASK_KEY])})
        for a, r in rewards.items():
            totals[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            break
    else:
        pytest.fail("no game ended in 20,000 decisions")
    # the end: every seat gets its final observation and its done flags
    assert set(obs) == set(env.possible_agents)
    assert all(not o[MASK_KEY].any() for o in obs.values())
    assert set(terminated) == set(env.possible_agents) | {"__all__"}
    assert all(math.isfinite(t) for t in totals.values())


def test_multi_agent_env_refuses_bad_actions_and_changes_nothing():
    env = WargymMultiAgentEnv("battle_force", seed=5)
    obs, _ = env.reset()
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    mask = obs[agent][MASK_KEY]
    before = env.core.clone_state()
    with pytest.raises(ValueError, match="decision alone"):
        env.step({other: 0})
    with pytest.raises(ValueError, match="illegal"):
        env.step({agent: int(np.flatnonzero(mask == 0)[0])})
    after = env.core.clone_state()
    assert all(np.array_equal(getattr(before, f), getattr(after, f)) for f in vars(before)
               if isinstance(getattr(before, f), np.ndarray))


@pytest.mark.parametrize("game", GAME_KEYS)
def test_vector_env_restarts_games_the_next_step_way(game):
    """The step that ends a game gives its final observation (no legal action left) and the
    done flag; the next step ignores that game's action and shows the next game's start."""
    env = WargymVectorEnv(game, num_envs=4, opponent="random", seed=2)
    obs, _ = env.reset(seed=2)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(1)
    for _ in range(20_000):
        actions = np.array([legal_choice(rng, m) for m in obs[MASK_KEY]])
        obs, rewards, terminated, truncated, infos = env.step(actions)
        ended = terminated | truncated
        if ended.any():
            break
    else:
        pytest.fail("no game ended in 20,000 decisions")
    b = int(np.flatnonzero(ended)[0])
    assert not obs[MASK_KEY][b].any()
    assert infos["_scores"][b] and infos["_is_success"][b]
    before = env.decisions
    # an action the game could never take is ignored in the restarting game
    actions = np.array([0 if ended[i] else legal_choice(rng, obs[MASK_KEY][i]) for i in range(4)])
    actions[ended] = env.num_actions + 7
    obs, rewards, terminated, truncated, _ = env.step(actions)
    assert env.decisions == before + int((~ended).sum())
    assert np.all(rewards[ended] == 0) and not (terminated[ended] | truncated[ended]).any()
    assert obs[MASK_KEY][ended].any(axis=1).all()  # the new game waits for the learner's decision


def test_vector_env_refuses_an_illegal_action_and_changes_nothing():
    env = WargymVectorEnv("planetoids", num_envs=3, opponent="random", seed=4)
    obs, _ = env.reset()
    before = obs[OBS_KEY].copy()
    actions = np.array([int(np.flatnonzero(m)[0]) for m in obs[MASK_KEY]])
    actions[1] = int(np.flatnonzero(obs[MASK_KEY][1] == 0)[0])
    with pytest.raises(ValueError, match="game 1: action"):
        env.step(actions)
    assert np.array_equal(env.loop.core.obs.reshape(3, -1), before) and env.decisions == 0


# -- (2) the module -----------------------------------------------------------------------------
def build_module(game, options=None):
    from wargym.rllib.envs import observation_space
    from wargym.rllib.module import WargymTorchModule
    env = WargymVectorEnv(game, num_envs=1, options=options)
    return WargymTorchModule(observation_space=observation_space(env.obs_size, env.num_actions),
                             action_space=env.single_action_space, inference_only=False,
                             model_config={"game": game, "options": options}), env


def test_masked_module_never_samples_an_illegal_action():
    import torch
    module, env = build_module("battle_force")
    env.loop._seed = 9
    obs, _ = env.reset()
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    with torch.no_grad():  # large logits on illegal actions: the mask must still win
        module.action_net.bias.copy_(torch.as_tensor(np.where(obs[MASK_KEY][0] > 0, -30.0, 30.0)))
    for _ in range(50):
        actions = module.act(obs[OBS_KEY], obs[MASK_KEY])
        assert obs[MASK_KEY][0, actions[0]] == 1
        obs = env.step([legal_choice(rng, obs[MASK_KEY][0])])[0]
        if not obs[MASK_KEY][0].any():
            obs = env.step([0])[0]


def test_sb3_weights_move_into_the_rllib_module():
    """The module has the SB3 policy's layers and names: a MaskablePPO of wargym-train's
    network, copied in, gives the same action probabilities and values."""
    import torch
    from sb3_contrib import MaskablePPO

    from wargym.rllib.module import load_sb3_weights, sb3_state_dict
    from wargym.training.networks import policy_kwargs
    from wargym.wrappers.sb3 import WargymVecEnv
    sb3 = MaskablePPO("MlpPolicy", WargymVecEnv("battle_force", n_envs=2, seed=1), n_steps=8, batch_size=16,
                      device="cpu", seed=1, policy_kwargs=policy_kwargs("battle_force", None))
    module, env = build_module("battle_force")
    load_sb3_weights(module, sb3.policy.state_dict())
    obs, _ = env.reset(seed=3)
    flat = torch.as_tensor(obs[OBS_KEY]).float()
    mask = obs[MASK_KEY].astype(bool)
    with torch.no_grad():
        dist = sb3.policy.get_distribution(flat, action_masks=mask)
        ours = module._forward_train({"obs": {OBS_KEY: torch.as_tensor(obs[OBS_KEY]),
                                              MASK_KEY: torch.as_tensor(obs[MASK_KEY])}})
        ours_p = torch.softmax(ours["action_dist_inputs"], dim=1)
        assert torch.allclose(dist.distribution.probs, ours_p, atol=1e-6)
        assert torch.allclose(sb3.policy.predict_values(flat).squeeze(-1),
                              module.compute_values({}, embeddings=ours["embeddings"]), atol=1e-6)
    back = sb3_state_dict(module)
    assert all(torch.equal(back[k], v) for k, v in sb3.policy.state_dict().items())
    with pytest.raises(ValueError, match="do not fit"):
        load_sb3_weights(build_module("planetoids")[0], sb3.policy.state_dict())


# -- (3) training, checkpoints, the arena -------------------------------------------------------
@pytest.fixture(scope="module")
def ray_cluster():
    import ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def runner_decisions(algo) -> int:
    """Learner actions the env runners' envs applied (each one checked legal before it was)."""
    counts = algo.env_runner_group.foreach_env_runner(
        lambda r: r.env.unwrapped.decisions if getattr(r, "env", None) is not None else 0, local_env_runner=False)
    return int(sum(counts))


@pytest.mark.parametrize("game", GAME_KEYS)
def test_ppo_trains_with_two_env_runners_and_the_arena_loads_its_checkpoint(game, ray_cluster, tmp_path):
    from wargym.arena.matches import play_tournament
    from wargym.arena.policies import load_game, parse_policy
    from wargym.rllib.train import ppo_config, train_iterations
    algo = ppo_config(game, {}, "random", env_runners=2, envs_per_runner=4, rollout=8, minibatch=32,
                      epochs=1, seed=1).build_algo()
    try:
        history = train_iterations(algo, 128)
        assert runner_decisions(algo) >= history[-1]["decisions"] >= 128  # every one legal, or the env raised
        last = history[-1]
        for stat in ("total_loss", "policy_loss", "vf_loss", "entropy"):
            assert math.isfinite(last[stat]), (stat, last)
        checkpoint = algo.save_to_path(str(tmp_path / "checkpoint"))
    finally:
        algo.stop()
    g = load_game(game)
    # short games: the checkpoint has to load and play whole games, not long ones (a Planetoids game of
    # 2,000 decisions took 40 s of module calls)
    t = play_tournament(game, g, [parse_policy(f"rl={checkpoint}", g), parse_policy("random", g)],
                        options=SHORT_GAME[game], games_per_lineup=2, seed=0)
    assert t.results.shape == (2, 2) and np.isfinite(t.results).all()


def test_true_self_play_on_the_multi_agent_env_at_three_players(ray_cluster, tmp_path):
    """Every seat of a 3-player Battle Force game played by one shared module, trained on
    RLlib's multi-agent runner; its checkpoint (module ``main``) plays in the arena."""
    from wargym.arena.matches import play_tournament
    from wargym.arena.policies import load_game, parse_policy
    from wargym.rllib.train import SELF_PLAY_MODULE, self_play_config, train_iterations
    options = {"players": 3}
    algo = self_play_config("battle_force", options, env_runners=0, envs_per_runner=2, rollout=16, minibatch=32,
                            epochs=1, seed=3).build_algo()
    try:
        history = train_iterations(algo, 64, module_id=SELF_PLAY_MODULE)
        for stat in ("total_loss", "policy_loss", "vf_loss", "entropy"):
            assert math.isfinite(history[-1][stat]), (stat, history[-1])
        checkpoint = algo.save_to_path(str(tmp_path / "checkpoint"))
    finally:
        algo.stop()
    g = load_game("battle_force")
    t = play_tournament("battle_force", g, [parse_policy(f"rl={checkpoint}", g), parse_policy("random", g)],
                        options=options, games_per_lineup=1, seed=0)
    assert t.players == 3 and np.isfinite(t.results).all()


def test_arena_refuses_an_rllib_checkpoint_of_another_game(ray_cluster, tmp_path):
    from wargym.arena.matches import play_tournament
    from wargym.arena.policies import load_game, parse_policy
    from wargym.rllib.train import ppo_config
    algo = ppo_config("planetoids", {}, "random", env_runners=0, envs_per_runner=2, rollout=4).build_algo()
    checkpoint = algo.save_to_path(str(tmp_path / "checkpoint"))
    algo.stop()
    g = load_game("battle_force")
    with pytest.raises(ValueError, match="expects observations"):
        play_tournament("battle_force", g, [parse_policy(f"rl={checkpoint}", g), parse_policy("random", g)],
                        games_per_lineup=1)


def test_wargym_train_backend_rllib(ray_cluster, tmp_path):
    """``wargym-train --backend rllib``: trains, saves a checkpoint and a summary, evaluates."""
    from wargym.training.train import main
    summary = main(["--backend", "rllib", "--game", "battle_force", "--opponent", "random", "--env-runners", "0",
                    "--timesteps", "64", "--n-envs", "4", "--n-steps", "8", "--batch-size", "16", "--epochs", "1",
                    "--eval-games", "2", "--out", str(tmp_path), "--no-progress"])
    assert summary["backend"] == "rllib" and summary["timesteps"] >= 64
    assert summary["evaluation"]["random"]["games"] == 2
    saved = json.loads((next(tmp_path.glob("battle_force-rllib-ppo-*")) / "summary.json").read_text())
    assert saved["checkpoint"] == summary["checkpoint"]
    from wargym.rllib.policy import load
    assert load(summary["checkpoint"]).action_space.n == WargymVectorEnv("battle_force", 1).num_actions
    # wargym serve --model battle_force_v1:rl=<checkpoint> serves it like any other bot
    from wargym.serve.session import Server
    server = Server(models={"battle_force_v1": {"rl": summary["checkpoint"]}})
    reply = server.handle({"v": 1, "type": "bot_move", "game": "battle_force_v1", "state": {"seed": 1},
                           "bot": "model:rl", "time_limit_ms": 120_000})
    assert reply["ok"] and not reply["actions"][0].get("fallback"), reply


def test_league_draws_opponents_from_the_arena_scores(ray_cluster):
    """Snapshots join, the arena scores every member, each iteration's opponent is set in the
    env runners' games (a bot by name, a snapshot as a frozen module)."""
    from wargym.rllib.league import RatedLeague, pfsp_weights
    from wargym.rllib.train import ppo_config, train_iterations
    algo = ppo_config("battle_force", {}, "random", env_runners=0, envs_per_runner=4, rollout=8, minibatch=16,
                      epochs=1, seed=2).build_algo()
    league = RatedLeague("battle_force", {}, snapshot_every=1, rate_every=2, games=2, keep=2, seed=0)
    try:
        train_iterations(algo, 64, league.before_iteration)
        env = algo.env_runner.env.unwrapped
        opponent = env.loop.opponents[0].name
    finally:
        algo.stop()
    assert [h["iteration"] for h in league.history] == list(range(1, len(league.history) + 1))
    assert len(league.snapshots) == min(2, len(league.history))
    last = league.history[-1]
    assert "random" in league.bots and len(league.bots) >= 2  # each built-in bot once (aliases dropped)
    assert set(last["scores"]) == set(league.bots) | {n for n, _ in league.snapshots}
    assert all(0.0 <= s <= 1.0 for s in last["scores"].values())
    assert opponent == (last["opponent"] if last["opponent"] in league.bots else "<lambda>")
    # the documented weights: opponents the learner beats are drawn least, none never
    assert np.allclose(pfsp_weights([1.0, 0.5, 0.0]), np.array([0.05, 0.3, 1.05]) / 1.4)


def test_wargym_train_refuses_rllib_only_flags_with_sb3():
    from wargym.training.train import main
    with pytest.raises(SystemExit):
        main(["--env-runners", "2"])
