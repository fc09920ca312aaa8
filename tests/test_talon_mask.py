"""The fast Talon mask (and observation) against their slow reference statements.

``rules.write_mask`` states the legality conditions once per ship; ``rules.write_mask_ref``
asks ``action_reason`` about every action of the current stage.  On thousands of
random-play states of the option sets the fuzz test uses, both must agree bit for bit,
and the reference must agree with ``action_reason`` on every action (not only the
current stage's families).
"""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R

OPTION_SETS = [{}, {"scenario": "fleet", "budget": 500}, {"edition": 1, "rounds": 4}]


def _random_states(options, batch=20, steps=250, seed=3):
    """Yield (core, b) for every game after every step of random masked play (games restart when over)."""
    core = VecGame(game, batch, options, auto_reset=True)
    core.reset(seed=seed)
    streams = new_streams(batch, seed)
    actions = np.zeros(batch, dtype=np.int64)
    for step in range(steps):
        sample_legal(core.mask, streams, actions)
        core.step(actions)
        for b in range(batch):
            yield step, core, b


@pytest.mark.parametrize("options", OPTION_SETS)
def test_fast_mask_equals_reference_on_random_play(options):
    ref = None
    stages = set()
    n_states = 0
    for step, core, b in _random_states(options):
        if ref is None:
            ref = np.zeros(core.num_actions, dtype=np.int8)
        s, cfg = core.state.view, core._k
        R.write_mask_ref(s, cfg, b, ref)
        fast = core.mask[b]
        if not np.array_equal(fast, ref):
            diff = np.flatnonzero(fast != ref)
            raise AssertionError(f"step {step} game {b} stage {int(core.state.g[b, R.G_STAGE])}: mask differs at "
                                 + ", ".join(f"{a} ({core.action_name(int(a))}: fast {fast[a]}, ref {ref[a]})"
                                             for a in diff[:5]))
        # an independent recomputation through the same entry point the env uses
        again = np.full(core.num_actions, 7, dtype=np.int8)
        R.write_mask(s, cfg, b, again)
        assert np.array_equal(again, ref)
        if (step * core.num_envs + b) % 23 == 0:
            legal = np.array([R.action_reason(s, cfg, b, a) == R.OK for a in range(core.num_actions)], dtype=np.int8)
            assert np.array_equal(legal, ref), (step, b)
        stages.add(int(core.state.g[b, R.G_STAGE]))
        n_states += 1
    assert n_states >= 5000
    # random play reaches the stages with a choice (a sanity check of the coverage)
    assert {R.ST_AP, R.ST_MOVE, R.ST_FIRE_SHIP, R.ST_FIRE_GROUP, R.ST_FIRE_TARGET, R.ST_POWER} <= stages
