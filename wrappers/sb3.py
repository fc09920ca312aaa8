"""Stable-Baselines3 / Gymnasium adapters over the batched core.

``WargymVecEnv`` is an SB3 ``VecEnv`` whose n_envs games live in one batched
core.  The learner plays one seat (moving to the next seat whenever its game
restarts, by default) and opponents play the others; ``action_masks()`` returns
the whole ``(n_envs, n_actions)`` mask from the buffer the kernels write, so
``MaskablePPO`` works with any n_envs without per-env calls.

``WargymSingleAgentEnv`` is a plain ``gymnasium.Env`` (one game) for anything
that wants the Gymnasium API; it passes SB3's ``check_env``.

Both sit on ``LearnerLoop``, which steps the learner's action and then every
opponent move until the learner must decide again: built-in opponents inside
one compiled call (``envs/core/loops.py``), frozen models batched per seat.
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from .. import registration
from ..envs.core.actions import as_action
from ..envs.core.aec import ILLEGAL_REWARD, WargymAEC, checked_illegal_action
from ..envs.core.contract import renderer
from ..envs.core.loops import ACC_REWARD, ACC_TERMINATED, ACC_TRUNCATED, NO_ACTION
from ..envs.core.pickling import RebuiltOnUnpickle
from ..envs.core.vec import VecGame
from .opponents import Opponent, is_mixture, mixture_ids, mixture_names


def load_game(game):
    """A game key (``"talon"``) as its game module (``registration.load_game``); a module as itself."""
    return registration.load_game(game) if isinstance(game, str) else game


class LearnerLoop:
    """The learner in one seat of every game, opponents in the others.

    ``opponent``: one opponent spec for every other seat, or a list with one per
    seat (the learner's own entry is ignored; see ``opponents.Opponent``), or a
    mixture of built-in policies, ``"random,scripted"`` (one per game: ``opponents.mixture_ids``).
    ``seat``: ``"rotate"`` (alias ``"alternate"``: game ``b`` starts with the learner
    in seat ``b % players`` and moves it one seat on at every restart) or a fixed seat.
    """

    def __init__(self, game, num_envs, opponent, seat, options, seed):
        self.game = load_game(game)
        self.core = VecGame(self.game, num_envs, options, auto_reset=True)
        P = self.num_players = self.core.num_players
        if seat not in ("alternate", "rotate") and not (isinstance(seat, (int, np.integer)) and 0 <= seat < P):
            raise ValueError(f"seat must be 'rotate', 'alternate' or a seat 0..{P - 1}, got {seat!r}")
        self.rotate = seat in ("alternate", "rotate")
        self.seats = (np.arange(num_envs) % P if self.rotate else np.full(num_envs, seat)).astype(np.int8)
        self._search_seed = 0 if seed is None else int(seed)
        self.set_opponent(opponent)
        self.acc = np.zeros((num_envs, 3), dtype=np.float32)
        self._seed = seed
        self._none = np.full(num_envs, NO_ACTION, dtype=np.int64)

    def set_opponent(self, opponent):
        P = self.num_players
        self._searchers: dict = {}   # search bots by spec, made on first use (_searcher)
        if is_mixture(opponent):
            # one built-in policy per game (opponents.mixture_ids), in every seat of that game
            ids = mixture_ids(opponent, self.game, self.core.num_envs, P)
            self.opponents = [Opponent(mixture_names(opponent)[0], self.game)] * P
            self.builtin = True
            self.opponent_ids = np.array(np.repeat(ids[:, None], P, axis=1), dtype=np.int64, order="C")
            return
        specs = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent] * P
        if len(specs) != P:
            raise ValueError(f"give one opponent for every seat ({P}), got {len(specs)}")
        if self.rotate and any(s is None for s in specs):
            raise ValueError("with seat='rotate' the learner visits every seat: give an opponent for each")
        # None: the learner's own seat (fixed seat only)
        self.opponents = [None if s is None else Opponent(s, self.game) for s in specs]
        self.builtin = all(o is None or o.builtin is not None for o in self.opponents)
        ids = [-1 if o is None or o.builtin is None else o.builtin for o in self.opponents]
        # a writable C-ordered copy: with one game broadcast_to's read-only view would pass as
        # contiguous, and a read-only array or another layout is another signature of the compiled
        # loops (compiled a second time)
        self.opponent_ids = np.array(np.broadcast_to(np.array(ids, np.int64), (self.core.num_envs, P)), order="C")

    def reset(self):
        """New games: from the seed given last (``_seed``) once, then continuing its stream."""
        self.core.reset(self._seed)
        self._seed = None  # the next reset continues the stream (envs/core/seeding.py)
        self.advance(self._none)

    def advance(self, actions):
        """Apply learner actions (NO_ACTION = none) and let the opponents play until the learner decides."""
        if self.builtin:
            states, cfgs, outs = self.core.kernel_args()
            self.game.bot.play_turns(states, cfgs, actions, self.seats, self.opponent_ids, outs, self.acc, True,
                                     self.rotate)
            if self.core.illegal.any():
                b = int(np.flatnonzero(self.core.illegal)[0])
                raise ValueError(f"env {b}: {self.core.describe_illegal(int(actions[b]), int(self.core.illegal[b]))}")
            return
        self._advance_python(actions)

    def seat_of_finished(self, b) -> int:
        """The learner's seat in the game of ``b`` that just ended (it has moved on since)."""
        return int(self.seats[b] - 1) % self.num_players if self.rotate else int(self.seats[b])

    def _advance_python(self, actions):
        core, acc, seats = self.core, self.acc, self.seats
        acc[:] = 0
        ended = np.zeros(core.num_envs, dtype=bool)

        def record(active):
            rows = np.flatnonzero(active & ~ended)
            acc[rows, ACC_REWARD] += core.rewards[rows, seats[rows]]
            fin = rows[core.terminated[rows] | core.truncated[rows]]
            acc[fin, ACC_TERMINATED] = core.terminated[fin]
            acc[fin, ACC_TRUNCATED] = core.truncated[fin]
            ended[fin] = True
            if self.rotate:
                seats[fin] = (seats[fin] + 1) % self.num_players

        learner = actions >= 0
        if learner.any():
            core.step(np.where(learner, actions, 0), active=learner)
            record(learner)
        for _ in range(1_000_000):
            waiting = core.current_player != seats
            if not waiting.any():
                return
            moves = np.zeros(core.num_envs, dtype=np.int64)
            for p, opp in enumerate(self.opponents):
                idx = np.flatnonzero(waiting & (core.current_player == p))
                if len(idx) and opp is not None:
                    moves[idx] = self._opponent_moves(opp, idx)
            core.step(moves, active=waiting)
            record(waiting)
        raise RuntimeError("the opponents did not hand the decision back to the learner")

    def _opponent_moves(self, opp, idx):
        if opp.builtin is not None:
            return self.game.bot.policy_actions(self.core, opp.builtin)[idx]
        if opp.search is not None:
            return self._searcher(opp).choose(self.core, idx)
        return opp.policy(self.core.obs[idx], self.core.mask[idx])

    def _searcher(self, opp):
        """The search bot of opponent ``opp``, made on first use with this core's options (its own
        dice: seeded from the env's seed, so a seeded run searches the same way)."""
        if opp.search not in self._searchers:
            from ..envs.core.search import searcher_for
            self._searchers[opp.search] = searcher_for(opp.search, self.game, self.core.options, self._search_seed)
        return self._searchers[opp.search]


class WargymVecEnv(VecEnv):
    """SB3 VecEnv: ``n_envs`` games in one batched core, the learner against ``opponent``.

    Rewards are the learner's (see the game's ``reward`` option).  At the end of
    an episode ``infos[i]`` holds ``terminal_observation``, the final scores
    (``[own, other]``), and ``is_success`` (the learner won); the game restarts at once.
    """

    def __init__(self, game="planetoids", n_envs: int = 8, opponent="random", seat="rotate",
                 options: dict | None = None, seed: int | None = None):
        self.loop = LearnerLoop(game, n_envs, opponent, seat, options, seed)
        core = self.loop.core
        self.game_name = game if isinstance(game, str) else getattr(game, "NAME", str(game))
        self.options = core.options
        # Flat int8 vector (a 3-D int8 box would be mistaken for an image by SB3);
        # ``board_shape`` gives the observation's own shape back, and
        # training.networks reads its parts through game.split_obs.
        self.board_shape = core.obs_shape
        self.render_mode = None  # VecEnv.__init__ asks the sub-envs for it
        obs_space = spaces.Box(low=-128, high=127, shape=(int(np.prod(core.obs_shape)),), dtype=np.int8)
        super().__init__(n_envs, obs_space, spaces.Discrete(core.num_actions))
        self._actions = np.zeros(n_envs, dtype=np.int64)
        self._flat_obs = core.obs.reshape(n_envs, -1)

    # -- VecEnv API -----------------------------------------------------------
    def reset(self):
        self.loop.reset()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._flat_obs.copy()

    def step_async(self, actions):
        self._actions[:] = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        loop = self.loop
        loop.advance(self._actions)
        acc = loop.acc
        dones = (acc[:, ACC_TERMINATED] > 0) | (acc[:, ACC_TRUNCATED] > 0)
        infos = [{} for _ in range(self.num_envs)]
        for b in np.flatnonzero(dones):
            infos[b] = self._final_info(b)
        # a copy: SB3 keeps the observation until the next step rewrites the buffer
        return self._flat_obs.copy(), acc[:, ACC_REWARD].copy(), dones, infos

    def _final_info(self, b) -> dict:
        loop, acc = self.loop, self.loop.acc
        final = loop.core.final_obs[b, loop.seat_of_finished(b)]
        scores = loop.game.scores_from_obs(loop.core.cfg, final)
        return {"terminal_observation": final.reshape(-1).copy(),
                "TimeLimit.truncated": bool(acc[b, ACC_TRUNCATED] > 0 and acc[b, ACC_TERMINATED] == 0),
                "scores": scores, "is_success": scores[0] > scores[1]}

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
            return masks if indices is None else [masks[i] for i in idx]
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
        self.loop.set_opponent(opponent)


class LegalDiscrete(spaces.Discrete):
    """``Discrete`` whose ``sample()`` without a mask draws a *legal* action.

    Tools that probe an env with ``action_space.sample()`` (SB3's ``check_env``,
    random baselines) then exercise the game instead of tripping on illegal moves.
    Pickled or deep-copied it is a plain ``Discrete`` (the hook stays with its env):
    worker pools send spaces between processes, and the env cannot go with them.
    """

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_mask_fn"] = None
        return state

    def __init__(self, n, mask_fn, seed=None):
        super().__init__(n, seed=seed)
        self._mask_fn = mask_fn

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self._mask_fn is not None:
            mask = self._mask_fn().astype(np.int8)
            if not mask.any():
                mask = None
        return super().sample(mask=mask, probability=probability)


class WargymSingleAgentEnv(RebuiltOnUnpickle, gym.Env):
    """Gymnasium env: one game, the learner against ``opponent``.

    ``action_masks()`` gives the legal actions (MaskablePPO, ``ActionMasker``);
    an illegal action raises ``ValueError`` and changes nothing, or with
    ``illegal_action="lose"`` ends the episode with reward -1, a warning and
    ``info["illegal_action"]`` (the action; PettingZoo classic's contract; Gymnasium's
    ``check_env`` steps with actions sampled before a reset).  ``reset(seed=s)``
    then ``reset()`` continues one seeded stream; the env pickles as its
    arguments plus its game (``envs/core/pickling.py``).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": WargymAEC.metadata["render_fps"]}

    def __init__(self, game="planetoids", opponent="random", seat="rotate", options: dict | None = None,
                 render_mode: str | None = None, illegal_action: str = "raise"):
        self.illegal_action = checked_illegal_action(illegal_action)
        self.loop = LearnerLoop(game, 1, opponent, seat, options, None)
        self._remember_arguments(game=game, opponent=opponent, seat=seat, options=self.loop.core.options,
                                 render_mode=render_mode, illegal_action=illegal_action)
        core = self.loop.core
        self.board_shape = core.obs_shape
        self.observation_space = spaces.Box(low=-128, high=127, shape=(int(np.prod(core.obs_shape)),), dtype=np.int8)
        self.action_space = LegalDiscrete(core.num_actions, self.action_masks)
        self.render_mode = render_mode
        self._action = np.zeros(1, dtype=np.int64)
        self._lost_by_illegal_action = False

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.loop._seed = seed  # None: the core continues the stream of the last seed (envs/core/seeding.py)
        self.loop.reset()
        self._lost_by_illegal_action = False
        return self.loop.core.obs[0].reshape(-1).copy(), {}

    def step(self, action):
        core = self.loop.core
        if self._lost_by_illegal_action:
            raise ValueError("the episode ended with an illegal action (illegal_action='lose'): call reset()")
        action = as_action(action, "WargymSingleAgentEnv.step", core.num_actions)  # one integer, or TypeError
        if not (0 <= action < core.num_actions) or not core.mask[0, action]:
            why = core.why_illegal(0, action)
            if self.illegal_action == "raise":
                raise ValueError(why)
            gym.logger.warn(f"illegal action ends the episode (illegal_action='lose'): {why}")
            self._lost_by_illegal_action = True
            return core.obs[0].reshape(-1).copy(), ILLEGAL_REWARD, True, False, {"illegal_action": action}
        self._action[0] = action
        self.loop.advance(self._action)
        acc = self.loop.acc[0]
        terminated = bool(acc[ACC_TERMINATED] > 0)
        truncated = bool(acc[ACC_TRUNCATED] > 0 and acc[ACC_TERMINATED] == 0)
        info = {}
        obs = core.obs[0]
        if terminated or truncated:
            obs = core.final_obs[0, self.loop.seat_of_finished(0)]
            info["scores"] = self.loop.game.scores_from_obs(core.cfg, obs)
            info["is_success"] = info["scores"][0] > info["scores"][1]
        return obs.reshape(-1).copy(), float(acc[ACC_REWARD]), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.loop.core.mask[0].astype(bool)

    def render(self):
        if self.render_mode is None:
            return None
        return renderer(self.loop.game)(self.loop.core, 0, self.render_mode, int(self.loop.seats[0]))

    # -- pickling (envs/core/pickling.py) --------------------------------------------
    def _dynamic_state(self) -> dict:
        loop = self.loop
        return {"core": loop.core, "seats": loop.seats, "acc": loop.acc, "np_random": self._np_random,
                "np_random_seed": self._np_random_seed, "action_rng": self.action_space._np_random,
                "lost_by_illegal_action": self._lost_by_illegal_action}

    def _restore_state(self, saved: dict) -> None:
        loop = self.loop
        loop.core, loop.seats, loop.acc = saved["core"], saved["seats"], saved["acc"]
        self._np_random, self._np_random_seed = saved["np_random"], saved["np_random_seed"]
        self.action_space._np_random = saved["action_rng"]
        self._lost_by_illegal_action = saved["lost_by_illegal_action"]
