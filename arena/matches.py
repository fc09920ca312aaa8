"""Round-robin schedule and the games themselves, on the batched core.

Every game of the tournament is a *lineup* (the policy index in each seat) and a *result* per
seat (higher is better).  Built-in against built-in runs as one batch inside the game's
compiled ``bot.play_games``; games with a trained model (in any seat, any number of players)
run on the same core with each seat's policy chosen per decision: the models' actions batched
through ``predict``, the built-in policies' through the compiled ``bot.policy_actions``.

Results come from the game's own end-of-game reward, which the arena switches on whatever
reward a policy was trained with (the reward changes nothing in the play): Planetoids and
Talon ``reward="win"`` (+1 / 0 / -1), Battle Force ``reward="rank"`` (+1 first .. -1 last,
tied players share).  A game cut short by ``max_decisions`` ends without that reward: a draw.
(The adapters' ``infos["scores"]`` are read from the observation, where Talon shows ship points
in units of 8 and Battle Force's scores do not see a tie-break, so they are not used.)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations_with_replacement

import numpy as np

from .policies import Policy, load_checkpoint

RESULT_REWARD = {"planetoids": "win", "talon": "win", "battle_force": "rank", "union_wars": "win"}


@dataclass
class Tournament:
    """Everything played: ``lineups[g, seat]`` (policy index), ``results[g, seat]``, ``rounds[g]``."""
    game: str
    policies: list[str]
    options: dict
    seed: int
    games_per_lineup: int
    lineups: np.ndarray
    results: np.ndarray
    rounds: np.ndarray
    sources: dict[str, str] = field(default_factory=dict)  # policy -> "built-in" or its checkpoint path

    @property
    def players(self) -> int:
        return self.lineups.shape[1]


def arena_options(game_name: str, options: dict | None) -> dict:
    """The options the games run with: the user's, with the reward that gives the final result."""
    options = dict(options or {})
    wanted = RESULT_REWARD[game_name]
    if options.get("reward", wanted) != wanted:
        raise ValueError(f"option reward={options['reward']!r}: the arena sets reward={wanted!r} itself (it reads "
                         "each game's result from it; the reward does not change how the policies play)")
    options["reward"] = wanted
    return options


def schedule(n_policies: int, players: int, games_per_lineup: int) -> tuple[np.ndarray, np.ndarray]:
    """The round robin: every multiset of ``players`` policies with at least two different ones
    (two players: every pair), ``games_per_lineup`` games each, seats rotated one place each
    game (two players: alternated), so with a multiple of ``players`` games every policy sits in
    every seat equally often.  Games are ordered round by round (each lineup's first game, then
    each one's second ...), the order the online multiplayer rating reads them in."""
    if games_per_lineup < 1:
        raise ValueError(f"games per pairing must be at least 1, got {games_per_lineup}")
    lineups = [c for c in combinations_with_replacement(range(n_policies), players) if len(set(c)) > 1]
    rows, rounds = [], []
    for r in range(games_per_lineup):
        shift = r % players
        for lineup in lineups:
            rows.append(lineup[-shift:] + lineup[:-shift] if shift else lineup)
            rounds.append(r)
    return np.array(rows, dtype=np.int64).reshape(-1, players), np.array(rounds, dtype=np.int64)


def play_tournament(game_name: str, game, policies: list[Policy], options: dict | None = None,
                    games_per_lineup: int = 100, seed: int = 0) -> Tournament:
    """Play the round robin between ``policies`` and return every game (loads the checkpoints)."""
    from ..envs.core.vec import VecGame
    options = arena_options(game_name, options)
    probe = VecGame(game, 1, options)  # validates the options, gives the player count and shapes
    _load_checkpoints(policies, probe)
    lineups, rounds = schedule(len(policies), probe.num_players, games_per_lineup)
    results = np.zeros(lineups.shape, dtype=np.float64)
    with_model = np.array([any(not policies[i].is_builtin for i in row) for row in lineups], dtype=bool)
    builtin_rows = np.flatnonzero(~with_model)
    if len(builtin_rows):
        ids = np.array([[policies[i].builtin for i in row] for row in lineups[builtin_rows]], dtype=np.int64)
        results[builtin_rows] = play_builtin(game, options, ids, seed)
    _play_model_games(game, policies, lineups, with_model, results, options, seed)
    sources = {p.name: p.source for p in policies}
    return Tournament(game_name, [p.name for p in policies], options, seed, games_per_lineup, lineups, results,
                      rounds, sources)


def _load_checkpoints(policies, probe):
    for policy in policies:
        if not policy.is_builtin and policy.search is None and policy.model is None:
            load_checkpoint(policy, int(np.prod(probe.obs_shape)), probe.num_actions)


def _play_model_games(game, policies, lineups, with_model, results, options, seed):
    """Fill ``results`` for the games with a model: one batch of games per distinct lineup."""
    groups: dict[tuple, list[int]] = {}
    for g in np.flatnonzero(with_model):
        groups.setdefault(tuple(int(i) for i in lineups[g]), []).append(int(g))
    for k, (lineup, rows) in enumerate(groups.items()):
        results[rows] = play_lineup(game, [policies[i] for i in lineup], len(rows), options, seed + 1 + k)


def play_builtin(game, options: dict, policy_ids: np.ndarray, seed: int) -> np.ndarray:
    """Whole games between built-in policies (``policy_ids[g, seat]``), all inside the compiled
    ``bot.play_games``; returns each seat's summed rewards (its result)."""
    from ..envs.core.vec import VecGame
    core = VecGame(game, len(policy_ids), options)
    core.reset(seed)
    results = np.zeros(policy_ids.shape, dtype=np.float64)
    states, cfgs, outs = core.kernel_args()
    game.bot.play_games(states, cfgs, np.ascontiguousarray(policy_ids), outs, results)
    return results


def play_lineup(game, seats: list[Policy], n_games: int, options: dict, seed: int) -> np.ndarray:
    """``n_games`` whole games with ``seats[i]`` playing seat ``i`` (built-in policies and loaded
    models mixed, any number of players); returns each seat's summed rewards (its result).

    Every decision goes to the policy of the seat to act: the models see the acting player's
    observation, as in training, and sample their actions (seeded through torch), or take their most
    likely action where ``Policy.greedy``; a search bot
    searches all its games' positions in one batch."""
    import torch

    from ..envs.core.search import searcher_for
    from ..envs.core.vec import VecGame
    torch.manual_seed(seed)  # the models sample with torch's generator: same seed, same games
    core = VecGame(game, n_games, options)
    core.reset(seed)
    states, cfgs, _ = core.kernel_args()
    results = np.zeros((n_games, core.num_players), dtype=np.float64)
    playing = np.ones(n_games, dtype=bool)
    actions = np.zeros(n_games, dtype=np.int64)
    builtin_actions = np.zeros(n_games, dtype=np.int64)
    searchers = {seat: searcher_for(policy.name, game, options, seed=seed + seat)
                 for seat, policy in enumerate(seats) if policy.search is not None}
    while playing.any():
        for seat, policy in enumerate(seats):
            rows = np.flatnonzero(playing & (core.current_player == seat))
            if not len(rows):
                continue
            if policy.is_builtin:
                game.bot.policy_actions(states, cfgs, core.mask, policy.builtin, builtin_actions)
                actions[rows] = builtin_actions[rows]
            elif seat in searchers:
                actions[rows] = searchers[seat].choose(core, rows)
            else:
                obs = core.obs[rows].reshape(len(rows), -1)
                actions[rows] = policy.model.predict(obs, action_masks=core.mask[rows].astype(bool),
                                                     deterministic=policy.greedy)[0]
        core.step(actions, active=playing)
        results[playing] += core.rewards[playing]
        playing &= ~(core.terminated | core.truncated)
    return results
