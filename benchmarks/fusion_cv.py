"""Cross-validate the hybrid fusion on a ground truth (issue 7): no number tuned on
the query it scores.

The candidate fusions are scored from the very lists ``Index.search`` fuses (the
store's dense, BM25 and sentence-max top 200 for each query), so a held-out run
is what the pipeline would return with that parameter. Protocol:

* fit on the "course" phrasings (pick the candidate with the best R@4, ties by
  MRR, then by the order of the grid), score it on the "ticket" phrasings; and
  the reverse. The held-out run puts the 64 predictions together.
* paired exact sign tests of the held-out run against the faithful port (RRF
  k=60 over dense + BM25) at R@4, R@20, R@2000ch (needle inside the first 2,000
  characters of retrieved content) and on first-correct rank.
* "hybrid never worse than its better component": every component list alone
  (dense, BM25, sentence-max) against the held-out hybrid, on all queries and per
  phrasing.

    python benchmarks/fusion_cv.py eval/rustbook --index DIR [--cache FILE] [--out cv.json]

The index must be built with sentence vectors (any current ``citeline index``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from citeline.embed import load_embedder
from citeline.eval import metrics, stats
from citeline.eval.cache import CachingEmbedder
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import FUSION_DEPTH, Index
from citeline.retrieve.bm25 import tokenize
from citeline.retrieve.fuse import RRF_K, rrf

# The grid cross-validation chooses from: RRF's k for the three-list fusion.
# 60 is the paper's value; smaller k trusts each list's top more.
K_GRID: tuple[int, ...] = (1, 2, 5, 10, 20, 30, 60)
RANK_MISS = 99  # a query whose needle is not in the top 20 ranks below every hit

Ranker = Callable[[dict[str, list[int]]], list[int]]


def candidates() -> dict[str, Ranker]:
    out: dict[str, Ranker] = {}
    for k in K_GRID:
        out[f"sentence k={k}"] = lambda L, k=k: [i for i, _ in rrf([L["d"], L["b"], L["s"]], k=k)]
    return out


BASELINES: dict[str, Ranker] = {
    "port (rrf k=60, dense+bm25)": lambda L: [i for i, _ in rrf([L["d"], L["b"]], k=RRF_K)],
    "dense": lambda L: L["d"],
    "bm25": lambda L: L["b"],
    "sentence-max": lambda L: L["s"],
}


def score(order: Sequence[int], contents: dict[int, str], needle: str) -> tuple[int | None, bool]:
    top = [contents[i] for i in order[:20]]
    return metrics.first_correct_rank(top, needle), metrics.within_budget(top, needle, 2000)


def summary(ranks: Sequence[int | None], budget: Sequence[bool]) -> dict[str, float]:
    n = len(ranks)
    return {
        **{f"R@{k}": round(metrics.recall_at_k(ranks, k), 3) for k in (1, 4, 8, 20)},
        "MRR": round(metrics.mrr(ranks), 3), "R@2000ch": round(sum(budget) / n, 3),
    }


def pair(x: Sequence[bool], y: Sequence[bool]) -> str:
    p = stats.paired(x, y)
    return f"+{p.wins}/-{p.losses} p={p.p:.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gt", help="ground-truth folder (docs/, questions.jsonl)")
    ap.add_argument("--index", required=True, help="an index of GT/docs with sentence vectors")
    ap.add_argument("--cache", default=None, help="embedding cache file for the query vectors")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)

    gt = load_ground_truth(args.gt)
    inner = load_embedder()
    emb = CachingEmbedder(inner, args.cache) if args.cache else inner
    idx = Index(args.index, embedder=emb, create=False)
    key = emb.identity.key
    queries = gt.queries()
    qvecs = emb.embed([q.text for q in queries])
    lists: list[dict[str, list[int]]] = []
    for q, v in zip(queries, qvecs, strict=True):
        lists.append({
            "d": [i for i, _ in idx.store.dense(v, FUSION_DEPTH, key)],
            "b": [i for i, _ in idx.store.bm25(tokenize(q.text), FUSION_DEPTH)],
            "s": [i for i, _ in idx.store.sentence_max(v, FUSION_DEPTH, key)],
        })
    if not any(L["s"] for L in lists):
        print(f"{args.index}: no sentence vectors; re-index with this citeline", file=sys.stderr)
        return 2
    ids = {i for L in lists for k in L.values() for i in k}
    contents = {i: r.content for i, r in idx.store.chunks(sorted(ids)).items()}

    def run(ranker: Ranker) -> tuple[list[int | None], list[bool]]:
        res = [score(ranker(L), contents, q.gt.needle) for L, q in zip(lists, queries, strict=True)]
        return [r for r, _ in res], [b for _, b in res]

    cands = candidates()
    scored = {name: run(f) for name, f in {**cands, **BASELINES}.items()}
    phr = [q.phrasing for q in queries]
    halves = sorted(set(phr))

    def sub(name: str, half: str) -> dict[str, float]:
        ranks, bud = scored[name]
        keep = [i for i, p in enumerate(phr) if p == half]
        return summary([ranks[i] for i in keep], [bud[i] for i in keep])

    picks: dict[str, str] = {}
    held_r: list[int | None] = [None] * len(queries)
    held_b: list[bool] = [False] * len(queries)
    for test in halves:
        fit = [h for h in halves if h != test]

        def crit(name: str, fit: list[str] = fit) -> tuple[float, float]:
            ms = [sub(name, h) for h in fit]
            return (sum(m["R@4"] for m in ms), sum(m["MRR"] for m in ms))

        best = max(cands, key=crit)  # max keeps the first of equals: grid order
        picks[test] = best
        for i, p in enumerate(phr):
            if p == test:
                held_r[i], held_b[i] = scored[best][0][i], scored[best][1][i]
    scored["held-out"] = (held_r, held_b)

    def hit(name: str, k: int) -> list[bool]:
        return [r is not None and r <= k for r in scored[name][0]]

    port = "port (rrf k=60, dense+bm25)"
    out: dict[str, object] = {"picks (scored half <- chosen on the other)": picks, "runs": {}}
    for name in ["held-out", *BASELINES, *cands]:
        ranks, bud = scored[name]
        out["runs"][name] = {  # type: ignore[index]
            "all": summary(ranks, bud), **{h: sub(name, h) for h in halves},
        }
    hr = [r or RANK_MISS for r in held_r]
    pr = [r or RANK_MISS for r in scored[port][0]]
    better = sum(1 for a, b in zip(hr, pr, strict=True) if a < b)
    worse = sum(1 for a, b in zip(hr, pr, strict=True) if a > b)
    out["held-out vs port"] = {
        "R@4": pair(hit("held-out", 4), hit(port, 4)),
        "R@20": pair(hit("held-out", 20), hit(port, 20)),
        "R@2000ch": pair(held_b, scored[port][1]),
        "rank better/worse": f"{better}/{worse} p={stats.sign_test(better, worse):.3f}",
    }
    comp = {}
    for c in ("dense", "bm25", "sentence-max"):
        comp[c] = {m: {h: round(out["runs"]["held-out"][h][m] - out["runs"][c][h][m], 3)  # type: ignore[index]
                       for h in ("all", *halves)} for m in ("R@4", "R@20", "MRR", "R@2000ch")}
    out["held-out minus component (negative = hybrid worse)"] = comp
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
