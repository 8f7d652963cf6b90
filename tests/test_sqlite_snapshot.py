"""The SQLite store's in-memory snapshot, kept up to date from its chunk log.

A search during an indexing run used to read every chunk again after each written
document; the snapshot now takes in only the chunks the log names. What it holds
must be exactly what a whole read gives, after any sequence of writes, removals and
re-used chunk ids, for every model's vectors, sentence vectors and postings.
No embedding model: vectors are random unit vectors of two "models".
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from citeline.store import DocRecord, StoredChunk, StoredSentence
from citeline.store.sqlite import LOG_GENERATIONS, SQLiteStore
from citeline.types import Chunk, Locator

MODELS = (("model-a", "wa", 8), ("model-b", "wb", 8))
WORDS = "harbour crane ledger pilot ferry winch anchor gantry customs tide rope deck".split()


def _record(path: str, model: tuple[str, str, int]) -> DocRecord:
    mid, wh, dim = model
    return DocRecord(path=path, root="/r", state="indexed", title=path, model_id=mid,
                     weights_hash=wh, dim=dim)


def _unit(rng: np.random.Generator, dim: int) -> np.ndarray:
    v = rng.normal(size=dim).astype(np.float32)
    return v / np.linalg.norm(v)


def _chunks(rng: np.random.Generator, n: int, dim: int, with_extras: bool) -> list[StoredChunk]:
    out, pos = [], 0
    for i in range(n):
        text = " ".join(rng.choice(WORDS, size=int(rng.integers(1, 9))))
        ch = Chunk(text=text, content=text, start=pos, end=pos + len(text), section="S", ordinal=i)
        sentences = tuple(StoredSentence(pos, pos + len(text), _unit(rng, dim), f"s{rng.random()}")
                          for _ in range(int(rng.integers(1, 4)))) if with_extras else ()
        out.append(StoredChunk(ch, Locator(pos, pos + len(text)), _unit(rng, dim), len(text), 0,
                               f"h{rng.random()}", sentences=sentences,
                               bare_vector=_unit(rng, dim) if with_extras else None,
                               bare_hash=f"b{rng.random()}" if with_extras else ""))
        pos += len(text) + 1
    return out


def _same(a, b) -> None:  # type: ignore[no-untyped-def]
    """Two snapshots hold the same chunks, vectors, sentences and postings, in one order."""
    assert a.generation == b.generation
    np.testing.assert_array_equal(a.ids, b.ids)
    np.testing.assert_array_equal(a.lengths, b.lengths)
    assert a.row_of == b.row_of and a.vector_pos == b.vector_pos
    for mine, theirs in ((a.vectors, b.vectors), (a.bare, b.bare)):
        assert mine.keys() == theirs.keys()
        for key in mine:
            np.testing.assert_array_equal(mine[key][0], theirs[key][0])
            np.testing.assert_array_equal(mine[key][1], theirs[key][1])
    assert a.sentences.keys() == b.sentences.keys()
    for key in a.sentences:
        for x, y in zip(a.sentences[key], b.sentences[key], strict=True):
            np.testing.assert_array_equal(x, y)
    terms = {t for t in a.postings.vocabulary if t in a.postings}
    assert terms == {t for t in b.postings.vocabulary if t in b.postings}
    for t in terms:
        for x, y in zip(a.postings[t], b.postings[t], strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_updated_snapshot_equals_a_whole_read(tmp_path: Path, seed: int):
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    store = SQLiteStore(tmp_path / "ix")
    _same(store._snapshot(), store._load())  # empty
    paths: list[str] = []
    updates = 0
    real_update = store._update

    def counting(snap):  # type: ignore[no-untyped-def]
        nonlocal updates
        out = real_update(snap)
        updates += out is not None
        return out

    store._update = counting  # type: ignore[method-assign]
    for step in range(40):
        op = pick.random()
        if paths and op < 0.25:  # remove one (the last one, often: its ids are reused next)
            path = paths.pop() if pick.random() < 0.5 else paths.pop(pick.randrange(len(paths)))
            store.remove_document(path)
        elif op < 0.35 and paths:  # a state change writes no chunk: the generation stays
            before = store.generation()
            store.mark(pick.choice(paths), "/r", "indexing", "")
            assert store.generation() == before
        else:  # write a new document, or replace one with other chunks (or none)
            path = pick.choice(paths) if paths and pick.random() < 0.4 else f"d{step}.md"
            if path not in paths:
                paths.append(path)
            model = MODELS[pick.random() < 0.3]
            n = int(rng.integers(0, 6))
            store.write_document(_record(path, model), "text", _chunks(rng, n, model[2],
                                                                        pick.random() < 0.7))
        if pick.random() < 0.6:  # searches read the snapshot after some writes, not all
            _same(store._snapshot(), store._load())
    _same(store._snapshot(), store._load())
    assert updates >= 10  # the log, not a whole read, brought most snapshots up to date
    store.close()


def test_a_snapshot_older_than_the_log_is_read_whole(tmp_path: Path):
    """The log keeps LOG_GENERATIONS of changes; a reader further behind reads everything
    (another process's reader, idle while a long run wrote)."""
    rng = np.random.default_rng(7)
    writer = SQLiteStore(tmp_path / "ix")
    reader = SQLiteStore(tmp_path / "ix")
    writer.write_document(_record("a.md", MODELS[0]), "text", _chunks(rng, 3, 8, True))
    old = reader._snapshot()
    for _ in range(LOG_GENERATIONS + 5):
        writer.write_document(_record("b.md", MODELS[0]), "text", _chunks(rng, 1, 8, False))
    assert reader._update(old) is None  # the changes it missed are no longer logged
    _same(reader._snapshot(), writer._load())
    kept = writer.conn.execute("SELECT min(generation), count(*) FROM chunk_log").fetchone()
    assert kept[0] > writer.generation() - LOG_GENERATIONS
    writer.close()
    reader.close()


def test_searches_see_each_written_document_and_its_removal(tmp_path: Path):
    """Through the store's own search calls: a document's chunks are found as soon as it
    is written, and no more once it is removed, its reused ids holding the new text."""
    rng = np.random.default_rng(3)
    store = SQLiteStore(tmp_path / "ix")
    key = _record("x", MODELS[0]).model_key
    store.write_document(_record("a.md", MODELS[0]), "text", _chunks(rng, 3, 8, True))
    store.write_document(_record("b.md", MODELS[0]), "text", _chunks(rng, 2, 8, True))
    assert len(store.dense(_unit(rng, 8), 10, key)) == 5
    b_ids = {i for i, _ in store.dense(_unit(rng, 8), 10, key)} - {
        r[0] for r in store.conn.execute(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = 'a.md'")}
    store.remove_document("b.md")
    assert len(store.dense(_unit(rng, 8), 10, key)) == 3
    chunks = _chunks(rng, 2, 8, True)
    chunks[0] = StoredChunk(Chunk(ordinal=0, start=0, end=15, section="S", text="zeppelin moored",
                                  content="zeppelin moored"),
                            Locator(0, 15), _unit(rng, 8), 2, 0, "hz")
    store.write_document(_record("c.md", MODELS[0]), "text", chunks)
    hits = store.bm25(["zeppelin"], 5)
    assert len(hits) == 1 and hits[0][0] in b_ids  # SQLite gave the removed ids again
    assert store.document_frequencies(["zeppelin", "harbour"])[0] == 5
    store.close()


def test_an_index_built_again_in_the_same_file_is_read_anew(tmp_path: Path):
    """A folder deleted and indexed again can get its database file's inode back, and the
    new index counts generations from 0 again: a reader holding a snapshot must read the
    new index, not keep (or patch) the old one's arrays. Simulated by writing another
    index's bytes into the same file (same inode) with no connection open."""
    import shutil

    from citeline.store.sqlite import DB_NAME

    rng = np.random.default_rng(11)
    key = _record("x", MODELS[0]).model_key
    reader = SQLiteStore(tmp_path / "ix")
    reader.write_document(_record("old.md", MODELS[0]), "text", _chunks(rng, 4, 8, True))
    before = reader._snapshot()
    assert len(before.ids) == 4
    other = SQLiteStore(tmp_path / "other")
    other.write_document(_record("new.md", MODELS[0]), "text", _chunks(rng, 2, 8, True))
    other.close()
    reader.close()
    inode = (tmp_path / "ix" / DB_NAME).stat().st_ino
    for suffix in ("-wal", "-shm"):
        (tmp_path / "ix" / (DB_NAME + suffix)).unlink(missing_ok=True)
    shutil.copyfile(tmp_path / "other" / DB_NAME, tmp_path / "ix" / DB_NAME)
    assert (tmp_path / "ix" / DB_NAME).stat().st_ino == inode
    assert reader.generation() == before.generation  # both wrote once
    _same(reader._snapshot(), other._load())
    assert len(reader.dense(_unit(rng, 8), 10, key)) == 2
    # ... and a rebuilt index that is further along is not patched from its own log
    third = SQLiteStore(tmp_path / "third")
    for name in ("a.md", "b.md", "c.md"):
        third.write_document(_record(name, MODELS[0]), "text", _chunks(rng, 3, 8, False))
    third.close()
    held = reader._snapshot()
    reader.close()
    for suffix in ("-wal", "-shm"):
        (tmp_path / "ix" / (DB_NAME + suffix)).unlink(missing_ok=True)
    shutil.copyfile(tmp_path / "third" / DB_NAME, tmp_path / "ix" / DB_NAME)
    assert reader.generation() > held.generation
    _same(reader._snapshot(), third._load())
