"""Talon bases (seed 000, section 14, with 8.5 and 11.1.4).  Each test names the rule it checks
and asserts exact outcomes from scripted dice; the ready scenario "starbase" gets the
mask/observation-equals-reference checks, the random-play fuzz and the scripted captain."""
from __future__ import annotations

import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import (A, act, drive, fuzz_stages, g, legal, mask_equals_reference, obs_equals_reference,
                           scripted_vs_random, sh, ship, stage, stage_has_choice_equals_reference)

BASE_OPTIONS = {"bases": True, "heavy_weapons": True}     # the Terran Base carries a wave cannon (15.1)


def base_game(p0, p1, dice=(), impulse="A", initiative=0, **options):
    core = VecGame(game, 1, {**BASE_OPTIONS, **options})
    core.load_scenario({"players": [{"ships": p0}, {"ships": p1}], "impulse": impulse, "initiative": initiative},
                       seed=0)
    core.script_dice(0, list(dice))
    return core


def base(hexrc=(9, 4), facing="E", **kw):
    return ship("terran_base", "Valley Forge", hexrc, facing, **kw)


FAR_TALON = [ship("talon_ca", "Justice", (2, 14), "W", speed=1)]


# -- 14 rotation and speed ---------------------------------------------------------------------
@pytest.mark.parametrize("speed,turns", [(1, "F"), (2, "CF"), (3, "BDF")])
def test_base_turns_one_hexside_clockwise_in_the_impulses_of_its_speed(speed, turns):
    # Talon 14: "Una base con velocità 1 ruoterà in senso orario solo una volta per round
    # (nell'impulso F). Una base con velocità 2 ruoterà negli impulsi C e F"; speed 3 moves in
    # B, D and F on the impulse chart (4.1, data/tables.json).  Clockwise from E is SE, then SW.
    core = base_game([base(speed=speed)], FAR_TALON)
    facing = 0
    for i, letter in enumerate("ABCDEF"):
        drive(core, lambda c: stage(c) == R.ST_FIRE_SHIP or g(c, R.G_IMPULSE) > i)
        if letter in turns:
            facing = (facing + 5) % 6
        assert sh(core, 0, 0, R.SH_FACING) == facing, letter
        drive(core, lambda c: g(c, R.G_IMPULSE) > i)
    assert sh(core, 0, 0, R.SH_CELL) == core.cfg.grid.cell(9, 4)       # never moved


def test_base_neither_moves_nor_side_slips():
    # Talon 14: bases do not move; the turn is done for them (no decision), and an AP cannot
    # buy a side slip (6.1) for a base; the mask, the step and why_illegal agree.
    core = base_game([base(speed=3), ship("terran_ca", "Patton", (5, 4), "E", speed=2),
                      ship("terran_ca", "Napoleon", (3, 4), "E", speed=4)], FAR_TALON)
    assert stage(core) == R.ST_AP
    assert not legal(core, "AP", 0, R.U_SLIP) and not core.mask[0, A(core, "AP", 0, R.U_SLIP)]
    assert "Talon 14" in core.why_illegal(0, A(core, "AP", 0, R.U_SLIP))
    assert legal(core, "AP", 1, R.U_SLIP)
    act(core, "DONE")
    assert stage(core) == R.ST_MOVE and sh(core, 0, 0, R.SH_FACING) == 0     # impulse A: not a speed-3 impulse
    for m in range(R.N_MOVES):
        assert not legal(core, "MOVE", 0, m) and "Talon 14" in core.why_illegal(0, A(core, "MOVE", 0, m))
    with pytest.raises(ValueError, match="Talon 14"):
        core.step_one(0, A(core, "MOVE", 0, R.M_STRAIGHT))
    assert sh(core, 0, 0, R.SH_FACING) == 0 and sh(core, 0, 0, R.SH_CELL) == core.cfg.grid.cell(9, 4)


def test_base_changes_speed_by_one_in_the_power_phase_and_keeps_its_power():
    # Talon 14: "la velocità può essere modificata di un punto in su o giù nella Fase di Potenza.
    # Gli AP di una base non sono impattati dalla sua velocità" (curve 6-3 / 6-2 / 6-1).
    core = base_game([base(speed=2)], FAR_TALON, impulse="F")
    drive(core, lambda c: stage(c) == R.ST_POWER and g(c, R.G_DECIDER) == 0)
    assert all(legal(core, "SPEED", d) for d in range(3))
    act(core, "SPEED", 2)                                   # one faster: speed 3
    assert sh(core, 0, 0, R.SH_CURVE) == 0 and sh(core, 0, 0, R.SH_POWER) == 6
    assert R.speed_of(core.state.sh, core.cfg.struct, 0, 0, 0) == 3


# -- 14 no collision damage ----------------------------------------------------------------------
def test_friendly_ship_entering_a_base_hex_takes_no_collision_damage():
    # Talon 14 "Se una base ed una nave amica occupano lo stesso esagono non si assegna nessun
    # danno" (contrast 7.4: two friendly ships take 3 each, tests/test_talon_rules.py).
    core = base_game([ship("terran_ca", "Patton", (9, 3), "E", speed=4), base((9, 4))], FAR_TALON)
    act(core, "DONE")                                       # no AP spent
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_CELL) == sh(core, 0, 1, R.SH_CELL)
    assert stage(core) != R.ST_COLLIDE
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == 6 and sh(core, 0, 1, R.SH_SHIELD + R.ARC_REAR) == 7


# -- 8.5 criticals a base ignores -----------------------------------------------------------------
@pytest.mark.parametrize("roll,column", [((2, 2), R.SH_C_HELM), ((3, 3), R.SH_C_TURN)])
@pytest.mark.parametrize("target,hull_hits", [("terran_base", 4), ("terran_ca", 3)])
def test_base_ignores_helm_down_and_turn_radius_criticals(roll, column, target, hull_hits):
    # Talon 8.5: results 4 (helm down) and 6 (turn radius +1) have no effect on a base; a
    # ship takes the marker.  The Justice's disruptor at range 1 hits on a 5 for 2: the base's
    # box 4 (-1C) or the CA's box 3 is critical (2d6 scripted), then one more box; its second
    # disruptor misses (1).
    name = "Valley Forge" if target == "terran_base" else "Patton"
    core = base_game([ship(target, name, (8, 5), "W", shields=[0, 7, 7, 7][:4] if target == "terran_base"
                           else [0, 5, 5, 4], hull_hits=hull_hits)],
                     [ship("talon_ca", "Justice", (8, 4), "E")], dice=(5, *roll, 1), impulse="E", initiative=1)
    if stage(core) == R.ST_MOVE:
        act(core, "DONE")
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)
    act(core, "TARGET", 0)
    assert sh(core, 0, 0, R.SH_HULL_HITS) == hull_hits + 2
    assert (sh(core, 0, 0, column) > 0) == (target == "terran_ca")


def test_base_core_breach_destroys_it():
    # Talon 8.5 result 12, FTL core breach: "bases too".
    core = base_game([base((8, 5), "W", shields=[0, 7, 7, 7], hull_hits=4)],
                     [ship("talon_ca", "Justice", (8, 4), "E")], dice=(5, 6, 6), impulse="E", initiative=1)
    if stage(core) == R.ST_MOVE:
        act(core, "DONE")
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED and g(core, R.G_SP1) == 184


# -- 11.1.4 no FTL ---------------------------------------------------------------------------------
def test_base_cannot_retreat():
    # Talon 11.1.4 "Le basi non possono ritirarsi, non hanno FTL"; the CA's drive is active
    # from round 6 (11.1.3), the base's never.
    core = base_game([base(), ship("terran_ca", "Patton", (5, 4), "E", speed=1)], FAR_TALON, impulse="F",
                     retreat=True)
    core.state.g[0, R.G_ROUND] = 9
    drive(core, lambda c: stage(c) == R.ST_RETREAT and g(c, R.G_DECIDER) == 0)
    assert legal(core, "RETREAT", 1)
    assert not legal(core, "RETREAT", 0) and "FTL" in core.why_illegal(0, A(core, "RETREAT", 0))


# -- options, scenarios, setup ---------------------------------------------------------------------
def test_bases_need_their_option_and_are_never_drawn_into_fleets():
    # option bases ("auto": on when a ready scenario fields a base); the basic game unchanged
    basic = VecGame(game, 1)
    assert basic.cfg.k[R.K_BASES] == 0 and basic.num_actions == 203
    with pytest.raises(ValueError, match="bases=True"):
        VecGame(game, 1, {"heavy_weapons": True}).load_scenario(
            {"players": [{"ships": [base()]}, {"ships": FAR_TALON}]}, seed=0)
    # 14 bases are placed first "come se fossero pianeti": not part of a fleet's line
    core = VecGame(game, 1, {"scenario": "fleet", **BASE_OPTIONS})
    drawn = {core.cfg.class_keys[c] for c in core.cfg.fleet_cls.ravel() if c >= 0}
    assert "terran_base" not in drawn and "terran_bb" in drawn


def test_starbase_scenario_loads_with_its_rules():
    core = VecGame(game, 1, {"scenario": "starbase"})
    core.reset(seed=0)
    assert core.cfg.k[R.K_BASES] == 1 and core.cfg.k[R.K_HEAVY] == 1
    assert core.cfg.class_keys[int(core.state.sh[0, 0, 0, R.SH_CLASS])] == "terran_base"


def test_fast_mask_equals_reference_in_starbase():
    mask_equals_reference({"scenario": "starbase"})


def test_fast_observation_equals_reference_in_starbase():
    obs_equals_reference({"scenario": "starbase"})


def test_stage_has_choice_equals_reference_in_starbase():
    stage_has_choice_equals_reference({"scenario": "starbase"})


def test_random_play_fuzz_in_starbase():
    fuzz_stages("starbase", terrain=False)


def test_scripted_captain_beats_random_in_starbase():
    wins, draws, losses, _, _ = scripted_vs_random(n=20, seed=7, options={"scenario": "starbase"})
    assert wins >= 14 and losses <= 3, (wins, draws, losses)
