"""The sentence-level dense list: split, store, search (the "sentence" and default
"section" fusions), stale indexes, migration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from citeline.pipeline import BARE_SIGNATURE, TOKENS_SIGNATURE, Index
from citeline.retrieve.dense import chunk_max
from citeline.retrieve.fuse import SECTION_WEIGHT, SENTENCE_RRF_K, rrf, section_lift
from citeline.sentences import (
    CODE_PIECE_CHARS,
    MIN_SENTENCE_CHARS,
    SENTENCE_SIGNATURE,
    sentence_text,
    split_sentences,
)
from citeline.store.sqlite import DB_NAME, MIGRATIONS

FIXTURES = Path(__file__).parent / "fixtures" / "corpus"


def test_split_hand_worked():
    text = "Intro line here, long enough.  Second one is also here, see! Ok.\n\nNew para? Yes it is."
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == [
        "Intro line here, long enough.",
        "Second one is also here, see! Ok.",  # "Ok." (< 25 chars) joins the one before it
        "New para? Yes it is.",  # "New para?" has no sentence before it in its paragraph
    ]
    # a range: only the sentences of text[start:end], as document offsets
    start = text.index("Second")
    assert [text[s:e] for s, e in split_sentences(text, start, len(text))] == [
        "Second one is also here, see! Ok.", "New para? Yes it is."
    ]
    assert split_sentences("   \n\n  ") == []
    assert sentence_text("Guide > Setup", "Run it.") == "[Guide > Setup]\nRun it."
    assert sentence_text("", "Run it.") == "Run it."


TEXT_DOCS = sorted(p for p in FIXTURES.rglob("*.md") if p.name not in ("image.md", "empty.md"))


@pytest.mark.parametrize("path", TEXT_DOCS, ids=lambda p: p.name)
def test_split_offsets_are_exact_slices(path: Path):
    text = path.read_text(encoding="utf-8")
    for start, end in [(0, len(text)), (len(text) // 3, 2 * len(text) // 3)]:
        spans = split_sentences(text, start, end)
        prev = start
        for s, e in spans:
            piece = text[s:e]
            assert start <= s < e <= end and s >= prev  # in range, ordered, no overlap
            assert piece == piece.strip() and piece
            prev = e
        # nothing but whitespace is left out
        covered = set().union(*(range(s, e) for s, e in spans)) if spans else set()
        assert all(text[i].isspace() for i in range(start, end) if i not in covered)


def test_short_pieces_merge_only_within_a_paragraph():
    text = "A sentence that is long enough to stand.\n\nTiny.\n\nAnother long sentence, alone here."
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans][1] == "Tiny."  # first of its paragraph: kept
    assert MIN_SENTENCE_CHARS == 25


def test_code_blocks_are_packed_by_whole_lines_never_cut_at_dots():
    code = "\n".join(f"    let v{i} = foo.bar({i}).unwrap(); // step {i}." for i in range(12))
    text = f"Run this. It prints the values of every step in order.\n```rust\n{code}\n```\nDone."
    spans = split_sentences(text)
    pieces = [text[s:e] for s, e in spans]
    assert pieces[:2] == ["Run this.", "It prints the values of every step in order."]
    code_pieces = pieces[2:]
    assert code_pieces[0].startswith("```rust\n    let v0")
    assert code_pieces[-1].endswith("step 11.\n```\nDone.")  # "Done." (short) joins the code
    for p in code_pieces:  # whole lines only, within the packing limit (+ the merged tail)
        assert all(ln.lstrip().startswith(("```", "let", "Done")) for ln in p.split("\n"))
        assert len(p) <= CODE_PIECE_CHARS + len("\nDone.")
    assert "".join(code_pieces).count("foo.bar(") == 12 and len(code_pieces) > 2
    # a range starting inside a fence knows it is in code
    mid = text.index("    let v5")
    inner = [text[s:e] for s, e in split_sentences(text, mid, len(text))]
    assert inner[0].startswith("let v5 = foo.bar(5)")


def test_chunk_max_hand_worked():
    sims = np.array([0.1, 0.5, 0.3, 0.2, -0.4], dtype=np.float32)
    np.testing.assert_allclose(chunk_max(sims, np.array([0, 2, 4])), [0.5, 0.3, -0.4])
    assert chunk_max(np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64)).shape == (0,)


def _sentences(idx: Index) -> list[tuple]:
    con = sqlite3.connect(Path(idx.location) / DB_NAME)
    try:
        return con.execute(
            "SELECT s.chunk_id, s.start, s.end, s.vector, c.start, c.end, c.section, d.path "
            "FROM sentences s JOIN chunks c ON c.id = s.chunk_id "
            "JOIN documents d ON d.id = c.doc_id ORDER BY s.id"
        ).fetchall()
    finally:
        con.close()


def test_sentence_vectors_written_and_removed_with_their_document(
    index: Index, clean_corpus: Path, embedder
):
    report = index.index(clean_corpus, sentences=True)
    rows = _sentences(index)
    assert report.sentences_written == len(rows) > report.chunks_written
    assert report.sentences_embedded > 0
    texts = {p: index.document_text(p) for p in {r[7] for r in rows}}
    for _cid, s, e, _blob, cs, ce, _sec, path in rows:
        assert cs <= s < e <= ce  # inside its chunk
        piece = texts[path][s:e]
        assert piece == piece.strip()
    # the stored vector is the model's vector of header + sentence
    cid, s, e, blob, _, _, sec, path = rows[3]
    want = embedder.embed([sentence_text(sec, texts[path][s:e])])[0]
    np.testing.assert_allclose(np.frombuffer(blob, dtype=np.float32), want, atol=1e-5)
    # removed with the document
    doc = rows[0][7]
    n_doc = sum(1 for r in rows if r[7] == doc)
    assert index.remove(doc)
    assert len(_sentences(index)) == len(rows) - n_doc
    # re-indexing embeds nothing: sentences come from the store's cache
    again = index.reindex([r.path for r in index.store.documents()])
    assert again.embedded == 0 and again.sentences_embedded == 0
    assert again.sentences_written == len(rows) - n_doc


def test_sentence_fusion_ranks_three_lists_and_gates_on_chunk_cosine(
    index: Index, clean_corpus: Path
):
    index.index(clean_corpus, sentences=True)
    q = "how often should the chain be oiled"
    res = index.search(q, k=10, fusion="sentence")
    assert res.fusion == "sentence" and "sentences" in res.timings and res.hits
    qv = index.embedder.embed([q])[0]
    key = index.embedder.identity.key
    from citeline.retrieve.bm25 import tokenize

    dense = index.store.dense(qv, 200, key)
    bm25 = index.store.bm25(tokenize(q), 200)
    sent = index.store.sentence_max(qv, 200, key)
    want = rrf([[i for i, _ in dense], [i for i, _ in bm25], [i for i, _ in sent]],
               k=SENTENCE_RRF_K)[:10]
    assert [(h.chunk_id, round(h.score, 9)) for h in res.hits] == [
        (i, round(s, 9)) for i, s in want
    ]
    # the gate's distance is the chunk's own cosine distance, never the sentence's
    sims = index.store.similarities(qv, [h.chunk_id for h in res.hits], key)
    for h in res.hits:
        assert h.distance == pytest.approx(1.0 - sims[h.chunk_id], abs=1e-6)
    # sentence_max is the max over the chunk's own sentence vectors
    rows = _sentences(index)
    best: dict[int, float] = {}
    for cid, *_rest in rows:
        v = np.frombuffer(_rest[2], dtype=np.float32)
        best[cid] = max(best.get(cid, -2.0), float(v @ qv))
    for cid, s in sent[:20]:
        assert s == pytest.approx(best[cid], abs=1e-5)
    assert [c for c, _ in sent] == sorted(best, key=lambda c: (-best[c], c))[: len(sent)]


def test_section_fusion_lifts_by_the_stores_sections(index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    q = "how often should the chain be oiled"
    res = index.search(q, k=10, fusion="section")
    assert res.fusion == "section" and res.hits
    qv = index.embedder.embed([q])[0]
    key = index.embedder.identity.key
    from citeline.retrieve.bm25 import tokenize

    # the dense list ranks the chunks' content embedded without the header
    dense = index.store.dense(qv, 200, key, bare=True)
    assert len(dense) == len(index.store.dense(qv, 200, key))
    bm25 = index.store.bm25(tokenize(q), 200)
    sent = index.store.sentence_max(qv, 200, key)
    # the section keys come from the chunks' own document and heading path
    rows = index.store.chunks([i for i, _ in dense])
    groups = index.store.sections([i for i, _ in dense] + [i for i, _ in sent])
    paths = {r.document: doc for r in rows.values() for doc, _ in [groups[r.id]]}
    assert len(set(paths.values())) == len(paths)  # one document id per document
    assert all(groups[i][1] == rows[i].section for i in rows)
    want = rrf([[i for i, _ in section_lift(dense, groups, SECTION_WEIGHT)],
                [i for i, _ in bm25],
                [i for i, _ in section_lift(sent, groups, SECTION_WEIGHT)]], k=SENTENCE_RRF_K)[:10]
    assert [(h.chunk_id, round(h.score, 9)) for h in res.hits] == [
        (i, round(s, 9)) for i, s in want
    ]
    # these queries' order differs with the embedded text's vectors as the dense
    # list, so the test tells the two apart
    for other in ("limescale", "descaling vinegar"):
        ov = index.embedder.embed([other])[0]
        sent_o = index.store.sentence_max(ov, 200, key)
        by = {}
        for bare in (True, False):
            dense_o = index.store.dense(ov, 200, key, bare=bare)
            g = index.store.sections([i for i, _ in dense_o] + [i for i, _ in sent_o])
            by[bare] = [i for i, _ in rrf([[i for i, _ in section_lift(dense_o, g, SECTION_WEIGHT)],
                                           [i for i, _ in index.store.bm25(tokenize(other), 200)],
                                           [i for i, _ in section_lift(sent_o, g, SECTION_WEIGHT)]],
                                          k=SENTENCE_RRF_K)[:10]]
        assert [h.chunk_id for h in index.search(other, k=10, fusion="section").hits] == \
            by[True] != by[False]
    # on this tiny corpus the lift changes the order of these queries' tails, so the
    # test tells the two fusions apart
    for other in ("limescale", "brake pads worn"):
        lifted = [h.chunk_id for h in index.search(other, k=10, fusion="section").hits]
        plain = [h.chunk_id for h in index.search(other, k=10, fusion="sentence").hits]
        assert lifted != plain and sorted(lifted) == sorted(plain)
    # the gate's distance is still the chunk's own cosine distance
    sims = index.store.similarities(qv, [h.chunk_id for h in res.hits], key)
    for h in res.hits:
        assert h.distance == pytest.approx(1.0 - sims[h.chunk_id], abs=1e-6)


def _downgrade_to_schema_1(folder: Path) -> None:
    """Make a current index look exactly like one written before sentence vectors:
    schema version 1 (no sentences table, no header-less vectors) and the old
    pipeline version."""
    con = sqlite3.connect(folder / DB_NAME)
    with con:
        con.execute("DROP TABLE sentences")
        con.execute("ALTER TABLE chunks DROP COLUMN bare_vector")
        con.execute("ALTER TABLE chunks DROP COLUMN token_vectors")
        con.execute("ALTER TABLE documents DROP COLUMN regions")
        con.execute("DROP TABLE chunk_log")
        con.execute("DROP TABLE skipped_content")
        con.execute("DELETE FROM settings WHERE key IN ('log_from', 'index_id')")
        con.execute(
            "UPDATE documents SET pipeline_version = replace(pipeline_version, ?, '')",
            (f"|{SENTENCE_SIGNATURE}|{BARE_SIGNATURE}|{TOKENS_SIGNATURE}",),
        )
    con.execute("PRAGMA user_version = 1")
    con.close()


def test_header_less_vectors_are_the_content_embedded_alone(tmp_path: Path, clean_corpus: Path,
                                                             embedder):
    idx = Index(tmp_path / "e", embedder=embedder)
    report = idx.index(clean_corpus)
    con = sqlite3.connect(tmp_path / "e" / DB_NAME)
    rows = con.execute("SELECT text, content, vector, bare_vector FROM chunks").fetchall()
    want = embedder.embed([content for _, content, _, _ in rows])
    for (text, content, vec, bare), w in zip(rows, want, strict=True):
        bare_v = np.frombuffer(bare, dtype=np.float32)
        np.testing.assert_allclose(bare_v, w, atol=1e-5)
        assert text != content and not np.allclose(bare_v, np.frombuffer(vec, dtype=np.float32))
    assert report.bare_embedded == len({content for _, content, _, _ in rows})
    assert report.to_json()["bare_embedded"] == report.bare_embedded
    con.close()
    idx.close()
    # strategy C has no header: its own vector is the header-less one, never embedded twice
    idx = Index(tmp_path / "c", embedder=embedder)
    report = idx.index(clean_corpus, strategy="C")
    con = sqlite3.connect(tmp_path / "c" / DB_NAME)
    pairs = con.execute("SELECT vector, bare_vector FROM chunks").fetchall()
    assert pairs and all(v == b for v, b in pairs) and report.bare_embedded == 0
    con.close()
    idx.close()


def test_old_index_migrates_searches_and_reindex_stale_adds_sentences(
    tmp_path: Path, clean_corpus: Path, embedder
):
    folder = tmp_path / "old"
    idx = Index(folder, embedder=embedder)
    idx.index(clean_corpus, sentences=True)
    rrf_before = [h.chunk_id for h in idx.search("descaling vinegar", fusion="rrf").hits]
    idx.close()
    _downgrade_to_schema_1(folder)

    idx = Index(folder, embedder=embedder)  # migrations 2 to 7 run on open
    con = sqlite3.connect(folder / DB_NAME)
    assert con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 8
    assert con.execute("SELECT COUNT(*) FROM chunk_log").fetchone()[0] == 0
    log_from, generation = (con.execute("SELECT value FROM settings WHERE key = ?", (k,)
                                        ).fetchone()[0] for k in ("log_from", "generation"))
    assert log_from == generation  # changes before the log existed are not in it
    assert con.execute("SELECT COUNT(regions) FROM documents").fetchone()[0] == 0
    assert con.execute("SELECT COUNT(*) FROM sentences").fetchone()[0] == 0
    assert con.execute("SELECT COUNT(bare_vector) FROM chunks").fetchone()[0] == 0
    assert con.execute("SELECT COUNT(token_vectors) FROM chunks").fetchone()[0] == 0
    states = {s.state for s in idx.status()}
    assert states == {"stale"}
    assert all("pipeline" in s.to_json()["reason"] for s in idx.status())
    # no sentence vectors: the sentence fusion falls back to the two-list port, no crash
    res = idx.search("descaling vinegar", fusion="sentence")
    assert res.fusion == "rrf" and [h.chunk_id for h in res.hits] == rrf_before
    assert idx.ask("How long is the kettle warranty?").citations

    report = idx.reindex_stale()
    assert report.embedded == 0  # chunk vectors come from the cache
    assert report.sentences_written > 0
    assert con.execute("SELECT COUNT(*) FROM sentences").fetchone()[0] == report.sentences_written
    # every chunk gets its header-less vector back, from the cache like the rest
    n_chunks = con.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    assert con.execute("SELECT COUNT(bare_vector) FROM chunks").fetchone()[0] == n_chunks
    assert report.bare_embedded == 0
    # and its token vectors (the late fusion's list), which no cache held
    assert con.execute("SELECT COUNT(token_vectors) FROM chunks").fetchone()[0] == n_chunks
    n_texts = con.execute("SELECT COUNT(DISTINCT text_hash) FROM chunks").fetchone()[0]
    assert report.tokens_embedded == n_texts
    assert {s.state for s in idx.status()} == {"indexed"}
    assert idx.search("descaling vinegar", fusion="sentence").fusion == "sentence"
    assert idx.search("descaling vinegar").fusion == "late"
    con.close()
    idx.close()


def test_sentence_vectors_are_on_for_a_new_index_and_an_option(
    index: Index, clean_corpus: Path, run
):
    # a new index stores them: the default fusion's third list
    report = index.index(clean_corpus)
    assert index.sentence_vectors and report.sentences_written == len(_sentences(index)) > 0
    assert SENTENCE_SIGNATURE in index.pipeline_version()
    assert index.search("descaling vinegar").fusion == "late"
    # --no-sentences drops them at the next index run; hybrid search then runs the port
    code, _, _ = run("index", str(clean_corpus), "--index", index.location, "--no-sentences")
    assert code == 0 and not index.sentence_vectors and _sentences(index) == []
    assert SENTENCE_SIGNATURE not in index.pipeline_version()
    assert {s.state for s in index.status()} == {"indexed"}
    assert index.search("descaling vinegar").fusion == "rrf"
    code, out, _ = run("status", "--index", index.location)
    assert "sentence vectors: off (hybrid search fuses with rrf)" in out
    # the CLI says what ran instead of the fusion asked for (or the default)
    for extra in ((), ("--fusion", "sentence")):
        code, _, err = run("search", "descaling vinegar", "--index", index.location, *extra)
        assert code == 0 and "holds no sentence vectors" in err and "fused with rrf" in err
        assert "built with --no-sentences" in err and "before they were the default" not in err
    code, _, err = run("search", "descaling vinegar", "--index", index.location, "--fusion", "rrf")
    assert code == 0 and "sentence vectors" not in err
    # turning them on makes every document stale; reindex --stale adds them
    code, _, _ = run("index", str(clean_corpus), "--index", index.location, "--sentences")
    assert code == 0 and index.sentence_vectors
    assert len(_sentences(index)) > report.chunks_written
    assert {s.state for s in index.status()} == {"indexed"}
    assert index.search("descaling vinegar", fusion="sentence").fusion == "sentence"
    # and off again: the next index run drops them
    index.index(clean_corpus, sentences=False)
    assert _sentences(index) == [] and {s.state for s in index.status()} == {"indexed"}


def test_index_written_before_the_setting_existed_keeps_no_sentences(
    tmp_path: Path, clean_corpus: Path, embedder
):
    """An index holding chunks but no `sentences` setting was built before sentence
    vectors were the default: indexing more into it must not turn them on (that would
    make every existing document stale behind the user's back)."""
    folder = tmp_path / "older"
    idx = Index(folder, embedder=embedder)
    idx.index(clean_corpus, sentences=False)
    idx.store.conn.execute("DELETE FROM settings WHERE key = 'sentences'")
    idx.store.conn.commit()
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "note.md").write_text("# Note\n\nThe hedge is trimmed in May.\n", encoding="utf-8")
    idx.index(extra)
    assert not idx.sentence_vectors and _sentences(idx) == []
    idx.close()


def test_fences_found_once_per_document_split_every_chunk_alike():
    """The pipeline finds a document's code fences once and hands them to each chunk's
    split (found per chunk from the document's start, a 1 MB file took 38 s)."""
    from citeline.sentences import fence_starts

    part = ("Prose before the code. It has two sentences.\n\n```rust\nfn main() {\n"
            "    println!(\"hi\");\n}\n```\n\nAfter the fence. ~~~ is not one here.\n\n"
            "~~~\nplain code\n~~~\n\n")
    text = part * 40
    fences = fence_starts(text)
    assert len(fences) == 4 * 40
    for start in range(0, len(text), 97):  # ranges that begin inside and outside code
        end = min(len(text), start + 300)
        assert split_sentences(text, start, end, fences) == split_sentences(text, start, end)

