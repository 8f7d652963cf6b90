"""Fixture files built with the real tools that write these formats.

reportlab writes the PDFs (and Pillow the scanned page), python-docx the Word
file, python-pptx the slide deck, openpyxl the workbooks, odfpy the OpenDocument files
(text, presentation, spreadsheet), ebooklib the EPUB e-books; CSV, WebVTT, SRT and HTML
are literal strings.
Every builder writes into a folder it is given (a pytest tmp path) and returns
the file's path; the facts inside are unique phrases the tests search for.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

# --- PDF ------------------------------------------------------------------------------

HEADER = "Northwind Quarterly Review - Confidential"

LEFT_COLUMN = [
    "The harbour crane was recalibrated in March after the load cell drifted by four percent.",
    "Crane operators now log every lift above twelve tonnes in the shared ledger.",
    "The night shift reported that the eastern gantry squeals when the wind exceeds forty knots.",
]
RIGHT_COLUMN = [
    "Refrigerated containers must be plugged in within ninety minutes of unloading.",
    "The customs office closes at noon on Saturdays and reopens on Monday at seven.",
    "Pilot boats refuel at berth nine, never at the passenger terminal.",
]


def two_column_pdf(folder: Path, repeats: int = 3) -> Path:
    """Two columns per page (platypus frames side by side); about two pages long
    with the default ``repeats`` (paragraphs of routine text after each fact)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph

    path = folder / "harbour.pdf"
    w, h = A4
    margin, gap = 50, 20
    col = (w - 2 * margin - gap) / 2
    frames = [
        Frame(margin, margin, col, h - 2 * margin, id="left"),
        Frame(margin + col + gap, margin, col, h - 2 * margin, id="right"),
    ]
    doc = BaseDocTemplate(str(path), pagesize=A4, title="Harbour operations")
    doc.addPageTemplates([PageTemplate(id="two", frames=frames)])
    style = getSampleStyleSheet()["BodyText"]
    story = []
    filler = (
        "Routine harbour paperwork is filed by the duty officer at the end of each watch "
        "and reviewed the following morning. "
    )
    for i, fact in enumerate(LEFT_COLUMN + RIGHT_COLUMN):
        story.append(Paragraph(fact, style))
        for _ in range(2 * repeats if i % 3 == 2 else repeats):
            story.append(Paragraph(filler * 2, style))
    doc.build(story)
    return path


TABLE_ROWS = [
    ("Part", "Supplier", "Unit price", "Stock"),
    *[(f"Bolt M{6 + i}", f"Acme Fasteners {i % 4}", f"{0.12 * (i + 1):.2f} EUR", str(100 * i + 7)) for i in range(70)],
    ("Anchor winch gearbox", "Baltic Marine Works", "18450.00 EUR", "2"),
]


def table_pdf(folder: Path, rows: int = len(TABLE_ROWS)) -> Path:
    """A long table (platypus Table) that runs over two pages, header row repeated
    (with all of TABLE_ROWS; fewer ``rows`` keep the header and the last row)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate, Table

    path = folder / "parts.pdf"
    doc = SimpleDocTemplate(str(path), pagesize=A4, title="Parts price list")
    doc.build([Table([*TABLE_ROWS[: rows - 1], TABLE_ROWS[-1]], repeatRows=1)])
    return path


HEADER_PAGES = [
    "Revenue from ferry tickets rose to 4.2 million in the first quarter.",
    "The board approved a new ticket office at the northern pier.",
    "Fuel costs fell after the fleet switched to shore power overnight.",
    "Two catamarans will be retired when their hull certificates expire.",
    "Staff turnover dropped to six percent thanks to the new rota.",
]


_ORDINAL = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}


def headers_pdf(folder: Path) -> Path:
    """Five pages, each with the same running header and a 'Page N of 5' footer."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = folder / "review.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setTitle("Quarterly review")
    _, h = A4
    for n, fact in enumerate(HEADER_PAGES, start=1):
        c.drawString(72, h - 40, HEADER)
        y = h - 120
        for line in (fact, f"Section {n} continues the narrative of the {_ORDINAL[n]} topic."):
            c.drawString(72, y, line)
            y -= 16
        c.drawString(260, 30, f"Page {n} of {len(HEADER_PAGES)}")
        c.showPage()
    c.save()
    return path


SCANNED_LINES = ["INVOICE 4471", "Total due 380 EUR", "Pay before 12 May"]


def scanned_image(size: int = 48):
    """Black text on white, as a scanner would see a printed page (a Pillow image)."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (1240, 600), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=size)
    for i, line in enumerate(SCANNED_LINES):
        draw.text((80, 80 + i * 140), line, fill="black", font=font)
    return img


def scanned_pdf(folder: Path, name: str = "scan.pdf", with_text_page: bool = True) -> Path:
    """Page 1 has a text layer (optional); the last page is only an image of text."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    path = folder / name
    c = canvas.Canvas(str(path), pagesize=A4)
    w, h = A4
    if with_text_page:
        c.drawString(72, h - 100, "Cover letter: the attached invoice was scanned at the depot.")
        c.showPage()
    img = scanned_image()
    c.drawImage(ImageReader(img), 40, h - 40 - 300, width=w - 80, height=(w - 80) * 600 / 1240)
    c.showPage()
    c.save()
    return path


def encrypted_pdf(folder: Path) -> Path:
    from reportlab.pdfgen import canvas

    path = folder / "locked.pdf"
    c = canvas.Canvas(str(path), encrypt="open-sesame")
    c.drawString(72, 720, "This text is behind a password.")
    c.showPage()
    c.save()
    return path


def corrupt_pdf(folder: Path) -> Path:
    path = folder / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R\n" + bytes(range(256)) * 4)
    return path


# One page per /Rotate (0, 90, 180, 270), each read upright: two paragraphs, then a table.
ROTATED_PAGES = [
    (0, ["The survey team measured the north dyke in April and found it sound.",
         "Seepage at the pumping station stayed under two litres per minute."],
     ["A second survey in June found the crest settled by four centimetres.",
      "The settlement is within the tolerance set by the water board."],
     [("Gauge", "Site", "Level"), ("G1", "North dyke", "4.20 m"), ("G2", "Crest", "4.16 m")]),
    (90, ["The sluice gates on the east canal were greased and tested in May.",
          "Gate three still sticks when the tide stands above four metres."],
         ["A diver inspected the gate seals and found one cracked hinge pin.",
          "The spare pin is on order from the foundry in Delfzijl."],
     [("Gate", "Opened", "Closed"), ("E1", "06:10", "06:14"), ("E3", "06:20", "06:31")]),
    (180, ["Pump house two ran on its standby diesel during the March storm.",
           "Fuel use came to three hundred litres over the eleven hours."],
          ["The main feeder cable was replaced by the grid operator on Friday.",
           "Both pumps returned to mains power the following morning."],
     [("Pump", "Hours", "Fuel"), ("P1", "11", "300 l"), ("P2", "0", "0 l")]),
    (270, ["Reed beds along the west polder were mown in late September.",
           "The cuttings went to the composting site near the ferry landing."],
          ["Mowing next year starts a fortnight later to spare nesting birds.",
           "The ecologist will walk the banks before the contractor arrives."],
     [("Bed", "Area", "Mown"), ("W1", "2.4 ha", "yes"), ("W2", "1.1 ha", "no")]),
]


def rotated_pdf(folder: Path) -> Path:
    """ROTATED_PAGES: an A4 portrait page per entry with that /Rotate, its content drawn
    turned the other way so a viewer shows it upright (a landscape page at 90 and 270,
    as scanners and ps2pdf store one), each line laid out from the shown top left.
    pypdf sets /Rotate: reportlab's setPageRotation swaps the MediaBox's sides too."""
    from pypdf import PdfReader, PdfWriter
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = folder / "dyke-survey.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    w, h = A4
    # (translation, turn) mapping the shown page's coordinates to the stored page's
    turns = {0: ((0, 0), 0), 90: ((w, 0), 90), 180: ((w, h), 180), 270: ((0, h), -90)}
    for rotation, first, second, table in ROTATED_PAGES:
        (dx, dy), turn = turns[rotation]
        shown_height = w if rotation in (90, 270) else h
        c.translate(dx, dy)
        c.rotate(turn)
        y = shown_height - 72
        for paragraph in (first, second):
            for line in paragraph:
                c.drawString(72, y, line)
                y -= 14
            y -= 14  # paragraph spacing: a blank line
        for row in table:
            for x, cell in zip((72, 220, 370), row, strict=True):
                c.drawString(x, y, cell)
            y -= 14
        c.showPage()
    c.save()
    writer = PdfWriter(clone_from=PdfReader(str(path)))
    for page, (rotation, *_) in zip(writer.pages, ROTATED_PAGES, strict=True):
        page.rotate(rotation)
    writer.write(str(path))
    return path


def pdf_page_texts(path: Path) -> list[str]:
    """An INDEPENDENT reader (pypdf, not PDFium) for checking #page= locators."""
    from pypdf import PdfReader

    return [p.extract_text() or "" for p in PdfReader(str(path)).pages]


# --- DOCX -----------------------------------------------------------------------------


def docx_file(folder: Path) -> Path:
    from docx import Document

    path = folder / "handbook.docx"
    d = Document()
    d.core_properties.title = "Volunteer handbook"
    d.add_heading("Volunteer handbook", level=1)
    d.add_paragraph("Welcome to the community garden. Read this before your first shift.")
    d.add_heading("Tools", level=2)
    d.add_paragraph("Return the wheelbarrows to the green shed and hose off the mud.")
    d.add_heading("Sharp tools", level=3)
    d.add_paragraph("Secateurs are signed out from the coordinator and never left in the beds.")
    d.add_paragraph("# this line only looks like a heading")
    d.add_heading("Watering rota", level=2)
    table = d.add_table(rows=1, cols=3)
    for cell, text in zip(table.rows[0].cells, ("Day", "Volunteer", "Beds"), strict=True):
        cell.text = text
    for row in (("Monday", "Priya", "1-4"), ("Tuesday", "Tomasz", "5-8"), ("Wednesday", "Aiko", "herb spiral")):
        cells = table.add_row().cells
        for cell, text in zip(cells, row, strict=True):
            cell.text = text
    d.add_paragraph("Water before nine in the morning during heatwaves.")
    d.save(str(path))
    return path


DECK_FOOTER = "Harbour Authority - internal"
# PowerPoint 2010's named sections (python-pptx writes none): presentation.xml's extLst
_SECTIONS_EXT = "{521415D9-36F7-43E2-AB2F-B90AF26B5E84}"
_P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"


def add_pptx_sections(prs, sections: list[tuple[str, list[int]]]) -> None:  # type: ignore[no-untyped-def]
    """Group a python-pptx deck's slides into named sections, as PowerPoint's "Add
    Section" writes them: (name, 0-based slide positions) in order."""
    from lxml import etree
    from pptx.oxml.ns import qn

    pres = prs.part._element
    ext_lst = pres.find(qn("p:extLst"))
    if ext_lst is None:
        ext_lst = etree.SubElement(pres, qn("p:extLst"))
    ext = etree.SubElement(ext_lst, qn("p:ext"), uri=_SECTIONS_EXT)
    lst = etree.SubElement(ext, f"{{{_P14}}}sectionLst", nsmap={"p14": _P14})
    ids = [slide.slide_id for slide in prs.slides]
    for n, (name, positions) in enumerate(sections):
        sec = etree.SubElement(lst, f"{{{_P14}}}section", name=name,
                               id=f"{{{n:08d}-0000-4000-8000-000000000000}}")
        sld_ids = etree.SubElement(sec, f"{{{_P14}}}sldIdLst")
        for i in positions:
            etree.SubElement(sld_ids, f"{{{_P14}}}sldId", id=str(ids[i]))


def pptx_deck(folder: Path, name: str = "briefing.pptx") -> Path:
    """A harbour safety briefing (python-pptx's default 4:3 template), PowerPoint sections
    around its slides: a title slide; bullets with speaker notes; a group of text boxes
    and a table with a merged cell; a hidden slide; a Section Header divider and a slide
    under it with a line break and a line that only looks like a heading; a chart; a
    slide with only a drawing. A footer and the slide's number are text boxes on every
    slide, as many decks draw them."""
    from pptx import Presentation
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Inches

    prs = Presentation()
    title, content, divider, title_only, blank = (prs.slide_layouts[i] for i in (0, 1, 2, 5, 6))

    s = prs.slides.add_slide(title)
    s.shapes.title.text = "Harbour safety briefing"
    s.placeholders[1].text = "Dock crews, spring 2026"

    s = prs.slides.add_slide(content)
    s.shapes.title.text = "Life jackets"
    tf = s.placeholders[1].text_frame
    tf.text = "Wear a jacket on every pontoon, day or night."
    tf.add_paragraph().text = "Jackets hang in the blue lockers by gate two."
    s.notes_slide.notes_text_frame.text = ("Inflate one jacket at random every Monday "
                                           "and log the cylinder's date.")

    s = prs.slides.add_slide(title_only)
    s.shapes.title.text = "Who to call"
    group = s.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1)).text_frame.text = \
        "The harbour master answers on channel 12."
    group.shapes.add_textbox(Inches(5), Inches(2), Inches(4), Inches(1)).text_frame.text = \
        "The coastguard answers on channel 16."
    table = s.shapes.add_table(3, 3, Inches(1), Inches(4), Inches(8), Inches(1.5)).table
    for r, row in enumerate((("Role", "Name", "Phone"), ("Night pilot", "Oskar Lind", "555 0143"),
                             ("Fire watch", "", "555 0199"))):
        for c, v in enumerate(row):
            table.cell(r, c).text = v
    table.cell(2, 0).merge(table.cell(2, 1))  # "Fire watch" spans the name column

    s = prs.slides.add_slide(content)
    s.shapes.title.text = "Old mooring procedure"
    s.placeholders[1].text = "Moor bow first against the tide (replaced in 2025)."
    s._element.set("show", "0")  # hidden: PowerPoint still numbers it

    s = prs.slides.add_slide(divider)
    s.shapes.title.text = "Man overboard"
    s.placeholders[1].text = ""

    s = prs.slides.add_slide(content)
    s.shapes.title.text = "Throwing the ring"
    tf = s.placeholders[1].text_frame
    tf.text = "Shout and point at the person\vuntil the boat turns."
    tf.add_paragraph().text = "# not a heading, only a hash sign"
    tf.add_paragraph().text = "Throw the ring upwind of the swimmer, never at them."

    s = prs.slides.add_slide(title_only)
    s.shapes.title.text = "Incidents this year"
    data = CategoryChartData()
    data.categories = ["Jan", "Feb", "Mar"]
    data.add_series("Falls", (2, 0, 1))
    chart = s.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(8),
                               Inches(4), data).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Falls into the water per month"

    s = prs.slides.add_slide(blank)
    s.shapes.add_shape(MSO_SHAPE.OVAL, Inches(2), Inches(2), Inches(4), Inches(3))

    for n, slide in enumerate(prs.slides, start=1):
        slide.shapes.add_textbox(Inches(0.3), Inches(7), Inches(4), Inches(0.4)).text_frame.text = \
            DECK_FOOTER
        slide.shapes.add_textbox(Inches(9), Inches(7), Inches(0.6), Inches(0.4)).text_frame.text = \
            str(n)
    add_pptx_sections(prs, [("Before the shift", [0, 1, 2, 3]), ("Emergencies", [4, 5, 6, 7])])
    path = folder / name
    prs.save(str(path))
    return path


def slide_texts(path: Path) -> list[str]:
    """Every run of text of each slide, its notes and its charts, read from the parts'
    XML (``a:t`` elements), in slide order: an independent reader for the locators."""
    import re

    from pptx import Presentation

    out = []
    for slide in Presentation(str(path)).slides:
        parts = [slide.part] + [rel.target_part for rel in slide.part.rels.values()
                                if not rel.is_external and rel.reltype.endswith(("/notesSlide", "/chart"))]
        out.append(" ".join(t for part in parts
                            for t in re.findall(r"<a:t>([^<]*)</a:t>", part.blob.decode())))
    return out


def docx_formatted(folder: Path) -> Path:
    """A Word file whose titles are set by hand (no heading styles): 20 pt bold,
    14 pt, bold at the body size; and bold that is not a title (a lead-in, a sentence)."""
    from docx import Document
    from docx.shared import Pt

    path = folder / "allotment.docx"
    d = Document()

    def para(*runs: tuple[str, float | None, bool]) -> None:
        p = d.add_paragraph()
        for text, size, bold in runs:
            r = p.add_run(text)
            r.bold = bold or None
            if size:
                r.font.size = Pt(size)

    para(("Allotment rules", 20, True))
    para(("Plots are let from March to February and the rent is due at Easter.", None, False))
    para(("Sheds and tools", 14, False))
    para(("Each plot may have one shed no taller than two metres.", None, False))
    para(("Padlocks", None, True))
    para(("Note:", None, True), (" the committee keeps a spare key to every shed.", None, False))
    para(("Always close the gate.", None, True))
    para(("Combination padlocks are changed every October.", None, False))
    para(("Water", 14, False))
    para(("The troughs are filled from the mains between April and September.", None, False))
    d.save(str(path))
    return path


def docx_outline_levels(folder: Path) -> Path:
    """Headings from outline levels: a custom style not based on a Heading style but
    given "Level 1", and a paragraph given "Level 2" directly; one bold line of body."""
    from docx import Document
    from docx.enum.style import WD_STYLE_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    def outline(ppr, level: int) -> None:  # type: ignore[no-untyped-def]
        el = OxmlElement("w:outlineLvl")
        el.set(qn("w:val"), str(level))
        ppr.append(el)

    path = folder / "chapters.docx"
    d = Document()
    chapter = d.styles.add_style("Chapter Title", WD_STYLE_TYPE.PARAGRAPH)
    outline(chapter.element.get_or_add_pPr(), 0)
    d.add_paragraph("Beekeeping", style="Chapter Title")
    d.add_paragraph("Hives are inspected weekly from April.")
    sub = d.add_paragraph("Swarming")
    outline(sub._p.get_or_add_pPr(), 1)
    d.add_paragraph().add_run("Queen cells").bold = True
    d.add_paragraph("Queen cells along the frame's bottom edge mean a swarm is near.")
    d.save(str(path))
    return path


# --- OpenDocument (odfpy writes them) --------------------------------------------------

ODT_HEADER = "Keepers' manual - page header"
ODT_DELETED = "Paint the lantern room red every spring."


def save_odf(doc, path: Path) -> None:  # type: ignore[no-untyped-def]
    """odfpy's document saved as its suffix says: a flat XML file (``.fodt``, ``.fods``,
    ``.fodp``: one ``office:document``, as LibreOffice's "Flat XML" saves, written by
    odfpy's own ``xml()``), a template (``.ott``, ``.ots``, ``.otp``: the package with its
    kind's ``-template`` mimetype, in the mimetype entry and the manifest), else the
    package."""
    suffix = path.suffix.lower()
    if suffix.startswith(".fod"):
        path.write_bytes(doc.xml())
        return
    if suffix.startswith(".ot"):
        doc.mimetype += "-template"
    doc.save(str(path))


def odt_manual(folder: Path, name: str = "keepers.odt") -> Path:
    """A lighthouse keeper's manual as LibreOffice Writer lays one out: a Title paragraph,
    headings at outline levels 1-3, a numbered list with a nested lettered one (a list
    style of two levels), a bulleted list, a table with a merged cell, a footnote, a
    frame anchored in a paragraph, spaces, a tab and a line break written as elements, soft
    page breaks, a tracked deletion, and a page header that is not body text."""
    from odf import dc
    from odf.draw import Frame, TextBox
    from odf.namespaces import XMLNS
    from odf.office import ChangeInfo
    from odf.opendocument import OpenDocumentText
    from odf.style import (
        Header,
        MasterPage,
        PageLayout,
        PageLayoutProperties,
        ParagraphProperties,
        Style,
    )
    from odf.table import CoveredTableCell, Table, TableColumn, TableRow
    from odf.table import TableCell as Cell
    from odf.text import (
        Change,
        ChangedRegion,
        Deletion,
        H,
        LineBreak,
        List,
        ListItem,
        ListLevelStyleBullet,
        ListLevelStyleNumber,
        ListStyle,
        Note,
        NoteBody,
        NoteCitation,
        P,
        S,
        SoftPageBreak,
        Span,
        Tab,
        TrackedChanges,
    )

    doc = OpenDocumentText()
    doc.meta.addElement(dc.Title(text="Keepers' manual"))
    title = Style(name="Title", family="paragraph")
    title.addElement(ParagraphProperties(textalign="center"))
    doc.styles.addElement(title)
    layout = PageLayout(name="pm1")
    layout.addElement(PageLayoutProperties(pagewidth="21cm", pageheight="29.7cm"))
    doc.automaticstyles.addElement(layout)
    master = MasterPage(name="Standard", pagelayoutname=layout)
    header = Header()
    header.addElement(P(text=ODT_HEADER))
    master.addElement(header)
    doc.masterstyles.addElement(master)
    numbered = ListStyle(name="L1")
    numbered.addElement(ListLevelStyleNumber(level=1, numformat="1", numsuffix="."))
    numbered.addElement(ListLevelStyleNumber(level=2, numformat="a", numsuffix=")"))
    bulleted = ListStyle(name="L2")
    bulleted.addElement(ListLevelStyleBullet(level=1, bulletchar="\u2022"))
    doc.automaticstyles.addElement(numbered)
    doc.automaticstyles.addElement(bulleted)

    body = doc.text
    changes = TrackedChanges()
    region = ChangedRegion(check_grammar=False, id="ct1")  # LibreOffice writes both ids
    region.setAttrNS(XMLNS, "id", "ct1")
    deletion = Deletion()
    info = ChangeInfo()
    info.addElement(dc.Creator(text="Ines"))
    info.addElement(dc.Date(text="2026-03-02T10:00:00"))
    deletion.addElement(info)
    deletion.addElement(P(text=ODT_DELETED))
    region.addElement(deletion)
    changes.addElement(region)
    body.addElement(changes)

    body.addElement(P(stylename=title, text="Keepers' manual"))
    p = P(text="Keep the lamp lit from sunset to sunrise.")
    p.addElement(Change(changeid="ct1"))
    body.addElement(p)
    body.addElement(H(outlinelevel=1, text="The lamp"))
    p = P(text="Trim the wick")
    p.addElement(S(c=3))
    p.addText("every four hours.")
    p.addElement(Tab())
    p.addText("Log it.")
    p.addElement(LineBreak())
    p.addText("Sign the log.")
    body.addElement(p)
    body.addElement(H(outlinelevel=2, text="Lighting up"))
    steps = List(stylename=numbered)
    for text, sub in (("Open the lantern room vents.", None),
                      ("Light the mantle.", ["Use the long taper.", "Never a lighter."]),
                      ("Wind the clockwork.", None)):
        item = ListItem()
        item.addElement(P(text=text))
        if sub:
            inner = List()
            for line in sub:
                inner_item = ListItem()
                inner_item.addElement(P(text=line))
                inner.addElement(inner_item)
            item.addElement(inner)
        steps.addElement(item)
    body.addElement(steps)
    body.addElement(SoftPageBreak())
    body.addElement(H(outlinelevel=3, text="Spare parts"))
    bullets = List(stylename=bulleted)
    for text in ("Two spare mantles in the tin box.", "# a bullet that only looks like a heading"):
        item = ListItem()
        item.addElement(P(text=text))
        bullets.addElement(item)
    body.addElement(bullets)
    p = P(text="The fog signal sounds every thirty seconds in fog")
    note = Note(id="ftn1", noteclass="footnote")
    note.addElement(NoteCitation(text="1"))
    note_body = NoteBody()
    note_body.addElement(P(text="Visibility under two nautical miles."))
    note.addElement(note_body)
    p.addElement(note)
    p.addText(" and at night.")
    body.addElement(p)
    p = P(text="The radio room is below the lantern.")
    frame = Frame(anchortype="paragraph", width="6cm", height="2cm", name="Frame1")
    box = TextBox()
    box.addElement(P(text="Channel 16 is monitored at all times."))
    frame.addElement(box)
    p.addElement(frame)
    body.addElement(p)
    body.addElement(H(outlinelevel=1, text="Watches"))
    table = Table(name="Rota")
    table.addElement(TableColumn(numbercolumnsrepeated=3))
    for row in (("Watch", "Keeper", "Hours"), ("First", "Ines", "20-24"),
                ("Middle", None, "00-04")):
        tr = TableRow()
        for i, text in enumerate(row):
            if text is None:
                continue
            cell = Cell(numbercolumnsspanned=2) if row[i + 1:i + 2] == (None,) else Cell()
            cell.addElement(P(text=text))
            tr.addElement(cell)
            if row[i + 1:i + 2] == (None,):
                tr.addElement(CoveredTableCell())
        table.addElement(tr)
    body.addElement(table)
    p = P()
    p.addElement(SoftPageBreak())
    p.addElement(Span(text="Hand over the watch in person."))
    body.addElement(p)
    path = folder / name
    save_odf(doc, path)
    return path


def odp_deck(folder: Path, name: str = "tides.odp") -> Path:
    """A tide-table briefing as Impress lays one out: a title slide; a slide with an
    outline list and speaker notes; a slide without a title holding a table; a footer,
    a date and a page number frame on every slide."""
    from odf.draw import Frame, Page, TextBox
    from odf.namespaces import PRESENTATIONNS
    from odf.opendocument import OpenDocumentPresentation
    from odf.presentation import Notes
    from odf.style import MasterPage, PageLayout, PageLayoutProperties
    from odf.table import Table, TableColumn, TableRow
    from odf.table import TableCell as Cell
    from odf.text import List, ListItem, P

    doc = OpenDocumentPresentation()
    layout = PageLayout(name="PM1")
    layout.addElement(PageLayoutProperties(pagewidth="28cm", pageheight="21cm"))
    doc.automaticstyles.addElement(layout)
    master = MasterPage(name="Default", pagelayoutname=layout)
    doc.masterstyles.addElement(master)

    def frame(cls: str, *paragraphs: str) -> Frame:
        f = Frame(width="20cm", height="3cm", x="2cm", y="2cm")
        f.setAttrNS(PRESENTATIONNS, "class", cls)
        box = TextBox()
        for text in paragraphs:
            box.addElement(P(text=text))
        f.addElement(box)
        return f

    def furniture(page: Page, number: int) -> None:
        page.addElement(frame("footer", "Tide office - internal"))
        page.addElement(frame("date-time", "2026-04-01"))
        page.addElement(frame("page-number", str(number)))

    page = Page(name="page1", masterpagename=master)
    page.addElement(frame("title", "Reading the tide table"))
    page.addElement(frame("subtitle", "Harbour pilots, April"))
    furniture(page, 1)
    doc.presentation.addElement(page)

    page = Page(name="page2", masterpagename=master)
    page.addElement(frame("title", "Springs and neaps"))
    outline = Frame(width="20cm", height="10cm", x="2cm", y="6cm")
    outline.setAttrNS(PRESENTATIONNS, "class", "outline")
    box = TextBox()
    items = List()
    for text in ("Spring tides follow a full or new moon.", "Neap tides have the smallest range."):
        item = ListItem()
        item.addElement(P(text=text))
        items.addElement(item)
    box.addElement(items)
    outline.addElement(box)
    page.addElement(outline)
    furniture(page, 2)
    notes = Notes()
    notes.addElement(frame("notes", "Ask who has piloted a spring ebb at the bar."))
    page.addElement(notes)
    doc.presentation.addElement(page)

    page = Page(name="page3", masterpagename=master)
    grid = Frame(width="20cm", height="6cm", x="2cm", y="4cm")
    table = Table(name="Heights")
    table.addElement(TableColumn(numbercolumnsrepeated=2))
    for row in (("Tide", "Height"), ("High water", "4.8 m"), ("Low water", "0.6 m")):
        tr = TableRow()
        for text in row:
            cell = Cell()
            cell.addElement(P(text=text))
            tr.addElement(cell)
        table.addElement(tr)
    grid.addElement(table)
    page.addElement(grid)
    furniture(page, 3)
    doc.presentation.addElement(page)
    path = folder / name
    save_odf(doc, path)
    return path


# --- HTML, CSV, transcripts -----------------------------------------------------------

HTML_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Sourdough starter care</title>
<style>body { font-family: serif }</style>
<script>var tracking = "secret-analytics-token";</script></head>
<body>
<header><a href="/">Home</a> | <a href="/shop">Shop our flour</a></header>
<nav><ul><li>Recipes</li><li>Subscribe to the newsletter</li></ul></nav>
<main>
<article>
<h1>Sourdough starter care</h1>
<p>Feed the starter <b>equal weights</b> of flour and water every
   twelve hours while it lives on the counter.</p>
<h2>Storing it</h2>
<p>A starter kept in the fridge needs feeding only once a week.</p>
<ul><li>Use a glass jar with a loose lid.</li><li>Mark the level with a rubber band.</li></ul>
<h2>Reviving it</h2>
<p>Grey liquid on top is hooch; pour it off and feed twice before baking.</p>
<table><tr><th>Hydration</th><th>Texture</th></tr><tr><td>100%</td><td>thick batter</td></tr></table>
</article>
</main>
<aside>Related: buy our proving baskets</aside>
<footer>Copyright 2026 Crumb Co. All rights reserved.</footer>
<script>document.write("injected footer text")</script>
<noscript>Enable JavaScript for the best experience</noscript>
</body></html>
"""

CSV_TEXT = (
    "station;date;rainfall_mm;note\n"
    "Aberdeen;2024-03-01;12.5;gusty\n"
    ";;;\n"
    "Inverness;2024-03-01;30.1;\"flooded lane, closed road\"\n"
    "Perth;2024-03-02;0.0;dry spell\n"
)

VTT_TEXT = """WEBVTT - Weekly planning call

NOTE recorded on the office phone

1
00:00:01.000 --> 00:00:04.500
<v Maria>Morning everyone, let's start with the warehouse move.

2
00:00:04.500 --> 00:00:09.000
<v Dev>The new racks arrive on Thursday, so we pack on Wednesday.

00:00:09.000 --> 00:00:13.250 align:start
<v Maria>Who is driving the van?
<v Dev>I am, I booked it until six.

00:00:13.250 --> 00:01:02.000
<v.loud Sam>Remember the forklift licence expires at the end of the month!
"""

SRT_TEXT = """1
00:00:00,500 --> 00:00:03,000
NARRATOR: Bees communicate with a waggle dance.

2
00:00:03,000 --> 00:00:07,400
<i>The angle of the dance</i> points
towards the flowers.

3
00:01:10,000 --> 00:01:15,000
NARRATOR: A longer waggle means a more distant meadow.
"""


SIZED_RUNNING_HEADER = "Pump station handbook - internal"
# (font size, lines as printed): a handbook exported without bookmarks
SIZED_LINES = [
    (22, ["Pump station handbook"]),
    (13, ["Contents . . . . . . . . . . . . . . . 2"]),
    (11, ["The station lifts river water to the treatment works on the hill."]),
    (16, ["Intake and screening", "of river water"]),  # a heading that wraps
    (11, ["Water enters through two intake bays below the weir."]),
    (13, ["Screens"]),
    (11, ["The coarse screen rake runs every forty minutes in autumn.",
          "Leaves clog the fine screen first; clear it by hand after storms."]),
    (None, []),  # a page break
    (16, ["Maintenance"]),
    (11, ["Grease the pump bearings every three hundred running hours.",
          "Log each greasing in the blue binder beside the control panel."]),
    (None, []),
    (11, ["The standby diesel is test-run on the first Monday of each month."]),
]


def sized_pdf(folder: Path) -> Path:
    """A PDF without bookmarks whose headings are only larger print (SIZED_LINES), with
    a 14 pt running header on each of its three pages and a contents line in 13 pt."""
    from reportlab.pdfgen import canvas

    path = folder / "pump-handbook.pdf"
    c = canvas.Canvas(str(path))
    c.setTitle("Pump station handbook")

    def header() -> float:
        c.setFont("Helvetica", 14)
        c.drawString(72, 810, SIZED_RUNNING_HEADER)
        return 760

    y = header()
    for size, lines in SIZED_LINES:
        if size is None:
            c.showPage()
            y = header()
            continue
        c.setFont("Helvetica-Bold" if size > 11 else "Helvetica", size)
        for line in lines:
            c.drawString(72, y, line)
            y -= size * 1.25
        y -= 14  # paragraph spacing
    c.save()
    return path


def scaled_heading_pdf(folder: Path) -> Path:
    """A heading set in the body's 11 pt font but drawn under a 1.6x scale, as
    generators that write ``Tf 1`` and size text with the matrix do."""
    from reportlab.pdfgen import canvas

    path = folder / "scaled.pdf"
    c = canvas.Canvas(str(path))
    c.saveState()
    c.translate(72, 760)
    c.scale(1.6, 1.6)
    c.setFont("Helvetica", 11)
    c.drawString(0, 0, "Tide tables")
    c.restoreState()
    c.setFont("Helvetica", 11)
    c.drawString(72, 720, "High water at the north quay comes forty minutes after the south quay.")
    c.drawString(72, 700, "Spring tides reach the second mooring ring twice a month.")
    c.save()
    return path


OUTLINE_SECTIONS = [
    # (bookmark title, level, the heading line as printed, body lines)
    ("Kettle manual", 0, "Kettle manual", ["Read this manual before the first use."]),
    ("Care", 1, "1 Care", ["Rinse the jug with cold water after each use."]),
    ("Descaling", 2, "1.1 Descaling", ["Descale it monthly with citric acid or vinegar."]),
    ("Warranty", 1, "2 Warranty", ["The base is covered for twenty-four months."]),
]


def outlined_pdf(folder: Path) -> Path:
    """A PDF with bookmarks, as LaTeX or Word write them: one per heading (each on its
    own line, after a section number), a section per page from "Descaling" on, and
    one bookmark ("Figure 1") whose title is no line of its page."""
    from reportlab.pdfgen import canvas

    path = folder / "kettle-manual.pdf"
    c = canvas.Canvas(str(path))
    c.setTitle("Kettle manual")
    y = 800
    for i, (title, level, line, body) in enumerate(OUTLINE_SECTIONS):
        if title in ("Descaling", "Warranty"):
            c.showPage()
            y = 800
        c.setFont("Helvetica-Bold", 14)
        c.drawString(72, y, line)
        c.bookmarkHorizontal(f"s{i}", 0, y + 14)
        c.addOutlineEntry(title, f"s{i}", level=level)
        y -= 30
        c.setFont("Helvetica", 11)
        for text in body:
            c.drawString(72, y, text)
            y -= 30
        if title == "Care":
            c.bookmarkHorizontal("fig", 0, y)
            c.addOutlineEntry("Figure 1", "fig", level=2)
            c.drawString(72, y - 20, "The jug, seen from above.")
            y -= 60
    c.save()
    return path


# A manual typeset as Texinfo sets one: front matter numbered i-iii at the top of its
# pages; each chapter's first page with its printed number alone (drawn at the foot,
# first in the content stream), its other pages under a running head naming the
# chapter and the printed page (PDF page 7 is printed page 4); an appendix whose
# bookmark is its title alone ("Reporting Bugs") while the page reads "Appendix A
# Reporting Bugs"; and chapter 1's title set as LaTeX sets it, "Chapter 1" above it.
TEXINFO_BREAK = ("The scale dissolves in warm", "citric acid within the hour.")
TEXINFO_WORDS = ("amber", "birch", "cedar", "dune", "ember", "fern", "glade", "heath", "iris",
                 "juniper", "kelp", "larch", "moss", "nettle", "oak", "pine", "quartz", "reed", "sage")


def texinfo_manual_pdf(folder: Path) -> Path:
    """19 pages: contents (i-iii), chapter 1 "Wiring" (pages 4-5, one page under its
    head), chapter 2 "Descaling" (6-15, heads on 7-15, "2.1 Vinegar" on 9), appendix A
    "Reporting Bugs" (16-19); a sentence runs from page 8 onto page 9
    (:data:`TEXINFO_BREAK`)."""
    from reportlab.pdfgen import canvas

    path = folder / "kettle-texinfo.pdf"
    c = canvas.Canvas(str(path))
    heads = {5: "Chapter 1: Wiring"} | {n: "Chapter 2: Descaling" for n in range(7, 16)} \
        | {n: "Appendix A: Reporting Bugs" for n in range(17, 20)}
    for page in range(1, 20):
        printed = page - 3
        c.setFont("Helvetica", 10)
        if page in (4, 6, 16):  # a chapter's first page: its number, at the foot
            c.drawString(300, 40, str(printed))
        y = 780
        if page <= 3:
            c.drawString(300, y, ["i", "ii", "iii"][page - 1])
            y -= 30
        if page in heads:
            c.drawString(72, y, f"{heads[page]} {printed}")
            y -= 30
        c.setFont("Helvetica-Bold", 14)
        if page == 4:
            c.drawString(72, y, "Chapter 1")
            c.drawString(72, y - 40, "Wiring")
            c.bookmarkHorizontal("wiring", 0, y + 14)
            c.addOutlineEntry("Wiring", "wiring", level=0)
            y -= 80
        elif page == 6:
            c.drawString(72, y, "2 Descaling")
            c.bookmarkHorizontal("descaling", 0, y + 14)
            c.addOutlineEntry("Descaling", "descaling", level=0)
            y -= 40
        elif page == 9:
            c.setFont("Helvetica", 10)
            c.drawString(72, y, TEXINFO_BREAK[1])
            y -= 30
            c.setFont("Helvetica-Bold", 12)
            c.drawString(72, y, "2.1 Vinegar")
            c.bookmarkHorizontal("vinegar", 0, y + 14)
            c.addOutlineEntry("Vinegar", "vinegar", level=1)
            y -= 30
        elif page == 16:
            c.drawString(72, y, "Appendix A Reporting Bugs")
            c.bookmarkHorizontal("bugs", 0, y + 14)
            c.addOutlineEntry("Reporting Bugs", "bugs", level=0)
            y -= 40
        c.setFont("Helvetica", 10)
        word = TEXINFO_WORDS[page - 1]
        lines = [f"The {word} notes come first on this page.", f"Nothing else is said of {word} here.",
                 f"Read the {word} part twice."]
        if page == 8:
            lines.append(TEXINFO_BREAK[0])
        for line in lines:
            c.drawString(72, y, line)
            y -= 14
        c.showPage()
    c.save()
    return path


# A LaTeX-style page: numbered headings with a quad between number and title, a
# two-column table, and a bold figure caption with text after it.
NUMBERED_BODY = ("Sluice gates are inspected every spring before the high water season "
                 "starts, and the inspection log is kept in the gate house.")


def latex_numbered_pdf(folder: Path) -> Path:
    """Headings set as LaTeX sets them ("1" + quad + "Inspections", 14.4 pt bold over
    10 pt text), a table whose rows have a real column gap, a bold caption, and a
    line of prose that is mostly, not wholly, bold."""
    from reportlab.pdfgen import canvas

    path = folder / "sluice.pdf"
    c = canvas.Canvas(str(path))
    y = 760.0

    def heading(number: str, title: str, size: float) -> None:
        nonlocal y
        c.setFont("Helvetica-Bold", size)
        c.drawString(72, y, number)
        c.drawString(72 + c.stringWidth(number, "Helvetica-Bold", size) + size * 1.4, y, title)
        y -= size * 2

    def body(lines: int = 3) -> None:
        nonlocal y
        c.setFont("Helvetica", 10)
        for _ in range(lines):
            c.drawString(72, y, NUMBERED_BODY[:90])
            y -= 12
        y -= 10

    heading("1", "Inspections", 14.4)
    body()
    heading("1.1", "Gate seals", 12)
    body()
    c.setFont("Helvetica-Bold", 10)
    c.drawString(72, y, "Figure 2: Seal wear by gate")
    y -= 14
    body()
    c.setFont("Helvetica", 10)
    for left, right in (("Gate", "Last inspected"), ("North", "2026-03-02"), ("South", "2026-03-09")):
        c.drawString(72, y, left)
        c.drawString(260, y, right)
        y -= 12
    y -= 10
    body()
    heading("2", "Repairs", 14.4)
    body()
    # a line of prose whose command names are bold, as manuals set them: not a heading
    text = c.beginText(72, y)
    text.setFont("Helvetica-Bold", 10)
    text.textOut("gatectl --close-all --force-now --log-file gates.log ")
    text.setFont("Helvetica", 10)
    text.textOut("shuts every gate before the")
    c.drawText(text)
    y -= 12
    body()
    c.save()
    return path


def titled_pdf(folder: Path, name: str, title: str | bytes, text: str) -> Path:
    """A one-page PDF whose metadata Title is ``title`` as given: a str (pypdf encodes it,
    NUL characters too) or raw bytes (e.g. UTF-16 with a lone surrogate)."""
    import io

    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ByteStringObject, NameObject
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    c.drawString(72, 720, text)
    c.showPage()
    c.save()
    w = PdfWriter(clone_from=PdfReader(io.BytesIO(buf.getvalue())))
    w.add_metadata({"/Title": title if isinstance(title, str) else "x"})
    if isinstance(title, bytes):  # written as it is, no encoding on the way
        w._info.get_object()[NameObject("/Title")] = ByteStringObject(title)  # type: ignore[union-attr]
    path = folder / name
    with path.open("wb") as fh:
        w.write(fh)
    return path


# A definition list as Texinfo's @table, LaTeX's description and a man page's tagged
# paragraphs set it: each term flush left and the first line of its definition beside
# it after a wide gap (a table row to the layout, next to the one-line item above it),
# the definition going on under itself; a term too long for the column on a line of
# its own, its definition under it; an item of two paragraphs. Then a paragraph, and a
# real table: rows with column gaps, one whose last cell wraps, one whose first cells
# are empty.
DEFINITIONS = [
    ("-t", "The maximum amount of processor time in seconds."),
    ("-m", "The maximum resident set size, in kilobytes, that the shell and the "
     "processes it starts may use; many systems do not honor this limit, and the "
     "value is then accepted without any effect on the processes at all."),
    ("-l", "The maximum size that may be locked into memory."),
    ("pipefail", "If set, the return value of a pipeline is the value of the last "
     "(rightmost) command to exit with a non-zero status, or zero if all commands in "
     "the pipeline exit successfully; the option is off when the shell starts."),
]
LONG_TERM = ("control operator", "A token that performs a control function, which is "
             "a newline or one of the operators that separate and group the commands "
             "of a list, such as the pipe, the semicolon and the ampersand.")
TWO_PARAGRAPHS = ("-v", "The maximum amount of virtual memory available to the shell "
                  "and, on some systems, to the children it starts while it runs.",
                  "A second paragraph of the same definition starts after a blank line, "
                  "at the definition's own indentation under the first one.")
AFTER_LIST = ("The paragraph after the list starts at the left margin, after the space "
              "that ends the list, and is set as wide as the definitions above it.")
DEFINITION_TABLE = [("Gate", "Inspected", "Remarks"), ("North", "2026-03-02", "None."),
                    ("", "2026-03-05", ""), ("West", "2026-03-07", "None."),
                    ("South", "2026-03-09", "The lower seal shows wear along its whole "
                     "length and is to be replaced before the spring tides come in."),
                    ("East", "2026-03-16", "None."), ("Quay", "2026-03-20", "None.")]


def definition_list_pdf(folder: Path) -> Path:
    """One page: :data:`DEFINITIONS` beside their terms (a 72 pt column, definitions
    justified to the right margin), :data:`LONG_TERM` on its own line above its
    definition, :data:`TWO_PARAGRAPHS`, :data:`AFTER_LIST`, then
    :data:`DEFINITION_TABLE`, its columns at the same right margin."""
    from reportlab.lib.enums import TA_JUSTIFY
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    path = folder / "limits.pdf"
    doc = SimpleDocTemplate(str(path), pagesize=A4, leftMargin=72, rightMargin=72,
                            title="Shell limits")
    body = ParagraphStyle("body", fontName="Helvetica", fontSize=10, leading=12,
                          alignment=TA_JUSTIFY)
    indented = ParagraphStyle("indented", parent=body, leftIndent=72, spaceBefore=2)
    tight = TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                        ("LEFTPADDING", (0, 0), (-1, -1), 0),
                        ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                        ("TOPPADDING", (0, 0), (-1, -1), 0),
                        ("BOTTOMPADDING", (0, 0), (-1, -1), 7)])
    width = doc.width
    items = [[Paragraph(term, body), Paragraph(text, body)] for term, text in DEFINITIONS]
    term, first, second = TWO_PARAGRAPHS
    items.append([Paragraph(term, body), [Paragraph(first, body), Spacer(1, 7),
                                          Paragraph(second, body)]])
    rows = [[Paragraph(cell, body) for cell in row] for row in DEFINITION_TABLE]
    story = [
        Table(items, colWidths=[72, width - 72], style=tight),
        Paragraph(LONG_TERM[0], body),
        Paragraph(LONG_TERM[1], indented),
        Spacer(1, 9),
        Paragraph(AFTER_LIST, body),
        Spacer(1, 9),
        Table(rows, colWidths=[72, 90, width - 162],
              style=TableStyle([*tight.getCommands()[:-1], ("BOTTOMPADDING", (0, 0), (-1, -1), 0)])),
    ]
    doc.build(story)
    return path


# Ten lines of 10 pt text, the body of title_page_pdf's pages.
TITLE_PAGE_BODY = [
    "Pilots board inbound vessels at the fairway buoy, two miles off the breakwater.",
    "The pilot ladder is rigged on the lee side, one metre above the water.",
    "In fog the harbour master closes the inner channel to ships over ninety metres.",
    "Tugs meet every tanker at the second bend and stay with it to its berth.",
    "A pilot may refuse a ladder that is worn, short or badly secured.",
] * 2


def title_page_pdf(folder: Path, name: str, head: list[tuple[float, str]],
                   title: str | None = None, bookmark: str | None = None,
                   tail: list[tuple[float, str]] | None = None, cover: bool = False) -> Path:
    """A two-page PDF whose first page starts with ``head`` (each a font size and a line, in
    that order, from the top down), then :data:`TITLE_PAGE_BODY` in 10 pt, then ``tail``
    (lines in their sizes again); its second page holds the body again. Its /Title is
    ``title``, empty when None (as Texinfo and LibreOffice leave it); with ``bookmark``, one
    bookmark to page 1 titled so; with ``cover``, a page before them that is an image of
    text (:func:`scanned_image`, a cover only OCR reads)."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    path = folder / name
    c = canvas.Canvas(str(path))
    c.setTitle(title or "")
    if cover:
        c.drawImage(ImageReader(scanned_image()), 40, 500, width=515, height=250)
        c.showPage()
    if bookmark is not None:
        c.bookmarkPage("p1")
        c.addOutlineEntry(bookmark, "p1", level=0)
    y = 780.0
    for size, line in [*head, *((10.0, line) for line in TITLE_PAGE_BODY), *(tail or [])]:
        y -= size * 1.4
        c.setFont("Helvetica-Bold" if size > 10 else "Helvetica", size)
        c.drawString(72, y, line)
    c.showPage()
    c.setFont("Helvetica", 10)
    for i, line in enumerate(TITLE_PAGE_BODY):
        c.drawString(72, 760 - 14 * i, line)
    c.save()
    return path


# --- E-mail: the stdlib's own writers (email.message + email.generator, mailbox) -------


def mail_message(subject: str | None, body: str, *,
                 sender: str = "Ana Núñez <ana@example.org>",
                 to: str = "Ben Okafor <ben@example.org>", cc: str | None = None,
                 date: str = "Tue, 14 May 2024 09:30:00 +0200"):  # type: ignore[no-untyped-def]
    """A text/plain message as a mail client writes one (UTF-8; non-ASCII headers in
    RFC 2047's encoded words)."""
    from email.message import EmailMessage

    msg = EmailMessage()
    if subject is not None:
        msg["Subject"] = subject
    msg["From"] = sender
    msg["To"] = to
    if cc:
        msg["Cc"] = cc
    msg["Date"] = date
    msg.set_content(body)
    return msg


def write_eml(folder: Path, name: str, msg, crlf: bool = False) -> Path:  # type: ignore[no-untyped-def]
    """``msg`` saved as an .eml, by email.generator (with CRLF line ends, as Outlook and
    Thunderbird save one, when ``crlf``)."""
    import email.policy
    from email.generator import BytesGenerator

    path = folder / name
    with path.open("wb") as fh:
        BytesGenerator(fh, policy=email.policy.SMTP if crlf else email.policy.default).flatten(msg)
    return path


FERRY_BODY = ("Hi Ben,\n\n"
              "The first ferry to Inishmore leaves Rossaveal at 10:30 and the crossing takes "
              "forty minutes.\n"
              "# of bikes allowed: two each\n\n"
              "Ana\n\n"
              "> Ben wrote:\n"
              "> Which ferry should we take on Saturday?\n")


def eml_plain(folder: Path, name: str = "ferry.eml") -> Path:
    """One text/plain message with a Cc, a quoted reply and a line that only looks like
    a heading."""
    return write_eml(folder, name, mail_message("Ferry times for the island trip", FERRY_BODY,
                                                cc="Chloé Martin <chloe@example.org>"))


def eml_alternative(folder: Path, name: str = "menu.eml") -> Path:
    """multipart/alternative: a text/plain part in Latin-1 (quoted-printable), then an
    HTML one (base64) saying something else, which a reader preferring text never sees."""
    msg = mail_message("Menü for the Café Noël dinner", "x")
    msg.set_content("The crème brûlée is served at nine, after the pâté.\n",
                    charset="latin-1", cte="quoted-printable")
    msg.add_alternative("<html><body><h1>Menu</h1><p>The HTML rendering of the menu.</p>"
                        "</body></html>", subtype="html", charset="latin-1", cte="base64")
    return write_eml(folder, name, msg)


NEWSLETTER_HTML = ("<html><head><title>Harbour newsletter</title><style>p {color: red}</style>"
                   "</head><body><h1>Harbour news</h1><p>The new pontoon opens in June.</p>"
                   "<h2>Events</h2><p>The regatta starts at noon from the <b>east</b> pier."
                   "</p><script>track()</script></body></html>")


def eml_html_only(folder: Path, name: str = "newsletter.eml") -> Path:
    """An HTML-only message (as newsletters are sent), with headings, a style and a script."""
    msg = mail_message("Harbour newsletter, May", "x", sender="news@harbour.example")
    msg.set_content(NEWSLETTER_HTML, subtype="html")
    return write_eml(folder, name, msg)


REPORT_PDF_SIZE = 120_000  # bytes: "120 kB" in the warning


def eml_attachment(folder: Path, name: str = "report.eml") -> Path:
    """A text/plain body with a named PDF attached, and an unnamed picture."""
    msg = mail_message("Quarterly report", "The quarterly report is attached; see page four.\n")
    pdf = b"%PDF-1.4\n" + b"0" * (REPORT_PDF_SIZE - 9)
    msg.add_attachment(pdf, maintype="application", subtype="pdf", filename="report.pdf")
    msg.add_attachment(b"\x89PNG\r\n\x1a\n" + b"\0" * 60, maintype="image", subtype="png")
    return write_eml(folder, name, msg)


def eml_forwarded(folder: Path, name: str = "fwd.eml") -> Path:
    """A message forwarding another as a message/rfc822 part, which carries an
    attachment of its own; saved with CRLF line ends."""
    inner = mail_message("Lighthouse tour on Sunday",
                         "The lighthouse tour meets at the pier gate at eight.\n",
                         sender="Keeper <keeper@lighthouse.example>",
                         to="Ana Núñez <ana@example.org>", date="Fri, 10 May 2024 18:00:00 +0100")
    inner.add_attachment(b"\x89PNG\r\n\x1a\n" + b"\0" * 1200, maintype="image", subtype="png",
                         filename="map.png")
    outer = mail_message("Fwd: Lighthouse tour on Sunday", "See the message below, Ben.\n")
    outer.add_attachment(inner)
    return write_eml(folder, name, outer, crlf=True)


def mbox_three(folder: Path, name: str = "inbox.mbox") -> Path:
    """A mailbox of three messages written by mailbox.mbox, in this order: a text/plain
    one whose body has a line starting "From " (the mailbox escapes it ">From "), an
    HTML-only one, and one with no Subject."""
    import mailbox

    first = mail_message("Boat repair quote",
                         "The boatyard quoted 350 euros to replace the rudder bearing.\n"
                         "From the yard's note: paid on collection.\n",
                         sender="Yard <office@boatyard.example>",
                         date="Mon, 6 May 2024 08:00:00 +0000")
    second = mail_message("Choir rehearsal moved", "x", sender="Choir <choir@example.org>",
                          date="Tue, 7 May 2024 19:15:00 +0000")
    second.set_content("<p>Rehearsal moves to the <i>school hall</i> on Thursday evenings.</p>",
                       subtype="html")
    third = mail_message(None, "Remember to bring the tide tables.\n",
                         date="Wed, 8 May 2024 07:45:00 +0000")
    path = folder / name
    box = mailbox.mbox(path)
    try:
        for msg in (first, second, third):
            box.add(msg)
        box.flush()
    finally:
        box.close()
    return path


# --- Spreadsheets: the same cells as .ods (odfpy) and as .xlsx (openpyxl) -------------


class Shown(NamedTuple):
    """A number a sheet shows formatted: ``kind`` "percentage" (0.25 as 25%) or
    "currency" (euros)."""

    value: float
    kind: str


class Formula(NamedTuple):
    """A formula cell as a spreadsheet program saves it (ODF syntax, ``of:=...``) with its
    last result, or, ``cached`` None, as a library that does not calculate writes it."""

    formula: str
    cached: object = None


# Sheets by name, each a list of rows of cell values (None: empty), row 1 first.
Book = dict[str, list[list[object]]]


def spreadsheet(path: Path, sheets: Book, hidden: tuple[str, ...] = (),
                merged: dict[str, list[str]] | None = None) -> Path:
    """Write ``sheets`` to ``path``: an .ods by odfpy, laid out as LibreOffice Calc saves
    one, or an .xlsx by openpyxl, so a test can read the same cells in both formats.
    ``merged``: A1 ranges by sheet ("A5:C6"), whose cells but the first must be None.

    The .ods stores runs of identical neighbouring cells and rows once with a count, as
    Calc does (table:number-columns-repeated, table:number-rows-repeated), ends each row
    with its empty cells repeated to column 1,024 and each sheet with an empty row
    repeated to row 1,048,576; a hidden sheet has a table style with display false, a
    merged range's other cells are table:covered-table-cell, a line break in a text
    starts a new paragraph (text:p) of the cell."""
    merged = merged or {}
    if path.suffix == ".xlsx":
        _xlsx_book(path, sheets, hidden, merged)
    else:
        _ods_book(path, sheets, hidden, merged)
    return path


def _xlsx_book(path: Path, sheets: Book, hidden: tuple[str, ...],
               merged: dict[str, list[str]]) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                if isinstance(value, Shown):
                    cell = ws.cell(r, c, value.value)
                    cell.number_format = "0%" if value.kind == "percentage" else '#,##0.00 "€"'
                elif value is not None:
                    ws.cell(r, c, value)
        for cells in merged.get(name, []):
            ws.merge_cells(cells)
        if name in hidden:
            ws.sheet_state = "hidden"
    wb.save(path)


def _ods_book(path: Path, sheets: Book, hidden: tuple[str, ...],
              merged: dict[str, list[str]]) -> None:
    import datetime as dt

    from odf import teletype
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.style import Style, TableProperties
    from odf.table import CoveredTableCell, Table, TableCell, TableColumn, TableRow
    from odf.text import P
    from openpyxl.utils import range_boundaries

    columns, last_row = 1024, 1_048_576  # Calc before 7.4 (1,024 columns), and since
    doc = OpenDocumentSpreadsheet()
    style = Style(name="ta_hidden", family="table")
    style.addElement(TableProperties(display="false"))
    doc.automaticstyles.addElement(style)

    def attributes(value: object) -> dict[str, object]:
        if isinstance(value, Formula):
            return {"formula": value.formula} | (
                attributes(value.cached) if value.cached is not None else {})
        if isinstance(value, Shown):
            return {"valuetype": value.kind, "value": value.value} | (
                {"currency": "EUR"} if value.kind == "currency" else {})
        if isinstance(value, bool):
            return {"valuetype": "boolean", "booleanvalue": str(value).lower()}
        if isinstance(value, int | float):
            return {"valuetype": "float", "value": value}
        if isinstance(value, dt.datetime | dt.date):
            return {"valuetype": "date", "datevalue": value.isoformat()}
        if isinstance(value, dt.time):
            return {"valuetype": "time",
                    "timevalue": f"PT{value.hour:02d}H{value.minute:02d}M{value.second:02d}S"}
        return {"valuetype": "string"}

    def text(value: object) -> str | None:  # the cell as Calc shows it, in its paragraphs
        if isinstance(value, Formula):
            value = value.cached
        if value is None:
            return None
        if isinstance(value, Shown):
            return f"{value.value:.0%}" if value.kind == "percentage" else f"{value.value:,.2f} €"
        if isinstance(value, dt.datetime):
            return value.strftime("%m/%d/%y %I:%M %p")
        if isinstance(value, dt.date):
            return value.strftime("%m/%d/%y")
        if isinstance(value, dt.time):
            return value.strftime("%I:%M:%S %p")
        return str(value).upper() if isinstance(value, bool) else str(value)

    for name, rows in sheets.items():
        table = Table(name=name, **({"stylename": style} if name in hidden else {}))
        table.addElement(TableColumn(numbercolumnsrepeated=columns))
        spans, covered = {}, set()  # (row, col) 1-based -> (rows, cols); the cells merged away
        for cells in merged.get(name, []):
            c1, r1, c2, r2 = range_boundaries(cells)
            spans[(r1, c1)] = (r2 - r1 + 1, c2 - c1 + 1)
            covered |= {(r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)} - {(r1, c1)}
        # what makes two cells the same: True is no 1, nor 1 a 1.0
        keys = [[(type(v), v, (r, c) in covered, spans.get((r, c))) for c, v in enumerate(row, 1)]
                for r, row in enumerate(rows, start=1)]
        r = 0
        while r < len(rows):
            n = 1  # identical rows after this one: one element, repeated
            while r + n < len(rows) and keys[r + n] == keys[r] and not any(
                    key[3] for key in keys[r]):
                n += 1
            tr = TableRow(**({"numberrowsrepeated": n} if n > 1 else {}))
            row = rows[r]
            c = 0
            while c < len(row):
                k = 1
                while c + k < len(row) and keys[r][c + k] == keys[r][c] and keys[r][c][3] is None:
                    k += 1
                repeat = {"numbercolumnsrepeated": k} if k > 1 else {}
                _, value, merged_away, span = keys[r][c]
                if merged_away:
                    tr.addElement(CoveredTableCell(**repeat))
                elif value is None:
                    tr.addElement(TableCell(**repeat))
                else:
                    extra = {"numberrowsspanned": span[0], "numbercolumnsspanned": span[1]} \
                        if span else {}
                    cell = TableCell(**attributes(value), **repeat, **extra)
                    if (shown := text(value)) is not None:
                        for line in shown.split("\n"):
                            p = P()
                            teletype.addTextToElement(p, line)  # spaces as text:s, tabs
                            cell.addElement(p)
                    tr.addElement(cell)
                c += k
            tr.addElement(TableCell(numbercolumnsrepeated=columns - len(row)))
            table.addElement(tr)
            r += n
        empty = TableRow(numberrowsrepeated=last_row - len(rows))
        empty.addElement(TableCell(numbercolumnsrepeated=columns))
        table.addElement(empty)
        doc.spreadsheet.addElement(table)
    save_odf(doc, path)


def label_pages(pdf: bytes, ranges: list[tuple[int, int, str, str, int]]) -> bytes:
    """``pdf`` with /PageLabels written by pypdf: each (first, last, style, prefix, start),
    0-based pages, style "/r" (i, ii), "/D" (1, 2) or "/A" (A, B), as a book's front
    matter, body and appendix number their pages."""
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    for first, last, style, prefix, start in ranges:
        writer.set_page_label(first, last, style=style, prefix=prefix or None, start=start)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def numbered_pages_pdf(n: int) -> bytes:
    """``n`` pages, each with one sentence naming its position ("Fact 3: ...")."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    for i in range(1, n + 1):
        c.drawString(72, 720, f"Fact {i}: the ferry to island number {i} leaves at {6 + i} o'clock.")
        c.showPage()
    c.save()
    return buf.getvalue()


# --- EPUB (ebooklib writes them) -------------------------------------------------------

EPUB_TITLE = "A Keeper's Year on Skerry Light"
# (entry in the package, title in the table of contents, XHTML body); the third has no
# heading of its own, so its table-of-contents title names it
EPUB_CHAPTERS = {
    "arrival": ("text/arrival.xhtml", "Arrival",
                "<h1>Arrival</h1>"
                "<p>The supply boat docks at the north jetty every second Tuesday, weather "
                "permitting.</p>"
                "<h2>What the boat brings</h2>"
                "<ul><li>Fresh water in twenty-litre drums</li><li>Paraffin for the lamp</li></ul>"),
    "tides": ("text/tides.xhtml", "Tides",
              "<h1>Tides</h1>"
              "<p>Spring tides flood the boat landing twice a month.</p>"
              "<table><tr><th>Day</th><th>High water</th><th>Height</th></tr>"
              "<tr><td>Monday</td><td>06:40</td><td>4.8 m</td></tr>"
              "<tr><td>Tuesday</td><td>07:25</td><td>4.6 m</td></tr></table>"
              "<ol><li>Read the tide gauge at high water.</li>"
              "<li>Write the height in the log.</li></ol>"),
    "foghorn": ("text/foghorn.xhtml", "The foghorn",
                "<p>The foghorn's compressor must be oiled every hundred running hours.</p>"
                "<pre>pressure   7 bar\n\nvalve      open</pre>"),
    "notes": ("text/notes.xhtml", "Notes",
              "<h1>Notes</h1><p>Skerry is Old Norse for a rocky islet.</p>"),
}


def epub_book(folder: Path, name: str = "skerry.epub", nav: bool = True) -> Path:
    """A four-chapter e-book with a cover picture, written by ebooklib: ``nav`` as EPUB 3
    (a nav.xhtml table of contents, listed in the spine, and a toc.ncx), else the EPUB 2
    way (a toc.ncx alone). The manifest lists the chapters in another order than the
    spine, whose reading order is arrival, notes (``linear="no"``), tides, foghorn."""
    import io

    from ebooklib import epub
    from PIL import Image

    book = epub.EpubBook()
    book.set_identifier("urn:uuid:6f1c2a44-skerry")
    book.set_title(EPUB_TITLE)
    book.set_language("en")
    book.add_author("Ines Marwick")
    cover = io.BytesIO()
    Image.new("RGB", (60, 90), "navy").save(cover, format="PNG")
    book.set_cover("images/cover.png", cover.getvalue())
    items = {}
    for key in ("foghorn", "notes", "tides", "arrival"):  # the manifest's order
        file_name, title, body = EPUB_CHAPTERS[key]
        items[key] = epub.EpubHtml(title=title, file_name=file_name, lang="en", content=body)
        book.add_item(items[key])
    book.toc = [epub.Link(file_name, title, key)
                for key, (file_name, title, _) in EPUB_CHAPTERS.items()]
    book.add_item(epub.EpubNcx())
    if nav:
        book.add_item(epub.EpubNav())
    book.spine = ["cover", *(["nav"] if nav else []), items["arrival"], (items["notes"], "no"),
                  items["tides"], items["foghorn"]]
    path = folder / name
    epub.write_epub(str(path), book, {"raise_exceptions": True})
    return path


def paged_epub(folder: Path, name: str, chapters: list[tuple[str, str]], *,
               nav_pages: list[tuple[str, str]] | None = None,
               ncx_pages: list[tuple[str, str]] | None = None, epub3: bool = True,
               notes: tuple[str, str] | None = None) -> Path:
    """An e-book written with zipfile, its markup as given: ``chapters`` (file under
    OEBPS/text/, XHTML body) in reading order, each titled by its file name in the
    tables of contents; ``nav_pages``/``ncx_pages``, (href from OEBPS/, page number):
    the nav document's ``page-list`` and toc.ncx's ``pageList``; ``epub3=False``: an
    EPUB 2 package with no nav document; ``notes``, a chapter after them in the spine,
    ``linear="no"``."""
    import zipfile
    from xml.sax.saxutils import escape

    xhtml = ('<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" '
             'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>{title}</title></head>'
             '<body>{body}</body></html>')
    spine = [*chapters, *([notes] if notes else [])]
    files = {f"OEBPS/text/{f}": xhtml.format(title=f, body=body) for f, body in spine}
    toc = "".join(f'<li><a href="text/{f}">{escape(f)}</a></li>' for f, _ in spine)
    pages = "".join(f'<li><a href="{escape(h)}">{escape(n)}</a></li>' for h, n in nav_pages or ())
    page_list = f'<nav epub:type="page-list"><ol>{pages}</ol></nav>' if nav_pages else ""
    if epub3:
        files["OEBPS/nav.xhtml"] = xhtml.format(
            title="Contents", body=f'<nav epub:type="toc"><ol>{toc}</ol></nav>{page_list}')
    points = "".join(
        f'<navPoint id="n{i}" playOrder="{i}"><navLabel><text>{escape(f)}</text></navLabel>'
        f'<content src="text/{f}"/></navPoint>' for i, (f, _) in enumerate(spine, 1))
    targets = "".join(
        f'<pageTarget id="p{i}" type="normal" value="{i}"><navLabel><text>{escape(n)}</text>'
        f'</navLabel><content src="{escape(h)}"/></pageTarget>'
        for i, (h, n) in enumerate(ncx_pages or (), 1))
    files["OEBPS/toc.ncx"] = (
        '<?xml version="1.0" encoding="utf-8"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" '
        'version="2005-1"><head/><docTitle><text>Paged</text></docTitle>'
        f'<navMap>{points}</navMap>' + (f"<pageList>{targets}</pageList>" if ncx_pages else "")
        + "</ncx>")
    manifest = "".join(f'<item id="c{i}" href="text/{f}" media-type="application/xhtml+xml"/>'
                       for i, (f, _) in enumerate(spine))
    if epub3:
        manifest += '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
    manifest += '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
    refs = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    refs += f'<itemref idref="c{len(chapters)}" linear="no"/>' if notes else ""
    files["OEBPS/content.opf"] = (
        f'<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" '
        f'version="{"3.0" if epub3 else "2.0"}" unique-identifier="id"><metadata '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:paged'
        '</dc:identifier><dc:title>The Tide Tables</dc:title><dc:language>en</dc:language>'
        f'</metadata><manifest>{manifest}</manifest><spine toc="ncx">{refs}</spine></package>')
    path = folder / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")  # stored, first
        z.writestr("META-INF/container.xml", (
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
            'opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
            'media-type="application/oebps-package+xml"/></rootfiles></container>'))
        for entry, data in files.items():
            z.writestr(entry, data)
    return path
