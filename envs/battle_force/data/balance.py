"""Star Fleet Battle Force data: fact checks and balance table.

Loads ``cards.json`` (the 90 Action cards) and ``ships.json`` (the 36 Ship cards) from this
folder, asserts every fact the sources fix (see DATA.md and shared/reference/sfbf-data.md)
and prints the per-race balance table used to tune the reconstructed numbers.

Run either way::

    python -m wargym.envs.battle_force.data.balance
    python envs/battle_force/data/balance.py

Importable API: ``load_cards()``, ``load_ships()``, ``check_facts(cards, ships)``,
``ship_table(cards, ships)``, ``balance_table(cards, ships)``, ``fleet_table(ship_rows)``,
``deck_share_table(cards, ships)``.

The firepower figure
--------------------
For each ship, the expected damage of its best attack given a random 5-card hand from the full
90-card deck (Monte Carlo, fixed numpy seed, the same hands for every ship). A card is usable if
the ship has a matching weapon symbol, under the hierarchy of the card table ([IT] "Lista e
traduzione delle carte azione"): Ph-1 fires Ph-1/2/3, Ph-2 fires Ph-2/3, Plasma-R fires R/S/F,
Plasma-S fires S/F; an Orion WPN symbol fires any weapon card but Plasma-R, and a Plasma-S needs
two WPN ([IT] "Armi opzionali di Orione"); at most one card per weapon symbol ([IT] 4.3). The
best assignment of the hand's weapon cards to the symbols is found exactly. Combat cards
(Overload, Enveloper, Scatterpack, Legendary Gunner) and defence are left out. A carrier may
instead attack with its fighters ([IT] "I caccia sulle navi", F4: 1d6 per squadron, 2 squadrons),
so a carrier's attack is max(card attack, 2d6) with the dice drawn in the same simulation.

Durability is the number of hits that destroy the ship: damage spaces (weapon symbols + WPN + FTR
+ circles) + 1 ([IT] 4.5). Cloak and web are not modelled (see DATA.md).

Race figure: total VP / sum over ships of (firepower x durability), i.e. VP per unit of
firepower x durability, and its ratio to the mean of the seven races.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent
CARDS_PATH = DATA_DIR / "cards.json"
SHIPS_PATH = DATA_DIR / "ships.json"

# ---------------------------------------------------------------------------------------------
# Facts fixed by the sources ([IT] = seed 001 Italian rulebook; [KU], [FCB07] as in
# shared/reference/sfbf-data.md)

N_CARDS = 90  # [IT] Componenti
N_SHIPS = 36  # [IT] Componenti
HAND = 5  # [IT] Sequenza di gioco, fase 1

WEAPON_TYPES = (
    "phaser1", "phaser2", "phaser3", "drone", "photon", "disruptor",
    "plasma_r", "plasma_s", "plasma_f",
)
CARD_TYPES = WEAPON_TYPES + (
    "overload", "enveloper", "scatterpack", "legendary_gunner", "eccm",
    "erratic_maneuvers", "ecm", "reinforce_shields", "wild_weasel", "tractor_beam", "disengage",
    "damage_control", "legendary_engineer",
    "reinforcements", "planet_based_fighters", "pf_flotilla", "klingon_mutiny",
    "organian_ceasefire", "prime_team",
)
assert len(CARD_TYPES) == 28

# printed value range per type ([IT] card table); None = the type has no printed value (0)
VALUE_RANGES = {
    "phaser1": {2, 3, 4},
    "phaser2": {2, 3},
    "phaser3": {1, 2},
    "drone": {3, 4, 5},
    "photon": {5, 6},
    "disruptor": {3, 4, 5},
    "plasma_r": {7, 9},
    "plasma_s": {5, 6},
    "plasma_f": {2, 3},
    "ecm": {3, 4},
    "erratic_maneuvers": {4},
    "reinforce_shields": {3},
    "damage_control": {2, 3, 4},
}

# defence symbols per type: the card table, except Plasma-F has no D (rule C2) and
# Photon / Disruptor only PF (rule F3: they cannot fire at fighters)
_PH = ["drone", "plasma", "fighter", "pf"]
DEFENDS = {
    "phaser1": _PH, "phaser2": _PH, "phaser3": _PH,
    "drone": ["drone", "fighter", "pf"],
    "photon": ["pf"], "disruptor": ["pf"],
    "plasma_r": ["drone", "fighter", "pf"], "plasma_s": ["drone", "fighter", "pf"],
    "plasma_f": ["fighter", "pf"],
}
RANGE_LIMITED = {"phaser3", "plasma_f"}  # [IT] Regole sulla Formazione, Raggio di Azione
EXACT_COUNTS = {"planet_based_fighters": 2, "disengage": 1}  # [IT] l.35, l.631

RACES = ("federation", "klingon", "romulan", "gorn", "kzinti", "orion", "tholian")
RACE_COUNTS = {"federation": 6, "klingon": 6, "romulan": 6, "gorn": 6, "kzinti": 6,
               "orion": 3, "tholian": 3}  # [IT] Componenti, Carte Nave Spaziale

# Star Fleet Universe weapon suites by race (brief; SFU)
RACE_WEAPONS = {
    "federation": {"photon", "drone", "phaser1", "phaser2", "phaser3"},
    "klingon": {"disruptor", "drone", "phaser1", "phaser2", "phaser3"},
    "romulan": {"plasma_r", "plasma_s", "plasma_f", "phaser1", "phaser2", "phaser3"},
    "gorn": {"plasma_r", "plasma_s", "plasma_f", "phaser1", "phaser2", "phaser3"},
    "kzinti": {"disruptor", "drone", "phaser1", "phaser2", "phaser3"},
    "orion": {"phaser1", "phaser2", "phaser3"},
    "tholian": {"phaser1", "phaser2", "phaser3", "disruptor"},
}
CLOAK_RACES = {"romulan", "orion"}  # [IT] Regole sull'Occultamento
WEB_RACES = {"tholian"}  # [IT] Regole sulla Ragnatela Toliana
MAX_SPACES = 14

PROVENANCE_VALUES = {"rulebook", "reference", "reconstructed"}
SHIP_PROV_KEYS = {"name", "class", "weapons", "circles", "vp", "fighters", "cloak_web"}

# which ship symbols may fire a weapon card ([IT] card table, "Testo" column)
FIRED_BY = {
    "phaser1": ("phaser1",),
    "phaser2": ("phaser2", "phaser1"),
    "phaser3": ("phaser3", "phaser2", "phaser1"),
    "drone": ("drone",),
    "photon": ("photon",),
    "disruptor": ("disruptor",),
    "plasma_r": ("plasma_r",),
    "plasma_s": ("plasma_s", "plasma_r"),
    "plasma_f": ("plasma_f", "plasma_s", "plasma_r"),
}
# WPN symbols needed to fire a card type ([IT] Armi opzionali di Orione); None = cannot
WPN_COST = {t: 1 for t in WEAPON_TYPES}
WPN_COST["plasma_r"] = None
WPN_COST["plasma_s"] = 2

FAMILIES = {
    "phaser": ("phaser1", "phaser2", "phaser3"),
    "drone": ("drone",),
    "photon": ("photon",),
    "disruptor": ("disruptor",),
    "plasma": ("plasma_r", "plasma_s", "plasma_f"),
}

# tolerances the tests hold the shipped data to
RACE_TOLERANCE = 0.15  # every race's VP/(firepower x durability) within +-15% of the 7-race mean
FLEET_TOLERANCE = 0.15  # 6-ship single-race fleets' sum of firepower x durability within +-15%
MIN_P_ATTACK = 0.70  # every ship holds a usable weapon card in at least 70% of 5-card hands
SHARE_TOLERANCE = 0.04  # each weapon type's deck share within 4 percentage points of its ship share
MC_HANDS = 20000
MC_SEED = 20010101


# ---------------------------------------------------------------------------------------------
# Loading


def _rows(doc, key):
    return doc[key] if isinstance(doc, dict) else doc


def load_cards(path: str | Path | None = None) -> list[dict]:
    """The 90 card rows of cards.json."""
    with open(path or CARDS_PATH, encoding="utf-8") as f:
        return json.load(f)["cards"]


def load_ships(path: str | Path | None = None) -> list[dict]:
    """The 36 ship rows of ships.json."""
    with open(path or SHIPS_PATH, encoding="utf-8") as f:
        return json.load(f)["ships"]


def damage_spaces(ship: dict) -> int:
    """Weapon symbols + WPN + FTR + circles ([IT] 4.5; cloak/web are not spaces, notes 2-3)."""
    return sum(ship["weapons"].values()) + ship["wpn"] + ship["fighters"] + ship["circles"]


def durability(ship: dict) -> int:
    """Hits to destroy: every space covered, then one more ([IT] 4.5)."""
    return damage_spaces(ship) + 1


# ---------------------------------------------------------------------------------------------
# Facts


def _check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def check_facts(cards, ships) -> None:
    """Assert every fact the sources fix, and the structural rules of the reconstruction.

    Raises AssertionError with a message on the first failure.
    """
    cards = _rows(cards, "cards")
    ships = _rows(ships, "ships")

    # ---- Action cards
    _check(len(cards) == N_CARDS, f"deck has {len(cards)} cards, not {N_CARDS} ([IT] Componenti)")
    _check([c["id"] for c in cards] == list(range(len(cards))), "card ids must be 0..89 in order")
    counts = Counter(c["type"] for c in cards)
    _check(set(counts) == set(CARD_TYPES),
           f"card types differ from the 28 of the card table: missing "
           f"{sorted(set(CARD_TYPES) - set(counts))}, unknown {sorted(set(counts) - set(CARD_TYPES))}")
    for t, n in EXACT_COUNTS.items():
        _check(counts[t] == n, f"{t}: {counts[t]} copies, the rulebook says {n}")
    for c in cards:
        t, v = c["type"], c["value"]
        _check(isinstance(v, int) and not isinstance(v, bool), f"card {c['id']}: value not int")
        if t in VALUE_RANGES:
            _check(v in VALUE_RANGES[t],
                   f"card {c['id']} {t} value {v} outside printed range {sorted(VALUE_RANGES[t])}")
        elif t == "planet_based_fighters":
            _check(v >= 1, f"card {c['id']}: planet-based fighters need a fighter count")
        else:
            _check(v == 0, f"card {c['id']} {t}: value must be 0")
        _check(c["defends"] == DEFENDS.get(t, []),
               f"card {c['id']} {t}: defends {c['defends']} != {DEFENDS.get(t, [])}")
        _check(c["range_limited"] is (t in RANGE_LIMITED), f"card {c['id']} {t}: range_limited")
        _check(c.get("provenance") in ("rulebook", "reconstructed"),
               f"card {c['id']}: provenance {c.get('provenance')!r}")
        _check(isinstance(c.get("source"), str) and c["source"], f"card {c['id']}: no source")
        if c["provenance"] == "rulebook":
            _check(t in EXACT_COUNTS, f"card {c['id']} {t}: only copies whose count the rulebook "
                   "fixes may be marked 'rulebook'")
    # every printed value of a ranged type occurs at least once
    for t, vals in VALUE_RANGES.items():
        have = {c["value"] for c in cards if c["type"] == t}
        _check(have == vals, f"{t}: printed values {sorted(have)} should cover {sorted(vals)}")

    # ---- Ship cards
    _check(len(ships) == N_SHIPS, f"{len(ships)} ships, not {N_SHIPS} ([IT] Componenti)")
    _check([s["id"] for s in ships] == list(range(len(ships))), "ship ids must be 0..35 in order")
    by_race = Counter(s["race"] for s in ships)
    _check(dict(by_race) == RACE_COUNTS, f"race split {dict(by_race)} != {RACE_COUNTS}")
    for s in ships:
        sid = f"ship {s['id']} {s['race']} {s['class']} {s['name']}"
        _check(set(s["weapons"]) <= set(WEAPON_TYPES), f"{sid}: unknown weapon key")
        _check(all(isinstance(n, int) and n > 0 for n in s["weapons"].values()),
               f"{sid}: weapon counts must be positive ints")
        _check(set(s["weapons"]) <= RACE_WEAPONS[s["race"]],
               f"{sid}: weapons {sorted(s['weapons'])} not in the {s['race']} suite")
        _check(sum(s["weapons"].values()) + s["wpn"] > 0, f"{sid}: no weapons")
        _check((s["wpn"] > 0) == (s["race"] == "orion"), f"{sid}: WPN symbols are Orion-only, "
               "and every Orion ship has them ([IT] Armi opzionali di Orione)")
        _check(s["fighters"] in (0, 2), f"{sid}: every carrier has 2 FTR ([IT] F1)")
        _check(s["cloak"] is (s["race"] in CLOAK_RACES), f"{sid}: cloak is Romulan/Orion")
        _check(s["web"] is (s["race"] in WEB_RACES), f"{sid}: web is Tholian")
        _check(s["circles"] >= 1, f"{sid}: at least one damage circle")
        _check(damage_spaces(s) <= MAX_SPACES, f"{sid}: {damage_spaces(s)} spaces > {MAX_SPACES}")
        _check(4 <= s["vp"] <= 16, f"{sid}: VP {s['vp']} outside 4..16 ([KU])")
        prov = s.get("provenance")
        _check(isinstance(prov, dict) and set(prov) == SHIP_PROV_KEYS
               and set(prov.values()) <= PROVENANCE_VALUES, f"{sid}: provenance {prov}")
        _check(isinstance(s.get("source"), str) and s["source"], f"{sid}: no source")
        _check(isinstance(s["name"], str) and s["name"], f"{sid}: no name")
    names = [s["name"] for s in ships]
    _check(len(set(names)) == len(names), "ship names must be unique")

    # VP range 4..16 is attained: Kzinti frigate 4 (lowest), Romulan DN 16 (highest) [KU]
    vps = [s["vp"] for s in ships]
    _check(min(vps) == 4 and max(vps) == 16, f"VP range {min(vps)}..{max(vps)} != 4..16")
    kzff = [s for s in ships if s["race"] == "kzinti" and s["class"] == "FF"]
    _check(len(kzff) == 1 and kzff[0]["vp"] == 4, "Kzinti frigate must be worth 4 VP ([KU])")
    romdn = [s for s in ships if s["race"] == "romulan" and s["class"] == "DN"]
    _check(len(romdn) == 1 and romdn[0]["vp"] == 16, "Romulan DN must be worth 16 VP ([KU])")
    _check(sorted(vps).count(16) == 1, "the Romulan DN is the only 16-VP ship ([KU]: highest)")
    _check(vps.count(4) == 1, "the Kzinti frigate is the only 4-VP ship ([KU]: lowest)")

    # Constellation, complete card ([IT] Componenti; [KU])
    con = [s for s in ships if s["name"] == "Constellation"]
    _check(len(con) == 1, "exactly one Constellation")
    c = con[0]
    _check(c["race"] == "federation" and c["class"] == "CA", "Constellation is a Federation CA")
    _check(c["weapons"] == {"photon": 2, "drone": 1, "phaser1": 2}, "Constellation weapons")
    _check((c["wpn"], c["fighters"], c["circles"], c["vp"]) == (0, 0, 3, 8),
           "Constellation: 3 circles, 8 VP, no FTR")
    _check(all(c["provenance"][k] == "rulebook" for k in ("name", "class", "weapons", "circles", "vp")),
           "Constellation provenance must be rulebook")

    # Klingon D7: weapons fixed ([IT] 4.3), name per [FCB07]
    d7 = [s for s in ships if s["race"] == "klingon" and s["class"] == "D7"]
    _check(len(d7) == 1, "exactly one Klingon D7")
    _check(d7[0]["weapons"] == {"disruptor": 2, "drone": 1, "phaser1": 1, "phaser2": 1},
           "D7 weapons: 2 disruptor, 1 drone, 1 Ph-1, 1 Ph-2 ([IT] 4.3)")
    _check(d7[0]["fighters"] == 0 and d7[0]["provenance"]["weapons"] == "rulebook", "D7 provenance")
    _check(d7[0]["name"] == "Thunderchild", "D7 is the Thunderchild ([FCB07])")

    # classes known by designation ([IT] l.635, [FCB07], [KU])
    classes = Counter((s["race"], s["class"]) for s in ships)
    for rc in [("klingon", "C8"), ("tholian", "DN"), ("tholian", "CW"), ("gorn", "DD"),
               ("gorn", "BC"), ("federation", "FF"), ("orion", "BR"), ("orion", "LR"),
               ("kzinti", "FF"), ("romulan", "DN")]:
        _check(classes[rc] >= 1, f"known class {rc} missing")
    _check(any(s["race"] == "klingon" and s["fighters"] == 2 for s in ships),
           "a Klingon carrier ([FCB07])")
    for s in ships:
        if s["fighters"]:
            _check(s["class_name"].lower().find("carrier") >= 0, f"{s['name']}: FTR on a non-carrier")


# ---------------------------------------------------------------------------------------------
# Firepower


def _best_attack(cards, caps, wpn):
    """Best total damage of weapon cards ``cards`` [(type, value)] sorted by value desc, on a
    ship with symbol counts ``caps`` {type: n} and ``wpn`` WPN symbols. Exact search."""
    if not cards:
        return 0
    (t, v), rest = cards[0], cards[1:]
    best = _best_attack(rest, caps, wpn)  # leave this card out
    for sym in FIRED_BY[t]:
        if caps.get(sym, 0) > 0:
            caps[sym] -= 1
            best = max(best, v + _best_attack(rest, caps, wpn))
            caps[sym] += 1
    cost = WPN_COST[t]
    if cost is not None and wpn >= cost:
        best = max(best, v + _best_attack(rest, caps, wpn - cost))
    return best


def best_attack(ship: dict, hand: list[tuple[str, int]]) -> int:
    """Damage of the best card attack ``ship`` can make with ``hand`` (list of (type, value))."""
    usable = [(t, v) for t, v in hand if t in FIRED_BY and (
        any(ship["weapons"].get(s, 0) for s in FIRED_BY[t])
        or (WPN_COST[t] is not None and ship["wpn"] >= WPN_COST[t]))]
    usable.sort(key=lambda tv: -tv[1])
    return _best_attack(usable, dict(ship["weapons"]), ship["wpn"])


def firepower(cards, ships, n_hands: int = MC_HANDS, seed: int = MC_SEED):
    """Per ship: expected attack damage over ``n_hands`` random 5-card hands (same hands for all
    ships; carriers attack with max(cards, 2d6 fighters)), and the share of hands holding at
    least one weapon card the ship can fire. Returns (firepower list, p_attack list)."""
    cards = _rows(cards, "cards")
    ships = _rows(ships, "ships")
    rng = np.random.default_rng(seed)
    deck = [(c["type"], c["value"]) for c in cards]
    totals = np.zeros(len(ships))
    can = np.zeros(len(ships))
    memo: dict = {}
    sigs = [(tuple(sorted(s["weapons"].items())), s["wpn"]) for s in ships]
    for _ in range(n_hands):
        idx = rng.choice(len(deck), size=HAND, replace=False)
        hand = tuple(sorted(deck[i] for i in idx if deck[i][0] in FIRED_BY))
        dice = int(rng.integers(1, 7)) + int(rng.integers(1, 7))
        for k, s in enumerate(ships):
            key = (sigs[k], hand)
            dmg = memo.get(key)
            if dmg is None:
                dmg = memo[key] = best_attack(s, list(hand))
            can[k] += dmg > 0
            if s["fighters"]:
                dmg = max(dmg, dice * s["fighters"] // 2)
            totals[k] += dmg
    return list(totals / n_hands), list(can / n_hands)


def ship_table(cards, ships, n_hands: int = MC_HANDS, seed: int = MC_SEED) -> list[dict]:
    """Per ship: spaces, durability, firepower, VP and VP / (firepower x durability)."""
    ships = _rows(ships, "ships")
    fp, pa = firepower(cards, ships, n_hands, seed)
    rows = []
    for s, f, p in zip(ships, fp, pa):
        d = durability(s)
        rows.append({"id": s["id"], "race": s["race"], "class": s["class"], "name": s["name"],
                     "vp": s["vp"], "spaces": damage_spaces(s), "durability": d,
                     "firepower": f, "p_attack": p, "fp_x_dur": f * d,
                     "vp_per_fpdur": s["vp"] / (f * d)})
    return rows


def balance_table(cards, ships, n_hands: int = MC_HANDS, seed: int = MC_SEED,
                  per_ship: list[dict] | None = None) -> list[dict]:
    """Per race: ships, total VP, VP/ship, damage spaces, symbols by type, firepower, and
    VP per unit of (firepower x durability), with its ratio to the mean over the seven races
    ("relative"). ``per_ship`` may pass a ship_table() already computed."""
    ships = _rows(ships, "ships")
    if per_ship is None:
        per_ship = ship_table(cards, ships, n_hands, seed)
    rows = []
    for race in RACES:
        mine = [s for s in ships if s["race"] == race]
        stats = [r for r in per_ship if r["race"] == race]
        symbols = Counter()
        for s in mine:
            symbols.update(s["weapons"])
        vp = sum(s["vp"] for s in mine)
        fpdur = sum(r["fp_x_dur"] for r in stats)
        rows.append({
            "race": race, "ships": len(mine), "total_vp": vp, "vp_per_ship": vp / len(mine),
            "spaces": sum(r["spaces"] for r in stats),
            "symbols": {t: symbols[t] for t in WEAPON_TYPES if symbols[t]},
            "wpn": sum(s["wpn"] for s in mine), "fighters": sum(s["fighters"] for s in mine),
            "firepower": sum(r["firepower"] for r in stats),
            "firepower_per_ship": sum(r["firepower"] for r in stats) / len(mine),
            "p_attack": sum(r["p_attack"] for r in stats) / len(mine),
            "fp_x_dur": fpdur, "vp_per_fpdur": vp / fpdur,
        })
    mean = sum(r["vp_per_fpdur"] for r in rows) / len(rows)
    for r in rows:
        r["relative"] = r["vp_per_fpdur"] / mean
    return rows


def fleet_table(per_ship: list[dict]) -> list[dict]:
    """Strength of the 6-ship single-race fleets ([IT] Regole Opzionali, "Giocare una gara
    singola": every player uses the same number of ships of one race; with six players the
    Tholians join the Orions): sum of firepower x durability, VP, and ratio to the mean."""
    groups = [(r, (r,)) for r in RACES[:5]] + [("orion+tholian", ("orion", "tholian"))]
    rows = []
    for name, members in groups:
        stats = [r for r in per_ship if r["race"] in members]
        rows.append({"fleet": name, "ships": len(stats), "vp": sum(r["vp"] for r in stats),
                     "strength": sum(r["fp_x_dur"] for r in stats)})
    mean = sum(r["strength"] for r in rows) / len(rows)
    for r in rows:
        r["relative"] = r["strength"] / mean
    return rows


def deck_share_table(cards, ships) -> list[dict]:
    """Per weapon type and per family: share among weapon cards vs share among all ships'
    weapon symbols (WPN symbols left out: they fire anything)."""
    cards = _rows(cards, "cards")
    ships = _rows(ships, "ships")
    nc = Counter(c["type"] for c in cards if c["type"] in FIRED_BY)
    ns = Counter()
    for s in ships:
        ns.update(s["weapons"])
    tc, ts = sum(nc.values()), sum(ns.values())
    rows = []
    for t in WEAPON_TYPES:
        rows.append({"type": t, "cards": nc[t], "deck_share": nc[t] / tc,
                     "symbols": ns[t], "ship_share": ns[t] / ts,
                     "diff": nc[t] / tc - ns[t] / ts})
    for fam, members in FAMILIES.items():
        c = sum(nc[t] for t in members)
        s = sum(ns[t] for t in members)
        rows.append({"type": "family:" + fam, "cards": c, "deck_share": c / tc,
                     "symbols": s, "ship_share": s / ts, "diff": c / tc - s / ts})
    return rows


# ---------------------------------------------------------------------------------------------
# Report

_ABBR = {"phaser1": "P1", "phaser2": "P2", "phaser3": "P3", "drone": "Dr", "photon": "Ph",
         "disruptor": "Di", "plasma_r": "R", "plasma_s": "S", "plasma_f": "F"}


def _fmt_syms(d):
    return " ".join(f"{_ABBR[t]}{n}" for t, n in d.items())


def main() -> None:
    cards, ships = load_cards(), load_ships()
    check_facts(cards, ships)
    print("check_facts: all known facts hold\n")

    counts = Counter(c["type"] for c in cards)
    print("Deck composition (90 cards)")
    for t in CARD_TYPES:
        vals = Counter(c["value"] for c in cards if c["type"] == t)
        vs = ", ".join(f"{v}x{n}" for v, n in sorted(vals.items())) if t in VALUE_RANGES or \
            t == "planet_based_fighters" else ""
        print(f"  {t:22s} {counts[t]:2d}  {vs}")
    nweap = sum(counts[t] for t in WEAPON_TYPES)
    print(f"  weapon cards {nweap}, other {len(cards) - nweap}\n")

    print("Per ship")
    print(f"  {'id':>2} {'race':10s} {'class':5s} {'name':16s} {'VP':>3} {'sp':>3} "
          f"{'fp':>5} {'P(att)':>6} {'VP/(fp*dur)':>11}  symbols")
    per_ship = ship_table(cards, ships)
    for r, s in zip(per_ship, ships):
        extra = (f" WPN{s['wpn']}" if s["wpn"] else "") + (f" FTR{s['fighters']}" if s["fighters"] else "")
        print(f"  {r['id']:2d} {r['race']:10s} {r['class']:5s} {r['name']:16s} {r['vp']:3d} "
              f"{r['spaces']:3d} {r['firepower']:5.2f} {r['p_attack']:6.1%} {r['vp_per_fpdur']:11.4f}  "
              f"{_fmt_syms(s['weapons'])}{extra} c{s['circles']}")
    print()

    table = balance_table(cards, ships, per_ship=per_ship)
    print(f"Per race (firepower: Monte Carlo, {MC_HANDS} hands, seed {MC_SEED})")
    print(f"  {'race':10s} {'ships':>5} {'VP':>4} {'VP/ship':>7} {'spaces':>6} {'fp/ship':>7} "
          f"{'P(att)':>6} {'fp*dur':>6} {'VP/(fp*dur)':>11} {'rel':>5}  symbols")
    for r in table:
        extra = (f" WPN{r['wpn']}" if r["wpn"] else "") + (f" FTR{r['fighters']}" if r["fighters"] else "")
        print(f"  {r['race']:10s} {r['ships']:5d} {r['total_vp']:4d} {r['vp_per_ship']:7.2f} "
              f"{r['spaces']:6d} {r['firepower_per_ship']:7.2f} {r['p_attack']:6.1%} "
              f"{r['fp_x_dur']:6.0f} {r['vp_per_fpdur']:11.4f} "
              f"{r['relative']:5.2f}  {_fmt_syms(r['symbols'])}{extra}")
    rel = [r["relative"] for r in table]
    print(f"  spread: min {min(rel):.3f}, max {max(rel):.3f} of the mean "
          f"(tolerance +-{RACE_TOLERANCE:.0%})\n")

    print("Single-race 6-ship fleets: sum of firepower x durability")
    fleets = fleet_table(per_ship)
    for r in fleets:
        print(f"  {r['fleet']:15s} ships {r['ships']}  VP {r['vp']:3d}  strength {r['strength']:6.1f}"
              f"  rel {r['relative']:.3f}")
    rel = [r["relative"] for r in fleets]
    print(f"  spread: min {min(rel):.3f}, max {max(rel):.3f} (tolerance +-{FLEET_TOLERANCE:.0%}); "
          f"lowest P(attack) of any ship {min(r['p_attack'] for r in per_ship):.1%}\n")

    print("Deck share of weapon cards vs share of ship weapon symbols (WPN left out)")
    print(f"  {'type':16s} {'cards':>5} {'deck':>6} {'symbols':>7} {'ships':>6} {'diff':>6}")
    for r in deck_share_table(cards, ships):
        print(f"  {r['type']:16s} {r['cards']:5d} {r['deck_share']:6.1%} {r['symbols']:7d} "
              f"{r['ship_share']:6.1%} {r['diff']:+6.1%}")


if __name__ == "__main__":
    main()
