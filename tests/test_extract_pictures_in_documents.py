"""Pictures in a Word document or a PowerPoint deck (screenshots, a scanned page pasted
in) read by OCR as the image reader reads a picture file, in the place the document
shows them; real pictures (tests/fixtures/real, SOURCES.md), documents python-docx and
python-pptx write and the same documents as LibreOffice saves them."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from docx.shared import Inches
from pptx import Presentation

from citeline.extract import extractor_for
from citeline.extract import image as imagemod
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def handset_document(path: Path) -> Path:
    """A heading, paragraphs and three pictures: a screenshot of a page, a photograph of
    a board (no text to read) and, in a table cell, a diagram of labelled boxes."""
    d = docx.Document()
    d.add_heading("Handset guide", 1)
    d.add_paragraph("The handset's screen, as it shows the schedule:")
    d.add_picture(str(REAL / "irrigation-handset.png"), width=Inches(6))
    d.add_paragraph("A photograph of the board:")
    d.add_picture(str(REAL / "board-photo.jpeg"), width=Inches(3))
    table = d.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Crates"
    table.cell(0, 1).paragraphs[0].add_run().add_picture(str(REAL / "crates-diagram.png"),
                                                         width=Inches(3))
    d.add_paragraph("The end.")
    d.save(str(path))
    return path


@pytest.fixture(scope="module")
def read_alone() -> dict[str, str]:
    """Each picture's text as the image reader reads the picture file."""
    return {name: extract(REAL / name).text
            for name in ("irrigation-handset.png", "crates-diagram.png")}


@pytest.fixture(scope="module")
def handset(tmp_path_factory) -> Document:  # type: ignore[no-untyped-def]
    return extract(handset_document(tmp_path_factory.mktemp("docx") / "handset.docx"))


def test_a_document_s_pictures_are_read_where_it_shows_them(handset, read_alone):
    doc = handset
    assert doc.extractor_version == "14" and doc.warnings == ()
    screen, diagram = read_alone["irrigation-handset.png"], read_alone["crates-diagram.png"]
    text = doc.text
    # in order: the paragraph before it, the screenshot's text, the next paragraph; the
    # photograph adds nothing; the diagram after its row's text
    at = [text.index(s) for s in ("shows the schedule:", screen, "A photograph of the board:",
                                  "Crates | ", diagram, "The end.")]
    assert at == sorted(at)
    assert text[at[2]:at[3]].strip() == "A photograph of the board:"  # the photo: no text
    assert screen.startswith("Greenhouse irrigation manual") and "HAL Crate" in diagram


def test_another_word_processor_s_copy_reads_the_same(handset):
    writer = extract(REAL / "handset-pictures.docx")
    assert writer.text == handset.text and writer.warnings == ()


def test_a_picture_shown_twice_is_read_once_and_given_twice(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch):
    d = docx.Document()
    d.add_paragraph("First:")
    d.add_picture(str(REAL / "crates-diagram.png"))
    d.add_paragraph("Again:")
    d.add_picture(str(REAL / "crates-diagram.png"))
    d.save(str(tmp_path / "twice.docx"))
    calls: list[str] = []
    real = imagemod.picture_text
    monkeypatch.setattr(imagemod, "picture_text",
                        lambda data, where, warnings: calls.append(where) or real(data, where, warnings))
    text = extract(tmp_path / "twice.docx").text
    assert len(calls) == 1 and text.count("HAL Crate") == 2


def test_without_ocr_the_pictures_are_left_saying_what_to_install(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "tesseract is not installed: apt-get "
                                                   "install tesseract-ocr")
    doc = extract(handset_document(tmp_path / "handset.docx"))
    assert doc.warnings == ("3 pictures not read for their text: tesseract is not "
                            "installed: apt-get install tesseract-ocr",)
    assert "Greenhouse" not in doc.text and "The end." in doc.text


def handset_deck(path: Path) -> Path:
    """Three slides: the screenshot under a title, the photograph alone, the diagram
    beside a line of text."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])  # title only
    slide.shapes.title.text = "The handset's screen"
    slide.shapes.add_picture(str(REAL / "irrigation-handset.png"), Inches(0.5), Inches(1.5),
                             width=Inches(6))
    slide = prs.slides.add_slide(prs.slide_layouts[6])  # blank
    slide.shapes.add_picture(str(REAL / "board-photo.jpeg"), Inches(1), Inches(1),
                             width=Inches(4))
    slide = prs.slides.add_slide(prs.slide_layouts[1])  # title and content
    slide.shapes.title.text = "Crates"
    slide.placeholders[1].text = "The layers of an embedded Rust program:"
    slide.shapes.add_picture(str(REAL / "crates-diagram.png"), Inches(1), Inches(3),
                             width=Inches(5))
    prs.save(str(path))
    return path


def test_a_deck_s_pictures_are_read_on_their_slides(tmp_path: Path, read_alone):
    deck = extract(handset_deck(tmp_path / "handset.pptx"))
    assert deck.extractor_version == "3"
    screen, diagram = read_alone["irrigation-handset.png"], read_alone["crates-diagram.png"]
    first, third = deck.regions  # slide 2, the photograph alone, has no text
    assert (first.page, third.page) == (1, 3)
    assert deck.text[first.start:first.end] == "# The handset's screen\n\n" + screen
    assert deck.text[third.start:third.end] == (
        "# Crates\n\nThe layers of an embedded Rust program:\n\n" + diagram)
    assert deck.warnings == ("slide 2: no text (a picture or a drawing), not indexed",)
    writer = extract(REAL / "handset-pictures.pptx")  # as LibreOffice saves it
    assert (writer.text, writer.warnings) == (deck.text, deck.warnings)
