"""Talon ship data (envs/talon/data/ships.json): shape, and the published cross-checks.

Every number in the file comes from the fan implementation [JMT] (artifact/Ship.js, Hull.js).
The checks below are the ones a primary text confirms; the comments cite them with the tags
defined in the file's "sources" (see also shared/reference/talon-data.md, section 4).
"""

import json
import re
from pathlib import Path

import pytest

SHIPS = Path(__file__).resolve().parents[1] / "envs" / "talon" / "data" / "ships.json"

FIELDS = {
    "key", "race", "class", "name", "points", "explosion", "curves", "start_curve", "shields",
    "hull", "groups", "battery", "afterburners", "counters", "advanced", "source", "doubts",
}
CLASSES = {"SC", "DD", "FF", "CL", "CA", "BC", "BB", "DN", "FTR", "CV", "Tran", "Base"}
ARCS = {"front", "right", "left", "rear"}
WEAPONS = {
    "terran": {"laser", "torpedo", "wave_cannon"},
    "talon": {"disruptor", "fusion_cannon", "missile"},
}
ADVANCED = {"12 fighters", "13 missiles", "14 bases", "15.1 wave cannon", "15.2 fusion cannon"}


def _load():
    with SHIPS.open(encoding="utf-8") as f:
        return json.load(f)


DATA = _load()
BY_KEY = {c["key"]: c for c in DATA["classes"]}


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def ship(key):
    return BY_KEY[key]


def criticals(c):
    return sum(1 for box in c["hull"] if box["critical"])


def group_of(c, weapon):
    groups = [g for g in c["groups"] if g["weapon"] == weapon]
    assert len(groups) == 1, (c["key"], weapon, groups)
    return groups[0]


def curve_at_speed(c, speed):
    (curve,) = [cv for cv in c["curves"] if cv[1] == speed]
    return curve


# ---------------------------------------------------------------------------------------------
# Shape


def test_top_level():
    assert set(DATA) == {"_about", "sources", "classes"}
    assert isinstance(DATA["_about"], str) and DATA["_about"]
    assert isinstance(DATA["sources"], dict) and DATA["sources"]
    for tag, text in DATA["sources"].items():
        assert isinstance(tag, str) and isinstance(text, str) and text
        # every source says where to find it: a URL or a seed file
        assert "http" in text or "shared/seeds/" in text, tag


def test_nineteen_classes_unique_keys_in_table_order():
    # reference section 4: 10 Terran + 9 Talon base-game classes, Talon first
    classes = DATA["classes"]
    assert len(classes) == 19
    keys = [c["key"] for c in classes]
    assert len(set(keys)) == 19
    races = [c["race"] for c in classes]
    assert races == ["talon"] * 9 + ["terran"] * 10
    assert {c["class"] for c in classes if c["race"] == "talon"} == {
        "Base", "BB", "BC", "CA", "CL", "DD", "DN", "FF", "Tran"}
    assert {c["class"] for c in classes if c["race"] == "terran"} == {
        "Base", "BB", "BC", "CA", "CL", "CV", "DD", "FTR", "SC", "Tran"}


@pytest.mark.parametrize("key", list(BY_KEY))
def test_class_fields_and_types(key):
    c = BY_KEY[key]
    assert set(c) == FIELDS
    assert c["race"] in ("terran", "talon")
    assert c["class"] in CLASSES
    assert c["key"] == f"{c['race']}_{c['class'].lower()}"
    assert c["name"] == f"{c['race'].capitalize()} {c['class']}"
    assert is_int(c["points"]) and c["points"] > 0
    assert is_int(c["explosion"]) and c["explosion"] >= 0

    # curves: [power, speed, turn_radius]; bases have no turn radius (IT2E 14)
    assert isinstance(c["curves"], list) and c["curves"]
    for curve in c["curves"]:
        assert isinstance(curve, list) and len(curve) == 3
        power, speed, turn = curve
        assert is_int(power) and is_int(speed)
        if c["class"] == "Base":
            assert turn is None
        else:
            assert is_int(turn) and turn >= 0
    assert is_int(c["start_curve"]) and 0 <= c["start_curve"] < len(c["curves"])

    assert isinstance(c["shields"], dict) and set(c["shields"]) == ARCS
    assert all(is_int(v) and v >= 0 for v in c["shields"].values())

    assert isinstance(c["hull"], list) and c["hull"]
    for box in c["hull"]:
        assert isinstance(box, dict) and set(box) == {"power", "critical"}
        assert is_int(box["power"]) and box["power"] <= 0
        assert isinstance(box["critical"], bool)

    assert isinstance(c["groups"], list)
    for g in c["groups"]:
        assert set(g) == {"weapon", "count", "arcs", "red", "yellow"}
        assert g["weapon"] in WEAPONS[c["race"]]
        assert is_int(g["count"]) and g["count"] >= 1
        assert isinstance(g["arcs"], list) and g["arcs"]
        assert set(g["arcs"]) <= ARCS and len(set(g["arcs"])) == len(g["arcs"])
        assert is_int(g["red"]) and g["red"] >= 1
        assert is_int(g["yellow"]) and g["yellow"] >= 0

    # batteries are Terran, afterburners Talon (IT2E 5.1, 10)
    assert c["battery"] in (0, 1) and is_int(c["battery"])
    assert is_int(c["afterburners"]) and c["afterburners"] >= 0
    if c["race"] == "talon":
        assert c["battery"] == 0
    else:
        assert c["afterburners"] == 0

    assert isinstance(c["counters"], list) and c["counters"]
    assert all(isinstance(n, str) and n for n in c["counters"])
    assert len(set(c["counters"])) == len(c["counters"])
    assert not any("Squadron" in n for n in c["counters"])

    assert isinstance(c["advanced"], list) and set(c["advanced"]) <= ADVANCED
    weapons = {g["weapon"] for g in c["groups"]}
    expected = set()
    # 12 fighters, 13 missiles and 14 bases are implemented (options fighters, missiles, bases:
    # game.unplayable_because); only what talon_v0 gates by a tag is left
    if "wave_cannon" in weapons:
        expected.add("15.1 wave cannon")
    if "fusion_cannon" in weapons:
        expected.add("15.2 fusion cannon")
    assert sorted(c["advanced"]) == sorted(expected)

    assert isinstance(c["source"], str) and c["source"].startswith("[JMT]")
    assert isinstance(c["doubts"], str)


def test_every_cited_tag_is_defined():
    cited = set()
    for c in DATA["classes"]:
        cited |= set(re.findall(r"\[([A-Z][A-Z0-9-]*)\]", c["source"] + " " + c["doubts"]))
    assert "JMT" in cited
    assert cited <= set(DATA["sources"]), cited - set(DATA["sources"])
    assert set(DATA["sources"]) <= cited  # no unused tag


def test_ships_in_the_rule_examples_carry_those_names():
    # Talon Tuesday 2 (TT2): Patton, Napoleon, Guderian vs Service, Sacrifice, Justice;
    # BGG thread (BGG-W): Unity, Zhukov; Talon 15.2 (IT2E): BB Eviscerator, CA Justice and
    # Guderian; Talon 13.6 (IT2E): Defiant; TT22: Terran DD Achilles, Talon CL Fearless.
    # Reference [JMT] Ship.js names.
    assert {"Patton", "Napoleon", "Guderian", "Zhukov"} <= set(ship("terran_ca")["counters"])
    assert {"Service", "Sacrifice", "Justice", "Unity"} <= set(ship("talon_ca")["counters"])
    assert "Eviscerator" in ship("talon_bb")["counters"]
    assert "Defiant" in ship("terran_bb")["counters"]
    assert "Achilles" in ship("terran_dd")["counters"]
    assert "Fearless" in ship("talon_cl")["counters"]
    names = [n for c in DATA["classes"] for n in c["counters"]]
    assert len(names) == len(set(names))


# ---------------------------------------------------------------------------------------------
# Terran CA


def test_terran_ca_curve_explosion_points():
    # Talon 5.4 (IT2E): "Heavy Cruiser (CA) 1 5 3 / 2 4 2 / 3 3 2 / 4 2 1 / 5 1 1,
    # Explosion: 3, Sp 115"; 5.4.1: the Terran CA's starting curve is 3-3-2. Reference [JMT]
    ca = ship("terran_ca")
    assert ca["curves"] == [[1, 5, 3], [2, 4, 2], [3, 3, 2], [4, 2, 1], [5, 1, 1]]
    assert ca["curves"][ca["start_curve"]] == [3, 3, 2]
    assert ca["explosion"] == 3
    assert ca["points"] == 115


def test_terran_ca_six_hull_boxes():
    # Talon 11.1.3 (IT2E): FTL comes online in the round equal to the number of hull boxes;
    # the Terran CA example says round 6. Reference [JMT]
    assert len(ship("terran_ca")["hull"]) == 6


def test_napoleon_after_three_boxes_marked_shows_minus_one():
    # Talon 8.4.2 (IT2E): the Napoleon has 3 hull boxes marked, the left-most remaining shows
    # "-1"; at speed 3 the curve 3-3-2 becomes 2-3-2. Reference [JMT]
    ca = ship("terran_ca")
    modifier = ca["hull"][3]["power"]
    assert modifier == -1
    power, speed, turn = curve_at_speed(ca, 3)
    assert [power + modifier, speed, turn] == [2, 3, 2]


def test_guderian_last_box_shows_minus_two():
    # Talon 5.4.5 (IT2E) / 1E excerpt (EN1E): the Guderian has 1 hull box left, showing -2; at
    # 1-5-3 she would have negative Power, so she drops to 2-4-2, which becomes 0-4-2.
    # Reference [JMT]
    ca = ship("terran_ca")
    modifier = ca["hull"][-1]["power"]
    assert modifier == -2
    assert curve_at_speed(ca, 5)[0] + modifier < 0
    power, speed, turn = curve_at_speed(ca, 4)
    assert [power + modifier, speed, turn] == [0, 4, 2]


def test_zhukov_one_laser_per_side():
    # BGG thread (BGG-W): the Zhukov has one phaser per side. Reference [JMT]
    lasers = [g for g in ship("terran_ca")["groups"] if g["weapon"] == "laser"]
    assert sorted(g["count"] for g in lasers) == [1, 1]
    assert sorted(tuple(sorted(g["arcs"])) for g in lasers) == [("front", "left"), ("front", "right")]


# ---------------------------------------------------------------------------------------------
# Talon ships


def test_talon_bc_weapon_groups_and_afterburners():
    # Talon 2.6 (IT2E): 3 weapon groups -- missiles, 3 launchers, 2 red boxes; a double
    # disruptor group firing front/left/right with 1 red + 4 yellow; a single front-arc
    # disruptor group with 1 red + 2 yellow; 2 afterburners. Talon 9.2.1 (IT2E): "2 Disruptors,
    # 1 red + 4 yellow". Reference [JMT]
    bc = ship("talon_bc")
    assert len(bc["groups"]) == 3
    missiles = group_of(bc, "missile")
    assert missiles["count"] == 3 and missiles["red"] == 2
    disruptors = sorted((g for g in bc["groups"] if g["weapon"] == "disruptor"),
                        key=lambda g: g["count"])
    single, double = disruptors
    assert double["count"] == 2
    assert set(double["arcs"]) == {"front", "left", "right"}
    assert (double["red"], double["yellow"]) == (1, 4)
    assert single["count"] == 1
    assert single["arcs"] == ["front"]
    assert (single["red"], single["yellow"]) == (1, 2)
    assert bc["afterburners"] == 2


def test_talon_ca_start_curve_and_four_disruptors():
    # madpadre play report (MP): the Talon CA starts at 3-3-1 and the Terran CA at 3-3-2;
    # BGG thread (BGG-W): the Unity has two bars with 2 disruptors each. Reference [JMT]
    ca = ship("talon_ca")
    assert ca["curves"][ca["start_curve"]] == [3, 3, 1]
    terran = ship("terran_ca")
    assert terran["curves"][terran["start_curve"]] == [3, 3, 2]
    assert [g["count"] for g in ca["groups"] if g["weapon"] == "disruptor"] == [2, 2]


def test_cruisers_explode_for_three():
    # Talon 15.2 (IT2E) example: Justice (Talon CA) and Guderian (Terran CA) would deal 3
    # explosion damage. Reference [JMT] Hull.js
    assert ship("talon_ca")["explosion"] == 3
    assert ship("terran_ca")["explosion"] == 3


def test_talon_dn_and_ff_points():
    # Talon Tuesday 31 (TT31): "DN(218 SP)+FF(44 SP)+FF(44 SP)". Reference [JMT]
    assert ship("talon_dn")["points"] == 218
    assert ship("talon_ff")["points"] == 44


def test_fearless_three_forward_disruptors_and_afterburners():
    # Talon Tuesday 22 (TT22): the Talon CL Fearless has 3 forward disruptors and afterburners.
    # Reference [JMT]
    cl = ship("talon_cl")
    assert sum(g["count"] for g in cl["groups"]
               if g["weapon"] == "disruptor" and "front" in g["arcs"]) == 3
    assert cl["afterburners"] > 0


def test_eviscerator_has_a_fusion_cannon():
    # Talon 15.2 (IT2E) example: the Talon BB Eviscerator fires its fusion cannon. Reference [JMT]
    assert "front" in group_of(ship("talon_bb"), "fusion_cannon")["arcs"]


# ---------------------------------------------------------------------------------------------
# Other Terran ships


def test_terran_torpedoes_fire_in_three_arcs():
    # Talon Tuesday 22 (TT22): the Terran DD's torpedoes fire forward and left/right;
    # Talon Tuesday 19 (TT19): the Terran CL torpedo is "fired in 3 different arcs". Reference [JMT]
    assert set(group_of(ship("terran_dd"), "torpedo")["arcs"]) == {"front", "left", "right"}
    assert len(group_of(ship("terran_cl"), "torpedo")["arcs"]) == 3


def test_terran_bb_wave_cannon_bar_and_defiant_right_lasers():
    # Talon 8.1.1 (IT2E): the BB's wave cannon charge bar is split on the counter (2 red +
    # 5 yellow); 15.1 (IT2E): the Terran BB fires its wave cannon; 13.6 (IT2E): the Defiant
    # fires a second laser from its right weapon group. Reference [JMT]
    bb = ship("terran_bb")
    wave = group_of(bb, "wave_cannon")
    assert (wave["red"], wave["yellow"]) == (2, 5)
    right = [g for g in bb["groups"] if g["weapon"] == "laser" and "right" in g["arcs"]]
    assert len(right) == 1 and right[0]["count"] >= 2


def test_fighters():
    # Talon 12.1.2 (IT2E): fighters have no shields and a minimum speed of 5; 8.6.4 and 12.1.2
    # (IT2E): fighters cause no explosion damage. Reference [JMT]
    ftr = ship("terran_ftr")
    assert all(v == 0 for v in ftr["shields"].values())
    assert all(speed >= 5 for _, speed, _ in ftr["curves"])
    assert ftr["explosion"] == 0
    assert ftr["doubts"]  # hull boxes per fighter are not confirmed


def test_bases_power_does_not_change_with_speed():
    # Talon 14 (IT2E): a base's Power does not depend on its speed and its curve has no turn
    # radius; the Talon 1000 rules imply ordinary Bases have Power 6. Reference [JMT]
    for key in ("talon_base", "terran_base"):
        assert {power for power, _, _ in ship(key)["curves"]} == {6}
        assert all(turn is None for _, _, turn in ship(key)["curves"])


# ---------------------------------------------------------------------------------------------
# Critical hull boxes


def test_critical_box_counts():
    # Talon Tuesday 17 (TT17): "most Terran ships have one ... most Talon ships have two".
    # Reference [JMT]: Terran 1 each except CV 2 and SC/FTR 0; Talon 2 each except FF and Tran 1.
    # Talon 2.6 (IT2E): the Talon BC has "2 box di colpi assorbibili dallo scafo".
    expected = {
        "terran_base": 1, "terran_bb": 1, "terran_bc": 1, "terran_ca": 1, "terran_cl": 1,
        "terran_cv": 2, "terran_dd": 1, "terran_ftr": 0, "terran_sc": 0, "terran_tran": 1,
        "talon_base": 2, "talon_bb": 2, "talon_bc": 2, "talon_ca": 2, "talon_cl": 2,
        "talon_dd": 2, "talon_dn": 2, "talon_ff": 1, "talon_tran": 1,
    }
    assert {key: criticals(c) for key, c in BY_KEY.items()} == expected


def test_critical_boxes_with_a_modifier_are_flagged_as_doubtful():
    # reference section 4 caveat: whether the printed critical symbol replaces the number is
    # not shown by any primary source, so every such class says so in "doubts".
    for c in DATA["classes"]:
        if any(box["critical"] and box["power"] != 0 for box in c["hull"]):
            assert "critical" in c["doubts"], c["key"]


def test_a_ships_file_whose_boxes_overflow_the_state_is_refused(tmp_path):
    # ship rows are int16 (talon/game.py state_spec): a class file beyond MAX_BOXES is refused
    from wargym.envs.talon import game
    data = _load()
    data["classes"][0]["shields"]["front"] = 40000
    path = tmp_path / "ships.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="shield boxes, charge boxes and power curves"):
        game.load_ships(path)
    assert len(game.load_ships()) == 19      # the shipped file passes
