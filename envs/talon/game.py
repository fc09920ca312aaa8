"""Talon as a wargym game definition: options, static tables, state layout,
scenarios and action names.  The rules themselves are in ``rules.py`` and the chapter modules it gathers; every
interpretation is written down in ``RULES.md``.
"""
from __future__ import annotations

import json
import types
from pathlib import Path

import numpy as np
from numba.experimental import structref

from ..core.batch import StateSpec
from ..core.contract import reason_texts
from ..core.hexgrid import DIRECTION_NAMES, HexGrid
from ..core.options import merged_options
from ..core.rng import DICE_SCRIPT_LEN
from ..core.results import NO_WINNER, result_info
from ..core.structs import WargymStruct
from . import rules as R
from .validate import validate_state  # noqa: F401  (a state from outside, checked before any kernel sees it)

NAME = "talon"
VERSION = 1         # talon_v1: the relational block (option relations); talon_v0 is the same game without it
DATA = Path(__file__).parent / "data"
num_players = 2
kernels = R

ARC_NAMES = ("front", "right", "left", "rear")
IMPULSE_LETTERS = "ABCDEF"
WEAPON_KEYS = ("disruptor", "torpedo", "laser", "fusion_cannon", "wave_cannon", "missile")
CRITICAL_KEYS = {"none": R.CR_NONE, "secondary_explosion": R.CR_SECONDARY, "shields_down": R.CR_SHIELDS,
                 "helm_down": R.CR_HELM, "weapon_group_destroyed": R.CR_WEAPON, "turn_radius_plus": R.CR_TURN,
                 "power_minus": R.CR_POWER, "hull_and_ftl": R.CR_HULL_FTL, "power_loss": R.CR_PLOSS,
                 "ftl_core_breach": R.CR_BREACH}
# weapons whose firing rules are in sections 1-10 (the others: 13 missiles, 15 big guns)
BASIC_WEAPONS = ("disruptor", "torpedo", "laser")
HEAVY_WEAPONS = ("fusion_cannon", "wave_cannon")      # Talon 15, with option heavy_weapons
HEAVY_RULES = {"15.1 wave cannon", "15.2 fusion cannon"}
# --- Talon 12 fighters ---
FIGHTERS_PER_SQUADRON = 3      # Talon 12.1.1 "Il segnalino rappresenta 3 caccia"; one hull box each (12.1.2)
SQUADRONS_PER_CARRIER = 4      # Talon 12.2.1 "un massimo di 4 squadroni di caccia ognuno"
CARRIER_CLASSES = {"cv_and_bases": ("CV", "Base"), "cv_tran_and_bases": ("CV", "Tran", "Base")}

DEFAULT_OPTIONS = {
    "scenario": "example",       # "example": the 3-vs-3 CA battle of the example of play; "fleet": fleets to a point budget
    "budget": 350,               # ship points per side for scenario="fleet"
    "rounds": 10,                # rounds before the game ends (a side with no ship left ends it earlier)
    "initiative": "roll",        # who starts with the initiative in the built-in scenarios: "roll", 0 or 1
    "edition": 2,                # 2: 2nd-edition rules (default); 1: 1st-edition shield reinforcement (6.2.2)
    "arc_boundary": "front_rear",  # hexes exactly on an arc boundary line: "front_rear" or "sides"
    "torpedo_range1": "cannot_fire",  # anti-matter torpedo at range 1: "cannot_fire" or "as_range_2"
    "repairable": "until_repaired",  # critical markers that can be repaired: "until_repaired" (3, 4, 11) or "all_markers"
    "map_rows": 18,              # 12-row map plus the 6-row half map (RULES.md 'Map')
    "map_cols": 16,
    "max_ships": 8,              # ship slots per player
    "reward": "win",             # "win": +1/-1/0 at the end; "points": change of the ship-point balance each step;
                                 # "damage": "points" plus the share of hull boxes marked on ships still in the game
    "max_decisions": 0,          # truncate after this many decisions (0 = never)
    "ships_file": None,          # path of a ships.json to use instead of data/ships.json
    "terrain": "auto",           # terrain rules 17-19 and observation planes: "auto" (if the scenario has terrain), True, False
    "max_tiles": 24,             # terrain tiles a scenario may hold (with terrain on)
    "hexside_terrain": "both_sides",  # 17.5 a line along a hexside with asteroids/nebula on one side only: "both_sides" (counts none) or "either_side" (counts one)
    "retreat": "auto",           # retreat phase (Talon 11): "auto" (if the scenario says so), True, False
    "heavy_weapons": "auto",     # wave and fusion cannons (Talon 15) and the classes that carry them: "auto" (if the scenario fields one), True, False
    # --- Talon 13 missiles ---
    "missiles": "auto",          # missiles (Talon 13) and the classes that carry them: "auto" (if the scenario fields one), True, False
    "max_missiles": 16,          # missile counters in play at once per game (both sides), with missiles on (RULES.md 'Missiles')
    # --- Talon 14 bases ---
    "bases": "auto",             # bases (Talon 14) may be fielded: "auto" (if the scenario fields one), True, False
    # --- Talon 12 fighters ---
    "fighters": "auto",          # fighter squadrons (Talon 12) and the FTR_AP actions: "auto" (if the scenario fields one), True, False
    # --- Talon 16 docking ---
    "docking": "auto",           # docking and landing (Talon 16), the DOCK actions: "auto" (if the scenario fields a squadron), True, False
    # --- scenario victory conditions ---
    "victory": "auto",           # scenario victory conditions and their observation block: "auto" (if the scenario has them), True, False
    # --- the relational block of the observation (talon_v1; relations.py, RULES.md "Relations") ---
    "relations": True,           # the pair and action tables after the globals: True (talon_v1), False (talon_v0's observation)
    "fighter_carriers": "cv_and_bases",  # 12.2.1 "trasporti" that carry fighters and send them AP: "cv_and_bases" or "cv_tran_and_bases"
}
READY_SCENARIOS = {key: sc for key, sc in json.loads((DATA / "scenarios.json").read_text()).items()
                   if not key.startswith("_") and key != "example_of_play"}
TERRAIN_KINDS = ("planet", "asteroids", "nebula", "black_hole", "worm_hole")   # TK_PLANET .. TK_WORM_HOLE
_CHOICES = {
    "scenario": ("example", "fleet", *READY_SCENARIOS),
    "relations": (True, False),
    "terrain": ("auto", True, False),
    "retreat": ("auto", True, False),
    "heavy_weapons": ("auto", True, False),
    "missiles": ("auto", True, False),
    "bases": ("auto", True, False),
    "fighters": ("auto", True, False),
    "docking": ("auto", True, False),
    "victory": ("auto", True, False),
    "fighter_carriers": tuple(CARRIER_CLASSES),
    "hexside_terrain": ("both_sides", "either_side"),
    "initiative": ("roll", 0, 1),
    "edition": (1, 2),
    "arc_boundary": ("front_rear", "sides"),
    "torpedo_range1": ("cannot_fire", "as_range_2"),
    "repairable": ("until_repaired", "all_markers"),
    "reward": ("win", "points", "damage"),
}
REWARDS = {"win": R.REWARD_WIN, "points": R.REWARD_POINTS, "damage": R.REWARD_DAMAGE}

REASONS = reason_texts(R, {
    "OK": "legal",
    "R_GAME_OVER": "the game is over",
    "R_STAGE": "this kind of action belongs to another step of the turn (Talon 3.2)",
    "R_NO_SHIP": "no such ship of yours is in play",
    "R_NO_AP": "the ship gets no AP in this impulse and has no charged battery (Talon 4.1, 10.1.2)",
    "R_AP_SPENT": "the ship has already spent its AP this impulse (Talon 5.1)",
    "R_SLIP_PLACED": "the ship already has a side-slip marker (Talon 7.3.2)",
    "R_NO_TURN_MARKER": "the ship has no turn marker to bring closer (Talon 6.1)",
    "R_NO_GROUP": "the ship has no such weapon group (or it was destroyed)",
    "R_BAR_FULL": "every yellow box of that bar is already charged (Talon 8.1.2)",
    "R_NO_BATTERY": "the ship has no battery (Talon 10.1)",
    "R_BATTERY_CHARGED": "the battery is already charged (Talon 10.1.3)",
    "R_BATTERY_AP": "a battery cannot charge itself: it is charged with an AP from the impulse chart (Talon 10.1.3)",
    "R_REINF_PLACED": "that shield arc already has a reinforcement (Talon 6.2.2)",
    "R_REINF_LIMIT": "the ship has as many reinforcements as it may have (Talon 6.2.2)",
    "R_SHIELDS_DOWN": "the ship's shields are down from a critical hit (Talon 6.2.2, 8.5)",
    "R_ARC_DESTROYED": "1st edition: a destroyed shield arc cannot be reinforced (Talon 6.2.2, 1st ed.)",
    "R_NO_REINF": "that arc has no reinforcement to remove",
    "R_NO_MOVE": "that ship neither has to move nor can use an afterburner this impulse (Talon 7.1, 10.2)",
    "R_MOVED": "the ship has already moved this impulse (Talon 5.1)",
    "R_NO_AFTERBURNER": "the ship has no afterburner left (Talon 10.2.2)",
    "R_TURN_MARKER": "the ship's turn marker is still ahead of it (Talon 7.2.2)",
    "R_HELM_DOWN": "helm down: the ship must move straight (Talon 8.5, critical 4)",
    "R_NO_SLIP": "the ship has no side-slip marker (Talon 7.3.2)",
    "R_MUST_MOVE": "a ship that must move this impulse has not moved yet (Talon 7.1)",
    "R_FIRED": "the ship has already fired this turn (Talon 8.2.1)",
    "R_NOT_CHARGED": "the group's charge bar is not full (Talon 8.1.1)",
    "R_NO_TARGET": "no enemy ship is in arc and range of that group (Talon 8.2.2)",
    "R_NOT_ENEMY": "that is not an enemy ship in play (Talon 8.2.2)",
    "R_OUT_OF_ARC": "the target is not in the group's arc of fire (Talon 5.3.1)",
    "R_OUT_OF_RANGE": "the target is out of the weapon's range (Talon 8.3)",
    "R_NO_SUCH_SPEED": "the ship's power curve has no such speed (Talon 5.4.3)",
    "R_NEGATIVE_POWER": "that speed would make the ship's Power negative (Talon 5.4.4)",
    "R_POWER_LOSS": "Power Loss: the curve cannot be adjusted (Talon 9.3)",
    "R_NOT_PENDING": "that ship is not waiting to explode (Talon 8.6.3)",
    "R_UNPLAYABLE_WEAPON": "that weapon needs an advanced rule (13 missiles, 15 big guns) that talon_v0 does not implement",
    "R_NO_SUCH_ACTION": "no such action",
    "R_INIT_MARKED": "the ship already carries an initiative marker (Talon 4.2)",
    "R_BLOCKED": "a planet or black hole blocks the line of fire (Talon 8.2.3, 17.2.2, 18.1)",
    "R_IN_NEBULA": "the ship is in a nebula: its shields count as down and cannot be reinforced (Talon 17.4.1)",
    "R_NO_FTL": "the ship's FTL drive is not active: it winds up in the round numbered as its hull boxes, "
                "and an FTL offline critical stops it (Talon 11.1.3, 8.5)",
    "R_FTL_TERRAIN": "a ship cannot retreat from a nebula or asteroid hex (Talon 11.1.4)",
    "R_NO_PULL": "no such hex to be pulled into (Talon 18.2)",
    "R_NO_MISSILE": "no such missile in play (yours to move or retarget, the enemy's to shoot at) (Talon 13)",
    "R_MISSILE_MOVED": "the missile has already moved this impulse (Talon 13.4)",
    "R_MISSILE_COURSE": "a missile moves into the hex nearest its target (either, if two are as near); without a target it goes "
                        "straight (Talon 13.3, 13.4)",
    "R_NO_LAUNCHER": "the ship has no working missile launcher (Talon 13.7)",
    "R_SAME_TARGET": "the missile already tracks that ship (Talon 13.7)",
    "R_MISSILE_AT_MISSILE": "missiles cannot target missiles, nor do wave and fusion cannons (Talon 13.2, RULES.md)",
    "R_NO_MISSILE_SLOT": "every missile counter of the game is in play (option max_missiles, RULES.md 'Missiles')",
    "R_NO_WEAPON_LEFT": "the group has no weapon left to fire (Talon 8.3)",
    "R_BASE_FIXED": "a base does not move: it only turns, by itself, in the impulses of its speed (Talon 14)",
    "R_NOT_CARRIER": "only a carrier or a base can send AP to fighters (Talon 12.2.1)",
    "R_NOT_SQUADRON": "that is not a fighter squadron of yours in play (Talon 12.2.2)",
    "R_SQUADRON_POWERED": "that squadron has already received an AP this impulse (Talon 12.2.3)",
    "R_FIGHTER_FAR": "that squadron is more than 6 hexes from the carrier or base (Talon 12.2.3)",
    "R_FIGHTER_TERRAIN": "asteroids or a nebula in that squadron's hex, the carrier's or on the line between them block the AP "
                         "(Talon 12.2.3, 17.5)",
    "R_NO_DOCK": "that move enters no hex to dock or land in: a friendly carrier or base (fighters; other ships only "
                 "if the scenario allows docking), or a planet if the scenario allows landing (Talon 16.1-16.3)",
    "R_DOCK_SPEED": "a carrier docks or lands only at speed 1 (Talon 16.2)",
    "R_LAUNCH_HEX": "a missile is placed in a hex next to the firer, in the launching group's arc, on the map and not a planet, "
                    "black hole or worm hole (Talon 13.2)",
})

PLANE_NAMES = tuple([f"own ships facing {d}" for d in DIRECTION_NAMES]
                    + [f"enemy ships facing {d}" for d in DIRECTION_NAMES]
                    + ["own ship slot + 1", "enemy ship slot + 1",
                       "active ship (1 own, 2 enemy; pulled by a black hole: 3, 4 the hexes of PULL 0, 1)", "arc of the active ship + 1 (1 front, 2 right, 3 left, 4 rear)"])
SHIP_FEATURES = (
    "status (0 empty, 1 in play, 2 destroyed, 3 retreated, 4 to arrive, 5 docked aboard a friendly ship in play "
    "at that ship's row and col)", "class index + 1", "row", "col", "facing",
    "curve row", "power", "speed", "turn radius", "hexes before the next turn", "side-slip marker",
    "AP now (0 none, 1 chart, 2 battery)", "AP spent this impulse", "must move this impulse", "moved this impulse",
    "fired this turn",
    "shield front", "shield right", "shield left", "shield rear",
    "reinforcement front (impulse letter + 1)", "reinforcement right", "reinforcement left", "reinforcement rear",
    "hull boxes left", "power modifier of the next hull box", "next hull box is critical",
    *[f"group {g} {f}" for g in range(3) for f in ("red charged", "red boxes", "yellow charged", "yellow boxes",
                                                      "destroyed")],
    "has a battery", "battery charged", "afterburners left", "initiative marker (1 change, 2 defend)",
    "critical: shields down", "critical: helm down", "critical: turn radius +", "critical: power -1",
    "critical: FTL offline", "critical: power loss", "ship points / 4",
)
GLOBAL_FEATURES = ("round", "impulse (0-5 = A-F, 6 power phase)", "I hold the initiative", "it is my turn",
                   "stage", "active ship slot", "active weapon group", "weapons of the group left to fire",
                   "my seat", "ship points I destroyed / 8", "ship points the enemy destroyed / 8", "rounds",
                   "my change-initiative markers", "enemy change-initiative markers", "defend-initiative markers",
                   "the decision is mine")
STAGE_NAMES = {R.ST_AP: "spend AP", R.ST_MOVE: "movement", R.ST_FIRE_SHIP: "fire: choose ship",
               R.ST_FIRE_GROUP: "fire: choose group", R.ST_FIRE_TARGET: "fire: choose target",
               R.ST_POWER: "power phase: choose speed", R.ST_INIT: "initiative", R.ST_COLLIDE: "collision order",
               R.ST_EXPLODE: "explosion order", R.ST_PULL: "black hole: choose the hex",
               R.ST_RETREAT: "retreat phase", R.ST_ROUND_END: "end of the round", R.ST_OVER: "game over",
               R.ST_PUSH: "wave cannon: choose the hex", R.ST_TURN_END: "end of the turn",
               R.ST_RETARGET: "missile: choose its new target",
               R.ST_LAUNCH: "missile: choose its launch hex"}
USE_NAMES = ("side-slip marker", "power through a turn", "charge yellow box of group 0",
             "charge yellow box of group 1", "charge yellow box of group 2", "charge battery",
             "reinforce front shield", "reinforce right shield", "reinforce left shield", "reinforce rear shield",
             "change initiative", "defend initiative")
MOVE_NAMES = ("straight", "turn left", "turn right", "side slip left", "side slip right")
FTR_USE_NAMES = ("charge a yellow box of its weapon group", "power through a turn", "side-slip marker")  # Talon 12.2.2

VICTORY_FEATURES = ("whose (1 mine, 2 the enemy's, 0 no condition)", "kind (1 destroy, 2 escape, 3 points, 4 hold)",
                    "progress (ships, or ship points / 8)", "needed (ships, or ship points / 8)")
VICTORY_SHIP_FEATURE = "bitmask of the victory conditions naming the ship"
assert len(SHIP_FEATURES) == R.N_SF and len(GLOBAL_FEATURES) == R.N_GLOBAL and len(PLANE_NAMES) == R.N_PLANES
WAVE_PLANE_NAME = "wave cannon damage due at the end of the turn on the ships in this hex (15.1.3)"
# the relational block (option relations, relations.py; RULES.md "Relations"), expected damage in half points
PAIR_FEATURES = ("both in play", "range", "arc of mine it is in + 1", "arc of its I am in + 1 (the shield my fire hits)",
                 "its shield facing me (boxes + 1 if reinforced)", "my shield facing it", "x2 damage I may deal it now",
                 "x2 of that beyond its shield", "bit per group of mine that may fire at it now",
                 "x2 damage my live groups could deal it, charged or not", "x2 damage it may deal me now",
                 "x2 damage its live groups could deal me, charged or not", "line of fire blocked",
                 "its offset ahead of my bow (axial, turned to my facing)", "its offset abeam", "its facing minus mine (mod 6)")
ACTION_FEATURES = ("row describes the action", "x2 damage it leads to", "x2 of that beyond the shield",
                   "x2 enemy damage beyond my shields (move destination; threat on a shield to reinforce)",
                   "range to the nearest enemy after a move, or to the target",
                   "nearest enemy in my front arc after a move; a target's hull boxes left",
                   "a move's hazard: 1 off the map, 2 a friendly ship's hex, 3 + tile kind",
                   "a move's change of range to the nearest enemy; a target's points / 4; a charge's boxes missing")
TERRAIN_PLANE_NAMES = tuple(f"terrain: {kind.replace('_', ' ')}" for kind in TERRAIN_KINDS)


# --- Talon 13 missiles ---
MISSILE_PLANE_NAMES = ("own intact missiles (count)", "own damaged missiles (count)", "enemy intact missiles (count)",
                       "enemy damaged missiles (count)", "own missile slot + 1 (lowest in the hex)",
                       "enemy missile slot + 1 (lowest in the hex)", "that own missile's facing + 1",
                       "that enemy missile's facing + 1", "own missiles still to move this impulse (count)",
                       "own missiles tracking the ship in this hex (count)",
                       "enemy missiles tracking the ship in this hex (count)", "missile being retargeted, or the ship a missile is being launched at")
assert len(MISSILE_PLANE_NAMES) == R.N_MISSILE_PLANES
MISSILE_CLASS_RULE = "13 missiles"


def plane_names(cfg) -> tuple[str, ...]:
    """Names of the observation's hex planes: PLANE_NAMES, then with terrain on the tile kinds',
    then with missiles on the missile planes."""
    return (PLANE_NAMES + (TERRAIN_PLANE_NAMES if cfg.k[R.K_TERRAIN] else ())
            + ((WAVE_PLANE_NAME,) if cfg.k[R.K_HEAVY] else ())
            + (MISSILE_PLANE_NAMES if cfg.k[R.K_MISSILES] else ()))


def parse_options(options: dict) -> dict:
    out = merged_options("Talon", DEFAULT_OPTIONS, _CHOICES, options)
    for key, lo, hi in (("rounds", 1, 100), ("budget", 1, 10000), ("map_rows", 8, 40), ("map_cols", 8, 40),
                        ("max_ships", 1, 16), ("max_tiles", 1, 200)):
        if not isinstance(out[key], int) or not lo <= out[key] <= hi:
            raise ValueError(f"option {key} must be an integer {lo}..{hi}, got {out[key]!r}")
    if not isinstance(out["max_decisions"], int) or out["max_decisions"] < 0:
        raise ValueError(f"option max_decisions must be a non-negative integer, got {out['max_decisions']!r}")
    if not isinstance(out["max_missiles"], int) or not 1 <= out["max_missiles"] <= 64:
        raise ValueError(f"option max_missiles must be an integer 1..64, got {out['max_missiles']!r}")
    if out["ships_file"] is not None and not Path(out["ships_file"]).is_file():
        raise ValueError(f"option ships_file: no such file {out['ships_file']!r}")
    return out


# -- data files -------------------------------------------------------------------
MAX_BOXES = 1000   # bound of a class's box counts and power: ship rows are int16 (state_spec)
def load_ships(path=None) -> list[dict]:
    data = json.loads(Path(path or DATA / "ships.json").read_text())
    classes = data["classes"]
    for c in classes:
        for key in ("key", "points", "explosion", "curves", "start_curve", "shields", "hull", "groups"):
            if key not in c:
                raise ValueError(f"ship class {c.get('key', '?')!r} lacks field {key!r}")
        if len(c["groups"]) > 3 or len(c["curves"]) > 6 or len(c["hull"]) > 12:
            raise ValueError(f"ship class {c['key']!r}: at most 3 weapon groups, 6 curves and 12 hull boxes")
        # a ship's state row holds its boxes and power in int16 columns (state_spec)
        boxes = [*c["shields"].values(), *(gr[key] for gr in c["groups"] for key in ("red", "yellow")),
                 *(v for curve in c["curves"] for v in curve if v is not None)]
        if any(not isinstance(v, int) or not -MAX_BOXES <= v <= MAX_BOXES for v in boxes):
            raise ValueError(f"ship class {c['key']!r}: shield boxes, charge boxes and power curves must be "
                             f"integers within +-{MAX_BOXES}")
    return classes


def load_tables() -> dict:
    return json.loads((DATA / "tables.json").read_text())


def arc_table(grid: HexGrid, boundary: str) -> np.ndarray:
    """arc_of[from, to, facing]: the arc of a ship at ``from`` facing ``facing`` that contains ``to``.

    Arcs by the angle from the bow (Talon 5.3, RULES.md 'Arcs'): front within 30
    degrees, rear within 30 degrees of the stern, left and right the 120-degree
    sides.  Hexes exactly on a boundary line go to the front/rear arcs or to the
    sides (option arc_boundary)."""
    n = grid.n_cells
    xy = np.array([grid.center(c) for c in range(n)])
    dx = xy[None, :, 0] - xy[:, None, 0]
    dy = -(xy[None, :, 1] - xy[:, None, 1])          # y up
    ang = np.degrees(np.arctan2(dy, dx))
    out = np.zeros((n, n, 6), dtype=np.int8)
    eps = 1e-6
    for f in range(6):
        rel = (ang - 60 * f + 180) % 360 - 180           # (-180, 180]
        a = np.abs(rel)
        side = np.where(rel > 0, R.ARC_LEFT, R.ARC_RIGHT)
        if boundary == "front_rear":
            arc = np.where(a <= 30 + eps, R.ARC_FRONT, np.where(a >= 150 - eps, R.ARC_REAR, side))
        else:
            arc = np.where(a < 30 - eps, R.ARC_FRONT, np.where(a > 150 + eps, R.ARC_REAR, side))
        out[:, :, f] = arc
    idx = np.arange(n)
    out[idx, idx, :] = -1
    return out


def weapon_tables(tables: dict, torpedo_range1: str):
    """wdmg[w, range, die]: damage of one weapon (0 = miss); wmin/wmax: ranges it may fire at (Talon 8.3)."""
    nw = len(WEAPON_KEYS)
    wdmg = np.zeros((nw, 5, 7), dtype=np.int32)
    wmin = np.ones(nw, dtype=np.int32)
    wmax = np.zeros(nw, dtype=np.int32)
    for i, key in enumerate(WEAPON_KEYS):
        w = tables["weapons"][key]
        wmax[i] = w["max_range"]
        if w["kind"] == "to_hit":
            ranges = sorted(int(r) for r in w["hit_from"])
            wmin[i] = ranges[0]
            for r in ranges:
                for die in range(w["hit_from"][str(r)], 7):
                    wdmg[i, r, die] = w["damage"]
        elif w["kind"] == "table":
            for r, row in w["damage_by_die"].items():
                wdmg[i, int(r), 1:] = row
    if torpedo_range1 == "as_range_2":
        t = WEAPON_KEYS.index("torpedo")
        wdmg[t, 1] = wdmg[t, 2]
        wmin[t] = 1
    wplay = np.array([k in BASIC_WEAPONS for k in WEAPON_KEYS], dtype=np.int32)
    return wdmg, wmin, wmax, wplay


def class_index(cfg, key: str) -> int:
    try:
        return cfg.class_keys.index(key)
    except ValueError:
        raise ValueError(f"unknown ship class {key!r}; known: {', '.join(cfg.class_keys)}") from None


def _fields_heavy(ready, classes) -> bool:
    """Option heavy_weapons="auto": on when the ready scenario fields a class carrying a wave or
    fusion cannon (Talon 15), so that the basic game's actions stay as they were."""
    if not ready:
        return False
    heavy = {c["key"] for c in classes if any(gr["weapon"] in HEAVY_WEAPONS for gr in c["groups"])}
    return any(ship.get("class") in heavy for side in ready.get("players", []) if isinstance(side, dict)
               for ship in side.get("ships", []) if isinstance(ship, dict))


# --- Talon 13 missiles ---
def _carries_missiles(c) -> bool:
    return any(gr["weapon"] == "missile" for gr in c["groups"])


def _fields_missiles(ready, classes) -> bool:
    """Option missiles="auto": on when the ready scenario fields a class with a missile group
    (Talon 13), so that the basic game's actions and observation stay as they were."""
    if not ready:
        return False
    carriers = {c["key"] for c in classes if _carries_missiles(c)}
    return any(ship.get("class") in carriers for side in ready.get("players", []) if isinstance(side, dict)
               for ship in side.get("ships", []) if isinstance(ship, dict))


def _needs_missiles(c, missiles_on) -> bool:
    """A class with a missile group waits for option missiles (Talon 13)."""
    return _carries_missiles(c) and not missiles_on
# --- Talon 14 bases ---
def is_base_class(c) -> bool:
    return c.get("class") == "Base"


def _fields_class(ready, classes, pick) -> bool:
    """Does the ready scenario field a class for which ``pick(class)`` holds (options "auto")?"""
    if not ready:
        return False
    keys = {c["key"] for c in classes if pick(c)}
    return any(ship.get("class") in keys for side in ready.get("players", []) if isinstance(side, dict)
               for ship in side.get("ships", []) if isinstance(ship, dict))


def is_fighter_class(c) -> bool:
    return c.get("class") == "FTR"


def _playable(c, enabled: set, bases_on: bool, fighters_on: bool, missiles_on: bool) -> bool:
    """A class plays when every advanced rule it needs is on (its 'advanced' tags, 14 for a base,
    12 for a fighter squadron, 13 for a missile carrier)."""
    return (set(c.get("advanced", [])) <= enabled and (bases_on or not is_base_class(c))
            and (fighters_on or not is_fighter_class(c)) and not _needs_missiles(c, missiles_on))


def unplayable_because(cfg, c) -> list:
    """The options a class of an unplayable kind waits for (the error of a scenario that fields it)."""
    k, adv = cfg.k, set(c.get("advanced", []))
    if not adv <= HEAVY_RULES:
        return []                                    # a rule talon_v0 does not implement
    return [text for text, missing in (
        ("fighters=True (Talon 12 fighters)", is_fighter_class(c) and not k[R.K_FIGHTERS]),
        ("missiles=True (Talon 13 missiles)", _needs_missiles(c, k[R.K_MISSILES])),
        ("bases=True (Talon 14 bases)", is_base_class(c) and not k[R.K_BASES]),
        ("heavy_weapons=True (Talon 15)", bool(adv & HEAVY_RULES) and not k[R.K_HEAVY])) if missing]


def build_config(opts: dict):
    rows, cols, S = opts["map_rows"], opts["map_cols"], opts["max_ships"]
    grid = HexGrid(rows, cols)
    classes = load_ships(opts["ships_file"])
    tables = load_tables()
    nc = len(classes)
    cls = np.zeros((nc, R.N_CL), dtype=np.int32)
    curve = np.zeros((nc, 6, 3), dtype=np.int32)
    hull = np.zeros((nc, 12, 2), dtype=np.int32)
    grp = np.zeros((nc, 3, R.N_GR), dtype=np.int32)
    for i, c in enumerate(classes):
        cls[i, R.CL_POINTS] = c["points"]
        cls[i, R.CL_EXPLOSION] = c["explosion"]
        cls[i, R.CL_N_CURVES] = len(c["curves"])
        cls[i, R.CL_START] = c["start_curve"]
        cls[i, R.CL_N_HULL] = len(c["hull"])
        cls[i, R.CL_N_GROUPS] = len(c["groups"])
        cls[i, R.CL_BATTERY] = c.get("battery", 0)
        cls[i, R.CL_AFTERBURNERS] = c.get("afterburners", 0)
        for a, name in enumerate(ARC_NAMES):
            cls[i, R.CL_SHIELD + a] = c["shields"][name]
        cls[i, R.CL_RACE] = 0 if c.get("race") == "terran" else 1
        cls[i, R.CL_N_NAMES] = len(c.get("counters", []))
        # 11.1.4: bases have no FTL drive, fighters neither (they retreat by docking, 16.3)
        cls[i, R.CL_NO_FTL] = 1 if (any(a.startswith(("14", "12")) for a in c.get("advanced", []))
                                    or c.get("class") in ("Base", "FTR")) else 0
        cls[i, R.CL_BASE] = is_base_class(c)              # Talon 14
        cls[i, R.CL_FIGHTER] = is_fighter_class(c)        # Talon 12
        cls[i, R.CL_CARRIER] = c.get("class") in CARRIER_CLASSES[opts["fighter_carriers"]]
        for j, (pw, sp, tr) in enumerate(c["curves"]):
            curve[i, j] = (pw, sp, 0 if tr is None else tr)
        for j, box in enumerate(c["hull"]):
            hull[i, j] = (box["power"], 1 if box["critical"] else 0)
        if is_fighter_class(c):
            # Talon 12.1.1-12.1.2: three fighters, each with its single hull box (reconstructed: [JMT]
            # gives the counter 2 boxes; RULES.md 'Fighters'); no Power modifier, no critical
            cls[i, R.CL_N_HULL] = FIGHTERS_PER_SQUADRON
            hull[i, :FIGHTERS_PER_SQUADRON] = 0
        for j, gr in enumerate(c["groups"]):
            grp[i, j, R.GR_WEAPON] = WEAPON_KEYS.index(gr["weapon"])
            grp[i, j, R.GR_COUNT] = gr["count"]
            grp[i, j, R.GR_ARCS] = sum(1 << ARC_NAMES.index(a) for a in gr["arcs"])
            grp[i, j, R.GR_RED] = gr["red"]
            grp[i, j, R.GR_YELLOW] = gr["yellow"]
    chart = np.zeros((6, 7), dtype=np.int32)
    for i, letter in enumerate(IMPULSE_LETTERS):
        for v in tables["impulse_chart"][letter]:
            chart[i, v] = 1
    crit = np.zeros(13, dtype=np.int32)
    for roll in range(2, 13):
        crit[roll] = CRITICAL_KEYS[tables["critical_table"][str(roll)]]
    wdmg, wmin, wmax, wplay = weapon_tables(tables, opts["torpedo_range1"])
    repairable = (1 << R.CR_SHIELDS) | (1 << R.CR_HELM) | (1 << R.CR_PLOSS)
    if opts["repairable"] == "all_markers":
        repairable |= (1 << R.CR_TURN) | (1 << R.CR_POWER) | (1 << R.CR_HULL_FTL)
    keys = [c["key"] for c in classes]

    # built-in scenarios
    tmpl = np.full((2, S, R.N_TP), -1, dtype=np.int32)
    ready = None
    if opts["scenario"] == "example":
        # Talon Tuesday #2 example of play: Patton, Napoleon, Guderian against Service,
        # Sacrifice, Justice.  The article gives no positions: lines facing each other.
        ready = json.loads((DATA / "scenarios.json").read_text())["example_of_play"]
    elif opts["scenario"] in READY_SCENARIOS:
        ready = READY_SCENARIOS[opts["scenario"]]
    terrain_on = opts["terrain"] if opts["terrain"] != "auto" else bool(ready and ready.get("terrain"))
    retreat_on = opts["retreat"] if opts["retreat"] != "auto" else bool(ready and ready.get("retreat"))
    heavy_on = opts["heavy_weapons"] if opts["heavy_weapons"] != "auto" else _fields_heavy(ready, classes)
    # --- Talon 13 missiles ---
    missiles_on = opts["missiles"] if opts["missiles"] != "auto" else _fields_missiles(ready, classes)
    n_missiles = opts["max_missiles"] if missiles_on else 1
    if missiles_on:
        wm = WEAPON_KEYS.index("missile")
        wplay[wm] = 1
        wdmg[wm, 1:wmax[wm] + 1, 1:] = tables["weapons"]["missile"]["damage"]   # its damage, for the bot's estimates only
    bases_on = opts["bases"] if opts["bases"] != "auto" else _fields_class(ready, classes, is_base_class)
    fighters_on = opts["fighters"] if opts["fighters"] != "auto" else _fields_class(ready, classes, is_fighter_class)
    docking_on = (opts["docking"] if opts["docking"] != "auto"
                  else fighters_on or bool(ready and (ready.get("docking") or ready.get("landing"))))
    victory_on = opts["victory"] if opts["victory"] != "auto" else bool(ready and ready.get("victory"))
    if ready is not None and ready.get("victory") and not victory_on:
        raise ValueError(f"scenario {opts['scenario']!r} has victory conditions: option victory must not be False")
    enabled = HEAVY_RULES if heavy_on else set()
    # the classes whose advanced rules are all on are playable (15: their cannons fire)
    for i, c in enumerate(classes):
        cls[i, R.CL_PLAYABLE] = _playable(c, enabled, bases_on, fighters_on, missiles_on)
    if heavy_on:
        for key in HEAVY_WEAPONS:
            wplay[WEAPON_KEYS.index(key)] = 1
    T = opts["max_tiles"] if terrain_on else 1
    tmpl_tr = np.zeros((T, R.N_TR), dtype=np.int32)
    if ready is not None:
        if ready.get("terrain") and not terrain_on:
            raise ValueError(f"scenario {opts['scenario']!r} has terrain: option terrain must not be False")
        for i, tile in enumerate(ready.get("terrain", [])):
            tmpl_tr[i] = (TERRAIN_KINDS.index(tile["kind"]) + 1, grid.cell(*tile["hex"]))
        for p, side in enumerate(ready["players"]):
            for k, ship in enumerate(side["ships"]):
                ci = keys.index(ship["class"])
                tmpl[p, k] = (ci, classes[ci]["counters"].index(ship["name"]),
                              grid.cell(*ship["hex"]), DIRECTION_NAMES.index(ship["facing"]), ship.get("arrives", 0))
    fleet_cls = np.full((2, nc), -1, dtype=np.int32)
    for p, race in enumerate(("terran", "talon")):
        # bases are placed first, as planets (14): never drawn into a fleet's line
        # fighters enter only carried (12.1.1): not drawn either
        ok = [i for i, c in enumerate(classes) if c.get("race") == race and not is_base_class(c)
              and not is_fighter_class(c)
              and (not c.get("advanced") or (heavy_on and set(c["advanced"]) <= HEAVY_RULES))
              and not _needs_missiles(c, missiles_on)]
        fleet_cls[p, :len(ok)] = ok
    # fleet formation: a line down the map's west (player 0) and east (player 1) edge
    # (every other row from the middle out, then the rows between, then a second column)
    order = sorted(range(rows), key=lambda r: (abs(r - rows // 2), r))
    lines = [r for r in order if r % 2 == 0] + [r for r in order if r % 2 == 1]
    spots = [(r, c) for c in (2, 1, 3, 0) for r in lines][:S]
    fleet_cells = np.array([[grid.cell(r, c) for r, c in spots], [grid.cell(r, cols - 1 - c) for r, c in spots]],
                           dtype=np.int32)
    fleet_facing = np.array([0, 3], dtype=np.int32)

    n_ap = S * R.N_USES
    layout = {}
    off = 0
    # PULL (18.2) and RETREAT (11) exist only with terrain / the retreat phase on, so that
    # the basic game's actions (and the checkpoints trained on them) stay as they were
    for name, size in (("AP", n_ap), ("UNREINF", S * 4), ("FTR_AP", S * S * R.N_FTR_USES if fighters_on else 0),
                       ("MOVE", S * R.N_MOVES), ("DOCK", S * R.N_MOVES if docking_on else 0), ("FIRE_SHIP", S),
                       ("GROUP", 3), ("TARGET", S), ("SPEED", 3), ("INIT", 2), ("COLLIDE", 2),
                       ("EXPLODE", S), ("PULL", 2 if terrain_on or heavy_on else 0), ("RETREAT", S if retreat_on else 0),
                       # --- Talon 13 missiles: only with option missiles ---
                       ("MMOVE", n_missiles * R.N_MISSILE_MOVES if missiles_on else 0),
                       ("MTARGET", n_missiles if missiles_on else 0), ("RETARGET", S * n_missiles if missiles_on else 0),
                       ("LAUNCH", 6 if missiles_on else 0),        # Talon 13.2 the launch hex
                       ("DONE", 1)):
        layout[name] = off
        off += size
    k = np.zeros(R.N_K, dtype=np.int32)
    k[R.K_ROWS], k[R.K_COLS], k[R.K_SHIPS], k[R.K_N_ACTIONS] = rows, cols, S, off
    for name, v in layout.items():
        k[getattr(R, "K_A_" + name)] = v
    k[R.K_EDITION] = opts["edition"]
    k[R.K_ROUNDS] = opts["rounds"]
    k[R.K_REPAIRABLE] = repairable
    k[R.K_REWARD] = REWARDS[opts["reward"]]
    k[R.K_MAX_DECISIONS] = opts["max_decisions"]
    k[R.K_SCENARIO] = opts["scenario"] == "fleet"
    k[R.K_BUDGET] = opts["budget"]
    k[R.K_N_CLASSES] = nc
    k[R.K_OBS_PLANES] = R.N_PLANES + (R.N_TERRAIN_PLANES if terrain_on else 0)
    k[R.K_P_WAVE] = k[R.K_OBS_PLANES]             # Talon 15.1.3 the damage a wave cannon left due
    k[R.K_OBS_PLANES] += 1 if heavy_on else 0
    k[R.K_TERRAIN] = terrain_on
    k[R.K_RETREAT] = retreat_on
    k[R.K_HEAVY] = heavy_on
    k[R.K_BASES] = bases_on
    k[R.K_FIGHTERS] = fighters_on
    k[R.K_DOCKING] = docking_on
    k[R.K_HEXSIDE] = opts["hexside_terrain"] == "either_side"
    # --- Talon 13 missiles ---
    k[R.K_MISSILES] = missiles_on
    k[R.K_P_MISSILE] = k[R.K_OBS_PLANES]
    k[R.K_OBS_PLANES] += R.N_MISSILE_PLANES if missiles_on else 0
    k[R.K_OBS_SHIP] = R.N_SF
    # --- scenario victory conditions: the victory block comes before the globals ---
    k[R.K_VICTORY] = victory_on
    k[R.K_RELATIONS] = bool(opts["relations"])
    k[R.K_OBS_GLOBAL] = R.N_GLOBAL + (R.N_VC * 4 + 2 * S if victory_on else 0)
    if ready is not None and ready.get("victory"):
        k[R.K_VC:R.K_VC + R.N_VC * R.N_VCF + 1] = parse_victory(
            ready["victory"], [[sh["name"] for sh in side["ships"]] for side in ready["players"]], S)
    k[R.K_FIRST_INIT] = -1 if opts["initiative"] == "roll" else opts["initiative"]
    return Tables(k=k, dist=grid.distance.astype(np.int32), arc_of=arc_table(grid, opts["arc_boundary"]),
                  cls=cls, curve=curve, hull=hull, grp=grp, wdmg=wdmg, wmin=wmin, wmax=wmax, wplay=wplay,
                  chart=chart, crit=crit, tmpl=tmpl, tmpl_tr=tmpl_tr, fleet_cls=fleet_cls, fleet_cells=fleet_cells,
                  fleet_facing=fleet_facing, grid=grid, classes=classes, class_keys=keys, options=opts,
                  n_missiles=n_missiles)


class Tables(types.SimpleNamespace):
    """The config as plain numpy arrays for Python code; ``.struct`` is what kernels get."""

    @property
    def struct(self):
        if "_struct" not in self.__dict__:
            self.__dict__["_struct"] = TalonConfig(*(getattr(self, f) for f in CONFIG_FIELDS))
        return self.__dict__["_struct"]


@structref.register
class TalonConfigType(WargymStruct):
    pass


class TalonConfig(structref.StructRefProxy):
    """Static tables shared by every game of a batch."""


CONFIG_FIELDS = ("k", "dist", "arc_of", "cls", "curve", "hull", "grp", "wdmg", "wmin", "wmax", "wplay", "chart",
                 "crit", "tmpl", "tmpl_tr", "fleet_cls", "fleet_cells", "fleet_facing")
structref.define_proxy(TalonConfig, TalonConfigType, list(CONFIG_FIELDS))


@structref.register
class TalonStateType(WargymStruct):
    pass


class TalonState(structref.StructRefProxy):
    """Kernel-side view of a BatchState's arrays."""


STATE_FIELDS = ("rng", "policy_rng", "dice_script", "dice", "g", "sh", "tr", "ms")
structref.define_proxy(TalonState, TalonStateType, list(STATE_FIELDS))


def state_spec(cfg) -> StateSpec:
    S = int(cfg.k[R.K_SHIPS])
    fields = (
        ("rng", (), "uint64"), ("policy_rng", (), "uint64"),
        ("dice_script", (DICE_SCRIPT_LEN,), "int8"), ("dice", (2,), "int16"),
        ("g", (R.N_G,), "int32"),               # per-game scalars, columns G_* in layout.py
        # int16: every ship column is a small count, index or impulse serial (at most 100
        # rounds; class boxes and power are bounded by load_ships); at 4096 games a step waits
        # on the state's bytes, and int32 rows made it about 20 % slower
        ("sh", (2, S, R.N_SH), "int16"),        # per ship, columns SH_*
        # terrain tiles (Talon 17-19), columns TR_*; one slot when terrain is off
        ("tr", (int(cfg.tmpl_tr.shape[0]), R.N_TR), "int16"),
        # --- Talon 13 missiles: the pool of missile counters, columns MS_*; one slot when missiles are off
        ("ms", (int(cfg.n_missiles), R.N_MS), "int16"),
    )
    return StateSpec(NAME, fields, TalonState)


def num_actions(cfg) -> int:
    return int(cfg.k[R.K_N_ACTIONS])


def obs_size(cfg) -> int:
    return (int(cfg.k[R.K_OBS_PLANES]) * int(cfg.k[R.K_ROWS] * cfg.k[R.K_COLS]) + 2 * int(cfg.k[R.K_SHIPS]) * R.N_SF
            + int(cfg.k[R.K_OBS_GLOBAL]) + relations_size(cfg))


def relations_size(cfg) -> int:
    """The relational block (option relations): the pair table, then one row per action."""
    if not cfg.k[R.K_RELATIONS]:
        return 0
    S = int(cfg.k[R.K_SHIPS])
    return S * S * R.N_PF + int(cfg.k[R.K_N_ACTIONS]) * R.N_AF


def obs_shape(cfg) -> tuple[int, ...]:
    return (obs_size(cfg),)


def kernel_obs_shape(cfg) -> tuple[int, ...]:
    return (obs_size(cfg),)


def board_shape(cfg) -> tuple[int, int, int]:
    """Shape of the hex planes at the start of the flat observation (for CNN feature extractors)."""
    return (int(cfg.k[R.K_OBS_PLANES]), int(cfg.k[R.K_ROWS]), int(cfg.k[R.K_COLS]))


def split_obs(cfg, obs: np.ndarray) -> dict:
    """The flat observation as named parts: hex planes, ship table (own side first), with option victory
    the victory block (conditions, then the conditions naming each ship slot), globals, and with option
    relations the pair table (own ship, enemy ship, PAIR_FEATURES) and the action table (action,
    ACTION_FEATURES)."""
    C, rows, cols = board_shape(cfg)
    S = int(cfg.k[R.K_SHIPS])
    n = C * rows * cols
    t = n + 2 * S * R.N_SF
    parts = {"planes": obs[:n].reshape(C, rows, cols), "ships": obs[n:t].reshape(2, S, R.N_SF)}
    if cfg.k[R.K_VICTORY]:
        parts["victory"] = obs[t:t + R.N_VC * 4].reshape(R.N_VC, 4)
        parts["victory_ships"] = obs[t + R.N_VC * 4:t + R.N_VC * 4 + 2 * S].reshape(2, S)
        t += R.N_VC * 4 + 2 * S
    parts["globals"] = obs[t:t + R.N_GLOBAL]
    if cfg.k[R.K_RELATIONS]:
        t += R.N_GLOBAL
        parts["pairs"] = obs[t:t + S * S * R.N_PF].reshape(S, S, R.N_PF)
        t += S * S * R.N_PF
        parts["action_features"] = obs[t:t + num_actions(cfg) * R.N_AF].reshape(num_actions(cfg), R.N_AF)
    return parts


def current(state) -> np.ndarray:
    return state.g[:, R.G_DECIDER]


def done(state) -> np.ndarray:
    return state.g[:, R.G_DONE].astype(bool)


# -- actions in words ---------------------------------------------------------------
def action_name(cfg, a: int) -> str:
    k = cfg.k
    S = int(k[R.K_SHIPS])
    if not 0 <= a < int(k[R.K_N_ACTIONS]):
        return f"no such action {a}"

    def off(name):
        return int(k[getattr(R, "K_A_" + name)])
    if a < off("UNREINF"):
        i = a - off("AP")
        return f"ship {i // R.N_USES}: spend AP on {USE_NAMES[i % R.N_USES]}"
    if a < off("FTR_AP"):
        i = a - off("UNREINF")
        return f"ship {i // 4}: remove the {ARC_NAMES[i % 4]} shield reinforcement"
    if a < off("MOVE"):
        i = a - off("FTR_AP")
        k_, j, u = i // (R.N_FTR_USES * S), (i // R.N_FTR_USES) % S, i % R.N_FTR_USES
        return f"ship {k_}: send its AP to squadron {j}: {FTR_USE_NAMES[u]}"
    if a < off("DOCK"):
        i = a - off("MOVE")
        return f"ship {i // R.N_MOVES}: move {MOVE_NAMES[i % R.N_MOVES]}"
    if a < off("FIRE_SHIP"):
        i = a - off("DOCK")
        return f"ship {i // R.N_MOVES}: dock or land, moving {MOVE_NAMES[i % R.N_MOVES]}"
    if a < off("GROUP"):
        return f"fire with ship {a - off('FIRE_SHIP')}"
    if a < off("TARGET"):
        return f"fire weapon group {a - off('GROUP')}"
    if a < off("SPEED"):
        return f"fire at enemy ship {a - off('TARGET')}"
    if a < off("INIT"):
        return ("speed: one slower", "speed: keep", "speed: one faster")[a - off("SPEED")]
    if a < off("COLLIDE"):
        return ("initiative: take or keep it", "initiative: give it to the opponent")[a - off("INIT")]
    if a < off("EXPLODE"):
        return ("collision: the moving ship takes damage first", "collision: the other ship takes damage first")[
            a - off("COLLIDE")]
    if a < off("PULL"):
        return f"ship {a - off('EXPLODE')} explodes next"
    if a < off("RETREAT"):
        return ("pulled (black hole) or pushed (wave cannon) into the first hex of the hexside",
                "pulled (black hole) or pushed (wave cannon) into the second hex of the hexside")[a - off("PULL")]
    if a < off("MMOVE"):
        return f"ship {a - off('RETREAT')} jumps to FTL (retreats)"
    # --- Talon 13 missiles ---
    if a < off("MTARGET"):
        i = a - off("MMOVE")
        return f"missile {i // R.N_MISSILE_MOVES}: move {MOVE_NAMES[i % R.N_MISSILE_MOVES]}"
    if a < off("RETARGET"):
        return f"fire at enemy missile {a - off('MTARGET')}"
    if a < off("LAUNCH"):
        i = a - off("RETARGET")
        M = int(cfg.n_missiles)
        return f"ship {i // M}: spend AP to give missile {i % M} a new target"
    if a < off("DONE"):
        return f"place the missile being launched in the adjacent hex {DIRECTION_NAMES[a - off('LAUNCH')]}"
    assert S >= 0
    return "done / pass"


def action_index(cfg, family: str, *args) -> int:
    """The action number of e.g. ``("AP", ship, use)``, ``("MOVE", ship, move)``, ``("TARGET", enemy)``."""
    k = cfg.k
    base = int(k[getattr(R, "K_A_" + family)])
    if family == "AP":
        return base + args[0] * R.N_USES + args[1]
    if family == "UNREINF":
        return base + args[0] * 4 + args[1]
    if family == "FTR_AP":                              # (carrier, squadron, use 0 charge / 1 turn / 2 slip)
        return base + (args[0] * int(k[R.K_SHIPS]) + args[1]) * R.N_FTR_USES + args[2]
    if family in ("MOVE", "DOCK"):
        return base + args[0] * R.N_MOVES + args[1]
    if family == "MMOVE":                                 # --- Talon 13 missiles ---
        return base + args[0] * R.N_MISSILE_MOVES + args[1]
    if family == "RETARGET":
        return base + args[0] * int(cfg.n_missiles) + args[1]
    return base + (args[0] if args else 0)


# -- scenarios ------------------------------------------------------------------------
def _facing(v, where):
    if isinstance(v, int) and 0 <= v < 6:
        return v
    if isinstance(v, str) and v in DIRECTION_NAMES:
        return DIRECTION_NAMES.index(v)
    raise ValueError(f"{where}: facing must be one of {DIRECTION_NAMES} or 0..5, got {v!r}")


SHIP_KEYS = {"class", "name", "hex", "facing", "speed", "hull_hits", "shields", "charge", "battery",
             "afterburners", "turn_left", "slip", "reinforcements", "criticals", "arrives"}
BARRED_TILES = ("planet", "black_hole", "worm_hole")     # no ship may be placed on these (17.2.1, 18.1, 19)


def _terrain(cfg, tiles) -> dict[int, int]:
    """The scenario's terrain tiles as {cell: kind code}; each must be well formed (RULES.md 'Terrain')."""
    if not isinstance(tiles, list):
        raise ValueError("scenario 'terrain' must be a list of tiles, each {'kind': ..., 'hex': [row, col]}")
    if tiles and not cfg.k[R.K_TERRAIN]:
        raise ValueError("scenario 'terrain': terrain is off in this environment; make it with option terrain=True "
                         "(the observation then has the terrain planes)")
    T = int(cfg.tmpl_tr.shape[0])
    if len(tiles) > T:
        raise ValueError(f"scenario 'terrain': {len(tiles)} tiles, but option max_tiles is {T}")
    out = {}
    for i, tile in enumerate(tiles):
        where = f"terrain tile {i}"
        if not isinstance(tile, dict) or set(tile) - {"kind", "hex"}:
            raise ValueError(f"{where}: a tile is {{'kind': ..., 'hex': [row, col]}}, got {tile!r}")
        if tile.get("kind") not in TERRAIN_KINDS:
            raise ValueError(f"{where}: field 'kind' must be one of {TERRAIN_KINDS}, got {tile.get('kind')!r}")
        try:
            cell = cfg.grid.cell(*tile["hex"])
        except (KeyError, TypeError, ValueError, IndexError):
            raise ValueError(f"{where}: field 'hex' must be [row, col] on the map, got {tile.get('hex')!r}") from None
        if cell in out:
            raise ValueError(f"{where}: field 'hex' {tile['hex']} already holds a tile (one tile per hex)")
        out[cell] = TERRAIN_KINDS.index(tile["kind"]) + 1
    return out


def _check_ship_on_terrain(cfg, terrain, cell, ship, where):
    """Ships are not placed on planets, black holes or worm holes, nor nearer than 2 hexes
    to a black hole (18.1); a ship in a nebula carries no reinforcement (17.4.1)."""
    kind = terrain.get(cell)
    if kind is not None and TERRAIN_KINDS[kind - 1] in BARRED_TILES:
        raise ValueError(f"{where}: field 'hex' is on a {TERRAIN_KINDS[kind - 1].replace('_', ' ')} "
                         "(Talon 17.2.1, 18.1, 19)")
    for tc, tk in terrain.items():
        if TERRAIN_KINDS[tk - 1] == "black_hole" and cfg.dist[cell, tc] < 2:
            raise ValueError(f"{where}: field 'hex' is nearer than 2 hexes to a black hole (Talon 18.1)")
    if kind is not None and TERRAIN_KINDS[kind - 1] == "nebula" and ship.get("reinforcements"):
        raise ValueError(f"{where}: field 'reinforcements': a ship in a nebula has none (Talon 17.4.1)")
CRITICAL_MARKERS = {"shields_down": R.SH_C_SHIELDS, "helm_down": R.SH_C_HELM, "ftl_offline": R.SH_C_FTL,
                    "power_loss": R.SH_C_PLOSS}


def apply_scenario(cfg, state, b: int, sc: dict) -> None:
    """Write scenario ``sc`` into game ``b`` of ``state`` (a BatchState); see RULES.md 'Scenarios'.

    Raises ValueError naming the problem; the caller applies it to a copy first."""
    if not isinstance(sc, dict):
        raise ValueError("a Talon scenario is a dict (see RULES.md 'Scenarios')")
    unknown = set(sc) - {"players", "rounds", "initiative", "round", "impulse", "name", "terrain", "retreat",
                            "docking", "landing", "victory"}
    if unknown:
        raise ValueError(f"unknown scenario field(s) {sorted(unknown)}")
    players = sc.get("players")
    if not isinstance(players, list) or len(players) != 2:
        raise ValueError("scenario 'players' must be a list of two players, each {'ships': [...]}")
    S = int(cfg.k[R.K_SHIPS])
    grid = cfg.grid
    terrain = _terrain(cfg, sc.get("terrain", []))
    if sc.get("retreat", bool(cfg.k[R.K_RETREAT])) != bool(cfg.k[R.K_RETREAT]):
        raise ValueError(f"scenario 'retreat' is {sc['retreat']!r} but this environment was made with the retreat "
                         f"phase {'on' if cfg.k[R.K_RETREAT] else 'off'} (option retreat)")
    g = state.g[b]
    sh = state.sh[b]
    g[:] = 0
    sh[:] = 0
    sh[:, :, R.SH_CLASS] = -1
    state.tr[b] = 0
    state.ms[b] = 0                                       # --- Talon 13 missiles ---
    for i, (cell, kind) in enumerate(terrain.items()):
        state.tr[b, i] = (kind, cell)
    g[R.G_TILES] = len(terrain)
    state.dice[b] = 0
    s1 = cfg.struct
    view = state.view
    for p, side in enumerate(players):
        ships = side.get("ships") if isinstance(side, dict) else None
        if not isinstance(ships, list) or not ships:
            raise ValueError(f"player {p}: 'ships' must be a non-empty list")
        if len(ships) > S:
            raise ValueError(f"player {p}: {len(ships)} ships, but max_ships is {S}")
        cells = set()
        for k, ship in enumerate(ships):
            where = f"player {p} ship {k}"
            if not isinstance(ship, dict):
                raise ValueError(f"{where}: a ship is a dict")
            bad = set(ship) - SHIP_KEYS
            if bad:
                raise ValueError(f"{where}: unknown field(s) {sorted(bad)}")
            ci = class_index(cfg, ship.get("class"))
            c = cfg.classes[ci]
            if not cfg.cls[ci, R.CL_PLAYABLE]:
                missing = unplayable_because(cfg, c)
                if missing:
                    raise ValueError(f"{where}: class {c['key']} needs option(s) {' and '.join(missing)}: make the "
                                     "environment with them")
                raise ValueError(f"{where}: class {c['key']} needs advanced rule(s) {c['advanced']} that talon_v0 "
                                 "does not know (a ships file's 'advanced' tags: 15.1 wave cannon, 15.2 fusion cannon)")
            counters = c.get("counters", [])
            name = ship.get("name", counters[k % len(counters)] if counters else "")
            if counters and name not in counters:
                raise ValueError(f"{where}: {name!r} is not a {c['name']} counter ({', '.join(counters)})")
            try:
                cell = grid.cell(*ship["hex"])
            except (KeyError, TypeError):
                raise ValueError(f"{where}: 'hex' must be [row, col]") from None
            arrives = ship.get("arrives", 0)
            if not isinstance(arrives, int) or not 0 <= arrives <= 100:
                raise ValueError(f"{where}: field 'arrives' must be a round number (0: on the map at the start)")
            if cell in cells and not arrives:
                raise ValueError(f"{where}: ships of one side may not start stacked in one hex (Talon 7.4)")
            if not arrives:
                cells.add(cell)
            _check_ship_on_terrain(cfg, terrain, cell, ship, where)
            facing = _facing(ship.get("facing"), where)
            R.place_ship(view, s1, b, p, k, ci, counters.index(name) if counters else 0, cell, facing)
            _ship_extras(cfg, sh[p, k], ci, c, ship, where)
            if arrives:                                   # 3.2 comes in a supply phase
                sh[p, k, R.SH_STATUS] = R.SS_RESERVE
                sh[p, k, R.SH_ARRIVE] = arrives
            view_power = R.power_at_curve(state.sh, s1, b, p, k, sh[p, k, R.SH_CURVE])
            sh[p, k, R.SH_POWER] = view_power
        _check_carried(cfg, sh[p], p)
    rounds = sc.get("rounds", int(cfg.k[R.K_ROUNDS]))
    if not isinstance(rounds, int) or not 1 <= rounds <= 100:
        raise ValueError(f"scenario 'rounds' must be 1..100, got {rounds!r}")
    rnd = sc.get("round", 1)
    if not isinstance(rnd, int) or not 1 <= rnd <= rounds:
        raise ValueError(f"scenario 'round' must be 1..rounds, got {rnd!r}")
    imp = sc.get("impulse", "A")
    if imp not in IMPULSE_LETTERS:
        raise ValueError(f"scenario 'impulse' must be one of A-F, got {imp!r}")
    init = sc.get("initiative", 0)
    if init not in (0, 1):
        raise ValueError(f"scenario 'initiative' must be 0 or 1, got {init!r}")
    g[R.G_ROUND] = rnd
    for field, col in (("docking", R.G_DOCK_SHIPS), ("landing", R.G_LANDING)):     # Talon 16.1
        v = sc.get(field, False)
        if not isinstance(v, bool) or (v and not cfg.k[R.K_DOCKING]):
            raise ValueError(f"scenario {field!r} must be true or false, and true needs option docking=True (Talon 16.1)")
        g[col] = v
    g[R.G_ROUNDS] = rounds
    if "victory" in sc:
        if not cfg.k[R.K_VICTORY]:
            raise ValueError("scenario 'victory': victory conditions are off in this environment; make it with "
                             "option victory=True (the observation then has the victory block)")
        names = [[ship_name(cfg, int(sh[p, k, R.SH_CLASS]), int(sh[p, k, R.SH_NAME]))
                  for k in range(S) if sh[p, k, R.SH_CLASS] >= 0] for p in range(2)]
        g[R.G_VC:R.G_VC + R.N_VC * R.N_VCF + 1] = parse_victory(sc["victory"], names, S)
    g[R.G_IMPULSE] = IMPULSE_LETTERS.index(imp)
    g[R.G_INIT] = init
    R.start_game(view, s1, b)


# --- scenario victory conditions (victory.py) ---
VICTORY_KINDS = {"destroy": R.VK_DESTROY, "escape": R.VK_ESCAPE, "points": R.VK_POINTS, "hold": R.VK_HOLD}
OTHERWISE = {"points": 0, 0: 1, 1: 2, "draw": 3}


def parse_victory(v, names: list[list[str]], S: int) -> np.ndarray:
    """A scenario's ``victory`` field (RULES.md 'Victory conditions') as the N_VC x N_VCF condition
    fields and 'otherwise' of G_VC..G_VC_OTHERWISE.  ``names[p]`` are player p's ships by slot.
    Raises ValueError naming the problem."""
    if not isinstance(v, dict) or set(v) - {"conditions", "otherwise"}:
        raise ValueError("scenario 'victory' must be {'conditions': [...], 'otherwise': 'points' | 'draw' | 0 | 1}")
    conds = v.get("conditions", [])
    if not isinstance(conds, list) or not 1 <= len(conds) <= R.N_VC:
        raise ValueError(f"scenario 'victory': 'conditions' must list 1..{R.N_VC} conditions")
    otherwise = v.get("otherwise", "points")
    if isinstance(otherwise, bool) or otherwise not in OTHERWISE:
        raise ValueError(f"scenario 'victory': 'otherwise' must be 'points', 'draw', 0 or 1, got {otherwise!r}")
    out = np.zeros(R.N_VC * R.N_VCF + 1, dtype=np.int32)
    for i, c in enumerate(conds):
        where = f"scenario 'victory' condition {i}"
        if not isinstance(c, dict):
            raise ValueError(f"{where}: a condition is a dict {{'player': 0 | 1, 'kind': ..., ...}}")
        kind = c.get("kind")
        if kind not in VICTORY_KINDS:
            raise ValueError(f"{where}: field 'kind' must be one of {sorted(VICTORY_KINDS)}, got {kind!r}")
        allowed = {"player", "kind", "points"} if kind == "points" else {"player", "kind", "ships", "count"}
        if set(c) - allowed:
            raise ValueError(f"{where}: unknown field(s) {sorted(set(c) - allowed)} for kind {kind!r}")
        p = c.get("player")
        if isinstance(p, bool) or p not in (0, 1):
            raise ValueError(f"{where}: field 'player' must be 0 or 1, got {p!r}")
        row = out[i * R.N_VCF:(i + 1) * R.N_VCF]
        row[R.VC_KIND], row[R.VC_PLAYER] = VICTORY_KINDS[kind], p
        if kind == "points":
            pts = c.get("points")
            if isinstance(pts, bool) or not isinstance(pts, int) or not 1 <= pts <= 10000:
                raise ValueError(f"{where}: field 'points' must be the ship points to destroy, 1..10000, got {pts!r}")
            row[R.VC_COUNT] = pts
            continue
        side = 1 - p if kind == "destroy" else p
        whose = "enemy" if kind == "destroy" else "own"
        listed = c.get("ships", names[side])
        if not isinstance(listed, list) or not listed:
            raise ValueError(f"{where}: field 'ships' must be a non-empty list of the player's {whose} ships' names")
        mask = 0
        for name in listed:
            slots = [k for k, n in enumerate(names[side]) if n == name]
            if len(slots) != 1:
                raise ValueError(f"{where}: field 'ships': {name!r} must name exactly one of player {side}'s ships "
                                 f"({', '.join(names[side])})")
            if mask >> slots[0] & 1:
                raise ValueError(f"{where}: field 'ships' names {name!r} twice")
            mask |= 1 << slots[0]
        count = c.get("count", len(listed))
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= len(listed):
            raise ValueError(f"{where}: field 'count' must be 1..{len(listed)} (the ships it names), got {count!r}")
        row[R.VC_SHIPS], row[R.VC_COUNT] = mask, count
    out[R.N_VC * R.N_VCF] = OTHERWISE[otherwise]
    return out


# --- Talon 12 fighters ---
def _check_carried(cfg, side, p):
    """Talon 12.1.1 fighters enter the battle only carried by a carrier or a base, 12.2.1 at most 4
    squadrons each: a side's squadrons (launched at the setup, at their scenario hexes) need carriers."""
    classes = [int(c) for c in side[:, R.SH_CLASS] if c >= 0]
    squadrons = sum(int(cfg.cls[c, R.CL_FIGHTER]) for c in classes)
    carriers = sum(int(cfg.cls[c, R.CL_CARRIER]) for c in classes)
    if squadrons > SQUADRONS_PER_CARRIER * carriers:
        raise ValueError(f"player {p}: {squadrons} fighter squadron(s) but {carriers} carrier(s) or base(s): each "
                         f"carries at most {SQUADRONS_PER_CARRIER} (Talon 12.1.1, 12.2.1)")


def _ship_extras(cfg, row, ci, c, ship, where):
    """Optional per-ship state of a scenario (damage, charge, markers)."""
    if "speed" in ship:
        speeds = [cv[1] for cv in c["curves"]]
        if ship["speed"] not in speeds:
            raise ValueError(f"{where}: {c['name']} has no speed {ship['speed']!r} (curve speeds {speeds})")
        row[R.SH_CURVE] = speeds.index(ship["speed"])
    if "hull_hits" in ship:
        h = ship["hull_hits"]
        n_hull = int(cfg.cls[ci, R.CL_N_HULL])        # a squadron: one box per fighter (Talon 12.1.2)
        if not isinstance(h, int) or not 0 <= h < n_hull:
            raise ValueError(f"{where}: hull_hits must be 0..{n_hull - 1}")
        row[R.SH_HULL_HITS] = h
    if "shields" in ship:
        v = ship["shields"]
        if not isinstance(v, list) or len(v) != 4 or any(
                not isinstance(x, int) or not 0 <= x <= c["shields"][a] for x, a in zip(v, ARC_NAMES)):
            raise ValueError(f"{where}: shields must be [front, right, left, rear] within the class's boxes")
        row[R.SH_SHIELD:R.SH_SHIELD + 4] = v
    if "charge" in ship:
        v = ship["charge"]
        if not isinstance(v, list) or len(v) != len(c["groups"]):
            raise ValueError(f"{where}: charge must list [red, yellow] for each of the {len(c['groups'])} groups")
        for gi, (pair, gr) in enumerate(zip(v, c["groups"])):
            if (not isinstance(pair, list) or len(pair) != 2 or not 0 <= pair[0] <= gr["red"]
                    or not 0 <= pair[1] <= gr["yellow"]):
                raise ValueError(f"{where}: charge of group {gi} must be [red 0..{gr['red']}, yellow 0..{gr['yellow']}]")
            row[R.SH_RED + gi], row[R.SH_YEL + gi] = pair
    if "battery" in ship:
        if ship["battery"] and not c.get("battery"):
            raise ValueError(f"{where}: {c['name']} has no battery")
        row[R.SH_BATTERY] = 1 if ship["battery"] else 0
    if "afterburners" in ship:
        v = ship["afterburners"]
        if not isinstance(v, int) or not 0 <= v <= c.get("afterburners", 0):
            raise ValueError(f"{where}: afterburners must be 0..{c.get('afterburners', 0)}")
        row[R.SH_AB_LEFT] = v
    if "turn_left" in ship:
        v = ship["turn_left"]
        if not isinstance(v, int) or not 0 <= v <= 6:
            raise ValueError(f"{where}: turn_left must be 0..6")
        row[R.SH_TURN_LEFT] = v
    if "slip" in ship:
        row[R.SH_SLIP] = 1 if ship["slip"] else 0
    if "reinforcements" in ship:
        v = ship["reinforcements"]
        if not isinstance(v, dict) or any(a not in ARC_NAMES or x not in IMPULSE_LETTERS for a, x in v.items()):
            raise ValueError(f"{where}: reinforcements must map arcs to impulse letters, e.g. {{'front': 'A'}}")
        for a, x in v.items():
            row[R.SH_REINF + ARC_NAMES.index(a)] = IMPULSE_LETTERS.index(x) + 1
    if "criticals" in ship:
        v = ship["criticals"]
        known = set(CRITICAL_MARKERS) | {"turn_plus_1", "turn_plus_2", "power_minus_1"}
        if not isinstance(v, list) or any(x not in known for x in v):
            raise ValueError(f"{where}: criticals must be a list of {sorted(known)}")
        for x in v:
            if x in CRITICAL_MARKERS:
                row[CRITICAL_MARKERS[x]] = 1
            elif x == "power_minus_1":
                row[R.SH_C_POWER], row[R.SH_C_POWER_AT] = 1, 1
            else:
                row[R.SH_C_TURN], row[R.SH_C_TURN_AT] = (1 if x == "turn_plus_1" else 2), 1


# -- results and rendering ------------------------------------------------------------
def ship_name(cfg, c: int, name: int) -> str:
    counters = cfg.classes[c].get("counters", [])
    return counters[name] if 0 <= name < len(counters) else cfg.classes[c]["name"]


def scores(state, b: int) -> list[int]:
    """Ship points each player has destroyed (victory by points, RULES.md 'End of the game')."""
    return [int(state.g[b, R.G_SP0]), int(state.g[b, R.G_SP1])]


def scores_from_obs(cfg, obs) -> list[int]:
    """(own, enemy) ship points destroyed as an observation shows them (in units of 8 SP); the globals
    found by ``split_obs`` (talon_v1's relational block follows them)."""
    glob = split_obs(cfg, np.asarray(obs).reshape(-1))["globals"]
    return [int(glob[R.O_SP_MINE]), int(glob[R.O_SP_THEIRS])]


def final_info(core, b: int) -> dict:
    """The result (``core/results.py``): ``scores`` are the ship points each seat destroyed;
    ``victory_conditions_met`` (scenarios with victory conditions): 1 for each condition that decided it."""
    g = core.state.g[b]
    w = int(g[R.G_WINNER])
    own = {}
    if g[R.G_VC + R.VC_KIND] != R.VK_NONE:
        # one 0/1 flag per condition slot (a fixed length: clients turn infos into tensors)
        own["victory_conditions_met"] = [(int(g[R.G_VC_MET]) >> i) & 1 for i in range(R.N_VC)]
    return result_info(w if g[R.G_DONE] and w in (0, 1) else NO_WINNER,   # 2: a draw
                       [int(g[R.G_SP0]), int(g[R.G_SP1])], int(g[R.G_ROUND]), **own)


from . import bot  # noqa: F401,E402  (game.bot: compiled opponents used by the wrappers)
