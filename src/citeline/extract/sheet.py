"""Spreadsheets: XLSX (openpyxl, MIT, read-only streaming) and CSV/TSV (stdlib csv).

Canonical text: one line per non-empty row, its cells from the row's first to
its last non-empty column joined by `` | `` (an empty cell in between stays an
empty field, so positions are kept); sheets are separated by a blank line.
Each row is a ROW :class:`Region` carrying the sheet name, its 1-based sheet
row number, first and last column, and the sheet's header row (its first
non-empty row), and where each of its cells after the first begins (``cells``,
offsets in the row's line). The chunker makes one section per sheet, packs whole
rows, and puts the header line into every chunk's embedded text; the locator is
the exact A1 range of the rows a chunk holds (``Sheet1!A12:F20``; a CSV's sheet is
its file stem), and of the cells a piece of a row holds (a row cut because one
cell is over the budget, an answer's sentence inside one cell: ``Sheet1!E12``).

Row numbers are the spreadsheet's own (empty rows are skipped but still
counted), so ``Sheet1!A12`` is the cell a spreadsheet program shows. For CSV a
row is a record (a quoted field may span lines), which is what a spreadsheet
program shows when it opens the file. Cells are their stored values: a
formula's last computed value (what the file cached), dates in ISO 8601.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import openpyxl
from openpyxl.utils.exceptions import InvalidFileException

from citeline.chunk import CELL_SEP
from citeline.errors import ExtractionError
from citeline.extract import read_bytes, register
from citeline.extract.blocks import TextBuilder, check_package, not_a_package
from citeline.extract.text import decode_bytes
from citeline.types import Document, Region, RegionKind

# csv.Sniffer looks at this much of the file: a few hundred rows vote on the
# delimiter. Its regexes are superlinear (64 KiB took ~1 s, 16 KiB ~75 ms).
SNIFF_CHARS = 16 * 1024
CSV_DELIMITERS = ",;\t|"
# 15 significant digits round-trip every decimal a spreadsheet displays by default
# without showing binary noise (0.1 + 0.2 -> 0.3, not 0.30000000000000004).
FLOAT_DIGITS = 15


def cell_text(value: object) -> str:
    """A cell's value as the canonical text shows it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return f"{value:.{FLOAT_DIGITS}g}"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time(0) else value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return " ".join(str(value).split())  # one line per row: newlines inside a cell become spaces


def sheet_rows(
    builder: TextBuilder, sheet: str, rows: Iterable[tuple[int, Sequence[str]]]
) -> list[Region]:
    """Append ``(row number, cell texts)`` rows of one sheet; empty rows are skipped.

    Pure apart from the builder: the CSV and XLSX readers only differ in how
    they produce ``rows``.
    """
    regions: list[Region] = []
    header: str | None = None
    sep = "\n\n"  # a blank line before a new sheet, a newline between its rows
    for number, cells in rows:
        if cells and cells[0] and cells[-1]:  # the common, full row: no scan needed
            first, last = 0, len(cells) - 1
        else:
            filled = [i for i, c in enumerate(cells) if c]
            if not filled:
                continue
            first, last = filled[0], filled[-1]
        kept = cells[first : last + 1]
        line = CELL_SEP.join(kept)
        start, end = builder.add(line, sep=sep)
        sep = "\n"
        if header is None:
            header = line
        at, starts = 0, []
        for cell in kept[:-1]:
            at += len(cell) + len(CELL_SEP)
            starts.append(at)
        regions.append(
            Region(
                RegionKind.ROW, start, end, sheet=sheet, row=number,
                first_col=first + 1, last_col=last + 1, header=header, cells=tuple(starts),
            )
        )
    return regions


def _document(rel: str, title: str, media_type: str, name: str, version: str,
              builder: TextBuilder, regions: list[Region], warnings: list[str]) -> Document:
    if not regions:
        raise ExtractionError(rel, "no data: every sheet is empty")
    return Document(
        path=rel,
        title=title,
        text=builder.text(),
        media_type=media_type,
        extractor=name,
        extractor_version=version,
        regions=tuple(regions),
        warnings=tuple(warnings),
        headings="none",
    )


class XlsxExtractor:
    name = "xlsx"
    version = "5"  # 2: a formula with no saved result is indexed as its formula, with a
    # warning; 3: a formula's saved empty text result is an empty cell, not its formula;
    # 4: rows know where their cells begin (a piece of a row cites its own cells); 5: a
    # hidden sheet with rows is named in a warning (its citations point at a sheet the
    # spreadsheet program does not show); and the index reads a sheet's chunks with its
    # header row and its rows as sentences (citeline.chunk.bare_text), so a sheet indexed
    # before is stale
    suffixes = (".xlsx", ".xlsm")

    def extract(self, path: Path, rel: str) -> Document:
        if path.stat().st_size == 0:
            raise ExtractionError(rel, "empty file (0 bytes), not a workbook")
        if not zipfile.is_zipfile(path):
            raise ExtractionError(rel, not_a_package(path, ".xlsx workbook", ".xls"))
        check_package(path, rel, "workbook")
        try:
            wb = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
        except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, OSError,
                SyntaxError) as exc:  # SyntaxError: a part's XML is damaged (either parser)
            raise ExtractionError(rel, f"not a readable .xlsx workbook ({exc})") from exc
        builder = TextBuilder()
        regions: list[Region] = []
        warnings: list[str] = []
        formulas = None  # the same workbook read for its formulas, when a sheet has any
        try:
            with_formulas = _sheets_with_formulas(path)
            lost = [name for name in _listed_sheets(path) if name not in wb.sheetnames]
            if lost:  # openpyxl leaves out a sheet whose part is missing, as if it never was
                raise ExtractionError(rel, f"the workbook is damaged (sheet {lost[0]!r} is listed "
                                           "but its part is missing)")
            for ws in wb.worksheets:
                # Writers often store a wrong <dimension>; read what is really there.
                ws.reset_dimensions()
                rows = self._rows(ws)
                uncached: list[str] = []
                if getattr(ws, "_worksheet_path", None) in with_formulas:
                    if formulas is None:
                        formulas = openpyxl.load_workbook(str(path), read_only=True, data_only=False)
                    wf = formulas[ws.title]
                    wf.reset_dimensions()
                    saved = _saved_results(path, ws._worksheet_path)
                    rows = _with_formulas(rows, wf, saved, uncached)
                found = sheet_rows(builder, ws.title, rows)
                if not found:
                    warnings.append(f"sheet {ws.title!r} is empty")
                elif (state := getattr(ws, "sheet_state", "visible")) != "visible":
                    how = ("Unhide in a spreadsheet program shows it" if state == "hidden"
                           else "it is very hidden: only the VBA editor shows it")
                    warnings.append(f"sheet {ws.title!r} is hidden: its {len(found)} row(s) are "
                                    f"indexed and cited; {how}")
                if uncached:
                    warnings.append(
                        f"sheet {ws.title!r}: {len(uncached)} formula cell(s) have no saved result "
                        f"(e.g. {uncached[0]}); their formulas are indexed instead: open and save "
                        "the file in a spreadsheet program to index the values")
                regions.extend(found)
        except (KeyError, ValueError, zipfile.BadZipFile, SyntaxError) as exc:
            raise ExtractionError(rel, f"the workbook is damaged ({exc})") from exc
        finally:
            wb.close()
            if formulas is not None:
                formulas.close()
        return _document(rel, path.stem, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                         self.name, self.version, builder, regions, warnings)

    @staticmethod
    def _rows(ws) -> Iterator[tuple[int, list[str]]]:  # type: ignore[no-untyped-def]
        # values_only rows are filled from column A and for skipped rows, so the
        # running count is the sheet's own 1-based row number.
        for number, values in enumerate(ws.iter_rows(values_only=True), start=1):
            yield number, [cell_text(v) for v in values]


# A formula element in a worksheet's XML (``<f>`` or a prefixed ``<x:f ...>``).
_FORMULA = re.compile(rb"<(?:\w+:)?f[\s>/]")


def _sheets_with_formulas(path: Path) -> set[str]:
    """The workbook's worksheet parts (``xl/worksheets/sheet1.xml``) holding a formula;
    read in slices, so a large sheet of plain values costs one pass of decompression."""
    found: set[str] = set()
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if not (name.startswith("xl/worksheets/") and name.endswith(".xml")):
                continue
            with z.open(name) as fh:
                tail = b""
                while block := fh.read(1 << 20):
                    if _FORMULA.search(tail + block):
                        found.add(name)
                        break
                    tail = block[-16:]
    return found


def _listed_sheets(path: Path) -> list[str]:
    """The sheet names ``xl/workbook.xml`` lists (none if the part has another name)."""
    import xml.etree.ElementTree as ET

    with zipfile.ZipFile(path) as z:
        if "xl/workbook.xml" not in z.namelist():
            return []
        root = ET.fromstring(z.read("xl/workbook.xml"))
    return [el.get("name", "") for el in root.iter() if el.tag.rpartition("}")[2] == "sheet"]


def _saved_results(path: Path, part: str) -> set[tuple[int, int]]:
    """(row, column), 1-based, of the formula cells of worksheet ``part`` that hold a
    saved result, even an empty one: ``=IF(B2>5,"big","")`` saved by Excel as
    ``<c t="str"><f>..</f><v/></c>`` is an empty cell, not a formula left uncalculated
    (openpyxl reads both as None)."""
    import xml.etree.ElementTree as ET

    found: set[tuple[int, int]] = set()
    row_number = 0
    with zipfile.ZipFile(path) as z, z.open(part.lstrip("/")) as fh:
        for _, el in ET.iterparse(fh):
            if el.tag.rpartition("}")[2] != "row":
                continue
            row_number = int(el.get("r") or row_number + 1)
            col = 0
            for c in el:
                ref = c.get("r")
                col = _column_number(ref) if ref else col + 1
                kids = {child.tag.rpartition("}")[2]: child for child in c}
                v = kids.get("v")
                # a result typed as a string may be empty; an untyped empty <v></v> is
                # what a library that does not calculate (openpyxl) writes
                if "f" in kids and v is not None and (v.text or c.get("t") == "str"):
                    found.add((row_number, col))
            el.clear()
    return found


def _column_number(ref: str) -> int:
    """The 1-based column of an A1 reference (``"AB12"`` is 28)."""
    n = 0
    for ch in ref:
        if not ch.isalpha():
            break
        n = n * 26 + ord(ch.upper()) - 64
    return n


def _with_formulas(rows: Iterator[tuple[int, list[str]]], formulas,  # type: ignore[no-untyped-def]
                   saved: set[tuple[int, int]],
                   uncached: list[str]) -> Iterator[tuple[int, list[str]]]:
    """``rows`` with each formula cell that has no saved result (a file written by a
    library that does not calculate) shown as its formula; ``saved``: the cells that
    have one (see :func:`_saved_results`); ``uncached`` collects the others' A1
    references and formulas, for the warning."""
    from citeline.chunk import column_letter

    for (number, cells), raw in zip(rows, formulas.iter_rows(values_only=True), strict=False):
        for col, value in enumerate(raw):
            if isinstance(value, str) and value.startswith("=") and \
                    (number, col + 1) not in saved and (col >= len(cells) or not cells[col]):
                cells.extend([""] * (col + 1 - len(cells)))  # a row may end before it
                cells[col] = cell_text(value)
                uncached.append(f"{column_letter(col + 1)}{number} {value}")
        yield number, cells


# Excel's first-line delimiter declaration ("sep=;"), which Excel does not show as a row.
_SEP_LINE = re.compile(r"sep=(.)[ \t]*\r?\n", re.I)


def _excel_with(delimiter: str, skipinitialspace: bool = False) -> type[csv.Dialect]:
    """The spreadsheet dialect (``"`` quotes, doubled inside a field) with this delimiter."""
    return type("Sniffed", (csv.excel,), {"delimiter": delimiter,
                                          "skipinitialspace": skipinitialspace})


class CsvExtractor:
    name = "csv"
    version = "6"  # 2: Excel's "sep=" line is no row; fields are quoted with '"' only; 3: a
    # NUL anywhere is binary (only the first 8,192 characters were looked at); 4: rows know
    # where their cells begin (a piece of a row cites its own cells); 5: UTF-16 and UTF-32
    # with a byte-order mark are read (Excel's "Unicode Text", PowerShell's Out-File); and
    # the index reads a sheet's chunks with its header row (as the xlsx extractor's 5); 6: a
    # file that is not UTF-8 is read as Windows-1252 when it is Western European text
    suffixes = (".csv", ".tsv")

    def extract(self, path: Path, rel: str) -> Document:
        data = read_bytes(path, rel, empty="empty file (no rows to index)")
        # as a text file is read (Excel's "CSV (Comma delimited)" is in Windows' legacy
        # encoding): its line ends kept, for the records' quoted line breaks
        text, warning = decode_bytes(rel, data, western=True, kind="CSV")
        dialect = self._dialect(path, text)
        if m := _SEP_LINE.match(text):  # Excel's "sep=;" line: the delimiter, not a row
            text = text[m.end():]
            dialect = _excel_with(m.group(1))
        builder = TextBuilder()
        try:
            reader = csv.reader(io.StringIO(text, newline=""), dialect)
            rows = ((n, [" ".join(c.split()) for c in rec]) for n, rec in enumerate(reader, start=1))
            regions = sheet_rows(builder, path.stem, rows)
        except csv.Error as exc:
            raise ExtractionError(rel, f"malformed CSV ({exc})") from exc
        return _document(rel, path.stem, "text/csv", self.name, self.version, builder, regions,
                         [warning] if warning else [])

    @staticmethod
    def _dialect(path: Path, text: str) -> type[csv.Dialect] | csv.Dialect:
        if path.suffix.lower() == ".tsv":
            return csv.excel_tab
        sample = text[:SNIFF_CHARS]
        if len(text) > SNIFF_CHARS and "\n" in sample:  # whole records only
            sample = sample[: sample.rfind("\n") + 1]
        try:
            sniffed = csv.Sniffer().sniff(sample, delimiters=CSV_DELIMITERS)
        except csv.Error:  # one column, or too irregular to vote: the standard comma
            return csv.excel
        # Only the delimiter is the Sniffer's to say: its quote guesses take an
        # apostrophe for a quote ("'quoted' remark"), and spreadsheets quote with '"'.
        return _excel_with(sniffed.delimiter, sniffed.skipinitialspace)


register(XlsxExtractor())
register(CsvExtractor())
