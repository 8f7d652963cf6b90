"""Lab: does a chunk that leads into the next one (ends with ':' or '?') hand its
rank to that next chunk?

Section 52's misses at rank 2 are mostly a needle's own section's chunk before it, and
read one by one (section 59) many such chunks pose the question the next one answers:
"The following line, however, may surprise you:", "But are the two implementations
truly equivalent?". Fixed before the run, parameter-free, on the development set only:

- A: a hit whose content ends with ':' or '?' and whose next chunk (the same document
  and section) is lower in the default's top 20 has that chunk moved to just before it.
- B: that next chunk is put just after it instead, fetched from the index when it is
  not in the top 20.

    .venv/bin/python benchmarks/lead_in_lab.py --index /tmp/rb/indexes/E
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from citeline.eval import metrics
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import Index


@dataclass(frozen=True)
class _Next:
    """A hit's next chunk as the variants need it (an id, its content)."""

    chunk_id: int
    content: str

    @property
    def id(self) -> int:
        return self.chunk_id


def leads_in(content: str) -> bool:
    return content.rstrip().endswith((":", "?"))


def before(hits: list, nxt: Callable) -> list:  # type: ignore[type-arg]
    """Variant A: each lead-in's next chunk, when lower in the list, moved before it."""
    out = list(hits)
    moved: set[int] = set()
    i = 0
    while i < len(out):
        h = out[i]
        follow = nxt(h)
        if leads_in(h.content) and follow is not None and h.chunk_id not in moved:
            j = next((k for k in range(i + 1, len(out)) if out[k].chunk_id == follow.id), None)
            if j is not None:
                moved.add(follow.id)
                out.insert(i, out.pop(j))
                i += 1  # the lead-in is now at i + 1; go on after it
        i += 1
    return out


def after(hits: list, nxt: Callable) -> list:  # type: ignore[type-arg]
    """Variant B: each lead-in's next chunk put just after it (fetched if absent)."""
    out: list = []
    placed: set[int] = set()
    for h in hits:
        if h.chunk_id in placed:
            continue
        out.append(h)
        placed.add(h.chunk_id)
        follow = nxt(h)
        if leads_in(h.content) and follow is not None and follow.id not in placed:
            out.append(follow)
            placed.add(follow.id)
    return out[:len(hits)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gt", default="eval/rustbook", help="ground-truth folder")
    ap.add_argument("--index", required=True, help="its strategy-E index folder")
    ap.add_argument("--out", default="", help="JSON of the figures")
    args = ap.parse_args()
    gt = load_ground_truth(args.gt)
    idx = Index(args.index, create=False)

    def nxt(h):  # type: ignore[no-untyped-def]
        row = idx.store.chunks([h.chunk_id + 1]).get(h.chunk_id + 1)
        if row is None or row.document != h.document or row.section != h.section \
                or row.start < h.start:
            return None
        return _Next(row.id, row.content)

    runs = {"default": None, "A: next chunk before its lead-in": before,
            "B: next chunk just after its lead-in": after}
    ranks: dict[str, list[int | None]] = {n: [] for n in runs}
    budget: dict[str, list[bool]] = {n: [] for n in runs}
    for q in gt.questions:
        for _, text in q.queries:
            hits = list(idx.search(text, k=20).hits)
            for name, change in runs.items():
                got = hits if change is None else change(hits, nxt)
                contents = [h.content for h in got]
                ranks[name].append(metrics.first_correct_rank(contents, q.needle))
                budget[name].append(metrics.within_budget(contents, q.needle, 2000))
    idx.close()
    base = ranks["default"]
    figures = {}
    for name, r in ranks.items():
        better = sum((x or 99) < (y or 99) for x, y in zip(r, base, strict=True))
        worse = sum((x or 99) > (y or 99) for x, y in zip(r, base, strict=True))
        figures[name] = {"R@1": metrics.recall_at_k(r, 1), "R@4": metrics.recall_at_k(r, 4),
                         "MRR": metrics.mrr(r), "R@2000ch": sum(budget[name]) / len(r),
                         "better": better, "worse": worse}
        print(f"{name:38} R@1 {figures[name]['R@1']:.3f}  R@4 {figures[name]['R@4']:.3f}  "
              f"MRR {figures[name]['MRR']:.3f}  R@2000ch {figures[name]['R@2000ch']:.3f}  "
              f"rank better/worse {better}/{worse}")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
