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
import pickle

from numba.core import caching


# Modules that hold no kernel and nothing a kernel reads: the checks of a state from outside
# (plain numpy, run before any kernel sees the state), the AEC env and the renderers of a game, and
# the Python-side machinery of envs/core.  Left out of the digest, so that editing them does not
# recompile the game; tests/test_core.py checks that they define no kernel and that no module
# defining kernels imports them.
NOT_KERNEL_MODULES = ("validate.py", "env.py", "render.py", "aec.py", "pickling.py", "seeding.py", "results.py",
                      "options.py", "warmup.py", "contract.py", "vec.py", "package_cache.py", "search.py",
                      "information.py", "compile_plan.py")


def package_digest(directory: str) -> str:
    """sha1 of the names and contents of the ``.py`` files of ``directory`` (but NOT_KERNEL_MODULES)."""
    h = hashlib.sha1()
    for name in sorted(os.listdir(directory)):
        if name.endswith(".py") and name not in NOT_KERNEL_MODULES:
            with open(os.path.join(directory, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


CORE_DIRECTORY = os.path.dirname(os.path.abspath(__file__))


def package_stamp(directory: str) -> str:
    """The cache stamp of the kernels of ``directory``'s package: its digest, and for a game's
    package the digest of ``envs/core`` too (its kernels inline and call core's)."""
    digest = package_digest(directory)
    if os.path.abspath(directory) == CORE_DIRECTORY:
        return digest
    return hashlib.sha1((digest + package_digest(CORE_DIRECTORY)).encode()).hexdigest()


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


def _stale_index_is_a_miss() -> None:
    """Read a cache index that no longer unpickles as empty (a miss), instead of failing the call.

    Numba unpickles an index before it compares its stamp, and an index written by an earlier
    version of the code names the argument types of that version: a class that is gone (a game's
    former view type) raises AttributeError or ImportError there, so that a stale cache beside a
    reinstalled package stopped the first kernel call.  Such an index is stale anyway (its stamp
    differs), and Numba overwrites it with the new compile."""
    cls = getattr(caching, "IndexDataCacheFile", None)
    load = getattr(cls, "_load_index", None)
    if load is None or getattr(load, "miss_on_stale", False):
        return

    def _load_index(self):
        try:
            return load(self)
        except (AttributeError, ImportError, pickle.UnpicklingError, EOFError, TypeError):
            return {}

    _load_index.miss_on_stale = True
    cls._load_index = _load_index


def stamp_package(package_file: str, label: str) -> None:
    """Stamp the cache of every function defined in the package of ``package_file`` (its
    ``__init__.py``) with the package's digest; ``label`` names the locators (once per package).
    The shared kernels of ``envs/core`` (the loops, sampling, dice) are stamped the same way with
    the first game.  A game's stamp also covers ``envs/core``: its kernels inline and call core's
    (the views of structs.py, the dice, the geometry), so an edit there compiles every game again
    (before, a game kept machine code built with the old core).  Stamped by content, not by the
    files' times, the cache also survives reinstalling the same version (pip writes the files
    anew; their contents are the same)."""
    if label != "Core":
        stamp_package(__file__, "Core")
    _stale_index_is_a_miss()
    locators = getattr(caching.CacheImpl, "_locator_classes", None)
    if locators is None or any(c.__name__.startswith(f"{label}Package") for c in locators):
        return
    directory = os.path.dirname(os.path.abspath(package_file))
    digest = package_stamp(directory)
    locators[:0] = [_package_locator(c, directory, digest, label) for c in list(locators)]
