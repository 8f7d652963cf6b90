"""The default fusion's two weights re-fitted by leave one corpus out over every bundled
corpus (docs/retrieval-experiments.md, section 47; the plan there was fixed first).

Section 23 chose the late list's weight in the final RRF (``LATE_WEIGHT`` = 2) and the
section lift (``SECTION_WEIGHT`` = 1.5) on four corpora under chunker ``chunk-v4``.
Since then the chunker changed twice (``chunk-v5``, ``chunk-v6``) and ten corpora were
added. This script ranks every query of every corpus under each (late weight, lift)
of a fixed grid, as ``Index.search`` ranks (the lists read from the index; the lift
weight applied to the dense and sentence lists, to the late list, and to the section
fusion whose top 100 the late list re-scores), then for each corpus picks the cell
with the best R@4 (then MRR) on the *other* corpora, and pairs those held-out
predictions with the default query by query.

    python benchmarks/fusion_weights_loco.py eval/rustbook=reports/eval/indexes/E \\
        eval/pytutorial=... [--out result.json]
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence

from figures import (  # benchmarks/: shared figures and paired tests
    emit,
    open_corpora,
    paired,
    row,
    summary,
)
from late_cv import ids
from late_variants import Query, chunk_scores, ranked

from citeline.embed import load_embedder
from citeline.eval.metrics import mrr, recall_at_k
from citeline.retrieve.fuse import (
    LATE_CANDIDATES,
    LATE_WEIGHT,
    SECTION_WEIGHT,
    SENTENCE_RRF_K,
    rrf,
    section_lift,
)

LATE_WEIGHTS = (1.5, 2.0, 3.0)
LIFTS = (1.0, 1.5, 2.0)
DEFAULT = (LATE_WEIGHT, SECTION_WEIGHT)


def rank_all(qr: Query) -> dict[tuple[float, float], list[int]]:
    """The query's ranking (chunk ids, best first) under every grid cell."""
    out = {}
    groups = qr.groups(qr.dense, qr.sent, qr.bm25)
    for lift in LIFTS:
        lists = [ids(section_lift(qr.dense, groups, lift)), ids(qr.bm25),
                 ids(section_lift(qr.sent, groups, lift))]
        cands = ids(rrf(lists, k=SENTENCE_RRF_K)[:LATE_CANDIDATES])
        late_list = ranked(chunk_scores(qr, cands, None)["late"])
        g = {**groups, **qr.groups(late_list)}
        lifted_late = ids(section_lift(late_list, g, lift))
        for w in LATE_WEIGHTS:
            out[(w, lift)] = ids(rrf([*lists, lifted_late], k=SENTENCE_RRF_K,
                                     weights=[1, 1, 1, w]))
    return out


def score(rows: Sequence[tuple[int | None, bool]]) -> tuple[float, float]:
    ranks = [r for r, _ in rows]
    return recall_at_k(ranks, 4), mrr(ranks)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    emb = load_embedder()
    cells = list(itertools.product(LATE_WEIGHTS, LIFTS))
    rows: dict[str, dict[tuple[float, float], list[tuple[int | None, bool]]]] = {}
    for corpus, gt, idx in open_corpora(args.corpora, emb):
        contents = {r.id: r.content for r in idx.store.all_chunks()}
        per = rows[corpus] = {c: [] for c in cells}
        for q in gt.queries():
            for cell, order in rank_all(Query(idx, q.text)).items():
                per[cell].append(row(order, contents, q.gt.needle))
    picks, held, default = {}, [], []
    for name in rows:
        train = {c: [r for other, per in rows.items() if other != name for r in per[c]]
                 for c in cells}
        best = max(cells, key=lambda c: (*score(train[c]), c == DEFAULT))
        picks[name] = list(best)
        held += rows[name][best]
        default += rows[name][DEFAULT]
    result = {
        "grid": {"late weight": LATE_WEIGHTS, "lift": LIFTS},
        "in-sample, pooled": {f"late {w:g}, lift {lift:g}": summary(
            [r for per in rows.values() for r in per[(w, lift)]]) for w, lift in cells},
        "per corpus, default": {n: summary(per[DEFAULT]) for n, per in rows.items()},
        "picks (late weight, lift), corpus held out": picks,
        "held out, pooled": summary(held),
        "default, pooled": summary(default),
        "held out vs default": paired(held, default),
    }
    return emit(result, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
