"""Train a MaskablePPO agent on a wargym game against a fixed opponent.

    python -m wargym.training.train                      # the main job: Battle Force vs its scripted bot
    python -m wargym.training.train --game planetoids --opponent random --timesteps 3000000

A behaviour-cloning warm start from the game's scripted bot, then MaskablePPO
with a network that reads the observation's structure (training/networks.py).
Prints the trained agent's win rate, the measured speed of each phase, and
where it saved the model, the learning curve and the summary.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

from ..registration import GAME_KEYS as GAMES

# Each game's training reward: the dense one where the game has it (see each RULES.md).
SELF_PLAY = "self-play"
# DAgger rounds of the warm start where they pay (BASELINES.md): Planetoids' clone went from
# 23 % to 97 % wins against random; Battle Force's main job gained nothing (54 % against the
# scripted bot with two rounds, 78.5 % without) and its warm start took 450 s instead of 13 s.
DEFAULT_WARM_ROUNDS = {"planetoids": 2}
DEFAULT_REWARD = {"planetoids": "score", "talon": "points", "battle_force": "points", "union_wars": "kills"}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="wargym-train", description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="battle_force", choices=GAMES)
    ap.add_argument("--players", type=int, default=None, help="battle_force only: 2-6 players (default 2)")
    ap.add_argument("--options", default=None, help="other game options as JSON, e.g. '{\"turns\": 20}' (see the "
                    "game's RULES.md)")
    ap.add_argument("--timesteps", type=int, default=2_000_000, help="learner decisions of PPO (default: the main job)")
    ap.add_argument("--minutes", type=float, default=None,
                    help="a wall-clock budget of training (warm start + PPO; the compile and the evaluations are not "
                         "counted): PPO stops when it is spent, or at --timesteps, whichever comes first; the warm start "
                         "always runs to its end (the ablation's fixed budget, benchmarks/ablation.py)")
    ap.add_argument("--opponent", default="scripted",
                    help="a built-in policy of the game ('random', 'scripted', ...), a mixture of them ('random,scripted': "
                    "each game plays one, half the games each), the search bot ('search', 'search:N' simulations or "
                    "'search:Nms' milliseconds a decision: stronger than the scripted bot, and slower; 'mcts' the same "
                    "for the tree search), the path of a saved "
                    "model (.zip), or 'self-play' (a league of the learner's snapshots and the built-in bots: "
                    "training/selfplay.py)")
    ap.add_argument("--n-envs", type=int, default=256, help="games stepped together in the batched core")
    ap.add_argument("--n-steps", type=int, default=32, help="rollout length per game (rollout = n-envs x n-steps)")
    ap.add_argument("--batch-size", type=int, default=2048)
    ap.add_argument("--epochs", type=int, default=2, help="PPO epochs over each rollout")
    ap.add_argument("--learning-rate", type=float, default=3e-4)
    ap.add_argument("--network", default="auto", choices=("auto", "pointer", "structured"),
                    help="auto: the pointer head where the observation has an action table (talon_v1, planetoids_v1 and v2, "
                         "union_wars_v2), else the structured network; pointer: also where the game gathers one from its "
                         "observation (Battle Force: each action reads the card or ship it names); structured: the "
                         "structured extractor and SB3's linear action head whatever the observation (the ablation "
                         "baseline); see training/networks.py")
    ap.add_argument("--reward", default=None, help="the game's reward option (default: the game's training reward: "
                    + ", ".join(f"{g} {r}" for g, r in DEFAULT_REWARD.items()) + ")")
    ap.add_argument("--warm-start", default=None,
                    help="behaviour-clone this built-in policy before PPO (default: scripted, or none with "
                         "--init-model), or a search bot ('search:N' or 'mcts:N': every label a search, so the warm "
                         "start costs N rollouts a decision); 'none' = PPO from scratch")
    ap.add_argument("--init-model", default=None,
                    help="start from the weights of this saved model (.zip of the same game, options and network) "
                         "instead of a warm start: to continue training, e.g. against another opponent; with "
                         "--warm-start named too, the warm start refits those weights on its teacher's labels")
    ap.add_argument("--warm-start-decisions", type=int, default=200_000)
    ap.add_argument("--warm-start-epochs", type=int, default=3)
    ap.add_argument("--warm-start-rounds", type=int, default=None,
                    help="DAgger rounds after cloning: the student plays --warm-start-decisions decisions, the bot "
                         "labels them, the student is fitted to every label so far (default: 2 for planetoids, "
                         "0 = cloning only for the others)")
    ap.add_argument("--warm-start-fit", choices=("all", "round"), default="all",
                    help="how much each round of the warm start fits: 'all' (default) --warm-start-epochs passes "
                         "over every label so far; 'round' --warm-start-epochs times the round's new labels, drawn "
                         "evenly from every label so far, so that every DAgger round costs the same (Planetoids: "
                         "half the warm start's time, 92 %% agreement with the bot against 95 %%, and a slower "
                         "climb after it on the seed measured; BASELINES.md)")
    ap.add_argument("--warm-start-targets", choices=("move", "visits"), default="move",
                    help="what the warm start fits: 'move' (default) the teacher's move; 'visits' (with --warm-start "
                         "mcts:N) expert iteration: the tree search with the PUCT rule at its root and the student's own "
                         "policy as its prior (from the first DAgger round on, or from --init-model's weights, which it "
                         "then starts from) labels each position with the share of its simulations each move received, "
                         "and the student is fitted to those distributions (training/imitation.py)")
    ap.add_argument("--eval-games", type=int, default=200, help="games of the final evaluation against each opponent")
    ap.add_argument("--curve-points", type=int, default=6, help="evaluations during PPO for the learning curve")
    ap.add_argument("--curve-games", type=int, default=32, help="games per opponent at each point of the curve")
    ap.add_argument("--eval-play", choices=("sampled", "greedy"), default="sampled",
                    help="how the curve and the final evaluation play the policy: sampled from its distribution, as "
                         "trained (default), or greedy, its most likely action, as `wargym serve` plays a model; the "
                         "curve's best point is kept by that play")
    ap.add_argument("--last", action="store_true",
                    help="keep the policy as it is at the end of PPO (default: the best point of the learning curve, by "
                         "its mean win rate against random and the scripted bot; the final evaluation plays other games)")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: every core; 1 on a busy machine)")
    ap.add_argument("--device", default="auto",
                    help="torch device of the network: auto (a CUDA GPU when torch sees one, else the CPU), cpu, cuda, "
                         "cuda:N; the games always run on the CPU cores")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs", help="folder for the run's folder (model, curve, summary)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")
    ap.add_argument("--backend", default="sb3", choices=("sb3", "rllib"),
                    help="sb3: MaskablePPO in this process (default); rllib: PPO on Ray RLlib with env runners "
                         "(the rllib extra; wargym/rllib/train.py; no warm start)")
    ap.add_argument("--env-runners", type=int, default=None,
                    help="rllib only: sampling processes of --n-envs games each (default 2; 0 = in the driver)")
    return ap


def check_args(ap, args) -> dict:
    """Everything that can be wrong with the arguments, found before any work is done
    (argparse's one-line error and exit status 2).  Returns the game's options."""
    from ..envs.core.search import is_search_spec, is_tree_spec, searcher_for, spec_anchor
    from ..wrappers.opponents import is_mixture, mixture_ids
    from ..wrappers.sb3 import load_game
    game = load_game(args.game)
    choices = game._CHOICES["reward"]
    reward = args.reward or DEFAULT_REWARD.get(args.game, game.DEFAULT_OPTIONS["reward"])
    if reward not in choices:
        ap.error(f"--reward {reward!r} is not a reward of {args.game}; choose from {', '.join(choices)}")
    options = {}
    if args.options:
        try:
            options = json.loads(args.options)
        except json.JSONDecodeError as e:
            ap.error(f"--options is not valid JSON ({e.msg})")
        if not isinstance(options, dict):
            ap.error("--options must be a JSON object of game options")
    options["reward"] = reward
    if args.players is not None:
        if args.game != "battle_force":
            ap.error(f"--players is for battle_force only ({args.game} is a two-player game)")
        if not 2 <= args.players <= 6:
            ap.error(f"--players must be 2 to 6, got {args.players}")
        options["players"] = args.players
    if args.warm_start is None:   # not named: a run from given weights continues them, others clone the bot
        args.warm_start = "none" if args.init_model is not None else "scripted"
    for name, policy in (("--opponent", args.opponent), ("--warm-start", args.warm_start)):
        if (policy == "none" and name == "--warm-start") or (policy == SELF_PLAY and name == "--opponent"):
            continue
        if name == "--opponent" and is_mixture(policy):
            try:
                mixture_ids(policy, game, 1, 2)
            except ValueError as e:
                ap.error(f"--opponent: {e}")
            if args.backend == "rllib":
                ap.error("--backend rllib trains against one built-in bot or self-play; a mixture is sb3 only")
            continue
        if is_search_spec(policy):
            try:
                searcher_for(policy, game, options)     # (an anchored one: the agent must play these options)
            except (ValueError, ImportError) as e:
                ap.error(f"{name} {e}")
            if args.backend == "rllib":
                ap.error(f"{name} {policy}: the search bot runs in Python, beside the batched core; it is sb3 only")
            continue
        if policy not in game.bot.POLICIES and not (name == "--opponent" and policy.endswith(".zip")):
            ap.error(f"{name} {policy!r}: choose from {', '.join(sorted(game.bot.POLICIES))}"
                     + (" or give the path of a saved model (.zip)" if name == "--opponent" else ""))
    if args.warm_start_targets == "visits":
        if not is_tree_spec(args.warm_start) or spec_anchor(args.warm_start):
            ap.error(f"--warm-start-targets visits: the teacher must be the tree search (mcts, mcts:N), "
                     f"not {args.warm_start!r} (an anchored search's root keeps its anchor: its visits are no policy)")
        if args.backend == "rllib":
            ap.error("--warm-start-targets visits is sb3 only (RLlib's runs have no warm start)")
    if args.init_model is not None and not Path(args.init_model).is_file():
        ap.error(f"--init-model {args.init_model!r}: no such file")
    if args.opponent.endswith(".zip") and not Path(args.opponent).is_file():
        ap.error(f"--opponent {args.opponent!r}: no such file")
    try:
        game.parse_options(options)
    except (ValueError, TypeError, KeyError) as e:
        ap.error(f"game options: {e}")
    for name in ("timesteps", "n_envs", "n_steps", "batch_size", "epochs", "eval_games"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.minutes is not None and not 0 < args.minutes < float("inf"):
        ap.error(f"--minutes must be a positive number of minutes, got {args.minutes}")
    if args.minutes is not None and args.backend == "rllib":
        ap.error("--minutes is sb3 only (RLlib's runs stop at --timesteps)")
    if args.eval_play != "sampled" and args.backend == "rllib":
        ap.error("--eval-play greedy is sb3 only (RLlib's evaluation plays the arena's sampled games)")
    if args.warm_start_rounds is None:
        args.warm_start_rounds = DEFAULT_WARM_ROUNDS.get(args.game, 0)
    if args.warm_start_rounds < 0:
        ap.error("--warm-start-rounds must be 0 or more")
    if args.backend == "rllib" and importlib.util.find_spec("ray") is None:
        ap.error("--backend rllib needs Ray RLlib: pip install 'wargym[rllib]'")
    if args.backend == "rllib" and args.opponent.endswith(".zip"):
        ap.error("--backend rllib trains against built-in bots or self-play; a saved model as --opponent is sb3 only")
    if args.env_runners is not None and (args.backend != "rllib" or args.env_runners < 0):
        ap.error("--env-runners is for --backend rllib and must be 0 or more")
    from .runtime import pick_device
    try:
        args.device = pick_device(args.device)
    except ValueError as e:
        ap.error(str(e))
    return options


class Bars:
    """tqdm progress bars, or nothing with --no-progress."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, total, desc, unit):
        if not self.enabled:
            return _NoBar()
        from tqdm.auto import tqdm
        return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, dynamic_ncols=True, leave=False)


class _NoBar:
    def update(self, n=1):
        pass

    def close(self):
        pass


def main(argv=None) -> dict:
    ap = build_parser()
    args = ap.parse_args(argv)
    options = check_args(ap, args)
    if args.backend == "rllib":
        from ..rllib.train import main as train_on_rllib
        return train_on_rllib(args, options)
    t_start = time.perf_counter()
    import matplotlib
    matplotlib.use("Agg")
    import torch
    from stable_baselines3.common.logger import configure as configure_sb3_logger

    from ..wrappers.sb3 import WargymVecEnv
    from .curve import ScheduledEvaluation, plot_curve
    from .evaluate import print_win_rates, win_rate, win_rate_builtin

    from .runtime import keep_freed_memory, torch_threads
    keep_freed_memory()
    torch.set_num_threads(torch_threads(args.threads))
    bars = Bars(not args.no_progress)
    print(f"wargym: training MaskablePPO on {args.game} against {args.opponent} for {args.timesteps:,} decisions "
          f"({args.n_envs} games at a time, the network on {args.device}); the first run compiles the game's kernels, naming each (about a minute "
          "on two cores, a helper process beside this one; `wargym compile` does it ahead; later runs load them).",
          flush=True)

    t0 = time.perf_counter()
    from ..envs.core.warmup import announce_compiles
    # a cold cache: name each kernel as Numba compiles it, for the whole run (the env now, the bots' loops
    # at the warm start and the evaluations), not minutes of silence; a warm cache prints nothing
    announce_compiles(lambda what: print(f"  {time.perf_counter() - t0:5.0f} s  {what}", flush=True))
    env = WargymVecEnv(args.game, n_envs=args.n_envs, opponent=fixed_opponent(args), options=options, seed=args.seed)
    env.reset()
    compile_s = time.perf_counter() - t0
    model = make_model(env, args, options)
    run_dir = new_run_dir(Path(args.out), f"{args.game}-ppo-{time.strftime('%Y%m%d-%H%M%S')}")
    # SB3's own training statistics (losses, entropy, ...) beside the model
    model.set_logger(configure_sb3_logger(str(run_dir), ["csv"]))

    warm_s, agreement = 0.0, None
    if args.init_model is not None:
        model.set_parameters(args.init_model, exact_match=True, device=args.device)
        print(f"initial weights: {args.init_model}", flush=True)
    if args.warm_start != "none":
        agreement, warm_s = warm_start(model, args, options, bars)
        what = "expert iteration with" if args.warm_start_targets == "visits" else "behaviour cloning of"
        print(f"warm start: {what} the {args.warm_start} bot on {args.warm_start_decisions:,} of its "
              f"decisions and {args.warm_start_rounds} DAgger rounds in {warm_s:.0f} s (agreement {agreement:.0%})",
              flush=True)

    curve = ScheduledEvaluation(args.game, options, every=max(1, args.timesteps // max(1, args.curve_points)),
                                games=args.curve_games, seed=args.seed + 500,
                                keep_best=None if args.last else run_dir / "best_on_curve.zip",
                                deterministic=args.eval_play == "greedy")
    callbacks = [curve]
    budget = None
    if args.minutes is not None:
        from .curve import WallClockBudget
        budget = WallClockBudget(args.minutes * 60.0, spent=warm_s, evaluations=curve)
        callbacks.append(budget)
    if args.opponent == SELF_PLAY:
        from .selfplay import League
        by_id = {}  # each built-in bot once, under its first name (POLICIES has aliases)
        for name, pid in env.loop.game.bot.POLICIES.items():
            by_id.setdefault(pid, name)
        league = League(env, list(by_id.values()), seed=args.seed)
        callbacks.append(league)
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=callbacks, progress_bar=not args.no_progress)
    if not curve.points or curve.points[-1]["decisions"] < model.num_timesteps:
        curve.evaluate(model, model.num_timesteps)
    ppo_s = time.perf_counter() - t0 - curve.seconds
    kept = None
    if curve.best is not None and curve.best["decisions"] < curve.points[-1]["decisions"]:
        kept = curve.best
        model.set_parameters(str(curve.keep_best), exact_match=True, device=args.device)
        print(f"kept the policy of the curve's best point, at {kept['decisions']:,} decisions (mean win rate "
              f"{kept['score']:.0%}; --last keeps the final one)", flush=True)
    model_path = run_dir / "model.zip"
    model.save(model_path)

    # Sampled actions, as the policy was trained (greedy play can loop through
    # the same non-scoring choices); the learner's seat alternates game by game.
    evaluation = {}
    for opp in dict.fromkeys([*evaluated_opponents(args), "random"]):
        bar = bars(args.eval_games, f"evaluation vs {Path(opp).name}", "game")
        evaluation[opp] = win_rate(model, args.game, opponent=opp, n_games=args.eval_games, seed=args.seed + 1000,
                                   options=options, progress=bar.update, deterministic=args.eval_play == "greedy")
        bar.close()
    reference = {}  # the levels the curve is read against: random and the scripted bot, each vs random
    if options.get("players", 2) == 2:
        for policy in ("random", "scripted"):
            ref = win_rate_builtin(policy, args.game, "random", n_games=64, seed=args.seed + 9, options=options)
            reference[f"{policy} vs random ({ref['win_rate']:.0%})"] = ref["win_rate"]
    curve_path = plot_curve(curve.points, run_dir / "learning_curve.png",
                            f"{args.game}: MaskablePPO vs {Path(args.opponent).name}", reference)
    total_s = time.perf_counter() - t_start
    summary = {"game": args.game, "seed": args.seed, "argv": list(sys.argv[1:] if argv is None else argv),
               "options": options, "opponent": args.opponent, "timesteps": model.num_timesteps,
               "n_envs": args.n_envs, "warm_start": args.warm_start,
               "warm_start_rounds": args.warm_start_rounds if args.warm_start != "none" else 0,
               "warm_start_fit": args.warm_start_fit, "warm_start_targets": args.warm_start_targets,
               "warm_start_agreement": agreement, "warm_start_decisions": args.warm_start_decisions,
               "network": args.network, "init_model": args.init_model, "device": args.device,
               "minutes_budget": args.minutes, "stopped_by_budget": bool(budget is not None and budget.spent_out),
               "kept_curve_point": kept,
               "compile_seconds": round(compile_s, 1), "warm_start_seconds": round(warm_s, 1),
               "ppo_seconds": round(ppo_s, 1), "ppo_decisions_per_second": round(model.num_timesteps / ppo_s),
               "evaluation_seconds_during_training": round(curve.seconds, 1), "total_seconds": round(total_s, 1),
               "evaluation": evaluation, "eval_play": args.eval_play, "learning_curve_points": curve.points,
               "league_opponents": league.history if args.opponent == SELF_PLAY else None,
               "model": str(model_path), "learning_curve": str(curve_path)}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    print_win_rates(evaluation, deterministic=args.eval_play == "greedy")
    print(f"PPO: {model.num_timesteps:,} decisions in {ppo_s:.0f} s ({summary['ppo_decisions_per_second']:,} "
          f"decisions/s); warm start {warm_s:.0f} s, compile {compile_s:.0f} s, total {total_s:.0f} s")
    print(f"model:          {model_path}")
    print(f"learning curve: {curve_path}")
    print(f"summary:        {run_dir / 'summary.json'}")
    return summary


def new_run_dir(out: Path, name: str) -> Path:
    """A folder of its own for this run: runs started in the same second (seeds side by side) get
    ``name-2``, ``name-3``, ..., never each other's model and best curve point."""
    out.mkdir(parents=True, exist_ok=True)
    for k in range(1, 10_000):
        run_dir = out / (name if k == 1 else f"{name}-{k}")
        try:
            run_dir.mkdir()
            return run_dir
        except FileExistsError:
            continue
    raise RuntimeError(f"no free run folder named {name} under {out}")


def fixed_opponent(args) -> str:
    """The opponent of the warm start and of the final evaluation: ``--opponent``, or with
    self-play (whose opponents change rollout by rollout) the game's scripted bot."""
    return "scripted" if args.opponent == SELF_PLAY else args.opponent


def evaluated_opponents(args) -> list[str]:
    """The final evaluation's opponents besides random: the fixed opponent, or each policy of a
    mixture (``--opponent random,scripted``) on its own."""
    from ..wrappers.opponents import is_mixture, mixture_names
    opponent = fixed_opponent(args)
    return mixture_names(opponent) if is_mixture(opponent) else [opponent]


def make_model(env, args, options):
    """wargym's default MaskablePPO: the game's structured network, large rollouts and
    batches (Python's cost per step is paid once for ``n_envs`` decisions), few epochs."""
    from sb3_contrib import MaskablePPO

    from .networks import has_action_table, policy_class, policy_kwargs
    pointer = {"auto": None, "pointer": True, "structured": False}[args.network]
    if pointer and not has_action_table(args.game, options, gathered=True):
        raise SystemExit(f"wargym-train: --network pointer needs an action table in the observation ({args.game} with "
                         f"options {options} has none)")
    return MaskablePPO(policy_class(args.game, options, pointer), env, n_steps=args.n_steps,
                       batch_size=args.batch_size, n_epochs=args.epochs, learning_rate=args.learning_rate,
                       gamma=0.995, gae_lambda=0.95, ent_coef=0.005, seed=args.seed, verbose=0, device=args.device,
                       policy_kwargs=policy_kwargs(args.game, options, pointer=pointer))


def warm_start(model, args, options, bars) -> tuple[float, float]:
    """Behaviour cloning of the ``--warm-start`` bot, then ``--warm-start-rounds`` rounds of
    DAgger (``training/imitation.py`` says why); returns (agreement, seconds)."""
    from ..wrappers.sb3 import WargymVecEnv
    from .imitation import clone, collect, collected, label_arrays
    t0 = time.perf_counter()
    agreement = 0.0
    data = per_round = None
    visits = args.warm_start_targets == "visits"
    for round_ in range(args.warm_start_rounds + 1):
        env = WargymVecEnv(args.game, n_envs=args.n_envs, opponent=fixed_opponent(args), options=options,
                           seed=args.seed + 7 + round_)
        if data is None:   # every round's labels in one allocation, filled in place
            per_round = collected(env, args.warm_start_decisions)
            data = label_arrays(env, per_round * (args.warm_start_rounds + 1), soft=visits)
        who = args.warm_start if round_ == 0 else f"the student (DAgger round {round_})"
        bar = bars(args.warm_start_decisions, f"warm start: {who} playing", "decision")
        filled = per_round * (round_ + 1)
        # expert iteration searches with the student's prior once it has one (a round fitted, or weights given)
        prior = model if visits and (round_ or args.init_model is not None) else None
        collect(env, args.warm_start, args.warm_start_decisions, gamma=model.gamma, progress=bar.update,
                student=model if round_ else None, into=tuple(a[filled - per_round:filled] for a in data),
                targets=args.warm_start_targets, prior_model=prior)
        bar.close()
        X, M, A, G, *T = (a[:filled] for a in data)
        # each round fits as many labels as its new ones take (or every label so far: 'all')
        samples = (filled if args.warm_start_fit == "all" else per_round) * args.warm_start_epochs
        bar = bars(samples, "warm start: cloning", "sample")
        agreement = clone(model, X, M, A, G, samples=samples, seed=args.seed + round_,
                          progress=bar.update, T=T[0] if T else None)
        bar.close()
    return agreement, time.perf_counter() - t0


def cli(argv=None) -> int:
    """Console entry point: exit status 0 on success."""
    main(argv)
    return 0


if __name__ == "__main__":
    sys.exit(cli())
