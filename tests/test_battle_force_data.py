"""Star Fleet Battle Force data (envs/battle_force/data/cards.json, ships.json).

Most numbers in these files are reconstructed (the real deck composition and 34 of the 36 ship
cards are not published; see envs/battle_force/data/DATA.md). These tests hold the files to
every fact the sources DO fix, to the provenance bookkeeping, and to the balance tolerances
stated in balance.py. Source tags: [IT] = Italian rulebook, seed shared/seeds/001_ee12ff1c50f1cb25.txt
(l. = line); [KU], [FCB07], [BBS] as in shared/reference/sfbf-data.md.

balance.py is loaded by path, so the test does not depend on envs/battle_force/__init__.py.
"""

import copy
import importlib.util
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "envs" / "battle_force" / "data"
_spec = importlib.util.spec_from_file_location("sfbf_balance", DATA / "balance.py")
B = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(B)

CARDS = B.load_cards(DATA / "cards.json")
SHIPS = B.load_ships(DATA / "ships.json")


@pytest.fixture(scope="module")
def per_ship():
    return B.ship_table(CARDS, SHIPS)


# ---------------------------------------------------------------------------------------------
# Known facts


def test_check_facts_on_shipped_files():
    B.check_facts(CARDS, SHIPS)


def test_deck_counts():
    # SFBF Componenti (l.39): 90 Action cards
    assert len(CARDS) == 90
    counts = Counter(c["type"] for c in CARDS)
    # Lista e traduzione delle carte azione (l.701-733): 28 card types, all present
    assert set(counts) == set(B.CARD_TYPES) and len(counts) == 28
    # Gioco base (l.35): "le due carte Pianeta-Base Caccia"
    assert counts["planet_based_fighters"] == 2
    # Tattiche 6 (l.631): "C'è una sola carta Allontanarsi"
    assert counts["disengage"] == 1


def test_printed_value_ranges():
    # Lista e traduzione delle carte azione: Phaser-1 2/3/4, Phaser-2 2/3, Phaser-3 1/2,
    # Drone 3/4/5, Photon 5/6, Disruptor 3/4/5, Plasma-R "7 o 9", Plasma-S 5/6, Plasma-F 2/3,
    # ECM 3/4, Erratic Maneuvers 4, Reinforce Shields 3, Damage Control 2/3/4
    for c in CARDS:
        if c["type"] in B.VALUE_RANGES:
            assert c["value"] in B.VALUE_RANGES[c["type"]], c
    assert {c["value"] for c in CARDS if c["type"] == "plasma_r"} == {7, 9}


def test_defence_symbols():
    # Le Carte (l.74-78): D / P / F / PF symbols; C2 (l.273-275): Plasma-F cannot stop drones;
    # F3 (l.425): Photon and Disruptor cannot fire at fighters
    for c in CARDS:
        if c["type"] == "plasma_f":
            assert "drone" not in c["defends"]
        if c["type"] in ("photon", "disruptor"):
            assert c["defends"] == ["pf"]
        if c["type"].startswith("phaser"):
            assert set(c["defends"]) == {"drone", "plasma", "fighter", "pf"}
        # Raggio di Azione (l.511): Phaser-3 and Plasma-F are the range-limited cards
        assert c["range_limited"] == (c["type"] in ("phaser3", "plasma_f"))


def test_ship_split_by_race():
    # SFBF Componenti (l.45): 36 ships split 6/6/6/6/6/3/3
    assert len(SHIPS) == 36
    assert Counter(s["race"] for s in SHIPS) == {
        "federation": 6, "klingon": 6, "romulan": 6, "gorn": 6, "kzinti": 6,
        "orion": 3, "tholian": 3}


def test_constellation():
    # SFBF Componenti (l.45-47), confirmed by [KU]
    (s,) = [s for s in SHIPS if s["name"] == "Constellation"]
    assert (s["race"], s["class"], s["class_name"]) == ("federation", "CA", "Heavy Cruiser")
    assert s["weapons"] == {"photon": 2, "drone": 1, "phaser1": 2}
    assert (s["circles"], s["vp"], s["fighters"], s["wpn"]) == (3, 8, 0, 0)


def test_klingon_d7():
    # Sequenza di combattimento 4.3 (l.227): D7 = 2 disruptor, 1 drone, 1 Ph-1, 1 Ph-2;
    # name per [FCB07]
    (s,) = [s for s in SHIPS if s["race"] == "klingon" and s["class"] == "D7"]
    assert s["weapons"] == {"disruptor": 2, "drone": 1, "phaser1": 1, "phaser2": 1}
    assert s["name"] == "Thunderchild"
    assert s["provenance"]["weapons"] == "rulebook"
    assert s["provenance"]["name"] == "reference"


def test_vp_range_and_extremes():
    # [KU]: VP from 4 (Kzinti frigate) to 16 (Romulan dreadnought)
    vps = [s["vp"] for s in SHIPS]
    assert min(vps) == 4 and max(vps) == 16
    assert [(s["race"], s["class"]) for s in SHIPS if s["vp"] == 4] == [("kzinti", "FF")]
    assert [(s["race"], s["class"]) for s in SHIPS if s["vp"] == 16] == [("romulan", "DN")]


def test_known_classes_present():
    # Tattiche 7 (l.635): Klingon C8; [FCB07]: Klingon carrier, Tholian DN and CW, Gorn DD and BC,
    # Federation FF, Orion BR and LR; [KU]: Kzinti frigate, Romulan dreadnought
    have = {(s["race"], s["class"]) for s in SHIPS}
    for rc in [("klingon", "C8"), ("tholian", "DN"), ("tholian", "CW"), ("gorn", "DD"),
               ("gorn", "BC"), ("federation", "FF"), ("orion", "BR"), ("orion", "LR"),
               ("kzinti", "FF"), ("romulan", "DN")]:
        assert rc in have, rc
    assert any(s["race"] == "klingon" and s["fighters"] == 2 for s in SHIPS)


def test_special_symbols_by_race():
    for s in SHIPS:
        # I caccia sulle navi, F1 (l.415): every carrier of the base set has two squadrons
        assert s["fighters"] in (0, 2)
        # Regole sull'Occultamento (l.455): Romulan and Orion ships cloak
        assert s["cloak"] == (s["race"] in ("romulan", "orion"))
        # Regole sulla Ragnatela Toliana: Tholian ships web
        assert s["web"] == (s["race"] == "tholian")
        # Armi opzionali di Orione (l.317-327): WPN symbols on Orion ships
        assert (s["wpn"] > 0) == (s["race"] == "orion")
        # 4.5 Risoluzione: damage spaces; kept at most 14
        assert B.damage_spaces(s) <= 14
    # the unverified "Klingon ship with plasma" hint (Tattiche 2, l.607) is not reproduced
    assert not any(t.startswith("plasma") for s in SHIPS if s["race"] == "klingon"
                   for t in s["weapons"])


# ---------------------------------------------------------------------------------------------
# Provenance


def test_every_card_has_provenance():
    for c in CARDS:
        assert c["provenance"] in ("rulebook", "reconstructed"), c
        assert isinstance(c["source"], str) and len(c["source"]) > 20, c
        # only copies whose count a source fixes are "rulebook"
        if c["provenance"] == "rulebook":
            assert c["type"] in ("planet_based_fighters", "disengage"), c
    assert sum(c["provenance"] == "rulebook" for c in CARDS) == 3


def test_every_ship_has_provenance():
    keys = {"name", "class", "weapons", "circles", "vp", "fighters", "cloak_web"}
    for s in SHIPS:
        assert set(s["provenance"]) == keys, s["name"]
        assert set(s["provenance"].values()) <= {"rulebook", "reference", "reconstructed"}
        assert isinstance(s["source"], str) and len(s["source"]) > 20, s["name"]
    # reconstructed rows outnumber sourced ones: the flag must be there to say so
    assert sum(s["provenance"]["vp"] == "reconstructed" for s in SHIPS) == 33
    assert sum(s["provenance"]["weapons"] == "rulebook" for s in SHIPS) == 2


def test_files_document_their_sources():
    import json
    for name in ("cards.json", "ships.json"):
        doc = json.loads((DATA / name).read_text(encoding="utf-8"))
        assert {"title", "sources", "notes"} <= set(doc)
        for tag in ("IT", "KU", "FCB07", "BBS"):
            assert tag in doc["sources"]


# ---------------------------------------------------------------------------------------------
# check_facts catches violations


def _broken(mutate):
    cards, ships = copy.deepcopy(CARDS), copy.deepcopy(SHIPS)
    mutate(cards, ships)
    with pytest.raises(AssertionError):
        B.check_facts(cards, ships)


def test_check_facts_rejects_bad_data():
    def third_pbf(cards, ships):
        cards[0]["type"], cards[0]["value"] = "planet_based_fighters", 3
    def bad_value(cards, ships):
        next(c for c in cards if c["type"] == "phaser2")["value"] = 4
    def constellation_vp(cards, ships):
        next(s for s in ships if s["name"] == "Constellation")["vp"] = 9
    def one_ftr(cards, ships):
        next(s for s in ships if s["fighters"])["fighters"] = 1
    def uncloaked_romulan(cards, ships):
        next(s for s in ships if s["race"] == "romulan")["cloak"] = False
    def wrong_split(cards, ships):
        next(s for s in ships if s["race"] == "gorn")["race"] = "klingon"
    def no_provenance(cards, ships):
        del cards[5]["provenance"]
    for m in (third_pbf, bad_value, constellation_vp, one_ftr, uncloaked_romulan, wrong_split,
              no_provenance):
        _broken(m)


# ---------------------------------------------------------------------------------------------
# The firepower model


def _ship(weapons, wpn=0):
    return {"weapons": weapons, "wpn": wpn, "fighters": 0}


def test_best_attack_hierarchy_and_wpn():
    # card table "Testo": Ph-1 fires Ph-2/Ph-3, Plasma-R fires S/F; 4.3: one card per symbol
    assert B.best_attack(_ship({"phaser1": 1}), [("phaser2", 3), ("phaser3", 2)]) == 3
    assert B.best_attack(_ship({"phaser3": 1}), [("phaser1", 4)]) == 0
    assert B.best_attack(_ship({"plasma_r": 1, "plasma_f": 1}),
                         [("plasma_s", 6), ("plasma_f", 3)]) == 9
    # the assignment is optimal, not greedy: Ph-3 card must go to the Ph-3 symbol
    assert B.best_attack(_ship({"phaser1": 1, "phaser3": 1}),
                         [("phaser3", 2), ("phaser1", 2)]) == 4
    # Armi opzionali di Orione: WPN fires any card but Plasma-R; Plasma-S takes two WPN
    assert B.best_attack(_ship({}, wpn=1), [("plasma_r", 9)]) == 0
    assert B.best_attack(_ship({}, wpn=1), [("plasma_s", 6)]) == 0
    assert B.best_attack(_ship({}, wpn=2), [("plasma_s", 6), ("drone", 5)]) == 6
    assert B.best_attack(_ship({}, wpn=3), [("plasma_s", 6), ("drone", 5)]) == 11


# ---------------------------------------------------------------------------------------------
# Balance tolerances (see DATA.md, "How balance was checked")


def test_race_balance_within_tolerance(per_ship):
    rows = B.balance_table(CARDS, SHIPS, per_ship=per_ship)
    assert [r["race"] for r in rows] == list(B.RACES)
    for r in rows:
        assert abs(r["relative"] - 1) <= B.RACE_TOLERANCE, (r["race"], r["relative"])


def test_single_race_fleets_within_tolerance(per_ship):
    # Regole Opzionali, "Giocare una gara singola" (l.671-675): same number of ships per race;
    # with six players the Tholians join the Orions
    for r in B.fleet_table(per_ship):
        assert r["ships"] == 6
        assert abs(r["relative"] - 1) <= B.FLEET_TOLERANCE, (r["fleet"], r["relative"])


def test_ships_can_usually_attack(per_ship):
    for r in per_ship:
        assert r["p_attack"] >= B.MIN_P_ATTACK, (r["name"], r["p_attack"])


def test_deck_shares_match_ship_shares():
    # [BBS]: the weapon-card mix is tuned to the ship weapon mix
    for r in B.deck_share_table(CARDS, SHIPS):
        assert abs(r["diff"]) <= B.SHARE_TOLERANCE, r


def test_balance_by_play_script_runs_and_counts_every_game():
    # issue 14 item 7: data/playtest.py plays whole games (the table in DATA.md section 3b)
    import numpy as np
    from wargym.envs.battle_force.data import playtest
    races, share = playtest.two_player_single_race(1, seed=0)
    assert races.shape == (42, 2) and (races[:, 0] != races[:, 1]).all()
    ok = ~np.isnan(share[:, 0])
    assert np.allclose(share[ok].sum(1), 1.0)           # a win, or a win shared
    rows = playtest.race_rows(races, share)
    assert [r[1] for r in rows] == [12] * 7 or sum(r[1] for r in rows) <= 84
    lo, hi = playtest.wilson(50, 100)
    assert abs(lo - 0.4038) < 1e-3 and abs(hi - 0.5962) < 1e-3
