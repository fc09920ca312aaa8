"""A state from outside (a save, ``set_state``) is checked completely before any kernel sees it
(issue 28): the reproductions of the issue, and a bounded round of forged saves on every game
(``wargym.benchmarks.forged_saves``: every field, boundary and random values; each is refused with
a ValueError that changes nothing, or plays on legally)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from wargym.benchmarks.forged_saves import forge_game
from wargym.registration import GAMES


def _env(module: str, **options):
    env = importlib.import_module(f"wargym.envs.{module}").raw_env(options=options)
    env.reset(seed=3)
    return env


def _refused(env, tmp_path, name: str, index: tuple, value, match: str) -> None:
    """A save with ``state[name][index] = value`` is refused naming the field, and nothing changes."""
    forged = env.core.clone_state()
    forged.arrays[name][(0, *index)] = value
    path = tmp_path / "forged.wargym"
    forged.save(path, meta={"options": env.core.options})
    before = env.core.clone_state()
    with pytest.raises(ValueError, match=match):
        env.core.load(path)
    with pytest.raises(ValueError, match=match):
        env.core.set_state(forged)
    after = env.core.clone_state()
    assert all(np.array_equal(after.arrays[k], before.arrays[k]) for k in before.arrays)


def test_planetoids_setup_count_out_of_range_is_refused(tmp_path):
    from wargym.envs.planetoids import rules
    env = _env("planetoids_v0")
    _refused(env, tmp_path, "g", (rules.G_SETUP_COUNT,), -2 ** 31, r"g\[G_SETUP_COUNT\]")


def test_planetoids_leaving_hyperspace_with_a_piece_on_the_map_is_refused(tmp_path):
    # found by the bounds-checked fuzz: phase EXIT_HEX (seed 004 'Iperspazio') while the active piece stands
    # on the map was accepted, and the mask then offered exit hexes the step refused
    from wargym.envs.planetoids import rules
    env = _env("planetoids_v0")
    rng = np.random.default_rng(0)
    while env.core.state.g[0, rules.G_PHASE] != rules.ACT:
        env.core.step_one(0, int(rng.choice(np.flatnonzero(env.core.mask[0]))))
    _refused(env, tmp_path, "g", (rules.G_PHASE,), rules.EXIT_HEX, r"not in hyperspace in phase")


def test_union_wars_vertex_count_out_of_range_is_refused(tmp_path):
    from wargym.envs.union_wars import layout
    env = _env("union_wars_v1")
    _refused(env, tmp_path, "tinfo", (0, layout.TI_NVERT), 2 ** 31 - 1, r"tinfo\[TI_NVERT\]")
    _refused(env, tmp_path, "tinfo", (0, layout.TI_NVERT), 10 ** 6, r"tinfo\[TI_NVERT\]")


def test_union_wars_exploration_winner_is_a_side(tmp_path):
    # found by the bounds-checked fuzz: g[G_EXPLORE_WINNER] = -1 (no rule writes it; a reset starts it at 0)
    # was accepted and then indexed the banks out of bounds (ESPLORAZIONE's holder of the game's own rolls)
    from wargym.envs.union_wars import layout
    env = _env("union_wars_v1")
    _refused(env, tmp_path, "g", (layout.G_EXPLORE_WINNER,), -1, r"g\[G_EXPLORE_WINNER\]")


def test_battle_force_ship_deck_count_past_the_deck_is_refused(tmp_path):
    from wargym.envs.battle_force import rules
    env = _env("battle_force_v1")
    _refused(env, tmp_path, "g", (rules.G_SDECK_N,), 64, r"g\[G_SDECK_N\]")


def test_battle_force_selected_ship_past_the_ship_deck_is_refused(tmp_path):
    # found by the bounds-checked fuzz: g[G_SEL] = 64 (a card's range; it is only ever a ship) was
    # accepted and then read as a ship index out of bounds
    from wargym.envs.battle_force import rules
    env = _env("battle_force_v1")
    _refused(env, tmp_path, "g", (rules.G_SEL,), 64, r"g\[G_SEL\]")
    rng = np.random.default_rng(1)
    while env.core.state.g[0, rules.G_STAGE] not in (rules.ST_FORM_DEST, rules.ST_LINE_SETUP):
        env.core.step_one(0, int(rng.choice(np.flatnonzero(env.core.mask[0]))))
    _refused(env, tmp_path, "g", (rules.G_SEL,), -1, r"g\[G_SEL\] while a ship is being placed or moved")


def test_talon_ship_class_past_the_table_is_refused(tmp_path):
    from wargym.envs.talon import layout
    env = _env("talon_v0")
    for cls in (19, 127, 2 ** 15 - 1):
        _refused(env, tmp_path, "sh", (0, 0, layout.SH_CLASS), cls, r"sh\[SH_CLASS\]")


def test_talon_victory_condition_kind_out_of_range_is_refused(tmp_path):
    from wargym.envs.talon import layout
    env = _env("talon_v0")
    _refused(env, tmp_path, "g", (layout.G_VC + layout.VC_KIND,), -1, r"G_VC")


@pytest.mark.parametrize("game", GAMES)
def test_set_state_refuses_a_wrong_dtype_or_shape(game):
    env = _env(game)
    state = env.core.clone_state()
    name, shape, dtype = state.spec.fields[-1]
    wrong = state.clone()
    wrong.arrays[name] = wrong.arrays[name].astype(np.float64 if np.dtype(dtype).kind != "f" else np.int32)
    with pytest.raises(ValueError, match=name):
        env.core.set_state(wrong)
    wrong = state.clone()
    wrong.arrays[name] = np.zeros((1, *shape[:-1], 1) if shape else (1, 1), dtype)
    with pytest.raises(ValueError, match=name):
        env.core.set_state(wrong)


@pytest.mark.parametrize("game", GAMES)
def test_forged_saves_are_refused_or_play_on(game):
    """Every field, boundaries and a random value, from two positions: seconds per game."""
    tally = forge_game(game, seed=1, n_random=1, play_steps=8, starts=(0, 60), limit=48)
    assert tally.tried > 300 and tally.refused > 0
    assert not tally.failures, "\n".join([tally.line(), *tally.failures[:20]])


@pytest.mark.parametrize("game", GAMES)
def test_why_illegal_and_action_name_refuse_what_is_not_an_action(game):
    env = _env(game)
    n = env.core.num_actions
    for bad in (1.5, "3", None, True):
        with pytest.raises(TypeError, match="why_illegal"):
            env.why_illegal(bad)
        with pytest.raises(TypeError, match="action_name"):
            env.action_name(bad)
    for outside in (-1, n, 2 ** 40):
        with pytest.raises(ValueError, match="outside the action space"):
            env.action_name(outside)
        assert "outside the action space" in env.why_illegal(outside)
    assert env.action_name(np.int64(n - 1)) == env.action_name(n - 1)
