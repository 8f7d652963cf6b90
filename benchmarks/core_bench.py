"""Core benchmark (issue 2): index a ground-truth corpus with the default strategy,
then time and score the queries. Writes one JSON file; never run as a test.

    python benchmarks/core_bench.py --gt eval/rustbook --out reports/bench/core.json

Figures: documents, chunks, index wall time and ms per chunk, peak RSS, query
latency (median / p95 over every query phrasing) split into query embedding,
BM25, dense scan, fusion; R@1/4/8/20, MRR and destroyed answers for dense,
bm25 and hybrid. The machine's load average is recorded next to the timings,
because on a shared 2-core box it moves them more than any code change.

With ``--rerank-model PATH`` (or CITELINE_RERANK_MODEL) the rerank mode is timed and
scored too (the cross-encoder over the hybrid top 30); without one, the JSON says
``"rerank": "unavailable: no cross-encoder weights"`` (none are bundled).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

from citeline.eval.groundtruth import load_ground_truth
from citeline.eval.metrics import first_correct_rank, is_destroyed, mrr, recall_at_k
from citeline.pipeline import Index
from citeline.rerank import RERANK_CANDIDATES

KS = (1, 4, 8, 20)


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def _summary(stage_ms: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {stage: {"median": round(statistics.median(v), 3), "p95": round(_pct(v, 0.95), 3)}
            for stage, v in stage_ms.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gt", default="eval/rustbook", help="ground-truth folder")
    ap.add_argument("--out", default="reports/bench/core.json", help="JSON output path")
    ap.add_argument("--strategy", default="E", help="chunking strategy (default E)")
    ap.add_argument("--threads", type=int, default=0,
                    help="torch threads (default: torch's own choice; 1 = the chapter's single thread)")
    ap.add_argument("--rerank-model", default=os.environ.get("CITELINE_RERANK_MODEL") or None,
                    metavar="PATH",
                    help="local cross-encoder folder: also time and score mode rerank "
                         "(default CITELINE_RERANK_MODEL; none is bundled)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    gt = load_ground_truth(Path(args.gt))
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        idx = Index(Path(tmp) / "index", rerank_model=args.rerank_model)
        if args.rerank_model:
            idx.reranker  # noqa: B018 - load (and validate) the cross-encoder before any work
        t0 = time.perf_counter()
        idx.embedder  # noqa: B018 - load the model outside the indexing timer
        model_load_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = idx.index(gt.root / "docs", strategy=args.strategy)
        index_s = time.perf_counter() - t0
        chunks = report.chunks_written
        contents = [c.content for c in idx.store.all_chunks()]  # type: ignore[attr-defined]

        queries = [(q, ph, text) for q in gt.questions for ph, text in q.queries]
        idx.search("warm up", k=20)
        figures: dict[str, dict[str, float]] = {}
        stage_ms: dict[str, list[float]] = {}
        total_ms: list[float] = []
        rerank_stage_ms: dict[str, list[float]] = {}
        rerank_total_ms: list[float] = []
        modes = ("dense", "bm25", "hybrid") + (("rerank",) if args.rerank_model else ())
        for mode in modes:
            ranks: list[int | None] = []
            for q, _, text in queries:
                t = time.perf_counter()
                res = idx.search(text, k=max(KS), mode=mode)
                elapsed = (time.perf_counter() - t) * 1000
                ranks.append(first_correct_rank([h.content for h in res.hits], q.needle))
                if mode in ("hybrid", "rerank"):
                    stages, totals = ((stage_ms, total_ms) if mode == "hybrid"
                                      else (rerank_stage_ms, rerank_total_ms))
                    totals.append(elapsed)
                    for stage, ms in res.timings.items():
                        stages.setdefault(stage, []).append(ms)
            figures[mode] = {f"R@{k}": recall_at_k(ranks, k) for k in KS}
            figures[mode]["MRR"] = mrr(ranks)
        n_destroyed = sum(is_destroyed(contents, q.needle) for q in gt.questions)
        idx.close()

    out = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
            "loadavg_before": load0,
            "loadavg_after": os.getloadavg(),
        },
        "corpus": str(args.gt),
        "strategy": args.strategy,
        "documents": len(report.indexed),
        "chunks": chunks,
        "over_window": report.over_window,
        "model_load_s": round(model_load_s, 2),
        "index_wall_s": round(index_s, 2),
        "index_ms_per_chunk": round(index_s * 1000 / max(chunks, 1), 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "queries": len(queries),
        "query_ms": _summary({**stage_ms, "total": total_ms}),
        "destroyed": n_destroyed,
        "retrieval": {m: {k: round(v, 3) for k, v in f.items()} for m, f in figures.items()},
        "rerank": (
            {"model": args.rerank_model, "candidates": RERANK_CANDIDATES,
             "query_ms": _summary({**rerank_stage_ms, "total": rerank_total_ms})}
            if args.rerank_model else "unavailable: no cross-encoder weights (none are bundled; "
            "pass --rerank-model PATH or set CITELINE_RERANK_MODEL)"
        ),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
