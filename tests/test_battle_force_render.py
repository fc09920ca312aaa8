"""The Battle Force renderer: text table and RGB frame for 2, 3 and 6 players after reset
and random legal play, an attack on the table, the end of a game, and hidden information
(other players' hands and face-down reserve ships never show).  Rendering must never
change the state."""
import numpy as np
import pytest
from wargym.envs.battle_force import game
from wargym.envs.battle_force import render as bfr
from wargym.envs.battle_force import rules as R
from wargym.envs.core.vec import VecGame

# single-copy cards (nowhere else in the deck) for player 1's secret hand
SECRET = ("legendary_engineer", "organian_ceasefire", "klingon_mutiny", "legendary_gunner", "prime_team")


def _arrays(core):
    return {k: v.copy() for k, v in core.state.clone().arrays.items()}


def _same(before, core):
    after = core.state.arrays
    for k, v in before.items():
        np.testing.assert_array_equal(v, after[k], err_msg=f"render changed state field {k}")


def _check(core, viewer=None):
    """Both modes for one viewer; returns the plain text."""
    before = _arrays(core)
    text = bfr.render(core, 0, "ansi", viewer)
    frame = bfr.render(core, 0, "rgb_array", viewer)
    _same(before, core)
    assert isinstance(text, str) and text.strip()
    plain = bfr.strip_ansi(text)
    assert plain == bfr.render_ansi(bfr.snapshot(core, 0, viewer), colour=False)
    for p in range(core.num_players):
        assert f"P{p}" in plain
    stage = int(core.state.g[0, R.G_STAGE])
    assert game.STAGE_NAMES[stage] in plain
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
    assert frame.ndim == 3 and frame.shape[2] == 3
    assert frame.shape[0] >= 500 and frame.shape[1] >= 1000
    assert frame.std() > 10          # something is drawn
    return plain


def _random_steps(core, rng, n):
    for _ in range(n):
        if core.state.g[0, R.G_DONE]:
            return
        legal = np.flatnonzero(core.mask[0])
        core.step(np.array([rng.choice(legal)]))


@pytest.mark.parametrize("players", [2, 3, 6])
def test_render_after_reset_and_random_play(players):
    core = VecGame(game, 1, {"players": players})
    core.reset(seed=players)
    rng = np.random.default_rng(players)
    frames = []
    for chunk in range(6):
        for viewer in (None, 0, players - 1):
            _check(core, viewer)
        frames.append(bfr.render(core, 0, "rgb_array", 0).shape)
        _random_steps(core, rng, 15 if chunk < 2 else 60)
    # the picture grows with the number of players, not with the viewer
    assert bfr.render(core, 0, "rgb_array", 0).shape[1] == (1200 if players <= 3 else 1400)
    if players == 2:
        assert frames[-1][0] <= 1100


def test_game_over_shows_scores_and_winners():
    core = VecGame(game, 1, {"players": 3, "end_turns": 1})
    core.reset(seed=11)
    rng = np.random.default_rng(11)
    _random_steps(core, rng, 5000)
    assert core.state.g[0, R.G_DONE]
    plain = _check(core, 0)
    info = game.final_info(core, 0)
    assert "Game over" in plain and "final scores" in plain
    for p in (p for p, w in enumerate(info["won"]) if w):
        assert f"P{p} {info['scores'][p]}" in plain


def _scenario():
    return {
        "players": [
            {"hand": ["disruptor:4", "overload", "phaser1:3"],
             "ships": [{"ship": "Thunderchild", "line": "screen"}, {"ship": "Ravager", "line": "main"}]},
            {"hand": list(SECRET), "reserve": ["damage_control"],
             "ships": [{"ship": "Constellation", "line": "screen"}, {"ship": "Valiant", "line": "main"},
                       {"ship": "Holdfast", "line": "reserve"}]},
        ],
        "active": 0, "phase": "attack",
    }


def _secret_words():
    words = []
    for typ in SECRET:
        words += [typ, bfr.CARD_TITLES[typ]]
    return words


def _assert_hidden(plain):
    for word in _secret_words():
        assert word not in plain, f"player 1's hand shows in player 0's view: {word!r}"
    assert "Holdfast" not in plain and "face-down ship" in plain


def test_hidden_information():
    core = VecGame(game, 1, {"players": 2})
    core.load_scenario(_scenario(), seed=0)
    assert int(core.state.g[0, R.G_STAGE]) == R.ST_ATTACK
    mine = _check(core, 0)
    _assert_hidden(mine)
    assert "hand 5" in mine and "reserve cards 1" in mine           # counts are public
    assert "Disruptor 4" in mine and "Overload" in mine               # the viewer's own hand
    theirs = _check(core, 1)
    for typ in SECRET:
        assert bfr.CARD_TITLES[typ] in theirs
    assert "Holdfast" in theirs and "Damage Control" in theirs
    assert "Disruptor 4" not in theirs and "Overload" not in theirs  # ... and player 0's hand is hidden from 1
    # the pictures differ only by what each player may see
    a = bfr.render(core, 0, "rgb_array", 0)
    b = bfr.render(core, 0, "rgb_array", 1)
    assert a.shape[1] == b.shape[1] and not np.array_equal(a, b)


def _act(core, family, arg):
    a = game.action_index(core.cfg, family, arg)
    assert core.mask[0, a], f"{family} {arg} is not legal at stage {game.STAGE_NAMES[core.state.g[0, R.G_STAGE]]}"
    core.step(np.array([a]))


def _ship(core, name):
    return [s["name"] for s in core.cfg.ships].index(name)


def _card(core, typ, value):
    return next(i for i, c in enumerate(core.cfg.cards)
                if c["type"] == typ and c.get("value") == value and core.state.cd[0, i, R.CD_LOC] == R.CL_HAND
                and core.state.cd[0, i, R.CD_WHO] == 0)


def test_attack_on_the_table():
    core = VecGame(game, 1, {"players": 2})
    core.load_scenario(_scenario(), seed=0)
    disr, over = _card(core, "disruptor", 4), next(
        i for i, c in enumerate(core.cfg.cards) if c["type"] == "overload" and core.state.cd[0, i, R.CD_WHO] == 0
        and core.state.cd[0, i, R.CD_LOC] == R.CL_HAND)
    _act(core, "SHIP", _ship(core, "Thunderchild"))
    if core.state.g[0, R.G_STAGE] == R.ST_TARGET:
        _act(core, "SHIP", _ship(core, "Constellation"))
    assert core.state.g[0, R.G_TARGET] == _ship(core, "Constellation")
    _act(core, "CARD", disr)
    _act(core, "CARD", over)
    if core.state.g[0, R.G_STAGE] == R.ST_LINK:
        _act(core, "CARD", disr)
    assert core.state.cd[0, over, R.CD_LINK] == disr
    for viewer in (0, 1):
        plain = _check(core, viewer)
        assert "Attack (ship attack): P0 D7 Thunderchild \u2192 P1 CA Constellation" in plain
        assert f"[{disr}] Disruptor 4 (P0, fired by D7 Thunderchild) \u00d72 [{over}] Overload" in plain
        assert "<ATTACKING>" in plain and "<TARGET>" in plain
    _assert_hidden(_check(core, 0))
    # the attack goes on: defence, answers, damage; the renderer follows every step
    rng = np.random.default_rng(0)
    _act(core, "DONE", 0)
    for _ in range(12):
        plain = _check(core, int(core.state.g[0, R.G_DECIDER]))
        if core.state.g[0, R.G_STAGE] == R.ST_PLACE:
            left = int(core.state.g[0, R.G_DMG_LEFT])
            assert f"damage to place: {left} on CA Constellation" in plain
        if core.state.g[0, R.G_STAGE] not in (R.ST_DEFENCE, R.ST_REACT, R.ST_LINK, R.ST_PLACE, R.ST_SHIP_FOR,
                                              R.ST_PT_MODE):
            break
        _random_steps(core, rng, 1)
    _assert_hidden(_check(core, 0))


def test_env_render_modes():
    from wargym.envs.battle_force.env import raw_env

    env = raw_env(render_mode="ansi", players=3)
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "P2" in text
    env = raw_env(render_mode="rgb_array", players=2)
    env.reset(seed=1)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3


def test_two_erratic_maneuvers_on_a_ship_are_shown():
    # SFBF 4.4 B (issue 14): a second Erratic Maneuvers on a ship is allowed; the marker counts them
    core = VecGame(game, 1)
    sc = {"players": [{"hand": ["photon:6", "phaser1:4"], "ships": ["Constellation", "Valiant"]},
                      {"hand": ["erratic_maneuvers", "erratic_maneuvers"], "ships": ["Invincible", "Thunderchild"]}],
          "active": 0, "phase": "attack"}
    core.load_scenario(sc, seed=0)
    names = [s["name"] for s in core.cfg.ships]
    ems = [i for i, c in enumerate(core.cfg.cards) if c["type"] == "erratic_maneuvers"]
    pho = [i for i, c in enumerate(core.cfg.cards) if c["type"] == "photon" and c["value"] == 6][0]
    for fam, arg in (("SHIP", names.index("Constellation")), ("SHIP", names.index("Invincible")),
                     ("CARD", pho), ("DONE", 0), ("CARD", ems[0]), ("CARD", ems[1])):
        a = game.action_index(core.cfg, fam, arg)
        if core.mask[0, a]:
            core.step([a])
    assert (core.state.cd[0, ems, R.CD_LOC] == R.CL_SHIP).all()
    plain = bfr.strip_ansi(bfr.render(core, 0, "ansi", 0))
    assert "ERRATIC MANEUVERS 4 x2" in plain or "x2" in plain
