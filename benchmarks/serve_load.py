"""Load test of ``wargym serve --http`` on loopback (issue 17): N concurrent WebSocket matches.

    python -m wargym.benchmarks.serve_load --matches 200 --seconds 60 --think-ms 500   # paced clients
    python -m wargym.benchmarks.serve_load --matches 200 --seconds 30 --think-ms 0     # saturation

Starts the real server as a subprocess on a free port, opens N matches, each on its own
WebSocket connection (client in seat 0, the scripted bot, ``--bot``, in seat 1), and for a
bounded time plays them; a match that ends is closed and replaced by a new one.

The think-time model (``--think-ms``): before each of its decisions a client waits a random
time, exponential with mean ``--think-ms`` and drawn independently for every decision and
client (a Poisson stream of moves per client, as from a person or an engine that thinks), then
sends a random legal action.  N clients thinking ``t`` ms on average offer about N / t moves a
second, so 200 clients at 500 ms offer ~400 client moves/s: the server is far from saturated and
the latency is a move's own cost.  ``--think-ms 0`` is a closed loop: every client sends its next
move the moment the reply arrives, so the server is saturated and a move waits behind the other
N - 1 clients' (the latency is then about N / moves per second, whatever one move costs).

Reported (also as JSON with ``--json``):

* errors (any reply that is not ok, any dropped connection) and whether every match stayed open;
* client decisions and bot decisions per second;
* latency of a move, from sending it to the reply: p50 / p99 / max over every move whose
  reply carries the bot's answer ("bot-move latency"), and over all moves;
* CPU time per client move (its bot replies included) of the server and of this client, and the
  share of a core the server used: what a move costs whatever else the machine was doing
  (rates and latencies also measure that);
* the server's resident memory before the matches and with all of them open, per match.

Bounded in count and time: ``--matches`` (default 200) and ``--seconds`` (default 30).  The
client runs in this process and the server in another, so on a 2-core machine they share
the two cores.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time

import numpy as np


def cpu_s(pid: int) -> float:
    """CPU time (user + system) a process has used, in seconds."""
    import os
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Stats:
    def __init__(self):
        self.bot_latency, self.all_latency = [], []
        self.client_moves = self.bot_moves = self.games = 0
        self.errors: list[str] = []


async def run_match(url: str, game: str, bot: str, think_s: float, clock: dict, stats: Stats, seed: int,
                    ready: asyncio.Event, opened: list, options: dict) -> None:
    """One client: open its match, wait for the start, play until ``clock["stop"]``."""
    from websockets.asyncio.client import connect
    rng = random.Random(seed)
    try:
        async with connect(url, max_size=None, open_timeout=120, ping_interval=None) as ws:
            async def call(msg):
                await ws.send(json.dumps({"v": 1, **msg}))
                return json.loads(await asyncio.wait_for(ws.recv(), 120))
            reply = await call({"type": "new_match", "game": game, "seed": seed, "bots": {"1": bot}, "legal": True,
                                "options": options})
            if not reply["ok"]:
                stats.errors.append(json.dumps(reply["error"]))
                return
            opened.append(1)
            await ready.wait()
            while time.monotonic() < clock["stop"]:
                if think_s:
                    await asyncio.sleep(rng.expovariate(1.0 / think_s))
                if reply["over"]:
                    stats.games += 1
                    await call({"type": "close", "match": reply["match"]})
                    reply = await call({"type": "new_match", "game": game, "seed": rng.randrange(2 ** 31),
                                        "bots": {"1": bot}, "legal": True,
                                        "options": options})
                    if not reply["ok"]:
                        stats.errors.append(json.dumps(reply["error"]))
                        return
                    continue
                action = rng.choice(reply["legal"])["action"]
                t0 = time.perf_counter()
                reply = await call({"type": "move", "match": reply["match"], "seq": reply["seq"], "action": action,
                                    "legal": True})
                dt = time.perf_counter() - t0
                if not reply["ok"]:
                    stats.errors.append(json.dumps(reply["error"]))
                    return
                stats.client_moves += 1
                bots = sum(e["by"] == "bot" for e in reply["events"])
                stats.bot_moves += bots
                stats.all_latency.append(dt)
                if bots:
                    stats.bot_latency.append(dt)
    except Exception as exc:  # a dropped connection is an error of the run
        stats.errors.append(f"{type(exc).__name__}: {exc}")


def percentiles(xs) -> dict:
    if not xs:
        return {}
    a = np.asarray(xs) * 1000
    return {"p50_ms": round(float(np.percentile(a, 50)), 2), "p99_ms": round(float(np.percentile(a, 99)), 2),
            "max_ms": round(float(a.max()), 2), "n": len(xs)}


async def main_async(args) -> dict:
    from wargym.serve.client import start_http
    proc, base = start_http("--max-matches-per-client", str(args.matches + 10), "--workers", str(args.workers),
                            "--idle-timeout", "3600")
    try:
        url = base.replace("http", "ws") + "/v1/ws"
        # warm the game (import, kernels from Numba's cache, one env per worker thread) before measuring:
        # requests on several connections at once, so that every worker thread builds its env now
        from websockets.asyncio.client import connect

        async def warm():
            async with connect(url) as ws:
                for _ in range(3):
                    await ws.send(json.dumps({"v": 1, "type": "bot_move", "game": args.game, "state": {"seed": 0},
                                              "bot": args.bot, "options": args.options}))
                    await asyncio.wait_for(ws.recv(), 300)
        await warm()
        await asyncio.gather(*(warm() for _ in range(4 * args.workers)))
        rss_before = rss_mb(proc.pid)
        stats, ready, opened = Stats(), asyncio.Event(), []
        clock = {"stop": float("inf")}
        t_open = time.monotonic()
        tasks = [asyncio.create_task(run_match(url, args.game, args.bot, args.think_ms / 1000, clock, stats, seed,
                                               ready, opened, args.options)) for seed in range(args.matches)]
        while len(opened) + len(stats.errors) < args.matches and time.monotonic() - t_open < 300:
            await asyncio.sleep(0.05)
        open_s = time.monotonic() - t_open
        rss_open = rss_mb(proc.pid)
        start = time.monotonic()
        cpu_server, cpu_client = cpu_s(proc.pid), time.process_time()
        clock["stop"] = start + args.seconds
        ready.set()  # every match starts playing now
        await asyncio.gather(*tasks)
        elapsed = time.monotonic() - start
        cpu_server, cpu_client = cpu_s(proc.pid) - cpu_server, time.process_time() - cpu_client
        rss_end = rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return {
        "game": args.game, "options": args.options, "bot": args.bot, "matches": args.matches, "opened": len(opened),
        "seconds": round(elapsed, 1), "think_ms": args.think_ms, "workers": args.workers,
        "errors": len(stats.errors), "first_errors": stats.errors[:3],
        "open_all_s": round(open_s, 2), "games_finished": stats.games,
        "client_moves_per_s": round(stats.client_moves / elapsed, 1),
        "bot_moves_per_s": round(stats.bot_moves / elapsed, 1),
        "bot_move_latency": percentiles(stats.bot_latency), "move_latency": percentiles(stats.all_latency),
        # CPU time per client move (its bot replies included): what a move costs, whatever else the
        # machine was doing meanwhile (wall-clock rates and latencies depend on that)
        "server_cpu_ms_per_move": round(cpu_server * 1000 / max(1, stats.client_moves), 3),
        "client_cpu_ms_per_move": round(cpu_client * 1000 / max(1, stats.client_moves), 3),
        "server_cpu_busy": round(cpu_server / elapsed, 2),
        "server_rss_mb": {"before": round(rss_before, 1), "all_open": round(rss_open, 1), "end": round(rss_end, 1),
                          "per_match_kb": round((rss_open - rss_before) * 1024 / max(1, len(opened)), 1)},
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=200)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--think-ms", type=float, default=500.0,
                   help="mean of a client's think time before each decision, exponential (0: no think time, "
                        "the server saturated)")
    p.add_argument("--game", default="talon_v0")
    p.add_argument("--bot", default="scripted")
    p.add_argument("--level", type=int, choices=range(1, 11), metavar="1..10",
                   help="the bot's level (the search bots': its budget, 64 simulations at 10, halved per level below)")
    p.add_argument("--options", type=json.loads, default={}, metavar="JSON",
                   help='the game\'s options for every match, e.g. \'{"exploration_bank": "own_tests"}\' (the bot '
                        'mcts@<baseline> plays only its agent\'s)')
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.level is not None:
        args.bot = {"name": args.bot, "level": args.level}
    result = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>20}: {v}")
    return 1 if result["errors"] or result["opened"] < args.matches else 0


if __name__ == "__main__":
    sys.exit(main())
