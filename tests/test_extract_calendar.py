"""iCalendar files read for what a calendar program shows of each entry: invitations
from Exchange and a BlackBerry, a Google Calendar export, a holiday calendar
(tests/fixtures/real, SOURCES.md: the icalendar package's test files), and an invitation
a message carries."""

from __future__ import annotations

from pathlib import Path

import pytest

import doc_builders as b
from citeline.chunk import chunk_document
from citeline.errors import ExtractionError
from citeline.extract import REGISTRY, extractor_for, readers_of
from citeline.extract.calendar import text_value, unfolded, when
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def test_an_exchange_invitation_its_time_zone_and_its_repeat_rule_folded_over_two_lines():
    doc = extract(REAL / "exchange-standup.ics")
    assert (doc.title, doc.media_type, doc.extractor) == (
        "Sprint 25 Daily Standup", "text/calendar", "ics")
    zone = "GMT +0100 (Standard) / GMT +0200 (Daylight)"
    assert doc.text == (
        "# Sprint 25 Daily Standup\n\n"
        f"When: 2015-07-03 10:00 ({zone}) to 2015-07-03 10:30 ({zone})\n"
        "Repeats: FREQ=DAILY;UNTIL=20150722T080000Z;INTERVAL=1;BYDAY=MO, TU, WE, TH, "
        "FR;WKST=SU")  # the time zone's definition and its rules are not the meeting's


def test_a_blackberry_invitation_all_day_with_its_attendees():
    doc = extract(REAL / "blackberry-invite.ics")
    assert doc.text == (
        "# Test meeting from BB\n\n"
        "When: 2012-08-14 (all day)\n"  # DTEND 20120815: the day after, as RFC 5545 says
        "Organizer: rembrand@daxlab.com\n"
        "Attendees: RembrandXS <rembrand@xs4all.nl>; RembrandDX <rembrand@daxlab.com>; "
        "RembrandSB <rembspam@xs4all.nl>\n\n"
        "Test meeting from BB")


def test_a_google_export_is_titled_by_its_calendar_and_its_alarms_are_no_content():
    doc = extract(REAL / "google-alarms.ics")
    assert doc.title == "Nicco Kunzmann"
    assert doc.text == ("# event with alarms\n\nWhen: 2024-10-04 18:15 UTC to 2024-10-04 "
                        "19:00 UTC\nStatus: CONFIRMED")
    assert "reminder" not in doc.text


def test_each_event_of_a_calendar_is_a_section_cited_in_its_text():
    doc = extract(REAL / "holidays.ics")
    assert doc.title == "Holidays"
    chunks = chunk_document(doc)
    assert [c.section for c in chunks] == ["Holidays > New Year's Day",
                                           "Holidays > Orthodox Christmas",
                                           "Holidays > International Women's Day"]
    assert chunks[1].content == ("# Orthodox Christmas\n\nWhen: 2022-01-07 (all day)\n"
                                 "Where: Russia\nStatus: CONFIRMED\n\nIt is Christmas again!")
    assert all(doc.text[c.start:c.end] == c.content for c in chunks)


def test_folding_escapes_and_times_as_rfc_5545_writes_them():
    assert unfolded("SUMMARY:Quarterly \r\n  review\r\nLOCATION:Room\r\n\t4\r\n") == [
        "SUMMARY:Quarterly  review", "LOCATION:Room4"]
    assert text_value(r"Bring the badge\, the laptop\nand the slides\; \\ done") == \
        "Bring the badge, the laptop\nand the slides; \\ done"
    assert when({}, "20240514T093000") == "2024-05-14 09:30"
    assert when({}, "20240514T093015Z") == "2024-05-14 09:30:15 UTC"
    assert when({"TZID": '"Europe/Berlin"'}, "20240514T093000") == \
        "2024-05-14 09:30 (Europe/Berlin)"


def test_what_holds_no_entry_is_refused_saying_why(tmp_path: Path):
    cases = {
        "empty.ics": (b"", "empty file (no calendar to index)"),
        "page.ics": (b"<html><body>Calendar</body></html>",
                     "not an iCalendar file: no BEGIN:VCALENDAR line"),
        "zones.ics": (b"BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"
                      b"END:VTIMEZONE\r\nEND:VCALENDAR\r\n",
                      "the calendar has no event, to-do or journal entry (time zones or "
                      "free/busy times alone)"),
    }
    for name, (data, reason) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ExtractionError) as exc:
            extract(path)
        assert exc.value.reason == reason, name


def test_an_invitation_a_message_carries_is_read_under_it(tmp_path: Path):
    # Outlook and Exchange send an invitation as a text/calendar part beside the text
    msg = b.mail_message("Sprint 25 Daily Standup", "Daily at ten, fifteen minutes.\n")
    msg.add_attachment((REAL / "exchange-standup.ics").read_bytes(), maintype="text",
                       subtype="calendar", filename=None)
    doc = extract(b.write_eml(tmp_path, "invite.eml", msg))
    invite = extract(REAL / "exchange-standup.ics")
    assert doc.text.endswith("Daily at ten, fifteen minutes.\n\n## Attachment: "
                             "attachment.ics\n\n" + invite.text.replace("# ", "### ", 1))
    assert readers_of(doc.extractor_version)[1] == {"ics": REGISTRY[".ics"].version}


def test_an_invitation_s_calendar_rendering_is_read_once_beside_its_text(tmp_path: Path):
    # Google's and Outlook's invitations: multipart/alternative of the text, the HTML and
    # text/calendar; Google attaches the same calendar again as invite.ics
    ics = (REAL / "exchange-standup.ics").read_bytes()
    msg = b.mail_message("Invitation: Sprint 25 Daily Standup", "Daily at ten.\n")
    msg.add_alternative("<p>Daily at <b>ten</b>.</p>", subtype="html")
    msg.add_alternative(ics.decode(), subtype="calendar", params={"method": "REQUEST"})
    msg.add_attachment(ics, maintype="application", subtype="ics", filename="invite.ics")
    doc = extract(b.write_eml(tmp_path, "invite.eml", msg))
    invite = extract(REAL / "exchange-standup.ics").text.replace("# ", "### ", 1)
    assert doc.text.count("When: 2015-07-03 10:00") == 1
    assert doc.text.endswith("Daily at ten.\n\n## Attachment: attachment.ics\n\n" + invite)
    # the line names each as the message carries it
    assert "\nAttachments: (text/calendar, 788 bytes); invite.ics (application/ics, 788 " \
           "bytes)\n" in doc.text
