"""Several workers over one PostgreSQL store: safe claims, leases, searches while indexing."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path

import psycopg
import pytest
from pg_outage import drop_connections

from citeline import scale
from citeline.errors import LeaseLost
from citeline.pipeline import Index
from citeline.store.postgres import PostgresStore

# 25 jobs a worker while eight clients search: enough for every worker to claim while the
# others write (the suite's time is what a larger queue would add, ~0.3 s a document)
N_DOCS = 100
N_WORKERS = 4
N_CLIENTS = 8
COLOURS = ("red", "green", "blue", "amber", "violet")


def _write_notes(folder: Path, n: int) -> None:
    folder.mkdir()
    for i in range(n):
        (folder / f"note-{i:03d}.md").write_text(
            f"# Note {i}\n\nParcel {i} is {COLOURS[i % 5]} and weighs {i + 1} kilograms.\n"
        )


def test_four_workers_index_while_eight_clients_search(pg_url, embedder, tmp_path):
    notes = tmp_path / "notes"
    _write_notes(notes, N_DOCS)
    setup = Index(pg_url, embedder=embedder)
    queued, skipped = scale.enqueue(setup, notes)
    assert queued == N_DOCS and skipped == []
    assert scale.enqueue(setup, notes)[0] == 0  # already queued: not twice

    reports: list[scale.WorkerReport] = []
    worker_errors: list[BaseException] = []
    search_errors: list[BaseException] = []
    searches = [0] * N_CLIENTS
    done = threading.Event()
    lock = threading.Lock()

    def worker(n: int) -> None:
        idx = Index(pg_url, embedder=embedder)  # its own store, its own connections
        try:
            r = scale.run_worker(idx, name=f"w{n}", lease_seconds=30.0, idle_exit=1.0)
            with lock:
                reports.append(r)
        except BaseException as exc:  # noqa: BLE001 - asserted below
            worker_errors.append(exc)
        finally:
            idx.close()

    def client(n: int) -> None:
        idx = Index(pg_url, embedder=embedder)
        rng = random.Random(n)
        try:
            while not done.is_set():
                i = rng.randrange(N_DOCS)
                mode = rng.choice(("dense", "bm25", "hybrid"))
                hits = idx.search(f"parcel {i} weighs {i + 1} kilograms", k=5, mode=mode).hits
                for h in hits:  # every hit is a whole, committed document
                    assert h.content.startswith("# Note ") and h.content.endswith("kilograms.")
                searches[n] += 1
                time.sleep(0.02)
        except BaseException as exc:  # noqa: BLE001 - asserted below
            search_errors.append(exc)
        finally:
            idx.close()

    clients = [threading.Thread(target=client, args=(n,)) for n in range(N_CLIENTS)]
    workers = [threading.Thread(target=worker, args=(n,)) for n in range(N_WORKERS)]
    for t in clients + workers:
        t.start()
    for t in workers:
        t.join()
    done.set()
    for t in clients:
        t.join()

    assert worker_errors == [] and search_errors == []
    assert all(n > 0 for n in searches)
    indexed = [p for r in reports for p in r.indexed]
    assert len(indexed) == len(set(indexed)) == N_DOCS  # each document written exactly once
    assert sum(r.jobs for r in reports) == N_DOCS
    assert all(r.errors == [] and r.lost == [] and r.failed == [] for r in reports)
    assert sum(1 for r in reports if r.jobs) >= 2  # the work really was shared
    store = setup.store
    docs = store.documents()
    assert len(docs) == N_DOCS and {d.state for d in docs} == {"indexed"}
    assert all(d.n_chunks == 1 for d in docs) and store.stats().chunks == N_DOCS
    assert store.job_counts() == {"done": N_DOCS}
    assert {j["attempts"] for j in store.jobs()} == {1}
    with psycopg.connect(pg_url) as c:
        assert c.execute("SELECT n_chunks FROM bm25_totals").fetchone()[0] == N_DOCS
        assert c.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == N_DOCS
    hit = setup.search("parcel 67 weighs 68 kilograms", k=1).hits[0]
    assert hit.document == "note-067.md"
    setup.close()


def test_a_crashed_workers_job_is_taken_over_and_its_late_write_refused(pg_url, embedder, tmp_path):
    notes = tmp_path / "notes"
    _write_notes(notes, 2)
    idx = Index(pg_url, embedder=embedder)
    assert scale.enqueue(idx, notes)[0] == 2
    store: PostgresStore = idx.store  # type: ignore[assignment]
    dead = store.claim("dead-worker", lease_seconds=0.5)  # claims note-000, then "crashes"
    assert dead is not None and dead.path == "note-000.md"
    time.sleep(0.6)
    other = Index(pg_url, embedder=embedder)
    report = scale.run_worker(other, name="survivor", lease_seconds=0.5, idle_exit=0.5)
    assert sorted(report.indexed) == ["note-000.md", "note-001.md"] and report.lost == []
    jobs = {j["path"]: j for j in store.jobs()}
    assert jobs["note-000.md"]["attempts"] == 2 and jobs["note-000.md"]["worker"] == "survivor"
    assert {j["state"] for j in jobs.values()} == {"done"}
    # the stalled worker wakes up (and the file changed meanwhile, so it would write):
    # its write and its completion are both refused
    before = [(r.id, r.content) for r in store.all_chunks()]
    (notes / "note-000.md").write_text("# Note 0\n\nRewritten by the stalled worker.\n")
    with store.fenced(dead), pytest.raises(LeaseLost, match="taken over"):
        idx.index_files([(notes / "note-000.md", "note-000.md")], str(notes))
    assert not store.complete(dead, "indexed") and not store.heartbeat(dead)
    assert [(r.id, r.content) for r in store.all_chunks()] == before
    idx.close()
    other.close()


def test_connections_a_restart_closed_are_replaced_and_a_worker_rides_out_an_outage(
        pg_url, embedder, tmp_path):
    store = PostgresStore(pg_url)
    store.enqueue([("a.md", "/r", "/r/a.md")])
    drop_connections(pg_url)
    assert store.job_states(60.0) == {"a.md": ("queued", "")}  # a new connection, no error
    store.cancel("a.md", "not a file")
    store.close()

    notes = tmp_path / "notes"
    _write_notes(notes, 2)
    idx = Index(pg_url, embedder=embedder)
    assert scale.enqueue(idx, notes)[0] == 2
    drop_connections(pg_url, allow=False)  # the database is down ...
    back = threading.Timer(2.5, drop_connections, (pg_url, True))  # ... and back up
    back.start()
    try:
        report = scale.run_worker(idx, name="w", idle_exit=2.0)
    finally:
        back.join()
    assert report.outages and "cannot connect" in report.outages[0]
    assert sorted(report.indexed) == ["note-000.md", "note-001.md"]  # done once it was back
    idx.close()


def test_the_outage_wait_starts_over_once_the_database_is_back(
        pg_url, embedder, monkeypatch, caplog):
    # a long-lived worker (the server's) must not wait the longest at the start of a
    # later, unrelated outage because earlier ones were long
    monkeypatch.setattr(scale, "OUTAGE_WAIT_SECONDS", 0.05)
    monkeypatch.setattr(scale, "OUTAGE_WAIT_MAX", 0.2)
    idx = Index(pg_url, embedder=embedder)  # an empty queue: a claim that answers is success
    timeline = [threading.Timer(t, drop_connections, (pg_url, allow))
                for t, allow in ((0.0, False), (1.5, True), (2.5, False), (3.5, True))]
    for timer in timeline:
        timer.start()
    caplog.set_level("WARNING", logger="citeline.worker")
    try:
        report = scale.run_worker(idx, name="w", idle_exit=2.0)
    finally:
        for timer in timeline:
            timer.join()
    waits = [float(r.getMessage().rsplit(" in ", 1)[1].split()[0]) for r in caplog.records
             if "claiming again" in r.getMessage()]
    restarts = [i for i in range(1, len(waits)) if waits[i] < waits[i - 1]]
    assert len(restarts) == 1, waits  # two outages; the second starts from the shortest wait
    assert waits[0] == waits[restarts[0]] == 0.05 < waits[restarts[0] - 1], waits
    assert len(report.outages) == len(waits) and report.jobs == 0
    idx.close()


def test_a_job_that_keeps_killing_workers_is_given_up(pg_url, embedder, tmp_path):
    notes = tmp_path / "notes"
    _write_notes(notes, 1)
    idx = Index(pg_url, embedder=embedder)
    scale.enqueue(idx, notes)
    store: PostgresStore = idx.store  # type: ignore[assignment]
    for _ in range(scale.MAX_ATTEMPTS):
        assert store.claim("doomed", lease_seconds=0.01) is not None
        time.sleep(0.05)
    report = scale.run_worker(idx, name="last", lease_seconds=0.01, idle_exit=0.2)
    assert report.indexed == [] and report.errors == [("note-000.md", "too many attempts")]
    (job,) = list(store.jobs())
    assert job["state"] == "failed" and "gave up after 3 attempts" in job["error"]
    idx.close()


def test_enqueue_keys_a_file_as_index_does(pg_url, embedder, clean_corpus, tmp_path):
    """One file is one document: queued from a subfolder and then from its parent, it
    moves to the parent's key (as `index` moves it), never two documents of one file."""
    idx = Index(pg_url, embedder=embedder)
    guides = clean_corpus / "guides"
    assert scale.enqueue(idx, guides) == (1, [])
    assert scale.run_worker(idx, idle_exit=0.5).indexed == ["bicycle.md"]
    assert scale.enqueue(idx, clean_corpus)[0] == 3
    scale.run_worker(idx, idle_exit=0.5)
    docs = sorted(d.path for d in idx.store.documents())
    assert docs == ["guides/bicycle.md", "kettle.md", "notes.txt"]
    hits = idx.search("oil the chain", k=3).hits
    assert hits[0].document == "guides/bicycle.md"
    assert len({h.content for h in hits}) == len(hits)  # no chunk found twice
    # the subfolder queued again keeps the parent's key
    (guides / "bicycle.md").write_text((guides / "bicycle.md").read_text() + "\nOil weekly.\n")
    assert scale.enqueue(idx, guides) == (1, [])
    assert [j["path"] for j in idx.store.jobs() if j["state"] == "queued"] == ["guides/bicycle.md"]
    scale.run_worker(idx, idle_exit=0.5)
    assert sorted(d.path for d in idx.store.documents()) == docs
    # a file of the same name from another folder, while one is queued: said, not dropped
    other = tmp_path / "other"
    other.mkdir()
    (other / "kettle.md").write_text("# Another kettle\n\nIt whistles.\n")
    (clean_corpus / "kettle.md").write_text("# Kettle\n\nDescale it monthly.\n")
    assert scale.enqueue(idx, clean_corpus)[0] == 3  # the worker skips what is unchanged
    queued, skipped = scale.enqueue(idx, other)
    assert queued == 0 and skipped == [("kettle.md", f"{clean_corpus.resolve()}/kettle.md is "
                                        "queued under the same name; index the folder that "
                                        "holds both instead")]
    idx.close()


def test_enqueue_and_worker_commands(pg_url, embedder, clean_corpus, capsys):
    from citeline import cli

    (clean_corpus / "data.csv.bin").write_bytes(b"\x00")
    assert cli.main(["enqueue", str(clean_corpus), "--store", pg_url, "--json"]) == 0
    queued = json.loads(capsys.readouterr().out)
    assert queued["queued"] == 3 and [s["document"] for s in queued["skipped"]] == ["data.csv.bin"]
    code = cli.main(["worker", "--store", pg_url, "--idle-exit", "0.5", "--json", "-q"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["jobs"] == 3 and report["indexed"] == 3 and report["errors"] == []
    assert cli.main(["search", "oil the chain", "--store", pg_url, "-k", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"][0]["document"] == "guides/bicycle.md"
