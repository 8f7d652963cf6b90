"""The scale-out store: PostgreSQL (>= 15) with pgvector (>= 0.6).

Same semantics as :mod:`citeline.store.sqlite`, so the pipeline cannot tell
them apart; what differs is where the work happens:

* Schema = the numbered, append-only :data:`MIGRATIONS`, recorded in
  ``schema_migrations`` and applied under an advisory lock, so several workers
  starting at once never race. A database from a newer citeline is refused.
* Every document is written in ONE transaction (document row, chunks, vectors,
  BM25 postings, the BM25 totals row); readers only ever see committed
  documents (MVCC), so a search never sees half a document.
* Dense: one table of vectors per embedding model ("vector space",
  ``vectors_<n>`` with a fixed ``vector(dim)`` column and its own HNSW cosine
  index). Vectors of different models live in different tables and so can
  never be compared, and every space gets the dimension its model has. The HNSW
  candidates are re-scored with the exact inner product, so a returned
  similarity is the true cosine the gate needs. ``?exact=1`` in the URL (or the
  setting ``pg.exact = 1``) scans sequentially instead: exact top-k, for small
  collections and parity tests.
* A document filter (``only=``, the chunks of the documents a search may rank) goes
  into each scan's WHERE. pgvector 0.6 applies it after an HNSW index scan and has
  no iterative scan, so a beam of ef rows holds only about ef x share allowed ones
  (share: the filter's part of the collection's chunks), and no beam is wider than
  ``HNSW_EF_SEARCH_MAX``. A filter whose share cannot be expected to fill the list
  from the widest beam (share x 1000 < the rows wanted: under 40% of the chunks for
  the pipeline's 400 dense candidates) is ranked exactly instead: its own chunks,
  found by primary key and scored, a cost that grows with the chunks kept (~0.7 us
  each, as the exact scan of docs/postgres.md), not with the collection, and a list
  as deep as the filter allows. A wider filter widens the beam to rows / share, and
  a dense list that still comes back short of k is ranked exactly too. Over-fetching
  alone would give a small document in a big collection a few hits, or none.
* Sentence vectors (the default fusion's third list): one ``sentences`` table
  for every model, with a partial HNSW index per model on the cast to its
  dimension; each chunk's best among the nearest sentences (exact re-score).
* Token vectors (the "late" fusion's fourth list): each chunk's int8 matrix as
  raw bytes in a ``token_vectors bytea`` column of the model's ``vectors_<n>``
  table (rows = length / the space's dimension), written and dropped with the
  chunk.
* BM25 inside PostgreSQL with the same tokenizer, k1, b and IDF as the SQLite
  backend: postings (term, chunk, tf) and chunk lengths are written with the
  chunks, N and the total length in a one-row table updated in the same
  transaction; the score is one SQL statement (one snapshot).
* The indexing job queue (:mod:`citeline.store.jobs`): ``SELECT ... FOR UPDATE
  SKIP LOCKED`` claims with a lease; fenced writes.
* Connections: one per thread (like the SQLite backend); every query uses bound
  parameters, and identifiers are composed with :mod:`psycopg.sql`.

URL: ``postgresql://user[:password]@host[:port]/db[?exact=1&ef_search=N&...]``;
``exact`` and ``ef_search`` are citeline's, every other parameter goes to libpq.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import threading
import uuid
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import numpy as np

from citeline.errors import (
    ConfigError,
    DocumentRefused,
    IndexNotFound,
    LeaseLost,
    ModelMismatch,
    SchemaError,
    StoreUnavailable,
)
from citeline.retrieve.bm25 import K1, B, term_frequencies
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
    token_blob,
    token_matrix,
)
from citeline.store.jobs import Job, JobState
from citeline.types import Region

try:
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg import sql
except ImportError as _exc:  # pragma: no cover - exercised only without the extra
    raise ConfigError(
        "--store postgresql://...: needs psycopg and pgvector: pip install 'citeline[postgres]'"
    ) from _exc

DenseMode = Literal["hnsw", "exact"]
F = TypeVar("F", bound=Callable[..., Any])

# Advisory lock keys (any 64-bit constants unique to citeline): one serialises
# migrations across processes, one creating a vector space, one job claims.
MIGRATION_LOCK = 0x63697465_6C696E65  # "citeline"
SPACE_LOCK = 0x63697465_73706163  # "citespac"
CLAIM_LOCK = 0x63697465_636C6169  # "citeclai": serialises job claims (one per document)

# HNSW build parameters. m = links per node: more = better recall, slower build;
# ef_construction = build-time beam: more = better graph, slower build. pgvector's
# defaults (16, 64) reached only recall@10 0.80-0.93 on 1M synthetic 384-d chunks
# (benchmarks/pg_bench.py, ef_search 100-1000); 24 / 128 reached 0.966 at ef_search
# 800 for a 1.5x longer build (396 s vs 261 s at 1M on 2 cores) and the same disk.
HNSW_M = 24
HNSW_EF_CONSTRUCTION = 128
# Query-time beam: with the graph above, 800 gave recall@10 0.966 at 8.3 ms p50 at
# 1M chunks (400: 0.946 at 4.4 ms); at 100k, 800 costs ~6 ms. docs/postgres.md has
# the sweep. The pipeline asks for 200 hits, so it always runs at >= 2 x 200.
HNSW_EF_SEARCH = 800
# pgvector refuses ef_search above 1000, and an HNSW scan returns at most
# ef_search rows.
HNSW_EF_SEARCH_MAX = 1000
# The sentence list through its HNSW index: the nearest SENTENCE_ROWS sentences
# (beam SENTENCE_EF_SEARCH), each chunk's best among them. 400 rows hold fewer
# chunks than the fusion's 200-chunk depth (median 183 at 100k chunks x 4
# sentences): a shallower third list, whose tail weighs little under RRF k=10
# (rank 150: 1/160 against rank 1's 1/11); on rustbook keeping only the best 200
# sentences moved no query's first correct rank in the top 20 (100 moved 4). At
# 100k chunks (benchmarks/pg_sentences_bench.py) 400/400 costs 5.8 ms p50 for
# recall@10 0.980 of the exact list; 1000/1000 (every query's full 200 chunks)
# 13.1 ms for 0.996, which put the default fusion at 2.7x the port's search
# without the query embedding (400/400: 1.9x; docs/postgres.md).
SENTENCE_ROWS = 400
SENTENCE_EF_SEARCH = 400
# Rows fetched per requested hit before the exact re-score: HNSW and the exact
# inner product can disagree on near-ties at the cut, so a margin keeps the
# returned top-k identical to an exact ranking of the candidates.
CANDIDATE_FACTOR = 2
# BM25 scores equal in exact arithmetic can differ in the last bits depending on
# the order SQL sums the terms in; rounding the sort key to this many decimals
# makes such ties fall back to the chunk id, as they do in the SQLite backend.
BM25_TIE_DECIMALS = 9

MIGRATIONS: tuple[str, ...] = (
    # 1: documents, chunks, postings + BM25 totals, embedding cache, vector spaces, settings
    """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE documents (
        id bigserial PRIMARY KEY,
        path text NOT NULL UNIQUE,
        root text NOT NULL DEFAULT '',
        state text NOT NULL,
        reason text NOT NULL DEFAULT '',
        title text NOT NULL DEFAULT '',
        media_type text NOT NULL DEFAULT '',
        content_hash text NOT NULL DEFAULT '',
        extractor text NOT NULL DEFAULT '',
        extractor_version text NOT NULL DEFAULT '',
        pipeline_version text NOT NULL DEFAULT '',
        model_id text NOT NULL DEFAULT '',
        weights_hash text NOT NULL DEFAULT '',
        dim integer NOT NULL DEFAULT 0,
        n_chunks integer NOT NULL DEFAULT 0,
        n_over_window integer NOT NULL DEFAULT 0,
        tokens integer NOT NULL DEFAULT 0,
        header_tokens integer NOT NULL DEFAULT 0,
        warnings jsonb NOT NULL DEFAULT '[]',
        indexed_at text NOT NULL DEFAULT '',
        text text
    );
    CREATE TABLE chunks (
        id bigserial PRIMARY KEY,
        doc_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ordinal integer NOT NULL,
        start_char integer NOT NULL,
        end_char integer NOT NULL,
        section text NOT NULL,
        text text NOT NULL,
        content text NOT NULL,
        locator jsonb NOT NULL,
        tokens integer NOT NULL,
        header_tokens integer NOT NULL,
        text_hash text NOT NULL,
        model_key text NOT NULL,
        length integer NOT NULL
    );
    CREATE INDEX chunks_doc ON chunks (doc_id);
    CREATE TABLE postings (
        term text NOT NULL,
        chunk_id bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        tf integer NOT NULL,
        PRIMARY KEY (term, chunk_id)
    );
    CREATE INDEX postings_chunk ON postings (chunk_id);
    CREATE TABLE bm25_totals (
        id integer PRIMARY KEY CHECK (id = 1),
        n_chunks bigint NOT NULL,
        total_length bigint NOT NULL
    );
    INSERT INTO bm25_totals VALUES (1, 0, 0);
    CREATE TABLE embeddings (
        text_hash text NOT NULL,
        model_key text NOT NULL,
        vector bytea NOT NULL,
        PRIMARY KEY (text_hash, model_key)
    );
    CREATE TABLE vector_spaces (
        id serial PRIMARY KEY,
        model_key text NOT NULL UNIQUE,
        dim integer NOT NULL CHECK (dim > 0),
        hnsw_m integer NOT NULL,
        hnsw_ef_construction integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    """,
    # 2: the indexing job queue
    """
    CREATE TABLE jobs (
        id bigserial PRIMARY KEY,
        path text NOT NULL,
        root text NOT NULL,
        file text NOT NULL,
        state text NOT NULL DEFAULT 'queued'
            CHECK (state IN ('queued', 'running', 'done', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        worker text NOT NULL DEFAULT '',
        token text NOT NULL DEFAULT '',
        enqueued_at timestamptz NOT NULL DEFAULT now(),
        claimed_at timestamptz,
        heartbeat_at timestamptz,
        finished_at timestamptz,
        outcome text NOT NULL DEFAULT '',
        error text NOT NULL DEFAULT ''
    );
    CREATE UNIQUE INDEX jobs_active_path ON jobs (path) WHERE state IN ('queued', 'running');
    CREATE INDEX jobs_open ON jobs (id) WHERE state IN ('queued', 'running');
    """,
    # 3: the queue behind several `citeline serve` processes: a path may be queued
    # again while it runs (a re-upload must not be lost; claims still run one job per
    # path at a time), forced re-index jobs (retry), jobs cancelled by a delete, the
    # latest job per path for the documents list, and API keys shared by every server.
    """
    ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
    ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
        CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled'));
    ALTER TABLE jobs ADD COLUMN force boolean NOT NULL DEFAULT false;
    DROP INDEX jobs_active_path;
    CREATE UNIQUE INDEX jobs_queued_path ON jobs (path) WHERE state = 'queued';
    CREATE INDEX jobs_path ON jobs (path, id);
    CREATE TABLE api_keys (
        id text PRIMARY KEY,
        salt bytea NOT NULL,
        hash bytea NOT NULL,
        collections jsonb NOT NULL,
        scope text NOT NULL,
        label text NOT NULL DEFAULT '',
        created_at text NOT NULL,
        revoked_at text
    );
    """,
    # 4: sentence vectors (the sentence-level dense list), written with their chunk in
    # the document's transaction and dropped with it (cascade). Scanned exactly: a
    # sentence list is ~4x the chunks, and its ranking needs every chunk's max.
    """
    CREATE TABLE sentences (
        id bigserial PRIMARY KEY,
        chunk_id bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        start_char integer NOT NULL,
        end_char integer NOT NULL,
        text_hash text NOT NULL,
        model_key text NOT NULL,
        embedding vector NOT NULL
    );
    CREATE INDEX sentences_chunk ON sentences (chunk_id);
    CREATE INDEX sentences_model ON sentences (model_key);
    """,
    # 5: an HNSW index over each model's sentence vectors (the column is untyped, so
    # a partial index on the cast, one per vector space; as _create_sentence_hnsw).
    """
    DO $$
    DECLARE s record;
    BEGIN
        FOR s IN SELECT id, model_key, dim, hnsw_m, hnsw_ef_construction
                 FROM vector_spaces ORDER BY id LOOP
            EXECUTE format(
                'CREATE INDEX IF NOT EXISTS %I ON sentences USING hnsw '
                '((embedding::vector(%s)) vector_cosine_ops) '
                'WITH (m = %s, ef_construction = %s) WHERE model_key = %L',
                'sentences_' || s.id || '_hnsw', s.dim, s.hnsw_m, s.hnsw_ef_construction,
                s.model_key);
        END LOOP;
    END $$;
    """,
    # 6: each chunk's content embedded without its header (the "section" fusion's dense
    # list), beside its vector in the model's table, with its own HNSW index (pgvector
    # leaves NULLs out of it: chunks written before this, or without sentence vectors).
    """
    DO $$
    DECLARE s record;
    BEGIN
        FOR s IN SELECT id, dim, hnsw_m, hnsw_ef_construction FROM vector_spaces ORDER BY id LOOP
            EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS bare_embedding vector(%s)',
                           'vectors_' || s.id, s.dim);
            EXECUTE format(
                'CREATE INDEX IF NOT EXISTS %I ON %I USING hnsw (bare_embedding vector_cosine_ops) '
                'WITH (m = %s, ef_construction = %s)',
                'vectors_' || s.id || '_bare_hnsw', 'vectors_' || s.id, s.hnsw_m,
                s.hnsw_ef_construction);
        END LOOP;
    END $$;
    """,
    # 7: each chunk's content token vectors (the "late" fusion's fourth list), int8
    # (citeline.retrieve.late.quantize) as raw bytes, rows x the model's dim, beside its
    # vectors in the model's table (NULL: written before this, or kept without them);
    # and the chunks' text hash indexed, the key cached_token_vectors looks them up by.
    """
    DO $$
    DECLARE s record;
    BEGIN
        FOR s IN SELECT id FROM vector_spaces ORDER BY id LOOP
            EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS token_vectors bytea',
                           'vectors_' || s.id);
        END LOOP;
    END $$;
    CREATE INDEX IF NOT EXISTS chunks_text_hash ON chunks (text_hash);
    """,
    # 8: the document's region map (pages, cues, rows; citeline.store.regions_json), so an
    # answer's sentence is located in its own page; NULL for documents written before.
    """
    ALTER TABLE documents ADD COLUMN IF NOT EXISTS regions text;
    """,
    # 9: a running job's lease as its holder took it: whether it expired is the holder's
    # lease, not that of whoever looks (a worker started with --lease 600 beside servers
    # of 60 s had its live jobs taken over). NULL for jobs claimed before: the looker's.
    """
    ALTER TABLE jobs ADD COLUMN IF NOT EXISTS lease_seconds double precision;
    """,
    # 10: a document's path may be as long as the file system allows: a btree entry is at
    # most ~2,700 bytes, so a deeper path failed its whole index run (or enqueue). The
    # uniqueness goes on md5(path), lookups by path through hash indexes (any length).
    """
    ALTER TABLE documents DROP CONSTRAINT IF EXISTS documents_path_key;
    CREATE UNIQUE INDEX IF NOT EXISTS documents_path_md5 ON documents (md5(path));
    CREATE INDEX IF NOT EXISTS documents_path_hash ON documents USING hash (path);
    DROP INDEX IF EXISTS jobs_queued_path;
    CREATE UNIQUE INDEX IF NOT EXISTS jobs_queued_path ON jobs (md5(path)) WHERE state = 'queued';
    DROP INDEX IF EXISTS jobs_path;
    CREATE INDEX IF NOT EXISTS jobs_path ON jobs USING hash (path);
    """,
    # 11: what an extractor skipped a file's content for (an image with no text, which took
    # seconds of OCR to tell): the next run skips the same content for the same reason
    # without reading it again, until that extractor's version changes.
    """
    CREATE TABLE IF NOT EXISTS skipped_content (content_hash text NOT NULL,
        extractor text NOT NULL, extractor_version text NOT NULL, reason text NOT NULL,
        PRIMARY KEY (content_hash, extractor));
    """,
)

_OPTION_KEYS = ("exact", "ef_search")


def _db(method: F) -> F:
    """Convert the driver's errors to :class:`StoreUnavailable` at the store boundary."""

    @functools.wraps(method)
    def wrapper(self: PostgresStore, *args: Any, **kwargs: Any) -> Any:
        try:
            try:
                return method(self, *args, **kwargs)
            except psycopg.OperationalError:
                if not self.drop_broken_connection():
                    raise
                # the thread's connection died with the server (a restart, a failover):
                # once more on a new one, rather than fail one request per pooled thread
                return method(self, *args, **kwargs)
        except psycopg.Error as exc:
            raise StoreUnavailable(f"{redact(self.url)}: {method.__name__}: {exc}") from exc

    return wrapper  # type: ignore[return-value]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_url(url: str) -> tuple[str, dict[str, str]]:
    """Split citeline's own query parameters off a store URL; the rest is libpq's."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - urlsplit checks the port and an IPv6 host only when asked
    except ValueError as exc:  # "postgresql://[::1/a", a port that is no number
        raise ConfigError(f"--store: not a valid URL: {redact(url)}: {exc}") from exc
    if parts.scheme not in ("postgresql", "postgres"):
        raise ConfigError(f"--store: not a PostgreSQL URL: {redact(url)}")
    ours: dict[str, str] = {}
    theirs: list[tuple[str, str]] = []
    for k, v in parse_qsl(parts.query, keep_blank_values=True):
        (ours.__setitem__(k, v) if k in _OPTION_KEYS else theirs.append((k, v)))
    # quote, not quote_plus: libpq decodes %XX in URIs but keeps "+" as a plus sign
    dsn = urlunsplit((parts.scheme, parts.netloc, parts.path,
                      urlencode(theirs, quote_via=quote), ""))
    return dsn, ours


# A password given as a query parameter (libpq takes ?password=...), in any case.
_QUERY_PASSWORD = re.compile(r"((?:^|[?&])password=)[^&#]*", re.IGNORECASE)


def redact(url: str) -> str:
    """The URL without its password (before the host, or as a ``password=`` query
    parameter), for messages and status output."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # not parseable: hide whatever sits between "://user:" and "@"
        return _QUERY_PASSWORD.sub(r"\1***", re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url))
    netloc = parts.netloc
    if password is not None:
        netloc = netloc.replace(f":{password}@", ":***@")
    query = _QUERY_PASSWORD.sub(r"\1***", parts.query)
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _flag(name: str, raw: str) -> bool:
    v = raw.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off", ""):
        return False
    raise ConfigError(f"--store option '{name}': expected 0 or 1, got {raw!r}")


def _int_option(name: str, raw: str, lo: int, hi: int) -> int:
    try:
        n = int(raw)
    except ValueError as exc:
        raise ConfigError(f"--store option '{name}': expected an integer, got {raw!r}") from exc
    if not lo <= n <= hi:
        raise ConfigError(f"--store option '{name}': must be in [{lo}, {hi}], got {n}")
    return n


def _version(conn: psycopg.Connection[Any]) -> int | None:
    """The schema version, or None when there is no citeline schema (read-only query)."""
    exists = conn.execute("SELECT to_regclass('schema_migrations')").fetchone()
    if not (exists and exists[0]):
        return None
    row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: psycopg.Connection[Any]) -> int:
    """Apply the missing migrations under an advisory lock; returns the schema version.

    An up-to-date schema is only read, never locked or written, so a read-only
    connection (a streaming replica, a read-only role) can open the store."""
    current = _version(conn)
    if current == len(MIGRATIONS):
        return current
    if current is not None and current > len(MIGRATIONS):
        raise SchemaError(
            f"schema version {current} is newer than this citeline knows "
            f"({len(MIGRATIONS)}); upgrade citeline"
        )
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()
        version = int(row[0]) if row else 0
        if version > len(MIGRATIONS):
            raise SchemaError(
                f"schema version {version} is newer than this citeline knows "
                f"({len(MIGRATIONS)}); upgrade citeline"
            )
        for n in range(version, len(MIGRATIONS)):
            with conn.transaction():
                conn.execute(MIGRATIONS[n])  # type: ignore[arg-type]  # our own literal DDL
                conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (n + 1,))
        return len(MIGRATIONS)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))


class PostgresStore:
    """A :class:`citeline.store.Store` (and :class:`citeline.store.jobs.JobQueue`)."""

    # A new store stores sentence vectors (~4 per chunk) like the SQLite backend, so
    # hybrid search runs the default "section" fusion on both; they are searched
    # through a partial HNSW index per model (sentence_max_with), not scanned.
    # `index --no-sentences` opts out (a quarter of the vectors to embed and store).
    default_sentences = True

    def __init__(self, url: str, create: bool = True) -> None:
        self.url = url
        self.dsn, options = parse_url(url)
        self._local = threading.local()
        self._all: list[psycopg.Connection[Any]] = []
        self._all_lock = threading.Lock()
        self._spaces: dict[str, tuple[str, int]] = {}
        conn = self._connect(register=False)
        try:
            exists = conn.execute("SELECT to_regclass('schema_migrations')").fetchone()
            if not (exists and exists[0]) and not create:
                raise IndexNotFound(
                    f"{redact(url)}: no citeline schema in this database "
                    "(run citeline migrate --store URL, or index into it)"
                )
            self.schema_version = migrate(conn)
        except SchemaError as exc:
            raise SchemaError(f"{redact(url)}: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreUnavailable(f"{redact(url)}: cannot migrate the schema: {exc}") from exc
        finally:
            conn.close()
        try:
            exact = options.get("exact", self.get_setting("pg.exact", "0") or "0")
            self.dense_mode: DenseMode = "exact" if _flag("exact", exact) else "hnsw"
            ef = options.get(
                "ef_search", self.get_setting("pg.ef_search", "") or str(HNSW_EF_SEARCH)
            )
            self.ef_search = _int_option("ef_search", ef, 1, HNSW_EF_SEARCH_MAX)
        except BaseException:
            self.close()
            raise

    # --- connections ------------------------------------------------------------------

    def _connect(self, register: bool = True) -> psycopg.Connection[Any]:
        try:
            conn = psycopg.connect(self.dsn, autocommit=True)
        except psycopg.Error as exc:
            raise StoreUnavailable(f"{redact(self.url)}: cannot connect: {exc}") from exc
        if register:
            register_vector(conn)
        return conn

    @property
    def conn(self) -> psycopg.Connection[Any]:
        """One autocommit connection per thread; transactions are explicit."""
        c = getattr(self._local, "conn", None)
        if c is None or c.closed:
            c = self._connect()
            self._local.conn = c
            with self._all_lock:
                self._all.append(c)
        return c

    def drop_broken_connection(self) -> bool:
        """Forget this thread's connection if it is broken; True when it was."""
        c = getattr(self._local, "conn", None)
        if c is None or not c.broken:
            return False
        self._local.conn = None
        with self._all_lock:
            self._all = [x for x in self._all if x is not c]
        c.close()
        return True

    def close(self) -> None:
        with self._all_lock:
            conns, self._all = self._all, []
        for c in conns:
            c.close()
        self._local = threading.local()

    # --- settings ---------------------------------------------------------------------

    @_db
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM settings WHERE key = %s", (key,)).fetchone()
        return row[0] if row else default

    @_db
    def set_setting(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO settings (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    @_db
    def skip_reason(self, content_hash: str, extractor: str, version: str) -> str | None:
        row = self.conn.execute(
            "SELECT reason FROM skipped_content WHERE content_hash = %s AND extractor = %s "
            "AND extractor_version = %s", (content_hash, extractor, version)).fetchone()
        return row[0] if row else None

    @_db
    def remember_skip(self, content_hash: str, extractor: str, version: str, reason: str) -> None:
        self.conn.execute(
            "INSERT INTO skipped_content (content_hash, extractor, extractor_version, reason) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT (content_hash, extractor) DO UPDATE SET "
            "extractor_version = excluded.extractor_version, reason = excluded.reason",
            (content_hash, extractor, version, reason),
        )

    # --- documents --------------------------------------------------------------------

    _DOC_COLS = (
        "id, path, root, state, reason, title, media_type, content_hash, extractor, "
        "extractor_version, pipeline_version, model_id, weights_hash, dim, n_chunks, "
        "n_over_window, tokens, header_tokens, warnings, indexed_at"
    )

    @staticmethod
    def _record(row: tuple[Any, ...]) -> DocRecord:
        (id_, path, root, state, reason, title, mt, ch, ex, exv, pv, mid, wh, dim, nc, now, tok,
         htok, warn, at) = row
        return DocRecord(
            path=path, root=root, state=state, reason=reason, title=title, media_type=mt,
            content_hash=ch, extractor=ex, extractor_version=exv, pipeline_version=pv,
            model_id=mid, weights_hash=wh, dim=dim, n_chunks=nc, n_over_window=now,
            tokens=tok, header_tokens=htok, warnings=tuple(warn), indexed_at=at, id=id_,
        )

    @_db
    def documents(self) -> list[DocRecord]:
        rows = self.conn.execute(
            f"SELECT {self._DOC_COLS} FROM documents ORDER BY path COLLATE \"C\""
        ).fetchall()
        return [self._record(r) for r in rows]

    @_db
    def document(self, path: str) -> DocRecord | None:
        row = self.conn.execute(
            f"SELECT {self._DOC_COLS} FROM documents WHERE path = %s", (path,)
        ).fetchone()
        return self._record(row) if row else None

    @_db
    def document_text(self, path: str) -> str | None:
        row = self.conn.execute("SELECT text FROM documents WHERE path = %s", (path,)).fetchone()
        return row[0] if row else None

    # --- vector spaces ----------------------------------------------------------------

    def _space(self, model_key: str, dim: int = 0, create: bool = False,
               index: bool = True) -> tuple[str, int] | None:
        """(table, dim) of ``model_key``'s vectors; created (own transaction) if asked."""
        hit = self._spaces.get(model_key)
        if hit is not None:
            return hit
        c = self.conn
        row = c.execute(
            "SELECT id, dim FROM vector_spaces WHERE model_key = %s", (model_key,)
        ).fetchone()
        if row is None and create:
            if dim <= 0:
                raise ConfigError(f"model {model_key!r}: dimension must be positive, got {dim}")
            m = int(self.get_setting("pg.hnsw_m", str(HNSW_M)) or HNSW_M)
            efc = int(self.get_setting("pg.hnsw_ef_construction", str(HNSW_EF_CONSTRUCTION))
                      or HNSW_EF_CONSTRUCTION)
            with c.transaction():
                c.execute("SELECT pg_advisory_xact_lock(%s)", (SPACE_LOCK,))
                row = c.execute(
                    "SELECT id, dim FROM vector_spaces WHERE model_key = %s", (model_key,)
                ).fetchone()
                if row is None:
                    row = c.execute(
                        "INSERT INTO vector_spaces (model_key, dim, hnsw_m, hnsw_ef_construction) "
                        "VALUES (%s, %s, %s, %s) RETURNING id, dim",
                        (model_key, dim, m, efc),
                    ).fetchone()
                    assert row is not None
                    table = f"vectors_{row[0]}"
                    c.execute(
                        sql.SQL(
                            "CREATE TABLE {} (chunk_id bigint PRIMARY KEY "
                            "REFERENCES chunks(id) ON DELETE CASCADE, "
                            "embedding vector({}) NOT NULL, bare_embedding vector({}), "
                            "token_vectors bytea)"
                        ).format(sql.Identifier(table), sql.Literal(dim), sql.Literal(dim))
                    )
                    if index:
                        self._create_hnsw(table, m, efc)
                        self._create_sentence_hnsw(int(row[0]), model_key, dim, m, efc)
        if row is None:
            return None
        space = (f"vectors_{row[0]}", int(row[1]))
        if dim and space[1] != dim:
            raise ModelMismatch(
                f"model {model_key!r}: this store holds {space[1]}-d vectors for it, got {dim}-d"
            )
        self._spaces[model_key] = space
        return space

    def _create_hnsw(self, table: str, m: int, ef_construction: int) -> None:
        """The HNSW indexes of one model's table: its chunk vectors and its header-less
        ones (migration 6 builds the second for tables made before it)."""
        for column, name in (("embedding", f"{table}_hnsw"), ("bare_embedding", f"{table}_bare_hnsw")):
            self.conn.execute(
                sql.SQL(
                    "CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw ({} vector_cosine_ops) "
                    "WITH (m = {}, ef_construction = {})"
                ).format(
                    sql.Identifier(name), sql.Identifier(table), sql.Identifier(column),
                    sql.Literal(m), sql.Literal(ef_construction),
                )
            )

    def _create_sentence_hnsw(self, space_id: int, model_key: str, dim: int, m: int,
                              ef_construction: int) -> None:
        """The HNSW index over one model's sentence vectors: partial on its model key,
        over the cast to its fixed dimension (migration 5 builds the same)."""
        self.conn.execute(
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON sentences USING hnsw "
                "((embedding::vector({})) vector_cosine_ops) "
                "WITH (m = {}, ef_construction = {}) WHERE model_key = {}"
            ).format(
                sql.Identifier(f"sentences_{space_id}_hnsw"), sql.Literal(dim), sql.Literal(m),
                sql.Literal(ef_construction), sql.Literal(model_key),
            )
        )

    @_db
    def build_vector_indexes(self) -> list[str]:
        """Create any missing HNSW index (after a bulk load); returns the indexes' spaces."""
        rows = self.conn.execute(
            "SELECT id, model_key, dim, hnsw_m, hnsw_ef_construction FROM vector_spaces "
            "ORDER BY id"
        ).fetchall()
        out = []
        for id_, key, dim, m, efc in rows:
            self._create_hnsw(f"vectors_{id_}", m, efc)
            self._create_sentence_hnsw(id_, key, dim, m, efc)
            out.append(f"vectors_{id_}")
        return out

    @_db
    def vector_spaces(self) -> dict[str, tuple[str, int]]:
        rows = self.conn.execute("SELECT model_key, id, dim FROM vector_spaces").fetchall()
        return {k: (f"vectors_{i}", d) for k, i, d in rows}

    # --- writes -----------------------------------------------------------------------

    def _check_fence(self, c: psycopg.Connection[Any]) -> None:
        job: Job | None = getattr(self._local, "fence", None)
        if job is None:
            return
        row = c.execute(
            "SELECT 1 FROM jobs WHERE id = %s AND token = %s AND state = 'running' FOR UPDATE",
            (job.id, job.token),
        ).fetchone()
        if row is None:
            raise LeaseLost(f"{job.path}: job {job.id} was taken over by another worker")

    def _lock_path(self, c: psycopg.Connection[Any], path: str) -> int | None:
        """Serialise writers of one path; returns the existing document id and drops its
        chunks from the BM25 totals (the caller deletes it)."""
        key = int.from_bytes(hashlib.sha256(path.encode()).digest()[:8], "big", signed=True)
        c.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
        row = c.execute("SELECT id FROM documents WHERE path = %s FOR UPDATE", (path,)).fetchone()
        return int(row[0]) if row else None

    def _drop(self, c: psycopg.Connection[Any], doc_id: int) -> tuple[int, int]:
        """Delete a document; returns (chunks, their total length) for the BM25 totals,
        which the caller updates as its transaction's last statement."""
        n, total = c.execute(
            "SELECT COUNT(*), COALESCE(SUM(length), 0) FROM chunks WHERE doc_id = %s", (doc_id,)
        ).fetchone() or (0, 0)
        c.execute("DELETE FROM documents WHERE id = %s", (doc_id,))
        return int(n), int(total)

    @staticmethod
    def _add_totals(c: psycopg.Connection[Any], n: int, length: int) -> None:
        """Move the BM25 totals by a transaction's net change: always its last statement,
        so the one row every writer updates is locked after any other row it locks (the
        embedding cache's) and held only for the commit. Taken earlier, as a rewrite's
        drop did, it deadlocked with a writer holding a cache row this one needed."""
        if n or length:
            c.execute(
                "UPDATE bm25_totals SET n_chunks = n_chunks + %s, "
                "total_length = total_length + %s WHERE id = 1",
                (n, length),
            )

    @_db
    def document_regions(self, path: str) -> list[Region] | None:
        row = self.conn.execute("SELECT regions FROM documents WHERE path = %s",
                                (path,)).fetchone()
        return regions_from_json(row[0]) if row else None

    def write_document(self, record: DocRecord, text: str, chunks: Sequence[StoredChunk],
                       regions: Sequence[Region] = ()) -> None:
        model_key = record.model_key
        space = None
        if chunks:
            dim = int(np.asarray(chunks[0].vector).shape[0])
            if record.dim and dim != record.dim:
                raise ModelMismatch(f"{record.path}: {dim}-d vectors for a {record.dim}-d model")
            space = self._space(model_key, dim, create=True)
        prepared = []
        for sc in chunks:
            tf, length = term_frequencies(sc.chunk.text)
            vec = np.ascontiguousarray(sc.vector, dtype=np.float32)
            if space is not None and vec.shape != (space[1],):
                raise ModelMismatch(
                    f"{record.path}: chunk {sc.chunk.ordinal} has a {vec.shape} vector, "
                    f"the model's space is {space[1]}-d"
                )
            bare = None
            if sc.bare_vector is not None:
                bare = np.ascontiguousarray(sc.bare_vector, dtype=np.float32)
                if bare.shape != vec.shape:
                    raise ModelMismatch(
                        f"{record.path}: chunk {sc.chunk.ordinal} has a {bare.shape} header-less "
                        f"vector beside a {vec.shape} one"
                    )
            tokens = token_blob(sc, vec.shape[0], record.path)
            prepared.append((sc, tf, length, vec, bare, tokens))
        c = self.conn
        try:
            with c.transaction():
                self._check_fence(c)
                old = self._lock_path(c, record.path)
                dropped_n, dropped_len = self._drop(c, old) if old is not None else (0, 0)
                row = c.execute(
                    f"INSERT INTO documents ({', '.join(DOCUMENT_COLUMNS)}) "
                    f"VALUES ({', '.join(['%s'] * len(DOCUMENT_COLUMNS))}) RETURNING id",
                    document_row(record, text, _now(), regions),
                ).fetchone()
                assert row is not None
                doc_id = int(row[0])
                if not prepared:
                    self._add_totals(c, -dropped_n, -dropped_len)
                    return
                ids = [
                    int(r[0]) for r in c.execute(
                        "SELECT nextval(pg_get_serial_sequence('chunks', 'id')) "
                        "FROM generate_series(1, %s)", (len(prepared),),
                    ).fetchall()
                ]
                cur = c.cursor()
                with cur.copy(
                    "COPY chunks (id, doc_id, ordinal, start_char, end_char, section, text, "
                    "content, locator, tokens, header_tokens, text_hash, model_key, length) "
                    "FROM STDIN"
                ) as cp:
                    for cid, (sc, _, length, *_) in zip(ids, prepared, strict=True):
                        ch = sc.chunk
                        cp.write_row((
                            cid, doc_id, ch.ordinal, ch.start, ch.end, ch.section, ch.text,
                            ch.content, json.dumps(locator_json(sc.locator)), sc.tokens,
                            sc.header_tokens, sc.text_hash, model_key, length,
                        ))
                assert space is not None
                with cur.copy(
                    sql.SQL(
                        "COPY {} (chunk_id, embedding, bare_embedding, token_vectors) FROM STDIN"
                    ).format(sql.Identifier(space[0]))
                ) as cp:
                    for cid, (_, _, _, vec, bare, tokens) in zip(ids, prepared, strict=True):
                        cp.write_row((cid, vec, bare, tokens))
                with cur.copy("COPY postings (term, chunk_id, tf) FROM STDIN") as cp:
                    for cid, (_, tf, *_) in zip(ids, prepared, strict=True):
                        for term, n in tf.items():
                            cp.write_row((term, cid, n))
                sentence_cache: dict[str, bytes] = {}
                if any(sc.sentences for sc, *_ in prepared):
                    with cur.copy(
                        "COPY sentences (chunk_id, start_char, end_char, text_hash, model_key, "
                        "embedding) FROM STDIN"
                    ) as cp:
                        for cid, (sc, *_) in zip(ids, prepared, strict=True):
                            for st in sc.sentences:
                                sv = np.ascontiguousarray(st.vector, dtype=np.float32)
                                if sv.shape != (space[1],):
                                    raise ModelMismatch(
                                        f"{record.path}: a sentence of chunk {sc.chunk.ordinal} "
                                        f"has a {sv.shape} vector, the model's space is "
                                        f"{space[1]}-d"
                                    )
                                cp.write_row((cid, st.start, st.end, st.text_hash, model_key, sv))
                                sentence_cache[st.text_hash] = sv.tobytes()
                # sorted, so two writers sharing texts lock cache rows in one order (no deadlock)
                cache = sorted(({sc.text_hash: vec.tobytes() for sc, _, _, vec, *_ in prepared}
                                | {sc.bare_hash: bare.tobytes() for sc, _, _, _, bare, _ in prepared
                                   if bare is not None}
                                | sentence_cache).items())
                cur.executemany(
                    "INSERT INTO embeddings (text_hash, model_key, vector) VALUES (%s, %s, %s) "
                    "ON CONFLICT DO NOTHING",
                    [(h, model_key, blob) for h, blob in cache],
                )
                self._add_totals(c, len(prepared) - dropped_n,
                                 sum(p[2] for p in prepared) - dropped_len)
        except psycopg.DataError as exc:  # a value PostgreSQL cannot hold (a NUL in text)
            raise DocumentRefused(record.path, f"PostgreSQL refused a value of it: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreUnavailable(f"{record.path}: cannot write the document: {exc}") from exc

    @_db
    def check_writable(self, what: str) -> None:
        """A server refuses a write when it is made (a read-only transaction or role):
        nothing here tells it beforehand."""

    def mark(self, path: str, root: str, state: str, reason: str) -> None:
        c = self.conn
        with c.transaction():
            self._check_fence(c)
            self._lock_path(c, path)
            c.execute(
                "INSERT INTO documents (path, root, state, reason, indexed_at) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT ((md5(path))) DO UPDATE SET "
                "root = excluded.root, state = excluded.state, reason = excluded.reason",
                (path, root, state, reason, _now()),
            )

    @_db
    def set_root(self, path: str, root: str) -> None:
        self.conn.execute("UPDATE documents SET root = %s WHERE path = %s", (root, path))

    @_db
    def remove_document(self, path: str) -> None:
        c = self.conn
        with c.transaction():
            self._check_fence(c)
            old = self._lock_path(c, path)
            if old is not None:
                self._add_totals(c, *(-x for x in self._drop(c, old)))

    # --- embedding cache --------------------------------------------------------------

    @_db
    def cached_vectors(self, text_hashes: Sequence[str], model_key: str) -> dict[str, np.ndarray]:
        hashes = list(dict.fromkeys(text_hashes))
        if not hashes:
            return {}
        rows = self.conn.execute(
            "SELECT text_hash, vector FROM embeddings WHERE model_key = %s "
            "AND text_hash = ANY(%s)",
            (model_key, hashes),
        ).fetchall()
        return {h: np.frombuffer(bytes(blob), dtype=np.float32) for h, blob in rows}

    @_db
    def cached_token_vectors(self, text_hashes: Sequence[str],
                             model_key: str) -> dict[str, np.ndarray]:
        """Token vectors of stored chunks by their embedded text's hash (header and
        content: the same hash, the same content, so the same token vectors). Unlike
        :meth:`cached_vectors` they live only with their chunks."""
        hashes = list(dict.fromkeys(text_hashes))
        space = self._space(model_key)
        if space is None or not hashes:
            return {}
        table, dim = space
        rows = self.conn.execute(
            sql.SQL(
                "SELECT DISTINCT ON (c.text_hash) c.text_hash, v.token_vectors "
                "FROM chunks c JOIN {} v ON v.chunk_id = c.id "
                "WHERE c.text_hash = ANY(%s) AND v.token_vectors IS NOT NULL "
                "ORDER BY c.text_hash, c.id"
            ).format(sql.Identifier(table)),
            (hashes,),
        ).fetchall()
        return {h: token_matrix(blob, dim) for h, blob in rows}

    # --- reads ------------------------------------------------------------------------

    @_db
    def token_vectors(self, ids: Sequence[int], model_key: str) -> dict[int, np.ndarray]:
        ids = list(dict.fromkeys(int(i) for i in ids))
        space = self._space(model_key)
        if space is None or not ids:
            return {}
        table, dim = space
        rows = self.conn.execute(
            sql.SQL(
                "SELECT chunk_id, token_vectors FROM {} "
                "WHERE chunk_id = ANY(%s) AND token_vectors IS NOT NULL"
            ).format(sql.Identifier(table)),
            (ids,),
        ).fetchall()
        return {int(i): token_matrix(blob, dim) for i, blob in rows}

    @_db
    def document_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """N from the BM25 totals row and each term's postings count, in one statement
        (one snapshot), as :meth:`bm25` reads them. Absent terms are left out."""
        terms = list(dict.fromkeys(terms))
        rows = self.conn.execute(
            "SELECT NULL::text, n_chunks FROM bm25_totals WHERE id = 1 "
            "UNION ALL "
            "SELECT term, COUNT(*) FROM postings WHERE term = ANY(%s::text[]) GROUP BY term",
            (terms,),
        ).fetchall()
        n = next((int(v) for t, v in rows if t is None), 0)
        return n, {t: int(v) for t, v in rows if t is not None}

    def dense(self, query: np.ndarray, k: int, model_key: str,
              bare: bool = False, only: Collection[int] | None = None) -> list[tuple[int, float]]:
        return self.dense_with(query, k, model_key, self.dense_mode, self.ef_search, bare, only)

    @_db
    def dense_with(
        self, query: np.ndarray, k: int, model_key: str, mode: DenseMode, ef_search: int,
        bare: bool = False, only: Collection[int] | None = None,
    ) -> list[tuple[int, float]]:
        """:meth:`dense` with an explicit mode and beam (benchmarks compare them).

        ``only`` (a document filter's chunks) goes into the scan's WHERE; through HNSW,
        a filter too small for the widest beam is ranked exactly, a wider one widens the
        beam and falls back to the exact ranking when it still comes back short of k
        (see the module docstring)."""
        space = self._space(model_key)
        if space is None or k <= 0:
            return []
        table, dim = space
        q = np.ascontiguousarray(query, dtype=np.float32)
        if q.shape != (dim,):
            raise ModelMismatch(f"query vector is {q.shape}, the model's space is {dim}-d")
        ids = None if only is None else list(dict.fromkeys(int(i) for i in only))
        if ids is not None and not ids:
            return []
        n = k * CANDIDATE_FACTOR
        c = self.conn
        share = 1.0
        if ids is not None and mode == "hnsw":
            share = self._share(c, len(ids))
            if share * HNSW_EF_SEARCH_MAX < n:
                mode = "exact"
        rows = self._nearest(c, table, q, n, mode, ef_search, bare, ids, share)
        if ids is not None and mode == "hnsw" and len(rows) < min(k, len(ids)):
            rows = self._nearest(c, table, q, n, "exact", ef_search, bare, ids, share)
        # <#> is the negative inner product, exact; for unit vectors -(<#>) = cosine
        ranked = sorted(((int(i), -float(neg)) for i, neg in rows), key=lambda t: (-t[1], t[0]))
        return ranked[:k]

    @staticmethod
    def _share(c: psycopg.Connection[Any], kept: int) -> float:
        """The part of the collection's chunks a filter keeping ``kept`` of them is."""
        row = c.execute("SELECT n_chunks FROM bm25_totals WHERE id = 1").fetchone()
        return kept / max(int(row[0]) if row else 0, kept, 1)

    @staticmethod
    def _nearest(c: psycopg.Connection[Any], table: str, q: np.ndarray, n: int,
                 mode: DenseMode, ef_search: int, bare: bool, ids: list[int] | None,
                 share: float) -> list[tuple[Any, Any]]:
        """The ``n`` nearest rows of ``table`` (chunk id, negative inner product), of the
        chunks ``ids`` when given; through HNSW the beam widened to n / ``share``."""
        with c.transaction():
            if mode == "exact":
                c.execute("SELECT set_config('enable_indexscan', 'off', true)")
            else:
                ef = min(max(ef_search, n, math.ceil(n / share)), HNSW_EF_SEARCH_MAX)
                n = min(n, ef)
                c.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
            # NULL where a chunk has no header-less vector (the HNSW index holds none;
            # the exact scan must skip them too)
            conditions = (["bare_embedding IS NOT NULL"] if bare else []) + (
                ["chunk_id = ANY(%(ids)s)"] if ids is not None else [])
            where = "WHERE " + " AND ".join(conditions) if conditions else ""
            return c.execute(
                sql.SQL(
                    "SELECT chunk_id, v <#> %(q)s FROM (SELECT chunk_id, {col} AS v FROM {t} "
                    "{where} ORDER BY {col} <=> %(q)s LIMIT %(n)s) c"
                ).format(col=sql.Identifier("bare_embedding" if bare else "embedding"),
                         t=sql.Identifier(table), where=sql.SQL(where)),
                {"q": q, "n": n, "ids": ids},
                # Both modes send this text, told apart by the settings above alone; a
                # statement psycopg prepared (its 5th run) keeps a generic plan made under
                # the settings of then, which PostgreSQL does not re-plan when they
                # change: an exact ranking after a few HNSW ones on one connection ran
                # the HNSW scan (dense_with's callers mix them). Never prepared, exact.
                prepare=False if mode == "exact" else None,
            ).fetchall()

    @_db
    def similarities(
        self, query: np.ndarray, chunk_ids: Sequence[int], model_key: str
    ) -> dict[int, float]:
        space = self._space(model_key)
        ids = list(dict.fromkeys(int(i) for i in chunk_ids))
        if space is None or not ids:
            return {}
        rows = self.conn.execute(
            sql.SQL("SELECT chunk_id, embedding <#> %s FROM {} WHERE chunk_id = ANY(%s)").format(
                sql.Identifier(space[0])
            ),
            (np.ascontiguousarray(query, dtype=np.float32), ids),
        ).fetchall()
        return {int(i): -float(neg) for i, neg in rows}

    @_db
    def bm25(self, terms: Sequence[str], k: int,
             only: Collection[int] | None = None) -> list[tuple[int, float]]:
        """Okapi BM25 in one statement, the formula of :mod:`citeline.retrieve.bm25`.

        ``q`` counts each query term's multiplicity (a repeated term adds again, as
        in the SQLite backend); ``df`` is n_t per term; N and avgdl come from the
        totals row written in the same transactions as the chunks. ``only`` limits
        the chunks scored, not ``df`` nor the totals.
        """
        ids = None if only is None else list(dict.fromkeys(int(i) for i in only))
        if not terms or k <= 0 or ids == []:
            return []
        rows = self.conn.execute(
            """
            WITH q AS (SELECT t AS term, COUNT(*) AS qf FROM unnest(%(terms)s::text[]) t GROUP BY t),
                 tot AS (SELECT n_chunks::float8 AS n,
                                total_length::float8 / NULLIF(n_chunks, 0) AS avgdl
                         FROM bm25_totals WHERE id = 1 AND n_chunks > 0 AND total_length > 0),
                 df AS (SELECT p.term, COUNT(*)::float8 AS n_t
                        FROM postings p JOIN q USING (term) GROUP BY p.term),
                 s AS (
                    SELECT p.chunk_id,
                           SUM(q.qf * ln(1.0 + (tot.n - df.n_t + 0.5) / (df.n_t + 0.5))
                               * p.tf * (%(k1)s + 1.0)
                               / (p.tf + %(k1)s * (1.0 - %(b)s + %(b)s * ch.length / tot.avgdl))
                           ) AS score
                    FROM postings p
                    JOIN q USING (term) JOIN df USING (term)
                    JOIN chunks ch ON ch.id = p.chunk_id
                    CROSS JOIN tot
                    {only}
                    GROUP BY p.chunk_id)
            SELECT chunk_id, score FROM s WHERE score > 0
            ORDER BY round(score::numeric, %(dec)s) DESC, chunk_id
            LIMIT %(k)s
            """.replace("{only}", "" if ids is None else "WHERE p.chunk_id = ANY(%(ids)s)"),
            {"terms": list(terms), "k1": K1, "b": B, "k": k, "dec": BM25_TIE_DECIMALS,
             "ids": ids},
        ).fetchall()
        return [(int(i), float(s)) for i, s in rows]

    def sentence_max(self, query: np.ndarray, k: int, model_key: str,
                     only: Collection[int] | None = None) -> list[tuple[int, float]]:
        return self.sentence_max_with(query, k, model_key, self.dense_mode, only=only)

    @_db
    def sentence_max_with(
        self, query: np.ndarray, k: int, model_key: str, mode: DenseMode,
        rows: int = SENTENCE_ROWS, ef_search: int = SENTENCE_EF_SEARCH,
        only: Collection[int] | None = None,
    ) -> list[tuple[int, float]]:
        """Each chunk's best sentence similarity, the ``k`` best chunks.

        "exact" scans every sentence vector of the model. "hnsw" takes the HNSW
        index's ``rows`` nearest sentences (beam ``ef_search``), re-scores them
        with the exact inner product and keeps each chunk's best: whenever those
        rows hold ``k`` chunks or more, the top ``k`` equals the exact ranking's (a
        chunk that beats the k-th has its best sentence among them), up to HNSW's
        own misses; when they hold fewer, fewer come back (a shallower third list,
        see :data:`SENTENCE_ROWS`).

        ``only`` (a document filter's chunks): their sentences alone, exactly when the
        filter is too small a share of the collection for the widest beam to hold
        ``rows`` of them, else through a beam widened to ``rows`` / share (see the
        module docstring).
        """
        space = self._space(model_key)
        if space is None or k <= 0:
            return []
        q = np.ascontiguousarray(query, dtype=np.float32)
        if q.shape != (space[1],):
            raise ModelMismatch(f"query vector is {q.shape}, the model's space is {space[1]}-d")
        ids = None if only is None else list(dict.fromkeys(int(i) for i in only))
        if ids is not None and not ids:
            return []
        c = self.conn
        share = 1.0
        if ids is not None and mode == "hnsw":
            share = self._share(c, len(ids))
            if share * HNSW_EF_SEARCH_MAX < rows:
                mode = "exact"
        if mode == "exact":
            ranked = c.execute(
                "SELECT chunk_id, MAX(-(embedding <#> %(q)s)) AS sim FROM sentences "
                "WHERE model_key = %(key)s {only}GROUP BY chunk_id "
                "ORDER BY sim DESC, chunk_id LIMIT %(k)s".replace(
                    "{only}", "" if ids is None else "AND chunk_id = ANY(%(ids)s) "),
                {"q": q, "key": model_key, "k": k, "ids": ids},
            ).fetchall()
            return [(int(i), float(s)) for i, s in ranked]
        ef = min(max(ef_search, rows, math.ceil(rows / share)), HNSW_EF_SEARCH_MAX)
        # The key and the dimension are literals, as in the partial index's
        # definition, so the planner can match it (a bound parameter may not). A
        # "%" in the key (a model folder may have one) is doubled: the statement
        # also has placeholders, and psycopg reads "%%" back as "%".
        key = sql.SQL(sql.Literal(model_key).as_string(c).replace("%", "%%"))
        with c.transaction():
            c.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
            nearest = c.execute(
                sql.SQL(
                    "SELECT chunk_id, embedding <#> %(q)s FROM sentences WHERE model_key = {} "
                    "{}ORDER BY embedding::vector({}) <=> %(q)s LIMIT %(n)s"
                ).format(key, sql.SQL("" if ids is None else "AND chunk_id = ANY(%(ids)s) "),
                         sql.Literal(space[1])),
                {"q": q, "n": min(rows, ef), "ids": ids},
            ).fetchall()
        best: dict[int, float] = {}
        for i, neg in nearest:
            best[int(i)] = max(best.get(int(i), -np.inf), -float(neg))
        return sorted(best.items(), key=lambda t: (-t[1], t[0]))[:k]

    @_db
    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        ids = list(dict.fromkeys(int(i) for i in ids))
        if not ids:
            return {}
        rows = self.conn.execute(
            "SELECT c.id, d.path, d.title, c.section, c.start_char, c.end_char, c.content, "
            "c.text, c.locator FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "WHERE c.id = ANY(%s)",
            (ids,),
        ).fetchall()
        return {r[0]: ChunkRow(*r[:8], locator_from(r[8])) for r in rows}

    @_db
    def chunk_ids_of(self, paths: Sequence[str]) -> set[int]:
        paths = list(dict.fromkeys(paths))
        if not paths:
            return set()
        rows = self.conn.execute(
            "SELECT c.id FROM unnest(%s::text[]) AS p(path) "
            "JOIN documents d ON d.path = p.path JOIN chunks c ON c.doc_id = d.id",
            (paths,),
        ).fetchall()
        return {int(r[0]) for r in rows}

    @_db
    def sections(self, ids: Sequence[int]) -> dict[int, tuple[int, str]]:
        ids = list(dict.fromkeys(int(i) for i in ids))
        if not ids:
            return {}
        rows = self.conn.execute(
            "SELECT id, doc_id, section FROM chunks WHERE id = ANY(%s)", (ids,)
        ).fetchall()
        return {int(r[0]): (int(r[1]), r[2]) for r in rows}

    @_db
    def all_chunks(self) -> list[ChunkRow]:
        """Every chunk, in document order (for evaluation and export)."""
        rows = self.conn.execute(
            "SELECT c.id, d.path, d.title, c.section, c.start_char, c.end_char, c.content, "
            "c.text, c.locator FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "ORDER BY d.path COLLATE \"C\", c.ordinal"
        ).fetchall()
        return [ChunkRow(*r[:8], locator_from(r[8])) for r in rows]

    @_db
    def stats(self) -> IndexStats:
        c = self.conn
        n, over, tok, htok = c.execute(
            "SELECT COALESCE(SUM(n_chunks), 0), COALESCE(SUM(n_over_window), 0), "
            "COALESCE(SUM(tokens), 0), COALESCE(SUM(header_tokens), 0) FROM documents"
        ).fetchone() or (0, 0, 0, 0)
        by_state = dict(c.execute("SELECT state, COUNT(*) FROM documents GROUP BY state").fetchall())
        return IndexStats(int(n), int(over), int(tok), int(htok), by_state)

    def check(self) -> None:
        """Nothing to read here: the server reports a damaged page itself when a
        statement reads it (checksummed, on a cluster with data checksums), and its own
        tools (amcheck) check a whole database; a full scan from here would read every
        vector over the network."""

    def _cache_bytes(self) -> int:
        return int(self.conn.execute(
            "SELECT pg_total_relation_size('embeddings')").fetchone()[0])

    @_db
    def compact(self, readers: Mapping[str, str] | None = None) -> CompactReport:
        c = self.conn
        before = self._cache_bytes()
        skips = 0
        with c.transaction():
            if readers is not None:  # the remembered skips no run asks for now
                stale = [(name, version) for name, version in c.execute(
                    "SELECT DISTINCT extractor, extractor_version FROM skipped_content")
                    if readers.get(name) != version]
                for pair in stale:
                    skips += c.execute("DELETE FROM skipped_content WHERE extractor = %s "
                                       "AND extractor_version = %s", pair).rowcount
            # what writers committed before this statement is kept; a row a writer adds
            # meanwhile comes with its own chunk's vector, so at worst a cache miss
            c.execute("CREATE TEMP TABLE kept_cache ON COMMIT DROP AS "
                      "SELECT text_hash, model_key FROM chunks UNION "
                      "SELECT text_hash, model_key FROM sentences UNION "
                      "SELECT encode(sha256(convert_to(content, 'UTF8')), 'hex'), model_key "
                      "FROM chunks")
            c.execute("CREATE INDEX ON kept_cache (text_hash, model_key)")
            c.execute("ANALYZE kept_cache")
            dropped = c.execute(
                "DELETE FROM embeddings e WHERE NOT EXISTS (SELECT 1 FROM kept_cache k "
                "WHERE k.text_hash = e.text_hash AND k.model_key = e.model_key)").rowcount
            kept = int(c.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])
        c.execute("VACUUM (ANALYZE) embeddings")  # the freed rows' space is reused
        return CompactReport(dropped, kept, before, self._cache_bytes(), skips)

    # --- job queue --------------------------------------------------------------------

    @_db
    def enqueue(self, files: Sequence[tuple[str, str, str]], force: bool = False) -> int:
        n = 0
        c = self.conn
        with c.transaction():
            for path, root, file in files:
                cur = c.execute(
                    "INSERT INTO jobs (path, root, file, force) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT ((md5(path))) WHERE state = 'queued' DO UPDATE SET "
                    "root = excluded.root, file = excluded.file, "
                    "force = jobs.force OR excluded.force "
                    "WHERE excluded.force AND NOT jobs.force",
                    (path, root, file, force),
                )
                n += cur.rowcount
        return n

    @_db
    def queued_roots(self, paths: Sequence[str]) -> dict[str, str]:
        rows = self.conn.execute(
            "SELECT path, root FROM jobs WHERE state = 'queued' AND path = ANY(%s)",
            (list(paths),),
        ).fetchall()
        return dict(rows)

    @_db
    def claim(self, worker: str, lease_seconds: float) -> Job | None:
        """The oldest queued job whose document no live worker is on, or a job whose
        lease expired (the lease its holder claimed it for, not ``lease_seconds``,
        which is this claim's); None when there is none.

        Claims are serialised (one short transaction under an advisory lock), so two
        workers never run jobs of the same path at once: a file re-uploaded while it
        is being indexed waits for that job, then is indexed from its newest bytes.
        An abandoned job superseded by a newer queued one is cancelled, not re-run.
        """
        lease = float(lease_seconds)
        c = self.conn
        with c.transaction():
            c.execute("SELECT pg_advisory_xact_lock(%s)", (CLAIM_LOCK,))
            c.execute(
                """
                UPDATE jobs r SET state = 'cancelled', token = '', finished_at = now(),
                       error = 'superseded by a newer job for the same document'
                WHERE r.state = 'running'
                  AND r.heartbeat_at
                      < now() - make_interval(secs => COALESCE(r.lease_seconds, %(lease)s))
                  AND EXISTS (SELECT 1 FROM jobs q WHERE q.path = r.path AND q.state = 'queued')
                """,
                {"lease": lease},
            )
            row = c.execute(
                """
                UPDATE jobs SET state = 'running', worker = %(w)s, token = %(tok)s,
                       attempts = attempts + 1, claimed_at = now(), heartbeat_at = now(),
                       lease_seconds = %(lease)s
                WHERE id = (
                    SELECT j.id FROM jobs j
                    WHERE (j.state = 'queued' AND NOT EXISTS (
                               SELECT 1 FROM jobs r WHERE r.path = j.path
                               AND r.state = 'running'
                               AND r.heartbeat_at >= now() - make_interval(
                                   secs => COALESCE(r.lease_seconds, %(lease)s))))
                       OR (j.state = 'running'
                           AND j.heartbeat_at < now() - make_interval(
                               secs => COALESCE(j.lease_seconds, %(lease)s)))
                    ORDER BY j.id LIMIT 1
                    FOR UPDATE SKIP LOCKED)
                RETURNING id, path, root, file, attempts, token, force
                """,
                {"w": worker, "tok": uuid.uuid4().hex, "lease": lease},
            ).fetchone()
        return Job(*row) if row else None

    @_db
    def cancel(self, path: str, reason: str) -> int:
        """Cancel every open job of ``path`` and hide its past failures (the document
        was deleted). A running job's token is cleared, so its fenced write is refused
        (the cancel waits for a write already in progress: that row is locked)."""
        cur = self.conn.execute(
            "UPDATE jobs SET state = 'cancelled', token = '', finished_at = now(), "
            "error = CASE WHEN state IN ('queued', 'running') THEN %s ELSE error END "
            "WHERE path = %s AND (state IN ('queued', 'running', 'failed') "
            "OR (state = 'done' AND outcome LIKE 'skipped:%%'))",
            (reason, path),
        )
        return cur.rowcount

    @_db
    def job_states(self, lease_seconds: float) -> dict[str, tuple[str, str]]:
        """The latest job of every path: path -> (state, error or outcome). A running job
        whose lease expired is reported ``queued`` (another worker will take it)."""
        rows = self.conn.execute(
            """
            SELECT DISTINCT ON (path) path,
                   CASE WHEN state = 'running'
                        AND heartbeat_at
                            < now() - make_interval(secs => COALESCE(lease_seconds, %s))
                        THEN 'queued' ELSE state END,
                   error, outcome
            FROM jobs WHERE state <> 'cancelled' ORDER BY path, id DESC
            """,
            (float(lease_seconds),),
        ).fetchall()
        return {path: (state, error or outcome) for path, state, error, outcome in rows}

    @_db
    def heartbeat(self, job: Job) -> bool:
        cur = self.conn.execute(
            "UPDATE jobs SET heartbeat_at = now() "
            "WHERE id = %s AND token = %s AND state = 'running'",
            (job.id, job.token),
        )
        return cur.rowcount == 1

    @_db
    def complete(self, job: Job, outcome: str) -> bool:
        cur = self.conn.execute(
            "UPDATE jobs SET state = 'done', outcome = %s, finished_at = now() "
            "WHERE id = %s AND token = %s AND state = 'running'",
            (outcome, job.id, job.token),
        )
        return cur.rowcount == 1

    @_db
    def fail(self, job: Job, error: str, retry: bool) -> bool:
        state = JobState.QUEUED if retry else JobState.FAILED
        cur = self.conn.execute(
            "UPDATE jobs SET state = %s, error = %s, token = '', "
            "finished_at = CASE WHEN %s = 'failed' THEN now() END "
            "WHERE id = %s AND token = %s AND state = 'running'",
            (str(state), error, str(state), job.id, job.token),
        )
        return cur.rowcount == 1

    @contextmanager
    def fenced(self, job: Job) -> Iterator[None]:
        prev = getattr(self._local, "fence", None)
        self._local.fence = job
        try:
            yield
        finally:
            self._local.fence = prev

    @_db
    def job_counts(self) -> dict[str, int]:
        rows = self.conn.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall()
        return {str(s): int(n) for s, n in rows}

    @_db
    def jobs(self) -> Iterator[dict[str, object]]:
        rows = self.conn.execute(
            "SELECT id, path, state, attempts, worker, outcome, error FROM jobs ORDER BY id"
        ).fetchall()
        return iter([
            {"id": id_, "path": path, "state": state, "attempts": attempts, "worker": worker,
             "outcome": outcome, "error": error}
            for id_, path, state, attempts, worker, outcome, error in rows
        ])


