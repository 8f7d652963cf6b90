"""Scale-out operations over :mod:`citeline.pipeline`: migrate, copy, enqueue, work.

Several workers (processes or machines) share one PostgreSQL store::

    citeline enqueue docs/ --store URL       # one job per supported file
    citeline worker --store URL              # on each machine: claim, index, repeat

A worker claims the oldest open job for a lease (``SELECT ... FOR UPDATE SKIP
LOCKED``: two workers never get the same job), heartbeats while it works, and
writes the document under a fence: if its lease expired and another worker took
the job over, its write is refused (:class:`citeline.errors.LeaseLost`). A job
whose worker died is re-claimed once its lease expires; unchanged content is
then skipped, so a document is written once. The file named by a job is read by
whichever worker claims it, so every worker must see the same paths (a shared
or identical mount).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from citeline.errors import CiteError, ConfigError, LeaseLost, StoreUnavailable
from citeline.extract import why_unsupported
from citeline.pipeline import Index, IndexReport
from citeline.store.jobs import Job, JobQueue

log = logging.getLogger("citeline.worker")

# Seconds without a heartbeat after which a running job counts as abandoned. One
# file (extract + embed a few hundred chunks) takes seconds, so a minute is a
# generous margin before a live worker's job could be taken away from it.
LEASE_SECONDS = 60.0
# Heartbeats per lease: three, so two can be missed (a long GC pause, a slow
# commit) before the lease runs out.
HEARTBEATS_PER_LEASE = 3
# Claims per job before it is declared failed: a file that crashes its worker
# every time must not take the whole pool down with it forever.
MAX_ATTEMPTS = 3
# Seconds an idle worker sleeps between claims.
POLL_SECONDS = 0.5
# Seconds a worker waits after the database failed it (a restart, a failover) before it
# claims again, doubling up to the most: it rides out an outage instead of exiting.
OUTAGE_WAIT_SECONDS = 1.0
OUTAGE_WAIT_MAX = 30.0


def migrate_store(url: str) -> int:
    """Create or upgrade the schema at ``url`` (and any missing HNSW index); returns
    the schema version."""
    from citeline.store.postgres import PostgresStore

    if "://" not in url:
        raise ConfigError(f"--store: expected a postgresql:// URL, got {url!r}")
    store = PostgresStore(url, create=True)
    try:
        store.build_vector_indexes()  # recreates an HNSW index dropped to re-tune it
        return store.schema_version
    finally:
        store.close()


def copy_index(src_dir: str | Path, dst_url: str):  # type: ignore[no-untyped-def]
    """Copy a SQLite index folder into an empty PostgreSQL store, without re-embedding."""
    from citeline.store.copy import copy_sqlite_to_postgres

    if "://" in str(src_dir):
        raise ConfigError(f"--from: expected an index folder, got {src_dir!r}")
    if not dst_url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"--to: expected a postgresql:// URL, got {dst_url!r}")
    return copy_sqlite_to_postgres(src_dir, dst_url)


def job_queue(idx: Index) -> JobQueue:
    """The store's indexing job queue (a ConfigError when the store has none)."""
    store = idx.store
    if not isinstance(store, JobQueue):
        raise ConfigError(
            f"{idx.location}: the indexing job queue needs a PostgreSQL store (--store URL)"
        )
    return store


def enqueue(idx: Index, path: str | Path) -> tuple[int, list[tuple[str, str]]]:
    """Queue every supported file under ``path``; returns (queued, skipped)."""
    queue = job_queue(idx)
    root = Path(path).expanduser()
    if not root.exists():
        raise ConfigError(f"{root}: no such file or folder")
    root = root.resolve() if root.is_dir() else root.parent.resolve() / root.name
    skipped: list[tuple[str, str]] = []
    if not root.is_dir():
        files, base = [(root, root.name)], root.parent
    else:  # the same walk as `index`: one document per file, unlistable folders named
        seen = IndexReport()
        files, base = idx.listed(root, seen), root
        skipped += seen.skipped + seen.unreadable
    why = {rel: why_unsupported(f) for f, rel in files}
    skipped += [(rel, w) for rel, w in why.items() if w is not None]
    wanted = [(f, rel) for f, rel in files if why[rel] is None]
    # keyed as `index` keys them: a file a folder above already holds keeps that key, and
    # one held by a folder below moves here (the worker removes the old key once it is in)
    own, kept_key, _ = idx.keys(wanted, base)
    todo = [(rel, str(base), str(f)) for f, rel in own] + [
        (rel, outer, str(f)) for outer, pairs in kept_key.items() for f, rel in pairs]
    queued = queue.queued_roots([rel for rel, _, _ in todo])
    clash = [(rel, f"{queued[rel]}/{rel} is queued under the same name; index the folder "
                   "that holds both instead") for rel, root, _ in todo
             if rel in queued and queued[rel] != root]
    skipped += clash
    clashed = {rel for rel, _ in clash}
    return queue.enqueue([t for t in todo if t[0] not in clashed]), skipped


@dataclass
class WorkerReport:
    jobs: int = 0
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # documents that failed
    errors: list[tuple[str, str]] = field(default_factory=list)  # jobs that errored
    lost: list[str] = field(default_factory=list)  # leases taken over by another worker
    outages: list[str] = field(default_factory=list)  # the database failed a claim or report
    chunks_written: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "jobs": self.jobs, "indexed": len(self.indexed), "unchanged": len(self.unchanged),
            "failed": [{"document": p, "reason": r} for p, r in self.failed],
            "errors": [{"document": p, "error": e} for p, e in self.errors],
            "lost": self.lost, "outages": self.outages, "chunks_written": self.chunks_written,
            "seconds": round(self.seconds, 3),
        }


class _Heartbeat:
    """One thread per worker that extends the current job's lease."""

    def __init__(self, queue: JobQueue, interval: float) -> None:
        self.queue = queue
        self.interval = interval
        self.job: Job | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="citeline-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            job = self.job
            if job is not None:
                try:
                    self.queue.heartbeat(job)
                except (CiteError, OSError):
                    # a missed beat only shortens the lease; the fenced write decides
                    continue

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def default_worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


def run_worker(
    idx: Index,
    *,
    name: str | None = None,
    lease_seconds: float = LEASE_SECONDS,
    idle_exit: float | None = None,
    max_jobs: int | None = None,
    stop: threading.Event | None = None,
    on_job: Callable[[Job, str], None] | None = None,
) -> WorkerReport:
    """Claim and index jobs until ``stop`` is set, ``max_jobs`` are done, or the queue
    has been empty for ``idle_exit`` seconds (None: wait for work forever)."""
    if lease_seconds <= 0:
        raise ConfigError(f"--lease: must be positive, got {lease_seconds}")
    queue = job_queue(idx)
    name = name or default_worker_name()
    report = WorkerReport()
    t0 = time.perf_counter()
    idle_since = time.monotonic()
    beat = _Heartbeat(queue, lease_seconds / HEARTBEATS_PER_LEASE)
    down = 0  # claims failed in a row: the wait doubles within one outage, not across them
    try:
        while not (stop is not None and stop.is_set()):
            if max_jobs is not None and report.jobs >= max_jobs:
                break
            try:
                job = queue.claim(name, lease_seconds)
                outcome = None if job is None else _work(idx, queue, job, beat, report)
                down = 0
            except StoreUnavailable as exc:
                # the database went away: wait and claim again (a job it took down with
                # it is claimed again when its lease runs out)
                report.outages.append(str(exc))
                down += 1
                wait = min(OUTAGE_WAIT_MAX, OUTAGE_WAIT_SECONDS * 2 ** min(down - 1, 16))
                log.warning("citeline worker: %s; claiming again in %.3g s", exc, wait)
                if stop is not None:
                    stop.wait(wait)
                else:
                    time.sleep(wait)
                idle_since = time.monotonic()  # an outage is not an empty queue
                job = outcome = None
            if job is None:
                if idle_exit is not None and time.monotonic() - idle_since >= idle_exit:
                    break
                time.sleep(POLL_SECONDS)
                continue
            report.jobs += 1
            assert outcome is not None
            if on_job is not None:
                on_job(job, outcome)
            idle_since = time.monotonic()
    finally:
        beat.stop()
        report.seconds = time.perf_counter() - t0
    return report


def _work(idx: Index, queue: JobQueue, job: Job, beat: _Heartbeat, report: WorkerReport) -> str:
    if job.attempts > MAX_ATTEMPTS:
        queue.fail(job, f"gave up after {MAX_ATTEMPTS} attempts (workers died on it)", False)
        report.errors.append((job.path, "too many attempts"))
        return "failed"
    beat.job = job
    try:
        with queue.fenced(job):
            r = idx.index_files([(Path(job.file), job.path)], job.root, force=job.force)
    except LeaseLost:
        report.lost.append(job.path)
        return "lost"
    except (CiteError, OSError) as exc:
        retry = isinstance(exc, StoreUnavailable | OSError) and job.attempts < MAX_ATTEMPTS
        queue.fail(job, str(exc), retry)
        report.errors.append((job.path, str(exc)))
        return "error"
    finally:
        beat.job = None
    report.indexed += r.indexed
    report.unchanged += r.unchanged
    report.failed += r.failed
    report.chunks_written += r.chunks_written
    if r.indexed:
        outcome = "indexed"
    elif r.unchanged:
        outcome = "unchanged"
    elif r.failed:
        outcome = "failed: " + r.failed[0][1]
    else:
        outcome = "skipped: " + (r.skipped[0][1] if r.skipped else "nothing to do")
    if not queue.complete(job, outcome):
        report.lost.append(job.path)
        return "lost"
    return outcome
