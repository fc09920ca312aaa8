"""Talon basic rules (seed 000, sections 3-10): each test names the rule it checks
and asserts exact outcomes from scripted dice."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import A, act, drive, g, legal, sh, ship, stage


# -- helpers ----------------------------------------------------------------------------
def scenario(p0, p1, **kw):
    return {"players": [{"ships": p0}, {"ships": p1}], **kw}


def core_for(sc, **options):
    core = VecGame(game, 1, options)
    core.load_scenario(sc, seed=0)
    return core


def ca_duel(p0=None, p1=None, **kw):
    p0 = p0 or [ship("terran_ca", "Patton", (8, 4), "E")]
    p1 = p1 or [ship("talon_ca", "Justice", (8, 6), "W")]
    return scenario(p0, p1, **kw)


# -- 4.1 impulse chart -------------------------------------------------------------------
@pytest.mark.parametrize("letter,ap,move", [("A", 0, 1), ("B", 0, 0), ("C", 1, 1), ("D", 0, 1), ("E", 0, 0),
                                            ("F", 1, 1)])
def test_patton_ap_and_movement_impulses(letter, ap, move):
    # Talon 4.1 example: the Patton at Power 2 gets AP in C and F and moves
    # whenever a 4 is in the box (A, C, D and F on the chart of the reference data).
    sc = ca_duel([ship("terran_ca", "Patton", (8, 4), "E", speed=4)], impulse=letter)
    core = core_for(sc)
    view = game.split_obs(core.cfg, core.observe(0, 0)[0])["ships"]
    assert (view[0, 0, R.F_POWER], view[0, 0, R.F_SPEED]) == (2, 4)
    assert view[0, 0, R.F_AP_NOW] == ap
    assert view[0, 0, R.F_MUST_MOVE] == move


# -- 4.2 initiative ------------------------------------------------------------------------
def test_initiative_change_in_impulse_c():
    # Talon 4.2 example: in impulse C the Talon player (initiative) defends with
    # one ship, two Terran ships spend AP to change; the Terran player chooses and
    # takes the initiative, so it plays first in impulse D.
    sc = scenario([ship("terran_ca", "Patton", (4, 2), "E", speed=4),
                   ship("terran_ca", "Napoleon", (12, 2), "E", speed=4)],
                  [ship("talon_ca", "Justice", (8, 12), "W", speed=2)], impulse="C", initiative=1)
    core = core_for(sc)
    assert g(core, R.G_DECIDER) == 1 and stage(core) == R.ST_AP
    act(core, "AP", 0, R.U_DEFEND)       # its only AP: the AP step ends by itself
    act(core, "MOVE", 0, R.M_STRAIGHT)   # moved: no afterburner left to decide, the turn goes on
    assert g(core, R.G_DECIDER) == 0 and stage(core) == R.ST_AP
    act(core, "AP", 0, R.U_CHANGE)
    act(core, "AP", 1, R.U_CHANGE)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    act(core, "MOVE", 1, R.M_STRAIGHT)
    # 2 change markers against 1 defend marker: the Terran player decides
    assert stage(core) == R.ST_INIT and g(core, R.G_DECIDER) == 0
    act(core, "INIT", 0)                  # take it
    assert g(core, R.G_INIT) == 0 and g(core, R.G_IMPULSE) == 3
    assert g(core, R.G_DECIDER) == 0     # the Terran player's turn comes first in D
    assert all(sh(core, p, k, R.SH_INIT_MARK) == 0 for p in range(2) for k in range(2))


def test_initiative_defended_when_defend_markers_match():
    # Talon 4.2: defend markers >= change markers: the initiative does not change
    sc = scenario([ship("terran_ca", "Patton", (4, 2), "E", speed=4)],
                  [ship("talon_ca", "Justice", (8, 12), "W", speed=2)], impulse="C", initiative=1)
    core = core_for(sc)
    act(core, "AP", 0, R.U_DEFEND)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    act(core, "AP", 0, R.U_CHANGE)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert g(core, R.G_IMPULSE) == 3 and g(core, R.G_INIT) == 1 and g(core, R.G_DECIDER) == 1


def test_initiative_can_be_given_away():
    # Talon 4.2 "Si può dare l'iniziativa all'avversario"
    sc = scenario([ship("terran_ca", "Patton", (4, 2), "E", speed=4)],
                  [ship("talon_ca", "Justice", (8, 12), "W", speed=2)], impulse="C", initiative=1)
    core = core_for(sc)
    act(core, "AP", 0, R.U_CHANGE)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    act(core, "DONE")                     # Patton passes its AP
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert stage(core) == R.ST_INIT and g(core, R.G_DECIDER) == 1
    act(core, "INIT", 1)                  # the Talon player gives the initiative away
    assert g(core, R.G_INIT) == 0


# -- 5.4 power curve, 9.3 power phase -----------------------------------------------------
def to_power_phase(core):
    drive(core, lambda c: stage(c) == R.ST_POWER)


def test_terran_ca_speed_change():
    # Talon 5.4.3 example: a Terran CA at speed 3 may go to 4 or 2; at 4 its curve is 2-4-2
    core = core_for(ca_duel(impulse="F", initiative=0))
    to_power_phase(core)
    assert g(core, R.G_DECIDER) == 0 and g(core, R.G_SHIP) == 0
    assert [legal(core, "SPEED", d) for d in range(3)] == [True, True, True]
    act(core, "SPEED", 2)                 # one faster
    assert sh(core, 0, 0, R.SH_CURVE) == 1
    assert (sh(core, 0, 0, R.SH_POWER), R.speed_of(core.state.sh, core.cfg.struct, 0, 0, 0),
            R.turn_radius(core.state.sh, core.cfg.struct, 0, 0, 0)) == (2, 4, 2)


def test_guderian_must_slow_down():
    # Talon 5.4.5 example: Guderian at 1-5-3 with -2 in the left-most hull box must
    # slow to speed 4: 2-4-2 becomes 0-4-2.  Speed 5 would give Power -1.
    p0 = [ship("terran_ca", "Guderian", (8, 4), "E", speed=5, hull_hits=5),
          ship("terran_ca", "Patton", (12, 4), "E")]
    core = core_for(ca_duel(p0, impulse="F", initiative=1))
    drive(core, lambda c: g(c, R.G_IMPULSE) == 0 and g(c, R.G_ROUND) == 2)
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_ACTIVE
    assert sh(core, 0, 0, R.SH_CURVE) == 1 and sh(core, 0, 0, R.SH_POWER) == 0


def test_negative_power_destroys_the_ship():
    # Talon 5.4.5 + 9.3: with Power Loss the curve cannot be adjusted; Power -1 at
    # the end of the power phase: the ship breaks apart (the enemy scores its 115 SP)
    p0 = [ship("terran_ca", "Guderian", (8, 4), "E", speed=5, hull_hits=5, criticals=["power_loss"]),
          ship("terran_ca", "Patton", (12, 4), "E")]
    core = core_for(ca_duel(p0, impulse="F", initiative=1))
    drive(core, lambda c: g(c, R.G_IMPULSE) == 0 and g(c, R.G_ROUND) == 2)
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED
    assert g(core, R.G_SP1) == 115


def test_napoleon_hull_modifier():
    # Talon 8.4.2 example: Napoleon has 3 hull boxes marked, the left-most remaining
    # shows -1; choosing speed 3 (3-3-2) it writes 2-3-2.
    p0 = [ship("terran_ca", "Napoleon", (8, 4), "E", hull_hits=3)]
    core = core_for(ca_duel(p0, impulse="F", initiative=0))
    to_power_phase(core)
    act(core, "SPEED", 1)
    assert sh(core, 0, 0, R.SH_CURVE) == 2 and sh(core, 0, 0, R.SH_POWER) == 2


def test_power_loss_blocks_curve_change():
    # Talon 9.3: Power Loss prevents adjusting the curve
    p0 = [ship("terran_ca", "Patton", (8, 4), "E", criticals=["power_loss"]),
          ship("terran_ca", "Napoleon", (12, 4), "E")]
    core = core_for(ca_duel(p0, impulse="F", initiative=0))
    to_power_phase(core)
    assert g(core, R.G_SHIP) == 1          # the Patton had no choice and was skipped
    assert sh(core, 0, 0, R.SH_CURVE) == 2


# -- 9.2 charging ---------------------------------------------------------------------------
def test_talon_bc_passive_charging():
    # Talon 9.2.1 example: a Talon BC group of 2 disruptors (1 red + 4 yellow) with
    # its red box charged charges 2 yellow boxes; 9.2.2 a group missing its red box
    # charges only that red box.
    p1 = [ship("talon_bc", "Freedom", (8, 10), "W", charge=[[1, 0], [2, 0], [0, 0]])]
    core = core_for(ca_duel(p1=p1, impulse="F", initiative=0), missiles=True)
    to_power_phase(core)
    drive(core, lambda c: g(c, R.G_ROUND) == 2)
    assert [sh(core, 1, 0, R.SH_RED + i) for i in range(3)] == [1, 2, 1]
    assert [sh(core, 1, 0, R.SH_YEL + i) for i in range(3)] == [2, 0, 0]


def test_power_loss_blocks_charging():
    # Talon 9.3: Power Loss prevents recharging weapons in the power phase
    p0 = [ship("terran_ca", "Patton", (8, 4), "E", charge=[[0, 0], [1, 0], [1, 1]], criticals=["power_loss"])]
    core = core_for(ca_duel(p0, impulse="F", initiative=0))
    drive(core, lambda c: g(c, R.G_ROUND) == 2)
    assert [sh(core, 0, 0, R.SH_RED + i) for i in range(3)] == [0, 1, 1]
    assert [sh(core, 0, 0, R.SH_YEL + i) for i in range(3)] == [0, 0, 1]


def test_active_charging_with_ap():
    # Talon 6.1 / 8.1.2: an AP charges one yellow box, even with the red box empty
    p0 = [ship("terran_ca", "Patton", (8, 4), "E", charge=[[0, 0], [1, 2], [1, 1]])]
    core = core_for(ca_duel(p0, impulse="B", initiative=0))
    act(core, "AP", 0, R.U_CHARGE + 0)
    assert sh(core, 0, 0, R.SH_YEL) == 1 and sh(core, 0, 0, R.SH_RED) == 0
    assert not legal(core, "AP", 0, R.U_CHARGE + 1)   # one AP per impulse (5.1)


# -- 6.2 shield reinforcement ------------------------------------------------------------------
def test_reinforcement_limits_2nd_edition():
    # Talon 6.2.2 (2nd ed.): one per arc, two per ship, destroyed arcs may be reinforced
    p0 = [ship("terran_ca", "Patton", (8, 4), "E", shields=[6, 5, 0, 4], reinforcements={"front": "E", "rear": "E"}),
          ship("terran_ca", "Napoleon", (12, 4), "E", shields=[6, 5, 0, 4], reinforcements={"front": "E"}),
          ship("terran_ca", "Zhukov", (4, 4), "E", criticals=["shields_down"])]
    core = core_for(ca_duel(p0, impulse="F", initiative=0))
    assert core.why_illegal(0, A(core, "AP", 0, R.U_REINF + 1)).endswith("(Talon 6.2.2)")
    assert not legal(core, "AP", 1, R.U_REINF + 0)      # arc already reinforced
    assert legal(core, "AP", 1, R.U_REINF + 2)          # destroyed arc: allowed in 2nd ed.
    assert "critical" in core.why_illegal(0, A(core, "AP", 2, R.U_REINF + 0))
    act(core, "AP", 1, R.U_REINF + 2)
    assert sh(core, 0, 1, R.SH_REINF + 2) == 6          # letter F + 1


def test_reinforcement_limits_1st_edition():
    # Talon 6.2.2 (1st ed. example): Power 3 with one reinforcement cannot place
    # another; Power 4 can place a second; Power 1 can place one; destroyed arcs cannot.
    p0 = [ship("terran_ca", "Patton", (8, 4), "E", reinforcements={"front": "E"}),
          ship("terran_ca", "Napoleon", (12, 4), "E", speed=2, reinforcements={"front": "E"}),
          ship("terran_ca", "Zhukov", (4, 4), "E", speed=5, shields=[6, 5, 0, 4])]
    core = core_for(ca_duel(p0, impulse="F", initiative=0), edition=1)
    assert not legal(core, "AP", 0, R.U_REINF + 1)
    assert legal(core, "AP", 1, R.U_REINF + 1)
    assert legal(core, "AP", 2, R.U_REINF + 0)
    assert not legal(core, "AP", 2, R.U_REINF + 2)


def test_reinforcement_absorbs_first_and_expires_next_round():
    # Talon 6.2.1: absorbs one damage before the shield; 6.2.3: expires at the same
    # letter of the next round; may be removed early by the owner.
    core = core_for(ca_duel(impulse="D", initiative=0))
    act(core, "AP", 0, R.U_REINF + 0)
    assert sh(core, 0, 0, R.SH_REINF) == 4
    R.damage(core.state.view, core.cfg.struct, 0, 0, 0, R.ARC_FRONT, 2)
    assert sh(core, 0, 0, R.SH_REINF) == 0 and sh(core, 0, 0, R.SH_SHIELD) == 5
    core2 = core_for(ca_duel(impulse="D", initiative=0))
    act(core2, "AP", 0, R.U_REINF + 3)
    drive(core2, lambda c: g(c, R.G_ROUND) == 2 and g(c, R.G_IMPULSE) == 2 and g(c, R.G_DECIDER) == 1)
    assert sh(core2, 0, 0, R.SH_REINF + 3) == 4         # still there in round 2 impulse C
    drive(core2, lambda c: g(c, R.G_ROUND) == 2 and g(c, R.G_IMPULSE) == 3)
    assert sh(core2, 0, 0, R.SH_REINF + 3) == 0         # gone at the start of round 2 impulse D
    core3 = core_for(ca_duel([ship("terran_ca", "Patton", (8, 4), "E", reinforcements={"left": "A"})],
                             impulse="D", initiative=0))
    act(core3, "UNREINF", 0, 2)
    assert sh(core3, 0, 0, R.SH_REINF + 2) == 0


# -- 7 movement ------------------------------------------------------------------------------
def test_turn_marker_and_power_through_a_turn():
    # Talon 7.2.1 rotate then advance; 7.2.2 the marker is turn-radius hexes ahead;
    # 6.1 an AP brings it one hex closer.
    p0 = [ship("terran_ca", "Patton", (8, 4), "E", speed=4)]  # 2-4-2
    core = core_for(ca_duel(p0, p1=[ship("talon_ca", "Justice", (2, 14), "W")], impulse="A", initiative=0))
    act(core, "MOVE", 0, R.M_TURN_LEFT)
    assert sh(core, 0, 0, R.SH_FACING) == 1 and sh(core, 0, 0, R.SH_CELL) == core.cfg.grid.cell(7, 4)
    assert sh(core, 0, 0, R.SH_TURN_LEFT) == 2
    drive(core, lambda c: g(c, R.G_IMPULSE) == 2 and g(c, R.G_DECIDER) == 0)   # impulse C: AP and move
    act(core, "AP", 0, R.U_TURN)
    assert sh(core, 0, 0, R.SH_TURN_LEFT) == 1
    assert not legal(core, "MOVE", 0, R.M_TURN_RIGHT)
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 0, R.SH_TURN_LEFT) == 0
    drive(core, lambda c: g(c, R.G_IMPULSE) == 3 and g(c, R.G_DECIDER) == 0 and stage(c) == R.ST_MOVE)
    assert legal(core, "MOVE", 0, R.M_TURN_RIGHT)


def test_side_slip():
    # Talon 7.3: a side slip needs the marker bought with an AP, keeps the facing,
    # and the marker goes at the next move whether used or not.
    p0 = [ship("terran_ca", "Patton", (8, 4), "E", speed=4)]
    core = core_for(ca_duel(p0, impulse="C", initiative=0))
    assert not legal(core, "MOVE", 0, R.M_SLIP_LEFT)
    act(core, "AP", 0, R.U_SLIP)
    act(core, "MOVE", 0, R.M_SLIP_LEFT)
    assert sh(core, 0, 0, R.SH_FACING) == 0
    assert sh(core, 0, 0, R.SH_CELL) == core.cfg.grid.neighbors[core.cfg.grid.cell(8, 4), 1]
    assert sh(core, 0, 0, R.SH_SLIP) == 0


def test_helm_down_moves_straight_only():
    # Talon 8.5 critical 4
    p0 = [ship("terran_ca", "Patton", (8, 4), "E", speed=4, slip=True, criticals=["helm_down"])]
    core = core_for(ca_duel(p0, impulse="A", initiative=0))
    assert legal(core, "MOVE", 0, R.M_STRAIGHT)
    assert not any(legal(core, "MOVE", 0, m) for m in (1, 2, 3, 4))


def test_collision_with_own_ship():
    # Talon 7.4: a ship entering a friendly ship's hex: 3 damage to each on the
    # shields facing the other, in the order the owner chooses.
    p0 = [ship("terran_ca", "Patton", (8, 4), "E", speed=4), ship("terran_ca", "Napoleon", (8, 5), "E", speed=3)]
    core = core_for(ca_duel(p0, p1=[ship("talon_ca", "Justice", (8, 12), "W")], impulse="A", initiative=0))
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert stage(core) == R.ST_COLLIDE and g(core, R.G_DECIDER) == 0
    act(core, "COLLIDE", 0)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == 3     # Patton's bow hit the Napoleon
    assert sh(core, 0, 1, R.SH_SHIELD + R.ARC_REAR) == 1      # the Patton came from astern


def test_ship_destroyed_by_a_collision_collides_no_more():
    # Talon 8.6.1 with 7.4: a ship destroyed by its collision with the first of two friendly
    # ships in the hex it enters is "immediatamente distrutta. Rimuovere il segnalino": it
    # explodes (8.6.2), but the second friendly ship takes no collision damage from it and
    # its owner is asked for no further collision order.
    p0 = [ship("terran_ca", "Patton", (8, 3), "E", speed=4, shields=[0, 5, 5, 4], hull_hits=5),
          ship("terran_ca", "Napoleon", (8, 4), "E", speed=3),
          ship("terran_ca", "Guderian", (8, 5), "W", speed=4)]
    core = core_for(ca_duel(p0, p1=[ship("talon_ca", "Justice", (8, 14), "W", speed=2)],
                            impulse="A", initiative=0))
    act(core, "MOVE", 2, R.M_STRAIGHT)    # the Guderian joins the Napoleon: 3 on each front
    assert stage(core) == R.ST_COLLIDE
    act(core, "COLLIDE", 0)
    assert [sh(core, 0, k, R.SH_SHIELD + R.ARC_FRONT) for k in (1, 2)] == [3, 3]
    # the Patton enters the hex of both; explosion arcs: Napoleon 6,1,1,1 (front), Guderian 1,6,1,1 (right)
    core.script_dice(0, [6, 1, 1, 1, 1, 6, 1, 1])
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert stage(core) == R.ST_COLLIDE and g(core, R.G_COLL_OTHER) == 1    # the Napoleon first
    act(core, "COLLIDE", 0)               # the Patton's damage first: its last hull box, destroyed
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED
    assert stage(core) != R.ST_COLLIDE    # nothing left to collide with the Guderian
    assert sh(core, 0, 1, R.SH_SHIELD + R.ARC_REAR) == 4 - 3                # collision, from astern
    assert sh(core, 0, 1, R.SH_SHIELD + R.ARC_FRONT) == 0                   # explosion 3, same hex
    assert [sh(core, 0, 2, R.SH_SHIELD + a) for a in range(4)] == [3, 5 - 3, 5, 4]   # no 3 more
    assert g(core, R.G_COLL_QUEUE) == 0


def test_ship_destroyed_by_its_collision_when_the_other_takes_damage_first():
    # Talon 8.6.1 with 7.4: the same when the owner has the other ship take its damage first
    p0 = [ship("terran_ca", "Patton", (8, 3), "E", speed=4, shields=[0, 5, 5, 4], hull_hits=5),
          ship("terran_ca", "Napoleon", (8, 4), "E", speed=3),
          ship("terran_ca", "Guderian", (8, 5), "W", speed=4)]
    core = core_for(ca_duel(p0, p1=[ship("talon_ca", "Justice", (8, 14), "W", speed=2)],
                            impulse="A", initiative=0))
    act(core, "MOVE", 2, R.M_STRAIGHT)
    act(core, "COLLIDE", 1)
    core.script_dice(0, [6, 1, 1, 1, 1, 6, 1, 1])
    act(core, "MOVE", 0, R.M_STRAIGHT)
    act(core, "COLLIDE", 1)               # the Napoleon's damage first, then the Patton's: destroyed
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED
    assert stage(core) != R.ST_COLLIDE
    assert [sh(core, 0, k, R.SH_SHIELD + R.ARC_FRONT) for k in (1, 2)] == [0, 3]
    assert sh(core, 0, 2, R.SH_SHIELD + R.ARC_RIGHT) == 5 - 3


def test_initiative_markers_leave_with_a_destroyed_ship():
    # Talon 4.2 with 8.6.1: the markers are on the ship ("riceve il segnalino") and leave the
    # map with it.  The Patton defends the initiative and is destroyed later in the impulse;
    # at the end of the impulse the Talon change marker stands alone, so the Talon player
    # decides; the observation counts no defend marker once the Patton is gone.
    # Patton: curve 4-2-1 with box 6's -2, Power 2: AP and a move in C (Talon 4.1, 8.4.2)
    p0 = [ship("terran_ca", "Patton", (8, 6), "W", speed=2, shields=[0, 5, 5, 4], hull_hits=5),
          ship("terran_ca", "Napoleon", (8, 7), "E", speed=3)]
    core = core_for(scenario(p0, [ship("talon_ca", "Justice", (8, 3), "E", speed=2)],
                             impulse="C", initiative=0))
    assert stage(core) == R.ST_AP and g(core, R.G_DECIDER) == 0
    act(core, "AP", 0, R.U_DEFEND)        # the Patton's only AP
    act(core, "MOVE", 0, R.M_STRAIGHT)    # to (8, 5)
    while g(core, R.G_DECIDER) == 0:      # the Terran player does not fire
        act(core, "DONE")
    glob = game.split_obs(core.cfg, core.observe(0, 1)[0])["globals"]
    assert (glob[R.O_CHANGE_MINE], glob[R.O_CHANGE_THEIRS], glob[R.O_DEFEND]) == (0, 0, 1)
    assert stage(core) == R.ST_AP
    act(core, "AP", 0, R.U_CHANGE)
    act(core, "MOVE", 0, R.M_STRAIGHT)    # to (8, 4), next to the Patton
    while stage(core) == R.ST_MOVE:
        act(core, "DONE")                 # no afterburner
    core.script_dice(0, [5, 1])
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)                # range 1: a 5 hits for 2, the Patton's last hull box
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED
    act(core, "TARGET", 1)                # the second disruptor misses the Napoleon (range 3)
    assert stage(core) == R.ST_FIRE_GROUP and g(core, R.G_IMPULSE) == 2   # group 1 may still fire
    assert sh(core, 0, 0, R.SH_INIT_MARK) == 0
    for v in range(2):
        glob = game.split_obs(core.cfg, core.observe(0, v)[0])["globals"]
        assert glob[R.O_DEFEND] == 0
        assert (glob[R.O_CHANGE_MINE], glob[R.O_CHANGE_THEIRS]) == ((1, 0) if v == 1 else (0, 1))
    while stage(core) != R.ST_INIT and g(core, R.G_IMPULSE) == 2:
        act(core, "DONE")
    # 1 change marker against no defend marker: the Talon player decides (4.2)
    assert stage(core) == R.ST_INIT and g(core, R.G_DECIDER) == 1 and g(core, R.G_IMPULSE) == 2
    act(core, "INIT", 0)
    assert g(core, R.G_INIT) == 1 and g(core, R.G_IMPULSE) == 3


def test_initiative_marker_leaves_with_a_retreated_ship():
    # Talon 4.2 with 7.5.2: a ship removed by the forced withdrawal ("viene rimossa dal
    # gioco") takes its defend marker with it; the observation stops counting it at once.
    p0 = [ship("terran_ca", "Patton", (8, 15), "E", speed=4),
          ship("terran_ca", "Napoleon", (8, 0), "W", speed=2)]     # Power 4: AP in A, no move
    core = core_for(ca_duel(p0, p1=[ship("talon_ca", "Justice", (8, 13), "W", speed=2)],
                            impulse="A", initiative=0))
    act(core, "AP", 1, R.U_DEFEND)
    glob = game.split_obs(core.cfg, core.observe(0, 1)[0])["globals"]
    assert glob[R.O_DEFEND] == 1
    act(core, "MOVE", 0, R.M_STRAIGHT)    # off the map: the Napoleon, far from every ship, withdraws
    assert sh(core, 0, 1, R.SH_STATUS) == R.SS_RETREATED and sh(core, 0, 1, R.SH_INIT_MARK) == 0
    for v in range(2):
        assert game.split_obs(core.cfg, core.observe(0, v)[0])["globals"][R.O_DEFEND] == 0


def test_afterburner_moves_once_per_impulse():
    # Talon 10.2.2: in an impulse without movement an afterburner moves the ship one hex
    p1 = [ship("talon_ca", "Justice", (8, 10), "W")]
    core = core_for(ca_duel(p1=p1, impulse="A", initiative=1))
    assert stage(core) == R.ST_MOVE and g(core, R.G_DECIDER) == 1
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert sh(core, 1, 0, R.SH_AB_LEFT) == 1 and sh(core, 1, 0, R.SH_CELL) == core.cfg.grid.cell(8, 9)
    assert not legal(core, "MOVE", 0, R.M_STRAIGHT)


def test_moving_map_shifts_everything():
    # Talon 7.5.1: a ship about to leave the map shifts every counter, keeping the geometry
    p0 = [ship("terran_ca", "Patton", (8, 15), "E", speed=4), ship("terran_ca", "Napoleon", (10, 12), "E")]
    core = core_for(ca_duel(p0, p1=[ship("talon_ca", "Justice", (6, 13), "W")], impulse="A", initiative=0))
    cols = int(core.cfg.k[R.K_COLS])
    before = [R.to_axial(sh(core, p, k, R.SH_CELL), cols) for p, k in ((0, 0), (0, 1), (1, 0))]
    act(core, "MOVE", 0, R.M_STRAIGHT)
    after = [R.to_axial(sh(core, p, k, R.SH_CELL), cols) for p, k in ((0, 0), (0, 1), (1, 0))]
    dq, dr = after[1][0] - before[1][0], after[1][1] - before[1][1]
    assert (dq, dr) != (0, 0)
    assert after[2] == (before[2][0] + dq, before[2][1] + dr)
    assert after[0] == (before[0][0] + 1 + dq, before[0][1] + dr)    # moved one hex east


def test_forced_withdrawal():
    # Talon 7.5.2: when no shift makes room, a ship 6+ hexes from the nearest ship leaves
    p0 = [ship("terran_ca", "Patton", (8, 15), "E", speed=4), ship("terran_ca", "Napoleon", (8, 0), "W")]
    core = core_for(ca_duel(p0, p1=[ship("talon_ca", "Justice", (8, 13), "W")], impulse="A", initiative=0))
    act(core, "MOVE", 0, R.M_STRAIGHT)
    assert sh(core, 0, 1, R.SH_STATUS) == R.SS_RETREATED
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_ACTIVE


# -- 8 firing -----------------------------------------------------------------------------------
def fire_duel(p0, p1, dice, initiative=1):
    """Impulse E: no AP and no movement at speed 3, the turn goes straight to firing."""
    core = core_for(scenario(p0, p1, impulse="E", initiative=initiative))
    core.script_dice(0, dice)
    if stage(core) == R.ST_MOVE:          # Talon ships could burn an afterburner: decline
        act(core, "DONE")
    return core


def test_disruptor_fire_empties_the_bar_and_hits_the_facing_shield():
    # Talon 8.3: disruptor at range 2 hits on 2-6 for 2 damage; the bar empties (step 3);
    # the damage goes to the target's arc that contains the firer (step 6).
    core = fire_duel([ship("terran_ca", "Patton", (8, 6), "W")], [ship("talon_ca", "Justice", (8, 4), "E")],
                     [4, 1])
    assert g(core, R.G_DECIDER) == 1 and stage(core) == R.ST_FIRE_SHIP
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    assert sh(core, 1, 0, R.SH_RED) == 0 and sh(core, 1, 0, R.SH_YEL) == 0
    assert g(core, R.G_WLEFT) == 2
    act(core, "TARGET", 0)
    act(core, "TARGET", 0)
    assert sh(core, 0, 0, R.SH_SHIELD + R.ARC_FRONT) == 4          # 6 - 2, the second die (1) missed
    assert stage(core) == R.ST_FIRE_GROUP and legal(core, "GROUP", 1) and not legal(core, "GROUP", 0)


def test_the_firing_ship_and_its_weapons_left_decide_every_target_and_group_action():
    # Talon 8.3 (steps 1 and 4): targets are chosen weapon by weapon while the firing ship is in play
    # and its group has weapons left; the step, the mask and stage_has_choice ask the same condition
    # (fire.weapons_left_reason, fire.firer_reason), so a state with none left (as a save may hold)
    # offers no target and has no decision.
    core = fire_duel([ship("terran_ca", "Patton", (8, 6), "W")], [ship("talon_ca", "Justice", (8, 4), "E")],
                     [4, 1])
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    assert stage(core) == R.ST_FIRE_TARGET and legal(core, "TARGET", 0)
    st = core.clone_state()
    mask = np.zeros(core.num_actions, dtype=np.int8)
    st.g[0, R.G_WLEFT] = 0
    assert R.action_reason(st.view, core._k, 0, A(core, "TARGET", 0)) == R.R_NO_WEAPON_LEFT
    R.write_mask(st.view, core._k, 0, mask)
    assert not mask[A(core, "TARGET", 0)] and not R.stage_has_choice(st.view, core._k, 0)
    st.g[0, R.G_WLEFT] = 2
    st.sh[0, 1, 0, R.SH_STATUS] = R.SS_DESTROYED
    for stage_, family in ((R.ST_FIRE_TARGET, "TARGET"), (R.ST_FIRE_GROUP, "GROUP")):
        st.g[0, R.G_STAGE] = stage_
        assert R.action_reason(st.view, core._k, 0, A(core, family, 0)) == R.R_NO_SHIP
        R.write_mask(st.view, core._k, 0, mask)
        assert not mask[A(core, family, 0)] and not R.stage_has_choice(st.view, core._k, 0)


def test_laser_damage_by_range():
    # Talon 8.3 laser table (reference data): range 1, a 2 deals 2 and a 1 deals 1
    core = fire_duel([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 5), "NW")],
                     [2, 1], initiative=0)
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)                 # laser F+L
    act(core, "TARGET", 0)
    act(core, "GROUP", 2)                 # laser F+R
    act(core, "TARGET", 0)
    # Patton sits west of the Justice, which faces NW: that is the Justice's left arc (8.3 step 6)
    assert sh(core, 1, 0, R.SH_SHIELD + R.ARC_LEFT) == 4 - 3


def test_patton_fires_at_vision_left_shield():
    # Talon 8.3 step 6 example: the Patton fires with its front arc at the Vision; the
    # Patton is in the Vision's left arc, so the Vision's left shield is hit.
    core = fire_duel([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ff", "Vision", (8, 6), "NE")],
                     [5], initiative=0)
    assert core.cfg.arc_of[sh(core, 0, 0, R.SH_CELL), sh(core, 1, 0, R.SH_CELL), 0] == R.ARC_FRONT
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 1)                 # torpedo, front arc, range 2: hits on 2-6 for 4
    act(core, "TARGET", 0)
    assert sh(core, 1, 0, R.SH_SHIELD + R.ARC_LEFT) == 0
    assert sh(core, 1, 0, R.SH_HULL_HITS) == 2


def test_targets_must_be_in_arc_and_range():
    # Talon 8.2.2: the group fires only at enemies in its arc and range
    core = fire_duel([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 2), "E")],
                     [], initiative=0)
    view, cfg = core.state.view, core.cfg.struct
    assert R.target_reason(view, cfg, 0, 0, 0, 0, 0) == R.R_OUT_OF_ARC     # the Justice is astern
    assert g(core, R.G_DECIDER) == 1      # so the Terran turn had nothing to decide
    core = fire_duel([ship("terran_ca", "Patton", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 9), "E")],
                     [], initiative=0)
    # range 5: beyond every Terran CA weapon
    assert R.target_reason(core.state.view, core.cfg.struct, 0, 0, 0, 0, 0) == R.R_OUT_OF_RANGE


def test_torpedo_range_one_option():
    # RULES.md: the reference tables give the torpedo no range-1 entry (option torpedo_range1)
    sc = scenario([ship("terran_dd", "Achilles", (8, 4), "E")], [ship("talon_ca", "Justice", (8, 5), "W")],
                  impulse="E", initiative=0)
    core = core_for(sc)
    assert not legal(core, "FIRE_SHIP", 0)
    core = core_for(sc, torpedo_range1="as_range_2")
    assert legal(core, "FIRE_SHIP", 0)


def test_critical_secondary_explosion_destroys_and_explodes():
    # Talon 8.4.3: marking a critical box rolls 2d6; 2 = secondary explosion, 3 more
    # hull boxes; the last box destroys the ship (8.6.1) and its explosion (strength 3)
    # hits the adjacent Justice on the shield facing it (8.6.2).
    core = fire_duel([ship("terran_ca", "Patton", (8, 5), "W", shields=[0, 5, 5, 4], hull_hits=3),
                      ship("terran_ca", "Napoleon", (2, 2), "E")],
                     [ship("talon_ca", "Justice", (8, 4), "E")], [5, 1, 1])
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)                # range 1: a 5 hits for 2
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED
    assert g(core, R.G_SP1) == 115
    assert sh(core, 1, 0, R.SH_SHIELD + R.ARC_FRONT) == 7 - 3
    assert stage(core) not in (R.ST_FIRE_TARGET, R.ST_EXPLODE)   # the second disruptor had no target left


def test_critical_shields_down_and_repair():
    # Talon 8.5 critical 3: shields down, reinforcements destroyed, damage to the hull;
    # 8.7 repaired on a 6 at the end of a later turn, shields back as they were.
    core = fire_duel([ship("terran_ca", "Patton", (8, 5), "W", shields=[0, 5, 5, 4], hull_hits=3,
                           reinforcements={"rear": "A"}),
                      ship("terran_ca", "Napoleon", (2, 2), "E")],
                     [ship("talon_ca", "Justice", (8, 4), "E")], [5, 1, 2, 1, 6])
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)                # 2 damage: box 3 is critical -> 1+2 = 3, then box 4
    act(core, "TARGET", 0)                # the group's second disruptor misses (1)
    assert sh(core, 0, 0, R.SH_C_SHIELDS) > 0 and sh(core, 0, 0, R.SH_REINF + 3) == 0
    assert sh(core, 0, 0, R.SH_HULL_HITS) == 5
    assert sh(core, 0, 0, R.SH_SHIELD + 1) == 5
    # no repair roll in the impulse of the critical: the scripted 6 is the roll at
    # the end of the Terran turn of impulse F
    drive(core, lambda c: g(c, R.G_IMPULSE) == 5 and g(c, R.G_TURN) == 1)
    assert sh(core, 0, 0, R.SH_C_SHIELDS) > 0
    drive(core, lambda c: g(c, R.G_IMPULSE) == 6)
    assert sh(core, 0, 0, R.SH_C_SHIELDS) == 0 and sh(core, 0, 0, R.SH_SHIELD + 1) == 5


def test_weapon_group_destroyed_by_highest_die():
    # Talon 8.5 critical 5: a die per intact group, the highest is destroyed, ties re-rolled
    core = fire_duel([ship("terran_ca", "Patton", (8, 5), "W", shields=[0, 5, 5, 4], hull_hits=3),
                      ship("terran_ca", "Napoleon", (2, 2), "E")],
                     [ship("talon_ca", "Justice", (8, 4), "E")], [5, 2, 3, 6, 6, 2, 5, 1, 1])
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)
    # roll 2+3 = 5: groups roll 6, 6, 2 -> tie between 0 and 1 re-rolled 5, 1 -> group 0 destroyed
    assert sh(core, 0, 0, R.SH_GROUP_DEAD) == 1
    assert sh(core, 0, 0, R.SH_RED) == 0


def test_explosion_same_hex_random_arc():
    # Talon 8.6.2: a ship in the same hex takes the explosion on the arc of the highest die
    core = fire_duel([ship("terran_ca", "Patton", (8, 6), "W", shields=[0, 5, 5, 4], hull_hits=5),
                      ship("terran_ca", "Napoleon", (2, 2), "E")],
                     [ship("talon_ca", "Justice", (8, 4), "E"), ship("talon_ca", "Unity", (8, 6), "E")],
                     [3, 2, 5, 5, 1, 6, 4])
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)
    # arcs roll 2, 5, 5, 1 -> right and left tie, re-rolled 6, 4 -> right arc
    assert sh(core, 1, 1, R.SH_SHIELD + R.ARC_RIGHT) == 4 - 3


def test_explosion_order_chosen_by_owner():
    # Talon 8.6.3: ships destroyed at the same moment explode in the order their owner chooses
    p0 = [ship("terran_ca", "Patton", (8, 6), "W", shields=[0, 5, 5, 4], hull_hits=5),
          ship("terran_ca", "Napoleon", (8, 7), "E", shields=[6, 5, 5, 0], hull_hits=5),
          ship("terran_ca", "Guderian", (9, 6), "E", shields=[6, 5, 0, 4], hull_hits=5),
          ship("terran_ca", "Zhukov", (2, 2), "E")]
    core = fire_duel(p0, [ship("talon_ca", "Justice", (8, 4), "E")], [3] + [1] * 20)
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)                # Patton destroyed; its explosion kills Napoleon and Guderian
    assert stage(core) == R.ST_EXPLODE and g(core, R.G_DECIDER) == 0
    assert legal(core, "EXPLODE", 1) and legal(core, "EXPLODE", 2) and not legal(core, "EXPLODE", 3)
    act(core, "EXPLODE", 2)
    assert [sh(core, 0, k, R.SH_STATUS) for k in range(4)] == [R.SS_DESTROYED] * 3 + [R.SS_ACTIVE]
    assert stage(core) != R.ST_EXPLODE and g(core, R.G_SP1) == 345


# -- 10 batteries --------------------------------------------------------------------------------
def test_battery_charged_with_ap_and_used_without():
    # Talon 10.1.2-10.1.4: starts empty, charged with an AP, gives an AP only in an
    # impulse without AP from the chart
    core = core_for(ca_duel(impulse="D", initiative=0))     # power 3: AP in D, none in E
    assert sh(core, 0, 0, R.SH_BATTERY) == 0
    act(core, "AP", 0, R.U_BATTERY)
    assert sh(core, 0, 0, R.SH_BATTERY) == 1
    drive(core, lambda c: g(c, R.G_IMPULSE) == 4 and g(c, R.G_DECIDER) == 0)
    assert stage(core) == R.ST_AP and not legal(core, "AP", 0, R.U_BATTERY)
    act(core, "AP", 0, R.U_REINF + 0)
    assert sh(core, 0, 0, R.SH_BATTERY) == 0


# -- bad input -------------------------------------------------------------------------------------
def test_illegal_action_raises_and_changes_nothing():
    core = core_for(ca_duel(impulse="E", initiative=0))
    before = core.clone_state()
    a = A(core, "MOVE", 0, R.M_TURN_LEFT)
    with pytest.raises(ValueError, match="another step of the turn"):
        core.step_one(0, a)
    for k, v in before.arrays.items():
        assert np.array_equal(v, core.state.arrays[k]), k


@pytest.mark.parametrize("bad,match", [
    ({"players": []}, "two players"),
    (ca_duel([ship("terran_bb", "Defiant", (8, 4), "E")]), "heavy_weapons=True"),
    (ca_duel([ship("terran_ca", "Enterprise", (8, 4), "E")]), "not a Terran CA counter"),
    (ca_duel([ship("terran_ca", "Patton", (80, 4), "E")]), "outside"),
    (ca_duel([ship("terran_ca", "Patton", (8, 4), "E"), ship("terran_ca", "Zhukov", (8, 4), "E")]), "stacked"),
    (ca_duel([ship("terran_ca", "Patton", (8, 4), "E", speed=7)]), "no speed"),
    (ca_duel(impulse="G"), "impulse"),
])
def test_malformed_scenario_is_rejected(bad, match):
    core = VecGame(game, 1)
    core.reset(seed=0)
    before = core.clone_state()
    with pytest.raises(ValueError, match=match):
        core.load_scenario(bad)
    for k, v in before.arrays.items():
        assert np.array_equal(v, core.state.arrays[k]), k
