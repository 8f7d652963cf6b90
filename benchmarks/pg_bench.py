"""Dense retrieval at scale: SQLite + numpy exact scan vs PostgreSQL + pgvector HNSW.

N chunks (default 1,000,000) of 384-d vectors, synthetic but drawn around real
chunk embeddings so that neighbourhoods look like a real corpus's: every
synthetic vector is a real all-MiniLM-L6-v2 chunk embedding (the centres, from
an existing SQLite index, e.g. the one benchmarks/pg_parity.py builds over
rustbook) plus isotropic Gaussian noise, renormalised. Queries are the real
embeddings of the ground-truth questions plus held-out synthetic draws; the
truth for recall@k is an exact numpy top-k over all N vectors.

Measured per backend: load time (bulk: one SQLite transaction / PostgreSQL
COPY), index build time (SQLite: loading the in-memory matrix; PostgreSQL:
CREATE INDEX ... USING hnsw), query p50/p95 through the store's own ``dense``,
recall@k against exact, memory and disk. Not a test::

    .venv/bin/python benchmarks/pg_bench.py --n 100000 --out reports/pg_bench_100k.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from citeline.store.pg_local import LocalPostgres
from citeline.store.postgres import HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH, HNSW_M
from citeline.store.sqlite import DB_NAME, SQLiteStore

DIM = 384
MODEL_KEY = "bench/synthetic@0/384"
# Noise scale: a draw sits at cosine ~ 1/sqrt(1 + NOISE^2) ~ 0.82 from its centre,
# about as far as neighbouring chunks of one chapter are from each other in rustbook.
NOISE = 0.7
# The "mix" generator: a point on the segment between a real centre and one of its
# MIX_NEIGHBOURS nearest real centres, plus a little isotropic noise (cosine ~0.98 to
# the segment). It keeps the low intrinsic dimension real embeddings have; pure
# isotropic 384-d noise makes every cluster a shell of near-equidistant points,
# the worst case for any approximate index.
MIX_NEIGHBOURS = 10
MIX_NOISE = 0.2
CHUNKS_PER_DOC = 1000
# Queries timed per configuration, after WARMUP untimed ones.
WARMUP = 20


def rss_mb(pid: int | str = "self") -> dict[str, float]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "RssAnon", "RssShmem", "VmHWM"):
            out[k] = int(v.split()[0]) / 1024
    return out


def postgres_memory(bin_dir: Path) -> dict[str, float]:
    """RSS of every process of this cluster: private (anon) summed, shared counted once."""
    anon = shmem = 0.0
    n = 0
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            exe = os.readlink(p / "exe")
            m = rss_mb(p.name)
        except OSError:
            continue
        if exe.startswith(str(bin_dir)):
            n += 1
            anon += m.get("RssAnon", 0.0)
            shmem = max(shmem, m.get("RssShmem", 0.0))
    return {"processes": n, "private_rss_mb": round(anon, 1), "shared_rss_mb_max": round(shmem, 1)}


def centres_from(index: Path, corpus: Path) -> np.ndarray:
    """The chunk vectors of ``index``; built from ``corpus`` with the real model first
    when the folder holds no index yet (a fresh clone)."""
    if not (index / DB_NAME).exists():
        from citeline.pipeline import Index

        print(f"building the centres index {index} from {corpus}", file=sys.stderr)
        idx = Index(index)
        idx.index(corpus)
        idx.close()
    conn = sqlite3.connect(index / DB_NAME)
    blobs = [b for (b,) in conn.execute("SELECT vector FROM chunks")]
    conn.close()
    if not blobs:
        raise SystemExit(f"{index}: no chunks (run benchmarks/pg_parity.py first)")
    return np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs])


def synthesize(centres: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    out = np.empty((n, centres.shape[1]), dtype=np.float32)
    for s in range(0, n, 100_000):
        e = min(n, s + 100_000)
        x = centres[rng.integers(len(centres), size=e - s)].astype(np.float32)
        x += (NOISE / np.sqrt(centres.shape[1])) * rng.standard_normal(x.shape, dtype=np.float32)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        out[s:e] = x
    return out


def synthesize_mix(centres: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    sims = centres @ centres.T
    np.fill_diagonal(sims, -np.inf)
    near = np.argsort(-sims, axis=1)[:, :MIX_NEIGHBOURS]
    out = np.empty((n, centres.shape[1]), dtype=np.float32)
    for s in range(0, n, 100_000):
        e = min(n, s + 100_000)
        i = rng.integers(len(centres), size=e - s)
        j = near[i, rng.integers(MIX_NEIGHBOURS, size=e - s)]
        w = rng.random((e - s, 1), dtype=np.float32)
        x = w * centres[i] + (1 - w) * centres[j]
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        x += (MIX_NOISE / np.sqrt(centres.shape[1])) * rng.standard_normal(x.shape, dtype=np.float32)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        out[s:e] = x
    return out


def exact_topk(data: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    sims = np.empty((len(queries), len(data)), dtype=np.float32)
    for s in range(0, len(data), 200_000):
        sims[:, s : s + 200_000] = queries @ data[s : s + 200_000].T
    top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    order = np.take_along_axis(sims, top, axis=1).argsort(axis=1)[:, ::-1]
    return np.take_along_axis(top, order, axis=1)


def timed(fn, queries: np.ndarray) -> tuple[list[float], list]:  # type: ignore[no-untyped-def]
    """Run the first WARMUP queries untimed, then time the rest."""
    for q in queries[:WARMUP]:
        fn(q)
    times, results = [], []
    for q in queries[WARMUP:]:
        t = time.perf_counter()
        results.append(fn(q))
        times.append((time.perf_counter() - t) * 1000)
    return times, results


def summary(times: list[float]) -> dict[str, float]:
    return {"p50_ms": round(float(np.percentile(times, 50)), 3),
            "p95_ms": round(float(np.percentile(times, 95)), 3),
            "mean_ms": round(float(np.mean(times)), 3)}


def recall(results: list[list[int]], truth: np.ndarray, k: int) -> float:
    return float(np.mean([len(set(r[:k]) & set(t[:k].tolist())) / k
                          for r, t in zip(results, truth, strict=True)]))


def bench_sqlite(base: Path, data: np.ndarray, queries: np.ndarray, truth: np.ndarray, k: int):  # type: ignore[no-untyped-def]
    store = SQLiteStore(base / "sqlite")
    c = store.conn
    t = time.perf_counter()
    c.execute("BEGIN IMMEDIATE")
    n_docs = (len(data) + CHUNKS_PER_DOC - 1) // CHUNKS_PER_DOC
    c.executemany("INSERT INTO documents (id, path, state) VALUES (?, ?, 'indexed')",
                  [(d + 1, f"doc-{d}.md") for d in range(n_docs)])
    c.executemany(
        "INSERT INTO chunks (id, doc_id, ordinal, start, end, section, text, content, locator, "
        "tokens, header_tokens, text_hash, model_key, vector, length) "
        "VALUES (?, ?, ?, 0, 1, '', 'x', 'x', '{}', 1, 0, '', ?, ?, 1)",
        ((i + 1, i // CHUNKS_PER_DOC + 1, i % CHUNKS_PER_DOC, MODEL_KEY, data[i].tobytes())
         for i in range(len(data))),
    )
    c.execute("UPDATE settings SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
    c.execute("COMMIT")
    load_s = time.perf_counter() - t
    before = rss_mb()["VmRSS"]
    t = time.perf_counter()
    store.dense(queries[0], k, MODEL_KEY)  # builds the generation's in-memory matrix
    build_s = time.perf_counter() - t
    after = rss_mb()["VmRSS"]
    times, results = timed(lambda q: [i - 1 for i, _ in store.dense(q, k, MODEL_KEY)], queries)
    out = {
        "load_s": round(load_s, 2),
        "build_s (in-memory matrix)": round(build_s, 2),
        **summary(times),
        f"recall@{k}": recall(results, truth, k),
        "memory": {"snapshot_rss_mb": round(after - before, 1)},
        "disk_mb": round((base / "sqlite" / DB_NAME).stat().st_size / 2**20, 1),
    }
    store.close()
    shutil.rmtree(base / "sqlite", ignore_errors=True)
    return out


def copy_chunks(cur, table: str, model_key: str, vectors: np.ndarray) -> None:  # type: ignore[no-untyped-def]
    """Documents of CHUNKS_PER_DOC chunks, the chunks (placeholder text, a valid locator,
    sections of 8 chunks) and their vectors into ``table``, by COPY, in the caller's
    transaction; chunk ids are 1..len(vectors)."""
    with cur.copy("COPY documents (id, path, state) FROM STDIN") as cp:
        for d in range((len(vectors) + CHUNKS_PER_DOC - 1) // CHUNKS_PER_DOC):
            cp.write_row((d + 1, f"doc-{d}.md", "indexed"))
    with cur.copy(
        "COPY chunks (id, doc_id, ordinal, start_char, end_char, section, text, content, "
        "locator, tokens, header_tokens, text_hash, model_key, length) FROM STDIN"
    ) as cp:
        for i in range(len(vectors)):
            cp.write_row((i + 1, i // CHUNKS_PER_DOC + 1, i % CHUNKS_PER_DOC, 0, 1, f"S{i // 8}",
                          "x", "x", '{"start": 0, "end": 1}', 1, 0, "", model_key, 1))
    with cur.copy(f"COPY {table} (chunk_id, embedding) FROM STDIN (FORMAT BINARY)") as cp:
        cp.set_types(["int8", "vector"])
        for i in range(len(vectors)):
            cp.write_row((i + 1, vectors[i]))


def bench_postgres(base: Path, data: np.ndarray, queries: np.ndarray, truth: np.ndarray,
                   k: int, args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from citeline.store.postgres import PostgresStore

    pg = LocalPostgres(base / "pg", settings={
        "shared_buffers": args.shared_buffers,
        "maintenance_work_mem": args.maintenance_work_mem,
        "max_parallel_maintenance_workers": str(args.parallel_workers),
        "max_wal_size": "8GB",
        "checkpoint_timeout": "30min",
        "dynamic_shared_memory_type": "posix",
    })
    pg.start()
    out: dict[str, object] = {"settings": pg.settings | {"hnsw_m": args.m,
                                                         "hnsw_ef_construction": args.ef_construction}}
    try:
        url = pg.create_database("bench")
        store = PostgresStore(url)
        store.set_setting("pg.hnsw_m", str(args.m))
        store.set_setting("pg.hnsw_ef_construction", str(args.ef_construction))
        table, _ = store._space(MODEL_KEY, DIM, create=True, index=False)  # type: ignore[misc]
        c = store.conn
        t = time.perf_counter()
        with c.transaction():
            copy_chunks(c.cursor(), table, MODEL_KEY, data)
        c.execute(f"VACUUM ANALYZE {table}")
        load_s = time.perf_counter() - t
        print(f"pg load {load_s:.1f}s", file=sys.stderr, flush=True)
        t = time.perf_counter()
        store.build_vector_indexes()
        build_s = time.perf_counter() - t
        print(f"pg hnsw build {build_s:.1f}s", file=sys.stderr, flush=True)
        sizes = c.execute(
            "SELECT pg_relation_size(%s), pg_total_relation_size(%s), "
            "pg_database_size(current_database())", (f"{table}_hnsw", table),
        ).fetchone()
        out.update({"load_s": round(load_s, 2), "build_s": round(build_s, 2)})
        sweeps = []
        for ef in args.ef:
            times, results = timed(
                lambda q, ef=ef: [i - 1 for i, _ in store.dense_with(q, k, MODEL_KEY, "hnsw", ef)],
                queries,
            )
            row = {"ef_search": ef, **summary(times), f"recall@{k}": recall(results, truth, k)}
            print(f"pg hnsw {row}", file=sys.stderr, flush=True)
            sweeps.append(row)
        out["hnsw"] = sweeps
        # what the pipeline really asks for: the fusion depth (200) at the default beam
        times, _ = timed(lambda q: store.dense(q, 200, MODEL_KEY), queries)
        out["hnsw_pipeline_depth_200"] = {"ef_search": max(store.ef_search, 400), **summary(times)}
        if len(data) <= args.exact_max:
            times, results = timed(
                lambda q: [i - 1 for i, _ in store.dense_with(q, k, MODEL_KEY, "exact", 0)],
                queries[: WARMUP + 30],
            )
            out["exact_seqscan"] = {**summary(times), f"recall@{k}": recall(
                results, truth[:30], k)}
        out["memory"] = {"shared_buffers": args.shared_buffers, **postgres_memory(pg.bin)}
        out["disk_mb"] = {"hnsw_index": round(sizes[0] / 2**20, 1),
                          "vectors_table_total": round(sizes[1] / 2**20, 1),
                          "database": round(sizes[2] / 2**20, 1)}
        store.close()
    finally:
        pg.stop()
        shutil.rmtree(base / "pg", ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="chunks (vectors) to generate")
    ap.add_argument("--queries", type=int, default=200, help="timed queries per configuration")
    ap.add_argument("-k", type=int, default=10, help="hits per query (recall@k)")
    ap.add_argument("--centres", type=Path, default=Path("reports/pg/rustbook-index"),
                    help="SQLite index whose chunk vectors are the centres (built if missing)")
    ap.add_argument("--corpus", type=Path, default=Path("eval/rustbook/docs"),
                    help="documents to build the centres index from when it is missing")
    ap.add_argument("--questions", type=Path,
                    default=Path("eval/rustbook/questions.jsonl"),
                    help="real queries to embed (optional)")
    ap.add_argument("--ef", type=lambda s: [int(x) for x in s.split(",")],
                    default=[100, 200, 400, HNSW_EF_SEARCH],
                    help=f"hnsw.ef_search values to sweep (default 100,200,400,{HNSW_EF_SEARCH})")
    ap.add_argument("--m", type=int, default=HNSW_M, help=f"HNSW m (default the store's, {HNSW_M})")
    ap.add_argument("--ef-construction", type=int, default=HNSW_EF_CONSTRUCTION,
                    help=f"HNSW ef_construction (default the store's, {HNSW_EF_CONSTRUCTION})")
    ap.add_argument("--shared-buffers", default="2GB", help="PostgreSQL shared_buffers")
    ap.add_argument("--maintenance-work-mem", default="4GB",
                    help="PostgreSQL maintenance_work_mem (the HNSW graph must fit for a fast build)")
    ap.add_argument("--parallel-workers", type=int, default=1,
                    help="max_parallel_maintenance_workers (2 cores: leader + 1)")
    ap.add_argument("--exact-max", type=int, default=200_000,
                    help="also time PostgreSQL's exact sequential scan up to this N")
    ap.add_argument("--generator", choices=("gauss", "mix"), default="gauss",
                    help="gauss: centre + isotropic noise; mix: between neighbouring centres")
    ap.add_argument("--skip-sqlite", action="store_true", help="PostgreSQL only")
    ap.add_argument("--workdir", type=Path, default=None, help="scratch folder (default: /tmp)")
    ap.add_argument("--out", type=Path, required=True, help="JSON report")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(20261130)
    centres = centres_from(args.centres, args.corpus)
    t = time.perf_counter()
    gen = synthesize if args.generator == "gauss" else synthesize_mix
    data = gen(centres, args.n, rng)
    real_q = np.zeros((0, DIM), dtype=np.float32)
    if args.questions.exists():
        from citeline.embed import load_embedder

        texts = [t for line in args.questions.read_text().splitlines() if line.strip()
                 for t in json.loads(line)["queries"].values()]
        real_q = load_embedder().embed(texts).astype(np.float32)
    n_syn = max(0, args.queries - len(real_q))
    queries = np.vstack([real_q, gen(centres, n_syn, rng)])[: args.queries]
    queries = np.vstack([queries[-WARMUP:], queries])  # warm-up draws are timed too, later
    truth = exact_topk(data, queries[WARMUP:], args.k)
    prep_s = time.perf_counter() - t
    print(f"data {data.shape}, {len(queries) - WARMUP} queries, truth in {prep_s:.1f}s",
          file=sys.stderr, flush=True)
    base = Path(tempfile.mkdtemp(prefix="citeline-bench-", dir=args.workdir))
    os.chmod(base, 0o755)
    report: dict[str, object] = {
        "n": args.n, "dim": DIM, "k": args.k, "queries": len(queries) - WARMUP,
        "real_queries": int(len(real_q)), "centres": int(len(centres)),
        "generator": args.generator, "noise": NOISE if args.generator == "gauss" else MIX_NOISE,
        "cores": os.cpu_count(), "load_average_at_start": os.getloadavg(),
    }
    try:
        if not args.skip_sqlite:
            report["sqlite_numpy_exact"] = bench_sqlite(base, data, queries, truth, args.k)
            print(f"sqlite {report['sqlite_numpy_exact']}", file=sys.stderr, flush=True)
        report["postgres_hnsw"] = bench_postgres(base, data, queries, truth, args.k, args)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    report["load_average_at_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
