"""Word 97-2003 documents (.doc), the binary format of [MS-DOC], with olefile (BSD).

A .doc is a compound file (MS-CFB) whose ``WordDocument`` stream starts with the File
Information Block (FIB): it says which table stream (``0Table`` or ``1Table``) holds the
document's tables, whether the file is encrypted, and where each table is. The text is
found through the piece table (the CLX's PlcPcd): each piece maps a range of character
positions (CPs) to the stream, as 8-bit Windows-1252 or as UTF-16LE. The main document is
the first ``ccpText`` characters; the footnotes' and endnotes' text follow it.

Canonical text is the Word (.docx) extractor's (:mod:`citeline.extract.docx`), so a
document reads the same saved either way: a paragraph in a heading style (Heading 1-9,
Title, or a style based on one; or a paragraph given an outline level) is a ``#``-heading
line, other paragraphs are blocks separated by a blank line (a line break inside one is a
newline), a table row is one block of its cells joined by `` | `` (a nested table's rows
inside their cell), and a footnote or endnote is a block of its own (``Footnote 1: ...``,
``Endnote ii: ...``) right after the paragraph or row that refers to it, numbered in
order as Word's defaults do (1, 2, 3 and i, ii, iii). A paragraph's style and its table
marks come from its properties (the PAPX pages, :func:`paragraph_runs`), its style's
built-in identity (sti) or name from the stylesheet (:func:`style_levels`); when a
document's styles cannot be read its headings are read as text, never failing it.

Word's marks in the text stream: ``\\r`` ends a paragraph, ``\\x07`` a table cell (and a
row), ``\\x0c`` a page or section (a paragraph break), ``\\x0b`` is a line break; a field
is ``\\x13`` instruction ``\\x14`` result ``\\x15`` and only its result is shown (a
hyperlink's text, a page number; none when it has no result); pictures and objects
(``\\x01``, ``\\x08``) and note and comment reference marks (``\\x02``, ``\\x05``) are not
text, a non-breaking hyphen (``\\x1e``) is ``-`` and an optional one (``\\x1f``) nothing
(:func:`split_paragraphs`). Text formatted hidden and tracked deletions are left out, as
Word leaves them off the page (:func:`hidden_spans`).

Not read: page headers and footers and comments (as for .docx), text boxes, symbols
inserted from a symbol font (Word stores a placeholder character for them), a note's
number format other than the default. Word 95 and older files (another FIB), and
encrypted ones, fail saying so. An RTF document, a web page or plain text saved under a
.doc name (WordPad's and Word's own "Web Page" did), which Word opens by its content, is
read by that format's reader, with a warning saying so.
"""

from __future__ import annotations

import bisect
import codecs
import re
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import olefile

from citeline.errors import ExtractionError
from citeline.extract import officeart, read_as, register
from citeline.extract.blocks import (
    MAX_HEADING_LEVEL,
    OLE2_SIGNATURE,
    TextBuilder,
    escape_markdown,
    metadata_title,
    missing_stream,
    one_paragraph,
    roman,
    squash,
)
from citeline.extract.image import PictureReader
from citeline.types import Document

# FibBase (MS-DOC 2.5.2): Word's identifier and the flags word's bits
W_IDENT = 0xA5EC
F_ENCRYPTED = 0x0100
F_WHICH_TBL_STM = 0x0200
# nFib: Word 97 writes 0x00C1 (later versions too, in FibBase); Word 6 wrote 101, Word 95
# 104, and their FIB is laid out otherwise. Below 192 is a Word 95 (or older) file, as
# antiword and LibreOffice's importer tell them.
FIRST_WORD97_NFIB = 0xC0
# The FIB's parts after FibBase (32 bytes): csw (2) + fibRgW (28), cslw (2) + fibRgLw
# (88), cbRgFcLcb (2), then fibRgFcLcbBlob's (fc, lcb) pairs of 4-byte integers.
RG_LW = 64
RG_FC_LCB = 154
# FibRgLw97's character counts: the main text, footnotes, headers, comments, endnotes.
CCP_TEXT, CCP_FTN, CCP_HDD, CCP_ATN, CCP_EDN = 12, 16, 20, 28, 32
# FibRgFcLcb97's pairs (MS-DOC 2.5.6): the stylesheet, the footnote references and
# texts, the paragraph properties' pages, the piece table, the endnote references and texts.
STSHF, PLCFFNDREF, PLCFFNDTXT, PLCFBTEPAPX, CLX = 1, 2, 3, 13, 33
PLCFBTECHPX = 12
PLCFENDREF, PLCFENDTXT = 46, 47
# ... the main text's floating shapes (their anchors' CPs and spids) and the OfficeArt
# drawings they are in
PLCSPAMOM, DGGINFO = 40, 50
SPA_SIZE = 26  # an SPA: the shape's spid, its rectangle, flags
# A formatted disk page (FKP) of character or paragraph properties is 512 bytes.
FKP_SIZE = 512
# Built-in style identifiers (sti): Heading 1-9 are 1-9, Title is 62.
STI_TITLE = 62
STI_NONE = 0xFFF  # istdBase of a style based on none
# Paragraph sprms (MS-DOC 2.6.2): in a table, a row's end mark, table depth, a nested
# table's cell and row marks, the outline level.
SPRM_P_FINTABLE, SPRM_P_FTTP, SPRM_P_ITAP = 0x2416, 0x2417, 0x6649
SPRM_P_FINNERTABLECELL, SPRM_P_FINNERTTP, SPRM_P_OUTLVL = 0x244B, 0x244C, 0x2640
# Character sprms: a tracked deletion, hidden text (ToggleOperand 1, or 0x81 "not as
# the style", a style being shown).
SPRM_C_FRMARKDEL, SPRM_C_FVANISH = 0x0800, 0x083C
_ON = (1, 0x81)
# A picture's anchor (character 1): where in the Data stream its PICF and picture are,
# and that it is an embedded object's stand-in picture (its preview), not a picture.
SPRM_C_PIC_LOCATION, SPRM_C_FOLE2 = 0x6A03, 0x080A
# An sprm's operand size by its spra (bits 13-15 of the opcode); 6 is variable.
_SPRA_SIZE = (1, 1, 2, 4, 2, 2, None, 3)
SPRM_T_DEFTABLE, SPRM_P_CHGTABS = 0xD608, 0xC615
# A nesting bound: a style's base chain, and the stylesheet's size sanity.
MAX_BASE_CHAIN = 10

# The 8-bit pieces' encoding: Windows-1252 (MS-DOC 2.4.1: "compressed" text), its five
# unassigned bytes as the Latin-1 control codes they would be, so a piece decodes to one
# character per byte whatever it holds.
_CP1252 = str.maketrans({b: bytes([b]).decode("cp1252", errors="replace").replace("\ufffd", chr(b))
                         for b in range(0x80, 0xA0)})
_MARKS = "\r\x07\x0c"
# Characters that are no text: a picture or object's anchor (1, 8), an auto-numbered
# note's reference (2), a comment's (5), the notes' separators (3, 4), an optional
# hyphen (0x1f); the rest of the C0 codes but the tab, which Word shows.
_DROPPED = {c: None for c in range(0x20) if c not in (0x09, 0x0B, 0x0D, 0x07, 0x0C)}
_DROPPED[0x1E] = "-"  # a non-breaking hyphen
_DROPPED[0x0B] = "\n"  # a line break inside the paragraph


class Piece(NamedTuple):
    """A piece of the piece table: CPs [cp, end) stored from byte ``fc`` of the
    WordDocument stream, one byte a character if ``compressed``, else two."""

    cp: int
    end: int
    fc: int
    compressed: bool


class Para(NamedTuple):
    """A paragraph (or a cell's, or a page's end) of the text: what it shows, its mark
    (``"\\r"``, ``"\\x07"``, ``"\\x0c"``; ``""`` at the end of the text) and the mark's CP, and
    the CPs of the note references in it."""

    text: str
    mark: str
    cp: int
    refs: tuple[int, ...] = ()


class ParaProps(NamedTuple):
    """What a paragraph's properties (its PAPX) say: its style (istd), its outline level
    (0-8; 9 none), its table depth (0: not in a table), whether its mark ends a table's row
    or, in a nested table, a cell or a row."""

    istd: int = 0
    outline: int = 9
    itap: int = 0
    ttp: bool = False
    inner_cell: bool = False
    inner_ttp: bool = False


_PLAIN = ParaProps()


def _u16(data: bytes, at: int) -> int:
    if at + 2 > len(data):
        raise IndexError(at)
    return int.from_bytes(data[at:at + 2], "little")


def _u32(data: bytes, at: int) -> int:
    if at + 4 > len(data):
        raise IndexError(at)
    return int.from_bytes(data[at:at + 4], "little")


def _slice(data: bytes, at: int, n: int) -> bytes:
    if at < 0 or n < 0 or at + n > len(data):
        raise IndexError(at)
    return data[at:at + n]


def split_paragraphs(text: str, start: int = 0, refs: frozenset[int] = frozenset(),
                     hidden: bytes | bytearray = b"") -> Iterator[Para]:
    """The paragraphs of ``text`` (a stretch of a document's characters, the first at CP
    ``start``), as Word shows them: a field's result, not its instruction (a field with
    no result shows nothing; fields nest), marks that are no text dropped, and characters
    ``hidden`` flags (by CP) left out; ``refs`` are CPs of note references (pure).

    >>> [(p.text, p.mark) for p in split_paragraphs(
    ...     'See \\x13 HYPERLINK "https://x.example" \\x14the site\\x15.\\rPage'
    ...     ' \\x13PAGE\\x143\\x15\\x0bnext\\x07\\x13 SEQ \\x15end\\x1e\\x1fof\\x01 it')]
    [('See the site.', '\\r'), ('Page 3\\nnext', '\\x07'), ('end-of it', '')]
    """
    out: list[str] = []
    notes: list[int] = []
    fields: list[bool] = []  # for each open field, whether its result has begun
    shown = 0  # open fields whose result is showing: text shows when all are
    for i, ch in enumerate(text):
        cp = start + i
        if ch in _MARKS:
            yield Para("".join(out), ch, cp, tuple(notes))
            out, notes = [], []
        elif ch == "\x13":
            fields.append(False)
        elif ch == "\x14" and fields and not fields[-1]:
            fields[-1] = True
            shown += 1
        elif ch == "\x15" and fields:
            shown -= fields.pop()
        elif shown < len(fields) or (cp - start < len(hidden) and hidden[cp - start]):
            continue
        elif cp in refs:
            notes.append(cp)
            if ch not in "\x01\x02\x08":  # a custom mark ("*") is shown, not a picture's
                out.append(ch)  # anchor (1 inline, 8 floating)
        else:
            out.append(ch if ord(ch) >= 0x20 else _DROPPED.get(ord(ch), ch) or "")
    if out or notes:
        yield Para("".join(out), "", start + len(text), tuple(notes))


def sprms(grpprl: bytes) -> Iterator[tuple[int, bytes]]:
    """The (opcode, operand) pairs of a property list (MS-DOC 2.6: an sprm's operand size
    is in its opcode, or in its first byte when variable).

    >>> list(sprms(bytes([0x16, 0x24, 1, 0x49, 0x66, 2, 0, 0, 0])))
    [(9238, b'\\x01'), (26185, b'\\x02\\x00\\x00\\x00')]
    """
    i = 0
    while i + 2 <= len(grpprl):
        op = _u16(grpprl, i)
        i += 2
        size = _SPRA_SIZE[op >> 13]
        if size is None:
            if op == SPRM_T_DEFTABLE:  # a 2-byte size, the rest's plus one
                size = _u16(grpprl, i) - 1
                i += 2
            elif op == SPRM_P_CHGTABS and i < len(grpprl) and grpprl[i] == 255:
                dels = grpprl[i + 1] if i + 1 < len(grpprl) else 0  # tabs deleted, closed
                at = i + 2 + 4 * dels
                adds = grpprl[at] if at < len(grpprl) else 0  # tabs added, their kinds
                size = 1 + 1 + 4 * dels + 1 + 3 * adds
            else:
                size = grpprl[i] if i < len(grpprl) else 0
                i += 1
        yield op, grpprl[i:i + size]
        i += size


def _fkp_runs(word: bytes, table: bytes, fc: int, lcb: int, papx: bool) -> Iterator[
        tuple[int, int, bytes]]:
    """(start fc, end fc, properties) of each run of a PlcBtePapx's (``papx``) or
    PlcBteChpx's FKP pages: a PAPX's style and sprms, a CHPX's sprms."""
    plc = _slice(table, fc, lcb)
    n = (lcb - 4) // 8
    for k in range(n):
        pn = _u32(plc, 4 * (n + 1) + 4 * k) & 0x3FFFFF
        page = _slice(word, pn * FKP_SIZE, FKP_SIZE)
        crun = page[FKP_SIZE - 1]
        for i in range(crun):
            start, end = _u32(page, 4 * i), _u32(page, 4 * i + 4)
            if papx:
                bx = page[4 * (crun + 1) + 13 * i] * 2  # BxPap: an offset, then a PHE
                if not bx:
                    yield start, end, b""
                    continue
                cb = page[bx]
                size, at = (2 * cb - 1, bx + 1) if cb else (2 * page[bx + 1], bx + 2)
            else:
                at = page[4 * (crun + 1) + i] * 2
                if not at:
                    yield start, end, b""
                    continue
                size, at = page[at], at + 1
            yield start, end, _slice(page, at, size)


def _flags(props: dict[int, bytes]):  # type: ignore[no-untyped-def]
    """Whether a Bool8 sprm is set in ``props`` (opcode -> operand)."""
    return lambda op: props.get(op, b"\0")[:1] not in (b"", b"\0")


def paragraph_runs(word: bytes, table: bytes, fc: int, lcb: int) -> list[tuple[int, int, ParaProps]]:
    """Each run of paragraph marks' stream positions [start, end) with their properties,
    sorted, from the PAPX pages (PlcBtePapx)."""
    runs = []
    for start, end, papx in _fkp_runs(word, table, fc, lcb, papx=True):
        if len(papx) < 2:
            runs.append((start, end, _PLAIN))
            continue
        props = dict(sprms(papx[2:]))
        flag = _flags(props)
        itap = int.from_bytes(props[SPRM_P_ITAP][:4], "little") if SPRM_P_ITAP in props \
            else int(flag(SPRM_P_FINTABLE))
        outline = props.get(SPRM_P_OUTLVL, b"\x09")[:1] or b"\x09"
        runs.append((start, end, ParaProps(
            istd=_u16(papx, 0), outline=outline[0], itap=itap, ttp=flag(SPRM_P_FTTP),
            inner_cell=flag(SPRM_P_FINNERTABLECELL), inner_ttp=flag(SPRM_P_FINNERTTP))))
    runs.sort(key=lambda r: r[0])
    return runs


def hidden_spans(word: bytes, table: bytes, fc: int, lcb: int) -> list[tuple[int, int]]:
    """The stream positions [start, end) of text formatted hidden or deleted by a tracked
    change, from the CHPX pages (PlcBteChpx)."""
    spans = []
    for start, end, chpx in _fkp_runs(word, table, fc, lcb, papx=False):
        if any(op in (SPRM_C_FRMARKDEL, SPRM_C_FVANISH) and operand[:1]
               and operand[0] in _ON for op, operand in sprms(chpx)):
            spans.append((start, end))
    return spans


def picture_runs(word: bytes, table: bytes, fc: int, lcb: int) -> list[tuple[int, int, int]]:
    """The stream positions [start, end) of text formatted as a picture's anchor, with
    where its picture is in the Data stream (sprmCPicLocation), from the CHPX pages; an
    embedded object's preview (sprmCFOle2) is none."""
    runs = []
    for start, end, chpx in _fkp_runs(word, table, fc, lcb, papx=False):
        props = dict(sprms(chpx))
        location = props.get(SPRM_C_PIC_LOCATION, b"")
        if len(location) >= 4 and not _flags(props)(SPRM_C_FOLE2):
            runs.append((start, end, _u32(location, 0)))
    runs.sort()
    return runs


def picture_file(data: bytes, at: int) -> tuple[bytes | None, str]:
    """The picture stored at ``at`` in a Word document's Data stream (a PICF, MS-DOC
    2.9.192, then OfficeArt records): its file (PNG, JPEG, TIFF) and that format's name,
    or None and the name of a format not read (a metafile) or "" (none found)."""
    end = min(at + _u32(data, at), len(data))
    i = at + _u16(data, at + 4)  # after the PICF header (cbHeader)
    while i + 8 <= end:  # the OfficeArt records of its shape, a BLIP store entry's BLIP
        version, _, kind, size = officeart.header(data, i)
        found = officeart.entry_blip(data, i, b"") if kind == officeart.FBSE \
            else officeart.blip(data, i, end)
        if found is not None:
            return found
        i += 8 if version == 0xF else 8 + size  # into a container, past any other record
    return None, ""


def style_levels(stsh: bytes) -> dict[int, int]:
    """istd -> heading level (1-6) of each heading style in a stylesheet (STSH): a
    built-in Heading N (sti N) or Title (sti 62), or a style named so, or a style based
    on one."""
    cb_stshi = _u16(stsh, 0)
    cstd, cb_base = _u16(stsh, 2), _u16(stsh, 4)
    at = 2 + cb_stshi
    stds: dict[int, tuple[int, int, str]] = {}  # istd -> (sti, istdBase, name)
    for istd in range(cstd):
        cb = _u16(stsh, at)
        std = _slice(stsh, at + 2, cb)
        at += 2 + cb
        if len(std) < 4:
            continue
        name = ""
        if cb_base + 2 <= len(std):
            cch = _u16(std, cb_base)
            name = std[cb_base + 2: cb_base + 2 + 2 * cch].decode("utf-16-le", errors="replace")
        stds[istd] = (_u16(std, 0) & 0xFFF, _u16(std, 2) >> 4, name)

    def own(sti: int, name: str) -> int | None:
        folded = name.strip().casefold()
        if 1 <= sti <= 9:
            return min(sti, MAX_HEADING_LEVEL)
        if sti == STI_TITLE or folded == "title":
            return 1
        if folded.startswith("heading ") and folded[8:].isdigit() and 1 <= int(folded[8:]) <= 9:
            return min(int(folded[8:]), MAX_HEADING_LEVEL)
        return None

    levels = {}
    for istd in stds:
        cur: int | None = istd
        for _ in range(MAX_BASE_CHAIN):
            if cur is None or cur not in stds:
                break
            sti, base, name = stds[cur]
            level = own(sti, name)
            if level is not None:
                levels[istd] = level
                break
            cur = None if base == STI_NONE else base
    return levels


# Bytes no text file holds (controls other than tab, line ends and form feed): a file
# with one in its first bytes is no plain text Word would open as such
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")


def _as_word_opens_it(head: bytes, path: Path, rel: str) -> Document | None:
    """An RTF document, a web page or plain text saved under a .doc name (as WordPad,
    Word's "Web Page" save and many a README did), which Word opens by its content, read
    by that format's reader with a warning saying so; None when ``head`` is none of them."""
    from citeline.extract import REGISTRY

    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith(b"{\\rtf"):
        kind, suffix = "an RTF document (Rich Text Format)", ".rtf"
    elif lowered.startswith((b"<html", b"<!doctype html")):
        kind, suffix = "a web page", ".html"
    elif lowered.startswith(b"mime-version:") and b"multipart/related" in lowered:
        kind, suffix = "a web page saved as one file (MHTML)", ".mht"
    elif head.strip() and not _CONTROL_BYTES.search(head):
        kind, suffix = "a plain text file", ".txt"  # Python 2's own pdb.doc, an old README
    else:
        return None
    if suffix not in REGISTRY:  # that format's library is missing
        return None
    return read_as(path, rel, suffix, f"{kind} under a .doc name (Word opens it by its "
                                      f"content): read as {suffix}")


def _what_it_is(head: bytes, path: Path) -> str:
    """Why a file named .doc is no compound file, saying what it is when that shows."""
    if head.startswith(b"PK\x03\x04") and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            kind = z.read("mimetype").decode("ascii", "replace").strip() \
                if "mimetype" in names else ""
        if "word/document.xml" in names:
            return "an Office Open XML package (.docx) under a .doc name: rename it .docx"
        if kind == "application/vnd.oasis.opendocument.text":
            return "an OpenDocument text (.odt) under a .doc name: rename it .odt"
        return "a ZIP archive, not a Word 97-2003 document"
    if head.lstrip(b"\xef\xbb\xbf").startswith(b"{\\rtf"):
        return ("an RTF document (Rich Text Format) under a .doc name, not a Word 97-2003 "
                "file: rename it .rtf")
    if head[:2] in (b"\xdb\xa5", b"\x31\xbe"):  # Word 2.0's FIB, Word for DOS's header
        return "a Word 95 (or older) file; save it as .docx"
    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith((b"<html", b"<!doctype html", b"mime-version:")):
        return "a web page saved under a .doc name, not a Word 97-2003 file: rename it .html"
    return "not a Word 97-2003 document (not an OLE compound file)"


def _decode_title(raw: object, codepage: object) -> str:
    """A SummaryInformation title, its bytes in the property set's code page. The code page
    is a 2-byte signed integer there, which olefile returns as it is: UTF-8's 65001, which
    LibreOffice writes, reads -535.

    >>> _decode_title("Caf\u00e9".encode(), -535), _decode_title(b"Caf\\xe9", 1252)
    ('Caf\u00e9', 'Caf\u00e9')
    """
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, bytes):
        return ""
    if isinstance(codepage, int):
        codepage %= 0x10000
    name = "utf-8" if codepage == 65001 else f"cp{codepage}" if isinstance(codepage, int) \
        else "cp1252"
    try:
        codecs.lookup(name)
    except LookupError:
        name = "cp1252"
    return raw.split(b"\0", 1)[0].decode(name, errors="replace")


class _Reader:
    """A .doc's streams and tables, read on demand; IndexError means out of range."""

    def __init__(self, word: bytes, table: bytes) -> None:
        self.word, self.table = word, table
        self.ccp = {k: _u32(word, RG_LW + k) for k in (CCP_TEXT, CCP_FTN, CCP_HDD, CCP_ATN, CCP_EDN)}
        self.pairs = _u16(word, RG_FC_LCB - 2)

    def pair(self, i: int) -> tuple[int, int]:
        if i >= self.pairs:
            return 0, 0
        return _u32(self.word, RG_FC_LCB + 8 * i), _u32(self.word, RG_FC_LCB + 8 * i + 4)

    def pieces(self) -> list[Piece]:
        fc, lcb = self.pair(CLX)
        clx = _slice(self.table, fc, lcb)
        at = 0
        while at < len(clx) and clx[at] == 0x01:  # a Prc: property modifiers, skipped
            at += 3 + _u16(clx, at + 1)
        if at >= len(clx) or clx[at] != 0x02:
            raise IndexError("no piece table (Pcdt)")
        plc = _slice(clx, at + 5, _u32(clx, at + 1))
        n = (len(plc) - 4) // 12
        cps = [_u32(plc, 4 * i) for i in range(n + 1)]
        out = []
        for i in range(n):
            fc = _u32(plc, 4 * (n + 1) + 8 * i + 2)
            compressed = bool(fc & 0x40000000)
            fc &= 0x3FFFFFFF
            out.append(Piece(cps[i], cps[i + 1], fc // 2 if compressed else fc, compressed))
        return out

    def text(self, pieces: list[Piece], upto: int) -> str:
        parts = []
        for p in pieces:
            if p.cp >= upto:
                break
            n = min(p.end, upto) - p.cp
            if p.compressed:
                parts.append(_slice(self.word, p.fc, n).decode("latin-1").translate(_CP1252))
            else:
                parts.append(_slice(self.word, p.fc, 2 * n).decode("utf-16-le", errors="replace"))
        return "".join(parts)

    def notes(self, ref: int, txt: int, base: int) -> list[tuple[int, int, int]]:
        """(reference CP, its text's CPs [start, end)) of each footnote or endnote."""
        rfc, rlcb = self.pair(ref)
        tfc, tlcb = self.pair(txt)
        if not rlcb or not tlcb:
            return []
        refs = _slice(self.table, rfc, rlcb)
        n = (rlcb - 4) // 6  # n+1 CPs, then n 2-byte FRDs
        texts = _slice(self.table, tfc, tlcb)
        return [(_u32(refs, 4 * i), base + _u32(texts, 4 * i), base + _u32(texts, 4 * i + 4))
                for i in range(n)]


def _fc_of(pieces: list[Piece], starts: list[int], cp: int) -> int:
    p = pieces[max(bisect.bisect_right(starts, cp) - 1, 0)]
    return p.fc + (cp - p.cp) * (1 if p.compressed else 2)


def _hidden_cps(pieces: list[Piece], spans: list[tuple[int, int]], upto: int) -> bytearray:
    """A flag per CP below ``upto``: 1 where the character's stream position is in one of
    ``spans``."""
    flags = bytearray(upto)
    for p in pieces:
        step = 1 if p.compressed else 2
        end_fc = p.fc + (p.end - p.cp) * step
        for start, end in spans:
            lo, hi = max(start, p.fc), min(end, end_fc)
            if lo < hi:
                a = p.cp + (lo - p.fc + step - 1) // step
                b = min(p.cp + (hi - p.fc + step - 1) // step, upto)
                flags[a:b] = b"\1" * max(b - a, 0)
    return flags


class DocExtractor:
    name = "doc"
    version = "3"  # 2: the text of its inline pictures, read by OCR, after their paragraph or
    # row; 3: its floating pictures' too (OfficeArt shapes anchored by character 8)
    suffixes = (".doc",)

    def extract(self, path: Path, rel: str) -> Document:
        try:
            with path.open("rb") as f:
                head = f.read(512)
        except OSError as exc:
            raise ExtractionError(rel, f"cannot read file: {exc.strerror or exc}") from exc
        if not head:
            raise ExtractionError(rel, "empty file (0 bytes), not a Word document")
        if not head.startswith(OLE2_SIGNATURE):
            if (other := _as_word_opens_it(head, path, rel)) is not None:
                return other
            raise ExtractionError(rel, _what_it_is(head, path))
        try:
            ole = olefile.OleFileIO(str(path))
        except (OSError, ValueError, IndexError) as exc:  # olefile's damaged-file errors
            raise ExtractionError(rel, f"a damaged Word document: its compound file cannot be "
                                       f"read ({exc})") from exc
        with ole:
            if not ole.exists("WordDocument"):
                raise ExtractionError(rel, missing_stream(
                    {"/".join(e) for e in ole.listdir()}, "WordDocument", "a Word document",
                    ".doc", ".docx"))
            try:
                word = ole.openstream("WordDocument").read()
                if len(word) < RG_FC_LCB or _u16(word, 0) != W_IDENT:
                    raise ExtractionError(rel, "not a Word document: its WordDocument stream "
                                               "does not start with Word's identifier")
                if _u16(word, 2) < FIRST_WORD97_NFIB:
                    raise ExtractionError(rel, "a Word 95 (or older) file; save it as .docx")
                flags = _u16(word, 10)
                if flags & F_ENCRYPTED:
                    raise ExtractionError(rel, "encrypted with a password; save a copy without "
                                               "the password")
                name = "1Table" if flags & F_WHICH_TBL_STM else "0Table"
                if not ole.exists(name):
                    raise ExtractionError(rel, f"a damaged Word document: its {name} stream "
                                               "is missing")
                table = ole.openstream(name).read()
                data = ole.openstream("Data").read() if ole.exists("Data") else b""
                title = _decode_title(*self._title(ole))
                warnings: list[str] = []
                pictures = PictureReader(warnings)
                text, first_heading = self._read(word, table, data, pictures)
                pictures.close()
            except (IndexError, ValueError, OSError) as exc:
                raise ExtractionError(rel, f"a damaged Word document: a table points outside "
                                           f"its stream ({exc})") from exc
        if not text.strip():
            raise ExtractionError(rel, "; ".join(warnings) or "the document has no text in its body")
        own, named = metadata_title(title, path.stem) if title.strip() else (None, None)
        return Document(
            path=rel,
            title=own or first_heading or named or path.stem,
            text=text,
            media_type="application/msword",
            extractor=self.name,
            extractor_version=self.version,
            warnings=tuple(warnings),
            headings="atx",
        )

    @staticmethod
    def _title(ole: olefile.OleFileIO) -> tuple[object, object]:
        if not ole.exists("\x05SummaryInformation"):
            return None, None
        meta = ole.get_metadata()
        return meta.title, meta.codepage

    def _read(self, word: bytes, table: bytes, data: bytes,
              pictures: PictureReader) -> tuple[str, str | None]:
        """The canonical text and the first heading's title; ``data``: the Data stream,
        where inline pictures are, read by ``pictures``."""
        r = _Reader(word, table)
        pieces = r.pieces()
        starts = [p.cp for p in pieces]
        c = r.ccp
        ftn_base = c[CCP_TEXT]
        edn_base = c[CCP_TEXT] + c[CCP_FTN] + c[CCP_HDD] + c[CCP_ATN]
        notes = {ref: ("footnote", a, b) for ref, a, b in r.notes(PLCFFNDREF, PLCFFNDTXT, ftn_base)}
        notes |= {ref: ("endnote", a, b) for ref, a, b in r.notes(PLCFENDREF, PLCFENDTXT, edn_base)}
        upto = max([c[CCP_TEXT], *(b for _, _, b in notes.values())])
        chars = r.text(pieces, upto)
        if len(chars) < upto:
            raise IndexError(f"the text ends at {len(chars)} of {upto} characters")
        hidden = bytearray()
        try:  # formatting that cannot be read hides nothing
            hidden = _hidden_cps(pieces, hidden_spans(word, table, *r.pair(PLCFBTECHPX)), upto)
        except IndexError:
            pass
        runs: list[tuple[int, int, ParaProps]] = []
        levels: dict[int, int] = {}
        try:  # nor do paragraph properties: tables are then told by their marks alone ...
            runs = paragraph_runs(word, table, *r.pair(PLCFBTEPAPX))
        except IndexError:
            pass
        try:  # ... nor styles: headings are then text
            fc, lcb = r.pair(STSHF)
            levels = style_levels(_slice(table, fc, lcb)) if lcb else {}
        except IndexError:
            pass
        run_starts = [s for s, _, _ in runs]
        anchors: dict[int, int] = {}  # a picture's anchor's CP: its place in the Data stream
        try:  # pictures whose place cannot be read are not read
            placed = picture_runs(word, table, *r.pair(PLCFBTECHPX)) if data else []
            placed_starts = [s for s, _, _ in placed]
            for cp, ch in enumerate(chars[:c[CCP_TEXT]]):
                if ch == "\x01":
                    fc = _fc_of(pieces, starts, cp)
                    i = bisect.bisect_right(placed_starts, fc) - 1
                    if i >= 0 and fc < placed[i][1]:
                        anchors[cp] = placed[i][2]
        except IndexError:
            pass

        floating: dict[int, tuple[bytes | None, str]] = {}  # an anchor's CP: its picture
        try:  # floating pictures whose shapes cannot be read are not read
            fc, lcb = r.pair(PLCSPAMOM)
            if lcb:
                shapes = officeart.word_drawing_pictures(_slice(table, *r.pair(DGGINFO)), word)
                n = (lcb - 4) // (4 + SPA_SIZE)
                for i in range(n):
                    cp = _u32(table, fc + 4 * i)
                    spid = _u32(table, fc + 4 * (n + 1) + SPA_SIZE * i)
                    if spid in shapes and cp < c[CCP_TEXT] and chars[cp] == "\x08":
                        floating[cp] = shapes[spid]
        except IndexError:
            pass

        def picture_block(at: int) -> str:
            try:
                found, kind = picture_file(data, at)
            except (IndexError, struct.error):  # that picture alone: the document is read
                pictures.damaged("its place in the Data stream is past the stream's end")
                return ""
            return picture_text(found, kind)

        def picture_text(found: bytes | None, kind: str) -> str:
            if found is None:
                if kind:
                    pictures.not_read(kind)
                return ""
            return escape_markdown(pictures.text(found, kind))

        def props(para: Para) -> ParaProps | None:
            if not runs or not para.mark:
                return None
            fc = _fc_of(pieces, starts, para.cp)
            i = bisect.bisect_right(run_starts, fc) - 1
            return runs[i][2] if i >= 0 and fc < runs[i][1] else None

        counts = {"footnote": 0, "endnote": 0}

        def note_blocks(refs: tuple[int, ...]) -> Iterator[str]:
            """The blocks after a paragraph or a row: its notes', its pictures' text."""
            for ref in refs:
                if ref in anchors or ref in floating:
                    if block := (picture_block(anchors[ref]) if ref in anchors
                                 else picture_text(*floating[ref])):
                        yield block
                    continue
                kind, a, b = notes[ref]
                mark = chars[ref]
                if mark == "\x02":
                    counts[kind] += 1
                    mark = str(counts[kind]) if kind == "footnote" else roman(counts[kind])
                body = " ".join(t for t in (squash(p.text) for p in split_paragraphs(
                    chars[a:b], a, hidden=hidden[a:b])) if t)
                if body:
                    yield escape_markdown(f"{kind.capitalize()} {mark}: {body}")

        out = TextBuilder()
        first_heading: str | None = None
        cells: list[str] = []
        cell: list[str] = []
        inner_row: list[str] = []
        inner_cell: list[str] = []
        row_notes: list[int] = []
        previous = ""
        refs = frozenset(notes) | frozenset(anchors) | frozenset(floating)
        for para in split_paragraphs(chars[:c[CCP_TEXT]], 0, refs, hidden):
            p = props(para)
            if p is None:  # no properties: a cell ends at \x07, a row at a second one
                row_end = para.mark == "\x07" and previous == "\x07" and not para.text
                p = ParaProps(itap=int(para.mark == "\x07"), ttp=row_end)
            previous = para.mark
            if p.itap >= 2:  # a nested table's paragraph: read inside its outer cell
                row_notes.extend(para.refs)
                if p.inner_ttp:
                    if any(inner_row):
                        cell.append(" | ".join(inner_row))
                    inner_row = []
                    continue
                inner_cell.append(squash(para.text))
                if p.inner_cell or para.mark == "\x07":
                    inner_row.append(" ".join(t for t in inner_cell if t))
                    inner_cell = []
                continue
            if p.itap == 1:
                row_notes.extend(para.refs)
                if p.ttp:
                    if any(cells):
                        out.add(escape_markdown(" | ".join(cells)), sep="\n\n")
                    for block in note_blocks(tuple(row_notes)):
                        out.add(block, sep="\n\n")
                    cells, row_notes = [], []
                    continue
                cell.append(squash(para.text))
                if para.mark == "\x07":
                    cells.append(" ".join(t for t in cell if t))
                    cell = []
                continue
            level = p.outline + 1 if p.outline < 9 else levels.get(p.istd)
            if level is not None:
                title = squash(para.text)
                if title:
                    out.add("#" * min(level, MAX_HEADING_LEVEL) + " " + title, sep="\n\n")
                    first_heading = first_heading or title
            else:
                body = one_paragraph(para.text)
                if body:
                    out.add(escape_markdown(body), sep="\n\n")
            for block in note_blocks(para.refs):
                out.add(block, sep="\n\n")
        if any(cells + cell):  # a table the text ends inside (a damaged one)
            out.add(escape_markdown(" | ".join(cells + [" ".join(cell)])), sep="\n\n")
        return out.text(), first_heading


register(DocExtractor())
