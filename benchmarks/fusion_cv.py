"""Cross-validate the hybrid fusion on a ground truth (issue 7): no number tuned on
the query it scores.

The candidate fusions are scored from the very lists ``Index.search`` fuses (the
store's dense, BM25 and sentence-max top 200 for each query, and the store's
section keys), so a held-out run is what the pipeline would return with that
parameter. Two families, each cross-validated on its own:

* ``sentence``: RRF over dense + BM25 + sentence-max, k from K_GRID;
* ``section``: the same three lists at k = SENTENCE_RRF_K, the dense and
  sentence lists lifted by their section's best score (``section_lift``), the
  weight from WEIGHT_GRID; its dense list is the chunks' content embedded
  without the header where the index stores those vectors, as in ``Index.search``
  (so w = 0 is the sentence fusion only for an index without them).

Two cross-validation schemes, both reported:

* phrasings: fit on the "course" phrasings (pick the candidate with the best R@4,
  ties by MRR, then by the order of the grid), score it on the "ticket"
  phrasings; and the reverse;
* leave one document out: fit on the questions of every other document, score
  the left-out document's questions (13 folds on rustbook).

Each held-out run puts the 64 predictions together and is compared with the
faithful port (RRF k=60 over dense + BM25) by paired exact sign tests at R@4,
R@20, R@2000ch (needle in a hit that fits, whole, into the first 2,000 characters
of the hits packed in rank order: metrics.within_budget)
and on first-correct rank; "hybrid never worse than its better component" is
checked against every component list alone, on all queries and per phrasing.
The candidate chosen on *all* queries (the value to ship) is reported too.

    python benchmarks/fusion_cv.py eval/rustbook --index DIR [--cache FILE] [--out cv.json]

The index must be built with sentence vectors (any current ``citeline index``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from figures import emit  # benchmarks/: prints and writes the result

from citeline.embed import load_embedder
from citeline.eval import metrics, stats
from citeline.eval.cache import CachingEmbedder
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import FUSION_DEPTH, Index
from citeline.retrieve.bm25 import tokenize
from citeline.retrieve.fuse import RRF_K, SENTENCE_RRF_K, rrf, section_lift

# The grids cross-validation chooses from. RRF's k for the three-list fusion: 60
# is the paper's value; smaller k trusts each list's top more. The section
# weight: 0 is the plain sentence fusion; 2 lets a section's best chunk count
# twice the chunk's own score.
K_GRID: tuple[int, ...] = (1, 2, 5, 10, 20, 30, 60)
WEIGHT_GRID: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0)
RANK_MISS = 99  # a query whose needle is not in the top 20 ranks below every hit

# "d"/"b"/"s"/"bare": [(id, score)] (bare: header-less dense), "sec": {id: section key}
Lists = dict[str, object]
Ranker = Callable[[Lists], list[int]]


def ids(scored: object) -> list[int]:
    return [i for i, _ in scored]  # type: ignore[attr-defined]


def families() -> dict[str, dict[str, Ranker]]:
    sentence: dict[str, Ranker] = {
        f"sentence k={k}": lambda L, k=k: ids(rrf([ids(L["d"]), ids(L["b"]), ids(L["s"])], k=k))
        for k in K_GRID
    }

    def lifted(L: Lists, w: float) -> list[int]:
        sec = L["sec"]
        dense = L["bare"] or L["d"]
        lists = [ids(section_lift(dense, sec, w)), ids(L["b"]), ids(section_lift(L["s"], sec, w))]  # type: ignore[arg-type]
        return ids(rrf(lists, k=SENTENCE_RRF_K))

    section: dict[str, Ranker] = {
        f"section w={w:g}": lambda L, w=w: lifted(L, w) for w in WEIGHT_GRID
    }
    return {"sentence": sentence, "section": section}


BASELINES: dict[str, Ranker] = {
    "port (rrf k=60, dense+bm25)": lambda L: ids(rrf([ids(L["d"]), ids(L["b"])], k=RRF_K)),
    "dense": lambda L: ids(L["d"]),
    "bm25": lambda L: ids(L["b"]),
    "sentence-max": lambda L: ids(L["s"]),
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
    lists: list[Lists] = []
    for q, v in zip(queries, qvecs, strict=True):
        L: Lists = {
            "d": idx.store.dense(v, FUSION_DEPTH, key),
            "b": idx.store.bm25(tokenize(q.text), FUSION_DEPTH),
            "s": idx.store.sentence_max(v, FUSION_DEPTH, key),
            "bare": idx.store.dense(v, FUSION_DEPTH, key, bare=True),
        }
        L["sec"] = idx.store.sections(ids(L["d"]) + ids(L["bare"]) + ids(L["s"]))
        lists.append(L)
    if not any(L["s"] for L in lists):
        print(f"{args.index}: no sentence vectors; re-index with this citeline", file=sys.stderr)
        return 2
    every = {i for L in lists for name in ("d", "b", "s", "bare") for i in ids(L[name])}
    contents = {i: r.content for i, r in idx.store.chunks(sorted(every)).items()}

    def run(ranker: Ranker) -> tuple[list[int | None], list[bool]]:
        res = [score(ranker(L), contents, q.gt.needle) for L, q in zip(lists, queries, strict=True)]
        return [r for r, _ in res], [b for _, b in res]

    fams = families()
    scored = {name: run(f) for fam in fams.values() for name, f in fam.items()}
    scored.update({name: run(f) for name, f in BASELINES.items()})
    phr = [q.phrasing for q in queries]
    halves = sorted(set(phr))
    schemes = {
        "phrasings": {h: [i for i, p in enumerate(phr) if p == h] for h in halves},
        "leave one document out": {
            d: [i for i, q in enumerate(queries) if q.gt.doc == d]
            for d in sorted({q.gt.doc for q in queries})
        },
    }

    def sub(name: str, keep: Sequence[int]) -> dict[str, float]:
        ranks, bud = scored[name]
        return summary([ranks[i] for i in keep], [bud[i] for i in keep])

    def crit(name: str, keep: Sequence[int]) -> tuple[float, float]:
        m = sub(name, keep)
        return (m["R@4"], m["MRR"])

    def hit(ranks: Sequence[int | None], k: int) -> list[bool]:
        return [r is not None and r <= k for r in ranks]

    port = "port (rrf k=60, dense+bm25)"
    everyone = list(range(len(queries)))
    halves_of = {h: [i for i, p in enumerate(phr) if p == h] for h in halves}
    out: dict[str, object] = {"families": {}, "baselines": {}}
    for name in BASELINES:
        out["baselines"][name] = {  # type: ignore[index]
            "all": sub(name, everyone), **{h: sub(name, k) for h, k in halves_of.items()},
        }
    for fam, cands in fams.items():
        names = list(cands)  # max() keeps the first of equals: grid order
        res: dict[str, object] = {
            "grid": {n: sub(n, everyone) for n in names},
            "chosen on all queries (the value to ship)": max(names, key=lambda n: crit(n, everyone)),
        }
        for scheme, folds in schemes.items():
            picks: dict[str, str] = {}
            held_r: list[int | None] = [None] * len(queries)
            held_b: list[bool] = [False] * len(queries)
            for fold, test in folds.items():
                fit = [i for i in everyone if i not in set(test)]
                best = max(names, key=lambda n: crit(n, fit))
                picks[fold] = best
                for i in test:
                    held_r[i], held_b[i] = scored[best][0][i], scored[best][1][i]
            hr = [r or RANK_MISS for r in held_r]
            pr = [r or RANK_MISS for r in scored[port][0]]
            better = sum(1 for a, b in zip(hr, pr, strict=True) if a < b)
            worse = sum(1 for a, b in zip(hr, pr, strict=True) if a > b)
            held_sum = {"all": summary(held_r, held_b), **{
                h: summary([held_r[i] for i in k], [held_b[i] for i in k]) for h, k in halves_of.items()
            }}
            comp = {
                c: {m: {h: round(held_sum[h][m] - out["baselines"][c][h][m], 3)  # type: ignore[index]
                        for h in ("all", *halves)} for m in ("R@4", "R@20", "MRR", "R@2000ch")}
                for c in ("dense", "bm25", "sentence-max")
            }
            res[scheme] = {
                "picks (scored fold <- chosen on the rest)": picks,
                "held-out": held_sum,
                "held-out vs port": {
                    "R@4": pair(hit(held_r, 4), hit(scored[port][0], 4)),
                    "R@20": pair(hit(held_r, 20), hit(scored[port][0], 20)),
                    "R@2000ch": pair(held_b, scored[port][1]),
                    "rank better/worse": f"{better}/{worse} p={stats.sign_test(better, worse):.3f}",
                },
                "held-out minus component (negative = hybrid worse)": comp,
            }
        out["families"][fam] = res  # type: ignore[index]
    return emit(out, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
