"""Star Fleet Battle Force's state and config layout (seed 001): card and ship types, the columns of
every state array, stages, action families, reason codes, and the borrowed views the kernels read
them through.

State of one game (arrays of ``BattleForceState``, leading batch axis):
  g[N_G]          scalars (stage, players, attack in progress ...), columns G_*
  cd[NC, N_CD]    each action card: where it is, who holds it, links, columns CD_*
  sh[NS, N_SH]    each ship card: where it is, owner, line, markers, damage, columns SH_*
  pl[P, N_PL]     each player: counts, score, team, turn order, columns PL_*
  deck[NC], disc[NC], sdeck[NS]   stacks (top = last) of the action deck, the
                  discard pile and the ship deck; their sizes are in g.

Every rule cites its heading in the Italian rulebook as ``SFBF <heading>``; RULES.md's table says
which module holds which heading.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import view


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


# The kernels read the state, config and outputs through views (core/structs.py ``view``): the
# struct's arrays, borrowed, behind one pointer.
STATE_FIELDS = ("rng", "policy_rng", "dice_script", "dice", "g", "cd", "sh", "pos", "pl", "deck", "disc", "sdeck")
CONFIG_FIELDS = ("k", "card", "ship")


@kernel(cache=True, inline="always")
def state_view(s):
    return view(s)


@kernel(cache=True, inline="always")
def config_view(c):
    return view(c)


@kernel(cache=True, inline="always")
def outputs_view(o):
    return view(o)


AUTO = 1    # the automaton's seat; the agent plays seat 0
