"""The fast Talon mask and observation against their slow reference statements.

``rules.write_mask`` states the legality conditions once per ship; ``rules.write_mask_ref``
asks ``action_reason`` about every action of the current stage.  On thousands of
random-play states of the option sets the fuzz test uses, both must agree bit for bit,
and the reference must agree with ``action_reason`` on every action (not only the
current stage's families).

``rules.write_obs`` clears only the hex-plane cells the previous observation in its
buffer marked; ``rules.write_obs_ref`` zeroes the buffer and writes everything.  They
must agree on every state, whatever earlier observation the buffer holds.
"""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import mask_equals_reference, obs_equals_reference, stage_has_choice_equals_reference

OPTION_SETS = [{}, {"scenario": "fleet", "budget": 500}, {"edition": 1, "rounds": 4}]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_fast_mask_equals_reference_on_random_play(options):
    mask_equals_reference(options)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_fast_observation_equals_full_rewrite_on_random_play(options):
    obs_equals_reference(options)


def test_observation_buffer_with_impossible_ship_cells_is_rewritten_in_full():
    core = VecGame(game, 1)
    core.reset(seed=2)
    size = core._kobs.shape[1]
    n = int(core.cfg.k[R.K_ROWS] * core.cfg.k[R.K_COLS])
    ref = np.zeros(size, dtype=np.int8)
    R.write_obs_ref(core.state.view, core._k, 0, 0, ref)
    junk = np.random.default_rng(0).integers(-128, 128, size, dtype=np.int8)
    junk[R.N_PLANES * n + R.F_STATUS] = R.SS_ACTIVE     # a first table entry "in play" ...
    junk[R.N_PLANES * n + R.F_ROW] = 100                # ... off the map
    R.write_obs(core.state.view, core._k, 0, 0, junk)
    assert np.array_equal(junk, ref)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_stage_has_choice_equals_reference(options):
    stage_has_choice_equals_reference(options)
