"""E-mail attachments read for their text: each by the extractor of its type, as the file
saved alone reads, a section under its message (a picture by OCR, as a picture in a
document); real files (tests/fixtures/real, SOURCES.md) attached by the stdlib's email
package, as a mail client sends them."""

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from pathlib import Path

import pytest

import doc_builders as b
from citeline.chunk import chunk_document
from citeline.extract import REGISTRY, current_version, extractor_for, readers_of
from citeline.extract.email_msg import nested_text
from citeline.pipeline import Index
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def attach(msg: EmailMessage, name: str | None, data: bytes, kind: str) -> None:
    maintype, subtype = kind.split("/")
    msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)


def greenhouse_message() -> EmailMessage:
    msg = b.mail_message("Greenhouse papers", "Both versions of the manual are attached.\n")
    attach(msg, "irrigation-styles.pdf", (REAL / "irrigation-styles.pdf").read_bytes(),
           "application/pdf")
    attach(msg, "irrigation-styles.docx", (REAL / "irrigation-styles.docx").read_bytes(),
           "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    attach(msg, "handset.png", (REAL / "irrigation-handset.png").read_bytes(), "image/png")
    attach(msg, "board.jpeg", (REAL / "board-photo.jpeg").read_bytes(), "image/jpeg")
    attach(msg, "notes.xyz", b"twelve bytes", "application/octet-stream")
    attach(msg, None, (REAL / "msft.csv").read_bytes(), "text/csv")  # no file name
    return msg


@pytest.fixture(scope="module")
def greenhouse(tmp_path_factory) -> Document:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("mail")
    return extract(b.write_eml(folder, "papers.eml", greenhouse_message()))


def test_each_attachment_reads_as_its_file_does_under_its_message(greenhouse):
    doc = greenhouse
    # the readers of its attachments, each at its version; a picture is OCR's, and the
    # unknown type no reader's
    assert readers_of(doc.extractor_version) == ("11", {
        "pdf": REGISTRY[".pdf"].version, "docx": REGISTRY[".docx"].version,
        "csv": REGISTRY[".csv"].version})
    sections = {}
    for part in ("irrigation-styles.pdf", "irrigation-styles.docx", "handset.png",
                 "attachment.csv"):
        heading = f"## Attachment: {part}\n\n"
        assert doc.text.count(heading) == 1, part
        start = doc.text.index(heading) + len(heading)
        end = doc.text.find("\n\n## Attachment: ", start)
        sections[part] = doc.text[start:end if end >= 0 else len(doc.text)]
    # a file's text, its headings one level under the attachment's own (the PDF's from its
    # bookmarks, the Word document's from its styles)
    for name in ("irrigation-styles.pdf", "irrigation-styles.docx"):
        assert sections[name] == nested_text(extract(REAL / name), 2), name
    assert "\n### Greenhouse irrigation manual\n" in "\n" + sections["irrigation-styles.docx"]
    assert sections["attachment.csv"] == extract(REAL / "msft.csv").text  # no heading to move
    assert sections["handset.png"] == extract(REAL / "irrigation-handset.png").text
    # listed as before; the photograph adds nothing, the unknown type is said
    assert "Attachments: irrigation-styles.pdf (application/pdf, " in doc.text
    assert "board.jpeg" not in doc.text.split("Attachments:")[1].split("\n", 1)[1]
    assert doc.warnings == ("attachment notes.xyz (application/octet-stream, 12 bytes) not "
                            "indexed (unsupported file type '.xyz')",)


def test_a_chunk_of_an_attachment_is_cited_under_it(greenhouse):
    paths = {c.section for c in chunk_document(greenhouse)}
    assert "Greenhouse papers > Attachment: irrigation-styles.docx > Greenhouse irrigation " \
           "manual > 1. Drip lines > Flushing the lines" in paths
    assert any(p.startswith("Greenhouse papers > Attachment: irrigation-styles.pdf > ")
               for p in paths)
    for c in chunk_document(greenhouse):
        assert greenhouse.text[c.start:c.end] == c.content


def test_an_attachment_s_text_keeps_no_line_that_reads_as_a_heading_or_fence():
    markdown = Document(path="a.md", title="a", media_type="text/markdown", extractor="text",
                        extractor_version="8", headings="markdown", text=(
                            "Setup\n=====\n\nRun it:\n\n```sh\n# a comment, not a heading\n"
                            "make\n```\n\n## Then\n\nDone."))
    assert nested_text(markdown, 2) == (
        "### Setup\n\nRun it:\n\n```sh\n# a comment, not a heading\nmake\n```\n\n"
        "#### Then\n\nDone.")
    table = Document(path="t.csv", title="t", media_type="text/csv", extractor="sheet",
                     extractor_version="1", headings="none",
                     text="# | item\n1 | rope\n```\n~~~ | x")
    assert nested_text(table, 2) == "\\# | item\n1 | rope\n\\```\n\\~~~ | x"


def test_a_crafted_file_name_stays_in_its_folder(tmp_path: Path):
    msg = b.mail_message("Notes", "See the file.\n")
    attach(msg, "../../notes.md", b"# Plan\n\nBuy rope.\n", "text/markdown")
    doc = extract(b.write_eml(tmp_path, "crafted.eml", msg))
    assert doc.text.endswith("## Attachment: notes.md\n\n### Plan\n\nBuy rope.")
    assert not (tmp_path.parent / "notes.md").exists()


def test_an_attachment_a_mailbox_carries_twice_is_read_once(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch):
    box = mailbox.mbox(tmp_path / "thread.mbox")
    for subject in ("Manual", "Re: Manual"):
        msg = b.mail_message(subject, "The manual.\n")
        attach(msg, "manual.docx", (REAL / "irrigation-styles.docx").read_bytes(),
               "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        box.add(msg)
    box.flush()
    box.close()
    docx = REGISTRY[".docx"]
    calls: list[str] = []
    real = docx.extract
    monkeypatch.setattr(docx, "extract", lambda path, rel: calls.append(rel) or real(path, rel))
    doc = extract(tmp_path / "thread.mbox")
    assert calls == ["manual.docx"] and doc.text.count("## Attachment: manual.docx") == 2


def test_an_attachment_is_found_through_the_index(tmp_path: Path, embedder):
    """The real pipeline: the hit is the attached manual's paragraph, cited as a range of
    the message's text under the attachment's heading path."""
    folder = tmp_path / "mail"
    folder.mkdir()
    b.write_eml(folder, "papers.eml", greenhouse_message())
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        report = idx.index(folder)
        assert report.indexed == ["papers.eml"] and not report.failed
        hit = idx.search("how often should the drip line end caps be flushed", k=3).hits[0]
        assert "Open the end caps once a month" in hit.content
        assert hit.section.startswith("Greenhouse papers > Attachment: irrigation-styles.")
        assert idx.store.document_text("papers.eml")[hit.start:hit.end] == hit.content
        assert hit.to_json()["locator"] == f"#char={hit.start},{hit.end}"
    finally:
        idx.close()


BODY_HTML = ('<p>The handset shows this:</p><p><img src="cid:screen@mail" alt="image001.png">'
             '</p><p>What does it mean?</p><img src="cid:photo@mail">'
             '<img src="https://tracker.example/open.gif" alt="">')


def carry_pictures(html_part: EmailMessage) -> None:
    """The pictures an HTML body shows by cid: a screenshot, a photograph."""
    html_part.add_related((REAL / "irrigation-handset.png").read_bytes(), "image", "png",
                          cid="<screen@mail>", filename="image001.png")
    html_part.add_related((REAL / "board-photo.jpeg").read_bytes(), "image", "jpeg",
                          cid="<photo@mail>")


def test_a_picture_pasted_into_an_html_message_is_read_where_it_shows(tmp_path: Path):
    msg = b.mail_message("Handset error", "x\n")
    msg.set_content(BODY_HTML, subtype="html")
    carry_pictures(msg)
    doc = extract(b.write_eml(tmp_path, "html.eml", msg))
    screen = extract(REAL / "irrigation-handset.png").text
    assert doc.text.endswith(
        f"The handset shows this:\n\n{screen}\n\nWhat does it mean?")  # the photo: nothing
    assert doc.warnings == () and "Attachments:" not in doc.text


def test_the_pictures_of_a_message_read_as_plain_text_follow_its_text(tmp_path: Path):
    # Outlook's way: the text marks where the picture was, the HTML shows it
    msg = b.mail_message("Handset error", "The handset shows this:\n\n"
                         "[cid:screen@mail]\n\nWhat does it mean?\n")
    msg.add_alternative(BODY_HTML, subtype="html")
    carry_pictures(msg.get_payload()[1])
    doc = extract(b.write_eml(tmp_path, "both.eml", msg))
    screen = extract(REAL / "irrigation-handset.png").text
    assert doc.text.endswith("The handset shows this:\n\n[cid:screen@mail]\n\n"
                             f"What does it mean?\n\n{screen}")
    assert doc.warnings == ()


def test_an_attachment_whose_reader_crashes_fails_alone(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch):
    def crash(path: Path, rel: str) -> Document:
        raise RuntimeError("a bug in a parser")

    monkeypatch.setattr(REGISTRY[".docx"], "extract", crash)
    doc = extract(b.write_eml(tmp_path, "papers.eml", greenhouse_message()))
    assert "attachment irrigation-styles.docx (application/vnd.openxmlformats-officedocument." \
           "wordprocessingml.document, 5 kB) not indexed: its reader crashed (RuntimeError: a " \
           "bug in a parser)" in doc.warnings
    assert "## Attachment: irrigation-styles.pdf" in doc.text
    assert "## Attachment: irrigation-styles.docx" not in doc.text


def test_a_change_to_an_attachment_s_reader_marks_its_mail_stale(
        tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch):
    """The real pipeline: a new version of the Markdown reader marks stale the message
    carrying a Markdown file, and the one whose Markdown attachment it failed to read,
    as it does a Markdown file alone; not a message with no attachment. Re-indexing the
    stale ones reads them with it, and nothing is stale after."""
    folder = tmp_path / "mail"
    folder.mkdir()
    with_notes = b.mail_message("Flushing", "The notes are attached.\n")
    attach(with_notes, "notes.md", b"# Drip lines\n\nFlush the end caps monthly.\n",
           "text/markdown")
    b.write_eml(folder, "notes.eml", with_notes)
    unreadable = b.mail_message("Scan", "Undecodable notes.\n")
    attach(unreadable, "broken.md", b"", "text/markdown")  # empty: not read
    b.write_eml(folder, "broken.eml", unreadable)
    b.write_eml(folder, "plain.eml", b.mail_message("Lunch", "Noon on Friday.\n"))
    (folder / "alone.md").write_text("# Valves\n\nClose them in winter.\n")
    markdown = REGISTRY[".md"]
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        assert not idx.index(folder).failed
        stamped = {s.record.path: s.record.extractor_version for s in idx.status()}
        assert stamped["notes.eml"] == stamped["broken.eml"] \
            == f"11 ({markdown.name} {markdown.version})"
        assert stamped["plain.eml"] == "11"
        assert not any(s.stale_reasons for s in idx.status())

        monkeypatch.setattr(markdown, "version", markdown.version + ".1")
        stale = {s.record.path: s.stale_reasons for s in idx.status() if s.stale_reasons}
        assert stale == {
            "notes.eml": (f"extractor eml {stamped['notes.eml']} -> "
                          f"11 ({markdown.name} {markdown.version})",),
            "broken.eml": (f"extractor eml {stamped['broken.eml']} -> "
                           f"11 ({markdown.name} {markdown.version})",),
            "alone.md": (f"extractor {markdown.name} {stamped['alone.md']} -> "
                         f"{markdown.version}",)}
        assert idx.index(folder).unchanged == ["plain.eml"]  # the others read again
        assert not any(s.stale_reasons for s in idx.status())
        assert idx.search("how often are the end caps flushed", k=1).hits[0].document \
            == "notes.eml"
    finally:
        idx.close()


def test_a_reader_no_longer_there_marks_its_mail_stale():
    versions = {"eml": "7", "pdf": "15"}
    assert current_version("eml", "7 (docx 14, pdf 15)", versions) == "7 (docx absent, pdf 15)"
    assert current_version("eml", "7", versions) == "7"
    assert current_version("msg", "1 (pdf 15)", versions) is None
    assert readers_of("2 (pdf 15)") == ("2", {"pdf": "15"})
    assert readers_of("7") == ("7", {})
