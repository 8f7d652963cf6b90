"""Exact dense scoring: cosine similarity of L2-normalised vectors is their dot product."""

from __future__ import annotations

import numpy as np


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Row positions of the ``k`` highest scores, best first (ties by position)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < len(scores):
        # argpartition picks an arbitrary subset of a tie at the cut; take every
        # score at least the k-th best so the tie is broken by position below.
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        part = np.flatnonzero(scores >= kth)
    else:
        part = np.arange(len(scores))
    return part[np.lexsort((part, -scores[part]))][:k]


def cosine_distance(similarity: float) -> float:
    """1 - cos; for unit vectors it equals half the squared Euclidean distance."""
    return 1.0 - float(similarity)


def chunk_max(sentence_sims: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each chunk's best sentence similarity: the max of every run of ``sentence_sims``
    that begins at a row of ``starts`` (rows grouped by chunk, ``starts`` ascending,
    first 0). ``chunk_max([.1, .5, .3, .2], [0, 2]) == [.5, .3]``."""
    if len(sentence_sims) == 0:
        return np.zeros(0, dtype=np.float32)
    return np.maximum.reduceat(sentence_sims, starts)
