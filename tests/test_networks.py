"""The networks that read entities (training/networks.py): the pair encoder and the pointer head
over each game's action table, on every game's observation: shapes, masks honoured, save/load.
Nothing is timed and nothing is trained to a level (benchmarks/time_to_skill.py measures skill)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from wargym.registration import GAME_KEYS
from wargym.training.networks import (ActionFeatureHead, PairEncoder, has_action_table, policy_class,
                                      policy_kwargs)
from wargym.wrappers.sb3 import WargymVecEnv

SHORT = {"planetoids": {"turns": 2}, "talon": {"max_decisions": 300}, "battle_force": {"max_decisions": 300},
         "union_wars": {"max_decisions": 300}}


def test_pair_encoder_reads_every_pair_with_one_mlp():
    enc = PairEncoder((3, 4, 5), width=8)
    x = torch.randn(2, 3 * 4 * 5)
    out = enc(x)
    assert out.shape == (2, enc.out_dim) == (2, 3 * 16 + 32)
    # the others are pooled: permuting the enemies of each own entity changes nothing
    perm = x.reshape(2, 3, 4, 5)[:, :, [2, 0, 3, 1]].reshape(2, -1)
    assert torch.allclose(enc(perm), out, atol=1e-6)


def test_action_feature_head_scores_each_action_from_its_row():
    head = ActionFeatureHead(latent_dim=6, n_actions=4, n_features=3)
    torch.nn.init.normal_(head.out.weight)
    z = torch.randn(1, 6)
    rows = torch.zeros(1, 4, 3)
    base = head(torch.cat([z, rows.flatten(1)], 1))
    rows[0, 2] = torch.tensor([1.0, 2.0, 3.0])
    changed = head(torch.cat([z, rows.flatten(1)], 1))
    assert torch.allclose(changed[0, [0, 1, 3]], base[0, [0, 1, 3]]) and not torch.isclose(changed[0, 2], base[0, 2])


def test_action_feature_head_scoring_only_the_legal_actions_gives_the_same_distribution_and_gradients():
    """legal_only: the pointer head computes its hidden layer for the legal actions alone; once masked, the
    distribution, its log-probabilities and every parameter's gradient are those of the dense head."""
    from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

    from wargym.training.networks import legal_only
    torch.manual_seed(0)
    head = ActionFeatureHead(latent_dim=6, n_actions=9, n_features=4)
    for layer in (head.base, head.out):
        torch.nn.init.normal_(layer.weight)
    torch.nn.init.normal_(head.embed)
    latent = torch.randn(5, 6 + 9 * 4)
    masks = torch.rand(5, 9) < 0.3
    masks[:, 4] = True                                   # every row has a legal action
    actions = torch.tensor([4, 4, 4, 4, 4])
    results = []
    for sparse in (False, True):
        head.zero_grad()
        if sparse:
            with legal_only(type("P", (), {"action_net": head})(), masks.numpy()):
                logits = head(latent)
        else:
            logits = head(latent)
        dist = MaskableCategoricalDistribution(9).proba_distribution(action_logits=logits)
        dist.apply_masking(masks)
        loss = -(dist.log_prob(actions).sum() + dist.entropy().sum())
        loss.backward()
        results.append((dist.distribution.probs.detach(), [p.grad.clone() for p in head.parameters()]))
        assert head.legal is None                       # the masks are held only inside the block
    (dense_p, dense_g), (sparse_p, sparse_g) = results
    assert torch.allclose(dense_p, sparse_p, atol=1e-6)
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(dense_g, sparse_g))


@pytest.mark.parametrize("game", GAME_KEYS)
def test_default_network_on_every_game_honours_masks_and_saves(game, tmp_path):
    from sb3_contrib import MaskablePPO
    env = WargymVecEnv(game, n_envs=2, options=SHORT[game], seed=0)
    obs = env.reset()
    model = MaskablePPO(policy_class(game, SHORT[game]), env, n_steps=8, batch_size=8, n_epochs=1, device="cpu",
                        policy_kwargs=policy_kwargs(game, SHORT[game]), seed=0)
    assert (type(model.policy).__name__ == "PointerPolicy") == has_action_table(game, SHORT[game])
    for _ in range(20):
        masks = env.action_masks()
        actions, _ = model.predict(obs, action_masks=masks)
        assert all(masks[i, a] for i, a in enumerate(actions))
        obs, _, _, _ = env.step(actions)
    model.learn(16)
    model.save(tmp_path / "m.zip")
    again = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    masks = env.action_masks()
    t = torch.as_tensor(obs).float()
    with torch.no_grad():
        a = model.policy.get_distribution(t, action_masks=masks).distribution.probs
        b = again.policy.get_distribution(t, action_masks=masks).distribution.probs
    assert torch.allclose(a, b) and float(a[torch.as_tensor(masks) == 0].sum()) == 0.0


def test_games_with_relations_get_the_pointer_head():
    assert has_action_table("talon") and has_action_table("planetoids")
    assert not has_action_table("talon", {"relations": False})
    assert not has_action_table("planetoids", {"relations": False})


def test_battle_force_pointer_reads_the_card_or_ship_each_action_names():
    """Battle Force has no action table in its observation; its ``action_rows`` say which observation
    values describe what each action names, and the pointer head reads them gathered: a ship action
    its ship's row (SHIP_FEATURES), a card action its card's row, nothing (zeros) for the others.
    Networks without the pointer head keep the observation's own parts (earlier checkpoints load);
    the pointer head is asked for (``--network pointer``), not the default."""
    from gymnasium import spaces
    from wargym.envs.battle_force import game as G
    from wargym.training.networks import WargymExtractor, observation_parts

    assert has_action_table("battle_force", gathered=True) and not has_action_table("battle_force")
    assert policy_class("battle_force", {}, pointer=True).__name__ == "PointerPolicy"
    assert policy_class("battle_force", {}) == "MlpPolicy"         # the default network: no pointer head
    cfg = G.build_config(G.parse_options({}))
    n = G.obs_shape(cfg)[0]
    nc, ns, fs = int(cfg.k[G.R.K_NC]), int(cfg.k[G.R.K_NS]), len(G.SHIP_FEATURES)
    ext = WargymExtractor(spaces.Box(-128, 127, (n,), np.int8), game="battle_force", pointer=True)
    assert (ext.n_actions, ext.n_action_features) == (G.num_actions(cfg), fs)
    obs = torch.arange(1, n + 1, dtype=torch.float32)[None]        # value = place + 1, so 0 means "nothing"
    table = (ext(obs)[0, ext.features_dim - ext.tail_dim:] * 4).reshape(ext.n_actions, fs)
    first_ship = int(cfg.k[G.R.K_A_SHIP])
    parts = G.split_obs(cfg, np.arange(1, n + 1))
    assert torch.equal(table[first_ship + 2], torch.as_tensor(parts["ships"][2], dtype=torch.float32))
    assert torch.equal(table[5, :8], torch.as_tensor(parts["cards"][5], dtype=torch.float32))
    assert not table[5, 8:].any() and not table[first_ship + ns:].any()
    assert first_ship == nc
    assert [name for name, _, _ in observation_parts(G, cfg)] == ["cards", "ships", "players", "globals"]
