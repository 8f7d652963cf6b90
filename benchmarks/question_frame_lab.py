"""Lab: does the default search rank better when the query's question frame is taken out?

A question embeds its frame ("how do I", "why does my", "can I") with its subject,
while the passage that answers it is a statement: MiniLM's pooled vector, the sentence
vectors and the token vectors of the late list all see those words. This lab searches
each rustbook query as written and with its frame removed (:func:`unframed`: the
interrogatives, auxiliaries and first-person pronouns of the fixed list FRAME, and
question marks; every other word, code included, kept as written), with the default
(``late``) fusion, and pairs the two per query.

The rule and the list were fixed before the run; nothing is fitted, so no
cross-validation applies. It runs on the development set alone: if it does not gain
there, the blind corpora are not spent on it. docs/retrieval-experiments.md section 58
has the result::

    .venv/bin/python benchmarks/question_frame_lab.py --index /tmp/rb/indexes/E
"""

from __future__ import annotations

import argparse
import json
import re

from citeline.eval import metrics, stats
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import Index

KS = (1, 4, 8, 20)
BUDGET = 2000
FRAME = frozenset("""
    how what why when where which who whom whose
    do does did doing is are was were am be been can could should would will shall may
    might must i me my mine myself we us our ours i'm i've i'd i'll we're we've
    """.split())
_WORD = re.compile(r"\S+")


def unframed(query: str) -> str:
    """``query`` less its question frame; the query itself when nothing else is left.

    >>> unframed("How do I read a file line by line? My loop never ends.")
    'read a file line by line loop never ends.'
    """
    kept = [w.rstrip("?") for w in _WORD.findall(query)
            if w.lower().strip("?,.!;:\"'()") not in FRAME]
    text = " ".join(w for w in kept if w)
    return text or query


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gt", default="eval/rustbook", help="ground-truth folder")
    ap.add_argument("--index", required=True, help="its strategy-E index folder")
    ap.add_argument("--out", help="write the figures here as JSON")
    args = ap.parse_args()
    gt = load_ground_truth(args.gt)
    idx = Index(args.index, create=False)
    ranks: dict[str, list[int | None]] = {"as written": [], "unframed": []}
    budget: dict[str, list[bool]] = {"as written": [], "unframed": []}
    phrasings: list[str] = []
    for q in gt.questions:
        for phrasing, text in q.queries:
            phrasings.append(phrasing)
            for name, query in (("as written", text), ("unframed", unframed(text))):
                contents = [h.content for h in idx.search(query, k=max(KS)).hits]
                ranks[name].append(metrics.first_correct_rank(contents, q.needle))
                budget[name].append(metrics.within_budget(contents, q.needle, BUDGET))
    idx.close()
    out: dict[str, object] = {}
    for name in ranks:
        figures = {f"R@{k}": metrics.recall_at_k(ranks[name], k) for k in KS}
        figures["MRR"] = metrics.mrr(ranks[name])
        figures["R@2000ch"] = sum(budget[name]) / len(budget[name])
        for ph in sorted(set(phrasings)):
            half = [r for r, p in zip(ranks[name], phrasings, strict=True) if p == ph]
            figures[f"{ph} R@4"] = metrics.recall_at_k(half, 4)
            figures[f"{ph} MRR"] = metrics.mrr(half)
        out[name] = {k: round(v, 3) for k, v in figures.items()}
    a, b = ranks["unframed"], ranks["as written"]
    out["paired unframed vs as written"] = {
        **{f"R@{k}": stats.paired([bool(x and x <= k) for x in a],
                                  [bool(x and x <= k) for x in b]).to_json() for k in KS},
        "R@2000ch": stats.paired(budget["unframed"], budget["as written"]).to_json(),
        "rank better/worse": [sum((x or 99) < (y or 99) for x, y in zip(a, b, strict=True)),
                              sum((x or 99) > (y or 99) for x, y in zip(a, b, strict=True))],
    }
    text = json.dumps(out, indent=2)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
