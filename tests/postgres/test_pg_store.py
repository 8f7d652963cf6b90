"""The PostgreSQL store on a real PostgreSQL 16 + pgvector: schema, writes, BM25, models."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import numpy as np
import psycopg
import pytest

from citeline.errors import (
    DocumentRefused,
    IndexNotFound,
    ModelMismatch,
    SchemaError,
)
from citeline.retrieve.bm25 import tokenize
from citeline.store import DocRecord, StoredChunk, open_store
from citeline.store.postgres import (
    HNSW_EF_SEARCH,
    MIGRATIONS,
    PostgresStore,
    parse_url,
    redact,
)
from citeline.store.sqlite import SQLiteStore
from citeline.types import Chunk, Locator

KEY_A = ("model-a", "w1", 384)
KEY_B = ("model-b", "w2", 8)


def _record(path: str, model=KEY_A, **kw) -> DocRecord:
    mid, wh, dim = model
    return DocRecord(path=path, root="/r", state="indexed", title=path, model_id=mid,
                     weights_hash=wh, dim=dim, **kw)


def _chunks(texts: list[str], dim: int = 384, seed: int = 0) -> list[StoredChunk]:
    rng = np.random.default_rng(seed)
    out, pos = [], 0
    for i, t in enumerate(texts):
        v = rng.normal(size=dim).astype(np.float32)
        v /= np.linalg.norm(v)
        ch = Chunk(text=t, content=t, start=pos, end=pos + len(t), section="S", ordinal=i)
        out.append(StoredChunk(ch, Locator(pos, pos + len(t)), v, len(t.split()), 0, f"h{seed}-{i}"))
        pos += len(t) + 1
    return out


def _key(model=KEY_A) -> str:
    return _record("x", model).model_key


def test_url_options_are_split_from_libpq_and_passwords_hidden():
    dsn, opts = parse_url("postgresql://u:secret@h:5/db?exact=1&sslmode=disable&ef_search=64")
    assert opts == {"exact": "1", "ef_search": "64"}
    assert dsn == "postgresql://u:secret@h:5/db?sslmode=disable"
    assert redact("postgresql://u:secret@h:5/db") == "postgresql://u:***@h:5/db"
    # libpq takes the password as a query parameter too: hidden there as well
    assert redact("postgresql://u@h/db?sslmode=require&password=s3cret&ef_search=64") == (
        "postgresql://u@h/db?sslmode=require&password=***&ef_search=64")
    assert redact("postgresql://u:a@h/db?PASSWORD=b") == "postgresql://u:***@h/db?PASSWORD=***"
    # libpq percent-decodes URI parameters but keeps "+": spaces must stay %20
    opts = "options=-c%20default_transaction_read_only%3Don"
    assert parse_url(f"postgresql://h/db?{opts}&exact=1") == (f"postgresql://h/db?{opts}",
                                                              {"exact": "1"})


def test_migrations_are_idempotent_and_safe_concurrently(pg_url: str):
    with pytest.raises(IndexNotFound, match="no citeline schema"):
        PostgresStore(pg_url, create=False)
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            PostgresStore(pg_url).close()
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    s = PostgresStore(pg_url, create=False)  # exists now: opening again applies nothing
    assert s.schema_version == len(MIGRATIONS)
    with psycopg.connect(pg_url, autocommit=True) as c:
        versions = [r[0] for r in c.execute("SELECT version FROM schema_migrations ORDER BY 1")]
        assert versions == list(range(1, len(MIGRATIONS) + 1))
        c.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (len(MIGRATIONS) + 1,))
    s.close()
    with pytest.raises(SchemaError, match="newer than this citeline"):
        PostgresStore(pg_url)


def test_open_store_dispatches_both_schemes(pg_url: str):
    for url in (pg_url, pg_url.replace("postgresql://", "postgres://", 1)):
        s = open_store(url)
        assert isinstance(s, PostgresStore)
        s.close()


def test_write_replace_remove_keep_bm25_totals_consistent(pg_url: str):
    s = PostgresStore(pg_url)
    s.write_document(_record("a.md"), "alpha beta", _chunks(["alpha beta gamma", "beta beta"]))
    s.write_document(_record("b.md"), "x", _chunks(["gamma delta"], seed=1))
    s.write_document(_record("a.md"), "alpha", _chunks(["alpha only"], seed=2))  # replace
    s.mark("c.md", "/r", "failed", "empty file")

    def totals() -> tuple[int, int]:
        with psycopg.connect(pg_url) as c:
            got = c.execute("SELECT n_chunks, total_length FROM bm25_totals").fetchone()
            real = c.execute("SELECT COUNT(*), COALESCE(SUM(length), 0) FROM chunks").fetchone()
        assert got == real
        return got

    assert totals() == (2, 4)
    assert [d.path for d in s.documents()] == ["a.md", "b.md", "c.md"]
    assert s.document("c.md").state == "failed" and s.document("c.md").reason == "empty file"
    assert s.document_text("a.md") == "alpha"
    st = s.stats()
    assert st.by_state == {"indexed": 2, "failed": 1}
    s.remove_document("b.md")
    assert totals() == (1, 2)
    assert [r.content for r in s.all_chunks()] == ["alpha only"]
    cached = s.cached_vectors(["h2-0", "h1-0", "nope"], _key())
    assert set(cached) == {"h2-0", "h1-0"}  # the cache outlives removed documents
    assert cached["h2-0"].tobytes() == _chunks(["alpha only"], seed=2)[0].vector.tobytes()
    s.close()


def test_a_rewrite_and_a_new_document_sharing_a_text_do_not_deadlock(pg_url: str):
    """A rewrite drops its old chunks, a new document adds its own, and both cache a text
    they share. The BM25 totals row is every writer's last lock: a rewrite that took it
    when it dropped its old chunks waited on the other's cache row while the other waited
    on the totals (PostgreSQL's deadlock detector failed one of them)."""
    s = PostgresStore(pg_url)
    s.write_document(_record("a.md"), "old", _chunks(["old text here"], seed=5))
    shared = _chunks(["shared words"], seed=6)[0]
    other = psycopg.connect(pg_url, autocommit=False)  # a writer of a new document, mid-way
    other.execute("SET deadlock_timeout = '100ms'")
    other.execute("INSERT INTO embeddings (text_hash, model_key, vector) VALUES (%s, %s, %s)",
                  (shared.text_hash, _key(), shared.vector.tobytes()))
    errors: list[BaseException] = []

    def rewrite() -> None:
        try:
            s.write_document(_record("a.md"), "new", [shared])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    t = threading.Thread(target=rewrite)
    t.start()
    waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
    with psycopg.connect(pg_url, autocommit=True) as watch:
        for _ in range(200):  # the rewrite now waits for the shared cache row
            if watch.execute(waiting).fetchone()[0]:
                break
            threading.Event().wait(0.05)
    other.execute("UPDATE bm25_totals SET n_chunks = n_chunks, total_length = total_length "
                  "WHERE id = 1")  # as a writer's last statement does
    other.commit()
    other.close()
    t.join(30)
    assert not errors, errors
    with psycopg.connect(pg_url) as c:
        got = c.execute("SELECT n_chunks, total_length FROM bm25_totals").fetchone()
        assert got == c.execute("SELECT COUNT(*), COALESCE(SUM(length), 0) FROM chunks").fetchone()
    assert [r.content for r in s.all_chunks()] == ["shared words"]
    s.close()


def test_a_failed_write_leaves_the_previous_version_whole(pg_url: str):
    s = PostgresStore(pg_url)
    s.write_document(_record("a.md"), "old", _chunks(["old text here", "more old"]))
    before = [(r.id, r.content) for r in s.all_chunks()]
    # PostgreSQL text cannot hold NUL: the COPY fails half way through the transaction;
    # a refused value fails this document (the run goes on), not the store
    with pytest.raises(DocumentRefused, match="a.md: PostgreSQL refused a value"):
        s.write_document(_record("a.md"), "new", _chunks(["fine chunk", "bad \x00 chunk"], seed=3))
    assert [(r.id, r.content) for r in s.all_chunks()] == before
    assert s.document_text("a.md") == "old"
    assert sorted(i for i, _ in s.bm25(["old"], 10)) == [before[0][0], before[1][0]]
    s.close()


def test_vectors_of_different_models_are_never_compared(pg_url: str):
    s = PostgresStore(pg_url)
    a = _chunks(["one", "two"], dim=384)
    b = _chunks(["three"], dim=8, seed=5)
    s.write_document(_record("a.md", KEY_A), "", a)
    s.write_document(_record("b.md", KEY_B), "", b)
    ids = {r.content: r.id for r in s.all_chunks()}
    q = a[0].vector
    dense = s.dense(q, 10, _key(KEY_A))
    assert [i for i, _ in dense] == [ids["one"], ids["two"]]
    assert dense[0][1] == pytest.approx(1.0, abs=1e-6)
    assert set(s.similarities(q, list(ids.values()), _key(KEY_A))) == {ids["one"], ids["two"]}
    assert [i for i, _ in s.dense(b[0].vector, 10, _key(KEY_B))] == [ids["three"]]
    assert s.dense(q, 10, "never-seen@x/384") == []
    with pytest.raises(ModelMismatch):
        s.dense(b[0].vector, 10, _key(KEY_A))
    with pytest.raises(ModelMismatch):  # vectors that are not the model's dimension
        s.write_document(_record("c.md", KEY_A), "", _chunks(["x"], dim=8))
    assert s.document("c.md") is None
    s.close()


def test_dense_distances_are_exact_in_both_modes(pg_url: str):
    s = PostgresStore(pg_url)
    texts = [f"chunk {i}" for i in range(300)]
    chunks = _chunks(texts, seed=7)
    s.write_document(_record("m.md"), "", chunks)
    matrix = np.vstack([c.vector for c in chunks])
    ids = [r.id for r in s.all_chunks()]
    rng = np.random.default_rng(1)
    for _ in range(5):
        q = rng.normal(size=384).astype(np.float32)
        q /= np.linalg.norm(q)
        sims = matrix @ q
        order = np.argsort(-sims, kind="stable")[:20]
        for mode in ("exact", "hnsw"):
            got = s.dense_with(q, 20, _key(), mode, 100)
            assert [i for i, _ in got] == [ids[j] for j in order]
            np.testing.assert_allclose([x for _, x in got], sims[order], atol=1e-5)
    s.close()


def _zipf_corpus(n_chunks: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(60)]
    p = 1.0 / np.arange(1, 61)
    p /= p.sum()
    return [" ".join(rng.choice(vocab, size=int(rng.integers(1, 30)), p=p)) for _ in range(n_chunks)]


def test_bm25_in_sql_equals_the_sqlite_backend(pg_url: str, tmp_path: Path):
    texts = _zipf_corpus(250, seed=3)
    docs = [texts[i : i + 25] for i in range(0, 250, 25)]
    pg = PostgresStore(pg_url)
    lite = SQLiteStore(tmp_path / "ix")
    for n, d in enumerate(docs):
        for s in (pg, lite):
            s.write_document(_record(f"d{n}.md"), "", _chunks(d, seed=n))
    lite_ids = {(r.document, r.start): r.id for r in lite.all_chunks()}
    pg_to_key = {r.id: (r.document, r.start) for r in pg.all_chunks()}
    rng = np.random.default_rng(9)
    queries = [["w0"], ["w1", "w1", "w59"], ["w3", "w7", "w12", "w40"], ["absent"], ["w5", "absent"]]
    queries += [list(rng.choice([f"w{i}" for i in range(60)], size=4)) for _ in range(10)]
    for q in queries:
        # whole rankings: at a cut inside a tie, numpy's argpartition picks any member
        want = lite.bm25(q, 1000)
        got = pg.bm25(q, 1000)
        assert [lite_ids[pg_to_key[i]] for i, _ in got] == [i for i, _ in want], q
        np.testing.assert_allclose([x for _, x in got], [x for _, x in want], rtol=1e-12)
    assert pg.bm25(tokenize("the"), 5) == []
    top = pg.bm25(["w1", "w2"], 7)
    assert top == pg.bm25(["w1", "w2"], 1000)[:7]
    pg.close()
    lite.close()


def test_job_claims_never_hand_out_a_job_twice(pg_url: str):
    s = PostgresStore(pg_url)
    assert s.enqueue([(f"f{i}.md", "/r", f"/r/f{i}.md") for i in range(60)]) == 60
    assert s.enqueue([("f0.md", "/r", "/r/f0.md")]) == 0  # already queued
    claimed: list[int] = []
    lock = threading.Lock()

    def claimer(n: int) -> None:
        mine = []
        while (job := s.claim(f"w{n}", 60.0)) is not None:
            mine.append(job.id)
        with lock:
            claimed.extend(mine)

    threads = [threading.Thread(target=claimer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == sorted(set(claimed)) and len(claimed) == 60
    assert s.job_counts() == {"running": 60}
    assert Counter(j["attempts"] for j in s.jobs()) == {1: 60}
    s.close()


def test_a_path_runs_one_job_at_a_time_and_a_reupload_is_not_lost(pg_url: str):
    s = PostgresStore(pg_url)
    assert s.enqueue([("a.md", "/r", "/r/a.md"), ("b.md", "/r", "/r/b.md")]) == 2
    first = s.claim("w1", 60.0)
    assert first is not None and first.path == "a.md" and not first.force
    # a.md re-uploaded while w1 indexes it: queued again (w1 may have read the old bytes)
    assert s.enqueue([("a.md", "/r", "/r/a.md")]) == 1
    assert s.enqueue([("a.md", "/r", "/r/a.md")]) == 0  # one queued job per path
    assert s.enqueue([("a.md", "/r", "/r/a.md")], force=True) == 1  # a retry upgrades it
    second = s.claim("w2", 60.0)
    assert second is not None and second.path == "b.md"  # not a.md: w1 is still on it
    assert s.claim("w3", 60.0) is None
    assert s.job_states(60.0) == {"a.md": ("queued", ""), "b.md": ("running", "")}
    assert s.complete(first, "indexed")
    third = s.claim("w3", 60.0)
    assert third is not None and third.path == "a.md" and third.force
    assert s.job_states(60.0)["a.md"] == ("running", "")
    s.close()


def test_an_abandoned_job_superseded_by_a_newer_one_is_not_rerun(pg_url: str):
    s = PostgresStore(pg_url)
    s.enqueue([("a.md", "/r", "/r/a.md")])
    dead = s.claim("w1", 60.0)
    assert dead is not None
    s.enqueue([("a.md", "/r", "/r/a.md")])
    s.conn.execute("UPDATE jobs SET heartbeat_at = now() - interval '2 minutes' WHERE id = %s",
                   (dead.id,))
    assert s.job_states(60.0) == {"a.md": ("queued", "")}
    newer = s.claim("w2", 60.0)
    assert newer is not None and newer.id != dead.id
    states = {j["id"]: j["state"] for j in s.jobs()}
    assert states == {dead.id: "cancelled", newer.id: "running"}
    assert not s.complete(dead, "indexed")  # the dead worker's late report is refused
    s.close()


def test_a_lease_expires_by_its_holder_s_length_not_the_claimer_s(pg_url: str):
    s = PostgresStore(pg_url)
    s.enqueue([("a.md", "/r", "/r/a.md")])
    slow = s.claim("worker --lease 300", 300.0)
    assert slow is not None
    s.conn.execute("UPDATE jobs SET heartbeat_at = now() - interval '7 seconds'")
    # a server whose lease is 5 s sees a live job, not an abandoned one
    assert s.claim("server", 5.0) is None
    assert s.job_states(5.0) == {"a.md": ("running", "")}
    assert s.heartbeat(slow)
    s.conn.execute("UPDATE jobs SET heartbeat_at = now() - interval '301 seconds'")
    taken = s.claim("server", 5.0)  # past the holder's own lease: taken over
    assert taken is not None and taken.id == slow.id and taken.attempts == 2
    assert not s.heartbeat(slow)
    s.close()


def test_cancel_refuses_the_running_write_and_hides_the_path(pg_url: str):
    from citeline.errors import LeaseLost

    s = PostgresStore(pg_url)
    s.enqueue([("a.md", "/r", "/r/a.md"), ("b.md", "/r", "/r/b.md")])
    running = s.claim("w1", 60.0)
    assert running is not None and running.path == "a.md"
    s.enqueue([("a.md", "/r", "/r/a.md")])
    b = s.claim("w1", 60.0)
    assert b is not None and s.fail(b, "disk on fire", retry=False)
    assert s.job_states(60.0)["b.md"] == ("failed", "disk on fire")
    assert s.cancel("a.md", "deleted") == 2  # the running job and the queued one
    assert s.cancel("b.md", "deleted") == 1  # its failure is no longer shown
    assert s.job_states(60.0) == {}
    with s.fenced(running), pytest.raises(LeaseLost):
        s.write_document(_record("a.md"), "alpha", _chunks(["alpha"]))
    assert s.document("a.md") is None
    assert not s.complete(running, "indexed")
    s.close()


def test_dense_mode_from_url_or_setting(pg_url: str):
    s = PostgresStore(pg_url)
    assert (s.dense_mode, s.ef_search) == ("hnsw", HNSW_EF_SEARCH)
    s.set_setting("pg.exact", "1")
    s.set_setting("pg.ef_search", "64")
    s.close()
    s = PostgresStore(pg_url)
    assert (s.dense_mode, s.ef_search) == ("exact", 64)
    s.close()
    s = PostgresStore(pg_url + "?exact=0&ef_search=300")  # the URL wins over the setting
    assert (s.dense_mode, s.ef_search) == ("hnsw", 300)
    s.close()
    from citeline.errors import ConfigError

    with pytest.raises(ConfigError, match="ef_search"):
        PostgresStore(pg_url + "?ef_search=5000")


def _with_sentences(chunks: list[StoredChunk], per: int, seed: int) -> list[StoredChunk]:
    """``per`` random unit sentence vectors inside each chunk."""
    from dataclasses import replace

    from citeline.store import StoredSentence

    rng = np.random.default_rng(seed)
    out = []
    for sc in chunks:
        vs = rng.normal(size=(per, sc.vector.shape[0])).astype(np.float32)
        vs /= np.linalg.norm(vs, axis=1, keepdims=True)
        out.append(replace(sc, sentences=tuple(
            StoredSentence(sc.chunk.start, sc.chunk.end, v, f"{sc.text_hash}-s{j}")
            for j, v in enumerate(vs))))
    return out


def test_sentence_search_goes_through_a_partial_hnsw_index_per_model(pg_url: str):
    s = PostgresStore(pg_url)
    assert s.default_sentences  # searched through the index, so on by default
    for d in range(6):
        s.write_document(_record(f"d{d}.md"), "x", _with_sentences(
            _chunks([f"text {d} {i}" for i in range(100)], seed=d), per=4, seed=100 + d))
    odd = ("50%-distilled%s", "w3", 8)  # a "%" in a model key is no placeholder
    s.write_document(_record("b.md", odd), "x", _with_sentences(
        _chunks(["other model"] * 5, dim=8, seed=9), per=3, seed=9))
    key = _key()
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = rng.normal(size=384).astype(np.float32)
        q /= np.linalg.norm(q)
        exact = s.sentence_max_with(q, 50, key, "exact")
        hnsw = s.sentence_max_with(q, 50, key, "hnsw")
        # 1,000 nearest of 2,400 sentences hold far more than 50 chunks: the same top
        assert [i for i, _ in hnsw] == [i for i, _ in exact] and len(exact) == 50
        np.testing.assert_allclose([v for _, v in hnsw], [v for _, v in exact], atol=1e-6)
    q8 = np.ones(8, np.float32) / np.sqrt(8)
    assert s.sentence_max_with(q8, 10, _key(odd), "hnsw") == s.sentence_max_with(
        q8, 10, _key(odd), "exact") and len(s.sentence_max(q8, 10, _key(odd))) == 5
    with pytest.raises(ModelMismatch, match="384-d"):
        s.sentence_max(np.ones(8, np.float32), 10, key)
    # the planner can use each model's index (the key and dimension are literals;
    # at this size it rightly prefers to sort, so the other ways are switched off)
    spaces = {k: int(t.split("_")[1]) for k, (t, _) in s.vector_spaces().items()}
    with psycopg.connect(pg_url, autocommit=True) as c:
        names = {r[0] for r in c.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'sentences'")}
        assert {f"sentences_{i}_hnsw" for i in spaces.values()} <= names
        with c.transaction():
            for way in ("seqscan", "bitmapscan", "sort"):
                c.execute(f"SET LOCAL enable_{way} = off")
            plan = "\n".join(r[0] for r in c.execute(
                f"EXPLAIN SELECT chunk_id FROM sentences WHERE model_key = '{key}' "
                "ORDER BY embedding::vector(384) <=> %s::vector LIMIT 1000",
                (str([1.0] * 384),)).fetchall())
        assert f"sentences_{spaces[key]}_hnsw" in plan, plan
    s.close()


def test_migration_5_indexes_the_sentences_of_an_older_store(pg_url: str):
    s = PostgresStore(pg_url)
    s.write_document(_record("a.md"), "x", _with_sentences(_chunks(["a", "b", "c"]), 2, 1))
    (space_id,) = {int(t.split("_")[1]) for t, _ in s.vector_spaces().values()}
    s.close()
    name = f"sentences_{space_id}_hnsw"
    with psycopg.connect(pg_url, autocommit=True) as c:  # as a store at version 4 was
        c.execute(f"DROP INDEX {name}")
        c.execute("DELETE FROM schema_migrations WHERE version >= 5")
    s = PostgresStore(pg_url)  # 5, and 6 and 7 again (no-ops on a table with their columns)
    assert s.schema_version == len(MIGRATIONS) == 11
    with psycopg.connect(pg_url, autocommit=True) as c:
        (defn,) = c.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s",
                            (name,)).fetchone()
        assert "hnsw" in defn and "vector(384)" in defn and _key() in defn
    q = _chunks(["a"])[0].vector
    assert len(s.sentence_max_with(q, 3, _key(), "hnsw")) == 3
    s.close()


def _with_bare(chunks: list[StoredChunk], seed: int) -> list[StoredChunk]:
    """Each chunk with a random unit header-less vector of its own."""
    from dataclasses import replace

    rng = np.random.default_rng(seed)
    out = []
    for sc in chunks:
        v = rng.normal(size=sc.vector.shape[0]).astype(np.float32)
        out.append(replace(sc, bare_vector=v / np.linalg.norm(v), bare_hash=f"{sc.text_hash}-b"))
    return out


def test_header_less_vectors_are_a_list_of_their_own_through_their_own_hnsw_index(pg_url: str):
    s = PostgresStore(pg_url)
    for d in range(5):
        s.write_document(_record(f"d{d}.md"), "x", _with_bare(
            _chunks([f"text {d} {i}" for i in range(100)], seed=d), seed=50 + d))
    s.write_document(_record("old.md"), "x", _chunks(["no header-less vector"] * 3, seed=9))
    key = _key()
    old_ids = {r[0] for r in s.conn.execute(
        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = 'old.md'")}
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.normal(size=384).astype(np.float32)
        q /= np.linalg.norm(q)
        exact = s.dense_with(q, 20, key, "exact", 40, bare=True)
        hnsw = s.dense_with(q, 20, key, "hnsw", 40, bare=True)
        assert [i for i, _ in hnsw] == [i for i, _ in exact] and len(exact) == 20
        # ranked by the header-less vectors, not the chunk vectors
        assert exact != s.dense_with(q, 20, key, "exact", 40)
        # the chunks written without one are in no header-less list, however deep
        assert not old_ids & {i for i, _ in s.dense_with(q, 1000, key, "exact", 40, bare=True)}
    # the exact cosine of the stored vector, as the chunk list has
    (cid, sim), *_ = s.dense(q, 1, key, bare=True)
    (blob,) = s.conn.execute(
        "SELECT e.vector FROM chunks c JOIN embeddings e ON e.text_hash = c.text_hash || '-b' "
        "WHERE c.id = %s", (cid,)).fetchone()
    assert sim == pytest.approx(float(np.frombuffer(bytes(blob), np.float32) @ q), abs=1e-6)
    (table, _), = s.vector_spaces().values()
    with psycopg.connect(pg_url, autocommit=True) as c, c.transaction():
        for way in ("seqscan", "bitmapscan", "sort"):
            c.execute(f"SET LOCAL enable_{way} = off")
        plan = "\n".join(r[0] for r in c.execute(
            f"EXPLAIN SELECT chunk_id FROM {table} WHERE bare_embedding IS NOT NULL "
            "ORDER BY bare_embedding <=> %s::vector LIMIT 100", (str([1.0] * 384),)).fetchall())
    assert f"{table}_bare_hnsw" in plan, plan
    s.close()


def test_migration_6_gives_an_older_store_header_less_vectors(pg_url: str):
    s = PostgresStore(pg_url)
    s.write_document(_record("a.md"), "x", _chunks(["a", "b", "c"]))
    (table, _), = s.vector_spaces().values()
    s.close()
    with psycopg.connect(pg_url, autocommit=True) as c:  # as a store at version 5 was
        c.execute(f"ALTER TABLE {table} DROP COLUMN bare_embedding")  # drops its index too
        c.execute("DELETE FROM schema_migrations WHERE version >= 6")
    s = PostgresStore(pg_url)
    assert s.schema_version == len(MIGRATIONS) == 11
    q = _chunks(["a"])[0].vector
    assert s.dense(q, 3, _key(), bare=True) == [] and len(s.dense(q, 3, _key())) == 3
    s.write_document(_record("b.md"), "x", _with_bare(_chunks(["d", "e"], seed=4), seed=5))
    assert len(s.dense(q, 10, _key(), bare=True)) == 2
    with psycopg.connect(pg_url, autocommit=True) as c:
        (defn,) = c.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s",
                            (f"{table}_bare_hnsw",)).fetchone()
    assert "hnsw" in defn and "bare_embedding" in defn
    s.close()


def _with_tokens(chunks: list[StoredChunk], seed: int) -> list[StoredChunk]:
    """Each chunk with a random int8 token matrix of its own row count (1..12)."""
    from dataclasses import replace

    from citeline.retrieve.late import quantize

    rng = np.random.default_rng(seed)
    out = []
    for sc in chunks:
        v = rng.normal(size=(int(rng.integers(1, 13)), sc.vector.shape[0]))
        out.append(replace(sc, token_vectors=quantize(v / np.linalg.norm(v, axis=1,
                                                                           keepdims=True))))
    return out


def _doc_ids(s: PostgresStore, path: str) -> list[int]:
    return [r[0] for r in s.conn.execute(
        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = %s "
        "ORDER BY c.ordinal", (path,))]


def test_token_vectors_come_back_byte_identical_by_chunk_and_by_text_hash(pg_url: str):
    s = PostgresStore(pg_url)
    a = _with_tokens(_chunks([f"alpha {i}" for i in range(6)], seed=1), seed=11)
    s.write_document(_record("a.md"), "x", a)
    plain = _chunks(["no token vectors", "none here"], seed=2)
    s.write_document(_record("plain.md"), "x", plain)
    b = _with_tokens(_chunks(["other model", "eight dims"], dim=8, seed=3), seed=13)
    s.write_document(_record("b.md", KEY_B), "x", b)
    a_ids, plain_ids, b_ids = (_doc_ids(s, p) for p in ("a.md", "plain.md", "b.md"))
    assert len({sc.token_vectors.shape[0] for sc in a}) > 1  # row counts differ

    got = s.token_vectors(a_ids + plain_ids + b_ids + [10**9], _key())
    assert set(got) == set(a_ids)  # not the plain chunks, nor the other model's, nor a gone id
    for cid, sc in zip(a_ids, a, strict=True):
        assert got[cid].dtype == np.int8 and got[cid].shape == sc.token_vectors.shape
        assert got[cid].tobytes() == sc.token_vectors.tobytes()
    got_b = s.token_vectors(a_ids + b_ids, _key(KEY_B))
    assert set(got_b) == set(b_ids)
    for cid, sc in zip(b_ids, b, strict=True):
        assert got_b[cid].shape == sc.token_vectors.shape == (sc.token_vectors.shape[0], 8)
        assert got_b[cid].tobytes() == sc.token_vectors.tobytes()
    assert s.token_vectors(a_ids, "never-seen@x/384") == {}
    assert s.token_vectors([], _key()) == {}

    hashes = [sc.text_hash for sc in a + plain + b] + ["nope"]
    cached = s.cached_token_vectors(hashes, _key())
    assert set(cached) == {sc.text_hash for sc in a}
    for sc in a:
        assert cached[sc.text_hash].tobytes() == sc.token_vectors.tobytes()
        assert cached[sc.text_hash].shape == sc.token_vectors.shape
    assert set(s.cached_token_vectors(hashes, _key(KEY_B))) == {sc.text_hash for sc in b}
    assert s.cached_token_vectors([], _key()) == {}

    with pytest.raises(ModelMismatch):  # token vectors that are not the model's dimension
        s.write_document(_record("c.md"), "x",
                         [replace_tokens(_chunks(["x"])[0], np.zeros((2, 8), np.int8))])
    with pytest.raises(ValueError, match="int8"):
        s.write_document(_record("c.md"), "x",
                         [replace_tokens(_chunks(["x"])[0], np.zeros((2, 384), np.float32))])
    with pytest.raises(ModelMismatch):  # no token at all: the late list needs one
        s.write_document(_record("c.md"), "x",
                         [replace_tokens(_chunks(["x"])[0], np.zeros((0, 384), np.int8))])
    assert s.document("c.md") is None
    s.close()


def replace_tokens(sc: StoredChunk, tokens: np.ndarray) -> StoredChunk:
    from dataclasses import replace

    return replace(sc, token_vectors=tokens)


def test_token_vectors_go_with_their_chunks(pg_url: str):
    s = PostgresStore(pg_url)
    old = _with_tokens(_chunks(["first version", "of a"], seed=1), seed=1)
    s.write_document(_record("a.md"), "x", old)
    keep = _with_tokens(_chunks(["another document"], seed=2), seed=2)
    s.write_document(_record("b.md"), "x", keep)
    old_ids = _doc_ids(s, "a.md")
    (keep_id,) = _doc_ids(s, "b.md")
    # re-written: the new chunks' token vectors (the second one has none), not the old
    new = _with_tokens(_chunks(["second version", "of a", "here"], seed=5), seed=5)
    new[1] = replace_tokens(new[1], None)  # type: ignore[arg-type]
    s.write_document(_record("a.md"), "x", new)
    new_ids = _doc_ids(s, "a.md")
    assert not set(old_ids) & set(new_ids)
    got = s.token_vectors(old_ids + new_ids + [keep_id], _key())
    assert set(got) == {new_ids[0], new_ids[2], keep_id}
    assert got[new_ids[2]].tobytes() == new[2].token_vectors.tobytes()
    assert set(s.cached_token_vectors([sc.text_hash for sc in old + new], _key())) == {
        new[0].text_hash, new[2].text_hash}
    s.remove_document("a.md")
    assert set(s.token_vectors(new_ids + [keep_id], _key())) == {keep_id}
    assert s.cached_token_vectors([sc.text_hash for sc in new], _key()) == {}
    (table, _), = s.vector_spaces().values()
    (n,) = s.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE token_vectors IS NOT NULL"
                          ).fetchone()
    assert n == 1
    s.close()


def test_document_frequencies_are_the_bm25_postings_counts(pg_url: str):
    s = PostgresStore(pg_url)
    assert s.document_frequencies(["w0"]) == (0, {})
    texts = _zipf_corpus(90, seed=4)
    docs = [texts[i : i + 30] for i in range(0, 90, 30)]
    for n, d in enumerate(docs):
        s.write_document(_record(f"d{n}.md"), "", _chunks(d, seed=n))
    s.write_document(_record("d1.md"), "", _chunks(docs[1][:10], seed=1))  # replaced
    s.remove_document("d2.md")
    live = docs[0] + docs[1][:10]
    terms = ["w0", "w1", "w7", "w33", "w59", "absent", "the"]
    n, df = s.document_frequencies(terms)
    assert n == len(live) == len(s.all_chunks())
    by_hand = {t: sum(t in set(tokenize(x)) for x in live) for t in terms}
    assert {t: df.get(t, 0) for t in terms} == by_hand
    assert by_hand["w0"] > 0 and "absent" not in df
    assert s.document_frequencies([]) == (n, {})
    s.close()


def test_migration_7_gives_an_older_store_token_vectors(pg_url: str):
    s = PostgresStore(pg_url)
    s.write_document(_record("a.md"), "x", _chunks(["a", "b", "c"]))
    (table, _), = s.vector_spaces().values()
    s.close()
    with psycopg.connect(pg_url, autocommit=True) as c:  # as a store at version 6 was
        c.execute(f"ALTER TABLE {table} DROP COLUMN token_vectors")
        c.execute("DROP INDEX chunks_text_hash")
        c.execute("DELETE FROM schema_migrations WHERE version >= 7")
    s = PostgresStore(pg_url)
    assert s.schema_version == len(MIGRATIONS) == 11
    ids = [r.id for r in s.all_chunks()]
    assert s.token_vectors(ids, _key()) == {}  # the old chunks have none
    b = _with_tokens(_chunks(["d", "e"], seed=4), seed=5)
    s.write_document(_record("b.md"), "x", b)
    got = s.token_vectors(_doc_ids(s, "b.md") + ids, _key())
    assert [got[i].tobytes() for i in _doc_ids(s, "b.md")] == [
        sc.token_vectors.tobytes() for sc in b]
    with psycopg.connect(pg_url, autocommit=True) as c:
        assert c.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'chunks_text_hash'"
                         ).fetchone()
    s.close()


def test_a_document_s_region_map_round_trips_and_migration_8_adds_it(pg_url: str):
    from citeline.types import Region, RegionKind

    regions = [Region(RegionKind.PAGE, 0, 10, page=1, confidence=87.5),
               Region(RegionKind.PAGE, 12, 30, page=2),
               Region(RegionKind.CUE, 30, 40, t_start=1.5, t_end=4.25),
               Region(RegionKind.ROW, 40, 52, sheet="Q1 '24", row=7, first_col=1, last_col=4)]
    s = PostgresStore(pg_url)
    s.write_document(_record("a.pdf"), "x" * 52, _chunks(["a"]), regions)
    assert s.document_regions("a.pdf") == regions
    assert s.document_regions("missing.pdf") is None
    s.close()
    with psycopg.connect(pg_url, autocommit=True) as c:  # as a store at version 7 was
        c.execute("ALTER TABLE documents DROP COLUMN regions")
        c.execute("DELETE FROM schema_migrations WHERE version >= 8")
    s = PostgresStore(pg_url)
    assert s.schema_version == len(MIGRATIONS) == 11
    assert s.document_regions("a.pdf") is None  # written before: located as its chunk
    s.write_document(_record("a.pdf"), "x" * 52, _chunks(["a"]), regions[:2])
    assert s.document_regions("a.pdf") == regions[:2]
    s.close()


def test_set_root_moves_only_the_folder_a_document_is_found_in(pg_url: str):
    s = PostgresStore(pg_url)
    s.write_document(_record("a.md"), "text", _chunks(["a"]))
    before = s.document("a.md")
    s.set_root("a.md", "/moved")
    after = s.document("a.md")
    assert after.root == "/moved" and after.__dict__ | {"root": "/r"} == before.__dict__
    s.close()
