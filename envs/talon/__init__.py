"""Talon (seed 000) as a wargym game: see game.py, the rules modules and RULES.md.

Numba's on-disk cache of a compiled function is invalidated when the function's own file
changes, not when a function it calls or inlines from another file does; the rules are
split over several modules (RULES.md "Code layout"), so an edit to one of them would
leave stale machine code in the others' cache entries.  The cache locators installed here
stamp every cached function of this package with a digest of all the package's modules
instead of its own file's time stamp: any edit here recompiles the package's kernels.
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

    PackageLocator.__name__ = PackageLocator.__qualname__ = f"TalonPackage{base.__name__}"
    return PackageLocator


_LOCATORS = getattr(caching.CacheImpl, "_locator_classes", None)
if _LOCATORS is not None and not any(c.__name__.startswith("TalonPackage") for c in _LOCATORS):
    _LOCATORS[:0] = [_package_locator(c) for c in list(_LOCATORS)]
