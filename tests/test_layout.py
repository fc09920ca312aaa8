"""The layout shows the architecture (issue 29): every kernel module of a game laid out by its
rulebook's chapters is in its RULES.md's module table, and the table's order is the order of
dependence (each module imports only the modules above it), so a reader can take the rules
chapter by chapter."""
from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ENVS = Path(__file__).resolve().parents[1] / "envs"
# the games whose rules are laid out by chapter, with a module table in RULES.md
CHAPTERED = ("talon", "battle_force", "planetoids", "union_wars")
# a game's modules that are no chapter of its rules: the Python-side layers over the kernels
NOT_CHAPTERS = {"__init__", "game", "bot", "render", "env", "validate", "information", "playtest"}
ROW = re.compile(r"^\| `(\w+)\.py` \|")


def module_table(game: str) -> list[str]:
    """The modules of the first table of RULES.md whose rows name a module, in order."""
    rows, started = [], False
    for line in (ENVS / game / "RULES.md").read_text().splitlines():
        m = ROW.match(line)
        if m:
            rows.append(m.group(1))
            started = True
        elif started and not line.startswith("|"):
            break
    return rows


def package_imports(path: Path) -> set[str]:
    """The sibling modules ``path`` imports (``from .x import ...``, ``from . import x``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                names.add(node.module.split(".")[0])
            else:
                names.update(a.name for a in node.names)
    return names


@pytest.mark.parametrize("game", CHAPTERED)
def test_every_kernel_module_is_in_the_module_table(game):
    table = module_table(game)
    modules = {p.stem for p in (ENVS / game).glob("*.py")} - NOT_CHAPTERS
    assert len(table) == len(set(table)), "a module listed twice"
    assert set(table) == modules, (f"not in RULES.md's table: {sorted(modules - set(table))}; "
                                   f"in it but no module: {sorted(set(table) - modules)}")


@pytest.mark.parametrize("game", CHAPTERED)
def test_each_module_imports_only_the_modules_above_it(game):
    table = module_table(game)
    place = {m: k for k, m in enumerate(table)}
    for k, module in enumerate(table):
        if module == "rules":     # the batched entry points and the re-export of every chapter
            continue
        later = sorted(m for m in package_imports(ENVS / game / f"{module}.py") if place.get(m, -1) >= k)
        assert not later, f"{game}/{module}.py imports {later}, listed at or below it"


@pytest.mark.parametrize("game", CHAPTERED)
def test_rules_chapters_follow_the_module_table(game):
    """``rules.CHAPTERS``, the chapter modules in code, in the table's order."""
    rules = importlib.import_module(f"wargym.envs.{game}.rules")
    chapters = [m.__name__.rsplit(".", 1)[-1] for m in rules.CHAPTERS]
    assert chapters == [m for m in module_table(game) if m != "rules"]
