"""The installed package carries every data file of the repository.

`pip install .` copies only the files pyproject.toml's package-data names; a
data file added to the source tree but not to that list works in an editable
install and breaks in a real one (a UnionWars table once did, deep inside the
game's tests).  This test finds such a file by name.  With an editable install
the installed package *is* the source tree and the test passes trivially.
"""

from pathlib import Path

import wargym

REPO = Path(__file__).resolve().parent.parent
INSTALLED = Path(wargym.__file__).resolve().parent
PACKAGE_DIRS = ("envs", "wrappers", "training", "arena", "serve", "baselines", "benchmarks")
SKIP_PARTS = {"__pycache__", ".pytest_cache"}


def repo_data_files() -> list[Path]:
    files = []
    for top in PACKAGE_DIRS:
        for path in (REPO / top).rglob("*"):
            if (path.is_file() and path.suffix not in (".py", ".pyc")
                    and not SKIP_PARTS.intersection(path.parts)):
                files.append(path.relative_to(REPO))
    return sorted(files)


def test_every_data_file_is_installed():
    assert repo_data_files(), "no data files found: is the test run from the repository?"
    missing = [str(rel) for rel in repo_data_files() if not (INSTALLED / rel).is_file()]
    assert not missing, (f"files in the repository but not in the installed package {INSTALLED} "
                         f"(add them to [tool.setuptools.package-data]): {missing}")
