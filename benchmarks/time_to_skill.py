"""Time to skill: how long ``wargym-train``'s default recipe takes to beat the scripted bot.

    python -m wargym.benchmarks.time_to_skill --game talon --seeds 0 1 2
    python -m wargym.benchmarks.time_to_skill --table          # the table from the stored runs

Each run is ``wargym-train``'s default recipe for the game (warm start, then MaskablePPO), with
the learning curve evaluated on a fixed schedule: every ``--eval-every`` learner decisions, 64
games against the scripted bot and 64 against random, the learner's seat alternating.  The
figure is the first point at which the agent wins at least 55 % (and 75 %) against the scripted
bot: the wall-clock minutes of training until then (warm start + PPO; the evaluations themselves
and the cold compile are excluded, the compile reported apart) and the decisions the learner and
its teacher took.  Every run's summary is kept under ``benchmarks/results/time_to_skill/`` (one
JSON file per game and seed), so that the table can be assembled from runs made in different
sessions or on different machines; ``--table`` prints it.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "time_to_skill"
BARS = (0.55, 0.75)


def first_reach(summary: dict, bar: float) -> dict | None:
    """The first curve point at which the win rate against the scripted bot is at least ``bar``."""
    warm_s = summary.get("warm_start_seconds", 0.0)
    warm_decisions = summary.get("warm_start_decisions", 0) * (1 + summary.get("warm_start_rounds", 0))
    for point in summary["learning_curve_points"]:
        if point["scripted"]["win_rate"] >= bar:
            return {"minutes": round((warm_s + point["wall_seconds"]) / 60, 2),
                    "learner_decisions": point["decisions"],
                    "teacher_decisions": warm_decisions if summary.get("warm_start") != "none" else 0}
    return None


def run(game: str, seed: int, timesteps: int, eval_every: int, eval_games: int, threads: int | None,
        extra: list[str]) -> dict:
    from ..training.train import main as train
    argv = ["--game", game, "--seed", str(seed), "--timesteps", str(timesteps),
            "--curve-points", str(max(1, timesteps // eval_every)), "--curve-games", str(eval_games),
            "--eval-games", "200", "--no-progress", "--out", str(RESULTS / "runs"), *extra]
    if threads:
        argv += ["--threads", str(threads)]
    summary = train(argv)
    summary["argv"] = argv
    summary["machine"] = {"cpus": os.cpu_count(), "platform": platform.platform(),
                          "load_average_at_end": os.getloadavg(), "finished": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                             time.gmtime())}
    summary["time_to_skill"] = {f"{int(bar * 100)}%": first_reach(summary, bar) for bar in BARS}
    return summary


def save(summary: dict, game: str, seed: int, tag: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{game}-{tag}-seed{seed}.json"
    keep = {k: v for k, v in summary.items() if k not in ("model", "learning_curve")}
    path.write_text(json.dumps(keep, indent=1))
    return path


def _reach(hit: dict | None, budget: int) -> str:
    return f"{hit['minutes']:.1f} min / {hit['learner_decisions']:,}" if hit else f"not in {budget:,}"


def _rate(evaluation: dict, opponent: str) -> str:
    r = evaluation.get(opponent)
    return f"{r['win_rate']:.1%}" if r else ""


def table(directory: Path = RESULTS) -> str:
    """Markdown: one row per stored run (game, recipe tag, seed)."""
    rows = ["| game | recipe | seed | compile s | 55 % vs scripted: minutes / learner decisions | 75 % | "
            "final vs scripted (200 games) | final vs random | load at end |",
            "|---|---|---|---|---|---|---|---|---|"]
    for path in sorted(directory.glob("*.json")):
        s = json.loads(path.read_text())
        stem, seed = path.stem.rsplit("-seed", 1)
        tag = stem.split("-", 1)[1]
        tts = s["time_to_skill"]
        rows.append(f"| {s['game']} | {tag} | {seed} | {s['compile_seconds']:.0f} | {_reach(tts.get('55%'), s['timesteps'])}"
                    f" | {_reach(tts.get('75%'), s['timesteps'])} | {_rate(s['evaluation'], 'scripted')}"
                    f" | {_rate(s['evaluation'], 'random')} | {s['machine']['load_average_at_end'][0]:.1f} |")
    return "\n".join(rows)


def add_run_arguments(ap: argparse.ArgumentParser) -> None:
    """The arguments every stored-runs benchmark takes (this one and ablation.py)."""
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--eval-every", type=int, default=250_000, help="learner decisions between curve points")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (1 when runs share the machine)")
    ap.add_argument("--table", action="store_true", help="print the table of the stored runs and stop")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="talon")
    ap.add_argument("--timesteps", type=int, default=2_000_000, help="learner decisions of PPO per run")
    ap.add_argument("--eval-games", type=int, default=64, help="games against each opponent per curve point")
    ap.add_argument("--tag", default="default", help="names the recipe in the stored file (e.g. an ablation)")
    add_run_arguments(ap)
    args, extra = ap.parse_known_args(argv)
    if args.table:
        print(table())
        return
    for seed in args.seeds:
        summary = run(args.game, seed, args.timesteps, args.eval_every, args.eval_games, args.threads, extra)
        path = save(summary, args.game, seed, args.tag)
        print(f"{args.game} seed {seed}: {summary['time_to_skill']} (saved {path})", flush=True)
    print(table())


if __name__ == "__main__":
    main()
