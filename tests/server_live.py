"""Helpers for the server tests: a uvicorn server in a thread, polling, leftovers."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import uvicorn

FIXTURES = Path(__file__).parent / "fixtures"


class LiveServer:
    def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
        self.app = app
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()

    def drop_connections(self) -> None:
        """Abort every open connection, as a server that crashes or loses its network
        does to its clients (a graceful stop would finish each response first)."""
        for conn in list(self.server.server_state.connections):
            conn.loop.call_soon_threadsafe(conn.transport.abort)

    def client(self, key: str | None = None, **kw) -> httpx.Client:  # type: ignore[no-untyped-def]
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60, **kw)


def wait_settled(client: httpx.Client, collection: str, timeout: float = 60.0) -> dict[str, dict]:
    """Poll the document list until nothing is pending/indexing; returns it by name."""
    deadline = time.monotonic() + timeout
    while True:
        r = client.get(f"/api/collections/{collection}/documents")
        r.raise_for_status()
        docs = {d["document"]: d for d in r.json()["documents"]}
        if all(d["state"] not in ("pending", "indexing") for d in docs.values()):
            return docs
        if time.monotonic() > deadline:
            raise AssertionError(f"still busy after {timeout}s: {docs}")
        time.sleep(0.1)


@contextmanager
def no_leftovers(folder: Path) -> Iterator[None]:
    before = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    yield
    after = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    assert after == before
