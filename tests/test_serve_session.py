"""The session core of ``wargym serve`` in process (issue 17): checkpoint bots by name only, their
time limit, strength levels, and the options that would make the server read files."""
from __future__ import annotations

import threading
import types

import numpy as np
import pytest

from wargym.serve import session
from wargym.serve.session import Limits, Server


TALON_OBS, TALON_ACTIONS = 8120, 203   # talon_v1 with its default options


class StubModel:
    """Stands in for a loaded MaskablePPO: the last legal action; blocks while ``gate`` is clear."""
    observation_space = types.SimpleNamespace(shape=(TALON_OBS,))
    action_space = types.SimpleNamespace(n=TALON_ACTIONS)

    def __init__(self):
        self.gate = threading.Event()
        self.gate.set()
        self.seen = []

    def predict(self, obs, action_masks, deterministic):
        self.seen.append((obs.shape, action_masks.dtype, deterministic))
        self.gate.wait(60)
        return np.array([np.flatnonzero(action_masks[0])[-1]]), None


@pytest.fixture
def stub_baselines(monkeypatch):
    model = StubModel()
    loaded = []

    def load(game, name):
        loaded.append((game, name))
        if name == "broken":
            raise RuntimeError("damaged zip")
        return model
    lib = types.SimpleNamespace(available=lambda game: ["tiny", "broken"] if game == "talon_v1" else [], load=load)
    monkeypatch.setattr(session, "_baselines", lambda: lib)
    return model, loaded


def ask(server, **msg):
    return server.handle({"v": 1, "type": "bot_move", "game": "talon_v1", "state": {"seed": 2}, **msg})


def test_checkpoints_are_served_by_name_from_the_server_list(stub_baselines):
    model, loaded = stub_baselines
    server = Server()
    info = {g["game"]: g for g in server.handle({"v": 1, "type": "info"})["games"]}
    assert info["talon_v1"]["bots"] == ["random", "scripted", "search", "mcts", "model:tiny", "model:broken",
                                        "mcts@tiny", "mcts@broken"]
    reply = ask(server, bot="model:tiny", legal=True)
    assert reply["ok"], reply
    legal_before = ask(server, bot="random", legal=True)  # (the legal list after one move differs)
    assert legal_before["ok"]
    assert model.seen[0] == ((1, TALON_OBS), np.dtype(bool), True)  # a flat observation batch, a boolean mask
    assert loaded == [("talon_v1", "tiny")]
    ask(server, bot="model:tiny")
    assert loaded == [("talon_v1", "tiny")]  # loaded once
    for name in ("/tmp/evil.zip", "model:../../evil", "model:tiny.zip"):
        assert ask(server, bot=name)["error"]["code"] == "unknown_bot"
    assert ask(server, bot="model:broken")["error"]["code"] == "bot_unavailable"
    assert server.handle({"v": 1, "type": "bot_move", "game": "planetoids_v1", "state": {"seed": 2},
                          "bot": "model:tiny"})["error"]["code"] == "unknown_bot"


def test_a_checkpoint_trained_with_other_options_is_refused(stub_baselines):
    server = Server()
    reply = ask(server, bot="model:tiny", options={"map_cols": 20})   # another map: another observation size
    assert reply["error"]["code"] == "bot_unavailable" and "trained on observations (8120,)" in \
        reply["error"]["message"]


def test_a_real_maskable_ppo_checkpoint_plays_a_whole_match(tmp_path, monkeypatch):
    """The real loading and predicting path (sb3-contrib's MaskablePPO saved and loaded from a zip), with
    a small untrained network: what a shipped checkpoint goes through, without waiting for one."""
    from sb3_contrib import MaskablePPO

    from wargym.wrappers.sb3 import WargymVecEnv
    model = MaskablePPO("MlpPolicy", WargymVecEnv("talon", n_envs=1), n_steps=8, policy_kwargs={"net_arch": [8]})
    model.save(tmp_path / "tiny.zip")
    lib = types.SimpleNamespace(available=lambda game: ["tiny"] if game == "talon_v1" else [],
                                load=lambda game, name: MaskablePPO.load(tmp_path / f"{name}.zip", device="cpu"))
    monkeypatch.setattr(session, "_baselines", lambda: lib)
    server = Server()
    reply = server.handle({"v": 1, "type": "new_match", "game": "talon_v1", "seed": 3, "bots": {"1": "model:tiny"},
                           "options": {"max_decisions": 60}, "time_limit_ms": 120_000, "legal": True})
    bot_moves = 0
    while reply["ok"] and not reply["over"]:
        bot_moves += sum(e["by"] == "bot" for e in reply["events"])
        assert not any(e.get("fallback") for e in reply["events"])
        reply = server.handle({"v": 1, "type": "move", "match": reply["match"], "seq": reply["seq"],
                               "action": reply["legal"][0]["action"], "legal": True})
    assert reply["ok"], reply
    assert reply["seq"] == 60 and reply["result"]["truncated"] and bot_moves > 0


def test_the_operator_serves_its_own_checkpoint_by_name(tmp_path, capsys):
    """``wargym serve --model GAME:NAME=PATH``: the operator's checkpoint (a MaskablePPO zip here; an
    RLlib folder in test_rllib.py) is the bot ``model:NAME``; bad entries stop the server at start-up
    with the entry named, and clients still name bots only."""
    from sb3_contrib import MaskablePPO

    from wargym.__main__ import main
    from wargym.wrappers.sb3 import WargymVecEnv
    model = MaskablePPO("MlpPolicy", WargymVecEnv("talon", n_envs=1), n_steps=8, policy_kwargs={"net_arch": [8]})
    model.save(tmp_path / "mine.zip")
    server = Server(models={"talon_v1": {"mine": str(tmp_path / "mine.zip")}})
    info = {g["game"]: g for g in server.handle({"v": 1, "type": "info"})["games"]}
    assert "model:mine" in info["talon_v1"]["bots"] and "model:mine" not in info["planetoids_v1"]["bots"]
    reply = ask(server, bot="model:mine", legal=True, time_limit_ms=120_000)
    assert reply["ok"] and not reply["actions"][0].get("fallback"), reply
    assert ask(server, bot=str(tmp_path / "mine.zip"))["error"]["code"] == "unknown_bot"
    for models, says in (({"chess": {"x": str(tmp_path / "mine.zip")}}, "unknown game 'chess'"),
                         ({"talon_v1": {"x": str(tmp_path / "none.zip")}}, "no checkpoint at"),
                         ({"talon_v1": {"a/b": str(tmp_path / "mine.zip")}}, "a name is letters")):
        with pytest.raises(ValueError, match=says):
            Server(models=models)
    for bad in ("talon_v1=mine", "talon_v1:mine", f"talon_v1:x={tmp_path / 'none.zip'}"):
        with pytest.raises(SystemExit) as exit_:
            main(["serve", "--stdio", "--model", bad])
        assert "--model" in str(exit_.value.code)


def test_a_checkpoint_past_its_time_limit_gives_the_scripted_move(stub_baselines):
    model, _ = stub_baselines
    server = Server()
    scripted = ask(server, bot="scripted")["actions"][0]
    model.gate.clear()  # the model thinks until released
    try:
        late = ask(server, bot="model:tiny", time_limit_ms=20)
        assert late["actions"][0]["fallback"] is True and late["actions"][0]["action"] == scripted["action"]
        assert ask(server, bot="model:tiny", time_limit_ms=20, on_timeout="error")["error"]["code"] == "timeout"
    finally:
        model.gate.set()


def test_strength_levels_are_reproducible_and_weaker():
    server = Server()
    common = {"type": "bot_move", "game": "battle_force_v1", "v": 1}
    full, weak, weak_again = [], [], []
    for seed in range(12):
        full.append(server.handle({**common, "state": {"seed": seed}, "bot": "heuristic"})["actions"][0]["action"])
        weak.append(server.handle({**common, "state": {"seed": seed}, "bot": {"name": "heuristic", "level": 1}}))
        weak_again.append(server.handle({**common, "state": {"seed": seed},
                                         "bot": {"name": "heuristic", "level": 1}}))
    assert weak == weak_again  # the draw is fixed by the position
    assert [r["actions"][0]["action"] for r in weak] != full


@pytest.mark.parametrize("name", ["search", "mcts"])
def test_the_search_bot_is_served_reproducibly_within_its_time_limit(name):
    """envs/core/search.py's flat and tree searches as server bots: offered for every game (Battle
    Force's hidden cards sampled, never read), the level a budget
    (64 simulations at 10, halved per level), the same request the same move, and past the time limit
    the scripted bot's move (the search runs on a copy: nothing it does reaches the match)."""
    server = Server()
    info = {g["game"]: g for g in server.handle({"v": 1, "type": "info"})["games"]}
    assert all(name in info[game]["bots"] for game in ("talon_v1", "union_wars_v1", "battle_force_v1"))
    assert session.search_budget(10) == 64 and session.search_budget(8) == 16 and session.search_budget(1) == 1
    weak = {"name": name, "level": 4}
    first = ask(server, bot=weak, time_limit_ms=120_000)
    assert first["ok"] and not first["actions"][0].get("fallback"), first
    assert ask(server, bot=weak, time_limit_ms=120_000)["actions"] == first["actions"]
    scripted = ask(server, bot="scripted")["actions"][0]["action"]
    late = ask(server, bot=name, time_limit_ms=1)["actions"][0]
    assert late["fallback"] is True and late["action"] == scripted
    hidden = {"v": 1, "type": "bot_move", "game": "battle_force_v1", "state": {"seed": 2},
              "bot": {"name": name, "level": 3}, "time_limit_ms": 120_000}
    reply = server.handle(hidden)
    assert reply["ok"] and not reply["actions"][0].get("fallback"), reply
    assert server.handle(hidden)["actions"] == reply["actions"]


def test_the_tree_search_anchored_on_a_shipped_agent_is_served_with_the_agents_options():
    """Issue 31: "mcts@<baseline>", the tree search whose root keeps the shipped agent's move unless
    another clearly beats it (envs/core/search.py, mcts:N@BASELINE), the level its budget; refused
    with the reason where the match's options give the agent another observation."""
    from wargym import baselines
    server = Server()
    info = {g["game"]: g for g in server.handle({"v": 1, "type": "info"})["games"]}
    assert "mcts@ppo-pointer" in info["union_wars_v2"]["bots"]
    options = dict(baselines.describe("union_wars", "ppo-pointer")["options"])
    move = {"v": 1, "type": "bot_move", "game": "union_wars_v2", "state": {"seed": 4}, "time_limit_ms": 120_000,
            "bot": {"name": "mcts@ppo-pointer", "level": 3}}
    reply = server.handle({**move, "options": options})
    assert reply["ok"] and not reply["actions"][0].get("fallback"), reply
    assert server.handle({**move, "options": options})["actions"] == reply["actions"]
    refused = server.handle({**move, "options": {**options, "exploration_bank": "ask"}})
    assert refused["error"]["code"] == "bot_unavailable" and "plays the game with the options" in \
        refused["error"]["message"]


def test_options_naming_server_files_are_refused():
    server = Server()
    for game, key in (("talon_v1", "ships_file"), ("battle_force_v1", "ships_file"), ("battle_force_v1", "cards_file")):
        reply = server.handle({"v": 1, "type": "new_match", "game": game, "options": {key: "/etc/passwd"}})
        assert reply["error"] == {**reply["error"], "code": "bad_options", "field": f"options.{key}"}
    # a file-kind option is refused whatever its value, the default included (PROTOCOL.md "Security")
    assert server.handle({"v": 1, "type": "new_match", "game": "talon_v1",
                          "options": {"ships_file": None}})["error"]["code"] == "bad_options"


def test_total_match_limit_and_closing():
    server = Server(Limits(max_matches=2, max_matches_per_client=5))
    ids = [server.handle({"v": 1, "type": "new_match", "game": "talon_v1"}, client=c)["match"] for c in "ab"]
    assert server.handle({"v": 1, "type": "new_match", "game": "talon_v1"}, client="c")["error"]["code"] == \
        "too_many_matches"
    assert server.handle({"v": 1, "type": "close", "match": ids[0]})["closed"]
    assert server.handle({"v": 1, "type": "new_match", "game": "talon_v1"}, client="c")["ok"]


def test_a_second_request_for_a_busy_match_is_refused_at_once():
    server = Server()
    match = server.handle({"v": 1, "type": "new_match", "game": "talon_v1", "seed": 1, "legal": True})
    held = server._matches[match["match"]].lock
    move = {"v": 1, "type": "move", "match": match["match"], "seq": match["seq"],
            "action": match["legal"][0]["action"]}
    with held:  # as if another request for it were being answered
        assert server.handle(move)["error"]["code"] == "busy"
        assert server.match_board(match["match"], None, "ansi")  # the board is drawn meanwhile
    assert server.handle(move)["ok"]


def test_command_line_keeps_the_summary_and_adds_serve(capsys):
    from wargym.__main__ import main
    assert main([]) == 0
    assert "wargym serve --stdio | --http" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--help"])
    assert exit_.value.code == 0 and "--idle-timeout" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["serve"])  # --stdio or --http is required
    assert exit_.value.code == 2


def test_replies_encode_to_the_same_json_with_or_without_orjson(monkeypatch):
    """The transports write replies with ``encode_reply`` (orjson if installed, else json; an id
    past 64 bits, which orjson refuses, through json): the same JSON values every way."""
    import json

    from wargym.serve import protocol
    server = Server()
    reply = server.handle({"v": 1, "type": "new_match", "game": "talon_v1", "seed": 5, "legal": True,
                           "id": 2 ** 70})
    assert reply["ok"] and reply["id"] == 2 ** 70
    small = {**reply, "id": 7}
    texts = [protocol.encode_reply(reply), protocol.encode_reply(small)]
    monkeypatch.setattr(protocol, "orjson", None)
    texts += [protocol.encode_reply(reply), protocol.encode_reply(small)]
    assert [json.loads(t) for t in texts] == [reply, small, reply, small]
    assert not any("\n" in t for t in texts)
