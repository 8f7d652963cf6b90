"""A fifth list for the "late" fusion: sections ranked by how close their heading
path alone is to the query (docs/retrieval-experiments.md, section 37; the plan there
was committed before this script was run).

The default's two vector lists rank header-free chunk vectors (section 21) and the late
list reads the content's own tokens; a section's heading reaches the ranking only as
BM25 words. Here each section's label (``Title > Section > Subsection``, as citations
show it) is embedded on its own, the sections are ranked by cosine with the query,
and every chunk takes its section's place (within a section, the default's order).
That list joins the final RRF with weight ``w``, as the other lists do (section lift
included).

For each ground truth, the product's lists are read from an index built with token
vectors (the E index ``citeline eval`` leaves in OUT/indexes/E), as
``benchmarks/late_variants.py`` reads them; each weight is paired, query by query,
with the default, per corpus and pooled.

    python benchmarks/heading_list.py eval/rustbook=reports/chunk4/rustbook/indexes/E \\
        eval/pytutorial=... [--weights 0.5,1] [--out heading_list.json]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from figures import against_default, emit, paired, row  # benchmarks/: shared figures
from late_cv import ids
from late_variants import Query, chunk_scores, ranked

from citeline.embed import load_embedder
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import FUSION_DEPTH, Index
from citeline.retrieve.fuse import LATE_CANDIDATES, LATE_WEIGHT

DEFAULT = "default (late)"


def heading_scored(v: np.ndarray, labels: list[str], label_vecs: np.ndarray,
                   members: dict[str, list[int]], default: list[int]) -> list[tuple[int, float]]:
    """Chunks in the order of their section label's cosine with the query vector ``v``
    (the first ``FUSION_DEPTH``); within a section, the default's order, then the
    document's. A chunk's score is its section's cosine, so the section lift keeps
    that order."""
    place = {c: i for i, c in enumerate(default)}
    sims = label_vecs @ v
    out: list[tuple[int, float]] = []
    for j in np.argsort(-sims, kind="stable"):
        chunks = sorted(members[labels[j]], key=lambda c: (place.get(c, len(place)), c))
        out.extend((c, float(sims[j])) for c in chunks)
        if len(out) >= FUSION_DEPTH:
            break
    return out[:FUSION_DEPTH]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX")
    ap.add_argument("--weights", default="0.5,1", help="the heading list's RRF weights")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    emb = load_embedder()
    rows: dict[str, list[dict[str, tuple[int | None, bool]]]] = {}
    for spec in args.corpora:
        gt_dir, _, index_dir = spec.partition("=")
        gt = load_ground_truth(gt_dir)
        idx = Index(index_dir, embedder=emb, create=False)
        chunk_rows = idx.store.all_chunks()
        contents = {r.id: r.content for r in chunk_rows}
        members: dict[str, list[int]] = {}
        for r in chunk_rows:
            # a label is one section of one document (two documents may share a title)
            members.setdefault(f"{r.document}\n{r.section}", []).append(r.id)
        labels = list(members)
        label_vecs = emb.embed([label.split("\n", 1)[1] for label in labels])
        per_query = []
        for q in gt.queries():
            qr = Query(idx, q.text)
            lists, section, g = qr.three(qr.dense, qr.sent)
            s = chunk_scores(qr, ids(section[:LATE_CANDIDATES]), None)
            base_late = ranked(s["late"])
            runs = {DEFAULT: qr.final(lists, [base_late], g, [LATE_WEIGHT])}
            heads = heading_scored(qr.v, labels, label_vecs, members, runs[DEFAULT])
            for w in weights:
                runs[f"heading list w={w:g}"] = qr.final(lists, [base_late, heads], g,
                                                         [LATE_WEIGHT, w])
            per_query.append({run: row(order, contents, q.gt.needle)
                              for run, order in runs.items()})
        rows[Path(gt_dir).name] = per_query
        idx.close()

    out = against_default(rows, DEFAULT)
    for run, entry in out.items():
        if run != DEFAULT:
            entry["per corpus vs default"] = {  # type: ignore[index]
                n: paired([r[run] for r in rs], [r[DEFAULT] for r in rs])
                for n, rs in rows.items()}
    return emit(out, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
