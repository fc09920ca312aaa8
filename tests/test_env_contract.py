"""The env contract a researcher relies on, for every game (issue 14, items 9-13):
registration, what step() accepts, state that survives clone/restore and save/load,
state_space, the package's py.typed and ``python -m wargym``, and the benchmark's warm-up;
and the game contract every game module fulfils (``envs/core/contract.py``)."""
from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest

import wargym
import wargym.envs
from wargym.envs.core import contract
from wargym.envs.core.batch import BatchState
from wargym.registration import GAME_KEYS, GAMES, gymnasium_id, load_game

ENVS = list(GAMES)  # the current version of every game: planetoids_v1, talon_v1, ...
INSTALLED = Path(wargym.__file__).resolve().parent  # the package as installed (a copy, or the checkout)
REPO = Path(__file__).resolve().parent.parent        # the checkout the tests run from


def _module(name):
    return importlib.import_module(f"wargym.envs.{name}")


# PettingZoo's own checks on the current version of every game, as many cycles as a game needs to
# reach its later stages (Battle Force at 3 to 6 players: test_battle_force_env.py)
API_CYCLES = {"planetoids_v2": (3000, 800), "talon_v1": (2000, 500), "battle_force_v1": (300, 300),
              "union_wars_v2": (600, 300)}


@pytest.mark.parametrize("name", ENVS)
def test_pettingzoo_api_test(name):
    from pettingzoo.test import api_test
    api_test(_module(name).env(), num_cycles=API_CYCLES[name][0])


@pytest.mark.parametrize("name", ENVS)
def test_pettingzoo_seed_test(name):
    from pettingzoo.test import seed_test
    seed_test(_module(name).env, num_cycles=API_CYCLES[name][1])


def _raw(name, **options):
    env = _module(name).raw_env(**options)
    env.reset(seed=3)
    return env


def _play(env, steps, seed=0):
    """``steps`` random legal decisions through the AEC API (stops early if the game ends)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        legal = env.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))


def _same_state(a: BatchState, b: BatchState) -> bool:
    return all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays) and np.array_equal(a.truncated, b.truncated)


# -- registration (item 9) ----------------------------------------------------------------------
def test_contract_registration_envs_all_lists_every_game():
    assert wargym.envs.__all__ == ENVS
    namespace = {}
    exec("from wargym.envs import *", namespace)
    for name in ENVS:
        assert namespace[name] is _module(name)


@pytest.mark.parametrize("name", ENVS)
def test_contract_registration_pettingzoo_make_builds_every_game(name):
    env = pettingzoo.make("aec", f"wargym/{name}", max_decisions=7)  # options pass through as keywords
    assert isinstance(env.unwrapped, _module(name).raw_env)
    assert env.unwrapped.core.options["max_decisions"] == 7
    env.reset(seed=0)
    assert env.agent_selection in env.possible_agents


@pytest.mark.parametrize("name", ENVS)
def test_contract_registration_gymnasium_make_builds_every_single_agent_adapter(name):
    pytest.importorskip("stable_baselines3")
    from wargym.wrappers.sb3 import WargymSingleAgentEnv

    env = gymnasium.make(gymnasium_id(name), opponent="random")
    assert isinstance(env.unwrapped, WargymSingleAgentEnv)
    obs, _info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
    obs, reward, terminated, truncated, _info = env.step(action)
    assert env.observation_space.contains(obs)


def test_contract_registration_adds_nothing_twice():
    with __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("error")  # PettingZoo and Gymnasium warn on overriding an id
        importlib.reload(importlib.import_module("wargym.registration")).register_all()


# -- inputs (item 10) -------------------------------------------------------------------------------
NOT_ACTIONS = [57.7, 3.0, "126", None, True, np.bool_(False), np.float32(2.0), np.array([1, 2]), np.array(1.0), [1]]


@pytest.mark.parametrize("name", ENVS)
@pytest.mark.parametrize("bad", NOT_ACTIONS, ids=repr)
def test_contract_inputs_step_refuses_anything_but_an_integer_and_changes_nothing(name, bad):
    env = _raw(name)
    _play(env, 3)
    agent, before = env.agent_selection, env.clone_state()
    obs = env.observe(agent)["observation"].copy()
    with pytest.raises(TypeError, match=rf"^{agent}: an action is one integer in 0\.\.\d+ .*got "):
        env.step(bad)
    assert env.agent_selection == agent and _same_state(before, env.clone_state())
    np.testing.assert_array_equal(obs, env.observe(agent)["observation"])
    assert not any(env.terminations.values()) and not any(env.truncations.values())


@pytest.mark.parametrize("name", ENVS)
def test_contract_inputs_step_takes_int_numpy_integer_and_0d_integer_array(name):
    env = _raw(name)
    for wrap in (int, np.int64, np.int16, np.array):
        before = env.clone_state()
        env.step(wrap(int(env.legal_actions()[0])))
        assert not _same_state(before, env.clone_state())


@pytest.mark.parametrize("name", ENVS)
def test_contract_inputs_single_agent_step_refuses_anything_but_an_integer(name):
    pytest.importorskip("stable_baselines3")
    from wargym.wrappers.sb3 import WargymSingleAgentEnv

    env = WargymSingleAgentEnv(GAMES[name][1], opponent="random")
    env.reset(seed=0)
    core = env.loop.core
    before = core.clone_state()
    for bad in (57.7, "1", None, True, np.array([1])):
        with pytest.raises(TypeError, match="WargymSingleAgentEnv.step: an action is one integer"):
            env.step(bad)
        assert _same_state(before, core.clone_state())
    env.step(np.array(int(np.flatnonzero(env.action_masks())[0])))  # what SB3's predict returns for one obs


# -- state (item 11) -----------------------------------------------------------------------------
def _truncated_env(name):
    env = _raw(name, max_decisions=4)
    _play(env, 4)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    return env


def _assert_over_by_truncation(env):
    assert env.agents and all(env.truncations.values()) and not any(env.terminations.values())
    assert not env.observe(env.agent_selection)["action_mask"].any(), "the mask of a game that is over is empty"
    assert len(env.legal_actions()) == 0 and env.why_illegal(0) is not None
    with pytest.raises(ValueError):  # a truncated agent takes only None
        env.step(0)
    while env.agents:
        env.step(None)


def _random_steps(env, rng, steps):
    """Up to ``steps`` random legal actions (fewer if the game ends); returns (action, agent to move
    after it, its observation) for each."""
    seen = []
    for _ in range(steps):
        if env.core.terminated[0] or env.core.truncated[0]:
            break
        a = int(rng.choice(env.legal_actions()))
        env.step(a)
        seen.append((a, env.agent_selection, env.observe(env.agent_selection)["observation"].tobytes()))
    return seen


@pytest.mark.parametrize("name", ENVS)
def test_contract_state_clone_and_restore_replays_identically(name):
    """set_state(clone_state()) puts the game back exactly: the same actions replay the same
    observations for the same agents (dice streams included)."""
    env = _raw(name)
    rng = np.random.default_rng(0)
    _random_steps(env, rng, 40)
    snap = env.clone_state()
    first = _random_steps(env, rng, 150)
    env.set_state(snap)
    second = []
    for a, _, _ in first:
        env.step(a)
        second.append((a, env.agent_selection, env.observe(env.agent_selection)["observation"].tobytes()))
    assert first and first == second


@pytest.mark.parametrize("name", ENVS)
def test_contract_illegal_reason_gives_the_rules_code_and_its_text(name):
    """An illegal action's reason as the code of the rule that forbids it and that rule's text
    (game.REASONS), which why_illegal's sentence ends with: what the server sends as ``rule``."""
    from wargym.envs.core.vec import OUTSIDE_ACTIONS
    env = _raw(name)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    code, rule = env.illegal_reason(illegal)
    assert code > 0 and rule == env.core.game.REASONS[code]
    assert env.why_illegal(illegal).endswith(f" is illegal: {rule}")
    assert env.illegal_reason(int(np.flatnonzero(mask)[0])) is None
    assert env.illegal_reason(len(mask))[0] == OUTSIDE_ACTIONS


@pytest.mark.parametrize("name", ENVS)
def test_contract_state_truncation_empties_the_mask(name):
    env = _truncated_env(name)
    _assert_over_by_truncation(env)


@pytest.mark.parametrize("name", ENVS)
def test_contract_state_truncation_survives_clone_and_set_state(name):
    env = _truncated_env(name)
    snap = env.clone_state()
    env.set_state(snap)
    _assert_over_by_truncation(env)
    # and into an env that had not been truncated
    fresh = _raw(name, max_decisions=4)
    fresh.set_state(snap)
    _assert_over_by_truncation(fresh)


@pytest.mark.parametrize("name", ENVS)
def test_contract_state_truncation_survives_save_and_load(name, tmp_path):
    env = _truncated_env(name)
    env.save(tmp_path / "cut.npz")
    other = _raw(name, max_decisions=4)
    other.load(tmp_path / "cut.npz")
    _assert_over_by_truncation(other)
    assert not any(_raw(name, max_decisions=4).truncations.values())  # a new game is not over


@pytest.mark.parametrize("name", ENVS)
@pytest.mark.parametrize("garbage", ["garbage", None, {}, np.zeros(3)], ids=repr)
def test_contract_state_set_state_of_something_else_raises_clearly_and_changes_nothing(name, garbage):
    env = _raw(name)
    _play(env, 2)
    before, agent = env.clone_state(), env.agent_selection
    with pytest.raises(TypeError, match=r"set_state takes a state from clone_state\(\)"):
        env.set_state(garbage)
    assert _same_state(before, env.clone_state()) and env.agent_selection == agent


@pytest.mark.parametrize("name", ENVS)
def test_contract_state_loading_another_games_save_names_that_game(name, tmp_path):
    other = ENVS[(ENVS.index(name) + 1) % len(ENVS)]
    _raw(other).save(tmp_path / "other.npz")
    env = _raw(name)
    before = env.clone_state()
    with pytest.raises(ValueError, match=rf"holds game '{GAMES[other][1]}'.*{other}"):
        env.load(tmp_path / "other.npz")
    assert _same_state(before, env.clone_state())


@pytest.mark.parametrize("name", ENVS)
def test_contract_state_loading_a_save_made_with_other_options_names_them(name, tmp_path):
    _raw(name, max_decisions=7).save(tmp_path / "seven.npz")
    env = _raw(name)
    with pytest.raises(ValueError, match=r"max_decisions=7.*max_decisions=0"):
        env.load(tmp_path / "seven.npz")


def test_contract_state_loading_a_save_with_another_player_count_says_so(tmp_path):
    _raw("battle_force_v1", players=3).save(tmp_path / "three.npz")
    env = _raw("battle_force_v1", players=2)
    before = env.clone_state()
    with pytest.raises(ValueError, match=r"players=3.*players=2"):
        env.load(tmp_path / "three.npz")
    assert _same_state(before, env.clone_state())


# -- state_space, py.typed, python -m wargym (item 12) ----------------------------------------------
@pytest.mark.parametrize("name", ENVS)
def test_contract_state_space_holds_state(name):
    env = _module(name).env()
    env.reset(seed=1)
    space = env.state_space
    assert isinstance(space, gymnasium.spaces.Box) and space.shape == env.state().shape
    assert space.dtype == env.state().dtype and (space.low < space.high).all()
    for _ in range(3):
        assert env.state_space.contains(env.state())
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


def test_contract_package_ships_py_typed():
    assert (INSTALLED / "py.typed").is_file()
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["wargym"]


def test_contract_python_m_wargym_says_what_is_installed_and_how_to_start():
    out = subprocess.run([sys.executable, "-m", "wargym"], capture_output=True, text=True, check=True).stdout
    for name in ENVS:
        assert f"wargym.envs.{name}" in out and f"wargym/{name}" in out and gymnasium_id(name) in out
    assert "wargym-train" in out and "python -m wargym.training.train" in out


# -- the benchmark times warm kernels (item 13) ------------------------------------------------------
class _Clock:
    """Stands in for the time module: every reading is logged, and time runs one second a reading."""

    def __init__(self, log):
        self.log, self.now = log, 0.0

    def perf_counter(self):
        self.log.append("clock")
        self.now += 1.0
        return self.now


def _bench(monkeypatch, log):
    bench = importlib.import_module("wargym.benchmarks.bench")
    monkeypatch.setattr(bench, "time", _Clock(log))
    return bench


def test_contract_bench_runs_the_self_play_kernel_before_timing_it(monkeypatch):
    from wargym.envs.planetoids import game

    log = []

    class Bot:  # records the calls instead of playing
        @staticmethod
        def play_games(states, cfgs, policies, outs, results):
            # the kernel's argument order: a seat-policy table, then the outputs
            assert isinstance(policies, np.ndarray) and policies.dtype == np.int64 and policies.ndim == 2
            assert isinstance(results, np.ndarray) and results.shape == policies.shape
            log.append("play")

    _bench(monkeypatch, log).compiled_self_play(8, game, Bot)
    assert log.index("play") < log.index("clock"), log


def test_contract_bench_steps_the_aec_env_before_timing_it(monkeypatch):
    log = []

    class Recorder:
        def __init__(self, env):
            self._env = env

        def __getattr__(self, name):
            return getattr(self._env, name)

        def step(self, action):
            log.append("step")
            self._env.step(action)

    bench = _bench(monkeypatch, log)
    bench.aec_random_play(lambda: Recorder(_module("planetoids_v0").raw_env()), seconds=0.5)
    assert log.index("step") < log.index("clock"), log[:5]


# -- the game contract (envs/core/contract.py) --------------------------------------------------------
def _required_paths(protocol=contract.GameDef, prefix=""):
    """Every required member as a dotted path: ``NAME``, ``kernels.step_range``, ``bot.LOOPS.policy_id``."""
    for name, kind in contract.REQUIRED[protocol]:
        yield prefix + name
        if kind in contract.REQUIRED:
            yield from _required_paths(kind, f"{prefix}{name}.")


REQUIRED_PATHS = list(_required_paths())


def _copy_without(obj, path: str):
    """A SimpleNamespace copy of ``obj``'s attributes without the member at ``path`` (the
    namespaces on the way copied too, so that the game module itself is left alone)."""
    head, _, rest = path.partition(".")
    ns = types.SimpleNamespace(**vars(obj))
    if rest:
        setattr(ns, head, _copy_without(getattr(obj, head), rest))
    else:
        delattr(ns, head)
    return ns


def _refusal(game) -> tuple[list[str], str]:
    """check_game's refusal of ``game``: (the members it names as missing, the whole message)."""
    with pytest.raises(TypeError) as caught:
        contract.check_game(game)
    message = str(caught.value)
    missing = message.partition("missing ")[2].partition(";")[0]
    return [m for m in missing.split(", ") if m], message


@pytest.mark.parametrize("key", GAME_KEYS)
def test_check_game_passes_every_registered_game(key):
    contract.check_game(load_game(key))


@pytest.mark.parametrize("key", GAME_KEYS)
def test_contract_batched_entry_points_are_written_once_for_every_game(key):
    # issue 29: reset_range and step_range are core/ranges.py's templates, specialised with the
    # game's own reset_one and step_game (one behaviour for every game around one game's step)
    from wargym.envs.core import ranges
    kernels = load_game(key).kernels
    for name, template in (("step_range", ranges._step_range), ("reset_range", ranges._reset_range)):
        entry = getattr(kernels, name)
        assert entry.py_func.__code__ is template.__code__, name
        assert entry.py_func.__qualname__.startswith(f"{template.__name__}_{key}_")
    assert entry.py_func.__globals__["GAME_RESET"] is kernels.reset_one


@pytest.mark.parametrize("key", GAME_KEYS)
def test_contract_renderer_is_found_from_the_game_which_never_imports_it(key):
    # issue 29: game.py and render.py imported each other; the renderer reads the game module only
    game = load_game(key)
    render_module = importlib.import_module(game.__name__.rsplit(".", 1)[0] + ".render")
    assert contract.renderer(game) is render_module.render
    tree = ast.parse(Path(game.__file__).read_text())
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "render" not in names and "render" not in modules and not hasattr(game, "render")


@pytest.mark.parametrize("key", GAME_KEYS)
@pytest.mark.parametrize("path", REQUIRED_PATHS)
def test_check_game_refuses_a_game_missing_a_required_member_naming_it(key, path):
    game = load_game(key)
    assert _refusal(_copy_without(game, path))[0] == [path]
    contract.check_game(game)  # the module itself is untouched


def test_check_game_names_every_missing_member_at_once():
    game = _copy_without(_copy_without(load_game("planetoids"), "REASONS"), "bot.POLICIES")
    game = _copy_without(game, "kernels.step_range")
    missing, message = _refusal(game)
    assert sorted(missing) == ["REASONS", "bot.POLICIES", "kernels.step_range"], message
    assert "game 'wargym.envs.planetoids.game'" in message and "contract.py" in message


# a value where a function belongs, a function where a value belongs (an optional member too)
WRONG_KIND = {"parse_options": {}, "kernels.observe_game": 3, "REASONS": lambda code: "?",
              "bot.POLICIES": lambda name: 0, "OBS_KEY_LEN": "wide"}


@pytest.mark.parametrize("path", sorted(WRONG_KIND))
def test_check_game_refuses_a_member_of_the_wrong_kind(path):
    game = _copy_without(load_game("planetoids"), path)
    owner = game
    for part in path.split(".")[:-1]:
        owner = getattr(owner, part)
    setattr(owner, path.rpartition(".")[2], WRONG_KIND[path])
    missing, message = _refusal(game)
    assert not missing and f"of the wrong kind: {path} (should be" in message, message


@pytest.mark.parametrize("name", sorted(contract.OPTIONAL_GAME_MEMBERS))
def test_check_game_needs_no_optional_member(name):
    game = load_game("planetoids")
    copy = types.SimpleNamespace(**vars(game))
    if hasattr(copy, name):
        delattr(copy, name)
    contract.check_game(copy)
    assert name not in dict(contract.REQUIRED[contract.GameDef])


def test_check_game_optional_and_required_members_are_apart():
    required = {name for name, _ in contract.REQUIRED[contract.GameDef]}
    assert not required & set(contract.OPTIONAL_GAME_MEMBERS)
    assert not {name for name, _ in contract.REQUIRED[contract.BotDef]} & set(contract.OPTIONAL_BOT_MEMBERS)
    for member in (*contract.OPTIONAL_GAME_MEMBERS.values(), *contract.OPTIONAL_BOT_MEMBERS.values()):
        assert member.doc and ": " in member.doc  # what it is, then who reads it


def test_check_game_vecgame_refuses_a_game_missing_a_member_before_building_anything():
    from wargym.envs.core.vec import VecGame
    with pytest.raises(TypeError, match=r"missing kernel_obs_shape"):
        VecGame(_copy_without(load_game("planetoids"), "kernel_obs_shape"), 2)


def test_check_game_once_checks_each_game_object_once():
    game = types.SimpleNamespace(**vars(load_game("planetoids")))
    assert contract.check_game_once(game) is game
    del game.REASONS  # not looked at again: the check costs nothing per core
    assert contract.check_game_once(game) is game
    with pytest.raises(TypeError, match="REASONS"):
        contract.check_game_once(types.SimpleNamespace(**vars(game)))  # another object: checked


def test_check_game_contract_module_is_pure_python():
    tree = ast.parse(Path(contract.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not imported & {"numba", "numpy"}, imported


# -- determinism: trajectories depend on the seed only (not on the batch, not on the threads) ---------
DETERMINISM = [*((key, None) for key in GAME_KEYS), ("battle_force", {"players": 4, "end_turns": 4}),
               ("battle_force", {"players": 3, "end_turns": 6}), ("talon", {"scenario": "fleet"})]


@pytest.mark.parametrize("key, options", DETERMINISM)
def test_contract_trajectory_depends_on_the_seed_not_on_the_batch_or_threads(key, options):
    import numba
    from helpers.play import random_trajectory
    game = load_game(key)
    alone = random_trajectory(game, 1, 42, 1000, options=options)
    assert alone == random_trajectory(game, 32, 42, 1000, options=options)     # game 0 of 32
    n = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = random_trajectory(game, 32, 7, 600, game_index=5, options=options)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = random_trajectory(game, 32, 7, 600, game_index=5, options=options)
    finally:
        numba.set_num_threads(n)
    assert one == two
    assert random_trajectory(game, 1, 43, 300, options=options) != alone[:300]     # another seed, another game
