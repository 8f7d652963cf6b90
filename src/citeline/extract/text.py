"""Markdown and plain text.

Canonical text = the file decoded as UTF-8 (a BOM dropped), or as UTF-16 when it
starts with a UTF-16 byte-order mark (Windows Notepad's "Unicode"), with line
endings normalised to ``\\n``; every ``#char=`` offset refers to that string.
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
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16, whose ASCII holds NUL bytes
        encoding, what = "utf-16", "valid UTF-16 after its byte-order mark"  # (BOM dropped)
    else:
        if b"\x00" in data[:8192]:
            raise ExtractionError(rel, "binary file (contains NUL bytes), not text")
        encoding, what = "utf-8-sig", "valid UTF-8"  # utf-8-sig: a leading BOM dropped
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ExtractionError(rel, f"not {what} (undecodable byte at offset {exc.start})") from exc
    if not text.strip():
        raise ExtractionError(rel, "empty file (no text to index)")
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
    version = "2"  # 2: UTF-16 with a byte-order mark is read, not refused as binary
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
