"""The observation (documented field by field in game.py and RULES.md): ``write_obs`` writes player
p's view, its private cards and the public table, never another player's hidden cards.
"""
from __future__ import annotations

import sys

import numpy as np

from ..core.kernel import kernel
from ..core.structs import local_i32, scratch_i32, scratch_u64
from .layout import (AK_NONE, CARD_WORDS, CD_LOC, CD_WHO, CL_ATK, CL_DEF, CL_DISC, CL_HAND, CL_OUT, CL_RES, CL_SHIP,
                     G_ACTIVE, G_ATK_KIND, G_ATK_SHIP, G_ATTACKS, G_CANCELS, G_DECIDER, G_DECK_N, G_DEF_BITS,
                     G_DEF_FIRE, G_DIE1, G_DIE2, G_DISC_N, G_DMG_LEFT, G_DMG_SHIP, G_DONE, G_DRAWN, G_DUEL, G_FORM_KIND,
                     G_FTR_LOST, G_MOVED, G_PASSES, G_PENDING, G_PICK_PHASE, G_PT_ADD, G_PT_SUB, G_REP_LEFT, G_REP_SHIP,
                     G_ROLL, G_ROUND, G_SDECK_N, G_SEL, G_SHUFFLES, G_SQUADRONS, G_STAGE, G_TARGET, K_ADVANCED, K_HAND,
                     K_NC, K_NS, K_P, K_SHIP_ORDER, MAX_SHIPS, N_CL, N_KIND, N_STAGES, PL_FINAL, PL_HAND, PL_KILLS,
                     PL_OUT, PL_RES, PL_SCORE, PL_TIE, SH_CLOAK, SH_COV, SH_DIS, SH_DOWN, SH_EM, SH_LINE, SH_LOC,
                     SH_OWNER, SH_WEB, SH_WW, SL_DECK, SL_FLEET, SL_POOL, SL_VP, ST_DISC_DEST, ST_DRAW, ST_FORM_DEST,
                     ST_KEEP, ST_LINE_SETUP, ST_LINK, ST_PLACE, ST_PT_MODE, ST_REPAIR_SHIP, ST_SHIP_FOR, ST_UNMARK)
from .players import enemies
from .ships import uses_formation


F_CARD = 8
# write_obs stores a card's 8 features as one little-endian 8-byte word
assert sys.byteorder == "little", "wargym's Battle Force observation assumes a little-endian machine"
F_SHIP = 31          # a ship's row; battle_force_v0 (option ship_order=False) has the first 30
F_PLAYER = 12
MAX_P = 6
MAX_P_AND_NOBODY = MAX_P + 1   # per-owner counts, index owner + 1 (owner -1: nobody)
N_GLOBAL = N_STAGES + 32


@kernel(cache=True, inline="always")
def clip8(x):
    return min(max(x, -128), 127)


# The card features each card location CL_* (CL_OUT, CL_DECK, CL_DISC, CL_HAND, CL_RES, CL_ATK,
# CL_DEF, CL_SHIP) sets, as bit fields in integer constants: the feature slot (4 bits per
# location; the deck's slot is written with 0), the locations everyone sees and those only the
# holder sees.  Card locations look random to the branch predictor, so a chain of branches
# here mispredicted on most cards (and Numba reads a global array as a new constant array at
# each access, which cost more still): this was most of the observation's time.
CARD_SLOT_BITS = sum(slot << (4 * loc) for loc, slot in enumerate((7, 0, 2, 0, 1, 4, 5, 6)))
CARD_PUBLIC_BITS = sum(1 << loc for loc in (CL_OUT, CL_DISC, CL_ATK, CL_DEF, CL_SHIP))
CARD_PRIVATE_BITS = (1 << CL_HAND) | (1 << CL_RES)


@kernel(cache=True, inline="always")
def ship_row_width(k):
    """A ship's row in the observation, from the config's ints ``k``: F_SHIP, or its first 30
    values in battle_force_v0 (option ship_order=False).  game.py reads it through ``py_func``."""
    return F_SHIP if k[K_SHIP_ORDER] else F_SHIP - 1


@kernel(cache=True)
def orders_in_lines(s, cfg, b, p, seen, n_seen, order):
    """Where each fleet ship player p sees stands in its line among the ships of its side as p
    sees them (p's own and allied ships, or p's enemies'), in the order they came into play: 1 for
    the first (lowest ``pos``), counted over the ships p sees; written to ``order[ship]``.  The order
    ships come into play is public; the solitaire automaton (SFBF Gioco in solitario) and the
    heuristic bot attack "the first" enemy ship of the screen by it, whichever enemy owns it, so a
    learner needs it to read who is targeted first.
    Each ship's line and side are read once (a small int key), so the pairwise count compares ints
    of a few fleet ships only: reading the side per pair made the observation 2x slower at 4 players."""
    ships = scratch_i32(MAX_SHIPS)
    key = scratch_i32(MAX_SHIPS)
    when = scratch_i32(MAX_SHIPS)
    n = 0
    for k in range(n_seen):
        i = seen[k]
        if s.sh[b, i, SH_LOC] == SL_FLEET:
            ships[n] = i
            key[n] = 2 * (s.sh[b, i, SH_LINE] + 1) + enemies(s, cfg, b, p, s.sh[b, i, SH_OWNER])
            when[n] = s.pos[b, i]
            n += 1
    for x in range(n):
        before = 1
        for y in range(n):
            before += (key[y] == key[x]) & (when[y] < when[x])
        order[ships[x]] = before


@kernel(cache=True)
def write_obs(s, cfg, b, p, obs):
    """Player p's view: own hand and reserve, the table, public ship cards; other hands, the
    decks and face-down reserve ships stay hidden (SFBF Preparazione: hand contents are secret,
    hand counts are not; Navi di Riserva: undamaged reserve ships lie face down)."""
    # (each read of a struct field is a call: the arrays are taken out once)
    g, cd, sh, pl = s.g, s.cd, s.sh, s.pl
    NC = cfg.k[K_NC]
    NS = cfg.k[K_NS]
    P = cfg.k[K_P]
    o = NC * F_CARD
    obs[o:] = 0
    # a card's F_CARD = 8 features are one 8-byte word (little-endian: feature j is byte j),
    # written whole: one store per card and no clearing first.  The word of a card in location
    # loc, as a holder (odd index) and as anyone else (even index), comes from a table made once
    card_word = scratch_u64(CARD_WORDS)
    for loc in range(N_CL):
        slot_bit = np.uint64(1) << np.uint64(8 * ((CARD_SLOT_BITS >> (4 * loc)) & 15))
        public = (CARD_PUBLIC_BITS >> loc) & 1
        private = (CARD_PRIVATE_BITS >> loc) & 1
        card_word[2 * loc] = slot_bit if public else np.uint64(0)
        card_word[2 * loc + 1] = slot_bit if (public | private) else np.uint64(0)
    card_words = obs[:o].view(np.uint64)
    for c in range(NC):
        card_words[c] = card_word[2 * cd[b, c, CD_LOC] + (cd[b, c, CD_WHO] == p)]
    nd = g[b, G_DISC_N]
    if nd > 0:
        top = s.disc[b, nd - 1]
        obs[top * F_CARD + 3] = cd[b, top, CD_LOC] == CL_DISC
    st = g[b, G_STAGE]
    setup = st < ST_DRAW
    attacker = g[b, G_ATK_SHIP] if g[b, G_ATK_KIND] != AK_NONE else -1
    target = g[b, G_TARGET]
    selected = -1            # the ship a formation, set-up, repair or damage choice is about
    if st == ST_FORM_DEST or st == ST_LINE_SETUP:
        selected = g[b, G_SEL]
    elif st == ST_UNMARK:
        selected = g[b, G_REP_SHIP]
    elif st == ST_PLACE:
        selected = g[b, G_DMG_SHIP]
    # ships in each player's fleet and how many of them lie face down (index owner + 1, so that
    # a ship without an owner counts in column 0), and the ships this player sees, listed without
    # branches: which ships are hidden looks random to the branch predictor
    fleet = local_i32(MAX_P_AND_NOBODY)
    down = local_i32(MAX_P_AND_NOBODY)
    seen = scratch_i32(MAX_SHIPS)
    n_seen = 0
    fs = ship_row_width(cfg.k)
    for i in range(NS):
        loc = sh[b, i, SH_LOC]
        owner = sh[b, i, SH_OWNER]
        in_fleet_ = loc == SL_FLEET
        is_down = sh[b, i, SH_DOWN] != 0
        fleet[owner + 1] += in_fleet_
        down[owner + 1] += in_fleet_ & is_down
        hidden = (loc == SL_DECK) | (in_fleet_ & (owner != p) & is_down)
        obs[o + i * fs + 8] = hidden      # unknown to this player
        seen[n_seen] = i
        n_seen += not hidden
    order = scratch_i32(MAX_SHIPS)
    if fs == F_SHIP:
        orders_in_lines(s, cfg, b, p, seen, n_seen, order)
    for j in range(n_seen):
        i = seen[j]
        base = o + i * fs
        loc = sh[b, i, SH_LOC]
        owner = sh[b, i, SH_OWNER]
        rel = owner - p          # the owner's seat counted from the viewer's
        rel += P if rel < 0 else 0
        if loc == SL_FLEET:
            obs[base + rel] = 1
            line = sh[b, i, SH_LINE]
            if line >= 0 and not (setup and owner != p):
                obs[base + 7] = line + 1
        elif loc == SL_VP:
            obs[base + 6] = rel + 1
        else:
            obs[base + 9] = 1 if loc == SL_POOL else 2
        obs[base + 10] = sh[b, i, SH_CLOAK]
        obs[base + 11] = sh[b, i, SH_WEB]
        obs[base + 12] = sh[b, i, SH_EM] != 0
        obs[base + 13] = sh[b, i, SH_WW] != 0
        obs[base + 14] = sh[b, i, SH_DIS] != 0
        for k in range(N_KIND):
            obs[base + 15 + k] = sh[b, i, SH_COV + k]
        obs[base + 27] = i == attacker
        obs[base + 28] = i == target
        obs[base + 29] = i == selected
        if fs == F_SHIP and loc == SL_FLEET:
            obs[base + 30] = clip8(order[i])
    o += NS * fs
    for r in range(P):
        q = p + r
        q -= P if q >= P else 0
        base = o + r * F_PLAYER
        obs[base] = clip8(pl[b, q, PL_HAND])
        obs[base + 1] = clip8(pl[b, q, PL_RES])
        obs[base + 2] = down[q + 1]
        obs[base + 3] = fleet[q + 1]
        sc = pl[b, q, PL_FINAL] if g[b, G_DONE] else pl[b, q, PL_SCORE]
        obs[base + 4] = sc % 128
        obs[base + 5] = sc // 128
        obs[base + 6] = clip8(pl[b, q, PL_KILLS])
        obs[base + 7] = 1 if g[b, G_ACTIVE] == q else 0
        obs[base + 8] = 1 if g[b, G_DECIDER] == q else 0
        obs[base + 9] = 1 if not enemies(s, cfg, b, p, q) else 0
        obs[base + 10] = pl[b, q, PL_OUT]
        obs[base + 11] = clip8(pl[b, q, PL_TIE])
    o += MAX_P * F_PLAYER
    st = g[b, G_STAGE]
    obs[o + st] = 1
    go = o + N_STAGES    # the game-wide features
    obs[go] = g[b, G_ATK_KIND]
    obs[go + 1] = g[b, G_SQUADRONS]
    obs[go + 2] = clip8(g[b, G_DEF_FIRE])
    obs[go + 3] = clip8(g[b, G_ROLL])
    obs[go + 4] = g[b, G_DIE1]
    obs[go + 5] = g[b, G_DIE2]
    obs[go + 6] = clip8(g[b, G_PT_ADD])
    obs[go + 7] = clip8(g[b, G_PT_SUB])
    obs[go + 8] = g[b, G_CANCELS]
    obs[go + 9] = g[b, G_DEF_BITS]
    obs[go + 10] = clip8(g[b, G_DMG_LEFT])
    obs[go + 11] = clip8(g[b, G_REP_LEFT] if st == ST_UNMARK else 0)
    obs[go + 12] = clip8(g[b, G_DECK_N])
    obs[go + 13] = clip8(g[b, G_DISC_N])
    obs[go + 14] = clip8(g[b, G_SDECK_N])
    obs[go + 15] = clip8(g[b, G_SHUFFLES])
    obs[go + 16] = clip8(g[b, G_ROUND])
    obs[go + 17] = p
    obs[go + 18] = P
    obs[go + 19] = g[b, G_MOVED]
    obs[go + 20] = g[b, G_ATTACKS]
    pend = g[b, G_PENDING]
    shown = pend >= 0 and (st == ST_LINK or st == ST_SHIP_FOR or st == ST_PT_MODE or st == ST_DISC_DEST
                           or st == ST_REPAIR_SHIP)
    if shown and g[b, G_DECIDER] != p:
        ploc = cd[b, pend, CD_LOC]
        shown = ploc != CL_HAND and ploc != CL_RES     # a card still in a hand stays secret
    obs[go + 21] = clip8(pend + 1 if shown else 0)
    obs[go + 22] = cfg.k[K_ADVANCED]
    obs[go + 23] = 1 if uses_formation(cfg) else 0
    obs[go + 24] = g[b, G_FORM_KIND]
    obs[go + 25] = g[b, G_PASSES]
    obs[go + 26] = g[b, G_PICK_PHASE]
    obs[go + 27] = g[b, G_DUEL]
    dr = g[b, G_DRAWN]
    obs[go + 28] = clip8(dr + 1 if (st == ST_KEEP and g[b, G_DECIDER] == p and dr >= 0) else 0)
    obs[go + 29] = cfg.k[K_HAND]
    obs[go + 30] = 1 if g[b, G_DECIDER] == p else 0
    obs[go + 31] = clip8(g[b, G_FTR_LOST])
