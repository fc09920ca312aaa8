"""Talon's ready terrain scenarios (data/scenarios.json: Talon 17-19, 11, 3.2) under random
and scripted play: the fast mask and observation against their references, the fuzz
invariants, and the scripted captain (legal, terrain-aware, stronger than random)."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame
from wargym.envs.talon import bot, game
from wargym.envs.talon import rules as R
from helpers.talon import fuzz_stages, mask_equals_reference, obs_equals_reference, scripted_vs_random

SCENARIOS = ("planets", "asteroids_and_nebula", "black_hole", "worm_hole_escape")


@pytest.mark.parametrize("name", SCENARIOS)
def test_ready_scenarios_load_with_their_rules(name):
    core = VecGame(game, 1, {"scenario": name})
    core.reset(seed=0)
    assert core.cfg.k[R.K_TERRAIN] == 1 and core.state.g[0, R.G_TILES] == len(game.READY_SCENARIOS[name]["terrain"])
    assert core.cfg.k[R.K_RETREAT] == (name == "worm_hole_escape")
    assert len(game.plane_names(core.cfg)) == game.board_shape(core.cfg)[0] == 21


@pytest.mark.parametrize("name", SCENARIOS)
def test_fast_mask_equals_reference_in_terrain_scenarios(name):
    mask_equals_reference({"scenario": name})


@pytest.mark.parametrize("name", ("black_hole", "worm_hole_escape"))
def test_fast_observation_equals_reference_in_terrain_scenarios(name):
    obs_equals_reference({"scenario": name})


@pytest.mark.parametrize("name", SCENARIOS)
def test_random_play_fuzz_in_terrain_scenarios(name):
    stages = fuzz_stages(name)
    if name == "black_hole":
        assert R.ST_PULL in stages          # random play meets a pull along a hexside (18.2)
    if name == "worm_hole_escape":
        assert R.ST_RETREAT in stages


def _deadly(core, b, cell):
    return cell >= 0 and R.tile_at(core.state.view, b, cell) in (R.TK_PLANET, R.TK_BLACK_HOLE)


@pytest.mark.parametrize("name", SCENARIOS)
def test_scripted_captain_is_legal_and_never_flies_into_a_planet_or_black_hole(name):
    """Scripted against random, one decision at a time: each scripted action is legal, and a
    move into a planet or black hole (17.2.1, 18.1) is chosen only if every legal move is one."""
    n = 6
    core = VecGame(game, n, {"scenario": name})
    core.reset(seed=4)
    states, cfgs, _ = core.kernel_args()
    scripted = np.zeros(n, dtype=np.int64)
    randoms = np.zeros(n, dtype=np.int64)
    seat = np.arange(n) % 2
    checked = 0
    for _ in range(20_000):
        done = core.state.g[:, R.G_DONE].astype(bool)
        if done.all():
            break
        bot.policy_actions(states, cfgs, core.mask, bot.SCRIPTED, scripted)
        bot.policy_actions(states, cfgs, core.mask, bot.RANDOM, randoms)
        cur = core.current_player.astype(np.int64)
        use = (cur == seat) & ~done
        for b in np.flatnonzero(use):
            a = int(scripted[b])
            assert core.mask[b, a], (b, a, core.action_name(a))
            lo = int(core.cfg.k[R.K_A_MOVE])
            if lo <= a < int(core.cfg.k[R.K_A_FIRE_SHIP]):
                k, m = divmod(a - lo, R.N_MOVES)
                p = int(cur[b])
                cell, f = int(core.state.sh[b, p, k, R.SH_CELL]), int(core.state.sh[b, p, k, R.SH_FACING])
                if _deadly(core, b, bot._destination(core.cfg.struct, cell, f, m)[0]):
                    others = [mm for mm in range(R.N_MOVES) if core.mask[b, lo + k * R.N_MOVES + mm]
                              and not _deadly(core, b, bot._destination(core.cfg.struct, cell, f, mm)[0])]
                    assert not others, (name, b, core.action_name(a))
                checked += 1
        actions = np.where(use, scripted, randoms)
        core.step(actions, active=~done)
    assert core.state.g[:, R.G_DONE].all() and checked > 0


@pytest.mark.parametrize("name", SCENARIOS)
def test_scripted_captain_beats_random_in_terrain_scenarios(name):
    wins, draws, losses, _, _ = scripted_vs_random(n=20, seed=7, options={"scenario": name})
    assert wins >= 14 and losses <= 3, (name, wins, draws, losses)


def test_retreat_stage_has_choice_equals_reference():
    """advance() asks stage_has_choice whether the retreat phase has a decision (Talon 11);
    on random-play states of the worm hole scenario put in that stage for either player, it
    answers as the reference built on the per-action reasons."""
    core = VecGame(game, 16, {"scenario": "worm_hole_escape"}, auto_reset=True)
    core.reset(seed=21)
    streams = new_streams(16, 21)
    actions = np.zeros(16, dtype=np.int64)
    answers = set()
    for _ in range(300):
        sample_legal(core.mask, streams, actions)
        core.step(actions)
        st = core.clone_state()
        for b in range(16):
            st.g[b, R.G_STAGE] = R.ST_RETREAT
            st.g[b, R.G_DECIDER] = b % 2
            fast = bool(R.stage_has_choice(st.view, core._k, b))
            assert fast == bool(R.stage_has_choice_ref(st.view, core._k, b))
            answers.add(fast)
    assert answers == {True, False}
