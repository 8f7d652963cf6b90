"""Extraction: one file -> one :class:`~citeline.types.Document`.

Each format has an extractor behind the :class:`Extractor` protocol, registered
by file suffix in :data:`REGISTRY` (an explicit dict: no guessing by regex).
An extractor either returns a Document whose ``text`` is the canonical text
every offset refers to, or raises :class:`~citeline.errors.ExtractionError`
with a reason a person can act on. Its ``name`` and ``version`` are stamped on
every document it produced; bumping ``version`` marks those documents stale.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from citeline.errors import UnsupportedFormat
from citeline.types import Document


class Extractor(Protocol):
    name: str
    version: str
    suffixes: tuple[str, ...]

    def extract(self, path: Path, rel: str) -> Document:
        """Read ``path`` (shown to users as ``rel``) into a Document, or raise ExtractionError."""
        ...


REGISTRY: dict[str, Extractor] = {}


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

    from citeline.extract import text  # noqa: F401  (always available)

    for mod in BUILTIN_OPTIONAL:
        try:
            importlib.import_module(f"citeline.extract.{mod}")
        except ImportError:  # optional dependency absent: the format stays unsupported
            continue


# Modules that register extractors for formats needing third-party libraries.
BUILTIN_OPTIONAL: tuple[str, ...] = ()
