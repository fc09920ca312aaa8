"""Talon fighters (seed 000, section 12, with 7.4, 8.6.4, 11.1.4 and 15.2).  Each test names the
rule it checks and asserts exact outcomes from scripted dice; the ready scenario "carrier_strike"
gets the mask/observation-equals-reference checks, the random-play fuzz and the scripted captain."""
from __future__ import annotations

import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import (A, act, fuzz_stages, g, legal, mask_equals_reference, obs_equals_reference,
                           scripted_vs_random, sh, ship, stage, stage_has_choice_equals_reference)

OPTIONS = {"fighters": True, "heavy_weapons": True}


def fighter_game(p0, p1, dice=(), impulse="A", initiative=0, terrain=None, **options):
    core = VecGame(game, 1, {**OPTIONS, **({"terrain": True} if terrain else {}), **options})
    sc = {"players": [{"ships": p0}, {"ships": p1}], "impulse": impulse, "initiative": initiative}
    if terrain:
        sc["terrain"] = terrain
    core.load_scenario(sc, seed=0)
    core.script_dice(0, list(dice))
    return core


def hornet(hexrc=(9, 2), **kw):
    return ship("terran_cv", "Hornet", hexrc, "E", **kw)


def squadron(name, hexrc, facing="E", **kw):
    return ship("terran_ftr", name, hexrc, facing, **kw)


def fire_at(core, group=0, target=1, both_weapons=True):
    """The Talon player (initiative, impulse E) fires its ship 0's ``group`` at enemy ``target``
    (with the group's second weapon too, if it is asked for and ``both_weapons``)."""
    if stage(core) == R.ST_MOVE:
        act(core, "DONE")                 # no afterburner
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", group)
    act(core, "TARGET", target)
    if both_weapons and stage(core) == R.ST_FIRE_TARGET:
        act(core, "TARGET", target)


# -- 12.1 a squadron of three fighters -----------------------------------------------------------
def test_each_hit_destroys_one_fighter_whatever_its_damage():
    # Talon 12.1.2 no shields, "I danni sono applicati direttamente all'unica casella di scafo";
    # 12.1.3 a weapon targets one fighter: the Justice's two disruptors at range 1 hit on 5s
    # for 2 each, and each destroys one fighter (the second point is lost).
    core = fighter_game([hornet(), squadron("Black Sheep", (8, 5), "W")], [ship("talon_ca", "Justice", (8, 4), "E")],
                        dice=(5, 5), impulse="E", initiative=1)
    assert R.CL_N_HULL and core.cfg.cls[int(core.state.sh[0, 0, 1, R.SH_CLASS]), R.CL_N_HULL] == 3
    fire_at(core)
    assert sh(core, 0, 1, R.SH_HULL_HITS) == 2 and sh(core, 0, 1, R.SH_STATUS) == R.SS_ACTIVE
    assert all(sh(core, 0, 1, R.SH_SHIELD + a) == 0 for a in range(4))


def test_last_fighter_destroyed_scores_the_squadron_and_does_not_explode():
    # Talon 12.1.2 "Quando i caccia sono distrutti, le navi negli esagoni adiacenti non sono colpite
    # da danni di esplosione" (explosion 0, 8.6.4); the squadron's 44 SP go to the Talon player.
    core = fighter_game([hornet((8, 6)), squadron("Black Sheep", (8, 5), "W", hull_hits=2)],
                        [ship("talon_ca", "Justice", (8, 4), "E")], dice=(5,), impulse="E", initiative=1)
    fire_at(core, both_weapons=False)
    assert sh(core, 0, 1, R.SH_STATUS) == R.SS_DESTROYED and g(core, R.G_SP1) == 44
    assert [sh(core, 0, 0, R.SH_SHIELD + a) for a in range(4)] == [4, 4, 4, 4]      # the adjacent CV: nothing


def test_fusion_cannon_does_not_harm_fighters():
    # Talon 12.1.2 and 15.2.2 "I caccia sono troppo piccoli ed agili per essere danneggiati dal cannone
    # a fusione": the cone hits the Patton (a 4 at range 2: 6 damage, the 15.2 example) and not the
    # squadron in front of it (no die is rolled for it).
    core = fighter_game([hornet((2, 2)), squadron("Flying Tiger", (8, 5), "W"),
                         ship("terran_ca", "Patton", (8, 4), "E")],
                        [ship("talon_bb", "Eviscerator", (8, 6), "W")], dice=(4,), impulse="E", initiative=1)
    fire_at(core, group=1, target=2, both_weapons=False)
    assert sh(core, 0, 1, R.SH_HULL_HITS) == 0 and sh(core, 0, 1, R.SH_STATUS) == R.SS_ACTIVE
    assert sh(core, 0, 2, R.SH_SHIELD + R.ARC_FRONT) == 0 and sh(core, 0, 2, R.SH_REINF) == 0


def test_squadron_collides_like_a_ship_and_loses_one_fighter():
    # Talon 12.1.2 collisions as ships of the same side (7.4): 3 damage each; the squadron's is one
    # fighter's box, the CA's 3 on its rear shield (the squadron came from astern).
    core = fighter_game([hornet((2, 2)), squadron("Wolverine", (8, 3)), ship("terran_ca", "Patton", (8, 4), "E",
                                                                              speed=2)],
                        [ship("talon_ca", "Justice", (8, 14), "W")])
    act(core, "DONE")                                   # AP step: nothing spent
    act(core, "MOVE", 1, R.M_STRAIGHT)
    assert stage(core) == R.ST_COLLIDE
    act(core, "COLLIDE", 0)
    assert sh(core, 0, 1, R.SH_HULL_HITS) == 1 and sh(core, 0, 2, R.SH_SHIELD + R.ARC_REAR) == 4 - 3


def test_asteroids_never_damage_fighters():
    # Talon 17.3 "ECCEZIONE: Caccia e missili non prendono *mai* danni dagli asteroidi": the squadron
    # flies into the asteroid hex and keeps its three fighters.
    core = fighter_game([hornet((2, 2)), squadron("Wolverine", (8, 3))], [ship("talon_ca", "Justice", (8, 14), "W")],
                        terrain=[{"kind": "asteroids", "hex": [8, 4]}])
    act(core, "DONE")                                   # AP step: nothing spent
    act(core, "MOVE", 1, R.M_STRAIGHT)
    assert sh(core, 0, 1, R.SH_CELL) == core.cfg.grid.cell(8, 4)
    assert sh(core, 0, 1, R.SH_HULL_HITS) == 0 and sh(core, 0, 1, R.SH_STATUS) == R.SS_ACTIVE


def test_squadron_has_no_ap_of_its_own_and_no_ftl():
    # Talon 12.1.2: fighters generate no AP (Power 0) and have no FTL (11.1.4).
    core = fighter_game([hornet(), squadron("Cougar", (9, 4))], [ship("talon_ca", "Justice", (8, 14), "W")],
                        retreat=True)
    assert not any(legal(core, "AP", 1, u) for u in range(R.N_USES))
    assert "Talon 4.1" in core.why_illegal(0, A(core, "AP", 1, R.U_CHARGE))
    assert R.retreat_reason(core.state.view, core.cfg.struct, 0, 0, 1) == R.R_NO_FTL


# -- 12.2 AP sent by carriers and bases ---------------------------------------------------------------
def test_carrier_sends_one_ap_per_squadron_per_impulse():
    # Talon 12.2.2: a carrier spends its AP on a squadron (a yellow box of its group, 8.1.2); 12.2.3
    # one AP per squadron per impulse: the second carrier must choose another squadron.
    core = fighter_game([hornet((9, 2)), ship("terran_cv", "Wasp", (11, 2), "E"),
                         squadron("Black Sheep", (9, 4), charge=[[1, 0]]), squadron("Cougar", (11, 4), charge=[[1, 0]])],
                        [ship("talon_ca", "Justice", (8, 14), "W")])
    assert legal(core, "FTR_AP", 0, 2, 0) and legal(core, "FTR_AP", 1, 2, 0)
    act(core, "FTR_AP", 0, 2, 0)
    assert sh(core, 0, 2, R.SH_YEL) == 1 and sh(core, 0, 0, R.SH_AP_SPENT) == 1 and sh(core, 0, 2, R.SH_AP_SPENT) == 1
    assert "Talon 12.2.3" in core.why_illegal(0, A(core, "FTR_AP", 1, 2, 0))
    assert not legal(core, "FTR_AP", 0, 3, 0)                     # the Hornet's AP is spent (5.1)
    assert "Talon 4.1" in core.why_illegal(0, A(core, "FTR_AP", 2, 3, 0))   # a squadron has no AP to send
    act(core, "FTR_AP", 1, 3, 0)
    assert sh(core, 0, 3, R.SH_YEL) == 1


def test_carrier_powers_a_squadron_through_a_turn_and_enables_a_side_slip():
    # Talon 12.2.2 with 6.1: bring the turn marker one hex closer, place the side-slip marker.
    core = fighter_game([hornet((9, 2)), ship("terran_cv", "Wasp", (11, 2), "E"),
                         squadron("Black Sheep", (9, 4), turn_left=1)], [ship("talon_ca", "Justice", (8, 14), "W")])
    act(core, "FTR_AP", 0, 2, 1)
    assert sh(core, 0, 2, R.SH_TURN_LEFT) == 0
    assert not legal(core, "FTR_AP", 1, 2, 2)                     # 12.2.3 one AP per squadron
    core2 = fighter_game([hornet((9, 2)), squadron("Black Sheep", (9, 4))], [ship("talon_ca", "Justice", (8, 14), "W")])
    assert "Talon 6.1" in core2.why_illegal(0, A(core2, "FTR_AP", 0, 1, 1))     # no turn marker
    core3 = fighter_game([hornet((9, 2)), squadron("Black Sheep", (9, 4)),
                          ship("terran_ca", "Patton", (7, 3), "E", speed=2)], [ship("talon_ca", "Justice", (8, 14), "W")])
    assert "Talon 12.2.1" in core3.why_illegal(0, A(core3, "FTR_AP", 2, 1, 2))  # a cruiser has AP, no phase vectors
    act(core2, "FTR_AP", 0, 1, 2)
    assert sh(core2, 0, 1, R.SH_SLIP) == 1


def test_squadron_more_than_six_hexes_away_or_in_asteroids_gets_no_ap():
    # Talon 12.2.3 "a non più di sei esagoni ... non deve essere in un campo di asteroidi o in una nebulosa"
    core = fighter_game([hornet((9, 2)), squadron("Black Sheep", (9, 8), charge=[[1, 0]]),
                         squadron("Cougar", (9, 9), charge=[[1, 0]]), squadron("Diamondback", (5, 2), charge=[[1, 0]])],
                        [ship("talon_ca", "Justice", (8, 14), "W")], terrain=[{"kind": "asteroids", "hex": [5, 2]}])
    assert core.cfg.dist[core.cfg.grid.cell(9, 2), core.cfg.grid.cell(9, 8)] == 6
    assert legal(core, "FTR_AP", 0, 1, 0)
    assert "6 hexes" in core.why_illegal(0, A(core, "FTR_AP", 0, 2, 0))
    assert "asteroids" in core.why_illegal(0, A(core, "FTR_AP", 0, 3, 0))


@pytest.mark.parametrize("kind", ["asteroids", "nebula"])
def test_asteroids_or_a_nebula_on_the_line_from_the_carrier_block_the_ap(kind):
    # Talon 12.2.3 with 17.5 "Asteroidi e nebulose bloccano la trasmissione di potenza tra un trasporto
    # o una base e gli squadroni di caccia nello stesso modo in cui un pianeta blocca il fuoco": the
    # line from the Hornet to the Black Sheep crosses the tile's hex (the line of fire's function);
    # the Cougar's line does not.  With the Hornet itself in the tile's hex every line runs through it.
    squadrons = [squadron("Black Sheep", (9, 6), charge=[[1, 0]]), squadron("Cougar", (7, 2), charge=[[1, 0]])]
    talon = [ship("talon_ca", "Justice", (8, 14), "W")]
    core = fighter_game([hornet((9, 2))] + squadrons, talon, terrain=[{"kind": kind, "hex": [9, 4]}])
    assert "17.5" in core.why_illegal(0, A(core, "FTR_AP", 0, 1, 0))
    assert not any(legal(core, "FTR_AP", 0, 1, i) for i in range(3))
    assert legal(core, "FTR_AP", 0, 2, 0)
    core = fighter_game([hornet((9, 2))] + squadrons, talon, terrain=[{"kind": kind, "hex": [9, 2]}])
    assert not legal(core, "FTR_AP", 0, 1, 0) and not legal(core, "FTR_AP", 0, 2, 0)
    core = fighter_game([hornet((9, 2))] + squadrons, talon, terrain=[{"kind": "planet", "hex": [9, 4]}])
    assert "17.2.2" in core.why_illegal(0, A(core, "FTR_AP", 0, 1, 0))   # a planet, as before
    assert legal(core, "FTR_AP", 0, 2, 0)


def test_squadrons_are_carried_at_most_four_to_a_carrier():
    # Talon 12.1.1 fighters enter the battle only carried by a carrier or a base; 12.2.1 four each
    talon = [ship("talon_ca", "Justice", (8, 14), "W")]
    with pytest.raises(ValueError, match="12.1.1"):
        fighter_game([squadron("Black Sheep", (9, 4)), ship("terran_ca", "Patton", (7, 4), "E")], talon)
    names = ["Ace of Spades", "Black Jack", "Black Sheep", "Cougar", "Diamondback"]
    with pytest.raises(ValueError, match="at most 4"):
        fighter_game([hornet()] + [squadron(n, (3 + i, 5)) for i, n in enumerate(names)], talon)
    with pytest.raises(ValueError, match="fighters=True"):
        VecGame(game, 1).load_scenario({"players": [{"ships": [hornet(), squadron("Cougar", (9, 4))]},
                                                    {"ships": talon}]}, seed=0)


def test_fighters_option_leaves_the_basic_game_unchanged():
    basic = VecGame(game, 1)
    assert basic.cfg.k[R.K_FIGHTERS] == 0 and basic.num_actions == 203
    core = VecGame(game, 1, {"scenario": "carrier_strike"})
    S = int(core.cfg.k[R.K_SHIPS])
    # the push/pull pair (15), FTR_AP (12.2) and DOCK (16.2, on with fighters)
    assert core.cfg.k[R.K_FIGHTERS] == 1 and core.num_actions == 203 + 2 + S * S * 3 + S * R.N_MOVES
    assert game.action_name(core.cfg, A(core, "FTR_AP", 0, 1, 0)).startswith("ship 0: send its AP to squadron 1")


def test_fast_mask_equals_reference_in_carrier_strike():
    mask_equals_reference({"scenario": "carrier_strike"})


def test_fast_observation_equals_reference_in_carrier_strike():
    obs_equals_reference({"scenario": "carrier_strike"})


def test_stage_has_choice_equals_reference_in_carrier_strike():
    stage_has_choice_equals_reference({"scenario": "carrier_strike"})


def test_random_play_fuzz_in_carrier_strike():
    fuzz_stages("carrier_strike", terrain=False)


def test_scripted_captain_beats_random_in_carrier_strike():
    wins, draws, losses, _, _ = scripted_vs_random(n=20, seed=7, options={"scenario": "carrier_strike"})
    assert wins >= 14 and losses <= 3, (wins, draws, losses)
