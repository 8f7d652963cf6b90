"""The exception tree. Every error citeline raises on purpose is one of these::

    CiteError                      base; the CLI prints its message and exits 2
    ├── ConfigError                a setting or option is invalid (names the field)
    │   └── UnmatchedDocuments     a document filter entry matches no indexed document
    ├── ExtractionError            one file could not be turned into text (names the file)
    │   └── UnsupportedFormat      no extractor for this file type (skipped, not failed)
    ├── IndexError_                the index itself is unusable
    │   ├── IndexNotFound          no index at that location
    │   ├── SchemaError            newer schema than this program knows
    │   ├── ModelMismatch          vectors of another model would be compared
    │   ├── StoreUnavailable       the database cannot be reached or refused a statement
    │   └── LeaseLost              an indexing job was taken over by another worker
    ├── IndexingCancelled          its caller stopped an indexing run at a safe point
    ├── ModelUnavailable           weights are not on local disk
    ├── GeneratorError             the answer generator failed (the citations are kept)
    │   ├── GeneratorUnavailable   endpoint unreachable, or it answered with an error
    │   └── GeneratorTimeout       no complete answer within the generator's timeout
    └── GroundTruthError           an eval ground-truth file breaks the format (names line)

Third-party errors are converted at the boundary with ``raise X(...) from exc``.
"""

from __future__ import annotations


class CiteError(Exception):
    """Base of every error citeline raises on purpose."""


class ConfigError(CiteError):
    """A setting is invalid; the message names the field."""


class UnmatchedDocuments(ConfigError):
    """Entries of a search's or question's document filter (``documents=``, ``--in``,
    the API's ``documents``) that match no indexed document: a typo must not read as
    "nothing relevant in there". ``patterns`` are the entries as given; ``reason`` is the
    message without the field's name, for a layer that names the field its own way."""

    def __init__(self, patterns: list[str], reason: str) -> None:
        super().__init__(f"documents: {reason}")
        self.patterns = patterns
        self.reason = reason


class ExtractionError(CiteError):
    """A file could not be extracted; the document ends in state ``failed``."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class UnsupportedFormat(ExtractionError):
    """No extractor handles this file type; it is skipped and listed, not failed.

    ``lasting``: the file's content alone decided it (an image with no text), so the
    same content is skipped for the same reason without being read again, until the
    extractor's version changes; not for a reason that can go away (OCR not installed).
    """

    def __init__(self, path: str, reason: str, lasting: bool = False) -> None:
        super().__init__(path, reason)
        self.lasting = lasting


class IndexError_(CiteError):  # noqa: N801 - trailing underscore avoids the builtin
    """The index cannot be used as asked."""


class IndexNotFound(IndexError_):
    """No index exists at the given location."""


class SchemaError(IndexError_):
    """The index was written by a newer citeline."""


class ModelMismatch(IndexError_):
    """The query would compare vectors from different embedding models."""


class StoreUnavailable(IndexError_):
    """The database behind a store URL cannot be reached, or refused a statement."""


class DocumentRefused(IndexError_):
    """The store refused one document's values (not the store being unreachable): that
    document fails with ``reason``, the run goes on."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class LeaseLost(IndexError_):
    """A worker's lease on an indexing job expired and another worker took it over."""


class IndexingCancelled(CiteError):
    """An indexing run was stopped by its caller's ``stop`` check (the server deleting
    the collection being indexed), between files or between groups of embedded texts:
    the document being read is not written; those written before stay."""


class ModelUnavailable(CiteError):
    """Model weights are not available on local disk."""


class GeneratorError(CiteError):
    """A generator could not produce an answer; ``ask`` still returns the citations."""


class GeneratorUnavailable(GeneratorError):
    """The generator's endpoint is unreachable or answered with an error status."""


class GeneratorTimeout(GeneratorError):
    """The generator did not finish within its timeout."""


class GroundTruthError(CiteError):
    """An evaluation ground-truth file breaks the format."""

    def __init__(self, file: str, line: int | None, reason: str) -> None:
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {reason}")
        self.file = file
        self.line = line
        self.reason = reason
