"""``wargym serve --stdio`` as a real subprocess (issue 17): whole games equal to the in-process env,
and the clients that break engines: garbage, illegal actions, a closed pipe, a wait past the limit."""
from __future__ import annotations

import base64
import json
import subprocess
import sys
import time

import numpy as np
import pytest

from wargym.serve.client import StdioClient, check_against_env, play_match, warm_up
from wargym.serve.protocol import state_hash

GAMES = [("planetoids_v0", {}, None),
         ("talon_v0", {}, {"1": "random"}),
         ("battle_force_v1", {"players": 3}, {"1": "heuristic", "2": "random"}),
         ("battle_force_v1", {"solitaire": True}, None)]
WARM = ("planetoids_v0", "talon_v0", "battle_force_v1")


@pytest.fixture(scope="module", autouse=True)
def kernels():
    """The games' kernels compiled here first: the server subprocesses then load them from the cache."""
    warm_up(WARM)


@pytest.fixture(scope="module")
def server():
    with StdioClient("--test-bots", "--slow-bot-ms", "2000", "--max-message-bytes", "65536") as client:
        yield client
    assert client.proc.returncode == 0, client.stderr()


def call_of(client):
    return lambda msg: client.request(msg)


@pytest.mark.parametrize("game,options,bots", GAMES, ids=[f"{g}{'-' + str(o) if o else ''}" for g, o, _ in GAMES])
def test_whole_game_equals_in_process_env(server, game, options, bots):
    transcript = play_match(call_of(server), game, options, seed=17, bots=bots, pick_seed=3,
                            observe=game != "planetoids_v0")
    assert transcript["last"]["over"]
    check_against_env(game, options, transcript)


def test_info_lists_games_bots_and_limits(server):
    info = server.request({"type": "info"})
    games = {g["game"]: g for g in info["games"]}
    assert {"planetoids_v0", "talon_v0", "battle_force_v1"} <= set(games)
    assert games["battle_force_v1"]["bots"][:3] == ["random", "heuristic", "scripted"]
    assert "test:slow" in games["talon_v0"]["bots"]
    assert games["battle_force_v1"]["options"]["players"] == 2
    assert info["limits"]["max_message_bytes"] == 65536 and info["protocol"] == 1


def _new(server, game="talon_v0", **extra):
    reply = server.request({"type": "new_match", "game": game, "seed": 5, "legal": True, **extra})
    assert reply["ok"], reply
    return reply


def _unchanged(server, reply):
    now = server.request({"type": "state", "match": reply["match"]})
    assert (now["seq"], now["state_hash"]) == (reply["seq"], reply["state_hash"])


def test_garbage_gets_coded_errors_and_changes_nothing(server):
    match = _new(server)
    bad = [b"this is not json\n", b"[1, 2, 3]\n", b"\xff\xfe\x00garbage\n", b'{"v": 1}\n', b'{"type": "info"}\n',
           b'{"v": 1, "type": "move", "match": 7, "seq": 0, "action": 1}\n',
           b'{"v": 1, "type": "new_match", "game": "chess_v6"}\n',
           b'{"v": 1, "type": "new_match", "game": "talon_v0", "bots": {"1": "alphazero"}}\n',
           b'{"v": 1, "type": "new_match", "game": "talon_v0", "bots": {"1": {"name": "random", "level": 3}}}\n',
           b'{"v": 1, "type": "new_match", "game": "battle_force_v1", "options": {"cards_file": "/etc/passwd"}}\n',
           b'{"v": 1, "type": "new_match", "game": "battle_force_v1", "options": {"players": 9}}\n',
           b'{"v": 1, "type": "bot_move", "game": "talon_v0", "state": {"save": "not base64!"}, "bot": "random"}\n',
           b'{"v": 1, "type": "move", "match": "nope", "seq": 0, "action": 1, "extra": true}\n',
           b'{"v": 1, "type": "info"' + b" " * 70000 + b"}\n"]
    codes = []
    for line in bad:
        server.send_raw(line)
        reply = server.read()
        assert reply["ok"] is False and reply["type"] == "error", reply
        codes.append((reply["error"]["code"], reply["error"].get("field")))
    assert codes == [("bad_json", None), ("bad_json", None), ("bad_json", None), ("bad_request", "type"),
                     ("bad_version", "v"), ("bad_request", "match"), ("unknown_game", "game"),
                     ("unknown_bot", "bots.1"), ("bad_request", "bots.1.level"),
                     ("bad_options", "options.cards_file"), ("bad_options", "options"),
                     ("bad_save", "state.save"), ("bad_request", "extra"), ("message_too_large", None)]
    _unchanged(server, match)
    assert server.request({"type": "info", "id": "still-there"})["id"] == "still-there"


def test_illegal_stale_and_desynchronised_moves_change_nothing(server):
    match = _new(server)
    legal = {a["action"] for a in match["legal"]}
    illegal = next(a for a in range(203) if a not in legal)
    base = {"type": "move", "match": match["match"], "seq": match["seq"]}
    reply = server.request({**base, "action": illegal})
    assert reply["error"]["code"] == "illegal_action" and reply["error"]["field"] == "action"
    assert reply["error"]["rule"] and reply["error"]["rule"] in reply["error"]["message"]
    assert server.request({**base, "action": 9999})["error"]["code"] == "unknown_action"
    assert server.request({**base, "action": "fire the death ray"})["error"]["code"] == "unknown_action"
    stale = server.request({**base, "seq": match["seq"] + 3, "action": min(legal)})
    assert stale["error"]["code"] == "stale_seq" and stale["error"]["seq"] == match["seq"]
    wrong = server.request({**base, "state_hash": "0" * 16, "action": min(legal)})
    assert wrong["error"]["code"] == "hash_mismatch" and wrong["error"]["state_hash"] == match["state_hash"]
    _unchanged(server, match)
    moved = server.request({**base, "action": min(legal)})
    assert moved["ok"] and moved["events"][0] == {**moved["events"][0], "by": "client", "action": min(legal)}
    # the same move sent again (its reply was lost): the same reply, nothing played twice
    again = server.request({**base, "action": min(legal)})
    assert again["duplicate"] is True and again["seq"] == moved["seq"] and again["events"] == moved["events"]


def test_bot_past_its_time_limit_plays_the_scripted_move_or_errs(server):
    reply = _new(server, bots={"1": "test:slow"}, seed=8, time_limit_ms=50, bot_moves="one")
    while reply["your_turn"]:  # the client plays until the slow bot must decide
        reply = server.request({"type": "move", "match": reply["match"], "seq": reply["seq"],
                                "action": reply["legal"][0]["action"], "legal": True})
    advance = {"type": "advance", "match": reply["match"], "seq": reply["seq"], "time_limit_ms": 50}
    timeout = server.request({**advance, "on_timeout": "error"})
    assert timeout["error"]["code"] == "timeout"
    _unchanged(server, reply)
    history = server.request({"type": "state", "match": reply["match"], "history": True})["history"]
    late = server.request(advance)
    assert late["events"][0]["by"] == "bot" and late["events"][0]["fallback"] is True
    # the fallback is the scripted bot's move in that position
    scripted = server.request({"type": "bot_move", "game": "talon_v0", "state": history, "bot": "scripted"})
    assert scripted["actions"][0]["action"] == late["events"][0]["action"]


def test_stateless_bot_move_from_a_save_or_a_history(server):
    match = _new(server, game="battle_force_v1", options={"players": 4}, seed=21)
    reply = server.request({"type": "move", "match": match["match"], "seq": 0, "action": match["legal"][0]["action"],
                            "save": True})
    history = server.request({"type": "state", "match": match["match"], "history": True})["history"]
    assert history["seed"] == 21 and len(history["actions"]) == reply["seq"]
    common = {"type": "bot_move", "game": "battle_force_v1", "options": {"players": 4}, "bot": "heuristic",
              "until": "turn", "legal": True}
    from_save = server.request({**common, "state": {"save": reply["save"]}, "state_hash": reply["state_hash"]})
    from_history = server.request({**common, "state": history})
    assert from_save["ok"] and from_save["actions"] == [{**e, "seq": None} for e in from_history["actions"]]
    assert from_save["state_hash"] == from_history["state_hash"]
    assert from_history["seq"] == reply["seq"] + len(from_history["actions"])
    # the save is the file save() writes: load() reads it
    from wargym.envs import battle_force_v1
    env = battle_force_v1.raw_env(players=4)
    env.reset(seed=0)
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".wargym") as f:
        f.write(base64.b64decode(reply["save"]))
        f.flush()
        env.load(f.name)
    assert state_hash(env.core) == reply["state_hash"]
    # another game's save, another player count's save, a damaged save: refused, with the reason
    talon = _new(server, save=True)
    errors = [server.request({**common, "state": {"save": s}})["error"] for s in (
        talon["save"], reply["save"][:200],
        server.request({"type": "state", "match": _new(server, game="battle_force_v1")["match"], "save": True})["save"])]
    assert [e["code"] for e in errors] == ["bad_save"] * 3
    assert "talon" in errors[0]["message"] and "players" in errors[2]["message"]
    wrong_hash = server.request({**common, "state": history, "state_hash": "f" * 16})
    assert wrong_hash["error"]["code"] == "hash_mismatch"
    bad_history = server.request({**common, "state": {"seed": 21, "actions": history["actions"][:1] * 3}})
    assert bad_history["error"]["code"] == "bad_state" and bad_history["error"]["field"].startswith("state.actions.")


def test_client_that_closes_the_pipe_mid_game_ends_the_server_cleanly():
    client = StdioClient()
    match = client.request({"type": "new_match", "game": "planetoids_v0", "seed": 1, "legal": True})
    client.request({"type": "move", "match": match["match"], "seq": match["seq"],
                    "action": match["legal"][0]["action"]})
    client.send_raw(b'{"v": 1, "type": "move", "match": "')  # half a line, then the pipe closes
    assert client.close() == 0
    assert "Traceback" not in client.stderr()
    # a client that stops reading: the server's reply meets a broken pipe, and it still ends quietly
    proc = subprocess.Popen([sys.executable, "-m", "wargym", "serve", "--stdio"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(b'{"v": 1, "type": "info"}\n')
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["ok"]
    proc.stdout.close()
    try:
        for _ in range(3):
            proc.stdin.write(b'{"v": 1, "type": "info"}\n')
            proc.stdin.flush()
        proc.stdin.close()
    except BrokenPipeError:  # it has already gone
        pass
    assert proc.wait(timeout=60) == 0
    err = proc.stderr.read()
    assert b"Traceback" not in err and b"Exception" not in err, err.decode()


def test_client_that_waits_past_the_idle_limit_finds_its_match_closed():
    with StdioClient("--idle-timeout", "0.5", "--max-matches-per-client", "2") as client:
        first = client.request({"type": "new_match", "game": "talon_v0", "seed": 2, "legal": True})
        client.request({"type": "new_match", "game": "talon_v0", "seed": 3})
        assert client.request({"type": "new_match", "game": "talon_v0"})["error"]["code"] == "too_many_matches"
        deadline = time.monotonic() + 60
        # wait, without touching the matches, until the server has closed them (no timing is asserted)
        while client.request({"type": "info"})["open_matches"] and time.monotonic() < deadline:
            time.sleep(0.25)
        reply = client.request({"type": "move", "match": first["match"], "seq": first["seq"],
                                "action": first["legal"][0]["action"]})
        assert reply["error"]["code"] == "match_closed" and "idle" in reply["error"]["message"]
        assert client.request({"type": "new_match", "game": "talon_v0"})["ok"]  # room again


def test_nothing_but_replies_on_stdout(server):
    # every line read so far parsed as a reply; the ready message went to stderr
    assert "ready" in server.stderr()
    assert json.loads(json.dumps(server.request({"type": "info"})))["ok"]
    assert np.int8  # (numpy is importable without the serve extra)
