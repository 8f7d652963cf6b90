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

:func:`section_lift` uses the document's structure: a similarity list is
re-scored so that a chunk in a section whose best chunk matches the query well
rises with it (a needle's neighbours in its section often carry the words or
the meaning the needle's own chunk lacks)::

    lift(d) = s(d) + weight * max_{d' in the list, section(d') = section(d)} s(d')

The "section" fusion is RRF k = 10 over the lifted dense list, BM25, and the
lifted sentence-max list (docs/retrieval-experiments.md, section 15). The "late"
fusion (the default) re-scores the section fusion's top :data:`LATE_CANDIDATES`
by late interaction over token vectors (:mod:`citeline.retrieve.late`), lifts that
list by section too, and fuses the four lists by RRF k = 10 with the new list
counted :data:`LATE_WEIGHT` times (section 23).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Literal

RRF_K = 60

Fusion = Literal["rrf", "convex", "sentence", "section", "late"]
FUSIONS: tuple[Fusion, ...] = ("rrf", "convex", "sentence", "section", "late")
# The fusions that need the index's sentence vectors (without them: "rrf").
SENTENCE_FUSIONS: tuple[Fusion, ...] = ("sentence", "section", "late")

# "sentence": RRF over three lists (dense chunk, BM25, and each chunk's best
# sentence similarity). k = 10 trusts each list's top more than the paper's 60:
# cross-validated on eval/rustbook, fitting on the "course" phrasings and fitting
# on the "ticket" ones both pick 10 from {1, 2, 5, 10, 20, 30, 60}, by R@4 and by
# MRR alike (docs/retrieval-experiments.md, section 10).
SENTENCE_RRF_K = 10

# "section": the weight of a section's best similarity in `section_lift`, for the
# dense and the sentence-max lists (RRF k stays SENTENCE_RRF_K). Chosen by
# cross-validation through the pipeline on eval/rustbook from {0, 0.25, 0.5, 1,
# 1.5, 2} (0 = the "sentence" fusion): see docs/retrieval-experiments.md,
# section 15, and benchmarks/fusion_cv.py.
SECTION_WEIGHT = 1.5

# "late": how many of the section fusion's best chunks the late-interaction list
# re-scores, and its weight in the four-list RRF (the list lifted by section as the
# dense and sentence lists are). Weight and lift chosen by cross-validation from
# {1, 1.5, 2} x {lift, none}, by R@4 then MRR: leaving one of the four bundled corpora
# out picks weight 2 with the lift in 4 of 4 folds (benchmarks/late_cv.py). Re-scoring
# the top 100 ranked, in the lab, as re-scoring every chunk did.
# docs/retrieval-experiments.md, section 23.
LATE_CANDIDATES = 100
LATE_WEIGHT = 2.0

# Weight of the dense cosine in `convex`. Chosen by cross-validation on
# eval/rustbook: fitting R@4 on the "course" phrasings and on the "ticket" ones
# both pick 0.7 from {0.5, ..., 1.0} (held-out R@4 0.609 vs RRF's 0.547); the
# MRR optimum is flat between 0.6 and 0.9. See docs/retrieval-experiments.md.
CONVEX_ALPHA = 0.7


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K,
        weights: Sequence[float] | None = None) -> list[tuple[int, float]]:
    """Fuse ranked id lists, each counted ``weights[i]`` times (default once); returns
    (id, fused score), best first, ties by id."""
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"rrf: {len(weights)} weights for {len(rankings)} lists")
    acc: dict[int, float] = {}
    for ranking, w in zip(rankings, weights, strict=True):
        for r, doc_id in enumerate(ranking, start=1):
            acc[doc_id] = acc.get(doc_id, 0.0) + w / (k + r)
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


def section_lift(
    scored: Sequence[tuple[int, float]], sections: Mapping[int, Hashable], weight: float
) -> list[tuple[int, float]]:
    """Add ``weight`` x the best score of the chunk's section *within this list*,
    then re-sort, best first; ties keep the list's order.

    ``scored`` is one retriever's (chunk id, similarity) list, best first;
    ``sections`` maps a chunk id to its section key (document, heading path). A
    chunk missing from ``sections`` (deleted meanwhile) is its own section. Only
    the list's own scores count, so every store gives the same result for the
    same list. Example, weight 0.5: [(1, .9), (2, .5), (3, .6)] with chunks 1 and
    2 in one section -> 1: .9 + .45 = 1.35, 2: .5 + .45 = .95, 3: .6 + .3 = .9.
    """
    if weight < 0:
        raise ValueError(f"weight must be >= 0, got {weight}")
    best: dict[Hashable, float] = {}
    keys = [sections.get(i, ("chunk", i)) for i, _ in scored]
    for key, (_, s) in zip(keys, scored, strict=True):
        if key not in best or s > best[key]:
            best[key] = s
    lifted = [(i, s + weight * best[key]) for key, (i, s) in zip(keys, scored, strict=True)]
    order = sorted(range(len(lifted)), key=lambda j: (-lifted[j][1], j))
    return [lifted[j] for j in order]
