"""The fast Battle Force mask against the rules asked action by action.

``rules.scan_legal`` (through ``settle``) builds the mask from short lists: the decider's
cards, its ships, the attack targets, and only the action families and named actions a
stage can have.  ``rules.action_reason`` states every action's legality on its own.  On
thousands of random-play states of several option sets both must agree on every action.
"""
from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from wargym.envs.battle_force import game
from wargym.envs.battle_force import rules as R
from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame

OPTION_SETS = [
    {},
    {"players": 3, "game": "basic"},
    {"players": 4, "allies": True, "draw_discard": True},
    {"players": 6, "second_attack": True, "traditional": True},
    {"players": 2, "tie_break": "duel", "end_turns": 3, "count_survivors": False},
    {"players": 5, "learning": True, "ship_selection": "draft4"},
    {"ship_selection": "points", "pf_damage": "remaining_pfs", "pbf_damage": "fighters_plus_1d6"},
    {"players": 4, "formation": False, "ship_selection": "draft"},
    {"solitaire": True, "draw_discard": True},
    {"solitaire": True, "game": "basic", "em_ecm": "whole_attack"},
]


@nb.njit(cache=True)
def reference_masks(s, cfg, out):
    """out[b, a] = 1 where action_reason says action a is legal in game b."""
    sv, cv = R.state_view(s), R.config_view(cfg)
    for b in range(out.shape[0]):
        for a in range(out.shape[1]):
            out[b, a] = R.action_reason(sv, cv, b, a) == R.OK


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_fast_mask_equals_action_reason_on_random_play(options):
    batch, steps = 32, 1500
    core = VecGame(game, batch, options, auto_reset=True)
    core.reset(seed=5)
    streams = new_streams(batch, 5)
    actions = np.zeros(batch, dtype=np.int64)
    ref = np.zeros_like(core.mask)
    stages = set()
    for step in range(steps):
        reference_masks(core.state.view, core._k, ref)
        if not np.array_equal(core.mask, ref):
            b, a = (int(x) for x in np.argwhere(core.mask != ref)[0])
            stage = game.STAGE_NAMES[int(core.state.g[b, R.G_STAGE])]
            raise AssertionError(f"step {step} game {b} at stage {stage!r}: action {a} ({core.action_name(a)}) "
                                 f"is {core.mask[b, a]} in the mask, {ref[b, a]} by action_reason")
        stages.update(int(x) for x in core.state.g[:, R.G_STAGE])
        sample_legal(core.mask, streams, actions)
        core.step(actions)
    # random play reaches the decisions of an attack (a check of the coverage, not of the rules)
    for st in (R.ST_ATTACK, R.ST_TARGET, R.ST_ATK_CARDS):
        assert st in stages, game.STAGE_NAMES[st]
    assert len(stages) >= 8, [game.STAGE_NAMES[st] for st in sorted(stages)]
