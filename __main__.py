"""``python -m wargym``: what is installed and how to start.

Imports no game, so it compiles nothing and answers at once.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import shutil
from pathlib import Path

from . import __version__
from .registration import GAMES, gymnasium_id, pettingzoo_id

TRAIN_EXTRA = ("stable_baselines3", "sb3_contrib", "torch")


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _other_commands() -> list[str]:
    """The package's console scripts other than wargym-train, as installed (none if not installed)."""
    try:
        points = importlib.metadata.distribution("wargym").entry_points
    except importlib.metadata.PackageNotFoundError:
        return []
    return [f"  {ep.name:<24} ({ep.value})" for ep in points
            if ep.group == "console_scripts" and ep.name != "wargym-train"]


def summary() -> str:
    here = Path(__file__).resolve().parent
    train_ok = all(_installed(m) for m in TRAIN_EXTRA)
    train_note = "installed" if train_ok else 'not installed: pip install "wargym[train]"'
    script = shutil.which("wargym-train")
    lines = [
        f"wargym {__version__}: tabletop wargames as PettingZoo environments on a batched Numba core",
        f"installed at {here}",
        "",
        "Games (PettingZoo AEC module, registry ids for pettingzoo.make and gymnasium.make):",
    ]
    for module, (_gym_name, _key, about) in GAMES.items():
        lines.append(f"  wargym.envs.{module:<16} {pettingzoo_id(module):<24} {gymnasium_id(module):<22} {about}")
    lines += [
        "",
        "Start:",
        "  from wargym.envs import planetoids_v0",
        '  env = planetoids_v0.env(render_mode="ansi"); env.reset(seed=0); print(env.render())',
        '  import wargym, pettingzoo; env = pettingzoo.make("aec", "wargym/planetoids_v0")',
        '  import wargym, gymnasium; env = gymnasium.make("wargym/Planetoids-v0", opponent="random")'
        "  (needs the train extra)",
        "  The first env of each game compiles its kernels (about a minute); later runs load them from the cache.",
        "",
        f"Commands (train extra: {train_note}):",
        "  wargym-train             train MaskablePPO on Planetoids against a random opponent; --help for the knobs"
        + ("" if script else " (not on PATH here)"),
        "  python -m wargym.training.train   the same, without the console script",
        *_other_commands(),
        "  python -m wargym.benchmarks.bench --quick   throughput on this machine (needs the test extra)",
        "",
        "Rules and the agent interface of each game: envs/<game>/RULES.md; overview: README.md",
    ]
    return "\n".join(lines)


def main() -> None:
    print(summary())


if __name__ == "__main__":
    main()
