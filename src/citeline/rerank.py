"""The cross-encoder stage: re-score the fused shortlist and reorder it.

A bi-encoder (the embedding model) compares a query vector with chunk vectors
computed without the query; a cross-encoder reads the query and one chunk
together and outputs one relevance score, which is far more accurate and far
slower (one transformer pass per pair). So it only re-scores the top
``RERANK_CANDIDATES`` of the fused (dense + BM25) list; the rest keep their
fused order behind it. The chapter's measurement: re-scoring the hybrid top 25
took R@1 from 0.094 to 0.312 and MRR from 0.280 to 0.447, at 569 ms per query
on one CPU thread.

Two things do not change:

* the **cited unit** is still the chunk (its ``content`` and locator);
* the **gate** still decides on each chunk's cosine distance. A cross-encoder's
  score has no fixed scale (a logit, or a sigmoid of one, and a different range
  for every model), so a refusal threshold on it would silently change meaning
  with the weights; the reranker only decides the order in which hits reach the
  gate.

No weights are bundled (the default model the spec names,
cross-encoder/ms-marco-MiniLM-L-6-v2, cannot be fetched by citeline: it only
reads local folders). Asking for the stage without a local folder is an error
that says so, never a silent fall-back to the order it would have re-scored.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from citeline.errors import ModelUnavailable

# How many fused hits the cross-encoder re-scores. The chapter used 25; we take a
# few more because the stage can only promote what is in its shortlist: on
# eval/rustbook (strategy E, RRF) the needle is within the hybrid top 20 / 25 / 30 /
# 40 / 50 for 81 / 84 / 88 / 91 / 92% of the 64 queries, while the cost grows
# linearly (one transformer pass per pair). 30 buys two more reachable queries
# than 25 for 20% more cross-encoder time; 40 two more again for a third more.
RERANK_CANDIDATES = 30
# Pairs per forward pass: big enough to amortise the call, small enough that
# the padded batch of 256-word-piece chunks stays a few MB.
BATCH_SIZE = 16
# What the spec names as the default cross-encoder; shown in error messages.
SUGGESTED_MODEL = "cross-encoder/ms-marco-MiniLM-L-6-v2"
NOT_BUNDLED = (
    f"no cross-encoder weights are bundled with citeline: download one (e.g. {SUGGESTED_MODEL}) "
    "to a local folder and pass --rerank-model PATH (or set rerank_model in the config file, "
    "or CITELINE_RERANK_MODEL)"
)


class Reranker(Protocol):
    """Scores (query, passage) pairs; higher = more relevant. Any scale."""

    name: str

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """One float per passage, in the order given."""
        ...


def rerank_order(scores: Sequence[float]) -> list[int]:
    """Positions of the shortlist, best score first; equal scores keep their
    fused order (a stable sort), so a reranker that cannot tell two chunks apart
    leaves them as retrieval ranked them.

    >>> rerank_order([0.1, 0.9, 0.5, 0.9])
    [1, 3, 2, 0]
    """
    return sorted(range(len(scores)), key=lambda i: -float(scores[i]))


class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` loaded from a local folder only."""

    def __init__(self, path: str | Path, batch_size: int = BATCH_SIZE) -> None:
        self.path = Path(path).expanduser()
        if not self.path.is_dir():
            what = "is a file, not a model folder" if self.path.exists() else "does not exist"
            raise ModelUnavailable(f"--rerank-model {self.path}: {what}; {NOT_BUNDLED}")
        if not (self.path / "config.json").is_file():
            raise ModelUnavailable(
                f"--rerank-model {self.path}: no config.json there, so it is not a saved "
                f"cross-encoder (transformers) folder; {NOT_BUNDLED}"
            )
        from citeline.embed import weights_hash

        try:
            self.weights_hash = weights_hash(self.path.resolve())
        except ModelUnavailable as exc:
            raise ModelUnavailable(f"--rerank-model {exc}; {NOT_BUNDLED}") from exc
        try:
            from sentence_transformers import CrossEncoder
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # no "Loading weights" bar in the CLI's output
            # local_files_only: a folder that is not a model must fail here,
            # never be taken for a hub id and fetched.
            self.model = CrossEncoder(str(self.path), device="cpu", local_files_only=True)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise ModelUnavailable(
                f"--rerank-model {self.path}: cannot load a cross-encoder: {exc}"
            ) from exc
        labels = getattr(self.model, "num_labels", None)
        if labels is None:  # older sentence-transformers keep it on the config only
            labels = getattr(getattr(self.model, "config", None), "num_labels", 1)
        if labels != 1:
            raise ModelUnavailable(
                f"--rerank-model {self.path}: the model has {labels} outputs per pair; a "
                "reranking cross-encoder has exactly one (a relevance score)"
            )
        self.name = self.path.name
        self.batch_size = batch_size
        # A fast tokenizer's truncation settings are shared state: one thread's
        # call must not run inside another's (the server answers concurrently).
        self._lock = threading.Lock()

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        if not passages:
            return np.zeros(0, dtype=np.float32)
        with self._lock:
            scores = self.model.predict(
                [(query, p) for p in passages], batch_size=self.batch_size,
                show_progress_bar=False, convert_to_numpy=True,
            )
        scores = np.asarray(scores, dtype=np.float32).reshape(-1)
        if scores.shape[0] != len(passages) or not np.all(np.isfinite(scores)):
            raise ModelUnavailable(
                f"--rerank-model {self.path}: returned {scores.shape[0]} scores for "
                f"{len(passages)} passages, or a non-finite score"
            )
        return scores


def rerank_state(path: str | Path | None) -> str:
    """One line for `status`: is mode rerank usable, and if not, why (the model is not loaded)."""
    if path is None or not str(path).strip():
        return ("off: no cross-encoder configured (none is bundled; --mode rerank needs "
                "--rerank-model PATH, rerank_model or CITELINE_RERANK_MODEL)")
    p = Path(path).expanduser()
    if not p.is_dir():
        return f"off: {p} is not a folder"
    if not (p / "config.json").is_file():
        return f"off: {p} has no config.json (not a saved cross-encoder)"
    return f"on for --mode rerank: {p}"


@lru_cache(maxsize=4)
def _load(resolved: str) -> CrossEncoderReranker:
    return CrossEncoderReranker(resolved)


def load_reranker(path: str | Path | None) -> CrossEncoderReranker:
    """The cross-encoder at ``path``, loaded once per process and folder.

    ``None`` or an empty path raises :class:`ModelUnavailable` saying that no
    weights are bundled and how to point citeline at a local folder.
    """
    if path is None or not str(path).strip():
        raise ModelUnavailable(f"mode rerank needs a cross-encoder on local disk; {NOT_BUNDLED}")
    return _load(str(Path(path).expanduser().resolve()))
