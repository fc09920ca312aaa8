"""Numba's on-disk cache, stamped per package by content.

Numba invalidates a cached function when its own file changes, not when a function it calls
or inlines from another file does; a game whose rules live in several modules would keep
stale machine code in the other modules' cache entries after an edit.  ``stamp_package``
installs cache locators that stamp every cached function of one package with a digest of
all the package's ``.py`` files instead of its own file's time stamp, so that any edit in the
package recompiles its kernels.  It uses Numba internals (``CacheImpl._locator_classes``)
and does nothing if they are missing.
"""
from __future__ import annotations

import hashlib
import os

from numba.core import caching


# Modules that hold no kernel and nothing a kernel reads: the checks of a state from outside
# (plain numpy, run before any kernel sees the state), the AEC env and the renderers of a game, and
# the Python-side machinery of envs/core.  Left out of the digest, so that editing them does not
# recompile the game; tests/test_core.py checks that they define no kernel and that no module
# defining kernels imports them.
NOT_KERNEL_MODULES = ("validate.py", "env.py", "render.py", "aec.py", "pickling.py", "seeding.py", "results.py",
                      "options.py", "warmup.py", "contract.py", "vec.py", "package_cache.py", "search.py",
                      "information.py")


def package_digest(directory: str) -> str:
    """sha1 of the names and contents of the ``.py`` files of ``directory`` (but NOT_KERNEL_MODULES)."""
    h = hashlib.sha1()
    for name in sorted(os.listdir(directory)):
        if name.endswith(".py") and name not in NOT_KERNEL_MODULES:
            with open(os.path.join(directory, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


def _package_locator(base, directory: str, digest: str, label: str):
    """``base`` (one of Numba's cache locators) for ``directory``'s files only, stamped by ``digest``."""
    class PackageLocator(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.dirname(os.path.abspath(py_file)) != directory:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return digest

    PackageLocator.__name__ = PackageLocator.__qualname__ = f"{label}Package{base.__name__}"
    return PackageLocator


def stamp_package(package_file: str, label: str) -> None:
    """Stamp the cache of every function defined in the package of ``package_file`` (its
    ``__init__.py``) with the package's digest; ``label`` names the locators (once per package).
    The shared kernels of ``envs/core`` (the loops, sampling, dice) are stamped the same way with
    the first game.  Stamped by content, not by the files' times, the cache also survives
    reinstalling the same version (pip writes the files anew; their contents are the same)."""
    if label != "Core":
        stamp_package(__file__, "Core")
    locators = getattr(caching.CacheImpl, "_locator_classes", None)
    if locators is None or any(c.__name__.startswith(f"{label}Package") for c in locators):
        return
    directory = os.path.dirname(os.path.abspath(package_file))
    digest = package_digest(directory)
    locators[:0] = [_package_locator(c, directory, digest, label) for c in list(locators)]
