"""The learner-versus-opponent loops, written once for every game.

Each game's ``bot.py`` provides the rules' ``step_game`` and its compiled
scripted bot; ``specialise_loops`` turns the templates below into that game's
compiled kernels:

* ``policy_action``: built-in policy ``RANDOM`` or ``SCRIPTED`` in one game
  (every game numbers its built-in policies so; the server calls it directly);
* ``play_turns``: the learner's action in every game, then the built-in
  opponents until the learner must decide again (what the SB3 adapters call);
* ``play_games``: whole games with a built-in policy per seat (evaluation,
  arena, benchmarks);
* ``policy_actions``: what a built-in policy would play now in every game
  (imitation, analysis).

Why templates and not closures or function arguments: Numba's on-disk cache
misses on both (it recompiles them in every process, which means the whole
game step), so each template is copied with the game's names as its globals
and its own qualified name.  The name carries a digest of every kernel module
of the game's package and of envs/core (``package_cache.package_digest``, as
the kernels' own cache stamps), so a change to any chapter of the rules or to
the bot compiles the loops again, and two games never read each other's cache
entries.

Threads: each loop is compiled as one serial kernel over a range of games
(``nogil``), and ``threads.run_in_ranges`` cuts a batch into one range per
thread; a ``parallel=True`` kernel would compile the whole game step three
times over (the kernel, its parfor body and the body's wrapper).

Seats: the learner's seat is ``seats[b]``; every other seat is played by the
built-in policy ``opponents[b, p]``.  With ``rotate`` the learner moves to the
next seat whenever its game restarts, so over a run it plays every seat
(two-player games: it alternates).
"""
from __future__ import annotations

import hashlib
import inspect
import os
import types

import numpy as np

from .kernel import kernel
from .package_cache import package_digest
from .sampling import random_action
from .threads import SERIAL_BELOW, run_in_ranges

# Columns of ``acc`` written by play_turns for each game.
ACC_REWARD, ACC_TERMINATED, ACC_TRUNCATED = 0, 1, 2
NO_ACTION = -1  # in play_turns' actions: the learner does not act in this game now
# Every game's built-in policies, by id (its bot.POLICIES names them, aliases included)
RANDOM, SCRIPTED = 0, 1


@kernel(cache=True)
def _record(b, seats, out, acc, auto_reset, rotate):
    """Add the learner's reward; note the end of its episode.  True = stop here."""
    if acc[b, ACC_TERMINATED] != 0 or acc[b, ACC_TRUNCATED] != 0:
        return False  # already ended: rewards of the next game are not this episode's
    acc[b, ACC_REWARD] += out.rewards[b, seats[b]]
    if out.term[b] or out.trunc[b]:
        acc[b, ACC_TERMINATED] = out.term[b]
        acc[b, ACC_TRUNCATED] = out.trunc[b]
        if not auto_reset:
            return True
        if rotate:
            # the new game starts with the learner in the next seat
            seats[b] = (seats[b] + 1) % out.rewards.shape[1]
    return False


# -- templates: GAME_STEP, GAME_SCRIPTED, G_DONE and G_DECIDER are the game's -------------
def _policy_action(s, cfg, b, mask, policy):
    """What built-in ``policy`` plays in game ``b`` (``mask``: its legal actions): the game's scripted
    bot, or uniform random (``sampling.random_action``, from the game's policy stream).  Where the
    bot has no legal answer (-1, or an action the mask refuses) it plays random instead, so that a
    loop never stalls on it; the bots' tests check that it always has one
    (tests/test_bots.py)."""
    if policy == SCRIPTED:
        a = GAME_SCRIPTED(s, cfg, b, mask)
        if a >= 0 and mask[a]:
            return a
    return random_action(s, b, mask)


def _play_turn(s, cfg, b, action, seats, opponents, out, acc, auto_reset, rotate):
    acc[b, ACC_REWARD] = 0.0
    acc[b, ACC_TERMINATED] = 0.0
    acc[b, ACC_TRUNCATED] = 0.0
    out.illegal[b] = 0
    # The learner's action, then the opponents' until the learner must decide (in the next game if
    # this one ended).  One GAME_STEP in the loop, not one before it and one in it: the step is
    # inlined here, and a second call would compile the whole step twice.
    a = action
    learner = True
    while True:
        if a >= 0 or not learner:
            GAME_STEP(s, cfg, b, a, out, auto_reset)
            if out.illegal[b] != 0 or _record(b, seats, out, acc, auto_reset, rotate):
                return
        learner = False
        if s.g[b, G_DONE] != 0 or s.g[b, G_DECIDER] == seats[b]:
            return
        p = s.g[b, G_DECIDER]
        a = GAME_POLICY(s, cfg, b, out.mask[b], opponents[b, p])


def _play_turns_range(s, cfg, actions, seats, opponents, out, acc, auto_reset, rotate, lo, hi):
    """Learner action (or NO_ACTION) then opponent play, for games ``lo .. hi-1``.

    ``acc[b] = (learner reward since its last decision, terminated, truncated)``."""
    for b in range(lo, hi):
        PLAY_TURN(s, cfg, b, actions[b], seats, opponents, out, acc, auto_reset, rotate)


def _play_games_range(s, cfg, policies, out, results, lo, hi):
    """Play games ``lo .. hi-1`` to the end with built-in policy ``policies[b, p]`` in seat ``p``;
    ``results[b, p]`` adds up each player's rewards."""
    for b in range(lo, hi):
        PLAY_GAME(s, cfg, b, policies, out, results)


def _play_game(s, cfg, b, policies, out, results):
    """Game ``b`` to the end (see play_games)."""
    while s.g[b, G_DONE] == 0:
        p = s.g[b, G_DECIDER]
        a = GAME_POLICY(s, cfg, b, out.mask[b], policies[b, p])
        out.illegal[b] = 0
        GAME_STEP(s, cfg, b, a, out, False)
        if out.illegal[b] != 0:
            break
        for q in range(results.shape[1]):
            results[b, q] += out.rewards[b, q]
        if out.trunc[b]:
            break


def _policy_actions_range(s, cfg, masks, policy, actions, lo, hi):
    """What built-in ``policy`` would play now in games ``lo .. hi-1``."""
    for b in range(lo, hi):
        actions[b] = GAME_POLICY(s, cfg, b, masks[b], policy)


def source_digest(modules) -> str:
    """The digest of the packages of ``modules`` and of this one: the loops run the game's step, and
    Numba would keep their machine code after an edit of any module that step calls."""
    h = hashlib.sha1()
    directories = {os.path.dirname(os.path.abspath(__file__))}
    directories |= {os.path.dirname(os.path.abspath(inspect.getfile(m))) for m in modules}
    for directory in sorted(directories):
        h.update(package_digest(directory).encode())
    return h.hexdigest()[:10]


def copy_template(template, tag, names, **jit):
    """``template`` compiled as a kernel whose globals ``names`` replace (the game's functions and
    constants), under a name carrying ``tag`` (its own cache file): ranges.py uses it too."""
    g = dict(template.__globals__)
    g.update(names)
    fn = types.FunctionType(template.__code__, g, template.__name__, template.__defaults__, template.__closure__)
    fn.__qualname__ = f"{template.__name__}_{tag}"  # its own cache file
    fn.__doc__ = template.__doc__
    return kernel(cache=True, **jit)(fn)


def specialise_loops(game: str, step_game, scripted_action, g_done: int, g_decider: int, sources,
                     policies: dict) -> types.SimpleNamespace:
    """The compiled loops of one game and their Python front ends.  ``scripted_action(s, cfg, b,
    mask)``: the game's scripted bot; ``sources``: the modules whose code the loops run (the game's
    rules and bot): the loops recompile when any kernel module of their packages changes;
    ``policies``: the game's built-in policies by name, ``RANDOM`` and ``SCRIPTED`` among them."""
    if sorted(set(policies.values())) != [RANDOM, SCRIPTED]:
        raise ValueError(f"{game}: built-in policies are RANDOM ({RANDOM}) and SCRIPTED ({SCRIPTED}), got {policies}")
    tag = f"{game}_{source_digest(sources)}"
    names = {"GAME_STEP": step_game, "GAME_SCRIPTED": scripted_action, "G_DONE": g_done, "G_DECIDER": g_decider}
    names["GAME_POLICY"] = policy_action = copy_template(_policy_action, tag, names)
    # inlined into the range kernels (Numba IR), so that each loop is one compiled module
    names["PLAY_TURN"] = copy_template(_play_turn, tag, names, inline="always")
    names["PLAY_GAME"] = copy_template(_play_game, tag, names, inline="always")
    ranges = types.SimpleNamespace(
        play_turns=copy_template(_play_turns_range, tag, names, nogil=True),
        play_games=copy_template(_play_games_range, tag, names, nogil=True),
        policy_actions=copy_template(_policy_actions_range, tag, names, nogil=True),
    )

    def play_turns(states, cfgs, actions, seats, opponents, outs, acc, auto_reset, rotate):
        """Learner action (or NO_ACTION) then opponent play, for every game, on every thread
        (threads.run_in_ranges).  ``states``/``cfgs``/``outs`` hold one struct per thread (see
        VecGame.kernel_args); ``acc[b] = (learner reward since its last decision, terminated,
        truncated)``."""
        run_in_ranges(ranges.play_turns, actions.shape[0], lambda t: (
            states[t], cfgs[t], actions, seats, opponents, outs[t], acc, auto_reset, rotate))

    def play_games(states, cfgs, policies, outs, results, serial_below=SERIAL_BELOW):
        """Play every game to the end with built-in policy ``policies[b, p]`` in seat ``p``;
        ``results[b, p]`` adds up each player's rewards.  ``serial_below``: fewer games than this are
        played in the calling thread (threads.run_in_ranges; the search's rollouts split from 2)."""
        run_in_ranges(ranges.play_games, policies.shape[0], lambda t: (states[t], cfgs[t], policies, outs[t], results),
                      serial_below)

    def policy_actions_kernel(states, cfgs, masks, policy, actions):
        run_in_ranges(ranges.policy_actions, actions.shape[0], lambda t: (states[t], cfgs[t], masks, policy, actions))

    kernels = types.SimpleNamespace(play_turns=play_turns, play_games=play_games, policy_actions=policy_actions_kernel)

    def policy_id(policy) -> int:
        if isinstance(policy, (int, np.integer)) and int(policy) in policies.values():
            return int(policy)
        if policy in policies:
            return policies[policy]
        raise ValueError(f"unknown built-in policy {policy!r} for {game}; choose from {sorted(policies)}")

    def policy_actions(*args):
        """What a built-in policy would play now in every game.

        ``policy_actions(core, policy)`` returns the actions for a ``VecGame`` (``policy`` a
        name or id); ``policy_actions(states, cfgs, masks, policy, actions)`` is the compiled
        kernel, over ``core.kernel_args()``."""
        if len(args) == 2:
            core, policy = args
            actions = np.zeros(core.num_envs, dtype=np.int64)
            states, cfgs, _ = core.kernel_args()
            kernels.policy_actions(states, cfgs, core.mask, policy_id(policy), actions)
            return actions
        kernels.policy_actions(*args)
        return args[4]

    def play(core, seat_policies) -> np.ndarray:
        """Play every game of ``core`` to the end; ``seat_policies`` is one policy (name or id)
        for every seat, a list with one per seat, or a ``(B, players)`` array.  Returns each
        player's summed rewards, ``(B, players)``."""
        B, P = core.num_envs, core.num_players
        if isinstance(seat_policies, (str, int, np.integer)):
            seat_policies = [seat_policies] * P
        rows = seat_policies if np.ndim(seat_policies) == 2 else [seat_policies]
        ids = np.array([[policy_id(x) for x in row] for row in rows], dtype=np.int64)
        # a writable C-ordered copy: a (B, P) array given as is would come back from broadcast_to
        # read-only, and another layout or a read-only array is another signature, so the loops
        # would be compiled again beside those `wargym compile` made
        ids = np.array(np.broadcast_to(ids, (B, P)), order="C")
        results = np.zeros((B, P), dtype=np.float64)
        states, cfgs, outs = core.kernel_args()
        kernels.play_games(states, cfgs, ids, outs, results)
        core.refresh()
        return results

    return types.SimpleNamespace(play_turns=kernels.play_turns, play_games=kernels.play_games,
                                 policy_actions=policy_actions, play=play, policy_id=policy_id,
                                 policy_action=policy_action, scripted_action=scripted_action,
                                 ranges=ranges)  # the compiled range kernels themselves
