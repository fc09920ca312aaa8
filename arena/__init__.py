"""Arena: round robins between a game's policies (random, the built-in bots, trained
checkpoints) on the batched core, with Wilson intervals, Elo and openskill ratings.

``python -m wargym.arena planetoids --policy random --policy scripted --policy ppo=runs/x/model.zip``
(or ``wargym-arena``); from Python, :func:`run_arena`.
"""
from __future__ import annotations

from .matches import Tournament, play_tournament, schedule
from .policies import builtin_names, load_game, resolve_policies
from .report import markdown, summarise, write_outputs
from .stats import elo_difference, fit_elo, rate_multiplayer, wilson_interval

__all__ = ["run_arena", "Tournament", "play_tournament", "schedule", "summarise", "markdown", "write_outputs",
           "wilson_interval", "fit_elo", "elo_difference", "rate_multiplayer", "builtin_names"]


MODEL_PLAY = ("sampled", "greedy")


def run_arena(game: str, policies: list[str] | None = None, options: dict | None = None, games: int = 100,
              seed: int = 0, out_dir=None, model_play: str = "sampled") -> tuple[Tournament, dict]:
    """Play a round robin and summarise it.  ``policies``: built-in names and ``NAME=PATH.zip``
    checkpoints (default: every built-in policy of the game); ``games``: games per lineup;
    ``model_play``: the checkpoints' actions sampled from their policy (as trained) or ``greedy``,
    each its most likely action (as ``wargym serve`` plays them)."""
    if model_play not in MODEL_PLAY:
        raise ValueError(f"model_play {model_play!r}: choose from {', '.join(MODEL_PLAY)}")
    game_module = load_game(game)
    entrants = resolve_policies(policies, game_module)
    for entrant in entrants:
        entrant.greedy = model_play == "greedy"
    tournament = play_tournament(game, game_module, entrants, options, games, seed)
    summary = summarise(tournament)
    if out_dir is not None:
        write_outputs(tournament, summary, out_dir)
    return tournament, summary
