"""Training: the CLI for every game, its errors, the per-game networks, saved models as
opponents, and the shared learner/opponent loops with more than two seats.

Budgets are tiny (this checks that things work, not how well they learn) and nothing
is timed: speed is measured by benchmarks/train_bench.py.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from gymnasium import spaces

from wargym.registration import GAME_KEYS
from wargym.training.train import DEFAULT_REWARD
from wargym.training.networks import WargymExtractor, observation_parts
from wargym.wrappers.sb3 import WargymVecEnv, load_game

# Short games, so that the evaluations at the end of a tiny run finish quickly.
SHORT = {"planetoids": {"turns": 2}, "talon": {"max_decisions": 300}, "battle_force": {"max_decisions": 300},
         "union_wars": {"max_decisions": 300}}
assert set(SHORT) == set(GAME_KEYS)    # every registered game has a short game here
TINY = ["--timesteps", "64", "--n-envs", "4", "--n-steps", "16", "--batch-size", "32", "--epochs", "1",
        "--warm-start-decisions", "64", "--warm-start-epochs", "1", "--eval-games", "2", "--curve-points", "1",
        "--curve-games", "2", "--no-progress"]


def run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "wargym.training.train", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=900)


@pytest.mark.parametrize("game", GAME_KEYS)
def test_cli_trains_every_game_and_exits_0(game, tmp_path):
    done = run_cli("--game", game, "--options", json.dumps(SHORT[game]), "--out", str(tmp_path), *TINY, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    (run_dir,) = list(tmp_path.glob(f"{game}-ppo-*"))
    summary = json.loads((run_dir / "summary.json").read_text())
    for key in ("ppo_decisions_per_second", "warm_start_seconds", "compile_seconds", "total_seconds"):
        assert summary[key] >= 0, key
    assert summary["options"]["reward"] == DEFAULT_REWARD[game]   # each game's training reward
    assert summary["evaluation"]["random"]["games"] == 2
    assert (run_dir / "model.zip").exists() and (run_dir / "learning_curve.png").exists()
    assert "time/total_timesteps" in (run_dir / "progress.csv").read_text()  # SB3's statistics
    assert summary["device"] == ("cuda" if torch.cuda.is_available() else "cpu")  # --device auto
    assert "kept_curve_point" in summary  # None, or the best curve point whose policy was kept
    assert summary["eval_play"] == "sampled"  # the default: the policy sampled, as trained
    assert "decisions/s" in done.stdout


def test_cli_battle_force_with_three_players_evaluated_by_most_likely_actions(tmp_path):
    # --eval-play greedy: the curve and the final games play the policy's most likely action (as
    # `wargym serve` plays a model), and the summary says so
    done = run_cli("--game", "battle_force", "--players", "3", "--options", json.dumps(SHORT["battle_force"]),
                   "--out", str(tmp_path), *TINY, "--eval-play", "greedy", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    (run_dir,) = list(tmp_path.glob("battle_force-ppo-*"))
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["options"]["players"] == 3 and summary["eval_play"] == "greedy"
    assert "(most likely actions, both seats)" in done.stdout


def test_init_model_continues_its_weights_and_a_named_warm_start_refits_them(tmp_path):
    # --init-model alone: PPO from the given weights, no warm start; with --warm-start named too, the
    # warm start clones its teacher starting from those weights (e.g. a search bot's moves)
    def summary_of(out, *more):
        done = run_cli("--game", "battle_force", "--options", json.dumps(SHORT["battle_force"]), "--out",
                       str(tmp_path / out), *TINY, *more, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        (run_dir,) = list((tmp_path / out).glob("battle_force-ppo-*"))
        return json.loads((run_dir / "summary.json").read_text()), run_dir / "model.zip"

    first, model = summary_of("first")
    assert first["warm_start"] == "scripted" and first["init_model"] is None
    continued, _ = summary_of("continued", "--init-model", str(model))
    assert continued["warm_start"] == "none" and continued["warm_start_agreement"] is None
    refitted, _ = summary_of("refitted", "--init-model", str(model), "--warm-start", "scripted")
    assert refitted["warm_start"] == "scripted" and refitted["init_model"] == str(model)
    assert refitted["warm_start_agreement"] is not None


@pytest.mark.parametrize("args, message", [
    (["--game", "chess"], "invalid choice: 'chess'"),
    (["--game", "talon", "--reward", "score"], "--reward 'score' is not a reward of talon"),
    (["--game", "talon", "--players", "3"], "--players is for battle_force only"),
    (["--game", "battle_force", "--players", "7"], "--players must be 2 to 6"),
    (["--opponent", "grandmaster"], "--opponent 'grandmaster': choose from"),
    (["--opponent", "missing/model.zip"], "no such file"),
    (["--opponent", "random,grandmaster"], "--opponent: a mixture of opponents names two or more"),
    pytest.param(["--device", "cuda"], "torch sees no CUDA GPU", marks=pytest.mark.skipif(
        torch.cuda.is_available(), reason="a CUDA GPU is present")),
    (["--options", "{turns: 3"], "--options is not valid JSON"),
    (["--game", "planetoids", "--options", '{"colour": 3}'], "unknown Planetoids option"),
    (["--timesteps", "0"], "--timesteps must be at least 1"),
    (["--minutes", "0"], "--minutes must be a positive number of minutes"),
    (["--minutes", "nan"], "--minutes must be a positive number of minutes"),
    (["--minutes", "5", "--backend", "rllib"], "--minutes is sb3 only"),
    (["--eval-play", "greedy", "--backend", "rllib"], "--eval-play greedy is sb3 only"),
    (["--eval-play", "argmax"], "invalid choice: 'argmax'"),
    (["--warm-start-rounds", "-1"], "--warm-start-rounds must be 0 or more"),
    (["--warm-start", "search:0"], "search:N (N simulations, 1..4096)"),
    (["--warm-start-targets", "visits"], "the teacher must be the tree search"),
    (["--warm-start-targets", "visits", "--warm-start", "search:4"], "the teacher must be the tree search"),
    (["--opponent", "search", "--backend", "rllib"], "the search bot runs in Python"),
])
def test_cli_bad_arguments_one_line_error_exit_2_no_run_folder(args, message, tmp_path, capsys):
    # in this process (the command line's own main(), as its entry point calls it): each case
    # as a subprocess paid 4-5 s of importing torch and SB3 for one line of argparse
    from wargym.training.train import main
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--out", str(tmp_path / "runs")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert not (tmp_path / "runs").exists()


def test_cli_bad_argument_from_the_shell_exits_2_with_one_line(tmp_path):
    # the same through the installed entry point, as a user meets it
    done = run_cli("--timesteps", "0", "--out", str(tmp_path / "runs"), cwd=tmp_path)
    assert done.returncode == 2
    assert "--timesteps must be at least 1" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("game", ["talon", "battle_force"])
def test_the_search_bot_is_an_opponent_and_a_teacher(game):
    # envs/core/search.py in training: the learner's opponent (searched in Python beside the batched
    # core, like a model) and the warm start's teacher (every label a search of the batch's positions);
    # its labels are legal and, under the env's seed, reproducible (Battle Force: hidden cards sampled)
    from wargym.training.imitation import collect

    def labels():
        env = WargymVecEnv(game, n_envs=4, opponent="search:2", options=SHORT[game], seed=3)
        X, M, A, G = collect(env, "search:2", 24)
        assert M[np.arange(len(A)), A].all() and len(A) == 24
        return A
    assert np.array_equal(labels(), labels())


@pytest.mark.parametrize("game, options", [*((game, {}) for game in GAME_KEYS), ("battle_force", {"players": 4})])
def test_network_reads_every_part_of_the_observation(game, options):
    g = load_game(game)
    cfg = g.build_config(g.parse_options(options))
    parts = observation_parts(g, cfg)
    n = int(np.prod(g.obs_shape(cfg)))
    # the parts never overlap and cover the flat observation, except that Planetoids'
    # scalar planes (one value filling a plane) are read at one hex each, and its action table
    # (planetoids_v1) leaves the rest of its last channel unread (zero padding)
    covered = np.concatenate([np.arange(n)[w].reshape(-1) if isinstance(w, slice) else w for _, _, w in parts])
    assert len(np.unique(covered)) == len(covered)
    if game == "planetoids":
        shapes = dict((name, shape) for name, shape, _ in parts)
        padding = g.action_channels(cfg) * 9 * 21 - int(np.prod(shapes["action_features"]))
        assert len(covered) == n - shapes["scalars"][0] * (9 * 21 - 1) - padding
    else:
        assert len(covered) == n
    extractor = WargymExtractor(spaces.Box(-128, 127, (n,), np.int8), game=game, options=options)
    env = WargymVecEnv(game, n_envs=3, opponent="random", options=options, seed=0)
    obs = torch.as_tensor(env.reset()).float()
    features = extractor(obs)
    assert features.shape == (3, extractor.features_dim) and torch.isfinite(features).all()
    # each part reaches the features: changing it alone changes them
    for k, (name, _, where) in enumerate(parts):
        moved = obs.clone()
        idx = torch.as_tensor(np.arange(n)[where] if isinstance(where, slice) else where)
        moved[:, idx] += 5.0
        assert not torch.allclose(extractor(moved), features), name


def test_network_refuses_an_observation_of_another_game():
    with pytest.raises(ValueError, match="does not match talon"):
        WargymExtractor(spaces.Box(-128, 127, (100,), np.int8), game="talon")


def test_saved_model_loads_plays_legal_moves_and_serves_as_opponent(tmp_path):
    from sb3_contrib import MaskablePPO

    from wargym.training.evaluate import win_rate
    from wargym.training.networks import policy_kwargs
    options = {"turns": 2}
    env = WargymVecEnv("planetoids", n_envs=4, opponent="random", options=options, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs=policy_kwargs("planetoids", options))
    model.learn(64)
    path = tmp_path / "model.zip"
    model.save(path)
    loaded = MaskablePPO.load(path, device="cpu")
    obs = env.reset()
    for _ in range(50):
        masks = env.action_masks()
        actions, _ = loaded.predict(obs, action_masks=masks)
        assert masks[np.arange(4), actions].all()
        obs, _, _, _ = env.step(actions)
    # by path, as --opponent takes it
    vs_saved = WargymVecEnv("planetoids", n_envs=2, opponent=str(path), options=options, seed=1)
    assert vs_saved.loop.opponents[1].policy is not None
    result = win_rate("random", "planetoids", opponent=str(path), n_games=2, options=options)
    assert result["games"] == 2


def test_learner_takes_every_seat_in_turn_with_three_players():
    """envs/core/loops.py: with seat rotation the learner moves one seat on at each restart;
    the other seats are played by the built-in opponents inside the kernel."""
    env = WargymVecEnv("battle_force", n_envs=3, opponent="random", options={"players": 3, "max_decisions": 60},
                       seed=0)
    assert env.loop.seats.tolist() == [0, 1, 2]
    env.reset()
    rng = np.random.default_rng(0)
    seen = {b: {int(env.loop.seats[b])} for b in range(3)}
    for _ in range(2000):
        assert (env.loop.core.current_player == env.loop.seats).all()  # always the learner's decision
        obs, rewards, dones, infos = env.step([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        for b in np.flatnonzero(dones):
            seen[b].add(int(env.loop.seats[b]))
        if all(len(s) == 3 for s in seen.values()):
            break
    assert all(s == {0, 1, 2} for s in seen.values())


def test_opponent_per_seat_python_and_builtin_mixed():
    calls = []

    def first_legal(obs, masks):
        calls.append(len(obs))
        return np.array([np.flatnonzero(m)[0] for m in masks])
    env = WargymVecEnv("battle_force", n_envs=2, opponent=[None, "random", first_legal], seat=0,
                       options={"players": 3, "max_decisions": 60}, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        assert (env.loop.core.current_player == 0).all()
        env.step([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
    assert calls  # seat 2's Python policy was asked


def test_warm_start_clones_the_scripted_bot():
    from sb3_contrib import MaskablePPO

    from wargym.training.imitation import clone, collect
    from wargym.training.networks import policy_kwargs
    env = WargymVecEnv("talon", n_envs=16, opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, seed=0, device="cpu",
                        policy_kwargs=policy_kwargs("talon"))
    X, M, A, G = collect(env, "scripted", 4096, gamma=0.99)
    assert len(X) == len(A) == len(G) == 4096 and M[np.arange(len(A)), A].all()  # the teacher's moves are legal
    before = clone(model, X, M, A, G, epochs=0)
    after = clone(model, X, M, A, G, epochs=3, batch_size=256)
    assert after > before


def test_dagger_round_lets_the_student_play_and_the_teacher_label():
    """training/imitation.py: in a DAgger round the student's sampled moves drive the games,
    the scripted bot labels every position reached, and the labels are legal there."""
    from sb3_contrib import MaskablePPO

    from wargym.training.imitation import collect
    from wargym.training.networks import policy_kwargs
    env = WargymVecEnv("talon", n_envs=16, opponent="random", seed=0)
    student = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, seed=0, device="cpu",
                          policy_kwargs=policy_kwargs("talon"))
    X, M, A, _ = collect(env, "scripted", 2048)
    Xs, Ms, As, Gs = collect(WargymVecEnv("talon", n_envs=16, opponent="random", seed=0), "scripted", 2048,
                             student=student)
    assert len(Xs) == len(As) == len(Gs) == 2048 and Ms[np.arange(len(As)), As].all()
    assert not np.array_equal(X, Xs)  # same seeds, other games: the untrained student played them


def test_sample_order_draws_every_label_equally_often_up_to_one():
    from wargym.training.imitation import sample_order
    rng = np.random.default_rng(0)
    for n, samples in ((10, 25), (10, 10), (10, 3), (7, 0)):
        order = sample_order(n, samples, rng)
        counts = np.bincount(order, minlength=n)
        assert len(order) == samples and counts.max() - counts.min() <= 1


@pytest.mark.parametrize("fit, fitted", [("round", [3 * 64, 3 * 64, 3 * 64]), ("all", [3 * 64, 3 * 128, 3 * 192])])
def test_warm_start_rounds_fit_their_new_labels_or_all_labels(fit, fitted, monkeypatch):
    """--warm-start-fit all (default): epochs passes over every label so far; round: each DAgger round fits epochs
    x its own new labels, drawn from every label so far (each round costs the same)."""
    from wargym.training import imitation, train
    calls = []
    real_clone = imitation.clone

    def spy(model, X, M, A, G, samples=None, **kw):
        calls.append((len(A), samples))
        assert M[np.arange(len(A)), A].all()          # every round's labels filled in, legal
        return real_clone(model, X, M, A, G, samples=samples, **kw)
    monkeypatch.setattr(imitation, "clone", spy)
    ap = train.build_parser()
    args = ap.parse_args(["--game", "talon", "--n-envs", "16", "--warm-start-decisions", "64",
                          "--warm-start-rounds", "2", "--warm-start-fit", fit, "--no-progress"])
    options = train.check_args(ap, args)
    env = WargymVecEnv("talon", n_envs=16, opponent="scripted", options=options, seed=0)
    model = train.make_model(env, args, options)
    train.warm_start(model, args, options, train.Bars(False))
    assert [n for n, _ in calls] == [64, 128, 192] and [s for _, s in calls] == fitted


def test_expert_iteration_fits_the_tree_search_visit_shares_with_the_student_as_its_prior(monkeypatch):
    """--warm-start mcts:N --warm-start-targets visits (training/imitation.py): every label is the PUCT
    root's visit shares, a distribution over the legal moves; the first round searches with the rollout
    policy's prior, each later one with the student's own policy, and clone fits the distributions."""
    from wargym.envs.core import search
    from wargym.training import imitation, train
    fitted, priors = [], []
    real_clone, real_tree = imitation.clone, search.TreeSearch

    def spy_clone(model, X, M, A, G, T=None, **kw):
        fitted.append(T)
        assert T is not None and np.allclose(T.sum(axis=1), 1.0) and (T[~M] == 0).all()
        assert (T[np.arange(len(A)), A] == T.max(axis=1)).all()      # the move played is the most visited
        return real_clone(model, X, M, A, G, T=T, **kw)

    def spy_tree(*args, **kwargs):
        priors.append((kwargs.get("root"), kwargs.get("model")))
        return real_tree(*args, **kwargs)
    monkeypatch.setattr(imitation, "clone", spy_clone)
    monkeypatch.setattr(search, "TreeSearch", spy_tree)
    ap = train.build_parser()
    args = ap.parse_args(["--game", "union_wars", "--n-envs", "4", "--warm-start", "mcts:4",
                          "--warm-start-targets", "visits", "--warm-start-decisions", "8",
                          "--warm-start-rounds", "1", "--no-progress"])
    options = train.check_args(ap, args)
    env = WargymVecEnv("union_wars", n_envs=4, opponent="scripted", options=options, seed=0)
    model = train.make_model(env, args, options)
    train.warm_start(model, args, options, train.Bars(False))
    assert [len(T) for T in fitted] == [8, 16]
    # (check_args builds one from the spec to check it; the warm start's rounds build theirs)
    assert [p for p in priors if p[0] == "puct"] == [("puct", None), ("puct", model)]


def test_place_reads_first_place_shared_first_and_the_rest_from_the_rank_reward():
    from wargym.training.evaluate import place
    assert place([1.0, 0.0, -1.0], 2).tolist() == [1, 0, -1]
    # 4 players, rank reward: 1, 1/3, -1/3, -1; two tied for first share (1 + 1/3) / 2
    assert place([1.0, 1 / 3, -1 / 3, -1.0, 2 / 3], 4).tolist() == [1, -1, -1, -1, 0]
    assert place([0.5, 0.0], 3).tolist() == [0, -1]  # 3 players: shared first 0.5, sole second 0


def test_discounted_returns_stop_at_episode_ends():
    from wargym.training.imitation import discounted_returns
    r = np.array([[0.0], [1.0], [0.0], [2.0]], dtype=np.float32)
    d = np.array([[False], [True], [False], [False]])
    g = discounted_returns(r, d, 0.5)
    assert g[:, 0].tolist() == [0.5, 1.0, 1.0, 2.0]


@pytest.mark.parametrize("game", GAME_KEYS)
def test_cli_self_play_league(game, tmp_path):
    """--opponent self-play: training/selfplay.py's league of snapshots and built-in bots."""
    done = run_cli("--game", game, "--opponent", "self-play", "--options", json.dumps(SHORT[game]),
                   "--out", str(tmp_path), *TINY, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    (run_dir,) = list(tmp_path.glob(f"{game}-ppo-*"))
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["league_opponents"] and "scripted" in summary["evaluation"]


def test_cli_mixture_of_opponents_evaluates_against_each(tmp_path):
    """--opponent random,scripted: half the games against each; the final evaluation against each."""
    done = run_cli("--game", "planetoids", "--opponent", "random,scripted", "--options", json.dumps(SHORT["planetoids"]),
                   "--out", str(tmp_path), *TINY, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    (run_dir,) = list(tmp_path.glob("planetoids-ppo-*"))
    summary = json.loads((run_dir / "summary.json").read_text())
    assert sorted(summary["evaluation"]) == ["random", "scripted"]


def test_the_curve_keeps_its_best_point(tmp_path, monkeypatch):
    """keep_best: the policy of the best curve point (mean win rate; a later point wins a tie) is saved."""
    from wargym.training import curve as curve_module
    rates = iter([0.2, 0.6, 0.4, 0.6, 0.1])
    monkeypatch.setattr(curve_module, "win_rate", lambda *a, **k: {"win_rate": next(rates), "draws": 0})

    class Model:
        saved = []

        def save(self, path):
            self.saved.append(path)
    ev = curve_module.ScheduledEvaluation("planetoids", {}, every=10, games=2, opponents=("scripted",),
                                          keep_best=tmp_path / "best.zip", verbose_points=False)
    for decisions in (0, 10, 20, 30, 40):
        ev.evaluate(Model(), decisions)
    assert ev.best == {"decisions": 30, "score": 0.6} and len(Model.saved) == 3


def test_league_snapshots_and_draws():
    from sb3_contrib import MaskablePPO

    from wargym.training.networks import policy_kwargs
    from wargym.training.selfplay import FrozenPolicy, League
    options = {"max_decisions": 300}
    env = WargymVecEnv("talon", n_envs=4, opponent="random", options=options, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs=policy_kwargs("talon", options))
    league = League(env, ["random", "scripted"], snapshot_every=2, keep=2, builtin_share=0.25, seed=1)
    model.learn(8 * 4 * 7, callback=league)
    assert league.rollouts == 7
    assert len(league.snapshots) == 2  # taken before rollouts 1, 3, 5, 7; the newest two kept
    assert league.snapshots[-1].name == "snapshot@192"
    assert len(league.history) == 7 and set(league.history) <= {"random", "scripted", "snapshot@0", "snapshot@64",
                                                                    "snapshot@128", "snapshot@192"}
    # a snapshot is frozen: training the learner further leaves it as it was
    frozen = FrozenPolicy(model.policy, "x")
    before = [p.clone() for p in frozen.policy.parameters()]
    model.learn(64)
    assert all(torch.equal(a, b) for a, b in zip(before, frozen.policy.parameters()))
    # the draw weights: built-in share, then the newest snapshot twice as likely as each other
    draws = [league.draw() for _ in range(4000)]
    names = [d if isinstance(d, str) else d.name for d in draws]
    builtin = sum(n in ("random", "scripted") for n in names) / len(names)
    newest = names.count(league.snapshots[-1].name) / len(names)
    assert abs(builtin - 0.25) < 0.03 and abs(newest - 0.75 * 2 / 3) < 0.03


def test_the_wall_clock_budget_counts_warm_start_and_ppo_but_not_the_evaluations():
    # --minutes (the ablation's fixed budget): the warm start's seconds, then PPO's, less the time the
    # learning curve spent evaluating after PPO started
    from types import SimpleNamespace

    from wargym.training.curve import WallClockBudget
    now = [100.0]
    curve = SimpleNamespace(seconds=2.0)            # the curve's first point, before PPO's first step
    budget = WallClockBudget(10.0, spent=4.0, evaluations=curve, clock=lambda: now[0])
    budget._on_training_start()
    now[0] += 5.0
    assert budget._on_step() and budget.training_seconds() == 9.0
    now[0] += 3.0
    curve.seconds += 3.0                            # a curve point: not training
    assert budget._on_step() and budget.training_seconds() == 9.0
    now[0] += 1.0
    assert not budget._on_step() and budget.spent_out


@pytest.mark.parametrize("game", GAME_KEYS)
def test_every_cell_of_the_ablation_is_a_valid_run_of_wargym_train(game, tmp_path):
    # benchmarks/ablation.py: each cell's arguments pass wargym-train's own checks (the options of the
    # earlier version, the network's action table); the earlier observation carries no action table
    # (Battle Force's never does: its pointer head gathers one from the card and ship tables)
    from wargym.benchmarks.ablation import CELLS, cell_arguments
    from wargym.training.networks import has_action_table
    from wargym.training.train import build_parser, check_args
    ap = build_parser()
    for cell in CELLS:
        args = ap.parse_args(["--game", game, "--minutes", "1", "--out", str(tmp_path), *cell_arguments(game, cell)])
        options = check_args(ap, args)
        if cell == "earlier-structured":
            assert not has_action_table(game, options)
        if cell == "current-pointer":
            assert has_action_table(game, options, gathered=True)
        if game == "union_wars":    # every cell with the shipped agents' exploration bank
            assert options["exploration_bank"] == "own_tests"
    with pytest.raises(ValueError, match="unknown cell"):
        cell_arguments(game, "current-transformer")


def test_the_ablation_table_pools_the_seeds_with_a_wilson_interval(tmp_path):
    from wargym.benchmarks import ablation
    for seed, wins in ((0, 120), (1, 140)):
        summary = {"game": "talon", "seed": seed, "minutes_budget": 10.0, "timesteps": 500_000,
                   "ppo_decisions_per_second": 1000, "warm_start_seconds": 200.0,
                   "machine": {"load_average_at_end": [2.0, 2.0, 2.0]},
                   "evaluation": {"scripted": {"wins": wins, "games": 200, "win_rate": wins / 200},
                                  "random": {"wins": 190, "games": 200, "win_rate": 0.95}}}
        path = ablation.result_path("talon", "current-pointer", 10.0, seed, tmp_path)
        path.write_text(json.dumps({**summary, "ablation_cell": "current-pointer"}))
    (row,) = [line for line in ablation.table(tmp_path).splitlines() if line.startswith("| talon")]
    # 260 of 400 games: 65.0 %, Wilson 95 % interval 60-70 %
    assert "| 2 | 65.0% (60%-70%) · 60%/70% | 95.0% (92%-97%) · 95%/95% | 500,000 | 1,000 | 200 |" in row


def test_runs_started_in_the_same_second_get_folders_of_their_own(tmp_path):
    # seeds run side by side (benchmarks/ablation.py, time_to_skill.py) once shared one folder, and so
    # each other's best curve point
    from wargym.training.train import new_run_dir
    made = [new_run_dir(tmp_path / "runs", "talon-ppo-20261201-120000") for _ in range(3)]
    assert [d.name for d in made] == ["talon-ppo-20261201-120000", "talon-ppo-20261201-120000-2",
                                      "talon-ppo-20261201-120000-3"]
    assert all(d.is_dir() for d in made)


def test_an_anchored_search_opponent_is_checked_against_the_runs_options(tmp_path):
    # issue 31: --opponent mcts:N@BASELINE is the tree search anchored on a shipped agent, which reads
    # the game's observation: refused (argparse's exit 2) unless the run's options are the agent's;
    # as a teacher of visit targets it is refused (its root keeps its anchor: its visits are no policy)
    from wargym.training.train import build_parser, check_args
    ap = build_parser()
    base = ["--game", "union_wars", "--minutes", "1", "--out", str(tmp_path)]
    with pytest.raises(SystemExit) as refused:
        check_args(ap, ap.parse_args([*base, "--opponent", "mcts:4@ppo-pointer"]))
    assert refused.value.code == 2
    own = ["--options", json.dumps({"exploration_bank": "own_tests"})]
    assert check_args(ap, ap.parse_args([*base, *own, "--opponent", "mcts:4@ppo-pointer"]))["exploration_bank"] == "own_tests"
    with pytest.raises(SystemExit):
        check_args(ap, ap.parse_args([*base, *own, "--warm-start", "mcts:4@ppo-pointer", "--warm-start-targets", "visits"]))
