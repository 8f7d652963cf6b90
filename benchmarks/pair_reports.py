"""Pair the default hybrid of two sets of `citeline eval` reports query by query: the
same corpora indexed two ways (two chunker versions, two packings), per corpus and
pooled (citeline.eval.pool), with each side's chunk and destroyed-needle counts.

    python benchmarks/pair_reports.py rustbook pytutorial ... \\
        --x reports/chunk5 --y reports/chunk4 --labels chunk-v5,chunk-v4 --out result.json

Each DIR/NAME/report.json must hold the same queries in the same order. ``--run``
pairs another run of both (``E/bm25``, ``E/hybrid+rrf``: the port) instead of the
default hybrid.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from citeline.eval.pool import pool, pooled_figures, render

RUN = "E/hybrid"


def merged(x: dict[str, Any], y: dict[str, Any], labels: tuple[str, str],
           run: str = RUN) -> dict[str, Any]:
    """One report holding both reports' ``run`` (the default hybrid), as runs named
    ``labels``."""
    if [q["qid"] for q in x["queries"]] != [q["qid"] for q in y["queries"]]:
        raise SystemExit("the two reports do not hold the same queries in the same order")
    a, b = labels
    queries = [{**qx, "ranks": {a: qx["ranks"][run], b: qy["ranks"][run]},
                "within": {a: qx["within"][run], b: qy["within"][run]}}
               for qx, qy in zip(x["queries"], y["queries"], strict=True)]
    # ranks are recorded to each report's deepest k: the pair knows the shallower one
    depth = min(max(r["config"]["ks"]) for r in (x, y))
    return {"runs": {a: {}, b: {}}, "queries": queries, "config": {"ks": [depth]}}


def compare(names: Sequence[str], x_dir: Path, y_dir: Path, labels: tuple[str, str],
            out: Path | None, run: str = RUN) -> dict[str, Any]:
    reports, chunks = {}, {}
    for name in names:
        rx = json.loads((x_dir / name / "report.json").read_text(encoding="utf-8"))
        ry = json.loads((y_dir / name / "report.json").read_text(encoding="utf-8"))
        reports[name] = merged(rx, ry, labels, run)
        chunks[name] = {
            label: {"chunks": r["strategies"]["E"]["chunks"],
                    "destroyed": len(r["strategies"]["E"]["destroyed"])}
            for label, r in zip(labels, (rx, ry), strict=True)}
    result = pool(reports, *labels)
    result["figures"] = {run: pooled_figures(reports, run) for run in labels}
    result["rustbook"] = ({run: pooled_figures({"rustbook": reports["rustbook"]}, run)
                           for run in labels} if "rustbook" in reports else None)
    result["chunks"] = chunks
    print("\n".join(render(result)))
    print(json.dumps({"figures": result["figures"], "rustbook": result["rustbook"],
                      "chunks": chunks}, indent=1))
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="+", help="corpus names (folders under each DIR)")
    ap.add_argument("--x", type=Path, required=True, help="the reports of the candidate")
    ap.add_argument("--y", type=Path, required=True, help="the reports it is paired with")
    ap.add_argument("--labels", default="x,y", help="the two runs' names, e.g. chunk-v5,chunk-v4")
    ap.add_argument("--run", default=RUN, help=f"the run paired (default {RUN})")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    a, _, b = args.labels.partition(",")
    compare(args.names, args.x, args.y, (a, b), args.out, args.run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
