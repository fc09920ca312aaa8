"""Strength and cost of the search bots (envs/core/search.py) against each game's scripted bot.

    python -m wargym.benchmarks.search_strength --games 200 --budgets 8 32 128
    python -m wargym.benchmarks.search_strength --game talon --games 50 --budgets 32 --json out.json
    python -m wargym.benchmarks.search_strength --bot mcts --game union_wars --budgets 16 64

For each game and each budget (simulations a decision; Battle Force's hidden cards are sampled,
never read):

* **strength**: ``--games`` games, search bot against the scripted bot, seats alternated (with
  ``--players N``, Battle Force: the search bot in one seat, rotated, against N - 1 scripted bots;
  a win is a sole first place), played
  through the arena (``arena.matches.play_lineup``: the search bot searches all its games'
  positions in one batch); wins, draws, losses, the win rate's 95 % Wilson interval and the Elo
  difference it implies;
* **latency**: one game's move searched alone (the server's case), median and p90 over
  ``--positions`` positions reached by random play, forced moves left out (they cost nothing).

The machine's load is printed with the figures (the search runs the compiled kernels on the
cores it finds free).
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def bot_spec(bot: str, budget: int, anchor: str | None = None) -> str:
    """The search bot's spec: ``search:N``, ``mcts:N`` or ``mcts:N@BASELINE``."""
    return f"{bot}:{budget}" + (f"@{anchor}" if anchor else "")


def latency_ms(game, options, budget, positions, seed=0, bot="search", anchor=None):
    """Median and p90 ms of searching one game's move, over positions after random play."""
    from ..envs.core.search import searcher_for
    from ..envs.core.vec import VecGame
    search = searcher_for(bot_spec(bot, budget, anchor), game, options, seed=seed)
    core = VecGame(game, 1, options, auto_reset=True)
    core.reset(seed)
    rng = np.random.default_rng(seed)
    times = []
    search.choose(core)            # the simulation batch is built here, not in the figures
    while len(times) < positions:
        for _ in range(int(rng.integers(1, 12))):
            noise = rng.random(core.num_actions) * core.mask[0]
            core.step(np.array([noise.argmax()]))
        if core.mask[0].sum() < 2:
            continue
        start = time.perf_counter()
        search.choose(core)
        times.append(1000 * (time.perf_counter() - start))
    return float(np.median(times)), float(np.percentile(times, 90))


def strength(game_key, game, options, budget, games, seed=0, bot="search", anchor=None):
    """(wins, draws, losses) of the search bot against the scripted bot in every other seat, its own
    seat rotated (alternated with two players): a win is a sole first place, a draw a shared one."""
    from ..arena.matches import arena_options, play_lineup
    from ..arena.policies import parse_policy
    options = arena_options(game_key, options)
    players = int(options.get("players", 2))
    search, scripted = parse_policy(bot_spec(bot, budget, anchor), game), parse_policy("scripted", game)
    counts = np.zeros(3, dtype=np.int64)
    for seat in range(players):
        n = games // players + (seat < games % players)
        if not n:
            continue
        lineup = [scripted] * players
        lineup[seat] = search
        results = play_lineup(game, lineup, n, options, seed + seat)
        lead = results[:, seat] - np.delete(results, seat, axis=1).max(axis=1)
        counts += [(lead > 0).sum(), (lead == 0).sum(), (lead < 0).sum()]
    return tuple(int(c) for c in counts)


def tree_with(**parameters) -> None:
    """Make every tree search this process builds from a spec (``searcher_for``: the arena's, the
    latency's) take ``parameters`` (its root rule, its expansion threshold): what a spec cannot name."""
    from ..envs.core import search

    class Tree(search.TreeSearch):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, **parameters})   # what the command line names wins
            BUILT.append(self)
    search.TreeSearch = Tree


BUILT: list = []    # the tree searches tree_with's class built (their departures from the anchor, reported)


def departure_rate(searches) -> float | None:
    """The share of the decisions of the halving root (forced moves included; decisive wins not) where
    the search left its anchor's move."""
    decided = sum(s.decided for s in searches)
    return sum(s.departed for s in searches) / decided if decided else None


def main(argv=None) -> int:
    from ..arena.stats import elo_difference, wilson_interval
    from ..envs.core.search import ANCHOR_CANDIDATES, EXPAND_AFTER, searchable
    from ..registration import GAME_KEYS, load_game
    p = argparse.ArgumentParser(prog="python -m wargym.benchmarks.search_strength", description=__doc__.split("\n")[0])
    p.add_argument("--game", action="append", help="games (default: every game the search plays)")
    p.add_argument("--budgets", type=int, nargs="+", default=[8, 32, 128])
    p.add_argument("--games", type=int, default=200, help="games per budget, seats alternated")
    p.add_argument("--positions", type=int, default=30, help="positions timed for the latency")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", type=int, help="Battle Force: players per game (the search bot in one seat, "
                                                "the scripted bot in the others; a win is a sole first place)")
    p.add_argument("--bot", choices=["search", "mcts"], default="search",
                   help="search: the flat search (FlatSearch); mcts: the tree search (TreeSearch)")
    p.add_argument("--expand-after", type=int, default=EXPAND_AFTER,
                   help=f"--bot mcts: simulations through a node before the tree chooses there (default {EXPAND_AFTER})")
    p.add_argument("--root", choices=("halving", "puct"), default="halving", help="--bot mcts: the rule at the root")
    p.add_argument("--anchor", metavar="BASELINE",
                   help="--bot mcts, one game: the shipped agent (wargym.baselines) whose most likely move the halving "
                        "root keeps unless another clearly beats it (the spec mcts:N@BASELINE); the games are played "
                        "with its options")
    p.add_argument("--confidence", type=float,
                   help="--bot mcts: standard errors a root move's gain over the anchor's must clear (TreeSearch's "
                        "confidence; default 1, 3 with --anchor: ANCHOR_CONFIDENCE)")
    p.add_argument("--candidates", type=int,
                   help="--anchor: how many of the agent's most likely moves the root compares, its own included "
                        "(0: every legal move; default ANCHOR_CANDIDATES)")
    p.add_argument("--json", help="also write the rows here")
    args = p.parse_args(argv)
    tree = {"root": args.root, "expand_after": args.expand_after} \
        if (args.expand_after, args.root) != (EXPAND_AFTER, "halving") else {}
    if args.confidence is not None:
        if args.bot != "mcts":
            p.error("--confidence needs --bot mcts")
        tree["confidence"] = args.confidence
    if args.candidates is not None:
        if not args.anchor:
            p.error("--candidates needs --anchor")
        tree["candidates"] = args.candidates or None
    if args.bot == "mcts":     # (every tree search built is counted: its departures from its anchor)
        tree_with(**tree)
    anchor_options = {}
    if args.anchor:
        from .. import baselines
        if args.bot != "mcts" or not args.game or len(args.game) != 1:
            p.error("--anchor needs --bot mcts and one --game")
        anchor_options = dict(baselines.describe(args.game[0], args.anchor).get("options") or {})
    keys = args.game or [k for k in GAME_KEYS if searchable(load_game(k))]
    rows = []
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for key in keys:
        game = load_game(key)
        options = {**anchor_options, **({"players": args.players} if args.players else {})}
        for budget in args.budgets:
            start, built = time.perf_counter(), len(BUILT)
            w, d, l = strength(key, game, options, budget, args.games, args.seed, args.bot, args.anchor)
            seconds = time.perf_counter() - start
            n = w + d + l
            score = (w + d / 2) / n
            lo, hi = wilson_interval(w, n)
            departures = departure_rate(BUILT[built:])
            p50, p90 = latency_ms(game, options, budget, args.positions, args.seed, args.bot, args.anchor)
            row = {"game": key, **options, "bot": args.bot, **({"anchor": args.anchor} if args.anchor else {}),
                   **({"confidence": args.confidence} if args.confidence is not None else {}),
                   **({"candidates": tree.get("candidates", ANCHOR_CANDIDATES)} if args.anchor else {}), **({"root": args.root, "expand_after": args.expand_after} if args.bot == "mcts" else {}),
                   "simulations": budget, "rollout_depth": getattr(game, "SEARCH_DEPTH", None), "games": n, "wins": w, "draws": d, "losses": l,
                   "win_rate": w / n, "win_ci95": [lo, hi], "elo_vs_scripted": elo_difference(score) if 0 < score < 1 else None,
                   **({"departure_rate": departures} if departures is not None else {}),
                   "arena_seconds": seconds, "move_ms_p50": p50, "move_ms_p90": p90,
                   "load": os.getloadavg()[0]}
            rows.append(row)
            print(f"{key:12s} {args.bot} {budget:5d} sims: {w}-{d}-{l} ({100 * w / n:.1f} % wins, 95 % {100 * lo:.0f}-{100 * hi:.0f}; "
                  f"Elo {row['elo_vs_scripted'] or float('nan'):+.0f}) in {seconds:.0f} s; "
                  + (f"left its anchor in {100 * departures:.1f} % of its root's decisions; " if departures is not None else "")
                  + f"one move {p50:.1f} ms (p90 {p90:.1f}); "
                  f"load {row['load']:.2f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
