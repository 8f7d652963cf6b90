"""What tells a question the documents answer from one they do not? The refusal gate's
signal (the nearest hit's cosine distance) against the other numbers a search already
has, over every bundled ground truth's answerable and unanswerable questions.

For each question, ``Index.search(question, k=25)`` with the default settings (the gate
reads these 25 candidates) gives, per signal, one number:

* ``nearest distance`` (the gate's): the smallest cosine distance among the 25;
* ``late score``: the best late-interaction score among them (the default fusion's
  fourth list, citeline.retrieve.late);
* ``best sentence``: the highest cosine of the question with one sentence of any chunk
  (the sentence list's first score);
* ``BM25``: the BM25 list's first score.

For each signal: the area under the ROC curve (the chance that an answerable question
scores better than an unanswerable one; ties count half), per corpus and pooled, against
all unanswerable questions and against each kind ("near": on the corpus's topic, "off":
not). Then a logistic combination of the gate's distance with the others, fitted on the
other corpora and scored on the one left out (leave one corpus out), and the gate itself
at the index's threshold and at other starting values: answerable questions refused,
answered with the needle among the kept hits, unanswerable ones answered, by kind; and the
starting value that leave-one-corpus-out would choose by ``calibrate``'s cost (refusals +
2 x bluffs).

    python benchmarks/refusal_signals.py eval/rustbook=reports/eval/indexes/E \\
        eval/pytutorial=reports/eval-pytutorial/indexes/E ... [--out refusal.json]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from figures import emit  # benchmarks/: the JSON they print and write
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from citeline.eval import sweep as sweeps
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import ASK_CANDIDATES, Index
from citeline.retrieve.bm25 import tokenize

# name -> sign that makes "higher = more likely answerable"
SIGNALS = {"nearest distance": -1.0, "late score": 1.0, "best sentence": 1.0, "BM25": 1.0}
SHOWN = (0.45, 0.5, 0.525, 0.55, 0.6, 0.65, 0.675, 0.7)  # the sweep's rows printed
KINDS = {"all": ("near", "off"), "near": ("near",), "off": ("off",)}  # against answerable


def auc_by_kind(scores: Sequence[float], kinds: Sequence[str]) -> dict[str, float | None]:
    """ROC AUC of the answerable questions (kind "in") against each kind of unanswerable
    one (None where there are none of that kind)."""
    out: dict[str, float | None] = {}
    for label, against in KINDS.items():
        pick = [i for i, k in enumerate(kinds) if k == "in" or k in against]
        y = [kinds[i] == "in" for i in pick]
        out[label] = round(roc_auc_score(y, [scores[i] for i in pick]), 3) if not all(y) else None
    return out


def question_row(idx: Index, text: str, needle: str | None) -> dict[str, object]:
    hits = idx.search(text, k=ASK_CANDIDATES).hits
    qvec = idx.embedder.embed([text])[0]
    sentence = idx.store.sentence_max(qvec, 1, idx.embedder.identity.key)
    bm25 = idx.store.bm25(tokenize(text), 1)
    return {
        "nearest distance": min(h.distance for h in hits),
        "late score": max((h.late for h in hits if h.late is not None), default=0.0),
        "best sentence": sentence[0][1] if sentence else 0.0,
        "BM25": bm25[0][1] if bm25 else 0.0,
        # the gate's input, as the eval's sweep takes it: (distance, holds the needle)
        "candidates": [(h.distance, needle is not None and needle in h.content) for h in hits],
    }


def gate(rows: Sequence[dict], thresholds: Sequence[float]) -> list[dict[str, object]]:
    """The eval's sweep over these questions, the unanswerable ones split by kind."""
    answerable = [r["candidates"] for r in rows if r["kind"] == "in"]
    unanswerable = {k: [[d for d, _ in r["candidates"]] for r in rows if r["kind"] == k]
                    for k in ("near", "off")}
    near = sweeps.sweep(answerable, unanswerable["near"], thresholds)
    off = sweeps.sweep([], unanswerable["off"], thresholds)
    return [{"threshold": a.threshold, "answerable": a.n_in, "refused": a.refused,
             "needle kept": a.correct, "near": a.n_out, "near answered": a.bluffs,
             "off": b.n_out, "off answered": b.bluffs} for a, b in zip(near, off)]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="+", metavar="GT=INDEX",
                    help="a ground-truth folder and a default-settings index of its docs")
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args(argv)

    rows: dict[str, list[dict]] = {}
    thresholds: dict[str, float] = {}
    for pair in args.pairs:
        gt_dir, index_dir = pair.split("=", 1)
        gt = load_ground_truth(gt_dir)
        idx = Index(index_dir, create=False)
        name = Path(gt_dir).name
        thresholds[name] = idx.threshold
        rows[name] = [{"kind": "in", **question_row(idx, q.text, q.gt.needle)}
                      for q in gt.queries()]
        rows[name] += [{"kind": u.kind, **question_row(idx, u.query, None)}
                       for u in gt.unanswerable]
        idx.close()

    def aucs(rs: Sequence[dict], signal: str, sign: float) -> dict[str, float | None]:
        return auc_by_kind([sign * r[signal] for r in rs], [r["kind"] for r in rs])

    pooled = [r for rs in rows.values() for r in rs]
    result: dict[str, object] = {
        "questions": {n: {k: sum(r["kind"] == k for r in rs) for k in ("in", "near", "off")}
                      for n, rs in rows.items()},
        "auc": {signal: {**{n: aucs(rs, signal, sign) for n, rs in rows.items()},
                         "pooled": aucs(pooled, signal, sign)}
                for signal, sign in SIGNALS.items()},
    }

    # The gate's distance combined with the others, leave one corpus out.
    combos = [["nearest distance"], ["nearest distance", "late score"],
              ["nearest distance", "late score", "best sentence", "BM25"]]
    loco: dict[str, dict[str, float | None]] = {}
    for feats in combos:
        scores: list[float] = []
        kinds: list[str] = []
        for held in rows:
            train = [r for n, rs in rows.items() if n != held for r in rs]
            model = make_pipeline(StandardScaler(), LogisticRegression())
            model.fit([[r[f] for f in feats] for r in train], [r["kind"] == "in" for r in train])
            scores += list(model.decision_function([[r[f] for f in feats] for r in rows[held]]))
            kinds += [r["kind"] for r in rows[held]]
        loco[" + ".join(feats)] = auc_by_kind(scores, kinds)
    result["combined, leave one corpus out (AUC)"] = loco

    # The gate itself: the indexes' thresholds, and starting values around them; and the
    # starting value `calibrate` would propose from the other corpora's questions.
    result["thresholds of the indexes"] = thresholds
    result["gate, pooled"] = [r for r in gate(pooled, sweeps.grid())
                              if any(abs(r["threshold"] - t) < 1e-9 for t in SHOWN)]
    picks = {}
    for held in rows:
        train = [r for n, rs in rows.items() if n != held for r in rs]
        answerable = [r["candidates"] for r in train if r["kind"] == "in"]
        unanswerable = [[d for d, _ in r["candidates"]] for r in train if r["kind"] != "in"]
        best = sweeps.propose_threshold(sweeps.sweep(answerable, unanswerable, sweeps.grid()))
        picks[held] = gate(rows[held], [best.threshold])[0]
    result["starting value, leave one corpus out"] = picks
    return emit(result, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
