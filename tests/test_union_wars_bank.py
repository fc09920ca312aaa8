"""UnionWars ESPLORAZIONE bank spent by its owner (option exploration_bank="ask", the default):
"I punti in eccesso rispetto al tiro avversario, possono essere usati come bonus o malus per un
qualunque tiro (anche avversario), durante la partita."  Scripted dice, exact outcomes.

Armies are the default ones (tests/helpers/union_wars.py): humanity 0 capitano, 1 psionico,
2 fante; xeno 2 guerriero (PSI 7)."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame
from wargym.envs.union_wars import game, rules
from wargym.envs.union_wars import layout as L
from helpers.union_wars import (A, act, asked_about_a_hit, charged_to_a_won_melee, g, md, model, move_choice, new_env, sergente_env,
                                throw_at_point)
from helpers.union_wars import start as start_scenario


def start(env, models, dice=(), active=0, bank=(0, 0), **kw):
    """helpers.union_wars' set-up with both sides' ESPLORAZIONE banks."""
    return start_scenario(env, models, dice, active, bank=list(bank), **kw)


def bank_obs(env):
    """The pending roll as the decider sees it: (asked, own roll, test, slot, points, margin)."""
    obs = env.observe(env.agent_selection)["observation"]
    return tuple(int(v) for v in game.split_obs(env.core.cfg, obs)["bank"])


SPEND, KEEP = "A_CHOICE", "A_PASS"

# the guerriero (xeno slot 2, PSI 7, its side's commander: it repeats a failed test) is hit and
# wounded by the fante's fire (4 hits, 3 misses, armour 2 fails); ending the turn brings the
# control phase's suppression test (IL TEST DI SOPPRESSIONE)
SHOT = [4, 3, 2]


def fire(env):
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_ACT") + L.AK_FIRE0)
    env.step(A(env, "A_THEIR") + 2)


def wounded_guerriero(dice, bank):
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=SHOT + dice, bank=bank)
    fire(env)
    while g(env, L.G_STAGE) == L.ST_BANK:
        env.step(A(env, KEEP))          # the to-hit and armour rolls the bank could turn: kept
    assert md(env, 1, 2, L.MD_WOUNDS) == 1 and g(env, L.G_STAGE) == L.ST_SELECT
    env.step(A(env, "A_PASS"))          # end of player 0's tactical phase: melee, control phase
    return env


def test_to_hit_and_armour_rolls_are_asked_too():
    # FUOCO, 2 dice vs ADT 4: the 4 hits by 0 (player 1 may spend 1 as a malus), the 3 misses by 1
    # (player 0 has no bank); the guerriero's armour 2 vs 4 fails by 2 (its owner may spend 2)
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=SHOT, bank=(0, 5))
    fire(env)
    assert g(env, L.G_STAGE) == L.ST_BANK and env.agent_selection == "player_1"
    assert bank_obs(env) == (1, -1, L.TK_HIT, 2, 1, 0)
    env.step(A(env, KEEP))
    assert bank_obs(env) == (1, 1, L.TK_ARMOUR, 2, 2, -2)
    env.step(A(env, SPEND))
    assert (md(env, 1, 2, L.MD_WOUNDS), md(env, 1, 2, L.MD_MORALE), g(env, L.G_BANK1)) == (0, 1, 3)
    assert (g(env, L.G_STAGE), env.agent_selection) == (L.ST_SELECT, "player_0")
    # the malus on the hit: no hit, no morale marker, no armour die rolled
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=SHOT, bank=(0, 5))
    fire(env)
    env.step(A(env, SPEND))
    assert (md(env, 1, 2, L.MD_WOUNDS), md(env, 1, 2, L.MD_MORALE), g(env, L.G_BANK1)) == (0, 0, 4)
    assert int(env.core.state.dice[0, 1]) == 2 and g(env, L.G_STAGE) == L.ST_SELECT


def test_second_question_of_a_step_shows_the_bank_left():
    # two hits (4, 4 vs ADT 4): player 1 spends 1 on the first; asked on the second, it sees 4 left
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[4, 4, 2], bank=(0, 5))
    fire(env)
    env.step(A(env, SPEND))
    assert bank_obs(env) == (1, -1, L.TK_HIT, 2, 1, 0)
    glob = game.split_obs(env.core.cfg, env.observe("player_1")["observation"])["globals"]
    assert (int(glob[11]), int(glob[12])) == (4, 0)
    env.step(A(env, SPEND))
    assert (md(env, 1, 2, L.MD_MORALE), g(env, L.G_BANK1), g(env, L.G_STAGE)) == (0, 3, L.ST_SELECT)


def test_own_failed_test_owner_spends_the_shortfall_and_the_test_passes():
    # ESPLORAZIONE: 1 + 2 = 3 vs PSI 7 fails by 4; the owner (the non-active player 1) has 5
    env = wounded_guerriero([1, 2], bank=(0, 5))
    assert g(env, L.G_STAGE) == L.ST_BANK and env.agent_selection == "player_1"
    assert bank_obs(env) == (1, 1, L.TK_SUPPRESSION, 2, 4, -4)
    assert set(env.legal_actions()) == {A(env, SPEND), A(env, KEEP)}
    text = new_env(render_mode="ansi")
    text.reset(seed=0)
    text.set_state(env.clone_state())
    assert "p1 #2's suppression test failed by 4; player 1 may spend 4 bank points" in text.render()
    env.step(A(env, SPEND))
    # the whole resolution went on: not suppressed, bank 5 - 4, player 1's turn
    assert not md(env, 1, 2, L.MD_FLAGS) & L.F_SUPPRESSED
    assert g(env, L.G_BANK1) == 1 and g(env, L.G_BANK0) == 0
    assert (g(env, L.G_STAGE), g(env, L.G_ACTIVE), g(env, L.G_TURN)) == (L.ST_SELECT, 1, 1)
    assert md(env, 1, 2, L.MD_WOUNDS) == 1
    assert int(env.core.state.dice[0, 1]) == 5          # the replay read the same five dice, no more


def test_owner_keeps_and_the_test_fails_each_roll_asked():
    # keep 1 + 2 (short 4); the commander's repeat 2 + 2 is short 3, asked again; kept: suppressed
    env = wounded_guerriero([1, 2, 2, 2], bank=(0, 5))
    env.step(A(env, KEEP))
    assert g(env, L.G_STAGE) == L.ST_BANK and bank_obs(env) == (1, 1, L.TK_SUPPRESSION, 2, 3, -3)
    env.step(A(env, KEEP))
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_SUPPRESSED
    assert g(env, L.G_BANK1) == 5
    assert (g(env, L.G_STAGE), g(env, L.G_ACTIVE)) == (L.ST_SELECT, 1)
    assert int(env.core.state.dice[0, 1]) == 7


def test_not_asked_when_the_bank_is_too_small_then_asked_when_it_is_enough():
    # bank 3: short 4 is not asked (the commander repeats), short 3 is
    env = wounded_guerriero([1, 2, 2, 2], bank=(0, 3))
    assert g(env, L.G_STAGE) == L.ST_BANK and bank_obs(env)[4:] == (3, -3)
    env.step(A(env, SPEND))
    assert not md(env, 1, 2, L.MD_FLAGS) & L.F_SUPPRESSED and g(env, L.G_BANK1) == 0


def test_natural_two_and_twelve_are_never_asked():
    # TEST: a natural 2 fails and a natural 12 passes whatever the bank (either side's)
    env = wounded_guerriero([1, 1, 6, 6], bank=(0, 10))
    assert (g(env, L.G_STAGE), g(env, L.G_ACTIVE)) == (L.ST_SELECT, 1)
    assert not md(env, 1, 2, L.MD_FLAGS) & L.F_SUPPRESSED and g(env, L.G_BANK1) == 10
    env = wounded_guerriero([1, 1, 6, 6], bank=(10, 0))
    assert (g(env, L.G_STAGE), g(env, L.G_ACTIVE)) == (L.ST_SELECT, 1) and g(env, L.G_BANK0) == 10


def test_opponent_passed_test_turned_into_a_failure_by_the_active_player():
    # 4 + 3 = 7 passes PSI 7 by 0: player 0 (active) spends 1 as a malus and it fails; the
    # commander repeats the failed test (IL COMANDANTE): 2 + 3 fails too (its side has no bank)
    env = wounded_guerriero([4, 3, 2, 3], bank=(1, 0))
    assert g(env, L.G_STAGE) == L.ST_BANK and env.agent_selection == "player_0"
    assert bank_obs(env) == (1, -1, L.TK_SUPPRESSION, 2, 1, 0)
    env.step(A(env, SPEND))
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_SUPPRESSED and g(env, L.G_BANK0) == 0
    assert (g(env, L.G_STAGE), g(env, L.G_ACTIVE)) == (L.ST_SELECT, 1)


def controllo(bank, dice=(3, 3)):
    # IL TEST DI ABILITA' of the psionico (PSI 5, +1 ESPERTO mente): 3 + 3 + 1 = 7 passes by 2;
    # the capitano is the commander, so the psionico does not repeat; the guerriero has no
    # charisma: no reaction, no mental duel
    env = start(new_env(), [model(0, 0, 20, 10), model(0, 1, 60, 20), model(1, 2, 60, 40, 270, car=0)],
                dice=list(dice), bank=bank)
    env.step(A(env, "A_MODEL") + 1)
    env.step(A(env, "A_ACT") + L.AK_CONTROLLO)
    env.step(A(env, "A_THEIR") + 2)
    return env


def test_non_active_player_makes_an_enemy_ability_test_fail_mid_action():
    env = controllo(bank=(0, 3))
    assert g(env, L.G_STAGE) == L.ST_BANK and env.agent_selection == "player_1"
    assert bank_obs(env) == (1, -1, L.TK_ABILITY, 1, 3, 2)
    env.step(A(env, SPEND))
    assert g(env, L.G_CONTROLLED) == -1 and g(env, L.G_BANK1) == 0
    assert (g(env, L.G_STAGE), env.agent_selection) == (L.ST_SELECT, "player_0")
    kept = controllo(bank=(0, 3))
    kept.step(A(kept, KEEP))
    assert g(kept, L.G_CONTROLLED) == 2 and g(kept, L.G_BANK1) == 3
    unasked = controllo(bank=(0, 0))
    # the declaration's charisma is paid once, not once per replay
    assert md(env, 0, 1, L.MD_CAR) == md(kept, 0, 1, L.MD_CAR) == md(unasked, 0, 1, L.MD_CAR) < 3


def test_bank_smaller_than_the_excess_is_not_asked_and_off_and_own_tests_never_ask():
    env = controllo(bank=(0, 2))
    assert g(env, L.G_STAGE) == L.ST_SELECT and g(env, L.G_CONTROLLED) == 2
    for mode, suppressed, bank in (("off", True, 5), ("own_tests", False, 1)):
        env = start(new_env(exploration_bank=mode), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)],
                    dice=SHOT + [1, 2, 2, 2], bank=(0, 5))
        assert env.observation_space(env.agent_selection)["observation"].shape == (L.N_OBS,)
        fire(env)
        env.step(A(env, "A_PASS"))
        assert g(env, L.G_STAGE) == L.ST_SELECT
        assert bool(md(env, 1, 2, L.MD_FLAGS) & L.F_SUPPRESSED) == suppressed and g(env, L.G_BANK1) == bank


def test_bad_answer_is_refused_clearly_and_changes_nothing():
    env = wounded_guerriero([1, 2], bank=(0, 5))
    snap = env.clone_state()
    for bad in (A(env, "A_CHOICE") + 1, A(env, "A_MODEL"), A(env, "A_MOVE") + 3):
        with pytest.raises(ValueError, match="ESPLORAZIONE"):
            env.step(bad)
        assert all((env.core.state.arrays[k] == snap.arrays[k]).all() for k in snap.arrays)


def test_clone_save_and_load_mid_decision(tmp_path):
    env = wounded_guerriero([1, 2], bank=(0, 5))
    snap = env.clone_state()
    obs = env.observe("player_1")["observation"].copy()
    env.save(tmp_path / "bank.npz")
    env.step(A(env, SPEND))
    after = {k: v.copy() for k, v in env.core.state.arrays.items()}
    env.set_state(snap)
    assert g(env, L.G_STAGE) == L.ST_BANK and (env.observe("player_1")["observation"] == obs).all()
    env.step(A(env, SPEND))
    assert all((env.core.state.arrays[k] == after[k]).all() for k in after)
    other = new_env()
    other.reset(seed=5)
    other.load(tmp_path / "bank.npz")
    assert other.agent_selection == "player_1" and bank_obs(other) == (1, 1, L.TK_SUPPRESSION, 2, 4, -4)
    other.step(A(other, SPEND))
    assert all((other.core.state.arrays[k] == after[k]).all() for k in after)


def _trajectory(batch, seed, steps):
    core = VecGame(game, batch, auto_reset=True)
    core.reset(seed=seed)
    streams = new_streams(batch, seed)
    acts = np.zeros(batch, np.int64)
    out, asked = [], 0
    for _ in range(steps):
        sample_legal(core.mask, streams, acts)
        asked += int(core.state.g[0, L.G_STAGE] == L.ST_BANK)
        core.step(acts)
        out.append((int(acts[0]), hash(core.obs[0].tobytes())))
    return out, asked


def test_same_trajectory_at_batch_one_and_sixty_four_with_bank_questions():
    a, asked = _trajectory(1, 3, 1500)
    b, _ = _trajectory(64, 3, 1500)
    assert asked > 0, "game 0 met bank questions"
    assert a == b


def test_mask_is_the_reason_function_in_random_play_with_bank_questions():
    """Mask, step and illegal-action reason are one compiled function (rules.decide), at the
    bank's stage too; every answer given in random play was legal."""
    core = VecGame(game, 8, {"mission": "roll"}, auto_reset=True)
    core.reset(seed=7)
    streams = new_streams(8, 7)
    acts = np.zeros(8, np.int64)
    n_actions = core.mask.shape[1]
    checked_bank = 0
    for step in range(1200):
        at_bank = core.state.g[:, L.G_STAGE] == L.ST_BANK
        for b in range(8):
            if at_bank[b] or step % 97 == 0:
                reasons = np.array([rules.action_reason(core.state.view, core.cfg.struct, b, a)
                                    for a in range(n_actions)])
                assert ((reasons == 0) == core.mask[b].astype(bool)).all()
                checked_bank += int(at_bank[b])
        sample_legal(core.mask, streams, acts)
        core.step(acts)
        assert (core.illegal == 0).all()
    assert checked_bank > 0



def test_the_stage_table_is_stated_once_decide_refuses_every_other_family():
    """RULES.md "Actions": ``decisions.stage_ranges`` is the one table of the families a stage
    allows; ``decide`` refuses every action outside it with R_WRONG_STAGE (the bank's question with
    its own ESPLORAZIONE refusal), and the mask marks nothing outside it, at every stage met in random play."""
    from wargym.envs.union_wars.decisions import stage_ranges
    core = VecGame(game, 8, {"mission": "roll"}, auto_reset=True)
    core.reset(seed=3)
    streams = new_streams(8, 3)
    acts = np.zeros(8, np.int64)
    actions = np.arange(core.mask.shape[1])
    stages = set()
    for step in range(600):
        for b in range(8):
            if step % 7 == b % 7:
                lo0, hi0, lo1, hi1, lo2, hi2 = stage_ranges(core.state.view, core.cfg.struct, b)
                allowed = ((lo0 <= actions) & (actions < hi0)) | ((lo1 <= actions) & (actions < hi1)) \
                    | ((lo2 <= actions) & (actions < hi2))
                reasons = np.array([rules.action_reason(core.state.view, core.cfg.struct, b, a) for a in actions])
                refusal = L.R_BANK_ANSWER if core.state.g[b, L.G_STAGE] == L.ST_BANK else L.R_WRONG_STAGE
                assert (reasons[~allowed] == refusal).all()
                assert not core.mask[b][~allowed].any() and core.mask[b][allowed].any()
                stages.add(int(core.state.g[b, L.G_STAGE]))
        sample_legal(core.mask, streams, acts)
        core.step(acts)
    assert len(stages) >= 8, sorted(stages)

def test_scripted_bot_spends_to_save_its_model_and_keeps_otherwise():
    from wargym.envs.union_wars import bot
    env = wounded_guerriero([1, 2], bank=(0, 5))
    mask = env.observe("player_1")["action_mask"]
    assert bot.scripted_action(env.core.state.view, env.core.cfg.struct, 0, mask) == A(env, SPEND)
    # its own failed ability test (1 + 2 + 1 < PSI 5): the points are kept for tests that save models
    env = controllo(bank=(3, 0), dice=(1, 2))
    assert g(env, L.G_STAGE) == L.ST_BANK and env.agent_selection == "player_0"
    mask = env.observe("player_0")["action_mask"]
    assert bot.scripted_action(env.core.state.view, env.core.cfg.struct, 0, mask) == A(env, KEEP)


# -- rolls that pass or fail without being LA DISCIPLINA's tests (RULES.md "Esplorazione") --------
def test_mental_duel_is_turned_by_the_defenders_bank():
    # DUELLO MENTALE: the ability test (3 + 3 + 1 vs PSI 5, passed by 2) is asked first and kept;
    # the duel 3 + CAR 2 + 2 (the psionico) against 3 + CAR 2 (the guerriero) is won by 2, so a
    # malus of 2 makes it a tie, which the defender wins ("uguale o superiore"): CONTROLLO fails
    env = start(new_env(), [model(0, 1, 60, 20), model(1, 2, 60, 40, 270)], dice=[3, 3, 3, 3], bank=(0, 3))
    act(env, 1, L.AK_CONTROLLO, 2)
    env.step(A(env, "A_PASS"))                      # no reaction declared
    assert bank_obs(env) == (1, -1, L.TK_ABILITY, 1, 3, 2)
    env.step(A(env, KEEP))
    assert env.agent_selection == "player_1" and bank_obs(env) == (1, -1, L.TK_DUEL, 1, 2, 1)
    env.step(A(env, SPEND))
    assert (g(env, L.G_CONTROLLED), g(env, L.G_BANK1), g(env, L.G_STAGE)) == (-1, 1, L.ST_SELECT)


def test_charge_roll_short_is_made_to_reach_by_the_chargers_bank():
    # CARICA: M 12 + 1 + 1 = 14 cm against 25 - 1.25 - 1.5 = 22.25: short by 8.25, 9 points reach
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 45, 270, car=0)], dice=[1, 1, 4], bank=(9, 0))
    act(env, 2, L.AK_CHARGE, 2)
    env.step(A(env, "A_PASS"))                      # the guerriero's free reaction: none
    assert env.agent_selection == "player_0" and bank_obs(env) == (1, 1, L.TK_CHARGE, 2, 9, -9)
    env.step(A(env, SPEND))
    assert md(env, 0, 2, L.MD_FLAGS) & L.F_ENGAGED and md(env, 0, 2, L.MD_CHARGE_AT) == 2   # +1D3 (4 -> 2)
    assert float(env.core.state.pos[0, 0, 2, 1]) == pytest.approx(42.25) and g(env, L.G_BANK0) == 0


def test_enemy_charge_that_reaches_is_stopped_by_the_targets_bank():
    # 12 + 1 + 1 = 14 against 12.25: reaches by 1.75; a malus of 2 makes it fall short, and the
    # charger moves only M, stopping 1 cm from the enemy (11.25 cm)
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 35, 270, car=0)], dice=[1, 1, 6], bank=(0, 2))
    act(env, 2, L.AK_CHARGE, 2)
    env.step(A(env, "A_PASS"))
    assert env.agent_selection == "player_1" and bank_obs(env) == (1, -1, L.TK_CHARGE, 2, 2, 1)
    env.step(A(env, SPEND))
    assert not md(env, 0, 2, L.MD_FLAGS) & L.F_ENGAGED and g(env, L.G_BANK1) == 0
    assert float(env.core.state.pos[0, 0, 2, 1]) == pytest.approx(31.25)


@pytest.mark.parametrize("die, bank, asked, healed", [
    (3, (0, 1), (1, -1, L.TK_AID, 1, 1, 0), 1),     # 3 + 2 = 5 passes by 0: the enemy's malus of 1
    (2, (1, 0), (1, 1, L.TK_AID, 1, 1, -1), 0),     # 2 + 2 = 4 fails by 1: the medico's bonus of 1
])
def test_soccorso_five_plus_is_turned_by_either_bank(die, bank, asked, healed):
    env = start(new_env(army_files=None, armies=[["umanita", ["capitano", "medico", "fante"]], "xeno:default_250"]),
                [model(0, 1, 60, 20), model(0, 2, 60, 22.5, wounds=1), model(1, 2, 100, 100, car=0)],
                dice=[die], bank=bank)
    act(env, 1, L.AK_AID, 2, mine=True)
    assert bank_obs(env) == asked
    env.step(A(env, SPEND))
    assert md(env, 0, 2, L.MD_WOUNDS) == healed and g(env, L.G_BANK0) + g(env, L.G_BANK1) == 0


def test_throw_that_falls_short_reaches_with_the_throwers_bank():
    # DA LANCIO: reach 30 + 5 + 3 = 38 cm, the point 42 cm away: 4 points make it reach, the smoke lands
    env = start(sergente_env(), [model(0, 1, 60, 20), model(1, 2, 60, 100, 270, car=0)], dice=[5, 3, 4], bank=(4, 0))
    throw_at_point(env, 1, L.AK_FIRE1, 4, 4)
    assert bank_obs(env) == (1, 1, L.TK_THROW, 1, 4, -4)
    env.step(A(env, SPEND))
    assert env.core.state.smoke[0, 0, 2] == 1 and g(env, L.G_BANK0) == 0


@pytest.mark.parametrize("answer, target", [(SPEND, (60.0, 60.0)), (KEEP, (61.0, 40.0))])
def test_overlapping_models_four_plus_turned_by_the_shooters_bank(answer, target):
    # Modelli Sovrapposti: the guerriero at (61, 40) covers the one at (60, 60); the 4+ to shoot
    # the chosen target rolls 3: a bonus of 1 and the shot goes to it, kept and the first model takes it
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 60, 270, car=0), model(1, 3, 61, 40, 270, car=0)],
                dice=[3, 1, 1], bank=(1, 0))
    act(env, 2, L.AK_FIRE0, 2)
    assert bank_obs(env) == (1, 1, L.TK_OVERLAP, 2, 1, -1)
    env.step(A(env, answer))
    shot = env.core.state.geo[0, L.GEO_SHOT + 2:L.GEO_SHOT + 4]
    assert tuple(float(v) for v in shot) == pytest.approx(target)


def test_night_spotting_roll_made_to_reach_by_the_bank():
    # LA NOTTE: the fante (SN 2) spots 2 + 3 + 20 = 25 cm, the guerriero is 30 cm away: 5 points
    # let it shoot (hit 4, armour 2: one wound)
    env = start(new_env(night="on"), [model(0, 2, 60, 20), model(1, 2, 60, 52.75, 270, car=0)], dice=[2, 3, 4, 2],
                night=True, bank=(5, 0))
    act(env, 2, L.AK_FIRE0, 2)
    assert bank_obs(env) == (1, 1, L.TK_SPOT, 2, 5, -5)
    env.step(A(env, SPEND))
    assert (md(env, 1, 2, L.MD_WOUNDS), md(env, 1, 2, L.MD_MORALE), g(env, L.G_BANK0)) == (1, 1, 0)


def test_inertial_weapons_four_plus_against_a_jam_turned_by_the_bank():
    # INCEPPAMENTO with INERZIALI: the torretta's cannone binato (CADENZA 3) rolls 6, 6, 1 (BINATA
    # repeats the 1: 6); one 1 jams it unless INERZIALI's 4+: 3 fails by 1, a bonus of 1 saves it
    env = start(new_env(jamming=True, armies=["umanita:default_250", ["xeno", ["signore dello sciame",
                                                                             "torretta biomeccanica"]]]),
                [model(0, 0, 20, 10), model(0, 2, 60, 30), model(1, 1, 60, 80, 270)], dice=[6, 6, 1, 6, 3],
                active=1, bank=(0, 1))
    act(env, 1, L.AK_FIRE0, 2)
    env.step(A(env, "A_PASS"))                      # the fante's reaction: none
    assert env.agent_selection == "player_1" and bank_obs(env) == (1, 1, L.TK_JAM, 1, 1, -1)
    env.step(A(env, SPEND))
    assert md(env, 1, 1, L.MD_JAMMED) == 0 and g(env, L.G_BANK1) == 0


def test_scenario_reserve_is_rolled_for_and_the_four_plus_turned_by_the_bank():
    # LE RISERVE: player 1 ends its turn; in player 0's command phase the fante kept in reserve
    # rolls 3 (short by 1): a bonus of 1 and it enters (player 0 places it)
    env = start(new_env(), [model(0, 0, 30, 10), model(0, 2, 0, 0, status="reserve"), model(1, 2, 60, 100, 270, car=0)],
                dice=[3], active=1, bank=(1, 0))
    env.step(A(env, "A_PASS"))
    assert env.agent_selection == "player_0" and bank_obs(env) == (1, 1, L.TK_RESERVE, 2, 1, -1)
    env.step(A(env, SPEND))
    assert md(env, 0, 2, L.MD_FLAGS) & L.F_ENTERING and g(env, L.G_STAGE) == L.ST_DEPLOY


def test_extra_time_four_plus_is_the_game_roll_the_holder_turns_either_way():
    # IL TEMPO: after the last turn a 5 would give another turn; the bank's holder (player 1)
    # spends 2 as a malus and the game ends
    env = start(new_env(time=True), [model(0, 2, 60, 20), model(1, 2, 60, 100, 270, car=0)], dice=[5],
                turn=23, bank=(0, 2))
    env.step(A(env, "A_PASS"))
    assert env.agent_selection == "player_1" and bank_obs(env) == (1, 0, L.TK_TIME, -1, 2, 1)
    env.step(A(env, SPEND))
    assert g(env, L.G_DONE) == 1 and g(env, L.G_MAX_TURNS) == 24 and g(env, L.G_BANK1) == 0


def test_smoke_four_plus_is_the_game_roll_the_holder_turns_either_way():
    # FUMOGENO: placed this turn (the hit roll 4 passes by 0: kept); in the final phase of the
    # next turn its 4+ rolls 3: the holder (player 1) spends 1 as a bonus and the smoke clears
    env = start(sergente_env(), [model(0, 1, 60, 20), model(1, 2, 60, 100, 270, car=0)], dice=[1, 1, 4, 3],
                bank=(0, 1))
    throw_at_point(env, 1, L.AK_FIRE1, 3, 2)
    env.step(A(env, KEEP))
    env.step(A(env, "A_PASS"))
    env.step(A(env, "A_PASS"))
    assert bank_obs(env) == (1, 0, L.TK_SMOKE, -1, 1, -1)
    text = new_env(render_mode="ansi")
    text.reset(seed=0)
    text.set_state(env.clone_state())
    assert "the game's smoke's 4+ failed by 1; player 1 may spend 1 bank points" in text.render()
    env.step(A(env, SPEND))
    assert env.core.state.smoke[0, 0, 2] == 0 and g(env, L.G_BANK1) == 0


def test_deployment_roll_off_won_outright_with_the_losers_bank():
    # SCHIERAMENTO: the roll-off after ESPLORAZIONE; the holder (player 1, bank 6) loses 1 to 6
    # by 5 and spends 6 to win it (5 would only tie, which is rolled again)
    env = new_env(render_mode="ansi")
    env.reset(seed=0)
    assert g(env, L.G_EXPLORE_WINNER) == 1 and g(env, L.G_STAGE) == L.ST_SIDE
    env.core.state.g[0, L.G_BANK1] = 6
    env.script_dice([6, 1])
    env.step(A(env, "A_CHOICE"))
    assert env.agent_selection == "player_1" and bank_obs(env) == (1, 0, L.TK_ROLLOFF, -1, 6, 5)
    assert "roll-off won by p0 by 5; player 1 may spend 6 bank points" in env.render()
    env.step(A(env, SPEND))
    assert (g(env, L.G_STAGE), env.agent_selection, g(env, L.G_BANK1)) == (L.ST_DEPLOY_ORDER, "player_1", 0)


def test_scripted_bot_stops_an_enemy_charge_and_keeps_for_the_games_rolls():
    from wargym.envs.union_wars import bot
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 35, 270, car=0)], dice=[1, 1, 6], bank=(0, 2))
    act(env, 2, L.AK_CHARGE, 2)
    env.step(A(env, "A_PASS"))
    mask = env.observe("player_1")["action_mask"]
    assert bot.scripted_action(env.core.state.view, env.core.cfg.struct, 0, mask) == A(env, SPEND)
    env = start(new_env(time=True), [model(0, 2, 60, 20), model(1, 2, 60, 100, 270, car=0)], dice=[5],
                turn=23, bank=(0, 2))
    env.step(A(env, "A_PASS"))
    mask = env.observe("player_1")["action_mask"]
    assert bot.scripted_action(env.core.state.view, env.core.cfg.struct, 0, mask) == A(env, KEEP)


# -- amount rolls: the owner chooses how many points move the result (RULES.md "Esplorazione") ----
def amount(points):
    """The answer that spends ``points`` at an amount roll's question."""
    return "A_CHOICE", points - 1


def answer(env, what):
    if isinstance(what, tuple):
        env.step(A(env, what[0]) + what[1])
    else:
        env.step(A(env, what))


def test_charge_d3_attacks_raised_by_the_chargers_chosen_amount():
    # CARICA: 14 cm reach 12.25 (the enemy has no bank to stop it); +1D3 attacks (6 -> 3): the
    # charger's owner may add 1 or 2 of its 2 points; it adds 2
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 35, 270, car=0)], dice=[1, 1, 6], bank=(2, 0))
    act(env, 2, L.AK_CHARGE, 2)
    env.step(A(env, "A_PASS"))
    assert env.agent_selection == "player_0" and bank_obs(env) == (1, 1, L.TK_CHARGE_AT, 2, 2, 3)
    text = new_env(render_mode="ansi")
    text.reset(seed=0)
    text.set_state(env.clone_state())
    assert "p0 #2's charge's +1D3 attacks rolled 3; player 0 may spend up to 2 bank points to move it for the roller" \
        in text.render()
    choice = A(env, "A_CHOICE")
    assert set(env.legal_actions()) == {choice, choice + 1, A(env, "A_PASS")}
    snap = env.clone_state()
    with pytest.raises(ValueError, match="amount roll"):
        env.step(choice + 2)                        # 3 points: more than the bank holds
    assert all((env.core.state.arrays[k] == snap.arrays[k]).all() for k in snap.arrays)
    answer(env, amount(2))
    assert md(env, 0, 2, L.MD_CHARGE_AT) == 5 and g(env, L.G_BANK0) == 0 and g(env, L.G_STAGE) == L.ST_SELECT


def test_suppressive_fire_d3_markers_raised_by_the_shooters_bank():
    # FUOCO SOPPRESSIVO: 2 hits; the first hit's 1D3 (6 -> 3) + 1 point, the second's (1 -> 1) with
    # the bank empty: 4 + 1 markers and the hit's one
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[5, 5, 6, 1], bank=(1, 0))
    act(env, 2, L.AK_SUPP0, 2)
    assert bank_obs(env) == (1, 1, L.TK_SUPPRESSIVE, -1, 1, 3)
    answer(env, amount(1))
    assert (md(env, 1, 2, L.MD_MORALE), md(env, 1, 2, L.MD_WOUNDS), g(env, L.G_BANK0)) == (5, 0, 0)


@pytest.mark.parametrize("bank, asked, spend, y", [
    ((3, 0), (1, 1, L.TK_ROUGH, 2, 3, 5), 3, 20.0),     # own bank: 5 - 3 = 2 cm off M, moves 10
    ((0, 2), (1, -1, L.TK_ROUGH, 2, 2, 5), 2, 15.0),    # the enemy's: 5 + 2 = 7 off M, moves 5
])
def test_rough_terrain_d6_moved_by_either_bank(bank, asked, spend, y):
    # TERRENI: entering rough terrain, 1D6 (5) comes off M = 12
    rough = {"kind": "rough", "vertices": [[10, 20], [30, 20], [30, 30], [10, 30]]}
    env = start(new_env(), [model(0, 2, 20, 10, 0), model(1, 2, 100, 100, car=0)], dice=[5], terrain=[rough],
                bank=bank)
    act(env, 2, L.AK_MOVE)
    env.step(A(env, "A_MOVE") + move_choice(4, 4))
    env.step(A(env, "A_MOVE") + move_choice(4, 0))       # stage facing: north (option facing="choose")
    assert bank_obs(env) == asked
    answer(env, amount(spend))
    assert float(env.core.state.pos[0, 0, 2, 1]) == pytest.approx(y, abs=1e-4)


def test_fatigue_d6_lowered_by_the_movers_bank():
    # LA FATICA: one marker takes 1D6 (4) off M; 4 points and the fante moves its whole 12 cm
    env = start(new_env(), [model(0, 2, 20, 10, fatigue=1), model(1, 2, 100, 100, car=0)], dice=[4], bank=(5, 0))
    act(env, 2, L.AK_MOVE)
    env.step(A(env, "A_MOVE") + move_choice(4, 4))
    env.step(A(env, "A_MOVE") + move_choice(4, 0))       # stage facing: north (option facing="choose")
    assert bank_obs(env) == (1, 1, L.TK_FATIGUE, 2, 4, 4)      # never below 0 cm: at most 4
    answer(env, amount(4))
    assert float(env.core.state.pos[0, 0, 2, 1]) == pytest.approx(22.0, abs=1e-4) and g(env, L.G_BANK0) == 1


def test_genio_tattico_bonus_actions_raised_by_the_bank():
    # GENIO TATTICO: the capitano's ability test 3 + 3 vs PSI 6 passes (the enemy has no bank),
    # "1D6 azioni bonus" (4) + 2 points
    env = start(new_env(), [model(0, 0, 60, 20), model(1, 2, 100, 110, 90, car=0)], dice=[3, 3, 4], bank=(2, 0))
    act(env, 0, L.AK_GENIO)
    assert bank_obs(env) == (1, 1, L.TK_GENIO, 0, 2, 4)
    answer(env, amount(2))
    assert g(env, L.G_BONUS0) == 6


def test_consolidation_2d6_raised_by_the_winners_bank():
    # LA MISCHIA as test_union_wars_rules' consolidation (3 + 4 = 7 cm); player 0's bank (3) is
    # asked about the guerriero's passed armour roll first (kept), then the consolidation: + 3
    env = charged_to_a_won_melee(new_env())
    env.core.state.g[0, L.G_BANK0] = 3
    env.step(A(env, "A_PASS"))
    kinds = []
    while g(env, L.G_STAGE) == L.ST_BANK and bank_obs(env)[2] != L.TK_CONSOLIDATION:
        kinds.append(bank_obs(env)[2])
        env.step(A(env, KEEP))
    assert kinds == [L.TK_ARMOUR] and bank_obs(env) == (1, 1, L.TK_CONSOLIDATION, 2, 3, 7)
    answer(env, amount(3))
    assert g(env, L.G_STAGE) == L.ST_CONSOLIDATE and g(env, L.G_CONSOL) == 10
    env.step(A(env, "A_MOVE") + move_choice(4, 4))
    env.step(A(env, "A_MOVE") + move_choice(4, 0))       # stage facing: north (option facing="choose")
    assert float(env.core.state.pos[0, 0, 2, 1]) == pytest.approx(32.25 + 10, abs=1e-3)


def test_scripted_bot_reads_the_wounds_at_the_moment_of_the_armour_roll():
    # two hits (4, 4) on the guerriero (FS 2), armour 2 and 2 fail: the first failure leaves it
    # standing (kept), the second would put it out of combat (spent), although the state shown
    # is the step's start, when it had no wound
    from wargym.envs.union_wars import bot
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[4, 4, 2, 2], bank=(0, 5))
    fire(env)
    answers = []
    while g(env, L.G_STAGE) == L.ST_BANK:
        kind = bank_obs(env)[2]
        a = bot.scripted_action(env.core.state.view, env.core.cfg.struct, 0, env.observe("player_1")["action_mask"])
        answers.append((kind, md(env, 1, 2, L.MD_WOUNDS), a == A(env, SPEND)))
        env.step(a)
    assert answers == [(L.TK_HIT, 0, False), (L.TK_HIT, 0, False), (L.TK_ARMOUR, 0, False), (L.TK_ARMOUR, 0, True)]
    assert (md(env, 1, 2, L.MD_WOUNDS), md(env, 1, 2, L.MD_STATUS), g(env, L.G_BANK1)) == (1, L.ACTIVE, 3)


def test_a_scenario_loads_in_the_tactical_phase_without_rolling():
    # the scenario is set after its command phase: the active side's reserve model is not rolled
    # for at load (no die read), it is in the next command phase of its side
    env = start(new_env(), [model(0, 0, 30, 10), model(0, 2, 0, 0, status="reserve"), model(1, 2, 60, 100, 270, car=0)],
                dice=[6], bank=(0, 0))
    assert (g(env, L.G_STAGE), int(env.core.state.dice[0, 1])) == (L.ST_SELECT, 0)
    assert md(env, 0, 2, L.MD_STATUS) == L.RESERVE and md(env, 0, 2, L.MD_FLAGS) & L.F_KEPT
    env.step(A(env, "A_PASS"))
    env.step(A(env, "A_PASS"))          # player 1's turn ends: player 0's command phase rolls the 6
    assert md(env, 0, 2, L.MD_FLAGS) & L.F_ENTERING and g(env, L.G_STAGE) == L.ST_DEPLOY


def test_a_search_sample_draws_the_dice_after_the_asked_roll_from_its_own_stream():
    # ESPLORAZIONE's question is answered by replaying the step from its snapshot, dice stream
    # included: in play the dice after the asked roll are the game's own; in a search's sample
    # (information.determinise, bank.reseed_after) they come from the sample's stream, while the
    # asked roll stays as rolled (the malus spent on the hit: no hit, bank 5 - 1)
    env = asked_about_a_hit()
    assert bank_obs(env) == (1, -1, L.TK_HIT, 2, 1, 0)
    asked = env.clone_state()
    core = VecGame(game, 4, env.core.options)
    core.state.assign(np.arange(4), asked.select(np.zeros(4, dtype=np.int64)))
    core.has_games = True
    core.refresh()
    seeds = np.array([7, 7, 1 << 40 | 9], dtype=np.uint64)
    game.determinise(core.cfg, core.state, np.arange(3), np.ones(3, dtype=np.int64), seeds)
    assert (core.state.bk[3, L.BK_RESEED_AT:] == 0).all()        # row 3: played as the game plays it
    core.step(np.full(4, A(env, SPEND)))
    st = core.state
    assert (st.md[:, 1, 2, L.MD_MORALE] == 0).all() and (st.g[:, L.G_BANK1] == 4).all()
    assert (st.g[:, L.G_STAGE] == L.ST_SELECT).all()
    # nothing was drawn after the hit: each sample's stream is its seed, the game's is the snapshot's
    assert list(st.rng[:3]) == list(seeds) and st.rng[3] == asked.snap_rng[0]
    # a new step clears the sample: from there on its stream is the sample's own
    assert (st.bk[:, L.BK_RESEED_AT] != 0).sum() == 3
    core.step(np.full(4, A(env, "A_PASS")), active=np.ones(4, dtype=bool))
    assert (st.bk[:, L.BK_RESEED_AT] == 0).all()


def test_a_search_sample_elsewhere_changes_nothing():
    # information.determinise: no question pending, no die is fixed by a snapshot: nothing to sample
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], bank=(0, 5))
    before = env.clone_state()
    core = env.core
    game.determinise(core.cfg, core.state, np.arange(1), np.zeros(1, dtype=np.int64), np.array([5], dtype=np.uint64))
    assert all(np.array_equal(core.state.arrays[k], before.arrays[k]) for k in before.arrays)
