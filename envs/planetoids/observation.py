"""The observation planes (RULES.md §12.4) and ``obs_key``, the record that lets a step rewrite
only the entries that changed.
"""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from ..core.structs import scratch_i32
from .layout import (BASE, CRUISER, C_BLOCKED, EXIT_FACE, FX_HITS, FX_OWNER, G_ACTIVE, G_DECIDER, G_EXIT_CELL,
                     G_LAUNCHED, G_LAUNCH_COUNT, G_PHASE, G_SHOTS, G_STEPS, G_TURN, HYPER, K_RELATIONS, K_SHIP_LENGTH,
                     N_C, N_OBS_CH, N_STATIC_OBS, ON_MAP, PC_ACTIVATED, PC_DAMAGE, PC_FACING, PC_POS, PC_REPAIRED,
                     PC_STATUS, PL_CELL, RESERVE, TRANSPORT, config_view, state_view)
from .action_table import write_action_table


@kernel(cache=True, forceinline=False)
def write_obs(s, cfg, b, me, obs):
    """Observation planes of game ``b`` from player ``me``'s side, all written;
    channel list in ``game.OBS_CHANNELS`` (documented in RULES.md, "Observation")."""
    _obs(state_view(s), config_view(cfg), b, me, obs, np.zeros(OBS_KEY_LEN, np.int32))

# What obs_key records of a buffer (see VecGame.obs_key): whether the row is
# known, the viewer of the static planes, the colours of planes 7 and 8, the
# value of each scalar plane, and the nonzero entries of the sparse planes 9-25.
# Writing the ~9 KB of planes was two thirds to three quarters of a batched step
# once the buffers of 4096 games outgrow the caches, and a step changes few
# entries: the rest are compared here and left alone.
KEY_KNOWN = 0
KEY_VIEWER = 1
KEY_COLOUR = 2
KEY_NEXT_COLOUR = 3
KEY_SCALARS = 4      # + (channel - FIRST_SCALAR_CH)
FIRST_SCALAR_CH = 26
# scratch, not a record: the counts of the 12 counter planes (channels 32-43)
# while they are tallied, so an unchanged count leaves its plane untouched
KEY_TALLIES = KEY_SCALARS + N_OBS_CH - FIRST_SCALAR_CH
FIRST_TALLY_CH = 32
N_TALLIES = 12
# the pieces on the map as the observation last showed them, one signature per
# player and slot (0: not on the map), so that only the pieces that changed are
# taken off planes 10-21 and 24 and put back; then the hexes of plane 25
MAX_SLOTS = 128  # pieces per player; game.py refuses larger reserves
KEY_PIECES = KEY_TALLIES + N_TALLIES  # + MAX_SLOTS * player + slot
KEY_N_ACTIVE = KEY_PIECES + 2 * MAX_SLOTS
KEY_ACTIVE = KEY_N_ACTIVE + 1
MAX_ACTIVE = 4  # the active piece's hexes and the exit hex
OBS_KEY_LEN = KEY_ACTIVE + MAX_ACTIVE


@kernel(cache=True, inline="always")
def piece_signature(pos, face, dmg, done):
    """What planes 10-21 and 24 show of a piece on the map, in one nonzero int32."""
    return ((pos + 1) << 12) | (face << 9) | ((dmg & 127) << 2) | (done << 1) | 1


@kernel(cache=True, forceinline=True)
def _piece_planes(obs, cfg, p, side, kind, sig, sign):
    """Add (sign=1) or take off (sign=-1) the piece with signature ``sig`` on
    planes 10-17 (count by side and kind), 20-21 (damage) and 24 (done)."""
    pos = (sig >> 12) - 1
    face = (sig >> 9) & 7
    dmg = (sig >> 2) & 127
    done = (sig >> 1) & 1
    nbr, bfd = cfg.nbr, cfg.base_fp_dirs
    ship2 = cfg.k[K_SHIP_LENGTH] == 2
    # the piece's hexes (fp_size / fp_cell, see build_occupancy)
    n = 1 + bfd.shape[1] if kind == BASE else (2 if ship2 and (kind == CRUISER or kind == TRANSPORT) else 1)
    for kk in range(n):
        if kk == 0 or pos < 0:
            c = pos
        elif kind == BASE:
            c = nbr[pos, bfd[p, kk - 1]]
        else:
            c = nbr[pos, (face + 3) % 6]
        obs[10 + 4 * side + kind, c] += sign
        obs[20 + side, c] += sign * dmg
        if done:
            obs[24, c] += sign


@kernel(cache=True, forceinline=True)
def _face_planes(s, cfg, b, me, obs, side, pos):
    """Planes 18-19 at ``pos``: the facing (+1) of the side's last ship there, or 0."""
    pc, slot_kind = s.pc, cfg.slot_kind
    p = me if side == 0 else 1 - me
    v = 0
    for i in range(slot_kind.shape[0]):
        kind = slot_kind[i]
        if ((kind == CRUISER or kind == TRANSPORT) and pc[b, p, i, PC_STATUS] == ON_MAP
                and pc[b, p, i, PC_POS] == pos):
            v = pc[b, p, i, PC_FACING] + 1
    obs[18 + side, pos] = v


@kernel(cache=True, forceinline=True)
def _obs(s, cfg, b, me, obs, key):
    """write_obs on views.  Planes 0-8 and the scalar planes are rewritten only
    when ``key`` says they hold something else, and on planes 10-25 only the
    pieces that changed (``key`` is brought up to date)."""
    g, pc, fx = s.g, s.pc, s.fx
    en = 1 - me
    cs = cfg.colour_seq
    turn = g[b, G_TURN]
    colour = cs[min(turn, cs.shape[0] - 1)]
    nxt = cs[min(turn + 1, cs.shape[0] - 1)]
    N = obs.shape[1]
    known = key[KEY_KNOWN] != 0
    same_viewer = known and key[KEY_VIEWER] == me
    # channels 0-6 never change: copied from the per-viewer template; 7-8 by colour
    static_obs, visible_obs = cfg.static_obs, cfg.visible_obs
    if not same_viewer:
        for ch in range(N_STATIC_OBS):
            for c in range(N):
                obs[ch, c] = static_obs[me, ch, c]
        key[KEY_VIEWER] = me
    if not (known and key[KEY_COLOUR] == colour):
        for c in range(N):
            obs[7, c] = visible_obs[colour, c]
        key[KEY_COLOUR] = colour
    if not (known and key[KEY_NEXT_COLOUR] == nxt):
        for c in range(N):
            obs[8, c] = visible_obs[nxt, c]
        key[KEY_NEXT_COLOUR] = nxt
    cb = s.cells[b].reshape(-1)  # flat: hex c's column C_x at N_C * c + C_x
    for c in range(N):
        bl = cb[N_C * c + C_BLOCKED]
        obs[9, c] = 0 if bl < 0 else (1 if bl == me else 2)
    if not same_viewer:  # every piece changes side: planes 10-25 start afresh
        for ch in range(10, 26):
            for c in range(N):
                obs[ch, c] = 0
        for x in range(2 * MAX_SLOTS + 1):
            key[KEY_PIECES + x] = 0  # no piece shown, no active hex
    for j in range(N_TALLIES):
        key[KEY_TALLIES + j] = 0  # the counter planes' values, counted here
    planetoids = cfg.planetoids
    score_me = 0
    score_en = 0
    for f in range(planetoids.shape[0]):
        o = fx[b, f, FX_OWNER]
        c = planetoids[f, PL_CELL]
        obs[22, c] = fx[b, f, FX_HITS] + 1 if o == me else 0
        obs[23, c] = fx[b, f, FX_HITS] + 1 if o == en else 0
        # Seed 004 "Punteggio": 4 points per fixed base, minus 1 per hit it took (as score())
        if o == me:
            score_me += 4 - fx[b, f, FX_HITS]
        if o == en:
            score_en += 4 - fx[b, f, FX_HITS]
    slot_kind = cfg.slot_kind
    faces_at = scratch_i32(8)  # side * N + hex where a ship came or went: planes 18-19 to redo
    n_faces = 0
    for side in range(2):
        p = me if side == 0 else en
        for i in range(slot_kind.shape[0]):
            st = pc[b, p, i, PC_STATUS]
            kind = slot_kind[i]
            if st == HYPER:
                key[KEY_TALLIES + 6 + 3 * side + kind - 1] += 1
            elif st == RESERVE and kind != BASE:
                key[KEY_TALLIES + 3 * side + kind - 1] += 1
            sig = 0
            if st == ON_MAP:
                done = side == 0 and (pc[b, p, i, PC_ACTIVATED] != 0 or pc[b, p, i, PC_REPAIRED] != 0)
                sig = piece_signature(pc[b, p, i, PC_POS], pc[b, p, i, PC_FACING], pc[b, p, i, PC_DAMAGE], done)
            old = key[KEY_PIECES + MAX_SLOTS * p + i]
            if sig == old:
                continue
            if old != 0:
                _piece_planes(obs, cfg, p, side, kind, old, -1)
            if sig != 0:
                _piece_planes(obs, cfg, p, side, kind, sig, 1)
            key[KEY_PIECES + MAX_SLOTS * p + i] = sig
            if kind == CRUISER or kind == TRANSPORT:
                for k in range(2):
                    x = old if k == 0 else sig
                    if x != 0:
                        if n_faces < faces_at.shape[0]:
                            faces_at[n_faces] = side * N + (x >> 12) - 1
                        n_faces += 1
    if n_faces > faces_at.shape[0]:  # many ships changed: planes 18-19 anew, the last ship on a hex wins
        for side in range(2):
            p = me if side == 0 else en
            for c in range(N):
                obs[18 + side, c] = 0
            for i in range(slot_kind.shape[0]):
                kind = slot_kind[i]
                if (kind == CRUISER or kind == TRANSPORT) and pc[b, p, i, PC_STATUS] == ON_MAP:
                    obs[18 + side, pc[b, p, i, PC_POS]] = pc[b, p, i, PC_FACING] + 1
    else:
        for j in range(n_faces):
            _face_planes(s, cfg, b, me, obs, faces_at[j] // N, faces_at[j] % N)
    # plane 25: the active piece's hexes (2 on its bow or anchor), 3 on the exit hex
    for j in range(key[KEY_N_ACTIVE]):
        obs[25, key[KEY_ACTIVE + j]] = 0
    n_active = 0
    active = g[b, G_ACTIVE] if g[b, G_DECIDER] == me else -1
    if active >= 0 and pc[b, me, active, PC_STATUS] == ON_MAP:
        kind = slot_kind[active]
        pos = pc[b, me, active, PC_POS]
        face = pc[b, me, active, PC_FACING]
        bfd = cfg.base_fp_dirs
        two = cfg.k[K_SHIP_LENGTH] == 2 and (kind == CRUISER or kind == TRANSPORT)
        for kk in range(1 + bfd.shape[1] if kind == BASE else (2 if two else 1)):
            if kk == 0 or pos < 0:
                c = pos
            elif kind == BASE:
                c = cfg.nbr[pos, bfd[me, kk - 1]]
            else:
                c = cfg.nbr[pos, (face + 3) % 6]
            obs[25, c] = 1
            key[KEY_ACTIVE + n_active] = c
            n_active += 1
        obs[25, pos] = 2
    if g[b, G_PHASE] == EXIT_FACE and g[b, G_DECIDER] == me:
        obs[25, g[b, G_EXIT_CELL]] = 3
        key[KEY_ACTIVE + n_active] = g[b, G_EXIT_CELL]
        n_active += 1
    key[KEY_N_ACTIVE] = n_active
    # scalar channels: the value fills the whole plane
    for ch in range(FIRST_SCALAR_CH, N_OBS_CH):
        if ch == 26:
            v = turn
        elif ch == 27:
            v = g[b, G_PHASE]
        elif ch == 28:
            v = g[b, G_STEPS]
        elif ch == 29:
            v = g[b, G_SHOTS]
        elif ch == 30:
            v = g[b, G_LAUNCHED] + 1
        elif ch == 31:
            v = g[b, G_LAUNCH_COUNT]
        elif ch < 44:
            v = key[KEY_TALLIES + ch - FIRST_TALLY_CH]  # the counters above
        elif ch == 44:
            v = score_me
        elif ch == 45:
            v = score_en
        else:
            v = me
        v8 = np.int8(v)
        if known and key[KEY_SCALARS + ch - FIRST_SCALAR_CH] == v8:
            continue
        for c in range(N):
            obs[ch, c] = v8
        key[KEY_SCALARS + ch - FIRST_SCALAR_CH] = v8
    key[KEY_KNOWN] = 1
    if cfg.k[K_RELATIONS]:
        write_action_table(s, cfg, b, me, obs)
