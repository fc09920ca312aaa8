"""Generate BASELINES.md: every game's reference levels and trained agents, measured in one run.

    python -m wargym.benchmarks.baselines --ship       # the published table and checkpoints (see BASELINES.md)
    python -m wargym.benchmarks.baselines --quick      # a smoke run: tiny budgets, one seed, nothing shipped

For every game:

* the built-in policies (random, the scripted bot(s)) against random and against the
  scripted bot, played in compiled code;
* MaskablePPO trained by ``wargym-train`` against the scripted bot, three ways, each with
  ``--seeds`` seeds: from scratch (``ppo``), after the warm start (behaviour cloning of the
  scripted bot plus DAgger rounds, ``ppo-dagger``), and after the warm start against a
  self-play league (``ppo-selfplay``);
* every trained run evaluated against random and against the scripted bot (sampled actions,
  the seats alternating game by game), pooled over seeds with 95 % Wilson intervals;
* an arena round robin (Elo, random = 0) between the built-in policies and the best seed of
  each trained row; Battle Force also at 4 players (openskill) with an agent trained there.

With ``--ship`` the best trained agent of each game (highest win rate against the scripted
bot, then against random) is saved without its optimiser into ``baselines/`` and described
in ``baselines/index.json``, so that ``wargym.baselines.load(game, name)`` finds it.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from ..registration import GAME_KEYS as GAMES
ROWS = {  # row name: wargym-train arguments beyond the game, budget, seed and output
    "ppo": ["--warm-start", "none"],
    "ppo-dagger": [],
    "ppo-selfplay": ["--opponent", "self-play"],
}
# Rows for some games only: the main job's budget (2,000,000 PPO decisions) where 200,000 fall short of the targets
GAME_ROWS = {"battle_force": {"ppo-dagger-2m": ["--timesteps", "2000000"]},
             "union_wars": {"ppo-dagger-2m": ["--timesteps", "2000000"]}}
ROW_TEXT = {
    "ppo-dagger-2m": "as ppo-dagger with the main job's 2,000,000 PPO decisions",
    "ppo": "MaskablePPO vs scripted, no warm start",
    "ppo-dagger": "MaskablePPO vs scripted after the warm start (cloning + DAgger)",
    "ppo-selfplay": "MaskablePPO self-play league after the warm start",
}
FULL = {"timesteps": 200_000, "warm_start_decisions": 100_000, "warm_start_epochs": 2, "eval_games": 100,
        "curve_points": 1, "curve_games": 8, "arena_games": 30, "seeds": 3, "multiplayer_seeds": 1, "threads": 1,
        "options": {}}
# A smoke run: short games (Planetoids 3 turns, Talon and Battle Force cut at 300 decisions)
QUICK = {"timesteps": 2048, "warm_start_decisions": 1024, "warm_start_epochs": 1, "eval_games": 4,
         "curve_points": 1, "curve_games": 2, "arena_games": 2, "seeds": 1, "multiplayer_seeds": 1, "threads": 1,
         "options": {"planetoids": {"turns": 3}, "talon": {"max_decisions": 300}, "battle_force": {"max_decisions": 300}}}
MULTIPLAYER = 4  # Battle Force's multiplayer section: players per game


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m wargym.benchmarks.baselines", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    ap.add_argument("--seeds", type=int, default=None, help="seeds per trained row (default 3)")
    ap.add_argument("--timesteps", type=int, default=None, help="PPO decisions per run (default 1,000,000)")
    ap.add_argument("--quick", action="store_true", help="tiny budgets and one seed (a smoke test)")
    ap.add_argument("--rows", nargs="+", default=None, help="only these trained rows (default: every row)")
    ap.add_argument("--merge", nargs="+", metavar="JSON", default=None,
                    help="write the table of earlier runs' baselines.json files (the later ones' rows win) "
                         "instead of measuring")
    ap.add_argument("--ship", action="store_true", help="save each game's best agent into baselines/")
    ap.add_argument("--ship-run", nargs=2, metavar=("SUMMARY", "ROW"), default=None,
                    help="ship one finished wargym-train run (its summary.json, e.g. from time_to_skill or a chain of "
                         "--init-model runs) as baseline ROW of its game, and stop")
    ap.add_argument("--description", default=None, help="with --ship-run: the row's description")
    ap.add_argument("--pin", default=None, help="with --ship-run: game options (JSON) to record in the index beside "
                                                "the run's own, so that a later change of their defaults does not change "
                                                "the observation the agent loads with")
    ap.add_argument("--command", default=None, help="with --ship-run: the command(s) that trained it "
                                                     "(default: the summary's own argv)")
    ap.add_argument("--after", default=None, metavar="ROW",
                    help="with --ship-run: the run continued the shipped ROW's model (--init-model): its PPO "
                         "decisions, seconds and command are added to that row's, so the row tells the whole chain")
    ap.add_argument("--out", default="baselines-run", help="folder for the runs, the CSV and the table")
    ap.add_argument("--table", default=None, help="where to write the Markdown table (default OUT/BASELINES.md; "
                                                  "with --ship the repository's BASELINES.md)")
    return ap


def main(argv=None) -> dict:
    args = build_parser().parse_args(argv)
    if args.ship_run:
        return ship_run(Path(args.ship_run[0]), args.ship_run[1], args.description, args.command,
                        json.loads(args.pin) if args.pin else None, after=args.after)
    if args.merge:
        return merge(args.merge, Path(args.table or "BASELINES.md"))
    budget = dict(QUICK if args.quick else FULL)
    budget.update({k: v for k, v in (("seeds", args.seeds), ("timesteps", args.timesteps)) if v})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    report = {"meta": machine(budget, argv), "games": {}}
    for game in args.games:
        report["games"][game] = measure_game(game, budget, out / game, ship=args.ship, only=args.rows)
        (out / "baselines.json").write_text(json.dumps(report, indent=2, default=str))
        (out / "BASELINES.partial.md").write_text(markdown(report))
    report["meta"]["wall_minutes"] = round((time.perf_counter() - started) / 60, 1)
    table = Path(args.table) if args.table else (repository() / "BASELINES.md" if args.ship else out / "BASELINES.md")
    table.write_text(markdown(report))
    (out / "baselines.json").write_text(json.dumps(report, indent=2, default=str))
    print(f"table: {table}\nraw:   {out / 'baselines.json'}")
    return report


# -- measuring --------------------------------------------------------------------------------------
def measure_game(game: str, budget: dict, out: Path, ship: bool, only=None) -> dict:
    from ..training.evaluate import win_rate_builtin
    from ..wrappers.sb3 import load_game
    bots = builtin_names(load_game(game))
    n = budget["eval_games"]
    result = {"builtin": {}, "trained": {}, "arena": None, "shipped": None, "multiplayer": None}
    for bot in bots:
        result["builtin"][bot] = {opp: win_rate_builtin(bot, game, opp, n_games=n, seed=101,
                                                        options=budget["options"].get(game))
                                  for opp in ("random", "scripted")}
    for row, extra in {**ROWS, **GAME_ROWS.get(game, {})}.items():
        if only and row not in only:
            continue
        runs = [train_run(game, row, extra, seed, budget, out) for seed in range(budget["seeds"])]
        result["trained"][row] = {"runs": runs, "pooled": pooled(runs)}
    best_row, best = best_run(result["trained"])
    result["arena"] = arena(game, bots, {row: best_of(r["runs"])["model"] for row, r in result["trained"].items()},
                            budget["options"].get(game, {}), budget["arena_games"])
    if ship:
        result["shipped"] = ship_checkpoint(game, best_row, best, budget)
    if game == "battle_force" and (not only or f"ppo-dagger-{MULTIPLAYER}p" in only):
        result["multiplayer"] = multiplayer(budget, out, bots, ship)
    return result


def builtin_names(game) -> list[str]:
    from ..arena.policies import builtin_names as names
    return names(game)


def train_run(game, row, extra, seed, budget, out, players=None) -> dict:
    """One ``wargym-train`` run, in this process (kernels compile once); its summary's essentials."""
    from ..training.train import main as train
    argv = ["--game", game, "--timesteps", str(budget["timesteps"]), "--seed", str(seed),
            "--warm-start-decisions", str(budget["warm_start_decisions"]),
            "--warm-start-epochs", str(budget["warm_start_epochs"]), "--eval-games", str(budget["eval_games"]),
            "--curve-points", str(budget["curve_points"]), "--curve-games", str(budget["curve_games"]),
            "--threads", str(budget["threads"]), "--warm-start-rounds", "2", "--out", str(out / row),
            "--no-progress", *extra]
    if budget["options"].get(game):
        argv += ["--options", json.dumps(budget["options"][game])]
    if players:
        argv += ["--players", str(players)]
    s = train(argv)
    rounds = s.get("warm_start_rounds", 0)
    warm = budget["warm_start_decisions"] * (rounds + 1) if s["warm_start"] != "none" else 0
    return {"seed": seed, "command": "wargym-train " + " ".join(argv), "ppo_decisions": s["timesteps"],
            "warm_start_decisions": warm, "total_seconds": s["total_seconds"], "evaluation": s["evaluation"],
            "model": s["model"]}


def pooled(runs: list[dict]) -> dict:
    """Wins, draws and losses summed over seeds, with the win rate's 95 % Wilson interval and
    the spread of the seeds' own win rates."""
    from ..arena.stats import wilson_interval
    out = {}
    for opp in ("random", "scripted"):
        w = sum(r["evaluation"][opp]["wins"] for r in runs if opp in r["evaluation"])
        d = sum(r["evaluation"][opp]["draws"] for r in runs if opp in r["evaluation"])
        l = sum(r["evaluation"][opp]["losses"] for r in runs if opp in r["evaluation"])
        n = w + d + l
        lo, hi = wilson_interval(w, n) if n else (float("nan"), float("nan"))
        seeds = [r["evaluation"][opp]["win_rate"] for r in runs if opp in r["evaluation"]]
        out[opp] = {"wins": w, "draws": d, "losses": l, "games": n, "win_rate": w / n if n else float("nan"),
                    "ci95": [lo, hi], "seed_min": min(seeds, default=float("nan")),
                    "seed_max": max(seeds, default=float("nan"))}
    return out


def strength(run: dict) -> tuple[float, float]:
    e = run["evaluation"]
    return (e["scripted"]["win_rate"], e["random"]["win_rate"])


def best_of(runs: list[dict]) -> dict:
    return max(runs, key=strength)


def best_run(trained: dict) -> tuple[str, dict]:
    row = max(trained, key=lambda r: strength(best_of(trained[r]["runs"])))
    return row, best_of(trained[row]["runs"])


def arena(game: str, bots: list[str], models: dict[str, str], options: dict, games: int) -> dict:
    from ..arena import run_arena
    specs = bots + [f"{row}={path}" for row, path in models.items()]
    _, summary = run_arena(game, specs, options, games=games, seed=7)
    return {"ratings": summary["ratings"], "note": summary["rating_note"]}


def multiplayer(budget: dict, out: Path, bots: list[str], ship: bool) -> dict:
    """Battle Force at ``MULTIPLAYER`` players: the warm-started agent trained against the
    scripted bot in every other seat (its seat rotating), rated by openskill."""
    options = {**budget["options"].get("battle_force", {}), "players": MULTIPLAYER}
    row = f"ppo-dagger-{MULTIPLAYER}p"
    runs = [train_run("battle_force", row, [], seed, budget, out, players=MULTIPLAYER)
            for seed in range(budget["multiplayer_seeds"])]
    best = best_of(runs)
    result = {"players": MULTIPLAYER, "runs": runs,
              "arena": arena("battle_force", bots, {row: best["model"]}, options, max(1, budget["arena_games"] // 4))}
    if ship:
        result["shipped"] = ship_checkpoint("battle_force", row, best, budget, {"players": MULTIPLAYER})
    return result


def ship_checkpoint(game: str, row: str, run: dict, budget: dict, options: dict | None = None) -> dict:
    """Save ``run``'s model compactly into ``baselines/`` and record it in ``index.json``."""
    from sb3_contrib import MaskablePPO

    from .. import baselines
    model = MaskablePPO.load(run["model"], device="cpu")
    file = f"{game}-{row}.zip"
    size = baselines.save_compact(model, baselines.HERE / file)
    parameters = sum(p.numel() for p in model.policy.parameters())
    entry = {"file": file, "game": game, "options": options or {}, "row": row, "description": ROW_TEXT.get(row, row),
             "seed": run["seed"], "command": run["command"], "ppo_decisions": run["ppo_decisions"],
             "warm_start_decisions": run["warm_start_decisions"], "training_seconds": run["total_seconds"],
             "parameters": parameters, "size_bytes": size, "commit": commit(),
             "evaluation": run["evaluation"], "date": datetime.now(timezone.utc).strftime("%Y-%m-%d")}
    index = json.loads(baselines.INDEX.read_text()) if baselines.INDEX.is_file() else {}
    index.setdefault(game, {})[row] = entry
    baselines.INDEX.write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")
    baselines._index.cache_clear()
    return {"name": row, "file": file, "size_bytes": size, "parameters": parameters}


def ship_run(summary_path: Path, row: str, description: str | None = None, command: str | None = None,
             pin: dict | None = None, after: str | None = None) -> dict:
    """Ship the model of one finished ``wargym-train`` run (its ``summary.json``) as ``row``; ``after``:
    the run continued that shipped row's model, whose decisions, seconds and command it adds to."""
    s = json.loads(summary_path.read_text())
    model = s.get("model") or str(summary_path.parent / "model.zip")
    rounds = s.get("warm_start_rounds", 0)
    warm = s.get("warm_start_decisions", 0) * (rounds + 1) if s.get("warm_start", "none") != "none" else 0
    run = {"seed": s.get("seed", 0), "command": command or "wargym-train " + " ".join(s.get("argv", [])),
           "ppo_decisions": s["timesteps"], "warm_start_decisions": warm, "total_seconds": s["total_seconds"],
           "evaluation": s["evaluation"], "model": model}
    if after:
        from .. import baselines
        before = json.loads(baselines.INDEX.read_text())[s["game"]][after]
        run["command"] = f"{before['command']}, then {run['command']}"
        run["ppo_decisions"] += before["ppo_decisions"]
        run["warm_start_decisions"] += before["warm_start_decisions"]
        run["total_seconds"] = round(run["total_seconds"] + before["training_seconds"], 1)
        run["seed"] = before["seed"]
    if description:
        ROW_TEXT[row] = description
    options = {**{k: v for k, v in s["options"].items() if k != "reward"}, **(pin or {})}
    shipped = ship_checkpoint(s["game"], row, run, {}, options)
    print(f"shipped {s['game']} {row}: {shipped}")
    return shipped


def merge(files: list[str], table: Path) -> dict:
    """One report from several runs' ``baselines.json`` (e.g. rows measured side by side in two
    processes): the games' rows are united, a later file's row replacing an earlier one's."""
    reports = [json.loads(Path(f).read_text()) for f in files]
    merged = reports[0]
    merged["meta"]["command"] = " and ".join(f"`{r['meta']['command']}`" for r in reports).strip("`")
    merged["meta"]["commit"] = ", ".join(dict.fromkeys(r["meta"]["commit"] for r in reports))
    merged["meta"]["wall_minutes"] = "side by side in several processes, merged with --merge; see the rows for the"
    for r in reports[1:]:
        for game, g in r["games"].items():
            if game not in merged["games"]:
                merged["games"][game] = g
                continue
            into = merged["games"][game]
            into["trained"].update(g["trained"])
            for key in ("multiplayer",):
                into[key] = g.get(key) or into.get(key)
            into.setdefault("also_shipped", []).append(g.get("shipped"))
    _current_sizes(merged)
    table.write_text(markdown(merged))
    print(f"table: {table}")
    return merged


def _current_sizes(report: dict) -> None:
    """The shipped files' sizes as they are now (a checkpoint may have been saved again since)."""
    from .. import baselines
    for game, g in report["games"].items():
        for shipped in [g.get("shipped"), *g.get("also_shipped", []), (g.get("multiplayer") or {}).get("shipped")]:
            if shipped and (baselines.HERE / shipped["file"]).is_file():
                shipped["size_bytes"] = (baselines.HERE / shipped["file"]).stat().st_size


# -- provenance -----------------------------------------------------------------------------------
def repository() -> Path:
    return Path(__file__).resolve().parent.parent


# what a baseline's play depends on: the games' rules and bots, the adapters, the training code
TRAINING_PATHS = ("envs", "registration.py", "wrappers", "training", "arena", "baselines", "benchmarks/baselines.py")


def commit() -> str:
    """HEAD, marked if any file the baselines depend on differs from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repository(), capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", *TRAINING_PATHS],
                               cwd=repository(), capture_output=True, text=True, check=True).stdout.strip()
        return head + ("+uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


def machine(budget: dict, argv) -> dict:
    import numba
    import torch
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "commit": commit(), "cpu": cpu,
            "cores": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__,
            "numba": numba.__version__, "budget": budget,
            "command": "python -m wargym.benchmarks.baselines " + " ".join(argv if argv is not None else sys.argv[1:])}


# -- the table ------------------------------------------------------------------------------------
def _rate(r: dict) -> str:
    lo, hi = r.get("ci95", (None, None))
    text = f"{100 * r['win_rate']:.1f} %"
    if lo is None:
        from ..arena.stats import wilson_interval
        lo, hi = wilson_interval(r["wins"], r["games"])
    return f"{text} ({100 * lo:.0f}–{100 * hi:.0f}) · {r['wins']}/{r['draws']}/{r['losses']}"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def markdown(report: dict) -> str:
    m = report["meta"]
    b = m["budget"]
    lines = [
        "# Baselines",
        "",
        f"Generated by `{m['command']}` on {m['date']}, commit `{m['commit']}`; "
        f"{m['cores']} cores ({m['cpu']}), Python {m['python']}, torch {m['torch']}, numba {m['numba']}; "
        f"{m.get('wall_minutes', '?')} minutes in all.",
        "",
        f"Every trained row: {b['seeds']} seeds, {b['timesteps']:,} PPO decisions each against the scripted bot "
        + (f"(game options {b['options']}) " if b["options"] else "") +
        f"(the warm start adds {b['warm_start_decisions']:,} decisions of the scripted bot's play and as many of "
        "each DAgger round's); its win rates pool the seeds' evaluation games "
        f"({b['eval_games']} per seed and opponent, sampled actions, seats alternating), with the 95 % Wilson "
        "interval and W/D/L counts; 'seeds' is the range of the seeds' own win rates. Wall time: mean per seed, "
        "warm start, training and evaluation included (the kernels were already compiled). Built-in rows: "
        f"{b['eval_games']} games, compiled. Elo: the arena's maximum-likelihood fit, random = 0, with the best "
        f"seed of each trained row ({b['arena_games']} games per pairing).",
        "",
        "Targets (issue 13): the best trained agent beats random ≥ 95 % and the scripted bot ≥ 55 % "
        "within one hour of training on 2 cores.",
        "",
    ]
    for game, g in report["games"].items():
        lines += _game_section(game, g)
    return "\n".join(lines) + "\n"


def _game_section(game: str, g: dict) -> list[str]:
    elo = {r["policy"]: r for r in (g["arena"] or {}).get("ratings", [])}
    lines = [f"## {game}", "",
             "| agent | decisions (warm start + PPO) | wall time | vs random: win % (95 % CI) · W/D/L | seeds | "
             "vs scripted: win % (95 % CI) · W/D/L | seeds | Elo |",
             "|---|---|---|---|---|---|---|---|"]
    for bot, r in g["builtin"].items():
        lines.append(f"| {bot} (built-in) | – | – | {_rate(r['random'])} | – | {_rate(r['scripted'])} | – | "
                     f"{_elo(elo.get(bot))} |")
    for row, t in g["trained"].items():
        runs, p = t["runs"], t["pooled"]
        warm = runs[0]["warm_start_decisions"]
        ppo = runs[0]["ppo_decisions"]
        wall = sum(r["total_seconds"] for r in runs) / len(runs)
        lines.append(f"| {row}: {ROW_TEXT[row]} | {warm:,} + {ppo:,} | {_minutes(wall)} | {_rate(p['random'])} | "
                     f"{_spread(p['random'])} | {_rate(p['scripted'])} | {_spread(p['scripted'])} | "
                     f"{_elo(elo.get(row))} |")
    lines += ["", _verdict(g), ""]
    for s in [g.get("shipped"), *g.get("also_shipped", [])]:
        if s:
            lines += [f"Shipped: `wargym.baselines.load(\"{game}\", \"{s['name']}\")` — {s['parameters']:,} "
                      f"parameters, {s['size_bytes'] / 1024:.0f} KiB (`baselines/{s['file']}`).", ""]
    if g.get("multiplayer"):
        lines += _multiplayer_section(g["multiplayer"])
    return lines


def _elo(r) -> str:
    if not r or "elo" not in r:
        return "–"
    return f"{r['elo']:.0f} ± {r['elo_ci95']:.0f}"


def _spread(p) -> str:
    return f"{100 * p['seed_min']:.0f}–{100 * p['seed_max']:.0f} %"


def _verdict(g: dict) -> str:
    row, run = best_run(g["trained"])
    e = run["evaluation"]
    vs_random, vs_scripted = e["random"]["win_rate"], e["scripted"]["win_rate"]
    met = ("met" if vs_random >= 0.95 else "**not met**", "met" if vs_scripted >= 0.55 else "**not met**")
    return (f"Best trained agent: {row}, seed {run['seed']} ({_minutes(run['total_seconds'])} of training): "
            f"{100 * vs_random:.1f} % against random (target ≥ 95 %: {met[0]}), "
            f"{100 * vs_scripted:.1f} % against the scripted bot (target ≥ 55 %: {met[1]}).")


def _multiplayer_section(mp: dict) -> list[str]:
    n = mp["players"]
    lines = [f"### battle_force with {n} players", "",
             f"`ppo-dagger-{n}p`: the warm-started agent trained in one seat (rotating) with the scripted bot in the "
             "other seats. Win = first place. openskill (Plackett-Luce) ratings from the arena's round robin "
             "(ordinal = mu − 3 sigma).", "",
             "| seed | decisions (warm start + PPO) | wall time | first place vs random | first place vs scripted |",
             "|---|---|---|---|---|"]
    for r in mp["runs"]:
        e = r["evaluation"]
        lines.append(f"| {r['seed']} | {r['warm_start_decisions']:,} + {r['ppo_decisions']:,} | "
                     f"{_minutes(r['total_seconds'])} | {_rate(e['random'])} | {_rate(e['scripted'])} |")
    lines += ["", "| policy | ordinal | mu | sigma |", "|---|---|---|---|"]
    for r in mp["arena"]["ratings"]:
        lines.append(f"| {r['policy']} | {r['ordinal']:.2f} | {r['mu']:.2f} | {r['sigma']:.2f} |")
    if mp.get("shipped"):
        s = mp["shipped"]
        lines += ["", f"Shipped: `wargym.baselines.load(\"battle_force\", \"{s['name']}\")` (options "
                      f"`{{\"players\": {n}}}`) — {s['parameters']:,} parameters, {s['size_bytes'] / 1024:.0f} KiB."]
    return lines + [""]


if __name__ == "__main__":
    main()
