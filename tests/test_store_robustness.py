"""The SQLite index when its file cannot be written or read as asked: a full disk, a
read-only file, another process's lock, a file cut short or overwritten. Real SQLite and
the real model throughout: a full disk is SQLite's own ``max_page_count`` limit (it
answers SQLITE_FULL, as a full disk does), a read-only file its ``query_only`` switch
(SQLITE_READONLY), a damaged file one whose bytes were cut or overwritten on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from citeline import cli
from citeline.errors import SchemaError, StoreUnavailable
from citeline.pipeline import Index
from citeline.store.sqlite import DB_NAME, MIGRATIONS

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


def _built(tmp_path: Path, embedder) -> Path:
    """An index of two documents, closed (its write-ahead log checkpointed into the file)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text(TIDES)
    (docs / "cranes.md").write_text(CRANES)
    index = Index(tmp_path / "ix", embedder=embedder)
    assert len(index.index(docs).indexed) == 2
    index.close()
    db = tmp_path / "ix" / DB_NAME
    assert not db.with_name(DB_NAME + "-wal").exists()
    return db


def _damaged_message(msg: str, db: Path) -> None:
    assert str(db) in msg and "damaged" in msg
    assert "index the documents again" in msg and "-wal and -shm" in msg


@pytest.mark.parametrize("damage", ["cut in half", "replaced with text"])
def test_a_cut_or_overwritten_index_file_is_named_as_damaged(tmp_path: Path, embedder, capsys,
                                                             damage: str):
    db = _built(tmp_path, embedder)
    data = db.read_bytes()
    if damage == "cut in half":
        db.write_bytes(data[: len(data) // 2])
    else:
        db.write_text("these are my notes, not an index\n")
    kept = db.read_bytes()
    # it was "cannot open the index: database disk image is malformed": no word of
    # what that means or what to do
    with pytest.raises(StoreUnavailable) as err:
        Index(tmp_path / "ix", embedder=embedder)
    _damaged_message(str(err.value), db)
    for argv in (["status"], ["search", "pilot", "--mode", "bm25"]):
        assert cli.main([*argv, "--index", str(tmp_path / "ix")]) == 2
        out, errout = capsys.readouterr()
        assert "Traceback" not in errout and errout.startswith("citeline: error: ")
        _damaged_message(errout, db)
    assert db.read_bytes() == kept  # nothing was written to it


def test_an_index_file_cut_to_nothing_is_named_by_status_and_search_and_built_again_by_index(
        tmp_path: Path, embedder, capsys):
    db = _built(tmp_path, embedder)
    db.write_bytes(b"")  # a copy to a full disk, a truncate
    for argv in (["status"], ["search", "pilot", "--mode", "bm25"]):
        # each read the empty file as an empty index: "0 documents", "nothing matches"
        assert cli.main([*argv, "--index", str(tmp_path / "ix")]) == 2
        err = capsys.readouterr().err
        assert err == (f"citeline: error: {db}: the index file is empty (0 bytes: cut short, "
                       "or never written): index the documents again (citeline index)\n")
    assert db.stat().st_size == 0  # and made it one
    index = Index(tmp_path / "ix", embedder=embedder)  # what `citeline index` opens
    assert sorted(index.index(tmp_path / "docs").indexed) == ["cranes.md", "tides.md"]
    index.close()


def test_a_damaged_page_found_by_a_search_is_named_with_the_file(tmp_path: Path, embedder,
                                                                  capsys):
    db = _built(tmp_path, embedder)
    with sqlite3.connect(db) as c:
        page_size = c.execute("PRAGMA page_size").fetchone()[0]
        root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'chunks'").fetchone()[0]
    c.close()
    with db.open("r+b") as f:  # the chunks table's first page overwritten: a bad sector
        f.seek((root - 1) * page_size)
        f.write(b"\xff" * page_size)
    index = Index(tmp_path / "ix", embedder=embedder)
    assert [d.record.path for d in index.status()] == ["cranes.md", "tides.md"]  # still read
    # it was a bare sqlite3.DatabaseError: the CLI said "the file is damaged" naming no
    # file, and a library caller got SQLite's own exception
    with pytest.raises(StoreUnavailable) as err:
        index.search("when does the pilot board", k=1)
    _damaged_message(str(err.value), db)
    index.close()
    assert cli.main(["search", "pilot", "--mode", "bm25", "--index", str(tmp_path / "ix")]) == 2
    _damaged_message(capsys.readouterr().err, db)


def _overflow_page(db: Path, table: str) -> int:
    """The number of the first page holding the overflow of ``table``'s rows (a long
    text or vector continued past its row's page), from SQLite's ``dbstat`` table."""
    with sqlite3.connect(db) as c:
        try:
            row = c.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = "
                            "'overflow' ORDER BY pageno", (table,)).fetchone()
        except sqlite3.OperationalError:
            pytest.skip("this SQLite was built without the dbstat table")
    c.close()
    assert row is not None
    return row[0]


@pytest.mark.parametrize("damage", ["two pages in the middle", "a chunk's overflow page"])
def test_status_checks_the_pages_and_names_a_damaged_file(tmp_path: Path, embedder, capsys,
                                                          damage: str):
    db = _built(tmp_path, embedder)
    ix = str(tmp_path / "ix")
    assert cli.main(["status", "--index", ix]) == 0  # an intact index passes the check
    assert "2 documents" in capsys.readouterr().out
    with sqlite3.connect(db) as c:
        page_size = c.execute("PRAGMA page_size").fetchone()[0]
    c.close()
    if damage == "two pages in the middle":  # the header kept; SQLite's check fails
        first, n = db.stat().st_size // page_size // 2 - 1, 2
        said = "database disk image is malformed"
    else:  # a bad sector in a chunk's vectors: the check names the page linking to it
        first, n = _overflow_page(db, "chunks") - 1, 1
        said = "SQLite's check of its pages: On tree page "
    with db.open("r+b") as f:
        f.seek(first * page_size)
        f.write(b"\xff" * page_size * n)
    kept = db.read_bytes()
    index = Index(tmp_path / "ix", embedder=embedder)
    # what status reads, the documents table, is intact: it listed both and exited 0
    assert [d.record.path for d in index.status()] == ["cranes.md", "tides.md"]
    index.close()
    for argv in (["status"], ["status", "--json"]):
        assert cli.main([*argv, "--index", ix]) == 2
        out, err = capsys.readouterr()
        assert out == "" and "Traceback" not in err and err.startswith("citeline: error: ")
        _damaged_message(err, db)
        assert said in err
    assert db.read_bytes() == kept  # nothing was written to it


def _citeline_as_is(*argv: str) -> subprocess.CompletedProcess:
    """The CLI in a process of its own, as the user running the tests."""
    return subprocess.run([sys.executable, "-m", "citeline", *argv], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"})


def test_an_index_linked_to_nothing_is_named_so_and_nothing_is_created_through_the_link(
        tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text(TIDES)
    volume = tmp_path / "volume"  # a mount point with nothing mounted on it
    volume.mkdir()
    ix = tmp_path / "ix"
    ix.mkdir()
    (ix / DB_NAME).symlink_to(volume / "ix" / DB_NAME)
    (tmp_path / "linked").symlink_to(volume / "ix")  # the folder itself a link
    (tmp_path / "above").symlink_to(volume / "data")  # a folder above the index one
    cases = [
        (ix, f"{ix / DB_NAME}: the index file is a link to {volume / 'ix' / DB_NAME}, which "
             "does not exist (a volume not mounted?)"),
        (tmp_path / "linked", f"{tmp_path / 'linked'}: the index folder is a link to "
                              f"{volume / 'ix'}, which does not exist (a volume not mounted?)"),
        (tmp_path / "above" / "ix", f"{tmp_path / 'above' / 'ix'}: {tmp_path / 'above'}, a "
                                    f"folder above it, is a link to {volume / 'data'}, which "
                                    "does not exist (a volume not mounted?)"),
    ]
    for folder, said in cases:
        # reading commands said "no citeline index here (run citeline index)"; index said
        # "No such file or directory: give this user permission" (file) or "cannot create
        # the index folder: File exists" (folder)
        for argv in (["status"], ["search", "pilot", "--mode", "bm25"], ["ask", "pilot"],
                     ["index", str(docs), "-q"]):
            done = _citeline_as_is(*argv, "--index", str(folder))
            assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
            assert done.stderr.startswith(f"citeline: error: {said}: make "), done.stderr
            assert "reachable and run the command again" in done.stderr
    # the link's target folder there (the volume mounted without the index on it): index
    # created a new index through the link; it is still refused, the link left as it was
    (volume / "ix").mkdir()
    done = _citeline_as_is("index", str(docs), "-q", "--index", str(ix))
    assert done.returncode == 2 and "the index file is a link to" in done.stderr
    assert list((volume / "ix").iterdir()) == []
    assert (ix / DB_NAME).readlink() == volume / "ix" / DB_NAME
    assert sorted(p.name for p in tmp_path.iterdir()) == ["above", "docs", "ix", "linked",
                                                          "volume"]


def test_a_newer_schema_is_refused_naming_the_versions_and_left_untouched(tmp_path: Path,
                                                                         embedder):
    db = _built(tmp_path, embedder)
    with sqlite3.connect(db, isolation_level=None) as c:  # a newer citeline's rollback journal
        c.execute("PRAGMA journal_mode = DELETE")
        c.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 2}")
    c.close()
    before = db.read_bytes()
    with pytest.raises(SchemaError) as err:
        Index(tmp_path / "ix", embedder=embedder)
    assert str(err.value) == (f"{db}: schema version {len(MIGRATIONS) + 2} is newer than this "
                              f"citeline knows ({len(MIGRATIONS)}); upgrade citeline (the file "
                              "is left as it is)")
    # it was switched to WAL mode before the version was read: a write to a file this
    # citeline cannot know, which the newer one opening it again would find changed
    assert db.read_bytes() == before
    assert not db.with_name(DB_NAME + "-wal").exists()


def _unprivileged() -> list[str]:
    """A command prefix under which a folder's permission bits stop writes. Root's
    CAP_DAC_OVERRIDE writes into a folder whatever its bits say, so as root the command
    runs without it (util-linux's setpriv); the test is skipped where that cannot be."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    prefix = [setpriv or "setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner"]
    if setpriv is None or subprocess.run([*prefix, "true"], capture_output=True).returncode:
        pytest.skip("running as root, and setpriv cannot drop CAP_DAC_OVERRIDE here: a "
                    "read-only folder does not stop root's writes")
    return prefix


def _citeline(*argv: str) -> subprocess.CompletedProcess:
    """The CLI in a process of its own, without root's override of permission bits."""
    return subprocess.run([*_unprivileged(), sys.executable, "-m", "citeline", *argv],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})


def _downgrade_to_schema_4(db: Path) -> None:
    """The index as citeline wrote it before migration 5 (no document regions) and on."""
    with sqlite3.connect(db, isolation_level=None) as c:
        c.execute("ALTER TABLE documents DROP COLUMN regions")
        c.execute("DROP INDEX chunks_text_hash")
        c.execute("DROP TABLE chunk_log")
        c.execute("DELETE FROM settings WHERE key IN ('log_from', 'index_id')")
        c.execute("DROP TABLE skipped_content")
        c.execute("PRAGMA user_version = 4")
    c.close()


def test_an_index_in_a_read_only_folder_is_searched_and_refuses_writes_naming_it(
        tmp_path: Path, embedder):
    _unprivileged()
    db = _built(tmp_path, embedder)
    ix = tmp_path / "ix"
    ix.chmod(0o555)  # a read-only mount or volume does the same
    try:
        # each failed: in WAL mode SQLite creates -shm and -wal beside the file to read
        # it, and answered "cannot open the index: attempt to write a readonly database"
        done = _citeline("status", "--index", str(ix))
        assert done.returncode == 0, done.stderr
        assert "cranes.md" in done.stdout and "tides.md" in done.stdout
        done = _citeline("search", "when does the pilot board", "-k", "1", "--json",
                         "--index", str(ix))
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["hits"][0]["document"] == "tides.md"
        done = _citeline("remove", "tides.md", "--index", str(ix))
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert str(db) in done.stderr and "read-only" in done.stderr
        assert "the removal of tides.md was not written" in done.stderr
        assert "make both writable" in done.stderr
        assert sorted(p.name for p in ix.iterdir()) == [DB_NAME]
        # a new document is refused before it is read and embedded (the first one was
        # embedded, and only its write refused), the unchanged ones left as they are
        (tmp_path / "docs" / "locks.md").write_text("A lock raises a boat between two "
                                                     "levels of a canal.\n")
        done = _citeline("index", str(tmp_path / "docs"), "--index", str(ix), "-q")
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert (f"{db}: the index cannot be written, its folder is read-only (locks.md was "
                "not indexed; the index is unchanged)") in done.stderr
        done = _citeline("status", "--index", str(ix))
        assert "locks.md" not in done.stdout and "tides.md" in done.stdout
        # an index written before migration 5 is upgraded when opened: that is a write
        ix.chmod(0o755)
        _downgrade_to_schema_4(db)
        ix.chmod(0o555)
        done = _citeline("status", "--index", str(ix))
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert (f"{db}: the index was written by an older citeline (schema 4; this one's is "
                f"{len(MIGRATIONS)})") in done.stderr
        assert "read-only" in done.stderr and "make both writable" in done.stderr
        # a new index in a read-only folder: said before the model is loaded
        fresh = tmp_path / "fresh"
        fresh.mkdir(mode=0o555)
        done = _citeline("index", str(tmp_path / "docs"), "--index", str(fresh), "-q")
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert (f"{fresh / DB_NAME}: cannot create the index file, its folder is "
                "read-only") in done.stderr
    finally:
        ix.chmod(0o755)
    index = Index(ix, embedder=embedder)  # writable again: upgraded, nothing lost
    assert [d.record.path for d in index.status()] == ["cranes.md", "tides.md"]
    assert index.search("gantry crane winch", k=1).hits[0].document == "cranes.md"
    assert index.store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"  # type: ignore[attr-defined]
    index.close()


# --- processes: killed mid-run, two writers, a held lock ------------------------------

SHIPS = ("ketch", "yawl", "schooner", "brigantine", "barque", "sloop", "xebec", "clipper")


def _fleet(folder: Path, names: tuple[str, ...] = SHIPS) -> Path:
    """One small document per name, each one chunk holding a word no other holds."""
    folder.mkdir()
    for n, name in enumerate(names):
        (folder / f"{name}.md").write_text(
            f"# The {name}\n\nThe {name} carries {n + 2} masts and berths at quay {n * 7}.\n")
    return folder


def _indexed(db: Path) -> list[str]:
    """The documents committed to the index, read by a connection of its own."""
    if not db.exists():
        return []
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return [r[0] for r in c.execute(
            "SELECT path FROM documents WHERE state = 'indexed' ORDER BY path")]
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        c.close()


def _index_process(docs: Path, ix: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "citeline", "index", str(docs), "--index",
                             str(ix), "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})


def _wait_for(proc: subprocess.Popen, db: Path, n: int) -> list[str]:
    """The documents committed once ``proc`` has written at least ``n`` (polled)."""
    deadline = time.monotonic() + 240
    while len(done := _indexed(db)) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return done


def test_a_killed_index_run_keeps_what_it_wrote_and_the_next_run_does_the_rest(
        tmp_path: Path, embedder):
    docs, ix = _fleet(tmp_path / "docs"), tmp_path / "ix"
    proc = _index_process(docs, ix)
    _wait_for(proc, ix / DB_NAME, 2)
    proc.kill()  # SIGKILL: no handler, no rollback, no checkpoint
    proc.wait()
    index = Index(ix, embedder=embedder)
    kept = [d.record.path for d in index.status()]
    assert 2 <= len(kept) < len(SHIPS)
    assert all(d.state == "indexed" for d in index.status())
    assert index.store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"  # type: ignore[attr-defined]
    for path in kept:
        name = path.removesuffix(".md")
        assert index.search(f"the {name}", k=1, mode="bm25").hits[0].document == path
        assert index.search(f"the {name}", k=1).hits[0].document == path
    report = index.index(docs)
    assert sorted(report.unchanged) == kept  # nothing done before the kill is done again
    assert sorted(report.indexed) == sorted(f"{s}.md" for s in SHIPS if f"{s}.md" not in kept)
    assert (report.embedded, report.reused) == (len(SHIPS) - len(kept), 0)
    assert len(index.status()) == len(SHIPS)
    index.close()


def test_two_index_runs_at_once_on_one_index_both_finish_and_corrupt_nothing(
        tmp_path: Path, embedder):
    ships = _fleet(tmp_path / "ships")
    other = _fleet(tmp_path / "other", ("dhow", "junk", "felucca"))
    ix = tmp_path / "ix"
    proc = _index_process(ships, ix)
    _wait_for(proc, ix / DB_NAME, 1)
    assert proc.poll() is None  # the other run is still writing while this one does
    index = Index(ix, embedder=embedder)
    report = index.index(other)
    assert sorted(report.indexed) == sorted(p.name for p in other.iterdir())
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    assert f"{len(SHIPS)} indexed, 0 unchanged, 0 failed" in out
    status = {d.record.path: d.state for d in index.status()}
    assert len(status) == len(SHIPS) + 3 and set(status.values()) == {"indexed"}
    c = index.store.conn  # type: ignore[attr-defined]
    assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert c.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == len(SHIPS) + 3
    assert index.search("the xebec", k=1).hits[0].document == "xebec.md"
    assert index.search("the felucca", k=1).hits[0].document == "felucca.md"
    # the same folder again at once, from both processes: nothing changed, nothing written
    proc = _index_process(ships, ix)
    again = index.index(ships)
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    assert len(again.unchanged) == len(SHIPS) and not again.indexed
    assert f"0 indexed, {len(SHIPS)} unchanged" in out
    index.close()


def test_a_write_lock_held_by_another_process_is_waited_for_then_named(
        tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch):
    docs, ix = _fleet(tmp_path / "docs", SHIPS[:2]), tmp_path / "ix"
    first = Index(ix, embedder=embedder)
    first.index(docs)
    first.close()
    (docs / "dhow.md").write_text("# The dhow\n\nThe dhow sails on the monsoon wind.\n")
    holder = subprocess.Popen(  # another process's write transaction, held until told
        [sys.executable, "-c", "import sqlite3, sys\n"
         f"c = sqlite3.connect({str(ix / DB_NAME)!r}, isolation_level=None)\n"
         "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); sys.stdin.readline()\n"
         "c.execute('COMMIT')"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    monkeypatch.setattr("citeline.store.sqlite.LOCK_TIMEOUT_S", 1.0)
    index = Index(ix, embedder=embedder)
    with pytest.raises(StoreUnavailable) as err:
        index.index(docs)
    msg = str(err.value)
    assert str(ix / DB_NAME) in msg and "write lock for over 1 s" in msg
    assert "dhow.md was not written" in msg and "run the command again" in msg
    index.close()
    monkeypatch.setattr("citeline.store.sqlite.LOCK_TIMEOUT_S", 30.0)
    index = Index(ix, embedder=embedder)
    threading.Timer(1.0, lambda: holder.communicate("done\n")).start()  # released in 1 s
    assert index.index(docs).indexed == ["dhow.md"]  # waited for it
    assert holder.wait(timeout=30) == 0
    assert index.search("monsoon wind", k=1).hits[0].document == "dhow.md"
    index.close()


def test_a_folder_in_the_index_files_place_is_named(tmp_path: Path, embedder):
    (tmp_path / "ix" / DB_NAME).mkdir(parents=True)  # a folder in the file's place
    with pytest.raises(StoreUnavailable) as err:
        Index(tmp_path / "ix", embedder=embedder)
    # it was "cannot open the index: unable to open database file", as for the next
    assert str(err.value) == (f"{tmp_path / 'ix' / DB_NAME}: cannot open the index: a folder "
                              "has the index file's name; move it away, or use another "
                              "--index folder")


def test_an_index_file_this_user_may_not_read_says_so(tmp_path: Path, embedder):
    _unprivileged()
    db = _built(tmp_path, embedder)
    db.chmod(0o000)  # another user's file
    try:
        done = _citeline("status", "--index", str(db.parent))
    finally:
        db.chmod(0o644)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{db}: cannot open the index file: Permission denied: give this user permission " \
           "to read and write it" in done.stderr


def test_an_older_index_put_in_place_of_an_open_one_is_upgraded_when_read(
        tmp_path: Path, embedder):
    # a backup written by an older citeline restored under a running server: the server
    # reopened the new file (another inode) but never upgraded it, so every search failed
    # on a column or table the older schema does not have
    db = _built(tmp_path, embedder)
    backup = tmp_path / "backup.sqlite3"
    shutil.copyfile(db, backup)
    _downgrade_to_schema_4(backup)
    serving = Index(tmp_path / "ix", embedder=embedder, create=False)
    assert serving.search("when does the pilot board", k=1).hits[0].document == "tides.md"
    os.replace(backup, db)
    for suffix in ("-wal", "-shm"):
        (tmp_path / "ix" / (DB_NAME + suffix)).unlink(missing_ok=True)
    assert serving.search("when does the pilot board", k=1).hits[0].document == "tides.md"
    assert serving.store.document_regions("tides.md") is None  # written before regions
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    # a thread whose first connection is to the replaced file is served too
    done: list[str] = []
    t = threading.Thread(target=lambda: done.append(
        serving.search("cranes", k=1).hits[0].document))
    t.start()
    t.join()
    assert done == ["cranes.md"]
    serving.close()
