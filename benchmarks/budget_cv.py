"""Cross-validate the chunk budget under the default fusion (issue 7): leave one
corpus out over the reports `citeline eval --budget N` wrote.

Each report gives, per query, the default hybrid's first correct rank and whether the
needle lies in the first 2,000 characters (run ``E/hybrid``). For each corpus left
out, the budget is picked on the pooled queries of the others by R@2000ch (the fair
measure when chunk sizes differ), then R@4, then MRR, then the nearer to the default
512; the left-out corpus is scored at that budget and compared, paired, with 512.

    python benchmarks/budget_cv.py rustbook:512=reports/eval/report.json \\
        rustbook:768=reports/budget768/rustbook/report.json ... [--out cv.json]

Every corpus must have a report for every budget named.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from figures import Row, emit, paired, read_report, report_rows, summary  # benchmarks/

from citeline.chunk import DEFAULT_BUDGET

RUN = "E/hybrid"


def load(path: str) -> tuple[list[Row], int]:
    """Per query (first correct rank, within 2,000 characters), and destroyed needles."""
    report = read_report(Path(path))
    return report_rows(report, RUN), len(report["strategies"]["E"]["destroyed"])


def key(rows: list[Row], budget: int) -> tuple[float, ...]:
    s = summary(rows)
    return (s["R@2000ch"], s["R@4"], s["MRR"], -abs(budget - DEFAULT_BUDGET))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", metavar="CORPUS:BUDGET=REPORT")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    table: dict[str, dict[int, list[Row]]] = {}
    destroyed: dict[str, dict[int, int]] = {}
    for spec in args.reports:
        name, _, path = spec.partition("=")
        corpus, _, budget = name.partition(":")
        rows, n = load(path)
        table.setdefault(corpus, {})[int(budget)] = rows
        destroyed.setdefault(corpus, {})[int(budget)] = n
    budgets = sorted(next(iter(table.values())))
    if DEFAULT_BUDGET not in budgets or any(sorted(t) != budgets for t in table.values()):
        raise SystemExit(f"every corpus needs a report for every budget, {DEFAULT_BUDGET} too")

    out: dict[str, object] = {
        "in sample": {c: {b: {**summary(t[b]), "destroyed": destroyed[c][b]} for b in budgets}
                      for c, t in table.items()},
        "pooled in sample": {b: summary([r for t in table.values() for r in t[b]])
                             for b in budgets},
    }
    held: list[Row] = []
    base: list[Row] = []
    folds = {}
    for corpus, t in table.items():
        fit = {b: [r for c, o in table.items() if c != corpus for r in o[b]] for b in budgets}
        pick = max(budgets, key=lambda b: key(fit[b], b))
        folds[corpus] = {"picked": pick, "held out": summary(t[pick]),
                         f"vs {DEFAULT_BUDGET}": paired(t[pick], t[DEFAULT_BUDGET])}
        held += t[pick]
        base += t[DEFAULT_BUDGET]
    out["leave one corpus out"] = folds
    out["pooled held out"] = summary(held)
    out[f"pooled held out vs {DEFAULT_BUDGET}"] = paired(held, base)
    return emit(out, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
