"""PDF and Word extraction on files built the way real writers build them: what the
page shows is what is indexed, and a file that cannot be read says why."""

from __future__ import annotations

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
