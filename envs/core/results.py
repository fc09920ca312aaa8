"""The result every wargym game reports in its ``infos``, one schema for all games.

``winner``: the seat that won, or ``NO_WINNER`` (-1) while the game runs, for a draw, a
shared win or a game cut off by ``max_decisions``; ``scores``: one number per seat, what
the game counts as points (``rounds`` are the game's turns or rounds so far); then the
game's own keys.  The AEC envs put it in every agent's ``infos`` from ``reset`` on, so a
client that builds its specs from the first infos (TorchRL) sees the keys it will get at
the end, with neutral values until then.
"""
from __future__ import annotations

NO_WINNER = -1


def result_info(winner: int, scores, rounds: int, **own) -> dict:
    """The shared keys first, then the game's own (``own`` may not redefine them)."""
    shared = {"winner": int(winner), "scores": [int(x) for x in scores], "rounds": int(rounds)}
    clash = set(shared) & set(own)
    if clash:
        raise ValueError(f"a game's own result keys may not redefine {sorted(clash)}")
    return {**shared, **own}
