"""Win rates: a model (or a built-in policy) against an opponent, over many games."""
from __future__ import annotations

import numpy as np

from ..wrappers.sb3 import WargymVecEnv, load_game


def win_rate(model, game="planetoids", opponent="random", n_games: int = 100, seed: int = 12345,
             options: dict | None = None, deterministic: bool = False, progress=None) -> dict:
    """Play ``n_games`` with the learner's seat rotating over the games (half in each seat
    of a two-player game) and count the model's wins, draws and losses (a game cut short
    by ``max_decisions`` is a draw).

    ``model`` is anything with SB3's ``predict(obs, action_masks=...)``, or "random".
    ``progress``: a callable(finished games) for a progress bar.
    """
    from ..arena.matches import arena_options
    # the game's end-of-game reward gives the result (the reward option changes nothing in the play)
    options = arena_options(game, {k: v for k, v in (options or {}).items() if k != "reward"})
    env = WargymVecEnv(game, n_envs=n_games, opponent=opponent, seat="rotate", options=options, seed=seed)
    obs = env.reset()
    players = env.loop.core.num_players
    finished = np.zeros(n_games, dtype=bool)
    outcome = np.zeros(n_games, dtype=np.int8)
    policy = _policy(model, deterministic, seed)
    while not finished.all():
        actions = policy(obs, env.action_masks())
        obs, rewards, dones, _ = env.step(actions)
        new = np.flatnonzero(dones & ~finished)
        outcome[new] = place(rewards[new], players)
        finished[new] = True
        if progress is not None and len(new):
            progress(len(new))
    return _tally(outcome)


def place(final_rewards, players: int) -> np.ndarray:
    """+1 (won: sole first place), 0 (drew: first place shared) or -1 (lost) from the
    end-of-game reward that ``arena_options`` sets: +1 / 0 / -1 for two players; Battle
    Force's ``rank`` reward (+1 for first down to -1 for last, linear, ties sharing the mean)
    for more, where a shared first place pays more than a sole second place."""
    r = np.asarray(final_rewards, dtype=np.float64)
    sole_second = 1.0 - 2.0 / (players - 1)
    return np.where(r >= 1.0 - 1e-6, 1, np.where(r > sole_second + 1e-6, 0, -1)).astype(np.int8)


def _tally(outcome) -> dict:
    n = len(outcome)
    return {"games": n, "wins": int((outcome == 1).sum()), "draws": int((outcome == 0).sum()),
            "losses": int((outcome == -1).sum()), "win_rate": float((outcome == 1).mean()) if n else 0.0}


def _policy(model, deterministic, seed):
    if model == "random":
        rng = np.random.default_rng(seed)
        return lambda obs, masks: np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    if isinstance(model, str):
        raise ValueError("evaluate built-in policies other than 'random' with win_rate_builtin()")
    return lambda obs, masks: model.predict(obs, action_masks=masks, deterministic=deterministic)[0]


def win_rate_builtin(policy: str, game="planetoids", opponent: str = "random", n_games: int = 100, seed: int = 0,
                     options: dict | None = None) -> dict:
    """Built-in policy against built-in policy (two players), played entirely in compiled code."""
    from ..envs.core.vec import VecGame
    g = load_game(game)
    core = VecGame(g, n_games, options)
    core.reset(seed)
    seat = np.arange(n_games) % 2  # the evaluated policy sits in seat 0 for even games, seat 1 for odd
    policies = np.where(np.arange(2)[None, :] == seat[:, None], policy, opponent).tolist()
    g.bot.play(core, policies)
    scores = np.array([g.scores(core.state, b) for b in range(n_games)])
    own = scores[np.arange(n_games), seat]
    other = scores[np.arange(n_games), 1 - seat]
    return _tally(np.sign(own - other))


def print_win_rates(evaluation: dict, deterministic: bool = False) -> None:
    """The closing lines of a training run: each opponent's games as a win rate and its tally."""
    from pathlib import Path
    play = "most likely actions" if deterministic else "sampled actions"
    for opp, r in evaluation.items():
        print(f"win rate against {Path(opp).name} ({play}, both seats): {r['win_rate']:.1%} "
              f"({r['wins']} wins, {r['draws']} draws, {r['losses']} losses in {r['games']} games)")
