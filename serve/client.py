"""Small Python helpers for clients of ``wargym serve`` (used by the tests; any client may use them).

* ``StdioClient``: spawns ``python -m wargym serve --stdio`` and exchanges JSON lines with
  it, every read bounded by a timeout (a client must never wait forever on an engine);
* ``replay``: the in-process env after a seed and a list of actions, to check a served game
  against wargym itself (``protocol.state_hash`` of both must agree after every action).
"""
from __future__ import annotations

import json
import queue
import random
import subprocess
import sys
import threading

from ..registration import env_module
from .protocol import VERSION


class StdioClient:
    def __init__(self, *server_args: str, timeout: float = 300.0):
        self.timeout = timeout
        self.proc = subprocess.Popen([sys.executable, "-m", "wargym", "serve", "--stdio", *server_args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._lines: queue.Queue = queue.Queue()
        self._stderr: list[bytes] = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self._lines.put, lambda: self._lines.put(None)),
                         daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self._stderr.append, lambda: None),
                         daemon=True).start()

    @staticmethod
    def _pump(stream, put, at_end) -> None:
        for line in iter(stream.readline, b""):
            put(line)
        at_end()

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read(self, timeout: float | None = None) -> dict:
        try:
            line = self._lines.get(timeout=self.timeout if timeout is None else timeout)
        except queue.Empty:
            raise TimeoutError(f"no reply from wargym serve --stdio within {timeout or self.timeout} s") from None
        if line is None:
            raise EOFError("wargym serve --stdio closed its output: " + self.stderr())
        return json.loads(line)

    def request(self, msg: dict, timeout: float | None = None) -> dict:
        self.send_raw(json.dumps({"v": VERSION, **msg}).encode() + b"\n")
        return self.read(timeout)

    def stderr(self) -> str:
        return b"".join(self._stderr).decode(errors="replace")

    def close(self, timeout: float = 30.0) -> int:
        """Close the server's input (it ends by itself); its exit status."""
        if self.proc.stdin and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.close()


def replay(game: str, options: dict | None, seed: int, actions) -> object:
    """The raw AEC env of ``game`` (a module name such as ``talon_v0``) after ``reset(seed)`` and ``actions``."""
    module = env_module(game)
    env = module.raw_env(options=options or {})
    env.reset(seed=seed)
    for a in actions:
        env.step(int(a))
    return env


def play_match(call, game: str, options: dict | None = None, seed: int = 0, bots: dict | None = None,
               pick_seed: int = 0, observe: bool = False, max_moves: int = 100_000) -> dict:
    """Play a whole match through ``call(request) -> reply`` (any transport), the client's moves
    drawn from the legal actions with ``random.Random(pick_seed)``, by id or (every other move) by name.

    Returns ``{"seed", "events", "checkpoints": [(number of events, state_hash, observation)], "last"}``."""
    rng = random.Random(pick_seed)
    request = {"type": "new_match", "game": game, "options": options or {}, "seed": seed, "legal": True,
               "observe": observe}
    if bots is not None:
        request["bots"] = bots
    reply = call(request)
    assert reply["ok"], reply
    match, events, checkpoints = reply["match"], [], []
    for moves in range(max_moves + 1):
        events += reply["events"]
        checkpoints.append((len(events), reply["state_hash"], reply.get("observation")))
        if reply["over"]:
            break
        choice = rng.choice(reply["legal"])
        action = choice["name"] if moves % 2 else choice["action"]
        reply = call({"type": "move", "match": match, "seq": reply["seq"], "state_hash": reply["state_hash"],
                      "action": action, "legal": True, "observe": observe})
        assert reply["ok"], reply
    return {"seed": reply.get("seed", seed), "events": events, "checkpoints": checkpoints, "last": reply}


def check_against_env(game: str, options: dict | None, transcript: dict) -> None:
    """Assert that a ``play_match`` transcript is what the in-process env does with the same seed and
    actions: whose decision each was, each action's name, each step's rewards, the state hash and
    observation wherever the server reported them, the result and the returns."""
    import base64

    import numpy as np

    from .protocol import state_hash
    from .session import plain

    module = env_module(game)
    env = module.raw_env(options=options or {})
    env.reset(seed=transcript["seed"])
    returns = [0.0] * env.core.num_players
    checkpoints = iter(transcript["checkpoints"])
    cp = next(checkpoints, None)
    events = transcript["events"]
    for i in range(len(events) + 1):
        while cp is not None and cp[0] == i:
            assert state_hash(env.core) == cp[1], f"{game}: state hash differs after {i} decisions"
            if cp[2] is not None:
                obs = np.frombuffer(base64.b64decode(cp[2]["base64"]), dtype=np.int8).reshape(cp[2]["shape"])
                mine = env.observe(env.agent_selection)["observation"]
                assert np.array_equal(obs, mine), f"{game}: observation differs after {i} decisions"
            cp = next(checkpoints, None)
        if i == len(events):
            break
        ev = events[i]
        assert ev["seq"] == i + 1, (i, ev)
        assert env.agent_name_mapping[env.agent_selection] == ev["seat"], f"{game}: decision {i + 1} is not seat {ev['seat']}'s"
        assert env.action_name(ev["action"]) == ev["name"], (i, ev)
        env.step(ev["action"])
        rewards = env.core.rewards[0].tolist()
        assert rewards == ev["rewards"], f"{game}: rewards of decision {i + 1}: {rewards} != {ev['rewards']}"
        returns = [r + x for r, x in zip(returns, rewards)]
    last = transcript["last"]
    assert last["over"] == bool(env.core.terminated[0] or env.core.truncated[0])
    if last["over"]:
        assert last["result"]["info"] == plain(env.game.final_info(env.core, 0))
        assert last["result"]["returns"] == returns


def start_http(*server_args: str, timeout: float = 120.0):
    """``wargym serve --http --port 0 ...`` as a subprocess; ``(process, base URL)`` once it listens."""
    proc = subprocess.Popen([sys.executable, "-m", "wargym", "serve", "--http", "--port", "0", *server_args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=StdioClient._pump, args=(proc.stderr, lines.put, lambda: lines.put(b"")),
                     daemon=True).start()
    seen = []
    while True:
        try:
            line = lines.get(timeout=timeout).decode()
        except queue.Empty:
            line = ""
        seen.append(line)
        if "listening on " in line:
            return proc, line.split("listening on ")[1].strip().rstrip("/")
        if not line:
            proc.kill()
            raise RuntimeError("wargym serve --http did not start:\n" + "".join(seen))


def warm_up(games) -> None:
    """Compile (or load from Numba's cache) what a server needs for ``games``, in this process: a
    server started afterwards finds everything in the cache instead of compiling while its client
    waits (the first compile of a game takes minutes on a small machine)."""
    from ..envs.core.search import ANCHOR_MARK
    from .session import Server
    server = Server()
    info = {g["game"]: g for g in server.handle({"v": VERSION, "type": "info"})["games"]}
    for game in games:
        for bot in info[game]["bots"]:
            # (checkpoints, and the searches anchored on them, load models rather than kernels; they
            # play only their agent's options)
            if not bot.startswith(("model:", "test:")) and ANCHOR_MARK not in bot:
                reply = server.handle({"v": VERSION, "type": "bot_move", "game": game, "state": {"seed": 0},
                                       "bot": bot, "until": "turn", "observe": True})
                assert reply["ok"], reply
