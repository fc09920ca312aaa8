"""Talon terrain (seed 000, sections 17-19 with 7.5.3, 8.2.3): each test names the rule it
checks and asserts exact outcomes from scripted dice."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import (act, cell, drive_long, g, legal, rc, scenario, sh, ship, stage, step_hex, step_hex_static,
                           tile, view)


# -- helpers ----------------------------------------------------------------------------
def core_for(sc, **options):
    core = VecGame(game, 1, {"terrain": True, **options})
    core.load_scenario(sc, seed=0)
    return core


# -- 17.2 planets ---------------------------------------------------------------------------
def test_ship_flying_into_a_planet_is_destroyed_and_explodes():
    # Talon 17.2.1: a ship that moves into a planet's hex is destroyed and the ships in the
    # adjacent hexes take its explosion damage; 17.1: the enemy scores it.
    # The Patton (speed 4, impulse A) must move; its only way is straight into the planet.
    near = (7, 5)                                           # next to the planet hex (8, 5)
    sc = scenario([ship("terran_ca", "Patton", (8, 4), "E", speed=4, criticals=["helm_down"]),
                   ship("terran_ca", "Napoleon", near, "E", speed=3)],
                  [ship("talon_ca", "Justice", (2, 12), "W", speed=3)], [tile("planet", (8, 5))], initiative=0)
    core = core_for(sc)
    core.script_dice(0, [])
    assert step_hex(core, 8, 4, 0) == (8, 5)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED
    assert g(core, R.G_SP1) == 115                      # the Talon player scores the Patton
    # the explosion (Terran CA: 3) hits the Napoleon on the arc that faces the planet hex
    arc = int(core.cfg.arc_of[cell(core, *near), cell(core, 8, 5), 0])
    full = [6, 5, 5, 4]
    full[arc] -= 3
    assert [sh(core, 0, 1, R.SH_SHIELD + a) for a in range(4)] == full


def _line_along_hexside(core, r, c):
    """A firer hex, a target hex two away on a 30-degree line, and the two hexes whose
    common side that line runs along (Talon 17.2.2)."""
    a = (r, c)
    b1 = step_hex(core, r, c, 0)           # E
    b2 = step_hex(core, r, c, 5)           # SE
    t = step_hex(core, *b1, 5)             # E then SE: two hexes away, between b1 and b2
    return a, t, b1, b2


def test_planet_blocks_the_line_of_fire_but_not_along_its_hexside():
    # Talon 17.2.2 (and 8.2.3): fire is blocked if the line between the hex centres passes
    # through a planet's hex, not if it runs along the planet's hexside.
    sc = scenario([ship("terran_ca", "Patton", (8, 2), "E")], [ship("talon_ca", "Justice", (8, 6), "W")],
                  [tile("planet", (8, 4))], impulse="E", initiative=0)
    core = core_for(sc)
    s, cfg = view(core)
    assert R.target_reason(s, cfg, 0, 0, 0, 1, 0) == R.R_BLOCKED        # torpedo, front arc
    assert not legal(core, "FIRE_SHIP", 0) or stage(core) != R.ST_FIRE_SHIP
    a, t, b1, b2 = _line_along_hexside(core, 8, 2)
    ca, ct = cell(core, *a), cell(core, *t)
    assert {R.line_step(cfg, ca, ct, 1)[0], R.line_step(cfg, ca, ct, 1)[1]} == {cell(core, *b1), cell(core, *b2)}
    core = core_for(scenario([ship("terran_ca", "Patton", a, "E")], [ship("talon_ca", "Justice", t, "W")],
                             [tile("planet", b1)], impulse="E", initiative=0))
    s, cfg = view(core)
    assert R.line_reason(s, cfg, 0, ca, ct) == R.OK                      # along the side: not blocked
    core = core_for(scenario([ship("terran_ca", "Patton", a, "E")], [ship("talon_ca", "Justice", t, "W")],
                             [tile("planet", b1), tile("planet", b2)], impulse="E", initiative=0))
    s, cfg = view(core)
    assert R.line_reason(s, cfg, 0, ca, ct) == R.OK                      # between two planets: still a side


def test_blocked_target_is_not_offered():
    # Talon 17.2.2: with the only enemy behind a planet the Terran has nothing to fire at,
    # so its fire step asks nothing; without the planet it may fire.
    p0 = [ship("terran_ca", "Patton", (8, 2), "E")]
    p1 = [ship("talon_ca", "Justice", (8, 5), "W")]
    core = core_for(scenario(p0, p1, [tile("planet", (8, 3))], impulse="E", initiative=0))
    assert not (stage(core) == R.ST_FIRE_SHIP and g(core, R.G_DECIDER) == 0)
    core = core_for(scenario(p0, p1, [tile("planet", (6, 3))], impulse="E", initiative=0))
    assert stage(core) == R.ST_FIRE_SHIP and g(core, R.G_DECIDER) == 0 and legal(core, "FIRE_SHIP", 0)


# -- 17.3 asteroids -------------------------------------------------------------------------
def test_asteroids_damage_the_impacted_shield():
    # Talon 17.3: a ship moving into an asteroid hex takes 1 damage on the shield it hits:
    # the front shield moving straight, the left shield side slipping left (7.3.1).
    sc = scenario([ship("terran_ca", "Patton", (8, 4), "E", speed=4),
                   ship("terran_ca", "Napoleon", (12, 4), "E", speed=4, slip=True)],
                  [ship("talon_ca", "Justice", (2, 12), "W", speed=3)],
                  [tile("asteroids", (8, 5)), tile("asteroids", step_hex_static(12, 4, 1))], initiative=0)
    core = core_for(sc)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == 5
    act(core, "MOVE", 1, R.M_SLIP_LEFT)
    assert sh(core, 0, 1, R.SH_SHIELD + R.ARC_LEFT) == 4 and sh(core, 0, 1, R.SH_SHIELD + R.ARC_FRONT) == 6


def test_asteroids_hit_the_hull_when_the_shield_is_down_and_not_a_ship_that_stays():
    # Talon 17.3: shield down -> the hull; a ship that does not move stays unharmed
    sc = scenario([ship("terran_ca", "Patton", (8, 4), "E", speed=4, shields=[0, 5, 5, 4]),
                   ship("terran_ca", "Napoleon", (10, 4), "E", speed=3)],
                  [ship("talon_ca", "Justice", (2, 12), "W", speed=3)],
                  [tile("asteroids", (8, 5)), tile("asteroids", (10, 4))], initiative=0)
    core = core_for(sc)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_HULL_HITS) == 1
    assert [sh(core, 0, 1, R.SH_SHIELD + a) for a in range(4)] == [6, 5, 5, 4]
    assert sh(core, 0, 1, R.SH_HULL_HITS) == 0


# -- 17.4 nebulae ---------------------------------------------------------------------------
def test_nebula_destroys_reinforcements_forbids_them_and_damage_goes_to_the_hull():
    # Talon 17.4.1: entering a nebula destroys the reinforcement markers; inside, the
    # shields count as down (damage to the hull, the boxes stay as they were) and cannot
    # be reinforced.
    sc = scenario([ship("terran_ca", "Patton", (8, 4), "E", speed=4, reinforcements={"front": "A"})],
                  [ship("talon_ca", "Justice", (8, 7), "W", speed=3)], [tile("nebula", (8, 5))], initiative=0)
    core = core_for(sc)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert [sh(core, 0, 0, R.SH_REINF + a) for a in range(4)] == [0, 0, 0, 0]
    s, cfg = view(core)
    assert R.ap_use_reason(s, cfg, 0, 0, 0, R.U_REINF + R.ARC_FRONT) == R.R_IN_NEBULA
    R.damage(core.state.view, cfg, 0, 0, 0, R.ARC_FRONT, 2)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == 6 and sh(core, 0, 0, R.SH_HULL_HITS) == 2


def test_shields_return_as_they_were_outside_the_nebula():
    # Talon 17.4.1 "i suoi scudi si rialzano allo stesso valore che avevano prima"
    sc = scenario([ship("terran_ca", "Patton", (8, 5), "E", speed=4, shields=[3, 5, 5, 4])],
                  [ship("talon_ca", "Justice", (2, 12), "W", speed=3)], [tile("nebula", (8, 5))], initiative=0)
    core = core_for(sc)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    s, cfg = view(core)
    R.damage(core.state.view, cfg, 0, 0, 0, R.ARC_FRONT, 2)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == 1 and sh(core, 0, 0, R.SH_HULL_HITS) == 0
    assert R.ap_use_reason(s, cfg, 0, 0, 0, R.U_REINF + R.ARC_FRONT) != R.R_IN_NEBULA


# -- 17.5 aiming through asteroids and nebulae ----------------------------------------------
def test_aim_penalty_counts_the_firers_and_targets_hexes():
    # Talon 17.5 example: firer and target both in asteroid hexes with one more between
    # them: -3, a 3 becomes 0 and misses; firer only: -1.
    p0 = [ship("terran_ca", "Patton", (8, 2), "E")]
    p1 = [ship("talon_ca", "Justice", (8, 4), "W")]
    core = core_for(scenario(p0, p1, [tile("asteroids", (8, 2)), tile("nebula", (8, 3)), tile("asteroids", (8, 4))],
                             impulse="E", initiative=0))
    s, cfg = view(core)
    assert R.aim_penalty(s, cfg, 0, cell(core, 8, 2), cell(core, 8, 4)) == 3
    core = core_for(scenario(p0, p1, [tile("asteroids", (8, 2))], impulse="E", initiative=0))
    s, cfg = view(core)
    assert R.aim_penalty(s, cfg, 0, cell(core, 8, 2), cell(core, 8, 4)) == 1


def test_aim_penalty_turns_a_hit_into_a_miss():
    # Talon 17.5: "Se il risultato è minore di uno, il colpo è a vuoto". The torpedo hits
    # at range 2 on 2-6: with the Patton in asteroids (-1), a 2 becomes 1 and misses, a 3
    # becomes 2 and hits for 4.
    sc = scenario([ship("terran_ca", "Patton", (8, 2), "E")], [ship("talon_ca", "Justice", (8, 4), "W")],
                  [tile("asteroids", (8, 2))], impulse="E", initiative=0)
    for die, front in ((2, 7), (3, 3)):
        core = core_for(sc)
        core.script_dice(0, [die])
        act(core, "FIRE_SHIP", 0)
        act(core, "GROUP", 1)
        act(core, "TARGET", 0)
        assert sh(core, 1, 0, R.SH_SHIELD + R.ARC_FRONT) == front


def test_aim_penalty_along_a_hexside_option():
    # Talon 17.5: a line along a hexside with asteroids/nebula on both sides counts one hex;
    # with such terrain on one side only it counts none by default (as a planet's side does
    # not block, 17.2.2), one with option hexside_terrain="either_side".
    a, t, b1, b2 = _line_along_hexside(core_for(scenario([ship("terran_ca", "Patton", (8, 2), "E")],
                                                         [ship("talon_ca", "Justice", (2, 12), "W")])), 8, 2)
    p0 = [ship("terran_ca", "Patton", a, "E")]
    p1 = [ship("talon_ca", "Justice", t, "W")]

    def penalty(tiles, **opts):
        core = core_for(scenario(p0, p1, tiles), **opts)
        s, cfg = view(core)
        return R.aim_penalty(s, cfg, 0, cell(core, *a), cell(core, *t))
    assert penalty([tile("asteroids", b1), tile("nebula", b2)]) == 1
    assert penalty([tile("asteroids", b1)]) == 0
    assert penalty([tile("asteroids", b2)]) == 0
    assert penalty([tile("asteroids", b1)], hexside_terrain="either_side") == 1
    assert penalty([tile("nebula", b2)], hexside_terrain="either_side") == 1
    assert penalty([tile("asteroids", b1), tile("nebula", b2)], hexside_terrain="either_side") == 1


def test_terrain_off_the_line_does_not_count():
    # Talon 17.5: only the hexes the line crosses count, not every hex between the two ships
    sc = scenario([ship("terran_ca", "Patton", (8, 2), "E")], [ship("talon_ca", "Justice", (2, 12), "W")])
    core = core_for(sc)
    fc, tc = cell(core, 8, 2), cell(core, 11, 6)
    s, cfg = view(core)
    dist = core.cfg.dist
    on = set()
    for i in range(int(dist[fc, tc]) + 1):
        on |= set(R.line_step(cfg, fc, tc, i))
    between = [c for c in range(dist.shape[0]) if dist[fc, c] + dist[c, tc] == dist[fc, tc] and c not in on]
    assert between                        # hexes on another shortest path exist here
    for opts in ({}, {"hexside_terrain": "either_side"}):
        core = core_for(scenario([ship("terran_ca", "Patton", (8, 2), "E")], [ship("talon_ca", "Justice", (11, 6), "W")],
                                 [tile("asteroids", rc(core, c)) for c in between[:6]]), **opts)
        s, cfg = view(core)
        assert R.aim_penalty(s, cfg, 0, fc, tc) == 0


# -- 18 black holes -------------------------------------------------------------------------
def test_black_hole_destroys_blocks_and_disturbs_aim():
    # Talon 18.1: flying in destroys the ship; it blocks fire like a planet; -1 to the die
    # when the target is nearer to the black hole than the firer.
    sc = scenario([ship("terran_ca", "Patton", (4, 4), "E", speed=4, criticals=["helm_down"])],
                  [ship("talon_ca", "Justice", (12, 12), "W", speed=3)], [tile("black_hole", (4, 6))], initiative=0)
    core = core_for(sc)
    act(core, "MOVE", 0, R.M_STRAIGHT)                     # (4, 5): two hexes away, fine
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_ACTIVE
    s, cfg = view(core)
    assert R.line_reason(s, cfg, 0, cell(core, 4, 5), cell(core, 4, 8)) == R.R_BLOCKED
    assert R.aim_penalty(s, cfg, 0, cell(core, 4, 9), cell(core, 4, 7)) == 1     # target nearer the hole
    assert R.aim_penalty(s, cfg, 0, cell(core, 4, 7), cell(core, 4, 9)) == 0
    # 18.1 no ship is placed nearer than 2 hexes; one that flies in is destroyed
    sc = scenario([ship("terran_ca", "Patton", (4, 3), "E", speed=4, criticals=["helm_down"])],
                  [ship("talon_ca", "Justice", (12, 12), "W", speed=3)], [tile("black_hole", (4, 5))], initiative=0)
    with pytest.raises(ValueError, match="nearer than 2 hexes to a black hole"):
        core_for(scenario([ship("terran_ca", "Patton", (4, 4), "E")], [ship("talon_ca", "Justice", (12, 12), "W")],
                          [tile("black_hole", (4, 5))]))
    core = core_for(sc)
    act(core, "MOVE", 0, R.M_STRAIGHT)                     # (4, 4), next to the hole
    drive_long(core, lambda c: g(c, R.G_IMPULSE) == 2 and stage(c) == R.ST_MOVE and g(c, R.G_DECIDER) == 0)
    act(core, "MOVE", 0, R.M_STRAIGHT)                     # into the black hole
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED and g(core, R.G_SP1) == 115


def test_gravitational_pull_after_the_power_phase():
    # Talon 18.2: after the power phase every ship moves one hex nearer the black hole,
    # keeping its facing and its turn marker; the initiative player's ships first.
    sc = scenario([ship("terran_ca", "Patton", (4, 2), "E", speed=3, turn_left=1)],
                  [ship("talon_ca", "Justice", (4, 12), "W", speed=3)], [tile("black_hole", (4, 8))],
                  impulse="F", initiative=0)
    core = core_for(sc)
    drive_long(core, lambda c: g(c, R.G_IMPULSE) == 0 and g(c, R.G_ROUND) == 2)
    # impulse F at speed 3: each ship moved one hex straight, then the pull one more
    assert rc(core, sh(core, 0, 0, R.SH_CELL)) == (4, 4)
    assert rc(core, sh(core, 1, 0, R.SH_CELL)) == (4, 10)
    assert sh(core, 0, 0, R.SH_FACING) == 0 and sh(core, 1, 0, R.SH_FACING) == 3
    assert sh(core, 0, 0, R.SH_TURN_LEFT) == 0            # one straight move brought the marker 1 -> 0


def test_pull_along_a_hexside_is_chosen_by_the_owner():
    # Talon 18.2: "Se la linea passa sul lato di un esagono, sarà il proprietario della nave
    # a decidere dove spostarla".
    base = scenario([ship("terran_ca", "Patton", (2, 12), "E", speed=3)],
                    [ship("talon_ca", "Justice", (16, 12), "W", speed=3)])
    a, t, b1, b2 = _line_along_hexside(core_for(base), 8, 2)
    start = step_hex(core_for(base), *a, 3)     # west of a: its impulse-F move ends in a
    sc = scenario([ship("terran_ca", "Patton", start, "E", speed=1)],
                  [ship("talon_ca", "Justice", (16, 12), "W", speed=1)], [tile("black_hole", t)],
                  impulse="F", initiative=0)
    core = core_for(sc)
    drive_long(core, lambda c: stage(c) == R.ST_PULL)
    assert g(core, R.G_DECIDER) == 0 and {rc(core, g(core, R.G_PULL_A)), rc(core, g(core, R.G_PULL_B))} == {b1, b2}
    want = rc(core, g(core, R.G_PULL_B))
    act(core, "PULL", 1)
    assert rc(core, sh(core, 0, 0, R.SH_CELL)) == want


def test_pull_into_a_friendly_ship_collides():
    # Talon 18.2 "Qualunque danno da collisioni ... risolti immediatamente" with 7.4
    # both fly west in impulse F, to (4, 3) and (4, 4); the pull east brings the Patton
    # (slot 0, pulled first) into the Napoleon's hex: Patton's rear, Napoleon's front
    sc = scenario([ship("terran_ca", "Patton", (4, 4), "W", speed=1),
                   ship("terran_ca", "Napoleon", (4, 5), "W", speed=1)],
                  [ship("talon_ca", "Justice", (16, 12), "W", speed=1)], [tile("black_hole", (4, 10))],
                  impulse="F", initiative=0)
    core = core_for(sc)
    drive_long(core, lambda c: stage(c) == R.ST_COLLIDE)
    assert g(core, R.G_COLL_MOVER) == 0 and g(core, R.G_COLL_OTHER) == 1
    assert rc(core, sh(core, 0, 0, R.SH_CELL)) == (4, 4)
    act(core, "COLLIDE", 0)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_REAR) == 1           # 4 - 3
    assert sh(core, 0, 1, R.SH_SHIELD + R.ARC_FRONT) == 3          # 6 - 3
    assert stage(core) != R.ST_COLLIDE


def test_pull_into_asteroids_and_into_the_black_hole():
    # Talon 18.2 with 17.3 and 18.1: the pull is a move into the hex: asteroids there damage
    # the shield facing the hole; a ship next to the hole is pulled into it and destroyed,
    # and the enemy scores it (17.1).
    sc = scenario([ship("terran_ca", "Patton", (4, 2), "E", speed=1)],
                  [ship("talon_ca", "Justice", (4, 10), "W", speed=1)],
                  [tile("black_hole", (4, 8)), tile("asteroids", (4, 4))], impulse="F", initiative=0)
    core = core_for(sc)
    drive_long(core, lambda c: g(c, R.G_ROUND) == 2)
    assert rc(core, sh(core, 0, 0, R.SH_CELL)) == (4, 4)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == 5
    assert sh(core, 1, 0, R.SH_STATUS) == R.SS_DESTROYED and g(core, R.G_SP0) == 115
    assert g(core, R.G_DONE) == 1 and g(core, R.G_WINNER) == 0


# -- 19 worm holes ----------------------------------------------------------------------------
def test_worm_hole_takes_the_ship_out_of_the_battle():
    # Talon 19: a ship entering a worm hole retreats at once (no points to anyone); it
    # does not pull or disturb aim like a black hole.
    sc = scenario([ship("terran_ca", "Patton", (8, 4), "E", speed=4, criticals=["helm_down"]),
                   ship("terran_ca", "Napoleon", (12, 4), "E", speed=3)],
                  [ship("talon_ca", "Justice", (2, 12), "W", speed=3)], [tile("worm_hole", (8, 5))], initiative=0)
    core = core_for(sc)
    s, cfg = view(core)
    assert R.aim_penalty(s, cfg, 0, cell(core, 8, 3), cell(core, 8, 6)) == 0
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_RETREATED
    assert g(core, R.G_SP0) == 0 and g(core, R.G_SP1) == 0


# -- 7.5.3 terrain and the moving map -------------------------------------------------------
def test_terrain_moves_with_the_map_and_far_tiles_are_removed():
    # Talon 7.5.3 (17.1): tiles move with the ships when the map moves; a tile more than
    # 6 hexes from every ship is removed.
    sc = scenario([ship("terran_ca", "Patton", (8, 0), "W", speed=4)],
                  [ship("talon_ca", "Justice", (8, 4), "W", speed=3)],
                  [tile("asteroids", (9, 2)), tile("nebula", (0, 15))], initiative=0)
    core = core_for(sc)
    before = rc(core, sh(core, 1, 0, R.SH_CELL))
    act(core, "MOVE", 0, R.M_STRAIGHT)
    after = rc(core, sh(core, 1, 0, R.SH_CELL))
    assert after != before
    assert g(core, R.G_TILES) == 1
    kind, tcell = core.state.tr[0, 0]
    assert kind == R.TK_ASTEROID
    # the asteroid keeps its place relative to the Justice
    q0, r0 = R.to_axial(cell(core, *before), 16)
    q1, r1 = R.to_axial(sh(core, 1, 0, R.SH_CELL), 16)
    qa, ra = R.to_axial(cell(core, 9, 2), 16)
    assert R.to_axial(int(tcell), 16) == (qa + q1 - q0, ra + r1 - r0)


# -- scenarios and the observation ----------------------------------------------------------
@pytest.mark.parametrize("tiles,match", [
    ([{"kind": "moon", "hex": [1, 1]}], "field 'kind'"),
    ([{"kind": "planet", "hex": [40, 1]}], "field 'hex'"),
    ([{"kind": "planet", "hex": [3, 3]}, {"kind": "nebula", "hex": [3, 3]}], "already holds a tile"),
    ([{"kind": "planet", "hex": [8, 4]}], "is on a planet"),
    ([{"kind": "planet"}], "field 'hex'"),
    ("planet", "must be a list"),
])
def test_malformed_terrain_is_refused_and_changes_nothing(tiles, match):
    core = core_for(scenario([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 9), "W")]))
    before = core.state.tr.copy(), core.state.sh.copy()
    with pytest.raises(ValueError, match=match):
        sc = scenario([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 9), "W")])
        sc["terrain"] = tiles
        core.load_scenario(sc, seed=0)
    assert np.array_equal(core.state.tr, before[0]) and np.array_equal(core.state.sh, before[1])


def test_terrain_needs_the_terrain_option():
    core = VecGame(game, 1, {})
    with pytest.raises(ValueError, match="option terrain=True"):
        core.load_scenario(scenario([ship("terran_ca", "Patton", (8, 4), "E")],
                                    [ship("talon_ca", "Justice", (8, 9), "W")], [tile("planet", (3, 3))]), seed=0)
    assert core.obs.shape[1] == game.obs_size(core.cfg) == (16 * 18 * 16 + 2 * 8 * R.N_SF + R.N_GLOBAL
                                                            + game.relations_size(core.cfg))


def test_observation_terrain_planes():
    sc = scenario([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 9), "W")],
                  [tile("planet", (3, 3)), tile("asteroids", (5, 6)), tile("nebula", (6, 6)),
                   tile("black_hole", (14, 8)), tile("worm_hole", (1, 14))])
    core = core_for(sc)
    planes = game.split_obs(core.cfg, core.observe(0, 0)[0])["planes"]
    names = game.plane_names(core.cfg)
    assert planes.shape[0] == len(names) == 21
    for kind, (r, c) in zip(game.TERRAIN_KINDS, [(3, 3), (5, 6), (6, 6), (14, 8), (1, 14)]):
        p = names.index(f"terrain: {kind.replace('_', ' ')}")
        assert planes[p, r, c] == 1 and planes[p].sum() == 1


def test_renderers_draw_the_tiles():
    # Talon 17-19 on the map: ANSI marks each tile, the picture paints its hex
    from wargym.envs.talon import render
    sc = scenario([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 9), "W")],
                  [tile("planet", (3, 3)), tile("asteroids", (5, 6)), tile("nebula", (6, 6)),
                   tile("black_hole", (14, 8)), tile("worm_hole", (1, 14))])
    core = core_for(sc)
    text = render.strip_ansi(render.render(core, 0, "ansi"))
    rows = text.splitlines()
    for mark, (r, c) in zip(("OO", "**", "~~", "@@", "WW"), [(3, 3), (5, 6), (6, 6), (14, 8), (1, 14)]):
        line = next(x for x in rows if x.startswith(f"{r:2d}  "))
        assert line[4 + (2 if r & 1 else 0) + 4 * c:][:4].strip() == mark, (mark, line)
    plain = VecGame(game, 1, {"terrain": True})
    plain.load_scenario(scenario([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 9), "W")]),
                        seed=0)
    with_tiles, without = render.render(core, 0, "rgb_array"), render.render(plain, 0, "rgb_array")
    assert with_tiles.shape == without.shape and (with_tiles != without).any()
