"""Does the extractive answer keep the needle, and in how many characters?

For every query of a ground-truth folder (format: shared/eval/README.md) it
asks the index for the extractive answer and records whether the selected
sentences contain the needle whole (inside one run of adjacent selected
sentences, see ``citeline.answer.extractive.needle_kept``) and the answer's
length in characters. The baseline is a fixed top-1 chunk: the first hit's
``content`` of the same fused search, containing the needle or not, and its
length. Both are rates with 95% Wilson intervals, and the lengths are medians.

    python benchmarks/answer_eval.py GT_DIR --index DIR [--out reports/answer_eval.json]

The index must hold GT_DIR/docs (it is built there when empty, which takes
~2 minutes of CPU for rustbook). No generation call is made.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

from citeline.answer.extractive import needle_kept
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import Index

Z95 = 1.959963984540054  # two-sided 95% normal quantile, for the Wilson interval


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (Wilson 1927).

    Worked by hand: k=5, n=10, z=1.96 -> centre 0.5, half-width
    1.96*sqrt(0.25/10 + 1.96**2/400)/(1 + 1.96**2/10) = 0.2366 -> (0.2366, 0.7634).
    """
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def evaluate(idx: Index, gt: Path) -> dict[str, object]:
    # the answer's spans are offsets into each document's canonical text: the
    # extractor's (an HTML page's extracted text, not its markup)
    truth = load_ground_truth(gt)
    rows = []
    t0 = time.perf_counter()
    for q in truth.queries():
        ans = idx.ask(q.text, generator="extractive")
        top1 = idx.search(q.text, k=1).hits[0]
        doc, needle = q.gt.doc, q.gt.needle
        rows.append({
            "id": q.gt.id, "phrasing": q.phrasing, "refused": ans.refused,
            "extractive_kept": (not ans.refused)
            and needle_kept(doc, truth.texts[doc], ans.spans, needle),
            "extractive_chars": 0 if ans.refused else len(ans.answer),
            "top1_kept": top1.document == doc and needle in top1.content,
            "top1_chars": len(top1.content),
            "sentences": len(ans.spans),
        })
    n = len(rows)

    def rate(key: str) -> dict[str, object]:
        k = sum(1 for r in rows if r[key])
        lo, hi = wilson(k, n)
        return {"kept": k, "n": n, "rate": round(k / n, 3), "wilson95": [round(lo, 3), round(hi, 3)]}

    ex_b = sum(1 for r in rows if r["extractive_kept"] and not r["top1_kept"])
    ex_w = sum(1 for r in rows if r["top1_kept"] and not r["extractive_kept"])
    return {
        "ground_truth": str(gt),
        "index": idx.location,
        "queries": n,
        "refused": sum(1 for r in rows if r["refused"]),
        "extractive": {
            **rate("extractive_kept"),
            # over the answered queries: a refusal is no answer, not a 0-character one
            "median_chars": statistics.median(answered) if (
                answered := [r["extractive_chars"] for r in rows if not r["refused"]]) else None,
            "median_sentences": statistics.median(r["sentences"] for r in rows if not r["refused"])
            if answered else None,
        },
        "top1_chunk": {**rate("top1_kept"), "median_chars": statistics.median(r["top1_chars"] for r in rows)},
        "discordant": {"extractive_only": ex_b, "top1_only": ex_w},
        "seconds": round(time.perf_counter() - t0, 1),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gt", type=Path, help="ground-truth folder (docs/, questions.jsonl)")
    ap.add_argument("--index", required=True, help="index folder holding GT/docs (built if empty)")
    ap.add_argument("--out", type=Path, default=Path("reports/answer_eval.json"), help="JSON output")
    args = ap.parse_args(argv)
    idx = Index(args.index)
    if idx.store.stats().chunks == 0:
        print(f"indexing {args.gt / 'docs'} ...", file=sys.stderr)
        idx.index(args.gt / "docs")
    report = evaluate(idx, args.gt)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    ex, top = report["extractive"], report["top1_chunk"]
    print(f"extractive: needle kept {ex['kept']}/{ex['n']} = {ex['rate']} {ex['wilson95']}, "
          f"median {ex['median_chars']} chars")
    print(f"top-1 chunk: needle kept {top['kept']}/{top['n']} = {top['rate']} {top['wilson95']}, "
          f"median {top['median_chars']} chars")
    print(f"discordant: {report['discordant']}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
