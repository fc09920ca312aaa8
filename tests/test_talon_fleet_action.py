"""Talon's advanced rules together (seed 000, sections 11-19): every ship class is playable, and
the ready scenario "fleet_action", which has every kind of unit (bases, carriers, fighter
squadrons, missile ships, wave and fusion cannons) and every terrain tile, passes the fast
mask/observation/stage-choice reference checks, the random-play fuzz with the terrain invariants,
and the scripted captain's test against random play."""
from __future__ import annotations

import json

import pytest

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R
from helpers.talon import (fuzz_stages, mask_equals_reference, obs_equals_reference, scripted_vs_random,
                           stage_has_choice_equals_reference)

ADVANCED = {"heavy_weapons": True, "missiles": True, "bases": True, "fighters": True}
CLASSES = [c["key"] for c in json.loads((game.DATA / "ships.json").read_text())["classes"]]
FLEET = {"scenario": "fleet_action"}


def unnamed(cls, hexrc, facing):
    """A ship of a class by its first counter name (scenario dicts may leave the name out)."""
    return {"class": cls, "hex": list(hexrc), "facing": facing}


@pytest.mark.parametrize("key", CLASSES)
def test_every_class_is_playable_with_the_advanced_options(key):
    # issue 16: all 19 classes play (12 fighters, 13 missiles, 14 bases, 15 heavy weapons); a
    # squadron enters only with a carrier of its side (12.1.1)
    race = key.split("_")[0]
    own = [unnamed(key, (9, 4), "E")] + ([unnamed("terran_cv", (9, 2), "E")] if key == "terran_ftr" else [])
    other = [unnamed("talon_ca" if race == "terran" else "terran_ca", (9, 13), "W")]
    players = [{"ships": own}, {"ships": other}] if race == "terran" else [{"ships": other}, {"ships": own}]
    core = VecGame(game, 1, ADVANCED)
    core.load_scenario({"players": players}, seed=0)
    p = 0 if race == "terran" else 1
    ci = int(core.state.sh[0, p, 0, R.SH_CLASS])
    assert core.cfg.class_keys[ci] == key and core.cfg.cls[ci, R.CL_PLAYABLE] == 1
    assert core.state.sh[0, p, 0, R.SH_STATUS] == R.SS_ACTIVE


def test_fleet_action_turns_every_advanced_rule_on():
    core = VecGame(game, 1, FLEET)
    core.reset(seed=0)
    k = core.cfg.k
    assert all(k[flag] == 1 for flag in (R.K_TERRAIN, R.K_RETREAT, R.K_HEAVY, R.K_MISSILES, R.K_BASES,
                                          R.K_FIGHTERS, R.K_DOCKING))
    kinds = {core.cfg.class_keys[int(c)] for c in core.state.sh[0, :, :, R.SH_CLASS].ravel() if c >= 0}
    assert {"terran_base", "talon_base", "terran_cv", "terran_ftr", "talon_bc", "talon_dd", "talon_dn",
            "terran_bb"} <= kinds
    assert core.state.g[0, R.G_TILES] == 5


def test_fast_mask_equals_reference_in_fleet_action():
    mask_equals_reference(FLEET)


def test_fast_observation_equals_reference_in_fleet_action():
    obs_equals_reference(FLEET)


def test_stage_has_choice_equals_reference_in_fleet_action():
    stage_has_choice_equals_reference(FLEET)


def test_random_play_fuzz_in_fleet_action():
    fuzz_stages("fleet_action")


def test_scripted_captain_beats_random_in_fleet_action():
    wins, draws, losses, _, _ = scripted_vs_random(n=20, seed=7, options=FLEET)
    assert wins >= 14 and losses <= 4, (wins, draws, losses)
