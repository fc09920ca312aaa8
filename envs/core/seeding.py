"""Seeds of successive games, drawn as Gymnasium and PettingZoo draw them.

``reset(seed=s)`` plays the games of seed ``s`` and starts a stream from ``s``;
every ``reset()`` after it continues that stream, so two runs that start with the
same seed replay the same games, however many resets follow (a seeded run is
reproducible beyond its first game).  ``reset()`` before any seed starts the
stream from OS entropy, once.
"""
from __future__ import annotations

import operator

import numpy as np

SEED_BOUND = 2**63  # drawn seeds are in 0..SEED_BOUND-1


class SeedStream:
    """The seed of each reset: the one given, else the next one of the stream."""

    def __init__(self):
        self._rng: np.random.Generator | None = None

    def next(self, seed=None) -> int:
        if seed is not None:
            seed = self.checked(seed)
            self._rng = np.random.default_rng(seed & (2**64 - 1))
            return seed
        if self._rng is None:
            self._rng = np.random.default_rng()
        return int(self._rng.integers(SEED_BOUND))

    @staticmethod
    def checked(seed) -> int:
        """``seed`` as an int; a float, string or bool raises ``TypeError`` (3.7 is no seed)."""
        if isinstance(seed, (bool, np.bool_)):
            raise TypeError(f"a seed is an integer, got {seed!r}")
        try:
            return operator.index(seed)
        except TypeError:
            raise TypeError(f"a seed is an integer, got {seed!r} ({type(seed).__name__})") from None
