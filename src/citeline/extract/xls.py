"""Legacy Excel workbooks (.xls, and templates .xlt): the binary format (BIFF) of Excel
97-2003, and of Excel 5.0/95 before it, read with xlrd (BSD; 2.x reads exactly these).

The cells are handed to :func:`citeline.extract.sheet.workbook_document` as the .xlsx
reader hands them, so the same workbook saved as .xls and as .xlsx gives the same
canonical text, regions, warnings and citations (``Pumps!A2:I2``): one line per non-empty
row, cells joined by `` | ``, a sheet per section, its first row the header, a hidden
sheet indexed with a warning. A cell reads as openpyxl reads the same cell of an .xlsx:
a number its value (not its display: ``0.25``, not ``25%``), a number in a date or time
format a date, a time of day or a duration as openpyxl converts it (its own function,
:func:`openpyxl.utils.datetime.from_excel`, on the workbook's 1900 or 1904 date system),
a boolean ``TRUE``/``FALSE``, an error its code (``#DIV/0!``), a formula its saved result
(a .xls always stores one), a cell merged away empty. A cell's note (a NOTE record, its
text in a TXO) is a line under its row, as the .xlsx reader reads a comment; a picture
anchored at a cell (its OfficeArt shape in the sheet's MSODRAWING records, its file in the
workbook's BLIP store: [MS-XLS] 2.4.188, [MS-ODRAW]) is read by OCR as the .xlsx reader
reads one, each paragraph a line under its anchor's row, and so is a text box's text (its
TXO record). Not read: charts, and VBA macros. A web page or a text table saved under a
.xls name (web applications' "Export to Excel"), which Excel opens by its content, is read
by the HTML or CSV reader, with a warning saying so.

This is its own module, not part of sheet.py, because xlrd is an optional library: when
it is missing, .xls stays unsupported while .xlsx, .ods and .csv are still read.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path

import olefile
import xlrd
from openpyxl.styles.numbers import is_date_format, is_timedelta_format
from openpyxl.utils.datetime import MAC_EPOCH, WINDOWS_EPOCH, from_excel
from xlrd import biffh
from xlrd.biffh import XLRDError
from xlrd.compdoc import CompDocError

from citeline.errors import ExtractionError
from citeline.extract import officeart, read_as, register
from citeline.extract.blocks import ENCRYPTED_PACKAGE, OLE2_SIGNATURE, cfb_directory
from citeline.extract.image import PictureReader
from citeline.extract.sheet import Note, Sheet, SheetState, cell_text, workbook_document
from citeline.types import Document

XLS_MEDIA_TYPE = "application/vnd.ms-excel"
# xlrd's Sheet.visibility (BIFF's BOUNDSHEET record), as openpyxl names an .xlsx's states
_STATES: dict[int, SheetState] = {0: "visible", 1: "hidden", 2: "veryHidden"}
# What a damaged file makes xlrd raise: its own errors, and Python's where it unpacks
# records past their end or follows an index a broken file gives (it checks little).
_XLRD_ERRORS = (XLRDError, CompDocError, struct.error, IndexError, KeyError, ValueError,
                AssertionError, UnicodeDecodeError, OverflowError)
# The BOF record a BIFF stream opens with (type 0x0009, 0x0209, 0x0409, 0x0809): Excel
# 2.x to 4.0 saved a sheet as that bare stream, with no compound file around it.
_BARE_BIFF = re.compile(rb"[\x09][\x00\x02\x04\x08]")
# A web page, Excel 2003's XML Spreadsheet, or text, looked for in the file's first bytes.
SNIFF_BYTES = 4096
_HTML = re.compile(rb"(?:\xef\xbb\xbf)?\s*(?:<!doctype html|<html|<head|<body|<table|<meta|<!--)",
                   re.I)
_XML_SPREADSHEET = re.compile(rb"urn:schemas-microsoft-com:office:spreadsheet|"
                              rb"progid=\"Excel\.Sheet\"", re.I)
# Other Office files' main streams, named in a compound file's directory (UTF-16LE).
_OTHER_OLE = (("WordDocument", "a Word document (.doc)"),
              ("PowerPoint Document", "a PowerPoint presentation (.ppt)"))


class XlsExtractor:
    """Excel 97-2003 workbooks (.xls; a template .xlt is the same format), read with xlrd
    into the rows an .xlsx with the same cells gives (:class:`~citeline.extract.sheet.Sheet`)."""

    name = "xls"
    version = "4"  # 2: the cells' comments (NOTE records), each a line under its row; 3:
    # the text of the pictures anchored at a cell, by OCR; 4: and of the text boxes
    suffixes = (".xls", ".xlt")

    def extract(self, path: Path, rel: str) -> Document:
        if path.stat().st_size == 0:
            raise ExtractionError(rel, "empty file (0 bytes), not a workbook")
        if (other := _check_binary_workbook(path, rel)) is not None:
            return _as_excel_opens_it(path, rel, *other)
        try:
            # formatting_info: each cell's number format, which says whether a number is a
            # date, a time or a duration (as it does for openpyxl); on_demand: a sheet is
            # parsed when it is read, and let go after. ignore_workbook_corruption: files
            # PHPExcel and other libraries write have a sector chain xlrd calls corrupt,
            # which Excel and LibreOffice open (xlrd issues #149, #285; PR #342)
            book = xlrd.open_workbook(str(path), logfile=io.StringIO(), formatting_info=True,
                                      on_demand=True, ragged_rows=True,
                                      ignore_workbook_corruption=True)
        except XLRDError as exc:
            raise ExtractionError(rel, _why_refused(path, exc)) from exc
        except _XLRD_ERRORS as exc:
            raise ExtractionError(rel, _damaged(path, exc)) from exc
        pictures = PictureReader([])
        drawn = _drawings(path, pictures) if book.biff_version >= 80 else {}
        try:
            return workbook_document(rel, path.stem, XLS_MEDIA_TYPE, self,
                                     _sheets(book, drawn), pictures)
        except _XLRD_ERRORS as exc:
            raise ExtractionError(rel, _damaged(path, exc)) from exc
        finally:
            book.release_resources()


def _damaged(path: Path, exc: BaseException) -> str:
    """Why xlrd could not read a file that looked like a workbook: cut short
    (:func:`_cut_short`), as after an interrupted download or copy; else damaged, in
    xlrd's words."""
    if _cut_short(path):
        return ("the workbook is cut short (its compound file has sectors past the file's "
                "end), as after an interrupted download or copy; fetch or copy it again")
    return f"the workbook is damaged ({exc or type(exc).__name__})"


def _cut_short(path: Path) -> bool:
    """Whether a compound file ends before its last sector (MS-CFB 2.2-2.3: a header
    giving the sector size and where the first 109 sectors of its allocation table are,
    whose entries say which sectors are in use, -1 a free one; sector n starts at byte
    (n + 1) * size): a size that is no whole number of sectors, or a sector in use past
    the end."""
    with path.open("rb") as f:
        header = f.read(512)
        if not header.startswith(OLE2_SIGNATURE) or len(header) < 512:
            return False
        size = 1 << int.from_bytes(header[0x1E:0x20], "little")
        if size not in (512, 4096):
            return False
        whole, rest = divmod(path.stat().st_size, size)
        whole -= 1  # the header's sector
        if rest:
            return True
        table = [n for n in struct.unpack("<109i", header[0x4C:0x200]) if n >= 0]
        in_use = -1
        for k, sector in enumerate(table):
            if sector >= whole:
                return True
            f.seek((sector + 1) * size)
            entries = struct.unpack(f"<{size // 4}i", f.read(size))
            used = [i for i, e in enumerate(entries) if e != -1]
            if used:
                in_use = k * (size // 4) + used[-1]
    return in_use >= whole


def _sheets(book: xlrd.book.Book,
            drawn: dict[str, dict[tuple[int, ...], Note]]) -> Iterator[Sheet]:
    """Each sheet in the workbook's order, parsed when it is reached and let go after,
    with its cells' notes and the text of its pictures (``drawn``, by sheet name)."""
    for index in range(book.nsheets):
        ws = book.sheet_by_index(index)
        notes: dict[tuple[int, ...], Note] = {
            (r + 1, c + 1): Note(r + 1, c + 1, note.text or "", note.author or "")
            for (r, c), note in ws.cell_note_map.items()}  # NOTE records, their TXO text
        notes.update(drawn.get(ws.name, {}))
        yield Sheet(ws.name, _rows(book, ws, index), _STATES.get(ws.visibility, "hidden"),
                    notes=notes)


def _rows(book: xlrd.book.Book, ws: xlrd.sheet.Sheet, index: int) -> Iterator[tuple[int, list[str]]]:
    """``(row number, cell texts)`` from column A, row 1 first (xlrd counts from 0)."""
    epoch = MAC_EPOCH if book.datemode == 1 else WINDOWS_EPOCH
    formats: dict[int, str | None] = {}  # number format by XF (cell style) index
    for r in range(ws.nrows):
        yield r + 1, [cell_text(_value(book, cell, epoch, formats)) for cell in ws.row(r)]
    if book.on_demand:  # Excel 2.x-5.0 files are read whole, on_demand or not
        book.unload_sheet(index)


# BIFF record types: the drawing group (the workbook's BLIP store) and a sheet's drawing,
# each continued by CONTINUE records past 8,224 bytes; a sheet's name and stream offset;
# a substream's end
_MSODRAWINGGROUP, _MSODRAWING, _CONTINUE, _BOUNDSHEET, _EOF = 0xEB, 0xEC, 0x3C, 0x85, 0x0A
_OBJ, _TXO = 0x5D, 0x1B6  # a shape's object record, and a text box's text
_FT_CMO, _OT_NOTE = 0x15, 0x19  # OBJ's first field (common properties): its type, a note's
_CLIENT_ANCHOR = 0xF010  # a shape's cell: flags, then column, dx, row, dy of each corner
_SPGR_CONTAINER = 0xF003  # a group: its first shape is the group's own, with its anchor


def _drawings(path: Path, reader: PictureReader) -> dict[str, dict[tuple[int, ...], Note]]:
    """The text of the drawings each sheet of a BIFF8 workbook shows, by sheet name, then
    (row, column, order) of the cell each is anchored at: the sheet's drawing (its
    MSODRAWING records' OfficeArt shapes, their ClientAnchor's top-left cell), each
    picture (a shape's pib property, its file in the workbook's BLIP store,
    MSODRAWINGGROUP) read by ``reader``, and each text box's or shape's text (its TXO
    record and the CONTINUE records after it, [MS-XLS] 2.4.329; a note's is xlrd's). A
    drawing that cannot be followed is said in a warning and left."""
    try:
        with olefile.OleFileIO(str(path)) as ole:
            stream = next((n for n in ("Workbook", "Book") if ole.exists(n)), None)
            data = ole.openstream(stream).read() if stream else b""
    except (OSError, ValueError, struct.error, IndexError):  # xlrd read it: a foreign
        return {}  # layout olefile refuses (it says so to no one else) keeps no drawings
    group, listed = b"", []
    for kind, body in _records(data, 0):
        if kind == _MSODRAWINGGROUP:
            group += body
        elif kind == _BOUNDSHEET and len(body) >= 8:
            wide = body[7] & 1
            listed.append((body[8:8 + body[6] * (2 if wide else 1)]
                           .decode("utf-16-le" if wide else "latin-1", "replace"),
                           struct.unpack_from("<I", body)[0]))
    try:
        entries = officeart.store_entries(group, 0, len(group)) if group else []
    except (IndexError, struct.error):
        reader.damaged("the workbook's picture store runs past its records")
        entries = []
    out: dict[str, dict[tuple[int, ...], Note]] = {}
    for name, at in listed:
        drawing, boxes = _sheet_drawing(data, at)
        found: dict[tuple[int, ...], Note] = {}
        try:
            shapes = list(_shapes(drawing, 0, len(drawing), None))
            for cell, pib, _, _ in shapes:
                if not pib or not 1 <= pib <= len(entries):
                    continue
                picture = officeart.entry_blip(group, entries[pib - 1], b"")
                if picture is None:
                    continue
                file, kind = picture
                if file is None:
                    reader.not_read(kind)
                elif text := reader.text(file, f"picture {pib} of sheet {name!r}"):
                    found[(*cell, len(found))] = Note(*cell, text, kind="picture")
            for ends, text in boxes:  # the shape whose ClientTextbox record ends there
                owner = min(((e - b, cell) for cell, _, b, e in shapes if b < ends <= e),
                            default=None)
                if owner is not None and text.strip():
                    cell = owner[1]
                    found[(*cell, len(found))] = Note(*cell, text, kind="text box")
        except (IndexError, struct.error):
            reader.damaged(f"the drawing of sheet {name!r} runs past its records")
        out[name] = found
    return out


def _sheet_drawing(data: bytes, at: int) -> tuple[bytes, list[tuple[int, str]]]:
    """The OfficeArt records of the sheet whose substream starts at ``at`` (its
    MSODRAWING records joined), and each text box's (where the drawing had got to when
    its TXO came, the text): a TXO's characters are in the CONTINUE records after it,
    each opening with a byte saying whether they are one byte or two; a note's text
    (an OBJ of type Note before it) is left to xlrd."""
    drawing = bytearray()
    boxes: list[tuple[int, str]] = []
    shape = None  # the type the last OBJ record gave its shape (ftCmo's ot)
    text: tuple[int, int, list[str]] | None = None  # at, characters, read so far
    for kind, body in _records(data, at):
        if kind == _MSODRAWING:
            drawing += body
        elif kind == _OBJ and len(body) >= 6:
            ft, _, ot = struct.unpack_from("<3H", body)
            shape = ot if ft == _FT_CMO else None
        elif kind == _TXO and len(body) >= 12 and shape != _OT_NOTE:
            count = struct.unpack_from("<H", body, 10)[0]
            text = (len(drawing), count, []) if count else None
        elif kind == _CONTINUE and text is not None and body:
            wide = body[0] & 1
            text[2].append(body[1:].decode("utf-16-le" if wide else "latin-1", "replace"))
            if sum(len(t) for t in text[2]) >= text[1]:
                said = "".join(text[2])[:text[1]]
                boxes.append((text[0], said.replace("\r\n", "\n").replace("\r", "\n")))
                text = None
        elif kind != _CONTINUE:
            text = None
    return bytes(drawing), boxes


def _records(data: bytes, at: int) -> Iterator[tuple[int, bytes]]:
    """(type, body) of each BIFF record of the substream at ``at``, to its EOF, a
    CONTINUE record's body given as the type of the drawing record it continues (other
    CONTINUE records as themselves)."""
    last = None
    while at + 4 <= len(data):
        kind, size = struct.unpack_from("<HH", data, at)
        body = data[at + 4:at + 4 + size]
        at += 4 + size
        if kind == _CONTINUE and last in (_MSODRAWINGGROUP, _MSODRAWING):
            yield last, body
            continue
        last = kind
        yield kind, body
        if kind == _EOF:
            return


def _shapes(d: bytes, at: int, end: int, held: tuple[int, int] | None
            ) -> Iterator[tuple[tuple[int, int], int | None, int, int]]:
    """(cell, pib, start, end) of each shape in the OfficeArt records from ``at`` to
    ``end`` that has a cell: its ClientAnchor's top-left (row, column), 1-based, or (in a
    group) the group's, ``held``; its picture (pib property), None for none; where its
    container starts and ends."""
    i = at
    while i + 8 <= end:
        version, _, kind, size = officeart.header(d, i)
        body, after = i + 8, min(i + 8 + size, end)
        if kind == officeart.SP_CONTAINER:
            if (cell := _client_anchor(d, body, after) or held) is not None:
                yield cell, officeart.shape_pib(d, body, after), i, after
        elif kind == _SPGR_CONTAINER:  # its first shape is the group's own, with its cell
            first = officeart.header(d, body)[3] if body + 8 <= after else 0
            yield from _shapes(d, body, after,
                               _client_anchor(d, body + 8, min(body + 8 + first, after)) or held)
        elif version == 0xF:
            yield from _shapes(d, body, after, held)
        i = after


def _client_anchor(d: bytes, at: int, end: int) -> tuple[int, int] | None:
    """(row, column), 1-based, of the top-left cell a shape's ClientAnchor record among
    the records from ``at`` to ``end`` (a shape container's) names; None without one."""
    while at + 8 <= end:
        _, _, kind, size = officeart.header(d, at)
        if kind == _CLIENT_ANCHOR and size >= 18:
            col, _, row = struct.unpack_from("<3H", d, at + 10)
            return row + 1, col + 1
        at += 8 + size
    return None


def _value(book: xlrd.book.Book, cell: xlrd.sheet.Cell, epoch, formats: dict[int, str | None]) -> object:  # type: ignore[no-untyped-def]
    """A cell's value as openpyxl gives the same cell of an .xlsx (values only): a number
    a float, or a date, time or duration when its format is one (openpyxl's own tests,
    on the format's code); a boolean a bool; an error its code as Excel shows it."""
    kind = cell.ctype
    if kind in (biffh.XL_CELL_NUMBER, biffh.XL_CELL_DATE):
        if cell.xf_index not in formats:
            formats[cell.xf_index] = _number_format(book, cell.xf_index)
        fmt = formats[cell.xf_index]
        if is_date_format(fmt):
            try:
                return from_excel(cell.value, epoch, timedelta=is_timedelta_format(fmt))
            except (OverflowError, ValueError):  # no date: openpyxl reads it as this error
                return "#VALUE!"
        return cell.value
    if kind == biffh.XL_CELL_TEXT:
        return cell.value
    if kind == biffh.XL_CELL_BOOLEAN:
        return bool(cell.value)
    if kind == biffh.XL_CELL_ERROR:
        return biffh.error_text_from_code.get(cell.value, f"#ERROR({cell.value})")
    return None  # empty, or blank: formatted but empty (a cell merged away is one)


def _number_format(book: xlrd.book.Book, xf_index: int | None) -> str | None:
    """The number format code of cell style ``xf_index`` ("yyyy-mm-dd", "0.00%"), or None."""
    if xf_index is None or not 0 <= xf_index < len(book.xf_list):
        return None
    fmt = book.format_map.get(book.xf_list[xf_index].format_key)
    return fmt.format_str if fmt is not None else None


def _as_excel_opens_it(path: Path, rel: str, suffix: str, kind: str) -> Document:
    """A web page or a text table saved under a .xls name, which Excel opens by its content
    (web applications' "Export to Excel" writes these), read by the reader of ``suffix``
    with a warning saying what it is."""
    return read_as(path, rel, suffix, f"{kind} under a {path.suffix.lower()} name (Excel "
                                      f"opens it by its content): read as {suffix}")


def _check_binary_workbook(path: Path, rel: str) -> tuple[str, str] | None:
    """None for a binary Excel workbook; for a web page or a text table "exported to
    Excel" (a web application's usual way), which Excel opens, the suffix of its reader and
    what it is; ExtractionError naming what it is for anything else: an .xlsx or .ods
    renamed (a ZIP package), Excel 2003's XML, or a password-protected .xlsx (an encrypted
    package in a compound file)."""
    from citeline.extract import REGISTRY
    with path.open("rb") as f:
        head = f.read(SNIFF_BYTES)
        directory = cfb_directory(f) if head.startswith(OLE2_SIGNATURE) else b""
    suffix = path.suffix.lower() or ".xls"
    if head.startswith(OLE2_SIGNATURE):
        if ENCRYPTED_PACKAGE in directory:
            raise ExtractionError(rel, f"an Office Open XML workbook (.xlsx) under a {suffix} "
                                       "name, encrypted with a password; save a copy without "
                                       "the password, as .xlsx, to index it")
        return None
    if head.startswith(b"PK\x03\x04"):
        raise ExtractionError(rel, _zip_under_xls_name(path, suffix))
    if _BARE_BIFF.match(head):
        return None  # Excel 2.x-4.0: xlrd reads or refuses it
    if _HTML.match(head):
        if ".html" in REGISTRY:
            return ".html", "an HTML page"
        raise ExtractionError(rel, f"an HTML page under a {suffix} name (as web applications "
                                   "export tables \"for Excel\"), not an Excel workbook: rename "
                                   "it .html to index it as a page")
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<?xml"):
        if _XML_SPREADSHEET.search(head):
            raise ExtractionError(rel, f"an Excel 2003 XML Spreadsheet under a {suffix} name, "
                                       "not a binary workbook: open it in a spreadsheet "
                                       "program and save it as .xlsx to index it")
        raise ExtractionError(rel, f"an XML file under a {suffix} name, not an Excel workbook")
    text = _as_text(head)
    if text is not None:
        first = text.splitlines()[0] if text.strip() else ""
        if "\t" in first:
            return ".csv", "tab-separated text"  # the CSV reader sniffs its delimiter
        if "," in first or ";" in first:
            return ".csv", "comma-separated text (CSV)"
        raise ExtractionError(rel, f"a text file under a {suffix} name, not an Excel workbook: "
                                   "rename it .txt to index it as text")
    raise ExtractionError(rel, "not an Excel workbook: it is no compound file (the container "
                               "of an Excel 97-2003 workbook) and no BIFF stream")


def _zip_under_xls_name(path: Path, suffix: str) -> str:
    """What a ZIP package saved under a .xls name is, by its parts."""
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            mimetype = z.read("mimetype")[:100] if "mimetype" in names else b""
    except (zipfile.BadZipFile, OSError, EOFError):
        return (f"a ZIP package (an .xlsx?) under a {suffix} name, and a damaged one: it ends "
                "early (no central directory), as after an interrupted download or copy")
    if "xl/workbook.xml" in names:
        return f"an Office Open XML workbook (.xlsx) under a {suffix} name: rename it .xlsx"
    if mimetype.startswith(b"application/vnd.oasis.opendocument.spreadsheet"):
        return f"an OpenDocument spreadsheet (.ods) under a {suffix} name: rename it .ods"
    return f"a ZIP archive under a {suffix} name, not an Excel workbook"


def _as_text(head: bytes) -> str | None:
    """``head`` as text when it is some (UTF-8, or a legacy single-byte encoding: no NUL
    and few control characters), else None."""
    if b"\0" in head:
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not only a character cut at the sample's end
            text = head.decode("latin-1")
        else:
            text = head[: exc.start].decode("utf-8")
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\r\n\f")
    return text if controls * 100 <= len(text) else None


def _why_refused(path: Path, exc: XLRDError) -> str:
    """xlrd's refusal of a compound file or BIFF stream, as a reason a person can act on."""
    message = str(exc)
    if message == "Workbook is encrypted":
        return "the workbook is encrypted with a password; save a copy without the password to index it"
    if message.startswith("Can't find workbook in OLE2"):
        with path.open("rb") as f:
            directory = cfb_directory(f)
        for stream, what in _OTHER_OLE:
            if stream.encode("utf-16-le") in directory:
                return f"{what} under a {path.suffix.lower()} name, not an Excel workbook"
        return "a compound file with no workbook stream in it, not an Excel workbook"
    if message.startswith("BIFF version") or "BIFF4W" in message:
        return (f"{message.removesuffix(' is not supported')}: a workbook format older than "
                "xlrd reads; open it in a spreadsheet program and save it as .xlsx")
    return _damaged(path, exc)


register(XlsExtractor())
