"""Policy networks that read each game's observation by its structure.

Every game names the parts of its flat observation (``game.split_obs``): hex
planes, tables of cards or ships, scalars.  ``observation_parts`` finds where
each part lives in the flat vector the SB3 adapters hand out (by splitting an
array of indices, so it follows ``split_obs`` whatever it does), and
``WargymExtractor`` encodes each part by its kind:

* planes ``(C, H, W)``: a 3x3 convolution over the hex grid (offset
  coordinates: a hex's six neighbours lie in its 3x3 window), then a linear map
  of the flattened feature maps (actions name hexes, so position is kept);
* tables ``(..., N, F)`` (ships, cards, players): one small MLP applied to every
  row (shared weights: every card is read the same way), then the rows'
  encodings side by side (actions name slots) plus their mean and max;
* vectors ``(F,)``: as they are.

The parts' encodings are concatenated and mapped to ``features_dim``; SB3's
policy and value heads sit on top.  A first layer over the whole flat vector
(8,883 inputs for Planetoids) cost most of the training time and read a hex
plane as 189 unrelated numbers.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

# int8 features are small counts, flags and ids; this keeps them near unit scale
INPUT_SCALE = 1.0 / 4.0


def observation_parts(game, cfg, gathered: bool = False) -> list[tuple[str, tuple[int, ...], np.ndarray | slice]]:
    """``(name, shape, where)`` of every part of the flat observation, in ``split_obs`` order;
    ``where`` is a slice when the part is a contiguous run of the flat vector, else indices.
    ``gathered``: also the action table a game gathers from its observation (``action_rows``),
    which only the pointer head reads (networks without it keep the layout they were trained on)."""
    shape = tuple(game.obs_shape(cfg))
    index = np.arange(int(np.prod(shape))).reshape(shape)
    split = getattr(game, "split_obs", None)
    parts = split(cfg, index) if split is not None else {"observation": index}
    rows = getattr(game, "action_rows", None)
    if gathered and rows is not None:
        # a game whose observation has no action table may say, per action, which observation
        # values describe what the action names (-1: nothing, read as 0): gathered, they are one
        parts = {**parts, ACTION_FEATURES_PART: np.asarray(rows(cfg))}
    out = []
    for name, idx in parts.items():
        idx = np.asarray(idx)
        flat = idx.reshape(-1)
        contiguous = flat.size and np.array_equal(flat, np.arange(flat[0], flat[0] + flat.size))
        out.append((name, idx.shape, slice(int(flat[0]), int(flat[0]) + flat.size) if contiguous else flat))
    return out


class PlaneEncoder(nn.Module):
    """Hex planes ``(C, H, W)`` -> flat features: one 3x3 convolution with stride 2 (each
    output reads a hex's neighbourhood; the map at half resolution in ``width`` channels),
    flattened, so that the policy head still knows where things are (actions name hexes).

    Chosen by measurement (forward + backward + Adam over 2,048 observations, one thread):
    a 1x1 + 3x3 stack at full resolution cost about twice as much for the same output size."""

    def __init__(self, shape, width: int = 16):
        super().__init__()
        c, h, w = shape
        self.shape = shape
        self.net = nn.Sequential(nn.Conv2d(c, width, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten())
        self.out_dim = width * ((h + 1) // 2) * ((w + 1) // 2)

    def forward(self, x):
        # channels-last: oneDNN's convolutions with few channels run about 3x faster on
        # the CPU in this layout than in the default one (measured, forward and backward)
        return self.net(x.reshape(-1, *self.shape).contiguous(memory_format=torch.channels_last))


class TableEncoder(nn.Module):
    """Rows ``(N, F)`` -> each row's encoding (shared MLP), side by side, plus mean and max."""

    def __init__(self, shape, width: int = 8):
        super().__init__()
        self.rows, f = int(np.prod(shape[:-1])), shape[-1]
        self.feat = f
        self.row_net = nn.Sequential(nn.Linear(f, width), nn.ReLU())
        self.out_dim = self.rows * width + 2 * width

    def forward(self, x):
        rows = self.row_net(x.reshape(-1, self.rows, self.feat))
        return torch.cat([rows.flatten(1), rows.mean(1), rows.amax(1)], dim=1)


class VectorEncoder(nn.Module):
    def __init__(self, shape):
        super().__init__()
        self.out_dim = int(np.prod(shape))

    def forward(self, x):
        return x


class PairEncoder(nn.Module):
    """A relational table ``(own entity, other entity, F)`` -> one token per own entity: every
    pair through one shared MLP, pooled over the others (mean and max), the tokens side by side
    (actions name own slots) plus their mean and max.  The pairwise-features-pooled-per-entity
    encoder of relational RL: what one entity sees of each other one, read the same way for all."""

    def __init__(self, shape, width: int = 16):
        super().__init__()
        self.own, self.others, self.feat = shape
        self.pair_net = nn.Sequential(nn.Linear(self.feat, 2 * width), nn.ReLU(), nn.Linear(2 * width, width), nn.ReLU())
        self.out_dim = self.own * 2 * width + 4 * width

    def forward(self, x):
        pairs = self.pair_net(x.reshape(-1, self.own, self.others, self.feat))
        tokens = torch.cat([pairs.mean(2), pairs.amax(2)], dim=2)        # (B, own, 2 width)
        return torch.cat([tokens.flatten(1), tokens.mean(1), tokens.amax(1)], dim=1)


# Parts read by name rather than by shape: a game's relational table (pairs of entities) and its
# action table (one feature row per action, read by the policy's pointer head, ActionFeatureHead).
PAIRS_PART = "pairs"
ACTION_FEATURES_PART = "action_features"


def part_encoder(shape, plane_width: int, row_width: int, name: str = "") -> nn.Module:
    if name == PAIRS_PART and len(shape) == 3:
        return PairEncoder(shape, 2 * row_width)
    if len(shape) == 3:
        return PlaneEncoder(shape, plane_width)
    if len(shape) >= 2:
        return TableEncoder(shape, row_width)
    return VectorEncoder(shape)


class WargymExtractor(BaseFeaturesExtractor):
    """SB3 features extractor for a wargym game's flat observation (see module doc).

    ``policy_kwargs=dict(features_extractor_class=WargymExtractor,
    features_extractor_kwargs=dict(game="planetoids", options={...}))``."""

    def __init__(self, observation_space: spaces.Box, game="planetoids", options: dict | None = None,
                 features_dim: int = 64, plane_width: int = 16, row_width: int = 8, pointer: bool = False):
        super().__init__(observation_space, features_dim)
        from ..wrappers.sb3 import load_game
        g = load_game(game)
        cfg = g.build_config(g.parse_options(options or {}))
        self.parts = observation_parts(g, cfg, gathered=pointer)
        n = int(np.prod(observation_space.shape))
        if n != int(np.prod(g.obs_shape(cfg))):
            raise ValueError(f"observation of {n} values does not match {game} with options {options}")
        # pointer: the action table goes past the encoders, as it is, to the policy's pointer head
        # (PointerPolicy); its values follow the features_dim encoded ones in forward's output
        self.tail = None
        if pointer:
            found = [(k, shape, where) for k, (name, shape, where) in enumerate(self.parts) if name == ACTION_FEATURES_PART]
            if not found:
                raise ValueError(f"pointer=True: {game} with options {options} has no {ACTION_FEATURES_PART} part")
            k, shape, where = found[0]
            self.parts.pop(k)
            self.tail = where
            self.n_actions, self.n_action_features = int(shape[0]), int(shape[1])
            self.tail_dim = self.n_actions * self.n_action_features
            self._features_dim = features_dim + self.tail_dim
        self.encoders = nn.ModuleList(part_encoder(shape, plane_width, row_width, name)
                                      for name, shape, _ in self.parts)
        # gathered parts may name -1 (nothing): read from a zero appended after the observation
        self.padded = any(not isinstance(w, slice) and (w < 0).any() for w in
                          [where for _, _, where in self.parts] + ([] if self.tail is None else [self.tail]))
        for k, (_, _, where) in enumerate(self.parts):
            if not isinstance(where, slice):
                self.register_buffer(f"where_{k}", self._gather_index(where, n), persistent=False)
        if self.tail is not None and not isinstance(self.tail, slice):
            self.register_buffer("where_tail", self._gather_index(self.tail, n), persistent=False)
        total = sum(e.out_dim for e in self.encoders)
        self.head = nn.Sequential(nn.Linear(total, features_dim), nn.ReLU())

    @staticmethod
    def _gather_index(where, n: int) -> torch.Tensor:
        where = np.asarray(where, dtype=np.int64)
        return torch.as_tensor(np.where(where < 0, n, where), dtype=torch.long)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = obs.reshape(obs.shape[0], -1)
        if self.padded:
            x = torch.cat([x, x.new_zeros(x.shape[0], 1)], dim=1)
        encoded = []
        for k, ((_, _, where), enc) in enumerate(zip(self.parts, self.encoders)):
            # scaled part by part: one copy of each part, none of the whole observation
            part = x[:, where] * INPUT_SCALE if isinstance(where, slice) else \
                x.index_select(1, getattr(self, f"where_{k}")) * INPUT_SCALE
            encoded.append(enc(part))
        features = self.head(torch.cat(encoded, dim=1))
        if self.tail is None:
            return features
        tail = x[:, self.tail] if isinstance(self.tail, slice) else x.index_select(1, self.where_tail)
        return torch.cat([features, tail * INPUT_SCALE], dim=1)


class SplitMlpExtractor(nn.Module):
    """SB3's policy and value MLPs over the encoded features; the action table that follows them
    (WargymExtractor with pointer=True) is passed on beside the policy's latent, untouched."""

    def __init__(self, features_dim: int, tail_dim: int, net_arch, activation_fn):
        super().__init__()
        from stable_baselines3.common.torch_layers import MlpExtractor
        self.features_dim = features_dim
        self.mlp = MlpExtractor(features_dim, net_arch=net_arch, activation_fn=activation_fn)
        self.pi_dim = self.mlp.latent_dim_pi
        self.latent_dim_pi = self.pi_dim + tail_dim
        self.latent_dim_vf = self.mlp.latent_dim_vf

    def forward(self, features):
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features):
        return torch.cat([self.mlp.forward_actor(features[:, :self.features_dim]), features[:, self.features_dim:]], 1)

    def forward_critic(self, features):
        return self.mlp.forward_critic(features[:, :self.features_dim])


class ActionFeatureHead(nn.Module):
    """Action logits that point at what each action does: ``logit[a] = base(latent)[a] +
    v . relu(W f_a + U latent + e_a)``, where ``f_a`` is the action's row of the game's action table
    (e.g. Talon: the damage a shot deals, what a move's destination exposes the ship to) and ``e_a``
    a learned embedding of action ``a``.  One small MLP scores every action from its own facts, so
    what is learned about one ship's move or one target carries over to every other."""

    def __init__(self, latent_dim: int, n_actions: int, n_features: int, width: int = 32):
        super().__init__()
        self.latent_dim, self.n_actions, self.n_features = latent_dim, n_actions, n_features
        # the legal actions of the batch being scored, (B, n_actions) bool, while ``legal_only`` holds them
        self.legal: torch.Tensor | None = None
        self.base = nn.Linear(latent_dim, n_actions)
        self.feat = nn.Linear(n_features, width)
        self.context = nn.Linear(latent_dim, width)
        self.embed = nn.Parameter(torch.zeros(n_actions, width))
        self.out = nn.Linear(width, 1)
        for layer in (self.base, self.out):          # near-uniform policy at the start, as SB3's action_net
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)

    def forward(self, latent):
        z = latent[:, :self.latent_dim]
        f = latent[:, self.latent_dim:].reshape(-1, self.n_actions, self.n_features)
        base = self.base(z)
        legal = self.legal
        if legal is None or legal.shape != base.shape:
            h = torch.relu(self.feat(f) + self.context(z)[:, None, :] + self.embed)
            return base + self.out(h).squeeze(-1)
        # Only the legal actions' rows: the mask sets every other logit to -1e8 afterwards, so their
        # scores change nothing, and a few percent of the actions are legal at a time (mean 31 of
        # Planetoids' 275, 7 of Talon's 203, 10 of UnionWars' 308): the (B, actions, width) hidden
        # layer was most of the network's time.  The legal logits are the dense path's.
        b, a = legal.nonzero(as_tuple=True)
        h = torch.relu(self.feat(f[b, a]) + self.context(z)[b] + self.embed[a])
        return base.index_put((b, a), self.out(h).squeeze(-1), accumulate=True)


@contextmanager
def legal_only(policy, action_masks):
    """While it holds, ``policy``'s pointer head (``ActionFeatureHead``) scores only the actions
    ``action_masks`` allows (numpy or torch, ``(B, actions)``); a policy without one, or no masks: nothing."""
    head = getattr(policy, "action_net", None)
    if action_masks is None or not isinstance(head, ActionFeatureHead):
        yield
        return
    head.legal = torch.as_tensor(action_masks, dtype=torch.bool, device=head.embed.device).reshape(-1, head.n_actions)
    try:
        yield
    finally:
        head.legal = None


def _pointer_policy_class():
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    class PointerPolicy(MaskableActorCriticPolicy):
        """MaskablePPO's policy with the action head of ``ActionFeatureHead``: the features extractor
        (WargymExtractor, pointer=True) hands the action table past the MLPs to the head."""

        def _build_mlp_extractor(self) -> None:
            tail = self.features_extractor.tail_dim
            self.mlp_extractor = SplitMlpExtractor(self.features_dim - tail, tail, self.net_arch, self.activation_fn)

        def _build(self, lr_schedule) -> None:
            super()._build(lr_schedule)
            ext = self.features_extractor
            self.action_net = ActionFeatureHead(self.mlp_extractor.pi_dim, ext.n_actions, ext.n_action_features)
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

        # Every way SB3 reaches the action head with the masks at hand: the head scores the legal
        # actions only (ActionFeatureHead.forward; the same distribution once masked)
        def forward(self, obs, deterministic=False, action_masks=None):
            with legal_only(self, action_masks):
                return super().forward(obs, deterministic, action_masks)

        def evaluate_actions(self, obs, actions, action_masks=None):
            with legal_only(self, action_masks):
                return super().evaluate_actions(obs, actions, action_masks)

        def get_distribution(self, obs, action_masks=None):
            with legal_only(self, action_masks):
                return super().get_distribution(obs, action_masks)

    PointerPolicy.__module__ = __name__
    PointerPolicy.__qualname__ = "PointerPolicy"
    return PointerPolicy


def __getattr__(name):
    # PointerPolicy subclasses sb3-contrib's policy: built on first use, so that importing this
    # module (the RLlib module does) needs only torch and SB3
    if name == "PointerPolicy":
        cls = _pointer_policy_class()
        globals()["PointerPolicy"] = cls
        return cls
    raise AttributeError(name)


def has_action_table(game, options: dict | None = None, gathered: bool = False) -> bool:
    """Does the game's observation (with ``options``) end with an action table for the pointer head?
    ``gathered``: or can one be gathered from it (the game's ``action_rows``: Battle Force), which
    the pointer head reads when asked for (``--network pointer``) but not by default: Battle Force's
    two-player agents learn faster per minute without it (BASELINES.md)."""
    from ..wrappers.sb3 import load_game
    g = load_game(game)
    cfg = g.build_config(g.parse_options(options or {}))
    return any(name == ACTION_FEATURES_PART for name, _, _ in observation_parts(g, cfg, gathered=gathered))


def policy_class(game, options: dict | None = None, pointer: bool | None = None):
    """The SB3 policy for the game: PointerPolicy where the observation has an action table (or
    ``pointer`` says so), else sb3-contrib's MaskableActorCriticPolicy ("MlpPolicy")."""
    if pointer is None:
        pointer = has_action_table(game, options)
    if pointer:
        return __getattr__("PointerPolicy") if "PointerPolicy" not in globals() else globals()["PointerPolicy"]
    return "MlpPolicy"


def policy_kwargs(game, options: dict | None = None, features_dim: int = 64, net_arch=(64,),
                  pointer: bool | None = None) -> dict:
    """The default SB3 ``policy_kwargs`` for a wargym game: the structured extractor, then
    small separate policy and value heads; with ``pointer`` (default: where the game has an action
    table) the action table goes to PointerPolicy's head (use ``policy_class(game, options)``)."""
    if pointer is None:
        pointer = has_action_table(game, options)
    kwargs = {"game": game, "options": options, "features_dim": features_dim}
    if pointer:
        kwargs["pointer"] = True
    return {"features_extractor_class": WargymExtractor, "features_extractor_kwargs": kwargs,
            "net_arch": {"pi": list(net_arch), "vf": list(net_arch)}}
