"""End to end on real SQLite and the real model: index, re-index, fail, search, ask."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from citeline.errors import ConfigError, IndexingCancelled, ModelMismatch
from citeline.pipeline import MODEL_PATH_SETTING, Index, IndexReport
from citeline.retrieve.bm25 import TOKENIZER_VERSION
from citeline.store.sqlite import DB_NAME


def test_index_counts_and_failures(index: Index, corpus: Path):
    report = index.index(corpus)
    failed = dict(report.failed)
    assert set(failed) == {"empty.md", "cyrillic.txt", "image.md"}
    assert "empty" in failed["empty.md"]
    assert "UTF-8" in failed["cyrillic.txt"]
    assert "binary" in failed["image.md"]
    assert [p for p, _ in report.skipped] == ["data.bin"]
    assert sorted(report.indexed) == ["guides/bicycle.md", "kettle.md", "notes.txt"]
    assert report.chunks_written == index.store.stats().chunks > 0
    assert report.over_window == 0
    assert not report.ok
    # every good document is still searchable
    hits = index.search("how often should I oil the chain", k=3).hits
    assert hits[0].document == "guides/bicycle.md"
    states = {s.record.path: s.state for s in index.status()}
    assert states["empty.md"] == "failed" and states["kettle.md"] == "indexed"


def test_reindex_only_changed_and_removes_missing(index: Index, clean_corpus: Path):
    first = index.index(clean_corpus)
    assert first.ok and len(first.indexed) == 3
    again = index.index(clean_corpus)
    assert again.indexed == [] and len(again.unchanged) == 3 and again.embedded == 0

    kettle = clean_corpus / "kettle.md"
    kettle.write_text(kettle.read_text() + "\n## Cleaning\n\nWipe the base with a dry cloth.\n")
    (clean_corpus / "notes.txt").unlink()
    third = index.index(clean_corpus)
    assert third.indexed == ["kettle.md"]
    assert third.removed == ["notes.txt"]
    assert third.reused > 0  # unchanged chunk texts are not re-embedded
    assert 0 < third.embedded < third.chunks_written + 1
    assert {d.record.path for d in index.status()} == {"kettle.md", "guides/bicycle.md"}
    assert index.search("dry cloth base", k=1).hits[0].document == "kettle.md"


def test_an_unchanged_run_does_not_load_the_model(tmp_path: Path, embedder, clean_corpus: Path):
    """Deciding that a file is unchanged needs the model's identity (from its files),
    not the model: a re-run over an unchanged folder, as a cron job or the server's
    restart does, costs no model load. The first changed file loads it."""
    assert Index(tmp_path / "index", embedder=embedder).index(clean_corpus).ok
    fresh = Index(tmp_path / "index")  # no embedder handed in: it would load one
    again = fresh.index(clean_corpus)
    assert len(again.unchanged) == 3 and again.embedded == 0
    assert fresh._embedder is None
    assert not fresh.store.get_setting(MODEL_PATH_SETTING)  # still the bundled model
    (clean_corpus / "kettle.md").write_text("# Kettle\n\nDescale it monthly.\n")
    third = fresh.index(clean_corpus)
    assert third.indexed == ["kettle.md"] and fresh._embedder is not None
    assert fresh._embedder.identity == fresh.identity
    assert [s.state for s in fresh.status()] == ["indexed"] * 3  # none stale


def test_compact_drops_only_the_vectors_no_document_uses(index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    kettle = clean_corpus / "kettle.md"
    kettle.write_text(kettle.read_text().replace("vinegar", "citric acid"))  # texts replaced
    notes = (clean_corpus / "notes.txt").read_bytes()
    (clean_corpus / "notes.txt").unlink()  # texts of a removed document
    index.index(clean_corpus)
    before = index.search("descale the kettle", k=5)
    report = index.compact()
    assert report.cache_dropped > 0 and report.cache_kept > 0
    assert report.bytes_after < report.bytes_before
    after = index.search("descale the kettle", k=5)
    assert [(h.chunk_id, h.distance) for h in after.hits] == [
        (h.chunk_id, h.distance) for h in before.hits]
    # every vector the index uses is still cached: re-embedding its documents costs nothing
    redo = index.reindex([d.record.path for d in index.status()])
    assert len(redo.indexed) == 2
    assert redo.embedded == redo.sentences_embedded == redo.bare_embedded == 0
    assert index.compact().cache_dropped == 0
    # what was dropped is embedded again when it comes back
    (clean_corpus / "notes.txt").write_bytes(notes)
    back = index.index(clean_corpus)
    assert back.indexed == ["notes.txt"] and back.embedded > 0


def test_failed_update_keeps_the_indexed_version(index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    before = index.store.stats().chunks
    (clean_corpus / "kettle.md").write_bytes(b"\xff\xfe broken")
    report = index.index(clean_corpus)
    assert [p for p, _ in report.failed] == ["kettle.md"]
    assert "still searchable" in report.failed[0][1]
    assert index.store.stats().chunks == before
    assert index.search("descale the kettle vinegar", k=1).hits[0].document == "kettle.md"
    # fix the file and retry
    (clean_corpus / "kettle.md").write_text("# Kettle\n\nDescale monthly with citric acid.\n")
    retried = index.retry()
    assert retried.indexed == ["kettle.md"] and retried.ok
    assert {s.state for s in index.status()} == {"indexed"}


def test_search_fields_and_modes(index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    for mode in ("dense", "bm25", "hybrid"):
        res = index.search("warranty months receipt", k=5, mode=mode)
        assert res.hits, mode
        top = res.hits[0]
        assert top.document == "kettle.md", mode
        j = top.to_json()
        for key in ("rank", "document", "title", "section", "start", "end", "locator",
                    "content", "distance", "score"):
            assert key in j
        assert j["locator"] == f"#char={top.start},{top.end}"
        text = (clean_corpus / "kettle.md").read_text()
        assert text[top.start : top.end] == top.content
        assert 0.0 <= top.distance <= 2.0
        assert [h.rank for h in res.hits] == list(range(1, len(res.hits) + 1))
    dense = index.search("warranty months receipt", k=5, mode="dense").hits
    assert all(a.distance <= b.distance for a, b in zip(dense, dense[1:]))
    with pytest.raises(ConfigError):
        index.search("x", mode="sparse")  # type: ignore[arg-type]


def test_search_convex_fusion_matches_its_formula(index: Index, clean_corpus: Path):
    from citeline.retrieve.fuse import CONVEX_ALPHA

    index.index(clean_corpus)
    q = "warranty months receipt"
    res = index.search(q, k=5, mode="hybrid", fusion="convex")
    assert res.hits and res.hits[0].document == "kettle.md"
    # recompute each fused score from the dense and BM25 modes' own scores
    n = index.store.stats().chunks
    cos = {h.chunk_id: 1.0 - h.distance for h in index.search(q, k=n, mode="dense").hits}
    bm = {h.chunk_id: h.score for h in index.search(q, k=n, mode="bm25").hits}
    best = max(bm.values())
    for h in res.hits:
        expected = CONVEX_ALPHA * cos[h.chunk_id] + (1 - CONVEX_ALPHA) * bm.get(h.chunk_id, 0.0) / best
        assert h.score == pytest.approx(expected, abs=1e-5)
    assert all(a.score >= b.score for a, b in zip(res.hits, res.hits[1:]))
    # the option only changes hybrid; dense mode ignores it
    assert index.search(q, k=5, mode="dense", fusion="convex").hits == index.search(q, k=5, mode="dense").hits
    with pytest.raises(ConfigError, match="--fusion"):
        index.search(q, fusion="weighted")  # type: ignore[arg-type]


def test_chunk_budget_is_an_index_setting(index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    default = {h.chunk_id: h.content for h in index.search("kettle", k=500, mode="bm25").hits}
    assert index.budget == 512
    # a smaller budget re-chunks: the documents show stale until re-indexed
    index.set_budget(160)
    assert {s.state for s in index.status()} == {"stale"}
    report = index.reindex_stale()
    assert report.ok
    assert {s.state for s in index.status()} == {"indexed"}
    small = index.search("kettle", k=500, mode="bm25").hits
    assert len(small) > len(default)
    text = (clean_corpus / "kettle.md").read_text()
    for h in small:
        if h.document == "kettle.md":
            assert text[h.start : h.end] == h.content
            assert len(h.content) <= 160 or "\n\n" not in h.content.strip()
    # index(..., budget=) stores it too, and bad values name the flag
    index.index(clean_corpus, budget=768)
    assert index.budget == 768 and index.chunk_config.budget == 768
    with pytest.raises(ConfigError, match="--budget"):
        index.set_budget(10)


def test_ask_answers_with_citations_or_refuses(index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    ans = index.ask("How long does the kettle warranty last?")
    assert not ans.refused
    assert 1 <= len(ans.citations) <= 4
    c = ans.citations[0]
    assert c.document == "kettle.md" and "24 months" in c.quote
    doc_text = (clean_corpus / c.document).read_text()
    assert doc_text[c.locator.start : c.locator.end] == c.quote
    assert all(x.distance < 0.675 for x in ans.citations)
    assert "[1]" in ans.answer

    no = index.ask("What is the offside rule in football?")
    assert no.refused and not no.citations
    assert no.answer == 'NO ANSWER: nothing under cosine distance 0.675 for "What is the offside rule in football?"'
    assert no.nearest_distance is not None and no.nearest_distance >= 0.675

    index.set_threshold(1.5)  # a looser per-index threshold now answers
    assert not index.ask("What is the offside rule in football?").refused


def test_writes_are_atomic_per_document(index: Index, clean_corpus: Path, monkeypatch):
    index.index(clean_corpus)
    before = {d.record.path: d.record.n_chunks for d in index.status()}
    chunks_before = index.store.stats().chunks
    (clean_corpus / "kettle.md").write_text("# Kettle\n\nNew text.\n\n## More\n\nEven more text.\n")

    import citeline.store.sqlite as sq

    real = sq.term_frequencies
    calls = {"n": 0}

    def crash_on_second(text):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("simulated crash mid-document")
        return real(text)

    monkeypatch.setattr(sq, "term_frequencies", crash_on_second)
    with pytest.raises(RuntimeError):
        index.index(clean_corpus)
    monkeypatch.setattr(sq, "term_frequencies", real)
    assert {d.record.path: d.record.n_chunks for d in index.status()} == before
    assert index.store.stats().chunks == chunks_before
    con = sqlite3.connect(Path(index.location) / DB_NAME)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    n = con.execute(
        "SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id=c.doc_id WHERE d.path='kettle.md'"
    ).fetchone()[0]
    assert n == before["kettle.md"]


def tiny_model(folder: Path, embedder) -> Path:
    """A second, really different sentence-transformers model: a tiny random BERT with
    the bundled model's tokenizer, saved as a local folder."""
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertConfig, BertModel

    vocab = embedder.model.tokenizer.get_vocab()
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1,
                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=256)
    BertModel(cfg).save_pretrained(folder / "hf")
    embedder.model.tokenizer.save_pretrained(folder / "hf")
    word = models.Transformer(str(folder / "hf"), max_seq_length=128)
    st = SentenceTransformer(modules=[word, models.Pooling(32, "mean"), models.Normalize()])
    st.save(str(folder / "st"))
    return folder / "st"


def test_other_model_marks_stale_and_never_mixes(tmp_path: Path, clean_corpus: Path, embedder,
                                                 run):
    """A second, really different model (a tiny BERT the test builds) must not be compared."""
    folder = tiny_model(tmp_path / "tiny-model", embedder).parent

    idx = Index(tmp_path / "index", embedder=embedder)
    idx.index(clean_corpus)
    idx.close()
    other = Index(tmp_path / "index", model_path=str(folder / "st"))
    assert other.identity.dim == 32
    states = {s.state for s in other.status()}
    assert states == {"stale"}
    reasons = " ".join(s.stale_reasons[0] for s in other.status())
    assert "embedded with sentence-transformers/all-MiniLM-L6-v2" in reasons
    with pytest.raises(ModelMismatch):
        other.search("kettle warranty", mode="dense")
    report = other.reindex_stale()
    assert len(report.indexed) == 3
    assert {s.state for s in other.status()} == {"indexed"}
    assert other.search("kettle warranty", k=1).hits
    # and the original model now sees those documents as stale
    back = Index(tmp_path / "index", embedder=embedder)
    assert {s.state for s in back.status()} == {"stale"}
    # one file indexed with the original model again (named, as --model default does) moves
    # the index back to it: the run says so, and search says the rest are BM25's alone
    one = back.index(clean_corpus / "kettle.md")
    assert one.model_switch == (other.identity.key, back.identity.key)
    assert back.other_model_documents() == (back.identity.key, ["guides/bicycle.md", "notes.txt"])
    back.close()
    other.close()
    code, out, _ = run("index", str(clean_corpus / "notes.txt"), "--index", str(tmp_path / "index"),
                       "--model", str(folder / "st"), "-q")
    assert code == 0 and "warning: this run embedded with" in out and "reindex --stale" in out
    code, _, err = run("search", "kettle", "--index", str(tmp_path / "index"), "--model",
                       str(folder / "st"))
    assert code == 0 and "1 document(s) are embedded with another model" in err and "kettle.md" in err


def test_an_index_remembers_its_model_folder(tmp_path: Path, clean_corpus: Path, embedder, run):
    model = tiny_model(tmp_path / "tiny-model", embedder)
    ix = str(tmp_path / "index")
    assert run("index", str(clean_corpus), "--index", ix, "--model", str(model), "-q")[0] == 0
    # no --model: the folder the index was written with, not the bundled model
    code, out, err = run("search", "kettle warranty", "--index", ix, "--json", "-k", "3")
    assert code == 0 and "another model" not in err
    assert {h["distance"] < 1.0 for h in json.loads(out)["hits"]} == {True}  # dense took part
    code, out, _ = run("status", "--index", ix, "--json")
    assert {d["state"] for d in json.loads(out)["documents"]} == {"indexed"}
    assert json.loads(out)["model_path"] == str(model.resolve())
    from citeline import cli

    assert cli._remembered_model(ix) == str(model.resolve())  # what `serve --index` loads
    assert cli._remembered_model(str(tmp_path / "no-index-yet")) is None
    again = run("index", str(clean_corpus), "--index", ix, "-q", "--json")
    assert again[0] == 0 and json.loads(again[1])["model_switch"] is None  # nothing re-embedded
    assert json.loads(again[1])["embedded"] == 0

    # the folder is gone: the error names it, and says how to go on
    model.rename(tmp_path / "away")
    code, _, err = run("search", "kettle", "--index", ix)
    assert code == 2 and str(model.resolve()) in err and "--model" in err
    assert "Traceback" not in err
    (tmp_path / "away").rename(model)
    assert run("search", "kettle", "--index", ix)[0] == 0

    # --model default: the bundled model, which the index remembers from its next write
    code, out, _ = run("status", "--index", ix, "--model", "default", "--json")
    assert code == 0 and {d["state"] for d in json.loads(out)["documents"]} == {"stale"}
    assert run("reindex", "--stale", "--index", ix, "--model", "default", "-q")[0] == 0
    code, out, _ = run("status", "--index", ix, "--json")
    assert code == 0 and {d["state"] for d in json.loads(out)["documents"]} == {"indexed"}
    assert json.loads(out)["model"] == embedder.identity.key and json.loads(out)["model_path"] is None


def test_a_folder_run_keeps_what_another_run_indexed_meanwhile(tmp_path: Path, embedder):
    """A folder run removes the documents whose files its walk did not find, but only
    those the index held when it walked: a file another run (a worker, a second
    `index`) added meanwhile is no deleted file."""
    import threading
    import time

    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(60):
        (folder / f"note-{i:02d}.md").write_text(
            f"# Note {i}\n\nParcel {i} weighs {i + 1} kilograms and is stored on shelf {i}.\n")
    ix = tmp_path / "ix"
    Index(ix, embedder=embedder).close()
    done: list[IndexReport] = []
    walk = threading.Thread(target=lambda: done.append(Index(ix, embedder=embedder).index(folder)))
    walk.start()
    other = Index(ix, embedder=embedder)
    while not other.store.documents():  # the walk has listed the folder and is writing
        time.sleep(0.01)
    (folder / "zz-new.md").write_text("# New\n\nThe new note is about a quokka.\n")
    assert other.index(folder / "zz-new.md").indexed == ["zz-new.md"]
    raced = walk.is_alive()
    walk.join()
    assert raced, "the walk finished before the other run did: nothing was shown"
    assert done and "zz-new.md" not in done[0].removed
    assert "zz-new.md" in {d.path for d in other.store.documents()}
    other.close()


def test_a_stop_check_ends_a_run_between_files_and_between_embedding_groups(tmp_path: Path,
                                                                             embedder):
    """``stop`` is called before each file and each group of texts embedded; when it
    raises, the run ends there: the documents written before stay, the one being
    embedded is not written (what a server deleting the collection relies on)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe kettle is descaled with vinegar.\n")
    (docs / "b.md").write_text("# B\n\n" + "".join(
        f"Valve {i} of pump {i % 9} is checked every {i % 5 + 1} weeks.\n\n" for i in range(200)))
    ix = Index(tmp_path / "ix", embedder=embedder)

    def stop_in_a_group_of_b() -> None:
        if ix.document("a.md") is not None:
            calls.append(1)
            if len(calls) == 2:  # the first was before b.md; this one, before its first group
                raise IndexingCancelled("stopped")

    calls: list[int] = []
    with pytest.raises(IndexingCancelled):
        ix.index(docs, stop=stop_in_a_group_of_b)
    assert [r.path for r in ix.store.documents()] == ["a.md"]

    def stop_now() -> None:
        raise IndexingCancelled("stopped")

    with pytest.raises(IndexingCancelled):  # before the first file: nothing changes
        ix.reindex(["a.md"], stop=stop_now)
    assert ix.document("a.md").state == "indexed"
    report = ix.index(docs)  # a later run does the rest
    assert report.indexed == ["b.md"] and report.unchanged == ["a.md"]


def test_newer_schema_is_refused(tmp_path: Path):
    from citeline.errors import SchemaError
    from citeline.store.sqlite import SQLiteStore

    SQLiteStore(tmp_path / "i").close()
    con = sqlite3.connect(tmp_path / "i" / DB_NAME)
    con.execute("PRAGMA user_version = 99")
    con.commit()
    con.close()
    with pytest.raises(SchemaError, match="newer"):
        SQLiteStore(tmp_path / "i")


def test_status_json_has_versions(index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    j = index.status()[0].to_json()
    for key in ("state", "reason", "chunks", "content_hash", "extractor", "extractor_version",
                "pipeline_version", "model_id", "weights_hash"):
        assert key in j
    assert j["model_id"] == "sentence-transformers/all-MiniLM-L6-v2"
    json.dumps(j)


def test_strategy_change_rechunks(index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    e_chunks = index.store.stats().chunks
    report = index.index(clean_corpus, strategy="A")
    assert len(report.indexed) == 3 and index.strategy == "A"
    assert index.store.stats().chunks != e_chunks or report.chunks_written > 0


def test_search_skips_chunks_deleted_between_ranking_and_fetch(index: Index, clean_corpus: Path):
    """A document re-indexed mid-query loses its old chunk ids; the search must not fail."""
    index.index(clean_corpus)
    before = index.search("kettle warranty", k=5).hits
    (clean_corpus / "kettle.md").write_text("# Kettle\n\nThe warranty now lasts 36 months.\n")
    real_chunks = index.store.chunks

    def fetch_after_reindex(ids):
        index.index(clean_corpus)  # commits new chunk ids: the ranked ones are gone
        return real_chunks(ids)

    index.store.chunks = fetch_after_reindex  # type: ignore[method-assign]
    try:
        hits = index.search("kettle warranty", k=5).hits
    finally:
        index.store.chunks = real_chunks  # type: ignore[method-assign]
    gone = {h.chunk_id for h in before if h.document == "kettle.md"}
    assert gone and not gone & {h.chunk_id for h in hits}
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


# Two processes wait for the same instant, then open (and so create and migrate) the
# same new index; before migrations re-read the schema version under the write lock,
# one of them failed now and then with "table settings already exists".
_OPEN_AT = """
import sys, time
from pathlib import Path
from citeline.store.sqlite import SQLiteStore
start = float(sys.argv[2])
while time.time() < start:
    pass
SQLiteStore(Path(sys.argv[1])).close()
"""


def test_processes_creating_one_index_at_once_both_succeed(tmp_path: Path):
    import subprocess
    import sys
    import time

    for attempt in range(4):
        folder = tmp_path / f"ix{attempt}"
        start = time.time() + 1.5  # after both interpreters have imported citeline
        procs = [subprocess.Popen([sys.executable, "-c", _OPEN_AT, str(folder), str(start)],
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        for p in procs:
            _, err = p.communicate(timeout=60)
            assert p.returncode == 0, err[-800:]
        con = sqlite3.connect(folder / DB_NAME)
        from citeline.store.sqlite import MIGRATIONS

        assert con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert con.execute("SELECT value FROM settings WHERE key = 'generation'").fetchall() == [("0",)]
        con.close()


def test_an_index_path_that_is_a_file_or_not_a_database_is_a_clear_error(tmp_path: Path, run):
    from citeline.errors import StoreUnavailable
    from citeline.store.sqlite import SQLiteStore

    (tmp_path / "afile").write_text("x")
    with pytest.raises(ConfigError, match="afile: not a folder"):
        SQLiteStore(tmp_path / "afile")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / DB_NAME).write_text("this is not a database\n" * 100)
    with pytest.raises(StoreUnavailable,
                       match=f"junk/{DB_NAME}: the index file is damaged \\(file is not"):
        SQLiteStore(tmp_path / "junk")
    code, _, err = run("status", "--index", str(tmp_path / "junk"))
    assert code == 2 and "the index file is damaged" in err


def test_a_rejected_index_run_changes_no_setting(tmp_path: Path, clean_corpus: Path, run):
    ix = str(tmp_path / "ix")
    assert run("index", str(clean_corpus), "--index", ix, "-q")[0] == 0
    before = run("status", "--index", ix)[1]
    for bad in (("--strategy", "A", "--no-sentences"), ("--strategy", "A", "--budget", "10")):
        target = str(clean_corpus / "typo") if "--no-sentences" in bad else str(clean_corpus)
        code, _, err = run("index", target, "--index", ix, *bad)
        assert code == 2 and ("no such file" in err or "--budget" in err)
        assert run("status", "--index", ix)[1] == before  # strategy E, sentences on, all indexed
    code, _, err = run("search", "kettle", "--index", ix, "-k", "0")
    assert code == 2 and "-k: must be at least 1, got 0" in err
    # a path that is not there creates no index either
    code, _, err = run("index", str(clean_corpus / "typo"), "--index", str(tmp_path / "new"))
    assert code == 2 and "no such file or folder" in err and not (tmp_path / "new").exists()


def test_pipes_and_non_utf8_names_are_skipped_not_read(tmp_path: Path, clean_corpus: Path,
                                                        index: Index):
    import os

    os.mkfifo(clean_corpus / "pipe.md")  # reading it would wait for a writer forever
    (clean_corpus / os.fsdecode(b"caf\xe9.md")).write_text("# Cafe\n\nAbout otters.\n")
    report = index.index(clean_corpus)
    assert ("pipe.md", "not a regular file (a pipe, device or broken link)") in report.skipped
    assert ("caf\\xe9.md", "the file name is not valid UTF-8; rename the file") in report.skipped
    assert report.ok and "kettle.md" in report.indexed
    assert json.dumps(report.to_json())  # what --json prints


def test_search_with_no_hits_says_so(tmp_path: Path, clean_corpus: Path, run):
    (tmp_path / "nothing").mkdir()
    empty = str(tmp_path / "empty")
    assert run("index", str(tmp_path / "nothing"), "--index", empty, "-q")[0] == 0
    code, out, err = run("search", "kettle", "--index", empty)
    assert code == 0 and out.startswith("no hits (hybrid)") and "sentence vectors" not in err
    ix = str(tmp_path / "ix")
    assert run("index", str(clean_corpus), "--index", ix, "-q")[0] == 0
    code, out, _ = run("search", "zzzqqq", "--index", ix, "--mode", "bm25")
    assert code == 0 and out.startswith("no hits (bm25)")


def test_a_second_folder_never_silently_replaces_a_same_named_document(tmp_path: Path,
                                                                       index: Index):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "kettle.md").write_text("# Kettle\n\nDescale it with vinegar and water.\n")
    (b / "kettle.md").write_text("# Fish kettle\n\nPoach the salmon slowly.\n")
    index.index(a)
    report = index.index(b)
    assert report.indexed == [] and report.skipped == [
        ("kettle.md", f"{a.resolve() / 'kettle.md'} is indexed under the same name; "
                      "index the folder that holds both instead")]
    assert "vinegar" in index.search("descale vinegar", k=1).hits[0].content
    # a folder that moved (its old file is gone) takes the name over, as before
    (a / "kettle.md").unlink()
    report = index.index(b)
    assert report.indexed == ["kettle.md"]
    assert "salmon" in index.search("poach salmon", k=1).hits[0].content
    assert [d.root for d in index.store.documents()] == [str(b.resolve())]


def test_bm25_finds_words_of_any_script(index: Index, tmp_path: Path):
    """A Hungarian word with accents and a Chinese phrase are BM25 terms: before uni-v2
    "vízkőmentesítés" was the tokens v, zk, mentes, t, s and Chinese text had none."""
    folder = tmp_path / "intl"
    folder.mkdir()
    (folder / "hu.md").write_text("# Vízforraló\n\nA vízkőmentesítés havonta ajánlott ecettel.\n")
    (folder / "zh.md").write_text("# 水壶\n\n每个月用柠檬酸清洗水壶一次。\n")
    (folder / "en.md").write_text("# Kettle\n\nDescale the kettle monthly with vinegar.\n")
    assert index.index(folder).ok
    hits = index.search("vízkőmentesítés", k=5, mode="bm25").hits
    assert [h.document for h in hits] == ["hu.md"]
    hits = index.search("柠檬酸", k=5, mode="bm25").hits
    assert [h.document for h in hits] == ["zh.md"]
    assert index.search("kettle vinegar", k=5, mode="bm25").hits[0].document == "en.md"


def test_bm25_finds_a_command_line_option_by_its_name(index: Index, tmp_path: Path):
    """``xargs -0`` names its option: before uni-v3 the term was ``0``, which any chunk
    with a number holds, and the page that has the option ranked under pages full of
    numbers. Case is kept: ``-R`` and ``-r`` are two options."""
    folder = tmp_path / "man"
    folder.mkdir()
    (folder / "xargs.md").write_text(
        "# xargs\n\nBuild command lines from standard input.\n\n"
        "-0, --null: input items are terminated by a null character instead of by "
        "whitespace, and quotes and backslash are not special.\n")
    (folder / "sizes.md").write_text(
        "# Sizes\n\nA 0 or 10 or 100 or 1000 byte file: 0 0 0 blocks, 0 inodes, 0 errors.\n")
    (folder / "ls.md").write_text(
        "# ls\n\n-R, --recursive: list subdirectories recursively.\n\n"
        "-r, --reverse: reverse order while sorting.\n")
    assert index.index(folder).ok
    assert index.search("what does -0 do", k=1, mode="bm25").hits[0].document == "xargs.md"
    assert [h.document for h in index.search("-0", k=5, mode="bm25").hits] == [
        "xargs.md", "sizes.md"]  # the option's page first, then the page with the number
    reverse = index.search("-r", k=5, mode="bm25").hits
    recursive = index.search("-R", k=5, mode="bm25").hits
    assert [h.document for h in reverse] == [h.document for h in recursive] == ["ls.md"]
    assert reverse[0].score == pytest.approx(recursive[0].score)  # one of each


def test_index_from_the_ascii_tokenizer_is_stale_and_reindexes_without_embedding(
        index: Index, clean_corpus: Path):
    index.index(clean_corpus)
    db = sqlite3.connect(Path(index.location) / DB_NAME)
    with db:
        db.execute("UPDATE documents SET pipeline_version = "
                   f"replace(pipeline_version, 'bm25:{TOKENIZER_VERSION}', 'bm25:az09-v1')")
    db.close()
    stale = [s for s in index.status() if s.state == "stale"]
    assert len(stale) == 3 and all("bm25:az09-v1" in "; ".join(s.stale_reasons) for s in stale)
    report = index.reindex_stale()
    assert report.ok and len(report.indexed) == 3 and report.embedded == 0
    assert {s.state for s in index.status()} == {"indexed"}


def test_rst_and_setext_headings_give_hits_their_section(index: Index, tmp_path: Path):
    """A reStructuredText file's section titles and a Markdown file's setext headings
    make sections: the hit carries the heading path and the chunk its header (before
    text extractor 3, both were one section under the file name)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "kettle.rst").write_text(
        "=================\n Kettle handbook\n=================\n\nRead this first.\n\n"
        "Care\n====\n\nRinsing\n-------\n\nRinse the jug with cold water after each use.\n\n"
        "Warranty\n========\n\nThe base is covered for twenty-four months.\n")
    (folder / "bike.md").write_text(
        "Bicycle guide\n=============\n\nRide safely.\n\nChain care\n----------\n\n"
        "Oil the chain every two hundred kilometres.\n")
    assert index.index(folder).ok
    rinse = index.search("rinse the jug with cold water", k=1).hits[0]
    assert (rinse.document, rinse.title, rinse.section) == (
        "kettle.rst", "Kettle handbook", "Kettle handbook > Care > Rinsing")
    chain = index.search("how often should I oil the chain", k=1).hits[0]
    assert (chain.document, chain.section) == ("bike.md", "Bicycle guide > Chain care")


def _kitchen(tmp_path: Path) -> tuple[Path, Path]:
    top = tmp_path / "kitchen"
    sub = top / "appliances"
    sub.mkdir(parents=True)
    (top / "knives.md").write_text("# Knives\n\nHone the blade before every use.\n")
    (sub / "kettle.md").write_text("# Kettle\n\nDescale it with vinegar and water.\n")
    return top, sub


def test_a_subfolder_indexed_before_its_parent_moves_to_the_parents_key(tmp_path: Path,
                                                                        index: Index):
    top, sub = _kitchen(tmp_path)
    assert index.index(sub).indexed == ["kettle.md"]
    report = index.index(top)
    assert sorted(report.indexed) == ["appliances/kettle.md", "knives.md"]
    assert report.removed == ["kettle.md"]  # one document, not two copies
    assert {d.path for d in index.store.documents()} == {"appliances/kettle.md", "knives.md"}
    hits = index.search("descale vinegar", k=5).hits
    assert [h.document for h in hits if "vinegar" in h.content] == ["appliances/kettle.md"]
    # the parent again: nothing to do
    again = index.index(top)
    assert again.indexed == [] and again.removed == [] and len(again.unchanged) == 2


def test_a_subfolder_indexed_after_its_parent_keeps_the_parents_key(tmp_path: Path,
                                                                    index: Index):
    top, sub = _kitchen(tmp_path)
    index.index(top)
    (sub / "kettle.md").write_text("# Kettle\n\nDescale it with citric acid monthly.\n")
    report = index.index(sub)
    assert report.indexed == ["appliances/kettle.md"] and report.removed == []
    assert {d.path for d in index.store.documents()} == {"appliances/kettle.md", "knives.md"}
    assert "citric" in index.search("descale citric acid", k=1).hits[0].content
    # one file of it, too
    assert index.index(sub / "kettle.md").unchanged == ["appliances/kettle.md"]
    assert {d.root for d in index.store.documents()} == {str(top.resolve())}


def test_a_few_files_look_up_their_keys_as_the_whole_list_gives_them(tmp_path: Path,
                                                                    index: Index):
    # a worker's job looks up the documents its file could be instead of reading every
    # document; both must key it the same, for each way a file is held from elsewhere
    top, sub = _kitchen(tmp_path)
    (sub / "deep").mkdir()
    (sub / "deep" / "toaster.md").write_text("# Toaster\n\nEmpty the crumb tray weekly.\n")
    index.index(sub)  # kettle.md, deep/toaster.md keyed under the subfolder
    index.index(top / "knives.md")
    records = index.store.documents()
    cases = [
        (top.resolve(), [(top / "appliances" / "kettle.md", "appliances/kettle.md"),
                         (top / "knives.md", "knives.md")]),  # one moves up, one is its own
        ((sub / "deep").resolve(), [(sub / "deep" / "toaster.md", "toaster.md")]),  # kept
        (tmp_path.resolve(), [(top / "knives.md", "kitchen/knives.md")]),  # moves
    ]
    for base, files in cases:
        looked_up = index.keys(files, base)
        assert looked_up == index.keys(files, base, records)
        assert looked_up != ([*files], {}, [])  # each case finds a document held elsewhere
    (_, kept, _) = index.keys(cases[1][1], cases[1][0])
    assert kept == {str(sub.resolve()): [(sub / "deep" / "toaster.md", "deep/toaster.md")]}


def test_a_deleted_subfolder_indexed_on_its_own_is_removed_by_its_parent(tmp_path: Path,
                                                                         index: Index):
    top, sub = _kitchen(tmp_path)
    index.index(sub)
    index.index(top / "knives.md")
    (sub / "kettle.md").unlink()
    sub.rmdir()
    report = index.index(top)
    assert report.removed == ["kettle.md"]
    assert {d.path for d in index.store.documents()} == {"knives.md"}


def test_a_moving_document_that_fails_keeps_its_old_record(tmp_path: Path, index: Index):
    top, sub = _kitchen(tmp_path)
    index.index(sub)
    (sub / "kettle.md").write_bytes(b"binary\x00\x01")
    report = index.index(top)
    assert [p for p, _ in report.failed] == ["appliances/kettle.md"]
    assert report.removed == []
    assert "vinegar" in index.search("descale vinegar", k=1).hits[0].content


def test_a_symlinked_folder_is_listed_as_skipped(tmp_path: Path, index: Index):
    top, sub = _kitchen(tmp_path)
    (top / "linked").symlink_to(sub, target_is_directory=True)
    (top / "loop").symlink_to(top, target_is_directory=True)
    report = index.index(top)
    assert sorted(report.indexed) == ["appliances/kettle.md", "knives.md"]
    skipped = dict(report.skipped)
    assert set(skipped) == {"linked/", "loop/"}
    assert "symbolic link to a folder, not followed" in skipped["linked/"]


def test_a_move_cut_short_leaves_no_second_copy_after_the_next_run(
        tmp_path: Path, index: Index, monkeypatch: pytest.MonkeyPatch):
    """Killed between writing the new record and removing the old one, the index holds
    both; the next run of the parent removes the old one."""
    top, sub = _kitchen(tmp_path)
    index.index(sub)
    with monkeypatch.context() as m:
        m.setattr(index.store, "remove_document", lambda path: None)  # the kill, in effect
        index.index(top)
    assert {d.path for d in index.store.documents()} == {
        "kettle.md", "appliances/kettle.md", "knives.md"}
    report = index.index(top)
    assert report.removed == ["kettle.md"] and report.indexed == []
    assert {d.path for d in index.store.documents()} == {"appliances/kettle.md", "knives.md"}


def test_an_interrupted_run_keeps_the_documents_it_finished(
        tmp_path: Path, index: Index, monkeypatch: pytest.MonkeyPatch):
    """Each file is written before the next is read: Ctrl-C during a long folder run
    loses only the file in hand, and the next run starts where it stopped."""
    import citeline.pipeline as pipeline

    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in (("a.md", "Aisle 4 holds the ladders."), ("b.md", "Bay 9 holds tyres."),
                       ("c.md", "Cage 2 holds the paint.")):
        (folder / name).write_text(f"# {name}\n\n{text}\n")
    real = pipeline.extractor_for

    def interrupted(f: Path):  # type: ignore[no-untyped-def]
        if f.name == "c.md":
            raise KeyboardInterrupt  # while the third file is read
        return real(f)

    with monkeypatch.context() as m:
        m.setattr(pipeline, "extractor_for", interrupted)
        with pytest.raises(KeyboardInterrupt):
            index.index(folder)
    assert {d.path for d in index.store.documents()} == {"a.md", "b.md"}
    assert index.search("where are the tyres", k=1).hits[0].document == "b.md"
    again = index.index(folder)
    assert again.indexed == ["c.md"] and sorted(again.unchanged) == ["a.md", "b.md"]


def test_a_document_that_fails_in_a_moved_folder_is_looked_for_there(
        tmp_path: Path, index: Index):
    top, _ = _kitchen(tmp_path)
    index.index(top)
    moved = tmp_path / "galley"
    top.rename(moved)
    (moved / "knives.md").write_bytes(b"\x00broken")
    report = index.index(moved)
    assert [p for p, _ in report.failed] == ["knives.md"]
    assert index.document("knives.md").root == str(moved.resolve())
    assert index.gone() == []  # its file is there: `remove --missing` keeps it
    (moved / "knives.md").write_text("# Knives\n\nHone the blade before every use.\n")
    assert index.retry().indexed == ["knives.md"]


def test_a_pdf_hit_names_its_bookmarked_section_and_page(index: Index, tmp_path: Path):
    import doc_builders

    folder = tmp_path / "pdfs"
    folder.mkdir()
    doc_builders.outlined_pdf(folder)
    assert index.index(folder).ok
    hit = index.search("how do I descale the kettle", k=1).hits[0]
    assert (hit.document, hit.section) == ("kettle-manual.pdf", "Kettle manual > Care > Descaling")
    assert hit.locator.fragment.startswith("#page=2")


def test_an_index_rebuilt_under_an_open_reader_is_reopened_not_served_stale(
        tmp_path: Path, clean_corpus: Path, embedder):
    """A server holds an Index open while the user deletes the folder and indexes again:
    every thread then reads the new file (SQLite connections keep reading a deleted
    file, and the new index can reach the same generation number as the old one)."""
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    from citeline.errors import IndexNotFound

    folder = tmp_path / "ix"
    kettle_only = tmp_path / "kettle"
    kettle_only.mkdir()
    shutil.copy(clean_corpus / "kettle.md", kettle_only / "kettle.md")
    Index(folder, embedder=embedder).index(kettle_only)
    reader = Index(folder, embedder=embedder, create=False)
    pool = ThreadPoolExecutor(2)  # threads with connections of their own, as a server's

    def documents() -> set[str]:
        return {h.document for h in reader.search("how often should I oil the chain", k=5).hits}

    assert documents() == {"kettle.md"} == pool.submit(documents).result()
    shutil.rmtree(folder)
    with pytest.raises(IndexNotFound, match="removed while in use"):
        documents()
    fresh = ThreadPoolExecutor(1)  # a thread with no connection yet: none creates the file
    with pytest.raises(IndexNotFound, match="removed while in use"):
        fresh.submit(documents).result()
    fresh.shutdown()
    assert not folder.exists()
    bikes = tmp_path / "bikes"
    shutil.copytree(clean_corpus / "guides", bikes)
    Index(folder, embedder=embedder).index(bikes)  # generation 1 again, like the old one
    assert documents() == {"bicycle.md"} == pool.submit(documents).result()
    assert [d.path for d in reader.store.documents()] == ["bicycle.md"]
    pool.shutdown()
    reader.close()


def test_a_folder_that_cannot_be_listed_keeps_its_documents_and_fails_the_run(
        tmp_path: Path, index: Index):
    import os
    import shutil
    import subprocess
    import sys

    top, sub = _kitchen(tmp_path)
    assert sorted(index.index(top).indexed) == ["appliances/kettle.md", "knives.md"]
    index.close()
    # root reads any folder: drop the two capabilities that let it, as a user has none
    cmd = [sys.executable, "-m", "citeline", "index", str(top), "--index", index.location,
           "-q", "--json"]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: a folder cannot be made unreadable")
        cmd = [setpriv, "--bounding-set=-dac_override,-dac_read_search",
               "--inh-caps=-dac_override,-dac_read_search", *cmd]
    sub.chmod(0)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "HF_HUB_OFFLINE": "1"})
    finally:
        sub.chmod(0o755)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [u["folder"] for u in report["unreadable_folders"]] == ["appliances/"]
    assert "cannot list the folder" in report["unreadable_folders"][0]["reason"]
    assert report["removed"] == 0 and report["unchanged"] == 1
    again = Index(index.location, embedder=index.embedder)
    assert sorted(d.path for d in again.store.documents()) == ["appliances/kettle.md", "knives.md"]
    again.close()


def test_a_moved_folder_is_where_its_documents_are_looked_for(tmp_path: Path, index: Index):
    top, _ = _kitchen(tmp_path)
    index.index(top)
    moved = top.rename(tmp_path / "moved")
    report = index.index(moved)
    assert report.indexed == [] and sorted(report.unchanged) == ["appliances/kettle.md", "knives.md"]
    assert {d.root for d in index.store.documents()} == {str(moved.resolve())}
    (moved / "knives.md").unlink()
    assert index.index(moved).removed == ["knives.md"]  # a deletion here is seen
    assert index.gone() == []  # and the kettle's file is found where it now is


def test_a_file_reached_through_a_link_is_one_document(tmp_path: Path, index: Index):
    import os

    top, _ = _kitchen(tmp_path)
    (top / "knives-alias.md").symlink_to("knives.md")
    outside = tmp_path / "outside.md"
    outside.write_text("# Spoons\n\nWooden spoons are oiled once a month.\n")
    (top / "spoons.md").symlink_to(outside)
    report = index.index(top)
    assert sorted(report.indexed) == ["appliances/kettle.md", "knives.md", "spoons.md"]
    assert ("knives-alias.md", "the same file as knives.md, indexed once as that") in report.skipped
    # a link named on its own is a document of its own name, in the link's folder
    assert index.index(top / "spoons.md").unchanged == ["spoons.md"]
    assert {d.path for d in index.store.documents()} == {
        "appliances/kettle.md", "knives.md", "spoons.md"}
    # a pipe named on its own is listed as skipped, not passed over in silence
    os.mkfifo(tmp_path / "pipe.md")
    report = index.index(tmp_path / "pipe.md")
    assert report.skipped == [("pipe.md", "not a regular file (a pipe, device or broken link)")]
    # a queued file that is gone by its turn says so (a worker's job, an upload deleted)
    report = index.index_files([(top / "gone.md", "gone.md")], str(top))
    assert report.skipped == [("gone.md", "the file is gone (moved or deleted since it was named)")]


def test_an_answer_sentence_in_a_sheet_cell_cites_that_cell(index: Index, tmp_path: Path):
    """A sentence of a long notes cell is located in its own cell (the stored region map
    keeps where each row's cells begin), not in its row's whole width."""
    folder = tmp_path / "sheets"
    folder.mkdir()
    (folder / "care.csv").write_text(
        "id,product,notes,owner\n"
        "1,Kettle K2,The base clicks when it is hot. Descale the kettle every month with "
        "citric acid. Never put the base under water.,Grace\n"
        "2,Toaster T1,Empty the crumb tray weekly.,Ada\n")
    index.index(folder)
    ans = index.ask("How often should the kettle be descaled?")
    assert not ans.refused
    (span,) = [sp for sp in ans.spans if sp.text.startswith("Descale the kettle every month")]
    assert span.locator.sheet_range == "care!C2:C2"
    hit = index.search("How often should the kettle be descaled?", k=1).hits[0]
    assert hit.locator.sheet_range == "care!A1:D3"  # the chunk: every row, header included


# --- document filters -------------------------------------------------------------------

SAMPLES = Path(__file__).parents[1] / "samples" / "corpus"
BATTERY = "how long does the battery warranty last and what does it require"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory, embedder):
    """The fixture corpus with the bundled samples in samples/: 9 documents, one folder
    of six among three small ones. Built once for the module's filter tests, which
    only read it."""
    base = tmp_path_factory.mktemp("mixed")
    fixture = Path(__file__).parent / "fixtures" / "corpus"
    shutil.copytree(fixture / "guides", base / "corpus" / "guides")
    for name in ("kettle.md", "notes.txt"):
        shutil.copy(fixture / name, base / "corpus" / name)
    shutil.copytree(SAMPLES, base / "corpus" / "samples")
    idx = Index(base / "index", embedder=embedder)
    assert idx.index(base / "corpus").ok
    yield idx
    idx.close()


def _ids(idx: Index, *paths: str) -> set[int]:
    return idx.store.chunk_ids_of(paths)


def test_a_filtered_search_ranks_only_the_matched_documents_as_it_would_unfiltered(mixed: Index):
    idx = mixed
    n = idx.store.stats().chunks
    for patterns in (["guides/**"], ["samples/0[1-3]*.md", "notes.txt"], ["*.md"]):
        docs = idx.documents_matching(patterns)
        allowed = _ids(idx, *docs)
        for mode in ("dense", "bm25"):
            # a one-list mode ranks the filter's chunks exactly as the whole index does
            whole = [(h.chunk_id, h.score) for h in idx.search(BATTERY, k=n, mode=mode).hits
                     if h.chunk_id in allowed]
            res = idx.search(BATTERY, k=n, mode=mode, documents=patterns)
            assert [(h.chunk_id, h.score) for h in res.hits] == whole, (patterns, mode)
            assert res.documents == tuple(docs) and res.to_json()["documents"] == docs
        for fusion in ("rrf", "convex", "sentence", "section", "late"):
            res = idx.search(BATTERY, k=20, fusion=fusion, documents=patterns)  # type: ignore[arg-type]
            assert res.hits and {h.document for h in res.hits} <= set(docs), (patterns, fusion)
            assert res.fusion == fusion
    assert set(idx.documents_matching(["*.md"])) == {"kettle.md"}  # * stays in its folder
    # every document: the very hits, scores and JSON of no filter at all
    for mode in ("dense", "bm25", "hybrid"):
        for fusion in (None, "rrf", "sentence", "section", "convex"):
            if mode != "hybrid" and fusion is not None:
                continue
            plain = idx.search(BATTERY, k=30, mode=mode, fusion=fusion)  # type: ignore[arg-type]
            every = idx.search(BATTERY, k=30, mode=mode, fusion=fusion,  # type: ignore[arg-type]
                               documents=["**"])
            assert every.hits == plain.hits and "documents" not in plain.to_json()


def test_a_small_document_in_a_bigger_index_gets_lists_of_full_depth(mixed: Index, monkeypatch):
    """The filter goes inside each list before its cut: with lists of depth 3, the
    battery question's top 3 of every list are samples/ chunks, yet the bicycle guide's
    own 3 best come back (a filter applied to the results would leave nothing)."""
    import citeline.pipeline as pipeline

    idx = mixed
    key = idx.embedder.identity.key
    qv = idx.embedder.embed([BATTERY])[0]
    bike = _ids(idx, "guides/bicycle.md")
    assert len(bike) == 4
    n = idx.store.stats().chunks
    for only in (bike, _ids(idx, "kettle.md", "notes.txt")):
        for bare in (False, True):
            whole = [x for x in idx.store.dense(qv, n, key, bare=bare) if x[0] in only]
            assert idx.store.dense(qv, 3, key, bare=bare, only=only) == whole[:3]
        whole = [x for x in idx.store.sentence_max(qv, n, key) if x[0] in only]
        assert idx.store.sentence_max(qv, 3, key, only=only) == whole[:3]
        terms = ["battery", "warranty", "the", "chain"]
        whole = [x for x in idx.store.bm25(terms, n) if x[0] in only]
        assert idx.store.bm25(terms, 3, only=only) == whole[:3] and whole
    assert idx.store.dense(qv, 3, key, only=set()) == [] and idx.store.bm25(["the"], 3, only=()) == []
    monkeypatch.setattr(pipeline, "FUSION_DEPTH", 3)
    top = idx.search(BATTERY, k=3, mode="dense").hits
    assert not {h.chunk_id for h in top} & bike  # the premise: the guide is not in the top 3
    for mode in ("dense", "hybrid"):
        hits = idx.search(BATTERY, k=3, mode=mode, documents=["guides/bicycle.md"]).hits
        assert len(hits) == 3 and {h.chunk_id for h in hits} <= bike, mode


def test_a_filter_entry_that_matches_nothing_is_an_error_naming_it(mixed: Index, index: Index,
                                                                     tmp_path: Path):
    from citeline.errors import UnmatchedDocuments

    idx = mixed
    with pytest.raises(UnmatchedDocuments, match=r"'nope/\*\.md'") as info:
        idx.search("kettle", documents=["kettle.md", "nope/*.md", "gone.txt"])
    assert info.value.patterns == ["nope/*.md", "gone.txt"]
    with pytest.raises(UnmatchedDocuments, match=r"'samples' is a folder: 'samples/'"):
        idx.ask("How long is the kettle warranty?", documents=["samples"])
    with pytest.raises(ConfigError, match="empty filter"):
        idx.search("kettle", documents=[])
    with pytest.raises(ConfigError, match="not a path or pattern"):
        idx.search("kettle", documents=["  "])
    # a document the index lists but holds no chunk of (it failed): no hits, not an error
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "empty.md").write_text("")
    (tmp_path / "two" / "kettle.md").write_text("# Kettle\n\nThe warranty lasts 24 months.\n")
    assert index.index(tmp_path / "two").failed[0][0] == "empty.md"
    res = index.search("kettle", documents=["empty.md"])
    assert res.hits == () and res.documents == ("empty.md",)
    no = index.ask("How long is the kettle warranty?", documents=["empty.md"])
    assert no.refused and "none of them holds a searchable chunk" in no.reason


def test_a_filtered_question_answers_from_those_documents_or_refuses_naming_them(mixed: Index):
    idx = mixed
    q = "How long does the kettle warranty last?"
    ans = idx.ask(q, documents=["kettle.md"])
    assert not ans.refused and {c.document for c in ans.citations} == {"kettle.md"}
    assert ans.documents == ("kettle.md",) and ans.to_json()["documents"] == ["kettle.md"]
    assert ans.reason.endswith("; searched only 1 document matching 'kettle.md': kettle.md")
    # the kettle's warranty is not in the bicycle guide: a refusal that says where it looked
    no = idx.ask(q, documents=["guides/"])
    assert no.refused and not no.citations and no.documents == ("guides/bicycle.md",)
    assert no.answer == (f'NO ANSWER: nothing under cosine distance 0.675 for "{q}" in the '
                         "1 document matching 'guides/'")
    assert no.reason.endswith("searched only 1 document matching 'guides/': guides/bicycle.md")
    # unfiltered: as before, no trace of a filter
    plain = idx.ask(q)
    assert plain.documents is None and "documents" not in plain.to_json()
    assert "searched only" not in plain.reason
    many = idx.ask("what is the offside rule in football?", documents=["samples/", "*.txt"])
    assert many.refused and "searched only 7 documents matching 'samples/', '*.txt': " in many.reason
    assert many.reason.endswith(" and 2 more")
