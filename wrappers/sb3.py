"""Stable-Baselines3 / Gymnasium adapters over the batched core.

``WargymVecEnv`` is an SB3 ``VecEnv`` whose n_envs games live in one batched
core.  The learner plays one seat (alternating between episodes by default)
and an opponent plays the other; ``action_masks()`` returns the whole
``(n_envs, n_actions)`` mask from the same buffer the kernels write, so
``MaskablePPO`` works with any n_envs without per-env calls.

``WargymSingleAgentEnv`` is a plain ``gymnasium.Env`` (one game) for anything
that wants the Gymnasium API; it passes SB3's ``check_env``.
"""
from __future__ import annotations

import importlib

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from ..envs.core.actions import as_action
from ..envs.core.vec import VecGame
from .opponents import Opponent

GAMES = {"planetoids": "wargym.envs.planetoids.game", "talon": "wargym.envs.talon.game",
         "battle_force": "wargym.envs.battle_force.game"}  # the adapters need its default players=2


def load_game(game):
    if isinstance(game, str):
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; known: {sorted(GAMES)}")
        return importlib.import_module(GAMES[game])
    return game


class _LearnerLoop:
    """Learner-versus-opponent stepping shared by both adapters."""

    def __init__(self, game, num_envs, opponent, seat, options, seed):
        if seat not in ("alternate", 0, 1):
            raise ValueError(f"seat must be 0, 1 or 'alternate', got {seat!r}")
        self.game = load_game(game)
        self.core = VecGame(self.game, num_envs, options, auto_reset=True)
        if self.core.num_players != 2:
            raise ValueError("the learner-versus-opponent adapters are for two-player games")
        self.opponent = Opponent(opponent, self.game)
        self.alternate = seat == "alternate"
        self.seats = np.zeros(num_envs, dtype=np.int8) if seat in ("alternate", 0) else np.ones(num_envs, np.int8)
        if self.alternate:
            self.seats[1::2] = 1  # half the games start with the learner in the second seat
        self.acc = np.zeros((num_envs, 3), dtype=np.float32)
        self._seed = seed
        self._none = np.full(num_envs, -1, dtype=np.int64)

    def reset(self):
        self.core.reset(self._seed)
        self._advance(self._none)

    def _advance(self, actions):
        """Apply learner actions (-1 = none) and let the opponent play until the learner decides."""
        core = self.core
        if self.opponent.builtin is not None:
            states, cfgs, outs = core.kernel_args()
            self.game.bot.play_turns(states, cfgs, actions, self.seats, self.opponent.builtin, outs, self.acc, True,
                                     self.alternate)
            if core.illegal.any():
                b = int(np.flatnonzero(core.illegal)[0])
                raise ValueError(f"env {b}: {core.describe_illegal(int(actions[b]), int(core.illegal[b]))}")
            return
        self._advance_python(actions)

    def _advance_python(self, actions):
        core, acc, seats = self.core, self.acc, self.seats
        acc[:] = 0
        ended = np.zeros(core.num_envs, dtype=bool)

        def record(active):
            rows = np.flatnonzero(active & ~ended)
            acc[rows, 0] += core.rewards[rows, seats[rows]]
            fin = rows[core.terminated[rows] | core.truncated[rows]]
            acc[fin, 1] = core.terminated[fin]
            acc[fin, 2] = core.truncated[fin]
            ended[fin] = True
            if self.alternate:
                seats[fin] = 1 - seats[fin]  # the new game starts with the learner in the other seat

        learner = actions >= 0
        if learner.any():
            core.step(np.where(learner, actions, 0), active=learner)
            record(learner)
        for _ in range(100_000):
            waiting = core.current_player != seats
            if not waiting.any():
                return
            idx = np.flatnonzero(waiting)
            opp = np.zeros(core.num_envs, dtype=np.int64)
            opp[idx] = self.opponent.policy(core.obs[idx], core.mask[idx])
            core.step(opp, active=waiting)
            record(waiting)
        raise RuntimeError("opponent did not hand the decision back to the learner")


class WargymVecEnv(VecEnv):
    """SB3 VecEnv: ``n_envs`` games in one batched core, learner against ``opponent``.

    Rewards are the learner's (see the game's ``reward`` option).  At the end of
    an episode ``infos[i]`` holds ``terminal_observation``, the final scores,
    ``winner`` and ``is_success`` (the learner won); the game restarts at once.
    """

    def __init__(self, game="planetoids", n_envs: int = 8, opponent="random", seat="alternate",
                 options: dict | None = None, seed: int | None = None):
        self.loop = _LearnerLoop(game, n_envs, opponent, seat, options, seed)
        core = self.loop.core
        # Flat int8 vector (SB3's MLP flattens anyway, and a 3-D int8 box would be
        # mistaken for an image); ``board_shape`` gives the planes' shape back.
        self.board_shape = core.obs_shape
        self.render_mode = None  # VecEnv.__init__ asks the sub-envs for it
        obs_space = spaces.Box(low=-128, high=127, shape=(int(np.prod(core.obs_shape)),), dtype=np.int8)
        super().__init__(n_envs, obs_space, spaces.Discrete(core.num_actions))
        self._actions = np.zeros(n_envs, dtype=np.int64)

    # -- VecEnv API -----------------------------------------------------------
    def reset(self):
        self.loop.reset()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._flat(self.loop.core.obs)

    def step_async(self, actions):
        self._actions[:] = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        loop = self.loop
        loop._advance(self._actions)
        core, acc = loop.core, loop.acc
        dones = (acc[:, 1] > 0) | (acc[:, 2] > 0)
        infos = [{} for _ in range(self.num_envs)]
        for b in np.flatnonzero(dones):
            seat = int(self._learner_seat_of_finished(b))
            info = infos[b]
            info["terminal_observation"] = core.final_obs[b, seat].reshape(-1).copy()
            info["TimeLimit.truncated"] = bool(acc[b, 2] > 0 and acc[b, 1] == 0)
            scores = self.loop.game.scores_from_obs(core.final_obs[b, seat])
            info["scores"] = scores
            info["is_success"] = scores[0] > scores[1]
        return self._flat(core.obs), acc[:, 0].copy(), dones, infos

    def _flat(self, obs):
        return obs.reshape(self.num_envs, -1).copy()

    def _learner_seat_of_finished(self, b):
        # With alternation the seat was flipped when the new game began.
        seat = self.loop.seats[b]
        return 1 - seat if self.loop.alternate else seat

    def action_masks(self) -> np.ndarray:
        return self.loop.core.mask.astype(bool)

    def close(self):
        pass

    def seed(self, seed=None):
        self.loop._seed = seed
        return [seed] * self.num_envs

    def get_attr(self, attr_name, indices=None):
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name, value, indices=None):
        setattr(self, attr_name, value)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        return [getattr(self, method_name)(*args, **kwargs)] * len(idx)

    def has_attr(self, attr_name):
        return hasattr(self, attr_name)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._indices(indices))

    def _indices(self, indices):
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def set_opponent(self, opponent):
        """Swap the opponent (e.g. a newer frozen copy of the learner) between rollouts."""
        self.loop.opponent = Opponent(opponent, self.loop.game)


class LegalDiscrete(spaces.Discrete):
    """``Discrete`` whose ``sample()`` without a mask draws a *legal* action.

    Tools that probe an env with ``action_space.sample()`` (SB3's ``check_env``,
    random baselines) then exercise the game instead of tripping on illegal moves.
    """

    def __init__(self, n, mask_fn, seed=None):
        super().__init__(n, seed=seed)
        self._mask_fn = mask_fn

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self._mask_fn is not None:
            mask = self._mask_fn().astype(np.int8)
            if not mask.any():
                mask = None
        return super().sample(mask=mask, probability=probability)


class WargymSingleAgentEnv(gym.Env):
    """Gymnasium env: one game, the learner against ``opponent``.

    ``action_masks()`` gives the legal actions (MaskablePPO, ``ActionMasker``);
    an illegal action raises ``ValueError`` and changes nothing.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"]}

    def __init__(self, game="planetoids", opponent="random", seat="alternate", options: dict | None = None,
                 render_mode: str | None = None):
        self.loop = _LearnerLoop(game, 1, opponent, seat, options, None)
        core = self.loop.core
        self.board_shape = core.obs_shape
        self.observation_space = spaces.Box(low=-128, high=127, shape=(int(np.prod(core.obs_shape)),), dtype=np.int8)
        self.action_space = LegalDiscrete(core.num_actions, self.action_masks)
        self.render_mode = render_mode
        self._action = np.zeros(1, dtype=np.int64)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.loop._seed = seed
        elif self.loop._seed is None:
            self.loop._seed = int(self.np_random.integers(2**62))
        else:
            self.loop._seed += 1  # a new game each reset, still reproducible from the first seed
        self.loop.reset()
        return self.loop.core.obs[0].reshape(-1).copy(), {}

    def step(self, action):
        core = self.loop.core
        action = as_action(action, "WargymSingleAgentEnv.step", core.num_actions)  # one integer, or TypeError
        if not (0 <= action < core.num_actions) or not core.mask[0, action]:
            raise ValueError(core.why_illegal(0, action))
        self._action[0] = action
        # Within one step the game must not restart: keep the terminal state visible.
        self.loop._advance(self._action)
        acc = self.loop.acc[0]
        terminated, truncated = bool(acc[1] > 0), bool(acc[2] > 0 and acc[1] == 0)
        info = {}
        obs = core.obs[0]
        if terminated or truncated:
            seat = 1 - self.loop.seats[0] if self.loop.alternate else self.loop.seats[0]
            obs = core.final_obs[0, seat]
            info["scores"] = self.loop.game.scores_from_obs(obs)
            info["is_success"] = info["scores"][0] > info["scores"][1]
        return obs.reshape(-1).copy(), float(acc[0]), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.loop.core.mask[0].astype(bool)

    def render(self):
        if self.render_mode is None:
            return None
        return self.loop.game.render(self.loop.core, 0, self.render_mode, int(self.loop.seats[0]))
