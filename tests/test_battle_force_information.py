"""Battle Force's hidden cards sampled for the search bot (envs/battle_force/information.py): a sample
keeps exactly what the player sees (its observation and its legal actions), is a valid state of the
game, and depends only on what the player sees and the seed."""
from __future__ import annotations

import numpy as np
import pytest

from wargym.envs.battle_force import game
from wargym.envs.battle_force import information as I
from wargym.envs.battle_force import rules as R
from wargym.envs.core.validate import check_state
from wargym.envs.core.vec import VecGame

# the ways ships reach the fleets (RULES.md 'Set-up'): picked in the open (points, draft) or dealt
# from the shuffled ship deck (deal; four players by default), and teams of two
OPTION_SETS = [{}, {"ship_selection": "deal"}, {"players": 4}, {"players": 3, "ship_selection": "draft"},
               {"players": 4, "allies": True}]


def positions(options, games=2, every=9, seed=0):
    """(core, player to move) every ``every`` random decisions of ``games`` games, in place."""
    core = VecGame(game, 1, options)
    rng = np.random.default_rng(seed)
    for g in range(games):
        core.reset(seed=seed + g)
        t = 0
        while not (core.terminated[0] or core.truncated[0]):
            t += 1
            if t % every == 0:
                yield core, int(core.current_player[0])
            core.step_one(0, int(rng.choice(np.flatnonzero(core.mask[0]))))


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_a_sample_keeps_what_the_player_sees_and_is_a_valid_game(options):
    # SFBF Preparazione / Navi di Riserva: hands, reserves, the decks' order and others' face-down
    # ships are secret; everything else (and so the player's observation and mask) stays as it was
    moved_cards = moved_ships = 0
    for n, (core, p) in enumerate(positions(options)):
        seen, legal = core.observe(0, p)
        before = core.clone_state([0])
        I.determinise(core.cfg, core.state, [0], [p], [n])
        check_state(game, core.cfg, core.clone_state([0]))
        again, legal_again = core.observe(0, p)
        assert np.array_equal(seen, again) and np.array_equal(legal, legal_again), (n, p)
        assert np.array_equal(before.pl, core.state.pl)            # hand and reserve sizes kept
        own = (before.cd[0, :, R.CD_WHO] == p) & np.isin(before.cd[0, :, R.CD_LOC], (R.CL_HAND, R.CL_RES))
        assert np.array_equal(before.cd[0][own], core.state.cd[0][own])   # the player's own cards stay
        moved_cards += int((before.cd[0] != core.state.cd[0]).any(axis=1).sum())
        moved_ships += int((before.sh[0] != core.state.sh[0]).any(axis=1).sum())
        core.refresh([0])      # the game goes on from the sample: it is a game like any other
    assert moved_cards > 0
    if options.get("ship_selection") == "deal" or options.get("players", 2) >= 4:
        assert moved_ships > 0   # ships dealt unseen: the deck and others' face-down ships are resampled


@pytest.mark.parametrize("options", OPTION_SETS[:3], ids=["default", "deal", "4p"])
def test_a_sample_depends_only_on_what_the_player_sees(options):
    # two states of one information set (the second a sample of the first) give the same sample
    core = VecGame(game, 2, options)
    worlds_differ = 0
    for n, (one, p) in enumerate(positions(options, games=1, every=13)):
        core.state.assign(np.arange(2), one.clone_state([0, 0]))
        I.determinise(core.cfg, core.state, [1], [p], [1000 + n])          # another world, same view
        worlds_differ += not np.array_equal(core.state.cd[0], core.state.cd[1])
        I.determinise(core.cfg, core.state, [0, 1], [p, p], [7, 7])
        for name, array in core.state.arrays.items():
            assert np.array_equal(array[0], array[1]), (n, name)
    assert worlds_differ > 0


def test_a_card_the_game_refers_to_keeps_its_identity():
    # a pending or just-drawn card is one the player tracks: never swapped for another
    for n, (core, p) in enumerate(positions({"players": 4}, games=1, every=3)):
        refs = [int(core.state.g[0, col]) for col in I.CARD_REFERENCES if core.state.g[0, col] >= 0]
        before = core.state.cd[0, refs].copy()
        I.determinise(core.cfg, core.state, [0], [p], [n])
        assert np.array_equal(before, core.state.cd[0, refs])
        core.refresh([0])
