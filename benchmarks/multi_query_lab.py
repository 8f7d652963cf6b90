"""Lab: does splitting a support-ticket query into its clauses help dense retrieval?

Each query is split at sentence ends, ';' and ' -- ' (pieces of MIN_PIECE+
characters); the dense list ranks chunks by the best cosine over the whole query
and its pieces ("max") or by the normalised mean of their vectors ("mean"), fused
with BM25 by RRF k=60 like the port. Parameter-free, so no cross-validation is
needed. Reads an existing strategy-E index of eval/rustbook; docs/retrieval-
experiments.md section 13 has the result::

    .venv/bin/python benchmarks/multi_query_lab.py --index reports/eval/indexes/E
"""

from __future__ import annotations

import argparse
import json
import re

import numpy as np

from citeline.eval import metrics, stats
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import Index
from citeline.retrieve.bm25 import tokenize
from citeline.retrieve.fuse import rrf

DEPTH = 200  # each list's depth, as Index.search uses
PORT_RRF_K = 60  # the faithful port's fusion
MIN_PIECE = 12  # shorter pieces ("why?") carry no content of their own
KS = (1, 4, 8, 20)
_SPLIT = re.compile(r"(?<=[?.;!])\s+|\s+--\s+|;\s*")


def pieces(query: str) -> list[str]:
    """The whole query, then its clauses when there are several."""
    parts = [p.strip() for p in _SPLIT.split(query) if len(p.strip()) >= MIN_PIECE]
    return [query] + (parts if len(parts) > 1 else [])


def summary(ranks: list[int | None], phrasings: list[str]) -> dict[str, float]:
    out = {f"R@{k}": metrics.recall_at_k(ranks, k) for k in KS}
    out["MRR"] = metrics.mrr(ranks)
    for ph in sorted(set(phrasings)):
        out[f"{ph} R@4"] = metrics.recall_at_k(
            [r for r, p in zip(ranks, phrasings, strict=True) if p == ph], 4)
    return {k: round(v, 3) for k, v in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gt", default="eval/rustbook", help="ground-truth folder")
    ap.add_argument("--index", default="reports/eval/indexes/E", help="strategy-E index folder")
    args = ap.parse_args()
    gt = load_ground_truth(args.gt)
    idx = Index(args.index, create=False)
    store, key = idx.store, idx.embedder.identity.key
    contents = {c.id: c.content for c in store.all_chunks()}  # type: ignore[attr-defined]
    ranks: dict[str, list[int | None]] = {"port": [], "max": [], "mean": []}
    phrasings: list[str] = []
    for q in gt.questions:
        for ph, text in q.queries:
            phrasings.append(ph)
            vecs = idx.embedder.embed(pieces(text))
            bm25 = [i for i, _ in store.bm25(tokenize(text), DEPTH)]
            best: dict[int, float] = {}
            for v in vecs:
                for i, s in store.dense(v, DEPTH, key):
                    best[i] = max(best.get(i, -1.0), s)
            mean = vecs.mean(axis=0)
            lists = {
                "port": [i for i, _ in store.dense(vecs[0], DEPTH, key)],
                "max": sorted(best, key=lambda i: -best[i])[:DEPTH],
                "mean": [i for i, _ in store.dense(mean / np.linalg.norm(mean), DEPTH, key)],
            }
            for name, dense in lists.items():
                fused = [i for i, _ in rrf([dense, bm25], k=PORT_RRF_K)[: max(KS)]]
                ranks[name].append(
                    metrics.first_correct_rank([contents[i] for i in fused], q.needle))
    out = {name: summary(r, phrasings) for name, r in ranks.items()}
    out["paired_vs_port"] = {
        f"{name}@{k}": stats.paired([bool(x and x <= k) for x in ranks[name]],
                                    [bool(x and x <= k) for x in ranks["port"]]).to_json()
        for name in ("max", "mean") for k in (4, 20)
    }
    print(json.dumps(out, indent=2))
    idx.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
