"""UnionWars First Contact rules with scripted dice, each test citing the seed's heading
(seed 003, rules 3.0).  Armies are the default ones: humanity slots 0 capitano, 1 psionico,
2 fante, 3 fante, 4 mitragliere, 5 tiratore scelto; xeno 0 signore dello sciame, 1 mente
dell'alveare, 2-5 guerriero, 6 mimetico, 7 predatore alato."""
from __future__ import annotations

import math

import pytest

from wargym.envs import union_wars_v1
from wargym.envs.union_wars import game
from wargym.envs.union_wars import layout as L
from helpers.union_wars import (A, act, charged_to_a_won_melee, g, md, model, move_choice, new_env, sergente_env, start,
                                throw_at_point)


def face(env, direction):
    """Stage *facing* (option facing="choose", the default): the move ends facing ``direction``."""
    assert g(env, L.G_STAGE) == L.ST_FACING
    env.step(A(env, "A_MOVE") + move_choice(direction, 0))


# -- FUOCO, tiri protezione, LE FERITE -------------------------------------------------------
def test_fire_hits_on_adt_armour_fails_wound_and_morale_marker():
    # FUOCO: 2 dice (CADENZA 2) vs ADT 4: 4 hits, 3 misses; the guerriero's armour 4+: 2 fails
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[4, 3, 2])
    act(env, 2, L.AK_FIRE0, 2)
    assert md(env, 1, 2, L.MD_WOUNDS) == 1
    assert md(env, 1, 2, L.MD_MORALE) == 1          # "ottiene anche un segnalino morale"
    assert md(env, 0, 2, L.MD_CAR) == 1             # FUOCO costs 1 charisma point
    assert g(env, L.G_STAGE) == L.ST_SELECT


def test_natural_six_and_armour_one_is_a_lethal_hit():
    # Colpi Letali: a 6 to hit and an armour roll of 1 remove the model whatever its wounds
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[6, 1, 1])
    act(env, 2, L.AK_FIRE0, 2)
    assert md(env, 1, 2, L.MD_STATUS) == L.REMOVED
    assert md(env, 1, 2, L.MD_WOUNDS) == 0


def test_half_range_malus_and_natural_one_misses():
    # FUOCO: "-1 ... a più di metà gittata"; tiratore scelto ADT 3, precision rifle 100 cm, target at 60 cm
    env = start(new_env(), [model(0, 5, 60, 10), model(1, 2, 60, 73, 270, car=0)], dice=[3])
    act(env, 5, L.AK_FIRE0, 2)
    assert md(env, 1, 2, L.MD_MORALE) == 0          # 3 - 1 < 3: missed, no marker
    env2 = start(new_env(), [model(0, 5, 60, 10), model(1, 2, 60, 73, 270, car=0)], dice=[4, 2])
    act(env2, 5, L.AK_FIRE0, 2)
    assert md(env2, 1, 2, L.MD_WOUNDS) == 1         # POTENZIATA: armour negated (the D6 still rolled for lethal hits)


def test_suppressive_fire_gives_d3_morale_markers_per_hit_instead_of_wounds():
    # FUOCO SOPPRESSIVO: per hit 1D3 morale markers (6 -> 3), no wound
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[5, 5, 6, 1])
    act(env, 2, L.AK_SUPP0, 2)
    assert md(env, 1, 2, L.MD_WOUNDS) == 0
    assert md(env, 1, 2, L.MD_MORALE) == 3 + 1


def test_target_behind_the_front_arc_cannot_be_shot():
    # VISTA DEI MODELLI: "Tutti i modelli vedono a 180°"
    env = start(new_env(), [model(0, 2, 60, 60, 90), model(1, 2, 60, 30, 90, car=0)])
    env.step(A(env, "A_MODEL") + 2)
    assert env.legal_actions().tolist().count(A(env, "A_ACT") + L.AK_FIRE0) == 0
    assert "valid target" in env.why_illegal(A(env, "A_ACT") + L.AK_FIRE0)


def test_obscured_target_behind_low_wall():
    # FUOCO: "oscurato (basta una minima parte)": -1; a wall lower than both models obscures
    wall = {"kind": "impassable", "height_cm": 1, "vertices": [[50, 35], [70, 35], [70, 37], [50, 37]]}
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[4, 4], terrain=[wall])
    act(env, 2, L.AK_FIRE0, 2)
    assert md(env, 1, 2, L.MD_MORALE) == 0          # 4 - 1 < 4 twice


def test_tall_impassable_terrain_blocks_sight():
    block = {"kind": "impassable", "height_cm": 8, "vertices": [[40, 35], [80, 35], [80, 40], [40, 40]]}
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], terrain=[block])
    env.step(A(env, "A_MODEL") + 2)
    assert not env.core.mask[0, A(env, "A_ACT") + L.AK_FIRE0]


# -- MOVIMENTO, TERRENI -----------------------------------------------------------------------
def test_rough_terrain_takes_a_d6_from_m():
    # TERRENI / MOVIMENTO: entering rough terrain, 1D6 (5) comes off M=12: the model moves 7 cm
    rough = {"kind": "rough", "vertices": [[10, 20], [30, 20], [30, 30], [10, 30]]}
    env = start(new_env(), [model(0, 2, 20, 10, 0), model(1, 2, 100, 100, car=0)], dice=[5], terrain=[rough])
    act(env, 2, L.AK_MOVE)
    env.step(A(env, "A_MOVE") + move_choice(4, 4))   # north, the whole allowance
    face(env, 4)
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(17.0, abs=1e-4)
    assert env.core.state.pos[0, 0, 2, 2] == pytest.approx(1.5708, abs=1e-3)   # facing the way it moved


def test_moving_within_one_cm_of_an_enemy_is_illegal():
    env = start(new_env(), [model(0, 2, 20, 10), model(1, 2, 20, 25, 270, car=0)])
    act(env, 2, L.AK_MOVE)
    a = A(env, "A_MOVE") + move_choice(4, 4)
    assert "1 cm" in env.why_illegal(a)
    with pytest.raises(ValueError, match="1 cm"):
        env.step(a)
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(10.0)   # nothing changed


def test_impassable_terrain_cannot_be_crossed_but_flyers_cross_it():
    wall = {"kind": "impassable", "height_cm": 5, "vertices": [[0, 20], [120, 20], [120, 22], [0, 22]]}
    env = start(new_env(), [model(0, 2, 60, 10), model(1, 7, 60, 100, 270)], terrain=[wall], active=1)
    env.step(A(env, "A_MODEL") + 7)   # the predatore alato (VOLANTE 20)
    assert env.core.mask[0, A(env, "A_ACT") + L.AK_FLY]
    env.step(A(env, "A_ACT") + L.AK_FLY)
    assert env.core.mask[0, A(env, "A_MOVE") + move_choice(12, 4)]   # south 20 cm: over open ground
    env2 = start(new_env(), [model(0, 2, 60, 10), model(1, 2, 60, 30, 270)], terrain=[wall], active=1)
    act(env2, 2, L.AK_MOVE)
    assert "impassable" in env2.why_illegal(A(env2, "A_MOVE") + move_choice(12, 4))


def test_repeating_an_action_gives_a_fatigue_marker():
    # LA FATICA: "dichiara un'azione ... già utilizzata durante il turno ... ottieni un segnalino fatica"
    env = start(new_env(), [model(0, 2, 20, 10), model(1, 2, 100, 100, car=0)])
    for _ in range(2):
        act(env, 2, L.AK_MOVE)
        env.step(A(env, "A_MOVE") + move_choice(0, 1))
        face(env, 0)
    assert md(env, 0, 2, L.MD_FATIGUE) == 1
    assert md(env, 0, 2, L.MD_CAR) == 0


# -- REAZIONI, AREA DI CONTROLLO ----------------------------------------------------------------
def test_a_terra_is_resolved_before_the_action():
    # A TERRA: the shooter gets -1; 4 - 1 < 4 twice
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270)], dice=[4, 4])
    act(env, 2, L.AK_FIRE0, 2)
    assert env.agent_selection == "player_1" and g(env, L.G_STAGE) == L.ST_REACT
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + L.RK_PRONE)
    assert md(env, 1, 2, L.MD_MORALE) == 0
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_PRONE
    assert md(env, 1, 2, L.MD_CAR) == 0             # A TERRA costs 2


def test_reaction_inside_the_control_area_is_free():
    # AREA DI CONTROLLO: SN x 2 = 4 cm for the guerriero; the fante acts 2.25 cm away
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 25, 270)], dice=[1, 1, 1, 1])
    act(env, 2, L.AK_FIRE0, 2)
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + L.RK_FIRE0)
    assert md(env, 1, 2, L.MD_CAR) == 2


def test_fall_back_reaching_the_table_edge_removes_the_model():
    # RIPIEGARE: M x 2 toward the own edge; "se raggiunge il bordo del tavolo il modello è rimosso"
    env = start(new_env(), [model(0, 2, 60, 70), model(1, 2, 60, 100, 270)], dice=[1, 1])
    act(env, 2, L.AK_FIRE0, 2)
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + L.RK_FALLBACK)
    assert md(env, 1, 2, L.MD_STATUS) == L.REMOVED


# -- CARICA, LA MISCHIA ----------------------------------------------------------------------------
def test_charge_reaches_with_m_plus_2d6_and_melee_is_won_by_more_wounds():
    # CARICA: 12 + 1 + 1 >= 12.25 cm: contact; +1D3 (6 -> 3) attacks and +1 to hit
    # LA MISCHIA: fante 4 attacks (3, 3, 1, 6 -> 3 hits at ADM 4 with +1), guerriero 2 (2, 2: none);
    # armour 4+: 5 saves, 3 and 3 wound: the guerriero goes out of combat and loses; removed
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 35, 270, car=0)],
                dice=[1, 1, 6, 3, 3, 1, 6, 2, 2, 5, 3, 3])
    act(env, 2, L.AK_CHARGE, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:        # the path crossed its control area: a free reaction offered
        env.step(A(env, "A_PASS"))
    assert md(env, 0, 2, L.MD_FLAGS) & L.F_ENGAGED
    assert md(env, 0, 2, L.MD_CHARGE_AT) == 3
    env.step(A(env, "A_PASS"))                 # end of the tactical phase: LA FASE DI MISCHIA
    assert md(env, 1, 2, L.MD_STATUS) == L.REMOVED
    assert env.terminations["player_0"] and env.core.state.g[0, L.G_WINNER] == 0


def test_failed_charge_moves_only_m():
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 45, 270, car=0)], dice=[1, 1])
    act(env, 2, L.AK_CHARGE, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:
        env.step(A(env, "A_PASS"))
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(32.0, abs=1e-3)
    assert not md(env, 0, 2, L.MD_FLAGS) & L.F_ENGAGED


# -- LO STATO PSICOLOGICO ------------------------------------------------------------------------
def test_wounded_model_fails_suppression_test_with_commander_repeat():
    # IL TEST DI SOPPRESSIONE in LA FASE DI CONTROLLO: 2D6 (1+2, repeated as the commander: 2+2) < PSI 7
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[4, 3, 2, 1, 2, 2, 2])
    act(env, 2, L.AK_FIRE0, 2)
    env.step(A(env, "A_PASS"))
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_SUPPRESSED
    assert md(env, 1, 2, L.MD_WOUNDS) == 1


def test_suppressed_model_pays_double_charisma():
    env = start(new_env(), [model(0, 2, 60, 20, flags=["suppressed"]), model(1, 2, 100, 100, car=0)])
    act(env, 2, L.AK_MOVE)
    env.step(A(env, "A_MOVE") + move_choice(0, 1))
    face(env, 0)
    assert md(env, 0, 2, L.MD_CAR) == 0   # 2 points for a 1-point action


def test_morale_markers_beyond_car_are_a_malus():
    from wargym.envs.union_wars.general import morale_malus
    env = start(new_env(), [model(0, 2, 60, 20, morale=3), model(1, 2, 100, 100)])
    s = env.core.state
    assert morale_malus(s.view, env.core.cfg.struct, 0, 0, 2) == 1   # CAR 2
    env2 = start(new_env(morale_markers="each"), [model(0, 2, 60, 20, morale=3), model(1, 2, 100, 100)])
    assert morale_malus(env2.core.state.view, env2.core.cfg.struct, 0, 0, 2) == 3


# -- ABILITA', DUELLO MENTALE ----------------------------------------------------------------------
def test_controllo_lets_the_player_make_the_enemy_model_act():
    # CONTROLLO (APS): test 3+3 (+1 ESPERTO mente) >= 5; the target duels: 3 + CAR 2 + 2 vs 3 + CAR 2
    env = start(new_env(), [model(0, 1, 60, 20), model(1, 2, 60, 40, 270)], dice=[3, 3, 3, 3])
    act(env, 1, L.AK_CONTROLLO, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:
        env.step(A(env, "A_PASS"))
    assert g(env, L.G_CONTROLLED) == 2
    assert env.core.mask[0, A(env, "A_THEIR") + 2]      # p0 may now select the enemy model
    env.step(A(env, "A_THEIR") + 2)
    env.step(A(env, "A_ACT") + L.AK_MOVE)
    env.step(A(env, "A_MOVE") + move_choice(0, 1))
    face(env, 0)
    assert g(env, L.G_CONTROLLED) == -2                 # its one free action is used
    assert md(env, 1, 2, L.MD_CAR) == 2                 # and it cost the owner nothing


def test_failed_ability_test_cannot_be_repeated_this_turn():
    # IL TEST DI ABILITA': failed (1 + 1) -> "nemmeno provare a ripetere l'azione"; points spent
    env = start(new_env(), [model(0, 1, 60, 20), model(1, 2, 60, 40, 270, car=0)], dice=[1, 1, 1, 1])
    act(env, 1, L.AK_CONTROLLO, 2)
    assert g(env, L.G_CONTROLLED) == -1
    env.step(A(env, "A_MODEL") + 1)
    assert not env.core.mask[0, A(env, "A_ACT") + L.AK_CONTROLLO]


def test_soccorso_heals_on_five_plus_with_medic_bonus():
    # SOCCORSO: 5+ (the medico: ESPERTO medicina +1, kit medico +1: a 3 heals)
    env = start(new_env(army_files=None, armies=[["umanita", ["capitano", "medico", "fante"]], "xeno:default_250"]),
                [model(0, 1, 60, 20), model(0, 2, 60, 22.5, wounds=1), model(1, 2, 100, 100, car=0)], dice=[3])
    act(env, 1, L.AK_AID, 2, mine=True)
    assert md(env, 0, 2, L.MD_WOUNDS) == 0


# -- COMPOSIZIONE DELL'ARMATA ----------------------------------------------------------------------
def test_army_builder_refuses_illegal_armies():
    with pytest.raises(ValueError, match="ceiling"):
        union_wars_v1.raw_env(points=100)
    with pytest.raises(ValueError, match="QG"):
        union_wars_v1.raw_env(armies=[["umanita", ["fante", "fante"]], "xeno:default_250"])
    with pytest.raises(ValueError, match="stessa armylist"):
        union_wars_v1.raw_env(armies=[["umanita", ["capitano", "guerriero"]], "xeno:default_250"])
    with pytest.raises(ValueError, match="no armylist"):
        union_wars_v1.raw_env(armies=["orchi:default", "xeno:default_250"])


def test_bad_armylist_file_is_refused(tmp_path):
    bad = tmp_path / "armylist_x.json"
    bad.write_text('{"faction": "umanita", "models": [{"name": "x"}]}')
    with pytest.raises(ValueError, match="missing field"):
        union_wars_v1.raw_env(army_files={"umanita": str(bad)})


# -- REGOLE SPECIALI ARSENALE ------------------------------------------------------------------------
def test_raffica_adds_a_shot_within_half_range():
    # mitragliatrice: CADENZA 4, RAFFICA +1 within half range (40 cm): five hit dice
    env = start(new_env(), [model(0, 4, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[1, 1, 1, 1, 6, 2])
    act(env, 4, L.AK_FIRE0, 2)
    assert md(env, 1, 2, L.MD_WOUNDS) == 1          # the fifth die (6) hit, armour 2 failed


def test_frammentazione_hits_every_model_within_3_cm():
    # granata a frammentazione (DA LANCIO): thrown COS x 10 + 2D6; one hit on the target and its neighbour
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 45, 270, car=0), model(1, 3, 63.5, 45, 270, car=0)],
                dice=[5, 3, 4, 2, 2])
    act(env, 2, L.AK_FIRE1, 2)       # weapon 2 of the fante: the grenade (reach 30 + 5 + 3, hit 4)
    assert md(env, 1, 2, L.MD_WOUNDS) == 1 and md(env, 1, 3, L.MD_WOUNDS) == 1


def test_frammentazione_thrown_at_a_point_hits_every_model_within_3_cm_of_it():
    # DA LANCIO: "indica un bersaglio o un punto"; FRAMMENTAZIONE centred on the point (RULES.md).
    # The fante (COS 3, base 25 mm) throws north (direction 4) 2/4 of 42 cm from its base edge:
    # the point is (60, 20 + 1.25 + 21).  Guerrieri (base 30 mm) 4 cm either side: 2.5 cm from
    # the point, both hit; the third 12 cm away is not.  Reach 30 + 5 + 3, hit 4 (ADT 4), armour 2, 2.
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 56, 42.25, 270, car=0),
                            model(1, 3, 64, 42.25, 270, car=0), model(1, 4, 60, 54.25, 270, car=0)],
                dice=[5, 3, 4, 2, 2])
    throw_at_point(env, 2, L.AK_FIRE1, 4, 2)
    assert [md(env, 1, j, L.MD_WOUNDS) for j in (2, 3, 4)] == [1, 1, 0]
    assert [md(env, 1, j, L.MD_MORALE) for j in (2, 3, 4)] == [1, 1, 0]
    shot = env.core.state.geo[0, L.GEO_SHOT:L.GEO_SHOT + 4]
    assert shot[2] == pytest.approx(60.0) and shot[3] == pytest.approx(42.25)


def test_fumogeno_thrown_at_a_point_places_the_marker_there():
    # DA LANCIO + FUMOGENO: "piazza un segnalino fumogeno nel punto scelto".  The sergente
    # artigliere (COS 3) throws its granata fumogena (weapon 2) east-north-east (direction 3,
    # 67.5 degrees) 2/4 of 42 cm: reach 30 + 1 + 1 >= 21, hit 4.
    env = start(sergente_env(), [model(0, 1, 60, 20), model(1, 2, 60, 100, 270, car=0)], dice=[1, 1, 4])
    throw_at_point(env, 1, L.AK_FIRE1, 3, 2)
    r = 1.25 + 21.0
    x, y = 60 + r * math.cos(math.radians(67.5)), 20 + r * math.sin(math.radians(67.5))
    smoke = env.core.state.smoke[0]
    assert smoke[0, 0] == pytest.approx(x, abs=1e-4) and smoke[0, 1] == pytest.approx(y, abs=1e-4)
    assert smoke[0, 2] == g(env, L.G_TURN) + 1 and smoke[1, 2] == 0


def test_a_throw_that_falls_short_of_the_point_misses():
    # DA LANCIO: "se raggiungi ... il punto indicato applica gli effetti": the point 42 cm away,
    # the throw 30 + 5 + 3 = 38 cm: no smoke even though the hit roll (4) succeeded
    env = start(sergente_env(), [model(0, 1, 60, 20), model(1, 2, 60, 100, 270, car=0)], dice=[5, 3, 4])
    throw_at_point(env, 1, L.AK_FIRE1, 4, 4)
    assert env.core.state.smoke[0, 0, 2] == 0


def test_point_mask_is_the_throw_lattice_within_the_table_the_arc_and_sight():
    # DA LANCIO at a point (RULES.md): 16 directions x 1/4..4/4 of COS x 10 + 12 from the base
    # edge; the mask and the reason share point_fire_reason
    block = {"kind": "impassable", "height_cm": 8, "vertices": [[40, 35], [80, 35], [80, 40], [40, 40]]}
    env = start(sergente_env(), [model(0, 1, 60, 10), model(1, 2, 110, 100, 270, car=0)], terrain=[block])
    env.step(A(env, "A_MODEL") + 1)
    env.step(A(env, "A_ACT") + L.AK_FIRE1)        # nobody in range: only points are offered
    mask = env.core.mask[0]
    move = A(env, "A_MOVE")
    assert not mask[A(env, "A_THEIR"):A(env, "A_THEIR") + L.N_SLOTS].any()
    assert mask[move + move_choice(4, 1)]          # (60, 21.75): in front, short of the wall
    assert not mask[move + move_choice(4, 4)]      # behind the 8 cm wall
    assert "not in sight" in env.why_illegal(move + move_choice(4, 4))
    assert not mask[move + move_choice(12, 1)]     # behind the thrower (off the table too)
    assert not mask[move + move_choice(4, 0)]      # no distance: not a point to throw at
    assert "valid target" in env.why_illegal(move + move_choice(4, 0))
    assert mask[move + move_choice(1, 4)]          # 22.5 degrees: (99.96, 26.55) on the table
    assert not mask[move + move_choice(15, 4)]     # -22.5 degrees: y = 10 - 16.55, off the table
    assert "table" in env.why_illegal(move + move_choice(15, 4))


def test_only_thrown_area_weapons_target_points():
    # the fante's fucile d'assalto (weapon 1) is not thrown: no point; the fante's grenade is
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)])
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_ACT") + L.AK_FIRE0)
    move = A(env, "A_MOVE")
    assert not env.core.mask[0, move:move + L.N_MOVES].any()
    assert "FRAMMENTAZIONE or FUMOGENO" in env.why_illegal(move + move_choice(4, 2))


def test_bot_throws_at_the_point_whose_blast_catches_more_enemies():
    # the scripted bot: a grenade at the point between two guerrieri (both within 3 cm) rather
    # than at one of them (the other 5 cm from its base); with one enemy it throws at the model
    from wargym.envs.union_wars import bot
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 56, 42.25, 270, car=0),
                            model(1, 3, 64, 42.25, 270, car=0)])
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_ACT") + L.AK_FIRE1)
    a = int(bot.policy_actions(env.core, "scripted")[0])
    assert a == A(env, "A_MOVE") + move_choice(4, 2)
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 56, 42.25, 270, car=0)])
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_ACT") + L.AK_FIRE1)
    a = int(bot.policy_actions(env.core, "scripted")[0])
    assert a == A(env, "A_THEIR") + 2


def test_impulso_makes_the_target_repeat_a_successful_armour_roll():
    # fucile a impulsi (mimetico, ADT 4, CADENZA 2): hits 4, 1; the fante's armour 5+ saves (5), repeated: 2 fails
    env = start(new_env(), [model(0, 2, 60, 50, 270, car=0), model(1, 6, 60, 20)], dice=[4, 1, 5, 2], active=1)
    act(env, 6, L.AK_FIRE0, 2)
    assert md(env, 0, 2, L.MD_WOUNDS) == 1


def test_binata_repeats_failed_hit_rolls():
    # cannone binato (torretta, ADT 4, CADENZA 3): 2->4 hit, 2->4 hit, 2->1 miss; the fante's armour 5+: 3, 3
    env = new_env(armies=["umanita:default_250", ["xeno", ["mente dell'alveare", "torretta biomeccanica"]]])
    start(env, [model(0, 2, 60, 20, car=0), model(1, 1, 60, 50, 270)], active=1, dice=[2, 4, 2, 4, 2, 1, 3, 3])
    act(env, 1, L.AK_FIRE0, 2)
    assert md(env, 0, 2, L.MD_WOUNDS) == 2
    assert md(env, 0, 2, L.MD_STATUS) == L.OOC         # FS 2: fuori combattimento


def test_inceppamento_jams_and_disinceppare_clears():
    # option jamming: as many 1s as a third of CADENZA (2 -> 1): jammed; DISINCEPPARE (1 point) clears it
    env = start(new_env(jamming=True), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[1, 3])
    act(env, 2, L.AK_FIRE0, 2)
    assert md(env, 0, 2, L.MD_JAMMED) == 1
    env.step(A(env, "A_MODEL") + 2)
    assert "jammed" in env.why_illegal(A(env, "A_ACT") + L.AK_FIRE0)
    env.step(A(env, "A_ACT") + L.AK_UNJAM)
    assert md(env, 0, 2, L.MD_JAMMED) == 0


def test_limited_ammunition_is_spent_per_fire_action():
    # MUNIZIONI LIMITATE: the pool is the CAR of models with shooting weapons + the commander's bonus
    env = start(new_env(ammo=True), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[1, 1])
    before = g(env, L.G_AMMO0)
    act(env, 2, L.AK_FIRE0, 2)
    assert g(env, L.G_AMMO0) == before - 1


# -- IN BATTAGLIA ----------------------------------------------------------------------------------
def test_deployment_spots_respect_the_zone_and_the_30_cm_gap():
    env = union_wars_v1.raw_env(table="open_field", mission=1)
    env.reset(seed=5)
    rng_steps = 0
    while g(env, L.G_STAGE) != L.ST_DEPLOY and rng_steps < 20:
        env.step(int(env.legal_actions()[0]))
        rng_steps += 1
    assert g(env, L.G_STAGE) == L.ST_DEPLOY
    spots = env.legal_actions() - A(env, "A_SPOT")
    spots = spots[(spots >= 0) & (spots < L.N_SPOTS)]
    ys = {5 + 10 * (s // L.LATTICE) for s in spots}
    assert ys in ({5, 15}, {105, 115})               # SCHIERAMENTO: within 20 cm of the own edge


def test_command_test_failure_ends_the_game():
    # IL TEST DI COMANDO: more than half lost -> the commander tests at the command phase: 1 + 1 fails twice
    env = start(new_env(), [model(0, 0, 60, 20), model(0, 2, 30, 20, status="out_of_combat", wounds=2),
                            model(0, 3, 90, 20, status="out_of_combat", wounds=2),
                            model(1, 2, 60, 100, 270)], active=1, dice=[1, 1, 1, 1])
    env.step(A(env, "A_PASS"))      # player 1 ends its turn; player 0's command phase: the test
    assert env.terminations["player_0"] and g(env, L.G_WINNER) == 1


def test_twelve_turns_of_each_player_then_the_mission_decides():
    env = start(new_env(turns=1), [model(0, 2, 60, 20), model(1, 2, 60, 100, 270)])
    env.step(A(env, "A_PASS"))
    assert not env.terminations["player_0"]
    env.step(A(env, "A_PASS"))      # the second player's turn ends the one turn each: a draw
    assert env.terminations["player_0"] and g(env, L.G_WINNER) == 2
    env2 = start(new_env(turns=1, turn_count="total"), [model(0, 2, 60, 20), model(1, 2, 60, 100, 270)])
    env2.step(A(env2, "A_PASS"))
    assert env2.terminations["player_0"]


def test_melee_winner_may_consolidate_2d6():
    # LA MISCHIA: "i modelli vittoriosi possono consolidare la loro posizione di 2D6" (3 + 4 = 7 cm)
    env = charged_to_a_won_melee(new_env())
    env.step(A(env, "A_PASS"))
    assert md(env, 1, 2, L.MD_STATUS) == L.REMOVED
    assert g(env, L.G_STAGE) == L.ST_CONSOLIDATE and env.agent_selection == "player_0"
    assert g(env, L.G_CONSOL) == 7
    env.step(A(env, "A_MOVE") + move_choice(4, 4))
    face(env, 4)
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(32.25 + 7, abs=1e-3)
    assert g(env, L.G_STAGE) == L.ST_SELECT and g(env, L.G_ACTIVE) == 1


# -- LA MISCHIA: the attacker's owner chooses target and weapon ----------------------------------
def _two_guerrieri_in_contact(env, dice, **opts):
    # fante (r 1.25) at (60, 20); guerrieri (r 1.5) touching it north (slot 2) and east (slot 3);
    # a third guerriero far away keeps the game going after the melee
    return start(env, [model(0, 2, 60, 20), model(1, 2, 60, 22.75, 270, car=0), model(1, 3, 62.75, 20, 180, car=0),
                       model(1, 4, 100, 100, car=0)], dice=dice, **opts)


@pytest.mark.parametrize("chosen, other", [(2, 3), (3, 2)])
def test_melee_target_is_chosen_by_the_attackers_owner(chosen, other):
    # LA MISCHIA: "scegli un modello, un arma da mischia a disposizione e un bersaglio".
    # The fante (AT 1) rolls 5 (ADM 4): a hit on the chosen guerriero; the guerrieri (AT 2 each,
    # one enemy in contact, one weapon: no decision) roll 1, 1 and 1, 1; armour 4+ rolls 2: one
    # wound.  1 wound to 0: the guerrieri lose and are removed; the fante consolidates 3 + 4.
    env = _two_guerrieri_in_contact(new_env(), [5, 1, 1, 1, 1, 2, 3, 4])
    env.step(A(env, "A_PASS"))                 # end of the tactical phase: LA FASE DI MISCHIA
    assert g(env, L.G_STAGE) == L.ST_MELEE_TARGET and env.agent_selection == "player_0"
    assert (g(env, L.G_ACTOR_SIDE), g(env, L.G_ACTOR)) == (0, 2)
    legal = set(env.legal_actions().tolist())
    assert legal == {A(env, "A_THEIR") + 2, A(env, "A_THEIR") + 3}   # the enemies in base contact
    env.step(A(env, "A_THEIR") + chosen)
    assert md(env, 1, chosen, L.MD_WOUNDS) == 1 and md(env, 1, other, L.MD_WOUNDS) == 0
    assert md(env, 1, 2, L.MD_STATUS) == L.REMOVED and md(env, 1, 3, L.MD_STATUS) == L.REMOVED
    assert g(env, L.G_STAGE) == L.ST_CONSOLIDATE and g(env, L.G_CONSOL) == 7


def test_melee_target_out_of_contact_is_refused_and_changes_nothing():
    # LA MISCHIA: only an enemy in base contact can be the target
    env = _two_guerrieri_in_contact(new_env(), [5, 1, 1, 1, 1, 2, 3, 4])
    env.step(A(env, "A_PASS"))
    before = env.core.state.md.copy()
    with pytest.raises(ValueError, match="base contact"):
        env.step(A(env, "A_THEIR") + 4)
    assert (env.core.state.md == before).all() and g(env, L.G_STAGE) == L.ST_MELEE_TARGET
    assert "melee target" in game.action_name(env.core.cfg, A(env, "A_THEIR") + 4)


def test_single_target_and_weapon_are_no_decision():
    # one enemy in contact and one melee weapon: the melee is fought without asking
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 22.75, 270, car=0), model(1, 4, 100, 100, car=0)],
                dice=[5, 1, 1, 2, 3, 4])
    env.step(A(env, "A_PASS"))
    assert md(env, 1, 2, L.MD_STATUS) == L.REMOVED
    assert g(env, L.G_STAGE) == L.ST_CONSOLIDATE


def _two_weapon_fante(tmp_path):
    # a user's armylist where the fante carries two melee weapons (coltello, artigli potenziati)
    import json
    data = json.loads((game.DATA / "armylist_umanita.json").read_text())
    for m in data["models"]:
        if m["name"] == "fante":
            m["arsenal"] = ["fucile d'assalto", "coltello da combattimento", "artigli potenziati"]
    path = tmp_path / "umanita.json"
    path.write_text(json.dumps(data))
    return new_env(army_files={"umanita": str(path)})


def test_melee_weapon_is_chosen_by_the_attackers_owner(tmp_path):
    # LA MISCHIA: the fante has two melee weapons (BIANCA twice: +1 attack, 2 in all): rolls 5, 1
    # (one hit); the guerriero 1, 1.  With the artigli potenziati (POTENZIATA) the armour roll
    # of 5 does not save: a wound, the guerriero loses.
    env = start(_two_weapon_fante(tmp_path), [model(0, 2, 60, 20), model(1, 2, 60, 22.75, 270, car=0),
                                              model(1, 4, 100, 100, car=0)], dice=[5, 1, 1, 1, 5, 3, 4])
    env.step(A(env, "A_PASS"))
    assert g(env, L.G_STAGE) == L.ST_MELEE_WEAPON and g(env, L.G_TGT) == 2
    assert set(env.legal_actions().tolist()) == {A(env, "A_CHOICE"), A(env, "A_CHOICE") + 1}
    env.step(A(env, "A_CHOICE") + 1)
    assert md(env, 1, 2, L.MD_WOUNDS) == 1 and md(env, 1, 2, L.MD_STATUS) == L.REMOVED


def test_melee_tie_fights_again_with_new_choices(tmp_path):
    # LA MISCHIA: with the coltello the armour roll of 5 saves: 0 wounds each, a tie:
    # "in caso di pareggio effettua un ulteriore combattimento" - and the weapon is chosen again
    env = start(_two_weapon_fante(tmp_path), [model(0, 2, 60, 20), model(1, 2, 60, 22.75, 270, car=0),
                                              model(1, 4, 100, 100, car=0)], dice=[5, 1, 1, 1, 5])
    env.step(A(env, "A_PASS"))
    env.step(A(env, "A_CHOICE") + 0)
    assert md(env, 1, 2, L.MD_WOUNDS) == 0 and md(env, 1, 2, L.MD_STATUS) == L.ACTIVE
    assert g(env, L.G_STAGE) == L.ST_MELEE_WEAPON and g(env, L.G_MELEE_ROUND) == 1


def test_melee_choices_auto_option_chooses_as_before():
    # option melee_choices="auto": no decision; the enemy with the fewest wounds left (a tie: the
    # first slot) is attacked, as the env chose for everyone before the choice was the player's
    env = _two_guerrieri_in_contact(new_env(melee_choices="auto"), [5, 1, 1, 1, 1, 2, 3, 4])
    env.step(A(env, "A_PASS"))
    assert md(env, 1, 2, L.MD_WOUNDS) == 1 and md(env, 1, 3, L.MD_WOUNDS) == 0
    assert g(env, L.G_STAGE) == L.ST_CONSOLIDATE


# -- issue 26: RIPIEGARE / CONTROMOSSA from base contact, LA FATICA, NASCOSTO, IN ALLERTA, IMMOBILE --
def _charge_at_reacting_guerriero(env, rk, dice, **kw):
    """The fante charges the guerriero 15 cm away (as the CARICA test: 12 + 1 + 1 >= 12.25 cm, the
    D3 die 6); the guerriero, inside whose control area the charge passes (a free reaction),
    declares reaction ``rk`` against it."""
    env = start(env, [model(0, 2, 60, 20), model(1, 2, 60, 35, 270, **kw), model(1, 3, 100, 100, car=0)],
                dice=dice)
    act(env, 2, L.AK_CHARGE, 2)
    assert g(env, L.G_STAGE) == L.ST_REACT and env.agent_selection == "player_1"
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + rk)
    return env


def test_ripiegare_moves_away_after_a_charge_that_reaches():
    # RIPIEGARE: "i modelli che subiscono un assalto si spostano dopo che l'avversario ha portato a
    # contatto il modello": the charge reaches (contact at y 32.25 / 35), then the guerriero falls back
    # M x 2 = 28 cm toward its edge (y = 120), goes down and is no longer engaged.  MOVIMENTO's 1 cm
    # forbids coming nearer an enemy, not leaving base contact.
    env = _charge_at_reacting_guerriero(new_env(), L.RK_FALLBACK, [1, 1, 6])
    assert g(env, L.G_CHARGE_OK) == 1
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(32.25, abs=1e-3)   # the charger reached
    assert env.core.state.pos[0, 1, 2, 1] == pytest.approx(35.0 + 28.0, abs=1e-3)
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_PRONE
    assert not md(env, 1, 2, L.MD_FLAGS) & L.F_ENGAGED and not md(env, 0, 2, L.MD_FLAGS) & L.F_ENGAGED


def test_contromossa_may_leave_base_contact_after_a_charge_that_reaches():
    # CONTROMOSSA: "al termine dell'azione avversaria il modello può muovere del valore di M/2 ...
    # applica le regole dell'azione movimento": after the charge reached it, the guerriero may move
    # away (M/2 = 7 cm), never nearer (MOVIMENTO's 1 cm)
    env = _charge_at_reacting_guerriero(new_env(), L.RK_COUNTERMOVE, [1, 1, 6])
    assert g(env, L.G_STAGE) == L.ST_COUNTERMOVE and env.agent_selection == "player_1"
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_ENGAGED
    legal = set(env.legal_actions().tolist())
    assert A(env, "A_MOVE") + move_choice(4, 4) in legal            # straight away from the charger
    assert A(env, "A_MOVE") + move_choice(0, 4) in legal            # sideways: the gap only grows
    assert A(env, "A_MOVE") + move_choice(12, 1) not in legal       # toward it
    assert A(env, "A_MOVE") + move_choice(9, 1) not in legal
    env.step(A(env, "A_MOVE") + move_choice(4, 4))
    face(env, 12)                                                    # backing away facing the charger
    assert env.core.state.pos[0, 1, 2, 1] == pytest.approx(42.0, abs=1e-3)
    assert env.core.state.pos[0, 1, 2, 2] == pytest.approx(-math.pi / 2, abs=1e-3) or \
        env.core.state.pos[0, 1, 2, 2] == pytest.approx(3 * math.pi / 2, abs=1e-3)
    assert not md(env, 1, 2, L.MD_FLAGS) & L.F_ENGAGED and not md(env, 0, 2, L.MD_FLAGS) & L.F_ENGAGED
    assert g(env, L.G_STAGE) == L.ST_SELECT


def test_in_allerta_ends_when_the_model_is_engaged():
    # IN ALLERTA: "rimane in allerta fintanto che non si muove o viene ingaggiato in mischia"
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 35, 270, car=0, flags=["alert"]),
                            model(1, 3, 100, 100, car=0)], dice=[1, 1, 6])
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_ALERT
    act(env, 2, L.AK_CHARGE, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:
        env.step(A(env, "A_PASS"))
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_ENGAGED
    assert not md(env, 1, 2, L.MD_FLAGS) & L.F_ALERT


def test_fuoco_di_reazione_with_either_weapon_is_one_reaction_for_la_fatica():
    # LA FATICA: a marker for "una reazione già utilizzata durante il turno": the capitano's FUOCO DI
    # REAZIONE with the fucile d'assalto (arma 1, 2 dice: 1, 1), then with the pistola (arma 2, 1
    # die: 1) is the same reaction declared twice.  Both are free (the guerriero acts inside its
    # control area, SN 3 x 2 = 6 cm).
    env = start(new_env(), [model(0, 0, 60, 20), model(1, 2, 60, 24, 270), model(1, 3, 100, 100, car=0)],
                dice=[1, 1, 1], active=1)
    act(env, 2, L.AK_AIM)                                   # MIRA (no dice)
    env.step(A(env, "A_MODEL") + 0)
    env.step(A(env, "A_REACT") + L.RK_FIRE0)
    assert md(env, 0, 0, L.MD_FATIGUE) == 0
    act(env, 2, L.AK_MOVE)
    env.step(A(env, "A_MOVE") + move_choice(12, 0))          # rotate only (no dice)
    env.step(A(env, "A_MODEL") + 0)
    env.step(A(env, "A_REACT") + L.RK_FIRE1)
    assert md(env, 0, 0, L.MD_FATIGUE) == 1
    assert md(env, 0, 0, L.MD_CAR) == 3                     # both free


def test_abilita_with_another_ability_is_the_same_action_for_la_fatica():
    # LA FATICA with ABILITA' ("il modello utilizza una delle abilità in suo possesso"): the psionico's
    # CONTROLLO (test 1 + 1 and the commander's repeat 1 + 1: failed), then RICHIAMO (6 + 6) on the
    # suppressed fante: ABILITA' declared twice in a turn gives a fatigue marker
    env = start(new_env(), [model(0, 1, 60, 20), model(0, 2, 70, 20, flags=["suppressed"]),
                            model(1, 2, 60, 40, 270, car=0)], dice=[1, 1, 1, 1, 6, 6])
    act(env, 1, L.AK_CONTROLLO, 2)
    assert g(env, L.G_CONTROLLED) == -1 and md(env, 0, 1, L.MD_FATIGUE) == 0
    act(env, 1, L.AK_RICHIAMO, 2, mine=True)
    assert not md(env, 0, 2, L.MD_FLAGS) & L.F_SUPPRESSED
    assert md(env, 0, 1, L.MD_FATIGUE) == 1


def test_nascosto_ends_when_the_model_declares_a_reaction():
    # NASCOSTO: "fuori vista fintanto che non dichiara un'azione o una reazione"; the reaction fire
    # is made from hidden: -1 reaction, +1 from hidden: the spara-spine's 4 hits (ADT 4), 1, 1 miss;
    # the fante's armour (5+) rolls 2: a wound.  Then the fante can shoot the guerriero.
    models = [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, flags=["hidden"]), model(1, 3, 80, 60, car=0)]
    env = start(new_env(), models)
    act(env, 2, L.AK_FIRE0)
    assert A(env, "A_THEIR") + 2 not in set(env.legal_actions().tolist())   # hidden: not a target
    env = start(new_env(), models, dice=[4, 1, 1, 2])
    act(env, 2, L.AK_AIM)
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + L.RK_FIRE0)
    assert md(env, 0, 2, L.MD_WOUNDS) == 1
    assert not md(env, 1, 2, L.MD_FLAGS) & (L.F_HIDDEN | L.F_FROM_HIDDEN)
    act(env, 2, L.AK_FIRE0)
    assert A(env, "A_THEIR") + 2 in set(env.legal_actions().tolist())


def test_a_charge_from_hidden_that_falls_short_gives_no_bonus_to_the_next_fire():
    # NASCOSTO's +1 is for the melee of a charge from hidden; the charge falls short (12 + 1 + 1 <
    # 22.25 cm) and the model, no longer hidden, then fires without it: 3 and 1 miss ADT 4
    env = start(new_env(), [model(0, 2, 60, 20, flags=["hidden"]), model(1, 2, 60, 45, 270, car=0),
                            model(1, 3, 100, 100, car=0)], dice=[1, 1, 3, 1, 1])
    act(env, 2, L.AK_CHARGE, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:
        env.step(A(env, "A_PASS"))
    assert g(env, L.G_CHARGE_OK) == 0 and env.core.state.pos[0, 0, 2, 1] == pytest.approx(32.0, abs=1e-3)
    assert not md(env, 0, 2, L.MD_FLAGS) & (L.F_HIDDEN | L.F_FROM_HIDDEN)
    act(env, 2, L.AK_FIRE0, 2)
    assert md(env, 1, 2, L.MD_WOUNDS) == 0 and md(env, 1, 2, L.MD_MORALE) == 0


def test_la_fatica_reduces_m_of_a_charge_that_falls_short():
    # LA FATICA: "riduce di 1D6 il valore di M": M = 12 - 4 (the fatigue die); the reach
    # 8 + 1 + 1 < 22.25 cm; the charge then moves "del solo valore di M": 8 cm, not 12
    env = start(new_env(), [model(0, 2, 60, 20, fatigue=1), model(1, 2, 60, 45, 270, car=0),
                            model(1, 3, 100, 100, car=0)], dice=[1, 1, 4])
    act(env, 2, L.AK_CHARGE, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:
        env.step(A(env, "A_PASS"))
    assert g(env, L.G_CHARGE_OK) == 0
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(28.0, abs=1e-3)


def _aim_and_react(env, rk, dice, guerriero=(), terrain=None):
    """The fante aims (MIRA, no dice); the guerriero 30 cm away reacts with ``rk``."""
    sc = {} if terrain is None else {"terrain": terrain}
    env = start(env, [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, **dict(guerriero)),
                      model(1, 3, 100, 100, car=0)], dice=dice, **sc)
    act(env, 2, L.AK_AIM)
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + rk)
    return env


def test_la_fatica_reduces_m_of_ripiegare():
    # RIPIEGARE "del valore di Mx2" with LA FATICA's M - 1D6: (14 - 4) x 2 = 20 cm, to y = 70
    env = _aim_and_react(new_env(), L.RK_FALLBACK, [4], {"fatigue": 1})
    assert env.core.state.pos[0, 1, 2, 1] == pytest.approx(70.0, abs=1e-3)
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_PRONE


def test_rough_terrain_reduces_m_of_ripiegare():
    # TERRENI: entering rough terrain takes 1D6 off M (as MOVIMENTO): (14 - 4) x 2 = 20 cm
    rough = {"kind": "rough", "vertices": [[50, 60], [70, 60], [70, 66], [50, 66]]}
    env = _aim_and_react(new_env(), L.RK_FALLBACK, [4], terrain=[rough])
    assert env.core.state.pos[0, 1, 2, 1] == pytest.approx(70.0, abs=1e-3)


def test_la_fatica_reduces_m_before_contromossa_halves_it():
    # CONTROMOSSA "del valore di M/2" of the M that LA FATICA leaves: (14 - 4) / 2 = 5 cm, not 7 - 4
    env = _aim_and_react(new_env(), L.RK_COUNTERMOVE, [4], {"fatigue": 1})
    assert g(env, L.G_STAGE) == L.ST_COUNTERMOVE
    env.step(A(env, "A_MOVE") + move_choice(4, 4))
    face(env, 4)
    assert env.core.state.pos[0, 1, 2, 1] == pytest.approx(55.0, abs=1e-3)


def _xeno_with_rules(tmp_path, model: str, special_rules: list[str]):
    """An env whose xeno army list gives ``model`` these special rules (a user's army file)."""
    import json
    data = json.loads((game.DATA / "armylist_xeno.json").read_text())
    for m in data["models"]:
        if m["name"] == model:
            m["special_rules"] = special_rules
    path = tmp_path / "xeno.json"
    path.write_text(json.dumps(data))
    return new_env(army_files={"xeno": str(path)})


def _immobile_guerriero(tmp_path):
    return _xeno_with_rules(tmp_path, "guerriero", ["IMMOBILE"])


def test_immobile_winner_does_not_consolidate(tmp_path):
    # IMMOBILE: "non può muovere": a winner of a melee that is IMMOBILE is offered no consolidation.
    # The fante (AT 1) rolls 1; the guerriero (AT 2) 5, 5: two hits, armour 5+ rolls 2, 2: the fante
    # is out of combat, loses and is removed; the turn goes on to player 1 with no 2D6 rolled.
    env = start(_immobile_guerriero(tmp_path), [model(0, 2, 60, 20), model(0, 3, 10, 10, car=0),
                                                 model(1, 2, 60, 22.75, 270, car=0)], dice=[1, 5, 5, 2, 2])
    env.step(A(env, "A_PASS"))
    assert md(env, 0, 2, L.MD_STATUS) == L.REMOVED
    assert g(env, L.G_STAGE) == L.ST_SELECT and g(env, L.G_ACTIVE) == 1
    assert not md(env, 1, 2, L.MD_FLAGS) & L.F_WON
    assert env.core.state.pos[0, 1, 2, 1] == pytest.approx(22.75)


# -- MOVIMENTO "muovere ... e/o ruotare": the facing at the end of a move (option facing) ----------
def test_the_mover_chooses_the_facing_at_the_end_of_a_move():
    # MOVIMENTO: "il modello può muovere del valore di M (o meno) e/o ruotare": the fante backs
    # away 12 cm south (direction 12) and ends facing north, toward the guerriero
    env = start(new_env(), [model(0, 2, 60, 30), model(1, 2, 60, 60, 270, car=0)])
    act(env, 2, L.AK_MOVE)
    env.step(A(env, "A_MOVE") + move_choice(12, 4))
    assert g(env, L.G_STAGE) == L.ST_FACING and env.agent_selection == "player_0"
    assert md(env, 0, 2, L.MD_CAR) == 2                                   # not declared yet
    legal = set(env.legal_actions().tolist())
    assert legal == {A(env, "A_MOVE") + move_choice(d, 0) for d in range(L.N_DIRS)}
    assert "facing" in env.why_illegal(A(env, "A_MOVE") + move_choice(4, 1))
    assert "stage facing" in game.action_name(env.core.cfg, A(env, "A_MOVE") + move_choice(4, 0))
    obs = game.split_obs(env.core.cfg, env.observe("player_0")["observation"])
    assert obs["globals"][3] == L.ST_FACING and obs["globals"][10] == move_choice(12, 4)
    env.step(A(env, "A_MOVE") + move_choice(4, 0))
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(18.0, abs=1e-4)
    assert env.core.state.pos[0, 0, 2, 2] == pytest.approx(math.pi / 2, abs=1e-4)
    assert md(env, 0, 2, L.MD_CAR) == 1 and g(env, L.G_STAGE) == L.ST_SELECT


def test_facing_travel_option_faces_the_direction_of_travel():
    # option facing="travel" (the behaviour before the choice, kept for the shipped agents): no
    # facing stage, the model faces the way it moved; a rotation still faces its direction
    env = start(new_env(facing="travel"), [model(0, 2, 60, 30), model(1, 2, 60, 60, 270, car=0)])
    act(env, 2, L.AK_MOVE)
    env.step(A(env, "A_MOVE") + move_choice(12, 4))
    assert g(env, L.G_STAGE) == L.ST_SELECT
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(18.0, abs=1e-4)
    assert env.core.state.pos[0, 0, 2, 2] == pytest.approx(3 * math.pi / 2, abs=1e-4)


def test_consolidation_ends_facing_the_winners_choice():
    # LA MISCHIA's consolidation is a move: 7 cm north (as the consolidation test), facing east
    env = charged_to_a_won_melee(new_env())
    env.step(A(env, "A_PASS"))
    env.step(A(env, "A_MOVE") + move_choice(4, 4))
    face(env, 0)
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(32.25 + 7, abs=1e-3)
    assert env.core.state.pos[0, 0, 2, 2] == pytest.approx(0.0, abs=1e-4)
    assert g(env, L.G_STAGE) == L.ST_SELECT and g(env, L.G_ACTIVE) == 1


# -- review: charge bonuses, LA FATICA, MIRA, VOLANTE, NASCOSTO, IL COMANDANTE, A TERRA, IMMOBILE ----
def test_charge_bonuses_end_when_the_charged_model_falls_back():
    # CARICA's +1D3 AT and +1 to hit, NASCOSTO's "carica da nascosto" +1 and the charged model's "al
    # riparo" +1 are for "la mischia seguente".  The hidden fante charges the guerriero, who touches a
    # rough strip that the charge line crosses (in cover), and reaches: 12 + 1 + 1 >= 12.25 cm, D3 6 -> 3.
    strip = {"kind": "rough", "vertices": [[50, 33.6], [70, 33.6], [70, 34], [50, 34]]}
    models = [model(0, 2, 60, 20, flags=["hidden"]), model(1, 2, 60, 35, 270), model(1, 3, 100, 100, car=0)]
    env = start(new_env(), models, dice=[1, 1, 6], terrain=[strip])
    act(env, 2, L.AK_CHARGE, 2)
    assert g(env, L.G_STAGE) == L.ST_REACT
    env.step(A(env, "A_PASS"))                       # no reaction: the bonuses stand for the melee
    f = md(env, 0, 2, L.MD_FLAGS)
    assert f & L.F_CHARGER and f & L.F_FROM_HIDDEN and f & L.F_ENGAGED and md(env, 0, 2, L.MD_CHARGE_AT) == 3
    assert md(env, 1, 2, L.MD_FLAGS) & L.F_COVER
    # RIPIEGARE after the contact ((14 - 4) x 2 = 20 cm, the strip's 1D6 is 4): no melee follows,
    # and the charger keeps nothing for a later fire ("da nascosto") or melee
    env = start(new_env(), models, dice=[1, 1, 6, 4], terrain=[strip])
    act(env, 2, L.AK_CHARGE, 2)
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + L.RK_FALLBACK)
    assert g(env, L.G_CHARGE_OK) == 1
    assert env.core.state.pos[0, 1, 2, 1] == pytest.approx(55.0, abs=1e-3)
    f = md(env, 0, 2, L.MD_FLAGS)
    assert not f & (L.F_CHARGER | L.F_FROM_HIDDEN | L.F_ENGAGED | L.F_HIDDEN)
    assert md(env, 0, 2, L.MD_CHARGE_AT) == 0
    assert not md(env, 1, 2, L.MD_FLAGS) & (L.F_COVER | L.F_ENGAGED)


def test_controcarica_reached_charges_in_place_and_counts_for_la_fatica():
    # CONTROCARICA: "sposta il modello solo se il tuo nemico non ti raggiunge" (RULES.md: reached, it
    # charges without moving); LA FATICA: declared a second time this turn, a fatigue marker.
    # 1) The fante aims (MIRA); the guerriero 22.25 cm away counter-charges (2 points): 14 + 1 + 1
    #    falls short, it moves M = 14 cm toward the fante, to y 31.
    # 2) The fante charges it: 12 + 1 + 1 >= 8.25 cm reaches (D3 die 2 -> 1); the guerriero, inside
    #    whose control area the charge passes, counter-charges again (free): reached, it stays where
    #    it is and charges (D3 die 6 -> 3, -1 in the melee), then takes a fatigue marker.
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 45, 270)], dice=[1, 1, 1, 1, 2, 6])
    act(env, 2, L.AK_AIM)
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + L.RK_COUNTERCHARGE)
    assert env.core.state.pos[0, 1, 2, 1] == pytest.approx(31.0, abs=1e-3)
    assert md(env, 1, 2, L.MD_FATIGUE) == 0 and md(env, 1, 2, L.MD_CAR) == 0
    act(env, 2, L.AK_CHARGE, 2)
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + L.RK_COUNTERCHARGE)
    assert g(env, L.G_CHARGE_OK) == 1 and md(env, 0, 2, L.MD_CHARGE_AT) == 1
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(28.25, abs=1e-3)
    assert env.core.state.pos[0, 1, 2, 1] == pytest.approx(31.0, abs=1e-3)
    f = md(env, 1, 2, L.MD_FLAGS)
    assert f & L.F_CHARGER and f & L.F_COUNTERCHARGER and f & L.F_ENGAGED
    assert md(env, 1, 2, L.MD_CHARGE_AT) == 3
    assert md(env, 1, 2, L.MD_FATIGUE) == 1


def test_mira_is_lost_when_an_ability_comes_between():
    # MIRA: +1 "nell'azione fuoco ... che esegue immediatamente dopo".  The psionico (ADT 4) fires its
    # pistola at the guerriero 17 cm away: a 3 hits only with MIRA's +1 (armour 4+ rolls 2: a wound)
    models = [model(0, 1, 60, 20), model(0, 2, 70, 20, flags=["suppressed"]), model(1, 2, 60, 40, 270, car=0)]
    env = start(new_env(), models, dice=[3, 2])
    act(env, 1, L.AK_AIM)
    act(env, 1, L.AK_FIRE0, 2)
    assert md(env, 1, 2, L.MD_WOUNDS) == 1
    # ABILITA' in between (RICHIAMO on the suppressed fante: 3 + 3 + 1 >= PSI 5): the fire is not
    # the action after MIRA, and the 3 misses
    env = start(new_env(), models, dice=[3, 3, 3, 2])
    act(env, 1, L.AK_AIM)
    act(env, 1, L.AK_RICHIAMO, 2, mine=True)
    assert not md(env, 0, 2, L.MD_FLAGS) & L.F_SUPPRESSED
    assert not md(env, 0, 1, L.MD_FLAGS) & L.F_AIMED
    act(env, 1, L.AK_FIRE0, 2)
    assert md(env, 1, 2, L.MD_WOUNDS) == 0 and md(env, 1, 2, L.MD_MORALE) == 0


def _walking_predatore(tmp_path):
    # a user's armylist where the predatore alato keeps VOLANTE 20 but not MOVIMENTO RAPIDO
    return _xeno_with_rules(tmp_path, "predatore alato", ["VOLANTE 20"])


def test_a_flyer_charges_on_foot_through_rough_terrain(tmp_path):
    # VOLANTE flies "quando utilizza un'azione movimento": its CARICA is on foot.  The rough strip on
    # the way takes 1D6 (5) off M (TERRENI): (12 - 5) + 3 + 3 < 17.25 cm, it falls short and moves
    # the M left, 7 cm (flying, 12 + 3 + 3 would have reached)
    rough = {"kind": "rough", "vertices": [[50, 48], [70, 48], [70, 52], [50, 52]]}
    env = start(_walking_predatore(tmp_path), [model(0, 2, 60, 40, car=0), model(1, 7, 60, 60, 270)],
                dice=[3, 3, 5], terrain=[rough], active=1)
    act(env, 7, L.AK_CHARGE, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:          # the charge ends in the fante's area: a free reaction offered
        env.step(A(env, "A_PASS"))
    assert g(env, L.G_CHARGE_OK) == 0
    assert env.core.state.pos[0, 1, 7, 1] == pytest.approx(53.0, abs=1e-3)
    assert md(env, 1, 7, L.MD_STATUS) == L.ACTIVE


def test_a_flyer_does_not_charge_over_impassable_terrain():
    # VOLANTE's flight over INTRANSITABILE terrain is for MOVIMENTO, not CARICA: 12 + 3 + 3 would reach
    # but the wall stands on the straight line; the charge stops short of the wall (7.5 cm, the
    # longest legal eighth of M)
    wall = {"kind": "impassable", "height_cm": 1, "vertices": [[50, 49], [70, 49], [70, 51], [50, 51]]}
    env = start(new_env(), [model(0, 2, 60, 40, car=0), model(1, 7, 60, 60, 270)], dice=[3, 3], terrain=[wall],
                active=1)
    act(env, 7, L.AK_CHARGE, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:          # the charge ends in the fante's area: a free reaction offered
        env.step(A(env, "A_PASS"))
    assert g(env, L.G_CHARGE_OK) == 0
    assert env.core.state.pos[0, 1, 7, 1] == pytest.approx(52.5, abs=1e-3)


def test_a_consolidation_ending_near_a_hidden_enemy_finds_it():
    # AREA DI CONTROLLO: "i modelli nascosti entro tale area vengono individuati", after a
    # consolidation too.  The fante wins the melee of the CARICA test and consolidates 7 cm north to
    # y 39.25: the hidden guerriero at y 45 is then 3 cm away, inside its SN x 2 = 4 cm
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 35, 270, car=0),
                            model(1, 3, 60, 45, 270, car=0, flags=["hidden"])],
                dice=[1, 1, 6, 3, 3, 1, 6, 2, 2, 5, 3, 3, 3, 4])
    act(env, 2, L.AK_CHARGE, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:
        env.step(A(env, "A_PASS"))
    env.step(A(env, "A_PASS"))
    assert md(env, 1, 2, L.MD_STATUS) == L.REMOVED and g(env, L.G_STAGE) == L.ST_CONSOLIDATE
    assert md(env, 1, 3, L.MD_FLAGS) & L.F_HIDDEN             # 10 cm away after the melee
    env.step(A(env, "A_MOVE") + move_choice(4, 4))
    face(env, 4)
    assert env.core.state.pos[0, 0, 2, 1] == pytest.approx(39.25, abs=1e-3)
    assert not md(env, 1, 3, L.MD_FLAGS) & L.F_HIDDEN


def test_the_commanders_charisma_is_not_an_action():
    # IL COMANDANTE hands out its CAR_bonus points "durante la fase tattica"; it is not one of LE
    # AZIONI.  The hidden capitano (CAR_bonus 2) with fatigue markers = COS (LA FATICA: only RIPRESA
    # may be declared) gives a point to the fante: it stays hidden, gets no fatigue marker, no reaction
    env = start(new_env(), [model(0, 0, 60, 20, fatigue=3, flags=["hidden"]), model(0, 2, 70, 20),
                            model(1, 2, 60, 50, 270)])
    env.step(A(env, "A_MODEL") + 0)
    assert set(env.legal_actions().tolist()) == {A(env, "A_ACT") + L.AK_RECOVER, A(env, "A_ACT") + L.AK_DELEGATE}
    env.step(A(env, "A_ACT") + L.AK_DELEGATE)
    env.step(A(env, "A_MINE") + 2)
    assert g(env, L.G_STAGE) == L.ST_SELECT and env.agent_selection == "player_0"
    assert md(env, 0, 2, L.MD_CAR) == 3 and md(env, 0, 0, L.MD_CMD_BONUS) == 1
    assert md(env, 0, 0, L.MD_FLAGS) & L.F_HIDDEN and md(env, 0, 0, L.MD_FATIGUE) == 3
    # MIRA is for the fire "che esegue immediatamente dopo": two delegations in between change
    # nothing.  The capitano (ADT 3, ESPERTO armi +1, MIRA +1) fires at the guerriero, down (-1): a 2
    # hits only with MIRA, the 1 misses; armour 4+ rolls 2: a wound
    env = start(new_env(), [model(0, 0, 60, 20), model(0, 2, 70, 20),
                            model(1, 2, 60, 50, 270, car=0, flags=["prone"])], dice=[2, 1, 2])
    act(env, 0, L.AK_AIM)
    for _ in range(2):
        act(env, 0, L.AK_DELEGATE, 2, mine=True)
    assert md(env, 0, 0, L.MD_FLAGS) & L.F_AIMED and md(env, 0, 0, L.MD_FATIGUE) == 0
    act(env, 0, L.AK_FIRE0, 2)
    assert md(env, 1, 2, L.MD_WOUNDS) == 1
    assert md(env, 0, 0, L.MD_CAR) == 1 and md(env, 0, 2, L.MD_CAR) == 4


def test_a_model_down_reacts_no_more_with_reactions_per_model_any():
    # option reactions_per_model="any".  A TERRA "non è cumulabile con altri tipi di azioni o
    # reazioni" and after it the model "non può fare nulla"; RIPIEGARE ends "a terra".  The fante
    # fires at the guerriero 1.25 cm away, inside both guerrieri's control areas (free reactions)
    models = [model(0, 2, 60, 20), model(1, 2, 60, 24, 270), model(1, 3, 63, 26, 270)]
    for first in (L.RK_PRONE, L.RK_FALLBACK):
        env = start(new_env(reactions_per_model="any"), models, dice=[1] * 8)
        act(env, 2, L.AK_FIRE0, 2)
        env.step(A(env, "A_MODEL") + 2)
        env.step(A(env, "A_REACT") + first)
        assert g(env, L.G_STAGE) == L.ST_REACT              # the other guerriero may still react
        assert not env.core.mask[0, A(env, "A_MODEL") + 2]
        assert "down" in env.why_illegal(A(env, "A_MODEL") + 2)
        assert env.core.mask[0, A(env, "A_MODEL") + 3]
        env.step(A(env, "A_PASS"))
    # after FUOCO DI REAZIONE it may declare another reaction, but not A TERRA
    env = start(new_env(reactions_per_model="any"), models, dice=[1] * 8)
    act(env, 2, L.AK_FIRE0, 2)
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_REACT") + L.RK_FIRE0)
    env.step(A(env, "A_MODEL") + 2)
    assert not env.core.mask[0, A(env, "A_REACT") + L.RK_PRONE]
    assert env.core.mask[0, A(env, "A_REACT") + L.RK_COUNTERMOVE]
    with pytest.raises(ValueError, match="not available"):
        env.step(A(env, "A_REACT") + L.RK_PRONE)


def test_an_immobile_model_may_rotate():
    # IMMOBILE "non può muovere"; MOVIMENTO "il modello può muovere ... e/o ruotare" (RULES.md): the
    # torretta may rotate (MOVIMENTO of distance 0, 1 point), never go anywhere; no CARICA
    env = new_env(armies=["umanita:default_250", ["xeno", ["mente dell'alveare", "torretta biomeccanica"]]])
    start(env, [model(0, 2, 60, 20, car=0), model(1, 1, 60, 50, 270)], active=1)
    env.step(A(env, "A_MODEL") + 1)
    assert env.core.mask[0, A(env, "A_ACT") + L.AK_MOVE]
    assert "IMMOBILE" in env.why_illegal(A(env, "A_ACT") + L.AK_CHARGE)
    env.step(A(env, "A_ACT") + L.AK_MOVE)
    move = A(env, "A_MOVE")
    assert set(env.legal_actions().tolist()) == {move + move_choice(d, 0) for d in range(L.N_DIRS)}
    assert "IMMOBILE" in env.why_illegal(move + move_choice(4, 1))
    env.step(move + move_choice(4, 0))
    assert env.core.state.pos[0, 1, 1, 2] == pytest.approx(math.pi / 2, abs=1e-4)
    assert env.core.state.pos[0, 1, 1, 1] == pytest.approx(50.0)
    assert md(env, 1, 1, L.MD_CAR) == 1 and g(env, L.G_STAGE) == L.ST_SELECT


def test_controllo_target_that_declared_duello_mentale_duels_once():
    # CONTROLLO (APS): "il modello bersaglio ha diritto ad effettuare un duello mentale"; the mente
    # dell'alveare (PSIONICO) declares DUELLO MENTALE against it: that is its duel, not a second one
    # (RULES.md).  Test 3 + 3 + 1 >= 5; the duel 4 + CAR 2 + 2 (ESPERTO mente, amplificatore) beats
    # 1 + CAR 1: the ability works (the 1 and 6 left would have been a second duel, lost)
    env = start(new_env(), [model(0, 1, 60, 20), model(1, 1, 60, 40, 270)], dice=[3, 3, 4, 1, 1, 6])
    act(env, 1, L.AK_CONTROLLO, 1)
    env.step(A(env, "A_MODEL") + 1)
    env.step(A(env, "A_REACT") + L.RK_DUEL)
    assert g(env, L.G_CONTROLLED) == 1
    assert md(env, 1, 1, L.MD_FATIGUE) == 0
