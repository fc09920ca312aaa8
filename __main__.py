"""``python -m wargym`` (or ``wargym``): what is installed and how to start; ``wargym serve``.

With no arguments it imports no game, so it compiles nothing and answers at once.
``wargym serve --stdio`` / ``wargym serve --http`` serve the bots to other programs
(``serve/PROTOCOL.md``).
"""
from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import shutil
from pathlib import Path

from . import __version__
from .registration import GAMES, gymnasium_id, pettingzoo_id

TRAIN_EXTRA = ("stable_baselines3", "sb3_contrib", "torch")


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _other_commands() -> list[str]:
    """The package's console scripts other than wargym-train, as installed (none if not installed)."""
    try:
        points = importlib.metadata.distribution("wargym").entry_points
    except importlib.metadata.PackageNotFoundError:
        return []
    return [f"  {ep.name:<24} ({ep.value})" for ep in points
            if ep.group == "console_scripts" and ep.name != "wargym-train"]


def summary() -> str:
    here = Path(__file__).resolve().parent
    train_ok = all(_installed(m) for m in TRAIN_EXTRA)
    train_note = "installed" if train_ok else 'not installed: pip install "wargym[train]"'
    script = shutil.which("wargym-train")
    lines = [
        f"wargym {__version__}: tabletop wargames as PettingZoo environments on a batched Numba core",
        f"installed at {here}",
        "",
        "Games (PettingZoo AEC module, registry ids for pettingzoo.make and gymnasium.make):",
    ]
    for module, (_gym_name, _key, about) in GAMES.items():
        lines.append(f"  wargym.envs.{module:<16} {pettingzoo_id(module):<24} {gymnasium_id(module):<22} {about}")
    lines += [
        "",
        "Start:",
        "  from wargym.envs import planetoids_v2",
        '  env = planetoids_v2.env(render_mode="ansi"); env.reset(seed=0); print(env.render())',
        '  import wargym, pettingzoo; env = pettingzoo.make("aec", "wargym/planetoids_v2")',
        '  import wargym, gymnasium; env = gymnasium.make("wargym/Planetoids-v2", opponent="random")'
        "  (needs the train extra)",
        "  The first env of each game compiles its kernels (about a minute, on two cores; `wargym compile` does it ahead);"
        " later runs load them from the cache.",
        "",
        f"Commands (train extra: {train_note}):",
        "  wargym-train             train MaskablePPO on Planetoids against a random opponent; --help for the knobs"
        + ("" if script else " (not on PATH here)"),
        "  python -m wargym.training.train   the same, without the console script",
        *_other_commands(),
        "  python -m wargym.benchmarks.bench --quick   throughput on this machine (needs the test extra)",
        "  wargym serve --stdio | --http   bots for other programs and a page to play them (serve/PROTOCOL.md)",
        "  wargym compile [GAME...]   compile the kernels now, one process per core (else the first use does)",
        "",
        "Rules and the agent interface of each game: envs/<game>/RULES.md; overview: README.md",
    ]
    return "\n".join(lines)


def _serve_parser(sub) -> None:
    p = sub.add_parser("serve", help="serve the bots to other programs (JSON lines on stdio, or HTTP + WebSocket)",
                       description="Serve wargym's bots as automated opponents: the protocol is in "
                                   "serve/PROTOCOL.md in the repository.")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--stdio", action="store_true", help="JSON lines on stdin/stdout (logs on stderr)")
    how.add_argument("--http", action="store_true", help="HTTP + WebSocket server and the browser page "
                                                         "(needs the serve extra)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--max-message-bytes", type=int, default=1 << 20)
    p.add_argument("--max-matches", type=int, default=1000, help="open matches in total")
    p.add_argument("--max-matches-per-client", type=int, default=100,
                   help="open matches per client (stdio: the one client; HTTP: per remote address)")
    p.add_argument("--idle-timeout", type=float, default=600.0, help="seconds before an idle match is closed")
    p.add_argument("--time-limit-ms", type=int, default=5000, help="default time limit of a bot decision")
    p.add_argument("--request-cpu-ms", type=int, default=10_000,
                   help="CPU time a request may spend replaying a history (then too_costly, nothing changed)")
    p.add_argument("--workers", type=int, default=4, help="HTTP: threads that run the game kernels")
    p.add_argument("--test-bots", action="store_true",
                   help="also offer the bot 'test:slow', which sleeps --slow-bot-ms before each move "
                        "(to test clients' time limits)")
    p.add_argument("--slow-bot-ms", type=int, default=1000)
    p.add_argument("--model", action="append", default=[], metavar="GAME:NAME=PATH",
                   help="also serve this checkpoint (a MaskablePPO .zip or an RLlib checkpoint folder of "
                        "wargym-train --backend rllib) as bot model:NAME of GAME (e.g. talon_v1); repeatable")
    p.add_argument("--data", action="append", default=[], metavar="GAME:OPTION:NAME=PATH",
                   help="also offer this JSON file as the value NAME of a named-data option (e.g. "
                        "planetoids:map:arena=maps/arena.json, union_wars:table:ruins=ruins.json); read and "
                        "checked at start-up, clients give only the name; repeatable")
    p.add_argument("--log-level", default="warning", help="HTTP: uvicorn's log level")
    p.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="HTTP: also accept requests from this web origin (e.g. https://example.org:8443) and its "
                        "host name; by default only loopback names and --host (serve/PROTOCOL.md, Security)")
    p.add_argument("--body-timeout", type=float, default=30.0,
                   help="HTTP: seconds a request body may take to arrive (then 408 body_timeout)")


def _served_models(specs: list[str]) -> dict:
    """``GAME:NAME=PATH`` options -> {game: {name: path}} (checked by the server)."""
    models: dict = {}
    for spec in specs:
        game, colon, rest = spec.partition(":")
        name, eq, path = rest.partition("=")
        if not (colon and eq and game and name and path):
            raise SystemExit(f"wargym serve: --model {spec!r} is not GAME:NAME=PATH (e.g. talon_v1:mine=run/model.zip)")
        models.setdefault(game.strip(), {})[name.strip()] = path.strip()
    return models


def _served_data(specs: list[str]) -> dict:
    """``GAME:OPTION:NAME=PATH`` options -> {game: {option: {name: path}}} (checked by the server)."""
    data: dict = {}
    for spec in specs:
        where, eq, path = spec.partition("=")
        parts = [part.strip() for part in where.split(":")]
        if not (eq and path and len(parts) == 3 and all(parts)):
            raise SystemExit(f"wargym serve: --data {spec!r} is not GAME:OPTION:NAME=PATH "
                             "(e.g. planetoids:map:arena=maps/arena.json)")
        game, option, name = parts
        data.setdefault(game, {}).setdefault(option, {})[name] = path.strip()
    return data


def serve(args) -> int:
    from .serve.session import Limits, Server
    limits = Limits(max_message_bytes=args.max_message_bytes, max_matches=args.max_matches,
                    max_matches_per_client=args.max_matches_per_client, idle_timeout_s=args.idle_timeout,
                    default_time_limit_ms=args.time_limit_ms, request_cpu_ms=args.request_cpu_ms,
                    test_bots=args.test_bots,
                    slow_bot_ms=args.slow_bot_ms)
    try:
        server = Server(limits, models=_served_models(args.model), data=_served_data(args.data))
    except ValueError as exc:
        raise SystemExit(f"wargym serve: {exc}") from None
    if args.stdio:
        from .serve import stdio
        return stdio.run(server)
    try:
        from .serve import http
    except ImportError as exc:
        raise SystemExit(f"wargym serve --http needs the serve extra: pip install \"wargym[serve]\" ({exc})")
    return http.run(server, host=args.host, port=args.port, workers=args.workers, log_level=args.log_level,
                    allow_origins=args.allow_origin, body_timeout_s=args.body_timeout)


def _compile_parser(sub) -> None:
    from .registration import GAME_KEYS
    p = sub.add_parser("compile", help="compile the games' kernels into Numba's cache now, one process per core",
                       description="Compile every kernel a first run meets (the AEC env, the batched core, the "
                                   "learner loops, the bots) into Numba's on-disk cache, games in parallel "
                                   "processes, naming each function as it compiles.  Later runs load the cache.")
    p.add_argument("games", nargs="*", choices=[[], *GAME_KEYS], metavar="GAME",
                   help=f"games to compile (default all: {', '.join(GAME_KEYS)})")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    p.add_argument("--quiet", action="store_true", help="only a line per game, not each function")


def compile_command(args) -> int:
    from .envs.core.warmup import compile_games
    from .registration import GAME_KEYS
    compile_games(args.games or GAME_KEYS, jobs=args.jobs, verbose=not args.quiet)
    return 0


def _playthrough_parser(sub) -> None:
    from .playthrough import PLAYTHROUGHS
    modules = sorted({module for module, *_ in PLAYTHROUGHS})
    p = sub.add_parser("playthrough", help="check or regenerate the golden playthroughs (tests/golden/)",
                       description="Replay the committed golden playthroughs and report the first step that "
                                   "differs, or with --write regenerate them after a deliberate rules change.")
    p.add_argument("modules", nargs="*", choices=[[], *modules], metavar="MODULE",
                   help=f"env modules (default all: {', '.join(modules)})")
    p.add_argument("--write", action="store_true", help="regenerate the files instead of checking them")


def playthrough_command(args) -> int:
    import json

    from .playthrough import PLAYTHROUGHS, golden_path, replay, write
    if args.write:
        write(args.modules)
        return 0
    from .playthrough import GOLDEN_DIR
    if not GOLDEN_DIR.is_dir():
        raise SystemExit(f"wargym playthrough: no {GOLDEN_DIR}/ here; run it from the repository's root")
    failed = 0
    for module, name, _options, _seed in PLAYTHROUGHS:
        if args.modules and module not in args.modules:
            continue
        diff = replay(json.loads(golden_path(module, name).read_text()))
        print(f"{module}-{name}: " + ("same" if diff is None else f"step {diff[0]}: {diff[1]}"))
        failed += diff is not None
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wargym", description="wargym: with no command, what is installed "
                                                                "and how to start")
    sub = parser.add_subparsers(dest="command")
    _serve_parser(sub)
    _compile_parser(sub)
    _playthrough_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "serve":
        return serve(args)
    if args.command == "compile":
        return compile_command(args)
    if args.command == "playthrough":
        return playthrough_command(args)
    print(summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
