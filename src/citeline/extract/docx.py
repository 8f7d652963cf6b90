"""Word documents (.docx), with python-docx (MIT).

Canonical text is Markdown-shaped so the chunker's heading splitter gives each
chunk its section path: a paragraph styled *Title* or *Heading N* becomes a
``#``-heading line of that level (``# Handbook``, ``## Tools``), other
paragraphs are blocks separated by a blank line, and a table becomes one block
per row with its cells joined by `` | `` (so a row is never cut in two).
Body text that merely *looks* like a heading is escaped (``\\# ...``).
Locators are ``#char=`` on this text plus the heading path.

Page headers/footers, comments and footnotes are not part of the body and are
not indexed; a legacy binary ``.doc`` is not a .docx and fails with that reason.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import docx
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml.etree import XMLSyntaxError

from citeline.errors import ExtractionError
from citeline.extract import register
from citeline.extract.blocks import (
    TextBuilder,
    escape_markdown,
    not_a_package,
    one_paragraph,
    squash,
)
from citeline.types import Document

_HEADING_STYLE = re.compile(r"heading ([1-9])", re.I)
# Markdown has six heading levels; Word's Heading 7-9 nest under the sixth.
MAX_LEVEL = 6


def heading_level(paragraph: Paragraph) -> int | None:
    """1..6 for Title / Heading N (or a style based on one), else None."""
    style = paragraph.style
    depth = 0
    while style is not None and depth < 10:  # custom styles inherit from built-ins
        name = (style.name or "").strip()
        if name.casefold() == "title":
            return 1
        if m := _HEADING_STYLE.fullmatch(name):
            return min(int(m.group(1)), MAX_LEVEL)
        style = style.base_style
        depth += 1
    return None


def _row_text(row) -> str:  # type: ignore[no-untyped-def]
    cells: list[str] = []
    seen: set[int] = set()
    for cell in row.cells:
        if id(cell._tc) in seen:  # a merged cell is repeated once per grid column
            continue
        seen.add(id(cell._tc))
        cells.append(squash(cell.text))
    return " | ".join(cells) if any(cells) else ""


def _blocks(element, parent) -> Iterator[Paragraph | Table]:  # type: ignore[no-untyped-def]
    """Body paragraphs and tables in document order, including those inside content
    controls (``w:sdt``, common in templates), which python-docx's own iterator skips."""
    for child in element.iterchildren():
        if child.tag == qn("w:p"):
            yield Paragraph(child, parent)
        elif child.tag == qn("w:tbl"):
            yield Table(child, parent)
        elif child.tag == qn("w:sdt"):
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from _blocks(content, parent)


class DocxExtractor:
    name = "docx"
    version = "1"
    suffixes = (".docx",)

    def extract(self, path: Path, rel: str) -> Document:
        if path.stat().st_size == 0:
            raise ExtractionError(rel, "empty file (0 bytes), not a Word document")
        if not zipfile.is_zipfile(path):
            raise ExtractionError(rel, not_a_package(path, ".docx file", ".doc"))
        try:
            d = docx.Document(str(path))
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, XMLSyntaxError) as exc:
            raise ExtractionError(rel, f"not a readable Word .docx file ({exc})") from exc

        out = TextBuilder()
        first_heading: str | None = None
        for block in _blocks(d.element.body, d._body):
            if isinstance(block, Paragraph):
                level = heading_level(block)
                if level is not None:
                    title = squash(block.text)
                    if title:
                        out.add("#" * level + " " + title, sep="\n\n")
                        first_heading = first_heading or title
                    continue
                text = one_paragraph(block.text)
                if text:
                    out.add(escape_markdown(text), sep="\n\n")
            elif isinstance(block, Table):
                for row in block.rows:
                    line = _row_text(row)
                    if line:
                        out.add(escape_markdown(line), sep="\n\n")
        text = out.text()
        if not text.strip():
            raise ExtractionError(rel, "the document has no text in its body")
        title = squash(d.core_properties.title or "") or first_heading or path.stem
        return Document(
            path=rel,
            title=title,
            text=text,
            media_type="application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            extractor=self.name,
            extractor_version=self.version,
            headings="atx",
        )


register(DocxExtractor())
