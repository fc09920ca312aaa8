"""``wargym serve --http`` as a real server on 127.0.0.1 (issue 17), with real clients: whole games
over the WebSocket (``websockets``) and over stateless HTTP (``httpx``) equal to the in-process env;
error codes and statuses; the OpenAPI document; the board and the save download; reconnecting;
a slow request that does not hold up the others."""
from __future__ import annotations

import base64
import importlib
import io
import json
import random
import tempfile

import httpx
import numpy as np
import pytest
from websockets.sync.client import connect

from wargym.serve.client import check_against_env, play_match, start_http, warm_up
from wargym.serve.protocol import state_hash

GAMES = [("planetoids_v0", {}, None),
         ("talon_v0", {}, {"1": "random"}),
         ("battle_force_v1", {"players": 3}, {"1": "heuristic", "2": "random"}),
         ("battle_force_v1", {"solitaire": True}, None)]
IDS = [f"{g}{'-' + str(o) if o else ''}" for g, o, _ in GAMES]
RECV_TIMEOUT = 300  # every receive is bounded: a test must fail, not hang
WARM = ("planetoids_v0", "talon_v0", "battle_force_v1")


@pytest.fixture(scope="module", autouse=True)
def kernels():
    """The games' kernels compiled here first: the server subprocesses then load them from the cache."""
    warm_up(WARM)


@pytest.fixture(scope="module")
def base():
    proc, url = start_http("--test-bots", "--slow-bot-ms", "3000", "--max-message-bytes", "65536")
    yield url
    proc.terminate()
    assert proc.wait(timeout=30) is not None


def ws_call(ws):
    def call(msg):
        ws.send(json.dumps({"v": 1, **msg}))
        return json.loads(ws.recv(timeout=RECV_TIMEOUT))
    return call


@pytest.mark.parametrize("game,options,bots", GAMES, ids=IDS)
def test_whole_game_over_websocket_equals_in_process_env(base, game, options, bots):
    with connect(base.replace("http", "ws") + "/v1/ws") as ws:
        transcript = play_match(ws_call(ws), game, options, seed=23, bots=bots, pick_seed=5,
                                observe=game != "planetoids_v0")
    assert transcript["last"]["over"]
    check_against_env(game, options, transcript)


def _save_of(env) -> str:
    return base64.b64encode(env.core.clone_state().to_bytes(meta={"options": env.core.options})).decode()


@pytest.mark.parametrize("game,options,bots", GAMES[:3], ids=IDS[:3])
def test_whole_game_over_stateless_http_equals_in_process_env(base, game, options, bots):
    """The client holds the game in its own env and asks the server for the bots' moves."""
    module = importlib.import_module(f"wargym.envs.{game}")
    env = module.raw_env(options=options)
    env.reset(seed=29)
    bots = bots or {"1": "scripted"}
    rng = random.Random(7)
    with httpx.Client(base_url=base, timeout=RECV_TIMEOUT) as client:
        while not (env.core.terminated[0] or env.core.truncated[0]):
            seat = env.agent_name_mapping[env.agent_selection]
            if str(seat) not in bots:
                env.step(int(rng.choice(env.legal_actions())))
                continue
            expected = None
            if bots[str(seat)] != "random":  # a deterministic bot: the in-process bot must agree
                expected = int(module.game.bot.policy_actions(env.core, bots[str(seat)])[0])
            r = client.post("/v1/bot_move", json={"v": 1, "game": game, "options": options, "seat": seat,
                                                  "state": {"save": _save_of(env)}, "state_hash": state_hash(env.core),
                                                  "bot": bots[str(seat)], "until": "turn"})
            assert r.status_code == 200, r.text
            reply = r.json()
            assert expected is None or reply["actions"][0]["action"] == expected
            for event in reply["actions"]:
                assert event["seat"] == seat
                env.step(event["action"])
                assert env.core.rewards[0].tolist() == event["rewards"]
            assert reply["state_hash"] == state_hash(env.core)
            assert reply["over"] == bool(env.core.terminated[0] or env.core.truncated[0])
            if reply["over"]:
                assert reply["result"]["info"] == json.loads(json.dumps(module.game.final_info(env.core, 0),
                                                                        default=int))


def test_errors_carry_codes_fields_and_http_statuses(base):
    with httpx.Client(base_url=base, timeout=RECV_TIMEOUT) as client:
        def post(path, body):
            r = client.post(path, content=body if isinstance(body, bytes) else json.dumps(body).encode(),
                            headers={"content-type": "application/json"})
            return r.status_code, r.json()["error"]["code"], r.json()["error"].get("field")
        assert post("/v1/bot_move", b"{oops") == (400, "bad_json", None)
        assert post("/v1/bot_move", b'{"v": 1, "pad": "' + b"x" * 70000 + b'"}') == (413, "message_too_large", None)
        assert post("/v1/bot_move", {"v": 1, "game": "go_v5", "state": {"seed": 1}, "bot": "random"}) == \
            (404, "unknown_game", "game")
        assert post("/v1/bot_move", {"v": 1, "game": "talon_v0", "state": {"seed": "one"}, "bot": "random"})[:2] == \
            (422, "bad_request")
        assert post("/v1/bot_move", {"v": 1, "game": "talon_v0", "state": {"seed": 1}, "bot": "stockfish"}) == \
            (404, "unknown_bot", "bot")
        assert post("/v1/rpc", {"v": 1, "type": "move", "match": "nope", "seq": 0, "action": 0}) == \
            (404, "unknown_match", "match")
        match = client.post("/v1/rpc", json={"v": 1, "type": "new_match", "game": "talon_v0", "seed": 1,
                                             "legal": True}).json()
        legal = {a["action"] for a in match["legal"]}
        illegal = next(a for a in range(203) if a not in legal)
        assert post("/v1/rpc", {"v": 1, "type": "move", "match": match["match"], "seq": match["seq"],
                                "action": illegal}) == (409, "illegal_action", "action")
        assert client.get(f"/v1/matches/{match['match']}/board.txt").status_code == 200
        assert client.get("/v1/matches/nope/board.png").status_code == 404


def test_openapi_and_schema_are_published(base):
    with httpx.Client(base_url=base, timeout=RECV_TIMEOUT) as client:
        api = client.get("/openapi.json").json()
        body = api["paths"]["/v1/bot_move"]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert set(body["required"]) == {"v", "type", "game", "state", "bot"}
        assert {"/v1/info", "/v1/rpc", "/v1/matches/{match}/board.png", "/v1/matches/{match}/save"} <= set(api["paths"])
        schema = client.get("/v1/schema").json()
        kinds = {s["properties"]["type"]["const"] for s in schema["oneOf"]}
        assert kinds == {"info", "bot_move", "new_match", "move", "advance", "state", "close"}


def test_board_picture_and_save_download(base):
    from PIL import Image

    from wargym.envs import battle_force_v1
    with httpx.Client(base_url=base, timeout=RECV_TIMEOUT) as client:
        match = client.post("/v1/rpc", json={"v": 1, "type": "new_match", "game": "battle_force_v1", "seed": 4,
                                             "options": {"players": 4}, "legal": True}).json()
        move = client.post("/v1/rpc", json={"v": 1, "type": "move", "match": match["match"], "seq": match["seq"],
                                            "action": match["legal"][0]["name"]}).json()
        r = client.get(f"/v1/matches/{match['match']}/board.png", params={"viewer": 0})
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        picture = np.asarray(Image.open(io.BytesIO(r.content)).convert("RGB"))
        assert picture.shape[0] > 300 and picture.shape[1] > 300 and len(np.unique(picture.reshape(-1, 3), axis=0)) > 20
        r = client.get(f"/v1/matches/{match['match']}/save")
        assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    env = battle_force_v1.raw_env(players=4)
    with tempfile.NamedTemporaryFile(suffix=".wargym") as f:
        f.write(r.content)
        f.flush()
        env.load(f.name)
    assert state_hash(env.core) == move["state_hash"]


def test_reconnect_and_resynchronise(base):
    url = base.replace("http", "ws") + "/v1/ws"
    with connect(url) as ws:
        call = ws_call(ws)
        match = call({"type": "new_match", "game": "planetoids_v0", "seed": 9, "legal": True})
        moved = call({"type": "move", "match": match["match"], "seq": match["seq"],
                      "action": match["legal"][0]["action"], "legal": True})
    with connect(url) as ws:  # the connection dropped; the match waits for its client
        call = ws_call(ws)
        stale = call({"type": "move", "match": match["match"], "seq": match["seq"], "action": 0})
        assert stale["error"]["code"] == "stale_seq"
        now = call({"type": "state", "match": match["match"], "legal": True, "history": True})
        assert (now["seq"], now["state_hash"], now["legal"]) == (moved["seq"], moved["state_hash"], moved["legal"])
        assert now["history"]["seed"] == 9 and len(now["history"]["actions"]) == now["seq"]
        assert call({"type": "move", "match": match["match"], "seq": now["seq"],
                     "action": now["legal"][0]["action"]})["ok"]
        assert call({"type": "close", "match": match["match"]})["closed"] is True
        assert call({"type": "state", "match": match["match"]})["error"]["code"] == "match_closed"


def test_a_slow_request_does_not_hold_up_the_others(base):
    url = base.replace("http", "ws") + "/v1/ws"
    with connect(url) as slow, connect(url) as fast:
        slow.send(json.dumps({"v": 1, "type": "bot_move", "game": "talon_v0", "state": {"seed": 3},
                              "bot": "test:slow", "time_limit_ms": 60000}))
        fast.send(json.dumps({"v": 1, "type": "bot_move", "game": "talon_v0", "state": {"seed": 3},
                              "bot": "scripted"}))
        assert json.loads(fast.recv(timeout=RECV_TIMEOUT))["ok"]
        with pytest.raises(TimeoutError):  # the slow bot (3 s) is still thinking: the fast one did not wait
            slow.recv(timeout=0)
        reply = json.loads(slow.recv(timeout=RECV_TIMEOUT))
        assert reply["ok"] and "fallback" not in reply["actions"][0]


def test_shipped_checkpoint_plays_by_name(base):
    try:
        from wargym import baselines
    except ImportError:
        pytest.skip("wargym.baselines is not in this build: no checkpoint to serve")
    with httpx.Client(base_url=base, timeout=RECV_TIMEOUT) as client:
        info = {g["game"]: g for g in client.get("/v1/info").json()["games"]}
        served = [(g, name) for g in info for name in info[g].get("bots", []) if name.startswith("model:")]
        if not served:
            pytest.skip(f"wargym.baselines ships no checkpoint ({ {g: baselines.available(g) for g in info} })")
        game, name = served[0]
        # the options it was trained with (a Battle Force checkpoint knows one player count)
        trained = baselines.describe(game, name[len("model:"):])
        options = dict(trained.get("options") or {})
        r = client.post("/v1/bot_move", json={"v": 1, "game": game, "options": options, "state": {"seed": 1},
                                              "bot": name, "legal": True, "time_limit_ms": 120_000})
        assert r.status_code == 200, r.text
        assert r.json()["actions"][0]["by"] == "bot" and not r.json()["actions"][0].get("fallback")
        # a whole (short) match against it, the client in seat 0
        rpc = lambda **m: client.post("/v1/rpc", json={"v": 1, **m}).json()  # noqa: E731
        reply = rpc(type="new_match", game=game, seed=2, options={**options, "max_decisions": 40},
                    bots={"1": name}, time_limit_ms=120_000, legal=True)
        events = []
        while reply["ok"] and not reply["over"]:
            events += reply["events"]
            reply = rpc(type="move", match=reply["match"], seq=reply["seq"], action=reply["legal"][0]["action"],
                        legal=True)
        assert reply["ok"], reply
        events += reply["events"]
        bot_events = [e for e in events if e["seat"] == 1 and e["by"] == "bot"]
        assert reply["over"] and bot_events and not any(e.get("fallback") for e in bot_events)
        # a path is never a bot
        r = client.post("/v1/bot_move", json={"v": 1, "game": game, "state": {"seed": 1}, "bot": "/tmp/model.zip"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_bot"


def test_websocket_size_limit(base):
    from websockets.exceptions import ConnectionClosed
    with connect(base.replace("http", "ws") + "/v1/ws", max_size=None) as ws:
        call = ws_call(ws)
        big = call({"type": "info", "id": "x" * 70000})  # over the server's 65,536 bytes
        assert big["error"]["code"] == "message_too_large"
        assert call({"type": "info"})["ok"]  # the connection goes on
        ws.send(json.dumps({"v": 1, "type": "info", "pad": "x" * 300_000}))  # far over: the server hangs up
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=RECV_TIMEOUT)
