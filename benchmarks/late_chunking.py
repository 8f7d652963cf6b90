"""Chunk vectors pooled in their context, "late chunking" (docs/retrieval-experiments.md,
section 50). Measured against the default; adopted only by the plan written there before
the script was run.

Every vector an index holds is a chunk's (or a sentence's) text encoded alone. Late
chunking (Günther et al., 2024) encodes a longer span once and mean-pools each chunk's
own word pieces from that pass, so the vector is the chunk read in its context. The
candidates replace a list's vectors and leave the fusion as ``Index.search`` runs it:

* ``windowed dense (section)``: each chunk's header-free vector replaced by its pieces
  pooled from one pass over the chunk with its section's text around it, up to the
  model's window, the context split evenly before and after;
* ``windowed dense (document)``: the same, the context free to cross sections;
* ``windowed dense + sentence (section)``: as the first, and each sentence vector
  replaced by that sentence's pieces pooled from its chunk's windowed pass.

Each is paired, query by query, with the default (R@1, R@4, R@20, R@2000ch,
first-correct rank), per corpus and pooled.

    python benchmarks/late_chunking.py eval/rustbook=reports/loc/rustbook/indexes/E \\
        eval/pytutorial=... [--out result.json]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import regex
import torch
from centred_similarity import unit
from figures import against_default, emit, open_corpora, row  # benchmarks/
from late_cv import ids
from late_variants import Query, Scored, chunk_scores, ranked

from citeline.embed import SentenceTransformerEmbedder, load_embedder
from citeline.pipeline import FUSION_DEPTH, Index
from citeline.retrieve import late
from citeline.retrieve.dense import chunk_max, top_k
from citeline.retrieve.fuse import LATE_CANDIDATES, LATE_WEIGHT
from citeline.sentences import fence_starts, split_sentences
from citeline.store import ChunkRow

BATCH = 16  # windows per forward pass
WORDLIKE = regex.compile(r"[\p{L}\p{N}]")  # a piece the late list keeps (as embed.py)


@dataclass
class Window:
    """One chunk's encoder input: piece ids of the window, and where in it (positions
    after [CLS]) the chunk's own pieces and each of its sentences' pieces lie."""

    chunk: int
    ids: list[int]
    own: tuple[int, int]
    sentences: list[tuple[int, int]]
    wordlike: list[int]  # positions of the own pieces with a letter or digit


def piece_range(offsets: np.ndarray, start: int, end: int) -> tuple[int, int]:
    """The pieces whose characters lie within [start, end) (offsets sorted)."""
    a = int(np.searchsorted(offsets[:, 0], start, side="left"))
    b = int(np.searchsorted(offsets[:, 1], end, side="right"))
    return a, max(a, b)


def windows(emb: SentenceTransformerEmbedder, text: str, chunks: Sequence[ChunkRow],
            scope: str, with_sentences: bool) -> list[Window]:
    """Each chunk of one document with up to the model's window of context around it,
    taken from its section (``scope="section"``) or the whole document."""
    enc = emb.model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True,
                              truncation=False, verbose=False)
    pieces = enc["input_ids"]
    offsets = np.array(enc["offset_mapping"], dtype=np.int64).reshape(-1, 2)
    room_all = emb.window - 2  # [CLS] and [SEP]
    span: dict[str, tuple[int, int]] = {}
    for c in chunks:
        lo, hi = span.get(c.section, (c.start, c.end))
        span[c.section] = (min(lo, c.start), max(hi, c.end))
    fences = fence_starts(text) if with_sentences else []
    out = []
    for c in chunks:
        a, b = piece_range(offsets, c.start, c.end)
        b = min(b, a + room_all)  # a chunk over the window: truncated, as when embedded alone
        lo, hi = (span[c.section] if scope == "section" else (0, len(text)))
        sa, sb = piece_range(offsets, lo, hi)
        room = room_all - (b - a)
        before_avail, after_avail = max(0, a - sa), max(0, sb - b)
        before = min(before_avail, room // 2)
        after = min(after_avail, room - before)
        before = min(before_avail, room - after)
        w0 = a - before
        sents = []
        if with_sentences:
            for s, e in split_sentences(text, c.start, c.end, fences):
                x, y = piece_range(offsets, s, e)
                x, y = max(x, a) - w0, min(y, b) - w0
                sents.append((x, y) if y > x else (a - w0, b - w0))
        wordlike = [i - w0 for i in range(a, b)
                    if offsets[i, 1] > offsets[i, 0]
                    and WORDLIKE.search(text[offsets[i, 0]:offsets[i, 1]])]
        out.append(Window(c.id, pieces[w0:b + after], (a - w0, b - w0), sents,
                          wordlike or [a - w0]))
    return out


def encode(emb: SentenceTransformerEmbedder, wins: Sequence[Window]
           ) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Each window's chunk vector (its own pieces, mean-pooled, unit length), where
    asked for its sentences' vectors (rows in sentence order), and its own word pieces'
    token vectors (unit length, int8 as the index stores them)."""
    tok = emb.model.tokenizer
    model = emb.model[0].auto_model
    chunk_vec: dict[int, np.ndarray] = {}
    sent_vec: dict[int, np.ndarray] = {}
    tok_vec: dict[int, np.ndarray] = {}
    order = sorted(range(len(wins)), key=lambda i: len(wins[i].ids))
    for at in range(0, len(order), BATCH):
        group = [wins[i] for i in order[at:at + BATCH]]
        n = max(len(w.ids) for w in group) + 2
        input_ids = torch.full((len(group), n), tok.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(group), n), dtype=torch.long)
        for j, w in enumerate(group):
            seq = [tok.cls_token_id, *w.ids, tok.sep_token_id]
            input_ids[j, :len(seq)] = torch.tensor(seq)
            mask[j, :len(seq)] = 1
        with torch.no_grad():
            hidden = model(input_ids=input_ids, attention_mask=mask).last_hidden_state.numpy()
        for j, w in enumerate(group):
            h = hidden[j, 1:]  # positions after [CLS]
            a, b = w.own
            chunk_vec[w.chunk] = unit(h[a:max(b, a + 1)].mean(0))
            if w.sentences:
                sent_vec[w.chunk] = unit(np.stack([h[x:y].mean(0) for x, y in w.sentences]))
            tok_vec[w.chunk] = late.quantize(unit(h[w.wordlike]))
    return chunk_vec, sent_vec, tok_vec


class Windowed:
    """One index's windowed vectors, in the row order of its own header-free and
    sentence matrices."""

    def __init__(self, idx: Index, emb: SentenceTransformerEmbedder,
                 scopes: Sequence[str] = ("section", "document")) -> None:
        key = emb.identity.key
        snap = idx.store._snapshot()
        self.bare_ids, bare = snap.bare[key]
        self.sent_ids, self.starts, sent = snap.sentences[key]
        by_doc: dict[str, list[ChunkRow]] = defaultdict(list)
        for r in idx.store.all_chunks():
            by_doc[r.document].append(r)
        t = time.perf_counter()
        found: dict[str, dict[int, np.ndarray]] = {s: {} for s in scopes}
        sents: dict[int, np.ndarray] = {}
        self.tokens: dict[int, np.ndarray] = {}
        for path, rows in by_doc.items():
            text = idx.document_text(path)
            assert text is not None and all(text[r.start:r.end] == r.content for r in rows)
            for scope in scopes:
                vec, sv, tv = encode(emb, windows(emb, text, rows, scope, scope == "section"))
                found[scope].update(vec)
                sents.update(sv)
                if scope == "section":
                    self.tokens.update(tv)
        self.seconds = time.perf_counter() - t
        self.n_chunks = len(found["section"])
        row = {int(c): i for i, c in enumerate(self.bare_ids)}
        self.dense_m = {s: np.stack([found[s].get(int(c), bare[row[int(c)]])
                                     for c in self.bare_ids]) for s in found}
        # the sentence matrix's rows: each chunk's run, replaced where the run's length
        # matches the sentences cut here (a sheet's rows are cut otherwise: kept as stored)
        m = sent.copy()
        ends = list(self.starts[1:]) + [len(sent)]
        self.sentences_replaced = 0
        for c, a, b in zip(self.sent_ids, self.starts, ends, strict=True):
            v = sents.get(int(c))
            if v is not None and len(v) == b - a:
                m[a:b] = v
                self.sentences_replaced += int(b - a)
        self.sent_m = m
        self.sent_total = len(sent)
        self.agreement = float(np.mean(np.sum(self.dense_m["section"] * bare, axis=1)))

    def dense(self, scope: str, v: np.ndarray) -> Scored:
        sims = self.dense_m[scope] @ v
        return [(int(self.bare_ids[i]), float(sims[i])) for i in top_k(sims, FUSION_DEPTH)]

    def sentence(self, v: np.ndarray) -> Scored:
        best = chunk_max(self.sent_m @ v, self.starts)
        return [(int(self.sent_ids[i]), float(best[i])) for i in top_k(best, FUSION_DEPTH)]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="+", metavar="GT=INDEX")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    ap.add_argument("--pick", action="store_true",
                    help="score only the default and step 1's pick (step 2, the test corpora)")
    args = ap.parse_args(argv)
    emb = load_embedder()
    rows: dict[str, list[dict[str, tuple[int | None, bool]]]] = {}
    costs: dict[str, dict[str, float]] = {}
    for corpus, gt, idx in open_corpora(args.corpora, emb):
        contents = {r.id: r.content for r in idx.store.all_chunks()}
        win = Windowed(idx, emb, ("section",) if args.pick else ("section", "document"))
        costs[corpus] = {"chunks": int(win.n_chunks), "seconds (both scopes)": round(win.seconds, 1),
                         "sentences replaced": win.sentences_replaced,
                         "sentences": int(win.sent_total),
                         "mean cosine windowed vs stored": round(win.agreement, 3)}
        per_query = []
        for q in gt.queries():
            qr = Query(idx, q.text)

            def run(dense: Scored, sent: Scored, windowed_late: bool = False,
                    qr: Query = qr, win: Windowed = win) -> list[int]:
                lists, section, g = qr.three(dense, sent)
                cands = ids(section[:LATE_CANDIDATES])
                scored = (late.maxsim(qr.q, qr.w, {c: win.tokens[c] for c in cands
                                                   if c in win.tokens})
                          if windowed_late else ranked(chunk_scores(qr, cands, None)["late"]))
                return qr.final(lists, [scored], g, [LATE_WEIGHT])

            runs = {"default (late)": run(qr.dense, qr.sent),
                    "windowed dense (section)": run(win.dense("section", qr.v), qr.sent)}
            if not args.pick:
                runs |= {
                    "windowed dense (document)": run(win.dense("document", qr.v), qr.sent),
                    "windowed dense + sentence (section)": run(win.dense("section", qr.v),
                                                               win.sentence(qr.v)),
                    "windowed late (section)": run(qr.dense, qr.sent, True),
                    "windowed dense + late (section)": run(win.dense("section", qr.v), qr.sent,
                                                           True)}
            per_query.append({name: row(order, contents, q.gt.needle)
                              for name, order in runs.items()})
        rows[corpus] = per_query
    result = against_default(rows, "default (late)")
    result["cost"] = costs
    result["rows"] = rows  # per query, so runs over other corpora can be pooled with these
    return emit(result, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
