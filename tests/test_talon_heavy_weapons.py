"""Talon heavy weapons (seed 000, section 15): the wave cannon (15.1) and the fusion cannon
(15.2).  Each test names the rule it checks and asserts exact outcomes from scripted dice;
the ready scenario "big_guns" gets the mask/observation-equals-reference checks, the
random-play fuzz and the scripted captain."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import bot, game
from wargym.envs.talon import rules as R
from helpers.talon import (A, act, fuzz_stages, g, legal, mask_equals_reference, obs_equals_reference,
                           scripted_vs_random, sh, ship, stage, step_hex)


def duel(p0, p1, dice, initiative=0, **options):
    """Impulse E: no AP and no movement at speed 3, the turn goes straight to firing."""
    core = VecGame(game, 1, {"heavy_weapons": True, **options})
    core.load_scenario({"players": [{"ships": p0}, {"ships": p1}], "impulse": "E", "initiative": initiative},
                       seed=0)
    core.script_dice(0, dice)
    if stage(core) == R.ST_MOVE:          # Talon ships could burn an afterburner: decline
        act(core, "DONE")
    return core


def at(core, p, k):
    return core.cfg.grid.row_col(sh(core, p, k, R.SH_CELL))


def end_fire(core):
    """The firing player is done: its turn ends (ST_TURN_END, Talon 3.2, 15.1.3)."""
    p = g(core, R.G_DECIDER)
    while g(core, R.G_DECIDER) == p and stage(core) in (R.ST_FIRE_SHIP, R.ST_FIRE_GROUP, R.ST_FIRE_TARGET):
        act(core, "DONE")


WAVE = 1            # the Terran BB's groups: laser F+L, wave cannon F, laser F+R
FUSION = 1          # the Talon BB's: disruptors F+L, fusion cannon F, disruptors F+R


# -- 15.1 wave cannon ---------------------------------------------------------------------------
def test_wave_cannon_pushes_now_and_damages_at_the_end_of_the_turn():
    # 15.1.1 range 2 hits on 2-6 for 10; 15.1.2 the target goes one hex further along the
    # line, facing unchanged; 15.1.3 the damage waits for the end of the turn.
    core = duel([ship("terran_bb", "Defiant", (8, 4), "E")], [ship("talon_bb", "Eviscerator", (8, 6), "W")], [2])
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", WAVE)
    act(core, "TARGET", 0)
    assert at(core, 1, 0) == step_hex(core, 8, 6, 0) and sh(core, 1, 0, R.SH_FACING) == 3
    assert sh(core, 1, 0, R.SH_SHIELD + R.ARC_FRONT) == 9 and sh(core, 1, 0, R.SH_WAVE + R.ARC_FRONT) == 10
    # the damage due is on the observation's wave plane (one plane after the basic 16), both sides see it
    for seat in (0, 1):
        planes = game.split_obs(core.cfg, core.observe(0, seat)[0])["planes"]
        assert game.plane_names(core.cfg)[R.N_PLANES] == game.WAVE_PLANE_NAME
        assert planes[R.N_PLANES][at(core, 1, 0)] == 10 and planes[R.N_PLANES].sum() == 10
    end_fire(core)
    assert game.split_obs(core.cfg, core.observe(0, 0)[0])["planes"][R.N_PLANES].sum() == 0
    # 10 on the front shield (9 boxes), 1 on the hull (first box: no critical)
    assert sh(core, 1, 0, R.SH_SHIELD + R.ARC_FRONT) == 0 and sh(core, 1, 0, R.SH_HULL_HITS) == 1
    assert all(sh(core, 1, 0, R.SH_WAVE + a) == 0 for a in range(4))
    assert g(core, R.G_DECIDER) == 1          # the Talon player's turn


def test_wave_cannon_miss_does_not_push():
    # 15.1.1 range 3 hits on 3-6: a 2 misses, nothing moves
    core = duel([ship("terran_bb", "Defiant", (8, 4), "E")], [ship("talon_bb", "Eviscerator", (8, 7), "W")], [2])
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", WAVE)
    act(core, "TARGET", 0)
    assert at(core, 1, 0) == (8, 7) and sh(core, 1, 0, R.SH_WAVE + R.ARC_FRONT) == 0


def test_wave_cannon_push_between_two_hexes_is_the_firers_choice():
    # 15.1.2 "Se la linea si trova esattamente lungo due esagoni, la nave che spara può
    # scegliere": the target two hexes away on a 30-degree line (E then SE)
    grid_only = VecGame(game, 1, {"heavy_weapons": True})      # for step_hex before the duel exists
    t = step_hex(grid_only, *step_hex(grid_only, 8, 4, 0), 5)
    core = duel([ship("terran_bb", "Defiant", (8, 4), "E")], [ship("talon_bb", "Eviscerator", t, "W")], [2])
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", WAVE)
    act(core, "TARGET", 0)
    assert stage(core) == R.ST_PUSH and g(core, R.G_DECIDER) == 0
    assert legal(core, "PULL", 0) and legal(core, "PULL", 1) and not legal(core, "DONE")
    assert core.cfg.grid.row_col(g(core, R.G_PULL_A)) == step_hex(core, *t, 0)
    assert core.cfg.grid.row_col(g(core, R.G_PULL_B)) == step_hex(core, *t, 5)
    act(core, "PULL", 1)
    assert at(core, 1, 0) == step_hex(core, *t, 5) and stage(core) != R.ST_PUSH


def test_wave_cannon_push_into_a_friendly_ship_collides_then_explodes_in_a_chain():
    # 15.1.3: pushed into a friendly ship's hex the target collides (7.4, its owner orders
    # the collision), then at the end of the turn the wave damage destroys it and its
    # explosion (8.6.2, Talon BB: 4) hits the friendly ship in the same hex.
    core = duel([ship("terran_bb", "Defiant", (8, 4), "E")],
                [ship("talon_bb", "Eviscerator", (8, 6), "W", hull_hits=7),
                 ship("talon_ca", "Justice", (8, 7), "W")],
                [2, 6, 1, 1, 1])     # hit; the explosion's arc roll-off: front (8.6.2)
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", WAVE)
    act(core, "TARGET", 0)
    assert stage(core) == R.ST_COLLIDE and g(core, R.G_DECIDER) == 1
    act(core, "COLLIDE")                      # the pushed ship first
    # 3 each: the BB on its rear (it moved east, facing west), the Justice on its front
    assert sh(core, 1, 0, R.SH_SHIELD + R.ARC_REAR) == 3 and sh(core, 1, 1, R.SH_SHIELD + R.ARC_FRONT) == 4
    assert sh(core, 1, 0, R.SH_STATUS) == R.SS_ACTIVE
    end_fire(core)
    assert sh(core, 1, 0, R.SH_STATUS) == R.SS_DESTROYED and g(core, R.G_SP0) == 179
    assert sh(core, 1, 1, R.SH_SHIELD + R.ARC_FRONT) == 0 and sh(core, 1, 1, R.SH_HULL_HITS) == 0


# -- 15.2 fusion cannon -------------------------------------------------------------------------
def test_fusion_cannon_hits_every_ship_in_its_cone_with_a_die_each():
    # 15.2.1-15.2.2 (the Eviscerator example): a 4 deals 6 at range 2 and 2 at range 3;
    # the friendly ship in the cone is hit too and resolved first; a ship out of the arc is not.
    core = duel([ship("terran_ca", "Patton", (8, 6), "E"), ship("terran_ca", "Napoleon", (8, 10), "W")],
                [ship("talon_bb", "Eviscerator", (8, 8), "W"), ship("talon_ca", "Justice", (8, 5), "W")],
                [4, 4], initiative=1)
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", FUSION)
    assert not legal(core, "TARGET", 1)       # the Napoleon is behind: not in the front arc
    act(core, "TARGET", 0)
    assert sh(core, 1, 1, R.SH_SHIELD + R.ARC_REAR) == 3 - 2       # Justice, range 3, firer behind it
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == 6 - 6      # Patton, range 2
    assert [sh(core, 0, 1, R.SH_SHIELD + a) for a in range(4)] == [6, 5, 5, 4]


def test_fusion_cannon_hits_the_missiles_in_its_cone_with_a_die_each():
    # 15.2.1 "colpendo *tutti* i bersagli nel suo arco di fuoco. Va lanciato un dado per ogni
    # obiettivo"; the 15.2 example: "I missili 14 e 15 prendono 2 danni ciascuno e vengono girati dalla
    # parte danneggiata".  The Eviscerator fires at the Patton (a 4 at range 2: 6 on its front
    # shield); then the missiles in the cone, the firer's own first: its own at range 3 rolls 3 (2
    # damage: flipped); the Terran ones roll 4: 2 at range 3 (flipped, as in the example), 6 at
    # range 2 (13.6: 3 or more destroy it).  A missile behind the Eviscerator is not hit.
    core = duel([ship("terran_ca", "Patton", (8, 6), "E"), ship("terran_ca", "Napoleon", (8, 10), "W")],
                [ship("talon_bb", "Eviscerator", (8, 8), "W")], [4, 3, 4, 4], initiative=1, missiles=True)
    for m, owner, rc in ((0, 0, (8, 5)), (1, 0, (8, 6)), (2, 0, (8, 9)), (3, 1, (8, 5))):
        core.state.ms[0, m] = (R.MI_INTACT, owner, core.cfg.grid.cell(*rc), 3 if owner == 0 else 0, 0, 0)
    core.refresh()
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", FUSION)
    act(core, "TARGET", 0)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == 6 - 6
    status = [int(core.state.ms[0, m, R.MS_STATUS]) for m in range(4)]
    assert status == [R.MI_DAMAGED, R.MI_NONE, R.MI_INTACT, R.MI_DAMAGED]
    assert tuple(core.state.dice[0]) == (4, 4)          # a die for each of the four hit, none for the last


# -- the option and the ready scenario -------------------------------------------------------------
def test_heavy_weapons_option_gates_the_classes_and_adds_only_the_push_actions():
    basic = VecGame(game, 1, {})
    assert basic.cfg.k[R.K_HEAVY] == 0 and basic.cfg.k[R.K_N_ACTIONS] == 203
    big = VecGame(game, 1, {"scenario": "big_guns"})
    assert big.cfg.k[R.K_HEAVY] == 1 and big.cfg.k[R.K_N_ACTIONS] == 205
    with pytest.raises(ValueError, match="heavy_weapons"):
        VecGame(game, 1, {}).load_scenario({"players": [{"ships": [ship("terran_bb", "Defiant", (8, 4), "E")]},
                                                        {"ships": [ship("talon_ca", "Justice", (8, 8), "W")]}]})
    # bases (14) still need their own option
    with pytest.raises(ValueError, match="bases=True"):
        VecGame(game, 1, {"heavy_weapons": True}).load_scenario(
            {"players": [{"ships": [ship("terran_base", "Valley Forge", (8, 4), "E")]},
                         {"ships": [ship("talon_ca", "Justice", (8, 8), "W")]}]})


def test_fast_mask_equals_reference_in_big_guns():
    mask_equals_reference({"scenario": "big_guns"})


def test_fast_observation_equals_reference_in_big_guns():
    obs_equals_reference({"scenario": "big_guns"})


def test_random_play_fuzz_in_big_guns():
    stages = fuzz_stages("big_guns", terrain=False)
    assert R.ST_PUSH in stages and R.ST_COLLIDE in stages     # random play meets a push along a hexside (15.1.2)


def test_scripted_captain_beats_random_in_big_guns():
    wins, draws, losses, _, _ = scripted_vs_random(n=20, seed=7, options={"scenario": "big_guns"})
    assert wins >= 14 and losses <= 3, (wins, draws, losses)


def test_scripted_captain_holds_the_fusion_cannon_when_it_would_hurt_its_own_ship_most():
    # 15.2.2 the cone hits friendly ships too: with a friendly CA at range 1 in the cone and the
    # only enemy at range 3, the captain fires its disruptors, not the fusion cannon; with the
    # friend out of the cone it fires the fusion cannon (6 expected at range 2 against 3.3 for a pair of disruptors).
    def group_chosen(p1):
        core = duel([ship("terran_ca", "Patton", (8, 5), "E")], p1, [], initiative=1)
        act(core, "FIRE_SHIP", 0)
        assert stage(core) == R.ST_FIRE_GROUP and legal(core, "GROUP", FUSION)
        states, cfgs, _ = core.kernel_args()
        out = np.zeros(1, dtype=np.int64)
        bot.policy_actions(states, cfgs, core.mask, bot.SCRIPTED, out)
        return int(out[0]) - A(core, "GROUP", 0)
    assert group_chosen([ship("talon_bb", "Eviscerator", (8, 8), "W"),
                         ship("talon_ca", "Justice", (8, 7), "W")]) != FUSION
    assert group_chosen([ship("talon_bb", "Eviscerator", (8, 7), "W"),
                         ship("talon_ca", "Justice", (2, 7), "W")]) == FUSION
