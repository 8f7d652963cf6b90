"""Cross-validate chunk budget x hybrid fusion against the faithful port (issue 7).

Question: does any configuration (chunk budget, fusion) beat the current default
(strategy E, budget 512, plain RRF k=60: the faithful port) when the configuration
is chosen by cross-validation, with a paired sign test at p < 0.05 on R@4, and
without losing on R@2000ch (the needle inside the first 2,000 characters of
retrieved content: the fair measure when chunk sizes differ)?

Everything goes through the real pipeline: one strategy-E index per budget, built
by ``Index.index(..., budget=N, sentences=True)`` (so every fusion can run on it),
queried with ``Index.search(q, k=20, mode=..., fusion=...)``, scored with
``citeline.eval.metrics`` exactly as the harness does (first correct rank in the
top 20, R@2000ch = ``within_budget`` over the same top 20).

Selection criterion, fixed before any result was looked at (:func:`criterion`):
best R@4 on the fitting queries, ties by MRR, then the smaller budget, then the
simpler fusion (rrf < convex < sentence). Reported alongside, as a secondary
criterion also fixed in advance: best R@2000ch, ties by R@4, MRR, budget, fusion.

Two cross-validation schemes, each giving 64 held-out predictions:

* phrasing: fit on the 32 "course" queries, score the 32 "ticket" ones, and the
  reverse;
* leave-one-document-out: queries grouped by their ground-truth document (13
  chapters); each chapter's queries are scored with the configuration picked on
  the other 12 chapters' queries.

For each held-out run: R@1/4/8/20, MRR, R@2000ch on all queries and per phrasing;
exact two-sided paired sign tests against the port at R@4, R@20 and R@2000ch; and
"hybrid never worse than its better component" (held-out hybrid against dense
alone and BM25 alone at the budget each query's fold picked).

    python benchmarks/budget_fusion_cv.py eval/rustbook --work DIR \
        [--cache FILE] [--out benchmarks/results/budget_fusion_cv_rustbook.json]

Indexes are kept under --work, so a re-run only queries (indexing is incremental).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from figures import emit  # benchmarks/: prints and writes the result

from citeline.embed import load_embedder
from citeline.eval import metrics, stats
from citeline.eval.cache import CachingEmbedder
from citeline.eval.groundtruth import Query, load_ground_truth
from citeline.pipeline import Index
from citeline.retrieve.fuse import FUSIONS

# The grid: budgets a user can pick with `index --budget` that fit the MiniLM window
# (256 word pieces cap chunks near ~1,000 characters; section 8b: 384 destroys a needle).
BUDGETS: tuple[int, ...] = (512, 768, 1024)
# Fusions in order of simplicity (the last tie-breaker): rrf needs nothing, convex
# only score arithmetic, sentence needs sentence vectors in the index.
FUSION_ORDER: tuple[str, ...] = ("rrf", "convex", "sentence")
PORT = (512, "rrf")  # the faithful port = the current default (DEFAULT_BUDGET, DEFAULT_FUSION)
STRATEGY = "E"  # the default chunking strategy
TOP_K = 20  # what the harness scores (max of its cut-offs 1,4,8,20); R@2000ch packs these
CHAR_BUDGET = 2000  # R@2000ch: the fair measure when chunk sizes differ
KS: tuple[int, ...] = (1, 4, 8, 20)
ALPHA = 0.05  # the significance level for changing a default
RANK_MISS = 99  # a query with no correct chunk in the top 20 ranks below every hit

Config = tuple[int, str]  # (budget, fusion)
# Per query and run name: (first correct rank or None, needle inside the first 2,000 chars)
Result = tuple[int | None, bool]


def summary(res: Sequence[Result]) -> dict[str, float]:
    ranks = [r for r, _ in res]
    n = len(res)
    out = {f"R@{k}": round(metrics.recall_at_k(ranks, k), 3) for k in KS}
    out["MRR"] = round(metrics.mrr(ranks), 3)
    out[f"R@{CHAR_BUDGET}ch"] = round(sum(b for _, b in res) / n, 3) if n else 0.0
    out["n"] = n
    return out


def criterion(res: Sequence[Result], cfg: Config) -> tuple[float, ...]:
    """Primary selection key (larger is better): R@4, MRR, smaller budget, simpler fusion."""
    ranks = [r for r, _ in res]
    return (metrics.recall_at_k(ranks, 4), metrics.mrr(ranks),
            -cfg[0], -FUSION_ORDER.index(cfg[1]))


def criterion_chars(res: Sequence[Result], cfg: Config) -> tuple[float, ...]:
    """Secondary key: R@2000ch, then the primary key."""
    return (sum(b for _, b in res) / len(res), *criterion(res, cfg))


Criterion = Callable[[Sequence[Result], Config], tuple[float, ...]]


def cross_validate(
    runs: dict[Config, list[Result]], folds: list[list[int]], crit: Criterion,
) -> tuple[list[Result], list[Config | None], list[tuple[list[int], Config]]]:
    """Held-out predictions: each fold scored with the config ``crit`` picks on the rest."""
    n = len(next(iter(runs.values())))
    held: list[Result | None] = [None] * n
    picked: list[Config | None] = [None] * n
    picks: list[tuple[list[int], Config]] = []
    for test in folds:
        tset = set(test)
        fit = [i for i in range(n) if i not in tset]
        best = max(runs, key=lambda c: crit([runs[c][i] for i in fit], c))
        picks.append((test, best))
        for i in test:
            held[i], picked[i] = runs[best][i], best
    assert all(h is not None for h in held)
    return [h for h in held if h is not None], picked, picks


def hits(res: Sequence[Result], k: int) -> list[bool]:
    return [r is not None and r <= k for r, _ in res]


def paired(x: Sequence[bool], y: Sequence[bool]) -> dict[str, object]:
    p = stats.paired(x, y)
    return {"wins": p.wins, "losses": p.losses, "p": round(p.p, 4)}


def versus(res: Sequence[Result], base: Sequence[Result]) -> dict[str, object]:
    """Exact two-sided sign tests of ``res`` against ``base`` on the same queries."""
    better = sum(1 for (a, _), (b, _) in zip(res, base, strict=True) if (a or RANK_MISS) < (b or RANK_MISS))
    worse = sum(1 for (a, _), (b, _) in zip(res, base, strict=True) if (a or RANK_MISS) > (b or RANK_MISS))
    return {
        "R@4": paired(hits(res, 4), hits(base, 4)),
        "R@20": paired(hits(res, 20), hits(base, 20)),
        f"R@{CHAR_BUDGET}ch": paired([b for _, b in res], [b for _, b in base]),
        "rank": {"better": better, "worse": worse, "p": round(stats.sign_test(better, worse), 4)},
    }


def by_phrasing(res: Sequence[Result], queries: Sequence[Query]) -> dict[str, dict[str, float]]:
    out = {"all": summary(res)}
    for ph in dict.fromkeys(q.phrasing for q in queries):
        out[ph] = summary([r for r, q in zip(res, queries, strict=True) if q.phrasing == ph])
    return out


def name(cfg: Config) -> str:
    return f"{cfg[0]}/{cfg[1]}"


def build(gt_root: Path, work: Path, cache: CachingEmbedder, budgets: Sequence[int]) -> dict[int, Index]:
    gt = load_ground_truth(gt_root)
    out: dict[int, Index] = {}
    for b in budgets:
        idx = Index(work / f"E-{b}", embedder=cache)
        misses = cache.misses
        report = idx.index(gt.docs_dir, strategy=STRATEGY, budget=b, sentences=True, progress=False)
        if report.failed:
            path, reason = report.failed[0]
            raise SystemExit(f"{gt.docs_dir / path}: failed to index at budget {b}: {reason}")
        st = idx.store.stats()
        print(f"budget {b}: {st.chunks} chunks, {cache.misses - misses} texts embedded by the model",
              file=sys.stderr)
        out[b] = idx
    return out


def collect(idx: Index, queries: Sequence[Query], mode: str, fusion: str | None) -> list[Result]:
    res: list[Result] = []
    for q in queries:
        sr = idx.search(q.text, k=TOP_K, mode=mode, fusion=fusion)  # type: ignore[arg-type]
        if mode == "hybrid" and sr.fusion != fusion:
            raise SystemExit(f"{idx.location}: asked fusion {fusion}, search used {sr.fusion}")
        contents = [h.content for h in sr.hits]
        res.append((metrics.first_correct_rank(contents, q.gt.needle),
                    metrics.within_budget(contents, q.gt.needle, CHAR_BUDGET)))
    return res


def component_check(
    held: Sequence[Result], picked: Sequence[Config | None], comps: dict[tuple[int, str], list[Result]],
    queries: Sequence[Query],
) -> dict[str, object]:
    """Held-out hybrid minus each component alone at the budget each query's fold picked
    (negative = the hybrid is worse than that component)."""
    out: dict[str, object] = {}
    for mode in ("dense", "bm25"):
        comp = [comps[(c[0], mode)][i] for i, c in enumerate(picked) if c is not None]
        h, c = by_phrasing(held, queries), by_phrasing(comp, queries)
        out[mode] = {part: {m: round(h[part][m] - c[part][m], 3) for m in h[part] if m != "n"}
                     for part in h}
    return out


def better_component_gap(
    hybrid: Sequence[Result], dense: Sequence[Result], bm25: Sequence[Result],
) -> dict[str, float]:
    """Per metric: hybrid minus the better of dense and BM25 alone (negative = worse)."""
    h, d, b = summary(hybrid), summary(dense), summary(bm25)
    return {m: round(h[m] - max(d[m], b[m]), 3) for m in h if m != "n"}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gt", help="ground-truth folder (docs/, questions.jsonl)")
    ap.add_argument("--work", required=True, help="folder for the per-budget indexes (kept; re-runs reuse them)")
    ap.add_argument("--cache", default=None,
                    help="embedding cache file shared by every budget (default WORK/embed-cache.sqlite3)")
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)),
                    help=f"chunk budgets to cross (default {','.join(map(str, BUDGETS))}; must include 512)")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)

    budgets = sorted({int(b) for b in args.budgets.split(",") if b.strip()})
    if PORT[0] not in budgets:
        ap.error(f"--budgets: must include {PORT[0]} (the port)")
    assert set(FUSION_ORDER) == set(FUSIONS), "a new fusion needs a place in FUSION_ORDER"
    work = Path(args.work)
    cache = CachingEmbedder(load_embedder(), args.cache or work / "embed-cache.sqlite3")
    gt = load_ground_truth(args.gt)
    queries = gt.queries()
    indexes = build(Path(args.gt), work, cache, budgets)

    runs: dict[Config, list[Result]] = {}
    comps: dict[tuple[int, str], list[Result]] = {}
    for b in budgets:
        for f in FUSION_ORDER:
            runs[(b, f)] = collect(indexes[b], queries, "hybrid", f)
        for mode in ("dense", "bm25"):
            comps[(b, mode)] = collect(indexes[b], queries, mode, None)
    port = runs[PORT]

    phrasings = list(dict.fromkeys(q.phrasing for q in queries))
    docs = list(dict.fromkeys(q.gt.doc for q in queries))
    schemes = {
        "phrasing (course <-> ticket)": [[i for i, q in enumerate(queries) if q.phrasing == ph]
                                          for ph in phrasings],
        "leave one document out": [[i for i, q in enumerate(queries) if q.gt.doc == d] for d in docs],
    }
    out: dict[str, object] = {
        "corpus": str(args.gt), "queries": len(queries), "strategy": STRATEGY,
        "port": name(PORT), "top_k": TOP_K,
        "criterion": "primary: R@4, ties by MRR, smaller budget, simpler fusion (rrf<convex<sentence); "
                     "secondary: R@2000ch first, then the primary key",
        "chunks": {str(b): indexes[b].store.stats().chunks for b in budgets},
        "configs (all 64, not cross-validated)": {
            name(c): {**by_phrasing(r, queries), "vs port": versus(r, port)} for c, r in runs.items()
        },
        "components (all 64)": {f"{b}/{m}": by_phrasing(r, queries) for (b, m), r in comps.items()},
        "config minus its better component (all 64, same budget; negative = hybrid worse)": {
            name(c): better_component_gap(r, comps[(c[0], "dense")], comps[(c[0], "bm25")])
            for c, r in runs.items()
        },
        "fit on all 64 (what would be adopted)": {
            "primary": name(max(runs, key=lambda c: criterion(runs[c], c))),
            "secondary": name(max(runs, key=lambda c: criterion_chars(runs[c], c))),
        },
        "cv": {},
    }
    for scheme, folds in schemes.items():
        for label, crit in (("primary", criterion), ("secondary", criterion_chars)):
            held, picked, picks = cross_validate(runs, folds, crit)
            vs = versus(held, port)
            chars = vs[f"R@{CHAR_BUDGET}ch"]
            passes = (vs["R@4"]["wins"] > vs["R@4"]["losses"] and vs["R@4"]["p"] < ALPHA  # type: ignore[index]
                      and chars["wins"] >= chars["losses"])  # type: ignore[index]
            fold_names = ([phrasings[j] for j in range(len(folds))] if scheme.startswith("phrasing")
                          else docs)
            out["cv"][f"{scheme} / {label}"] = {  # type: ignore[index]
                "picks (scored fold <- config chosen on the rest)": {
                    fold_names[j]: name(cfg) for j, (_, cfg) in enumerate(picks)},
                "held-out": by_phrasing(held, queries),
                "held-out vs port": vs,
                "passes (R@4 p<0.05 and R@2000ch wins>=losses)": passes,
                "hybrid minus component (negative = hybrid worse)":
                    component_check(held, picked, comps, queries),
            }
    out["port"] = {"name": name(PORT), **by_phrasing(port, queries)}
    return emit(out, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
