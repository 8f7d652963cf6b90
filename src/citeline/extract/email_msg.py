"""E-mail: one message (``.eml``, RFC 5322, as a mail client saves or exports it) and a
mailbox of many (``.mbox``, as Thunderbird and Google Takeout export one), read with the
stdlib's ``email`` package (``email.policy.default``) and ``mailbox``.

(Not ``email.py``: that name would shadow the stdlib's package inside this one.)

Each message is a section: a ``#`` heading line with its Subject ("(no subject)" when
it has none), then a block of its From, To, Cc and Date headers, one line each, as
written (RFC 2047's encoded words decoded, folded lines unfolded), and an
``Attachments:`` line naming what it carries; then its body::

    # Budget for the trip

    From: Ana <ana@example.org>
    To: Ben <ben@example.org>
    Date: Tue, 14 May 2024 09:30:00 +0200
    Attachments: report.pdf (application/pdf, 120 kB)

    The ferry costs 40 euros.

    > Ben wrote: how much is the ferry?

The body is what a mail client set to prefer plain text shows: of a
``multipart/alternative``, the ``text/plain`` part when there is one with text, else the
HTML one (RFC 2046 puts the richest last), read as a page is
(:func:`citeline.extract.html.read_page`), its headings one level under the message's;
of a ``multipart/related`` (an HTML body with its pictures), its root part; of a
``multipart/mixed``, each part in order. Text is decoded by the part's declared charset
once the email package has undone its quoted-printable or base64; quoted reply text
(``> ...``) is kept as written. A ``text/plain; format=flowed`` part (RFC 3676, what
Thunderbird and Apple Mail send) is unflowed as a client shows it (:func:`unflow`): its
soft line breaks joined, so a paragraph is one line and a sentence is not cut at the
sender's wrap, within each quote depth; space-stuffing removed; ``DelSp=yes`` honoured. A forwarded message (a ``message/rfc822`` part, inline
or attached) is a section one level down, after its parent's own text, read the same
way. An attachment is named in the message's ``Attachments:`` line and read for its
text (:class:`Attachments`) by the extractor of its type, from its file name (else its
content type: an unnamed PDF is ``attachment.pdf``), exactly as the file saved alone
is: a section one level down headed ``Attachment: report.pdf``, before the forwarded
messages, its own headings one level under that (:func:`nested_text`). Its citations
are ranges of the message's text, under that heading path, and name the pages (a
deck's slides, a workbook's sheet range) of the file they span: its page, slide and row
regions are the document's ``ATTACHED_*`` regions, labelled by its name (``in
report.pdf, page 3``, ``in pumps.xlsx, Pumps!A3:C3``). A picture attached is read by
OCR as a picture in a document is: a photograph adds nothing. One that cannot be read (a type citeline does not read,
a damaged file) is said in a warning with why (``attachment notes.xyz
(application/octet-stream, 12 bytes) not indexed (unsupported file type '.xyz')``),
and its message is read without it. One content is read once per file, however many
messages of a mailbox carry it. The file's version names each reader of its
attachments at its version (``10 (docx 14, pdf 15)``): a change to the PDF reader marks
mail carrying a PDF stale, as it does a PDF saved alone. A picture the
message carries for its HTML body (a ``multipart/related`` part a ``cid:`` URL shows, or
a ``data:`` URI: a screenshot pasted into the message) is read by OCR too: where the
HTML shows it when the HTML is read, after the text when the plain text is (which only
marks it, as Outlook's ``[cid:image001.png@...]``); a picture on the web (a tracking
pixel, a newsletter's banner) is not the message's and is not read. A ``winmail.dat``
(TNEF, what Outlook sends a Rich Text message in: :mod:`citeline.extract.tnef`) is
unpacked: each file it holds is an attachment of the message (labelled ``report.pdf
(application/pdf, 12 kB, in winmail.dat)``), each message it holds a forwarded one, and
its body is the message's when the MIME message has no text of its own.

A part whose bytes break its declared charset is read with U+FFFD in their place and a
warning saying where; one declaring no charset (or US-ASCII, or one Python does not
know) is read as UTF-8, else as Windows-1252 when it is Western European text
(:func:`citeline.extract.text.western_text`), with a warning; else it is not read, with
a warning. A broken part never fails the file.

An ``.mbox`` is its messages in file order, each its own ``#`` section, numbered in
warnings ("message 3 'Budget': ..."); a body line that the mailbox escaped as ``>From``
(mboxrd and mboxo both do) reads ``From`` again. The title of an ``.eml`` is its
Subject, of an ``.mbox`` its file stem. Locators are ``#char=`` offsets and the heading
path (Subject > a forwarded message's Subject).

Refused, saying why: an empty file; an ``.eml`` with no header lines at all (a PDF
renamed); an ``.mbox`` whose first line is no ``From`` separator; a message over
:data:`~citeline.extract.blocks.MAX_UNPACKED`, as an Office package unpacking to more is
(in a mailbox, that message alone is left out, with a warning). The mailbox file is
opened as the ``mailbox`` module opens it (for writing where it may, as it locks and
rewrites mailboxes) and never written: nothing is added, removed or flushed.
"""

from __future__ import annotations

import bisect
import codecs
import email.policy
import hashlib
import mailbox
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from email.errors import HeaderParseError
from email.message import Message
from email.parser import BytesParser
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from urllib.parse import unquote

from citeline.chunk import fence_starts, headings, text_lines
from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import (
    Extractor,
    extractor_for,
    read_bytes,
    readers_of,
    register,
    supported,
    with_readers,
)
from citeline.extract.blocks import (
    MAX_HEADING_LEVEL,
    MAX_UNPACKED,
    escape_markdown,
    escape_points,
    squash,
)
from citeline.extract.html import data_uri_bytes, read_page
from citeline.extract.image import SUFFIXES as PICTURE_SUFFIXES
from citeline.extract.image import drawing_format, picture_text, why_not_an_image
from citeline.extract.ocr import ocr_status
from citeline.extract.text import undecodable, western_text
from citeline.types import Document, Region, RegionKind

# The headers a reader looks at to tell one message from another, in the order mail
# clients show them; others (Received, Message-ID, List-*) are routing, not content.
HEADER_FIELDS = ("From", "To", "Cc", "Date")
NO_SUBJECT = "(no subject)"
# A message's signature starts under this line (RFC 3676 4.3): a flowed part never
# flows it into the line before or after.
SIGNATURE_SEPARATOR = "-- "
# How much of an .mbox is read to check it starts as a mailbox does.
HEAD_BYTES = 4096
_PARSER = BytesParser(policy=email.policy.default)
_ATX = re.compile(r"(#{1,6}) ")
# No header the registry knows by name: its value is read as unstructured text.
_RAW_HEADER = "x-citeline-header"
# mboxo and mboxrd escape a body line starting "From " as ">From " (">>From " for one
# already escaped): one ">" comes off again, as mboxrd reads it.
_ESCAPED_FROM = re.compile(rb"^>(>*From )", re.M)
# Labels a mail client reads as Windows-1252 (the Encoding Standard's rule: Outlook
# labels its smart quotes, bytes 0x91-0x94, "iso-8859-1").
_WINDOWS_1252_LABELS = frozenset({"iso8859-1", "cp1252"})
_AS_UNDECLARED = frozenset({"ascii"})
_NO_PARTS: Mapping[str, Message] = MappingProxyType({})  # "us-ascii" over 8-bit text is the usual mislabel


def _size(n: int) -> str:
    """``_size(123_456) == "123 kB"`` (SI units, as mail clients show an attachment's)."""
    if n < 1000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.0f} kB"
    return f"{n / 1_000_000:.1f} MB"


def header_value(msg: Message, name: str) -> str:
    """A header's value as written, on one line (folding undone) with RFC 2047's encoded
    words decoded (8-bit UTF-8 read as such); "" when absent.

    Read as unstructured text, not parsed as its kind: an address header parsed drops
    what is no address (``ben@example.org (Ben Okafor)``, as mailing-list archives write
    From, loses the name) and keeps nothing of one it cannot parse.
    """
    raw = next((v for k, v in msg.raw_items() if k.lower() == name.lower()), None)
    if raw is None:
        return ""
    try:
        value = str(email.policy.default.header_factory(_RAW_HEADER, squash(raw)))
    except (HeaderParseError, IndexError, ValueError, TypeError, AttributeError):
        # the email package failed on it: shown as the file has it (8-bit bytes as UTF-8)
        value = raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return squash(value)


def _too_big(size: int) -> str:
    return (f"is {size >> 20} MB (the most read is {MAX_UNPACKED >> 20} MB): too big to "
            "index")


@dataclass
class _Body:
    """What a message's parts give: its text blocks, forwarded messages, attachments."""

    blocks: list[str] = field(default_factory=list)
    nested: list[Message] = field(default_factory=list)
    attached: list[_Attachment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    tnef: list[str] = field(default_factory=list)  # the body a winmail.dat keeps

    def take(self, other: _Body) -> None:
        self.blocks += other.blocks
        self.nested += other.nested
        self.attached += other.attached
        self.warnings += other.warnings
        self.tnef += other.tnef


def message_blocks(msg: Message, level: int, where: str, warnings: list[str],
                   attachments: Attachments,
                   fields: tuple[str, ...] = HEADER_FIELDS) -> list[str]:
    """``msg`` as canonical blocks: its heading at ``level`` (``#`` * level, at most
    six), its header block (the header ``fields`` it has, each a line), its body, its
    attachments' text a level down (read by ``attachments``), then its forwarded
    messages a level down. ``where`` opens each of its warnings ("" for an .eml's own
    message)."""
    subject = header_value(msg, "Subject") or NO_SUBJECT
    body = _Body()
    _walk(msg, level, where, body)
    warnings += body.warnings
    head = [f"{name}: {value}" for name in fields if (value := header_value(msg, name))]
    if body.attached:
        head.append("Attachments: " + "; ".join(a.label for a in body.attached))
    blocks = ["#" * min(level, MAX_HEADING_LEVEL) + " " + subject]
    if head:
        blocks.append("\n".join(head))  # each line opens with its name: no heading
    blocks += body.blocks or body.tnef  # Outlook's Rich Text: the text is in winmail.dat
    read: set[str] = set()  # a file the message carries twice (an invitation as its
    for attachment in body.attached:  # calendar rendering and as invite.ics) read once
        if attachment.digest not in read:
            read.add(attachment.digest)
            blocks += attachments.blocks(attachment, level + 1, where, warnings)
    for inner in body.nested:
        name = header_value(inner, "Subject") or NO_SUBJECT
        blocks += message_blocks(inner, level + 1, f"{where}forwarded message {name!r}: ",
                                 warnings, attachments)
    return blocks


# --- attachments ----------------------------------------------------------------------

# An attachment's type when its name gives none (a PDF sent with no file name): the
# suffix of its content type, for the formats citeline reads that mail carries most.
_SUFFIX_OF_TYPE = {
    "application/pdf": ".pdf", "text/csv": ".csv", "text/markdown": ".md",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/msword": ".doc", "application/vnd.ms-excel": ".xls",
    "application/vnd.ms-powerpoint": ".ppt", "application/rtf": ".rtf", "text/rtf": ".rtf",
    "application/vnd.oasis.opendocument.text": ".odt",
    "application/vnd.oasis.opendocument.presentation": ".odp",
    "application/vnd.oasis.opendocument.spreadsheet": ".ods",
    "application/epub+zip": ".epub", "application/vnd.ms-outlook": ".msg",
    "text/calendar": ".ics", "application/ics": ".ics",
    "image/png": ".png", "image/jpeg": ".jpg",
    "image/gif": ".gif", "image/tiff": ".tif", "image/webp": ".webp", "image/heic": ".heic",
}
# A line an ATX heading would be read from: its run of #s, to escape.
_ATX_LINE = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")


@dataclass(frozen=True)
class _Attachment:
    """A part a message carries as a file: its label in the ``Attachments:`` line
    (``report.pdf (application/pdf, 120 kB)``), the file name it is read under ("" when
    nothing says its type), its bytes."""

    label: str
    name: str
    data: bytes

    @cached_property
    def digest(self) -> str:
        """Its bytes' SHA-256: what tells the same file carried twice."""
        return hashlib.sha256(self.data).hexdigest()


def _file_name(part: Message, kind: str) -> str:
    """The name an attachment is read under: its own file name's last component (no
    folder a crafted name could climb out by, no leading dot), else one its content type
    gives (``attachment.pdf``); "" when neither says its type."""
    name = squash(part.get_filename() or "").replace("\\", "/").rsplit("/", 1)[-1].lstrip(".")
    if Path(name).suffix or (name and supported(Path(name))):  # README, ChangeLog: text
        return name
    suffix = _SUFFIX_OF_TYPE.get(kind, "")
    return (name or "attachment") + suffix if suffix else ""


class Attachments:
    """Reads the attachments of one file's messages (an .eml's, a mailbox's) for their
    text: each by the extractor of its type, as the file saved alone would be read; a
    picture by OCR as a picture in a document is (:func:`picture_text`: a photograph
    adds nothing, and OCR reads a signature's logo on every message once). One content
    is read once, however many messages carry it (a report forwarded down a thread).
    ``readers`` names each extractor that read one, by its version (and the readers
    *it* names: a message attached to a message), for the file's version
    (:func:`~citeline.extract.with_readers`): a change to the PDF reader marks mail
    carrying a PDF stale, as it does the PDF saved alone; one that failed to read its
    attachment is named too, so the reader's fix reads it again."""

    def __init__(self) -> None:
        self.read: dict[tuple[str, str], Document | str] = {}  # a document, or why not
        self.readers: dict[str, str] = {}

    def blocks(self, attachment: _Attachment, level: int, where: str,
               warnings: list[str]) -> list[str]:
        """The attachment's blocks in its message's text: a heading ``Attachment:
        report.pdf`` at ``level``, then its text with its own headings under that one
        (:func:`nested_text`); none, and a warning saying why, when it cannot be read."""
        name = attachment.name
        heading = "#" * min(level, MAX_HEADING_LEVEL) + " Attachment: " + (name or "(unnamed)")
        if name and Path(name).suffix.lower() in PICTURE_SUFFIXES:
            text = _picture(attachment.data, f"{where}attachment {attachment.label}", warnings)
            return [heading, escape_markdown(text)] if text else []
        key = (attachment.digest, name)
        if key not in self.read:
            self.read[key] = _extract(attachment, self.readers)
        doc = self.read[key]
        if isinstance(doc, str):
            warnings.append(f"{where}attachment {attachment.label} not indexed{doc}")
            return []
        warnings += [f"{where}attachment {name}: {w}" for w in doc.warnings]
        text, place = nested(doc, level)
        if not text:
            return [heading]
        regions = [_attached_region(r, start, end, name) for r in doc.regions
                   if r.kind in _ATTACHED and (start := place(r.start)) < (end := place(r.end))]
        return [heading, Placed(text, regions)]


# The regions of an attachment that name its places, as its message's text keeps them:
# its own pages, slides and rows (labelled by its name), and those of a file attached to
# it (an attached message's PDF: labelled by that file's name already).
_OWN_PLACES = {RegionKind.PAGE: RegionKind.ATTACHED_PAGE,
               RegionKind.SLIDE: RegionKind.ATTACHED_SLIDE,
               RegionKind.ROW: RegionKind.ATTACHED_ROW}
_ATTACHED = {**_OWN_PLACES, **{kind: kind for kind in _OWN_PLACES.values()}}


def _attached_region(region: Region, start: int, end: int, name: str) -> Region:
    """``region`` of a file attached as ``name``, where it is in its message's block
    (``start``:``end``): a page, slide or row of that file; a row's cells kept where
    its text is as it was (an escape before it moves them)."""
    own = region.kind in _OWN_PLACES
    same = end - start == region.end - region.start
    return replace(region, kind=_ATTACHED[region.kind], start=start, end=end,
                   label=name if own else region.label, header=None,
                   cells=region.cells if same else ())


class Placed(str):
    """A block of a message's text that knows the places it was read from in an
    attached file: ``regions``, their offsets from the block's own start."""

    regions: tuple[Region, ...]

    def __new__(cls, text: str, regions: list[Region]) -> Placed:
        block = super().__new__(cls, text)
        block.regions = tuple(regions)
        return block


def mail_document(rel: str, title: str, blocks: list[str], media_type: str,
                  extractor: Extractor, attachments: Attachments,
                  warnings: list[str]) -> Document:
    """The document of a file of mail: its messages' ``blocks`` joined by a blank line,
    the places of its attached files (the :class:`Placed` blocks' regions) where they
    are in that text, stamped by ``extractor`` with the readers of its attachments."""
    regions: list[Region] = []
    at = 0
    for block in blocks:
        if isinstance(block, Placed):
            regions += [replace(r, start=r.start + at, end=r.end + at) for r in block.regions]
        at += len(block) + 2
    return Document(
        path=rel,
        title=title,
        text="\n\n".join(blocks),
        media_type=media_type,
        extractor=extractor.name,
        extractor_version=with_readers(extractor.version, attachments.readers),
        regions=tuple(regions),
        headings="atx",
        warnings=tuple(warnings),
    )


def _picture(data: bytes, said: str, warnings: list[str]) -> str:
    """The text OCR reads in a picture a message carries ("" for none: a photograph),
    else a warning, naming it by ``said``, saying why it is not read."""
    if (missing := ocr_status()) is not None:
        warnings.append(f"{said} not indexed: {missing}")
        return ""
    text = picture_text(data, said, warnings)
    if text is None:
        kind = drawing_format(data)
        warnings.append(f"{said} not indexed: " + (
            f"a {kind} picture, a format citeline does not read for text" if kind
            else why_not_an_image(data)))
        return ""
    return text


def _body_pictures(related: Mapping[str, Message], where: str,
                   warnings: list[str]) -> Callable[[str], str | None]:
    """read_page's ``pictures`` for an HTML body: a picture it carries (``cid:``, one of
    ``related``; a ``data:`` URI) read by OCR (a screenshot pasted into the message);
    one on the web (a tracking pixel, a newsletter's banner) is not the message's."""

    def read(src: str) -> str | None:
        src = src.strip()
        if src.lower().startswith("cid:"):
            cid = unquote(src[4:]).strip("<>")
            found = related.get(cid)
            payload = found.get_payload(decode=True) if found is not None else None
            if not isinstance(payload, bytes) or found.get_content_maintype() != "image":
                return None
            name = squash(found.get_filename() or "") or cid
        elif src.lower().startswith("data:image/"):
            payload = data_uri_bytes(src)
            if payload is None:
                return None
            name = "an inline picture"
        else:
            return None
        return _picture(payload, f"{where}picture {name} in the body", warnings)

    return read


def _extract(attachment: _Attachment, readers: dict[str, str]) -> Document | str:
    """The attachment read by the extractor of its type from a file of its name in a
    folder of its own, removed after; or why not (`` (unsupported file type '.xyz')``,
    ``: <the extractor's reason>``), to end a warning. The extractor is added to
    ``readers`` with its version, read or not, as are the readers its document names."""
    if not attachment.name:
        return " (no file name or content type says what it is)"
    try:
        extractor = extractor_for(Path(attachment.name))
    except UnsupportedFormat as exc:
        return f" ({exc.reason})"
    readers[extractor.name] = extractor.version
    doc = _read_file(attachment, extractor)
    if isinstance(doc, Document):
        readers.update(readers_of(doc.extractor_version)[1])
    return doc


def _read_file(attachment: _Attachment, extractor: Extractor) -> Document | str:
    """:func:`_extract`'s reading of the attachment by ``extractor``."""
    with tempfile.TemporaryDirectory(prefix="citeline-attachment-") as folder:
        path = Path(folder) / attachment.name
        try:
            path.write_bytes(attachment.data)
            return extractor.extract(path, attachment.name)
        except (ExtractionError, UnsupportedFormat) as exc:
            return f": {exc.reason}"
        except OSError as exc:  # a name this file system cannot hold
            return f": cannot write it to read it ({exc.strerror or exc})"
        except Exception as exc:  # noqa: BLE001 - a parser's bug fails the attachment alone,
            # as the pipeline lets it fail a file alone: the message is read without it
            return f": its reader crashed ({type(exc).__name__}: {exc})"


def nested_text(doc: Document, level: int) -> str:
    """``doc``'s canonical text made to stand under a heading at ``level`` of an ATX
    text (an attachment under its message): each of its headings, as its own style finds
    them (Markdown's, reStructuredText's, a PDF's outline), an ATX line one level further
    down (at most six), and any other line an ATX heading would be read from escaped
    (``\\#``), except in the code fences a Markdown text has."""
    return nested(doc, level)[0]


def nested(doc: Document, level: int) -> tuple[str, Callable[[int], int]]:
    """:func:`nested_text`, and where each offset of ``doc.text`` went in it (one inside
    a heading to its heading line's start), to carry ``doc``'s regions (a PDF's pages)
    into its message's text."""
    text = doc.text
    found = doc.outline if doc.headings == "outline" else headings(text, doc.headings)
    out: list[str] = []
    # each piece of the output, in order: where it starts in text and in the output, and
    # where its backslashes went (offsets of text); None for a heading line
    pieces: list[tuple[int, int, list[int] | None]] = []
    length = at = 0

    def add(piece: str, start: int, points: list[int] | None) -> None:
        nonlocal length
        pieces.append((start, length, points))
        out.append(piece)
        length += len(piece)

    for h in sorted(found, key=lambda h: h.start):
        if h.start < at:
            continue
        add(*_kept(text, at, h.start, doc.headings))
        add("#" * min(level + h.level, MAX_HEADING_LEVEL) + " " + squash(h.title), h.start,
            None)
        at = h.end
    add(*_kept(text, at, len(text), doc.headings))
    joined = "".join(out)
    result = joined.strip("\n")
    lead = len(joined) - len(joined.lstrip("\n"))
    starts = [start for start, _, _ in pieces]

    def place(offset: int) -> int:
        start, out_start, points = pieces[max(0, bisect.bisect_right(starts, offset) - 1)]
        if points is not None:  # a backslash before the offset's own character is its
            out_start += offset - start + bisect.bisect_left(points, offset)
        return min(max(out_start - lead, 0), len(result))

    return result, place


def _kept(text: str, start: int, end: int, style: str) -> tuple[str, int, list[int]]:
    """``text[start:end]`` escaped (:func:`_escape_points`), ``start``, and where its
    backslashes went (each before the offset of ``text`` it names)."""
    piece = text[start:end]
    points = _escape_points(piece, style)
    escaped = "\\".join(piece[a:b] for a, b in zip([0, *points], [*points, len(piece)],
                                                     strict=True))
    return escaped, start, [start + p for p in points]


def _escape_points(text: str, style: str) -> list[int]:
    """Where a backslash goes in ``text`` so that no line of it is read as an ATX
    heading or a code fence: before each offset named; in a Markdown or ATX text, whose
    fences the chunker honours, only before heading lines outside them."""
    if style not in ("markdown", "atx"):
        return escape_points(text)
    fences = set(fence_starts(text))
    points: list[int] = []
    in_fence = False
    for start, _, line in text_lines(text):
        if start in fences:
            in_fence = not in_fence
        elif not in_fence and (m := _ATX_LINE.match(line)):
            points.append(start + m.end(1))
    return points


def _walk(part: Message, level: int, where: str, out: _Body,
          related: Mapping[str, Message] = _NO_PARTS) -> None:
    """Read ``part`` into ``out`` as a mail client shows it (see the module doc);
    ``related``: the parts an HTML body may show by ``cid:`` (a multipart/related's)."""
    kind = part.get_content_type()
    if part.is_multipart() and part.get_content_maintype() == "multipart":
        parts = [p for p in part.get_payload() if isinstance(p, Message)]
        subtype = part.get_content_subtype()
        if subtype == "alternative":
            _alternative(parts, level, where, out, related)
        elif subtype == "related":
            root = _related_root(part, parts)
            if root is not None:
                _walk(root, level, where, out, {**related, **_content_ids(parts)})
        else:
            for p in parts:
                _walk(p, level, where, out, related)
    elif kind == "message/rfc822" and isinstance(inner := part.get_payload(), list) and \
            inner and isinstance(inner[0], Message):
        out.nested.append(inner[0])  # forwarded inline or as an attachment: read either way
    elif part.is_attachment() or kind not in ("text/plain", "text/html"):
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        size = f", {_size(len(payload))}" if isinstance(payload, bytes) else ""
        name = squash(part.get_filename() or "")
        label = f"{name} ({kind}{size})" if name else f"({kind}{size})"
        if is_tnef(data):
            _unpack_tnef(data, label, level, where, out)
            return
        out.attached.append(_Attachment(label, _file_name(part, kind), data))
    else:
        out.blocks += _text_blocks(part, level, where, out.warnings, related)


TNEF_SIGNATURE = b"\x78\x9f\x3e\x22"  # 0x223E9F78, little-endian: a winmail.dat's start


def is_tnef(data: bytes) -> bool:
    """Whether ``data`` is a TNEF stream (a ``winmail.dat``), by its signature."""
    return data[:4] == TNEF_SIGNATURE and len(data) >= 6


def _unpack_tnef(data: bytes, label: str, level: int, where: str, out: _Body) -> None:
    """A ``winmail.dat`` (TNEF, :mod:`citeline.extract.tnef`) read into ``out``: each file
    it holds an attachment (labelled as in it: ``report.pdf (application/pdf, 12 kB, in
    winmail.dat)``), each message it holds a forwarded one, its body kept for a message
    whose MIME body has no text; a warning when it cannot be read."""
    from citeline.extract.tnef import TnefError, tnef_message  # it reads RTF, Outlook's

    said = f"{where}attachment {label}"
    found: list[str] = []
    try:
        inner = tnef_message(data, found)
    except (TnefError, ValueError) as exc:  # ValueError: a value no MIME header can hold
        out.warnings.append(f"{said} not indexed: not readable TNEF ({exc})")
        return
    out.warnings += [f"{said}: {w}" for w in found]
    trial = _Body()
    _walk(inner, level, where, trial)
    within = label.split(" (", 1)[0] or "winmail.dat"
    out.attached += [replace(a, label=f"{a.label[:-1]}, in {within})") for a in trial.attached]
    out.nested += trial.nested
    out.warnings += trial.warnings
    out.tnef += trial.blocks


def _alternative(parts: list[Message], level: int, where: str, out: _Body,
                 related: Mapping[str, Message]) -> None:
    """One rendering of several: the plain text first, then the others from the last
    (RFC 2046: the last is the richest), the first that gives any text. The plain text
    chosen, the pictures the HTML rendering carries (a screenshot pasted into the
    message, which the text only marks: ``[cid:image001.png@01DA...]``) are read after
    it, in the order the message holds them. An invitation's calendar rendering
    (``text/calendar``, beside its text: Outlook's, Google's) is read besides, as an
    attachment, since the text leaves out the time and place it holds."""
    for calendar in [p for p in parts if p.get_content_type() == "text/calendar"]:
        _walk(calendar, level, where, out, related)
    parts = [p for p in parts if p.get_content_type() != "text/calendar"]
    plain = [p for p in parts if p.get_content_type() == "text/plain"]
    rest = [p for p in reversed(parts) if p.get_content_type() != "text/plain"]
    tried: list[_Body] = []
    for p in plain + rest:
        trial = _Body()
        _walk(p, level, where, trial, related)
        if trial.blocks or trial.nested:
            out.take(trial)
            if p in plain:
                for other in reversed(rest):
                    out.blocks += _carried_pictures(other, where, out.warnings)
            return
        tried.append(trial)
    if tried:  # none has text: why the first could not be read, if it says
        out.take(tried[0])


def _carried_pictures(part: Message, where: str, warnings: list[str]) -> list[str]:
    """The text of the pictures a multipart/related rendering carries besides its root
    (:func:`_picture`), a block each; none for any other part."""
    if part.get_content_type() != "multipart/related":
        return []
    parts = [p for p in part.get_payload() if isinstance(p, Message)]
    root = _related_root(part, parts)
    blocks = []
    for p in parts:
        payload = p.get_payload(decode=True)
        if p is root or p.get_content_maintype() != "image" or not isinstance(payload, bytes):
            continue
        name = squash(p.get_filename() or "") or str(p.get("Content-ID", "")).strip().strip("<>")
        if text := _picture(payload, f"{where}picture {name} in the body", warnings):
            blocks.append(escape_markdown(text))
    return blocks


def _related_root(part: Message, parts: list[Message]) -> Message | None:
    """The part a ``multipart/related`` shows (RFC 2387): the one its ``start`` names,
    else the first."""
    start = part.get_param("start")
    if isinstance(start, str) and start.strip():
        cid = start.strip().strip("<>")
        found = next((p for p in parts if str(p.get("Content-ID", "")).strip().strip("<>") == cid),
                     None)
        if found is not None:
            return found
    return parts[0] if parts else None


def _content_ids(parts: list[Message]) -> dict[str, Message]:
    """A multipart/related's parts by their Content-ID, as ``cid:`` URLs name them."""
    return {cid: p for p in parts
            if (cid := str(p.get("Content-ID", "")).strip().strip("<>"))}


def _text_blocks(part: Message, level: int, where: str, warnings: list[str],
                 related: Mapping[str, Message]) -> list[str]:
    """A text/plain or text/html part's blocks (none when it is blank or unreadable); an
    HTML part's pictures (:func:`_body_pictures`) read where it shows them."""
    subtype = part.get_content_subtype()
    what = f"{where}text/{subtype} part"
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return []
    text = _decode(payload, part.get_content_charset(), what, warnings)
    if text is None:
        return []
    text = text.lstrip("\ufeff")
    if subtype == "html":
        try:
            page = read_page(text, what, pictures=_body_pictures(related, where, warnings))
        except ExtractionError as exc:
            warnings.append(f"{what}: {exc.reason}; not indexed")
            return []
        out = []
        for block in page.blocks:  # its headings nest under the message's
            if m := _ATX.match(block):
                block = "#" * min(level + len(m.group(1)), MAX_HEADING_LEVEL) + block[m.end(1):]
            out.append(block)
        return out
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if str(part.get_param("format", "")).lower() == "flowed":
        text = unflow(text, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    lines = [ln.rstrip() for ln in text.split("\n")]
    body = "\n".join(lines).strip("\n")
    return [escape_markdown(body)] if body.strip() else []


def unflow(text: str, delsp: bool) -> str:
    r"""A ``format=flowed`` part's text (RFC 3676, LF line ends) as its paragraphs, each
    on one line: what a mail client shows it as, rewrapped to its window.

    Section 4.2's decoding: a line's quote depth is its leading ``>`` count; after them
    one space is space-stuffing and comes off; a line then ending in a space is *flowed*
    (a soft break: the paragraph goes on on the next line), except the signature
    separator ``-- ``; with ``DelSp=yes`` that trailing space was added by the sender and
    is deleted too. A flowed line joins the next only at the same quote depth (one
    followed by another depth ends its paragraph, as the RFC reads a line improperly
    flowed). Each paragraph is written back with its depth's quote marks::

        >>> unflow("The ferry leaves at \n10:30.\n> Which ferry do we \n> take?", False)
        'The ferry leaves at 10:30.\n> Which ferry do we take?'
    """
    out: list[str] = []
    pieces: list[str] = []  # the open paragraph's lines, soft breaks undone
    depth = 0  # the open paragraph's quote depth
    for raw in text.split("\n"):
        quotes = len(raw) - len(raw.lstrip(">"))
        line = raw[quotes:]
        if line.startswith(" "):
            line = line[1:]
        if pieces and quotes != depth:
            out.append(_quote(depth, "".join(pieces)))
            pieces = []
        soft = line.endswith(" ") and line != SIGNATURE_SEPARATOR
        pieces.append(line[:-1] if soft and delsp else line)
        depth = quotes
        if not soft:
            out.append(_quote(depth, "".join(pieces)))
            pieces = []
    if pieces:
        out.append(_quote(depth, "".join(pieces)))
    return "\n".join(out)


def _quote(depth: int, line: str) -> str:
    """``line`` with ``depth`` quote marks, as a mail client draws a quoted line."""
    if not depth:
        return line
    return ">" * depth + (" " + line if line else "")


def _decode(payload: bytes, charset: str | None, what: str, warnings: list[str]) -> str | None:
    """A part's bytes as text by its declared ``charset`` (see the module doc); a warning
    in ``warnings`` when they were read otherwise, or not at all (None)."""
    enc = None
    if charset:
        try:
            enc = codecs.lookup(charset).name
        except LookupError:
            enc = None
    if enc is not None and enc not in _AS_UNDECLARED:
        if enc in _WINDOWS_1252_LABELS:
            try:
                return payload.decode("cp1252")
            except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D: C1 controls, as Latin-1 has
                return payload.decode("latin-1")
        try:
            return payload.decode(enc)
        except UnicodeDecodeError as exc:
            warnings.append(f"{what}: not valid {charset}, the charset it declares "
                            f"(undecodable {undecodable(payload, enc, exc)} of the part): read "
                            "with U+FFFD in their place")
            return payload.decode(enc, "replace")
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        said = f"declares the charset {charset}, unknown" if charset and enc is None else \
            f"declares {charset}" if charset else "declares no charset"
        legacy, seen = western_text(payload)
        if legacy is None:
            warnings.append(f"{what}: {said}, and is neither UTF-8 (undecodable "
                            f"{undecodable(payload, 'utf-8', exc)}) nor Western European "
                            f"text ({seen}); not indexed")
            return None
        warnings.append(f"{what}: {said}, and is not UTF-8: read as Windows-1252, Western "
                        f"European ({seen})")
        return legacy


def parse_message(data: bytes, rel: str) -> Message:
    """``data`` as a message; ExtractionError naming ``rel`` when the email package's
    parser recurses too deep (thousands of nested parts: crafted, not mail)."""
    try:
        return _PARSER.parsebytes(data)
    except RecursionError as exc:
        raise ExtractionError(rel, "its MIME parts are nested too deeply to read") from exc


def read_message(msg: Message, rel: str, where: str, warnings: list[str],
                  attachments: Attachments, level: int = 1,
                  fields: tuple[str, ...] = HEADER_FIELDS) -> list[str]:
    """:func:`message_blocks` of a message a file holds (its heading at ``level``); its
    warnings are added to ``warnings`` only when it could be read."""
    own: list[str] = []
    try:
        blocks = message_blocks(msg, level, where, own, attachments, fields)
    except RecursionError as exc:  # forwarded inside forwarded, thousands deep
        raise ExtractionError(rel, "its MIME parts are nested too deeply to read") from exc
    warnings += own
    return blocks


def message_bytes(path: Path, rel: str) -> bytes:
    """The bytes of a file holding one message; refused when it is empty or over
    :data:`~citeline.extract.blocks.MAX_UNPACKED`."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ExtractionError(rel, f"cannot read file: {exc.strerror or exc}") from exc
    if size > MAX_UNPACKED:
        raise ExtractionError(rel, f"this message {_too_big(size)}")
    return read_bytes(path, rel, empty="empty file (no message to index)")


def message_document(msg: Message, path: Path, rel: str, extractor: Extractor,
                     media_type: str, warnings: list[str]) -> Document:
    """The document of a file holding the one message ``msg`` (an ``.eml``, an Outlook
    ``.msg``), titled by its Subject, stamped by ``extractor`` with the readers of its
    attachments; ``warnings``: those said while reading the file so far."""
    attachments = Attachments()
    blocks = read_message(msg, rel, "", warnings, attachments)
    return mail_document(rel, header_value(msg, "Subject") or path.stem, blocks, media_type,
                         extractor, attachments, warnings)


class EmlExtractor:
    name = "eml"
    version = "11"  # an HTML body is read by html.read_page: a change to a page's text
    # there is a change here too. 2: format=flowed text is unflowed (RFC 3676); 3: an
    # HTML body's nested lists are indented and its frame dropped as a page's (html 20);
    # 4: an HTML body's <pre> is a fenced code block, unless it is prose (html 21); 5: a
    # toggle's label, a "Source" link and a "Read more" ending a line are dropped (html 22);
    # 6: a page's own table of contents in a <dl> and DocBook's navigation tables (html 23);
    # 7: attachments are read, each by its own type's extractor, a section under the
    # message; the pictures a message carries for its HTML body are read by OCR; 8: the
    # version names the readers of its attachments (mail read by 7 stamps none: read
    # again once, so that a change to one of them marks it stale from then on); 9: a
    # winmail.dat (TNEF: Outlook's Rich Text) is unpacked, its body and files the
    # message's; an attachment named README or ChangeLog is read as text; 10: an
    # invitation (a text/calendar part, beside the text too) is read by the calendar
    # reader, and a file one message carries twice is read once; 11: an attached file's
    # pages, slides and rows are regions of the message's text (a citation names them)
    suffixes = (".eml",)

    def extract(self, path: Path, rel: str) -> Document:
        data = message_bytes(path, rel)
        msg = parse_message(data, rel)
        if not msg.keys():
            raise ExtractionError(rel, "not an e-mail message: it has no header lines (From:, "
                                       "To:, Subject:) at its start; another kind of file "
                                       "named .eml?")
        return message_document(msg, path, rel, self, "message/rfc822", [])


class MboxExtractor:
    name = "mbox"
    version = "11"  # bumped with EmlExtractor's: they read a message alike
    suffixes = (".mbox",)

    def extract(self, path: Path, rel: str) -> Document:
        try:
            with path.open("rb") as f:
                head = f.read(HEAD_BYTES)
        except OSError as exc:
            raise ExtractionError(rel, f"cannot read file: {exc.strerror or exc}") from exc
        if not head.strip() and len(head) < HEAD_BYTES:
            raise ExtractionError(rel, "empty file (no messages to index)")
        if not head.lstrip(b"\r\n").startswith(b"From "):
            raise ExtractionError(rel, "not an mbox mailbox: its first line is no 'From ' "
                                       "separator line, which starts each message of a "
                                       "mailbox (one message saved alone is an .eml file)")
        blocks: list[str] = []
        warnings: list[str] = []
        attachments = Attachments()
        try:
            box = mailbox.mbox(path, create=False)
        except (OSError, mailbox.Error) as exc:
            raise ExtractionError(rel, f"cannot read file: {exc}") from exc
        try:
            for number, key in enumerate(box.keys(), start=1):
                with box.get_file(key) as f:  # the message, its "From " line left out
                    f.seek(0, 2)
                    size = f.tell()
                    if size > MAX_UNPACKED:
                        warnings.append(f"message {number} {_too_big(size)}; left out")
                        continue
                    f.seek(0)
                    data = _ESCAPED_FROM.sub(rb"\1", f.read())
                try:
                    msg = parse_message(data, rel)
                    subject = header_value(msg, "Subject") or NO_SUBJECT
                    blocks += read_message(msg, rel, f"message {number} {subject!r}: ",
                                            warnings, attachments)
                except ExtractionError as exc:  # that message alone: the others are read
                    warnings.append(f"message {number}: {exc.reason}; left out")
        except OSError as exc:
            raise ExtractionError(rel, f"cannot read file: {exc.strerror or exc}") from exc
        finally:
            box.close()
        if not blocks:
            raise ExtractionError(rel, "no message in this mailbox could be read")
        return mail_document(rel, path.stem, blocks, "application/mbox", self, attachments,
                             warnings)


register(EmlExtractor())
register(MboxExtractor())
