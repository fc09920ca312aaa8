"""The search bots (envs/core/search.py): flat Monte Carlo search with sequential halving and open-loop
Monte Carlo tree search over the compiled core, for every game of the registry (Battle Force's hidden
cards sampled, never read); what they must never do (read hidden cards, change the game they search)
and what they must do (find a win in one)."""
from __future__ import annotations

import types

import numpy as np
import pytest

from wargym.envs.core.search import (FlatSearch, TreeSearch, has_hidden_information, is_search_spec, searchable,
                                     searcher_for)
from wargym.envs.core.vec import VecGame
from wargym.registration import GAME_KEYS, load_game

def puct_tree(*args, **kwargs):
    """The tree search with the tree's own rule at the root (TreeSearch's root="puct")."""
    return TreeSearch(*args, root="puct", **kwargs)


SEARCHES = [FlatSearch, TreeSearch, puct_tree]


def positions(game, n=6, steps=11, seed=3):
    """``n`` games after ``steps`` random legal decisions each (fewer where a game ended)."""
    core = VecGame(game, n)
    core.reset(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        live = ~(core.terminated | core.truncated)
        if not live.any():
            break
        noise = rng.random(core.mask.shape) * core.mask
        core.step(noise.argmax(axis=1), active=live)
    return core


def test_every_game_is_searched_and_hidden_cards_only_through_samples():
    assert all(searchable(load_game(key)) for key in GAME_KEYS)
    # a game that hides cards and cannot sample them would be searched from the hidden cards: refused
    hiding = types.SimpleNamespace(NAME="secret", HIDDEN_INFORMATION=True)
    assert has_hidden_information(hiding) and not searchable(hiding)
    with pytest.raises(ValueError, match="hidden information"):
        FlatSearch(hiding, {}, 8)


# SFBF Preparazione: the hands are secret.  Player 0 holds the same cards in both; player 1's card differs
HANDS = [{"players": [{"hand": ["photon:6", "phaser1:4"], "ships": ["Federation", "Constellation"]},
                      {"hand": [theirs], "ships": ["Thunderchild", "Ravager"]}], "active": 0, "phase": "attack"}
         for theirs in ("ecm", "phaser1:3")]


@pytest.mark.parametrize("Search", SEARCHES)
def test_search_gives_the_same_answer_whatever_the_opponent_holds(Search):
    # Battle Force (SFBF Preparazione): two positions that differ only in player 1's hidden hand (and
    # so in the deck) are one information set of player 0's; its search reads neither hand, only samples
    game = load_game("battle_force")
    core = VecGame(game, 2, {"game": "basic"})
    for b, scenario in enumerate(HANDS):
        core.load_scenario(scenario, index=[b], seed=0)
    assert not np.array_equal(core.state.cd[0], core.state.cd[1])             # the hidden cards differ
    obs = [core.observe(b, 0) for b in range(2)]
    assert np.array_equal(obs[0][0], obs[1][0]) and np.array_equal(obs[0][1], obs[1][1])  # what player 0 sees
    for seed in (5, 6):
        chosen = [Search(game, {"game": "basic"}, 32, seed=seed).choose(core, [b])[0] for b in range(2)]
        assert chosen[0] == chosen[1] and core.mask[0, chosen[0]]


@pytest.mark.parametrize("Search", SEARCHES)
@pytest.mark.parametrize("key", GAME_KEYS)
def test_search_plays_legal_moves_reproducibly_and_leaves_the_game_alone(key, Search):
    game = load_game(key)
    core = positions(game)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    before = core.clone_state()
    obs, mask = core.obs.copy(), core.mask.copy()
    chosen = Search(game, {}, 16, seed=5).choose(core, rows)
    assert all(mask[r, a] for r, a in zip(rows, chosen))
    again = Search(game, {}, 16, seed=5).choose(core, rows)
    assert chosen.tolist() == again.tolist()
    for name, array in before.arrays.items():
        assert np.array_equal(array, core.state.arrays[name]), name
    assert np.array_equal(obs, core.obs) and np.array_equal(mask, core.mask)
    # one position searched alone gets the answer it gets in the batch (its own simulations differ,
    # so only legality is shared): the batch is no other search
    alone = Search(game, {}, 16, seed=5).choose(core, rows[:1])
    assert mask[rows[0], alone[0]]


@pytest.mark.parametrize("bad", [0, -1, 70000, 2.5, "8"])
def test_search_budget_is_checked(bad):
    with pytest.raises(ValueError, match="simulations"):
        FlatSearch(load_game("planetoids"), {}, bad)


def test_search_unknown_rollout_policy_is_refused():
    with pytest.raises(ValueError, match="rollout policy"):
        FlatSearch(load_game("planetoids"), {}, 8, rollout="nobody")


@pytest.mark.parametrize("Search", SEARCHES)
def test_search_lands_to_escape_a_win_in_one(Search):
    # Talon 16.1: with the scenario's escape condition, landing the Patton on the planet wins at once
    # (tests/test_talon_victory.py); every other move of the Patton leaves the Justice to fight
    from helpers.talon import A, ship
    from wargym.envs.talon import rules as R
    game = load_game("talon")
    options = {"fighters": True, "docking": True, "victory": True, "terrain": True}
    core = VecGame(game, 1, options)
    core.load_scenario({"players": [{"ships": [ship("terran_ca", "Patton", (9, 3), "E", speed=4)]},
                                    {"ships": [ship("talon_ca", "Justice", (8, 3), "E", speed=1)]}],
                        "impulse": "A", "initiative": 0, "terrain": [{"kind": "planet", "hex": [9, 4]}],
                        "landing": True,
                        "victory": {"conditions": [{"player": 0, "kind": "escape", "ships": ["Patton"]}]}}, seed=0)
    if core.state.g[0, R.G_STAGE] == R.ST_AP:
        core.step_one(0, A(core, "DONE"))
    land = A(core, "DOCK", 0, R.M_STRAIGHT)
    assert core.mask[0].sum() > 1 and core.mask[0, land]
    assert Search(game, options, 64, seed=1).choose(core)[0] == land


@pytest.mark.parametrize("key", ["talon", "planetoids"])
def test_search_cut_off_rollouts_score_the_lead_and_stay_legal(key):
    # depth=N: rollouts end after N decisions by the game's own max_decisions truncation, and are scored
    # by the lead in game.scores (ship points, base points)
    game = load_game(key)
    core = positions(game)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    search = FlatSearch(game, {}, 8, seed=2, depth=6)
    chosen = search.choose(core, rows)
    assert all(core.mask[r, a] for r, a in zip(rows, chosen))
    sim = search._cores[min(search._cores)]
    assert sim.options["max_decisions"] > 10 ** 8          # the cut comes from each copy's own count
    assert -1 < search._lead(core.state, int(rows[0]), 0) < 1


@pytest.mark.parametrize("bad", [{"depth": -1}, {"depth": 2.0}, {"confidence": -1}, {"confidence": True}])
def test_search_depth_and_confidence_are_checked(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        FlatSearch(load_game("planetoids"), {}, 8, **bad)


def test_a_games_search_depth_is_the_searches_default_and_depth_0_plays_to_the_end(monkeypatch):
    # SEARCH_DEPTH (an optional member of the game contract): where a search is not given a depth
    game = load_game("talon")
    assert getattr(game, "SEARCH_DEPTH", None) is None and FlatSearch(game, {}, 8).depth is None
    monkeypatch.setattr(game, "SEARCH_DEPTH", 7, raising=False)
    assert FlatSearch(game, {}, 8).depth == 7 and TreeSearch(game, {}, 8).depth == 7
    assert FlatSearch(game, {}, 8, depth=0).depth is None
    assert FlatSearch(game, {}, 8, depth=3).depth == 3


def budgets_on_a_ticking_clock(monkeypatch, search, method: str) -> list:
    """``search`` chooses the moves of a few Planetoids positions on a clock that moves 10 ms a
    reading; returns the budget (last argument) of each call of its ``method`` (a pass, a wave)."""
    import wargym.envs.core.search as S
    core = positions(search.game)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    clock = iter(np.arange(0.0, 100.0, 0.010))
    monkeypatch.setattr(S, "time", types.SimpleNamespace(perf_counter=lambda: float(next(clock))))
    budgets = []
    real = getattr(search, method)
    monkeypatch.setattr(search, method, lambda *a: (budgets.append(a[-1]), real(*a)))
    chosen = search.choose(core, rows)
    assert all(core.mask[r, a] for r, a in zip(rows, chosen))
    return budgets


def test_search_budget_in_milliseconds_runs_doubling_passes_while_the_next_fits(monkeypatch):
    # milliseconds=50 on a clock that moves 10 ms a reading: the first pass (FIRST_PASS simulations)
    # "takes" 10 ms and ends at 20 ms, so a second of twice as many fits (expected end 40 ms); after
    # it (ending at 40 ms) a third would end at 60 ms, past the budget: two passes, 4 then 8
    import wargym.envs.core.search as S
    game = load_game("planetoids")
    passes = budgets_on_a_ticking_clock(monkeypatch, FlatSearch(game, {}, S.FIRST_PASS, seed=1, milliseconds=50),
                                        "_halving")
    assert passes == [S.FIRST_PASS, 2 * S.FIRST_PASS]
    for bad in (0, -5, 10 ** 9, True, "50"):
        with pytest.raises(ValueError, match="milliseconds"):
            FlatSearch(game, {}, 4, milliseconds=bad)


@pytest.mark.parametrize("Search", SEARCHES)
def test_search_gives_up_once_its_answer_is_no_longer_wanted(Search):
    # the server's time limit (serve/session.py): past give_up_at the search stops with TimeoutError
    # (the fallback move is played), rather than keeping the cores from the thoughts still awaited
    import time
    game = load_game("planetoids")
    core = positions(game)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    search = Search(game, {}, 8, seed=1)
    with pytest.raises(TimeoutError):
        search.search(core.clone_state(rows), core.mask[rows], core.current_player[rows], give_up_at=time.monotonic() - 1)
    later = search.search(core.clone_state(rows), core.mask[rows], core.current_player[rows], seed=1,
                          give_up_at=time.monotonic() + 3600)
    assert later.tolist() == Search(game, {}, 8, seed=1).choose(core, rows).tolist()


@pytest.mark.parametrize("Search", SEARCHES)
def test_search_rollouts_that_never_end_are_cut_at_the_rollout_limit(monkeypatch, Search):
    # a game the rollout policy never ends (two Battle Force heuristic bots passing forever, each holding
    # no card it can play, as a sampled hand may leave them) must not hang the search: a rollout stops
    # after ROLLOUT_LIMIT decisions and is worth its lead (here the limit is 5, so every rollout is cut)
    import wargym.envs.core.search as S
    monkeypatch.setattr(S, "ROLLOUT_LIMIT", 5)
    game = load_game("talon")
    core = positions(game)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    search = Search(game, {}, 8, seed=2)
    chosen = search.choose(core, rows)
    assert all(core.mask[r, a] for r, a in zip(rows, chosen))
    sim = search._cores[min(search._cores)]
    assert sim.state.truncated.any() and (sim.state.g[:, S.decisions_column(game)] <= S.MAX_DECISIONS).all()


def test_tree_search_puct_root_budget_in_milliseconds_runs_waves_while_the_next_fits(monkeypatch):
    # milliseconds=50 on a clock that moves 10 ms a reading (the start at 0): a wave reads it when it begins
    # and when it ends, "taking" 10 ms, and a next one runs while now + that would not pass 50 ms: the
    # first ends at 20 ms (next expected at 30), the second at 40 (50: still in time), the third at 60
    search = TreeSearch(load_game("planetoids"), {}, 4, seed=1, milliseconds=50, wave=4, root="puct")
    assert budgets_on_a_ticking_clock(monkeypatch, search, "_wave") == [4, 4, 4]


def test_tree_search_puct_root_visits_add_up_to_its_budget_and_forced_moves_cost_nothing(monkeypatch):
    # every simulation passes through the root once: the root's visits are the budget (rounded up to
    # whole waves of every position); a position with one legal move is answered without a simulation
    game = load_game("union_wars")
    core = positions(game, n=8)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    search = TreeSearch(game, {}, 12, seed=3, wave=4, root="puct")
    trees = []
    real = search._wave
    monkeypatch.setattr(search, "_wave", lambda *a: (trees.append(a[3]), real(*a)))
    chosen = search.choose(core, rows)
    roots = trees[0]
    for r, tree in zip(rows, roots):
        legal = np.flatnonzero(core.mask[r])
        if len(legal) == 1:
            assert tree.visits == 0 and chosen[list(rows).index(r)] == legal[0]
        else:
            assert tree.visits == 12 and tree.n.sum() == 12 and tree.n[~core.mask[r]].sum() == 0
    assert len(trees) == 3


@pytest.mark.parametrize("bad", [{"exploration": -1}, {"exploration": True}, {"prior": 1.5}, {"wave": 0},
                                 {"wave": 2.0}, {"root": "best"}, {"expand_after": 0}])
def test_tree_search_parameters_are_checked(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        TreeSearch(load_game("planetoids"), {}, 8, **bad)


def test_search_specs_name_the_flat_and_the_tree_search():
    game = load_game("planetoids")
    assert is_search_spec("mcts") and is_search_spec("mcts:32") and is_search_spec("search:5ms")
    assert not is_search_spec("scripted") and not is_search_spec("mctsx")
    assert type(searcher_for("mcts:32", game)) is TreeSearch and searcher_for("mcts:32", game).simulations == 32
    assert type(searcher_for("search", game)) is FlatSearch
    assert searcher_for("mcts:20ms", game).milliseconds == 20
    with pytest.raises(ValueError, match="budget"):
        searcher_for("mcts:0", game)


@pytest.mark.parametrize("leaf", ["rollout", "value"])
@pytest.mark.parametrize("key", GAME_KEYS)
def test_tree_search_with_a_network_prior_plays_legal_moves_reproducibly(key, leaf):
    # PUCT with a MaskablePPO model's policy as the prior (and its value head at the leaves with
    # leaf="value"), evaluated in batches: legal moves, the same under a seed, the game left alone
    from sb3_contrib import MaskablePPO
    from wargym.wrappers.sb3 import WargymVecEnv
    game = load_game(key)
    model = MaskablePPO("MlpPolicy", WargymVecEnv(key, n_envs=1), n_steps=8, policy_kwargs={"net_arch": [8]},
                        seed=0, device="cpu")
    core = positions(game, n=3)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    before = core.clone_state()
    for root in ("halving", "puct"):
        chosen = TreeSearch(game, {}, 8, seed=4, model=model, leaf=leaf, root=root).choose(core, rows)
        assert all(core.mask[r, a] for r, a in zip(rows, chosen))
        again = TreeSearch(game, {}, 8, seed=4, model=model, leaf=leaf, root=root).choose(core, rows)
        assert chosen.tolist() == again.tolist()
    for name, array in before.arrays.items():
        assert np.array_equal(array, core.state.arrays[name]), name


def test_tree_search_model_and_leaf_are_checked():
    game = load_game("planetoids")
    with pytest.raises(ValueError, match="leaf"):
        TreeSearch(game, {}, 8, leaf="guess")
    with pytest.raises(ValueError, match="needs a model"):
        TreeSearch(game, {}, 8, leaf="value")
    with pytest.raises(ValueError, match="MaskablePPO"):
        TreeSearch(game, {}, 8, model=object())


def test_tree_search_halving_root_grows_a_tree_below_each_root_move():
    # root="halving": FlatSearch's paired simulations at the root, each root move's simulations
    # descending a tree of its own (one per root and move searched); the first expand_after simulations
    # through a node play the rollout policy from it, the later ones choose there by the tree's rule
    game = load_game("union_wars")
    core = positions(game, n=4)
    rows = [r for r in range(4) if core.mask[r].sum() > 1 and not (core.terminated[r] | core.truncated[r])][:1]
    search = TreeSearch(game, {}, 64, seed=2, expand_after=2)
    chosen = search.choose(core, rows)
    assert core.mask[rows[0], chosen[0]]
    moves = {a for r, a in search._subtrees}
    assert moves <= set(np.flatnonzero(core.mask[rows[0]]).tolist()) and len(moves) > 1
    trees = search._subtrees.values()
    assert all(tree.visits > 0 and tree.n.sum() <= tree.visits for tree in trees)
    assert all(tree.n.sum() == 0 for tree in trees if tree.visits <= 2)   # not expanded yet
    assert any(tree.n.sum() > 0 for tree in trees)


@pytest.mark.parametrize("key", GAME_KEYS)
def test_tree_search_visit_targets_are_the_root_visit_shares_of_the_move_it_plays(key):
    # expert iteration's labels (TreeSearch.visit_targets): per position a distribution over the legal
    # moves, the share of the PUCT root's simulations each received; the move played is the most visited
    # (or, played without a search -- forced or decisive -- the whole target); as choose, under a seed
    game = load_game(key)
    core = positions(game, n=6)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    moves, targets = TreeSearch(game, {}, 12, seed=5, root="puct").visit_targets(core, rows)
    assert targets.shape == (len(rows), core.num_actions) and targets.dtype == np.float32
    assert np.allclose(targets.sum(axis=1), 1.0) and (targets[~core.mask[rows].astype(bool)] == 0).all()
    for i, r in enumerate(rows):
        assert core.mask[r, moves[i]] and targets[i, moves[i]] == targets[i].max()
        if core.mask[r].sum() == 1:
            assert targets[i, moves[i]] == 1.0
        elif targets[i, moves[i]] < 1.0:       # searched: shares of 12 simulations
            assert np.allclose(targets[i] * 12, np.round(targets[i] * 12))
    assert moves.tolist() == TreeSearch(game, {}, 12, seed=5, root="puct").choose(core, rows).tolist()
    with pytest.raises(ValueError, match="root='puct'"):
        TreeSearch(game, {}, 12).visit_targets(core, rows)


def test_search_spec_takes_tree_parameters_for_the_tree_search_only():
    game = load_game("planetoids")
    assert searcher_for("mcts:8", game, root="puct").root == "puct"
    with pytest.raises(ValueError, match="tree search"):
        searcher_for("search:8", game, root="puct")


@pytest.mark.parametrize("Search", SEARCHES)
def test_search_samples_the_dice_after_a_bank_question_and_never_reads_them(Search):
    # UnionWars ESPLORAZIONE: at a question the step's snapshot holds the dice stream the step replays
    # with; two positions that differ only in the dice after the asked roll (its dice are scripted) are
    # one position to the player asked.  Their simulations play the same samples (the same values and
    # the same dice streams at their ends, one stream a simulation), and the search gives the same answer
    from helpers.union_wars import asked_about_a_hit
    game = load_game("union_wars")
    env = asked_about_a_hit()
    core = VecGame(game, 2, env.core.options)
    core.state.assign(np.arange(2), env.clone_state().select(np.zeros(2, dtype=np.int64)))
    core.state.snap_rng[1] ^= np.uint64(0xDEADBEEF)   # the dice after the asked roll differ
    core.state.rng[1] = core.state.snap_rng[1]
    core.has_games = True
    core.refresh()
    assert np.array_equal(core.observe(0, 1)[0], core.observe(1, 1)[0])
    values, streams = [], []
    for b in range(2):
        search = FlatSearch(game, env.core.options, 8, seed=4)
        roots = core.clone_state([b])
        dice = search.rng.integers(0, 1 << 63, (8, 2), dtype=np.uint64)
        first = np.flatnonzero(core.mask[b])
        values.append(search._simulate(roots, np.zeros(16, dtype=np.int64), np.repeat(first, 8),
                                       np.tile(dice, (2, 1)), np.array([1])))
        streams.append(search._core(16).state.rng[:16].copy())
    assert np.array_equal(values[0], values[1]) and np.array_equal(streams[0], streams[1])
    assert len(set(streams[0][:8].tolist())) == 8
    chosen = [Search(game, env.core.options, 8, seed=5).choose(core, [b])[0] for b in range(2)]
    assert chosen[0] == chosen[1] and core.mask[0, chosen[0]]


def test_search_quality_measures_the_true_gain_of_the_moves_a_search_leaves_the_bot_for():
    # benchmarks/search_quality.py: positions from the scripted bot's self-play; where the search leaves
    # the bot's move, the move's gain over it by paired simulations (the same dice for both moves)
    from wargym.benchmarks import search_quality
    game = load_game("talon")
    positions = search_quality.sample_positions(game, {}, 3, every=5, seed=1)
    assert len(positions) == 3 and all(mask.sum() > 1 for _root, mask, _player in positions)
    gains = search_quality.TrueGains(game, {}, 4, seed=2)
    row = search_quality.quality(game, {}, "search:4", positions, gains, seed=3)
    assert row["positions"] == 3 and 0 <= row["losing"] <= row["left_the_bot"] <= 3
    assert len(gains.known) == row["left_the_bot"]
    for (i, move, own), (mean, error) in list(gains.known.items()):
        assert -2 <= mean <= 2 and gains(i, positions[i], move, own) == (mean, error)   # measured once
    # paired: a move against itself gains exactly nothing
    own = int(np.flatnonzero(positions[0][1])[0])
    assert gains(0, positions[0], own, own) == (0.0, 0.0)


def test_flat_search_opponent_is_the_policy_the_other_seats_play_in_its_rollouts(monkeypatch):
    # the search's model of its opponents: its own seat plays the rollout policy, every other the opponent's
    game = load_game("talon")
    with pytest.raises(ValueError, match="unknown opponent policy"):
        FlatSearch(game, {}, 4, opponent="nobody")
    search = FlatSearch(game, {}, 4, opponent="random")
    seen = []
    real = game.bot.play_games
    monkeypatch.setattr(game.bot, "play_games", lambda s, c, policies, o, r, *split: (seen.append(policies.copy()),
                                                                                     real(s, c, policies, o, r, *split))[1])
    core = positions(game, n=2)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    chosen = search.choose(core, rows)
    assert all(core.mask[r, a] for r, a in zip(rows, chosen)) and seen
    random_, scripted = game.bot.POLICIES["random"], game.bot.POLICIES["scripted"]
    for policies in seen:
        assert set(np.unique(policies)) <= {random_, scripted}
        assert ((policies == scripted).sum(axis=1) == 1).all()     # exactly one seat: the searcher's


class _LastLegalModel:
    """A stand-in for a MaskablePPO model: the later a legal move, the likelier (1, 2, 3, ... shares),
    so that its most likely move is the last legal one and the next likeliest the one before."""

    def __init__(self):
        self.calls = []
        self.policy = types.SimpleNamespace(obs_to_tensor=lambda obs: (obs,), get_distribution=self._distribution)

    def _distribution(self, obs, action_masks):
        import torch
        self.calls.append(obs.shape)
        weights = np.cumsum(action_masks, axis=1) * action_masks
        probs = torch.as_tensor(weights / weights.sum(axis=1, keepdims=True))
        return types.SimpleNamespace(distribution=types.SimpleNamespace(probs=probs))


def test_tree_search_anchor_model_is_the_move_the_halving_root_keeps_unless_beaten(monkeypatch):
    # issue 31: the halving root measures every move against the anchor, the model's most likely move,
    # and keeps it unless another beats it (_decide, here told never to leave it)
    game = load_game("planetoids")
    with pytest.raises(ValueError, match="anchor_model must be a MaskablePPO model"):
        TreeSearch(game, {}, 4, anchor_model=object())
    with pytest.raises(ValueError, match="anchor_model needs root='halving'"):
        TreeSearch(game, {}, 4, anchor_model=_LastLegalModel(), root="puct")
    model = _LastLegalModel()
    search = TreeSearch(game, {}, 4, anchor_model=model)
    monkeypatch.setattr(search, "_decide", lambda own, others, stats: int(own))
    core = positions(game)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    chosen = search.choose(core, rows)
    assert [int(a) for a in chosen] == [int(np.flatnonzero(core.mask[r])[-1]) for r in rows]
    # the model read each root's observation of its player to move, and played its most likely move
    assert model.calls and all(shape[1:] == (core.obs[0].size,) for shape in model.calls)
    # every root the halving root searched is counted, none of them left its anchor
    assert search.decided >= 1 and search.departed == 0


def test_anchored_root_compares_only_the_agents_most_likely_moves():
    # issue 31: with ``candidates`` the halving root spends its budget on the anchor's k most likely
    # moves (its own included), not a rollout or two on each of forty
    game = load_game("planetoids")
    with pytest.raises(ValueError, match="candidates must be None or an int"):
        TreeSearch(game, {}, 4, anchor_model=_LastLegalModel(), candidates=0)
    with pytest.raises(ValueError, match="candidates needs an anchor_model"):
        TreeSearch(game, {}, 4, candidates=2)
    core = positions(game)
    rows = np.flatnonzero(~(core.terminated | core.truncated))
    rows = rows[core.mask[rows].sum(axis=1) > 2]
    assert len(rows)
    for candidates, compared in ((2, lambda legal: legal[-2:-1]), (3, lambda legal: legal[-2:-4:-1]),
                                 (None, lambda legal: legal[:-1])):
        search = TreeSearch(game, {}, 4, anchor_model=_LastLegalModel(), candidates=candidates)
        seen = []
        search._decide = lambda own, others, stats: (seen.append((int(own), list(others))), int(own))[1]
        search.choose(core, rows)
        expected = [(int(legal[-1]), sorted(int(a) for a in compared(legal)))
                    for legal in (np.flatnonzero(core.mask[r]) for r in rows)]
        assert [(own, sorted(others)) for own, others in seen] == expected


def test_anchored_tree_search_spec_is_parsed_and_refused_where_it_cannot_play():
    # issue 31: "mcts:N@BASELINE", the tree search anchored on a shipped agent
    from wargym.arena.policies import parse_policy
    from wargym.envs.core.search import check_anchor, is_tree_spec, parse_budget, spec_anchor
    game = load_game("union_wars")
    assert is_search_spec("mcts:16@ppo-pointer") and is_tree_spec("mcts@ppo-pointer")
    assert parse_budget("mcts:16@ppo-pointer") == (16, None) and spec_anchor("mcts:16@ppo-pointer") == "ppo-pointer"
    assert spec_anchor("mcts:16") is None
    with pytest.raises(ValueError, match="only the tree search"):
        parse_budget("search:16@ppo-pointer")
    with pytest.raises(ValueError, match="name the shipped agent"):
        parse_budget("mcts:16@ ")
    with pytest.raises(ValueError, match="no shipped baseline 'nope'"):
        check_anchor("mcts:16@nope", game)
    with pytest.raises(ValueError, match="no shipped baseline 'nope'"):
        parse_policy("mcts:16@nope", game)
    policy = parse_policy("mcts:16@ppo-pointer", game)
    assert policy.search == 16 and "anchored on the shipped agent ppo-pointer" in policy.source


def test_anchored_tree_search_plays_the_shipped_agent_with_its_options():
    # issue 31: the spec loads the shipped agent as the halving root's anchor, its departures at
    # ANCHOR_CONFIDENCE; refused where the game's options give the agent another observation
    from wargym import baselines
    from wargym.envs.core.search import ANCHOR_CANDIDATES, ANCHOR_CONFIDENCE
    game = load_game("union_wars")
    options = dict(baselines.describe("union_wars", "ppo-pointer")["options"])
    with pytest.raises(ValueError, match="plays the game with the options"):
        searcher_for("mcts:4@ppo-pointer", game, {**options, "exploration_bank": "ask"})
    search = searcher_for("mcts:4@ppo-pointer", game, options, seed=1)
    assert isinstance(search, TreeSearch) and search.anchor_model is not None
    assert search.confidence == ANCHOR_CONFIDENCE and search.candidates == ANCHOR_CANDIDATES
    core = VecGame(game, 2, options)
    core.reset(5)
    chosen = search.choose(core)
    assert all(core.mask[r, a] for r, a in enumerate(chosen))
    # what the command line (or a caller) names wins over the spec's default
    assert searcher_for("mcts:4@ppo-pointer", game, options, confidence=1.5).confidence == 1.5
