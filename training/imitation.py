"""Behaviour cloning from a built-in policy: a warm start for PPO.

Planetoids games last thousands of decisions and a random policy never scores,
so PPO from scratch needs a long budget before its first win.  Cloning the
compiled scripted bot for a few epochs gives the policy network a sensible
starting point; PPO then improves it on the game's own reward.
"""
from __future__ import annotations

import numpy as np
import torch


def collect(env, teacher: str, decisions: int, seed: int = 0):
    """(obs, masks, actions) of the teacher playing the learner's seat of ``env``."""
    core, bot = env.loop.core, env.loop.game.bot
    policy = bot.POLICIES[teacher]
    obs = env.reset()
    steps = max(1, decisions // env.num_envs)
    X = np.empty((steps * env.num_envs, obs.shape[1]), dtype=np.int8)
    M = np.empty((steps * env.num_envs, env.action_space.n), dtype=bool)
    A = np.empty(steps * env.num_envs, dtype=np.int64)
    actions = np.zeros(env.num_envs, dtype=np.int64)
    states, cfgs, _ = core.kernel_args()
    for k in range(steps):
        masks = env.action_masks()
        bot.policy_actions(states, cfgs, core.mask, policy, actions)
        rows = slice(k * env.num_envs, (k + 1) * env.num_envs)
        X[rows], M[rows], A[rows] = obs, masks, actions
        obs, _, _, _ = env.step(actions)
    return X, M, A


def clone(model, X, M, A, epochs: int = 4, batch_size: int = 512, lr: float = 1e-3, seed: int = 0) -> float:
    """Fit ``model.policy`` to the teacher's actions (masked cross-entropy); returns final accuracy."""
    policy = model.policy
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    n = len(A)
    for _ in range(epochs):
        order = rng.permutation(n)
        for lo in range(0, n, batch_size):
            idx = order[lo:lo + batch_size]
            obs = torch.as_tensor(X[idx], dtype=torch.float32)
            dist = policy.get_distribution(obs, action_masks=M[idx])
            loss = -dist.log_prob(torch.as_tensor(A[idx])).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        idx = rng.choice(n, size=min(n, 4096), replace=False)
        dist = policy.get_distribution(torch.as_tensor(X[idx], dtype=torch.float32), action_masks=M[idx])
        pred = dist.distribution.probs.argmax(dim=1).numpy()
    return float((pred == A[idx]).mean())
