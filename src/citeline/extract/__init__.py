"""Extraction: one file -> one :class:`~citeline.types.Document`.

Each format has an extractor behind the :class:`Extractor` protocol, registered
by file suffix in :data:`REGISTRY` (an explicit dict: no guessing by regex).
An extractor either returns a Document whose ``text`` is the canonical text
every offset refers to, or raises :class:`~citeline.errors.ExtractionError`
with a reason a person can act on. Its ``name`` and ``version`` are stamped on
every document it produced; bumping ``version`` marks those documents stale.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Protocol

from citeline.errors import UnsupportedFormat
from citeline.types import Document


class Extractor(Protocol):
    """A format's reader. It may also define ``fingerprint(path) -> str`` (see
    :func:`fingerprint`) when a file's indexed content is not just its own bytes."""

    name: str
    version: str
    suffixes: tuple[str, ...]

    def extract(self, path: Path, rel: str) -> Document:
        """Read ``path`` (shown to users as ``rel``) into a Document, or raise ExtractionError."""
        ...


REGISTRY: dict[str, Extractor] = {}


def read_bytes(path: Path, rel: str, empty: str = "empty file (no text to index)") -> bytes:
    """The file's bytes, or ExtractionError naming ``rel`` when unreadable or blank."""
    from citeline.errors import ExtractionError

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ExtractionError(rel, f"cannot read file: {exc.strerror or exc}") from exc
    if not data.strip():
        raise ExtractionError(rel, empty)
    return data


def register(extractor: Extractor) -> Extractor:
    for suffix in extractor.suffixes:
        REGISTRY[suffix.lower()] = extractor
    return extractor


def extractor_for(path: Path) -> Extractor:
    """The extractor registered for ``path``'s suffix; UnsupportedFormat if none."""
    _load_builtin()
    ext = REGISTRY.get(path.suffix.lower())
    if ext is None:
        raise UnsupportedFormat(str(path), f"no extractor for '{path.suffix or path.name}' files")
    return ext


def fingerprint(path: Path) -> str:
    """The content hash that decides whether ``path`` changed since it was indexed.

    The file's SHA-256, unless its extractor defines ``fingerprint(path)``: a
    media file's is its sidecar transcript's bytes (the recording itself is
    never read). Raises OSError when the file cannot be read.
    """
    _load_builtin()
    ext = REGISTRY.get(path.suffix.lower())
    hook = getattr(ext, "fingerprint", None)
    if hook is not None:
        return str(hook(path))
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(FINGERPRINT_BLOCK):
            h.update(block)
    return h.hexdigest()


# Read files in 1 MiB blocks when hashing: large PDFs never sit in memory twice.
FINGERPRINT_BLOCK = 1 << 20


def supported(path: Path) -> bool:
    _load_builtin()
    return path.suffix.lower() in REGISTRY


def extractor_versions() -> dict[str, str]:
    """name -> version of every registered extractor (for staleness checks)."""
    _load_builtin()
    return {e.name: e.version for e in REGISTRY.values()}


_loaded = False


def _load_builtin() -> None:
    """Import the built-in extractor modules once; each registers itself.

    A format whose optional library is missing simply does not register.
    """
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    from citeline.extract import notebook, text  # noqa: F401  (always available: stdlib)

    for mod in BUILTIN_OPTIONAL:
        try:
            importlib.import_module(f"citeline.extract.{mod}")
        except ImportError:  # optional dependency absent: the format stays unsupported
            continue


# Modules that register extractors for formats needing third-party libraries.
# Each is one module under citeline/extract/ that calls register() at import.
BUILTIN_OPTIONAL: tuple[str, ...] = ("pdf", "docx", "slides", "html", "sheet", "transcript",
                                     "opendocument", "epub", "email_msg")
