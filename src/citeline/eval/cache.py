"""An :class:`~citeline.embed.Embedder` that remembers every vector it computed.

The evaluator builds one index per strategy; C and D, or E and F, share most
chunk texts, and every strategy asks the same 94 queries. Wrapping the model in
this cache embeds each distinct text once per model, across strategies and
across runs: vectors live in one SQLite file keyed by (sha256 of the text, the
model's identity key), so vectors of different models never meet.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from citeline.embed import Embedder
from citeline.errors import CiteError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    text_hash TEXT NOT NULL,
    model_key TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (text_hash, model_key)
) WITHOUT ROWID
"""
# SQLite's default limit on bound variables is 32766 since 3.32; 500 keeps old builds safe.
_BATCH = 500


class CachingEmbedder:
    """Wraps ``inner``; same identity and window, so indexes built through it are ordinary."""

    def __init__(self, inner: Embedder, path: str | Path) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.window = inner.window
        self.model_path = getattr(inner, "model_path", None)  # the model's folder, not the cache's
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path)
            self._db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise CiteError(f"{self.path}: cannot open the embedding cache: {exc}") from exc
        # Token vectors (the late fusion's) are not cached: an index stores and reuses
        # its own. The inner model's methods are passed on where it has them, so an
        # index sees exactly what the model can do; embed_with_tokens also keeps the
        # pooled vectors it computes, as embed would.
        for name in ("embed_tokens", "embed_query"):
            if hasattr(inner, name):
                setattr(self, name, getattr(inner, name))
        if hasattr(inner, "embed_with_tokens"):
            self.embed_with_tokens = self._embed_with_tokens
        self.hits = 0  # texts served from the cache
        self.misses = 0  # texts the model embedded
        self.model_seconds = 0.0  # time spent inside the model on misses

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.identity.dim), dtype=np.float32)
        hashes = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        found = self._lookup(hashes)
        todo = list(dict.fromkeys(h for h in hashes if h not in found))
        if todo:
            first = {h: i for i, h in reversed(list(enumerate(hashes)))}
            t0 = time.perf_counter()
            fresh = self.inner.embed([texts[first[h]] for h in todo], progress=progress)
            self.model_seconds += time.perf_counter() - t0
            self.misses += len(todo)
            self._store(todo, fresh)
            found.update(zip(todo, fresh, strict=True))
        self.hits += len(hashes) - len(todo)
        return np.vstack([found[h] for h in hashes]).astype(np.float32)

    def _embed_with_tokens(self, texts: Sequence[str]) -> list:
        t0 = time.perf_counter()
        out = self.inner.embed_with_tokens(texts)  # type: ignore[attr-defined]
        self.model_seconds += time.perf_counter() - t0
        self.misses += len(texts)
        self._store([hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts],
                    [vec for vec, _ in out])
        return out

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)

    def _store(self, hashes: Sequence[str], vectors: Sequence[np.ndarray]) -> None:
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors (text_hash, model_key, vector) VALUES (?, ?, ?)",
                [(h, self.identity.key, np.asarray(v, dtype=np.float32).tobytes())
                 for h, v in zip(hashes, vectors, strict=True)],
            )

    def _lookup(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for i in range(0, len(unique), _BATCH):
            batch = unique[i : i + _BATCH]
            marks = ",".join("?" * len(batch))
            rows = self._db.execute(
                f"SELECT text_hash, vector FROM vectors WHERE model_key = ? AND text_hash IN ({marks})",
                (self.identity.key, *batch),
            )
            for h, blob in rows:
                out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def close(self) -> None:
        self._db.close()
