"""PowerPoint 97-2003 presentations (.ppt; slide shows .pps and templates .pot are the same
format), the binary format of [MS-PPT], with olefile (BSD).

A .ppt is a compound file (MS-CFB) whose ``PowerPoint Document`` stream is a sequence of
records: an 8-byte header (recVer and recInstance in 2 bytes, recType in 2, recLen in 4)
and recLen bytes, a container's (recVer 0xF) being more records. Nothing in the stream is
found by its place: the ``Current User`` stream gives the offset of the last edit (a
UserEditAtom), each edit its persist directory (persist id -> offset) and the one before
it, and the newest entry of a persist id wins, so a slide edited and saved again in place
("fast save") is read as last saved and a deleted one not at all
(:func:`persist_directory`). The edit names the DocumentContainer, whose slide list
(SlideListWithTextContainer, instance 0) orders the slides, each a SlidePersistAtom naming
its SlideContainer; the notes list (instance 2) names the notes pages, each saying whose
slide's notes it holds.

A slide's text is in its drawing (MS-ODRAW's shapes, in the order the slide lists them,
a group's shapes in place): a shape's ClientTextbox holds a TextHeaderAtom (the text's
type: title, body, notes, other ...) and its characters (TextCharsAtom, UTF-16LE, or
TextBytesAtom, one byte a character: the low byte of its code point), or, for a
placeholder PowerPoint writes so, an OutlineTextRefAtom: the index of the text in the
slide list, after the slide's SlidePersistAtom. Each text is read once, in drawing order;
one of the slide list's the drawing never refers to comes after the drawing's. In the
text ``\\r`` ends a paragraph and ``\\x0b`` is a line break; a field (the slide number, a
date) is a ``*`` with an atom saying which: the slide number is written, a date or a
header or footer field (whose text is not stored) is left out; other control characters
are spaces.

Canonical text is the .pptx reader's (:func:`~citeline.extract.slides.deck_document`), so
a deck reads the same saved either way: each slide a ``#`` section titled by its title
placeholder (``Slide N`` when it has none), its text boxes and placeholders a block
each with a line a paragraph, a table (a group shape MS-ODRAW marks as a table, its cells
shapes) a ``cell | cell`` block a row, and the speaker notes (the notes page's body) as
``Notes: ...``; a SLIDE region per slide (``#slide=N``), furniture dropped as there:
footer, date, slide number and header placeholders, a text box that is only the slide's
number, a short text repeated on most slides. The title: the SummaryInformation's title
unless it names nothing (:func:`~citeline.extract.blocks.metadata_title`), else the
first slide's title, else the file's name.

Not read: the nesting of slides under Section Header slides and PowerPoint's named
sections (a .ppt written by PowerPoint 2007 or later keeps its layouts and sections in
round-trip records, LibreOffice in none), charts and SmartArt (OLE objects and pictures
in a .ppt), comments. PowerPoint 95 and older files, and encrypted ones, fail saying so.

A picture's text (a screenshot, a pasted scan) is read by OCR as the .pptx reader reads
one (:class:`~citeline.extract.image.PictureReader`), a block in its place among the
slide's shapes: a picture shape's property ``pib`` counts into the BLIP store of the
document's drawing group, whose entry holds the picture or says where it is in the
``Pictures`` stream (:mod:`citeline.extract.officeart`); a metafile is counted in a
warning.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import olefile

from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import officeart, register
from citeline.extract.blocks import OLE2_SIGNATURE, metadata_title, missing_stream, squash
from citeline.extract.doc import _decode_title
from citeline.extract.image import PictureReader
from citeline.extract.slides import Slide, deck_document, paragraph_lines, table_rows
from citeline.types import Document

STREAM = "PowerPoint Document"
# Record types (MS-PPT 2.13.24, RecordType)
RT_DOCUMENT = 0x03E8
RT_SLIDE = 0x03EE
RT_NOTES = 0x03F0
RT_NOTES_ATOM = 0x03F1
RT_SLIDE_PERSIST_ATOM = 0x03F3
RT_DRAWING = 0x040C
RT_PLACEHOLDER_ATOM = 0x0BC3
RT_OUTLINE_TEXT_REF = 0x0F9E
RT_TEXT_HEADER = 0x0F9F
RT_TEXT_CHARS = 0x0FA0
RT_TEXT_BYTES = 0x0FA8
RT_SLIDE_LIST_WITH_TEXT = 0x0FF0
RT_USER_EDIT = 0x0FF5
RT_CURRENT_USER = 0x0FF6
RT_PERSIST_DIRECTORY = 0x1772
RT_CRYPT_SESSION = 0x2F14
# A field's meta character atoms: the slide number's, and those whose text is not stored
# (a date and time, a generic date, a header, a footer, an RTF date and time).
RT_SLIDE_NUMBER_MC = 0x0FD8
RT_OTHER_MC = frozenset({0x0FF7, 0x0FF8, 0x0FF9, 0x0FFA, 0x1015})
# The slide lists' instances: the slides', the notes pages'.
SLIDES, NOTES = 0, 2
# OfficeArt records (MS-ODRAW 2.2): a drawing, a group of shapes, a shape, the shape's
# header (its type in the instance, its flags), its properties, the anchors of a shape in
# a group and on the slide, and the client's data (PowerPoint's placeholder atom) and text.
OA_DG, OA_SPGR, OA_SP, OA_FSP = 0xF002, 0xF003, 0xF004, 0xF00A
OA_FOPT, OA_TERTIARY_FOPT = 0xF00B, 0xF122
OA_CHILD_ANCHOR, OA_CLIENT_ANCHOR = 0xF00F, 0xF010
OA_CLIENT_DATA, OA_CLIENT_TEXTBOX = 0xF011, 0xF00D
FSP_DELETED = 0x0008
SPT_LINE = 20  # msosptLine: a table's borders are lines among its cells
PROP_TABLE = 0x039F  # tableProperties: bit 0 says the group is a table
PROP_PIB, PROP_BID = 0x0104, 0x4000  # a picture shape's BLIP (1-based in the store)
RT_DRAWING_GROUP = 0x040B  # the document's drawing group: OfficeArt's BLIP store in it
OA_DGG = 0xF000
# TextHeaderAtom's text types: a title, a centred title (a title slide's)
TEXT_TITLE, TEXT_NOTES, TEXT_CENTER_TITLE = 0, 2, 6
# PlaceholderAtom's types (MS-PPT PlaceholderEnum): titles, furniture, notes bodies
_TITLE_PLACEHOLDERS = frozenset({0x01, 0x03, 0x0D, 0x0F, 0x11})
_FURNITURE_PLACEHOLDERS = frozenset({0x07, 0x08, 0x09, 0x0A})
_NOTES_PLACEHOLDERS = frozenset({0x06, 0x0C})
# CurrentUserAtom (MS-PPT 2.3.2): its headerToken when the file is not encrypted, and
# when it is.
TOKEN_PLAIN, TOKEN_ENCRYPTED = 0xE391C05F, 0xF3D1C4DF
# The shortest Current User stream of PowerPoint 97 and later: a PowerPoint 95 one is
# shorter (Apache POI tells them so), and PowerPoint 4.0's file has a PP40 stream.
CURRENT_USER_MIN = 28
# Bounds on a damaged or hostile file: edits followed back, groups nested in groups.
MAX_EDITS = 10_000
MAX_GROUP_DEPTH = 64
# A control character is a space in the text but for the paragraph and line marks (and
# the tab, a space anyway).
_CONTROLS = {c: " " for c in (*range(0x20), *range(0x7F, 0xA0)) if c not in (0x0B, 0x0D)}


class Record(NamedTuple):
    """A record's type, instance and body's span [start, end) in its stream; ``container``
    when its body is more records (recVer 0xF)."""

    type: int
    instance: int
    container: bool
    start: int
    end: int


def records(data: bytes, start: int = 0, end: int | None = None) -> Iterator[Record]:
    """The records one after another in ``data[start:end]``; IndexError when one runs
    past ``end`` (a damaged file). Trailing bytes too few for a header are ignored.

    >>> data = bytes.fromhex("0f00 e803 0a000000" "0000 a80f 02000000 4869")
    >>> [(hex(r.type), r.container, r.start, r.end) for r in records(data)]
    [('0x3e8', True, 8, 18)]
    >>> [(hex(r.type), data[r.start:r.end]) for r in records(data, 8, 18)]
    [('0xfa8', b'Hi')]
    """
    end = len(data) if end is None else end
    at = start
    while at + 8 <= end:
        ver_instance, kind, size = struct.unpack_from("<HHI", data, at)
        if at + 8 + size > end:
            raise IndexError(f"the record at byte {at} runs past its container's end")
        yield Record(kind, ver_instance >> 4, ver_instance & 0xF == 0xF, at + 8, at + 8 + size)
        at += 8 + size


def _children(data: bytes, rec: Record) -> Iterator[Record]:
    return records(data, rec.start, rec.end) if rec.container else iter(())


def _record_at(data: bytes, at: int, kind: int) -> Record:
    """The record at byte ``at``, which must be of type ``kind``."""
    rec = next(records(data, at, len(data)), None) if at >= 0 else None
    if rec is None or rec.start != at + 8 or rec.type != kind:
        raise IndexError(f"no record {kind:#06x} at byte {at}")
    return rec


def _type_at(data: bytes, at: int) -> int | None:
    """The type of the record at byte ``at``, or None past the end."""
    return int(struct.unpack_from("<H", data, at + 2)[0]) if 0 <= at <= len(data) - 8 else None


def _u32(data: bytes, at: int) -> int:
    if at + 4 > len(data):
        raise IndexError(at)
    return int(struct.unpack_from("<I", data, at)[0])


@dataclass
class Edit:
    """What the newest UserEditAtom says: the DocumentContainer's persist id, and the
    encryption session's (0: none)."""

    document: int
    crypt: int = 0


def persist_directory(stream: bytes, edit_at: int) -> tuple[dict[int, int], Edit]:
    """Persist id -> stream offset, from the edit at ``edit_at`` back to the first (MS-PPT
    2.3.3: each PersistDirectoryAtom's entries are a 4-byte word, its first persist id in
    the low 20 bits and a count in the high 12, then that many offsets), a newer edit's
    entry overriding an older one's; and the newest edit."""
    edits = []
    seen: set[int] = set()
    at = edit_at
    while True:
        if at in seen or len(edits) > MAX_EDITS:
            raise IndexError("the edits' chain loops")
        seen.add(at)
        rec = _record_at(stream, at, RT_USER_EDIT)
        edits.append(rec)
        at = _u32(stream, rec.start + 8)  # offsetLastEdit: 0 for the first edit
        if not at:
            break
    offsets: dict[int, int] = {}
    for rec in reversed(edits):  # oldest first: a newer entry wins
        directory = _record_at(stream, _u32(stream, rec.start + 12), RT_PERSIST_DIRECTORY)
        at = directory.start
        while at + 4 <= directory.end:
            word = _u32(stream, at)
            first, count = word & 0xFFFFF, word >> 20
            for i in range(count):
                offsets[first + i] = _u32(stream, at + 4 + 4 * i)
            at += 4 + 4 * count
    newest = edits[0]
    crypt = _u32(stream, newest.start + 28) if newest.end - newest.start >= 32 else 0
    return offsets, Edit(document=_u32(stream, newest.start + 16), crypt=crypt)


@dataclass
class Text:
    """A text of a slide or notes page as stored: its TextHeaderAtom's type, its
    characters, and its fields (the position of each ``*`` and its atom's type)."""

    kind: int
    chars: str = ""
    fields: list[tuple[int, int]] = field(default_factory=list)

    def shown(self, number: int) -> str:
        """The text as the slide numbered ``number`` shows it: a slide number field that
        number, another field nothing, control characters spaces (pure).

        >>> Text(4, "Page *\\x01of\\x0bten", [(5, RT_SLIDE_NUMBER_MC)]).shown(3)
        'Page 3 of\\x0bten'
        """
        chars = list(self.chars)
        for at, kind in sorted(self.fields, reverse=True):
            if 0 <= at < len(chars) and chars[at] == "*":
                chars[at] = str(number) if kind == RT_SLIDE_NUMBER_MC else ""
        return "".join(chars).translate(_CONTROLS)

    def block(self, number: int) -> str:
        """A body text's block: a line a paragraph (\\r), a line break (\\x0b) a line too."""
        return paragraph_lines(self.shown(number).split("\r"))

    def title(self, number: int) -> str:
        return squash(self.shown(number).replace("\r", " "))


def texts(data: bytes, recs: Iterator[Record]) -> list[Text]:
    """The texts of a run of records (a ClientTextbox's, a slide's part of a slide list):
    each TextHeaderAtom starts one; its characters and fields follow it."""
    out: list[Text] = []
    for rec in recs:
        if rec.type == RT_TEXT_HEADER:
            out.append(Text(kind=_u32(data, rec.start)))
        elif not out:
            continue
        elif rec.type == RT_TEXT_CHARS:
            out[-1].chars = data[rec.start:rec.end].decode("utf-16-le", errors="replace")
        elif rec.type == RT_TEXT_BYTES:
            out[-1].chars = data[rec.start:rec.end].decode("latin-1")
        elif rec.type == RT_SLIDE_NUMBER_MC or rec.type in RT_OTHER_MC:
            out[-1].fields.append((_u32(data, rec.start), rec.type))
    return out


@dataclass
class Shape:
    """A shape of a drawing that may hold text: its placeholder type (0: none), its own
    text, or the index of its text in the slide list; a table's cells instead, each with
    its place (top, left) in the group."""

    placeholder: int = 0
    text: Text | None = None
    ref: int | None = None
    cells: list[tuple[tuple[int, int], Text | None]] | None = None
    picture: int = 0  # a picture shape's BLIP, 1-based in the document's store (pib)


def _shape(data: bytes, sp: Record) -> tuple[int, int, Shape, tuple[int, int], bool]:
    """A shape container's (OfficeArtSpContainer) shape type, flags, text, place and
    whether its properties mark it a table."""
    kind = flags = 0
    shape = Shape()
    place = (0, 0)
    table = False
    for rec in _children(data, sp):
        if rec.type == OA_FSP:
            kind, flags = rec.instance, _u32(data, rec.start + 4)
        elif rec.type in (OA_FOPT, OA_TERTIARY_FOPT):
            for i in range(rec.instance):  # 6 bytes a property: its id (14 bits), value
                opid, value = struct.unpack_from("<HI", data, rec.start + 6 * i) \
                    if rec.start + 6 * i + 6 <= rec.end else (0, 0)
                if opid & 0x3FFF == PROP_TABLE and value & 1:
                    table = True
                elif opid & 0x3FFF == PROP_PIB and opid & PROP_BID:
                    shape.picture = value
        elif rec.type == OA_CHILD_ANCHOR and rec.end - rec.start >= 16:
            left, top = struct.unpack_from("<ii", data, rec.start)
            place = (top, left)
        elif rec.type == OA_CLIENT_ANCHOR and rec.end - rec.start >= 8 and place == (0, 0):
            top, left = struct.unpack_from("<hh", data, rec.start)
            place = (top, left)
        elif rec.type == OA_CLIENT_DATA:
            for atom in _children(data, rec):
                if atom.type == RT_PLACEHOLDER_ATOM and atom.end - atom.start >= 5:
                    shape.placeholder = data[atom.start + 4]
        elif rec.type == OA_CLIENT_TEXTBOX:
            own = texts(data, _children(data, rec))
            shape.text = own[0] if own else None
            for atom in _children(data, rec):
                if atom.type == RT_OUTLINE_TEXT_REF:
                    shape.ref = _u32(data, atom.start)
    return kind, flags, shape, place, table


def shapes(data: bytes, group: Record, depth: int = 0) -> Iterator[Shape]:
    """The shapes of a group (OfficeArtSpgrContainer) in the drawing's order, a group's
    shapes in place, a table as one shape of cells; deleted shapes left out."""
    if depth > MAX_GROUP_DEPTH:
        raise IndexError(f"groups nested over {MAX_GROUP_DEPTH} deep")
    first = True
    for rec in _children(data, group):
        if rec.type == OA_SPGR:
            yield from shapes(data, rec, depth + 1)
        elif rec.type == OA_SP:
            kind, flags, shape, _, table = _shape(data, rec)
            if first:  # the group's own shape: its properties say whether it is a table
                first = False
                if table:
                    yield _table(data, group)
                    return
                continue
            if not flags & FSP_DELETED:
                yield shape


def _table(data: bytes, group: Record) -> Shape:
    """A table's cells: the group's shapes but its borders (lines), each with its place."""
    cells = []
    for rec in list(_children(data, group))[1:]:
        if rec.type == OA_SP:
            kind, flags, shape, place, _ = _shape(data, rec)
            if kind != SPT_LINE and not flags & FSP_DELETED:
                cells.append((place, shape.text))
    return Shape(cells=cells)


def _table_blocks(cells: list[tuple[tuple[int, int], Text | None]], number: int) -> Iterator[str]:
    """A table's rows: cells sharing a top edge are a row, each in the column of its left
    edge; a column a merged cell covers is empty in its other rows (shown once)."""
    columns = sorted({left for (_, left), _ in cells})
    rows: dict[int, dict[int, str]] = {}
    for (top, left), text in sorted(cells, key=lambda c: c[0]):
        rows.setdefault(top, {})[left] = text.shown(number).replace("\r", " ") if text else ""
    yield from table_rows([row.get(c, "") for c in columns] for _, row in sorted(rows.items()))


def _drawing(data: bytes, container: Record) -> Iterator[Shape]:
    """A slide's or notes page's shapes (its DrawingContainer's OfficeArtDgContainer)."""
    for rec in _children(data, container):
        if rec.type == RT_DRAWING:
            for dg in _children(data, rec):
                if dg.type == OA_DG:
                    for top in _children(data, dg):
                        if top.type == OA_SPGR:
                            yield from shapes(data, top)


class Page(NamedTuple):
    """A slide list's entry: its SlidePersistAtom's persist id and slide id, and the texts
    that follow it."""

    persist: int
    slide_id: int
    texts: list[Text]


def slide_list(data: bytes, document: Record, instance: int) -> list[Page]:
    """The slides (``instance`` 0) or notes pages (2) of the DocumentContainer, in order."""
    pages: list[Page] = []
    for lst in _children(data, document):
        if lst.type != RT_SLIDE_LIST_WITH_TEXT or lst.instance != instance:
            continue
        run: list[Record] = []
        for rec in [*_children(data, lst), None]:
            if rec is None or rec.type == RT_SLIDE_PERSIST_ATOM:
                if pages:
                    pages[-1].texts.extend(texts(data, iter(run)))
                run = []
                if rec is not None:
                    pages.append(Page(_u32(data, rec.start), _u32(data, rec.start + 12), []))
            else:
                run.append(rec)
    return pages


def _page_texts(data: bytes, container: Record, outline: list[Text]) -> Iterator[tuple[Shape, Text]]:
    """A page's shapes with their text, in drawing order, each text once: a shape's own,
    or the slide list's it refers to; then the slide list's texts none referred to."""
    used: set[int] = set()
    for shape in _drawing(data, container):
        text = shape.text
        if shape.ref is not None and 0 <= shape.ref < len(outline):
            if shape.ref in used:
                continue
            used.add(shape.ref)
            text = outline[shape.ref]
        if text is not None or shape.cells is not None or shape.picture:
            yield shape, text or Text(kind=-1)
    for i, text in enumerate(outline):
        if i not in used:
            yield Shape(), text


def read_slide(data: bytes, container: Record, page: Page, number: int, notes: str,
               pictures: Callable[[int], str]) -> Slide:
    """One slide: its title (the first title placeholder's or title text's), its other
    texts a block each (tables a block a row), a picture's text (``pictures`` of its
    pib) a block, furniture placeholders left out."""
    title: str | None = None
    blocks: list[str] = []
    for shape, text in _page_texts(data, container, page.texts):
        if shape.picture and text.kind == -1:
            if read := pictures(shape.picture):
                blocks.append(read)
        elif shape.cells is not None:
            blocks.extend(_table_blocks(shape.cells, number))
        elif shape.placeholder in _FURNITURE_PLACEHOLDERS:
            continue
        elif shape.placeholder in _TITLE_PLACEHOLDERS or text.kind in (TEXT_TITLE, TEXT_CENTER_TITLE):
            title = text.title(number) if title is None else title
        elif block := text.block(number):
            blocks.append(block)
    return Slide(number=number, title=title or "", blocks=blocks, notes=notes)


def blip_store(data: bytes, document: Record) -> list[int]:
    """Where each entry of the document's BLIP store (OfficeArtFBSE) is in ``data``, in
    order: a picture shape's pib counts from 1 into it."""
    for group in _children(data, document):
        if group.type == RT_DRAWING_GROUP:
            for dgg in _children(data, group):
                if dgg.type == OA_DGG:
                    for store in _children(data, dgg):
                        if store.type == officeart.BSTORE:
                            return [entry.start - 8 for entry in _children(data, store)]
    return []


def notes_text(data: bytes, container: Record, page: Page, number: int) -> str:
    """A notes page's speaker notes: its notes body's text (the .pptx reader reads only
    that placeholder too)."""
    for shape, text in _page_texts(data, container, page.texts):
        if shape.placeholder in _NOTES_PLACEHOLDERS or text.kind == TEXT_NOTES:
            if body := text.block(number):
                return body
    return ""


def _what_it_is(head: bytes, path: Path) -> str:
    """Why a file named .ppt is no compound file, saying what it is when that shows."""
    suffix = path.suffix.lower()
    if head.startswith(b"PK\x03\x04") and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            kind = z.read("mimetype").decode("ascii", "replace").strip() \
                if "mimetype" in names else ""
        if "ppt/presentation.xml" in names:
            return (f"an Office Open XML package (.pptx) under a {suffix} name: rename "
                    "it .pptx")
        if kind == "application/vnd.oasis.opendocument.presentation":
            return f"an OpenDocument presentation (.odp) under a {suffix} name: rename it .odp"
        return "a ZIP archive, not a PowerPoint 97-2003 presentation"
    return "not a PowerPoint 97-2003 presentation (not an OLE compound file)"


def _no_powerpoint_stream(ole: olefile.OleFileIO) -> str:
    """Why a compound file with no PowerPoint Document stream is no presentation: PowerPoint
    95's (its PP40 stream), else as :func:`~citeline.extract.blocks.missing_stream` says."""
    streams = {"/".join(e) for e in ole.listdir()}
    if "PP40" in streams and "EncryptedPackage" not in streams:
        return OLD
    return missing_stream(streams, "PowerPoint Document", "a PowerPoint presentation", ".ppt",
                          ".pptx")


ENCRYPTED = "encrypted with a password; save a copy without the password"
OLD = "a PowerPoint 95 (or older) file; save it as .pptx"


class PptExtractor:
    name = "ppt"
    version = "2"  # 2: the text of its pictures, read by OCR, a block among the shapes
    suffixes = (".ppt", ".pps", ".pot")

    def extract(self, path: Path, rel: str) -> Document:
        try:
            with path.open("rb") as f:
                head = f.read(512)
        except OSError as exc:
            raise ExtractionError(rel, f"cannot read file: {exc.strerror or exc}") from exc
        if not head:
            raise ExtractionError(rel, "empty file (0 bytes), not a PowerPoint presentation")
        if not head.startswith(OLE2_SIGNATURE):
            if path.suffix.lower() == ".pot" and not head.startswith(b"PK\x03\x04"):
                # gettext's translation templates are .pot files too, and far commoner
                raise UnsupportedFormat(rel, "unsupported file type '.pot' (not a PowerPoint "
                                             "template: a gettext translation template?)")
            raise ExtractionError(rel, _what_it_is(head, path))
        try:
            ole = olefile.OleFileIO(str(path))
        except (OSError, ValueError, IndexError) as exc:  # olefile's damaged-file errors
            raise ExtractionError(rel, f"a damaged PowerPoint presentation: its compound file "
                                       f"cannot be read ({exc})") from exc
        with ole:
            # a file saved as "PowerPoint 97-2003 & 95" keeps the 97 one in this storage
            base = "PP97_DUALSTORAGE/" if ole.exists(f"PP97_DUALSTORAGE/{STREAM}") else ""
            if not ole.exists(base + STREAM):
                raise ExtractionError(rel, _no_powerpoint_stream(ole))
            if ole.exists("EncryptedSummary"):
                raise ExtractionError(rel, ENCRYPTED)
            try:
                stream = ole.openstream(base + STREAM).read()
                user = ole.openstream(base + "Current User").read() \
                    if ole.exists(base + "Current User") else b""
                title = _decode_title(*self._title(ole))
                delay = ole.openstream(base + "Pictures").read() \
                    if ole.exists(base + "Pictures") else b""
                warnings: list[str] = []
                pictures = PictureReader(warnings)
                slides = self._read(stream, user, rel, delay, pictures)
                pictures.close()
            except (IndexError, ValueError, OSError, struct.error) as exc:
                raise ExtractionError(rel, f"a damaged PowerPoint presentation: a record "
                                           f"points outside its stream ({exc})") from exc
        own, named = metadata_title(title, path.stem) if title.strip() else (None, None)
        deck_title = own or ("" if any(s.title for s in slides) else named or "")
        return deck_document(slides, path, rel, deck_title,
                             media_type="application/vnd.ms-powerpoint",
                             extractor=self.name, version=self.version,
                             warnings=tuple(warnings))

    @staticmethod
    def _title(ole: olefile.OleFileIO) -> tuple[object, object]:
        if not ole.exists("\x05SummaryInformation"):
            return None, None
        meta = ole.get_metadata()
        return meta.title, meta.codepage  # _decode_title reads a signed code page right

    def _read(self, stream: bytes, user: bytes, rel: str, delay: bytes,
              pictures: PictureReader) -> list[Slide]:
        """The deck's slides, each with its notes; its pictures (in the BLIP store, or
        in ``delay``, the Pictures stream) read by ``pictures``."""
        if len(user) < CURRENT_USER_MIN:
            if len(user) >= 4 and _u32(user, 0) + 4 == len(user):  # PowerPoint 95's
                raise ExtractionError(rel, OLD)
            edit_at = self._last_edit(stream)
        elif _u32(user, 12) == TOKEN_ENCRYPTED:
            raise ExtractionError(rel, ENCRYPTED)
        else:
            edit_at = _u32(user, 16)
        offsets, edit = persist_directory(stream, edit_at)

        def container(persist: int, kind: int) -> Record:
            if persist not in offsets:
                raise IndexError(f"persist id {persist} is not in the persist directory")
            return _record_at(stream, offsets[persist], kind)

        if edit.crypt in offsets and _type_at(stream, offsets[edit.crypt]) == RT_CRYPT_SESSION:
            raise ExtractionError(rel, ENCRYPTED)
        document = container(edit.document, RT_DOCUMENT)
        slide_pages = slide_list(stream, document, SLIDES)
        numbers = {page.slide_id: n for n, page in enumerate(slide_pages, start=1)}
        notes: dict[int, str] = {}  # a slide's id -> its notes
        for page in slide_list(stream, document, NOTES):
            held = container(page.persist, RT_NOTES)
            atom = next((r for r in _children(stream, held) if r.type == RT_NOTES_ATOM), None)
            if atom is not None:
                owner = _u32(stream, atom.start)
                notes[owner] = notes_text(stream, held, page, numbers.get(owner, 0))
        try:
            store: list[int] | None = blip_store(stream, document)
        except IndexError:  # its pictures alone are lost: the slides' text is read
            store = None

        def picture(pib: int) -> str:
            if store is None:
                pictures.damaged("the deck's BLIP store runs past its record")
                return ""
            if not 1 <= pib <= len(store):
                return ""
            try:
                found = officeart.entry_blip(stream, store[pib - 1], delay)
            except (IndexError, struct.error):  # that picture alone: the deck is read
                pictures.damaged("its BLIP store entry runs past its stream")
                return ""
            if found is None:
                return ""
            file, kind = found
            if file is None:
                pictures.not_read(kind)
                return ""
            return pictures.text(file, kind)

        return [read_slide(stream, container(page.persist, RT_SLIDE), page, number,
                           notes.get(page.slide_id, ""), picture)
                for number, page in enumerate(slide_pages, start=1)]

    @staticmethod
    def _last_edit(stream: bytes) -> int:
        """With no Current User stream: the last UserEditAtom in the stream."""
        last = None
        for rec in records(stream):
            if rec.type == RT_USER_EDIT:
                last = rec.start - 8
        if last is None:
            raise IndexError("no Current User stream and no edit in the PowerPoint Document")
        return last


register(PptExtractor())
