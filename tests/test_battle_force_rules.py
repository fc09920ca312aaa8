"""Star Fleet Battle Force rules (seed 001, the Italian rulebook): each test cites the heading it
checks (``# SFBF <heading>``) and asserts exact outcomes from scripted cards and dice.

Games start from scenarios (``game.apply_scenario``); steps with a single legal action are taken
by the core, so after every action the game waits at the next real decision.  Card ids come
from ``data/cards.json`` by type and printed value; ship 1 is the Constellation (2 photon,
1 drone, 2 Ph-1, 3 circles: 8 spaces, 8 VP), ship 7 the D7 Thunderchild (Ph-1, Ph-2, drone,
2 disruptors, 3 circles: 8 spaces, 8 VP).  Big targets (the C8 Invincible, 13 spaces) take a
whole attack without being destroyed, so the damage placed is the attack's exact total.
"""
from __future__ import annotations

import numpy as np
import pytest
from wargym.envs.battle_force import game as G
from wargym.envs.battle_force import rules as R
from wargym.envs.core.vec import VecGame

CARDS = G.load_cards()
SHIPS = G.load_ships()


def cid(typ, value=None, nth=0):
    ids = [i for i, c in enumerate(CARDS) if c["type"] == typ and (value is None or c.get("value", 0) == value)]
    return ids[nth]


def sid(name):
    return [s["name"] for s in SHIPS].index(name)


PH1_2, PH1_3, PH1_4, PH1_4B = cid("phaser1", 2), cid("phaser1", 3), cid("phaser1", 4), cid("phaser1", 4, 1)
PH2_2, PH2_3, PH3_1, PH3_2 = cid("phaser2", 2), cid("phaser2", 3), cid("phaser3", 1), cid("phaser3", 2)
DR3, DR4, DR5 = cid("drone", 3), cid("drone", 4), cid("drone", 5)
PHO5, PHO6 = cid("photon", 5), cid("photon", 6)
DIS3, DIS4, DIS5 = cid("disruptor", 3), cid("disruptor", 4), cid("disruptor", 5)
PLR7, PLR9, PLS5, PLS6, PLF2, PLF3 = (cid("plasma_r", 7), cid("plasma_r", 9), cid("plasma_s", 5),
                                      cid("plasma_s", 6), cid("plasma_f", 2), cid("plasma_f", 3))
OVL, ENV, SCAT, LG = cid("overload"), cid("enveloper"), cid("scatterpack"), cid("legendary_gunner")
ECCM, EM, ECM3, ECM4, RS = cid("eccm"), cid("erratic_maneuvers"), cid("ecm", 3), cid("ecm", 4), \
    cid("reinforce_shields")
EM2 = cid("erratic_maneuvers", nth=1)
WW, TB, DISENGAGE = cid("wild_weasel"), cid("tractor_beam"), cid("disengage")
DC2, DC3, LENG, REINF = cid("damage_control", 2), cid("damage_control", 3), cid("legendary_engineer"), \
    cid("reinforcements")
PBF, PBF2, PF, MUTINY, CEASE, PRIME = (cid("planet_based_fighters"), cid("planet_based_fighters", nth=1),
                                       cid("pf_flotilla"), cid("klingon_mutiny"), cid("organian_ceasefire"),
                                       cid("prime_team"))

# -- cores, reused across tests (compiling the kernels is the slow part) -------------------------
_CORES: dict = {}


def core(**opts):
    key = tuple(sorted(opts.items()))
    if key not in _CORES:
        _CORES[key] = VecGame(G, 1, opts)
    return _CORES[key]


def start(players, dice=(), seed=0, opts=None, **sc):
    """Load a scenario (players given as dicts) and script the dice that follow."""
    v = core(**(opts or {}))
    v.load_scenario({"players": players, "active": 0, "phase": "attack", **sc}, seed=seed)
    if dice:
        v.script_dice(0, dice)
    return v


def pl(hand=(), ships=(), reserve=(), destroyed=()):
    d = {"hand": list(hand), "ships": [s if isinstance(s, dict) else {"ship": s} for s in ships]}
    if reserve:
        d["reserve"] = list(reserve)
    if destroyed:
        d["destroyed"] = list(destroyed)
    return d


def ship(name, line="screen", **kw):
    return {"ship": name, "line": line, **kw}


# -- reading the state --------------------------------------------------------------------------
def g(v, col):
    return int(v.state.g[0, col])


def stage(v):
    return g(v, R.G_STAGE)


def stage_name(v):
    return G.STAGE_NAMES[stage(v)]


def sh(v, name, col):
    return int(v.state.sh[0, sid(name), col])


def cov(v, name, kind=None):
    """Damage markers on a ship (all spaces, or one kind)."""
    row = v.state.sh[0, sid(name), R.SH_COV:R.SH_COV + R.N_KIND]
    return int(row.sum()) if kind is None else int(row[G.SPACE_KINDS.index(kind)])


def loc(v, c):
    return int(v.state.cd[0, c, R.CD_LOC])


def plv(v, p, col):
    return int(v.state.pl[0, p, col])


def hand(v, p):
    return sorted(int(c) for c in np.flatnonzero((v.state.cd[0, :, R.CD_LOC] == R.CL_HAND)
                                                  & (v.state.cd[0, :, R.CD_WHO] == p)))


def reserve(v, p):
    return sorted(int(c) for c in np.flatnonzero((v.state.cd[0, :, R.CD_LOC] == R.CL_RES)
                                                  & (v.state.cd[0, :, R.CD_WHO] == p)))


def line(v, name):
    return G.LINE_NAMES[sh(v, name, R.SH_LINE)]


# -- playing ---------------------------------------------------------------------------------------
def A(v, family, arg=0):
    return G.action_index(v.cfg, family, arg)


def play(v, family, arg=0):
    """Take one action, asserting first that it is legal (and that the mask agrees)."""
    a = A(v, family, arg)
    why = v.why_illegal(0, a)
    assert why is None, f"at '{stage_name(v)}': {why}"
    assert v.mask[0, a] == 1, f"at '{stage_name(v)}': {v.action_name(a)} legal but not in the mask"
    v.step(np.array([a]))


def illegal(v, family, arg, reason):
    """Assert the action is illegal for the given reason (a code R.R_*), mask included."""
    a = A(v, family, arg)
    why = v.why_illegal(0, a)
    assert why is not None, f"{v.action_name(a)} is legal at '{stage_name(v)}'"
    assert G.REASONS[reason] in why, why
    assert v.mask[0, a] == 0


def legal(v, family, arg=0):
    return v.why_illegal(0, A(v, family, arg)) is None


def card(v, c, link=None):
    """Play card c; ``link``: the card it applies to, chosen if the game asks (else checked)."""
    play(v, "CARD", c)
    if link is not None:
        if stage(v) == R.ST_LINK:
            play(v, "CARD", link)
        if loc(v, c) in (R.CL_ATK, R.CL_DEF):    # (still on the table: the attack is not over)
            assert int(v.state.cd[0, c, R.CD_LINK]) == link


def move(v, name, to):
    """SFBF Sequenza di gioco 3 (X): a formation change (the destination asked only if there is a choice)."""
    pick(v, name)
    if stage(v) == R.ST_FORM_DEST:
        play(v, "LINE", to)
    assert line(v, name) == to


def pick(v, name):
    play(v, "SHIP", sid(name))


def done(v):
    play(v, "NAMED", "done / pass")


def end_cards(v):
    """SFBF 4.3: the attacker has played its attack cards (after its last card the step ends by itself)."""
    if stage(v) == R.ST_ATK_CARDS:
        done(v)


def named(v, name):
    play(v, "NAMED", name)


def attack(v, attacker, target, *cards):
    """SFBF 4.1-4.3: attacking ship, target, attack cards (a card or (card, linked card)), done."""
    assert stage(v) == R.ST_ATTACK, stage_name(v)
    pick(v, attacker)
    if stage(v) == R.ST_TARGET:
        pick(v, target)
    assert g(v, R.G_TARGET) == sid(target)
    for c in cards:
        if isinstance(c, tuple):
            card(v, *c)
        else:
            card(v, c)


def pending_damage(v, target):
    """At the damage placement step for ``target``: the markers still to place."""
    assert stage(v) == R.ST_PLACE, stage_name(v)
    assert g(v, R.G_DMG_SHIP) == sid(target)
    return g(v, R.G_DMG_LEFT)


def place_all(v):
    """The defender places the remaining markers, circles first."""
    order = ["circle"] + [k for k in G.SPACE_KINDS if k != "circle"]
    for _ in range(40):
        if stage(v) != R.ST_PLACE:
            return
        for k in order:
            if legal(v, "KIND", k):
                play(v, "KIND", k)
                break
    raise AssertionError("damage placement did not end")


WINDOWS = (R.ST_ATK_CARDS, R.ST_DEFENCE, R.ST_REACT, R.ST_FTR_DEF, R.ST_PF_FIRE)


def hit(v, target):
    """Everyone passes until the attack resolves; the defender places the markers (SFBF 4.5).
    Returns the damage the target took: the markers it was asked to place, which must equal the
    markers added (tests keep the target alive)."""
    before = cov(v, target)
    for _ in range(10):
        if stage(v) not in WINDOWS:
            break
        done(v)
    asked = pending_damage(v, target) if stage(v) == R.ST_PLACE else None
    place_all(v)
    assert sh(v, target, R.SH_LOC) == R.SL_FLEET, f"{target} was destroyed"
    taken = cov(v, target) - before
    assert asked is None or asked == taken
    return taken


def discarded(v, *cs):
    return all(loc(v, c) == R.CL_DISC for c in cs)


C8 = "Invincible"      # Klingon C8: 2 Ph-1, Ph-2, 2 drones, 4 disruptors, 4 circles = 13 spaces, 15 VP
D7 = "Thunderchild"
CA = "Constellation"


def duel(p0_hand, p1_hand, p0_ships=(CA, "Valiant"), p1_ships=(C8, D7), dice=(), opts=None, **sc):
    return start([pl(p0_hand, p0_ships), pl(p1_hand, p1_ships)], dice=dice, opts=opts, **sc)


# =================================================================================================
# 4.3 attack cards
# =================================================================================================
def test_one_card_per_weapon_and_phaser1_fires_phaser2_and_3():
    # SFBF 4.3 Carte: one attack card per weapon; a Ph-1 ship also fires Ph-2 (and Ph-3, card list)
    v = duel([PH1_4, PH1_3, PH2_3, PH3_2, PHO6], [])
    attack(v, CA, C8, PH1_4)
    assert legal(v, "CARD", PH2_3) and legal(v, "CARD", PH3_2)
    card(v, PH3_2)                       # the second Ph-1 symbol fires the Phaser-3
    illegal(v, "CARD", PH1_3, R.R_NO_WEAPON)
    illegal(v, "CARD", PH2_3, R.R_NO_WEAPON)
    card(v, PHO6)
    end_cards(v)
    assert hit(v, C8) == 4 + 2 + 6
    assert cov(v, C8) == 12
    assert discarded(v, PH1_4, PH3_2, PHO6)
    assert hand(v, 0) == sorted([PH1_3, PH2_3])


def test_phaser2_ship_cannot_fire_phaser1():
    # SFBF Lista delle carte azione: Ph-2 "può essere usata da nave dotata di Phaser-1", not the reverse
    v = duel([PH1_4, PH2_3, PH2_2], [], p0_ships=("Ravager", "Valiant"))      # D5: 2 Ph-2, drone, 2 disruptors
    attack(v, "Ravager", C8)
    illegal(v, "CARD", PH1_4, R.R_NO_WEAPON)
    card(v, PH2_3)


def test_plasma_r_fires_plasma_s_and_f_one_card_per_symbol():
    # SFBF Lista delle carte azione: Plasma-S and Plasma-F "può essere usata da nave dotata di Plasma-R"
    v = duel([PLS6, PLF3, PLR9, PH1_2], [], p0_ships=("Remus", "Valiant"))    # Remus: 2 Ph-1, Ph-3, 1 Plasma-R
    attack(v, "Remus", C8)
    assert legal(v, "CARD", PLS6) and legal(v, "CARD", PLF3) and legal(v, "CARD", PLR9)
    card(v, PLS6)
    illegal(v, "CARD", PLF3, R.R_NO_WEAPON)
    illegal(v, "CARD", PLR9, R.R_NO_WEAPON)
    end_cards(v)
    assert hit(v, C8) == 6


def test_plasma_s_ship_cannot_fire_plasma_r():
    # SFBF Lista delle carte azione: Plasma-F on a Plasma-S ship, never Plasma-R
    v = duel([PLR9, PLF2, PH1_2], [], p0_ships=("Velociraptor", "Valiant"))  # Ph-1, Ph-3, Plasma-S, Plasma-F
    attack(v, "Velociraptor", C8)
    illegal(v, "CARD", PLR9, R.R_NO_WEAPON)
    card(v, PLF2)


def test_orion_wpn_fires_anything_but_plasma_r_and_plasma_s_takes_two():
    # SFBF Armi opzionali di Orione: WPN = any weapon but Plasma-R; a Plasma-S uses two WPN
    v = duel([PLR9, PLS5, PHO5, DIS4, PH1_2], [], p0_ships=("Blackheart", "Valiant"))   # Ph-1, 3 WPN
    attack(v, "Blackheart", C8)
    illegal(v, "CARD", PLR9, R.R_NO_WEAPON)
    card(v, PLS5)                        # WPN 1 and 2
    card(v, PHO5)                        # WPN 3
    illegal(v, "CARD", DIS4, R.R_NO_WEAPON)
    assert legal(v, "CARD", PH1_2)           # its own Ph-1 symbol is still free
    end_cards(v)
    assert hit(v, C8) == 10


def test_orion_with_one_wpn_cannot_fire_plasma_s():
    # SFBF Armi opzionali di Orione: "una nave di Orione con un WPN non può usare un Plasma-S"
    v = duel([PLS5, PHO5, PH3_1], [], p0_ships=(ship("Buccaneer", damage={"wpn": 1}), "Valiant"))  # Ph-3, 2 WPN
    attack(v, "Buccaneer", C8)
    illegal(v, "CARD", PLS5, R.R_NO_WEAPON)
    card(v, PHO5)


def test_damaged_weapon_cannot_fire():
    # SFBF 4.3: "a meno che questa arma non sia stata distrutta"; 4.5: a covered weapon cannot be used
    v = duel([PHO6, PHO5, DR5, PH1_2], [], p0_ships=(ship(CA, damage={"photon": 1, "drone": 1}), "Valiant"))
    attack(v, CA, C8, PHO6)
    illegal(v, "CARD", PHO5, R.R_NO_WEAPON)
    illegal(v, "CARD", DR5, R.R_NO_WEAPON)
    # every photon and the drone covered: the Constellation cannot attack with these cards at all
    v = duel([PHO6, DR5], [], p0_ships=(ship(CA, damage={"photon": 2, "drone": 1}), "Valiant"))
    illegal(v, "SHIP", sid(CA), R.R_NEED_WEAPON)


def test_d7_plays_at_most_five_attack_cards():
    # SFBF 4.3 example: the D7 (2 disruptors, drone, Ph-1, Ph-2) plays at most five attack cards
    # (hand limit 6 with the optional second attack, so a sixth card is in hand)
    v = duel([PH1_4, PH2_3, DR5, DIS5, DIS4, DIS3], [], p0_ships=(D7, "Ravager"), p1_ships=(C8, CA),
             opts={"second_attack": True})
    attack(v, D7, C8, PH1_4, PH2_3, DR5, DIS5)
    assert legal(v, "CARD", DIS4) and legal(v, "CARD", DIS3)
    card(v, DIS4)
    # five cards: the sixth cannot be fired, so the step ended by itself (nothing else was legal)
    assert stage(v) != R.ST_ATK_CARDS and loc(v, DIS3) == R.CL_HAND
    # 4 + 3 + 5 + 5 + 4 = 21 > 13 spaces: destroyed, its 15 VP to the attacker (SFBF 4.5)
    assert sh(v, C8, R.SH_LOC) == R.SL_VP and sh(v, C8, R.SH_OWNER) == 0
    assert plv(v, 0, R.PL_SCORE) == 15 and plv(v, 0, R.PL_KILLS) == 1
    assert cov(v, C8) == 0


# =================================================================================================
# 4.4 defences and the attack / defence / reaction table
# =================================================================================================
def test_ecm_reduces_the_attack_and_eccm_cancels_it():
    # SFBF 4.4 E: ECM reduces an attack card by its value; ECCM cancels one ECM (reaction table)
    v = duel([PHO6, PH1_4, ECCM], [ECM4, ECM3])
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    card(v, ECM4, link=PHO6)
    done(v)                              # defender's pass, the attacker answers
    card(v, ECCM, link=ECM4)             # only one ECM to cancel: linked without asking
    card(v, ECM3, link=PHO6)
    assert hit(v, C8) == 10 - 3
    assert discarded(v, PHO6, PH1_4, ECCM, ECM4, ECM3)   # "viene scartata dopo l'uso"


def test_erratic_maneuvers_reduce_by_four_stay_on_the_ship_and_eccm_cancels():
    # SFBF 4.4 B: Erratic Maneuvers -4 on an attack card, stays on the ship; ECCM cancels its effect
    v = duel([PHO6, PH1_4], [EM])
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    card(v, EM, link=PHO6)
    assert hit(v, C8) == 6
    assert loc(v, EM) == R.CL_SHIP and sh(v, C8, R.SH_EM) == EM + 1
    # with ECCM the card stays on the ship, but does not count against this attack
    v = duel([PHO6, PH1_4, ECCM], [EM])
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    card(v, EM, link=PH1_4)
    assert stage(v) == R.ST_REACT            # the defender had nothing more: its window passed
    card(v, ECCM, link=EM)
    assert hit(v, C8) == 10
    assert loc(v, EM) == R.CL_SHIP and discarded(v, ECCM)


def test_ecm_and_erratic_maneuvers_reduce_one_attack_card_excess_ignored():
    # SFBF 4.4 B: "ridurre il numero di danni ricevuti da una carta attacco"; "se il suo valore è
    # maggiore di quello della carta in attacco l'eccedenza del suo effetto viene ignorata"; 4.4 E and
    # the card list: ECM "Riduce il danno di una carta attacco di 3 o 4"
    v = duel([PHO6, PH1_2], [ECM4])
    attack(v, CA, C8, PHO6, PH1_2)
    end_cards(v)
    assert stage(v) == R.ST_DEFENCE
    card(v, ECM4, link=PH1_2)                # the defender chooses the card: 2 - 4 -> 0, excess ignored
    assert hit(v, C8) == 6                   # (whole attack: 8 - 4 = 4)
    # "ha effetto sulla totalità dell'attacco, quindi sul totale ... come Sovraccarica": the
    # Overload's doubling is part of the card it reduces
    v = duel([PHO5, OVL, PH1_2], [EM])
    attack(v, CA, C8, PHO5, (OVL, PHO5), PH1_2)
    end_cards(v)
    card(v, EM, link=PHO5)
    assert hit(v, C8) == (10 - 4) + 2
    v = duel([PHO5, OVL, PH1_2], [EM])
    attack(v, CA, C8, PHO5, (OVL, PHO5), PH1_2)
    end_cards(v)
    card(v, EM, link=PH1_2)
    assert hit(v, C8) == 10 + 0


def test_option_em_ecm_whole_attack():
    # RULES.md: option em_ecm='whole_attack' keeps the earlier reading (the reduction on the attack total)
    v = duel([PHO6, PH1_2], [ECM4], opts={"em_ecm": "whole_attack"})
    attack(v, CA, C8, PHO6, PH1_2)
    end_cards(v)
    card(v, ECM4)
    assert hit(v, C8) == 8 - 4


def test_second_erratic_maneuvers_on_a_ship_is_allowed():
    # SFBF 4.4 B forbids only using the same card twice and a Wild Weasel with it, not a second
    # Erratic Maneuvers: two on the same attack, each on its card
    v = duel([PHO6, PH1_4], [EM, EM2])
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    card(v, EM, link=PHO6)
    card(v, EM2, link=PH1_4)
    assert hit(v, C8) == 2 + 0
    assert loc(v, EM) == R.CL_SHIP and loc(v, EM2) == R.CL_SHIP


def test_standing_erratic_maneuvers_reduce_the_strongest_card_of_a_later_attack():
    # SFBF 4.4 B: the card stays on the ship (the ECCM note) and counts against later attacks, on one
    # attack card: RULES.md, the strongest (Ph-1 3 -> 0, the excess 1 ignored; Ph-1 2 stays)
    v = duel([PH1_2, PH1_3, PH1_4], [EM], opts={"second_attack": True})
    attack(v, CA, C8, PH1_4)
    end_cards(v)
    card(v, EM)                              # the only attack card: linked without asking
    assert hit(v, C8) == 0
    attack(v, "Valiant", C8, PH1_2, PH1_3)
    end_cards(v)
    assert hit(v, C8) == 2                   # (whole attack: 5 - 4 = 1)


def test_erratic_maneuvers_do_not_reduce_below_zero():
    # SFBF 4.4 B: the excess of the card's value over the attack is ignored
    v = duel([PH1_2, PH1_3], [EM])
    attack(v, CA, C8, PH1_2)
    end_cards(v)
    card(v, EM)
    assert hit(v, C8) == 0 and cov(v, C8) == 0


def test_wild_weasel_halves_other_damage_seven_becomes_four_and_moves_to_the_screen():
    # SFBF 4.4 F: other weapons halved after the other reductions, "sette punti danno ... quattro";
    # (X) a main-body ship using a Wild Weasel moves to the screen; not with Erratic Maneuvers
    v = duel([PHO5, PH1_2], [WW, EM, RS], p1_ships=(D7, ship(C8, "main")))
    attack(v, CA, C8, PHO5, PH1_2)
    end_cards(v)
    card(v, WW)
    assert line(v, C8) == "screen"
    illegal(v, "CARD", EM, R.R_WW_EM)
    assert hit(v, C8) == 4
    assert loc(v, WW) == R.CL_SHIP and sh(v, C8, R.SH_WW) == WW + 1


def test_wild_weasel_halves_the_other_defences():
    # SFBF 4.4 F: "Altre difese hanno effetto al 50%": with the Wild Weasel on, Reinforce Shields
    # reduces by 1 (3 // 2): photon 6 + Ph-1 4 = 10, - 1 = 9, halved rounding up = 5
    v = duel([PHO6, PH1_4], [WW, RS])
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    card(v, WW)
    card(v, RS)
    assert hit(v, C8) == 5


def test_wild_weasel_eliminates_drones_and_plasma():
    # SFBF 4.4 F: Wild Weasel cancels drone and plasma cards; the photon is halved (6 -> 3)
    v = duel([DR5, PHO6], [WW])
    attack(v, CA, C8, DR5, PHO6)
    end_cards(v)
    card(v, WW)
    assert hit(v, C8) == 3
    v = duel([PLR9, PH1_4], [WW], p0_ships=("Remus", "Valiant"))
    attack(v, "Remus", C8, PLR9, PH1_4)
    end_cards(v)
    card(v, WW)
    assert hit(v, C8) == 2


def test_tractor_beam_from_the_screen_cancels_wild_weasel():
    # SFBF 4.4 F (X): the attacker's Tractor Beam cancels the Wild Weasel ("tattica di ancoraggio")
    v = duel([DR5, PHO6, TB], [WW])
    attack(v, CA, C8, DR5, PHO6)
    end_cards(v)
    card(v, WW)
    card(v, TB, link=WW)
    assert hit(v, C8) == 11
    assert discarded(v, TB) and loc(v, WW) == R.CL_SHIP


def test_tractor_beam_from_the_main_body_cannot_cancel_wild_weasel():
    # SFBF 4.4 F (X): "Se l'attacco è stato lanciato da una nave in Prima Linea"
    v = duel([DR5, PHO6, TB], [WW], p0_ships=("Valiant", ship(CA, "main")))
    attack(v, CA, C8, DR5, PHO6)
    end_cards(v)
    card(v, WW)
    # the attacker's only card (Tractor Beam) is illegal, so its window passes by itself
    assert hit(v, C8) == 3
    assert hand(v, 0) == [TB]


def test_tractor_beam_cannot_anchor_from_a_carrier_in_the_main_body():
    # SFBF 4.4 F (X): "Se l'attacco è stato lanciato da una nave in Prima Linea": fighters launched by
    # a carrier in the main body cannot be answered with the anchor tactic; from the screen they can
    v = duel([TB], [WW], p0_ships=("Valiant", ship("Lexington", "main")), dice=[5, 4])
    named(v, "attack with fighters from a carrier")
    play(v, "NUM", 2)
    pick(v, C8)
    card(v, WW)
    assert stage(v) == R.ST_PLACE            # the attacker's Tractor Beam was illegal: its window passed
    assert hit(v, C8) == 5                   # 9 halved, rounding up
    assert hand(v, 0) == [TB]
    v = duel([TB], [WW], p0_ships=("Lexington", "Valiant"), dice=[5, 4])
    named(v, "attack with fighters from a carrier")
    if stage(v) == R.ST_CARRIER:
        pick(v, "Lexington")
    play(v, "NUM", 2)
    pick(v, C8)
    card(v, WW)
    card(v, TB, link=WW)
    assert hit(v, C8) == 9


def test_prime_team_cancels_web_or_wild_weasel_as_the_player_chooses():
    # SFBF Equipaggio esperto: "nega l'effetto dell'Occultamento, della Ragnatela o l'uso di un
    # Vascello Diversivo": the player chooses which.  Drone 5 + photon 6 at a webbed ship with a
    # Wild Weasel: web cancelled -> the Wild Weasel stops the drone and halves the photon (3);
    # Wild Weasel cancelled -> the web halves the direct fire only (5 + 3)
    for choice, expected, web_left in (("Prime Team: cancel the target's cloak or web", 3, 0),
                                       ("Prime Team: cancel the target's Wild Weasel", 8, 1)):
        v = duel([DR5, PHO6, PRIME], [WW], p1_ships=(ship("Holdfast", web=True), D7))
        attack(v, CA, "Holdfast", DR5, PHO6)
        end_cards(v)
        card(v, WW)
        card(v, PRIME)
        assert stage(v) == R.ST_PT_MODE
        assert legal(v, "NAMED", "Prime Team: cancel the target's cloak or web")
        assert legal(v, "NAMED", "Prime Team: cancel the target's Wild Weasel")
        named(v, choice)
        assert sh(v, "Holdfast", R.SH_WEB) == web_left
        assert hit(v, "Holdfast") == expected


def test_prime_team_cancels_wild_weasel():
    # SFBF Equipaggio esperto: cancels a Wild Weasel, "può essere usata in risposta ad una carta giocata
    # in difesa"; reaction table: Wild Weasel -> Raggio Traente, Equipaggio esperto
    v = duel([DR5, PHO6, PRIME], [WW])
    attack(v, CA, C8, DR5, PHO6)
    end_cards(v)
    card(v, WW)
    card(v, PRIME)
    assert stage(v) == R.ST_PT_MODE
    named(v, "Prime Team: cancel the target's Wild Weasel")
    assert hit(v, C8) == 11


def test_reinforce_shields_reduce_by_three():
    # SFBF 4.4 A: Reinforce Shields reduce the attack by 3
    v = duel([PHO6, PH1_4], [RS])
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    card(v, RS)
    assert hit(v, C8) == 7
    assert discarded(v, RS)


def test_disengage_avoids_the_attack_and_goes_to_the_reserve():
    # SFBF 4.4 G: the whole attack is avoided, the cards are discarded, the card stays on the ship;
    # (X) the ship goes to the reserve
    v = duel([PHO6, PH1_4, ECM3], [DISENGAGE])
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    card(v, DISENGAGE)
    assert cov(v, C8) == 0
    assert line(v, C8) == "reserve" and sh(v, C8, R.SH_DIS) == DISENGAGE + 1
    assert loc(v, DISENGAGE) == R.CL_SHIP
    assert discarded(v, PHO6, PH1_4)
    assert stage(v) == R.ST_DISCARD and g(v, R.G_ACTIVE) == 0


def test_disengaged_ship_cannot_be_attacked_basic_game():
    # SFBF 4.4 G: "la nave che si allontana non può essere attaccata e non può attaccare fino alla fine
    # del suo prossimo turno" (basic game: it stays where it is)
    v = duel([PHO6, PH1_4], [DISENGAGE], opts={"game": "basic", "second_attack": True},
             p0_ships=(CA, "Federation"), p1_ships=(C8, D7, "Ravager"))
    attack(v, CA, C8, PHO6)
    end_cards(v)
    card(v, DISENGAGE)
    assert cov(v, C8) == 0 and sh(v, C8, R.SH_DIS) == DISENGAGE + 1
    assert sh(v, C8, R.SH_LINE) == R.L_SCREEN
    # the optional second attack: the disengaged ship is not a target
    pick(v, "Federation")
    illegal(v, "SHIP", sid(C8), R.R_SHIP_STATE)


def test_drone_in_defence_cancels_a_drone_of_any_value():
    # SFBF 4.4 C1: "Un Drone-3 fermerà un Drone-5"
    v = duel([DR5, PHO6], [DR3])
    attack(v, CA, C8, DR5, PHO6)
    end_cards(v)
    card(v, DR3, link=DR5)
    assert hit(v, C8) == 6


@pytest.mark.parametrize("plasma", [PLS5, PLR7])
def test_plasma_s_or_r_in_defence_cancels_a_drone(plasma):
    # SFBF 4.4 C2: each Plasma-S or Plasma-R card fired in defence negates one drone card
    v = duel([DR5, PHO6], [plasma], p1_ships=("Megalosaur", D7))   # Gorn CA: Plasma-R and Plasma-S
    attack(v, CA, "Megalosaur", DR5, PHO6)
    end_cards(v)
    card(v, plasma, link=DR5)
    assert hit(v, "Megalosaur") == 6


def test_plasma_f_cannot_stop_drones():
    # SFBF 4.4 C2: "Le Torpedini Plasma-F non possono essere usate in questo modo"
    v = duel([DR5, PHO6], [PLF3, PH1_2], p1_ships=("Velociraptor", D7))   # Ph-1, Ph-3, Plasma-S, Plasma-F
    attack(v, CA, "Velociraptor", DR5, PHO6)
    end_cards(v)
    illegal(v, "CARD", PLF3, R.R_DEF_SYMBOL)


def test_tractor_beam_in_defence_cancels_a_drone():
    # SFBF 4.4 D: a Tractor Beam cancels one drone card
    v = duel([DR5, PHO6], [TB])
    attack(v, CA, C8, DR5, PHO6)
    end_cards(v)
    card(v, TB, link=DR5)
    assert hit(v, C8) == 6


@pytest.mark.parametrize("defence,expected", [((DR3,), 5 + 6), ((DR3, TB), 6)])
def test_scatterpack_needs_two_cancellations(defence, expected):
    # SFBF 4.4 C1, D: against drone + scatterpack the first cancel removes the scatterpack, the second
    # the drone (5 x 2 = 10; one cancel leaves 5)
    v = duel([DR5, SCAT, PHO6], list(defence))
    attack(v, CA, C8, DR5, (SCAT, DR5), PHO6)
    end_cards(v)
    for c in defence:
        card(v, c, link=DR5)
    assert hit(v, C8) == expected


def test_drone_and_scatterpack_in_defence_cancel_two_drones():
    # SFBF 4.4 C1: "Una carta Drone più una Grappolo di Missili eliminerebbe due carte Drone"
    v = duel([DR5, DR4, PHO6], [DR3, SCAT], p0_ships=("Patriarch", "Valiant"))   # Kzinti DN: 3 drones
    attack(v, "Patriarch", C8, DR5, DR4)
    end_cards(v)
    illegal(v, "CARD", SCAT, R.R_COMBINE)          # a scatterpack goes with a drone fired in defence
    card(v, DR3)
    play(v, "CARD", DR5)
    card(v, SCAT, link=DR4)
    assert hit(v, C8) == 0
    assert discarded(v, DR5, DR4, DR3, SCAT)


def test_phasers_reduce_drone_and_plasma_cards_by_their_value():
    # SFBF 4.4 C3: each phaser fired in defence reduces one drone or plasma card by its value
    v = duel([DR5, PHO6], [PH1_3])
    attack(v, CA, C8, DR5, PHO6)
    end_cards(v)
    card(v, PH1_3, link=DR5)
    assert hit(v, C8) == (5 - 3) + 6
    v = duel([PLR9, PH1_4], [PH2_3, PH1_4B], p0_ships=("Remus", "Valiant"))
    attack(v, "Remus", C8, PLR9, PH1_4)
    end_cards(v)
    card(v, PH2_3, link=PLR9)
    card(v, PH1_4B, link=PLR9)
    assert hit(v, C8) == (9 - 3 - 4) + 4


def test_phasers_cannot_defend_against_direct_fire():
    # SFBF 4.4 C: weapon cards in defence only against drones, plasma, fighters and PFs
    v = duel([PHO6, PH1_4], [PH1_3])
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    assert stage(v) == R.ST_PLACE          # nothing the defender can play: the window passed itself
    assert pending_damage(v, C8) == 10


# =================================================================================================
# combat cards: Overload, Enveloper, Scatterpack, Legendary Gunner, Prime Team
# =================================================================================================
def test_overload_doubles_photon_or_disruptor_only():
    # SFBF Lista delle carte azione: Overload x2 for disruptors and photons
    v = duel([PH1_2, OVL, PHO5], [])
    attack(v, CA, C8, PH1_2)
    illegal(v, "CARD", OVL, R.R_LINK)    # no photon or disruptor on the table yet
    card(v, PHO5)
    card(v, OVL, link=PHO5)
    end_cards(v)
    assert hit(v, C8) == 2 + 10


@pytest.mark.parametrize("attacker_line,target_line", [("main", "screen"), ("screen", "main")])
def test_no_overload_from_or_at_the_main_body(attacker_line, target_line):
    # SFBF Regole sulla Formazione, Seconda Linea: no overloaded weapons from or at the main body
    v = duel([PHO5, OVL, PH1_2], [], p0_ships=("Valiant", ship(CA, attacker_line)),
             p1_ships=(D7, ship(C8, target_line)))
    attack(v, CA, C8, PHO5)
    illegal(v, "CARD", OVL, R.R_RANGE)


@pytest.mark.parametrize("attacker_line,target_line", [("main", "screen"), ("screen", "main")])
def test_no_phaser3_or_plasma_f_from_or_at_the_main_body(attacker_line, target_line):
    # SFBF Regole sulla Formazione, Seconda Linea / Raggio di Azione: Ph-3 and Plasma-F
    v = duel([PH3_2, PLF2, PH1_2, PH1_3], [], p0_ships=("Valiant", ship("Gladius", attacker_line)),
             p1_ships=(D7, ship(C8, target_line)))          # Gladius: 2 Ph-1, Ph-3, Plasma-S, Plasma-F
    attack(v, "Gladius", C8)
    illegal(v, "CARD", PH3_2, R.R_RANGE)
    illegal(v, "CARD", PLF2, R.R_RANGE)
    card(v, PH1_2)


def test_enveloper_doubles_plasma_s_and_r():
    # SFBF Lista delle carte azione: Enveloper x2 for Plasma-S and -R (allowed in the main body)
    v = duel([PLS5, ENV, PH1_2], [], p0_ships=("Valiant", ship("Remus", "main")))
    attack(v, "Remus", C8, PLS5, (ENV, PLS5))
    end_cards(v)
    assert hit(v, C8) == 10


def test_scatterpack_doubles_a_drone():
    # SFBF Lista delle carte azione: Scatterpack x2 for drones
    v = duel([DR4, SCAT, PH1_2], [])
    attack(v, CA, C8, PH1_2, DR4, (SCAT, DR4))
    end_cards(v)
    assert hit(v, C8) == 2 + 8


def test_legendary_gunner_doubles_any_card_but_not_one_already_doubled():
    # SFBF Lista delle carte azione: Legendary Gunner doubles one fire card, "Non può essere combinato
    # con: sovraccarica, grappolo di missili, avvolgente"
    v = duel([PHO5, OVL, PH3_1, LG], [])
    attack(v, CA, C8, PHO5, (OVL, PHO5), PH3_1)
    card(v, LG)
    assert stage(v) != R.ST_LINK and int(v.state.cd[0, LG, R.CD_LINK]) == PH3_1   # photon taken
    end_cards(v)
    assert hit(v, C8) == 10 + 2


def test_prime_team_adds_one_after_the_doubling():
    # SFBF Equipaggio esperto: +1 to the attack after Overload, Scatterpack, Enveloper, Legendary Gunner
    v = duel([PHO5, OVL, PRIME], [])
    attack(v, CA, C8, PHO5, (OVL, PHO5), PRIME)
    assert g(v, R.G_PT_ADD) == 1
    end_cards(v)
    assert hit(v, C8) == 2 * 5 + 1


# =================================================================================================
# cloak and web (advanced)
# =================================================================================================
def test_cloak_halves_damage_rounding_up_and_blocks_seeking_weapons():
    # SFBF Regole sull'Occultamento: damage halved "per eccesso (5 danni diventano 3)"; no drones or
    # plasma at a cloaked ship
    v = duel([PHO5, DR5, PH1_2], [], p1_ships=(ship("Imperator", cloak=True), D7))
    attack(v, CA, "Imperator")
    illegal(v, "CARD", DR5, R.R_SEEKING)
    card(v, PHO5)
    end_cards(v)
    assert hit(v, "Imperator") == 3


def test_cloaked_ship_cannot_attack():
    # SFBF Regole sull'Occultamento: a cloaked ship fires no weapon
    v = duel([PH1_4, PHO6], [], p0_ships=(ship("Remus", cloak=True), CA))
    illegal(v, "SHIP", sid("Remus"), R.R_CLOAKED)


def test_cloak_halves_defence_cards():
    # SFBF Regole sull'Occultamento: every defence card of the ship has its effect halved
    # (Reinforce Shields 3 -> 1, RULES.md: rounded down), then the damage is halved: (10 - 1) -> 5
    v = duel([PHO6, PH1_4], [RS, EM], p1_ships=(ship("Imperator", cloak=True), D7))
    attack(v, CA, "Imperator", PHO6, PH1_4)
    end_cards(v)
    illegal(v, "CARD", EM, R.R_SHIP_STATE)   # SFBF 4.4 B: no Erratic Maneuvers while cloaked
    card(v, RS)
    assert hit(v, "Imperator") == 5


def test_prime_team_removes_the_cloak():
    # SFBF Regole sull'Occultamento: "La carta Prime Team cancella l'effetto di Occultamento"
    v = duel([DR5, PHO6, PRIME], [], p1_ships=(ship("Imperator", cloak=True), D7))
    attack(v, CA, "Imperator", PHO6)
    illegal(v, "CARD", DR5, R.R_SEEKING)
    card(v, PRIME)
    illegal(v, "NAMED", "Prime Team: cancel the target's Wild Weasel", R.R_STAGE)
    named(v, "Prime Team: cancel the target's cloak or web")
    assert sh(v, "Imperator", R.SH_CLOAK) == 0
    card(v, DR5)
    end_cards(v)
    assert hit(v, "Imperator") == 11


def test_web_halves_direct_fire_only_and_stops_phasers():
    # SFBF Regole sulla Ragnatela Toliana: "Il fuoco diretto su una nave Toliana che ha la Ragnatela
    # attivata è ridotto del 50%, per eccesso"; the drone is not direct fire; it fires no phasers
    v = duel([DR5, PHO6], [PH1_4], p1_ships=(ship("Holdfast", web=True), D7))
    attack(v, CA, "Holdfast", DR5, PHO6)
    end_cards(v)
    assert stage(v) == R.ST_PLACE             # its Phaser-1 card cannot be fired at the drone
    assert hit(v, "Holdfast") == 5 + 3         # drone 5 whole, photon 6 -> 3
    v = duel([DR5, PH1_2], [], p1_ships=(ship("Holdfast", web=True), D7))
    attack(v, CA, "Holdfast", DR5)
    end_cards(v)
    assert hit(v, "Holdfast") == 5             # a drone alone is not halved
    # the cloak, by contrast, halves all damage (SFBF Regole sull'Occultamento: "tutto il danno")
    v = duel([PHO5, PH1_2], [], p1_ships=(ship("Imperator", cloak=True), D7))
    attack(v, CA, "Imperator", PHO5, PH1_2)
    end_cards(v)
    assert hit(v, "Imperator") == 4            # 7 -> 4
    v = duel([PH1_4, DIS5, DIS4], [], p0_ships=(ship("Holdfast", web=True), CA))
    attack(v, "Holdfast", C8)
    illegal(v, "CARD", PH1_4, R.R_SHIP_STATE)
    card(v, DIS5)


# =================================================================================================
# fighters (Attacco dei caccia F1-F5)
# =================================================================================================
def carrier_game(p1_hand, dice, squadrons=2, **kw):
    v = duel([], p1_hand, p0_ships=("Lexington", CA), dice=dice, **kw)   # Federation CVS: 2 FTR
    named(v, "attack with fighters from a carrier")
    if stage(v) == R.ST_CARRIER:
        pick(v, "Lexington")
    play(v, "NUM", squadrons)
    pick(v, D7)
    if p1_hand:
        assert stage(v) == R.ST_FTR_DEF and g(v, R.G_DECIDER) == 1
    return v


def test_fighters_one_die_per_squadron():
    # SFBF F4: "lancia un dado per ogni squadrone che ha partecipato all'attacco"
    v = carrier_game([], dice=[5, 2], squadrons=1)
    assert hit(v, D7) == 5
    assert cov(v, "Lexington", "fighters") == 0
    v = carrier_game([], dice=[5, 2], squadrons=2)
    assert hit(v, D7) == 7


def test_fighter_defence_fire_six_kills_a_squadron():
    # SFBF F3: the target fires F-symbol cards (photons and disruptors cannot); F4 dice minus that fire;
    # F5: 6+ destroys one squadron (a marker on the carrier's FTR space)
    v = carrier_game([PH1_4, PH2_3, DIS5], dice=[5, 4])
    illegal(v, "CARD", DIS5, R.R_DEF_SYMBOL)
    card(v, PH1_4)
    card(v, PH2_3)
    assert hit(v, D7) == 9 - 7
    assert cov(v, "Lexington", "fighters") == 1
    assert g(v, R.G_FTR_LOST) == 1
    assert discarded(v, PH1_4, PH2_3)


def test_fighter_defence_fire_twelve_kills_both_squadrons():
    # SFBF F5: "con 12 o più danni prodotti ai caccia entrambe le squadre di caccia sono distrutte";
    # F4: a negative result has no effect
    v = carrier_game([PH1_4, PH2_3, DR5], dice=[6, 5])
    card(v, PH1_4)
    card(v, PH2_3)
    card(v, DR5)
    assert cov(v, D7) == 0
    assert cov(v, "Lexington", "fighters") == 2
    assert carrier_fighters_blocked(v)      # no launch until repaired


def carrier_fighters_blocked(v):
    return int(R.carrier_reason(v.state.view, v.cfg.struct, 0, 0, sid("Lexington"))) == R.R_NO_FIGHTERS


def test_fighter_losses_limited_to_the_squadrons_launched():
    # SFBF F5: the fighters destroyed are those launched
    v = carrier_game([PH1_4, PH2_3, DR5], dice=[6], squadrons=1)
    card(v, PH1_4)
    card(v, PH2_3)
    card(v, DR5)
    assert cov(v, "Lexington", "fighters") == 1


def test_fighters_against_a_cloaked_or_webbed_target():
    # SFBF F4 (X): a cloaked target cannot fire at the fighters and the damage is halved; a webbed target
    # fires its phasers, with the result halved like its other defences (RULES.md), and the damage halved
    v = duel([], [PH1_4], p0_ships=("Lexington", CA), p1_ships=(ship("Imperator", cloak=True), D7),
             dice=[5, 4])
    named(v, "attack with fighters from a carrier")
    play(v, "NUM", 2)
    pick(v, "Imperator")
    assert hit(v, "Imperator") == 5            # 9 halved, rounding up; the Phaser-1 could not fire
    assert loc(v, PH1_4) == R.CL_HAND
    v = duel([], [PH1_4], p0_ships=("Lexington", CA), p1_ships=(ship("Holdfast", web=True), D7),
             dice=[5, 4])
    named(v, "attack with fighters from a carrier")
    play(v, "NUM", 2)
    pick(v, "Holdfast")
    card(v, PH1_4)
    assert hit(v, "Holdfast") == 4             # 9 - 4 // 2 = 7, halved rounding up
    assert cov(v, "Lexington", "fighters") == 0


def test_planet_based_fighters_roll_two_dice_per_card():
    # SFBF F4: "Nel caso della carta Pianeta-Base caccia lancia due dadi per ogni carta"; F3 defence fire
    v = duel([PBF, PBF2], [PH1_2], dice=[3, 2, 2, 1])
    card(v, PBF)
    card(v, PBF2)
    pick(v, C8)
    card(v, PH1_2)
    assert hit(v, C8) == 3 + 2 + 2 + 1 - 2
    assert discarded(v, PBF, PBF2, PH1_2)


# =================================================================================================
# PF Flotilla (Flotta di Caccia Veloci)
# =================================================================================================
def pf_game(p1_hand, p2_hand, dice=(), p2_ships=("Imperator", "Slasher")):
    return start([pl([PF, ECM3], [CA, "Valiant"]), pl(p1_hand, [C8, D7]), pl(p2_hand, p2_ships)],
                 dice=dice, opts={"players": 3}, ship_deck=["Federation"])


def test_pf_flotilla_destroyed_by_twelve_damage():
    # SFBF Flotta di Caccia Veloci: the other players, clockwise, fire one fire card per ship; 12 or more
    # destroys the flotilla and the attack ends
    v = pf_game([DIS5, PH1_4, DIS4], [PH1_3])
    card(v, PF)
    assert stage(v) == R.ST_PF_FIRE and g(v, R.G_DECIDER) == 1
    card(v, DIS5)
    pick(v, C8)
    card(v, PH1_4)                           # the C8 has fired: only the D7 may fire it, without asking
    assert int(v.state.cd[0, PH1_4, R.CD_SHIP]) == sid(D7)
    # both ships have fired: the Disruptor-4 cannot be fired, player 1's turn to fire is over
    assert stage(v) == R.ST_PF_FIRE and g(v, R.G_DECIDER) == 2 and loc(v, DIS4) == R.CL_HAND
    card(v, PH1_3)                           # the Imperator fires it; nothing more: player 2 is done
    # 5 + 4 + 3 = 12: the flotilla is destroyed, no attack; the cards are discarded
    assert discarded(v, PF, DIS5, PH1_4, PH1_3)
    assert cov(v, C8) == cov(v, D7) == cov(v, "Imperator") == 0
    assert g(v, R.G_ACTIVE) == 0 and stage(v) == R.ST_DISCARD


def test_pf_flotilla_damage_is_two_dice_plus_what_is_left():
    # SFBF Flotta di Caccia Veloci: below 12, the attacker picks a target in screen or main body and
    # rolls 2d6 + the flotilla's remaining damage (12 - 9 = 3); the target may use its defences
    v = pf_game([DIS5, RS], [DIS4], dice=[1, 2])
    card(v, PF)
    card(v, DIS5)
    pick(v, C8)
    card(v, DIS4)                            # fired by the Slasher, the only ship with a disruptor
    assert stage(v) == R.ST_TARGET and g(v, R.G_DECIDER) == 0
    pick(v, C8)
    assert stage(v) == R.ST_DEFENCE and g(v, R.G_DECIDER) == 1
    card(v, RS)
    assert hit(v, C8) == 1 + 2 + 3 - 3


def test_pf_flotilla_kill_gives_no_points_and_goes_under_the_ship_deck():
    # SFBF Flotta di Caccia Veloci: "Ogni nave distrutta ... non fa guadagnare punti vittoria a nessun
    # giocatore, la nave viene messa in fondo al mazzo delle Navi"
    v = pf_game([], [], dice=[6, 6])
    card(v, PF)
    pick(v, "Slasher")                      # Kzinti FF: 6 spaces; 12 + 12 damage
    assert sh(v, "Slasher", R.SH_LOC) == R.SL_DECK and sh(v, "Slasher", R.SH_OWNER) == -1
    assert int(v.state.sdeck[0, 0]) == sid("Slasher")
    n = g(v, R.G_SDECK_N)
    assert int(v.state.sdeck[0, n - 1]) == sid("Federation")      # the top is unchanged
    assert [plv(v, p, R.PL_SCORE) for p in range(3)] == [0, 0, 0]
    assert plv(v, 0, R.PL_KILLS) == 0


def test_pf_flotilla_two_players_defender_fires_twice():
    # SFBF Flotta di Caccia Veloci: "quando si gioca in due il giocatore in difesa può fare fuoco due
    # volte o con la stessa nave o con due differenti navi" (RULES.md: two cards in all)
    v = duel([PF, ECM3], [DIS5, DIS4, PH1_4], dice=[1, 1])
    card(v, PF)
    card(v, DIS5)
    pick(v, D7)
    card(v, DIS4)
    pick(v, D7)                             # the same ship again
    # two cards fired: the Phaser-1 card stays in hand and the attacker picks the target
    assert stage(v) == R.ST_TARGET and g(v, R.G_DECIDER) == 0 and loc(v, PH1_4) == R.CL_HAND
    pick(v, C8)
    assert hit(v, C8) == 1 + 1 + (12 - 9)


# =================================================================================================
# Klingon Mutiny
# =================================================================================================
@pytest.mark.parametrize("die", [1, 2, 3])
def test_klingon_mutiny_low_roll_is_damage(die):
    # SFBF Ammutinamento Klingon: 1, 2 or 3 = that much damage
    v = duel([MUTINY], [], dice=[die])
    card(v, MUTINY)
    pick(v, D7)
    assert hit(v, D7) == die
    assert sh(v, D7, R.SH_OWNER) == 1 and discarded(v, MUTINY)


@pytest.mark.parametrize("die", [4, 6])
def test_klingon_mutiny_high_roll_captures_into_the_reserve(die):
    # SFBF Ammutinamento Klingon: 4-6 the ship is captured (advanced: into the reserve); no VP
    v = duel([MUTINY], [], dice=[die])
    card(v, MUTINY)
    pick(v, D7)
    assert sh(v, D7, R.SH_OWNER) == 0 and sh(v, D7, R.SH_LOC) == R.SL_FLEET and line(v, D7) == "reserve"
    assert plv(v, 0, R.PL_SCORE) == 0


def test_klingon_mutiny_only_klingon_ships_outside_the_reserve():
    # SFBF Ammutinamento Klingon: only Klingon ships, not those in the reserve
    v = duel([MUTINY, PHO6], [], p1_ships=("Federation", ship(D7, "reserve"), "Saladin"))
    illegal(v, "CARD", MUTINY, R.R_TARGET)


def test_prime_team_adds_one_to_the_mutiny_roll():
    # SFBF Equipaggio esperto: +1 to a die roll: 3 + 1 = 4 captures
    v = duel([MUTINY, PRIME], [], dice=[3])
    card(v, MUTINY)
    pick(v, D7)
    card(v, PRIME)                           # nothing more to play: the roll follows
    assert sh(v, D7, R.SH_OWNER) == 0 and cov(v, D7) == 0


def test_owner_prime_team_subtracts_one_from_the_mutiny_roll():
    # SFBF Equipaggio esperto: "sottrarre uno al tiro di dado in caso di Ammutinamento Klingon, se
    # giocata dal possessore della nave Klingon": 4 - 1 = 3 damage
    v = duel([MUTINY], [PRIME], dice=[4])
    card(v, MUTINY)
    pick(v, D7)
    assert stage(v) == R.ST_MUTINY_DEF and g(v, R.G_DECIDER) == 1
    card(v, PRIME)
    assert sh(v, D7, R.SH_OWNER) == 1
    assert hit(v, D7) == 3


def test_mutiny_pf_and_ceasefire_only_instead_of_an_attack():
    # SFBF Ammutinamento Klingon, Flotta di Caccia Veloci, Tregua Organiana: "non può essere usata in
    # un turno nel quale si effettua un attacco" (optional second attack)
    v = duel([PHO6, PH1_2, MUTINY, PF, CEASE], [], opts={"second_attack": True}, p0_ships=(CA, "Valiant"))
    attack(v, CA, C8, PHO6)
    end_cards(v)
    place_all(v)
    assert stage(v) == R.ST_ATTACK and g(v, R.G_ATTACKS) == 1
    for c in (MUTINY, PF, CEASE):
        illegal(v, "CARD", c, R.R_NOT_FIRST_ATTACK)


# =================================================================================================
# Organian Ceasefire, Reinforcements, repair, formation, discard, draw
# =================================================================================================
def test_organian_ceasefire():
    # SFBF Tregua Organiana: hands discarded (advanced: up to three reserve cards kept first), all
    # cards but the reserves reshuffled, five new cards each, damage removed, cloaks and webs off,
    # the turn passes
    v = start([pl([CEASE, PHO6, DR5], [ship(CA, damage={"circle": 2}), "Valiant"], reserve=[RS]),
               pl([ECM3], [ship(C8, damage={"disruptor": 1}), ship("Remus", cloak=True)])],
              discard=[PH1_2, PH1_3])
    card(v, CEASE)
    assert stage(v) == R.ST_CEASE_KEEP and g(v, R.G_DECIDER) == 0
    card(v, PHO6)                            # into the reserve
    card(v, DR5)                             # the third reserve card; the hand is empty: next player
    assert reserve(v, 0) == sorted([RS, PHO6, DR5])
    assert stage(v) == R.ST_CEASE_KEEP and g(v, R.G_DECIDER) == 1
    done(v)                                  # player 1 keeps nothing
    assert g(v, R.G_ACTIVE) == 1
    assert len(hand(v, 0)) == 5 and len(hand(v, 1)) == 5
    assert reserve(v, 0) == sorted([RS, PHO6, DR5])
    assert cov(v, CA) == 0 and cov(v, C8) == 0
    assert sh(v, "Remus", R.SH_CLOAK) == 0
    assert g(v, R.G_DISC_N) == 0
    for c in (CEASE, ECM3, PH1_2, PH1_3):
        assert loc(v, c) in (R.CL_DECK, R.CL_HAND)
    assert g(v, R.G_SHUFFLES) == 1


def test_reinforcements_go_to_the_reserve_which_must_come_back_to_two():
    # SFBF Sequenza di gioco 3 (X): a reinforcement goes into the reserve; Regole sulla Formazione: a
    # reserve above two comes back down at the first chance, with more than one move if needed
    v = start([pl([REINF], [CA, ship("Valiant", "main"), ship("Saladin", "reserve"), ship("Guderian", "reserve")]),
               pl([], [C8, D7])], phase="formation", ship_deck=["Federation"])
    card(v, REINF)
    assert sh(v, "Federation", R.SH_OWNER) == 0 and line(v, "Federation") == "reserve"
    assert sh(v, "Federation", R.SH_DOWN) == 1       # undamaged reserve ships lie face down
    assert discarded(v, REINF)
    illegal(v, "NAMED", "done / pass", R.R_MUST_RESERVE)
    pick(v, "Federation")
    play(v, "LINE", "screen")
    assert line(v, "Federation") == "screen"
    done(v)
    assert stage(v) == R.ST_ATTACK


def test_reinforcements_basic_game_join_the_fleet():
    # SFBF Sequenza di gioco 3: Reinforcements draws a ship card into the fleet
    v = start([pl([REINF, PHO6], [CA]), pl([], [C8])], phase="formation", ship_deck=["Federation"],
              opts={"game": "basic"})
    card(v, REINF)
    assert sh(v, "Federation", R.SH_OWNER) == 0 and sh(v, "Federation", R.SH_LOC) == R.SL_FLEET
    assert g(v, R.G_SDECK_N) == len(SHIPS) - 3


def test_repair_phase_continuous_damage_control_and_one_repair_card():
    # SFBF Sequenza di gioco 2: one Damage Control or Legendary Engineer per turn; (X) continuous damage
    # control removes one marker from every damaged own ship, the reserve included, once
    v = start([pl([DC3, LENG], [ship(CA, damage={"circle": 2, "photon": 1}),
                                ship("Valiant", "main", damage={"photon": 1, "circle": 1}),
                                ship("Saladin", "reserve", damage={"circle": 1})]),
               pl([], [C8, D7])], phase="repair")
    named(v, "continuous damage control")
    # the Constellation: photon or circle - the owner chooses
    assert stage(v) == R.ST_UNMARK and g(v, R.G_REP_SHIP) == sid(CA)
    play(v, "KIND", "photon")
    assert stage(v) == R.ST_UNMARK and g(v, R.G_REP_SHIP) == sid("Valiant")
    play(v, "KIND", "circle")                # the Saladin has only circles: no choice
    assert cov(v, CA) == 2 and cov(v, CA, "photon") == 0
    assert cov(v, "Valiant") == 1 and cov(v, "Valiant", "circle") == 0
    assert cov(v, "Saladin") == 0
    assert stage(v) == R.ST_REPAIR
    illegal(v, "NAMED", "continuous damage control", R.R_ONCE)
    card(v, DC3)
    pick(v, CA)                              # 2 markers <= 3: all removed
    assert cov(v, CA) == 0 and discarded(v, DC3)
    # one repair card per turn: the Legendary Engineer cannot follow, so the phase ended by itself
    assert stage(v) == R.ST_FORMATION and loc(v, LENG) == R.CL_HAND


def test_damage_control_removes_its_value_legendary_engineer_all():
    # SFBF Lista delle carte azione: Damage Control removes 2/3/4 markers, Legendary Engineer all
    v = start([pl([DC2], [ship(C8, damage={"circle": 4, "disruptor": 2}), ship(CA, damage={"circle": 1})]),
               pl([], ["Federation", D7])],
              phase="repair")
    card(v, DC2)
    pick(v, C8)
    play(v, "KIND", "disruptor")
    play(v, "KIND", "disruptor")
    assert cov(v, C8) == 4 and cov(v, C8, "disruptor") == 0
    v = start([pl([LENG], [ship(C8, damage={"circle": 4, "disruptor": 2}), ship(CA, damage={"circle": 1})]),
               pl([], ["Federation", D7])],
              phase="repair")
    card(v, LENG)
    pick(v, C8)
    assert cov(v, C8) == 0


def test_formation_one_move_per_line_and_reserve_limit():
    # SFBF Sequenza di gioco 3 (X): one ship out of each line; Regole sulla Formazione: at most two in the
    # reserve
    v = start([pl([], [CA, "Valiant", ship("Remus", "main"), ship("Guderian", "reserve"),
                       ship("Federation", "reserve")]),
               pl([], [C8, D7])], phase="formation")
    move(v, CA, "main")                      # (the reserve is full: main is the only destination)
    illegal(v, "SHIP", sid("Valiant"), R.R_LINE_MOVE)        # the screen has had its move
    pick(v, "Remus")                         # to the screen, or switch its cloak on
    illegal(v, "LINE", R.L_RESERVE, R.R_RESERVE_FULL)
    play(v, "LINE", "screen")
    move(v, "Guderian", "main")
    assert [line(v, n) for n in (CA, "Valiant", "Remus", "Guderian", "Federation")] == \
        ["main", "screen", "screen", "main", "reserve"]
    assert stage(v) == R.ST_ATTACK           # every line has moved: nothing left but to go on


def test_forced_advance_when_the_screen_is_destroyed():
    # SFBF Regole sulla Formazione, Avanzamento Forzato: every main-body ship moves to the screen
    v = duel([PHO6, PH1_4], [], p1_ships=(ship(D7, damage={"circle": 3, "disruptor": 2}),
                                           ship(C8, "main"), ship("Ravager", "main")))
    attack(v, CA, D7, PHO6, PH1_4)
    assert sh(v, D7, R.SH_LOC) == R.SL_VP and plv(v, 0, R.PL_SCORE) == 8
    assert line(v, C8) == "screen" and line(v, "Ravager") == "screen"


def test_activating_the_cloak_costs_the_line_move():
    # SFBF Sequenza di gioco 3 (X): activating cloak or web costs a formation change
    v = start([pl([], [CA, "Remus", ship("Valiant", "main")]), pl([], [C8, D7])], phase="formation")
    pick(v, "Remus")
    named(v, "switch on cloak / web")
    assert sh(v, "Remus", R.SH_CLOAK) == 1
    illegal(v, "SHIP", sid(CA), R.R_LINE_MOVE)


def test_erratic_maneuvers_block_attacks_until_the_end_of_the_owners_next_turn():
    # SFBF Sequenza di gioco 5 and 4.4 B: the card stays on the ship, which cannot attack, until the end
    # of its owner's next turn (then it is discarded)
    v = duel([PHO6, PH1_3, ECM3], [EM, PH1_4, DIS5], p1_ships=(C8, D7), deck=[PH1_2, PH2_2, DR3])
    attack(v, CA, C8, PHO6)
    end_cards(v)
    card(v, EM)
    assert hit(v, C8) == 2
    # player 0's discard phase: its own ships' cards go, not player 1's
    assert stage(v) == R.ST_DISCARD and g(v, R.G_ACTIVE) == 0
    done(v)
    assert loc(v, EM) == R.CL_SHIP
    # player 1's turn: draw to five (advanced: each card kept or put in the reserve)
    for _ in range(10):
        if stage(v) == R.ST_KEEP:
            named(v, "keep the drawn card")
        elif stage(v) == R.ST_DRAW:
            named(v, "draw from the action deck")
        else:
            break
    assert g(v, R.G_ACTIVE) == 1 and len(hand(v, 1)) == 5
    assert hand(v, 1) == sorted([PH1_4, DIS5, PH1_2, PH2_2, DR3])
    while stage(v) in (R.ST_REPAIR, R.ST_FORMATION):
        done(v)
    assert stage(v) == R.ST_ATTACK
    illegal(v, "SHIP", sid(C8), R.R_SHIP_STATE)
    assert legal(v, "SHIP", sid(D7))
    done(v)
    assert stage(v) == R.ST_DISCARD
    assert sh(v, C8, R.SH_EM) == 0 and discarded(v, EM)


def test_discard_phase_one_card_to_the_pile_or_the_reserve():
    # SFBF Sequenza di gioco 5: one card from the hand to the discard pile, (X) or into the reserve
    v = duel([PHO6, PH1_4, ECM3], [])
    done(v)                                  # no attack
    assert stage(v) == R.ST_DISCARD
    card(v, ECM3)
    named(v, "put the card into the reserve")
    assert reserve(v, 0) == [ECM3] and g(v, R.G_ACTIVE) == 1
    v = duel([PHO6, PH1_4, ECM3], [])
    done(v)
    card(v, PH1_4)
    named(v, "put the card on the discard pile")
    top = int(v.state.disc[0, g(v, R.G_DISC_N) - 1])
    assert top == PH1_4 and g(v, R.G_ACTIVE) == 1


def test_pescare_the_active_player_orders_the_played_cards_on_the_discard_pile():
    # SFBF Regole Opzionali, Pescare: "è il giocatore attivo a determinare quali carte giocate una per
    # volta (attacco, difesa, rinforzo) sono in cima agli scarti"
    v = duel([PHO6, PH1_4, ECM3], [RS], opts={"draw_discard": True})
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    card(v, RS)
    assert hit(v, C8) == 7
    assert stage(v) == R.ST_DISC_ORDER and g(v, R.G_DECIDER) == 0
    illegal(v, "CARD", ECM3, R.R_ORDER)      # a card in hand is not one of them
    card(v, PHO6)                            # onto the pile first
    card(v, RS)
    # the last one goes on top without asking
    n = g(v, R.G_DISC_N)
    assert [int(x) for x in v.state.disc[0, n - 3:n]] == [PHO6, RS, PH1_4]
    assert stage(v) == R.ST_DISCARD and g(v, R.G_ACTIVE) == 0


def test_pescare_the_active_player_orders_the_cards_leaving_its_ships():
    # SFBF Regole Opzionali, Pescare: the played cards (defence cards too) that end on the discard pile
    # are ordered by the active player; in its phase 5 the Erratic Maneuvers and Wild Weasel leave its
    # ships (SFBF Sequenza di gioco 5) and it chooses which goes on top
    v = start([pl([EM, WW], [CA, "Valiant"]), pl([DIS5, DIS4, PH1_4], [C8, D7])], active=1,
              opts={"draw_discard": True, "second_attack": True})
    attack(v, C8, CA, DIS5)
    end_cards(v)
    card(v, EM)                              # 5 - 4 = 1
    assert hit(v, CA) == 1
    attack(v, D7, "Valiant", DIS4)
    end_cards(v)
    card(v, WW)                              # 4 halved = 2
    assert hit(v, "Valiant") == 2
    for _ in range(60):                      # to player 0's phase 5, attacking with nothing
        if stage(v) == R.ST_DISC_ORDER:
            break
        a = A(v, "DONE")
        v.step(np.array([a if v.mask[0, a] else int(np.argmax(v.mask[0]))]))
    assert stage(v) == R.ST_DISC_ORDER and g(v, R.G_ACTIVE) == 0 and g(v, R.G_DECIDER) == 0
    assert sh(v, CA, R.SH_EM) == 0 and sh(v, "Valiant", R.SH_WW) == 0
    card(v, WW)                              # first; the Erratic Maneuvers follows on top by itself
    n = g(v, R.G_DISC_N)
    assert [int(x) for x in v.state.disc[0, n - 2:n]] == [WW, EM]
    assert stage(v) in (R.ST_DISCARD, R.ST_DRAW, R.ST_KEEP) or g(v, R.G_ACTIVE) == 1


def test_draw_to_five_with_reserve_cards():
    # SFBF Sequenza di gioco 1: draw up to five cards, one at a time; (X) a drawn card may go into the
    # reserve (at most three) and reserve cards may be taken instead, in any order
    v = start([pl([PHO6, PH1_4], [CA, "Valiant"], reserve=[RS]), pl([], [C8, D7])], phase="draw",
              deck=[DR5, ECM3, DIS5, DIS4])
    named(v, "draw from the action deck")
    named(v, "keep the drawn card")
    named(v, "draw from the action deck")
    named(v, "put the card into the reserve")
    assert reserve(v, 0) == sorted([RS, ECM3])
    card(v, RS)                              # a reserve card into the hand
    named(v, "draw from the action deck")
    named(v, "keep the drawn card")
    assert hand(v, 0) == sorted([PHO6, PH1_4, DR5, RS, DIS5])
    assert reserve(v, 0) == [ECM3]
    assert stage(v) == R.ST_REPAIR or stage(v) == R.ST_FORMATION or stage(v) == R.ST_ATTACK


def test_draw_to_five_basic_game():
    # SFBF Sequenza di gioco 1: the active player draws until it holds five cards
    v = start([pl([PHO6], [CA]), pl([], [C8])], phase="draw", deck=[DR5, ECM3, DIS5, DIS4, PH1_2],
              opts={"game": "basic"})
    assert hand(v, 0) == sorted([PHO6, DR5, ECM3, DIS5, DIS4])
    assert loc(v, PH1_2) == R.CL_DECK


def test_reserve_card_taken_by_a_defender_with_an_empty_hand():
    # SFBF Carte Azione di Riserva, nota (a): a non-active player with no card in hand takes a reserve
    # card and may use it in the same attack
    v = start([pl([PHO6, PH1_4], [CA, "Valiant"]), pl([], [C8, D7], reserve=[RS, ECM3])])
    attack(v, CA, C8, PHO6, PH1_4)
    end_cards(v)
    assert stage(v) == R.ST_DEFENCE
    card(v, RS)                              # reserve -> hand
    assert hand(v, 1) == [RS]
    illegal(v, "CARD", ECM3, R.R_NOT_IN_HAND)  # the hand is no longer empty
    card(v, RS)
    card(v, ECM3)                            # empty again: the next reserve card
    card(v, ECM3, link=PHO6)
    assert hit(v, C8) == 10 - 3 - 3


# =================================================================================================
# end of the game and scoring (Come Vincere)
# =================================================================================================
def test_game_ends_when_one_player_has_ships_and_scores_kills_plus_survivors():
    # SFBF Come Vincere 1-3 (X): destroyed enemy ships plus own ships in screen and main body (not the
    # reserve); the highest total wins
    v = start([pl([PHO6, PH1_4], [CA, ship("Valiant", "main"), ship("Saladin", "reserve")], destroyed=["Remus"]),
               pl([], [ship(D7, damage={"circle": 3})], destroyed=["Federation"])], opts={"reward": "rank"})
    attack(v, CA, D7, PHO6, PH1_4)
    end_cards(v)
    assert g(v, R.G_DONE) == 1
    info = G.final_info(v, 0)
    # player 0: Remus 7 + D7 8 + Constellation 8 + Valiant 6 = 29; player 1: Federation 15
    assert info["kill_points"] == [15, 15]
    assert info["scores"] == [29, 15]
    assert info["won"] == [1, 0] and info["winner"] == 0
    assert v.terminated[0]
    assert list(v.rewards[0]) == [1.0, -1.0]


def test_game_goes_on_while_the_loser_has_reserve_ships():
    # SFBF Come Vincere (X): the game ends only when the others have no ship, the reserve included
    v = start([pl([PHO6, PH1_4], [CA, "Valiant"]), pl([], [ship(D7, damage={"circle": 3}), ship(C8, "reserve")])])
    attack(v, CA, D7, PHO6, PH1_4)
    end_cards(v)
    assert g(v, R.G_DONE) == 0 and sh(v, D7, R.SH_LOC) == R.SL_VP


@pytest.mark.parametrize("tie_break", ["share", "card_draw"])
def test_tie_break(tie_break):
    # SFBF Come Vincere 3: equal totals are both winners; 4: or five cards each from the reshuffled
    # deck, the higher damage total wins, then one card at a time while still tied
    v = start([pl([PHO6, PH1_4], [CA]), pl([], [ship(D7, damage={"circle": 3})], destroyed=["Imperator"])],
              opts={"tie_break": tie_break, "formation": False, "reward": "rank"})
    attack(v, CA, D7, PHO6, PH1_4)
    end_cards(v)
    info = G.final_info(v, 0)
    assert info["scores"] == [16, 16]
    if tie_break == "share":
        assert info["won"] == [1, 1] and info["winner"] == -1
        assert list(v.rewards[0]) == [0.0, 0.0]
        return
    assert sum(info["won"]) == 1
    w = info["winner"]
    ties = [plv(v, p, R.PL_TIE) for p in range(2)]
    assert ties[w] > ties[1 - w]
    # the draws are on the discard pile in order: five rounds of one card each, then one per round
    n = g(v, R.G_DISC_N)
    drawn = [int(c) for c in v.state.disc[0, :n]]
    assert n % 2 == 0 and n >= 10
    totals = [0, 0]
    for j, c in enumerate(drawn):
        totals[j % 2] += CARDS[c].get("value", 0) if G.CARD_TYPES.index(CARDS[c]["type"]) < R.N_WEAPONS else 0
    assert totals == ties
