"""A file attached to a message is cited by its own places: its pages (slides) are
regions of the message's text, so a citation of a mailed PDF says which page of it."""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

import doc_builders as b
from citeline.chunk import locate_in
from citeline.cli import _place_notes
from citeline.extract import extractor_for
from citeline.extract.email_msg import nested
from citeline.pipeline import Index
from citeline.store import locator_from, locator_json
from citeline.types import AttachedPlace, Document, Heading, Locator, Region, RegionKind

REAL = Path(__file__).parent / "fixtures" / "real"


def test_an_offset_is_followed_through_escapes_and_headings():
    """Escapes put a backslash before a line; a heading line is rewritten: each offset
    of the file's text lands where its character is in the nested text."""
    text = "alpha\n# beta\ngamma"  # a line only looking like a heading: escaped
    doc = Document("a.pdf", "a", text, "application/pdf", "pdf", "1", headings="none")
    nested_text, place = nested(doc, 2)
    assert nested_text == "alpha\n\\# beta\ngamma"
    assert [place(i) for i in (0, 6, 7, 13, len(text))] == [0, 6, 8, 14, len(text) + 1]
    # the backslash before a page's first line belongs to that page
    assert nested_text[place(6):place(len(text))] == "\\# beta\ngamma"
    outlined = Document("b.pdf", "b", "Intro\nSecond part\nbody two", "application/pdf", "pdf",
                        "1", headings="outline",
                        outline=(Heading(6, 1, "Second part", 17),))
    nested_text, place = nested(outlined, 2)
    assert nested_text == "Intro\n### Second part\nbody two"
    assert place(6) == place(10) == 6  # inside the heading: its line's start
    assert nested_text[place(18):] == "body two"


def timetable_message() -> EmailMessage:
    msg = b.mail_message("Island timetables", "Both timetables are attached.\n")
    msg.add_attachment(b.numbered_pages_pdf(6), maintype="application", subtype="pdf",
                       filename="timetable.pdf")
    return msg


def test_an_attached_pdf_s_pages_are_places_in_its_message(tmp_path: Path):
    path = b.write_eml(tmp_path, "timetables.eml", timetable_message())
    doc = extractor_for(path).extract(path, path.name)
    pages = [r for r in doc.regions if r.kind is RegionKind.ATTACHED_PAGE]
    assert [(r.label, r.page) for r in pages] == [("timetable.pdf", n) for n in range(1, 7)]
    for r in pages:  # each page's text is where its region says
        assert f"Fact {r.page}: the ferry to island number {r.page} " \
               in doc.text[r.start:r.end]
    assert all(a.end <= b.start for a, b in zip(pages, pages[1:], strict=False))
    where = doc.text.index("Fact 4:")
    loc = locate_in(doc.regions, where, where + 10)
    assert loc.attached == (AttachedPlace("timetable.pdf", "page", (4,)),)
    assert loc.fragment == f"#char={where},{where + 10}"  # a place in the message
    assert _place_notes(loc) == " (in timetable.pdf, page 4)"


def test_slides_and_a_pdf_in_an_attached_message_keep_their_file_s_name(tmp_path: Path):
    """A deck's slides are cited as slides; a PDF in a message attached to the message
    keeps its own file's name (the real Outlook bounce returning a PDF)."""
    deck = b.pptx_deck(tmp_path)
    msg = b.mail_message("Safety briefing", "The slides for Monday.\n")
    msg.add_attachment(deck.read_bytes(), maintype="application",
                       subtype="vnd.openxmlformats-officedocument.presentationml.presentation",
                       filename="briefing.pptx")
    path = b.write_eml(tmp_path, "briefing.eml", msg)
    doc = extractor_for(path).extract(path, path.name)
    alone = extractor_for(deck).extract(deck, deck.name)
    slides = [r for r in doc.regions if r.kind is RegionKind.ATTACHED_SLIDE]
    assert [(r.label, r.page) for r in slides] == [
        ("briefing.pptx", r.page) for r in alone.regions if r.kind is RegionKind.SLIDE]
    text, place = nested(alone, 2)
    for mine, own in zip(slides, [r for r in alone.regions if r.kind is RegionKind.SLIDE],
                         strict=True):
        assert doc.text[mine.start:mine.end] == text[place(own.start):place(own.end)]

    bounce = REAL / "failure-notice.msg"
    doc = extractor_for(bounce).extract(bounce, bounce.name)
    name = "北京 2017年12月02-03日 销售主管 确认n.pdf"
    assert [(r.kind, r.label, r.page) for r in doc.regions] == [
        (RegionKind.ATTACHED_PAGE, name, n) for n in (1, 2, 3, 4)]


def test_an_attached_spreadsheet_s_rows_are_cited_by_their_sheet_range(tmp_path: Path):
    """A workbook mailed: a range of its rows' text names the sheet range it spans, as
    the workbook saved alone is cited (a cell alone: its column)."""
    b.spreadsheet(tmp_path / "pumps.xlsx", {
        "Pumps": [["Pump", "Flow", "Site"], ["P-1", 12, "North"], ["P-2", 30, "South"],
                  ["P-3", 7, "East"]],
        "Q3 Sales": [["Region", "Total"], ["North", 41]]})
    msg = b.mail_message("Pump list", "The list is attached.\n")
    msg.add_attachment((tmp_path / "pumps.xlsx").read_bytes(), maintype="application",
                       subtype="vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                       filename="pumps.xlsx")
    path = b.write_eml(tmp_path, "pumps.eml", msg)
    doc = extractor_for(path).extract(path, path.name)
    alone = extractor_for(tmp_path / "pumps.xlsx").extract(tmp_path / "pumps.xlsx", "pumps.xlsx")

    def cited(text: str, phrase: str, regions) -> str:  # type: ignore[no-untyped-def]
        at = text.index(phrase)
        return locate_in(regions, at, at + len(phrase))

    for phrase in ("P-2 | 30 | South", "South", "Pump | Flow | Site\nP-1", "North | 41"):
        mine, own = cited(doc.text, phrase, doc.regions), cited(alone.text, phrase,
                                                                alone.regions)
        assert mine.attached == (AttachedPlace("pumps.xlsx", "range",
                                               range=own.sheet_range),)
    assert cited(doc.text, "South", doc.regions).attached_note \
        == "in pumps.xlsx, Pumps!C3:C3"
    assert cited(doc.text, "North | 41", doc.regions).attached_note \
        == "in pumps.xlsx, 'Q3 Sales'!A2:B2"


def test_a_locator_keeps_its_attached_pages_through_json():
    loc = Locator(5, 90, attached=(AttachedPlace("timetable.pdf", "page", (2, 3)),
                                   AttachedPlace("briefing.pptx", "slide", (1,)),
                                   AttachedPlace("pumps.xlsx", "range", range="Pumps!A3:C3")))
    assert loc.attached_note == ("in timetable.pdf, pages 2, 3; in briefing.pptx, slide 1; "
                                 "in pumps.xlsx, Pumps!A3:C3")
    assert Locator(0, 1, attached=(AttachedPlace("a.pdf", "page", (1, 2, 3, 5, 7, 8, 9, 10)),)) \
        .attached_note == "in a.pdf, pages 1-3, 5, 7-10"
    assert loc.to_json()["attached"] == [
        {"file": "timetable.pdf", "unit": "page", "numbers": [2, 3]},
        {"file": "briefing.pptx", "unit": "slide", "numbers": [1]},
        {"file": "pumps.xlsx", "unit": "range", "range": "Pumps!A3:C3"}]
    assert locator_from(json.loads(json.dumps(locator_json(loc)))) == loc
    # a locator a store kept before sheet ranges were (three fields a place)
    kept = {**locator_json(loc), "attached": [["timetable.pdf", "page", [2, 3]]]}
    assert locator_from(kept).attached == (AttachedPlace("timetable.pdf", "page", (2, 3)),)
    assert Region(RegionKind.ATTACHED_PAGE, 0, 1, page=2, label="x.pdf").label == "x.pdf"


def test_a_mailed_pdf_s_page_is_cited_through_the_index(tmp_path: Path, embedder):
    """The real pipeline: the hit's locator names the attached file's pages, kept by
    the store; the answer's citation narrows them to the page of its sentence."""
    folder = tmp_path / "mail"
    folder.mkdir()
    b.write_eml(folder, "timetables.eml", timetable_message())
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        assert idx.index(folder).indexed == ["timetables.eml"]
        hit = idx.search("when does the ferry to island number 5 leave", k=1).hits[0]
        assert "Fact 5:" in hit.content
        (name, unit, numbers, _), = hit.locator.attached
        assert (name, unit) == ("timetable.pdf", "page") and 5 in numbers
        assert len(numbers) > 1  # short pages: one chunk holds several
        answer = idx.ask("When does the ferry to island number 5 leave?")
        assert not answer.refused
        spans = [sp for sp in answer.spans if "Fact 5:" in sp.text]
        assert spans and spans[0].locator.attached == (
            AttachedPlace("timetable.pdf", "page", (5,)),)
    finally:
        idx.close()
    reopened = Index(tmp_path / "index", embedder=embedder)
    try:
        again = reopened.search("when does the ferry to island number 5 leave", k=1).hits[0]
        assert again.locator == hit.locator  # kept by the store as it was made
    finally:
        reopened.close()
