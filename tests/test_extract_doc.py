"""Word 97-2003 (.doc) extraction on files LibreOffice Writer saved (tests/fixtures/real,
SOURCES.md): what Word shows is what is indexed, checked against an independent reading
of the document each .doc was saved from (python-docx on the source .docx), and a .doc
that cannot be read says why.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import docx
import olefile
import pytest

from citeline.errors import ExtractionError
from citeline.extract import REGISTRY, extractor_for
from citeline.extract import doc as word97
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"
FERRY = REAL / "ferry-timetable.doc"


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def python_docx_reading(path: Path) -> str:
    """The canonical text of a .docx as python-docx reads it: its body's paragraphs and
    tables in order, Title / Heading N paragraphs as ``#`` lines, a row's cells joined by
    `` | ``, a footnote's text after the paragraph citing it (from footnotes.xml)."""
    d = docx.Document(str(path))
    ns = {"w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main"}
    note_id = f"{{{ns['w']}}}id"
    notes = {}
    for rel in d.part.rels.values():
        if rel.reltype.endswith("/footnotes"):
            root = docx.oxml.parse_xml(rel.target_part.blob)
            for note in root.findall("w:footnote", ns):
                text = "".join(t.text for t in note.iterfind(".//w:t", ns)).strip()
                notes[note.get(note_id)] = text
    blocks = []
    for item in d.iter_inner_content():
        if isinstance(item, docx.table.Table):
            blocks += [" | ".join(c.text for c in row.cells) for row in item.rows]
            continue
        style = item.style.name
        level = 1 if style == "Title" else int(style[8:]) if style.startswith("Heading ") else 0
        blocks.append("#" * level + " " + item.text if level else item.text)
        count = 0
        for ref in item._p.iterfind(".//w:footnoteReference", ns):
            count += 1
            blocks.append(f"Footnote {count}: {notes[ref.get(note_id)]}")
    return "\n\n".join(b for b in blocks if b)


def test_a_word_97_document_reads_as_the_document_it_was_saved_from():
    doc = extract(FERRY)
    assert doc.text == python_docx_reading(REAL / "ferry-timetable.docx")
    assert doc.title == "Island ferry timetable"  # its title property (SummaryInformation)
    assert (doc.media_type, doc.extractor, doc.extractor_version) == (
        "application/msword", "doc", "3")
    assert doc.headings == "atx"


def test_headings_table_rows_fields_notes_and_marks(tmp_path: Path):
    text = extract(FERRY).text
    blocks = text.split("\n\n")
    assert blocks[:2] == ["# Island ferry timetable", "# Sailings"]  # Title, Heading 1
    assert "## Fares" in blocks  # Heading 2
    # the table's three rows, the last with an empty cell (its row end mark follows the
    # empty cell's mark directly: told apart by the paragraph properties, not the marks)
    i = blocks.index("Ticket | Adult | Child")
    assert blocks[i:i + 4] == ["Ticket | Adult | Child", "Single | £4.50 | £2.25",
                               "Season pass | £120 | ", "Fares are reviewed each March."]
    assert blocks[i + 4] == "Footnote 1: Timetables change at the spring equinox."
    # a hyperlink is a HYPERLINK field: its result is read, its instruction is not
    assert "Book online at the booking page or call the harbour office in Lamlash." in blocks
    assert "HYPERLINK" not in text and "ferry.example" not in text
    # a line break stays inside its paragraph; a non-breaking hyphen is a hyphen
    assert ("The morning ferry leaves Brodick at 07:00 — passengers board from the café "
            "pier.\nCars must arrive twenty minutes before “departure”.") in blocks
    assert "The office is open year-round, except on 25 December." in blocks
    assert not any(ord(c) < 0x20 and c not in "\n" for c in text)


def test_what_word_stores_but_does_not_show_is_left_out():
    """A tracked deletion, hidden text and a PAGE field's instruction are in the .doc's
    text stream; a nested table's rows are read inside their cell, as the .docx reader
    reads the document it was saved from."""
    doc = extract(REAL / "harbour-works.doc")
    assert doc.text == extract(REAL / "harbour-works.docx").text
    raw = _main_text(REAL / "harbour-works.doc")
    for stored in ("Monday", "budget code", "PAGE"):
        assert stored in raw and stored not in doc.text
    assert "The slipway closes on Tuesday for resurfacing." in doc.text
    assert "This notice is page 1 of the harbour master's file." in doc.text
    assert "Berths | North | closed South | open" in doc.text.split("\n\n")
    assert doc.title == "Harbour works"  # no title property: the first heading


def test_a_manual_saved_as_doc_reads_as_its_docx():
    """Headings at three levels (Writer's Heading 1-3 styles), read the same from either."""
    doc = extract(REAL / "irrigation-styles.doc")
    assert doc.text == extract(REAL / "irrigation-styles.docx").text
    assert "### Flushing the lines" in doc.text.split("\n\n")


def _main_text(path: Path) -> str:
    """The main text's characters as stored, every mark and field instruction in it."""
    with olefile.OleFileIO(str(path)) as ole:
        word = ole.openstream("WordDocument").read()
        table = ole.openstream("1Table").read()
    r = word97._Reader(word, table)
    return r.text(r.pieces(), r.ccp[word97.CCP_TEXT])


def compress_pieces(src: Path, dst: Path) -> None:
    """``src`` with its text stored as Word 97 stores Western text: 8-bit Windows-1252
    pieces (FcCompressed's bit 30, the bytes at fc/2), each character's stream position
    moved in the property pages to match. LibreOffice writes UTF-16 only."""
    shutil.copy(src, dst)
    with olefile.OleFileIO(str(src)) as ole:
        word = bytearray(ole.openstream("WordDocument").read())
        table = bytearray(ole.openstream("1Table").read())
    r = word97._Reader(bytes(word), bytes(table))
    (piece,) = r.pieces()
    n = piece.end - piece.cp
    fc = piece.fc
    chars = word[fc:fc + 2 * n].decode("utf-16-le")
    word[fc:fc + n] = chars.encode("cp1252")
    clx_fc, _ = r.pair(word97.CLX)
    pcd = clx_fc + 5 + 8  # a Pcdt (clxt, lcb), two CPs, then the PCD: 2 bytes, then fc
    assert struct.unpack_from("<I", table, pcd + 2)[0] == fc
    struct.pack_into("<I", table, pcd + 2, (2 * fc) | 0x40000000)
    for pair in (word97.PLCFBTECHPX, word97.PLCFBTEPAPX):
        plc_fc, lcb = r.pair(pair)
        pages = (lcb - 4) // 8
        for k in range(pages):
            pn = struct.unpack_from("<I", table, plc_fc + 4 * (pages + 1) + 4 * k)[0]
            base = pn * word97.FKP_SIZE
            for i in range(word[base + word97.FKP_SIZE - 1] + 1):
                at = base + 4 * i
                pos = struct.unpack_from("<I", word, at)[0]
                if fc <= pos <= fc + 2 * n:
                    struct.pack_into("<I", word, at, fc + (pos - fc) // 2)
    with olefile.OleFileIO(str(dst), write_mode=True) as ole:
        ole.write_stream("WordDocument", bytes(word))
        ole.write_stream("1Table", bytes(table))


def test_8_bit_pieces_are_windows_1252(tmp_path: Path):
    """Word writes Western text one byte a character: “quotes”, — and £ are 0x93, 0x97
    and 0xA3 there, decoded as Windows-1252, not Latin-1's control codes."""
    packed = tmp_path / "ferry-8bit.doc"
    compress_pieces(FERRY, packed)
    assert b"\x93departure\x94" in packed.read_bytes()
    assert extract(packed).text == extract(FERRY).text


def _fails(path: Path) -> str:
    with pytest.raises(ExtractionError) as info:
        extract(path)
    assert info.value.path == path.name
    return info.value.reason


def test_a_password_protected_doc_fails_saying_so():
    assert _fails(REAL / "locked-ferry.doc") == ("encrypted with a password; save a copy "
                                                 "without the password")


def test_files_named_doc_that_are_other_files_fail_saying_what_they_are(tmp_path: Path):
    renamed = tmp_path / "minutes.doc"
    shutil.copy(REAL / "ferry-timetable.docx", renamed)
    assert _fails(renamed) == ("an Office Open XML package (.docx) under a .doc name: "
                               "rename it .docx")
    # an RTF document or a web page under a .doc name, which Word opens by its content,
    # is read by that format's reader, saying so
    rtf = tmp_path / "letter.doc"
    rtf.write_bytes(b"{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}}\\f0 Dear Ana,\\par }")
    letter = word97.DocExtractor().extract(rtf, rtf.name)
    assert (letter.text, letter.extractor) == ("Dear Ana,", "rtf")
    assert letter.warnings == ("an RTF document (Rich Text Format) under a .doc name (Word "
                               "opens it by its content): read as .rtf",)
    page = tmp_path / "page.doc"
    page.write_bytes(b"<html><body><h1>Ferry</h1><p>The ferry sails at seven.</p></body></html>")
    assert word97.DocExtractor().extract(page, page.name).text == "# Ferry\n\nThe ferry sails at seven."
    text = tmp_path / "notes.doc"
    text.write_text("Just some text typed into a file named .doc\n")
    notes = word97.DocExtractor().extract(text, text.name)
    assert (notes.text, notes.extractor) == ("Just some text typed into a file named .doc\n",
                                             "text")
    assert notes.warnings[-1].startswith("a plain text file under a .doc name")
    noise = tmp_path / "noise.doc"
    noise.write_bytes(bytes(range(1, 256)) * 4)
    assert _fails(noise) == "not a Word 97-2003 document (not an OLE compound file)"
    empty = tmp_path / "empty.doc"
    empty.write_bytes(b"")
    assert _fails(empty) == "empty file (0 bytes), not a Word document"
    # a compound file of another program: Excel's password-protected .xlsx
    locked_xlsx = tmp_path / "budget.doc"
    shutil.copy(REAL / "locked-budget.xlsx", locked_xlsx)
    assert _fails(locked_xlsx).startswith("a password-protected Office Open XML document")
    workbook = tmp_path / "ledger.doc"  # another program's compound file
    shutil.copy(REAL / "pump-ledger.xls", workbook)
    assert _fails(workbook) == ("an Excel workbook, not a Word document (it has no WordDocument "
                                "stream)")


def _patched(src: Path, dst: Path, at: int, value: bytes) -> Path:
    """``src`` with the WordDocument stream's bytes at ``at`` replaced by ``value``."""
    shutil.copy(src, dst)
    with olefile.OleFileIO(str(dst), write_mode=True) as ole:
        word = bytearray(ole.openstream("WordDocument").read())
        word[at:at + len(value)] = value
        ole.write_stream("WordDocument", bytes(word))
    return dst


def test_word_95_and_damaged_files_fail_alone_saying_why(tmp_path: Path):
    word95 = _patched(FERRY, tmp_path / "old.doc", 2, struct.pack("<H", 104))  # Word 95's nFib
    assert _fails(word95) == "a Word 95 (or older) file; save it as .docx"
    # the piece table said to lie past the end of the table stream
    clx = word97.RG_FC_LCB + 8 * word97.CLX
    damaged = _patched(FERRY, tmp_path / "damaged.doc", clx, struct.pack("<I", 10**8))
    assert _fails(damaged).startswith("a damaged Word document: a table points outside its stream")
    # the main text said to be longer than the pieces hold
    long = _patched(FERRY, tmp_path / "long.doc", word97.RG_LW + word97.CCP_TEXT,
                    struct.pack("<I", 10**6))
    assert _fails(long).startswith("a damaged Word document")
    cut = tmp_path / "cut.doc"
    cut.write_bytes(FERRY.read_bytes()[:3000])  # a copy that stopped
    assert _fails(cut).startswith("a damaged Word document")


def test_unreadable_styles_leave_headings_as_text(tmp_path: Path):
    stshf = word97.RG_FC_LCB + 8 * word97.STSHF
    broken = _patched(FERRY, tmp_path / "nostyles.doc", stshf, struct.pack("<I", 10**8))
    text = extract(broken).text
    assert "Island ferry timetable\n\nSailings\n\n" in text and "#" not in text
    # the table's rows still come from the paragraph properties (an empty last cell too)
    assert "Season pass | £120 | " in text.split("\n\n")


def test_unreadable_paragraph_properties_leave_tables_to_their_marks(tmp_path: Path):
    """A cell ends at \\x07 and a row at a second one: right but for a row's empty last
    cell, whose mark reads as the row's end."""
    papx = word97.RG_FC_LCB + 8 * word97.PLCFBTEPAPX
    broken = _patched(FERRY, tmp_path / "nopapx.doc", papx, struct.pack("<I", 10**8))
    blocks = extract(broken).text.split("\n\n")
    assert blocks[blocks.index("Ticket | Adult | Child"):][:4] == [
        "Ticket | Adult | Child", "Single | £4.50 | £2.25", "Season pass | £120",
        "Fares are reviewed each March."]


def test_doc_is_registered_by_its_suffix():
    assert REGISTRY[".doc"].name == "doc"
    assert extractor_for(Path("A.DOC")).name == "doc"


@pytest.fixture(scope="module")
def indexed(index_of):  # type: ignore[no-untyped-def]
    return index_of({"ferry-timetable.doc": FERRY.read_bytes(),
                     "locked.doc": (REAL / "locked-ferry.doc").read_bytes()})


def test_a_doc_is_indexed_and_its_hits_quote_the_stored_text(indexed):
    idx, report = indexed
    assert report.indexed == ["ferry-timetable.doc"]
    assert dict(report.failed) == {"locked.doc": "encrypted with a password; save a copy "
                                                 "without the password"}
    text = idx.document_text("ferry-timetable.doc")
    assert text == extract(FERRY).text
    hit = next(h for h in idx.search("how much is a child's single fare", k=5).hits
               if h.document == "ferry-timetable.doc")
    assert hit.content == text[hit.start:hit.end] and "£2.25" in hit.content
    assert hit.section == "Island ferry timetable > Sailings > Fares"
    rec = idx.store.document("ferry-timetable.doc")
    assert rec is not None and rec.title == "Island ferry timetable"
    assert (rec.extractor, rec.media_type) == ("doc", "application/msword")
