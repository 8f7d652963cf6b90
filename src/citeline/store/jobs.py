"""The indexing job queue a shared store offers to several workers.

A job is one file to (re-)index. Workers *claim* a job for a lease; while they
work they *heartbeat*; an expired lease makes the job claimable again, so a
crashed worker's job is picked up by another. Each claim gets a fresh token,
and writes made under :meth:`JobQueue.fenced` are refused once the token is no
longer the job's (a worker that stalled past its lease cannot overwrite the
work of the worker that took over). Only PostgreSQL implements it today.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"  # the document was deleted, or a newer job superseded it


@dataclass(frozen=True)
class Job:
    id: int
    path: str  # the document's path relative to root, as the index stores it
    root: str
    file: str  # absolute path the worker reads: must be readable on the worker's machine
    attempts: int
    token: str
    force: bool = False  # re-index even if the file is unchanged (a retry)


@runtime_checkable
class JobQueue(Protocol):
    def enqueue(self, files: Sequence[tuple[str, str, str]], force: bool = False) -> int:
        """Queue (path, root, file) triples; a path already queued is not queued twice
        (one that is running is: the file may have changed since the worker read it).
        Returns how many were queued."""
        ...

    def queued_roots(self, paths: Sequence[str]) -> dict[str, str]:
        """path -> the root of its queued job, for those of ``paths`` that have one."""
        ...

    def claim(self, worker: str, lease_seconds: float) -> Job | None:
        """Never a job of a path another worker is running."""
        ...

    def cancel(self, path: str, reason: str) -> int:
        """Cancel the open jobs of ``path``; a running one's fenced write is refused."""
        ...

    def job_states(self, lease_seconds: float) -> dict[str, tuple[str, str]]:
        """path -> (state, error or outcome) of its latest job that was not cancelled."""
        ...

    def heartbeat(self, job: Job) -> bool:
        """Extend the lease; False when the job is no longer ours."""
        ...

    def complete(self, job: Job, outcome: str) -> bool: ...

    def fail(self, job: Job, error: str, retry: bool) -> bool: ...

    def fenced(self, job: Job) -> AbstractContextManager[None]:
        """Within this block, this thread's document writes commit only while ``job`` is ours."""
        ...

    def job_counts(self) -> dict[str, int]: ...

    def jobs(self) -> Iterator[dict[str, object]]: ...
