"""The RLModule (torch) of wargym on RLlib: the SB3 path's network, with action masking.

The layers and their names are those of the SB3 policy ``wargym-train`` builds
(``training/networks.py``: the structured ``WargymExtractor`` shared by both
heads, then SB3's ``MlpExtractor`` of one tanh layer per head, ``action_net``
and ``value_net``), so ``load_sb3_weights`` copies a MaskablePPO checkpoint into
this module and ``sb3_state_dict`` gives a module's weights back in SB3's names.

Masking: the logits of illegal actions are set to ``FLOAT_MIN`` before RLlib
builds the categorical distribution, so their probability is exactly zero in
sampling, greedy play and the PPO loss.  A row with no legal action at all (the
final observation of a finished game, whose action the env ignores) keeps
action 0 open so the distribution stays finite.

It reads observations as dicts ``{"observation", "action_mask"}`` (PettingZoo's
key, ``envs.py``); ``model_config`` names the game and its options::

    RLModuleSpec(module_class=WargymTorchModule,
                 model_config={"game": "talon", "options": {...}, "features_dim": 64, "hidden": 64})
"""
from __future__ import annotations

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.models.torch.torch_distributions import TorchCategorical
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from ..training.networks import WargymExtractor
from .envs import MASK_KEY, OBS_KEY


class MlpHeads(nn.Module):
    """SB3's ``MlpExtractor`` for ``net_arch={"pi": [h], "vf": [h]}`` (tanh), same names."""

    def __init__(self, features_dim: int, hidden: int):
        super().__init__()
        self.policy_net = nn.Sequential(nn.Linear(features_dim, hidden), nn.Tanh())
        self.value_net = nn.Sequential(nn.Linear(features_dim, hidden), nn.Tanh())


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal actions at FLOAT_MIN (action 0 kept open where none is legal)."""
    legal = mask > 0
    none = ~legal.any(dim=1)
    if none.any():
        legal = legal.clone()
        legal[none, 0] = True
    return logits.masked_fill(~legal, FLOAT_MIN)


class WargymTorchModule(TorchRLModule, ValueFunctionAPI):
    """PPO-ready masked actor-critic over a wargym game's structured observation."""

    def setup(self):
        cfg = dict(self.model_config or {})
        if "game" not in cfg:
            raise ValueError("WargymTorchModule needs model_config={'game': ..., 'options': {...}}")
        features_dim, hidden = int(cfg.get("features_dim", 64)), int(cfg.get("hidden", 64))
        box = self.observation_space[OBS_KEY]
        self.features_extractor = WargymExtractor(box, game=cfg["game"], options=cfg.get("options"),
                                                  features_dim=features_dim)
        self.mlp_extractor = MlpHeads(features_dim, hidden)
        self.action_net = nn.Linear(hidden, int(self.action_space.n))
        self.value_net = nn.Linear(hidden, 1)
        # SB3's initialisation of the heads: near-uniform first policy, unit-scale values
        nn.init.orthogonal_(self.action_net.weight, gain=0.01)
        nn.init.zeros_(self.action_net.bias)
        nn.init.orthogonal_(self.value_net.weight, gain=1.0)
        nn.init.zeros_(self.value_net.bias)
        self.action_dist_cls = TorchCategorical

    def _features(self, batch):
        return self.features_extractor(batch[Columns.OBS][OBS_KEY].float())

    def _forward(self, batch, **kwargs):
        features = self._features(batch)
        logits = self.action_net(self.mlp_extractor.policy_net(features))
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, batch[Columns.OBS][MASK_KEY])}

    def _forward_train(self, batch, **kwargs):
        features = self._features(batch)
        logits = self.action_net(self.mlp_extractor.policy_net(features))
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, batch[Columns.OBS][MASK_KEY]),
                Columns.EMBEDDINGS: features}

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            embeddings = self._features(batch)
        return self.value_net(self.mlp_extractor.value_net(embeddings)).squeeze(-1)

    # -- greedy or sampled play outside RLlib (arena, serve, league snapshots) ---------------
    @torch.no_grad()
    def act(self, obs: np.ndarray, masks: np.ndarray, deterministic: bool = False) -> np.ndarray:
        """Actions for a batch of flat observations and masks; never an illegal one."""
        batch = {Columns.OBS: {OBS_KEY: torch.as_tensor(np.asarray(obs).reshape(len(obs), -1)),
                               MASK_KEY: torch.as_tensor(np.asarray(masks, dtype=np.int8))}}
        logits = self._forward(batch)[Columns.ACTION_DIST_INPUTS]
        if deterministic:
            actions = logits.argmax(dim=1)
        else:
            actions = torch.distributions.Categorical(logits=logits).sample()
        actions = actions.numpy().astype(np.int64)
        masks = np.asarray(masks)
        illegal = (masks[np.arange(len(actions)), actions] == 0) & masks.any(axis=1)
        if illegal.any():
            raise RuntimeError(f"the masked policy chose an illegal action in row {int(np.flatnonzero(illegal)[0])}")
        return actions


SB3_SHARED = ("pi_features_extractor.", "vf_features_extractor.")


def sb3_state_dict(module: WargymTorchModule) -> dict:
    """The module's weights in the names of an SB3 ``MaskableActorCriticPolicy``
    (``features_extractor`` shared, as SB3 aliases it under ``pi_``/``vf_``)."""
    state = {k: v.clone() for k, v in module.state_dict().items()}
    for prefix in SB3_SHARED:
        state.update({prefix + k[len("features_extractor."):]: v for k, v in list(state.items())
                      if k.startswith("features_extractor.")})
    return state


def load_sb3_weights(module: WargymTorchModule, sb3_policy_state: dict) -> None:
    """Copy an SB3 policy's weights (``model.policy.state_dict()``) into ``module``;
    shapes must match (same game, options and sizes) or this raises and changes nothing."""
    own = module.state_dict()
    wanted = {k: v for k, v in sb3_policy_state.items() if not k.startswith(SB3_SHARED) and k != "log_std"}
    missing = sorted(set(own) - set(wanted))
    extra = sorted(set(wanted) - set(own))
    wrong = sorted(k for k in own if k in wanted and tuple(own[k].shape) != tuple(wanted[k].shape))
    if missing or extra or wrong:
        raise ValueError(f"SB3 weights do not fit this module: missing {missing[:3]}, unexpected {extra[:3]}, "
                         f"other shapes {wrong[:3]}")
    module.load_state_dict(wanted)
