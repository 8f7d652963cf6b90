"""The refusal-threshold sweep and the threshold it proposes (pure, no I/O).

For each threshold on a grid, the real gate's rule (:func:`citeline.gate.gate`):
keep at most ``max_kept`` hits whose cosine distance is strictly under the
threshold, in retrieval order; none kept = NO ANSWER. Over in-domain queries
(their needle is in the corpus) and out-of-domain ones (it is not) we count:

* ``refused``  — in-domain queries that got NO ANSWER;
* ``correct``  — in-domain queries answered with the needle among the kept hits;
* ``wrong``    — in-domain queries answered without it;
* ``bluffs``   — out-of-domain queries that got an answer anyway.

:func:`propose_threshold` picks the threshold minimising
``refused + bluff_cost * bluffs``: how much a bluff costs against a refusal is
a product decision, so it is a parameter, not a constant of nature.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citeline.gate import MAX_KEPT

# The grid of the eval report: 0.30 is below any sensible top-1 distance for
# all-MiniLM-L6-v2 (everything refused), 0.90 above the farthest useful hit
# (nothing refused); 0.025 steps resolve the chapter's 0.675 exactly.
GRID_LOW = 0.30
GRID_HIGH = 0.90
GRID_STEP = 0.025
# A bluff (a confident, well-cited answer from unrelated text) misleads the
# reader; a refusal only costs them a rephrased question. Counting a bluff as
# two refusals is our default trade; `calibrate --bluff-cost` changes it.
DEFAULT_BLUFF_COST = 2.0

# per in-domain query: its candidate hits in retrieval order as
# (cosine distance, does this chunk contain the needle?)
InDomain = Sequence[Sequence[tuple[float, bool]]]
# per out-of-domain query: its candidates' cosine distances in retrieval order
OutOfDomain = Sequence[Sequence[float]]


@dataclass(frozen=True)
class SweepRow:
    threshold: float
    refused: int
    correct: int
    wrong: int
    bluffs: int
    n_in: int
    n_out: int

    def cost(self, bluff_cost: float) -> float:
        return self.refused + bluff_cost * self.bluffs

    def to_json(self) -> dict[str, object]:
        return {"threshold": self.threshold, "refused": self.refused, "correct": self.correct,
                "wrong": self.wrong, "bluffs": self.bluffs, "n_in": self.n_in,
                "n_out": self.n_out}


def grid(low: float = GRID_LOW, high: float = GRID_HIGH, step: float = GRID_STEP) -> list[float]:
    """Thresholds low, low+step, ..., high (inclusive), rounded to kill float drift."""
    if step <= 0 or high < low:
        raise ValueError(f"bad grid {low}..{high} step {step}")
    n = int(round((high - low) / step))
    return [round(low + i * step, 6) for i in range(n + 1)]


def sweep(
    in_domain: InDomain, out_domain: OutOfDomain, thresholds: Sequence[float],
    max_kept: int = MAX_KEPT,
) -> list[SweepRow]:
    rows = []
    for t in thresholds:
        refused = correct = wrong = 0
        for hits in in_domain:
            kept = [ok for d, ok in hits if d < t][:max_kept]
            if not kept:
                refused += 1
            elif any(kept):
                correct += 1
            else:
                wrong += 1
        bluffs = sum(1 for ds in out_domain if any(d < t for d in ds))
        rows.append(SweepRow(t, refused, correct, wrong, bluffs, len(in_domain), len(out_domain)))
    return rows


def propose_threshold(rows: Sequence[SweepRow], bluff_cost: float = DEFAULT_BLUFF_COST) -> SweepRow:
    """The row minimising refusals + ``bluff_cost`` x bluffs.

    Ties go to the row answering the most in-domain queries correctly, then to
    the lowest threshold (the more cautious gate).
    """
    if not rows:
        raise ValueError("empty sweep")
    if bluff_cost < 0:
        raise ValueError(f"bluff cost must be >= 0, got {bluff_cost}")
    return min(rows, key=lambda r: (r.cost(bluff_cost), -r.correct, r.threshold))


def separation(in_nearest: Sequence[float], out_nearest: Sequence[float]) -> dict[str, object]:
    """Does any threshold separate the two sets of nearest distances?

    It does only when the worst (largest) in-domain nearest distance is below the
    best (smallest) out-of-domain one.
    """
    worst_in = max(in_nearest) if in_nearest else None
    best_out = min(out_nearest) if out_nearest else None
    separable = worst_in is not None and best_out is not None and worst_in < best_out
    return {"worst_in_domain": worst_in, "best_out_of_domain": best_out, "separable": separable}
