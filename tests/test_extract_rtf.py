"""RTF files: read as the Word reader reads the same document.

The fixtures are real RTF written by LibreOffice's export from documents other readers
here read (a .docx with heading styles, one titled by hand, an HTML page in four
scripts): each RTF's text must equal that reader's text of its source, an independent
check. A hand-written RTF covers what LibreOffice did not write (footnotes, hidden text,
a double-byte font, binary data); files that are not RTF fail saying what they are. One
goes through the real pipeline (real SQLite, the real model).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.errors import ExtractionError
from citeline.extract import extractor_for

REAL = Path(__file__).parent / "fixtures" / "real"


def read(path: Path):  # type: ignore[no-untyped-def]
    return extractor_for(path).extract(path, path.name)


@pytest.mark.parametrize("rtf,source", [("irrigation-styles.rtf", "irrigation-styles.docx"),
                                        ("irrigation-handset.rtf", "irrigation-handset.docx"),
                                        ("tides-world.rtf", "tides-world.html")])
def test_an_rtf_export_reads_as_its_source_does(rtf: str, source: str):
    doc, src = read(REAL / rtf), read(REAL / source)
    assert doc.text == src.text and doc.title == src.title
    assert (doc.extractor, doc.headings, doc.media_type) == ("rtf", "atx", "application/rtf")


HAND = (r"{\rtf1\ansi\ansicpg1252\deff0\uc1{\fonttbl{\f0\froman\fcharset0 Times;}"
        r"{\f1\fnil\fcharset128 MS Mincho;}}{\colortbl;\red0\green0\blue0;}"
        r"{\stylesheet{\s0 Normal;}{\s1\outlinelevel0 heading 1;}{\s2 heading 2;}"
        r"{\*\cs10 Default Paragraph Font;}}{\info{\title Harbour notes}{\author Ana}}"
        "\n\\pard\\s1 Tides\\par\n"
        r"\pard\s0 The spring tide reaches four point two metres\emdash twice a month."
        r"{\footnote\pard\plain\s0{\chftn} Measured at the north quay.} Caf\'e9 opens at "
        r"\u8220?nine\u8221?.\par" "\n"
        r"\pard\s2 Gauge\par" "\n"
        r"\pard Reset it with {\field{\*\fldinst HYPERLINK ""https://example.org""}"
        r"{\fldrslt the reset button}}.{\v hidden words} Done.\line Second line.\par" "\n"
        r"\trowd\cellx2000\cellx4000\pard\intbl Mark\cell Height\cell\row" "\n"
        r"\pard\intbl spring tide\cell 4.2 m\cell\row" "\n"
        r"\pard {\f1 \'93\'fa\'96\'7b}{\pict\wmetafile8\bin3 }{\}\par" "\n"  # 3 raw bytes
        r"{\*\generator Riched20;}}")


def test_what_an_export_may_hold_a_hand_written_file_checks(tmp_path: Path):
    path = tmp_path / "notes.rtf"
    path.write_bytes(HAND.encode("latin-1"))
    doc = read(path)
    assert doc.title == "Harbour notes"
    assert doc.text == (
        "# Tides\n\n"
        "The spring tide reaches four point two metres\u2014twice a month. Caf\u00e9 opens at "
        "\u201cnine\u201d.\n\n"
        "Footnote 1: Measured at the north quay.\n\n"  # after its paragraph, as in a .docx
        "## Gauge\n\n"
        "Reset it with the reset button. Done.\nSecond line.\n\n"  # no field code, no \v
        "Mark | Height\n\nspring tide | 4.2 m\n\n"
        "\u65e5\u672c")  # Shift-JIS bytes in a font of charset 128, read as two characters


def test_a_file_that_is_not_rtf_fails_saying_what_it_is(tmp_path: Path):
    docx = tmp_path / "manual.rtf"
    docx.write_bytes((REAL / "irrigation-styles.docx").read_bytes())
    with pytest.raises(ExtractionError, match=r"not an RTF file: a ZIP package \(a \.docx\?\)"):
        read(docx)
    text = tmp_path / "notes.rtf"
    text.write_text("Plain notes saved under the wrong name.\n")
    with pytest.raises(ExtractionError, match="not an RTF file"):
        read(text)


@pytest.fixture(scope="module")
def indexed(index_of):  # type: ignore[no-untyped-def]
    return index_of({"tides-world.rtf": (REAL / "tides-world.rtf").read_bytes()})


def test_an_rtf_hit_cites_its_text(indexed):
    idx, report = indexed
    assert report.indexed == ["tides-world.rtf"] and not report.failed
    text = idx.document_text("tides-world.rtf")
    hit = idx.search("how high does the neap tide reach", k=3).hits[0]
    assert hit.document == "tides-world.rtf" and "neap tide | 1.9 m" in hit.content
    assert hit.content == text[hit.start:hit.end]
    assert hit.section.startswith("Tides of the world")


def test_a_title_property_that_names_nothing_gives_way_to_the_first_heading(tmp_path: Path):
    path = tmp_path / "notes.rtf"
    path.write_bytes(HAND.replace(r"{\title Harbour notes}", r"{\title Document1}")
                     .encode("latin-1"))
    assert read(path).title == "Tides"  # Word's name for a file never saved is no title
