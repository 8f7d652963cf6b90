"""Storage backends behind one :class:`Store` protocol.

The pipeline only ever talks to this protocol; ``sqlite`` is the embedded
default (one file, WAL mode), and further backends register in
:data:`BACKENDS` by URL scheme.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from citeline.types import AttachedPlace, Chunk, Locator, Region, RegionKind


@dataclass(frozen=True)
class DocRecord:
    """A document as the index knows it (everything ``status`` shows)."""

    path: str
    root: str
    state: str
    reason: str = ""
    title: str = ""
    media_type: str = ""
    content_hash: str = ""
    extractor: str = ""
    extractor_version: str = ""
    pipeline_version: str = ""
    model_id: str = ""
    weights_hash: str = ""
    dim: int = 0
    n_chunks: int = 0
    n_over_window: int = 0
    tokens: int = 0
    header_tokens: int = 0
    warnings: tuple[str, ...] = ()
    indexed_at: str = ""
    id: int = 0

    @property
    def model_key(self) -> str:
        return f"{self.model_id}@{self.weights_hash}/{self.dim}" if self.model_id else ""


def text_hash(text: str) -> str:
    """The embedding cache's key of a text: its UTF-8 bytes' SHA-256, in hex (what
    PostgreSQL's ``encode(sha256(convert_to(t, 'UTF8')), 'hex')`` gives too)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CompactReport:
    """What ``compact`` dropped and what the store's files take up around it (bytes;
    on PostgreSQL, the cache table and its index: freed space is reused by later
    writes, not handed back)."""

    cache_dropped: int
    cache_kept: int
    bytes_before: int
    bytes_after: int
    # remembered skips (content an extractor skipped for good) stamped with a reader's
    # version no extractor has now: never matched again, so dropped
    skips_dropped: int = 0

    def to_json(self) -> dict[str, int]:
        return dict(self.__dict__)


# The documents columns every backend writes, in this order (see document_row).
DOCUMENT_COLUMNS: tuple[str, ...] = (
    "path", "root", "state", "reason", "title", "media_type", "content_hash", "extractor",
    "extractor_version", "pipeline_version", "model_id", "weights_hash", "dim", "n_chunks",
    "n_over_window", "tokens", "header_tokens", "warnings", "indexed_at", "text", "regions",
)


def document_row(record: DocRecord, text: str, indexed_at: str,
                 regions: Sequence[Region] = ()) -> tuple[object, ...]:
    """The values of :data:`DOCUMENT_COLUMNS` for one document."""
    import json

    return (
        record.path, record.root, record.state, record.reason, record.title, record.media_type,
        record.content_hash, record.extractor, record.extractor_version, record.pipeline_version,
        record.model_id, record.weights_hash, record.dim, record.n_chunks, record.n_over_window,
        record.tokens, record.header_tokens, json.dumps(list(record.warnings)), indexed_at, text,
        regions_json(regions),
    )


# A region as a JSON array: kind, then these fields of :class:`Region` (a sheet's
# header text is left out: it is for the embedded text, not for locating). ``cells``
# came last, later, then ``label`` and ``box``: a map written before has up to three
# fields fewer.
_REGION_FIELDS = ("start", "end", "page", "t_start", "t_end", "sheet", "row", "first_col",
                  "last_col", "confidence", "cells", "label",  # label: a PDF page's printed number
                  "box")  # box: an image's line, x, y, width, height


def regions_json(regions: Sequence[Region]) -> str:
    """A document's region map (pages, cues, rows) as the text the stores keep, so an
    answer's sentence is located in its own page, cue or rows, not its chunk's."""
    import json

    return json.dumps([[r.kind.value, *(getattr(r, f) for f in _REGION_FIELDS)] for r in regions],
                      separators=(",", ":"))


def regions_from_json(raw: str | None) -> list[Region] | None:
    """The region map :func:`regions_json` wrote; None for a document written before
    the stores kept it (its answers' sentences are located as their chunk is)."""
    import json

    if raw is None:
        return None
    out = []
    for kind, *rest in json.loads(raw):
        fields = dict(zip(_REGION_FIELDS, rest, strict=False))
        if not len(_REGION_FIELDS) - 3 <= len(rest) <= len(_REGION_FIELDS):
            raise ValueError(f"a region with {len(rest)} fields: {rest!r}")
        fields["cells"] = tuple(fields.get("cells") or ())
        if fields.get("box") is not None:
            fields["box"] = tuple(fields["box"])
        out.append(Region(RegionKind(kind), **fields))
    return out


def locator_json(loc: Locator) -> dict[str, object]:
    """A chunk's locator as the JSON object the stores keep (SQLite as text, PostgreSQL
    as jsonb)."""
    return {
        "start": loc.start, "end": loc.end, "pages": list(loc.pages), "t_start": loc.t_start,
        "t_end": loc.t_end, "sheet_range": loc.sheet_range, "ocr_confidence": loc.ocr_confidence,
        "slides": list(loc.slides), "page_labels": list(loc.page_labels),
        "xywh": list(loc.xywh) if loc.xywh is not None else None,
        "attached": [[a.file, a.unit, list(a.numbers), a.range] for a in loc.attached],
    }


def locator_from(d: dict[str, Any]) -> Locator:
    """The locator :func:`locator_json` wrote (a key added later is absent from older rows)."""
    return Locator(
        start=d["start"], end=d["end"], pages=tuple(d.get("pages") or ()),
        t_start=d.get("t_start"), t_end=d.get("t_end"), sheet_range=d.get("sheet_range"),
        ocr_confidence=d.get("ocr_confidence"), slides=tuple(d.get("slides") or ()),
        page_labels=tuple(d.get("page_labels") or ()),
        xywh=tuple(d["xywh"]) if d.get("xywh") is not None else None,
        attached=tuple(AttachedPlace(file, unit, tuple(numbers), *rest)
                       for file, unit, numbers, *rest in d.get("attached") or ()),
    )


@dataclass(frozen=True)
class StoredSentence:
    """One sentence of a chunk's content and its vector (the sentence-level dense list).

    ``start``/``end`` are document offsets inside the owning chunk's range;
    ``text_hash`` is the hash of the embedded text (header + sentence), the
    embedding cache's key.
    """

    start: int
    end: int
    vector: np.ndarray
    text_hash: str


@dataclass(frozen=True)
class StoredChunk:
    """A chunk ready to write: the chunker's output plus what the indexer computed."""

    chunk: Chunk
    locator: Locator
    vector: np.ndarray
    tokens: int
    header_tokens: int
    text_hash: str
    # Written in the same transaction as the chunk, dropped with it; empty for an
    # index built before sentence vectors existed (search then falls back).
    sentences: tuple[StoredSentence, ...] = ()
    # The chunk's content embedded without its header (the "section" fusion's dense
    # list; docs/retrieval-experiments.md, section 21), stored with the sentence
    # vectors; None when the index keeps none. The same as ``vector`` for a chunk
    # without a header. ``bare_hash`` is its text's hash, the embedding cache's key.
    bare_vector: np.ndarray | None = None
    bare_hash: str = ""
    # The content's token vectors, int8 (citeline.retrieve.late.quantize), one row per
    # wordpiece (special tokens and punctuation dropped): the "late" fusion's fourth
    # list (docs/retrieval-experiments.md, section 23). Stored with the sentence
    # vectors; None when the index keeps none.
    token_vectors: np.ndarray | None = None


@dataclass(frozen=True)
class ChunkRow:
    """A chunk read back for display (one query for many ids, never N+1)."""

    id: int
    document: str
    title: str
    section: str
    start: int
    end: int
    content: str
    text: str
    locator: Locator


def token_blob(sc: StoredChunk, dim: int, path: str) -> bytes | None:
    """A chunk's token vectors as the bytes both stores keep (int8, row-major), or None.
    A matrix that is not int8, not ``dim`` wide (another model's) or empty (the late
    list's maximum over a chunk's tokens needs one) is refused, naming the chunk."""
    if sc.token_vectors is None:
        return None
    tv = np.asarray(sc.token_vectors)
    where = f"{path}: chunk {sc.chunk.ordinal}"
    if tv.dtype != np.int8:
        raise ValueError(f"{where} has {tv.dtype} token vectors, not int8 "
                         "(citeline.retrieve.late.quantize)")
    if tv.ndim != 2 or tv.shape[1] != dim or not len(tv):
        from citeline.errors import ModelMismatch

        raise ModelMismatch(f"{where} has {tv.shape} token vectors beside a {dim}-d vector")
    return np.ascontiguousarray(tv).tobytes()


def token_matrix(blob: bytes, dim: int) -> np.ndarray:
    """Stored token-vector bytes back to their (n, dim) int8 matrix."""
    return np.frombuffer(bytes(blob), dtype=np.int8).reshape(-1, dim)


@dataclass
class IndexStats:
    chunks: int = 0
    over_window: int = 0
    tokens: int = 0
    header_tokens: int = 0
    by_state: dict[str, int] = field(default_factory=dict)


class Store(Protocol):
    """What the pipeline needs from a storage backend."""

    # Whether a new index on this backend stores sentence vectors (the default
    # fusion's third list) unless told otherwise.
    default_sentences: bool

    def get_setting(self, key: str, default: str | None = None) -> str | None: ...
    def set_setting(self, key: str, value: str) -> None: ...

    def skip_reason(self, content_hash: str, extractor: str, version: str) -> str | None:
        """Why ``extractor`` at ``version`` skipped this content before, or None."""
        ...

    def remember_skip(self, content_hash: str, extractor: str, version: str, reason: str) -> None:
        """Keep why ``extractor`` at ``version`` skipped this content for good (an
        :class:`~citeline.errors.UnsupportedFormat` that is ``lasting``)."""
        ...

    def documents(self) -> list[DocRecord]: ...
    def document(self, path: str) -> DocRecord | None: ...
    def document_text(self, path: str) -> str | None: ...

    def document_regions(self, path: str) -> list[Region] | None:
        """The document's region map (see :func:`regions_from_json`); None when the
        document is unknown or was written before the map was kept."""
        ...

    def check_writable(self, what: str) -> None:
        """Raise :class:`~citeline.errors.StoreUnavailable` if the store is known, before
        any write, to refuse ``what`` (a document about to be read and embedded)."""
        ...

    def write_document(self, record: DocRecord, text: str, chunks: Sequence[StoredChunk],
                       regions: Sequence[Region] = ()) -> None:
        """Replace a document, its region map and all its chunks in ONE transaction."""
        ...

    def mark(self, path: str, root: str, state: str, reason: str) -> None:
        """Set a document's state and reason, creating the record if needed; chunks stay."""
        ...

    def set_root(self, path: str, root: str) -> None:
        """Record that an unchanged document's file is now under ``root`` (its folder
        was moved); nothing else changes."""
        ...

    def remove_document(self, path: str) -> None: ...

    def cached_vectors(self, text_hashes: Sequence[str], model_key: str) -> dict[str, np.ndarray]: ...

    def cached_token_vectors(self, text_hashes: Sequence[str],
                             model_key: str) -> dict[str, np.ndarray]:
        """The int8 token vectors of stored chunks whose embedded text has one of these
        hashes (same header and content, so the same content), by hash; chunks without
        token vectors are left out."""
        ...

    def token_vectors(self, ids: Sequence[int], model_key: str) -> dict[int, np.ndarray]:
        """The int8 token vectors, (n, dim), of the given chunks embedded with
        ``model_key``; chunks without them (or gone) are left out."""
        ...

    def document_frequencies(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of chunks, {term: chunks holding it}) for BM25 terms: the IDF the
        "late" fusion weighs query tokens by."""
        ...

    def dense(self, query: np.ndarray, k: int, model_key: str,
              bare: bool = False, only: Collection[int] | None = None) -> list[tuple[int, float]]:
        """(chunk id, cosine similarity) of the k nearest chunks of ``model_key``, by
        their embedded text, or with ``bare`` by their content embedded without the
        header ([] when no chunk has such a vector). ``only``: rank these chunks alone
        (a document filter, :meth:`chunk_ids_of`), applied before the cut, so the k
        nearest of them come back however few they are among the index's."""
        ...

    def similarities(
        self, query: np.ndarray, chunk_ids: Sequence[int], model_key: str
    ) -> dict[int, float]:
        """Cosine similarity of the given chunks embedded with ``model_key``."""
        ...

    def bm25(self, terms: Sequence[str], k: int,
             only: Collection[int] | None = None) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of the k best chunks with a positive score; ``only``
        as for :meth:`dense`. N, each term's n_t and avgdl stay the whole index's, so a
        chunk scores the same with or without a filter."""
        ...

    def sentence_max(self, query: np.ndarray, k: int, model_key: str,
                     only: Collection[int] | None = None) -> list[tuple[int, float]]:
        """(chunk id, max cosine similarity over the chunk's sentences) of the k best
        chunks, best first, ties by chunk id; [] when no sentence of ``model_key`` exists.
        ``only`` as for :meth:`dense`."""
        ...

    def chunk_ids_of(self, paths: Sequence[str]) -> set[int]:
        """The ids of the chunks of these documents (paths as :meth:`documents` names
        them; unknown ones add nothing): what a document filter lets a search rank."""
        ...

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]: ...

    def all_chunks(self) -> list[ChunkRow]:
        """Every chunk, in document order (evaluation, export, ``adapt``)."""
        ...

    def sections(self, ids: Sequence[int]) -> dict[int, tuple[int, str]]:
        """Each chunk's section key, (document id, heading path), for the "section"
        fusion; ids no longer present are left out."""
        ...

    def stats(self) -> IndexStats: ...

    def check(self) -> None:
        """Raise :class:`~citeline.errors.StoreUnavailable` if the stored data is found
        damaged (pages a search would fail on, or read wrong), naming what to do."""
        ...

    def compact(self, readers: Mapping[str, str] | None = None) -> CompactReport:
        """Drop the embedding-cache rows no stored chunk, header-less chunk or sentence
        uses (texts of removed or edited documents, another model's vectors), then give
        the space back as far as the backend can. With ``readers`` (extractor name ->
        the version a remembered skip of it is asked for by now), also the remembered
        skips of any other version."""
        ...

    def close(self) -> None: ...


StoreFactory = Callable[[str, bool], Store]  # (location, create)


def _postgres(location: str, create: bool) -> Store:
    # imported on use: psycopg and pgvector are an optional extra
    from citeline.store.postgres import PostgresStore

    return PostgresStore(location, create=create)


BACKENDS: dict[str, StoreFactory] = {"postgresql": _postgres, "postgres": _postgres}


def open_store(location: str | Path, create: bool = True) -> Store:
    """Open the store at ``location``: a folder (SQLite) or a registered URL scheme."""
    loc = str(location)
    scheme = loc.split("://", 1)[0] if "://" in loc else ""
    if scheme:
        from citeline.errors import ConfigError

        factory = BACKENDS.get(scheme)
        if factory is None:
            raise ConfigError(f"--store: no backend for '{scheme}://' URLs")
        return factory(loc, create)
    from citeline.store.sqlite import SQLiteStore

    return SQLiteStore(Path(loc), create=create)
