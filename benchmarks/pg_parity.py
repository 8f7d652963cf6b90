"""Do SQLite and PostgreSQL give the same retrieval figures on a real corpus?

Indexes the corpus (default: the rustbook development set) into SQLite with the
real model, copies that index into a private PostgreSQL (no re-embedding), and
scores R@1/4/8/20 and MRR for dense, BM25 and hybrid over every query of
``questions.jsonl`` on SQLite, on PostgreSQL in exact mode and in HNSW mode. A
query is a hit at rank r when the r-th returned chunk's ``content`` contains the
needle whole. Not a test: run it, read the JSON::

    .venv/bin/python benchmarks/pg_parity.py --out reports/pg_parity.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from citeline.embed import load_embedder
from citeline.pipeline import Index
from citeline.scale import copy_index
from citeline.store.pg_local import LocalPostgres

KS = (1, 4, 8, 20)
MODES = ("dense", "bm25", "hybrid")
# The bar: eval figures on both stores agree within this much.
TOLERANCE = 0.01


class MemoEmbedder:
    """The real model; each distinct query is embedded once for all stores and modes."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self._inner = inner
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts, progress: bool = False):  # type: ignore[no-untyped-def]
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            for t, v in zip(todo, self._inner.embed(todo, progress=progress), strict=True):
                self._memo[t] = v
        return np.vstack([self._memo[t] for t in texts])

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._inner, name)


def load_questions(corpus: Path) -> list[tuple[str, str, str]]:
    out = []
    for line in (corpus / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            for phrasing, text in sorted(q["queries"].items()):
                out.append((f"{q['id']}/{phrasing}", text, q["needle"]))
    return out


def score(idx: Index, questions, mode: str) -> tuple[dict[str, float], dict[str, int]]:  # type: ignore[no-untyped-def]
    ranks: dict[str, int] = {}
    for qid, text, needle in questions:
        hits = idx.search(text, k=max(KS), mode=mode).hits  # type: ignore[arg-type]
        ranks[qid] = next((h.rank for h in hits if needle in h.content), 0)
    n = len(questions)
    metrics = {f"R@{k}": sum(1 for r in ranks.values() if 0 < r <= k) / n for k in KS}
    metrics["MRR"] = sum(1.0 / r for r in ranks.values() if r) / n
    return metrics, ranks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=Path("eval/rustbook"),
                    help="a ground-truth folder (docs/ + questions.jsonl)")
    ap.add_argument("--index", type=Path, default=Path("reports/pg/rustbook-index"),
                    help="SQLite index folder (built if missing, reused otherwise)")
    ap.add_argument("--out", type=Path, default=Path("reports/pg_parity.json"))
    args = ap.parse_args(argv)

    embedder = MemoEmbedder(load_embedder())
    questions = load_questions(args.corpus)
    lite = Index(args.index, embedder=embedder)
    t = time.perf_counter()
    report = lite.index(args.corpus / "docs")
    index_s = time.perf_counter() - t
    print(f"sqlite: {report.chunks_written} chunks written, {len(report.unchanged)} unchanged "
          f"({index_s:.1f}s)", file=sys.stderr)

    base = Path(tempfile.mkdtemp(prefix="citeline-parity-"))
    pg = LocalPostgres(base, stop_mode="immediate")
    pg.start()
    try:
        url = pg.create_database("parity")
        copied = copy_index(args.index, url)
        print(f"copied into PostgreSQL in {copied.seconds:.1f}s", file=sys.stderr)
        stores = {
            "sqlite": lite,
            "pg_exact": Index(url + "?exact=1", embedder=embedder),
            "pg_hnsw": Index(url, embedder=embedder),
        }
        results: dict[str, dict[str, dict[str, float]]] = {}
        ranks: dict[str, dict[str, dict[str, int]]] = {}
        for name, idx in stores.items():
            for mode in MODES:
                t = time.perf_counter()
                m, r = score(idx, questions, mode)
                m["seconds"] = round(time.perf_counter() - t, 3)
                results.setdefault(name, {})[mode] = m
                ranks.setdefault(name, {})[mode] = r
                print(f"{name:9} {mode:6} " + " ".join(f"{k}={v:.3f}" for k, v in m.items()),
                      file=sys.stderr)
        diffs = {
            name: {
                mode: max(abs(results[name][mode][k] - results["sqlite"][mode][k])
                          for k in (*[f"R@{k}" for k in KS], "MRR"))
                for mode in MODES
            }
            for name in ("pg_exact", "pg_hnsw")
        }
        same_ranks = {
            name: {
                mode: sum(ranks[name][mode][q] == ranks["sqlite"][mode][q] for q in ranks[name][mode])
                for mode in MODES
            }
            for name in ("pg_exact", "pg_hnsw")
        }
        out = {
            "corpus": str(args.corpus),
            "queries": len(questions),
            "chunks": lite.store.stats().chunks,
            "copy": copied.to_json(),
            "hnsw_ef_search": stores["pg_hnsw"].store.ef_search,  # type: ignore[attr-defined]
            "results": results,
            "max_abs_diff_vs_sqlite": diffs,
            "queries_with_identical_needle_rank": same_ranks,
            "within_tolerance": all(v <= TOLERANCE for d in diffs.values() for v in d.values()),
            "tolerance": TOLERANCE,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=2))
        print(json.dumps({"max_abs_diff_vs_sqlite": diffs,
                          "within_tolerance": out["within_tolerance"]}, indent=2))
        for idx in stores.values():
            idx.close()
    finally:
        pg.stop()
        shutil.rmtree(base, ignore_errors=True)
    return 0 if out["within_tolerance"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
