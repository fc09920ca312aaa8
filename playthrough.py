"""Golden playthroughs: committed records of whole games that catch any unintended change to a rule.

In the spirit of OpenSpiel's playthrough files.  For each entry of ``PLAYTHROUGHS`` (a game version
and a few option sets) a file in ``tests/golden/`` holds the seed, the actions of one game played by
a seeded uniform choice among the legal actions, and after every step a hash of what the AEC env
shows and holds: the observation and mask of the agent to move, every agent's reward,
termination and truncation, and every array of the game's state (dice streams included).
``tests/test_golden.py`` replays the actions and compares the hashes step by step; the first step
that differs is named with its action.

A deliberate change to the rules or to an observation regenerates the files with one command (run
from the repository root, where tests/golden/ is),
and the change shows up in review as a diff of the files that moved::

    python -m wargym playthrough --write            # every file
    python -m wargym playthrough --write talon_v1   # the files of one env module
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from .registration import env_module

# the files live in the checkout, beside the tests (an installed package has no tests/): the
# commands run from the repository root, the tests pass their own folder
GOLDEN_DIR = Path("tests") / "golden"
FORMAT = 1
MAX_STEPS = 1000  # decisions recorded per playthrough (or until the game ends)

# (env module, name of the option set, options, seed): a few option sets per game, the current
# versions and the earlier ones still registered, chosen to reach the optional rules
PLAYTHROUGHS = (
    ("planetoids_v2", "default", {}, 0),
    ("planetoids_v2", "single_visible", {"base_footprint": "single", "ship_length": 1, "keep_away": "visible",
                                         "colour_table": "cycle", "setup": "fixed", "reward": "score"}, 1),
    ("planetoids_v1", "default", {}, 2),
    ("planetoids_v0", "default", {}, 3),
    ("talon_v1", "default", {}, 0),
    ("talon_v1", "fleet_action", {"scenario": "fleet_action"}, 1),
    ("talon_v1", "carrier_strike", {"scenario": "carrier_strike", "reward": "points"}, 2),
    ("talon_v1", "missiles", {"scenario": "missiles"}, 3),
    ("talon_v0", "default", {}, 4),
    ("battle_force_v1", "default", {}, 0),
    ("battle_force_v1", "four_players", {"players": 4}, 1),
    ("battle_force_v1", "basic", {"game": "basic", "formation": False, "fighters": False}, 2),
    ("battle_force_v0", "default", {}, 0),
    ("union_wars_v2", "default", {}, 3),
    ("union_wars_v1", "default", {}, 0),
    ("union_wars_v1", "optional_rules", {"weight": True, "ammo": True, "jamming": True, "reserves": True,
                                         "exploration_bank": "own_tests"}, 1),
    ("union_wars_v0", "default", {}, 2),
)


def golden_path(module: str, name: str, directory: Path = GOLDEN_DIR) -> Path:
    return Path(directory) / f"{module}-{name}.json"


def _digest(env, agent) -> str:
    """A short hash of what the env shows the agent to move and of the whole game state."""
    h = hashlib.sha256()
    if agent is not None:
        seen = env.observe(agent)
        for key in ("observation", "action_mask"):
            h.update(np.ascontiguousarray(seen[key]).tobytes())
    for a in env.possible_agents:
        h.update(np.float64(env.rewards.get(a, 0.0)).tobytes())
        h.update(bytes([bool(env.terminations.get(a, True)), bool(env.truncations.get(a, True))]))
    state = env.core.state
    for name in sorted(state.arrays):
        h.update(name.encode())
        h.update(np.ascontiguousarray(state.arrays[name]).tobytes())
    h.update(np.ascontiguousarray(state.truncated).tobytes())
    return h.hexdigest()[:16]


def make_env(module: str, options: dict):
    return env_module(module).raw_env(options=options)


def record(module: str, options: dict, seed: int, max_steps: int = MAX_STEPS) -> dict:
    """Play one game with seeded uniform legal actions and hash every step."""
    env = make_env(module, options)
    env.reset(seed=seed)
    chooser = np.random.default_rng(seed)
    steps = [{"action": None, "hash": _digest(env, env.agent_selection)}]
    while env.agents and len(steps) <= max_steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            action = None
        else:
            action = int(chooser.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
        env.step(action)
        steps.append({"action": action, "name": None if action is None else env.action_name(action),
                      "hash": _digest(env, env.agent_selection if env.agents else None)})
    return {"format": FORMAT, "module": module, "options": options, "seed": seed, "steps": steps}


def replay(golden: dict) -> tuple[int, str] | None:
    """Replay a golden record; ``None`` if every step matches, else (step, what differs)."""
    env = make_env(golden["module"], golden["options"])
    env.reset(seed=golden["seed"])
    steps = golden["steps"]
    if _digest(env, env.agent_selection) != steps[0]["hash"]:
        return 0, "the state after reset differs"
    for t, step in enumerate(steps[1:], start=1):
        if not env.agents:
            return t, "the game ended earlier than recorded"
        action = step["action"]
        if action is not None and not env.observe(env.agent_selection)["action_mask"][action]:
            return t, f"action {action} ({step['name']}) is no longer legal: {env.why_illegal(action)}"
        env.step(action)
        if _digest(env, env.agent_selection if env.agents else None) != step["hash"]:
            return t, f"after action {action} ({step['name']}) the observation, mask, rewards or state differ"
    return None


def dumps(golden: dict) -> str:
    """JSON with one line per step, so that a change reads as a diff of the steps it moved."""
    head = {k: v for k, v in golden.items() if k != "steps"}
    lines = ",\n".join(json.dumps(step) for step in golden["steps"])
    return json.dumps(head)[:-1] + ', "steps": [\n' + lines + "\n]}\n"


def write(modules: list[str] | None = None) -> list[Path]:
    """Regenerate the golden files (of ``modules``, default all); returns the paths written."""
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)  # (run from the repository root)
    written = []
    for module, name, options, seed in PLAYTHROUGHS:
        if modules and module not in modules:
            continue
        path = golden_path(module, name)
        path.write_text(dumps(record(module, options, seed)))
        written.append(path)
        print(f"wrote {path.name}: {len(json.loads(path.read_text())['steps']) - 1} steps")
    return written
