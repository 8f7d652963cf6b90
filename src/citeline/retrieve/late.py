"""Late interaction over the embedding model's own token vectors (the "late" fusion's
fourth list; docs/retrieval-experiments.md, section 23).

A chunk's pooled vector averages every token; a question's few telling words can
drown in it. Kept per token, the same model's contextual vectors can be matched
word by word, as ColBERT does (Khattab & Zaharia, SIGIR 2020) and as BERTScore
weighs them (Zhang et al., ICLR 2020)::

    late(q, d) = sum_{t in q} w_t * max_{u in d} cos(t, u)  /  sum_{t in q} w_t

over the query's and the chunk's wordpiece vectors (special tokens and
punctuation-only pieces dropped), with w_t the BM25 IDF of the query word the
piece lies in (so "the" weighs little, a rare identifier a lot). The model is the
bundled all-MiniLM-L6-v2 as it is: no training, no other weights.

Chunk token vectors are stored as int8 (each unit-length component times 127,
rounded): 384 bytes a token, a quarter of float32, and the lab's ranks moved by at
most one query in 192.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import regex

from citeline.retrieve.bm25 import idf, terms

# The quantisation step of stored token vectors: component x 127, as int8.
TOKEN_SCALE = 127.0
_WORD = regex.compile(r"\S+")


@dataclass(frozen=True)
class TokenVectors:
    """One text's token vectors: (n, dim) float32, unit length, and each token's
    character span in the text (the query side needs the spans to weigh them)."""

    vectors: np.ndarray
    spans: tuple[tuple[int, int], ...]


def quantize(vectors: np.ndarray) -> np.ndarray:
    """Unit-length float vectors -> int8 (x 127, rounded, clipped)."""
    return np.clip(np.rint(np.asarray(vectors, dtype=np.float32) * TOKEN_SCALE),
                   -127, 127).astype(np.int8)


def dequantize(stored: np.ndarray) -> np.ndarray:
    return stored.astype(np.float32) / TOKEN_SCALE


def query_weights(query: str, spans: Sequence[tuple[int, int]], n_chunks: int,
                  df: Mapping[str, int]) -> np.ndarray:
    """Each query token's weight: the highest BM25 IDF among the BM25 terms of the
    whitespace-delimited word its span starts in (a word the index never saw gets
    the highest IDF there is). All weights equal when no token lies in a word with a
    term, so the score is then the plain mean."""
    words = [(m.start(), m.end(), terms(m.group())) for m in _WORD.finditer(query)]
    out = np.zeros(len(spans), dtype=np.float32)
    for j, (start, _) in enumerate(spans):
        for a, b, word_terms in words:
            if a <= start < b:
                out[j] = max((idf(n_chunks, df.get(t, 0)) for t in word_terms), default=0.0)
                break
    if not out.sum() > 0:
        out[:] = 1.0
    return out


def maxsim(query: np.ndarray, weights: np.ndarray,
           chunks: Mapping[int, np.ndarray]) -> list[tuple[int, float]]:
    """Score every chunk by ``late`` (above), best first, ties by id. ``query`` is the
    (m, dim) float32 token matrix, ``chunks`` maps chunk id -> its stored int8 (or
    float) token matrix."""
    if not chunks or not len(query):
        return []
    ids = list(chunks)
    lengths = [len(chunks[i]) for i in ids]
    matrix = np.concatenate([chunks[i] for i in ids]).astype(np.float32)
    if chunks[ids[0]].dtype == np.int8:
        matrix /= TOKEN_SCALE
    sims = np.asarray(query, dtype=np.float32) @ matrix.T  # (m, total tokens)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    best = np.maximum.reduceat(sims, starts, axis=1)  # (m, chunks)
    w = np.asarray(weights, dtype=np.float32)
    scores = (w @ best) / float(w.sum())
    order = sorted(range(len(ids)), key=lambda j: (-scores[j], ids[j]))
    return [(ids[j], float(scores[j])) for j in order]
