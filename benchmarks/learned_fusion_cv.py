"""A learned fusion and a diversity rule, against the "late" default (issue 7;
docs/retrieval-experiments.md, section 26): neither was adopted; this script is how the
claims can be checked.

For each ground truth, the default ranking's top ``SHORTLIST`` chunks are read as
``Index.search`` builds them (through benchmarks/late_variants.py's ``Query``, from an
index with token vectors, e.g. the E index ``citeline eval`` leaves in OUT/indexes/E),
with per-chunk features: each list's RRF term 1 / (10 + rank), the raw scores (late,
header-less cosine, best-sentence cosine, BM25 over the query's best), their gaps to
the shortlist's best, the late score's gap to its section's and document's best, the
number of shortlisted chunks of the same section and document, the late precision
side, the chunk's length and the default's own fused score and position.

* ``learned <features> C=c``: a linear ranker fitted by pairwise logistic regression
  (every needle chunk against every other shortlisted chunk of the same query,
  features scaled, L2 strength 1/c), leave one corpus out: fitted on the other
  corpora's queries, it re-orders the shortlist of the held-out one. "ranks" learns
  the four RRF weights only (a rank fusion, as SPEC asks); "ranks+scores" and "all"
  mix raw scores, which SPEC rules out for the product and which are measured
  to see whether they would have been worth arguing for.
* ``cap <section|document> n``: no more than n chunks of one section (document) in
  the top 4; the chunks held back follow the top 4 in their order.
* ``--gbm``: LightGBM's LambdaMART over all features, leave one corpus out (needs
  ``pip install lightgbm``, which citeline does not depend on).

Every run is paired with the default, query by query, per corpus and pooled.

    python benchmarks/learned_fusion_cv.py eval/rustbook=reports/eval/indexes/E \\
        eval/pytutorial=... [--gbm] [--out learned.json]
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from figures import Row, emit, paired, summary  # benchmarks/: shared figures, paired tests
from late_cv import ids
from late_variants import Query, chunk_scores, ranked
from sklearn.linear_model import LogisticRegression

from citeline.embed import load_embedder
from citeline.eval import metrics
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import Index
from citeline.retrieve.fuse import (
    LATE_CANDIDATES,
    LATE_WEIGHT,
    SECTION_WEIGHT,
    SENTENCE_RRF_K,
    rrf,
    section_lift,
)

SHORTLIST = 40  # the default's top chunks every run re-orders
ABSENT = 300  # the rank a chunk missing from a list (depth 200) counts as
RANKS = ["rr_dense", "rr_bm25", "rr_sentence", "rr_late"]
SCORES = ["late_gap", "dense_gap", "sentence_gap", "bm25"]


@dataclass
class Shortlist:
    """One query's shortlist in the default's order: features, labels, texts."""

    features: dict[str, np.ndarray]
    label: np.ndarray  # does the chunk's content hold the needle whole?
    contents: list[str]
    section: list[object]
    document: list[str]
    needle: str

    def row(self, order: Sequence[int]) -> Row:
        top = [self.contents[i] for i in order][:20]
        return (metrics.first_correct_rank(top, self.needle),
                metrics.within_budget(top, self.needle, 2000))

    def matrix(self, names: Sequence[str]) -> np.ndarray:
        return np.stack([self.features[n] for n in names], axis=1)


def best_of(values: np.ndarray, keys: Sequence[object]) -> np.ndarray:
    """Each entry's group best (groups by ``keys``)."""
    best: dict[object, float] = {}
    for k, v in zip(keys, values, strict=True):
        best[k] = max(best.get(k, -np.inf), float(v))
    return np.array([best[k] for k in keys])


def shortlist(idx: Index, text: str, needle: str, rows: dict) -> Shortlist:
    qr = Query(idx, text)
    lists, section, g = qr.three(qr.dense, qr.sent)
    s = chunk_scores(qr, ids(section[:LATE_CANDIDATES]), None)
    late_list = ranked(s["late"])
    g = {**g, **qr.groups(late_list)}
    four = [*lists, ids(section_lift(late_list, g, SECTION_WEIGHT))]
    fused = rrf(four, k=SENTENCE_RRF_K, weights=[1, 1, 1, LATE_WEIGHT])
    top = ids(fused[:SHORTLIST])
    rest = [c for c in top if c not in s["late"]]  # shortlisted from the other lists only
    if rest:
        for name, more in chunk_scores(qr, rest, None).items():
            s[name].update(more)
    g = {**g, **qr.groups([(c, 0.0) for c in top])}
    rank_of = [{c: r for r, c in enumerate(lst, 1)} for lst in four]
    dense, bm25, sent = dict(qr.dense), dict(qr.bm25), dict(qr.sent)
    bm25_best = max(bm25.values(), default=0.0) or 1.0
    bare_ids, bare = idx.store._snapshot().bare[qr.key]
    bare_row = {int(c): j for j, c in enumerate(bare_ids)}
    late = np.array([s["late"][c] for c in top])
    cos = np.array([dense[c] if c in dense else float(bare[bare_row[c]] @ qr.v) for c in top])
    sentence = np.array([sent.get(c, min(sent.values(), default=0.0)) for c in top])
    sections = [g[c] for c in top]
    documents = [rows[c].document for c in top]
    fused_score = dict(fused)
    f = {name: np.array([1 / (SENTENCE_RRF_K + r.get(c, ABSENT)) for c in top])
         for name, r in zip(RANKS, rank_of, strict=True)}
    f |= {
        "late": late, "late_gap": late - late.max(),
        "dense": cos, "dense_gap": cos - cos.max(),
        "sentence": sentence, "sentence_gap": sentence - sentence.max(),
        "bm25": np.array([bm25.get(c, 0.0) / bm25_best for c in top]),
        "precision": np.array([s["precision"][c] for c in top]),
        "section_late_gap": late - best_of(late, sections),
        "document_late_gap": late - best_of(late, documents),
        "section_count": np.log([Counter(sections)[k] for k in sections]),
        "document_count": np.log([Counter(documents)[k] for k in documents]),
        "log_tokens": np.log([s["tokens"][c] for c in top]),
        "log_chars": np.log([max(1, len(rows[c].content)) for c in top]),
        "fused": np.array([fused_score[c] for c in top]) / fused_score[top[0]],
        "log_position": np.log(np.arange(1, len(top) + 1)),
    }
    return Shortlist(f, np.array([needle in rows[c].content for c in top]),
                     [rows[c].content for c in top], sections, documents, needle)


def pairwise_weights(train: Sequence[Shortlist], names: Sequence[str], c: float) -> np.ndarray:
    """A linear ranker: logistic regression on (needle chunk - other chunk) features."""
    diffs = []
    for q in train:
        m = q.matrix(names)
        for p in np.flatnonzero(q.label):
            diffs.append(m[p] - m[~q.label])
    x = np.concatenate(diffs)
    x = np.concatenate([x, -x])
    y = np.r_[np.ones(len(x) // 2), np.zeros(len(x) // 2)]
    scale = x.std(axis=0) + 1e-9
    fit = LogisticRegression(C=c, fit_intercept=False, max_iter=5000).fit(x / scale, y)
    return fit.coef_[0] / scale


def by_score(scores: np.ndarray) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def capped(keys: Sequence[object], cap: int, head: int = 4) -> list[int]:
    """The default order with at most ``cap`` chunks per key in the top ``head``."""
    seen: Counter[object] = Counter()
    first: list[int] = []
    held: list[int] = []
    for i, k in enumerate(keys):
        if len(first) < head and seen[k] >= cap:
            held.append(i)
            continue
        seen[k] += 1
        first.append(i)
    return first[:head] + held + first[head:]


def loco(data: dict[str, list[Shortlist]],
         fit: Callable[[list[Shortlist]], Callable[[Shortlist], np.ndarray]]
         ) -> dict[str, list[Row]]:
    """Leave one corpus out: fit on the others, order the held-out shortlists."""
    out = {}
    for held in data:
        score = fit([q for name, qs in data.items() if name != held for q in qs])
        out[held] = [q.row(by_score(score(q))) for q in data[held]]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX")
    ap.add_argument("--gbm", action="store_true", help="also LightGBM LambdaMART (lab)")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    emb = load_embedder()
    data: dict[str, list[Shortlist]] = {}
    for spec in args.corpora:
        gt_dir, _, index_dir = spec.partition("=")
        idx = Index(index_dir, embedder=emb, create=False)
        rows = {r.id: r for r in idx.store.all_chunks()}
        data[Path(gt_dir).name] = [shortlist(idx, q.text, q.gt.needle, rows)
                                   for q in load_ground_truth(gt_dir).queries()]
        idx.close()
    every = list(next(iter(data.values()))[0].features)

    runs: dict[str, dict[str, list[Row]]] = {
        "default (late)": {n: [q.row(range(len(q.contents))) for q in qs]
                           for n, qs in data.items()}}
    for label, names in (("ranks", RANKS), ("ranks+scores", RANKS + SCORES), ("all", every)):
        for c in (0.01, 1.0):
            def fit(train: list[Shortlist], names: list[str] = names, c: float = c
                    ) -> Callable[[Shortlist], np.ndarray]:
                w = pairwise_weights(train, names, c)
                return lambda q: q.matrix(names) @ w
            runs[f"learned {label} C={c:g}"] = loco(data, fit)
    for key in ("section", "document"):
        for cap in (2, 3):
            runs[f"cap {key} {cap}"] = {n: [q.row(capped(getattr(q, key), cap)) for q in qs]
                                        for n, qs in data.items()}
    if args.gbm:
        import lightgbm  # the lab's: citeline does not depend on it

        for leaves in (3, 7):
            def fit_gbm(train: list[Shortlist], leaves: int = leaves
                        ) -> Callable[[Shortlist], np.ndarray]:
                model = lightgbm.LGBMRanker(
                    objective="lambdarank", n_estimators=50, num_leaves=leaves,
                    learning_rate=0.05, min_child_samples=20, verbose=-1).fit(
                    np.concatenate([q.matrix(every) for q in train]),
                    np.concatenate([q.label.astype(int) for q in train]),
                    group=[len(q.label) for q in train])
                return lambda q: model.predict(q.matrix(every))
            runs[f"LambdaMART all, {leaves} leaves"] = loco(data, fit_gbm)

    base = [r for rs in runs["default (late)"].values() for r in rs]
    out: dict[str, object] = {}
    for run, per_corpus in runs.items():
        pooled = [r for rs in per_corpus.values() for r in rs]
        entry: dict[str, object] = {n: summary(rs) for n, rs in per_corpus.items()}
        entry["pooled"] = summary(pooled)
        if run != "default (late)":
            entry["pooled vs default"] = paired(pooled, base)
        out[run] = entry
    return emit(out, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
