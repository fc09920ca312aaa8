"""Rules tests for Planetoids (seed 004, ``/work/shared/seeds/004_*.txt``; English in
``envs/planetoids/RULES.md``).

Every test cites the seed section it checks (``# Seed 004 "<section>"``) and asserts exact
outcomes, with the dice scripted.  Positions use ``[row, col]`` on the default 9x21 odd-r map;
the expected geometry (neighbours, ranges, footprints) is recomputed here from the map file and
the neighbour table of RULES.md, independently of the kernels.

Every illegal action goes through ``Game.bad``: it must be masked out, ``why_illegal`` must give
the exact reason, ``step`` must raise ``ValueError`` with that reason, and the whole state (and
the mask and observation) must be unchanged afterwards.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from wargym.envs import planetoids_v0
from wargym.envs.planetoids import game as pgame
from wargym.envs.planetoids import rules as R
from helpers.planetoids import BASE_A, BASE_B, CRU, FIG, MAP, PLANETOIDS, TRA, hexdist, pc, scen

# -- directions and map geometry (RULES.md §0 and §1, written out independently) -------------
E, NE, NW, W, SW, SE = range(6)
DIRS = ("E", "NE", "NW", "W", "SW", "SE")
_EVEN = ((0, 1), (-1, 0), (-1, -1), (0, -1), (1, -1), (1, 0))
_ODD = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, 0), (1, 1))
ROWS, COLS = 9, 21
ASTEROIDS = {tuple(x) for x in MAP["asteroids"]}
HOMES = [tuple(x) for x in MAP["home_planets"]]
PCOLOUR = {(x[0], x[1]): ("blue", "red", "yellow").index(x[2]) for x in MAP["planetoids"]}
BLUE, RED, YELLOW = 0, 1, 2


def on_map(rc):
    r, c = rc
    return 0 <= r < ROWS and 0 <= c < COLS and not (r % 2 == 1 and c == COLS - 1)


def step_rc(rc, d):
    r, c = rc
    dr, dc = (_ODD if r & 1 else _EVEN)[d]
    out = (r + dr, c + dc)
    return out if on_map(out) else None


def footprint(player, kind, rc, facing=E):
    """Hexes covered (RULES.md "Footprints"): bow + stern for cruisers/transports, a fixed
    triangle for mobile bases (player 0: anchor, E, SE; player 1: anchor, W, NW)."""
    if kind in ("cruiser", "transport"):
        return [rc, step_rc(rc, (facing + 3) % 6)]
    if kind == "base":
        dirs = (E, SE) if player == 0 else (W, NW)
        return [rc] + [step_rc(rc, d) for d in dirs]
    return [rc]


def min_dist(fa, fb):
    return min(hexdist(a, b) for a in fa for b in fb)


# Attack tables transcribed from the seed ("Tabella di attacco ..."): lowest hitting d6 per
# range 1..n.  Transports use the fighter row ("Caccia o Trasporto"; the base table has no
# transport row, RULES.md §11), fixed bases the "Base Fissa o Mobile" row.
SEED_TABLE = {
    "fighter": {"base": [5, 6, 6, 6], "cruiser": [5, 6, 6, 6], "fighter": [4, 5, 5, 6],
                "transport": [4, 5, 5, 6], "fixed": [5, 6, 6, 6]},
    "cruiser": {"base": [4, 4, 5, 5, 6, 6, 6, 6], "cruiser": [3, 4, 5, 5, 5, 6, 6, 6],
                "fighter": [2, 3, 4, 4, 4, 5, 5, 5], "transport": [2, 3, 4, 4, 4, 5, 5, 5],
                "fixed": [4, 4, 5, 5, 6, 6, 6, 6]},
    "base": {"base": [2, 2, 3, 4, 4, 4, 5, 5, 5, 6], "cruiser": [2, 2, 3, 4, 4, 4, 5, 5, 5, 6],
             "fighter": [2, 2, 3, 3, 3, 4, 4, 4, 5, 5], "transport": [2, 2, 3, 3, 3, 4, 4, 4, 5, 5],
             "fixed": [2, 2, 3, 4, 4, 4, 5, 5, 5, 6]},
}

KINDS = ("base", "cruiser", "transport", "fighter")


class Game:
    """A raw AEC env plus action builders, state accessors and checking helpers."""

    def __init__(self, scenario=None, seed=0, **options):
        self.env = planetoids_v0.raw_env(**options)
        if scenario is None:
            self.env.reset(seed=seed)
        else:
            self.env.reset(seed=seed, options={"scenario": scenario})
        self.core = self.env.core
        self.cfg = self.core.cfg
        self.L = pgame.layout(self.cfg)

    # -- coordinates and actions ------------------------------------------------------------
    def cell(self, rc):
        return rc[0] * self.L.cols + rc[1]

    def rc(self, cell):
        return tuple(int(v) for v in divmod(int(cell), self.L.cols))

    def select(self, i):
        return self.L.a_piece + i

    def target(self, j):
        return self.L.a_target + j

    def fixed(self, rc):
        f = PLANETOIDS.index(tuple(rc))
        return self.L.a_fixed + f

    def hex(self, rc):
        return self.L.a_hex + self.cell(rc)

    def move(self, d):
        return self.L.a_move + d

    def face(self, d):
        return self.L.a_face + d

    def hyper(self, d):
        return self.L.a_hyper + d

    def launch(self, kind, ramp):
        return self.L.a_launch + 3 * (KINDS.index(kind) - 1) + ramp

    @property
    def COLONISE(self):
        return self.L.a_colonise

    @property
    def REPAIR(self):
        return self.L.a_repair

    @property
    def END_ACT(self):
        return self.L.a_end_act

    @property
    def END_TURN(self):
        return self.L.a_end_turn

    # -- state ----------------------------------------------------------------------------
    def g(self, col):
        return int(self.core.state.g[0, col])

    @property
    def phase(self):
        return self.g(R.G_PHASE)

    @property
    def turn(self):
        return self.g(R.G_TURN)

    @property
    def to_move(self):
        return self.g(R.G_DECIDER)

    def pcv(self, p, i, col):
        return int(self.core.state.pc[0, p, i, col])

    def status(self, p, i):
        return self.pcv(p, i, R.PC_STATUS)

    def pos(self, p, i):
        return self.rc(self.pcv(p, i, R.PC_POS)) if self.status(p, i) == R.ON_MAP else None

    def facing(self, p, i):
        return self.pcv(p, i, R.PC_FACING)

    def damage(self, p, i):
        return self.pcv(p, i, R.PC_DAMAGE)

    def occ(self, p, rc):
        return int(self.core.state.cells[0, self.cell(rc), R.C_OCC + p])

    def occupied(self, p):
        cells = self.core.state.cells[0, :, R.C_OCC + p]
        return {self.rc(c): int(cells[c]) for c in np.flatnonzero(cells)}

    def blocked_by(self, rc):
        return int(self.core.state.cells[0, self.cell(rc), R.C_BLOCKED])

    def fx(self, rc):
        f = PLANETOIDS.index(tuple(rc))
        return int(self.core.state.fx[0, f, R.FX_OWNER]), int(self.core.state.fx[0, f, R.FX_HITS])

    def scores(self):
        return pgame.scores(self.core.state, 0)

    # -- checks -----------------------------------------------------------------------------
    def legal(self, a):
        why = self.core.why_illegal(0, a)
        assert bool(self.core.mask[0, a]) == (why is None), (self.env.action_name(a), why)
        return why is None

    def legal_set(self, base, n):
        return {k for k in range(n) if self.legal(base + k)}

    def do(self, *actions, dice=None):
        if dice is not None:
            self.env.script_dice(list(dice))
        for a in actions:
            why = self.core.why_illegal(0, a)
            assert why is None, why
            assert self.core.mask[0, a] == 1, self.env.action_name(a)
            self.env.step(a)

    def shoot(self, a, die):
        """Fire with action ``a`` and a scripted die; returns nothing, checks the die was used."""
        self.do(a, dice=[die])
        assert self.g(R.G_LAST_DIE) == die

    def bad(self, a, code):
        """``a`` is illegal for reason ``code``; trying it raises and changes nothing."""
        reason = pgame.REASONS[code]
        assert self.core.mask[0, a] == 0, f"{self.env.action_name(a)} is in the mask"
        why = self.core.why_illegal(0, a)
        assert why is not None and why.endswith("is illegal: " + reason), (self.env.action_name(a), why, reason)
        before = self.core.clone_state()
        mask, obs = self.core.mask.copy(), self.core.obs.copy()
        with pytest.raises(ValueError, match=re.escape(reason)):
            self.env.step(a)
        for k, v in before.arrays.items():
            np.testing.assert_array_equal(self.core.state.arrays[k], v, err_msg=f"state field {k} changed")
        np.testing.assert_array_equal(self.core.mask, mask)
        np.testing.assert_array_equal(self.core.obs, obs)


def check_range(attacker_fp, target_fp, expected):
    """Sanity check of a hand-built position: the hex distance between the footprints."""
    assert min_dist(attacker_fp, target_fp) == expected


# =============================================================================================
# Map: asteroid belts, home planets, planetoids
# =============================================================================================
def test_asteroid_belts_are_impassable_for_every_kind():
    # Seed 004 "Elementi del gioco": "Fasce di asteroidi: intransitabili".
    g = Game(scen([pc(0, "fighter", [4, 4]), pc(0, "transport", [2, 2], "E"), pc(0, "cruiser", [5, 7], "E"),
                   pc(0, "base", [3, 1])]))
    assert (4, 5) in ASTEROIDS and (2, 3) in ASTEROIDS and (5, 8) in ASTEROIDS
    g.do(g.select(FIG))
    g.bad(g.move(E), R.R_IMPASSABLE)          # fighter [4,4] -> [4,5]
    g.bad(g.hex([4, 5]), R.R_IMPASSABLE)      # no shot into an asteroid hex either
    g.do(g.END_ACT, g.select(TRA))
    g.bad(g.move(E), R.R_IMPASSABLE)          # transport bow [2,2] -> [2,3]
    g.do(g.END_ACT, g.select(CRU))
    g.bad(g.move(E), R.R_IMPASSABLE)          # cruiser bow [5,7] -> [5,8]
    g.do(g.END_ACT, g.select(BASE_A))
    g.bad(g.move(NE), R.R_IMPASSABLE)         # base anchor [2,2]: its E hex is [2,3]
    # a scenario cannot put a piece on an asteroid either
    with pytest.raises(ValueError, match="impassable"):
        Game(scen([pc(0, "fighter", [4, 5])]))


def test_home_planets_are_impassable():
    # Seed 004 "Elementi del gioco" (home planets; RULES.md: impassable like asteroid belts).
    g = Game(scen([pc(0, "fighter", [4, 1]), pc(0, "fighter", [4, 19]), pc(0, "fighter", [5, 0])]))
    g.do(g.select(FIG))
    g.bad(g.move(W), R.R_IMPASSABLE)          # [4,1] -> own home planet [4,0]
    g.bad(g.hex([4, 0]), R.R_IMPASSABLE)
    g.do(g.END_ACT, g.select(FIG + 1))        # enemy pieces may stand on ramps ...
    g.bad(g.move(E), R.R_IMPASSABLE)          # ... but not on the enemy home planet [4,20]
    g.do(g.END_ACT, g.select(FIG + 2))
    g.bad(g.move(NW), R.R_IMPASSABLE)         # [5,0] -> [4,0]


def test_visible_planetoids_block_all_but_transports():
    # Seed 004 "Elementi del gioco": planetoids exist only in their colour's turns and can be
    # crossed only by transports.  Turn 0 is blue: [4,10] is there, red [2,7] is not.
    g = Game(scen([pc(0, "fighter", [4, 9]), pc(0, "fighter", [2, 6]), pc(0, "transport", [4, 8], "E")]))
    assert g.cfg.colour_seq[0] == BLUE and PCOLOUR[(4, 10)] == BLUE and PCOLOUR[(2, 7)] == RED
    g.do(g.select(FIG))
    g.bad(g.move(E), R.R_IMPASSABLE)          # visible blue planetoid
    g.bad(g.hex([4, 10]), R.R_IMPASSABLE)     # and not "empty space"
    g.do(g.END_ACT, g.select(FIG + 1), g.move(E))
    assert g.pos(0, FIG + 1) == (2, 7)        # invisible red planetoid: ordinary space
    g.do(g.END_ACT, g.select(TRA))
    for k in range(1, 6):                     # the transport crosses and stands on [4,10]
        g.do(g.move(E))
        assert g.pos(0, TRA) == (4, 8 + k)
        if k == 2:
            assert g.occupied(0)[(4, 10)] == 1 and g.occupied(0)[(4, 9)] == 2  # stern over own fighter
    assert g.occupied(0) == {(2, 7): 1, (4, 9): 1, (4, 13): 1, (4, 12): 1}

    # Turn 1 is red: now [4,10] is space and [2,7] is an obstacle.
    g = Game(scen([pc(0, "fighter", [4, 9]), pc(0, "fighter", [2, 6]), pc(0, "transport", [2, 6], "E")], turn=1))
    assert g.cfg.colour_seq[1] == RED
    g.do(g.select(FIG), g.move(E))
    assert g.pos(0, FIG) == (4, 10)
    g.do(g.END_ACT, g.select(FIG + 1))
    g.bad(g.move(E), R.R_IMPASSABLE)
    g.do(g.END_ACT, g.select(TRA), g.move(E))
    assert g.pos(0, TRA) == (2, 7)


def test_planetoid_appearance_destroys_ships_but_not_transports():
    # Seed 004 "Elementi del gioco": 'Se un pianetino "appare" sopra un'astronave essa è
    # distrutta'; transports may wait on a planetoid (Seed 004 "Colonizzazione").
    g = Game(scen([
        pc(0, "fighter", [2, 7]),             # red: destroyed when turn 1 (red) starts
        pc(0, "fighter", [3, 7]),             # yellow: survives turn 1, destroyed at turn 2
        pc(0, "transport", [6, 13], "E"),     # bow on red [6,13]: survives
        pc(1, "fighter", [0, 12]),            # red: destroyed
        pc(1, "transport", [8, 9], "E"),      # stern on red [8,8]: survives
        pc(1, "fighter", [4, 12]),            # plain space: survives
    ]))
    assert [int(c) for c in g.cfg.colour_seq[:3]] == [BLUE, RED, YELLOW]
    g.do(g.END_TURN)
    # nothing happens between the two moves of a turn
    assert g.status(0, FIG) == R.ON_MAP and g.status(1, FIG) == R.ON_MAP
    g.do(g.END_TURN)
    assert (g.turn, g.to_move, g.phase) == (1, 0, R.SELECT)
    assert g.status(0, FIG) == R.DESTROYED and g.status(1, FIG) == R.DESTROYED
    assert g.status(0, FIG + 1) == R.ON_MAP and g.status(1, FIG + 1) == R.ON_MAP
    assert g.pos(0, TRA) == (6, 13) and g.pos(1, TRA) == (8, 9)
    assert g.occ(0, (2, 7)) == 0 and g.occ(1, (0, 12)) == 0
    g.do(g.END_TURN, g.END_TURN)
    assert g.turn == 2 and g.status(0, FIG + 1) == R.DESTROYED
    assert g.status(0, TRA) == R.ON_MAP and g.status(1, TRA) == R.ON_MAP


def test_planetoid_appearance_destroys_cruisers_and_bases_with_keep_away_visible():
    # Seed 004 "Elementi del gioco" + option keep_away="visible" (RULES.md §3): cruisers and
    # bases may then stand on a planetoid of another colour and die when it appears; the
    # overlap rule (Seed 004 "Combattimento") takes a fighter stacked on the base with it.
    g = Game(scen([
        pc(0, "cruiser", [0, 12], "W"),       # bow on red [0,12], stern [0,13]
        pc(1, "base", [8, 8]),                # triangle [8,8] (red), [8,7], [7,7]
        pc(1, "fighter", [7, 7]),             # overlaps the base
        pc(1, "fighter", [7, 9]),             # does not
    ]), keep_away="visible")
    g.do(g.END_TURN, g.END_TURN)
    assert g.turn == 1
    assert g.status(0, CRU) == R.DESTROYED
    assert g.status(1, BASE_A) == R.DESTROYED
    assert g.status(1, FIG) == R.DESTROYED
    assert g.status(1, FIG + 1) == R.ON_MAP
    assert g.occupied(1) == {(7, 9): 1} and g.occupied(0) == {}


# =============================================================================================
# Colour table, length of the game, score
# =============================================================================================
def test_colour_table():
    # Seed 004 "Tabella Turni Temporali (51 turni)": default "rows" = 3 rows of 17 turns, each
    # B R Y B R Y ... B R from blue; option "cycle" = B R Y repeated.
    g = Game(setup="fixed")
    row = ([BLUE, RED, YELLOW] * 6)[:17]
    assert [int(c) for c in g.cfg.colour_seq] == row * 3
    seq = list(g.cfg.colour_seq)
    assert (seq.count(BLUE), seq.count(RED), seq.count(YELLOW)) == (18, 18, 15)
    g = Game(setup="fixed", colour_table="cycle")
    assert [int(c) for c in g.cfg.colour_seq] == [t % 3 for t in range(51)]


def test_game_lasts_51_colour_turns_with_both_players_moving_in_each():
    # Seed 004 "Fasi del gioco": "Fine Partita: dopo 51 turni (i.e. 51 "fase colore")".
    g = Game(setup="fixed")
    expected_colours = ([BLUE, RED, YELLOW] * 6)[:17] * 3
    for t in range(51):
        assert (g.turn, g.to_move, g.phase) == (t, 0, R.SELECT)
        # observation channel 7: the planetoids of this turn's colour exist
        for rc in PLANETOIDS:
            assert g.core.obs[0, 7, rc[0], rc[1]] == int(PCOLOUR[rc] == expected_colours[t]), (t, rc)
        g.do(g.END_TURN)
        assert (g.turn, g.to_move) == (t, 1) and not g.env.terminations["player_0"]
        g.do(g.END_TURN)
    assert g.phase == R.OVER and g.turn == 51
    assert all(g.env.terminations.values())
    assert g.core.mask[0].sum() == 0
    assert g.core.why_illegal(0, g.END_TURN).endswith(pgame.REASONS[R.R_GAME_OVER])
    assert g.env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert g.env.infos["player_0"] == {"winner": -1, "scores": [0, 0], "rounds": 51}


def test_final_score_decides_the_winner():
    # Seed 004 "Fasi del gioco", Punteggio: 4 points per fixed base minus 1 per hit it took.
    g = Game(scen([], turn=50, fixed_bases=[
        {"player": 0, "hex": [4, 10], "hits": 1}, {"player": 0, "hex": [2, 7], "hits": 4},
        {"player": 1, "hex": [7, 14], "hits": 0}]))
    assert g.scores() == [3 + 0, 4]
    assert g.core.obs[0, 44, 0, 0] == 3 and g.core.obs[0, 45, 0, 0] == 4
    g.do(g.END_TURN)
    assert not g.env.terminations["player_0"]
    g.do(g.END_TURN)
    assert g.env.terminations == {"player_0": True, "player_1": True}
    assert g.env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert g.env.infos["player_1"] == {"winner": 1, "scores": [3, 4], "rounds": 51}


def test_score_reward_follows_colonisation_and_hits():
    # Seed 004 "Punteggio" with option reward="score": every step pays the change of
    # (own score - enemy score).
    g = Game(scen([pc(0, "transport", [4, 9], "E"), pc(0, "cruiser", [8, 1], "E")],
                  fixed_bases=[{"player": 1, "hex": [8, 8], "hits": 0}]), reward="score")
    g.do(g.select(TRA), g.move(E), g.COLONISE)
    assert g.env.rewards == {"player_0": 4.0, "player_1": -4.0}
    g.do(g.END_ACT)
    assert g.env.rewards == {"player_0": 0.0, "player_1": 0.0}
    g.do(g.select(CRU))
    g.shoot(g.fixed([8, 8]), 6)                       # cruiser vs fixed base, range 7: 6
    assert g.env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert g.scores() == [4, 3]


# =============================================================================================
# Movimento
# =============================================================================================
def test_one_piece_at_a_time_each_at_most_once_per_move():
    # Seed 004 "Movimento": "Si muove e si fa sparare una nave alla volta".
    g = Game(scen([pc(0, "fighter", [4, 4]), pc(0, "fighter", [8, 0])]))
    g.bad(g.END_ACT, R.R_WRONG_PHASE)
    g.bad(g.select(FIG + 2), R.R_PIECE_UNAVAILABLE)   # still in reserve
    g.do(g.select(FIG))
    assert (g.phase, g.g(R.G_ACTIVE)) == (R.ACT, FIG)
    g.bad(g.select(FIG + 1), R.R_WRONG_PHASE)
    g.bad(g.END_TURN, R.R_WRONG_PHASE)
    g.bad(g.launch("fighter", 0), R.R_WRONG_PHASE)
    g.do(g.END_ACT)
    g.bad(g.select(FIG), R.R_ALREADY_ACTIVATED)
    g.do(g.select(FIG + 1), g.END_ACT, g.END_TURN)
    assert (g.turn, g.to_move) == (0, 1)
    g.do(g.END_TURN)
    assert (g.turn, g.to_move) == (1, 0)
    g.do(g.select(FIG))                               # available again in the next move


def test_own_pieces_can_be_crossed_and_stacked_enemy_pieces_cannot():
    # Seed 004 "Movimento": "E' possibile transitare sopra le proprie navi" and stack without
    # limit; enemy pieces (and enemy fixed bases, RULES.md §2) may not be entered.
    g = Game(scen([
        pc(0, "fighter", [4, 1]), pc(0, "base", [3, 1]), pc(0, "cruiser", [4, 3], "W"),
        pc(0, "fighter", [3, 6]),
        pc(1, "fighter", [3, 4]), pc(1, "cruiser", [5, 3], "W"),
    ], fixed_bases=[{"player": 1, "hex": [3, 7], "hits": 0}]))
    g.do(g.select(FIG))
    for k, rc in enumerate([(4, 2), (4, 3), (4, 4)]):  # over own base, own cruiser bow and stern
        g.do(g.move(E))
        assert g.pos(0, FIG) == rc
    assert g.occ(0, (4, 4)) == 2                       # stacked on the cruiser's stern
    g.bad(g.move(NE), R.R_ENEMY_HEX)                   # enemy fighter on [3,4]
    g.bad(g.move(SE), R.R_ENEMY_HEX)                   # enemy cruiser's stern on [5,4]
    g.do(g.END_ACT, g.select(FIG + 1))
    g.bad(g.move(E), R.R_ENEMY_HEX)                    # enemy fixed base on invisible [3,7]
    g.do(g.END_ACT, g.select(CRU), g.move(W))          # cruiser moves over its own base
    assert g.pos(0, CRU) == (4, 2) and g.occ(0, (4, 2)) == 2


# =============================================================================================
# Astronavi: mobile base
# =============================================================================================
def test_mobile_base_footprint_and_two_hex_translation():
    # Seed 004 "Astronavi": "Base Mobile: trasla di 2 esagoni in qualsiasi direzione".
    g = Game(scen([pc(0, "base", [3, 1]), pc(1, "base", [5, 19])]))
    assert g.occupied(0) == {rc: 1 for rc in footprint(0, "base", (3, 1))} == {(3, 1): 1, (3, 2): 1, (4, 2): 1}
    assert g.occupied(1) == {(5, 19): 1, (5, 18): 1, (4, 19): 1}
    g.do(g.select(BASE_A), g.move(W))
    assert g.pos(0, BASE_A) == (3, 0) and g.occupied(0) == {(3, 0): 1, (3, 1): 1, (4, 1): 1}
    g.do(g.move(SE))
    assert g.pos(0, BASE_A) == (4, 1) and g.occupied(0) == {(4, 1): 1, (4, 2): 1, (5, 1): 1}
    g.bad(g.move(E), R.R_MOVE_LIMIT)
    g.bad(g.face(W), R.R_CANNOT_PIVOT)


def test_mobile_base_keeps_three_hexes_from_planetoids():
    # Seed 004 "Astronavi": "Deve sempre restare ad almeno 3 esagoni dai Pianetini".
    # Moving anchor [3,2] -> [3,3] puts hex [3,4] at distance 2 from blue [1,5] and 3 from red [2,7].
    assert hexdist((3, 4), (1, 5)) == 2 and hexdist((3, 4), (2, 7)) == 3
    g = Game(scen([pc(0, "base", [3, 2])], turn=1))            # red turn, keep_away="all"
    g.do(g.select(BASE_A))
    g.bad(g.move(E), R.R_TOO_CLOSE)                             # counts the invisible blue one
    g = Game(scen([pc(0, "base", [3, 2])], turn=1), keep_away="visible")
    g.do(g.select(BASE_A), g.move(E))
    assert g.pos(0, BASE_A) == (3, 3)
    g = Game(scen([pc(0, "base", [3, 2])], turn=0), keep_away="visible")
    g.do(g.select(BASE_A))
    g.bad(g.move(E), R.R_TOO_CLOSE)                             # blue [1,5] exists in turn 0


def test_mobile_base_fires_once_at_every_target_each_hex_option():
    # Seed 004 "Astronavi": "Spara su tutti i bersagli raggiungibili (1 volta su ciascuno)",
    # under option base_space_shots="each_hex" (RULES.md §3): every empty hex in reach is a
    # target too, each once.
    base = footprint(0, "base", (3, 1))
    check_range(base, [(2, 2)], 1)
    check_range(base, [(5, 3)], 2)
    check_range(base, footprint(1, "cruiser", (1, 1), W), 2)
    g = Game(scen([pc(0, "base", [3, 1]), pc(1, "fighter", [2, 2]), pc(1, "fighter", [5, 3]),
                   pc(1, "cruiser", [1, 1], "W")]), base_space_shots="each_hex")
    g.do(g.select(BASE_A))
    g.shoot(g.target(FIG), 1)                                   # range 1 needs 2: miss
    assert g.status(1, FIG) == R.ON_MAP
    g.bad(g.target(FIG), R.R_ALREADY_SHOT)
    g.shoot(g.target(FIG + 1), 2)                               # range 2 needs 2: hit
    assert g.status(1, FIG + 1) == R.DESTROYED
    g.shoot(g.target(CRU), 2)
    assert g.damage(1, CRU) == 1
    g.bad(g.target(CRU), R.R_ALREADY_SHOT)
    g.shoot(g.hex([2, 1]), 1)                                   # into space, range 1: miss
    g.bad(g.hex([2, 1]), R.R_ALREADY_SHOT)
    g.shoot(g.hex([2, 0]), 2)
    assert g.blocked_by((2, 0)) == 0
    assert g.g(R.G_SHOTS) == 5
    g.do(g.move(W))                                             # firing does not stop it moving
    g.do(g.END_ACT, g.END_TURN, g.END_TURN)
    g.do(g.select(BASE_A))                                      # next activation: A again
    check_range(footprint(0, "base", (3, 0)), [(2, 2)], 1)
    g.shoot(g.target(FIG), 2)
    assert g.status(1, FIG) == R.DESTROYED


def test_mobile_base_fires_once_at_each_enemy_and_once_into_space():
    # Seed 004 "Astronavi": "Spara su tutti i bersagli raggiungibili (1 volta su ciascuno)",
    # with "Combattimento": "E' permesso sparare un colpo 'a vuoto' (nello spazio)".  Default
    # reading (RULES.md §3, mobile base): the base fires once at each enemy piece and enemy
    # fixed base in reach, and at most one shot into space per activation, at a hex it chooses.
    base = footprint(0, "base", (3, 1))
    check_range(base, [(2, 2)], 1)
    check_range(base, [(5, 3)], 2)
    g = Game(scen([pc(0, "base", [3, 1]), pc(1, "fighter", [2, 2]), pc(1, "fighter", [5, 3])],
                  fixed_bases=[{"player": 1, "hex": [2, 7], "hits": 0}]))
    g.do(g.select(BASE_A))
    space = g.legal_set(g.L.a_hex, len(g.cfg.cell))
    assert {g.cell((2, 1)), g.cell((2, 0)), g.cell((6, 6))} <= space   # a choice among many hexes
    g.shoot(g.hex([2, 1]), 1)                                   # into space, range 1: miss
    assert g.blocked_by((2, 1)) == -1
    for rc in ((2, 1), (2, 0), (6, 6)):                         # the one shot into space is spent
        g.bad(g.hex(rc), R.R_BASE_ONE_SPACE_SHOT)
    assert g.legal_set(g.L.a_hex, len(g.cfg.cell)) == set()
    g.shoot(g.target(FIG), 1)                                   # the enemy pieces are still targets
    g.bad(g.target(FIG), R.R_ALREADY_SHOT)
    g.shoot(g.target(FIG + 1), 2)
    assert g.status(1, FIG + 1) == R.DESTROYED
    check_range(base, [(2, 7)], 5)
    g.shoot(g.fixed([2, 7]), 4)                                 # base vs fixed base r5: 4 hits
    assert g.fx((2, 7)) == (1, 1)
    g.bad(g.fixed([2, 7]), R.R_ALREADY_SHOT)
    assert g.g(R.G_SHOTS) == 4 and g.g(R.G_SPACE_SHOTS) == 1
    g.do(g.move(W))                                             # firing does not stop it moving
    g.bad(g.hex([2, 0]), R.R_BASE_ONE_SPACE_SHOT)
    g.do(g.END_ACT, g.END_TURN, g.END_TURN)
    g.do(g.select(BASE_A))                                      # next activation: a new shot into space
    g.shoot(g.hex([2, 1]), 2)                                   # range 1 needs 2: hit, the hex is blocked
    assert g.blocked_by((2, 1)) == 0
    g.bad(g.hex([2, 0]), R.R_BASE_ONE_SPACE_SHOT)


def test_only_the_mobile_base_has_one_shot_into_space():
    # Seed 004 "Astronavi" / "Combattimento": the limit of one shot into space is the base's
    # (its shots are otherwise unlimited); a cruiser's 2 shots may both go into space.
    g = Game(scen([pc(0, "cruiser", [4, 3], "E")]))
    g.do(g.select(CRU))
    g.shoot(g.hex([4, 4]), 1)
    g.shoot(g.hex([5, 3]), 1)
    assert g.g(R.G_SPACE_SHOTS) == 2
    g.bad(g.hex([3, 3]), R.R_NO_SHOTS)


# =============================================================================================
# Astronavi: cruiser
# =============================================================================================
def test_cruiser_moves_straight_up_to_nine_hexes_counted_at_the_bow():
    # Seed 004 "Astronavi": "muove al massimo di 9 esagoni in linea retta (contando sull'esagono
    # della prua)".  keep_away="visible" frees row 8 in the blue turn.
    g = Game(scen([pc(0, "cruiser", [8, 1], "E")]), keep_away="visible")
    g.do(g.select(CRU))
    g.bad(g.move(NE), R.R_NOT_FORWARD)
    g.bad(g.move(W), R.R_NOT_FORWARD)
    for k in range(1, 10):
        g.do(g.move(E))
        assert g.pos(0, CRU) == (8, 1 + k) and g.g(R.G_STEPS) == k
        assert g.occupied(0) == {(8, 1 + k): 1, (8, k): 1}
    g.bad(g.move(E), R.R_MOVE_LIMIT)
    # free pivot on the bow at the end of the move, any angle; it ends the movement
    g.bad(g.face(NE), R.R_OFF_MAP)                              # the stern would leave the map
    g.do(g.face(W))
    assert (g.pos(0, CRU), g.facing(0, CRU)) == ((8, 10), W)
    assert g.occupied(0) == {(8, 10): 1, (8, 11): 1} and g.g(R.G_STEPS) == 9
    g.bad(g.move(W), R.R_MOVE_DONE)
    g.bad(g.face(E), R.R_MOVE_DONE)


def test_cruiser_pivot_is_free_checks_the_stern_and_ends_movement():
    # Seed 004 "Astronavi": "Può virare solo a fine movimento, facendo perno sulla prua. Tale
    # rotazione è gratuita per qualsiasi angolo di virata."
    g = Game(scen([pc(0, "cruiser", [3, 4], "E")]))
    g.do(g.select(CRU))
    g.bad(g.face(E), R.R_SAME_FACING)
    g.bad(g.face(NW), R.R_IMPASSABLE)                           # stern to asteroid [4,5]
    g.bad(g.face(SW), R.R_TOO_CLOSE)                            # stern to [2,5], next to blue [1,5]
    g.do(g.face(W))                                             # half turn without moving
    assert (g.pos(0, CRU), g.facing(0, CRU)) == ((3, 4), W)
    assert g.occupied(0) == {(3, 4): 1, (3, 5): 1}
    g.bad(g.move(W), R.R_MOVE_DONE)


def test_cruiser_keeps_two_hexes_from_planetoids():
    # Seed 004 "Astronavi": "Deve sempre restare ad almeno 2 esagoni dai Pianetini".
    assert hexdist((3, 6), (2, 7)) == 1 and hexdist((3, 5), (2, 7)) == 2
    g = Game(scen([pc(0, "cruiser", [3, 3], "E")]))
    g.do(g.select(CRU), g.move(E), g.move(E))
    assert g.pos(0, CRU) == (3, 5)
    g.bad(g.move(E), R.R_TOO_CLOSE)                             # [3,6]: red and yellow, both invisible
    g = Game(scen([pc(0, "cruiser", [3, 3], "E")]), keep_away="visible")
    g.do(g.select(CRU), g.move(E), g.move(E), g.move(E))
    assert g.pos(0, CRU) == (3, 6)


def test_cruiser_fires_twice_at_the_same_or_different_targets():
    # Seed 004 "Astronavi": "Spara 2 volte per turno".
    g = Game(scen([pc(0, "cruiser", [4, 2], "E"), pc(1, "cruiser", [4, 4], "E")]))
    check_range(footprint(0, "cruiser", (4, 2)), footprint(1, "cruiser", (4, 4)), 1)
    g.do(g.select(CRU))
    g.shoot(g.target(CRU), 3)                                   # cruiser vs cruiser r1: 3
    g.shoot(g.target(CRU), 3)
    assert g.damage(1, CRU) == 2
    g.bad(g.target(CRU), R.R_NO_SHOTS)
    g.bad(g.hex([3, 2]), R.R_NO_SHOTS)
    g = Game(scen([pc(0, "cruiser", [4, 2], "E"), pc(1, "cruiser", [4, 4], "E"), pc(1, "fighter", [3, 2])]))
    g.do(g.select(CRU))
    g.shoot(g.hex([5, 2]), 2)                                   # a shot into space is one of the two
    g.shoot(g.target(FIG), 2)                                   # cruiser vs fighter r1: 2
    assert g.status(1, FIG) == R.DESTROYED and g.blocked_by((5, 2)) == -1
    g.bad(g.target(CRU), R.R_NO_SHOTS)


# =============================================================================================
# Astronavi: fighter and transport
# =============================================================================================
def test_fighter_moves_nine_hexes_along_any_path():
    # Seed 004 "Astronavi": "Caccia: muove al massimo di 9 esagoni in qualsiasi direzione, senza
    # limitazioni di cambio di rotta".
    g = Game(scen([pc(0, "fighter", [8, 0])]))
    g.do(g.select(FIG))
    g.bad(g.face(NE), R.R_CANNOT_PIVOT)
    rc = (8, 0)
    for d in (NE, E, SE, E, NE, E, SE, NW, W):
        rc = step_rc(rc, d)
        g.do(g.move(d))
        assert g.pos(0, FIG) == rc
    assert rc == (7, 3) and g.g(R.G_STEPS) == 9
    g.bad(g.move(E), R.R_MOVE_LIMIT)


def test_fighter_fires_once():
    # Seed 004 "Astronavi": "Spara 1 volta per turno".
    g = Game(scen([pc(0, "fighter", [4, 4]), pc(1, "fighter", [3, 4]), pc(1, "fighter", [5, 4])]))
    g.do(g.select(FIG))
    g.shoot(g.target(FIG), 3)                                   # fighter vs fighter r1: 4 -> miss
    assert g.status(1, FIG) == R.ON_MAP
    g.bad(g.target(FIG + 1), R.R_NO_SHOTS)
    g.bad(g.target(FIG), R.R_NO_SHOTS)
    g.bad(g.hex([4, 3]), R.R_NO_SHOTS)


def test_transport_moves_like_a_cruiser_and_never_fires():
    # Seed 004 "Astronavi": "Trasporto: muove come l'incrociatore"; "eccetto i Trasporti, che
    # non combattono".  Transports keep no distance from planetoids.
    g = Game(scen([pc(0, "transport", [4, 8], "E"), pc(0, "transport", [8, 1], "E"), pc(1, "fighter", [3, 8])]))
    g.do(g.select(TRA))
    g.bad(g.target(FIG), R.R_NO_SHOTS)
    g.bad(g.hex([5, 8]), R.R_NO_SHOTS)
    g.bad(g.move(NE), R.R_NOT_FORWARD)
    g.do(g.move(E), g.move(E))                                  # onto visible blue [4,10]
    assert g.pos(0, TRA) == (4, 10)
    g.do(g.face(SE))
    assert g.occupied(0)[(3, 9)] == 1                           # stern swung to NW of the bow
    g.bad(g.move(SE), R.R_MOVE_DONE)
    g.do(g.END_ACT, g.select(TRA + 1))
    for k in range(9):
        g.do(g.move(E))
    assert g.pos(0, TRA + 1) == (8, 10)
    g.bad(g.move(E), R.R_MOVE_LIMIT)


def test_firing_before_during_and_after_movement():
    # Seed 004 "Astronavi", Nota: "possono sparare prima, durante o alla fine del loro movimento".
    g = Game(scen([pc(0, "cruiser", [8, 1], "E"), pc(0, "fighter", [0, 0])]), keep_away="visible")
    g.do(g.select(CRU))
    g.shoot(g.hex([7, 1]), 1)                                   # before moving
    g.do(g.move(E), g.move(E), g.move(E))
    g.shoot(g.hex([7, 4]), 1)                                   # during (invisible yellow [7,4])
    g.do(g.move(E), g.move(E))                                  # shots do not use movement
    assert g.pos(0, CRU) == (8, 6) and g.g(R.G_STEPS) == 5 and g.g(R.G_SHOTS) == 2
    g.do(g.face(W), g.END_ACT)
    g.do(g.select(FIG), g.move(E), g.move(E), g.move(E), g.move(E))
    g.shoot(g.hex([1, 4]), 1)
    for _ in range(5):
        g.do(g.move(E))
    assert g.pos(0, FIG) == (0, 9)
    g.bad(g.move(E), R.R_MOVE_LIMIT)
    # and after moving
    g = Game(scen([pc(0, "fighter", [0, 0]), pc(1, "fighter", [1, 9])]))
    g.do(g.select(FIG), *[g.move(E)] * 9)
    g.shoot(g.target(FIG), 4)
    assert g.status(1, FIG) == R.DESTROYED


# =============================================================================================
# Fasi del gioco: setup and launching
# =============================================================================================
def _setup_anchors(player):
    """Anchors where a base may be placed at setup, computed from the map file."""
    pdist = {rc: min(hexdist(rc, q) for q in PLANETOIDS) for rc in
             [(r, c) for r in range(ROWS) for c in range(COLS) if on_map((r, c))]}
    out = set()
    for rc in pdist:
        fp = footprint(player, "base", rc)
        if any(h is None or h in ASTEROIDS or h in HOMES or pdist[h] < 3 for h in fp):
            continue
        if any(hexdist(h, HOMES[player]) == 1 for h in fp):
            out.add(rc)
    return out


def test_setup_bases_alternate_adjacent_to_home_planet():
    # Seed 004 "Fasi del gioco": "ogni giocatore piazza le 2 Basi Spaziali in esagoni adiacenti
    # al pianeta di partenza".
    g = Game()
    assert (g.phase, g.to_move) == (R.SETUP, 0)
    legal0 = {g.rc(c) for c in g.legal_set(g.L.a_hex, len(g.cfg.cell))}
    assert legal0 == _setup_anchors(0) == {(2, 0), (3, 0), (4, 1), (5, 0)}
    g.bad(g.hex([6, 0]), R.R_NOT_NEAR_HOME)
    g.bad(g.hex([3, 2]), R.R_NOT_NEAR_HOME)
    g.bad(g.hex([4, 0]), R.R_IMPASSABLE)
    g.bad(g.END_TURN, R.R_WRONG_PHASE)
    g.bad(g.select(BASE_A), R.R_WRONG_PHASE)
    g.do(g.hex([3, 0]))
    assert (g.phase, g.to_move) == (R.SETUP, 1)
    legal1 = {g.rc(c) for c in g.legal_set(g.L.a_hex, len(g.cfg.cell))}
    assert legal1 == _setup_anchors(1) == {(3, 19), (4, 19), (5, 19), (6, 20)}
    g.do(g.hex([5, 19]))
    assert (g.phase, g.to_move) == (R.SETUP, 0)
    g.do(g.hex([3, 0]))                                         # stacking on the first base is allowed
    g.do(g.hex([3, 19]))
    assert (g.phase, g.to_move, g.turn) == (R.SELECT, 0, 0)
    assert [g.pos(0, BASE_A), g.pos(0, BASE_B), g.pos(1, BASE_A), g.pos(1, BASE_B)] == [
        (3, 0), (3, 0), (5, 19), (3, 19)]


def test_fixed_setup_start_hexes():
    # Seed 004 "Fasi del gioco" with setup="fixed": the map's start hexes, which are legal
    # setup anchors (both adjacent to the home planet).
    g = Game(setup="fixed")
    assert (g.phase, g.to_move, g.turn) == (R.SELECT, 0, 0)
    assert [g.pos(0, BASE_A), g.pos(0, BASE_B)] == [(3, 0), (5, 0)]
    assert [g.pos(1, BASE_A), g.pos(1, BASE_B)] == [(5, 19), (3, 19)]
    assert {(3, 0), (5, 0)} <= _setup_anchors(0) and {(5, 19), (3, 19)} <= _setup_anchors(1)


RAMPS = {0: [((3, 0), NE), ((4, 1), E), ((5, 0), SE)], 1: [((5, 19), SW), ((4, 19), W), ((3, 19), NW)]}


@pytest.mark.parametrize("kind", ["cruiser", "transport", "fighter"])
@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("ramp", [0, 1, 2])
def test_launch_position_on_each_ramp(kind, player, ramp):
    # Seed 004 "Fasi del gioco": "Le navi entrano in gioco dalle "rampe" collocate sui Pianeti
    # Base (3 rampe per ciascun pianeta)".  Stern on the ramp, bow outward (RULES.md §5).
    g = Game(scen([], to_move=player))
    g.do(g.launch(kind, ramp))
    slot = {"cruiser": CRU, "transport": TRA, "fighter": FIG}[kind]
    ramp_rc, d = RAMPS[player][ramp]
    assert g.status(player, slot) == R.ON_MAP
    if kind == "fighter":
        assert g.pos(player, slot) == ramp_rc
        assert g.occupied(player) == {ramp_rc: 1}
    else:
        assert g.pos(player, slot) == step_rc(ramp_rc, d) and g.facing(player, slot) == d
        assert g.occupied(player) == {ramp_rc: 1, step_rc(ramp_rc, d): 1}
    assert g.phase == R.SELECT and g.pcv(player, slot, R.PC_ACTIVATED) == 0


def test_launch_limits_per_move():
    # Seed 004 "Fasi del gioco": "ogni giocatore può far entrare nuove navi, con i seguenti
    # limiti: 1 Trasporto, 1 Incrociatore oppure 3 Caccia".
    g = Game(setup="fixed")
    g.do(g.launch("cruiser", 1))
    assert (g.pos(0, CRU), g.facing(0, CRU)) == ((4, 2), E)
    for kind in ("cruiser", "transport", "fighter"):
        for ramp in range(3):
            g.bad(g.launch(kind, ramp), R.R_LAUNCH_LIMIT)
    g.do(g.select(CRU), g.move(E), g.END_ACT)                   # it may act in the same move
    assert g.pos(0, CRU) == (4, 3)
    g.do(g.END_TURN)
    g.do(g.launch("transport", 1))                              # player 1
    assert (g.pos(1, TRA), g.facing(1, TRA)) == ((4, 18), W)
    g.bad(g.launch("fighter", 0), R.R_LAUNCH_LIMIT)
    g.do(g.END_TURN)
    # turn 1: up to 3 fighters, from any ramps, at any time between activations
    g.do(g.launch("fighter", 0), g.select(FIG), g.move(E), g.END_ACT)
    g.do(g.launch("fighter", 0), g.launch("fighter", 2))
    assert [g.pos(0, FIG), g.pos(0, FIG + 1), g.pos(0, FIG + 2)] == [(3, 1), (3, 0), (5, 0)]
    assert g.g(R.G_LAUNCH_COUNT) == 3
    g.bad(g.launch("fighter", 1), R.R_LAUNCH_LIMIT)
    g.bad(g.launch("cruiser", 1), R.R_LAUNCH_LIMIT)
    g.do(g.END_TURN)
    g.do(g.launch("fighter", 1))                                # player 1: a fighter, then no cruiser
    g.bad(g.launch("cruiser", 0), R.R_LAUNCH_LIMIT)
    g.bad(g.launch("transport", 0), R.R_LAUNCH_LIMIT)
    g.do(g.launch("fighter", 1))


def test_launch_needs_reserve_and_a_free_ramp():
    # Seed 004 "Fasi del gioco" (launching): reserve, and a ramp position that is legal (§2).
    g = Game(scen([pc(0, "fighter", [0, 0]), pc(1, "fighter", [4, 1]), pc(1, "fighter", [2, 1])],
                  reserve=[{"cruiser": 0, "transport": 1, "fighter": 1}, {}],
                  blocked=[{"hex": [5, 0], "by": 1}]))
    g.bad(g.launch("cruiser", 2), R.R_NO_RESERVE)
    g.bad(g.launch("fighter", 1), R.R_PLACEMENT)                # enemy fighter on the ramp
    g.bad(g.launch("transport", 1), R.R_PLACEMENT)              # stern on the ramp
    g.bad(g.launch("transport", 0), R.R_PLACEMENT)              # bow [2,1] taken by the enemy
    g.bad(g.launch("fighter", 2), R.R_PLACEMENT)                # ramp [5,0] blocked by a shot
    g.bad(g.launch("transport", 2), R.R_PLACEMENT)
    assert g.legal(g.launch("fighter", 0))                      # ramp [3,0] itself is free
    g.do(g.select(FIG))
    g.bad(g.launch("fighter", 0), R.R_WRONG_PHASE)              # only between activations
    g.do(g.END_ACT, g.launch("fighter", 0))
    g.bad(g.launch("fighter", 0), R.R_NO_RESERVE)               # the one reserve fighter is used


# =============================================================================================
# Iperspazio
# =============================================================================================
def test_hyperspace_not_for_bases_nor_damaged_ships():
    # Seed 004 "Iperspazio": "Permesso a tutti i pezzi tranne le Basi Spaziali. Permesso solo
    # alle navi perfettamente integre."
    g = Game(scen([pc(0, "base", [3, 1]), pc(0, "cruiser", [8, 1], "E", damage=1),
                   pc(0, "transport", [0, 1], "E", damage=2), pc(0, "fighter", [0, 0])]))
    g.do(g.select(BASE_A))
    for d in range(6):
        g.bad(g.hyper(d), R.R_BASE_NO_HYPER)
    g.do(g.END_ACT, g.select(CRU))
    g.bad(g.hyper(E), R.R_DAMAGED)
    g.do(g.END_ACT, g.select(TRA))
    g.bad(g.hyper(E), R.R_DAMAGED)
    g.do(g.END_ACT, g.select(FIG), g.hyper(E))                  # the same row, undamaged: fine
    assert g.status(0, FIG) == R.HYPER


CORRIDOR_CASES = [
    # (id, extra pieces, turn, blocked, fixed bases, expected reason for "enter hyperspace E")
    ("clear", [], 0, [], [], R.OK),
    ("enemy_on_9th_hex", [pc(1, "fighter", [8, 10])], 0, [], [], R.R_CORRIDOR),
    ("enemy_on_10th_hex", [pc(1, "fighter", [8, 11])], 0, [], [], R.OK),
    ("own_piece_in_corridor", [pc(0, "fighter", [8, 5])], 0, [], [], R.OK),
    ("explosion", [], 0, [{"hex": [8, 6], "by": 1}], [], R.R_CORRIDOR),
    ("visible_planetoid", [], 1, [], [], R.R_CORRIDOR),          # red [8,8] exists in turn 1
    ("enemy_fixed_base", [], 0, [], [{"player": 1, "hex": [8, 8], "hits": 0}], R.R_CORRIDOR),
    ("own_fixed_base", [], 0, [], [{"player": 0, "hex": [8, 8], "hits": 0}], R.OK),
]


@pytest.mark.parametrize("case", CORRIDOR_CASES, ids=[c[0] for c in CORRIDOR_CASES])
def test_hyperspace_needs_a_clear_nine_hex_corridor(case):
    # Seed 004 "Iperspazio": "Deve avere davanti a sé un corridoio rettilineo libero (i.e. senza
    # nemici, ostacoli o esplosioni) di 9 esagoni".  Cruiser bow [8,1] facing E: [8,2]..[8,10].
    _, extra, turn, blocked, fixed, code = case
    g = Game(scen([pc(0, "cruiser", [8, 1], "E")] + extra, turn=turn, blocked=blocked, fixed_bases=fixed))
    g.do(g.select(CRU))
    for d in (NE, NW, W, SW, SE):
        g.bad(g.hyper(d), R.R_NOT_FORWARD)                      # cruisers: straight ahead only
    if code != R.OK:
        g.bad(g.hyper(E), code)
        return
    g.do(g.hyper(E))
    assert g.status(0, CRU) == R.HYPER and g.pos(0, CRU) is None
    assert (g.phase, g.g(R.G_ACTIVE)) == (R.SELECT, -1)          # entering ends the activation
    assert g.occ(0, (8, 1)) == 0 and g.occ(0, (8, 0)) == 0
    g.bad(g.select(CRU), R.R_ALREADY_ACTIVATED)


def test_hyperspace_corridor_obstacles_and_map_edge():
    # Seed 004 "Iperspazio": the corridor must be 9 hexes long and free of obstacles.
    g = Game(scen([pc(0, "cruiser", [5, 7], "E"), pc(0, "cruiser", [8, 2], "W")]))
    g.do(g.select(CRU))
    g.bad(g.hyper(E), R.R_CORRIDOR)                             # asteroid [5,8] ahead
    g.do(g.END_ACT, g.select(CRU + 1))
    g.bad(g.hyper(W), R.R_CORRIDOR)                             # only [8,1], [8,0] before the edge


def test_hyperspace_entry_after_moving_but_not_after_firing():
    # Seed 004 "Iperspazio": "Nella mossa di ingresso/uscita non si può sparare".
    g = Game(scen([pc(0, "cruiser", [8, 1], "E")]))
    g.do(g.select(CRU))
    g.shoot(g.hex([7, 1]), 1)                                   # a miss still counts as firing
    g.bad(g.hyper(E), R.R_FIRED)
    g = Game(scen([pc(0, "cruiser", [8, 1], "E")]))
    g.do(g.select(CRU), g.move(E), g.move(E), g.hyper(E))       # corridor [8,4]..[8,12]
    assert g.status(0, CRU) == R.HYPER


def test_fighter_corridor_in_any_direction():
    # Seed 004 "Iperspazio": "Il corridoio dei caccia può essere tracciato in ogni direzione (ma
    # deve comunque essere rettilineo)".
    g = Game(scen([pc(0, "fighter", [8, 11]), pc(0, "fighter", [8, 12]), pc(0, "fighter", [0, 0])]))
    g.do(g.select(FIG))
    assert g.legal_set(g.L.a_hyper, 6) == {E, W}                # [8,12]..[8,20] is exactly 9 hexes
    g.do(g.END_ACT, g.select(FIG + 1))
    g.bad(g.hyper(E), R.R_CORRIDOR)                             # only 8 hexes to the edge
    assert g.legal_set(g.L.a_hyper, 6) == {W}
    g.do(g.END_ACT, g.select(FIG + 2))
    g.bad(g.hyper(SE), R.R_CORRIDOR)                            # 8 hexes down to row 8
    g.do(g.hyper(E))
    assert g.status(0, FIG + 2) == R.HYPER


def test_hyperspace_stay_then_exit_fighter():
    # Seed 004 "Iperspazio": "Ogni nave può restare nell'Iperspazio finché vuole"; leaving needs
    # the clear corridor (any direction for fighters), and no firing in the exit move.
    g = Game(scen([pc(0, "fighter", status="hyper"), pc(1, "fighter", [4, 12])]))
    g.do(g.END_TURN, g.select(FIG))                             # player 1
    g.bad(g.target(FIG), R.R_NOT_TARGETABLE)                    # ships in hyperspace cannot be shot
    g.do(g.END_ACT, g.END_TURN)
    assert g.turn == 1 and g.status(0, FIG) == R.HYPER          # turn 1: red
    g.do(g.END_TURN, g.END_TURN, g.END_TURN, g.END_TURN)
    assert g.turn == 3 and g.status(0, FIG) == R.HYPER
    g = Game(scen([pc(0, "fighter", status="hyper"), pc(1, "fighter", [4, 12])], turn=1))
    g.do(g.select(FIG))
    assert (g.phase, g.g(R.G_ACTIVE)) == (R.EXIT_HEX, FIG)
    g.bad(g.END_ACT, R.R_WRONG_PHASE)                           # the exit cannot be cancelled
    g.bad(g.move(E), R.R_WRONG_PHASE)
    g.bad(g.target(FIG), R.R_WRONG_PHASE)
    g.bad(g.hex([8, 12]), R.R_CORRIDOR)                         # E 8 hexes; W, NE hit red planetoids
    g.bad(g.hex([4, 12]), R.R_CORRIDOR)                         # enemy there (reported as corridor)
    g.bad(g.hex([8, 8]), R.R_CORRIDOR)                          # visible red planetoid
    g.do(g.hex([8, 11]))                                        # E: [8,12]..[8,20]
    assert g.pos(0, FIG) == (8, 11) and g.status(0, FIG) == R.ON_MAP
    assert (g.phase, g.g(R.G_ACTIVE)) == (R.SELECT, -1)
    g.bad(g.select(FIG), R.R_ALREADY_ACTIVATED)                 # and no shot in the exit move


def test_hyperspace_exit_cruiser_chooses_hex_then_facing():
    # Seed 004 "Iperspazio": the exit hex and facing must give a legal position with a clear
    # 9-hex corridor ahead (RULES.md §4); the activation ends on exit.
    g = Game(scen([pc(0, "cruiser", status="hyper"), pc(1, "fighter", [0, 20])]))
    g.do(g.select(CRU))
    assert g.phase == R.EXIT_HEX
    g.bad(g.hex([4, 10]), R.R_CORRIDOR)                         # visible blue planetoid
    g.bad(g.hex([3, 6]), R.R_CORRIDOR)                          # 1 hex from a planetoid (keep-away)
    g.do(g.hex([8, 1]))
    assert (g.phase, g.g(R.G_EXIT_CELL)) == (R.EXIT_FACE, g.cell((8, 1)))
    assert g.status(0, CRU) == R.HYPER
    g.bad(g.END_ACT, R.R_WRONG_PHASE)
    g.bad(g.move(E), R.R_WRONG_PHASE)
    g.bad(g.face(W), R.R_CORRIDOR)                              # corridor W runs off the map
    g.bad(g.face(NE), R.R_OFF_MAP)                              # the stern would be off the map
    assert g.legal_set(g.L.a_face, 6) == {E}
    g.do(g.face(E))
    assert (g.pos(0, CRU), g.facing(0, CRU), g.status(0, CRU)) == ((8, 1), E, R.ON_MAP)
    assert g.occupied(0) == {(8, 1): 1, (8, 0): 1}
    assert (g.phase, g.g(R.G_ACTIVE), g.g(R.G_EXIT_CELL)) == (R.SELECT, -1, -1)
    g.bad(g.select(CRU), R.R_ALREADY_ACTIVATED)
    g.bad(g.target(FIG), R.R_WRONG_PHASE)


def test_hyperspace_ship_with_no_exit_cannot_be_selected():
    # Seed 004 "Iperspazio": every hex blocked by explosions leaves no clear exit.
    space = [[r, c] for r in range(ROWS) for c in range(COLS)
             if on_map((r, c)) and (r, c) not in ASTEROIDS and (r, c) not in HOMES]
    g = Game(scen([pc(0, "fighter", status="hyper")], blocked=[{"hex": h, "by": 1} for h in space]))
    g.bad(g.select(FIG), R.R_NO_EXIT)
    assert set(g.env.legal_actions()) == {g.END_TURN}


@pytest.mark.parametrize("options", [{}, {"ship_length": 1, "base_footprint": "single"}])
def test_exit_search_over_all_hexes_equals_exit_cell_ok_hex_by_hex(options):
    # Seed 004 "Iperspazio" (RULES.md §4): the exit search of the mask and of select_reason,
    # which reads corridors off run lengths, against exit_cell_ok asked hex by hex, for every
    # piece in hyperspace at every step of random play from the oracle scenario.
    g = Game(ORACLE_SCENARIO, seed=7, **options)
    rng = np.random.default_rng(7)
    s, cfg = g.core.state.view, g.core._k
    n = len(g.cfg.cell)
    checked = 0
    for _ in range(200):
        for p in range(2):
            for i in np.flatnonzero(g.core.state.pc[0, p, :, R.PC_STATUS] == R.HYPER):
                want = np.array([bool(g.cfg.cell[c, R.CI_TERRAIN] == R.SPACE)
                                 and R.exit_cell_ok(s, cfg, 0, p, int(i), c) for c in range(n)])
                got = np.zeros(n, np.int8)
                assert (R.exit_hexes(s, cfg, 0, p, int(i), got) > 0) == want.any()
                assert R.any_exit(s, cfg, 0, p, int(i)) == want.any()
                assert np.array_equal(got.astype(bool), want), np.flatnonzero(got.astype(bool) != want)
                checked += 1
        if g.phase == R.OVER:
            break
        g.env.step(random_action(g, rng))
    assert checked > 100


# =============================================================================================
# Combattimento: attack tables, damage, overlap, shots into space, range
# =============================================================================================
def _attacker(kind):
    """Attacker whose hex nearest to row 8's east is [8,1] (every other hex is farther)."""
    if kind == "fighter":
        return pc(0, "fighter", [8, 1]), [(8, 1)]
    if kind == "cruiser":
        return pc(0, "cruiser", [8, 1], "E"), footprint(0, "cruiser", (8, 1), E)
    return pc(0, "base", [7, 0]), footprint(0, "base", (7, 0))


def _target(kind, r):
    """Player 1 target whose nearest hex is [8, 1 + r]."""
    c = 1 + r
    if kind == "fighter":
        return pc(1, "fighter", [8, c]), [(8, c)]
    if kind in ("cruiser", "transport"):
        return pc(1, kind, [8, c], "W"), footprint(1, kind, (8, c), W)
    return pc(1, "base", [8, c + 1]), footprint(1, "base", (8, c + 1))


TABLE_CASES = [(att, tgt, r) for att in ("fighter", "cruiser", "base") for tgt in ("base", "cruiser", "transport",
                                                                                  "fighter")
               for r in range(1, len(SEED_TABLE[att][tgt]) + 1)]


@pytest.mark.parametrize("attacker,target,rng", TABLE_CASES)
def test_attack_table_threshold(attacker, target, rng):
    # Seed 004 "Tabella di attacco dei Caccia / degli Incrociatori / delle Basi Mobili".
    # Row 8 in the blue turn with keep_away="visible": no obstacle between the pieces, so the
    # range is the hex distance.  Die = threshold hits, threshold - 1 misses.
    thr = SEED_TABLE[attacker][target][rng - 1]
    a_pc, a_fp = _attacker(attacker)
    t_pc, t_fp = _target(target, rng)
    check_range(a_fp, t_fp, rng)
    slot = {"base": BASE_A, "cruiser": CRU, "transport": TRA, "fighter": FIG}[target]
    aslot = {"base": BASE_A, "cruiser": CRU, "fighter": FIG}[attacker]
    for die, hit in ((thr - 1, False), (thr, True)):
        g = Game(scen([a_pc, t_pc]), keep_away="visible")
        g.do(g.select(aslot))
        g.shoot(g.target(slot), die)
        if not hit:
            assert (g.status(1, slot), g.damage(1, slot)) == (R.ON_MAP, 0)
        elif target == "fighter":
            assert g.status(1, slot) == R.DESTROYED
        else:
            assert (g.status(1, slot), g.damage(1, slot)) == (R.ON_MAP, 1)


@pytest.mark.parametrize("attacker", ["fighter", "cruiser", "base"])
def test_attack_table_out_of_range(attacker):
    # Seed 004 attack tables: beyond the last column the target cannot be fired at.
    n = len(SEED_TABLE[attacker]["fighter"])
    a_pc, a_fp = _attacker(attacker)
    t_pc, t_fp = _target("fighter", n + 1)
    check_range(a_fp, t_fp, n + 1)
    aslot = {"base": BASE_A, "cruiser": CRU, "fighter": FIG}[attacker]
    g = Game(scen([a_pc, t_pc]), keep_away="visible")
    g.do(g.select(aslot))
    g.bad(g.target(FIG), R.R_OUT_OF_RANGE)
    # shots into space too: an empty hex of row 7 just out of reach
    col = next(c for c in range(COLS) if min_dist(a_fp, [(7, c)]) == n + 1)
    g.bad(g.hex([7, col]), R.R_OUT_OF_RANGE)
    assert g.legal(g.hex([7, col - 1]))


def mirror(rc):
    """The point-symmetric hex (RULES.md §1: [r, c] <-> [8 - r, 20 - c], odd rows 19 - c)."""
    r, c = rc
    return (ROWS - 1 - r, (COLS - 1 if r % 2 == 0 else COLS - 2) - c)


def mirrored(piece):
    out = dict(piece, player=1 - piece["player"], facing=DIRS[(DIRS.index(piece["facing"]) + 3) % 6])
    out["hex"] = list(mirror(tuple(piece["hex"])))
    return out


MIRROR_CASES = [(att, tgt, r) for att in ("fighter", "cruiser", "base") for tgt in ("base", "cruiser", "transport",
                                                                                   "fighter")
                for r in sorted({1, 3, len(SEED_TABLE[att][tgt])})]


@pytest.mark.parametrize("attacker,target,rng", MIRROR_CASES)
def test_attack_table_threshold_for_player_1(attacker, target, rng):
    # Seed 004 attack tables, player 1 firing: the same positions turned by 180 degrees (the map
    # and player 1's base triangle are player 0's, rotated).
    thr = SEED_TABLE[attacker][target][rng - 1]
    (a_pc, a_fp), (t_pc, t_fp) = _attacker(attacker), _target(target, rng)
    a_pc, t_pc = mirrored(a_pc), mirrored(t_pc)
    a_fp2 = footprint(1, attacker, tuple(a_pc["hex"]), DIRS.index(a_pc["facing"]))
    t_fp2 = footprint(0, target, tuple(t_pc["hex"]), DIRS.index(t_pc["facing"]))
    assert sorted(a_fp2) == sorted(mirror(h) for h in a_fp) and sorted(t_fp2) == sorted(mirror(h) for h in t_fp)
    check_range(a_fp2, t_fp2, rng)
    slot = {"base": BASE_A, "cruiser": CRU, "transport": TRA, "fighter": FIG}[target]
    aslot = {"base": BASE_A, "cruiser": CRU, "fighter": FIG}[attacker]
    for die, hit in ((thr - 1, False), (thr, True)):
        g = Game(scen([a_pc, t_pc], to_move=1), keep_away="visible")
        g.do(g.select(aslot))
        g.shoot(g.target(slot), die)
        if target == "fighter":
            assert g.status(0, slot) == (R.DESTROYED if hit else R.ON_MAP)
        else:
            assert (g.status(0, slot), g.damage(0, slot)) == (R.ON_MAP, int(hit))


FIXED_CASES = [("fighter", 1)] + [("cruiser", r) for r in range(1, 8)] + [("base", r) for r in range(1, 8)]


@pytest.mark.parametrize("attacker,rng", FIXED_CASES)
def test_fixed_base_is_hit_like_a_mobile_base(attacker, rng):
    # Seed 004 "Distruzione Basi Fisse": "Difficoltà del Tiro per Colpire come le Basi Mobili".
    # Player 1's fixed base on red [8,8] (invisible in the blue turn); attacker west of it.
    thr = SEED_TABLE[attacker]["fixed"][rng - 1]
    assert thr == SEED_TABLE[attacker]["base"][rng - 1]
    c = 8 - rng
    if attacker == "fighter":
        a_pc, a_fp, aslot = pc(0, "fighter", [8, c]), [(8, c)], FIG
    elif attacker == "cruiser":
        a_pc, a_fp, aslot = pc(0, "cruiser", [8, c], "E"), footprint(0, "cruiser", (8, c), E), CRU
    else:
        a_pc, a_fp, aslot = pc(0, "base", [7, c - 1]), footprint(0, "base", (7, c - 1)), BASE_A
    check_range(a_fp, [(8, 8)], rng)
    for die, hit in ((thr - 1, False), (thr, True)):
        g = Game(scen([a_pc], fixed_bases=[{"player": 1, "hex": [8, 8], "hits": 0}]), keep_away="visible")
        g.do(g.select(aslot))
        g.shoot(g.fixed([8, 8]), die)
        assert g.fx((8, 8)) == (1, int(hit))
        assert g.scores() == [0, 4 - int(hit)]


def test_fighters_hit_fixed_bases_only_at_range_one():
    # Seed 004 "Distruzione Basi Fisse": "I caccia possono colpirle solo se a distanza 1".
    g = Game(scen([pc(0, "fighter", [8, 6])], fixed_bases=[{"player": 1, "hex": [8, 8], "hits": 0}]))
    g.do(g.select(FIG))
    g.bad(g.fixed([8, 8]), R.R_FIGHTER_FIXED_RANGE)             # range 2 (the table would allow 6)
    g.do(g.move(E))
    g.shoot(g.fixed([8, 8]), 5)
    assert g.fx((8, 8)) == (1, 1)


def test_fixed_base_targets_must_be_enemy_fixed_bases():
    # Seed 004 "Distruzione Basi Fisse" / "Combattimento": only enemy pieces are targets.
    g = Game(scen([pc(0, "cruiser", [8, 1], "E")], fixed_bases=[{"player": 0, "hex": [8, 8], "hits": 0}]))
    g.do(g.select(CRU))
    g.bad(g.fixed([8, 8]), R.R_NOT_TARGETABLE)                  # own fixed base
    g.bad(g.fixed([7, 4]), R.R_NOT_TARGETABLE)                  # empty planetoid
    g.bad(g.target(BASE_A), R.R_NOT_TARGETABLE)                 # enemy base not on the map


def test_mobile_base_fires_once_at_each_fixed_base():
    # Seed 004 "Astronavi" (base: once per target) applied to fixed bases.
    g = Game(scen([pc(0, "base", [7, 2])], fixed_bases=[{"player": 1, "hex": [8, 8], "hits": 0},
                                                       {"player": 1, "hex": [7, 4], "hits": 0}]),
             keep_away="visible")
    check_range(footprint(0, "base", (7, 2)), [(8, 8)], 5)
    g.do(g.select(BASE_A))
    g.shoot(g.fixed([8, 8]), 3)                                 # base vs fixed r5: 4 -> miss
    g.bad(g.fixed([8, 8]), R.R_ALREADY_SHOT)
    g.shoot(g.fixed([7, 4]), 2)                                 # adjacent: 2 -> hit
    assert g.fx((7, 4)) == (1, 1) and g.fx((8, 8)) == (1, 0)


def test_each_damage_of_the_firer_worsens_its_threshold():
    # Seed 004 "Combattimento": "Ogni danno subito peggiora di 1 la soglia del Tiro per Colpire"
    # (the firer's own damage; the target's damage does not matter, RULES.md §6).
    pieces = [pc(0, "cruiser", [4, 2], "E", damage=2), pc(1, "cruiser", [4, 4], "E", damage=3)]
    g = Game(scen(pieces))
    g.do(g.select(CRU))
    g.shoot(g.target(CRU), 4)                                   # needs 3 + 2 = 5
    assert g.damage(1, CRU) == 3
    g.shoot(g.target(CRU), 5)
    assert g.damage(1, CRU) == 4
    g = Game(scen([pc(0, "cruiser", [4, 2], "E"), pc(1, "cruiser", [4, 4], "E", damage=3)]))
    g.do(g.select(CRU))
    g.shoot(g.target(CRU), 3)                                   # undamaged firer: 3 hits a damaged target
    assert g.damage(1, CRU) == 4
    # a base with 4 damage needs 3 + 4 = 7 at range 3: the shot is allowed and always misses
    check_range(footprint(0, "base", (3, 1)), [(3, 5)], 3)
    g = Game(scen([pc(0, "base", [3, 1], damage=4), pc(1, "fighter", [3, 5])]))
    g.do(g.select(BASE_A))
    g.shoot(g.target(FIG), 6)
    assert g.status(1, FIG) == R.ON_MAP and g.g(R.G_SHOTS) == 1


@pytest.mark.parametrize("kind", ["cruiser", "transport", "base"])
def test_four_hits_survived_fifth_destroys(kind):
    # Seed 004 "Combattimento": "Incrociatori, Trasporti, Basi Fisse e Basi Mobili reggono fino
    # a 4 colpi (i.e. sono distrutte col 5°)".
    tgt = pc(1, kind, [4, 4], "E", damage=3) if kind != "base" else pc(1, "base", [4, 4], damage=3)
    slot = {"cruiser": CRU, "transport": TRA, "base": BASE_A}[kind]
    g = Game(scen([pc(0, "cruiser", [4, 2], "E"), tgt]))
    g.do(g.select(CRU))
    g.shoot(g.target(slot), 6)
    assert (g.status(1, slot), g.damage(1, slot)) == (R.ON_MAP, 4)
    g.shoot(g.target(slot), 6)
    assert g.status(1, slot) == R.DESTROYED
    assert g.occupied(1) == {}


def test_fighters_die_to_one_hit_and_fixed_bases_to_the_fifth():
    # Seed 004 "Combattimento": "Caccia: distrutti con 1 colpo"; "Distruzione Basi Fisse": "Sono
    # distrutte col 5° danno" -- and the overlap rule takes a transport standing on it.
    g = Game(scen([pc(0, "cruiser", [8, 1], "E"), pc(1, "transport", [8, 8], "E"), pc(1, "fighter", [8, 9])],
                  fixed_bases=[{"player": 1, "hex": [8, 8], "hits": 3}]))
    g.do(g.select(CRU))
    g.shoot(g.fixed([8, 8]), 6)                                 # cruiser vs fixed r7: 6
    assert g.fx((8, 8)) == (1, 4) and g.scores() == [0, 0]
    g.shoot(g.fixed([8, 8]), 6)
    assert g.fx((8, 8)) == (-1, 0) and g.scores() == [0, 0]
    assert g.status(1, TRA) == R.DESTROYED                      # shared the planetoid hex
    assert g.status(1, FIG) == R.ON_MAP
    g = Game(scen([pc(0, "cruiser", [4, 2], "E"), pc(1, "fighter", [4, 3])]))
    g.do(g.select(CRU))
    g.shoot(g.target(FIG), 2)
    assert g.status(1, FIG) == R.DESTROYED and g.occupied(1) == {}


def test_overlapping_pieces_are_destroyed_together():
    # Seed 004 "Combattimento": "In caso di pezzi anche solo parzialmente sovrapposti, se uno di
    # essi viene distrutto tutti i pezzi sovrapposti sono distrutti" (transitively, RULES.md).
    pieces = [
        pc(0, "cruiser", [8, 3], "E"),
        pc(1, "fighter", [8, 6]),                 # F1: the target
        pc(1, "cruiser", [8, 6], "W"),            # covers [8,6] and [8,7]
        pc(1, "transport", [8, 8], "E"),          # covers [8,8] and [8,7]
        pc(1, "fighter", [8, 8]),                 # only touches the transport
        pc(1, "fighter", [8, 9]),                 # adjacent, not overlapping
        pc(1, "base", [2, 19]),
    ]
    fixed = [{"player": 1, "hex": [8, 8], "hits": 0}]
    g = Game(scen(pieces, fixed_bases=fixed), keep_away="visible")
    g.do(g.select(CRU))
    g.shoot(g.target(FIG), 3)                                   # cruiser vs fighter r3: 4 -> miss
    assert all(g.status(1, s) == R.ON_MAP for s in (FIG, CRU, TRA, FIG + 1, FIG + 2, BASE_A))
    g.shoot(g.target(FIG), 4)
    assert [g.status(1, s) for s in (FIG, CRU, TRA, FIG + 1)] == [R.DESTROYED] * 4
    assert g.status(1, FIG + 2) == R.ON_MAP and g.status(1, BASE_A) == R.ON_MAP
    assert g.fx((8, 8)) == (-1, 0)                              # the fixed base under the transport too
    assert g.status(0, CRU) == R.ON_MAP
    assert g.occupied(1) == {(8, 9): 1, (2, 19): 1, (2, 18): 1, (1, 18): 1}


def test_appearance_destroys_overlapping_pieces_even_transports():
    # Seed 004 "Elementi del gioco" + "Combattimento" (overlap): a fighter caught by its
    # planetoid takes the transport it shares a hex with.
    g = Game(scen([pc(0, "fighter", [6, 13]), pc(0, "transport", [6, 13], "E"), pc(0, "fighter", [6, 12]),
                   pc(0, "fighter", [6, 11])]))
    g.do(g.END_TURN, g.END_TURN)
    assert g.turn == 1
    assert [g.status(0, s) for s in (FIG, TRA, FIG + 1)] == [R.DESTROYED] * 3
    assert g.status(0, FIG + 2) == R.ON_MAP


def test_shot_into_space_blocks_the_hex_until_the_blockers_next_move():
    # Seed 004 "Combattimento": 'sparare un colpo "a vuoto" ... In caso di successo l'esagono è
    # intransitabile per tutto il turno (i.e. compresa la mossa dell'avversario)'.
    g = Game(scen([pc(0, "cruiser", [4, 2], "E"), pc(1, "fighter", [3, 4])]))
    g.do(g.select(CRU))
    g.shoot(g.hex([4, 4]), 3)                                   # cruiser vs cruiser r2: 4 -> miss
    assert g.blocked_by((4, 4)) == -1
    g.shoot(g.hex([4, 4]), 4)
    assert g.blocked_by((4, 4)) == 0
    g.do(g.move(E))
    g.bad(g.move(E), R.R_BLOCKED_HEX)                           # blocks its own side too
    g.do(g.END_ACT, g.END_TURN)
    assert g.blocked_by((4, 4)) == 0
    assert g.core.obs[0, 9, 4, 4] == 2                          # player 1 sees an enemy block
    g.do(g.select(FIG))
    g.bad(g.move(SW), R.R_BLOCKED_HEX)                          # through the opponent's move
    g.bad(g.hex([4, 4]), R.R_BLOCKED_HEX)
    g.do(g.END_ACT, g.END_TURN)
    assert (g.turn, g.to_move, g.blocked_by((4, 4))) == (1, 0, -1)  # cleared when player 0 moves again
    g.do(g.select(CRU), g.move(E))
    assert g.pos(0, CRU) == (4, 4)


def test_shot_into_space_by_second_player_lasts_into_the_next_turn():
    # Seed 004 "Combattimento": a block covers the opponent's next move (RULES.md §6).
    g = Game(scen([pc(1, "fighter", [3, 5]), pc(0, "fighter", [3, 3])], to_move=1))
    g.do(g.select(FIG))
    g.shoot(g.hex([3, 4]), 4)                                   # fighter vs fighter r1: 4
    assert g.blocked_by((3, 4)) == 1
    g.do(g.END_ACT, g.END_TURN)
    assert (g.turn, g.to_move, g.blocked_by((3, 4))) == (1, 0, 1)
    g.do(g.select(FIG))
    g.bad(g.move(E), R.R_BLOCKED_HEX)
    g.do(g.END_ACT, g.END_TURN)
    assert (g.turn, g.to_move, g.blocked_by((3, 4))) == (1, 1, -1)


def test_scenario_block_by_opponent_expires_when_the_opponent_moves():
    # Seed 004 "Combattimento"; scenario "blocked" hexes must be by the opponent of to_move.
    g = Game(scen([pc(0, "fighter", [3, 3])], blocked=[{"hex": [3, 4], "by": 1}]))
    g.do(g.select(FIG))
    g.bad(g.move(E), R.R_BLOCKED_HEX)
    g.do(g.END_ACT, g.END_TURN)
    assert g.blocked_by((3, 4)) == -1
    with pytest.raises(ValueError, match="opponent of to_move"):
        Game(scen([pc(0, "fighter", [3, 3])], blocked=[{"hex": [3, 4], "by": 0}]))


def test_shot_into_space_needs_an_empty_non_obstacle_hex_in_reach():
    # Seed 004 "Combattimento": the shot goes "nello spazio"; RULES.md §6 lists the targets.
    g = Game(scen([pc(0, "cruiser", [4, 2], "E"), pc(0, "fighter", [3, 2]), pc(1, "fighter", [5, 2])],
                  fixed_bases=[{"player": 1, "hex": [3, 7], "hits": 0}]))
    g.do(g.select(CRU))
    g.bad(g.hex([4, 1]), R.R_HEX_NOT_EMPTY)                     # its own stern
    g.bad(g.hex([3, 2]), R.R_HEX_NOT_EMPTY)                     # own fighter
    g.bad(g.hex([5, 2]), R.R_HEX_NOT_EMPTY)                     # enemy fighter
    g.bad(g.hex([3, 7]), R.R_HEX_NOT_EMPTY)                     # enemy fixed base (invisible planetoid)
    g.bad(g.hex([4, 5]), R.R_IMPASSABLE)                        # asteroid
    g.bad(g.hex([4, 0]), R.R_IMPASSABLE)                        # home planet
    g.bad(g.hex([1, 5]), R.R_IMPASSABLE)                        # visible blue planetoid
    g.bad(g.hex([1, 20]), R.R_OFF_MAP)                          # switched-off cell
    g.bad(g.hex([4, 19]), R.R_OUT_OF_RANGE)
    assert g.legal(g.hex([2, 7]))                               # invisible red planetoid: space


@pytest.mark.parametrize("kind,thr", [("fighter", 4), ("base", 3)])
def test_shot_into_space_difficulty_is_firing_at_own_kind(kind, thr):
    # Seed 004 "Combattimento": "La difficoltà del colpo "a vuoto" si calcola come se la nave
    # sparasse contro se stessa": fighter r1 -> fighter row 4; base r3 -> base row 3.
    if kind == "fighter":
        piece, fp, slot, hexes = pc(0, "fighter", [8, 0]), [(8, 0)], FIG, [(8, 1), (8, 1)]
    else:
        piece, fp, slot, hexes = pc(0, "base", [3, 1]), footprint(0, "base", (3, 1)), BASE_A, [(3, 5), (5, 4)]
    for h in hexes:
        check_range(fp, [h], 1 if kind == "fighter" else 3)
    for (die, hit), h in zip(((thr - 1, False), (thr, True)), hexes):
        g = Game(scen([piece]))
        g.do(g.select(slot))
        g.shoot(g.hex(h), die)
        assert g.blocked_by(h) == (0 if hit else -1)


def test_rockets_fly_around_obstacles():
    # Seed 004 "Combattimento": "razzi che colpiscono in qualsiasi direzione (anche su
    # traiettoria a zig-zag) ... ma non attraverso gli ostacoli".  [4,4] -> [4,7]: hex distance
    # 3 through asteroids [4,5], [4,6]; the shortest path around is 4 (fighter vs fighter: 6).
    assert hexdist((4, 4), (4, 7)) == 3
    for die, hit in ((5, False), (6, True)):
        g = Game(scen([pc(0, "fighter", [4, 4]), pc(1, "fighter", [4, 7])]))
        g.do(g.select(FIG))
        g.shoot(g.target(FIG), die)
        assert g.status(1, FIG) == (R.DESTROYED if hit else R.ON_MAP)
    # [4,8] -> [4,12] (distance 4, a unique straight path through [4,10]): out of reach while the
    # blue planetoid exists (turn 0), in reach at range 4 when it does not (turn 1, red).
    g = Game(scen([pc(0, "fighter", [4, 8]), pc(1, "fighter", [4, 12])], turn=0))
    g.do(g.select(FIG))
    g.bad(g.target(FIG), R.R_OUT_OF_RANGE)
    for die, hit in ((5, False), (6, True)):
        g = Game(scen([pc(0, "fighter", [4, 8]), pc(1, "fighter", [4, 12])], turn=1))
        g.do(g.select(FIG))
        g.shoot(g.target(FIG), die)
        assert g.status(1, FIG) == (R.DESTROYED if hit else R.ON_MAP)


def test_rockets_fly_through_ships_and_explosions():
    # Seed 004 "Combattimento": "E' permesso sparare attraverso navi amiche/nemiche".
    # [8,0] -> [8,3]: the only path of length 3 crosses [8,1] (own) and [8,2] (enemy).
    g = Game(scen([pc(0, "fighter", [8, 0]), pc(0, "fighter", [8, 1]), pc(1, "fighter", [8, 2]),
                   pc(1, "fighter", [8, 3])]))
    g.do(g.select(FIG))
    g.shoot(g.target(FIG + 1), 5)                               # fighter vs fighter r3: 5
    assert g.status(1, FIG + 1) == R.DESTROYED
    assert g.status(1, FIG) == R.ON_MAP and g.status(0, FIG + 1) == R.ON_MAP
    g = Game(scen([pc(0, "fighter", [8, 0]), pc(1, "fighter", [8, 3])],
                  blocked=[{"hex": [8, 1], "by": 1}, {"hex": [8, 2], "by": 1}]))
    g.do(g.select(FIG))
    g.shoot(g.target(FIG), 5)
    assert g.status(1, FIG) == R.DESTROYED


# =============================================================================================
# Riparazione navi
# =============================================================================================
REPAIR_PIECES = [
    pc(0, "base", [3, 1]),                        # repairer: [3,1] [3,2] [4,2]
    pc(0, "base", [2, 0], damage=1),              # [2,0] [2,1] [3,0]: adjacent to [3,1]
    pc(0, "cruiser", [5, 2], "E", damage=2),      # [5,2] [5,1]: adjacent to [4,2]
    pc(0, "cruiser", [8, 1], "E", damage=1),      # far away
    pc(0, "transport", [1, 2], "NE", damage=1),   # bow [1,2] not adjacent, stern [2,2] is
    pc(1, "fighter", [1, 0]),
]


def test_repair_by_adjacent_mobile_base():
    # Seed 004 "Riparazione navi": "Le Basi Mobili riparano tutte le navi amiche a loro
    # adiacenti. Durante la riparazione Base Mobile e nave riparata non possono muovere. Ogni
    # turno ... ripara 1 danno ... solo la Base Mobile può sparare i razzi. Servono 2 turni per
    # riparare 1 danno ad una Base Mobile."
    base = footprint(0, "base", (3, 1))
    assert min_dist(base, footprint(0, "base", (2, 0))) == 1
    assert min_dist(base, footprint(0, "cruiser", (5, 2), E)) == 1
    assert min_dist(base, footprint(0, "transport", (1, 2), NE)) == 1 and min_dist(base, [(1, 2)]) == 2
    check_range(base, [(1, 0)], 2)
    assert min_dist(base, footprint(0, "cruiser", (8, 1), E)) > 1
    g = Game(scen(REPAIR_PIECES))
    g.do(g.select(BASE_A), g.REPAIR)
    assert [g.damage(0, s) for s in (BASE_B, CRU, CRU + 1, TRA)] == [1, 1, 1, 0]
    assert g.pcv(0, BASE_B, R.PC_REPAIR_PROGRESS) == 1          # half a repair for a base
    g.bad(g.move(W), R.R_MOVE_DONE)                             # the base may not move ...
    g.bad(g.REPAIR, R.R_HAS_MOVED)
    g.shoot(g.target(FIG), 2)                                   # ... but may fire
    assert g.status(1, FIG) == R.DESTROYED
    g.do(g.END_ACT)
    for s in (BASE_B, CRU, TRA):                                # repaired ships may not act
        g.bad(g.select(s), R.R_UNDER_REPAIR)
    g.do(g.select(CRU + 1), g.END_ACT, g.END_TURN, g.END_TURN)
    g.do(g.select(BASE_A), g.REPAIR)                            # turn 2 of repair
    assert [g.damage(0, s) for s in (BASE_B, CRU, CRU + 1, TRA)] == [0, 0, 1, 0]
    assert g.pcv(0, BASE_B, R.PC_REPAIR_PROGRESS) == 0
    g.do(g.END_ACT, g.select(TRA))                              # undamaged: not under repair


def test_repair_restrictions():
    # Seed 004 "Riparazione navi": only mobile bases repair, a base that has not moved, ships
    # that have not acted this turn.
    g = Game(scen(REPAIR_PIECES))
    g.do(g.select(CRU))
    g.bad(g.REPAIR, R.R_NOT_BASE)
    g.do(g.END_ACT, g.select(BASE_A), g.move(W))
    g.bad(g.REPAIR, R.R_HAS_MOVED)
    g = Game(scen([pc(0, "base", [3, 1], damage=2), pc(0, "cruiser", [5, 2], "E", damage=2)]))
    g.do(g.select(CRU), g.END_ACT, g.select(BASE_A))            # the cruiser has acted
    g.bad(g.REPAIR, R.R_NOTHING_TO_REPAIR)                      # and a base never repairs itself
    g = Game(scen([pc(0, "base", [3, 1]), pc(0, "cruiser", [5, 2], "E", damage=2)]))
    g.do(g.select(BASE_A))
    g.shoot(g.hex([2, 0]), 1)                                   # firing first is fine
    g.do(g.REPAIR)
    assert g.damage(0, CRU) == 1


# =============================================================================================
# Colonizzazione (Basi Fisse)
# =============================================================================================
def test_colonise_a_visible_planetoid():
    # Seed 004 "Colonizzazione (Basi Fisse)": a transport on a planetoid in the move in which it
    # is visible places a fixed base; 4 points (Seed 004 "Punteggio").
    g = Game(scen([pc(0, "transport", [4, 8], "E")]))
    g.do(g.select(TRA))
    g.bad(g.COLONISE, R.R_NO_PLANETOID)
    g.do(g.move(E))
    g.bad(g.COLONISE, R.R_NO_PLANETOID)                         # bow on [4,9]
    g.do(g.move(E), g.COLONISE)
    assert g.fx((4, 10)) == (0, 0) and g.scores() == [4, 0]
    assert g.core.obs[0, 22, 4, 10] == 1 and g.core.obs[0, 44, 0, 0] == 4
    assert g.status(0, TRA) == R.ON_MAP and g.phase == R.ACT    # not consumed, activation goes on
    g.bad(g.COLONISE, R.R_COLONISED)
    g.do(g.move(E))
    assert g.pos(0, TRA) == (4, 11)
    g.bad(g.COLONISE, R.R_NO_PLANETOID)                         # stern on the planetoid: no


def test_colonisation_requirements():
    # Seed 004 "Colonizzazione": "La colonizzazione è permessa solo ai Trasporti integri".
    g = Game(scen([pc(0, "transport", [4, 10], "E", damage=1), pc(0, "transport", [2, 7], "E"),
                   pc(0, "cruiser", [8, 1], "E"), pc(0, "transport", [1, 5], "E")],
                  fixed_bases=[{"player": 0, "hex": [1, 5], "hits": 2}]))
    g.do(g.select(TRA))
    g.bad(g.COLONISE, R.R_DAMAGED)
    g.do(g.END_ACT, g.select(TRA + 1))
    g.bad(g.COLONISE, R.R_NO_PLANETOID)                         # red [2,7] not there in turn 0
    g.do(g.END_ACT, g.select(CRU))
    g.bad(g.COLONISE, R.R_NOT_TRANSPORT)
    g.do(g.END_ACT, g.select(TRA + 2))
    g.bad(g.COLONISE, R.R_COLONISED)


def test_transport_may_wait_for_its_planetoid_to_appear():
    # Seed 004 "Colonizzazione": 'E' permesso aspettare la "comparsa" del Pianetino sostando con
    # il Trasporto sopra l'esagono'.
    g = Game(scen([pc(0, "transport", [6, 13], "E")]))         # red planetoid, blue turn
    g.do(g.select(TRA))
    g.bad(g.COLONISE, R.R_NO_PLANETOID)
    g.do(g.END_ACT, g.END_TURN, g.END_TURN)
    assert g.turn == 1 and g.status(0, TRA) == R.ON_MAP
    g.do(g.select(TRA), g.COLONISE)
    assert g.fx((6, 13)) == (0, 0)


def test_transport_colonises_several_planetoids():
    # Seed 004 "Astronavi": "Trasporto ... Può colonizzare un qualsiasi numero di pianetini".
    g = Game(scen([pc(0, "transport", [4, 9], "E")]))
    g.do(g.select(TRA), g.move(E), g.COLONISE, g.END_ACT, g.END_TURN, g.END_TURN)          # turn 0 blue
    g.do(g.select(TRA), g.move(E), g.move(E), g.move(E), g.face(SE), g.END_ACT)           # turn 1 red
    g.do(g.END_TURN, g.END_TURN)
    g.do(g.select(TRA), g.move(SE), g.move(SE), g.move(SE), g.END_ACT)                    # turn 2 yellow
    assert g.pos(0, TRA) == (7, 14)
    g.do(g.END_TURN, g.END_TURN)
    assert g.turn == 3 and g.cfg.colour_seq[3] == BLUE
    g.do(g.select(TRA), g.COLONISE)                                                         # turn 3 blue
    assert g.fx((4, 10)) == (0, 0) and g.fx((7, 14)) == (0, 0) and g.scores() == [8, 0]


def test_fixed_bases_stay_in_every_turn_and_block_the_enemy():
    # Seed 004 "Colonizzazione (Basi Fisse)" / RULES.md §8: fixed bases persist when their
    # planetoid is not there and count as enemy-occupied hexes.
    g = Game(scen([pc(1, "fighter", [4, 11]), pc(0, "fighter", [4, 9])], turn=1, to_move=0,
                  fixed_bases=[{"player": 0, "hex": [4, 10], "hits": 0}]))
    g.do(g.select(FIG), g.move(E))                              # own fixed base: may stack
    assert g.pos(0, FIG) == (4, 10)
    g.do(g.move(W), g.END_ACT, g.END_TURN, g.select(FIG))
    g.bad(g.move(W), R.R_ENEMY_HEX)
    g.bad(g.hex([4, 10]), R.R_HEX_NOT_EMPTY)
    assert g.fx((4, 10)) == (0, 0) and g.scores() == [4, 0]


def test_no_colonising_when_leaving_hyperspace():
    # Seed 004 "Colonizzazione": "Non permessa mentre si entra/esce dall'Iperspazio" (leaving).
    g = Game(scen([pc(0, "transport", status="hyper")], turn=1))
    g.do(g.select(TRA), g.hex([8, 8]))                          # onto the visible red planetoid
    g.do(g.face(E))                                             # corridor [8,9]..[8,17]
    assert g.pos(0, TRA) == (8, 8) and g.phase == R.SELECT
    g.bad(g.COLONISE, R.R_WRONG_PHASE)
    g.bad(g.select(TRA), R.R_ALREADY_ACTIVATED)
    assert g.fx((8, 8)) == (-1, 0)


def test_no_hyperspace_after_colonising():
    # Seed 004 "Colonizzazione": "Non permessa mentre si entra/esce dall'Iperspazio" (entering:
    # a transport that colonised in an activation cannot enter hyperspace in it).
    g = Game(scen([pc(0, "transport", [8, 7], "E"), pc(0, "transport", [8, 7], "E")], turn=1))
    g.do(g.select(TRA), g.move(E), g.COLONISE)
    g.bad(g.hyper(E), R.R_COLONISED_THIS_MOVE)
    g.do(g.END_ACT, g.select(TRA + 1), g.move(E))
    g.do(g.hyper(E))                                            # same corridor, no colonisation
    assert g.status(0, TRA + 1) == R.HYPER


def test_a_ship_is_repaired_once_per_move_even_next_to_two_bases():
    # Seed 004 "Riparazione navi": "Ogni turno trascorso adiacente ad una Base Mobile ripara 1
    # danno" -- one repair per turn, however many bases are adjacent (RULES.md §7).
    cruiser = footprint(0, "cruiser", (5, 3), E)
    assert min_dist(footprint(0, "base", (3, 1)), cruiser) == 1
    assert min_dist(footprint(0, "base", (5, 0)), cruiser) == 1
    g = Game(scen([pc(0, "base", [3, 1]), pc(0, "base", [5, 0]), pc(0, "cruiser", [5, 3], "E", damage=2)]))
    g.do(g.select(BASE_A), g.REPAIR, g.END_ACT, g.select(BASE_B))
    assert g.damage(0, CRU) == 1
    g.bad(g.REPAIR, R.R_NOTHING_TO_REPAIR)


def test_repair_reaches_overlapping_pieces():
    # Seed 004 "Riparazione navi" (RULES.md §7: "adjacent" includes sharing a hex).
    g = Game(scen([pc(0, "base", [3, 1]), pc(0, "cruiser", [3, 2], "E", damage=3)]))
    assert set(footprint(0, "cruiser", (3, 2), E)) <= set(footprint(0, "base", (3, 1)))
    g.do(g.select(BASE_A), g.REPAIR)
    assert g.damage(0, CRU) == 2


def test_cruiser_may_fire_and_enter_hyperspace_after_its_pivot():
    # Seed 004 "Astronavi" (the pivot ends the movement, not the activation) and "Iperspazio"
    # (a ship may move -- and pivot -- before entering).
    g = Game(scen([pc(0, "cruiser", [8, 2], "W")]))
    g.do(g.select(CRU))
    g.bad(g.hyper(W), R.R_CORRIDOR)                             # [8,1], [8,0], then the edge
    g.do(g.face(E))
    assert g.occupied(0) == {(8, 2): 1, (8, 1): 1}
    assert g.legal(g.hex([7, 2]))                               # it could still fire
    g.do(g.hyper(E))                                            # corridor [8,3]..[8,11]
    assert g.status(0, CRU) == R.HYPER


def test_pieces_standing_on_a_visible_planetoid_can_be_shot():
    # Seed 004 "Combattimento": rockets do not pass through planetoids, but a transport or a
    # fixed base standing on one is a target (the path may end there, RULES.md §6).
    g = Game(scen([pc(0, "fighter", [4, 9]), pc(1, "transport", [4, 10], "W")]))
    g.do(g.select(FIG))
    g.shoot(g.target(TRA), 4)                                   # fighter vs transport r1: 4
    assert g.damage(1, TRA) == 1
    g = Game(scen([pc(0, "fighter", [4, 9])], fixed_bases=[{"player": 1, "hex": [4, 10], "hits": 0}]))
    g.do(g.select(FIG))
    g.shoot(g.fixed([4, 10]), 5)                                # fighter vs fixed r1: 5
    assert g.fx((4, 10)) == (1, 1)


def test_appearance_cascade_reaches_own_fixed_base():
    # Seed 004 "Elementi del gioco" + "Combattimento" (RULES.md §15.3): a fighter parked on an
    # invisible planetoid holding its own fixed base takes the fixed base with it.
    g = Game(scen([pc(0, "fighter", [2, 7])], fixed_bases=[{"player": 0, "hex": [2, 7], "hits": 1}]))
    assert g.scores() == [3, 0]
    g.do(g.END_TURN, g.END_TURN)
    assert g.status(0, FIG) == R.DESTROYED and g.fx((2, 7)) == (-1, 0) and g.scores() == [0, 0]


def test_turns_option_sets_the_game_length():
    # Seed 004 "Fasi del gioco" (51 turns) with option turns (RULES.md §12.1).
    g = Game(setup="fixed", turns=3)
    assert [int(c) for c in g.cfg.colour_seq] == [BLUE, BLUE, BLUE]     # rows of ceil(3/3) = 1 turn
    g = Game(setup="fixed", turns=3, colour_table="cycle")
    assert [int(c) for c in g.cfg.colour_seq] == [BLUE, RED, YELLOW]
    for _ in range(5):
        g.do(g.END_TURN)
    assert g.phase == R.SELECT and g.turn == 2 and g.to_move == 1
    g.do(g.END_TURN)
    assert g.phase == R.OVER and all(g.env.terminations.values())


def test_one_hex_pieces_options():
    # RULES.md "Footprints": ship_length=1 and base_footprint="single" restore 1-hex pieces.
    g = Game(scen([pc(0, "base", [3, 1])]), ship_length=1, base_footprint="single")
    assert g.occupied(0) == {(3, 1): 1}
    g.do(g.launch("cruiser", 1))
    assert (g.pos(0, CRU), g.facing(0, CRU)) == ((4, 1), E)      # on the ramp itself
    assert g.occupied(0) == {(3, 1): 1, (4, 1): 1}


def test_save_and_load_after_a_piece_is_destroyed_by_its_fifth_hit(tmp_path):
    # Seed 004 "Combattimento": "sono distrutte col 5°" -- the destroyed piece leaves the game,
    # and the game can still be saved and loaded (RULES.md §12.8).
    g = Game(scen([pc(0, "cruiser", [4, 2], "E"), pc(1, "cruiser", [4, 4], "E", damage=4)]))
    g.do(g.select(CRU))
    g.shoot(g.target(CRU), 6)
    assert g.status(1, CRU) == R.DESTROYED
    path = tmp_path / "game.npz"
    g.env.save(path)
    g.env.load(path)
    assert g.status(1, CRU) == R.DESTROYED and g.phase == R.ACT


# =============================================================================================
# Illegal actions
# =============================================================================================
def test_illegal_actions_raise_and_change_nothing_in_the_core():
    # RULES.md §12.6: an illegal action raises ValueError naming the rule and changes nothing,
    # through the batched core as well as through the AEC env.
    g = Game(scen([pc(0, "fighter", [4, 4])]))
    g.do(g.select(FIG))
    before = g.core.clone_state()
    with pytest.raises(ValueError, match=re.escape("game 0: action")) as err:
        g.core.step(np.array([g.move(E)]))
    assert pgame.REASONS[R.R_IMPASSABLE] in str(err.value)
    for k, v in before.arrays.items():
        np.testing.assert_array_equal(g.core.state.arrays[k], v, err_msg=k)
    with pytest.raises(ValueError, match="outside the action space"):
        g.env.step(g.core.num_actions)
    assert g.core.why_illegal(0, -1).startswith("action -1 is outside the action space")
    for k, v in before.arrays.items():
        np.testing.assert_array_equal(g.core.state.arrays[k], v, err_msg=k)
    g.do(g.move(W))                                             # still playable afterwards
    assert g.pos(0, FIG) == (4, 3)


# =============================================================================================
# Mask oracle: the optimised mask against the reference rule functions
# =============================================================================================
ORACLE_SCENARIO = scen([
    pc(0, "base", [3, 1]), pc(0, "base", [5, 0], damage=1), pc(0, "cruiser", [4, 3], "E", damage=1),
    pc(0, "transport", [4, 8], "E"), pc(0, "fighter", [6, 6]), pc(0, "cruiser", status="hyper"),
    pc(0, "fighter", status="hyper"),
    pc(1, "base", [5, 19]), pc(1, "base", [3, 19], damage=2), pc(1, "cruiser", [4, 16], "W"),
    pc(1, "transport", [6, 13], "W"), pc(1, "fighter", [4, 12]), pc(1, "fighter", [2, 9]),
    pc(1, "transport", status="hyper"),
], fixed_bases=[{"player": 1, "hex": [7, 14], "hits": 1}, {"player": 0, "hex": [3, 7], "hits": 0}],
    blocked=[{"hex": [5, 5], "by": 1}])


ALL_HEXES = [(r, c) for r in range(ROWS) for c in range(COLS) if on_map((r, c))]
KEEP_AWAY = {0: 3, 1: 2, 2: 0, 3: 0}            # Seed 004 "Astronavi"
MAX_STEPS = {0: 2, 1: 9, 2: 9, 3: 9}
SHOTS = {1: 2, 2: 0, 3: 1}
_BFS = {}


def _fire_dist(colour, src):
    """Shortest rocket path lengths from ``src``: around asteroid belts, home planets and the
    planetoids of ``colour`` (a path may end on one), through everything else."""
    key = (colour, src)
    if key not in _BFS:
        obstacles = ASTEROIDS | set(HOMES) | {rc for rc in PLANETOIDS if PCOLOUR[rc] == colour}
        dist, queue = {src: 0}, [src]
        for c in queue:
            if c in obstacles and c != src:
                continue
            for d in range(6):
                n = step_rc(c, d)
                if n is not None and n not in dist:
                    dist[n] = dist[c] + 1
                    queue.append(n)
        _BFS[key] = dist
    return _BFS[key]


def _threshold(att, tgt, rng):
    row = SEED_TABLE[KINDS[att]][tgt]
    return row[rng - 1] if 1 <= rng <= len(row) else 0


def reference_mask(g):
    """The legal actions of the position, computed from RULES.md in plain Python from the
    pieces, flags and blocks of the state (independently of the kernels and their tables)."""
    s = g.core.state
    mask = np.zeros(g.core.num_actions, np.int8)
    gg = [int(v) for v in s.g[0]]
    if gg[R.G_DONE]:
        return mask
    p, phase = gg[R.G_DECIDER], gg[R.G_PHASE]
    q = 1 - p
    colour = int(g.cfg.colour_seq[min(gg[R.G_TURN], len(g.cfg.colour_seq) - 1)])
    kinds = [int(k) for k in g.cfg.slot_kind]
    keep_all = g.core.options["keep_away"] == "all"
    visible = {rc for rc in PLANETOIDS if PCOLOUR[rc] == colour}

    def piece(pl, i):
        return int(s.pc[0, pl, i, R.PC_STATUS]), g.rc(s.pc[0, pl, i, R.PC_POS]), int(s.pc[0, pl, i, R.PC_FACING])

    def fp(pl, i):
        _, rc, f = piece(pl, i)
        return footprint(pl, KINDS[kinds[i]], rc, f)

    occ = [{}, {}]
    for pl in range(2):
        for i in range(len(kinds)):
            if s.pc[0, pl, i, R.PC_STATUS] == R.ON_MAP:
                for h in fp(pl, i):
                    occ[pl][h] = occ[pl].get(h, 0) + 1
    for f, rc in enumerate(PLANETOIDS):
        o = int(s.fx[0, f, R.FX_OWNER])
        if o >= 0:
            occ[o][rc] = occ[o].get(rc, 0) + 1
    blocked = {g.rc(c) for c in np.flatnonzero(s.cells[0, :, R.C_BLOCKED] >= 0)}

    def cell_ok(pl, kind, h):
        if h is None or h in ASTEROIDS or h in HOMES or h in blocked or occ[1 - pl].get(h):
            return False
        if kind != 2 and h in visible:
            return False
        near = [x for x in PLANETOIDS if keep_all or x in visible]
        return not KEEP_AWAY[kind] or min(hexdist(h, x) for x in near) >= KEEP_AWAY[kind]

    def pos_ok(pl, kind, rc, facing):
        return rc is not None and all(cell_ok(pl, kind, h) for h in footprint(pl, KINDS[kind], rc, facing))

    def corridor(pl, rc, d):
        for _ in range(9):
            rc = step_rc(rc, d)
            if rc is None or rc in ASTEROIDS or rc in HOMES or rc in visible or rc in blocked or occ[1 - pl].get(rc):
                return False
        return True

    def exit_ok(pl, kind, rc, facing):
        if not pos_ok(pl, kind, rc, facing):
            return False
        return any(corridor(pl, rc, d) for d in range(6)) if kind == 3 else corridor(pl, rc, facing)

    def exits(pl, kind):
        faces = [0] if kind == 3 else range(6)
        return [rc for rc in ALL_HEXES if any(exit_ok(pl, kind, rc, f) for f in faces)]

    def rng(fa, fb):
        return min(_fire_dist(colour, a).get(b, 999) for a in fa for b in fb)

    if phase == R.SETUP:
        for rc in ALL_HEXES:
            if pos_ok(p, 0, rc, 0) and any(hexdist(h, HOMES[p]) == 1 for h in footprint(p, "base", rc)):
                mask[g.hex(rc)] = 1
    elif phase == R.SELECT:
        for i, k in enumerate(kinds):
            st = int(s.pc[0, p, i, R.PC_STATUS])
            if st not in (R.ON_MAP, R.HYPER) or s.pc[0, p, i, R.PC_ACTIVATED] or s.pc[0, p, i, R.PC_REPAIRED]:
                continue
            if st == R.ON_MAP or exits(p, k):
                mask[g.select(i)] = 1
        launched, count = gg[R.G_LAUNCHED], gg[R.G_LAUNCH_COUNT]
        for k in (1, 2, 3):
            if launched >= 0 and (launched != 3 or k != 3 or count >= 3):
                continue
            if not any(kinds[i] == k and s.pc[0, p, i, R.PC_STATUS] == R.RESERVE for i in range(len(kinds))):
                continue
            for ramp, (rc, d) in enumerate(RAMPS[p]):
                at = rc if k == 3 else step_rc(rc, d)
                if pos_ok(p, k, at, d):
                    mask[g.launch(KINDS[k], ramp)] = 1
        mask[g.END_TURN] = 1
    elif phase == R.ACT:
        i = gg[R.G_ACTIVE]
        k = kinds[i]
        _, at, facing = piece(p, i)
        damage = int(s.pc[0, p, i, R.PC_DAMAGE])
        steps, shots, move_done = gg[R.G_STEPS], gg[R.G_SHOTS], gg[R.G_MOVE_DONE]
        me = fp(p, i)
        can_fire = k != 2 and not gg[R.G_NO_FIRE] and (k == 0 or shots < SHOTS[k])
        if can_fire:
            for j, tk in enumerate(kinds):
                if s.pc[0, q, j, R.PC_STATUS] != R.ON_MAP or (k == 0 and s.pc[0, q, j, R.PC_SHOT]):
                    continue
                if _threshold(k, KINDS[tk], rng(me, fp(q, j))):
                    mask[g.target(j)] = 1
            for f, rc in enumerate(PLANETOIDS):
                if s.fx[0, f, R.FX_OWNER] != q or (k == 0 and s.fx[0, f, R.FX_SHOT]):
                    continue
                r = rng(me, [rc])
                if (k != 3 or r == 1) and _threshold(k, "fixed", r):
                    mask[g.fixed(rc)] = 1
            # RULES.md §3 (mobile base): one shot into space per activation by default (the hexes
            # it shot at this activation are flagged), each empty hex once with "each_hex"
            each_hex = g.core.options["base_space_shots"] == "each_hex"
            space_spent = k == 0 and not each_hex and bool(s.cells[0, :, R.C_SHOT].any())
            for rc in ALL_HEXES:
                if space_spent:
                    break
                if rc in ASTEROIDS or rc in HOMES or rc in visible or rc in blocked or occ[0].get(rc) or occ[1].get(rc):
                    continue
                if k == 0 and s.cells[0, g.cell(rc), R.C_SHOT]:
                    continue
                if _threshold(k, KINDS[k], rng(me, [rc])):
                    mask[g.hex(rc)] = 1
        for d in range(6):
            if not move_done and steps < MAX_STEPS[k] and (k in (0, 3) or d == facing):
                if pos_ok(p, k, step_rc(at, d), facing):
                    mask[g.move(d)] = 1
            if k in (1, 2) and not move_done and d != facing and pos_ok(p, k, at, d):
                mask[g.face(d)] = 1
            if (k != 0 and damage == 0 and shots == 0 and not gg[R.G_COLONISED] and (k == 3 or d == facing)
                    and corridor(p, at, d)):
                mask[g.hyper(d)] = 1
        if k == 2 and damage == 0 and at in visible and s.fx[0, PLANETOIDS.index(at), R.FX_OWNER] < 0:
            mask[g.COLONISE] = 1
        if k == 0 and steps == 0 and not move_done:
            for j, jk in enumerate(kinds):
                if (j != i and s.pc[0, p, j, R.PC_STATUS] == R.ON_MAP and s.pc[0, p, j, R.PC_DAMAGE] > 0
                        and not s.pc[0, p, j, R.PC_ACTIVATED] and not s.pc[0, p, j, R.PC_REPAIRED]
                        and min_dist(me, fp(p, j)) <= 1):
                    mask[g.REPAIR] = 1
        mask[g.END_ACT] = 1
    elif phase == R.EXIT_HEX:
        k = kinds[gg[R.G_ACTIVE]]
        for rc in exits(p, k):
            mask[g.hex(rc)] = 1
    elif phase == R.EXIT_FACE:
        k = kinds[gg[R.G_ACTIVE]]
        rc = g.rc(gg[R.G_EXIT_CELL])
        for f in range(6):
            if exit_ok(p, k, rc, f):
                mask[g.face(f)] = 1
    return mask


def check_invariants(g):
    """Things that hold after every action (RULES.md §1-§6)."""
    s = g.core.state
    colour = int(g.cfg.colour_seq[min(g.turn, len(g.cfg.colour_seq) - 1)])
    occ = [{}, {}]
    for pl in range(2):
        for i, k in enumerate(g.cfg.slot_kind):
            st = int(s.pc[0, pl, i, R.PC_STATUS])
            dmg = int(s.pc[0, pl, i, R.PC_DAMAGE])
            if st == R.HYPER:
                assert dmg == 0
            if st != R.ON_MAP:
                continue
            assert 0 <= dmg <= (0 if k == 3 else 4)
            cells = footprint(pl, KINDS[k], g.rc(s.pc[0, pl, i, R.PC_POS]), int(s.pc[0, pl, i, R.PC_FACING]))
            for h in cells:
                assert h is not None and h not in ASTEROIDS and h not in HOMES
                assert k == 2 or PCOLOUR.get(h) != colour, ("piece on a visible planetoid", pl, i, h)
                if k in (0, 1) and g.core.options["keep_away"] == "all":
                    assert min(hexdist(h, x) for x in PLANETOIDS) >= KEEP_AWAY[k]
                occ[pl][h] = occ[pl].get(h, 0) + 1
    for f, rc in enumerate(PLANETOIDS):
        o = int(s.fx[0, f, R.FX_OWNER])
        assert 0 <= int(s.fx[0, f, R.FX_HITS]) <= 4
        if o >= 0:
            occ[o][rc] = occ[o].get(rc, 0) + 1
    assert not set(occ[0]) & set(occ[1]), "enemy pieces share a hex"
    for pl in range(2):
        assert g.occupied(pl) == occ[pl]
    sc = g.scores()
    for pl in range(2):
        assert sc[pl] == sum(4 - int(s.fx[0, f, R.FX_HITS]) for f in range(len(PLANETOIDS))
                             if s.fx[0, f, R.FX_OWNER] == pl)


def check_mask(g, full_why=True):
    mask = g.core.mask[0]
    ref = reference_mask(g)
    bad = np.flatnonzero(mask != ref)
    assert len(bad) == 0, [(int(a), g.env.action_name(int(a)), int(mask[a]), g.core.why_illegal(0, int(a)))
                           for a in bad]
    for a in range(g.core.num_actions) if full_why else np.flatnonzero(mask):
        why = g.core.why_illegal(0, int(a))
        assert bool(mask[a]) == (why is None), (int(a), g.env.action_name(int(a)), why, g.phase)


FAMILIES = ("a_piece", "a_target", "a_fixed", "a_hex", "a_move", "a_face", "a_hyper", "a_launch", "a_colonise",
            "a_repair", "a_end_act", "a_end_turn", "n_actions")


def random_action(g, rng):
    """A random legal action, the family chosen first so that moves, pivots, launches and
    hyperspace are not drowned by the many shots into space."""
    legal = g.env.legal_actions()
    starts = [getattr(g.L, f) for f in FAMILIES]
    fams = {}
    for a in legal:
        fams.setdefault(int(np.searchsorted(starts, a, side="right")) - 1, []).append(int(a))
    keys = sorted(fams)
    weights = np.array([0.3 if FAMILIES[k] in ("a_end_turn", "a_end_act") else 1.0 for k in keys])
    fam = keys[rng.choice(len(keys), p=weights / weights.sum())]
    return int(rng.choice(fams[fam]))


@pytest.mark.parametrize("start,seed,options", [
    ("choose", 1, {}), ("fixed", 2, {}), ("scenario", 3, {}), ("scenario", 4, {"keep_away": "visible"}),
    ("fixed", 5, {"colour_table": "cycle"}), ("scenario", 6, {"base_space_shots": "each_hex"}),
])
def test_mask_oracle_in_random_play(start, seed, options):
    # RULES.md §12.3: "The mask is exactly the set of actions the step kernel accepts".  At every
    # step: mask[a] == (why_illegal(a) is None) for every action a, and the mask equals an
    # independent Python statement of the rules; invariants of §1-§6 hold throughout.
    if start == "scenario":
        g = Game(ORACLE_SCENARIO, seed=seed, **options)
    else:
        g = Game(seed=seed, setup=start, **options)
    rng = np.random.default_rng(seed)
    phases = set()
    for n in range(250):
        check_mask(g, full_why=n % 2 == 0)
        check_invariants(g)
        if g.phase == R.OVER:
            break
        phases.add(g.phase)
        g.env.step(random_action(g, rng))
    check_mask(g)
    assert {R.SELECT, R.ACT} <= phases
