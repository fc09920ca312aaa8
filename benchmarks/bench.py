"""wargym throughput benchmark: prints steps per second on this machine.

    python benchmarks/bench.py            # full run (about 2-3 minutes after compiling)
    python benchmarks/bench.py --quick    # shorter measurements

Measures, in one run: the PettingZoo AEC env under random masked play (one
game); the batched core at several batch sizes, each step writing
observations and masks for every game; the same random loop on PettingZoo's
connect_four_v3 and chess_v6 as reference points; the time to first step
(cold compile, in a fresh process with an empty Numba cache) and the cached
start-up time; and the bytes of state per game.  Every throughput row runs its
kernels once before the clock starts, so it never times a compile (the time to
first step rows are the only ones that do).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

STARTUP = ("import time; t=time.perf_counter(); from wargym.envs import planetoids_v2; "
           "e=planetoids_v2.env(); e.reset(seed=0); o=e.observe(e.agent_selection); "
           "import numpy as np; e.step(int(np.flatnonzero(o['action_mask'])[0])); "
           "print(time.perf_counter()-t)")


def startup_seconds(cache_dir: str | None) -> float:
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, "-c", STARTUP], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def aec_random_play(make_env, seconds: float, seed: int = 0, warmup_steps: int = 200) -> float:
    """Random masked play through the AEC API (env.last / env.step), in steps per second."""
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    random_steps(env, rng, warmup_steps)  # the first steps compile (or load) the kernels: untimed
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        steps += random_steps(env, rng, 1000)
    return steps / (time.perf_counter() - t0)


def random_steps(env, rng, n: int) -> int:
    """``n`` steps of random masked play, starting a new game whenever one ends."""
    steps = 0
    while steps < n:
        for _agent in env.agent_iter(n - steps):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        if not env.agents:
            env.reset()
    return steps


def batched_core(batch: int, seconds: float, game=None, options=None) -> float:
    """Decisions per second of VecGame.step over B games, random legal actions chosen in compiled code."""
    from wargym.envs.core.sampling import new_streams, sample_legal
    from wargym.envs.core.vec import VecGame
    if game is None:
        from wargym.envs.planetoids import game
    core = VecGame(game, batch, options, auto_reset=True)
    core.reset(seed=0)
    streams = new_streams(batch)
    actions = np.zeros(batch, dtype=np.int64)
    for _ in range(3):  # warm-up
        sample_legal(core.mask, streams, actions)
        core.step(actions)
    calls, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            sample_legal(core.mask, streams, actions)
            core.step(actions)
        calls += 10
    return calls * batch / (time.perf_counter() - t0)


def compiled_self_play(batch: int, game=None, bot=None, options=None, decisions_col=None) -> float:
    """Whole games of random-vs-random played inside one kernel call, decisions per second."""
    from wargym.envs.core.vec import VecGame
    if game is None:
        from wargym.envs.planetoids import game
    bot = bot or game.bot

    def ready(b):
        core = VecGame(game, b, options)
        core.reset(seed=1)
        policies = np.zeros((b, core.num_players), dtype=np.int64)
        states, cfgs, outs = core.kernel_args()
        return core, (states, cfgs, policies, outs, np.zeros((b, core.num_players)))

    # warm-up on two games: with an empty Numba cache the first call compiles play_games
    bot.play_games(*ready(2)[1])
    core, args = ready(batch)
    t0 = time.perf_counter()
    bot.play_games(*args)
    dt = time.perf_counter() - t0
    col = game.rules.G_DECISIONS if decisions_col is None else decisions_col
    return float(core.state.g[:, col].sum()) / dt


def union_wars_rows(secs: float) -> list:
    """UnionWars First Contact: state size, AEC random play, the batched core (union_wars_v2, and
    v1's observation without the action table in the same run: what the table costs), compiled self-play."""
    from wargym.envs import union_wars_v2
    from wargym.envs.core.vec import VecGame
    from wargym.envs.union_wars import bot as uw_bot
    from wargym.envs.union_wars import game as uw
    from wargym.envs.union_wars import layout as uw_layout
    ucore = VecGame(uw, 1)
    rows = [("union_wars_v2 state bytes per game", ucore.state.nbytes_per_game(), "B"),
            ("union_wars_v2 observation + mask bytes per step", ucore.obs[0].nbytes + ucore.mask[0].nbytes, "B"),
            ("union_wars_v2 AEC env, random masked play", aec_random_play(lambda: union_wars_v2.env(), secs), "steps/s")]
    print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} steps/s", flush=True)
    for batch in (1, 64, 1024, 4096):
        rows.append((f"union_wars_v2 batched core B={batch}, obs+mask each step", batched_core(batch, secs, uw),
                     "decisions/s"))
        print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} decisions/s", flush=True)
    rows.append(("union_wars_v1 (relations=False) batched core B=4096, obs+mask each step",
                 batched_core(4096, secs, uw, {"relations": False}), "decisions/s"))
    print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} decisions/s", flush=True)
    rows.append(("union_wars_v2 compiled random self-play, B=256 whole games",
                 compiled_self_play(256, uw, uw_bot, None, uw_layout.G_DECISIONS), "decisions/s"))
    print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} decisions/s", flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--skip-cold", action="store_true", help="skip the cold-compile measurement")
    ap.add_argument("--planetoids-only", action="store_true", help="skip the Talon and Battle Force measurements")
    ap.add_argument("--union-wars-only", action="store_true",
                    help="with --planetoids-only --skip-cold: measure only UnionWars (and the start-up rows)")
    args = ap.parse_args(argv)
    secs = 2.0 if args.quick else 6.0
    import numba
    from pettingzoo.classic import chess_v6, connect_four_v3

    from wargym.envs import planetoids_v2
    from wargym.envs.core.vec import VecGame
    from wargym.envs.planetoids import game

    rows = []
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numba {numba.__version__}, threads {numba.get_num_threads()}",
          flush=True)
    if not args.skip_cold:
        with tempfile.TemporaryDirectory() as d:
            rows.append(("time to first step, cold (compile)", startup_seconds(d), "s"))
    rows.append(("start-up to first step, cached", startup_seconds(None), "s"))
    print(f"{rows[-1][0]}: {rows[-1][1]:.2f} s", flush=True)
    core = VecGame(game, 1)
    rows.append(("state bytes per game", core.state.nbytes_per_game(), "B"))
    rows.append(("observation + mask bytes per step", core.obs[0].nbytes + core.mask[0].nbytes, "B"))
    for name, make in (("planetoids_v2 AEC env, random masked play", lambda: planetoids_v2.env()),
                       ("planetoids_v2 raw_env (no PettingZoo wrapper)", lambda: planetoids_v2.raw_env()),
                       ("pettingzoo connect_four_v3 (reference)", lambda: connect_four_v3.env()),
                       ("pettingzoo chess_v6 (reference)", lambda: chess_v6.env())):
        rows.append((name, aec_random_play(make, secs), "steps/s"))
        print(f"{name}: {rows[-1][1]:,.0f} steps/s", flush=True)
    for batch in (1, 64, 1024, 4096):
        rows.append((f"batched core B={batch}, obs+mask each step", batched_core(batch, secs), "decisions/s"))
        print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} decisions/s", flush=True)
    rows.append(("compiled random self-play, B=1024 whole games", compiled_self_play(1024), "decisions/s"))
    if not args.planetoids_only:
        from wargym.envs import talon_v1
        from wargym.envs.talon import game as talon
        tcore = VecGame(talon, 1)
        rows.append(("talon_v1 state bytes per game", tcore.state.nbytes_per_game(), "B"))
        rows.append(("talon_v1 observation + mask bytes per step", tcore.obs[0].nbytes + tcore.mask[0].nbytes, "B"))
        rows.append(("talon_v1 AEC env, random masked play", aec_random_play(lambda: talon_v1.env(), secs), "steps/s"))
        print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} steps/s", flush=True)
        for batch in (1, 64, 1024, 4096):
            rows.append((f"talon_v1 batched core B={batch}, obs+mask each step", batched_core(batch, secs, talon),
                         "decisions/s"))
            print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} decisions/s", flush=True)
        # the advanced rules' ready scenarios (terrain 17-19; retreat 11 and supply 3.2 in
        # worm_hole_escape; heavy weapons 15 in big_guns; missiles 13; bases 14; fighters 12 and
        # docking 16 in carrier_strike; all of them at once in fleet_action; scenario victory
        # conditions in starbase_assault)
        for name in ("planets", "asteroids_and_nebula", "black_hole", "worm_hole_escape", "big_guns", "missiles",
                     "starbase", "starbase_assault", "carrier_strike", "fleet_action"):
            rows.append((f"talon_v1 batched core B=4096, scenario {name}",
                         batched_core(4096, secs, talon, {"scenario": name}), "decisions/s"))
            print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} decisions/s", flush=True)
        from wargym.envs import battle_force_v1
        from wargym.envs.battle_force import bot as bf_bot
        from wargym.envs.battle_force import game as bf
        from wargym.envs.battle_force import rules as bf_rules
        bcore = VecGame(bf, 1)
        rows.append(("battle_force_v1 state bytes per game (2 players)", bcore.state.nbytes_per_game(), "B"))
        rows.append(("battle_force_v1 observation + mask bytes per step", bcore.obs[0].nbytes + bcore.mask[0].nbytes,
                     "B"))
        rows.append(("battle_force_v1 AEC env, random masked play", aec_random_play(lambda: battle_force_v1.env(), secs),
                     "steps/s"))
        print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} steps/s", flush=True)
        for batch in (1, 64, 1024, 4096):
            rows.append((f"battle_force_v1 batched core B={batch}, obs+mask each step", batched_core(batch, secs, bf),
                         "decisions/s"))
            print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} decisions/s", flush=True)
        rows.append(("battle_force_v1 compiled random self-play, B=64 whole games (20 game turns)",
                     compiled_self_play(64, bf, bf_bot, {"end_turns": 20}, bf_rules.G_DECISIONS), "decisions/s"))
        print(f"{rows[-1][0]}: {rows[-1][1]:,.0f} decisions/s", flush=True)
    if not args.planetoids_only or args.union_wars_only:
        rows += union_wars_rows(secs)
    print("\n| measurement | value |\n|---|---|")
    for name, value, unit in rows:
        v = f"{value:,.2f} {unit}" if unit == "s" else f"{value:,.0f} {unit}"
        print(f"| {name} | {v} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"name": n, "value": v, "unit": u} for n, v, u in rows], f, indent=2)


if __name__ == "__main__":
    main()
