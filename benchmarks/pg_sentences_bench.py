"""The default fusion's third list on PostgreSQL: best sentence per chunk through
the partial HNSW index over sentence vectors, against the exact scan.

N chunks (default 100,000), each with S sentence vectors (default 4, about what
rustbook's chunks hold), synthetic but drawn around real chunk embeddings like
benchmarks/pg_bench.py's "mix" generator: a chunk is a point between a real
all-MiniLM-L6-v2 chunk vector and one of its neighbours, and its sentences are
that point plus noise (cosine ~0.8 to it, about what a real sentence has to its
chunk). Queries are the real ground-truth questions' embeddings plus synthetic
draws. The truth is an exact numpy max over every sentence of every chunk.

Measured: the COPY load, the sentence HNSW build, the store's own
``sentence_max_with`` at the pipeline's depth (200 chunks) in "hnsw" and
"exact" mode (p50/p95), recall@10 and recall@200 of the chunk list against the
exact one, how often fewer than 200 chunks come back, and whether the planner
uses the index. Then the whole pipeline search on that store with the real model
and the real questions, the default "section" fusion against the port ("rrf"), in
rotating order (the store has no BM25 postings: synthetic chunks have no text, so
this is the vector side's cost). Not a test::

    .venv/bin/python benchmarks/pg_sentences_bench.py --n 100000 --out reports/bench/pg_sentences.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from pg_bench import (
    DIM,
    WARMUP,
    centres_from,
    copy_chunks,
    postgres_memory,
    recall,
    summary,
    synthesize_mix,
    timed,
)

from citeline.embed import load_embedder
from citeline.pipeline import FUSION_DEPTH, Index
from citeline.store.pg_local import LocalPostgres
from citeline.store.postgres import SENTENCE_EF_SEARCH, SENTENCE_ROWS, PostgresStore

# Sentence noise: a sentence sits at cosine ~ 1/sqrt(1 + 0.75^2) = 0.8 from its chunk.
SENTENCE_NOISE = 0.75


def sentences_of(chunks: np.ndarray, per: int, rng: np.random.Generator) -> np.ndarray:
    """``per`` unit vectors around each chunk vector: shape (n, per, dim)."""
    out = np.repeat(chunks[:, None, :], per, axis=1)
    out += (SENTENCE_NOISE / np.sqrt(DIM)) * rng.standard_normal(out.shape, dtype=np.float32)
    out /= np.linalg.norm(out, axis=2, keepdims=True)
    return out


def exact_sentence_max(sent: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """Chunk indexes of the ``k`` best per-chunk maxima, best first, per query."""
    n, per, _ = sent.shape
    flat = sent.reshape(n * per, DIM)
    out = np.empty((len(queries), k), dtype=np.int64)
    for qi, q in enumerate(queries):
        best = (flat @ q).reshape(n, per).max(axis=1)
        top = np.argpartition(-best, k - 1)[:k]
        out[qi] = top[np.argsort(-best[top], kind="stable")]
    return out


def load(store: PostgresStore, key: str, chunks: np.ndarray, sent: np.ndarray) -> float:
    table, _ = store._space(key, DIM, create=True, index=False)  # type: ignore[misc]
    c = store.conn
    t = time.perf_counter()
    with c.transaction():
        cur = c.cursor()
        copy_chunks(cur, table, key, chunks)
        with cur.copy(
            "COPY sentences (chunk_id, start_char, end_char, text_hash, model_key, embedding) "
            "FROM STDIN (FORMAT BINARY)"
        ) as cp:
            cp.set_types(["int8", "int4", "int4", "text", "text", "vector"])
            for i in range(len(chunks)):
                for v in sent[i]:
                    cp.write_row((i + 1, 0, 1, "", key, v))
    c.execute(f"VACUUM ANALYZE {table}")
    c.execute("VACUUM ANALYZE sentences")
    return time.perf_counter() - t


def pipeline_latency(url: str, model, texts: list[str]) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Whole ``Index.search`` (hybrid, k 20) per fusion, rotating which goes first."""
    idx = Index(url, embedder=model, create=False)
    fusions = ("rrf", "section")
    ms: dict[str, dict[str, list[float]]] = {f: {"total": [], "total_excl_embed": []}
                                             for f in fusions}
    for n, text in enumerate(texts[:WARMUP] + texts):
        turn = n % len(fusions)
        for fusion in fusions[turn:] + fusions[:turn]:
            t = time.perf_counter()
            res = idx.search(text, k=20, mode="hybrid", fusion=fusion)  # type: ignore[arg-type]
            elapsed = (time.perf_counter() - t) * 1000
            if n >= WARMUP:
                ms[fusion]["total"].append(elapsed)
                ms[fusion]["total_excl_embed"].append(elapsed - res.timings.get("embed", 0.0))
                for stage, v in res.timings.items():
                    ms[fusion].setdefault(stage, []).append(v)
    idx.close()
    out: dict[str, object] = {f: {m: summary(v) for m, v in st.items()} for f, st in ms.items()}
    out["section_over_port"] = {
        m: {q: round(float(np.percentile(ms["section"][m], p) / np.percentile(ms["rrf"][m], p)), 2)
            for q, p in (("p50", 50), ("p95", 95))}
        for m in ("total", "total_excl_embed")}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="chunks to generate")
    ap.add_argument("--per", type=int, default=4, help="sentence vectors per chunk")
    ap.add_argument("--queries", type=int, default=150, help="timed queries")
    ap.add_argument("--exact-queries", type=int, default=20, help="timed exact scans")
    ap.add_argument("--centres", type=Path, default=Path("reports/pg/rustbook-index"),
                    help="SQLite index whose chunk vectors are the centres (built if missing)")
    ap.add_argument("--corpus", type=Path, default=Path("eval/rustbook/docs"))
    ap.add_argument("--questions", type=Path, default=Path("eval/rustbook/questions.jsonl"),
                    help="real questions: query vectors, and the pipeline's queries")
    ap.add_argument("--sweep", default="200:400,400:400,400:800,1000:1000",
                    type=lambda s: [tuple(int(x) for x in p.split(":")) for p in s.split(",")],
                    help="rows:ef_search pairs for the sentence HNSW query")
    ap.add_argument("--out", type=Path, required=True, help="JSON report")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(20261130)
    centres = centres_from(args.centres, args.corpus)
    chunks = synthesize_mix(centres, args.n, rng)
    sent = sentences_of(chunks, args.per, rng)
    model = load_embedder()
    key = model.identity.key  # the real model's key: the pipeline searches this store
    texts = [t for line in args.questions.read_text().splitlines() if line.strip()
             for t in json.loads(line)["queries"].values()]
    real_q = model.embed(texts).astype(np.float32)
    synthetic = sentences_of(synthesize_mix(centres, args.queries, rng), 1, rng)[:, 0]
    queries = np.vstack([real_q, synthetic])[: args.queries]
    queries = np.vstack([queries[-WARMUP:], queries])
    k = FUSION_DEPTH
    t = time.perf_counter()
    truth = exact_sentence_max(sent, queries[WARMUP:], k)
    print(f"{args.n} chunks x {args.per} sentences, truth in {time.perf_counter() - t:.1f}s",
          file=sys.stderr, flush=True)

    base = Path(tempfile.mkdtemp(prefix="citeline-bench-"))
    os.chmod(base, 0o755)
    report: dict[str, object] = {
        "n_chunks": args.n, "sentences_per_chunk": args.per, "dim": DIM, "depth": k,
        "queries": len(queries) - WARMUP, "real_queries": int(len(real_q)),
        "cores": os.cpu_count(), "load_average_at_start": os.getloadavg(),
    }
    pg = LocalPostgres(base / "pg", settings={
        "shared_buffers": "2GB", "maintenance_work_mem": "4GB",
        "max_parallel_maintenance_workers": "1", "max_wal_size": "8GB",
        "checkpoint_timeout": "30min", "dynamic_shared_memory_type": "posix",
    })
    pg.start()
    try:
        url = pg.create_database("bench")
        store = PostgresStore(url)
        report["load_s"] = round(load(store, key, chunks, sent), 1)
        print(f"loaded in {report['load_s']}s", file=sys.stderr, flush=True)
        t = time.perf_counter()
        store.build_vector_indexes()  # chunk HNSW + sentence HNSW
        report["build_both_hnsw_s"] = round(time.perf_counter() - t, 1)
        print(f"both HNSW indexes in {report['build_both_hnsw_s']}s", file=sys.stderr, flush=True)
        c = store.conn
        sid = store.vector_spaces()[key][0].split("_")[1]
        report["sentence_hnsw_mb"] = round(c.execute(
            "SELECT pg_relation_size(%s)", (f"sentences_{sid}_hnsw",)).fetchone()[0] / 2**20, 1)
        plan = "\n".join(r[0] for r in c.execute(
            f"EXPLAIN SELECT chunk_id FROM sentences WHERE model_key = '{key}' "
            f"ORDER BY embedding::vector({DIM}) <=> %s::vector LIMIT 1000",
            (str(queries[0].tolist()),)).fetchall())
        report["planner_uses_sentence_hnsw"] = f"sentences_{sid}_hnsw" in plan
        sweep = []
        for rows, ef in args.sweep:
            times, results = timed(
                lambda q, rows=rows, ef=ef: [i - 1 for i, _ in store.sentence_max_with(
                    q, k, key, "hnsw", rows=rows, ef_search=ef)], queries)
            row = {
                "rows": rows, "ef_search": ef, "default": (rows, ef) == (SENTENCE_ROWS,
                                                                          SENTENCE_EF_SEARCH),
                **summary(times), "recall@10": recall(results, truth, 10),
                "recall@50": recall(results, truth, 50),
                f"recall@{k}": recall(results, truth, k),
                "median_chunks": float(np.median([len(r) for r in results])),
                "fewest_chunks": min(len(r) for r in results),
            }
            print(f"hnsw {row}", file=sys.stderr, flush=True)
            sweep.append(row)
        report["hnsw"] = sweep
        m = WARMUP + args.exact_queries
        times, results = timed(
            lambda q: [i - 1 for i, _ in store.sentence_max_with(q, k, key, "exact")],
            queries[:m])
        report["exact_scan"] = {**summary(times),
                                f"recall@{k}": recall(results, truth[: m - WARMUP], k)}
        print(f"exact {report['exact_scan']}", file=sys.stderr, flush=True)
        times, _ = timed(lambda q: store.dense(q, k, key), queries)
        report["chunk_dense_hnsw_same_queries"] = summary(times)
        report["memory"] = postgres_memory(pg.bin)
        store.close()
        report["pipeline"] = pipeline_latency(url, model, texts)
        print(f"pipeline {report['pipeline']}", file=sys.stderr, flush=True)
    finally:
        pg.stop()
        shutil.rmtree(base, ignore_errors=True)
    report["load_average_at_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
