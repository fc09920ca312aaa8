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


def _assert_same_obs(cfg, got, want, what):
    if not np.array_equal(got, want):
        parts = game.split_obs(cfg, want)
        sizes = {name: part.size for name, part in parts.items()}
        diff = np.flatnonzero(got != want)
        raise AssertionError(f"{what}: observation differs at {diff[:8]} (part sizes {sizes})")


@pytest.mark.parametrize("options", OPTION_SETS)
def test_fast_observation_equals_full_rewrite_on_random_play(options):
    batch = 20
    core = VecGame(game, batch, options, auto_reset=True)
    core.reset(seed=5)
    streams = new_streams(batch, 5)
    actions = np.zeros(batch, dtype=np.int64)
    cfg = core._k
    size = core._kobs.shape[1]
    n = int(core.cfg.k[R.K_ROWS] * core.cfg.k[R.K_COLS])
    ref = np.zeros(size, dtype=np.int8)
    scratch = np.zeros(size, dtype=np.int8)   # holds whichever observation was written last
    replay = VecGame(game, 1, options)
    n_final = 0
    active_seen = 0
    for step in range(250):
        before = core.clone_state()
        sample_legal(core.mask, streams, actions)
        core.step(actions)
        s = core.state.view
        for b in range(batch):
            cur = int(core.state.g[b, R.G_CURRENT])
            ref[:] = 0
            R.write_obs_ref(s, cfg, b, cur, ref)
            _assert_same_obs(core.cfg, core._kobs[b], ref, f"step {step} game {b} (step output)")
            active_seen += int(ref[R.P_ACTIVE_ARC * n:(R.P_ACTIVE_ARC + 1) * n].any())
            for v in (1 - cur, cur):
                ref[:] = 0
                R.write_obs_ref(s, cfg, b, v, ref)
                R.write_obs(s, cfg, b, v, scratch)
                _assert_same_obs(core.cfg, scratch, ref, f"step {step} game {b} seat {v} (reused buffer)")
            if core.terminated[b]:
                # the final observations of a game auto_reset replaced: replay its last step
                replay.set_state(before.select([b]))
                replay.step(actions[b:b + 1])
                assert replay.terminated[0]
                for v in range(2):
                    ref[:] = 0
                    R.write_obs_ref(replay.state.view, replay._k, 0, v, ref)
                    _assert_same_obs(core.cfg, core._kfinal[b, v], ref, f"step {step} game {b} final seat {v}")
                n_final += 1
    assert active_seen > 0          # states with an active ship (its arc plane) were compared
    assert n_final > 0 or options.get("rounds", 10) > 4


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
    """advance() asks stage_has_choice whether a stage has a decision; on random-play
    states put in each stage, for either player and any firing ship, it must answer
    as the reference built on the per-action reasons."""
    rng = np.random.default_rng(0)
    answers = set()
    for step, core, b in _random_states(options, steps=150, seed=9):
        if (step + b) % 2:
            continue
        st = core.clone_state()
        g = st.g[b]
        S = st.sh.shape[2]
        for stage in (R.ST_AP, R.ST_MOVE, R.ST_FIRE_SHIP, R.ST_FIRE_GROUP, R.ST_FIRE_TARGET):
            g[R.G_STAGE] = stage
            g[R.G_CURRENT] = rng.integers(2)
            g[R.G_SHIP] = rng.integers(S)
            g[R.G_GROUP] = rng.integers(3)
            g[R.G_WLEFT] = rng.integers(3)
            fast = bool(R.stage_has_choice(st.view, core._k, b))
            ref = bool(R.stage_has_choice_ref(st.view, core._k, b))
            assert fast == ref, (step, b, stage, dict(zip(("current", "ship", "group", "wleft"),
                                                          g[[R.G_CURRENT, R.G_SHIP, R.G_GROUP, R.G_WLEFT]])))
            answers.add((stage, fast))
    assert len(answers) == 10     # every stage was seen both with and without a choice
