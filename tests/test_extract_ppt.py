"""PowerPoint 97-2003 (.ppt) extraction on decks LibreOffice Impress saved (tests/fixtures/real,
SOURCES.md): a .ppt reads as the .pptx it was saved from, checked against the .pptx
reader's text of that .pptx, and a .ppt that cannot be read says why. PowerPoint's own
ways of storing text that LibreOffice does not write (a placeholder's text in the slide
list, 8-bit text, fields, fast-saved edits) are checked on a stream built record by record.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import olefile
import pytest
from pptx import Presentation

from citeline.chunk import locate
from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import REGISTRY, extractor_for
from citeline.extract import ppt as ppt97
from citeline.extract import slides as pptx
from citeline.extract.image import PictureReader
from citeline.types import Document, RegionKind

REAL = Path(__file__).parent / "fixtures" / "real"
FERRY = REAL / "ferry-briefing.ppt"


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def as_libreoffice_saves_it(source: Path) -> str:
    """The .pptx reader's text of ``source`` as LibreOffice 7.4's .ppt export keeps it: a
    slide on the Section Header layout loses its title placeholder and its layout (Impress
    writes the title as a plain text box on a blank slide), so in the .ppt it is an
    untitled slide (``Slide N``) whose first block is that title, and nothing nests under
    it. Nothing else differs."""
    deck = pptx._read(Presentation(str(source)), PictureReader([]))
    for s in deck:
        if s.divider:
            s.blocks, s.title, s.divider = [s.title, *s.blocks], "", False
    return pptx.deck_document(deck, source, source.name, "", media_type="", extractor="",
                              version="").text


def test_a_ppt_reads_as_the_pptx_it_was_saved_from():
    doc = extract(FERRY)
    assert doc.text == extract(REAL / "ferry-briefing.pptx").text
    assert doc.title == "Island ferry briefing for crews"  # SummaryInformation's title
    assert (doc.media_type, doc.extractor, doc.extractor_version, doc.headings) == (
        "application/vnd.ms-powerpoint", "ppt", "2", "atx")
    assert doc.warnings == ()


@pytest.mark.parametrize("name", ["irrigation-slides", "water-budget"])
def test_decks_read_as_their_pptx_but_for_what_libreoffice_drops(name: str):
    doc = extract(REAL / f"{name}.ppt")
    assert doc.text == as_libreoffice_saves_it(REAL / f"{name}.pptx")
    # irrigation's footer text box on every slide and both decks' slide-number boxes are
    # furniture
    assert "Irrigation controller training" not in doc.text
    assert not any(block.isdigit() for block in doc.text.split("\n\n"))


def test_titles_when_the_title_property_names_nothing():
    # LibreOffice writes no title property for these: the first slide's title
    assert extract(REAL / "irrigation-slides.ppt").title == "Irrigation Controller IC-8"
    assert extract(REAL / "water-budget.ppt").title == "Water Budget Review 2026"


def test_slides_tables_groups_notes_and_marks():
    doc = extract(FERRY)
    blocks = doc.text.split("\n\n")
    assert blocks[:2] == ["# Island ferry briefing", "Harbour office — winter timetable"]
    # a body placeholder: a line a paragraph, a line break (\x0b) a line too
    assert ("Foot passengers board ten minutes before “departure”.\nCars queue in lanes "
            "1–3.\nBicycles go on last\nand leave first.") in blocks
    assert "Notes: Remind the crew about the ramp at low tide." in blocks
    # a slide of one text box, no title: named by its number
    assert blocks[blocks.index("# Slide 3") + 1].startswith("Crossings are cancelled")
    # a table (a group of cell shapes and border lines) a row a block, an empty cell kept
    i = blocks.index("# Fares")
    assert blocks[i:i + 5] == ["# Fares", "Ticket | Adult | Child", "Single | £4.50 | £2.25",
                               "Season pass | £120 | ", "Fares are reviewed each March."]
    # a group's shapes in place, Cyrillic in a title and the notes
    i = blocks.index("# Паромная переправа")
    assert blocks[i:] == ["# Паромная переправа", "Отправление в 07:00", "Прибытие в 07:55",
                          "Notes: Read both times aloud; the Cyrillic is for the crew."]
    assert not any(ord(c) < 0x20 and c != "\n" for c in doc.text)


def test_each_slide_is_a_region_cited_by_its_number():
    doc = extract(FERRY)
    regions = [r for r in doc.regions if r.kind is RegionKind.SLIDE]
    assert [r.page for r in regions] == [1, 2, 3, 4, 5]
    assert regions == list(extract(REAL / "ferry-briefing.pptx").regions)
    fares = doc.text.index("Single | £4.50")
    assert locate(doc, fares, fares + 10).fragment == "#slide=4"
    water = extract(REAL / "water-budget.ppt")
    assert water.warnings == ("slide 8: no text (a picture or a drawing), not indexed",)


# --- a PowerPoint Document stream built record by record --------------------------------

def rec(kind: int, body: bytes = b"", instance: int = 0, ver: int = 0) -> bytes:
    return struct.pack("<HHI", (instance << 4) | ver, kind, len(body)) + body


def box(kind: int, *children: bytes, instance: int = 0) -> bytes:
    return rec(kind, b"".join(children), instance, ver=0xF)


def u32(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def shape(*children: bytes, spt: int = 1, flags: int = 0xA00) -> bytes:
    return box(ppt97.OA_SP, rec(ppt97.OA_FSP, u32(1024, flags), instance=spt, ver=2), *children)


def placeholder(kind: int) -> bytes:
    return box(ppt97.OA_CLIENT_DATA, rec(ppt97.RT_PLACEHOLDER_ATOM, u32(0) + bytes([kind, 0, 0, 0])))


def textbox(*children: bytes) -> bytes:
    return box(ppt97.OA_CLIENT_TEXTBOX, *children)


def header(kind: int) -> bytes:
    return rec(ppt97.RT_TEXT_HEADER, u32(kind))


def chars(text: str) -> bytes:
    return rec(ppt97.RT_TEXT_CHARS, text.encode("utf-16-le"))


def latin1(text: str) -> bytes:
    return rec(ppt97.RT_TEXT_BYTES, text.encode("latin-1"))


def slide_container(*shapes: bytes) -> bytes:
    patriarch = shape(flags=0x5, spt=0)
    return box(ppt97.RT_SLIDE, box(ppt97.RT_DRAWING, box(ppt97.OA_DG, box(
        ppt97.OA_SPGR, patriarch, *shapes))))


def powerpoint_stream(title: str = "Tide tables", crypt: bool = False) -> tuple[bytes, bytes]:
    """A deck as PowerPoint 97-2003 writes it (a Current User stream and a PowerPoint
    Document stream): one slide whose title and body are in the slide list and referred
    to from the drawing (OutlineTextRefAtom), the body 8-bit (TextBytesAtom), a text box
    with a slide number field; saved, then fast-saved with a new title (a second edit
    whose persist directory points the document at a new DocumentContainer)."""
    def document(title: str) -> bytes:
        slides = box(ppt97.RT_SLIDE_LIST_WITH_TEXT,
                     rec(ppt97.RT_SLIDE_PERSIST_ATOM, u32(2, 0, 2, 256, 0)),
                     header(0), chars(title), header(1), latin1("High water 06:12\rLow water 12:30"),
                     instance=ppt97.SLIDES)
        return box(ppt97.RT_DOCUMENT, slides)

    slide = slide_container(
        shape(placeholder(0x0D), textbox(rec(ppt97.RT_OUTLINE_TEXT_REF, u32(0)))),
        shape(textbox(header(4), chars("Page * of the harbour’s tables"),
                      rec(ppt97.RT_SLIDE_NUMBER_MC, u32(5)))),
        shape(placeholder(0x0E), textbox(rec(ppt97.RT_OUTLINE_TEXT_REF, u32(1)))),
        shape(placeholder(0x0E), textbox(rec(ppt97.RT_OUTLINE_TEXT_REF, u32(1)))),  # again
        shape(placeholder(0x09), textbox(header(4), chars("Harbour office"))),  # a footer
    )
    out = bytearray()
    first_doc = len(out)
    out += document("An old title")
    at_slide = len(out)
    out += slide
    at_dir = len(out)
    out += rec(ppt97.RT_PERSIST_DIRECTORY, u32((2 << 20) | 1, first_doc, at_slide))
    first_edit = len(out)
    out += rec(ppt97.RT_USER_EDIT, u32(256, 0, 0, at_dir, 1, 3, 0))
    new_doc = len(out)
    out += document(title)
    crypt_at = len(out)
    out += box(ppt97.RT_CRYPT_SESSION, rec(0x2F15, b"\0" * 8))
    at_dir2 = len(out)
    out += rec(ppt97.RT_PERSIST_DIRECTORY, u32((1 << 20) | 1, new_doc, (1 << 20) | 3, crypt_at))
    last_edit = len(out)
    out += rec(ppt97.RT_USER_EDIT, u32(256, 0, first_edit, at_dir2, 1, 4, 0, 3 if crypt else 0))
    user = rec(ppt97.RT_CURRENT_USER, u32(0x14, ppt97.TOKEN_PLAIN, last_edit) + struct.pack(
        "<HHBBH", 0, 0x03F4, 3, 0, 0) + u32(8))
    return bytes(out), user


def test_text_powerpoint_keeps_in_the_slide_list_is_read_once_in_drawing_order():
    stream, user = powerpoint_stream()
    (slide,) = ppt97.PptExtractor()._read(stream, user, "deck.ppt", b"", PictureReader([]))
    assert slide.title == "Tide tables"  # the newest edit's document, not "An old title"
    assert slide.blocks == ["Page 1 of the harbour’s tables",  # the field: the slide's number
                            "High water 06:12\nLow water 12:30"]  # 8-bit, referred to twice, read once
    # a slide whose drawing is gone: its slide list's texts, in order
    stream2 = stream.replace(struct.pack("<HH", 0xF, ppt97.OA_DG), struct.pack("<HH", 0xF, 0xF0FF))
    (bare,) = ppt97.PptExtractor()._read(stream2, user, "deck.ppt", b"", PictureReader([]))
    assert (bare.title, bare.blocks) == ("Tide tables", ["High water 06:12\nLow water 12:30"])


def test_encrypted_and_old_streams_fail_saying_so():
    def read(stream: bytes, user: bytes, rel: str) -> list:  # type: ignore[type-arg]
        return ppt97.PptExtractor()._read(stream, user, rel, b"", PictureReader([]))

    stream, user = powerpoint_stream(crypt=True)
    with pytest.raises(ExtractionError, match="^deck.ppt: encrypted with a password; save a "
                                              "copy without the password$"):
        read(stream, user, "deck.ppt")  # an encryption session in the edit
    stream, user = powerpoint_stream()
    locked = user.replace(u32(ppt97.TOKEN_PLAIN), u32(ppt97.TOKEN_ENCRYPTED))
    with pytest.raises(ExtractionError, match="encrypted with a password"):
        read(stream, locked, "deck.ppt")  # the Current User's token
    with pytest.raises(ExtractionError, match="a PowerPoint 95 \\(or older\\) file; save it as .pptx"):
        read(stream, u32(8) + b"\0" * 8, "deck.ppt")  # PowerPoint 95's Current User


def _fails(path: Path) -> str:
    with pytest.raises(ExtractionError) as info:
        extract(path)
    assert info.value.path == path.name
    return info.value.reason


def _patched(src: Path, dst: Path, stream: str, at: int, value: bytes) -> Path:
    """``src`` with ``stream``'s bytes at ``at`` replaced by ``value``."""
    shutil.copy(src, dst)
    with olefile.OleFileIO(str(dst), write_mode=True) as ole:
        data = bytearray(ole.openstream(stream).read())
        data[at:at + len(value)] = value
        ole.write_stream(stream, bytes(data))
    return dst


def test_a_password_protected_ppt_fails_saying_so(tmp_path: Path):
    """LibreOffice cannot save a .ppt with a password (its export ignores one): the
    Current User's headerToken is set as PowerPoint sets it in an encrypted file."""
    locked = _patched(FERRY, tmp_path / "locked.ppt", "Current User", 12,
                      u32(ppt97.TOKEN_ENCRYPTED))
    assert _fails(locked) == "encrypted with a password; save a copy without the password"


def test_files_named_ppt_that_are_other_files_fail_saying_what_they_are(tmp_path: Path):
    renamed = tmp_path / "deck.ppt"
    shutil.copy(REAL / "ferry-briefing.pptx", renamed)
    assert _fails(renamed) == ("an Office Open XML package (.pptx) under a .ppt name: "
                               "rename it .pptx")
    word = tmp_path / "minutes.ppt"
    shutil.copy(REAL / "ferry-timetable.doc", word)
    assert _fails(word) == ("a Word document, not a PowerPoint presentation (it has no "
                            "PowerPoint Document stream)")
    excel = tmp_path / "budget.ppt"
    shutil.copy(REAL / "pump-ledger.xls", excel)
    assert _fails(excel).startswith("an Excel workbook, not a PowerPoint presentation")
    text = tmp_path / "notes.ppt"
    text.write_text("Just some text typed into a file named .ppt\n")
    assert _fails(text) == "not a PowerPoint 97-2003 presentation (not an OLE compound file)"
    empty = tmp_path / "empty.ppt"
    empty.write_bytes(b"")
    assert _fails(empty) == "empty file (0 bytes), not a PowerPoint presentation"
    # a gettext translation template is a .pot too: skipped, not failed
    pot = tmp_path / "messages.pot"
    pot.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n')
    with pytest.raises(UnsupportedFormat, match="not a PowerPoint template"):
        extract(pot)


def test_damaged_files_fail_alone_saying_why(tmp_path: Path):
    # the Current User's offset of the last edit past the stream's end
    lost = _patched(FERRY, tmp_path / "lost.ppt", "Current User", 16, u32(10**8))
    assert _fails(lost).startswith("a damaged PowerPoint presentation: a record points "
                                   "outside its stream")
    # the DocumentContainer said to be longer than the stream
    with olefile.OleFileIO(str(FERRY)) as ole:
        stream = ole.openstream("PowerPoint Document").read()
    assert struct.unpack_from("<H", stream, 2)[0] == ppt97.RT_DOCUMENT
    long = _patched(FERRY, tmp_path / "long.ppt", "PowerPoint Document", 4, u32(10**7))
    assert _fails(long).startswith("a damaged PowerPoint presentation")
    cut = tmp_path / "cut.ppt"
    cut.write_bytes(FERRY.read_bytes()[:3000])  # a copy that stopped
    assert _fails(cut).startswith("a damaged PowerPoint presentation")


def test_ppt_is_registered_by_its_suffixes():
    assert {REGISTRY[s].name for s in (".ppt", ".pps", ".pot")} == {"ppt"}
    assert extractor_for(Path("SHOW.PPS")).name == "ppt"


@pytest.fixture(scope="module")
def indexed(index_of):  # type: ignore[no-untyped-def]
    return index_of({"ferry-briefing.ppt": FERRY.read_bytes()})


def test_a_ppt_is_indexed_and_its_hits_quote_the_stored_text(indexed):
    idx, report = indexed
    assert report.indexed == ["ferry-briefing.ppt"]
    text = idx.document_text("ferry-briefing.ppt")
    assert text == extract(FERRY).text
    hit = next(h for h in idx.search("how much is a child's single ticket", k=5).hits
               if h.document == "ferry-briefing.ppt")
    assert hit.content == text[hit.start:hit.end] and "£2.25" in hit.content
    assert hit.locator.fragment == "#slide=4"
    assert hit.section.endswith("Fares")
    rec_ = idx.store.document("ferry-briefing.ppt")
    assert rec_ is not None and rec_.title == "Island ferry briefing for crews"
    assert (rec_.extractor, rec_.media_type) == ("ppt", "application/vnd.ms-powerpoint")
