"""Battle Force: every field of a state from outside checked against the ranges and cross-field
invariants the kernels rely on (``envs/core/validate.py`` says why and how): each column in its
range, every card index within the deck, and each card and ship in exactly one stack or place."""
from __future__ import annotations

import numpy as np

from ..core.validate import Columns, check_dice, check_range
from . import rules as R

INT32_MAX = 2 ** 31 - 1
INT8_MAX = 127
G = Columns.of("g", R, "G_", R.N_G)
CD = Columns.of("cd", R, "CD_", R.N_CD)
SH = Columns.of("sh", R, "SH_", R.SH_COV)
PL = Columns.of("pl", R, "PL_", R.N_PL)


def validate_state(cfg, state) -> None:
    """Reject a state whose values no rule can produce (a corrupt or forged save)."""
    check_dice(state)
    NC, NS, P = (int(cfg.k[x]) for x in (R.K_NC, R.K_NS, R.K_P))
    _check_scalars(state.g, NC, NS, P)
    _check_cards(state.cd, NC, NS, P)
    _check_ships(state.sh, cfg, NC, P)
    check_range(state.pos, 0, INT32_MAX, "pos")
    PL.check(state.pl, {
        R.PL_SCORE: (-INT32_MAX, INT32_MAX), R.PL_KILLS: (0, NS), R.PL_HAND: (0, NC), R.PL_RES: (0, NC),
        R.PL_TEAM: (0, P - 1), R.PL_ORDER: (0, P - 1), R.PL_RACE: (-1, INT8_MAX), R.PL_OUT: (0, 1),
        R.PL_PASSED: (0, 1), R.PL_TIE: (-INT32_MAX, INT32_MAX), R.PL_FINAL: (-INT32_MAX, INT32_MAX),
        R.PL_RANK: (0, P), R.PL_WIN: (0, 1)})
    for b in range(state.batch_size):
        _check_stacks(state, b, NC, NS, P)


def _check_scalars(g, NC: int, NS: int, P: int) -> None:
    card, ship, player, stage = (-1, NC - 1), (-1, NS - 1), (-1, P - 1), (0, R.N_STAGES - 1)
    small = (0, 1000)
    G.check(g, {
        R.G_STAGE: stage, R.G_DECIDER: (0, P - 1), R.G_ACTIVE: (0, P - 1), R.G_DONE: (0, 1),
        R.G_TURN: (0, INT32_MAX), R.G_ROUND: (0, INT32_MAX), R.G_DECISIONS: (0, INT32_MAX),
        R.G_SHUFFLES: (0, INT32_MAX), R.G_DECK_N: (0, NC), R.G_DISC_N: (0, NC), R.G_SDECK_N: (0, NS),
        R.G_REPAIRED: (0, 1), R.G_CDC: (0, 1), R.G_CDC_NEXT: (-1, NS), R.G_MOVED: (0, NS), R.G_FORM_KIND: (0, 2),
        R.G_FORM_MOVES: small, R.G_SEL: ship, R.G_ATK_KIND: (R.AK_NONE, R.AK_MUTINY),
        R.G_ATK_SHIP: ship, R.G_TARGET: ship, R.G_DEFENDER: player, R.G_ATTACKS: small,
        R.G_FIRST_ATTACKER: ship, R.G_SQUADRONS: small, R.G_DEF_FIRE: small, R.G_ROLL: small, R.G_PT_ADD: small,
        R.G_CANCELS: (0, 15), R.G_PASSES: (0, P), R.G_PENDING: card, R.G_RETURN: stage, R.G_DMG_LEFT: small,
        R.G_DMG_SHIP: ship, R.G_DMG_BY: player, R.G_ORDER_KIND: (0, 2), R.G_REP_LEFT: small, R.G_REP_SHIP: ship,
        R.G_SETUP_P: player, R.G_SETUP_LEFT: (0, NS), R.G_DRAWN: card, R.G_DREW_DISCARD: (0, 1),
        R.G_PF_FIRER: ship, R.G_PF_SHOTS: small, R.G_PF_LEFT: small, R.G_REDRAW_N: (0, NC), R.G_SEQ: (0, INT8_MAX),
        R.G_POS: (0, INT32_MAX), R.G_END_AT_TURN_END: (0, 1), R.G_ENDED: (0, 1), R.G_DUEL: (0, 1), R.G_TRUNC: (0, 1),
        R.G_NO_MORE_ATTACKS: (0, 1), R.G_PICK_PHASE: (0, 2), R.G_DIE1: (0, 6), R.G_DIE2: (0, 6),
        R.G_FTR_LOST: small, R.G_DEF_BITS: (0, 7), R.G_HELPER: (-1, max(NS, P) - 1), R.G_PT_SUB: small,
        R.G_CEASE_LEFT: small, R.G_LAST_ROLL: (0, 12), R.G_TABLE_N: (0, NC)})
    # the ship being placed or moved (G_SEL is only ever a ship: the bounds-checked forged-save fuzz found
    # a card-sized value accepted, then read as a ship index out of bounds) is one while those stages last
    selecting = np.isin(g[:, R.G_STAGE], (R.ST_FORM_DEST, R.ST_LINE_SETUP))
    check_range(g[:, R.G_SEL], 0, NS - 1, "g[G_SEL] while a ship is being placed or moved", selecting)


def _check_cards(cd, NC: int, NS: int, P: int) -> None:
    CD.check(cd, {R.CD_LOC: (R.CL_OUT, R.CL_SHIP), R.CD_WHO: (-1, max(NS, P) - 1), R.CD_LINK: (-1, NC - 1),
                  R.CD_OFF: (0, 3), R.CD_SHIP: (-1, NS - 1), R.CD_SEQ: (0, INT8_MAX), R.CD_MODE: (0, 3)})
    loc, who = cd[..., R.CD_LOC], cd[..., R.CD_WHO]
    check_range(who, 0, P - 1, "cd[CD_WHO] of a card in a hand or reserve", (loc == R.CL_HAND) | (loc == R.CL_RES))
    check_range(who, 0, NS - 1, "cd[CD_WHO] of a card on a ship", loc == R.CL_SHIP)


def _check_ships(sh, cfg, NC: int, P: int) -> None:
    SH.check(sh, {R.SH_LOC: (R.SL_OUT, R.SL_VP), R.SH_OWNER: (-1, P - 1), R.SH_LINE: (-1, 9), R.SH_DOWN: (0, 1),
                  R.SH_CLOAK: (0, 1), R.SH_WEB: (0, 1), R.SH_EM: (0, NC), R.SH_WW: (0, NC), R.SH_DIS: (0, NC),
                  R.SH_SHOTS: (0, 1000)})
    cov = sh[..., R.SH_COV:R.SH_COV + R.N_KIND]
    check_range(cov, 0, cfg.ship[None, :, R.SC_N:R.SC_N + R.N_KIND], "sh[SH_COV + kind] (damage markers)")
    fleet = sh[..., R.SH_LOC] == R.SL_FLEET
    check_range(sh[..., R.SH_OWNER], 0, P - 1, "sh[SH_OWNER] of a ship in a fleet", fleet)


def _check_stacks(state, b: int, NC: int, NS: int, P: int) -> None:
    """The deck, the discard pile and the ship deck hold valid indices, each card once, and exactly
    the cards (ships) whose location says so; each hand count is the cards in that hand."""
    g, cd, sh, pl = state.g[b], state.cd[b], state.sh[b], state.pl[b]
    stacks = (("deck", state.deck[b, :g[R.G_DECK_N]], NC, cd[:, R.CD_LOC], R.CL_DECK),
              ("disc", state.disc[b, :g[R.G_DISC_N]], NC, cd[:, R.CD_LOC], R.CL_DISC),
              ("sdeck", state.sdeck[b, :g[R.G_SDECK_N]], NS, sh[:, R.SH_LOC], R.SL_DECK))
    for name, stack, size, loc, here in stacks:
        check_range(stack, 0, size - 1, f"{name} (an index in the stack)")
        if len(np.unique(stack)) != len(stack):
            raise ValueError(f"{name} holds a card twice")
        if not (loc[stack] == here).all() or int((loc == here).sum()) != len(stack):
            raise ValueError(f"{name} does not hold exactly the cards whose location is there")
    hands = np.bincount(cd[:, R.CD_WHO][cd[:, R.CD_LOC] == R.CL_HAND], minlength=P)[:P]
    if not np.array_equal(hands, pl[:, R.PL_HAND]):
        raise ValueError("pl[PL_HAND] is not the number of cards in that hand")
