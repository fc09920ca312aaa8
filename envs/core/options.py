"""The checks every game's ``parse_options`` starts with, written once."""
from __future__ import annotations

import copy
import json


def merged_options(game_name: str, defaults: dict, choices: dict, options: dict) -> dict:
    """``defaults`` updated with ``options`` (a copy; options must be JSON values, as in a
    scenario or a save), after refusing unknown names and values outside ``choices``."""
    unknown = set(options) - set(defaults)
    if unknown:
        raise ValueError(f"unknown {game_name} option(s) {sorted(unknown)}; known: {sorted(defaults)}")
    out = copy.deepcopy(defaults)
    out.update(json.loads(json.dumps(options)))
    for key, allowed in choices.items():
        if out[key] not in allowed:
            raise ValueError(f"option {key}={out[key]!r} is not one of {allowed}")
    return out
