"""iCalendar files (``.ics``, RFC 5545): meeting invitations, exported calendars.

Each event, to-do and journal entry is a ``#`` section titled by its SUMMARY
(``(no title)`` without one), then what a calendar program shows of it, one line each:
``When:`` (its start and end as written: a time with its time zone's name, ``UTC`` for
one ending in ``Z``; a duration when it has no end; an all-day entry its first and last
day, RFC 5545's end date being the day after), ``Due:`` (a to-do's),
``Repeats:`` (its RRULE as written), ``Where:``, ``Organizer:`` and ``Attendees:`` (each
``Name <address>``), ``Status:``, ``Categories:``, ``URL:``; then its DESCRIPTION, its
paragraphs as written. Alarms, time zone definitions and free/busy blocks are not
content. The title is the calendar's name (``X-WR-CALNAME``), else the one entry's
summary, else the file's name. Locators are ``#char=`` offsets in that text and the
heading path.

The file is read as RFC 5545 says: UTF-8 (a byte-order mark allowed; else Windows-1252
when it is Western European text, with a warning), lines unfolded (a line starting with
a space or a tab continues the one before), a TEXT value's escapes undone (``\\n`` a
line break, ``\\,`` a comma). Refused, saying why: an empty file, one that is no
iCalendar (no ``BEGIN:VCALENDAR``), one with no event, to-do or journal entry (a time
zone or free/busy file).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from citeline.errors import ExtractionError
from citeline.extract import read_bytes, register
from citeline.extract.blocks import TextBuilder, escape_markdown, squash
from citeline.extract.text import decode
from citeline.types import Document

ENTRIES = ("VEVENT", "VTODO", "VJOURNAL")  # the components that are content
NO_TITLE = "(no title)"
# a content line: its name, its parameters (a quoted value may hold ; : ,), its value
_LINE = re.compile(r'(?P<name>[A-Za-z0-9-]+)(?P<params>(?:;[A-Za-z0-9-]+=(?:"[^"]*"|[^";:]*)'
                   r'(?:,(?:"[^"]*"|[^";:,]*))*)*):(?P<value>.*)')
_PARAM = re.compile(r';([A-Za-z0-9-]+)=("[^"]*"|[^";:]*)')
_ESCAPE = re.compile(r"\\([\\;,nN])")
_DATE = re.compile(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?")


@dataclass
class Entry:
    """One event, to-do or journal entry: its properties, each (parameters, value), in
    the file's order."""

    kind: str
    props: list[tuple[str, dict[str, str], str]] = field(default_factory=list)

    def first(self, name: str) -> tuple[dict[str, str], str] | None:
        return next(((p, v) for n, p, v in self.props if n == name), None)

    def all(self, name: str) -> list[tuple[dict[str, str], str]]:
        return [(p, v) for n, p, v in self.props if n == name]


def unfolded(text: str) -> list[str]:
    """The content lines of ``text``, folded lines joined (RFC 5545 3.1)."""
    lines: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if raw[:1] in (" ", "\t") and lines:
            lines[-1] += raw[1:]
        elif raw:
            lines.append(raw)
    return lines


def text_value(value: str) -> str:
    r"""A TEXT value with its escapes undone.

    >>> text_value(r"Room 4\, second floor\nBring the badge")
    'Room 4, second floor\nBring the badge'
    """
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) in "nN" else m.group(1), value)


def when(params: dict[str, str], value: str) -> str:
    """A DATE or DATE-TIME as a person reads it: ``2024-05-14``, ``2024-05-14 09:30
    (Europe/Berlin)``, ``2024-05-14 07:30 UTC``; as written when it is neither.

    >>> when({"TZID": "Europe/Berlin"}, "20240514T093000")
    '2024-05-14 09:30 (Europe/Berlin)'
    """
    m = _DATE.fullmatch(value.strip())
    if m is None:
        return value.strip()
    year, month, day, hour, minute, second, utc = m.groups()
    out = f"{year}-{month}-{day}"
    if hour is not None:
        out += f" {hour}:{minute}" + (f":{second}" if second != "00" else "")
        if utc:
            out += " UTC"
        elif tz := params.get("TZID", "").strip('"'):
            out += f" ({tz})"
    return out


def _day(value: str) -> date | None:
    """A DATE value (``20240514``) as a date; None for a DATE-TIME or anything else."""
    m = re.fullmatch(r"(\d{4})(\d{2})(\d{2})", value.strip())
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
    except ValueError:  # no such day (a fuzzed or broken file)
        return None


def person(params: dict[str, str], value: str) -> str:
    """An ORGANIZER or ATTENDEE: ``Name <address>`` from its CN and its mailto: value."""
    address = re.sub(r"(?i)^mailto:", "", value.strip())
    name = params.get("CN", "").strip('"').strip()
    if name and address and name != address:
        return f"{name} <{address}>"
    return address or name


def entries(lines: list[str], rel: str) -> tuple[dict[str, str], list[Entry]]:
    """The calendar's own properties and its entries; ExtractionError for no VCALENDAR."""
    if not any(line.strip().upper() == "BEGIN:VCALENDAR" for line in lines[:50]):
        raise ExtractionError(rel, "not an iCalendar file: no BEGIN:VCALENDAR line")
    calendar: dict[str, str] = {}
    found: list[Entry] = []
    stack: list[str] = []
    for line in lines:
        m = _LINE.match(line)
        if m is None:
            continue  # a line no program wrote to be read (RFC 5545 says to ignore it)
        name, value = m.group("name").upper(), m.group("value")
        if name == "BEGIN":
            stack.append(value.strip().upper())
            if stack[-1] in ENTRIES and len(stack) == 2:
                found.append(Entry(stack[-1]))
            continue
        if name == "END":
            if stack:
                stack.pop()
            continue
        params = {k.upper(): v for k, v in _PARAM.findall(m.group("params"))}
        if len(stack) == 1:
            calendar.setdefault(name, value)
        elif len(stack) == 2 and stack[-1] in ENTRIES and found:
            found[-1].props.append((name, params, value))
    return calendar, found


def entry_blocks(entry: Entry) -> tuple[str, list[str]]:
    """An entry's title and its blocks: the lines a calendar shows, its description."""
    summary = entry.first("SUMMARY")
    title = squash(text_value(summary[1])) if summary else ""
    lines: list[str] = []
    start, end = entry.first("DTSTART"), entry.first("DTEND")
    if start:
        span = when(*start)
        if (first := _day(start[1])) is not None:  # all day: a date's end is the day after
            last = _day(end[1]) if end else None
            last = last - timedelta(days=1) if last is not None and last > first else first
            span = f"{span} to {last.isoformat()} (all day)" if last > first \
                else f"{span} (all day)"
        elif end:
            span += " to " + when(*end)
        elif duration := entry.first("DURATION"):
            span += f" for {duration[1].strip()}"
        lines.append(f"When: {span}")
    if due := entry.first("DUE"):
        lines.append(f"Due: {when(*due)}")
    if rule := entry.first("RRULE"):
        lines.append(f"Repeats: {rule[1].strip()}")
    for label, name in (("Where", "LOCATION"), ("Status", "STATUS"), ("URL", "URL")):
        if (found := entry.first(name)) and (value := squash(text_value(found[1]))):
            lines.append(f"{label}: {value}")
    if categories := [squash(text_value(v)) for _, v in entry.all("CATEGORIES")]:
        lines.append("Categories: " + ", ".join(c for c in categories if c))
    if organizer := entry.first("ORGANIZER"):
        lines.append(f"Organizer: {person(*organizer)}")
    if attendees := [p for p in (person(*a) for a in entry.all("ATTENDEE")) if p]:
        lines.append("Attendees: " + "; ".join(attendees))
    blocks = ["\n".join(lines)] if lines else []
    for _, value in entry.all("DESCRIPTION"):
        for paragraph in re.split(r"\n\s*\n", text_value(value).replace("\r", "")):
            if paragraph.strip():
                blocks.append(escape_markdown(paragraph.strip()))
    return title, blocks


class IcsExtractor:
    name = "ics"
    version = "1"
    suffixes = (".ics",)

    def extract(self, path: Path, rel: str) -> Document:
        text, warning = decode(rel, read_bytes(path, rel, empty="empty file (no calendar "
                                                                "to index)"), western=True)
        calendar, found = entries(unfolded(text.lstrip("\ufeff")), rel)
        if not found:
            raise ExtractionError(rel, "the calendar has no event, to-do or journal entry "
                                       "(time zones or free/busy times alone)")
        out = TextBuilder()
        titles = []
        for entry in found:
            title, blocks = entry_blocks(entry)
            titles.append(title)
            out.add("# " + (title or NO_TITLE), sep="\n\n")
            for block in blocks:
                out.add(block, sep="\n\n")
        name = squash(text_value(calendar.get("X-WR-CALNAME", "")))
        return Document(
            path=rel,
            title=name or (titles[0] if len(found) == 1 and titles[0] else path.stem),
            text=out.text(),
            media_type="text/calendar",
            extractor=self.name,
            extractor_version=self.version,
            headings="atx",
            warnings=(warning,) if warning else (),
        )


register(IcsExtractor())
