"""The other Office Open XML packages Word, PowerPoint and Excel save: a document or deck
with macros, a template, a slide show. Each is the same package with another main part,
and reads exactly as the document it was saved from (LibreOffice 7.4's files,
tests/fixtures/real, SOURCES.md); the macros are neither run nor read."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from citeline.errors import ExtractionError
from citeline.extract import extractor_for
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


@pytest.mark.parametrize(("name", "media_type"), [
    ("irrigation-styles.docm", "application/vnd.ms-word.document.macroEnabled.12"),
    ("irrigation-styles.dotx", "application/vnd.openxmlformats-officedocument."
                               "wordprocessingml.template"),
])
def test_a_macro_enabled_document_and_a_template_read_as_the_word_document(name, media_type):
    doc, word = extract(REAL / name), extract(REAL / "irrigation-styles.docx")
    assert (doc.text, doc.title, doc.warnings) == (word.text, word.title, word.warnings)
    assert (doc.extractor, doc.media_type) == ("docx", media_type)


def with_main_part(tmp_path: Path, source: Path, name: str, content_type: str) -> Path:
    """``source`` saved as ``name`` with its main part's content type set to
    ``content_type``, as PowerPoint writes a slide show's (LibreOffice keeps the deck's)."""
    out = tmp_path / name
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "[Content_Types].xml":
                data = re.sub(rb'ContentType="[^"]*presentationml\.template\.main\+xml"',
                              f'ContentType="{content_type}"'.encode(), data)
            zout.writestr(item, data)
    return out


def test_macro_enabled_decks_templates_and_slide_shows_read_as_the_deck(tmp_path: Path):
    # LibreOffice's export flattens the deck's section nesting; apart from that, its .potx
    # and .pptm read exactly as the python-pptx deck they were saved from
    deck = extract(REAL / "irrigation-slides.pptx")
    flat = deck.text.replace("\n## ", "\n# ")
    shows = {
        "slides.ppsx": "application/vnd.openxmlformats-officedocument.presentationml."
                       "slideshow.main+xml",
        "slides.ppsm": "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml",
        "slides.potm": "application/vnd.ms-powerpoint.template.macroEnabled.main+xml",
    }
    paths = [REAL / "irrigation-slides.potx", REAL / "irrigation-slides.pptm"] + [
        with_main_part(tmp_path, REAL / "irrigation-slides.potx", name, kind)
        for name, kind in shows.items()]
    for path in paths:
        doc = extract(path)
        assert (doc.text, doc.title, doc.extractor) == (flat, deck.title, "pptx"), path.name
    assert extract(paths[2]).media_type == \
        "application/vnd.openxmlformats-officedocument.presentationml.slideshow"


def test_a_workbook_template_reads_as_the_workbook():
    sheet, book = extract(REAL / "pump-ledger.xltx"), extract(REAL / "pump-ledger.xlsx")
    assert (sheet.text, sheet.warnings, sheet.regions) == (book.text, book.warnings,
                                                           book.regions)


def test_a_package_of_another_kind_under_these_names_is_refused_saying_what_it_is(
        tmp_path: Path):
    deck_as_doc = tmp_path / "notes.docm"
    deck_as_doc.write_bytes((REAL / "irrigation-slides.pptm").read_bytes())
    doc_as_deck = tmp_path / "slides.ppsx"
    doc_as_deck.write_bytes((REAL / "irrigation-styles.docm").read_bytes())
    with pytest.raises(ExtractionError) as word:
        extract(deck_as_doc)
    assert word.value.reason == (
        "not a readable Word .docm file (it is not a Word document: its main part is "
        "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml)")
    with pytest.raises(ExtractionError) as deck:
        extract(doc_as_deck)
    assert deck.value.reason == (
        "not a readable PowerPoint .ppsx file (it is not a PowerPoint deck: its main part "
        "is application/vnd.ms-word.document.macroEnabled.main+xml)")
