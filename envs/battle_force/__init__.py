"""Star Fleet Battle Force (seed 001) as a wargym game: see game.py, rules.py and RULES.md.

Every cached kernel of this package is stamped with a digest of its modules' contents
(envs/core/package_cache.py): an edit recompiles them, a reinstall of the same version does not.
"""
from __future__ import annotations

from ..core.package_cache import stamp_package

stamp_package(__file__, "BattleForce")
