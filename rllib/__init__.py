"""wargym on Ray RLlib (the ``rllib`` extra): environments over the batched core, a masked
RLModule with the SB3 path's networks, training (``wargym-train --backend rllib``), a league
of snapshots and built-in bots, and checkpoints the arena loads.

* ``wargym.rllib.envs``: ``WargymVectorEnv`` (learner against an opponent, one batched core
  per env runner) and ``WargymMultiAgentEnv`` (turn-based self-play, every seat an agent);
* ``wargym.rllib.module``: ``WargymTorchModule``;
* ``wargym.rllib.train``: the PPO configuration, the training loop and its checkpoints;
* ``wargym.rllib.policy``: a checkpoint as a policy the arena can seat.

Nothing here is imported by ``import wargym``; importing it needs ``ray[rllib]``.
"""
