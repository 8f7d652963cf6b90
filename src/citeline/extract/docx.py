"""Word documents (.docx), with python-docx (MIT).

Canonical text is Markdown-shaped so the chunker's heading splitter gives each
chunk its section path: a paragraph styled *Title* or *Heading N*, or given an
outline level (a custom style's "Level 1"), becomes a ``#``-heading line of that
level (``# Handbook``, ``## Tools``), other paragraphs are blocks separated by a
blank line, and a table becomes one block per row with its cells joined by
`` | `` (so a row is never cut in two). Body text that merely *looks* like a
heading is escaped (``\\# ...``). Locators are ``#char=`` on this text plus the
heading path.

A document written without heading styles (each title set large or bold by hand)
gets its headings from that formatting, by the PDF extractor's font rule: a short
paragraph (at most ``HEADING_MAX_CHARS``) set wholly at least ``HEADING_SIZE_RATIO``
times the body's size is a heading ("Hello, World!" too), one level per size, the
largest first, and one set wholly in bold at the body's size, not ending like a
sentence and with text after it, is a level below those; a caption (``Figure 3:
...``, ``Table 2. ...``) or an admonition's label (``Note``) is not a heading. This
applies only when no paragraph has a heading style (the author's styles are then
the headings, and bold is emphasis), and not when such paragraphs are over
``HEADING_MAX_SHARE`` of the text (:func:`citeline.extract.blocks.heading_levels`).

Text boxes are read after the paragraph they are anchored in (in a table cell, as
part of the cell), custom XML elements (``w:customXml``) are opened, and a symbol inserted
from a symbol font (Symbol's α, Wingdings' ✓) as its Unicode character. A footnote
or an endnote is a block of its own (``Footnote 1: ...``, ``Endnote ii: ...``) right
after the paragraph or table row that refers to it (:class:`Notes`). An imported
part (``w:altChunk``: the HTML page an "Export to Word" button or html-docx-js puts
in a .docx, for Word to merge on opening) is read in its place by the HTML extractor
when it is HTML, XHTML or a web archive (MHT), or as plain text; a part of another
type (RTF, another document) is named in a warning.

A picture's alt text (what a reader who cannot see it gets: the author's description of
a chart or a diagram) is a block after the paragraph or table row showing it, then the
text OCR reads in the picture; alt text that says nothing (a file name, ``Picture 3``,
Microsoft 365's own "Description automatically generated") adds none
(:func:`~citeline.extract.drawingml.drawing_alt`), and a drawing marked decorative adds
nothing, its picture's text neither. A chart says what it is in a sentence of its
title, kind, series and axes (:func:`~citeline.extract.drawingml.chart_text`, as a
workbook's chart does), and a SmartArt diagram gives its text a line per node
(:func:`~citeline.extract.drawingml.smartart_text`, as a deck's does), each a block in
its place, before its alt text. An embedded object (an Excel worksheet inserted as an
object, a document; ``word/embeddings/*.xlsx``) is read as that file is, in its place:
a workbook's rows a block each, as a table's
(:func:`~citeline.extract.blocks.embedded_text`), not the picture Word shows of it; an
OLE compound object (``oleObject1.bin``: an equation, a Visio drawing, an Excel 97
sheet) is named in a warning. Page
headers/footers and comments are not part of the body and are not indexed; a legacy
binary ``.doc`` is not a .docx and fails with that reason.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from docx.document import Document as DocumentObject
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.exceptions import PackageNotFoundError
from docx.opc.part import PartFactory
from docx.oxml import parse_xml
from docx.oxml.ns import qn
from docx.package import Package
from docx.parts.document import DocumentPart
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml.etree import XMLSyntaxError

from citeline.errors import ExtractionError
from citeline.extract import register
from citeline.extract.blocks import (
    MAX_HEADING_LEVEL,
    TextBuilder,
    check_package,
    described,
    embedded_text,
    escape_markdown,
    formatted_levels,
    main_part,
    not_a_package,
    one_paragraph,
    roman,
    squash,
)
from citeline.extract.drawingml import chart_text, decorative, drawing_alt, smartart_text
from citeline.extract.image import PictureReader
from citeline.types import Document

_HEADING_STYLE = re.compile(r"heading ([1-9])", re.I)
# Word's Heading 7-9 nest under the sixth level.
MAX_LEVEL = MAX_HEADING_LEVEL
# Word's size when neither a run, its styles nor the document defaults give one
# (ECMA-376: w:sz absent means 10 pt).
DEFAULT_SIZE_PT = 10.0


def _styles(paragraph: Paragraph) -> Iterator:  # type: ignore[type-arg]
    """The paragraph's style and the ones it is based on (custom styles inherit)."""
    style = paragraph.style
    for _ in range(10):
        if style is None:
            return
        yield style
        style = style.base_style


def _outline_level(element) -> int | None:  # type: ignore[no-untyped-def]
    """A w:pPr's w:outlineLvl as a heading level (0 -> 1; 9 is body text)."""
    ppr = None if element is None else element.find(qn("w:pPr"))
    lvl = None if ppr is None else ppr.find(qn("w:outlineLvl"))
    if lvl is None:
        return None
    try:
        value = int(lvl.get(qn("w:val")))
    except (TypeError, ValueError):
        return None
    return min(value + 1, MAX_LEVEL) if 0 <= value < 9 else None


def heading_level(paragraph: Paragraph) -> int | None:
    """1..6 for Title / Heading N (or a style based on one), or a paragraph (or
    style) with an outline level, else None."""
    if (level := _outline_level(paragraph._p)) is not None:
        return level
    for style in _styles(paragraph):
        name = (style.name or "").strip()
        if name.casefold() == "title":
            return 1
        if m := _HEADING_STYLE.fullmatch(name):
            return min(int(m.group(1)), MAX_LEVEL)
        if (level := _outline_level(style.element)) is not None:
            return level
    return None


def _default_size(d) -> float:  # type: ignore[no-untyped-def]
    """The document's default run size (styles.xml w:docDefaults), in points."""
    sz = d.styles.element.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{qn('w:rPr')}/{qn('w:sz')}")
    try:
        return int(sz.get(qn("w:val"))) / 2 if sz is not None else DEFAULT_SIZE_PT
    except (TypeError, ValueError):
        return DEFAULT_SIZE_PT


def run_formats(paragraph: Paragraph, default_size: float) -> list[tuple[int, float, bool]]:
    """(characters, size in points, bold) of each run with visible text, direct
    formatting first, then the paragraph's styles, then the document default."""
    styles = list(_styles(paragraph))
    size = next((s.font.size.pt for s in styles if s.font.size is not None), default_size)
    bold = next((s.font.bold for s in styles if s.font.bold is not None), False)
    out = []
    for run in paragraph.runs:
        n = len(run.text.strip())
        if not n:
            continue
        # a character style ("Strong") sits between the run and the paragraph's style
        char = run.style.font if run.style is not None else None
        run_size = next((f.size.pt for f in (run.font, char) if f is not None and f.size is not None),
                         size)
        run_bold = next((f.bold for f in (run.font, char) if f is not None and f.bold is not None),
                        bold)
        out.append((n, run_size, bool(run_bold)))
    return out


# Markup-compatibility's fallback repeats a drawing's content for old readers.
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
# Not shown as text in the paragraph: tracked deletions and the old place of a moved
# passage, a text box's own paragraphs, the properties (whose w:tabs are tab stops).
_NOT_SHOWN = frozenset({qn("w:del"), qn("w:moveFrom"), qn("w:txbxContent"), _MC_FALLBACK,
                        qn("w:pPr"), qn("w:rPr")})
_BREAKS = frozenset({qn("w:br"), qn("w:cr")})


def _glyphs(first: int, row: str) -> dict[int, str]:
    """A font's codes from ``first`` on, one character each; a space is a code with no
    Unicode equivalent (kept as its private-use character, see :func:`symbol_char`)."""
    return {first + i: c for i, c in enumerate(row) if c != " " or first + i == 0x20}


# The Symbol font's codes as Unicode: Adobe's Symbol encoding (the Unicode
# Consortium's MAPPINGS/VENDORS/ADOBE/symbol.txt; reportlab's "symbol" codec is the
# same table, checked in the tests). Left out are the pieces of tall brackets, the
# radical and arrow extenders and the registered/copyright/trademark variants, which
# Adobe maps to its own private-use code points. For 0x44, 0x57 and 0x6D symbol.txt
# gives both the Greek letter and INCREMENT / OHM SIGN / MICRO SIGN; the letter is
# taken, as it is what a reader types when searching for it; the angle brackets
# (0xE1, 0xF1) are written as U+3008/U+3009, the NFC form of symbol.txt's U+2329/U+232A.
SYMBOL_FONT = {
    **_glyphs(0x20, " !∀#∃%&∋()∗+,−./0123456789:;<=>?"),
    **_glyphs(0x40, "≅ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ[∴]⊥_"),
    **_glyphs(0x61, "αβχδεφγηιϕκλμνοπθρστυϖωξψζ{|}∼"),
    **_glyphs(0xA0, "€ϒ′≤⁄∞ƒ♣♦♥♠↔←↑→↓°±″≥×∝∂•÷≠≡≈…  ↵"),
    **_glyphs(0xC0, "ℵℑℜ℘⊗⊕∅∩∪⊃⊇⊄⊂⊆∈∉∠∇   ∏√⋅¬∧∨⇔⇐⇑⇒⇓"),
    **_glyphs(0xE0, "◊〈   ∑"),
    **_glyphs(0xF1, "〉∫⌠ ⌡"),
}
# Wingdings' bullets, arrows and check marks, as Alan Wood's Wingdings table
# (alanwood.net/demos/wingdings.html) maps them; its pictures (folders, clocks,
# hands, zodiac signs) are left as private-use characters.
WINGDINGS_FONT = {
    0x6C: "●", 0x6E: "■", 0x6F: "□", 0x71: "❑", 0x72: "❒", 0x75: "◆", 0x76: "❖",
    0x9F: "•", 0xA7: "▪", 0xA8: "◻", 0xAB: "★", 0xD8: "➢", 0xE8: "➔",
    0xEF: "⇦", 0xF0: "⇨", 0xF1: "⇧", 0xF2: "⇩",
    0xFB: "✗", 0xFC: "✓", 0xFD: "☒", 0xFE: "☑",
}
# w:sym's w:font (casefolded) -> its codes' Unicode characters; a font not here
# (Wingdings 2 and 3, Webdings, ...) keeps its private-use characters.
SYMBOL_FONTS: dict[str, dict[int, str]] = {"symbol": SYMBOL_FONT, "wingdings": WINGDINGS_FONT}
# Word writes a symbol font's code c as w:char="F0cc", in the private-use area.
_SYMBOL_AREA = range(0xF000, 0xF100)


def symbol_char(font: str | None, char: str | None) -> str:
    """The character a ``w:sym`` shows: ``w:char`` is hex, a symbol font's code plus
    0xF000 (``<w:sym w:font="Symbol" w:char="F061"/>`` is the Symbol font's 0x61, α).

    Fonts in :data:`SYMBOL_FONTS` give the Unicode character where one is known; any
    other code is kept as the private-use character Word stores (``chr(0xF0cc)``), so a
    symbol is never silently dropped, only left unnamed. A code below 0x100 is read as
    the font's code too (some writers leave out the F0). A ``w:char`` that is missing,
    not hex or no printable character (a control code, a surrogate) gives nothing."""
    try:
        code = int(char or "", 16)
    except ValueError:
        return ""
    glyphs = SYMBOL_FONTS.get((font or "").strip().casefold())
    if code in _SYMBOL_AREA or (glyphs is not None and 0x20 <= code < 0x100):
        own = code & 0xFF
        return (glyphs or {}).get(own) or chr(0xF000 + own)
    if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000 or code > 0x10FFFF:
        return ""
    return chr(code)


def paragraph_text(p) -> str:  # type: ignore[no-untyped-def]
    """The text Word shows for a paragraph element (``w:p``): python-docx's
    ``Paragraph.text`` reads only its direct runs and links, and leaves out what sits
    inside tracked insertions (``w:ins``), inline content controls (``w:sdt``), simple
    fields' results (``w:fldSimple``) and smart tags, and every symbol inserted from a
    symbol font (``w:sym``, read by :func:`symbol_char`). Hidden runs (``w:vanish``) are left out,
    as Word leaves them off the page."""
    out: list[str] = []

    def walk(el) -> None:  # type: ignore[no-untyped-def]
        for child in el.iterchildren():
            tag = child.tag
            if tag in _NOT_SHOWN:
                continue
            if tag == qn("w:t"):
                out.append(child.text or "")
            elif tag == qn("w:tab"):
                out.append("\t")
            elif tag in _BREAKS:
                out.append("\n")
            elif tag == qn("w:noBreakHyphen"):
                out.append("-")
            elif tag == qn("w:sym"):
                out.append(symbol_char(child.get(qn("w:font")), child.get(qn("w:char"))))
            elif tag == qn("w:r") and _hidden(child):
                continue
            else:
                walk(child)

    walk(p)
    return "".join(out)


def _hidden(run) -> bool:  # type: ignore[no-untyped-def]
    vanish = run.find(f"{qn('w:rPr')}/{qn('w:vanish')}")
    return vanish is not None and vanish.get(qn("w:val"), "true") not in ("0", "false", "off")


def _cell_text(tc) -> str:  # type: ignore[no-untyped-def]
    """A table cell's text: its paragraphs (each followed by the text boxes anchored in
    it), and a nested table's rows, in order."""
    parts: list[str] = []
    for child in _content(tc):
        if child.tag == qn("w:p"):
            parts.append(squash(paragraph_text(child)))
            parts.extend(squash(boxed) for boxed in text_boxes(child))  # Word shows them in the cell
        elif child.tag == qn("w:tbl"):
            parts.extend(_row_text(tr) for tr in _rows(child))
    return " ".join(p for p in parts if p)


def _content(element):  # type: ignore[no-untyped-def]
    """``element``'s children, with content controls (``w:sdt``) and custom XML
    elements (``w:customXml``: a template's or a contract system's own markup around
    paragraphs, tables, rows or cells) opened."""
    for child in element.iterchildren():
        if child.tag == qn("w:sdt"):
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from _content(content)
        elif child.tag == qn("w:customXml"):
            yield from _content(child)
        else:
            yield child


def _rows(tbl):  # type: ignore[no-untyped-def]
    """A table's rows (``w:tr``), with those inside a content control (a repeating
    section) in their place; python-docx's ``Table.rows`` skips those."""
    return [child for child in _content(tbl) if child.tag == qn("w:tr")]


def _row_text(tr) -> str:  # type: ignore[no-untyped-def]
    """A row's cells joined by `` | ``: a cell merged across columns once, and one
    merged down from the row above (``w:vMerge``) empty, as Word shows it."""
    cells = [_cell_text(tc) for tc in _content(tr) if tc.tag == qn("w:tc")]
    return " | ".join(cells) if any(cells) else ""


_TEXT_BOX = qn("w:txbxContent")
_SKIPPED = _NOT_SHOWN - {_TEXT_BOX}  # where no text box Word shows can sit


def text_boxes(el) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """The paragraphs and table rows of the text boxes anchored in ``el`` (a body
    paragraph), in order, a box inside a box after the paragraph holding it. Word shows
    them on the page; a drawing's copy for old readers (``mc:Fallback``: the same box
    again as VML) is not read twice."""
    for child in el.iterchildren():
        if child.tag in _SKIPPED or (child.tag == qn("w:r") and _hidden(child)):
            continue
        if child.tag != _TEXT_BOX:
            yield from text_boxes(child)
            continue
        for block in _content(child):
            if block.tag == qn("w:p"):
                text = one_paragraph(paragraph_text(block))
                if text:
                    yield text
                yield from text_boxes(block)
            elif block.tag == qn("w:tbl"):
                yield from (line for tr in _rows(block) if (line := _row_text(tr)))


_BLIP = qn("a:blip")  # a DrawingML picture's image (r:embed: its part)
_DRAWINGS = (qn("wp:inline"), qn("wp:anchor"))  # a drawing in the text (wp:docPr: its alt text)
_PICTURE_PROPS = qn("pic:cNvPr")  # a picture's own properties (in a group: its alt text)
_CHART = "{http://schemas.openxmlformats.org/drawingml/2006/chart}chart"  # r:id: its part
_OBJECT = qn("w:object")  # an embedded or linked object (OLE): its picture, its o:OLEObject
_OLE_OBJECT = "{urn:schemas-microsoft-com:office:office}OLEObject"  # r:id: the embedded part
_DIAGRAM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}relIds"  # r:dm: its data
_VML = "{urn:schemas-microsoft-com:vml}"
_VML_IMAGE = _VML + "imagedata"  # an older VML picture's (r:id)


def picture_items(el, said: frozenset[str] = frozenset()) -> Iterator[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """What Word shows of the drawings in ``el`` (a body paragraph or a table row), in
    order, those in its text boxes too: ``("alt", text)`` for a drawing's alt text
    (:func:`~citeline.extract.drawingml.drawing_alt`; a picture in a group has its own; an
    older VML shape's ``alt``, else its picture's ``o:title``), ``("picture", id)`` for
    the relationship id of each picture it shows. Not a drawing's copy for old readers
    (``mc:Fallback``), nor one in a hidden run or a deletion, nor a drawing marked
    decorative (:func:`~citeline.extract.drawingml.decorative`). A linked picture
    (``r:link``: a file outside the package) has no id. ``said``: the alt texts of the
    drawing ``el`` is in, not said again (Word writes a picture's alt text on the
    drawing and on the picture). A chart's drawing gives ``("chart", id)`` and a
    SmartArt diagram's ``("diagram", id)`` (its data part), each before its alt text; an
    embedded object (``w:object``) ``("object", id)`` (its part), then ``("preview",
    id)`` for the picture Word shows of it, read only when the object is not."""
    for child in el.iterchildren():
        if child.tag in _SKIPPED or (child.tag == qn("w:r") and _hidden(child)):
            continue
        alt = ""
        if child.tag in _DRAWINGS:
            if decorative(props := child.find(qn("wp:docPr"))):
                continue  # nothing to read, its pictures' text neither
            alt = drawing_alt(props)
            chart, diagram = next(child.iter(_CHART), None), next(child.iter(_DIAGRAM), None)
            if chart is not None or diagram is not None:  # what it says, then its alt text
                if chart is not None and (rid := chart.get(qn("r:id"))):
                    yield "chart", rid
                if diagram is not None and (rid := diagram.get(qn("r:dm"))):
                    yield "diagram", rid
                if alt and alt not in said:
                    yield "alt", alt
                continue
        elif child.tag == _PICTURE_PROPS:
            alt = drawing_alt(child)
        elif child.tag == _VML + "shape":
            image = child.find(_VML_IMAGE)
            alt = described(child.get("alt") or "") or described(
                image.get("{urn:schemas-microsoft-com:office:office}title") or ""
                if image is not None else "")
        if alt and alt not in said:
            yield "alt", alt
            said |= {alt}
        if child.tag == _OBJECT:  # an embedded object, and the picture Word shows of it
            ole = child.find(_OLE_OBJECT)
            if ole is not None and ole.get("Type", "Embed") == "Embed" and \
                    (rid := ole.get(qn("r:id"))):
                yield "object", rid
            for kind, value in picture_items(child, said):
                yield ("preview" if kind == "picture" else kind), value
        elif child.tag == _BLIP:
            if rid := child.get(qn("r:embed")):
                yield "picture", rid
        elif child.tag == _VML_IMAGE:
            if rid := child.get(qn("r:id")):
                yield "picture", rid
        else:
            yield from picture_items(child, said)


def picture_texts(el, part, reader) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """What each drawing :func:`picture_items` finds in ``el`` says: its alt text, the
    text of each picture that holds text, read by ``reader`` (a
    :class:`~citeline.extract.image.PictureReader`), what a chart says of itself
    (:func:`~citeline.extract.drawingml.chart_text`), a SmartArt diagram's text
    (:func:`~citeline.extract.drawingml.smartart_text`), an embedded object's text
    (:func:`~citeline.extract.blocks.embedded_text`). A chart or a diagram whose part is
    damaged is named in ``reader``'s warnings, as an object not read is."""
    read_object = False  # whether the last embedded object was read (then not its picture)
    for kind, value in picture_items(el):
        if kind == "alt":
            yield value
            continue
        if (found := part.related_parts.get(value)) is None:
            continue
        if kind == "object":
            text = embedded_text(found, reader.warnings)
            read_object = text is not None
        elif kind == "preview" and read_object:
            continue
        elif kind in ("picture", "preview"):
            text = reader.text(found.blob, str(found.partname))
        else:
            try:
                text = (chart_text if kind == "chart" else smartart_text)(parse_xml(found.blob))
            except XMLSyntaxError as exc:
                reader.warnings.append(f"the {kind} {found.partname} cannot be read ({exc}); "
                                       "not indexed")
                continue
        if text:
            yield text


_ALT_CHUNK = qn("w:altChunk")


def _blocks(element, parent):  # type: ignore[no-untyped-def]
    """Body paragraphs and tables in document order, including those inside content
    controls (``w:sdt``, common in templates) and custom XML elements
    (``w:customXml``), which python-docx's own iterator skips; an imported part's place
    (``w:altChunk``) is yielded as its element."""
    for child in _content(element):
        if child.tag == qn("w:p"):
            yield Paragraph(child, parent)
        elif child.tag == qn("w:tbl"):
            yield Table(child, parent)
        elif child.tag == _ALT_CHUNK:
            yield child


# An imported part (w:altChunk, ECMA-376 17.17.2.1) is a file Word merges into the
# document where it stands when it opens it: "Export to Word" features and libraries
# (html-docx-js, docx4j, Open XML's HtmlToWml) write a page's HTML so, often the whole
# body. HTML, XHTML and a web archive (MHT: the HTML inside a MIME message) are read
# by the HTML extractor; plain text as its lines.
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_MHT_TYPES = frozenset({"message/rfc822", "multipart/related", "application/x-mimearchive"})


def alt_chunk_text(part, warnings: list[str]) -> str:  # type: ignore[no-untyped-def]
    """An imported part's text, as the canonical text's blocks (an HTML page's headings
    as ``#`` lines), read as the HTML and text extractors read a file (its warnings,
    naming the part, added to ``warnings``); raises ExtractionError naming the part (not
    ``rel``, the document, which holds it) when it cannot be read."""
    from citeline.extract.html import HtmlExtractor, html_of_archive
    from citeline.extract.text import decode

    kind = (part.content_type or "").split(";")[0].strip().casefold()
    name = f"imported part {part.partname}"
    if kind == "text/plain":
        text, warning = decode(name, part.blob, western=True)
        warnings.extend([f"{name}: {warning}"] if warning else [])
        return "\n\n".join(escape_markdown(b) for b in
                            (one_paragraph(ln) for ln in text.splitlines()) if b)
    blob = part.blob if kind in _HTML_TYPES else html_of_archive(part.blob) \
        if kind in _MHT_TYPES else None
    if blob is None:
        raise ExtractionError(name, f"its type {kind or '(none)'} is not read (HTML, MHT and "
                                    "plain text are): open the document in Word and save it "
                                    "to merge the part")
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / ("chunk.xhtml" if kind == "application/xhtml+xml" else "chunk.html")
        page.write_bytes(blob)
        doc = HtmlExtractor().extract(page, name)
    warnings.extend(f"{name}: {w}" for w in doc.warnings)
    return doc.text


# Footnote and endnote references, and the parts their notes are kept in.
_NOTE_KINDS = {qn("w:footnoteReference"): ("footnote", RT.FOOTNOTES, qn("w:footnote")),
               qn("w:endnoteReference"): ("endnote", RT.ENDNOTES, qn("w:endnote"))}
# Word numbers footnotes 1, 2, 3 and endnotes i, ii, iii unless the document says
# otherwise (w:footnotePr / w:endnotePr's w:numFmt, ECMA-376 17.11.17).
_DEFAULT_NOTE_FORMAT = {"footnote": "decimal", "endnote": "lowerRoman"}


def note_number(n: int, fmt: str) -> str:
    """A note's number as Word shows it in ``fmt`` (a w:numFmt value; any format not
    known here is shown as decimal): ``note_number(4, "lowerRoman") == "iv"``."""
    if fmt in ("lowerRoman", "upperRoman") and n > 0:
        return roman(n) if fmt == "lowerRoman" else roman(n).upper()
    if fmt in ("lowerLetter", "upperLetter") and n > 0:  # a..z, then aa..zz (Word's way)
        letter = chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)
        return letter if fmt == "lowerLetter" else letter.upper()
    return str(n)


class Notes:
    """A document's footnotes and endnotes, each read as its own block right after the
    paragraph (or table row) that refers to it, as ``Footnote 1: ...`` or ``Endnote
    ii: ...``: Word shows a footnote at the foot of that page and an endnote at the
    end, and an exported PDF is indexed with them. Notes are numbered in the order
    their references are read, as Word numbers them; a reference with its own mark
    (``w:customMarkFollows``: a ``*``) is labelled with that mark."""

    def __init__(self, d) -> None:  # type: ignore[no-untyped-def]
        self._notes: dict[str, dict[str, object]] = {}
        self._format: dict[str, str] = {}
        self._count: dict[str, int] = {}
        settings = d.settings.element
        sect = d.element.body.find(qn("w:sectPr"))
        for kind, reltype, tag in _NOTE_KINDS.values():
            self._count[kind] = 0
            self._format[kind] = _DEFAULT_NOTE_FORMAT[kind]
            for holder in (settings, sect):  # the last section's properties win
                fmt = None if holder is None else holder.find(f"{qn(f'w:{kind}Pr')}/{qn('w:numFmt')}")
                if fmt is not None and fmt.get(qn("w:val")):
                    self._format[kind] = fmt.get(qn("w:val"))
            try:
                part = d.part.part_related_by(reltype)
            except KeyError:
                self._notes[kind] = {}
                continue
            root = parse_xml(part.blob)
            self._notes[kind] = {el.get(qn("w:id")): el for el in root.iterchildren(tag)
                                 if el.get(qn("w:type")) in (None, "normal")}

    def after(self, el) -> Iterator[str]:  # type: ignore[no-untyped-def]
        """The notes ``el`` refers to, in order, as blocks (a deleted or hidden
        reference, and one in a text box, refers to none)."""
        for child in el.iterchildren():
            if child.tag in _NOT_SHOWN or (child.tag == qn("w:r") and _hidden(child)):
                continue
            if child.tag not in _NOTE_KINDS:
                yield from self.after(child)
                continue
            kind = _NOTE_KINDS[child.tag][0]
            note = self._notes[kind].get(child.get(qn("w:id")))
            if child.get(qn("w:customMarkFollows")) in ("1", "true", "on"):
                following = child.getparent().getnext()
                label = squash(paragraph_text(following)) if following is not None else ""
            else:
                self._count[kind] += 1
                label = note_number(self._count[kind], self._format[kind])
            if note is None:
                continue
            text = " ".join(t for t in (_note_block(b) for b in _content(note)) if t)
            if text:
                yield f"{kind.capitalize()} {label}: {text}" if label else f"{kind.capitalize()}: {text}"


def _note_block(block) -> str:  # type: ignore[no-untyped-def]
    if block.tag == qn("w:p"):
        return squash(paragraph_text(block))
    if block.tag == qn("w:tbl"):
        return " ".join(line for tr in _rows(block) if (line := _row_text(tr)))
    return ""


# The Word packages read, by suffix, with their media types: a document, one with macros
# (which are not run, nor read), a template, a template with macros
WORD_MEDIA_TYPES = {
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".docm": "application/vnd.ms-word.document.macroEnabled.12",
    ".dotx": "application/vnd.openxmlformats-officedocument.wordprocessingml.template",
    ".dotm": "application/vnd.ms-word.template.macroEnabled.12",
}
# ... and the content types of their main part, which python-docx reads for .docx's alone
WORD_MAIN_PARTS = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    "application/vnd.ms-word.document.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
)


def open_word(path: Path) -> DocumentObject:
    """The Word document of a package whose main part is any of :data:`WORD_MAIN_PARTS`
    (``docx.Document`` opens a ``.docx``'s alone); ValueError naming the content type of
    one that is no Word document (a workbook renamed)."""
    return main_part(Package, PartFactory, DocumentPart, WORD_MAIN_PARTS, path,
                     "a Word document").document


class DocxExtractor:
    name = "docx"
    version = "17"  # 2: outline levels, headings from formatting without heading styles;
    # 3: a large hand-set title may end like a sentence (the PDF rule); captions and
    # admonition labels are not headings; 4: the text Word shows (tracked insertions,
    # inline content controls, fields' results, smart tags, nested tables, rows of a
    # repeating section; not hidden runs), and a cell merged down is shown once; 5: text
    # boxes, after the paragraph they are anchored in; 6: symbol-font characters (w:sym);
    # 7: custom XML elements (w:customXml) around blocks, rows and cells are opened, and
    # a text box in a table cell is read in the cell; 8: footnotes and endnotes;
    # 9: imported HTML, MHT and text parts (w:altChunk), other imported parts warned of;
    # 10: an imported part is read by html extractor 15 (an ordered list's numbers, <pre>'s
    # blank lines, no screen-reader-only text; Windows-1252 when no charset is declared, as
    # a text part is, with their warnings), not as UTF-8 with U+FFFD for what is not;
    # 11: by html 21, a <pre> a fenced code block (html 16-20's changes to a page's text
    # had left this version as it was, so a document indexed before them was not re-read);
    # 12: by html 22, an imported page's API furniture ("Source" links, toggle labels) dropped;
    # 13: by html 23, its own table of contents in a <dl>, DocBook's navigation tables;
    # 14: the text of its pictures, read by OCR, after the paragraph or row showing them;
    # 15: a drawing's alt text before its pictures' text; 16: what a chart says of itself
    # and a SmartArt diagram's text, each in its place, before its alt text; 17: an
    # embedded workbook's rows (a document's, a deck's text) where the object is shown
    suffixes = tuple(WORD_MEDIA_TYPES)

    def extract(self, path: Path, rel: str) -> Document:
        if path.stat().st_size == 0:
            raise ExtractionError(rel, "empty file (0 bytes), not a Word document")
        suffix = path.suffix.lower()
        if not zipfile.is_zipfile(path):
            raise ExtractionError(rel, not_a_package(path, f"{suffix} file", ".doc"))
        check_package(path, rel, "Word document")
        try:
            d = open_word(path)
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, XMLSyntaxError) as exc:
            raise ExtractionError(rel, f"not a readable Word {suffix} file ({exc})") from exc

        blocks = list(_blocks(d.element.body, d._body))
        paragraphs = [b for b in blocks if isinstance(b, Paragraph)]
        levels = {id(p): heading_level(p) for p in paragraphs}
        if not any(levels.values()):  # no heading styles: the formatting shows them
            size = _default_size(d)
            formatted = formatted_levels([(paragraph_text(p._p), run_formats(p, size))
                                          for p in paragraphs])
            levels = {id(p): lv for p, lv in zip(paragraphs, formatted, strict=True)}
        notes = Notes(d)
        warnings: list[str] = []
        out = TextBuilder()
        pictures = PictureReader(warnings)
        first_heading: str | None = None
        for block in blocks:
            if isinstance(block, Paragraph):
                level = levels[id(block)]
                if level is not None:
                    title = squash(paragraph_text(block._p))
                    if title:
                        out.add("#" * level + " " + title, sep="\n\n")
                        first_heading = first_heading or title
                else:
                    text = one_paragraph(paragraph_text(block._p))
                    if text:
                        out.add(escape_markdown(text), sep="\n\n")
                for boxed in text_boxes(block._p):  # after the paragraph they sit in
                    out.add(escape_markdown(boxed), sep="\n\n")
                for read in picture_texts(block._p, d.part, pictures):
                    out.add(escape_markdown(read), sep="\n\n")
                for note in notes.after(block._p):
                    out.add(escape_markdown(note), sep="\n\n")
            elif not isinstance(block, Table):  # an imported part (w:altChunk)
                try:
                    chunk = d.part.related_parts[block.get(qn("r:id"))]
                    out.add(alt_chunk_text(chunk, warnings), sep="\n\n")
                except KeyError:
                    warnings.append(f"an imported part ({block.get(qn('r:id'))}) is missing "
                                    "from the package, not indexed")
                except ExtractionError as exc:
                    warnings.append(f"{exc.path}: {exc.reason}; not indexed")
            else:
                for tr in _rows(block._tbl):
                    line = _row_text(tr)
                    if line:
                        out.add(escape_markdown(line), sep="\n\n")
                    for read in picture_texts(tr, d.part, pictures):
                        out.add(escape_markdown(read), sep="\n\n")
                    for note in notes.after(tr):
                        out.add(escape_markdown(note), sep="\n\n")
        pictures.close()
        text = out.text()
        if not text.strip():
            raise ExtractionError(rel, "; ".join(warnings) or "the document has no text in its body")
        title = squash(d.core_properties.title or "") or first_heading or path.stem
        return Document(
            path=rel,
            title=title,
            text=text,
            media_type=WORD_MEDIA_TYPES.get(suffix, WORD_MEDIA_TYPES[".docx"]),
            extractor=self.name,
            extractor_version=self.version,
            warnings=tuple(warnings),
            headings="atx",
        )


register(DocxExtractor())
