"""Behaviour cloning from a built-in policy: a warm start for PPO.

Planetoids games last thousands of decisions and a random policy never scores,
so PPO from scratch needs a long budget before its first win.  Cloning the
compiled scripted bot gives the policy a sensible starting point; PPO then
improves it on the game's own reward.  The value head is fitted at the same time
to the discounted returns the teacher's games earned, so that PPO's first
advantages are not the noise of an untrained critic (which would undo much of
the cloning in the first updates).

Cloning the teacher's own games alone is not enough where games are long: a
student that agrees with the teacher on 85 % of its decisions drifts into
positions the teacher never reached and plays them badly (Planetoids: 23 % wins
against random after cloning).  So the warm start continues with rounds of
DAgger (Ross, Gordon & Bagnell 2011): the student plays, the compiled teacher
labels every position the student reached with its own choice, and the student
is fitted to all labels gathered so far (Planetoids: 88 % after one round,
97 % after two).  The teacher is a compiled bot, so labelling costs almost
nothing; it draws from the games' policy streams, never from their dice.

The teacher may also be the search bot (``search``, ``search:N``, ``search:Nms``;
envs/core/search.py), stronger than the scripted bot it improves on: every label
is then a search of the position (all the batch's positions in one search), so
a label costs its budget's rollouts, not a bot's move.

With ``targets="visits"`` and a tree search teacher (``mcts``, ``mcts:N``) the warm start is expert
iteration (Anthony, Tian & Barber 2017; AlphaZero's training targets): the tree search runs with the
PUCT rule at its root and the student's own policy as its prior (``prior_model``), and every label is
the share of the root's simulations each legal move received -- a distribution, the search's
improvement on the student's policy -- which the student is fitted to by cross-entropy.  Cloning the
search's single chosen move instead teaches its noise: where the sampled dice and hidden cards move
its choice from search to search, a student agreed with it on 57 % of the labels (BASELINES.md).
"""
from __future__ import annotations

import numpy as np
import torch

from ..envs.core.loops import ACC_TERMINATED, ACC_TRUNCATED
from ..envs.core.search import is_search_spec, is_tree_spec, searcher_for
from .networks import legal_only

TARGETS = ("move", "visits")   # what a label is: the teacher's move, or the tree search's visit shares


def collected(env, decisions: int) -> int:
    """How many labels ``collect`` gathers for ``decisions``: whole steps of every game of ``env``."""
    return max(1, decisions // env.num_envs) * env.num_envs


def label_arrays(env, size: int, soft: bool = False) -> tuple[np.ndarray, ...]:
    """Empty (obs, masks, actions, returns) for ``size`` labels of ``env``'s learner seat, and with
    ``soft`` the search's targets (a distribution over the actions a label): the warm start allocates
    every round's at once and ``collect`` fills them in place (Planetoids: 12.5 KB an observation,
    7.5 GB for 600,000; gathering rounds by concatenation needed twice that)."""
    arrays = (np.empty((size, env.observation_space.shape[0]), dtype=np.int8),
              np.empty((size, env.action_space.n), dtype=bool), np.empty(size, dtype=np.int64),
              np.empty(size, dtype=np.float32))
    return arrays + ((np.empty((size, env.action_space.n), dtype=np.float32),) if soft else ())


def collect(env, teacher: str, decisions: int, gamma: float = 0.995, progress=None, student=None, into=None,
            targets: str = "move", prior_model=None):
    """(obs, masks, teacher's actions, returns) over ``decisions`` of the learner's seat of ``env``,
    and with ``targets="visits"`` the tree search's visit shares (``label_arrays(soft=True)``; the
    search's prior is ``prior_model``'s policy, or the rollout policy's move without one).

    Without ``student`` the teacher plays the seat; with one (a model with SB3's
    ``predict``) the student plays it, sampling its actions, and the teacher only
    labels the positions the student reaches (a DAgger round).  The returns are
    those of the games as played.  ``into``: arrays of ``label_arrays`` to fill
    (``collected(env, decisions)`` labels long) instead of new ones.
    """
    loop = env.loop
    label = _labeller(loop, teacher, targets, prior_model)
    obs = env.reset()
    n = env.num_envs
    steps = max(1, decisions // n)
    into = label_arrays(env, steps * n, soft=targets == "visits") if into is None else into
    X, M, A, G_out, *T = views = [a.reshape(steps, n, *a.shape[1:]) for a in into]
    assert all(np.may_share_memory(v, a) for v, a in zip(views, into)), "collect fills contiguous arrays in place"
    if bool(T) != (targets == "visits"):
        raise ValueError("targets='visits' fills label_arrays(soft=True), and only it")
    R = np.empty((steps, n), dtype=np.float32)
    D = np.empty((steps, n), dtype=bool)
    for k in range(steps):
        X[k], M[k] = obs, loop.core.mask
        if T:
            labels, T[0][k] = label()
        else:
            labels = label()
        A[k] = labels
        played = labels if student is None else student.predict(obs, action_masks=M[k], deterministic=False)[0]
        obs, R[k], _, _ = env.step(played)
        D[k] = (loop.acc[:, ACC_TERMINATED] > 0) | (loop.acc[:, ACC_TRUNCATED] > 0)
        if progress is not None:
            progress(n)
    G_out[:] = discounted_returns(R, D, gamma)
    return into


def _labeller(loop, teacher: str, targets: str = "move", prior_model=None):
    """() -> the teacher's action in every game of ``loop`` (all await the learner's seat): a
    built-in policy's, in one compiled call, or the search bot's, in one batched search; with
    ``targets="visits"``, () -> (actions, visit shares) of the tree search (PUCT root)."""
    if targets not in TARGETS:
        raise ValueError(f"targets must be one of {', '.join(TARGETS)}, got {targets!r}")
    if targets == "visits":
        if not is_tree_spec(teacher):
            raise ValueError(f"targets='visits' needs the tree search as the teacher (mcts, mcts:N), not {teacher!r}")
        searcher = searcher_for(teacher, loop.game, loop.core.options, seed=loop._search_seed, root="puct",
                                model=prior_model)
        return lambda: searcher.visit_targets(loop.core)
    if is_search_spec(teacher):
        searcher = searcher_for(teacher, loop.game, loop.core.options, seed=loop._search_seed)
        return lambda: searcher.choose(loop.core)
    bot = loop.game.bot
    policy = bot.LOOPS.policy_id(teacher)
    labels = np.zeros(loop.core.num_envs, dtype=np.int64)
    states, cfgs, _ = loop.core.kernel_args()

    def builtin():
        bot.policy_actions(states, cfgs, loop.core.mask, policy, labels)
        return labels
    return builtin


def discounted_returns(rewards, dones, gamma):
    """Returns-to-go per env column; an episode's return stops at its end (``dones``)."""
    G = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1], dtype=np.float32)
    for k in range(len(rewards) - 1, -1, -1):
        running = rewards[k] + gamma * running * (~dones[k])
        G[k] = running
    return G


def sample_order(n: int, samples: int, rng) -> np.ndarray:
    """``samples`` indices into ``n`` labels: whole shuffled passes over all of them, the last pass
    cut short, so that every label is drawn equally often (up to one) whatever ``samples`` is."""
    passes = -(-samples // n) if n else 0
    return np.concatenate([rng.permutation(n) for _ in range(passes)] or [np.zeros(0, np.int64)])[:samples]


def clone(model, X, M, A, G=None, epochs: float = 4, batch_size: int = 2048, lr: float = 1e-3, seed: int = 0,
          value_coef: float = 0.5, progress=None, samples: int | None = None, T=None) -> float:
    """Fit ``model.policy`` to the teacher's actions (masked cross-entropy) or, given ``T``, to its
    distributions over them (cross-entropy with the soft targets), and, given ``G``, its value head
    to the returns; returns the final agreement with the teacher's move.

    ``samples``: how many labels to fit in all, drawn evenly from all of them (``sample_order``);
    by default ``epochs`` passes over every label.  A DAgger round passes the number its newest
    labels would take (``warm_start``), so that each round costs the same, not more and more as
    the aggregate grows."""
    policy = model.policy
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    n = len(A)
    order = sample_order(n, int(round(epochs * n)) if samples is None else int(samples), rng)
    for lo in range(0, len(order), batch_size):
        idx = np.sort(order[lo:lo + batch_size])  # sorted: faster gathers from the big arrays
        obs = torch.as_tensor(X[idx], device=policy.device).float()
        features = policy.extract_features(obs)
        latent_pi, latent_vf = policy.mlp_extractor(features)
        with legal_only(policy, M[idx]):       # a pointer head scores the legal actions only
            logits = policy.action_net(latent_pi)
        dist = policy.action_dist.proba_distribution(action_logits=logits)
        dist.apply_masking(M[idx])
        if T is None:
            loss = -dist.log_prob(torch.as_tensor(A[idx], device=policy.device)).mean()
        else:   # masked logits are a large negative number, not -inf: a target's zeros keep them out
            log_p = torch.log_softmax(dist.distribution.logits, dim=1)
            loss = -(torch.as_tensor(T[idx], device=policy.device) * log_p).sum(dim=1).mean()
        if G is not None:
            values = policy.value_net(latent_vf).flatten()
            loss = loss + value_coef * torch.nn.functional.mse_loss(values, torch.as_tensor(G[idx], device=policy.device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if progress is not None:
            progress(len(idx))
    return agreement(model, X, M, A, rng)


def agreement(model, X, M, A, rng, n: int = 4096) -> float:
    """Share of a sample of the teacher's decisions the model's most likely action matches."""
    policy = model.policy
    with torch.no_grad():
        idx = rng.choice(len(A), size=min(len(A), n), replace=False)
        dist = policy.get_distribution(torch.as_tensor(X[idx], device=policy.device).float(), action_masks=M[idx])
        pred = dist.distribution.probs.argmax(dim=1).cpu().numpy()
    return float((pred == A[idx]).mean())
