"""Arena: statistics against hand-computed values, tiny round robins on every game, the CLI."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from wargym.arena import builtin_names, fit_elo, rate_multiplayer, run_arena, schedule, wilson_interval
from wargym.arena.cli import main
from wargym.arena.policies import load_game
from wargym.arena.stats import ELO_SCALE, Z95, elo_difference, ranks_from_results
from wargym.registration import GAME_KEYS
from helpers.play import SHORT_GAME

TINY = SHORT_GAME


# -- Wilson score interval ----------------------------------------------------------------------
def test_wilson_interval_matches_hand_computed_values():
    # 5 of 10: centre (0.5 + z²/20) / (1 + z²/10) = 0.5, half-width
    # z / (1 + z²/10) * sqrt(0.025 + z²/400) = 1.959964 / 1.384146 * 0.186020 = 0.263406
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.236594, abs=1e-6) and hi == pytest.approx(0.763406, abs=1e-6)
    # 0 of 10: the interval is [0, z² / (n + z²)] = [0, 3.841459 / 13.841459]
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.277533, abs=1e-6)
    # 10 of 10 mirrors it
    assert wilson_interval(10, 10) == pytest.approx((1 - 0.277533, 1.0), abs=1e-6)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


# -- Elo by maximum likelihood ------------------------------------------------------------------
def test_elo_two_policies_scoring_75_percent_are_191_apart():
    fit = fit_elo(np.array([[0, 75], [25, 0]]))  # policy 0 (the anchor) scores 75 %
    assert fit["prior_used"] == 0  # both won games: the plain MLE exists
    assert fit["ratings"][0] == 0
    assert fit["ratings"][1] == pytest.approx(-400 * math.log10(3), abs=1e-6)  # -190.85
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)
    # 95 % interval of a log-odds estimate: z / sqrt(n p (1 - p)), here n=100, p=0.75
    assert fit["ci95"][1] == pytest.approx(Z95 * ELO_SCALE / math.sqrt(100 * 0.75 * 0.25), rel=1e-6)


def test_elo_counts_draws_as_half_wins():
    wins = np.array([[0, 50], [0, 0]])
    draws = np.array([[0, 50], [50, 0]])  # 50 wins + 50 draws of 100: a 75 % score
    fit = fit_elo(wins, draws, anchor=1)
    assert fit["ratings"][0] == pytest.approx(400 * math.log10(3), abs=1e-6)


@pytest.mark.parametrize("true", [[0.0, 200.0, 450.0], [0.0, 1500.0, 3000.0]])
def test_elo_recovers_the_ratings_of_a_consistent_three_policy_matrix(true):
    # Expected half-win counts of policies rated as ``true`` over 1000 games per pair satisfy
    # the likelihood equations exactly, so the fit must return those ratings (also when one
    # policy is far stronger, where an MM iteration would stop short).
    true = np.array(true)
    p = 1 / (1 + 10 ** ((true[None, :] - true[:, None]) / 400))
    wins = 1000 * p * (1 - np.eye(3))
    fit = fit_elo(wins, np.zeros((3, 3)), anchor=0)
    assert fit["ratings"] == pytest.approx(true, abs=1e-6)


def test_elo_of_a_perfect_separation_uses_the_documented_prior():
    wins = np.array([[0, 0], [10, 0]])  # policy 1 won all 10 games: no finite MLE
    fit = fit_elo(wins)
    assert fit["prior_used"] == pytest.approx(0.1)
    assert fit["ratings"][1] == pytest.approx(400 * math.log10(10.1 / 0.1), abs=1e-6)  # 801.7
    with pytest.raises(ValueError, match="no finite Elo fit"):
        fit_elo(wins, prior=0.0)


# -- multiplayer ratings ------------------------------------------------------------------------
def test_ranks_from_results_share_ties():
    assert ranks_from_results([3, 1, 2]) == [0, 2, 1]
    assert ranks_from_results([1.0, 1.0, -1.0, 0.0]) == [0, 0, 3, 2]


def test_openskill_rating_of_one_three_player_game_matches_plackett_luce_by_hand():
    # Weng & Lin (2011), Plackett-Luce, all at mu=25, sigma=25/3, beta=25/6, and openskill's
    # additive dynamics tau=25/300 first added to the variance: s² = sigma² + tau²;
    # c² = 3 (s² + beta²); a player's mu moves by s²/c times the sum over the places at or
    # above its own of (1[own place] - 1/(players still in the race)):
    # first: 1 - 1/3 = 2/3; second: -1/3 + 1 - 1/2 = 1/6; third: -1/3 - 1/2 + 1 - 1 = -5/6.
    sigma = 25 / 3
    s2 = sigma ** 2 + (25 / 300) ** 2
    c = math.sqrt(3 * (s2 + (25 / 6) ** 2))
    step = s2 / c
    rated = rate_multiplayer([([0, 1, 2], [10, -5, 3])], ["a", "b", "c"])  # places: a, c, b
    assert rated["a"]["mu"] == pytest.approx(25 + step * 2 / 3, abs=1e-9)
    assert rated["c"]["mu"] == pytest.approx(25 + step / 6, abs=1e-9)
    assert rated["b"]["mu"] == pytest.approx(25 - step * 5 / 6, abs=1e-9)
    assert all(r["games"] == 1 and r["sigma"] < sigma for r in rated.values())


def test_openskill_orders_a_small_four_player_result_list():
    # "strong" wins every game, "weak" is last; "random" holds two seats in some games
    games = [([0, 1, 2, 2], [1.0, -1.0, 0.3, -0.3]),
             ([2, 0, 1, 2], [0.0, 1.0, -1.0, 0.0]),
             ([1, 2, 2, 0], [-1.0, 0.3, -0.3, 1.0]),
             ([2, 1, 0, 2], [0.3, -1.0, 1.0, -0.3])]
    rated = rate_multiplayer(games, ["strong", "weak", "random"])
    assert rated["strong"]["mu"] > rated["random"]["mu"] > rated["weak"]["mu"]
    assert rated["strong"]["ordinal"] == pytest.approx(rated["strong"]["mu"] - 3 * rated["strong"]["sigma"])
    assert [rated[n]["games"] for n in ("strong", "weak", "random")] == [4, 4, 4]


# -- schedule and tiny round robins -------------------------------------------------------------
def test_schedule_alternates_and_rotates_seats():
    lineups, rounds = schedule(3, 2, 4)
    assert len(lineups) == 3 * 4 and list(rounds[:3]) == [0, 0, 0]
    assert [tuple(x) for x in lineups[:6]] == [(0, 1), (0, 2), (1, 2), (1, 0), (2, 0), (2, 1)]
    lineups, _ = schedule(2, 3, 3)  # lineups (0,0,1) and (0,1,1), each rotated through the 3 seats
    assert len(lineups) == 6
    assert sorted(np.argmax(lineups[::2] == 1, axis=1)) == [0, 1, 2]  # the lone policy 1 visits every seat


def _check_two_player(t, summary, games):
    assert t.results.shape == (games, 2)
    assert np.all(t.results[:, 0] == -t.results[:, 1]) and set(np.unique(t.results)) <= {-1.0, 0.0, 1.0}
    (pair,) = summary["pairings"]
    assert pair["wins"] + pair["draws"] + pair["losses"] == games
    seats = summary["seats"]
    assert [s["seat"] for s in seats] == [0, 1] and [s["games"] for s in seats] == [games // 2] * 2
    elo = {r["policy"]: r["elo"] for r in summary["ratings"]}
    assert elo["random"] == 0 and set(elo) == set(t.policies)


@pytest.mark.parametrize("game", GAME_KEYS)
def test_tiny_round_robin_random_against_scripted(game, tmp_path):
    t, summary = run_arena(game, ["random", "scripted"], TINY[game], games=4, seed=3, out_dir=tmp_path)
    _check_two_player(t, summary, 4)
    for name in ("ratings.csv", "pairings.csv", "seats.csv", "games.csv", "arena.md"):
        assert (tmp_path / name).stat().st_size > 0
    assert "| random (1) | scripted |" in (tmp_path / "arena.md").read_text()


def test_planetoids_scripted_beats_random_in_the_arena():
    _, summary = run_arena("planetoids", None, TINY["planetoids"], games=4)
    elo = {r["policy"]: r["elo"] for r in summary["ratings"]}
    assert elo["scripted"] > 0 and summary["pairings"][0]["losses"] == 4  # random lost all 4


@pytest.mark.parametrize("game", ["planetoids", "battle_force"])
def test_the_search_bot_plays_in_the_arena(game, tmp_path):
    # envs/core/search.py as an entrant ("search:N"): its games against the built-in bot run through
    # the per-decision loop, its positions searched in one batch; reproducible under the arena's seed
    # (Battle Force: over samples of the hidden cards)
    t, summary = run_arena(game, ["random", "search:4"], TINY[game], games=2, seed=1, out_dir=tmp_path)
    _check_two_player(t, summary, 2)
    assert t.sources["search:4"].startswith("Monte Carlo policy improvement")
    again, _ = run_arena(game, ["random", "search:4"], TINY[game], games=2, seed=1)
    assert np.array_equal(t.results, again.results)


def test_battle_force_three_players_gets_openskill_ratings():
    t, summary = run_arena("battle_force", None, {**TINY["battle_force"], "players": 3}, games=3)
    assert t.players == 3 and len(t.lineups) == 2 * 3  # lineups (r, r, s) and (r, s, s), 3 games each
    ratings = {r["policy"]: r for r in summary["ratings"]}
    assert set(ratings) == set(builtin_names(load_game("battle_force"))) and len(ratings) == 2  # aliases once
    assert all(r["games"] == 6 and r["sigma"] > 0 for r in ratings.values())
    assert len(summary["seats"]) == 3  # random's seat 0, 1, 2 against the scripted bot


def test_checkpoint_plays_through_the_sb3_adapter(tmp_path):
    from sb3_contrib import MaskablePPO

    from wargym.wrappers.sb3 import WargymVecEnv
    env = WargymVecEnv("planetoids", n_envs=2, options=TINY["planetoids"])
    MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=8, policy_kwargs={"net_arch": [8]}, seed=0).save(
        tmp_path / "tiny.zip")
    t, summary = run_arena("planetoids", ["random", f"ppo={tmp_path / 'tiny.zip'}", "scripted"],
                           TINY["planetoids"], games=2)
    pairs = {(p["policy"], p["opponent"]): p for p in summary["pairings"]}
    assert set(pairs) == {("random", "ppo"), ("random", "scripted"), ("ppo", "scripted")}
    assert all(p["games"] == 2 for p in pairs.values())
    assert len(t.lineups) == 3 * 2 and np.all(t.results[:, 0] == -t.results[:, 1])
    assert t.sources["ppo"].endswith("tiny.zip") and t.sources["random"] == "built-in"
    again, _ = run_arena("planetoids", ["random", f"ppo={tmp_path / 'tiny.zip'}", "scripted"], TINY["planetoids"],
                         games=2)
    assert np.array_equal(again.results, t.results)  # seeded: the model's sampling too
    greedy, _ = run_arena("planetoids", ["random", f"ppo={tmp_path / 'tiny.zip'}"], TINY["planetoids"], games=2,
                          model_play="greedy")   # --model-play greedy: as wargym serve plays a model
    assert greedy.sources["ppo"].endswith("tiny.zip, its most likely actions")
    with pytest.raises(ValueError, match="model_play 'best'"):
        run_arena("planetoids", ["random", "scripted"], TINY["planetoids"], games=1, model_play="best")
    with pytest.raises(ValueError, match="expects observations"):
        run_arena("talon", ["random", f"ppo={tmp_path / 'tiny.zip'}"], TINY["talon"], games=1)


def test_checkpoint_plays_battle_force_with_three_players(tmp_path):
    """Issue 13: trained checkpoints take part in 3-6 player arenas (openskill ratings)."""
    from sb3_contrib import MaskablePPO

    from wargym.wrappers.sb3 import WargymVecEnv
    env = WargymVecEnv("battle_force", n_envs=2, options={"players": 3})
    MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=8, policy_kwargs={"net_arch": [8]}, seed=0).save(
        tmp_path / "tiny3.zip")
    t, summary = run_arena("battle_force", ["random", f"ppo={tmp_path / 'tiny3.zip'}", "scripted"],
                           {"players": 3, **TINY["battle_force"]}, games=3)
    # the 7 multisets of 3 seats from 3 policies with at least two different ones, 3 games each
    assert t.lineups.shape[1] == 3 and len(t.lineups) == 7 * 3
    ranks = t.results
    # reward="rank": +1 for the first, -1 for the last, the middle 0 (no ties in a 3-player game here or shared)
    assert np.allclose(ranks.sum(axis=1), 0) and np.all(ranks.max(axis=1) == 1)
    assert {r["policy"] for r in summary["ratings"]} == {"random", "ppo", "scripted"}
    assert all("ordinal" in r for r in summary["ratings"])  # openskill, not Elo, at 3 players
    again, _ = run_arena("battle_force", ["random", f"ppo={tmp_path / 'tiny3.zip'}", "scripted"],
                         {"players": 3, **TINY["battle_force"]}, games=3)
    assert np.array_equal(again.results, t.results)  # seeded: the model's sampling too


# -- command line -------------------------------------------------------------------------------
def test_cli_runs_as_a_module(tmp_path):
    done = subprocess.run([sys.executable, "-m", "wargym.arena", "planetoids", "--options", '{"turns": 3}',
                           "--games", "2", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "| policy | Elo |" in done.stdout and (tmp_path / "ratings.csv").exists()


@pytest.mark.parametrize("argv, message", [
    (["chess"], "unknown game 'chess'"),
    (["planetoids", "--policy", "random", "--policy", "alphazero"], "unknown policy 'alphazero'"),
    (["planetoids", "--policy", "random", "--policy", "ppo=/no/such/model.zip"], "checkpoint of policy 'ppo' not found"),
    (["planetoids", "--policy", "random"], "at least two policies"),
    (["planetoids", "--options", "{turns: 3}"], "--options is not valid JSON"),
    (["planetoids", "--options", '{"turns": 999}'], "option turns must be"),
    (["planetoids", "--options", '{"reward": "score"}'], "the arena sets reward='win'"),
    (["planetoids", "--players", "4"], "--players is a Battle Force option"),
    (["planetoids", "--games", "0"], "at least 1"),
    (["planetoids", "--policy", "random", "--policy", "search:0"], "search:N (N simulations, 1..4096)"),
    (["planetoids", "--policy", "random", "--policy", "search:0ms"], "search:Nms (N milliseconds, 1..60000)"),
])
def test_cli_bad_arguments_give_one_clear_line(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wargym-arena: error: ") and message in err
