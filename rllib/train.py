"""PPO on RLlib's new API stack for a wargym game (``wargym-train --backend rllib``).

    wargym-train --backend rllib --game talon --opponent scripted --env-runners 2 --timesteps 200000

Each env runner steps ``--n-envs`` games in one batched core (``envs.WargymVectorEnv``)
with the opponent inside the compiled core; the learner updates ``WargymTorchModule``
(the SB3 path's network, masked).  ``--opponent self-play`` trains against the league
(``league.py``).  The run's folder holds RLlib's checkpoint (``checkpoint/``, loadable
by ``wargym-arena --policy NAME=<run>/checkpoint`` and by ``policy.load``), the same
network as a MaskablePPO zip (``model.zip``: the SB3 path's layers and names, for
``wargym serve`` and anything else that reads SB3 checkpoints) and ``summary.json``
(speed, learning statistics, final win rates).

The warm start of the SB3 path (behaviour cloning) is not run here; the learning-rate,
rollout and batch flags mean the same as there: a rollout is ``--env-runners`` (at least
one) x ``--n-envs`` x ``--n-steps`` decisions, cut into minibatches of ``--batch-size``.
"""
from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import numpy as np

MODULE_ID = "default_policy"  # RLlib's id of the single-agent module
SELF_PLAY_MODULE = "main"  # the module every seat shares in self_play_config
RLLIB_DEFAULT_RUNNERS = 2


def ppo_config(game: str, options: dict, opponent="random", env_runners: int = RLLIB_DEFAULT_RUNNERS,
               envs_per_runner: int = 64, rollout: int = 32, minibatch: int = 2048, epochs: int = 2,
               lr: float = 3e-4, seed: int = 0, features_dim: int = 64, hidden: int = 64):
    """The PPO configuration (``ray.rllib.algorithms.ppo.PPOConfig``) of wargym's default
    training: the SB3 path's hyper-parameters (gamma 0.995, lambda 0.95, entropy 0.005,
    clip 0.2), one learner in the driver, ``env_runners`` sampling processes (0 = sample in
    the driver) of ``envs_per_runner`` games each."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .envs import VECTOR_ENV, register_envs
    from .module import WargymTorchModule
    register_envs()
    batch = max(1, env_runners) * envs_per_runner * rollout
    return (PPOConfig()
            .environment(env=VECTOR_ENV, env_config={"game": game, "options": options, "opponent": opponent,
                                                     "seed": seed})
            .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner,
                         gym_env_vectorize_mode="vector_entry_point", rollout_fragment_length=rollout,
                         num_cpus_per_env_runner=1 if env_runners else 0)
            .learners(num_learners=0)
            .rl_module(rl_module_spec=RLModuleSpec(
                module_class=WargymTorchModule,
                model_config={"game": game, "options": options, "features_dim": features_dim, "hidden": hidden}))
            .training(train_batch_size_per_learner=batch, minibatch_size=min(minibatch, batch), num_epochs=epochs,
                      lr=lr, gamma=0.995, lambda_=0.95, entropy_coeff=0.005, clip_param=0.2, vf_loss_coeff=0.5,
                      grad_clip=0.5)
            .debugging(seed=seed, log_level="ERROR"))


def self_play_config(game: str, options: dict, env_runners: int = RLLIB_DEFAULT_RUNNERS, envs_per_runner: int = 8,
                     rollout: int = 64, minibatch: int = 512, epochs: int = 2, lr: float = 3e-4, seed: int = 0,
                     features_dim: int = 64, hidden: int = 64):
    """PPO on the turn-based ``WargymMultiAgentEnv``: every seat is played by one shared
    module ``main`` (true self-play; each seat's transitions are its own, rewards included).
    Each env runner steps ``envs_per_runner`` single games (RLlib vectorises multi-agent envs
    in Python, so this path is slower than the learner-vs-opponent one)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .envs import MULTI_AGENT_ENV, register_envs
    from .module import WargymTorchModule
    register_envs()
    batch = max(1, env_runners) * envs_per_runner * rollout
    spec = RLModuleSpec(module_class=WargymTorchModule,
                        model_config={"game": game, "options": options, "features_dim": features_dim,
                                      "hidden": hidden})
    return (PPOConfig()
            .environment(env=MULTI_AGENT_ENV, env_config={"game": game, "options": options, "seed": seed})
            .multi_agent(policies={SELF_PLAY_MODULE}, policy_mapping_fn=lambda agent_id, episode, **kw: SELF_PLAY_MODULE)
            .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner,
                         rollout_fragment_length=rollout, num_cpus_per_env_runner=1 if env_runners else 0)
            .learners(num_learners=0)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SELF_PLAY_MODULE: spec}))
            .training(train_batch_size_per_learner=batch, minibatch_size=min(minibatch, batch), num_epochs=epochs,
                      lr=lr, gamma=0.995, lambda_=0.95, entropy_coeff=0.005, clip_param=0.2, vf_loss_coeff=0.5,
                      grad_clip=0.5)
            .debugging(seed=seed, log_level="ERROR"))


def learner_stats(result: dict, module_id: str = MODULE_ID) -> dict:
    """The learning statistics of one iteration (losses, entropy, KL) as plain floats."""
    learner = result.get("learners", {}).get(module_id, {})
    names = ("total_loss", "policy_loss", "vf_loss", "entropy", "mean_kl_loss", "curr_kl_coeff")
    return {n: float(learner[n]) for n in names if n in learner}


def sampled_decisions(result: dict) -> int:
    runners = result.get("env_runners", {})
    return int(runners.get("num_env_steps_sampled_lifetime", 0))


def train_iterations(algo, decisions: int, on_iteration=None, module_id: str = MODULE_ID) -> list[dict]:
    """``algo.train()`` until ``decisions`` learner decisions are sampled; each iteration's
    statistics (``decisions``, ``seconds``, learning statistics, mean episode return)."""
    history = []
    t0 = time.perf_counter()
    while True:
        if on_iteration is not None:
            on_iteration(algo, len(history))
        result = algo.train()
        done = sampled_decisions(result)
        runners = result.get("env_runners", {})
        history.append({"iteration": len(history) + 1, "decisions": done,
                        "seconds": round(time.perf_counter() - t0, 2), **learner_stats(result, module_id),
                        "episode_return_mean": _float(runners.get("episode_return_mean"))})
        if done >= decisions:
            return history


def _float(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def main(args, options: dict) -> dict:
    """``wargym-train --backend rllib``: train, save the checkpoint, evaluate in the arena."""
    import ray

    from ..arena.policies import Policy, load_game
    from ..training.evaluate import print_win_rates
    from .policy import export_sb3, load as load_policy

    opponent = "scripted" if args.opponent == "self-play" else args.opponent
    runners = RLLIB_DEFAULT_RUNNERS if args.env_runners is None else args.env_runners
    print(f"wargym: PPO on RLlib ({runners} env runners x {args.n_envs} games) on {args.game} against "
          f"{args.opponent} for {args.timesteps:,} decisions (no warm start on this backend)", flush=True)
    t_start = time.perf_counter()
    if not ray.is_initialized():
        if os.environ.get("RAY_ADDRESS"):  # a running cluster (several machines): join it
            ray.init(log_to_driver=False)
        else:
            ray.init(num_cpus=max(2, runners + 1), include_dashboard=False, log_to_driver=False)
    config = ppo_config(args.game, options, opponent, runners, args.n_envs, args.n_steps, args.batch_size,
                        args.epochs, args.learning_rate, args.seed)
    algo = config.build_algo()
    league = None
    if args.opponent == "self-play":
        from .league import RatedLeague
        league = RatedLeague(args.game, options, seed=args.seed)
    t0 = time.perf_counter()
    history = train_iterations(algo, args.timesteps, league.before_iteration if league else None)
    train_s = time.perf_counter() - t0
    run_dir = Path(args.out) / f"{args.game}-rllib-ppo-{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir.mkdir(parents=True, exist_ok=True)
    checkpoint = algo.save_to_path(str((run_dir / "checkpoint").resolve()))
    algo.stop()

    game = load_game(args.game)
    policy = Policy("rllib", path=Path(checkpoint), model=load_policy(checkpoint))
    sb3_zip = export_sb3(policy.model, args.game, options, run_dir / "model.zip")
    evaluation = {}
    for opp in dict.fromkeys([opponent, "random"]):
        evaluation[opp] = evaluate(game, policy, opp, options, args.eval_games, args.seed + 1000)
    decisions = history[-1]["decisions"]
    summary = {"game": args.game, "backend": "rllib", "options": options, "opponent": args.opponent,
               "env_runners": runners, "envs_per_runner": args.n_envs, "timesteps": decisions,
               "iterations": len(history), "train_seconds": round(train_s, 1),
               "decisions_per_second": round(decisions / train_s),
               "total_seconds": round(time.perf_counter() - t_start, 1), "history": history,
               "evaluation": evaluation, "league": league.history if league else None,
               "checkpoint": str(checkpoint), "sb3_model": str(sb3_zip)}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    print_win_rates(evaluation)
    print(f"PPO on RLlib: {decisions:,} decisions in {train_s:.0f} s ({summary['decisions_per_second']:,} "
          f"decisions/s)")
    print(f"checkpoint: {checkpoint}")
    print(f"as SB3:     {sb3_zip} (MaskablePPO: wargym serve, baselines, anything that reads SB3 zips)")
    print(f"summary:    {run_dir / 'summary.json'}")
    return summary


def evaluate(game, policy, opponent: str, options: dict, n_games: int, seed: int) -> dict:
    """Win rate of ``policy`` against a built-in ``opponent``, half the games in each seat
    (the arena's games: ``arena.matches.play_lineup``, the game's win/rank reward)."""
    from ..arena.matches import arena_options, play_lineup
    from ..arena.policies import Policy
    from .league import players
    opp = Policy(opponent, builtin=int(game.bot.POLICIES[opponent]))
    opts = arena_options(game.NAME, {k: v for k, v in options.items() if k != "reward"})
    first = max(1, n_games // 2)
    results = [play_lineup(game, [policy, opp] + [opp] * (players(game, opts) - 2), first, opts, seed)[:, 0],
               play_lineup(game, [opp, policy] + [opp] * (players(game, opts) - 2), n_games - first or 1, opts,
                           seed + 1)[:, 1]]
    r = np.concatenate(results)
    wins, losses = int((r > 0).sum()), int((r < 0).sum())
    return {"games": len(r), "wins": wins, "draws": len(r) - wins - losses, "losses": losses,
            "win_rate": wins / len(r)}

