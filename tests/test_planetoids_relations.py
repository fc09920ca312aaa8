"""Planetoids' action table (option relations, planetoids_v1; RULES.md §12.4 "Action table"): each
row checked against the attack tables and hex distances of the rulebook in scripted positions
(Seed 004 "Combattimento", "Movimento", "Elementi del gioco")."""
from __future__ import annotations

import numpy as np

from wargym.envs import planetoids_v0, planetoids_v1
from wargym.envs.planetoids import game as pgame
from wargym.envs.planetoids import rules as R
from test_planetoids_rules import CRU, PLANETOIDS, TRA, hexdist, pc, scen  # noqa: F401 (the shared geometry)


def table(env, seat=0):
    obs = env.core.observe(0, seat)[0]
    return pgame.split_obs(env.core.cfg, obs)["action_features"]


def v1(scenario):
    env = planetoids_v1.raw_env()
    env.reset(seed=0, options={"scenario": scenario})
    return env


def test_planetoids_v1_adds_the_action_table_and_v0_keeps_47_channels():
    """An observation change is a new version: planetoids_v1 has the table, planetoids_v0 does not."""
    new, old = planetoids_v1.raw_env(), planetoids_v0.raw_env()
    assert new.metadata["name"] == "planetoids_v1" and old.metadata["name"] == "planetoids_v0"
    assert old.core.obs_shape == (47, 9, 21)
    n_actions = new.core.num_actions
    assert new.core.obs_shape == (47 + -(-n_actions * R.N_AF // 189), 9, 21)
    assert "action_features" not in pgame.split_obs(old.core.cfg, np.zeros(old.core.obs_shape, np.int8))
    assert len(pgame.ACTION_FEATURES) == R.N_AF


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
        seat = int(core.state.g[0, R.G_CURRENT])
        assert np.array_equal(core.obs[0].reshape(-1), core.observe(0, seat)[0].reshape(-1))
        core.step(np.array([rng.choice(np.flatnonzero(core.mask[0]))]))
