"""Both backends answer alike; copy moves an index without re-embedding; the CLI takes --store."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import psycopg
import pytest

from citeline.errors import StoreUnavailable
from citeline.extract import fingerprint
from citeline.extract.image import ImageExtractor
from citeline.pipeline import Index
from citeline.store.postgres import MIGRATIONS, PostgresStore
from citeline.store.sqlite import DB_NAME

SAMPLES = Path(__file__).parents[2] / "samples" / "corpus"
QUERIES = [
    "how often should I oil the chain",
    "How long is the kettle warranty?",
    "descaling vinegar",
    "the the the",
    "what is the capital of mongolia",
    "tyre pressure",
    "receipt proof purchase warranty heating element",
]


def _hits(idx: Index, query: str, mode: str, fusion: str | None = None) -> list[tuple]:
    return [
        (h.rank, h.document, h.start, h.end, h.distance, h.score)
        for h in idx.search(query, k=20, mode=mode, fusion=fusion).hits  # type: ignore[arg-type]
    ]


def _same(a: list[tuple], b: list[tuple], what: str) -> None:
    assert [h[:4] for h in a] == [h[:4] for h in b], what
    np.testing.assert_allclose([h[4] for h in a], [h[4] for h in b], atol=1e-5, err_msg=what)
    np.testing.assert_allclose([h[5] for h in a], [h[5] for h in b], atol=1e-5, err_msg=what)


@pytest.fixture
def parity_corpus(clean_corpus: Path) -> Path:
    shutil.copytree(SAMPLES, clean_corpus / "samples")
    return clean_corpus


def test_both_backends_return_the_same_hits(pg_url, memo_embedder, parity_corpus, tmp_path):
    embedder = memo_embedder
    lite = Index(tmp_path / "ix", embedder=embedder)
    pg_exact = Index(pg_url + "?exact=1", embedder=embedder)
    r1 = lite.index(parity_corpus, sentences=True)
    r2 = pg_exact.index(parity_corpus, sentences=True)
    assert r1.to_json() | {"seconds": 0} == r2.to_json() | {"seconds": 0}
    assert r1.chunks_written > 30 and r2.sentences_written == r1.sentences_written > 60
    pg_hnsw = Index(pg_url, embedder=embedder)
    assert pg_hnsw.store.dense_mode == "hnsw" and pg_exact.store.dense_mode == "exact"
    for q in QUERIES:
        for mode in ("dense", "bm25", "hybrid"):
            want = _hits(lite, q, mode)
            _same(_hits(pg_exact, q, mode), want, f"exact {mode} {q!r}")
            _same(_hits(pg_hnsw, q, mode), want, f"hnsw {mode} {q!r}")
        for fusion in ("rrf", "sentence", "section", "late"):
            want = _hits(lite, q, "hybrid", fusion)
            _same(_hits(pg_exact, q, "hybrid", fusion), want, f"exact {fusion} {q!r}")
        qv = embedder.embed([q])[0]
        key = embedder.identity.key
        # the section keys group the same chunks on both stores (ids may differ)
        groups = []
        for ix in (lite, pg_exact):
            ids = [i for i, _ in ix.store.dense(qv, 50, key)]
            rows, keys = ix.store.chunks(ids), ix.store.sections(ids)
            assert set(keys) == set(ids) and all(keys[i][1] == rows[i].section for i in ids)
            by: dict[tuple, set] = {}
            for i in ids:
                by.setdefault(keys[i], set()).add((rows[i].document, rows[i].start))
            groups.append({frozenset(v) for v in by.values()})
        assert groups[0] == groups[1]
        a = lite.store.sentence_max(qv, 50, key)
        for pg in (pg_exact, pg_hnsw):
            b = pg.store.sentence_max(qv, 50, key)
            assert [i for i, _ in a] == [i for i, _ in b] and len(a) == 50
            np.testing.assert_allclose([s for _, s in a], [s for _, s in b], atol=1e-5)
    a, b = lite.ask(QUERIES[1]), pg_hnsw.ask(QUERIES[1])
    assert a.answer == b.answer and [c.locator for c in a.citations] == [c.locator for c in b.citations]
    assert [s.to_json() | {"indexed_at": ""} for s in lite.status()] == [
        s.to_json() | {"indexed_at": ""} for s in pg_hnsw.status()
    ]
    # re-indexing unchanged files is a no-op on PostgreSQL too
    again = pg_exact.index(parity_corpus)
    assert again.indexed == [] and again.embedded == 0
    # sentence vectors go with their document, and come back from the cache
    with psycopg.connect(pg_url, autocommit=True) as c:
        count = "SELECT COUNT(*) FROM sentences"
        n_all = c.execute(count).fetchone()[0]
        assert n_all == r1.sentences_written
        doc = "kettle.md"
        n_doc = c.execute(
            "SELECT COUNT(*) FROM sentences s JOIN chunks ch ON ch.id = s.chunk_id "
            "JOIN documents d ON d.id = ch.doc_id WHERE d.path = %s", (doc,)
        ).fetchone()[0]
        assert n_doc > 0 and pg_exact.remove(doc)
        assert c.execute(count).fetchone()[0] == n_all - n_doc
        redo = pg_exact.index(parity_corpus)
        assert redo.indexed == [doc] and redo.sentences_embedded == 0
        assert c.execute(count).fetchone()[0] == n_all
    for idx in (lite, pg_exact, pg_hnsw):
        idx.close()


def _filtered(idx: Index, query: str, mode: str, documents: list[str],
              fusion: str | None = None) -> list[tuple]:
    return [
        (h.rank, h.document, h.start, h.end, h.distance, h.score)
        for h in idx.search(query, k=20, mode=mode, fusion=fusion,  # type: ignore[arg-type]
                            documents=documents).hits
    ]


def test_a_document_filter_gives_the_same_hits_on_both_backends(pg_url, memo_embedder,
                                                                  parity_corpus, tmp_path,
                                                                  monkeypatch):
    """Filtered search on PostgreSQL, exact and HNSW, returns SQLite's hits. Through
    HNSW a filter that is a small share of the chunks is ranked exactly (the guide: 4
    of 83 chunks; under 40% for the pipeline's 400 dense candidates), a wide one by
    the widened beam (samples/0[1-3]*: 41 of 83; samples/: 73)."""
    embedder = memo_embedder
    lite = Index(tmp_path / "ix", embedder=embedder)
    pg_exact = Index(pg_url + "?exact=1", embedder=embedder)
    lite.index(parity_corpus, sentences=True)
    pg_exact.index(parity_corpus, sentences=True)
    pg_hnsw = Index(pg_url, embedder=embedder)
    modes: list[str] = []
    nearest = PostgresStore._nearest

    def spy(c, table, q, n, mode, *args):  # type: ignore[no-untyped-def]
        modes.append(mode)
        return nearest(c, table, q, n, mode, *args)

    monkeypatch.setattr(PostgresStore, "_nearest", staticmethod(spy))
    filters = (["guides/**"], ["kettle.md", "notes.txt"], ["samples/0[1-3]*"], ["samples/"])
    for q in QUERIES[:5]:
        for documents in filters:
            allowed = set(lite.documents_matching(documents))
            assert allowed == set(pg_hnsw.documents_matching(documents))
            for mode in ("dense", "bm25", "hybrid"):
                want = _filtered(lite, q, mode, documents)
                assert {h[1] for h in want} <= allowed
                what = f"{mode} {q!r} in {documents}"
                _same(_filtered(pg_exact, q, mode, documents), want, f"exact {what}")
                del modes[:]
                _same(_filtered(pg_hnsw, q, mode, documents), want, f"hnsw {what}")
                if mode != "bm25":  # the guide's share is too small for a beam; samples/ is not
                    wide = documents[0].startswith("samples/")
                    assert set(modes) == ({"hnsw"} if wide else {"exact"}), what
            for fusion in ("rrf", "sentence", "section", "late"):
                want = _filtered(lite, q, "hybrid", documents, fusion)
                _same(_filtered(pg_exact, q, "hybrid", documents, fusion), want,
                      f"exact {fusion} {q!r} in {documents}")
    # the stores' lists, filtered inside: only allowed chunks, as deep as they allow
    key = embedder.identity.key
    qv = embedder.embed([QUERIES[0]])[0]
    for documents in filters:
        paths = lite.documents_matching(documents)
        ids = pg_hnsw.store.chunk_ids_of(paths)
        assert len(ids) == len(lite.store.chunk_ids_of(paths))
        for store in (pg_exact.store, pg_hnsw.store):
            for bare in (False, True):
                got = store.dense(qv, 20, key, bare=bare, only=ids)
                assert {i for i, _ in got} <= ids and len(got) == min(20, len(ids))
                whole = [x for x in store.dense(qv, 200, key, bare=bare) if x[0] in ids]
                assert [i for i, _ in got] == [i for i, _ in whole[:20]]
            got = store.sentence_max(qv, 20, key, only=ids)
            assert {i for i, _ in got} <= ids and len(got) == min(20, len(ids))
            got = store.bm25(["chain", "the", "warranty"], 20, only=ids)
            assert {i for i, _ in got} <= ids
        assert pg_hnsw.store.dense(qv, 20, key, only=set()) == []
    a = lite.ask(QUERIES[1], documents=["kettle.md"])
    b = pg_hnsw.ask(QUERIES[1], documents=["kettle.md"])
    assert not a.refused and a.answer == b.answer and a.reason == b.reason
    for idx in (lite, pg_exact, pg_hnsw):
        idx.close()


def test_a_path_longer_than_a_btree_entry_is_indexed_and_queued(run, pg_url, tmp_path):
    """PostgreSQL's btree holds ~2,700 bytes per entry; a file system path may be longer.
    Such a document failed its whole index run (and enqueue queued nothing)."""
    top = tmp_path / "names"
    deep = top
    for i in range(14):  # names that do not compress (PostgreSQL compresses index entries)
        deep = deep / "".join(hashlib.sha256(f"{i}-{j}".encode()).hexdigest() for j in range(3))
    deep.mkdir(parents=True)
    (deep / "deep.md").write_text("# Deep\n\nThe deepest note mentions a quokka.\n")
    (top / "after.md").write_text("# After\n\nA note about wombats.\n")
    code, out, err = run("index", str(top), "--store", pg_url, "-q", "--json")
    assert code == 0, err
    rel = str((deep / "deep.md").relative_to(top))
    assert len(rel.encode()) > 2700 and json.loads(out)["indexed"] == 2
    _, out, _ = run("search", "quokka", "--store", pg_url, "--json", "-k", "1")
    assert json.loads(out)["hits"][0]["document"] == rel
    assert run("remove", rel, "--store", pg_url)[0] == 0
    store = PostgresStore(pg_url)
    store.mark(rel, str(top), "failed", "a reason")  # a failure of that name is kept too
    assert store.document(rel).reason == "a reason"
    assert store.enqueue([(rel, str(top), str(deep / "deep.md"))]) == 1
    assert store.enqueue([(rel, str(top), str(deep / "deep.md"))]) == 0  # once
    store.close()


def test_copy_into_a_store_whose_documents_were_removed_keeps_its_cache(run, pg_url,
                                                                         clean_corpus, tmp_path):
    ix = str(tmp_path / "ix")
    assert run("index", str(clean_corpus), "--index", ix, "-q")[0] == 0
    assert run("index", str(clean_corpus / "kettle.md"), "--store", pg_url, "-q")[0] == 0
    assert run("remove", "kettle.md", "--store", pg_url)[0] == 0  # its vectors stay cached
    code, out, err = run("copy", "--from", ix, "--to", pg_url, "--json")
    assert code == 0 and "Traceback" not in err, err
    assert json.loads(out)["documents"] == 3
    with psycopg.connect(pg_url) as c:
        n = c.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    lite = sqlite3.connect(Path(ix) / DB_NAME)
    assert n == lite.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    _, a, _ = run("search", "kettle warranty", "--index", ix, "--json")
    _, b, _ = run("search", "kettle warranty", "--store", pg_url, "--json")
    assert [h["start"] for h in json.loads(a)["hits"]] == [h["start"] for h in json.loads(b)["hits"]]


def test_compact_on_postgres_drops_what_sqlite_drops(run, pg_url, clean_corpus, tmp_path,
                                                    embedder):
    # the same edits on both backends: the same cache rows are unused (PostgreSQL hashes
    # the header-less texts in SQL, SQLite in Python)
    ix = str(tmp_path / "ix")
    for where in (("--index", ix), ("--store", pg_url)):
        assert run("index", str(clean_corpus), *where, "-q")[0] == 0
    kettle = clean_corpus / "kettle.md"
    kettle.write_text(kettle.read_text().replace("vinegar", "citric acid"))
    got = {}
    for where in (("--index", ix), ("--store", pg_url)):
        assert run("index", str(clean_corpus), *where, "-q")[0] == 0
        assert run("remove", "notes.txt", *where)[0] == 0
        code, out, err = run("compact", *where, "--json")
        assert code == 0, err
        got[where[0]] = json.loads(out)
    lite, pg = got["--index"], got["--store"]
    assert pg["cache_dropped"] == lite["cache_dropped"] > 0
    assert pg["cache_kept"] == lite["cache_kept"] > 0
    idx = Index(pg_url, embedder=embedder)
    redo = idx.reindex([d.record.path for d in idx.status()])
    assert len(redo.indexed) == 2 and redo.embedded == redo.sentences_embedded == 0
    assert redo.bare_embedded == 0
    idx.close()


def test_a_copy_that_fails_leaves_the_store_as_it_was(run, pg_url, clean_corpus, tmp_path):
    ix = tmp_path / "ix"
    assert run("index", str(clean_corpus), "--index", str(ix), "-q")[0] == 0
    lite = sqlite3.connect(ix / DB_NAME)
    last, content = lite.execute("SELECT id, content FROM chunks ORDER BY id DESC").fetchone()
    with lite:  # a NUL no PostgreSQL text can hold, in the last chunk the copy sends
        lite.execute("UPDATE chunks SET content = ? WHERE id = ?", (content + "\0", last))
    code, _, err = run("copy", "--from", str(ix), "--to", pg_url)
    assert code != 0 and "nothing was written" in err and "Traceback" not in err, err
    with psycopg.connect(pg_url) as c:
        assert c.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 0
        assert c.execute("SELECT COUNT(*) FROM vector_spaces").fetchone()[0] == 0
        assert c.execute("SELECT COUNT(*) FROM pg_tables WHERE tablename LIKE 'vectors%%'"
                         ).fetchone()[0] == 0
    with lite:
        lite.execute("UPDATE chunks SET content = ? WHERE id = ?", (content, last))
    lite.close()
    code, out, err = run("copy", "--from", str(ix), "--to", pg_url, "--json")
    assert code == 0 and json.loads(out)["documents"] == 3, err


def test_copy_moves_an_index_without_reembedding(run, pg_url, corpus, tmp_path):
    ix = str(tmp_path / "ix")
    run("index", str(corpus), "--index", ix, "-q", "--sentences")
    code, out, err = run("copy", "--from", ix, "--to", pg_url, "--json")
    assert code == 0, err
    rep = json.loads(out)
    lite = sqlite3.connect(Path(ix) / DB_NAME)
    assert rep["documents"] == lite.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 6
    assert rep["chunks"] == rep["vectors"] == lite.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    n_sent = lite.execute("SELECT COUNT(*) FROM sentences").fetchone()[0]
    assert rep["sentences"] == n_sent > rep["chunks"]
    store = PostgresStore(pg_url)
    (table, dim), = store.vector_spaces().values()
    with psycopg.connect(pg_url, autocommit=True) as c:
        from pgvector.psycopg import register_vector

        register_vector(c)
        got = {
            cid: vec.to_numpy().tobytes()
            for cid, vec in c.execute(f"SELECT chunk_id, embedding FROM {table}", binary=True)
        }
        postings = set(c.execute("SELECT term, chunk_id, tf FROM postings").fetchall())
        settings = dict(c.execute("SELECT key, value FROM settings").fetchall())
        regions = dict(c.execute("SELECT path, regions FROM documents").fetchall())
        hnsw = c.execute("SELECT indexdef FROM pg_indexes WHERE tablename = %s AND "
                         "indexdef LIKE '%%hnsw%%'", (table,)).fetchone()
        sentence_hnsw = c.execute("SELECT indexdef FROM pg_indexes WHERE tablename = "
                                  "'sentences' AND indexdef LIKE '%%hnsw%%'").fetchall()
    want = dict(lite.execute("SELECT id, vector FROM chunks").fetchall())
    assert got == want  # byte-identical float32, same chunk ids
    assert postings == set(lite.execute("SELECT term, chunk_id, tf FROM postings").fetchall())
    assert regions == dict(lite.execute("SELECT path, regions FROM documents").fetchall())
    # the generation and the chunk log's start are the SQLite file's own counters
    lite_settings = dict(lite.execute(
        "SELECT key, value FROM settings WHERE key NOT IN ('generation', 'log_from', 'index_id')"))
    assert settings == lite_settings and dim == 384 and hnsw is not None
    assert len(sentence_hnsw) == 1  # built after the bulk copy, like the chunks' index
    # the copy answers exactly like the original, and knows the failed documents too
    for mode, fusion in [("dense", ""), ("bm25", ""), ("hybrid", "rrf"),
                         ("hybrid", "sentence"), ("hybrid", "section")]:
        fused = ("--fusion", fusion) if fusion else ()  # refused with a one-list mode
        _, a, _ = run("search", "descaling vinegar", "--index", ix, "--json", "--mode", mode,
                      *fused)
        for url in (pg_url + "?exact=1", pg_url):  # exact scans, then the HNSW indexes
            _, b, _ = run("search", "descaling vinegar", "--store", url, "--json",
                          "--mode", mode, *fused)
            assert json.loads(b)["fusion"] == fusion
            ha, hb = json.loads(a)["hits"], json.loads(b)["hits"]
            assert [(h["document"], h["start"], h["end"]) for h in ha] == [
                (h["document"], h["start"], h["end"]) for h in hb
            ]
    code, out, _ = run("status", "--store", pg_url, "--json")
    docs = {d["document"]: d["state"] for d in json.loads(out)["documents"]}
    assert docs["cyrillic.txt"] == "failed" and docs["kettle.md"] == "indexed"
    # chunk ids continue after the copied ones
    (corpus / "new.md").write_text("# New\n\nA brand new note about teapots.\n")
    code, out, _ = run("index", str(corpus), "--store", pg_url, "-q", "--json")
    assert json.loads(out)["indexed"] == 1 and json.loads(out)["embedded"] == 1
    # copying into a store that already holds documents is refused
    code, _, err = run("copy", "--from", ix, "--to", pg_url)
    assert code == 2 and "already holds documents" in err
    store.close()


def test_cli_store_flag_env_and_errors(run, pg_url, clean_corpus, monkeypatch, tmp_path):
    code, out, _ = run("migrate", "--store", pg_url)
    assert code == 0 and f"schema version {len(MIGRATIONS)}" in out
    code, out, _ = run("migrate", "--store", pg_url)  # idempotent
    assert code == 0 and f"schema version {len(MIGRATIONS)}" in out
    code, out, _ = run("index", str(clean_corpus), "--store", pg_url, "-q", "--json")
    assert code == 0 and json.loads(out)["indexed"] == 3
    # an HNSW index dropped (to re-tune it) is rebuilt by migrate, with the space's m/ef
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("UPDATE vector_spaces SET hnsw_m = 8")
        c.execute("DROP INDEX vectors_1_hnsw")
    assert run("migrate", "--store", pg_url)[0] == 0
    with psycopg.connect(pg_url) as c:
        (indexdef,) = c.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'vectors_1_hnsw'"
        ).fetchone()
    assert "hnsw" in indexdef and "m='8'" in indexdef and "ef_construction='128'" in indexdef
    monkeypatch.setenv("CITELINE_STORE", pg_url)
    code, out, _ = run("search", "oil the chain", "-k", "2", "--json")
    assert code == 0 and json.loads(out)["hits"][0]["document"] == "guides/bicycle.md"
    code, out, _ = run("status")
    assert code == 0 and out.startswith("index postgresql://") and "3 documents" in out
    with pytest.raises(SystemExit) as exc:
        run("search", "x", "--index", "/tmp/x", "--store", pg_url)
    assert exc.value.code == 2
    monkeypatch.delenv("CITELINE_STORE")
    code, _, err = run("search", "x")
    assert code == 2 and "--index DIR or --store URL" in err
    code, _, err = run("search", "x", "--store", "postgresql://nobody@127.0.0.1:1/none")
    assert code == 2 and "cannot" in err
    code, _, err = run("search", "x", "--store", "mysql://h/db")
    assert code == 2 and "no backend for 'mysql://'" in err
    code, _, err = run("search", "x", "--store", pg_url + "?exact=maybe")
    assert code == 2 and "exact" in err
    code, _, err = run("worker", "--index", str(tmp_path / "nope-ix"), "--max-jobs", "1")
    assert code == 2 and "needs a PostgreSQL store" in err


def test_a_read_only_connection_searches_and_asks(pg_url, memo_embedder, clean_corpus):
    """What a streaming replica allows: no DDL, no writes. The store opens without
    migrating an up-to-date schema, and search / ask / status only read."""
    idx = Index(pg_url, embedder=memo_embedder)
    idx.index(clean_corpus)
    want = idx.search("oil the chain", k=3).to_json()["hits"]
    idx.close()
    ro_url = pg_url + "?options=-c%20default_transaction_read_only%3Don"
    ro = Index(ro_url, embedder=memo_embedder, create=False)
    assert ro.search("oil the chain", k=3).to_json()["hits"] == want
    assert not ro.ask("How do I oil the bicycle chain?").refused
    assert {s.record.path for s in ro.status()} >= {"guides/bicycle.md"}
    with pytest.raises(StoreUnavailable, match="read-only"):
        ro.remove("guides/bicycle.md")
    ro.close()


def test_new_store_defaults_and_adapt_never_writes_the_password(
    pg_url, embedder, clean_corpus, tmp_path
):
    from citeline.adapt import PROVENANCE, AdaptConfig, adapt, training_pairs

    lite = Index(tmp_path / "ix", embedder=embedder)
    lite.index(clean_corpus)
    secret = pg_url.replace("postgres@", "postgres:hunter2@", 1)  # trust auth ignores it
    pg = Index(secret, embedder=embedder)
    pg.index(clean_corpus)
    # a new store of either kind keeps sentence vectors, so hybrid search runs the
    # default fusion on both, with the same hits (PostgreSQL through its HNSW index)
    assert lite.sentence_vectors and pg.sentence_vectors
    for q in ("descaling vinegar", "how often should the kettle be cleaned"):
        a, b = lite.search(q), pg.search(q)
        assert a.fusion == b.fusion == "late"
        assert [(h.document, h.start) for h in a.hits] == [(h.document, h.start) for h in b.hits]
    assert [len(p) for p in training_pairs(pg)] == [len(p) for p in training_pairs(lite)]
    # a query map is stored in the store's settings and applied like on SQLite
    from citeline.adapt import fit_query_map

    a, b = fit_query_map(pg, force=True), fit_query_map(lite, force=True)
    assert a.pairs == b.pairs and a.check == b.check  # the check ranks through either store
    assert np.allclose(pg.query_map(), lite.query_map(), atol=1e-5)
    for q in ("descaling vinegar", "how often should the kettle be cleaned"):
        for mode in ("dense", "hybrid"):
            a, b = lite.search(q, mode=mode), pg.search(q, mode=mode)
            assert [(h.document, h.start) for h in a.hits] == [(h.document, h.start) for h in b.hits]
            np.testing.assert_allclose([h.distance for h in a.hits], [h.distance for h in b.hits],
                                       atol=1e-5)
    out = tmp_path / "adapted"
    report = adapt(pg, out, AdaptConfig(batch_size=8, epochs=0.5))
    text = (out / PROVENANCE).read_text()
    assert "hunter2" not in text and json.loads(text)["index"].startswith("postgresql://postgres:***@")
    assert report.steps >= 1 and report.model != report.base_model
    pg.close()
    lite.close()


def test_a_deck_s_slide_locators_are_the_same_on_both_backends(pg_url, memo_embedder, tmp_path):
    """A .pptx deck's ``#slide=`` locators (kept in SQLite's text and PostgreSQL's jsonb)
    and its region map (for an answer's own slide) come back alike."""
    import doc_builders

    folder = tmp_path / "deck"
    folder.mkdir()
    doc_builders.pptx_deck(folder)
    lite = Index(tmp_path / "ix", embedder=memo_embedder)
    pg = Index(pg_url + "?exact=1", embedder=memo_embedder)
    for ix in (lite, pg):
        assert ix.index(folder).indexed == ["briefing.pptx"]
    question = "Where should the ring be thrown when someone falls overboard?"
    a, b = lite.ask(question), pg.ask(question)
    assert [c.locator for c in a.citations] == [c.locator for c in b.citations]
    assert [s.locator for s in a.spans] == [s.locator for s in b.spans]
    assert any(c.locator.slides == (5, 6) for c in b.citations)
    assert any(s.locator.slides == (6,) and "upwind" in s.text for s in b.spans)
    hits = pg.search("channel for the coastguard", k=3).hits
    assert hits[0].locator.slides == (3,) and hits[0].locator.fragment == "#slide=3"


def test_an_image_s_line_boxes_are_the_same_on_both_backends(pg_url, memo_embedder, tmp_path):
    """A screenshot's ``#xywh=`` locators and its line boxes (the region map an answer's
    sentence is located by) come back alike from SQLite's text and PostgreSQL's jsonb."""

    folder = tmp_path / "shots"
    folder.mkdir()
    shutil.copy(Path(__file__).parent.parent / "fixtures" / "real" / "irrigation-handset.png",
                folder / "handset.png")
    from PIL import Image

    Image.new("RGB", (320, 240), "white").save(folder / "board.jpeg")  # a picture, no text
    lite = Index(tmp_path / "ix", embedder=memo_embedder)
    pg = Index(pg_url + "?exact=1", embedder=memo_embedder)
    for ix in (lite, pg):
        assert ix.index(folder).indexed == ["handset.png"]
    assert pg.store.document_regions("handset.png") == lite.store.document_regions("handset.png")
    # the photograph's skip is kept by its content: the next run does not read it again
    digest = fingerprint(folder / "board.jpeg")
    reason = pg.store.skip_reason(digest, "image", ImageExtractor.version)
    assert reason is not None and reason == lite.store.skip_reason(digest, "image", ImageExtractor.version)
    assert dict(pg.index(folder).skipped)["board.jpeg"] == reason
    # compact keeps the skip the reader of today asks for, and drops one of an older
    # version, on both backends alike
    for ix in (lite, pg):
        assert ix.compact().skips_dropped == 0
        ix.store.remember_skip("0" * 64, "image", "0-old", "no text found in the image")
        assert ix.compact().skips_dropped == 1
        assert ix.store.skip_reason("0" * 64, "image", "0-old") is None
        assert ix.store.skip_reason(digest, "image", ImageExtractor.version) == reason
    question = "how do I stop the water in a burst"
    a, b = lite.ask(question), pg.ask(question)
    assert [c.locator for c in a.citations] == [c.locator for c in b.citations]
    assert [s.locator for s in a.spans] == [s.locator for s in b.spans]
    span = next(s for s in b.spans if "red main valve" in s.text)
    assert span.locator.xywh is not None and span.locator.fragment.startswith("#xywh=")
    assert span.locator.xywh != b.citations[span.citation - 1].locator.xywh  # its own line
    pg.close()
    lite.close()


def test_copy_carries_the_contents_skipped_for_good(run, pg_url, tmp_path):
    """A picture the SQLite index skipped as having no text is not read again after the
    index is copied into PostgreSQL: the skip goes with it."""
    from PIL import Image

    folder = tmp_path / "pics"
    folder.mkdir()
    Image.new("RGB", (320, 240), "white").save(folder / "blank.png")
    (folder / "note.md").write_text("# Note\n\nThe ferry leaves at nine.\n")
    ix = str(tmp_path / "ix")
    code, _, err = run("index", str(folder), "--index", ix, "-q")
    assert code == 0, err
    code, out, err = run("copy", "--from", ix, "--to", pg_url, "--json")
    assert code == 0, err
    assert json.loads(out)["skips"] == 1
    digest = fingerprint(folder / "blank.png")
    reason = PostgresStore(pg_url).skip_reason(digest, "image", ImageExtractor.version)
    assert reason is not None and reason.startswith("no text found in the image")


def test_a_nul_in_a_pdf_title_is_dropped_not_a_stopped_run(pg_url, memo_embedder, tmp_path):
    """A PDF's metadata may hold a NUL (PostgreSQL refuses it in text): the title loses it
    on both backends, and a value PostgreSQL still refuses fails that document alone (it
    stopped the whole run, so no later file was ever indexed)."""
    from dataclasses import replace

    import doc_builders

    folder = tmp_path / "docs"
    folder.mkdir()
    doc_builders.titled_pdf(folder, "a-stars.pdf", "Star\x00Gazer",
                            "The observatory dome opens at dusk when the sky is clear.")
    (folder / "b-other.md").write_text("# Other\n\nAstronomers log comets in a red notebook.\n")
    lite = Index(tmp_path / "ix", embedder=memo_embedder)
    pg = Index(pg_url + "?exact=1", embedder=memo_embedder)
    for ix in (lite, pg):
        report = ix.index(folder)
        assert report.indexed == ["a-stars.pdf", "b-other.md"] and not report.failed
        assert ix.store.document("a-stars.pdf").title == "StarGazer"
    # a value no extractor cleaned: refused by PostgreSQL, named, and the run goes on
    original = pg.store.write_document

    def write(record, text, chunks, regions=()):  # type: ignore[no-untyped-def]
        if record.path == "c-bad.md":
            record = replace(record, title="bad\x00title")
        return original(record, text, chunks, regions)

    (folder / "c-bad.md").write_text("# Bad\n\nA title the store cannot keep.\n")
    (folder / "d-last.md").write_text("# Last\n\nIndexed after the refused one.\n")
    pg.store.write_document = write  # type: ignore[method-assign]
    report = pg.index(folder)
    assert report.indexed == ["d-last.md"], report
    assert report.failed[0][0] == "c-bad.md" and "PostgreSQL refused a value" in report.failed[0][1]
    assert pg.store.document("c-bad.md").state == "failed"
