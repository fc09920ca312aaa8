"""Shipped baseline agents (``wargym.baselines``) and the generator of BASELINES.md (issue 13)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import wargym.baselines as baselines
from wargym.benchmarks import baselines as generator

SHIPPED = [(game, name) for game, names in baselines.available().items() for name in names]


def test_every_game_ships_a_baseline_listed_in_the_index():
    index = json.loads(baselines.INDEX.read_text())
    assert set(index) >= {"planetoids", "talon", "battle_force"}
    for game, entries in index.items():
        for name, entry in entries.items():
            assert (baselines.HERE / entry["file"]).is_file(), entry["file"]
            # compact: the optimiser's moments are not shipped
            assert entry["size_bytes"] == (baselines.HERE / entry["file"]).stat().st_size < 1_500_000
            assert entry["commit"] and entry["command"].startswith("wargym-train")


def test_names_resolve_only_through_the_index():
    assert baselines.game_key("wargym/talon_v0") == baselines.game_key("talon_v0") == "talon"
    with pytest.raises(KeyError, match="no shipped baseline '../model' for 'talon'; available:"):
        baselines.load("talon", "../model")
    with pytest.raises(KeyError, match="no shipped baseline 'x' for 'chess'; available: none"):
        baselines.path("chess", "x")


@pytest.mark.parametrize("game, name", SHIPPED)
def test_shipped_checkpoint_loads_by_name_and_plays_legal_moves_only(game, name):
    """Through the AEC env, as another program would use it: every move it picks is legal."""
    import importlib
    model = baselines.load(game, name)
    options = dict(baselines.describe(game, name)["options"])
    env = importlib.import_module(f"wargym.envs.{game}_v0").env(**options)
    env.reset(seed=3)
    for _ in range(400):
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        mask = obs["action_mask"].astype(bool)
        action = int(model.predict(obs["observation"].reshape(1, -1), action_masks=mask[None],
                                   deterministic=False)[0][0])
        assert mask[action], (agent, env.unwrapped.action_name(action))
        env.step(action)


@pytest.mark.parametrize("game, name", SHIPPED)
def test_shipped_checkpoint_plays_in_the_arena_by_name(game, name):
    from wargym.arena import run_arena
    options = dict(baselines.describe(game, name)["options"])
    # short games: this checks the plumbing, BASELINES.md the strength
    options.update({"end_turns": 2} if game == "battle_force" else {"max_decisions": 600})
    t, summary = run_arena(game, ["random", f"baseline:{name}"], options, games=2)
    assert {r["policy"] for r in summary["ratings"]} == {"random", f"baseline:{name}"}
    assert t.sources[f"baseline:{name}"].endswith(baselines.describe(game, name)["file"])


def test_generator_quick_run_writes_the_table(tmp_path):
    """``python -m wargym.benchmarks.baselines --quick``: every row of one game, one seed."""
    report = generator.main(["--quick", "--games", "planetoids", "--out", str(tmp_path)])
    g = report["games"]["planetoids"]
    assert set(g["builtin"]) == {"random", "scripted"} and set(g["trained"]) == set(generator.ROWS)
    for row in g["trained"].values():
        (run,) = row["runs"]
        assert run["ppo_decisions"] >= generator.QUICK["timesteps"]
        assert row["pooled"]["random"]["games"] == generator.QUICK["eval_games"]
    table = (tmp_path / "BASELINES.md").read_text()
    for text in ("## planetoids", "| random (built-in)", "| ppo-dagger:", "Best trained agent:", "Elo"):
        assert text in table


def test_pooled_win_rates_sum_the_seeds_and_give_wilson_intervals():
    runs = [{"evaluation": {"random": {"wins": 9, "draws": 1, "losses": 0, "win_rate": 0.9},
                            "scripted": {"wins": 3, "draws": 0, "losses": 7, "win_rate": 0.3}}},
            {"evaluation": {"random": {"wins": 10, "draws": 0, "losses": 0, "win_rate": 1.0},
                            "scripted": {"wins": 5, "draws": 1, "losses": 4, "win_rate": 0.5}}}]
    p = generator.pooled(runs)
    assert (p["random"]["wins"], p["random"]["draws"], p["random"]["games"]) == (19, 1, 20)
    assert p["scripted"]["win_rate"] == pytest.approx(0.4)
    assert (p["scripted"]["seed_min"], p["scripted"]["seed_max"]) == (0.3, 0.5)
    lo, hi = p["scripted"]["ci95"]  # Wilson, 8 of 20: 0.2188 .. 0.6134
    assert lo == pytest.approx(0.2188, abs=1e-4) and hi == pytest.approx(0.6134, abs=1e-4)
    assert np.isclose(p["random"]["win_rate"], 0.95)
