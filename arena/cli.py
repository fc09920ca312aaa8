"""Command line: ``python -m wargym.arena GAME [--policy SPEC ...] [--games N] [--out DIR]``."""
from __future__ import annotations

import argparse
import json
import sys
import time

from ..registration import GAME_KEYS as GAMES


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="wargym-arena",
        description="Round robin between policies of one game, seats alternated (rotated with 3-6 players), "
                    "on the batched core. Prints win/draw/loss per pairing and per seat with 95 %% Wilson "
                    "intervals and a rating per policy: Elo (maximum likelihood, random = 0) for two players, "
                    "openskill for Battle Force with 3-6 players.",
        epilog="example: wargym-arena planetoids --policy random --policy scripted "
               "--policy ppo=runs/x/model.zip --games 100 --out arena_out")
    p.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    p.add_argument("--policy", action="append", metavar="SPEC",
                   help="a built-in policy by name (random, scripted, ...), the search bot as search, "
                        "search:SIMULATIONS or search:MILLISECONDSms (a decision), the tree search as mcts with the same "
                        "budgets, or a MaskablePPO checkpoint as "
                        "NAME=PATH.zip; repeat for each entrant (default: every built-in policy)")
    p.add_argument("--games", type=int, default=100, metavar="N",
                   help="games per pairing (per lineup with 3-6 players); default 100")
    p.add_argument("--options", default="{}", metavar="JSON",
                   help='game options as a JSON object, e.g. \'{"turns": 10}\' (see the game\'s DEFAULT_OPTIONS)')
    p.add_argument("--players", type=int, metavar="N", help="Battle Force: players per game (2-6); "
                   "the same as the option players")
    p.add_argument("--seed", type=int, default=0, help="seed of the games' dice (default 0)")
    p.add_argument("--model-play", choices=("sampled", "greedy"), default="sampled",
                   help="checkpoints' actions: sampled from the policy, as trained (default), or greedy, the most "
                        "likely action, as wargym serve plays a model")
    p.add_argument("--out", metavar="DIR", help="write ratings.csv, pairings.csv, seats.csv, games.csv and arena.md")
    return p


def parse_options(args) -> dict:
    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as e:
        raise ValueError(f"--options is not valid JSON ({e.msg}): {args.options!r}") from None
    if not isinstance(options, dict):
        raise ValueError(f"--options must be a JSON object, got {args.options!r}")
    if args.players is not None:
        if args.game != "battle_force":
            raise ValueError(f"--players is a Battle Force option; {args.game} is a two-player game")
        options["players"] = args.players
    return options


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from . import run_arena  # after parsing: --help should not wait for the game kernels
    try:
        if args.game not in GAMES:
            raise ValueError(f"unknown game {args.game!r}; known: {', '.join(GAMES)}")
        start = time.perf_counter()
        tournament, summary = run_arena(args.game, args.policy, parse_options(args), args.games, args.seed,
                                        args.out, model_play=args.model_play)
    except (ValueError, TypeError, ImportError) as e:  # bad input or a missing extra: one line, no traceback
        parser.exit(2, f"{parser.prog}: error: {_one_line(e)}\n")
    from .report import markdown
    print(markdown(tournament, summary))
    print(f"{len(tournament.lineups)} games in {time.perf_counter() - start:.1f} s"
          + (f"; tables written to {args.out}" if args.out else ""))
    return 0


def _one_line(error) -> str:
    return " ".join(str(error).split())


if __name__ == "__main__":
    sys.exit(main())
