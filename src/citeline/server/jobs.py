"""The background indexing queue: uploads answer at once, one worker indexes.

One worker thread serves every collection: the embedding model is a single
lock-protected torch module, so a second indexing thread would only wait for
it while stealing CPU from searches.

States a document can be in while the queue holds it: ``pending`` (waiting)
and ``indexing`` (the worker is on it). When the worker is done the index's
own record is the truth (``indexed`` / ``failed`` with its reason, chunk count
counted by the indexer), except for a file the indexer *skipped* (no
extractor would take it): the queue keeps that one as ``failed`` with the
reason, since the index holds no record of it — except a transcript uploaded
with its media file, which is indexed as that media file's text and so is not
listed on its own.

Each queued entry carries a sequence number: a document re-uploaded while it
is being indexed stays ``pending`` (the newer job), and the finishing older
job does not clear it.

Deleting a collection stops the document of it being indexed at the run's next
safe point (:class:`~citeline.errors.IndexingCancelled`): the job ends without
a state or a file written, and the collection's queued jobs are forgotten.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from citeline.errors import CiteError, IndexingCancelled
from citeline.extract.transcript import is_sidecar_skip
from citeline.server.collections import Collection, Collections
from citeline.store.jobs import JobQueue
from citeline.types import DocState

log = logging.getLogger("citeline.server")

JobKind = Literal["index", "retry"]


@dataclass(frozen=True)
class JobState:
    state: str  # DocState.PENDING / INDEXING / FAILED
    reason: str
    seq: int


class IndexQueue:
    def __init__(self, collections: Collections) -> None:
        self.collections = collections
        self._q: queue.Queue[tuple[str, str, JobKind, int] | None] = queue.Queue()
        self._states: dict[tuple[str, str], JobState] = {}
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()  # set once the embedding model is loaded
        self.on_done: Callable[[str, str], None] | None = None  # tests/metrics hook

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="citeline-indexer", daemon=True)
            self._thread.start()

    def model_ready(self) -> None:
        self._ready.set()

    def stop(self, timeout: float = 10.0) -> None:
        if self._thread is not None:
            self._q.put(None)
            self._thread.join(timeout)
            self._thread = None

    # --- queueing -----------------------------------------------------------------------

    def submit(self, collection: str, document: str, kind: JobKind = "index") -> None:
        seq = next(self._seq)
        c = self.collections.get(collection)
        with self._lock:
            self._states[(collection, document)] = JobState(DocState.PENDING, "", seq)
            if c is not None:
                c.mark_pending(document)  # under the lock: the worker clears it under it
        self._q.put((collection, document, kind, seq))

    def states(self, collection: str) -> dict[str, JobState]:
        with self._lock:
            return {d: s for (c, d), s in self._states.items() if c == collection}

    def forget(self, collection: str, document: str | None = None) -> None:
        """Drop queue states (a deleted document, or every document of a deleted collection)."""
        with self._lock:
            for key in list(self._states):
                if key[0] == collection and (document is None or key[1] == document):
                    del self._states[key]

    def busy(self) -> int:
        with self._lock:
            return sum(1 for s in self._states.values() if s.state != DocState.FAILED)

    def recover(self) -> int:
        """Queue uploaded files the index holds no record of, uploads marked pending (their
        indexing never ended), and re-uploads the index holds an older version of (the
        indexed version's file kept aside, the document not failed since; what a server
        from before the markers left): a restart lost their jobs."""
        n = 0
        for name in self.collections.names():
            c = self.collections.get(name)
            if c is None or not c.files.is_dir():
                continue
            states = {s.record.path: s.state for s in c.index.status()}
            for tmp in c.files.glob(".upload-*"):
                tmp.unlink(missing_ok=True)  # half-received uploads of a previous run
            for marker in c.pending.glob("*"):
                if not (c.files / marker.name).is_file():  # its upload was deleted
                    marker.unlink(missing_ok=True)
            for f in sorted(c.files.iterdir()):
                # an upload is a file the server wrote: a link placed there is not one
                if not f.is_file() or f.is_symlink() or f.name.startswith("."):
                    continue
                waiting = (c.kept / f.name).is_file() and states.get(f.name) != DocState.FAILED
                if f.name not in states or waiting or c.is_pending(f.name):
                    self.submit(name, f.name)
                    n += 1
        return n

    # --- the worker ---------------------------------------------------------------------

    def _set(self, key: tuple[str, str], seq: int, state: JobState | None) -> None:
        with self._lock:
            cur = self._states.get(key)
            if cur is None or cur.seq != seq:
                return  # re-uploaded, retried or deleted meanwhile: the newer entry stands
            if state is None:
                del self._states[key]
            else:
                self._states[key] = state

    def _run(self) -> None:
        self._ready.wait()
        while True:
            item = self._q.get()
            if item is None:
                return
            name, document, kind, seq = item
            key = (name, document)
            with self._lock:
                cur = self._states.get(key)
                if cur is None or cur.seq != seq:
                    continue  # superseded or deleted before its turn
            c = self.collections.get(name)
            if c is None:
                self.forget(name)
                continue
            try:
                result = self._index_one(c, document, kind, key, seq)
            except IndexingCancelled as exc:  # its collection is being deleted
                log.info("indexing %s/%s stopped: %s", name, document, exc)
                result = None
            except CiteError as exc:
                result = JobState(DocState.FAILED, str(exc), seq)
            except Exception as exc:  # the worker must survive any one document
                log.exception("indexing %s/%s crashed", name, document)
                result = JobState(DocState.FAILED, f"indexer crashed: {type(exc).__name__}: {exc}", seq)
            self._set(key, seq, result)
            # under the collection's lock: a delete of it is then not between the check
            # and the unlink (of a marker in a new collection's folder of the name)
            with c.lock, self._lock:
                cur = self._states.get(key)
                if not c.deleting.is_set() and (cur is None or cur.seq == seq):
                    c.clear_pending(document)  # no newer upload of it waits
            if self.on_done is not None:
                self.on_done(name, document)

    def _index_one(
        self, c: Collection, document: str, kind: JobKind, key: tuple[str, str], seq: int
    ) -> JobState | None:
        with c.lock, c.doc_lock(document):
            c.stop_if_deleted()  # deleted while this job waited for the lock
            self._set(key, seq, JobState(DocState.INDEXING, "", seq))
            path: Path = c.files / document
            if kind == "index" and path.is_symlink():  # not written by an upload: it may
                # point anywhere
                return JobState(DocState.FAILED, "a symbolic link, not an uploaded file", seq)
            if kind == "index" and not path.is_file():
                return JobState(DocState.FAILED, "the uploaded file is gone", seq)
            if path.is_file() and not path.is_symlink():
                c.hold_indexing_file(path, document)
            try:
                report = (c.index.reindex([document], stop=c.stop_if_deleted) if kind == "retry"
                          else c.index.index(path, stop=c.stop_if_deleted))
            finally:
                if not c.deleting.is_set():  # its folder goes: nothing to settle there
                    c.settle_files(document)  # the indexed version's file where citations open it
        for rel, reason in report.skipped:
            if rel == document:
                if is_sidecar_skip(reason):
                    return None  # indexed as its media file's transcript: not a document
                return JobState(DocState.FAILED, reason, seq)
        if kind == "retry" and not (report.indexed or report.failed or report.unchanged):
            return JobState(DocState.FAILED, "not in the index any more", seq)
        log.info(
            "indexed %s/%s: %d chunks written, %d failed", c.name, document,
            report.chunks_written, len(report.failed),
        )
        return None  # the index's record is now the truth


# Seconds a half-received upload's temporary file may sit in a shared uploads folder
# before a starting server removes it: another server may be receiving it right now,
# and no upload takes a day.
SHARED_TMP_MAX_AGE = 24 * 3600.0
# Seconds a server's indexing worker waits before claiming again after the database
# failed it (a restart or failover): long enough not to spin, short enough not to lag.
WORKER_RETRY_SECONDS = 2.0


class SharedQueue:
    """The indexing queue of ``serve --store URL``: the store's own job table.

    Every server process over one database enqueues uploads there and (unless
    started with ``--no-index-worker``) runs one worker thread that claims jobs
    (:func:`citeline.scale.run_worker`): a job is claimed by exactly one
    process, a crashed process's job is taken over when its lease expires, and a
    delete cancels the document's jobs (a running one's write is then refused).
    States come from the job table, so every process shows the same list.
    """

    def __init__(
        self,
        collections: Collections,
        *,
        worker: bool = True,
        lease_seconds: float | None = None,
        worker_name: str | None = None,
    ) -> None:
        from citeline import scale

        if not collections.shared:
            raise ValueError("SharedQueue needs collections over a shared store")
        self.collections = collections
        self.worker = worker
        self.lease_seconds = lease_seconds or scale.LEASE_SECONDS
        self.worker_name = worker_name  # default: host:pid:thread of the worker thread
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self.on_done: Callable[[str, str], None] | None = None

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        if self.worker and self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="citeline-indexer", daemon=True)
            self._thread.start()

    def model_ready(self) -> None:
        self._ready.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _collection(self) -> Collection:
        c = self.collections.get(self.collections.single_name)
        assert c is not None  # shared mode always has its one collection
        return c

    def _queue(self) -> JobQueue:
        from citeline import scale

        return scale.job_queue(self._collection().index)

    # --- queueing -----------------------------------------------------------------------

    def submit(self, collection: str, document: str, kind: JobKind = "index") -> None:
        c = self._collection()
        root = c.files
        if kind == "retry":
            rec = c.index.document(document)
            if rec is not None and rec.root:
                root = Path(rec.root)
        self._queue().enqueue([(document, str(root), str(root / document))],
                              force=kind == "retry")

    def states(self, collection: str) -> dict[str, JobState]:
        out: dict[str, JobState] = {}
        for path, (state, why) in self._queue().job_states(self.lease_seconds).items():
            if state == "queued":
                out[path] = JobState(DocState.PENDING, "", 0)
            elif state == "running":
                out[path] = JobState(DocState.INDEXING, "", 0)
            elif state == "failed":
                out[path] = JobState(DocState.FAILED, why, 0)
            elif (state == "done" and why.startswith("skipped: ")
                  and not is_sidecar_skip(why.removeprefix("skipped: "))):
                out[path] = JobState(DocState.FAILED, why.removeprefix("skipped: "), 0)
        return out

    def forget(self, collection: str, document: str | None = None) -> None:
        if document is not None:
            self._queue().cancel(document, "cancelled: the document was deleted")

    def busy(self) -> int:
        return sum(1 for s in self.states("").values() if s.state != DocState.FAILED)

    def recover(self) -> int:
        """Queue uploaded files that neither the index nor the job table knows (a
        server died between saving an upload and queueing it)."""
        import time

        c = self._collection()
        if not c.files.is_dir():
            return 0
        known = {s.record.path for s in c.index.status()} | set(
            self._queue().job_states(self.lease_seconds))
        now = time.time()
        for tmp in c.files.glob(".upload-*"):
            try:
                if now - tmp.stat().st_mtime > SHARED_TMP_MAX_AGE:
                    tmp.unlink(missing_ok=True)
            except FileNotFoundError:
                continue  # its upload finished meanwhile
        todo = [f.name for f in sorted(c.files.iterdir())
                if f.is_file() and not f.is_symlink() and not f.name.startswith(".")
                and f.name not in known]
        for name in todo:
            self.submit(c.name, name)
        return len(todo)

    # --- the worker ---------------------------------------------------------------------

    def _run(self) -> None:
        from citeline import scale

        while not self._ready.wait(0.2):
            if self._stop.is_set():
                return
        name = self.worker_name or scale.default_worker_name()
        while not self._stop.is_set():
            c = self._collection()

            def done(job, outcome: str, name: str = c.name) -> None:  # type: ignore[no-untyped-def]
                log.info("job %s %s: %s", job.id, job.path, outcome)
                if self.on_done is not None:
                    self.on_done(name, job.path)

            try:
                scale.run_worker(c.index, name=name, lease_seconds=self.lease_seconds,
                                 stop=self._stop, on_job=done)
            except CiteError as exc:  # the database went away: wait and claim again
                log.error("indexing worker: %s; retrying in %.0f s", exc, WORKER_RETRY_SECONDS)
                self._stop.wait(WORKER_RETRY_SECONDS)
