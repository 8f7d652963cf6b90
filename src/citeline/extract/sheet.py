"""Spreadsheets: XLSX (openpyxl, MIT, read-only streaming), ODS (lxml, BSD, streaming
content.xml) and CSV/TSV (stdlib csv).

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

An .ods (OpenDocument, LibreOffice Calc's own format) gives the rows an .xlsx with the
same cells gives (both readers hand :func:`workbook_document` a :class:`Sheet` each),
so its text, regions and citations are the same: a number, percentage or currency is
its value, not its display (``0.25``, not ``25%``); dates, times and booleans read as
openpyxl reads them; a cell of several paragraphs is a multi-line cell; a cell merged
away (``table:covered-table-cell``) is empty; a formula is its saved result. Runs of
identical rows or cells are stored once with a count: empty runs (LibreOffice ends
every sheet with an empty row repeated to row 1,048,576) are counted, never expanded,
and runs with content are bounded by :data:`MAX_REPEATED_CELLS`. A sheet hidden by its
table style (``table:display="false"``) is indexed with a warning, as an .xlsx's. A flat
``.fods`` (one XML file, LibreOffice's "Flat XML") is read as its package's content.xml
is, and a template ``.ots`` as an .ods: the same cells give the same document.
A cell's comment is a line under its row (:func:`note_line`: Excel's note, Excel 365's
threaded comment with its replies, Calc's ``office:annotation``), a ROW region of its one
cell, so its citation is that cell; so is each paragraph OCR reads in a picture anchored at
a cell (a screenshot pasted beside the rows), ``Picture at E3: ...``, and each of a text
box's (``Text box at E2: ...``), and what a chart says of itself (``Chart at E2: ...``).
A picture's and a chart's alt text (what a reader who cannot see it gets) is such a line
too, before the picture's text and after the chart's; none when it says nothing (a file
name, ``Picture 1``, Microsoft 365's own description) or the drawing is marked
decorative. A picture placed in a cell (Excel 365's "Place in Cell", a rich value
that Excel stores as ``#VALUE!`` for older readers) is that cell's alt text, and its
text a ``Picture at C2: ...`` line under the row; a data type (a stock, a place) is the
name the cell shows (:func:`_rich_values`). Neither reader indexes a drawing placed on
the page at no cell.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import heapq
import io
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import openpyxl
from lxml import etree
from openpyxl.utils.exceptions import InvalidFileException

from citeline.chunk import CELL_SEP, DRAWN_LINE, NOTE_LINE
from citeline.errors import ExtractionError
from citeline.extract import Extractor, read_bytes, register
from citeline.extract.blocks import (
    MAX_UNPACKED,
    TextBuilder,
    check_package,
    described,
    not_a_package,
)
from citeline.extract.drawingml import chart_text, decorative, drawing_alt
from citeline.extract.image import PictureReader
from citeline.extract.opendocument import (
    FramePictures,
    check_odf,
    flat_xml,
    is_flat,
    untrusted_parser,
)
from citeline.extract.text import decode_bytes
from citeline.types import Document, Region, RegionKind

# csv.Sniffer looks at this much of the file: a few hundred rows vote on the
# delimiter. Its regexes are superlinear (64 KiB took ~1 s, 16 KiB ~75 ms).
SNIFF_CHARS = 16 * 1024
CSV_DELIMITERS = ",;\t|"
XLSX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
# 15 significant digits round-trip every decimal a spreadsheet displays by default
# without showing binary noise (0.1 + 0.2 -> 0.3, not 0.30000000000000004).
FLOAT_DIGITS = 15
MAX_ROWS = 1_048_576  # the last row a spreadsheet program opens


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
    builder: TextBuilder, sheet: str, rows: Iterable[tuple[int, Sequence[str]]],
    notes: dict[tuple[int, ...], Note] | None = None,
) -> list[Region]:
    """Append ``(row number, cell texts)`` rows of one sheet; empty rows are skipped.
    Each of ``notes`` (the cells' comments, keyed by row and column, and the text of the
    pictures anchored at a cell, keyed by row, column and their order; a reader may fill
    it while ``rows`` are read) is a line of its own right after its cell's row
    (:func:`note_lines`), in the sheet's order, a ROW region of its one cell, so that its
    citation is that cell (``Sheet1!C5``); one on a cell of an empty row has the line
    the row would have had.

    Pure apart from the builder: the CSV and XLSX readers only differ in how
    they produce ``rows``.
    """
    regions: list[Region] = []
    header: str | None = None
    sep = "\n\n"  # a blank line before a new sheet, a newline between its rows
    notes = notes if notes is not None else {}
    due: list[tuple[int, ...]] = []  # a heap of the keys of ``notes`` not yet written
    queued: set[tuple[int, ...]] = set()

    def add_notes(before: int) -> None:
        nonlocal sep
        if len(notes) > len(queued):  # the reader has added some
            for key in notes.keys() - queued:
                heapq.heappush(due, key)
                queued.add(key)
        while due and due[0][0] < before:
            key = heapq.heappop(due)
            queued.discard(key)
            note = notes.pop(key)
            for line in note_lines(note):
                start, end = builder.add(line, sep=sep)
                sep = "\n"
                regions.append(Region(RegionKind.ROW, start, end, sheet=sheet, row=note.row,
                                      first_col=note.col, last_col=note.col, header=header))

    for number, cells in rows:
        add_notes(number)  # those of empty rows above this one
        if cells and cells[0] and cells[-1]:  # the common, full row: no scan needed
            first, last = 0, len(cells) - 1
        else:
            filled = [i for i, c in enumerate(cells) if c]
            if not filled:
                add_notes(number + 1)
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
        add_notes(number + 1)
    add_notes(MAX_ROWS + 1)
    return regions


@dataclass(frozen=True)
class Note:
    """A cell's comment (Excel's note, Calc's comment): its 1-based row and column, its
    text as written, and who wrote it ("" when the file does not say); or the text of a
    picture anchored at the cell (``kind="picture"``)."""

    row: int
    col: int
    text: str
    author: str = ""
    replies: tuple[tuple[str, str], ...] = ()  # (author, text) of each reply, in order
    # "picture": the text OCR read in a picture anchored at the cell; "text box": a text
    # box's (or a shape's) paragraphs, one a line; "chart": what a chart says of itself,
    # one line (none has an author)
    kind: Literal["comment", "picture", "text box", "chart"] = "comment"


def note_lines(note: Note) -> list[str]:
    """A comment's line (:func:`note_line`), or a drawing's: a line for each paragraph
    OCR read in a picture, or of a text box's text, each naming the cell it is anchored
    at.

    >>> note_lines(Note(3, 5, "Ferry notice\\n\\nClosed on\\nSundays.", kind="picture"))
    ['Picture at E3: Ferry notice', 'Picture at E3: Closed on Sundays.']
    >>> note_lines(Note(2, 5, "How to\\nEnter the units.", kind="text box"))
    ['Text box at E2: How to', 'Text box at E2: Enter the units.']
    """
    from citeline.chunk import column_letter

    if note.kind == "comment":
        return [line] if (line := note_line(note)) else []
    at = f"{note.kind.capitalize()} at {column_letter(note.col)}{note.row}: "
    paragraphs = (re.split(r"\n\s*\n", note.text) if note.kind == "picture"
                  else note.text.split("\n") if note.kind == "text box" else [note.text])
    lines = [at + " ".join(para.split()) for para in paragraphs if para.strip()]
    assert all(DRAWN_LINE.match(line) for line in lines), lines
    return lines


def note_line(note: Note) -> str:
    """A comment as the canonical text shows it: one line naming its cell and author,
    then its replies.
    Excel starts a note's text with its author's name and a colon on a line of their
    own (the bold first line its editor shows); that prefix is not said twice. An empty
    comment is no line.

    >>> note_line(Note(5, 3, "Author:\\nchecked against\\nthe 2024 list", "Author"))
    'Comment on C5 by Author: checked against the 2024 list'
    >>> note_line(Note(1, 2, "Just a test"))
    'Comment on B1: Just a test'

    An Excel 365 comment's replies follow it, each naming its author:

    >>> note_line(Note(2, 4, "Still the 2023 price?", "Ana", (("Ben", "Yes."), ("", "Ok"))))
    'Comment on D2 by Ana: Still the 2023 price? Reply by Ben: Yes. Reply: Ok'
    """
    from citeline.chunk import column_letter

    text = note.text
    author = " ".join(note.author.split())
    if author and text.lstrip().startswith(f"{note.author}:"):
        text = text.lstrip()[len(note.author) + 1:]
    text = " ".join(text.split())
    if not text:
        return ""
    by = f" by {author}" if author else ""
    line = f"Comment on {column_letter(note.col)}{note.row}{by}: {text}"
    for who, said in note.replies:
        if said := " ".join(said.split()):
            line += f" Reply{' by ' + ' '.join(who.split()) if who.strip() else ''}: {said}"
    assert NOTE_LINE.match(line), line  # what the gate and the answer take for a comment
    return line


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


# What a reader says of a sheet's visibility: Excel's three states (an .ods has the first two).
SheetState = Literal["visible", "hidden", "veryHidden"]


@dataclass
class Sheet:
    """One sheet as a workbook reader hands it to :func:`workbook_document`: ``rows`` are
    read lazily, while the sheet is built, and fill ``uncached`` as they go."""

    name: str
    rows: Iterable[tuple[int, Sequence[str]]]
    state: SheetState = "visible"
    # formula cells with no saved result, indexed as their formulas: "B5 =SUM(B2:B3)"
    uncached: list[str] = field(default_factory=list)
    # the cells' comments by (row, column), 1-based, and the pictures' text by (row,
    # column, order); a reader may fill it as rows are read
    notes: dict[tuple[int, ...], Note] = field(default_factory=dict)


def workbook_document(rel: str, title: str, media_type: str, extractor: Extractor,
                      sheets: Iterable[Sheet], pictures: PictureReader | None = None) -> Document:
    """The Document of a workbook's ``sheets``, in order: their rows (:func:`sheet_rows`),
    and a warning for each sheet that is empty, hidden or has formulas with no saved
    result, then what ``pictures`` (the reader of the pictures the sheets show) did not
    read. The XLSX and ODS readers differ only in how they produce the sheets."""
    builder = TextBuilder()
    regions: list[Region] = []
    warnings: list[str] = []
    for sheet in sheets:
        found = sheet_rows(builder, sheet.name, sheet.rows, sheet.notes)
        if not found:
            warnings.append(f"sheet {sheet.name!r} is empty")
        elif sheet.state != "visible":
            how = ("Unhide in a spreadsheet program shows it" if sheet.state == "hidden"
                   else "it is very hidden: only the VBA editor shows it")
            warnings.append(f"sheet {sheet.name!r} is hidden: its {len(found)} row(s) are "
                            f"indexed and cited; {how}")
        if sheet.uncached:
            warnings.append(
                f"sheet {sheet.name!r}: {len(sheet.uncached)} formula cell(s) have no saved result "
                f"(e.g. {sheet.uncached[0]}); their formulas are indexed instead: open and save "
                "the file in a spreadsheet program to index the values")
        regions.extend(found)
    if pictures is not None:  # what it did not read, said once
        pictures.close()
        warnings.extend(pictures.warnings)
    return _document(rel, title, media_type, extractor.name, extractor.version, builder,
                     regions, warnings)


class XlsxExtractor:
    name = "xlsx"
    version = "11"  # 2: a formula with no saved result is indexed as its formula, with a
    # warning; 3: a formula's saved empty text result is an empty cell, not its formula;
    # 4: rows know where their cells begin (a piece of a row cites its own cells); 5: a
    # hidden sheet with rows is named in a warning (its citations point at a sheet the
    # spreadsheet program does not show); and the index reads a sheet's chunks with its
    # header row and its rows as sentences (citeline.chunk.bare_text), so a sheet indexed
    # before is stale; 6: the cells' comments (notes), each a line under its row; 7: the
    # text of the pictures anchored at a cell, by OCR, lines under its row; 8: and of the
    # text boxes and shapes anchored at one; 9: a chart's title, kind, series and axes;
    # 10: a picture's and a chart's alt text; 11: Excel 365's pictures placed in a cell
    # (the cell its alt text, the picture's text a line under the row) and data types,
    # read as what they show, not as the "#VALUE!" stored for older readers
    suffixes = (".xlsx", ".xlsm", ".xltx", ".xltm")  # a template read as its workbook

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
        opened = [wb]  # and the same workbook read for its formulas, when a sheet has any
        pictures = PictureReader([])
        try:
            return workbook_document(rel, path.stem, XLSX_MEDIA_TYPE, self,
                                     self._sheets(path, rel, wb, opened, pictures), pictures)
        except (KeyError, ValueError, zipfile.BadZipFile, SyntaxError) as exc:
            raise ExtractionError(rel, f"the workbook is damaged ({exc})") from exc
        finally:
            for book in opened:
                book.close()

    @staticmethod
    def _sheets(path: Path, rel: str, wb, opened: list,  # type: ignore[no-untyped-def]
                pictures: PictureReader) -> Iterator[Sheet]:
        with_formulas = _sheets_with_formulas(path)
        lost = [name for name in _listed_sheets(path) if name not in wb.sheetnames]
        if lost:  # openpyxl leaves out a sheet whose part is missing, as if it never was
            raise ExtractionError(rel, f"the workbook is damaged (sheet {lost[0]!r} is listed "
                                       "but its part is missing)")
        formulas = None
        rich: dict[int, RichValue] | None = None  # the workbook's, read at its first sheet
        for ws in wb.worksheets:
            # Writers often store a wrong <dimension>; read what is really there.
            ws.reset_dimensions()
            rows = XlsxExtractor._rows(ws)
            uncached: list[str] = []
            if getattr(ws, "_worksheet_path", None) in with_formulas:
                if formulas is None:
                    formulas = openpyxl.load_workbook(str(path), read_only=True, data_only=False)
                    opened.append(formulas)
                wf = formulas[ws.title]
                wf.reset_dimensions()
                saved = _saved_results(path, ws._worksheet_path)
                rows = _with_formulas(rows, wf, saved, uncached)
            part = getattr(ws, "_worksheet_path", None)
            notes = _xlsx_extras(path, part, ws.title, pictures) if part else {}
            if rich is None:
                rich = _read_rich_values(path, pictures.warnings)
            if rich and part:
                held = _cell_pictures(path, part, ws.title, rich, pictures, notes)
                rows = _with_rich_values(rows, held)
            yield Sheet(ws.title, rows, getattr(ws, "sheet_state", "visible"), uncached, notes)

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
    found: set[tuple[int, int]] = set()
    with zipfile.ZipFile(path) as z, z.open(part.lstrip("/")) as fh:
        for row_number, col, c in _sheet_cells(fh):
            kids = {child.tag.rpartition("}")[2]: child for child in c}
            v = kids.get("v")
            # a result typed as a string may be empty; an untyped empty <v></v> is
            # what a library that does not calculate (openpyxl) writes
            if "f" in kids and v is not None and (v.text or c.get("t") == "str"):
                found.add((row_number, col))
    return found


def _sheet_cells(fh: IO[bytes]) -> Iterator[tuple[int, int, Any]]:
    """(row, column, element), 1-based, of each cell of a worksheet part read from
    ``fh``, streamed: a row's elements are let go once its cells are yielded."""
    import xml.etree.ElementTree as ET

    row_number = 0
    for _, el in ET.iterparse(fh):
        if el.tag.rpartition("}")[2] != "row":
            continue
        row_number = int(el.get("r") or row_number + 1)
        col = 0
        for c in el:
            ref = c.get("r")
            col = _column_number(ref) if ref else col + 1
            yield row_number, col, c
        el.clear()


_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_THREADED = "{http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments}"
_XDR = "{http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_CHART = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
_CELL_REF = re.compile(r"\$?([A-Za-z]{1,3})\$?([1-9][0-9]{0,6})")
# What Excel 365 writes as the older note of a threaded comment, for older Excels: its
# author "tc={the thread's id}", its text this preamble and the thread (or nothing)
_THREAD_PREAMBLE = re.compile(r"\[Threaded comment\].*?Learn more: \S+\s*", re.S)


def _xlsx_extras(path: Path, part: str, sheet: str,
                 pictures: PictureReader) -> dict[tuple[int, ...], Note]:
    """Worksheet ``part``'s comments (:func:`_xlsx_notes`) and drawings' text
    (:func:`_xlsx_drawings`); a part of them that cannot be read costs what it holds, said
    in a warning (``pictures``'), not the sheet's rows."""
    notes: dict[tuple[int, ...], Note] = {}
    with zipfile.ZipFile(path) as z:  # opened, and the sheet's relationships read, once
        names = set(z.namelist())
        related = _related(z, names, part.lstrip("/"))
        for what in ("comments", "drawings"):
            try:
                notes.update(_xlsx_notes(z, names, related) if what == "comments"
                             else _xlsx_drawings(z, names, related, pictures))
            except (SyntaxError, ValueError, KeyError, zipfile.BadZipFile, zlib.error,
                    EOFError) as exc:  # SyntaxError: lxml's XMLSyntaxError
                pictures.warnings.append(f"sheet {sheet!r}: its {what} cannot be read "
                                         f"({exc}); not indexed")
    return notes


def _xlsx_notes(z: zipfile.ZipFile, names: set[str],
                related: dict[str, list[str]]) -> dict[tuple[int, int], Note]:
    """The comments of a worksheet, by (row, column), from the parts its relationships
    name (``related``, :func:`_related`; ``z`` the package, ``names`` its parts): its
    comments (ECMA-376 Part 1, 18.7: each ``comment``'s ``ref`` cell, its author from the
    part's list, its runs' text, not a run's phonetic guide ``rPh``), and Excel 365's
    threaded comments ([MS-XLSX] 2.6.205: a comment and its replies, each by a person of
    the workbook's person list), which stand for the older note Excel writes beside each
    thread."""
    notes: dict[tuple[int, int], Note] = {}
    for where in related.get("comments", []):
        root = _xml(z.read(where))
        authors = [a.text or "" for a in root.iter(_MAIN + "author")]
        for c in root.iter(_MAIN + "comment"):
            if (cell := _cell(c.get("ref", ""))) is None:
                continue
            text = "".join(t.text or "" for t in c.iter(_MAIN + "t")
                           if t.getparent() is None or t.getparent().tag != _MAIN + "rPh")
            who = int(c.get("authorId") or 0)
            author = authors[who] if 0 <= who < len(authors) else ""
            if author.startswith("tc="):  # a thread's stand-in: the thread is read below
                author, text = "", _THREAD_PREAMBLE.sub("", text)
            notes[cell] = Note(*cell, text, author)
    threads = related.get("threadedComment", [])
    if not threads:
        return notes
    people = {p.get("id"): p.get("displayName") or ""
              for where in _related(z, names, "xl/workbook.xml").get("person", [])
              for p in _xml(z.read(where)).iter(_THREADED + "person")}
    for where in threads:
        said: dict[tuple[int, int], list[tuple[str, str]]] = {}
        for c in _xml(z.read(where)).iter(_THREADED + "threadedComment"):
            if (cell := _cell(c.get("ref", ""))) is not None:
                said.setdefault(cell, []).append(
                    (people.get(c.get("personId"), ""), c.findtext(_THREADED + "text") or ""))
        for cell, ((author, text), *replies) in said.items():
            notes[cell] = Note(*cell, text, author, tuple(replies))
    return notes


def _xlsx_drawings(z: zipfile.ZipFile, names: set[str], related: dict[str, list[str]],
                   reader: PictureReader) -> dict[tuple[int, ...], Note]:
    """The text of the drawings a worksheet shows (its relationships ``related`` name its
    drawing parts; ``z`` the package, ``names`` its parts), by (row, column, order) of the
    cell each is anchored at: its drawing part's anchors (ECMA-376 Part 1, 20.5), a
    two-cell or one-cell anchor's ``from`` cell; in it (a group's too) a text box's or a
    shape's paragraphs (``txBody``), and each picture read by ``reader`` as a Word
    document's pictures are, after its alt text. A drawing placed by its position on the
    page (an absolute anchor) is at no cell, and a linked picture is not in the file:
    neither is read. A chart is read for what it says of itself (:func:`chart_text`),
    then its alt text."""
    out: dict[tuple[int, ...], Note] = {}
    for drawing in related.get("drawing", []):
        embedded = {rid: where for rid, _, where in _rels(z, names, drawing)}
        for anchor in _xml(z.read(drawing)):
            if anchor.tag not in (_XDR + "twoCellAnchor", _XDR + "oneCellAnchor"):
                continue
            try:
                at = anchor.find(_XDR + "from")
                row = int(at.findtext(_XDR + "row", "")) + 1  # type: ignore[union-attr]
                col = int(at.findtext(_XDR + "col", "")) + 1  # type: ignore[union-attr]
            except (AttributeError, ValueError):  # no cell: a damaged anchor
                reader.damaged(f"a picture's anchor in {drawing} names no cell")
                continue
            for body in anchor.iter(_XDR + "txBody"):  # a text box's, a shape's
                paragraphs = ["".join(t.text or "" if t.tag == _A + "t" else " "
                                      for t in p.iter(_A + "t", _A + "br"))
                              for p in body.iter(_A + "p")]
                if text := "\n".join(p for p in paragraphs if p.strip()):
                    out[row, col, len(out)] = Note(row, col, text, kind="text box")
            for blip in anchor.iter(_A + "blip"):
                if decorative(props := _props(blip, "pic")):
                    continue  # nothing to read
                if alt := drawing_alt(props):
                    out[row, col, len(out)] = Note(row, col, alt, kind="picture")
                if (where := embedded.get(blip.get(_R + "embed", ""))) is None:
                    continue  # linked from outside the file (r:link), or missing
                if text := reader.text(z.read(where), where):
                    out[row, col, len(out)] = Note(row, col, text, kind="picture")
            for chart in anchor.iter(_CHART + "chart"):
                if (where := embedded.get(chart.get(_R + "id", ""))) is not None and \
                        (text := chart_text(_xml(z.read(where)))):
                    out[row, col, len(out)] = Note(row, col, text, kind="chart")
                if alt := drawing_alt(_props(chart, "graphicFrame")):
                    out[row, col, len(out)] = Note(row, col, alt, kind="chart")
    return out


def _props(el: Any, drawing: str) -> Any:
    """The non-visual properties (``xdr:cNvPr``: its alt text, whether it is decorative)
    of the drawing ``el`` is in: the ``xdr:pic`` of a picture's ``a:blip``, the
    ``xdr:graphicFrame`` of a chart; None outside one."""
    found = next(el.iterancestors(_XDR + drawing), None)
    return next(found.iter(_XDR + "cNvPr"), None) if found is not None else None


def _related(z: zipfile.ZipFile, names: set[str], part: str) -> dict[str, list[str]]:
    """The parts ``part``'s relationships name, by the last word of their type
    (``comments``, ``threadedComment``, ``person``, ``drawing``), each as a name in the
    package."""
    out: dict[str, list[str]] = {}
    for _, kind, where in _rels(z, names, part):
        out.setdefault(kind.rpartition("/")[2], []).append(where)
    return out


def _rels(z: zipfile.ZipFile, names: set[str], part: str) -> list[tuple[str, str, str]]:
    """(id, type, part) of each relationship of ``part`` to a part of the package."""
    import posixpath

    folder, name = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", name + ".rels")
    if rels not in names:
        return []
    out = []
    for rel in _xml(z.read(rels)):
        target = rel.get("Target", "")
        where = (target.lstrip("/") if target.startswith("/")
                 else posixpath.normpath(posixpath.join(folder, target)))
        if rel.tag == _RELS + "Relationship" and rel.get("TargetMode") != "External" \
                and where in names:
            out.append((rel.get("Id", ""), rel.get("Type", ""), where))
    return out


def _xml(data: bytes) -> Any:
    """A package part's XML, parsed as untrusted input (:func:`untrusted_parser`)."""
    return etree.fromstring(data, untrusted_parser())


def _cell(ref: str) -> tuple[int, int] | None:
    """(row, column), 1-based, of an A1 cell reference; None for anything else."""
    m = _CELL_REF.fullmatch(ref)
    return (int(m.group(2)), _column_number(m.group(1))) if m else None


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


# --- Excel 365's rich values: pictures placed in a cell, data types ---------------------

_RICHDATA = "{http://schemas.microsoft.com/office/spreadsheetml/2017/richdata}"
_RICHVALUEREL = "{http://schemas.microsoft.com/office/spreadsheetml/2022/richvaluerel}"
# A rich value's keys ([MS-XLSX] 2.3.6): the picture a cell holds (an index into the
# workbook's list of rich value relationships), its alt text, a data type's shown text
_PICTURE_KEY, _ALT_KEY, _DISPLAY_KEY = "_rvRel:LocalImageIdentifier", "Text", "_DisplayString"
# A picture's CalcOrigin when its author marked it decorative (5: placed in the cell)
_DECORATIVE_ORIGIN = "6"


@dataclass(frozen=True)
class RichValue:
    """What an Excel 365 cell holding a rich value shows: a picture placed in the cell
    (``picture``: its part in the package) and its alt text, or a data type (a stock, a
    place) by its shown name; ``text`` is what the cell reads as."""

    text: str
    picture: str | None = None


def _rich_values(z: zipfile.ZipFile, names: set[str]) -> dict[int, RichValue]:
    """The workbook's rich values by the ``vm`` a cell names them with ([MS-XLSX] 2.6:
    the value metadata's ``vm``-th block names a type, XLRICHVALUE, and a block of that
    type's future metadata, whose ``rvb`` is the rich value; the rich value's structure
    names its keys, and a picture's key indexes the rich value relationships). A
    workbook with none (all but Excel 365's, and those with no picture in a cell or data
    type) gives {}. Excel stores each such cell as the error ``#VALUE!`` for older
    readers, openpyxl's reading; the cell reads as this instead."""
    office = _related(z, names, "").get("officeDocument", [])
    if not office:
        return {}
    parts = {kind: where[0] for kind, where in _related(z, names, office[0]).items()}
    if not {"sheetMetadata", "rdRichValue", "rdRichValueStructure"} <= parts.keys():
        return {}
    meta = _xml(z.read(parts["sheetMetadata"]))
    types = [t.get("name", "") for t in meta.iter(_MAIN + "metadataType")]
    future = {f.get("name", ""): [int(rvb.get("i", "-1")) for bk in f.iter(_MAIN + "bk")
                                  for rvb in bk.iter(_RICHDATA + "rvb")]
              for f in meta.iter(_MAIN + "futureMetadata")}
    structures = [[k.get("n", "") for k in st.iter(_RICHDATA + "k")]
                  for st in _xml(z.read(parts["rdRichValueStructure"]))
                  .iter(_RICHDATA + "s")]
    rels: list[str | None] = []
    if "richValueRel" in parts:
        targets = {rid: where for rid, _, where in _rels(z, names, parts["richValueRel"])}
        rels = [targets.get(rel.get(_R + "id", "")) for rel in
                _xml(z.read(parts["richValueRel"])).iter(_RICHVALUEREL + "rel")]
    values: list[RichValue] = []
    for rv in _xml(z.read(parts["rdRichValue"])).iter(_RICHDATA + "rv"):
        s_index = int(rv.get("s", "0"))
        keys = structures[s_index] if 0 <= s_index < len(structures) else []
        said = dict(zip(keys, (v.text or "" for v in rv.iter(_RICHDATA + "v")), strict=False))
        if said.get("CalcOrigin") == _DECORATIVE_ORIGIN:
            values.append(RichValue(""))  # a border, a divider: nothing to read
        elif _PICTURE_KEY in said:
            at = said[_PICTURE_KEY]
            values.append(RichValue(described(said.get(_ALT_KEY, "")),
                                    rels[int(at)] if at.isdigit() and int(at) < len(rels)
                                    else None))
        else:  # a data type: the name the cell shows
            values.append(RichValue(" ".join(said.get(_DISPLAY_KEY, "").split())))
    rich_blocks = future.get("XLRICHVALUE", [])
    out: dict[int, RichValue] = {}
    for vm, bk in enumerate(meta.iterfind(f"{_MAIN}valueMetadata/{_MAIN}bk"), start=1):
        rc = bk.find(_MAIN + "rc")
        t, v = (int(rc.get("t", "0")), int(rc.get("v", "-1"))) if rc is not None else (0, -1)
        if 1 <= t <= len(types) and types[t - 1] == "XLRICHVALUE" and \
                0 <= v < len(rich_blocks) and 0 <= rich_blocks[v] < len(values):
            out[vm] = values[rich_blocks[v]]
    return out


def _read_rich_values(path: Path, warnings: list[str]) -> dict[int, RichValue]:
    """:func:`_rich_values` of the workbook at ``path``; {} with a warning when its parts
    are damaged (its cells are then read as openpyxl reads them)."""
    try:
        with zipfile.ZipFile(path) as z:
            return _rich_values(z, set(z.namelist()))
    except (SyntaxError, ValueError, KeyError, zipfile.BadZipFile, zlib.error, EOFError) as exc:
        warnings.append(f"its pictures in cells and data types cannot be read ({exc}); those "
                        "cells are read as #VALUE!, as Excel 2019 and older show them")
        return {}


def _cell_pictures(path: Path, part: str, sheet: str, rich: dict[int, RichValue],
                   pictures: PictureReader,
                   notes: dict[tuple[int, ...], Note]) -> dict[tuple[int, int], RichValue]:
    """The rich values the cells of worksheet ``part`` hold, by (row, column); the text
    of each picture placed in a cell, read by ``pictures``, put in ``notes`` as a
    picture anchored there is (after the cell's comment, before its drawings)."""
    try:
        with zipfile.ZipFile(path) as z:
            held = {cell: rich[vm] for cell, vm in _rich_cells(z, part).items() if vm in rich}
            for (row, col), value in held.items():
                if value.picture is not None and \
                        (text := pictures.text(z.read(value.picture), value.picture)):
                    notes[row, col, -1] = Note(row, col, text, kind="picture")
    except (SyntaxError, ValueError, KeyError, zipfile.BadZipFile, zlib.error, EOFError) as exc:
        pictures.warnings.append(f"sheet {sheet!r}: its pictures in cells cannot be read "
                                 f"({exc}); not indexed")
        return {}
    return held


def _rich_cells(z: zipfile.ZipFile, part: str) -> dict[tuple[int, int], int]:
    """(row, column), 1-based, of each cell of worksheet ``part`` that holds a rich
    value, and the ``vm`` naming it."""
    with z.open(part.lstrip("/")) as fh:
        return {(row, col): int(vm) for row, col, c in _sheet_cells(fh)
                if (vm := c.get("vm", "")).isdigit()}


def _with_rich_values(rows: Iterator[tuple[int, list[str]]],
                      cells: dict[tuple[int, int], RichValue]) -> Iterator[tuple[int, list[str]]]:
    """``rows`` with each cell holding a rich value read as what it shows (its
    :class:`RichValue`'s text; "" for a picture with no alt text), not as openpyxl's
    ``#VALUE!``."""
    by_row: dict[int, list[tuple[int, RichValue]]] = {}
    for (number, col), value in cells.items():
        by_row.setdefault(number, []).append((col, value))
    for number, row in rows:
        for col, value in by_row.get(number, []):
            row.extend([""] * (col - len(row)))
            row[col - 1] = value.text
        yield number, row


# --- OpenDocument spreadsheets ----------------------------------------------------------

ODS_MEDIA_TYPE = "application/vnd.oasis.opendocument.spreadsheet"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_CALCEXT = "{urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_FRAME = _DRAW + "frame"
_SHEET, _ROW, _CELL = _TABLE + "table", _TABLE + "table-row", _TABLE + "table-cell"
_COVERED = _TABLE + "covered-table-cell"  # a cell merged into the one above or left of it
_PARAGRAPHS = (_TEXT + "p", _TEXT + "h")
_SPACES = (_TEXT + "s", _TEXT + "tab", _TEXT + "line-break")  # cell_text makes each a space
# A formula's namespace prefix ("of:=SUM([.B2:.B3])", "msoxl:=..."): not part of it.
_FORMULA_NS = re.compile(r"\w+:(?==)")
# office:time-value, an ISO 8601 duration: "PT08H30M00S"; "PT36H00M00S" past a day.
_DURATION = re.compile(r"(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d*)?)S)?)?")

# The most columns a sheet has: XFD, in Excel and in LibreOffice Calc since 7.4 (1,024
# before). Content past it is in no sheet a spreadsheet program opens.
MAX_COLUMNS = 16_384
# An .ods stores a run of identical cells, or of identical rows, once with a count
# (table:number-columns-repeated, table:number-rows-repeated). LibreOffice ends each row
# with its empty cells repeated to the last column, and each sheet with an empty row
# repeated to row 1,048,576: empty runs are counted, never expanded. A run with content is
# written out, to at most this many cells in a file: as many as an .xlsx within
# check_package's MAX_UNPACKED holds (its smallest cell, <c r="A1"><v>1</v></c>, is 23
# bytes), so no repeat count makes an .ods cost more than the largest .xlsx read; past
# it, a few bytes asking for billions of cells are a zip bomb.
MAX_REPEATED_CELLS = MAX_UNPACKED // 23


class OdsExtractor:
    """OpenDocument spreadsheets (.ods), LibreOffice Calc's own format: content.xml read
    with lxml as it streams out of the package, into the rows an .xlsx with the same cells
    gives (:class:`Sheet`), so the text, regions and citations are the same."""

    name = "ods"
    version = "7"  # (flat .fods and templates .ots added: an .ods reads as it did); 2: the
    # cells' comments (office:annotation), each a line under its row; 3: the text of the
    # pictures anchored in a cell, by OCR, lines under its row; 4: and of its text boxes;
    # 5: a chart's title, kind, series and axes; 6: a picture's and a chart's alt text;
    # 7: an SVG picture's words, read without OCR
    suffixes = (".ods", ".fods", ".ots")

    def extract(self, path: Path, rel: str) -> Document:
        if path.stat().st_size == 0:
            raise ExtractionError(rel, "empty file (0 bytes), not a spreadsheet")
        if not zipfile.is_zipfile(path):
            if is_flat(path):  # a flat .fods (or one named .ods): its XML is content.xml's
                inline: list[bytes] = []
                data = flat_xml(path, rel, "spreadsheet", inline)
                pictures = PictureReader([])
                frames = FramePictures(path, inline, pictures)
                try:
                    return workbook_document(rel, path.stem, ODS_MEDIA_TYPE, self,
                                             _ods_sheets(io.BytesIO(data), rel, frames, "XML"),
                                             pictures)
                except (KeyError, ValueError, etree.LxmlError) as exc:
                    raise ExtractionError(rel, f"the spreadsheet is damaged ({exc})") from exc
            if path.suffix.lower() == ".fods":
                raise ExtractionError(rel, "not a flat OpenDocument .fods file (nor a packaged "
                                           ".ods): no office:document element opens it")
            raise ExtractionError(rel, not_a_package(path, ".ods spreadsheet", ".xls"))
        check_package(path, rel, "spreadsheet")
        pictures = PictureReader([])
        try:
            with zipfile.ZipFile(path) as z:
                _check_ods(z, rel)
                with z.open("content.xml") as fh:
                    return workbook_document(rel, path.stem, ODS_MEDIA_TYPE, self,
                                             _ods_sheets(fh, rel, FramePictures(path, None,
                                                                                pictures)),
                                             pictures)
        except (KeyError, ValueError, zipfile.BadZipFile, zlib.error, EOFError,
                NotImplementedError, etree.LxmlError) as exc:  # NotImplementedError: an
            # unknown compression method
            raise ExtractionError(rel, f"the spreadsheet is damaged ({exc})") from exc


def _check_ods(z: zipfile.ZipFile, rel: str) -> None:
    """Refuse a ZIP package that is no OpenDocument spreadsheet, naming what it is, one
    encrypted with a password (the checks every OpenDocument file gets,
    :func:`citeline.extract.opendocument.check_odf`), and one without its content."""
    check_odf(z, rel, "spreadsheet")
    if "content.xml" not in z.namelist():
        raise ExtractionError(rel, "the spreadsheet is damaged (it has no content.xml)")


class _Repeats:
    """The cells repeat counts have written out so far, against MAX_REPEATED_CELLS."""

    def __init__(self, rel: str) -> None:
        self.rel, self.left = rel, MAX_REPEATED_CELLS

    def spend(self, cells: int) -> None:
        self.left -= cells
        if self.left < 0:
            raise ExtractionError(
                self.rel, f"its repeated rows and cells expand to over {MAX_REPEATED_CELLS:,} "
                          f"cells with content (more than an .xlsx of {MAX_UNPACKED >> 20} MB "
                          "unpacked holds): too big to index, or a zip bomb")


def _ods_sheets(fh: IO[bytes], rel: str, frames: FramePictures,
                part: str = "content.xml") -> Iterator[Sheet]:
    """The sheets of an .ods's content.xml (``part``; a flat .fods's whole XML holds the
    same elements, with its named styles too), in one streaming pass: each sheet's rows are
    parsed while it is built and dropped from the tree once read. A hidden sheet's table
    style says ``table:display="false"`` (the automatic styles come before the body).
    The XML is untrusted input: parsed with no entities, DTDs or network, within
    libxml2's default depth and text-node limits."""
    hiding: set[str] = set()
    repeats = _Repeats(rel)
    spreadsheet = False
    events = iter(etree.iterparse(
        fh, events=("start", "end"), resolve_entities=False, no_network=True, load_dtd=False,
        tag=(_STYLE + "style", _OFFICE + "spreadsheet", _SHEET, _ROW)))
    for event, el in events:
        if el.tag == _STYLE + "style":
            if event == "end" and el.get(_STYLE + "family") == "table" and any(
                    p.get(_TABLE + "display") == "false"
                    for p in el.iterchildren(_STYLE + "table-properties")):
                hiding.add(el.get(_STYLE + "name", ""))
        elif el.tag == _OFFICE + "spreadsheet":
            spreadsheet = True
        elif el.tag == _SHEET and event == "start" and spreadsheet:
            name = el.get(_TABLE + "name", "")
            uncached: list[str] = []
            notes: dict[tuple[int, ...], Note] = {}
            rows = _ods_rows(events, name, uncached, repeats, rel, notes, frames)
            yield Sheet(name, rows, "hidden" if el.get(_TABLE + "style-name") in hiding
                        else "visible", uncached, notes)
            for _ in rows:  # what was left unread, to the sheet's end
                pass
    if not spreadsheet:
        raise ExtractionError(rel, f"not an OpenDocument spreadsheet: its {part} holds no "
                                   "spreadsheet")


def _ods_rows(events: Iterator[tuple[str, Any]], sheet: str, uncached: list[str],
              repeats: _Repeats, rel: str, notes: dict[tuple[int, ...], Note],
              frames: FramePictures) -> Iterator[tuple[int, list[str]]]:
    """``(row number, cell texts)`` of the sheet whose table:table start ``events`` has
    just given, to its end: a row repeated n times is n rows, an empty one none. The
    cells' comments and the text of the pictures anchored in them (read by ``frames``)
    go into ``notes`` as their rows are read."""
    number = 1  # the sheet row the next table:table-row is
    depth = 0  # tables inside a cell (ODF allows them, Calc writes none): their rows are not the sheet's
    for event, el in events:
        if el.tag == _SHEET:
            if event == "start":
                depth += 1
            elif depth:
                depth -= 1
            else:
                el.clear()
                return
            continue
        if el.tag != _ROW or event != "end" or depth:
            continue
        n = _repeat(el, _TABLE + "number-rows-repeated")
        cells = _ods_cells(el, sheet, number, uncached, repeats, rel, notes, frames)
        el.clear()  # and the rows before it: the tree holds one row at a time
        while el.getprevious() is not None:
            del el.getparent()[0]
        if cells:
            repeats.spend(len(cells) * (n - 1))
            for k in range(n):
                yield number + k, cells
        number += n


def _ods_cells(row: Any, sheet: str, number: int, uncached: list[str], repeats: _Repeats,
               rel: str, notes: dict[tuple[int, ...], Note], frames: FramePictures) -> list[str]:
    """A table:table-row's cell texts from column A to its last cell with content (none
    for an empty row): a run of empty cells is written out only when content follows.
    A cell's comment (``office:annotation``: its ``dc:creator``, its paragraphs) goes
    into ``notes``, and so does the text of each picture anchored in it (a
    ``draw:frame`` in the cell, as Calc keeps a picture anchored "to cell"; one anchored
    to the page, in the sheet's ``table:shapes``, is at no cell and not read)."""
    from citeline.chunk import column_letter

    cells: list[str] = []
    empty = 0  # empty cells since the last one with content
    for cell in row:
        if cell.tag == _CELL:
            text, formula = _ods_value(cell)
        elif cell.tag == _COVERED:  # merged away: empty, as openpyxl reads an .xlsx's
            text, formula = "", None
        else:
            continue
        col = len(cells) + empty + 1
        for note in cell.iterchildren(_OFFICE + "annotation"):
            notes[number, col] = Note(
                number, col, "\n".join(_paragraph(p) for p in note if p.tag in _PARAGRAPHS),
                note.findtext(_DC + "creator") or "")
        for shape in cell.iterchildren(_DRAW + "*"):
            for frame in shape.iter(_FRAME):
                chart = frames.chart(frame)  # what a chart says, then its alt text
                for kind, shown in (("chart", chart),
                                    ("chart" if chart else "picture", frames.text(frame))):
                    if shown:
                        notes[number, col, len(notes)] = Note(number, col, shown, kind=kind)
            if said := "\n".join(p for p in _shape_paragraphs(shape) if p.strip()):
                notes[number, col, len(notes)] = Note(number, col, said, kind="text box")
        n = _repeat(cell, _TABLE + "number-columns-repeated")
        if not text:
            empty += n
            continue
        col = len(cells) + empty  # 0-based
        if col + n > MAX_COLUMNS:
            raise ExtractionError(rel, f"sheet {sheet!r}, row {number}: a cell with content past "
                                       f"column XFD, the last of {MAX_COLUMNS:,} a spreadsheet "
                                       "program opens: the spreadsheet is damaged")
        cells.extend([""] * empty)
        cells.extend([text] * n)
        empty = 0
        repeats.spend(n - 1)
        if formula:
            uncached.append(f"{column_letter(col + 1)}{number} {formula}")
    return cells


def _shape_paragraphs(shape: Any) -> Iterator[str]:
    """The paragraphs a drawing anchored in a cell shows as text: a shape's own (a custom
    shape, a rectangle: its ``text:p`` children, as Calc saves an Excel text box), a
    frame's text box's, a group's shapes' in turn; a picture's frame has none."""
    for child in shape:
        if child.tag in _PARAGRAPHS:
            yield _paragraph(child)
        elif child.tag == _TEXT + "list":
            yield from (_paragraph(p) for p in child.iter(*_PARAGRAPHS))
        elif child.tag in (_DRAW + "text-box", _DRAW + "g") or (
                shape.tag == _DRAW + "g" and child.tag.startswith(_DRAW)):
            yield from _shape_paragraphs(child)


def _repeat(el: Any, attr: str) -> int:
    return max(1, int(el.get(attr) or 1))


def _ods_value(cell: Any) -> tuple[str, str | None]:
    """A table:table-cell's value as :func:`cell_text` shows it, and its formula when it
    has no saved result. ``office:value-type`` says which attribute holds the value (ODF
    1.2 Part 1, 19.385); a formula's last result is stored so too, as LibreOffice saves
    it. With no value type, the cell's text is its value, or, when it has none and a
    formula, a library that does not calculate wrote it: its formula is indexed, as
    the xlsx reader does."""
    kind = cell.get(_OFFICE + "value-type")
    if kind is None:
        text, formula = _ods_text(cell), cell.get(_TABLE + "formula")
        if formula and not text:
            formula = _FORMULA_NS.sub("", formula, count=1)
            return cell_text(formula), formula
        return cell_text(text), None
    return cell_text(_ods_typed(cell, kind)), None


def _ods_typed(cell: Any, kind: str) -> object:
    """The Python value of a cell with a value type, as openpyxl reads the same cell of an
    .xlsx: a number an int unless written with a point or an exponent, a date a datetime,
    a time a time of day (a timedelta past 24 hours), a boolean a bool."""
    if cell.get(_CALCEXT + "value-type") == "error":  # "#DIV/0!": office:value holds 0
        return _ods_text(cell)
    if kind in ("float", "percentage", "currency"):
        value = cell.get(_OFFICE + "value") or ""
        with contextlib.suppress(ValueError):
            return float(value) if re.search("[.eE]", value) else int(value)
    elif kind == "date":
        value = cell.get(_OFFICE + "date-value") or ""
        with contextlib.suppress(ValueError):
            return dt.datetime.fromisoformat(value)
    elif kind == "time":
        if m := _DURATION.fullmatch(cell.get(_OFFICE + "time-value") or ""):
            sign, days, hours, minutes, seconds = m.groups()
            span = dt.timedelta(days=int(days or 0), hours=int(hours or 0),
                                minutes=int(minutes or 0),  # to the millisecond, as openpyxl
                                milliseconds=round(float(seconds or 0) * 1000))
            span = -span if sign else span
            return (dt.datetime.min + span).time() if dt.timedelta(0) <= span < dt.timedelta(1) \
                else span
    elif kind == "boolean":
        value = cell.get(_OFFICE + "boolean-value")
        if value in ("true", "false"):
            return value == "true"
    elif kind == "string":
        return _ods_text(cell) or cell.get(_OFFICE + "string-value", "")
    return _ods_text(cell)  # a value attribute missing or malformed: the text shown


def _ods_text(cell: Any) -> str:
    """The text a cell shows: its paragraphs joined by line breaks, as a cell of several
    lines is in an .xlsx (cell_text makes each a space). Not its comment
    (office:annotation), nor drawings anchored in it."""
    return "\n".join(_paragraph(p) for p in cell if p.tag in _PARAGRAPHS)


def _paragraph(el: Any) -> str:
    parts = [el.text or ""]
    for child in el:
        tag = child.tag
        if tag in _SPACES:
            parts.append(" ")
        elif isinstance(tag, str) and tag.startswith(_TEXT):  # spans, links, fields
            parts.append(_paragraph(child))
        parts.append(child.tail or "")
    return "".join(parts)


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
register(OdsExtractor())
register(CsvExtractor())
