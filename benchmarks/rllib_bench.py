"""Training throughput on Ray RLlib against the SB3 path, in one run.

    python benchmarks/rllib_bench.py                          # Battle Force, 1 and 2 env runners, SB3
    python benchmarks/rllib_bench.py --game talon --decisions 100000 --local-nodes --json out.json

Rows (learner decisions per second of PPO, the opponent's moves played inside the env
and not counted; compiled kernels and the first iteration excluded):

* ``sb3``: wargym-train's default MaskablePPO (``benchmarks/train_bench.py``'s measurement),
  measured first and again last (``sb3-again``) to show how much the machine drifted;
* ``rllib-N``: PPO on RLlib's new API stack with N env runners (separate processes of
  ``256 / N`` games each in one batched core) and one learner in the driver, with the
  SB3 path's rollout (256 games x 32 decisions), minibatch (2,048) and epochs (2);
* ``--local-nodes``: also 2 env runners on a Ray cluster of two local nodes (two raylets
  of one CPU each on this machine, ``ray.cluster_utils.Cluster``): the multi-node code
  path (scheduling across nodes, object transfer between them) simulated on one machine.
  On one 2-core machine it cannot show more cores' worth of speed; on a real cluster each
  node brings its own cores.

Multi-node recipe (a Ray cluster of several machines):

    # on every machine: the same Python, torch and wargym, e.g. pip install "wargym[rllib]"
    head$    ray start --head --port=6379 --num-cpus=<cores>
    worker$  ray start --address=<head-ip>:6379 --num-cpus=<cores>     # on each other machine
    head$    RAY_ADDRESS=<head-ip>:6379 wargym-train --backend rllib --game battle_force \\
                 --env-runners <total cores minus one> --n-envs 64 --timesteps 20000000

``wargym-train`` joins the running cluster when ``RAY_ADDRESS`` is set (``ray.init``
reads it); the env runners spread over the machines, the learner stays in the driver.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

TOTAL_GAMES, ROLLOUT, MINIBATCH, EPOCHS = 256, 32, 2048, 2


def rllib_rate(game: str, runners: int, decisions: int, local_nodes: int = 0) -> dict:
    """Decisions/s of PPO on RLlib with ``runners`` env runners (after one warm-up iteration)."""
    import ray

    from wargym.rllib.train import ppo_config, sampled_decisions
    from wargym.training.train import DEFAULT_REWARD
    cluster = None
    if local_nodes:
        from ray.cluster_utils import Cluster
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        for _ in range(local_nodes - 1):
            cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False)
    else:
        ray.init(num_cpus=max(2, runners), include_dashboard=False, log_to_driver=False)
    try:
        algo = ppo_config(game, {"reward": DEFAULT_REWARD[game]}, "random",
                          runners, TOTAL_GAMES // max(1, runners), ROLLOUT, MINIBATCH, EPOCHS, seed=0).build_algo()
        start = sampled_decisions(algo.train())  # warm-up: the runners' kernels, torch's first calls
        t0 = time.perf_counter()
        done = start
        while done - start < decisions:
            done = sampled_decisions(algo.train())
        wall = time.perf_counter() - t0
        nodes = len({n["NodeID"] for n in ray.nodes() if n["Alive"]})
        algo.stop()
    finally:
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()
    n = done - start
    return {"decisions": n, "seconds": round(wall, 2), "decisions_per_second": round(n / wall),
            "env_runners": runners, "ray_nodes": nodes,
            "config": {"games_per_runner": TOTAL_GAMES // max(1, runners), "rollout": ROLLOUT,
                       "minibatch": MINIBATCH, "epochs": EPOCHS}}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="battle_force")
    ap.add_argument("--decisions", type=int, default=50_000, help="learner decisions timed per row")
    ap.add_argument("--runners", type=int, nargs="+", default=[1, 2], help="env runner counts to measure")
    ap.add_argument("--local-nodes", action="store_true", help="also 2 runners on two local Ray nodes")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    import torch

    from wargym.benchmarks.train_bench import wargym_rate
    from wargym.training.runtime import keep_freed_memory
    keep_freed_memory()
    results = {"game": args.game, "time": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "machine": f"{os.cpu_count()} cores, torch {torch.__version__}, "
                          f"load average {os.getloadavg()[0]:.1f} at the start"}
    rows = {}
    sb3 = wargym_rate(args.game, args.decisions)
    rows["sb3"] = {k: sb3[k] for k in ("decisions", "seconds", "decisions_per_second")}
    print(f"sb3 (wargym-train default)        {sb3['decisions_per_second']:8,} decisions/s", flush=True)
    for runners in args.runners:
        r = rllib_rate(args.game, runners, args.decisions)
        rows[f"rllib-{runners}"] = r
        print(f"rllib, {runners} env runner(s)           {r['decisions_per_second']:8,} decisions/s", flush=True)
    if args.local_nodes:
        r = rllib_rate(args.game, 2, args.decisions, local_nodes=2)
        rows["rllib-2-on-2-local-nodes"] = r
        print(f"rllib, 2 runners on {r['ray_nodes']} local nodes {r['decisions_per_second']:8,} decisions/s",
              flush=True)
    # the SB3 row again: the machine's speed may have drifted (other processes) during the run
    again = wargym_rate(args.game, args.decisions)
    rows["sb3-again"] = {k: again[k] for k in ("decisions", "seconds", "decisions_per_second")}
    print(f"sb3 again (after the RLlib rows)  {again['decisions_per_second']:8,} decisions/s", flush=True)
    results["rows"] = rows
    results["load_average_at_end"] = round(os.getloadavg()[0], 1)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
