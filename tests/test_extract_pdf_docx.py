"""PDF and Word extraction on files built the way real writers build them: what the
page shows is what is indexed, and a file that cannot be read says why."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from citeline.chunk import chunk_document
from citeline.errors import ExtractionError
from citeline.extract import extractor_for
from citeline.types import Document

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
VML = 'xmlns:v="urn:schemas-microsoft-com:vml"'


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def _p(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def _tc(text: str) -> str:
    return f"<w:tc>{_p(text)}</w:tc>"


def test_docx_custom_xml_around_paragraphs_rows_and_cells_is_read(tmp_path: Path):
    """Templates and contract systems wrap clauses, rows and cells in their own markup
    (w:customXml); Word shows what is inside, and python-docx's iterators skip it."""
    import docx
    from docx.oxml import parse_xml

    d = docx.Document()
    d.add_paragraph("Agreement between the parties.")
    body = d.element.body
    sect = body[-1]  # w:sectPr stays last
    sect.addprevious(parse_xml(
        f'<w:customXml {W} w:element="clause"><w:customXmlPr/>'
        f'{_p("The tenant pays the rent by the third working day.")}</w:customXml>'))
    table = d.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Deposit"
    table.rows[0].cells[1].text = "two months"
    table._tbl.append(parse_xml(
        f'<w:customXml {W} w:element="row"><w:tr>{_tc("Notice")}{_tc("three months")}</w:tr>'
        '</w:customXml>'))
    table._tbl.append(parse_xml(
        f'<w:tr {W}><w:customXml w:element="cell">{_tc("Pets")}</w:customXml>'
        f'{_tc("one cat")}</w:tr>'))
    d.add_paragraph("Signed in duplicate.")
    path = tmp_path / "lease.docx"
    d.save(path)
    assert extract(path).text == (
        "Agreement between the parties.\n\n"
        "The tenant pays the rent by the third working day.\n\n"
        "Deposit | two months\n\nNotice | three months\n\nPets | one cat\n\n"
        "Signed in duplicate.")


def test_docx_text_box_in_a_table_cell_is_read_in_the_cell(tmp_path: Path):
    import docx
    from docx.oxml import parse_xml

    d = docx.Document()
    table = d.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Valve V3"
    cell = table.rows[0].cells[1]
    cell.text = "Open slowly."
    cell.paragraphs[0]._p.append(parse_xml(
        f'<w:r {W} {VML}><w:pict><v:shape><v:textbox><w:txbxContent>'
        f'{_p("Torque limit 40 Nm.")}</w:txbxContent></v:textbox></v:shape></w:pict></w:r>'))
    path = tmp_path / "valves.docx"
    d.save(path)
    doc = extract(path)
    assert doc.text == "Valve V3 | Open slowly. Torque limit 40 Nm."
    (chunk,) = chunk_document(doc)
    assert chunk.content == doc.text[chunk.start:chunk.end]


def _form_pdf(folder: Path) -> Path:
    """A one-page form filled in with reportlab: the values are widget annotations
    with their own appearance, no part of the page's content."""
    from reportlab.pdfgen import canvas

    path = folder / "licence.pdf"
    c = canvas.Canvas(str(path))
    c.drawString(72, 750, "Application for a fishing licence.")
    c.drawString(72, 700, "Applicant name:")
    c.acroForm.textfield(name="applicant", value="Marguerite Okonkwo-Lindqvist",
                         x=180, y=692, width=250, height=20)
    c.drawString(72, 660, "Boat registration:")
    c.acroForm.textfield(name="boat", value="WX-4471-Q", x=180, y=652, width=250, height=20)
    c.showPage()
    c.save()
    return path


def test_pdf_filled_form_values_are_text_of_their_page(tmp_path: Path):
    doc = extract(_form_pdf(tmp_path))
    assert doc.text == ("Application for a fishing licence.\nApplicant name:\nBoat registration:"
                        "\n\nMarguerite Okonkwo-Lindqvist WX-4471-Q")
    (region,) = doc.regions
    assert region.page == 1 and (region.start, region.end) == (0, len(doc.text))
    (chunk,) = chunk_document(doc)
    assert chunk.content == doc.text[chunk.start:chunk.end] and "WX-4471-Q" in chunk.content


def test_pdf_form_values_without_an_appearance_are_read(tmp_path: Path):
    """pypdf and browsers fill a form by setting the values and /NeedAppearances,
    leaving the viewer to draw them; the viewer's drawing is what is read."""
    import pypdf
    from pypdf.generic import BooleanObject, NameObject

    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(_form_pdf(tmp_path)))
    for annot in writer.pages[0]["/Annots"]:
        del annot.get_object()["/AP"]
    writer._root_object["/AcroForm"][NameObject("/NeedAppearances")] = BooleanObject(True)
    path = tmp_path / "filled.pdf"
    with path.open("wb") as f:
        writer.write(f)
    text = extract(path).text
    assert "Marguerite Okonkwo-Lindqvist" in text and "WX-4471-Q" in text


def _pdf_failure(path: Path) -> str:
    with pytest.raises(ExtractionError) as err:
        extract(path)
    assert err.value.path == path.name
    return err.value.reason


def test_pdf_cut_short_or_not_a_pdf_says_which(tmp_path: Path):
    """PDFium says "data format error" of each; the reason says what the file is."""
    from reportlab.pdfgen import canvas

    whole = tmp_path / "whole.pdf"
    c = canvas.Canvas(str(whole))
    for n in range(4):
        c.drawString(72, 700, f"Page {n + 1} of the pump manual.")
        c.showPage()
    c.save()
    data = whole.read_bytes()
    cut = tmp_path / "manual.pdf"  # a download that stopped half-way
    cut.write_bytes(data[: len(data) // 2])
    assert "it is cut short (it does not end with %%EOF), as after an interrupted download" \
        in _pdf_failure(cut)
    page = tmp_path / "report.pdf"  # the link answered with its sign-in page
    page.write_bytes(b"\xef\xbb\xbf<!DOCTYPE html>\n<html><body>Sign in</body></html>")
    assert ": it is an HTML page" in _pdf_failure(page)
    zipped = tmp_path / "minutes.pdf"
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("minutes.pdf", data)
    assert ": it is a ZIP archive" in _pdf_failure(zipped)
    damaged = tmp_path / "damaged.pdf"  # whole, ends as a PDF, but no structure to parse
    damaged.write_bytes(data[:200] + b"\x00" * (len(data) - 400) + data[-200:])
    assert _pdf_failure(damaged) == "not a readable PDF: the file is corrupt or not a PDF"


def _notes_part(d, kind: str, notes: dict[int, str]) -> None:  # type: ignore[no-untyped-def]
    """word/footnotes.xml or word/endnotes.xml as Word writes it: the two separator
    notes first, then each note's paragraph opening with its mark (w:footnoteRef)."""
    from docx.opc.constants import CONTENT_TYPE as CT
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    seps = "".join(f'<w:{kind} w:type="{t}" w:id="{i}"><w:p><w:r><w:{t}/></w:r></w:p></w:{kind}>'
                   for i, t in ((-1, "separator"), (0, "continuationSeparator")))
    body = "".join(f'<w:{kind} w:id="{i}"><w:p><w:r><w:{kind}Ref/></w:r>'
                   f'<w:r><w:t xml:space="preserve"> {text}</w:t></w:r></w:p></w:{kind}>'
                   for i, text in notes.items())
    foot = kind == "footnote"
    part = Part(PackURI(f"/word/{kind}s.xml"), CT.WML_FOOTNOTES if foot else CT.WML_ENDNOTES,
                f"<w:{kind}s {W}>{seps}{body}</w:{kind}s>".encode(), d.part.package)
    d.part.relate_to(part, RT.FOOTNOTES if foot else RT.ENDNOTES)


def _note_ref(paragraph, kind: str, note: int, deleted: bool = False) -> None:  # type: ignore[no-untyped-def]
    from docx.oxml import parse_xml

    run = f'<w:r><w:{kind}Reference w:id="{note}"/></w:r>'
    if deleted:  # a tracked deletion: Word's final view shows neither mark nor note
        run = f'<w:del w:id="9{note}" w:author="editor">{run}</w:del>'
    paragraph._p.append(parse_xml(f"<w:p {W}>{run}</w:p>")[0])


def test_docx_footnotes_and_endnotes_follow_the_paragraph_or_row_citing_them(tmp_path: Path):
    import docx

    d = docx.Document()
    d.add_heading("Ruling", 1)
    p = d.add_paragraph("The tribunal found the lease void.")
    _note_ref(p, "footnote", 1)
    p.add_run(" It ordered costs.")
    _note_ref(p, "endnote", 5)
    _note_ref(p, "footnote", 3, deleted=True)
    table = d.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Rent"
    table.rows[0].cells[1].text = "950 a month"
    _note_ref(table.rows[0].cells[1].paragraphs[0], "footnote", 2)
    d.add_paragraph("Appeal lodged.")
    _notes_part(d, "footnote", {1: "See Smith v Jones, 2019.", 2: "Before the 2021 review.",
                                3: "A note struck out."})
    _notes_part(d, "endnote", {5: "Costs were assessed at 4,200."})
    path = tmp_path / "ruling.docx"
    d.save(path)
    doc = extract(path)
    assert doc.text == (
        "# Ruling\n\nThe tribunal found the lease void. It ordered costs.\n\n"
        "Footnote 1: See Smith v Jones, 2019.\n\nEndnote i: Costs were assessed at 4,200.\n\n"
        "Rent | 950 a month\n\nFootnote 2: Before the 2021 review.\n\nAppeal lodged.")
    (chunk,) = chunk_document(doc)
    assert chunk.section == "Ruling" and chunk.content == doc.text[chunk.start:chunk.end]


def test_docx_note_numbers_are_shown_as_word_numbers_them():
    from citeline.extract.docx import note_number

    assert [note_number(n, "lowerRoman") for n in (1, 4, 9, 14, 40)] == ["i", "iv", "ix", "xiv", "xl"]
    assert note_number(1994, "upperRoman") == "MCMXCIV"
    assert [note_number(n, "lowerLetter") for n in (1, 26, 27)] == ["a", "z", "aa"]
    assert note_number(3, "upperLetter") == "C" and note_number(7, "chicago") == "7"


def test_docx_note_numbers_follow_the_documents_format_and_custom_marks(tmp_path: Path):
    import docx
    from docx.oxml import parse_xml

    d = docx.Document()
    d.settings.element.append(parse_xml(
        f'<w:footnotePr {W}><w:numFmt w:val="lowerLetter"/></w:footnotePr>'))
    p = d.add_paragraph("Dosage is weight-based.")
    _note_ref(p, "footnote", 1)
    p = d.add_paragraph("Not for children.")
    p._p.append(parse_xml(f'<w:r {W}><w:footnoteReference w:customMarkFollows="1" w:id="2"/></w:r>'))
    p.add_run("*")
    p = d.add_paragraph("Store cold.")
    _note_ref(p, "footnote", 3)
    _notes_part(d, "footnote", {1: "Per kilogram.", 2: "Under twelve.", 3: "Two to eight degrees."})
    path = tmp_path / "leaflet.docx"
    d.save(path)
    assert extract(path).text == (
        "Dosage is weight-based.\n\nFootnote a: Per kilogram.\n\nNot for children.*\n\n"
        "Footnote *: Under twelve.\n\nStore cold.\n\nFootnote b: Two to eight degrees.")


def _alt_chunk(d, name: str, content_type: str, blob: bytes) -> None:  # type: ignore[no-untyped-def]
    """An imported part (w:altChunk) where the body ends, as "Export to Word" features
    write a page into a .docx for Word to merge when it opens it."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import parse_xml

    rid = d.part.relate_to(Part(PackURI(f"/word/{name}"), content_type, blob, d.part.package),
                           RT.A_F_CHUNK)
    rels = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
    d.element.body[-1].addprevious(parse_xml(f'<w:altChunk {W} {rels} r:id="{rid}"/>'))


def test_docx_imported_html_and_web_archive_parts_are_read_in_place(tmp_path: Path):
    import docx

    d = docx.Document()
    d.add_paragraph("Cover note before the import.")
    _alt_chunk(d, "afchunk.html", "text/html",
               b"<html><body><h1>Site survey</h1><p>The culvert under Mill Lane is blocked."
               b"</p></body></html>")
    # html-docx-js writes the whole page as one web archive (MHT): a MIME message
    _alt_chunk(d, "afchunk.mht", "message/rfc822", (
        b'MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="B"\r\n\r\n--B\r\n'
        b'Content-Type: text/html; charset="utf-8"\r\nContent-Transfer-Encoding: '
        b"quoted-printable\r\n\r\n<html><body><p>The Gr=C3=BCnbach gauge reads 2.4 m.</p>"
        b"</body></html>\r\n--B--\r\n"))
    _alt_chunk(d, "afchunk.rtf", "application/rtf", rb"{\rtf1 The weir is sound.}")
    d.add_paragraph("Signed off.")
    path = tmp_path / "survey.docx"
    d.save(path)
    doc = extract(path)
    assert doc.text == ("Cover note before the import.\n\n# Site survey\n\n"
                        "The culvert under Mill Lane is blocked.\n\n"
                        "The Grünbach gauge reads 2.4 m.\n\nSigned off.")
    assert doc.warnings == ("imported part /word/afchunk.rtf: its type application/rtf is not "
                            "read (HTML, MHT and plain text are): open the document in Word and "
                            "save it to merge the part; not indexed",)
    chunks = chunk_document(doc)
    assert any(c.section == "survey > Site survey" and "Mill Lane" in c.content for c in chunks)


def test_docx_whose_body_is_only_an_unread_import_says_so(tmp_path: Path):
    import docx

    d = docx.Document()
    for p in list(d.element.body.iterchildren("{*}p")):
        d.element.body.remove(p)
    _alt_chunk(d, "afchunk.rtf", "application/rtf", rb"{\rtf1 The weir is sound.}")
    path = tmp_path / "weir.docx"
    d.save(path)
    with pytest.raises(ExtractionError) as err:
        extract(path)
    assert err.value.path == "weir.docx"
    assert err.value.reason.startswith("imported part /word/afchunk.rtf: its type application/rtf")


def test_docx_imported_parts_are_read_as_the_html_and_text_extractors_read_files(
        tmp_path: Path):
    """An imported page's ordered list keeps its numbers and its <pre> its blank lines, in a
    fenced block, as the HTML extractor reads a page; an imported page or text part in Windows-1252 with no
    charset is read so, with the extractor's warning naming the part (the text part was
    read as UTF-8, each accented letter a U+FFFD, without a word)."""
    import docx

    d = docx.Document()
    d.add_paragraph("Steps exported from the wiki:")
    _alt_chunk(d, "afchunk.html", "text/html",
               "<html><body><ol><li>Drain the tank</li><li>Refill it</li></ol>"
               "<pre>valve A\n\nvalve B</pre><p>Crème.</p></body></html>".encode("cp1252"))
    _alt_chunk(d, "afchunk.txt", "text/plain", "Café log\r\nAll clear.".encode("cp1252"))
    path = tmp_path / "steps.docx"
    d.save(path)
    doc = extract(path)
    assert doc.text == ("Steps exported from the wiki:\n\n1. Drain the tank\n\n2. Refill it\n\n"
                        "```\nvalve A\n\nvalve B\n```\n\nCrème.\n\nCafé log\n\nAll clear.")
    assert [w.split(": ", 1)[0] for w in doc.warnings] == [
        "imported part /word/afchunk.html", "imported part /word/afchunk.txt"]
    assert all("read as Windows-1252" in w for w in doc.warnings)
    assert all(c.content == doc.text[c.start:c.end] for c in chunk_document(doc))


def test_a_pdf_s_printed_page_numbers_go_with_its_citations(tmp_path: Path):
    # a book's front matter numbered i, ii, its body from 1, an appendix A-1: "#page=4"
    # opens the file's fourth page, whose printed number is "2", and a citation that said
    # only "page 4" sent the reader to the book's page 4
    from citeline.chunk import locate
    from citeline.store import locator_from, locator_json, regions_from_json, regions_json
    from doc_builders import label_pages, numbered_pages_pdf

    path = tmp_path / "book.pdf"
    path.write_bytes(label_pages(numbered_pages_pdf(6), [
        (0, 1, "/r", "", 1), (2, 4, "/D", "", 1), (5, 5, "/D", "A-", 1)]))
    doc = extractor_for(path).extract(path, "book.pdf")
    assert [(r.page, r.label) for r in doc.regions] == [
        (1, "i"), (2, "ii"), (3, "1"), (4, "2"), (5, "3"), (6, "A-1")]
    at = doc.text.index("Fact 4:")
    loc = locate(doc, at, at + 10)
    assert loc.pages == (4,) and loc.page_labels == ("2",) and loc.fragment == "#page=4"
    assert loc.to_json()["page_labels"] == ["2"]
    across = locate(doc, doc.text.index("Fact 2:"), doc.text.index("Fact 3:") + 5)
    assert across.pages == (2, 3) and across.page_labels == ("ii", "1")
    # kept by the stores as they are
    assert locator_from(locator_json(across)) == across
    assert regions_from_json(regions_json(doc.regions)) == list(doc.regions)
    # a locator or a region map written before labels were kept reads as having none
    old = {k: v for k, v in locator_json(loc).items() if k != "page_labels"}
    assert locator_from(old).page_labels == ()
    # a map written before labels (and boxes, after them) were kept: each region's last two
    # fields absent
    legacy = json.dumps([r[:-2] for r in json.loads(regions_json(doc.regions))])
    assert regions_from_json(legacy)[0].label is None


@pytest.mark.parametrize("labels", [None, [(0, 3, "/D", "", 1)]])
def test_pages_numbered_as_they_fall_carry_no_printed_number(tmp_path: Path, labels):
    from citeline.chunk import locate
    from doc_builders import label_pages, numbered_pages_pdf

    pdf = numbered_pages_pdf(4)
    path = tmp_path / "plain.pdf"
    path.write_bytes(pdf if labels is None else label_pages(pdf, labels))
    doc = extractor_for(path).extract(path, "plain.pdf")
    assert [r.label for r in doc.regions] == [None] * 4
    assert locate(doc, 0, len(doc.text)).page_labels == ()
