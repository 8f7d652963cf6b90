"""EPUB e-books (.epub, EPUB 2 and 3), read with lxml (the package's XML) and the HTML
extractor's page reader (each chapter's XHTML).

An EPUB is a ZIP package (EPUB 3.3, Open Container Format): a ``mimetype`` entry
reading ``application/epub+zip``, ``META-INF/container.xml`` naming the package
document (the OPF), and the OPF listing the book's files (its manifest), their reading
order (its spine) and the book's metadata.

Canonical text: the spine's chapters in reading order, each read by
:func:`citeline.extract.html.read_page` exactly as an ``.xhtml`` page is (its
``<h1>``-``<h6>`` as ``#``-heading lines, paragraphs, list items with their numbers,
table rows as ``cell | cell``, ``<pre>`` kept as written in a fenced code block (its
language the info string, where the chapter names one), footnotes and endnotes
(``epub:type="footnote"``, often an ``<aside>`` hidden until its reference is tapped)
kept; navigation, other asides and hidden text dropped; a picture's alt text, the
figure's description a reader who cannot see it gets, a line of its own, unless it is
decorative or describes nothing, or the picture is the book's cover: see
:mod:`citeline.extract.html`),
the chapters' blocks joined by a blank line. A chapter is its headings' section; one
that does not open with a heading gets its title from the book's table of contents
(EPUB 3's ``nav`` of ``epub:type="toc"``, else EPUB 2's ``toc.ncx`` navPoints: the
first entry pointing into the chapter's file) as a ``#``-heading line of the level
most chapters open with, so every hit names its chapter. A chapter file the table of
contents does not name (the second half of a chapter a converter split in two) is
left as it is: its text continues the section before it. Locators are ``#char=``
offsets into the canonical text with the heading path, as for HTML and Word files:
no region kind fits a chapter (a PDF's ``page`` would send a reader to the Nth page
of a book whose pages a reading system lays out itself), and a chapter's heading
names it in the section path.

Spine items marked ``linear="no"`` (notes, answer keys, pop-ups that a reading system
shows only when a link leads there) are read after all the linear ones, in spine
order: their text is the author's and is searched, but set in place it would cut
into the reading order's text. Spine items that are no XHTML page (an image or SVG
cover) have no text to read. A picture a chapter shows (an ``<img>``, an SVG's
``<image>``: a fixed-layout book's scanned page, a screenshot, a diagram) is read by OCR
as a picture file is (:class:`_Pictures`), its text after its alt text, and one in a
table cell after its row; a picture with no text (a photograph, an ornament) adds
nothing, and one on the web is not read. The cover picture (the manifest's ``cover-image``, EPUB 2's ``<meta name="cover">``) is no
text wherever a page shows it: its alt, when it says more than "Cover", is the book's
title again. The title is the OPF's first
``dc:title`` unless it names nothing (a placeholder: LibreOffice's ``Unknown Title``,
``Untitled``; the file's own name), else the first heading, else the file's name.

A file that cannot be read says why: empty, not a ZIP package (a Kindle MOBI/AZW
book, a PDF, a download cut short), a ZIP that is no EPUB (an OpenDocument or Office
Open XML file is named with its suffix; another's ``mimetype`` is quoted), one without
``META-INF/container.xml`` or the package document it names, a spine naming a file
the package lacks, and an e-book under DRM: ``META-INF/encryption.xml`` listing
encrypted files (fonts merely obfuscated, as EPUB's font-embedding rule does, do not
count), or a DRM scheme's licence (Adobe ADEPT's ``rights.xml``, Readium LCP's
``license.lcpl``, Apple FairPlay's ``sinf.xml``). As the Office readers do, the
package is checked against zip bombs before anything is unpacked
(:func:`citeline.extract.blocks.check_package`), and its XML is parsed without
entities, network or DTDs.

Printed pages: a book made from a printed one (a textbook, a publisher's e-book with
print equivalence) says where each printed page begins, so a reader can find a quote
by the page number a printed copy or a reading list gives. EPUB 3's page list (a
``nav`` of ``epub:type="page-list"`` in the navigation document), else EPUB 2's
``<pageList>`` in ``toc.ncx``, links each page's number to a page-break marker (``<span
epub:type="pagebreak" id="page_42" title="42"/>``, ``role="doc-pagebreak"``) or any
anchor; a book with no page list has its markers' ``title`` or ``aria-label`` (else a
visible number) instead. Each starts a printed page at its place in the canonical text,
running to the next (a page list's link to a chapter file without a ``#`` starts it at
the chapter's start; the reading order's last page ends with it, so ``linear="no"``
notes do not run on from it), as a ``printed`` region; a citation's locator stays
``#char=`` and carries the labels of the printed pages its range spans (text before
the first marker has none). A marker is no text: its number, when the book shows it
(``<span epub:type="pagebreak">42</span>``, ``[Page 42]``), is the printed page's
furniture, as a PDF's running footer is, and cut into a sentence it would part its
words; only an anchor that holds more than its page's number (a ``<p id="p42">``
opening the page) is read. A page list's link to an anchor the book lacks, and a
marker without a number, are skipped with a warning counting them.

Not read: the ``<guide>`` and landmarks, embedded fonts, media overlays, scripts.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from lxml import etree
from selectolax.lexbor import LexborHTMLParser, LexborNode

from citeline.errors import ExtractionError
from citeline.extract import register
from citeline.extract.blocks import (
    MAX_HEADING_LEVEL,
    TextBuilder,
    check_package,
    escape_markdown,
    metadata_title,
    squash,
)
from citeline.extract.html import (
    PageBreak,
    data_uri_bytes,
    decode_html,
    open_self_closing,
    read_page,
)
from citeline.extract.image import PictureReader
from citeline.extract.opendocument import package_kind, untrusted_parser
from citeline.types import Document, Region, RegionKind

_NS = {
    "container": "urn:oasis:names:tc:opendocument:xmlns:container",
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
    "ncx": "http://www.daisy.org/z3986/2005/ncx/",
    "enc": "http://www.w3.org/2001/04/xmlenc#",
}
MEDIA_TYPE = "application/epub+zip"
_CONTAINER = "META-INF/container.xml"
_OPF_TYPE = "application/oebps-package+xml"
_NCX_TYPE = "application/x-dtbncx+xml"
# Spine items read as pages: XHTML, EPUB 3's only text type; HTML, which some EPUB 2
# writers declared; the OEB 1 type older converters still write.
_PAGE_TYPES = frozenset({"application/xhtml+xml", "text/html", "text/x-oeb1-document"})
# encryption.xml's entries for fonts obfuscated, not encrypted: the IDPF's and Adobe's
# font-mangling algorithms, keyed by the book's own identifier (EPUB 3.3's font
# obfuscation). Any EPUB with embedded fonts may carry them, DRM-free ones too.
_FONT_OBFUSCATION = frozenset({"http://www.idpf.org/2008/embedding",
                               "http://ns.adobe.com/pdf/enc#RC"})
# A DRM scheme's licence, kept in META-INF beside the encrypted files.
_LICENCES = (("META-INF/rights.xml", "Adobe ADEPT"), ("META-INF/license.lcpl", "Readium LCP"),
             ("META-INF/sinf.xml", "Apple FairPlay"))
# A Kindle book (MOBI, AZW, AZW3) is a Palm database: its type and creator at byte 60
# (TEXtREAd: PalmDOC, the format MOBI grew from).
_KINDLE = (b"BOOKMOBI", b"TEXtREAd")
_HEADING = re.compile(r"(#{1,6}) ")
# Where a printed page begins is written into a chapter's blocks as one character of
# plane 15's private use area (its page's number in the book's list of marks added to
# _MARK), which no book's text uses, then taken out (_unmark) before the text is built.
_MARK = 0xF0000
_MAX_MARKS = 0xFFFFE - _MARK
_MARKS = re.compile("[\U000F0000-\U000FFFFD]")
# A marker's visible text that is only its page's number: "42", "[42]", "Page xii", "p. 7".
_PAGE_WORD = re.compile(r"(?:page|pg\.?|p\.)\s*", re.I)
_NUMBER_FRAME = "[](){}<>|*\u2014\u2013-\u00b7\u2022 "
_NUMBER_MAX_CHARS = 12  # "xxxviii", "A-123": a page number, not a sentence


def _q(tag: str) -> str:
    """``"opf:item"`` as lxml's Clark notation, ``"{http://www.idpf.org/2007/opf}item"``."""
    prefix, local = tag.split(":")
    return f"{{{_NS[prefix]}}}{local}"


def _join(base: str, href: str) -> str:
    """The package entry ``href`` (a URL, relative to the folder ``base``) names; its
    fragment dropped: ``_join("OEBPS", "text/ch%201.xhtml#s2") == "OEBPS/text/ch 1.xhtml"``."""
    return posixpath.normpath(posixpath.join(base, unquote(href.split("#", 1)[0])))


@dataclass(frozen=True)
class _Item:
    """A spine item: its package entry, media type and whether it is in the reading order."""

    name: str
    media_type: str
    linear: bool


@dataclass(frozen=True)
class _Chapter:
    name: str  # its entry in the package, for messages
    blocks: list[str]
    linear: bool  # in the reading order (not a linear="no" item read after it)


@dataclass(frozen=True)
class _PageTarget:
    """A page list's entry: the package entry and anchor (None: the file's start) it
    links to, and the page's number."""

    name: str
    anchor: str | None
    label: str


class _Package:
    """An open EPUB's package document: title, spine, table of contents."""

    def __init__(self, z: zipfile.ZipFile, rel: str) -> None:
        self.z, self.rel = z, rel
        self.names = set(z.namelist())
        self.warnings: list[str] = []
        self._check_kind()
        if why := self._drm():
            raise ExtractionError(rel, f"the e-book is protected by DRM ({why}); citeline "
                                       "cannot read it")
        self.opf = self._opf_name()
        opf = self.xml(self.opf, "package document")
        base = posixpath.dirname(self.opf)
        title = opf.find(f"{_q('opf:metadata')}/{_q('dc:title')}")
        self.title = squash("".join(title.itertext())) if title is not None else ""
        # id -> (entry, media type, properties)
        self.manifest: dict[str, tuple[str, str, set[str]]] = {}
        for item in opf.iterfind(f"{_q('opf:manifest')}/{_q('opf:item')}"):
            if (iid := item.get("id")) is not None and (href := item.get("href")) is not None:
                self.manifest[iid] = (_join(base, href), (item.get("media-type") or "").strip(),
                                      set((item.get("properties") or "").split()))
        spine = opf.find(_q("opf:spine"))
        if spine is None:
            raise ExtractionError(rel, f"not a readable EPUB: its package document {self.opf} "
                                       "has no spine (the chapters' reading order)")
        # the cover picture: EPUB 3's manifest property, EPUB 2's metadata entry naming it
        self.covers = {name for name, _, props in self.manifest.values() if "cover-image" in props}
        for meta in opf.iterfind(f"{_q('opf:metadata')}/{_q('opf:meta')}"):
            if meta.get("name") == "cover" and (cid := meta.get("content")) in self.manifest:
                self.covers.add(self.manifest[cid][0])
        self.spine_toc = spine.get("toc")
        self.spine = [self._spine_item(ref) for ref in spine.iterfind(_q("opf:itemref"))]
        if not self.spine:
            raise ExtractionError(rel, f"not a readable EPUB: the spine of {self.opf} lists no "
                                       "chapters")

    def xml(self, name: str, what: str) -> etree._Element:
        try:
            return etree.fromstring(self.z.read(name), untrusted_parser())
        except etree.XMLSyntaxError as exc:
            raise ExtractionError(self.rel, f"not a readable EPUB: its {what} {name} is not "
                                            f"well-formed XML ({exc})") from exc

    def _check_kind(self) -> None:
        """Refuse a ZIP package that is no EPUB, naming what it is. One without a
        ``mimetype`` entry but with an EPUB's container is read (a sloppy zip tool)."""
        mimetype = None
        if "mimetype" in self.names:
            mimetype = self.z.read("mimetype").decode("ascii", "replace").strip()
        if mimetype == MEDIA_TYPE or (mimetype is None and _CONTAINER in self.names):
            return
        if kind := package_kind(mimetype, self.names):
            what, suffix = kind
            raise ExtractionError(self.rel, f"{what}, not an EPUB e-book: name it {suffix}")
        why = f"its mimetype is {mimetype!r}" if mimetype else "it has no mimetype entry"
        raise ExtractionError(self.rel, f"a ZIP archive but not an EPUB e-book ({why})")

    def _drm(self) -> str | None:
        """What shows the book is under DRM (the scheme and its files), or None."""
        scheme = next(((name, s) for name, s in _LICENCES if name in self.names), None)
        encrypted: list[str] = []
        if "META-INF/encryption.xml" in self.names:
            root = self.xml("META-INF/encryption.xml", "encryption list")
            for data in root.iter(_q("enc:EncryptedData")):
                method = data.find(_q("enc:EncryptionMethod"))
                if method is not None and method.get("Algorithm") in _FONT_OBFUSCATION:
                    continue
                ref = data.find(f"{_q('enc:CipherData')}/{_q('enc:CipherReference')}")
                encrypted.append(unquote(ref.get("URI", "")) if ref is not None else "")
        if encrypted:
            n = len(encrypted)
            listed = (f"META-INF/encryption.xml lists {n} encrypted file{'s' * (n != 1)}"
                      + (f", {encrypted[0]} first" if encrypted[0] else ""))
            return f"{scheme[1]}: {listed}" if scheme else listed
        return f"{scheme[1]}: {scheme[0]}" if scheme else None

    def _opf_name(self) -> str:
        if _CONTAINER not in self.names:
            raise ExtractionError(self.rel, f"not a readable EPUB: it has no {_CONTAINER} "
                                            "(which names its package document)")
        roots = list(self.xml(_CONTAINER, "container").iter(_q("container:rootfile")))
        root = next((r for r in roots if r.get("media-type") == _OPF_TYPE),
                    roots[0] if roots else None)
        path = root.get("full-path") if root is not None else None
        if not path:
            raise ExtractionError(self.rel, f"not a readable EPUB: its {_CONTAINER} names no "
                                            "package document")
        name = _join("", path)
        if name not in self.names:
            raise ExtractionError(self.rel, f"not a readable EPUB: its package document {name} "
                                            f"(named in {_CONTAINER}) is missing")
        return name

    def _spine_item(self, ref: etree._Element) -> _Item:
        idref = ref.get("idref") or ""
        if idref not in self.manifest:
            raise ExtractionError(self.rel, f"not a readable EPUB: its spine names item "
                                            f"{idref!r}, which the manifest of {self.opf} "
                                            "does not list")
        name, media_type, _ = self.manifest[idref]
        if name not in self.names:
            raise ExtractionError(self.rel, f"not a readable EPUB: spine item {name} is missing "
                                            "from the package")
        return _Item(name, media_type, (ref.get("linear") or "yes").strip() != "no")

    def toc(self) -> dict[str, str]:
        """Each package entry the table of contents points into -> the first title it
        gives it (EPUB 3's nav, else EPUB 2's NCX); {} when the book has neither. One
        that cannot be read is a warning: the chapters are read all the same."""
        nav, ncx = self._nav_name(), self._ncx_name()
        entries: list[tuple[str, str]] = []
        try:
            if nav is not None and nav in self.names:
                entries = self._nav_entries(nav)
            if not entries and ncx is not None and ncx in self.names:
                entries = self._ncx_entries(ncx)
        except ExtractionError as exc:  # "its table of contents ... is not well-formed XML"
            self.warnings.append(f"{exc.reason.removeprefix('not a readable EPUB: ')}: "
                                 "chapters without a heading have no title from it")
        titles: dict[str, str] = {}
        for name, title in entries:
            if title:
                titles.setdefault(name, title)
        return titles

    def _nav_name(self) -> str | None:
        return next((name for name, _, props in self.manifest.values() if "nav" in props), None)

    def _ncx_name(self) -> str | None:
        return self.manifest[self.spine_toc][0] if self.spine_toc in self.manifest else next(
            (name for name, media_type, _ in self.manifest.values() if media_type == _NCX_TYPE),
            None)

    def _nav_links(self, nav: str, kind: str) -> list[tuple[str, str]]:
        """(href as written, text) of each link in the nav document's nav of
        ``epub:type=kind``, in order. The nav document is XHTML, read as chapters are (an
        HTML parser, which also takes the named entities an XML parser would refuse)."""
        html, _ = decode_html(self.z.read(nav), self.rel, xhtml=True)
        tree = LexborHTMLParser(open_self_closing(html))
        for el in tree.css("nav"):
            if kind in (el.attributes.get("epub:type") or "").split():
                return [(a.attributes.get("href") or "", squash(a.text()))
                        for a in el.css("a[href]")]
        return []

    def _nav_entries(self, nav: str) -> list[tuple[str, str]]:
        """(entry, title) of each link in the nav document's ``epub:type="toc"`` nav."""
        base = posixpath.dirname(nav)
        return [(_join(base, href), title) for href, title in self._nav_links(nav, "toc")]

    def page_list(self) -> list[_PageTarget] | None:
        """The book's page list (EPUB 3's nav of ``epub:type="page-list"``, else EPUB 2's
        ``pageList`` in toc.ncx), in order; None when it has none (or an empty one), or
        its NCX cannot be read."""
        nav, ncx = self._nav_name(), self._ncx_name()
        links: list[tuple[str, str]] = []  # (href resolved against the package's root, label)
        if nav is not None and nav in self.names:
            base = posixpath.dirname(nav)
            links = [(posixpath.join(base, href), label)
                     for href, label in self._nav_links(nav, "page-list")]
        if not links and ncx is not None and ncx in self.names:
            try:
                root = self.xml(ncx, "table of contents")
            except ExtractionError:  # toc() says so, when it is the table of contents read;
                return None  # whether a torn NCX had a page list, nothing says
            base = posixpath.dirname(ncx)
            for target in root.iter(_q("ncx:pageTarget")):
                text = target.find(f"{_q('ncx:navLabel')}/{_q('ncx:text')}")
                content = target.find(_q("ncx:content"))
                label = squash("".join(text.itertext())) if text is not None else ""
                links.append((posixpath.join(base, content.get("src", "")
                                             if content is not None else ""),
                              label or (target.get("value") or "").strip()))
        out = []
        for href, label in links:
            _, hash_, anchor = href.partition("#")
            out.append(_PageTarget(_join("", href), unquote(anchor) if hash_ else None,
                                   _page_number(label) or label))
        return out or None

    def _ncx_entries(self, ncx: str) -> list[tuple[str, str]]:
        """(entry, title) of each navPoint in toc.ncx, in document order (a chapter
        before its sections)."""
        base = posixpath.dirname(ncx)
        out = []
        for point in self.xml(ncx, "table of contents").iter(_q("ncx:navPoint")):
            label = point.find(f"{_q('ncx:navLabel')}/{_q('ncx:text')}")
            content = point.find(_q("ncx:content"))
            if content is not None and content.get("src"):
                out.append((_join(base, content.get("src", "")),
                            squash("".join(label.itertext())) if label is not None else ""))
        return out


def _not_a_zip(path: Path) -> str:
    with path.open("rb") as f:
        head = f.read(68)
    if head[60:68] in _KINDLE:
        return "a Kindle e-book (MOBI/AZW), not an EPUB; convert it to EPUB (Calibre does)"
    if head.startswith(b"%PDF-"):
        return "a PDF document, not an EPUB e-book: name it .pdf"
    if head.startswith(b"PK\x03\x04"):
        return ("a damaged EPUB e-book: its ZIP package ends early (no central directory), as "
                "after an interrupted download or copy; fetch it again")
    return "not an EPUB e-book (not a ZIP package)"


def _page_number(text: str) -> str:
    """The page number ``text`` is, without its frame ("[Page 42]" -> "42", "p. xii" ->
    "xii"), or "" when it says more than a number."""
    core = squash(text).strip(_NUMBER_FRAME)
    core = _PAGE_WORD.sub("", core, count=1) if _PAGE_WORD.match(core) else core
    core = core.strip(_NUMBER_FRAME)
    return core if core and len(core) <= _NUMBER_MAX_CHARS and " " not in core else ""


def _is_pagebreak(attrs: dict) -> bool:
    """A page-break marker by its semantics: EPUB 3's ``epub:type="pagebreak"``,
    DPUB-ARIA's ``role="doc-pagebreak"``."""
    return "pagebreak" in (attrs.get("epub:type") or "").split() or \
        "doc-pagebreak" in (attrs.get("role") or "").lower().split()


class _Marks:
    """Where the book's printed pages begin, as the chapters are read: each page
    numbered (its index in ``labels``) and written as a character of its own where its
    marker is (see _MARK); ``found`` the page list's entries met."""

    def __init__(self, pages: list[_PageTarget] | None) -> None:
        self.pages = pages  # the page list, or None: the markers say their own numbers
        self.labels = [t.label for t in pages] if pages else []
        self.found: set[int] = set()
        self.unnumbered = 0  # markers that say no number (a book without a page list)
        # a page list's anchors: package entry -> anchor -> the page it starts
        self.anchors: dict[str, dict[str, int]] = {}
        for k, t in enumerate(pages or ()):
            if t.anchor is not None and t.label and k < _MAX_MARKS:
                self.anchors.setdefault(t.name, {}).setdefault(t.anchor, k)

    def at_start(self, name: str) -> list[int]:
        """The pages the page list starts at the file ``name``'s start (no anchor)."""
        out = [k for k, t in enumerate(self.pages or ()) if t.name == name and t.anchor is None
               and t.label and k < _MAX_MARKS]
        self.found.update(out)
        return out

    def reader(self, name: str) -> PageBreak:
        """read_page's ``page_break`` for the chapter file ``name``."""
        anchors = self.anchors.get(name, {})

        def page_break(node: LexborNode) -> tuple[str, bool] | None:
            attrs = node.attributes
            marker = _is_pagebreak(attrs)
            ident = attrs.get("id") or (attrs.get("name") if node.tag == "a" else None)
            k = anchors.get(ident) if ident else None
            if k is None and not marker:
                return None
            text = squash(node.text())
            if self.pages is not None:  # the page list says which are pages, and their numbers
                label = self.labels[k] if k is not None else ""
            else:
                label = _page_number(attrs.get("title") or attrs.get("aria-label") or "") \
                    or squash(attrs.get("title") or attrs.get("aria-label") or "") \
                    or _page_number(text)
                if not label:
                    self.unnumbered += 1
                elif len(self.labels) < _MAX_MARKS:
                    k = len(self.labels)
                    self.labels.append(label)
            if k is not None:
                self.found.add(k)
            # its content is read unless it is only a number: a marker's, or an anchor's
            # that is its page's
            number = _page_number(text)
            read = bool(text) and not (number and (marker or number.casefold() == label.casefold()))
            return (chr(_MARK + k) if k is not None else "", read)

        return page_break

    def warnings(self) -> list[str]:
        out = []
        if self.pages is not None:
            lost = [t for k, t in enumerate(self.pages) if k not in self.found]
            if lost:
                first = lost[0].name + (f"#{lost[0].anchor}" if lost[0].anchor is not None else "")
                n = len(lost)
                out.append(f"its page list has {n} entr{'ies' if n != 1 else 'y'} linking to no "
                           f"place in the text read ({first} first), skipped: the text there is "
                           "cited at the printed page before")
        if self.unnumbered:
            n = self.unnumbered
            out.append(f"{n} page-break marker{'s' * (n != 1)} with no page number (no title or "
                       "aria-label), skipped: the text after them is cited at the printed page "
                       "before")
        return out


class _Pictures:
    """The text of the pictures a book's chapters show (a scanned page, a screenshot, a
    diagram's labels), read by OCR as a picture file is (:class:`PictureReader`: each
    content once, what is not read said once at :meth:`close`): a package entry by its
    ``src`` (relative to the chapter), a ``data:`` URI's own bytes. The cover is not the
    text's; a picture on the web is not the book's and is not read."""

    def __init__(self, package: _Package) -> None:
        self.package = package
        self.reader = PictureReader(package.warnings)
        self.missing: list[str] = []

    def reader_for(self, chapter: str) -> Callable[[str], str | None]:
        """read_page's ``pictures`` for the chapter file ``chapter``."""
        base = posixpath.dirname(chapter)

        def read(src: str) -> str | None:
            src = src.strip()
            if src.lower().startswith("data:"):
                return self._inline(src)
            if "://" in src or src.startswith("//") or not src:
                return ""
            name = _join(base, src)
            if name in self.package.covers:
                return None
            try:
                data = self.package.z.read(name)
            except KeyError:
                self.missing.append(name)
                return ""
            return self.reader.text(data, name)

        return read

    def _inline(self, uri: str) -> str:
        data = data_uri_bytes(uri)  # None: an SVG written out in the URI, no picture OCR reads
        return self.reader.text(data, "an inline picture") if data is not None else ""

    def close(self) -> None:
        self.reader.close()
        if self.missing:
            n = len(self.missing)
            self.package.warnings.append(
                f"{n} picture{'s' * (n != 1)} the chapters show {'are' if n != 1 else 'is'} "
                f"missing from the package ({self.missing[0]} first): not read")


def _chapter(package: _Package, item: _Item, marks: _Marks, pictures: _Pictures) -> _Chapter:
    """A spine item's page as blocks; a decoding problem is named with the chapter."""
    try:
        xhtml = item.media_type != "text/html"  # XML: its declaration names the charset
        html, warning = decode_html(package.z.read(item.name), package.rel, xhtml=xhtml)
        page = read_page(html, package.rel, xhtml=xhtml,
                         pictures=pictures.reader_for(item.name),
                         page_break=marks.reader(item.name),
                         name=posixpath.basename(item.name))
    except ExtractionError as exc:
        raise ExtractionError(package.rel, f"chapter {item.name}: {exc.reason}") from exc
    if warning:
        package.warnings.append(f"chapter {item.name}: {warning}")
    return _Chapter(item.name, page.blocks, item.linear)


def _unmark(block: str) -> tuple[str, list[tuple[int, int]]]:
    """``block`` without the page marks written in it, and each mark's page with its
    offset in what is left. Where a mark stood between two spaces, at a line's start or
    end, or on a line of its own, the space or line it leaves goes too: the text is
    the chapter's as read without its markers. A mark in a heading's ``## `` is at the
    heading's start; one at a space is at the word after it.

    >>> _unmark("one \U000F0002 two")
    ('one two', [(4, 2)])
    """
    if not _MARKS.search(block):
        return block, []
    chars: list[str] = []
    at: list[tuple[int, int]] = []
    for ch in block:
        if _MARKS.match(ch):
            at.append((len(chars), ord(ch) - _MARK))
        else:
            chars.append(ch)
    drop: set[int] = set()
    for p in {p for p, _ in at} if chars else ():
        before = chars[p - 1] if p > 0 else "\n"
        after = chars[p] if p < len(chars) else "\n"
        if after == " " and before in " \n":  # "one | two", a line's start
            drop.add(p)
        elif before == " " and after == "\n":  # a line's end
            drop.add(p - 1)
        elif before == after == "\n":  # a line of its own
            drop.add(p if p < len(chars) else p - 1)
    text = "".join(ch for i, ch in enumerate(chars) if i not in drop)
    heading = _HEADING.match(block)
    marks = []
    for p, k in at:
        o = p - sum(d < p for d in drop)
        while o < len(text) and text[o] in " \n":
            o += 1
        if heading and o <= heading.end():
            o = 0
        marks.append((o, k))
    if not heading and (escaped := escape_markdown(text)) != text:
        # a mark opened the line, so the chapter's reader did not escape its "# ": now
        # escaped, each mark moves past the backslashes put before it
        put: list[int] = []
        i = 0
        for ch in escaped:
            if i < len(text) and text[i] == ch:
                i += 1
            else:
                put.append(i)
        marks = [(o + sum(q < o for q in put), k) for o, k in marks]
        text = escaped
    return text, marks


def _printed_regions(starts: list[tuple[int, int]], labels: list[str], linear_end: int,
                     text_end: int) -> list[Region]:
    """The printed pages as regions: each from its start to the next page's, the
    reading order's last to the order's end (``linear_end``: notes read after it are on
    no page of it), and a non-linear page to the next or the text's end. A page with no
    text (two markers together: a blank page) has none."""
    out = []
    for i, (at, k) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else text_end
        if at < linear_end < end:
            end = linear_end
        if end > at:
            out.append(Region(RegionKind.PRINTED, at, end, label=labels[k]))
    return out


def _chapter_level(chapters: list[_Chapter]) -> int:
    """The heading level most chapters open with (1 when none opens with one): a title
    from the table of contents is set at it, so it is the other chapters' sibling."""
    levels = Counter(len(m.group(1)) for c in chapters if c.blocks
                     and (m := _HEADING.match(c.blocks[0])))
    return min(levels.most_common(1)[0][0], MAX_HEADING_LEVEL) if levels else 1


# The title libepubgen (LibreOffice's EPUB export) writes for a document with none.
_EXPORT_PLACEHOLDER = "unknown title"


def _own_title(title: str, stem: str) -> str:
    """The book's ``dc:title`` unless it names nothing: a placeholder (``Untitled``,
    LibreOffice's ``Unknown Title``) or the file's own name (the PDF rule,
    :func:`~citeline.extract.blocks.metadata_title`)."""
    if title.casefold() == _EXPORT_PLACEHOLDER:
        return ""
    own, _ = metadata_title(title, stem)
    return own or ""


class EpubExtractor:
    name = "epub"
    version = "13"  # 2: footnotes and endnotes are read (html extractor 16); 3: a
    # picture's meaningful alt text is read, a line of its own; 4: printed pages (the
    # page list, else the page-break markers) go with citations, markers' numbers are
    # no text; 5: DocBook's boxed asides are text (html extractor 18), as in a DocBook
    # e-book's chapters; 6: a chapter file the spine lists several times (by items whose
    # hrefs differ only in a fragment) is read once, and a list of notes is read with its
    # notes (html 19: docutils' footnote-list); 7: a chapter is read by html 20 (a list
    # inside a list item indented; a page's frame, its own table of contents, dropped);
    # 8: by html 21, a <pre> is a fenced code block in the language the chapter names;
    # 9: by html 22, API documentation's furniture (a "[source]" link, a toggle's label,
    # "Read more") is dropped from a chapter as from a page; 10: by html 23, a DocBook
    # chapter's table of contents of itself (links to "ch03.xhtml#id", its own file) with
    # its "Table of Contents" title, and DocBook's navigation tables; 11: the text of its
    # pictures, read by OCR, after the picture's alt text (a cell's after its row), an
    # SVG's <image> (a fixed-layout book's page) read as an <img>; the title a placeholder
    # gives (LibreOffice's "Unknown Title", "Untitled") or the file's name is none;
    # 12: alt text Microsoft 365 wrote itself ("... Description automatically generated")
    # says nothing, as an office document's; 13: an SVG picture's words, read without OCR
    suffixes = (".epub",)

    def extract(self, path: Path, rel: str) -> Document:
        try:
            if path.stat().st_size == 0:
                raise ExtractionError(rel, "empty file (0 bytes), not an EPUB e-book")
            if not zipfile.is_zipfile(path):
                raise ExtractionError(rel, _not_a_zip(path))
            check_package(path, rel, "EPUB e-book")
            with zipfile.ZipFile(path) as z:
                package = _Package(z, rel)
                # each file once, at its first place: a spine may list one file many times,
                # by items whose hrefs differ only in a fragment ("ch1.xhtml#o8", as SiSU
                # writes), and every listing read it whole again
                first: dict[str, _Item] = {}
                for item in [i for i in package.spine if i.linear] + \
                        [i for i in package.spine if not i.linear]:
                    first.setdefault(item.name, item)
                items = list(first.values())
                marks = _Marks(package.page_list())
                pictures = _Pictures(package)
                chapters = [_chapter(package, i, marks, pictures) for i in items
                            if i.media_type in _PAGE_TYPES]
                pictures.close()
                toc = package.toc()
        except OSError as exc:
            raise ExtractionError(rel, f"cannot read file: {exc.strerror or exc}") from exc
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, KeyError,
                ValueError) as exc:
            raise ExtractionError(rel, f"a damaged EPUB e-book ({exc})") from exc
        level = _chapter_level(chapters)
        blocks: list[str] = []
        out = TextBuilder()
        starts: list[tuple[int, int]] = []  # where each printed page begins, and its number
        pending: list[int] = []  # pages begun where no text is yet: at the next block
        linear_end = 0
        for chapter in chapters:
            if not chapter.linear and linear_end == len(out):
                pending = []  # the reading order's last marks: no page of the notes after it
            pending += marks.at_start(chapter.name)
            own = [_unmark(b) for b in chapter.blocks]  # none for a cover, an image page
            if chapter.blocks and not _HEADING.match(chapter.blocks[0]) and \
                    (title := toc.get(chapter.name)):
                # pages begun before the chapter's first words begin at its title
                while own and not own[0][0]:
                    pending += [k for _, k in own.pop(0)[1]]
                if own:
                    pending += [k for o, k in own[0][1] if o == 0]
                    own[0] = (own[0][0], [(o, k) for o, k in own[0][1] if o > 0])
                own.insert(0, ("#" * level + " " + title, []))
            for block, at in own:
                if not block:
                    pending += [k for _, k in at]
                    continue
                blocks.append(block)
                begin, end = out.add(block, sep="\n\n")
                starts += [(begin, k) for k in pending]
                pending = [k for o, k in at if begin + o >= end]
                starts += [(begin + o, k) for o, k in at if begin + o < end]
            if chapter.linear:
                linear_end = len(out)
        text = out.text()
        if not text.strip():
            raise ExtractionError(rel, f"the e-book has no text in its {len(chapters)} chapter "
                                       "pages" + "".join(f"; {w}" for w in package.warnings))
        first_heading = next((b[m.end():] for b in blocks if (m := _HEADING.match(b))), "")
        package.warnings.extend(marks.warnings())
        return Document(
            path=rel,
            title=_own_title(package.title, path.stem) or first_heading or path.stem,
            text=text,
            media_type=MEDIA_TYPE,
            extractor=self.name,
            extractor_version=self.version,
            headings="atx",
            regions=tuple(_printed_regions(starts, marks.labels, linear_end, len(text))),
            warnings=tuple(package.warnings),
        )


register(EpubExtractor())
