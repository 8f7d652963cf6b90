"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009)::

    RRF(d) = sum_{r in rankings} 1 / (k + rank_r(d)),   rank starting at 1

It fuses on ranks, never on raw scores: cosine similarities and BM25 scores
live on different scales, and normalising them per query makes the weight
depend on how good the best hit happened to be. k = 60 is the paper's value.
"""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse ranked id lists; returns (id, fused score), best first, ties by id."""
    acc: dict[int, float] = {}
    for ranking in rankings:
        for r, doc_id in enumerate(ranking, start=1):
            acc[doc_id] = acc.get(doc_id, 0.0) + 1.0 / (k + r)
    return sorted(acc.items(), key=lambda kv: (-kv[1], kv[0]))
