"""RLlib environments over wargym's batched core.

Both hand out observations as PettingZoo does, a dict of the flat int8
observation and the legal-action mask::

    {"observation": int8[obs_size], "action_mask": int8[num_actions]}

(the key is PettingZoo's ``observation``; RLlib's example masking module wants
``observations``, see ``module.py`` for the one this package ships).

``WargymVectorEnv``: a ``gymnasium.vector.VectorEnv`` whose ``num_envs`` games
live in one batched core, the learner in one seat of each and an opponent in the
others (a built-in bot inside the compiled core, or a frozen policy batched per
seat: ``wrappers.sb3.LearnerLoop``).  RLlib's single-agent env runner builds it
through ``gym_env_vectorize_mode="vector_entry_point"``, so a runner steps all
its games in one kernel call instead of one Python env each.

``WargymMultiAgentEnv``: one game as a turn-based ``MultiAgentEnv`` for true
self-play: only the agent to act receives an observation; every seat's reward
is reported at every step (RLlib adds rewards of agents that are not acting to
their next transition); at the end every seat receives its final observation.

An illegal action raises ``ValueError`` before anything changes; RLlib's runner
then fails (no ``restart_failed_sub_environments``), so a training run that
finishes has applied only legal actions.
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ..envs.core.actions import as_action
from ..envs.core.loops import ACC_REWARD, ACC_TERMINATED, ACC_TRUNCATED, NO_ACTION
from ..envs.core.vec import VecGame
from ..wrappers.sb3 import LearnerLoop, LegalDiscrete, load_game

OBS_KEY, MASK_KEY = "observation", "action_mask"


def observation_space(obs_size: int, num_actions: int) -> spaces.Dict:
    """One decision's observation: the flat int8 observation and the 0/1 legal-action mask."""
    return spaces.Dict({OBS_KEY: spaces.Box(-128, 127, (obs_size,), np.int8),
                        MASK_KEY: spaces.Box(0, 1, (num_actions,), np.int8)})


class WargymVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` games in one batched core, the learner against ``opponent`` (see module doc).

    Episodes restart Gymnasium's ``NEXT_STEP`` way (what RLlib's env runner expects): the
    step that ends a game returns its final observation (from the learner's seat, with an
    all-zero mask: nothing is left to decide) and ``terminated``/``truncated``; the next
    step ignores that game's action and returns the first observation of the next game.
    ``infos["scores"]`` / ``infos["is_success"]`` are set (with their ``_scores`` masks)
    where a game ended."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, game="planetoids", num_envs: int = 8, opponent="random", seat="rotate",
                 options: dict | None = None, seed: int | None = None):
        self.loop = LearnerLoop(game, num_envs, opponent, seat, options, seed)
        core = self.loop.core
        self.game_name = game if isinstance(game, str) else getattr(game, "NAME", str(game))
        self.num_envs = num_envs
        self.obs_size, self.num_actions = int(np.prod(core.obs_shape)), core.num_actions
        self.single_observation_space = observation_space(self.obs_size, self.num_actions)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self._flat_obs = core.obs.reshape(num_envs, -1)
        self._actions = np.full(num_envs, NO_ACTION, dtype=np.int64)
        self._restarting = np.zeros(num_envs, dtype=bool)  # ended last step: this step shows the new game
        self.decisions = 0  # learner actions applied (all legal: an illegal one raises)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.loop._seed = int(seed)
        self.loop.reset()
        self._restarting[:] = False
        return self._observations(), {}

    def step(self, actions):
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        core = self.loop.core
        acting = ~self._restarting
        rows = np.flatnonzero(acting)
        a = actions[rows]
        legal = (a >= 0) & (a < self.num_actions)
        legal[legal] = core.mask[rows[legal], a[legal]] != 0
        if not legal.all():
            b = int(rows[np.flatnonzero(~legal)[0]])
            raise ValueError(f"game {b}: {core.why_illegal(b, int(actions[b])) or 'illegal action'}")
        self._actions[:] = NO_ACTION
        self._actions[rows] = a
        self.loop.advance(self._actions)
        self.decisions += len(rows)
        acc = self.loop.acc
        rewards = np.where(acting, acc[:, ACC_REWARD], 0.0).astype(np.float32)
        terminated = acting & (acc[:, ACC_TERMINATED] > 0)
        truncated = acting & (acc[:, ACC_TRUNCATED] > 0) & ~terminated
        ended = terminated | truncated
        obs = self._observations()
        infos = {}
        if ended.any():
            scores = np.zeros((self.num_envs, 2), dtype=np.int64)
            for b in np.flatnonzero(ended):
                final = core.final_obs[b, self.loop.seat_of_finished(b)]
                obs[OBS_KEY][b] = final.reshape(-1)
                obs[MASK_KEY][b] = 0
                scores[b] = self.loop.game.scores_from_obs(core.cfg, final)[:2]
            infos = {"scores": scores, "_scores": ended.copy(),
                     "is_success": scores[:, 0] > scores[:, 1], "_is_success": ended.copy()}
        self._restarting = ended
        return obs, rewards, terminated, truncated, infos

    def _observations(self) -> dict:
        return {OBS_KEY: self._flat_obs.copy(), MASK_KEY: self.loop.core.mask.copy()}

    def set_opponent(self, opponent) -> None:
        """Swap the opponent between rollouts (the league does)."""
        self.loop.set_opponent(opponent)

    def close(self, **kwargs):
        pass


class WargymMultiAgentEnv(MultiAgentEnv):
    """One game, every seat an agent (``player_0`` ..), turn-based (see module doc)."""

    def __init__(self, game="planetoids", options: dict | None = None, seed: int | None = None):
        super().__init__()
        self.game = load_game(game)
        self.core = VecGame(self.game, 1, options)
        P = self.core.num_players
        self.possible_agents = [f"player_{p}" for p in range(P)]
        self.agents = list(self.possible_agents)
        self.obs_size, self.num_actions = int(np.prod(self.core.obs_shape)), self.core.num_actions
        space = observation_space(self.obs_size, self.num_actions)
        # sample() without a mask draws a legal move of the agent to act (RLlib's env check samples)
        legal = LegalDiscrete(self.num_actions, lambda: self.core.mask[0])  # pickles as a Discrete
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: legal for a in self.possible_agents}
        self._seed = seed
        self._over = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._seed = int(seed)
        elif self._seed is not None:
            self._seed += 1  # a new game each reset, still reproducible from the first seed
        self.core.reset(self._seed)
        self._over = False
        self.agents = list(self.possible_agents)
        return self._to_act(), {}

    def step(self, action_dict):
        if self._over:
            raise ValueError("the game is over: call reset()")
        agent = self.possible_agents[int(self.core.current_player[0])]
        if set(action_dict) != {agent}:
            raise ValueError(f"it is {agent}'s decision alone; got actions for {sorted(action_dict)}")
        action = as_action(action_dict[agent], "WargymMultiAgentEnv.step", self.num_actions)
        why = self.core.why_illegal(0, action)
        if why is not None:
            raise ValueError(why)
        self.core.step_one(0, action)
        rewards = {a: float(self.core.rewards[0, p]) for p, a in enumerate(self.possible_agents)}
        terminated, truncated = bool(self.core.terminated[0]), bool(self.core.truncated[0])
        if terminated or truncated:
            self._over = True
            obs = {}
            for p, a in enumerate(self.possible_agents):
                o, _mask = self.core.observe(0, p)
                obs[a] = {OBS_KEY: o.reshape(-1), MASK_KEY: np.zeros(self.num_actions, np.int8)}
            done = {a: terminated for a in self.possible_agents}
            cut = {a: truncated and not terminated for a in self.possible_agents}
            done["__all__"], cut["__all__"] = terminated, truncated and not terminated
            return obs, rewards, done, cut, {}
        none = {a: False for a in self.possible_agents}
        return self._to_act(), rewards, {**none, "__all__": False}, {**none, "__all__": False}, {}

    def _to_act(self) -> dict:
        agent = self.possible_agents[int(self.core.current_player[0])]
        return {agent: {OBS_KEY: self.core.obs[0].reshape(-1).copy(), MASK_KEY: self.core.mask[0].copy()}}


# -- creators for RLlib's env registry (env_config -> env) -----------------------------------

VECTOR_ENV = "wargym-vs-opponent"
MULTI_AGENT_ENV = "wargym-multi-agent"


def make_vector_env(env_config) -> WargymVectorEnv:
    """RLlib passes ``env_config`` plus ``num_envs`` (vectorize mode ``vector_entry_point``);
    each env runner gets its own seed (``worker_index``) so runners play different games."""
    cfg = dict(env_config)
    seed = cfg.get("seed")
    if seed is not None:
        seed = int(seed) + 1_000_003 * int(getattr(env_config, "worker_index", 0))
    return WargymVectorEnv(cfg["game"], num_envs=int(cfg.get("num_envs", 1)), opponent=cfg.get("opponent", "random"),
                           seat=cfg.get("seat", "rotate"), options=cfg.get("options"), seed=seed)


def make_multi_agent_env(env_config) -> WargymMultiAgentEnv:
    cfg = dict(env_config)
    seed = cfg.get("seed")
    if seed is not None:
        seed = int(seed) + 1_000_003 * int(getattr(env_config, "worker_index", 0)) \
            + 1009 * int(getattr(env_config, "vector_index", 0))
    return WargymMultiAgentEnv(cfg["game"], options=cfg.get("options"), seed=seed)


def register_envs() -> None:
    from ray.tune.registry import register_env
    register_env(VECTOR_ENV, make_vector_env)
    register_env(MULTI_AGENT_ENV, make_multi_agent_env)
