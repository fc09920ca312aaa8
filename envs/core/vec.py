"""The batched core every wargym game runs on.

A ``VecGame`` owns the struct-of-arrays state of B games and the preallocated
output buffers the kernels write into: per-game observation of the player
whose decision it is, legal-action mask, per-player rewards, termination and
truncation flags, and the index of the player to decide next.  One ``step``
call advances every game that is given an action, in parallel, in compiled
code.  B=1 runs through exactly the same kernels.

A game plugs in by providing a module that fulfils ``contract.GameDef``
(``envs/core/contract.py``; see ``envs/planetoids/game.py``): its options,
static config, state spec, Numba kernels (``game.kernels``) and bots
(``game.bot``).  ``VecGame`` checks each game object against it once, at the
first core made of it (``contract.check_game``).
"""
from __future__ import annotations

from pathlib import Path

import numba
import numpy as np

from .actions import as_action
from .batch import BatchState
from .compile_plan import start_helper
from .contract import check_game_once
from .rng import DICE_SCRIPT_LEN
from .pickling import RebuiltOnUnpickle
from .seeding import SeedStream
from .structs import Outputs
from .threads import PARALLEL_FROM, configure_thread_pool, run_in_ranges
from .validate import check_state


def _env_module_of(game_key: str) -> str:
    """The current env module of a game key (``talon`` -> ``talon_v1``), from the registry."""
    from ...registration import current_module
    return current_module(game_key)


def game_seeds(seed: int, index: np.ndarray) -> np.ndarray:
    """Per-game seeds that depend on (seed, game index) only, never on B."""
    out = np.empty(len(index), dtype=np.uint64)
    for j, i in enumerate(index):
        out[j] = np.random.SeedSequence([int(seed) & (2**64 - 1), int(i)]).generate_state(1, np.uint64)[0]
    return out


# illegal_reason's codes for what no rule of the game says: an action outside the action space, and
# any action once a game has been cut off by max_decisions (the rules' own codes count from 1)
OUTSIDE_ACTIONS, CUT_OFF = -1, -2


class VecGame(RebuiltOnUnpickle):
    """B independent games of one kind, stepped together.  ``game``: a ``contract.GameDef`` (a
    game module).  Pickles and deep-copies as its game, options and batch size plus its games
    and seed stream (``pickling.py``)."""

    def __init__(self, game, num_envs: int = 1, options: dict | None = None, auto_reset: bool = False,
                 parallel: bool | None = None):
        """``parallel``: step with the thread pool (True), in the calling thread
        (False), or choose by batch size (None: from ``game.PARALLEL_FROM`` games,
        default ``threads.PARALLEL_FROM``).  Results are the same either way."""
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        check_game_once(game)  # a game missing a member of the contract is refused here, the member named
        start_helper(game)     # a cold cache: a second process compiles half of the kernels (compile_plan.py)
        self._remember_arguments(game=game, num_envs=num_envs, options=options, auto_reset=auto_reset,
                                 parallel=parallel)
        self.game = game
        self.options = game.parse_options(options or {})
        self.cfg = game.build_config(self.options)
        self.spec = game.state_spec(self.cfg)
        self.num_envs = num_envs
        # a game whose player count is an option (2-6 players) computes it from its config
        n = game.num_players
        self.num_players = int(n(self.cfg) if callable(n) else n)
        self.num_actions = game.num_actions(self.cfg)
        self.obs_shape = game.obs_shape(self.cfg)
        self.auto_reset = bool(auto_reset)
        self.state = BatchState(self.spec, num_envs)
        self.seeds = SeedStream()  # reset(seed=s), then reset() continues s's stream (seeding.py)
        self.has_games = False  # set by reset, set_state and load: the buffers show games
        B = num_envs
        self.obs = np.zeros((B, *self.obs_shape), dtype=np.int8)
        self.mask = np.zeros((B, self.num_actions), dtype=np.int8)
        self.rewards = np.zeros((B, self.num_players), dtype=np.float32)
        self.terminated = np.zeros(B, dtype=np.bool_)
        # The state's own flags, so that clone_state and save carry truncation (it is no rule,
        # the kernels only write it) and set_state and load restore it.
        self.truncated = self.state.truncated
        self.current_player = np.zeros(B, dtype=np.int8)
        self.illegal = np.zeros(B, dtype=np.int16)
        # Observation of each player at the moment a game ended (filled only
        # when auto_reset replaces the finished game by a new one).
        self.final_obs = np.zeros((B if auto_reset else 1, self.num_players, *self.obs_shape), dtype=np.int8)
        # What each game's observation buffer holds, for games whose kernels
        # rewrite only the entries that changed (``game.OBS_KEY_LEN`` columns;
        # column 0 = 0 means "unknown, write everything").  Any write to ``obs``
        # other than the kernels' own must clear column 0 (see refresh), and
        # callers must treat ``obs`` as read-only: copy it to keep or change it.
        self.obs_key = np.zeros((B, getattr(game, "OBS_KEY_LEN", 1)), dtype=np.int32)
        self._all = np.ones(B, dtype=np.bool_)
        # step_one's action, at its game's index: one decision is step_range over a range of one
        # game, so that a game has one compiled step (each entry point compiles the whole step)
        self._one_action = np.zeros(B, dtype=np.int64)
        # The kernels see observations with the spatial axes flattened (a view).
        kshape = tuple(game.kernel_obs_shape(self.cfg))
        self._kobs = self.obs.reshape((B, *kshape))
        self._kfinal = self.final_obs.reshape((self.final_obs.shape[0], self.num_players, *kshape))
        self._out = Outputs(self._kobs, self.mask, self.rewards, self.terminated, self.truncated,
                            self.current_player, self.illegal, self._kfinal, self.obs_key)
        self._k = self.cfg.struct
        # One struct per thread for the batches cut into one range per thread (threads.run_in_ranges).
        self._threads = numba.config.NUMBA_NUM_THREADS
        self._ks = tuple(game.build_config(self.options).struct for _ in range(self._threads))
        self._outs = tuple(Outputs(self._kobs, self.mask, self.rewards, self.terminated, self.truncated,
                                   self.current_player, self.illegal, self._kfinal, self.obs_key)
                           for _ in range(self._threads))
        # Below this batch size the serial kernel beats waking the thread pool.
        self._parallel = (num_envs >= getattr(game, "PARALLEL_FROM", PARALLEL_FROM) if parallel is None
                          else bool(parallel))
        # Numba loads its threading layer with the first parallel kernel (sampling.sample_legal) or
        # when run_in_ranges reads its thread count: set it up first, with sleeping workers
        # (threads.py).  Its threads start only when sample_legal runs SERIAL_BELOW games or more.
        configure_thread_pool()

    def kernel_args(self) -> tuple:
        """(states, configs, outputs), one struct per thread, for the kernels run in ranges
        (threads.run_in_ranges: the loops of core/loops.py)."""
        return self.state.thread_views(self._threads), self._ks, self._outs

    # -- episode control ---------------------------------------------------
    def reset(self, seed: int | None = None, index=None) -> None:
        """Start new games (all, or those at ``index``) from the default setup.  ``seed=None``
        continues the stream of the last seed given (``seeding.py``)."""
        idx = self._index(index)
        seeds = game_seeds(self.seeds.next(seed), idx)
        idx64, views = idx.astype(np.int64), self.state.thread_views(self._threads)
        run_in_ranges(self.game.kernels.reset_range, len(idx64),
                      lambda t: (views[t], self._ks[t], seeds, idx64, self._outs[t]))
        # Read the player to move from the state: a parallel reset kernel's write of
        # it was seen to be lost (Numba parfors, before the resets ran in ranges), and
        # a game whose first decision is not player 0's then looked like player 0's.
        self.current_player[idx] = self.game.current(self.state)[idx]
        self.has_games = True
        self.rewards[idx] = 0
        self.terminated[idx] = False
        self.truncated[idx] = False

    def step(self, actions, active=None) -> None:
        """Apply one action in every game where ``active`` is true (default: all).

        Illegal actions change nothing; they raise ``ValueError`` after the
        legal ones of the batch have been applied.
        """
        if not (isinstance(actions, np.ndarray) and actions.dtype == np.int64 and actions.shape == (self.num_envs,)):
            actions = np.ascontiguousarray(actions, dtype=np.int64).reshape(self.num_envs)
        active = self._all if active is None else np.ascontiguousarray(active, dtype=np.bool_)
        if self._parallel:
            views = self.state.thread_views(self._threads)
            run_in_ranges(self.game.kernels.step_range, self.num_envs,
                          lambda t: (views[t], self._ks[t], actions, active, self._outs[t], self.auto_reset))
        else:
            self.game.kernels.step_range(self.state.view, self._k, actions, active, self._out, self.auto_reset,
                                         0, self.num_envs)
        # (one game: reading the flag is cheaper than ndarray.any())
        if self.illegal[0] if self.num_envs == 1 else self.illegal.any():
            b = int(np.flatnonzero(self.illegal)[0])
            raise ValueError(f"game {b}: {self.describe_illegal(int(actions[b]), int(self.illegal[b]))}")

    def step_one(self, b: int, action: int) -> None:
        """Apply one action to game ``b`` only: the lean path behind the AEC env (the batched
        step over games ``b .. b``, in the calling thread)."""
        self._one_action[b] = action
        self.game.kernels.step_range(self.state.view, self._k, self._one_action, self._all, self._out,
                                     self.auto_reset, b, b + 1)
        if self.illegal[b]:
            raise ValueError(f"game {b}: {self.describe_illegal(action, int(self.illegal[b]))}")

    # -- queries -----------------------------------------------------------
    def observe(self, b: int, player: int) -> tuple[np.ndarray, np.ndarray]:
        """Fresh observation and mask of game ``b`` from ``player``'s point of view."""
        self._check_game(b)
        if not 0 <= player < self.num_players:
            raise ValueError(f"player {player} does not exist (0..{self.num_players - 1})")
        obs = np.zeros(self.obs_shape, dtype=np.int8)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        self.game.kernels.observe_game(self.state.view, self._k, b, player, obs.reshape(self._kobs.shape[1:]), mask)
        return obs, mask

    def legal_actions(self, b: int) -> np.ndarray:
        self._check_game(b)
        return np.flatnonzero(self.mask[b])

    def why_illegal(self, b: int, action: int) -> str | None:
        """``None`` if ``action`` is legal in game ``b`` now, else the reason in words."""
        reason = self.illegal_reason(b, action)
        if reason is None:
            return None
        code, rule = reason
        action = int(action)
        if code == OUTSIDE_ACTIONS:
            return f"action {action} is {rule}"
        return f"action {action} ({self.action_name(action)}) is illegal: {rule}"

    def illegal_reason(self, b: int, action: int) -> tuple[int, str] | None:
        """``None`` if ``action`` is legal in game ``b`` now, else ``(code, rule)``: the rules' reason
        code (``game.REASONS[code]`` is ``rule``), or OUTSIDE_ACTIONS / CUT_OFF with their own words."""
        self._check_game(b)
        action = as_action(action, "why_illegal", self.num_actions)  # 1.5 or "3": a clear TypeError
        if not 0 <= action < self.num_actions:
            return OUTSIDE_ACTIONS, f"outside the action space 0..{self.num_actions - 1}"
        if self.truncated[b] and not self.auto_reset:
            return CUT_OFF, f"the game is over, cut off after max_decisions={self.options.get('max_decisions')} decisions"
        code = int(self.game.kernels.action_reason(self.state.view, self._k, b, action))
        return None if code == 0 else (code, self.game.REASONS[code])

    def describe_illegal(self, action: int, code: int) -> str:
        name = self.game.action_name(self.cfg, action) if 0 <= action < self.num_actions else "?"
        return f"action {action} ({name}) is illegal: {self.game.REASONS[code]}"

    def action_name(self, action: int) -> str:
        action = as_action(action, "action_name", self.num_actions)
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action_name: action {action} is outside the action space 0..{self.num_actions - 1}")
        return self.game.action_name(self.cfg, action)

    # -- state management --------------------------------------------------
    def clone_state(self, index=None) -> BatchState:
        """A copy of the games (all, or those at ``index``), truncation flags included."""
        st = self.state.clone() if index is None else self.state.select(self._index(index))
        if self.auto_reset:
            st.truncated[:] = False  # a truncated game has already been replaced by a fresh one
        return st

    def set_state(self, state: BatchState, index=None) -> None:
        """Replace games (all, or those at ``index``) by the games of ``state``
        (a ``clone_state()`` of a core of the same game and options).  A truncated
        game stays over.  Anything else raises and changes nothing."""
        if not isinstance(state, BatchState):
            raise TypeError(f"set_state takes a state from clone_state() (a BatchState), got {type(state).__name__}")
        idx = self._index(index)
        self.state._check_same_spec(state)
        check_state(self.game, self.cfg, state)  # its fields, dtypes, shapes and ranges: nothing is cast
        before = self.state.select(idx)
        self.state.assign(idx, state)
        self.refresh(idx)
        # the last invariant needs the rules (run on a state already checked for ranges): a game that
        # is not over has a legal action
        stuck = [int(b) for b in idx if not (self.terminated[b] or self.truncated[b]) and not self.mask[b].any()]
        if stuck:
            self.state.assign(idx, before)
            self.refresh(idx)
            raise ValueError(f"corrupt state: game {stuck[0]} is not over but leaves the player to move no legal action")
        self.has_games = True

    def save(self, path, index=None) -> None:
        self.clone_state(index).save(path, meta={"options": self.options})

    def load(self, path, index=None) -> None:
        """Load games from a save file; a corrupt or foreign file raises and changes nothing."""
        data = Path(path).read_bytes()
        # game and options before the schema: a file of another game or player count says so
        self._check_save_header(BatchState.read_header(data))
        state, _meta = BatchState.from_bytes(self.spec, data)
        self.set_state(state, index)  # (which checks the state completely first)

    def _check_save_header(self, header: dict) -> None:
        game = header.get("game")
        if game != self.spec.game:
            hint = f": load it into a {_env_module_of(game)} env" if isinstance(game, str) else ""
            raise ValueError(f"save file holds game {game!r}, not {self.spec.game!r}{hint}")
        saved = (header.get("meta") or {}).get("options")
        if saved != self.options:
            if not isinstance(saved, dict):
                raise ValueError(f"save file records no options (got {saved!r}); this core uses {self.options}")
            differ = sorted(set(saved) | set(self.options), key=str)
            differ = [k for k in differ if saved.get(k) != self.options.get(k)]
            raise ValueError("save file was made with options "
                             + ", ".join(f"{k}={saved.get(k)!r}" for k in differ) + "; this core has "
                             + ", ".join(f"{k}={self.options.get(k)!r}" for k in differ)
                             + ": make the env with the file's options to load it")

    def load_scenario(self, scenario: dict, index=None, seed: int | None = None) -> None:
        """Set up games from a scenario dict (see the game's rules document)."""
        idx = self._index(index)
        saved = self.clone_state(idx)
        had_games = getattr(self, "has_games", False)
        outputs = [a[idx].copy() for a in (self.rewards, self.terminated, self.truncated)]
        self.reset(seed, idx)
        trial = self.state.select(idx)
        try:
            for j in range(len(idx)):
                self.game.apply_scenario(self.cfg, trial, j, scenario)
        except Exception:
            # a bad scenario changes nothing: our own copy goes back as it was, unchecked (a core never
            # reset holds a blank state that set_state's checks would rightly refuse from outside)
            self.state.assign(idx, saved)
            self.refresh(idx)
            self.has_games = had_games
            for a, old in zip((self.rewards, self.terminated, self.truncated), outputs):
                a[idx] = old
            raise
        self.set_state(trial, idx)

    def script_dice(self, b: int, values) -> None:
        """Force the next die results of game ``b`` (tests, rulebook examples)."""
        self._check_game(b)
        values = list(values)
        if len(values) > DICE_SCRIPT_LEN:
            raise ValueError(f"at most {DICE_SCRIPT_LEN} scripted dice at a time")
        if any(not 1 <= int(v) <= 6 for v in values):
            raise ValueError(f"scripted dice must be 1..6, got {values}")
        s = self.state
        s.dice_script[b, :] = 0
        s.dice_script[b, : len(values)] = values
        s.dice[b] = (len(values), 0)

    def refresh(self, index=None) -> None:
        """Recompute the buffers of games whose state was written from outside
        (``truncated`` included: set_state wrote it with the state)."""
        idx = self._index(index)
        players = self.game.current(self.state)
        done = self.game.done(self.state)
        for b in idx:
            p = int(players[b])
            self.game.kernels.observe_game(self.state.view, self._k, int(b), p, self._kobs[b], self.mask[b])
            self.obs_key[b, 0] = 0  # written from here: the next step rewrites everything
            self.current_player[b] = p
            if self.auto_reset:
                self.truncated[b] = False  # with auto_reset no game stays over
            cut_off = bool(self.truncated[b])
            self.terminated[b] = bool(done[b]) and not cut_off
            if cut_off:
                self.mask[b] = 0  # nothing is legal in a game that is over

    # -- pickling (pickling.py) --------------------------------------------
    def _dynamic_state(self) -> dict:
        return {"state": self.state.clone(), "seeds": self.seeds, "has_games": self.has_games}

    def _restore_state(self, saved: dict) -> None:
        self.seeds = saved["seeds"]
        if saved["has_games"]:  # (before the first reset the state holds zeros, no game to observe)
            self.set_state(saved["state"])

    # -- helpers -----------------------------------------------------------
    def _index(self, index) -> np.ndarray:
        return np.arange(self.num_envs) if index is None else np.atleast_1d(np.arange(self.num_envs)[index])

    def _check_game(self, b: int) -> None:
        if not 0 <= b < self.num_envs:
            raise IndexError(f"game {b} does not exist (batch of {self.num_envs})")
