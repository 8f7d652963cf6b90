"""PowerPoint decks (.pptx), with python-pptx (MIT).

Each slide is a section of the canonical text, in the deck's order: a ``#``-heading
line with the slide's title (``Slide N`` when it has none), then its text in the
order a screen reader follows (the title first, then the shapes as the slide lists
them, a group's shapes in place), one block per text box or placeholder with one
line per paragraph, a table's rows as ``cell | cell`` blocks (a merged cell shown
once), what a chart says of itself (its title, kind, series and axes:
:func:`~citeline.extract.drawingml.chart_text`), a SmartArt diagram's text (one line per
node, each node's sub-points after it, in the diagram's order), and last the speaker
notes as a block starting ``Notes:``.
Each slide's text is a :class:`~citeline.types.Region` of kind ``slide``, so a
citation says ``#slide=N`` (N counts from 1, hidden slides included, as PowerPoint
numbers them) with the ``#char=`` range on this text.

The deck's own structure gives the nesting, never guesses from font sizes: a slide
on a *Section Header* layout is a divider, and the slides after it nest under it;
PowerPoint's named sections (the "Add Section" feature) are a level above
everything, with their names as headings.

Page furniture is left out: footer, date and slide-number placeholders, a text box
that is only the slide's own number, and a short text repeated in the same words on
at least half of the slides (3 or more) that is not a title (a footer drawn as a
text box). A picture's text (a screenshot, a pasted scan) is read by OCR as a picture
file is (:class:`~citeline.extract.image.PictureReader`), a block in its place among
the shapes, after the picture's alt text (what a reader who cannot see it gets; none
when it says nothing, as the file name PowerPoint writes there:
:func:`~citeline.extract.drawingml.drawing_alt`); a picture with no text adds nothing,
and neither does a shape marked decorative. A chart's, a diagram's and a group's alt
text is read too. An embedded object (a worksheet inserted as an object,
``ppt/embeddings/*.xlsx``) is read as that file is, in its place
(:func:`~citeline.extract.blocks.embedded_text`). A slide with no text at all (a
photograph alone) is named in a warning.

The slides' text is written by :func:`deck_document`, which the OpenDocument
presentation reader (:mod:`citeline.extract.opendocument`, .odp) shares.
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lxml.etree import XMLSyntaxError
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.exc import PackageNotFoundError
from pptx.opc.package import PartFactory
from pptx.oxml import parse_xml
from pptx.package import Package
from pptx.parts.presentation import PresentationPart
from pptx.presentation import Presentation as PresentationObject
from pptx.shapes.picture import Picture

from citeline.errors import ExtractionError
from citeline.extract import register
from citeline.extract.blocks import (
    MAX_HEADING_LEVEL,
    TextBuilder,
    check_package,
    embedded_text,
    escape_markdown,
    main_part,
    not_a_package,
    one_paragraph,
    squash,
)
from citeline.extract.drawingml import chart_text, decorative, drawing_alt, smartart_text
from citeline.extract.image import PictureReader
from citeline.types import Document, Region, RegionKind

_TITLES = frozenset({PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE,
                     PP_PLACEHOLDER.VERTICAL_TITLE})
# Placeholders the slide master fills with furniture, not the slide's content.
_FURNITURE = frozenset({PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.SLIDE_NUMBER,
                        PP_PLACEHOLDER.HEADER})
# A text repeated on this share of the slides (and on FURNITURE_MIN_SLIDES or more) in
# the same words is a footer or a logo's caption; only a short one (a repeated
# paragraph of prose is the author's, and stays).
FURNITURE_SHARE = 0.5
FURNITURE_MIN_SLIDES = 3
FURNITURE_MAX_CHARS = 120
# PowerPoint 2010's named sections, kept in presentation.xml's extension list.
_P14 = "{http://schemas.microsoft.com/office/powerpoint/2010/main}"
# The layout type PowerPoint gives its Section Header layout (ECMA-376 ST_SlideLayoutType).
_DIVIDER_LAYOUT = "secHead"
# python-pptx shows a line break inside a paragraph (a:br) as a vertical tab.
_LINE_BREAK = re.compile("[\v\u2028]")
# SmartArt (ECMA-376 Part 1, 21.4): a graphic frame of this kind names, in its relIds, the
# diagramData part whose points hold the text and whose connections order them; python-pptx
# reads none of it.
_DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
_DIAGRAM_URI = _DGM[1:-1]
_R_DATA = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}dm"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"


@dataclass
class Slide:
    """One slide's text as read from a deck (PowerPoint's or Impress's), for
    :func:`deck_document`."""

    number: int  # 1-based, hidden slides counted
    title: str
    blocks: list[str] = field(default_factory=list)
    notes: str = ""
    divider: bool = False
    section: str | None = None  # its PowerPoint section's name


def paragraph_lines(paragraphs: Iterable[str]) -> str:
    """A text block of ``paragraphs``, one line each (a line break inside one, a vertical
    tab or U+2028, is a line too), as every deck reader writes a text box."""
    return one_paragraph("\n".join(_LINE_BREAK.sub("\n", p) for p in paragraphs))


def table_rows(rows: Iterable[Iterable[str]]) -> Iterator[str]:
    """Each row of cell texts as ``cell | cell`` (a merged cell's covered cells given as
    ``""``, so it shows once); a row with no text is left out."""
    for row in rows:
        cells = [squash(cell) for cell in row]
        if any(cells):
            yield " | ".join(cells)


def _paragraphs(text_frame) -> str:  # type: ignore[no-untyped-def]
    """A text frame's paragraphs, one line each (a line break inside one is a line too)."""
    return paragraph_lines(p.text for p in text_frame.paragraphs)


def _table_rows(table) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """Each row as ``cell | cell``; a cell covered by a merge is empty (shown once)."""
    return table_rows(["" if cell.is_spanned else cell.text for cell in row.cells]
                      for row in table.rows)


def _smartart(frame) -> str:  # type: ignore[no-untyped-def]
    """A SmartArt diagram's text (:func:`smartart_text`), from the data part the graphic
    frame ``frame`` names."""
    ids = frame._element.find(f".//{_DGM}relIds")
    rid = ids.get(_R_DATA) if ids is not None else None
    if not rid or rid not in frame.part.rels:
        return ""
    return smartart_text(parse_xml(frame.part.related_part(rid).blob))


def _shape_blocks(shapes, pictures: PictureReader) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """The text blocks of ``shapes`` in their order on the slide, groups opened in place,
    a picture's text read by ``pictures`` after its alt text, a chart's and a diagram's
    alt text after their own text; titles and furniture placeholders are left out (the
    caller writes the title)."""
    for shape in shapes:
        if shape.is_placeholder and shape.placeholder_format.type in _TITLES | _FURNITURE:
            continue
        props = shape._element._nvXxPr.cNvPr
        if decorative(props):
            continue  # a border, a divider: nothing to read
        alt = drawing_alt(props)
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            if alt:
                yield alt
            yield from _shape_blocks(shape.shapes, pictures)
        elif isinstance(shape, Picture):  # a picture placeholder filled too
            if alt:
                yield alt
            try:
                image = shape.image
            except (KeyError, ValueError):  # linked, not in the package; or no image yet
                continue
            if text := pictures.text(image.blob, image.filename or "image"):
                yield text
        elif shape.shape_type == MSO_SHAPE_TYPE.EMBEDDED_OLE_OBJECT:
            ole = shape._element.find(f".//{_P}oleObj")  # r:id: the embedded file's part
            rid = ole.get(_R_ID) if ole is not None else None
            if rid and rid in shape.part.rels and (text := embedded_text(
                    shape.part.related_part(rid), pictures.warnings)):
                yield text
            if alt:
                yield alt
        elif getattr(shape, "has_table", False):  # only a graphic frame has the property
            yield from _table_rows(shape.table)
        elif getattr(shape, "has_chart", False):
            if text := chart_text(shape.chart._chartSpace):
                yield text
            if alt:
                yield alt
        elif getattr(shape._element, "graphicData_uri", None) == _DIAGRAM_URI:
            if text := _smartart(shape):
                yield text
            if alt:
                yield alt
        elif shape.has_text_frame:
            if text := _paragraphs(shape.text_frame):
                yield text


def _title(slide) -> str:  # type: ignore[no-untyped-def]
    for shape in slide.placeholders:
        if shape.placeholder_format.type in _TITLES and shape.has_text_frame:
            return squash(shape.text_frame.text)  # squash makes a line break (a vertical tab) a space
    return ""


def _sections(prs) -> dict[int, str]:  # type: ignore[no-untyped-def]
    """Slide id -> the name of the PowerPoint section it is in (none: an empty dict)."""
    out: dict[int, str] = {}
    for section in prs.part._element.iter(f"{_P14}section"):
        name = squash(section.get("name") or "")
        for sld in section.iter(f"{_P14}sldId"):
            try:
                out[int(sld.get("id"))] = name
            except (TypeError, ValueError):
                continue
    return out


def _read(prs, pictures: PictureReader) -> list[Slide]:  # type: ignore[no-untyped-def]
    sections = _sections(prs)
    slides = []
    for number, slide in enumerate(prs.slides, start=1):
        notes = ""
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = _paragraphs(slide.notes_slide.notes_text_frame)
        slides.append(Slide(
            number=number, title=_title(slide),
            blocks=list(_shape_blocks(slide.shapes, pictures)),
            notes=notes, divider=slide.slide_layout._element.get("type") == _DIVIDER_LAYOUT,
            section=sections.get(slide.slide_id),
        ))
    return slides


def _drop_furniture(slides: list[Slide]) -> None:
    """Leave out a text box that is only its slide's number, and a short text repeated
    on most slides that is no slide's title (see the module doc)."""
    seen: Counter[str] = Counter()
    for s in slides:
        seen.update({b for b in s.blocks if len(b) <= FURNITURE_MAX_CHARS})
    titles = {s.title for s in slides}
    furniture = {b for b, n in seen.items()
                 if n >= max(FURNITURE_MIN_SLIDES, FURNITURE_SHARE * len(slides)) and b not in titles}
    for s in slides:
        s.blocks = [b for b in s.blocks if b not in furniture and b != str(s.number)]


def _levels(slides: list[Slide]) -> list[int]:
    """Each slide's heading level: named sections first, then dividers, then slides."""
    base = 2 if any(s.section for s in slides) else 1
    levels = []
    under_divider = False
    section: str | None = None
    for s in slides:
        if s.section != section:  # a new PowerPoint section ends the divider above
            section, under_divider = s.section, False
        if s.divider:
            levels.append(base)
            under_divider = True
        else:
            levels.append(min(base + under_divider, MAX_HEADING_LEVEL))
    return levels


def deck_document(slides: list[Slide], path: Path, rel: str, deck_title: str, *,
                  media_type: str, extractor: str, version: str,
                  warnings: tuple[str, ...] = ()) -> Document:
    """The canonical text of a deck's slides, read by any extractor (.pptx, .odp): each
    slide a section with its title (``Slide N``) as a heading, then its blocks, then its
    notes, and a SLIDE region; furniture dropped first (see the module doc). ``warnings``:
    the reader's own, before the slides with no text."""
    if not slides:
        raise ExtractionError(rel, "the deck has no slides")
    _drop_furniture(slides)

    out = TextBuilder()
    regions: list[Region] = []
    blank: list[int] = []
    section: str | None = None
    for s, level in zip(slides, _levels(slides), strict=True):
        if not (s.title or s.blocks or s.notes):
            blank.append(s.number)
            continue
        if s.section and s.section != section:
            out.add("# " + s.section, sep="\n\n")
        section = s.section
        start, end = out.add("#" * level + " " + (s.title or f"Slide {s.number}"), sep="\n\n")
        for block in s.blocks:
            end = out.add(escape_markdown(block), sep="\n\n")[1]
        if s.notes:
            end = out.add(escape_markdown("Notes: " + s.notes), sep="\n\n")[1]
        regions.append(Region(RegionKind.SLIDE, start, end, page=s.number))
    if not regions:
        raise ExtractionError(rel, "the deck has no text on its slides (pictures only?)")
    if blank:
        warnings += (f"slide{'s' if len(blank) > 1 else ''} {', '.join(map(str, blank))}: "
                     "no text (a picture or a drawing), not indexed",)
    title = deck_title or next((s.title for s in slides if s.title), "") or path.stem
    return Document(
        path=rel,
        title=title,
        text=out.text(),
        media_type=media_type,
        extractor=extractor,
        extractor_version=version,
        regions=tuple(regions),
        warnings=warnings,
        headings="atx",
    )


# The PowerPoint packages read, by suffix, with their media types: a deck, one with macros
# (not run, nor read), a slide show (opens playing), a template, and each with macros
DECK_MEDIA_TYPES = {
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".pptm": "application/vnd.ms-powerpoint.presentation.macroEnabled.12",
    ".ppsx": "application/vnd.openxmlformats-officedocument.presentationml.slideshow",
    ".ppsm": "application/vnd.ms-powerpoint.slideshow.macroEnabled.12",
    ".potx": "application/vnd.openxmlformats-officedocument.presentationml.template",
    ".potm": "application/vnd.ms-powerpoint.template.macroEnabled.12",
}
# ... and the content types of their main part (python-pptx opens the first two alone)
DECK_MAIN_PARTS = (
    "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
    "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml",
    "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml",
    "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml",
    "application/vnd.ms-powerpoint.template.macroEnabled.main+xml",
)


def open_deck(path: Path) -> PresentationObject:
    """The presentation of a package whose main part is any of :data:`DECK_MAIN_PARTS`
    (``pptx.Presentation`` opens a deck's and a macro-enabled deck's alone); ValueError
    naming the content type of one that is no deck (a document renamed)."""
    return main_part(Package, PartFactory, PresentationPart, DECK_MAIN_PARTS, path,
                     "a PowerPoint deck").presentation


class PptxExtractor:
    name = "pptx"
    version = "6"  # 2: a SmartArt diagram's text is read (it was left out without a word);
    # 3: a picture's text, read by OCR, in its place among the slide's shapes;
    # 4: a picture's, a chart's, a diagram's and a group's alt text; 5: a chart says its
    # kind, series and axes after its title, as a workbook's and a Word document's do;
    # 6: an embedded workbook's rows (a document's, a deck's text) in the object's place
    suffixes = tuple(DECK_MEDIA_TYPES)

    def extract(self, path: Path, rel: str) -> Document:
        if path.stat().st_size == 0:
            raise ExtractionError(rel, "empty file (0 bytes), not a PowerPoint deck")
        suffix = path.suffix.lower()
        if not zipfile.is_zipfile(path):
            raise ExtractionError(rel, not_a_package(path, f"{suffix} file", ".ppt"))
        check_package(path, rel, "PowerPoint deck")
        warnings: list[str] = []
        pictures = PictureReader(warnings)
        try:
            prs = open_deck(path)
            slides = _read(prs, pictures)
            deck_title = squash(prs.core_properties.title or "")
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, AttributeError,
                XMLSyntaxError) as exc:
            raise ExtractionError(rel, f"not a readable PowerPoint {suffix} file ({exc})") from exc
        pictures.close()
        return deck_document(
            slides, path, rel, deck_title,
            media_type=DECK_MEDIA_TYPES.get(suffix, DECK_MEDIA_TYPES[".pptx"]),
            extractor=self.name, version=self.version, warnings=tuple(warnings))


register(PptxExtractor())
