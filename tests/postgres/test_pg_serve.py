"""Several `citeline serve` processes over one PostgreSQL store, driven over real HTTP.

The servers hold no state of their own: documents, the indexing job queue and the
API keys are in the database, uploads in one shared folder. An upload taken by
one server is indexed by whichever server claims it, exactly once, and every
server shows and searches the same collection.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import psycopg
import pytest
from pg_outage import drop_connections

from citeline import cli
from citeline.server.app import create_app
from citeline.server.auth import PgKeyStore
from server_live import LiveServer, wait_settled

N_PER_SERVER = 10
COLOURS = ("red", "green", "blue", "amber", "violet")


def note(i: int, colour: str | None = None) -> bytes:
    colour = colour or COLOURS[i % 5]
    return (f"# Parcel {i}\n\nParcel number {i} has the codename zorblax{i}. It is {colour} "
            f"and weighs {i + 1} kilograms.\n").encode()


def upload(client: httpx.Client, files: dict[str, bytes]) -> None:
    r = client.post("/api/collections/team/documents",
                    files=[("files", (n, b)) for n, b in files.items()])
    assert r.status_code == 202, r.text


def jobs_of(url: str) -> list[tuple[str, str, str, str, bool]]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT path, state, outcome, worker, force FROM jobs ORDER BY id").fetchall()


def top_document(client: httpx.Client, query: str) -> str:
    r = client.post("/api/collections/team/search", json={"query": query, "k": 3})
    assert r.status_code == 200, r.text
    return r.json()["hits"][0]["document"]


@pytest.fixture
def pair(pg_url, embedder, tmp_path):
    """Two servers (in-process, sharing the session's model) over one store and one
    uploads folder, with keys created in the database."""
    files = tmp_path / "uploads"
    keys = PgKeyStore(pg_url)
    admin, _ = keys.create(("*",), "write", "admin")
    reader, _ = keys.create(("team",), "read", "reader")
    keys.close()
    servers = [
        LiveServer(create_app(store_url=pg_url, files_dir=files, name="team",
                              embedder=embedder)).start()
        for _ in range(2)
    ]
    yield servers, admin, reader, files
    for s in servers:
        s.stop()


def test_two_servers_share_uploads_jobs_keys_and_searches(pair, pg_url):
    (a, b), admin, reader, files = pair
    ca, cb = a.client(admin), b.client(admin)
    assert ca.get("/api/version").json()["mode"] == "shared"
    ready = cb.get("/readyz")
    assert ready.status_code == 200 and ready.json()["database_reachable"] is True
    assert ca.get("/api/collections").json()["can_create"] is False
    assert ca.post("/api/collections", json={"name": "more"}).status_code == 400

    upload(ca, {f"note-{i:02d}.md": note(i) for i in range(N_PER_SERVER)})
    upload(cb, {f"note-{i:02d}.md": note(i) for i in range(N_PER_SERVER, 2 * N_PER_SERVER)})
    docs_a, docs_b = wait_settled(ca, "team"), wait_settled(cb, "team")
    assert docs_a == docs_b and len(docs_a) == 2 * N_PER_SERVER
    assert {d["state"] for d in docs_a.values()} == {"indexed"}
    jobs = jobs_of(pg_url)
    assert Counter(p for p, *_ in jobs) == {f"note-{i:02d}.md": 1 for i in range(20)}
    assert {(state, outcome) for _, state, outcome, _, _ in jobs} == {("done", "indexed")}
    assert len({worker for *_, worker, _ in jobs}) == 2  # both servers indexed some

    # a document uploaded to one server is found through the other
    assert top_document(cb, "Which parcel has the codename zorblax3?") == "note-03.md"
    assert top_document(ca, "Which parcel has the codename zorblax14?") == "note-14.md"

    # a re-upload through A replaces the content B searches
    upload(ca, {"note-07.md": note(7, "ultramarine")})
    wait_settled(cb, "team")
    r = cb.post("/api/collections/team/search", json={"query": "zorblax7 colour", "k": 1})
    assert "ultramarine" in r.json()["hits"][0]["content"]

    # a delete through B is seen by A, and removes the shared file
    assert cb.delete("/api/collections/team/documents/note-05.md").status_code == 200
    assert "note-05.md" not in wait_settled(ca, "team")
    assert not (files / "note-05.md").exists()
    assert top_document(ca, "Which parcel has the codename zorblax5?") != "note-05.md"

    # a retry through B re-indexes an unchanged document (a forced job)
    assert cb.post("/api/collections/team/documents/note-01.md/retry").status_code == 202
    wait_settled(ca, "team")
    retried = [j for j in jobs_of(pg_url) if j[0] == "note-01.md"]
    assert [(s, o, f) for _, s, o, _, f in retried] == [("done", "indexed", False),
                                                        ("done", "indexed", True)]

    # keys live in the database: a key created or revoked anywhere counts everywhere
    cr = b.client(reader)
    assert cr.post("/api/collections/team/search", json={"query": "zorblax2"}).status_code == 200
    assert cr.post("/api/collections/team/documents",
                   files=[("files", ("x.md", b"# x\n\nx\n"))]).status_code == 403
    assert cli.main(["keys", "revoke", "--store", pg_url, reader.split("_")[1]]) == 0
    assert a.client(reader).get("/api/collections").status_code == 401
    keys = PgKeyStore(pg_url)
    try:  # a store that has held keys stays keyed: revoking every key locks, never opens
        assert keys.any_created() and keys.any_active()  # the admin's is still active
        assert keys.revoke(admin.split("_")[1]) and not keys.any_active() and keys.any_created()
        assert b.client().get("/api/collections").status_code == 401
    finally:
        keys.close()


def test_a_failed_document_shows_its_reason_on_every_server(pair, pg_url):
    (a, b), admin, _, _ = pair
    ca, cb = a.client(admin), b.client(admin)
    upload(ca, {"blank.md": b"   \n\n  \n", "good.md": note(1)})
    docs = wait_settled(cb, "team")
    assert docs["good.md"]["state"] == "indexed"
    assert docs["blank.md"]["state"] == "failed" and docs["blank.md"]["reason"]
    assert wait_settled(ca, "team")["blank.md"]["reason"] == docs["blank.md"]["reason"]


def test_a_transcript_uploaded_after_its_recording_indexes_the_recording(pair):
    (a, b), admin, _, _ = pair
    ca, cb = a.client(admin), b.client(admin)
    upload(ca, {"depot.mp3": b"ID3\x03\x00"})
    assert "no transcript" in wait_settled(ca, "team")["depot.mp3"]["reason"]
    upload(cb, {"depot.vtt": b"WEBVTT\n\n00:00:05.000 --> 00:00:08.000\nThe tram depot opens at six.\n"})
    docs = wait_settled(ca, "team")
    assert docs["depot.mp3"]["state"] == "indexed" and "depot.vtt" not in docs
    r = ca.post("/api/collections/team/search", json={"query": "tram depot opening", "k": 1})
    assert r.json()["hits"][0]["document"] == "depot.mp3"


def test_a_database_that_is_down_is_503_and_a_restart_costs_no_request(pair, pg_url):
    (a, _), admin, _, _ = pair
    ca = a.client(admin)
    assert ca.get("/api/collections/team/documents").status_code == 200
    drop_connections(pg_url, allow=False)
    try:
        r = ca.post("/api/collections/team/search", json={"query": "parcel"})
        assert r.status_code == 503 and r.json()["error"]["code"] == "store_unavailable"
        assert "postgresql://" in r.json()["error"]["message"]  # as given, not a folded path
    finally:
        drop_connections(pg_url, allow=True)
    # back up: the connections the outage closed are replaced, no request fails for them
    for _ in range(3):
        assert ca.get("/api/collections/team/documents").status_code == 200


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(pg_url: str, files: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "citeline", "serve", "--store", pg_url, "--files", str(files),
         "--name", "team", "--port", str(port), "--log-level", "warning", *extra],
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    return proc, f"http://127.0.0.1:{port}"


def _wait_ready(proc: subprocess.Popen, url: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited {proc.returncode}: {proc.stdout.read()}")
        try:
            if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"{url} not ready after {timeout}s")


@pytest.mark.slow
def test_separate_serve_processes_over_one_store(pg_url, tmp_path):
    """Real `citeline serve` processes: one takes uploads and answers but does not
    index (--no-index-worker), the other indexes what the first one queued."""
    files = tmp_path / "uploads"
    front, front_url = _serve(pg_url, files, "--no-index-worker")
    back, back_url = _serve(pg_url, files)
    try:
        _wait_ready(front, front_url)
        _wait_ready(back, back_url)
        with httpx.Client(base_url=front_url, timeout=60) as c:
            upload(c, {f"note-{i:02d}.md": note(i) for i in range(4)})
            docs = wait_settled(c, "team", timeout=120)
            assert {d["state"] for d in docs.values()} == {"indexed"} and len(docs) == 4
            assert top_document(c, "Which parcel is called zorblax2?") == "note-02.md"
        workers = {w for *_, w, _ in jobs_of(pg_url)}
        assert len(workers) == 1 and str(back.pid) in next(iter(workers))
    finally:
        for p in (front, back):
            p.send_signal(signal.SIGTERM)
        for p in (front, back):
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()


def test_serve_store_flag_errors(run, pg_url, monkeypatch):
    code, _, err = run("serve", "--store", pg_url)
    assert code != 0 and "--files DIR" in err
    monkeypatch.setenv("CITELINE_STORE", pg_url)
    code, _, err = run("serve")  # the store comes from the environment
    assert code != 0 and "--files DIR" in err
    monkeypatch.delenv("CITELINE_STORE")
    code, _, err = run("serve")
    assert code != 0 and "one of --index DIR, --data DIR or --store URL" in err
    code, _, err = run("serve", "--index", "somewhere", "--files", "x")
    assert code != 0 and "go with --store" in err
