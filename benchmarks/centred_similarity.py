"""Similarity measured from the corpus's centre (docs/retrieval-experiments.md, section
49). Measured against the default; adopted only by the plan written there before the
script was run.

All of a corpus's vectors share a large common component, so part of what a raw cosine
reads is "this is about the corpus's subject". Each candidate corrects the similarity
itself, with nothing but the index's own vectors, and leaves the fusion as
``Index.search`` runs it:

* ``centred dense + sentence``: the header-free chunk vectors, the sentence vectors and
  the query each minus that list's corpus mean, renormalised, then the cosine;
* ``centred dense + sentence + late``: as above, and the late list's token vectors (the
  query's and the chunks') minus the mean of all the index's stored token vectors;
* ``CSLS dense + sentence``: 2 cos(q, c) - r(c), r(c) the mean cosine of c to its 10
  nearest neighbours among the same list's vectors (Conneau et al., ICLR 2018).

Each is paired, query by query, with the default (R@1, R@4, R@20, R@2000ch,
first-correct rank), per corpus and pooled.

    python benchmarks/centred_similarity.py eval/rustbook=reports/loc/rustbook/indexes/E \\
        eval/pytutorial=... [--out result.json]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
from figures import (  # benchmarks/: shared figures and paired tests
    against_default,
    emit,
    open_corpora,
    row,
)
from late_cv import ids
from late_variants import Query, Scored, chunk_scores, ranked

from citeline.embed import load_embedder
from citeline.pipeline import FUSION_DEPTH, Index
from citeline.retrieve import late
from citeline.retrieve.dense import chunk_max, top_k
from citeline.retrieve.fuse import LATE_CANDIDATES, LATE_WEIGHT

NEIGHBOURS = 10  # CSLS's k
BLOCK = 2048  # rows of the neighbour scan at a time (a corpus's sentences x itself)


def unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    n = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.where(n > 0, n, 1)


def neighbour_mean(m: np.ndarray, k: int = NEIGHBOURS) -> np.ndarray:
    """Each row's mean cosine to its k nearest other rows (rows unit length)."""
    out = np.empty(len(m), dtype=np.float32)
    kk = min(k, len(m) - 1)
    for a in range(0, len(m), BLOCK):
        sims = m[a:a + BLOCK] @ m.T
        sims[np.arange(len(sims)), np.arange(a, a + len(sims))] = -np.inf  # not itself
        out[a:a + BLOCK] = np.sort(np.partition(sims, -kk, axis=1)[:, -kk:], axis=1).mean(1)
    return out


class Corrections:
    """One index's corrected vectors: centred and CSLS terms for the dense and sentence
    lists, and the mean token vector for the late list."""

    def __init__(self, idx: Index, key: str) -> None:
        snap = idx.store._snapshot()
        self.bare_ids, bare = snap.bare[key]
        self.sent_ids, self.starts, sent = snap.sentences[key]
        self.bare, self.sent = bare, sent
        self.mu_bare, self.mu_sent = bare.mean(0), sent.mean(0)
        self.c_bare, self.c_sent = unit(bare - self.mu_bare), unit(sent - self.mu_sent)
        self.r_bare, self.r_sent = neighbour_mean(bare), neighbour_mean(sent)
        stored = idx.store.token_vectors([int(i) for i in snap.ids], key)
        total = sum(len(v) for v in stored.values())
        self.mu_tok = (sum(late.dequantize(v).sum(0) for v in stored.values())
                       / max(1, total)).astype(np.float32)
        self.mean_cos = {"chunks": mean_pair_cosine(bare), "sentences": mean_pair_cosine(sent)}

    def dense(self, sims: np.ndarray) -> Scored:
        best = top_k(sims, FUSION_DEPTH)
        return [(int(self.bare_ids[i]), float(sims[i])) for i in best]

    def sentence(self, sims: np.ndarray) -> Scored:
        best = chunk_max(sims, self.starts)
        top = top_k(best, FUSION_DEPTH)
        return [(int(self.sent_ids[i]), float(best[i])) for i in top]

    def centred(self, v: np.ndarray) -> tuple[Scored, Scored]:
        return (self.dense(self.c_bare @ unit(v - self.mu_bare)),
                self.sentence(self.c_sent @ unit(v - self.mu_sent)))

    def csls(self, v: np.ndarray) -> tuple[Scored, Scored]:
        return (self.dense(2 * (self.bare @ v) - self.r_bare),
                self.sentence(2 * (self.sent @ v) - self.r_sent))

    def centred_late(self, qr: Query, cands: Sequence[int]) -> Scored:
        stored = qr.idx.store.token_vectors(list(cands), qr.key)
        chunks = {c: unit(late.dequantize(stored[c]) - self.mu_tok) for c in cands if c in stored}
        return late.maxsim(unit(qr.q - self.mu_tok), qr.w, chunks)


def mean_pair_cosine(m: np.ndarray, n: int = 2000, seed: int = 0) -> float:
    """The mean cosine of n random pairs of distinct rows (how anisotropic they are)."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, len(m), n), rng.integers(0, len(m), n)
    keep = a != b
    return float((m[a[keep]] * m[b[keep]]).sum(1).mean())


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    emb = load_embedder()
    rows: dict[str, list[dict[str, tuple[int | None, bool]]]] = {}
    anisotropy: dict[str, dict[str, float]] = {}
    for corpus, gt, idx in open_corpora(args.corpora, emb):
        contents = {r.id: r.content for r in idx.store.all_chunks()}
        fix = Corrections(idx, emb.identity.key)
        anisotropy[corpus] = fix.mean_cos
        per_query = []
        for q in gt.queries():
            qr = Query(idx, q.text)

            def run(dense: Scored, sent: Scored, centred_late: bool = False,
                    qr: Query = qr, fix: Corrections = fix) -> list[int]:
                lists, section, g = qr.three(dense, sent)
                cands = ids(section[:LATE_CANDIDATES])
                scored = (fix.centred_late(qr, cands) if centred_late
                          else ranked(chunk_scores(qr, cands, None)["late"]))
                return qr.final(lists, [scored], g, [LATE_WEIGHT])

            centred = fix.centred(qr.v)
            runs = {"default (late)": run(qr.dense, qr.sent),
                    "centred dense + sentence": run(*centred),
                    "centred dense + sentence + late": run(*centred, centred_late=True),
                    "CSLS dense + sentence": run(*fix.csls(qr.v))}
            per_query.append({name: row(order, contents, q.gt.needle)
                              for name, order in runs.items()})
        rows[corpus] = per_query
    result = against_default(rows, "default (late)")
    result["mean cosine of random pairs"] = anisotropy
    return emit(result, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
