"""Golden playthroughs (playthrough.py): every committed game replays step for step, so that an
unintended change to any rule, observation, mask, reward or dice stream fails here, naming the first
step that moved.  A deliberate change regenerates them: ``python -m wargym playthrough --write``."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from wargym import playthrough
from wargym.registration import GAMES, LEGACY_VERSIONS

GOLDEN = Path(__file__).parent / "golden"   # the package may be installed elsewhere: the files are here


@pytest.mark.parametrize("module,name,options,seed", playthrough.PLAYTHROUGHS,
                         ids=[f"{m}-{n}" for m, n, _, _ in playthrough.PLAYTHROUGHS])
def test_golden_playthrough_replays_step_for_step(module, name, options, seed):
    golden = json.loads(playthrough.golden_path(module, name, GOLDEN).read_text())
    assert (golden["module"], golden["options"], golden["seed"]) == (module, options, seed)
    diff = playthrough.replay(golden)
    assert diff is None, (f"{module}-{name}: step {diff[0]}: {diff[1]}; if the change is deliberate, "
                          f"regenerate with `python -m wargym playthrough --write {module}` and review the diff")


def test_every_registered_version_has_a_playthrough():
    """A fifth game, or a new version, is covered by adding it to the registry and to PLAYTHROUGHS."""
    covered = {module for module, *_ in playthrough.PLAYTHROUGHS}
    assert set(GAMES) | set(LEGACY_VERSIONS) <= covered


def test_a_changed_step_is_named():
    """The replay names the first step whose hash differs (here a forged hash at step 3)."""
    module, _name, options, seed = playthrough.PLAYTHROUGHS[0]
    golden = playthrough.record(module, options, seed, max_steps=5)
    golden["steps"][3]["hash"] = "0" * 16
    assert playthrough.replay(golden)[0] == 3
