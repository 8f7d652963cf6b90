"""Lab: does reordering a run of same-section hits by one of their own scores help?

Section 52 found that when the needle is at rank 2 on rustbook, rank 1 is usually a
chunk of the same section. This lab takes the default search's top 20 and, inside each
run of consecutive hits from one section (document and heading path), re-sorts them by
their late-interaction score, by their cosine distance, or into document order, leaving
every run where it is. Parameter-free; the development set only (section 58)::

    .venv/bin/python benchmarks/sibling_order_lab.py --index /tmp/rb/indexes/E
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from citeline.eval import metrics
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import Index
from citeline.types import Hit

ORDERS: dict[str, Callable[[Hit], float] | None] = {
    "default": None,
    "late score within a run": lambda h: -(h.late or 0.0),
    "cosine within a run": lambda h: h.distance,
    "document order within a run": lambda h: h.start,
}


def regrouped(hits: list[Hit], key: Callable[[Hit], float]) -> list[Hit]:
    """``hits`` with each run of consecutive same-section hits sorted by ``key``."""
    out: list[Hit] = []
    i = 0
    while i < len(hits):
        j = i
        while j + 1 < len(hits) and (hits[j + 1].document, hits[j + 1].section) == \
                (hits[i].document, hits[i].section):
            j += 1
        out += sorted(hits[i:j + 1], key=key)
        i = j + 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gt", default="eval/rustbook", help="ground-truth folder")
    ap.add_argument("--index", required=True, help="its strategy-E index folder")
    args = ap.parse_args()
    gt = load_ground_truth(args.gt)
    idx = Index(args.index, create=False)
    ranks: dict[str, list[int | None]] = {name: [] for name in ORDERS}
    budget: dict[str, list[bool]] = {name: [] for name in ORDERS}
    for q in gt.questions:
        for _, text in q.queries:
            hits = list(idx.search(text, k=20).hits)
            for name, key in ORDERS.items():
                contents = [h.content for h in (hits if key is None else regrouped(hits, key))]
                ranks[name].append(metrics.first_correct_rank(contents, q.needle))
                budget[name].append(metrics.within_budget(contents, q.needle, 2000))
    idx.close()
    base = ranks["default"]
    for name, r in ranks.items():
        better = sum((x or 99) < (y or 99) for x, y in zip(r, base, strict=True))
        worse = sum((x or 99) > (y or 99) for x, y in zip(r, base, strict=True))
        print(f"{name:28} R@1 {metrics.recall_at_k(r, 1):.3f}  R@4 {metrics.recall_at_k(r, 4):.3f}"
              f"  MRR {metrics.mrr(r):.3f}  R@2000ch {sum(budget[name]) / len(r):.3f}"
              f"  rank better/worse {better}/{worse}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
