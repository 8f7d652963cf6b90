"""A live uvicorn server on a free loopback port, driven over real HTTP.

The app runs in-process (a background thread) so it can share the session's
already-loaded embedding model; everything else is real: sockets, multipart
bodies, the background indexer, SQLite indexes and the keys file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from server_live import LiveServer


@pytest.fixture(scope="module")
def live() -> Iterator[Callable[..., LiveServer]]:
    """Start servers for create_app(**kwargs); all are stopped at module end."""
    started: list[LiveServer] = []

    def _start(**kwargs) -> LiveServer:  # type: ignore[no-untyped-def]
        from citeline.server.app import create_app

        s = LiveServer(create_app(**kwargs)).start()
        started.append(s)
        return s

    yield _start
    for s in started:
        s.stop()
