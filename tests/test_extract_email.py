"""E-mail (.eml) and mailboxes (.mbox), on files the stdlib's own writers produce
(email.generator, mailbox.mbox): each message a ``#`` section with its header block and
the body a mail client shows, attachments named, a forwarded message a section one level
down, and a file that is no e-mail refused with its reason."""

from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage
from pathlib import Path

import pytest

import doc_builders as b
from citeline.chunk import chunk_document, sections
from citeline.errors import ExtractionError
from citeline.extract import REGISTRY, extractor_for
from citeline.pipeline import Index
from citeline.types import Document


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def raw_header(path: Path, name: str) -> str:
    """A header's value as the file writes it (the independent check of "as written")."""
    m = re.search(rb"^" + name.encode() + rb": (.*?)\r?$", path.read_bytes(), re.M)
    assert m is not None, name
    return m.group(1).decode("ascii")


FERRY_TEXT = (
    "# Ferry times for the island trip\n\n"
    "From: Ana Núñez <ana@example.org>\n"
    "To: Ben Okafor <ben@example.org>\n"
    "Cc: Chloé Martin <chloe@example.org>\n"
    "Date: Tue, 14 May 2024 09:30:00 +0200\n\n"
    "Hi Ben,\n\n"
    "The first ferry to Inishmore leaves Rossaveal at 10:30 and the crossing takes "
    "forty minutes.\n"
    "\\# of bikes allowed: two each\n\n"
    "Ana\n\n"
    "> Ben wrote:\n"
    "> Which ferry should we take on Saturday?"
)


def test_a_plain_message_is_a_section_with_its_headers_and_body(tmp_path: Path):
    """Subject as the # heading and the title; From/To/Cc/Date one line each (the names
    RFC 2047 encodes in the file decoded); the body as written, quoted reply included; a
    body line that looks like a heading escaped."""
    path = b.eml_plain(tmp_path)
    doc = extract(path)
    assert doc.text == FERRY_TEXT
    assert (doc.title, doc.extractor, doc.extractor_version, doc.headings) == (
        "Ferry times for the island trip", "eml", "11", "atx")
    assert doc.media_type == "message/rfc822" and doc.warnings == () and doc.regions == ()
    assert raw_header(path, "Date") in doc.text
    assert "=?utf-8?" in raw_header(path, "From")  # encoded in the file, decoded in the text
    assert [s.path for s in sections(doc)] == [()]  # the Subject is the title: no extra level
    assert all(c.section == "Ferry times for the island trip" for c in chunk_document(doc))


def test_address_headers_are_shown_as_written_not_as_parsed(tmp_path: Path):
    """A mailing-list archive's ``From: address (Name)``: parsed as an address, the name
    (a comment) would be dropped."""
    msg = b.mail_message("Archive post", "Posted to the list.\n",
                         sender="ben@example.org (Ben Okafor)", to="undisclosed-recipients:;")
    path = b.write_eml(tmp_path, "post.eml", msg)
    assert raw_header(path, "From") == "ben@example.org (Ben Okafor)"
    assert "From: ben@example.org (Ben Okafor)\nTo: undisclosed-recipients:;\n" in \
        extract(path).text


def test_the_plain_alternative_is_read_by_its_declared_latin_1_charset(tmp_path: Path):
    path = b.eml_alternative(tmp_path)
    raw = path.read_bytes()
    assert b'charset="iso-8859-1"' in raw and b"cr=E8me br=FBl=E9e" in raw  # quoted-printable
    doc = extract(path)
    assert doc.text.endswith("\n\nThe crème brûlée is served at nine, after the pâté.")
    assert doc.title == "Menü for the Café Noël dinner"
    assert "HTML rendering" not in doc.text and doc.warnings == ()


def _body_part(tmp_path: Path, name: str, payload: bytes, charset: str | None) -> Document:
    msg = EmailMessage()
    msg["Subject"] = "Charset check"
    msg.set_content(payload, "text", "plain", cte="base64")
    if charset:
        msg.set_param("charset", charset)
    return extract(b.write_eml(tmp_path, name, msg))


def test_a_part_that_breaks_its_charset_warns_and_never_fails_the_file(tmp_path: Path):
    broken = _body_part(tmp_path, "broken.eml", "Grüße vom Hafen\n".encode() + b"\xff end\n",
                        "utf-8")
    assert broken.text.endswith("Grüße vom Hafen\n\ufffd end")
    assert broken.warnings == ("text/plain part: not valid utf-8, the charset it declares "
                               "(undecodable byte 0xFF at offset 18, line 2 of the part): read "
                               "with U+FFFD in their place",)
    legacy = _body_part(tmp_path, "legacy.eml", "Crème brûlée\n".encode("cp1252"), None)
    assert legacy.text.endswith("\n\nCrème brûlée")
    assert legacy.warnings == ("text/plain part: declares no charset, and is not UTF-8: read "
                               "as Windows-1252, Western European (line 1 reads 'Crème')",)
    cyrillic = _body_part(tmp_path, "cyrillic.eml", "Привет из порта\n".encode("cp1251"),
                          "x-unknown")
    assert cyrillic.text == "# Charset check"  # the part is left out, the message is not
    (warning,) = cyrillic.warnings
    assert warning.startswith("text/plain part: declares the charset x-unknown, unknown, and "
                              "is neither UTF-8 (undecodable byte 0xCF at offset 0, line 1) "
                              "nor Western European text (") and warning.endswith("not indexed")
    ascii_label = _body_part(tmp_path, "mislabelled.eml", "Grüße\n".encode(), "us-ascii")
    assert ascii_label.text.endswith("\n\nGrüße") and ascii_label.warnings == ()


def test_an_html_only_body_is_read_as_a_page_its_headings_under_the_subject(tmp_path: Path):
    doc = extract(b.eml_html_only(tmp_path))
    assert doc.text == (
        "# Harbour newsletter, May\n\n"
        "From: news@harbour.example\n"
        "To: Ben Okafor <ben@example.org>\n"
        "Date: Tue, 14 May 2024 09:30:00 +0200\n\n"
        "## Harbour news\n\n"
        "The new pontoon opens in June.\n\n"
        "### Events\n\n"
        "The regatta starts at noon from the east pier.")
    assert "track()" not in doc.text and "color" not in doc.text
    paths = {c.content.split("\n")[0]: c.section for c in chunk_document(doc)}
    assert paths["### Events"] == "Harbour newsletter, May > Harbour news > Events"


def test_attachments_that_cannot_be_read_are_named_with_why(tmp_path: Path):
    # (a report that is no PDF, a picture that is no picture: see
    # test_extract_attachments.py for attachments read)
    doc = extract(b.eml_attachment(tmp_path))
    assert doc.warnings == (
        "attachment report.pdf (application/pdf, 120 kB) not indexed: not a readable PDF: the "
        "file is corrupt or not a PDF: it is cut short (it does not end with %%EOF), as after "
        "an interrupted download or copy; fetch or copy it again",
        "attachment (image/png, 68 bytes) not indexed: a damaged PNG image, cut short or corrupt",
    )
    assert doc.text.endswith(
        "Date: Tue, 14 May 2024 09:30:00 +0200\n"
        "Attachments: report.pdf (application/pdf, 120 kB); (image/png, 68 bytes)\n\n"
        "The quarterly report is attached; see page four.")
    assert "%PDF" not in doc.text and "PNG" not in doc.text


def test_a_forwarded_message_is_a_section_one_level_down(tmp_path: Path):
    path = b.eml_forwarded(tmp_path)
    assert b"\r\n" in path.read_bytes() and b"message/rfc822" in path.read_bytes()
    doc = extract(path)
    assert doc.text == (
        "# Fwd: Lighthouse tour on Sunday\n\n"
        "From: Ana Núñez <ana@example.org>\n"
        "To: Ben Okafor <ben@example.org>\n"
        "Date: Tue, 14 May 2024 09:30:00 +0200\n\n"
        "See the message below, Ben.\n\n"
        "## Lighthouse tour on Sunday\n\n"
        "From: Keeper <keeper@lighthouse.example>\n"
        "To: Ana Núñez <ana@example.org>\n"
        "Date: Fri, 10 May 2024 18:00:00 +0100\n"
        "Attachments: map.png (image/png, 1 kB)\n\n"
        "The lighthouse tour meets at the pier gate at eight.")
    assert doc.warnings == ("forwarded message 'Lighthouse tour on Sunday': attachment map.png "
                            "(image/png, 1 kB) not indexed: a damaged PNG image, cut short or "
                            "corrupt",)
    assert [s.path for s in sections(doc)] == [(), ("Lighthouse tour on Sunday",)]


def test_an_mbox_is_its_messages_in_file_order_each_a_section(tmp_path: Path):
    path = b.mbox_three(tmp_path)
    raw = path.read_bytes()
    assert raw.count(b"\nFrom ") + raw.startswith(b"From ") == 3
    assert b"\n>From the yard's note" in raw  # the mailbox escaped the body line
    doc = extract(path)
    assert doc.text == (
        "# Boat repair quote\n\n"
        "From: Yard <office@boatyard.example>\n"
        "To: Ben Okafor <ben@example.org>\n"
        f"Date: {raw_header(path, 'Date')}\n\n"
        "The boatyard quoted 350 euros to replace the rudder bearing.\n"
        "From the yard's note: paid on collection.\n\n"
        "# Choir rehearsal moved\n\n"
        "From: Choir <choir@example.org>\n"
        "To: Ben Okafor <ben@example.org>\n"
        "Date: Tue, 07 May 2024 19:15:00 +0000\n\n"
        "Rehearsal moves to the school hall on Thursday evenings.\n\n"
        "# (no subject)\n\n"
        "From: Ana Núñez <ana@example.org>\n"
        "To: Ben Okafor <ben@example.org>\n"
        "Date: Wed, 08 May 2024 07:45:00 +0000\n\n"
        "Remember to bring the tide tables.")
    assert (doc.title, doc.extractor, doc.media_type) == ("inbox", "mbox", "application/mbox")
    assert doc.warnings == ()
    assert [s.path for s in sections(doc)] == [
        ("Boat repair quote",), ("Choir rehearsal moved",), ("(no subject)",)]
    for c in chunk_document(doc):
        assert doc.text[c.start:c.end] == c.content


def test_an_mbox_message_names_itself_in_warnings_and_a_huge_one_is_left_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import mailbox

    from citeline.extract import email_msg

    path = tmp_path / "mixed.mbox"
    box = mailbox.mbox(path)
    box.add(email.message_from_bytes(b.eml_attachment(tmp_path).read_bytes(),
                                     policy=email.policy.default))
    box.add(email.message_from_bytes(b.eml_plain(tmp_path).read_bytes(),
                                     policy=email.policy.default))
    box.flush()
    box.close()
    doc = extract(path)
    assert doc.warnings[0].startswith("message 1 'Quarterly report': attachment report.pdf "
                                      "(application/pdf, 120 kB) not indexed: ")
    monkeypatch.setattr(email_msg, "MAX_UNPACKED", 100_000)  # the report's message is over it
    doc = extract(path)
    assert doc.warnings == ("message 1 is 0 MB (the most read is 0 MB): too big to index; "
                            "left out",)
    assert doc.text.startswith("# Ferry times for the island trip\n\n")
    with pytest.raises(ExtractionError, match=r"^report.eml: this message is 0 MB .* too big"):
        extract(tmp_path / "report.eml")


def test_a_file_that_is_no_email_says_why(tmp_path: Path):
    def reason(name: str, data: bytes) -> str:
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ExtractionError) as info:
            extract(path)
        assert info.value.path == name
        return info.value.reason

    pdf = b.two_column_pdf(tmp_path, repeats=1).read_bytes()
    message = b.eml_plain(tmp_path).read_bytes()
    assert reason("empty.eml", b"") == "empty file (no message to index)"
    assert reason("blank.eml", b"\n \n") == "empty file (no message to index)"
    assert reason("scan.eml", pdf) == (
        "not an e-mail message: it has no header lines (From:, To:, Subject:) at its start; "
        "another kind of file named .eml?")
    no_from = ("not an mbox mailbox: its first line is no 'From ' separator line, which "
               "starts each message of a mailbox (one message saved alone is an .eml file)")
    assert reason("one.mbox", message) == no_from
    assert reason("scan.mbox", pdf) == no_from
    assert reason("empty.mbox", b"") == "empty file (no messages to index)"


def _nested(depth: int) -> bytes:
    """A crafted message of ``depth`` multiparts one inside the other."""
    parts = [b"Subject: deep\nContent-Type: multipart/mixed; boundary=b0\n\n"]
    parts += [b"--b%d\nContent-Type: multipart/mixed; boundary=b%d\n\n" % (i, i + 1)
              for i in range(depth)]
    parts.append(b"--b%d\nContent-Type: text/plain\n\nthe bottom\n" % depth)
    parts += [b"--b%d--\n" % i for i in range(depth, -1, -1)]
    return b"".join(parts)


def test_parts_nested_past_the_parser_s_depth_refuse_that_message_alone(tmp_path: Path):
    deep = tmp_path / "deep.eml"
    deep.write_bytes(_nested(3000))
    with pytest.raises(ExtractionError, match="its MIME parts are nested too deeply to read$"):
        extract(deep)
    box = tmp_path / "deep.mbox"
    box.write_bytes(b"From a Mon Jan  1 00:00:00 2024\n" + _nested(3000) + b"\n"
                    + b"From b Mon Jan  1 00:00:00 2024\n" + _nested(3))
    doc = extract(box)
    assert doc.warnings == ("message 1: its MIME parts are nested too deeply to read; left out",)
    assert doc.text == "# deep\n\nthe bottom"


def _flowed(tmp_path: Path, name: str, body: str, delsp: bool = False) -> Path:
    """A ``text/plain; format=flowed`` message as Thunderbird (``DelSp`` unset) or Apple
    Mail (``DelSp=yes``) sends one, written by the email package in quoted-printable,
    which keeps each soft break's trailing space (as ``=20``)."""
    msg = b.mail_message("Ferry times", "x")
    params = {"format": "flowed", **({"delsp": "yes"} if delsp else {})}
    msg.set_content(body, cte="quoted-printable", params=params)
    return b.write_eml(tmp_path, name, msg, crlf=True)


def test_a_format_flowed_body_is_unflowed_within_each_quote_depth(tmp_path: Path):
    """RFC 3676: a line ending in a space is a soft break, joined to the next line of its
    quote depth; a leading space is stuffing; the signature separator never flows."""
    body = ("The first ferry to Inishmore leaves Rossaveal at 10:30 and the \n"
            "crossing takes forty minutes.\n"
            " From the pier it is a short walk.\n"  # space-stuffed: a line opening "From "
            "\n"
            "> Ben wrote: which ferry should we take on \n"
            "> Saturday, the early one or the \n"
            ">> Ana wrote earlier: the late one \n"  # depth changes: the line above ends
            ">> is cheaper.\n"
            "> \n"
            "-- \n"
            "Ana\n")
    path = _flowed(tmp_path, "flowed.eml", body)
    assert b"format=\"flowed\"" in path.read_bytes() and b"the=20\r\n" in path.read_bytes()
    doc = extract(path)
    assert doc.text.endswith(
        "\n\nThe first ferry to Inishmore leaves Rossaveal at 10:30 and the crossing takes "
        "forty minutes.\n"
        "From the pier it is a short walk.\n"
        "\n"
        "> Ben wrote: which ferry should we take on Saturday, the early one or the\n"
        ">> Ana wrote earlier: the late one is cheaper.\n"
        ">\n"
        "--\n"
        "Ana")
    assert doc.extractor_version == "11"
    sentence = "leaves Rossaveal at 10:30 and the crossing takes forty minutes."
    assert any(sentence in c.content for c in chunk_document(doc))


def test_a_flowed_body_with_delsp_yes_drops_the_space_each_soft_break_added(tmp_path: Path):
    """Apple Mail's ``DelSp=yes``: the space before a soft break is the sender's, not the
    text's (a break between words keeps their own space; text without spaces, none)."""
    body = ("The first ferry leaves Rossaveal at  \n10:30 sharp.\n"
            "> 東京駅で \n> 会いましょう。\n")
    doc = extract(_flowed(tmp_path, "apple.eml", body, delsp=True))
    assert doc.text.endswith("\n\nThe first ferry leaves Rossaveal at 10:30 sharp.\n"
                             "> 東京駅で会いましょう。")


def test_a_body_not_flowed_keeps_its_line_breaks_even_after_a_space(tmp_path: Path):
    msg = b.mail_message("Ferry times", "x")
    msg.set_content("Leaves at 10:30 \nfrom Rossaveal.\n", cte="quoted-printable")
    assert extract(b.write_eml(tmp_path, "fixed.eml", msg)).text.endswith(
        "\n\nLeaves at 10:30\nfrom Rossaveal.")


def test_both_suffixes_are_registered_with_a_name_and_version():
    assert (REGISTRY[".eml"].name, REGISTRY[".eml"].version) == ("eml", "11")
    assert (REGISTRY[".mbox"].name, REGISTRY[".mbox"].version) == ("mbox", "11")


def test_a_message_of_an_mbox_is_found_through_the_index(tmp_path: Path, embedder):
    """The real pipeline: real SQLite, the real model; the hit is the message's sentence,
    cited by its Subject as the heading path, its content the stored text's slice."""
    folder = tmp_path / "docs"
    folder.mkdir()
    b.mbox_three(folder)
    b.eml_plain(folder)
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        report = idx.index(folder)
        assert sorted(report.indexed) == ["ferry.eml", "inbox.mbox"] and not report.failed
        hits = idx.search("how much does replacing the rudder bearing cost", k=5).hits
        hit = hits[0]
        assert hit.document == "inbox.mbox"
        assert "The boatyard quoted 350 euros to replace the rudder bearing." in hit.content
        assert hit.section == "inbox > Boat repair quote"
        assert idx.store.document_text("inbox.mbox")[hit.start:hit.end] == hit.content
        assert hit.to_json()["locator"] == f"#char={hit.start},{hit.end}"
    finally:
        idx.close()
