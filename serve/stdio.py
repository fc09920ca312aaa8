"""``wargym serve --stdio``: the protocol as JSON lines on stdin and stdout.

One request per line in, one reply per line out, in order, each flushed at
once (a client that waits for a reply never waits for a buffer).  Nothing
else is ever written to stdout: logs, warnings and any stray ``print`` go to
stderr.  End of input (or a client that closed the pipe) ends the server
with status 0.  A line longer than ``--max-message-bytes`` gets the error
``message_too_large`` and the rest of it is skipped.
"""
from __future__ import annotations

import os
import sys
import threading

from .protocol import ProtocolError, encode_reply, error_reply
from .session import Server

CHUNK = 1 << 16


def _lines(stream, limit: int):
    """Yield each line (without its newline), or None for a line over ``limit`` bytes."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of the long line
                line = stream.readline(CHUNK)
            yield None
            continue
        yield line.rstrip(b"\r\n")


def _reaper(server: Server, stop: threading.Event) -> None:
    period = min(1.0, max(0.05, server.limits.idle_timeout_s / 4))
    while not stop.wait(period):
        server.reap()


def run(server: Server, stdin=None, stdout=None) -> int:
    stdin = stdin or sys.stdin.buffer
    out = stdout or sys.stdout.buffer
    sys.stdout = sys.stderr  # stdout carries replies only
    stop = threading.Event()
    threading.Thread(target=_reaper, args=(server, stop), daemon=True, name="wargym-reaper").start()
    print(f"wargym serve --stdio: ready (protocol v1); limits {server.limits.to_json()}", file=sys.stderr,
          flush=True)
    try:
        for line in _lines(stdin, server.limits.max_message_bytes):
            if line is None:
                reply = error_reply(ProtocolError(
                    "message_too_large", f"line longer than {server.limits.max_message_bytes} bytes; skipped"))
            elif not line.strip():
                continue
            else:
                reply = server.handle_bytes(line, client="stdio")
            out.write(encode_reply(reply).encode() + b"\n")
            out.flush()
    except BrokenPipeError:  # the client went away mid-game: nothing to answer to
        # (and nothing left for Python to flush at exit, which would report the broken pipe again)
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
        except (OSError, ValueError, AttributeError):  # not a real file (a test's buffer)
            pass
    finally:
        stop.set()
    return 0
