"""Search bots over the compiled core, written once for every game through the game contract.

``FlatSearch`` is Monte Carlo policy improvement of a built-in policy (Tesauro and Galperin 1996,
"On-line policy improvement using Monte-Carlo search"), with sequential halving at the root
(Karnin, Koren and Somekh 2013):

* the *rollout policy* (the game's scripted bot by default) proposes its move in each position;
* every other legal move is compared with it by *rollouts*: play the move, then play the game to
  its end (or ``depth`` decisions) with the rollout policy in every seat; the j-th rollout of every
  move gets the same dice (common random numbers), so each comparison is a paired one;
* the budget is split over ``ceil(log2(moves))`` rounds; after each round the better half of the
  other moves (by mean gain over the bot's move) stays;
* the move played is the last survivor if its mean gain is clearly positive (more than
  ``confidence`` standard errors above 0), else the bot's own move.

So at a small budget the search plays like its rollout policy and at a larger one it leaves it
wherever the rollouts show a better move: a plain flat search, which picks the best mean, played
worse than the scripted bot in UnionWars at 16 simulations (3 wins in 20), because with a few noisy
rollouts per move its best mean is close to a random move.

Why this shape: every simulation of a round, for every position searched, runs in one call of the
compiled kernels (``step_range`` for the first move, ``play_games`` for the rollouts), so the search
costs the kernels' speed, not Python's, and searching for hundreds of arena games at once costs
hardly more calls than searching for one.  It adds no compiled code of its own.

Chance: each simulation draws its dice from its own stream (the ``rng`` and ``policy_rng`` words of
its copy of the game come from the searcher's generator; scripted dice are dropped), so rollouts
sample the game's dice and never replay the real game's future.

Hidden information: a game whose state holds what the player to move cannot see (Battle Force's
hands and decks) declares ``HIDDEN_INFORMATION = True`` and gives ``determinise(cfg, state, rows,
players, seeds)``, which replaces in place whatever each player cannot see by a sample consistent
with what it sees.  The search then never plays from the true state: the bot's proposal is made in
one such sample, and every simulation plays out a sample of its own (the j-th simulation of every
move the same one, as with the dice), so the search decides over the player's information set
(determinised Monte Carlo; Cowling, Powley and Whitehouse 2012).  Two positions that differ only
in what the player cannot see give the same samples, hence the same move.  A hidden-information
game without ``determinise`` is refused.  Talon and Planetoids show both players everything;
UnionWars shows the table, but at an exploration-bank question the step's snapshot has fixed the
dice after the asked roll, which its ``determinise`` samples (envs/union_wars/information.py).

Budgets: ``simulations`` a decision (reproducible under a seed), or ``milliseconds`` a call
(passes of sequential halving with twice the simulations each, while the next fits in time).

``TreeSearch`` grows a tree over the same batched simulations: open-loop Monte Carlo tree search
(UCT with a prior, as in PUCT: Silver et al. 2017; open loop: a node is the sequence of moves from
the root, not a state, so that chance and sampled hidden cards need no chance nodes: each simulation
plays its own dice and its own sample down the tree; Perez Liebana et al. 2015).  Every node keeps,
per move, how often it was chosen and the sum of the values the simulations through it brought the
player who chose it; a simulation descends by ``q + c * prior * sqrt(visits) / (1 + n)`` among the
moves legal in *its* copy of the game, the prior being the rollout policy's move (``prior`` of the
mass, the rest shared evenly; an untried move's q is the node's mean less FPU_REDUCTION), steps into
the first node fewer than ``expand_after`` simulations have reached, and plays the rollout policy
from there.  The simulations of a
level, for every position searched, descend together: one call of the compiled step over all of them
and one of the compiled policy for the priors, the rollouts one ``play_games``.

At the root, by default (``root="halving"``), the choice is FlatSearch's: every legal move paired
against the rollout policy's by sequential halving, the policy's move kept unless another is clearly
better; each root move's simulations descend a tree of its own below it.  With ``root="puct"`` the
tree's rule holds at the root too: waves of simulations of every position, a move chosen counting as
visited (at its q) until its simulation returns (a virtual visit), so that the simulations of one
position spread, and the most visited move is played.  Either way a root move that wins at once under
every one of a few dice samples is played without a search (decisive moves).  With a MaskablePPO
model the prior is the model's policy (AlphaZero's PUCT) and, optionally, its value head scores the
leaves instead of rollouts.
"""
from __future__ import annotations

import functools
import importlib
import math
import time

import numpy as np

from .options import MAX_DECISIONS
from ...registration import game_key
from .vec import VecGame


DEFAULT_SIMULATIONS = 64   # the search bot's budget where none is given (arena "search", serve level 10)
# a rollout's most decisions where no depth is given: whole games of the scripted bots take 400-2,100
# (Talon 478, UnionWars 571, Planetoids 2,088); a longer one is cut and scored by the lead
ROLLOUT_LIMIT = 20_000
FIRST_PASS = 4             # with a budget in milliseconds: the simulations of the first pass
MAX_SIMULATIONS = 1 << 16
# a batch of rollouts is cut over the threads from this many (threads.run_in_ranges): a rollout is a
# whole game, milliseconds (UnionWars: 8 rollouts, 99 ms in one thread), the threads' wake-up microseconds
ROLLOUTS_SPLIT_FROM = 2
SEARCH = "search"          # the flat search bot's name where a policy is named (arena, opponents, teachers)
MCTS = "mcts"              # the tree search bot's name
SEARCH_NAMES = (SEARCH, MCTS)
MAX_SPEC_SIMULATIONS, MAX_SPEC_MILLISECONDS = 4096, 60_000
FPU_REDUCTION = 0.2        # the tree search: an untried move's value, below the node's mean (first-play urgency)
DECISIVE_SAMPLES = 4       # the tree search: samples of each root move's dice that must all win at once
DECISIVE_BATCH = 1024      # root moves tried in one batched step
# the tree search anchored on a shipped agent (mcts:N@BASELINE): standard errors a root move's gain over
# the agent's move must clear.  The gains of a few paired win/loss rollouts are coarse, so a looser
# bar overrules a move better than the scripted bot's on noise: UnionWars at 16 simulations, 2.0 won
# 67 of 100 games against the scripted bot, 3.0 won 78, and 149 of 200 where the network alone won 150
# on the same seeds (it leaves the network's move in about 2 % of decisions; README, Search bot); over the
# 3 candidates below, 305 of 400 (76.25 %) where the network alone won 299, leaving it in 0.5 %
ANCHOR_CONFIDENCE = 3.0
ANCHOR_MARK = "@"
# ... and how many of the agent's most likely moves its root compares (the agent's own included): the
# agent's policy puts 77 % of its mass on its first move, 96 % on its first three (UnionWars' ppo-pointer);
# at 16 simulations and 3 candidates UnionWars' move takes 88 ms (median, p90 105), at 4 100 ms (p90 126),
# at every legal move 98 ms but p90 460 ms (a rollout or two to each of up to 140 deployment spots)
ANCHOR_CANDIDATES = 3
EXPAND_AFTER = 4           # the tree search: simulations through a node before its moves are chosen by the tree


def _bot_name(spec: str) -> str:
    return spec.partition(ANCHOR_MARK)[0].split(":")[0].strip()


def is_search_spec(spec) -> bool:
    """``spec`` names a search bot: ``search`` (flat) or ``mcts`` (tree), alone, ``:N`` or ``:Nms``,
    the tree search optionally anchored on a shipped agent (``mcts:N@BASELINE``)."""
    return isinstance(spec, str) and _bot_name(spec) in SEARCH_NAMES


def is_tree_spec(spec) -> bool:
    """``spec`` names the tree search (``mcts``, ``mcts:N``, ``mcts:Nms``, any of them ``@BASELINE``)."""
    return is_search_spec(spec) and _bot_name(spec) == MCTS


def spec_anchor(spec: str) -> str | None:
    """The shipped agent a search spec anchors its root on (``mcts:16@ppo-pointer``: ``ppo-pointer``),
    or None.  Only the tree search takes one; a name must be given after the ``@``."""
    head, mark, anchor = spec.partition(ANCHOR_MARK)
    if not mark:
        return None
    if _bot_name(head) != MCTS:
        raise ValueError(f"{spec!r}: only the tree search (mcts) is anchored on a shipped agent (mcts:N@BASELINE)")
    if not anchor.strip():
        raise ValueError(f"{spec!r}: name the shipped agent after the '@' (wargym.baselines.available)")
    return anchor.strip()


def check_anchor(spec: str, game) -> str | None:
    """``spec_anchor``, refused unless ``game`` ships an agent of that name (read from the index: no
    model is loaded)."""
    anchor = spec_anchor(spec)
    if anchor is not None:
        from ... import baselines
        try:
            baselines.describe(game_key(game), anchor)
        except KeyError as e:
            raise ValueError(f"{spec!r}: {e.args[0]}") from None
    return anchor


def anchor_model_for(game, anchor: str, options: dict | None):
    """The shipped agent ``anchor`` of ``game`` as a model (loaded once a process), refused unless it
    plays ``options`` (the observation and actions of the game it was trained on)."""
    from ... import baselines
    key = game_key(game)
    trained = dict(baselines.describe(key, anchor).get("options") or {})
    model = _shipped_model(key, anchor)
    core = VecGame(game, 1, options)
    sizes = ((core.obs[0].size,), core.num_actions)
    if (tuple(model.observation_space.shape), getattr(model.action_space, "n", None)) != sizes:
        raise ValueError(f"the shipped agent {anchor!r} of {key} plays the game with the options {trained} "
                         f"(observations {tuple(model.observation_space.shape)}, {model.action_space.n} actions); "
                         f"these options give {sizes[0]} and {sizes[1]}: play with its options")
    return model


@functools.lru_cache(maxsize=4)
def _shipped_model(game_key: str, name: str):
    from ... import baselines
    return baselines.load(game_key, name)


def parse_budget(spec: str) -> tuple[int, float | None]:
    """The budget a search spec names: ``search`` (DEFAULT_SIMULATIONS a decision), ``search:N``
    (N simulations, 1..4096) or ``search:Nms`` (N milliseconds, 1..60000, passes from FIRST_PASS
    simulations), the same for ``mcts``: (simulations, milliseconds or None).  Anything else raises
    ValueError."""
    spec_anchor(spec)
    budget = spec.partition(ANCHOR_MARK)[0].partition(":")[2].strip()
    if not budget:
        return DEFAULT_SIMULATIONS, None
    if budget.endswith("ms") and budget[:-2].isdigit() and 1 <= int(budget[:-2]) <= MAX_SPEC_MILLISECONDS:
        return FIRST_PASS, float(budget[:-2])
    if not budget.isdigit() or not 1 <= int(budget) <= MAX_SPEC_SIMULATIONS:
        raise ValueError(f"{spec!r}: give the search's budget a decision as search:N (N simulations, "
                         f"1..{MAX_SPEC_SIMULATIONS}) or search:Nms (N milliseconds, 1..{MAX_SPEC_MILLISECONDS})")
    return int(budget), None


def searcher_for(spec: str, game, options: dict | None = None, seed: int = 0, **tree) -> "FlatSearch":
    """The search bot a spec names, for ``game`` with ``options`` (refused where it cannot play);
    ``tree``: TreeSearch's own parameters (``root``, ``model``, ...), for an ``mcts`` spec only;
    ``mcts...@BASELINE``: the shipped agent as ``anchor_model``, its departures at ANCHOR_CONFIDENCE."""
    simulations, milliseconds = parse_budget(spec)
    anchor = check_anchor(spec, game)
    if anchor is not None:
        tree = {"anchor_model": anchor_model_for(game, anchor, options), "confidence": ANCHOR_CONFIDENCE,
                "candidates": ANCHOR_CANDIDATES, **tree}
    if is_tree_spec(spec):
        return TreeSearch(game, options, simulations, seed=seed, milliseconds=milliseconds, **tree)
    if tree:
        raise ValueError(f"{spec!r} is the flat search; {', '.join(sorted(tree))} belong to the tree search (mcts)")
    return FlatSearch(game, options, simulations, seed=seed, milliseconds=milliseconds)


def has_hidden_information(game) -> bool:
    return bool(getattr(game, "HIDDEN_INFORMATION", False))


def searchable(game) -> bool:
    """The search can play ``game`` without reading hidden state: nothing is hidden, or the game
    samples what is (``determinise``)."""
    return not has_hidden_information(game) or callable(getattr(game, "determinise", None))


def decisions_column(game) -> int:
    """The state's ``g`` column that counts decisions (what ``max_decisions`` truncates on)."""
    rules = getattr(game, "rules", None) or importlib.import_module(game.__name__.rpartition(".")[0] + ".rules")
    return int(rules.G_DECISIONS)


class FlatSearch:
    """Chooses moves by Monte Carlo policy improvement of a built-in policy (see the module's text).

    ``simulations``: rollouts per decision, about (its budget: at least one per move and round,
    the bot's move included; a forced move costs none).
    ``rollout``: the built-in policy every seat plays in the rollouts (a name of ``bot.POLICIES``).
    ``seed``: the searcher's own generator (the rollouts' dice): same seed, same choices.
    ``depth``: cut rollouts off after this many decisions and score them by the lead in
    ``game.scores`` (0: play to the end, or ROLLOUT_LIMIT decisions; None: the game's
    ``SEARCH_DEPTH``, to the end where it has none; UnionWars scores only the winner, so there a cut
    rollout is blind).
    ``confidence``: how many standard errors a move's mean gain over the bot's must clear.
    ``milliseconds``: a budget in time instead (a call of ``choose`` / ``search``, for all the games
    it searches at once): passes of sequential halving, the first of ``simulations`` simulations,
    each next one twice as many, their statistics pooled, while the next pass is expected to end in
    time (it takes about twice the last; the first always runs).  Its moves depend on the machine's
    speed, so they are not reproducible; a budget in simulations is.
    ``opponent``: the built-in policy the other seats play in the rollouts (None: ``rollout``), the
    search's model of its opponents; the flat search only (the tree search's rollouts value every seat).
    Talon against random: modelled as random, 91-9-0 in 100 games at 8 simulations; as the scripted bot,
    94-6-0 (README, Known limits)."""

    def __init__(self, game, options: dict | None = None, simulations: int = DEFAULT_SIMULATIONS,
                 rollout: str = "scripted", seed: int = 0, depth: int | None = None, confidence: float = 1.0,
                 milliseconds: float | None = None, opponent: str | None = None):
        if not searchable(game):
            raise ValueError(f"{game.NAME}: its players hold hidden information and the game gives no "
                             "determinise() to sample it, so the search would read it")
        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) \
                or not 1 <= simulations <= MAX_SIMULATIONS:
            raise ValueError(f"simulations must be an int in 1..65536, got {simulations!r}")
        if depth is None:
            depth = getattr(game, "SEARCH_DEPTH", None)
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer))
                                  or not 0 <= depth <= 1 << 20):
            raise ValueError(f"depth must be None (the game's own), 0 (play to the end) or an int in 1..1048576, "
                             f"got {depth!r}")
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 10:
            raise ValueError(f"confidence must be a number of standard errors in 0..10, got {confidence!r}")
        if milliseconds is not None and (isinstance(milliseconds, bool) or not isinstance(milliseconds, (int, float))
                                         or not 0 < milliseconds <= 600_000):
            raise ValueError(f"milliseconds must be None or a number in (0, 600000], got {milliseconds!r}")
        if rollout not in game.bot.POLICIES:
            raise ValueError(f"unknown rollout policy {rollout!r}: {', '.join(game.bot.POLICIES)}")
        self.game = game
        self.options = dict(options or {})
        self.simulations = int(simulations)
        self.rollout = int(game.bot.POLICIES[rollout])
        if opponent is not None and opponent not in game.bot.POLICIES:
            raise ValueError(f"unknown opponent policy {opponent!r}: {', '.join(game.bot.POLICIES)}")
        self.opponent = None if opponent is None else int(game.bot.POLICIES[opponent])
        self.depth = None if not depth else int(depth)
        self.confidence = float(confidence)
        self.milliseconds = None if milliseconds is None else float(milliseconds)
        self.rng = np.random.default_rng(seed)
        self.decided = self.departed = 0       # roots the halving root decided (forced ones too), and moves that left its anchor
        self._give_up_at: float | None = None
        self._determinise = game.determinise if has_hidden_information(game) else None
        self._cores: dict[int, VecGame] = {}   # simulation batches, by capacity (powers of two)
        # a rollout is cut off after ``depth`` decisions (or ROLLOUT_LIMIT: a game the rollout policy
        # might never end, such as two Battle Force bots passing forever, must not hang the search) by
        # the game's own truncation (max_decisions): its copy's decision count is set that far below it
        self._cut_after = self.depth if self.depth is not None else ROLLOUT_LIMIT
        self._decisions_col = decisions_column(game)
        self._sim_options = {**self.options, "max_decisions": MAX_DECISIONS}

    # -- the batches of simulations ------------------------------------------------------------
    def _core(self, n: int) -> VecGame:
        capacity = 1 << max(6, math.ceil(math.log2(n)))
        core = self._cores.get(capacity)
        if core is None:
            core = self._cores[capacity] = VecGame(self.game, capacity, self._sim_options)
            core.has_games = True  # its games are written by _simulate, never reset
        return core

    def _simulate(self, roots, root_of: np.ndarray, first: np.ndarray, dice: np.ndarray,
                  players_of: np.ndarray) -> np.ndarray:
        """One rollout per row: copy root ``root_of[i]``, give it the dice stream ``dice[i]`` (two
        words: the rules' and the policies'), play ``first[i]``, then the rollout policy to the
        end (or ``depth`` decisions); the result for the root's player to move, ``players_of``."""
        n = len(root_of)
        players = players_of[root_of]
        core = self._core(n)
        rows = np.arange(n)
        core.state.assign(rows, roots.select(root_of))
        st = core.state
        st.rng[rows], st.policy_rng[rows] = dice[:, 0], dice[:, 1]
        st.dice[rows] = 0  # scripted dice (tests) are the real game's, not the rollouts'
        if self._determinise is not None:   # the hidden cards of this simulation's sample
            self._determinise(core.cfg, st, rows, players, dice[:, 0] >> np.uint64(1))
        limit = self.options.get("max_decisions", 0)
        done = st.g[rows, self._decisions_col].astype(np.int64)
        left = np.full(n, self._cut_after) if not limit else np.minimum(self._cut_after, limit - done)
        st.g[rows, self._decisions_col] = MAX_DECISIONS - left
        core.obs_key[rows, 0] = 0  # written from here: the kernels rewrite the whole observation
        actions = np.zeros(core.num_envs, dtype=np.int64)
        actions[:n] = first
        active = np.zeros(core.num_envs, dtype=np.bool_)
        active[:n] = True
        core.step(actions, active=active)
        value = core.rewards[rows, players].astype(np.float64)
        policies = np.full((n, core.num_players), self.rollout if self.opponent is None else self.opponent,
                           dtype=np.int64)
        policies[np.arange(n), players] = self.rollout
        results = np.zeros((n, core.num_players), dtype=np.float64)
        states, cfgs, outs = core.kernel_args()
        self.game.bot.play_games(states, cfgs, policies, outs, results, ROLLOUTS_SPLIT_FROM)
        value += results[rows, players]
        # a rollout cut off (depth, ROLLOUT_LIMIT or the game's own max_decisions) is worth its lead
        cut = np.flatnonzero(~self.game.done(st)[:n].astype(bool))
        value[cut] += [self._lead(st, b, players[b]) for b in cut]
        return value

    def _rollout_moves(self, roots, masks: np.ndarray, players: np.ndarray) -> np.ndarray:
        """What the rollout policy plays in each root (on a copy: its own dice are not consumed)."""
        n = roots.batch_size
        core = self._core(n)
        core.state.assign(np.arange(n), roots)
        core.mask[:n] = masks
        if self._determinise is not None:   # the bot proposes in a sample, not from the hidden cards
            words = self.rng.integers(0, 1 << 63, (n, 3), dtype=np.uint64)
            core.state.rng[:n], core.state.policy_rng[:n] = words[:, 0], words[:, 1]
            self._determinise(core.cfg, core.state, np.arange(n), players, words[:, 2])
        moves = np.zeros(n, dtype=np.int64)
        states, cfgs, _ = core.kernel_args()
        self.game.bot.policy_actions(states, cfgs, core.mask[:n], self.rollout, moves)
        return moves

    def _root_moves(self, roots, masks: np.ndarray, players: np.ndarray) -> tuple[np.ndarray, list]:
        """Per root, the move the others must beat to be played (the rollout policy's) and the others
        (every other legal move, in action order)."""
        own = self._rollout_moves(roots, masks, players)
        return own, [np.flatnonzero(m)[np.flatnonzero(m) != a] for a, m in zip(own, masks)]

    def _lead(self, state, b: int, player: int) -> float:
        """What a rollout cut off before the end is worth to ``player``: its lead in the game's
        scores (``game.scores``: ship points, base points), as a fraction in (-1, 1)."""
        scores = np.asarray(self.game.scores(state, b), dtype=np.float64)
        mine, theirs = scores[player], np.delete(scores, player).max()
        return float((mine - theirs) / (abs(mine) + abs(theirs) + 1.0))

    # -- the search ------------------------------------------------------------------------------
    def choose(self, core: VecGame, rows=None) -> np.ndarray:
        """The searched move of the player to move in each game ``rows`` of ``core`` (default all);
        the games must not be over.  ``core`` is only read."""
        rows = np.arange(core.num_envs) if rows is None else np.atleast_1d(np.asarray(rows, dtype=np.int64))
        return self.search(core.clone_state(rows), core.mask[rows], core.current_player[rows])

    def search(self, roots, masks: np.ndarray, players: np.ndarray, seed: int | None = None,
               give_up_at: float | None = None) -> np.ndarray:
        """``choose`` on copies: the games ``roots`` (a ``clone_state``), their masks and the player
        to move in each (what a server's thinker thread searches while the match goes on).
        ``seed``: restart the searcher's generator first (the server: the same request, the same move).
        ``give_up_at``: a ``time.monotonic()`` past which the answer is no longer wanted (the server's
        time limit): the search raises TimeoutError at its next round instead of going on, so that a
        thought nobody waits for stops taking the cores from those that are awaited."""
        start = time.perf_counter()
        masks, players = self._begin(roots, masks, players, seed, give_up_at)
        own, others = self._root_moves(roots, masks, players)
        stats = [np.zeros((3, len(o))) for o in others]    # per other move: n, sum and sum of squares of gains
        budget = self.simulations
        while True:
            began = time.perf_counter()
            self._halving(roots, players, own, others, stats, budget)
            if self.milliseconds is None or 2 * budget > MAX_SIMULATIONS:
                break
            now = time.perf_counter()
            if now + 2 * (now - began) > start + self.milliseconds / 1000:
                break
            budget *= 2
        moves = np.array([self._decide(own[r], others[r], stats[r]) for r in range(len(others))], dtype=np.int64)
        self.decided += len(moves)                  # how often the search overrules its anchor, for the reports
        self.departed += int((moves != np.asarray(own)).sum())
        return moves

    def _begin(self, roots, masks, players, seed, give_up_at):
        """A search's start: its deadline, its generator (restarted by ``seed``), the masks and players
        as arrays; refuses a game that is over."""
        self._give_up_at = give_up_at
        self._check_time()
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        masks = np.asarray(masks).astype(bool).reshape(roots.batch_size, -1)
        players = np.asarray(players, dtype=np.int64).reshape(roots.batch_size)
        if not masks.any(axis=1).all():
            raise ValueError("a game to search is over (no legal action)")
        return masks, players

    def _halving(self, roots, players, own, others, stats, simulations: int) -> None:
        """One pass of sequential halving with ``simulations`` a position, its gains added to ``stats``."""
        alive = [np.arange(len(o)) for o in others]
        rounds = max(1, math.ceil(math.log2(max(len(o) for o in others) + 1)))
        per_round = max(1, simulations // rounds)
        for _ in range(rounds):
            self._check_time()
            searched = [r for r in range(len(others)) if len(alive[r])]
            if not searched:
                break
            plans = [self._plan(r, own[r], others[r][alive[r]], per_round) for r in searched]
            values = self._simulate(roots, *(np.concatenate(x) for x in zip(*plans)), players_of=players)
            start = 0
            for r, (root_of, _, _) in zip(searched, plans):
                v = values[start:start + len(root_of)].reshape(len(alive[r]) + 1, -1)
                start += len(root_of)
                gain = v[1:] - v[0]                      # each move against the bot's, dice for dice
                stats[r][0, alive[r]] += gain.shape[1]
                stats[r][1, alive[r]] += gain.sum(axis=1)
                stats[r][2, alive[r]] += (gain ** 2).sum(axis=1)
                mean = stats[r][1, alive[r]] / stats[r][0, alive[r]]
                keep = len(alive[r]) // 2                # the better half stays (one, once two are left)
                alive[r] = alive[r][np.argsort(-mean, kind="stable")[:keep]] if keep else alive[r][:0]

    def _check_time(self) -> None:
        if self._give_up_at is not None and time.monotonic() > self._give_up_at:
            raise TimeoutError("the search's answer is no longer wanted (give_up_at has passed)")

    def _plan(self, r: int, own: int, moves: np.ndarray, per_round: int):
        """One round's simulations of root ``r``: the bot's move and every surviving move ``k``
        times each, the j-th simulation of every move with the same dice (common random numbers)."""
        k = max(1, per_round // (len(moves) + 1))
        first = np.repeat(np.concatenate(([own], moves)), k)
        streams = self.rng.integers(0, 1 << 63, (k, 2), dtype=np.uint64)
        return np.full(len(first), r), first, streams[np.tile(np.arange(k), len(moves) + 1)]

    def _decide(self, own: int, others: np.ndarray, stats: np.ndarray) -> int:
        """The move with the best mean gain over the bot's, if that gain is clear (more than
        ``confidence`` standard errors above 0); else the bot's own move."""
        n, total, squares = stats
        tried = np.flatnonzero(n > 0)
        if not len(tried):
            return int(own)
        mean = total[tried] / n[tried]
        spread = np.sqrt(np.maximum(squares[tried] / n[tried] - mean ** 2, 0.0) / np.maximum(n[tried] - 1, 1))
        lower = mean - self.confidence * spread
        # the best mean among the moves tried most (the last round's survivors)
        best = tried[n[tried] == n[tried].max()]
        pick = best[np.argmax(total[best] / n[best])]
        i = int(np.flatnonzero(tried == pick)[0])
        return int(others[pick]) if lower[i] > 0 else int(own)


def policy_probabilities(model, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A MaskablePPO model's probability of each action (0 where ``masks`` forbids it), a row per
    observation: its policy, as the tree search's prior and the anchor's candidates read it."""
    import torch
    policy = model.policy
    with torch.no_grad():
        dist = policy.get_distribution(policy.obs_to_tensor(obs)[0], action_masks=np.asarray(masks, dtype=bool))
        return dist.distribution.probs.cpu().numpy().astype(np.float64)


class _Node:
    """A node of the open-loop tree (a sequence of moves from the root): per move, how often it was
    chosen (``n``) and the sum of the values its simulations brought the player who chose it (``w``);
    its children by move; how many simulations passed through it or ended in it (``visits``)."""
    __slots__ = ("visits", "n", "w", "children")

    def __init__(self, num_actions: int):
        self.visits = 0
        self.n = np.zeros(num_actions)
        self.w = np.zeros(num_actions)
        self.children: dict[int, _Node] = {}


class TreeSearch(FlatSearch):
    """Open-loop Monte Carlo tree search with the rollout policy as the prior (see the module's text).

    ``simulations``: simulations a decision (a forced move costs none); ``wave``: how many of them,
    for each position, descend together (default: about the square root of the budget).
    ``exploration``: the constant ``c`` of the descent's rule; ``prior``: the share of the prior mass
    on the rollout policy's move (the rest shared evenly among the other legal moves).
    ``rollout``, ``seed``, ``depth``, ``milliseconds``: as for ``FlatSearch`` (with a budget in time,
    waves of ``simulations`` while the next is expected to end in time; the first always runs).
    ``root``: how the move is chosen at the root: ``"halving"`` (default) as FlatSearch does (every
    legal move against the rollout policy's, paired simulations, sequential halving, the policy's move
    kept unless another's gain is ``confidence`` standard errors above 0), each root move's
    simulations descending a tree of its own below it; ``"puct"`` the tree's own rule at the root
    too, in waves, and the most visited move.
    ``expand_after``: simulations that must have reached a node below the root before the next ones
    choose their moves there by the tree's rule; until then they play the rollout policy from it (so
    that at a small budget the paired simulations of the halving root stay paired: every root move's
    continuation is the rollout policy's, as in FlatSearch).
    ``model``: a MaskablePPO model of the game (``wargym-train``'s, ``baselines.load``'s): its policy
    over the legal moves is the prior instead (PUCT as in AlphaZero), evaluated for every node of a
    level of the wave in one batch; with ``leaf="value"`` its value head scores the leaves instead of
    a rollout (the value of the player to move there, clipped to [-1, 1]; the others get its
    opposite shared among them), else the rollout policy plays them out.
    ``anchor_model``: a MaskablePPO model whose most likely move is, with ``root="halving"``, the move
    every other root move is measured against and kept unless one beats it clearly (None: the rollout
    policy's): a search that improves on the network where it finds better, instead of on the
    scripted bot; the rollouts and the trees stay the rollout policy's (UnionWars: README, Search bot).
    ``candidates``: with ``anchor_model``, how many of its most likely moves the root compares (the
    anchor's own included; None: every legal move), so that the budget goes to the moves the network
    finds plausible instead of a rollout or two to each of forty (PUCT's prior, as a hard cut)."""

    def __init__(self, game, options: dict | None = None, simulations: int = DEFAULT_SIMULATIONS,
                 rollout: str = "scripted", seed: int = 0, depth: int | None = None,
                 milliseconds: float | None = None, exploration: float = 1.0, prior: float = 0.8,
                 wave: int | None = None, model=None, leaf: str = "rollout", root: str = "halving",
                 confidence: float = 1.0, expand_after: int = EXPAND_AFTER, anchor_model=None,
                 candidates: int | None = None):
        super().__init__(game, options, simulations, rollout=rollout, seed=seed, depth=depth,
                         milliseconds=milliseconds, confidence=confidence)
        if root not in ("halving", "puct"):
            raise ValueError(f"root must be 'halving' or 'puct', got {root!r}")
        for name, given in (("model", model), ("anchor_model", anchor_model)):
            if given is not None and not callable(getattr(getattr(given, "policy", None), "get_distribution", None)):
                raise ValueError(f"{name} must be a MaskablePPO model (wargym-train's, or baselines.load's)")
        if anchor_model is not None and root != "halving":
            raise ValueError("anchor_model needs root='halving' (the root that keeps its anchor unless beaten)")
        self.anchor_model = anchor_model
        if candidates is not None and (isinstance(candidates, bool) or not isinstance(candidates, (int, np.integer))
                                       or not 1 <= candidates <= MAX_SIMULATIONS):
            raise ValueError(f"candidates must be None or an int in 1..65536, got {candidates!r}")
        if candidates is not None and anchor_model is None:
            raise ValueError("candidates needs an anchor_model (whose most likely moves they are)")
        self.candidates = None if candidates is None else int(candidates)
        if isinstance(expand_after, bool) or not isinstance(expand_after, (int, np.integer)) \
                or not 1 <= expand_after <= MAX_SIMULATIONS:
            raise ValueError(f"expand_after must be an int in 1..65536, got {expand_after!r}")
        self.expand_after = int(expand_after)
        self.root = root
        self._subtrees: dict = {}
        self._root_masks = None
        if leaf not in ("rollout", "value"):
            raise ValueError(f"leaf must be 'rollout' or 'value', got {leaf!r}")
        if leaf == "value" and model is None:
            raise ValueError("leaf='value' needs a model, whose value head scores the leaves")
        self.model = model
        self.leaf = leaf
        for name, value, low, high in (("exploration", exploration, 0.0, 100.0), ("prior", prior, 0.0, 1.0)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValueError(f"{name} must be a number in [{low}, {high}], got {value!r}")
        if wave is not None and (isinstance(wave, bool) or not isinstance(wave, (int, np.integer))
                                 or not 1 <= wave <= MAX_SIMULATIONS):
            raise ValueError(f"wave must be None or an int in 1..65536, got {wave!r}")
        self.exploration = float(exploration)
        self.prior = float(prior)
        self.wave = int(wave) if wave is not None else max(1, math.isqrt(self.simulations))

    def search(self, roots, masks: np.ndarray, players: np.ndarray, seed: int | None = None,
               give_up_at: float | None = None) -> np.ndarray:
        """As ``FlatSearch.search``: the move of the player to move in each of ``roots``."""
        start = time.perf_counter()
        masks, players = self._begin(roots, masks, players, seed, give_up_at)
        searched = np.flatnonzero(masks.sum(axis=1) > 1)          # a forced move costs nothing
        decisive = self._decisive_moves(roots, masks, players, searched)
        if self.root == "halving":       # FlatSearch's root over the moves' own trees (_simulate)
            todo = np.flatnonzero(decisive < 0)
            if len(todo):
                self._subtrees, self._root_masks = {}, masks[todo]
                decisive[todo] = FlatSearch.search(self, roots.select(todo), masks[todo], players[todo],
                                                   give_up_at=give_up_at)
            return decisive
        searched = searched[decisive[searched] < 0]
        trees = self._root_trees = [_Node(masks.shape[1]) for _ in range(roots.batch_size)]
        done = 0
        while len(searched):
            began = time.perf_counter()
            k = min(self.wave, self.simulations - done) if self.milliseconds is None else self.wave
            self._wave(roots, masks, players, trees, searched, k)
            done += k
            if self.milliseconds is None:
                if done >= self.simulations:
                    break
            else:
                now = time.perf_counter()
                if done >= MAX_SIMULATIONS or now + (now - began) > start + self.milliseconds / 1000:
                    break
        return np.array([decisive[r] if decisive[r] >= 0 else self._most_visited(trees[r], masks[r])
                         for r in range(len(trees))], dtype=np.int64)

    def _root_moves(self, roots, masks: np.ndarray, players: np.ndarray) -> tuple[np.ndarray, list]:
        """With ``anchor_model``: per root, its most likely legal move, from the observation of its
        player to move (written from the state, as a restored game's is), and the moves to measure
        against it: with ``candidates``, the next ``candidates - 1`` most likely (those it gives any
        probability), else every other legal move.  Without: the rollout policy's (FlatSearch)."""
        if self.anchor_model is None:
            return super()._root_moves(roots, masks, players)
        n = roots.batch_size
        core = self._core(n)
        rows = np.arange(n)
        core.state.assign(rows, roots)
        core.refresh(rows)
        probs = policy_probabilities(self.anchor_model, core.obs[:n].reshape(n, -1), masks) * masks
        own = probs.argmax(axis=1)
        if self.candidates is None:
            return own, [np.flatnonzero(m)[np.flatnonzero(m) != a] for a, m in zip(own, masks)]
        likely = np.argsort(-probs, axis=1, kind="stable")[:, 1:self.candidates]
        return own, [row[(p[row] > 0) & m[row]] for row, p, m in zip(likely, probs, masks)]

    def visit_targets(self, core: VecGame, rows=None) -> tuple[np.ndarray, np.ndarray]:
        """Expert iteration's labels (Anthony, Tian & Barber 2017; AlphaZero): the searched move of the
        player to move in each game ``rows`` of ``core`` (as ``choose``) and, per game, the share of the
        root's simulations each legal move received, ``(rows, actions)`` float32 summing to 1: the
        search's improved policy, a soft target for the network whose prior it searched with.  A move
        played without a search (forced, or decisive) gets all of it.  Needs ``root="puct"``, whose
        visits follow the prior and the values; the halving root's shares follow its schedule."""
        if self.root != "puct":
            raise ValueError("visit_targets needs root='puct' (the halving root's visits follow its schedule)")
        rows = np.arange(core.num_envs) if rows is None else np.atleast_1d(np.asarray(rows, dtype=np.int64))
        masks = core.mask[rows].astype(bool)
        moves = self.search(core.clone_state(rows), masks, core.current_player[rows])
        visits = np.stack([tree.n for tree in self._root_trees]) * masks
        # a move played without a search (forced, decisive: no visits to it) is the whole target
        searched = visits[np.arange(len(moves)), moves] > 0
        targets = np.zeros(masks.shape, dtype=np.float32)
        targets[searched] = visits[searched] / visits[searched].sum(axis=1, keepdims=True)
        unsearched = np.flatnonzero(~searched)
        targets[unsearched, moves[unsearched]] = 1.0
        return moves, targets

    def _decisive_moves(self, roots, masks, players, searched: np.ndarray) -> np.ndarray:
        """Per root, a move that wins at once, or -1 (decisive moves: Teytaud and Teytaud 2010, "On the
        huge benefit of decisive moves in Monte-Carlo tree search").  Every legal move of every root
        searched is played DECISIVE_SAMPLES times, each with its own dice (and sample of the hidden
        cards), in one batched step; a move after which the game is over with the mover's reward
        positive and above every other player's in every sample is played without a tree (the first
        such, in action order).  A tree whose prior favours the scripted bot's move might otherwise
        not try it within a small budget."""
        found = np.full(roots.batch_size, -1, dtype=np.int64)
        pairs = [(r, a) for r in searched for a in np.flatnonzero(masks[r])]
        for start in range(0, len(pairs), DECISIVE_BATCH):
            chunk = pairs[start:start + DECISIVE_BATCH]
            root_of = np.repeat([r for r, _ in chunk], DECISIVE_SAMPLES)
            moves = np.repeat([a for _, a in chunk], DECISIVE_SAMPLES)
            core, rows = self._copies(roots, masks, players, root_of)
            actions = np.zeros(core.num_envs, dtype=np.int64)
            actions[rows] = moves
            active = np.zeros(core.num_envs, dtype=bool)
            active[rows] = True
            core.step(actions, active=active)
            mover = players[root_of]
            mine = core.rewards[rows, mover]
            others = core.rewards[rows].copy()
            others[rows, mover] = -np.inf
            wins = (core.terminated[rows] & (mine > 0) & (mine > others.max(axis=1)))
            wins = wins.reshape(-1, DECISIVE_SAMPLES).all(axis=1)
            for (r, a), won in zip(chunk, wins):
                if won and found[r] < 0:
                    found[r] = a
        return found

    def _copies(self, roots, masks, players, root_of: np.ndarray, dice: np.ndarray | None = None):
        """Copies of the roots ``root_of`` in the first rows of a simulation batch, each with dice of
        its own (and its own sample of what the player to move cannot see), to be played from the
        root's mask and player; their decision count set so that the game's own truncation cuts them
        after ``depth`` decisions (or ROLLOUT_LIMIT, or what the game's max_decisions leaves)."""
        n = len(root_of)
        core = self._core(n)
        rows = np.arange(n)
        st = core.state
        st.assign(rows, roots.select(root_of))
        words = self.rng.integers(0, 1 << 63, (n, 3), dtype=np.uint64)
        if dice is not None:               # the streams given (FlatSearch._plan: paired simulations)
            words[:, :2] = dice
        st.rng[rows], st.policy_rng[rows] = words[:, 0], words[:, 1]
        st.dice[rows] = 0
        if self._determinise is not None:
            # FlatSearch draws the sample from the rules' stream word: the j-th sims of all moves share it
            sample = words[:, 0] >> np.uint64(1) if dice is not None else words[:, 2]
            self._determinise(core.cfg, st, rows, players[root_of], sample)
        limit = self.options.get("max_decisions", 0)
        made = st.g[rows, self._decisions_col].astype(np.int64)
        left = np.full(n, self._cut_after) if not limit else np.minimum(self._cut_after, limit - made)
        st.g[rows, self._decisions_col] = MAX_DECISIONS - left
        core.obs_key[rows, 0] = 0
        core.mask[:n] = masks[root_of]
        core.current_player[:n] = players[root_of]
        core.terminated[:n] = core.truncated[:n] = False
        return core, rows

    @staticmethod
    def _most_visited(tree: _Node, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1 or not tree.visits:
            return int(legal[0]) if len(legal) == 1 else int(legal[np.argmax(tree.n[legal])])
        n = tree.n[legal]
        mean = tree.w[legal] / np.maximum(n, 1)
        best = legal[n == n.max()]           # the most visited; among them the best mean
        return int(best[np.argmax(mean[n == n.max()])])

    def _evaluate(self, core, rows: np.ndarray, n: int):
        """The model's policy over the legal moves (``(n, actions)``, zero elsewhere) and its value,
        for the copies ``rows`` of a simulation batch, each seen by its player to move."""
        import torch
        policy = self.model.policy
        obs = core.obs[rows].reshape(len(rows), -1)
        priors = np.zeros((n, core.num_actions))
        values = np.zeros(n)
        priors[rows] = policy_probabilities(self.model, obs, core.mask[rows].astype(bool))
        with torch.no_grad():
            values[rows] = np.clip(policy.predict_values(policy.obs_to_tensor(obs)[0]).cpu().numpy().reshape(-1),
                                   -1.0, 1.0)
        return priors, values

    def _select(self, node: _Node, legal: np.ndarray, bot_move: int, priors=None) -> tuple[int, float]:
        """The move a simulation descends by, ``q + c * prior * sqrt(visits) / (1 + n)`` over the
        moves legal in its copy, and its q.  An untried move's q is the node's mean for the player to
        move less ``FPU_REDUCTION`` (first-play urgency: in a lost position an untried move is not
        worth a draw, in a won one not a loss), so that the prior, not the sign of the position,
        decides what is tried next."""
        n = node.n[legal]
        tried = n > 0
        mean = node.w[legal][tried].sum() / n[tried].sum() if tried.any() else 0.0
        q = np.where(tried, node.w[legal] / np.maximum(n, 1), mean - FPU_REDUCTION)
        if priors is not None:              # the model's policy, over the moves legal in this copy
            p = priors[legal] / max(priors[legal].sum(), 1e-12)
        elif len(legal) > 1:
            p = np.full(len(legal), (1.0 - self.prior) / (len(legal) - 1))
            p[legal == bot_move] = self.prior
        else:
            p = np.ones(1)
        best = int(np.argmax(q + self.exploration * p * math.sqrt(node.visits + 1) / (1.0 + n)))
        return int(legal[best]), float(q[best])

    def _wave(self, roots, masks, players, trees, searched: np.ndarray, k: int) -> None:
        """``k`` simulations of every position ``searched``, descending together level by level."""
        self._check_time()
        root_of = np.repeat(searched, k)
        core, _ = self._copies(roots, masks, players, root_of)
        n = len(root_of)
        self._play_down(core, [trees[r] for r in root_of], np.zeros((n, core.num_players)), np.ones(n, dtype=bool))

    def _simulate(self, roots, root_of, first, dice, players_of) -> np.ndarray:
        """``root="halving"``: FlatSearch's simulation of a root move, with the tree below it: copy the
        root, play ``first``, then descend the move's own tree (``_play_down``); the value for the
        root's player to move.  The j-th simulation of every move keeps the same dice (FlatSearch._plan)."""
        n = len(root_of)
        core, rows = self._copies(roots, self._root_masks, players_of, root_of, dice)
        actions = np.zeros(core.num_envs, dtype=np.int64)
        actions[:n] = first
        active = np.zeros(core.num_envs, dtype=bool)
        active[:n] = True
        core.step(actions, active=active)
        values = core.rewards[:n].astype(np.float64)
        node = []
        for r, a in zip(root_of, first):
            key = (int(r), int(a))
            if key not in self._subtrees:
                self._subtrees[key] = _Node(core.num_actions)
            node.append(self._subtrees[key])
        live = ~(core.terminated[:n] | core.truncated[:n])
        expanded = np.array([tree.visits >= self.expand_after for tree in node])
        values = self._play_down(core, node, values, live & expanded)
        return values[rows, players_of[root_of]]

    def _play_down(self, core, node: list, values: np.ndarray, descending: np.ndarray) -> np.ndarray:
        """The simulations in the first ``len(node)`` rows of ``core``, each at its tree node ``node[i]``
        with the values it has earned so far: descend by ``_select`` level by level (one compiled step
        for all of them a level), enter the first node no simulation has reached, play it out with the
        rollout policy (or score it by the value head); back the values up the paths; return them."""
        n = len(node)
        paths: list[list] = [[] for _ in range(n)]
        states, cfgs, _ = core.kernel_args()
        bot_moves = np.zeros(n, dtype=np.int64)
        actions = np.zeros(core.num_envs, dtype=np.int64)
        if self.model is not None:
            core.refresh(np.arange(n))     # the observations of the copies, for the network
        priors = None
        while descending.any():
            if self.model is None:
                self.game.bot.policy_actions(states, cfgs, core.mask[:n], self.rollout, bot_moves)
            else:
                priors, _ = self._evaluate(core, np.flatnonzero(descending), n)
            active = np.zeros(core.num_envs, dtype=bool)
            for i in np.flatnonzero(descending):
                here = node[i]
                a, q = self._select(here, np.flatnonzero(core.mask[i]), int(bot_moves[i]),
                                    None if priors is None else priors[i])
                # a virtual visit until the simulation returns, worth the move's q: the wave's next
                # simulations of this position see the move's count grow, not its value change
                here.n[a] += 1
                here.w[a] += q
                paths[i].append((here, a, int(core.current_player[i]), q))
                child = here.children.get(a)
                if child is None:
                    child = here.children[a] = _Node(core.num_actions)
                node[i] = child
                actions[i] = a
                active[i] = True
            core.step(actions, active=active)
            values[active[:n]] += core.rewards[:n][active[:n]]
            over = (core.terminated[:n] | core.truncated[:n]) & active[:n]
            # a simulation stops descending in the first node fewer than expand_after simulations
            # have reached (it is one of them), or at the end
            fresh = np.array([node[i].visits < self.expand_after for i in range(n)])
            descending &= ~over & ~fresh
        if self.leaf == "value":
            live = np.flatnonzero(~(core.terminated[:n] | core.truncated[:n]))
            if len(live):
                _, v = self._evaluate(core, live, n)
                others = max(1, core.num_players - 1)
                for i in live:
                    p = int(core.current_player[i])
                    values[i] -= v[i] / others
                    values[i, p] += v[i] + v[i] / others
        else:
            self._play_out(core, n, values)
        self._backup(paths, node, values)
        return values

    def _play_out(self, core, n: int, values: np.ndarray) -> None:
        """Add to ``values`` the rollouts of the copies in the first ``n`` rows: the rollout policy in
        every seat to the end; a copy cut off (by the game's truncation, in the tree or in the rollout)
        is worth its lead.  Only the copies still in play are played out, moved to the front first
        (``play_games`` takes a step in every game that is not over, one already cut off included)."""
        st = core.state
        P = core.num_players
        ended = core.terminated[:n] | core.truncated[:n]
        for b in np.flatnonzero(ended & ~self.game.done(st)[:n].astype(bool)):   # cut off in the tree
            values[b] += [self._lead(st, b, p) for p in range(P)]
        live = np.flatnonzero(~ended)
        m = len(live)
        if not m:
            return
        if m < n:
            st.assign(np.arange(m), st.select(live))
            core.mask[:m] = core.mask[live]
        states, cfgs, outs = core.kernel_args()
        results = np.zeros((m, P), dtype=np.float64)
        self.game.bot.play_games(states, cfgs, np.full((m, P), self.rollout, dtype=np.int64), outs, results,
                                 ROLLOUTS_SPLIT_FROM)
        values[live] += results
        for j in np.flatnonzero(~self.game.done(st)[:m].astype(bool)):   # cut off in the rollout
            values[live[j]] += [self._lead(st, j, p) for p in range(P)]

    @staticmethod
    def _backup(paths, node, values) -> None:
        """Each simulation's values to the moves it chose (its virtual visits undone) and its nodes."""
        for i in range(len(paths)):
            for here, a, p, q in paths[i]:
                here.w[a] += values[i, p] - q
                here.visits += 1
            node[i].visits += 1
