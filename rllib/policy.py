"""An RLlib checkpoint of ``WargymTorchModule`` as a policy anything in wargym can seat.

``load(path)`` accepts the folder ``Algorithm.save_to_path`` wrote (``<run>/checkpoint``,
the module ``default_policy`` or, from self-play, ``main``) or a module's own folder
(``.../learner_group/learner/rl_module/<id>``) and returns a ``RLlibPolicy`` with
SB3's ``predict(obs, action_masks=..., deterministic=...)``, ``observation_space``
(the flat Box) and ``action_space``, which is what the arena (``arena/matches.py``)
and the opponents of ``wrappers/opponents.py`` call.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from gymnasium import spaces

MODULES = ("default_policy", "main")
CHECKPOINT_MARK = "rllib_checkpoint.json"


def is_checkpoint(path) -> bool:
    """True for a folder written by RLlib (an algorithm's or a module's checkpoint)."""
    p = Path(path)
    return p.is_dir() and (p / CHECKPOINT_MARK).is_file()


def module_dir(path) -> Path:
    """The folder of the trained module inside an algorithm checkpoint (or ``path`` itself)."""
    p = Path(path)
    if not is_checkpoint(p):
        raise ValueError(f"{str(p)!r} is not an RLlib checkpoint (no {CHECKPOINT_MARK})")
    modules = p / "learner_group" / "learner" / "rl_module"
    if not modules.is_dir():
        return p  # already a module's folder
    for name in MODULES:
        if (modules / name).is_dir():
            return modules / name
    found = sorted(d.name for d in modules.iterdir() if d.is_dir())
    raise ValueError(f"no module {' or '.join(MODULES)} in {str(p)!r} (it has {found})")


class RLlibPolicy:
    """A loaded ``WargymTorchModule`` behind SB3's ``predict``."""

    def __init__(self, module, path):
        self.module = module
        self.path = Path(path)
        self.observation_space = spaces.Box(-128, 127, module.observation_space["observation"].shape, np.int8)
        self.action_space = module.action_space

    def predict(self, obs, action_masks=None, deterministic: bool = False, **_):
        obs = np.asarray(obs)
        masks = np.ones((len(obs), self.action_space.n), np.int8) if action_masks is None else action_masks
        return self.module.act(obs, masks, deterministic=deterministic), None

    def __call__(self, obs, masks):
        """The opponent protocol of ``wrappers/opponents.py``: a callable (obs, masks) -> actions."""
        return self.module.act(obs, masks)


def load(path) -> RLlibPolicy:
    """The policy saved at ``path`` (see module doc), on the CPU, in eval mode."""
    from ray.rllib.core.rl_module.rl_module import RLModule
    where = module_dir(path)
    try:
        module = RLModule.from_checkpoint(str(where.resolve()))
    except Exception as e:  # a damaged or foreign checkpoint: say which, not a deep traceback
        raise ValueError(f"cannot load the RLlib module at {str(where)!r}: {e}") from e
    module.eval()
    return RLlibPolicy(module, path)


def export_sb3(policy: RLlibPolicy, game: str, options: dict | None, file) -> Path:
    """Save the module as a MaskablePPO zip (same layers, same names: ``module.sb3_state_dict``),
    which ``wargym serve``, ``wargym.baselines`` and everything else that reads SB3
    checkpoints load like any other; returns the file."""
    from sb3_contrib import MaskablePPO

    from ..training.networks import policy_kwargs
    from ..wrappers.sb3 import WargymVecEnv
    from .module import sb3_state_dict
    cfg = dict(policy.module.model_config or {})
    env = WargymVecEnv(game, n_envs=1, options=options)
    kwargs = policy_kwargs(game, options, features_dim=int(cfg.get("features_dim", 64)),
                           net_arch=(int(cfg.get("hidden", 64)),), pointer=False)    # the RLlib module's plain head
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=8, device="cpu", policy_kwargs=kwargs)
    model.policy.load_state_dict(sb3_state_dict(policy.module))
    model.save(file)
    return Path(file)
