"""Pool paired comparisons over several corpora's `citeline eval` reports.

    python benchmarks/pooled_eval.py rustbook=reports/eval/report.json \
        pytutorial=reports/eval-pytutorial/report.json \
        debpolicy=reports/eval-debpolicy/report.json --out reports/eval/pooled.json

For each comparison (default: the default hybrid against the port, dense, BM25 and the
plain sentence fusion) it prints and writes, per corpus and pooled query by query:
wins/losses and the exact sign test at R@1, R@4, R@20 and R@2000ch, and first-correct
rank better/worse (citeline.eval.pool); with --by-phrasing, each phrasing half too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from citeline.errors import ConfigError
from citeline.eval.pool import pool, pooled_figures, render

COMPARISONS = ("E/hybrid:E/hybrid+rrf", "E/hybrid:E/dense", "E/hybrid:E/bm25",
               "E/hybrid:E/hybrid+sentence", "E/hybrid:E/hybrid+section")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+", metavar="NAME=REPORT",
                    help="a corpus name and its report.json (from citeline eval)")
    ap.add_argument("--compare", action="append", metavar="X:Y",
                    help=f"runs to compare, repeatable (default: {', '.join(COMPARISONS)})")
    ap.add_argument("--by-phrasing", action="store_true",
                    help="also pool each phrasing half (course, ticket) on its own")
    ap.add_argument("--out", type=Path, help="write the results here as JSON")
    args = ap.parse_args(argv)
    try:
        reports = {}
        for spec in args.reports:
            name, eq, path = spec.partition("=")
            if not eq or not name or not path:
                raise ConfigError(f"{spec!r}: give NAME=REPORT, e.g. rustbook=reports/eval/report.json")
            try:
                reports[name] = json.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise ConfigError(f"{path}: cannot read the report: {exc}") from exc
        results = []
        for spec in args.compare or COMPARISONS:
            x, colon, y = spec.partition(":")
            if not colon or not x or not y:
                raise ConfigError(f"--compare: {spec!r} must look like X:Y, e.g. E/hybrid:E/hybrid+rrf")
            results.append(pool(reports, x, y))
            if args.by_phrasing:
                phrasings = dict.fromkeys(q.get("phrasing") for r in reports.values()
                                          for q in r["queries"])
                results += [pool(reports, x, y, phrasing=ph) for ph in phrasings if ph]
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    runs = list(dict.fromkeys(run for r in results for run in (r["x"], r["y"])))
    halves = sorted({r["phrasing"] for r in results if r["phrasing"]})
    figures = {run: {"all": pooled_figures(reports, run),
                     **{ph: pooled_figures(reports, run, phrasing=ph) for ph in halves}}
               for run in runs}
    print(f"pooled figures over {', '.join(reports)}:")
    for run, by in figures.items():
        for part, f in by.items():
            cells = "  ".join(f"{m} {v:.3f}" for m, v in f.items() if m != "queries")
            print(f"  {run:<20} {part:<7} ({f['queries']} q)  {cells}")
    for r in results:
        print("\n".join(render(r)))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"corpora": list(reports), "figures": figures,
                                        "comparisons": results}, indent=1) + "\n", encoding="utf-8")
        print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
