"""Markdown tables from pg_bench.py JSON reports (for docs/postgres.md)::

    .venv/bin/python benchmarks/pg_report.py benchmarks/results/pg_bench_*.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(paths: list[str]) -> int:
    runs = [(Path(p).stem, json.loads(Path(p).read_text())) for p in paths]
    print("| run | N | backend | load s | build s | p50 ms | p95 ms | recall@10 | memory | disk |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, d in runs:
        n = f"{d['n']:,}"
        s = d.get("sqlite_numpy_exact")
        if s:
            print(f"| {name} | {n} | SQLite + numpy exact | {s['load_s']} | "
                  f"{s['build_s (in-memory matrix)']} (matrix) | {s['p50_ms']:.1f} | "
                  f"{s['p95_ms']:.1f} | {s['recall@10']:.3f} | "
                  f"{s['memory']['snapshot_rss_mb']:.0f} MB RSS | {s['disk_mb']:.0f} MB |")
        p = d["postgres_hnsw"]
        st = p["settings"]
        mem = f"shared_buffers {p['memory']['shared_buffers']}"
        disk = f"{p['disk_mb']['database']:.0f} MB (index {p['disk_mb']['hnsw_index']:.0f})"
        for h in p["hnsw"]:
            print(f"| {name} | {n} | PG HNSW m={st['hnsw_m']} efc={st['hnsw_ef_construction']} "
                  f"ef_search={h['ef_search']} | {p['load_s']} | {p['build_s']} | "
                  f"{h['p50_ms']:.1f} | {h['p95_ms']:.1f} | {h['recall@10']:.3f} | {mem} | {disk} |")
        dp = p["hnsw_pipeline_depth_200"]
        print(f"| {name} | {n} | PG HNSW, pipeline depth 200 (ef {dp['ef_search']}) | | | "
              f"{dp['p50_ms']:.1f} | {dp['p95_ms']:.1f} | | | |")
        ex = p.get("exact_seqscan")
        if ex:
            print(f"| {name} | {n} | PG exact (sequential scan) | | | {ex['p50_ms']:.1f} | "
                  f"{ex['p95_ms']:.1f} | {ex['recall@10']:.3f} | | |")
        la = d.get("load_average_at_start")
        if la:
            print(f"| {name} | | *load average at start: {la[0]:.1f}* | | | | | | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
