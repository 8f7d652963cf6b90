"""What the cross-validation and variant scripts of benchmarks/ share: per-query rows
(first correct rank, needle within the first 2,000 characters), their figures, paired
sign tests between two runs of the same queries, the JSON they print and write, and the
``GT=INDEX`` arguments they open."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from citeline.embed import Embedder
from citeline.eval import metrics, stats
from citeline.eval.groundtruth import GroundTruthSet, load_ground_truth
from citeline.pipeline import Index

MISS = 99  # the rank a query with no correct hit in the top 20 counts as
Row = tuple[int | None, bool]  # (first correct rank or None, needle in 2,000 chars)
Rows = Sequence[Row]


def row(order: Sequence[int], contents: Mapping[int, str], needle: str) -> Row:
    """One query's row from its ranking (chunk ids, best first): the first 20 hits."""
    top = [contents[i] for i in order[:20]]
    return metrics.first_correct_rank(top, needle), metrics.within_budget(top, needle, 2000)


def against_default(rows: Mapping[str, Sequence[Mapping[str, Row]]], default: str
                    ) -> dict[str, object]:
    """Each run's figures per corpus and pooled, and the pooled paired test against
    ``default``; ``rows`` maps a corpus to its queries' rows by run."""
    out: dict[str, object] = {}
    for run in next(iter(rows.values()))[0]:
        entry: dict[str, object] = {n: summary([r[run] for r in rs]) for n, rs in rows.items()}
        pooled = [r[run] for rs in rows.values() for r in rs]
        entry["pooled"] = summary(pooled)
        if run != default:
            entry["pooled vs default"] = paired(
                pooled, [r[default] for rs in rows.values() for r in rs])
        out[run] = entry
    return out


def summary(rows: Rows) -> dict[str, float]:
    ranks = [r for r, _ in rows]
    return {**{f"R@{k}": round(metrics.recall_at_k(ranks, k), 3) for k in (1, 4, 20)},
            "MRR": round(metrics.mrr(ranks), 3),
            "R@2000ch": round(sum(b for _, b in rows) / max(1, len(rows)), 3)}


def paired(x: Rows, y: Rows) -> dict[str, str]:
    """x against y, query by query: wins/losses and the exact sign test's p."""
    def hit(rows: Rows, k: int) -> list[bool]:
        return [r is not None and r <= k for r, _ in rows]

    out = {}
    for k in (1, 4, 20):
        p = stats.paired(hit(x, k), hit(y, k))
        out[f"R@{k}"] = f"+{p.wins}/-{p.losses} p={p.p:.3f}"
    p = stats.paired([b for _, b in x], [b for _, b in y])
    out["R@2000ch"] = f"+{p.wins}/-{p.losses} p={p.p:.3f}"
    a = [r or MISS for r, _ in x]
    b = [r or MISS for r, _ in y]
    better = sum(u < v for u, v in zip(a, b, strict=True))
    worse = sum(u > v for u, v in zip(a, b, strict=True))
    out["rank better/worse"] = f"{better}/{worse} p={stats.sign_test(better, worse):.4f}"
    return out


def read_report(path: Path) -> dict[str, Any]:
    """A `citeline eval` report.json."""
    return json.loads(path.read_text(encoding="utf-8"))


def report_rows(report: Mapping[str, Any], run: str) -> list[Row]:
    """One run's rows from a `citeline eval` report."""
    return [(q["ranks"][run], q["within"][run]["2000"]) for q in report["queries"]]


def emit(result: object, out: str | None) -> int:
    """Print ``result`` as JSON and, given a path, write it there too; exit status 0."""
    text = json.dumps(result, indent=1)
    print(text)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text + "\n", encoding="utf-8")
    return 0


def open_corpora(specs: Sequence[str], embedder: Embedder
                 ) -> Iterator[tuple[str, GroundTruthSet, Index]]:
    """Each ``GT=INDEX`` argument's name (the ground truth folder's), ground truth and
    index, opened on ``embedder`` and closed once the caller moves on to the next."""
    for spec in specs:
        gt_dir, _, index_dir = spec.partition("=")
        idx = Index(index_dir, embedder=embedder, create=False)
        try:
            yield Path(gt_dir).name, load_ground_truth(gt_dir), idx
        finally:
            idx.close()
