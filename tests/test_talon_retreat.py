"""Talon retreat (seed 000, section 11) and the supply phase (3.2): each test names the
rule it checks and asserts exact outcomes."""
from __future__ import annotations

import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import A, act, drive_long, g, legal, rc, scenario, sh, ship, stage, tile, view


def core_for(sc, **options):
    core = VecGame(game, 1, {"retreat": True, **options})
    core.load_scenario(sc, seed=0)
    return core


# -- 11 retreat ---------------------------------------------------------------------------------
@pytest.mark.parametrize("rnd,ok", [(5, False), (6, True)])
def test_ftl_winds_up_in_the_round_of_its_hull_boxes(rnd, ok):
    # Talon 11.1.3 example: a Terran CA (6 hull boxes) activates its FTL in the power phase of round 6
    core = core_for(scenario([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 12), "W")],
                             round=rnd))
    s, cfg = view(core)
    assert (R.ftl_reason(s, cfg, 0, 0, 0) == R.OK) == ok
    assert R.ftl_reason(s, cfg, 0, 1, 0) == R.R_NO_FTL          # a Talon CA has 7 boxes


def test_retreat_phase_after_the_power_phase():
    # Talon 3.2 and 11.1.2: after the power phase (and the supply phase) the initiative player,
    # then the other, may jump eligible ships to FTL; a retreated ship scores nothing.
    sc = scenario([ship("terran_sc", "Explorer", (8, 4), "E", speed=3),
                   ship("terran_ca", "Patton", (10, 4), "E", speed=3)],
                  [ship("talon_ff", "Vision", (8, 12), "W", speed=3), ship("talon_ca", "Justice", (10, 12), "W", speed=3)],
                  round=2, impulse="F", initiative=1)
    core = core_for(sc)
    drive_long(core, lambda c: stage(c) == R.ST_RETREAT)
    # initiative player 1 first: neither its frigate (3 boxes) nor its CA is wound up in
    # round 2, so player 0 decides: its scout (2 boxes) may jump, its CA (6) not yet
    assert g(core, R.G_DECIDER) == 0
    assert legal(core, "RETREAT", 0) and not legal(core, "RETREAT", 1)
    assert game.REASONS[R.R_NO_FTL] in core.why_illegal(0, A(core, "RETREAT", 1))
    act(core, "RETREAT", 0)
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_RETREATED and g(core, R.G_SP1) == 0
    # nothing left to jump: the next round begins
    assert g(core, R.G_ROUND) == 3 and g(core, R.G_IMPULSE) == 0 and stage(core) in (R.ST_AP, R.ST_MOVE)
    assert g(core, R.G_DECIDER) == 1


def test_retreat_is_optional():
    sc = scenario([ship("terran_sc", "Explorer", (8, 4), "E", speed=3)],
                  [ship("talon_ca", "Justice", (10, 12), "W", speed=3)], round=2, impulse="F", initiative=0)
    core = core_for(sc)
    drive_long(core, lambda c: stage(c) == R.ST_RETREAT)
    act(core, "DONE")
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_ACTIVE and g(core, R.G_ROUND) == 3


def test_no_retreat_with_ftl_offline_or_from_nebula_or_asteroids():
    # Talon 11.1.4 (terrain) and the FTL offline critical (8.5 result 10)
    sc = scenario([ship("terran_sc", "Explorer", (8, 4), "E", criticals=["ftl_offline"]),
                   ship("terran_sc", "Voyager", (10, 4), "E"), ship("terran_dd", "Achilles", (12, 4), "E")],
                  [ship("talon_ca", "Justice", (10, 12), "W")],
                  [tile("nebula", (10, 4)), tile("asteroids", (12, 4))], round=5)
    core = core_for(sc, terrain=True)
    s, cfg = view(core)
    assert R.retreat_reason(s, cfg, 0, 0, 0) == R.R_NO_FTL
    assert R.retreat_reason(s, cfg, 0, 0, 1) == R.R_FTL_TERRAIN
    assert R.retreat_reason(s, cfg, 0, 0, 2) == R.R_FTL_TERRAIN


def test_a_side_that_has_retreated_every_ship_ends_the_game():
    # Talon 11 with the end of the game (RULES.md): no ship left in play on a side
    sc = scenario([ship("terran_sc", "Explorer", (8, 4), "E", speed=3)],
                  [ship("talon_ca", "Justice", (10, 12), "W", speed=3)], round=2, impulse="F", initiative=0)
    core = core_for(sc)
    drive_long(core, lambda c: stage(c) == R.ST_RETREAT)
    act(core, "RETREAT", 0)
    assert g(core, R.G_DONE) == 1 and g(core, R.G_WINNER) == 2        # 0 SP each: a draw


def test_without_the_option_there_is_no_retreat_phase():
    core = VecGame(game, 1, {})
    assert core.num_actions == 203 and not core.cfg.k[R.K_RETREAT]
    assert VecGame(game, 1, {"retreat": True}).num_actions == 203 + 8


# -- 3.2 supply phase ---------------------------------------------------------------------------
def test_reinforcements_arrive_in_the_supply_phase_of_their_round():
    # Talon 3.2 "Fase di rifornimento": the scenario's reinforcements arrive after the power phase
    sc = scenario([ship("terran_ca", "Patton", (8, 4), "E", speed=3),
                   ship("terran_ca", "Napoleon", (12, 2), "E", arrives=1)],
                  [ship("talon_ca", "Justice", (8, 12), "W", speed=3)], impulse="F", initiative=0)
    core = core_for(sc, retreat=False)
    assert sh(core, 0, 1, R.SH_STATUS) == R.SS_RESERVE
    obs = game.split_obs(core.cfg, core.observe(0, 0)[0])["ships"]
    assert obs[0, 1, R.F_STATUS] == R.SS_RESERVE
    drive_long(core, lambda c: g(c, R.G_ROUND) == 2)
    assert sh(core, 0, 1, R.SH_STATUS) == R.SS_ACTIVE and rc(core, sh(core, 0, 1, R.SH_CELL)) == (12, 2)
    assert sh(core, 0, 1, R.SH_SHIELD + R.ARC_FRONT) == 6 and sh(core, 0, 1, R.SH_FACING) == 0


def test_a_reinforcement_arrives_next_to_a_friendly_ship_in_its_hex():
    # RULES.md 'Supply': its hex holds a friendly ship, so the nearest free hex (lowest first)
    sc = scenario([ship("terran_ca", "Patton", (8, 3), "E", speed=1),
                   ship("terran_ca", "Napoleon", (8, 4), "E", arrives=1)],
                  [ship("talon_ca", "Justice", (8, 12), "W", speed=1)], impulse="F", initiative=0)
    core = core_for(sc, retreat=False)
    drive_long(core, lambda c: g(c, R.G_ROUND) == 2)
    # the Patton moved into (8, 4) in impulse F; the nearest free hex, lowest row first, is (7, 3)
    assert rc(core, sh(core, 0, 0, R.SH_CELL)) == (8, 4)
    assert rc(core, sh(core, 0, 1, R.SH_CELL)) == (7, 3)


def test_a_side_waiting_for_reinforcements_is_not_beaten():
    # Talon 3.2: a side whose ships are still to arrive fights on
    sc = scenario([ship("terran_ca", "Patton", (8, 4), "E", arrives=1)],
                  [ship("talon_ca", "Justice", (8, 12), "W", speed=3)], impulse="E", initiative=0)
    core = core_for(sc, retreat=False)
    assert g(core, R.G_DONE) == 0
    drive_long(core, lambda c: g(c, R.G_ROUND) == 2)
    assert g(core, R.G_DONE) == 0 and sh(core, 0, 0, R.SH_STATUS) == R.SS_ACTIVE
