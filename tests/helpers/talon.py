"""Talon's shared test helpers.

- Scripted-dice shortcuts (from tests/test_talon_rules.py): ``ship``, ``A``, ``act``, ``legal``,
  ``sh``, ``g``, ``stage`` and ``drive``, used by the rule tests of every section.
- Terrain scenarios and hex geometry (from tests/test_talon_terrain.py): ``scenario`` (with
  terrain tiles), ``tile``, ``cell``, ``rc``, ``step_hex``, ``step_hex_static``, ``drive_long``
  and ``view``.
- Whole-game checks run on every ready scenario: ``play_policies`` and ``scripted_vs_random``
  (from tests/test_talon_bot.py), ``check_invariants`` (tests/test_talon_env.py), ``check_terrain``
  and ``fuzz_stages`` (tests/test_talon_advanced_play.py), and the fast-against-reference checks
  ``mask_equals_reference``, ``obs_equals_reference`` and ``stage_has_choice_equals_reference``
  with ``random_states`` and ``assert_same_obs`` (tests/test_talon_mask.py).
"""
from __future__ import annotations

import numpy as np
from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame
from wargym.envs.talon import bot, game
from wargym.envs.talon import rules as R


# -- scripted-dice shortcuts ----------------------------------------------------------------
def ship(cls, name, hexrc, facing, **kw):
    return {"class": cls, "name": name, "hex": list(hexrc), "facing": facing, **kw}


def A(core, family, *args):
    return game.action_index(core.cfg, family, *args)


def act(core, family, *args):
    a = A(core, family, *args)
    reason = core.why_illegal(0, a)
    assert reason is None, reason
    core.step_one(0, a)


def legal(core, family, *args):
    return core.why_illegal(0, A(core, family, *args)) is None


def sh(core, p, k, col):
    return int(core.state.sh[0, p, k, col])


def g(core, col):
    return int(core.state.g[0, col])


def stage(core):
    return g(core, R.G_STAGE)


def drive(core, until, limit=500):
    """Play passively (pass AP, go straight, never fire, keep speed) until ``until(core)``."""
    for _ in range(limit):
        if until(core) or g(core, R.G_DONE):
            return
        st = stage(core)
        mask = core.mask[0]
        if st == R.ST_MOVE:
            p = g(core, R.G_DECIDER)
            for k in range(core.state.sh.shape[2]):
                a = A(core, "MOVE", k, R.M_STRAIGHT)
                if mask[a] and sh(core, p, k, R.SH_STATUS) == R.SS_ACTIVE and R.must_move(
                        core.state.sh, core.cfg.struct, 0, p, k, g(core, R.G_IMPULSE)):
                    core.step_one(0, a)
                    break
            else:
                core.step_one(0, A(core, "DONE"))
            continue
        if st == R.ST_POWER:
            core.step_one(0, A(core, "SPEED", 1))
            continue
        if st == R.ST_INIT:
            core.step_one(0, A(core, "INIT", 0))
            continue
        if mask[A(core, "DONE")]:
            core.step_one(0, A(core, "DONE"))
            continue
        core.step_one(0, int(np.flatnonzero(mask)[0]))
    raise AssertionError("drive: condition not reached")


# -- terrain scenarios and hex geometry -----------------------------------------------------
def scenario(p0, p1, terrain=(), **kw):
    return {"players": [{"ships": p0}, {"ships": p1}], "terrain": list(terrain), **kw}


def tile(kind, hexrc):
    return {"kind": kind, "hex": list(hexrc)}


def cell(core, r, c):
    return core.cfg.grid.cell(r, c)


def rc(core, cell_):
    return core.cfg.grid.row_col(cell_)


def step_hex(core, r, c, direction):
    """The hex next to (r, c) in direction 0..5 = E, NE, NW, W, SW, SE."""
    cols, rows = int(core.cfg.k[R.K_COLS]), int(core.cfg.k[R.K_ROWS])
    q, rr = R.to_axial(cell(core, r, c), cols)
    return rc(core, R.from_axial(q + int(R.DQ[direction]), rr + int(R.DR[direction]), rows, cols))


def step_hex_static(r, c, direction):
    """step_hex on the default 18 x 16 map, for building scenarios."""
    cfg = game.build_config(game.parse_options({}))
    q, rr = R.to_axial(cfg.grid.cell(r, c), 16)
    return cfg.grid.row_col(R.from_axial(q + int(R.DQ[direction]), rr + int(R.DR[direction]), 18, 16))


def drive_long(core, until, limit=800):
    """``drive`` with room for 800 decisions, as the terrain and retreat tests play."""
    drive(core, until, limit)


def view(core):
    return core.state.view, core.cfg.struct


# -- whole games: the bots, the fuzz invariants -------------------------------------------
def play_policies(policies_by_seat, n, seed, options=None):
    """Play ``n`` games to the end with ``play_games``; returns the core and the results."""
    core = VecGame(game, n, options)
    core.reset(seed)
    policies = np.asarray(policies_by_seat, dtype=np.int64).reshape(n, 2)
    results = np.zeros((n, 2), dtype=np.float64)
    states, cfgs, outs = core.kernel_args()
    bot.play_games(states, cfgs, policies, outs, results)
    return core, results


def scripted_vs_random(n=20, seed=7, options=None):
    seat = np.arange(n) % 2  # the scripted captain sits in seat 0 in even games, seat 1 in odd ones
    policies = np.full((n, 2), bot.RANDOM, dtype=np.int64)
    policies[np.arange(n), seat] = bot.SCRIPTED
    core, results = play_policies(policies, n, seed, options)
    winner = core.state.g[:, R.G_WINNER]
    wins = int((winner == seat).sum())
    losses = int((winner == 1 - seat).sum())
    return wins, n - wins - losses, losses, core, results


def check_invariants(core, b):
    cfg = core.cfg
    g, sh = core.state.g[b], core.state.sh[b]
    n_cells = int(cfg.k[R.K_ROWS] * cfg.k[R.K_COLS])
    sp = [0, 0]
    for p in range(2):
        cells = []
        for k in range(sh.shape[1]):
            c = sh[p, k, R.SH_CLASS]
            st = sh[p, k, R.SH_STATUS]
            if c < 0:
                assert st == R.SS_EMPTY
                continue
            if st == R.SS_DESTROYED:
                sp[1 - p] += cfg.classes[c]["points"]
            if st != R.SS_ACTIVE:
                continue
            cells.append(sh[p, k, R.SH_CELL])
            assert 0 <= sh[p, k, R.SH_CELL] < n_cells
            for a in range(4):
                assert 0 <= sh[p, k, R.SH_SHIELD + a] <= cfg.cls[c, R.CL_SHIELD + a]
            assert 0 <= sh[p, k, R.SH_HULL_HITS] < cfg.cls[c, R.CL_N_HULL]
            assert (sh[p, k, R.SH_REINF:R.SH_REINF + 4] > 0).sum() <= 2          # 6.2.2 (2nd ed.)
            if sh[p, k, R.SH_C_SHIELDS]:
                assert (sh[p, k, R.SH_REINF:R.SH_REINF + 4] == 0).all()
            for gi in range(3):
                assert 0 <= sh[p, k, R.SH_RED + gi] <= cfg.grp[c, gi, R.GR_RED]
                assert 0 <= sh[p, k, R.SH_YEL + gi] <= cfg.grp[c, gi, R.GR_YELLOW]
            assert 0 <= sh[p, k, R.SH_AB_LEFT] <= cfg.cls[c, R.CL_AFTERBURNERS]
            assert 0 <= sh[p, k, R.SH_CURVE] < cfg.cls[c, R.CL_N_CURVES]
            assert sh[p, k, R.SH_POWER] >= 0 or g[R.G_IMPULSE] == 6
    assert [int(g[R.G_SP0]), int(g[R.G_SP1])] == sp
    if not g[R.G_DONE]:
        assert core.mask[b].any()
        assert g[R.G_DECIDER] in (0, 1) and core.current_player[b] == g[R.G_DECIDER]


def check_terrain(core, b):
    """No ship in play stands on a planet, black hole or worm hole (17.2.1, 18.1, 19)."""
    sh, tr, g = core.state.sh[b], core.state.tr[b], core.state.g[b]
    barred = {int(tr[i, R.TR_CELL]) for i in range(g[R.G_TILES])
              if tr[i, R.TR_KIND] in (R.TK_PLANET, R.TK_BLACK_HOLE, R.TK_WORM_HOLE)}
    for p in range(2):
        for k in range(sh.shape[1]):
            if sh[p, k, R.SH_STATUS] == R.SS_ACTIVE:
                assert int(sh[p, k, R.SH_CELL]) not in barred


def fuzz_stages(name, terrain=True) -> set:
    """Random play of 16 games of ready scenario ``name`` to the end, every invariant checked after
    every step (and the terrain's, with ``terrain``); the stages the games went through."""
    core = VecGame(game, 16, {"scenario": name})
    core.reset(seed=13)
    streams = new_streams(16, 13)
    actions = np.zeros(16, dtype=np.int64)
    stages = set()
    for _ in range(3000):
        live = ~core.terminated
        if not live.any():
            break
        sample_legal(core.mask, streams, actions)
        core.step(actions, active=live)
        stages |= set(core.state.g[:, R.G_STAGE].tolist())
        for b in range(16):
            check_invariants(core, b)
            if terrain:
                check_terrain(core, b)
    assert core.terminated.all()
    return stages


# -- the fast mask, observation and stage choice against their references --------------------
def random_states(options, batch=20, steps=250, seed=3):
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


def mask_equals_reference(options):
    """On random-play states of ``options``, the fast mask (``rules.write_mask``) equals the
    reference (``rules.write_mask_ref``) bit for bit, and the reference agrees with
    ``action_reason``."""
    ref = None
    stages = set()
    n_states = 0
    for step, core, b in random_states(options):
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


def assert_same_obs(cfg, got, want, what):
    if not np.array_equal(got, want):
        parts = game.split_obs(cfg, want)
        sizes = {name: part.size for name, part in parts.items()}
        diff = np.flatnonzero(got != want)
        raise AssertionError(f"{what}: observation differs at {diff[:8]} (part sizes {sizes})")


def obs_equals_reference(options):
    """On random-play states of ``options``, the fast observation (``rules.write_obs``, in a
    reused buffer) equals the full rewrite (``rules.write_obs_ref``) for both seats, and so do
    the final observations of the games that ended."""
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
            cur = int(core.state.g[b, R.G_DECIDER])
            ref[:] = 0
            R.write_obs_ref(s, cfg, b, cur, ref)
            assert_same_obs(core.cfg, core._kobs[b], ref, f"step {step} game {b} (step output)")
            active_seen += int(ref[R.P_ACTIVE_ARC * n:(R.P_ACTIVE_ARC + 1) * n].any())
            for v in (1 - cur, cur):
                ref[:] = 0
                R.write_obs_ref(s, cfg, b, v, ref)
                R.write_obs(s, cfg, b, v, scratch)
                assert_same_obs(core.cfg, scratch, ref, f"step {step} game {b} seat {v} (reused buffer)")
            if core.terminated[b]:
                # the final observations of a game auto_reset replaced: replay its last step
                replay.set_state(before.select([b]))
                replay.step(actions[b:b + 1])
                assert replay.terminated[0]
                for v in range(2):
                    ref[:] = 0
                    R.write_obs_ref(replay.state.view, replay._k, 0, v, ref)
                    assert_same_obs(core.cfg, core._kfinal[b, v], ref, f"step {step} game {b} final seat {v}")
                n_final += 1
    assert active_seen > 0          # states with an active ship (its arc plane) were compared
    assert n_final > 0 or options.get("rounds", 10) > 4


def stage_has_choice_equals_reference(options):
    """advance() asks stage_has_choice whether a stage has a decision; on random-play
    states put in each stage, for either player and any firing ship, it must answer
    as the reference built on the per-action reasons."""
    rng = np.random.default_rng(0)
    answers = set()
    for step, core, b in random_states(options, steps=150, seed=9):
        if (step + b) % 2:
            continue
        st = core.clone_state()
        g = st.g[b]
        S = st.sh.shape[2]
        for stage in (R.ST_AP, R.ST_MOVE, R.ST_FIRE_SHIP, R.ST_FIRE_GROUP, R.ST_FIRE_TARGET):
            g[R.G_STAGE] = stage
            g[R.G_DECIDER] = rng.integers(2)
            g[R.G_SHIP] = rng.integers(S)
            g[R.G_GROUP] = rng.integers(3)
            g[R.G_WLEFT] = rng.integers(3)
            fast = bool(R.stage_has_choice(st.view, core._k, b))
            ref = bool(R.stage_has_choice_ref(st.view, core._k, b))
            assert fast == ref, (step, b, stage, dict(zip(("current", "ship", "group", "wleft"),
                                                          g[[R.G_DECIDER, R.G_SHIP, R.G_GROUP, R.G_WLEFT]])))
            answers.add((stage, fast))
    assert len(answers) == 10     # every stage was seen both with and without a choice
