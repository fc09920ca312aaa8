"""Star Fleet Battle Force's solitaire game (seed 001, "Gioco in solitario") as a mode of the core:
``battle_force_v1.env(solitaire=True)`` is one agent (player_0) against the rulebook's automaton
(seat 1), whose decisions are taken inside the core.  Each test cites the sentence of the
section it checks and scripts the deck (scenario ``deck``: top first) and the dice.

Ships (data/ships.json): the D7 Thunderchild has Ph-1, Ph-2, a drone and two disruptors; the
Constellation two photons, a drone and two Ph-1; the Invincible (C8) 13 spaces; the Lexington is a
carrier with two squadrons.
"""
from __future__ import annotations

import numpy as np
import pytest
from wargym.envs import battle_force_v1
from wargym.envs.battle_force import game as G
from wargym.envs.battle_force import rules as R
from wargym.envs.core.vec import VecGame

CARDS = G.load_cards()
SHIPS = G.load_ships()


def cid(typ, value=None, nth=0):
    return [i for i, c in enumerate(CARDS) if c["type"] == typ and (value is None or c.get("value", 0) == value)][nth]


def sid(name):
    return [s["name"] for s in SHIPS].index(name)


PH1_4, PH1_3, DIS5, DIS4, PHO6, PHO5 = (cid("phaser1", 4), cid("phaser1", 3), cid("disruptor", 5),
                                        cid("disruptor", 4), cid("photon", 6), cid("photon", 5))
RS, ECM3, DC3, OVL = cid("reinforce_shields"), cid("ecm", 3), cid("damage_control", 3), cid("overload")
RS2 = cid("reinforce_shields", nth=1)
C8, D7, CA = "Invincible", "Thunderchild", "Constellation"

_CORES: dict = {}


def core(**opts):
    opts = {"solitaire": True, **opts}
    key = tuple(sorted(opts.items()))
    if key not in _CORES:
        _CORES[key] = VecGame(G, 1, opts)
    return _CORES[key]


def start(human, auto, active=1, phase="attack", dice=(), opts=None, **sc):
    """Player 0 (the agent) and player 1 (the automaton): dicts with hand and ships."""
    v = core(**(opts or {}))
    players = [{"hand": list(p.get("hand", [])),
                "ships": [s if isinstance(s, dict) else {"ship": s} for s in p["ships"]]} for p in (human, auto)]
    v.load_scenario({"players": players, "active": active, "phase": phase, **sc}, seed=0)
    if dice:
        v.script_dice(0, dice)
    return v


def g(v, col):
    return int(v.state.g[0, col])


def loc(v, c):
    return int(v.state.cd[0, c, R.CD_LOC])


def holder_ship(v, c):
    return int(v.state.cd[0, c, R.CD_SHIP])


def auto_hand(v):
    return sorted(int(c) for c in np.flatnonzero((v.state.cd[0, :, R.CD_LOC] == R.CL_HAND)
                                                  & (v.state.cd[0, :, R.CD_WHO] == 1)))


def cov(v, name):
    return int(v.state.sh[0, sid(name), R.SH_COV:R.SH_COV + R.N_KIND].sum())


def act(v, family, arg=0):
    a = G.action_index(v.cfg, family, arg)
    assert v.why_illegal(0, a) is None, v.why_illegal(0, a)
    v.step(np.array([a]))


def test_the_automaton_draws_gives_each_attack_card_to_the_first_ship_and_stops_at_the_first_it_cannot_use():
    # SFBF Gioco in solitario: "pesca carte dal mazzo delle carte azione una per volta. Se peschi una carta
    # di Attacco, assegnala alla prima nave nemica che può utilizzarla. Continua a pescare carte azione
    # finché non ne peschi una che non può utilizzare. Quindi conduci l'attacco ..."; "La nave bersaglio
    # dell'attacco è la prima a sinistra della tua Prima Linea"
    v = start({"ships": [{"ship": "Federation", "line": "main"}, C8, "Valiant"]},
              {"ships": [D7, CA]}, deck=[PHO6, DIS5, PH1_4, RS, DIS4])
    # photon 6: the D7 has no photon, so the Constellation; disruptor 5 and Ph-1 4: the D7 (first);
    # the Reinforce Shields cannot be used: the drawing stops, the Disruptor-4 stays in the deck.
    # The D7 (first ship holding cards) attacks the first screen ship placed, the C8 (not the
    # Federation, placed before it but in the main body); nothing to defend with: 5 + 4 to place
    assert g(v, R.G_STAGE) == R.ST_PLACE and g(v, R.G_DECIDER) == 0
    assert g(v, R.G_DMG_SHIP) == sid(C8) and g(v, R.G_DMG_LEFT) == 9
    assert loc(v, DIS5) == R.CL_ATK and loc(v, PH1_4) == R.CL_ATK      # (on the table until placed)
    # the photon stays with the Constellation for the next turn, the Reinforce Shields in hand
    assert auto_hand(v) == sorted([PHO6, RS]) and holder_ship(v, PHO6) == sid(CA)
    assert loc(v, DIS4) == R.CL_DECK
    assert int(v.state.pl[0, 1, R.PL_HAND]) == 2


def test_a_kept_attack_card_is_used_in_the_next_turn():
    # SFBF Gioco in solitario: "Se l'avversario ha una carta che può essere usata in attacco da una nave,
    # questa carta deve essere usata nel suo prossimo turno": the Constellation, holding the photon
    # kept from the last turn, attacks, though the D7 comes first and gets the new disruptor
    v = start({"ships": [C8, "Valiant"]}, {"hand": [PHO6], "ships": [D7, CA]}, deck=[DIS5, ECM3])
    assert g(v, R.G_STAGE) == R.ST_PLACE
    assert g(v, R.G_DMG_LEFT) == 6 and loc(v, PHO6) == R.CL_ATK
    assert auto_hand(v) == sorted([DIS5, ECM3]) and holder_ship(v, DIS5) == sid(D7)


def test_a_combat_card_goes_with_the_attack_card_it_doubles():
    # SFBF Gioco in solitario: "finché non ne peschi una che non può utilizzare": an Overload on a
    # disruptor given to a ship can be used, so the drawing goes on (disruptor 5 x 2 + Ph-1 4)
    v = start({"ships": [C8, "Valiant"]}, {"ships": [D7, CA]}, deck=[DIS4, OVL, PH1_4, RS])
    assert g(v, R.G_STAGE) == R.ST_PLACE and g(v, R.G_DMG_LEFT) == 8 + 4
    assert auto_hand(v) == [RS]


def test_the_automaton_uses_its_other_cards_in_defence_at_every_opportunity():
    # SFBF Gioco in solitario: "Ogni altra carta pescata dal giocatore avversario deve essere usata in
    # difesa ogni volta può essere utilizzata in risposta di un tuo attacco": ECM 3 on the photon and
    # Reinforce Shields 3: 6 + 4 - 3 - 3 = 4
    v = start({"hand": [PHO6, PH1_4], "ships": [CA, "Valiant"]}, {"hand": [ECM3, RS], "ships": [C8, D7]},
              active=0, deck=[RS2])
    act(v, "SHIP", sid(CA))
    act(v, "SHIP", sid(C8))
    act(v, "CARD", PHO6)
    act(v, "CARD", PH1_4)       # its last card: the defence, the answer and the markers follow
    assert loc(v, ECM3) == R.CL_DISC and loc(v, RS) == R.CL_DISC
    # 4 markers; then, in the automaton's turn, continuous damage control removes one; the card it
    # draws (the second Reinforce Shields) cannot be used in an attack: no attack, the card is kept
    assert cov(v, C8) == 4 - 1 and auto_hand(v) == [RS2]
    assert g(v, R.G_ACTIVE) == 0 and g(v, R.G_DECIDER) == 0


def test_continuous_damage_control_every_turn_even_in_the_basic_game():
    # SFBF Gioco in solitario: "L'avversario usa Continua Riparazione dei Danni normalmente ad ogni turno"
    v = start({"ships": [C8]}, {"ships": [{"ship": D7, "damage": {"circle": 2}},
                                           {"ship": CA, "damage": {"photon": 1}}]},
              phase="repair", opts={"game": "basic"}, deck=[RS])
    assert cov(v, D7) == 1 and cov(v, CA) == 0
    assert g(v, R.G_ACTIVE) == 0 and g(v, R.G_DECIDER) == 0


def test_damage_control_cards_are_used_at_the_first_opportunity():
    # SFBF Gioco in solitario: "Ogni altra carta deve essere usata alla prima opportunità": a Damage
    # Control in hand repairs its most damaged ship in the repair phase (then continuous damage control)
    v = start({"ships": [C8]}, {"hand": [DC3], "ships": [{"ship": D7, "damage": {"circle": 3, "disruptor": 2}}, CA]},
              phase="repair", deck=[RS])
    assert loc(v, DC3) == R.CL_DISC
    assert cov(v, D7) == 5 - 3 - 1


def test_a_carrier_launches_its_fighters_when_there_are_no_cards():
    # SFBF I caccia sulle navi: "Navi che hanno dei caccia a bordo possono usarli in un attacco se non
    # hanno carte per effettuarlo": the first card drawn cannot be used, so the Lexington launches both
    # squadrons at the first screen ship (2d6 = 3 + 2)
    # (the agent's turn first, so that the dice are scripted before the automaton's)
    v = start({"hand": [RS2], "ships": [C8, "Valiant"]}, {"ships": ["Lexington", CA]}, active=0, deck=[RS])
    v.script_dice(0, [3, 2])
    act(v, "DONE")                           # the agent does not attack
    act(v, "DONE")                           # and keeps its card
    assert g(v, R.G_STAGE) == R.ST_DEFENCE and g(v, R.G_ATK_KIND) == R.AK_FIGHTERS
    assert g(v, R.G_SQUADRONS) == 2 and g(v, R.G_TARGET) == sid(C8) and g(v, R.G_ROLL) == 5
    act(v, "DONE")
    assert g(v, R.G_STAGE) == R.ST_PLACE and g(v, R.G_DMG_SHIP) == sid(C8) and g(v, R.G_DMG_LEFT) == 5


def test_set_up_no_cards_for_the_automaton_half_its_ships_in_the_screen():
    # SFBF Gioco in solitario: "Prepara la partita come in un gioco a due giocatori, ma non dare carte
    # azione all'avversario. Piazza le navi nemiche in un ordine a caso, la metà delle navi in Prima
    # Linea le altre in Seconda Linea"
    v = VecGame(G, 4, {"solitaire": True, "ship_selection": "deal"})
    v.reset(seed=3)
    for _ in range(60):                      # the agent's set-up (reserve cards, lines, cloak)
        if (v.state.g[:, R.G_STAGE] >= R.ST_DRAW).all():
            break
        v.step(np.argmax(v.mask, axis=1), v.state.g[:, R.G_STAGE] < R.ST_DRAW)
    for b in range(4):
        assert int(v.state.pl[b, 1, R.PL_RES]) == 0
        assert int(v.state.g[b, R.G_TURN]) > 1 or int(v.state.pl[b, 1, R.PL_HAND]) == 0
        mine = (v.state.sh[b, :, R.SH_LOC] == R.SL_FLEET) & (v.state.sh[b, :, R.SH_OWNER] == 1)
        lines = v.state.sh[b, mine, R.SH_LINE]
        assert mine.sum() == 15 and (lines == R.L_SCREEN).sum() == 8 and (lines == R.L_MAIN).sum() == 7
        assert int(v.state.g[b, R.G_DECIDER]) == 0
    # a random order: the screen ships differ from game to game
    screens = {tuple(np.flatnonzero((v.state.sh[b, :, R.SH_OWNER] == 1) & (v.state.sh[b, :, R.SH_LINE] == 0)))
               for b in range(4)}
    assert len(screens) > 1


@pytest.mark.parametrize("options", [{}, {"game": "basic"}, {"draw_discard": True, "second_attack": True},
                                     {"traditional": True, "em_ecm": "whole_attack"}])
def test_whole_games_one_agent_against_the_automaton(options):
    # the mode: only player_0 decides; every game ends by the rules (no game cut off by a rules bug)
    from wargym.envs.core.sampling import new_streams, sample_legal
    B = 16
    v = VecGame(G, B, {"solitaire": True, "end_turns": 12, **options})
    v.reset(seed=11)
    assert v.num_players == 1 and v.rewards.shape == (B, 1)
    streams = new_streams(B, 11)
    actions = np.zeros(B, dtype=np.int64)
    for _ in range(4000):
        assert (v.current_player == 0).all()
        active = ~v.terminated
        if not active.any():
            break
        sample_legal(v.mask, streams, actions)
        v.step(actions, active)
    assert v.terminated.all()
    assert not v.state.g[:, R.G_TRUNC].any()
    info = G.final_info(v, 0)
    assert len(info["scores"]) == 2


def test_aec_env_has_one_agent_and_bad_options_are_refused():
    env = battle_force_v1.env(solitaire=True)
    env.reset(seed=1)
    assert env.possible_agents == ["player_0"]
    for _, agent in zip(range(300), env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ValueError, match="two-player"):
        battle_force_v1.env(solitaire=True, players=3)


def test_a_special_card_is_played_at_the_first_opportunity_instead_of_drawing():
    # SFBF Gioco in solitario: "Ogni altra carta deve essere usata alla prima opportunità": holding a
    # Klingon Mutiny and no kept attack card, the automaton plays it in its attack phase and draws
    # nothing; the target is the first enemy Klingon ship, screen first (RULES.md 'Solitaire')
    mutiny = cid("klingon_mutiny")
    v = start({"hand": [RS2], "ships": ["Federation", D7, {"ship": C8, "line": "main"}]},
              {"hand": [mutiny], "ships": [CA, "Valiant"]}, active=0, deck=[PH1_4])
    v.script_dice(0, [2])
    act(v, "DONE")                           # the agent does not attack
    act(v, "DONE")                           # and keeps its card
    assert g(v, R.G_STAGE) == R.ST_PLACE and g(v, R.G_DMG_SHIP) == sid(D7) and g(v, R.G_DMG_LEFT) == 2
    assert loc(v, PH1_4) == R.CL_DECK and auto_hand(v) == []
