"""Cross-validate the extractive answer's hit weight (docs/retrieval-experiments.md,
section 24): how much a sentence's hit counts next to the sentence's own cosine, and
whether the hit's match is its cosine or its late-interaction score.

For each ground truth, every query goes through the product's path up to the
selection: ``Index.search`` (the default fusion), the gate, the kept hits' sentences
(``extractive.candidates``), each sentence's cosine to the question. Every
candidate of the grid then scores the sentences as ``(1 - w) * cosine + w * hit``,
picks them with the product's ``extractive.select`` (its budget and ``MAX_GAP``) and
is judged by ``extractive.needle_kept``, as ``benchmarks/answer_eval.py`` judges the
answer. Leave one corpus out picks a candidate on the other corpora's queries (most
needles kept, then the grid's order) and scores the left-out corpus; held-out
needles are compared, paired, with the shipped rule before this one (the hit's
cosine at weight 0.3).

    python benchmarks/answer_cv.py eval/rustbook=reports/late/rustbook/indexes/E \\
        eval/pytutorial=... [--out cv.json]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from figures import emit  # benchmarks/: prints and writes the result

from citeline.answer.extractive import candidates, needle_kept, select, spans, sub_locator
from citeline.embed import load_embedder
from citeline.eval import stats
from citeline.eval.groundtruth import load_ground_truth
from citeline.gate import gate
from citeline.pipeline import ASK_CANDIDATES, Index

WEIGHTS: tuple[float, ...] = (0.0, 0.15, 0.3, 0.45)
SIGNALS: tuple[str, ...] = ("cosine", "late")
BEFORE = ("cosine", 0.3)  # the rule this replaced


def name(c: tuple[str, float]) -> str:
    return f"{c[0]} w={c[1]:g}"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX",
                    help="a ground-truth folder and an index of its docs with token vectors")
    ap.add_argument("--weights", default=",".join(f"{w:g}" for w in WEIGHTS),
                    help="the hit weights on the grid, comma-separated (default: %(default)s)")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    grid = [(s, float(w)) for s in SIGNALS for w in args.weights.split(",")]
    if BEFORE not in grid:
        ap.error(f"--weights must include {BEFORE[1]:g}, the rule the grid is paired with")
    emb = load_embedder()
    kept: dict[str, dict[tuple[str, float], list[bool]]] = {}
    for spec in args.corpora:
        gt_dir, _, index_dir = spec.partition("=")
        gt = load_ground_truth(gt_dir)
        corpus = Path(gt_dir).name
        idx = Index(index_dir, embedder=emb, create=False)
        per = kept[corpus] = {c: [] for c in grid}
        for q in gt.queries():
            hits = idx.row_distances(q.text, idx.search(q.text, k=ASK_CANDIDATES).hits)
            decision = gate(hits, idx.threshold, question=q.text,  # as `ask` gates
                            lookups=idx.column_lookups(q.text, hits))
            cands = candidates(decision.kept) if not decision.refused else []
            if cands and any(c.hit.late is None for c in cands):
                raise SystemExit(f"{index_dir}: hits without a late score; index with this citeline")
            if not cands:  # refused, or no sentence to pick: no needle
                for c in grid:
                    per[c].append(False)
                continue
            vecs = emb.embed([q.text, *(c.text for c in cands)])
            cos = vecs[1:] @ vecs[0]
            hits = {"late": np.array([c.hit.late for c in cands], dtype=np.float32),
                    "cosine": np.array([1.0 - c.hit.distance for c in cands], dtype=np.float32)}
            for signal, w in grid:
                picked = spans(select(cands, list((1 - w) * cos + w * hits[signal])), sub_locator)
                per[(signal, w)].append(
                    needle_kept(q.gt.doc, gt.texts[q.gt.doc], picked, q.gt.needle))
        idx.close()

    out: dict[str, object] = {
        "grid": {corpus: {name(c): sum(v) for c, v in per.items()} for corpus, per in kept.items()},
        "queries": {corpus: len(per[BEFORE]) for corpus, per in kept.items()},
    }
    if len(kept) > 1:
        folds: dict[str, object] = {}
        held: list[bool] = []
        before: list[bool] = []
        for corpus in kept:
            fit = [c for c in kept if c != corpus]
            best = max(grid, key=lambda c: sum(sum(kept[f][c]) for f in fit))  # first of equals
            h, b = kept[corpus][best], kept[corpus][BEFORE]
            p = stats.paired(h, b)
            folds[corpus] = {"picks": name(best), "held-out kept": sum(h),
                             f"{name(BEFORE)} kept": sum(b), "paired": f"+{p.wins}/-{p.losses}"}
            held += h
            before += b
        p = stats.paired(held, before)
        out["leave one corpus out"] = {
            **folds, "pooled": {"held-out kept": sum(held), f"{name(BEFORE)} kept": sum(before),
                                "n": len(held), "paired": f"+{p.wins}/-{p.losses} p={p.p:.4f}"}}
    return emit(out, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
