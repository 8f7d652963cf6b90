"""OfficeArt ([MS-ODRAW]), the drawing format Word 97-2003 and PowerPoint 97-2003 files
store their pictures in: where a picture's own file (PNG, JPEG, TIFF) is among its
records, for the readers of those formats (:mod:`citeline.extract.doc`,
:mod:`citeline.extract.ppt`) to read it by OCR as a picture file is.

A record is an 8-byte header (version and instance in 16 bits, type in 16, length in 32)
and its body; a container (version 0xF) holds records. A picture is a BLIP record (2.2.23),
its body one or two 16-byte UIDs (two for the instances :data:`TWO_UIDS` names), a tag
byte and the file itself; a BLIP store entry (OfficeArtFBSE, 2.2.32) holds a BLIP after
36 bytes of its own and a name, or says where one is in a delay stream (PowerPoint's
``Pictures``). Metafiles (EMF, WMF, PICT) and device-independent bitmaps (DIB) are stored
with headers of their own, metafiles compressed: they are named, not read.
"""

from __future__ import annotations

import struct

# BLIP record types whose body ends in a picture file, by the file's format
BLIP_FILES = {0xF01D: "JPEG", 0xF02A: "JPEG", 0xF01E: "PNG", 0xF029: "TIFF"}
# ... and those stored otherwise, not read
BLIP_OTHERS = {0xF01A: "EMF", 0xF01B: "WMF", 0xF01C: "PICT", 0xF01F: "DIB"}
# The BLIP instances that carry a second UID (the first is always there)
TWO_UIDS = frozenset({0x46B, 0x6E3, 0x6E1, 0x6E5, 0x7A9, 0x3D5, 0x217, 0x543})
FBSE = 0xF007  # a BLIP store entry
FBSE_SIZE = 36  # its fields before its name and an embedded BLIP
BSTORE = 0xF001  # the BLIP store: the entries a shape's pib counts from 1


def header(data: bytes, at: int) -> tuple[int, int, int, int]:
    """(version, instance, type, length) of the record at ``at``; IndexError past the
    end of ``data``."""
    if at < 0 or at + 8 > len(data):
        raise IndexError(f"a record at {at} past the end ({len(data)} bytes)")
    ver_inst, kind, size = struct.unpack_from("<HHI", data, at)
    return ver_inst & 0xF, ver_inst >> 4, kind, size


def blip(data: bytes, at: int, end: int) -> tuple[bytes | None, str] | None:
    """The picture of the BLIP record at ``at`` (none past ``end``): its file and the
    file's format (``PNG``), or None and the name of a format not read (``EMF``); None
    when the record there is no BLIP."""
    _, instance, kind, size = header(data, at)
    if kind in BLIP_FILES:
        skip = 8 + 16 * (2 if instance in TWO_UIDS else 1) + 1
        return data[at + skip:min(at + 8 + size, end)], BLIP_FILES[kind]
    if kind in BLIP_OTHERS:
        return None, BLIP_OTHERS[kind]
    return None


def entry_blip(data: bytes, at: int, delay: bytes) -> tuple[bytes | None, str] | None:
    """The picture of the BLIP store entry at ``at``: the BLIP it holds, else the one at
    its offset (foDelay) in ``delay`` (PowerPoint's ``Pictures`` stream); None when there
    is none."""
    _, _, kind, size = header(data, at)
    if kind != FBSE or size < FBSE_SIZE:
        return None
    body = at + 8
    name = data[body + 33]  # cbName, in bytes
    inner = body + FBSE_SIZE + name
    if inner + 8 <= body + size:
        return blip(data, inner, body + size)
    offset = struct.unpack_from("<I", data, body + 28)[0]  # foDelay
    if offset + 8 > len(delay):
        return None
    return blip(delay, offset, len(delay))


DGG_CONTAINER, DG_CONTAINER, SP_CONTAINER = 0xF000, 0xF002, 0xF004
FSP, FOPT, SECONDARY_FOPT, TERTIARY_FOPT = 0xF00A, 0xF00B, 0xF121, 0xF122
PIB = 0x0104  # a shape's property: its picture, the BLIP store entry counted from 1
MAIN_DOCUMENT = 0  # a Word drawing's dgglbl: the main document's (1: the headers')


def store_entries(data: bytes, at: int, end: int) -> list[int]:
    """Where each entry of the BLIP store inside the container at ``at`` starts (the
    store is the container's child ``BSTORE``), in order: a shape's pib counts from 1."""
    i = at + 8
    while i + 8 <= end:
        _, _, kind, size = header(data, i)
        if kind == BSTORE:
            entries, j = [], i + 8
            while j + 8 <= min(i + 8 + size, end):
                entries.append(j)
                j += 8 + header(data, j)[3]
            return entries
        i += 8 + size
    return []


def shape_pib(data: bytes, at: int, end: int) -> int | None:
    """The picture (pib, counted from 1 in the BLIP store) of the shape whose records run
    from ``at`` to ``end`` (a shape container's body), from its property tables (FOPT and
    the secondary and tertiary ones); None when it shows none."""
    pib = None
    while at + 8 <= end:
        _, count, kind, size = header(data, at)
        if kind in (FOPT, SECONDARY_FOPT, TERTIARY_FOPT):
            for k in range(min(count, size // 6)):
                opid, value = struct.unpack_from("<HI", data, at + 8 + 6 * k)
                if opid & 0x3FFF == PIB:
                    pib = value
        at += 8 + size
    return pib


def shape_pibs(data: bytes, at: int, end: int) -> dict[int, int]:
    """spid -> pib of every shape showing a picture in the records from ``at`` to
    ``end``, inside groups too: each shape container's FSP names the shape, one of its
    property tables (FOPT) its picture."""
    found: dict[int, int] = {}
    i = at
    while i + 8 <= end:
        version, instance, kind, size = header(data, i)
        body, after = i + 8, min(i + 8 + size, end)
        if kind == SP_CONTAINER:
            spid, pib = None, shape_pib(data, body, after)
            j = body
            while j + 8 <= after:
                _, _, inner, inner_size = header(data, j)
                if inner == FSP and inner_size >= 4:
                    spid = struct.unpack_from("<I", data, j + 8)[0]
                j += 8 + inner_size
            if spid is not None and pib:
                found[spid] = pib
            found |= shape_pibs(data, body, after)  # a group's shapes (a container's)
        elif version == 0xF:
            found |= shape_pibs(data, body, after)
        i = after
    return found


def word_drawing_pictures(content: bytes, delay: bytes) -> dict[int, tuple[bytes | None, str]]:
    """spid -> the picture of each shape of a Word document's main drawing that shows
    one: ``content`` is its OfficeArtContent (the table stream's DggInfo: the drawing
    group, its BLIP store, then each drawing after a dgglbl byte), ``delay`` the
    WordDocument stream, where a store entry's BLIP is when the entry does not hold it."""
    if len(content) < 8 or header(content, 0)[2] != DGG_CONTAINER:
        return {}
    group_end = 8 + header(content, 0)[3]
    entries = store_entries(content, 0, group_end)
    pibs: dict[int, int] = {}
    i = group_end
    while i + 9 <= len(content):
        label, (_, _, kind, size) = content[i], header(content, i + 1)
        if kind != DG_CONTAINER:
            break
        if label == MAIN_DOCUMENT:
            pibs |= shape_pibs(content, i + 9, min(i + 9 + size, len(content)))
        i += 9 + size
    out: dict[int, tuple[bytes | None, str]] = {}
    for spid, pib in pibs.items():
        if 1 <= pib <= len(entries) and (found := entry_blip(content, entries[pib - 1],
                                                             delay)) is not None:
            out[spid] = found
    return out
