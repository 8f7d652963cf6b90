"""Pictures in a workbook (a screenshot pasted beside the rows it explains, a scanned form)
read by OCR as a Word document's pictures are, each paragraph a line under the row of the
cell the picture is anchored at and cited by that cell; real pictures
(tests/fixtures/real, SOURCES.md), a workbook openpyxl writes, and the same workbook as
LibreOffice Calc saves it as .xlsx and .ods."""

from __future__ import annotations

import io
import re
from pathlib import Path

import openpyxl
import pytest
from openpyxl.drawing.image import Image

from citeline.chunk import locate
from citeline.errors import ExtractionError
from citeline.extract import extractor_for
from citeline.extract import image as imagemod
from citeline.gate import lookup
from citeline.types import Document, Hit, Locator

REAL = Path(__file__).parent / "fixtures" / "real"
ROWS = ["Key | Site | Units", "P-101 | Zürich Süd | 12", "P-102 | Łódź Północ | 3",
        "P-103 | Harbour East | 4", "P-104 | Quay North | 6"]


def pictures_workbook(path: Path) -> Path:
    """A sheet of pumps with three pictures anchored at cells: a screenshot of a manual's
    page at E3, a photograph of a board (no text to read) at E5, and a diagram of
    labelled boxes at B7, under the last row."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Pumps"
    for line in ROWS:
        ws.append([int(c) if c.isdigit() else c for c in line.split(" | ")])
    ws.add_image(Image(str(REAL / "irrigation-handset.png")), "E3")
    ws.add_image(Image(str(REAL / "board-photo.jpeg")), "E5")
    ws.add_image(Image(str(REAL / "crates-diagram.png")), "B7")
    wb.save(str(path))
    return path


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def lines_of(picture: str, cell: str) -> list[str]:
    """The lines a picture's text (as the image reader reads the file) is in a sheet."""
    return [f"Picture at {cell}: " + " ".join(p.split())
            for p in re.split(r"\n\s*\n", extract(REAL / picture).text) if p.strip()]


@pytest.fixture(scope="module")
def workbook(tmp_path_factory) -> Document:  # type: ignore[no-untyped-def]
    return extract(pictures_workbook(tmp_path_factory.mktemp("xlsx") / "pumps.xlsx"))


def test_a_sheets_pictures_are_lines_under_their_anchors_row(workbook):
    doc = workbook
    screen, diagram = lines_of("irrigation-handset.png", "E3"), lines_of("crates-diagram.png", "B7")
    assert screen[0] == "Picture at E3: Greenhouse irrigation manual"
    assert any("HAL Crate" in line for line in diagram)
    # the photograph adds nothing; the diagram, on an empty row, comes after the last row
    assert doc.text == "\n".join([*ROWS[:3], *screen, *ROWS[3:], *diagram])
    assert doc.warnings == () and (doc.extractor, doc.extractor_version) == ("xlsx", "11")
    for line, cell in [(screen[0], "Pumps!E3:E3"), (screen[-1], "Pumps!E3:E3"),
                       (diagram[0], "Pumps!B7:B7")]:
        start = doc.text.index(line)
        assert locate(doc, start, start + len(line)).sheet_range == cell
    assert locate(doc, 0, len(doc.text)).sheet_range == "Pumps!A1:E7"


@pytest.mark.parametrize("name", ["pump-pictures.xlsx", "pump-pictures.ods"])
def test_calcs_copies_read_as_the_workbook_openpyxl_wrote(workbook, name: str):
    doc = extract(REAL / name)
    assert (doc.text, doc.regions, doc.warnings) == (workbook.text, workbook.regions, ())


def test_without_ocr_a_sheets_pictures_are_counted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "tesseract is not installed")
    for name in ("pump-pictures.xlsx", "pump-pictures.ods", "pump-pictures.xls"):
        doc = extract(REAL / name)
        assert doc.warnings == ("3 pictures not read for their text: tesseract is not "
                                "installed",), name
        assert doc.text == "\n".join(ROWS), name


def test_a_code_in_a_pictures_text_asks_no_column():
    """A lookup by a code reads the row holding it under the sheet's header; a picture's
    text holding the code is prose, where no column is asked for."""
    text = "Key | Site\nP-101 | Quay\nPicture at C2: Pump P-107 was recalled in May."
    h = Hit(1, 1, "p.xlsx", "p", "p", 0, len(text),
            Locator(0, len(text), sheet_range="Pumps!A1:C3"), text, 0.4, 1.0)
    assert lookup("Why was P-107 recalled?", h, "Key | Site",
                  ["Picture at C2: Pump P-107 was recalled in May."]) is None
    assert lookup("What is the voltage of P-101?", h, "Key | Site",
                  ["P-101 | Quay"]).unspelt == ("voltage",)  # a row's lookup still is weighed


def test_a_pictures_text_is_found_by_search_and_cites_its_cell(index_of):
    idx, report = index_of({"pump-pictures.xlsx": (REAL / "pump-pictures.xlsx").read_bytes()})
    assert report.indexed == ["pump-pictures.xlsx"]
    hit = idx.search("greenhouse irrigation manual", k=3).hits[0]
    assert "Picture at E3: Greenhouse irrigation manual" in hit.content
    ans = idx.ask("What does the greenhouse irrigation manual say about the schedule?")
    assert not ans.refused, ans.answer
    assert {sp.locator.sheet_range for sp in ans.spans} <= {"Pumps!E3:E3", "Pumps!B7:B7"}


TEXTBOXES = "\n".join([
    "Key | Site | Units", "P-101 | Zürich Süd | 12",
    "Text box at E2: How to fill in this sheet",
    "Text box at E2: Enter the units counted at the monthly check; leave a cell empty when a "
    "pump was not checked.",
    "P-102 | Łódź Północ | 3", "P-103 | Harbour East | 4",
    "Text box at B6: Units below 4 are ordered from the depot in Kiel."])


@pytest.mark.parametrize("name", ["pump-textboxes-xlsxwriter.xlsx", "pump-textboxes.xlsx",
                                  "pump-textboxes.ods", "pump-textboxes.xls"])
def test_a_text_box_in_a_sheet_is_read_under_its_anchors_row(name: str):
    """A text box (instructions beside the rows, a remark under them) is text the sheet
    shows: each paragraph a line under its anchor's row, cited by that cell, as
    XlsxWriter writes it and as Calc saves it in .xlsx and .ods."""
    doc = extract(REAL / name)
    assert doc.text == TEXTBOXES and doc.warnings == ()
    for line, cell in [("Text box at E2: Enter", "Pumps!E2:E2"), ("Text box at B6", "Pumps!B6:B6")]:
        start = doc.text.index(line)
        end = doc.text.find("\n", start)
        assert locate(doc, start, end if end > 0 else len(doc.text)).sheet_range == cell


def test_an_excel_97_workbooks_pictures_read_as_the_xlsx_ones(workbook):
    """Calc's .xls of the workbook keeps its pictures as OfficeArt shapes in the sheet's
    drawing records, their files in the workbook's BLIP store: the same text and regions."""
    doc = extract(REAL / "pump-pictures.xls")
    assert (doc.text, doc.regions, doc.warnings) == (workbook.text, workbook.regions, ())
    assert (doc.extractor, doc.extractor_version) == ("xls", "4")


def test_an_excel_97_pictures_cell_is_its_anchors(monkeypatch: pytest.MonkeyPatch):
    """A BIFF8 workbook whose one sheet shows only a picture (a license badge) at A1: the
    badge's PNG is what OCR is given, and a text read in it would be A1's line. (OCR
    finds no words in an 80 x 15 badge, so the sheet is empty and the file refused.)"""
    given: list[bytes] = []
    real = imagemod.picture_text

    def reading(data: bytes, where: str, warnings: list[str]) -> str | None:
        given.append(data)
        return real(data, where, warnings)

    monkeypatch.setattr(imagemod, "picture_text", reading)
    with pytest.raises(ExtractionError, match="every sheet is empty"):
        extract(REAL / "excel-picture-in-cell.xls")
    from PIL import Image as PILImage
    assert len(given) == 1 and PILImage.open(io.BytesIO(given[0])).size == (80, 15)
    monkeypatch.setattr(imagemod, "picture_text", lambda data, where, warnings: "cc by-nc-nd")
    assert extract(REAL / "excel-picture-in-cell.xls").text == "Picture at A1: cc by-nc-nd"


@pytest.mark.parametrize("name", ["flow-chart-xlsxwriter.xlsx", "flow-chart.xlsx",
                                  "flow-chart.ods"])
def test_a_chart_says_its_title_kind_series_and_axes_under_its_anchors_row(name: str):
    """A chart's numbers are the sheet's cells, already read; what it adds is what it
    says of itself, a line cited by its anchor's cell, as XlsxWriter writes it and as
    Calc saves it (in an .ods, an embedded object with a data table of its own)."""
    doc = extract(REAL / name)
    line = ("Chart at E2: Monthly flow at the harbour pumps. A line chart of Pump A, Pump B; "
            "axes: Month, Flow (m³/h).")
    assert doc.text == "\n".join(["Month | Pump A | Pump B", "Jan | 120 | 80", line,
                                  "Feb | 135 | 90", "Mar | 150 | 70"])
    start = doc.text.index(line)
    assert locate(doc, start, start + len(line)).sheet_range == "Flow!E2:E2"


@pytest.mark.parametrize("name", ["chart-kinds-xlsxwriter.xlsx", "chart-kinds.ods"])
def test_a_bar_chart_drawn_upright_is_a_column_chart_in_either_format(name: str):
    doc = extract(REAL / name)
    assert [line for line in doc.text.split("\n") if line.startswith("Chart")] == [
        "Chart at D2: Units by site (columns). A column chart of Units.",
        "Chart at D20: Units by site (bars). A bar chart of Units."]
