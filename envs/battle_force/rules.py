"""Star Fleet Battle Force (seed 001) as Numba kernels over batched state.

Every rule cites its heading in the Italian rulebook as ``SFBF <heading>``
(e.g. ``SFBF Sequenza di combattimento 4.4 C1``).  Interpretations of
ambiguous text are in ``RULES.md``; numbers that are not in the rulebook come
from the data files, each row with its provenance.

State of one game (arrays of ``BattleForceState``, leading batch axis):
  g[N_G]          scalars (stage, players, attack in progress ...), columns G_*
  cd[NC, N_CD]    each action card: where it is, who holds it, links, columns CD_*
  sh[NS, N_SH]    each ship card: where it is, owner, line, markers, damage, columns SH_*
  pl[P, N_PL]     each player: counts, score, team, turn order, columns PL_*
  deck[NC], disc[NC], sdeck[NS]   stacks (top = last) of the action deck, the
                  discard pile and the ship deck; their sizes are in g.

The game advances decision by decision: ``apply_action`` performs the chosen
action, then ``settle`` carries out everything that involves no choice (a
step whose only legal action is forced is taken at once) until a player has a
real decision to make.
"""
from __future__ import annotations

import sys

import numba as nb
import numpy as np
from numba.core import cgutils, imputils, types
from numba.core.datamodel import models, register_default
from numba.core.typing.templates import AttributeTemplate
from numba.extending import infer_getattr, intrinsic, lower_getattr_generic

from ..core.rng import draw_int, roll_die, seed_stream
from ..core.structs import borrow, local_i32, scratch_i32, scratch_u64

# -- action cards (SFBF Lista e traduzione delle carte azione) -----------------------
# weapon cards 0..8 have the same numbers as the weapon symbols they need
T_PH1, T_PH2, T_PH3, T_PHOTON, T_DISR, T_DRONE, T_PLR, T_PLS, T_PLF = 0, 1, 2, 3, 4, 5, 6, 7, 8
T_OVERLOAD, T_ENVELOPER, T_SCATTER, T_LGUNNER, T_ECCM, T_EM, T_ECM, T_RS = 9, 10, 11, 12, 13, 14, 15, 16
T_WW, T_TRACTOR, T_DISENGAGE, T_DC, T_LENG, T_REINF, T_PBF, T_PF = 17, 18, 19, 20, 21, 22, 23, 24
T_MUTINY, T_CEASE, T_PRIME = 25, 26, 27
N_TYPES = 28
N_WEAPONS = 9
# damage spaces of a ship card: its 9 weapon kinds, Orion WPN symbols, FTR symbols, circles
K_WPN, K_FTR, K_CIRCLE = 9, 10, 11
N_KIND = 12
# defence symbols on weapon cards (SFBF Carte Azione)
D_DRONE, D_PLASMA, D_FIGHTER, D_PF = 1, 2, 4, 8

# card config columns
CC_TYPE, CC_VALUE, CC_DEF, CC_IN, CC_FTRS = 0, 1, 2, 3, 4
N_CC = 5
# ship config columns
SC_RACE, SC_VP, SC_CLOAK, SC_WEB, SC_DN, SC_SPACES, SC_N = 0, 1, 2, 3, 4, 5, 6
N_SC = SC_N + N_KIND
RACE_KLINGON = 1

# -- static config k[] -------------------------------------------------------------
(K_NC, K_NS, K_P, K_ADVANCED, K_FORMATION, K_FIGHTERS, K_HAND, K_DRAW_DISCARD, K_ALLIES, K_TRAD,
 K_ORDER_CARDS, K_SECOND_ATTACK, K_END_TURNS, K_END_SHUFFLES, K_END_KILLS, K_END_ELIM, K_TIE, K_PBF_MODE,
 K_PF_MODE, K_CEASE_REPAIR, K_SURVIVORS, K_REWARD, K_MAX_DECISIONS, K_SELECTION, K_BUDGET, K_PER_PLAYER,
 K_SINGLE_RACE, K_N_ACTIONS, K_A_CARD, K_A_SHIP, K_A_LINE, K_A_KIND, K_A_NUM, K_A_RACE, K_A_NAMED,
 K_N_RACES, K_OBS, K_LEARNING, K_EM_WHOLE, K_SOLITAIRE, K_SHIP_ORDER) = range(41)
N_K = 41
SEL_DEAL, SEL_POINTS, SEL_DRAFT, SEL_CORE, SEL_DRAFT4 = 0, 1, 2, 3, 4
TIE_SHARE, TIE_DRAW, TIE_DUEL = 0, 1, 2

# -- named actions (after the CARD/SHIP/LINE/KIND/NUM/RACE families) -------------------
(N_DONE, N_DRAW_DECK, N_DRAW_DISCARD, N_KEEP, N_TO_RESERVE, N_TO_ALLY, N_TO_DISCARD, N_FIGHTERS, N_REDRAW,
 N_FORMATION2, N_CDC, N_PT_ADD, N_PT_CANCEL, N_ACTIVATE, N_DEACTIVATE, N_PT_CANCEL_WW) = range(16)
N_NAMED = 16
N_NUM = 4       # fighter squadrons launched: 1..4
LINES = 3
L_SCREEN, L_MAIN, L_RESERVE = 0, 1, 2

# -- stages ------------------------------------------------------------------------
(ST_PICK, ST_RACE, ST_RES_SETUP, ST_LINE_SETUP, ST_CLOAK_SETUP, ST_DRAW, ST_KEEP, ST_REPAIR, ST_REPAIR_SHIP,
 ST_UNMARK, ST_FORMATION, ST_FORM_DEST, ST_ATTACK, ST_CARRIER, ST_SQUADRONS, ST_TARGET, ST_ATK_CARDS, ST_LINK,
 ST_SHIP_FOR, ST_PT_MODE, ST_DEFENCE, ST_REACT, ST_FTR_DEF, ST_PF_FIRE, ST_PBF_MORE, ST_MUTINY_ATK,
 ST_MUTINY_DEF, ST_PLACE, ST_REDRAW, ST_CEASE_KEEP, ST_DISCARD, ST_DISC_DEST, ST_DUEL_PICK, ST_OVER,
 ST_DISC_ORDER) = range(35)
N_STAGES = 35

# attack kinds
AK_NONE, AK_SHIP, AK_FIGHTERS, AK_PBF, AK_PF, AK_MUTINY = 0, 1, 2, 3, 4, 5

# -- per-game scalars g[] ---------------------------------------------------------------
(G_STAGE, G_DECIDER, G_ACTIVE, G_DONE, G_TURN, G_ROUND, G_DECISIONS, G_SHUFFLES, G_DECK_N, G_DISC_N,
 G_SDECK_N, G_REPAIRED, G_CDC, G_CDC_NEXT, G_MOVED, G_FORM_KIND, G_FORM_MOVES, G_SEL, G_ATK_KIND, G_ATK_SHIP,
 G_TARGET, G_DEFENDER, G_ATTACKS, G_FIRST_ATTACKER, G_SQUADRONS, G_DEF_FIRE, G_ROLL, G_PT_ADD, G_CANCELS,
 G_PASSES, G_PENDING, G_RETURN, G_DMG_LEFT, G_DMG_SHIP, G_DMG_BY, G_ORDER_KIND, G_REP_LEFT, G_REP_SHIP,
 G_SETUP_P, G_SETUP_LEFT, G_DRAWN, G_DREW_DISCARD, G_PF_FIRER, G_PF_SHOTS, G_PF_LEFT, G_REDRAW_N,
 G_SEQ, G_POS, G_END_AT_TURN_END, G_ENDED, G_DUEL, G_TRUNC, G_NO_MORE_ATTACKS, G_PICK_PHASE, G_DIE1,
 G_DIE2, G_FTR_LOST, G_DEF_BITS, G_HELPER, G_PT_SUB, G_CEASE_LEFT, G_LAST_ROLL, G_TABLE_N) = range(63)
N_G = 63
# G_DEF_BITS: defences played in the current attack (one of WW / EM per attack, SFBF 4.4 B, F)
DB_WW, DB_EM, DB_DISENGAGE = 1, 2, 4
# G_CANCELS bits: Prime Team or Tractor Beam cancelled these effects for the current attack
CX_CLOAK, CX_WEB, CX_WW, CX_EM = 1, 2, 4, 8
# G_ORDER_KIND (option draw_discard, SFBF Regole Opzionali, Pescare): the cards the active player
# puts on the discard pile one at a time: those of the attack just over, or those leaving its ships
ORD_TABLE, ORD_SHIPS = 1, 2

# -- action cards cd[] ---------------------------------------------------------------------
CD_LOC, CD_WHO, CD_LINK, CD_OFF, CD_SHIP, CD_SEQ, CD_MODE = 0, 1, 2, 3, 4, 5, 6
N_CD = 7
(CL_OUT, CL_DECK, CL_DISC, CL_HAND, CL_RES, CL_ATK, CL_DEF, CL_SHIP) = range(8)
N_CL = 8
CARD_WORDS = 2 * N_CL   # write_obs: a card's observation word by location, as holder or not
# CD_OFF bits on attack cards: the multiplier attached to it was cancelled / the card itself was
OFF_MULT, OFF_CARD = 1, 2
# CD_MODE of a Prime Team: +1 to the attack or die roll, or cancel the cloak / web, or the Wild Weasel
PT_MODE_ADD, PT_MODE_CANCEL, PT_MODE_CANCEL_WW = 1, 2, 3

# -- ship cards sh[] -------------------------------------------------------------------------
(SH_LOC, SH_OWNER, SH_LINE, SH_DOWN, SH_CLOAK, SH_WEB, SH_EM, SH_WW, SH_DIS, SH_SHOTS, SH_COV) = range(11)
N_SH = SH_COV + N_KIND
(SL_OUT, SL_DECK, SL_POOL, SL_FLEET, SL_VP) = range(5)

# -- players pl[] -------------------------------------------------------------------------
(PL_SCORE, PL_KILLS, PL_HAND, PL_RES, PL_TEAM, PL_ORDER, PL_RACE, PL_OUT, PL_PASSED, PL_TIE, PL_FINAL,
 PL_RANK, PL_WIN) = range(13)
N_PL = 13

# -- illegal-action reasons (texts in game.REASONS) -------------------------------------------
(OK, R_OVER, R_STAGE, R_NO_ACTION, R_NOT_YOURS, R_NOT_IN_HAND, R_CARD_USE, R_NO_WEAPON, R_SHIP_STATE,
 R_TARGET, R_RANGE, R_CLOAKED, R_SEEKING, R_DEF_SYMBOL, R_LINK, R_LINE_MOVE, R_RESERVE_FULL, R_LEAVE_EMPTY,
 R_MUST_RESERVE, R_NEED_FRONT, R_HAND_FULL, R_DECK_EMPTY, R_ONCE, R_NO_DAMAGE, R_KIND, R_BUDGET,
 R_NOT_FIRST_ATTACK, R_NEED_WEAPON, R_NOT_ADVANCED, R_NO_FIGHTERS, R_SQUADRONS, R_ALLY, R_RACE_TAKEN,
 R_COMBINE, R_NOT_KLINGON, R_POOL, R_WW_EM, R_ORDER) = range(38)
N_REASONS = 38
# bounds of a deck and a roster (game.load_cards / load_ships check them): sizes of scratch lists
MAX_CARDS, MAX_SHIPS = 128, 64


# ============================================================================================
# views: a struct's arrays, borrowed, behind a bare pointer
#
# Reading an array field of a struct (``s.sh``, ``cfg.k``) costs a reference-count increment
# and, when the value dies, a decrement; passing a struct to a function that is not inlined
# costs two more, atomic, on the struct itself.  In a step these were about half of the time.
# The kernel entry points therefore turn each struct into a *view* once per call: the address
# of the struct's payload, typed so that Numba counts nothing.  Passing a view is passing one
# pointer, and each field read from it gives the array with a null meminfo, a constant the
# compiler sees, so the count operations on it are deleted at compile time (Numba's refprune
# pass drops increments and decrements of a constant null).  Rules functions are written
# against ``s.field`` / ``cfg.field`` and accept a struct or a view alike.  A view is valid
# while its struct lives, which is the whole kernel call (Python holds the struct): it must
# not be returned or kept.
# ============================================================================================
STATE_FIELDS = ("rng", "policy_rng", "dice_script", "dice", "g", "cd", "sh", "pos", "pl", "deck", "disc", "sdeck")
CONFIG_FIELDS = ("k", "card", "ship")


class ViewType(types.Type):
    """The payload of a struct of type ``struct_type``, borrowed (see above)."""

    def __init__(self, struct_type):
        self.struct_type = struct_type
        super().__init__(name=f"View({struct_type})")


@register_default(ViewType)
class ViewModel(models.PrimitiveModel):
    """A plain pointer to the payload: nothing for Numba's reference counting to see."""

    def __init__(self, dmm, fe_type):
        payload = dmm.lookup(fe_type.struct_type.get_data_type()).get_value_type()
        super().__init__(dmm, fe_type, payload.as_pointer())


@infer_getattr
class ViewAttribute(AttributeTemplate):
    key = ViewType

    def generic_resolve(self, typ, attr):
        return typ.struct_type.field_dict.get(attr)


@lower_getattr_generic(ViewType)
def view_getattr(context, builder, typ, val, attr):
    payload = cgutils.create_struct_proxy(typ.struct_type.get_data_type())(context, builder, ref=val)
    value = getattr(payload, attr)
    fieldtype = typ.struct_type.field_dict[attr]
    if isinstance(fieldtype, types.Array):
        ary = context.make_array(fieldtype)(context, builder, value=value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        value = ary._getvalue()
    return imputils.impl_ret_borrowed(context, builder, fieldtype, value)


@intrinsic
def view(typingctx, st):
    """The view of struct ``st`` (a view is returned as it is)."""
    if isinstance(st, ViewType):
        return st(st), lambda context, builder, sig, args: args[0]
    if not isinstance(st, types.StructRef):
        return None

    def codegen(context, builder, sig, args):
        meminfo = cgutils.create_struct_proxy(st)(context, builder, value=args[0]).meminfo
        data = context.nrt.meminfo_data(builder, meminfo)
        return builder.bitcast(data, context.get_value_type(sig.return_type))
    return ViewType(st)(st), codegen


@nb.njit(cache=True, inline="always")
def state_view(s):
    return view(s)


@nb.njit(cache=True, inline="always")
def config_view(c):
    return view(c)


@nb.njit(cache=True, inline="always")
def outputs_view(o):
    return view(o)



# ============================================================================================
# small helpers
# ============================================================================================
@nb.njit(cache=True, inline="always")
def is_weapon(t):
    return t < N_WEAPONS


@nb.njit(cache=True, inline="always")
def is_seeking(t):
    # drones and plasma torpedoes (SFBF Regole sull'Occultamento: cannot target a cloaked ship)
    return t == T_DRONE or t == T_PLR or t == T_PLS or t == T_PLF


@nb.njit(cache=True, inline="always")
def is_plasma(t):
    return t == T_PLR or t == T_PLS or t == T_PLF


@nb.njit(cache=True, inline="always")
def is_phaser(t):
    return t == T_PH1 or t == T_PH2 or t == T_PH3


@nb.njit(cache=True, inline="always")
def ctype(cfg, c):
    return cfg.card[c, CC_TYPE]


@nb.njit(cache=True, inline="always")
def half_up(x):
    # SFBF Regole sull'Occultamento: 50% "per eccesso" (5 damage becomes 3)
    return (x + 1) // 2


@nb.njit(cache=True, inline="always")
def nplayers(cfg):
    return cfg.k[K_P]


@nb.njit(cache=True, forceinline=True)
def enemies(s, cfg, b, p, q):
    """True if players p and q are opponents (SFBF Regole Opzionali, Alleati: allies are not)."""
    if p == q:
        return False
    if cfg.k[K_ALLIES]:
        return s.pl[b, p, PL_TEAM] != s.pl[b, q, PL_TEAM]
    return True


@nb.njit(cache=True, inline="always")
def em_ecm_per_card(cfg, kind):
    """ECM and Erratic Maneuvers act on one attack card of a ship attack: they reduce "il numero di
    danni ricevuti da una carta attacco" (SFBF 4.4 B, E and the card list; option em_ecm='whole_attack':
    the whole attack), or, traditional rules, remove one attack card."""
    return kind == AK_SHIP and (cfg.k[K_TRAD] != 0 or cfg.k[K_EM_WHOLE] == 0)


@nb.njit(cache=True, forceinline=True)
def uses_formation(cfg):
    return cfg.k[K_ADVANCED] != 0 and cfg.k[K_FORMATION] != 0


@nb.njit(cache=True, inline="always")
def in_fleet(s, b, i):
    return s.sh[b, i, SH_LOC] == SL_FLEET


@nb.njit(cache=True, inline="always")
def in_battle_line(s, b, i):
    """In play and not in the reserve squadron (SFBF Regole sulla Formazione)."""
    return s.sh[b, i, SH_LOC] == SL_FLEET and s.sh[b, i, SH_LINE] != L_RESERVE


@nb.njit(cache=True, forceinline=True)
def damage_of(s, b, i):
    n = 0
    sh = s.sh
    for k in range(N_KIND):
        n += sh[b, i, SH_COV + k]
    return n


@nb.njit(cache=True)
def free_spaces(s, cfg, b, i):
    return cfg.ship[i, SC_SPACES] - damage_of(s, b, i)


@nb.njit(cache=True, forceinline=True)
def symbols(s, cfg, b, i, k):
    """Undamaged symbols of kind k (traditional rules: damage never disables a weapon)."""
    n = cfg.ship[i, SC_N + k]
    if cfg.k[K_TRAD]:
        return n
    return n - s.sh[b, i, SH_COV + k]


@nb.njit(cache=True, forceinline=True)
def cloaked(s, b, i):
    return s.sh[b, i, SH_CLOAK] != 0


@nb.njit(cache=True, forceinline=True)
def webbed(s, b, i):
    return s.sh[b, i, SH_WEB] != 0


@nb.njit(cache=True, forceinline=True)
def count_line(s, b, p, line):
    """Player p's ships in ``line`` (L_SCREEN, L_MAIN or L_RESERVE)."""
    return fleet_lines(s, b, p)[line]


@nb.njit(cache=True, forceinline=True)
def fleet_size(s, b, p):
    n = 0
    sh = s.sh
    for i in range(sh.shape[1]):
        if sh[b, i, SH_LOC] == SL_FLEET and sh[b, i, SH_OWNER] == p:
            n += 1
    return n


@nb.njit(cache=True)
def hand_size(s, b, p):
    return s.pl[b, p, PL_HAND]


# ============================================================================================
# cards: moving, drawing, shuffling
# ============================================================================================
@nb.njit(cache=True)
def set_card(s, b, c, loc, who):
    """Move card c; keeps the per-player hand and reserve counts."""
    old, ow = s.cd[b, c, CD_LOC], s.cd[b, c, CD_WHO]
    if old == CL_HAND:
        s.pl[b, ow, PL_HAND] -= 1
    elif old == CL_RES:
        s.pl[b, ow, PL_RES] -= 1
    elif old == CL_ATK or old == CL_DEF:
        s.g[b, G_TABLE_N] -= 1
    s.cd[b, c, CD_LOC] = loc
    s.cd[b, c, CD_WHO] = who
    s.cd[b, c, CD_LINK] = -1
    s.cd[b, c, CD_OFF] = 0
    s.cd[b, c, CD_SHIP] = -1
    s.cd[b, c, CD_MODE] = 0
    if loc == CL_HAND:
        s.pl[b, who, PL_HAND] += 1
    elif loc == CL_RES:
        s.pl[b, who, PL_RES] += 1
    elif loc == CL_ATK or loc == CL_DEF:
        s.g[b, G_TABLE_N] += 1      # cards on the table (ship_fires skips the scan when none)


@nb.njit(cache=True)
def stamp_seq(s, b, c):
    """Number card c, just played to the table or onto a ship, in the order of play (CD_SEQ, for
    display).  The numbering restarts with the first card on an empty table, so a number never
    exceeds the cards of one attack and fits the state's int8 card columns."""
    # the other cards on the table (G_TABLE_N counts c if c went to the table)
    others = s.g[b, G_TABLE_N] - (0 if s.cd[b, c, CD_LOC] == CL_SHIP else 1)
    if others == 0:
        s.g[b, G_SEQ] = 0
    s.g[b, G_SEQ] += 1
    s.cd[b, c, CD_SEQ] = s.g[b, G_SEQ]


@nb.njit(cache=True)
def to_discard(s, b, c):
    set_card(s, b, c, CL_DISC, -1)
    s.disc[b, s.g[b, G_DISC_N]] = c
    s.g[b, G_DISC_N] += 1


@nb.njit(cache=True)
def shuffle_stack(s, b, arr, n):
    # Fisher-Yates from the game's own stream (RULES.md 'Randomness')
    for i in range(n - 1, 0, -1):
        j = draw_int(s.rng, b, i + 1)
        t = arr[b, i]
        arr[b, i] = arr[b, j]
        arr[b, j] = t


@nb.njit(cache=True)
def reshuffle_discards(s, cfg, b):
    """The discard pile becomes the new action deck (SFBF Regole Opzionali, Condizioni di fine gioco 2:
    the number of reshuffles may end the game)."""
    n = s.g[b, G_DISC_N]
    if n == 0:
        return
    for i in range(n):
        c = s.disc[b, i]
        s.deck[b, i] = c
        s.cd[b, c, CD_LOC] = CL_DECK
    s.g[b, G_DECK_N] = n
    s.g[b, G_DISC_N] = 0
    shuffle_stack(s, b, s.deck, n)
    s.g[b, G_SHUFFLES] += 1
    if cfg.k[K_END_SHUFFLES] > 0 and s.g[b, G_SHUFFLES] >= cfg.k[K_END_SHUFFLES]:
        s.g[b, G_END_AT_TURN_END] = 1


@nb.njit(cache=True)
def pop_deck(s, cfg, b):
    """Top card of the action deck (the discards are reshuffled when it runs out); -1 if none is left."""
    if s.g[b, G_DECK_N] == 0:
        reshuffle_discards(s, cfg, b)
    n = s.g[b, G_DECK_N]
    if n == 0:
        return -1
    s.g[b, G_DECK_N] = n - 1
    return s.deck[b, n - 1]


@nb.njit(cache=True)
def draw_to_hand(s, cfg, b, p):
    c = pop_deck(s, cfg, b)
    if c >= 0:
        set_card(s, b, c, CL_HAND, p)
    return c


@nb.njit(cache=True)
def gather_all_cards(s, cfg, b, keep_reserves):
    """Every action card in play back into one shuffled deck (Organian Ceasefire, tie-break draw)."""
    n = 0
    NC = cfg.k[K_NC]
    for c in range(NC):
        loc = s.cd[b, c, CD_LOC]
        if loc == CL_OUT or (keep_reserves and loc == CL_RES) or loc == CL_SHIP:
            continue
        set_card(s, b, c, CL_DECK, -1)
        s.deck[b, n] = c
        n += 1
    s.g[b, G_DECK_N] = n
    s.g[b, G_DISC_N] = 0
    shuffle_stack(s, b, s.deck, n)


@nb.njit(cache=True)
def refill_empty_hand(s, cfg, b, p):
    """5-6 players: a player left with no card draws two at once (SFBF Preparazione, Nota 1).
    Read as applying to players other than the one whose turn it is (RULES.md)."""
    if cfg.k[K_P] >= 5 and p != s.g[b, G_ACTIVE] and s.pl[b, p, PL_HAND] == 0 and fleet_size(s, b, p) > 0:
        draw_to_hand(s, cfg, b, p)
        draw_to_hand(s, cfg, b, p)


# ============================================================================================
# weapons: which cards a ship can fire (SFBF 4.3, Armi opzionali di Orione)
# ============================================================================================
@nb.njit(cache=True)
def wpn_needed(avail, cnt):
    """WPN symbols an Orion ship needs to fire the weapon cards ``cnt`` (by type) when its own
    symbols ``avail`` (by kind) are used first; -1 if impossible.

    Phaser-1 symbols also fire Phaser-2 and -3 cards, Phaser-2 symbols Phaser-3; Plasma-R
    symbols fire S and F, Plasma-S symbols F; a WPN symbol fires any card but Plasma-R, a
    Plasma-S card needs two WPN; at most one card per symbol (SFBF 4.3 example: a D7 plays at
    most five attack cards).  Using the most specific symbol first is optimal for these
    nested capabilities, so the greedy count is exact."""
    need = 0
    # phasers
    f1 = avail[T_PH1] - cnt[T_PH1]
    if f1 < 0:
        need -= f1
        f1 = 0
    f2 = avail[T_PH2] - cnt[T_PH2]
    if f2 < 0:
        u = min(-f2, f1)
        f1 -= u
        f2 += u
        if f2 < 0:
            need -= f2
            f2 = 0
    f3 = avail[T_PH3] - cnt[T_PH3]
    if f3 < 0:
        u = min(-f3, f2)
        f2 -= u
        f3 += u
        u = min(-f3, f1)
        f1 -= u
        f3 += u
        if f3 < 0:
            need -= f3
    # plasma: R only on R symbols; S on S, then spare R, then two WPN; F on F, spare S, spare R
    r = avail[T_PLR] - cnt[T_PLR]
    if r < 0:
        return -1
    ps = avail[T_PLS] - cnt[T_PLS]
    if ps < 0:
        u = min(-ps, r)
        r -= u
        ps += u
        if ps < 0:
            need -= 2 * ps
            ps = 0
    pf = avail[T_PLF] - cnt[T_PLF]
    if pf < 0:
        u = min(-pf, ps)
        ps -= u
        pf += u
        u = min(-pf, r)
        r -= u
        pf += u
        if pf < 0:
            need -= pf
    for t in (T_PHOTON, T_DISR, T_DRONE):
        d = avail[t] - cnt[t]
        if d < 0:
            need -= d
    return need


@nb.njit(cache=True)
def ship_fires(s, cfg, b, i, extra):
    """Can ship i fire every weapon card it has fired in the current attack plus card type
    ``extra`` (-1: none)?  Counts the cards on the table fired by ship i."""
    avail = local_i32(N_KIND)
    for k in range(N_KIND):
        avail[k] = symbols(s, cfg, b, i, k)
    cnt = local_i32(N_WEAPONS)
    NC = cfg.k[K_NC] if s.g[b, G_TABLE_N] > 0 else 0
    for c in range(NC):
        loc = s.cd[b, c, CD_LOC]
        if (loc == CL_ATK or loc == CL_DEF) and s.cd[b, c, CD_SHIP] == i:
            t = cfg.card[c, CC_TYPE]
            if t < N_WEAPONS:
                cnt[t] += 1
    if extra >= 0:
        cnt[extra] += 1
    need = wpn_needed(avail, cnt)
    return need >= 0 and need <= avail[K_WPN]


@nb.njit(cache=True)
def range_limited(t):
    # SFBF Regole sulla Formazione, Raggio di Azione: Phaser-3 and Plasma-F (and overloads)
    return t == T_PH3 or t == T_PLF


@nb.njit(cache=True)
def attack_card_reason(s, cfg, b, ship, target, t):
    """May ``ship`` fire a weapon card of type t at ``target`` in a normal attack?"""
    if not ship_fires(s, cfg, b, ship, t):
        return R_NO_WEAPON
    return attack_limits_reason(s, cfg, b, ship, target, t)


@nb.njit(cache=True)
def attack_limits_reason(s, cfg, b, ship, target, t):
    """The conditions of attack_card_reason other than a free weapon (cheap, checked first)."""
    if webbed(s, b, ship) and is_phaser(t):
        return R_SHIP_STATE      # SFBF Ragnatela: a webbed ship cannot fire phasers
    if uses_formation(cfg) and range_limited(t) and (s.sh[b, ship, SH_LINE] == L_MAIN
                                                    or s.sh[b, target, SH_LINE] == L_MAIN):
        return R_RANGE           # SFBF Regole sulla Formazione, Seconda Linea
    if is_seeking(t) and cloaked(s, b, target) and not (s.g[b, G_CANCELS] & CX_CLOAK):
        return R_SEEKING         # SFBF Occultamento: no drones or plasma at a cloaked ship
    return OK


@nb.njit(cache=True)
def has_attack_card(s, cfg, b, p, ship, target):
    NC = cfg.k[K_NC]
    for c in range(NC):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == p:
            t = cfg.card[c, CC_TYPE]
            if t < N_WEAPONS and attack_limits_reason(s, cfg, b, ship, target, t) == OK \
                    and ship_fires(s, cfg, b, ship, t):
                return True
    return False


# ============================================================================================
# ship eligibility
# ============================================================================================
@nb.njit(cache=True, forceinline=True)
def attacker_state_reason(s, cfg, b, p, i):
    """Can ship i of player p lead an attack this turn (SFBF 4.1, Sequenza di Attacco 4.1)?"""
    if not in_fleet(s, b, i) or s.sh[b, i, SH_OWNER] != p:
        return R_NOT_YOURS
    if uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE:
        return R_SHIP_STATE      # reserve ships do not attack
    if s.sh[b, i, SH_EM] or s.sh[b, i, SH_WW] or s.sh[b, i, SH_DIS]:
        return R_SHIP_STATE      # Erratic Maneuvers, Wild Weasel, Disengage: no attack until removed
    if cloaked(s, b, i):
        return R_CLOAKED         # a cloaked ship fires no weapon
    if s.g[b, G_ATTACKS] > 0 and i == s.g[b, G_FIRST_ATTACKER]:
        return R_ONCE            # optional second attack: from another ship
    return OK


@nb.njit(cache=True, forceinline=True)
def target_reason(s, cfg, b, p, i):
    """Can player p attack ship i (SFBF 4.2)?"""
    if not in_fleet(s, b, i):
        return R_TARGET
    q = s.sh[b, i, SH_OWNER]
    if q == p:
        return R_TARGET
    if not enemies(s, cfg, b, p, q):
        return R_ALLY
    if uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE:
        return R_TARGET
    if s.sh[b, i, SH_DIS]:
        return R_SHIP_STATE      # a disengaged ship cannot be attacked until its owner's next turn ends
    return OK


@nb.njit(cache=True, forceinline=True)
def carrier_reason(s, cfg, b, p, i):
    r = attacker_state_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    if symbols(s, cfg, b, i, K_FTR) <= 0:
        return R_NO_FIGHTERS
    return OK


@nb.njit(cache=True)
def any_target(s, cfg, b, p):
    for i in range(cfg.k[K_NS]):
        if target_reason(s, cfg, b, p, i) == OK:
            return True
    return False


# -- lists for the mask ------------------------------------------------------------------------
# A mask looks at every card and ship, and whether a card is in the decider's hand or a ship
# in its fleet looks random to the branch predictor: filtering them with an ``if`` mispredicted
# on most of them.  These write each index and advance the list length by the condition, with
# no branch, so that the rules then run on the few cards and ships that can matter.
@nb.njit(cache=True, forceinline=True)
def held_cards(s, cfg, b, p, out):
    """Cards in player p's hand or reserve, in index order, into ``out``: their number."""
    cd = s.cd
    n = 0
    for c in range(cfg.k[K_NC]):
        loc = cd[b, c, CD_LOC]
        out[n] = c
        n += ((loc == CL_HAND) | (loc == CL_RES)) & (cd[b, c, CD_WHO] == p)
    return n


@nb.njit(cache=True, forceinline=True)
def fleet_ships(s, b, out):
    """Ships in play (any player's fleet), in index order, into ``out``: their number."""
    sh = s.sh
    n = 0
    for i in range(sh.shape[1]):
        out[n] = i
        n += sh[b, i, SH_LOC] == SL_FLEET
    return n


@nb.njit(cache=True, forceinline=True)
def own_fleet_ships(s, b, p, out):
    """Ships in player p's fleet, in index order, into ``out``: their number."""
    sh = s.sh
    n = 0
    for i in range(sh.shape[1]):
        out[n] = i
        n += (sh[b, i, SH_LOC] == SL_FLEET) & (sh[b, i, SH_OWNER] == p)
    return n


@nb.njit(cache=True, forceinline=True)
def attack_targets(s, cfg, b, p, out):
    """Ships player p may attack (target_reason OK), in index order, into ``out``: their number."""
    fleet = scratch_i32(MAX_SHIPS)
    nf = fleet_ships(s, b, fleet)
    n = 0
    for j in range(nf):
        out[n] = fleet[j]
        n += target_reason(s, cfg, b, p, fleet[j]) == OK
    return n


@nb.njit(cache=True)
def hand_weapon_types(s, cfg, b, p):
    """The weapon card types in player p's hand, as bits (1 << type)."""
    types = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == p:
            t = cfg.card[c, CC_TYPE]
            if t < N_WEAPONS:
                types |= 1 << t
    return types


@nb.njit(cache=True)
def ship_attack_reason(s, cfg, b, p, i):
    """Can ship i open a normal attack: a weapon card in hand it can fire at some target."""
    r = attacker_state_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    targets = scratch_i32(MAX_SHIPS)
    nt = attack_targets(s, cfg, b, p, targets)
    return ship_attack_reason_given(s, cfg, b, p, i, hand_weapon_types(s, cfg, b, p), targets, nt)


@nb.njit(cache=True)
def ship_attack_reason_given(s, cfg, b, p, i, hand_types, targets, nt):
    """ship_attack_reason given p's ``hand_weapon_types`` and its ``attack_targets`` (the
    attack mask asks it of every ship, so the hand and the targets are looked at once)."""
    r = attacker_state_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    # the weapon types in p's hand that ship i can fire
    fires = local_i32(N_WEAPONS)
    anyw = False
    for t in range(N_WEAPONS):
        if (hand_types >> t) & 1 and not (webbed(s, b, i) and is_phaser(t)) and ship_fires(s, cfg, b, i, t):
            fires[t] = 1
            anyw = True
    if not anyw:
        return R_NEED_WEAPON
    for j in range(nt):
        for t in range(N_WEAPONS):
            if fires[t] and attack_limits_reason(s, cfg, b, i, targets[j], t) == OK:
                return OK
    return R_NEED_WEAPON


# ============================================================================================
# ships: formation, destruction, capture
# ============================================================================================
@nb.njit(cache=True)
def place_ship(s, cfg, b, i, p, line):
    s.sh[b, i, SH_LOC] = SL_FLEET
    s.sh[b, i, SH_OWNER] = p
    s.sh[b, i, SH_LINE] = line
    s.sh[b, i, SH_DOWN] = 1 if (line == L_RESERVE and damage_of(s, b, i) == 0) else 0
    s.g[b, G_POS] += 1
    s.pos[b, i] = s.g[b, G_POS]


@nb.njit(cache=True)
def set_line(s, cfg, b, i, line):
    """Change line; an undamaged ship entering the reserve goes face down (SFBF Navi di Riserva)."""
    s.sh[b, i, SH_LINE] = line
    if line == L_RESERVE:
        s.sh[b, i, SH_DOWN] = 1 if damage_of(s, b, i) == 0 else 0
    else:
        s.sh[b, i, SH_DOWN] = 0


@nb.njit(cache=True)
def forced_advance(s, cfg, b, p):
    """SFBF Regole sulla Formazione, Avanzamento Forzato: an empty screen pulls the main body forward."""
    if not uses_formation(cfg):
        return
    if count_line(s, b, p, L_SCREEN) == 0 and count_line(s, b, p, L_MAIN) > 0:
        for i in range(cfg.k[K_NS]):
            if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p and s.sh[b, i, SH_LINE] == L_MAIN:
                set_line(s, cfg, b, i, L_SCREEN)


@nb.njit(cache=True)
def clear_ship_cards(s, cfg, b, i):
    """Erratic Maneuvers (one or more), Wild Weasel and Disengage cards on ship i go to the discards."""
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_SHIP and s.cd[b, c, CD_WHO] == i:
            to_discard(s, b, c)
    for col in (SH_EM, SH_WW, SH_DIS):
        s.sh[b, i, col] = 0


@nb.njit(cache=True)
def destroy_ship(s, cfg, b, i, by, no_vp):
    """SFBF 4.5 Risoluzione: the destroyer keeps the ship card for its victory points; a ship
    destroyed by a PF Flotilla gives no points and goes to the bottom of the ship deck."""
    owner = s.sh[b, i, SH_OWNER]
    clear_ship_cards(s, cfg, b, i)
    for k in range(N_KIND):
        s.sh[b, i, SH_COV + k] = 0
    s.sh[b, i, SH_CLOAK] = 0
    s.sh[b, i, SH_WEB] = 0
    s.sh[b, i, SH_DOWN] = 0
    s.sh[b, i, SH_LINE] = 0
    if s.g[b, G_DUEL]:
        s.sh[b, i, SH_LOC] = SL_OUT   # tie-break duel: the scores are already settled
        s.sh[b, i, SH_OWNER] = -1
    elif no_vp or by < 0:
        n = s.g[b, G_SDECK_N]
        for j in range(n, 0, -1):
            s.sdeck[b, j] = s.sdeck[b, j - 1]
        s.sdeck[b, 0] = i
        s.g[b, G_SDECK_N] = n + 1
        s.sh[b, i, SH_LOC] = SL_DECK
        s.sh[b, i, SH_OWNER] = -1
    else:
        s.sh[b, i, SH_LOC] = SL_VP
        s.sh[b, i, SH_OWNER] = by
        s.pl[b, by, PL_SCORE] += cfg.ship[i, SC_VP]
        s.pl[b, by, PL_KILLS] += 1
        if cfg.k[K_END_KILLS] > 0 and s.pl[b, by, PL_KILLS] >= cfg.k[K_END_KILLS] and not s.g[b, G_DUEL]:
            s.g[b, G_ENDED] = 1      # optional end condition 3
    forced_advance(s, cfg, b, owner)
    if cfg.k[K_END_ELIM] and fleet_size(s, b, owner) == 0 and not s.g[b, G_DUEL]:
        s.g[b, G_ENDED] = 1          # optional end condition 4


@nb.njit(cache=True)
def cover_all(s, cfg, b, i):
    for k in range(N_KIND):
        s.sh[b, i, SH_COV + k] = cfg.ship[i, SC_N + k]


@nb.njit(cache=True)
def cover_auto(s, cfg, b, i, n):
    """Traditional rules: damage is a count, so where markers go does not matter (circles first)."""
    for k in range(N_KIND - 1, -1, -1):
        while n > 0 and s.sh[b, i, SH_COV + k] < cfg.ship[i, SC_N + k]:
            s.sh[b, i, SH_COV + k] += 1
            n -= 1


# ============================================================================================
# turn order
# ============================================================================================
@nb.njit(cache=True)
def shuffle_order(s, cfg, b):
    """SFBF Regole Opzionali, Ordine dei giocatori: a new random order every game turn."""
    P = cfg.k[K_P]
    perm = np.empty(P, dtype=np.int32)
    for i in range(P):
        perm[i] = i
    for i in range(P - 1, 0, -1):
        j = draw_int(s.rng, b, i + 1)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    for pos in range(P):
        s.pl[b, perm[pos], PL_ORDER] = pos


@nb.njit(cache=True)
def player_at(s, cfg, b, pos):
    for p in range(cfg.k[K_P]):
        if s.pl[b, p, PL_ORDER] == pos:
            return p
    return 0


@nb.njit(cache=True)
def first_player(s, cfg, b):
    P = cfg.k[K_P]
    for pos in range(P):
        p = player_at(s, cfg, b, pos)
        if not s.pl[b, p, PL_OUT]:
            return p
    return 0


@nb.njit(cache=True)
def next_clockwise(s, cfg, b, p):
    """The next player to the left (SFBF Sequenza di gioco: play passes clockwise)."""
    P = cfg.k[K_P]
    for d in range(1, P + 1):
        q = (p + d) % P
        if not s.pl[b, q, PL_OUT]:
            return q
    return p


# ============================================================================================
# end of the game and scoring (SFBF Come Vincere)
# ============================================================================================
@nb.njit(cache=True)
def players_with_ships(s, cfg, b):
    n = 0
    for p in range(cfg.k[K_P]):
        if not s.pl[b, p, PL_OUT] and fleet_size(s, b, p) > 0:
            n += 1
    return n


@nb.njit(cache=True)
def game_should_end(s, cfg, b):
    if s.g[b, G_ENDED]:
        return True
    P = cfg.k[K_P]
    if cfg.k[K_ALLIES] and not s.g[b, G_DUEL]:
        # SFBF Alleati: the game ends when one of the allies has no ships left
        for p in range(P):
            if fleet_size(s, b, p) == 0:
                return True
        return False
    if cfg.k[K_ALLIES] and s.g[b, G_DUEL]:
        return players_with_ships(s, cfg, b) <= 1
    # only one player (or none) with ships in play; the advanced game counts the reserve too
    return players_with_ships(s, cfg, b) <= 1


@nb.njit(cache=True)
def final_score(s, cfg, b, p):
    """SFBF Come Vincere 1-3: destroyed enemy ships plus own surviving ships (advanced game:
    screen and main body only); option count_survivors=False counts destroyed ships only."""
    v = s.pl[b, p, PL_SCORE]
    if cfg.k[K_SURVIVORS]:
        for i in range(cfg.k[K_NS]):
            if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p:
                if not (uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE):
                    v += cfg.ship[i, SC_VP]
    return v


@nb.njit(cache=True)
def side_score(s, cfg, b, p):
    if not cfg.k[K_ALLIES]:
        return s.pl[b, p, PL_FINAL]
    v = 0
    for q in range(cfg.k[K_P]):
        if s.pl[b, q, PL_TEAM] == s.pl[b, p, PL_TEAM]:
            v += s.pl[b, q, PL_FINAL]
    return v


@nb.njit(cache=True)
def card_damage(cfg, c):
    """Tie-break draw: a card counts its printed damage (weapon cards), others nothing."""
    t = cfg.card[c, CC_TYPE]
    return cfg.card[c, CC_VALUE] if t < N_WEAPONS else 0


@nb.njit(cache=True)
def tie_break_draw(s, cfg, b):
    """SFBF Come Vincere 4: the tied players draw five cards each, one at a time, face up; the
    highest damage total wins; still tied: one more card each until one is ahead."""
    P = cfg.k[K_P]
    gather_all_cards(s, cfg, b, False)
    rounds = 5
    for it in range(200):
        for r in range(rounds):
            for p in range(P):
                if s.pl[b, p, PL_WIN]:
                    c = pop_deck(s, cfg, b)
                    if c < 0:
                        gather_all_cards(s, cfg, b, False)
                        c = pop_deck(s, cfg, b)
                    if c >= 0:
                        s.pl[b, p, PL_TIE] += card_damage(cfg, c)
                        to_discard(s, b, c)
        best = -1
        for p in range(P):
            if s.pl[b, p, PL_WIN] and s.pl[b, p, PL_TIE] > best:
                best = s.pl[b, p, PL_TIE]
        n = 0
        for p in range(P):
            if s.pl[b, p, PL_WIN]:
                if s.pl[b, p, PL_TIE] < best:
                    s.pl[b, p, PL_WIN] = 0
                else:
                    n += 1
        if n <= 1:
            return
        rounds = 1


@nb.njit(cache=True)
def set_ranks(s, cfg, b):
    """Rank 0 = best; winners first, then by (side) score; ties share the better rank."""
    P = cfg.k[K_P]
    for p in range(P):
        better = 0
        for q in range(P):
            if q == p:
                continue
            if s.pl[b, q, PL_WIN] and not s.pl[b, p, PL_WIN]:
                better += 1
            elif s.pl[b, q, PL_WIN] == s.pl[b, p, PL_WIN] and side_score(s, cfg, b, q) > side_score(s, cfg, b, p):
                better += 1
        s.pl[b, p, PL_RANK] = better


@nb.njit(cache=True)
def finish(s, cfg, b):
    P = cfg.k[K_P]
    if s.g[b, G_DUEL]:
        # SFBF Come Vincere 5: the duel's survivor wins; scores stay as they were
        for p in range(P):
            s.pl[b, p, PL_WIN] = 1 if (not s.pl[b, p, PL_OUT] and fleet_size(s, b, p) > 0) else 0
        set_ranks(s, cfg, b)
        s.g[b, G_DONE] = 1
        s.g[b, G_STAGE] = ST_OVER
        return
    best = -(1 << 30)
    for p in range(P):
        s.pl[b, p, PL_FINAL] = final_score(s, cfg, b, p)
    for p in range(P):
        best = max(best, side_score(s, cfg, b, p))
    n = 0
    for p in range(P):
        s.pl[b, p, PL_WIN] = 1 if side_score(s, cfg, b, p) == best else 0
        n += s.pl[b, p, PL_WIN]
    tied_sides = n if not cfg.k[K_ALLIES] else n // 2
    if tied_sides > 1 and cfg.k[K_TIE] == TIE_DRAW and not cfg.k[K_ALLIES]:
        tie_break_draw(s, cfg, b)
    elif tied_sides > 1 and cfg.k[K_TIE] == TIE_DUEL and not cfg.k[K_ALLIES]:
        start_duel(s, cfg, b)
        return
    set_ranks(s, cfg, b)
    s.g[b, G_DONE] = 1
    s.g[b, G_STAGE] = ST_OVER


@nb.njit(cache=True)
def start_duel(s, cfg, b):
    """SFBF Come Vincere 5: each tied player takes one of the ships counted for its points and
    the tied players play on until one is defeated (RULES.md 'Tie-breaks')."""
    P = cfg.k[K_P]
    s.g[b, G_DUEL] = 1
    for p in range(P):
        s.pl[b, p, PL_OUT] = 0 if s.pl[b, p, PL_WIN] else 1
        s.pl[b, p, PL_PASSED] = 0
    s.g[b, G_SETUP_P] = first_player(s, cfg, b)
    set_stage(s, b, ST_DUEL_PICK, s.g[b, G_SETUP_P])


@nb.njit(cache=True, forceinline=True)
def duel_pick_ok(s, cfg, b, p, i):
    if s.sh[b, i, SH_OWNER] != p:
        return False
    if s.sh[b, i, SH_LOC] == SL_VP:
        return True
    return in_fleet(s, b, i) and not (uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE)


@nb.njit(cache=True)
def begin_duel(s, cfg, b):
    NS = cfg.k[K_NS]
    P = cfg.k[K_P]
    for i in range(NS):
        if s.sh[b, i, SH_LOC] == SL_POOL:      # the picked ships (marked during the picks)
            p = s.sh[b, i, SH_OWNER]
            clear_ship_cards(s, cfg, b, i)
            for k in range(N_KIND):
                s.sh[b, i, SH_COV + k] = 0
            s.sh[b, i, SH_CLOAK] = 0
            s.sh[b, i, SH_WEB] = 0
            place_ship(s, cfg, b, i, p, L_SCREEN)
        else:
            clear_ship_cards(s, cfg, b, i)
            s.sh[b, i, SH_LOC] = SL_OUT
    s.g[b, G_SDECK_N] = 0
    gather_all_cards(s, cfg, b, False)
    for p in range(P):
        if not s.pl[b, p, PL_OUT] and not automaton(cfg, p):
            for r in range(5):
                draw_to_hand(s, cfg, b, p)
    s.g[b, G_ENDED] = 0
    s.g[b, G_END_AT_TURN_END] = 0
    begin_turn(s, cfg, b, first_player(s, cfg, b))


# ============================================================================================
# stages
# ============================================================================================
@nb.njit(cache=True)
def set_stage(s, b, st, who):
    s.g[b, G_STAGE] = st
    s.g[b, G_DECIDER] = who


@nb.njit(cache=True)
def hand_limit(cfg):
    return cfg.k[K_HAND]


@nb.njit(cache=True)
def begin_turn(s, cfg, b, p):
    """SFBF Sequenza di gioco: the active player's five phases."""
    s.g[b, G_ACTIVE] = p
    s.g[b, G_TURN] += 1
    s.g[b, G_REPAIRED] = 0
    s.g[b, G_CDC] = 0
    s.g[b, G_ATTACKS] = 0
    s.g[b, G_FIRST_ATTACKER] = -1
    s.g[b, G_DREW_DISCARD] = 0
    s.g[b, G_NO_MORE_ATTACKS] = 0
    s.g[b, G_ATK_KIND] = AK_NONE
    s.g[b, G_ATK_SHIP] = -1
    s.g[b, G_TARGET] = -1
    continue_draw(s, cfg, b)


@nb.njit(cache=True)
def can_draw_any(s, cfg, b, p):
    if s.g[b, G_DECK_N] + s.g[b, G_DISC_N] > 0:
        return True
    return cfg.k[K_ADVANCED] != 0 and s.pl[b, p, PL_RES] > 0


@nb.njit(cache=True)
def continue_draw(s, cfg, b):
    """Phase 1: draw up to the hand limit, one card at a time (SFBF Sequenza di gioco 1)."""
    p = s.g[b, G_ACTIVE]
    # a player who has lost all its ships draws no cards (SFBF Come Vincere)
    # the solitaire automaton draws only in its attack phase (SFBF Gioco in solitario)
    if fleet_size(s, b, p) == 0 or s.pl[b, p, PL_HAND] >= hand_limit(cfg) or not can_draw_any(s, cfg, b, p) \
            or automaton(cfg, p):
        enter_repair(s, cfg, b)
        return
    set_stage(s, b, ST_DRAW, p)


@nb.njit(cache=True)
def enter_repair(s, cfg, b):
    set_stage(s, b, ST_REPAIR, s.g[b, G_ACTIVE])


@nb.njit(cache=True, forceinline=True)
def own_damaged(s, cfg, b, p):
    for i in range(cfg.k[K_NS]):
        if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p and damage_of(s, b, i) > 0:
            return True
    return False


@nb.njit(cache=True)
def next_cdc_ship(s, cfg, b):
    """Advanced continuous damage control: one damage off every damaged own ship, the reserve
    included (SFBF Sequenza di gioco 2 (X)); the owner picks which marker when it matters."""
    p = s.g[b, G_ACTIVE]
    for i in range(s.g[b, G_CDC_NEXT], cfg.k[K_NS]):
        if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p and damage_of(s, b, i) > 0:
            s.g[b, G_CDC_NEXT] = i + 1
            s.g[b, G_REP_SHIP] = i
            s.g[b, G_REP_LEFT] = 1
            set_stage(s, b, ST_UNMARK, p)
            return
    s.g[b, G_CDC_NEXT] = -1
    enter_repair(s, cfg, b)


@nb.njit(cache=True)
def after_unmark(s, cfg, b):
    i = s.g[b, G_REP_SHIP]
    if s.g[b, G_REP_LEFT] > 0 and damage_of(s, b, i) > 0:
        return
    if s.g[b, G_CDC_NEXT] >= 0:
        next_cdc_ship(s, cfg, b)
    else:
        enter_repair(s, cfg, b)


@nb.njit(cache=True)
def start_repair(s, cfg, b, i, amount):
    """Damage Control removes ``amount`` markers (the owner picks which), Legendary Engineer all."""
    if amount >= damage_of(s, b, i):
        for k in range(N_KIND):
            s.sh[b, i, SH_COV + k] = 0
        after_unmark(s, cfg, b)
        return
    s.g[b, G_REP_SHIP] = i
    s.g[b, G_REP_LEFT] = amount
    set_stage(s, b, ST_UNMARK, s.g[b, G_ACTIVE])


@nb.njit(cache=True)
def enter_formation(s, cfg, b, kind):
    """Phase 3 (kind 1) or the advanced second formation change instead of an attack (kind 2)."""
    p = s.g[b, G_ACTIVE]
    s.g[b, G_FORM_KIND] = kind
    s.g[b, G_MOVED] = 0
    s.g[b, G_FORM_MOVES] = 0
    if kind == 1 and cfg.k[K_ADVANCED]:
        # SFBF Sequenza di gioco 3 (X): the active player removes its web markers
        for i in range(cfg.k[K_NS]):
            if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p:
                s.sh[b, i, SH_WEB] = 0
    set_stage(s, b, ST_FORMATION, p)


@nb.njit(cache=True)
def enter_attack(s, cfg, b):
    s.g[b, G_ATK_KIND] = AK_NONE
    if automaton(cfg, s.g[b, G_ACTIVE]) and s.g[b, G_ATTACKS] == 0:
        auto_prepare_attack(s, cfg, b)
    set_stage(s, b, ST_ATTACK, s.g[b, G_ACTIVE])


@nb.njit(cache=True)
def enter_discard(s, cfg, b):
    """Phase 5: Erratic Maneuvers, Disengage and Wild Weasel leave the active player's ships;
    then it may discard one card (SFBF Sequenza di gioco 5)."""
    p = s.g[b, G_ACTIVE]
    if cfg.k[K_DRAW_DISCARD]:
        # SFBF Regole Opzionali, Pescare: the active player orders the cards going to the pile
        n = 0
        for c in range(cfg.k[K_NC]):
            if s.cd[b, c, CD_LOC] == CL_SHIP and s.sh[b, s.cd[b, c, CD_WHO], SH_OWNER] == p:
                n += 1
        if n >= 2:
            for i in range(cfg.k[K_NS]):
                if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p:
                    for col in (SH_EM, SH_WW, SH_DIS):
                        s.sh[b, i, col] = 0
            s.g[b, G_ORDER_KIND] = ORD_SHIPS
            set_stage(s, b, ST_DISC_ORDER, p)
            return
    for i in range(cfg.k[K_NS]):
        if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p and (s.sh[b, i, SH_EM] or s.sh[b, i, SH_WW]
                                                                or s.sh[b, i, SH_DIS]):
            clear_ship_cards(s, cfg, b, i)
    set_stage(s, b, ST_DISCARD, p)


@nb.njit(cache=True)
def end_turn(s, cfg, b):
    if game_should_end(s, cfg, b) or s.g[b, G_END_AT_TURN_END]:
        finish(s, cfg, b)
        return
    p = s.g[b, G_ACTIVE]
    P = cfg.k[K_P]
    pos = s.pl[b, p, PL_ORDER]
    nxt = -1
    for d in range(pos + 1, P):
        q = player_at(s, cfg, b, d)
        if not s.pl[b, q, PL_OUT]:
            nxt = q
            break
    if nxt < 0:
        # a new game turn (SFBF Sequenza di gioco)
        s.g[b, G_ROUND] += 1
        if cfg.k[K_END_TURNS] > 0 and s.g[b, G_ROUND] > cfg.k[K_END_TURNS] and not s.g[b, G_DUEL]:
            finish(s, cfg, b)
            return
        if cfg.k[K_ORDER_CARDS]:
            shuffle_order(s, cfg, b)
        nxt = first_player(s, cfg, b)
    begin_turn(s, cfg, b, nxt)


# ============================================================================================
# set-up (SFBF Preparazione del gioco)
# ============================================================================================
@nb.njit(cache=True)
def pick_need(s, cfg, b, p):
    """Does player p still pick in the current selection round?"""
    if s.pl[b, p, PL_PASSED]:
        return False
    sel = cfg.k[K_SELECTION]
    N = cfg.k[K_PER_PLAYER]
    n = fleet_size(s, b, p)
    if sel == SEL_POINTS:
        return True
    if sel == SEL_DRAFT:
        return n < N
    if sel == SEL_DRAFT4:
        return n < min(4, N)
    # SEL_CORE: one dreadnought, then one carrier, then free picks
    if s.g[b, G_PICK_PHASE] == 2:
        return n < N
    return True


@nb.njit(cache=True)
def fleet_vp(s, cfg, b, p):
    v = 0
    for i in range(cfg.k[K_NS]):
        if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p:
            v += cfg.ship[i, SC_VP]
    return v


@nb.njit(cache=True, forceinline=True)
def pick_reason(s, cfg, b, p, i):
    if s.sh[b, i, SH_LOC] != SL_POOL:
        return R_POOL
    sel = cfg.k[K_SELECTION]
    if sel == SEL_POINTS and fleet_vp(s, cfg, b, p) + cfg.ship[i, SC_VP] > cfg.k[K_BUDGET]:
        return R_BUDGET          # SFBF Preparazione: ships totalling 65 victory points
    if sel == SEL_CORE and s.g[b, G_PICK_PHASE] == 0 and not cfg.ship[i, SC_DN]:
        return R_POOL            # SFBF Regole Opzionali, Centro della Flotta: dreadnoughts first
    if sel == SEL_CORE and s.g[b, G_PICK_PHASE] == 1 and cfg.ship[i, SC_N + K_FTR] == 0:
        return R_POOL            # ... then carriers
    return OK


@nb.njit(cache=True)
def any_pick(s, cfg, b, p):
    for i in range(cfg.k[K_NS]):
        if pick_reason(s, cfg, b, p, i) == OK:
            return True
    return False


@nb.njit(cache=True)
def advance_pick(s, cfg, b):
    """Hand the pick to the next player who still picks (round robin), or close the round."""
    P = cfg.k[K_P]
    for it in range(4):
        cur = s.g[b, G_SETUP_P]
        for d in range(1, P + 1):
            q = (cur + d) % P
            if pick_need(s, cfg, b, q):
                if any_pick(s, cfg, b, q):
                    s.g[b, G_SETUP_P] = q
                    set_stage(s, b, ST_PICK, q)
                    return
                s.pl[b, q, PL_PASSED] = 1      # nothing left that fits: this player is done
        # nobody picks in this round any more
        sel = cfg.k[K_SELECTION]
        if sel == SEL_CORE and s.g[b, G_PICK_PHASE] < 2:
            s.g[b, G_PICK_PHASE] += 1
            for p in range(P):
                s.pl[b, p, PL_PASSED] = 0
            s.g[b, G_SETUP_P] = P - 1
            continue
        break
    end_selection(s, cfg, b)


@nb.njit(cache=True)
def deal_ships_from_deck(s, cfg, b, upto):
    """Deal ship cards from the ship deck, one at a time round the table, until each player
    has ``upto`` ships or the deck is empty."""
    P = cfg.k[K_P]
    for r in range(64):
        dealt = False
        for p in range(P):
            if fleet_size(s, b, p) < upto and s.g[b, G_SDECK_N] > 0:
                n = s.g[b, G_SDECK_N] - 1
                i = s.sdeck[b, n]
                s.g[b, G_SDECK_N] = n
                place_ship(s, cfg, b, i, p, -1 if uses_formation(cfg) else L_SCREEN)
                hide_until_placed(s, cfg, b, i)
                dealt = True
        if not dealt:
            return


@nb.njit(cache=True)
def hide_until_placed(s, cfg, b, i):
    """A ship dealt face down stays hidden from the other players until its owner lays it out
    in the formation (picked ships came from a face-up pool and are public)."""
    if s.sh[b, i, SH_LINE] < 0:
        s.sh[b, i, SH_DOWN] = 1


@nb.njit(cache=True)
def pool_to_deck(s, cfg, b):
    n = s.g[b, G_SDECK_N]
    for i in range(cfg.k[K_NS]):
        if s.sh[b, i, SH_LOC] == SL_POOL:
            s.sh[b, i, SH_LOC] = SL_DECK
            s.sh[b, i, SH_OWNER] = -1
            s.sdeck[b, n] = i
            n += 1
    s.g[b, G_SDECK_N] = n
    shuffle_stack(s, b, s.sdeck, n)


@nb.njit(cache=True)
def end_selection(s, cfg, b):
    pool_to_deck(s, cfg, b)
    if cfg.k[K_SELECTION] == SEL_DRAFT4:
        # SFBF Regole Opzionali, Scegliere le navi 3: the rest of the ships are dealt at random
        deal_ships_from_deck(s, cfg, b, cfg.k[K_PER_PLAYER])
    after_selection(s, cfg, b)


@nb.njit(cache=True)
def after_selection(s, cfg, b):
    if cfg.k[K_LEARNING]:
        # SFBF Preparazione: first game, four ships each; the other ships leave the game
        for i in range(cfg.k[K_NS]):
            if s.sh[b, i, SH_LOC] == SL_DECK:
                s.sh[b, i, SH_LOC] = SL_OUT
        s.g[b, G_SDECK_N] = 0
    begin_reserve_setup(s, cfg, b)


@nb.njit(cache=True)
def begin_reserve_setup(s, cfg, b):
    """SFBF Preparazione 1 (X): of the seven cards dealt, each player puts two face down as reserve."""
    if cfg.k[K_ADVANCED]:
        s.g[b, G_SETUP_P] = 0
        s.g[b, G_SETUP_LEFT] = 2
        set_stage(s, b, ST_RES_SETUP, 0)
    else:
        begin_line_setup(s, cfg, b)


@nb.njit(cache=True)
def after_reserve_pick(s, cfg, b):
    s.g[b, G_SETUP_LEFT] -= 1
    if s.g[b, G_SETUP_LEFT] > 0:
        return
    p = s.g[b, G_SETUP_P] + 1
    while p < cfg.k[K_P] and automaton(cfg, p):
        p += 1                   # the solitaire automaton holds no cards
    if p < cfg.k[K_P]:
        s.g[b, G_SETUP_P] = p
        s.g[b, G_SETUP_LEFT] = 2
        set_stage(s, b, ST_RES_SETUP, p)
    else:
        begin_line_setup(s, cfg, b)


@nb.njit(cache=True)
def next_unplaced(s, cfg, b, p):
    for i in range(cfg.k[K_NS]):
        if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p and s.sh[b, i, SH_LINE] < 0:
            return i
    return -1


@nb.njit(cache=True)
def begin_line_setup(s, cfg, b):
    """SFBF Preparazione 2 (X): each player splits its ships into screen, main body and reserve."""
    if cfg.k[K_SOLITAIRE]:
        auto_layout(s, cfg, b)
    if not uses_formation(cfg):
        begin_cloak_setup(s, cfg, b)
        return
    s.g[b, G_SETUP_P] = -1
    next_line_setup(s, cfg, b)


@nb.njit(cache=True)
def next_line_setup(s, cfg, b):
    p = max(s.g[b, G_SETUP_P], 0)
    P = cfg.k[K_P]
    while p < P:
        i = next_unplaced(s, cfg, b, p)
        if i >= 0:
            s.g[b, G_SETUP_P] = p
            s.g[b, G_SEL] = i
            set_stage(s, b, ST_LINE_SETUP, p)
            return
        p += 1
    s.g[b, G_SEL] = -1
    begin_cloak_setup(s, cfg, b)


@nb.njit(cache=True)
def setup_line_reason(s, cfg, b, p, line):
    """At least two ships in the screen and two in the main body, at most two in the reserve
    (SFBF Preparazione 2 (X); fewer ships: as many as there are, screen first - RULES.md)."""
    n = fleet_size(s, b, p)
    cs = count_line(s, b, p, L_SCREEN)
    cm = count_line(s, b, p, L_MAIN)
    cr = count_line(s, b, p, L_RESERVE)
    left = 0
    for i in range(cfg.k[K_NS]):
        if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == p and s.sh[b, i, SH_LINE] < 0:
            left += 1
    if line == L_SCREEN:
        cs += 1
    elif line == L_MAIN:
        cm += 1
    else:
        cr += 1
    left -= 1
    ms = min(2, n)
    mm = min(2, n - ms)
    if cr > 2:
        return R_RESERVE_FULL
    if max(0, ms - cs) + max(0, mm - cm) > left:
        return R_NEED_FRONT
    return OK


@nb.njit(cache=True)
def begin_cloak_setup(s, cfg, b):
    """SFBF Sequenza di gioco 3: before its first turn each player may activate one cloak or web."""
    if not cfg.k[K_ADVANCED]:
        start_play(s, cfg, b)
        return
    s.g[b, G_SETUP_P] = 0
    set_stage(s, b, ST_CLOAK_SETUP, 0)


@nb.njit(cache=True)
def after_cloak_setup(s, cfg, b):
    p = s.g[b, G_SETUP_P] + 1
    if p < cfg.k[K_P]:
        s.g[b, G_SETUP_P] = p
        set_stage(s, b, ST_CLOAK_SETUP, p)
    else:
        start_play(s, cfg, b)


@nb.njit(cache=True)
def start_play(s, cfg, b):
    s.g[b, G_SETUP_P] = -1
    s.g[b, G_ROUND] = 1
    if game_should_end(s, cfg, b):
        finish(s, cfg, b)
        return
    begin_turn(s, cfg, b, first_player(s, cfg, b))


@nb.njit(cache=True, forceinline=True)
def device_reason(s, cfg, b, p, i):
    """May ship i switch on its cloak (Romulan, Orion) or web (Tholian)?  Advanced game only."""
    if not cfg.k[K_ADVANCED]:
        return R_NOT_ADVANCED
    if not in_fleet(s, b, i) or s.sh[b, i, SH_OWNER] != p:
        return R_NOT_YOURS
    if not (cfg.ship[i, SC_CLOAK] or cfg.ship[i, SC_WEB]):
        return R_SHIP_STATE
    if s.sh[b, i, SH_CLOAK] or s.sh[b, i, SH_WEB]:
        return R_ONCE
    if uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE:
        return R_SHIP_STATE
    return OK


@nb.njit(cache=True)
def activate_device(s, cfg, b, i):
    if cfg.ship[i, SC_CLOAK]:
        s.sh[b, i, SH_CLOAK] = 1
    else:
        s.sh[b, i, SH_WEB] = 1


# -- single race (SFBF Regole Opzionali, Giocare una gara singola) --------------------------------
@nb.njit(cache=True)
def race_of(cfg, i):
    r = cfg.ship[i, SC_RACE]
    if cfg.k[K_P] == 6 and r == 6:
        return 5                 # six players: Tholians and Orions are one race
    return r


@nb.njit(cache=True)
def race_size(cfg, r):
    n = 0
    for i in range(cfg.k[K_NS]):
        if race_of(cfg, i) == r:
            n += 1
    return n


@nb.njit(cache=True)
def race_reason(s, cfg, b, r):
    if r >= cfg.k[K_N_RACES] or race_size(cfg, r) == 0:
        return R_RACE_TAKEN
    for p in range(cfg.k[K_P]):
        if s.pl[b, p, PL_RACE] == r:
            return R_RACE_TAKEN
    return OK


@nb.njit(cache=True)
def begin_race_picks(s, cfg, b):
    """Roll for the order of choice; tied players roll again among themselves."""
    P = cfg.k[K_P]
    key = np.zeros(P, dtype=np.int64)
    for p in range(P):
        key[p] = roll_die(s.rng, s.dice_script, s.dice, b, 6)
    for it in range(12):
        tied = False
        for p in range(P):
            for q in range(P):
                if p != q and key[p] == key[q]:
                    tied = True
        if not tied:
            break
        for p in range(P):
            dup = False
            for q in range(P):
                if p != q and key[p] == key[q]:
                    dup = True
            key[p] = key[p] * 8 + (roll_die(s.rng, s.dice_script, s.dice, b, 6) if dup else 7)
    # pick position = number of players with a higher key (seat breaks a tie that never resolved)
    for p in range(P):
        pos = 0
        for q in range(P):
            if key[q] > key[p] or (key[q] == key[p] and q < p):
                pos += 1
        s.pl[b, p, PL_TIE] = pos
        s.pl[b, p, PL_RACE] = -1
    s.g[b, G_SETUP_LEFT] = 0
    set_stage(s, b, ST_RACE, player_with_tie_pos(s, cfg, b, 0))


@nb.njit(cache=True)
def player_with_tie_pos(s, cfg, b, pos):
    for p in range(cfg.k[K_P]):
        if s.pl[b, p, PL_TIE] == pos:
            return p
    return 0


@nb.njit(cache=True)
def after_race_pick(s, cfg, b):
    P = cfg.k[K_P]
    s.g[b, G_SETUP_LEFT] += 1
    if s.g[b, G_SETUP_LEFT] < P:
        set_stage(s, b, ST_RACE, player_with_tie_pos(s, cfg, b, s.g[b, G_SETUP_LEFT]))
        return
    N = cfg.k[K_PER_PLAYER]
    for p in range(P):
        N = min(N, race_size(cfg, s.pl[b, p, PL_RACE]))
        s.pl[b, p, PL_TIE] = 0
    NS = cfg.k[K_NS]
    order = np.empty(NS, dtype=np.int32)
    for p in range(P):
        n = 0
        for i in range(NS):
            if race_of(cfg, i) == s.pl[b, p, PL_RACE] and s.sh[b, i, SH_LOC] == SL_POOL:
                order[n] = i
                n += 1
        for j in range(n - 1, 0, -1):
            k = draw_int(s.rng, b, j + 1)
            t = order[j]
            order[j] = order[k]
            order[k] = t
        for j in range(min(N, n)):
            place_ship(s, cfg, b, order[j], p, -1 if uses_formation(cfg) else L_SCREEN)
            hide_until_placed(s, cfg, b, order[j])
    pool_to_deck(s, cfg, b)
    begin_reserve_setup(s, cfg, b)


# ============================================================================================
# the attack table: multipliers, cancellations, reductions
# ============================================================================================
@nb.njit(cache=True, inline="always")
def is_multiplier(t):
    return t == T_OVERLOAD or t == T_ENVELOPER or t == T_SCATTER or t == T_LGUNNER


@nb.njit(cache=True, inline="always")
def on_table(s, b, c):
    loc = s.cd[b, c, CD_LOC]
    return loc == CL_ATK or loc == CL_DEF


@nb.njit(cache=True)
def multiplier_of(s, cfg, b, x):
    """The combat card doubling weapon card x (Overload, Enveloper, Scatterpack, Legendary
    Gunner), or -1."""
    for c in range(cfg.k[K_NC]):
        if on_table(s, b, c) and s.cd[b, c, CD_LINK] == x and is_multiplier(cfg.card[c, CC_TYPE]) \
                and s.cd[b, c, CD_LOC] == s.cd[b, x, CD_LOC]:
            return c
    return -1


@nb.njit(cache=True, inline="always")
def is_canceller(t):
    # defence cards that remove one drone card or its scatterpack (SFBF 4.4 C1, C2, D)
    return t == T_DRONE or t == T_PLR or t == T_PLS or t == T_TRACTOR or t == T_SCATTER


@nb.njit(cache=True)
def cancels_on(s, cfg, b, x):
    n = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_DEF and s.cd[b, c, CD_LINK] == x and not s.cd[b, c, CD_OFF]:
            t = cfg.card[c, CC_TYPE]
            if is_canceller(t) or ((t == T_ECM or t == T_EM) and cfg.k[K_TRAD]):
                n += 1
    return n


@nb.njit(cache=True)
def layers(s, cfg, b, x):
    """A drone card with a scatterpack takes two cancellations: the first removes the
    scatterpack, the second the drone (SFBF 4.4 C1, D)."""
    return 2 if (cfg.card[x, CC_TYPE] == T_DRONE and multiplier_of(s, cfg, b, x) >= 0) else 1


@nb.njit(cache=True)
def em_on_target(s, cfg, b, c):
    """Card c is an Erratic Maneuvers on the current target, not cancelled by an ECCM for this attack."""
    return (s.cd[b, c, CD_LOC] == CL_SHIP and s.cd[b, c, CD_WHO] == s.g[b, G_TARGET]
            and cfg.card[c, CC_TYPE] == T_EM and s.cd[b, c, CD_OFF] == 0)


@nb.njit(cache=True)
def attack_live(s, cfg, b, x):
    """Attack card x still counts (not every layer cancelled)."""
    return s.cd[b, x, CD_LOC] == CL_ATK and cancels_on(s, cfg, b, x) < layers(s, cfg, b, x)


@nb.njit(cache=True)
def defence_halved(s, cfg, b):
    """Cloak and web halve the effect of every defence card of the ship (SFBF Occultamento,
    Ragnatela); rounded down (RULES.md)."""
    t = s.g[b, G_TARGET]
    return (s.sh[b, t, SH_CLOAK] != 0) or (s.sh[b, t, SH_WEB] != 0)


@nb.njit(cache=True)
def defence_effect(s, cfg, b, v):
    """A defence card's reduction v, halved (rounded down) under the target's cloak or web
    and again while its Wild Weasel works (SFBF 4.4 F: "Altre difese hanno effetto al 50%")."""
    if defence_halved(s, cfg, b):
        v = v // 2
    if ww_active(s, b):
        v = v // 2
    return v


@nb.njit(cache=True)
def ww_active(s, b):
    t = s.g[b, G_TARGET]
    return s.sh[b, t, SH_WW] != 0 and not (s.g[b, G_CANCELS] & CX_WW)


@nb.njit(cache=True)
def card_attack_value(s, cfg, b, x):
    """Damage of attack card x after its multiplier, cancellations and phaser reductions."""
    t = cfg.card[x, CC_TYPE]
    v = cfg.card[x, CC_VALUE]
    n_cancel = cancels_on(s, cfg, b, x)
    m = multiplier_of(s, cfg, b, x)
    lay = 2 if (t == T_DRONE and m >= 0) else 1
    if n_cancel >= lay:
        return 0
    if m >= 0 and n_cancel == 0:
        v *= 2
    # SFBF 4.4 C3: a phaser fired in defence reduces a drone or plasma card by its value
    red = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_DEF and s.cd[b, c, CD_LINK] == x and is_phaser(cfg.card[c, CC_TYPE]):
            red += defence_effect(s, cfg, b, cfg.card[c, CC_VALUE])
    v = max(0, v - red)
    # SFBF 4.4 F: Wild Weasel eliminates drone and plasma cards (with their enveloper/scatterpack)
    if is_seeking(t) and ww_active(s, b):
        return 0
    return v


@nb.njit(cache=True)
def defence_fire_total(s, cfg, b, who):
    """Damage that player ``who`` fired this attack at fighters or at a PF Flotilla."""
    tot = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_DEF and s.cd[b, c, CD_WHO] == who and cfg.card[c, CC_TYPE] < N_WEAPONS:
            v = cfg.card[c, CC_VALUE]
            if multiplier_of(s, cfg, b, c) >= 0:
                v *= 2
            tot += v
    return tot


@nb.njit(cache=True)
def pf_fire_total(s, cfg, b):
    tot = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_DEF and cfg.card[c, CC_TYPE] < N_WEAPONS:
            v = cfg.card[c, CC_VALUE]
            if multiplier_of(s, cfg, b, c) >= 0:
                v *= 2
            tot += v
    return tot


@nb.njit(cache=True)
def attack_damage(s, cfg, b):
    """SFBF 4.5 Risoluzione: the damage the target takes."""
    kind = s.g[b, G_ATK_KIND]
    t = s.g[b, G_TARGET]
    if s.g[b, G_DEF_BITS] & DB_DISENGAGE:
        return 0                 # SFBF 4.4 G: the whole attack is avoided
    NC = cfg.k[K_NC]
    per_card = em_ecm_per_card(cfg, kind)
    total = 0
    seeking = 0                  # damage of the drone and plasma cards (not "fuoco diretto")
    if kind == AK_SHIP:
        # each attack card's damage after its multiplier, cancellations and phaser reductions
        vals = scratch_i32(MAX_CARDS)
        ids = scratch_i32(MAX_CARDS)
        n = 0
        for x in range(NC):
            if s.cd[b, x, CD_LOC] == CL_ATK and cfg.card[x, CC_TYPE] < N_WEAPONS:
                vals[n] = card_attack_value(s, cfg, b, x)
                ids[n] = x
                n += 1
        if per_card and not cfg.k[K_TRAD]:
            # SFBF 4.4 B, E: an ECM or Erratic Maneuvers reduces the attack card it was played on (with
            # its Overload, Scatterpack, ...: "la totalità dell'attacco"), never below 0: "l'eccedenza
            # del suo effetto viene ignorata"; an Erratic Maneuvers left on the ship from an earlier
            # attack goes on the strongest card (RULES.md)
            for rnd in range(2):
                for c in range(NC):
                    ty = cfg.card[c, CC_TYPE]
                    if ty == T_ECM:
                        if s.cd[b, c, CD_LOC] != CL_DEF or s.cd[b, c, CD_OFF] or rnd == 1:
                            continue
                    elif ty != T_EM or not em_on_target(s, cfg, b, c):
                        continue
                    x = s.cd[b, c, CD_LINK]
                    linked = x >= 0 and s.cd[b, x, CD_LOC] == CL_ATK
                    if linked != (rnd == 0):
                        continue
                    j = -1
                    for jj in range(n):
                        if (linked and ids[jj] == x) or (not linked and (j < 0 or vals[jj] > vals[j])):
                            j = jj
                    if j >= 0:
                        vals[j] = max(0, vals[j] - defence_effect(s, cfg, b, cfg.card[c, CC_VALUE]))
        elif cfg.k[K_TRAD]:
            # traditional rules: each Erratic Maneuvers on the target removes the strongest attack card
            for c in range(NC):
                if em_on_target(s, cfg, b, c):
                    j = -1
                    for jj in range(n):
                        if j < 0 or vals[jj] > vals[j]:
                            j = jj
                    if j >= 0:
                        vals[j] = 0
        for j in range(n):
            total += vals[j]
            if is_seeking(cfg.card[ids[j], CC_TYPE]):
                seeking += vals[j]
        if total > 0:
            total += s.g[b, G_PT_ADD]          # Prime Team: +1 after the multipliers
    elif kind == AK_FIGHTERS or kind == AK_PBF:
        # SFBF Attacco dei caccia F4: dice minus the defence fire; negative means no effect
        total = max(0, s.g[b, G_ROLL] + s.g[b, G_PT_ADD] - s.g[b, G_DEF_FIRE])
    elif kind == AK_PF:
        total = s.g[b, G_ROLL] + s.g[b, G_PT_ADD]
    if total <= 0:
        return 0
    # reductions on the whole attack: Reinforce Shields 3; ECM its value and each Erratic Maneuvers
    # 4 when they act on the whole attack (fighters, PFs, option em_ecm='whole_attack')
    halved = defence_halved(s, cfg, b)
    red = 0
    for c in range(NC):
        ty = cfg.card[c, CC_TYPE]
        if s.cd[b, c, CD_LOC] == CL_DEF and not s.cd[b, c, CD_OFF]:
            if ty == T_RS or (ty == T_ECM and not per_card):
                red += defence_effect(s, cfg, b, cfg.card[c, CC_VALUE])
        elif ty == T_EM and not per_card and em_on_target(s, cfg, b, c):
            red += defence_effect(s, cfg, b, cfg.card[c, CC_VALUE])
    total = max(0, total - red)
    if ww_active(s, b):
        # SFBF 4.4 F: other damage halved after the other reductions (7 becomes 4); a cloaked or
        # webbed ship's Wild Weasel is itself halved: three quarters of the damage get through
        total = (3 * total + 3) // 4 if halved else half_up(total)
    if cloaked(s, b, t):
        total = half_up(total)   # SFBF Regole sull'Occultamento: "tutto il danno" halved, 5 become 3
    elif webbed(s, b, t):
        # SFBF Regole sulla Ragnatela Toliana: "Il fuoco diretto ... è ridotto del 50%, per eccesso":
        # drone and plasma damage passes whole, the rest (direct fire, fighters F4, PFs) is halved
        seek = min(total, seeking)
        total = seek + half_up(total - seek)
    return total


# ============================================================================================
# legality, family by family
# ============================================================================================
@nb.njit(cache=True)
def defender_can_fire(s, cfg, b, i, t, vs_fighters):
    """Ship i fires weapon card type t in defence: not cloaked, no Wild Weasel on it, no phasers
    under a web (except at fighters, SFBF Attacco dei caccia F4), and a free matching weapon."""
    if not in_fleet(s, b, i) or cloaked(s, b, i) or s.sh[b, i, SH_WW]:
        return False
    if webbed(s, b, i) and is_phaser(t) and not vs_fighters:
        return False
    return ship_fires(s, cfg, b, i, t)


@nb.njit(cache=True)
def def_weapon_link_ok(s, cfg, b, m, x):
    """Defence weapon card m against attack card x (SFBF 4.4 C1-C3 and the card symbols)."""
    if s.cd[b, x, CD_LOC] != CL_ATK or not attack_live(s, cfg, b, x):
        return False
    tm = cfg.card[m, CC_TYPE]
    tx = cfg.card[x, CC_TYPE]
    bits = cfg.card[m, CC_DEF]
    if tx == T_DRONE:
        return (bits & D_DRONE) != 0 and (tm == T_DRONE or tm == T_PLR or tm == T_PLS or is_phaser(tm))
    if is_plasma(tx):
        return (bits & D_PLASMA) != 0 and is_phaser(tm)
    return False


@nb.njit(cache=True)
def link_ok(s, cfg, b, m, x):
    """May pending card m be linked to card x in the current stage?"""
    if m < 0 or x == m:
        return False
    tm = cfg.card[m, CC_TYPE]
    p = s.cd[b, m, CD_WHO]
    ret = s.g[b, G_RETURN]
    if is_multiplier(tm) and (ret == ST_ATK_CARDS or ret == ST_FTR_DEF or ret == ST_PF_FIRE):
        loc = CL_ATK if ret == ST_ATK_CARDS else CL_DEF
        if s.cd[b, x, CD_LOC] != loc or s.cd[b, x, CD_WHO] != p:
            return False
        tx = cfg.card[x, CC_TYPE]
        if tx >= N_WEAPONS or multiplier_of(s, cfg, b, x) >= 0:
            return False
        if tm == T_OVERLOAD:
            return tx == T_PHOTON or tx == T_DISR
        if tm == T_ENVELOPER:
            return tx == T_PLS or tx == T_PLR
        if tm == T_SCATTER:
            return tx == T_DRONE
        return True              # Legendary Gunner: any one fire card
    if ret == ST_DEFENCE:
        if tm == T_TRACTOR or tm == T_SCATTER:
            return s.cd[b, x, CD_LOC] == CL_ATK and cfg.card[x, CC_TYPE] == T_DRONE and attack_live(s, cfg, b, x)
        if (tm == T_ECM or tm == T_EM) and em_ecm_per_card(cfg, s.g[b, G_ATK_KIND]):
            # SFBF 4.4 B, E: on one attack card (traditional rules: it removes that card)
            return s.cd[b, x, CD_LOC] == CL_ATK and cfg.card[x, CC_TYPE] < N_WEAPONS and attack_live(s, cfg, b, x)
        if tm < N_WEAPONS:
            return def_weapon_link_ok(s, cfg, b, m, x)
        return False
    if ret == ST_REACT:
        t = s.g[b, G_TARGET]
        if tm == T_ECCM:
            # SFBF 4.4 B, E: cancels one ECM or one Erratic Maneuvers on the target for this attack
            if s.cd[b, x, CD_LOC] == CL_DEF and cfg.card[x, CC_TYPE] == T_ECM and not s.cd[b, x, CD_OFF]:
                return True
            return em_on_target(s, cfg, b, x)
        if tm == T_TRACTOR:
            return x == s.sh[b, t, SH_WW] - 1 and not (s.g[b, G_CANCELS] & CX_WW)
    return False


@nb.njit(cache=True)
def any_link(s, cfg, b, m):
    for x in range(cfg.k[K_NC]):
        if link_ok(s, cfg, b, m, x):
            return True
    return False


@nb.njit(cache=True)
def any_link_for(s, cfg, b, m, ret):
    old = s.g[b, G_RETURN]
    s.g[b, G_RETURN] = ret
    ok = any_link(s, cfg, b, m)
    s.g[b, G_RETURN] = old
    return ok


@nb.njit(cache=True)
def fire_ship_ok(s, cfg, b, p, m, i):
    """May ship i fire pending weapon card m at fighters (F3) or at a PF Flotilla?"""
    t = cfg.card[m, CC_TYPE]
    if not in_fleet(s, b, i) or s.sh[b, i, SH_OWNER] != p:
        return False
    kind = s.g[b, G_ATK_KIND]
    if kind == AK_PF:
        if uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE:
            return False
        if cfg.k[K_P] != 2 and s.sh[b, i, SH_SHOTS] > 0:
            return False         # one fire card per ship
        if cfg.k[K_P] == 2 and s.g[b, G_PF_SHOTS] >= 2:
            return False         # two players: the defender fires twice in all (RULES.md)
        return defender_can_fire(s, cfg, b, i, t, False)
    target = s.g[b, G_TARGET]
    if i != target:
        # SFBF F3 (X): a screen ship may fire for a target in the main body
        if not (uses_formation(cfg) and s.sh[b, target, SH_LINE] == L_MAIN and s.sh[b, i, SH_LINE] == L_SCREEN):
            return False
        h = s.g[b, G_HELPER]
        if h >= 0 and h != i:
            return False
    return defender_can_fire(s, cfg, b, i, t, True)


@nb.njit(cache=True)
def any_fire_ship(s, cfg, b, p, m):
    for i in range(cfg.k[K_NS]):
        if fire_ship_ok(s, cfg, b, p, m, i):
            return True
    return False


@nb.njit(cache=True)
def pt_cancel_possible(s, cfg, b, ww):
    """Can a Prime Team cancel the target's cloak or web (``ww`` False) or its Wild Weasel (True)?
    SFBF Equipaggio esperto: "nega l'effetto dell'Occultamento, della Ragnatela o l'uso di un
    Vascello Diversivo"; the player chooses which."""
    t = s.g[b, G_TARGET]
    if t < 0:
        return False
    if not ww:
        return s.sh[b, t, SH_CLOAK] != 0 or s.sh[b, t, SH_WEB] != 0
    st = s.g[b, G_STAGE]
    if st == ST_PT_MODE:
        st = s.g[b, G_RETURN]
    return st == ST_REACT and ww_active(s, b)


@nb.njit(cache=True)
def count_own_def(s, cfg, b, p, typ):
    n = 0
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_DEF and s.cd[b, c, CD_WHO] == p and cfg.card[c, CC_TYPE] == typ:
            n += 1
    return n


@nb.njit(cache=True)
def defence_card_reason(s, cfg, b, p, c):
    """SFBF 4.4 Difesa and the table of attacks, defences and reactions."""
    t = cfg.card[c, CC_TYPE]
    kind = s.g[b, G_ATK_KIND]
    tg = s.g[b, G_TARGET]
    bits = s.g[b, G_DEF_BITS]
    if t == T_RS:
        return OK
    if t == T_ECM:
        if em_ecm_per_card(cfg, kind) and not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_LINK
        return OK
    if t == T_EM:
        if s.sh[b, tg, SH_CLOAK] or s.sh[b, tg, SH_WEB]:
            return R_SHIP_STATE  # a cloaked or webbed ship cannot use Erratic Maneuvers
        # (a second Erratic Maneuvers on a ship that has one is allowed: SFBF 4.4 B forbids only
        # the same card twice and a Wild Weasel with it against the same attack)
        if bits & DB_WW:
            return R_WW_EM       # not with a Wild Weasel against the same attack
        if em_ecm_per_card(cfg, kind) and not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_LINK
        return OK
    if t == T_WW:
        if s.sh[b, tg, SH_WW]:
            return R_ONCE
        if bits & DB_EM:
            return R_WW_EM
        return OK
    if t == T_DISENGAGE:
        return OK
    if kind != AK_SHIP:
        return R_CARD_USE        # against fighters and PFs only the cards above (weapons fire before)
    if t < N_WEAPONS:
        if not defender_can_fire(s, cfg, b, tg, t, False):
            return R_NO_WEAPON
        if not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_DEF_SYMBOL
        return OK
    if t == T_TRACTOR:
        if s.sh[b, tg, SH_WW] or cloaked(s, b, tg):
            return R_SHIP_STATE  # Wild Weasel: no weapon, tractor beam included, in defence
        if not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_LINK
        return OK
    if t == T_SCATTER:
        if count_own_def(s, cfg, b, p, T_SCATTER) >= count_own_def(s, cfg, b, p, T_DRONE):
            return R_COMBINE     # a scatterpack goes with a drone card fired in defence (C1)
        if not any_link_for(s, cfg, b, c, ST_DEFENCE):
            return R_LINK
        return OK
    return R_CARD_USE


@nb.njit(cache=True)
def react_card_reason(s, cfg, b, p, c):
    """The attacker's answers to a defence: ECCM, Tractor Beam, Prime Team."""
    t = cfg.card[c, CC_TYPE]
    kind = s.g[b, G_ATK_KIND]
    if t == T_ECCM:
        return OK if any_link_for(s, cfg, b, c, ST_REACT) else R_LINK
    if t == T_TRACTOR:
        # SFBF 4.4 F (X): "Se l'attacco è stato lanciato da una nave in Prima Linea": the ship that
        # fired or, for fighters, the carrier that launched them must be in the screen
        if (kind == AK_SHIP or kind == AK_FIGHTERS) and uses_formation(cfg) \
                and s.sh[b, s.g[b, G_ATK_SHIP], SH_LINE] != L_SCREEN:
            return R_RANGE
        return OK if any_link_for(s, cfg, b, c, ST_REACT) else R_LINK
    if t == T_PRIME:
        return OK
    return R_CARD_USE


@nb.njit(cache=True)
def fire_card_reason(s, cfg, b, p, c):
    """Cards fired at attacking fighters (F3) or at a PF Flotilla."""
    t = cfg.card[c, CC_TYPE]
    kind = s.g[b, G_ATK_KIND]
    if t < N_WEAPONS:
        need = D_PF if kind == AK_PF else D_FIGHTER
        if not (cfg.card[c, CC_DEF] & need):
            return R_DEF_SYMBOL
        return OK if any_fire_ship(s, cfg, b, p, c) else R_NO_WEAPON
    if t == T_SCATTER or (t == T_LGUNNER and (cfg.k[K_ADVANCED] or kind == AK_PF)):
        ret = s.g[b, G_STAGE]
        return OK if any_link_for(s, cfg, b, c, ret) else R_LINK
    return R_CARD_USE


@nb.njit(cache=True)
def attack_phase_card_reason(s, cfg, b, p, c):
    t = cfg.card[c, CC_TYPE]
    first = s.g[b, G_ATTACKS] == 0
    if t == T_PBF:
        if not cfg.k[K_FIGHTERS]:
            return R_CARD_USE
        return OK if any_target(s, cfg, b, p) else R_TARGET
    if t == T_PF or t == T_MUTINY or t == T_CEASE:
        if not first:
            return R_NOT_FIRST_ATTACK    # not in a turn in which an attack is made
        if t == T_CEASE:
            return OK
        for i in range(cfg.k[K_NS]):
            if t == T_PF and target_reason(s, cfg, b, p, i) == OK:
                return OK
            if t == T_MUTINY and mutiny_target_ok(s, cfg, b, p, i):
                return OK
        return R_TARGET
    return R_CARD_USE


@nb.njit(cache=True, forceinline=True)
def mutiny_target_ok(s, cfg, b, p, i):
    """SFBF Ammutinamento Klingon: an enemy Klingon ship, not in the reserve."""
    if not in_fleet(s, b, i) or cfg.ship[i, SC_RACE] != RACE_KLINGON:
        return False
    q = s.sh[b, i, SH_OWNER]
    if not enemies(s, cfg, b, p, q):
        return False
    return not (uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE)


@nb.njit(cache=True)
def atk_cards_reason(s, cfg, b, p, c):
    t = cfg.card[c, CC_TYPE]
    ship = s.g[b, G_ATK_SHIP]
    tg = s.g[b, G_TARGET]
    if t < N_WEAPONS:
        return attack_card_reason(s, cfg, b, ship, tg, t)
    if is_multiplier(t):
        if t == T_OVERLOAD and uses_formation(cfg) and (s.sh[b, ship, SH_LINE] == L_MAIN
                                                       or s.sh[b, tg, SH_LINE] == L_MAIN):
            return R_RANGE       # no overloads from or at the main body
        return OK if any_link_for(s, cfg, b, c, ST_ATK_CARDS) else R_LINK
    if t == T_PRIME:
        return OK
    return R_CARD_USE


@nb.njit(cache=True)
def card_reason(s, cfg, b, p, c):
    """Reason code for the CARD action on card c by the decider p."""
    loc = s.cd[b, c, CD_LOC]
    st = s.g[b, G_STAGE]
    mine_hand = loc == CL_HAND and s.cd[b, c, CD_WHO] == p
    mine_res = loc == CL_RES and s.cd[b, c, CD_WHO] == p
    t = cfg.card[c, CC_TYPE]
    if st == ST_LINK:
        return OK if link_ok(s, cfg, b, s.g[b, G_PENDING], c) else R_LINK
    if st == ST_DISC_ORDER:
        return OK if order_card_ok(s, cfg, b, c) else R_ORDER
    if st == ST_DRAW:
        return OK if (mine_res and cfg.k[K_ADVANCED]) else R_NOT_IN_HAND
    # advanced: a player other than the active one with an empty hand may take a reserve card
    if mine_res and (st == ST_DEFENCE or st == ST_FTR_DEF or st == ST_PF_FIRE or st == ST_MUTINY_DEF):
        if cfg.k[K_ADVANCED] and s.pl[b, p, PL_HAND] == 0 and p != s.g[b, G_ACTIVE]:
            return OK
        return R_NOT_IN_HAND
    if not mine_hand:
        return R_NOT_IN_HAND
    if st == ST_RES_SETUP or st == ST_REDRAW or st == ST_DISCARD:
        return OK
    if st == ST_CEASE_KEEP:
        return OK if s.pl[b, p, PL_RES] < 3 else R_RESERVE_FULL
    if st == ST_REPAIR:
        if t != T_DC and t != T_LENG:
            return R_CARD_USE
        if s.g[b, G_REPAIRED]:
            return R_ONCE        # one repair card per turn (SFBF Sequenza di gioco 2)
        return OK if own_damaged(s, cfg, b, p) else R_NO_DAMAGE
    if st == ST_FORMATION:
        if t != T_REINF:
            return R_CARD_USE
        if s.g[b, G_FORM_KIND] != 1 or s.g[b, G_FORM_MOVES] > 0:
            return R_STAGE       # reinforcements come before the formation moves
        return OK if s.g[b, G_SDECK_N] > 0 else R_DECK_EMPTY
    if st == ST_ATTACK:
        return attack_phase_card_reason(s, cfg, b, p, c)
    if st == ST_PBF_MORE:
        return OK if t == T_PBF else R_CARD_USE
    if st == ST_ATK_CARDS:
        return atk_cards_reason(s, cfg, b, p, c)
    if st == ST_DEFENCE:
        return defence_card_reason(s, cfg, b, p, c)
    if st == ST_REACT:
        return react_card_reason(s, cfg, b, p, c)
    if st == ST_FTR_DEF or st == ST_PF_FIRE:
        return fire_card_reason(s, cfg, b, p, c)
    if st == ST_MUTINY_ATK or st == ST_MUTINY_DEF:
        return OK if t == T_PRIME else R_CARD_USE
    return R_STAGE


@nb.njit(cache=True, forceinline=True)
def fleet_lines(s, b, p):
    """Player p's ships in the screen, the main body and the reserve, and the reserve ships
    free to move (no Wild Weasel, no web), in one pass over the ships: the formation rules
    need these counts for every ship and line while the formation mask is built."""
    sh = s.sh
    screen = 0
    main = 0
    reserve = 0
    free_reserve = 0
    for i in range(sh.shape[1]):
        if sh[b, i, SH_LOC] == SL_FLEET and sh[b, i, SH_OWNER] == p:
            line = sh[b, i, SH_LINE]
            if line == L_SCREEN:
                screen += 1
            elif line == L_MAIN:
                main += 1
            elif line == L_RESERVE:
                reserve += 1
                if not sh[b, i, SH_WW] and not sh[b, i, SH_WEB]:
                    free_reserve += 1
    return screen, main, reserve, free_reserve


@nb.njit(cache=True, forceinline=True)
def move_reason_ship(s, cfg, b, p, i, line):
    """The conditions of a formation change that concern ship i alone (checked first: cheap)."""
    if not uses_formation(cfg):
        return R_NOT_ADVANCED
    if not in_fleet(s, b, i) or s.sh[b, i, SH_OWNER] != p:
        return R_NOT_YOURS
    if s.sh[b, i, SH_LINE] == line:
        return R_LINE_MOVE
    if s.sh[b, i, SH_WW] or s.sh[b, i, SH_WEB]:
        return R_SHIP_STATE      # Wild Weasel or web: no formation change
    return OK


@nb.njit(cache=True, forceinline=True)
def move_reason_lines(s, b, i, line, lines):
    """The conditions of a formation change that depend on the line counts ``fleet_lines``."""
    screen, main, reserve, _ = lines
    frm = s.sh[b, i, SH_LINE]
    if (s.g[b, G_MOVED] & (1 << frm)) and not (frm == L_RESERVE and reserve > 2):
        return R_LINE_MOVE
    if line == L_RESERVE:
        if reserve >= 2:
            return R_RESERVE_FULL
        if screen + main <= 1:
            return R_LEAVE_EMPTY
    return OK


@nb.njit(cache=True, forceinline=True)
def move_reason(s, cfg, b, p, i, line):
    """A formation change: one ship out of each line per phase (SFBF Sequenza di gioco 3 (X),
    Regole sulla Formazione)."""
    r = move_reason_ship(s, cfg, b, p, i, line)
    if r != OK:
        return r
    return move_reason_lines(s, b, i, line, fleet_lines(s, b, p))


@nb.njit(cache=True, forceinline=True)
def activation_reason(s, cfg, b, p, i):
    r = device_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    # switching a device on costs the formation move of the ship's line
    bit = (1 << s.sh[b, i, SH_LINE]) if uses_formation(cfg) else 1
    if s.g[b, G_MOVED] & bit:
        return R_LINE_MOVE
    return OK


@nb.njit(cache=True, forceinline=True)
def formation_done_reason(s, cfg, b, p):
    if not uses_formation(cfg):
        return OK
    screen, main, reserve, movable = fleet_lines(s, b, p)
    if reserve > 2 and movable > 0:
        return R_MUST_RESERVE    # the reserve goes back down to two this phase
    if screen + main == 0 and movable > 0:
        return R_NEED_FRONT      # no ship in screen or main body: one comes out of the reserve
    return OK


@nb.njit(cache=True, forceinline=True)
def formation_ship_reason(s, cfg, b, p, i, lines):
    """Ship action in the formation phase: move ship i (then choose the line), or switch its
    cloak or web; ``lines`` are p's ``fleet_lines``."""
    if not in_fleet(s, b, i) or s.sh[b, i, SH_OWNER] != p:
        return R_NOT_YOURS
    for line in range(LINES):
        if move_reason_ship(s, cfg, b, p, i, line) == OK and move_reason_lines(s, b, i, line, lines) == OK:
            return OK
    if activation_reason(s, cfg, b, p, i) == OK:
        return OK
    if s.sh[b, i, SH_CLOAK] and s.g[b, G_FORM_KIND] == 1:
        return OK
    return R_LINE_MOVE


@nb.njit(cache=True, forceinline=True)
def ship_reason(s, cfg, b, p, i):
    st = s.g[b, G_STAGE]
    if st == ST_PICK:
        return pick_reason(s, cfg, b, p, i)
    if st == ST_DUEL_PICK:
        return OK if duel_pick_ok(s, cfg, b, p, i) else R_NOT_YOURS
    if st == ST_CLOAK_SETUP:
        return device_reason(s, cfg, b, p, i)
    if st == ST_REPAIR_SHIP:
        if not in_fleet(s, b, i) or s.sh[b, i, SH_OWNER] != p:
            return R_NOT_YOURS
        return OK if damage_of(s, b, i) > 0 else R_NO_DAMAGE
    if st == ST_FORMATION:
        return formation_ship_reason(s, cfg, b, p, i, fleet_lines(s, b, p))
    if st == ST_ATTACK:
        return ship_attack_reason(s, cfg, b, p, i)
    if st == ST_CARRIER:
        r = carrier_reason(s, cfg, b, p, i)
        if r == OK and not any_target(s, cfg, b, p):
            return R_TARGET
        return r
    if st == ST_TARGET:
        kind = s.g[b, G_ATK_KIND]
        if kind == AK_MUTINY:
            return OK if mutiny_target_ok(s, cfg, b, p, i) else R_NOT_KLINGON
        r = target_reason(s, cfg, b, p, i)
        if r != OK:
            return r
        if kind == AK_SHIP and not has_attack_card(s, cfg, b, p, s.g[b, G_ATK_SHIP], i):
            return R_NEED_WEAPON
        return OK
    if st == ST_SHIP_FOR:
        return OK if fire_ship_ok(s, cfg, b, p, s.g[b, G_PENDING], i) else R_NO_WEAPON
    return R_STAGE


@nb.njit(cache=True, forceinline=True)
def named_reason(s, cfg, b, p, n):
    st = s.g[b, G_STAGE]
    if n == N_DONE:
        if st == ST_PICK:
            return OK if (cfg.k[K_SELECTION] == SEL_POINTS and fleet_size(s, b, p) > 0) else R_STAGE
        if st == ST_CLOAK_SETUP or st == ST_REPAIR or st == ST_ATTACK or st == ST_PBF_MORE:
            return OK
        if st == ST_FORMATION:
            return formation_done_reason(s, cfg, b, p)
        if st == ST_ATK_CARDS:
            for c in range(cfg.k[K_NC]):
                if s.cd[b, c, CD_LOC] == CL_ATK and cfg.card[c, CC_TYPE] < N_WEAPONS:
                    return OK
            return R_NEED_WEAPON
        if st == ST_DEFENCE or st == ST_REACT or st == ST_FTR_DEF or st == ST_PF_FIRE:
            return OK
        if st == ST_MUTINY_ATK or st == ST_MUTINY_DEF or st == ST_CEASE_KEEP or st == ST_DISCARD:
            return OK
        if st == ST_REDRAW:
            return OK if s.g[b, G_REDRAW_N] > 0 else R_STAGE
        return R_STAGE
    if n == N_DRAW_DECK:
        if st != ST_DRAW:
            return R_STAGE
        return OK if s.g[b, G_DECK_N] + s.g[b, G_DISC_N] > 0 else R_DECK_EMPTY
    if n == N_DRAW_DISCARD:
        if st != ST_DRAW or not cfg.k[K_DRAW_DISCARD]:
            return R_STAGE
        if s.g[b, G_DREW_DISCARD]:
            return R_ONCE        # only one of the cards drawn may be the top discard
        return OK if s.g[b, G_DISC_N] > 0 else R_DECK_EMPTY
    if n == N_KEEP:
        return OK if st == ST_KEEP else R_STAGE
    if n == N_TO_RESERVE:
        if st != ST_KEEP and st != ST_DISC_DEST:
            return R_STAGE
        if not cfg.k[K_ADVANCED]:
            return R_NOT_ADVANCED
        return OK if s.pl[b, p, PL_RES] < 3 else R_RESERVE_FULL
    if n == N_TO_DISCARD:
        return OK if st == ST_DISC_DEST else R_STAGE
    if n == N_TO_ALLY:
        if st != ST_DISC_DEST or not cfg.k[K_ALLIES] or not cfg.k[K_ADVANCED]:
            return R_STAGE
        a = ally_of(s, cfg, b, p)
        return OK if (a >= 0 and s.pl[b, a, PL_RES] < 3) else R_RESERVE_FULL
    if n == N_FIGHTERS:
        if st != ST_ATTACK:
            return R_STAGE
        if not cfg.k[K_FIGHTERS]:
            return R_NO_FIGHTERS
        for i in range(cfg.k[K_NS]):
            if carrier_reason(s, cfg, b, p, i) == OK:
                return OK if any_target(s, cfg, b, p) else R_TARGET
        return R_NO_FIGHTERS
    if n == N_REDRAW:
        if st != ST_ATTACK:
            return R_STAGE
        if s.g[b, G_ATTACKS] > 0:
            return R_NOT_FIRST_ATTACK
        return OK if s.pl[b, p, PL_HAND] > 0 else R_NOT_IN_HAND
    if n == N_FORMATION2:
        if st != ST_ATTACK:
            return R_STAGE
        if not cfg.k[K_ADVANCED]:
            return R_NOT_ADVANCED
        return OK if s.g[b, G_ATTACKS] == 0 else R_NOT_FIRST_ATTACK
    if n == N_CDC:
        if st != ST_REPAIR:
            return R_STAGE
        if not cfg.k[K_ADVANCED] and not automaton(cfg, p):
            return R_NOT_ADVANCED    # (the solitaire automaton: "ad ogni turno", basic game too)
        if s.g[b, G_CDC]:
            return R_ONCE
        return OK if own_damaged(s, cfg, b, p) else R_NO_DAMAGE
    if n == N_PT_ADD:
        return OK if st == ST_PT_MODE else R_STAGE
    if n == N_PT_CANCEL:
        return OK if (st == ST_PT_MODE and pt_cancel_possible(s, cfg, b, False)) else R_STAGE
    if n == N_PT_CANCEL_WW:
        return OK if (st == ST_PT_MODE and pt_cancel_possible(s, cfg, b, True)) else R_STAGE
    if n == N_ACTIVATE:
        if st != ST_FORM_DEST:
            return R_STAGE
        return activation_reason(s, cfg, b, p, s.g[b, G_SEL])
    if n == N_DEACTIVATE:
        if st != ST_FORM_DEST:
            return R_STAGE
        i = s.g[b, G_SEL]
        return OK if (s.sh[b, i, SH_CLOAK] and s.g[b, G_FORM_KIND] == 1) else R_SHIP_STATE
    return R_NO_ACTION


@nb.njit(cache=True)
def ally_of(s, cfg, b, p):
    for q in range(cfg.k[K_P]):
        if q != p and s.pl[b, q, PL_TEAM] == s.pl[b, p, PL_TEAM]:
            return q
    return -1


@nb.njit(cache=True)
def action_reason(s, cfg, b, a):
    """0 if action a is legal for the player to decide in game b, else the reason code."""
    if s.g[b, G_DONE]:
        return R_OVER
    k = cfg.k
    if a < 0 or a >= k[K_N_ACTIONS]:
        return R_NO_ACTION
    p = s.g[b, G_DECIDER]
    st = s.g[b, G_STAGE]
    if a < k[K_A_SHIP]:
        return card_reason(s, cfg, b, p, a - k[K_A_CARD])
    if a < k[K_A_LINE]:
        return ship_reason(s, cfg, b, p, a - k[K_A_SHIP])
    if a < k[K_A_KIND]:
        line = a - k[K_A_LINE]
        if st == ST_LINE_SETUP:
            return setup_line_reason(s, cfg, b, p, line)
        if st == ST_FORM_DEST:
            return move_reason(s, cfg, b, p, s.g[b, G_SEL], line)
        return R_STAGE
    if a < k[K_A_NUM]:
        kind = a - k[K_A_KIND]
        if st == ST_PLACE:
            i = s.g[b, G_DMG_SHIP]
            return OK if s.sh[b, i, SH_COV + kind] < cfg.ship[i, SC_N + kind] else R_KIND
        if st == ST_UNMARK:
            return OK if s.sh[b, s.g[b, G_REP_SHIP], SH_COV + kind] > 0 else R_KIND
        return R_STAGE
    if a < k[K_A_RACE]:
        n = a - k[K_A_NUM] + 1
        if st != ST_SQUADRONS:
            return R_STAGE
        return OK if n <= symbols(s, cfg, b, s.g[b, G_ATK_SHIP], K_FTR) else R_SQUADRONS
    if a < k[K_A_NAMED]:
        if st != ST_RACE:
            return R_STAGE
        return race_reason(s, cfg, b, a - k[K_A_RACE])
    return named_reason(s, cfg, b, p, a - k[K_A_NAMED])


# ============================================================================================
# applying an action
# ============================================================================================
@nb.njit(cache=True)
def play_to_table(s, b, c, loc, p):
    set_card(s, b, c, loc, p)
    stamp_seq(s, b, c)


@nb.njit(cache=True)
def open_windows(s, cfg, b):
    """SFBF 4.4: the defender plays defences in the order it likes; the attacker may answer;
    the exchange ends when both pass in a row (RULES.md 'Defence and reaction windows')."""
    s.g[b, G_PASSES] = 0
    set_stage(s, b, ST_DEFENCE, s.g[b, G_DEFENDER])


@nb.njit(cache=True)
def window_pass(s, cfg, b):
    s.g[b, G_PASSES] += 1
    if s.g[b, G_PASSES] >= 2:
        resolve_attack(s, cfg, b)
    elif s.g[b, G_STAGE] == ST_DEFENCE:
        set_stage(s, b, ST_REACT, s.g[b, G_ACTIVE])
    else:
        set_stage(s, b, ST_DEFENCE, s.g[b, G_DEFENDER])


@nb.njit(cache=True)
def window_played(s, cfg, b):
    s.g[b, G_PASSES] = 0


@nb.njit(cache=True)
def after_pending(s, cfg, b):
    """Back to the stage the pending card was played from, once it is linked / placed."""
    st = s.g[b, G_RETURN]
    who = s.g[b, G_DECIDER]
    s.g[b, G_PENDING] = -1
    set_stage(s, b, st, who)
    if st == ST_DEFENCE or st == ST_REACT:
        window_played(s, cfg, b)


@nb.njit(cache=True)
def start_link(s, cfg, b, c, ret):
    s.g[b, G_PENDING] = c
    s.g[b, G_RETURN] = ret
    set_stage(s, b, ST_LINK, s.g[b, G_DECIDER])


@nb.njit(cache=True)
def start_prime(s, cfg, b, c, ret):
    s.g[b, G_PENDING] = c
    s.g[b, G_RETURN] = ret
    if pt_cancel_possible(s, cfg, b, False) or pt_cancel_possible(s, cfg, b, True):
        set_stage(s, b, ST_PT_MODE, s.g[b, G_DECIDER])
    else:
        apply_prime(s, cfg, b, PT_MODE_ADD)


@nb.njit(cache=True)
def apply_prime(s, cfg, b, mode):
    """SFBF Equipaggio esperto: +1 to the attack (after doublings) or to a die roll; or cancel
    the target's cloak or web (marker removed), or its Wild Weasel for this attack, as chosen."""
    c = s.g[b, G_PENDING]
    s.cd[b, c, CD_MODE] = mode
    if mode == PT_MODE_ADD:
        s.g[b, G_PT_ADD] += 1
    elif mode == PT_MODE_CANCEL:
        t = s.g[b, G_TARGET]
        if s.sh[b, t, SH_CLOAK]:
            s.sh[b, t, SH_CLOAK] = 0
            s.g[b, G_CANCELS] |= CX_CLOAK
        else:
            s.sh[b, t, SH_WEB] = 0
            s.g[b, G_CANCELS] |= CX_WEB
    else:
        s.g[b, G_CANCELS] |= CX_WW
    after_pending(s, cfg, b)


@nb.njit(cache=True)
def apply_link(s, cfg, b, x):
    m = s.g[b, G_PENDING]
    s.cd[b, m, CD_LINK] = x
    tm = cfg.card[m, CC_TYPE]
    if s.g[b, G_RETURN] == ST_REACT:
        if tm == T_ECCM:
            s.cd[b, x, CD_OFF] = 1           # that ECM / Erratic Maneuvers does not count this attack
            if cfg.card[x, CC_TYPE] == T_EM:
                s.g[b, G_CANCELS] |= CX_EM
        elif tm == T_TRACTOR:
            s.g[b, G_CANCELS] |= CX_WW     # the "anchor" tactic against a Wild Weasel
    after_pending(s, cfg, b)


@nb.njit(cache=True)
def play_defence(s, cfg, b, p, c):
    t = cfg.card[c, CC_TYPE]
    tg = s.g[b, G_TARGET]
    if s.cd[b, c, CD_LOC] == CL_RES:
        set_card(s, b, c, CL_HAND, p)      # SFBF Carte Azione di Riserva, note (a)
        return
    if t == T_EM or t == T_WW or t == T_DISENGAGE:
        # these stay on the ship until the end of its owner's next turn
        set_card(s, b, c, CL_SHIP, tg)
        stamp_seq(s, b, c)
        if t == T_EM:
            s.sh[b, tg, SH_EM] = c + 1       # (the last one; clear_ship_cards finds them all)
            s.g[b, G_DEF_BITS] |= DB_EM
        elif t == T_WW:
            s.sh[b, tg, SH_WW] = c + 1
            s.g[b, G_DEF_BITS] |= DB_WW
            if uses_formation(cfg) and s.sh[b, tg, SH_LINE] == L_MAIN:
                set_line(s, cfg, b, tg, L_SCREEN)   # SFBF 4.4 F (X)
        else:
            s.sh[b, tg, SH_DIS] = c + 1
            s.g[b, G_DEF_BITS] |= DB_DISENGAGE
        refill_empty_hand(s, cfg, b, p)
        if t == T_DISENGAGE:
            if cfg.k[K_ADVANCED] and uses_formation(cfg):
                set_line(s, cfg, b, tg, L_RESERVE)  # SFBF 4.4 G (X): to the reserve
                forced_advance(s, cfg, b, p)
            resolve_attack(s, cfg, b)
            return
        if t == T_EM and em_ecm_per_card(cfg, s.g[b, G_ATK_KIND]) and not cfg.k[K_TRAD]:
            start_link(s, cfg, b, c, ST_DEFENCE)   # SFBF 4.4 B: the attack card it reduces
            return
        window_played(s, cfg, b)
        return
    play_to_table(s, b, c, CL_DEF, p)
    refill_empty_hand(s, cfg, b, p)
    if t < N_WEAPONS:
        s.cd[b, c, CD_SHIP] = tg
    if t < N_WEAPONS or t == T_TRACTOR or t == T_SCATTER or (t == T_ECM and em_ecm_per_card(cfg, s.g[b, G_ATK_KIND])):
        start_link(s, cfg, b, c, ST_DEFENCE)
        return
    window_played(s, cfg, b)


@nb.njit(cache=True)
def apply_card(s, cfg, b, p, c):
    st = s.g[b, G_STAGE]
    t = cfg.card[c, CC_TYPE]
    if st == ST_LINK:
        apply_link(s, cfg, b, c)
    elif st == ST_DISC_ORDER:
        order_next(s, cfg, b, c)
    elif st == ST_DRAW:
        set_card(s, b, c, CL_HAND, p)
        continue_draw(s, cfg, b)
    elif st == ST_RES_SETUP:
        set_card(s, b, c, CL_RES, p)
        after_reserve_pick(s, cfg, b)
    elif st == ST_REPAIR:
        to_discard(s, b, c)
        s.g[b, G_REPAIRED] = 1
        s.g[b, G_PENDING] = c
        s.g[b, G_CDC_NEXT] = -1
        set_stage(s, b, ST_REPAIR_SHIP, p)
    elif st == ST_FORMATION:
        # SFBF Sequenza di gioco 3: Reinforcements draws a ship card into the fleet
        to_discard(s, b, c)
        n = s.g[b, G_SDECK_N] - 1
        i = s.sdeck[b, n]
        s.g[b, G_SDECK_N] = n
        # (advanced: into the reserve; if it is the only ship, formation_done_reason makes the
        # player bring one forward)
        place_ship(s, cfg, b, i, p, L_RESERVE if uses_formation(cfg) else L_SCREEN)
    elif st == ST_ATTACK:
        play_to_table(s, b, c, CL_ATK, p)
        if t == T_PBF:
            s.g[b, G_ATK_KIND] = AK_PBF
            set_stage(s, b, ST_PBF_MORE, p)
        elif t == T_PF:
            s.g[b, G_ATK_KIND] = AK_PF
            s.g[b, G_NO_MORE_ATTACKS] = 1
            s.g[b, G_PF_FIRER] = p
            next_pf_firer(s, cfg, b)
        elif t == T_MUTINY:
            s.g[b, G_ATK_KIND] = AK_MUTINY
            s.g[b, G_NO_MORE_ATTACKS] = 1
            set_stage(s, b, ST_TARGET, p)
        else:
            s.g[b, G_NO_MORE_ATTACKS] = 1
            start_ceasefire(s, cfg, b)
    elif st == ST_PBF_MORE:
        play_to_table(s, b, c, CL_ATK, p)
    elif st == ST_ATK_CARDS:
        play_to_table(s, b, c, CL_ATK, p)
        if t < N_WEAPONS:
            s.cd[b, c, CD_SHIP] = s.g[b, G_ATK_SHIP]
        elif is_multiplier(t):
            start_link(s, cfg, b, c, ST_ATK_CARDS)
        else:
            start_prime(s, cfg, b, c, ST_ATK_CARDS)
    elif st == ST_DEFENCE:
        play_defence(s, cfg, b, p, c)
    elif st == ST_REACT:
        play_to_table(s, b, c, CL_ATK, p)
        if t == T_PRIME:
            start_prime(s, cfg, b, c, ST_REACT)
        else:
            start_link(s, cfg, b, c, ST_REACT)
    elif st == ST_FTR_DEF or st == ST_PF_FIRE:
        if s.cd[b, c, CD_LOC] == CL_RES:
            set_card(s, b, c, CL_HAND, p)
            return
        play_to_table(s, b, c, CL_DEF, p)
        refill_empty_hand(s, cfg, b, p)
        s.g[b, G_PENDING] = c
        s.g[b, G_RETURN] = st
        if t < N_WEAPONS:
            set_stage(s, b, ST_SHIP_FOR, p)
        else:
            set_stage(s, b, ST_LINK, p)
    elif st == ST_MUTINY_ATK:
        play_to_table(s, b, c, CL_ATK, p)
        s.g[b, G_PT_ADD] += 1
    elif st == ST_MUTINY_DEF:
        if s.cd[b, c, CD_LOC] == CL_RES:
            set_card(s, b, c, CL_HAND, p)
            return
        play_to_table(s, b, c, CL_DEF, p)
        s.g[b, G_PT_SUB] += 1    # the Klingon owner's Prime Team: -1 to the mutiny roll
    elif st == ST_REDRAW:
        to_discard(s, b, c)
        s.g[b, G_REDRAW_N] += 1
    elif st == ST_CEASE_KEEP:
        set_card(s, b, c, CL_RES, p)
    elif st == ST_DISCARD:
        s.g[b, G_PENDING] = c
        set_stage(s, b, ST_DISC_DEST, p)


@nb.njit(cache=True)
def apply_ship(s, cfg, b, p, i):
    st = s.g[b, G_STAGE]
    if st == ST_PICK:
        place_ship(s, cfg, b, i, p, -1 if uses_formation(cfg) else L_SCREEN)
        if cfg.k[K_SELECTION] == SEL_CORE and s.g[b, G_PICK_PHASE] < 2:
            s.pl[b, p, PL_PASSED] = 1
        advance_pick(s, cfg, b)
    elif st == ST_DUEL_PICK:
        s.sh[b, i, SH_LOC] = SL_POOL
        s.sh[b, i, SH_OWNER] = p
        s.pl[b, p, PL_PASSED] = 1
        nxt = -1
        for q in range(cfg.k[K_P]):
            if not s.pl[b, q, PL_OUT] and not s.pl[b, q, PL_PASSED]:
                nxt = q
                break
        if nxt >= 0:
            set_stage(s, b, ST_DUEL_PICK, nxt)
        else:
            begin_duel(s, cfg, b)
    elif st == ST_CLOAK_SETUP:
        activate_device(s, cfg, b, i)
        after_cloak_setup(s, cfg, b)
    elif st == ST_REPAIR_SHIP:
        c = s.g[b, G_PENDING]
        s.g[b, G_PENDING] = -1
        if cfg.card[c, CC_TYPE] == T_LENG:
            start_repair(s, cfg, b, i, 1000)   # Legendary Engineer: all damage
        else:
            start_repair(s, cfg, b, i, cfg.card[c, CC_VALUE])
    elif st == ST_FORMATION:
        s.g[b, G_SEL] = i
        set_stage(s, b, ST_FORM_DEST, p)
    elif st == ST_ATTACK:
        s.g[b, G_ATK_KIND] = AK_SHIP
        s.g[b, G_ATK_SHIP] = i
        if s.g[b, G_ATTACKS] == 0:
            s.g[b, G_FIRST_ATTACKER] = i
        set_stage(s, b, ST_TARGET, p)
    elif st == ST_CARRIER:
        s.g[b, G_ATK_SHIP] = i
        if s.g[b, G_ATTACKS] == 0:
            s.g[b, G_FIRST_ATTACKER] = i
        set_stage(s, b, ST_SQUADRONS, p)
    elif st == ST_TARGET:
        choose_target(s, cfg, b, p, i)
    elif st == ST_SHIP_FOR:
        c = s.g[b, G_PENDING]
        s.cd[b, c, CD_SHIP] = i
        s.sh[b, i, SH_SHOTS] += 1
        if s.g[b, G_ATK_KIND] == AK_PF:
            s.g[b, G_PF_SHOTS] += 1
        elif i != s.g[b, G_TARGET]:
            s.g[b, G_HELPER] = i
        after_pending(s, cfg, b)


@nb.njit(cache=True)
def choose_target(s, cfg, b, p, i):
    kind = s.g[b, G_ATK_KIND]
    s.g[b, G_TARGET] = i
    s.g[b, G_DEFENDER] = s.sh[b, i, SH_OWNER]
    s.g[b, G_HELPER] = -1
    d = s.g[b, G_DEFENDER]
    if kind == AK_SHIP:
        set_stage(s, b, ST_ATK_CARDS, p)
    elif kind == AK_FIGHTERS or kind == AK_PBF:
        set_stage(s, b, ST_FTR_DEF, d)
    elif kind == AK_PF:
        # SFBF Flotta di Caccia Veloci: 2d6 plus what is left of the flotilla
        d1 = roll_die(s.rng, s.dice_script, s.dice, b, 6)
        d2 = roll_die(s.rng, s.dice_script, s.dice, b, 6)
        s.g[b, G_DIE1] = d1
        s.g[b, G_DIE2] = d2
        s.g[b, G_ROLL] = d1 + d2 + pf_remaining(s, cfg, b)
        open_windows(s, cfg, b)
    else:
        set_stage(s, b, ST_MUTINY_ATK, p)


@nb.njit(cache=True)
def pf_remaining(s, cfg, b):
    """Option pf_damage: 'remaining_boxes' (12 minus the damage it took, rule text) or
    'remaining_pfs' (6 PFs, one lost per 2 damage, card table)."""
    f = s.g[b, G_DEF_FIRE]
    if cfg.k[K_PF_MODE] == 0:
        return max(0, 12 - f)
    return max(0, 6 - f // 2)


@nb.njit(cache=True)
def next_pf_firer(s, cfg, b):
    """SFBF Flotta di Caccia Veloci: the other players, clockwise, may fire one card per ship."""
    act = s.g[b, G_ACTIVE]
    q = s.g[b, G_PF_FIRER]
    P = cfg.k[K_P]
    for d in range(P):
        q = next_clockwise(s, cfg, b, q)
        if q == act:
            break
        if enemies(s, cfg, b, act, q):
            s.g[b, G_PF_FIRER] = q
            s.g[b, G_PF_SHOTS] = 0
            for i in range(cfg.k[K_NS]):
                s.sh[b, i, SH_SHOTS] = 0
            set_stage(s, b, ST_PF_FIRE, q)
            return
    # everyone has fired
    s.g[b, G_DEF_FIRE] = pf_fire_total(s, cfg, b)
    if s.g[b, G_DEF_FIRE] >= 12:
        attack_end(s, cfg, b)    # the flotilla is destroyed and the attack ends
        return
    s.g[b, G_DEFENDER] = -1
    set_stage(s, b, ST_TARGET, act)


@nb.njit(cache=True)
def fighter_dice(s, cfg, b):
    """SFBF Attacco dei caccia F4: one die per squadron; Planet-Based Fighters two dice per card
    (option pbf_damage='fighters_plus_1d6': the card table's fighters + 1d6)."""
    tot = 0
    d1 = 0
    d2 = 0
    if s.g[b, G_ATK_KIND] == AK_FIGHTERS:
        for k in range(s.g[b, G_SQUADRONS]):
            d = roll_die(s.rng, s.dice_script, s.dice, b, 6)
            tot += d
            if k == 0:
                d1 = d
            elif k == 1:
                d2 = d
    else:
        for c in range(cfg.k[K_NC]):
            if s.cd[b, c, CD_LOC] == CL_ATK and cfg.card[c, CC_TYPE] == T_PBF:
                if cfg.k[K_PBF_MODE] == 0:
                    a = roll_die(s.rng, s.dice_script, s.dice, b, 6)
                    a2 = roll_die(s.rng, s.dice_script, s.dice, b, 6)
                    tot += a + a2
                    d1 = a
                    d2 = a2
                else:
                    a = roll_die(s.rng, s.dice_script, s.dice, b, 6)
                    tot += a + cfg.card[c, CC_FTRS]
                    d1 = a
    s.g[b, G_DIE1] = d1
    s.g[b, G_DIE2] = d2
    s.g[b, G_ROLL] = tot


@nb.njit(cache=True)
def end_fighter_defence(s, cfg, b):
    d = s.g[b, G_DEFENDER]
    fire = defence_fire_total(s, cfg, b, d)
    t = s.g[b, G_TARGET]
    if s.sh[b, t, SH_WEB]:
        fire = fire // 2         # F4 (X): a webbed ship's fire is halved like its other defences
    s.g[b, G_DEF_FIRE] = fire
    fighter_dice(s, cfg, b)
    open_windows(s, cfg, b)


@nb.njit(cache=True)
def resolve_attack(s, cfg, b):
    dmg = attack_damage(s, cfg, b)
    kind = s.g[b, G_ATK_KIND]
    if kind == AK_FIGHTERS:
        # SFBF F5: 6+ damage to the fighters destroys a squadron, 12+ both
        fire = s.g[b, G_DEF_FIRE]
        lost = 2 if fire >= 12 else (1 if fire >= 6 else 0)
        lost = min(lost, s.g[b, G_SQUADRONS])
        c = s.g[b, G_ATK_SHIP]
        for k in range(lost):
            if s.sh[b, c, SH_COV + K_FTR] < cfg.ship[c, SC_N + K_FTR]:
                s.sh[b, c, SH_COV + K_FTR] += 1
        s.g[b, G_FTR_LOST] = lost
    by = s.g[b, G_ACTIVE]
    no_vp = kind == AK_PF        # a PF kill gives no victory points
    begin_damage(s, cfg, b, s.g[b, G_TARGET], dmg, by, no_vp)


@nb.njit(cache=True)
def begin_damage(s, cfg, b, i, n, by, no_vp):
    """SFBF 4.5: the defender places one marker per damage point, one per space; with every
    space covered, the next point destroys the ship."""
    if n <= 0:
        attack_end(s, cfg, b)
        return
    free = free_spaces(s, cfg, b, i)
    if n > free:
        destroy_ship(s, cfg, b, i, by, no_vp)
        attack_end(s, cfg, b)
        return
    if n == free:
        cover_all(s, cfg, b, i)
        attack_end(s, cfg, b)
        return
    if cfg.k[K_TRAD]:
        cover_auto(s, cfg, b, i, n)
        attack_end(s, cfg, b)
        return
    s.g[b, G_DMG_SHIP] = i
    s.g[b, G_DMG_LEFT] = n
    s.g[b, G_DMG_BY] = by
    set_stage(s, b, ST_PLACE, s.sh[b, i, SH_OWNER])


@nb.njit(cache=True)
def attack_end(s, cfg, b):
    """Every card used in or against the attack is discarded (SFBF 4.5); option draw_discard: the
    active player puts them on the pile one at a time, in the order it likes (SFBF Regole
    Opzionali, Pescare: "è il giocatore attivo a determinare quali carte giocate ... sono in cima
    agli scarti")."""
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_SHIP:
            s.cd[b, c, CD_OFF] = 0           # an ECCM cancels an Erratic Maneuvers for one attack
            s.cd[b, c, CD_LINK] = -1
    for i in range(cfg.k[K_NS]):
        s.sh[b, i, SH_SHOTS] = 0
    kind = s.g[b, G_ATK_KIND]
    s.g[b, G_CANCELS] = 0
    s.g[b, G_PT_ADD] = 0
    s.g[b, G_PT_SUB] = 0
    s.g[b, G_DEF_BITS] = 0
    s.g[b, G_DEF_FIRE] = 0
    s.g[b, G_ROLL] = 0
    s.g[b, G_SQUADRONS] = 0
    s.g[b, G_HELPER] = -1
    s.g[b, G_PENDING] = -1
    s.g[b, G_TARGET] = -1
    s.g[b, G_DEFENDER] = -1
    s.g[b, G_DMG_LEFT] = 0
    s.g[b, G_ATK_KIND] = AK_NONE
    if kind != AK_NONE:
        s.g[b, G_ATTACKS] += 1
    if cfg.k[K_DRAW_DISCARD] and s.g[b, G_TABLE_N] >= 2 and not game_should_end(s, cfg, b):
        s.g[b, G_ORDER_KIND] = ORD_TABLE
        set_stage(s, b, ST_DISC_ORDER, s.g[b, G_ACTIVE])
        return
    for c in range(cfg.k[K_NC]):
        if on_table(s, b, c):
            to_discard(s, b, c)
    after_attack(s, cfg, b)


@nb.njit(cache=True, forceinline=True)
def order_card_ok(s, cfg, b, c):
    """Option draw_discard: card c is one of those the active player now puts on the discard pile."""
    loc = s.cd[b, c, CD_LOC]
    if s.g[b, G_ORDER_KIND] == ORD_TABLE:
        return loc == CL_ATK or loc == CL_DEF
    return loc == CL_SHIP and s.sh[b, s.cd[b, c, CD_WHO], SH_OWNER] == s.g[b, G_ACTIVE]


@nb.njit(cache=True)
def order_next(s, cfg, b, c):
    """Card c goes on top of the discard pile; when none is left, play goes on."""
    to_discard(s, b, c)
    for x in range(cfg.k[K_NC]):
        if order_card_ok(s, cfg, b, x):
            return
    if s.g[b, G_ORDER_KIND] == ORD_TABLE:
        s.g[b, G_ORDER_KIND] = 0
        after_attack(s, cfg, b)
    else:
        s.g[b, G_ORDER_KIND] = 0
        set_stage(s, b, ST_DISCARD, s.g[b, G_ACTIVE])


@nb.njit(cache=True)
def after_attack(s, cfg, b):
    if game_should_end(s, cfg, b):
        finish(s, cfg, b)
        return
    if cfg.k[K_SECOND_ATTACK] and s.g[b, G_ATTACKS] < 2 and not s.g[b, G_NO_MORE_ATTACKS]:
        enter_attack(s, cfg, b)  # optional rule: a second attack from another ship
    else:
        enter_discard(s, cfg, b)


@nb.njit(cache=True)
def resolve_mutiny(s, cfg, b):
    """SFBF Ammutinamento Klingon: 1-3 that much damage, 4-6 the ship is captured."""
    d = roll_die(s.rng, s.dice_script, s.dice, b, 6)
    s.g[b, G_DIE1] = d
    r = d + s.g[b, G_PT_ADD] - s.g[b, G_PT_SUB]
    s.g[b, G_ROLL] = r
    t = s.g[b, G_TARGET]
    p = s.g[b, G_ACTIVE]
    if r >= 4:
        owner = s.sh[b, t, SH_OWNER]
        clear_ship_cards(s, cfg, b, t)
        s.sh[b, t, SH_CLOAK] = 0
        s.sh[b, t, SH_WEB] = 0
        place_ship(s, cfg, b, t, p, L_RESERVE if uses_formation(cfg) else L_SCREEN)
        forced_advance(s, cfg, b, owner)
        if cfg.k[K_END_ELIM] and fleet_size(s, b, owner) == 0:
            s.g[b, G_ENDED] = 1
        attack_end(s, cfg, b)
    elif r >= 1:
        begin_damage(s, cfg, b, t, r, p, False)
    else:
        attack_end(s, cfg, b)


@nb.njit(cache=True)
def start_ceasefire(s, cfg, b):
    """SFBF Tregua Organiana: every hand is discarded (advanced: up to the reserve of three
    first), the cards are reshuffled, everyone draws five, all damage is removed, cloaks and
    webs switch off, and the turn passes."""
    if cfg.k[K_ADVANCED]:
        s.g[b, G_CEASE_LEFT] = cfg.k[K_P]
        s.g[b, G_SETUP_P] = s.g[b, G_ACTIVE]
        set_stage(s, b, ST_CEASE_KEEP, s.g[b, G_ACTIVE])
    else:
        finish_ceasefire(s, cfg, b)


@nb.njit(cache=True)
def next_cease_keeper(s, cfg, b):
    s.g[b, G_CEASE_LEFT] -= 1
    if s.g[b, G_CEASE_LEFT] <= 0:
        finish_ceasefire(s, cfg, b)
        return
    q = next_clockwise(s, cfg, b, s.g[b, G_SETUP_P])
    s.g[b, G_SETUP_P] = q
    set_stage(s, b, ST_CEASE_KEEP, q)


@nb.njit(cache=True)
def finish_ceasefire(s, cfg, b):
    P = cfg.k[K_P]
    gather_all_cards(s, cfg, b, True)
    s.g[b, G_SHUFFLES] += 1
    if cfg.k[K_END_SHUFFLES] > 0 and s.g[b, G_SHUFFLES] >= cfg.k[K_END_SHUFFLES]:
        s.g[b, G_END_AT_TURN_END] = 1
    act = s.g[b, G_ACTIVE]
    q = act
    for d in range(P):
        if fleet_size(s, b, q) > 0 and not s.pl[b, q, PL_OUT] and not automaton(cfg, q):
            for r in range(5):
                draw_to_hand(s, cfg, b, q)
        q = (q + 1) % P
    for i in range(cfg.k[K_NS]):
        if in_fleet(s, b, i):
            if cfg.k[K_CEASE_REPAIR]:
                for k in range(N_KIND):
                    s.sh[b, i, SH_COV + k] = 0
            s.sh[b, i, SH_CLOAK] = 0
            s.sh[b, i, SH_WEB] = 0
            if s.sh[b, i, SH_LINE] == L_RESERVE and s.sh[b, i, SH_OWNER] >= 0:
                set_line(s, cfg, b, i, L_RESERVE)
    s.g[b, G_ATK_KIND] = AK_NONE
    for i in range(cfg.k[K_NS]):
        if in_fleet(s, b, i) and s.sh[b, i, SH_OWNER] == act:
            clear_ship_cards(s, cfg, b, i)
    end_turn(s, cfg, b)


@nb.njit(cache=True)
def apply_named(s, cfg, b, p, n):
    st = s.g[b, G_STAGE]
    if n == N_DONE:
        if st == ST_PICK:
            s.pl[b, p, PL_PASSED] = 1
            advance_pick(s, cfg, b)
        elif st == ST_CLOAK_SETUP:
            after_cloak_setup(s, cfg, b)
        elif st == ST_REPAIR:
            enter_formation(s, cfg, b, 1)
        elif st == ST_FORMATION:
            if s.g[b, G_FORM_KIND] == 1:
                enter_attack(s, cfg, b)
            else:
                s.g[b, G_ATTACKS] = 0
                enter_discard(s, cfg, b)
        elif st == ST_ATTACK:
            enter_discard(s, cfg, b)
        elif st == ST_PBF_MORE:
            set_stage(s, b, ST_TARGET, p)
        elif st == ST_ATK_CARDS:
            open_windows(s, cfg, b)
        elif st == ST_DEFENCE or st == ST_REACT:
            window_pass(s, cfg, b)
        elif st == ST_FTR_DEF:
            end_fighter_defence(s, cfg, b)
        elif st == ST_PF_FIRE:
            next_pf_firer(s, cfg, b)
        elif st == ST_MUTINY_ATK:
            set_stage(s, b, ST_MUTINY_DEF, s.g[b, G_DEFENDER])
        elif st == ST_MUTINY_DEF:
            resolve_mutiny(s, cfg, b)
        elif st == ST_REDRAW:
            for r in range(s.g[b, G_REDRAW_N]):
                draw_to_hand(s, cfg, b, p)
            s.g[b, G_REDRAW_N] = 0
            enter_discard(s, cfg, b)
        elif st == ST_CEASE_KEEP:
            next_cease_keeper(s, cfg, b)
        elif st == ST_DISCARD:
            end_turn(s, cfg, b)
    elif n == N_DRAW_DECK:
        c = draw_to_hand(s, cfg, b, p)
        if cfg.k[K_ADVANCED] and c >= 0 and s.pl[b, p, PL_RES] < 3:
            s.g[b, G_DRAWN] = c
            set_stage(s, b, ST_KEEP, p)
        else:
            continue_draw(s, cfg, b)
    elif n == N_DRAW_DISCARD:
        nd = s.g[b, G_DISC_N] - 1
        c = s.disc[b, nd]
        s.g[b, G_DISC_N] = nd
        set_card(s, b, c, CL_HAND, p)
        s.g[b, G_DREW_DISCARD] = 1
        continue_draw(s, cfg, b)
    elif n == N_KEEP:
        s.g[b, G_DRAWN] = -1
        continue_draw(s, cfg, b)
    elif n == N_TO_RESERVE:
        if st == ST_KEEP:
            set_card(s, b, s.g[b, G_DRAWN], CL_RES, p)
            s.g[b, G_DRAWN] = -1
            continue_draw(s, cfg, b)
        else:
            set_card(s, b, s.g[b, G_PENDING], CL_RES, p)
            s.g[b, G_PENDING] = -1
            end_turn(s, cfg, b)
    elif n == N_TO_DISCARD:
        to_discard(s, b, s.g[b, G_PENDING])
        s.g[b, G_PENDING] = -1
        end_turn(s, cfg, b)
    elif n == N_TO_ALLY:
        set_card(s, b, s.g[b, G_PENDING], CL_RES, ally_of(s, cfg, b, p))
        s.g[b, G_PENDING] = -1
        end_turn(s, cfg, b)
    elif n == N_FIGHTERS:
        s.g[b, G_ATK_KIND] = AK_FIGHTERS
        set_stage(s, b, ST_CARRIER, p)
    elif n == N_REDRAW:
        s.g[b, G_REDRAW_N] = 0
        s.g[b, G_NO_MORE_ATTACKS] = 1
        set_stage(s, b, ST_REDRAW, p)
    elif n == N_FORMATION2:
        s.g[b, G_NO_MORE_ATTACKS] = 1
        enter_formation(s, cfg, b, 2)
    elif n == N_CDC:
        s.g[b, G_CDC] = 1
        s.g[b, G_CDC_NEXT] = 0
        next_cdc_ship(s, cfg, b)
    elif n == N_PT_ADD:
        apply_prime(s, cfg, b, PT_MODE_ADD)
    elif n == N_PT_CANCEL:
        apply_prime(s, cfg, b, PT_MODE_CANCEL)
    elif n == N_PT_CANCEL_WW:
        apply_prime(s, cfg, b, PT_MODE_CANCEL_WW)
    elif n == N_ACTIVATE:
        i = s.g[b, G_SEL]
        activate_device(s, cfg, b, i)
        s.g[b, G_MOVED] |= (1 << s.sh[b, i, SH_LINE]) if uses_formation(cfg) else 1
        s.g[b, G_FORM_MOVES] += 1
        set_stage(s, b, ST_FORMATION, p)
    elif n == N_DEACTIVATE:
        s.sh[b, s.g[b, G_SEL], SH_CLOAK] = 0
        set_stage(s, b, ST_FORMATION, p)


@nb.njit(cache=True)
def apply_action(s, cfg, b, a, mask):
    """Perform legal action a (checked by the caller), then settle the game; ``mask`` gets the
    legal actions of the next decision."""
    dispatch(s, cfg, b, a)
    settle(s, cfg, b, mask)


@nb.njit(cache=True)
def dispatch(s, cfg, b, a):
    k = cfg.k
    p = s.g[b, G_DECIDER]
    if a < k[K_A_SHIP]:
        apply_card(s, cfg, b, p, a - k[K_A_CARD])
    elif a < k[K_A_LINE]:
        apply_ship(s, cfg, b, p, a - k[K_A_SHIP])
    else:
        apply_other(s, cfg, b, a)


F_CARDS, F_SHIPS, F_LINES, F_KINDS, F_NUMS, F_RACES, F_NAMED = 1, 2, 4, 8, 16, 32, 64


@nb.njit(cache=True, forceinline=True)
def stage_families(st):
    """The action families that can be legal at a stage (the mask only looks at those)."""
    if st == ST_PICK or st == ST_CLOAK_SETUP:
        return F_SHIPS | F_NAMED
    if st == ST_RACE:
        return F_RACES
    if st == ST_RES_SETUP or st == ST_LINK:
        return F_CARDS
    if st == ST_LINE_SETUP:
        return F_LINES
    if st == ST_KEEP or st == ST_PT_MODE or st == ST_DISC_DEST:
        return F_NAMED
    if st == ST_REPAIR_SHIP or st == ST_CARRIER or st == ST_TARGET or st == ST_SHIP_FOR or st == ST_DUEL_PICK:
        return F_SHIPS
    if st == ST_UNMARK or st == ST_PLACE:
        return F_KINDS
    if st == ST_FORMATION or st == ST_ATTACK:
        return F_CARDS | F_SHIPS | F_NAMED
    if st == ST_FORM_DEST:
        return F_LINES | F_NAMED
    if st == ST_SQUADRONS:
        return F_NUMS
    if st == ST_OVER:
        return 0
    return F_CARDS | F_NAMED


@nb.njit(cache=True, forceinline=True)
def mark_legal(mask, a, n, first):
    """Mark action a legal: the running (count, first legal action) of scan_legal."""
    mask[a] = 1
    return n + 1, (first if first >= 0 else a)


@nb.njit(cache=True)
def scan_legal(s, cfg, b, mask):
    """Legal actions of the player to decide, marked in ``mask`` (zeroed by the caller):
    (count, first).  Cards are only looked at where they can matter: the decider's hand and
    reserve, or the table and ships when linking a card.  Ships and named actions go straight
    to their family's reason, as action_reason would (the game is not over when this runs);
    one loop per family, so that each loop's body holds only the rules of its family."""
    k = cfg.k
    cd = s.cd
    st = s.g[b, G_STAGE]
    fam = stage_families(st)
    p = s.g[b, G_DECIDER]
    n = 0
    first = -1
    if fam & F_CARDS:
        a0 = k[K_A_CARD]
        if st == ST_LINK or st == ST_DISC_ORDER:
            for c in range(k[K_NC]):
                loc = cd[b, c, CD_LOC]
                if (loc == CL_ATK or loc == CL_DEF or loc == CL_SHIP) and card_reason(s, cfg, b, p, c) == OK:
                    n, first = mark_legal(mask, a0 + c, n, first)
        else:
            cards = scratch_i32(MAX_CARDS)
            for j in range(held_cards(s, cfg, b, p, cards)):
                if card_reason(s, cfg, b, p, cards[j]) == OK:
                    n, first = mark_legal(mask, a0 + cards[j], n, first)
    if fam & F_SHIPS:
        a0 = k[K_A_SHIP]
        ships = scratch_i32(MAX_SHIPS)
        if st == ST_FORMATION or st == ST_ATTACK or st == ST_REPAIR_SHIP or st == ST_CARRIER \
                or st == ST_CLOAK_SETUP or st == ST_SHIP_FOR:
            ns = own_fleet_ships(s, b, p, ships)   # these stages' rules only allow p's own ships
        elif st == ST_TARGET:
            ns = fleet_ships(s, b, ships)          # and this one only ships in play
        else:
            ns = k[K_NS]
            for i in range(ns):
                ships[i] = i
        if st == ST_FORMATION:
            lines = fleet_lines(s, b, p)        # every ship's formation rules need p's line counts
            for j in range(ns):
                if formation_ship_reason(s, cfg, b, p, ships[j], lines) == OK:
                    n, first = mark_legal(mask, a0 + ships[j], n, first)
        elif st == ST_ATTACK:
            hand_types = hand_weapon_types(s, cfg, b, p)   # and its attack rules p's weapons and targets
            targets = scratch_i32(MAX_SHIPS)
            nt = attack_targets(s, cfg, b, p, targets)
            for j in range(ns):
                if ship_attack_reason_given(s, cfg, b, p, ships[j], hand_types, targets, nt) == OK:
                    n, first = mark_legal(mask, a0 + ships[j], n, first)
        else:
            for j in range(ns):
                if ship_reason(s, cfg, b, p, ships[j]) == OK:
                    n, first = mark_legal(mask, a0 + ships[j], n, first)
    if st == ST_FORM_DEST:
        # the destination line of the ship chosen: the line counts once for the three lines
        lines = fleet_lines(s, b, p)
        i = s.g[b, G_SEL]
        for line in range(LINES):
            if move_reason_ship(s, cfg, b, p, i, line) == OK and move_reason_lines(s, b, i, line, lines) == OK:
                n, first = mark_legal(mask, k[K_A_LINE] + line, n, first)
    for f, lo, hi in ((F_LINES, k[K_A_LINE], k[K_A_KIND]), (F_KINDS, k[K_A_KIND], k[K_A_NUM]),
                      (F_NUMS, k[K_A_NUM], k[K_A_RACE]), (F_RACES, k[K_A_RACE], k[K_A_NAMED])):
        if fam & f and not (f == F_LINES and st == ST_FORM_DEST):
            for a in range(lo, hi):
                if action_reason(s, cfg, b, a) == OK:
                    n, first = mark_legal(mask, a, n, first)
    if fam & F_NAMED:
        a0 = k[K_A_NAMED]
        for x in range(N_NAMED):
            if named_reason(s, cfg, b, p, x) == OK:
                n, first = mark_legal(mask, a0 + x, n, first)
    return n, first


@nb.njit(cache=True)
def settle(s, cfg, b, mask):
    """Take every step that involves no choice (a single legal action) until a real decision,
    whose legal actions are left in ``mask`` (all zero once the game is over).  A forced step
    is only known to be forced after every action was looked at, so writing the mask as it is
    scanned costs nothing, and the mask of the real decision needs no second scan."""
    for it in range(100000):
        mask[:] = 0
        if s.g[b, G_DONE]:
            if cfg.k[K_SOLITAIRE]:
                s.g[b, G_DECIDER] = 0    # the agent's seat (the only agent) sees the end
            return
        n, first = scan_legal(s, cfg, b, mask)
        if n == 1:
            dispatch(s, cfg, b, first)
            continue
        if n == 0:
            # no legal action: a rules bug; end the game as truncated so tests see it
            s.g[b, G_TRUNC] = 1
            s.g[b, G_DONE] = 1
            s.g[b, G_STAGE] = ST_OVER
            mask[:] = 0
            if cfg.k[K_SOLITAIRE]:
                s.g[b, G_DECIDER] = 0
            return
        if cfg.k[K_SOLITAIRE] and s.g[b, G_DECIDER] == AUTO:
            # SFBF Gioco in solitario: the automaton's decisions are taken here, by its rules
            dispatch(s, cfg, b, auto_action(s, cfg, b, mask))
            continue
        return


@nb.njit(cache=True)
def apply_other(s, cfg, b, a):
    """Actions of the LINE, KIND, NUM, RACE and named families."""
    k = cfg.k
    p = s.g[b, G_DECIDER]
    st = s.g[b, G_STAGE]
    if a < k[K_A_KIND]:
        line = a - k[K_A_LINE]
        i = s.g[b, G_SEL]
        if st == ST_LINE_SETUP:
            set_line(s, cfg, b, i, line)
            next_line_setup(s, cfg, b)
        else:
            s.g[b, G_MOVED] |= 1 << s.sh[b, i, SH_LINE]
            s.g[b, G_FORM_MOVES] += 1
            set_line(s, cfg, b, i, line)
            forced_advance(s, cfg, b, p)
            set_stage(s, b, ST_FORMATION, p)
    elif a < k[K_A_NUM]:
        kind = a - k[K_A_KIND]
        if st == ST_PLACE:
            i = s.g[b, G_DMG_SHIP]
            s.sh[b, i, SH_COV + kind] += 1
            s.g[b, G_DMG_LEFT] -= 1
            if s.g[b, G_DMG_LEFT] == 0:
                attack_end(s, cfg, b)
        else:
            i = s.g[b, G_REP_SHIP]
            s.sh[b, i, SH_COV + kind] -= 1
            s.g[b, G_REP_LEFT] -= 1
            after_unmark(s, cfg, b)
    elif a < k[K_A_RACE]:
        s.g[b, G_SQUADRONS] = a - k[K_A_NUM] + 1
        set_stage(s, b, ST_TARGET, p)
    elif a < k[K_A_NAMED]:
        s.pl[b, p, PL_RACE] = a - k[K_A_RACE]
        after_race_pick(s, cfg, b)
    else:
        apply_named(s, cfg, b, p, a - k[K_A_NAMED])


# ============================================================================================
# observation (documented field by field in game.py and RULES.md)
# ============================================================================================
F_CARD = 8
# write_obs stores a card's 8 features as one little-endian 8-byte word
assert sys.byteorder == "little", "wargym's Battle Force observation assumes a little-endian machine"
F_SHIP = 31          # a ship's row; battle_force_v0 (option ship_order=False) has the first 30
F_PLAYER = 12
MAX_P = 6
MAX_P_AND_NOBODY = MAX_P + 1   # per-owner counts, index owner + 1 (owner -1: nobody)
N_GLOBAL = N_STAGES + 32


@nb.njit(cache=True, inline="always")
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


@nb.njit(cache=True, inline="always")
def ship_row_width(k):
    """A ship's row in the observation, from the config's ints ``k``: F_SHIP, or its first 30
    values in battle_force_v0 (option ship_order=False).  game.py reads it through ``py_func``."""
    return F_SHIP if k[K_SHIP_ORDER] else F_SHIP - 1


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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


@nb.njit(cache=True)
def write_mask(s, cfg, b, mask):
    mask[:] = 0
    if s.g[b, G_DONE]:
        return
    scan_legal(s, cfg, b, mask)


# ============================================================================================
# reset
# ============================================================================================
@nb.njit(cache=True)
def clear_game(s, cfg, b):
    s.g[b, :] = 0
    s.cd[b, :, :] = 0
    s.sh[b, :, :] = 0
    s.pos[b, :] = 0
    s.pl[b, :, :] = 0
    s.deck[b, :] = 0
    s.disc[b, :] = 0
    s.sdeck[b, :] = 0
    s.dice[b, 0] = 0
    s.dice[b, 1] = 0
    for c in range(cfg.k[K_NC]):
        s.cd[b, c, CD_LINK] = -1
        s.cd[b, c, CD_SHIP] = -1
        s.cd[b, c, CD_WHO] = -1
    for i in range(cfg.k[K_NS]):
        s.sh[b, i, SH_OWNER] = -1
    for col in (G_ATK_SHIP, G_TARGET, G_DEFENDER, G_PENDING, G_SEL, G_DRAWN, G_HELPER, G_FIRST_ATTACKER,
                G_SETUP_P, G_DMG_SHIP, G_REP_SHIP, G_CDC_NEXT):
        s.g[b, col] = -1
    P = cfg.k[K_P]
    for p in range(P):
        s.pl[b, p, PL_TEAM] = p % (P // 2) if cfg.k[K_ALLIES] else p
        s.pl[b, p, PL_ORDER] = p
        s.pl[b, p, PL_RACE] = -1


@nb.njit(cache=True)
def reset_game(s, cfg, b, seed, mask):
    """A new game from the options' set-up, settled; ``mask`` gets its first decision's legal actions."""
    clear_game(s, cfg, b)
    s.rng[b] = seed_stream(seed)
    s.policy_rng[b] = seed_stream(seed ^ np.uint64(0x5DEECE66D))
    NC = cfg.k[K_NC]
    NS = cfg.k[K_NS]
    P = cfg.k[K_P]
    if cfg.k[K_ORDER_CARDS]:
        shuffle_order(s, cfg, b)
    # action deck (SFBF Preparazione: the learning game and the no-fighters game remove cards)
    n = 0
    for c in range(NC):
        if cfg.card[c, CC_IN]:
            s.cd[b, c, CD_LOC] = CL_DECK
            s.deck[b, n] = c
            n += 1
        else:
            s.cd[b, c, CD_LOC] = CL_OUT
    s.g[b, G_DECK_N] = n
    shuffle_stack(s, b, s.deck, n)
    deal = 7 if cfg.k[K_ADVANCED] else 5
    for r in range(deal):
        for p in range(P):
            if not automaton(cfg, p):    # SFBF Gioco in solitario: "non dare carte azione all'avversario"
                draw_to_hand(s, cfg, b, p)
    for i in range(NS):
        s.sh[b, i, SH_LOC] = SL_POOL
    if cfg.k[K_SINGLE_RACE]:
        begin_race_picks(s, cfg, b)
    elif cfg.k[K_SELECTION] == SEL_DEAL:
        pool_to_deck(s, cfg, b)
        deal_ships_from_deck(s, cfg, b, cfg.k[K_PER_PLAYER])
        after_selection(s, cfg, b)
    else:
        s.g[b, G_SETUP_P] = P - 1
        advance_pick(s, cfg, b)
    settle(s, cfg, b, mask)


# ============================================================================================
# the solitaire game (SFBF Gioco in solitario): seat 1 is the rulebook's automaton, resolved here
# ============================================================================================
AUTO = 1    # the automaton's seat; the agent plays seat 0


@nb.njit(cache=True, inline="always")
def automaton(cfg, p):
    """Is seat p the solitaire automaton (option solitaire=True)?"""
    return cfg.k[K_SOLITAIRE] != 0 and p == AUTO


@nb.njit(cache=True)
def auto_layout(s, cfg, b):
    """SFBF Gioco in solitario: "Piazza le navi nemiche in un ordine a caso, la metà delle navi in
    Prima Linea le altre in Seconda Linea": a random order (its placement order, ``pos``, is the
    automaton's order of ships from then on), the first half (rounded up) in the screen."""
    order = scratch_i32(MAX_SHIPS)
    n = own_fleet_ships(s, b, AUTO, order)
    for j in range(n - 1, 0, -1):
        k = draw_int(s.rng, b, j + 1)
        x = order[j]
        order[j] = order[k]
        order[k] = x
    for j in range(n):
        i = order[j]
        s.g[b, G_POS] += 1
        s.pos[b, i] = s.g[b, G_POS]
        if uses_formation(cfg):
            set_line(s, cfg, b, i, L_SCREEN if j < (n + 1) // 2 else L_MAIN)
        elif s.sh[b, i, SH_LINE] < 0:
            set_line(s, cfg, b, i, L_SCREEN)


@nb.njit(cache=True, forceinline=True)
def first_by_pos(s, b, i, j):
    """Ship i comes before ship j (-1: none yet) in placement order."""
    return j < 0 or s.pos[b, i] < s.pos[b, j]


@nb.njit(cache=True)
def auto_target(s, cfg, b):
    """"La nave bersaglio dell'attacco è la prima a sinistra della tua Prima Linea": the agent's
    screen ship placed first (the leftmost; the renderer lists ships in placement order) that may
    be attacked; with none, the first such ship of its main body (RULES.md)."""
    best = -1
    best_main = -1
    for i in range(cfg.k[K_NS]):
        if target_reason(s, cfg, b, AUTO, i) != OK:
            continue
        if s.sh[b, i, SH_LINE] == L_SCREEN or not uses_formation(cfg):
            if first_by_pos(s, b, i, best):
                best = i
        elif first_by_pos(s, b, i, best_main):
            best_main = i
    return best if best >= 0 else best_main


@nb.njit(cache=True)
def auto_assigned_fires(s, cfg, b, i, t):
    """Can ship i fire the attack cards the automaton has given it plus one of type t?"""
    avail = local_i32(N_KIND)
    for k in range(N_KIND):
        avail[k] = symbols(s, cfg, b, i, k)
    cnt = local_i32(N_WEAPONS)
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO and s.cd[b, c, CD_SHIP] == i:
            x = cfg.card[c, CC_TYPE]
            if x < N_WEAPONS:
                cnt[x] += 1
    cnt[t] += 1
    need = wpn_needed(avail, cnt)
    return need >= 0 and need <= avail[K_WPN]


@nb.njit(cache=True)
def auto_ship_for(s, cfg, b, c, target):
    """"Se peschi una carta di Attacco, assegnala alla prima nave nemica che può utilizzarla": the
    first automaton ship (placement order) that may attack and can fire weapon card c at the target
    with a weapon not given another card; -1 if none."""
    t = cfg.card[c, CC_TYPE]
    best = -1
    if target < 0:
        return -1
    for i in range(cfg.k[K_NS]):
        if attacker_state_reason(s, cfg, b, AUTO, i) != OK or not first_by_pos(s, b, i, best):
            continue
        if attack_limits_reason(s, cfg, b, i, target, t) == OK and auto_assigned_fires(s, cfg, b, i, t):
            best = i
    return best


@nb.njit(cache=True)
def auto_multiplier_ok(s, cfg, b, c):
    """A combat card the automaton can use now: on a weapon card it has given a ship (Overload on
    a photon or disruptor, Enveloper on Plasma-S/R, Scatterpack on a drone, Legendary Gunner on any)
    that has no multiplier yet; it goes with that card's ship (-1: none)."""
    tm = cfg.card[c, CC_TYPE]
    for x in range(cfg.k[K_NC]):
        if s.cd[b, x, CD_LOC] != CL_HAND or s.cd[b, x, CD_WHO] != AUTO or s.cd[b, x, CD_SHIP] < 0:
            continue
        tx = cfg.card[x, CC_TYPE]
        if tx >= N_WEAPONS:
            continue
        ok = tm == T_LGUNNER or (tm == T_OVERLOAD and (tx == T_PHOTON or tx == T_DISR)) \
            or (tm == T_ENVELOPER and (tx == T_PLS or tx == T_PLR)) or (tm == T_SCATTER and tx == T_DRONE)
        if not ok:
            continue
        if tm == T_OVERLOAD and uses_formation(cfg) and s.sh[b, s.cd[b, x, CD_SHIP], SH_LINE] == L_MAIN:
            continue
        taken = False
        for m in range(cfg.k[K_NC]):
            if s.cd[b, m, CD_LOC] == CL_HAND and s.cd[b, m, CD_WHO] == AUTO and s.cd[b, m, CD_LINK] == x \
                    and is_multiplier(cfg.card[m, CC_TYPE]):
                taken = True
        if not taken:
            s.cd[b, c, CD_LINK] = x
            return s.cd[b, x, CD_SHIP]
    return -1


@nb.njit(cache=True)
def auto_prepare_attack(s, cfg, b):
    """The automaton's attack phase, before its decisions (SFBF Gioco in solitario): the attack
    cards it kept from its last turn are given again to the first ships that can use them; then,
    unless it holds a card to play at this first opportunity instead of an attack (PF Flotilla,
    Klingon Mutiny, Planet-Based Fighters, Organian Ceasefire) and no kept attack card, it draws
    action cards one at a time: an attack card goes to the first ship that can use it, a combat
    card onto such a card; the first card it cannot use so ends the drawing and is kept."""
    NC = cfg.k[K_NC]
    target = auto_target(s, cfg, b)
    kept = False
    for c in range(NC):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO:
            s.cd[b, c, CD_SHIP] = -1
            s.cd[b, c, CD_LINK] = -1
            s.cd[b, c, CD_MODE] = 1                 # kept from an earlier turn
    for c in range(NC):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO and cfg.card[c, CC_TYPE] < N_WEAPONS:
            i = auto_ship_for(s, cfg, b, c, target)
            if i >= 0:
                s.cd[b, c, CD_SHIP] = i
                kept = True
    for c in range(NC):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO and is_multiplier(cfg.card[c, CC_TYPE]):
            i = auto_multiplier_ok(s, cfg, b, c)
            if i >= 0:
                s.cd[b, c, CD_SHIP] = i
    if not kept:
        for c in range(NC):
            if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO:
                t = cfg.card[c, CC_TYPE]
                if (t == T_PF or t == T_MUTINY or t == T_PBF or t == T_CEASE) \
                        and attack_phase_card_reason(s, cfg, b, AUTO, c) == OK:
                    return
    for it in range(NC):
        c = pop_deck(s, cfg, b)
        if c < 0:
            return
        set_card(s, b, c, CL_HAND, AUTO)
        t = cfg.card[c, CC_TYPE]
        i = -1
        if t < N_WEAPONS:
            i = auto_ship_for(s, cfg, b, c, target)
        elif is_multiplier(t):
            i = auto_multiplier_ok(s, cfg, b, c)
        if i < 0:
            return                                   # the first card it cannot use
        s.cd[b, c, CD_SHIP] = i


@nb.njit(cache=True, forceinline=True)
def auto_card(s, cfg, b, c):
    return s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == AUTO


@nb.njit(cache=True)
def auto_attacker(s, cfg, b):
    """The ship that attacks: "Quindi conduci l'attacco utilizzando le carte che questa nave può
    utilizzare": the first ship (placement order) holding an attack card kept from its last turn
    ("deve essere usata nel suo prossimo turno"), else the first holding one drawn this turn."""
    best_kept = -1
    best = -1
    for c in range(cfg.k[K_NC]):
        if auto_card(s, cfg, b, c) and cfg.card[c, CC_TYPE] < N_WEAPONS:
            i = s.cd[b, c, CD_SHIP]
            if i < 0 or attacker_state_reason(s, cfg, b, AUTO, i) != OK:
                continue
            if s.cd[b, c, CD_MODE] == 1:
                if first_by_pos(s, b, i, best_kept):
                    best_kept = i
            elif first_by_pos(s, b, i, best):
                best = i
    return best_kept if best_kept >= 0 else best


@nb.njit(cache=True)
def auto_free_card(s, cfg, b, mask, last_type):
    """The first legal CARD action on a card the automaton does not keep for an attack (lowest
    card index; a card of type ``last_type`` only when nothing else is legal); -1 if none."""
    a0 = cfg.k[K_A_CARD]
    late = -1
    for c in range(cfg.k[K_NC]):
        if mask[a0 + c] and s.cd[b, c, CD_SHIP] < 0:
            if cfg.card[c, CC_TYPE] == last_type:
                late = a0 + c
            else:
                return a0 + c
    return late


@nb.njit(cache=True)
def auto_best_ship(s, cfg, b, mask, damaged):
    """The SHIP action on the legal ship placed first, or (``damaged``) the most damaged one."""
    a0 = cfg.k[K_A_SHIP]
    best = -1
    for i in range(cfg.k[K_NS]):
        if not mask[a0 + i]:
            continue
        if best < 0:
            best = i
        elif damaged:
            d, e = damage_of(s, b, i), damage_of(s, b, best)
            if d > e or (d == e and s.pos[b, i] < s.pos[b, best]):
                best = i
        elif s.pos[b, i] < s.pos[b, best]:
            best = i
    return a0 + best if best >= 0 else -1


@nb.njit(cache=True)
def auto_useless(s, cfg, b, c):
    """A card none of the automaton's ships could ever fire (or a combat card with no such weapon)."""
    t = cfg.card[c, CC_TYPE]
    ts = local_i32(3)
    n = 0
    if t < N_WEAPONS:
        ts[0] = t
        n = 1
    elif t == T_OVERLOAD:
        ts[0] = T_PHOTON
        ts[1] = T_DISR
        n = 2
    elif t == T_ENVELOPER:
        ts[0] = T_PLS
        ts[1] = T_PLR
        n = 2
    elif t == T_SCATTER:
        ts[0] = T_DRONE
        n = 1
    else:
        return False
    avail = local_i32(N_KIND)
    cnt = local_i32(N_WEAPONS)
    for i in range(cfg.k[K_NS]):
        if not in_fleet(s, b, i) or s.sh[b, i, SH_OWNER] != AUTO:
            continue
        for k in range(N_KIND):
            avail[k] = cfg.ship[i, SC_N + k]
        for j in range(n):
            for k in range(N_WEAPONS):
                cnt[k] = 0
            cnt[ts[j]] = 1
            need = wpn_needed(avail, cnt)
            if need >= 0 and need <= avail[K_WPN]:
                return False
    return True


@nb.njit(cache=True)
def auto_action(s, cfg, b, mask):
    """The automaton's choice at a decision of seat AUTO (SFBF Gioco in solitario; RULES.md
    'Solitaire'); every choice is one of the legal actions in ``mask``."""
    k = cfg.k
    st = s.g[b, G_STAGE]
    a = -1
    named = k[K_A_NAMED]
    if st == ST_PICK or st == ST_RACE:
        # ships and races of a two-player set-up, at random
        lo, hi = (k[K_A_SHIP], k[K_A_LINE]) if st == ST_PICK else (k[K_A_RACE], k[K_A_NAMED])
        n = 0
        for x in range(lo, hi):
            n += mask[x]
        if n > 0:
            r = draw_int(s.rng, b, n)
            for x in range(lo, hi):
                if mask[x]:
                    if r == 0:
                        a = x
                        break
                    r -= 1
    elif st == ST_REPAIR:
        # "alla prima opportunità": a Damage Control / Legendary Engineer; continuous damage control
        a = auto_free_card(s, cfg, b, mask, -1)
        if a < 0 and mask[named + N_CDC]:
            a = named + N_CDC
    elif st == ST_REPAIR_SHIP:
        a = auto_best_ship(s, cfg, b, mask, True)
    elif st == ST_FORMATION:
        a = auto_free_card(s, cfg, b, mask, -1)      # Reinforcements
        if a < 0:
            for i in range(k[K_NS]):
                if mask[k[K_A_SHIP] + i] and s.sh[b, i, SH_LINE] == L_RESERVE and (
                        move_reason(s, cfg, b, AUTO, i, L_SCREEN) == OK
                        or move_reason(s, cfg, b, AUTO, i, L_MAIN) == OK):
                    a = k[K_A_SHIP] + i              # a reserve ship comes back to the battle line
                    break
        if a < 0 and mask[named + N_DONE]:
            a = named + N_DONE
    elif st == ST_FORM_DEST:
        cs = count_line(s, b, AUTO, L_SCREEN)
        cm = count_line(s, b, AUTO, L_MAIN)
        first = L_SCREEN if cs <= cm else L_MAIN
        if mask[k[K_A_LINE] + first]:
            a = k[K_A_LINE] + first
        elif mask[k[K_A_LINE] + 1 - first]:
            a = k[K_A_LINE] + 1 - first
    elif st == ST_ATTACK:
        for t in (T_PF, T_MUTINY, T_PBF, T_CEASE):
            for c in range(k[K_NC]):
                if a < 0 and mask[k[K_A_CARD] + c] and cfg.card[c, CC_TYPE] == t:
                    a = k[K_A_CARD] + c
        if auto_attacker(s, cfg, b) >= 0:
            a = -1                                   # kept or drawn attack cards come first
            i = auto_attacker(s, cfg, b)
            if mask[k[K_A_SHIP] + i]:
                a = k[K_A_SHIP] + i
        if a < 0 and mask[named + N_FIGHTERS]:
            a = named + N_FIGHTERS                   # a carrier "se non hanno carte per effettuarlo"
        if a < 0:
            a = named + N_DONE
    elif st == ST_TARGET:
        kind = s.g[b, G_ATK_KIND]
        t = auto_target(s, cfg, b)
        if t >= 0 and mask[k[K_A_SHIP] + t]:
            a = k[K_A_SHIP] + t
        else:
            # (Klingon Mutiny, or the first target cannot be hit): the first legal, screen first
            best = -1
            for i in range(k[K_NS]):
                if mask[k[K_A_SHIP] + i]:
                    if best < 0 or s.sh[b, i, SH_LINE] < s.sh[b, best, SH_LINE] or (
                            s.sh[b, i, SH_LINE] == s.sh[b, best, SH_LINE] and s.pos[b, i] < s.pos[b, best]):
                        best = i
            if best >= 0:
                a = k[K_A_SHIP] + best
    elif st == ST_CARRIER:
        a = auto_best_ship(s, cfg, b, mask, False)
    elif st == ST_SQUADRONS:
        for x in range(k[K_A_RACE] - 1, k[K_A_NUM] - 1, -1):
            if mask[x]:
                a = x
                break
    elif st == ST_ATK_CARDS:
        ship = s.g[b, G_ATK_SHIP]
        for c in range(k[K_NC]):
            if a < 0 and mask[k[K_A_CARD] + c] and s.cd[b, c, CD_SHIP] == ship:
                a = k[K_A_CARD] + c                  # the cards given to the attacking ship
        if a < 0:
            for c in range(k[K_NC]):
                if a < 0 and mask[k[K_A_CARD] + c] and cfg.card[c, CC_TYPE] == T_PRIME:
                    a = k[K_A_CARD] + c              # any other card at the first opportunity
        if a < 0 and mask[named + N_DONE]:
            a = named + N_DONE
    elif st == ST_LINK:
        # against the strongest attack card; a combat card on the strongest own card
        ret = s.g[b, G_RETURN]
        best_v = -1
        for x in range(k[K_NC]):
            if mask[k[K_A_CARD] + x]:
                v = card_attack_value(s, cfg, b, x) if ret == ST_DEFENCE else cfg.card[x, CC_VALUE]
                if v > best_v:
                    best_v = v
                    a = k[K_A_CARD] + x
    elif st == ST_PT_MODE:
        for n in (N_PT_CANCEL, N_PT_CANCEL_WW, N_PT_ADD):
            if a < 0 and mask[named + n]:
                a = named + n
    elif st == ST_DEFENCE or st == ST_REACT or st == ST_FTR_DEF or st == ST_PF_FIRE or st == ST_MUTINY_ATK \
            or st == ST_MUTINY_DEF:
        # "Ogni altra carta ... deve essere usata in difesa ogni volta può essere utilizzata"
        a = auto_free_card(s, cfg, b, mask, T_DISENGAGE)
        if a < 0:
            a = named + N_DONE
    elif st == ST_PLACE:
        for x in range(k[K_A_NUM] - 1, k[K_A_KIND] - 1, -1):
            if mask[x]:
                a = x                                # circles first, then fighters, WPN, weapons
                break
    elif st == ST_DISCARD:
        for c in range(k[K_NC]):
            if a < 0 and mask[k[K_A_CARD] + c] and auto_useless(s, cfg, b, c):
                a = k[K_A_CARD] + c
        if a < 0:
            a = named + N_DONE
    elif st == ST_DISC_DEST:
        a = named + N_TO_DISCARD
    elif st == ST_DUEL_PICK:
        best_v = -1
        for i in range(k[K_NS]):
            if mask[k[K_A_SHIP] + i] and cfg.ship[i, SC_VP] > best_v:
                best_v = cfg.ship[i, SC_VP]
                a = k[K_A_SHIP] + i
    elif st == ST_CLOAK_SETUP or st == ST_CEASE_KEEP:
        a = named + N_DONE
    if a >= 0 and a < mask.shape[0] and mask[a]:
        return a
    for x in range(mask.shape[0]):
        if mask[x]:
            return x
    return -1


# ============================================================================================
# batched entry points (same contract as every wargym game, see core/vec.py)
# ============================================================================================
@nb.njit(cache=True, nogil=True)
def reset_range(s, cfg, seeds, idx, out, lo, hi):
    """New games ``idx[lo:hi]`` from ``seeds[lo:hi]``, in the calling thread (VecGame cuts a batch
    into one range per thread, core/threads.py)."""
    sv, cv, ov = state_view(s), config_view(cfg), outputs_view(out)
    for j in range(lo, hi):
        b = idx[j]
        reset_game(sv, cv, b, seeds[j], ov.mask[b])
        write_obs(sv, cv, b, sv.g[b, G_DECIDER], ov.obs[b])
        ov.player[b] = sv.g[b, G_DECIDER]


@nb.njit(cache=True)
def final_reward(s, cfg, b, p):
    """Option reward='rank': +1 for first place down to -1 for last, linear in the rank; tied
    players share the average of their places (a two-player tie is 0)."""
    P = cfg.k[K_P]
    better = 0
    equal = 0
    me = s.pl[b, p, PL_WIN] * 100000 + side_score(s, cfg, b, p)
    for q in range(P):
        if q == p:
            continue
        other = s.pl[b, q, PL_WIN] * 100000 + side_score(s, cfg, b, q)
        if other > me:
            better += 1
        elif other == me:
            equal += 1
    avg = better + 0.5 * equal
    return 1.0 - 2.0 * avg / (P - 1)


# Inlined (Numba IR) into step_range, the step's one compiled entry point, and into the loops
# through step_game: each compiled entry point compiles the whole step once more.
@nb.njit(inline="always")
def play_step(s, cfg, b, a, out, auto_reset):
    """One decision of game b on views: the legality check, the action and everything it forces,
    rewards and flags, the observation, and the mask (written by settle)."""
    P = cfg.k[K_P] if not cfg.k[K_SOLITAIRE] else 1    # agents: the solitaire automaton is none
    for p in range(P):
        out.rewards[b, p] = 0
    out.term[b] = False
    out.trunc[b] = False
    # out.mask[b] holds the legal actions of this decision (every kernel that changes a game
    # rewrites it, and VecGame.refresh after writes from outside), so a legal action needs no
    # second look at the rules; an action the mask refuses gets its reason from them
    legal = a >= 0 and a < cfg.k[K_N_ACTIONS] and out.mask[b, a] != 0
    code = OK if legal else action_reason(s, cfg, b, a)
    out.illegal[b] = code
    if code != OK:
        return
    g = s.g
    # the scores before the action, kept in the reward buffer (exact: float32 holds every
    # score) rather than in an array allocated every step
    for p in range(P):
        out.rewards[b, p] = s.pl[b, p, PL_SCORE]
    apply_action(s, cfg, b, a, out.mask[b])
    g[b, G_DECISIONS] += 1
    for p in range(P):
        before = np.int32(out.rewards[b, p])
        out.rewards[b, p] = 0
        if cfg.k[K_REWARD] == 1:
            # reward='points': victory points scored this step, in tens; at the end the points of
            # the surviving ships too, so a player's return is its final score / 10
            out.rewards[b, p] = (s.pl[b, p, PL_SCORE] - before) / 10.0
    if g[b, G_DONE] and not g[b, G_TRUNC]:
        out.term[b] = True
        for p in range(P):
            if cfg.k[K_REWARD] == 0:
                out.rewards[b, p] = final_reward(s, cfg, b, p)
            else:
                out.rewards[b, p] += (s.pl[b, p, PL_FINAL] - s.pl[b, p, PL_SCORE]) / 10.0
    elif g[b, G_DONE] or (cfg.k[K_MAX_DECISIONS] > 0 and g[b, G_DECISIONS] >= cfg.k[K_MAX_DECISIONS]):
        out.trunc[b] = True
    if (out.term[b] or out.trunc[b]) and auto_reset:
        for p in range(P):
            write_obs(s, cfg, b, p, out.final_obs[b, p])
        reset_game(s, cfg, b, np.uint64(draw_int(s.rng, b, 2**62)), out.mask[b])
    write_obs(s, cfg, b, g[b, G_DECIDER], out.obs[b])
    out.player[b] = g[b, G_DECIDER]


@nb.njit(inline="always")
def step_game(s, cfg, b, a, out, auto_reset):
    """One decision of game b; takes structs (the bot's loops, core/loops.py, inline it) or views."""
    play_step(state_view(s), config_view(cfg), b, a, outputs_view(out), auto_reset)


@nb.njit(cache=True, nogil=True)
def step_range(s, cfg, actions, active_, out, auto_reset, lo, hi):
    """Games ``lo`` .. ``hi - 1`` of a batch step, in the calling thread (VecGame cuts a batch into
    one range per thread, core/threads.py; VecGame.step_one steps one game as a range of one)."""
    sv, cv, ov = state_view(s), config_view(cfg), outputs_view(out)
    for b in range(lo, hi):
        ov.illegal[b] = 0
        if active_[b]:
            play_step(sv, cv, b, actions[b], ov, auto_reset)


@nb.njit(cache=True)
def observe_game(s, cfg, b, p, obs, mask):
    sv, cv = state_view(s), config_view(cfg)
    write_obs(sv, cv, b, p, borrow(obs))
    mask[:] = 0
    if p == sv.g[b, G_DECIDER] and not sv.g[b, G_DONE]:
        write_mask(sv, cv, b, borrow(mask))


@nb.njit(cache=True)
def start_scenario(s, cfg, b, active, phase, rnd):
    """Begin the turn of ``active`` at phase 1 (draw), 2 (repair), 3 (formation) or 4 (attack)
    for a game whose cards and ships a scenario has placed; then settle (the caller observes
    the game afterwards, so the mask settle writes is scratch)."""
    sv, cv = state_view(s), config_view(cfg)
    scenario_start(sv, cv, b, active, phase, rnd, np.zeros(cv.k[K_N_ACTIONS], dtype=np.int8))


@nb.njit(cache=True)
def scenario_start(s, cfg, b, active, phase, rnd, mask):
    s.g[b, G_ROUND] = rnd
    s.g[b, G_SETUP_P] = -1
    s.g[b, G_ACTIVE] = active
    s.g[b, G_TURN] += 1
    s.g[b, G_FIRST_ATTACKER] = -1
    s.g[b, G_ATK_SHIP] = -1
    s.g[b, G_TARGET] = -1
    if phase <= 1:
        continue_draw(s, cfg, b)
    elif phase == 2:
        enter_repair(s, cfg, b)
    elif phase == 3:
        enter_formation(s, cfg, b, 1)
    else:
        enter_attack(s, cfg, b)
    settle(s, cfg, b, mask)
