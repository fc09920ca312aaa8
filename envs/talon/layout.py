"""Talon's state layout, codes and constants, shared by every chapter module.

State of B games lives in packed int32 arrays (see ``game.state_spec``):

* ``g[b, G_*]``          per-game scalars (round, impulse, initiative, stage ...)
* ``sh[b, p, k, SH_*]``  ship ``k`` of player ``p`` (class, hex, facing, curve,
                          shields, hull, charge bars, criticals, markers ...)

Static data (ship classes, weapon tables, impulse chart, critical table, arc
table of the map) comes in the config struct built by ``game.build_config``.
Also here: the reason codes of illegal actions, and the borrowed views of the
state and config that the rule functions are called with in hot loops.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import view


# -- per-game scalars g[b, G_*] ------------------------------------------------
G_DONE = 0          # game over
G_DECIDER = 1       # player to decide
G_ROUND = 2         # 1-based round number (Talon 3.1)
G_IMPULSE = 3       # 0..5 = impulses A..F, 6 = power phase
G_INIT = 4          # player holding the initiative (Talon 4.1)
G_TURN = 5          # 0: initiative player's turn of the impulse, 1: second player's
G_STAGE = 6         # ST_* below
G_SHIP = 7          # active own ship (firing ship, ship in the power phase)
G_GROUP = 8         # weapon group being fired
G_WLEFT = 9         # weapons of that group still to fire
G_RESUME = 10       # stage to return to after an interruption (collision/explosion order)
G_SERIAL = 11       # impulses played so far (timing of repairs, Talon 8.7)
G_COLL_MOVER = 12   # ship that moved into a friendly ship's hex (Talon 7.4)
G_COLL_OTHER = 13   # the friendly ship it collides with
G_COLL_ORIGIN = 14  # hex the mover came from
G_COLL_ARC = 15     # mover's shield arc facing the other ship
G_COLL_QUEUE = 16   # bitmask of further friendly ships still to collide with
G_DECISIONS = 17    # decisions taken so far (truncation)
G_SP0 = 18          # ship points destroyed by player 0 (enemy ships destroyed)
G_SP1 = 19          # ship points destroyed by player 1
G_WINNER = 20       # -1 undecided, 0/1, 2 draw
G_ROUNDS = 21       # rounds the game lasts
G_PP_TURN = 22      # power phase: 0 initiative player, 1 second player
G_MOVE_PLAYER = 23  # player whose ship moved (collision owner)
G_PENDING_TURN = 24 # the turn's player while an interruption is decided
G_FLEET0 = 25       # ship points of player 0's fleet at the start (reward scale)
G_FLEET1 = 26
G_TILES = 27        # terrain tiles in play (Talon 17-19); 0: the game pays for no terrain rule
G_COLL_RESUME = 28  # stage a collision returns to (movement, or the end of the round's pull, 18.2)
G_END_STEP = 29     # end of the round after the power phase: END_* below (Talon 3.2, 18.2)
G_PULL_NEXT = 30    # next ship (player-major index, initiative player first) the black hole pulls (18.2)
G_PULL_A = 31       # the two hexes a ship pulled along a hexside may go to (18.2, ST_PULL)
G_PULL_B = 32
G_PUSH_SHIP = 33    # enemy ship a wave cannon pushes along a hexside: the firer picks the hex (15.1.2, ST_PUSH)
G_PUSH_DIR_A = 34   # the two directions it may be pushed in (G_PULL_A/B hold their hexes)
G_PUSH_DIR_B = 35
# --- Talon 13 missiles ---
G_MISSILE = 36      # own missile being given a new target (13.7, ST_RETARGET); G_SHIP is the ship spending the AP
# --- Talon 16 docking ---
G_DOCK_SHIPS = 37   # the scenario lets ships other than fighters dock at friendly carriers and bases (16.1)
G_LANDING = 38      # the scenario lets ships land on planets (16.1)
# --- Talon 13.2 the launch hex ---
G_LAUNCH_TARGET = 39  # enemy ship a missile of group G_GROUP of G_SHIP is being launched at (ST_LAUNCH)
# --- scenario victory conditions (victory.py, RULES.md 'Victory conditions') ---
G_VC = 40           # N_VC conditions x N_VCF fields (VC_*), kind VK_NONE where unused
G_VC_OTHERWISE = 56 # who wins when no condition is met at the end: 0 the points (rulebook), 1 player 0, 2 player 1, 3 a draw
G_VC_MET = 57       # bitmask of the conditions met when the game was decided (0: decided by points or otherwise)
N_G = 58

# -- scenario victory conditions -------------------------------------------------
N_VC = 4            # conditions a scenario may set
VC_KIND = 0         # VK_* below
VC_PLAYER = 1       # the player the condition is for
VC_SHIPS = 2        # bitmask of the ship slots it names (enemy ships for VK_DESTROY, own ships otherwise)
VC_COUNT = 3        # how many of them (VK_POINTS: the ship points destroyed)
N_VCF = 4
VK_NONE = 0
VK_DESTROY = 1      # at once: destroy COUNT of the named enemy ships
VK_ESCAPE = 2       # at once: COUNT of the named own ships leave the battle alive (11, 16.1, 19, 7.5.2)
VK_POINTS = 3       # at once: destroy COUNT ship points
VK_HOLD = 4         # at the end: COUNT of the named own ships are still in play

# -- the end of a round, after the power phase (Talon 3.2, 18.2) ------------------------
END_PULL = 1        # gravitational pull of black holes (18.2)
END_SUPPLY = 2      # supply phase: reinforcements arrive (3.2)
END_RETREAT0 = 3    # retreat phase, initiative player (3.2, 11)
END_RETREAT1 = 4    # retreat phase, second player
END_DONE = 5

# -- stages --------------------------------------------------------------------
ST_AP = 1           # spend AP (Talon 6.1)
ST_MOVE = 2         # move ships (Talon 7)
ST_FIRE_SHIP = 3    # choose the next ship to fire (Talon 8.2.1)
ST_FIRE_GROUP = 4   # choose a charged weapon group of that ship (Talon 8.3 step 1)
ST_FIRE_TARGET = 5  # choose the target of the next weapon (Talon 8.3 step 4)
ST_POWER = 6        # choose the speed of a ship (Talon 9.3)
ST_INIT = 7         # decide who holds the initiative (Talon 4.2)
ST_COLLIDE = 8      # choose which colliding ship takes damage first (Talon 7.4)
ST_EXPLODE = 9      # choose which of several own ships explodes first (Talon 8.6.3)
ST_PULL = 10        # a black hole pulls a ship along a hexside: its owner picks the hex (Talon 18.2)
ST_RETREAT = 11     # retreat phase: ships whose FTL drive is active may jump (Talon 3.2, 11)
ST_ROUND_END = 12   # (no decision) the end of the round is being resolved (Talon 3.2, 18.2)
ST_OVER = 13
ST_PUSH = 14        # a wave cannon pushes a ship along a hexside: the firer picks the hex (Talon 15.1.2)
ST_TURN_END = 15    # (no decision) the end of a turn: wave cannon damage (15.1.3), then repairs (8.7)
# --- Talon 13 missiles ---
ST_RETARGET = 16    # a ship spent its AP to retarget missile G_MISSILE: choose the new target (TARGET actions, 13.7)
ST_LAUNCH = 17      # a missile is launched at G_LAUNCH_TARGET: its owner picks the adjacent hex (LAUNCH actions, 13.2)

# -- ships sh[b, p, k, SH_*] ---------------------------------------------------
SH_CLASS = 0        # index into the class table, -1 = empty slot
SH_STATUS = 1       # SS_* below
SH_NAME = 2         # counter name index within the class
SH_CELL = 3
SH_FACING = 4       # 0..5 = E, NE, NW, W, SW, SE
SH_CURVE = 5        # row of the class's power curve in use (Talon 5.4)
SH_POWER = 6        # Power written on the counter: curve power + modifiers (Talon 8.4.2)
SH_TURN_LEFT = 7    # hexes still to go straight before the next turn (turn marker on the ship, Talon 7.2.2 option 2)
SH_SLIP = 8         # side-slip marker (Talon 7.3.2)
SH_AP_SPENT = 9     # AP spent this impulse (Talon 5.1: at most one)
SH_MOVED = 10       # moved this impulse (Talon 5.1: at most one hex)
SH_FIRED = 11       # has fired (chosen as firer) this turn (Talon 8.2.1)
SH_SHIELD = 12      # 4 columns: remaining shield boxes front, right, left, rear
SH_REINF = 16       # 4 columns: reinforcement marker, impulse letter + 1 (0 = none) (Talon 6.2)
SH_HULL_HITS = 20   # hull boxes marked, from the left
SH_RED = 21         # 3 columns: red boxes charged per group
SH_YEL = 24         # 3 columns: yellow boxes charged per group
SH_GROUP_DEAD = 27  # bitmask of destroyed groups (critical 5/9)
SH_BATTERY = 28     # battery charged (Talon 10.1)
SH_AB_LEFT = 29     # afterburners not yet used (Talon 10.2)
SH_INIT_MARK = 30   # 1 change initiative, 2 defend initiative (Talon 4.2)
SH_C_SHIELDS = 31   # critical markers: impulse serial + 1 when placed, 0 = none (Talon 8.5, 8.7)
SH_C_HELM = 32
SH_C_TURN = 33      # Turn +1 / +2 marker: the extra turn radius
SH_C_TURN_AT = 34
SH_C_POWER = 35     # Power -1 marker
SH_C_POWER_AT = 36
SH_C_FTL = 37
SH_C_PLOSS = 38
SH_PENDING = 39     # destroyed, explosion not yet resolved (Talon 8.6.3)
SH_AB_NOW = 40      # used an afterburner this impulse (Talon 10.2.3)
SH_ARRIVE = 41      # SS_RESERVE ships: round in whose supply phase the ship arrives (Talon 3.2)
SH_WAVE = 42        # 4 columns: wave cannon damage on each shield arc, due at the end of the turn (Talon 15.1.3)
# --- Talon 16 docking ---
SH_DOCKED = 46      # docked (retreated): slot + 1 of the friendly carrier or base it is aboard, 0 none (16.3)
N_SH = 47

REWARD_WIN = 0      # option reward="win"
REWARD_POINTS = 1   # option reward="points"
REWARD_DAMAGE = 2   # option reward="damage"

SS_EMPTY = 0
SS_ACTIVE = 1
SS_DESTROYED = 2
SS_RETREATED = 3
SS_RESERVE = 4      # arrives in a later supply phase (Talon 3.2)

# -- terrain tiles tr[b, i, TR_*] (Talon 17-19) --------------------------------------
TR_KIND = 0
TR_CELL = 1
N_TR = 2

# --- Talon 13 missiles: the missile pool ms[b, m, MS_*] (a fixed number of slots per game) ---
MS_STATUS = 0       # MI_* below
MS_OWNER = 1        # player who launched it
MS_CELL = 2
MS_FACING = 3
MS_TARGET = 4       # enemy ship slot it tracks (13.2); -1 none (13.3: lost its target, goes straight)
MS_MOVED = 5        # moved this impulse (13.4: speed 6, one hex every impulse)
N_MS = 6

MI_NONE = 0         # free slot
MI_INTACT = 1
MI_DAMAGED = 2      # flipped to its damaged side (13.6)
MISSILE_DAMAGE = 2  # damage of a detonation, damaged or not (13.5, 13.6; talon-data.md 2.3)
MISSILE_KILL = 3    # damage in one hit that destroys an intact missile (13.6)
N_MISSILE_MOVES = 3 # straight, turn left, turn right (13.4: turn radius 0, no side slip); M_STRAIGHT .. M_TURN_RIGHT

TK_NONE = 0
TK_PLANET = 1       # Talon 17.2
TK_ASTEROID = 2     # Talon 17.3
TK_NEBULA = 3       # Talon 17.4
TK_BLACK_HOLE = 4   # Talon 18
TK_WORM_HOLE = 5    # Talon 19
N_TK = 6

ARC_FRONT = 0
ARC_RIGHT = 1
ARC_LEFT = 2
ARC_REAR = 3

# -- AP uses (Talon 6.1) -----------------------------------------------------------
U_SLIP = 0
U_TURN = 1
U_CHARGE = 2        # 3 uses: charge a yellow box of group 0, 1, 2
U_BATTERY = 5
U_REINF = 6         # 4 uses: reinforce front, right, left, rear
U_CHANGE = 10
U_DEFEND = 11
N_USES = 12

# -- moves (Talon 7.1) --------------------------------------------------------------
M_STRAIGHT = 0
M_TURN_LEFT = 1
M_TURN_RIGHT = 2
M_SLIP_LEFT = 3
M_SLIP_RIGHT = 4
N_MOVES = 5

# -- critical results (Talon 8.5, table in data/tables.json) -----------------------
CR_NONE = 0
CR_SECONDARY = 1
CR_SHIELDS = 2
CR_HELM = 3
CR_WEAPON = 4
CR_TURN = 5
CR_POWER = 6
CR_HULL_FTL = 7
CR_PLOSS = 8
CR_BREACH = 9

# -- weapons ----------------------------------------------------------------------
W_DISRUPTOR = 0
W_TORPEDO = 1
W_LASER = 2
W_FUSION = 3
W_WAVE = 4
W_MISSILE = 5

# -- config scalars k[K_*] --------------------------------------------------------
K_ROWS = 0
K_COLS = 1
K_SHIPS = 2          # ship slots per player
K_N_ACTIONS = 3
K_A_AP = 4
K_A_UNREINF = 5
K_A_MOVE = 6
K_A_FIRE_SHIP = 7
K_A_GROUP = 8
K_A_TARGET = 9
K_A_SPEED = 10
K_A_INIT = 11
K_A_COLLIDE = 12
K_A_EXPLODE = 13
K_A_DONE = 14
K_EDITION = 15       # 2 = 2nd edition (default), 1 = 1st-edition reinforcement rules
K_ROUNDS = 16
K_REPAIRABLE = 17    # bitmask over CR_* of markers that can be repaired
K_REWARD = 18        # REWARD_* above: +1/-1/0 at the end, or a dense reward each step
K_MAX_DECISIONS = 19
K_SCENARIO = 20      # 0: fixed template, 1: fleets drawn to a point budget
K_BUDGET = 21
K_N_CLASSES = 22
K_TOTAL_SP = 23      # unused by the kernels (normalisation is per game)
K_OBS_PLANES = 24
K_OBS_SHIP = 25      # features per ship in the observation table
K_OBS_GLOBAL = 26
K_FIRST_INIT = 27    # who starts with the initiative in the template (-1: die roll)
K_TERRAIN = 28       # 1: terrain rules and the terrain observation planes are on (option terrain)
K_A_PULL = 29        # actions: the hex a ship pulled (18.2) or pushed (15.1.2) along a hexside goes to (2, only with terrain or heavy weapons)
K_A_RETREAT = 30     # actions: a ship jumps to FTL (max_ships, only with option retreat)
K_HEXSIDE = 31       # 17.5 a line along a hexside with asteroids/nebula on one side only: 0 counts none, 1 one
K_RETREAT = 32       # 1: the retreat phase (Talon 11) is played (option retreat)
K_HEAVY = 33         # 1: wave and fusion cannons fire (Talon 15, option heavy_weapons)
# --- Talon 13 missiles ---
K_MISSILES = 34      # 1: missiles are launched, move and detonate (Talon 13, option missiles)
K_A_MMOVE = 35       # actions: move own missile m straight / turn left / turn right (max_missiles x 3)
K_A_MTARGET = 36     # actions: fire the current weapon at enemy missile m (max_missiles, 13.6)
K_A_RETARGET = 37    # actions: ship k spends its AP to retarget own missile m (max_ships x max_missiles, 13.7)
K_P_MISSILE = 38     # first missile plane of the observation
# --- Talon 14 bases ---
K_BASES = 39         # 1: bases may be in play (Talon 14, option bases): they rotate in the movement step
# --- Talon 12 fighters ---
K_FIGHTERS = 40      # 1: fighter squadrons may be in play (Talon 12, option fighters)
K_A_FTR_AP = 41      # actions: a carrier or base spends its AP on a squadron (carrier x squadron x 3, only with fighters)
# --- Talon 16 docking ---
K_DOCKING = 42       # 1: docking and landing (Talon 16, option docking): the DOCK actions exist
K_A_DOCK = 43        # actions: a ship declares docking or landing and makes move m into the hex (ship x 5, only with docking)
# --- Talon 13.2 the launch hex ---
K_A_LAUNCH = 44      # actions: place the missile being launched in the adjacent hex in direction d (6, only with missiles)
# --- scenario victory conditions ---
K_VICTORY = 45       # 1: option victory on, the observation has the victory block
# --- Talon 15.1.3 ---
K_P_WAVE = 46        # the observation plane of wave cannon damage due at the end of the turn (with heavy weapons)
K_RELATIONS = 47     # 1: the observation ends with the relational block (option relations: relations.py)
K_VC = 48            # the ready scenario's conditions (N_VC x N_VCF) and 'otherwise', copied into G_VC.. at reset
N_K = K_VC + N_VC * N_VCF + 1

# class table cls[c, CL_*]
CL_POINTS = 0
CL_EXPLOSION = 1
CL_N_CURVES = 2
CL_START = 3
CL_N_HULL = 4
CL_N_GROUPS = 5
CL_BATTERY = 6
CL_AFTERBURNERS = 7
CL_SHIELD = 8        # 4 columns
CL_PLAYABLE = 12     # 1 if the options on cover the class (heavy_weapons, missiles, bases, fighters)
CL_RACE = 13
CL_N_NAMES = 14
CL_NO_FTL = 15       # 1: no FTL drive, cannot retreat (bases, fighters: Talon 11.1.4)
# --- Talon 14 bases ---
CL_BASE = 16         # 1: a base (Talon 14): does not move, rotates instead, no collision damage with friends
# --- Talon 12 fighters ---
CL_FIGHTER = 17      # 1: a squadron of fighters (Talon 12.1): one hull box per fighter
CL_CARRIER = 18      # 1: may send AP to squadrons (Talon 12.2.1: carriers and bases)
N_CL = 19

# weapon groups grp[c, g, GR_*]
GR_WEAPON = 0
GR_COUNT = 1
GR_ARCS = 2          # bitmask over ARC_*
GR_RED = 3
GR_YELLOW = 4
N_GR = 5

# template tp[p, k, TP_*]
TP_CLASS = 0
TP_NAME = 1
TP_CELL = 2
TP_FACING = 3
TP_ARRIVE = 4        # 0: on the map at the start; n: arrives in the supply phase of round n (Talon 3.2)
N_TP = 5

# -- reasons an action is illegal (texts in game.REASONS) --------------------------
OK = 0
R_GAME_OVER = 1
R_STAGE = 2
R_NO_SHIP = 3
R_NO_AP = 4
R_AP_SPENT = 5
R_SLIP_PLACED = 6
R_NO_TURN_MARKER = 7
R_NO_GROUP = 8
R_BAR_FULL = 9
R_NO_BATTERY = 10
R_BATTERY_CHARGED = 11
R_BATTERY_AP = 12
R_REINF_PLACED = 13
R_REINF_LIMIT = 14
R_SHIELDS_DOWN = 15
R_ARC_DESTROYED = 16
R_NO_REINF = 17
R_NO_MOVE = 18
R_MOVED = 19
R_NO_AFTERBURNER = 20
R_TURN_MARKER = 21
R_HELM_DOWN = 22
R_NO_SLIP = 23
R_MUST_MOVE = 24
R_FIRED = 25
R_NOT_CHARGED = 26
R_NO_TARGET = 27
R_NOT_ENEMY = 28
R_OUT_OF_ARC = 29
R_OUT_OF_RANGE = 30
R_NO_SUCH_SPEED = 31
R_NEGATIVE_POWER = 32
R_POWER_LOSS = 33
R_NOT_PENDING = 34
R_UNPLAYABLE_WEAPON = 35
R_NO_SUCH_ACTION = 36
R_INIT_MARKED = 37
R_BLOCKED = 38          # a planet or black hole is on the line of fire (Talon 17.2.2, 18.1)
R_IN_NEBULA = 39        # shields count as down in a nebula (Talon 17.4.1)
R_NO_FTL = 40           # the FTL drive is not active (Talon 11.1.3, critical 10)
R_FTL_TERRAIN = 41      # no retreat from a nebula or asteroid hex (Talon 11.1.4)
R_NO_PULL = 42          # no such hex for the pull (Talon 18.2)
# --- Talon 13 missiles ---
R_NO_MISSILE = 43       # no such missile in play (of yours to move/retarget, of the enemy to shoot at)
R_MISSILE_MOVED = 44    # the missile has already moved this impulse (13.4)
R_MISSILE_COURSE = 45   # a missile moves to the hex nearest its target; without a target, straight (13.3, 13.4)
R_NO_LAUNCHER = 46      # the ship has no working missile launcher (13.7)
R_SAME_TARGET = 47      # the missile already tracks that ship (13.7)
R_MISSILE_AT_MISSILE = 48  # missiles cannot target missiles; heavy weapons do not either (13.2, RULES.md)
R_NO_MISSILE_SLOT = 49  # every missile counter of the game is in play (option max_missiles, RULES.md)
R_NO_WEAPON_LEFT = 50   # the group has no weapon left to fire (8.3)
# --- Talon 14 bases ---
R_BASE_FIXED = 51       # a base does not move, side slip or afterburn (Talon 14)
# --- Talon 12 fighters ---
R_NOT_CARRIER = 52      # only carriers and bases send AP to fighters (Talon 12.2.1)
R_NOT_SQUADRON = 53     # not a friendly squadron in play (Talon 12.2.2)
R_SQUADRON_POWERED = 54 # one AP per squadron per impulse (Talon 12.2.3)
R_FIGHTER_FAR = 55      # squadron more than 6 hexes away (Talon 12.2.3)
R_FIGHTER_TERRAIN = 56  # asteroids or a nebula in the squadron's or carrier's hex or between (Talon 12.2.3, 17.5)
# --- Talon 16 docking ---
R_NO_DOCK = 57          # nothing to dock at or land on in the hex that move enters (Talon 16.1-16.2)
R_DOCK_SPEED = 58       # a carrier docks or lands only at speed 1 (Talon 16.2)
# --- Talon 13.2 the launch hex ---
R_LAUNCH_HEX = 59       # not an adjacent hex in the group's arcs, on the map and safe for a missile (Talon 13.2)


@kernel(cache=True, inline="always")
def other(p):
    return 1 - p


# ---------------------------------------------------------------------------------
# Views of the state and the config for the rule functions
# ---------------------------------------------------------------------------------
# The rule functions read the state as ``s.sh``/``s.g`` and the config as ``cfg.cls``,
# ``cfg.grp`` ... so they take either the structs or these views (core/structs.py ``view``:
# the struct's arrays, borrowed, behind one pointer).  Callers that ask many of them (the mask,
# stage_has_choice, action_reason) pass the views: a struct argument would cost an atomic
# reference count increment and decrement per call, an array read from a view nothing.
@kernel(cache=True, inline="always")
def state_view(s):
    return view(s)


@kernel(cache=True, inline="always")
def config_view(cfg):
    return view(cfg)
