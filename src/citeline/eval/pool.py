"""Paired comparisons pooled over several corpora's eval reports.

One corpus of 64 queries rarely makes a difference of a few queries significant.
The same comparison on several corpora, pooled query by query (each query is one
pair, whichever corpus it comes from), can, and it is the figure that says whether
a change generalises. Each corpus's own counts stay next to the pool, so a gain on
one corpus that hides a loss on another is visible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from citeline.errors import ConfigError
from citeline.eval import stats
from citeline.eval.harness import by_needle, correct

# (k, unit): R@1, R@4, R@20 and the budgeted R@2000ch, the four measures
POOL_MEASURES: tuple[tuple[int, str], ...] = ((1, ""), (4, ""), (20, ""), (2000, "ch"))


def rank_counts(data: Mapping[str, Any], x: str, y: str) -> tuple[int, int]:
    """(queries where x's first correct rank is better than y's, ... worse); a needle
    not found within the report's deepest k counts as worse than any rank."""
    better = worse = 0
    for q in data["queries"]:
        rx, ry = q["ranks"][x], q["ranks"][y]
        if rx is not None and (ry is None or rx < ry):
            better += 1
        elif ry is not None and (rx is None or ry < rx):
            worse += 1
    return better, worse


def pooled_figures(
    reports: Mapping[str, Mapping[str, Any]], run: str,
    measures: Sequence[tuple[int, str]] = POOL_MEASURES, phrasing: str | None = None,
) -> dict[str, float | int]:
    """One run's recall at each measure and MRR over every report's queries together
    (of one ``phrasing`` when given); MRR counts a needle not found as 0."""
    if phrasing is not None:
        reports = {name: only_phrasing(data, phrasing) for name, data in reports.items()}
    n = sum(len(d["queries"]) for d in reports.values())
    if n == 0:
        raise ConfigError(f"pool: no queries{f' asked in {phrasing} phrasing' if phrasing else ''}")
    out: dict[str, float | int] = {"queries": n}
    for k, unit in measures:
        hits = sum(sum(correct(d, run, k, unit)) for d in reports.values())
        out[_label(k, unit)] = round(hits / n, 4)
    ranks = [q["ranks"][run] for d in reports.values() for q in d["queries"]]
    out["MRR"] = round(sum(1 / r for r in ranks if r is not None) / n, 4)
    return out


def needle_counts(
    reports: Mapping[str, Mapping[str, Any]], x: str, y: str, k: int, unit: str = ""
) -> tuple[int, int, int]:
    """(needles, needles where ``x`` is right on more of their phrasings than ``y``,
    ... on fewer), over every report (:func:`citeline.eval.harness.by_needle`; a
    needle belongs to one corpus)."""
    counts = [by_needle(data, x, y, k, unit) for data in reports.values()]
    return (sum(c["needles"] for c in counts), sum(c["wins"] for c in counts),
            sum(c["losses"] for c in counts))


def _label(k: int, unit: str) -> str:
    return f"R@{k}{unit}"


def only_phrasing(data: Mapping[str, Any], phrasing: str) -> dict[str, Any]:
    """The report with only the queries asked in ``phrasing`` ("course", "ticket")."""
    return {**data, "queries": [q for q in data["queries"] if q.get("phrasing") == phrasing]}


def pool(
    reports: Mapping[str, Mapping[str, Any]], x: str, y: str,
    measures: Sequence[tuple[int, str]] = POOL_MEASURES, phrasing: str | None = None,
) -> dict[str, Any]:
    """Run ``x`` against run ``y`` in every report (corpus name -> report.json data),
    per corpus and pooled: wins/losses/both/neither and the exact sign test for each
    measure, and first-correct rank better/worse; over the queries of one
    ``phrasing`` only when given."""
    if not reports:
        raise ConfigError("pool: no reports given")
    if phrasing is not None:
        reports = {name: only_phrasing(data, phrasing) for name, data in reports.items()}
    for name, data in reports.items():
        for run in (x, y):
            if run not in data.get("runs", {}):
                raise ConfigError(f"{name}: the report has no run {run!r} "
                                  f"(it has {', '.join(data.get('runs', {})) or 'none'})")
    out: dict[str, Any] = {"x": x, "y": y, "phrasing": phrasing, "corpora": {}, "pooled": {}}
    xs: dict[str, list[bool]] = {_label(k, u): [] for k, u in measures}
    ys: dict[str, list[bool]] = {_label(k, u): [] for k, u in measures}
    better_all = worse_all = queries = 0
    for name, data in reports.items():
        row: dict[str, Any] = {"queries": len(data["queries"])}
        for k, unit in measures:
            cx, cy = correct(data, x, k, unit), correct(data, y, k, unit)
            row[_label(k, unit)] = stats.paired(cx, cy).to_json()
            xs[_label(k, unit)] += cx
            ys[_label(k, unit)] += cy
        better, worse = rank_counts(data, x, y)
        row["rank"] = {"better": better, "worse": worse, "p": stats.sign_test(better, worse)}
        out["corpora"][name] = row
        better_all, worse_all = better_all + better, worse_all + worse
        queries += len(data["queries"])
    out["pooled"] = {"queries": queries, **{m: stats.paired(xs[m], ys[m]).to_json() for m in xs},
                     "rank": {"better": better_all, "worse": worse_all,
                              "p": stats.sign_test(better_all, worse_all)}}
    out["by_needle"] = {}
    if phrasing is None:  # (within one phrasing each needle is one query: the same as pooled)
        for k, unit in measures:
            n, wins, losses = needle_counts(reports, x, y, k, unit)
            out["by_needle"][_label(k, unit)] = {"needles": n, "wins": wins, "losses": losses,
                                                 "p": stats.sign_test(wins, losses)}
    return out


def render(result: Mapping[str, Any]) -> list[str]:
    """One line per corpus and one for the pool: wins/losses (p) per measure."""
    half = f" ({result['phrasing']} phrasings)" if result.get("phrasing") else ""
    lines = [f"{result['x']} vs {result['y']}{half}"]
    rows = [*result["corpora"].items(), ("pooled", result["pooled"])]
    for name, row in rows:
        cells = [f"{m} +{v['wins']}/-{v['losses']} p={v['p']:.3g}"
                 for m, v in row.items() if m not in ("queries", "rank")]
        r = row["rank"]
        cells.append(f"rank {r['better']}/{r['worse']} p={r['p']:.3g}")
        lines.append(f"  {name:<12} ({row['queries']} q)  " + "  ".join(cells))
    if by := result.get("by_needle"):
        cells = [f"{m} +{v['wins']}/-{v['losses']} p={v['p']:.3g}" for m, v in by.items()]
        needles = next(iter(by.values()))["needles"]
        lines.append(f"  {'by needle':<12} ({needles} n)  " + "  ".join(cells))
    return lines
