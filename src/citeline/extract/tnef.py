"""TNEF (``winmail.dat``, ``application/ms-tnef``): what Outlook sends a message in when
it is written in Rich Text. The MIME message carries a plain-text body (or none) and
one attachment, ``winmail.dat``, which holds the message's own body and every file
attached to it: a mail client that does not read TNEF shows no attachments at all.

The stream (MS-OXTNEF) is a signature and a run of attributes, each a level (the message,
or an attachment), an id, a length, the data and a checksum. The message's MAPI
properties (``attMsgProps``) hold its body as plain text, HTML, or HTML wrapped in
compressed RTF; each attachment starts at its ``attAttachRendData`` and is its title
(``attAttachTitle``), its file (``attAttachData``) and its own MAPI properties
(``attAttachment``: the long file name, the content type; an attached message, a TNEF
stream of its own, in ``PR_ATTACH_DATA_OBJ``).

:func:`tnef_message` makes it the MIME message it stands for, for the e-mail reader
(:mod:`citeline.extract.email_msg`) to read as it reads any other: each file an
attachment read by its own type's extractor, an attached message a forwarded one.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage

from citeline.extract.email_msg import is_tnef
from citeline.extract.outlook import (
    ATTACH_DATA,
    ATTACH_LONG_NAME,
    INTERNET_CPID,
    add_file,
    encoding,
    filetime,
    set_body,
)

MESSAGE, ATTACHMENT = 1, 2  # an attribute's level
ATT_SUBJECT, ATT_BODY, ATT_MSG_PROPS = 0x8004, 0x800C, 0x9003  # attribute ids (low 16 bits)
ATT_REND_DATA, ATT_TITLE, ATT_DATA, ATT_ATTACHMENT = 0x9002, 0x8010, 0x800F, 0x9005
# MAPI property types: a fixed size each, else a counted, padded value
_FIXED = {0x0001: 4, 0x0002: 4, 0x0003: 4, 0x0004: 4, 0x0005: 8, 0x0006: 8, 0x0007: 8,
          0x000A: 4, 0x000B: 4, 0x0014: 8, 0x0040: 8, 0x0048: 16}
_VARIABLE = frozenset({0x000D, 0x001E, 0x001F, 0x0102})
MULTIPLE = 0x1000
UNICODE, STRING8, OBJECT, LONG, SYSTIME = 0x001F, 0x001E, 0x000D, 0x0003, 0x0040
MAX_DEPTH = 32  # messages attached in messages


class TnefError(ValueError):
    """A stream that is no TNEF, or a damaged one; its text says where."""


def attributes(data: bytes, cut: list[int]) -> Iterator[tuple[int, int, bytes]]:
    """(level, attribute id's low 16 bits, data) of each attribute of the stream; one
    that runs past its end (a stream cut short) ends it, its place added to ``cut``."""
    if not is_tnef(data):
        raise TnefError("it does not start with TNEF's signature")
    at = 6  # the signature and a 16-bit key
    while at + 9 <= len(data):
        level, ident, size = struct.unpack_from("<BII", data, at)
        if level not in (MESSAGE, ATTACHMENT):
            break  # what follows the last attribute (padding a mailer added) is not TNEF
        if at + 9 + size + 2 > len(data):
            cut.append(at)
            return
        yield level, ident & 0xFFFF, data[at + 9:at + 9 + size]
        at += 9 + size + 2  # its data and a checksum


def mapi_properties(data: bytes) -> dict[int, tuple[int, object]]:
    """A property list (``attMsgProps``, ``attAttachment``): id -> (type, value); a
    multi-valued property's value is its first. A named property (id 0x8000 and over)
    is read past its GUID and name and kept under its id, which nothing here asks for."""
    out: dict[int, tuple[int, object]] = {}
    (count,), at = struct.unpack_from("<I", data), 4
    for _ in range(count):
        kind, ident = struct.unpack_from("<HH", data, at)
        at += 4
        if ident >= 0x8000:  # a GUID, then an id or a name
            named = struct.unpack_from("<I", data, at + 16)[0]
            at += 20
            if named == 1:
                size = struct.unpack_from("<I", data, at)[0]
                at += 4 + _padded(size)
            else:
                at += 4
        base = kind & ~MULTIPLE
        values: list[object] = []
        if base in _VARIABLE:
            n, at = struct.unpack_from("<I", data, at)[0], at + 4
            for _ in range(n):
                size = struct.unpack_from("<I", data, at)[0]
                values.append(data[at + 4:at + 4 + size])
                at += 4 + _padded(size)
        elif base in _FIXED:
            n = 1
            if kind & MULTIPLE:
                n, at = struct.unpack_from("<I", data, at)[0], at + 4
            if at + n * _FIXED[base] > len(data):  # a count no attribute holds (crafted)
                raise TnefError("a property list runs past its attribute's end")
            for _ in range(n):
                values.append(data[at:at + _FIXED[base]])
                at += _FIXED[base]
        else:
            raise TnefError(f"a property of unknown type {kind:#06x}")
        if at > len(data):
            raise TnefError("a property list runs past its attribute's end")
        if values:
            out[ident] = (base, values[0])
    return out


def _padded(size: int) -> int:
    return (size + 3) // 4 * 4


@dataclass
class Properties:
    """Properties read from TNEF, as :class:`citeline.extract.outlook.Properties`."""

    values: dict[int, tuple[int, object]] = field(default_factory=dict)
    codepage: str = "cp1252"

    def _raw(self, prop: int, *kinds: int) -> object | None:
        kind, value = self.values.get(prop, (None, None))
        return value if kind in kinds else None

    def text(self, prop: int) -> str:
        value = self._raw(prop, UNICODE, STRING8)
        if not isinstance(value, bytes):
            return ""
        if self.values[prop][0] == UNICODE:
            return value.decode("utf-16-le", "replace").split("\x00", 1)[0]
        return value.decode(self.codepage, "replace").split("\x00", 1)[0]

    def has_text(self, prop: int) -> bool:
        return self._raw(prop, UNICODE, STRING8) is not None

    def binary(self, prop: int) -> bytes | None:
        value = self._raw(prop, 0x0102)
        return value if isinstance(value, bytes) else None

    def long(self, prop: int) -> int | None:
        value = self._raw(prop, LONG)
        return struct.unpack_from("<i", value)[0] if isinstance(value, bytes) else None

    def time(self, prop: int) -> datetime | None:
        value = self._raw(prop, SYSTIME)
        return filetime(struct.unpack_from("<Q", value)[0]) if isinstance(value, bytes) else None

    def object(self, prop: int) -> bytes | None:
        """An object property's data, after its interface's 16-byte id."""
        value = self._raw(prop, OBJECT)
        return value[16:] if isinstance(value, bytes) else None


@dataclass
class _File:
    title: str = ""
    data: bytes | None = None
    props: Properties = field(default_factory=Properties)


def tnef_message(data: bytes, warnings: list[str], depth: int = 0) -> EmailMessage:
    """The MIME message a TNEF stream stands for: its subject, its body
    (:func:`~citeline.extract.outlook.set_body`), each attached file, each attached
    message (a message/rfc822 part); TnefError when the stream cannot be read. What is
    not read (a body kept as RTF alone) is said in ``warnings``."""
    if depth > MAX_DEPTH:
        raise TnefError("its messages are attached inside each other too deeply")
    message = Properties()
    subject = body = ""
    files: list[_File] = []
    cut: list[int] = []
    try:
        for level, ident, value in attributes(data, cut):
            if level == MESSAGE:
                if ident == ATT_MSG_PROPS:
                    message.values |= mapi_properties(value)
                elif ident == ATT_SUBJECT:
                    subject = value.split(b"\0", 1)[0].decode("cp1252", "replace")
                elif ident == ATT_BODY:
                    body = value.split(b"\0", 1)[0].decode("cp1252", "replace")
                continue
            if ident == ATT_REND_DATA or not files:  # an attachment starts
                files.append(_File())
            if ident == ATT_TITLE:
                files[-1].title = value.split(b"\0", 1)[0].decode("cp1252", "replace")
            elif ident == ATT_DATA:
                files[-1].data = value
            elif ident == ATT_ATTACHMENT:
                files[-1].props.values |= mapi_properties(value)
    except struct.error as exc:
        raise TnefError(f"a record is cut short ({exc})") from exc
    if cut:
        warnings.append(f"it is cut short (an attribute at byte {cut[0]} runs past its "
                        f"{len(data)} bytes); what comes before is read")
    if (cpid := message.long(INTERNET_CPID)) is not None:
        message.codepage = encoding(cpid)
    msg = EmailMessage()
    if subject := (message.text(0x0037) or subject).strip():
        msg["Subject"] = " ".join(subject.split())
    if not any(message.has_text(p) or message.binary(p) for p in (0x1000, 0x1013, 0x1009)) \
            and body:
        message.values[0x1000] = (UNICODE, body.encode("utf-16-le"))
    html = set_body(msg, message, warnings)
    for f in files:
        if (inner := f.props.object(ATTACH_DATA)) is not None and is_tnef(inner):
            msg.add_attachment(tnef_message(inner, warnings, depth + 1))
        elif (found := f.data if f.data is not None else f.props.binary(ATTACH_DATA)) \
                is not None:
            add_file(msg, found, f.props.text(ATTACH_LONG_NAME) or f.title, f.props, html)
    return msg
