"""Who can play in the arena: a game's built-in policies and trained checkpoints (SB3 zips, RLlib folders)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..envs.core.search import is_search_spec
from ..registration import game_key, load_game  # noqa: F401 (arena.policies.load_game: the arena's callers use it)


def builtin_names(game) -> list[str]:
    """The game's built-in policies, one name per policy: aliases (Battle Force's "scripted" is
    its "solitaire") are dropped, keeping the first name ``bot.POLICIES`` gives."""
    seen, names = set(), []
    for name, policy_id in game.bot.POLICIES.items():
        if policy_id not in seen:
            seen.add(policy_id)
            names.append(name)
    return names


@dataclass
class Policy:
    """One entrant: a built-in policy (``builtin`` = its id in ``bot.POLICIES``), a search bot
    (``search`` = its simulations per decision, or per pass with ``search_ms``, its milliseconds
    a decision; envs/core/search.py) or a model."""
    name: str
    builtin: int | None = None
    path: Path | None = None
    model: object = field(default=None, repr=False)
    search: int | None = None
    search_ms: float | None = None
    greedy: bool = False   # a model plays its most likely action instead of sampling one

    @property
    def source(self) -> str:
        """Where it comes from, for the report."""
        if self.is_builtin:
            return "built-in"
        from ..envs.core.search import spec_anchor
        anchor = spec_anchor(self.name) if self.search is not None else None
        kind = (f"Monte Carlo tree search anchored on the shipped agent {anchor}, the scripted bot its rollouts"
                if anchor else "Monte Carlo tree search, the scripted bot its prior and rollouts"
                if self.name.startswith("mcts") else "Monte Carlo policy improvement of the scripted bot")
        if self.search_ms is not None:
            return f"{kind}, {self.search_ms:g} ms a decision"
        if self.search is not None:
            return f"{kind}, {self.search} simulations a decision"
        return f"{self.path}, its most likely actions" if self.greedy else str(self.path)

    @property
    def is_builtin(self) -> bool:
        return self.builtin is not None


def parse_policy(spec: str, game) -> Policy:
    """``"NAME"``: a built-in policy of the game; ``"NAME=PATH"``: a MaskablePPO checkpoint (.zip)
    or an RLlib checkpoint folder (``wargym-train --backend rllib``);
    ``"baseline:NAME"``: a checkpoint shipped with wargym (``wargym.baselines``);
    ``"search"``, ``"search:SIMULATIONS"`` or ``"search:MILLISECONDSms"``: the flat search bot, and
    ``"mcts"`` with the same budgets the tree search bot (envs/core/search.py, default 64 simulations),
    ``"mcts:N@BASELINE"`` anchored on a shipped agent (the move its root keeps unless another clearly
    beats it; the game played with the agent's options)."""
    if is_search_spec(spec):
        simulations, milliseconds = parse_search_budget(spec, game)
        return Policy(spec.strip(), search=simulations, search_ms=milliseconds)
    if spec.startswith("baseline:"):
        from .. import baselines
        shipped = spec.partition(":")[2].strip()
        try:
            return Policy(spec, path=baselines.path(game_key(game), shipped))
        except KeyError as e:
            raise ValueError(e.args[0]) from None
    name, sep, path = spec.partition("=")
    name = name.strip()
    if not name:
        raise ValueError(f"policy {spec!r} has no name (use NAME, NAME=PATH.zip or baseline:NAME)")
    if not sep:
        if name not in game.bot.POLICIES:
            raise ValueError(f"unknown policy {name!r}: built-in policies of this game are "
                             f"{', '.join(game.bot.POLICIES)}; give a checkpoint as NAME=PATH.zip")
        return Policy(name, builtin=int(game.bot.POLICIES[name]))
    if name in game.bot.POLICIES:
        raise ValueError(f"checkpoint name {name!r} is the name of a built-in policy; choose another")
    file = Path(path.strip()).expanduser()
    if not is_checkpoint_path(file):
        raise ValueError(f"checkpoint of policy {name!r} not found: {str(file)!r}")
    return Policy(name, path=file)


def parse_search_budget(spec: str, game) -> tuple[int, float | None]:
    """``search``, ``search:N`` (N simulations a decision) or ``search:Nms`` (N milliseconds a
    decision), or the same of ``mcts``: (simulations, milliseconds or None), by ``core.search.parse_budget``.  Refused for
    a game whose hidden cards the search could only read (hidden information and no ``determinise``)."""
    from ..envs.core.search import check_anchor, parse_budget, searchable
    if not searchable(game):
        raise ValueError(f"policy {spec!r}: the search bot does not play {game.NAME} (its players hold "
                         "hidden cards the search would read)")
    try:
        check_anchor(spec, game)
        return parse_budget(spec)
    except ValueError as e:
        raise ValueError(f"policy {e}") from None


def _is_rllib_checkpoint(path: Path) -> bool:
    """A folder written by RLlib (``wargym-train --backend rllib``: ``<run>/checkpoint``)."""
    return path.is_dir() and (path / "rllib_checkpoint.json").is_file()


def is_checkpoint_path(path: Path) -> bool:
    """A MaskablePPO zip or an RLlib checkpoint folder, as far as the file system tells."""
    return path.is_file() or _is_rllib_checkpoint(path)


def load_model(path: Path):
    """The model of a checkpoint: an RLlib checkpoint folder (wargym.rllib.policy) or a MaskablePPO
    zip; either answers ``predict(obs, action_masks=...)`` and has the two spaces."""
    if _is_rllib_checkpoint(path):
        try:
            from ..rllib.policy import load
        except ImportError as e:
            raise ValueError("RLlib checkpoints need ray: pip install 'wargym[rllib]'") from e
        return load(path)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:
        raise ValueError("checkpoints need sb3-contrib: pip install 'wargym[train]'") from e
    from .. import baselines
    entry = baselines.shipped(path)
    if entry is not None:
        return baselines.load(*entry)     # with the game options its index entry names
    return MaskablePPO.load(path, device="cpu")


def _load_model(policy: Policy):
    return load_model(policy.path)


def load_checkpoint(policy: Policy, obs_size: int, num_actions: int) -> None:
    """Load a checkpoint (MaskablePPO zip or RLlib folder) into ``policy.model``; check it fits the game."""
    try:
        model = _load_model(policy)
    except Exception as e:  # a corrupt or foreign checkpoint: say which file, not a deep traceback
        raise ValueError(f"cannot load checkpoint of policy {policy.name!r} from {str(policy.path)!r}: {e}") from e
    obs_shape = tuple(model.observation_space.shape)
    n_actions = getattr(model.action_space, "n", None)
    if obs_shape != (obs_size,) or n_actions != num_actions:
        raise ValueError(f"checkpoint of policy {policy.name!r} expects observations {obs_shape} and "
                         f"{n_actions} actions; this game with these options has ({obs_size},) and {num_actions}")
    policy.model = model


def resolve_policies(specs: list[str] | None, game) -> list[Policy]:
    """The entrants: every built-in policy when ``specs`` is empty, else exactly those given."""
    specs = specs or builtin_names(game)
    policies = [parse_policy(s, game) for s in specs]
    names = [p.name for p in policies]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"policy named more than once: {', '.join(duplicates)}")
    if len(policies) < 2:
        raise ValueError(f"a round robin needs at least two policies, got {names}")
    return policies
