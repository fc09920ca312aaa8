"""Planetoids' action table (option relations; planetoids_v1 and v2; RULES.md §12.4 "Action table"):
each row checked against the attack tables and hex distances of the rulebook in scripted positions
(Seed 004 "Combattimento", "Movimento", "Elementi del gioco")."""
from __future__ import annotations

import numpy as np

from wargym.envs import planetoids_v0, planetoids_v1, planetoids_v2
from wargym.envs.planetoids import game as pgame
from wargym.envs.planetoids import rules as R
from helpers.planetoids import CRU, PLANETOIDS, TRA, hexdist, pc, scen


def table(env, seat=0):
    obs = env.core.observe(0, seat)[0]
    return pgame.split_obs(env.core.cfg, obs)["action_features"]


def v1(scenario):
    env = planetoids_v1.raw_env()
    env.reset(seed=0, options={"scenario": scenario})
    return env


def v2(scenario):
    env = planetoids_v2.raw_env()
    env.reset(seed=0, options={"scenario": scenario})
    return env


def test_planetoids_v1_adds_the_action_table_and_v0_keeps_47_channels():
    """An observation change is a new version: planetoids_v1 has the table, planetoids_v0 does not."""
    new, old = planetoids_v1.raw_env(), planetoids_v0.raw_env()
    assert new.metadata["name"] == "planetoids_v1" and old.metadata["name"] == "planetoids_v0"
    assert old.core.obs_shape == (47, 9, 21)
    n_actions = new.core.num_actions
    assert new.core.obs_shape == (47 + -(-n_actions * R.N_AF_V1 // 189), 9, 21)
    assert "action_features" not in pgame.split_obs(old.core.cfg, np.zeros(old.core.obs_shape, np.int8))
    assert len(pgame.ACTION_FEATURES) == R.N_AF


def test_planetoids_v2_widens_the_rows_and_keeps_v1s_values_first():
    """planetoids_v2 (the default, relations=2) has N_AF values a row; planetoids_v1's table is its first
    8 columns, value for value, through random play (agents trained on v1 see what they were trained on)."""
    new, old = planetoids_v2.raw_env(), planetoids_v1.raw_env()
    assert new.metadata["name"] == "planetoids_v2" and new.core.options["relations"] == 2
    assert old.core.options["relations"] == 1
    n_actions = new.core.num_actions
    assert new.core.obs_shape == (47 + -(-n_actions * R.N_AF // 189), 9, 21)
    assert old.core.obs_shape == (47 + -(-n_actions * R.N_AF_V1 // 189), 9, 21)
    new.reset(seed=3)
    old.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(200):
        if new.core.state.g[0, R.G_DONE]:
            break
        seat = int(new.core.state.g[0, R.G_DECIDER])
        wide = pgame.split_obs(new.core.cfg, new.core.observe(0, seat)[0])
        narrow = pgame.split_obs(old.core.cfg, old.core.observe(0, seat)[0])
        assert np.array_equal(wide["action_features"][:, :R.N_AF_V1], narrow["action_features"])
        assert np.array_equal(wide["planes"], narrow["planes"])
        a = rng.choice(np.flatnonzero(new.core.mask[0]))
        new.core.step(np.array([a]))
        old.core.step(np.array([a]))


def test_v2_rows_measure_the_gain_toward_the_open_planetoid_and_the_hunted_transport():
    """planetoids_v2: a transport's open planetoid is the nearest with no fixed base that no other own
    transport stands on (seed 004 "Colonizzazione": one transport colonises a planetoid); each move
    and pivot row gives the hexes from the bow's next hex to it and what the step gains, and the
    gain toward the enemy transport it would hunt."""
    here = (4, 8)
    by_distance = sorted(PLANETOIDS, key=lambda p: hexdist(here, p))
    held = by_distance[0]
    env = v2(scen([pc(0, "transport", here, "E"), pc(0, "transport", held, "E"),
                   pc(1, "transport", [4, 17], "W")]))
    env.step(env.core.cfg.k[R.K_A_PIECE] + TRA)
    rows = table(env)
    k = env.core.cfg.k
    goal = min((p for p in PLANETOIDS if p != held), key=lambda p: hexdist(here, p))
    east = (4, 9)
    move, pivot, stay = rows[int(k[R.K_A_MOVE])], rows[int(k[R.K_A_FACE])], rows[int(k[R.K_A_END_ACT])]
    assert move[R.AF_FAMILY] == R.F_MOVE and pivot[R.AF_FAMILY] == R.F_PIVOT and stay[R.AF_FAMILY] == R.F_END
    assert move[R.AF_ACTIVE_KIND] == R.TRANSPORT + 1
    assert stay[R.AF_OPEN] == hexdist(here, goal) and stay[R.AF_OPEN_GAIN] == 0
    assert move[R.AF_OPEN] == hexdist(east, goal)
    assert move[R.AF_OPEN_GAIN] == pivot[R.AF_OPEN_GAIN] == hexdist(here, goal) - hexdist(east, goal)
    assert move[R.AF_HUNT_GAIN] == hexdist(here, (4, 17)) - hexdist(east, (4, 17)) == 1
    # v1's column of the nearest free planetoid still counts the held one
    assert stay[R.AF_PLANETOID] == hexdist(here, held)


def test_target_row_gives_the_faces_that_hit():
    """Seed 004 "Combattimento": a cruiser hits a cruiser at range 1 on 3+ (4 faces of 6); its own
    damage raises the number it needs (3 + 1: 3 faces)."""
    for damage, faces in ((0, 4), (1, 3)):
        env = v1(scen([pc(0, "cruiser", [4, 2], "E", damage=damage), pc(1, "cruiser", [4, 4], "E")]))
        env.step(env.core.cfg.k[R.K_A_PIECE] + CRU)
        row = table(env)[int(env.core.cfg.k[R.K_A_TARGET]) + CRU]
        assert row[R.AF_KNOWN] == 1 and row[R.AF_HIT] == faces
        assert row[R.AF_KIND] == R.CRUISER + 1 and row[R.AF_DAMAGE] == 0


def test_move_rows_measure_from_where_the_bow_goes():
    """Seed 004 "Movimento": a move takes the bow one hex; its row gives the hexes from there to the
    nearest planetoid still free and to the nearest enemy transport."""
    env = v1(scen([pc(0, "transport", [4, 8], "E"), pc(1, "transport", [4, 17], "W")]))
    env.step(env.core.cfg.k[R.K_A_PIECE] + TRA)
    rows = table(env)
    move = int(env.core.cfg.k[R.K_A_MOVE])
    east = rows[move + 0]
    assert east[R.AF_KNOWN] == 1
    assert east[R.AF_ENEMY_TRANSPORT] == hexdist((4, 9), (4, 17)) == 8
    nearest = min(hexdist((4, 9), p) for p in PLANETOIDS)
    assert east[R.AF_PLANETOID] == nearest
    stay = rows[int(env.core.cfg.k[R.K_A_END_ACT])]
    assert stay[R.AF_PLANETOID] == min(hexdist((4, 8), p) for p in PLANETOIDS)


def test_fast_observation_equals_a_fresh_one_through_random_play():
    """The table is rewritten in full at every step: the step's buffers equal a fresh observation."""
    env = planetoids_v1.raw_env()
    env.reset(seed=1)
    core = env.core
    rng = np.random.default_rng(0)
    for _ in range(300):
        if core.state.g[0, R.G_DONE]:
            break
        seat = int(core.state.g[0, R.G_DECIDER])
        assert np.array_equal(core.obs[0].reshape(-1), core.observe(0, seat)[0].reshape(-1))
        core.step(np.array([rng.choice(np.flatnonzero(core.mask[0]))]))
