"""Talon's compiled opponents: legality, strength against random play, determinism, SB3 wrapper."""
from __future__ import annotations

import numpy as np
from helpers.talon import play_policies, scripted_vs_random
from wargym.envs.core.vec import VecGame
from wargym.envs.talon import bot, game
from wargym.envs.talon import rules as R


def test_policy_table_matches_the_wrappers_contract():
    assert bot.POLICIES == {"random": bot.RANDOM, "scripted": bot.SCRIPTED}
    assert game.bot is bot


def test_scripted_actions_are_always_legal():
    """Several whole games stepped one decision at a time: every scripted choice is in the mask."""
    for options, seed in ((None, 1), ({"scenario": "fleet"}, 2), ({"scenario": "fleet", "edition": 1,
                                                                  "budget": 500}, 3)):
        n = 6
        core = VecGame(game, n, options)
        core.reset(seed)
        states, cfgs, _ = core.kernel_args()
        # games 0-1 scripted against itself, the others scripted against random play
        seat_policy = np.full((n, 2), bot.SCRIPTED, dtype=np.int64)
        seat_policy[2:, 1] = bot.RANDOM
        seat_policy[4:] = seat_policy[4:, ::-1]
        scripted = np.zeros(n, dtype=np.int64)
        randoms = np.zeros(n, dtype=np.int64)
        stages = set()
        for _ in range(20_000):
            done = core.state.g[:, R.G_DONE].astype(bool)
            if done.all():
                break
            # the bot itself, not the dispatch (which would cover a slip with a random move)
            for b in np.flatnonzero(~done):
                scripted[b] = bot.LOOPS.scripted_action(core.state.view, core.cfg.struct, b, core.mask[b])
            bot.policy_actions(states, cfgs, core.mask, bot.RANDOM, randoms)
            cur = core.current_player.astype(np.int64)
            use_scripted = seat_policy[np.arange(n), cur] == bot.SCRIPTED
            for b in np.flatnonzero(~done & use_scripted):
                a = int(scripted[b])
                assert 0 <= a < core.num_actions and core.mask[b, a] == 1, \
                    f"game {b}: scripted chose {core.why_illegal(int(b), a)}"
                stages.add(int(core.state.g[b, R.G_STAGE]))
            actions = np.where(use_scripted, scripted, randoms)
            core.step(actions, active=~done)
        assert core.state.g[:, R.G_DONE].all(), "games did not finish"
        assert {R.ST_AP, R.ST_MOVE, R.ST_FIRE_SHIP, R.ST_FIRE_GROUP, R.ST_FIRE_TARGET} <= stages


def test_random_policy_uses_its_own_stream_not_the_dice():
    core = VecGame(game, 4)
    core.reset(5)
    rng_before = core.state.rng.copy()
    prng_before = core.state.policy_rng.copy()
    actions = np.zeros(4, dtype=np.int64)
    states, cfgs, _ = core.kernel_args()
    bot.policy_actions(states, cfgs, core.mask, bot.RANDOM, actions)
    assert (core.state.rng == rng_before).all()
    assert (core.state.policy_rng != prng_before).all()
    assert all(core.mask[b, actions[b]] for b in range(4))


def test_scripted_beats_random():
    wins, draws, losses, core, results = scripted_vs_random(n=20, seed=7)
    print(f"scripted vs random over 20 games: {wins} wins, {draws} draws, {losses} losses")
    assert core.state.g[:, R.G_DONE].all()
    assert wins > losses
    assert wins >= 15, (wins, draws, losses)
    # play_games adds up the final rewards (+1/-1/0) of both seats
    assert np.allclose(results[:, 0], -results[:, 1])
    w = core.state.g[:, R.G_WINNER]
    assert np.allclose(results[:, 0], np.where(w == 0, 1.0, np.where(w == 1, -1.0, 0.0)))


def test_scripted_beats_random_with_drawn_fleets():
    wins, draws, losses, *_ = scripted_vs_random(n=20, seed=11, options={"scenario": "fleet"})
    print(f"scripted vs random, fleet scenario: {wins} wins, {draws} draws, {losses} losses")
    assert wins > losses


def test_play_games_is_deterministic():
    policies = np.array([[bot.SCRIPTED, bot.RANDOM], [bot.RANDOM, bot.SCRIPTED],
                         [bot.SCRIPTED, bot.SCRIPTED], [bot.RANDOM, bot.RANDOM]] * 2, dtype=np.int64)
    a, ra = play_policies(policies, 8, 42)
    b, rb = play_policies(policies, 8, 42)
    assert (a.state.g == b.state.g).all() and (a.state.sh == b.state.sh).all()
    assert (ra == rb).all()
    c, _ = play_policies(policies, 8, 43)
    assert not (a.state.sh == c.state.sh).all()


def test_sb3_vec_env_against_the_scripted_talon_opponent():
    from wargym.wrappers.sb3 import WargymVecEnv
    env = WargymVecEnv("talon", n_envs=4, opponent="scripted", seed=0)
    obs = env.reset()
    assert obs.shape == (4, env.observation_space.shape[0])
    seats = env.loop.seats
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = env.action_masks()
        assert masks.shape == (4, env.action_space.n) and masks.any(axis=1).all()
        # it is the learner's decision in every game
        assert (env.loop.core.current_player == seats).all()
        obs, _, _, _ = env.step([rng.choice(np.flatnonzero(m)) for m in masks])
        assert obs.shape == (4, env.observation_space.shape[0])
