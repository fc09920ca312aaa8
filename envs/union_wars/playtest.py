"""Balance by play: the scripted bot in both seats, each faction in each seat, every mission.

    python -m wargym.envs.union_wars.playtest --games 200

Prints, per mission and overall, how often each faction wins, with Wilson 95 % intervals
(draws count as half a win)."""
from __future__ import annotations

import argparse

import numpy as np

from ...arena.stats import wilson_interval as wilson
from ..core.vec import VecGame
from . import bot, game
from . import layout as L


def play(armies, mission, games, seed, table="random"):
    core = VecGame(game, games, {"armies": armies, "mission": mission, "table": table})
    core.reset(seed=seed)
    bot.play(core, ["scripted", "scripted"])
    return core.state.g[:, L.G_WINNER].copy()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100, help="games per mission and seating")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    a, b = "umanita:default_250", "xeno:default_250"
    total = {"umanita": [0.0, 0], "xeno": [0.0, 0]}
    print("| mission | umanita win rate (95 % CI) | xeno win rate | draws |\n|---|---|---|---|")
    for mission in (1, 2, 3, 4, 5):
        score = {"umanita": 0.0, "xeno": 0.0}
        draws = 0
        for seating, (p0, p1) in enumerate(((a, b), (b, a))):
            w = play([p0, p1], mission, args.games, args.seed + 100 * mission + seating)
            for winner, faction in ((0, p0.split(":")[0]), (1, p1.split(":")[0])):
                score[faction] += float((w == winner).sum()) + 0.5 * float((w == 2).sum())
            draws += int((w == 2).sum())
        n = 2 * args.games
        for f in score:
            total[f][0] += score[f]
            total[f][1] += n
        lo, hi = wilson(score["umanita"], n)
        print(f"| {L.MISSION_NAMES[mission]} | {score['umanita'] / n:.2f} ({lo:.2f}-{hi:.2f}) | "
              f"{score['xeno'] / n:.2f} | {draws}/{n} |", flush=True)
    lo, hi = wilson(total["umanita"][0], total["umanita"][1])
    print(f"| all | {total['umanita'][0] / total['umanita'][1]:.2f} ({lo:.2f}-{hi:.2f}) | "
          f"{total['xeno'][0] / total['xeno'][1]:.2f} | |")


if __name__ == "__main__":
    main()
