"""Named columns, codes and views shared by every UnionWars rules module.

The state is struct-of-arrays (``game.state_spec``); every integer column of
the per-game scalars (``g``), per-model data (``md``) and the static tables
(``pf`` profiles, ``wp`` weapons, ``k`` config scalars) is named here, so the
rules read like the rulebook.  Headings in comments are the seed's
(``003_acd2552911f03c0f.txt``, UnionWars First Contact 3.0).
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import view

TABLE_CM = 120.0         # IL CAMPO DI BATTAGLIA: "almeno 120x120 cm"
N_SLOTS = 8              # model slots per side
T_MAX = 27               # terrain pieces: D3 per 40x40 cm square, 9 squares (RULES.md "Disposizione")
MAX_OBJ = 6              # OBIETTIVI: 3 + 1D3
MAX_SMOKE = 4            # FUMOGENO markers at once
MAX_REACT = 8            # reactions declared against one action
LATTICE = 12             # deployment / objective spots: a 12x12 lattice of 10 cm cells
N_SPOTS = LATTICE * LATTICE
N_DIRS = 16              # movement directions (22.5 degrees apart)
N_DIST = 4               # movement distances: 1/4, 2/4, 3/4, 4/4 of the allowance (0 = rotate only)
N_MOVES = N_DIRS * (N_DIST + 1)

# -- per-game scalars: s.g[b, G_*] ----------------------------------------------
(G_TURN, G_ACTIVE, G_DECIDER, G_STAGE, G_DONE, G_WINNER, G_DECISIONS, G_MISSION, G_FIRST, G_ACTOR,
 G_ACTOR_SIDE, G_ACT, G_TGT, G_MOVE, G_NREACT, G_RSLOT, G_BANK0, G_BANK1, G_EDGE0, G_DEPLOYER, G_NOBJ,
 G_OBJ_PLACED, G_BONUS0, G_BONUS1, G_AMMO0, G_AMMO1, G_CONTROLLED, G_NIGHT, G_CMD0, G_CMD1, G_MAX_TURNS,
 G_START0, G_START1, G_BASE0, G_BASE1, G_PLACER, G_CHARGE_OK, G_RESERVE_PLACING, G_ASSASSIN0,
 G_ASSASSIN1, G_EXPLORE_WINNER, G_CM_PTR, G_SEGN0, G_SEGN1, G_COORD0, G_COORD1, G_CONSOL,
 G_MELEE_ROUND, G_FACE, G_FACE_MOVE, G_FACE_DIR) = range(51)
N_G = 51  # G_CONSOL: the 2D6 cm of the consolidation being decided; G_MELEE_ROUND: the current group's round
# option facing="choose" (MOVIMENTO "muovere ... e/o ruotare"): G_FACE, the move whose end facing is
# asked in stage ST_FACING (FACE_* below); G_FACE_MOVE, its move choice; G_FACE_DIR, the direction + 1
# the declared MOVIMENTO ends facing (0: its direction of travel)
FACE_NONE, FACE_ACTION, FACE_COUNTERMOVE, FACE_CONSOLIDATION = range(4)

# -- per model: s.md[b, side, slot, MD_*] ----------------------------------------
(MD_PROFILE, MD_STATUS, MD_WOUNDS, MD_MORALE, MD_FATIGUE, MD_CAR, MD_FLAGS, MD_USED, MD_PRONE_UNTIL,
 MD_CHARGE_AT, MD_MELEE_DEALT, MD_FLASH_UNTIL, MD_JAMMED, MD_REACTED, MD_ENGAGED_WITH, MD_CMD_BONUS,
 MD_CONTROLLED, MD_ACTIONS, MD_HIT_BY, MD_MELEE_TGT, MD_MELEE_WPN) = range(21)
N_MD = 21
# LA MISCHIA: the attack chosen for this round (MD_MELEE_TGT: enemy slot, MELEE_UNCHOSEN or
# MELEE_NO_TARGET; MD_MELEE_WPN: melee weapon slot 0/1, MELEE_BARE_HANDS or MELEE_UNCHOSEN)
MELEE_UNCHOSEN, MELEE_NO_TARGET, MELEE_BARE_HANDS = -3, -2, -1

# model status
ABSENT, RESERVE, ACTIVE, OOC, REMOVED = 0, 1, 2, 3, 4
STATUS_NAMES = ("absent", "reserve", "active", "out of combat", "removed")
# MD_FLAGS bits
F_HIDDEN = 1 << 0
F_ALERT = 1 << 1
F_PRONE = 1 << 2
F_SUPPRESSED = 1 << 3
F_ENGAGED = 1 << 4
F_AIMED = 1 << 5
F_CONCENTRATED = 1 << 6
F_CHARGER = 1 << 7
F_COUNTERCHARGER = 1 << 8
F_COVER = 1 << 9          # charged while in cover (+1 to hit in the melee, CARICA)
F_SATURATED = 1 << 10     # hit by SATURAZIONE this turn: no cover bonus in melee
F_WOUNDED = 1 << 11       # wounded this turn (IL TEST DI SOPPRESSIONE)
F_PIN_TEST = 1 << 12      # takes a pinning test in the control phase (RULES.md)
F_RECOVERED = 1 << 13     # RIPRESA: no other action this turn
F_FROM_HIDDEN = 1 << 14   # charged from hidden (+1 to hit in the melee)
F_FLEW_FROM_ROUGH = 1 << 15
F_KEPT = 1 << 16           # LE RISERVE: kept in reserve at deployment
F_ENTERING = 1 << 17       # a reserve that passed its 4+ and is being placed
F_WON = 1 << 18            # won a melee this phase: may consolidate 2D6
F_MELEE_GROUP = 1 << 19    # in the melee group fighting now (LA FASE DI MISCHIA)
F_MELEE_DONE = 1 << 20     # its melee group has fought this phase

# -- action kinds (LE AZIONI) and reaction kinds (LE REAZIONI) --------------------
(AK_MOVE, AK_FIRE0, AK_FIRE1, AK_SUPP0, AK_SUPP1, AK_CHARGE, AK_HIDE, AK_ALERT, AK_AID, AK_RECOVER, AK_AIM,
 AK_CONC, AK_UNJAM, AK_RICHIAMO, AK_SEGNALATORE, AK_CONTROLLO, AK_GENIO, AK_COORDINATE, AK_DELEGATE,
 AK_FLY) = range(20)
N_AK = 20
ACTION_NAMES = ("MOVIMENTO", "FUOCO (arma 1)", "FUOCO (arma 2)", "FUOCO SOPPRESSIVO (arma 1)",
                "FUOCO SOPPRESSIVO (arma 2)", "CARICA", "NASCOSTO", "IN ALLERTA", "SOCCORSO", "RIPRESA", "MIRA",
                "CONCENTRAZIONE", "DISINCEPPARE", "ABILITA' RICHIAMO", "ABILITA' SEGNALATORE",
                "ABILITA' CONTROLLO", "ABILITA' GENIO TATTICO", "ABILITA' COORDINATE DI TIRO",
                "carisma del comandante", "MOVIMENTO in volo (VOLANTE)")
(RK_COUNTERMOVE, RK_FALLBACK, RK_FIRE0, RK_FIRE1, RK_COUNTERCHARGE, RK_PRONE, RK_DUEL) = range(7)
N_RK = 7
REACTION_NAMES = ("CONTROMOSSA", "RIPIEGARE", "FUOCO DI REAZIONE (arma 1)", "FUOCO DI REAZIONE (arma 2)",
                  "CONTROCARICA", "A TERRA", "DUELLO MENTALE")

# -- decision stages ----------------------------------------------------------------
(ST_MISSION, ST_SIDE, ST_DEPLOY_ORDER, ST_OBJECTIVE, ST_BASE, ST_DEPLOY, ST_INITIATIVE, ST_NIGHT, ST_SELECT,
 ST_ACTION, ST_TARGET, ST_REACT, ST_REACT_KIND, ST_COUNTERMOVE, ST_OVER, ST_CONSOLIDATE, ST_MELEE_TARGET,
 ST_MELEE_WEAPON, ST_BANK, ST_FACING) = range(20)
N_STAGES = 20
STAGE_NAMES = ("mission choice", "deployment side", "deployment order", "objective placement", "base choice",
               "deployment", "initiative", "day or night", "choose a model", "declare an action",
               "choose a target", "declare reactions", "choose a reaction", "counter-move", "over",
               "consolidation", "melee target", "melee weapon", "exploration bank", "facing")

# -- ESPLORAZIONE bank (bank.py): option exploration_bank in cfg.k[K_BANK] ------------------------
BANK_OFF, BANK_OWN_TESTS, BANK_ASK = 0, 1, 2
BANK_MODES = ("off", "own_tests", "ask")
# the test a bank decision is about (observation, bot, render)
(TK_NONE, TK_ABILITY, TK_COMMAND, TK_PINNING, TK_SUPPRESSION, TK_FLIGHT, TK_HIT, TK_SHIELD, TK_ARMOUR,
 TK_DUEL, TK_CHARGE, TK_SPOT, TK_THROW, TK_OVERLAP, TK_AID, TK_JAM, TK_RESERVE, TK_ROLLOFF, TK_SMOKE,
 TK_TIME,
 # amount rolls (no target: the owner chooses how many points move the result, RULES.md "Esplorazione")
 TK_CHARGE_AT, TK_SUPPRESSIVE, TK_GENIO, TK_CONSOLIDATION, TK_ROUGH, TK_FATIGUE) = range(26)
TK_FIRST_AMOUNT = TK_CHARGE_AT
TEST_NAMES = ("", "ability test", "command test", "pinning test", "suppression test", "flight over rough terrain",
              "to-hit roll", "shield roll", "armour roll", "mental duel", "charge roll (M+2D6)",
              "night spotting roll (2D6+SNx10)", "throw roll (COSx10+2D6)", "overlapping models' 4+",
              "first aid 5+", "inertial weapon's 4+ against a jam", "reserves' 4+", "roll-off", "smoke's 4+",
              "extra time's 4+", "charge's +1D3 attacks", "suppressive fire's 1D3 morale markers",
              "GENIO's 1D6 bonus actions", "consolidation's 2D6 cm", "rough terrain's 1D6 off M",
              "fatigue's 1D6 off M")
# BK_ROLLER of a roll that is no one side's (a roll-off, the game's 4+ for smoke and extra time)
ROLLER_NONE = 2
# s.bk[b, BK_*]: the replay of a step's resolution (RULES.md "Esplorazione").  BK_RECORDING: a
# snapshot of this step is kept, bank rolls count as events; BK_EVENT: bank-eligible rolls met so
# far in this run; BK_NDEC / BK_ANSWERS: decisions already taken for events 0..NDEC-1 (bit k = spent);
# BK_PENDING: this run met an undecided event; BK_ACTION: the step's action, replayed after each
# answer; then the pending roll: its owner (who decides), roller side, model slot, test kind,
# points to spend (an amount roll: the most the owner may spend), margin (roll total - target: >= 0
# passed; an amount roll: the result as rolled); BK_SPENT0/1: points each side spent
# in this run before the pending roll (the live banks are the step's start until it ends);
# BK_WOUNDS: the rolling model's wounds at the moment of the pending roll (the state shown is the step's start).
(BK_RECORDING, BK_EVENT, BK_NDEC, BK_ANSWERS, BK_PENDING, BK_ACTION, BK_OWNER, BK_ROLLER, BK_SLOT, BK_KIND,
 BK_NEED, BK_MARGIN, BK_SPENT0, BK_SPENT1, BK_WOUNDS) = range(15)
MAX_BANK_ASKS = 30       # decisions recorded for one step's resolution (bits of BK_ANSWERS)
BK_AMOUNT0 = 15          # BK_AMOUNT0 + k: points spent at decision k (an amount roll's answer)
# A search's sample of the dice a question's owner has not seen (bank.py ``reseed_after``; set only by
# ``information.determinise``, 0 in play): after the roll of event BK_RESEED_AT - 1 every replay of
# the step draws on from the stream (BK_RESEED_HI << 32) | BK_RESEED_LO (two int32 halves).
BK_RESEED_AT = BK_AMOUNT0 + MAX_BANK_ASKS
BK_RESEED_LO, BK_RESEED_HI = BK_RESEED_AT + 1, BK_RESEED_AT + 2
N_BK = BK_RESEED_AT + 3
MAX_BANK_AMOUNT = 5      # an amount roll's answer: choice c spends c + 1 points (N_CHOICES choices)
N_BANK_OBS = 6           # observation values added by exploration_bank="ask"

# -- missions (MISSIONI) --------------------------------------------------------------
M_EXTERMINATION, M_PATROL, M_OBJECTIVES, M_BASES, M_ASSASSINATION = 1, 2, 3, 4, 5
MISSION_NAMES = ("", "STERMINIO", "PATTUGLIAMENTO", "OBIETTIVI", "BASI", "ASSASSINIO", "A SCELTA")

# -- terrain (TERRENI): s.terr[b, t, vertex, xy]; s.tinfo[b, t, TI_*] ------------------------
TI_KIND, TI_HEIGHT, TI_EXPLORED, TI_NVERT = range(4)
N_TI = 4
T_NONE, T_ROUGH, T_IMPASSABLE = 0, 1, 2

# -- profile table: cfg.pf[profile, PF_*] ------------------------------------------------------
(PF_M, PF_ADT, PF_ADM, PF_COS, PF_SN, PF_FS, PF_AT, PF_PSI, PF_CAR, PF_CARB, PF_ARM, PF_SHIELD, PF_POINTS,
 PF_RADIUS_MM, PF_HEIGHT_MM, PF_TYPE, PF_RULES, PF_EXPERT, PF_FLY, PF_ABIL, PF_R0, PF_R1, PF_M0, PF_M1,
 PF_EQUIP) = range(25)
N_PF = 25
TYPE_QG, TYPE_TROOP, TYPE_SPECIALIST = 0, 1, 2
# PF_RULES bits (REGOLE SPECIALI)
SR_PSIONIC = 1 << 0
SR_MAGE = 1 << 1
SR_CAMO = 1 << 2          # MIMETISMO
SR_SCOUT = 1 << 3         # ESPLORATORE
SR_INFILTRATE = 1 << 4    # INFILTRAZIONE
SR_FAST = 1 << 5          # MOVIMENTO RAPIDO
SR_FLY = 1 << 6           # VOLANTE N (N in PF_FLY)
SR_IMMOBILE = 1 << 7      # IMMOBILE
SPECIAL_RULE_BITS = {"PSIONICO": SR_PSIONIC, "MAGO": SR_MAGE, "MIMETISMO": SR_CAMO, "ESPLORATORE": SR_SCOUT,
                     "INFILTRAZIONE": SR_INFILTRATE, "MOVIMENTO RAPIDO": SR_FAST, "VOLANTE": SR_FLY,
                     "IMMOBILE": SR_IMMOBILE}
# ESPERTO fields (PF_EXPERT)
EX_NONE, EX_MEDICINE, EX_WEAPONS, EX_MARTIAL, EX_MIND, EX_MECHANICS, EX_EXPLOSIVES = range(7)
EXPERT_FIELDS = ("", "medicina", "armi", "arti marziali", "mente", "meccanica", "esplosivi")
# PF_ABIL bits (ABILITA')
AB_RICHIAMO, AB_SEGNALATORE, AB_CONTROLLO, AB_GENIO, AB_COORDINATE = 1, 2, 4, 8, 16
ABILITY_BITS = {"RICHIAMO": AB_RICHIAMO, "SEGNALATORE": AB_SEGNALATORE, "CONTROLLO": AB_CONTROLLO,
                "GENIO TATTICO": AB_GENIO, "COORDINATE DI TIRO": AB_COORDINATE}
# PF_EQUIP bits
EQ_COMMS, EQ_MEDKIT, EQ_AMPLIFIER = 1, 2, 4
EQUIPMENT_BITS = {"comunicatore": EQ_COMMS, "kit medico": EQ_MEDKIT, "amplificatore psionico": EQ_AMPLIFIER}

# -- weapon table: cfg.wp[weapon, WP_*] ------------------------------------------------------
WP_RANGE, WP_RATE, WP_MELEE, WP_RULES, WP_WEIGHT4 = range(5)
N_WP = 5
(WR_BARE, WR_BLADE, WR_MONO, WR_POWER, WR_PISTOL, WR_ASSAULT, WR_INERTIAL, WR_IMPULSE, WR_BURST, WR_FRAG,
 WR_SMOKE, WR_SATURATION, WR_TWIN, WR_FLASH, WR_THROWN, WR_INDIRECT) = (1 << i for i in range(16))
WEAPON_RULE_BITS = {"MANI NUDE": WR_BARE, "BIANCA": WR_BLADE, "MONOMOLECOLARE": WR_MONO, "POTENZIATA": WR_POWER,
                    "PISTOLA": WR_PISTOL, "ASSALTO": WR_ASSAULT, "INERZIALI": WR_INERTIAL, "IMPULSO": WR_IMPULSE,
                    "RAFFICA": WR_BURST, "FRAMMENTAZIONE": WR_FRAG, "FUMOGENO": WR_SMOKE,
                    "SATURAZIONE": WR_SATURATION, "BINATA": WR_TWIN, "FLASHBANG": WR_FLASH, "DA LANCIO": WR_THROWN,
                    "INDIRETTO": WR_INDIRECT}

# -- config scalars: cfg.k[K_*] ----------------------------------------------------------------
(K_MISSION, K_TURNS, K_TIME, K_NIGHT, K_AMMO, K_JAM, K_RESERVES, K_WEIGHT, K_CAR_REFRESH, K_MORALE_EACH,
 K_BANK, K_REWARD_KILLS, K_MAX_DECISIONS, K_FIXED_TABLE, K_N_FIXED, K_REACT_ONCE, K_TURNS_TOTAL,
 K_A_MODEL, K_A_ACT, K_A_THEIR, K_A_MINE, K_A_MOVE, K_A_SPOT, K_A_PIECE, K_A_CHOICE, K_A_REACT, K_A_PASS,
 K_N_ACTIONS, K_MELEE_AUTO, K_FACING_TRAVEL, K_RELATIONS) = range(31)
N_K = 31
N_CHOICES = 5

# -- reasons an action is illegal (index into game.REASONS) --------------------------------
(OK, R_GAME_OVER, R_WRONG_STAGE, R_NO_MODEL, R_CANNOT_ACT, R_NO_CHARISMA, R_NOT_AVAILABLE, R_FATIGUED,
 R_ENGAGED, R_NO_WEAPON, R_JAMMED, R_NO_AMMO, R_NO_TARGET, R_NOT_IN_SIGHT, R_OUT_OF_RANGE, R_ALLY_BLOCKS,
 R_NOT_IN_CONTACT_TERRAIN, R_NO_WOUND, R_NOT_SUPPRESSED, R_TOO_FAR, R_OFF_TABLE, R_IMPASSABLE, R_BASES_CROSS,
 R_NEAR_ENEMY, R_IMMOBILE, R_NOT_PSIONIC, R_DEPLOY_ZONE, R_DEPLOY_ENEMY, R_RESERVE_LIMIT, R_PIECE,
 R_ALREADY_REACTED, R_NO_REACTION_TARGET, R_NOT_COMMANDER, R_NO_SUCH_ACTION, R_RECOVERED, R_OBJ_SPOT,
 R_NOT_FLYER, R_SAME_ACTOR, R_NOT_IN_CONTACT, R_NOT_AREA_WEAPON, R_BANK_ANSWER, R_FACING) = range(42)
N_REASONS = 42

# -- observation ---------------------------------------------------------------------------------
N_MF = 28      # features per model row
N_TF = 13      # features per terrain row
N_GF = 40      # globals (+ objectives and smoke below)
N_OBS = 2 * N_SLOTS * N_MF + T_MAX * N_TF + N_GF + MAX_OBJ * 3 + MAX_SMOKE * 3

# -- s.geo[b, GEO_*]: float32 geometry kept per game ------------------------------------------------
# The line of fire of the last shot (for the renderer) and the sight cache (sight.py): VISTA DEI
# MODELLI computed once per layout of the table.  One array, not several: every array of the
# state is one more argument of every compiled call, and more arguments made the calls slower.
# GEO_SHOT: x0, y0, x1, y1, drawn (1) of the last shot.
# GEO_KEY: what the cached answers were computed from (every model's x, y and control range,
#   or -2 when not active; every smoke marker's x, y, present), then GEO_VALID (0: no answer
#   is cached) and GEO_BOXED (0: the terrain boxes must be computed again).
# GEO_BOX + 4 t: the bounding box x0, x1, y0, y1 of terrain piece t.
# GEO_VIS + ((side * N_SLOTS + i) * 2 + ts) * N_SLOTS + ti: the sight bits of model (side, i)
#   looking at (ts, ti), front arc and NASCOSTO aside, or VIS_UNKNOWN.
VIS_UNKNOWN = -1.0
N_VIS_KEY = 2 * N_SLOTS * 3 + MAX_SMOKE * 3
GEO_SHOT = 0
GEO_KEY = 5
GEO_VALID = GEO_KEY + N_VIS_KEY
GEO_BOXED = GEO_VALID + 1
GEO_BOX = GEO_BOXED + 1
GEO_VIS = GEO_BOX + 4 * T_MAX
N_GEO = GEO_VIS + 2 * N_SLOTS * 2 * N_SLOTS

# bk and snap_*: the ESPLORAZIONE bank's replay (bank.py): the state at the start of a step's
# resolution, kept only with exploration_bank="ask" and a bank > 0.
STATE_FIELDS = ("rng", "policy_rng", "dice_script", "dice", "g", "pos", "md", "terr", "tinfo", "objs", "smoke",
                "rq", "geo", "bk", "snap_rng", "snap_dice", "snap_g", "snap_pos", "snap_md", "snap_tinfo", "snap_objs",
                "snap_smoke", "snap_rq", "snap_shot")
CONFIG_FIELDS = ("k", "pf", "wp", "army", "spots", "fixed_terr", "fixed_tinfo")
# The kernels read the state, config and outputs through views (core/structs.py ``view``): the
# struct's arrays, borrowed, behind one pointer, so that a call that is not inlined passes one
# pointer where a tuple of 24 + 7 arrays was ~200 machine words (35-40 ns a call).
@kernel(cache=True, inline="always")
def state_view(s):
    return view(s)


@kernel(cache=True, inline="always")
def config_view(c):
    return view(c)


@kernel(cache=True, inline="always")
def outputs_view(o):
    return view(o)
