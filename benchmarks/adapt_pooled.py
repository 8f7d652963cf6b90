"""Pool `benchmarks/adapt_eval.py` runs over corpora: the adapted model against the
bundled one, query by query, at R@1/4/20, R@2000ch and first-correct rank (issue 7).

    python benchmarks/adapt_pooled.py reports/eval-adapt-late/rustbook \\
        reports/eval-adapt-late/pytutorial ... [--out pooled.json]

Each folder is an adapt_eval.py --out: its base/report.json (bundled model) and
adapted/report.json (the model adapted on that corpus's own chunks) are paired.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from figures import Row, emit, paired, read_report, report_rows, summary  # benchmarks/

RUNS = ("E/hybrid", "E/dense", "E/hybrid+rrf")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outs", nargs="+", metavar="ADAPT_EVAL_OUT")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    reports = {out.name: (read_report(out / "base" / "report.json"),
                          read_report(out / "adapted" / "report.json"))
               for out in map(Path, args.outs)}
    result: dict[str, object] = {}
    for run in RUNS:
        entry: dict[str, object] = {}
        bundled: list[Row] = []
        adapted: list[Row] = []
        for name, (base, adapt) in reports.items():
            b, a = report_rows(base, run), report_rows(adapt, run)
            entry[name] = {"bundled": summary(b), "adapted": summary(a),
                           "adapted vs bundled": paired(a, b)}
            bundled += b
            adapted += a
        entry["pooled"] = {"bundled": summary(bundled), "adapted": summary(adapted),
                           "adapted vs bundled": paired(adapted, bundled)}
        result[run] = entry
    return emit(result, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
