"""Env contract, determinism, state management, hidden information and fuzz tests for
battle_force_v1 (2-6 players)."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from wargym.envs import battle_force_v1
from wargym.envs.battle_force import game
from wargym.envs.battle_force import rules as R
from wargym.envs.core.batch import BatchState, StateSpec
from wargym.envs.core.sampling import new_streams, sample_legal
from wargym.envs.core.vec import VecGame


def _play(core, streams, steps):
    actions = np.zeros(core.num_envs, dtype=np.int64)
    for _ in range(steps):
        sample_legal(core.mask, streams, actions)
        core.step(actions)


def _same_state(a, b):
    return all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)


# -- PettingZoo contract ------------------------------------------------------------------
@pytest.mark.parametrize("players", [3, 6])   # 2 players: test_env_contract.py, as every game
def test_pettingzoo_api_test(players):
    api_test(battle_force_v1.env(players=players), num_cycles=300)


@pytest.mark.parametrize("players", [3, 6])
def test_pettingzoo_seed_test(players):
    seed_test(lambda: battle_force_v1.env(players=players), num_cycles=300)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_pettingzoo_render_test(players):
    render_test(lambda render_mode=None: battle_force_v1.env(render_mode=render_mode, players=players))


def test_whole_games_end_with_a_result():
    env = battle_force_v1.env(players=3, end_turns=4)
    for episode in range(2):
        env.reset(seed=episode)
        rng = np.random.default_rng(episode)
        for agent in env.agent_iter():
            obs, _reward, term, trunc, info = env.last()
            if term or trunc:
                assert not trunc
                assert {"winner", "scores", "rounds", "won", "ranks", "kill_points"} <= set(info)
                env.step(None)
                continue
            assert obs["action_mask"].any(), "mask must never be empty while the game is live"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.agents == []


def test_observation_layout_is_documented():
    env = battle_force_v1.raw_env(players=3)
    env.reset(seed=0)
    cfg = env.core.cfg
    obs = env.observe(env.agent_selection)["observation"]
    parts = game.split_obs(cfg, obs)
    NC, NS = int(cfg.k[R.K_NC]), int(cfg.k[R.K_NS])
    assert parts["cards"].shape == (NC, len(game.CARD_FEATURES))
    assert parts["ships"].shape == (NS, len(game.SHIP_FEATURES))
    assert parts["players"].shape == (R.MAX_P, len(game.PLAYER_FEATURES))
    assert parts["globals"].shape == (len(game.GLOBAL_FEATURES),)
    me = env.agent_name_mapping[env.agent_selection]
    assert parts["globals"][R.N_STAGES + 17] == me            # "my seat"
    assert parts["globals"][R.N_STAGES + 18] == 3             # "players"
    assert parts["players"][0, 0] == env.core.state.pl[0, me, R.PL_HAND]


ORDER_SCENARIO = {"players": [{"hand": [], "ships": [{"ship": "Constellation"}, {"ship": "Lexington", "line": "main"}]},
                              {"hand": [], "ships": [{"ship": "Thunderchild"}, {"ship": "Despoiler", "line": "main"},
                                                     {"ship": "Marauder", "line": "reserve"}]},
                              {"hand": [], "ships": [{"ship": "Ravager"}, {"ship": "Predator"}]}],
                  "active": 0, "phase": "attack"}


def _ship_rows(options, viewer):
    core = VecGame(game, 1, {"players": 3, **options})
    core.load_scenario(ORDER_SCENARIO, seed=0)
    names = [s["name"] for s in core.cfg.ships]
    rows = game.split_obs(core.cfg, core.observe(0, viewer)[0])["ships"]
    return {name: rows[names.index(name)] for name in names}, core


def test_battle_force_v1_shows_each_ships_place_in_its_line():
    """battle_force_v1 (SFBF Gioco in solitario: the automaton attacks "the first" enemy ship of the
    screen): the last ship feature is the ship's place in its line among the viewer's enemies' ships
    (whichever enemy owns them) or among its own side's, in the order the ships came into play (the
    scenario places them in its order), counted over the ships the viewer sees; a face-down reserve
    ship (SFBF Navi di Riserva) stays hidden, its row empty but for "unknown to me"."""
    rows, _ = _ship_rows({}, viewer=0)
    order = {name: int(row[-1]) for name, row in rows.items()}
    assert game.SHIP_FEATURES[-1].startswith("in play: its place in its line")
    assert (order["Thunderchild"], order["Ravager"], order["Predator"], order["Despoiler"]) == (1, 2, 3, 1)
    assert (order["Constellation"], order["Lexington"]) == (1, 1)
    hidden = rows["Marauder"]
    assert hidden[8] == 1 and not hidden[:8].any() and not hidden[9:].any()
    assert order["Federation"] == 0                  # not in play (in the ship deck)
    rows_1, _ = _ship_rows({}, viewer=1)
    order_1 = {name: int(row[-1]) for name, row in rows_1.items()}
    assert (order_1["Constellation"], order_1["Ravager"], order_1["Predator"]) == (1, 2, 3)   # player 1's enemies
    assert (order_1["Thunderchild"], order_1["Despoiler"], order_1["Marauder"]) == (1, 1, 1)
    assert rows_1["Marauder"][7] == 3                  # its owner sees it: in the reserve


def test_battle_force_v0_observation_is_v1_without_the_ship_order():
    """battle_force_v0 (option ship_order=False) keeps the earlier layout: v1 less its last ship feature."""
    v1, core1 = _ship_rows({}, viewer=0)
    v0, core0 = _ship_rows({"ship_order": False}, viewer=0)
    assert all(np.array_equal(v0[name], v1[name][:-1]) for name in v1)
    parts0 = game.split_obs(core0.cfg, core0.observe(0, 0)[0])
    parts1 = game.split_obs(core1.cfg, core1.observe(0, 0)[0])
    assert parts0["ships"].shape[1] == len(game.SHIP_FEATURES) - 1
    for part in ("cards", "players", "globals"):
        assert np.array_equal(parts0[part], parts1[part])
    assert battle_force_v1.raw_env().metadata["name"] == "battle_force_v1"


def test_unknown_or_bad_options_are_rejected():
    with pytest.raises(ValueError, match="unknown Battle Force option"):
        battle_force_v1.env(warp_speed=9)
    with pytest.raises(ValueError, match="players"):
        battle_force_v1.env(players=7)
    with pytest.raises(ValueError, match="allies"):
        battle_force_v1.env(players=3, allies=True)


# -- determinism -------------------------------------------------------------------------------


# -- state: clone, save, load ---------------------------------------------------------------------
def test_save_load_round_trip(tmp_path):
    core = VecGame(game, 4, {"players": 3}, auto_reset=True)
    core.reset(seed=3)
    _play(core, new_streams(4, 3), 400)
    path = tmp_path / "bf.npz"
    core.save(path)
    twin = VecGame(game, 4, {"players": 3}, auto_reset=True)
    twin.load(path)
    np.testing.assert_array_equal(core.obs, twin.obs)
    np.testing.assert_array_equal(core.mask, twin.mask)
    np.testing.assert_array_equal(core.current_player, twin.current_player)
    s = new_streams(4, 99)
    _play(core, s.copy(), 400)
    _play(twin, s.copy(), 400)
    for k in core.state.arrays:
        np.testing.assert_array_equal(core.state.arrays[k], twin.state.arrays[k])


def test_save_and_load_single_games_by_index(tmp_path):
    core = VecGame(game, 3)
    core.reset(seed=8)
    _play(core, new_streams(3, 8), 120)
    core.save(tmp_path / "one.npz", index=[2])
    other = VecGame(game, 3)
    other.reset(seed=1)
    other.load(tmp_path / "one.npz", index=[0])
    for k in core.state.arrays:
        np.testing.assert_array_equal(core.state.arrays[k][2], other.state.arrays[k][0])
    np.testing.assert_array_equal(core.obs[2], other.obs[0])


def test_corrupt_or_foreign_save_file_is_rejected_and_changes_nothing(tmp_path):
    core = VecGame(game, 2)
    core.reset(seed=1)
    _play(core, new_streams(2, 1), 60)
    good = tmp_path / "good.npz"
    core.save(good)
    _play(core, new_streams(2, 2), 30)             # move on, so a wrong load would show
    before = core.clone_state()
    obs, mask = core.obs.copy(), core.mask.copy()

    bad = tmp_path / "bad.npz"
    bad.write_bytes(good.read_bytes()[:300])
    with pytest.raises(ValueError, match="not a readable wargym save file"):
        core.load(bad)
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 definitely not a zip")
    with pytest.raises(ValueError, match="not a readable"):
        core.load(tmp_path / "junk.npz")
    # another game's save file
    fake = StateSpec("talon", core.spec.fields, view_type=lambda *a: None)
    BatchState(fake, 2, {k: v.copy() for k, v in core.state.arrays.items()}).save(tmp_path / "talon.npz")
    with pytest.raises(ValueError, match="holds game 'talon'"):
        core.load(tmp_path / "talon.npz")
    # the same game under other options (a different player count: another schema)
    other = VecGame(game, 2, {"players": 3})
    other.reset(seed=0)
    other.save(tmp_path / "three.npz")
    with pytest.raises(ValueError):
        core.load(tmp_path / "three.npz")
    basic = VecGame(game, 2, {"game": "basic"})
    with pytest.raises(ValueError, match="options"):
        basic.load(good)
    # impossible values
    for field, where, value in (("cd", (0, 5, R.CD_LOC), 99), ("g", (1, R.G_STAGE), 77),
                                ("sh", (0, 3, R.SH_COV + R.K_CIRCLE), 50), ("pl", (0, 0, R.PL_HAND), 17)):
        st, _meta = BatchState.load(core.spec, good)
        st.arrays[field][where] = value
        st.save(tmp_path / "evil.npz", meta={"options": core.options})
        with pytest.raises(ValueError, match="impossible values"):
            core.load(tmp_path / "evil.npz")
    assert _same_state(before, core.state)
    np.testing.assert_array_equal(obs, core.obs)
    np.testing.assert_array_equal(mask, core.mask)


# -- scenarios ------------------------------------------------------------------------------------
GOOD_SCENARIO = {"players": [{"hand": ["photon:6", "phaser1:4"], "ships": ["Federation", "Constellation"]},
                             {"hand": ["ecm"], "ships": ["Thunderchild", {"ship": "Ravager", "damage": {"circle": 1}}]}],
                 "active": 0, "phase": "attack"}


def test_a_scenario_sets_up_the_game():
    core = VecGame(game, 2, {"game": "basic"})
    core.load_scenario(GOOD_SCENARIO, seed=0)
    cfg = core.cfg
    names = [s["name"] for s in cfg.ships]
    for b in range(2):
        assert core.state.g[b, R.G_STAGE] == R.ST_ATTACK and core.current_player[b] == 0
        assert core.state.sh[b, names.index("Federation"), R.SH_OWNER] == 0
        assert core.state.sh[b, names.index("Ravager"), R.SH_COV + R.K_CIRCLE] == 1
        assert core.state.pl[b, 0, R.PL_HAND] == 2 and core.state.pl[b, 1, R.PL_HAND] == 1
        assert core.mask[b].any()
    env = battle_force_v1.raw_env(game="basic")
    env.reset(seed=0, options={"scenario": GOOD_SCENARIO})
    assert env.agent_selection == "player_0"


BAD_SCENARIOS = [
    "not a dict",
    {"players": [{"ships": ["Federation"]}]},                                        # one player of two
    {"players": [{"ships": ["Federation"]}, {"ships": ["Thunderchild"]}], "weather": "fine"},
    {"players": [{"ships": ["Federation"]}, {"ships": ["Federation"]}]},            # ship twice
    {"players": [{"ships": ["Enterprise-D"]}, {"ships": ["Thunderchild"]}]},        # no such ship
    {"players": [{"ships": [{"ship": "Federation", "damage": {"circle": 9}}]}, {"ships": ["Thunderchild"]}]},
    {"players": [{"ships": [{"ship": "Federation", "line": "orbit"}]}, {"ships": ["Thunderchild"]}]},
    {"players": [{"hand": ["photon:99"], "ships": ["Federation"]}, {"ships": ["Thunderchild"]}]},
    {"players": [{"hand": [0, 0], "ships": ["Federation"]}, {"ships": ["Thunderchild"]}]},
    {"players": [{"hand": ["phaser1"] * 6, "ships": ["Federation"]}, {"ships": ["Thunderchild"]}]},
    {"players": [{"ships": ["Federation"]}, {"ships": ["Thunderchild"]}], "phase": "lunch"},
    {"players": [{"ships": ["Federation"]}, {"ships": ["Thunderchild"]}], "active": 2},
    {"players": [{"ships": ["Federation"]}, {"ships": []}]},                         # one side only
]


@pytest.mark.parametrize("bad", BAD_SCENARIOS)
def test_malformed_scenario_raises_and_changes_nothing(bad):
    core = VecGame(game, 2, {"game": "basic"})
    core.reset(seed=4)
    _play(core, new_streams(2, 4), 20)
    before = core.clone_state()
    obs, mask, cur = core.obs.copy(), core.mask.copy(), core.current_player.copy()
    with pytest.raises(ValueError):
        core.load_scenario(bad, seed=1)
    assert _same_state(before, core.state)
    np.testing.assert_array_equal(obs, core.obs)
    np.testing.assert_array_equal(mask, core.mask)
    np.testing.assert_array_equal(cur, core.current_player)


def test_malformed_scenario_through_the_env_changes_nothing():
    env = battle_force_v1.raw_env()
    env.reset(seed=0)
    before = env.clone_state()
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"scenario": BAD_SCENARIOS[4]})
    assert _same_state(before, env.core.state)


# -- illegal actions ----------------------------------------------------------------------------
def test_illegal_actions_raise_and_change_nothing():
    core = VecGame(game, 4)
    core.reset(seed=2)
    _play(core, new_streams(4, 2), 50)
    before = core.clone_state()
    illegal = int(np.flatnonzero(core.mask[1] == 0)[0])
    legal = np.array([int(np.flatnonzero(core.mask[b])[0]) for b in range(4)])
    actions = legal.copy()
    actions[1] = illegal
    with pytest.raises(ValueError, match="game 1: .* is illegal"):
        core.step(actions)
    # the illegal game is untouched; the legal ones of the batch were applied
    for k in before.arrays:
        np.testing.assert_array_equal(before.arrays[k][1], core.state.arrays[k][1])
    assert not all(np.array_equal(before.arrays[k][0], core.state.arrays[k][0]) for k in before.arrays)
    for bad in (-1, core.num_actions, 10 ** 6):
        snap = core.clone_state()
        with pytest.raises(ValueError):
            core.step_one(2, bad)
        assert _same_state(snap, core.state)
    assert core.why_illegal(1, illegal) is not None
    assert core.why_illegal(1, int(np.flatnonzero(core.mask[1])[0])) is None


def test_illegal_action_through_the_env_raises_and_changes_nothing():
    env = battle_force_v1.env(players=3)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(40):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    raw = env.unwrapped
    before = raw.clone_state()
    agent = env.agent_selection
    obs = env.observe(agent)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    for a in (illegal, -3, raw.core.num_actions):
        with pytest.raises(ValueError, match="illegal|outside"):
            env.step(a)
        assert env.agent_selection == agent
        assert _same_state(before, raw.core.state)
        np.testing.assert_array_equal(env.observe(agent)["observation"], obs["observation"])


# -- hidden information -------------------------------------------------------------------------
def _check_no_leak(core, b):
    cfg = core.cfg
    P = core.num_players
    cd, sh = core.state.cd[b], core.state.sh[b]
    loc, who = cd[:, R.CD_LOC], cd[:, R.CD_WHO]
    for p in range(P):
        obs, _ = core.observe(b, p)
        parts = game.split_obs(cfg, obs)
        cards, ships = parts["cards"], parts["ships"]
        # features 0 / 1 only for the viewer's own hand / reserve
        np.testing.assert_array_equal(cards[:, 0] == 1, (loc == R.CL_HAND) & (who == p))
        np.testing.assert_array_equal(cards[:, 1] == 1, (loc == R.CL_RES) & (who == p))
        # a card in another player's hand or reserve looks exactly like a card in the deck
        hidden = ((loc == R.CL_HAND) | (loc == R.CL_RES)) & (who != p)
        assert not cards[hidden].any()
        assert not cards[loc == R.CL_DECK].any()
        # face-down reserve ships of the others, and the ship deck, are unknown and show nothing else
        down = (sh[:, R.SH_LOC] == R.SL_FLEET) & (sh[:, R.SH_OWNER] != p) & (sh[:, R.SH_DOWN] != 0)
        unknown = down | (sh[:, R.SH_LOC] == R.SL_DECK)
        assert (ships[unknown, 8] == 1).all()
        other = np.ones(ships.shape[1], dtype=bool)
        other[8] = False
        assert not ships[unknown][:, other].any()
        assert (ships[~unknown, 8] == 0).all()
        # hand sizes are public, contents are not
        for r in range(P):
            assert parts["players"][r, 0] == core.state.pl[b, (p + r) % P, R.PL_HAND]


@pytest.mark.parametrize("options", [{}, {"players": 4, "end_turns": 6}, {"players": 3, "game": "basic"}])
def test_observations_never_show_other_players_cards(options):
    n = 4
    core = VecGame(game, n, options, auto_reset=True)
    core.reset(seed=21)
    streams = new_streams(n, 21)
    actions = np.zeros(n, dtype=np.int64)
    downs = 0
    for _ in range(500):
        sample_legal(core.mask, streams, actions)
        core.step(actions)
        for b in range(n):
            _check_no_leak(core, b)
            downs += int(core.state.sh[b, :, R.SH_DOWN].sum())
    if options.get("game") != "basic":
        assert downs > 0, "no face-down reserve ship was ever seen: the check did not run"


def _revealed_cards(core, b, p):
    """Cards the globals name to viewer p: the pending card and the card just drawn."""
    g = game.split_obs(core.cfg, core.observe(b, p)[0])["globals"]
    out = []
    for col in (R.N_STAGES + 21, R.N_STAGES + 28):
        if g[col] > 0:
            out.append(int(g[col]) - 1)
    return out


def test_globals_never_name_a_card_hidden_from_the_viewer():
    """The pending card (e.g. the card chosen for discard, which may go face down into the reserve)
    and the card just drawn are named only to the player holding them."""
    n = 4
    core = VecGame(game, n, auto_reset=True)
    core.reset(seed=3)
    streams = new_streams(n, 3)
    actions = np.zeros(n, dtype=np.int64)
    for _ in range(1500):
        sample_legal(core.mask, streams, actions)
        core.step(actions)
        for b in range(n):
            cd = core.state.cd[b]
            for p in range(core.num_players):
                for c in _revealed_cards(core, b, p):
                    held = cd[c, R.CD_LOC] in (R.CL_HAND, R.CL_RES, R.CL_DECK)
                    assert not (held and cd[c, R.CD_WHO] != p), \
                        f"stage {game.STAGE_NAMES[core.state.g[b, R.G_STAGE]]}: player {p} sees card {c} " \
                        f"held by player {cd[c, R.CD_WHO]}"


def test_dealt_ships_of_the_others_are_hidden_before_they_are_placed():
    core = VecGame(game, 1, {"players": 4})
    core.reset(seed=0)
    assert core.state.g[0, R.G_STAGE] < R.ST_DRAW
    sh = core.state.sh[0]
    for p in range(4):
        ships = game.split_obs(core.cfg, core.observe(0, p)[0])["ships"]
        theirs = (sh[:, R.SH_LOC] == R.SL_FLEET) & (sh[:, R.SH_OWNER] != p) & (sh[:, R.SH_LINE] < 0)
        assert theirs.any()
        assert (ships[theirs, 8] == 1).all(), "another player's unplaced dealt ship is shown to me"


# -- fuzz -------------------------------------------------------------------------------------------
def _each_once(B, N, stacks, sizes):
    """(B, N) count of how often each item sits in the first ``sizes[b]`` slots of ``stacks[b]``."""
    cnt = np.zeros((B, N), dtype=np.int64)
    valid = np.arange(stacks.shape[1])[None, :] < sizes[:, None]
    rows, _ = np.nonzero(valid)
    np.add.at(cnt, (rows, stacks[valid]), 1)
    return cnt


def _check_invariants(core, max_decisions=0):
    """Every invariant over the whole batch at once (vectorised: it runs after every step)."""
    cfg, st = core.cfg, core.state
    g, cd, sh, pl = st.g, st.cd, st.sh, st.pl
    B, P = core.num_envs, core.num_players
    NC, NS = int(cfg.k[R.K_NC]), int(cfg.k[R.K_NS])
    formation = bool(cfg.k[R.K_ADVANCED] and cfg.k[R.K_FORMATION])
    stage = g[:, R.G_STAGE]

    def ok(per_game, what):
        per_game = np.asarray(per_game)
        if not per_game.all():
            b = int(np.flatnonzero(~per_game)[0])
            raise AssertionError(f"{what}: game {b} at stage {game.STAGE_NAMES[stage[b]]} "
                                 f"(decision {g[b, R.G_DECISIONS]}, game turn {g[b, R.G_ROUND]})")

    seats = np.arange(P)
    loc, who = cd[..., R.CD_LOC], cd[..., R.CD_WHO]
    ok(((loc >= R.CL_OUT) & (loc <= R.CL_SHIP)).all(1), "card location out of range")
    ok(((loc == R.CL_OUT) == ~cfg.card[None, :, R.CC_IN].astype(bool)).all(1), "a card left the game or came back")
    # the play-order numbers restart with each attack, so they stay within the int8 card columns
    ok((g[:, R.G_SEQ] >= 0) & (g[:, R.G_SEQ] <= NC), "card play numbering (G_SEQ) outgrew the cards of one attack")
    if max_decisions == 0:
        ok(~core.truncated & (g[:, R.G_TRUNC] == 0), "truncated without max_decisions (no legal action)")
    # stacks: the deck and the discard pile hold exactly the cards located there, each once
    dn, xn = g[:, R.G_DECK_N], g[:, R.G_DISC_N]
    ok((dn >= 0) & (dn <= NC) & (xn >= 0) & (xn <= NC), "stack size")
    ok((_each_once(B, NC, st.deck, dn) == (loc == R.CL_DECK)).all(1), "action deck does not match the card locations")
    ok((_each_once(B, NC, st.disc, xn) == (loc == R.CL_DISC)).all(1), "discard pile does not match the card locations")
    # hands and reserves
    held = (loc == R.CL_HAND) | (loc == R.CL_RES)
    ok((~held | ((who >= 0) & (who < P))).all(1), "held card without a holder")
    hands = ((loc == R.CL_HAND)[..., None] & (who[..., None] == seats)).sum(1)
    res = ((loc == R.CL_RES)[..., None] & (who[..., None] == seats)).sum(1)
    ok((hands == pl[:, :, R.PL_HAND]).all(1), "hand count")
    ok((res == pl[:, :, R.PL_RES]).all(1), "reserve count")
    ok((res <= 3).all(1), "more than three reserve cards")
    ok((stage < R.ST_DRAW) | (hands <= cfg.k[R.K_HAND]).all(1), "hand over the limit")
    # cards on the table only during an attack (or while a Ceasefire is resolved)
    table = ((loc == R.CL_ATK) | (loc == R.CL_DEF)).any(1)
    ok(~table | (g[:, R.G_ATK_KIND] != R.AK_NONE) | (stage == R.ST_CEASE_KEEP) | (stage == R.ST_DISC_ORDER),
       "cards on the table out of an attack")
    # ship-borne cards (Erratic Maneuvers, Wild Weasel, Disengage) sit on a ship in play whose
    # marker column shows it (the column names the last one: a ship may hold two Erratic Maneuvers,
    # SFBF 4.4 B); during the ordering of phase-5 discards (option draw_discard) the columns are clear
    bb, ii = np.meshgrid(np.arange(B), np.arange(NS), indexing="ij")
    sl, so = sh[..., R.SH_LOC], sh[..., R.SH_OWNER]
    for col in (R.SH_EM, R.SH_WW, R.SH_DIS):
        v = sh[..., col]
        on = v > 0
        at = np.maximum(v - 1, 0)
        ok((~on | ((sl == R.SL_FLEET) & (loc[bb, at] == R.CL_SHIP) & (who[bb, at] == ii))).all(1),
           "ship-borne card mismatch")
    onship = loc == R.CL_SHIP
    ship_of = np.where(onship, who, 0)
    rows = np.arange(B)[:, None]
    ok((~onship | (sl[rows, ship_of] == R.SL_FLEET)).all(1), "a card on a ship out of play")
    typ = cfg.card[None, :, R.CC_TYPE]
    ordering = (stage == R.ST_DISC_ORDER)
    for t, col in ((R.T_EM, R.SH_EM), (R.T_WW, R.SH_WW), (R.T_DISENGAGE, R.SH_DIS)):
        m = onship & (typ == t)
        ok(ordering | (~m | (sh[rows, ship_of, col] > 0)).all(1), "ship-borne cards do not match the ships")
    for col in (R.SH_WW, R.SH_DIS):          # at most one Wild Weasel and one Disengage per ship
        t = R.T_WW if col == R.SH_WW else R.T_DISENGAGE
        m = onship & (typ == t)
        n_on = np.zeros((B, NS), dtype=np.int64)
        np.add.at(n_on, (np.nonzero(m)[0], ship_of[m]), 1)
        ok((n_on <= 1).all(1), "two Wild Weasel / Disengage cards on a ship")
    # ships: one place each; the ship deck matches
    ok(((sl >= R.SL_OUT) & (sl <= R.SL_VP)).all(1), "ship location out of range")
    ok((_each_once(B, NS, st.sdeck, g[:, R.G_SDECK_N]) == (sl == R.SL_DECK)).all(1), "ship deck mismatch")
    fleet, pile = sl == R.SL_FLEET, sl == R.SL_VP
    ok((~(fleet | pile) | ((so >= 0) & (so < P))).all(1), "ship without a valid owner")
    # damage markers within the ship's spaces; none on ships out of play
    cov = sh[..., R.SH_COV:R.SH_COV + R.N_KIND]
    caps = cfg.ship[None, :, R.SC_N:R.SC_N + R.N_KIND]
    ok(((cov >= 0) & (cov <= caps)).all((1, 2)), "damage markers outside the ship's spaces")
    ok(~(cov.any(2) & ((sl == R.SL_DECK) | pile)).any(1), "damage markers on a ship out of play")
    # lines after the set-up; only reserve ships lie face down
    line = sh[..., R.SH_LINE]
    placed = stage[:, None] > R.ST_LINE_SETUP
    ok((~(fleet & placed) | ((line >= 0) & (line <= (2 if formation else 0)))).all(1), "line")
    ok(~(fleet & (line != R.L_RESERVE) & (sh[..., R.SH_DOWN] != 0) & placed).any(1), "face down out of the reserve")
    # victory points: the destroyed ships each player keeps (the duel settles the scores first)
    mine = pile[..., None] & (so[..., None] == seats)
    vp = (mine * cfg.ship[None, :, R.SC_VP, None]).sum(1)
    duel = g[:, R.G_DUEL] != 0
    ok(duel | (vp == pl[:, :, R.PL_SCORE]).all(1), "score is not the destroyed ships' points")
    ok(duel | (mine.sum(1) == pl[:, :, R.PL_KILLS]).all(1), "kill count")
    live = g[:, R.G_DONE] == 0
    ok(~live | core.mask.any(1), "empty mask in a live game")
    ok(~live | ((core.current_player == g[:, R.G_DECIDER]) & (g[:, R.G_DECIDER] >= 0) & (g[:, R.G_DECIDER] < P)),
       "player to decide")
    ok(live | core.terminated | core.truncated, "finished game not reported as finished")


FUZZ_OPTIONS = [
    {"end_turns": 20},                                       # 2 players, advanced (random games can last 300 turns)
    {"players": 3, "game": "basic"},
    {"players": 4, "allies": True, "end_turns": 8},
    {"players": 6, "end_turns": 6},
    {"second_attack": True, "draw_discard": True, "traditional": True, "player_order": True},
    {"players": 3, "single_race": True, "end_turns": 10},
    {"tie_break": "card_draw", "end_turns": 1, "count_survivors": False},
    {"tie_break": "duel", "end_turns": 1, "count_survivors": False},
    {"players": 5, "learning": True, "ship_selection": "draft4", "end_shuffles": 2},
    {"ship_selection": "fleet_core", "end_kills": 3, "pf_damage": "remaining_pfs", "pbf_damage": "fighters_plus_1d6"},
    {"players": 2, "game": "basic", "fighters": False, "end_on_elimination": True},
    {"players": 4, "formation": False, "ship_selection": "draft", "ceasefire_repairs": False, "end_turns": 6},
]


@pytest.mark.parametrize("options", FUZZ_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_random_play_fuzz_invariants(options):
    n = 16                                   # B >= 16: the parallel kernels
    core = VecGame(game, n, options)
    core.reset(seed=11)
    _check_invariants(core)
    streams = new_streams(n, 11)
    actions = np.zeros(n, dtype=np.int64)
    for _ in range(20_000):
        live = ~core.terminated
        if not live.any():
            break
        sample_legal(core.mask, streams, actions)
        core.step(actions, active=live)
        _check_invariants(core)
    assert core.terminated.all(), f"{int((~core.terminated).sum())} games still running"
    winners = core.state.pl[:, :, R.PL_WIN].sum(axis=1)
    assert (winners >= 1).all()
    if options.get("tie_break") == "duel":
        assert core.state.g[:, R.G_DUEL].any(), "no tie went to a duel: the duel was not exercised"
    if options.get("tie_break") in ("card_draw", "duel"):
        # a tie-break leaves one winner (a duel: its survivor)
        assert (winners == 1).all(), winners


def test_the_invariant_checker_catches_corruption():
    core = VecGame(game, 2, {"players": 4})          # ships dealt at once: fleets in play
    core.reset(seed=0)
    _check_invariants(core)
    st = core.state
    ship = int(np.flatnonzero(st.sh[0, :, R.SH_LOC] == R.SL_FLEET)[0])
    deck_card = int(st.deck[0, 0])
    for field, where, value in (("cd", (1, deck_card, R.CD_LOC), R.CL_DISC),   # not on the discard pile
                                ("deck", (0, 0), int(st.deck[0, 1])),            # a card twice in the deck
                                ("sh", (0, ship, R.SH_OWNER), 5),                # no such player
                                ("sh", (0, ship, R.SH_COV + R.K_CIRCLE), 9),     # more markers than circles
                                ("pl", (1, 0, R.PL_SCORE), 9),                   # points without kills
                                ("pl", (0, 2, R.PL_HAND), 0)):                   # hand count
        saved = st.arrays[field][where]
        st.arrays[field][where] = value
        with pytest.raises(AssertionError):
            _check_invariants(core)
        st.arrays[field][where] = saved
    _check_invariants(core)


def test_truncation_option():
    core = VecGame(game, 2, {"max_decisions": 40})
    core.reset(seed=0)
    streams = new_streams(2, 0)
    actions = np.zeros(2, dtype=np.int64)
    for _ in range(40):
        sample_legal(core.mask, streams, actions)
        core.step(actions)
        _check_invariants(core, max_decisions=40)
    assert core.truncated.all() and not core.terminated.any()
