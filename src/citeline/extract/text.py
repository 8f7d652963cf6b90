"""Markdown and plain text.

Canonical text = the file decoded as UTF-8 (a BOM dropped), or as UTF-16 when it
starts with a UTF-16 byte-order mark (Windows Notepad's "Unicode"), with line
endings normalised to ``\\n``; every ``#char=`` offset refers to that string.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from citeline.chunk import FRONT_MATTER, headings
from citeline.errors import ExtractionError
from citeline.extract import read_bytes, register
from citeline.types import Document

# Plain text marks a title by underlining it (a line of "=" or "-" below it, as
# setext Markdown, AsciiDoc, reStructuredText and most README/NEWS files do); the
# reStructuredText rule reads those: an underline at least as long as the title (or
# 4), a blank line above the title, one level per underline character in order of use.
_STYLES: dict[str, Literal["markdown", "rst"]] = {
    ".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".txt": "rst", ".text": "rst"}
_FM_TITLE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.M)
_MEDIA_TYPES = {".md": "text/markdown", ".markdown": "text/markdown", ".rst": "text/x-rst"}


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


def heading_title(text: str, style: str, fallback: str) -> str:
    """The first level-1 heading (Markdown: ATX ``#`` or setext ``===``, outside code
    fences; reStructuredText: the first section title), else a Markdown file's YAML
    front matter ``title:`` (static-site pages often have no ``#`` title), else
    ``fallback``."""
    first = next((h.title for h in headings(text, style) if h.level == 1), None)
    if first is not None:
        return first
    if style == "markdown" and (fm := FRONT_MATTER.match(text)):
        if (m := _FM_TITLE.search(fm.group())) and (title := m.group(1).strip().strip("\"'")):
            return title
    return fallback


class TextExtractor:
    name = "text"
    # 2: UTF-16 with a byte-order mark is read, not refused as binary; 3: setext
    # headings in Markdown and section titles in reStructuredText make sections, and
    # a Markdown file without a "#" title takes its front matter's title; 4: so do
    # underlined titles in plain text
    version = "4"
    suffixes = (".md", ".markdown", ".txt", ".text", ".rst")

    def extract(self, path: Path, rel: str) -> Document:
        text = decode_text(path, rel, read_bytes(path, rel))
        suffix = path.suffix.lower()
        style = _STYLES.get(suffix, "none")
        return Document(
            path=rel,
            title=heading_title(text, style, path.stem),
            text=text,
            media_type=_MEDIA_TYPES.get(suffix, "text/plain"),
            extractor=self.name,
            extractor_version=self.version,
            headings=style,
        )


register(TextExtractor())
