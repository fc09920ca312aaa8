"""Planetoids as a wargym game definition: options, static tables, state layout,
scenarios and action names.  The rules themselves are in ``rules.py``.
"""
from __future__ import annotations

import json
import types
from pathlib import Path

import numpy as np

from ..core.batch import StateSpec
from ..core.contract import reason_texts
from ..core.hexgrid import DIRECTION_NAMES, HexGrid
from ..core.options import merged_options
from ..core.rng import DICE_SCRIPT_LEN
from ..core.results import NO_WINNER, result_info
from ..core.structs import WargymStruct
from numba.experimental import structref
from . import bot, rules  # noqa: F401  (game.bot: the compiled opponents, used by the wrappers)
from .rules import BASE, CRUISER, FIGHTER, TRANSPORT
from .rules import (C_BLOCKED, FX_HITS, FX_OWNER, G_DECIDER, G_DONE, G_TURN,
                    G_SETUP_COUNT, PC_DAMAGE, PC_FACING, PC_POS, PC_STATUS)
from .validate import validate_state  # noqa: F401  (a state from outside, checked before any kernel sees it)

NAME = "planetoids"
VERSION = 2         # planetoids_v2: the action table with what a step gains (option relations=2); v1 its first
                    # 8 values a row (relations=1), v0 no table (relations=0)
DATA = Path(__file__).parent / "data"
num_players = 2
kernels = rules

KIND_KEYS = ("base", "cruiser", "transport", "fighter", "fixed")
COLOURS = ("blue", "red", "yellow")
STATUS_KEYS = ("reserve", "map", "hyper", "destroyed")

DEFAULT_OPTIONS = {
    "map": "default",            # name of a file in data/ (without _map.json) or a map dict
    "reserve": {"cruiser": 4, "transport": 4, "fighter": 12},
    "base_footprint": "triangle",  # "triangle" (3 hexes) or "single"
    "ship_length": 2,            # hexes covered by a cruiser or transport: 2 (bow + stern) or 1
    "keep_away": "all",          # planetoids that bases/cruisers keep away from: "all" or "visible"
    "colour_table": "rows",      # "rows" (3 rows of 17 turns, each B,R,Y,... from blue) or "cycle" (B,R,Y... throughout)
    "base_space_shots": "one",   # a mobile base's shots into space per activation: "one", or "each_hex" (once at every empty hex)
    "turns": 51,
    "setup": "choose",           # "choose": players place their bases; "fixed": map's start hexes
    "reward": "win",             # "win": +1/-1/0 at the end; "score": change of score difference each step
    "max_decisions": 0,          # truncate after this many decisions (0 = never)
    "relations": 2,              # the action table after channel 46 (RULES.md §12.4): 2 (planetoids_v2), 1 or True
                                 # (planetoids_v1: 8 values a row), 0 or False (planetoids_v0: none)
}
_CHOICES = {
    "relations": (0, 1, 2),      # True and False are 1 and 0
    "base_footprint": ("triangle", "single"),
    "ship_length": (1, 2),
    "keep_away": ("all", "visible"),
    "colour_table": ("cycle", "rows"),
    "base_space_shots": ("one", "each_hex"),
    "setup": ("choose", "fixed"),
    "reward": ("win", "score"),
}

REASONS = reason_texts(rules, {
    "OK": "legal",
    "R_GAME_OVER": "the game is over",
    "R_WRONG_PHASE": "this kind of action is not available in the current phase",
    "R_NOT_YOURS": "that piece does not belong to the player to move",
    "R_PIECE_UNAVAILABLE": "that piece is not on the map or in hyperspace",
    "R_ALREADY_ACTIVATED": "that piece has already moved this turn",
    "R_UNDER_REPAIR": "that piece is under repair this turn and may neither move nor fire (seed 004 'Riparazione navi')",
    "R_NO_EXIT": "that ship cannot leave hyperspace anywhere: no clear 9-hex corridor (seed 004 'Iperspazio')",
    "R_NO_RESERVE": "no piece of that kind is left in reserve",
    "R_LAUNCH_LIMIT": "this turn's launches are used: 1 transport, or 1 cruiser, or 3 fighters (seed 004 'Fasi del gioco')",
    "R_PLACEMENT": "the ramp is not free for that ship",
    "R_MOVE_DONE": "the ship's movement is over for this turn",
    "R_MOVE_LIMIT": "the ship has used all its movement",
    "R_NOT_FORWARD": "cruisers and transports move straight ahead only (seed 004 'Astronavi')",
    "R_OFF_MAP": "that hex is off the map",
    "R_IMPASSABLE": "that hex is impassable (asteroid belt, planet, or a planetoid of this turn's colour)",
    "R_ENEMY_HEX": "an enemy piece occupies that hex",
    "R_BLOCKED_HEX": "that hex was blocked by a shot this turn (seed 004 'Combattimento')",
    "R_TOO_CLOSE": "mobile bases keep 3 hexes and cruisers 2 hexes from the planetoids (seed 004 'Astronavi')",
    "R_CANNOT_PIVOT": "only cruisers and transports pivot",
    "R_SAME_FACING": "the ship already has that facing",
    "R_NO_SHOTS": "the piece has no shot left this turn",
    "R_NOT_TARGETABLE": "that target is not on the map",
    "R_OUT_OF_RANGE": "the target is out of range or behind an obstacle",
    "R_ALREADY_SHOT": "a mobile base fires only once at each target (seed 004 'Astronavi')",
    "R_FIGHTER_FIXED_RANGE": "fighters hit fixed bases only at range 1 (seed 004 'Distruzione Basi Fisse')",
    "R_HEX_NOT_EMPTY": "a shot into space needs an empty hex",
    "R_NO_FIRE_HYPER": "no firing in the move that enters or leaves hyperspace (seed 004 'Iperspazio')",
    "R_DAMAGED": "only undamaged ships may do that (seed 004)",
    "R_CORRIDOR": "the 9-hex corridor ahead is not clear of enemies, obstacles and explosions (seed 004 'Iperspazio')",
    "R_NOT_TRANSPORT": "only transports colonise",
    "R_NO_PLANETOID": "there is no visible planetoid under the transport's bow",
    "R_COLONISED": "that planetoid already holds a fixed base",
    "R_NOT_BASE": "only mobile bases may do that",
    "R_HAS_MOVED": "the base has already moved this turn",
    "R_NOTHING_TO_REPAIR": "no damaged friendly ship that has not acted this turn is adjacent to the base",
    "R_NOT_NEAR_HOME": "bases start adjacent to their home planet (seed 004 'Fasi del gioco')",
    "R_FIRED": "a ship that fired this move cannot enter hyperspace (seed 004 'Iperspazio')",
    "R_BASE_NO_HYPER": "mobile bases cannot enter hyperspace (seed 004 'Iperspazio')",
    "R_COLONISED_THIS_MOVE": "a transport that colonised this move cannot enter hyperspace (seed 004 'Colonizzazione')",
    "R_NO_SUCH_ACTION": "no such action",
    "R_BASE_ONE_SPACE_SHOT": "a mobile base fires one shot into space per activation (seed 004 'Astronavi', 'Combattimento')",
})

OBS_CHANNELS = (
    "on map", "asteroid belt", "own home planet", "own ramp", "enemy home planet", "enemy ramp",
    "planetoid colour (1 blue, 2 red, 3 yellow)", "planetoid exists this turn", "planetoid exists next turn",
    "blocked hex (1 by me, 2 by enemy)",
    "own mobile bases", "own cruisers", "own transports", "own fighters",
    "enemy mobile bases", "enemy cruisers", "enemy transports", "enemy fighters",
    "own bow facing + 1", "enemy bow facing + 1", "own damage", "enemy damage",
    "own fixed base (hits + 1)", "enemy fixed base (hits + 1)", "own pieces done this turn",
    "active piece (1 body, 2 bow/anchor, 3 chosen exit hex)",
    "turn index", "phase", "hexes moved by active piece", "shots fired by active piece",
    "kind launched this turn + 1", "pieces launched this turn",
    "own reserve cruisers", "own reserve transports", "own reserve fighters",
    "enemy reserve cruisers", "enemy reserve transports", "enemy reserve fighters",
    "own cruisers in hyperspace", "own transports in hyperspace", "own fighters in hyperspace",
    "enemy cruisers in hyperspace", "enemy transports in hyperspace", "enemy fighters in hyperspace",
    "own score", "enemy score", "own seat",
)
assert len(OBS_CHANNELS) == rules.N_OBS_CH
# the action table (option relations; RULES.md §12.4): planetoids_v1 has the first 8, planetoids_v2 all
ACTION_FEATURES = ("row describes the action", "a shot's faces of the d6 that hit", "kind + 1 of the piece it names (5 a fixed base)",
                   "hexes to the nearest planetoid with no fixed base", "hexes to the nearest enemy transport",
                   "hexes to the nearest enemy piece or fixed base",
                   "its hex: 1 free planetoid now, 2 next turn, 3 later, 4 colonised by me, 5 by the enemy",
                   "the named piece's damage or fixed base's hits",
                   "family: 1 move, 2 pivot, 3 end of activation, 4 colonise, 5 repair, 6 fire at a piece, "
                   "7 fire at a fixed base, 8 select a piece, 9 launch",
                   "the active piece's kind + 1", "hexes to the active piece's open planetoid",
                   "hexes it gains toward its open planetoid", "hexes it gains toward its hunted target")
assert len(ACTION_FEATURES) == rules.N_AF
# columns of VecGame.obs_key: the step rewrites only the planes that changed
OBS_KEY_LEN = rules.OBS_KEY_LEN


def parse_options(options: dict) -> dict:
    out = merged_options("Planetoids", DEFAULT_OPTIONS, _CHOICES, options)
    res = out["reserve"]
    if set(res) != {"cruiser", "transport", "fighter"} or any(not isinstance(v, int) or not 0 <= v <= 40
                                                               for v in res.values()):
        raise ValueError(f"option reserve must give cruiser, transport and fighter counts 0..40, got {res}")
    if not isinstance(out["turns"], int) or not 1 <= out["turns"] <= 127:
        raise ValueError(f"option turns must be 1..127 (the turn index is an int8 observation), got {out['turns']!r}")
    if not isinstance(out["max_decisions"], int) or out["max_decisions"] < 0:
        raise ValueError(f"option max_decisions must be a non-negative integer, got {out['max_decisions']!r}")
    return out


def shipped_maps() -> list[str]:
    """The maps in data/ by name (the values ``wargym serve`` lets a client give the map option)."""
    return sorted(p.name[: -len("_map.json")] for p in DATA.glob("*_map.json"))


# option -> the names of the data shipped for it (wargym serve offers these and no file)
NAMED_DATA = {"map": shipped_maps}
# The search bots' rollouts stop 60 decisions on (a few pieces' moves and shots each) and are scored by the
# lead in scores: a game of the scripted bots takes about 2,100 decisions, so rollouts to the end cost a
# search move about 90 ms at 8 simulations and 200 games a day; cut, the tree search at 16 simulations
# beat the scripted bot 18-1-1 in 20 games (README, Search bot; core.search, SEARCH_DEPTH)
SEARCH_DEPTH = 60


def load_map(spec) -> dict:
    if isinstance(spec, dict):
        check_map(spec)
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"option map must be a map name or a map dict, got {type(spec).__name__}")
    path = DATA / f"{spec}_map.json"
    if not path.exists():
        raise ValueError(f"no Planetoids map named {spec!r} (looked for {path})")
    m = json.loads(path.read_text())
    check_map(m)
    return m


def check_map(m) -> None:
    """A map dict's fields, types and size, checked before any table is built (the tables grow
    with the square of the hexes); a clear ValueError naming the field otherwise."""
    if not isinstance(m, dict):
        raise ValueError("a Planetoids map is an object")
    for key in ("rows", "cols"):
        if not _is_int(m.get(key)) or not 1 <= m[key] <= rules.MAX_CELLS:
            raise ValueError(f"map {key} must be an integer 1..{rules.MAX_CELLS}, got {m.get(key)!r:.40}")
    rows, cols = m["rows"], m["cols"]
    if rows * cols > rules.MAX_CELLS:
        raise ValueError(f"map: {rows}x{cols} hexes, more than the kernels' {rules.MAX_CELLS}")
    if not isinstance(m.get("odd_rows_short", False), bool):
        raise ValueError("map odd_rows_short must be true or false")

    size = rows * cols
    _check_hexes(m.get("asteroids"), "asteroids", 0, size, rows, cols)
    _check_hexes(m.get("home_planets"), "home_planets", 2, 2, rows, cols)
    _check_hexes(m.get("planetoids"), "planetoids", 0, size, rows, cols, COLOURS)
    for key, n, extra in (("ramps", 3, DIRECTION_NAMES), ("base_start", 2, None)):
        if key == "base_start" and key not in m:
            continue
        per_player = m.get(key)
        if not isinstance(per_player, list) or len(per_player) != 2:
            raise ValueError(f"map {key} must be two lists, one per player")
        for p in range(2):
            _check_hexes(per_player[p], f"{key}[{p}]", n, n, rows, cols, extra)


def _check_hexes(value, key: str, n_min: int, n_max: int, rows: int, cols: int, extra=None) -> None:
    """``value`` is a list of n_min..n_max hexes [row, col] on the map (with a third item from
    ``extra`` if given: a colour, a direction)."""
    width = 2 if extra is None else 3
    if not isinstance(value, list) or not n_min <= len(value) <= n_max or any(
            not isinstance(item, list) or len(item) != width or not all(_is_int(v) for v in item[:2])
            or not (0 <= item[0] < rows and 0 <= item[1] < cols) or (extra is not None and item[2] not in extra)
            for item in value):
        what = "[row, col]" if extra is None else f"[row, col, one of {list(extra)}]"
        raise ValueError(f"map {key} must be a list of {n_min}..{n_max} entries {what} on the {rows}x{cols} map")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def colour_sequence(kind: str, turns: int) -> np.ndarray:
    """Seed 004 "Tabella Turni Temporali": 51 colour turns.  The table arrived
    garbled: a 17-column table of which two rows survive, both starting
    "Blu | Rosso | Giallo | Blu | Rosso".  "rows" (default) reads it as three
    rows of 17 turns that each start again from blue; "cycle" as blue, red,
    yellow repeated straight through (RULES.md)."""
    if kind == "cycle":
        return np.array([t % 3 for t in range(turns)], dtype=np.int8)
    row = -(-turns // 3)
    return np.array([(t % row) % 3 for t in range(turns)], dtype=np.int8)


def _hit_table() -> np.ndarray:
    data = json.loads((DATA / "attack_tables.json").read_text())
    table = np.zeros((4, 5, 11), dtype=np.int8)  # attacker kind, target kind, range
    for att, rows in data.items():
        if att not in KIND_KEYS:
            continue
        for tgt, thresholds in rows.items():
            table[KIND_KEYS.index(att), KIND_KEYS.index(tgt), 1:1 + len(thresholds)] = thresholds
    return table


def build_config(opts: dict):
    m = load_map(opts["map"])
    rows, cols = m["rows"], m["cols"]
    valid = np.ones(rows * cols, dtype=np.bool_)
    if m.get("odd_rows_short"):
        for r in range(1, rows, 2):
            valid[r * cols + cols - 1] = False
    grid = HexGrid(rows, cols, valid)
    N = grid.n_cells
    if N > rules.MAX_CELLS:
        raise ValueError(f"map {opts['map']!r}: {rows}x{cols} hexes, more than the kernels' {rules.MAX_CELLS}")
    cell = lambda rc: grid.cell(int(rc[0]), int(rc[1]))  # noqa: E731

    terrain = np.where(valid, rules.SPACE, -1).astype(np.int8)
    for rc in m["asteroids"]:
        terrain[cell(rc)] = rules.ASTEROID
    home_owner = np.full(N, -1, np.int8)
    for p, rc in enumerate(m["home_planets"]):
        terrain[cell(rc)] = rules.PLANET
        home_owner[cell(rc)] = p
    ramp_cell = np.zeros((2, 3), np.int32)
    ramp_dir = np.zeros((2, 3), np.int8)
    ramp_owner = np.full(N, -1, np.int8)
    for p in range(2):
        for k, (r, c, d) in enumerate(m["ramps"][p]):
            ramp_cell[p, k] = cell((r, c))
            ramp_dir[p, k] = DIRECTION_NAMES.index(d)
            ramp_owner[ramp_cell[p, k]] = p
    F = len(m["planetoids"])
    planetoid_cell = np.array([cell(x[:2]) for x in m["planetoids"]], np.int32)
    planetoid_colour = np.array([COLOURS.index(x[2]) for x in m["planetoids"]], np.int8)
    planetoid_at = np.full(N, -1, np.int16)
    planetoid_at[planetoid_cell] = np.arange(F)

    far = np.int16(99)
    dist = grid.distance
    pdist_colour = np.full((3, N), far, np.int16)
    for f in range(F):
        c = planetoid_colour[f]
        pdist_colour[c] = np.minimum(pdist_colour[c], np.where(valid, dist[planetoid_cell[f]], far))
    pdist_all = pdist_colour.min(axis=0)
    home_dist = np.stack([np.where(valid, dist[cell(rc)], far) for rc in m["home_planets"]]).astype(np.int16)

    fire_dist = np.zeros((3, N, N), np.int16)
    for colour in range(3):
        obstacle = (terrain != rules.SPACE) | np.isin(np.arange(N), planetoid_cell[planetoid_colour == colour])
        fire_dist[colour] = grid.path_distances(obstacle, enter_blocked_last=True)

    res = opts["reserve"]
    slot_kind = np.array([BASE, BASE] + [CRUISER] * res["cruiser"] + [TRANSPORT] * res["transport"]
                         + [FIGHTER] * res["fighter"], np.int8)
    P = len(slot_kind)
    assert P <= rules.MAX_SLOTS, "option reserve allows at most 40 of each kind"
    # A mobile base is the anchor hex plus these neighbours; player 1's shape is
    # player 0's turned by 180 degrees (RULES.md "Footprints").
    if opts["base_footprint"] == "triangle":
        base_fp_dirs = np.array([[0, 5], [3, 2]], np.int8)
    else:
        base_fp_dirs = np.zeros((2, 0), np.int8)
    start = m.get("base_start", [[[0, 0], [0, 0]], [[0, 0], [0, 0]]])
    start_cells = np.array([[cell(rc) for rc in start[p]] for p in range(2)], np.int32)

    a = {}
    n = 0
    for key, size in (("a_piece", P), ("a_target", P), ("a_fixed", F), ("a_hex", N), ("a_move", 6),
                      ("a_face", 6), ("a_hyper", 6), ("a_launch", 9), ("a_colonise", 1), ("a_repair", 1),
                      ("a_end_act", 1), ("a_end_turn", 1)):
        a[key] = n
        n += size
    a["n_actions"] = n

    k = np.zeros(rules.N_K, np.int64)
    k[[rules.K_ROWS, rules.K_COLS, rules.K_SHIP_LENGTH, rules.K_KEEP_AWAY_ALL, rules.K_FIXED_SETUP,
       rules.K_REWARD_SCORE, rules.K_MAX_DECISIONS]] = (
        rows, cols, int(opts["ship_length"]), opts["keep_away"] == "all", opts["setup"] == "fixed",
        opts["reward"] == "score", int(opts["max_decisions"]))
    for key, value in a.items():
        k[getattr(rules, "K_" + key.upper())] = value
    k[rules.K_BASE_SPACE_EACH_HEX] = opts["base_space_shots"] == "each_hex"
    k[rules.K_RELATIONS] = int(opts["relations"])
    cellinfo = np.zeros((N, rules.N_CI), np.int16)
    cellinfo[:, rules.CI_VALID] = valid
    cellinfo[:, rules.CI_TERRAIN] = terrain
    cellinfo[:, rules.CI_HOME_OWNER] = home_owner
    cellinfo[:, rules.CI_RAMP_OWNER] = ramp_owner
    cellinfo[:, rules.CI_PLANETOID] = planetoid_at
    cellinfo[:, rules.CI_PDIST_ALL] = pdist_all
    cellinfo[:, rules.CI_HOME_DIST:rules.CI_HOME_DIST + 2] = home_dist.T
    cellinfo[:, rules.CI_PDIST_COLOUR:rules.CI_PDIST_COLOUR + 3] = pdist_colour.T
    kinds = np.array([  # max hexes moved, shots per turn, hexes kept from planetoids
        (2, 99, 3),    # mobile base (Seed 004 "Astronavi": translates 2, fires once per target, keeps 3;
                       # into space once per activation, rules.space_shot_spent)
        (9, 2, 2),     # cruiser: 9 straight, fires twice, keeps 2
        (9, 0, 0),     # transport: moves like a cruiser, does not fight
        (9, 1, 0),     # fighter: 9 along any path, fires once
        (0, 0, 0),     # fixed base
    ], np.int16)
    # Observation planes that depend only on the map: channels 0-6 per viewer
    # (see OBS_CHANNELS) and, per colour, where the planetoids exist.
    static_obs = np.zeros((2, rules.N_STATIC_OBS, N), np.int8)
    for me in range(2):
        static_obs[me, 0] = valid
        static_obs[me, 1] = terrain == rules.ASTEROID
        static_obs[me, 2] = home_owner == me
        static_obs[me, 3] = ramp_owner == me
        static_obs[me, 4] = home_owner == 1 - me
        static_obs[me, 5] = ramp_owner == 1 - me
        static_obs[me, 6, planetoid_cell] = planetoid_colour + 1
    visible_obs = np.zeros((3, N), np.int8)
    for colour in range(3):
        visible_obs[colour, planetoid_cell[planetoid_colour == colour]] = 1
    # What the map alone decides of a hex, per colour (and kind), for the mask loops:
    # rules.fill_map_tables fills them from rules.map_reason and rules.open_space below.
    stand = np.zeros((3, 4, N), np.int8)
    open_hex = np.zeros((3, N), np.int8)
    if base_fp_dirs.shape[1] > 2:
        raise ValueError("mobile base footprints of more than 3 hexes are not supported")
    tables = dict(
        static_obs=static_obs, visible_obs=visible_obs, stand=stand, open_hex=open_hex,
        k=k, nbr=grid.neighbors, dist=dist, fire_dist=fire_dist, cell=cellinfo, kinds=kinds,
        planetoids=np.ascontiguousarray(np.stack([planetoid_cell, planetoid_colour], axis=1).astype(np.int32)),
        ramps=np.ascontiguousarray(np.stack([ramp_cell, ramp_dir], axis=-1).astype(np.int32)),
        colour_seq=colour_sequence(opts["colour_table"], opts["turns"]), slot_kind=slot_kind,
        hit_table=_hit_table(), base_fp_dirs=base_fp_dirs, start_cells=start_cells, lines=grid.line_orders(),
    )
    config = Tables(**tables)
    # a struct of its own, over the same arrays (``config.struct`` stays lazy, as before)
    rules.fill_map_tables(PlanetoidsConfig(*(getattr(config, f) for f in CONFIG_FIELDS)))
    return config


class Tables(types.SimpleNamespace):
    """The config as plain numpy arrays for Python code; ``.struct`` is what kernels get."""

    @property
    def struct(self):
        if "_struct" not in self.__dict__:
            self.__dict__["_struct"] = PlanetoidsConfig(*(getattr(self, f) for f in CONFIG_FIELDS))
        return self.__dict__["_struct"]


# The structs the kernels receive (see core/structs.py).  Defined at module
# level so that Numba's on-disk cache can find the types again.
@structref.register
class PlanetoidsConfigType(WargymStruct):
    pass


class PlanetoidsConfig(structref.StructRefProxy):
    """Static tables of one map and option set, shared by every game of a batch."""


CONFIG_FIELDS = rules.CONFIG_FIELDS  # the config struct's fields
structref.define_proxy(PlanetoidsConfig, PlanetoidsConfigType, list(CONFIG_FIELDS))


@structref.register
class PlanetoidsStateType(WargymStruct):
    pass


class PlanetoidsState(structref.StructRefProxy):
    """Kernel-side view of a BatchState's arrays."""


STATE_FIELDS = rules.STATE_FIELDS  # the state struct's fields
structref.define_proxy(PlanetoidsState, PlanetoidsStateType, list(STATE_FIELDS))


def cfg_int(cfg, key: str) -> int:
    return int(cfg.k[getattr(rules, "K_" + key.upper())])


def layout(cfg) -> types.SimpleNamespace:
    """The packed config spelled out with names, for Python-side code."""
    ns = types.SimpleNamespace(**{key.lower()[2:]: int(cfg.k[getattr(rules, key)])
                                  for key in dir(rules) if key.startswith("K_")})
    ns.valid = cfg.cell[:, rules.CI_VALID].astype(bool)
    ns.terrain = cfg.cell[:, rules.CI_TERRAIN]
    ns.planetoid_at = cfg.cell[:, rules.CI_PLANETOID]
    ns.planetoid_cell = cfg.planetoids[:, rules.PL_CELL]
    ns.planetoid_colour = cfg.planetoids[:, rules.PL_COLOUR]
    ns.home_owner = cfg.cell[:, rules.CI_HOME_OWNER]
    ns.ramp_owner = cfg.cell[:, rules.CI_RAMP_OWNER]
    return ns


def num_actions(cfg) -> int:
    return cfg_int(cfg, "n_actions")


def action_channels(cfg) -> int:
    """Channels of the action table (option relations): actions x its row width, whole channels."""
    n = cfg_int(cfg, "rows") * cfg_int(cfg, "cols")
    return int(rules.n_action_channels(n, int(cfg.k[rules.K_N_ACTIONS]), int(cfg.k[rules.K_RELATIONS])))


def obs_shape(cfg) -> tuple[int, ...]:
    return (len(OBS_CHANNELS) + action_channels(cfg), cfg_int(cfg, "rows"), cfg_int(cfg, "cols"))


def kernel_obs_shape(cfg) -> tuple[int, ...]:
    return (len(OBS_CHANNELS) + action_channels(cfg), cfg_int(cfg, "rows") * cfg_int(cfg, "cols"))


def split_obs(cfg, obs: np.ndarray) -> dict:
    """The observation as named parts: the map planes (channels 0-25), the scalar
    channels (26-46, each filling its whole plane, read here at one hex) and with option
    relations the action table (actions x ACTION_FEATURES, row-major in the channels after 46)."""
    obs = np.asarray(obs).reshape(obs_shape(cfg))
    parts = {"planes": obs[:rules.FIRST_SCALAR_CH], "scalars": obs[rules.FIRST_SCALAR_CH:rules.N_OBS_CH, 0, 0]}
    if cfg.k[rules.K_RELATIONS]:
        n_actions = int(cfg.k[rules.K_N_ACTIONS])
        width = int(rules.action_row_width(int(cfg.k[rules.K_RELATIONS])))
        table = obs[rules.N_OBS_CH:].reshape(-1)[:n_actions * width]
        parts["action_features"] = table.reshape(n_actions, width)
    return parts


def current(state) -> np.ndarray:
    return state.g[:, G_DECIDER]


def done(state) -> np.ndarray:
    return state.g[:, G_DONE].astype(bool)


def state_spec(cfg) -> StateSpec:
    P = len(cfg.slot_kind)
    F = len(cfg.planetoids)
    N = len(cfg.cell)
    fields = (
        ("rng", (), "uint64"), ("policy_rng", (), "uint64"),
        ("dice_script", (DICE_SCRIPT_LEN,), "int8"), ("dice", (2,), "int16"),   # scripted dice: (length, position)
        ("g", (rules.N_G,), "int32"),              # per-game scalars, columns G_* in rules.py
        # int16: a piece's columns are its hex (< MAX_CELLS = 1024) and small counts and flags
        ("pc", (2, P, rules.N_PC), "int16"),       # per piece, columns PC_*
        ("fx", (F, rules.N_FX), "int8"),           # per planetoid (fixed-base site), columns FX_*
        ("cells", (N, rules.N_C), "int8"),         # per hex, columns C_*
    )
    return StateSpec(NAME, fields, PlanetoidsState)


# -- actions in words ---------------------------------------------------------
def action_name(cfg, a: int) -> str:
    cfg_ = cfg
    cfg = layout(cfg_)

    def hexname(c):
        return f"hex ({c // cfg.cols}, {c % cfg.cols})"
    if a < cfg.a_target:
        return f"select own piece {a} ({rules.KIND_NAMES[cfg_.slot_kind[a]]})"
    if a < cfg.a_fixed:
        j = a - cfg.a_target
        return f"fire at enemy piece {j} ({rules.KIND_NAMES[cfg_.slot_kind[j]]})"
    if a < cfg.a_hex:
        f = a - cfg.a_fixed
        return f"fire at the fixed base on planetoid {f} ({hexname(int(cfg.planetoid_cell[f]))})"
    if a < cfg.a_move:
        return f"{hexname(a - cfg.a_hex)} (place base / fire into space / leave hyperspace, by phase)"
    if a < cfg.a_face:
        return f"move one hex {DIRECTION_NAMES[a - cfg.a_move]}"
    if a < cfg.a_hyper:
        return f"face {DIRECTION_NAMES[a - cfg.a_face]} (pivot, or facing when leaving hyperspace)"
    if a < cfg.a_launch:
        return f"enter hyperspace heading {DIRECTION_NAMES[a - cfg.a_hyper]}"
    if a < cfg.a_colonise:
        k = a - cfg.a_launch
        return f"launch a {KIND_KEYS[1 + k // 3]} from ramp {k % 3}"
    return {cfg.a_colonise: "colonise", cfg.a_repair: "repair", cfg.a_end_act: "end this piece's activation",
            cfg.a_end_turn: "end turn"}.get(a, f"action {a} (outside the action space)")


# -- scenarios ----------------------------------------------------------------
def _hex(cfg, rc, what):
    cfg = layout(cfg)
    try:
        r, c = int(rc[0]), int(rc[1])
    except Exception:
        raise ValueError(f"{what}: hex must be [row, col], got {rc!r}") from None
    if not (0 <= r < cfg.rows and 0 <= c < cfg.cols) or not cfg.valid[r * cfg.cols + c]:
        raise ValueError(f"{what}: hex {[r, c]} is not on the map")
    return r * cfg.cols + c


def apply_scenario(cfg, state, b: int, sc: dict) -> None:
    """Write scenario ``sc`` into game ``b`` of ``state`` (a reset game).

    Format (all keys optional except ``pieces``)::

        {"turn": 0, "to_move": 0,
         "pieces": [{"player": 0, "kind": "cruiser", "hex": [4, 3], "facing": "E",
                     "damage": 0, "status": "map"}],          # status: map | hyper
         "reserve": {"cruiser": 4, "transport": 4, "fighter": 12},  # per player, or [p0, p1]
         "fixed_bases": [{"player": 1, "hex": [4, 10], "hits": 0}],
         "blocked": [{"hex": [4, 9], "by": 0}],
         "dice": [6, 1, 3]}

    The game starts at the beginning of ``to_move``'s move in colour turn
    ``turn``.  Mobile bases that are not listed are out of the game.
    """
    if not isinstance(sc, dict):
        raise ValueError("a scenario must be a dict")
    allowed = {"turn", "to_move", "pieces", "reserve", "fixed_bases", "blocked", "dice", "name", "description"}
    if set(sc) - allowed:
        raise ValueError(f"unknown scenario key(s) {sorted(set(sc) - allowed)}; allowed: {sorted(allowed)}")
    s = state
    turn = sc.get("turn", 0)
    to_move = sc.get("to_move", 0)
    if not isinstance(turn, int) or not 0 <= turn < len(cfg.colour_seq):
        raise ValueError(f"scenario turn must be 0..{len(cfg.colour_seq) - 1}, got {turn!r}")
    if to_move not in (0, 1):
        raise ValueError(f"scenario to_move must be 0 or 1, got {to_move!r}")
    P = len(cfg.slot_kind)
    s.pc[b, :, :, PC_STATUS] = rules.RESERVE
    s.pc[b, :, cfg.slot_kind == BASE, PC_STATUS] = rules.DESTROYED
    s.pc[b, :, :, PC_POS] = -1
    used = np.zeros((2, P), bool)
    for n, pc in enumerate(sc.get("pieces", [])):
        what = f"scenario piece {n}"
        if not isinstance(pc, dict) or set(pc) - {"player", "kind", "hex", "facing", "damage", "status"}:
            raise ValueError(f"{what}: expected keys player, kind, hex, facing, damage, status; got {pc!r}")
        p = pc.get("player")
        if p not in (0, 1):
            raise ValueError(f"{what}: player must be 0 or 1")
        kind = pc.get("kind")
        if kind not in KIND_KEYS[:4]:
            raise ValueError(f"{what}: kind must be one of {KIND_KEYS[:4]}, got {kind!r}")
        k = KIND_KEYS.index(kind)
        free = [i for i in range(P) if cfg.slot_kind[i] == k and not used[p, i]]
        if not free:
            raise ValueError(f"{what}: player {p} has no more {kind} pieces (see option reserve)")
        i = free[0]
        used[p, i] = True
        facing = pc.get("facing", "E")
        if facing not in DIRECTION_NAMES:
            raise ValueError(f"{what}: facing must be one of {DIRECTION_NAMES}, got {facing!r}")
        damage = pc.get("damage", 0)
        if not isinstance(damage, int) or not 0 <= damage <= (0 if k == FIGHTER else rules.MAX_HITS):
            raise ValueError(f"{what}: damage {damage!r} out of range for a {kind}")
        status = pc.get("status", "map")
        if status not in ("map", "hyper"):
            raise ValueError(f"{what}: status must be 'map' or 'hyper', got {status!r}")
        if status == "hyper" and (k == BASE or damage):
            raise ValueError(f"{what}: only undamaged ships other than bases can be in hyperspace")
        s.pc[b, p, i, PC_STATUS] = rules.ON_MAP if status == "map" else rules.HYPER
        s.pc[b, p, i, PC_POS] = _hex(cfg, pc.get("hex", [0, 0]), what) if status == "map" else -1
        s.pc[b, p, i, PC_FACING] = DIRECTION_NAMES.index(facing)
        s.pc[b, p, i, PC_DAMAGE] = damage
    reserve = sc.get("reserve")
    if reserve is not None:
        per_player = reserve if isinstance(reserve, list) else [reserve, reserve]
        for p in range(2):
            for key, count in per_player[p].items():
                if key not in ("cruiser", "transport", "fighter") or not isinstance(count, int) or count < 0:
                    raise ValueError(f"scenario reserve: bad entry {key!r}: {count!r}")
                left = [i for i in range(P) if cfg.slot_kind[i] == KIND_KEYS.index(key) and not used[p, i]]
                if count > len(left):
                    raise ValueError(f"scenario reserve: player {p} has only {len(left)} {key} pieces left")
                for i in left[count:]:
                    s.pc[b, p, i, PC_STATUS] = rules.DESTROYED
    for n, fb in enumerate(sc.get("fixed_bases", [])):
        what = f"scenario fixed base {n}"
        cellno = _hex(cfg, fb.get("hex"), what)
        f = int(cfg.cell[cellno, rules.CI_PLANETOID])
        if f < 0:
            raise ValueError(f"{what}: fixed bases stand on planetoids; {fb.get('hex')} is not one")
        if s.fx[b, f, FX_OWNER] >= 0:
            raise ValueError(f"{what}: planetoid {fb.get('hex')} already holds a fixed base")
        hits = fb.get("hits", 0)
        if fb.get("player") not in (0, 1) or not isinstance(hits, int) or not 0 <= hits <= rules.MAX_HITS:
            raise ValueError(f"{what}: needs player 0/1 and hits 0..{rules.MAX_HITS}")
        s.fx[b, f, FX_OWNER] = fb["player"]
        s.fx[b, f, FX_HITS] = hits
    s.g[b, G_TURN] = turn
    s.g[b, G_SETUP_COUNT] = 4
    rules.begin_move(s.view, cfg.struct, b, to_move)
    for n, bl in enumerate(sc.get("blocked", [])):
        cellno = _hex(cfg, bl.get("hex"), f"scenario blocked hex {n}")
        if bl.get("by") != 1 - to_move:
            raise ValueError(f"scenario blocked hex {n}: 'by' must be {1 - to_move}, the opponent of to_move "
                             f"(a block lasts until the blocking player's next move, so blocks by the player "
                             f"to move have already expired)")
        s.cells[b, cellno, C_BLOCKED] = bl["by"]
    rules.build_occupancy(s.view, cfg.struct, b)
    _check_positions(cfg, s, b)
    dice = sc.get("dice", [])
    if len(dice) > DICE_SCRIPT_LEN or any(not isinstance(v, int) or not 1 <= v <= 6 for v in dice):
        raise ValueError(f"scenario dice must be at most {DICE_SCRIPT_LEN} values 1..6")
    s.dice_script[b] = 0
    s.dice_script[b, :len(dice)] = dice
    s.dice[b] = (len(dice), 0)


def _check_positions(cfg, s, b):
    colour = int(cfg.colour_seq[s.g[b, G_TURN]])
    for p in range(2):
        for i in range(len(cfg.slot_kind)):
            if s.pc[b, p, i, PC_STATUS] != rules.ON_MAP:
                continue
            code = rules.position_reason(s.view, cfg.struct, b, p, cfg.slot_kind[i], s.pc[b, p, i, PC_POS],
                                         s.pc[b, p, i, PC_FACING], colour)
            if code == rules.R_BLOCKED_HEX:
                code = rules.R_HEX_NOT_EMPTY
            if code:
                r, c = divmod(int(s.pc[b, p, i, PC_POS]), cfg_int(cfg, 'cols'))
                raise ValueError(f"scenario: player {p}'s {KIND_KEYS[cfg.slot_kind[i]]} at [{r}, {c}] "
                                 f"cannot stand there: {REASONS[code]}")


def scores(state, b: int) -> list[int]:
    """Seed 004 "Punteggio": 4 points per fixed base minus 1 per hit it took."""
    owner, hits = state.fx[b, :, FX_OWNER], state.fx[b, :, FX_HITS]
    return [int((4 - hits[owner == p]).sum()) for p in range(2)]


def final_info(core, b: int) -> dict:
    """The result (``core/results.py``): the higher score wins a finished game."""
    sc = scores(core.state, b)
    winner = NO_WINNER
    if core.state.g[b, G_DONE]:
        winner = 0 if sc[0] > sc[1] else (1 if sc[1] > sc[0] else NO_WINNER)
    return result_info(winner, sc, int(core.state.g[b, G_TURN]))


def scores_from_obs(cfg, obs) -> list[int]:
    """(own score, enemy score) as shown in an observation tensor (scalar channels 44 and 45)."""
    scalars = split_obs(cfg, obs)["scalars"]
    return [int(scalars[44 - rules.FIRST_SCALAR_CH]), int(scalars[45 - rules.FIRST_SCALAR_CH])]

