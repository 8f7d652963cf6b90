"""Collections: named citeline indexes the server manages, each one Index folder.

Multi-collection mode (``--data DIR``): every sub-folder of DIR holding a
citeline index is a collection; creating one makes ``DIR/<name>/`` with its
strategy and threshold. Single-index mode (``--index DIR``): the one index is
the only collection, named after its folder; collections cannot be created or
deleted.

Shared-store mode (``--store URL --files DIR``): the PostgreSQL store is the
one collection (named ``--name``, default the database's name); uploads go to
DIR, which every server process over that store must see at the same path (a
shared mount). Several such processes are interchangeable: they hold no state
of their own (jobs, keys and documents are in the database).

Uploaded files are kept under ``<collection>/files/`` (the originals the
document view serves, and what retries re-read), or in the shared DIR. The
server only ever goes through :class:`citeline.pipeline.Index`.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import threading
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from citeline.embed import Embedder
from citeline.errors import ConfigError, IndexingCancelled
from citeline.pipeline import Index
from citeline.store.sqlite import DB_NAME

FILES_DIR = "files"
# Under files/: the indexed version of a document whose re-upload is not indexed yet
# (hidden, so no walk or restart takes it for an upload).
KEPT_DIR = ".indexed"
# Beside files/ (not in it: the uploads folder holds uploads), the queue's own files: a
# link to the file an indexing run is reading (an upload meanwhile replaces the file, not
# what the link holds: if the run's version is indexed, it is the one kept) ...
QUEUE_DIR = ".queue"
INDEXING_DIR = "indexing"
# ... and an empty marker per upload whose indexing has not ended, so a restart queues
# it again (a failed document's re-upload looks like the upload that failed).
PENDING_DIR = "pending"
# Collection names become folder names and URL path segments: keep them plain.
# 1-64 characters, starting with a letter or digit and not ending with '.'; the API's
# schema publishes the same pattern.
COLLECTION_NAME_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,62}[A-Za-z0-9_-])?$"
_NAME_RE = re.compile(COLLECTION_NAME_PATTERN)
# Longest file name most filesystems accept, in UTF-8 bytes.
MAX_NAME_BYTES = 255


class NameError_(ConfigError):  # noqa: N801 - trailing underscore avoids the builtin
    """A collection or file name is not acceptable."""


class CollectionDeleted(Exception):
    """An upload would write into a collection that is being (or was) deleted."""


# The API keys' file lives in the data folder beside the collections: a collection of
# its name, or of its journal's ("keys.sqlite3-journal"), would lock every key out.
RESERVED_PREFIX = "keys.sqlite3"


def check_collection_name(name: str) -> str:
    if not _NAME_RE.fullmatch(name):
        raise NameError_(
            f"collection name {name!r}: use 1-64 letters, digits, '_', '-', '.', "
            "starting with a letter or digit and not ending with '.'"
        )
    if name.lower().startswith(RESERVED_PREFIX):
        raise NameError_(f"collection name {name!r}: names starting with {RESERVED_PREFIX!r} "
                         "are the API keys' files")
    return name


def sanitize_filename(raw: str) -> str:
    """Reduce an uploaded file name to one safe path component, or raise NameError_.

    Directories are dropped (``../../etc/passwd`` -> ``passwd``, ``C:\\x\\a.md`` ->
    ``a.md``), so a name can never leave the collection's ``files/`` folder.
    Hidden names (``.env``), ``.``/``..``, control characters and names longer
    than the filesystem allows are refused.
    """
    name = unicodedata.normalize("NFC", raw or "")
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name or name in (".", ".."):
        raise NameError_(f"file name {raw!r}: no file name left after removing folders")
    if name.startswith("."):
        raise NameError_(f"file name {raw!r}: hidden names (starting with '.') are not accepted")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in name):
        raise NameError_(f"file name {raw!r}: control characters are not accepted")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise NameError_(f"file name {raw[:40]!r}...: longer than {MAX_NAME_BYTES} bytes")
    return name


@dataclass
class Collection:
    name: str
    folder: Path
    index: Index
    # Held while this collection is written (indexing, reopening it with the loaded
    # model, deleting the collection): that delete waits for the indexing run to stop
    # (see `deleting`) instead of racing it. Deleting one document takes its doc_lock only.
    lock: threading.RLock = field(default_factory=threading.RLock)
    # Set once the collection is being deleted: an indexing run stops at its next safe
    # point (stop_if_deleted: within one group of embedded texts, not at the end of a
    # document that takes minutes), and nothing more is written into its folder.
    deleting: threading.Event = field(default_factory=threading.Event)
    # Held while an upload writes into the folder (see `receiving`), for a moment each
    # time; never while a document is indexed, as `lock` is, so an upload waits for no
    # indexing. A delete sets `deleting` under it.
    upload_lock: threading.Lock = field(default_factory=threading.Lock)
    files_dir: Path | None = None  # shared-store mode: the shared uploads folder
    # One lock per document, held while it is indexed: deleting a document waits for
    # that document only, never for another one being indexed (minutes, for a big file).
    _doc_locks: dict[str, threading.Lock] = field(default_factory=dict)
    _doc_locks_guard: threading.Lock = field(default_factory=threading.Lock)

    def doc_lock(self, document: str) -> threading.Lock:
        with self._doc_locks_guard:
            return self._doc_locks.setdefault(document, threading.Lock())

    def stop_if_deleted(self) -> None:
        """An indexing run's ``stop`` check (:meth:`citeline.pipeline.Index.index`)."""
        if self.deleting.is_set():
            raise IndexingCancelled(f"collection '{self.name}' is being deleted")

    @contextmanager
    def receiving(self) -> Iterator[None]:
        """Hold while an upload writes into this collection's folder (makes ``files/``,
        opens a received file there, moves the received files in and queues them).
        Raises :class:`CollectionDeleted` once a delete has begun: that delete set the
        flag under the same lock, so an upload either ends its step before the folder is
        removed or writes nothing, neither into the deleted folder (a ``files/`` made
        there again refused a new collection of the name) nor into a new collection's
        of the same name (this object's flag stays set)."""
        with self.upload_lock:
            if self.deleting.is_set():
                raise CollectionDeleted(self.name)
            yield

    @property
    def files(self) -> Path:
        return self.files_dir if self.files_dir is not None else self.folder / FILES_DIR

    @property
    def kept(self) -> Path:
        """Where an indexed version's file waits while a re-upload of it is not indexed."""
        return self.files / KEPT_DIR

    def keep_indexed_file(self, document: str) -> None:
        """Before ``files/<document>`` is replaced by a re-upload: keep the file of the
        version the index holds (and cites), until the new one is indexed. A second
        re-upload meanwhile keeps the first kept file: that is still the indexed one."""
        f, kept = self.files / document, self.kept / document
        rec = self.index.document(document)
        if (self.files_dir is None and f.is_file() and not kept.exists() and rec is not None
                and rec.content_hash and Path(rec.root or self.files).resolve() == self.files.resolve()):
            kept.parent.mkdir(parents=True, exist_ok=True)
            os.replace(f, kept)

    @property
    def pending(self) -> Path:
        """Where uploads waiting to be indexed are marked (:meth:`mark_pending`)."""
        return self.folder / QUEUE_DIR / PENDING_DIR

    @property
    def held(self) -> Path:
        """Where the file an indexing run reads is held (:meth:`hold_indexing_file`)."""
        return self.folder / QUEUE_DIR / INDEXING_DIR

    def drop_kept_file(self, document: str) -> None:
        """The document is deleted: every file kept aside for it goes."""
        for folder in (self.kept, self.held, self.pending):
            (folder / document).unlink(missing_ok=True)

    def mark_pending(self, document: str) -> None:
        """An upload of ``document`` waits to be indexed (until :meth:`clear_pending`)."""
        if self.files_dir is None:
            marker = self.pending / document
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()

    def clear_pending(self, document: str) -> None:
        (self.pending / document).unlink(missing_ok=True)

    def is_pending(self, document: str) -> bool:
        return (self.pending / document).is_file()

    def hold_indexing_file(self, path: Path, document: str) -> None:
        """Before ``path`` (an upload) is indexed: a hard link to what it holds now."""
        if self.files_dir is not None:
            return
        held = self.held / document
        held.parent.mkdir(parents=True, exist_ok=True)
        held.unlink(missing_ok=True)
        try:
            os.link(path, held)
        except OSError:  # a filesystem without hard links
            shutil.copy2(path, held)

    def settle_files(self, document: str) -> None:
        """After an indexing run of ``document``: the file the index's version came from
        stays where citations open it. If the upload in ``files/`` is that version, the
        kept file goes; if a newer upload replaced it during the run, the run's file
        becomes the kept one (it is what the index holds now); else (the run failed) the
        kept file stays."""
        from citeline.extract import fingerprint

        held = self.held / document
        rec = self.index.document(document)
        indexed = rec.content_hash if rec is not None and rec.n_chunks else None

        def holds(f: Path) -> bool:
            try:
                return indexed is not None and f.is_file() and fingerprint(f) == indexed
            except OSError:
                return False

        if indexed is None or holds(self.files / document):
            self.kept.joinpath(document).unlink(missing_ok=True)
        elif holds(held):
            self.kept.joinpath(document).parent.mkdir(parents=True, exist_ok=True)
            os.replace(held, self.kept / document)
        held.unlink(missing_ok=True)

    def file_of(self, document: str) -> Path | None:
        """The original file of an indexed document, confined to its root folder: the
        kept file of the indexed version while a re-upload of it waits or failed."""
        try:
            return self._file_of(document)
        except OSError as exc:
            if exc.errno != errno.ENAMETOOLONG:
                raise
            return None  # a name the filesystem cannot hold is no file (stat raises)

    def _file_of(self, document: str) -> Path | None:
        if "\0" in document or any(p.startswith(".") for p in Path(document).parts):
            return None  # no document has such a name (the indexer skips hidden files;
            # a kept, held or half-received upload is no document)
        kept = (self.kept / document).resolve()
        if kept.is_relative_to(self.kept.resolve()) and kept.is_file():
            return kept
        for s in self.index.status():
            if s.record.path == document:
                root = Path(s.record.root or self.files).resolve()
                f = root / document
                # its folder must really be under the root (the indexer follows no link
                # to a folder); the file may be a link the indexer followed, in a folder
                # the CLI indexed, never in the uploads folder (an upload is no link)
                if not f.parent.resolve().is_relative_to(root) or not f.is_file() or (
                        f.is_symlink() and root == self.files.resolve()):
                    return None
                return f.resolve()
        f = (self.files / document).resolve()
        if f.is_relative_to(self.files.resolve()) and f.is_file():
            return f
        return None

    def indexed_elsewhere(self, document: str) -> bool:
        """Whether ``document`` names a file indexed from another folder than the uploads
        (``--index`` mode serves a CLI-built index): the indexer would refuse an upload of
        that name rather than replace the other folder's document, so the server refuses it first."""
        rec = self.index.document(document)
        if rec is None or not rec.root:
            return False
        root = Path(rec.root)
        return root.resolve() != self.files.resolve() and (root / document).is_file()


class Collections:
    """The registry of open collections (one Index each, shared by all threads)."""

    def __init__(
        self,
        *,
        data_dir: str | Path | None = None,
        index_dir: str | Path | None = None,
        embedder: Embedder | None = None,
        model_path: str | None = None,
        model_id: str | None = None,
        store_url: str | None = None,
        files_dir: str | Path | None = None,
        name: str | None = None,
        rerank_model: str | None = None,
        rerank_candidates: int | None = None,
    ) -> None:
        if sum(x is not None for x in (data_dir, index_dir, store_url)) != 1:
            raise ConfigError("serve: give exactly one of --data DIR, --index DIR or --store URL")
        if (store_url is None) != (files_dir is None):
            raise ConfigError("serve --store URL needs --files DIR (the shared uploads folder)")
        self.multi = data_dir is not None
        self.store_url = store_url
        where = data_dir if data_dir is not None else index_dir if index_dir is not None else files_dir
        self.root = Path(where).expanduser().resolve()  # type: ignore[arg-type]
        self.embedder = embedder
        self.model_path = model_path
        self.model_id = model_id
        self.rerank_model = rerank_model  # the model of mode "rerank", if any
        self.rerank_candidates = rerank_candidates  # None: the reranker's own default
        self._open: dict[str, Collection] = {}
        self._deleting: set[str] = set()  # names being deleted: not found, not creatable
        self._lock = threading.Lock()
        if self.multi or store_url is not None:
            self.root.mkdir(parents=True, exist_ok=True)
        if store_url is not None:
            from urllib.parse import urlsplit

            self.single_name = check_collection_name(
                name or urlsplit(store_url).path.strip("/") or "default"
            )
        elif not self.multi:
            self.single_name = (
                self.root.name if _NAME_RE.fullmatch(self.root.name) else "default"
            )

    @property
    def keys_folder(self) -> Path:
        return self.root

    def set_embedder(self, embedder: Embedder) -> None:
        """The model finished loading: indexes opened before it are reopened with it."""
        with self._lock:
            self.embedder = embedder
            opened = list(self._open.values())
        for c in opened:
            with c.lock:
                if not c.deleting.is_set():  # create=True would make its folder again
                    c.index = self._index(c.folder, create=True)

    @property
    def shared(self) -> bool:
        """Serving a PostgreSQL store (several processes may share it)."""
        return self.store_url is not None

    def _index(self, folder: Path, create: bool) -> Index:
        where = self.store_url if self.store_url is not None else folder
        return Index(where, embedder=self.embedder, model_path=self.model_path,
                     model_id=self.model_id, create=create, rerank_model=self.rerank_model,
                     rerank_candidates=self.rerank_candidates)

    def names(self) -> list[str]:
        if not self.multi:
            return [self.single_name]
        return sorted(
            p.name for p in self.root.iterdir()
            if p.is_dir() and _NAME_RE.fullmatch(p.name) and (p / DB_NAME).exists()
        )

    def _folder(self, name: str) -> Path:
        return self.root / name if self.multi else self.root

    def get(self, name: str) -> Collection | None:
        with self._lock:
            if name in self._deleting:
                return None
            c = self._open.get(name)
            if c is not None:
                return c
            if self.multi:
                if not _NAME_RE.fullmatch(name) or not (self.root / name / DB_NAME).exists():
                    return None
            elif name != self.single_name:
                return None
            folder = self._folder(name)
            idx = self._index(folder, create=not self.multi)
            c = Collection(name, folder, idx, files_dir=self.root if self.shared else None)
            self._open[name] = c
            return c

    def create(self, name: str, strategy: str = "E", threshold: float | None = None,
               ocr_languages: str | None = None) -> Collection:
        if not self.multi:
            raise ConfigError("collections: this server serves one collection (--index or --store); start it with --data DIR to create collections")
        check_collection_name(name)
        folder = self.root / name
        with self._lock:
            deleting = name in self._deleting
        if deleting or (folder / DB_NAME).exists():
            raise FileExistsError(name)
        if folder.exists() and not folder.is_dir():
            raise NameError_(f"collection name {name!r}: the data folder has a file of that name")
        if folder.is_dir() and any(folder.iterdir()):
            # not a collection (it has no index), and deleting the collection would remove
            # whatever the folder holds
            raise NameError_(f"collection name {name!r}: the data folder has a folder of that "
                             "name that is not a collection; choose another name")
        idx = self._index(folder, create=True)
        try:
            idx.set_strategy(strategy)
            if threshold is not None:
                idx.set_threshold(threshold)
            if ocr_languages is not None:
                idx.set_ocr_languages(ocr_languages)
        except ConfigError:
            idx.close()
            shutil.rmtree(folder, ignore_errors=True)
            raise
        (folder / FILES_DIR).mkdir(exist_ok=True)
        c = Collection(name, folder, idx)
        with self._lock:
            self._open[name] = c
        return c

    def delete(self, name: str, forget: Callable[[str], None] | None = None) -> bool:
        """Delete collection ``name`` with its index and files; False if there is none.

        A document of it being indexed stops at its next safe point (within one group
        of embedded texts: :meth:`Collection.stop_if_deleted`), so this takes seconds,
        not the rest of a big document. ``forget(name)`` is called once the indexing
        has let go and before the name is free again: the queue drops the collection's
        jobs there (its queued uploads), and never a new collection's of the same name.
        Meanwhile the collection is not found and its name cannot be created; an upload
        to it still streaming writes nothing more (:meth:`Collection.receiving`)."""
        if not self.multi:
            raise ConfigError("collections: this server serves one collection (--index or --store); it cannot be deleted over HTTP")
        c = self.get(name)
        if c is None:
            return False
        with self._lock:
            if name in self._deleting:  # another request is deleting it
                return False
            self._deleting.add(name)
        try:
            with c.upload_lock:  # an upload's step of writing into the folder ends first;
                c.deleting.set()  # each later one sees the flag (Collection.receiving)
            with c.lock:
                with self._lock:
                    self._open.pop(name, None)
                c.index.close()
                if forget is not None:
                    forget(name)
                shutil.rmtree(c.folder)
        finally:
            with self._lock:
                self._deleting.discard(name)
        return True
