"""Legacy Excel workbooks (.xls): the same workbook as an .xlsx gives the same text,
regions, warnings and citations; a file that is no binary workbook, or a locked, cut or
damaged one, fails alone saying what it is.

The fixtures are real (tests/fixtures/real, SOURCES.md): LibreOffice Calc 7.4 saved
each workbook as .xlsx and then that .xlsx as a BIFF8 .xls, so the two files hold the
same workbook written by a program that is neither reader's library (openpyxl reads
the .xlsx, xlrd the .xls)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import citeline.extract.xls  # noqa: F401  registers .xls, as BUILTIN_OPTIONAL's "xls" does
from citeline.chunk import chunk_document, locate
from citeline.errors import ExtractionError
from citeline.extract import extractor_for
from citeline.extract.sheet import XlsxExtractor
from citeline.extract.xls import XlsExtractor

REAL = Path(__file__).parent / "fixtures" / "real"


def extract(path: Path, rel: str | None = None):  # type: ignore[no-untyped-def]
    return extractor_for(path).extract(path, rel or path.name)


@pytest.mark.parametrize("name", ["pump-ledger", "pump-log-1904"])
def test_an_xls_gives_the_document_its_xlsx_gives(name: str):
    xls, xlsx = extract(REAL / f"{name}.xls"), XlsxExtractor().extract(REAL / f"{name}.xlsx",
                                                                        f"{name}.xlsx")
    assert (xls.extractor, xls.extractor_version, xls.media_type) == \
        ("xls", "4", "application/vnd.ms-excel")
    # no value LibreOffice wrote differs between its .xlsx and its .xls: numbers are
    # their values in both, dates are serial numbers in a date format in both
    assert (xls.text, xls.regions, xls.warnings, xls.title) == \
        (xlsx.text, xlsx.regions, xlsx.warnings, xlsx.title)
    chunks, twins = chunk_document(xls), chunk_document(xlsx)
    assert [(c.text, c.start, c.end) for c in chunks] == [(c.text, c.start, c.end) for c in twins]
    assert [locate(xls, c.start, c.end) for c in chunks] == \
        [locate(xlsx, c.start, c.end) for c in twins]


def test_the_ledger_s_cells_read_as_written():
    doc = extract(REAL / "pump-ledger.xls")
    # by hand, from make_workbooks.py: values, not displays; formulas their saved results
    # (C2*D2 = 17999.4, SUM, 1/0 is #DIV/0!); a line break in a cell a space; a merged
    # block's covered cells empty; the blank row 5 and the empty sheet Blank skipped
    assert doc.text == (
        "Key | Site | Units | Unit price | Total | Installed | Serviced | Checked | Notes\n"
        "P-101 | Zürich Süd | 12 | 1499.95 | 17999.4 | 2023-04-17 | 08:30:00 | TRUE | "
        "Dichtung getauscht\n"
        "P-102 | Łódź Północ | 3 | 2250.5 | 6751.5 | 2024-01-02 | 2024-01-02 14:45:00 | FALSE\n"
        "P-103 | 東京 湾岸 | 0 | 980 | 0 |  |  |  | warten auf Teile ab KW 12\n"
        "P-104 |  | -4 | 0.1 | -0.4 | 1999-12-31 |  | TRUE | Rückgabe\n"
        "Total |  | 11 |  | 24750.5 |  |  |  | #DIV/0!\n"
        "Serial | 12345678901234 |  | 1.5e-05\n"
        "merged note: pressure test passed\n"
        "beside the merge\n\n"
        "Labour rate (€/h) | 95.5\n"
        "Call-out | 140")
    assert [(r.sheet, r.row, r.first_col, r.last_col) for r in doc.regions] == [
        ("Pumps", 1, 1, 9), ("Pumps", 2, 1, 9), ("Pumps", 3, 1, 8), ("Pumps", 4, 1, 9),
        ("Pumps", 6, 1, 9), ("Pumps", 7, 1, 9), ("Pumps", 8, 1, 4), ("Pumps", 10, 1, 1),
        ("Pumps", 11, 4, 4), ("Rates", 2, 2, 3), ("Rates", 3, 2, 3)]
    header = doc.regions[0]
    assert {r.header for r in doc.regions if r.sheet == "Pumps"} == \
        {doc.text[header.start : header.end]}
    assert doc.warnings == (
        "sheet 'Rates' is hidden: its 2 row(s) are indexed and cited; Unhide in a "
        "spreadsheet program shows it",
        "sheet 'Blank' is empty")
    # a row's cells, and a piece of one, cite their own A1 ranges
    p102 = doc.regions[2]
    total = p102.start + p102.cells[3]  # column E
    assert doc.text[total:].startswith("6751.5 |")
    assert locate(doc, p102.start, p102.end).sheet_range == "Pumps!A3:H3"
    assert locate(doc, total, total + len("6751.5")).sheet_range == "Pumps!E3:E3"
    # chunks of whole rows (the token budget ends the first before row 11)
    assert [locate(doc, c.start, c.end).sheet_range for c in chunk_document(doc)] == \
        ["Pumps!A1:I10", "Pumps!D11:D11", "Rates!B2:C3"]


def test_the_1904_date_system_and_durations_read_as_openpyxl_reads_them():
    # Excel for Mac's 1904 dates are counted from 1904-01-01, and a duration format
    # ([hh]:mm:ss) is a duration: xlrd's own xldate_as_datetime would make 1.5 days
    # "1904-01-02 12:00:00", and an .xlsx's time of day "1899-12-31 08:30:00"
    doc = extract(REAL / "pump-log-1904.xls")
    assert doc.text == ("Key | Installed | Run time\n"
                        "P-101 | 2023-04-17 | 1 day, 12:00:00\n"
                        "P-102 | 1904-01-02 06:00:00 | 0:45:00")


def test_a_template_is_read_as_a_workbook(tmp_path: Path):
    shutil.copy(REAL / "pump-ledger.xls", tmp_path / "ledger.xlt")
    doc = extract(tmp_path / "ledger.xlt")
    assert doc.extractor == "xls" and doc.text == extract(REAL / "pump-ledger.xls").text


def _ods(path: Path) -> Path:
    from doc_builders import spreadsheet

    return spreadsheet(path, {"S": [["P-101", 12]]})


@pytest.mark.parametrize(("name", "make", "reason"), [
    ("renamed.xls", lambda p: shutil.copy(REAL / "pump-ledger.xlsx", p),
     "an Office Open XML workbook (.xlsx) under a .xls name: rename it .xlsx"),
    ("renamed.xls", lambda p: _ods(p.with_suffix(".ods")).rename(p),
     "an OpenDocument spreadsheet (.ods) under a .xls name: rename it .ods"),
    ("export.xls", lambda p: p.write_text(
        '<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n<Workbook '
        'xmlns="urn:schemas-microsoft-com:office:spreadsheet"/>\n'),
     "an Excel 2003 XML Spreadsheet under a .xls name, not a binary workbook: open it in a "
     "spreadsheet program and save it as .xlsx to index it"),
    ("locked.xls", lambda p: shutil.copy(REAL / "locked-pump-log.xls", p),
     "the workbook is encrypted with a password; save a copy without the password to index it"),
    ("locked.xls", lambda p: shutil.copy(REAL / "locked-budget.xlsx", p),
     "an Office Open XML workbook (.xlsx) under a .xls name, encrypted with a password; save "
     "a copy without the password, as .xlsx, to index it"),
    ("empty.xls", lambda p: p.write_bytes(b""), "empty file (0 bytes), not a workbook"),
    ("noise.xls", lambda p: p.write_bytes(bytes(range(256)) * 4),
     "not an Excel workbook: it is no compound file (the container of an Excel 97-2003 "
     "workbook) and no BIFF stream"),
])
def test_a_file_that_is_no_binary_workbook_says_what_it_is(
        tmp_path: Path, name: str, make, reason: str):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    make(path)
    with pytest.raises(ExtractionError) as err:
        XlsExtractor().extract(path, f"inbox/{name}")
    assert (err.value.path, err.value.reason) == (f"inbox/{name}", reason)


@pytest.mark.parametrize(("content", "kind", "text", "extractor"), [
    ("<html><head><meta charset='utf-8'></head><body><table><tr><td>Key</td><td>Site</td></tr>"
     "<tr><td>P-101</td><td>Zürich Süd</td></tr></table></body></html>", "an HTML page",
     "Key | Site\n\nP-101 | Zürich Süd", "html"),
    ("Key;Site\r\nP-101;Zürich Süd\r\n", "comma-separated text (CSV)",
     "Key | Site\nP-101 | Zürich Süd", "csv"),
    ("Key\tSite\nP-101\tZürich Süd\n", "tab-separated text", "Key | Site\nP-101 | Zürich Süd",
     "csv"),
])
def test_an_export_for_excel_that_is_a_page_or_text_is_read_as_excel_opens_it(
        tmp_path: Path, content: str, kind: str, text: str, extractor: str):
    path = tmp_path / "export.xls"
    path.write_text(content, "cp1252" if ";" in content else "utf-8")
    doc = XlsExtractor().extract(path, "inbox/export.xls")
    assert (doc.text, doc.extractor) == (text, extractor)
    assert doc.warnings[-1] == (f"{kind} under a .xls name (Excel opens it by its content): "
                                f"read as {'.html' if extractor == 'html' else '.csv'}")


# On a sector boundary (the directory or allocation table lost) and inside one
@pytest.mark.parametrize("keep", [512, 2048, 4096, 6000, 8192])
def test_a_cut_short_workbook_says_so(tmp_path: Path, keep: int):
    path = tmp_path / "cut.xls"
    path.write_bytes((REAL / "pump-ledger.xls").read_bytes()[:keep])
    with pytest.raises(ExtractionError) as err:
        XlsExtractor().extract(path, "cut.xls")
    assert err.value.reason == (
        "the workbook is cut short (its compound file has sectors past the file's end), as "
        "after an interrupted download or copy; fetch or copy it again")


def test_a_damaged_workbook_says_so(tmp_path: Path):
    data = bytearray((REAL / "pump-ledger.xls").read_bytes())
    data[3000:3400] = bytes(400)  # records inside the workbook stream zeroed, size kept
    (tmp_path / "damaged.xls").write_bytes(bytes(data))
    with pytest.raises(ExtractionError) as err:
        XlsExtractor().extract(tmp_path / "damaged.xls", "damaged.xls")
    assert err.value.reason.startswith("the workbook is damaged (")


@pytest.fixture(scope="module")
def indexed(index_of):  # type: ignore[no-untyped-def]
    ledger = (REAL / "pump-ledger.xls").read_bytes()
    return index_of({"pump-ledger.xls": ledger, "cut.xls": ledger[:6000],
                     "notes.md": "# Depot\n\nThe depot opens at seven.\n"})


def test_a_row_found_by_its_key_cites_its_sheet_range(indexed):
    idx, report = indexed
    assert set(report.indexed) == {"pump-ledger.xls", "notes.md"}
    hit = next(h for h in idx.search("P-102 Łódź Północ", k=5).hits
               if h.document == "pump-ledger.xls")
    text = idx.document_text("pump-ledger.xls")
    assert text is not None and hit.content == text[hit.start : hit.end]
    assert "P-102 | Łódź Północ | 3 | 2250.5" in hit.content
    assert hit.locator.sheet_range is not None and hit.locator.sheet_range.startswith("Pumps!A")
    assert hit.locator.fragment == f"#{hit.locator.sheet_range}"
    rec = idx.store.document("pump-ledger.xls")
    assert rec is not None and (rec.extractor, rec.media_type) == ("xls", "application/vnd.ms-excel")


def test_a_cut_short_workbook_fails_alone(indexed):
    _, report = indexed
    assert dict(report.failed) == {"cut.xls": (
        "the workbook is cut short (its compound file has sectors past the file's end), as "
        "after an interrupted download or copy; fetch or copy it again")}
