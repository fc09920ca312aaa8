"""union_wars_v2's action table (relations.py; RULES.md "Observation: the action table") against
values computed by hand in scripted positions, the observation fixes of v2, and the version bump
through the registry.

Profiles (data/armylist_*.json): the fante (humanity slot 2) has M 12, FS 2, base 25 mm (radius
1.25 cm) and an assault rifle of range 60 cm, rate 2 (its stand-off: half of 60 = 30 cm); the
guerriero (xeno slots 2-5) FS 2, base 30 mm (radius 1.5 cm).  Mission 1 (STERMINIO): every model
heads for the nearest enemy it knows of.
"""
from __future__ import annotations

import numpy as np
import pytest

import wargym
from wargym.envs import union_wars_v1, union_wars_v2
from wargym.envs.union_wars import game
from wargym.envs.union_wars import layout as L
from wargym.envs.union_wars import relations as R
from helpers.union_wars import A, act, model, move_choice, new_env, new_env_v2, start


def table(env, agent=None):
    obs = env.observe(agent or env.agent_selection)["observation"]
    return game.split_obs(env.core.cfg, obs)["action_features"].astype(int)


def models_part(env, agent):
    return game.split_obs(env.core.cfg, env.observe(agent)["observation"])["models"].astype(int)


FANTE_VS_FAR_GUERRIERO = [model(0, 2, 60, 20), model(1, 2, 60, 80, 270, car=0)]


def test_own_and_enemy_rows_when_choosing_a_model():
    # FUOCO: the fante's rifle reaches the guerriero 60 - 1.25 - 1.5 = 57.25 cm away (range 60)
    env = start(new_env_v2(), FANTE_VS_FAR_GUERRIERO)
    t = table(env)
    own = t[A(env, "A_MODEL") + 2]
    assert own[R.AF_ROW] == 1 and own[R.AF_FAMILY] == R.FAM_MODEL
    assert own[R.AF_SHOTS] == 1 and own[R.AF_RATE] == 2
    assert own[R.AF_LEFT] == 2
    assert own[R.AF_GAIN] == 30             # |60 cm to its goal - stand-off 30|
    assert own[R.AF_CHARGE] == 0            # CARICA reaches M + 12 = 24 cm: nobody
    assert own[R.AF_COST] == 2              # charisma left
    enemy = t[A(env, "A_THEIR") + 2]
    assert enemy[R.AF_FAMILY] == R.FAM_ENEMY
    assert enemy[R.AF_DIST] == 57 and enemy[R.AF_SHOTS] == 1 and enemy[R.AF_LEFT] == 2
    assert t[A(env, "A_PASS"), R.AF_FAMILY] == R.FAM_PASS
    assert not t[A(env, "A_MODEL") + 3].any()          # an empty slot has no row


def test_action_rows_of_the_acting_model():
    env = start(new_env_v2(), FANTE_VS_FAR_GUERRIERO)
    env.step(A(env, "A_MODEL") + 2)
    t = table(env)
    fire = t[A(env, "A_ACT") + L.AK_FIRE0]
    assert fire[R.AF_FAMILY] == R.FAM_ACTION and fire[R.AF_COST] == 1
    assert fire[R.AF_SHOTS] == 1 and fire[R.AF_RATE] == 2
    assert t[A(env, "A_ACT") + L.AK_FIRE1, R.AF_RATE] == 1       # the grenade
    assert t[A(env, "A_ACT") + L.AK_MOVE, R.AF_COST] == 1
    assert t[A(env, "A_ACT") + L.AK_CHARGE, R.AF_CHARGE] == 0
    enemy = t[A(env, "A_THEIR") + 2]
    assert enemy[R.AF_DIST] == 57 and enemy[R.AF_SHOTS] == 1 and enemy[R.AF_CHARGE] == 0


def test_move_rows_measure_the_gain_toward_the_goal_at_its_stand_off():
    # MOVIMENTO: 16 directions x quarters of M 12; direction 4 is +y, toward the guerriero 60 cm away
    env = start(new_env_v2(), FANTE_VS_FAR_GUERRIERO)
    act(env, 2, L.AK_MOVE)
    t = table(env)
    row = t[A(env, "A_MOVE") + move_choice(4, 4)]      # 12 cm nearer: 48 cm from it, 18 off 30
    assert row[R.AF_FAMILY] == R.FAM_MOVE and row[R.AF_DIST] == 18 and row[R.AF_GAIN] == 12
    row = t[A(env, "A_MOVE") + move_choice(4, 2)]      # 6 cm nearer
    assert row[R.AF_DIST] == 24 and row[R.AF_GAIN] == 6
    row = t[A(env, "A_MOVE") + move_choice(12, 4)]     # 12 cm away from it
    assert row[R.AF_DIST] == 42 and row[R.AF_GAIN] == -12
    assert t[A(env, "A_MOVE") + move_choice(0, 0), R.AF_GAIN] == 0   # rotating gains nothing


def test_a_line_of_sight_through_tall_terrain_gives_no_shot():
    # VISTA DEI MODELLI: tall impassable terrain between them blocks sight: no shot on either row
    block = {"kind": "impassable", "height_cm": 8, "vertices": [[40, 35], [80, 35], [80, 40], [40, 40]]}
    env = start(new_env_v2(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], terrain=[block])
    t = table(env)
    assert t[A(env, "A_MODEL") + 2, R.AF_SHOTS] == 0 and t[A(env, "A_MODEL") + 2, R.AF_RATE] == 0
    assert t[A(env, "A_THEIR") + 2, R.AF_SHOTS] == 0
    assert t[A(env, "A_THEIR") + 2, R.AF_DIST] == 27     # 30 - 1.25 - 1.5, the distance still shown


def test_a_hidden_enemy_has_no_row_and_is_not_the_goal():
    # NASCOSTO: a hidden model is not shown; the nearest known enemy is 100, 100
    env = start(new_env_v2(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, flags=["hidden"]),
                               model(1, 3, 100, 100, car=0)])
    t = table(env)
    assert not t[A(env, "A_THEIR") + 2].any()
    assert t[A(env, "A_THEIR") + 3, R.AF_ROW] == 1
    assert t[A(env, "A_MODEL") + 2, R.AF_GAIN] == round(abs(np.hypot(40, 80) - 30))   # 59


def test_the_target_flag_is_on_the_target_side_only():
    # union_wars_v1 set column 18 on both sides' slot 2; v2 on the targeted model only
    models = [model(0, 2, 60, 20), model(1, 2, 60, 50, 270), model(1, 3, 70, 50, 270)]
    for make, both in ((new_env_v2, False), (new_env, True)):
        env = start(make(), models)
        act(env, 2, L.AK_FIRE0, 2)
        assert env.core.state.g[0, L.G_STAGE] == L.ST_REACT and env.agent_selection == "player_1"
        m = models_part(env, "player_1")          # player 1's own slots first
        assert m[2, 18] == 1
        assert m[L.N_SLOTS + 2, 18] == (1 if both else 0)


def test_a_removed_model_reads_removed_not_in_reserve():
    # Colpi Letali: a 6 to hit and an armour roll of 1 remove the guerriero
    for make, present in ((new_env_v2, 3), (new_env, 2)):
        env = start(make(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0), model(1, 3, 100, 100, car=0)],
                    dice=[6, 1, 1])
        act(env, 2, L.AK_FIRE0, 2)
        assert env.core.state.md[0, 1, 2, L.MD_STATUS] == L.REMOVED
        assert models_part(env, "player_0")[L.N_SLOTS + 2, 0] == present


def test_v1_is_v2_without_the_table_through_random_play():
    # the same game and seed: v2's first values are v1's, but for the two columns v2 fixed
    new, old = union_wars_v2.raw_env(), union_wars_v1.raw_env()
    assert new.metadata["name"] == "union_wars_v2" and old.metadata["name"] == "union_wars_v1"
    n_old = old.observation_space("player_0")["observation"].shape[0]
    assert n_old == L.N_OBS + L.N_BANK_OBS
    assert new.observation_space("player_0")["observation"].shape[0] == n_old + 308 * R.N_AF
    new.reset(seed=5)
    old.reset(seed=5)
    rng = np.random.default_rng(5)
    fixed = np.zeros(n_old, bool)
    for row in range(2 * L.N_SLOTS):
        fixed[row * L.N_MF + 0] = fixed[row * L.N_MF + 18] = True
    for _ in range(300):
        if any(new.terminations.values()):
            break
        a_new, a_old = new.observe(new.agent_selection), old.observe(old.agent_selection)
        assert np.array_equal(a_new["action_mask"], a_old["action_mask"])
        assert np.array_equal(a_new["observation"][:n_old][~fixed], a_old["observation"][~fixed])
        a = int(rng.choice(np.flatnonzero(a_new["action_mask"])))
        new.step(a)
        old.step(a)


def test_the_registry_knows_v2_as_current_and_v1_v0_as_earlier():
    from wargym.registration import GAMES, LEGACY_VERSIONS, current_module
    assert current_module("union_wars") == "union_wars_v2" and "union_wars_v2" in GAMES
    assert LEGACY_VERSIONS["union_wars_v1"][2] == {"relations": False}
    assert LEGACY_VERSIONS["union_wars_v0"][2] == {"facing": "travel", "relations": False}
    import gymnasium
    assert wargym and "wargym/UnionWars-v2" in gymnasium.registry


@pytest.mark.parametrize("relations", [True, False])
def test_the_pointer_head_is_chosen_where_the_table_is(relations):
    from wargym.training.networks import has_action_table
    assert has_action_table("union_wars", {"relations": relations}) is relations
