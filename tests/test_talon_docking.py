"""Talon docking and landing (seed 000, section 16).  Each test names the rule it checks and asserts
exact outcomes; the carrier_strike scenario (docking on with its fighters) is fuzzed and checked
against the references in tests/test_talon_fighters.py."""
from __future__ import annotations

import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import A, act, g, legal, sh, ship, stage

TALON = [ship("talon_ca", "Justice", (8, 14), "W")]


def dock_game(p0, p1=TALON, impulse="A", initiative=0, dice=(), **fields):
    opts = {"fighters": True, "docking": True, "bases": True, "heavy_weapons": True}
    if "terrain" in fields:
        opts["terrain"] = True
    core = VecGame(game, 1, opts)
    core.load_scenario({"players": [{"ships": p0}, {"ships": p1}], "impulse": impulse, "initiative": initiative,
                        **fields}, seed=0)
    core.script_dice(0, list(dice))
    if stage(core) == R.ST_AP:
        act(core, "DONE")
    return core


def test_squadron_docks_on_its_carrier_at_any_speed_and_retreats():
    # Talon 16.2 "I caccia possono attraccare su un trasporto ... anche se muovono a velocità più
    # elevate"; 16.3 to retreat.  No collision damage (16.2); the squadron is set aside, retreated.
    core = dock_game([ship("terran_cv", "Hornet", (9, 4), "E"), ship("terran_ftr", "Cougar", (9, 3), "E")])
    assert stage(core) == R.ST_MOVE and legal(core, "DOCK", 1, R.M_STRAIGHT)
    assert not legal(core, "DOCK", 1, R.M_TURN_LEFT) or "16" in core.why_illegal(0, A(core, "DOCK", 1, R.M_TURN_LEFT))
    act(core, "DOCK", 1, R.M_STRAIGHT)
    assert sh(core, 0, 1, R.SH_STATUS) == R.SS_RETREATED and sh(core, 0, 1, R.SH_DOCKED) == 1
    assert stage(core) != R.ST_COLLIDE and [sh(core, 0, 0, R.SH_SHIELD + a) for a in range(4)] == [4, 4, 4, 4]


def test_other_ships_dock_only_when_the_scenario_says_so():
    # Talon 16.1: docking "è consentito solo quando richiesto per raggiungere l'obiettivo di uno scenario"
    p0 = [ship("terran_base", "Valley Forge", (9, 4), "E"), ship("terran_ca", "Patton", (9, 3), "E", speed=4)]
    core = dock_game(p0)
    assert "Talon 16" in core.why_illegal(0, A(core, "DOCK", 1, R.M_STRAIGHT))
    core = dock_game(p0, docking=True)
    act(core, "DOCK", 1, R.M_STRAIGHT)
    assert sh(core, 0, 1, R.SH_STATUS) == R.SS_RETREATED and sh(core, 0, 1, R.SH_DOCKED) == 1


@pytest.mark.parametrize("speed,ok", [(2, False), (1, True)])
def test_carrier_docks_only_at_speed_1(speed, ok):
    # Talon 16.2 "Un trasporto non può attraccare o atterrare a meno che non muova a velocità 1";
    # impulse F: speeds 1 and 2 both move.
    core = dock_game([ship("terran_base", "Valley Forge", (9, 4), "E"),
                      ship("terran_cv", "Hornet", (9, 3), "E", speed=speed)], impulse="F", docking=True)
    assert legal(core, "DOCK", 1, R.M_STRAIGHT) == ok
    if not ok:
        assert "speed 1" in core.why_illegal(0, A(core, "DOCK", 1, R.M_STRAIGHT))


def test_landing_on_a_planet_when_the_scenario_allows_it():
    # Talon 16.1 "Con le stesse regole si può atterrare sui pianeti ma solo se consentito dallo
    # scenario": the ship is removed, not destroyed by the planet (17.2.1).
    p0 = [ship("terran_ca", "Patton", (9, 3), "E", speed=4)]
    planet = [{"kind": "planet", "hex": [9, 4]}]
    core = dock_game(p0, terrain=planet)
    assert not legal(core, "DOCK", 0, R.M_STRAIGHT)
    core = dock_game(p0, terrain=planet, landing=True)
    act(core, "DOCK", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_RETREATED and g(core, R.G_SP1) == 0


def test_fighters_aboard_a_destroyed_carrier_are_destroyed():
    # Talon 16.3 "Se un trasporto con caccia atterrati viene distrutto, si considerano distrutti anche
    # tutti i caccia a bordo": the Justice destroys the Hornet (last hull box) after the Cougar docked.
    core = dock_game([ship("terran_cv", "Hornet", (8, 5), "W", shields=[0, 4, 4, 4], hull_hits=5),
                      ship("terran_ftr", "Cougar", (8, 6), "W")],
                     [ship("talon_ca", "Justice", (8, 3), "E", speed=1)], impulse="A", dice=(5,))
    act(core, "DOCK", 1, R.M_STRAIGHT)
    assert sh(core, 0, 1, R.SH_STATUS) == R.SS_RETREATED
    while stage(core) != R.ST_FIRE_SHIP or g(core, R.G_DECIDER) != 1:
        act(core, "DONE")
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)                  # range 2: a 5 hits for 2 on the bare front: the last box
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED and sh(core, 0, 1, R.SH_STATUS) == R.SS_DESTROYED
    assert g(core, R.G_SP1) == 70 + 44


def test_docking_option_and_scenario_fields():
    assert VecGame(game, 1).cfg.k[R.K_DOCKING] == 0
    core = VecGame(game, 1, {"scenario": "carrier_strike"})
    assert core.cfg.k[R.K_DOCKING] == 1
    with pytest.raises(ValueError, match="docking=True"):
        VecGame(game, 1).load_scenario({"players": [{"ships": [ship("terran_ca", "Patton", (9, 3), "E")]},
                                                    {"ships": TALON}], "docking": True}, seed=0)
