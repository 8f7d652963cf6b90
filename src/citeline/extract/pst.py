"""Outlook data files (``.pst``, ``.ost``): a mailbox Outlook keeps or exports, read
folder by folder, each item as :mod:`citeline.extract.outlook` reads an ``.msg``.

A ``.pst`` (an archive, "Export to a .pst file") and an ``.ost`` (Outlook's offline copy
of an Exchange or Outlook.com mailbox) are one format (MS-PST): a database of folders
whose items are MAPI property sets. libpff (the ``libpff-python`` wheel) reads it; each
item's properties are then the MIME message they stand for (:func:`outlook.as_mime`),
read by the e-mail reader exactly as an ``.eml`` is.

- The folders read are the ones Outlook shows (the store's IPM subtree: Inbox, Sent
  Items, Calendar, a folder of one's own), in the file's order; each folder holding
  items is a ``#`` section named by its path (``Inbox``, ``Projects / Pump``), each of
  its items a ``##`` section under it titled by its Subject, with its From, To, Cc and
  Date lines, its body, its attachments (each read by the extractor of its type, a
  level down) as for an ``.eml``.
- An appointment or a meeting request also shows ``When:`` (its start and end in the
  time zone it was made in, named as Windows names it: ``2021-08-09 10:00 to
  2021-08-09 11:00 (Pacific Standard Time)``; ``UTC`` when the item keeps no zone; an
  all-day one its first and last day), ``Repeats:`` (Outlook's own words for a
  recurring one: ``every Monday from 10:00 AM to 11:00 AM``) and ``Where:``.
- Search folders and the store's own folders (views, reminders) hold no items of their
  own and are not read.

An item that cannot be read is left out with a warning naming its folder and number;
the others are read. Refused, saying why: an empty file, a file that is no Outlook data
file, one libpff cannot open (damaged), one holding no item. The title is the file's
stem. Citations are ``#char=`` ranges of the text under the heading path (folder >
Subject).
"""

from __future__ import annotations

import codecs
import re
import struct
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

import pypff

from citeline.errors import ExtractionError
from citeline.extract import register
from citeline.extract.email_msg import (
    HEADER_FIELDS,
    NO_SUBJECT,
    Attachments,
    header_value,
    mail_document,
    read_message,
)
from citeline.extract.outlook import (
    ATTACH_DATA,
    BINARY,
    INTERNET_CPID,
    LONG,
    MESSAGE_CODEPAGE,
    STRING8,
    SUBJECT,
    SYSTIME,
    UNICODE,
    Attached,
    Item,
    Properties,
    as_message,
    encoding,
    filetime,
)
from citeline.types import Document

IPM_SUBTREE, BOOLEAN = 0x35E0, 0x000B  # the store's shown folders; a boolean's type
# the name-to-id map's streams (MS-PST 2.4.7): GUIDs, entries, names
_NAME_GUIDS, _NAME_ENTRIES = 0x0002, 0x0003
PSETID_APPOINTMENT = uuid.UUID("00062002-0000-0000-c000-000000000046")
# PidLid* of an appointment (MS-OXOCAL): start, end, location, recurring, its pattern in
# words, all day, and the time zones its start and end were made in (TZDEFINITION)
START, END, LOCATION, RECURRING = 0x820D, 0x820E, 0x8208, 0x8223
PATTERN, ALL_DAY, START_ZONE, END_ZONE = 0x8232, 0x8215, 0x825E, 0x825F
APPOINTMENT_FIELDS = (*HEADER_FIELDS, "When", "Repeats", "Where")


class _Record:
    """One property set of an item, a recipient or an attachment (a pypff record set):
    :class:`~citeline.extract.outlook.Properties` by id; ``names`` maps a named
    property (its set's GUID and number) to the id the file gave it."""

    def __init__(self, record_set: pypff.record_set | None, codepage: str,
                 names: dict[tuple[uuid.UUID, int], int]) -> None:
        self.codepage = codepage
        self.names = names
        self.entries: dict[int, tuple[int, bytes]] = {}
        for entry in record_set.entries if record_set is not None else ():
            self.entries.setdefault(entry.entry_type, (entry.value_type, entry.data or b""))

    def _value(self, prop: int, kind: int) -> bytes | None:
        found = self.entries.get(prop)
        return found[1] if found is not None and found[0] == kind else None

    def text(self, prop: int) -> str:
        if (data := self._value(prop, UNICODE)) is not None:
            text = data.decode("utf-16-le", "replace")
        elif (data := self._value(prop, STRING8)) is not None:
            text = data.decode(self.codepage, "replace")
        else:
            return ""
        text = text.split("\x00", 1)[0]
        if prop == SUBJECT and text[:1] == "\x01":  # a prefix's length marks its start
            text = text[2:]  # (MS-PST 2.5.3.1.1.1: "\x01\x04RE: ...")
        return text

    def has_text(self, prop: int) -> bool:
        return self._value(prop, UNICODE) is not None or self._value(prop, STRING8) is not None

    def binary(self, prop: int) -> bytes | None:
        return self._value(prop, BINARY)

    def long(self, prop: int) -> int | None:
        data = self._value(prop, LONG)
        return struct.unpack_from("<i", data)[0] if data is not None and len(data) >= 4 \
            else None

    def time(self, prop: int) -> datetime | None:
        data = self._value(prop, SYSTIME)
        return filetime(struct.unpack_from("<Q", data)[0]) if data is not None \
            and len(data) >= 8 else None

    def named(self, lid: int, guid: uuid.UUID = PSETID_APPOINTMENT) -> int:
        """The id of a named property in this file (0 when the file names none so)."""
        return self.names.get((guid, lid), 0)

    def flag(self, prop: int) -> bool:
        data = self._value(prop, BOOLEAN)
        return bool(data and data[0])


class _Attachment(_Record):
    """An item's attachment: the file it carries (an attached message is not given by
    libpff's Python binding, so it is said in a warning)."""

    def __init__(self, attachment: pypff.attachment, codepage: str,
                 names: dict[tuple[uuid.UUID, int], int]) -> None:
        super().__init__(attachment.get_record_set(0) if attachment.number_of_record_sets
                         else None, codepage, names)

    def data(self) -> bytes | None:
        return self.binary(ATTACH_DATA)

    def message(self) -> Item | None:
        return None  # libpff's binding gives no attached message: said in a warning


class _Message(_Record):
    """An item of a folder (a message, an appointment, a meeting request): its
    properties, recipients and attachments; its 8-bit strings in its own code page."""

    def __init__(self, item: pypff.message, codepage: str,
                 names: dict[tuple[uuid.UUID, int], int]) -> None:
        super().__init__(item.get_record_set(0) if item.number_of_record_sets else None,
                         codepage, names)
        self.item = item
        if cpid := self.long(INTERNET_CPID) or self.long(MESSAGE_CODEPAGE):
            self.codepage = encoding(cpid)

    def recipients(self) -> list[Properties]:
        recipients = self.item.recipients
        if recipients is None:
            return []
        return [_Record(rs, self.codepage, self.names) for rs in recipients.record_sets]

    def attachments(self) -> list[Attached]:
        return [_Attachment(self.item.get_attachment(i), self.codepage, self.names)
                for i in range(self.item.number_of_attachments)]


# --- appointments ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Rule:
    """One TZRULE of a TZDEFINITION (MS-OXOCAL 2.2.1.41.1): from ``year`` on, local
    time is UTC minus ``bias`` minutes (plus the standard or daylight bias), daylight
    time running from ``daylight`` to ``standard`` (SYSTEMTIME fields: month, day of
    week, which one of the month (5 the last), hour, minute; month 0: no daylight)."""

    year: int
    bias: int
    standard_bias: int
    daylight_bias: int
    standard: tuple[int, int, int, int, int]
    daylight: tuple[int, int, int, int, int]


@dataclass(frozen=True)
class Zone:
    """A time zone an appointment was made in: its Windows name and its rules."""

    name: str
    rules: tuple[_Rule, ...] = field(default=())

    def local(self, moment: datetime) -> datetime:
        """``moment`` (UTC) as a clock in this zone showed it (naive)."""
        if not self.rules:
            return moment.replace(tzinfo=None)
        rule = max((r for r in self.rules if r.year <= moment.year), key=lambda r: r.year,
                   default=min(self.rules, key=lambda r: r.year))
        standard = moment - timedelta(minutes=rule.bias + rule.standard_bias)
        if rule.daylight[0] and rule.standard[0]:
            naive = standard.replace(tzinfo=None)
            begins = _transition(naive.year, rule.daylight)  # in standard time
            ends = _transition(naive.year, rule.standard) \
                + timedelta(minutes=rule.daylight_bias - rule.standard_bias)  # said in
            # daylight time: 2:00 daylight is 1:00 standard
            daylight = begins <= naive < ends if begins < ends \
                else naive >= begins or naive < ends  # southern: daylight over New Year
            if daylight:
                return naive - timedelta(minutes=rule.daylight_bias - rule.standard_bias)
            return naive
        return standard.replace(tzinfo=None)


def _transition(year: int, when: tuple[int, int, int, int, int]) -> datetime:
    """The local time a SYSTEMTIME rule names in ``year``: the ``nth`` (5: the last)
    ``weekday`` (0 Sunday) of ``month`` at ``hour``:``minute``."""
    month, weekday, nth, hour, minute = when
    first = date(year, month, 1)
    day = first + timedelta(days=(weekday - 1 - first.weekday()) % 7 + 7 * (min(nth, 5) - 1))
    while day.month != month:  # the fifth is the last: four weeks in some months
        day -= timedelta(days=7)
    return datetime(day.year, day.month, day.day, min(hour, 23), min(minute, 59))


def zone(data: bytes | None) -> Zone | None:
    """A TZDEFINITION (MS-OXOCAL 2.2.1.41) read; None for none or a damaged one."""
    if not data or len(data) < 8 or data[0] != 2:
        return None
    try:
        header, = struct.unpack_from("<H", data, 2)
        chars, = struct.unpack_from("<H", data, 6)
        name = data[8:8 + 2 * chars].decode("utf-16-le", "replace")
        count, = struct.unpack_from("<H", data, 2 + header)  # the header's last field
        at = 4 + header
        rules = []
        for _ in range(count):
            year, = struct.unpack_from("<H", data, at + 6)
            bias, standard_bias, daylight_bias = struct.unpack_from("<iii", data, at + 22)
            standard = struct.unpack_from("<8H", data, at + 34)
            daylight = struct.unpack_from("<8H", data, at + 50)
            if any(not (when[1] == 0 or (when[1] <= 12 and when[2] <= 6 and 1 <= when[3]))
                   for when in (standard, daylight)):
                return None  # no month, day of week or week a rule can name: damaged
            rules.append(_Rule(year, bias, standard_bias, daylight_bias,
                               (standard[1], standard[2], standard[3], standard[4],
                                standard[5]),
                               (daylight[1], daylight[2], daylight[3], daylight[4],
                                daylight[5])))
            at += 66
    except (struct.error, ValueError):
        return None
    return Zone(name, tuple(rules)) if name else None


def _span(start: datetime, end: datetime | None, start_zone: Zone | None,
          end_zone: Zone | None) -> str:
    """``2021-08-09 10:00 to 2021-08-09 11:00 (Pacific Standard Time)``: each bound on
    the clock of the zone it was made in, the zone named once when it is one (``UTC``
    when the item keeps none)."""
    def clock(moment: datetime, where: Zone | None) -> str:
        shown = moment if where is None else where.local(moment)
        return f"{shown:%Y-%m-%d %H:%M}"

    def named(where: Zone | None) -> str:
        return "UTC" if where is None else f"({where.name})"

    end_zone = end_zone or start_zone
    if end is None:
        return f"{clock(start, start_zone)} {named(start_zone)}"
    if named(start_zone) == named(end_zone):
        return f"{clock(start, start_zone)} to {clock(end, end_zone)} {named(start_zone)}"
    return (f"{clock(start, start_zone)} {named(start_zone)} to "
            f"{clock(end, end_zone)} {named(end_zone)}")


def _day(moment: datetime, where: Zone | None) -> date:
    """The day an all-day entry's bound (local midnight) falls on: in its zone, else
    the UTC midnight nearest it (a zone's midnight lies within twelve hours of it)."""
    if where is not None:
        return where.local(moment).date()
    return (moment + timedelta(hours=12)).date()


def appointment(props: _Record) -> dict[str, str]:
    """An appointment's ``When``, ``Repeats`` and ``Where`` lines, as Outlook shows
    them ({} for an item that is no appointment)."""
    start = props.time(props.named(START))  # id 0, a name the file lacks: no property
    if start is None:
        return {}
    end = props.time(props.named(END))
    start_zone = zone(props.binary(props.named(START_ZONE)))
    end_zone = zone(props.binary(props.named(END_ZONE)))
    all_day = props.flag(props.named(ALL_DAY))
    lines: dict[str, str] = {}
    # a time in year 1 or 9999 its zone moves out of the calendar: on UTC's clock, else
    # (crafted) no When at all
    for zones in ((start_zone, end_zone), (None, None)):
        try:
            lines["When"] = _when(start, end, *zones, all_day)
            break
        except OverflowError:
            continue
    if props.flag(props.named(RECURRING)) and (pattern := props.text(props.named(PATTERN))):
        lines["Repeats"] = " ".join(pattern.split())
    if where := " ".join(props.text(props.named(LOCATION)).split()):
        lines["Where"] = where
    return lines


def _when(start: datetime, end: datetime | None, start_zone: Zone | None,
          end_zone: Zone | None, all_day: bool) -> str:
    """An appointment's ``When``: its bounds on their zones' clocks, or its days."""
    if all_day:
        first = _day(start, start_zone)
        last = _day(end, end_zone or start_zone) - timedelta(days=1) if end else first
        return f"{first} to {last} (all day)" if last > first else f"{first} (all day)"
    return _span(start, end, start_zone, end_zone)


# --- the file ------------------------------------------------------------------------


def named_properties(store: pypff.file) -> dict[tuple[uuid.UUID, int], int]:
    """The file's name-to-id map (MS-PST 2.4.7): a named property's (GUID, number) to
    the id its items give it (0x8000 + its index). Names by string are not kept."""
    names: dict[tuple[uuid.UUID, int], int] = {}
    item = store.get_name_to_id_map()
    if item is None or not item.number_of_record_sets:
        return names
    streams = {e.entry_type: e.data or b"" for e in item.get_record_set(0).entries}
    guids, entries = streams.get(_NAME_GUIDS, b""), streams.get(_NAME_ENTRIES, b"")
    for at in range(0, len(entries) - 7, 8):
        number, kind, index = struct.unpack_from("<IHH", entries, at)
        which = kind >> 1  # 1 PS_MAPI, 2 PS_PUBLIC_STRINGS, 3 on: the GUID stream's
        if kind & 1 or which < 3 or len(guids) < (which - 2) * 16:
            continue
        guid = uuid.UUID(bytes_le=guids[(which - 3) * 16:(which - 2) * 16])
        names[(guid, number)] = 0x8000 + index
    return names


def _shown_folders(store: pypff.file, warnings: list[str]) -> list[tuple[str, pypff.folder]]:
    """The folders Outlook shows, each with its path below the store's IPM subtree
    (``Inbox``, ``Projects / Pump``), in the file's order. An ``.ost``'s store names no
    subtree: its folders named ``IPM_SUBTREE`` are (a mailbox's and its public
    folders'); a file with neither has every folder read."""
    subtree = None
    message_store = store.get_message_store()
    if message_store is not None and message_store.number_of_record_sets:
        for entry in message_store.get_record_set(0).entries:
            if entry.entry_type == IPM_SUBTREE and len(entry.data or b"") >= 24:
                subtree = struct.unpack_from("<I", entry.data, 20)[0]
    root = store.get_root_folder()
    found: list[tuple[str, pypff.folder]] = []
    subtrees = 0

    def walk(folder: pypff.folder, path: list[str], shown: bool) -> None:
        nonlocal subtrees
        for i in range(folder.number_of_sub_folders):
            try:
                sub = folder.get_sub_folder(i)
                name = " ".join((sub.name or "(unnamed folder)").split())
            except OSError as exc:  # its folders are lost with it; its siblings read
                within = f" in {' / '.join(path)!r}" if path else ""
                warnings.append(f"folder {i + 1}{within} cannot be read ({_said(exc)}); it "
                                "and the folders in it left out")
                continue
            if not shown and (sub.identifier == subtree if subtree is not None
                              else name == "IPM_SUBTREE"):  # an .ost's, by Exchange's name
                subtrees += 1
                walk(sub, [], True)
            elif shown:
                found.append((" / ".join([*path, name]), sub))
                walk(sub, [*path, name], True)
            else:
                walk(sub, path, False)

    said = len(warnings)
    walk(root, [], False)
    if not subtrees:  # a store naming none: every folder (each lost one said once)
        del warnings[said:]
        walk(root, [], True)
    return found


class PstExtractor:
    name = "pst"
    version = "1"
    suffixes = (".pst", ".ost")

    def extract(self, path: Path, rel: str) -> Document:
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise ExtractionError(rel, f"cannot read file: {exc.strerror or exc}") from exc
        if size == 0:
            raise ExtractionError(rel, "empty file (no messages to index)")
        store = pypff.file()
        try:
            if not pypff.check_file_signature(str(path)):
                raise ExtractionError(rel, "not an Outlook data file: it does not start as "
                                           "a .pst or .ost does (!BDN)")
            store.open(str(path))
        except OSError as exc:  # libpff's error for a file it cannot read
            raise ExtractionError(rel, f"the Outlook data file is damaged or cut short "
                                       f"({_said(exc)})") from exc
        try:
            return self._read(store, path, rel)
        finally:
            store.close()

    def _read(self, store: pypff.file, path: Path, rel: str) -> Document:
        named = store.ascii_codepage or b"cp1252"  # the 8-bit strings' (b"cp1252")
        try:
            codepage = codecs.lookup(named.decode("ascii") if isinstance(named, bytes)
                                     else named).name
        except (LookupError, UnicodeDecodeError):
            codepage = "cp1252"
        blocks: list[str] = []
        warnings: list[str] = []
        try:
            names = named_properties(store)
            folders = _shown_folders(store, warnings)
        except OSError as exc:  # the root folder or the name map
            raise ExtractionError(rel, f"the Outlook data file is damaged or cut short "
                                       f"({_said(exc)})") from exc
        attachments = Attachments()
        held = 0
        for folder_path, folder in folders:
            read: list[str] = []
            try:
                count = folder.number_of_sub_messages
            except OSError as exc:
                warnings.append(f"folder {folder_path!r}: cannot be read ({_said(exc)}); "
                                "left out")
                continue
            held += count
            for number in range(count):
                where = f"{folder_path} message {number + 1}"
                try:
                    props = _Message(folder.get_sub_message(number), codepage, names)
                    read += _item_blocks(props, rel, where, warnings, attachments)
                except (OSError, struct.error) as exc:  # one item damaged: the rest read
                    warnings.append(f"{where}: cannot be read ({_said(exc)}); left out")
                except ExtractionError as exc:
                    warnings.append(f"{where}: {exc.reason}; left out")
            if read:
                blocks += [f"# {folder_path}", *read]
        if not blocks:
            if held or warnings:
                raise ExtractionError(rel, "no item in this Outlook data file could be read ("
                                      + "; ".join(warnings[:3]) + ")")
            raise ExtractionError(rel, "the Outlook data file holds no items (its folders "
                                       "are empty)")
        return mail_document(rel, path.stem, blocks, "application/vnd.ms-outlook-pst", self,
                             attachments, warnings)


def _item_blocks(props: _Message, rel: str, where: str, warnings: list[str],
                 attachments: Attachments) -> list[str]:
    """One item as blocks a level under its folder: an ``.msg``'s reading, an
    appointment's When, Repeats and Where lines with its header lines."""
    said: list[str] = []  # what turning it into mail said (an OLE object not read)
    msg = as_message(props, rel, said, appointment(props))
    where = f"{where} {header_value(msg, 'Subject') or NO_SUBJECT!r}: "
    blocks = read_message(msg, rel, where, warnings, attachments, level=2,
                          fields=APPOINTMENT_FIELDS)
    warnings += [where + w for w in said]
    return blocks


def _said(exc: OSError) -> str:
    """What libpff found wrong, in its words: the first of the failures it lists
    (``unable to read index node data at offset: 2424832 (0x00250000)``), not the
    functions that gave up after it."""
    said = str(exc)
    for m in re.finditer(r"\w+: (unable to [^.]*?)(?:\.\s|\.?$)", said):
        if not m.group(1).startswith(("unable to open file", "unable to read from file")):
            return m.group(1)
    return said.strip() or type(exc).__name__


register(PstExtractor())
