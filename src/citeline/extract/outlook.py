"""Outlook messages (``.msg``): a message Outlook saved, read as an ``.eml`` is.

An ``.msg`` is a compound file (MS-OXMSG): the message's properties in streams of its
root storage (``__substg1.0_0037001F`` is the subject in UTF-16), its recipients and
attachments in storages of their own, an attached message a storage of the same form.
This reader turns it into the MIME message it stands for (:func:`as_mime`) and reads that
exactly as :mod:`citeline.extract.email_msg` reads an ``.eml``: a ``#`` section titled by
its Subject, its From, To, Cc and Date lines, the body, each attachment read by the
extractor of its type (a section ``Attachment: report.pdf``), an attached message a
section one level down. So its citations are ``#char=`` ranges of that text under the
heading path (Subject > an attached message's Subject).

- From is the sender's display name and SMTP address (an Exchange address, ``/O=...``,
  is no address a reader can use: the name alone); To and Cc its recipients by their
  kind, else the display lists Outlook keeps; Date the time it was sent (else received);
  a field the properties lack is taken from the internet headers a received message
  keeps (``PR_TRANSPORT_MESSAGE_HEADERS``).
- The body: the plain text (``PR_BODY``) and the HTML (``PR_HTML``) where the message has
  them, as a ``multipart/alternative`` (the plain text read, as for an ``.eml``); a
  picture the HTML shows by ``cid:`` is read by OCR where it shows. A body kept only as
  compressed RTF (MS-OXRTFCP) is read from the HTML it wraps (MS-OXRTFEX's
  ``\\fromhtml1``), else, a message written in Rich Text, as the RTF reader reads RTF.
- An attachment by value is a file (its long name, else its short one); an attached
  message (method 5) a forwarded message; an embedded OLE object (method 6) or a link
  is said in a warning.

Refused, saying why: an empty file, a file that is no compound file or no message (a
``.msg`` of another program), one over :data:`~citeline.extract.blocks.MAX_UNPACKED`.
"""

from __future__ import annotations

import codecs
import html
import mimetypes
import re
import struct
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage, Message
from email.utils import format_datetime, formataddr
from pathlib import Path
from typing import Protocol

import olefile

from citeline.errors import ExtractionError
from citeline.extract import register
from citeline.extract.email_msg import (
    NO_SUBJECT,
    message_bytes,
    message_document,
    parse_message,
)
from citeline.extract.rtf import TOKEN, rtf_text
from citeline.types import Document

# property ids (MS-OXPROPS) and types
SUBJECT, CLIENT_SUBMIT_TIME, DELIVERY_TIME = 0x0037, 0x0039, 0x0E06
SENDER_NAME, SENDER_EMAIL, SENDER_SMTP = 0x0C1A, 0x0C1F, 0x5D01
SENT_AS_NAME, SENT_AS_EMAIL, SENT_AS_SMTP = 0x0042, 0x0065, 0x5D02
DISPLAY_TO, DISPLAY_CC = 0x0E04, 0x0E03
TRANSPORT_HEADERS, BODY, HTML, RTF_COMPRESSED = 0x007D, 0x1000, 0x1013, 0x1009
INTERNET_CPID, MESSAGE_CODEPAGE = 0x3FDE, 0x3FFD
DISPLAY_NAME, EMAIL_ADDRESS, SMTP_ADDRESS, RECIPIENT_TYPE = 0x3001, 0x3003, 0x39FE, 0x0C15
ATTACH_DATA, ATTACH_LONG_NAME, ATTACH_NAME, ATTACH_METHOD = 0x3701, 0x3707, 0x3704, 0x3705
ATTACH_MIME, ATTACH_CONTENT_ID = 0x370E, 0x3712
UNICODE, STRING8, BINARY, OBJECT, LONG, SYSTIME = 0x001F, 0x001E, 0x0102, 0x000D, 0x0003, 0x0040
BY_VALUE, EMBEDDED_MESSAGE, OLE_OBJECT = 1, 5, 6
_RECIPIENT_KINDS = {1: "To", 2: "Cc"}  # 3 is Bcc: a sender's copy shows it to no one else
_FILETIME_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)
MAX_DEPTH = 32  # messages attached in messages: deeper is crafted, not mail


def filetime(ticks: int) -> datetime | None:
    """A FILETIME (100 ns ticks since 1601, UTC) as a time; None past year 9999."""
    try:
        return _FILETIME_EPOCH + timedelta(microseconds=ticks // 10)
    except OverflowError:
        return None


class Properties(Protocol):
    """A message's or an attachment's MAPI properties by id, wherever they are kept (an
    ``.msg``'s streams, a TNEF stream's attributes: :mod:`citeline.extract.tnef`)."""

    codepage: str  # the code page its 8-bit strings are in (``cp1252``)

    def text(self, prop: int) -> str: ...

    def has_text(self, prop: int) -> bool: ...

    def binary(self, prop: int) -> bytes | None: ...

    def long(self, prop: int) -> int | None: ...

    def time(self, prop: int) -> datetime | None: ...


class Attached(Properties, Protocol):
    """An attachment of a message: its properties, and what it carries."""

    def data(self) -> bytes | None:
        """The file it carries by value; None when it carries none."""

    def message(self) -> Item | None:
        """The message it carries (an attached message, method 5); None for a file."""


class Item(Properties, Protocol):
    """A message wherever it is kept (an ``.msg`` file, an item of a ``.pst``): its
    properties, its recipients' and its attachments'."""

    def recipients(self) -> list[Properties]: ...

    def attachments(self) -> list[Attached]: ...


class _Storage:
    """One storage of the file holding a message, a recipient or an attachment: its
    properties by id. ``header`` is the size of the head of its fixed-size property
    stream: 32 bytes for the file's message, 24 for an attached one, 8 for the rest."""

    def __init__(self, ole: olefile.OleFileIO, path: list[str], header: int) -> None:
        self.ole = ole
        self.path = path
        self.fixed: dict[int, tuple[int, bytes]] = {}
        stream = self._stream("__properties_version1.0")
        if stream is not None:
            for at in range(header, len(stream) - 15, 16):
                tag, _flags, value = struct.unpack_from("<II8s", stream, at)
                self.fixed[tag >> 16] = (tag & 0xFFFF, value)
        self.codepage = encoding(self.long(INTERNET_CPID) or self.long(MESSAGE_CODEPAGE) or 1252)

    def _holds(self, name: str, kind: int = olefile.STGTY_STREAM) -> bool:
        """Whether this storage holds a stream (or of ``kind``: a storage) so named."""
        path = [*self.path, name]
        return self.ole.exists("/".join(path)) and self.ole.get_type(path) == kind

    def _stream(self, name: str) -> bytes | None:
        return self.ole.openstream([*self.path, name]).read() if self._holds(name) else None

    def children(self, prefix: str) -> list[list[str]]:
        """The storages directly under this one whose names start with ``prefix``, in
        their number's order (``__attach_version1.0_#00000000`` ...)."""
        names = {entry[len(self.path)] for entry in self.ole.listdir(streams=True, storages=True)
                 if entry[:len(self.path)] == self.path and len(entry) > len(self.path)}
        return [[*self.path, n] for n in sorted(names) if n.startswith(prefix)]

    def text(self, prop: int) -> str:
        """A string property ("" when absent), UTF-16 or in the message's code page."""
        if (data := self._stream(f"__substg1.0_{prop:04X}{UNICODE:04X}")) is not None:
            return data.decode("utf-16-le", "replace").split("\x00", 1)[0]
        if (data := self._stream(f"__substg1.0_{prop:04X}{STRING8:04X}")) is not None:
            return data.decode(self.codepage, "replace").split("\x00", 1)[0]
        return ""

    def has_text(self, prop: int) -> bool:
        """Whether the string property is there (an empty body is one)."""
        return any(self._holds(f"__substg1.0_{prop:04X}{kind:04X}")
                   for kind in (UNICODE, STRING8))

    def binary(self, prop: int) -> bytes | None:
        return self._stream(f"__substg1.0_{prop:04X}{BINARY:04X}")

    def long(self, prop: int) -> int | None:
        kind, value = self.fixed.get(prop, (None, b""))
        return struct.unpack_from("<i", value)[0] if kind == LONG else None

    def time(self, prop: int) -> datetime | None:
        kind, value = self.fixed.get(prop, (None, b""))
        return filetime(struct.unpack_from("<Q", value)[0]) if kind == SYSTIME else None

    def has_object(self, prop: int) -> bool:
        return self._holds(f"__substg1.0_{prop:04X}{OBJECT:04X}", olefile.STGTY_STORAGE)

    def recipients(self) -> list[Properties]:
        return [_Storage(self.ole, path, 8) for path in self.children("__recip_version1.0_#")]

    def attachments(self) -> list[Attached]:
        return [_Storage(self.ole, path, 8) for path in self.children("__attach_version1.0_#")]

    def data(self) -> bytes | None:
        return self.binary(ATTACH_DATA)

    def message(self) -> Item | None:
        method = self.long(ATTACH_METHOD) or BY_VALUE
        if method == EMBEDDED_MESSAGE or (self.has_object(ATTACH_DATA) and method != OLE_OBJECT):
            return _Storage(self.ole, [*self.path, "__substg1.0_3701000D"], 24)
        return None


# the dictionary compressed RTF starts with (MS-OXRTFCP 2.1.3.1.1)
_RTF_PREFIX = (b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss "
               b"\\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier"
               b"{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx")
_LZFU, _MELA = 0x75465A4C, 0x414C454D  # compressed, and stored as it is


def decompressed_rtf(data: bytes) -> bytes:
    """``PR_RTF_COMPRESSED``'s RTF (MS-OXRTFCP): LZ77 over a 4 KiB window that starts
    with :data:`_RTF_PREFIX`; b"" for a stream that is neither form."""
    if len(data) < 16:
        return b""
    size, raw_size, kind, _crc = struct.unpack_from("<IIII", data)
    if kind == _MELA:
        return data[16:16 + raw_size]
    if kind != _LZFU:
        return b""
    window = bytearray(4096)
    window[:len(_RTF_PREFIX)] = _RTF_PREFIX
    at = len(_RTF_PREFIX)
    out = bytearray()
    i, end = 16, min(len(data), size + 4)
    while i < end:
        flags = data[i]
        i += 1
        for bit in range(8):
            if i >= end:
                break
            if not flags >> bit & 1:  # a byte as it is
                window[at] = data[i]
                out.append(data[i])
                at, i = (at + 1) & 4095, i + 1
                continue
            if i + 1 >= end:
                return bytes(out)
            ref = data[i] << 8 | data[i + 1]
            i += 2
            offset, length = ref >> 4, (ref & 15) + 2
            if offset == at:  # the end marker
                return bytes(out)
            for _ in range(length):
                window[at] = window[offset]
                out.append(window[offset])
                at, offset = (at + 1) & 4095, (offset + 1) & 4095
    return bytes(out)


def encapsulated_html(rtf: bytes) -> str | None:
    """The HTML an RTF body wraps (MS-OXRTFEX: ``\\fromhtml1``; Outlook keeps an HTML
    message so when it keeps no HTML body): each ``{\\*\\htmltag ...}`` group's text, and
    the text outside ``\\htmlrtf`` ... ``\\htmlrtf0`` (which only the RTF shows), escaped;
    None when the RTF wraps no HTML."""
    if b"\\fromhtml1" not in rtf[:1024]:
        return None
    codepage = re.search(rb"\\ansicpg(\d+)", rtf[:1024])
    codec = encoding(int(codepage.group(1))) if codepage else "cp1252"
    out: list[str] = []
    raw = bytearray()  # \\'hh bytes, decoded together (a double-byte character)
    stack: list[tuple[bool, bool, bool]] = []  # per open group: its state outside
    skipped = tag = hidden = False
    skip_chars = 0  # after \\uN, the fallback characters to skip
    starred = False  # \\* was just read: the next word names an ignorable destination

    def flush() -> None:
        if raw:
            text = bytes(raw).decode(codec, "replace")
            out.append(text if tag else html.escape(text, quote=False))
            raw.clear()

    def emit(text: str) -> None:
        flush()
        out.append(text if tag else html.escape(text, quote=False))

    for m in TOKEN.finditer(rtf.decode("latin-1")):  # bytes as characters, as rtf reads
        word, number, hexbyte, symbol, brace, run = m.groups()
        destination, starred = starred, False
        if brace == "{":
            flush()
            stack.append((skipped, tag, hidden))
            continue
        if brace == "}":
            flush()
            skipped, tag, hidden = stack.pop() if stack else (False, False, False)
            continue
        if skipped:
            continue
        if symbol == "*":
            starred = True
            continue
        if word is not None:
            name = word
            if destination or name in ("fonttbl", "colortbl", "stylesheet", "info", "pict"):
                if name.startswith("htmltag") or name == "mhtmltag":
                    tag = True
                else:
                    skipped = True
                continue
            if name == "htmlrtf":
                flush()
                hidden = number != "0"
            elif hidden and not tag:
                continue
            elif name == "par":
                emit("\r\n")
            elif name == "tab":
                emit("\t")
            elif name == "u" and number is not None:
                emit(chr(int(number) % 65536))
                skip_chars = 1
            continue
        if hidden and not tag:
            continue
        if hexbyte is not None:
            if skip_chars:
                skip_chars -= 1
                continue
            raw += bytes.fromhex(hexbyte)
        elif symbol is not None:
            if symbol in "{}\\":
                emit(symbol)
        elif run is not None:
            text = run.encode("latin-1").decode(codec, "replace")
            if skip_chars:
                text, skip_chars = text[1:], 0
            emit(text)
    flush()
    return "".join(out)


def _address(name: str, *addresses: str) -> str:
    """``Name <addr>`` from a display name and the first of ``addresses`` that is an
    internet address (an Exchange one, ``/O=...``, is none); the name alone, else ""."""
    address = next((a for a in addresses if "@" in a and not a.startswith("/")), "")
    if address and name and name != address:
        return formataddr((name, address))
    return address or name


def _recipients(item: Item) -> dict[str, list[str]]:
    """The message's To and Cc recipients, each ``Name <addr>``, in the file's order."""
    kinds: dict[str, list[str]] = {"To": [], "Cc": []}
    for recipient in item.recipients():
        kind = _RECIPIENT_KINDS.get(recipient.long(RECIPIENT_TYPE) or 0)
        who = _address(recipient.text(DISPLAY_NAME), recipient.text(SMTP_ADDRESS),
                       recipient.text(EMAIL_ADDRESS))
        if kind and who:
            kinds[kind].append(who)
    return kinds


def set_body(msg: EmailMessage, props: Properties, warnings: list[str]) -> str:
    """``msg``'s body from the message properties ``props``: its plain text and its
    HTML as a ``multipart/alternative`` when it has both, else the one it has, else what
    it keeps in compressed RTF: the HTML the RTF wraps, or the RTF's paragraphs as plain
    text (a message written in Rich Text). Returns the HTML ("" for none), where
    ``cid:`` pictures are shown."""
    plain = props.text(BODY)
    html = props.binary(HTML)
    html_text = (html.decode(props.codepage, "replace") if html is not None
                 else props.text(HTML))
    if plain.strip() or not html_text.strip():
        msg.set_content(plain.replace("\r\n", "\n"))
    if html_text.strip():
        if plain.strip():
            msg.add_alternative(html_text, subtype="html")
        else:
            msg.set_content(html_text, subtype="html")
    elif not props.has_text(BODY) and (compressed := props.binary(RTF_COMPRESSED)):
        rtf = decompressed_rtf(compressed)
        html_text = encapsulated_html(rtf) or ""
        if html_text:
            msg.set_content(html_text, subtype="html")
        elif rtf:  # a message written in Rich Text: its paragraphs as plain text
            subject = props.text(SUBJECT) or NO_SUBJECT
            text = rtf_text(rtf, f"message {subject!r}: its RTF body", warnings,
                            plain=True)[0]
            msg.set_content(text)
    return html_text


def encoding(cpid: int) -> str:
    """The Python codec of a Windows code page identifier (``PR_INTERNET_CPID``):
    ``cp1252`` for 1252, ``utf-8`` for 65001, ``ascii`` for 20127, an ISO 8859 part for
    28591-28605; ``cp1252`` for one Python does not know."""
    name = {20127: "ascii", 65001: "utf-8", 1200: "utf-16-le", 1201: "utf-16-be"}.get(
        cpid, f"iso8859_{cpid - 28590}" if 28591 <= cpid <= 28605 else f"cp{cpid}")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "cp1252"


def as_mime(item: Item, rel: str, warnings: list[str], depth: int = 0) -> EmailMessage:
    """The MIME message ``item`` stands for (see the module docstring)."""
    if depth > MAX_DEPTH:
        raise ExtractionError(rel, "its messages are attached inside each other too deeply "
                                   "to read")
    msg = EmailMessage()
    received = parse_message(item.text(TRANSPORT_HEADERS).encode("utf-8"), rel) \
        if item.text(TRANSPORT_HEADERS) else None
    recipients = _recipients(item)
    sender = _address(item.text(SENT_AS_NAME) or item.text(SENDER_NAME),
                      item.text(SENT_AS_SMTP), item.text(SENDER_SMTP),
                      item.text(SENT_AS_EMAIL), item.text(SENDER_EMAIL))
    when = item.time(CLIENT_SUBMIT_TIME) or item.time(DELIVERY_TIME)
    fields = {
        "Subject": item.text(SUBJECT),
        "From": sender,
        "To": ", ".join(recipients["To"]) or item.text(DISPLAY_TO),
        "Cc": ", ".join(recipients["Cc"]) or item.text(DISPLAY_CC),
        "Date": format_datetime(when) if when else "",
    }
    for name, value in fields.items():
        value = value or (str(received.get(name, "")) if received is not None else "")
        if value.strip():
            msg[name] = " ".join(value.split())
    html_text = set_body(msg, item, warnings)
    for attachment in item.attachments():
        _attach(msg, attachment, html_text, rel, warnings, depth)
    return msg


def as_message(item: Item, rel: str, warnings: list[str],
               fields: Mapping[str, str] | None = None) -> Message:
    """The MIME message ``item`` stands for (:func:`as_mime`) with the header ``fields``
    added (an appointment's When), parsed as the e-mail reader parses a file's; an
    ExtractionError when a property no MIME header can hold (crafted) makes it none."""
    try:
        mime = as_mime(item, rel, warnings)
        for name, value in (fields or {}).items():
            mime[name] = value
        data = mime.as_bytes()
    except ValueError as exc:
        raise ExtractionError(rel, f"the Outlook message cannot be read as mail ({exc})") \
            from exc
    return parse_message(data, rel)


def _attach(msg: EmailMessage, attachment: Attached, html: str, rel: str,
            warnings: list[str], depth: int) -> None:
    """The attachment added to ``msg`` as the MIME message carries it."""
    name = attachment.text(ATTACH_LONG_NAME) or attachment.text(ATTACH_NAME) \
        or attachment.text(DISPLAY_NAME)
    if (inner := attachment.message()) is not None:
        msg.add_attachment(as_mime(inner, rel, warnings, depth + 1))
        return
    data = attachment.data()
    if data is None:
        what = {OLE_OBJECT: "an embedded OLE object, not a file the message carries",
                EMBEDDED_MESSAGE: "an attached message this file keeps in a form not read"}
        warnings.append(f"attachment {name or '(unnamed)'} not indexed: "
                        + what.get(attachment.long(ATTACH_METHOD) or BY_VALUE,
                                   "a link to a file, not a file the message carries"))
        return
    add_file(msg, data, name, attachment, html)


def add_file(msg: EmailMessage, data: bytes, name: str, props: Properties, html: str) -> None:
    """A file attached by value added to ``msg``: its content type from its properties,
    else its name; a picture the HTML body shows by its content id a part of the body's
    ``multipart/related`` (read where the HTML shows it), any other file an attachment."""
    name = " ".join(name.split())  # a line break in a header is refused (and crafted)
    kind = (props.text(ATTACH_MIME).lower() or mimetypes.guess_type(name)[0]
            or "application/octet-stream")
    maintype, _, subtype = kind.partition("/")
    cid = props.text(ATTACH_CONTENT_ID).strip("<>")
    if cid and f"cid:{cid}" in html and maintype == "image" and msg.is_multipart():
        body = next((p for p in msg.walk() if p.get_content_type() == "text/html"), None)
        if isinstance(body, EmailMessage):
            body.add_related(data, maintype, subtype or "octet-stream", cid=f"<{cid}>",
                             filename=name or None)
            return
    msg.add_attachment(data, maintype or "application", subtype or "octet-stream",
                       filename=name or None)


class MsgExtractor:
    name = "msg"
    version = "2"  # 2: an attached file's pages, slides and rows are regions (eml 11)
    suffixes = (".msg",)

    def extract(self, path: Path, rel: str) -> Document:
        data = message_bytes(path, rel)
        if not olefile.isOleFile(data=data):
            raise ExtractionError(rel, "not an Outlook message: it is no compound file "
                                       "(an .msg Outlook saves is one)")
        try:
            ole = olefile.OleFileIO(data)
        except OSError as exc:  # olefile's damaged-file error
            raise ExtractionError(rel, f"not an Outlook message: the compound file is "
                                       f"damaged ({exc})") from exc
        with ole:
            try:
                root = _Storage(ole, [], 32)
                if not root.fixed and not root.text(SUBJECT):
                    raise ExtractionError(rel, "not an Outlook message: the compound file "
                                               "has no message properties (another "
                                               "program's .msg, or one cut short?)")
                warnings: list[str] = []
                msg = as_message(root, rel, warnings)
            except (OSError, struct.error) as exc:  # a stream cut short or out of its file
                raise ExtractionError(rel, f"the Outlook message is damaged ({exc})") from exc
        return message_document(msg, path, rel, self, "application/vnd.ms-outlook", warnings)


register(MsgExtractor())
