"""The refusal gate: the one part of the pipeline that can say no.

Keep at most ``max_hits`` hits whose cosine distance is under the threshold, in
retrieval order. None left means NO ANSWER, decided by comparing two numbers,
before any model is asked. The threshold is per index; ``calibrate`` proposes
one from in-domain and out-of-domain questions (0.675 is the chapter's
starting value, not a law).

A question that names a code (``P-4021``, ``E1042``: a word with letters and
digits) is asked about that row, so a sheet's chunk that does not hold the code is
no source for it, however near: the embedding model reads every row of a sheet,
and ``P-9999`` and ``P-4021``, alike, and quoting other rows would answer a question
nobody asked (:func:`keyed`). Prose is kept either way: a paragraph can answer
a ticket that quotes its own order number. Such a sheet chunk is gated at the
distance of its nearest row that holds the code (:func:`code_rows`; the pipeline
embeds them), not at its own: the answer quotes that row alone, and a chunk's ten
rows sit farther from a lookup than the one it names (124 of 124 lookups in
benchmarks/sheet_lookup.py pass the gate so, 101 by the chunk's distance).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citeline.retrieve.bm25 import key_terms, key_words, tokenize
from citeline.types import Hit

DEFAULT_THRESHOLD = 0.675
# The chapter keeps four: more chunks cost prompt tokens and, past a point,
# accuracy (long-context degradation), while four covers most multi-part answers.
MAX_KEPT = 4


@dataclass(frozen=True)
class GateResult:
    kept: tuple[Hit, ...]
    threshold: float
    nearest: float | None  # smallest distance among the candidates
    keys: tuple[str, ...] = ()  # the codes the question names, as written, when other_rows
    other_rows: tuple[Hit, ...] = ()  # sheet hits under the threshold without any of them
    holder: Hit | None = None  # then the first candidate holding one of them, if any

    @property
    def refused(self) -> bool:
        return not self.kept


def keyed(question: str, hits: Sequence[Hit]) -> tuple[list[Hit], list[Hit]]:
    """(the hits that can answer ``question``, the sheet hits that cannot), each in
    retrieval order: when the question names codes, a sheet's chunk holds one of
    them in its rows, its header row, its sheet's or its file's name, or it answers
    nothing; a question naming no code keeps every hit.

    >>> from citeline.types import Locator
    >>> def hit(text, sheet):
    ...     return Hit(1, 1, "s.csv", "s", "s", 0, len(text),
    ...                Locator(0, len(text), sheet_range=sheet), text, 0.4, 1.0)
    >>> rows, note = hit("P-4018 | Hex nut | 0.12", "s!A2:C2"), hit("Order P-9999 twice.", None)
    >>> [len(x) for x in keyed("What does part P-4018 cost?", [rows, note])]
    [2, 0]
    >>> [len(x) for x in keyed("What does part P-9999 cost?", [rows, note])]
    [1, 1]
    >>> [len(x) for x in keyed("What does a hex nut cost?", [rows, note])]
    [2, 0]
    """
    keys = set(key_terms(question))
    if not keys:
        return list(hits), []
    can: list[Hit] = []
    cannot: list[Hit] = []
    for h in hits:
        (can if not h.locator.sheet_range or _holds(h, keys) else cannot).append(h)
    return can, cannot


def code_rows(keys: set[str], hit: Hit) -> list[str]:
    """The rows of a sheet ``hit`` (lines of its content) that hold one of ``keys`` (a
    question's :func:`~citeline.retrieve.bm25.key_terms`), in order; [] for prose, or
    for no keys.

    >>> from citeline.types import Locator
    >>> text = "id | city\\nE1 | Oslo\\nE2 | Lyon"
    >>> h = Hit(1, 1, "s.csv", "s", "s", 0, len(text), Locator(0, len(text),
    ...         sheet_range="s!A1:B3"), text, 0.4, 1.0)
    >>> code_rows({"e2"}, h), code_rows(set(), h)
    (['E2 | Lyon'], [])
    """
    if not keys or not hit.locator.sheet_range:
        return []
    return [row for line in hit.content.split("\n")
            if (row := line.strip()) and keys & set(tokenize(row))]


def _holds(hit: Hit, keys: set[str]) -> bool:
    return bool(keys & set(tokenize(" ".join((hit.content, hit.columns, hit.section,
                                               hit.title)))))


def gate(hits: Sequence[Hit], threshold: float, max_hits: int = MAX_KEPT,
         question: str = "") -> GateResult:
    """``hits`` under ``threshold``, at most ``max_hits``; with ``question``, only the
    hits :func:`keyed` leaves it (``other_rows`` says which it took away)."""
    nearest = min((h.distance for h in hits), default=None)
    can, cannot = keyed(question, hits)
    kept = tuple(h for h in can if h.distance < threshold)[:max_hits]
    other = tuple(h for h in cannot if h.distance < threshold)
    if not other:
        return GateResult(kept, threshold, nearest)
    keys = set(key_terms(question))
    holder = next((h for h in can if _holds(h, keys)), None)
    return GateResult(kept, threshold, nearest, tuple(key_words(question)), other, holder)


def refusal_line(question: str, threshold: float, keys: Sequence[str] = ()) -> str:
    """The refusal: nothing under the threshold, or (``keys``) nothing under it that
    holds a code the question names."""
    if keys:
        named = " or ".join(f'"{k}"' for k in keys)
        return f'NO ANSWER: nothing under cosine distance {threshold:g} holds {named} for "{question}"'
    return f'NO ANSWER: nothing under cosine distance {threshold:g} for "{question}"'
