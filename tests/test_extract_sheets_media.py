"""Spreadsheet and transcript extraction: inputs built here, read by the extractors."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.chunk import locate
from citeline.errors import ExtractionError
from citeline.extract.sheet import CsvExtractor


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_csv_in_utf16_or_utf32_with_a_bom_is_read(tmp_path: Path, encoding: str):
    # Excel's "Unicode Text" and Windows PowerShell's Out-File write UTF-16 with a BOM;
    # such a CSV failed as "not valid UTF-8 (undecodable byte at offset 0)"
    text = "code\tmeaning\nE1042\tpump pressure low, café\n\nE1043\t\"two\nlines\"\n"
    bom = {"utf-16-be": b"\xfe\xff"}.get(encoding, b"")
    path = tmp_path / "codes.tsv"
    path.write_bytes(bom + text.encode(encoding))
    doc = CsvExtractor().extract(path, "codes.tsv")
    assert doc.text == "code | meaning\nE1042 | pump pressure low, café\nE1043 | two lines"
    assert [r.row for r in doc.regions] == [1, 2, 4]
    last = doc.regions[-1]
    assert locate(doc, last.start, last.end).sheet_range == "codes!A4:B4"


def test_csv_bad_utf16_names_the_file_and_offset(tmp_path: Path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"\xff\xfea\x00,\x00\x00\xd8")  # a lone high surrogate at the end
    with pytest.raises(ExtractionError) as err:
        CsvExtractor().extract(path, "bad.csv")
    assert err.value.path == "bad.csv"
    assert err.value.reason.startswith("not valid UTF-16 after its byte-order mark (undecodable byte")


def test_xlsx_hidden_sheet_is_indexed_and_named_in_a_warning(tmp_path: Path):
    # a citation 'Lookup'!B2 pointed at a sheet the workbook does not show, with no word why
    import openpyxl

    from citeline.extract.sheet import XlsxExtractor

    wb = openpyxl.Workbook()
    wb.active.title = "Codes"
    wb.active["A1"] = "E1042"
    hidden = wb.create_sheet("Lookup")
    hidden["B2"] = "secret rate"
    hidden.sheet_state = "hidden"
    very = wb.create_sheet("Cfg")
    very["A1"] = "key"
    very.sheet_state = "veryHidden"
    empty = wb.create_sheet("Gone")
    empty.sheet_state = "hidden"
    wb.save(tmp_path / "book.xlsx")
    doc = XlsxExtractor().extract(tmp_path / "book.xlsx", "book.xlsx")
    lookup = next(r for r in doc.regions if r.sheet == "Lookup")
    assert locate(doc, lookup.start, lookup.end).sheet_range == "Lookup!B2:B2"
    assert doc.warnings == (
        "sheet 'Lookup' is hidden: its 1 row(s) are indexed and cited; Unhide in a "
        "spreadsheet program shows it",
        "sheet 'Cfg' is hidden: its 1 row(s) are indexed and cited; it is very hidden: "
        "only the VBA editor shows it",
        "sheet 'Gone' is empty",
    )
