"""Cold start: the time from an empty Numba cache to each game's first step, and what it compiles.

For each game, in a fresh process with ``NUMBA_CACHE_DIR`` in a new temporary folder, the wall
and CPU seconds of each stage of ``envs/core/warmup.exercise`` -- the first AEC step (import,
reset, random play), the batched core, the SB3 / Gymnasium learner loops, the bots' compiled
self-play -- and the ten functions that took longest to compile (their own time, without the
functions they call, from Numba's compile events).  A second, warm process then loads the same
cache: the time a later run pays.

    python -m wargym.benchmarks.cold_start                 # every game, one after the other
    python -m wargym.benchmarks.cold_start talon --json out.json
    python -m wargym.benchmarks.cold_start talon --no-helper   # one core only (as before 2026-12-06)

The first use of a game on a cold cache starts a helper process that compiles half of its kernels on
the other core (``envs/core/compile_plan.py``); the CPU seconds reported are the measured process's
own, the helper's beside them.  ``--no-helper`` measures without it.

Run it on a quiet machine (the figures are CPU-bound); it reports the load average beside them.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from wargym.envs.core.warmup import CompileLog, exercise
marks = {}
def report(stage, _s):
    marks[stage] = (time.perf_counter() - t0, time.process_time() - c0)
with CompileLog() as log:
    exercise(sys.argv[1], report)
json.dump({"stages": marks, "slowest": log.slowest(10), "functions": len(log.seconds)}, sys.stdout)
"""


def measure(game_key: str, cache_dir: str, helper: bool = True) -> dict:
    from wargym.envs.core.compile_plan import HELPER_VARIABLE
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, HELPER_VARIABLE: "1" if helper else "0"}
    out = subprocess.run([sys.executable, "-c", CHILD, game_key], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    from wargym.registration import GAME_KEYS
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("games", nargs="*", default=list(GAME_KEYS))
    p.add_argument("--json", help="also write the figures to this file")
    p.add_argument("--keep-cache", metavar="DIR", help="compile into DIR/<game> (must not exist) and keep it, "
                                                       "to read which signatures were compiled")
    p.add_argument("--no-helper", action="store_true", help="no helper process (one core compiles it all)")
    args = p.parse_args(argv)
    rows = {}
    for key in args.games:
        with tempfile.TemporaryDirectory(prefix="wargym-cold-") as cache:
            if args.keep_cache:
                cache = os.path.join(args.keep_cache, key)
                os.makedirs(cache)
            load0 = os.getloadavg()[0]
            cold = measure(key, cache, helper=not args.no_helper)
            warm = measure(key, cache)
        rows[key] = {"helper": not args.no_helper, "cold": cold, "warm": warm["stages"], "load_before": load0,
                     "load_after": os.getloadavg()[0]}
        print(f"{key}: cold (cumulative wall / CPU s), {cold['functions']} functions compiled "
              f"{'with' if not args.no_helper else 'without'} the helper process "
              f"[load {load0:.1f} -> {os.getloadavg()[0]:.1f}]")
        for stage, (wall, cpu) in cold["stages"].items():
            print(f"  first {stage:<8} {wall:7.1f} s wall {cpu:7.1f} s CPU   warm: {warm['stages'][stage][0]:5.1f} s")
        print("  slowest to compile (own seconds):")
        for name, s in cold["slowest"]:
            print(f"    {s:6.1f}  {name}")
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"time": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(), "llvm_opt": llvm_level(),
                       "games": rows}, f, indent=1)
    return 0


def llvm_level() -> int | str:
    """The LLVM optimisation level the measured processes compile kernels at (they inherit this
    environment): wargym's ``COMPILE_OPT``, or ``NUMBA_OPT`` where it is set (0-3 or ``max``)."""
    from ..envs.core.kernel import COMPILE_OPT
    if COMPILE_OPT is not None:
        return COMPILE_OPT
    value = os.environ["NUMBA_OPT"].strip()
    return int(value) if value.isdigit() else value


if __name__ == "__main__":
    raise SystemExit(main())
