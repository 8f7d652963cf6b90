"""The SQLite index when its file cannot be written or read as asked: a full disk, a
read-only file, another process's lock. Real SQLite and the real model throughout: a
full disk is SQLite's own ``max_page_count`` limit (it answers SQLITE_FULL, as a full
disk does), a read-only file its ``query_only`` switch (SQLITE_READONLY).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.errors import StoreUnavailable
from citeline.pipeline import Index
from citeline.store.sqlite import DB_NAME

TIDES = "# Tides\n\nThe harbour pilot boards at slack water, two hours after high tide.\n"
CRANES = "# Cranes\n\nThe gantry crane lifts forty tonnes; its winch is greased each Monday.\n"


def test_a_full_disk_stops_the_run_naming_the_file_and_keeps_what_was_indexed(
        tmp_path: Path, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text(TIDES)
    index = Index(tmp_path / "ix", embedder=embedder)
    assert index.index(docs).indexed == ["tides.md"]
    (docs / "cranes.md").write_text(CRANES)
    conn = index.store.conn  # type: ignore[attr-defined]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # not one page more: the disk is full
    with pytest.raises(StoreUnavailable) as err:
        index.index(docs)
    msg = str(err.value)
    # it was "the file is damaged; index the documents again into a new --index folder"
    assert str(tmp_path / "ix" / DB_NAME) in msg and "disk is full" in msg
    assert "cranes.md was not written" in msg and "free space" in msg
    assert index.search("when does the pilot board", k=1).hits[0].document == "tides.md"
    assert [d.record.path for d in index.status()] == ["tides.md"]
    conn.execute("PRAGMA max_page_count = 1073741823")  # space freed: the same run again
    assert index.index(docs).indexed == ["cranes.md"]
    assert index.search("gantry crane winch", k=1).hits[0].document == "cranes.md"
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    index.close()


def test_a_read_only_index_names_the_file_and_what_to_do(tmp_path: Path, embedder):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text(TIDES)
    index = Index(tmp_path / "ix", embedder=embedder)
    index.index(docs)
    index.store.conn.execute("PRAGMA query_only = 1")  # type: ignore[attr-defined]
    with pytest.raises(StoreUnavailable) as err:
        index.remove("tides.md")
    msg = str(err.value)
    assert str(tmp_path / "ix" / DB_NAME) in msg and "read-only" in msg
    assert "make both writable" in msg
    with pytest.raises(StoreUnavailable, match="read-only"):
        index.set_threshold(0.5)
    assert index.search("when does the pilot board", k=1).hits[0].document == "tides.md"
    index.close()
