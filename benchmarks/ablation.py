"""The ablation of issue 25: observation x network x game, each cell trained for the same wall-clock budget.

    python -m wargym.benchmarks.ablation --game talon --minutes 10 --seeds 0 1 2
    python -m wargym.benchmarks.ablation --table            # the table from the stored runs

Every cell is ``wargym-train``'s default recipe for the game (warm start, then MaskablePPO) with
``--minutes`` as its budget (warm start + PPO; the compile and the curve's evaluations are not
counted), so that a slower network pays for its cost per decision and a cell is judged by what a
user gets for the same minutes.  The cells of a game:

* ``earlier-structured``: the observation before the relational block or action table (the
  registry's earlier version: talon_v0, planetoids_v0, battle_force_v0, union_wars_v1), read by the
  structured network with SB3's linear action head;
* ``current-structured``: the current observation, the same network (the action table read as one
  more table);
* ``current-pointer``: the current observation with the pointer head (every action scored from its
  own row of the action table; Battle Force gathers the rows from its card and ship tables).

UnionWars' cells all train with ``exploration_bank="own_tests"``, as its shipped agents and its
time-to-skill rows do (``RECIPE_OPTIONS``).

Each run plays 200 games against the scripted bot and 200 against random at the end (seats
alternating), after the curve's best point is kept as the recipe does.  Every run's summary is kept
under ``benchmarks/results/ablation/`` (one JSON file per game, cell, budget and seed), so that the
table can be assembled from runs made in different sessions; ``--table`` prints it, the seeds' games
pooled with a Wilson interval.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..arena.stats import wilson_interval
from ..registration import GAME_KEYS, LEGACY_VERSIONS
from .time_to_skill import add_run_arguments

RESULTS = Path(__file__).parent / "results" / "ablation"

# the earlier version of each game whose observation has no relational block or action table
EARLIER = {"talon": "talon_v0", "planetoids": "planetoids_v0", "battle_force": "battle_force_v0",
           "union_wars": "union_wars_v1"}
CELLS = ("earlier-structured", "current-structured", "current-pointer")
# options every cell of a game trains with: UnionWars' shipped agents and its time-to-skill rows let the
# exploration bank spend itself (trained with the owner's questions the agent sagged, README Known limits)
RECIPE_OPTIONS = {"union_wars": {"exploration_bank": "own_tests"}}


def cell_arguments(game: str, cell: str) -> list[str]:
    """``wargym-train`` arguments of one cell of the grid."""
    if cell not in CELLS:
        raise ValueError(f"unknown cell {cell!r}; cells: {', '.join(CELLS)}")
    observation, network = cell.split("-")
    argv = ["--network", network]
    options = dict(RECIPE_OPTIONS.get(game, {}))
    if observation == "earlier":
        _gym, key, earlier = LEGACY_VERSIONS[EARLIER[game]]
        assert key == game
        options.update(earlier)
    if options:
        argv += ["--options", json.dumps(options)]
    return argv


def result_path(game: str, cell: str, minutes: float, seed: int, directory: Path = RESULTS) -> Path:
    return directory / f"{game}-{cell}-{minutes:g}min-seed{seed}.json"


def run(game: str, cell: str, minutes: float, seed: int, threads: int | None, eval_every: int) -> dict:
    from .time_to_skill import run as run_recipe
    # --timesteps only bounds the curve's schedule: the budget stops PPO long before it
    return run_recipe(game, seed, timesteps=50_000_000, eval_every=eval_every, eval_games=64, threads=threads,
                      extra=["--minutes", f"{minutes:g}", *cell_arguments(game, cell)])


def save(summary: dict, game: str, cell: str, minutes: float, seed: int) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = result_path(game, cell, minutes, seed)
    keep = {k: v for k, v in summary.items() if k not in ("model", "learning_curve")}
    keep["ablation_cell"] = cell
    path.write_text(json.dumps(keep, indent=1))
    return path


def _pooled(runs: list[dict], opponent: str) -> str:
    wins = sum(r["evaluation"][opponent]["wins"] for r in runs)
    games = sum(r["evaluation"][opponent]["games"] for r in runs)
    lo, hi = wilson_interval(wins, games)
    seeds = "/".join(f"{r['evaluation'][opponent]['win_rate']:.0%}" for r in runs)
    return f"{wins / games:.1%} ({lo:.0%}-{hi:.0%}) · {seeds}"


def table(directory: Path = RESULTS) -> str:
    """Markdown: one row per game, cell and budget, the seeds pooled."""
    groups: dict[tuple, list[dict]] = {}
    for path in sorted(directory.glob("*.json")):
        s = json.loads(path.read_text())
        groups.setdefault((s["game"], s["ablation_cell"], s["minutes_budget"]), []).append(s)
    rows = ["| game | cell | budget | seeds | vs scripted: pooled (95 % CI) · per seed | vs random: pooled · per seed | "
            "learner decisions (mean) | PPO decisions/s (mean) | warm start s (mean) | load at end |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    order = {c: k for k, c in enumerate(CELLS)}
    for (game, cell, minutes), runs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][2], order[kv[0][1]])):
        runs.sort(key=lambda r: r["seed"])
        mean = lambda key: sum(r[key] for r in runs) / len(runs)  # noqa: E731
        load = "/".join(f"{r['machine']['load_average_at_end'][0]:.1f}" for r in runs)
        rows.append(f"| {game} | {cell} | {minutes:g} min | {len(runs)} | {_pooled(runs, 'scripted')} | "
                    f"{_pooled(runs, 'random')} | {mean('timesteps'):,.0f} | {mean('ppo_decisions_per_second'):,.0f} | "
                    f"{mean('warm_start_seconds'):.0f} | {load} |")
    return "\n".join(rows)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=GAME_KEYS, default="talon")
    ap.add_argument("--cells", nargs="+", choices=CELLS, default=list(CELLS))
    ap.add_argument("--minutes", type=float, default=10.0, help="training budget of every run (warm start + PPO)")
    add_run_arguments(ap)
    args = ap.parse_args(argv)
    if args.table:
        print(table())
        return
    if not 0 < args.minutes < float("inf"):
        ap.error("--minutes must be a positive number of minutes")
    for seed in args.seeds:
        for cell in args.cells:
            summary = run(args.game, cell, args.minutes, seed, args.threads, args.eval_every)
            path = save(summary, args.game, cell, args.minutes, seed)
            print(f"{args.game} {cell} seed {seed}: {summary['evaluation']['scripted']['win_rate']:.1%} vs scripted "
                  f"(saved {path})", flush=True)
    print(table())


if __name__ == "__main__":
    main()
