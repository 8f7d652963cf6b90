"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009)::

    RRF(d) = sum_{r in rankings} 1 / (k + rank_r(d)),   rank starting at 1

It fuses on ranks, never on raw scores: cosine similarities and BM25 scores
live on different scales, and normalising them per query makes the weight
depend on how good the best hit happened to be. k = 60 is the paper's value.

:func:`convex` is the score-based alternative (an option, not the default; see
docs/retrieval-experiments.md): a convex combination of the dense cosine and the
BM25 score divided by the query's best BM25 score (Bruch, Gai & Ingber, "An
Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023)::

    convex(d) = alpha * cos(q, d) + (1 - alpha) * bm25(q, d) / max_d' bm25(q, d')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

RRF_K = 60

Fusion = Literal["rrf", "convex", "sentence"]
FUSIONS: tuple[Fusion, ...] = ("rrf", "convex", "sentence")

# "sentence": RRF over three lists (dense chunk, BM25, and each chunk's best
# sentence similarity). k = 10 trusts each list's top more than the paper's 60:
# cross-validated on eval/rustbook, fitting on the "course" phrasings and fitting
# on the "ticket" ones both pick 10 from {1, 2, 5, 10, 20, 30, 60}, by R@4 and by
# MRR alike (docs/retrieval-experiments.md, section 10).
SENTENCE_RRF_K = 10

# Weight of the dense cosine in `convex`. Chosen by cross-validation on
# eval/rustbook: fitting R@4 on the "course" phrasings and on the "ticket" ones
# both pick 0.7 from {0.5, ..., 1.0} (held-out R@4 0.609 vs RRF's 0.547); the
# MRR optimum is flat between 0.6 and 0.9. See docs/retrieval-experiments.md.
CONVEX_ALPHA = 0.7


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse ranked id lists; returns (id, fused score), best first, ties by id."""
    acc: dict[int, float] = {}
    for ranking in rankings:
        for r, doc_id in enumerate(ranking, start=1):
            acc[doc_id] = acc.get(doc_id, 0.0) + 1.0 / (k + r)
    return sorted(acc.items(), key=lambda kv: (-kv[1], kv[0]))


def convex(
    dense: Mapping[int, float], bm25: Mapping[int, float], alpha: float = CONVEX_ALPHA
) -> list[tuple[int, float]]:
    """Fuse by ``alpha * cosine + (1 - alpha) * bm25 / max(bm25)``, best first, ties by id.

    ``dense`` maps chunk id -> cosine similarity and must cover every id to be
    ranked; ``bm25`` maps chunk id -> BM25 score, and an id it lacks scores 0
    (a chunk below BM25's cut matched the query weakly or not at all). When no
    BM25 score is positive the ranking is the dense one.
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be within [0, 1], got {alpha}")
    missing = [i for i in bm25 if i not in dense]
    if missing:
        raise ValueError(f"convex: no dense similarity for chunk ids {sorted(missing)[:5]}")
    top = max(bm25.values(), default=0.0)
    scale = 1.0 / top if top > 0 else 0.0
    fused = {i: alpha * cos + (1.0 - alpha) * bm25.get(i, 0.0) * scale for i, cos in dense.items()}
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
