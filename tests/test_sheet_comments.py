"""A cell's comment (Excel's note, Calc's comment) is text people write into a workbook:
why a row is empty, what a price includes, when a part was last replaced. Each is read
as a line under its row, cited by its cell, and the lookup rules that weigh a sheet's
rows read a row's comments with it.

Fixtures are real (tests/fixtures/real/SOURCES.md): Microsoft Excel's, Excel for Mac's and
Google Sheets' workbooks from xlrd's tests, and one workbook LibreOffice Calc saved as
.xlsx, .ods and .xls."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from citeline.chunk import chunk_document, locate
from citeline.extract import extractor_for

REAL = Path(__file__).parent / "fixtures" / "real"
CALC = ("pump-notes.xlsx", "pump-notes.ods", "pump-notes.xls")

PUMPS = """\
Key | Site | Units | Unit price | Serviced
Comment on D1: Prices are net of VAT, in CHF.
P-101 | Zürich Süd | 12 | 1499.95 | 2023-04-17
P-102 | Łódź Północ | 3 | 2250.5 | 2024-01-02
Comment on D3: Quoted by the supplier in March; the 2024 list is 8% higher.
Comment on C4: Row kept empty for P-103, scrapped after the flood.
P-104 | Harbour East | 4 | 980
Comment on E5: Overdue: the impeller seal was replaced in the 2022 service.

Date | Event
2024-02-01 | Pressure test
Comment on B2: Passed at 6 bar, witnessed by the harbour master."""


def extract(path: Path):  # type: ignore[no-untyped-def]
    return extractor_for(path).extract(path, path.name)


@pytest.mark.parametrize("name", CALC)
def test_each_comment_is_a_line_under_its_row_cited_by_its_cell(name: str):
    doc = extract(REAL / name)
    assert doc.text == PUMPS, name
    assert doc.warnings == ()
    for line, cell in [("Comment on D1: Prices", "Pumps!D1:D1"),
                       ("Comment on D3: Quoted", "Pumps!D3:D3"),
                       ("Comment on C4: Row kept empty", "Pumps!C4:C4"),  # an empty row's
                       ("Comment on E5: Overdue", "Pumps!E5:E5"),
                       ("Comment on B2: Passed", "Log!B2:B2")]:
        start = doc.text.index(line)
        end = doc.text.index("\n", start) if "\n" in doc.text[start:] else len(doc.text)
        assert locate(doc, start, end).sheet_range == cell, line
        assert locate(doc, start + 20, end - 3).sheet_range == cell  # a piece of it too
    row = doc.text.index("P-102")
    assert locate(doc, row, doc.text.index("Comment on C4")).sheet_range == "Pumps!A3:E3"
    chunks = chunk_document(doc)  # a sheet's section holds its comments: nothing dropped
    assert [locate(doc, c.start, c.end).sheet_range for c in chunks] == ["Pumps!A1:E5",
                                                                         "Log!A1:B2"]
    assert all(c.context.startswith(doc.text[:doc.text.index("\n")]) for c in chunks[:1])


def test_calcs_three_formats_give_the_same_regions():
    docs = [extract(REAL / name) for name in CALC]
    assert docs[0].regions == docs[1].regions == docs[2].regions


def test_excels_notes_read_with_their_authors_once():
    """Excel starts every note with its author's name in a bold run (``Author:`` and a
    line break): the line names the author once. A note of two lines is one line; an
    empty note is none, and a sheet with nothing else is empty."""
    doc = extract(REAL / "excel-notes.xlsx")
    assert doc.text == ("Comment on B1 by Author: hello\n\n"
                        "Comment on C2 by Author: 1st line 2nd line\n\n"
                        "Comment on A1 by Author: Two t elements")
    assert doc.warnings == ("sheet 'Sheet4' is empty",)
    assert [(r.sheet, r.row, r.first_col) for r in doc.regions] == [
        ("Sheet1", 1, 2), ("Sheet2", 2, 3), ("Sheet3", 1, 1)]
    mac = extract(REAL / "excel-mac-notes.xlsx")
    assert mac.text == "Foo\n\nBar\nComment on B2 by Gunnlaugur Þór Briem: Note lives here"
    assert locate(mac, mac.text.index("Comment"), len(mac.text)).sheet_range == "Sheet2!B2:B2"


def test_a_sheet_holding_only_a_comment_is_indexed_not_refused_as_empty():
    doc = extract(REAL / "gdocs-notes.xlsx")  # Google Sheets: no author, no cell
    assert doc.text == "Comment on B1: Just a test"
    assert locate(doc, 0, len(doc.text)).sheet_range == "Sheet1!B1:B1"


@pytest.fixture(scope="module")
def pumps(index_of):  # type: ignore[no-untyped-def]
    idx, report = index_of({"pump-notes.xlsx": (REAL / "pump-notes.xlsx").read_bytes()})
    assert report.indexed == ["pump-notes.xlsx"]
    return idx


def _shown(ans) -> list[tuple[str, str | None]]:  # type: ignore[no-untyped-def]
    return [(sp.text, sp.locator.sheet_range) for sp in ans.spans]


def test_a_lookup_quotes_the_row_with_its_comments_and_no_other_rows(pumps):
    """The row's comment says what its cells do not; the empty row's comment under it
    (C4) is no comment of the row's."""
    ans = pumps.ask("How much higher is the 2024 list price of P-102?")
    assert not ans.refused, ans.answer
    assert _shown(ans) == [
        ("P-102 | Łódź Północ | 3 | 2250.5 | 2024-01-02", "Pumps!A3:E3"),
        ("Comment on D3: Quoted by the supplier in March; the 2024 list is 8% higher.",
         "Pumps!D3:D3")]


def test_what_a_rows_comment_says_is_no_column_the_sheet_lacks(pumps):
    """A lookup of a column the sheet does not have is refused by the columns; the words
    of the row's own comment are the row's, so a question they answer is not."""
    ans = pumps.ask("When was the impeller seal of P-104 replaced?")
    assert not ans.refused, ans.answer
    assert ("Comment on E5: Overdue: the impeller seal was replaced in the 2022 service.",
            "Pumps!E5:E5") in _shown(ans)
    refused = pumps.ask("What is the voltage of P-102?")  # neither a column nor a comment
    assert refused.refused and 'no column of its sheet holds "voltage"' in refused.answer


def test_a_code_only_a_comment_holds_is_answered_by_that_comment(pumps):
    ans = pumps.ask("Why is there no row for P-103?")
    assert not ans.refused, ans.answer
    assert _shown(ans) == [("Comment on C4: Row kept empty for P-103, scrapped after the flood.",
                            "Pumps!C4:C4")]


def test_a_comment_is_found_by_search_and_cites_its_cell(pumps):
    hits = pumps.search("who witnessed the pressure test", k=3).hits
    assert hits[0].locator.sheet_range == "Log!A1:B2"
    assert "witnessed by the harbour master" in hits[0].content


def test_excel_365s_threaded_comments_are_read_with_their_replies_once():
    """Excel 365 keeps a comment and its replies as a thread by persons of the workbook,
    and writes an older note in its place for older Excels (author ``tc={id}``): the
    thread is read, and its stand-in is not read again."""
    doc = extract(REAL / "threaded-notes.xlsx")
    assert doc.text == (
        "Key | Site | Units | Unit price\n"
        "P-201 | Quay North | 6 | 1320\n"
        "Comment on D2 by Ana Ruiz: Is this still the 2023 price? "
        "Reply by Ben Okafor: Yes, the supplier holds it until June.\n"
        "P-202 | Quay South | 2 | 2890\n"
        "Comment on A3 by Ana Ruiz: Spare unit kept in the workshop.\n"
        "Comment on B3 by Chen Wei: Moved here from Quay East in May.")
    start = doc.text.index("Comment on D2")
    assert locate(doc, start, doc.text.index("\n", start)).sheet_range == "Pumps!D2:D2"


def test_a_damaged_comments_part_costs_its_comments_not_the_rows(tmp_path: Path):
    """Calc's workbook with its first sheet's comments part cut off mid-element: the rows
    and the other sheet's comment are read, and a warning says what was left."""
    src = REAL / "pump-notes.xlsx"
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(damaged, "w") as out:
        for item in z.infolist():
            data = z.read(item)
            out.writestr(item, data[:len(data) // 2] if item.filename == "xl/comments1.xml"
                         else data)
    doc = extract(damaged)
    assert doc.text == "\n".join(line for line in PUMPS.split("\n")
                                 if not line.startswith("Comment on") or "B2" in line)
    assert len(doc.warnings) == 1
    assert doc.warnings[0].startswith("sheet 'Pumps': its comments cannot be read (")
    assert doc.warnings[0].endswith("); not indexed")
