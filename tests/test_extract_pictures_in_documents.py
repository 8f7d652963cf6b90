"""Pictures in a Word document or a PowerPoint deck (screenshots, a scanned page pasted
in) read by OCR as the image reader reads a picture file, in the place the document
shows them; real pictures (tests/fixtures/real, SOURCES.md), documents python-docx and
python-pptx write and the same documents as LibreOffice saves them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import docx
import pytest
from docx.shared import Inches
from pptx import Presentation

from citeline.errors import ExtractionError
from citeline.extract import extractor_for
from citeline.extract import image as imagemod
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def handset_document(path: Path) -> Path:
    """A heading, paragraphs and three pictures: a screenshot of a page, a photograph of
    a board (no text to read) and, in a table cell, a diagram of labelled boxes."""
    d = docx.Document()
    d.add_heading("Handset guide", 1)
    d.add_paragraph("The handset's screen, as it shows the schedule:")
    d.add_picture(str(REAL / "irrigation-handset.png"), width=Inches(6))
    d.add_paragraph("A photograph of the board:")
    d.add_picture(str(REAL / "board-photo.jpeg"), width=Inches(3))
    table = d.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Crates"
    table.cell(0, 1).paragraphs[0].add_run().add_picture(str(REAL / "crates-diagram.png"),
                                                         width=Inches(3))
    d.add_paragraph("The end.")
    d.save(str(path))
    return path


@pytest.fixture(scope="module")
def read_alone() -> dict[str, str]:
    """Each picture's text as the image reader reads the picture file."""
    return {name: extract(REAL / name).text
            for name in ("irrigation-handset.png", "crates-diagram.png")}


@pytest.fixture(scope="module")
def handset(tmp_path_factory) -> Document:  # type: ignore[no-untyped-def]
    return extract(handset_document(tmp_path_factory.mktemp("docx") / "handset.docx"))


def test_a_document_s_pictures_are_read_where_it_shows_them(handset, read_alone):
    doc = handset
    assert doc.extractor_version == "17" and doc.warnings == ()
    screen, diagram = read_alone["irrigation-handset.png"], read_alone["crates-diagram.png"]
    text = doc.text
    # in order: the paragraph before it, the screenshot's text, the next paragraph; the
    # photograph adds nothing; the diagram after its row's text
    at = [text.index(s) for s in ("shows the schedule:", screen, "A photograph of the board:",
                                  "Crates | ", diagram, "The end.")]
    assert at == sorted(at)
    assert text[at[2]:at[3]].strip() == "A photograph of the board:"  # the photo: no text
    assert screen.startswith("Greenhouse irrigation manual") and "HAL Crate" in diagram


def test_another_word_processor_s_copy_reads_the_same(handset):
    writer = extract(REAL / "handset-pictures.docx")
    assert writer.text == handset.text and writer.warnings == ()


def test_a_picture_shown_twice_is_read_once_and_given_twice(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch):
    d = docx.Document()
    d.add_paragraph("First:")
    d.add_picture(str(REAL / "crates-diagram.png"))
    d.add_paragraph("Again:")
    d.add_picture(str(REAL / "crates-diagram.png"))
    d.save(str(tmp_path / "twice.docx"))
    calls: list[str] = []
    real = imagemod.picture_text
    monkeypatch.setattr(imagemod, "picture_text",
                        lambda data, where, warnings: calls.append(where) or real(data, where, warnings))
    text = extract(tmp_path / "twice.docx").text
    assert len(calls) == 1 and text.count("HAL Crate") == 2


def test_without_ocr_the_pictures_are_left_saying_what_to_install(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "tesseract is not installed: apt-get "
                                                   "install tesseract-ocr")
    doc = extract(handset_document(tmp_path / "handset.docx"))
    assert doc.warnings == ("3 pictures not read for their text: tesseract is not "
                            "installed: apt-get install tesseract-ocr",)
    assert "Greenhouse" not in doc.text and "The end." in doc.text


def handset_deck(path: Path) -> Path:
    """Three slides: the screenshot under a title, the photograph alone, the diagram
    beside a line of text."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])  # title only
    slide.shapes.title.text = "The handset's screen"
    slide.shapes.add_picture(str(REAL / "irrigation-handset.png"), Inches(0.5), Inches(1.5),
                             width=Inches(6))
    slide = prs.slides.add_slide(prs.slide_layouts[6])  # blank
    slide.shapes.add_picture(str(REAL / "board-photo.jpeg"), Inches(1), Inches(1),
                             width=Inches(4))
    slide = prs.slides.add_slide(prs.slide_layouts[1])  # title and content
    slide.shapes.title.text = "Crates"
    slide.placeholders[1].text = "The layers of an embedded Rust program:"
    slide.shapes.add_picture(str(REAL / "crates-diagram.png"), Inches(1), Inches(3),
                             width=Inches(5))
    prs.save(str(path))
    return path


def test_a_deck_s_pictures_are_read_on_their_slides(tmp_path: Path, read_alone):
    deck = extract(handset_deck(tmp_path / "handset.pptx"))
    assert deck.extractor_version == "6"
    screen, diagram = read_alone["irrigation-handset.png"], read_alone["crates-diagram.png"]
    first, third = deck.regions  # slide 2, the photograph alone, has no text
    assert (first.page, third.page) == (1, 3)
    assert deck.text[first.start:first.end] == "# The handset's screen\n\n" + screen
    assert deck.text[third.start:third.end] == (
        "# Crates\n\nThe layers of an embedded Rust program:\n\n" + diagram)
    assert deck.warnings == ("slide 2: no text (a picture or a drawing), not indexed",)
    writer = extract(REAL / "handset-pictures.pptx")  # as LibreOffice saves it
    assert (writer.text, writer.warnings) == (deck.text, deck.warnings)


# --- OpenDocument (LibreOffice's own formats) ----------------------------------------

DIAGRAM_PART = "Pictures/10000001000002420000012D53B6F697A26490D6.png"  # crates-diagram.png
DIAGRAM_IMAGE = (f'<draw:image xlink:href="{DIAGRAM_PART}" xlink:type="simple" '
                 'xlink:show="embed" xlink:actuate="onLoad" draw:mime-type="image/png"/>')


def test_an_opendocument_text_s_pictures_read_as_the_word_document_s(handset):
    # LibreOffice's .odt and flat .fodt of handset-pictures.docx: each picture read where
    # the document shows it, the table cell's after its row, as the Word reader puts them
    for name in ("handset-pictures.odt", "handset-pictures.fodt"):
        doc = extract(REAL / name)
        assert (doc.extractor, doc.extractor_version) == ("odt", "6")
        assert (doc.text, doc.warnings) == (handset.text, ()), name


def test_an_opendocument_presentation_s_pictures_read_as_the_deck_s():
    deck, odp = extract(REAL / "handset-pictures.pptx"), extract(REAL / "handset-pictures.odp")
    assert (odp.extractor, odp.extractor_version) == ("odp", "6")
    assert (odp.text, odp.warnings) == (deck.text, deck.warnings)
    assert [(r.page, r.start, r.end) for r in odp.regions] == \
        [(r.page, r.start, r.end) for r in deck.regions]


def edited_odt(tmp_path: Path, edit, extra: dict[str, bytes] | None = None) -> Path:  # type: ignore[no-untyped-def]
    """handset-pictures.odt with its content.xml changed by ``edit`` (a str -> str), and
    ``extra`` parts added to the package."""
    out = tmp_path / "edited.odt"
    with zipfile.ZipFile(REAL / "handset-pictures.odt") as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "content.xml":
                changed = edit(data.decode())
                assert changed != data.decode()
                data = changed.encode()
            dst.writestr(info, data)
        for name, data in (extra or {}).items():
            dst.writestr(name, data)
    return out


SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="80">'
       b'<text x="10" y="40">HAL Crate</text></svg>')


def test_a_picture_stored_in_two_formats_is_read_from_the_one_ocr_opens(tmp_path, handset):
    # LibreOffice keeps an SVG with a PNG of it, the preferred format first
    svg_first = edited_odt(tmp_path, lambda x: x.replace(
        DIAGRAM_IMAGE, DIAGRAM_IMAGE.replace(DIAGRAM_PART, "Pictures/diagram.svg")
        .replace("image/png", "image/svg+xml") + DIAGRAM_IMAGE), {"Pictures/diagram.svg": SVG})
    doc = extract(svg_first)
    assert (doc.text, doc.warnings) == (handset.text, ())


def test_pictures_that_are_not_the_document_s_own_are_left(tmp_path, read_alone):
    diagram = read_alone["crates-diagram.png"]
    cases = {
        # an SVG alone: its words are text, read without OCR (below)
        "svg": (lambda x: x.replace(DIAGRAM_IMAGE, DIAGRAM_IMAGE.replace(
            DIAGRAM_PART, "Pictures/diagram.svg").replace("image/png", "image/svg+xml")), ()),
        # a chart's stand-in picture: the object is not a picture of the document
        "object": (lambda x: x.replace(DIAGRAM_IMAGE, '<draw:object xlink:href="./Object 1" '
                                       'xlink:type="simple"/>' + DIAGRAM_IMAGE), ()),
        # linked from beside the document, not in it
        "linked": (lambda x: x.replace(DIAGRAM_PART, "../crates-diagram.png"), ()),
        "missing": (lambda x: x.replace(DIAGRAM_PART, "Pictures/gone.png"),
                    ("picture Pictures/gone.png is missing from the package; not read",)),
    }
    for case, (edit, warnings) in cases.items():
        doc = extract(edited_odt(tmp_path, edit, {"Pictures/diagram.svg": SVG}))
        assert diagram not in doc.text and "Greenhouse irrigation manual" in doc.text, case
        assert doc.warnings == warnings, case
        assert ("HAL Crate" in doc.text) == (case == "svg"), case  # the SVG's <text>


def test_without_ocr_an_opendocument_s_pictures_are_counted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "tesseract is not installed")
    for name in ("handset-pictures.odt", "handset-pictures.fodt", "handset-pictures.odp",
                 "handset-pictures.doc", "floating-pictures.doc"):
        doc = extract(REAL / name)
        count = 2 if name.startswith("floating") else 3
        assert f"{count} pictures not read for their text: tesseract is not installed" \
            in doc.warnings, name
        assert "Greenhouse" not in doc.text, name


def test_a_picture_in_no_format_read_is_told_in_a_fresh_process():
    # before anything opened an image file (which registers pillow-heif's opener), asking
    # Pillow for the HEIF format it had no opener for failed with a KeyError
    code = ("import sys; from citeline.extract.image import picture_text; "
            "print(picture_text(sys.stdin.buffer.read(), 'picture 1', []))")
    run = subprocess.run([sys.executable, "-c", code], input=SVG, capture_output=True,
                         timeout=120, check=False)
    assert run.returncode == 0, run.stderr.decode()
    assert run.stdout.decode().strip() == "None"  # not read: the caller counts it


def test_a_picture_not_read_is_named_by_what_its_bytes_are():
    # the format comes from the content, whatever the package named the part
    wmf = bytes.fromhex("d7cdc69a") + bytes(60)  # a placeable metafile's key
    emf = b"\x01\x00\x00\x00" + bytes(36) + b" EMF" + bytes(40)
    warnings: list[str] = []
    pictures = imagemod.PictureReader(warnings)
    # an SVG is read for its words (none here), whatever its part's name
    for data, name in ((b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>',
                        "word/media/image1.png"), (wmf, "image2.wmf"), (emf, "image3.bin"),
                       (bytes(range(256)), "image4.png"), (b"\x89PNG\r\n\x1a\n" + bytes(40),
                                                           "image5.png")):
        assert pictures.text(data, name) == ""
    pictures.close()
    assert warnings == [
        "picture 4 (image4.png): not a readable image: the file is corrupt or in a format "
        "Pillow does not read; not read",
        "picture 5 (image5.png): a damaged PNG image, cut short or corrupt; not read",
        "2 pictures in a format citeline does not read for text (EMF 1, WMF 1): not read"]


# --- EPUB e-books ---------------------------------------------------------------------


def test_an_e_book_s_pictures_read_as_the_word_document_s(handset):
    # LibreOffice's EPUB of handset-pictures.odt: the chapter's <img>s read in place, the
    # cell's after its row; its "Unknown Title" placeholder names nothing
    book = extract(REAL / "handset-pictures.epub")
    assert (book.extractor_version, book.title, book.warnings) == ("13", "Handset guide", ())
    assert book.text.endswith(handset.text[handset.text.index("The handset's screen"):])


def page_book(path: Path, figure: bool = True) -> Path:
    """A fixed-layout book's way: a page that is a scan in an SVG <image>; then (with
    ``figure``) a picture written into its page as a data: URI and a picture the package
    lacks."""
    import base64

    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("urn:uuid:handset-pages")
    book.set_title("Handset pages")
    book.set_language("en")
    book.add_item(epub.EpubImage(uid="p1", file_name="images/page1.png", media_type="image/png",
                                 content=(REAL / "irrigation-handset.png").read_bytes()))
    scan = epub.EpubHtml(title="Page 1", file_name="page1.xhtml", lang="en", content=(
        '<div><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
        ' viewBox="0 0 900 700"><image width="900" height="700" xlink:href="images/page1.png"/>'
        "</svg></div>"))
    inline = base64.b64encode((REAL / "crates-diagram.png").read_bytes()).decode()
    crates = epub.EpubHtml(title="Crates", file_name="crates.xhtml", lang="en", content=(
        f'<h1>Crates</h1><p><img src="data:image/png;base64,{inline}" alt="The layers"/></p>'
        '<p><img src="images/gone.png" alt=""/>The end.</p>'))
    chapters = [scan, crates] if figure else [scan]
    for chapter in chapters:
        book.add_item(chapter)
    book.toc = [epub.Link(c.file_name, c.title, c.file_name) for c in chapters]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = chapters
    epub.write_epub(str(path), book, {"raise_exceptions": True})
    return path


def test_a_scanned_page_and_an_inline_picture_in_an_e_book_are_read(tmp_path, read_alone):
    book = extract(page_book(tmp_path / "pages.epub"))
    screen, diagram = read_alone["irrigation-handset.png"], read_alone["crates-diagram.png"]
    assert book.text == (f"# Page 1\n\n{screen}\n\n# Crates\n\nThe layers\n\n{diagram}\n\n"
                         "The end.")
    assert book.warnings == ("1 picture the chapters show is missing from the package "
                             "(EPUB/images/gone.png first): not read",)


def test_without_ocr_an_e_book_s_pictures_are_counted(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "tesseract is not installed")
    book = extract(REAL / "handset-pictures.epub")
    assert book.warnings == ("3 pictures not read for their text: tesseract is not installed",)
    with pytest.raises(ExtractionError, match=r"no text in its 1 chapter pages; 1 picture not "
                                              r"read for their text: tesseract is not installed"):
        extract(page_book(tmp_path / "scan.epub", figure=False))


# --- PDF pages with a text layer ----------------------------------------------------


def test_a_pdf_page_s_pictures_are_read_after_its_text(read_alone):
    # LibreOffice's PDF of the handset document: the screenshot on page 1, the diagram on
    # page 2 (the photograph adds nothing), each cited at its page
    from citeline.chunk import locate

    doc = extract(REAL / "handset-pictures.pdf")
    assert (doc.extractor_version, doc.warnings) == ("16", ())
    screen, diagram = read_alone["irrigation-handset.png"], read_alone["crates-diagram.png"]
    first, second = doc.regions
    assert doc.text[first.start:first.end] == (
        "Handset guide\nThe handset's screen, as it shows the schedule:\n\n"
        f"A photograph of the board:\n\n{screen}")
    assert doc.text[second.start:second.end] == f"Crates\nThe end.\n\n{diagram}"
    at = doc.text.index("HAL Crate")
    assert locate(doc, at, at + 9).fragment.startswith("#page=2")


def test_a_picture_whose_text_the_layer_holds_is_not_read_again():
    # a searchable scan (Tesseract's PDF): the page's picture under its invisible text
    doc = extract(REAL / "irrigation-handset-searchable.pdf")
    assert doc.text.count("Greenhouse irrigation manual") == 1 and doc.warnings == ()


def test_a_picture_on_every_page_is_furniture():
    doc = extract(REAL / "crates-deck.pdf")
    assert doc.text == "Crates\n\nWhich crate to use\n\nWhere the HAL sits"


def test_without_ocr_a_pdf_s_pictures_are_counted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "tesseract is not installed")
    doc = extract(REAL / "handset-pictures.pdf")
    assert doc.warnings == ("3 pictures not read for their text: tesseract is not installed",)
    assert "Greenhouse" not in doc.text


# --- Word 97-2003 ---------------------------------------------------------------------


def test_a_word_97_document_s_pictures_read_as_the_word_document_s(handset):
    # LibreOffice's .doc of handset-pictures.docx: each inline picture's file found in the
    # Data stream (by its anchor's sprmCPicLocation) and read where the .docx reads it
    doc = extract(REAL / "handset-pictures.doc")
    assert (doc.extractor, doc.extractor_version) == ("doc", "3")
    assert (doc.text, doc.warnings) == (handset.text, ())


def floating_document(path: Path) -> Path:
    """Two floating pictures, as a screenshot dragged into Word with square wrapping is:
    python-docx's inline pictures turned into anchored ones (``wp:anchor``, placed
    relative to the column and the paragraph, text wrapping on both sides)."""
    import copy

    from docx.oxml.ns import qn
    from lxml import etree

    d = docx.Document()
    d.add_heading("Handset guide", 1)
    d.add_paragraph("The handset's screen floats beside this paragraph, as a screenshot "
                    "dragged into Word does with square wrapping. ").add_run().add_picture(
        str(REAL / "irrigation-handset.png"), width=Inches(4))
    d.add_paragraph("A photograph of the board, floating too:").add_run().add_picture(
        str(REAL / "board-photo.jpeg"), width=Inches(2))
    d.add_paragraph("The end.")
    for n, inline in enumerate(list(d.element.body.iter(qn("wp:inline")))):
        anchor = etree.SubElement(inline.getparent(), qn("wp:anchor"), {
            "distT": "0", "distB": "0", "distL": "114300", "distR": "114300",
            "simplePos": "0", "relativeHeight": str(251658240 + n), "behindDoc": "0",
            "locked": "0", "layoutInCell": "1", "allowOverlap": "1"})
        etree.SubElement(anchor, qn("wp:simplePos"), {"x": "0", "y": "0"})
        for axis, base in (("H", "column"), ("V", "paragraph")):
            position = etree.SubElement(anchor, qn(f"wp:position{axis}"), {"relativeFrom": base})
            etree.SubElement(position, qn("wp:posOffset")).text = "0"
        anchor.append(copy.deepcopy(inline.find(qn("wp:extent"))))
        etree.SubElement(anchor, qn("wp:effectExtent"), {"l": "0", "t": "0", "r": "0", "b": "0"})
        etree.SubElement(anchor, qn("wp:wrapSquare"), {"wrapText": "bothSides"})
        for part in ("wp:docPr", "wp:cNvGraphicFramePr", "a:graphic"):
            anchor.append(copy.deepcopy(inline.find(qn(part))))
        inline.getparent().remove(inline)
    d.save(str(path))
    return path


def test_a_word_97_document_s_floating_pictures_read_as_the_word_document_s(
        tmp_path: Path, read_alone):
    # LibreOffice's .doc of floating_document's: each picture a shape of the document's
    # OfficeArt drawing anchored by character 8 (PlcSpaMom names its spid, the shape's pib
    # its BLIP store entry, whose picture is in the WordDocument stream), read where the
    # .docx reads it: after its paragraph
    doc = extract(REAL / "floating-pictures.doc")
    assert doc.text == extract(floating_document(tmp_path / "floating.docx")).text
    screen = read_alone["irrigation-handset.png"]
    assert doc.text.startswith("# Handset guide\n\nThe handset's screen floats beside "
                               "this paragraph, as a screenshot dragged into Word does with "
                               f"square wrapping.\n\n{screen}\n\n")
    assert doc.text.endswith("A photograph of the board, floating too:\n\nThe end.")
    assert doc.warnings == ()


def test_a_word_97_picture_s_file_is_found_and_a_metafile_is_named():
    from citeline.extract.doc import picture_file

    def picf(blip_type: int, instance: int, body: bytes) -> bytes:
        blip = (instance << 4).to_bytes(2, "little") + blip_type.to_bytes(2, "little") + \
            len(body).to_bytes(4, "little") + body
        entry = b"\x02\x00" + (0xF007).to_bytes(2, "little") + (36 + len(blip)).to_bytes(
            4, "little") + bytes(36) + blip  # a BLIP store entry, no name
        header = bytearray(68)
        header[0:4] = (68 + len(entry)).to_bytes(4, "little")
        header[4:6] = (68).to_bytes(2, "little")
        return bytes(header) + entry

    png = (REAL / "crates-diagram.png").read_bytes()
    assert picture_file(picf(0xF01E, 0x6E0, bytes(16) + b"\xff" + png), 0) == (png, "PNG")
    assert picture_file(picf(0xF01E, 0x6E1, bytes(32) + b"\xff" + png), 0) == (png, "PNG")
    assert picture_file(picf(0xF01B, 0x216, bytes(16) + bytes(34)), 0) == (None, "WMF")


# --- PowerPoint 97-2003 ---------------------------------------------------------------


def test_a_powerpoint_97_deck_s_pictures_read_as_the_deck_s():
    # LibreOffice's .ppt of handset-pictures.pptx: each picture shape's BLIP found through
    # the document's BLIP store in the Pictures stream, read in its place on its slide
    # (Impress's .ppt export writes the third slide's title as a plain text box, as the
    # .ppt reader's tests note of a Section Header slide: that slide is untitled there)
    deck, ppt = extract(REAL / "handset-pictures.pptx"), extract(REAL / "handset-pictures.ppt")
    assert (ppt.extractor, ppt.extractor_version) == ("ppt", "2")
    assert ppt.text == deck.text.replace("# Crates\n\n", "# Slide 3\n\nCrates\n\n")
    assert ppt.warnings == deck.warnings == (
        "slide 2: no text (a picture or a drawing), not indexed",)



def test_a_powerpoint_97_deck_whose_picture_store_is_damaged_is_read_without_them(
        tmp_path: Path):
    # the first BLIP store entry's length overwritten to run past the store (olefile
    # rewrites a stream in place, its size kept): the pictures are lost, said one by one,
    # and the slides' text is read as before
    import shutil
    import struct

    import olefile

    from citeline.extract import officeart

    damaged = tmp_path / "damaged.ppt"
    shutil.copyfile(REAL / "handset-pictures.ppt", damaged)
    with olefile.OleFileIO(str(damaged), write_mode=True) as ole:
        stream = bytearray(ole.openstream("PowerPoint Document").read())
        at = stream.find(struct.pack("<H", officeart.FBSE)) - 2
        assert officeart.header(bytes(stream), at)[2:] == (officeart.FBSE, 36)
        struct.pack_into("<I", stream, at + 4, 0x7FFFFFF0)
        ole.write_stream("PowerPoint Document", bytes(stream))
    whole, doc = extract(REAL / "handset-pictures.ppt"), extract(damaged)
    screen = extract(REAL / "irrigation-handset.png").text
    assert screen in whole.text and screen not in doc.text
    assert doc.text.startswith("# The handset's screen\n\n# Slide 3\n\nCrates")
    assert doc.warnings[:3] == tuple(
        f"picture {n}: the deck's BLIP store runs past its record (a damaged file); not read"
        for n in (1, 2, 3))


def test_an_officeart_store_entry_s_picture_is_found_in_it_or_in_the_delay_stream():
    from citeline.extract import officeart

    png = (REAL / "crates-diagram.png").read_bytes()
    blip = (0x6E0 << 4).to_bytes(2, "little") + (0xF01E).to_bytes(2, "little") + \
        (17 + len(png)).to_bytes(4, "little") + bytes(16) + b"\xff" + png

    def entry(body: bytes, delay_at: int = 0) -> bytes:
        fields = bytearray(36)
        fields[28:32] = delay_at.to_bytes(4, "little")
        return b"\x02\x00" + (0xF007).to_bytes(2, "little") + \
            (36 + len(body)).to_bytes(4, "little") + bytes(fields) + body

    assert officeart.entry_blip(entry(blip), 0, b"") == (png, "PNG")  # held in the entry
    assert officeart.entry_blip(entry(b"", 5), 0, b"12345" + blip) == (png, "PNG")  # delayed
    assert officeart.entry_blip(entry(b"", 5), 0, b"") is None  # past the delay stream


# --- RTF --------------------------------------------------------------------------------


def test_an_rtf_document_s_pictures_are_read_after_their_paragraph_or_row(tmp_path: Path,
                                                                         read_alone):
    # Word's way (as LibreOffice writes it too): each picture in {\*\shppict{\pict ...}} in
    # hex, then a metafile copy for old readers in {\nonshppict ...}; a bare \pict in a
    # table cell; a picture in raw bytes after \binN
    def hex_lines(data: bytes) -> str:
        h = data.hex()
        return "\n".join(h[i:i + 128] for i in range(0, len(h), 128))

    diagram = (REAL / "crates-diagram.png").read_bytes()
    photo = (REAL / "board-photo.jpeg").read_bytes()
    rtf = (r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Arial;}}" "\n"
           r"\pard The layers, as a diagram:\par" "\n"
           r"\pard {\*\shppict{\pict{\*\picprop{\sp{\sn wzName}{\sv }}}\picw578\pich301"
           r"\pngblip" "\n" + hex_lines(diagram) + "}}"
           r"{\nonshppict{\pict\wmetafile8\picw578\pich301 0100090000035a00}}\par" "\n"
           r"\trowd\cellx3000\cellx6000\pard\intbl Crates\cell {\pict\jpegblip "
           + hex_lines(photo) + r"}\cell\row" "\n"
           r"\pard Raw: {\pict\pngblip\bin" + str(len(diagram)) + " ").encode("latin-1") + \
        diagram + rb"}\par" b"\n" rb"\pard The end.\par}"
    path = tmp_path / "layers.rtf"
    path.write_bytes(rtf)
    doc = extract(path)
    text = read_alone["crates-diagram.png"]
    assert (doc.extractor_version, doc.warnings) == ("3", ())
    assert doc.text == (f"The layers, as a diagram:\n\n{text}\n\nCrates |\n\nRaw:\n\n{text}\n\n"
                        "The end.")
