"""Trained agents shipped with wargym, loaded by name.

    import wargym.baselines as baselines
    baselines.available("talon")              # ['ppo-dagger', ...]
    model = baselines.load("talon", "ppo-dagger")
    actions, _ = model.predict(obs_batch, action_masks=mask_batch, deterministic=False)

A checkpoint is a MaskablePPO model (sb3-contrib, the ``train`` extra) with the
game's compact network (``training/networks.py``), saved without its optimiser
state.  ``index.json`` beside this file describes each one: the command that
trained it, its training decisions and wall time, the commit, its size, and its
measured win rates; ``BASELINES.md`` at the top of the repository is the table
that ``python -m wargym.benchmarks.baselines`` generated with it.

Only files listed in ``index.json`` are ever loaded (SB3 zips unpickle code, so
a name never becomes a path chosen by a caller).
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
INDEX = HERE / "index.json"


def game_key(game: str) -> str:
    """``"talon"`` for ``"talon"``, ``"talon_v1"`` or ``"wargym/talon_v0"`` (any version)."""
    key = str(game).rsplit("/", 1)[-1]
    head, _, version = key.rpartition("_v")
    return head if head and version.isdigit() else key


@lru_cache(maxsize=1)
def _index() -> dict:
    if not INDEX.is_file():
        return {}
    return json.loads(INDEX.read_text())


def available(game: str | None = None) -> dict[str, list[str]] | list[str]:
    """Names of the shipped checkpoints of ``game`` (a list), or of every game (a dict)."""
    index = _index()
    if game is None:
        return {g: sorted(entries) for g, entries in index.items()}
    return sorted(index.get(game_key(game), {}))


def describe(game: str, name: str) -> dict:
    """The index entry of one checkpoint (how it was trained and how strong it is)."""
    entries = _index().get(game_key(game), {})
    if name not in entries:
        known = ", ".join(sorted(entries)) or "none"
        raise KeyError(f"no shipped baseline {name!r} for {game_key(game)!r}; available: {known}")
    return dict(entries[name])


def path(game: str, name: str) -> Path:
    """The file of a shipped checkpoint (a KeyError naming the available ones if unknown)."""
    return HERE / describe(game, name)["file"]


def shipped(file) -> tuple[str, str] | None:
    """``(game, name)`` when ``file`` is a shipped checkpoint listed in ``index.json``, else None
    (so that loaders given the path load it as ``load`` does, with its index entry's options)."""
    try:
        file = Path(file).resolve()
    except (OSError, TypeError):
        return None
    if file.parent != HERE:
        return None
    for game, entries in _index().items():
        for name, entry in entries.items():
            if entry.get("file") == file.name:
                return game, name
    return None


def load(game: str, name: str):
    """The shipped checkpoint ``name`` of ``game`` as a MaskablePPO model on the CPU.

    The game options of its index entry are given to its network's observation layout too
    (``training.networks.WargymExtractor`` rebuilds the game's config from the options saved in
    the checkpoint): a checkpoint trained before an option's default changed the observation
    (UnionWars' ``exploration_bank``) names the old value in ``index.json`` and still loads."""
    file = path(game, name)
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.save_util import load_from_zip_file
    except ImportError as e:
        raise ImportError("shipped baselines are MaskablePPO models: pip install 'wargym[train]'") from e
    options = describe(game, name)["options"]
    if not options:
        return MaskablePPO.load(file, device="cpu")
    data, _, _ = load_from_zip_file(file, device="cpu", load_data=True)
    policy_kwargs = dict(data["policy_kwargs"])
    extractor = dict(policy_kwargs.get("features_extractor_kwargs", {}))
    extractor["options"] = {**options, **(extractor.get("options") or {})}
    policy_kwargs["features_extractor_kwargs"] = extractor
    return MaskablePPO.load(file, device="cpu", custom_objects={"policy_kwargs": policy_kwargs})


def save_compact(model, file) -> int:
    """Save ``model`` with a fresh optimiser (Adam's moment estimates are not needed to play;
    fine-tuning starts them again) and without its training-time buffers, restoring the
    model's own optimiser afterwards; returns the file's size in bytes."""
    file = Path(file)
    policy = model.policy
    optimizer = policy.optimizer
    try:
        policy.optimizer = type(optimizer)(policy.parameters(), **optimizer.defaults)
        # and without the last rollout's observations (256 games' worth: most of SB3's "data")
        model.save(file, exclude=["_last_obs", "_last_original_obs", "_last_episode_starts", "ep_info_buffer",
                                  "ep_success_buffer"])
    finally:
        policy.optimizer = optimizer
    return file.stat().st_size
