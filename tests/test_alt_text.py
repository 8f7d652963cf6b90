"""A picture's alt text, what a reader who cannot see it gets, read in every office format:
the author's words, in their place, before what OCR reads in the picture; none for alt
text that says nothing (a file name, Microsoft 365's own descriptions) or a drawing
marked decorative."""

from __future__ import annotations

import re
from pathlib import Path

import docx
import pytest
from docx.shared import Inches
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches as PptxInches

from citeline.extract import extractor_for
from citeline.extract import image as imagemod
from citeline.extract.blocks import described
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"
PHOTO = REAL / "board-photo-small.jpeg"  # a photograph: no text to read
DIAGRAM = REAL / "crates-diagram.png"  # a diagram of labelled boxes: OCR reads them
BOARD = ("Controller board of pump P-104: relay K2 sits at the top left, beside the green "
         "terminal block.")
STACK = "How the crates of an embedded Rust program stack, from the board up."
WIRING = "Wiring of the float switch to terminal 3"  # a title, no description
AUTOMATIC = "A diagram of a computer. Description automatically generated"
TABLE_PHOTO = "The spare impeller kept on the shelf above the pumps."
# Office's mark of a decorative drawing, as Microsoft 365 writes it
DECORATIVE = ('<a:extLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
              '<a:ext uri="{C183D7F6-B498-43B3-948B-1728B52AA6E4}">'
              '<adec:decorative xmlns:adec="http://schemas.microsoft.com/office/drawing/2017/'
              'decorative" val="1"/></a:ext></a:extLst>')


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def _alt(shape, descr: str = "", title: str = "", decorative: bool = False) -> None:  # type: ignore[no-untyped-def]
    """Give an inline picture (python-docx's InlineShape) the alt text Word's pane writes."""
    props = shape._inline.docPr
    for name, value in (("descr", descr), ("title", title)):
        if value:
            props.set(name, value)
    if decorative:
        from lxml import etree

        props.append(etree.fromstring(DECORATIVE))


def alt_document(path: Path) -> Path:
    """A guide with five pictures: a photograph described by its author, a screenshot
    described too (OCR reads its text), a diagram with a title only, one Microsoft 365
    described itself, one marked decorative; and in a table cell a described photograph."""
    d = docx.Document()
    d.add_heading("Pump room guide", 1)
    d.add_paragraph("The controller board of pump P-104:")
    _alt(d.add_picture(str(PHOTO), width=Inches(3)), descr=BOARD)
    d.add_paragraph("The software:")
    _alt(d.add_picture(str(DIAGRAM), width=Inches(6)), descr=STACK,
         title="Crates")
    d.add_paragraph("The float switch:")
    _alt(d.add_picture(str(DIAGRAM), width=Inches(3)), title=WIRING)
    d.add_paragraph("The crates again:")
    _alt(d.add_picture(str(DIAGRAM), width=Inches(3)), descr=AUTOMATIC)
    d.add_paragraph("A border:")
    _alt(d.add_picture(str(PHOTO), width=Inches(1)),
         descr="Decorative line", decorative=True)
    table = d.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Spare parts"
    _alt(table.cell(0, 1).paragraphs[0].add_run().add_picture(
        str(PHOTO), width=Inches(2)), descr=TABLE_PHOTO)
    d.add_paragraph("The end.")
    d.save(str(path))
    return path


def alt_deck(path: Path) -> Path:
    """Two slides: a photograph its author described, and a chart described in its alt
    text; a screenshot whose alt text is its file name, as PowerPoint writes it."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Pump room"
    photo = slide.shapes.add_picture(str(PHOTO), PptxInches(1),
                                     PptxInches(2), width=PptxInches(3))
    photo._element.nvPicPr.cNvPr.set("descr", BOARD)
    screen = slide.shapes.add_picture(str(DIAGRAM), PptxInches(5),
                                      PptxInches(2), width=PptxInches(4))
    assert screen._element.nvPicPr.cNvPr.get("descr") == "crates-diagram.png"
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Flow"
    data = CategoryChartData()
    data.categories = ["Jan", "Feb", "Mar"]
    data.add_series("Pump A", (410, 395, 430))
    frame = slide.shapes.add_chart(XL_CHART_TYPE.LINE, PptxInches(1), PptxInches(2),
                                   PptxInches(6), PptxInches(4), data)
    frame._element.nvGraphicFramePr.cNvPr.set("descr", FLOW)
    prs.save(str(path))
    return path


FLOW = "Pump A's flow held near 400 m³/h from January to March."


@pytest.fixture(scope="module")
def diagram_text() -> list[str]:
    return paragraphs(extract(REAL / "crates-diagram.png").text)


def test_alt_text_that_says_nothing_is_none():
    assert described("  Relay K2,\nat the top left ") == "Relay K2, at the top left"
    for said_nothing in ("", "image1.png", "python-logo.gif", "Picture 3", "Figure",
                         AUTOMATIC,
                         "A picture containing text. Description automatically generated "
                         "with medium confidence",
                         "Ein Bild, das Text enthält. Automatisch generierte Beschreibung"):
        assert described(said_nothing) == "", said_nothing


def test_a_word_document_s_alt_text_is_read_before_its_picture_s_text(tmp_path: Path,
                                                                       diagram_text):
    doc = extract(alt_document(tmp_path / "guide.docx"))
    assert paragraphs(doc.text) == [
        "# Pump room guide", "The controller board of pump P-104:", BOARD,
        "The software:", STACK, *diagram_text,
        "The float switch:", WIRING, *diagram_text,
        "The crates again:", *diagram_text,  # Microsoft 365's own description: none
        "A border:",  # decorative: nothing
        "Spare parts |", TABLE_PHOTO, "The end."]
    assert (doc.extractor, doc.extractor_version) == ("docx", "17")


def test_a_drawing_marked_decorative_gives_nothing_its_text_neither(tmp_path: Path):
    d = docx.Document()
    d.add_paragraph("Above the border.")
    _alt(d.add_picture(str(DIAGRAM), width=Inches(3)), descr="Border", decorative=True)
    d.save(str(tmp_path / "border.docx"))
    assert paragraphs(extract(tmp_path / "border.docx").text) == ["Above the border."]
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Border"
    shape = slide.shapes.add_picture(str(DIAGRAM), PptxInches(1), PptxInches(2))
    from lxml import etree

    props = shape._element.nvPicPr.cNvPr
    props.append(etree.fromstring(DECORATIVE))
    prs.save(str(tmp_path / "border.pptx"))
    assert paragraphs(extract(tmp_path / "border.pptx").text) == ["# Border"]


def test_alt_text_is_read_without_ocr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "OCR is not installed here")
    doc = extract(alt_document(tmp_path / "guide.docx"))
    assert BOARD in doc.text and STACK in doc.text and TABLE_PHOTO in doc.text
    assert any("not read for their text" in w for w in doc.warnings)


def test_a_deck_s_alt_text_is_read_in_its_place(tmp_path: Path, diagram_text):
    doc = extract(alt_deck(tmp_path / "deck.pptx"))
    text = paragraphs(doc.text)
    assert text[text.index(BOARD) + 1:text.index(BOARD) + 1 + len(diagram_text)] == diagram_text
    assert "crates-diagram.png" not in doc.text  # PowerPoint's file-name alt text
    assert FLOW in text


def test_libreoffice_s_copies_of_the_document_read_its_alt_text_as_it_kept_it(tmp_path: Path,
                                                                             diagram_text):
    source = paragraphs(extract(alt_document(tmp_path / "guide.docx")).text)
    # Writer keeps the descriptions and the title, and loses the decorative mark: its
    # picture's description is then read, as any reader of the copy gets it
    odt = extract(REAL / "alt-text.odt")
    border = source.index("A border:") + 1
    assert paragraphs(odt.text) == source[:border] + ["Decorative line"] + source[border:]
    assert (odt.extractor, odt.extractor_version) == ("odt", "6")
    # its .docx drops the title: the float switch's picture is its text alone
    saved = paragraphs(extract(REAL / "alt-text.docx").text)
    assert saved == [p for p in paragraphs(odt.text) if p != WIRING]


def test_impress_s_copy_of_the_deck_reads_its_alt_text(tmp_path: Path, diagram_text):
    odp = paragraphs(extract(REAL / "alt-text.odp").text)
    # a chart says what it is, then its alt text; Impress titled the one-series chart
    # by its series, as PowerPoint shows it untitled
    assert odp == ["# Pump room", BOARD, *diagram_text, "# Flow",
                   "Pump A. A line chart of Pump A.", FLOW]
    deck = paragraphs(extract(alt_deck(tmp_path / "deck.pptx")).text)
    assert deck == [*odp[:-2], "A line chart of Pump A.", FLOW]


def sheet_lines(doc: Document, kind: str, cell: str) -> list[str]:
    return [line.removeprefix(f"{kind} at {cell}: ") for line in doc.text.splitlines()
            if line.startswith(f"{kind} at {cell}: ")]


@pytest.mark.parametrize("name", ["alt-text-xlsxwriter.xlsx", "alt-text.ods"])
def test_a_sheet_s_alt_text_is_a_line_under_its_anchor_s_row(name: str, diagram_text):
    doc = extract(REAL / name)
    assert sheet_lines(doc, "Picture", "E3") == [BOARD]  # the photograph: its alt text alone
    # the diagram's alt text is its file name: its text alone
    assert sheet_lines(doc, "Picture", "B7") == [" ".join(p.split()) for p in diagram_text]
    assert sheet_lines(doc, "Picture", "E12") == []  # decorative
    # the chart says what it is, then what its author wrote of it
    assert sheet_lines(doc, "Chart", "G2")[1:] == [FLOW]
    lines = doc.text.splitlines()
    assert lines.index("Picture at E3: " + BOARD) == lines.index("P-102 | Łódź Północ | 395") + 1
    assert (doc.extractor, doc.extractor_version) == (("xlsx", "11") if name.endswith("x")
                                                      else ("ods", "7"))


def test_a_question_a_picture_s_alt_text_answers_cites_it(index_of):
    idx, report = index_of({"alt-text.docx": (REAL / "alt-text.docx").read_bytes(),
                            "alt-text.ods": (REAL / "alt-text.ods").read_bytes()})
    assert report.indexed == ["alt-text.docx", "alt-text.ods"]
    hits = idx.search("Where does relay K2 sit on the controller board of pump P-104?", k=4).hits
    assert {h.document for h in hits if BOARD in h.content} == {"alt-text.docx", "alt-text.ods"}
    ans = idx.ask("Where does relay K2 sit on the controller board of pump P-104?")
    assert not ans.refused, ans.answer
    quoted = {(sp.document, sp.locator.sheet_range) for sp in ans.spans if BOARD in sp.text}
    assert quoted == {("alt-text.docx", None), ("alt-text.ods", "Pumps!E3:E3")}, ans.answer


def test_a_tagged_pdf_s_figures_give_their_alt_text_before_their_pictures_text(diagram_text):
    doc = extract(REAL / "alt-text-chromium.pdf")
    assert paragraphs(doc.text) == [
        "Pump room guide The controller board of pump P-104:", "The crates:",
        "Figure 1. The crates. A border: The end.",
        BOARD, STACK, *diagram_text]  # the alt="" picture is an artifact: nothing
    assert (doc.extractor, doc.extractor_version, doc.warnings) == ("pdf", "16", ())
    assert [r.page for r in doc.regions] == [1]


def test_a_pdf_s_alt_text_is_read_without_ocr(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "OCR is not installed here")
    doc = extract(REAL / "alt-text-chromium.pdf")
    assert paragraphs(doc.text)[-2:] == [BOARD, STACK]


def test_alt_text_on_every_page_is_furniture(diagram_text):
    # a company mark atop each of three pages: its alt text, like its picture, is no text
    doc = extract(REAL / "alt-text-logo-pages.pdf")
    assert "company mark" not in doc.text
    third = doc.text[doc.regions[2].start:doc.regions[2].end]
    assert paragraphs(third) == ["July No work was done in July.", STACK, *diagram_text]


# --- Excel 365: pictures placed in a cell, data types ----------------------------------

CELL_PICTURES = REAL / "cell-pictures-xlsxwriter.xlsx"


def test_a_picture_placed_in_a_cell_is_its_alt_text_and_its_text_a_line_under_the_row(
        diagram_text):
    doc = extract(CELL_PICTURES)
    assert doc.text.split("\n") == [
        "Key | Site | Photo", f"P-104 | Harbour East | {BOARD}", "P-102 | Łódź Północ",
        *("Picture at C3: " + " ".join(p.split()) for p in diagram_text),
        "P-103 | Zürich Süd"]  # decorative: nothing, its notice's text neither
    assert "#VALUE!" not in doc.text  # what Excel stores for older readers
    assert (doc.extractor, doc.extractor_version, doc.warnings) == ("xlsx", "11", ())
    from citeline.chunk import locate

    at = doc.text.index("HAL Crate")
    assert locate(doc, at, at + 9).sheet_range == "Pumps!C3:C3"


def test_without_ocr_a_cell_s_picture_is_its_alt_text(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "OCR is not installed here")
    doc = extract(CELL_PICTURES)
    assert doc.text.split("\n") == ["Key | Site | Photo", f"P-104 | Harbour East | {BOARD}",
                                    "P-102 | Łódź Północ", "P-103 | Zürich Süd"]
    assert doc.warnings == ("2 pictures not read for their text: OCR is not installed here",)


def rewritten(tmp_path: Path, source: Path, parts: dict[str, bytes]) -> Path:
    """``source`` with the package parts ``parts`` replaced."""
    import zipfile

    out = tmp_path / source.name
    with zipfile.ZipFile(source) as z, zipfile.ZipFile(out, "w") as w:
        for item in z.infolist():
            w.writestr(item, parts.get(item.filename, z.read(item.filename)))
    return out


RICH = "http://schemas.microsoft.com/office/spreadsheetml/2017/richdata"


def test_a_data_type_reads_as_the_name_its_cell_shows(tmp_path: Path):
    # Excel's linked data types (a stock, a place) are rich values too: the cell shows
    # its _DisplayString, over "#VALUE!" for older readers
    structures = (f'<rvStructures xmlns="{RICH}" count="2"><s t="_linkedentity">'
                  '<k n="%EntityServiceId" t="i"/><k n="_DisplayString" t="s"/>'
                  '<k n="%EntityId" t="s"/></s><s t="_localImage"><k n="_rvRel:LocalImageIdentifier"'
                  ' t="i"/><k n="CalcOrigin" t="i"/></s></rvStructures>')
    values = (f'<rvData xmlns="{RICH}" count="3"><rv s="0"><v>268435456</v>'
              '<v>Harbour  East\nPumping Station</v><v>4abc</v></rv>'
              '<rv s="1"><v>1</v><v>5</v></rv><rv s="1"><v>0</v><v>6</v></rv></rvData>')
    path = rewritten(tmp_path, CELL_PICTURES, {
        "xl/richData/rdrichvaluestructure.xml": structures.encode(),
        "xl/richData/rdrichvalue.xml": values.encode()})
    lines = extract(path).text.split("\n")
    assert lines[:2] == ["Key | Site | Photo", "P-104 | Harbour East | Harbour East Pumping Station"]


def test_damaged_rich_values_are_said_and_their_cells_read_as_stored(tmp_path: Path):
    path = rewritten(tmp_path, CELL_PICTURES, {"xl/richData/rdrichvalue.xml": b"<rvData"})
    doc = extract(path)
    assert doc.text.split("\n")[1] == "P-104 | Harbour East | #VALUE!"
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith(
        "its pictures in cells and data types cannot be read (")


def test_a_question_a_cell_s_picture_answers_cites_its_row(index_of):
    idx, _ = index_of({"cell-pictures.xlsx": CELL_PICTURES.read_bytes()})
    ans = idx.ask("Where is relay K2 on the controller board of pump P-104?")
    assert not ans.refused, ans.answer
    quoted = {sp.locator.sheet_range for sp in ans.spans if "relay K2" in sp.text}
    assert quoted and quoted <= {"Pumps!A2:C2", "Pumps!C2"}, (quoted, ans.answer)


# --- what a drawing says besides its pixels: charts and SmartArt in documents ----------


def test_a_word_document_s_smartart_and_chart_are_read_in_their_place():
    # Word for Mac's file: a picture (OCR reads "A python powered"), a SmartArt diagram
    # of three nodes, a column chart of three series
    doc = extract(REAL / "word-smartart-chart.docx")
    blocks = paragraphs(doc.text)
    assert blocks[-2:] == ["foo bar baz", "A column chart of Series 1, Series 2, Series 3."]
    assert doc.text.endswith("foo\nbar\nbaz\n\nA column chart of Series 1, Series 2, Series 3.")
    assert (doc.extractor, doc.extractor_version, doc.warnings) == ("docx", "17", ())
    # Writer's copy keeps the chart as an embedded object, which reads the same
    odt = extract(REAL / "word-smartart-chart.odt")
    assert paragraphs(odt.text)[-1] == blocks[-1] and "foo" not in odt.text


def test_a_damaged_chart_part_is_said_and_the_document_read(tmp_path: Path):
    path = rewritten(tmp_path, REAL / "word-smartart-chart.docx",
                     {"word/charts/chart1.xml": b"<c:chartSpace"})
    doc = extract(path)
    assert "foo\nbar\nbaz" in doc.text and "column chart" not in doc.text
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith(
        "the chart /word/charts/chart1.xml cannot be read (")


# --- embedded objects: a workbook inserted in a document ------------------------------

EMBEDDED_TEXT = ["The pump list, as the depot keeps it:", "Key | Site", "P-104 | Harbour East",
                 "P-102 | Łódź Północ",
                 "Pumps not on the list are serviced by the harbour master."]


@pytest.mark.parametrize("name", ["embedded-sheet.docx", "embedded-sheet.odt",
                                  "embedded-sheet.fodt"])
def test_an_embedded_spreadsheet_s_rows_are_read_where_it_is_shown(name: str):
    # Writer's object (a package folder, or a flat file's inline document) and Word's
    # (an .xlsx part, shown by an EMF picture, which is then not counted as unread)
    doc = extract(REAL / name)
    assert paragraphs(doc.text) == EMBEDDED_TEXT
    assert doc.warnings == ()
    assert doc.extractor_version == ("17" if name.endswith("docx") else "6")


def test_an_ole_compound_object_is_named_as_not_read():
    from citeline.errors import ExtractionError

    with pytest.raises(ExtractionError) as err:  # the document holds nothing else
        extract(REAL / "ole-object.docx")
    assert "an embedded object (oleObject1.bin) is not read" in err.value.reason
    assert "EMF 1" in err.value.reason  # its picture, a metafile, is counted as ever


def test_an_embedded_workbook_that_cannot_be_read_is_said(tmp_path: Path):
    path = rewritten(tmp_path, REAL / "embedded-sheet.docx",
                     {"word/embeddings/oleObject1.xlsx": b"PK\x03\x04 cut short"})
    doc = extract(path)
    assert paragraphs(doc.text) == [EMBEDDED_TEXT[0], EMBEDDED_TEXT[-1]]
    assert doc.warnings[0].startswith("the embedded oleObject1.xlsx cannot be read (")


@pytest.mark.parametrize("name", ["embedded-slide.pptx", "embedded-slide.odp"])
def test_an_embedded_spreadsheet_on_a_slide_is_read_in_its_place(name: str):
    doc = extract(REAL / name)
    assert paragraphs(doc.text) == ["# Slide 1", "Pump list", "Key | Site", "P-104 | Harbour East"]
    assert doc.warnings == () and doc.extractor_version == ("6" if name.endswith("x") else "6")
    flat = extract(REAL / "embedded-slide.fodp")  # the inline object, its title frame a title
    assert paragraphs(flat.text) == ["# Pump list", "Key | Site", "P-104 | Harbour East"]


def nested(tmp_path: Path, levels: int) -> Path:
    """embedded-sheet.docx holding, in place of its workbook, the same document holding
    the same ... ``levels`` deep (as a package that holds itself would, forever)."""
    import zipfile

    inner = REAL / "embedded-sheet.docx"
    types = ('<Default Extension="docx" ContentType="application/vnd.openxmlformats-'
             'officedocument.wordprocessingml.document"/>')
    for level in range(levels):
        with zipfile.ZipFile(REAL / "embedded-sheet.docx") as z:
            parts = {n: z.read(n) for n in z.namelist() if n != "word/embeddings/oleObject1.xlsx"}
        parts["word/embeddings/inner.docx"] = inner.read_bytes()
        parts["word/_rels/document.xml.rels"] = parts["word/_rels/document.xml.rels"].replace(
            b"embeddings/oleObject1.xlsx", b"embeddings/inner.docx")
        parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
            b"<Default ", types.encode() + b"<Default ", 1)
        inner = tmp_path / f"level{level}.docx"
        with zipfile.ZipFile(inner, "w") as w:
            for name, data in parts.items():
                w.writestr(name, data)
    return inner


def test_objects_embedded_too_deep_are_not_read(tmp_path: Path):
    doc = extract(nested(tmp_path, 4))
    # three documents deep are read, the fourth is not (its picture, a metafile, counted)
    assert paragraphs(doc.text) == [EMBEDDED_TEXT[0]] * 4 + [EMBEDDED_TEXT[-1]] * 4
    deep = "embedded inner.docx: " * 3
    assert doc.warnings == (f"{deep}the embedded inner.docx is not read: it is embedded 4 "
                            "objects deep (a file that holds itself?)",
                            f"{deep}1 picture in a format citeline does not read for text "
                            "(EMF 1): not read")
    two = extract(nested(tmp_path, 2))
    assert paragraphs(two.text) == [EMBEDDED_TEXT[0]] * 3 + EMBEDDED_TEXT[1:4] + \
        [EMBEDDED_TEXT[-1]] * 3


def test_an_embedded_spreadsheet_that_cannot_be_read_is_said_in_an_odt(tmp_path: Path):
    path = rewritten(tmp_path, REAL / "embedded-sheet.odt",
                     {"Object 1/content.xml": b"<office:document-content"})
    doc = extract(path)
    assert paragraphs(doc.text) == [EMBEDDED_TEXT[0], EMBEDDED_TEXT[-1]]
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith(
        "the embedded Object1 cannot be read ("), doc.warnings
