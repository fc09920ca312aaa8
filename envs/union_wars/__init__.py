"""UnionWars First Contact (seed 003) as a wargym game: see game.py, the rules modules named
after the seed's chapters, and RULES.md.

Numba invalidates a cached function when its own file changes, not when a function it calls
from another file does.  The rules are split over several modules (general, sight, movement,
shooting, melee, psychology, actions, reactions, battle, rules, bot), so the cache locators
installed here stamp every cached function of this package with a digest of all the
package's modules: an edit anywhere in it recompiles its kernels.  (The same mechanism as
envs/talon/__init__.py.)
"""
from __future__ import annotations

import hashlib
import os

from numba.core import caching

_DIR = os.path.dirname(os.path.abspath(__file__))


def _package_digest() -> str:
    h = hashlib.sha1()
    for name in sorted(os.listdir(_DIR)):
        if name.endswith(".py"):
            with open(os.path.join(_DIR, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


_DIGEST = _package_digest()


def _package_locator(base):
    """``base`` (one of Numba's cache locators) for this package's files only, stamped by _DIGEST."""
    class PackageLocator(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.dirname(os.path.abspath(py_file)) != _DIR:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return _DIGEST

    PackageLocator.__name__ = PackageLocator.__qualname__ = f"UnionWarsPackage{base.__name__}"
    return PackageLocator


_LOCATORS = getattr(caching.CacheImpl, "_locator_classes", None)
if _LOCATORS is not None and not any(c.__name__.startswith("UnionWarsPackage") for c in _LOCATORS):
    _LOCATORS[:0] = [_package_locator(c) for c in list(_LOCATORS)]
