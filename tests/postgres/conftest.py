"""A real PostgreSQL 16 + pgvector for the whole session, one fresh database per test.

The server comes from the ``pgserver`` wheel (see :mod:`citeline.store.pg_local`),
runs on a free loopback port as an unprivileged user, and is stopped at the end.
If it cannot start, the tests fail: a missing server is never a skip.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeline.store.pg_local import LocalPostgres

TEMPLATE = "citeline_template"
_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[LocalPostgres]:
    # not under pytest's 0700 tmp root: the server's own user must reach the folder
    base = Path(tempfile.mkdtemp(prefix="citeline-pg-"))
    pg = LocalPostgres(base, stop_mode="immediate")
    try:
        pg.start()
        import psycopg

        pg.create_database(TEMPLATE)
        with psycopg.connect(pg.url(TEMPLATE), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
        yield pg
    finally:
        pg.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: LocalPostgres) -> str:
    """A URL to a fresh, empty database (pgvector installed, no citeline schema yet)."""
    return pg_server.create_database(f"t{next(_names)}", template=TEMPLATE)


class MemoEmbedder:
    """The session's real model, remembering vectors of texts it has already embedded
    (tests that index one corpus into both backends pay for the model once)."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self._inner = inner
        self._memo: dict[str, object] = {}

    def embed(self, texts, progress: bool = False):  # type: ignore[no-untyped-def]
        import numpy as np

        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            for t, v in zip(todo, self._inner.embed(todo, progress=progress), strict=True):
                self._memo[t] = v
        return np.vstack([self._memo[t] for t in texts]) if texts else self._inner.embed(texts)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._inner, name)


@pytest.fixture(scope="session")
def memo_embedder(embedder) -> MemoEmbedder:  # type: ignore[no-untyped-def]
    return MemoEmbedder(embedder)
