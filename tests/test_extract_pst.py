"""Outlook data files (``.pst``, ``.ost``) read folder by folder, each item as an
``.msg`` is: the offline copy Outlook 16 kept of a real test mailbox
(tests/fixtures/real/outlook-mailbox.ost, SOURCES.md)."""

from __future__ import annotations

import re
import shutil
import struct
from datetime import UTC, datetime
from pathlib import Path

import pypff
import pytest

from citeline.errors import ExtractionError
from citeline.extract import REGISTRY, extractor_for, readers_of
from citeline.extract.email_msg import nested, nested_text
from citeline.extract.pst import Zone, zone
from citeline.pipeline import Index
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"
MAILBOX = REAL / "outlook-mailbox.ost"
PDF = REAL / "clinometer-usage.pdf"


@pytest.fixture(scope="module")
def mailbox() -> Document:
    return extractor_for(MAILBOX).extract(MAILBOX, MAILBOX.name)


def section(doc: Document, heading: str) -> str:
    """The text from the line ``heading`` to the next heading of its level or above."""
    level = len(heading) - len(heading.lstrip("#"))
    start = doc.text.index(f"\n\n{heading}\n\n") + 2 if not doc.text.startswith(heading) \
        else 0
    after = re.compile(rf"\n\n#{{1,{level}}} ").search(doc.text, start + len(heading))
    return doc.text[start:after.start() if after else len(doc.text)]


def test_the_folders_outlook_shows_are_sections_in_the_file_s_order(mailbox: Document):
    assert (mailbox.title, mailbox.media_type, mailbox.extractor, mailbox.headings) == (
        "outlook-mailbox", "application/vnd.ms-outlook-pst", "pst", "atx")
    folders = re.findall(r"(?m)^# (.+)$", mailbox.text)
    # the store's own folders (Root - Mailbox, IPM_SUBTREE, Finder, search folders) are
    # not shown; an empty folder (Outbox, Drafts, Contacts) has no section
    assert folders == ["Deleted Items", "Inbox", "Sent Items", "Calendar",
                       "Calendar / United States holidays", "Sync Issues"]
    inbox = section(mailbox, "# Inbox")
    assert re.findall(r"(?m)^## (.+)$", inbox) == [
        "Get started with OneDrive", "Welcome to your new Outlook.com account",
        "test, no attachment", "text file attachment", "jpg attachment", "pdf attachment",
        "text, jpg, pdf attachments",
        "Invitation: unanswered meeting @ Sat Aug 14, 2021 (pstextractortest@outlook.com)",
        "Invitation: meeting with attachments @ Tue Aug 17, 2021 (pstextractortest@outlook.com)",
        "Accepted: meeting with attachments (jpg, pdf, text) @ Tue Aug 24, 2021 11am - 12pm "
        "(MDT) (Pst Extractor)"]
    assert len(re.findall(r"(?m)^## ", section(mailbox, "# Calendar / United States "
                                                        "holidays"))) == 160


def test_a_message_reads_as_an_eml_would_its_attachment_a_level_down(mailbox: Document):
    assert section(mailbox, "## text file attachment") == (
        "## text file attachment\n\n"
        "From: Ed <epfromer@gmail.com>\n"
        "To: pstextractortest@outlook.com\n"
        "Date: Thu, 12 Aug 2021 20:23:46 +0000\n"
        "Attachments: text.txt (text/plain, 18 bytes)\n\n"
        "Sent from Mail for Windows\n\n"
        "### Attachment: text.txt\n\n"
        "this is a text doc")
    assert section(mailbox, "### Attachment: text.txt") == (
        "### Attachment: text.txt\n\nthis is a text doc")


def test_an_attached_pdf_reads_as_the_pdf_saved_alone(mailbox: Document):
    alone = nested_text(extractor_for(PDF).extract(PDF, PDF.name), 3)
    pdf = section(mailbox, "## pdf attachment")
    assert pdf.endswith(f"### Attachment: Clinometer Usage.pdf\n\n{alone}")
    assert "Attachments: Clinometer Usage.pdf (application/pdf, 87 kB)" in pdf
    # its pages are places in the mailbox's text, under each of the four items carrying it
    own = [r for r in extractor_for(PDF).extract(PDF, PDF.name).regions]
    text, place = nested(extractor_for(PDF).extract(PDF, PDF.name), 3)
    pages = [r for r in mailbox.regions if r.label == "Clinometer Usage.pdf"]
    assert [r.page for r in pages] == [1, 2, 3] * 4
    for mine, page in zip(pages, own * 4, strict=True):
        assert mailbox.text[mine.start:mine.end] == text[place(page.start):place(page.end)]
    assert readers_of(mailbox.extractor_version) == ("1", {
        "ics": REGISTRY[".ics"].version, "pdf": REGISTRY[".pdf"].version,
        "text": REGISTRY[".txt"].version})


def test_appointments_show_when_where_and_how_they_repeat_in_their_own_zone(
        mailbox: Document):
    """Start and end are kept in UTC with the zone they were made in: read on its clock,
    they say what Outlook's own words for the appointment say (its recurrence pattern,
    the body it wrote)."""
    weekly = section(mailbox, "## repeats every monday for 10 weeks")
    assert weekly == (
        "## repeats every monday for 10 weeks\n\n"
        "From: pstextractortest@outlook.com\n"
        "To: pstextractortest@outlook.com\n"
        "Date: Thu, 12 Aug 2021 20:27:23 +0000\n"
        "When: 2021-08-09 10:00 to 2021-08-09 11:00 (Pacific Standard Time)\n"
        "Repeats: every Monday from 10:00 AM to 11:00 AM\n\n"
        "Occurs every Monday effective 8/9/2021 until 10/11/2021 from 10:00 AM to 11:00 AM")
    assert section(mailbox, "## all day event for 3 days").endswith(
        "\nWhen: 2021-08-15 to 2021-08-17 (all day)")
    # made by Google Calendar: kept with no zone, so said in UTC (4 pm in Denver)
    assert "When: 2021-08-13 22:00 to 2021-08-13 22:30 UTC\n" in section(
        mailbox, "## meeting from Ed")
    assert "When: 2021-08-24 10:00 to 2021-08-24 11:00 (Pacific Standard Time)\n" \
           "Where: home office\n" in section(
               mailbox, "## meeting with attachments (jpg, pdf, text)")
    holidays = section(mailbox, "# Calendar / United States holidays")
    assert "## Thanksgiving Day\n\nFrom: Pst Extractor <pstextractortest@outlook.com>\n" \
           "Date: Thu, 12 Aug 2021 20:16:14 +0000\nWhen: 2026-11-26 (all day)\n" \
           "Where: United States" in holidays  # made in Mountain time, 07:00 UTC
    # a meeting request carries its appointment's; mail has none
    assert "\nWhen: 2021-08-14 (all day)\n" in section(
        mailbox, "## Invitation: unanswered meeting @ Sat Aug 14, 2021 "
                 "(pstextractortest@outlook.com)")
    assert "When:" not in section(mailbox, "## pdf attachment")


def _tzdefinition(name: str, bias: int, daylight_bias: int,
                  standard: tuple[int, int, int, int], daylight: tuple[int, int, int, int],
                  year: int = 2007) -> bytes:
    """A TZDEFINITION (MS-OXOCAL 2.2.1.41) of one rule; ``standard``/``daylight``:
    the month, day of week (0 Sunday), which one (5 the last) and hour it starts."""
    key = name.encode("utf-16-le")
    header = struct.pack("<HH", 2, len(name)) + key + struct.pack("<H", 1)

    def when(month: int, weekday: int, nth: int, hour: int) -> bytes:
        return struct.pack("<8H", 0, month, weekday, nth, hour, 0, 0, 0)

    rule = struct.pack("<BBHHH", 2, 1, 0x3E, 2, year) + bytes(14) \
        + struct.pack("<iii", bias, 0, daylight_bias) + when(*standard) + when(*daylight)
    return struct.pack("<BBH", 2, 1, len(header)) + header + rule


def test_a_zone_s_daylight_time_begins_and_ends_where_its_rules_say():
    pacific = zone(_tzdefinition("Pacific Standard Time", 480, -60, (11, 0, 1, 2),
                                 (3, 0, 2, 2)))
    assert pacific is not None and pacific.name == "Pacific Standard Time"

    def clock(z: Zone, *utc: int) -> str:
        return f"{z.local(datetime(*utc, tzinfo=UTC)):%Y-%m-%d %H:%M}"

    # 2021: daylight time from 2:00 on March 14 to 2:00 (daylight) on November 7
    assert clock(pacific, 2021, 1, 15, 18, 0) == "2021-01-15 10:00"
    assert clock(pacific, 2021, 3, 14, 9, 59) == "2021-03-14 01:59"
    assert clock(pacific, 2021, 3, 14, 10, 0) == "2021-03-14 03:00"
    assert clock(pacific, 2021, 11, 7, 8, 59) == "2021-11-07 01:59"  # daylight
    assert clock(pacific, 2021, 11, 7, 9, 0) == "2021-11-07 01:00"  # standard again
    # the southern hemisphere: daylight time over New Year (from October's first Sunday
    # at 2:00 to April's first Sunday at 3:00)
    sydney = zone(_tzdefinition("AUS Eastern Standard Time", -600, -60, (4, 0, 1, 3),
                                (10, 0, 1, 2)))
    assert sydney is not None
    assert clock(sydney, 2024, 1, 15, 0, 0) == "2024-01-15 11:00"
    assert clock(sydney, 2024, 7, 15, 0, 0) == "2024-07-15 10:00"
    # a zone with no daylight time, and bytes that are no TZDEFINITION
    tokyo = zone(_tzdefinition("Tokyo Standard Time", -540, 0, (0, 0, 0, 0), (0, 0, 0, 0)))
    assert tokyo is not None and clock(tokyo, 2024, 7, 15, 0, 0) == "2024-07-15 09:00"
    assert zone(b"") is None and zone(b"\x02\x01\xff\xff") is None
    # a rule naming month 13 (a damaged file): no zone, so the times are said in UTC
    assert zone(_tzdefinition("Broken Standard Time", 480, -60, (13, 0, 1, 2),
                              (3, 0, 2, 2))) is None


def test_both_suffixes_are_outlook_data_files():
    assert REGISTRY[".pst"] is REGISTRY[".ost"]
    assert REGISTRY[".pst"].name == "pst"


def test_what_is_no_outlook_data_file_is_refused_saying_why(tmp_path: Path):
    empty = tmp_path / "empty.pst"
    empty.write_bytes(b"")
    word = tmp_path / "letter.pst"
    shutil.copyfile(REAL / "ferry-timetable.doc", word)
    cut = tmp_path / "cut.ost"
    cut.write_bytes(MAILBOX.read_bytes()[:65536])  # its index lies past the cut
    reasons = {}
    for path in (empty, word, cut):
        with pytest.raises(ExtractionError) as exc:
            extractor_for(path).extract(path, path.name)
        reasons[path.name] = exc.value.reason
    assert reasons == {
        "empty.pst": "empty file (no messages to index)",
        "letter.pst": "not an Outlook data file: it does not start as a .pst or .ost does "
                      "(!BDN)",
        "cut.ost": "the Outlook data file is damaged or cut short (unable to read index "
                   "node data at offset: 2424832 (0x00250000))"}


def test_a_damaged_folder_is_left_out_saying_so(tmp_path: Path):
    """The mailbox's root folder's table zeroed: every folder is under it, so nothing
    is read, and the error says which folder failed, in libpff's words."""
    data = bytearray(MAILBOX.read_bytes())
    data[300000:600000] = bytes(300000)
    damaged = tmp_path / "damaged.ost"
    damaged.write_bytes(bytes(data))
    assert pypff.check_file_signature(str(damaged))
    with pytest.raises(ExtractionError) as exc:
        extractor_for(damaged).extract(damaged, damaged.name)
    assert exc.value.reason == (
        "no item in this Outlook data file could be read (folder 2 cannot be read (unable "
        "to retrieve size of UTF-8 name); it and the folders in it left out)")


def test_a_mailbox_is_found_through_the_index(tmp_path: Path, embedder):
    """The real pipeline: an appointment found by what it says, cited as a range of the
    file's text under its folder and Subject; a refused file fails alone."""
    folder = tmp_path / "mail"
    folder.mkdir()
    shutil.copyfile(MAILBOX, folder / "outlook-mailbox.ost")
    (folder / "broken.pst").write_text("not a mailbox")
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        report = idx.index(folder)
        assert report.indexed == ["outlook-mailbox.ost"]
        assert [path for path, _ in report.failed] == ["broken.pst"]
        hit = idx.search("meeting in the home office on August 24", k=1).hits[0]
        assert hit.document == "outlook-mailbox.ost"
        # the appointment, or the invitation carrying it
        assert hit.section.startswith("outlook-mailbox > ")
        assert "meeting with attachments (jpg, pdf, text)" in hit.section
        assert idx.store.document_text(hit.document)[hit.start:hit.end] == hit.content
        assert "home office" in hit.content
    finally:
        idx.close()
