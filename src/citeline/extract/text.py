"""Markdown and plain text.

Canonical text = the file decoded as UTF-8 (a BOM dropped) with line endings
normalised to ``\\n``; every ``#char=`` offset refers to that string.
"""

from __future__ import annotations

import re
from pathlib import Path

from citeline.errors import ExtractionError
from citeline.extract import read_bytes, register
from citeline.types import Document

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_H1 = re.compile(r"^# +(.+?)\s*#*\s*$")


def decode_text(path: Path, rel: str, data: bytes) -> str:
    """Bytes -> canonical text, or a clear reason why this is not a text file."""
    if not data.strip():
        raise ExtractionError(rel, "empty file (no text to index)")
    if b"\x00" in data[:8192]:
        raise ExtractionError(rel, "binary file (contains NUL bytes), not text")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExtractionError(
            rel, f"not valid UTF-8 (undecodable byte at offset {exc.start})"
        ) from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def markdown_title(text: str, fallback: str) -> str:
    """The first level-1 ATX heading outside code fences, else ``fallback``."""
    in_fence = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence and (m := _H1.match(line)):
            return m.group(1).strip()
    return fallback


class TextExtractor:
    name = "text"
    version = "1"
    suffixes = (".md", ".markdown", ".txt", ".text", ".rst")

    def extract(self, path: Path, rel: str) -> Document:
        text = decode_text(path, rel, read_bytes(path, rel))
        is_md = path.suffix.lower() in (".md", ".markdown")
        title = markdown_title(text, path.stem) if is_md else path.stem
        return Document(
            path=rel,
            title=title,
            text=text,
            media_type="text/markdown" if is_md else "text/plain",
            extractor=self.name,
            extractor_version=self.version,
            headings="markdown" if is_md else "none",
        )


register(TextExtractor())
