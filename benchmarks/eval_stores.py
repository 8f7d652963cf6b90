"""`citeline eval` on both stores: the SQLite figures next to PostgreSQL's (HNSW).

Starts a private PostgreSQL 16 + pgvector (from the pgserver wheel, on a free
loopback port), runs ``citeline eval GT --strategies E --store URL`` into it and
compares every figure with the SQLite run of the same strategy in
``--sqlite-report`` (what ``make eval`` has just written). The issue's bar: R@k,
MRR and budgeted recall agree within 0.01. Writes ``--out`` (JSON) and prints a
table; exits 1 when a figure differs by more.

    .venv/bin/python benchmarks/eval_stores.py eval/rustbook \\
        --sqlite-report reports/eval/report.json --out reports/eval/stores.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from citeline import cli
from citeline.eval.harness import run_figures
from citeline.store.pg_local import LocalPostgres

TOLERANCE = 0.01  # the bar for "the same figures on both stores"
STRATEGY = "E"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gt_dir", type=Path, help="ground-truth folder (as for citeline eval)")
    ap.add_argument("--sqlite-report", type=Path, default=Path("reports/eval/report.json"),
                    help="report.json of the SQLite eval to compare with")
    ap.add_argument("--pg-out", type=Path, default=Path("reports/eval-pg"),
                    help="--out of the PostgreSQL eval")
    ap.add_argument("--out", type=Path, default=Path("reports/eval/stores.json"))
    args = ap.parse_args(argv)

    lite = json.loads(args.sqlite_report.read_text())
    args.pg_out.mkdir(parents=True, exist_ok=True)
    cache = args.sqlite_report.parent / "embed-cache.sqlite3"
    if cache.exists():  # the same texts, the same model: nothing to embed again
        shutil.copyfile(cache, args.pg_out / "embed-cache.sqlite3")
    modes = sorted({r["mode"] for r in lite["runs"].values()
                    if r["strategy"] == STRATEGY and "+" not in r["mode"]})  # not hybrid+FUSION
    base = Path(tempfile.mkdtemp(prefix="citeline-eval-pg-"))
    pg = LocalPostgres(base, stop_mode="immediate")
    pg.start()
    try:
        url = pg.create_database("citeline_eval")
        code = cli.main(["eval", str(args.gt_dir), "--strategies", STRATEGY,
                         "--modes", ",".join(modes), "--store", url,
                         "--out", str(args.pg_out), "-q"])
        if code != 0:
            return code
    finally:
        pg.stop()
        shutil.rmtree(base, ignore_errors=True)
    pgr = json.loads((args.pg_out / "report.json").read_text())
    rows, worst = {}, 0.0
    runs = [r for r, v in lite["runs"].items() if v["strategy"] == STRATEGY and r in pgr["runs"]]
    for run in runs:
        a, b = run_figures(lite["runs"][run]), run_figures(pgr["runs"][run])
        diff = {k: round(b[k] - a[k], 4) for k in a}
        worst = max(worst, *(abs(d) for d in diff.values()))
        same = sum(q1["ranks"][run] == q2["ranks"][run]
                   for q1, q2 in zip(lite["queries"], pgr["queries"], strict=True))
        rows[run] = {"sqlite": a, "postgresql_hnsw": b, "difference": diff,
                     "queries_with_identical_rank": same, "queries": len(lite["queries"])}
    out = {"ground_truth": str(args.gt_dir), "strategy": STRATEGY, "tolerance": TOLERANCE,
           "max_abs_difference": worst, "within_tolerance": worst <= TOLERANCE,
           "postgresql": pgr["config"]["store"], "runs": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2))
    for run, r in rows.items():
        print(f"{run:10} " + "  ".join(
            f"{k} {r['sqlite'][k]:.3f}/{r['postgresql_hnsw'][k]:.3f}" for k in r["sqlite"])
            + f"  (identical ranks {r['queries_with_identical_rank']}/{r['queries']})")
    print(f"max |SQLite - PostgreSQL HNSW| = {worst:.4f} (bar {TOLERANCE})",
          file=sys.stderr)
    return 0 if out["within_tolerance"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
