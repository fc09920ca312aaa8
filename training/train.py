"""Train a MaskablePPO agent on a wargym game against a fixed opponent.

    python -m wargym.training.train                      # Planetoids vs random, short default budget
    python -m wargym.training.train --timesteps 2000000 --opponent scripted

Prints the trained agent's win rate against the opponent and where it saved
the model and the learning-curve PNG.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path



def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="wargym-train", description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="planetoids")
    ap.add_argument("--timesteps", type=int, default=60_000, help="learner decisions to train on (default: a short run)")
    ap.add_argument("--opponent", default="random", help="'random' or 'scripted'")
    ap.add_argument("--n-envs", type=int, default=16, help="games stepped together in the batched core")
    ap.add_argument("--reward", default="score", choices=["score", "win"],
                    help="'score': dense change of the score difference (default, learns faster); 'win': +1/-1/0 at the end")
    ap.add_argument("--warm-start", default="scripted", choices=["scripted", "none"],
                    help="behaviour-clone this built-in policy before PPO (default: scripted); 'none' = PPO from scratch")
    ap.add_argument("--warm-start-decisions", type=int, default=150_000)
    ap.add_argument("--warm-start-epochs", type=int, default=6)
    ap.add_argument("--eval-games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs", help="folder for the model, curve and summary")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    return ap


def main(argv=None) -> dict:
    args = build_parser().parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure as configure_sb3_logger
    from stable_baselines3.common.vec_env import VecMonitor

    from ..wrappers.sb3 import WargymVecEnv
    from .curve import CurveCallback, plot_curve
    from .evaluate import win_rate

    torch.set_num_threads(1)  # the env core already uses the cores; avoid oversubscription
    run_dir = Path(args.out) / f"{args.game}-ppo-{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir.mkdir(parents=True, exist_ok=True)
    options = {"reward": args.reward}
    print(f"wargym: training MaskablePPO on {args.game} against the {args.opponent} opponent "
          f"for {args.timesteps:,} decisions ({args.n_envs} games at a time). "
          "First run compiles the game kernels (about a minute).", flush=True)
    env = VecMonitor(WargymVecEnv(args.game, n_envs=args.n_envs, opponent=args.opponent, options=options,
                                  seed=args.seed))
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=512, n_epochs=4, learning_rate=3e-4,
                        gamma=0.995, ent_coef=0.01, seed=args.seed, verbose=0,
                        policy_kwargs={"net_arch": [256, 128]})
    # SB3's own training statistics (losses, entropy, ...) beside the model, rather than
    # in a fresh empty folder under /tmp on every run
    model.set_logger(configure_sb3_logger(str(run_dir), ["csv"]))
    t0 = time.perf_counter()
    if args.warm_start != "none":
        from .imitation import clone, collect
        teacher_env = WargymVecEnv(args.game, n_envs=args.n_envs, opponent=args.opponent, options=options,
                                   seed=args.seed + 7)
        X, M, A = collect(teacher_env, args.warm_start, args.warm_start_decisions)
        acc = clone(model, X, M, A, epochs=args.warm_start_epochs, seed=args.seed)
        print(f"warm start: behaviour cloning of the {args.warm_start} bot on {len(A):,} of its decisions "
              f"(agreement {acc:.0%}), then MaskablePPO", flush=True)
    curve = CurveCallback()
    model.learn(total_timesteps=args.timesteps, callback=curve, progress_bar=not args.no_progress)
    train_s = time.perf_counter() - t0
    model_path = run_dir / "model.zip"
    model.save(model_path)
    curve_path = plot_curve(curve, run_dir / "learning_curve.png", f"{args.game}: MaskablePPO vs {args.opponent}")

    # Sampled (not greedy) actions: a greedy masked policy can cycle through
    # the same non-scoring choices; sampling is how the policy was trained.
    result = win_rate(model, args.game, opponent=args.opponent, n_games=args.eval_games, seed=args.seed + 1000,
                      deterministic=False)
    summary = {"game": args.game, "opponent": args.opponent, "timesteps": args.timesteps,
               "warm_start": args.warm_start,
               "train_seconds": round(train_s, 1), "learner_steps_per_second": round(args.timesteps / train_s),
               "evaluation": result, "model": str(model_path), "learning_curve": str(curve_path)}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"\nwin rate against {args.opponent} (sampled actions): {result['win_rate']:.0%} "
          f"({result['wins']} wins, {result['draws']} draws, {result['losses']} losses in {result['games']} games)")
    print(f"trained {args.timesteps:,} decisions in {train_s:.0f} s ({args.timesteps / train_s:,.0f} decisions/s)")
    print(f"model:          {model_path}")
    print(f"learning curve: {curve_path}")
    return summary


if __name__ == "__main__":
    main()
