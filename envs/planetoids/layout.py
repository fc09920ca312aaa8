"""Planetoids' layout (RULES.md §12): piece kinds and status, phases, terrain, the named columns of
the state and config arrays, the reason codes an action is refused with (texts in game.REASONS), and the
views the kernels work on.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import view

# -- piece kinds and piece status ------------------------------------------
BASE, CRUISER, TRANSPORT, FIGHTER, FIXED = 0, 1, 2, 3, 4
KIND_NAMES = ("mobile base", "cruiser", "transport", "fighter", "fixed base")
RESERVE, ON_MAP, HYPER, DESTROYED = 0, 1, 2, 3

# -- phases of a decision ----------------------------------------------------
SETUP, SELECT, ACT, EXIT_HEX, EXIT_FACE, OVER = 0, 1, 2, 3, 4, 5
PHASE_NAMES = ("setup", "select", "act", "exit-hex", "exit-facing", "over")

# -- terrain codes -------------------------------------------------------------
SPACE, ASTEROID, PLANET = 0, 1, 2

# -- packed layouts (named columns of the state and config arrays) ----------
# per-game scalars: s.g[b, G_*]
(G_TURN, G_DECIDER, G_PHASE, G_SETUP_COUNT, G_ACTIVE, G_STEPS, G_SHOTS, G_MOVE_DONE, G_NO_FIRE, G_LAUNCHED,
 G_LAUNCH_COUNT, G_EXIT_CELL, G_DECISIONS, G_DONE, G_LAST_DIE, G_COLONISED, G_SPACE_SHOTS) = range(17)
N_G = 17  # G_SPACE_SHOTS: shots into space by the active piece this activation
# per piece: s.pc[b, player, slot, PC_*]
(PC_STATUS, PC_POS, PC_FACING, PC_DAMAGE, PC_REPAIR_PROGRESS, PC_ACTIVATED, PC_REPAIRED, PC_SHOT) = range(8)
N_PC = 8
# per fixed-base site (planetoid): s.fx[b, f, FX_*]
FX_OWNER, FX_HITS, FX_SHOT = range(3)
N_FX = 3
# per hex: s.cells[b, cell, C_*]  (C_OCC, C_OCC + 1: occupancy by player, rebuilt before each decision)
C_BLOCKED, C_SHOT, C_OCC, C_OCC1, C_DEAD = range(5)
N_C = 5
# config scalars: cfg.k[K_*]
(K_ROWS, K_COLS, K_SHIP_LENGTH, K_KEEP_AWAY_ALL, K_FIXED_SETUP, K_REWARD_SCORE, K_MAX_DECISIONS,
 K_A_PIECE, K_A_TARGET, K_A_FIXED, K_A_HEX, K_A_MOVE, K_A_FACE, K_A_HYPER, K_A_LAUNCH, K_A_COLONISE,
 K_A_REPAIR, K_A_END_ACT, K_A_END_TURN, K_N_ACTIONS, K_BASE_SPACE_EACH_HEX, K_RELATIONS) = range(22)
N_K = 22  # K_BASE_SPACE_EACH_HEX: option base_space_shots="each_hex" (RULES.md §3, mobile base);
#           K_RELATIONS: option relations: the action table after channel 46 (0 none, 1 planetoids_v1's, 2 v2's)
# static per-hex map data: cfg.cell[cell, CI_*]
(CI_VALID, CI_TERRAIN, CI_HOME_OWNER, CI_RAMP_OWNER, CI_PLANETOID, CI_PDIST_ALL, CI_HOME_DIST, CI_HOME_DIST1,
 CI_PDIST_COLOUR) = range(9)
N_CI = 12  # CI_PDIST_COLOUR + colour for the 3 colours
# per piece kind: cfg.kinds[kind, KP_*]
KP_MAX_STEPS, KP_SHOTS, KP_KEEP_AWAY = range(3)
# per planetoid: cfg.planetoids[f, PL_*]; per ramp: cfg.ramps[player, ramp, (cell, direction)]
PL_CELL, PL_COLOUR = range(2)
# observation channels 0..N_STATIC_OBS-1 depend only on the map and the viewer (cfg.static_obs)
N_STATIC_OBS = 7

HYPER_CORRIDOR = 9  # Seed 004 "Iperspazio": a clear straight corridor of 9 hexes
MAX_CELLS = 1024  # the stack scratch of exit_hexes; game.py refuses larger maps
MAX_HITS = 4        # Seed 004 "Combattimento": bases, cruisers, transports take 4 hits, the 5th destroys

# -- reasons an action is illegal (index into game.REASONS) -------------------
OK = 0
R_GAME_OVER = 1
R_WRONG_PHASE = 2
R_NOT_YOURS = 3
R_PIECE_UNAVAILABLE = 4
R_ALREADY_ACTIVATED = 5
R_UNDER_REPAIR = 6
R_NO_EXIT = 7
R_NO_RESERVE = 8
R_LAUNCH_LIMIT = 9
R_PLACEMENT = 10
R_MOVE_DONE = 11
R_MOVE_LIMIT = 12
R_NOT_FORWARD = 13
R_OFF_MAP = 14
R_IMPASSABLE = 15
R_ENEMY_HEX = 16
R_BLOCKED_HEX = 17
R_TOO_CLOSE = 18
R_CANNOT_PIVOT = 19
R_SAME_FACING = 20
R_NO_SHOTS = 21
R_NOT_TARGETABLE = 22
R_OUT_OF_RANGE = 23
R_ALREADY_SHOT = 24
R_FIGHTER_FIXED_RANGE = 25
R_HEX_NOT_EMPTY = 26
R_NO_FIRE_HYPER = 27
R_DAMAGED = 28
R_CORRIDOR = 29
R_NOT_TRANSPORT = 30
R_NO_PLANETOID = 31
R_COLONISED = 32
R_NOT_BASE = 33
R_HAS_MOVED = 34
R_NOTHING_TO_REPAIR = 35
R_NOT_NEAR_HOME = 36
R_FIRED = 37
R_BASE_NO_HYPER = 38
R_COLONISED_THIS_MOVE = 39
R_NO_SUCH_ACTION = 40
R_BASE_ONE_SPACE_SHOT = 41

# The kernels read the state, config and outputs through views (core/structs.py ``view``): the
# struct's arrays, borrowed, behind one pointer.  Rules functions are written against
# ``s.field`` / ``cfg.field`` and accept a struct or a view alike.
STATE_FIELDS = ("rng", "policy_rng", "dice_script", "dice", "g", "pc", "fx", "cells")
CONFIG_FIELDS = ("k", "nbr", "dist", "fire_dist", "cell", "kinds", "planetoids", "ramps", "colour_seq",
                 "slot_kind", "hit_table", "base_fp_dirs", "start_cells", "static_obs", "visible_obs", "stand",
                 "open_hex", "lines")
# the observation's planes before the action table (observation.py, RULES.md §12.4)
N_OBS_CH = 47


@kernel(cache=True, inline="always")
def state_view(s):
    return view(s)


@kernel(cache=True, inline="always")
def config_view(c):
    return view(c)


@kernel(cache=True, inline="always")
def outputs_view(o):
    return view(o)
