"""Talon's relational block (option relations, talon_v1; RULES.md "Relations"): each value checked
against a hand computation from the rulebook's tables in scripted positions (Talon 5.2 range,
5.3 arcs, 8.2.3 line of fire, 8.3 the disruptor's to-hit table, 7.1-7.3 moves)."""
from __future__ import annotations

import numpy as np

from wargym.envs.core.vec import VecGame
from wargym.envs.talon import game
from wargym.envs.talon import rules as R

ROW, COL = 8, 6     # my ship's hex (an even row: the axial neighbours E/W are the same row)


def load(enemy_col, enemy_facing, my_facing=0, terrain=(), enemy_row=ROW, **options):
    players = [{"ships": [{"class": "talon_ca", "name": "Justice", "hex": [ROW, COL], "facing": my_facing}]},
               {"ships": [{"class": "terran_ca", "name": "Patton", "hex": [enemy_row, enemy_col], "facing": enemy_facing}]}]
    core = VecGame(game, 1, {"terrain": bool(terrain), **options})
    core.load_scenario({"players": players, "terrain": [{"kind": k, "hex": list(h)} for k, h in terrain]}, seed=0)
    return core


def charge_all(core, p, k):
    """Every live group of ship ``k`` full (Talon 8.1.1), the ship not yet fired (8.2.1)."""
    c = int(core.state.sh[0, p, k, R.SH_CLASS])
    for gi in range(int(core.cfg.cls[c, R.CL_N_GROUPS])):
        core.state.sh[0, p, k, R.SH_RED + gi] = core.cfg.grp[c, gi, R.GR_RED]
        core.state.sh[0, p, k, R.SH_YEL + gi] = core.cfg.grp[c, gi, R.GR_YELLOW]
    core.state.sh[0, p, k, R.SH_FIRED] = 0


def parts(core, seat=0):
    return game.split_obs(core.cfg, core.observe(0, seat)[0])


def pair(core, seat=0):
    return parts(core, seat)["pairs"][0, 0]


# Talon 8.3: a disruptor does 2 damage when its die hits; at range 3 it hits on 3+ (4 faces in 6);
# the Talon CA has two groups of 2 disruptors, arcs front+left and front+right: 4 x 2 x 4/6 = 16/3.
CA_AT_RANGE_3_HALF_POINTS = round(2 * 16 / 3)      # 11


def test_talon_v1_registers_the_relational_block():
    """An observation change is a new version: talon_v1 has the block, talon_v0 does not."""
    from wargym.envs import talon_v0, talon_v1
    new, old = talon_v1.raw_env(), talon_v0.raw_env()
    assert new.metadata["name"] == "talon_v1" and old.metadata["name"] == "talon_v0"
    cfg = new.core.cfg
    S, A = int(cfg.k[R.K_SHIPS]), int(cfg.k[R.K_N_ACTIONS])
    extra = S * S * R.N_PF + A * R.N_AF
    assert new.core.obs_shape[0] == old.core.obs_shape[0] + extra
    assert "pairs" not in game.split_obs(old.core.cfg, np.zeros(old.core.obs_shape, np.int8))
    assert len(game.PAIR_FEATURES) == R.N_PF and len(game.ACTION_FEATURES) == R.N_AF


def test_enemy_dead_ahead_at_range_3():
    """Talon 5.2, 5.3, 8.3: an enemy 3 hexes ahead, bow to bow: in my front arc, I am in its front
    arc (its front shield takes my fire), every group of mine reaches it."""
    core = load(COL + 3, 3)
    charge_all(core, 0, 0)
    row = pair(core)
    assert row[R.PF_PRESENT] == 1 and row[R.PF_RANGE] == 3
    assert row[R.PF_ARC_OF_IT] == R.ARC_FRONT + 1 and row[R.PF_ARC_OF_ME] == R.ARC_FRONT + 1
    assert row[R.PF_AHEAD] == 3 and row[R.PF_ABEAM] == 0 and row[R.PF_HEADING] == 3
    assert row[R.PF_ITS_SHIELD] == 6 and row[R.PF_MY_SHIELD] == 7      # terran CA front 6, Talon CA front 7
    assert row[R.PF_DMG_REACH] == CA_AT_RANGE_3_HALF_POINTS
    assert row[R.PF_DMG_NOW] == CA_AT_RANGE_3_HALF_POINTS and row[R.PF_GROUPS_NOW] == 0b11
    assert row[R.PF_NET_NOW] == 0                                     # 5.33 does not get through 6 boxes
    assert row[R.PF_BLOCKED] == 0


def test_uncharged_groups_reach_but_may_not_fire_now():
    """Talon 8.1.1: only a group with its whole bar charged fires."""
    core = load(COL + 3, 3)
    core.state.sh[0, 0, 0, R.SH_YEL:R.SH_YEL + 3] = 0
    row = pair(core)
    assert row[R.PF_DMG_REACH] == CA_AT_RANGE_3_HALF_POINTS
    assert row[R.PF_DMG_NOW] == 0 and row[R.PF_GROUPS_NOW] == 0


def test_enemy_astern():
    """Talon 5.3: a ship 3 hexes astern is in my rear arc, where no group of the Talon CA fires;
    facing my way, I am in its front arc."""
    core = load(COL - 3, 0)
    charge_all(core, 0, 0)
    row = pair(core)
    assert row[R.PF_RANGE] == 3 and row[R.PF_ARC_OF_IT] == R.ARC_REAR + 1
    assert row[R.PF_ARC_OF_ME] == R.ARC_FRONT + 1
    assert row[R.PF_AHEAD] == -3 and row[R.PF_ABEAM] == 0 and row[R.PF_HEADING] == 0
    assert row[R.PF_DMG_REACH] == 0 and row[R.PF_DMG_NOW] == 0
    assert row[R.PF_MY_SHIELD] == 3                                   # the Talon CA's rear shield


def test_offset_turns_with_my_facing():
    """The offset is egocentric: the same enemy seen by a ship facing west is 3 hexes astern."""
    core = load(COL + 3, 3, my_facing=3)
    row = pair(core)
    assert row[R.PF_AHEAD] == -3 and row[R.PF_ABEAM] == 0 and row[R.PF_ARC_OF_IT] == R.ARC_REAR + 1
    assert row[R.PF_HEADING] == 0


def test_planet_on_the_line_blocks_fire():
    """Talon 8.2.3 and 17.2.2: a planet hex on the line between the ships blocks the fire."""
    core = load(COL + 3, 3, terrain=[("planet", (ROW, COL + 2))])
    charge_all(core, 0, 0)
    row = pair(core)
    assert row[R.PF_BLOCKED] == 1
    assert row[R.PF_DMG_REACH] == 0 and row[R.PF_DMG_NOW] == 0 and row[R.PF_THREAT_REACH] == 0


def test_both_sides_see_the_same_pair_mirrored():
    """Everything is public in Talon: the enemy's table holds the same pair from its side."""
    core = load(COL + 3, 3)
    charge_all(core, 1, 0)
    mine, theirs = pair(core, 0), pair(core, 1)
    assert theirs[R.PF_RANGE] == mine[R.PF_RANGE]
    assert theirs[R.PF_ARC_OF_IT] == mine[R.PF_ARC_OF_ME]
    assert theirs[R.PF_DMG_NOW] == mine[R.PF_THREAT_NOW] > 0


def test_move_rows_describe_each_destination():
    """Talon 7.1-7.3: the row of each move says where it leads: straight ahead one hex nearer to
    the enemy dead ahead (range 2, still in my front arc); a side slip left enters the hex
    ahead-left, as far from a hex 3 east as before (range 3)."""
    core = load(COL + 3, 3)
    charge_all(core, 0, 0)
    table = parts(core)["action_features"]
    move = int(core.cfg.k[R.K_A_MOVE])
    straight = table[move + R.M_STRAIGHT]
    assert straight[R.AF_KNOWN] == 1 and straight[R.AF_RANGE] == 2 and straight[R.AF_EXTRA] == -1
    assert straight[R.AF_FRONT] == 1 and straight[R.AF_HAZARD] == 0
    # Talon 8.3: a disruptor hits on 2+ at range 2: 4 x 2 x 5/6
    assert straight[R.AF_DMG] == round(2 * 4 * 2 * 5 / 6)
    slip = table[move + R.M_SLIP_LEFT]
    assert slip[R.AF_RANGE] == 3 and slip[R.AF_EXTRA] == 0
    assert table[move + R.N_MOVES * 1, R.AF_KNOWN] == 0              # ship slot 1 is empty


def test_move_into_a_planet_is_flagged():
    """Talon 17.2.1: the row of a move into a planet names the tile kind (3 + kind)."""
    core = load(COL + 3, 3, terrain=[("planet", (ROW, COL + 1))])
    table = parts(core)["action_features"]
    assert table[int(core.cfg.k[R.K_A_MOVE]) + R.M_STRAIGHT, R.AF_HAZARD] == 3 + R.TK_PLANET

# write_obs and write_obs_ref agreeing on the block through random play: tests/test_talon_mask.py
