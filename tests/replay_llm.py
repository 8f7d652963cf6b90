"""A real OpenAI-compatible chat-completions server on loopback that replays a
recorded completion (whole or as 5-character streamed deltas, then the closing
``finish_reason`` event and ``[DONE]``), counting requests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Replay(ThreadingHTTPServer):
    """Serves /v1/chat/completions from a list of recorded completions, counting requests."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict] = []
        self.reply = "The warranty lasts 24 months [1]."
        self.delay = 0.0
        self.trickle = 0.0  # seconds between the bytes of a non-streamed body
        self.events: list[str] | None = None  # raw "data:" payloads streamed instead of reply
        # bytes a streamed reply writes as they are, one write each (``trickle`` apart)
        self.raw: list[bytes] | None = None
        self.raw_length: int | None = None  # a Content-Length to declare for them (a lie
        # longer than they are makes the connection close mid-body)
        self.finish_reason: str | None = "stop"  # the last event's / the completion's
        self.done = True  # end a stream with "data: [DONE]"

    def handle_error(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        import sys

        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return  # the client gave up on purpose (the timeout test)
        super().handle_error(request, client_address)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: Replay

    def log_message(self, *args: object) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "body": body,
                                     "auth": self.headers.get("Authorization")})
        if self.server.delay:
            threading.Event().wait(self.server.delay)
        if self.path != "/v1/chat/completions":
            self.send_error(404)
            return
        text = self.server.reply
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            if self.server.raw_length is not None:
                self.send_header("Content-Length", str(self.server.raw_length))
            self.end_headers()
            if self.server.raw is not None:
                for chunk in self.server.raw:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    threading.Event().wait(self.server.trickle)
                return
            if self.server.events is not None:
                for data in self.server.events:
                    self.wfile.write(f"data: {data}\n\n".encode())
                if self.server.done:
                    self.wfile.write(b"data: [DONE]\n\n")
                return
            for i in range(0, len(text), 5):  # 5-character deltas cut links and markers apart
                ev = {"choices": [{"index": 0, "delta": {"content": text[i : i + 5]},
                                   "finish_reason": None}]}
                self.wfile.write(f"data: {json.dumps(ev)}\n\n".encode())
                self.wfile.flush()
            if self.server.finish_reason is not None:  # as OpenAI ends: an empty delta
                ev = {"choices": [{"index": 0, "delta": {},
                                   "finish_reason": self.server.finish_reason}]}
                self.wfile.write(f"data: {json.dumps(ev)}\n\n".encode())
            if self.server.done:
                self.wfile.write(b"data: [DONE]\n\n")
            return
        out = json.dumps({"id": "x", "object": "chat.completion", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text},
             "finish_reason": self.server.finish_reason}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        if self.server.trickle:  # headers at once, then the body a byte at a time
            for i in range(len(out)):
                self.wfile.write(out[i : i + 1])
                self.wfile.flush()
                threading.Event().wait(self.server.trickle)
            return
        self.wfile.write(out)


@contextmanager
def openai_endpoint(monkeypatch, reply: str) -> Iterator[Replay]:  # type: ignore[no-untyped-def]
    """A running Replay answering ``reply``, configured as the user's generator through
    CITELINE_* (what Index.ask, and so the server, read when no generator is given)."""
    srv = Replay()
    srv.reply = reply
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    monkeypatch.setenv("CITELINE_GENERATOR", "openai")
    monkeypatch.setenv("CITELINE_OPENAI_BASE_URL", srv.base_url)
    monkeypatch.setenv("CITELINE_OPENAI_MODEL", "replay")
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
