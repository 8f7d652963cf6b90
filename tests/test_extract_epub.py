"""EPUB e-books, on files ebooklib writes (EPUB 3 with a nav document, and the EPUB 2 way
with a toc.ncx alone): the chapters in the spine's reading order, each read as the HTML
extractor reads a page, a chapter without a heading titled from the table of contents;
a file that cannot be read, DRM-protected or no EPUB at all, says why."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

import doc_builders as b
from citeline.chunk import chunk_document, locate
from citeline.errors import ExtractionError
from citeline.extract import REGISTRY, extractor_for
from citeline.pipeline import Index
from citeline.types import Document, Locator


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


SKERRY_TEXT = (
    "# Arrival\n\n"
    "The supply boat docks at the north jetty every second Tuesday, weather permitting.\n\n"
    "## What the boat brings\n\n"
    "Fresh water in twenty-litre drums\n\n"
    "Paraffin for the lamp\n\n"
    "# Tides\n\n"
    "Spring tides flood the boat landing twice a month.\n\n"
    "Day | High water | Height\n\n"
    "Monday | 06:40 | 4.8 m\n\n"
    "Tuesday | 07:25 | 4.6 m\n\n"
    "1. Read the tide gauge at high water.\n\n"
    "2. Write the height in the log.\n\n"
    "# The foghorn\n\n"  # no heading in the chapter: its title in the table of contents
    "The foghorn's compressor must be oiled every hundred running hours.\n\n"
    "```\npressure   7 bar\n\n"  # a <pre>: a fenced block, its blank line kept
    "valve      open\n```\n\n"
    "# Notes\n\n"  # linear="no": after the reading order, though the spine has it second
    "Skerry is Old Norse for a rocky islet."
)


def _manifest_and_spine(path: Path) -> tuple[list[str], list[str]]:
    """The OPF's manifest hrefs and spine idrefs, in order, read with a regex."""
    opf = zipfile.ZipFile(path).read("EPUB/content.opf").decode()
    hrefs = re.findall(r'<item href="([^"]+)"', opf)
    ids = dict(re.findall(r'<item href="([^"]+)" id="([^"]+)"', opf))
    spine = re.findall(r'<itemref idref="([^"]+)"', opf)
    back = {v: k for k, v in ids.items()}
    return hrefs, [back[i] for i in spine]


def test_an_epub3_reads_its_chapters_in_spine_order(tmp_path: Path):
    """Headings, a list, a table, a <pre> as the HTML extractor writes them; the spine's
    order, not the manifest's; the linear="no" notes last; the heading-less chapter under
    its nav title; the cover picture and the nav page (in the spine) give no text."""
    path = b.epub_book(tmp_path)
    manifest, spine = _manifest_and_spine(path)
    chapters = [h for h in manifest if h.startswith("text/")]
    assert chapters == ["text/foghorn.xhtml", "text/notes.xhtml", "text/tides.xhtml",
                        "text/arrival.xhtml"]
    assert spine == ["cover.xhtml", "nav.xhtml", "text/arrival.xhtml", "text/notes.xhtml",
                     "text/tides.xhtml", "text/foghorn.xhtml"]
    doc = extract(path)
    assert doc.text == SKERRY_TEXT
    assert (doc.title, doc.extractor, doc.extractor_version, doc.headings) == (
        b.EPUB_TITLE, "epub", "13", "atx")
    assert doc.media_type == "application/epub+zip"
    assert doc.regions == () and doc.warnings == ()
    sections = {c.content.split("\n")[0]: c.section for c in chunk_document(doc)}
    assert sections["## What the boat brings"] == f"{b.EPUB_TITLE} > Arrival > What the boat brings"
    assert sections["# Tides"] == f"{b.EPUB_TITLE} > Tides"
    assert sections["# The foghorn"] == f"{b.EPUB_TITLE} > The foghorn"
    for chunk in chunk_document(doc):
        assert doc.text[chunk.start:chunk.end] == chunk.content
        assert locate(doc, chunk.start, chunk.end).fragment == f"#char={chunk.start},{chunk.end}"


def test_an_epub2_s_toc_ncx_titles_a_chapter_without_a_heading(tmp_path: Path):
    path = b.epub_book(tmp_path, nav=False)
    assert "EPUB/nav.xhtml" not in zipfile.ZipFile(path).namelist()
    doc = extract(path)
    assert doc.text == SKERRY_TEXT and doc.title == b.EPUB_TITLE
    # a table of contents that cannot be read: the chapters are, untitled, with a warning
    doc = extract(_rezip(path, tmp_path / "torn.epub", {"EPUB/toc.ncx": b"<ncx><navMap>"}))
    assert doc.text == SKERRY_TEXT.replace("# The foghorn\n\n", "")
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith(
        "its table of contents EPUB/toc.ncx is not well-formed XML (")
    assert doc.warnings[0].endswith("): chapters without a heading have no title from it")


def test_the_nav_document_is_the_table_of_contents_read_before_the_ncx(tmp_path: Path):
    good = b.epub_book(tmp_path)
    ncx = zipfile.ZipFile(good).read("EPUB/toc.ncx").replace(b"The foghorn", b"Horn (NCX)")
    doc = extract(_rezip(good, tmp_path / "both.epub", {"EPUB/toc.ncx": ncx}))
    assert "\n# The foghorn\n" in doc.text and "NCX" not in doc.text
    # no title for it anywhere: its text is the section before it
    no_toc = _rezip(good, tmp_path / "untitled.epub", {"EPUB/toc.ncx": ncx.replace(
        b"text/foghorn.xhtml", b"text/elsewhere.xhtml"), "EPUB/nav.xhtml": zipfile.ZipFile(
        good).read("EPUB/nav.xhtml").replace(b"text/foghorn.xhtml", b"text/elsewhere.xhtml")})
    doc = extract(no_toc)
    assert doc.text == SKERRY_TEXT.replace("# The foghorn\n\n", "")


def test_the_chapters_agree_with_ebooklib_s_own_reader(tmp_path: Path):
    """An independent reader: ebooklib's spine, each chapter's body words (lxml) in the
    canonical text in order (with the list numbers between them, which lxml does not
    draw), the linear chapters in the spine's order, then the others."""
    import ebooklib
    from ebooklib import epub
    from lxml import html

    path = b.epub_book(tmp_path)
    book = epub.read_epub(str(path), {"ignore_ncx": True})
    ordered = []
    for idref, linear in book.spine:
        item = book.get_item_with_id(idref)
        if item.get_type() == ebooklib.ITEM_DOCUMENT and not isinstance(item, epub.EpubNav):
            words = re.findall(r"\w+", html.fromstring(item.get_body_content() or b"<p/>")
                               .text_content().casefold())
            ordered.append((linear != "no", words))
    text = re.findall(r"\w+", extract(path).text.casefold())
    at = 0
    for _, words in sorted(ordered, key=lambda lw: not lw[0]):  # stable: linear first
        for word in words:  # a subsequence, each chapter's after the one before
            at = text.index(word, at) + 1
    assert sum(len(w) for _, w in ordered) == len(text) - 2 - len(
        b.EPUB_CHAPTERS["foghorn"][1].split())  # "1", "2" and the foghorn's title added


def _rezip(src: Path, dst: Path, replace: dict[str, bytes | None]) -> Path:
    """A copy of ``src`` with entries replaced, added, or (None) left out."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename not in replace:
                zout.writestr(info, zin.read(info.filename))
            elif (data := replace[info.filename]) is not None:
                zout.writestr(info, data)
        for name, data in replace.items():
            if name not in zin.namelist() and data is not None:
                zout.writestr(name, data)
    return dst


def _encryption(*entries: tuple[str, str]) -> bytes:
    """META-INF/encryption.xml listing (algorithm, file) entries, as OCF writes it."""
    data = "".join(
        f'<enc:EncryptedData><enc:EncryptionMethod Algorithm="{alg}"/><enc:CipherData>'
        f'<enc:CipherReference URI="{uri}"/></enc:CipherData></enc:EncryptedData>'
        for alg, uri in entries)
    return ('<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:'
            'container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#" xmlns:ds='
            f'"http://www.w3.org/2000/09/xmldsig#">{data}</encryption>').encode()


AES = "http://www.w3.org/2001/04/xmlenc#aes128-cbc"
RIGHTS = b'<adept:rights xmlns:adept="http://ns.adobe.com/adept"><adept:licenseToken/></adept:rights>'


def test_a_drm_protected_epub_is_refused_saying_so(tmp_path: Path):
    good = b.epub_book(tmp_path)

    def reason(name: str, replace: dict[str, bytes | None]) -> str:
        with pytest.raises(ExtractionError) as info:
            extract(_rezip(good, tmp_path / name, replace))
        assert info.value.path == name
        return info.value.reason

    encrypted = _encryption((AES, "EPUB/text/arrival.xhtml"), (AES, "EPUB/text/tides.xhtml"))
    assert reason("locked.epub", {"META-INF/encryption.xml": encrypted}) == (
        "the e-book is protected by DRM (META-INF/encryption.xml lists 2 encrypted files, "
        "EPUB/text/arrival.xhtml first); citeline cannot read it")
    assert reason("adept.epub", {"META-INF/encryption.xml": encrypted,
                                 "META-INF/rights.xml": RIGHTS}) == (
        "the e-book is protected by DRM (Adobe ADEPT: META-INF/encryption.xml lists 2 "
        "encrypted files, EPUB/text/arrival.xhtml first); citeline cannot read it")
    assert reason("rights.epub", {"META-INF/rights.xml": RIGHTS}) == (
        "the e-book is protected by DRM (Adobe ADEPT: META-INF/rights.xml); citeline cannot "
        "read it")
    # an embedded font obfuscated (EPUB's font rule), not encrypted: a DRM-free book
    fonts = _encryption(("http://www.idpf.org/2008/embedding", "EPUB/fonts/serif.otf"))
    doc = extract(_rezip(good, tmp_path / "fonts.epub", {"META-INF/encryption.xml": fonts,
                                                         "EPUB/fonts/serif.otf": b"\0" * 64}))
    assert doc.text == SKERRY_TEXT


def test_a_file_that_is_no_readable_epub_says_why(tmp_path: Path):
    good = b.epub_book(tmp_path)

    def reason(name: str, data: bytes | None = None,
               replace: dict[str, bytes | None] | None = None) -> str:
        path = tmp_path / name
        if replace is not None:
            _rezip(good, path, replace)
        else:
            path.write_bytes(data or b"")
        with pytest.raises(ExtractionError) as info:
            extract(path)
        assert str(info.value).startswith(f"{name}: ")
        return info.value.reason

    assert reason("empty.epub") == "empty file (0 bytes), not an EPUB e-book"
    assert reason("notes.epub", b"Chapter one. It was a dark night.\n") == (
        "not an EPUB e-book (not a ZIP package)")
    assert reason("cut.epub", good.read_bytes()[:600]).startswith(
        "a damaged EPUB e-book: its ZIP package ends early")
    assert reason("book.epub", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n") == (
        "a PDF document, not an EPUB e-book: name it .pdf")
    kindle = b"Skerry Light".ljust(60, b"\0") + b"BOOKMOBI" + b"\0" * 200
    assert reason("kindle.epub", kindle) == (
        "a Kindle e-book (MOBI/AZW), not an EPUB; convert it to EPUB (Calibre does)")

    plain_zip = tmp_path / "photos.zip"
    with zipfile.ZipFile(plain_zip, "w") as z:
        z.writestr("holiday.txt", "not a book")
    assert reason("photos.epub", plain_zip.read_bytes()) == (
        "a ZIP archive but not an EPUB e-book (it has no mimetype entry)")
    assert reason("manual.epub", b.odt_manual(tmp_path).read_bytes()) == (
        "an OpenDocument text document, not an EPUB e-book: name it .odt")
    assert reason("handbook.epub", b.docx_file(tmp_path).read_bytes()) == (
        "an Office Open XML file, not an EPUB e-book: name it .docx")
    assert reason("comic.epub", replace={"mimetype": b"application/vnd.comicbook+zip"}) == (
        "a ZIP archive but not an EPUB e-book (its mimetype is 'application/vnd.comicbook+zip')")

    assert reason("nocontainer.epub", replace={"META-INF/container.xml": None}) == (
        "not a readable EPUB: it has no META-INF/container.xml (which names its package "
        "document)")
    assert reason("noopf.epub", replace={"EPUB/content.opf": None}) == (
        "not a readable EPUB: its package document EPUB/content.opf (named in "
        "META-INF/container.xml) is missing")
    assert reason("badopf.epub", replace={"EPUB/content.opf": b"<package><metadata>"}).startswith(
        "not a readable EPUB: its package document EPUB/content.opf is not well-formed XML (")
    assert reason("lost.epub", replace={"EPUB/text/tides.xhtml": None}) == (
        "not a readable EPUB: spine item EPUB/text/tides.xhtml is missing from the package")
    opf = zipfile.ZipFile(good).read("EPUB/content.opf")
    unlisted = re.sub(rb'<item href="text/tides.xhtml"[^>]*/>', b"", opf)
    assert unlisted != opf
    assert reason("unlisted.epub", replace={"EPUB/content.opf": unlisted}).startswith(
        "not a readable EPUB: its spine names item 'chapter_")


def test_an_epub_that_unpacks_to_a_bomb_is_refused_unread(tmp_path: Path):
    path = b.epub_book(tmp_path)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("EPUB/images/zeros.bin", b"\0" * (24 << 20))  # 24 MB, packed to ~24 KB
    assert path.stat().st_size < 200_000
    with pytest.raises(ExtractionError, match=r"part EPUB/images/zeros.bin unpacks \d+ to 1 .*zip bomb"):
        extract(path)


FIGURES = (
    "<h1>The lamp</h1>"
    "<figure><img src=\"../images/lens.png\" alt=\"The Fresnel lens seen from the gallery: "
    "eight bullseye panels around the burner\"/>"
    "<figcaption>Figure 3. The lens</figcaption></figure>"
    "<p>Trim the wick before sunset.</p>"
    "<p><img src=\"../images/rule.png\" alt=\"\"/></p>"  # decorative: alt=""
    "<p><img src=\"../images/flourish.png\" alt=\"A curling flourish\" role=\"presentation\"/>"
    "</p>"
    "<p><img src=\"../images/lens.png\" alt=\"image1.png\"/></p>"  # a converter's file name
    "<p><img src=\"../images/lens.png\" alt=\"Figure 4\"/></p>"  # names nothing
    "<figure><img src=\"../images/jetty.png\" alt=\"The north jetty at low water\"/>"
    "<figcaption>The north jetty at low water</figcaption></figure>"  # the caption again
    "<p><img src=\"../images/cover.png\" alt=\"The cover: a lighthouse on a rock\"/></p>"
)


def _figures_book(folder: Path) -> Path:
    """An e-book whose chapter shows pictures, written by ebooklib: a figure described
    by its alt text, decorative ones, alt texts that say nothing, the cover picture."""
    import io

    from ebooklib import epub
    from PIL import Image

    def png(colour: str) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (40, 30), colour).save(out, format="PNG")
        return out.getvalue()

    book = epub.EpubBook()
    book.set_identifier("urn:uuid:6f1c2a44-lamp")
    book.set_title("The Lamp Room")
    book.set_language("en")
    book.set_cover("images/cover.png", png("navy"))
    for name in ("lens", "rule", "flourish", "jetty"):
        book.add_item(epub.EpubImage(uid=name, file_name=f"images/{name}.png",
                                     media_type="image/png", content=png("grey")))
    chapter = epub.EpubHtml(title="The lamp", file_name="text/lamp.xhtml", lang="en",
                            content=FIGURES)
    book.add_item(chapter)
    book.toc = [epub.Link("text/lamp.xhtml", "The lamp", "lamp")]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["cover", "nav", chapter]
    path = folder / "lamp.epub"
    epub.write_epub(str(path), book, {"raise_exceptions": True})
    return path


def test_a_picture_s_alt_text_is_a_line_of_its_own_unless_it_says_nothing(tmp_path: Path):
    """A figure's description is the book's text (a reader who cannot see the picture gets
    it); decoration (alt="", role="presentation"), a file name, a bare "Figure 4", the
    caption said again and the cover picture (on its own page or in a chapter) give none."""
    path = _figures_book(tmp_path)
    assert b'alt="Cover"' in zipfile.ZipFile(path).read("EPUB/cover.xhtml")
    doc = extract(path)
    assert doc.text == (
        "# The lamp\n\n"
        "The Fresnel lens seen from the gallery: eight bullseye panels around the burner\n\n"
        "Figure 3. The lens\n\n"
        "Trim the wick before sunset.\n\n"
        "The north jetty at low water")
    assert doc.extractor_version == "13"
    # a web page's pictures give no text, as before: the HTML extractor is unchanged
    page = tmp_path / "lamp.html"
    page.write_text(f"<html><body>{FIGURES}</body></html>", encoding="utf-8")
    html = extract(page)
    assert "Fresnel" not in html.text and html.extractor_version == "23"


def test_epub_is_registered_with_a_name_and_version():
    extractor_for(Path("x.epub"))  # loads the built-in extractors
    assert (REGISTRY[".epub"].name, REGISTRY[".epub"].version) == ("epub", "13")


def test_an_epub_s_sentence_is_found_through_the_index_with_its_chapter(tmp_path: Path, embedder):
    """The real pipeline: real SQLite, the real model; the hit names the chapter (its
    table-of-contents title), quotes the stored text's slice, and cites #char=."""
    folder = tmp_path / "docs"
    folder.mkdir()
    b.epub_book(folder)
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        report = idx.index(folder)
        assert report.indexed == ["skerry.epub"] and not report.failed
        hits = idx.search("how often must the foghorn compressor be oiled", k=5).hits
        hit = hits[0]
        assert hit.document == "skerry.epub"
        assert "oiled every hundred running hours" in hit.content
        assert hit.section == f"{b.EPUB_TITLE} > The foghorn"
        assert idx.store.document_text("skerry.epub")[hit.start:hit.end] == hit.content
        assert hit.to_json()["locator"] == f"#char={hit.start},{hit.end}"
    finally:
        idx.close()


# --- printed pages: the page list (EPUB 3's nav, EPUB 2's NCX) and page-break markers ---

FRONT = ("front.xhtml", "<h1>The Tide Tables</h1><p>For the keepers of Skerry Light.</p>")
SPRING = (
    "spring.xhtml",
    # a marker in the heading, one inside a sentence, one a block showing its number
    '<h1><span epub:type="pagebreak" id="page_7" title="7"/>Spring tides</h1>'
    "<p>Spring tides flood the boat landing twice a month. They come "
    '<span epub:type="pagebreak" id="page_8" title="8"/> with the new and the full moon.</p>'
    '<div epub:type="pagebreak" role="doc-pagebreak" id="page_9">9</div>'
    "<p>Neap tides rise least, a week after the spring tides.</p>")
NOTES = ("notes.xhtml", "<h1>Notes</h1><p>The landing is the old slipway.</p>")
NAV_PAGES = [("text/spring.xhtml#page_7", "7"), ("text/spring.xhtml#page_8", "8"),
             ("text/spring.xhtml#page_9", "9")]
_MARKERS = re.compile(r'<(span|div) epub:type="pagebreak"[^>]*?(/>|>[^<]*</\1>)')
TIDES_TEXT = (
    "# The Tide Tables\n\n"
    "For the keepers of Skerry Light.\n\n"
    "# Spring tides\n\n"
    "Spring tides flood the boat landing twice a month. They come with the new and the full "
    "moon.\n\n"
    "Neap tides rise least, a week after the spring tides.\n\n"
    "# Notes\n\n"
    "The landing is the old slipway.")


def _pages(doc: Document) -> list[tuple[str | None, str]]:
    return [(r.label, doc.text[r.start:r.end]) for r in doc.regions]


def test_an_epub3_page_list_gives_a_citation_the_printed_pages_it_spans(tmp_path: Path):
    """Each page-list entry starts its printed page at its marker (in a heading: at the
    heading; in a sentence: at the next word); the front matter before the first marker
    and the linear="no" notes after the reading order are on no page; the markers add no
    text, not even the number one of them shows: the text is the unmarked book's."""
    from citeline.store import locator_from, locator_json, regions_from_json, regions_json

    path = b.paged_epub(tmp_path, "tides.epub", [FRONT, SPRING], nav_pages=NAV_PAGES,
                        notes=NOTES)
    doc = extract(path)
    unmarked = b.paged_epub(tmp_path, "plain.epub", [FRONT, (SPRING[0], _MARKERS.sub(
        "", SPRING[1]))], notes=NOTES)
    assert "pagebreak" not in _MARKERS.sub("", SPRING[1])
    assert doc.text == extract(unmarked).text == TIDES_TEXT
    assert _pages(doc) == [
        ("7", "# Spring tides\n\nSpring tides flood the boat landing twice a month. They come "),
        ("8", "with the new and the full moon.\n\n"),
        ("9", "Neap tides rise least, a week after the spring tides.")]
    assert doc.warnings == () and doc.extractor_version == "13"

    def at(words: str) -> Locator:
        start = doc.text.index(words)
        return locate(doc, start, start + len(words))

    loc = at("with the new and the full moon")
    assert loc.page_labels == ("8",) and loc.fragment == f"#char={loc.start},{loc.end}"
    assert loc.to_json()["page_labels"] == ["8"] and not loc.pages
    assert at("twice a month. They come with the new").page_labels == ("7", "8")
    for words in ("For the keepers", "The landing is the old slipway"):
        assert at(words).page_labels == () and "page_labels" not in at(words).to_json()
    # a chunk spanning the pages names them all, in order
    chunk = next(c for c in chunk_document(doc) if "Neap" in c.content)
    assert locate(doc, chunk.start, chunk.end).page_labels == ("7", "8", "9")
    # kept by the stores as they are
    assert regions_from_json(regions_json(doc.regions)) == list(doc.regions)
    assert locator_from(locator_json(loc)) == loc


def test_an_epub2_ncx_page_list_links_to_anchors_of_any_kind(tmp_path: Path):
    """toc.ncx's pageList: an empty anchor, a span showing its page's number (the
    number is no text), a paragraph that opens its page (its words are)."""
    body = ('<h1>Neap tides</h1><p>Neap tides rise least.<a id="p3"/> The keeper still '
            'reads the gauge.</p><p><span id="p4" class="pagenum">[4]</span>A gauge board '
            'stands at the slipway.</p><p id="p5">Five marks are painted on it.</p>')
    path = b.paged_epub(tmp_path, "neap.epub", [("neap.xhtml", body)], epub3=False,
                        ncx_pages=[("text/neap.xhtml#p3", "3"), ("text/neap.xhtml#p4", "4"),
                                   ("text/neap.xhtml#p5", "5")])
    assert "OEBPS/nav.xhtml" not in zipfile.ZipFile(path).namelist()
    doc = extract(path)
    assert doc.text == ("# Neap tides\n\nNeap tides rise least. The keeper still reads the "
                        "gauge.\n\nA gauge board stands at the slipway.\n\nFive marks are "
                        "painted on it.")
    assert _pages(doc) == [("3", "The keeper still reads the gauge.\n\n"),
                           ("4", "A gauge board stands at the slipway.\n\n"),
                           ("5", "Five marks are painted on it.")]


def test_doc_pagebreak_markers_without_a_page_list_name_their_own_pages(tmp_path: Path):
    """No page list: each marker's title or aria-label ("page 12" is page 12) is its
    number; a marker with none is skipped, counted in a warning, its text on the page
    before; the visible number inside one is no text. A page begun at a chapter's first
    words begins at the title the table of contents gives it."""
    body = ('<p><span role="doc-pagebreak" id="pg12" aria-label="page 12"/>The lamp is lit '
            'at sunset.</p><p>Its wick is trimmed at dawn.<span role="doc-pagebreak"/> '
            'The glass is cleaned weekly.</p>'
            '<p><span role="doc-pagebreak" title="13">13</span>The log is signed nightly.</p>')
    doc = extract(b.paged_epub(tmp_path, "lamp.epub", [("lamp.xhtml", body)]))
    assert doc.text == ("# lamp.xhtml\n\nThe lamp is lit at sunset.\n\nIts wick is trimmed at "
                        "dawn. The glass is cleaned weekly.\n\nThe log is signed nightly.")
    assert [(label, text[:20]) for label, text in _pages(doc)] == [
        ("12", "# lamp.xhtml\n\nThe la"), ("13", "The log is signed ni")]
    assert doc.warnings == ("1 page-break marker with no page number (no title or aria-label), "
                            "skipped: the text after them is cited at the printed page before",)


def test_a_page_list_entry_linking_nowhere_is_skipped_with_a_warning(tmp_path: Path):
    pages = [*NAV_PAGES[:2], ("text/spring.xhtml#page_99", "99"), ("text/gone.xhtml#p1", "100"),
             NAV_PAGES[2]]
    doc = extract(b.paged_epub(tmp_path, "torn.epub", [FRONT, SPRING], nav_pages=pages))
    assert [label for label, _ in _pages(doc)] == ["7", "8", "9"]
    assert doc.warnings == (
        "its page list has 2 entries linking to no place in the text read "
        "(OEBPS/text/spring.xhtml#page_99 first), skipped: the text there is cited at the "
        "printed page before",)


def test_a_book_without_a_page_list_cites_as_before(tmp_path: Path):
    """Text, chunks and citations of a book with no page list and no markers are those
    extractor 3 gave (recorded from it): only the version differs, and the foghorn's <pre>
    is fenced since extractor 8 (html 21): its chunk ends, and the next one's bounds are,
    8 characters on (the fence lines)."""
    doc = extract(b.epub_book(tmp_path))
    assert doc.text == SKERRY_TEXT and doc.regions == () and doc.extractor_version == "13"
    assert [(c.start, c.end, locate(doc, c.start, c.end).to_json()) for c in
            chunk_document(doc)] == [
        (s, e, {"char": [s, e], "fragment": f"#char={s},{e}"})
        for s, e in [(0, 93), (95, 176), (178, 385), (387, 512), (514, 561)]]


def test_an_epub_hit_and_answer_name_their_printed_pages(tmp_path: Path, embedder, capsys):
    """search's line and --json location carry the printed pages; an answer's sentence
    cites its own printed page, not every page of its chunk."""
    import json

    from citeline import cli

    folder = tmp_path / "docs"
    folder.mkdir()
    b.paged_epub(folder, "tides.epub", [FRONT, SPRING], nav_pages=NAV_PAGES, notes=NOTES)
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        assert idx.index(folder).indexed == ["tides.epub"]
        hit = idx.search("when do the spring tides flood the boat landing", k=1).hits[0]
        assert hit.locator.page_labels == ("7", "8", "9")
        code = cli.main(["search", "spring tides flood the boat landing", "--index",
                         idx.location, "-k", "1"])
        out = capsys.readouterr().out
        assert code == 0
        assert f"tides.epub#char={hit.start},{hit.end} (printed pages 7, 8, 9)" in out
        cli.main(["search", "spring tides flood the boat landing", "--index", idx.location,
                  "-k", "1", "--json"])
        location = json.loads(capsys.readouterr().out)["hits"][0]["location"]
        assert location["page_labels"] == ["7", "8", "9"] and "pages" not in location
        ans = idx.ask("When do neap tides rise least?")
        assert not ans.refused and ans.generator == "extractive", ans.reason
        span = next(sp for sp in ans.spans if "Neap" in sp.text)
        assert ans.citations[span.citation - 1].locator.page_labels == ("7", "8", "9")
        assert span.locator.page_labels == ("9",)
    finally:
        idx.close()


def test_a_chapter_the_spine_lists_several_times_is_read_once(tmp_path: Path):
    """SiSU (the Debian Live manual's EPUB) lists each chapter file once per section, by
    manifest items whose hrefs differ only in a fragment ("ch1.xhtml#o8"): each listing
    read the whole file again, 2,121,140 characters for a 170,342-character book (found
    writing eval/devreference). Each file is read once, at its first place."""
    chapters = [("ch1.xhtml", "<h1>Neap tides</h1><p>Neap tides come at the quarter moons.</p>"),
                ("ch2.xhtml", "<h1>Spring tides</h1><p>Spring tides follow the full moon.</p>")]
    plain = extract(b.paged_epub(tmp_path, "plain.epub", chapters))
    path = b.paged_epub(tmp_path, "sisu.epub", chapters)
    with zipfile.ZipFile(path) as z:
        entries = {i.filename: z.read(i) for i in z.infolist()}
    opf = entries["OEBPS/content.opf"].decode()
    opf = opf.replace("</manifest>", '<item id="c0b" href="text/ch1.xhtml#o2" media-type='
                      '"application/xhtml+xml"/><item id="c1b" href="text/ch2.xhtml#o9" '
                      'media-type="application/xhtml+xml"/></manifest>')
    opf = opf.replace('<itemref idref="c1"/>',
                      '<itemref idref="c0b"/><itemref idref="c1"/><itemref idref="c1b"/>')
    entries["OEBPS/content.opf"] = opf.encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    doc = extract(path)
    assert doc.text == plain.text and doc.text.count("Neap tides come") == 1
