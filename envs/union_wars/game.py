"""UnionWars First Contact as a wargym game definition: options, army lists and profiles
from data files, the state layout, scenarios, action names and the army builder.

The rules are in the modules named after the seed's chapters (general, sight, movement,
shooting, melee, psychology, actions, reactions, battle, turn, deployment, action_sequence), put
together by decisions.py and mask.py; ``rules.py`` has the batched entry points (RULES.md, "Where
the rules are").  RULES.md states them in English with every reading of the text.
"""
from __future__ import annotations

import json
import math
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
from . import bot, rules  # noqa: F401  (game.bot: the compiled opponents, used by the wrappers)
from . import layout as L
from . import relations
from .validate import validate_state  # noqa: F401  (a state from outside, checked before any kernel sees it)
from .information import determinise  # noqa: F401  (the search's sample of the dice after a bank question)

NAME = "union_wars"
VERSION = 2         # union_wars_v2: the action table (option relations); v1 without it, v0 also facing="travel"
# the dice after an exploration-bank question are fixed by the step's snapshot, though its owner has not
# seen them: the search bot samples them (information.determinise)
HIDDEN_INFORMATION = True
DATA = Path(__file__).parent / "data"
num_players = 2
kernels = rules
PARALLEL_FROM = 64

DEFAULT_OPTIONS = {
    "armies": ["umanita:default_250", "xeno:default_250"],  # per player: "faction:army" or a list of model names
    "army_files": None,          # {faction: path of an armylist JSON} replacing or adding to data/armylist_*.json
    "points": 250,               # PUNTEGGIO: the armies' ceiling (the builder refuses larger armies)
    "mission": "roll",           # MISSIONI: "roll" (D6) or 1..6
    "table": "random",           # "random" (seeded generator), the name of a data/tables/*.json, or a table dict
    "turns": 12,                 # "Ogni missione ha una durata di 12 turni"
    "turn_count": "per_player",  # the 12 turns are each player's ("per_player") or player turns in all ("total")
    "charisma_refresh": "every_turn",  # CAR back at the start of every player turn ("every_turn") or of one's own ("own_turn")
    "morale_markers": "beyond_car",    # malus for markers beyond CAR ("beyond_car") or for each marker ("each")
    "exploration_bank": "ask",   # ESPLORAZIONE points: the owner decides after each test they could change ("ask"),
                                 # spent automatically on one's own failed tests ("own_tests"), or unused ("off")
    "reactions_per_model": "one",      # reactions one model may declare against one action: "one" or "any"
    "melee_choices": "player",         # LA MISCHIA: target and weapon chosen by the owner ("player") or as the bot would ("auto")
    "facing": "choose",          # MOVIMENTO "e/o ruotare": the mover chooses the facing at the end of a move ("choose")
                                 # or the model faces its direction of travel ("travel", the behaviour before)
    "weight": False, "ammo": False, "jamming": False, "reserves": False, "time": False,  # REGOLE OPZIONALI
    "night": "off",              # LA NOTTE: "off", "on", or "choose" (the initiative winner decides)
    "relations": True,           # the action table after the observation (relations.py; RULES.md "Observation"):
                                 # True (union_wars_v2), False (union_wars_v1's observation)
    "reward": "win",             # "win": +1/-1/0 at the end; "kills": also (enemy - own losses)/army each step
    "max_decisions": 0,          # truncate after this many decisions (0 = never)
}
_CHOICES = {
    "mission": ("roll", 1, 2, 3, 4, 5, 6),
    "turn_count": ("per_player", "total"),
    "charisma_refresh": ("every_turn", "own_turn"),
    "morale_markers": ("beyond_car", "each"),
    "exploration_bank": ("ask", "own_tests", "off"),
    "reactions_per_model": ("one", "any"),
    "melee_choices": ("player", "auto"),
    "facing": ("choose", "travel"),
    "weight": (False, True), "ammo": (False, True), "jamming": (False, True), "reserves": (False, True),
    "time": (False, True),
    "night": ("off", "on", "choose"),
    "reward": ("win", "kills"),
    "relations": (True, False),
}

# the action table (option relations; relations.py, RULES.md "Observation"): one row per action
ACTION_FEATURES = ("row describes the action",
                   "family: 1 own model, 2 action kind, 3 enemy model, 4 own model as target, 5 move or facing, "
                   "6 spot, 7 reaction kind, 8 pass",
                   "enemy models it can fire at now (enemy model: own models that can fire at it)",
                   "the weapon's rate (own model: its best rate at a target)",
                   "wounds left of the model it names",
                   "cm from the actor (move: cm off where the mover wants to stand; spot: from the middle line)",
                   "cm a move gains toward where the mover wants to stand (facing: - steps off the goal; "
                   "own model: cm off where it wants to stand)",
                   "a charge: 1 legal, 2 and the model fights in melee (enemy model: the actor may charge it)",
                   "charisma: the action's cost (own model: charisma left, or a reaction's cost)",
                   "1 suppressed + 2 tired + 4 acted this turn (own model, the recover action)")
assert len(ACTION_FEATURES) == relations.N_AF

REASONS = reason_texts(L, {
    "OK": "legal",
    "R_GAME_OVER": "the game is over",
    "R_WRONG_STAGE": "this kind of choice belongs to another step of the turn (TURNO DI GIOCO)",
    "R_NO_MODEL": "no such model",
    "R_CANNOT_ACT": "that model cannot act now (it is not yours, is out of combat, down, or has nothing it may do)",
    "R_NO_CHARISMA": "not enough charisma points (LA FASE TATTICA: actions and reactions cost CAR)",
    "R_NOT_AVAILABLE": "that action is not available to this model now",
    "R_FATIGUED": "the model is too tired: with fatigue markers >= COS it may only declare RIPRESA (LA FATICA)",
    "R_ENGAGED": "engaged models fight in the melee phase and cannot act or react (LE REAZIONI, RULES.md)",
    "R_NO_WEAPON": "the model has no such weapon for this action",
    "R_JAMMED": "the weapon is jammed: DISINCEPPARE first (INCEPPAMENTO)",
    "R_NO_AMMO": "no ammunition points left (MUNIZIONI LIMITATE)",
    "R_NO_TARGET": "not a valid target for this action",
    "R_NOT_IN_SIGHT": "the target is not in sight (VISTA DEI MODELLI: 180° front arc and a free line)",
    "R_OUT_OF_RANGE": "the target is beyond the weapon's range (FUOCO)",
    "R_ALLY_BLOCKS": "an allied model outside the control area covers the target (Modelli Sovrapposti)",
    "R_NOT_IN_CONTACT_TERRAIN": "the model must be in contact with a scenic element (NASCOSTO / IN ALLERTA)",
    "R_NO_WOUND": "the model has no wound to heal or is not in base contact (SOCCORSO)",
    "R_NOT_SUPPRESSED": "the model is not suppressed (RICHIAMO)",
    "R_TOO_FAR": "too far for this action",
    "R_OFF_TABLE": "the base would leave the table",
    "R_IMPASSABLE": "impassable terrain (TERRENI: INTRANSITABILE)",
    "R_BASES_CROSS": "the model may not cross other models or their bases (MOVIMENTO)",
    "R_NEAR_ENEMY": "the model may not move within 1 cm of an enemy model (MOVIMENTO)",
    "R_IMMOBILE": "the model is IMMOBILE",
    "R_NOT_PSIONIC": "only a psionic or a mage may fight a mental duel (DUELLO MENTALE)",
    "R_DEPLOY_ZONE": "outside the deployment zone: within 20 cm of one's own edge (SCHIERAMENTO)",
    "R_DEPLOY_ENEMY": "deployed models keep 30 cm from enemy models (SCHIERAMENTO)",
    "R_RESERVE_LIMIT": "this model must be placed: the spot choice is legal (LE RISERVE allow up to half the models)",
    "R_PIECE": "that scenic element cannot be a base here (BASI: within one's own deployment area, not the enemy's base)",
    "R_ALREADY_REACTED": "that model has already reacted to this action (RULES.md: one reaction per model per action)",
    "R_NO_REACTION_TARGET": "reactions are aimed only at the model taking the action, and only psionic abilities can be duelled",
    "R_NOT_COMMANDER": "only the commander hands out its bonus charisma (IL COMANDANTE)",
    "R_NO_SUCH_ACTION": "no such action",
    "R_RECOVERED": "after RIPRESA the model takes no other action this turn",
    "R_OBJ_SPOT": "an objective is already on that spot",
    "R_NOT_FLYER": "the model has no VOLANTE rule",
    "R_SAME_ACTOR": "the model cannot target itself",
    "R_NOT_IN_CONTACT": "a model fights an enemy in base contact with it (LA MISCHIA)",
    "R_NOT_AREA_WEAPON": "only a thrown weapon with FRAMMENTAZIONE or FUMOGENO is thrown at a point (DA LANCIO, RULES.md)",
    "R_BANK_ANSWER": "the exploration bank's question is answered with pass (keep the points), choice 0 (spend the points "
                     "shown) or, for an amount roll, choice c (spend c + 1 points, at most the points shown) (ESPLORAZIONE)",
    "R_FACING": "the facing at the end of a move is a direction's rotate-only choice (d x 5 + 0; option facing, RULES.md)",
})


# -- options -------------------------------------------------------------------------------
def parse_options(options: dict) -> dict:
    out = merged_options("UnionWars", DEFAULT_OPTIONS, _CHOICES, options)
    if not isinstance(out["turns"], int) or not 1 <= out["turns"] <= 60:
        raise ValueError(f"option turns must be 1..60, got {out['turns']!r}")
    if not isinstance(out["points"], int) or out["points"] <= 0:
        raise ValueError(f"option points must be a positive integer, got {out['points']!r}")
    if not isinstance(out["max_decisions"], int) or out["max_decisions"] < 0:
        raise ValueError(f"option max_decisions must be a non-negative integer, got {out['max_decisions']!r}")
    if not isinstance(out["armies"], list) or len(out["armies"]) != 2:
        raise ValueError("option armies must be a list of two armies (\"faction:army\" or [faction, [model names]])")
    return out


# -- data: army lists ---------------------------------------------------------------------------
_MODEL_KEYS = {"name", "type", "M", "ADT", "ADM", "COS", "SN", "FS", "AT", "PSI", "CAR", "CAR_bonus", "ARM",
               "shield", "points", "base_mm", "height_cm", "abilities", "special_rules", "arsenal", "equipment",
               "provenance"}
_TYPES = {"QG": L.TYPE_QG, "truppa": L.TYPE_TROOP, "specialista": L.TYPE_SPECIALIST}


def load_weapons(path=None) -> dict:
    data = json.loads(Path(path or DATA / "weapons.json").read_text())
    out = {}
    for n, w in enumerate(data["weapons"]):
        missing = {"name", "range_cm", "rate", "weight", "melee", "rules", "provenance"} - set(w)
        if missing:
            raise ValueError(f"weapons.json row {n}: missing {sorted(missing)}")
        for r in w["rules"]:
            if r not in L.WEAPON_RULE_BITS:
                raise ValueError(f"weapon {w['name']!r}: unknown special rule {r!r}; known: {sorted(L.WEAPON_RULE_BITS)}")
        out[w["name"]] = w
    return out


def load_equipment(path=None) -> dict:
    data = json.loads(Path(path or DATA / "equipment.json").read_text())
    return {e["name"]: e for e in data["equipment"]}


def load_armylist(path) -> dict:
    """One faction's armylist, checked row by row (a clear error names the row and the field)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"armylist {path}: not readable JSON ({exc})") from None
    if not isinstance(data, dict) or "faction" not in data or not isinstance(data.get("models"), list):
        raise ValueError(f"armylist {path}: expected an object with 'faction' and a list 'models'")
    weapons, equipment = load_weapons(), load_equipment()
    models = {}
    for n, m in enumerate(data["models"]):
        where = f"armylist {path.name} model {n} ({m.get('name', '?') if isinstance(m, dict) else '?'})"
        if not isinstance(m, dict):
            raise ValueError(f"{where}: not an object")
        missing = _MODEL_KEYS - set(m)
        if missing:
            raise ValueError(f"{where}: missing field(s) {sorted(missing)}")
        if m["type"] not in _TYPES:
            raise ValueError(f"{where}: type must be one of {sorted(_TYPES)}")
        for key in ("M", "ADT", "ADM", "COS", "SN", "FS", "AT", "PSI", "CAR", "CAR_bonus", "ARM", "shield", "points",
                    "base_mm"):
            if not isinstance(m[key], int) or m[key] < 0:
                raise ValueError(f"{where}: {key} must be a non-negative integer, got {m[key]!r}")
        if m["FS"] < 1 or m["base_mm"] < 10 or m["base_mm"] > 80:
            raise ValueError(f"{where}: FS must be >= 1 and base_mm 10..80")
        for a in m["abilities"]:
            if a not in L.ABILITY_BITS:
                raise ValueError(f"{where}: unknown ability {a!r}; known: {sorted(L.ABILITY_BITS)}")
        for r in m["special_rules"]:
            head = r.split(":")[0].split(" ")[0] if not r.startswith("MOVIMENTO RAPIDO") else "MOVIMENTO RAPIDO"
            if head not in L.SPECIAL_RULE_BITS and head != "ESPERTO":
                raise ValueError(f"{where}: unknown special rule {r!r}")
            if head == "ESPERTO" and r.split(":")[-1].strip() not in L.EXPERT_FIELDS[1:]:
                raise ValueError(f"{where}: ESPERTO needs a field: one of {L.EXPERT_FIELDS[1:]}")
        ranged = [w for w in m["arsenal"] if w in weapons and not weapons[w]["melee"]]
        for w in m["arsenal"]:
            if w not in weapons:
                raise ValueError(f"{where}: unknown weapon {w!r} (weapons.json)")
        if len(ranged) > 2 or len(m["arsenal"]) - len(ranged) > 2:
            raise ValueError(f"{where}: at most two shooting/thrown and two melee weapons")
        for e in m["equipment"]:
            if e not in equipment:
                raise ValueError(f"{where}: unknown equipment {e!r} (equipment.json)")
        if not isinstance(m["provenance"], str) or not m["provenance"]:
            raise ValueError(f"{where}: every row needs a provenance")
        models[m["name"]] = m
    return {"faction": data["faction"], "models": models, "armies": data.get("armies", {}), "path": str(path)}


def armylists(extra: dict | None = None) -> dict:
    lists = {}
    for p in sorted(DATA.glob("armylist_*.json")):
        a = load_armylist(p)
        lists[a["faction"]] = a
    for faction, path in (extra or {}).items():
        a = load_armylist(path)
        if a["faction"] != faction:
            raise ValueError(f"army_files: {path} holds faction {a['faction']!r}, not {faction!r}")
        lists[faction] = a
    return lists


def build_army(lists: dict, spec, points: int, weight_rule: bool = False) -> tuple[str, list[str]]:
    """ARMYLIST / PUNTEGGIO: an army from one armylist, within the points ceiling, with a QG
    for the commander; refuses anything else with the reason."""
    if isinstance(spec, str):
        if ":" not in spec:
            raise ValueError(f"army {spec!r}: expected \"faction:army\"")
        faction, name = spec.split(":", 1)
        if faction not in lists:
            raise ValueError(f"army {spec!r}: no armylist for faction {faction!r} (have {sorted(lists)})")
        if name not in lists[faction]["armies"]:
            raise ValueError(f"army {spec!r}: armylist {faction} has no army {name!r} "
                             f"(have {sorted(lists[faction]['armies'])})")
        names = lists[faction]["armies"][name]
    elif isinstance(spec, (list, tuple)) and len(spec) == 2 and isinstance(spec[1], list):
        faction, names = spec
        if faction not in lists:
            raise ValueError(f"army of faction {faction!r}: no such armylist (have {sorted(lists)})")
    else:
        raise ValueError(f"army {spec!r}: expected \"faction:army\" or [faction, [model names]]")
    models = lists[faction]["models"]
    for n in names:
        if n not in models:
            raise ValueError(f"army of {faction}: model {n!r} is not in that armylist "
                             "(\"le unità dovranno essere composte da modelli provenienti dalla stessa armylist\")")
    if not 1 <= len(names) <= L.N_SLOTS:
        raise ValueError(f"army of {faction}: 1..{L.N_SLOTS} models, got {len(names)}")
    total = sum(models[n]["points"] for n in names)
    if total > points:
        raise ValueError(f"army of {faction} costs {total} points, over the ceiling of {points} (PUNTEGGIO)")
    if not any(models[n]["type"] == "QG" for n in names):
        raise ValueError(f"army of {faction}: the commander must come from the QG section (IL COMANDANTE)")
    if weight_rule:
        weapons, equipment = load_weapons(), load_equipment()
        for n in names:
            m = models[n]
            w = sum(weapons[x]["weight"] for x in m["arsenal"]) + sum(equipment[x]["weight"] for x in m["equipment"])
            if w > m["COS"]:
                raise ValueError(f"army of {faction}: {n} carries weight {w}, more than its COS {m['COS']} (IL PESO)")
    return faction, list(names)


def _profile_row(m, weapon_index) -> np.ndarray:
    row = np.full(L.N_PF, 0, np.int32)
    row[[L.PF_M, L.PF_ADT, L.PF_ADM, L.PF_COS, L.PF_SN, L.PF_FS, L.PF_AT, L.PF_PSI, L.PF_CAR, L.PF_CARB, L.PF_ARM,
         L.PF_SHIELD, L.PF_POINTS, L.PF_RADIUS_MM]] = [m["M"], m["ADT"], m["ADM"], m["COS"], m["SN"], m["FS"],
                                                      m["AT"], m["PSI"], m["CAR"], m["CAR_bonus"], m["ARM"],
                                                      m["shield"], m["points"], m["base_mm"]]
    row[L.PF_HEIGHT_MM] = int(round(10 * m["height_cm"]))
    row[L.PF_TYPE] = _TYPES[m["type"]]
    rules_bits, expert, fly = 0, 0, 0
    for r in m["special_rules"]:
        if r.startswith("ESPERTO"):
            expert = L.EXPERT_FIELDS.index(r.split(":")[-1].strip())
        elif r.startswith("VOLANTE"):
            rules_bits |= L.SR_FLY
            fly = int(r.split()[-1])
        else:
            rules_bits |= L.SPECIAL_RULE_BITS[r]
    row[L.PF_RULES], row[L.PF_EXPERT], row[L.PF_FLY] = rules_bits, expert, fly
    row[L.PF_ABIL] = sum(L.ABILITY_BITS[a] for a in m["abilities"])
    row[L.PF_EQUIP] = sum(L.EQUIPMENT_BITS.get(e, 0) for e in m["equipment"])
    ranged = [w for w in m["arsenal"] if not weapon_index[w][1]]
    melee = [w for w in m["arsenal"] if weapon_index[w][1]]
    row[[L.PF_R0, L.PF_R1, L.PF_M0, L.PF_M1]] = -1
    for k, w in enumerate(ranged):
        row[L.PF_R0 + k] = weapon_index[w][0]
    for k, w in enumerate(melee):
        row[L.PF_M0 + k] = weapon_index[w][0]
    return row


def shipped_tables() -> list[str]:
    """The table option's values: the seeded generator and the tables in data/tables/ by name."""
    return ["random", *sorted(p.stem for p in (DATA / "tables").glob("*.json"))]


# option -> the names of the data shipped for it (wargym serve offers these and no file)
NAMED_DATA = {"table": shipped_tables}


def _is_number(c) -> bool:
    return isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c)


def load_table(spec) -> tuple[np.ndarray, np.ndarray]:
    """The terrain of a fixed table: the name of a shipped table, or a table dict ({"pieces": [...]},
    the shipped files' shape: what ``wargym serve --data union_wars:table:NAME=PATH`` passes)."""
    if isinstance(spec, dict):
        data, name = spec, "given"
    elif isinstance(spec, str):
        path = DATA / "tables" / f"{spec}.json"
        if not path.exists():
            raise ValueError(f"no UnionWars table named {spec!r} (looked for {path})")
        data, name = json.loads(path.read_text()), spec
    else:
        raise ValueError(f"option table must be a table name or a table dict, got {type(spec).__name__}")
    if not isinstance(data.get("pieces", []), list):
        raise ValueError(f"table {name!r}: pieces must be a list")
    terr = np.zeros((L.T_MAX, 4, 2), np.float32)
    info = np.zeros((L.T_MAX, L.N_TI), np.int32)
    pieces = data.get("pieces", [])
    if len(pieces) > L.T_MAX:
        raise ValueError(f"table {name!r}: at most {L.T_MAX} pieces")
    for t, p in enumerate(pieces):
        v = p.get("vertices") if isinstance(p, dict) else None
        if (not isinstance(v, list) or p.get("kind") not in ("rough", "impassable") or not 3 <= len(v) <= 4
                or not all(isinstance(xy, list) and len(xy) == 2 and all(_is_number(c) for c in xy) for xy in v)):
            raise ValueError(f"table {name!r} piece {t}: kind rough|impassable and 3-4 vertices [x, y] needed")
        height = p.get("height_cm", 2)
        if not isinstance(height, int) or isinstance(height, bool) or not 0 <= height <= 100:
            raise ValueError(f"table {name!r} piece {t}: height_cm must be an integer 0..100")
        for k, (x, y) in enumerate(v):
            if not (0 <= x <= L.TABLE_CM and 0 <= y <= L.TABLE_CM):
                raise ValueError(f"table {name!r} piece {t}: vertex {[x, y]} is off the 120x120 cm table")
            terr[t, k] = (x, y)
        info[t] = (L.T_ROUGH if p["kind"] == "rough" else L.T_IMPASSABLE, int(p.get("height_cm", 2)), 0, len(v))
    return terr, info


def build_config(opts: dict):
    lists = armylists(opts["army_files"])
    weapons = load_weapons()
    wnames = list(weapons)
    weapon_index = {n: (k, weapons[n]["melee"]) for k, n in enumerate(wnames)}
    wp = np.zeros((len(wnames), L.N_WP), np.int32)
    for k, n in enumerate(wnames):
        w = weapons[n]
        wp[k] = (w["range_cm"], w["rate"], int(w["melee"]), sum(L.WEAPON_RULE_BITS[r] for r in w["rules"]),
                 int(round(4 * w["weight"])))
    profiles, names = [], []
    for faction in sorted(lists):
        for n, m in lists[faction]["models"].items():
            profiles.append(_profile_row(m, weapon_index))
            names.append((faction, n))
    pf = np.array(profiles, np.int32)
    army = np.full((2, L.N_SLOTS), -1, np.int32)
    factions = []
    for p in range(2):
        faction, model_names = build_army(lists, opts["armies"][p], opts["points"], opts["weight"])
        factions.append(faction)
        for i, n in enumerate(model_names):
            army[p, i] = names.index((faction, n))
    spots = np.array([(5.0 + 10 * (s % L.LATTICE), 5.0 + 10 * (s // L.LATTICE)) for s in range(L.N_SPOTS)], np.float32)
    fixed = opts["table"] != "random"
    fixed_terr, fixed_info = (load_table(opts["table"]) if fixed
                              else (np.zeros((L.T_MAX, 4, 2), np.float32), np.zeros((L.T_MAX, L.N_TI), np.int32)))
    a, n = {}, 0
    for key, size in (("a_model", L.N_SLOTS), ("a_act", L.N_AK), ("a_their", L.N_SLOTS), ("a_mine", L.N_SLOTS),
                      ("a_move", L.N_MOVES), ("a_spot", L.N_SPOTS), ("a_piece", L.T_MAX), ("a_choice", L.N_CHOICES),
                      ("a_react", L.N_RK), ("a_pass", 1)):
        a[key] = n
        n += size
    a["n_actions"] = n
    k = np.zeros(L.N_K, np.int64)
    mission = opts["mission"]
    k[L.K_MISSION] = 0 if mission == "roll" else int(mission)
    k[L.K_TURNS] = opts["turns"]
    k[L.K_TURNS_TOTAL] = opts["turn_count"] == "total"
    k[L.K_TIME] = opts["time"]
    k[L.K_NIGHT] = ("off", "on", "choose").index(opts["night"])
    k[L.K_AMMO] = opts["ammo"]
    k[L.K_JAM] = opts["jamming"]
    k[L.K_RESERVES] = opts["reserves"]
    k[L.K_WEIGHT] = opts["weight"]
    k[L.K_CAR_REFRESH] = opts["charisma_refresh"] == "every_turn"
    k[L.K_MORALE_EACH] = opts["morale_markers"] == "each"
    k[L.K_BANK] = L.BANK_MODES.index(opts["exploration_bank"])
    k[L.K_REWARD_KILLS] = opts["reward"] == "kills"
    k[L.K_MAX_DECISIONS] = opts["max_decisions"]
    k[L.K_FIXED_TABLE] = fixed
    k[L.K_N_FIXED] = int((fixed_info[:, L.TI_KIND] != 0).sum())
    k[L.K_REACT_ONCE] = opts["reactions_per_model"] == "one"
    k[L.K_MELEE_AUTO] = opts["melee_choices"] == "auto"
    k[L.K_FACING_TRAVEL] = opts["facing"] == "travel"
    k[L.K_RELATIONS] = bool(opts["relations"])
    for key, value in a.items():
        k[getattr(L, "K_" + key.upper())] = value
    return Tables(k=k, pf=pf, wp=wp, army=army, spots=spots, fixed_terr=fixed_terr, fixed_tinfo=fixed_info,
                  profile_names=names, weapon_names=wnames, factions=factions)


class Tables(types.SimpleNamespace):
    """The config as numpy arrays for Python code; ``.struct`` is what kernels get."""

    @property
    def struct(self):
        if "_struct" not in self.__dict__:
            self.__dict__["_struct"] = UnionWarsConfig(*(getattr(self, f) for f in L.CONFIG_FIELDS))
        return self.__dict__["_struct"]


@structref.register
class UnionWarsConfigType(WargymStruct):
    pass


class UnionWarsConfig(structref.StructRefProxy):
    """Static tables of one option set, shared by every game of a batch."""


structref.define_proxy(UnionWarsConfig, UnionWarsConfigType, list(L.CONFIG_FIELDS))


@structref.register
class UnionWarsStateType(WargymStruct):
    pass


class UnionWarsState(structref.StructRefProxy):
    """Kernel-side view of a BatchState's arrays."""


structref.define_proxy(UnionWarsState, UnionWarsStateType, list(L.STATE_FIELDS))


def state_spec(cfg) -> StateSpec:
    fields = (
        ("rng", (), "uint64"), ("policy_rng", (), "uint64"),
        ("dice_script", (DICE_SCRIPT_LEN,), "int8"), ("dice", (2,), "int16"),
        ("g", (L.N_G,), "int32"),
        ("pos", (2, L.N_SLOTS, 3), "float32"),          # x, y (cm), facing (radians)
        ("md", (2, L.N_SLOTS, L.N_MD), "int32"),
        ("terr", (L.T_MAX, 4, 2), "float32"),
        ("tinfo", (L.T_MAX, L.N_TI), "int32"),
        ("objs", (L.MAX_OBJ, 3), "float32"),
        ("smoke", (L.MAX_SMOKE, 3), "float32"),
        ("rq", (L.MAX_REACT, 3), "int32"),
        ("geo", (L.N_GEO,), "float32"),                # the last shot's line, the sight cache (layout.GEO_*)
        # ESPLORAZIONE bank: the replay's bookkeeping and the state at the start of the step (bank.py)
        ("bk", (L.N_BK,), "int32"), ("snap_rng", (), "uint64"), ("snap_dice", (2,), "int16"),
        ("snap_g", (L.N_G,), "int32"), ("snap_pos", (2, L.N_SLOTS, 3), "float32"),
        ("snap_md", (2, L.N_SLOTS, L.N_MD), "int32"), ("snap_tinfo", (L.T_MAX, L.N_TI), "int32"),
        ("snap_objs", (L.MAX_OBJ, 3), "float32"), ("snap_smoke", (L.MAX_SMOKE, 3), "float32"),
        ("snap_rq", (L.MAX_REACT, 3), "int32"), ("snap_shot", (5,), "float32"),
    )
    return StateSpec(NAME, fields, UnionWarsState)


def num_actions(cfg) -> int:
    return int(cfg.k[L.K_N_ACTIONS])


def obs_size(cfg) -> int:
    """N_OBS, the pending bank roll's N_BANK_OBS values with exploration_bank="ask" (the
    other modes keep the size the shipped agents were trained on), then with option relations
    the action table (one row of relations.N_AF values per action)."""
    return table_offset(cfg) + (num_actions(cfg) * relations.N_AF if cfg.k[L.K_RELATIONS] else 0)


def table_offset(cfg) -> int:
    """Where the action table starts in the flat observation."""
    return L.N_OBS + (L.N_BANK_OBS if cfg.k[L.K_BANK] == L.BANK_ASK else 0)


def obs_shape(cfg) -> tuple[int, ...]:
    return (obs_size(cfg),)


def kernel_obs_shape(cfg) -> tuple[int, ...]:
    return (obs_size(cfg),)


def split_obs(cfg, obs: np.ndarray) -> dict:
    """The flat observation as named parts: the model table (own side's 8 slots first), the
    terrain table, the globals, objectives and smoke markers."""
    obs = np.asarray(obs).reshape(-1)
    m = 2 * L.N_SLOTS * L.N_MF
    t = m + L.T_MAX * L.N_TF
    parts = {"models": obs[:m].reshape(2 * L.N_SLOTS, L.N_MF),
             "terrain": obs[m:t].reshape(L.T_MAX, L.N_TF),
             "globals": obs[t:t + L.N_GF],
             "markers": obs[t + L.N_GF:L.N_OBS].reshape(L.MAX_OBJ + L.MAX_SMOKE, 3)}
    table = table_offset(cfg)
    if table > L.N_OBS:
        parts["bank"] = obs[L.N_OBS:table]     # exploration_bank="ask": the pending roll (RULES.md "Observation")
    if cfg.k[L.K_RELATIONS]:
        parts["action_features"] = obs[table:].reshape(num_actions(cfg), relations.N_AF)
    return parts


def current(state) -> np.ndarray:
    return state.g[:, L.G_DECIDER]


def done(state) -> np.ndarray:
    return state.g[:, L.G_DONE].astype(bool)


# -- actions in words -----------------------------------------------------------------------------
def action_name(cfg, a: int) -> str:
    k = {key: int(cfg.k[getattr(L, "K_" + key.upper())]) for key in
         ("a_model", "a_act", "a_their", "a_mine", "a_move", "a_spot", "a_piece", "a_choice", "a_react", "a_pass",
          "n_actions")}
    if not 0 <= a < k["n_actions"]:
        return f"action {a} (outside the action space)"
    if a >= k["a_pass"]:
        return "pass (end the tactical phase / no more reactions / keep in reserve / keep the exploration bank)"
    if a >= k["a_react"]:
        return f"reaction {L.REACTION_NAMES[a - k['a_react']]}"
    if a >= k["a_choice"]:
        return (f"choice {a - k['a_choice']} (mission / side / order / initiative / day-night / "
                "melee weapon slot, by stage; at the exploration bank's question 0 spends the points shown, "
                "or at an amount roll choice c spends c + 1)")
    if a >= k["a_piece"]:
        return f"scenic element {a - k['a_piece']} as base"
    if a >= k["a_spot"]:
        sp = a - k["a_spot"]
        return f"spot ({5 + 10 * (sp % L.LATTICE)}, {5 + 10 * (sp // L.LATTICE)}) cm"
    if a >= k["a_move"]:
        c = a - k["a_move"]
        d, q = divmod(c, L.N_DIST + 1)
        what = "rotate to face" if q == 0 else f"move {q}/{L.N_DIST} of the allowance toward"
        return f"{what} {d * 360 / L.N_DIRS:.1f} degrees" + (" (stage facing: end the move facing it)" if q == 0 else "")
    if a >= k["a_mine"]:
        return f"own model {a - k['a_mine']} as target"
    if a >= k["a_their"]:
        return f"enemy model {a - k['a_their']} (target, the melee target, or the controlled model)"
    if a >= k["a_act"]:
        return f"action {L.ACTION_NAMES[a - k['a_act']]}"
    return f"own model {a - k['a_model']}"


# -- scenarios -----------------------------------------------------------------------------------
def apply_scenario(cfg, state, b: int, sc: dict) -> None:
    """Start game ``b`` of ``state`` (a reset game) in the tactical phase of ``active``::

        {"active": 0, "turn": 0, "mission": 1, "edge0": 0,
         "terrain": [{"kind": "rough", "vertices": [[x, y], ...], "height_cm": 2}],   # replaces the table
         "models": [{"player": 0, "slot": 0, "x": 30, "y": 10, "facing_deg": 90, "wounds": 0, "morale": 0,
                     "fatigue": 0, "status": "active", "flags": ["hidden"]}],
         "objectives": [[60, 60]], "bank": [0, 0], "dice": [6, 1, 3]}

    Slots of the armies not listed are out of the game."""
    if not isinstance(sc, dict):
        raise ValueError("a scenario must be a dict")
    allowed = {"active", "turn", "mission", "edge0", "terrain", "models", "objectives", "bank", "dice", "name",
               "description", "night"}
    if set(sc) - allowed:
        raise ValueError(f"unknown scenario key(s) {sorted(set(sc) - allowed)}; allowed: {sorted(allowed)}")
    s = state
    active = sc.get("active", 0)
    if active not in (0, 1):
        raise ValueError(f"scenario active must be 0 or 1, got {active!r}")
    mission = sc.get("mission", 1)
    if mission not in (1, 2, 3, 4, 5):
        raise ValueError(f"scenario mission must be 1..5, got {mission!r}")
    turn = sc.get("turn", 0)
    if not isinstance(turn, int) or not 0 <= turn < int(s.g[b, L.G_MAX_TURNS]):
        raise ValueError(f"scenario turn must be 0..{int(s.g[b, L.G_MAX_TURNS]) - 1}, got {turn!r}")
    s.g[b, L.G_MISSION] = mission
    s.g[b, L.G_EDGE0] = int(sc.get("edge0", 0))
    s.g[b, L.G_NIGHT] = int(bool(sc.get("night", False)))
    bank = sc.get("bank", [0, 0])
    s.g[b, L.G_BANK0], s.g[b, L.G_BANK1] = int(bank[0]), int(bank[1])
    if "terrain" in sc:
        s.terr[b] = 0
        s.tinfo[b] = 0
        pieces = sc["terrain"]
        if len(pieces) > L.T_MAX:
            raise ValueError(f"scenario terrain: at most {L.T_MAX} pieces")
        for t, p in enumerate(pieces):
            v = p.get("vertices") if isinstance(p, dict) else None
            if not isinstance(p, dict) or p.get("kind") not in ("rough", "impassable") or not isinstance(v, list) \
                    or not 3 <= len(v) <= 4:
                raise ValueError(f"scenario terrain {t}: needs kind rough|impassable and 3-4 vertices")
            for q, (x, y) in enumerate(v):
                s.terr[b, t, q] = (x, y)
            s.tinfo[b, t] = (L.T_ROUGH if p["kind"] == "rough" else L.T_IMPASSABLE, int(p.get("height_cm", 2)), 0,
                             len(v))
    s.md[b, :, :, L.MD_STATUS] = L.ABSENT      # slots not listed are out of the game (not losses)
    flags = {"hidden": L.F_HIDDEN, "alert": L.F_ALERT, "prone": L.F_PRONE, "suppressed": L.F_SUPPRESSED}
    statuses = {"active": L.ACTIVE, "out_of_combat": L.OOC, "reserve": L.RESERVE}
    for n, m in enumerate(sc.get("models", [])):
        what = f"scenario model {n}"
        keys = {"player", "slot", "x", "y", "facing_deg", "wounds", "morale", "fatigue", "status", "flags", "car"}
        if not isinstance(m, dict) or set(m) - keys:
            raise ValueError(f"{what}: allowed keys {sorted(keys)}, got {m!r}")
        p, i = m.get("player"), m.get("slot")
        if p not in (0, 1) or not isinstance(i, int) or not 0 <= i < L.N_SLOTS or cfg.army[p, i] < 0:
            raise ValueError(f"{what}: player 0/1 and a slot of that player's army are needed")
        st = m.get("status", "active")
        if st not in statuses:
            raise ValueError(f"{what}: status must be one of {sorted(statuses)}")
        s.md[b, p, i, L.MD_STATUS] = statuses[st]
        s.pos[b, p, i] = (float(m.get("x", 0)), float(m.get("y", 0)), math.radians(float(m.get("facing_deg", 90))))
        prof = cfg.pf[cfg.army[p, i]]
        w = int(m.get("wounds", 0))
        if not 0 <= w <= prof[L.PF_FS]:
            raise ValueError(f"{what}: wounds must be 0..FS={prof[L.PF_FS]}")
        s.md[b, p, i, L.MD_WOUNDS] = w
        s.md[b, p, i, L.MD_MORALE] = int(m.get("morale", 0))
        s.md[b, p, i, L.MD_FATIGUE] = int(m.get("fatigue", 0))
        f = 0
        for name in m.get("flags", []):
            if name not in flags:
                raise ValueError(f"{what}: flags are {sorted(flags)}, got {name!r}")
            f |= flags[name]
        if st == "reserve":
            f |= L.F_KEPT        # LE RISERVE: kept in reserve, rolled for in its side's command phase
        s.md[b, p, i, L.MD_FLAGS] = f
        if f & L.F_PRONE:
            s.md[b, p, i, L.MD_PRONE_UNTIL] = turn
    for p in range(2):
        s.g[b, L.G_START0 + p] = int(sum(1 for m in sc.get("models", []) if m["player"] == p))
        cmd = [m["slot"] for m in sc.get("models", []) if m["player"] == p
               and cfg.pf[cfg.army[p, m["slot"]], L.PF_TYPE] == L.TYPE_QG]
        s.g[b, L.G_CMD0 + p] = min(cmd) if cmd else -1
        s.g[b, L.G_ASSASSIN0 + p] = s.g[b, L.G_CMD0 + p]
    objs = sc.get("objectives", [])
    if len(objs) > L.MAX_OBJ:
        raise ValueError(f"scenario objectives: at most {L.MAX_OBJ}")
    for q, (x, y) in enumerate(objs):
        s.objs[b, q] = (x, y, 1)
    s.g[b, L.G_NOBJ] = len(objs)
    s.g[b, L.G_TURN] = turn
    _check_positions(cfg, s, b)
    rules.start_battle_at(s.view, cfg.struct, b, active)
    # charisma as the scenario says, after the command phase refilled it
    for m in sc.get("models", []):
        if "car" in m:
            s.md[b, m["player"], m["slot"], L.MD_CAR] = int(m["car"])
    dice = sc.get("dice", [])
    if len(dice) > DICE_SCRIPT_LEN or any(not isinstance(v, int) or not 1 <= v <= 6 for v in dice):
        raise ValueError(f"scenario dice must be at most {DICE_SCRIPT_LEN} values 1..6")
    s.dice_script[b] = 0
    s.dice_script[b, :len(dice)] = dice
    s.dice[b] = (len(dice), 0)


def _check_positions(cfg, s, b):
    """No base off the table, inside impassable terrain or overlapping another base."""
    from ..core.geometry import point_polygon_distance
    bases = []
    for p in range(2):
        for i in range(L.N_SLOTS):
            if s.md[b, p, i, L.MD_STATUS] not in (L.ACTIVE, L.OOC):
                continue
            x, y = float(s.pos[b, p, i, 0]), float(s.pos[b, p, i, 1])
            r = cfg.pf[cfg.army[p, i], L.PF_RADIUS_MM] / 20.0
            if not (r - 1e-4 <= x <= L.TABLE_CM - r + 1e-4 and r - 1e-4 <= y <= L.TABLE_CM - r + 1e-4):
                raise ValueError(f"scenario: player {p} model {i} at ({x}, {y}) is off the table")
            for t in range(L.T_MAX):
                if s.tinfo[b, t, L.TI_KIND] == L.T_IMPASSABLE and \
                        point_polygon_distance(x, y, s.terr[b, t], s.tinfo[b, t, L.TI_NVERT]) < r - 0.01:
                    raise ValueError(f"scenario: player {p} model {i} stands in impassable terrain {t}")
            for (q, j, qx, qy, qr) in bases:
                if math.hypot(x - qx, y - qy) < r + qr - 0.01:
                    raise ValueError(f"scenario: player {p} model {i} overlaps player {q} model {j}")
            bases.append((p, i, x, y, r))


def scores(state, b: int) -> list[int]:
    """1 for the winner of a finished game, 0 otherwise (the mission decides; ``win_rate_builtin``
    and the arena read the result from it, as from the other games' scores)."""
    g = state.g[b]
    w = int(g[L.G_WINNER]) if g[L.G_DONE] else -1
    return [1 if w == 0 else 0, 1 if w == 1 else 0]


def final_info(core, b: int) -> dict:
    g = core.state.g[b]
    w = int(g[L.G_WINNER])
    return result_info(w if g[L.G_DONE] and w in (0, 1) else NO_WINNER, scores(core.state, b), int(g[L.G_TURN]),
                       mission=int(g[L.G_MISSION]),   # 1..6 as the option numbers them (L.MISSION_NAMES);
                       # numbers only: clients turn infos into tensors (TorchRL)
                       losses=[int(((core.state.md[b, p, :, L.MD_STATUS] == L.REMOVED)
                                    | (core.state.md[b, p, :, L.MD_STATUS] == L.OOC)).sum()) for p in range(2)])


def scores_from_obs(cfg, obs) -> list[int]:
    """(own, enemy): 1 for the winner of a finished game, else the mission scores so far (the globals
    of ``split_obs``)."""
    glob = split_obs(cfg, obs)["globals"]
    if glob[27]:
        return [int(glob[26] == 1), int(glob[26] == -1)]
    return [int(glob[24]), int(glob[25])]

