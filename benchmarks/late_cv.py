"""Cross-validate the "late" fusion's two choices (issue 7; docs/retrieval-experiments.md,
section 23): the weight of the late-interaction list in the four-list RRF, and whether
that list is lifted by section like the dense and sentence lists.

For each ground truth, the lists ``Index.search`` fuses are read from an index built
with token vectors (any current ``citeline index``; e.g. the E index ``citeline eval``
leaves in OUT/indexes/E): dense (header-less), BM25 and sentence-max at depth 200, the
section fusion's top ``LATE_CANDIDATES`` re-scored by ``Index._late_list``. Every
candidate of the grid is then scored per query, and three cross-validation schemes
pick a candidate on some queries and score it on the others:

* leave one corpus out (with two or more corpora): fit on the pooled queries of the
  other corpora, score the left-out one;
* phrasings: fit on one phrasing half of a corpus, score the other;
* leave one document out: fit on a corpus's other documents' questions.

The criterion is R@4, then MRR, then the order of the grid. Held-out figures are
compared, paired, with the section fusion (the previous default) and the chapter's port;
the late list alone (the top 100 ranked by it) is in the grid as a component.

    python benchmarks/late_cv.py eval/rustbook=reports/eval/indexes/E \\
        eval/pytutorial=reports/eval-pytutorial/indexes/E ... [--out cv.json]
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from figures import emit, paired, summary  # benchmarks/: shared figures and paired tests

from citeline.embed import load_embedder
from citeline.eval import metrics
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import FUSION_DEPTH, Index
from citeline.retrieve.bm25 import tokenize
from citeline.retrieve.fuse import (
    LATE_CANDIDATES,
    RRF_K,
    SECTION_WEIGHT,
    SENTENCE_RRF_K,
    rrf,
    section_lift,
)

WEIGHTS: tuple[float, ...] = (1.0, 1.5, 2.0)
LIFTS: tuple[bool, ...] = (False, True)
GRID = [f"w={w:g} lift={int(lift)}" for w in WEIGHTS for lift in LIFTS]


def ids(scored: Sequence[tuple[int, float]]) -> list[int]:
    return [i for i, _ in scored]


def rankings(idx: Index, query: str) -> dict[str, list[int]]:
    """Every candidate's ranking (top 20) and the two baselines', for one query."""
    emb = idx.embedder
    key = emb.identity.key
    v = emb.embed([query])[0]
    dense = idx.store.dense(v, FUSION_DEPTH, key, bare=True)
    header_dense = idx.store.dense(v, FUSION_DEPTH, key)
    bm25 = idx.store.bm25(tokenize(query), FUSION_DEPTH)
    sent = idx.store.sentence_max(v, FUSION_DEPTH, key)
    groups = idx.store.sections(ids(dense) + ids(sent))
    lists = [ids(section_lift(dense, groups, SECTION_WEIGHT)), ids(bm25),
             ids(section_lift(sent, groups, SECTION_WEIGHT))]
    section = rrf(lists, k=SENTENCE_RRF_K)
    scored = idx._late_list(query, tokenize(query), emb.embed_query(query)[1],
                            ids(section[:LATE_CANDIDATES]), emb.identity)
    if not scored:
        raise SystemExit(f"{idx.location}: no token vectors; re-index with this citeline")
    groups.update(idx.store.sections([i for i in ids(scored) if i not in groups]))
    out = {"section": ids(section)[:20], "late list alone": ids(scored)[:20],
           "port": ids(rrf([ids(header_dense), ids(bm25)], k=RRF_K))[:20]}
    for w in WEIGHTS:
        for lift in LIFTS:
            fourth = ids(section_lift(scored, groups, SECTION_WEIGHT) if lift else scored)
            out[f"w={w:g} lift={int(lift)}"] = ids(
                rrf([*lists, fourth], k=SENTENCE_RRF_K, weights=[1, 1, 1, w]))[:20]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX",
                    help="a ground-truth folder and an index of its docs with token vectors")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)

    emb = load_embedder()
    # per corpus, per query: {run: (first correct rank, needle in first 2,000 chars)}
    scored: dict[str, list[dict[str, tuple[int | None, bool]]]] = {}
    meta: dict[str, list[tuple[str, str]]] = {}  # (phrasing, document) per query
    for spec in args.corpora:
        gt_dir, _, index_dir = spec.partition("=")
        gt = load_ground_truth(gt_dir)
        name = Path(gt_dir).name
        idx = Index(index_dir, embedder=emb, create=False)
        queries = gt.queries()
        per_query = []
        for q in queries:
            runs = rankings(idx, q.text)
            contents = {i: r.content for i, r in
                        idx.store.chunks(sorted({i for r in runs.values() for i in r})).items()}
            per_query.append({
                run: (metrics.first_correct_rank([contents[i] for i in order], q.gt.needle),
                      metrics.within_budget([contents[i] for i in order], q.gt.needle, 2000))
                for run, order in runs.items()})
        scored[name] = per_query
        meta[name] = [(q.phrasing, q.gt.doc) for q in queries]
        idx.close()

    def pick(rows: Sequence[dict[str, tuple[int | None, bool]]]) -> str:
        def crit(c: str) -> tuple[float, float]:
            s = summary([r[c] for r in rows])
            return (s["R@4"], s["MRR"])
        return max(GRID, key=crit)  # max keeps the first of equals: grid order

    out: dict[str, object] = {"grid": {}, "schemes": {}}
    for name, rows in scored.items():
        out["grid"][name] = {c: summary([r[c] for r in rows])  # type: ignore[index]
                             for c in ("port", "section", "late list alone", *GRID)}
    schemes: dict[str, dict[str, list[tuple[str, int]]]] = {}  # scheme -> fold -> (corpus, i)
    every = [(n, i) for n, rows in scored.items() for i in range(len(rows))]
    if len(scored) > 1:
        schemes["leave one corpus out"] = {n: [(m, i) for m, i in every if m == n] for n in scored}
    schemes["phrasings"] = {f"{n}/{ph}": [(n, i) for i, (p, _) in enumerate(meta[n]) if p == ph]
                            for n in scored for ph in sorted({p for p, _ in meta[n]})}
    schemes["leave one document out"] = {
        f"{n}/{d}": [(n, i) for i, (_, dd) in enumerate(meta[n]) if dd == d]
        for n in scored for d in sorted({dd for _, dd in meta[n]})}
    for scheme, folds in schemes.items():
        held: dict[tuple[str, int], tuple[int | None, bool]] = {}
        picks: Counter[str] = Counter()
        for test in folds.values():
            test_set = set(test)
            if scheme == "leave one corpus out":
                fit = [(n, i) for n, i in every if (n, i) not in test_set]
            else:  # within the fold's own corpus
                corpus = test[0][0]
                fit = [(corpus, i) for i in range(len(scored[corpus])) if (corpus, i) not in test_set]
            best = pick([scored[n][i] for n, i in fit])
            picks[best] += 1
            for n, i in test:
                held[(n, i)] = scored[n][i][best]
        res: dict[str, object] = {"picks": dict(picks)}
        for n in scored:
            h = [held[(n, i)] for i in range(len(scored[n]))]
            res[n] = {"held-out": summary(h),
                      "vs section": paired(h, [r["section"] for r in scored[n]]),
                      "vs port": paired(h, [r["port"] for r in scored[n]])}
        h_all = [held[k] for k in every]
        res["pooled"] = {"held-out": summary(h_all),
                         "vs section": paired(h_all, [scored[n][i]["section"] for n, i in every]),
                         "vs port": paired(h_all, [scored[n][i]["port"] for n, i in every])}
        out["schemes"][scheme] = res  # type: ignore[index]
    return emit(out, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
