"""Core benchmark (issue 2): index a ground-truth corpus with the default strategy,
then time and score the queries. Writes one JSON file; never run as a test.

    python benchmarks/core_bench.py --gt eval/rustbook --out reports/bench/core.json

Figures: documents, chunks, index wall time and ms per chunk, peak RSS, query
latency (median / p95 over every query phrasing) split into query embedding,
BM25, dense scan, fusion; R@1/4/8/20, MRR and destroyed answers for dense,
bm25 and hybrid. Each hybrid fusion (the faithful port "rrf", the sentence-level
list "sentence", "section" and the default "late") is timed on the same queries, alternating
query by query so load drift hits them alike, with the ratio of each one's p50/p95
to the port's (issue 7: within 2x). Index
cost of the sentence list: sentences stored and embedded, and the model's time per
chunk text vs per sentence text. The machine's load average is recorded next to the timings,
because on a shared 2-core box it moves them more than any code change.

With ``--rerank-model PATH`` (or CITELINE_RERANK_MODEL) the rerank mode is timed and
scored too (a cross-encoder over the hybrid top 30, or a causal LM such as ``smollm2``
as the query-likelihood reranker over the top 10); without one, the JSON says
``"rerank": "unavailable: no reranker configured"`` (no cross-encoder is bundled).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

from citeline.embed import load_embedder
from citeline.eval.cache import CachingEmbedder
from citeline.eval.groundtruth import load_ground_truth
from citeline.eval.metrics import first_correct_rank, is_destroyed, mrr, recall_at_k
from citeline.pipeline import Index
from citeline.rerank import load_reranker
from citeline.sentences import sentence_text, split_sentences
from citeline.store.sqlite import DB_NAME

KS = (1, 4, 8, 20)
BENCH_FUSIONS = ("rrf", "sentence", "section", "late")
# Chunks whose texts (and sentences) time the model's per-text cost: enough for a
# stable mean, few enough to take seconds.
SAMPLE = 60


def _q(values: list[float], q: str) -> float:
    return statistics.median(values) if q == "p50" else _pct(values, 0.95)


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
    ap.add_argument("--cache", default=None, metavar="FILE",
                    help="embedding cache (citeline.eval.cache) for indexing only: query "
                         "latency without re-embedding a corpus (queries still run through "
                         "the model); index times then measure the cache, not the model")
    ap.add_argument("--threads", type=int, default=0,
                    help="torch threads (default: torch's own choice; 1 = the chapter's single thread)")
    ap.add_argument("--rerank-model", default=os.environ.get("CITELINE_RERANK_MODEL") or None,
                    metavar="PATH",
                    help="local cross-encoder folder, causal LM or 'smollm2': also time and "
                         "score mode rerank (default CITELINE_RERANK_MODEL; none is bundled)")
    ap.add_argument("--rerank-candidates", type=int, default=None, metavar="N",
                    help="how many fused hits rerank re-scores (default: the reranker's own)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    gt = load_ground_truth(Path(args.gt))
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        if args.rerank_model:  # load (and validate) the reranker before any work
            load_reranker(args.rerank_model)
        t0 = time.perf_counter()
        model = load_embedder()  # loaded outside the indexing timer
        model_load_s = time.perf_counter() - t0
        embedder = CachingEmbedder(model, args.cache) if args.cache else model
        idx = Index(Path(tmp) / "index", embedder=embedder, rerank_model=args.rerank_model,
                    rerank_candidates=args.rerank_candidates)
        t0 = time.perf_counter()
        report = idx.index(gt.root / "docs", strategy=args.strategy, sentences=True)
        index_s = time.perf_counter() - t0
        if args.cache:  # queries always go through the model itself, as `search` does
            idx.close()
            idx = Index(Path(tmp) / "index", embedder=model, rerank_model=args.rerank_model,
                        rerank_candidates=args.rerank_candidates)
        chunks = report.chunks_written
        # what the index holds on disk, and how much of it is the late fusion's token vectors
        db = sqlite3.connect(Path(tmp) / "index" / DB_NAME)
        tok_bytes, n_tok_chunks = db.execute(
            "SELECT COALESCE(SUM(length(token_vectors)), 0), COUNT(token_vectors) FROM chunks"
        ).fetchone()
        db.close()
        disk = {
            "folder_mb": round(sum(f.stat().st_size for f in (Path(tmp) / "index").iterdir()
                                   if f.is_file()) / 2**20, 1),
            "token_vectors_mb": round(tok_bytes / 2**20, 1),
            "tokens_per_chunk": round(tok_bytes / max(1, n_tok_chunks) / model.identity.dim, 1),
            "tokens_embedded": report.tokens_embedded,
        }
        contents = [c.content for c in idx.store.all_chunks()]  # type: ignore[attr-defined]

        queries = [(q, ph, text) for q in gt.questions for ph, text in q.queries]
        idx.search("warm up", k=20)
        figures: dict[str, dict[str, float]] = {}
        stage_ms: dict[str, list[float]] = {}
        total_ms: list[float] = []
        rerank_stage_ms: dict[str, list[float]] = {}
        rerank_total_ms: list[float] = []
        modes = ("dense", "bm25", "hybrid") + (("rerank",) if args.rerank_model else ())
        rerank_candidates = idx.rerank_candidates if args.rerank_model else None
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
        fusion_ms: dict[str, dict[str, list[float]]] = {f: {} for f in BENCH_FUSIONS}
        fusion_ranks: dict[str, list[int | None]] = {f: [] for f in BENCH_FUSIONS}
        for n, (q, _, text) in enumerate(queries):
            turn = n % len(BENCH_FUSIONS)  # rotate which fusion goes first
            for fusion in BENCH_FUSIONS[turn:] + BENCH_FUSIONS[:turn]:
                t = time.perf_counter()
                res = idx.search(text, k=max(KS), mode="hybrid", fusion=fusion)
                elapsed = (time.perf_counter() - t) * 1000
                fusion_ranks[fusion].append(
                    first_correct_rank([h.content for h in res.hits], q.needle))
                stages = fusion_ms[fusion]
                stages.setdefault("total", []).append(elapsed)
                stages.setdefault("total_excl_embed", []).append(
                    elapsed - res.timings.get("embed", 0.0))
                for stage, ms in res.timings.items():
                    stages.setdefault(stage, []).append(ms)
        for fusion, rs in fusion_ranks.items():
            figures[f"hybrid+{fusion}"] = {f"R@{k}": recall_at_k(rs, k) for k in KS}
            figures[f"hybrid+{fusion}"]["MRR"] = mrr(rs)
        # the model's cost per text: a sample of chunk texts vs sentence texts
        rows = idx.store.all_chunks()
        sample = rows[:: max(1, len(rows) // SAMPLE)][:SAMPLE]
        chunk_texts = [r.text for r in sample]
        sent_texts = []
        for r in sample:
            doc_text = idx.document_text(r.document) or ""
            sent_texts += [sentence_text(r.section, doc_text[s:e])
                           for s, e in split_sentences(doc_text, r.start, r.end)]
        t = time.perf_counter()
        model.embed(chunk_texts)
        chunk_text_ms = (time.perf_counter() - t) * 1000 / max(1, len(chunk_texts))
        t = time.perf_counter()
        model.embed(sent_texts)
        sent_text_ms = (time.perf_counter() - t) * 1000 / max(1, len(sent_texts))
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
        "index_disk": disk,
        "queries": len(queries),
        "query_ms": _summary({**stage_ms, "total": total_ms}),
        "query_ms_by_fusion": {
            f: {stage: {"median": round(statistics.median(v), 3), "p95": round(_pct(v, 0.95), 3)}
                for stage, v in st.items()}
            for f, st in fusion_ms.items()
        },
        **{f"{f}_over_port": {
            m: {q: round(_q(fusion_ms[f][m], q) / _q(fusion_ms["rrf"][m], q), 2)
                for q in ("p50", "p95")}
            for m in ("total", "total_excl_embed")
        } for f in BENCH_FUSIONS if f != "rrf"},
        "index_cached": bool(args.cache),
        "sentences": {
            "written": report.sentences_written,
            "embedded": report.sentences_embedded,
            "per_chunk": round(report.sentences_written / max(chunks, 1), 2),
            "model_ms_per_chunk_text": round(chunk_text_ms, 2),
            "model_ms_per_sentence_text": round(sent_text_ms, 2),
            "sample_chunks": len(chunk_texts),
            "sample_sentences": len(sent_texts),
        },
        "destroyed": n_destroyed,
        "retrieval": {m: {k: round(v, 3) for k, v in f.items()} for m, f in figures.items()},
        "rerank": (
            {"model": args.rerank_model, "candidates": rerank_candidates,
             "query_ms": _summary({**rerank_stage_ms, "total": rerank_total_ms})}
            if args.rerank_model else "unavailable: no reranker configured (no cross-encoder "
            "weights are bundled; pass --rerank-model PATH or smollm2, or set "
            "CITELINE_RERANK_MODEL)"
        ),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
