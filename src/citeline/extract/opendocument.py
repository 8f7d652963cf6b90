"""OpenDocument text (.odt) and presentations (.odp), LibreOffice's own formats, read
with lxml (BSD; installed with python-docx) straight from the package's content.xml.

An OpenDocument file is a ZIP package (OASIS ODF 1.2, Part 3): a ``mimetype`` entry
naming its kind, ``content.xml`` with the body, ``styles.xml`` with the named styles
and the page headers/footers, ``meta.xml`` with the title. The body is read from
content.xml alone, so page headers and footers are not indexed.

**Text (.odt)**, Markdown-shaped as a Word file's (:mod:`citeline.extract.docx`): a
heading (``text:h``) becomes a ``#``-heading line of its ``text:outline-level``
(its style's default outline level, else 1; 7-10 nest under the sixth), as does a
paragraph in the *Title* style (level 1) or one whose style has an outline level; other
paragraphs are blocks separated by a blank line, body text that merely looks like a
heading escaped (``\\# ...``). A list item is a block; a numbered list's item opens
with its number as the list style draws it (``2. ``, ``b) ``, ``IV. ``, ``1.2. `` for a
level showing its parents' numbers; numbering continues across an interrupted list
that says so, and an item's own start value restarts it), a bulleted one's with no
bullet, which is no word to search for (as the HTML extractor writes lists). A table
becomes one block per row with its cells joined by `` | `` (a cell merged across
columns once, one merged down from the row above empty, a nested table's rows inside
their cell). A footnote or an endnote is a block of its own right after the paragraph
or row citing it, labelled with the mark the document shows (``Footnote 1: ...``,
``Endnote ii: ...``). The text of frames and shapes (``draw:frame/draw:text-box``, a
shape's own text) is read after the paragraph it is anchored in, a frame inside a frame
after the paragraph holding it; a frame anchored to the page where the body lists it.
A picture's text (a screenshot, a pasted scan: ``draw:frame/draw:image``) is read by OCR
as a picture file is and goes where the frame's text would, a picture in a table cell
after its row (as the Word reader puts them; :class:`FramePictures`). Inline: ``text:s`` is a space, ``text:tab`` one too, ``text:line-break`` a line break
inside the block; soft page breaks, bookmarks and change marks are nothing; a table
of contents or an index is read as its paragraphs (as Word's is). Not indexed:
tracked deletions (``text:tracked-changes`` keeps them apart from the body; tracked
insertions are in the body and are read), comments (``office:annotation``), hidden
text (a style with ``text:display="none"``, a hidden-text field that is hidden), the
numbers LibreOffice caches in a heading or list item (``text:number``: the list's own
are drawn from its style, a heading's outline numbering is left out as Word's is).

**Presentations (.odp)** are written exactly as a PowerPoint deck is
(:func:`citeline.extract.slides.deck_document`): each ``draw:page`` is a slide
section titled by its title frame (``presentation:class="title"``; ``Slide N`` when
it has none), then its frames and shapes in the order the page lists them (groups
opened in place), a block each with one line per paragraph, a table's rows as ``cell
| cell`` blocks (a merged cell shown once), and last the speaker notes
(``presentation:notes``) as a block starting ``Notes:``. Each slide is a SLIDE region,
so a citation says ``#slide=N`` (hidden slides counted, as Impress numbers them).
Footer, date and page-number frames are left out, and so is the furniture the
PowerPoint reader drops (a text that is only the slide's number, a short text repeated
on most slides). A picture's alt text and its text, read by OCR, are blocks in its
place among the shapes. A chart (an embedded chart object, in a text or on a slide)
says what it is, as an Office chart does (:meth:`FramePictures.chart`), before its alt
text. An embedded spreadsheet or text document is read as that file is, in its place
(a spreadsheet's rows a block each, as a table's: :meth:`FramePictures.embedded`). Not
read: other embedded objects (a formula).

**Flat XML and templates.** A flat OpenDocument file (``.fodt``, ``.fodp``: LibreOffice's
"Flat XML" saves, one XML file whose ``office:document`` root holds the package's parts)
is read as the package it stands for (:func:`flat_xml`), so it gives exactly the text,
regions and citations of the ``.odt``/``.odp`` with the same content; the file's own
contents decide, so a flat file named ``.odt`` is read too. A template (``.ott``,
``.otp``: a package whose mimetype ends ``-template``) is read as the document it starts.

A file that cannot be read says why: not a ZIP package nor flat XML (a legacy binary
file, a download cut short), a flat file whose root is no ``office:document`` or that is
another kind (``a flat OpenDocument spreadsheet, not a text document: name it .fods``)
or that is no well-formed XML, a ZIP that is no OpenDocument
package (no ``mimetype``; an Office Open XML file renamed), an OpenDocument file of
another kind (a spreadsheet named .odt), a password-protected one (its manifest lists
``manifest:encryption-data``: the parts are encrypted and cannot be read), checked by
:func:`check_odf` for any OpenDocument kind (a spreadsheet's too). Like the
Office extractors', the package is checked against zip bombs before anything is
unpacked (:func:`citeline.extract.blocks.check_package`), and its XML is parsed without
entities, network or DTDs (and within libxml2's default depth and text-node limits;
a flat file's inline pictures are taken out first, and read from there).
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lxml import etree

from citeline.errors import ExtractionError
from citeline.extract import register
from citeline.extract.blocks import (
    MAX_HEADING_LEVEL,
    MAX_UNPACKED,
    TextBuilder,
    check_package,
    described,
    escape_markdown,
    not_a_package,
    one_paragraph,
    read_embedded,
    squash,
)
from citeline.extract.drawingml import chart_sentence
from citeline.extract.html import list_label
from citeline.extract.image import SUFFIXES, PictureReader
from citeline.extract.slides import Slide, deck_document
from citeline.types import Document

_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "manifest": "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "chart": "urn:oasis:names:tc:opendocument:xmlns:chart:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
}


def qn(tag: str) -> str:
    """``"text:p"`` as lxml's Clark notation, ``"{urn:...:text:1.0}p"``."""
    prefix, local = tag.split(":")
    return f"{{{_NS[prefix]}}}{local}"


_DRAW = "{" + _NS["draw"] + "}"
_P, _H, _LIST, _TABLE = qn("text:p"), qn("text:h"), qn("text:list"), qn("table:table")
_TEXT_BOX = qn("draw:text-box")
_NOTE = qn("text:note")
_S, _TAB, _LINE_BREAK = qn("text:s"), qn("text:tab"), qn("text:line-break")
_SPAN, _HIDDEN_TEXT = qn("text:span"), qn("text:hidden-text")
_STYLE_NAME = qn("text:style-name")
_ROW, _CELL, _COVERED = qn("table:table-row"), qn("table:table-cell"), qn("table:covered-table-cell")
_ROW_GROUPS = frozenset(qn(f"table:{t}") for t in ("table-header-rows", "table-rows",
                                                   "table-row-group"))
# Where body paragraphs sit besides office:text itself: sections, an index's
# generated body and its title. An index's *-source (its entry templates) is not text.
_CONTAINERS = frozenset(qn(t) for t in ("office:text", "text:section", "text:index-body",
                                        "text:index-title", "text:numbered-paragraph"))
_INDEXES = frozenset(qn(f"text:{t}") for t in (
    "table-of-content", "illustration-index", "table-index", "object-index", "user-index",
    "alphabetical-index", "bibliography"))
# Inside a paragraph and not shown as its text: comments, ruby annotations' small
# text, the numbers LibreOffice caches (see the module doc), page breaks.
_INLINE_SKIPPED = frozenset(qn(t) for t in (
    "office:annotation", "office:annotation-end", "text:ruby-text", "text:number",
    "text:soft-page-break"))
# Parts of a drawing that are no text on the page: a picture, an embedded object, the
# alt text (svg:title/desc), an image map.
_NOT_DRAWN_TEXT = frozenset(qn(t) for t in (
    "draw:image", "draw:object", "draw:object-ole", "draw:plugin", "draw:applet",
    "draw:floating-frame", "draw:image-map", "draw:contour-polygon", "draw:contour-path",
    "draw:glue-point", "draw:enhanced-geometry", "svg:title", "svg:desc"))
# ODF's white space (ODF 1.2 Part 1, 6.1.2): inside a paragraph, runs of space, tab, CR
# and LF are one space; text:s, text:tab and text:line-break write the others.
_WS = re.compile(r"[ \t\r\n]+")
# An element repeated by number-columns-repeated is expanded at most this many times:
# writers store identical neighbouring cells once (mostly empty ones), and a crafted
# count of 10^9 must not cost gigabytes.
MAX_REPEAT = 256
# A list style's level styles: a number, a bullet or a picture.
_LEVEL_STYLES = frozenset(qn(f"text:list-level-style-{k}") for k in ("number", "bullet", "image"))
# Styles inherit through parent-style-name; a chain longer than this is a loop.
MAX_STYLE_DEPTH = 10

# The kinds read here (a spreadsheet's package is checked the same way, check_odf).
Kind = Literal["text", "presentation", "spreadsheet"]
_MIME = "application/vnd.oasis.opendocument."
# Other OpenDocument kinds, named with their suffix when a file of one is misnamed.
_KINDS = {"text": ("text document", ".odt"), "spreadsheet": ("spreadsheet", ".ods"),
          "presentation": ("presentation", ".odp"), "graphics": ("drawing", ".odg"),
          "formula": ("formula", ".odf"), "chart": ("chart", ".odc"),
          "image": ("image", ".odi"), "base": ("database", ".odb"),
          "text-master": ("master document", ".odm")}
# The legacy binary format a file of each kind may really be (not_a_package's names).
_LEGACY = {"text": ".doc", "presentation": ".ppt", "spreadsheet": ".xls"}
# Office Open XML packages, told by the part that holds their body.
_OOXML = (("word/", ".docx"), ("xl/", ".xlsx"), ("ppt/", ".pptx"))


def untrusted_parser() -> etree.XMLParser:
    """The parser of a package's XML, which is untrusted input: no entities, DTDs or
    network (the OpenDocument, EPUB and spreadsheet readers')."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


@dataclass(frozen=True)
class _Package:
    """An OpenDocument package's parsed XML: content (and styles for text), the title."""

    content: etree._Element
    styles: etree._Element | None
    title: str  # meta.xml's dc:title, "" when none
    inline: list[bytes] | None  # a flat file's pictures' base64 data (flat_xml); None: a ZIP


def _not_a_zip(path: Path, kind: Kind) -> str:
    """Why ``path``, neither a ZIP package nor a flat OpenDocument file, is not read."""
    suffix = _KINDS[kind][1]
    if path.suffix.lower() == flat_suffix(kind):
        return (f"not a flat OpenDocument {flat_suffix(kind)} file (nor a packaged {suffix}): "
                f"no office:document element opens it")
    return not_a_package(path, f"{suffix} file", _LEGACY[kind])


# --- flat XML (.fodt, .fods, .fodp) ----------------------------------------------------

# A flat OpenDocument file (ODF 1.2 Part 1, 2.1.2; LibreOffice's "Flat XML" saves) is
# one XML document, office:document, holding what a package's parts hold: office:meta,
# office:styles, office:automatic-styles (the body's and the page furniture's; their
# names do not clash), office:master-styles and office:body, its pictures inline.
_FLAT_ROOT = qn("office:document")
# How far into a file its office:document root is looked for (after an XML declaration,
# a comment or two): LibreOffice's own type detection reads no further.
FLAT_SNIFF_BYTES = 4096
# A picture kept inline (base64 in office:binary-data): one over 10 MB is a text node
# past libxml2's limit, which would refuse the whole file. Taken out before the XML is
# parsed (written so by LibreOffice and odfpy alike; another prefix is parsed as it is),
# and kept aside for OCR where the text reader wants it (flat_xml's ``inline``).
_BINARY_DATA = re.compile(rb"(<office:binary-data(?:\s[^>]*)?>)([^<]*)(</office:binary-data>)")
# Kinds with a flat form, and its suffix (LibreOffice writes these four).
_FLAT_KINDS = frozenset({"text", "spreadsheet", "presentation", "graphics"})


def flat_suffix(kind: str) -> str:
    """``flat_suffix("text") == ".fodt"``: the flat XML suffix of a kind's ``.odt``."""
    suffix = _KINDS[kind][1]
    return ".f" + suffix[1:] if kind in _FLAT_KINDS else suffix


def is_flat(path: Path) -> bool:
    """Whether ``path`` (no ZIP package) opens as a flat OpenDocument file does."""
    with path.open("rb") as f:
        return b"<office:document" in f.read(FLAT_SNIFF_BYTES)


def flat_xml(path: Path, rel: str, kind: Kind, inline: list[bytes] | None = None) -> bytes:
    """A flat OpenDocument file's XML, its inline pictures emptied, once its root says it
    is an OpenDocument file of ``kind`` (or its template); ExtractionError naming ``rel``
    and saying why otherwise. Read whole, as a package's content.xml is, so bounded as a
    package's unpacked parts are (:data:`~citeline.extract.blocks.MAX_UNPACKED`). Given a
    list ``inline``, each picture's base64 data is appended to it and its element holds
    ``#N`` instead, its index there (:class:`FramePictures` reads it)."""
    flat = flat_suffix(kind)
    size = path.stat().st_size
    if size > MAX_UNPACKED:
        raise ExtractionError(rel, f"this flat OpenDocument file is {size >> 20} MB (the most "
                                   f"read is {MAX_UNPACKED >> 20} MB): too big to index")

    def keep(m: re.Match[bytes]) -> bytes:
        if inline is None:
            return m[1] + m[3]
        inline.append(m[2])
        return m[1] + b"#%d" % (len(inline) - 1) + m[3]

    data = _BINARY_DATA.sub(keep, path.read_bytes())
    try:
        _, root = next(etree.iterparse(io.BytesIO(data), events=("start",),
                                       resolve_entities=False, no_network=True, load_dtd=False))
    except (etree.XMLSyntaxError, StopIteration) as exc:
        raise ExtractionError(rel, f"not a readable flat OpenDocument {flat} file ({exc})") from exc
    if root.tag != _FLAT_ROOT:
        local = etree.QName(root).localname
        raise ExtractionError(rel, f"not a flat OpenDocument {flat} file: its root element is "
                                   f"{local}, not office:document"
                              + (" (a package's part saved alone)"
                                 if local.startswith("document-") else ""))
    mimetype = (root.get(qn("office:mimetype")) or "").strip()
    # (an office:mimetype is required; one without is read, and its body says what it is)
    if mimetype and mimetype not in (_MIME + kind, f"{_MIME}{kind}-template"):
        other = mimetype.removeprefix(_MIME).removesuffix("-template")
        if mimetype.startswith(_MIME) and other in _KINDS:
            raise ExtractionError(rel, f"a flat OpenDocument {_KINDS[other][0]}, not a "
                                       f"{_KINDS[kind][0]}: name it {flat_suffix(other)}")
        raise ExtractionError(rel, f"not a flat OpenDocument {flat} file (its office:mimetype "
                                   f"is {mimetype!r})")
    return data


def _open_flat(path: Path, rel: str, kind: Kind) -> _Package:
    """A flat file as the package it stands for: its root holds content.xml's automatic
    styles and body, styles.xml's named styles, meta.xml's title."""
    inline: list[bytes] = []
    data = flat_xml(path, rel, kind, inline)
    try:
        root = etree.fromstring(data, untrusted_parser())
    except etree.XMLSyntaxError as exc:
        raise ExtractionError(rel, f"not a readable flat OpenDocument {flat_suffix(kind)} "
                                   f"file ({exc})") from exc
    found = root.find(f"{qn('office:meta')}/{qn('dc:title')}")
    title = squash(found.text or "") if found is not None else ""
    return _Package(root, root if kind == "text" else None, title, inline)


def _mimetype(z: zipfile.ZipFile, names: set[str], manifest: etree._Element | None) -> str | None:
    """The package's kind: its ``mimetype`` entry, else the manifest's root entry (the
    entry is only a "should" in ODF 1.2 Part 3, 3.3)."""
    if "mimetype" in names:
        return z.read("mimetype").decode("ascii", "replace").strip()
    for entry in manifest.iter(qn("manifest:file-entry")) if manifest is not None else ():
        if entry.get(qn("manifest:full-path")) == "/":
            return (entry.get(qn("manifest:media-type")) or "").strip() or None
    return None


def _wrong_kind(mimetype: str | None, names: set[str], kind: Kind) -> str | None:
    """Why a ZIP package is not an OpenDocument file of ``kind``, or None when it is
    (a template of that kind is read as the document it starts)."""
    if mimetype in (_MIME + kind, f"{_MIME}{kind}-template"):
        return None
    if mimetype and mimetype.startswith(_MIME):
        other = mimetype[len(_MIME):].removesuffix("-template")
        name, own = _KINDS.get(other, (other, "its own suffix"))
        return f"an OpenDocument {name}, not a {_KINDS[kind][0]}: name it {own}"
    if "[Content_Types].xml" in names:
        own = next((s for prefix, s in _OOXML if any(n.startswith(prefix) for n in names)),
                   ".docx, .xlsx or .pptx")
        return f"an Office Open XML file, not an OpenDocument one: name it {own}"
    what = f" ({mimetype})" if mimetype else " (it has no mimetype entry)"
    return f"a ZIP archive but not an OpenDocument {_KINDS[kind][1]} file{what}"


def package_kind(mimetype: str | None, names: set[str]) -> tuple[str, str] | None:
    """What an office ZIP package is, for a reader of another format to name it: (what,
    its suffix), ``("an OpenDocument spreadsheet", ".ods")``, ``("an Office Open XML
    file", ".docx")``; None when it is neither (``names``: the package's entries)."""
    if mimetype and mimetype.startswith(_MIME):
        name, own = _KINDS.get(mimetype[len(_MIME):].removesuffix("-template"),
                               (mimetype[len(_MIME):], "its own suffix"))
        return f"an OpenDocument {name}", own
    if "[Content_Types].xml" in names:
        own = next((s for prefix, s in _OOXML if any(n.startswith(prefix) for n in names)),
                   ".docx, .xlsx or .pptx")
        return "an Office Open XML file", own
    return None


def check_odf(z: zipfile.ZipFile, rel: str, kind: Kind) -> None:
    """Raise ExtractionError when the open ZIP package ``z`` is not an OpenDocument file
    of ``kind`` (another kind, an Office Open XML file, no ODF package at all) or when its
    manifest says parts are encrypted (a password, or a GnuPG key): those parts cannot be
    read, and the reason says what to do."""
    names = set(z.namelist())
    manifest = None
    if "META-INF/manifest.xml" in names:
        manifest = etree.fromstring(z.read("META-INF/manifest.xml"), untrusted_parser())
    if reason := _wrong_kind(_mimetype(z, names, manifest), names, kind):
        raise ExtractionError(rel, reason)
    if manifest is not None and manifest.find(f".//{qn('manifest:encryption-data')}") is not None:
        raise ExtractionError(rel, f"the {_KINDS[kind][1]} is encrypted with a password; save "
                                   "a copy without the password to index it")


def open_package(path: Path, rel: str, kind: Kind) -> _Package:
    """The package's XML (styles.xml only for text), or ExtractionError saying why it
    cannot be read. A flat XML file (:func:`flat_xml`) is read as the package it stands
    for, under either suffix: the same document gives the same text."""
    what = f"OpenDocument {_KINDS[kind][0]}"
    unreadable = f"not a readable OpenDocument {_KINDS[kind][1]} file"
    if path.stat().st_size == 0:
        raise ExtractionError(rel, f"empty file (0 bytes), not an {what}")
    if not zipfile.is_zipfile(path):
        if is_flat(path):  # whatever its suffix says, as LibreOffice opens either
            return _open_flat(path, rel, kind)
        raise ExtractionError(rel, _not_a_zip(path, kind))
    try:
        check_package(path, rel, what)
        with zipfile.ZipFile(path) as z:
            check_odf(z, rel, kind)
            names = set(z.namelist())
            if "content.xml" not in names:
                raise ExtractionError(rel, f"{unreadable} (it has no content.xml)")
            content = etree.fromstring(z.read("content.xml"), untrusted_parser())
            styles = None
            if kind == "text" and "styles.xml" in names:
                styles = etree.fromstring(z.read("styles.xml"), untrusted_parser())
            title = ""
            if "meta.xml" in names:
                found = etree.fromstring(z.read("meta.xml"), untrusted_parser()).find(f".//{qn('dc:title')}")
                title = squash(found.text or "") if found is not None else ""
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, KeyError, ValueError,
            etree.XMLSyntaxError) as exc:
        raise ExtractionError(rel, f"{unreadable} ({exc})") from exc
    return _Package(content, styles, title, None)


# --- pictures -----------------------------------------------------------------------

_FRAME, _IMAGE, _BINARY = qn("draw:frame"), qn("draw:image"), qn("office:binary-data")
_OBJECTS = (qn("draw:object"), qn("draw:object-ole"))
_DESC, _TITLE = qn("svg:desc"), qn("svg:title")
_HREF = "{http://www.w3.org/1999/xlink}href"


class FramePictures:
    """The text of the pictures a body shows (a screenshot, a pasted scan), each read by
    ``reader`` (:class:`~citeline.extract.image.PictureReader`, as a Word document's are):
    a package's part by its ``xlink:href``, a flat file's inline data, after the frame's
    alt text (:meth:`alt`). A picture linked from outside the package (a file beside
    it, a web address) is not the document's and is not read; its alt text is."""

    def __init__(self, path: Path, inline: list[bytes] | None, reader: PictureReader) -> None:
        self.path = path
        self.inline = inline  # a flat file's pictures (flat_xml); None: a package's parts
        self.reader = reader

    def text(self, frame: etree._Element) -> str:
        """The alt text of the picture or object ``frame`` (a ``draw:frame``) shows, then
        the picture's text, "" for none. A frame may hold one picture in several formats,
        the preferred first (LibreOffice stores an SVG with a PNG of it): the first in a
        format the image reader opens is read. An embedded object's stand-in picture (a
        chart's or a formula's preview) is not."""
        images = list(frame.iterchildren(_IMAGE))
        if any(etree.QName(k).localname == "decorative" and v == "true"
               for k, v in frame.attrib.items()):
            return ""  # LibreOffice's mark of a border, a divider: nothing to read
        if not images or any(True for _ in frame.iterchildren(*_OBJECTS)):
            return self.alt(frame)
        image = next((i for i in images if _opened(i)), images[0])
        name = _picture_name(image, frame)
        data = self._data(image, name)
        read = self.reader.text(data, name) if data is not None else ""
        return "\n\n".join(t for t in (self.alt(frame), read) if t)

    @staticmethod
    def alt(frame: etree._Element) -> str:
        """The alt text of the picture or object (a chart, a formula) ``frame`` shows:
        its ``svg:desc``, else its ``svg:title`` (ODF 1.3 Part 3, 10.3.1; the
        description and title fields of LibreOffice's alt text, where a Word document's
        ``descr`` and ``title`` go), as :func:`~citeline.extract.blocks.described` keeps
        it; "" for a frame of text."""
        if not any(True for _ in frame.iterchildren(_IMAGE, *_OBJECTS)):
            return ""
        return described(frame.findtext(_DESC) or "") or described(frame.findtext(_TITLE) or "")

    def blocks(self, frame: etree._Element) -> list[str]:
        """What the frame ``frame`` shows as a text or a slide reads it: a chart says what
        it is (:meth:`chart`), an embedded spreadsheet or text gives its text
        (:meth:`embedded`), then the alt text and the picture's text (:meth:`text`);
        those that say something, in that order."""
        return [t for t in (self.chart(frame), self.embedded(frame), self.text(frame)) if t]

    def chart(self, frame: etree._Element) -> str:
        """What the chart ``frame`` (a ``draw:frame``) shows says of itself
        (:func:`~citeline.extract.drawingml.chart_sentence`, as an Office chart's): the
        embedded object's content (``Object 1/content.xml`` in the package, or a flat
        file's inline ``office:document``), its ``chart:chart``'s class, title and axes'
        titles, and its series' names, the header row of its own data table (the cells it
        names, cached). "" for a frame showing no chart."""
        obj = frame.find(qn("draw:object"))
        if obj is None:
            return ""
        root = obj.find(qn("office:document"))  # a flat file's, inline
        if root is None:
            if (href := self.part(obj)) is None:
                return ""
            try:
                with zipfile.ZipFile(self.path) as z:
                    root = etree.fromstring(z.read(f"{href}/content.xml"), untrusted_parser())
            except (KeyError, etree.XMLSyntaxError):  # an object with no content, or damaged
                return ""
        chart = next(root.iter(qn("chart:chart")), None)
        if chart is None:
            return ""

        def words(el: etree._Element | None) -> str:  # its paragraphs' (a cell also names
            if el is None:  # its range in an svg:desc)
                return ""
            return " ".join(" ".join("".join(p.itertext()) for p in
                                     el.iter(qn("text:p"), qn("text:h"))).split())

        kind = (chart.get(qn("chart:class")) or "").rpartition(":")[2]
        plot = chart.find(qn("chart:plot-area"))
        if kind == "bar" and plot is not None:  # drawn upright unless its style says vertical
            style = next((st for st in root.iter(qn("style:style"))  # (bars along the y axis)
                          if st.get(qn("style:name")) == plot.get(qn("chart:style-name"))), None)
            props = style.find(qn("style:chart-properties")) if style is not None else None
            if props is None or props.get(qn("chart:vertical")) != "true":
                kind = "column"
        header = next(root.iter(qn("table:table-header-rows")), None)
        series = [words(cell) for cell in (header.iter(qn("table:table-cell"))
                                           if header is not None else [])][1:]
        axes = [t for axis in chart.iter(qn("chart:axis"))
                if (t := words(axis.find(qn("chart:title"))))]
        return chart_sentence(words(chart.find(qn("chart:title"))), [kind] if kind else [],
                              [n for n in series if n], axes)

    def embedded(self, frame: etree._Element) -> str:
        """The text of the spreadsheet or text document ``frame`` (a ``draw:frame``)
        embeds (an object ``Object 1/`` in the package, a flat file's inline
        ``office:document``), read as that file is: a spreadsheet's rows a block each (as
        a table's rows are), a text's blocks as they are. "" for any other frame or
        object (a chart: :meth:`chart`; a formula), or one that cannot be read, said in
        the reader's warnings."""
        obj = frame.find(qn("draw:object"))
        if obj is None:
            return ""
        inline = obj.find(qn("office:document"))
        kind = inline.get(qn("office:mimetype"), "") if inline is not None else ""
        with tempfile.TemporaryDirectory() as folder:
            if inline is not None:  # a flat file's: its own flat file
                if kind not in _EMBEDDED:
                    return ""
                path = Path(folder) / f"embedded.f{_EMBEDDED[kind]}"
                path.write_bytes(etree.tostring(inline))
            else:
                if (href := self.part(obj)) is None:
                    return ""
                folder_name = href.rstrip("/") + "/"
                try:
                    with zipfile.ZipFile(self.path) as z:
                        if (kind := _object_type(z, href)) not in _EMBEDDED:
                            return ""
                        path = Path(folder) / f"embedded.{_EMBEDDED[kind]}"
                        with zipfile.ZipFile(path, "w") as out:  # the object as a package
                            out.writestr("mimetype", kind)
                            for part in z.namelist():
                                if part.startswith(folder_name):
                                    out.writestr(part[len(folder_name):], z.read(part))
                except (zipfile.BadZipFile, zlib.error, EOFError, KeyError) as exc:
                    self.reader.warnings.append(f"the embedded {href} cannot be read ({exc}); "
                                                "not indexed")
                    return ""
            name = frame.get(qn("draw:name")) or "an embedded object"
            return read_embedded(path, name, self.reader.warnings) or ""

    def part(self, el: etree._Element) -> str | None:
        """The package part ``el``'s ``xlink:href`` names (``Pictures/1.png``, ``Object
        1``); None when it names none of this package's: nothing, a file beside it or a web
        address (linked, not embedded), or anything in a flat file, whose parts are inline."""
        href = (el.get(_HREF) or "").removeprefix("./")
        if not href or self.inline is not None or href.startswith(("../", "/")) or ":" in href:
            return None
        return href

    def _data(self, image: etree._Element, name: str) -> bytes | None:
        binary = image.find(_BINARY)
        if binary is not None:  # inline: flat_xml's "#N", or base64 it left as it was
            raw = (binary.text or "").strip().encode("ascii", "replace")
            try:
                if raw.startswith(b"#") and self.inline is not None:
                    raw = self.inline[int(raw[1:])]
                return base64.b64decode(raw)
            except (binascii.Error, ValueError, IndexError):
                self.reader.warnings.append(f"picture {name}: its inline data is no base64; "
                                            "not read")
                return None
        if (href := self.part(image)) is None:
            return None  # linked, not embedded
        try:
            with zipfile.ZipFile(self.path) as z:
                return z.read(href)
        except KeyError:
            self.reader.warnings.append(f"picture {href} is missing from the package; not read")
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
            self.reader.warnings.append(f"picture {href} cannot be unpacked ({exc}); not read")
        return None


# The embedded objects read as the files they are, by their media type: the suffix of
# that file (a flat one's with an "f" before it)
_EMBEDDED = {"application/vnd.oasis.opendocument.spreadsheet": "ods",
             "application/vnd.oasis.opendocument.text": "odt"}


def _object_type(z: zipfile.ZipFile, href: str) -> str:
    """The media type the package's manifest gives the object folder ``href`` (its entry
    ``Object 1/``); "" when it names none."""
    try:
        manifest = etree.fromstring(z.read("META-INF/manifest.xml"), untrusted_parser())
    except (KeyError, etree.XMLSyntaxError):
        return ""
    folder = href.rstrip("/") + "/"
    for entry in manifest.iter(qn("manifest:file-entry")):
        if entry.get(qn("manifest:full-path")) == folder:
            return entry.get(qn("manifest:media-type")) or ""
    return ""


def _picture_name(image: etree._Element, frame: etree._Element) -> str:
    """A picture's name in a warning: its part's path in the package, else (inline) its
    frame's name (``Picture 1``)."""
    return (image.get(_HREF) or "").removeprefix("./") or frame.get(qn("draw:name")) \
        or "an inline picture"


def _opened(image: etree._Element) -> bool:
    """Whether a ``draw:image`` is in a format the image reader opens, as its part's name
    or its MIME type (``image/png``; inline pictures have only that) says."""
    suffix = Path(image.get(_HREF) or "").suffix.lower()
    mime = image.get(qn("draw:mime-type")) or ""
    return (suffix or "." + mime.removeprefix("image/")) in SUFFIXES


# --- styles -------------------------------------------------------------------------


class _Styles:
    """The paragraph, text and list styles a body refers to: content.xml's automatic
    styles and styles.xml's named ones (a header's automatic styles in styles.xml are
    not the body's)."""

    def __init__(self, content: etree._Element, styles: etree._Element | None) -> None:
        self._styles: dict[tuple[str, str], etree._Element] = {}
        self._lists: dict[str, dict[int, etree._Element]] = {}
        holders = [styles.find(qn("office:styles")) if styles is not None else None,
                   content.find(qn("office:automatic-styles"))]
        for holder in holders:
            for el in holder if holder is not None else ():
                name = el.get(qn("style:name"))
                if el.tag == qn("style:style") and name:
                    self._styles[(el.get(qn("style:family")) or "", name)] = el
                elif el.tag == qn("text:list-style") and name:
                    self._lists[name] = {_int(lv.get(qn("text:level")), 1): lv for lv in el
                                         if lv.tag in _LEVEL_STYLES}

    def chain(self, name: str | None, family: str) -> Iterator[etree._Element]:
        """The style and those it inherits from, nearest first."""
        for _ in range(MAX_STYLE_DEPTH):
            style = self._styles.get((family, name or ""))
            if style is None:
                return
            yield style
            name = style.get(qn("style:parent-style-name"))

    def _first(self, name: str | None, family: str, attr: str,
               child: str | None = None) -> str | None:
        """The nearest value of ``attr`` (on the style, or on its ``child`` properties)."""
        for style in self.chain(name, family):
            holder = style.find(qn(child)) if child else style
            if holder is not None and holder.get(qn(attr)) is not None:
                return holder.get(qn(attr))
        return None

    def hidden(self, name: str | None, family: str) -> bool:
        """Text set hidden (Format > Character > Hidden)."""
        return self._first(name, family, "text:display", "style:text-properties") == "none"

    def heading_level(self, name: str | None) -> int | None:
        """A body paragraph's heading level from its style: 1 for *Title* (or a style
        based on it), else the style's outline level, else None."""
        for style in self.chain(name, "paragraph"):
            names = {style.get(qn("style:name")), style.get(qn("style:display-name"))}
            if any((n or "").casefold() == "title" for n in names):
                return 1
            if (level := _int(style.get(qn("style:default-outline-level")), 0)) > 0:
                return min(level, MAX_HEADING_LEVEL)
        return None

    def list_style(self, paragraph_style: str | None) -> str | None:
        return self._first(paragraph_style, "paragraph", "style:list-style-name")

    def level(self, list_style: str | None, level: int) -> etree._Element | None:
        """The list style's ``text:list-level-style-*`` for ``level`` (from 1)."""
        return self._lists.get(list_style or "", {}).get(level)


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


# num-format values HTML's list_label draws; others (Arabic-Indic digits, "1st") as 1.
_FORMATS = frozenset({"1", "a", "A", "i", "I", ""})


def _number(n: int, fmt: str) -> str:
    return list_label(n, fmt if fmt in _FORMATS else "1").removesuffix(". ")


# --- text (.odt) ---------------------------------------------------------------------


class _Numbering:
    """The counters of a list style's levels, as LibreOffice keeps them: an item counts
    up its level's counter and resets the deeper ones; a new list restarts, unless it
    continues an earlier one (``text:continue-numbering``, ``text:continue-list``)."""

    def __init__(self) -> None:
        self.counts: dict[str, dict[int, int]] = {}

    def restart(self, style: str) -> None:
        self.counts[style] = {}

    def mark(self, styles: _Styles, style: str, level: int, item: etree._Element) -> str:
        """The mark drawn before ``item`` at ``level``: ``"2. "``, or "" for a bullet."""
        spec = styles.level(style, level)
        if spec is None or spec.tag != qn("text:list-level-style-number"):
            return ""
        counts = self.counts.setdefault(style, {})
        own = item.get(qn("text:start-value"))
        if own is not None:
            n = _int(own, 1)
        elif level in counts:
            n = counts[level] + 1
        else:
            n = _int(spec.get(qn("text:start-value")), 1)
        counts[level] = n
        for deeper in [lv for lv in counts if lv > level]:
            del counts[deeper]
        fmt = spec.get(qn("style:num-format"), "")
        if not fmt:
            return ""
        shown = max(1, min(_int(spec.get(qn("text:display-levels")), 1), level))
        numbers = []
        for lv in range(level - shown + 1, level + 1):
            above = styles.level(style, lv)
            above_fmt = above.get(qn("style:num-format"), "1") if above is not None else "1"
            numbers.append(_number(counts.get(lv, 1), above_fmt or "1"))
        prefix = spec.get(qn("style:num-prefix"), "")
        suffix = spec.get(qn("style:num-suffix"))
        # no suffix given: a browser's "3. " (odfpy and other libraries write none;
        # LibreOffice writes the one it draws, so only a style drawing none gains a dot)
        return prefix + ".".join(numbers) + ("." if suffix is None else suffix) + " "


class _Paragraph:
    """A paragraph's shown text, and what it anchors: drawings (read after it) and notes."""

    def __init__(self, styles: _Styles, el: etree._Element) -> None:
        self.parts: list[str] = []
        self.drawings: list[etree._Element] = []
        self.notes: list[etree._Element] = []
        self._read(styles, el)

    def text(self) -> str:
        return "".join(self.parts)

    def _read(self, styles: _Styles, el: etree._Element) -> None:
        """``el``'s shown text (spans, links and fields opened), collecting the drawings
        and notes it anchors."""
        if el.text:
            self.parts.append(_WS.sub(" ", el.text))
        for child in el:
            tag = child.tag
            if not isinstance(tag, str) or tag in _INLINE_SKIPPED:
                pass  # an XML comment; a comment in the margin, a cached number, ...
            elif tag == _S:
                # one space: the canonical text keeps one of a run (and c may say 10^9)
                self.parts.append(" ")
            elif tag == _TAB:
                self.parts.append("\t")
            elif tag == _LINE_BREAK:
                self.parts.append("\n")
            elif tag == _NOTE:
                self.notes.append(child)
            elif tag.startswith(_DRAW):
                self.drawings.append(child)
            elif tag == _HIDDEN_TEXT and child.get(qn("text:is-hidden")) == "true":
                pass
            elif not (tag == _SPAN and styles.hidden(child.get(_STYLE_NAME), "text")):
                self._read(styles, child)
            if child.tail:
                self.parts.append(_WS.sub(" ", child.tail))


class _TextReader:
    """Walks an .odt body in document order into the canonical text's blocks."""

    def __init__(self, styles: _Styles, pictures: FramePictures) -> None:
        self.styles = styles
        self.pictures = pictures
        self.blocks: list[str] = []
        self.numbering = _Numbering()
        self.first_heading: str | None = None

    def body(self, container: etree._Element, boxed: bool = False) -> None:
        """The blocks of ``container`` (office:text, a section, a text box) in order;
        ``boxed``: inside a frame, where a heading is a paragraph (not a section)."""
        for child in container:
            self.block(child, boxed)

    def block(self, el: etree._Element, boxed: bool) -> None:
        tag = el.tag
        if not isinstance(tag, str):
            return  # an XML comment
        if tag in (_P, _H):
            self.paragraph(el, boxed)
        elif tag == _LIST:
            self.list(el, boxed, 1, None)
        elif tag == _TABLE:
            for cells in _table_rows(el, self.cell, across_once=True):
                texts = [cell.text for cell in cells]
                if any(texts):
                    self.blocks.append(escape_markdown(" | ".join(texts)))
                self.blocks.extend(picture for cell in cells for picture in cell.pictures)
                self.notes([note for cell in cells for note in cell.notes])
        elif tag in _CONTAINERS:
            self.body(el, boxed)
        elif tag in _INDEXES:
            for body in el.iterchildren(qn("text:index-body")):
                self.body(body, boxed)
        elif tag.startswith(_DRAW):  # a frame anchored to the page
            self.drawing(el)
        # else: declarations, forms, tracked changes (the deletions), soft page breaks

    def paragraph(self, el: etree._Element, boxed: bool, mark: str = "") -> None:
        style = el.get(_STYLE_NAME)
        if self.styles.hidden(style, "paragraph"):
            return
        p = _Paragraph(self.styles, el)
        if el.tag == _H:
            outline = el.get(qn("text:outline-level"))
            level = _int(outline, 0) if outline is not None else \
                self.styles.heading_level(style) or 1
        else:
            level = self.styles.heading_level(style) or 0
        if level > 0 and not boxed:
            if title := squash(p.text()):
                self.blocks.append("#" * min(level, MAX_HEADING_LEVEL) + " " + title)
                self.first_heading = self.first_heading or title
        elif text := one_paragraph(p.text()):
            self.blocks.append(escape_markdown(mark + text))
        for drawing in p.drawings:  # after the paragraph they are anchored in
            self.drawing(drawing)
        self.notes(p.notes)

    def list(self, el: etree._Element, boxed: bool, level: int, style: str | None) -> None:
        """A list's items, each paragraph a block, the first of a numbered item with its
        number; a nested list is one level down, in the same list style."""
        style = el.get(_STYLE_NAME) or style
        if style is None:  # a list given its style by its paragraphs' style
            first = el.find(f".//{_P}")
            style = self.styles.list_style(first.get(_STYLE_NAME)) \
                if first is not None else None
        style = style or ""
        if level == 1 and el.get(qn("text:continue-numbering")) != "true" \
                and el.get(qn("text:continue-list")) is None:
            self.numbering.restart(style)
        for item in el:
            if item.tag == qn("text:list-item"):
                mark = self.numbering.mark(self.styles, style, level, item)
            elif item.tag == qn("text:list-header"):  # an item without a number
                mark = ""
            else:
                continue
            for child in item:
                if child.tag in (_P, _H):
                    self.paragraph(child, boxed, mark)
                    mark = ""
                elif child.tag == _LIST:
                    self.list(child, boxed, level + 1, style)
                else:
                    self.block(child, boxed)

    def cell(self, cell: etree._Element) -> _Cell:
        """A table cell's text: its paragraphs (each followed by the frames anchored in
        it), a list's items, a nested table's rows, in order; the notes they cite, and the
        text of the pictures they show (blocks after the row, as the Word reader puts a
        cell's pictures)."""
        parts: list[str] = []
        notes: list[etree._Element] = []
        pictures: list[str] = []

        def walk(container: etree._Element) -> None:
            for el in container:
                if el.tag in (_P, _H):
                    if self.styles.hidden(el.get(_STYLE_NAME), "paragraph"):
                        continue
                    p = _Paragraph(self.styles, el)
                    parts.append(squash(p.text()))
                    for drawing in p.drawings:  # shown in the cell
                        parts.extend(squash(b) for b in self.drawn(drawing, pictures))
                    notes.extend(p.notes)
                elif el.tag == _TABLE:
                    for cells in _table_rows(el, self.cell, across_once=True):
                        texts = [c.text for c in cells]
                        parts.append(" | ".join(texts) if any(texts) else "")
                        notes.extend(note for c in cells for note in c.notes)
                        pictures.extend(picture for c in cells for picture in c.pictures)
                elif el.tag in (_LIST, qn("text:list-item"), qn("text:list-header"),
                                qn("text:section")):
                    walk(el)

        walk(cell)
        return _Cell(" ".join(t for t in parts if t), tuple(notes), tuple(pictures))

    def notes(self, notes: list[etree._Element]) -> None:
        for note in notes:
            if text := self.note_block(note):
                self.blocks.append(escape_markdown(text))

    def note_block(self, note: etree._Element) -> str:
        """A footnote's or an endnote's block, ``Footnote 1: ...``, labelled with the mark
        the document shows (its citation: a number, or a custom mark such as ``*``)."""
        kind = "Endnote" if note.get(qn("text:note-class")) == "endnote" else "Footnote"
        citation = note.find(qn("text:note-citation"))
        label = ""
        if citation is not None:
            label = squash("".join(citation.itertext())) \
                or squash(citation.get(qn("text:label")) or "")
        body = note.find(qn("text:note-body"))
        reader = _TextReader(self.styles, self.pictures)
        if body is not None:
            reader.body(body, boxed=True)
        text = squash(" ".join(reader.blocks))
        if not text:
            return ""
        return f"{kind} {label}: {text}" if label else f"{kind}: {text}"

    def drawing(self, el: etree._Element) -> None:
        self.blocks.extend(self.drawn(el))

    def drawn(self, el: etree._Element, pictures: list[str] | None = None) -> list[str]:
        """The blocks of a frame's or a shape's text, read as body text (a heading in it
        is a paragraph), a frame inside it after the paragraph holding it; a picture's
        text (:class:`FramePictures`) a block in its place, or put in ``pictures`` when given
        (a table cell's, read after its row)."""
        reader = _TextReader(self.styles, self.pictures)

        def walk(node: etree._Element) -> None:
            if node.tag == _FRAME:
                (reader.blocks if pictures is None else pictures).extend(
                    escape_markdown(read) for read in self.pictures.blocks(node))
            for child in node:
                if not isinstance(child.tag, str):
                    continue
                if child.tag == _TEXT_BOX:
                    reader.body(child, boxed=True)
                elif child.tag in (_P, _H, _LIST, _TABLE):  # a shape's own text
                    reader.block(child, boxed=True)
                elif child.tag.startswith(_DRAW) and child.tag not in _NOT_DRAWN_TEXT:
                    walk(child)  # a frame, a group, a link around a frame

        walk(el)
        return reader.blocks


@dataclass(frozen=True)
class _Cell:
    """A table cell as read (:meth:`_TextReader.cell`): its text, the notes it cites, its
    pictures' text; a covered cell is empty."""

    text: str = ""
    notes: tuple[etree._Element, ...] = ()
    pictures: tuple[str, ...] = ()


def _table_rows(table: etree._Element, read_cell, across_once: bool):  # type: ignore[no-untyped-def]
    """A table's rows (those in header rows and row groups too) as lists of
    ``read_cell``'s results, one per cell. A covered cell (``table:covered-table-cell``)
    is empty; with ``across_once`` one covered by a cell merged across columns is left
    out, so the merged cell is shown once, as Word shows it. A row stored once for
    identical rows (``number-rows-repeated``) is read once."""
    for el in table:
        if el.tag in _ROW_GROUPS:
            yield from _table_rows(el, read_cell, across_once)
        elif el.tag == _ROW:
            cells = []
            spanned = 0  # covered cells still to come of a cell merged across columns
            for cell in el:
                repeat = max(min(_int(cell.get(qn("table:number-columns-repeated")), 1),
                                 MAX_REPEAT), 1)
                if cell.tag == _CELL:
                    cells.extend([read_cell(cell)] * repeat)
                    spanned = _int(cell.get(qn("table:number-columns-spanned")), 1) - 1
                elif cell.tag == _COVERED:
                    for _ in range(repeat):
                        if across_once and spanned > 0:
                            spanned -= 1
                        else:
                            cells.append(_Cell())
            yield cells


class OdtExtractor:
    name = "odt"
    version = "6"  # (flat .fodt and templates .ott added: an .odt read as it did)
    # 2: the text of its pictures, read by OCR, after the paragraph or row showing them;
    # 3: a picture's or an object's alt text, before the picture's text; 4: what a chart
    # says of itself (title, kind, series, axes), before its alt text; 5: an embedded
    # spreadsheet's rows (a text's blocks) where the object is shown; 6: an SVG picture's
    # words, read without OCR
    suffixes = (".odt", ".fodt", ".ott")

    def extract(self, path: Path, rel: str) -> Document:
        package = open_package(path, rel, "text")
        body = package.content.find(f"{qn('office:body')}/{qn('office:text')}")
        if body is None:
            raise ExtractionError(rel, "not a readable OpenDocument .odt file (its content.xml "
                                       "has no office:text body)")
        warnings: list[str] = []
        pictures = PictureReader(warnings)
        reader = _TextReader(_Styles(package.content, package.styles),
                             FramePictures(path, package.inline, pictures))
        reader.body(body)
        pictures.close()
        out = TextBuilder()
        for block in reader.blocks:
            out.add(block, sep="\n\n")
        text = out.text()
        if not text.strip():
            raise ExtractionError(rel, "; ".join(warnings) or "the document has no text in its body")
        return Document(
            path=rel,
            title=package.title or reader.first_heading or path.stem,
            text=text,
            media_type="application/vnd.oasis.opendocument.text",
            extractor=self.name,
            extractor_version=self.version,
            warnings=tuple(warnings),
            headings="atx",
        )


# --- presentations (.odp) ------------------------------------------------------------

# Frames the master page fills with furniture, not the slide's content.
_FURNITURE = frozenset({"footer", "date-time", "page-number", "header"})
_CLASS = qn("presentation:class")


def _lines(styles: _Styles, el: etree._Element) -> str:
    """A frame's or a shape's text as the PowerPoint reader writes a text box: one line
    per paragraph (a line break is a line too), a list's items, a table's rows as
    ``cell | cell`` lines, a frame inside after the paragraph holding it."""
    lines: list[str] = []

    def walk(node: etree._Element) -> None:
        for child in node:
            if child.tag in (_P, _H):
                if not styles.hidden(child.get(_STYLE_NAME), "paragraph"):
                    p = _Paragraph(styles, child)
                    lines.append(p.text())
                    lines.extend(_lines(styles, d) for d in p.drawings)
            elif child.tag == _TABLE:
                for cells in _table_rows(child, lambda c: _Cell(squash(_lines(styles, c))),
                                         across_once=False):
                    texts = [c.text for c in cells]
                    lines.append(" | ".join(texts) if any(texts) else "")
            elif child.tag in (_LIST, qn("text:list-item"), qn("text:list-header"), _TEXT_BOX):
                walk(child)

    walk(el)
    return one_paragraph("\n".join(lines))


def _shape_blocks(styles: _Styles, shapes: etree._Element,
                  pictures: FramePictures) -> Iterator[tuple[str, str]]:
    """(presentation class, block) of each frame and shape with text, in the page's
    order, groups opened in place, furniture left out; a table's rows a block each; a
    picture's text (:class:`FramePictures`) a block."""
    for shape in shapes:
        if not isinstance(shape.tag, str) or not shape.tag.startswith(_DRAW):
            continue  # the notes, forms, animations, comments
        cls = shape.get(_CLASS) or ""
        if cls in _FURNITURE:
            continue
        if shape.tag == qn("draw:g"):
            yield from _shape_blocks(styles, shape, pictures)
            continue
        table = shape.find(_TABLE)
        if table is not None:
            for cells in _table_rows(table, lambda c: _Cell(squash(_lines(styles, c))),
                                     across_once=False):  # a merged cell's covered ones empty
                if any(texts := [c.text for c in cells]):
                    yield cls, " | ".join(texts)
        elif shape.tag == _FRAME and (read := "\n\n".join(pictures.blocks(shape))):
            yield cls, read
        elif text := _lines(styles, shape):
            yield cls, text


def _read_slides(styles: _Styles, presentation: etree._Element,
                 pictures: FramePictures) -> list[Slide]:
    slides = []
    for number, page in enumerate(presentation.iterchildren(qn("draw:page")), start=1):
        title = ""
        blocks = []
        for cls, text in _shape_blocks(styles, page, pictures):
            if cls == "title" and not title:
                title = squash(text)
            else:
                blocks.append(text)
        notes = [_lines(styles, frame) for holder in page.iterchildren(qn("presentation:notes"))
                 for frame in holder.iterchildren(qn("draw:frame")) if frame.get(_CLASS) == "notes"]
        slides.append(Slide(number=number, title=title, blocks=blocks,
                            notes=one_paragraph("\n".join(notes))))
    return slides


class OdpExtractor:
    name = "odp"
    version = "6"  # (flat .fodp and templates .otp added: an .odp read as it did)
    # 2: the text of its pictures, read by OCR, a block in its place among the shapes;
    # 3: a picture's or an object's alt text, before the picture's text; 4: what a chart
    # says of itself (title, kind, series, axes), before its alt text; 5: an embedded
    # spreadsheet's rows (a text's blocks) where the object is shown; 6: an SVG picture's
    # words, read without OCR
    suffixes = (".odp", ".fodp", ".otp")

    def extract(self, path: Path, rel: str) -> Document:
        package = open_package(path, rel, "presentation")
        body = package.content.find(f"{qn('office:body')}/{qn('office:presentation')}")
        warnings: list[str] = []
        pictures = PictureReader(warnings)
        slides = _read_slides(_Styles(package.content, None), body,
                              FramePictures(path, package.inline, pictures)) if body is not None else []
        pictures.close()
        return deck_document(slides, path, rel, package.title,
                             media_type="application/vnd.oasis.opendocument.presentation",
                             extractor=self.name, version=self.version,
                             warnings=tuple(warnings))


register(OdtExtractor())
register(OdpExtractor())
