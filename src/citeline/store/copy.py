"""Copy a SQLite index into PostgreSQL without re-embedding anything.

Everything the index knows goes across as it is: documents (with their text,
region map and versions), chunks (same ids, offsets, locators), vectors (the same float32
bytes, header-less ones included), BM25 postings, sentence vectors, the embedding
cache, the contents skipped for good (so a copied index's next run does not read its
photographs again) and the settings. The rows are loaded in one transaction with COPY, and the
HNSW indexes are built once at the end (much faster than growing them row by row).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psycopg

from citeline.errors import ConfigError, StoreUnavailable
from citeline.store.postgres import PostgresStore, redact
from citeline.store.sqlite import SQLiteStore

# Rows fetched from SQLite per round trip while streaming a table across.
BATCH = 2000


@dataclass
class CopyReport:
    documents: int = 0
    chunks: int = 0
    vectors: int = 0
    sentences: int = 0
    postings: int = 0
    embeddings: int = 0
    skips: int = 0
    settings: int = 0
    spaces: tuple[str, ...] = ()
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {**self.__dict__, "spaces": list(self.spaces), "seconds": round(self.seconds, 3)}


def _batches(cur):  # type: ignore[no-untyped-def]
    while rows := cur.fetchmany(BATCH):
        yield from rows


def copy_sqlite_to_postgres(src_dir: str | Path, dst_url: str) -> CopyReport:
    """Copy the SQLite index in ``src_dir`` into the (empty) PostgreSQL store at ``dst_url``."""
    t0 = time.perf_counter()
    src = SQLiteStore(Path(src_dir), create=False)
    dst = PostgresStore(dst_url, create=True)
    try:
        try:
            report = _copy(src, dst)
        except psycopg.Error as exc:
            raise StoreUnavailable(f"{redact(dst_url)}: the copy failed, nothing was written: "
                                   f"{exc}") from exc
        try:
            dst.build_vector_indexes()
        except (psycopg.Error, StoreUnavailable) as exc:
            raise StoreUnavailable(
                f"{redact(dst_url)}: every row was copied, but building the vector indexes "
                f"failed (searches scan exactly until they exist; `citeline migrate --store "
                f"URL` builds them): {exc}") from exc
    finally:
        src.close()
        dst.close()
    report.seconds = time.perf_counter() - t0
    return report


def _copy(src: SQLiteStore, dst: PostgresStore) -> CopyReport:
    report = CopyReport()
    if dst.documents():
        raise ConfigError("--to: that store already holds documents; copy into an empty one")
    s = src.conn
    c = dst.conn
    with c.transaction():  # the vector tables too: a failed copy leaves the store as it was
        spaces: dict[str, str] = {}
        for key, blob in s.execute(
            "SELECT model_key, vector FROM chunks GROUP BY model_key"
        ).fetchall():
            space = dst._space(key, len(blob) // 4, create=True, index=False)
            assert space is not None
            spaces[key] = space[0]
        report.spaces = tuple(sorted(spaces.values()))
        cur = c.cursor()
        with cur.copy(
            "COPY documents (id, path, root, state, reason, title, media_type, content_hash, "
            "extractor, extractor_version, pipeline_version, model_id, weights_hash, dim, "
            "n_chunks, n_over_window, tokens, header_tokens, warnings, indexed_at, text, "
            "regions) FROM STDIN"
        ) as cp:
            for row in _batches(s.execute(
                "SELECT id, path, root, state, reason, title, media_type, content_hash, "
                "extractor, extractor_version, pipeline_version, model_id, weights_hash, dim, "
                "n_chunks, n_over_window, tokens, header_tokens, warnings, indexed_at, text, "
                "regions FROM documents ORDER BY id"
            )):
                cp.write_row(row)
                report.documents += 1
        with cur.copy(
            "COPY chunks (id, doc_id, ordinal, start_char, end_char, section, text, content, "
            "locator, tokens, header_tokens, text_hash, model_key, length) FROM STDIN"
        ) as cp:
            for row in _batches(s.execute(
                "SELECT id, doc_id, ordinal, start, end, section, text, content, locator, "
                "tokens, header_tokens, text_hash, model_key, length FROM chunks ORDER BY id"
            )):
                cp.write_row(row)
                report.chunks += 1
        from psycopg import sql

        for key, table in spaces.items():
            with cur.copy(
                sql.SQL("COPY {} (chunk_id, embedding, bare_embedding, token_vectors) "
                        "FROM STDIN").format(sql.Identifier(table))
            ) as cp:
                for cid, blob, bare, toks in _batches(s.execute(
                    "SELECT id, vector, bare_vector, token_vectors FROM chunks "
                    "WHERE model_key = ? ORDER BY id",
                    (key,),
                )):
                    cp.write_row((cid, np.frombuffer(blob, dtype=np.float32),
                                  None if bare is None else np.frombuffer(bare, dtype=np.float32),
                                  toks))
                    report.vectors += 1
        with cur.copy(
            "COPY sentences (id, chunk_id, start_char, end_char, text_hash, model_key, "
            "embedding) FROM STDIN"
        ) as cp:
            for sid, cid, start, end, h, key, blob in _batches(s.execute(
                "SELECT id, chunk_id, start, end, text_hash, model_key, vector FROM sentences "
                "ORDER BY id"
            )):
                cp.write_row((sid, cid, start, end, h, key, np.frombuffer(blob, dtype=np.float32)))
                report.sentences += 1
        with cur.copy("COPY postings (term, chunk_id, tf) FROM STDIN") as cp:
            for row in _batches(s.execute("SELECT term, chunk_id, tf FROM postings")):
                cp.write_row(row)
                report.postings += 1
        # the target's own cache may hold some of these texts (a store whose documents
        # were all removed keeps it): through a scratch table, the rows it lacks
        c.execute("CREATE TEMP TABLE copied_embeddings (LIKE embeddings) ON COMMIT DROP")
        with cur.copy("COPY copied_embeddings (text_hash, model_key, vector) FROM STDIN") as cp:
            for row in _batches(s.execute("SELECT text_hash, model_key, vector FROM embeddings")):
                cp.write_row(row)
                report.embeddings += 1
        c.execute("INSERT INTO embeddings (text_hash, model_key, vector) SELECT text_hash, "
                  "model_key, vector FROM copied_embeddings ON CONFLICT DO NOTHING")
        # likewise the skips (the copy's own, newer, win over the target's)
        c.execute("CREATE TEMP TABLE copied_skips (LIKE skipped_content) ON COMMIT DROP")
        with cur.copy("COPY copied_skips (content_hash, extractor, extractor_version, reason) "
                      "FROM STDIN") as cp:
            for row in _batches(s.execute("SELECT content_hash, extractor, extractor_version, "
                                          "reason FROM skipped_content")):
                cp.write_row(row)
                report.skips += 1
        c.execute("INSERT INTO skipped_content SELECT * FROM copied_skips ON CONFLICT "
                  "(content_hash, extractor) DO UPDATE SET extractor_version = "
                  "excluded.extractor_version, reason = excluded.reason")
        # the generation, the chunk log's start and the file's id are the SQLite file's own
        for key, value in s.execute("SELECT key, value FROM settings "
                                    "WHERE key NOT IN ('generation', 'log_from', 'index_id')"):
            c.execute(
                "INSERT INTO settings (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
            report.settings += 1
        c.execute(
            "UPDATE bm25_totals SET n_chunks = t.n, total_length = t.total FROM "
            "(SELECT COUNT(*) AS n, COALESCE(SUM(length), 0) AS total FROM chunks) t "
            "WHERE bm25_totals.id = 1"
        )
        for table in ("documents", "chunks", "sentences"):
            c.execute(
                sql.SQL(
                    "SELECT setval(pg_get_serial_sequence(%s, 'id'), "
                    "GREATEST((SELECT MAX(id) FROM {}), 1))"
                ).format(sql.Identifier(table)),
                (table,),
            )
    return report
