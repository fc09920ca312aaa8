"""Star Fleet Battle Force as a wargym game definition: options, card and ship data, state
layout, scenarios, action names and the observation layout.  The rules are in ``rules.py``;
every interpretation is in ``RULES.md``.
"""
from __future__ import annotations

import json
import types
from pathlib import Path

import numpy as np
from numba.experimental import structref

from ..core.batch import StateSpec
from ..core.contract import reason_texts
from ..core.options import merged_options
from ..core.rng import DICE_SCRIPT_LEN
from ..core.results import NO_WINNER, result_info
from ..core.structs import WargymStruct
from . import rules as R
from .information import determinise  # noqa: F401  (the search's sample of what a player cannot see)
from .validate import validate_state  # noqa: F401  (a state from outside, checked before any kernel sees it)

NAME = "battle_force"
# hands, the decks and face-down reserve ships are secret (SFBF Preparazione, Navi di Riserva): the
# state holds them, so the search bot (envs/core/search.py) searches samples of them (determinise)
HIDDEN_INFORMATION = True
VERSION = 1         # battle_force_v1: a ship's order in its line (option ship_order); v0 without it
# A decision costs several microseconds, so the thread pool pays from 64 games on
# (serial vs parallel, decisions/s on 2 cores: B=64 110k vs 121k, B=256 160k vs 220k)
PARALLEL_FROM = 64
DATA = Path(__file__).parent / "data"
kernels = R

CARD_TYPES = ("phaser1", "phaser2", "phaser3", "photon", "disruptor", "drone", "plasma_r", "plasma_s", "plasma_f",
              "overload", "enveloper", "scatterpack", "legendary_gunner", "eccm", "erratic_maneuvers", "ecm",
              "reinforce_shields", "wild_weasel", "tractor_beam", "disengage", "damage_control",
              "legendary_engineer", "reinforcements", "planet_based_fighters", "pf_flotilla", "klingon_mutiny",
              "organian_ceasefire", "prime_team")
# damage spaces of a ship card, in the order of the KIND actions
SPACE_KINDS = CARD_TYPES[:9] + ("wpn", "fighters", "circle")
RACES = ("federation", "klingon", "romulan", "gorn", "kzinti", "orion", "tholian")
LINE_NAMES = ("screen", "main", "reserve")
DEFENDS = {"drone": R.D_DRONE, "plasma": R.D_PLASMA, "fighter": R.D_FIGHTER, "pf": R.D_PF}
# SFBF Preparazione: cards taken out for the first (learning) game
LEARNING_REMOVED = ("disengage", "ecm", "eccm", "legendary_engineer", "legendary_gunner", "klingon_mutiny",
                    "organian_ceasefire", "wild_weasel", "prime_team", "pf_flotilla", "planet_based_fighters")
# SFBF Preparazione: ships per player by number of players
SHIPS_PER_PLAYER = {2: 15, 3: 10, 4: 7, 5: 6, 6: 5}
assert len(CARD_TYPES) == R.N_TYPES and CARD_TYPES.index("disruptor") == R.T_DISR
assert CARD_TYPES.index("drone") == R.T_DRONE and CARD_TYPES.index("prime_team") == R.T_PRIME

DEFAULT_OPTIONS = {
    "players": 2,                  # 2..6
    "game": "advanced",            # "basic" or "advanced" (SFBF Gioco base e gioco avanzato)
    "formation": True,             # advanced: screen / main body / reserve (Note 5: may be left out)
    "learning": False,             # first game: 4 ships each, the listed special cards removed
    "fighters": True,              # basic game: fighter rules (False removes the two Planet-Based Fighters)
    "ship_selection": "auto",      # auto | deal | points | draft | fleet_core | draft4 (RULES.md 'Set-up')
    "points_budget": 65,           # ship_selection="points": victory points each player picks
    "ships_per_player": 0,         # 0: the rulebook's table (15/10/7/6/5); learning game: 4
    "single_race": False,          # optional: each player one race, the same number of ships
    "draw_discard": False,         # optional: one card of the draw may be the top discard
    "allies": False,               # optional: teams of two (seats p and p + players/2)
    "traditional": False,          # optional: damage as a count, ECM / Erratic Maneuvers cancel a card
    "em_ecm": "one_card",          # ECM / Erratic Maneuvers reduce one attack card (SFBF 4.4 B, E) or
                                   # "whole_attack" (the reading before issue 14; RULES.md)
    "player_order": False,         # optional: player-order cards shuffled every game turn
    "second_attack": False,        # optional: a second attack from another ship (hand limit 6)
    "end_turns": 0,                # optional end conditions (0 / False = off): game turns,
    "end_shuffles": 0,             #   reshuffles of the action deck,
    "end_kills": 0,                #   ships destroyed by one player,
    "end_on_elimination": False,   #   the first player to lose all its ships
    "tie_break": "share",          # share (both win) | card_draw | duel (SFBF Come Vincere 4, 5)
    "pbf_damage": "2d6_per_card",  # Planet-Based Fighters: rule F4 or the card table's fighters + 1d6
    "pf_damage": "remaining_boxes",  # PF Flotilla: 12 - damage taken + 2d6, or remaining PFs + 2d6
    "ceasefire_repairs": True,     # Organian Ceasefire removes all damage (as the Italian text says)
    "count_survivors": True,       # final score counts own surviving ships (SFBF Come Vincere 2)
    "reward": "points",            # "points": victory points / 10 as scored (survivors at the end), so the
                                   # return is the final score / 10; "rank": +1 first .. -1 last at the end
    "max_decisions": 0,            # truncate after this many decisions (0 = never)
    "solitaire": False,            # SFBF Gioco in solitario: one agent (player_0) against the rulebook's
                                   # automaton (seat 1), resolved inside the core (RULES.md 'Solitaire')
    "ship_order": True,            # observation: a ship's place in its line in the order the ships came
                                   # into it (battle_force_v1); False: battle_force_v0's observation
    "cards_file": None,            # your own cards.json (e.g. the printed deck)
    "ships_file": None,            # your own ships.json
}
_CHOICES = {
    "game": ("basic", "advanced"),
    "ship_selection": ("auto", "deal", "points", "draft", "fleet_core", "draft4"),
    "tie_break": ("share", "card_draw", "duel"),
    "pbf_damage": ("2d6_per_card", "fighters_plus_1d6"),
    "pf_damage": ("remaining_boxes", "remaining_pfs"),
    "reward": ("points", "rank"),
    "em_ecm": ("one_card", "whole_attack"),
}
_BOOLS = ("formation", "learning", "fighters", "single_race", "draw_discard", "allies", "traditional",
          "player_order", "second_attack", "end_on_elimination", "ceasefire_repairs", "count_survivors", "solitaire",
          "ship_order")
SELECTION = {"deal": R.SEL_DEAL, "points": R.SEL_POINTS, "draft": R.SEL_DRAFT, "fleet_core": R.SEL_CORE,
             "draft4": R.SEL_DRAFT4}

REASONS = reason_texts(R, {
    "OK": "legal",
    "R_OVER": "the game is over",
    "R_STAGE": "this kind of action belongs to another step of the turn (SFBF Sequenza di gioco)",
    "R_NO_ACTION": "no such action",
    "R_NOT_YOURS": "that ship is not one of your ships in play",
    "R_NOT_IN_HAND": "that card is not in your hand (or, where it may be taken, your reserve)",
    "R_CARD_USE": "that card cannot be played at this step (SFBF list of action cards)",
    "R_NO_WEAPON": "the ship has no free weapon that can fire that card (SFBF 4.3: one card per weapon; damaged weapons do not fire)",
    "R_SHIP_STATE": "the ship cannot do that now (Erratic Maneuvers, Wild Weasel, Disengage, web or reserve)",
    "R_TARGET": "that is not a ship you may target (own, allied, reserve or disengaged ship)",
    "R_RANGE": "the main body rule forbids it: no Phaser-3, Plasma-F or overload from or at the main body (SFBF Regole sulla Formazione)",
    "R_CLOAKED": "a cloaked ship fires no weapon (SFBF Regole sull'Occultamento)",
    "R_SEEKING": "drones and plasma cannot target a cloaked ship (SFBF Regole sull'Occultamento)",
    "R_DEF_SYMBOL": "the card's defence symbols do not allow it against this attack (SFBF 4.4 C, Attacco dei caccia F3)",
    "R_LINK": "no card on the table that this card can apply to",
    "R_LINE_MOVE": "a ship has already moved out of that line this phase (one move per line, SFBF Sequenza di gioco 3 (X))",
    "R_RESERVE_FULL": "the reserve is full (at most two ships, three reserve cards)",
    "R_LEAVE_EMPTY": "that would leave no ship in the screen and main body (SFBF Regole sulla Formazione)",
    "R_MUST_RESERVE": "the reserve must come back down to two ships this phase (SFBF Regole sulla Formazione)",
    "R_NEED_FRONT": "a ship must come out of the reserve, or the screen and main body need more ships",
    "R_HAND_FULL": "your hand is full",
    "R_DECK_EMPTY": "the deck is empty",
    "R_ONCE": "only once per turn / per attack / per ship",
    "R_NO_DAMAGE": "none of your ships is damaged",
    "R_KIND": "no marker of that kind to place or remove on that ship",
    "R_BUDGET": "that ship would take you over the points budget (SFBF Preparazione: 65 points)",
    "R_NOT_FIRST_ATTACK": "only instead of an attack, before any attack this turn",
    "R_NEED_WEAPON": "the ship has no weapon card in hand it can fire at any target",
    "R_NOT_ADVANCED": "advanced game only",
    "R_NO_FIGHTERS": "the ship has no undamaged fighter squadron (SFBF I caccia sulle navi)",
    "R_SQUADRONS": "the carrier does not have that many undamaged squadrons",
    "R_ALLY": "you may not attack an ally's ship (SFBF Alleati)",
    "R_RACE_TAKEN": "that race is taken or has no ships",
    "R_COMBINE": "a scatterpack in defence goes with a drone card you fired in defence (SFBF 4.4 C1)",
    "R_NOT_KLINGON": "Klingon Mutiny works on enemy Klingon ships not in the reserve",
    "R_POOL": "that ship is not available to pick",
    "R_WW_EM": "a ship cannot use a Wild Weasel and Erratic Maneuvers against the same attack (SFBF 4.4 B, F)",
    "R_ORDER": "that card is not one of the played cards going to the discard pile now (SFBF Regole Opzionali, Pescare)",
})

NAMED_ACTIONS = ("done / pass", "draw from the action deck", "draw the top discard", "keep the drawn card",
                 "put the card into the reserve", "put the card into your ally's reserve",
                 "put the card on the discard pile", "attack with fighters from a carrier",
                 "discard and redraw instead of attacking", "second formation change instead of attacking",
                 "continuous damage control", "Prime Team: +1 to the attack or die roll",
                 "Prime Team: cancel the target's cloak or web", "switch on cloak / web",
                 "switch the cloak off", "Prime Team: cancel the target's Wild Weasel")
assert len(NAMED_ACTIONS) == R.N_NAMED

STAGE_NAMES = ("pick ships", "choose a race", "choose reserve cards", "set the formation", "cloak / web before play",
               "draw", "keep or reserve the drawn card", "repair", "repair: choose ship", "repair: remove a marker",
               "formation", "formation: where to", "attack", "choose a carrier", "how many squadrons",
               "choose a target", "play attack cards", "choose the card it applies to", "choose the firing ship",
               "Prime Team: how", "defence", "attacker's reaction", "fire at the fighters", "fire at the PF Flotilla",
               "more Planet-Based Fighters", "Mutiny: attacker's Prime Team", "Mutiny: owner's Prime Team",
               "place damage", "discard to redraw", "Ceasefire: cards to keep in reserve", "discard",
               "discard: where", "tie-break duel: choose a ship", "game over",
               "order the played cards on the discard pile")
assert len(STAGE_NAMES) == R.N_STAGES

CARD_FEATURES = ("in my hand", "in my reserve", "in the discard pile", "top of the discard pile",
                 "on the table, played for the attack", "on the table, played in defence",
                 "on a ship (Erratic Maneuvers, Wild Weasel, Disengage)", "out of the game")
SHIP_FEATURES = tuple([f"in the fleet of the player {r} seats after me" for r in range(6)]
                      + ["destroyed: in the points pile of the player (seats after me) + 1",
                         "line + 1 (1 screen, 2 main body, 3 reserve)", "unknown to me (ship deck or face down)",
                         "1 in the pick pool, 2 out of the game", "cloaked", "web on", "Erratic Maneuvers on it",
                         "Wild Weasel on it", "disengaged"]
                      + [f"damage markers on {k}" for k in SPACE_KINDS]
                      + ["the attacking ship", "the target", "the ship this decision is about",
                         "in play: its place in its line among my side's or my enemies' ships, 1 the first that came "
                         "into play (battle_force_v1)"])
PLAYER_FEATURES = ("cards in hand", "reserve cards", "face-down reserve ships", "ships in the fleet",
                   "victory points from kills (at the end: final score) mod 128",
                   "victory points from kills (at the end: final score) // 128", "ships destroyed",
                   "active player", "decides now", "me or my ally", "out (not in the tie-break duel)",
                   "tie-break draw total")
GLOBAL_FEATURES = tuple([f"stage: {n}" for n in STAGE_NAMES]
                        + ["attack kind (1 ship, 2 fighters, 3 planet-based fighters, 4 PF flotilla, 5 mutiny)",
                           "fighter squadrons launched", "damage fired at the fighters / PFs", "dice total",
                           "die 1", "die 2", "Prime Team +1s", "Prime Team -1s (mutiny)",
                           "effects cancelled this attack (1 cloak, 2 web, 4 Wild Weasel, 8 Erratic Maneuvers)",
                           "defences used this attack (1 Wild Weasel, 2 Erratic Maneuvers, 4 Disengage)",
                           "damage markers left to place", "markers left to remove", "action deck size",
                           "discard pile size", "ship deck size", "reshuffles", "game turn", "my seat",
                           "players", "lines moved out of this formation phase (bits)", "attacks this turn",
                           "pending card + 1", "advanced game", "formation rules", "formation phase (1, 2)",
                           "passes in a row", "pick round", "tie-break duel", "card just drawn + 1",
                           "hand limit", "the decision is mine", "fighter squadrons lost"])
assert len(CARD_FEATURES) == R.F_CARD and len(SHIP_FEATURES) == R.F_SHIP
assert len(PLAYER_FEATURES) == R.F_PLAYER and len(GLOBAL_FEATURES) == R.N_GLOBAL


def parse_options(options: dict) -> dict:
    out = merged_options("Battle Force", DEFAULT_OPTIONS, _CHOICES, options)
    for key in _BOOLS:
        if not isinstance(out[key], bool):
            raise ValueError(f"option {key} must be True or False, got {out[key]!r}")
    if not isinstance(out["players"], int) or not 2 <= out["players"] <= 6:
        raise ValueError(f"option players must be 2..6, got {out['players']!r}")
    for key, lo, hi in (("points_budget", 4, 400), ("ships_per_player", 0, 36), ("end_turns", 0, 10000),
                        ("end_shuffles", 0, 100), ("end_kills", 0, 36), ("max_decisions", 0, 10 ** 9)):
        if not isinstance(out[key], int) or isinstance(out[key], bool) or not lo <= out[key] <= hi:
            raise ValueError(f"option {key} must be an integer {lo}..{hi}, got {out[key]!r}")
    if out["solitaire"] and out["players"] != 2:
        raise ValueError("option solitaire=True is a two-player game (SFBF Gioco in solitario: 'come in un gioco a "
                         f"due giocatori'), got players={out['players']!r}")
    if out["allies"] and out["players"] not in (4, 6):
        raise ValueError("option allies needs 4 or 6 players (teams of two)")
    if not out["fighters"] and out["game"] == "advanced":
        raise ValueError("option fighters=False is a basic-game choice (SFBF Gioco base)")
    for key in ("cards_file", "ships_file"):
        if out[key] is not None and not Path(out[key]).is_file():
            raise ValueError(f"option {key}: no such file {out[key]!r}")
    return out


# -- data ------------------------------------------------------------------------------------
def load_cards(path=None) -> list[dict]:
    cards = json.loads(Path(path or DATA / "cards.json").read_text())["cards"]
    for i, c in enumerate(cards):
        if c.get("type") not in CARD_TYPES:
            raise ValueError(f"card {i}: unknown type {c.get('type')!r}")
        if not isinstance(c.get("value", 0), int):
            raise ValueError(f"card {i}: value must be an integer")
        if any(d not in DEFENDS for d in c.get("defends", [])):
            raise ValueError(f"card {i}: defends must be from {sorted(DEFENDS)}")
    if not 1 <= len(cards) <= 127:
        raise ValueError("a deck holds 1..127 cards")
    return cards


def load_ships(path=None) -> list[dict]:
    ships = json.loads(Path(path or DATA / "ships.json").read_text())["ships"]
    for i, sh in enumerate(ships):
        for key in ("race", "name", "weapons", "vp"):
            if key not in sh:
                raise ValueError(f"ship {i}: missing field {key!r}")
        if sh["race"] not in RACES:
            raise ValueError(f"ship {i}: race must be one of {RACES}")
        if any(w not in CARD_TYPES[:9] for w in sh["weapons"]):
            raise ValueError(f"ship {i}: weapons must be from {CARD_TYPES[:9]}")
    if not 1 <= len(ships) <= 64:
        raise ValueError("a roster holds 1..64 ships")
    return ships


def per_player(opts) -> int:
    if opts["ships_per_player"]:
        return opts["ships_per_player"]
    if opts["learning"]:
        return 4
    return SHIPS_PER_PLAYER[opts["players"]]


def selection(opts) -> int:
    sel = opts["ship_selection"]
    if sel == "auto":
        # SFBF Preparazione: 2-3 players pick ships to 65 points; more players are dealt ships
        sel = "points" if opts["players"] <= 3 and not opts["learning"] else "deal"
    return SELECTION[sel]


def build_config(opts: dict):
    cards = load_cards(opts["cards_file"])
    ships = load_ships(opts["ships_file"])
    NC, NS, P = len(cards), len(ships), opts["players"]
    card = np.zeros((NC, R.N_CC), dtype=np.int32)
    for i, c in enumerate(cards):
        t = CARD_TYPES.index(c["type"])
        card[i, R.CC_TYPE] = t
        card[i, R.CC_VALUE] = c.get("value", 0)
        card[i, R.CC_DEF] = sum(DEFENDS[d] for d in c.get("defends", []))
        card[i, R.CC_FTRS] = c.get("value", 0) if c["type"] == "planet_based_fighters" else 0
        removed = (opts["learning"] and c["type"] in LEARNING_REMOVED) or (
            not opts["fighters"] and c["type"] == "planet_based_fighters")
        card[i, R.CC_IN] = 0 if removed else 1
    ship = np.zeros((NS, R.N_SC), dtype=np.int32)
    for i, sh in enumerate(ships):
        ship[i, R.SC_RACE] = RACES.index(sh["race"])
        ship[i, R.SC_VP] = sh["vp"]
        ship[i, R.SC_CLOAK] = bool(sh.get("cloak"))
        ship[i, R.SC_WEB] = bool(sh.get("web"))
        ship[i, R.SC_DN] = "dreadnought" in (sh.get("class_name", "") + " " + sh.get("class", "")).lower()
        for w, n in sh["weapons"].items():
            ship[i, R.SC_N + CARD_TYPES.index(w)] = n
        ship[i, R.SC_N + R.K_WPN] = sh.get("wpn", 0)
        ship[i, R.SC_N + R.K_FTR] = sh.get("fighters", 0)
        ship[i, R.SC_N + R.K_CIRCLE] = sh.get("circles", 0)
        ship[i, R.SC_SPACES] = ship[i, R.SC_N:R.SC_N + R.N_KIND].sum()
    k = np.zeros(R.N_K, dtype=np.int32)
    k[R.K_NC], k[R.K_NS], k[R.K_P] = NC, NS, P
    k[R.K_ADVANCED] = opts["game"] == "advanced"
    k[R.K_FORMATION] = opts["formation"]
    k[R.K_FIGHTERS] = opts["fighters"]
    k[R.K_HAND] = 6 if opts["second_attack"] else 5
    k[R.K_DRAW_DISCARD] = opts["draw_discard"]
    k[R.K_ALLIES] = opts["allies"]
    k[R.K_TRAD] = opts["traditional"]
    k[R.K_EM_WHOLE] = opts["em_ecm"] == "whole_attack"
    k[R.K_SOLITAIRE] = opts["solitaire"]
    k[R.K_ORDER_CARDS] = opts["player_order"]
    k[R.K_SECOND_ATTACK] = opts["second_attack"]
    k[R.K_END_TURNS] = opts["end_turns"]
    k[R.K_END_SHUFFLES] = opts["end_shuffles"]
    k[R.K_END_KILLS] = opts["end_kills"]
    k[R.K_END_ELIM] = opts["end_on_elimination"]
    k[R.K_TIE] = ("share", "card_draw", "duel").index(opts["tie_break"])
    k[R.K_PBF_MODE] = opts["pbf_damage"] != "2d6_per_card"
    k[R.K_PF_MODE] = opts["pf_damage"] != "remaining_boxes"
    k[R.K_CEASE_REPAIR] = opts["ceasefire_repairs"]
    k[R.K_SURVIVORS] = opts["count_survivors"]
    k[R.K_REWARD] = opts["reward"] == "points"
    k[R.K_MAX_DECISIONS] = opts["max_decisions"]
    k[R.K_SELECTION] = selection(opts)
    k[R.K_BUDGET] = opts["points_budget"]
    k[R.K_PER_PLAYER] = per_player(opts)
    k[R.K_SINGLE_RACE] = opts["single_race"]
    k[R.K_N_RACES] = len(RACES)
    k[R.K_LEARNING] = opts["learning"]
    k[R.K_SHIP_ORDER] = opts["ship_order"]
    off = 0
    for key, size in ((R.K_A_CARD, NC), (R.K_A_SHIP, NS), (R.K_A_LINE, R.LINES), (R.K_A_KIND, R.N_KIND),
                      (R.K_A_NUM, R.N_NUM), (R.K_A_RACE, len(RACES)), (R.K_A_NAMED, R.N_NAMED)):
        k[key] = off
        off += size
    k[R.K_N_ACTIONS] = off
    k[R.K_OBS] = NC * R.F_CARD + NS * ship_features(k) + R.MAX_P * R.F_PLAYER + R.N_GLOBAL
    return Tables(k=k, card=card, ship=ship, cards=cards, ships=ships, options=opts)


class Tables(types.SimpleNamespace):
    """The config as plain numpy arrays for Python code; ``.struct`` is what kernels get."""

    @property
    def struct(self):
        if "_struct" not in self.__dict__:
            self.__dict__["_struct"] = BattleForceConfig(*(getattr(self, f) for f in CONFIG_FIELDS))
        return self.__dict__["_struct"]


@structref.register
class BattleForceConfigType(WargymStruct):
    pass


class BattleForceConfig(structref.StructRefProxy):
    """Static tables shared by every game of a batch."""


CONFIG_FIELDS = R.CONFIG_FIELDS  # the names the rules read (rules.config_view)
structref.define_proxy(BattleForceConfig, BattleForceConfigType, list(CONFIG_FIELDS))


@structref.register
class BattleForceStateType(WargymStruct):
    pass


class BattleForceState(structref.StructRefProxy):
    """Kernel-side view of a BatchState's arrays."""


STATE_FIELDS = R.STATE_FIELDS  # the names the rules read (rules.state_view)
structref.define_proxy(BattleForceState, BattleForceStateType, list(STATE_FIELDS))


def state_spec(cfg) -> StateSpec:
    NC, NS, P = (int(cfg.k[x]) for x in (R.K_NC, R.K_NS, R.K_P))
    fields = (
        ("rng", (), "uint64"), ("policy_rng", (), "uint64"),
        ("dice_script", (DICE_SCRIPT_LEN,), "int8"), ("dice", (2,), "int16"),
        ("g", (R.N_G,), "int32"),          # per-game scalars, columns G_* in rules.py
        # small integer types: the mask and the observation read every card and ship each step,
        # so at thousands of games the state's bytes are what a step waits for.  A card's columns
        # fit int8 (locations, seats, card indices < 127, ship indices < 64, CD_SEQ <= cards on
        # the table), and so do a ship's (card index + 1 of a ship-borne card <= 127, markers
        # <= the ship's spaces); the order of placement, which counts every placement of the
        # game, has its own wider array
        ("cd", (NC, R.N_CD), "int8"),       # per action card, columns CD_*
        ("sh", (NS, R.N_SH), "int8"),       # per ship card, columns SH_*
        ("pos", (NS,), "int32"),            # per ship card: when it was placed (G_POS at the time)
        ("pl", (P, R.N_PL), "int32"),       # per player, columns PL_*
        ("deck", (NC,), "int8"), ("disc", (NC,), "int8"), ("sdeck", (NS,), "int8"),
    )
    return StateSpec(NAME, fields, BattleForceState)


def num_players(cfg) -> int:
    """Agents of the env: the players, or 1 in the solitaire game (the automaton is no agent)."""
    return 1 if cfg.k[R.K_SOLITAIRE] else int(cfg.k[R.K_P])


def num_actions(cfg) -> int:
    return int(cfg.k[R.K_N_ACTIONS])


def obs_shape(cfg) -> tuple[int, ...]:
    return (int(cfg.k[R.K_OBS]),)


def kernel_obs_shape(cfg) -> tuple[int, ...]:
    return obs_shape(cfg)


def ship_features(k) -> int:
    """A ship's row: all of SHIP_FEATURES, or battle_force_v0's first 30 (option ship_order=False);
    the kernel's own definition, run as Python."""
    return int(R.ship_row_width.py_func(k))


def split_obs(cfg, obs: np.ndarray) -> dict:
    """The flat observation as named parts (see CARD_FEATURES, SHIP_FEATURES, PLAYER_FEATURES,
    GLOBAL_FEATURES); players are listed from the viewer's seat on."""
    NC, NS = int(cfg.k[R.K_NC]), int(cfg.k[R.K_NS])
    obs = np.asarray(obs).reshape(-1)
    a = NC * R.F_CARD
    fs = ship_features(cfg.k)
    b = a + NS * fs
    c = b + R.MAX_P * R.F_PLAYER
    return {"cards": obs[:a].reshape(NC, R.F_CARD), "ships": obs[a:b].reshape(NS, fs),
            "players": obs[b:c].reshape(R.MAX_P, R.F_PLAYER), "globals": obs[c:]}


def action_rows(cfg) -> np.ndarray:
    """What each action names, as places of the flat observation, for a policy that scores every
    action from the facts of what it names (training/networks.py, the pointer head): a card action
    reads its card's row (CARD_FEATURES), a ship action its ship's row (SHIP_FEATURES, where the
    order in its line and its damage tell the target the heuristic bot would pick); -1 where an
    action names nothing (a line, a space kind, a number, a race, a named choice) or the row is
    shorter.  ``(actions, ship features)`` int64."""
    k = cfg.k
    NC, NS, fs = int(k[R.K_NC]), int(k[R.K_NS]), ship_features(k)
    rows = np.full((num_actions(cfg), fs), -1, dtype=np.int64)
    cards, ships = int(k[R.K_A_CARD]), int(k[R.K_A_SHIP])
    rows[cards:cards + NC, :R.F_CARD] = np.arange(NC * R.F_CARD).reshape(NC, R.F_CARD)
    rows[ships:ships + NS] = NC * R.F_CARD + np.arange(NS * fs).reshape(NS, fs)
    return rows


def current(state) -> np.ndarray:
    return state.g[:, R.G_DECIDER]


def done(state) -> np.ndarray:
    return state.g[:, R.G_DONE].astype(bool)


# -- actions in words ------------------------------------------------------------------------
def card_name(cfg, c: int) -> str:
    d = cfg.cards[c]
    v = d.get("value", 0)
    return f"{d['type']}" + (f" {v}" if v and d["type"] not in ("erratic_maneuvers", "reinforce_shields") else "")


def ship_name(cfg, i: int) -> str:
    sh = cfg.ships[i]
    return f"{sh['race'].capitalize()} {sh.get('class', '')} {sh['name']}".replace("  ", " ")


def action_name(cfg, a: int) -> str:
    k = cfg.k
    if not 0 <= a < int(k[R.K_N_ACTIONS]):
        return f"no such action {a}"
    if a < k[R.K_A_SHIP]:
        c = a - int(k[R.K_A_CARD])
        return f"card {c} ({card_name(cfg, c)})"
    if a < k[R.K_A_LINE]:
        i = a - int(k[R.K_A_SHIP])
        return f"ship {i} ({ship_name(cfg, i)})"
    if a < k[R.K_A_KIND]:
        return f"line: {LINE_NAMES[a - int(k[R.K_A_LINE])]}"
    if a < k[R.K_A_NUM]:
        return f"damage space: {SPACE_KINDS[a - int(k[R.K_A_KIND])]}"
    if a < k[R.K_A_RACE]:
        return f"launch {a - int(k[R.K_A_NUM]) + 1} squadron(s)"
    if a < k[R.K_A_NAMED]:
        return f"race: {RACES[a - int(k[R.K_A_RACE])]}"
    return NAMED_ACTIONS[a - int(k[R.K_A_NAMED])]


_FAMILY = {"CARD": R.K_A_CARD, "SHIP": R.K_A_SHIP, "LINE": R.K_A_LINE, "KIND": R.K_A_KIND, "NUM": R.K_A_NUM,
           "RACE": R.K_A_RACE, "NAMED": R.K_A_NAMED}


def action_index(cfg, family: str, arg=0) -> int:
    """The action number of e.g. ``("CARD", 12)``, ``("SHIP", 3)``, ``("LINE", "main")``,
    ``("KIND", "circle")``, ``("NUM", 2)`` (squadrons), ``("RACE", "klingon")``, ``("NAMED", "done / pass")``
    or ``("DONE",)``."""
    if family == "DONE":
        return int(cfg.k[R.K_A_NAMED]) + R.N_DONE
    base = int(cfg.k[_FAMILY[family]])
    if family == "LINE" and isinstance(arg, str):
        arg = LINE_NAMES.index(arg)
    elif family == "KIND" and isinstance(arg, str):
        arg = SPACE_KINDS.index(arg)
    elif family == "NUM":
        arg = int(arg) - 1
    elif family == "RACE" and isinstance(arg, str):
        arg = RACES.index(arg)
    elif family == "NAMED" and isinstance(arg, str):
        arg = NAMED_ACTIONS.index(arg)
    return base + int(arg)


# -- scenarios ----------------------------------------------------------------------------------
PHASES = {"draw": 1, "repair": 2, "formation": 3, "attack": 4}
SHIP_KEYS = {"ship", "line", "damage", "cloak", "web"}


def _resolve_card(cfg, ref, used: set, where: str) -> int:
    """A card by id, or by ``"type"`` / ``"type:value"`` (the first unused such card)."""
    if isinstance(ref, int) and not isinstance(ref, bool):
        if not 0 <= ref < len(cfg.cards):
            raise ValueError(f"{where}: no card {ref}")
        if ref in used:
            raise ValueError(f"{where}: card {ref} is listed twice")
        return ref
    if isinstance(ref, str):
        typ, _, val = ref.partition(":")
        if typ not in CARD_TYPES:
            raise ValueError(f"{where}: unknown card type {typ!r}")
        for i, c in enumerate(cfg.cards):
            if i not in used and c["type"] == typ and cfg.card[i, R.CC_IN] and (
                    not val or str(c.get("value", 0)) == val):
                return i
        raise ValueError(f"{where}: no unused {ref!r} card left in this deck")
    raise ValueError(f"{where}: a card is an id or 'type' / 'type:value', got {ref!r}")


def _resolve_ship(cfg, ref, used: set, where: str) -> int:
    if isinstance(ref, int) and not isinstance(ref, bool) and 0 <= ref < len(cfg.ships):
        i = ref
    elif isinstance(ref, str):
        names = [s["name"] for s in cfg.ships]
        if ref not in names:
            raise ValueError(f"{where}: no ship named {ref!r}")
        i = names.index(ref)
    else:
        raise ValueError(f"{where}: a ship is an id or a ship name, got {ref!r}")
    if i in used:
        raise ValueError(f"{where}: ship {ref!r} is listed twice")
    return i


def apply_scenario(cfg, state, b: int, sc: dict) -> None:
    """Write scenario ``sc`` into game ``b`` of ``state``; see RULES.md 'Scenarios'.

    Cards or ships a scenario does not place go to the (shuffled) decks.  Raises ValueError
    naming the problem; the caller applies it to a copy first."""
    if not isinstance(sc, dict):
        raise ValueError("a Battle Force scenario is a dict (see RULES.md 'Scenarios')")
    unknown = set(sc) - {"players", "deck", "discard", "ship_deck", "active", "phase", "round", "name"}
    if unknown:
        raise ValueError(f"unknown scenario field(s) {sorted(unknown)}")
    P = int(cfg.k[R.K_P])
    players = sc.get("players")
    if not isinstance(players, list) or len(players) != P:
        raise ValueError(f"scenario 'players' must list the {P} players, each {{'hand': [...], 'ships': [...]}}")
    adv = bool(cfg.k[R.K_ADVANCED])
    formation = adv and bool(cfg.k[R.K_FORMATION])
    st = state
    view = state.view
    s1 = cfg.struct
    R.clear_game(view, s1, b)
    used_c: set = set()
    used_s: set = set()
    for p, pd in enumerate(players):
        where = f"player {p}"
        if not isinstance(pd, dict) or set(pd) - {"hand", "reserve", "ships", "destroyed"}:
            raise ValueError(f"{where}: a player is a dict with 'hand', 'reserve', 'ships', 'destroyed'")
        hand, reserve = pd.get("hand", []), pd.get("reserve", [])
        if not isinstance(hand, list) or not isinstance(reserve, list):
            raise ValueError(f"{where}: hand and reserve are lists of cards")
        if len(hand) > int(cfg.k[R.K_HAND]):
            raise ValueError(f"{where}: at most {int(cfg.k[R.K_HAND])} cards in hand")
        if reserve and not adv:
            raise ValueError(f"{where}: reserve cards are an advanced-game rule")
        if len(reserve) > 3:
            raise ValueError(f"{where}: at most 3 reserve cards")
        for loc, refs in ((R.CL_HAND, hand), (R.CL_RES, reserve)):
            for ref in refs:
                c = _resolve_card(cfg, ref, used_c, where)
                used_c.add(c)
                R.set_card(view, b, c, loc, p)
        ships = pd.get("ships", [])
        if not isinstance(ships, list):
            raise ValueError(f"{where}: ships is a list")
        for j, shd in enumerate(ships):
            w = f"{where} ship {j}"
            if not isinstance(shd, dict):
                shd = {"ship": shd}
            bad = set(shd) - SHIP_KEYS
            if bad:
                raise ValueError(f"{w}: unknown field(s) {sorted(bad)}")
            i = _resolve_ship(cfg, shd.get("ship"), used_s, w)
            used_s.add(i)
            line = shd.get("line", "screen")
            if line not in LINE_NAMES:
                raise ValueError(f"{w}: line must be one of {LINE_NAMES}")
            if line != "screen" and not formation:
                raise ValueError(f"{w}: lines other than the screen need the advanced game's formation rules")
            dmg = shd.get("damage", {})
            if not isinstance(dmg, dict) or any(kd not in SPACE_KINDS for kd in dmg):
                raise ValueError(f"{w}: damage maps space kinds {SPACE_KINDS} to marker counts")
            for kd, n in dmg.items():
                ki = SPACE_KINDS.index(kd)
                if not isinstance(n, int) or not 0 <= n <= cfg.ship[i, R.SC_N + ki]:
                    raise ValueError(f"{w}: {cfg.ships[i]['name']} has {int(cfg.ship[i, R.SC_N + ki])} {kd} spaces")
            R.place_ship(view, s1, b, i, p, LINE_NAMES.index(line))
            for kd, n in dmg.items():
                st.sh[b, i, R.SH_COV + SPACE_KINDS.index(kd)] = n
            R.set_line(view, s1, b, i, LINE_NAMES.index(line))
            for dev, col, flag in (("cloak", R.SH_CLOAK, R.SC_CLOAK), ("web", R.SH_WEB, R.SC_WEB)):
                if shd.get(dev):
                    if not adv or not cfg.ship[i, flag]:
                        raise ValueError(f"{w}: {cfg.ships[i]['name']} has no {dev} (or the game is basic)")
                    st.sh[b, i, col] = 1
        for ref in pd.get("destroyed", []):
            i = _resolve_ship(cfg, ref, used_s, f"{where} destroyed")
            used_s.add(i)
            st.sh[b, i, R.SH_LOC] = R.SL_VP
            st.sh[b, i, R.SH_OWNER] = p
            st.pl[b, p, R.PL_SCORE] += int(cfg.ship[i, R.SC_VP])
            st.pl[b, p, R.PL_KILLS] += 1
    # discard pile (bottom first), deck (top first), the rest shuffled under the listed deck
    for key in ("deck", "discard", "ship_deck"):
        if not isinstance(sc.get(key, []), list):
            raise ValueError(f"scenario '{key}' is a list")
    for ref in sc.get("discard", []):
        c = _resolve_card(cfg, ref, used_c, "discard")
        used_c.add(c)
        R.to_discard(view, b, c)
    deck_top = []
    for ref in sc.get("deck", []):
        c = _resolve_card(cfg, ref, used_c, "deck")
        used_c.add(c)
        deck_top.append(c)
    rest = [c for c in range(len(cfg.cards)) if c not in used_c and cfg.card[c, R.CC_IN]]
    rng = np.random.default_rng(int(state.rng[b]) & 0xFFFFFFFF)
    rng.shuffle(rest)
    order = rest + deck_top[::-1]          # stacks: the top is the last element
    for j, c in enumerate(order):
        st.deck[b, j] = c
        st.cd[b, c, R.CD_LOC] = R.CL_DECK
    st.g[b, R.G_DECK_N] = len(order)
    for c in range(len(cfg.cards)):
        if not cfg.card[c, R.CC_IN]:
            st.cd[b, c, R.CD_LOC] = R.CL_OUT
    sdeck_top = []
    for ref in sc.get("ship_deck", []):
        i = _resolve_ship(cfg, ref, used_s, "ship_deck")
        used_s.add(i)
        sdeck_top.append(i)
    srest = [i for i in range(len(cfg.ships)) if i not in used_s]
    rng.shuffle(srest)
    sorder = srest + sdeck_top[::-1]
    for j, i in enumerate(sorder):
        st.sdeck[b, j] = i
        st.sh[b, i, R.SH_LOC] = R.SL_DECK
        st.sh[b, i, R.SH_OWNER] = -1
    st.g[b, R.G_SDECK_N] = len(sorder)
    active = sc.get("active", 0)
    if not isinstance(active, int) or not 0 <= active < P:
        raise ValueError(f"scenario 'active' must be a player 0..{P - 1}")
    phase = sc.get("phase", "draw")
    if phase not in PHASES:
        raise ValueError(f"scenario 'phase' must be one of {sorted(PHASES)}")
    rnd = sc.get("round", 1)
    if not isinstance(rnd, int) or rnd < 1:
        raise ValueError("scenario 'round' must be a positive integer")
    if sum(1 for p in range(P) if any(st.sh[b, :, R.SH_OWNER] == p) and
           any((st.sh[b, :, R.SH_LOC] == R.SL_FLEET) & (st.sh[b, :, R.SH_OWNER] == p))) < 2:
        raise ValueError("a scenario needs at least two players with ships in play")
    R.start_scenario(view, s1, b, active, PHASES[phase], rnd)


# -- results -------------------------------------------------------------------------------------
def scores(state, b: int) -> list[int]:
    """Victory points each player has scored by destroying ships so far."""
    return [int(x) for x in state.pl[b, :, R.PL_SCORE]]


def scores_from_obs(cfg, obs) -> list[int]:
    """(own, next player's) victory points as an observation shows them: points from
    destroyed ships during the game, the final scores once it is over (the player rows of ``split_obs``)."""
    blk = split_obs(cfg, obs)["players"].astype(int)
    return [int(blk[0, 4] + 128 * blk[0, 5]), int(blk[1, 4] + 128 * blk[1, 5])]


def final_info(core, b: int) -> dict:
    pl = core.state.pl[b]
    g = core.state.g[b]
    P = int(core.cfg.k[R.K_P])      # (solitaire: the automaton's seat 1 too)
    won = [int(pl[p, R.PL_WIN] != 0) for p in range(P)]
    # (``core/results.py``) scores: the final scores (0 until the end); ``won``: 1 for each winning seat,
    # a shared win too (one flag per seat, not a list of seats: clients turn infos into tensors)
    return result_info(won.index(1) if sum(won) == 1 else NO_WINNER,
                       [int(pl[p, R.PL_FINAL]) for p in range(P)], int(g[R.G_ROUND]),
                       kill_points=[int(pl[p, R.PL_SCORE]) for p in range(P)], won=won,
                       ranks=[int(pl[p, R.PL_RANK]) for p in range(P)], tie_break_duel=bool(g[R.G_DUEL]))


from . import bot  # noqa: F401,E402  (game.bot: compiled opponents used by the wrappers)
