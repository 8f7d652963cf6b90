"""The late list with the heading path's tokens, chosen by leave-one-corpus-out
(docs/retrieval-experiments.md, section 30).

Section 29 found the late list over the embedded text's tokens (header + content) losing
first places on the four development corpora and gaining on the two corpora written
after them. This script puts the ways to use both token sets on one grid and lets
leave-one-corpus-out choose among them (criterion R@4, then MRR, as in section 23):

* ``content``: the default, the late list over the content's own tokens;
* ``header+content``: the late list over every token of the embedded text instead;
* ``both w1+w2``: the two late lists side by side in the final RRF, weights w1 (content)
  and w2 (header + content);
* ``averaged``: one late list whose score is the mean of the two late scores.

Every candidate is the section fusion's top 100, as in the product. Each corpus's
held-out figures come from the grid point the other corpora choose; they are paired
query by query with the default, per corpus and pooled.

    python benchmarks/header_late_cv.py eval/rustbook=reports/eval/indexes/E \\
        eval/pytutorial=... [--out header_late.json]
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from figures import emit, paired, summary  # benchmarks/: shared figures and paired tests
from late_cv import ids
from late_variants import Query, ranked, with_header

from citeline.embed import load_embedder
from citeline.eval import metrics
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import Index
from citeline.retrieve import late
from citeline.retrieve.fuse import LATE_CANDIDATES, LATE_WEIGHT

DEFAULT = "content"
BOTH = ((2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (2.0, 2.0))
GRID = (DEFAULT, "header+content", *(f"both {a:g}+{b:g}" for a, b in BOTH), "averaged")

Row = tuple[int | None, bool]


def runs_for(qr: Query, every: dict[int, object]) -> dict[str, list[int]]:
    """Each grid point's top 20 for one query."""
    lists, section, g = qr.three(qr.dense, qr.sent)
    top = ids(section[:LATE_CANDIDATES])
    own = dict(late.maxsim(qr.q, qr.w, qr.idx.store.token_vectors(top, qr.key)))
    head = dict(late.maxsim(qr.q, qr.w, {c: every[c] for c in top}))
    runs = {DEFAULT: qr.final(lists, [ranked(own)], g, [LATE_WEIGHT]),
            "header+content": qr.final(lists, [ranked(head)], g, [LATE_WEIGHT])}
    for a, b in BOTH:
        runs[f"both {a:g}+{b:g}"] = qr.final(lists, [ranked(own), ranked(head)], g, [a, b])
    mean = {c: (own[c] + head[c]) / 2 for c in own if c in head}
    runs["averaged"] = qr.final(lists, [ranked(mean)], g, [LATE_WEIGHT])
    return {run: order[:20] for run, order in runs.items()}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    emb = load_embedder()
    scored: dict[str, list[dict[str, Row]]] = {}
    for spec in args.corpora:
        gt_dir, _, index_dir = spec.partition("=")
        gt = load_ground_truth(gt_dir)
        idx = Index(index_dir, embedder=emb, create=False)
        chunk_rows = list(idx.store.all_chunks())
        contents = {r.id: r.content for r in chunk_rows}
        every, _ = with_header(emb, chunk_rows)
        per_query = []
        for q in gt.queries():
            runs = runs_for(Query(idx, q.text), every)
            per_query.append({
                run: (metrics.first_correct_rank([contents[i] for i in order], q.gt.needle),
                      metrics.within_budget([contents[i] for i in order], q.gt.needle, 2000))
                for run, order in runs.items()})
        scored[Path(gt_dir).name] = per_query
        idx.close()

    def pick(rows: Sequence[dict[str, Row]]) -> str:
        def crit(c: str) -> tuple[float, float]:
            s = summary([r[c] for r in rows])
            return (s["R@4"], s["MRR"])
        return max(GRID, key=crit)  # max keeps the first of equals: grid order

    out: dict[str, object] = {"grid": {n: {c: summary([r[c] for r in rows]) for c in GRID}
                                       for n, rows in scored.items()}}
    held: dict[str, list[Row]] = {}
    picks: dict[str, str] = {}
    for name in scored:
        best = pick([r for n, rows in scored.items() if n != name for r in rows])
        picks[name] = best
        held[name] = [r[best] for r in scored[name]]
    default = {n: [r[DEFAULT] for r in rows] for n, rows in scored.items()}
    out["leave one corpus out"] = {
        "picks": picks, "picked": dict(Counter(picks.values())),
        **{n: {"held out": summary(held[n]), "default": summary(default[n]),
               "held out vs default": paired(held[n], default[n])} for n in scored},
        "pooled": {"held out": summary([r for n in scored for r in held[n]]),
                   "default": summary([r for n in scored for r in default[n]]),
                   "held out vs default": paired([r for n in scored for r in held[n]],
                                                 [r for n in scored for r in default[n]])}}
    out["pooled, each grid point vs default"] = {
        c: paired([r[c] for rows in scored.values() for r in rows],
                  [r[DEFAULT] for rows in scored.values() for r in rows])
        for c in GRID if c != DEFAULT}
    return emit(out, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
