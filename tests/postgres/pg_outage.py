"""A database going down and coming back, for real: its connections closed, new ones
refused, then allowed again (what a restart or a failover does to citeline's)."""

from __future__ import annotations

import psycopg


def _server(url: str) -> tuple[str, str]:
    """(the server's maintenance database URL, ``url``'s database name)."""
    base, db = url.split("?", 1)[0].rsplit("/", 1)
    return base + "/postgres", db


def drop_connections(url: str, allow: bool | None = None) -> None:
    """Close every connection to ``url``'s database, as a server restart does (and, with
    ``allow``, refuse or allow new ones, as a server that is down or back up)."""
    admin, db = _server(url)
    with psycopg.connect(admin, autocommit=True) as c:
        if allow is not None:
            c.execute(f'ALTER DATABASE "{db}" ALLOW_CONNECTIONS {str(allow).lower()}')
        c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                  (db,))
