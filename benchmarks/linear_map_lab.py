"""Measure ``citeline adapt --query-map`` (issue 7): a query-side linear map fitted
on an index's own inverse-cloze and heading pairs, the embedding model frozen.

Scores dense and the default hybrid ("section") on the ground truth without a
map, fits one with the product's :func:`citeline.adapt.fit_query_map` (its fixed
settings: at most 3,000 sentence -> chunk pairs, random, seed 0, plus every
heading -> section pair; batch 64, a chunk at most once per batch; scale 20;
Adam lr 1e-3; 5 epochs, all chosen before the first run), scores again, pairs
the two query by query, and drops the map.

    python benchmarks/linear_map_lab.py INDEX_DIR GT_DIR --out results.json

INDEX_DIR: a strategy-E SQLite index of GT_DIR's docs built by the bundled
model (e.g. reports/eval/indexes/E after ``make eval``). Measured in
docs/retrieval-experiments.md, section 18 (first as a lab, with the same
settings, before the option existed).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from citeline.adapt import drop_query_map, fit_query_map
from citeline.eval import stats
from citeline.eval.metrics import first_correct_rank, within_budget
from citeline.pipeline import Index

Row = tuple[str, int | None, bool]  # phrasing, first correct rank, needle within 2,000 chars


def score(idx: Index, questions: list[dict[str, Any]], mode: str) -> list[Row]:
    out = []
    for q in questions:
        for phrasing, text in q["queries"].items():
            res = idx.search(text, k=20, mode=mode,  # type: ignore[arg-type]
                             fusion="section" if mode == "hybrid" else None)
            contents = [h.content for h in res.hits]
            out.append((phrasing, first_correct_rank(contents, q["needle"]),
                        within_budget(contents, q["needle"], 2000)))
    return out


def figures(rows: list[Row]) -> dict[str, float]:
    ranks = [r for _, r, _ in rows]

    def at(k: int) -> float:
        return round(float(np.mean([r is not None and r <= k for r in ranks])), 3)

    return {"R@1": at(1), "R@4": at(4), "R@20": at(20),
            "MRR": round(float(np.mean([1 / r if r else 0.0 for r in ranks])), 3),
            "R@2000ch": round(float(np.mean([w for _, _, w in rows])), 3)}


def paired(new: list[Row], old: list[Row]) -> dict[str, str]:
    out = {}
    for k in (1, 4, 20):
        p = stats.paired([r is not None and r <= k for _, r, _ in new],
                         [r is not None and r <= k for _, r, _ in old])
        out[f"R@{k}"] = f"+{p.wins}/-{p.losses} p={p.p:.3f}"
    p = stats.paired([w for _, _, w in new], [w for _, _, w in old])
    out["R@2000ch"] = f"+{p.wins}/-{p.losses} p={p.p:.3f}"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index", help="strategy-E SQLite index of the ground truth's docs "
                                  "(its query map, if any, is replaced, then dropped)")
    ap.add_argument("gt", help="ground-truth folder")
    ap.add_argument("--out", type=Path, required=True, help="JSON result")
    args = ap.parse_args()

    idx = Index(args.index, create=False)
    questions = [json.loads(line) for line in (Path(args.gt) / "questions.jsonl").open()
                 if line.strip()]
    drop_query_map(idx.store)
    before = {m: score(idx, questions, m) for m in ("dense", "hybrid")}
    report = fit_query_map(idx)
    after = {m: score(idx, questions, m) for m in ("dense", "hybrid")}
    drop_query_map(idx.store)

    result: dict[str, Any] = {
        "index": args.index, "gt": args.gt, "pairs": report.pairs,
        "embed_s": report.embed_seconds, "train_s": report.train_seconds, "runs": {},
    }
    for m in ("dense", "hybrid"):
        result["runs"][m] = {"without": figures(before[m]), "with map": figures(after[m]),
                             "paired": paired(after[m], before[m])}
        print(m, json.dumps(result["runs"][m]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
