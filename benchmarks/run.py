"""`make bench`: run every benchmark script in this folder, one JSON file each.

    python benchmarks/run.py --out-dir reports/bench [--only core,extract]

Each ``*_bench.py`` takes ``--out PATH`` and writes its figures there; this
runner collects them into ``reports/bench/summary.json`` with the exit status
and wall time of each, so a failed benchmark is visible rather than missing.
Benchmarks are never run as tests: timings on a shared machine are evidence,
not assertions.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    ap = argparse.ArgumentParser(description="run the benchmarks, one JSON file each")
    ap.add_argument("--out-dir", default="reports/bench", help="folder for the JSON files")
    ap.add_argument("--only", default="", help="comma-separated names (core, extract, ...)")
    args = ap.parse_args()
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = {w for w in args.only.split(",") if w}
    summary: dict[str, dict[str, object]] = {}
    status = 0
    for script in sorted(HERE.glob("*_bench.py")):
        name = script.stem.removesuffix("_bench")
        if wanted and name not in wanted:
            continue
        out = out_dir / f"{name}.json"
        print(f"== {name} -> {out}", flush=True)
        out.unlink(missing_ok=True)  # a run that fails before writing leaves no old figures
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, str(script), "--out", str(out)])
        summary[name] = {
            "exit": proc.returncode,
            "seconds": round(time.perf_counter() - t0, 1),
            "figures": json.loads(out.read_text()) if out.exists() and proc.returncode == 0
            else None,
        }
        status |= proc.returncode != 0
    path = out_dir / "summary.json"
    if wanted and path.exists():  # --only: update those entries, keep the others' figures
        summary = {**json.loads(path.read_text()), **summary}
    path.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {path}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
