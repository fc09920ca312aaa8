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
            raise ValueError(f"option {key}={out[key]!r:.80} is not one of {allowed}")
    decisions = out.get("max_decisions", 0)
    if not isinstance(decisions, int) or isinstance(decisions, bool) or not 0 <= decisions <= MAX_DECISIONS:
        raise ValueError(f"option max_decisions must be an integer 0..{MAX_DECISIONS}, got {decisions!r:.40}")
    return out


MAX_DECISIONS = 10 ** 9  # the kernels count decisions in 32-bit integers
