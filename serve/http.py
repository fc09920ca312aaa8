"""``wargym serve --http``: the protocol over HTTP and WebSocket, and the browser page (FastAPI + uvicorn).

Routes (the OpenAPI document is at ``/openapi.json``, the messages' JSON schema at ``/v1/schema``):

* ``GET /`` the page to play against the bots (``static/``);
* ``GET /v1/info`` the games, their options and bots, the limits;
* ``POST /v1/bot_move`` stateless: a state in, the bot's action out (``type`` may be left out);
* ``POST /v1/rpc`` any request of the protocol, as on stdio;
* ``WS /v1/ws`` any request of the protocol, one JSON text message each way, replies in request order;
* ``GET /v1/matches/{id}/board.png`` (``board.txt``) the board now, ``?viewer=seat``;
* ``GET /v1/matches/{id}/board.json`` where the client's legal actions are on that picture;
* ``GET /v1/matches/{id}/save`` the match as a save file that ``env.load()`` reads (its log in the meta).

Every request runs in a worker thread (``--workers``), never on the event loop, so
a slow request does not stall the others; errors of the POST routes carry the
HTTP status of their code (``protocol.ERROR_STATUS``).

The server belongs to its operator's pages only (PROTOCOL.md, Security): every request's
``Host`` and the WebSocket's ``Origin`` (any request's, where a browser sent one) must name
a loopback name, the host the server was started on, or an ``--allow-origin``; a POST body
is JSON declared as ``application/json`` (a foreign page cannot send that without a CORS
preflight, which this server never grants) and must arrive within ``--body-timeout`` seconds (30).
"""
from __future__ import annotations

import asyncio
import contextlib
import queue
import socket
import sys
import threading
from pathlib import Path

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles

from .protocol import ERROR_STATUS, REQUESTS, SCHEMA, VERSION, ProtocolError, encode_reply, error_reply, parse_json
from .session import Server

STATIC = Path(__file__).resolve().parent / "static"
BODY_TIMEOUT_S = 30.0   # a request body that has not fully arrived by then is refused (408)
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


def _host_of(value: str) -> str:
    """The host name of a Host header or an Origin ("http://name:port"), lower case, without port
    or IPv6 brackets."""
    value = value.strip().lower()
    if "://" in value:
        value = value.split("://", 1)[1]
    value = value.split("/", 1)[0]
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class OriginGuard:
    """ASGI middleware: refuses a request whose Host, or whose Origin where one is sent, is not the
    operator's (DNS rebinding and foreign web pages; PROTOCOL.md, Security), with the coded error
    ``forbidden_origin`` (403; a WebSocket is closed before it is accepted)."""

    def __init__(self, app, hosts: set[str], origins: set[str]):
        self.app, self.hosts, self.origins = app, hosts, origins

    def allowed(self, scope) -> str | None:
        """None if the request may go on, else why not."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        host = headers.get("host")
        if host is None or _host_of(host) not in self.hosts:
            return "the Host header does not name this server"
        origin = headers.get("origin")
        if origin is not None and origin.rstrip("/").lower() not in self.origins \
                and _host_of(origin) not in self.hosts:
            return "requests from other web pages are refused (the server's operator may add --allow-origin)"
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        why = self.allowed(scope)
        if why is None:
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
            return
        response = JSONResponse(error_reply(ProtocolError("forbidden_origin", why)), status_code=403)
        await response(scope, receive, send)


def allowed_names(host: str, allow_origins=()) -> tuple[set[str], set[str]]:
    """(host names, origins) the guard lets through: the loopback names, the host the server was
    started on (unless it is a wildcard address), and each ``--allow-origin`` and its host."""
    hosts = set(LOOPBACK_HOSTS)
    if host not in ("0.0.0.0", "::", ""):
        hosts.add(_host_of(host))
    origins = {o.rstrip("/").lower() for o in allow_origins}
    hosts |= {_host_of(o) for o in origins}
    return hosts, origins


def _errors(*codes: str) -> dict:
    """OpenAPI ``responses`` for the coded errors a route may answer (each status with its codes)."""
    by_status: dict = {}
    for code in ("forbidden_origin", *codes, "internal"):
        by_status.setdefault(ERROR_STATUS[code], []).append(code)
    return {status: {"description": "error: " + ", ".join(names),
                     "content": {"application/json": {"schema": _ERROR_REPLY}}}
            for status, names in sorted(by_status.items())}


_ERROR_REPLY = {"type": "object", "required": ["v", "type", "ok", "error"],
                "properties": {"v": {"type": "integer"}, "type": {"const": "error"}, "ok": {"const": False},
                               "error": {"type": "object", "required": ["code", "message"],
                                         "properties": {"code": {"enum": sorted(ERROR_STATUS)},
                                                        "message": {"type": "string"},
                                                        "field": {"type": "string"}}}}}
_REQUEST_ERRORS = ("bad_json", "message_too_large", "bad_content_type", "body_timeout", "bad_version", "bad_request")
_GAME_ERRORS = ("unknown_game", "game_unavailable", "bad_options", "unknown_bot", "bot_unavailable", "bad_state",
                "bad_save", "unknown_action", "illegal_action", "not_your_turn", "game_over", "hash_mismatch",
                "timeout", "too_costly")
_MATCH_ERRORS = ("unknown_match", "match_closed", "stale_seq", "busy", "too_many_matches")
_BOARD_ERRORS = ("bad_request", "unknown_match", "match_closed")


def _reply_response(reply: dict) -> JSONResponse:
    status = 200 if reply.get("ok") else ProtocolError(reply["error"]["code"], "").status
    return JSONResponse(reply, status_code=status)


class _Workers:
    """Threads that answer requests off the event loop (the game kernels never run on it).

    ``run_in_executor`` costs the loop a ``concurrent.futures.Future``, its wrapping into an asyncio
    future with callbacks both ways, and one wake-up of the loop per finished call: at a few
    thousand requests a second that was a tenth of the loop's time.  Here a finished call goes on
    a list, and the loop is woken once for everything finished since it last looked.  One event
    loop per instance (the server's)."""

    def __init__(self, n: int, name: str = "wargym-serve"):
        self._n, self._name = n, name
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._done: list = []
        self._lock = threading.Lock()
        self._wake_pending = False
        self._threads: list = []

    async def run(self, fn, *args):
        if not self._threads:
            self._threads = [threading.Thread(target=self._work, name=f"{self._name}-{i}", daemon=True)
                             for i in range(self._n)]
            for t in self._threads:
                t.start()
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._jobs.put((loop, future, fn, args))
        return await future

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            loop, future, fn, args = job
            try:
                outcome = (fn(*args), None)
            except BaseException as exc:  # handed to the awaiting coroutine, as an executor would
                outcome = (None, exc)
            with self._lock:
                self._done.append((future, *outcome))
                if self._wake_pending:
                    continue
                self._wake_pending = True
            try:
                loop.call_soon_threadsafe(self._deliver)
            except RuntimeError:  # the loop has closed: nobody waits any more
                return

    def _deliver(self) -> None:
        with self._lock:
            done, self._done, self._wake_pending = self._done, [], False
        for future, result, error in done:
            if future.cancelled():
                continue
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

    def shutdown(self) -> None:
        for _ in self._threads:
            self._jobs.put(None)


def create_app(server: Server, workers: int = 4, host: str = "127.0.0.1", allow_origins=(),
               body_timeout_s: float = BODY_TIMEOUT_S) -> FastAPI:
    pool = _Workers(workers)
    limit = server.limits.max_message_bytes

    async def reap_idle():
        period = min(1.0, max(0.05, server.limits.idle_timeout_s / 4))
        while True:
            await asyncio.sleep(period)
            await pool.run(server.reap)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        task = asyncio.create_task(reap_idle())
        yield
        task.cancel()
        pool.shutdown()

    app = FastAPI(title="wargym serve", version=f"protocol v{VERSION}", lifespan=lifespan,
                  description="wargym's bots as automated opponents for other programs: "
                              "the same JSON messages over HTTP, WebSocket (/v1/ws) and stdio. "
                              "See serve/PROTOCOL.md.")

    app.add_middleware(OriginGuard, *allowed_names(host, allow_origins))

    @app.exception_handler(RequestValidationError)
    async def bad_parameters(request: Request, exc: RequestValidationError):
        """A malformed path or query parameter: the protocol's coded error, not FastAPI's own body."""
        where = ".".join(str(p) for p in exc.errors()[0].get("loc", ())[1:]) if exc.errors() else None
        return _reply_response(error_reply(ProtocolError("bad_request", "a parameter of the URL is malformed",
                                                         field=where or None)))

    run = pool.run

    async def body_of(request: Request) -> bytes | dict:
        """The body, or an error reply: not declared JSON, over the limit (read no further than
        that), or not all there within ``body_timeout_s``."""
        kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind != "application/json":
            return error_reply(ProtocolError("bad_content_type", "a request body is JSON sent as "
                                                                 "Content-Type: application/json"))
        chunks, size = [], 0

        async def read() -> dict | None:
            nonlocal size
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    return error_reply(ProtocolError("message_too_large", f"body over {limit} bytes"))
                chunks.append(chunk)
            return None
        try:
            refused = await asyncio.wait_for(read(), body_timeout_s)
        except asyncio.TimeoutError:
            return error_reply(ProtocolError("body_timeout", f"the body did not arrive within {body_timeout_s:g} s"))
        return refused if refused is not None else b"".join(chunks)

    def client_of(conn) -> str:
        return conn.client.host if conn.client else "unknown"

    def body_schema(*types):
        schema = REQUESTS[types[0]] if len(types) == 1 else {"oneOf": [REQUESTS[t] for t in types]}
        return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}

    @app.get("/", include_in_schema=False)
    async def page():
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/v1/info", summary="games, their options and bots, and the server's limits",
             responses=_errors())
    async def info():
        return _reply_response(await run(server.handle, {"v": VERSION, "type": "info"}))

    @app.get("/v1/schema", summary="JSON schema of the protocol's requests", responses=_errors())
    async def schema():
        return SCHEMA

    @app.post("/v1/bot_move", summary="stateless: a state in, the bot's action(s) out",
              openapi_extra=body_schema("bot_move"), responses=_errors(*_REQUEST_ERRORS, *_GAME_ERRORS))
    async def bot_move(request: Request):
        data = await body_of(request)
        if isinstance(data, dict):
            return _reply_response(data)

        def handle():
            try:
                msg = parse_json(data)
            except ProtocolError as exc:
                return error_reply(exc)
            if isinstance(msg, dict):
                msg.setdefault("type", "bot_move")
                if msg["type"] != "bot_move":
                    return error_reply(ProtocolError("bad_request", "this endpoint takes bot_move; use /v1/rpc",
                                                     field="type"), msg.get("id"))
            return server.handle(msg, client_of(request))
        return _reply_response(await run(handle))

    @app.post("/v1/rpc", summary="any request of the protocol (as on stdio and the WebSocket)",
              openapi_extra=body_schema(*REQUESTS),
              responses=_errors(*_REQUEST_ERRORS, *_GAME_ERRORS, *_MATCH_ERRORS))
    async def rpc(request: Request):
        data = await body_of(request)
        if isinstance(data, dict):
            return _reply_response(data)
        return _reply_response(await run(server.handle_bytes, data, client_of(request)))

    def answer(data: bytes, client: str) -> str:
        """One request to its reply's text, all in the worker: the event loop only moves frames."""
        return encode_reply(server.handle_bytes(data, client))

    @app.websocket("/v1/ws")
    async def ws(websocket: WebSocket):
        await websocket.accept()
        client = client_of(websocket)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                data = message.get("bytes") or (message.get("text") or "").encode()
                await websocket.send_text(await run(answer, data, client))
        except WebSocketDisconnect:  # the client went away: its matches wait for it until the idle timeout
            pass

    @app.get("/v1/matches/{match}/board.png", summary="the board now, as a PNG",
             response_class=Response, responses={200: {"content": {"image/png": {}}}, **_errors(*_BOARD_ERRORS)})
    async def board_png(match: str, viewer: int | None = None):
        try:
            png = await run(server.match_board, match, viewer, "png")
        except ProtocolError as exc:
            return _reply_response(error_reply(exc))
        return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})

    @app.get("/v1/matches/{match}/board.json", summary="where the client's legal actions are on board.png "
             "(hexes, circles or boxes in its pixels)", responses=_errors(*_BOARD_ERRORS))
    async def board_json(match: str):
        try:
            return await run(server.match_board_map, match)
        except ProtocolError as exc:
            return _reply_response(error_reply(exc))

    @app.get("/v1/matches/{match}/board.txt", summary="the board now, as text", response_class=PlainTextResponse,
             responses=_errors(*_BOARD_ERRORS))
    async def board_txt(match: str, viewer: int | None = None):
        try:
            text = await run(server.match_board, match, viewer, "ansi")
        except ProtocolError as exc:
            return _reply_response(error_reply(exc))
        return PlainTextResponse(text)

    @app.get("/v1/matches/{match}/save", summary="the match as a save file (env.load reads it)",
             response_class=Response,
             responses={200: {"content": {"application/octet-stream": {}}}, **_errors(*_BOARD_ERRORS)})
    async def save(match: str):
        try:
            name, data = await run(server.match_file, match)
        except ProtocolError as exc:
            return _reply_response(error_reply(exc))
        return Response(data, media_type="application/octet-stream",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    return app


def run(server: Server, host: str = "127.0.0.1", port: int = 8765, workers: int = 4,
        log_level: str = "warning", allow_origins=(), body_timeout_s: float = BODY_TIMEOUT_S) -> int:
    """Serve until interrupted; port 0 takes a free port.  The address goes to stderr once listening."""
    import uvicorn

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound = sock.getsockname()[1]
    app = create_app(server, workers, host, allow_origins, body_timeout_s)
    # frames a little over the message limit still reach the server, which answers message_too_large
    # no per-message compression: replies are a few hundred bytes to a few KB; zlib held ~56 KB a
    # connection (144 -> 88 KB a match in benchmarks/serve_load.py) and cost CPU on every frame
    config = uvicorn.Config(app, log_level=log_level, ws_max_size=2 * server.limits.max_message_bytes + 1024,
                            ws_per_message_deflate=False, timeout_graceful_shutdown=2)
    uv = uvicorn.Server(config)

    async def main():
        task = asyncio.create_task(uv.serve(sockets=[sock]))
        while not uv.started and not task.done():
            await asyncio.sleep(0.02)
        if uv.started:
            print(f"wargym serve --http: listening on http://{host}:{bound}/", file=sys.stderr, flush=True)
        await task

    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        runner.run(main())
    return 0


def _loop_factory():
    """uvloop's event loop where it is installed (the ``serve`` extra has it): at a few thousand
    WebSocket frames a second the loop's own overhead is a large part of a move's cost (measured
    with benchmarks/serve_load.py: ~20 % less server CPU a move).  ``WARGYM_SERVE_LOOP=asyncio``
    keeps the standard loop, to compare."""
    import os
    if os.environ.get("WARGYM_SERVE_LOOP") == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop
