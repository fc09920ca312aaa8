"""Training throughput: learner decisions per second of MaskablePPO, end to end.

    python benchmarks/train_bench.py                 # every game, about 3-4 minutes
    python benchmarks/train_bench.py --games talon --decisions 200000 --json out.json

In one run, so that the machine's speed of the moment applies to all rows:

(a) the reference: PettingZoo's Stable-Baselines3 tutorial for connect four
    (MaskablePPO with SB3's defaults on one ``connect_four_v3`` env behind the
    tutorial's wrapper and ``ActionMasker``: one agent makes every move), run as
    its users run it: in a process of its own with torch's default settings
    (wargym's training changes process-wide settings, see training/runtime.py),
    once before and once after the wargym rows, the mean of the two reported;
(b) wargym's default training configuration (``wargym.training.train``) for each
    game against the random opponent, PPO phase only (no warm start, compiled
    kernels warmed up first), with its time split into env stepping, policy
    inference (and SB3's rollout bookkeeping), and gradient updates.

Each wargym row reports its ratio to (a).  Decisions are the learner's: the
opponent's moves are played inside the env and are not counted.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time


from wargym.registration import GAME_KEYS as GAMES


def tutorial_rate(steps: int) -> float:
    """PettingZoo's SB3 connect-four tutorial loop: decisions/s of ``MaskablePPO.learn``."""
    import gymnasium
    from pettingzoo.classic import connect_four_v3
    from pettingzoo.utils import BaseWrapper
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    class TutorialWrapper(BaseWrapper, gymnasium.Env):
        """The tutorial's wrapper: the AEC env seen by one agent that plays every turn.
        (Also a gymnasium.Env, which gymnasium 1.x requires of ActionMasker's env.)"""

        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            agent = self.agent_selection
            super().step(action)
            obs, reward, term, trunc, info = super().last()
            return obs, reward, term, trunc, info

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    env = TutorialWrapper(connect_four_v3.env())
    env.reset(seed=0)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, verbose=0, seed=0, device="cpu")
    t0 = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model.num_timesteps / (time.perf_counter() - t0)


def reference_rate(steps: int) -> float:
    """The tutorial's decisions/s, measured in a fresh process with torch's defaults."""
    import subprocess
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--tutorial-only", "--tutorial-steps", str(steps)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


class Timed:
    """Adds up the wall time of calls to ``obj.name``."""

    def __init__(self, obj, name):
        self.seconds = 0.0
        inner = getattr(obj, name)

        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                self.seconds += time.perf_counter() - t0
        setattr(obj, name, timed)


def wargym_rate(game: str, decisions: int) -> dict:
    """wargym's default configuration on ``game`` against random: decisions/s of the
    PPO phase and the share of its time in each part."""
    from wargym.training.train import build_parser, check_args, make_model
    from wargym.wrappers.sb3 import WargymVecEnv
    ap = build_parser()
    args = ap.parse_args(["--game", game, "--opponent", "random"])
    options = check_args(ap, args)
    env = WargymVecEnv(game, n_envs=args.n_envs, opponent="random", options=options, seed=0)
    env.reset()
    model = make_model(env, args, options)
    model.learn(total_timesteps=args.n_envs * args.n_steps)  # warm up: compiled kernels, torch's first calls
    stepping = Timed(env, "step_wait")
    rollouts = Timed(model, "collect_rollouts")
    updates = Timed(model, "train")
    t0 = time.perf_counter()
    model.learn(total_timesteps=decisions, reset_num_timesteps=True)
    wall = time.perf_counter() - t0
    n = model.num_timesteps
    return {"decisions": n, "seconds": round(wall, 2), "decisions_per_second": round(n / wall),
            "share_env_stepping": round(stepping.seconds / wall, 3),
            "share_inference_and_rollout_bookkeeping": round((rollouts.seconds - stepping.seconds) / wall, 3),
            "share_gradient_updates": round(updates.seconds / wall, 3),
            "config": {"n_envs": args.n_envs, "n_steps": args.n_steps, "batch_size": args.batch_size,
                       "epochs": args.epochs, "torch_threads": __import__("torch").get_num_threads()}}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    ap.add_argument("--decisions", type=int, default=300_000, help="learner decisions timed per game")
    ap.add_argument("--tutorial-steps", type=int, default=4096, help="decisions timed for the tutorial (2 rollouts)")
    ap.add_argument("--threads", type=int, default=None, help="torch threads for wargym (default: as wargym-train)")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--tutorial-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.tutorial_only:  # the reference's own process
        print(json.dumps(tutorial_rate(args.tutorial_steps)))
        return {}
    import torch

    from wargym.training.runtime import keep_freed_memory, torch_threads
    keep_freed_memory()  # as wargym-train does; the tutorial's run gets it too
    torch.set_num_threads(torch_threads(args.threads))
    results = {"machine": f"{os.cpu_count()} cores, torch {torch.__version__}, load average {os.getloadavg()[0]:.1f}",
               "time": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    before = reference_rate(args.tutorial_steps)
    print(f"PettingZoo SB3 tutorial, connect_four_v3:   {before:10,.0f} decisions/s (before)", flush=True)
    for game in args.games:
        r = wargym_rate(game, args.decisions)
        results[game] = r
        print(f"wargym {game:<14} PPO phase:        {r['decisions_per_second']:10,} decisions/s "
              f"(env {r['share_env_stepping']:.0%}, inference {r['share_inference_and_rollout_bookkeeping']:.0%}, "
              f"updates {r['share_gradient_updates']:.0%})", flush=True)
    after = reference_rate(args.tutorial_steps)
    ref = (before + after) / 2
    print(f"PettingZoo SB3 tutorial, connect_four_v3:   {after:10,.0f} decisions/s (after); mean {ref:,.0f}")
    results["pettingzoo_sb3_connect_four_tutorial"] = {"before": round(before), "after": round(after),
                                                       "mean": round(ref)}
    for game in args.games:
        results[game]["ratio_to_tutorial"] = round(results[game]["decisions_per_second"] / ref, 1)
        print(f"ratio {game:<14} {results[game]['ratio_to_tutorial']:6.1f} x tutorial")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return results


if __name__ == "__main__":
    main()
