"""The embedded store: one SQLite file in the index folder.

* Schema = the numbered, append-only :data:`MIGRATIONS`; ``PRAGMA user_version``
  says how many are applied. A file from a newer citeline is refused before anything
  is written to it.
* WAL mode, so searches run while an indexer writes; every document is written
  in one ``BEGIN IMMEDIATE`` transaction, so a crash never leaves half a
  document visible.
* Vectors are float32 BLOBs scanned with numpy (this Python's sqlite3 cannot
  load extensions such as sqlite-vec). BM25 term statistics live in a
  ``postings`` table written in the same transaction as the chunks.
* Reads are cached in memory per *generation*, a counter every write of chunks
  bumps, so a reader sees another process's commit on its next query. The
  ``chunk_log`` names the chunks each generation added or removed, and the cache
  reads only those (a search during an indexing run of 7,800 chunks: 0.1 s after
  each document instead of 0.75-1.6 s for the whole index).
* Every query uses bound parameters.
* SQLite's errors become :class:`~citeline.errors.StoreUnavailable` naming the file and
  what to do (:func:`_unwritten`, :func:`_unreadable`): a full disk, a held lock, a
  damaged or empty file. An index whose folder cannot be written is opened to read
  (:meth:`SQLiteStore._read_only`).
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn, TypeVar
from urllib.parse import quote

import numpy as np

from citeline.errors import ConfigError, IndexNotFound, SchemaError, StoreUnavailable
from citeline.retrieve.bm25 import Postings, score_postings, term_frequencies
from citeline.retrieve.dense import chunk_max, top_k
from citeline.store import (
    DOCUMENT_COLUMNS,
    ChunkRow,
    CompactReport,
    DocRecord,
    IndexStats,
    StoredChunk,
    document_row,
    locator_from,
    locator_json,
    regions_from_json,
    text_hash,
    token_blob,
    token_matrix,
)
from citeline.types import Region

DB_NAME = "citeline.sqlite3"
# How long a statement waits for another process's write lock before "locked".
LOCK_TIMEOUT_S = 30.0

MIGRATIONS: tuple[str, ...] = (
    # 1: documents, chunks, postings, embedding cache, settings
    """
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        root TEXT NOT NULL DEFAULT '',
        state TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        title TEXT NOT NULL DEFAULT '',
        media_type TEXT NOT NULL DEFAULT '',
        content_hash TEXT NOT NULL DEFAULT '',
        extractor TEXT NOT NULL DEFAULT '',
        extractor_version TEXT NOT NULL DEFAULT '',
        pipeline_version TEXT NOT NULL DEFAULT '',
        model_id TEXT NOT NULL DEFAULT '',
        weights_hash TEXT NOT NULL DEFAULT '',
        dim INTEGER NOT NULL DEFAULT 0,
        n_chunks INTEGER NOT NULL DEFAULT 0,
        n_over_window INTEGER NOT NULL DEFAULT 0,
        tokens INTEGER NOT NULL DEFAULT 0,
        header_tokens INTEGER NOT NULL DEFAULT 0,
        warnings TEXT NOT NULL DEFAULT '[]',
        indexed_at TEXT NOT NULL DEFAULT '',
        text TEXT
    );
    CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        section TEXT NOT NULL,
        text TEXT NOT NULL,
        content TEXT NOT NULL,
        locator TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        header_tokens INTEGER NOT NULL,
        text_hash TEXT NOT NULL,
        model_key TEXT NOT NULL,
        vector BLOB NOT NULL,
        length INTEGER NOT NULL
    );
    CREATE INDEX chunks_doc ON chunks(doc_id);
    CREATE TABLE postings (
        term TEXT NOT NULL,
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        tf INTEGER NOT NULL,
        PRIMARY KEY (term, chunk_id)
    ) WITHOUT ROWID;
    CREATE INDEX postings_chunk ON postings(chunk_id);
    CREATE TABLE embeddings (
        text_hash TEXT NOT NULL,
        model_key TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (text_hash, model_key)
    ) WITHOUT ROWID;
    INSERT INTO settings (key, value) VALUES ('generation', '0');
    """,
    # 2: sentence vectors (the sentence-level dense list), one row per sentence of a
    # chunk's content; written with the chunk, dropped with it (cascade).
    """
    CREATE TABLE sentences (
        id INTEGER PRIMARY KEY,
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        text_hash TEXT NOT NULL,
        model_key TEXT NOT NULL,
        vector BLOB NOT NULL
    );
    CREATE INDEX sentences_chunk ON sentences(chunk_id);
    """,
    # 3: the chunk's content embedded without its header (the "section" fusion's dense
    # list); NULL for chunks written before it, or in an index without sentence vectors.
    """
    ALTER TABLE chunks ADD COLUMN bare_vector BLOB;
    """,
    # 4: the content's token vectors, int8, one row per wordpiece (the "late" fusion's
    # fourth list); NULL as bare_vector is.
    """
    ALTER TABLE chunks ADD COLUMN token_vectors BLOB;
    """,
    # 5: the document's region map (pages, cues, rows; citeline.store.regions_json), so an
    # answer's sentence is located in its own page; NULL for documents written before.
    """
    ALTER TABLE documents ADD COLUMN regions TEXT;
    """,
    # 6: chunks found by their text's hash (the token vectors a new chunk reuses): every
    # document written had scanned the whole chunks table, so indexing grew quadratically.
    """
    CREATE INDEX IF NOT EXISTS chunks_text_hash ON chunks (text_hash, model_key);
    """,
    # 7: the chunks each write added or removed, by generation, so a reader's snapshot
    # takes in what changed instead of reading every chunk again (a search during an
    # indexing run re-read the whole index after every document). The log holds the
    # changes after generation 'log_from'; older snapshots are read again whole.
    """
    CREATE TABLE chunk_log (generation INTEGER NOT NULL, chunk_id INTEGER NOT NULL);
    CREATE INDEX chunk_log_generation ON chunk_log (generation);
    INSERT INTO settings (key, value) SELECT 'log_from', value FROM settings
        WHERE key = 'generation';
    INSERT INTO settings (key, value) VALUES ('index_id', lower(hex(randomblob(16))));
    """,
    # 8: what an extractor skipped a file's content for (an image with no text, which took
    # seconds of OCR to tell): the next run skips the same content for the same reason
    # without reading it again, until that extractor's version changes.
    """
    CREATE TABLE IF NOT EXISTS skipped_content (content_hash TEXT NOT NULL, extractor TEXT NOT NULL,
        extractor_version TEXT NOT NULL, reason TEXT NOT NULL,
        PRIMARY KEY (content_hash, extractor));
    """,
)

# Damaged pages SQLite's check names before it stops: the first few say where; a whole
# damaged region lists one line per page.
CHECK_ERRORS = 3

# Generations of changes the chunk log keeps: a snapshot older than that is read whole.
LOG_GENERATIONS = 1000

F = TypeVar("F", bound=Callable[..., Any])


def _damaged(path: Path, exc: sqlite3.DatabaseError | str) -> StoreUnavailable:
    """A file SQLite cannot read as a database (cut short, overwritten, not one at all),
    or whose pages fail its check (``exc`` then says what the check found). Nothing is
    written to it: what it still holds is left for whoever can recover it."""
    return StoreUnavailable(
        f"{path}: the index file is damaged ({exc}); citeline cannot repair it: delete it "
        f"and its -wal and -shm files (or use a new --index folder) and index the documents "
        "again")


def _unreadable(path: Path, exc: sqlite3.DatabaseError) -> NoReturn:
    """Raise SQLite's refusal to read the index as :class:`StoreUnavailable` naming the
    file and what to do (an error that is not about the file, a bug, as it is). A damaged
    page surfaced as a bare DatabaseError: the CLI said "the file is damaged" naming no
    file, the server answered 503 naming none."""
    name = exc.sqlite_errorname or ""
    if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or name.startswith("SQLITE_CORRUPT_"):
        raise _damaged(path, exc) from exc
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        raise StoreUnavailable(f"{path}: another process held a lock on the index for over "
                               f"{LOCK_TIMEOUT_S:.0f} s ({exc}): run the command again once it "
                               "has finished") from exc
    if name.startswith("SQLITE_IOERR"):
        raise StoreUnavailable(f"{path}: the disk failed to read the index file ({exc}): "
                               "check the disk, then run the same command again") from exc
    raise exc


def _read(method: F) -> F:
    """Convert SQLite's errors while reading to :class:`StoreUnavailable` naming the
    file (:func:`_unreadable`) at the store boundary."""

    @functools.wraps(method)
    def wrapper(self: SQLiteStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            _unreadable(self.path, exc)

    return wrapper  # type: ignore[return-value]


def _unwritten(path: Path, exc: sqlite3.DatabaseError, what: str) -> NoReturn:
    """Raise SQLite's refusal to write ``what`` as :class:`StoreUnavailable` naming the
    index file and what to do (an error that is not about the file, a bug, as it is).
    The CLI took each of these for a damaged file ("index the documents again into a new
    --index folder"), a full disk included, and named no file."""
    name, msg = exc.sqlite_errorname or "", str(exc)
    kept = f"{what} was not written; what was written before it is kept"
    if name == "SQLITE_FULL":
        raise StoreUnavailable(f"{path}: the disk is full ({kept}): free space on it, or move "
                               "the index folder to a larger disk, then run the same command "
                               "again") from exc
    if name.startswith("SQLITE_READONLY"):
        raise StoreUnavailable(f"{path}: the index cannot be written, the file or its folder "
                               f"is read-only ({kept}; {msg}): make both writable, or index "
                               "into another --index folder") from exc
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        raise StoreUnavailable(f"{path}: another process held the index's write lock for over "
                               f"{LOCK_TIMEOUT_S:.0f} s ({kept}): run the command again once it "
                               "has finished") from exc
    if name.startswith("SQLITE_IOERR"):
        raise StoreUnavailable(f"{path}: the disk failed to write the index file ({kept}; "
                               f"{msg}): check the disk, then run the same command again"
                               ) from exc
    if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or name.startswith("SQLITE_CORRUPT_"):
        raise _damaged(path, exc) from exc
    raise exc


def _check_version(path: Path, version: int) -> None:
    """Refuse an index written by a newer citeline (more migrations than this one has)."""
    if version > len(MIGRATIONS):
        raise SchemaError(
            f"{path}: schema version {version} is newer than this citeline knows "
            f"({len(MIGRATIONS)}); upgrade citeline (the file is left as it is)"
        )


def _cannot_open(path: Path, exc: sqlite3.OperationalError) -> NoReturn:
    """Raise SQLite's "unable to open database file" with the reason the system gives
    (it gives none: a folder in the file's place and a file this user may not read
    both said only "cannot open the index: unable to open database file")."""
    try:
        with open(path, "rb"):
            pass
    except IsADirectoryError:
        raise StoreUnavailable(f"{path}: cannot open the index: a folder has the index file's "
                               "name; move it away, or use another --index folder") from exc
    except OSError as err:
        raise StoreUnavailable(f"{path}: cannot open the index file: {err.strerror or err}: "
                               "give this user permission to read and write it and its "
                               "folder, or use another --index folder") from exc
    raise StoreUnavailable(f"{path}: cannot open the index: {exc}") from exc


def _dangling(path: Path) -> tuple[Path, Path] | None:
    """The link among ``path`` and its parents that points at nothing, with where it
    points in the end (through links to links), or None. An index on a volume that is
    not mounted: ``exists()`` is False for it, so it was taken for no index at all."""
    for link in (path, *path.parents):
        if not link.is_symlink():
            continue
        try:
            os.stat(link)
        except (FileNotFoundError, NotADirectoryError):
            target = link
            for _ in range(40):  # the kernel's own limit of links followed
                if not target.is_symlink():
                    break
                target = target.parent / os.readlink(target)
            return link, target
        except OSError:  # a loop of links, no permission: opening it says which
            return None
        return None  # a link that resolves: the parents above it resolve too
    return None


def _unmounted(folder: Path, path: Path) -> StoreUnavailable | None:
    """The error naming a link to nothing in the index file's place, or in the folder's
    (or a parent's): nothing is created through it, and it is not replaced. Reading
    commands said "no citeline index here (run citeline index)", and ``index`` created
    a new index at the link's target, or failed saying "No such file or directory:
    give this user permission" or "cannot create the index folder: File exists"."""
    found = _dangling(path)
    if found is None:
        return None
    link, target = found
    what = ("the index file" if link == path else
            "the index folder" if link == folder else f"{link}, a folder above it,")
    return StoreUnavailable(
        f"{path if link == path else folder}: {what} is a link to {target}, which does not "
        f"exist (a volume not mounted?): make {target} reachable and run the command again, "
        "or use another --index folder")


def _empty(path: Path) -> bool:
    """Whether ``path`` is a file of 0 bytes with no write-ahead log holding its pages (a
    process creating the index may have committed its first pages to the log only)."""
    wal = path.with_name(path.name + "-wal")
    try:
        return path.stat().st_size == 0 and (not wal.exists() or wal.stat().st_size == 0)
    except OSError:  # gone meanwhile, or not readable: opening it says which
        return False


def _read_only_folder(folder: Path, exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` refused to open the index because its folder cannot be written
    (SQLite needs to create the ``-shm`` and ``-wal`` files there, even to read)."""
    name = exc.sqlite_errorname or ""
    return (name.startswith("SQLITE_READONLY") or name.startswith("SQLITE_CANTOPEN")) \
        and not os.access(folder, os.W_OK)


def _rollback(c: sqlite3.Connection) -> None:
    """Undo the open transaction, if one is still open: an interrupt (Ctrl-C) that lands
    on COMMIT after it completed leaves none, and ROLLBACK would then raise an
    OperationalError that hides the interrupt (the CLI took it for a damaged index)."""
    if c.in_transaction:
        c.execute("ROLLBACK")


@dataclass
class _Snapshot:
    """In-memory arrays for one generation of the index."""

    generation: int
    ids: np.ndarray  # chunk ids, row order
    lengths: np.ndarray  # BM25 token counts
    row_of: dict[int, int]
    postings: Postings
    # vectors per model key: (chunk ids, (n, dim) float32). Models never share a matrix,
    # so vectors of different models (or dimensions) can never be compared.
    vectors: dict[str, tuple[np.ndarray, np.ndarray]]
    vector_pos: dict[int, int]  # chunk id -> row in its model's matrix
    # sentence vectors per model key: (distinct owning chunk ids, first row of each
    # chunk's run, (n, dim) float32 with rows grouped by chunk in id order)
    sentences: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    # header-less chunk vectors per model key, as ``vectors`` (chunks that have one)
    bare: dict[str, tuple[np.ndarray, np.ndarray]]
    # the database file these were read from (device, inode): a rebuilt index can
    # reach the same generation number
    file: tuple[int, int] | None = None
    # the index's own random id (settings 'index_id'): a folder deleted and built again
    # may get its file the same inode back, and counts generations from 0 again
    index_id: str | None = None


def _file_id(path: Path) -> tuple[int, int] | None:
    """(device, inode) of ``path``, None when it does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SQLiteStore:
    # A new index stores sentence vectors: numpy scans them in ~1 ms per 7k sentences.
    default_sentences = True

    def __init__(self, folder: Path, create: bool = True) -> None:
        self.folder = Path(folder)
        path = self.folder / DB_NAME
        if (unmounted := _unmounted(self.folder, path)) is not None:
            raise unmounted
        if self.folder.exists() and not self.folder.is_dir():
            raise ConfigError(f"{self.folder}: not a folder (--index names the folder that "
                              "holds an index)")
        if not path.exists():
            if not create:
                raise IndexNotFound(f"{self.folder}: no citeline index here (run citeline index)")
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # under a file, a read-only place, no permission
                raise ConfigError(f"{self.folder}: cannot create the index folder: "
                                  f"{exc.strerror or exc}") from exc
        elif not create and _empty(path):
            # SQLite reads an empty file as an empty database: status said "0 documents"
            # and search "nothing matches", and both made it an index
            raise StoreUnavailable(f"{path}: the index file is empty (0 bytes: cut short, or "
                                   "never written): index the documents again (citeline index)")
        self.path = path
        self._local = threading.local()
        self._snap: _Snapshot | None = None
        self._snap_lock = threading.Lock()
        self._opened = False  # once open, a connection never creates the file again
        # opened read-only: its folder cannot be written (see _read_only)
        self.read_only = False
        self._migrate()
        self._opened = True

    # --- connections ------------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        """One connection per thread (sqlite3 connections are not shareable).

        A connection reads the file it opened even after that file is deleted, so
        each use checks that the index file is still the one it opened: an index
        removed and built again at the same path (while a server holds it open) is
        reopened, and one that is gone is reported as gone, never served stale."""
        c = getattr(self._local, "conn", None)
        if c is not None and _file_id(self.path) != self._local.file:
            self.close()
            if not self.path.exists():
                raise _unmounted(self.folder, self.path) or IndexNotFound(
                    f"{self.folder}: the index was removed while in use")
            c = None
        if c is None:
            try:
                c = self._connect()
            except sqlite3.OperationalError as exc:
                if not _read_only_folder(self.folder, exc):
                    raise
                c = self._read_only(exc)
            c.execute("PRAGMA foreign_keys=ON")
            c.execute("PRAGMA synchronous=NORMAL")
            self._local.conn, self._local.file = c, _file_id(self.path)
            # an index file put in this one's place while it was open (a backup restored
            # under a running server) may be an older citeline's: upgraded as at opening,
            # where every query failed on a column or table it did not have yet
            if self._opened and c.execute("PRAGMA user_version").fetchone()[0] < len(MIGRATIONS):
                self._migrate()
        return c

    def _connect(self) -> sqlite3.Connection:
        """A connection that reads and writes, the file in WAL mode."""
        if self._opened:  # a thread's first connection: the file must still be there
            try:
                c = sqlite3.connect(f"file:{quote(str(self.path))}?mode=rw", uri=True,
                                    timeout=LOCK_TIMEOUT_S, isolation_level=None)
            except sqlite3.OperationalError as exc:
                if self.path.exists():
                    raise
                raise _unmounted(self.folder, self.path) or IndexNotFound(
                    f"{self.folder}: the index was removed while in use") from exc
        else:
            c = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT_S, isolation_level=None)
        try:
            # before anything is written: a newer citeline's file is refused untouched (it
            # was switched to WAL mode first, a write to a file this code cannot know)
            _check_version(self.path, c.execute("PRAGMA user_version").fetchone()[0])
            _use_wal(c)
        except BaseException:
            c.close()
            raise
        return c

    def _read_only(self, exc: sqlite3.OperationalError) -> sqlite3.Connection:
        """A connection that only reads, for an index whose folder cannot be written (a
        read-only mount or volume, a folder without write permission). In WAL mode every
        connection, a reader's too, creates the ``-shm`` and ``-wal`` files beside the
        index, so SQLite refused to open it at all: ``status`` and ``search`` failed with
        "attempt to write a readonly database". Opened ``immutable`` instead: no other
        process can write it either (a writer needs the ``-wal`` file, which cannot be
        created there); a ``-wal`` left holding writes not yet in the file is not skipped
        (that would hide them) but named, with what to do."""
        if not self.path.exists():
            raise StoreUnavailable(f"{self.path}: cannot create the index file, its folder is "
                                   f"read-only ({exc}): make the folder writable, or index into "
                                   "another --index folder") from exc
        wal = self.path.with_name(self.path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreUnavailable(f"{self.path}: the index folder is read-only and {wal.name} "
                                   f"holds writes not yet merged into the file ({exc}): make the "
                                   "folder writable and run the command again") from exc
        self.read_only = True
        return sqlite3.connect(f"file:{quote(str(self.path))}?mode=ro&immutable=1", uri=True,
                               isolation_level=None)

    def close(self) -> None:
        c = getattr(self._local, "conn", None)
        if c is not None:
            c.close()
            self._local.conn = self._local.file = None

    def _migrate(self) -> None:
        version = 0  # of the file's schema, once read
        try:
            c = self.conn
            while (version := c.execute("PRAGMA user_version").fetchone()[0]) < len(MIGRATIONS):
                c.execute("BEGIN IMMEDIATE")
                try:
                    # read again under the write lock: another process opening the same
                    # index may have applied this step while this one waited for it
                    n = c.execute("PRAGMA user_version").fetchone()[0]
                    if n < len(MIGRATIONS):
                        for stmt in _statements(MIGRATIONS[n]):
                            c.execute(stmt)
                        c.execute(f"PRAGMA user_version = {n + 1}")  # an int literal: no binding in PRAGMA
                    c.execute("COMMIT")
                except BaseException:
                    _rollback(c)
                    raise
        except sqlite3.DatabaseError as exc:  # not a database, a damaged one, or locked
            if (exc.sqlite_errorname or "").startswith("SQLITE_READONLY"):
                if not version:  # an empty file, or one SQLite would not open to read
                    _unwritten(self.path, exc, "the index's schema")
                raise StoreUnavailable(
                    f"{self.path}: the index was written by an older citeline (schema "
                    f"{version}; this one's is {len(MIGRATIONS)}) and is upgraded when opened, "
                    f"which writes to it, but the file or its folder is read-only ({exc}): make "
                    "both writable and run the command again") from exc
            name = exc.sqlite_errorname or ""
            if name.startswith(("SQLITE_FULL", "SQLITE_IOERR")):
                _unwritten(self.path, exc, f"the upgrade of its schema from {version} to "
                           f"{len(MIGRATIONS)}")
            if name.startswith("SQLITE_CANTOPEN"):
                _cannot_open(self.path, exc)
            try:
                _unreadable(self.path, exc)
            except sqlite3.DatabaseError:
                raise StoreUnavailable(f"{self.path}: cannot open the index: {exc}") from exc
        _check_version(self.path, version)

    # --- settings ---------------------------------------------------------------------

    @_read
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        try:
            self.conn.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
        except sqlite3.DatabaseError as exc:
            _unwritten(self.path, exc, f"the setting {key}")

    def generation(self) -> int:
        return int(self.get_setting("generation", "0") or 0)

    def skip_reason(self, content_hash: str, extractor: str, version: str) -> str | None:
        row = self.conn.execute(
            "SELECT reason FROM skipped_content WHERE content_hash = ? AND extractor = ? "
            "AND extractor_version = ?", (content_hash, extractor, version)).fetchone()
        return row[0] if row else None

    def remember_skip(self, content_hash: str, extractor: str, version: str, reason: str) -> None:
        try:
            self.conn.execute(
                "INSERT INTO skipped_content (content_hash, extractor, extractor_version, reason) "
                "VALUES (?, ?, ?, ?) ON CONFLICT(content_hash, extractor) DO UPDATE SET "
                "extractor_version = excluded.extractor_version, reason = excluded.reason",
                (content_hash, extractor, version, reason),
            )
        except sqlite3.DatabaseError as exc:
            _unwritten(self.path, exc, "a skipped file's reason")

    # --- documents --------------------------------------------------------------------

    _DOC_COLS = (
        "id, path, root, state, reason, title, media_type, content_hash, extractor, "
        "extractor_version, pipeline_version, model_id, weights_hash, dim, n_chunks, "
        "n_over_window, tokens, header_tokens, warnings, indexed_at"
    )

    def _record(self, row: tuple) -> DocRecord:
        (id_, path, root, state, reason, title, mt, ch, ex, exv, pv, mid, wh, dim, nc, now, tok,
         htok, warn, at) = row
        return DocRecord(
            path=path, root=root, state=state, reason=reason, title=title, media_type=mt,
            content_hash=ch, extractor=ex, extractor_version=exv, pipeline_version=pv,
            model_id=mid, weights_hash=wh, dim=dim, n_chunks=nc, n_over_window=now,
            tokens=tok, header_tokens=htok, warnings=tuple(json.loads(warn)), indexed_at=at,
            id=id_,
        )

    @_read
    def documents(self) -> list[DocRecord]:
        rows = self.conn.execute(f"SELECT {self._DOC_COLS} FROM documents ORDER BY path")
        return [self._record(r) for r in rows]

    @_read
    def document(self, path: str) -> DocRecord | None:
        row = self.conn.execute(
            f"SELECT {self._DOC_COLS} FROM documents WHERE path = ?", (path,)
        ).fetchone()
        return self._record(row) if row else None

    @_read
    def document_text(self, path: str) -> str | None:
        row = self.conn.execute("SELECT text FROM documents WHERE path = ?", (path,)).fetchone()
        return row[0] if row else None

    @_read
    def document_regions(self, path: str) -> list[Region] | None:
        row = self.conn.execute("SELECT regions FROM documents WHERE path = ?", (path,)).fetchone()
        return regions_from_json(row[0]) if row else None

    def write_document(self, record: DocRecord, text: str, chunks: Sequence[StoredChunk],
                       regions: Sequence[Region] = ()) -> None:
        c = self.conn
        try:
            c.execute("BEGIN IMMEDIATE")
            gen = self._bump(c)
            self._log_removal(c, gen, record.path)
            c.execute("DELETE FROM documents WHERE path = ?", (record.path,))
            cur = c.execute(
                f"INSERT INTO documents ({', '.join(DOCUMENT_COLUMNS)}) "
                f"VALUES ({', '.join('?' * len(DOCUMENT_COLUMNS))})",
                document_row(record, text, _now(), regions),
            )
            doc_id = cur.lastrowid
            model_key = record.model_key
            for sc in chunks:
                ch = sc.chunk
                tf, length = term_frequencies(ch.text)
                vec = np.ascontiguousarray(sc.vector, dtype=np.float32)
                bare = (None if sc.bare_vector is None
                        else np.ascontiguousarray(sc.bare_vector, dtype=np.float32).tobytes())
                cid = c.execute(
                    "INSERT INTO chunks (doc_id, ordinal, start, end, section, text, content, "
                    "locator, tokens, header_tokens, text_hash, model_key, vector, length, "
                    "bare_vector, token_vectors) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        doc_id, ch.ordinal, ch.start, ch.end, ch.section, ch.text, ch.content,
                        json.dumps(locator_json(sc.locator)), sc.tokens, sc.header_tokens,
                        sc.text_hash, model_key, vec.tobytes(), length, bare,
                        token_blob(sc, vec.shape[-1], record.path),
                    ),
                ).lastrowid
                c.execute("INSERT INTO chunk_log (generation, chunk_id) VALUES (?, ?)", (gen, cid))
                c.executemany(
                    "INSERT INTO postings (term, chunk_id, tf) VALUES (?, ?, ?)",
                    [(t, cid, n) for t, n in tf.items()],
                )
                c.executemany(
                    "INSERT OR IGNORE INTO embeddings (text_hash, model_key, vector) "
                    "VALUES (?, ?, ?)",
                    [(sc.text_hash, model_key, vec.tobytes())]
                    + ([(sc.bare_hash, model_key, bare)] if bare is not None else []),
                )
                if sc.sentences:
                    blobs = [np.ascontiguousarray(st.vector, dtype=np.float32).tobytes()
                             for st in sc.sentences]
                    c.executemany(
                        "INSERT INTO sentences (chunk_id, start, end, text_hash, model_key, "
                        "vector) VALUES (?, ?, ?, ?, ?, ?)",
                        [(cid, st.start, st.end, st.text_hash, model_key, b)
                         for st, b in zip(sc.sentences, blobs, strict=True)],
                    )
                    c.executemany(
                        "INSERT OR IGNORE INTO embeddings (text_hash, model_key, vector) "
                        "VALUES (?, ?, ?)",
                        [(st.text_hash, model_key, b)
                         for st, b in zip(sc.sentences, blobs, strict=True)],
                    )
            c.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            _rollback(c)
            _unwritten(self.path, exc, f"the document {record.path}")
        except BaseException:
            _rollback(c)
            raise

    def check_writable(self, what: str) -> None:
        """An index opened to read (its folder is read-only, :meth:`_read_only`) refuses
        ``what`` before it is read and embedded: ``index`` embedded the first new
        document, seconds to minutes of work, and only its write was refused."""
        _ = self.conn  # connects: a read-only folder is found here
        if self.read_only:
            raise StoreUnavailable(f"{self.path}: the index cannot be written, its folder is "
                                   f"read-only ({what} was not indexed; the index is "
                                   "unchanged): make the folder writable, or index into "
                                   "another --index folder")

    def mark(self, path: str, root: str, state: str, reason: str) -> None:
        c = self.conn
        try:
            c.execute("BEGIN IMMEDIATE")
            c.execute(
                "INSERT INTO documents (path, root, state, reason, indexed_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
                "root = excluded.root, state = excluded.state, reason = excluded.reason",
                (path, root, state, reason, _now()),
            )  # no chunk changes: the generation (what searches read) stays
            c.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            _rollback(c)
            _unwritten(self.path, exc, f"the state of {path}")
        except BaseException:
            _rollback(c)
            raise

    def set_root(self, path: str, root: str) -> None:
        try:
            self.conn.execute("UPDATE documents SET root = ? WHERE path = ?", (root, path))
        except sqlite3.DatabaseError as exc:
            _unwritten(self.path, exc, f"the folder of {path}")

    def remove_document(self, path: str) -> None:
        c = self.conn
        try:
            c.execute("BEGIN IMMEDIATE")
            self._log_removal(c, self._bump(c), path)
            c.execute("DELETE FROM documents WHERE path = ?", (path,))
            c.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            _rollback(c)
            _unwritten(self.path, exc, f"the removal of {path}")
        except BaseException:
            _rollback(c)
            raise

    @staticmethod
    def _bump(c: sqlite3.Connection) -> int:
        """Count one more generation (inside the caller's write transaction); forget the
        chunk log's changes older than :data:`LOG_GENERATIONS`. Returns the new one."""
        gen = int(c.execute(
            "UPDATE settings SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation' "
            "RETURNING value").fetchone()[0])
        floor = gen - LOG_GENERATIONS
        if floor > 0:
            c.execute("DELETE FROM chunk_log WHERE generation <= ?", (floor,))
            c.execute("UPDATE settings SET value = ? WHERE key = 'log_from' "
                      "AND CAST(value AS INTEGER) < ?", (str(floor), floor))
        return gen

    @staticmethod
    def _log_removal(c: sqlite3.Connection, gen: int, path: str) -> None:
        """Log the chunks of ``path`` as changed in ``gen``, before they are deleted."""
        c.execute("INSERT INTO chunk_log (generation, chunk_id) SELECT ?, c.id FROM chunks c "
                  "JOIN documents d ON d.id = c.doc_id WHERE d.path = ?", (gen, path))

    # --- embedding cache --------------------------------------------------------------

    @_read
    def cached_vectors(self, text_hashes: Sequence[str], model_key: str) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        hashes = list(dict.fromkeys(text_hashes))
        for i in range(0, len(hashes), 500):  # stay under SQLite's bound-variable limit
            batch = hashes[i : i + 500]
            marks = ",".join("?" * len(batch))
            rows = self.conn.execute(
                f"SELECT text_hash, vector FROM embeddings WHERE model_key = ? "
                f"AND text_hash IN ({marks})",
                (model_key, *batch),
            )
            for h, blob in rows:
                out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    @_read
    def cached_token_vectors(self, text_hashes: Sequence[str],
                             model_key: str) -> dict[str, np.ndarray]:
        return self._token_vectors_by("text_hash", list(dict.fromkeys(text_hashes)), model_key)

    def _token_vectors_by(self, column: str, keys: list, model_key: str) -> dict:
        """{chunks.<column>: int8 token matrix} of the chunks of ``model_key`` whose
        ``column`` is one of ``keys`` (the id, or the embedded text's hash), with
        token vectors; each reshaped by its chunk vector's dimension (float32 bytes / 4)."""
        out: dict = {}
        for i in range(0, len(keys), 500):  # stay under SQLite's bound-variable limit
            batch = keys[i : i + 500]
            marks = ",".join("?" * len(batch))
            for key, n, blob in self.conn.execute(
                f"SELECT {column}, length(vector), token_vectors FROM chunks WHERE model_key = ? "
                f"AND token_vectors IS NOT NULL AND {column} IN ({marks})",
                (model_key, *batch),
            ):
                out[key] = token_matrix(blob, n // 4)
        return out

    # --- reads ------------------------------------------------------------------------

    @_read
    def _snapshot(self) -> _Snapshot:
        rows = dict(self.conn.execute(
            "SELECT key, value FROM settings WHERE key IN ('generation', 'index_id')"))
        gen, ident = int(rows.get("generation") or 0), rows.get("index_id")
        file = self._local.file
        snap = self._snap
        if snap is not None and (snap.generation, snap.file, snap.index_id) == (gen, file, ident):
            return snap
        with self._snap_lock:
            snap = self._snap
            if snap is not None and (snap.generation, snap.file, snap.index_id) == (gen, file, ident):
                return snap
            new = None
            if snap is not None and (snap.file, snap.index_id) == (file, ident) \
                    and snap.generation < gen:
                new = self._update(snap)
            if new is None:
                new = self._load()
            new.file, new.index_id = file, ident
            self._snap = new
            return new

    def _load(self) -> _Snapshot:
        """Every chunk of the index, read in one transaction."""
        c = self.conn
        c.execute("BEGIN")  # one consistent read of chunks and postings
        try:
            gen = int(c.execute("SELECT value FROM settings WHERE key='generation'").fetchone()[0])
            rows = c.execute(
                "SELECT id, model_key, vector, length, bare_vector FROM chunks ORDER BY id"
            ).fetchall()
            # grouped by SQLite, parsed by numpy: a Python loop over ~400k postings
            # took most of a reload (0.75 of 1.6 s at 7,800 chunks)
            by_term = c.execute("SELECT term, group_concat(chunk_id), group_concat(tf), count(*) "
                                "FROM postings GROUP BY term").fetchall()
            sent_rows = c.execute(
                "SELECT chunk_id, model_key, vector FROM sentences ORDER BY model_key, chunk_id, id"
            ).fetchall()
        finally:
            c.execute("COMMIT")
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        vectors, vector_pos = _vector_groups(rows, 2)
        bare, _ = _vector_groups([r for r in rows if r[4] is not None], 4)
        vocabulary = {t: i for i, (t, *_) in enumerate(by_term)}
        counts = np.array([r[3] for r in by_term], dtype=np.int64)
        postings = Postings(
            vocabulary, np.repeat(np.arange(len(by_term), dtype=np.int64), counts),
            np.searchsorted(ids, _joined_ints(r[1] for r in by_term)),
            _joined_ints(r[2] for r in by_term))
        return _Snapshot(gen, ids, np.array([r[3] for r in rows], dtype=np.float64),
                         {int(i): n for n, i in enumerate(ids)}, postings, vectors, vector_pos,
                         _sentence_groups(sent_rows), bare)

    def _update(self, snap: _Snapshot) -> _Snapshot | None:
        """``snap`` with the chunks the log says changed since its generation read again;
        None when the log no longer reaches back that far or more chunks changed than the
        snapshot holds (a whole read is then as cheap). The result equals a whole read
        (tested)."""
        c = self.conn
        c.execute("BEGIN")
        try:
            gen = int(c.execute("SELECT value FROM settings WHERE key='generation'").fetchone()[0])
            floor = c.execute("SELECT value FROM settings WHERE key='log_from'").fetchone()
            if floor is None or snap.generation < int(floor[0]):
                return None
            touched = np.unique(np.array(
                [r[0] for r in c.execute("SELECT chunk_id FROM chunk_log WHERE generation > ?",
                                         (snap.generation,))], dtype=np.int64))
            if len(touched) > max(len(snap.ids), 1):
                return None
            rows, post_rows, sent_rows = [], [], []
            for i in range(0, len(touched), 500):
                batch = [int(x) for x in touched[i : i + 500]]
                marks = ",".join("?" * len(batch))
                rows += c.execute("SELECT id, model_key, vector, length, bare_vector FROM chunks "
                                  f"WHERE id IN ({marks}) ORDER BY id", batch).fetchall()
                post_rows += c.execute("SELECT term, chunk_id, tf FROM postings "
                                       f"WHERE chunk_id IN ({marks})", batch).fetchall()
                sent_rows += c.execute("SELECT chunk_id, model_key, vector FROM sentences "
                                       f"WHERE chunk_id IN ({marks}) ORDER BY chunk_id, id",
                                       batch).fetchall()
        finally:
            c.execute("COMMIT")
        kept = ~np.isin(snap.ids, touched)
        merged = np.concatenate([snap.ids[kept], np.array([r[0] for r in rows], dtype=np.int64)])
        order = np.argsort(merged, kind="stable")
        ids = merged[order]
        new_row = np.empty(len(order), dtype=np.int64)
        new_row[order] = np.arange(len(order))
        remap = np.full(len(snap.ids), -1, dtype=np.int64)
        remap[kept] = new_row[: int(kept.sum())]
        row_of = {int(i): n for n, i in enumerate(ids)}
        lengths = np.concatenate([snap.lengths[kept],
                                  np.array([r[3] for r in rows], dtype=np.float64)])[order]
        postings = snap.postings.merged(kept, remap,
                                        [(t, row_of[cid], tf) for t, cid, tf in post_rows])
        vectors, vector_pos = _merge_vectors(snap.vectors, touched, rows, 2)
        bare, _ = _merge_vectors(snap.bare, touched, [r for r in rows if r[4] is not None], 4)
        sentences = _merge_sentences(snap.sentences, touched, sent_rows)
        return _Snapshot(gen, ids, lengths, row_of, postings, vectors, vector_pos, sentences, bare)

    def dense(self, query: np.ndarray, k: int, model_key: str,
              bare: bool = False, only: Collection[int] | None = None) -> list[tuple[int, float]]:
        snap = self._snapshot()
        group = (snap.bare if bare else snap.vectors).get(model_key)
        if group is None:
            return []
        ids, matrix = group
        sims = matrix @ query.astype(np.float32)
        rows = _allowed_rows(ids, only)  # the filter goes before the cut: a full k
        best = top_k(sims, k) if rows is None else rows[top_k(sims[rows], k)]
        return [(int(ids[i]), float(sims[i])) for i in best]

    def similarities(
        self, query: np.ndarray, chunk_ids: Sequence[int], model_key: str
    ) -> dict[int, float]:
        snap = self._snapshot()
        group = snap.vectors.get(model_key)
        if group is None:
            return {}
        ids, matrix = group
        pos = [(i, snap.vector_pos[i]) for i in chunk_ids if i in snap.vector_pos]
        pos = [(i, p) for i, p in pos if p < len(ids) and ids[p] == i]  # same model only
        if not pos:
            return {}
        sims = matrix[[p for _, p in pos]] @ query.astype(np.float32)
        return {int(i): float(x) for (i, _), x in zip(pos, sims, strict=True)}

    def bm25(self, terms: Sequence[str], k: int,
             only: Collection[int] | None = None) -> list[tuple[int, float]]:
        snap = self._snapshot()
        if not len(snap.ids):
            return []
        avgdl = float(snap.lengths.mean())
        scores = score_postings(terms, snap.postings, snap.lengths, avgdl)
        rows = _allowed_rows(snap.ids, only)
        if rows is not None:  # N, n_t and avgdl stay the whole index's: the same scores
            kept = np.zeros(len(scores), dtype=bool)
            kept[rows] = True
            scores[~kept] = 0.0
        positive = int((scores > 0).sum())
        best = top_k(scores, min(k, positive))
        return [(int(snap.ids[i]), float(scores[i])) for i in best]

    def sentence_max(self, query: np.ndarray, k: int, model_key: str,
                     only: Collection[int] | None = None) -> list[tuple[int, float]]:
        group = self._snapshot().sentences.get(model_key)
        if group is None:
            return []
        chunk_ids, starts, matrix = group
        # einsum, not `matrix @ q`: BLAS runs this (~4x the chunks) matrix-vector product
        # multi-threaded, and on a loaded machine its threads stall ~10-25 ms at p95;
        # einsum's single-threaded loop takes ~0.6 ms for rustbook's 6,928 sentences,
        # every time (core_bench.py, docs/retrieval-experiments.md section 10).
        sims = np.einsum("ij,j->i", matrix, query.astype(np.float32))
        best = chunk_max(sims, starts)
        rows = _allowed_rows(chunk_ids, only)
        top = top_k(best, k) if rows is None else rows[top_k(best[rows], k)]
        return [(int(chunk_ids[i]), float(best[i])) for i in top]

    @_read
    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        ids = list(dict.fromkeys(int(i) for i in ids))
        for i in range(0, len(ids), 500):
            batch = ids[i : i + 500]
            marks = ",".join("?" * len(batch))
            rows = self.conn.execute(
                "SELECT c.id, d.path, d.title, c.section, c.start, c.end, c.content, c.text, "
                f"c.locator FROM chunks c JOIN documents d ON d.id = c.doc_id "
                f"WHERE c.id IN ({marks})",
                batch,
            )
            for cid, path, title, sec, s, e, content, text, loc in rows:
                out[cid] = ChunkRow(cid, path, title, sec, s, e, content, text, locator_from(json.loads(loc)))
        return out

    @_read
    def chunk_ids_of(self, paths: Sequence[str]) -> set[int]:
        out: set[int] = set()
        paths = list(dict.fromkeys(paths))
        for i in range(0, len(paths), 500):
            batch = paths[i : i + 500]
            marks = ",".join("?" * len(batch))
            out.update(cid for (cid,) in self.conn.execute(
                "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id "
                f"WHERE d.path IN ({marks})", batch))
        return out

    @_read
    def token_vectors(self, ids: Sequence[int], model_key: str) -> dict[int, np.ndarray]:
        return self._token_vectors_by("id", list(dict.fromkeys(int(i) for i in ids)), model_key)

    def document_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        snap = self._snapshot()
        return len(snap.ids), {t: len(snap.postings[t][0]) for t in set(terms)
                               if t in snap.postings}

    @_read
    def sections(self, ids: Sequence[int]) -> dict[int, tuple[int, str]]:
        out: dict[int, tuple[int, str]] = {}
        ids = list(dict.fromkeys(int(i) for i in ids))
        for i in range(0, len(ids), 500):
            batch = ids[i : i + 500]
            marks = ",".join("?" * len(batch))
            for cid, doc, sec in self.conn.execute(
                f"SELECT id, doc_id, section FROM chunks WHERE id IN ({marks})", batch
            ):
                out[cid] = (doc, sec)
        return out

    @_read
    def all_chunks(self) -> list[ChunkRow]:
        """Every chunk, in document order (for evaluation and export)."""
        rows = self.conn.execute(
            "SELECT c.id, d.path, d.title, c.section, c.start, c.end, c.content, c.text, "
            "c.locator FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "ORDER BY d.path, c.ordinal"
        )
        return [ChunkRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], locator_from(json.loads(r[8]))) for r in rows]

    @_read
    def stats(self) -> IndexStats:
        c = self.conn
        n, over, tok, htok = c.execute(
            "SELECT COALESCE(SUM(n_chunks), 0), COALESCE(SUM(n_over_window), 0), "
            "COALESCE(SUM(tokens), 0), COALESCE(SUM(header_tokens), 0) FROM documents"
        ).fetchone()
        by_state = dict(c.execute("SELECT state, COUNT(*) FROM documents GROUP BY state").fetchall())
        return IndexStats(n, over, tok, htok, by_state)

    @_read
    def check(self) -> None:
        """Raise :class:`StoreUnavailable` naming the file as damaged (:func:`_damaged`)
        when SQLite's ``quick_check`` finds a damaged page: status read the documents
        table alone, so an overwritten page of the chunks, postings or sentences went
        unseen until a search read it, or never. It reads every page, and checks their
        structure, not what they hold (damage inside a stored text or vector passes):
        0.05 s for an index of 110 MB in the system's cache, 0.6 s from disk."""
        found = self.conn.execute(f"PRAGMA quick_check({CHECK_ERRORS})").fetchall()
        if found != [("ok",)]:
            lines = [line for (row,) in found for line in row.splitlines()
                     if line and not line.startswith("*** in database")]
            raise _damaged(self.path, "SQLite's check of its pages: " + "; ".join(lines))

    def _bytes(self) -> int:
        return sum(p.stat().st_size for p in (self.path, self.path.with_name(self.path.name + "-wal"))
                   if p.exists())

    def compact(self, readers: Mapping[str, str] | None = None) -> CompactReport:
        c = self.conn
        before = self._bytes()
        try:
            c.execute("BEGIN IMMEDIATE")  # writers wait: no chunk lands between keep and drop
            skips = 0 if readers is None else _drop_stale_skips(c, readers)
            c.execute("CREATE TEMP TABLE IF NOT EXISTS kept_cache (text_hash TEXT NOT NULL, "
                      "model_key TEXT NOT NULL, PRIMARY KEY (text_hash, model_key)) WITHOUT ROWID")
            c.execute("DELETE FROM temp.kept_cache")
            c.execute("INSERT OR IGNORE INTO temp.kept_cache SELECT text_hash, model_key FROM chunks")
            c.execute("INSERT OR IGNORE INTO temp.kept_cache "
                      "SELECT text_hash, model_key FROM sentences")
            rows = c.execute("SELECT content, model_key FROM chunks")  # header-less vectors
            while batch := rows.fetchmany(2000):
                c.executemany("INSERT OR IGNORE INTO temp.kept_cache VALUES (?, ?)",
                              [(text_hash(content), key) for content, key in batch])
            dropped = c.execute(
                "DELETE FROM embeddings WHERE NOT EXISTS (SELECT 1 FROM temp.kept_cache k "
                "WHERE k.text_hash = embeddings.text_hash AND k.model_key = embeddings.model_key)"
            ).rowcount
            kept = c.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
            c.execute("DROP TABLE temp.kept_cache")
            c.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            _rollback(c)
            _unwritten(self.path, exc, "the dropping of unused cache rows")
        except BaseException:
            _rollback(c)
            raise
        try:
            c.execute("VACUUM")  # rewrites the file without the free pages
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError as exc:
            if (exc.sqlite_errorname or "").startswith(("SQLITE_FULL", "SQLITE_READONLY",
                                                        "SQLITE_IOERR")):
                _unwritten(self.path, exc, f"the file without the {dropped} dropped cache "
                           "rows' space")  # VACUUM needs free space for a copy of the file
            raise StoreUnavailable(  # another process holds the index open
                f"{self.path}: {dropped} unused cache rows were dropped, but the file could not "
                f"be rewritten to give their space back while another process uses the index "
                f"({exc}); run compact again when it is idle") from exc
        return CompactReport(dropped, kept, before, self._bytes(), skips)


def _drop_stale_skips(c: sqlite3.Connection, readers: Mapping[str, str]) -> int:
    """Delete the remembered skips whose reader (extractor name and version) is not in
    ``readers``, the ones a run asks for now; how many went."""
    stale = [(name, version) for name, version in c.execute(
        "SELECT DISTINCT extractor, extractor_version FROM skipped_content")
        if readers.get(name) != version]
    return sum(c.execute("DELETE FROM skipped_content WHERE extractor = ? AND "
                         "extractor_version = ?", pair).rowcount for pair in stale)


def _use_wal(c: sqlite3.Connection) -> None:
    """Put the database in WAL mode (kept in the file, so once is enough). Switching
    needs the database to itself, and SQLite answers "locked" at once, without its busy
    wait, while another process is creating the same index; so wait here instead."""
    deadline = time.monotonic() + LOCK_TIMEOUT_S
    while True:
        try:
            if c.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                c.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _allowed_rows(ids: np.ndarray, only: Collection[int] | None) -> np.ndarray | None:
    """The positions in ``ids`` (ascending chunk ids) of the chunks ``only`` allows, in
    order, so a cut over them breaks ties by position as over every row; None for no
    filter."""
    if only is None:
        return None
    allowed = np.fromiter(only, dtype=np.int64, count=len(only))
    return np.flatnonzero(np.isin(ids, allowed))


def _matrices(grouped: dict[str, tuple[list[int], list[bytes]]]
              ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per model key: (chunk ids, their vectors stacked as one float32 matrix)."""
    return {
        key: (np.array(cids, dtype=np.int64),
              np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs]))
        for key, (cids, blobs) in grouped.items()
    }


def _grouped(rows: Sequence[tuple], column: int) -> dict[str, tuple[list[int], list[bytes]]]:
    """(id, model_key, ...) rows -> per model key: (ids, the blobs in ``column``)."""
    grouped: dict[str, tuple[list[int], list[bytes]]] = {}
    for r in rows:
        g = grouped.setdefault(r[1], ([], []))
        g[0].append(r[0])
        g[1].append(r[column])
    return grouped


def _vector_groups(rows: Sequence[tuple], column: int
                   ) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[int, int]]:
    """Chunk rows (in id order) -> per model key (ids, matrix), and each chunk's row in
    its model's matrix."""
    groups = _matrices(_grouped(rows, column))
    return groups, _positions(groups)


def _positions(groups: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[int, int]:
    return {int(cid): n for ids, _ in groups.values() for n, cid in enumerate(ids)}


def _merge_vectors(old: dict[str, tuple[np.ndarray, np.ndarray]], touched: np.ndarray,
                   rows: Sequence[tuple], column: int
                   ) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[int, int]]:
    """``old`` per model key without the ``touched`` chunks, with ``rows`` (their new
    versions, in id order) added, each key's rows in id order again."""
    added = _matrices(_grouped(rows, column))
    out = {}
    for key in old.keys() | added.keys():
        ids, matrix = old.get(key, (np.zeros(0, dtype=np.int64), None))
        keep = ~np.isin(ids, touched)
        parts = [(ids[keep], matrix[keep])] if keep.any() else []
        if key in added:
            parts.append(added[key])
        if not parts:
            continue
        merged = np.concatenate([p[0] for p in parts])
        order = np.argsort(merged, kind="stable")
        out[key] = (merged[order], np.vstack([p[1] for p in parts])[order])
    return out, _positions(out)


def _sentence_groups(rows: Sequence[tuple]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(chunk_id, model_key, vector) rows grouped by key, then chunk -> per key: (distinct
    chunk ids, first row of each chunk's run, the stacked vectors)."""
    return {key: _runs(np.array(owners, dtype=np.int64),
                       np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs]))
            for key, (owners, blobs) in _grouped(rows, 2).items()}


def _runs(owner: np.ndarray, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sentence rows grouped by chunk (``owner``: each row's chunk id) -> (distinct chunk
    ids, first row of each chunk's run, the matrix)."""
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    return owner[starts], starts, matrix


def _owners(group: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """The chunk id of each row of a :func:`_runs` group (its inverse)."""
    chunk_ids, starts, matrix = group
    return np.repeat(chunk_ids, np.diff(np.r_[starts, len(matrix)]))


def _merge_sentences(old: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
                     touched: np.ndarray, rows: Sequence[tuple]
                     ) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """As :func:`_merge_vectors`, for sentence vectors (each chunk's sentences stay in
    their order, the chunks in id order)."""
    added = _sentence_groups(rows)
    out = {}
    for key in old.keys() | added.keys():
        parts = []
        if key in old:
            owner = _owners(old[key])
            keep = ~np.isin(owner, touched)
            if keep.any():
                parts.append((owner[keep], old[key][2][keep]))
        if key in added:
            parts.append((_owners(added[key]), added[key][2]))
        if not parts:
            continue
        owner = np.concatenate([p[0] for p in parts])
        order = np.argsort(owner, kind="stable")
        out[key] = _runs(owner[order], np.vstack([p[1] for p in parts])[order])
    return out


def _joined_ints(texts: Iterable[str]) -> np.ndarray:
    """SQLite's ``group_concat`` lists of integers as one int64 array, in order."""
    joined = ",".join(texts)
    return np.array(joined.split(",") if joined else [], dtype=np.int64)


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


