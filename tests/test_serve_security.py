"""``wargym serve`` against untrusted clients (issue 28): no client-named file, bounded costs,
a coded 4xx for every malformed request, and the origin rules of HTTP (PROTOCOL.md, Security).
Every request here is refused before a game kernel runs (but the one match on an operator's map)."""
from __future__ import annotations

import json
import socket
import time

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from wargym.serve.client import StdioClient, start_http
from wargym.serve.protocol import ERROR_STATUS
from wargym.serve.session import Server

DEEP = b"[" * 990 + b"]" * 990
SECRET_PATH = "/etc/passwd"   # exists on the test machine: no reply may tell so


def _bot_move(game: str, options: dict) -> dict:
    return {"v": 1, "type": "bot_move", "game": game, "options": options, "state": {"seed": 1}, "bot": "random"}


def _new_match(game: str, **fields) -> dict:
    return {"v": 1, "type": "new_match", "game": game, **fields}


# (request, the error code it must get, and what its message must not hold)
FILE_OPTIONS = [
    (_bot_move("planetoids_v0", {"map": SECRET_PATH}), "bad_options"),
    (_bot_move("planetoids_v0", {"map": "../../../etc/passwd"}), "bad_options"),
    (_bot_move("planetoids_v0", {"map": "no_such_map"}), "bad_options"),
    (_bot_move("union_wars_v1", {"table": SECRET_PATH}), "bad_options"),
    (_bot_move("union_wars_v1", {"army_files": {"umanita": SECRET_PATH}}), "bad_options"),
    (_bot_move("union_wars_v1", {"army_files": {"umanita": "/dev/zero"}}), "bad_options"),
    (_bot_move("battle_force_v1", {"cards_file": SECRET_PATH}), "bad_options"),
    (_bot_move("battle_force_v1", {"ships_file": SECRET_PATH}), "bad_options"),
    (_bot_move("talon_v0", {"ships_file": SECRET_PATH}), "bad_options"),
    (_bot_move("talon_v0", {"ships_file": None, "scenario": "~/x"}), "bad_options"),
]

_ROW = [0, 0]
MALFORMED = [
    (b'{"v":1,"type":["info"]}', "bad_request"),
    (b"{}", "bad_version"),
    (b'{"v":true,"type":"info"}', "bad_version"),
    (b'{"v":"1","type":"info"}', "bad_version"),
    (b"[]", "bad_json"),
    (DEEP, "bad_json"),
    (b'{"v":1,"type":"info","id":' + DEEP + b"}", "bad_json"),
    (b"\xff\xfe", "bad_json"),
    (json.dumps(_new_match("talon_v0", bots={"\u00b2": "random"})).encode(), "bad_request"),
    (json.dumps(_new_match("talon_v0", bots={"01": "random"})).encode(), "bad_request"),
    (json.dumps(_new_match("talon_v0", bots={"1\n": "random"})).encode(), "bad_request"),
    (json.dumps(_bot_move("planetoids_v0", {"max_decisions": 10 ** 21})).encode(), "bad_options"),
    (json.dumps(_bot_move("talon_v0", {"max_decisions": 10 ** 21})).encode(), "bad_options"),
    (json.dumps(_bot_move("union_wars_v1", {"max_decisions": -1})).encode(), "bad_options"),
    (json.dumps(_bot_move("planetoids_v0", {"map": {}})).encode(), "bad_options"),
    (json.dumps(_bot_move("planetoids_v0", {"map": {"rows": "9", "cols": 21}})).encode(), "bad_options"),
    (json.dumps(_bot_move("planetoids_v0", {"map": {"rows": 100, "cols": 150}})).encode(), "bad_options"),
    (json.dumps(_bot_move("planetoids_v0", {"map": {"rows": 9, "cols": 9, "asteroids": [[99, 0]],
                                                    "home_planets": [_ROW, _ROW], "planetoids": [],
                                                    "ramps": [[], []]}})).encode(), "bad_options"),
    (json.dumps(_bot_move("planetoids_v0", {"map": {"rows": 9, "cols": 9, "asteroids": [],
                                                    "home_planets": [_ROW], "planetoids": [],
                                                    "ramps": [[], []]}})).encode(), "bad_options"),
    (json.dumps(_bot_move("planetoids_v0", {"map": [1, 2]})).encode(), "bad_options"),
    (json.dumps({"v": 1, "type": "bot_move", "game": "talon_v0", "state": {"seed": 1.5}, "bot": "random"}).encode(),
     "bad_request"),
]


@pytest.fixture(scope="module")
def server():
    return Server()


@pytest.mark.parametrize("msg,code", FILE_OPTIONS, ids=[f"{m['game']}-{sorted(m['options'])}-{i}"
                                                         for i, (m, _) in enumerate(FILE_OPTIONS)])
def test_a_client_never_names_a_file(server, msg, code):
    reply = server.handle(msg)
    assert not reply["ok"] and reply["error"]["code"] == code, reply
    text = json.dumps(reply)
    assert "passwd" not in text and "/dev/zero" not in text and "root:" not in text


@pytest.mark.parametrize("data,code", MALFORMED, ids=range(len(MALFORMED)))
def test_every_malformed_request_gets_a_coded_4xx(server, data, code):
    started = time.monotonic()
    reply = server.handle_bytes(data)
    assert not reply["ok"] and reply["error"]["code"] == code, reply
    assert 400 <= ERROR_STATUS[code] < 500
    assert len(json.dumps(reply)) < 2000           # a reply never echoes a large request
    assert time.monotonic() - started < 5          # refused before any table is built


def test_shipped_data_is_offered_by_name(server):
    info = {g["game"]: g for g in server.handle({"v": 1, "type": "info"})["games"]}
    assert info["planetoids_v0"]["shipped"] == {"map": ["default"]}
    assert info["union_wars_v1"]["shipped"]["table"][0] == "random"
    reply = server.handle(_bot_move("planetoids_v0", {"map": "nope"}))
    assert reply["error"]["choices"] == ["default"]


def test_integral_floats_count_as_integers(server):
    """JSON Schema counts 40.0 as an integer: such a request gets past validation."""
    reply = server.handle({"v": 1, "type": "move", "match": "nope", "seq": 0.0, "action": 3.0})
    assert reply["error"]["code"] == "unknown_match"


def test_stdio_answers_deep_json_with_bad_json_and_reads_on():
    with StdioClient(timeout=120) as client:
        client.send_raw(DEEP + b"\n")
        assert client.read()["error"]["code"] == "bad_json"
        assert client.request({"type": "info"})["ok"]
        assert client.close() == 0


@pytest.fixture(scope="module")
def base():
    proc, url = start_http("--allow-origin", "https://friend.example:8443", "--body-timeout", "1")
    yield url
    proc.terminate()
    assert proc.wait(timeout=30) is not None


JSON = {"content-type": "application/json"}


def test_foreign_hosts_and_origins_are_refused(base):
    info = {"v": 1, "type": "info"}
    with httpx.Client(base_url=base, timeout=60) as client:
        assert client.get("/v1/info").status_code == 200
        assert client.get("/v1/info", headers={"host": "localhost:1"}).status_code == 200
        for headers in ({"host": "evil.example"}, {"host": "evil.example:80"}, {"origin": "http://evil.example"},
                        {"origin": "null"}, {"origin": "https://friend.example.evil"}):
            r = client.post("/v1/rpc", json=info, headers=headers)
            assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden_origin", headers
        assert client.get("/", headers={"host": "rebound.example"}).status_code == 403
        assert client.post("/v1/rpc", json=info, headers={"origin": "https://friend.example:8443"}).status_code == 200
        assert client.post("/v1/rpc", json=info, headers={"origin": base}).status_code == 200


def test_websocket_checks_its_origin(base):
    url = base.replace("http", "ws") + "/v1/ws"
    with pytest.raises(InvalidStatus):
        with connect(url, origin="http://evil.example", open_timeout=60):
            pass
    with connect(url, origin=base, open_timeout=60) as ws:
        ws.send(DEEP.decode())
        assert json.loads(ws.recv(timeout=60))["error"]["code"] == "bad_json"
        ws.send(json.dumps({"v": 1, "type": "info"}))
        assert json.loads(ws.recv(timeout=60))["ok"]


def test_post_bodies_are_json_only_and_bounded_in_time(base):
    with httpx.Client(base_url=base, timeout=60) as client:
        body = json.dumps({"v": 1, "type": "info"})
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
            headers = {} if kind is None else {"content-type": kind}
            r = client.post("/v1/rpc", content=body, headers=headers)
            assert r.status_code == 415 and r.json()["error"]["code"] == "bad_content_type", kind
        assert client.post("/v1/rpc", content=body, headers={"content-type": "application/json; charset=utf-8"}
                           ).status_code == 200
        r = client.post("/v1/bot_move", content=DEEP, headers=JSON)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
        r = client.get("/v1/matches/x/board.png", params={"viewer": "one"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_request"
    host, port = base.split("//")[1].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:   # a body that never finishes
        sock.sendall(b"POST /v1/rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"v\": 1")
        reply = b""
        while b"body_timeout" not in reply and (chunk := sock.recv(4096)):
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 408") and b"body_timeout" in reply


def test_openapi_lists_each_routes_errors(base):
    with httpx.Client(base_url=base, timeout=60) as client:
        api = client.get("/openapi.json").json()
    for path, methods in api["paths"].items():
        for method, op in methods.items():
            errors = {int(s) for s in op["responses"] if s[0] in "45"}
            assert 403 in errors and 500 in errors, (path, method)
    rpc = {int(s) for s in api["paths"]["/v1/rpc"]["post"]["responses"]}
    assert {400, 404, 408, 409, 410, 413, 415, 422, 429} <= rpc


def test_scratch_envs_are_bounded_in_bytes(server, monkeypatch):
    """Many distinct options cost a worker a bounded amount of memory: past the byte limit the
    least recently used scratch envs are dropped (the last one is always kept)."""
    from wargym.serve.session import _EnvSlots
    entry = server._entry("planetoids_v0")
    slots = _EnvSlots()
    for turns in (10, 11, 12):
        options = entry.parse_options({"turns": turns})
        slots.get(entry, options, server._options_key(options))
    assert len(slots.slots) == 3 and all(s.nbytes > 10_000 for s in slots.slots.values())
    monkeypatch.setattr(_EnvSlots, "MAX_BYTES", 2 * max(s.nbytes for s in slots.slots.values()) + 64)
    options = entry.parse_options({"turns": 13})
    slots.get(entry, options, server._options_key(options))
    assert len(slots.slots) == 2 and list(slots.slots)[-1][1] == server._options_key(options)


def test_a_forged_save_header_is_not_echoed(server):
    """A save's header is the client's: an error quoting it is cut short, and a save whose members
    would unpack past their size is refused before unpacking."""
    import base64
    import io
    import zipfile

    import numpy as np
    big = json.dumps({"format": 1, "game": "x" * 200_000, "batch_size": 1}).encode()
    buf = io.BytesIO()
    np.savez_compressed(buf, __header__=np.frombuffer(big, np.uint8))
    msg = {"v": 1, "type": "bot_move", "game": "planetoids_v0", "bot": "random",
           "state": {"save": base64.b64encode(buf.getvalue()).decode()}}
    reply = server.handle(msg)
    assert reply["error"]["code"] == "bad_save" and len(json.dumps(reply)) < 2000
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("__header__.npy", b"\0" * (64 << 20))   # 64 MiB of zeros: ~64 KB packed
    msg["state"]["save"] = base64.b64encode(bomb.getvalue()).decode()
    reply = server.handle(msg)
    assert reply["error"]["code"] == "bad_save" and "unpacks to" in reply["error"]["message"]


# -- data the operator adds at start-up (issue 28: "the operator may add more at start-up") -------------
def _map_file(tmp_path, name="arena_map.json", **change):
    from wargym.envs.planetoids import game as planetoids
    data = json.loads((planetoids.DATA / "default_map.json").read_text())
    data.update(change)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_an_operator_map_is_offered_by_name_and_plays(tmp_path):
    server = Server(data={"planetoids": {"map": {"arena": _map_file(tmp_path)}}})
    info = {g["game"]: g for g in server.handle({"v": 1, "type": "info"})["games"]}
    assert info["planetoids_v1"]["shipped"] == {"map": ["default", "arena"]}
    assert info["planetoids_v0"]["shipped"] == {"map": ["default", "arena"]}
    reply = server.handle(_new_match("planetoids_v1", options={"map": "arena"}, seed=1))
    assert reply["ok"], reply
    # the client names the data, never the operator's file
    path = _map_file(tmp_path, "other_map.json")
    refused = server.handle(_new_match("planetoids_v1", options={"map": path}))
    assert refused["error"]["code"] == "bad_options" and path not in json.dumps(refused)


def test_a_table_dict_builds_the_union_wars_table():
    from wargym.envs.union_wars import game as uw
    shipped = json.loads((uw.DATA / "tables" / "crossroads.json").read_text())
    by_name, by_dict = uw.load_table("crossroads"), uw.load_table(shipped)
    assert all((a == b).all() for a, b in zip(by_name, by_dict))
    with pytest.raises(ValueError, match="3-4 vertices"):
        uw.load_table({"pieces": [{"kind": "rough", "vertices": [[1, 2], [3, "x"], [4, 5]]}]})
    with pytest.raises(ValueError, match="height_cm"):
        uw.load_table({"pieces": [{"kind": "rough", "vertices": [[1, 2], [3, 4], [4, 5]], "height_cm": True}]})


@pytest.mark.parametrize("data,message", [
    ({"chess": {"map": {"x": "x.json"}}}, "unknown game"),
    ({"planetoids": {"ships_file": {"x": "x.json"}}}, "offers data by name only for"),
    ({"planetoids": {"map": {"default": "MAP"}}}, "ships data of that name"),
    ({"planetoids": {"map": {"../x": "MAP"}}}, "a name is"),
    ({"planetoids": {"map": {"x": "/no/such/file.json"}}}, "no file at"),
    ({"planetoids": {"map": {"x": "NOT_JSON"}}}, "not JSON"),
    ({"planetoids": {"map": {"x": "BAD_MAP"}}}, "--data planetoids:map:x"),
])
def test_bad_operator_data_stops_the_server_naming_the_entry(tmp_path, data, message):
    (tmp_path / "not.json").write_text("{nope")
    files = {"MAP": _map_file(tmp_path), "NOT_JSON": str(tmp_path / "not.json"),
             "BAD_MAP": _map_file(tmp_path, "bad_map.json", rows=-3)}
    data = {g: {o: {n: files.get(p, p) for n, p in e.items()} for o, e in opts.items()} for g, opts in data.items()}
    with pytest.raises(ValueError, match=message):
        Server(data=data)


def test_a_replay_over_its_cpu_budget_is_refused_as_too_costly():
    """Issue 28, per-request CPU time: a history whose replay costs more than --request-cpu-ms."""
    import numpy as np

    from wargym.envs import planetoids_v1
    from wargym.serve.session import Limits
    env = planetoids_v1.raw_env()
    env.reset(seed=1)
    actions = []
    for _ in range(100):
        a = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        actions.append(a)
        env.step(a)
    request = {"v": 1, "type": "bot_move", "game": "planetoids_v1", "state": {"seed": 1, "actions": actions},
               "bot": "random"}
    assert Server().handle(request)["ok"]
    reply = Server(Limits(request_cpu_ms=0)).handle(request)
    assert reply["error"]["code"] == "too_costly" and reply["error"]["field"] == "state.actions.63"
