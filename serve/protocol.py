"""The messages of ``wargym serve``, version 1: their JSON schema, their checks, error codes.

Both transports (JSON lines on stdio, HTTP + WebSocket) carry the same JSON
objects; ``PROTOCOL.md`` describes them for client authors.  The schema below
is the single definition: ``validate`` checks a request against it (so a bad
field is named by its path, e.g. ``bots.1.level``) and the HTTP server
publishes it in its OpenAPI document and at ``/v1/schema``.

This module needs only the standard library and numpy (``state_hash``), so
the stdio transport runs without the ``serve`` extra.
"""
from __future__ import annotations

import hashlib
import json
import re

import numpy as np

VERSION = 1

# -- errors -------------------------------------------------------------------------
# code -> HTTP status of the stateless endpoints (the WebSocket and stdio carry the code only)
ERROR_STATUS = {
    "bad_json": 400,            # not JSON, or not one JSON object
    "message_too_large": 413,   # over the server's --max-message-bytes
    "bad_version": 400,         # "v" is not a version this server speaks
    "bad_request": 422,         # a field has the wrong type, range, or is missing or unknown
    "unknown_game": 404,
    "game_unavailable": 503,    # registered, but its module failed to import
    "bad_options": 422,         # the game refused its options (the message says which and why)
    "unknown_bot": 404,
    "bot_unavailable": 503,     # on the server's list, but its checkpoint failed to load
    "bad_state": 422,           # history that cannot be replayed (an action illegal on the way)
    "bad_save": 422,            # a save blob that is corrupt, of another game, or of other options
    "unknown_action": 422,      # an action name the game does not have
    "illegal_action": 409,      # a real action the rules forbid now (why_illegal's reason)
    "not_your_turn": 409,       # the decision belongs to a seat the request does not play
    "game_over": 409,
    "unknown_match": 404,
    "match_closed": 410,        # closed by the client, or idle past the timeout
    "stale_seq": 409,           # seq is not the match's current sequence number
    "hash_mismatch": 409,       # state_hash does not match the state the server holds
    "busy": 409,                # another request for the same match is being answered
    "too_many_matches": 429,
    "timeout": 504,             # the bot did not move within time_limit_ms and the client asked for an error
    "too_costly": 422,          # a request whose replay took more CPU time than --request-cpu-ms (nothing changed)
    "forbidden_origin": 403,    # HTTP: a Host or Origin that is not the operator's (serve/PROTOCOL.md, Security)
    "bad_content_type": 415,    # HTTP: a POST body that is not declared application/json
    "body_timeout": 408,        # HTTP: a request body that did not arrive in time
    "internal": 500,
}

MAX_JSON_DEPTH = 32  # nesting of arrays and objects in one request (the deepest real request is ~6)


class ProtocolError(Exception):
    """A request the server refuses; the session it names is left as it was."""

    def __init__(self, code: str, message: str, field: str | None = None, rule: str | None = None, **extra):
        assert code in ERROR_STATUS, code
        super().__init__(message)
        self.code, self.message, self.field, self.rule, self.extra = code, message, field, rule, extra

    @property
    def status(self) -> int:
        return ERROR_STATUS[self.code]

    def to_json(self) -> dict:
        err = {"code": self.code, "message": self.message}
        if self.field is not None:
            err["field"] = self.field
        if self.rule is not None:
            err["rule"] = self.rule
        err.update(self.extra)
        return err


def error_reply(exc: ProtocolError, request_id=None) -> dict:
    reply = {"v": VERSION, "type": "error", "ok": False, "error": exc.to_json()}
    if request_id is not None:
        reply["id"] = request_id
    return reply


def parse_json(data: bytes, max_depth: int = MAX_JSON_DEPTH):
    """One request's bytes -> its JSON value; ``bad_json`` for anything else, nested deeper than
    ``max_depth`` included (checked before parsing: Python's parser recurses, and ~1000 levels in a
    2 KB line would raise RecursionError)."""
    if data.count(b"[") + data.count(b"{") > max_depth and _depth(data) > max_depth:
        raise ProtocolError("bad_json", f"JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ProtocolError("bad_json", f"not JSON: {exc}") from None


_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth(data: bytes) -> int:
    """The deepest nesting of brackets outside strings (strings are skipped whole)."""
    depth = deepest = 0
    for token in _JSON_TOKEN.finditer(data):
        c = token.group()[:1]
        if c in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif c in (b"]", b"}"):
            depth -= 1
    return deepest


# -- schema ---------------------------------------------------------------------------
_ACTION = {"description": "an action id (integer) or the action's name as the game prints it",
           "oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "minLength": 1, "maxLength": 200}]}
# at most 2^53 - 1: every JSON client and schema validator holds such an integer exactly (a validator
# that compares as floats would take 2^63 + 191 for 2^63 - 1)
MAX_SEED = 2 ** 53 - 1
_SEED = {"type": "integer", "minimum": 0, "maximum": MAX_SEED}
_BOT = {"description": "a bot name from the server's list (info), or {name, level}: level 10 (default) always "
                       "plays the bot's move, level k plays it with probability k/10 and otherwise a random "
                       "legal move (not for the random bot)",
        "oneOf": [{"type": "string", "minLength": 1, "maxLength": 100},
                  {"type": "object", "required": ["name"], "additionalProperties": False,
                   "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 100},
                                  "level": {"type": "integer", "minimum": 1, "maximum": 10}}}]}
_STATE = {"description": "the game's state: a wargym save blob (base64 of the file save() writes) or seed + the "
                         "actions played since reset(seed)",
          "oneOf": [{"type": "object", "required": ["save"], "additionalProperties": False,
                     "properties": {"save": {"type": "string", "minLength": 1}}},
                    {"type": "object", "required": ["seed"], "additionalProperties": False,
                     "properties": {"seed": _SEED, "actions": {"type": "array", "items": _ACTION}}}]}
_REPLY_OPTS = {
    "legal": {"type": "boolean", "description": "include the legal actions with their names"},
    "observe": {"type": "boolean", "description": "include the observation of the seat to decide (base64 int8)"},
    "save": {"type": "boolean", "description": "include the state as a save blob (it holds hidden information: "
                                               "deck order, hands)"},
}
_BOT_CLOCK = {
    "time_limit_ms": {"type": "integer", "minimum": 1, "maximum": 600000,
                      "description": "per bot decision, from the request's arrival (default: the server's)"},
    "on_timeout": {"enum": ["fallback", "error"],
                   "description": "past the limit: play the game's scripted bot's move (default) or reply "
                                  "error 'timeout' and change nothing"},
}
_COMMON = {"v": {"const": VERSION}, "id": {"description": "echoed in the reply",
                                           "oneOf": [{"type": "string", "maxLength": 100}, {"type": "integer"}]}}


def _message(type_: str, required=(), **props) -> dict:
    return {"type": "object", "required": ["v", "type", *required], "additionalProperties": False,
            "properties": {**_COMMON, "type": {"const": type_}, **props}}


_GAME = {"game": {"type": "string", "description": "a game module, e.g. battle_force_v1 (see info)"},
         "options": {"type": "object", "description": "the game's options as keywords of env(); options naming "
                                                      "files on the server are refused"}}
_MATCH = {"match": {"type": "string", "minLength": 1, "maxLength": 64},
          "seq": {"type": "integer", "minimum": 0,
                  "description": "the match's sequence number as the client last saw it (decisions so far)"},
          "state_hash": {"type": "string", "description": "the state hash the client last saw (optional check)"}}

REQUESTS = {
    "info": _message("info"),
    "bot_move": _message(
        "bot_move", ["game", "state", "bot"], **_GAME, state=_STATE, bot=_BOT,
        seat={"type": "integer", "minimum": 0, "description": "the seat the bot plays (default: the seat to decide)"},
        until={"enum": ["one", "turn"], "description": "one decision (default), or every decision of that seat "
                                                     "until another seat decides or the game ends"},
        state_hash={"type": "string", "description": "expected hash of the given state (optional check)"},
        **_BOT_CLOCK, **_REPLY_OPTS),
    "new_match": _message(
        "new_match", ["game"], **_GAME,
        seed={**_SEED, "description": "reset(seed); default: a seed the server draws and reports"},
        state=_STATE,
        bots={"type": "object", "description": "seat (as a string) -> bot; the other seats are the client's. "
                                               "Default: {\"1\": \"scripted\", ...} every seat but 0",
              "propertyNames": {"pattern": "^(0|[1-9][0-9]{0,2})$"}, "additionalProperties": _BOT},
        bot_moves={"enum": ["all", "one"], "description": "after the client's move, play every bot decision up to "
                                                        "the client's next (default) or one (then 'advance')"},
        **_BOT_CLOCK, **_REPLY_OPTS),
    "move": _message("move", ["match", "seq", "action"], **_MATCH, action=_ACTION,
                     bot_moves={"enum": ["all", "one"]},
                     **_BOT_CLOCK, **_REPLY_OPTS),
    "advance": _message("advance", ["match", "seq"], **_MATCH, bot_moves={"enum": ["all", "one"]},
                        **_BOT_CLOCK, **_REPLY_OPTS),
    "state": _message("state", ["match"], match=_MATCH["match"], history={"type": "boolean"}, **_REPLY_OPTS),
    "close": _message("close", ["match"], match=_MATCH["match"]),
}

SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema",
          "title": f"wargym serve protocol v{VERSION}: requests",
          "oneOf": list(REQUESTS.values())}


# -- validation ---------------------------------------------------------------------------
_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check(value, schema: dict, path: str) -> str | None:
    """None if ``value`` fits ``schema`` (the subset of JSON Schema used above), else why not."""
    if "oneOf" in schema:
        reasons = [_check(value, s, path) for s in schema["oneOf"]]
        if any(r is None for r in reasons):
            return None
        return reasons[0] if len(reasons) == 1 else " / ".join(sorted(set(reasons)))
    if "const" in schema and (value != schema["const"] or isinstance(value, bool) != isinstance(schema["const"], bool)):
        return f"{path or 'message'} must be {schema['const']!r}, got {_short(value)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path} must be one of {schema['enum']}, got {_short(value)}"
    t = schema.get("type")
    if t == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # JSON Schema counts 40.0 as an integer (validate() stores it as 40)
        if not _is_int(value):
            return f"{path} must be an integer, got {type(value).__name__}"
        if value < schema.get("minimum", value) or value > schema.get("maximum", value):
            return f"{path} must be in {schema.get('minimum', '-inf')}..{schema.get('maximum', 'inf')}, got {value}"
    elif t is not None and not isinstance(value, _TYPES[t]):
        return f"{path} must be {'an' if t[0] in 'ao' else 'a'} {t}, got {type(value).__name__}"
    if t == "string" and not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
        return f"{path} must be {schema.get('minLength', 0)} to {schema.get('maxLength', 'any')} characters long"
    if t == "array":
        for i, item in enumerate(value):
            why = _check(item, schema["items"], f"{path}.{i}")
            if why:
                return why
    if t == "object":
        for key in schema.get("required", ()):
            if key not in value:
                return f"{_join(path, key)} is missing"
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        names = schema.get("propertyNames")
        for key, item in value.items():
            if names is not None and not re.fullmatch(names["pattern"], key):
                return f"{_join(path, key)} is not a valid name here (names match {names['pattern']})"
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is None:
                if extra is False:
                    return f"{_join(path, key)} is not a field of this message (fields: {sorted(props)})"
                continue
            why = _check(item, sub, _join(path, key))
            if why:
                return why
    return None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else str(key)


def _field_of(reason: str) -> str:
    return reason.split(" ", 1)[0]


def _integers(value, schema: dict):
    """``value`` with the integral floats its schema types as integers made ints (40.0 -> 40), so
    the code behind validate() sees Python ints only; ``value`` already passed ``_check``."""
    if "oneOf" in schema:
        fits = [s for s in schema["oneOf"] if _check(value, s, "") is None]
        return _integers(value, fits[0]) if fits else value
    t = schema.get("type")
    if t == "integer" and isinstance(value, float):
        return int(value)
    if t == "array" and isinstance(value, list):
        return [_integers(v, schema["items"]) for v in value]
    if t == "object" and isinstance(value, dict):
        props, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
        return {k: _integers(v, props.get(k, extra if isinstance(extra, dict) else {})) for k, v in value.items()}
    return value


def validate(msg) -> dict:
    """The request, checked against its schema; a ``ProtocolError`` naming the field otherwise."""
    if not isinstance(msg, dict):
        raise ProtocolError("bad_json", f"a request is one JSON object, got {type(msg).__name__}")
    if isinstance(msg.get("v"), bool) or msg.get("v") != VERSION:  # (true == 1 in Python, not in JSON)
        raise ProtocolError("bad_version", f"this server speaks protocol version {VERSION}; the request has "
                                           f"v={_short(msg.get('v'))}", field="v", supported=[VERSION])
    kind = msg.get("type")
    if not isinstance(kind, str) or kind not in REQUESTS:
        raise ProtocolError("bad_request", f"type must be one of {sorted(REQUESTS)}, got {_short(kind)}",
                            field="type")
    why = _check(msg, REQUESTS[kind], "")
    if why:
        raise ProtocolError("bad_request", why, field=_field_of(why))
    return _integers(msg, REQUESTS[kind])


def _short(value, limit: int = 80) -> str:
    """A client's value in an error message, cut short (a reply never grows with the request)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


# -- state hash ----------------------------------------------------------------------------
# The bots' own random stream is no part of the position: a client that replays the same actions
# in its own wargym env (whose bots never drew) gets the same hash.
_NOT_HASHED = ("policy_rng",)


def state_hash(core, b: int = 0) -> str:
    """A short hash of game ``b`` of a ``VecGame`` (``env.core`` of an AEC env): every state field but
    the bots' random stream, and whether the game was cut off."""
    h = hashlib.blake2b(digest_size=8)
    h.update(core.spec.game.encode())
    for name, _shape, _dtype in core.spec.fields:
        if name not in _NOT_HASHED:
            h.update(name.encode())
            h.update(np.ascontiguousarray(core.state.arrays[name][b]).tobytes())
    h.update(bytes([bool(core.truncated[b])]))
    return h.hexdigest()


# -- replies as text ---------------------------------------------------------------------------
try:
    import orjson
except ImportError:  # the stdio transport runs without the serve extra: the standard library then
    orjson = None


def encode_reply(reply: dict) -> str:
    """A reply as one line of compact JSON.  orjson (the ``serve`` extra) takes ~1.5 us for a Talon
    move's reply with its legal actions where ``json.dumps`` takes ~35 us: at thousands of moves a
    second that was the largest single cost of a move.  A value orjson refuses (an integer id past
    64 bits that a client sent) falls back to ``json``.  (orjson writes text as UTF-8 where ``json``
    escapes it as \\uXXXX: the same JSON values either way.)"""
    if orjson is not None:
        try:
            return orjson.dumps(reply).decode()
        except TypeError:
            pass
    return json.dumps(reply, separators=(",", ":"))
