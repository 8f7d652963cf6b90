"""Where in a chunk the query's words meet, as a fifth list of the "late" fusion
(docs/retrieval-experiments.md, section 46). Measured against the default; adopted only
by the plan written there before the script was run.

BM25 scores a chunk by how often each query term occurs in it, wherever it occurs. A
needle is one sentence, and the chunks of its own section share its words, so the
needle's chunk and its neighbours score alike. Two signals read where the words meet,
each over the section fusion's top 100 (the candidates the late list re-scores), as a
list of its own in the default's final RRF (k = 10, section lift as for the others):

* ``sentence BM25``: each candidate scored by its best sentence's BM25 (the sentences
  as ``citeline.sentences.split_sentences`` cuts them, the IDF the index's over chunks,
  the length norm the corpus's mean sentence length in terms);
* ``term proximity``: the chunk's BM25 plus, for every pair of distinct query terms,
  min(idf) / d**2 summed over their occurrences d terms apart within 5 terms (BM25TP,
  Rasolofo & Savoy 2003, "Term proximity scoring for keyword-based retrieval systems").

Each at list weight .5 and 1, paired with the default query by query (R@1, R@4, R@20,
R@2000ch, first-correct rank), per corpus and pooled.

    python benchmarks/lexical_locality.py eval/rustbook=reports/eval/indexes/E \\
        eval/pytutorial=... [--weights .5,1] [--out result.json]
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence

from figures import (  # benchmarks/: shared figures and paired tests
    against_default,
    emit,
    open_corpora,
    row,
)
from late_cv import ids
from late_variants import Query, Scored, chunk_scores, ranked

from citeline.embed import load_embedder
from citeline.retrieve.bm25 import K1, B, idf, tokenize
from citeline.retrieve.fuse import LATE_CANDIDATES, LATE_WEIGHT
from citeline.sentences import split_sentences

WINDOW = 5  # terms apart, at most, for a pair to count (BM25TP's)


def sentence_terms(content: str) -> list[list[str]]:
    return [tokenize(content[s:e]) for s, e in split_sentences(content)] or [tokenize(content)]


def bm25_terms(query: Sequence[str], terms: Sequence[str], n: int, df: dict[str, int],
               avg: float) -> float:
    tf = Counter(terms)
    norm = K1 * (1 - B + B * len(terms) / avg)
    return sum(idf(n, df.get(t, 0)) * tf[t] * (K1 + 1) / (tf[t] + norm)
               for t in query if tf[t])


def proximity(query: Sequence[str], terms: Sequence[str], n: int, df: dict[str, int]) -> float:
    """Sum over pairs of distinct query terms within WINDOW terms: min(idf) / distance**2."""
    wanted = set(query)
    at = [(i, t) for i, t in enumerate(terms) if t in wanted]
    out = 0.0
    for j, (i, t) in enumerate(at):
        for i2, t2 in at[j + 1:]:
            d = i2 - i
            if d > WINDOW:
                break
            if t2 != t:
                out += min(idf(n, df.get(t, 0)), idf(n, df.get(t2, 0))) / d ** 2
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX")
    ap.add_argument("--weights", default=".5,1", help="the fifth list's weights")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    emb = load_embedder()
    rows: dict[str, list[dict[str, tuple[int | None, bool]]]] = {}
    for corpus, gt, idx in open_corpora(args.corpora, emb):
        contents = {r.id: r.content for r in idx.store.all_chunks()}
        sentences = {c: sentence_terms(t) for c, t in contents.items()}
        whole = {c: tokenize(t) for c, t in contents.items()}
        lengths = [len(s) for ss in sentences.values() for s in ss]
        avg_sentence = sum(lengths) / max(1, len(lengths))
        avg_chunk = sum(len(t) for t in whole.values()) / max(1, len(whole))
        per_query = []
        for q in gt.queries():
            qr = Query(idx, q.text)
            lists, section, g = qr.three(qr.dense, qr.sent)
            cands = ids(section[:LATE_CANDIDATES])
            late_list = ranked(chunk_scores(qr, cands, None)["late"])
            terms = tokenize(q.text)
            n, df = idx.store.document_frequencies(terms)
            sent: dict[int, float] = {}
            prox: dict[int, float] = {}
            for c in cands:
                sent[c] = max(bm25_terms(terms, s, n, df, avg_sentence) for s in sentences[c])
                prox[c] = bm25_terms(terms, whole[c], n, df, avg_chunk) + proximity(
                    terms, whole[c], n, df)
            runs = {"default (late)": qr.final(lists, [late_list], g, [LATE_WEIGHT])}
            extra: dict[str, Scored] = {"sentence BM25": ranked(sent),
                                        "term proximity": ranked(prox)}
            for name, scored in extra.items():
                for w in weights:
                    runs[f"{name} w={w:g}"] = qr.final(lists, [late_list, scored], g,
                                                       [LATE_WEIGHT, w])
            per_query.append({run: row(order, contents, q.gt.needle)
                              for run, order in runs.items()})
        rows[corpus] = per_query
    return emit(against_default(rows, "default (late)"), args.out)


if __name__ == "__main__":
    raise SystemExit(main())
