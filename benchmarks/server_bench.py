"""Server benchmark: `search` throughput and latency with concurrent clients on loopback.

Builds (once, then reuses: indexing is incremental) an index of the rustbook
corpus, starts `citeline serve --index` in a subprocess, and runs N client
threads, each POSTing the eval questions to /search in a loop for a fixed
time. Reports requests/s, p50/p95/p99 latency and errors as JSON::

    python benchmarks/server_bench.py --out reports/server_bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "eval" / "rustbook"  # bundled with the repository (MIT OR Apache-2.0)
# A short warm-up so the first requests (snapshot load, allocator) do not count.
WARMUP_REQUESTS = 16


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(values)
    rank = max(1, min(len(s), int(-(-q * len(s) // 100))))  # ceil(q/100 * n)
    return s[rank - 1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_index(docs: Path, index: Path) -> dict:
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-m", "citeline", "index", str(docs), "--index", str(index), "-q", "--json"],
        capture_output=True, text=True, check=False,
    )
    if res.returncode not in (0, 1):
        raise SystemExit(f"indexing failed: {res.stderr}")
    report = json.loads(res.stdout)
    report["wall_seconds"] = round(time.perf_counter() - t0, 1)
    status = subprocess.run(
        [sys.executable, "-m", "citeline", "status", "--index", str(index), "--json"],
        capture_output=True, text=True, check=True,
    )
    report["chunks"] = json.loads(status.stdout)["chunks"]
    return report


def main() -> int:
    corpus = CORPUS
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--docs", type=Path, default=corpus / "docs", help="folder to index")
    p.add_argument("--questions", type=Path, default=corpus / "questions.jsonl",
                   help="eval questions (JSONL with a 'queries' object) used as search queries")
    p.add_argument("--index", type=Path, default=Path("reports/rustbook-index"),
                   help="index folder (built on first run, reused after)")
    p.add_argument("--clients", type=int, default=8, help="concurrent client threads")
    p.add_argument("--seconds", type=float, default=20.0, help="measured duration")
    p.add_argument("-k", type=int, default=20, help="hits per search")
    p.add_argument("--out", type=Path, required=True, help="JSON report path")
    args = p.parse_args()

    queries = []
    for line in args.questions.read_text(encoding="utf-8").splitlines():
        if line.strip():
            queries.extend(json.loads(line)["queries"].values())
    index_report = build_index(args.docs, args.index)

    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "citeline", "serve", "--index", str(args.index),
         "--port", str(port), "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("server did not become ready")
            time.sleep(0.2)
        name = httpx.get(base + "/api/collections").json()["collections"][0]["name"]
        url = f"{base}/api/collections/{name}/search"
        with httpx.Client() as c:
            for i in range(WARMUP_REQUESTS):
                c.post(url, json={"query": queries[i % len(queries)], "k": args.k}).raise_for_status()

        latencies: list[list[float]] = [[] for _ in range(args.clients)]
        # the pipeline's own stage timings, to separate HTTP/framework overhead from retrieval
        pipeline: list[list[float]] = [[] for _ in range(args.clients)]
        errors = [0] * args.clients
        start = threading.Barrier(args.clients + 1)
        stop_at = [0.0]

        def client(n: int) -> None:
            with httpx.Client(timeout=60) as c:
                i = n
                start.wait()
                while time.perf_counter() < stop_at[0]:
                    q = queries[i % len(queries)]
                    i += args.clients
                    t = time.perf_counter()
                    r = c.post(url, json={"query": q, "k": args.k})
                    dt = (time.perf_counter() - t) * 1000
                    if r.status_code == 200:
                        latencies[n].append(dt)
                        stages = r.json()["timings_ms"]
                        pipeline[n].append(sum(stages.values()))
                    else:
                        errors[n] += 1

        threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
        for t in threads:
            t.start()
        stop_at[0] = time.perf_counter() + args.seconds
        t0 = time.perf_counter()
        start.wait()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
    finally:
        server.terminate()
        server.wait(30)

    lat = [x for per in latencies for x in per]
    pipe = [x for per in pipeline for x in per]
    overhead = [a - b for per_l, per_p in zip(latencies, pipeline) for a, b in zip(per_l, per_p)]
    result = {
        "benchmark": "server search",
        "clients": args.clients,
        "seconds": round(elapsed, 2),
        "requests": len(lat),
        "errors": sum(errors),
        "requests_per_second": round(len(lat) / elapsed, 2),
        "latency_ms": {
            "p50": round(percentile(lat, 50), 2),
            "p95": round(percentile(lat, 95), 2),
            "p99": round(percentile(lat, 99), 2),
            "mean": round(statistics.fmean(lat), 2),
        },
        "pipeline_ms": {"p50": round(percentile(pipe, 50), 2), "p95": round(percentile(pipe, 95), 2)},
        "http_overhead_ms": {"p50": round(percentile(overhead, 50), 2),
                             "p95": round(percentile(overhead, 95), 2)},
        "k": args.k,
        "queries": len(queries),
        "index": {"documents": index_report["indexed"] + index_report["unchanged"],
                  "chunks": index_report["chunks"],
                  "chunks_written_this_run": index_report["chunks_written"],
                  "build_wall_seconds": index_report["wall_seconds"]},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_average_1m": os.getloadavg()[0]},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
