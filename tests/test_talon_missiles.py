"""Talon missiles (seed 000, section 13).  Each test names the rule it checks and asserts exact
outcomes from scripted dice; missile counters are placed by writing the state's missile pool
(``ms``) where the setting up would otherwise take many turns.  The ready scenario "missiles"
gets the mask/observation-equals-reference checks, the random-play fuzz and the scripted
captain."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import (A, act, fuzz_stages, g, legal, mask_equals_reference, obs_equals_reference,
                           scripted_vs_random, sh, ship, stage, step_hex, step_hex_static)

NE, NW, W, SW, SE = 1, 2, 3, 4, 5    # directions (E, NE, NW, W, SW, SE = 0..5)
LAUNCHER_F_R_L = 0
LAUNCHER_F = 1                      # the Talon DD's groups: missile F+R+L, missile F
RIGHT_LASERS = 2                    # the Terran BB's groups: lasers F+L, wave cannon F, lasers F+R


def battle(p0, p1, impulse="E", initiative=1, dice=(), terrain_tiles=(), **options):
    core = VecGame(game, 1, {"missiles": True, **options})
    core.load_scenario({"players": [{"ships": p0}, {"ships": p1}], "impulse": impulse, "initiative": initiative,
                        "terrain": list(terrain_tiles)}, seed=0)
    core.script_dice(0, list(dice))
    return core


def put_missile(core, m, owner, rc, facing, target, status=R.MI_INTACT):
    """A missile counter in slot ``m`` of the pool (columns MS_STATUS .. MS_MOVED)."""
    core.state.ms[0, m] = (status, owner, core.cfg.grid.cell(*rc), facing, target, 0)
    core.refresh()


def ms(core, m, col):
    return int(core.state.ms[0, m, col])


def missile_at(core, m):
    return core.cfg.grid.row_col(ms(core, m, R.MS_CELL))


def why(core, family, *args):
    """The reason code's text of why the action is illegal (None if legal)."""
    text = core.why_illegal(0, A(core, family, *args))
    return None if text is None else text.split(" is illegal: ", 1)[-1]


PATTON = ship("terran_ca", "Patton", (8, 4), "E")
HUNTER = ship("talon_dd", "Hunter", (8, 8), "W")


# -- the option ------------------------------------------------------------------------------------
def test_missiles_option_gates_the_classes_and_leaves_the_basic_game_alone():
    basic = VecGame(game, 1, {})
    assert basic.cfg.k[R.K_MISSILES] == 0 and basic.cfg.k[R.K_N_ACTIONS] == 203
    assert game.board_shape(basic.cfg)[0] == R.N_PLANES and basic.state.ms.shape[1] == 1
    with pytest.raises(ValueError, match="missiles=True"):
        basic.load_scenario({"players": [{"ships": [PATTON]}, {"ships": [HUNTER]}]})
    core = VecGame(game, 1, {"scenario": "missiles"})
    M, S = 16, 8
    assert core.cfg.k[R.K_MISSILES] == 1 and core.state.ms.shape[1] == M
    assert core.cfg.k[R.K_N_ACTIONS] == 203 + 3 * M + M + S * M + 6      # MMOVE, MTARGET, RETARGET, LAUNCH
    assert len(game.plane_names(core.cfg)) == game.board_shape(core.cfg)[0] == R.N_PLANES + R.N_MISSILE_PLANES
    # the Talon Base still needs 14 bases
    with pytest.raises(ValueError, match="14 bases"):
        core.load_scenario({"players": [{"ships": [PATTON]}, {"ships": [ship("talon_base", "Hope", (8, 8), "W")]}]})


# -- 13.2 launching, 13.5 at range 1 ----------------------------------------------------------------
def test_launch_places_a_counter_next_to_the_ship_pointing_at_its_announced_target():
    # 13.2: the counter goes in the adjacent hex of the launcher's arc (front only: the hex
    # ahead), pointing at the target; it tracks the Patton.  Missiles cannot target missiles.
    core = battle([PATTON], [HUNTER])
    act(core, "DONE")                      # no afterburner
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", LAUNCHER_F)
    put_missile(core, 5, 0, (3, 3), 0, 0)  # an enemy missile somewhere in reach
    assert why(core, "MTARGET", 5) == game.REASONS[R.R_MISSILE_AT_MISSILE]
    act(core, "TARGET", 0)
    assert ms(core, 0, R.MS_STATUS) == R.MI_INTACT and ms(core, 0, R.MS_OWNER) == 1
    assert missile_at(core, 0) == (8, 7) and ms(core, 0, R.MS_FACING) == W and ms(core, 0, R.MS_TARGET) == 0
    # Talon 8.3 the launcher's bar is empty again
    assert sh(core, 1, 0, R.SH_RED + LAUNCHER_F) == 0


def test_a_launch_with_one_legal_hex_places_the_missile_without_asking():
    # 13.2 "nell'esagono adiacente all'arco di fuoco": the DD's second launcher fires in the
    # front arc only, whose one adjacent hex is the one ahead: no ST_LAUNCH, the hex is taken
    core = battle([PATTON], [HUNTER])
    act(core, "DONE")
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", LAUNCHER_F)
    act(core, "TARGET", 0)
    assert stage(core) != R.ST_LAUNCH and missile_at(core, 0) == (8, 7)
    assert not any(legal(core, "LAUNCH", d) for d in range(6))


def test_a_launch_with_two_legal_hexes_asks_the_player_for_the_hex():
    # 13.2 "Occorre piazzare un segnalino missile nell'esagono adiacente all'arco di fuoco della
    # nave": the DD's first launcher (arcs F+R+L) has several adjacent hexes; the player picks one
    core = battle([PATTON], [HUNTER])
    act(core, "DONE")
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", LAUNCHER_F_R_L)
    act(core, "TARGET", 0)
    assert stage(core) == R.ST_LAUNCH and g(core, R.G_LAUNCH_TARGET) == 0
    assert ms(core, 0, R.MS_STATUS) == R.MI_NONE                   # not placed yet
    # every adjacent hex but the one behind it (E, in the rear arc) is in the arcs F+R+L
    assert [d for d in range(6) if legal(core, "LAUNCH", d)] == [NE, NW, W, SW, SE]
    assert why(core, "DONE") == game.REASONS[R.R_STAGE]           # the hex must be chosen
    act(core, "LAUNCH", NW)
    assert stage(core) == R.ST_FIRE_GROUP             # the group's one launcher has fired (8.3)
    # "Il missile deve puntare al lato dell'esagono verso la nave bersaglio": W, towards the Patton
    assert missile_at(core, 0) == (7, 7) and ms(core, 0, R.MS_FACING) == W
    assert ms(core, 0, R.MS_TARGET) == 0 and ms(core, 0, R.MS_OWNER) == 1


def test_a_launch_hex_outside_the_arc_is_refused_with_a_reason_naming_13_2():
    # 13.2: the hex behind the DD is in its rear arc, where no launcher points
    core = battle([PATTON], [HUNTER])
    act(core, "DONE")
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", LAUNCHER_F_R_L)
    act(core, "TARGET", 0)
    before = core.clone_state()
    assert why(core, "LAUNCH", 0) == game.REASONS[R.R_LAUNCH_HEX] and "13.2" in why(core, "LAUNCH", 0)
    with pytest.raises(ValueError, match="13.2"):
        core.step_one(0, A(core, "LAUNCH", 0))
    for k, v in before.arrays.items():
        assert np.array_equal(v, core.state.arrays[k]), k


def test_a_missile_launched_at_range_1_detonates_at_once_on_the_shield_facing_the_firer():
    # 13.5 "Un missile sparato contro il suo bersaglio a distanza 1 esplode immediatamente": 2 damage
    core = battle([PATTON], [ship("talon_dd", "Hunter", (8, 5), "W")])
    front = sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT)
    act(core, "DONE")
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", LAUNCHER_F)
    act(core, "TARGET", 0)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == front - 2
    assert (core.state.ms[0, :, R.MS_STATUS] == R.MI_NONE).all()


def test_with_every_counter_in_play_only_a_range_1_launch_is_possible():
    # RULES.md 'Missiles': option max_missiles counters per game; range 1 needs none (13.5)
    far = battle([PATTON], [HUNTER], max_missiles=1)
    put_missile(far, 0, 1, (3, 3), W, 2)
    act(far, "MMOVE", 0, R.M_STRAIGHT)
    assert R.target_reason(far.state.view, far.cfg.struct, 0, 1, 0, LAUNCHER_F, 0) == R.R_NO_MISSILE_SLOT
    act(far, "DONE")
    assert g(far, R.G_DECIDER) == 0          # the DD's fire step had no choice: the Terran turn
    near = battle([PATTON], [ship("talon_dd", "Hunter", (8, 5), "W")], max_missiles=1)
    front = sh(near, 0, 0, R.SH_SHIELD + R.ARC_FRONT)
    put_missile(near, 0, 1, (3, 3), W, 2)
    act(near, "MMOVE", 0, R.M_STRAIGHT)
    act(near, "DONE")
    act(near, "FIRE_SHIP", 0)
    act(near, "GROUP", LAUNCHER_F)
    act(near, "TARGET", 0)
    assert sh(near, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == front - 2


# -- 13.3, 13.4 movement ---------------------------------------------------------------------------
def test_a_missile_must_move_each_impulse_towards_its_target():
    # 13.4: speed 6, one hex every impulse, the move stage cannot end before; the hex nearest
    # the target (straight here); then it has moved for this impulse
    core = battle([PATTON], [HUNTER])
    put_missile(core, 0, 1, (8, 6), W, 0)
    assert stage(core) == R.ST_MOVE
    assert why(core, "DONE") == game.REASONS[R.R_MUST_MOVE]
    assert legal(core, "MMOVE", 0, R.M_STRAIGHT)
    assert why(core, "MMOVE", 0, R.M_TURN_LEFT) == game.REASONS[R.R_MISSILE_COURSE]
    assert why(core, "MMOVE", 0, R.M_TURN_RIGHT) == game.REASONS[R.R_MISSILE_COURSE]
    act(core, "MMOVE", 0, R.M_STRAIGHT)
    assert missile_at(core, 0) == (8, 5) and ms(core, 0, R.MS_MOVED) == 1
    assert stage(core) == R.ST_MOVE           # the DD may still burn an afterburner (10.2)
    assert why(core, "MMOVE", 0, R.M_STRAIGHT) == game.REASONS[R.R_MISSILE_MOVED]
    act(core, "DONE")


def test_two_hexes_as_near_the_target_are_the_players_choice_and_the_turn_radius_is_0():
    # 13.4 "Se due esagoni sono equidistanti dal bersaglio il giocatore sceglie"; radius 0: it may
    # turn every move
    target = step_hex_static(*step_hex_static(8, 8, W), NW)
    core = battle([ship("terran_ca", "Patton", target, "E")], [ship("talon_dd", "Hunter", (12, 12), "W")])
    put_missile(core, 0, 1, (8, 8), W, 0)
    assert legal(core, "MMOVE", 0, R.M_STRAIGHT) and legal(core, "MMOVE", 0, R.M_TURN_RIGHT)
    assert not legal(core, "MMOVE", 0, R.M_TURN_LEFT)
    act(core, "MMOVE", 0, R.M_TURN_RIGHT)
    assert missile_at(core, 0) == step_hex(core, 8, 8, NW) and ms(core, 0, R.MS_FACING) == NW


def test_a_missile_whose_target_is_gone_goes_straight_and_off_the_map_is_destroyed():
    # 13.3: no target (slot 2 holds no ship in play) -> straight only, cannot detonate;
    # 13.4 "sono distrutti se escono dalla mappa" (the map does not move for it)
    core = battle([PATTON], [HUNTER])
    put_missile(core, 0, 1, (8, 0), W, 2)
    assert why(core, "MMOVE", 0, R.M_TURN_LEFT) == game.REASONS[R.R_MISSILE_COURSE]
    act(core, "MMOVE", 0, R.M_STRAIGHT)
    assert ms(core, 0, R.MS_STATUS) == R.MI_NONE
    assert core.cfg.grid.row_col(sh(core, 0, 0, R.SH_CELL)) == (8, 4)     # nothing else moved


def test_a_planet_destroys_a_missile_entering_it():
    # 17.2.1 with 13.4: a missile entering a planet hex is destroyed
    core = battle([PATTON], [HUNTER], terrain=True, terrain_tiles=[{"kind": "planet", "hex": [3, 4]}])
    put_missile(core, 0, 1, (3, 5), W, 2)
    act(core, "MMOVE", 0, R.M_STRAIGHT)
    assert ms(core, 0, R.MS_STATUS) == R.MI_NONE


# -- 13.5 detonation -------------------------------------------------------------------------------
def test_a_missile_entering_its_targets_hex_deals_2_on_the_shield_facing_it():
    core = battle([PATTON], [HUNTER])
    front = sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT)
    put_missile(core, 0, 1, (8, 5), W, 0)
    act(core, "MMOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == front - 2
    assert ms(core, 0, R.MS_STATUS) == R.MI_NONE


def test_a_damaged_missile_still_deals_2_and_with_shields_down_the_hull_takes_them():
    # 13.6 "I missili danneggiati infliggono comunque 2 danni"; 13.5 "o allo scafo se gli scudi sono abbassati"
    core = battle([ship("terran_ca", "Patton", (8, 4), "E", criticals=["shields_down"])], [HUNTER])
    put_missile(core, 0, 1, (8, 5), W, 0, status=R.MI_DAMAGED)
    act(core, "MMOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_HULL_HITS) == 2


def test_a_target_moving_into_the_missiles_hex_is_hit_and_other_ships_are_not():
    # 13.5: "quando la nave o il missile muovono nell'esagono dell'altro"; a missile tracking
    # another ship does nothing
    core = battle([ship("terran_ca", "Patton", (8, 4), "E", speed=4), ship("terran_ca", "Napoleon", (12, 4), "E")],
                  [HUNTER], impulse="A", initiative=0)
    front = sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT)
    put_missile(core, 0, 1, (8, 5), W, 0)
    put_missile(core, 1, 1, (8, 5), W, 1)
    assert stage(core) == R.ST_MOVE and g(core, R.G_DECIDER) == 0
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == front - 2
    assert ms(core, 0, R.MS_STATUS) == R.MI_NONE and ms(core, 1, R.MS_STATUS) == R.MI_INTACT


# -- 13.6 shooting missiles down -------------------------------------------------------------------
def test_the_defiant_shoots_down_missile_4_with_its_right_lasers():
    # 13.6 example: the first laser rolls a 2 (2 damage at range 1): the missile is flipped to
    # its damaged side; the second rolls a 1 (1 damage): a damaged missile hit again is destroyed
    core = battle([ship("terran_bb", "Defiant", (8, 4), "E")], [ship("talon_dd", "Hunter", (8, 6), "W")],
                  initiative=0, dice=[2, 1], heavy_weapons=True)
    put_missile(core, 4, 1, step_hex(core, 8, 4, SE), 3, 0)
    assert stage(core) == R.ST_FIRE_SHIP
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", RIGHT_LASERS)
    act(core, "MTARGET", 4)
    assert ms(core, 4, R.MS_STATUS) == R.MI_DAMAGED
    act(core, "MTARGET", 4)
    assert ms(core, 4, R.MS_STATUS) == R.MI_NONE


def test_3_damage_in_one_hit_destroys_and_an_explosion_hits_one_missile_per_hex():
    # 13.6: 3+ in one hit destroys an intact missile; "lo si applica ad un solo missile nell'esagono"
    core = battle([PATTON], [HUNTER])
    for m, rc in enumerate(((5, 5), (5, 5), (5, 6))):
        put_missile(core, m, 1, rc, W, 0)
    R.blast_missiles(core.state.view, core.cfg.struct, 0, core.cfg.grid.cell(5, 5), 1)
    assert [ms(core, m, R.MS_STATUS) for m in range(3)] == [R.MI_DAMAGED, R.MI_INTACT, R.MI_DAMAGED]
    R.hit_missile(core.state.view, 0, 1, 3)
    assert ms(core, 1, R.MS_STATUS) == R.MI_NONE


# -- 13.7 retargeting ------------------------------------------------------------------------------
def test_retargeting_costs_the_ships_ap_and_needs_a_new_target_in_its_arc_and_range():
    napoleon = ship("terran_ca", "Napoleon", (6, 6), "E")
    core = battle([PATTON, napoleon], [HUNTER], impulse="F")
    put_missile(core, 0, 1, (12, 6), W, 0)
    assert stage(core) == R.ST_AP
    act(core, "RETARGET", 0, 0)
    assert stage(core) == R.ST_RETARGET and sh(core, 1, 0, R.SH_AP_SPENT) == 1
    assert why(core, "TARGET", 0) == game.REASONS[R.R_SAME_TARGET]
    act(core, "TARGET", 1)
    assert ms(core, 0, R.MS_TARGET) == 1 and stage(core) != R.ST_RETARGET
    assert why(core, "RETARGET", 0, 0) is not None          # one AP per impulse (5.1)


def test_a_new_target_in_the_missiles_hex_is_hit_at_once_on_a_shield_chosen_by_dice():
    # 13.7 "Esplosione immediata": a die per shield, the highest is struck (front 2, right 5, left 1, rear 3)
    napoleon = ship("terran_ca", "Napoleon", (6, 6), "E")
    core = battle([PATTON, napoleon], [HUNTER], impulse="F", dice=[2, 5, 1, 3])
    right = sh(core, 0, 1, R.SH_SHIELD + R.ARC_RIGHT)
    put_missile(core, 0, 1, (6, 6), W, 0)
    act(core, "RETARGET", 0, 0)
    act(core, "TARGET", 1)
    assert sh(core, 0, 1, R.SH_SHIELD + R.ARC_RIGHT) == right - 2
    assert ms(core, 0, R.MS_STATUS) == R.MI_NONE


def test_a_ship_without_a_working_launcher_cannot_retarget():
    core = battle([PATTON], [ship("talon_ca", "Justice", (8, 8), "W")], impulse="F")
    put_missile(core, 0, 1, (12, 6), W, 0)
    assert why(core, "RETARGET", 0, 0) == game.REASONS[R.R_NO_LAUNCHER]


# -- the ready scenario ----------------------------------------------------------------------------
def test_fast_mask_equals_reference_in_missiles():
    mask_equals_reference({"scenario": "missiles"})


def test_fast_observation_equals_reference_in_missiles():
    obs_equals_reference({"scenario": "missiles"})


def test_random_play_fuzz_in_missiles():
    stages = fuzz_stages("missiles", terrain=False)
    assert R.ST_RETARGET in stages and R.ST_LAUNCH in stages     # 13.7, 13.2


def test_scripted_captain_beats_random_in_missiles():
    wins, draws, losses, _, _ = scripted_vs_random(n=20, seed=7, options={"scenario": "missiles"})
    assert wins >= 14 and losses <= 3, (wins, draws, losses)
