"""Outlook's ``.msg`` files read as an ``.eml`` is: two messages Outlook 16 saved
(tests/fixtures/real, SOURCES.md), one carrying an attached message and photographs,
one a photograph and an empty body."""

from __future__ import annotations

import shutil
import struct
from email.message import EmailMessage
from pathlib import Path

import olefile
import pytest

import doc_builders as b
from citeline.errors import ExtractionError
from citeline.extract import REGISTRY, extractor_for, readers_of
from citeline.extract.email_msg import nested_text
from citeline.extract.outlook import decompressed_rtf, encapsulated_html
from citeline.pipeline import Index
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"
TOP_LEVEL = REAL / "top-level-email.msg"
PHOTO = REAL / "outlook-photo.msg"
BOUNCE = REAL / "failure-notice.msg"


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def test_a_message_reads_as_its_eml_would_with_its_attached_message_a_section_down():
    doc = extract(TOP_LEVEL)
    assert (doc.title, doc.media_type, doc.extractor, doc.headings) == (
        "Top level email", "application/vnd.ms-outlook", "msg", "atx")
    # the photographs (a pigeon; a dog and a cat in the attached message) add no text
    assert doc.text == (
        "# Top level email\n\n"
        "To: someone1@gmail.com, someone2@gmail.com\n"
        "Cc: ccsomeoneelse1@gmail.com, ccsomeoneelse2@gmail.com\n"
        "Date: Thu, 26 Mar 2020 12:25:31 +0000\n"
        "Attachments: pigeon.jpg (image/jpeg, 5 kB)\n\n"
        "Top level email text\n\n"
        "## Embedded email\n\n"
        "To: receiver@gmail.com\n"
        "Cc: cc1@gmail.com\n"
        "Date: Tue, 14 Jan 2020 07:01:44 +0000\n"
        "Attachments: dog.jpg (image/jpeg, 5 kB); cat.jpg (image/jpeg, 6 kB)\n\n"
        "Embedded email text")
    assert doc.warnings == ()
    assert doc.extractor_version == REGISTRY[".msg"].version  # no attachment's reader


def test_a_received_message_s_sender_and_an_empty_body():
    doc = extract(PHOTO)
    assert doc.title == "asdf"
    assert doc.text == (
        "# asdf\n\n"
        "From: christoph@freiraum.xyz\n"
        "To: christoph@freiraum.xyz\n"
        "Date: Fri, 23 Mar 2018 16:06:29 +0000\n"
        "Attachments: 5AAoPFgV-nJ965R7o-98C38840-4454-4750-9AEF-F53DB3E37548.jpg "
        "(image/jpeg, 123 kB)")  # a photograph of a room: nothing
    assert doc.warnings == ()  # the body is there, and empty: nothing to warn of


def test_a_bounce_carries_the_message_it_returns_and_that_message_s_pdf(tmp_path: Path):
    """A real delivery failure notice, in Chinese: its text, then the message it returns
    a section down, whose PDF reads as the PDF saved alone does, two levels down."""
    doc = extract(BOUNCE)
    assert doc.title == "投递状态通知 (Failure Notice)"
    assert doc.text.startswith(
        "# 投递状态通知 (Failure Notice)\n\nFrom: Mail Delivery Subsystem "
        "<mailer-daemon@tjdpf.org.cn>\nTo: yosipnps@model.com\nDate: Mon, 27 Nov 2017 "
        "09:44:30 +0000\n\nHi. This is an automatically generated Delivery Status "
        "Notification at\ntjdpf.org.cn")
    returned = "## 回复：转发：反馈·北京 2017年12月02-03日 销售"
    name = "北京 2017年12月02-03日 销售主管 确认n.pdf"
    assert f"\n\n{returned}\n\nFrom: Meredith chen <yosipnps@model.com>\n" \
           f"To: hp_lsz@tjdpf.org.cn\nDate: Mon, 27 Nov 2017 09:44:11 +0000\n" \
           f"Attachments: {name} (application/octet-stream, 145 kB)\n\nMeredith" in doc.text
    with olefile.OleFileIO(str(BOUNCE)) as ole:
        pdf = ole.openstream("__attach_version1.0_#00000000/__substg1.0_3701000D/"
                             "__attach_version1.0_#00000000/__substg1.0_37010102").read()
    alone = tmp_path / "notice.pdf"
    alone.write_bytes(pdf)
    text = nested_text(extractor_for(alone).extract(alone, alone.name), 3)
    assert doc.text.endswith(f"### Attachment: {name}\n\n{text}")
    assert readers_of(doc.extractor_version) == ("2", {"pdf": REGISTRY[".pdf"].version})
    assert doc.warnings == ()


@pytest.mark.parametrize(("path", "stream", "text"), [
    (TOP_LEVEL, "__substg1.0_10090102", "Top level email text"),
    (TOP_LEVEL, "__attach_version1.0_#00000000/__substg1.0_3701000D/__substg1.0_10090102",
     "Embedded email text"),
])
def test_the_html_outlook_wraps_in_compressed_rtf_reads_as_the_plain_body(
        tmp_path: Path, path: Path, stream: str, text: str):
    """The body a message keeps only as RTF is read from the HTML the RTF wraps; checked
    against the plain body Outlook keeps beside it in these files."""
    with olefile.OleFileIO(str(path)) as ole:
        data = ole.openstream(stream).read()
    rtf = decompressed_rtf(data)
    assert len(rtf) == struct.unpack_from("<I", data, 4)[0]  # the size its header states
    assert rtf.startswith(b"{\\rtf1\\ansi") and rtf.rstrip(b"\0").endswith(b"}")
    html = encapsulated_html(rtf)
    assert html is not None and html.startswith("<html") and html.endswith("</html>")
    msg = EmailMessage()
    msg["Subject"] = "From RTF"
    msg.set_content(html, subtype="html")
    assert extract(b.write_eml(tmp_path, "rtf.eml", msg)).text == f"# From RTF\n\n{text}"


def test_rtf_stored_uncompressed_and_rtf_that_wraps_no_html():
    raw = b"{\\rtf1\\ansi Plain words.\\par}"
    stored = struct.pack("<IIII", len(raw) + 12, len(raw), 0x414C454D, 0) + raw
    assert decompressed_rtf(stored) == raw
    assert encapsulated_html(raw) is None
    assert decompressed_rtf(b"\0" * 16) == b""  # neither form


def test_what_is_no_outlook_message_is_refused_saying_why(tmp_path: Path):
    empty = tmp_path / "empty.msg"
    empty.write_bytes(b"")
    text = tmp_path / "notes.msg"
    text.write_text("Subject: not a compound file\n")
    word = tmp_path / "letter.msg"
    shutil.copyfile(REAL / "ferry-timetable.doc", word)
    reasons = {}
    for path in (empty, text, word):
        with pytest.raises(ExtractionError) as exc:
            extract(path)
        reasons[path.name] = exc.value.reason
    assert reasons == {
        "empty.msg": "empty file (no message to index)",
        "notes.msg": "not an Outlook message: it is no compound file (an .msg Outlook "
                     "saves is one)",
        "letter.msg": "not an Outlook message: the compound file has no message properties "
                      "(another program's .msg, or one cut short?)"}


def test_an_attached_message_is_found_through_the_index(tmp_path: Path, embedder):
    """The real pipeline: the attached message's text, cited as a range of the file's
    text under its heading path; the refused file fails alone."""
    folder = tmp_path / "mail"
    folder.mkdir()
    shutil.copyfile(TOP_LEVEL, folder / "top-level-email.msg")
    (folder / "broken.msg").write_text("not a message")
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        report = idx.index(folder)
        assert report.indexed == ["top-level-email.msg"]
        assert [path for path, _ in report.failed] == ["broken.msg"]
        hit = idx.search("embedded email text", k=1).hits[0]
        assert hit.document == "top-level-email.msg"
        assert hit.section == "Top level email > Embedded email"
        assert idx.store.document_text(hit.document)[hit.start:hit.end] == hit.content
        assert "Embedded email text" in hit.content
    finally:
        idx.close()
