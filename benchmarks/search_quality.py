"""How much a search bot's moves gain over the scripted bot's, decision by decision.

    python -m wargym.benchmarks.search_quality --game union_wars --budgets 16 32 64
    python -m wargym.benchmarks.search_quality --game talon --bot search --budgets 8 --positions 80

A match's result is a noisy measure of a search: 200 games give a win rate within about ±7 %, and a
UnionWars game of the search bot costs a minute.  This measures the search where it acts instead:

* **positions**: the scripted bot plays itself (``--positions`` games side by side, fresh games as
  they end), and one unforced decision in ``--every`` is kept;
* **the search's move** in each, with each budget; where it is not the scripted bot's move,
* **its true gain** over the bot's move: ``--truth`` paired simulations of each (the move, then the
  scripted bot in every seat to the end; the j-th of both with the same dice, and whatever the player
  cannot see sampled as the search samples it), the mean difference in the result for the player to
  move (+1 a win, -1 a loss, 0 a draw).

Reported per budget: the decisions the search left the bot's move in, how many of those lose, and the
summed true gain with its standard error.  A sum clearly above 0 is a search that improves on the bot
where it acts; one within its error of 0 leaves the bot's move on noise (a gain of 0.1 at a decision is
5 points of win probability from there).  The true gains are computed once per (position, move) and
shared by the rows.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import numpy as np


def sample_positions(game, options, count: int, every: int, seed: int):
    """``count`` positions (clones, masks, players to move) from the scripted bot's self-play."""
    from ..envs.core.search import FlatSearch
    from ..envs.core.vec import VecGame
    batch = min(32, count)
    core = VecGame(game, batch, options, auto_reset=True)
    core.reset(seed)
    bot = FlatSearch(game, options, 1, seed=seed)
    rng = np.random.default_rng(seed)
    kept = []
    while len(kept) < count:
        everyone = np.arange(batch)
        for b in np.flatnonzero(core.mask.sum(axis=1) > 1):
            if len(kept) < count and rng.integers(every) == 0:
                kept.append((core.clone_state([b]), core.mask[b].astype(bool), int(core.current_player[b])))
        core.step(bot._rollout_moves(core.clone_state(everyone), core.mask.astype(bool), core.current_player))
    return kept


class TrueGains:
    """The mean gain of a move over the scripted bot's in a position, by ``truth`` paired simulations."""

    def __init__(self, game, options, truth: int, seed: int):
        from ..envs.core.search import FlatSearch
        self.judge = FlatSearch(game, options, 1, seed=seed)
        self.truth = truth
        self.known: dict[tuple[int, int, int], tuple[float, float]] = {}

    def __call__(self, i: int, position, move: int, own: int) -> tuple[float, float]:
        key = (i, int(move), int(own))
        if key not in self.known:
            root, _mask, player = position
            n = self.truth
            dice = self.judge.rng.integers(0, 1 << 63, (n, 2), dtype=np.uint64)
            values = self.judge._simulate(root, np.zeros(2 * n, dtype=np.int64), np.repeat([own, move], n),
                                          np.tile(dice, (2, 1)), np.array([player]))
            gain = values[n:] - values[:n]
            self.known[key] = (float(gain.mean()), float(gain.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0)
        return self.known[key]


def quality(game, options, spec: str, positions, gains: TrueGains, seed: int) -> dict:
    """One budget's row: the decisions it left the bot's move in and their summed true gain."""
    from ..envs.core.search import searcher_for
    search = searcher_for(spec, game, options, seed=seed)
    start = time.perf_counter()
    left, total, variance = [], 0.0, 0.0
    for i, position in enumerate(positions):
        root, mask, player = position
        own = int(search._rollout_moves(root, mask[None], np.array([player]))[0])
        chosen = int(search.search(root, mask[None], np.array([player]))[0])
        if chosen != own:
            mean, error = gains(i, position, chosen, own)
            left.append(mean)
            total += mean
            variance += error ** 2
    return {"search": spec, "positions": len(positions), "left_the_bot": len(left),
            "losing": int(sum(g < 0 for g in left)), "sum_gain": total, "sum_gain_se": math.sqrt(variance),
            "gain_per_decision": total / len(positions), "truth_simulations": gains.truth,
            "search_seconds": time.perf_counter() - start, "load": os.getloadavg()[0]}


def main(argv=None) -> int:
    from ..envs.core.search import SEARCH_NAMES
    from ..registration import load_game
    p = argparse.ArgumentParser(prog="python -m wargym.benchmarks.search_quality", description=__doc__.split("\n")[0])
    p.add_argument("--game", required=True)
    p.add_argument("--bot", choices=SEARCH_NAMES, default="mcts")
    p.add_argument("--budgets", type=int, nargs="+", default=[16, 64], help="simulations a decision")
    p.add_argument("--positions", type=int, default=160)
    p.add_argument("--every", type=int, default=50, help="keep one unforced decision in this many")
    p.add_argument("--truth", type=int, default=128, help="paired simulations a true gain is measured by")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the rows here")
    args = p.parse_args(argv)
    game = load_game(args.game)
    options: dict = {}
    positions = sample_positions(game, options, args.positions, args.every, args.seed)
    gains = TrueGains(game, options, args.truth, args.seed + 1)
    print(f"{args.game}: {len(positions)} positions; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
          flush=True)
    rows = []
    for budget in args.budgets:
        row = {"game": args.game, **quality(game, options, f"{args.bot}:{budget}", positions, gains, args.seed + 2)}
        rows.append(row)
        print(f"{row['search']:>10}: left the bot's move in {row['left_the_bot']} of {row['positions']} "
              f"({row['losing']} losing), summed true gain {row['sum_gain']:+.2f} ± {row['sum_gain_se']:.2f}; "
              f"searched in {row['search_seconds']:.0f} s, load {row['load']:.2f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
