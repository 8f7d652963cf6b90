"""Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework:
BM25 and Beyond", 2009), with the chapter's constants and IDF::

    idf(t)      = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))
    score(q, d) = sum_{t in q} idf(t) * f_{t,d} (k1 + 1) / (f_{t,d} + k1 (1 - b + b |d| / avgdl))

with k1 = 1.2 (how fast repeating a term stops helping) and b = 0.75 (how hard
long chunks are penalised). The "+1" inside the log keeps IDF positive for terms
in more than half the chunks (Lucene's variant), so a common word never
*lowers* a score. Query terms are counted with multiplicity, as the chapter does.

Tokens are ``[a-z0-9]+`` over the lower-cased text: the same on every backend,
so SQLite and PostgreSQL rank identically.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

K1 = 1.2
B = 0.75
TOKENIZER_VERSION = "az09-v1"
_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def term_frequencies(text: str) -> tuple[Counter[str], int]:
    toks = tokenize(text)
    return Counter(toks), len(toks)


def idf(N: int, n_t: int) -> float:  # noqa: N803 - the paper's names
    return math.log(1.0 + (N - n_t + 0.5) / (n_t + 0.5))


def score_postings(
    query_terms: Sequence[str],
    postings: dict[str, tuple[np.ndarray, np.ndarray]],
    lengths: np.ndarray,
    avgdl: float,
    k1: float = K1,
    b: float = B,
) -> np.ndarray:
    """BM25 of every chunk (by row position) for ``query_terms``.

    ``postings[t] = (rows, tf)``: the row positions of the chunks holding ``t``
    and its frequency in each; ``n_t = len(rows)``; ``N = len(lengths)``.
    """
    N = len(lengths)  # noqa: N806
    scores = np.zeros(N, dtype=np.float64)
    if N == 0 or avgdl <= 0:
        return scores
    norm = k1 * (1.0 - b + b * lengths / avgdl)
    for t in query_terms:
        if t not in postings:
            continue
        rows, tf = postings[t]
        f = tf.astype(np.float64)
        scores[rows] += idf(N, len(rows)) * f * (k1 + 1.0) / (f + norm[rows])
    return scores
