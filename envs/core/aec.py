"""PettingZoo AEC front end shared by every wargym game.

A thin layer over a ``VecGame`` of batch size 1: the core decides whose
decision comes next (any player, at any moment: a defender reacting in the
middle of the attacker's turn is just another ``agent_selection``), writes the
observation and mask, and reports rewards.  Observations follow PettingZoo's
classic convention: ``{"observation": int8 tensor, "action_mask": int8}``,
the mask being non-zero only for the agent about to act.

An illegal action raises ``ValueError`` naming the action and the rule that
forbids it, and leaves the game unchanged (it does not end the game as
PettingZoo's classic envs do: a bot bug should be loud, not a silent loss).
``illegal_action="lose"`` chooses PettingZoo classic's contract instead (what its
``TerminateIllegalWrapper`` does): the game ends for every agent, the mover gets
-1 and the others 0, the mover's info holds ``illegal_action`` (the action; -1 in
every info from reset on) and a warning says why it was illegal.  Tools that probe
an env with unmasked samples need it (Gymnasium's ``check_env``).
An action is one integer (``int``, numpy integer, 0-d integer array); a float,
string, bool, array or ``None`` for an agent to act raises ``TypeError`` and
changes nothing (``actions.py``).

``infos`` hold every game's result schema (``results.py``: ``winner``, per-seat
``scores``, ``rounds``, then the game's own keys) from ``reset`` on, neutral
until the game ends.  ``max_cycles`` (PettingZoo's name) is ``max_decisions``.
``reset(seed=s)`` then ``reset()`` continues one seeded stream (``seeding.py``),
and the env pickles and deep-copies (``pickling.py``).

A game cut off by ``max_decisions`` is over: its mask is empty, and it stays
over through ``clone_state``/``set_state`` and ``save``/``load``.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .actions import as_action
from .pickling import RebuiltOnUnpickle
from .vec import VecGame

# What step() does with an illegal action (see the module doc).
ILLEGAL_ACTIONS = ("raise", "lose")
ILLEGAL_REWARD = -1.0  # the mover's reward when an illegal action loses the game
NO_ILLEGAL_ACTION = -1  # infos' ``illegal_action`` until one is played (illegal_action="lose")


def checked_illegal_action(illegal_action: str) -> str:
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
    return illegal_action


def with_max_cycles(options: dict, max_cycles) -> dict:
    """``options`` with PettingZoo's ``max_cycles`` given as wargym's ``max_decisions``."""
    if max_cycles is None:
        return options
    if "max_decisions" in options and options["max_decisions"] != max_cycles:
        raise ValueError(f"max_cycles={max_cycles!r} and max_decisions={options['max_decisions']!r} "
                         "name the same limit: give one")
    return {**options, "max_decisions": max_cycles}


class WargymAEC(RebuiltOnUnpickle, AECEnv):
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False, "render_fps": 2}
    game = None      # the game definition module, set by subclasses
    renderer = None  # callable(core, b, mode, player) -> str | ndarray

    def __init__(self, render_mode: str | None = None, options: dict | None = None, illegal_action: str = "raise",
                 max_cycles: int | None = None, **option_kwargs):
        """Game options as ``options={...}`` or keywords; ``illegal_action``: ``"raise"`` or
        ``"lose"`` (module doc); ``max_cycles``: PettingZoo's name for ``max_decisions``."""
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.illegal_action = checked_illegal_action(illegal_action)
        self.core = VecGame(self.game, 1, with_max_cycles({**(options or {}), **option_kwargs}, max_cycles))
        self._remember_arguments(render_mode=render_mode, options=self.core.options, illegal_action=illegal_action)
        self.possible_agents = [f"player_{i}" for i in range(self.core.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=-128, high=127, shape=self.core.obs_shape, dtype=np.int8),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.core.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.core.num_actions) for a in self.possible_agents}
        # state() is the full observation from player 0's side
        self.state_space = spaces.Box(low=-128, high=127, shape=self.core.obs_shape, dtype=np.int8)
        self._window = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- episode -------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        """``options={"scenario": {...}}`` starts from a scenario dict instead of the default setup."""
        scenario = (options or {}).get("scenario")
        if scenario is not None:
            self.core.load_scenario(scenario, seed=seed)
        else:
            self.core.reset(seed)
        self._sync_after_reset()

    def _sync_after_reset(self):
        """Agent dicts from the core, after reset, set_state or load (a restored game may be over)."""
        core = self.core
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: bool(core.terminated[0]) for a in self.agents}
        self.truncations = {a: bool(core.truncated[0]) for a in self.agents}
        result = self.game.final_info(core, 0)  # the result so far (module doc)
        if self.illegal_action == "lose":
            result["illegal_action"] = NO_ILLEGAL_ACTION  # every key from reset on (TorchRL's specs)
        self.infos = {a: dict(result) for a in self.agents}
        self.agent_selection = self.agents[int(core.current_player[0])]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = as_action(action, agent, self.core.num_actions)  # before anything changes
        if not (0 <= action < self.core.num_actions) or not self.core.mask[0, action]:
            why = f"{agent}: {self.core.why_illegal(0, action)}"
            if self.illegal_action == "raise":
                raise ValueError(why)
            self._lose_by_illegal_action(agent, action, why)
            return
        self._cumulative_rewards[agent] = 0
        core = self.core
        core.step_one(0, action)
        rewards = core.rewards[0].tolist()
        for i, a in enumerate(self.agents):
            self.rewards[a] = rewards[i]
        if core.terminated[0] or core.truncated[0]:
            if core.truncated[0]:
                core.mask[0] = 0  # the kernels leave the cut-off game's moves in the mask: nothing is legal now
            for a in self.agents:
                self.terminations[a] = bool(core.terminated[0])
                self.truncations[a] = bool(core.truncated[0])
                self.infos[a] = {**self.infos[a], **self.game.final_info(core, 0)}
        self.agent_selection = self.agents[int(core.current_player[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _lose_by_illegal_action(self, agent, action: int, why: str) -> None:
        """PettingZoo classic's contract (``TerminateIllegalWrapper``): the game ends, the mover loses."""
        import gymnasium
        gymnasium.logger.warn(f"illegal action ends the game (illegal_action='lose'): {why}")
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: ILLEGAL_REWARD if a == agent else 0.0 for a in self.agents}
        self.terminations = {a: True for a in self.agents}
        self.infos[agent] = {**self.infos[agent], "illegal_action": action}  # a number: infos become tensors
        self._accumulate_rewards()

    # -- observation -----------------------------------------------------------
    def observe(self, agent):
        p = self.agent_name_mapping[agent]
        if agent == self.agent_selection:
            obs, mask = self.core.obs[0].copy(), self.core.mask[0].copy()
        else:
            obs, mask = self.core.observe(0, p)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """Global state for centralised critics: the full observation from player 0's side."""
        return self.core.observe(0, 0)[0]

    # -- rendering -------------------------------------------------------------
    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to env()")
            return None
        viewer = self.agent_name_mapping.get(self.agent_selection, 0) if self.agents else 0
        if self.render_mode == "ansi":
            return self.renderer(self.core, 0, "ansi", viewer)
        frame = self.renderer(self.core, 0, "rgb_array", viewer)
        if self.render_mode == "rgb_array":
            return frame
        self._show(frame)
        return None

    def _show(self, frame):
        try:
            import pygame
        except ImportError:  # no window toolkit: print the board instead
            print(self.renderer(self.core, 0, "ansi", 0))
            return
        if self._window is None:
            pygame.init()
            self._window = pygame.display.set_mode(frame.shape[1::-1])
            pygame.display.set_caption(self.metadata["name"])
        surf = pygame.surfarray.make_surface(frame.swapaxes(0, 1))
        self._window.blit(surf, (0, 0))
        pygame.event.pump()
        pygame.display.flip()

    def close(self):
        if self._window is not None:
            import pygame
            pygame.display.quit()
            self._window = None

    # -- pickling (pickling.py) ----------------------------------------------------
    _EPISODE_FIELDS = ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
                       "agent_selection")

    def _dynamic_state(self) -> dict:
        episode = {k: self.__dict__[k] for k in self._EPISODE_FIELDS if k in self.__dict__}
        return {"core": self.core, "episode": episode}

    def _restore_state(self, saved: dict) -> None:
        self.core = saved["core"]
        self.__dict__.update(saved["episode"])

    # -- wargym extras -----------------------------------------------------------
    def legal_actions(self) -> np.ndarray:
        return self.core.legal_actions(0)

    def why_illegal(self, action: int) -> str | None:
        return self.core.why_illegal(0, action)

    def illegal_reason(self, action: int) -> tuple[int, str] | None:
        """``None`` if legal, else ``(code, rule)`` (``VecGame.illegal_reason``)."""
        return self.core.illegal_reason(0, action)

    def action_name(self, action: int) -> str:
        return self.core.action_name(action)

    def script_dice(self, values) -> None:
        """Force the next die results (tests, rulebook examples)."""
        self.core.script_dice(0, values)

    def clone_state(self):
        """The whole game, truncation included (``set_state`` restores it)."""
        return self.core.clone_state()

    def set_state(self, state) -> None:
        """Restore a ``clone_state()``; anything else raises and changes nothing."""
        self.core.set_state(state)
        self._sync_after_reset()

    def save(self, path) -> None:
        self.core.save(path)

    def load(self, path) -> None:
        self.core.load(path)
        self._sync_after_reset()


def earlier_version(raw_env_class, name: str, defaults: dict):
    """``(raw_env, env)`` of an earlier version of a game: the same env with ``defaults`` as its
    option defaults (e.g. ``{"relations": False}`` for an observation before a version's block),
    so that agents trained on that version keep playing (PettingZoo names a version per change)."""
    from pettingzoo.utils import wrappers

    class raw_env(raw_env_class):  # noqa: N801
        metadata = {**raw_env_class.metadata, "name": name}

        def __init__(self, render_mode=None, options=None, **kwargs):
            super().__init__(render_mode=render_mode, options={**defaults, **(options or {})}, **kwargs)

    # found by pickle where the game's env module binds it: ``raw_env_v<N>`` beside ``raw_env``
    raw_env.__qualname__ = raw_env.__name__ = f"raw_env_v{name.rsplit('_v', 1)[1]}"
    raw_env.__module__ = raw_env_class.__module__

    def env(**kwargs):
        return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
    return raw_env, env

