"""Retrieval metrics over ranked lists of chunk contents (pure, no I/O).

A retrieval is *correct* when a returned chunk's own ``content`` contains the
needle whole, byte for byte (nothing is normalised). Everything here works on
the rank of the first correct chunk of each query (1-based, ``None`` when no
chunk in the retrieved list is correct):

* recall@k (hit rate, "success@k" in trec_eval): the share of queries whose
  first correct rank is <= k. With one needle per query this is the chapter's R@k.
* MRR (Voorhees, TREC-8 QA track, 1999): mean of 1/rank, 0 for a miss; over
  whatever depth was retrieved (the evaluator retrieves max(k)).
* destroyed: the needle is contained whole in *no* chunk of the index; its
  recall ceiling is 0 whatever the retriever does.
* budgeted recall R@Nch: the needle is in one of the retrieved chunks that fit,
  whole and in rank order, into the first N characters (see :func:`within_budget`).
  It is the fair comparison when chunk sizes differ: big chunks buy R@4 by
  handing the generator more text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Rank = int | None

# The budgets reported next to R@k: 2,000 characters is about four 512-char
# chunks (what `ask` keeps), 4,000 about eight.
BUDGETS: tuple[int, ...] = (2000, 4000)


def first_correct_rank(contents: Sequence[str], needle: str) -> Rank:
    """1-based rank of the first content containing ``needle`` whole, else None."""
    for rank, content in enumerate(contents, start=1):
        if needle in content:
            return rank
    return None


def within_budget(contents: Sequence[str], needle: str, budget: int) -> bool:
    """Does the needle lie wholly inside the first ``budget`` characters of the retrieved
    content, read in rank order?

    The issue's and the eval README's definition: the hits' contents laid end to end
    in rank order, the needle at its first place there ends at or before ``budget``.
    Example: chunk lengths 1500, 500 and the needle at characters 400-406 of the
    second: it ends at 1906, so budget 1906 -> True, 1905 -> False. (Until the
    twenty-first session the rule was stricter: the needle's whole chunk had to fit,
    as a prompt builder that never cuts a chunk would hand them over; a needle near
    the start of a long chunk that crosses the budget counted as missed.)
    """
    used = 0
    for content in contents:
        if used >= budget:
            return False
        at = content.find(needle)
        if at >= 0:
            return used + at + len(needle) <= budget
        used += len(content)
    return False


def is_destroyed(contents: Iterable[str], needle: str) -> bool:
    """True when no chunk content holds the needle whole."""
    return not any(needle in c for c in contents)


def hits_at(ranks: Sequence[Rank], k: int) -> list[bool]:
    """Per query: was the first correct rank within k?"""
    return [r is not None and r <= k for r in ranks]


def recall_at_k(ranks: Sequence[Rank], k: int) -> float:
    """Share of queries with a correct chunk in the top ``k``; 0.0 for no queries."""
    if not ranks:
        return 0.0
    return sum(hits_at(ranks, k)) / len(ranks)


def mrr(ranks: Sequence[Rank]) -> float:
    """Mean reciprocal rank of the first correct chunk; a miss counts 0."""
    if not ranks:
        return 0.0
    return sum(1.0 / r for r in ranks if r is not None) / len(ranks)
