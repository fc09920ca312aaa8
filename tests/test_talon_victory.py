"""Scenario victory conditions (RULES.md 'Victory conditions'; the rulebook leaves objectives to the
scenario: 11.1.1 "se richiesto dallo scenario", 16.1, 19) and the docked ship in the observation
(Talon 16.2, 16.3).  Exact outcomes from scripted dice; the ready scenario "starbase_assault" gets
the mask/observation-equals-reference checks, the random-play fuzz and the scripted captain."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import bot, game
from wargym.envs.talon import rules as R
from helpers.talon import (act, drive, fuzz_stages, g, mask_equals_reference, obs_equals_reference,
                           scripted_vs_random, sh, ship, stage)

OPTIONS = {"fighters": True, "docking": True, "victory": True, "terrain": True}
HORNET = [ship("terran_cv", "Hornet", (8, 5), "W", shields=[0, 4, 4, 4], hull_hits=5),
          ship("terran_ftr", "Cougar", (8, 6), "W")]
JUSTICE = [ship("talon_ca", "Justice", (8, 3), "E", speed=1)]
CALM = [ship("terran_cv", "Hornet", (3, 5), "W")]        # far from the Justice's line: nothing happens to it

MET_FIRST = [1] + [0] * (R.N_VC - 1)  # final info: condition 0 decided the game


def victory_game(p0, p1, victory=None, dice=(), **fields):
    core = VecGame(game, 1, OPTIONS)
    sc = {"players": [{"ships": p0}, {"ships": p1}], "impulse": "A", "initiative": 0, **fields}
    if victory is not None:
        sc["victory"] = victory
    core.load_scenario(sc, seed=0)
    core.script_dice(0, list(dice))
    if stage(core) == R.ST_AP:
        act(core, "DONE")
    return core


def destroy_hornet(core):
    """Talon 16.3 example set-up of test_talon_docking: the Cougar docks, then the Justice's shot
    (die 5) destroys the Hornet on its last hull box."""
    act(core, "DOCK", 1, R.M_STRAIGHT)
    drive(core, lambda c: stage(c) == R.ST_FIRE_SHIP and g(c, R.G_DECIDER) == 1)
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)


def victory_part(core, player):
    obs, _ = core.observe(0, player)
    return game.split_obs(core.cfg, obs)


def test_destroy_condition_ends_the_game_at_once():
    # the scenario's objective: player 1 wins the moment the Hornet is destroyed, with rounds to go
    core = victory_game(HORNET, JUSTICE, {"conditions": [{"player": 1, "kind": "destroy", "ships": ["Hornet"]}]},
                        dice=(5,))
    destroy_hornet(core)
    assert sh(core, 0, 0, R.SH_STATUS) == R.SS_DESTROYED
    assert g(core, R.G_DONE) == 1 and g(core, R.G_WINNER) == 1 and g(core, R.G_ROUND) == 1
    assert game.final_info(core, 0)["victory_conditions_met"] == MET_FIRST


def test_docked_squadron_counts_as_destroyed_with_its_carrier():
    # Talon 16.3 the Cougar dies with the Hornet: a condition naming it is met by the same shot
    core = victory_game(HORNET, JUSTICE, {"conditions": [{"player": 1, "kind": "destroy", "ships": ["Cougar"]}]},
                        dice=(5,))
    destroy_hornet(core)
    assert g(core, R.G_DONE) == 1 and g(core, R.G_WINNER) == 1


def test_landing_escapes_and_wins_where_the_points_would_draw():
    # Talon 16.1 landing "solo se consentito dallo scenario"; the escape condition is met at once.  Without
    # it the game ends too (player 0 has nothing in play) and the points, 0 to 0, make a draw.
    p0 = [ship("terran_ca", "Patton", (9, 3), "E", speed=4)]
    planet = [{"kind": "planet", "hex": [9, 4]}]
    for victory, winner in (({"conditions": [{"player": 0, "kind": "escape", "ships": ["Patton"]}]}, 0), (None, 2)):
        core = victory_game(p0, JUSTICE, victory, terrain=planet, landing=True)
        act(core, "DOCK", 0, R.M_STRAIGHT)
        assert g(core, R.G_DONE) == 1 and g(core, R.G_WINNER) == winner


@pytest.mark.parametrize("otherwise,winner", [("points", 2), (0, 0), (1, 1), ("draw", 2)])
def test_otherwise_decides_when_no_condition_is_met(otherwise, winner):
    # nobody fires: after the last round the Hornet still stands, so player 1's condition is not met
    core = victory_game(CALM, JUSTICE, {"conditions": [{"player": 1, "kind": "destroy", "ships": ["Hornet"]}],
                                        "otherwise": otherwise}, rounds=1)
    drive(core, lambda c: False)
    assert g(core, R.G_DONE) == 1 and g(core, R.G_WINNER) == winner
    assert game.final_info(core, 0)["victory_conditions_met"] == [0] * R.N_VC


def test_hold_is_judged_at_the_end():
    # hold: the Justice still in play when the last round ends wins for player 1 (the points are 0 to 0)
    core = victory_game(CALM, JUSTICE, {"conditions": [{"player": 1, "kind": "hold", "ships": ["Justice"]}]},
                        rounds=1)
    drive(core, lambda c: False)
    assert g(core, R.G_WINNER) == 1 and game.final_info(core, 0)["victory_conditions_met"] == MET_FIRST


def test_points_condition_is_met_at_once():
    core = victory_game(HORNET, JUSTICE, {"conditions": [{"player": 1, "kind": "points", "points": 1}]}, dice=(5,))
    destroy_hornet(core)
    assert g(core, R.G_DONE) == 1 and g(core, R.G_WINNER) == 1


def test_a_docked_ship_has_not_escaped_while_its_carrier_is_in_play():
    # Talon 16.3 a docked squadron leaves the battle with its carrier, not before
    core = victory_game(HORNET, JUSTICE, {"conditions": [{"player": 0, "kind": "escape", "ships": ["Cougar"]}]})
    act(core, "DOCK", 1, R.M_STRAIGHT)
    assert g(core, R.G_DONE) == 0


def test_both_players_meeting_a_condition_together_is_a_draw():
    core = victory_game(HORNET, JUSTICE, {"conditions": [{"player": 0, "kind": "points", "points": 1},
                                                         {"player": 1, "kind": "points", "points": 1}]})
    core.state.g[0, R.G_SP0] = core.state.g[0, R.G_SP1] = 8      # both scored in the same resolution
    met = R.conditions_met(core.state.view, 0, False)
    assert met == 0b11 and R.winner_of(core.state.view, 0, met) == 2


def test_victory_block_from_each_side():
    core = victory_game(HORNET, JUSTICE, {"conditions": [{"player": 1, "kind": "destroy", "ships": ["Hornet"]},
                                                         {"player": 0, "kind": "points", "points": 40}]})
    mine = victory_part(core, 0)
    assert mine["victory"].tolist() == [[2, R.VK_DESTROY, 0, 1], [1, R.VK_POINTS, 0, 5], [0] * 4, [0] * 4]
    assert mine["victory_ships"][0].tolist()[:2] == [1, 0] and not mine["victory_ships"][1].any()
    theirs = victory_part(core, 1)
    assert theirs["victory"][0].tolist() == [1, R.VK_DESTROY, 0, 1]
    assert theirs["victory_ships"][1].tolist()[:2] == [1, 0] and not theirs["victory_ships"][0].any()
    assert mine["globals"].shape == (R.N_GLOBAL,)


def test_docked_ship_shows_aboard_its_carrier():
    # Talon 16.2/16.3: the Cougar, docked, is at the Hornet's hex with status 5; once the Hornet is
    # destroyed, the Cougar is destroyed too (status 2)
    core = victory_game(HORNET, JUSTICE, dice=(5,))
    act(core, "DOCK", 1, R.M_STRAIGHT)
    row = victory_part(core, 0)["ships"][0, 1]
    hornet = core.cfg.grid.cell(8, 5)
    assert row[R.F_STATUS] == R.OBS_DOCKED
    assert (row[R.F_ROW], row[R.F_COL]) == (hornet // 16, hornet % 16) == (8, 5)
    assert victory_part(core, 1)["ships"][1, 1, R.F_STATUS] == R.OBS_DOCKED
    drive(core, lambda c: stage(c) == R.ST_FIRE_SHIP and g(c, R.G_DECIDER) == 1)
    act(core, "FIRE_SHIP", 0)
    act(core, "GROUP", 0)
    act(core, "TARGET", 0)
    assert victory_part(core, 0)["ships"][0, 1, R.F_STATUS] == R.SS_DESTROYED


@pytest.mark.parametrize("victory,words", [
    ({"conditions": []}, "1..4 conditions"),
    ({"conditions": [{"player": 2, "kind": "destroy"}]}, "'player' must be 0 or 1"),
    ({"conditions": [{"player": 0, "kind": "capture"}]}, "field 'kind'"),
    ({"conditions": [{"player": 0, "kind": "destroy", "ships": ["Hornet"]}]}, "exactly one of player 1's ships"),
    ({"conditions": [{"player": 0, "kind": "escape", "ships": ["Hornet"], "count": 2}]}, "'count' must be 1..1"),
    ({"conditions": [{"player": 0, "kind": "points"}]}, "field 'points'"),
    ({"conditions": [{"player": 0, "kind": "hold", "points": 3}]}, "unknown field(s) ['points']"),
    ({"conditions": [{"player": 0, "kind": "hold"}], "otherwise": "talon"}, "'otherwise'"),
    ({"conditions": [{"player": 0, "kind": "hold"}], "winner": 0}, "scenario 'victory' must be"),
])
def test_bad_victory_conditions_are_refused_and_change_nothing(victory, words):
    core = victory_game(HORNET, JUSTICE)
    before = core.state.g.copy(), core.state.sh.copy()
    with pytest.raises(ValueError) as e:
        core.load_scenario({"players": [{"ships": HORNET}, {"ships": JUSTICE}], "victory": victory})
    assert words in str(e.value)
    assert np.array_equal(core.state.g, before[0]) and np.array_equal(core.state.sh, before[1])


def test_victory_needs_the_option():
    core = VecGame(game, 1, {"fighters": True})
    with pytest.raises(ValueError, match="option victory=True"):
        core.load_scenario({"players": [{"ships": HORNET}, {"ships": JUSTICE}],
                            "victory": {"conditions": [{"player": 0, "kind": "hold"}]}})
    with pytest.raises(ValueError, match="option victory must not be False"):
        VecGame(game, 1, {"scenario": "starbase_assault", "victory": False})


def test_basic_game_observation_is_unchanged():
    # the victory block exists only with the option: talon_v0's inputs (the shipped ppo-dagger's) stay as they
    # were, and talon_v1 adds only its relational block (RULES.md "Relations")
    core = VecGame(game, 1, {"relations": False})
    assert core.cfg.k[R.K_VICTORY] == 0 and game.obs_size(core.cfg) == 16 * 18 * 16 + 2 * 8 * R.N_SF + R.N_GLOBAL
    v1 = VecGame(game, 1, {})
    assert game.obs_size(v1.cfg) == game.obs_size(core.cfg) + 8 * 8 * R.N_PF + 203 * R.N_AF


def test_starbase_assault_loads_its_conditions():
    core = VecGame(game, 1, {"scenario": "starbase_assault"})
    core.reset(seed=0)
    assert core.cfg.k[R.K_VICTORY] == 1
    assert core.state.g[0, R.G_VC:R.G_VC + R.N_VCF].tolist() == [R.VK_DESTROY, 1, 1, 1]
    assert core.state.g[0, R.G_VC_OTHERWISE] == 1


def test_fast_mask_and_observation_equal_reference_in_starbase_assault():
    mask_equals_reference({"scenario": "starbase_assault"})
    obs_equals_reference({"scenario": "starbase_assault"})


def test_random_play_fuzz_in_starbase_assault():
    fuzz_stages("starbase_assault", terrain=False)


def test_scripted_captain_beats_random_in_starbase_assault():
    # the Terran side holds if the base survives; the Talon side must destroy it: the captain plays both
    wins, draws, losses, _, _ = scripted_vs_random(n=20, seed=7, options={"scenario": "starbase_assault"})
    assert wins >= 14 and losses <= 3, (wins, draws, losses)


def _hull_share_lost(core, p):
    """Python statement of reward="damage"'s term: points × share of hull marked, ships not destroyed."""
    lost = 0.0
    for k in range(core.state.sh.shape[2]):
        status = sh(core, p, k, R.SH_STATUS)
        if status in (R.SS_EMPTY, R.SS_DESTROYED):
            continue
        c = sh(core, p, k, R.SH_CLASS)
        lost += core.cfg.cls[c, R.CL_POINTS] * sh(core, p, k, R.SH_HULL_HITS) / max(1, core.cfg.cls[c, R.CL_N_HULL])
    return lost


def test_dense_rewards_pay_destroyed_points_and_hull_damage():
    # Talon "End of the game and rewards" (RULES.md): reward="points" pays the change of the destroyed-points
    # balance, reward="damage" that plus the points' share of hull marked on ships not destroyed (8.4, 8.6.1);
    # both scaled by the mean fleet, zero-sum, nothing added at the end. The same game, the scripted captain in
    # both seats, under both options.
    cores = {r: VecGame(game, 1, {"reward": r}) for r in ("points", "damage")}
    for core in cores.values():
        core.reset(11)
    pts, dmg = cores["points"], cores["damage"]
    scale = max(1.0, 0.5 * (g(pts, R.G_FLEET0) + g(pts, R.G_FLEET1)))
    hull_changes = 0
    for _ in range(3000):
        if g(pts, R.G_DONE):
            break
        sp_before = g(pts, R.G_SP0) - g(pts, R.G_SP1)
        hull_before = _hull_share_lost(dmg, 1) - _hull_share_lost(dmg, 0)
        a = int(bot.LOOPS.scripted_action(pts.state.view, pts.cfg.struct, 0, pts.mask[0]))
        for core in cores.values():
            core.step_one(0, a)
        sp_change = (g(pts, R.G_SP0) - g(pts, R.G_SP1)) - sp_before
        hull_change = (_hull_share_lost(dmg, 1) - _hull_share_lost(dmg, 0)) - hull_before
        hull_changes += hull_change != 0
        assert pts.rewards[0, 0] == pytest.approx(sp_change / scale, abs=1e-6)
        assert dmg.rewards[0, 0] == pytest.approx((sp_change + hull_change) / scale, abs=1e-6)
        assert dmg.rewards[0, 1] == -dmg.rewards[0, 0]
    assert g(pts, R.G_DONE) and g(dmg, R.G_DONE)
    assert hull_changes > 0 and g(pts, R.G_SP0) + g(pts, R.G_SP1) > 0   # the game dealt damage and destroyed
