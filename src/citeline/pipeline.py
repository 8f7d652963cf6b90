"""The only place the stages are wired together.

``Index`` is what the CLI, the server and the Python API use::

    idx = citeline.open_index("my-index")
    report = idx.index("docs/")                  # extract -> chunk -> embed -> store
    hits = idx.search("how do I ...", k=20)      # dense + BM25 -> RRF
    hits = idx.search("how do I ...", mode="rerank")  # ... -> cross-encoder (local weights)
    answer = idx.ask("how do I ...")             # ... -> gate -> cited answer or NO ANSWER
    hits = idx.search("how do I ...", documents=["handbook/**"])  # those documents only
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import numpy as np

from citeline.adapt import QUERY_MAP_ID_SETTING, QueryMap, read_query_map
from citeline.chunk import (
    DEFAULT_BUDGET,
    MAX_BUDGET,
    MIN_BUDGET,
    ChunkConfig,
    bare_text,
    chunk_document,
    locate,
    locate_in,
    missing_context,
)
from citeline.config import load_settings
from citeline.embed import (
    DEFAULT_MODEL_WORD,
    Embedder,
    ModelIdentity,
    custom_model_path,
    load_embedder,
    model_identity,
    stopped_between_groups,
)
from citeline.errors import (
    CiteError,
    ConfigError,
    DocumentRefused,
    ExtractionError,
    ModelMismatch,
    ModelUnavailable,
    UnmatchedDocuments,
    UnsupportedFormat,
)
from citeline.extract import (
    current_version,
    extractor_for,
    extractor_versions,
    fingerprint,
    ocr,
    why_unsupported,
)
from citeline.extract.transcript import (
    MEDIA_SUFFIXES,
    companion,
    is_sidecar_skip,
    media_for,
    sidecar_for,
)
from citeline.gate import (
    DEFAULT_THRESHOLD,
    GateResult,
    Lookup,
    code_rows,
    column_texts,
    gate,
    lookup,
    no_column_reason,
    refusal_line,
)
from citeline.rerank import (
    Reranker,
    fused_with_retrieval,
    load_reranker,
    rerank_order,
    shortlist_size,
)
from citeline.retrieve import late, scope
from citeline.retrieve.bm25 import TOKENIZER_VERSION, key_terms, tokenize
from citeline.retrieve.bm25 import terms as bm25_terms
from citeline.retrieve.fuse import (
    FUSIONS,
    LATE_CANDIDATES,
    LATE_WEIGHT,
    SECTION_WEIGHT,
    SENTENCE_FUSIONS,
    SENTENCE_RRF_K,
    Fusion,
    convex,
    rrf,
    section_lift,
)
from citeline.sentences import (
    SENTENCE_SIGNATURE,
    fence_starts,
    row_sentences,
    sentence_text,
    split_sentences,
)
from citeline.store import (
    ChunkRow,
    CompactReport,
    DocRecord,
    Store,
    StoredChunk,
    StoredSentence,
    open_store,
    text_hash,
)
from citeline.types import (
    STRATEGIES,
    Answer,
    Citation,
    DocState,
    Document,
    Hit,
    Locator,
    Mode,
    Region,
    RegionKind,
    Strategy,
)

if TYPE_CHECKING:  # the answer stage is imported when asked for: search needs none of it
    from citeline.answer import Extractive, Generator

PIPELINE_VERSION = "1"
# all-MiniLM-L6-v2's max_seq_length: status needs no model load to know it.
BUNDLED_WINDOW = 256
# The setting that remembers the embedding model folder an index was written with
# ("" for the bundled model).
MODEL_PATH_SETTING = "model_path"
# Stamped into the pipeline version beside the sentence signature: an index that stores
# sentence vectors also stores each chunk's content embedded without its header (the
# "section" fusion's dense list, docs/retrieval-experiments.md section 21), so a document
# indexed before shows as stale and `reindex --stale` adds them.
BARE_SIGNATURE = "bare-v1"
# And so, since section 23, each chunk's content token vectors (the "late" fusion).
TOKENS_SIGNATURE = "tok-v1"
# Each ranked list handed to RRF is cut at this depth: deep enough that a chunk
# ranked well by one retriever and ~200th by the other still gets both votes,
# shallow enough that the fusion costs microseconds.
FUSION_DEPTH = 200
# `ask` gates the top of the fused list; 25 is the chapter's rerank shortlist.
ASK_CANDIDATES = 25
# Hybrid search's fusion: dense + BM25 + best-sentence lists, the dense and sentence
# lists lifted by their section's best (issue 7; docs/retrieval-experiments.md,
# section 15), and the top 100 of those re-scored by late interaction over the
# model's token vectors as a fourth list (section 23). On an index without token
# vectors it runs "section", without sentence vectors "rrf", the chapter's faithful
# port (dense + BM25, k = 60: the SPEC's fusion, still one flag away); the others
# are in retrieve/fuse.py.
DEFAULT_FUSION: Fusion = "late"
# Up to this many files (a queue worker's job, one file or a recording and its
# transcript) look up the documents they could already be, one lookup per folder above
# them; more read the whole document list once (a folder's walk).
FEW_FILES = 8
# A new index stores sentence vectors (the default fusion's third list), on a
# backend that can search them fast enough (Store.default_sentences: SQLite by a
# numpy scan, PostgreSQL through an HNSW index per model).
DEFAULT_SENTENCES = True


@dataclass
class IndexReport:
    """What one indexing run did, counted by the indexer itself."""

    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    # folders the walk could not list ("sub/", reason): their documents are kept as they are
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    # (old, new) model keys when this run moved the index to another embedding model
    model_switch: tuple[str, str] | None = None
    chunks_written: int = 0
    over_window: int = 0
    embedded: int = 0  # vectors computed by the model in this run
    reused: int = 0  # vectors taken from the cache (identical text, same model)
    sentences_written: int = 0  # sentence vectors stored (the sentence-level list)
    sentences_embedded: int = 0  # of which computed by the model in this run
    bare_embedded: int = 0  # header-less chunk vectors computed by the model in this run
    tokens_embedded: int = 0  # chunks whose token vectors the model computed in this run
    warnings: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed and not self.unreadable

    def to_json(self) -> dict[str, object]:
        return {
            "indexed": len(self.indexed),
            "unchanged": len(self.unchanged),
            "failed": [{"document": p, "reason": r} for p, r in self.failed],
            "removed": len(self.removed),
            "skipped": [{"document": p, "reason": r} for p, r in self.skipped],
            "unreadable_folders": [{"folder": p, "reason": r} for p, r in self.unreadable],
            "model_switch": (None if self.model_switch is None else
                             {"from": self.model_switch[0], "to": self.model_switch[1]}),
            "chunks_written": self.chunks_written,
            "over_window": self.over_window,
            "embedded": self.embedded,
            "reused": self.reused,
            "sentences_written": self.sentences_written,
            "sentences_embedded": self.sentences_embedded,
            "bare_embedded": self.bare_embedded,
            "tokens_embedded": self.tokens_embedded,
            "warnings": [{"document": p, "warning": w} for p, w in self.warnings],
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class DocStatus:
    record: DocRecord
    stale_reasons: tuple[str, ...]

    @property
    def state(self) -> str:
        if self.record.state == DocState.INDEXED and self.stale_reasons:
            return DocState.STALE
        return self.record.state

    def to_json(self) -> dict[str, object]:
        r = self.record
        return {
            "document": r.path,
            "title": r.title,
            "state": self.state,
            "reason": "; ".join(self.stale_reasons) if self.stale_reasons else r.reason,
            "chunks": r.n_chunks,
            "over_window": r.n_over_window,
            "content_hash": r.content_hash,
            "extractor": r.extractor,
            "extractor_version": r.extractor_version,
            "pipeline_version": r.pipeline_version,
            "model_id": r.model_id,
            "weights_hash": r.weights_hash,
            "dim": r.dim,
            "warnings": list(r.warnings),
            "indexed_at": r.indexed_at,
        }


@dataclass(frozen=True)
class SearchResult:
    query: str
    mode: Mode
    hits: tuple[Hit, ...]
    timings: dict[str, float]  # milliseconds per stage
    # the fusion hybrid mode (and rerank's shortlist) really used: "sentence" falls back
    # to "rrf" on an index without sentence vectors (until `reindex --stale`)
    fusion: str = ""
    # the documents a filtered search ranked (those its patterns matched); None: all
    documents: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "query": self.query,
            "mode": self.mode,
            "fusion": self.fusion,
            "hits": [h.to_json() for h in self.hits],
            "timings_ms": {k: round(v, 3) for k, v in self.timings.items()},
        }
        if self.documents is not None:  # (an unfiltered search's object is as it was)
            out["documents"] = list(self.documents)
        return out


@dataclass(frozen=True)
class DocumentScope:
    """A document filter resolved once per search or question: the entries as given,
    the indexed documents they matched, and those documents' chunks, the only ones
    any ranked list may hold."""

    patterns: tuple[str, ...]
    documents: tuple[str, ...]
    chunk_ids: frozenset[int]

    def describe(self, shown: int = 5) -> str:
        """"2 documents matching 'handbook/**': handbook/a.md, handbook/b.md" (the
        first ``shown`` names, then how many more)."""
        n = len(self.documents)
        pats = ", ".join(repr(p) for p in self.patterns)
        names = ", ".join(self.documents[:shown]) + (
            f" and {n - shown} more" if n > shown else "")
        return f"{n} document{'s' if n != 1 else ''} matching {pats}: {names}"


def _without_nul(doc: Document) -> Document:
    """``doc`` with the NUL characters a file's metadata may carry (a PDF's Title, a
    bookmark) dropped from what is stored beside its text: no store keeps NUL in text
    (PostgreSQL refuses it, and refused the whole run)."""
    if "\x00" not in doc.title and not any("\x00" in w for w in doc.warnings) and not any(
            "\x00" in h.title for h in doc.outline):
        return doc
    return replace(
        doc, title=doc.title.replace("\x00", ""),
        warnings=tuple(w.replace("\x00", "") for w in doc.warnings),
        outline=tuple(h._replace(title=h.title.replace("\x00", "")) for h in doc.outline))


class Index:
    """A citeline index: a store plus the pipeline settings it was built with."""

    def __init__(
        self,
        location: str | Path,
        *,
        embedder: Embedder | None = None,
        model_path: str | None = None,
        model_id: str | None = None,
        create: bool = True,
        reranker: Reranker | None = None,
        rerank_model: str | None = None,
        rerank_candidates: int | None = None,
    ) -> None:
        self.location = str(location)
        self.store: Store = open_store(location, create=create)
        self._embedder = embedder
        self._model_path = model_path or None
        self._model_id = model_id or None
        # The cross-encoder for mode "rerank": an instance, or a local folder loaded
        # on first use (see citeline.rerank; no weights are bundled).
        self._reranker = reranker
        self._rerank_model = rerank_model or None
        # (stamp, map) of the last query map read (citeline adapt --query-map)
        self._query_map: tuple[str, QueryMap | None] = ("", None)
        # whether a sheet chunk's token vectors may be reused (see _sheet_tokens_reusable)
        self._sheet_tokens_ok: bool | None = None
        if rerank_candidates is not None and rerank_candidates < 1:
            raise ConfigError(f"rerank_candidates: must be at least 1, got {rerank_candidates}")
        # None: the reranker's own shortlist (a cross-encoder's RERANK_CANDIDATES)
        self._rerank_candidates = rerank_candidates

    # --- settings ---------------------------------------------------------------------

    @property
    def strategy(self) -> Strategy:
        s = self.store.get_setting("strategy", "E") or "E"
        return s if s in STRATEGIES else "E"  # type: ignore[return-value]

    @property
    def chunk_config(self) -> ChunkConfig:
        if self._embedder is not None or custom_model_path(self.model_path) is not None:
            window = self.embedder.window  # another model's window is its own: load it
        else:
            window = BUNDLED_WINDOW  # the bundled model's, known without loading it
        return ChunkConfig(strategy=self.strategy, budget=self.budget, window=window)

    @property
    def budget(self) -> int:
        """Characters per chunk (the index's `budget` setting, default 512)."""
        raw = self.store.get_setting("budget", str(DEFAULT_BUDGET)) or str(DEFAULT_BUDGET)
        try:
            return int(raw)
        except ValueError as exc:
            raise ConfigError(f"{self.location}: setting budget: not an integer: {raw!r}") from exc

    @property
    def ocr_languages(self) -> str:
        """The Tesseract language packs this index reads scanned pages and images with
        (its ``ocr_languages`` setting, "+"-joined; default English, ``eng``)."""
        return self.store.get_setting("ocr_languages") or ocr.DEFAULT_LANGUAGES

    def set_ocr_languages(self, languages: str) -> None:
        """Read pictures with other language packs (each checked to be installed);
        documents then show as stale (the pipeline version names the languages) until
        re-indexed, which reads them again (their unchanged chunks keep their vectors)."""
        self.store.set_setting("ocr_languages", ocr.checked_languages(languages))

    def set_budget(self, budget: int) -> None:
        """Change the chunk budget; documents chunked with another budget then
        show as stale (the chunk signature names the budget) until re-indexed."""
        _check_budget(budget)
        self.store.set_setting("budget", str(int(budget)))

    @property
    def sentence_vectors(self) -> bool:
        """Whether this index stores sentence vectors (the third list of the default
        "section" fusion, and of "sentence").

        A new index stores them (:data:`DEFAULT_SENTENCES` and the store's
        ``default_sentences``, set at its first write): they, with each chunk's
        header-less vector stored beside them, cost ~3.5x the index-time embedding
        and ~3.5x the disk, for the held-out gains of docs/retrieval-experiments.md,
        sections 15 and 21. An index written before the
        setting existed has none and keeps it that way (search falls back to "rrf")
        until ``index --sentences`` and a re-index.
        """
        return (self.store.get_setting("sentences", "0") or "0") == "1"

    def stored_query_map(self) -> QueryMap | None:
        """The query map stored in this index (``citeline adapt --query-map``), for
        whichever model it was fitted with; re-read only when its stamp changes."""
        stamp = self.store.get_setting(QUERY_MAP_ID_SETTING) or ""
        if stamp != self._query_map[0]:
            self._query_map = (stamp, read_query_map(self.store) if stamp else None)
        return self._query_map[1]

    def query_map(self) -> np.ndarray | None:
        """The matrix search applies to the query for the dense list, or None: none
        stored, or one fitted for another model than the one searching."""
        qm = self.stored_query_map()
        return qm.matrix if qm is not None and qm.model == self.embedder.identity.key else None

    @property
    def hybrid_fusion(self) -> Fusion:
        """The fusion hybrid search runs here by default: :data:`DEFAULT_FUSION`, or
        "rrf" when that needs sentence vectors this index does not store."""
        if DEFAULT_FUSION in SENTENCE_FUSIONS and not self.sentence_vectors:
            return "rrf"
        return DEFAULT_FUSION

    def set_sentence_vectors(self, on: bool) -> None:
        """Turn sentence vectors on or off; documents then show as stale (the pipeline
        version names them) until re-indexed, which adds or drops them."""
        self.store.set_setting("sentences", "1" if on else "0")

    def _settle_sentence_setting(self) -> None:
        # At the first write an index without the setting takes the default; one that
        # already holds chunks was built before the setting existed, without them.
        if self.store.get_setting("sentences") is None:
            self.set_sentence_vectors(
                DEFAULT_SENTENCES and self.store.default_sentences and self.store.stats().chunks == 0
            )

    @property
    def threshold(self) -> float:
        return float(self.store.get_setting("threshold", str(DEFAULT_THRESHOLD)) or DEFAULT_THRESHOLD)

    def set_threshold(self, value: float) -> None:
        if not 0.0 < value <= 2.0:
            raise ConfigError(f"threshold: must be in (0, 2], got {value}")
        self.store.set_setting("threshold", repr(float(value)))

    def set_strategy(self, strategy: str) -> None:
        _check_strategy(strategy)
        self.store.set_setting("strategy", strategy)

    @property
    def model_path(self) -> str | None:
        """The embedding model's folder: as given (``default``: the bundled model),
        else the one this index was last written with (None: the bundled model), so
        an index built with ``--model PATH`` is searched with that model without
        naming it again. A remembered folder that is gone is an error naming it."""
        if self._model_path is not None:
            return self._model_path
        stored = self.store.get_setting(MODEL_PATH_SETTING) or None
        if stored is not None and not Path(stored).is_dir():
            raise ModelUnavailable(
                f"{self.location}: this index was built with the embedding model at {stored}, "
                "which is not there any more: pass --model PATH to where it is now, or "
                f"--model {DEFAULT_MODEL_WORD} (the bundled model) and run "
                "`citeline reindex --stale` to re-embed with it")
        return stored

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = load_embedder(self.model_path, self._model_id)
        return self._embedder

    @property
    def reranker(self) -> Reranker:
        """The cross-encoder of mode "rerank"; ModelUnavailable (naming the path,
        and saying that none is bundled) when no local folder holds one."""
        if self._reranker is None:
            self._reranker = load_reranker(self._rerank_model)
        return self._reranker

    @property
    def rerank_candidates(self) -> int:
        """How many fused hits mode "rerank" re-scores: as given, else the reranker's own
        default (loading it; :func:`citeline.rerank.shortlist_size`)."""
        if self._rerank_candidates is not None:
            return self._rerank_candidates
        return shortlist_size(self.reranker)

    @property
    def identity(self) -> ModelIdentity:
        """The current model's identity, without loading the model when possible."""
        if self._embedder is not None:
            return self._embedder.identity
        return model_identity(self.model_path, self._model_id)

    def pipeline_version(self) -> str:
        version = f"p{PIPELINE_VERSION}|{self.chunk_config.signature()}|bm25:{TOKENIZER_VERSION}"
        version += ocr.signature(self.ocr_languages)
        return (f"{version}|{SENTENCE_SIGNATURE}|{BARE_SIGNATURE}|{TOKENS_SIGNATURE}"
                if self.sentence_vectors else version)

    # --- status -----------------------------------------------------------------------

    def status(self) -> list[DocStatus]:
        ident = self.identity
        versions = extractor_versions()
        pv = self.pipeline_version()
        out = []
        for r in self.store.documents():
            reasons: list[str] = []
            if r.state == DocState.INDEXED:
                if r.model_key != ident.key:
                    reasons.append(f"embedded with {r.model_key}, index model is {ident.key}")
                if r.pipeline_version != pv:
                    reasons.append(f"pipeline {r.pipeline_version} != {pv}")
                cur = current_version(r.extractor, r.extractor_version, versions)
                if cur is not None and cur != r.extractor_version:
                    reasons.append(f"extractor {r.extractor} {r.extractor_version} -> {cur}")
            out.append(DocStatus(r, tuple(reasons)))
        return out

    # --- indexing ---------------------------------------------------------------------

    def index(
        self, path: str | Path, strategy: str | None = None, progress: bool = False,
        budget: int | None = None, sentences: bool | None = None,
        stop: Callable[[], None] | None = None, ocr_languages: str | None = None,
    ) -> IndexReport:
        """Index a folder (recursively) or one file; see :class:`IndexReport`.
        ``budget`` (characters per chunk), ``sentences`` (store sentence vectors
        for ``fusion="sentence"``) and ``ocr_languages`` (the Tesseract language packs
        pictures are read with, "eng+deu") are stored as the index's settings. ``stop`` is
        called before each file and each group of texts embedded: one that raises
        (:class:`~citeline.errors.IndexingCancelled`) ends the run there, the file
        being read unwritten (a server deleting the collection being indexed)."""
        t0 = time.perf_counter()
        # every check before the first setting is stored: a rejected run changes nothing
        root = existing_path(path)
        if strategy is not None:
            _check_strategy(strategy)
        if budget is not None:
            _check_budget(budget)
        if ocr_languages is not None:
            ocr_languages = ocr.checked_languages(ocr_languages)
        if strategy is not None and strategy != self.strategy:
            self.set_strategy(strategy)
        if budget is not None and budget != self.budget:
            self.set_budget(budget)
        if sentences is not None and (
            sentences != self.sentence_vectors or self.store.get_setting("sentences") is None
        ):
            self.set_sentence_vectors(sentences)
        if ocr_languages is not None and ocr_languages != self.ocr_languages:
            self.set_ocr_languages(ocr_languages)
        # a file is named as given (a link keeps its own name, as a folder's walk names it)
        root = root.resolve() if root.is_dir() else root.parent.resolve() / root.name
        report = IndexReport()
        # the documents a file that is gone could be: those in the index when the walk
        # began (one another run writes meanwhile is not in this walk's listing)
        records = self.store.documents()
        before = {r.path for r in records}
        if not root.is_dir():  # a file, or a pipe or device (_supported says why not)
            files = [(root, root.name)]
            base = root.parent
            other = companion(root)  # a recording and its transcript are indexed together
            if other is not None:
                files.append((other, other.name))
        else:
            files, base = self.listed(root, report), root
        seen = {rel for _, rel in files}
        own, kept_key, moving = self.keys(files, base, records)
        self._index_files(_supported(own, report), str(base), report, progress, stop=stop)
        for outer_root, pairs in kept_key.items():
            self._index_files(_supported(pairs, report), outer_root, report, progress,
                              stop=stop)
        self._moved(moving, base, report)
        if root.is_dir():
            unlisted = tuple("" if f == "./" else f for f, _ in report.unreadable)  # "sub/"
            for rec in self.store.documents():
                if any(rec.path.startswith(f) for f in unlisted):
                    continue  # not seen because its folder could not be read, not gone
                if rec.path not in before:
                    continue  # indexed by another run while this one walked
                gone = rec.root == str(base) and rec.path not in seen
                # a subfolder indexed on its own whose file is gone: this walk covers it
                orphan = rec.root != str(base) and _below(Path(rec.root), base) and _gone(rec)
                if gone or orphan:
                    self.store.remove_document(rec.path)
                    report.removed.append(rec.path)
        report.seconds = time.perf_counter() - t0
        return report

    def keys(
        self, files: Sequence[tuple[Path, str]], base: Path,
        records: Sequence[DocRecord] | None = None,
    ) -> tuple[list[tuple[Path, str]], dict[str, list[tuple[Path, str]]], list[tuple[str, DocRecord]]]:
        """The document key of each (file, path under ``base``): a document is keyed by
        its path under the folder it was indexed from, and a file reached again from
        another folder stays one document. Returns the files keyed here; those a folder
        indexed before that holds ``base`` already keys (by that folder, under its key);
        and (new key, record) of documents indexed before from a folder below ``base``,
        which move to their key here (see :meth:`_moved`). ``records``: the index's
        documents, if the caller has read them; a few files look theirs up instead."""
        if records is None:
            records = (self._records_of(files, base) if len(files) <= FEW_FILES
                       else self.store.documents())
        by_file: dict[Path, list[DocRecord]] = {}
        for r in records:
            if r.root:
                by_file.setdefault(Path(r.root) / r.path, []).append(r)
        own: list[tuple[Path, str]] = []
        kept_key: dict[str, list[tuple[Path, str]]] = {}
        moving: list[tuple[str, DocRecord]] = []
        for f, rel in files:
            others = [r for r in by_file.get(base / rel, []) if r.root != str(base)]
            outer = next((r for r in others if not _below(Path(r.root), base)), None)
            if outer is not None:
                kept_key.setdefault(outer.root, []).append((f, outer.path))
                continue
            moving.extend((rel, r) for r in others)
            own.append((f, rel))
        return own, kept_key, moving

    def _records_of(self, files: Sequence[tuple[Path, str]], base: Path) -> list[DocRecord]:
        """The documents that could be ``files`` already: a document is its folder plus
        its path, so only a file's path under one of its folders can name it (a lookup
        per folder above the file, not a read of every document: a queue worker's job
        in a store of many documents)."""
        found: dict[str, DocRecord] = {}
        for _, rel in files:
            parts = (base / rel).parts
            for i in range(1, len(parts)):
                path = "/".join(parts[i:])
                if path not in found and (r := self.store.document(path)) is not None:
                    found[path] = r
        return list(found.values())

    def _moved(self, moving: Sequence[tuple[str, DocRecord]], base: Path,
               report: IndexReport) -> None:
        """A document indexed before from a folder below ``base`` goes once its file is
        in under its key here (so a failure keeps the old record searchable)."""
        for rel, old in moving:
            if self._holds(rel, str(base)):
                self.store.remove_document(old.path)
                report.removed.append(old.path)

    def index_files(
        self, files: Sequence[tuple[Path, str]], root: str, progress: bool = False,
        force: bool = False,
    ) -> IndexReport:
        """Index exactly these (file, document path) pairs under ``root``: no walk;
        unchanged content is skipped unless ``force`` (what a queue worker does with a
        job). A document of the same file indexed before from a folder below ``root``
        is removed once this one is in, as :meth:`index` moves it."""
        t0 = time.perf_counter()
        report = IndexReport()
        self._index_files(_supported(files, report), root, report, progress, force=force)
        _, _, moving = self.keys(files, Path(root))
        self._moved([(rel, old) for rel, old in moving if old.path != rel], Path(root), report)
        report.seconds = time.perf_counter() - t0
        return report

    def retry(self, progress: bool = False) -> IndexReport:
        """Re-try every failed document from its original file."""
        return self._redo([r for r in self.store.documents() if r.state == DocState.FAILED], progress)

    def reindex_stale(self, progress: bool = False) -> IndexReport:
        """Re-index every document whose model, pipeline or extractor version is out of date."""
        return self._redo([s.record for s in self.status() if s.state == DocState.STALE], progress)

    def reindex(self, paths: Sequence[str], progress: bool = False,
                stop: Callable[[], None] | None = None) -> IndexReport:
        """Re-index the named documents from their original files, whatever their state.

        Unknown paths are ignored; the server's per-document "retry" uses this. ``stop``:
        as :meth:`index`'s.
        """
        wanted = set(paths)
        return self._redo([r for r in self.store.documents() if r.path in wanted], progress,
                          stop)

    def remove(self, path: str) -> bool:
        """Remove one document and its chunks from the index; False if it was not there."""
        if self.document(path) is None:
            return False
        self.store.remove_document(path)
        return True

    def check(self) -> None:
        """Raise :class:`~citeline.errors.StoreUnavailable` if the index's stored data is
        found damaged (``status`` runs it first): a damaged page of its chunks surfaced
        only when a search read it."""
        self.store.check()

    def compact(self) -> CompactReport:
        """Drop the embedding cache's vectors that no document in the index uses any more
        (removed or edited documents, another model's) and give their space back. A text
        added again later is embedded again. Also dropped: the remembered skips of a
        reader's older version (or of other OCR languages than the index's), which no
        run asks for again."""
        sign = ocr.signature(self.ocr_languages)
        return self.store.compact({name: version + sign
                                   for name, version in extractor_versions().items()})

    def gone(self) -> list[str]:
        """The documents whose original file is no longer there (``remove --missing``)."""
        return [r.path for r in self.store.documents() if _gone(r)]

    def document(self, path: str) -> DocRecord | None:
        """The index's record of ``path`` (None if it holds none)."""
        if not _is_text(path):  # bytes no name in the index can be
            return None
        return self.store.document(path)

    def document_text(self, path: str) -> str | None:
        """The canonical text every offset of ``path``'s chunks refers to (None if unknown)."""
        return self.store.document_text(path)

    def _redo(self, records: Sequence[DocRecord], progress: bool,
              stop: Callable[[], None] | None = None) -> IndexReport:
        t0 = time.perf_counter()
        report = IndexReport()
        by_root: dict[str, list[tuple[Path, str]]] = {}
        for r in records:
            by_root.setdefault(r.root, []).append((Path(r.root) / r.path, r.path))
        for root, files in by_root.items():
            self._index_files(files, root, report, progress, force=True, stop=stop)
        report.seconds = time.perf_counter() - t0
        return report

    def listed(self, root: Path, report: IndexReport) -> list[tuple[Path, str]]:
        """The documents of folder ``root``, one per file (:func:`one_per_file`); the
        other names of a file go to ``report.skipped``, and folders that cannot be
        listed to ``report.unreadable`` ("sub/", or "./" for ``root`` itself)."""
        errors: list[OSError] = []
        files = one_per_file(list(self._walk(root, errors)), report)
        for exc in errors:
            folder = Path(exc.filename or root)
            rel = "" if folder == root else folder.relative_to(root).as_posix()
            report.unreadable.append((rel + "/" if rel else "./", (
                f"cannot list the folder: {exc.strerror or exc}; its documents are kept "
                "as they were")))
        return files

    def _walk(self, root: Path, errors: list[OSError]) -> Iterator[tuple[Path, str]]:
        """The folder's files (and links to folders, for _supported to name), hidden
        names and the index's own folder left out; folders that cannot be listed go
        to ``errors``."""
        index_dir = Path(self.location).resolve() if "://" not in self.location else None
        for dirpath, dirnames, filenames in os.walk(root, onerror=errors.append):
            d = Path(dirpath)
            dirnames[:] = sorted(
                n for n in dirnames if not n.startswith(".") and (d / n).resolve() != index_dir
            )
            for n in [n for n in dirnames if (d / n).is_symlink()]:
                dirnames.remove(n)  # os.walk does not follow it; _supported says so
                yield d / n, (d / n).relative_to(root).as_posix()
            for name in sorted(filenames):
                if name.startswith("."):
                    continue
                f = d / name
                yield f, f.relative_to(root).as_posix()

    def _index_files(
        self,
        files: Sequence[tuple[Path, str]],
        root: str,
        report: IndexReport,
        progress: bool,
        force: bool = False,
        stop: Callable[[], None] | None = None,
    ) -> None:
        # the identity from the model's files: a run whose documents are all unchanged
        # never loads the model (~5-10 s of imports), which only chunking and embedding need
        ident = self.identity
        switched = self._check_model_setting(ident)
        if switched:
            report.model_switch = switched
        self._settle_sentence_setting()
        pv = self.pipeline_version()
        versions = extractor_versions()
        # one file at a time, read to written: a long run keeps what it has done when it
        # is interrupted, and holds one document in memory, not the whole folder's
        bar = _progress(len(files), progress)
        try:
            with stopped_between_groups(stop), ocr.reading_in(self.ocr_languages):
                for f, rel in files:
                    if stop is not None:
                        stop()
                    self._index_file(f, rel, root, report, ident, pv, versions, force)
                    bar.update(1)
        finally:
            bar.close()

    def _index_file(self, f: Path, rel: str, root: str, report: IndexReport,
                    ident: ModelIdentity, pv: str, versions: dict[str, str],
                    force: bool) -> None:
        """Index one file as document ``rel`` under ``root``, into ``report``."""
        old = self.store.document(rel)
        if old is not None and old.root and old.root != root and (Path(old.root) / rel).is_file():
            # a document is keyed by its path under the folder indexed: a second
            # folder's file of the same name would silently replace the first's
            report.skipped.append((rel, f"{Path(old.root) / rel} is indexed under the same "
                                        "name; index the folder that holds both instead"))
            return
        # from here the document is this folder's (its old folder's file is gone: moved),
        # so a failure below records this folder, where `retry` and `remove --missing` look
        try:
            digest = fingerprint(f)
        except OSError as exc:
            self._fail(rel, root, f"cannot read file: {exc.strerror or exc}", report)
            return
        if (
            not force
            and old is not None
            and old.state == DocState.INDEXED
            and old.content_hash == digest
            and old.pipeline_version == pv
            and old.model_key == ident.key
            and current_version(old.extractor, old.extractor_version, versions)
            == old.extractor_version
        ):
            if old.root != root:  # the folder was moved: its files are now here
                self.store.set_root(rel, root)
            report.unchanged.append(rel)
            return
        self.store.check_writable(rel)  # before the document is read and embedded
        config = self.chunk_config
        extractor, reader = None, ""
        try:
            extractor = extractor_for(f)
            # content an extractor skipped for good before (an image with no text) is
            # not read again: telling took it seconds of OCR
            # (what OCR did not find in one language may be text in another)
            reader = extractor.version + ocr.signature(ocr.languages())
            known = self.store.skip_reason(digest, extractor.name, reader)
            if known is not None:
                raise UnsupportedFormat(rel, known)
            doc = extractor.extract(f, rel)
            if "\x00" in doc.text:  # whatever the format: no store keeps it as text
                raise ExtractionError(rel, "the extracted text holds NUL characters (binary "
                                           "data), not text")
            doc = _without_nul(doc)
            chunks = chunk_document(doc, config, self.embedder.count_tokens)
            if not chunks:
                raise ExtractionError(rel, "no text to index after extraction")
        except UnsupportedFormat as exc:
            report.skipped.append((rel, exc.reason))
            if exc.lasting and extractor is not None:
                self.store.remember_skip(digest, extractor.name, reader, exc.reason)
            # e.g. a transcript whose recording appeared: its words are indexed as the
            # recording's, so its own document goes, but only once the recording's is
            # in (else when that is written, below): if the recording fails, they stay
            media = media_for(f) if is_sidecar_skip(exc.reason) else None
            if old is not None and (media is None or self._holds(_sibling(rel, media.name), root)):
                self.store.remove_document(rel)
                report.removed.append(rel)
            return
        except ExtractionError as exc:
            self._fail(rel, root, exc.reason, report)
            return
        except Exception as exc:  # a third-party parser's bug fails this file alone
            self._fail(rel, root, f"extractor crashed: {type(exc).__name__}: {exc}", report)
            return
        for w in doc.warnings:
            report.warnings.append((rel, w))
        stored = self._embed_chunks(doc, chunks, ident, report)
        n_over = sum(1 for s in stored if s.tokens > config.window)
        rec = DocRecord(
            path=rel, root=root, state=DocState.INDEXED, title=doc.title,
            media_type=doc.media_type, content_hash=digest, extractor=doc.extractor,
            extractor_version=doc.extractor_version, pipeline_version=pv,
            model_id=ident.model_id, weights_hash=ident.weights_hash, dim=ident.dim,
            warnings=doc.warnings, n_chunks=len(stored), n_over_window=n_over,
            tokens=sum(s.tokens for s in stored),
            header_tokens=sum(s.header_tokens for s in stored),
        )
        try:
            self.store.write_document(rec, doc.text, stored, doc.regions)
        except DocumentRefused as exc:  # this document's values, not the store: the run goes on
            self._fail(rel, root, exc.reason, report)
            return
        report.indexed.append(rec.path)
        report.chunks_written += len(stored)
        report.sentences_written += sum(len(s.sentences) for s in stored)
        report.over_window += n_over
        side = sidecar_for(f) if f.suffix.lower() in MEDIA_SUFFIXES else None
        if side is not None:  # its transcript, indexed on its own before, is in here now
            side_rel = _sibling(rel, side.name)
            held = self.store.document(side_rel)
            if held is not None and held.root == root:
                self.store.remove_document(side_rel)
                report.removed.append(side_rel)

    def _holds(self, rel: str, root: str) -> bool:
        """Whether document ``rel`` of folder ``root`` is indexed."""
        rec = self.store.document(rel)
        return rec is not None and rec.root == root and rec.state == DocState.INDEXED

    def _embed_chunks(
        self, doc: Document, chunks: list, ident: ModelIdentity, report: IndexReport
    ) -> list[StoredChunk]:
        vectors, hashes, n = self._embed_through_cache([c.text for c in chunks], ident, {})
        report.embedded += n
        report.reused += len(chunks) - n
        counts = self.embedder.count_tokens([c.text for c in chunks])
        content_counts = self.embedder.count_tokens([c.content for c in chunks])
        sentences: list[tuple[StoredSentence, ...]] = [() for _ in chunks]
        bare: list[np.ndarray | None] = [None for _ in chunks]
        bare_hashes = ["" for _ in chunks]
        tokens: list[np.ndarray | None] = [None for _ in chunks]
        if self.sentence_vectors:
            sentences = self._embed_sentences(doc, chunks, ident, report)
            bare, bare_hashes, tokens = self._embed_contents(chunks, hashes, vectors, ident,
                                                             report)
        return [
            StoredChunk(
                chunk=c,
                locator=locate(doc, c.start, c.end),
                vector=v,
                tokens=n,
                header_tokens=max(0, n - m) if c.header_chars else 0,
                text_hash=h,
                sentences=ss,
                bare_vector=bv,
                bare_hash=bh,
                token_vectors=tv,
            )
            for c, v, n, m, h, ss, bv, bh, tv in zip(
                chunks, vectors, counts, content_counts, hashes, sentences, bare, bare_hashes,
                tokens, strict=True,
            )
        ]

    def _embed_contents(
        self, chunks: list, hashes: list[str], vectors: list[np.ndarray], ident: ModelIdentity,
        report: IndexReport,
    ) -> tuple[list[np.ndarray | None], list[str], list[np.ndarray | None]]:
        """Each chunk's content embedded without its header: (header-less vectors, their
        content hashes, token vectors as int8). Both come from one forward pass over a
        content where the embedder gives both (``embed_with_tokens``); each is reused
        where the index has it: a header-less vector by its content's hash (a chunk with
        no header has its own vector as its header-less one), token vectors by the
        embedded text's hash (so the same content). Token vectors are None for all when
        the embedder cannot give them (the index then searches by "section").

        A sheet's chunk is embedded after its header row (:func:`~citeline.chunk.bare_text`);
        its token vectors are reused by the embedded text's hash only when no document
        of the index is stale by its extractor (:meth:`_sheet_tokens_reusable`)."""
        contents = [bare_text(c) for c in chunks]
        bare_hashes = [text_hash(t) for t in contents]
        bare = {**self.store.cached_vectors(bare_hashes, ident.key),
                **dict(zip(hashes, vectors, strict=True))}
        with_tokens = getattr(self.embedder, "embed_with_tokens", None)
        reuse_sheets = self._sheet_tokens_reusable() if any(c.context for c in chunks) else False
        reusable = [h for h, c in zip(hashes, chunks, strict=True)
                    if not c.context or reuse_sheets]
        tokens = ({} if with_tokens is None or not reusable
                  else self.store.cached_token_vectors(reusable, ident.key))
        need = [i for i, (b, h) in enumerate(zip(bare_hashes, hashes, strict=True))
                if b not in bare or (with_tokens is not None and h not in tokens)]
        first = {bare_hashes[i]: i for i in reversed(need)}  # a content read once
        todo = list(first)
        if with_tokens is None:
            bare.update(zip(todo, self.embedder.embed([contents[first[b]] for b in todo]),
                            strict=True))
            report.bare_embedded += len(todo)
        elif todo:
            fresh = dict(zip(todo, with_tokens([contents[first[b]] for b in todo]), strict=True))
            for b, (vec, _) in fresh.items():
                if b not in bare:
                    bare[b] = vec
                    report.bare_embedded += 1
            for i in need:
                if hashes[i] not in tokens:
                    tokens[hashes[i]] = late.quantize(fresh[bare_hashes[i]][1].vectors)
                    report.tokens_embedded += 1
        return ([bare[b] for b in bare_hashes], bare_hashes,
                [tokens.get(h) for h in hashes])

    def _sheet_tokens_reusable(self) -> bool:
        """Whether a sheet chunk's stored token vectors may be reused by its embedded
        text's hash. A sheet indexed before its extractor's version 5 holds token vectors
        of its rows alone under the same hash (the header row came in with version 5),
        so none is reused while any document is stale by its extractor: the run that
        re-indexes them computes them afresh, and the runs after it reuse them (an
        edited 10,000-row sheet: one chunk re-embedded, not 668). Asked once per
        ``Index``."""
        if self._sheet_tokens_ok is None:
            versions = extractor_versions()
            self._sheet_tokens_ok = not any(
                r.state == DocState.INDEXED
                and current_version(r.extractor, r.extractor_version, versions)
                not in (None, r.extractor_version)
                for r in self.store.documents())
        return self._sheet_tokens_ok

    def _embed_sentences(
        self, doc: Document, chunks: list, ident: ModelIdentity, report: IndexReport
    ) -> list[tuple[StoredSentence, ...]]:
        """Every chunk's sentences (see citeline.sentences), embedded through the
        store's cache like chunk texts: unchanged sentences are never re-embedded. A
        sheet's sentences are its rows, each embedded after the sheet's header row
        (the chunk's ``context``)."""
        rows = [r for r in doc.regions if r.kind is RegionKind.ROW]
        if rows:
            headers = tuple({r.header for r in rows if r.header})
            spans = [row_sentences(doc.text, c.start, c.end, headers) for c in chunks]
        else:
            fences = fence_starts(doc.text)
            spans = [split_sentences(doc.text, c.start, c.end, fences) for c in chunks]
        texts = [sentence_text(c.section, f"{c.context}\n{doc.text[s:e]}" if c.context
                               else doc.text[s:e])
                 for c, sp in zip(chunks, spans, strict=True) for s, e in sp]
        vectors, hashes, n = self._embed_through_cache(texts, ident, {})
        report.sentences_embedded += n
        out: list[tuple[StoredSentence, ...]] = []
        j = 0
        for sp in spans:
            out.append(tuple(
                StoredSentence(s, e, vectors[j + n], hashes[j + n])
                for n, (s, e) in enumerate(sp)
            ))
            j += len(sp)
        return out

    def _embed_through_cache(
        self, texts: list[str], ident: ModelIdentity, known: dict[str, np.ndarray]
    ) -> tuple[list[np.ndarray], list[str], int]:
        """(vectors, hashes) of the texts, and how many the model embedded: a text seen
        before (``known``, the store's cache, or earlier in ``texts``) never is again."""
        hashes = [text_hash(t) for t in texts]
        cached = {**self.store.cached_vectors(hashes, ident.key), **known}
        todo = list(dict.fromkeys(h for h in hashes if h not in cached))
        if todo:
            first = {h: i for i, h in reversed(list(enumerate(hashes)))}
            fresh = self.embedder.embed([texts[first[h]] for h in todo])
            cached.update(zip(todo, fresh, strict=True))
        return [cached[h] for h in hashes], hashes, len(todo)

    def _fail(self, rel: str, root: str, reason: str, report: IndexReport) -> None:
        old = self.store.document(rel)
        if old is not None and old.n_chunks:
            chunks = f"{old.n_chunks} chunk{'' if old.n_chunks == 1 else 's'}"
            reason = f"{reason} (the previously indexed version, {chunks}, is still searchable)"
        self.store.mark(rel, root, DocState.FAILED, reason)
        report.failed.append((rel, reason))

    def _check_model_setting(self, ident: ModelIdentity) -> tuple[str, str] | None:
        """The index's model is the one that last wrote to it; documents embedded
        with any other model show as stale and are never compared with it. Returns
        (old, new) model keys when this write moved the index to another model while
        documents of the old one are still in it (a run that forgot --model)."""
        # the folder is remembered for the next run that names none (an embedder
        # handed in that names no folder leaves it as it was)
        if self._embedder is not None:
            path = getattr(self._embedder, "model_path", None)
        else:  # the folder `embedder` would load, without loading it
            path = self.model_path or DEFAULT_MODEL_WORD
        if path is not None:
            custom = custom_model_path(path)
            remembered = str(custom.resolve()) if custom is not None else ""
            if (self.store.get_setting(MODEL_PATH_SETTING) or "") != remembered:
                self.store.set_setting(MODEL_PATH_SETTING, remembered)
        old = self.store.get_setting("model_key")
        if old == ident.key:
            return None
        self.store.set_setting("model_key", ident.key)
        if old and any(r.model_key == old for r in self.store.documents()):
            return old, ident.key
        return None

    def other_model_documents(self) -> tuple[str, list[str]]:
        """(this index's model key, the indexed documents embedded with another model):
        those are found by BM25 alone until ``reindex --stale`` re-embeds them."""
        key = self.store.get_setting("model_key") or ""
        return key, [r.path for r in self.store.documents()
                     if r.state == DocState.INDEXED and r.model_key and r.model_key != key]

    # --- retrieval --------------------------------------------------------------------

    def documents_matching(self, patterns: Sequence[str]) -> list[str]:
        """The indexed documents a document filter names, in path order: each entry a
        document's path as the index names it, a folder ending in ``/`` or a glob
        (:mod:`citeline.retrieve.scope`: ``*`` stays within a folder, ``**`` crosses
        them). :class:`~citeline.errors.UnmatchedDocuments` names every entry that
        matches no document, and an empty filter is a ConfigError (None is "every
        document")."""
        if isinstance(patterns, str):  # one pattern, not its characters
            patterns = [patterns]
        if not patterns:
            raise ConfigError("documents: an empty filter names no document; give a path "
                              "or pattern, or none to search every document")
        for p in patterns:
            if not isinstance(p, str) or not scope.normal(p).strip():
                raise ConfigError(f"documents: {p!r} is not a path or pattern")
            _check_text("documents", p)
        paths = [r.path for r in self.store.documents()]
        matched, unmatched = scope.match_documents(patterns, paths)
        if unmatched:
            named = ", ".join(f"{p!r}{scope.folder_hint(p, paths)}" for p in unmatched)
            raise UnmatchedDocuments(
                unmatched, f"no indexed document matches {named}"
                + ("" if paths else f" ({self.location} holds no document)"))
        return matched

    def _scope(self, documents: Sequence[str] | None) -> DocumentScope | None:
        """The filter resolved to its documents and their chunk ids; None for none."""
        if documents is None:
            return None
        if isinstance(documents, str):
            documents = [documents]
        matched = self.documents_matching(documents)
        return DocumentScope(tuple(documents), tuple(matched),
                             frozenset(self.store.chunk_ids_of(matched)))

    def search(
        self, query: str, k: int = 20, mode: Mode = "hybrid", fusion: Fusion | None = None,
        documents: Sequence[str] | None = None,
    ) -> SearchResult:
        """Rank chunks for ``query``; ``documents``: rank only the chunks of these
        documents (paths or patterns, :meth:`documents_matching`). The filter is
        resolved once, to chunk ids, and applied inside every ranked list (the dense
        scans, BM25, the sentence list, and so the late list's candidates), before each
        list is cut: a small document in a big index gets lists as deep as it has
        chunks, not what is left of the whole index's top 200. Scores do not change
        (BM25 keeps the whole index's statistics): each hit ranks as it would unfiltered,
        among the filter's chunks only. ``fusion`` (default :data:`DEFAULT_FUSION`) picks
        how hybrid mode merges its lists: "section" (the default: RRF k=10 over the
        dense list, BM25 and each chunk's best sentence similarity, the dense and
        sentence lists lifted by their section's best score; its dense list ranks the
        chunks' content embedded without the header, where the index has those
        vectors), "sentence" (the same without the lift or the header-less vectors),
        "rrf" (dense + BM25 by reciprocal rank fusion, the chapter's faithful port) or
        "convex" (0.7 cosine + 0.3 BM25 / best BM25). An index without sentence vectors
        runs "rrf" for "section"/"sentence". See retrieve/fuse.py and
        docs/retrieval-experiments.md. Ignored by the dense and bm25 modes. The gate
        always sees the cosine distance of the chunk's embedded text. Mode
        "rerank" is hybrid re-scored by the cross-encoder (:meth:`_search_reranked`)."""
        return self._search(query, k, mode, fusion, self._scope(documents))

    def _search(self, query: str, k: int, mode: Mode, fusion: Fusion | None,
                where: DocumentScope | None) -> SearchResult:
        """:meth:`search` with its document filter resolved (None: every chunk)."""
        if mode == "rerank":
            return self._search_reranked(query, k, fusion, where)
        fusion = DEFAULT_FUSION if fusion is None else fusion
        if mode not in ("dense", "bm25", "hybrid"):
            raise ConfigError(f"--mode: must be dense, bm25, hybrid or rerank, got {mode!r}")
        if fusion not in FUSIONS:
            raise ConfigError(f"--fusion: must be one of {', '.join(FUSIONS)}, got {fusion!r}")
        if not query.strip():
            raise ConfigError("query: must not be empty")
        _check_text("query", query)
        if k < 1:
            raise ConfigError(f"-k: must be at least 1, got {k}")
        only = None if where is None else where.chunk_ids
        scoped = None if where is None else where.documents
        if only is not None and not only:  # the documents matched hold no chunk
            return SearchResult(query, mode, (), {}, fusion=fusion if mode == "hybrid" else "",
                                documents=scoped)
        timings: dict[str, float] = {}
        t = time.perf_counter()
        # a "late" search takes the query's token vectors from the same forward pass
        embed_query = getattr(self.embedder, "embed_query", None)
        qtok: late.TokenVectors | None = None
        if mode == "hybrid" and fusion == "late" and embed_query is not None:
            qvec, qtok = embed_query(query)
        else:
            qvec = self.embedder.embed([query])[0]
        timings["embed"] = _ms(t)
        ident = self.embedder.identity
        depth = max(k, FUSION_DEPTH)
        dense: list[tuple[int, float]] = []
        bm25: list[tuple[int, float]] = []
        # With a query map the dense list ranks by normalize(W q); the gate still sees
        # each hit's raw cosine (sims is then filled from the store, below).
        qmap = self.query_map() if mode in ("dense", "hybrid") else None
        dense_q = qvec
        if qmap is not None:
            dense_q = qmap @ qvec
            dense_q = (dense_q / np.linalg.norm(dense_q)).astype(np.float32)
        bare: list[tuple[int, float]] = []
        terms = bm25_terms(query)  # BM25's, and the late list's token weights
        if mode in ("dense", "hybrid"):
            t = time.perf_counter()
            # the section fusion's dense list ranks chunks by their content embedded
            # without the header, where the index has those vectors (section 21)
            if mode == "hybrid" and fusion in ("section", "late"):
                bare = self.store.dense(dense_q, depth, ident.key, bare=True, only=only)
            dense = bare or self.store.dense(dense_q, depth, ident.key, only=only)
            timings["dense"] = _ms(t)
            held = (self.store.get_setting("model_key") or "another model") if not dense else ""
            # (the index's own model with no vector yet: a first document committed between
            # the scan and the count, as a worker's does while clients search)
            if not dense and held != ident.key and self.store.stats().chunks:
                raise ModelMismatch(
                    f"{self.location}: no chunk was embedded with {ident.key} (the index's "
                    f"vectors are from {held}): pass --model with that model's folder, or run "
                    "`citeline reindex --stale` to re-embed with the current model"
                )
        if mode in ("bm25", "hybrid"):
            t = time.perf_counter()
            bm25 = self.store.bm25(terms, depth, only=only)
            timings["bm25"] = _ms(t)
        sentence: list[tuple[int, float]] = []
        if mode == "hybrid" and fusion in SENTENCE_FUSIONS:
            t = time.perf_counter()
            sentence = self.store.sentence_max(qvec, depth, ident.key, only=only)
            timings["sentences"] = _ms(t)
            if not sentence:  # no sentence vectors (an older index): the two-list port
                fusion = "rrf"
                if bare:  # which ranks by the embedded text's vectors
                    dense, bare = self.store.dense(dense_q, depth, ident.key, only=only), []
        t = time.perf_counter()
        scores = dict(dense)  # the dense list's own scores (convex fuses them)
        late_scores: dict[int, float] = {}  # each late-scored chunk's own score, for its Hit
        # the embedded text's raw cosines, for distances and the gate
        sims = scores if qmap is None and not bare else {}
        if mode == "dense":
            ranked = dense[:k]
        elif mode == "bm25":
            ranked = bm25[:k]
        elif fusion == "sentence":
            lists = [[i for i, _ in dense], [i for i, _ in bm25], [i for i, _ in sentence]]
            ranked = rrf(lists, k=SENTENCE_RRF_K)[:k]
        elif fusion in ("section", "late"):
            groups = self.store.sections([i for i, _ in dense] + [i for i, _ in sentence])
            lists = [
                [i for i, _ in section_lift(dense, groups, SECTION_WEIGHT)],
                [i for i, _ in bm25],
                [i for i, _ in section_lift(sentence, groups, SECTION_WEIGHT)],
            ]
            ranked = rrf(lists, k=SENTENCE_RRF_K)
            if fusion == "late":
                t_late = time.perf_counter()
                scored = self._late_list(query, terms, qtok,
                                         [i for i, _ in ranked[:LATE_CANDIDATES]], ident)
                if scored:
                    late_scores = dict(scored)
                    groups.update(self.store.sections(
                        [i for i, _ in scored if i not in groups]))
                    lists.append([i for i, _ in section_lift(scored, groups, SECTION_WEIGHT)])
                    ranked = rrf(lists, k=SENTENCE_RRF_K, weights=(1.0, 1.0, 1.0, LATE_WEIGHT))
                else:  # no token vectors in this index (built before them): "section"
                    fusion = "section"
                timings["late"] = _ms(t_late)
                t += timings["late"] / 1000  # "fuse" is the fusion's own time, "late" its own
            ranked = ranked[:k]
        elif fusion == "convex":
            # Convex fusion needs a cosine for every BM25 candidate; a chunk with no
            # vector of this model (stale) has none and is left out of the fusion.
            extra = [i for i, _ in bm25 if i not in scores]
            if extra:
                scores.update(self.store.similarities(dense_q, extra, ident.key))
            ranked = convex(scores, {i: s for i, s in bm25 if i in scores})[:k]
        else:
            ranked = rrf([[i for i, _ in dense], [i for i, _ in bm25]])[:k]
        if mode == "hybrid" and fusion != "rrf" and bm25:
            ranked = self._named_rows_first(query, terms, bm25, ranked, k, only)
        timings["fuse"] = _ms(t)
        t = time.perf_counter()
        ids = [i for i, _ in ranked]
        missing = [i for i in ids if i not in sims]
        if missing:
            sims.update(self.store.similarities(qvec, missing, ident.key))
        rows = self.store.chunks(ids)
        # A document re-indexed between the ranking and this fetch has new chunk
        # ids: its old ones are gone. Skip them rather than fail the search; the
        # next query ranks the new version.
        present = [(cid, score) for cid, score in ranked if cid in rows]
        hits = []
        for rank, (cid, score) in enumerate(present, start=1):
            row = rows[cid]
            hits.append(
                Hit(
                    rank=rank, chunk_id=cid, document=row.document, title=row.title,
                    section=row.section, start=row.start, end=row.end, locator=row.locator,
                    content=row.content, distance=1.0 - sims.get(cid, 0.0), score=score,
                    late=late_scores.get(cid), columns=sheet_columns(row),
                )
            )
        timings["fetch"] = _ms(t)
        return SearchResult(query, mode, tuple(hits), timings,
                            fusion=fusion if mode == "hybrid" else "", documents=scoped)

    def _named_rows_first(self, query: str, terms: Sequence[str],
                          bm25: Sequence[tuple[int, float]],
                          ranked: list[tuple[int, float]], k: int,
                          only: frozenset[int] | None = None) -> list[tuple[int, float]]:
        """The fused list with a sheet's chunk first when the query names one of its rows
        by a code: a query term of a word with letters and digits ("e1042" of "E1042",
        "4021" of "P-4021"; :func:`~citeline.retrieve.bm25.key_terms`) that one chunk of
        the whole index holds, that chunk a sheet's.

        The embedding model reads "E1042" and "E1043" alike, and a sheet's rows all
        look alike to it, so the dense, sentence and late lists, four of the five votes
        (the late list counts twice), rank a sheet's chunks by little but their length, and a row BM25 finds by its
        identifier ranked first in 48% of lookups (benchmarks/sheet_lookup.py). A term
        one chunk holds is that row's own key. Several such rows keep BM25's order;
        the port ("rrf") is left as the chapter has it, and prose is not touched (a
        rare word in a paragraph is no key to it), nor is a bare number (a year).
        Under a document filter (``only``) "the whole index" is the filter's chunks: a
        code two years' sheets hold is the 2024 row's key among the 2024 documents."""
        keys = [t for t in key_terms(query) if t in terms]
        if not keys:
            return ranked
        if only is None:
            _, df = self.store.document_frequencies(keys)
        else:  # a chunk holds a term iff its BM25 for it is positive (IDF > 0)
            df = {t: len(self.store.bm25([t], 2, only=only)) for t in keys}
        keys = [t for t in keys if df.get(t) == 1]
        if not keys:
            return ranked
        top = [cid for cid, _ in bm25[: len(keys) + 9]]  # a key's chunk ranks high on BM25
        rows = self.store.chunks(top)
        named = [cid for cid in top if cid in rows and rows[cid].locator.sheet_range
                 and set(tokenize(rows[cid].text)) & set(keys)]
        if not named:
            return ranked
        best = ranked[0][1] if ranked else 1.0
        rest = [(cid, s) for cid, s in ranked if cid not in named]
        return ([(cid, best) for cid in named] + rest)[:k]

    def _late_list(self, query: str, terms: Sequence[str], q: late.TokenVectors | None,
                   candidates: list[int], ident: ModelIdentity) -> list[tuple[int, float]]:
        """The candidates re-scored by late interaction (citeline.retrieve.late) with
        the query's token vectors ``q`` (its BM25 ``terms`` give their weights), best
        first; [] when no candidate has token vectors or the embedder cannot give them."""
        stored = self.store.token_vectors(candidates, ident.key) if q is not None else {}
        if not stored:
            return []
        n_chunks, df = self.store.document_frequencies(terms)
        weights = late.query_weights(query, q.spans, n_chunks, df)
        return late.maxsim(q.vectors, weights, stored)

    def _search_reranked(self, query: str, k: int, fusion: Fusion | None,
                         where: DocumentScope | None = None) -> SearchResult:
        """Hybrid search, then the reranker re-scores the top
        ``rerank_candidates`` (query, chunk ``text``) pairs and they are reordered
        by its score, best first (ties keep the fused order); a reranker whose
        ``combine`` is "rrf" (the query-likelihood one) is ordered by the RRF of its
        order and the fused one instead (:func:`fused_with_retrieval`). Hits past the
        shortlist follow in fused order with their fused score. Each hit keeps
        its cosine ``distance``: the gate never sees the cross-encoder's scale."""
        if k < 1:  # checked here too: the hybrid call below asks for max(k, n)
            raise ConfigError(f"-k: must be at least 1, got {k}")
        reranker = self.reranker  # a missing model fails before any retrieval work
        n = self.rerank_candidates
        fused = self._search(query, max(k, n), "hybrid", fusion, where)
        timings = dict(fused.timings)
        t = time.perf_counter()
        shortlist = fused.hits[:n]
        # `text` (header + content) is what was embedded: the heading path is
        # context the cross-encoder can read too. One query for all of them.
        rows = self.store.chunks([h.chunk_id for h in shortlist])
        shortlist = tuple(h for h in shortlist if h.chunk_id in rows)  # re-indexed meanwhile
        scores = [float(x) for x in
                  reranker.score(query, [rows[h.chunk_id].text for h in shortlist])]
        if getattr(reranker, "combine", "replace") == "rrf":
            scores = fused_with_retrieval(scores, reranker.fuse_k)  # type: ignore[attr-defined]
        head = [(shortlist[i], scores[i]) for i in rerank_order(scores)]
        tail = [(h, h.score) for h in fused.hits[n:]]
        hits = tuple(
            replace(h, rank=rank, score=score)
            for rank, (h, score) in enumerate([*head, *tail][:k], start=1)
        )
        timings["rerank"] = _ms(t)
        # the shortlist's fusion, as the hybrid search really used it (a fallback too)
        return SearchResult(query, "rerank", hits, timings, fusion=fused.fusion,
                            documents=fused.documents)

    @property
    def generator_name(self) -> str | None:
        """The index's own generator setting (``set_generator``), if any."""
        return self.store.get_setting("generator")

    def set_generator(self, name: str) -> None:
        from citeline.answer import GENERATOR_NAMES

        if name not in GENERATOR_NAMES:
            raise ConfigError(f"generator: must be one of {', '.join(GENERATOR_NAMES)}, got {name!r}")
        self.store.set_setting("generator", name)

    def ask(
        self,
        question: str,
        mode: Mode = "hybrid",
        generator: Generator | Extractive | str | None = None,
        *,
        documents: Sequence[str] | None = None,
        on_sources: Callable[[Answer], None] | None = None,
        on_text: Callable[[str], None] | None = None,
        show_prompt: bool = False,
    ) -> Answer:
        """Gate the fused shortlist; answer from what passes, or refuse before any model runs.

        ``documents``: answer from these documents only (paths or patterns, as
        :meth:`search` takes them); an entry that matches no indexed document is an
        error (:class:`~citeline.errors.UnmatchedDocuments`), not a refusal. A filter
        that leaves nothing under the threshold refuses as any question does; the
        answer or refusal then says which documents it looked in (``reason``, the
        NO ANSWER line, ``Answer.documents``).

        ``generator``: an instance, a registered name, or None for the index's
        setting (default ``extractive``). ``on_sources`` gets the answer's head before
        generation starts: an Answer with no text yet, its citation table, reason,
        threshold, the gate's nearest distance and (filtered) ``documents`` as the
        returned one has them (a generator failure is added to the returned one's
        reason); ``on_text`` makes an LLM stream (each piece is
        checked before it is passed on). A generator failure is returned in
        ``Answer.error`` together with the citations, never raised.
        """
        from citeline.answer import Extractive as _Extractive
        from citeline.answer import (
            GeneratorConfig,
            extractive_answer,
            generate_answer,
            make_generator,
        )

        t_total = time.perf_counter()
        if not question.strip():
            raise ConfigError("question: must not be empty")
        _check_text("question", question)
        where = self._scope(documents)
        if generator is None or isinstance(generator, str):
            # name: the argument > the index's setting > the user's config / CITELINE_*;
            # the endpoint, model and limits from the user's config, as the CLI does
            s = load_settings()
            generator = make_generator(GeneratorConfig(
                name=generator or self.generator_name or s.generator,  # type: ignore[arg-type]
                base_url=s.openai_base_url, model=s.openai_model,
                api_key_env=s.openai_api_key_env, timeout=s.generator_timeout,
                model_path=s.local_model_path, max_new_tokens=s.max_new_tokens,
                local_backend=s.local_backend,  # type: ignore[arg-type]
            ))
        t = time.perf_counter()
        result = self._search(question, ASK_CANDIDATES, mode, None, where)
        retrieval_ms = _ms(t)
        t = time.perf_counter()
        hits = self.row_distances(question, result.hits)
        decision = gate(hits, self.threshold, question=question,
                        lookups=self.column_lookups(question, hits))
        timings = {"retrieval": retrieval_ms, **result.timings, "gate": _ms(t)}
        scoped = None if where is None else where.documents
        looked = "" if where is None else "; searched only " + where.describe() + (
            "" if where.chunk_ids else " (none of them holds a searchable chunk)")
        if decision.refused:
            timings["total"] = _ms(t_total)
            line = refusal_line(question, decision.threshold, decision.keys,
                                decision.no_column)
            if where is not None:
                n = len(where.documents)
                line += f" in the {n} document{'s' if n != 1 else ''} matching " + ", ".join(
                    repr(p) for p in where.patterns)
            return Answer(
                question=question, refused=True,
                reason=refusal_reason(decision, self._holds_any(question, decision, where))
                + looked,
                answer=line, citations=(),
                threshold=decision.threshold, nearest_distance=decision.nearest, timings=timings,
                generator=generator.name, documents=scoped,
            )
        citations = tuple(
            Citation(
                index=n, document=h.document, title=h.title, section=h.section,
                locator=h.locator, quote=h.content, distance=h.distance,
            )
            for n, h in enumerate(decision.kept, start=1)
        )
        reason = f"{len(citations)} chunk(s) under cosine distance {decision.threshold:g}" + looked
        if on_sources is not None:
            on_sources(Answer(
                question=question, refused=False, reason=reason, answer="", citations=citations,
                threshold=decision.threshold, nearest_distance=decision.nearest,
                generator=generator.name, documents=scoped,
            ))
        if isinstance(generator, _Extractive):
            drafted = extractive_answer(question, decision.kept, self.embedder, on_text=on_text,
                                        locate_span=self._span_locator(),
                                        text_before=self._text_before())
            if show_prompt:  # what an LLM would be given, for inspection
                from citeline.answer import build_prompt

                prompt = build_prompt(question, decision.kept)
                drafted.prompt = prompt.text
                drafted.prompt_tokens = self.embedder.count_tokens([prompt.text])[0]
                drafted.prompt_tokenizer = f"{self.embedder.identity.model_id} word pieces"
        else:
            timeout = getattr(getattr(generator, "config", None), "timeout", None) or 60.0
            drafted = generate_answer(
                question, decision.kept, generator, self.embedder, timeout=float(timeout),
                on_text=on_text, count_prompt=show_prompt,
            )
        timings.update(drafted.timings)
        timings["total"] = _ms(t_total)
        if drafted.error:
            reason += f"; the generator failed: {drafted.error}"
        return Answer(
            question=question, refused=False, reason=reason, answer=drafted.text,
            citations=citations, threshold=decision.threshold,
            nearest_distance=decision.nearest, timings=timings, generator=generator.name,
            spans=drafted.spans, unused_sources=drafted.unused_sources,
            invalid_markers=drafted.invalid_markers, stripped_links=drafted.stripped_links,
            uncited_sentences=drafted.uncited_sentences, error=drafted.error,
            cut_off=drafted.cut_off, prompt=drafted.prompt, prompt_tokens=drafted.prompt_tokens,
            prompt_tokenizer=drafted.prompt_tokenizer, documents=scoped,
        )

    def row_distances(self, question: str, hits: Sequence[Hit]) -> list[Hit]:
        """``hits``, each sheet hit that holds a code the question names at the cosine
        distance of its nearest row holding it (:func:`~citeline.gate.code_rows`),
        read as the index embedded that row (its sentence: heading path, header row,
        row; from the embedding cache, so only the question is embedded); every other
        hit as it is. What the gate weighs for a lookup by code: the answer quotes that
        row alone, and the chunk's other rows are no part of it (by the chunk's own
        distance, 23 of benchmarks/sheet_lookup.py's 124 lookups were refused with
        their row ranked first)."""
        keys = set(key_terms(question))
        named = {j: rows for j, h in enumerate(hits) if (rows := code_rows(keys, h))}
        stored = self.store.chunks([hits[j].chunk_id for j in named])
        named = {j: rows for j, rows in named.items() if hits[j].chunk_id in stored}
        if not named:  # (a chunk deleted meanwhile keeps its own distance)
            return list(hits)
        texts = {j: [sentence_text(hits[j].section, f"{ctx}\n{r}" if (ctx := sheet_context(
                     stored[hits[j].chunk_id])) else r) for r in rows]
                 for j, rows in named.items()}
        ident = self.embedder.identity
        vectors, _, _ = self._embed_through_cache([t for ts in texts.values() for t in ts],
                                                  ident, {})
        q = self.embedder.embed([question])[0]
        out = list(hits)
        at = 0
        for j, ts in texts.items():
            best = max(float(v @ q) for v in vectors[at:at + len(ts)])
            out[j] = replace(hits[j], distance=1.0 - best)
            at += len(ts)
        return out

    def column_lookups(self, question: str, hits: Sequence[Hit]) -> dict[int, Lookup]:
        """Each sheet hit that holds a row the question names by a
        code, read by its sheet's header row (:func:`~citeline.gate.lookup`), by chunk
        id, its asked words scored by the model against the header's cells and words
        (:func:`~citeline.gate.column_texts`): what the gate weighs to refuse a lookup
        of a column the sheet does not have. Only the question's words and the header
        are embedded, and only when no header word spells what is asked."""
        keys = set(key_terms(question))
        named = {h.chunk_id: (h, rows) for h in hits if (rows := code_rows(keys, h))}
        if not named:
            return {}
        stored = self.store.chunks(list(named))
        found = {cid: lk for cid, (h, rows) in named.items() if cid in stored
                 and (lk := lookup(question, h, sheet_context(stored[cid]), rows)) is not None}
        weighed = {cid: column_texts(lk) for cid, lk in found.items()
                   if not lk.header_words and lk.unspelt}
        if not weighed:
            return found
        # one model call for every text, each once: the chunks of one sheet share its header
        texts = list(dict.fromkeys(t for asked, targets in weighed.values()
                                   for t in (*asked, *targets)))
        vector = dict(zip(texts, self.embedder.embed(texts), strict=True))
        for cid, (asked, targets) in weighed.items():
            sims = (np.stack([vector[t] for t in targets])
                    @ np.stack([vector[t] for t in asked]).T)
            best = np.unravel_index(int(np.argmax(sims)), sims.shape)
            found[cid] = replace(found[cid], similarity=float(sims[best]),
                                 nearest=targets[int(best[0])])
        return found

    def _holds_any(self, question: str, decision: GateResult,
                   where: DocumentScope | None = None) -> bool:
        """Whether any chunk of the index (of the filter's documents, ``where``) holds a
        code the question names (asked only when the gate took sheet chunks away for not
        holding one, and no candidate did)."""
        if not decision.keys or decision.holder is not None:
            return True
        if where is not None:  # a chunk holds a term iff its BM25 for it is positive
            return bool(self.store.bm25(key_terms(question), 1, only=where.chunk_ids))
        _, df = self.store.document_frequencies(key_terms(question))
        return any(df.values())

    def _span_locator(self) -> Callable[[Hit, int, int], Locator]:
        """Locate an answer's sentence in its own page (a PDF's, or an e-book's printed
        page), slide, cue or rows, from its document's region map (read once per
        document), not as its whole chunk: a chunk that packs five short pages cites the
        sentence's page. A document written before the
        stores kept the map is located as its chunk is (:func:`sub_locator`)."""
        from citeline.answer.extractive import sub_locator

        maps: dict[str, list[Region] | None] = {}

        def locate(hit: Hit, start: int, end: int) -> Locator:
            loc = hit.locator
            if not (len(loc.pages) > 1 or len(loc.slides) > 1 or loc.t_start is not None
                    or loc.sheet_range or len(loc.page_labels) > 1  # an e-book's printed pages
                    or loc.xywh is not None  # an image's lines
                    or any(len(a.numbers) > 1 or a.range for a in loc.attached)):
                return sub_locator(hit, start, end)  # one page or slide, or text: nothing to narrow
            if hit.document not in maps:
                maps[hit.document] = self.store.document_regions(hit.document)
            regions = maps[hit.document]
            return sub_locator(hit, start, end) if regions is None else locate_in(regions, start, end)

        return locate

    def _text_before(self) -> Callable[[Hit], str]:
        """A hit's document text before the hit, from the stored text (read once per
        document): whether a hit starts inside a code listing the chunker cut is told
        by the fences before it, which its content does not hold."""
        texts: dict[str, str] = {}

        def before(hit: Hit) -> str:
            if hit.document not in texts:
                texts[hit.document] = self.store.document_text(hit.document) or ""
            return texts[hit.document][:hit.start]

        return before

    def close(self) -> None:
        self.store.close()


def refusal_reason(decision: GateResult, indexed: bool = True) -> str:
    """Why the gate kept nothing, with the distances that decided it; ``indexed``:
    whether any chunk of the index holds a code the question names."""
    t = decision.threshold
    if decision.no_column:  # the code's rows under it, in sheets with no column for the ask
        return no_column_reason(decision.no_column)
    if decision.keys:  # sheet chunks under the threshold, none holding the code
        named = " or ".join(f'"{k}"' for k in decision.keys)
        n = len(decision.other_rows)
        why = (f"no chunk under cosine distance {t:g} holds {named}; the {n} sheet "
               f"chunk{'s' if n > 1 else ''} under it hold other rows")
        h = decision.holder
        if h is None:
            return why + (", and no other candidate holds it" if indexed
                          else ", and no chunk of the index holds it")
        where = h.locator.sheet_range or f"#char={h.locator.start},{h.locator.end}"
        return why + f"; {h.document} {where} holds it, at {h.distance:.3f}"
    near = f"; the nearest chunk is at {decision.nearest:.3f}" if decision.nearest is not None else ""
    return f"no chunk under cosine distance {t:g}{near}"


def sheet_columns(row: ChunkRow) -> str:
    """A sheet chunk's header row, as its embedded text carries it after the ``[section]``
    line, when its content does not open with that row; "" for any other chunk (and
    for a strategy without headers, whose text is its content)."""
    return missing_context(sheet_context(row), row.content)


def sheet_context(row: ChunkRow) -> str:
    """A sheet chunk's header row as its embedded text carries it after the ``[section]``
    line (the first chunk's too, whose content opens with it); "" for any other chunk,
    for a sheet with no header row, and for a strategy without headers."""
    if not row.locator.sheet_range:
        return ""
    head = row.text[: len(row.text) - len(row.content)]
    return head.partition("\n")[2].strip("\n")


def existing_path(path: str | Path) -> Path:
    """``path`` with ``~`` expanded, or a ConfigError when nothing is there."""
    p = Path(path).expanduser()
    if not p.exists():
        raise ConfigError(f"{p}: no such file or folder")
    if not _is_text(str(p.resolve())):  # its name could be stored nowhere
        raise ConfigError(f"{str(p)!r}: the path is not valid UTF-8; rename the folder or file")
    return p


def _is_text(value: str) -> bool:
    """Whether ``value`` is text: the shell hands bytes that are not UTF-8 over as lone
    surrogates, which no tokenizer, store or JSON can take."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_text(field: str, value: str) -> None:
    if not _is_text(value):
        raise ConfigError(f"{field}: holds bytes that are not valid UTF-8")


def _check_strategy(strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise ConfigError(f"--strategy: must be one of {', '.join(STRATEGIES)}, got {strategy!r}")


def _check_budget(budget: int) -> None:
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise ConfigError(f"--budget: must be within {MIN_BUDGET}..{MAX_BUDGET} characters, got {budget}")


def _gone(rec: DocRecord) -> bool:
    """Whether the file a document was indexed from is no longer there."""
    return bool(rec.root) and not (Path(rec.root) / rec.path).exists()


def _below(folder: Path, root: Path) -> bool:
    """Whether ``folder`` is ``root`` or inside it (both resolved)."""
    return folder == root or root in folder.parents


def one_per_file(files: list[tuple[Path, str]], report: IndexReport) -> list[tuple[Path, str]]:
    """One document per file: a file reached again through a symbolic link in the same
    walk is indexed once, as the file itself (else as the first link to it), and the
    other names are listed as skipped."""
    by_target: dict[Path, list[tuple[Path, str]]] = {}
    for f, rel in files:
        try:
            target = f.resolve() if f.is_file() else f
        except OSError:  # a link loop: _supported names it
            target = f
        by_target.setdefault(target, []).append((f, rel))
    keep: set[str] = set()
    for group in by_target.values():
        first = min(group, key=lambda fr: (fr[0].is_symlink(), fr[1]))
        keep.add(first[1])
        for _, rel in group:
            if rel != first[1]:
                report.skipped.append((rel, f"the same file as {first[1]}, indexed once as that"))
    return [(f, rel) for f, rel in files if rel in keep]


def _supported(files: Sequence[tuple[Path, str]], report: IndexReport) -> list[tuple[Path, str]]:
    """The files an extractor claims; the rest are listed in ``report.skipped``: other
    types, anything but a regular file (reading a named pipe would wait forever), and
    names that are not UTF-8 (a document's name is its key in the index)."""
    todo = []
    for f, rel in files:
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(rel).decode("utf-8", "backslashreplace")
            report.skipped.append((shown, "the file name is not valid UTF-8; rename the file"))
            continue
        if f.is_symlink() and f.is_dir():
            report.skipped.append((rel + "/", "a symbolic link to a folder, not followed (a "
                                   "link can loop or leave the folder); index its target"))
        elif (why := why_unsupported(f)) is not None:
            report.skipped.append((rel, why))
        elif not f.exists() and not f.is_symlink():
            report.skipped.append((rel, "the file is gone (moved or deleted since it was named)"))
        elif not f.is_file():
            report.skipped.append((rel, "not a regular file (a pipe, device or broken link)"))
        else:
            todo.append((f, rel))
    return todo


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


class _NoBar:
    def update(self, n: int) -> None: ...
    def close(self) -> None: ...


def _sibling(rel: str, name: str) -> str:
    """The document path of file ``name`` in the folder of document ``rel``."""
    return str(PurePosixPath(rel).with_name(name))


def _progress(total: int, enabled: bool):  # type: ignore[no-untyped-def]
    if not enabled or total == 0:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="file", desc="indexing", dynamic_ncols=True)


def open_index(location: str | Path, **kwargs: object) -> Index:
    """Open (or create) the index at ``location``; see :class:`Index`."""
    return Index(location, **kwargs)  # type: ignore[arg-type]


__all__ = ["Index", "IndexReport", "DocStatus", "SearchResult", "DocumentScope", "open_index",
           "CiteError"]
