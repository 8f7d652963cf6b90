"""The refusal gate: the one part of the pipeline that can say no.

Keep at most ``max_hits`` hits whose cosine distance is under the threshold, in
retrieval order. None left means NO ANSWER, decided by comparing two numbers,
before any model is asked. The threshold is per index; ``calibrate`` proposes
one from in-domain and out-of-domain questions (0.675 is the chapter's
starting value, not a law).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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

    @property
    def refused(self) -> bool:
        return not self.kept


def gate(hits: Sequence[Hit], threshold: float, max_hits: int = MAX_KEPT) -> GateResult:
    nearest = min((h.distance for h in hits), default=None)
    kept = tuple(h for h in hits if h.distance < threshold)[:max_hits]
    return GateResult(kept, threshold, nearest)


def refusal_line(question: str, threshold: float) -> str:
    return f'NO ANSWER: nothing under cosine distance {threshold:g} for "{question}"'
