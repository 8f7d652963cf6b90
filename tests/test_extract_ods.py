"""OpenDocument spreadsheets (.ods): the same cells as an .xlsx give the same text, regions
and citations; repeat counts are counted, not expanded; and a file that cannot be read
says why. Fixtures are written by odfpy, laid out as LibreOffice Calc saves them
(doc_builders.spreadsheet), and the same cells by openpyxl."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from odf.opendocument import OpenDocumentSpreadsheet, OpenDocumentText
from odf.table import Table, TableCell, TableRow
from odf.text import P

from citeline.chunk import chunk_document, locate
from citeline.errors import ExtractionError
from citeline.extract import extractor_for
from citeline.extract.sheet import OdsExtractor, XlsxExtractor
from doc_builders import Formula, Shown, save_odf, spreadsheet

CALCEXT = "urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0"

# Every kind of value, a blank row, identical rows and cells (stored once with a count in
# the .ods), a merged block, a multi-line cell, an empty sheet and a hidden one.
BOOK = {
    "Q3 Sales": [
        [None, "Region", "Units", "Revenue", "Share", "Checked", "Signed", "At"],
        [None, "North", 120, 1500.5, Shown(0.25, "percentage"), dt.date(2024, 3, 1), True,
         dt.time(8, 30)],
        [],
        [None, "South", 80, Shown(990.0, "currency"), Shown(0.1 + 0.2, "percentage"),
         dt.datetime(2024, 3, 1, 8, 30), False, None],
        [None, "TBD", "TBD", "TBD"],
        [None, "TBD", "TBD", "TBD"],
        ["merged block", None, None, "beside"],
        [None, None, None, "below"],
        [None, 12345678901234, 1e-05, 1.5e20, -3.5, 0],
    ],
    "Notes": [["Remember to reconcile\nwith  the depot.", None, "E-7"]],
    "Blank": [],
    "Lookup": [[None, None], [None, "secret rate"]],
}
LAYOUT = {"hidden": ("Lookup",), "merged": {"Q3 Sales": ["A7:C8"]}}


def extract(path: Path):  # type: ignore[no-untyped-def]
    return extractor_for(path).extract(path, path.name)


def _ods(path: Path, *rows: TableRow, name: str = "S") -> Path:
    """An .ods of one sheet with these odfpy rows, as they are (no layout added)."""
    doc = OpenDocumentSpreadsheet()
    table = Table(name=name)
    for row in rows:
        table.addElement(row)
    doc.spreadsheet.addElement(table)
    doc.save(str(path))
    return path


def _row(*cells: TableCell, **repeat: int) -> TableRow:
    row = TableRow(**repeat)
    for cell in cells:
        row.addElement(cell)
    return row


def _text(value: str, **attributes: object) -> TableCell:
    cell = TableCell(valuetype="string", **attributes)
    cell.addElement(P(text=value))
    return cell


def test_an_ods_and_an_xlsx_with_the_same_cells_give_the_same_document(tmp_path: Path):
    ods = extract(spreadsheet(tmp_path / "budget.ods", BOOK, **LAYOUT))
    xlsx = extract(spreadsheet(tmp_path / "budget.xlsx", BOOK, **LAYOUT))
    assert (ods.extractor, ods.extractor_version) == ("ods", "7")
    assert ods.media_type == "application/vnd.oasis.opendocument.spreadsheet"
    # values, not what the sheet shows ("25%", "990.00 €", "03/01/24"); by hand:
    assert ods.text == (
        "Region | Units | Revenue | Share | Checked | Signed | At\n"
        "North | 120 | 1500.5 | 0.25 | 2024-03-01 | TRUE | 08:30:00\n"
        "South | 80 | 990 | 0.3 | 2024-03-01 08:30:00 | FALSE\n"
        "TBD | TBD | TBD\n"
        "TBD | TBD | TBD\n"
        "merged block |  |  | beside\n"
        "below\n"
        "12345678901234 | 1e-05 | 1.5e+20 | -3.5 | 0\n\n"
        "Remember to reconcile with the depot. |  | E-7\n\n"
        "secret rate")
    assert [(r.sheet, r.row, r.first_col, r.last_col) for r in ods.regions] == [
        ("Q3 Sales", 1, 2, 8), ("Q3 Sales", 2, 2, 8), ("Q3 Sales", 4, 2, 7),
        ("Q3 Sales", 5, 2, 4), ("Q3 Sales", 6, 2, 4), ("Q3 Sales", 7, 1, 4),
        ("Q3 Sales", 8, 4, 4), ("Q3 Sales", 9, 2, 6), ("Notes", 1, 1, 3), ("Lookup", 2, 2, 2)]
    assert ods.warnings == (
        "sheet 'Blank' is empty",
        "sheet 'Lookup' is hidden: its 1 row(s) are indexed and cited; Unhide in a "
        "spreadsheet program shows it")
    assert (ods.text, ods.regions, ods.warnings, ods.title) == \
        (xlsx.text, xlsx.regions, xlsx.warnings, xlsx.title)
    # and so the same chunks, headers and citations
    chunks, twins = chunk_document(ods), chunk_document(xlsx)
    assert [(c.text, c.start, c.end) for c in chunks] == [(c.text, c.start, c.end) for c in twins]
    assert [locate(ods, c.start, c.end).sheet_range for c in chunks] == \
        ["'Q3 Sales'!A1:H9", "Notes!A1:C1", "Lookup!B2:B2"]
    # the fixture is laid out as Calc saves it: runs stored once, a row to 1,048,576
    with zipfile.ZipFile(tmp_path / "budget.ods") as z:
        content = z.read("content.xml").decode()
    for written in ('table:number-rows-repeated="2"', 'table:number-columns-repeated="3"',
                    'table:number-rows-repeated="1048567"', "<table:covered-table-cell",
                    'table:display="false"', "<text:p>25%</text:p>"):
        assert written in content, written


def test_an_empty_row_repeated_to_row_1048576_is_counted_not_expanded(tmp_path: Path):
    """LibreOffice ends every sheet with an empty row repeated to the last row, 1,024 or
    16,384 empty cells wide: expanded, that is 10^9 cells."""
    path = _ods(tmp_path / "tail.ods",
                _row(_text("id"), _text("what"), TableCell(numbercolumnsrepeated=16_382)),
                _row(TableCell(numbercolumnsrepeated=16_384), numberrowsrepeated=1_048_572),
                _row(_text("K9"), _text("last row but one"), TableCell(numbercolumnsrepeated=16_382)),
                _row(TableCell(numbercolumnsrepeated=16_384), numberrowsrepeated=2))
    tracemalloc.start()
    t0 = time.perf_counter()
    doc = extract(path)
    elapsed = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert doc.text == "id | what\nK9 | last row but one"
    assert [r.row for r in doc.regions] == [1, 1_048_574]
    assert locate(doc, doc.regions[1].start, doc.regions[1].end).sheet_range == "S!A1048574:B1048574"
    assert elapsed < 1.0 and peak < 2 << 20, (elapsed, peak)


def test_repeated_rows_and_cells_with_content_are_written_out_within_a_bound(tmp_path: Path):
    path = _ods(tmp_path / "runs.ods",
                _row(_text("n/a", numbercolumnsrepeated=3), TableCell(), _text("end")),
                _row(_text("same"), TableCell(valuetype="float", value=7), numberrowsrepeated=3),
                _row(TableCell(numbercolumnsrepeated=2), _text("C5")))
    doc = extract(path)
    assert doc.text == "n/a | n/a | n/a |  | end\nsame | 7\nsame | 7\nsame | 7\nC5"
    assert [(r.row, r.first_col, r.last_col) for r in doc.regions] == [
        (1, 1, 5), (2, 1, 2), (3, 1, 2), (4, 1, 2), (5, 3, 3)]
    # a few bytes asking for 10^9 cells with content: refused before any is written out
    bomb = _ods(tmp_path / "bomb.ods",
                _row(_text("x", numbercolumnsrepeated=1024), numberrowsrepeated=1_048_576))
    assert bomb.stat().st_size < 4096
    tracemalloc.start()
    with pytest.raises(ExtractionError) as err:
        extract(bomb)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert err.value.reason == (
        "its repeated rows and cells expand to over 46,684,427 cells with content (more than "
        "an .xlsx of 1024 MB unpacked holds): too big to index, or a zip bomb")
    assert peak < 2 << 20, peak
    # content past column XFD is in no sheet a spreadsheet program opens
    wide = _ods(tmp_path / "wide.ods", _row(TableCell(numbercolumnsrepeated=10**9), _text("far")))
    with pytest.raises(ExtractionError, match=r"sheet 'S', row 1: a cell with content past "
                                              r"column XFD, the last of 16,384"):
        extract(wide)


def test_merged_cells_keep_their_value_in_the_first_cell(tmp_path: Path):
    book = {"Plan": [["Phase", "Owner", "Notes"],
                     ["Design", "Ana", "spans two rows and two columns"],
                     ["Build", None, None],
                     ["Ship", "Ben", "merged across", None]]}
    merged = {"Plan": ["C2:D3", "C4:D4"]}
    ods = extract(spreadsheet(tmp_path / "plan.ods", book, merged=merged))
    xlsx = extract(spreadsheet(tmp_path / "plan.xlsx", book, merged=merged))
    assert ods.text == ("Phase | Owner | Notes\nDesign | Ana | spans two rows and two columns\n"
                        "Build\nShip | Ben | merged across")
    assert (ods.text, ods.regions) == (xlsx.text, xlsx.regions)


def test_values_are_read_by_their_type_and_formulas_by_their_saved_result(tmp_path: Path):
    book = {"Q1": [["Region", "Revenue", "Band", "Ratio"],
                   ["North", 1200, Formula('of:=IF([.B2]>1000;"high";"")', "high"),
                    Formula("of:=[.B2]/[.B3]", 1.5)],
                   ["South", 800, Formula('of:=IF([.B3]>1000;"high";"")', ""),
                    Formula("of:=[.B3]/0", 0)],
                   [],
                   ["Total", Formula("of:=SUM([.B2:.B3])"), Formula("of:=TODAY()",
                                                                     dt.date(2024, 5, 2))]]}
    path = spreadsheet(tmp_path / "q1.ods", book)
    with zipfile.ZipFile(path) as z:  # D3 as Calc saves an error: its text, office:value 0
        parts = {name: z.read(name) for name in z.namelist()}
    content = parts["content.xml"].decode()
    cell = 'table:formula="of:=[.B3]/0" office:value-type="float" office:value="0"'
    assert content.count(cell) == 1
    parts["content.xml"] = content.replace(cell, cell + f' xmlns:calcext="{CALCEXT}" '
                                           'calcext:value-type="error"').replace(
        "<text:p>0</text:p>", "<text:p>#DIV/0!</text:p>").encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    doc = extract(path)
    assert doc.text == ("Region | Revenue | Band | Ratio\nNorth | 1200 | high | 1.5\n"
                        "South | 800 |  | #DIV/0!\nTotal | =SUM([.B2:.B3]) | 2024-05-02")
    assert doc.warnings == (
        "sheet 'Q1': 1 formula cell(s) have no saved result (e.g. B5 =SUM([.B2:.B3])); their "
        "formulas are indexed instead: open and save the file in a spreadsheet program to "
        "index the values",)


def _odt(path: Path) -> None:
    doc = OpenDocumentText()
    doc.text.addElement(P(text="a letter"))
    doc.save(str(path))


def _xlsx(path: Path) -> None:
    spreadsheet(path.with_suffix(".xlsx"), {"S": [["a"]]}).rename(path)


def _rezip(path: Path, changes: dict[str, bytes | None]) -> None:
    spreadsheet(path, {"S": [["a"]]})
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    with zipfile.ZipFile(path, "w") as z:
        for name, data in {**parts, **changes}.items():
            if data is not None:
                z.writestr(name, data)


# META-INF/manifest.xml of a password-protected .ods, as LibreOffice writes it: the
# parts are AES-encrypted and each entry says how.
_ENCRYPTED_MANIFEST = b"""<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"
 manifest:version="1.3">
 <manifest:file-entry manifest:full-path="/" manifest:version="1.3"
  manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"
  manifest:size="3112">
  <manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k"
   manifest:checksum="W7kPvF2n3Xb2g4J1t0y8l3lqCk3o0v6m5Yw9rJxHq0s=">
   <manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc"
    manifest:initialisation-vector="9yvVX2Pq3qz3sVqP0pWb2g=="/>
   <manifest:start-key-generation manifest:start-key-generation-name="http://www.w3.org/2000/09/xmldsig#sha256"
    manifest:key-size="32"/>
   <manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32"
    manifest:iteration-count="100000" manifest:salt="Jx1Xn3dQ3mD0Xb7t3cYw9A=="/>
  </manifest:encryption-data>
 </manifest:file-entry>
</manifest:manifest>
"""


@pytest.mark.parametrize(("make", "reason"), [
    (lambda p: p.write_bytes(b""), "empty file (0 bytes), not a spreadsheet"),
    (lambda p: p.write_bytes(b"Region,Sales\nNorth,12\n"),
     "not a .ods spreadsheet (not a ZIP package); a legacy .xls must be saved as .ods"),
    (lambda p: p.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 1024),
     "a legacy .xls file, not a .ods spreadsheet: rename it .xls to index it"),
    (lambda p: p.write_bytes(spreadsheet(p, {"S": [["a"]]}).read_bytes()[:300]),
     "a damaged .ods spreadsheet: its ZIP package ends early (no central directory)"),
    (lambda p: p.write_bytes(b'<?xml version="1.0"?>\n<office:document xmlns:office="urn:oasis:'
                             b'names:tc:opendocument:xmlns:office:1.0"/>'),
     "not an OpenDocument spreadsheet: its XML holds no spreadsheet"),
    (lambda p: p.write_bytes(_flat_text(p).read_bytes()),
     "a flat OpenDocument text document, not a spreadsheet: name it .fodt"),
    (lambda p: p.write_bytes(spreadsheet(p.with_suffix(".fods"), BOOK).read_bytes()[:3000]),
     "the spreadsheet is damaged ("),  # cut short, as a packaged one's content.xml
    (_odt, "an OpenDocument text document, not a spreadsheet: name it .odt"),
    (_xlsx, "an Office Open XML file, not an OpenDocument one: name it .xlsx"),
    (lambda p: _rezip(p, {"mimetype": None, "META-INF/manifest.xml": None}),
     "a ZIP archive but not an OpenDocument .ods file (it has no mimetype entry)"),
    (lambda p: _rezip(p, {"META-INF/manifest.xml": _ENCRYPTED_MANIFEST,
                          "content.xml": os.urandom(3000)}),
     "the .ods is encrypted with a password; save a copy without the password to index it"),
    (lambda p: _rezip(p, {"content.xml": None}),
     "the spreadsheet is damaged (it has no content.xml)"),
    (lambda p: _rezip(p, {"content.xml": b"<office:document-content><office:body"}),
     "the spreadsheet is damaged ("),
], ids=["empty", "csv", "legacy-xls", "cut-short", "flat-no-body", "flat-fodt", "flat-cut",
        "odt", "xlsx", "no-mimetype",
        "encrypted", "no-content", "damaged-xml"])
def test_an_ods_that_cannot_be_read_says_why(tmp_path: Path, make, reason: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "accounts.ods"
    make(path)
    with pytest.raises(ExtractionError) as err:
        OdsExtractor().extract(path, "books/accounts.ods")
    assert err.value.path == "books/accounts.ods"
    assert err.value.reason.startswith(reason), err.value.reason
    assert "crashed" not in err.value.reason


def _flat_text(path: Path) -> Path:
    """A flat text document (.fodt) by odfpy, beside ``path``."""
    doc = OpenDocumentText()
    doc.text.addElement(P(text="Reconcile with the depot."))
    flat = path.with_name("letter.fodt")
    save_odf(doc, flat)
    return flat


def test_a_flat_fods_and_an_ots_template_give_the_ods_s_document(tmp_path: Path):
    """LibreOffice's Flat XML (.fods: one office:document, written by odfpy's own xml())
    and a template (.ots: the package with the -template mimetype) give the document the
    .ods with the same cells gives, and so the .xlsx's; a flat file named .ods too."""
    ods = extract(spreadsheet(tmp_path / "budget.ods", BOOK, **LAYOUT))
    flat = spreadsheet(tmp_path / "budget.fods", BOOK, **LAYOUT)
    template = spreadsheet(tmp_path / "budget.ots", BOOK, **LAYOUT)
    assert not zipfile.is_zipfile(flat) and b"<office:document " in flat.read_bytes()[:2000]
    for written in ('table:number-rows-repeated="1048567"', 'table:display="false"'):
        assert written.encode() in flat.read_bytes(), written  # laid out as Calc saves it
    assert zipfile.ZipFile(template).read("mimetype") == \
        b"application/vnd.oasis.opendocument.spreadsheet-template"
    (tmp_path / "misnamed").mkdir()
    misnamed = tmp_path / "misnamed" / "budget.ods"  # (a sheet's title is its file stem)
    misnamed.write_bytes(flat.read_bytes())
    for path in (flat, template, misnamed):
        doc = extract(path)
        assert doc == dataclasses.replace(ods, path=doc.path), path.name
        assert [locate(doc, c.start, c.end).sheet_range for c in chunk_document(doc)] == \
            ["'Q3 Sales'!A1:H9", "Notes!A1:C1", "Lookup!B2:B2"]


def test_ods_is_registered_beside_xlsx():
    assert isinstance(extractor_for(Path("a.ods")), OdsExtractor)
    assert isinstance(extractor_for(Path("a.fods")), OdsExtractor)
    assert isinstance(extractor_for(Path("a.OTS")), OdsExtractor)
    assert isinstance(extractor_for(Path("A.ODS")), OdsExtractor)
    assert isinstance(extractor_for(Path("a.xlsx")), XlsxExtractor)


# --- through the index: a keyed row lookup cites the same range from either format ---


STAFF = [["employee id", "name", "department", "office", "phone extension"]] + [
    [f"E{1000 + i}", name, dept, office, 2000 + (i * 373) % 6000]
    for i, (name, dept, office) in enumerate(
        ("Anna Ben Carla David Emil Fatima Gustav Hanna Ivan Julia Karl Lena".split()[i % 12],
         "Finance Logistics Sales Research Support Legal".split()[i % 6],
         "Oslo Lyon Graz Porto Turin Bergen Brno".split()[i % 7]) for i in range(60))]


@pytest.fixture(scope="module")
def staff(embedder, tmp_path_factory: pytest.TempPathFactory):
    from citeline.pipeline import Index

    indexes = {}
    for suffix in (".ods", ".xlsx"):
        root = tmp_path_factory.mktemp(suffix[1:])
        (root / "docs").mkdir()
        spreadsheet(root / "docs" / f"staff{suffix}", {"Staff": STAFF})
        idx = Index(root / "ix", embedder=embedder)
        report = idx.index(root / "docs")
        assert not report.failed, report.failed
        indexes[suffix] = idx
    yield indexes
    for idx in indexes.values():
        idx.close()


def test_a_row_named_by_its_key_is_cited_by_its_range_as_from_an_xlsx(staff):
    ods, xlsx = staff[".ods"], staff[".xlsx"]
    answered = 0
    for i in range(3, 60, 7):
        row = i + 2  # the header is row 1
        question = f"What is the phone extension of employee E{1000 + i}?"
        hits = ods.search(question, k=5).hits
        assert hits[0].document == "staff.ods"
        first, last = (int(n) for n in hits[0].locator.sheet_range.split("!A")[1].split(":E"))
        assert first <= row <= last, (question, hits[0].locator.sheet_range)
        twins = xlsx.search(question, k=5).hits
        assert [(h.locator.sheet_range, h.content) for h in hits] == \
            [(h.locator.sheet_range, h.content) for h in twins]
        ans, twin = ods.ask(question), xlsx.ask(question)
        assert (ans.refused, ans.answer.replace(".ods", ".xlsx")) == (twin.refused, twin.answer)
        if ans.refused:
            continue
        answered += 1
        cells = " | ".join(str(v) for v in STAFF[row - 1])
        assert [(sp.text, sp.locator.sheet_range) for sp in ans.spans] == \
            [(cells, f"Staff!A{row}:E{row}")]
        assert [sp.locator.sheet_range for sp in twin.spans] == [f"Staff!A{row}:E{row}"]
    assert answered >= 6
