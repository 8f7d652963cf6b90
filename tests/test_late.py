"""The "late" fusion: late interaction over the model's token vectors as a fourth
list (citeline.retrieve.late; docs/retrieval-experiments.md, section 23)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from citeline.pipeline import DEFAULT_FUSION, Index
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
from citeline.store import StoredChunk
from citeline.store.sqlite import DB_NAME
from citeline.types import Chunk

FIXTURES_CORPUS = Path(__file__).parent / "fixtures" / "corpus"


def _unit(rows: list[list[float]]) -> np.ndarray:
    m = np.array(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_maxsim_is_the_weighted_mean_of_each_query_tokens_best_match():
    q = _unit([[1, 0, 0], [0, 1, 0]])
    chunks = {7: _unit([[1, 0, 0], [0, 0, 1]]),       # token 1 exact, token 2 orthogonal
              3: _unit([[1, 1, 0]]),                  # both at cos 0.7071
              5: _unit([[0, 1, 0], [1, 0, 1], [0, 0, 1]])}
    got = dict(late.maxsim(q, np.array([3.0, 1.0]), chunks))
    assert got[7] == pytest.approx((3 * 1.0 + 1 * 0.0) / 4)
    assert got[3] == pytest.approx((3 * 0.70710677 + 1 * 0.70710677) / 4)
    assert got[5] == pytest.approx((3 * 0.70710677 + 1 * 1.0) / 4)
    assert [i for i, _ in late.maxsim(q, np.array([3.0, 1.0]), chunks)] == [5, 7, 3]
    # equal weights: the plain mean; ties go by chunk id
    tie = late.maxsim(q, np.ones(2), {9: _unit([[1, 0, 0]]), 2: _unit([[0, 1, 0]])})
    assert tie == [(2, pytest.approx(0.5)), (9, pytest.approx(0.5))]
    assert late.maxsim(q, np.ones(2), {}) == []


def test_int8_token_vectors_score_within_the_quantisation_step():
    rng = np.random.default_rng(0)
    q = _unit(rng.normal(size=(5, 384)).tolist())
    docs = {i: _unit(rng.normal(size=(n, 384)).tolist()) for i, n in enumerate((3, 40, 17))}
    stored = {i: late.quantize(m) for i, m in docs.items()}
    assert all(m.dtype == np.int8 for m in stored.values())
    assert np.abs(late.dequantize(stored[1]) - docs[1]).max() <= 0.5 / late.TOKEN_SCALE + 1e-7
    exact = dict(late.maxsim(q, np.ones(5), docs))
    approx = dict(late.maxsim(q, np.ones(5), stored))
    for i in docs:
        assert approx[i] == pytest.approx(exact[i], abs=0.01)


def test_query_tokens_weigh_by_the_bm25_idf_of_their_word():
    query = "the read_line  capacity?!"
    spans = [(0, 3), (4, 8), (8, 9), (9, 13), (15, 23)]  # the, read, _, line, capacity
    df = {"the": 90, "read": 10, "line": 30}  # "capacity": never seen
    w = late.query_weights(query, spans, 100, df)
    assert w[0] == pytest.approx(idf(100, 90))
    # read_line is one word whose terms are read and line: every piece takes the rarer
    assert w[1] == w[2] == w[3] == pytest.approx(idf(100, 10))
    assert w[4] == pytest.approx(idf(100, 0)) and w[4] > w[1] > w[0]
    # no token in a word with a term: equal weights, the plain mean
    assert list(late.query_weights("?! ...", [(0, 2)], 100, df)) == [1.0]


def test_an_option_s_pieces_weigh_as_the_option_not_its_digit():
    """``-0``'s BM25 terms are ``0`` and the option ``-0`` (uni-v3): its pieces take the
    option's IDF, not the common digit's."""
    spans = [(0, 5), (6, 7), (7, 8)]  # xargs, -, 0
    df = {"xargs": 5, "0": 60, "-0": 3}
    w = late.query_weights("xargs -0", spans, 100, df)
    assert w[1] == w[2] == pytest.approx(idf(100, 3)) and w[2] > w[0]


def test_weighted_rrf_counts_a_list_as_many_times_as_its_weight():
    lists = [[1, 2, 3], [3, 2, 1]]
    assert rrf(lists, k=10, weights=[1.0, 2.0]) == rrf([*lists, lists[1]], k=10)
    assert rrf(lists, k=10, weights=[1.0, 1.0]) == rrf(lists, k=10)
    with pytest.raises(ValueError, match="2 weights for 3 lists"):
        rrf([*lists, [4]], weights=[1.0, 1.0])


def test_token_vectors_are_the_models_contextual_wordpieces_with_their_spans(model_itself):
    embedder = model_itself  # every call reaches the model
    text = "  Vec::push grows the buffer; read_line appends."
    (tv,) = embedder.embed_tokens([text])
    pieces = [text[a:b] for a, b in tv.spans]
    assert pieces == ["Ve", "c", "push", "grows", "the", "buffer", "read", "line",
                      "app", "end", "s"]  # wordpieces, without "::", ";", "_" or "."
    assert tv.vectors.shape == (len(tv.spans), embedder.identity.dim)
    np.testing.assert_allclose(np.linalg.norm(tv.vectors, axis=1), 1.0, atol=1e-5)
    # contextual: the same word in another sentence has another vector
    (other,) = embedder.embed_tokens(["the buffer is full"])
    i = pieces.index("buffer")
    j = [("the buffer is full")[a:b] for a, b in other.spans].index("buffer")
    assert 0.5 < float(tv.vectors[i] @ other.vectors[j]) < 0.999
    # a query's vector and token vectors come from one pass, the vector exactly embed()'s
    vec, qt = embedder.embed_query(text)
    np.testing.assert_array_equal(vec, embedder.embed([text])[0])
    np.testing.assert_array_equal(qt.vectors, tv.vectors)
    assert qt.spans == tv.spans
    # a text of punctuation alone keeps one piece rather than none
    (dash,) = embedder.embed_tokens(["---"])
    assert len(dash.spans) == 1
    assert embedder.embed_tokens([]) == []


def test_late_fusion_is_the_default_and_follows_its_formula(index: Index, clean_corpus: Path):
    report = index.index(clean_corpus)
    assert report.tokens_embedded > 0
    key = index.embedder.identity.key
    assert DEFAULT_FUSION == "late"
    for q in ("how often should the chain be oiled", "descaling vinegar", "brake pads worn"):
        res = index.search(q, k=10)
        assert res.fusion == "late" and "late" in res.timings
        qv = index.embedder.embed([q])[0]
        dense = index.store.dense(qv, 200, key, bare=True)
        bm25 = index.store.bm25(tokenize(q), 200)
        sent = index.store.sentence_max(qv, 200, key)
        groups = index.store.sections([i for i, _ in dense] + [i for i, _ in sent])
        lists = [[i for i, _ in section_lift(dense, groups, SECTION_WEIGHT)],
                 [i for i, _ in bm25],
                 [i for i, _ in section_lift(sent, groups, SECTION_WEIGHT)]]
        cands = [i for i, _ in rrf(lists, k=SENTENCE_RRF_K)[:LATE_CANDIDATES]]
        # the token vectors stored are the content's, quantised
        stored = index.store.token_vectors(cands, key)
        rows = index.store.chunks(cands)
        assert set(stored) == set(cands)
        c0 = cands[0]
        (tv,) = index.embedder.embed_tokens([rows[c0].content])
        np.testing.assert_array_equal(stored[c0], late.quantize(tv.vectors))
        (qt,) = index.embedder.embed_tokens([q])
        n, df = index.store.document_frequencies(tokenize(q))
        assert n == index.store.stats().chunks
        scored = late.maxsim(qt.vectors, late.query_weights(q, qt.spans, n, df), stored)
        groups.update(index.store.sections([i for i, _ in scored]))
        want = rrf([*lists, [i for i, _ in section_lift(scored, groups, SECTION_WEIGHT)]],
                   k=SENTENCE_RRF_K, weights=[1, 1, 1, LATE_WEIGHT])[:10]
        assert [(h.chunk_id, round(h.score, 9)) for h in res.hits] == [
            (i, round(s, 9)) for i, s in want]
        # the gate still sees the chunk's own cosine distance
        sims = index.store.similarities(qv, [h.chunk_id for h in res.hits], key)
        assert all(h.distance == pytest.approx(1 - sims[h.chunk_id], abs=1e-6) for h in res.hits)
    # the fourth list changes the order somewhere on this corpus, so the test tells
    # the two fusions apart
    assert any([h.chunk_id for h in index.search(q, k=10).hits]
               != [h.chunk_id for h in index.search(q, k=10, fusion="section").hits]
               for q in ("how often should the chain be oiled", "descaling vinegar",
                         "brake pads worn", "limescale", "warranty"))


def test_token_vectors_are_reused_for_unchanged_chunks_and_dropped_with_them(
        index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    con = sqlite3.connect(Path(index.location) / DB_NAME)
    n_chunks = con.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    assert con.execute("SELECT COUNT(token_vectors) FROM chunks").fetchone()[0] == n_chunks
    # one document grows a paragraph at its end: only its new or changed chunks are
    # embedded, token vectors included
    kettle = clean_corpus / "kettle.md"
    kettle.write_text(kettle.read_text() + "\n\nThe lid hinge can be replaced by the owner.\n")
    report = index.index(clean_corpus)
    assert report.indexed == ["kettle.md"]
    assert 0 < report.tokens_embedded <= report.embedded + report.bare_embedded
    kettle_chunks = con.execute(
        "SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.doc_id "
        "WHERE d.path = 'kettle.md'").fetchone()[0]
    assert report.tokens_embedded < kettle_chunks or kettle_chunks == 1
    assert con.execute("SELECT COUNT(*) FROM chunks WHERE token_vectors IS NULL").fetchone()[0] == 0
    # a removed document's token vectors go with its chunks
    index.remove("kettle.md")
    left = con.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    assert con.execute("SELECT COUNT(token_vectors) FROM chunks").fetchone()[0] == left
    assert not index.store.token_vectors(list(range(1, 10_000)), "another-model@x/384")
    con.close()


def test_an_index_without_token_vectors_searches_by_section(tmp_path: Path, clean_corpus: Path,
                                                           embedder, run, capsys):
    idx = Index(tmp_path / "i", embedder=embedder)
    idx.index(clean_corpus)
    want = [h.chunk_id for h in idx.search("descaling vinegar", fusion="section").hits]
    con = sqlite3.connect(tmp_path / "i" / DB_NAME)
    with con:
        con.execute("UPDATE chunks SET token_vectors = NULL")
    con.close()
    res = idx.search("descaling vinegar")
    assert res.fusion == "section" and [h.chunk_id for h in res.hits] == want
    idx.close()
    from citeline import cli

    assert cli.main(["search", "descaling vinegar", "--index", str(tmp_path / "i")]) == 0
    err = capsys.readouterr().err
    assert "holds no token vectors" in err and "fused with section instead of late" in err


def test_the_evaluations_caching_embedder_passes_token_vectors_on(tmp_path: Path, model_itself):
    embedder = model_itself  # every call reaches the model
    from citeline.eval.cache import CachingEmbedder

    cached = CachingEmbedder(embedder, tmp_path / "cache.sqlite3")
    vec, qt = cached.embed_query("descaling vinegar")
    want_vec, want_qt = embedder.embed_query("descaling vinegar")
    np.testing.assert_array_equal(vec, want_vec)
    np.testing.assert_array_equal(qt.vectors, want_qt.vectors)
    (tv,) = cached.embed_tokens(["descaling vinegar"])
    assert tv.spans == want_qt.spans
    # the pooled vectors an index's contents get along with their tokens are cached too
    ((pooled, both),) = cached.embed_with_tokens(["descale with citric acid"])
    np.testing.assert_array_equal(both.vectors, embedder.embed_tokens(["descale with citric acid"])[0].vectors)
    hits = cached.hits
    np.testing.assert_array_equal(cached.embed(["descale with citric acid"])[0], pooled)
    assert cached.hits == hits + 1
    # so an index built and searched through it runs the late fusion, not its fallback
    idx = Index(tmp_path / "i", embedder=cached)
    idx.index(FIXTURES_CORPUS / "kettle.md")
    assert idx.search("descaling vinegar").fusion == "late"
    idx.close()


class _Reading:
    """The real model, keeping every text it is asked to read (what a test counts)."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.read = inner, []
        self.identity, self.window, self.model_path = inner.identity, inner.window, inner.model_path

    def embed(self, texts, progress: bool = False):  # type: ignore[no-untyped-def]
        self.read.extend(texts)
        return self.inner.embed(texts, progress)

    def embed_with_tokens(self, texts):  # type: ignore[no-untyped-def]
        self.read.extend(texts)
        return self.inner.embed_with_tokens(texts)

    def embed_tokens(self, texts):  # type: ignore[no-untyped-def]
        self.read.extend(texts)
        return self.inner.embed_tokens(texts)

    def embed_query(self, text):  # type: ignore[no-untyped-def]
        return self.inner.embed_query(text)

    def count_tokens(self, texts):  # type: ignore[no-untyped-def]
        return self.inner.count_tokens(texts)


def test_a_chunks_content_is_read_once_for_its_vector_and_its_tokens(
        tmp_path: Path, clean_corpus: Path, embedder):
    """The header-less vector and the token vectors are both the content's: one forward
    pass gives both, so indexing reads each content once, not twice."""
    reading = _Reading(embedder)
    idx = Index(tmp_path / "i", embedder=reading)
    report = idx.index(clean_corpus)
    con = sqlite3.connect(tmp_path / "i" / DB_NAME)
    rows = con.execute("SELECT id, content, bare_vector FROM chunks").fetchall()
    contents = {content for _, content, _ in rows}
    assert all(reading.read.count(c) == 1 for c in contents)
    assert report.bare_embedded == report.tokens_embedded == len(contents)
    key = embedder.identity.key
    stored = idx.store.token_vectors([i for i, _, _ in rows], key)
    for (i, _, bare), alone, tv in zip(
            rows, embedder.embed([c for _, c, _ in rows]),
            embedder.embed_tokens([c for _, c, _ in rows]), strict=True):
        np.testing.assert_allclose(np.frombuffer(bare, dtype=np.float32), alone, atol=1e-5)
        np.testing.assert_array_equal(stored[i], late.quantize(tv.vectors))
    con.close()
    idx.close()


def test_sqlite_refuses_token_vectors_of_another_shape_and_keeps_the_old_version(
        index: Index, clean_corpus: Path):
    from dataclasses import replace

    from citeline.errors import ModelMismatch

    index.index(clean_corpus)
    before = index.store.document("kettle.md")
    kept = index.store.chunks([h.chunk_id for h in index.search("descaling", k=20).hits])
    row = next(r for r in kept.values() if r.document == "kettle.md")
    sc = StoredChunk(Chunk(text=row.text, content=row.content, start=row.start, end=row.end,
                           section=row.section, ordinal=0),
                     row.locator, index.embedder.embed([row.text])[0], 10, 0, "h")
    for bad, error in ((np.zeros((2, 8), np.int8), ModelMismatch),
                       (np.zeros((0, 384), np.int8), ModelMismatch),
                       (np.zeros((2, 384), np.float32), ValueError)):
        with pytest.raises(error, match="kettle.md: chunk 0"):
            index.store.write_document(before, "x", [replace(sc, token_vectors=bad)])
    # the document indexed before is still there, whole
    assert index.store.document("kettle.md") == before
    assert index.search("descaling vinegar").hits[0].document == "kettle.md"

