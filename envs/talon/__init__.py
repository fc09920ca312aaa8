"""Talon (seed 000) as a wargym game: see game.py, the rules modules and RULES.md.

The rules are split over several modules (RULES.md "Code layout"), so every cached kernel of
this package is stamped with a digest of all its modules (envs/core/package_cache.py says why).
"""
from __future__ import annotations

from ..core.package_cache import stamp_package

stamp_package(__file__, "Talon")
