"""Variants of the "late" fusion measured against it (docs/retrieval-experiments.md,
sections 24 and 25): none was adopted; this script is how the claims can be checked.

For each ground truth, the product's lists are read from an index built with token
vectors (e.g. the E index ``citeline eval`` leaves in OUT/indexes/E), as ``Index.search``
builds them, and each variant changes one thing:

* ``rrf k=5`` / ``rrf k=20``: the final RRF's constant (10 in the product);
* ``candidates 200``: the late list re-scores the section fusion's top 200, not 100;
* ``+ precision .25/.5``: the late score plus that share of its precision side (each
  chunk token's best cosine against the query's tokens, averaged: BERTScore's P);
* ``sentence late``: the late score computed within each sentence of the chunk
  (``citeline.sentences.split_sentences``; the best sentence counts), replacing the
  chunk's, or as a fifth list of weight 1, or averaged with the chunk's;
* ``dense PRF b/m``: the dense list searched again with the query vector plus b times
  the mean header-less vector of the default ranking's top m chunks (Rocchio);
* ``length-normalised a``: the late score minus a times the log of the chunk's number
  of stored tokens (MaxSim's best match grows with the number of tokens to pick from;
  the eleventh session, section 25);
* ``late over header+content`` / ``late over content in header context``: the chunk's
  token vectors taken from its embedded ``text`` (header + content; all of them, or only
  the content's, which then read the heading path as context) instead of its content
  alone (section 26);
* ``query + [MASK] x f``: the query padded to 32 wordpieces with [MASK] tokens, whose
  output vectors join the query's tokens at f times their mean weight (ColBERT's query
  augmentation, on a model not trained for it; section 26);
* ``bm25 expansion +n``: the BM25 list searched again with the query's terms plus the n
  terms of the default's top 3 chunks with the highest tf x IDF (section 26).

Every variant is paired, query by query, with the default (R@1, R@4, R@20, R@2000ch,
first-correct rank), per corpus and pooled.

    python benchmarks/late_variants.py eval/rustbook=reports/late/rustbook/indexes/E \\
        eval/pytutorial=... [--out variants.json]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch
from figures import against_default, emit, row  # benchmarks/: shared figures and paired tests
from late_cv import ids

from citeline.embed import _WORDLIKE, load_embedder
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import FUSION_DEPTH, Index
from citeline.retrieve import late
from citeline.retrieve.bm25 import idf, tokenize
from citeline.retrieve.fuse import (
    LATE_CANDIDATES,
    LATE_WEIGHT,
    SECTION_WEIGHT,
    SENTENCE_RRF_K,
    rrf,
    section_lift,
)
from citeline.sentences import split_sentences

Scored = list[tuple[int, float]]


def ranked(scores: dict[int, float]) -> Scored:
    return sorted(scores.items(), key=lambda t: (-t[1], t[0]))


class Query:
    """One query's lists and the token material its variants need."""

    def __init__(self, idx: Index, text: str) -> None:
        emb = idx.embedder
        self.idx, self.key = idx, emb.identity.key
        self.v, qt = emb.embed_query(text)
        terms = tokenize(text)
        n, df = idx.store.document_frequencies(terms)
        self.q, self.w = qt.vectors, late.query_weights(text, qt.spans, n, df)
        self.bm25 = idx.store.bm25(terms, FUSION_DEPTH)
        self.dense = idx.store.dense(self.v, FUSION_DEPTH, self.key, bare=True)
        self.sent = idx.store.sentence_max(self.v, FUSION_DEPTH, self.key)

    def groups(self, *lists: Scored) -> dict[int, tuple[int, str]]:
        return self.idx.store.sections(sorted({i for s in lists for i, _ in s}))

    def three(self, dense: Scored, sent: Scored) -> tuple[list[list[int]], Scored, dict]:
        g = self.groups(dense, sent, self.bm25)
        lists = [ids(section_lift(dense, g, SECTION_WEIGHT)), ids(self.bm25),
                 ids(section_lift(sent, g, SECTION_WEIGHT))]
        return lists, rrf(lists, k=SENTENCE_RRF_K), g

    def final(self, lists: list[list[int]], extra: Sequence[Scored], g: dict,
              weights: Sequence[float], k: int = SENTENCE_RRF_K) -> list[int]:
        g = {**g, **self.groups(*extra)}
        fourth = [ids(section_lift(s, g, SECTION_WEIGHT)) for s in extra]
        return ids(rrf([*lists, *fourth], k=k, weights=[1, 1, 1, *weights]))


def chunk_scores(qr: Query, cands: Sequence[int], sentence_of: Callable[[int], np.ndarray] | None
                 ) -> dict[str, dict[int, float]]:
    """Per candidate: late (recall), its precision side, the best sentence's late, and
    the number of stored tokens."""
    stored = qr.idx.store.token_vectors(list(cands), qr.key)
    out: dict[str, dict[int, float]] = {"late": {}, "precision": {}, "sentence": {},
                                        "tokens": {}}
    wsum = float(qr.w.sum())
    for c in cands:
        if c not in stored:
            continue
        sims = qr.q @ late.dequantize(stored[c]).T  # (query tokens, chunk tokens)
        out["late"][c] = float(qr.w @ sims.max(axis=1)) / wsum
        out["tokens"][c] = sims.shape[1]
        out["precision"][c] = float(sims.max(axis=0).mean())
        if sentence_of is not None:
            sid = sentence_of(c)
            out["sentence"][c] = max(float(qr.w @ sims[:, sid == j].max(axis=1)) / wsum
                                     for j in np.unique(sid))
    return out


def with_header(emb, rows: Sequence) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Each chunk's token vectors from its embedded text: all, and the content's only."""
    every, content = {}, {}
    for r, tv in zip(rows, emb.embed_tokens([r.text for r in rows]), strict=True):
        own = np.array([a >= len(r.text) - len(r.content) for a, _ in tv.spans])
        every[r.id] = late.quantize(tv.vectors)
        content[r.id] = late.quantize(tv.vectors[own] if own.any() else tv.vectors)
    return every, content


def mask_tokens(emb, text: str, length: int = 32) -> np.ndarray:
    """The output vectors of the [MASK] pieces that pad the query to ``length``."""
    tok = emb.model.tokenizer
    pieces = tok(text.strip(), truncation=True, max_length=emb.window)["input_ids"]
    padded = pieces + [tok.mask_token_id] * max(0, length - len(pieces))
    with torch.no_grad():
        out = emb.model[0].auto_model(input_ids=torch.tensor([padded]),
                                      attention_mask=torch.ones(1, len(padded), dtype=torch.long))
    v = out.last_hidden_state[0, len(pieces):].float().numpy()
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def expanded_bm25(qr: Query, text: str, top: Sequence[str], n: int) -> Scored:
    """BM25 for the query's terms plus the ``n`` terms of ``top`` with the highest tf x IDF."""
    terms = tokenize(text)
    tf: dict[str, int] = {}
    for content in top:
        for t in tokenize(content):
            tf[t] = tf.get(t, 0) + 1
    chunks, df = qr.idx.store.document_frequencies(list(tf))
    new = sorted((t for t in tf if t not in terms), key=lambda t: -tf[t] * idf(chunks, df.get(t, 0)))
    return qr.idx.store.bm25(terms + new[:n], FUSION_DEPTH)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    emb = load_embedder()
    tok = emb.model.tokenizer
    rows: dict[str, list[dict[str, tuple[int | None, bool]]]] = {}
    for spec in args.corpora:
        gt_dir, _, index_dir = spec.partition("=")
        gt = load_ground_truth(gt_dir)
        idx = Index(index_dir, embedder=emb, create=False)
        chunk_rows = list(idx.store.all_chunks())
        contents = {r.id: r.content for r in chunk_rows}
        header_all, header_content = with_header(emb, chunk_rows)
        bare_ids, bare = idx.store._snapshot().bare[emb.identity.key]
        bare_row = {int(c): j for j, c in enumerate(bare_ids)}
        sentence_ids: dict[int, np.ndarray] = {}

        def sentence_of(c: int, contents: dict[int, str] = contents,
                        sentence_ids: dict[int, np.ndarray] = sentence_ids) -> np.ndarray:
            """Each stored token's sentence number, as embed_tokens keeps the tokens."""
            if c not in sentence_ids:
                text = contents[c]
                body, lead = text.strip(), len(text) - len(text.lstrip())
                offs = tok(body, truncation=True, max_length=emb.window,
                           return_offsets_mapping=True)["offset_mapping"]
                keep = [a + lead for a, b in offs if b > a and _WORDLIKE.search(body[a:b])]
                keep = keep or [next((a + lead for a, b in offs if b > a), 0)]
                starts = [s for s, _ in split_sentences(text)] or [0]
                sentence_ids[c] = np.maximum(np.searchsorted(starts, keep, side="right") - 1, 0)
            return sentence_ids[c]

        per_query = []
        for q in gt.queries():
            qr = Query(idx, q.text)
            lists, section, g = qr.three(qr.dense, qr.sent)
            cands = ids(section[:2 * LATE_CANDIDATES])
            s = chunk_scores(qr, cands, sentence_of)
            top = set(cands[:LATE_CANDIDATES])

            def only(d: dict[int, float], keep: set[int] = top) -> Scored:
                return ranked({c: x for c, x in d.items() if c in keep})

            base_late = only(s["late"])
            runs = {"default (late)": qr.final(lists, [base_late], g, [LATE_WEIGHT])}
            for k in (5, 20):
                runs[f"rrf k={k}"] = qr.final(lists, [base_late], g, [LATE_WEIGHT], k=k)
            runs["candidates 200"] = qr.final(lists, [only(s["late"], set(cands))], g, [LATE_WEIGHT])
            for lam in (0.25, 0.5):
                mix = {c: s["late"][c] + lam * s["precision"][c] for c in s["late"]}
                runs[f"+ precision {lam:g}"] = qr.final(lists, [only(mix)], g, [LATE_WEIGHT])
            sent_late = only(s["sentence"])
            runs["sentence late (replaces)"] = qr.final(lists, [sent_late], g, [LATE_WEIGHT])
            runs["sentence late (5th list)"] = qr.final(lists, [base_late, sent_late], g,
                                                         [LATE_WEIGHT, 1.0])
            avg = {c: (s["late"][c] + s["sentence"][c]) / 2 for c in s["late"]}
            runs["sentence late (averaged)"] = qr.final(lists, [only(avg)], g, [LATE_WEIGHT])
            for a in (0.02, 0.05, 0.08):
                norm = {c: s["late"][c] - a * np.log(s["tokens"][c]) for c in s["late"]}
                runs[f"length-normalised a={a:g}"] = qr.final(lists, [only(norm)], g,
                                                              [LATE_WEIGHT])
            default = runs["default (late)"]
            for label, vectors in (("late over header+content", header_all),
                                   ("late over content in header context", header_content)):
                scored = late.maxsim(qr.q, qr.w, {c: vectors[c] for c in top})
                runs[label] = qr.final(lists, [scored], g, [LATE_WEIGHT])
            stored = qr.idx.store.token_vectors(list(top), qr.key)
            masks = mask_tokens(emb, q.text)
            for f in (0.25, 0.5, 1.0):
                w = np.concatenate([qr.w, np.full(len(masks), f * qr.w.mean(), np.float32)])
                scored = late.maxsim(np.concatenate([qr.q, masks]), w, stored)
                runs[f"query + [MASK] x{f:g}"] = qr.final(lists, [scored], g, [LATE_WEIGHT])
            for n in (5, 10):
                bm25 = expanded_bm25(qr, q.text, [contents[c] for c in default[:3]], n)
                runs[f"bm25 expansion +{n}"] = qr.final([lists[0], ids(bm25), lists[2]],
                                                         [base_late], g, [LATE_WEIGHT])
            for b in (0.3, 0.7):
                for m in (3, 5):
                    fb = np.mean([bare[bare_row[c]] for c in default[:m]], axis=0)
                    v2 = qr.v + b * fb
                    v2 = (v2 / np.linalg.norm(v2)).astype(np.float32)
                    dense2 = idx.store.dense(v2, FUSION_DEPTH, qr.key, bare=True)
                    lists2, section2, g2 = qr.three(dense2, qr.sent)
                    s2 = chunk_scores(qr, ids(section2[:LATE_CANDIDATES]), None)
                    runs[f"dense PRF b={b:g} m={m}"] = qr.final(lists2, [ranked(s2["late"])], g2,
                                                                [LATE_WEIGHT])
            per_query.append({run: row(order, contents, q.gt.needle)
                              for run, order in runs.items()})
        rows[Path(gt_dir).name] = per_query
        idx.close()
    return emit(against_default(rows, "default (late)"), args.out)


if __name__ == "__main__":
    raise SystemExit(main())
