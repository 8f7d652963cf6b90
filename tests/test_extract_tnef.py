"""``winmail.dat`` (TNEF), what Outlook sends a Rich Text message in, read inside the
message that carries it: its body when the MIME message has none, its files as the
message's attachments, its messages as forwarded ones. The TNEF streams are real
(tests/fixtures/real/winmail-*.dat, SOURCES.md), each attached to a message the stdlib's
email package writes, as Outlook sends them through Exchange."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

import doc_builders as b
from citeline.extract import REGISTRY, extractor_for, readers_of
from citeline.extract.email_msg import nested_text
from citeline.extract.tnef import TnefError, tnef_message
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"
HEAD = ("# Outlook sent this\n\nFrom: Ana Núñez <ana@example.org>\nTo: Ben Okafor "
        "<ben@example.org>\nDate: Tue, 14 May 2024 09:30:00 +0200\n")


def outlook_message(tmp_path: Path, stream: bytes, body: str = "",
                    name: str = "winmail.dat") -> Document:
    """A message carrying ``stream`` as Exchange sends one: a text part (``body``, empty
    when Outlook puts the text in the TNEF alone) and ``application/ms-tnef``."""
    msg = b.mail_message("Outlook sent this", body)
    msg.add_attachment(stream, maintype="application", subtype="ms-tnef", filename=name)
    path = b.write_eml(tmp_path, "outlook.eml", msg)
    return extractor_for(path).extract(path, path.name)


def winmail(name: str) -> bytes:
    return (REAL / f"winmail-{name}.dat").read_bytes()


def test_a_rich_text_body_and_its_files_are_the_message_s(tmp_path: Path):
    doc = outlook_message(tmp_path, winmail("MAPI_ATTACH_DATA_OBJ"))
    assert doc.text.startswith(
        HEAD + "Attachments: VIA_Nytt_1402.doc (application/msword, 62 kB, in winmail.dat); "
        "VIA_Nytt_1402.pdf (application/pdf, 214 kB, in winmail.dat); VIA_Nytt_14021.htm "
        "(text/html, 69 kB, in winmail.dat)\n\n"
        # the body is RTF (Outlook's Rich Text), in Windows-1252: its paragraphs
        "Det er jo en velkjent sak at bodødamene er noe mer jålete/velkledde")
    assert doc.warnings == ()
    # each file read by its own reader, as the file saved alone reads, under its name
    for name in ("VIA_Nytt_1402.doc", "VIA_Nytt_1402.pdf", "VIA_Nytt_14021.htm"):
        alone = tmp_path / name
        alone.write_bytes(tnef_file(winmail("MAPI_ATTACH_DATA_OBJ"), name))
        text = nested_text(extractor_for(alone).extract(alone, name), 2)
        assert f"## Attachment: {name}\n\n{text}" in doc.text, name
    assert readers_of(doc.extractor_version)[1] == {
        kind: REGISTRY[f".{suffix}"].version
        for kind, suffix in (("doc", "doc"), ("pdf", "pdf"), ("html", "htm"))}


def tnef_file(stream: bytes, name: str) -> bytes:
    """The bytes of the file ``name`` the stream holds, as the MIME message carries it."""
    msg = tnef_message(stream, [])
    part = next(p for p in msg.walk() if p.get_filename() == name)
    data = part.get_payload(decode=True)
    assert isinstance(data, bytes)
    return data


def test_an_html_body_is_read_as_an_html_body_is(tmp_path: Path):
    doc = outlook_message(tmp_path, winmail("body"))
    assert doc.text.startswith(HEAD + "\nTHE BILL OF RIGHTS\nAmendments 1-10 of the "
                               "Constitution\n\nThe Conventions of a number of the States")
    assert "\n\nAmendment I\n\nCongress shall make no law respecting an establishment of " \
           "religion" in doc.text
    assert doc.warnings == ()


def test_a_plain_rtf_body_keeps_its_lines_as_written(tmp_path: Path):
    doc = outlook_message(tmp_path, winmail("rtf"))
    assert doc.text.startswith(HEAD + "\naafgag'alga'kgk\n\nagka;kgag")
    assert doc.text.endswith("-- Greg\n\nGreg Allen\n\nSenior Engineer/QADirector Team\n\n"
                             "Compuware Corporation\n\ngallen@numega.com\n\n978-287-4494 "
                             "(Office)\n\n978-318-6939 (Fax)")


def test_the_mime_body_wins_and_files_named_by_convention_are_read(tmp_path: Path):
    # Outlook's own plain rendering of the message comes first; README and AUTHORS have
    # no suffix and are read as plain text, as a README saved alone is
    doc = outlook_message(tmp_path, winmail("two-files"), "See the two files.\n")
    assert doc.text.startswith(
        HEAD + "Attachments: AUTHORS (application/octet-stream, 244 bytes, in winmail.dat); "
        "README (application/octet-stream, 893 bytes, in winmail.dat)\n\nSee the two "
        "files.\n\n## Attachment: AUTHORS\n\n")
    assert "\n\n## Attachment: README\n\n" in doc.text
    assert doc.warnings == ()


def test_a_message_it_holds_is_a_forwarded_message(tmp_path: Path):
    doc = outlook_message(tmp_path, winmail("IPM-DistList"))
    assert doc.text == (HEAD + "\nThis is the first half of the list because Comcast allows "
                        "only up to 100 email to be sent out at once.\n\nWill send the "
                        "second half same way.\n\nAgnes\n\n## XXXXnews")


def test_a_cut_short_or_unreadable_winmail_dat_is_said(tmp_path: Path):
    whole = winmail("MAPI_ATTACH_DATA_OBJ")
    cut = outlook_message(tmp_path, whole[:200_000], "Body.\n")
    assert "## Attachment: VIA_Nytt_1402.doc" in cut.text  # before the cut: read
    assert "VIA_Nytt_1402.pdf" not in cut.text
    assert cut.warnings == (
        "attachment winmail.dat (application/ms-tnef, 200 kB): it is cut short (an "
        "attribute at byte 65296 runs past its 200000 bytes); what comes before is read",)
    bad = outlook_message(tmp_path, whole[:6] + b"\x01\x04\x90\x06\x00\xff\xff\xff\x7f",
                          "Body.\n")
    assert bad.text.endswith("Body.") and bad.warnings == (
        "attachment winmail.dat (application/ms-tnef, 15 bytes): it is cut short (an "
        "attribute at byte 6 runs past its 15 bytes); what comes before is read",)
    other = outlook_message(tmp_path, b"not TNEF at all", "Body.\n")  # under its name
    assert other.warnings == ("attachment winmail.dat (application/ms-tnef, 15 bytes) not "
                              "indexed (unsupported file type '.dat')",)


def test_a_property_list_that_runs_past_its_attribute_is_refused():
    with pytest.raises(TnefError):
        tnef_message(b"\x78\x9f\x3e\x22\x00\x00" + b"\x01\x03\x90\x06\x00\x08\x00\x00\x00"
                     + b"\x05\x00\x00\x00\x1f\x00\x37\x00" + b"\x00\x00", [])
    # one multi-valued PT_LONG claiming four billion values in twelve bytes: refused at
    # once, not counted through
    props = b"\x01\x00\x00\x00" + b"\x03\x10\x00\x30" + b"\xff\xff\xff\xff"
    with pytest.raises(TnefError):
        tnef_message(b"\x78\x9f\x3e\x22\x00\x00\x01\x03\x90\x06\x00"
                     + len(props).to_bytes(4, "little") + props + b"\x00\x00", [])


def test_a_message_with_no_tnef_reads_as_before(tmp_path: Path):
    msg: EmailMessage = b.mail_message("Plain", "Just text.\n")
    path = b.write_eml(tmp_path, "plain.eml", msg)
    doc = extractor_for(path).extract(path, path.name)
    assert doc.text.endswith("Just text.") and doc.warnings == ()


def test_a_file_name_with_a_line_break_is_read_on_one_line(tmp_path: Path):
    # a crafted (or mangled) name: a MIME header may hold no line break
    # (the same length, so every attribute keeps its size)
    stream = winmail("two-files").replace(b"README", b"READ\nE")
    doc = outlook_message(tmp_path, stream, "Body.\n")
    assert "; READ E (application/octet-stream, 893 bytes, in winmail.dat)\n" in doc.text
    assert doc.warnings[-1].startswith("attachment READ E (application/octet-stream, 893 "
                                       "bytes, in winmail.dat) not indexed")
