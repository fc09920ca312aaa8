"""Every game's built-in policies, through the one dispatch of envs/core/loops.py (issue 29)."""
from __future__ import annotations

import numpy as np
import pytest
from wargym.envs.core import loops
from wargym.envs.core.vec import VecGame
from wargym.registration import GAME_KEYS, load_game

# a few option sets beside the defaults, where a game's bot meets other stages
OPTION_SETS = [(key, None) for key in GAME_KEYS] + [("battle_force", {"players": 4}), ("talon", {"scenario": "fleet"})]


@pytest.mark.parametrize("key", GAME_KEYS)
def test_every_game_numbers_its_built_in_policies_the_same_way(key):
    bot = load_game(key).bot
    assert bot.POLICIES["random"] == loops.RANDOM and bot.POLICIES["scripted"] == loops.SCRIPTED
    assert set(bot.POLICIES.values()) == {loops.RANDOM, loops.SCRIPTED}
    assert bot.policy_action is bot.LOOPS.policy_action


def test_a_game_with_another_policy_numbering_is_refused():
    with pytest.raises(ValueError, match="RANDOM"):
        loops.specialise_loops("x", None, None, 0, 0, sources=(loops,), policies={"random": 0, "clever": 2})


@pytest.mark.parametrize("key, options", OPTION_SETS)
def test_the_scripted_bot_always_names_a_legal_action(key, options):
    """The scripted bot itself (not the dispatch, which would cover a slip with a random move), in
    every position of games where it plays itself and random play: its action is in the mask."""
    game = load_game(key)
    bot = game.bot
    n = 8
    core = VecGame(game, n, options)
    core.reset(5)
    states, cfgs, _ = core.kernel_args()
    scripted_seats = np.ones((n, core.num_players), dtype=bool)
    scripted_seats[n // 2:, 1:] = False      # half the games against random play
    dispatched = {p: np.zeros(n, dtype=np.int64) for p in (loops.RANDOM, loops.SCRIPTED)}
    checked = 0
    for _ in range(5_000):
        live = ~np.asarray(game.done(core.state), dtype=bool)
        if not live.any():
            break
        for policy, out in dispatched.items():
            bot.policy_actions(states, cfgs, core.mask, policy, out)
        actions = dispatched[loops.RANDOM].copy()
        for b in np.flatnonzero(live):
            a = int(bot.LOOPS.scripted_action(core.state.view, core.cfg.struct, b, core.mask[b]))
            assert a >= 0 and core.mask[b, a], f"{key} game {b}: the scripted bot chose {a}"
            checked += 1
            if scripted_seats[b, int(core.current_player[b])]:
                actions[b] = a
        core.step(actions, active=live)
    assert checked > 1_000
