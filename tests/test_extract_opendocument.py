"""OpenDocument text (.odt) and presentations (.odp), on files odfpy writes as LibreOffice
lays them out: the canonical text is what Writer and Impress show, in the shape the Word
and PowerPoint extractors give, and a file that cannot be read says why."""

from __future__ import annotations

import dataclasses
import re
import zipfile
from pathlib import Path

import pytest

import doc_builders as b
from citeline.chunk import chunk_document, locate
from citeline.errors import ExtractionError
from citeline.extract import REGISTRY, extractor_for
from citeline.pipeline import Index
from citeline.types import Document, RegionKind


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


KEEPERS_TEXT = (
    "# Keepers' manual\n\n"
    "Keep the lamp lit from sunset to sunrise.\n\n"
    "# The lamp\n\n"
    "Trim the wick every four hours. Log it.\nSign the log.\n\n"
    "## Lighting up\n\n"
    "1. Open the lantern room vents.\n\n"
    "2. Light the mantle.\n\n"
    "a) Use the long taper.\n\n"
    "b) Never a lighter.\n\n"
    "3. Wind the clockwork.\n\n"
    "### Spare parts\n\n"
    "Two spare mantles in the tin box.\n\n"
    "\\# a bullet that only looks like a heading\n\n"
    "The fog signal sounds every thirty seconds in fog and at night.\n\n"
    "Footnote 1: Visibility under two nautical miles.\n\n"
    "The radio room is below the lantern.\n\n"
    "Channel 16 is monitored at all times.\n\n"
    "# Watches\n\n"
    "Watch | Keeper | Hours\n\n"
    "First | Ines | 20-24\n\n"
    "Middle | 00-04\n\n"
    "Hand over the watch in person."
)


def test_odt_reads_as_writer_shows_it(tmp_path: Path):
    """Title and outline levels as # lines; a numbered list (its nested level lettered)
    with the numbers the list style draws, a bulleted one without bullets; a table's rows
    (a cell merged across columns once); a footnote after its paragraph; a frame's text
    after its anchor paragraph; text:s, text:tab, text:line-break; soft page breaks,
    the tracked deletion and the page header not there."""
    doc = extract(b.odt_manual(tmp_path))
    assert doc.text == KEEPERS_TEXT
    assert (doc.title, doc.extractor, doc.headings) == ("Keepers' manual", "odt", "atx")
    assert doc.media_type == "application/vnd.oasis.opendocument.text"
    assert b.ODT_DELETED not in doc.text and b.ODT_HEADER not in doc.text
    assert doc.regions == () and doc.warnings == ()
    sections = {c.content.split("\n")[0]: c.section for c in chunk_document(doc)}
    assert sections["## Lighting up"] == "Keepers' manual > The lamp > Lighting up"
    assert sections["### Spare parts"] == "Keepers' manual > The lamp > Lighting up > Spare parts"
    assert sections["# Watches"] == "Keepers' manual > Watches"


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _holds(haystack: list[str], needle: list[str]) -> bool:
    return " " + " ".join(needle) + " " in " " + " ".join(haystack) + " "


def test_odt_text_agrees_with_odfpy_s_own_reader(tmp_path: Path):
    """An independent reader, odfpy's (teletype.extractText): each body paragraph's words,
    its notes taken out, are in the canonical text in order, and so is each note's; the
    canonical text has no word odfpy does not read, but the list marks and note labels;
    the tracked deletion, which odfpy reads as a paragraph, is not there."""
    from odf import teletype
    from odf.opendocument import load
    from odf.text import H, Note, NoteBody, P

    path = b.odt_manual(tmp_path)
    canon = _words(extract(path).text)
    odf_doc = load(str(path))
    notes = [teletype.extractText(n.getElementsByType(NoteBody)[0])
             for n in odf_doc.text.getElementsByType(Note)]
    for n in odf_doc.text.getElementsByType(Note):
        n.parentNode.removeChild(n)
    texts = [teletype.extractText(p) for p in odf_doc.text.getElementsByType(P)
             + odf_doc.text.getElementsByType(H)]
    assert notes and all(_holds(canon, _words(n)) for n in notes)
    deleted = [t for t in texts if t == b.ODT_DELETED]
    assert deleted and not _holds(canon, _words(b.ODT_DELETED))
    for text in texts:
        assert text == b.ODT_DELETED or _holds(canon, _words(text)), text
    read = set(_words(" ".join(texts + notes)))
    # the notes' label and number, the list marks ("a" is a word of the text too)
    assert set(canon) - read == {"footnote", "1", "2", "3", "b"}


def _odt(tmp_path: Path, build) -> Path:  # type: ignore[no-untyped-def]
    from odf.opendocument import OpenDocumentText

    doc = OpenDocumentText()
    build(doc)
    path = tmp_path / "case.odt"
    doc.save(str(path))
    return path


def _p(text: str, **kwargs):  # type: ignore[no-untyped-def]
    from odf.text import P

    return P(text=text, **kwargs)


def _items(lst, *texts: str):  # type: ignore[no-untyped-def]
    from odf.text import ListItem

    for text in texts:
        item = ListItem()
        item.addElement(_p(text))
        lst.addElement(item)
    return lst


def test_odt_numbering_continues_restarts_and_shows_parent_levels(tmp_path: Path):
    """A list interrupted by a paragraph continues its numbers when it says so
    (text:continue-numbering), a new list restarts, an item's start value restarts the
    count; a level showing two levels writes "2.1." and a roman one "ii."."""
    from odf.text import List, ListItem, ListLevelStyleNumber, ListStyle

    def build(doc):  # type: ignore[no-untyped-def]
        style = ListStyle(name="L1")
        style.addElement(ListLevelStyleNumber(level=1, numformat="1", numsuffix="."))
        style.addElement(ListLevelStyleNumber(level=2, numformat="1", numsuffix=".",
                                              displaylevels=2))
        style.addElement(ListLevelStyleNumber(level=3, numformat="i", numsuffix="."))
        doc.automaticstyles.addElement(style)
        first = _items(List(stylename=style), "Check the glass.", "Check the oil.")
        doc.text.addElement(first)
        doc.text.addElement(_p("Then walk the gallery."))
        doc.text.addElement(_items(List(stylename=style, continuenumbering="true"),
                                   "Check the fog horn."))
        again = List(stylename=style)
        item = ListItem(startvalue=7)
        item.addElement(_p("Seventh step."))
        inner = _items(List(), "First sub-step.", "Second sub-step.")
        inner.lastChild.addElement(_items(List(), "Roman one.", "Roman two."))
        item.addElement(inner)
        again.addElement(item)
        doc.text.addElement(again)
        doc.text.addElement(_items(List(stylename=style), "A new list starts at one."))

    doc = extract(_odt(tmp_path, build))
    assert doc.text.split("\n\n") == [
        "1. Check the glass.", "2. Check the oil.", "Then walk the gallery.",
        "3. Check the fog horn.", "7. Seventh step.", "7.1. First sub-step.",
        "7.2. Second sub-step.", "i. Roman one.", "ii. Roman two.",
        "1. A new list starts at one."]


def test_odt_notes_frames_shapes_hidden_text_and_styled_headings(tmp_path: Path):
    """An endnote with its roman citation and a footnote with a custom mark; a note cited
    in a table row follows the row; a frame anchored to the page is read where the body
    lists it, a shape's own text after its paragraph, a heading inside a frame is text;
    hidden text and a comment are not read; a paragraph in a style based on Title, and one
    in a style with an outline level, are headings."""
    from odf.draw import CustomShape, Frame, TextBox
    from odf.office import Annotation
    from odf.style import ParagraphProperties, Style, TextProperties
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import H, Note, NoteBody, NoteCitation, S, Span

    def note(cls: str, citation: str, text: str, label: str | None = None):  # type: ignore[no-untyped-def]
        n = Note(id=f"n{citation}", noteclass=cls)
        n.addElement(NoteCitation(text=citation, **({"label": label} if label else {})))
        body = NoteBody()
        body.addElement(_p(text))
        n.addElement(body)
        return n

    def build(doc):  # type: ignore[no-untyped-def]
        title = Style(name="Title", family="paragraph")
        doc.styles.addElement(title)
        chapter = Style(name="Chapter", family="paragraph", defaultoutlinelevel="2")
        doc.styles.addElement(chapter)
        centred = Style(name="P1", family="paragraph", parentstylename="Title")
        centred.addElement(ParagraphProperties(textalign="center"))
        doc.automaticstyles.addElement(centred)
        hidden = Style(name="T1", family="text")
        hidden.addElement(TextProperties(display="none"))
        doc.automaticstyles.addElement(hidden)

        page_frame = Frame(anchortype="page", width="5cm", height="2cm")
        box = TextBox()
        box.addElement(H(outlinelevel=1, text="Boxed heading"))
        page_frame.addElement(box)
        doc.text.addElement(page_frame)
        doc.text.addElement(_p("Station log", stylename=centred))
        doc.text.addElement(_p("Weather", stylename=chapter))
        p = _p("Barometer falling")
        p.addElement(note("endnote", "i", "Read at noon."))
        p.addElement(Span(stylename=hidden, text=" SECRET-DRAFT-WORDS"))
        comment = Annotation()
        comment.addElement(_p("Reviewer remark, not body text."))
        p.addElement(comment)
        p.addText(" since dawn")
        p.addElement(note("footnote", "*", "Aneroid type.", label="*"))
        p.addElement(S())
        p.addText("today.")
        shape = CustomShape(anchortype="paragraph", width="3cm", height="1cm")
        shape.addElement(_p("Storm cone hoisted"))
        p.addElement(shape)
        doc.text.addElement(p)
        table = Table(name="T")
        table.addElement(TableColumn(numbercolumnsrepeated=2))
        row = TableRow()
        for text, cited in (("Wind", None), ("Force 9", "2")):
            cell = TableCell()
            para = _p(text)
            if cited:
                para.addElement(note("footnote", cited, "Beaufort scale."))
            cell.addElement(para)
            row.addElement(cell)
        table.addElement(row)
        doc.text.addElement(table)

    doc = extract(_odt(tmp_path, build))
    assert doc.text.split("\n\n") == [
        "Boxed heading", "# Station log", "## Weather", "Barometer falling since dawn today.",
        "Storm cone hoisted", "Endnote i: Read at noon.", "Footnote *: Aneroid type.",
        "Wind | Force 9", "Footnote 2: Beaufort scale."]
    assert doc.title == "Station log"  # no title in the metadata: the first heading


def test_odt_nested_as_deep_as_the_xml_parser_allows_is_read(tmp_path: Path):
    """libxml2 refuses XML deeper than 256 elements; frames in frames down to there (the
    deepest recursion here: three elements a level) are read, each after its paragraph."""
    from odf.draw import Frame, TextBox

    def build(doc):  # type: ignore[no-untyped-def]
        holder = _p("Level 0")
        doc.text.addElement(holder)
        for n in range(1, 82):  # office:document-content/body/text + 81 * p/frame/text-box
            frame = Frame(anchortype="paragraph", width="1cm", height="1cm")
            box = TextBox()
            inner = _p(f"Level {n}")
            box.addElement(inner)
            frame.addElement(box)
            holder.addElement(frame)
            holder = inner

    doc = extract(_odt(tmp_path, build))
    assert doc.text.split("\n\n") == [f"Level {n}" for n in range(82)]


def test_odp_slides_are_sections_cited_by_slide_number(tmp_path: Path):
    """Impress's deck: each slide a section titled by its title frame (Slide 3 has none),
    its frames in order, a list a line per item, a table's rows, the notes last; footer,
    date and page-number frames left out; every slide's text a SLIDE region."""
    doc = extract(b.odp_deck(tmp_path))
    assert doc.text == (
        "# Reading the tide table\n\nHarbour pilots, April\n\n"
        "# Springs and neaps\n\nSpring tides follow a full or new moon.\n"
        "Neap tides have the smallest range.\n\n"
        "Notes: Ask who has piloted a spring ebb at the bar.\n\n"
        "# Slide 3\n\nTide | Height\n\nHigh water | 4.8 m\n\nLow water | 0.6 m")
    assert (doc.title, doc.extractor, doc.headings) == ("Reading the tide table", "odp", "atx")
    assert doc.media_type == "application/vnd.oasis.opendocument.presentation"
    assert [(r.kind, r.page) for r in doc.regions] == [(RegionKind.SLIDE, n) for n in (1, 2, 3)]
    for r in doc.regions:
        assert doc.text[r.start:r.end].startswith(("# Reading", "# Springs", "# Slide 3"))
    chunks = chunk_document(doc)
    notes = next(c for c in chunks if "spring ebb" in c.content)
    assert notes.section == "Reading the tide table > Springs and neaps"
    assert locate(doc, notes.start, notes.end).fragment == "#slide=2"
    table = next(c for c in chunks if "High water" in c.content)
    assert table.section == "Reading the tide table > Slide 3"
    assert locate(doc, table.start, table.end).url("tides.odp") == "tides.odp#slide=3"
    assert "Tide office" not in doc.text and "2026-04-01" not in doc.text


def _rezip(src: Path, dst: Path, replace: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, replace.get(info.filename, zin.read(info.filename)))
    return dst


# META-INF/manifest.xml's entry for content.xml in a file LibreOffice saved with a password
ENCRYPTED_ENTRY = (
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml" '
    'manifest:size="3214"><manifest:encryption-data manifest:checksum-type='
    '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="x6bw">'
    '<manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" '
    'manifest:initialisation-vector="3wq1"/><manifest:start-key-generation '
    'manifest:start-key-generation-name="http://www.w3.org/2000/09/xmldsig#sha256" '
    'manifest:key-size="32"/><manifest:key-derivation manifest:key-derivation-name="PBKDF2" '
    'manifest:key-size="32" manifest:iteration-count="100000" manifest:salt="f1Qa"/>'
    '</manifest:encryption-data></manifest:file-entry>')


def test_an_odt_that_cannot_be_read_says_why(tmp_path: Path):
    good = b.odt_manual(tmp_path)

    def reason(name: str, data: bytes | None = None, *, source: Path | None = None,
               replace: dict[str, bytes] | None = None) -> str:
        path = tmp_path / name
        if source is not None:
            _rezip(source, path, replace or {})
        else:
            path.write_bytes(data or b"")
        with pytest.raises(ExtractionError) as info:
            extract(path)
        return info.value.reason

    assert reason("empty.odt") == "empty file (0 bytes), not an OpenDocument text document"
    assert reason("notes.odt", b"Just some notes saved with the wrong name.\n") == (
        "not a .odt file (not a ZIP package); a legacy .doc must be saved as .odt")
    assert reason("cut.odt", good.read_bytes()[:400]).startswith(
        "a damaged .odt file: its ZIP package ends early")
    # flat XML (a flat file named .odt is read: see the flat test below)
    flat = b.odt_manual(tmp_path, "flat.fodt").read_bytes()
    assert reason("cut.fodt", flat[:len(flat) // 2]).startswith(
        "not a readable flat OpenDocument .fodt file (")
    assert reason("notes.fodt", b"Just some notes saved with the wrong name.\n") == (
        "not a flat OpenDocument .fodt file (nor a packaged .odt): no office:document element "
        "opens it")
    assert reason("content.fodt", zipfile.ZipFile(good).read("content.xml")) == (
        "not a flat OpenDocument .fodt file: its root element is document-content, not "
        "office:document (a package's part saved alone)")
    assert reason("budget.fodt", b.spreadsheet(tmp_path / "budget.fods", {"S": [["x"]]})
                  .read_bytes()) == (
        "a flat OpenDocument spreadsheet, not a text document: name it .fods")
    assert reason("deck.fodt", b.odp_deck(tmp_path, "deck.fodp").read_bytes()) == (
        "a flat OpenDocument presentation, not a text document: name it .fodp")
    with pytest.raises(ExtractionError, match=r"^notes\.fodt: not a flat OpenDocument"):
        extract(tmp_path / "notes.fodt")  # the reason is said with the file's name

    plain_zip = tmp_path / "photos.zip"
    with zipfile.ZipFile(plain_zip, "w") as z:
        z.writestr("holiday.txt", "not a document")
    assert reason("photos.odt", plain_zip.read_bytes()) == (
        "a ZIP archive but not an OpenDocument .odt file (it has no mimetype entry)")
    assert reason("handbook.odt", b.docx_file(tmp_path).read_bytes()) == (
        "an Office Open XML file, not an OpenDocument one: name it .docx")
    assert reason("sheet.odt", source=good, replace={
        "mimetype": b"application/vnd.oasis.opendocument.spreadsheet"}) == (
        "an OpenDocument spreadsheet, not a text document: name it .ods")
    manifest = zipfile.ZipFile(good).read("META-INF/manifest.xml").decode()
    locked = re.sub(r'<manifest:file-entry [^>]*manifest:full-path="content.xml"[^>]*/>',
                    ENCRYPTED_ENTRY, manifest)
    assert locked != manifest
    assert reason("locked.odt", source=good, replace={
        "META-INF/manifest.xml": locked.encode(), "content.xml": bytes(range(256)) * 12}) == (
        "the .odt is encrypted with a password; save a copy without the password to index it")
    assert reason("garbled.odt", source=good, replace={"content.xml": b"<office:document-content"}
                  ).startswith("not a readable OpenDocument .odt file (")
    # a deck under the text suffix, and the other way round
    assert reason("deck.odt", b.odp_deck(tmp_path).read_bytes()) == (
        "an OpenDocument presentation, not a text document: name it .odp")
    assert reason("manual.odp", good.read_bytes()) == (
        "an OpenDocument text document, not a presentation: name it .odt")


def test_an_odt_that_unpacks_to_a_bomb_is_refused_unread(tmp_path: Path):
    path = b.odt_manual(tmp_path)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("Pictures/zeros.bin", b"\0" * (24 << 20))  # 24 MB, packed to ~24 KB
    assert path.stat().st_size < 200_000
    with pytest.raises(ExtractionError, match=r"part Pictures/zeros.bin unpacks \d+ to 1 .*zip bomb"):
        extract(path)


def _same_document(packaged: Document, other: Document) -> None:
    """``other`` (a flat file, a template) is ``packaged`` read again: its text, title,
    regions, warnings, extractor and version; and so its chunks and their citations."""
    assert other == dataclasses.replace(packaged, path=other.path)
    assert [(c.content, c.text, c.section, locate(other, c.start, c.end).fragment)
            for c in chunk_document(other)] == [
        (c.content, c.text, c.section, locate(packaged, c.start, c.end).fragment)
        for c in chunk_document(packaged)]


@pytest.mark.parametrize("build", [b.odt_manual, b.odp_deck], ids=["text", "presentation"])
def test_flat_xml_and_templates_read_as_the_packaged_file(tmp_path: Path, build):  # type: ignore[no-untyped-def]
    """LibreOffice's Flat XML (.fodt/.fodp: one office:document, written here by odfpy's
    own xml()) and templates (.ott/.otp: the package with a -template mimetype) give the
    document the packaged file with the same content gives; so does a flat file named as
    the packaged one (LibreOffice opens either by what it holds)."""
    packaged = build(tmp_path, "a" + {b.odt_manual: ".odt", b.odp_deck: ".odp"}[build])
    suffix = packaged.suffix
    kind = "text" if suffix == ".odt" else "presentation"
    flat = build(tmp_path, "a.f" + suffix[1:])
    assert not zipfile.is_zipfile(flat)
    head = flat.read_bytes()[:2000].decode()
    assert "<office:document " in head and \
        f'office:mimetype="application/vnd.oasis.opendocument.{kind}"' in head
    template = build(tmp_path, "a.ot" + suffix[-1])
    assert zipfile.ZipFile(template).read("mimetype").decode() == \
        f"application/vnd.oasis.opendocument.{kind}-template"
    misnamed = tmp_path / ("flat" + suffix)
    misnamed.write_bytes(flat.read_bytes())
    doc = extract(packaged)
    assert doc.text and (kind != "text" or doc.text == KEEPERS_TEXT)
    for other in (flat, template, misnamed):
        _same_document(doc, extract(other))


def test_a_flat_file_s_inline_pictures_are_no_text_and_no_limit(tmp_path: Path):
    """A flat file keeps its pictures inline (base64 in office:binary-data): a 12 MB one is
    a text node past libxml2's 10 MB limit, which would refuse the whole file."""
    import base64

    from odf.draw import Frame, Image
    from odf.office import BinaryData
    from odf.opendocument import OpenDocumentText
    from odf.text import P

    picture = bytes(range(256)) * (36 << 10)  # 9 MB, 12 MB in base64

    def manual(name: str) -> Path:
        doc = OpenDocumentText()
        p = P(text="The lantern room is above the watch room.")
        frame = Frame(width="4cm", height="3cm", anchortype="paragraph")
        if name.endswith(".fodt"):  # inline, as LibreOffice's Flat XML keeps a picture
            image = Image()
            image.addElement(BinaryData(text=base64.b64encode(picture).decode()))
        else:
            image = Image(href=doc.addPicture("Pictures/lens.png", "image/png", picture))
        frame.addElement(image)
        p.addElement(frame)
        doc.text.addElement(p)
        path = tmp_path / name
        b.save_odf(doc, path)
        return path

    flat = manual("pictured.fodt")
    assert flat.stat().st_size > 12 << 20 and b"<office:binary-data>" in flat.read_bytes()
    doc, packaged = extract(flat), extract(manual("pictured.odt"))
    assert doc.text == "The lantern room is above the watch room."
    # the picture (9 MB of no image) is said to be no picture, named as each file can
    not_read = "not a readable image: the file is corrupt or in a format Pillow does not read"
    assert packaged.warnings == (f"picture 1 (lens.png): {not_read}; not read",)
    assert doc.warnings == (f"picture 1 (an inline picture): {not_read}; not read",)
    _same_document(dataclasses.replace(packaged, warnings=()),
                   dataclasses.replace(doc, warnings=()))


def test_both_suffixes_are_registered_with_a_name_and_version():
    extractor_for(Path("x.odt"))  # loads the built-in extractors
    assert (REGISTRY[".odt"].name, REGISTRY[".odp"].name) == ("odt", "odp")
    assert REGISTRY[".odt"].version and REGISTRY[".odp"].version
    # flat XML and templates: the same extractors, so the same versions
    assert [REGISTRY[s].name for s in (".fodt", ".ott", ".fodp", ".otp")] == [
        "odt", "odt", "odp", "odp"]


def test_an_odt_and_an_odp_are_found_through_the_index(tmp_path: Path, embedder):
    """The real pipeline: real SQLite, the real model; the hit's section is the .odt's
    heading path, its content the stored text's slice; the deck's hit cites its slide."""
    folder = tmp_path / "docs"
    folder.mkdir()
    b.odt_manual(folder)
    b.odp_deck(folder)
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        report = idx.index(folder)
        assert sorted(report.indexed) == ["keepers.odt", "tides.odp"] and not report.failed
        hits = idx.search("which taper lights the mantle", k=5).hits
        hit = next(h for h in hits if h.document == "keepers.odt")
        assert hit.rank == 1 and "Use the long taper." in hit.content
        assert hit.section == "Keepers' manual > The lamp > Lighting up"
        assert idx.store.document_text("keepers.odt")[hit.start:hit.end] == hit.content
        assert hit.to_json()["locator"] == f"#char={hit.start},{hit.end}"
        hits = idx.search("height of high water", k=5).hits
        hit = next(h for h in hits if h.document == "tides.odp")
        assert "High water | 4.8 m" in hit.content
        assert hit.to_json()["locator"].startswith("#slide=3")
    finally:
        idx.close()
