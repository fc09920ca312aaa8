"""Play shared by every game's tests: random legal play in the batched core."""
from __future__ import annotations

import numpy as np

from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame

# each game's options for a short whole game (a few turns or rounds), where a test needs games to end
# quickly and not the rules of the long game: the arena's and the checkpoints' smoke tests
SHORT_GAME = {"planetoids": {"turns": 3}, "talon": {"rounds": 1}, "battle_force": {"end_turns": 2},
              "union_wars": {"turns": 2}}


def random_trajectory(game, batch, seed, steps, game_index=0, options=None):
    """What game ``game_index`` shows at each step while ``batch`` games play random legal moves
    (the thread-pool kernels when batch > 1): the action, the player to move, hashes of the
    observation and the mask, the rewards and whether it ended.  Equal lists: the same play."""
    core = VecGame(game, batch, options, auto_reset=True, parallel=batch > 1)
    core.reset(seed=seed)
    streams = new_streams(batch, seed)
    actions = np.zeros(batch, dtype=np.int64)
    out = []
    for _ in range(steps):
        sample_legal(core.mask, streams, actions)
        core.step(actions)
        out.append((int(actions[game_index]), int(core.current_player[game_index]),
                    hash(core.obs[game_index].tobytes()), hash(core.mask[game_index].tobytes()),
                    tuple(core.rewards[game_index].tolist()), bool(core.terminated[game_index])))
    return out
