"""Images of text (a scanned page, a photographed notice, a screenshot), read by OCR.

Canonical text = the lines Tesseract reads (:mod:`citeline.extract.ocr`), in its reading
order, a blank line between its paragraphs, and between the pages of a multi-page TIFF
(what scanners and fax software write). Each line is a :class:`Region` of kind LINE
holding its box in the picture, so a chunk's locator is the area its lines take,
``#xywh=x,y,width,height`` in the image's pixels (W3C Media Fragments' spatial
dimension; ``#page=N&xywh=...`` in a multi-page TIFF), with the page's mean word
confidence, as a scanned PDF page's citation carries its page's. The image is read as a
viewer shows it: turned by its EXIF orientation (a phone's photo), transparency on
white (a screenshot's text on a transparent background is not black on black).

An iPhone saves its photos as HEIC (HEIF holding HEVC), which Pillow reads through the
pillow-heif plugin (:func:`heif_status` registers it on first use). libheif turns the
picture by the container's own rotation and mirroring (``irot``, ``imir``), as Safari
and macOS show it, and pillow-heif sets the EXIF orientation to 1 so that it is not
applied twice; an EXIF orientation with no ``irot`` is ignored, as the HEIF standard
says (such a sideways picture is read turned, below). AVIF is read by Pillow itself
(11.3 or later, built with libavif).

An image is a document when OCR finds text in it: at least
:data:`~citeline.extract.ocr.MIN_TEXT_WORDS` words read with confidence
:data:`~citeline.extract.blocks.LOW_OCR_CONFIDENCE` or more, and at least half of its
words; one whose text does not read upright is read turned (a page scanned upside down,
:func:`~citeline.extract.ocr.read_upright`), with a warning. Anything else (a photo, an icon, a chart whose few labels
Tesseract misreads) is skipped, saying how many words OCR read: it would add nothing but
noise to a search. Only the first frame of an animated GIF, PNG or WebP is read.

Without OCR installed an image is skipped, saying what to install.
"""

from __future__ import annotations

import functools
import hashlib
import io
import warnings as py_warnings
from pathlib import Path
from typing import TYPE_CHECKING

from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import read_bytes, register
from citeline.extract.blocks import LOW_OCR_CONFIDENCE, metadata_title
from citeline.extract.ocr import (
    Line,
    holds_text,
    mean_confidence,
    ocr_status,
    read_upright,
    read_upright_once,
    sure_words,
    turned_warning,
)
from citeline.types import Document, Region, RegionKind

if TYPE_CHECKING:
    from PIL.Image import Image

# HEIF: an iPhone's photos (.heic: HEVC inside); read once pillow-heif is installed
HEIF_SUFFIXES = (".heic", ".heif")
SUFFIXES = (".png", ".jpg", ".jpeg", ".jpe", ".jfif", ".tif", ".tiff", ".gif", ".bmp", ".webp",
            ".avif", *HEIF_SUFFIXES)
# What the reader opens, by Pillow's names: the formats of SUFFIXES (Pillow's JPEG opener
# reads an MPO, a camera's multi-picture JPEG, too; HEIF once pillow-heif's opener is
# registered), whatever the file is named, and none of the others Pillow has: its EPS
# reader runs Ghostscript on the file, and an icon or a Photoshop file under a .png name
# is not what its name says. The server's /image shows the same formats.
FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF", "AVIF", "HEIF")
# Pillow's own guard against decompression bombs warns from 89.5 megapixels (a 1 kB PNG
# can claim 50,000 x 50,000 pixels: 7.5 GB to decode); a phone's 48-megapixel photo is
# well under it, a scan of an A0 drawing at 300 dpi (140 megapixels) is not.
MAX_PIXELS = 89_478_485
# Files saved under an image's name that are something else, by their first bytes.
_NOT_IMAGE = (
    (b"%PDF-", "a PDF document; give it its .pdf suffix"),
    (b"<svg", "an SVG drawing; give it its .svg suffix"),
    (b"<?xml", "an XML file (an SVG drawing? give it its .svg suffix)"),
    (b"<!doctype html", "an HTML page (a link that answered with a web page); download the "
                        "image itself"),
    (b"<html", "an HTML page (a link that answered with a web page); download the image itself"),
    (b"PK\x03\x04", "a ZIP archive or an Office document"),
)
# A HEIF file's major brand, after "ftyp", the name of an ISO base media file's first box
_HEIF_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1")


class ImageExtractor:
    name = "image"
    version = "2"
    suffixes = SUFFIXES

    def extract(self, path: Path, rel: str) -> Document:
        missing = ocr_status()
        if missing is not None:
            raise UnsupportedFormat(rel, f"an image, whose text only OCR can read: {missing}")
        suffix = path.suffix.lower()
        heif = heif_status()  # registers the HEIF opener, for a HEIC under any name
        if suffix in HEIF_SUFFIXES and heif is not None:
            raise UnsupportedFormat(rel, f"a HEIF image (an iPhone's photo): {heif}")
        if suffix == ".avif" and not avif_readable():
            raise UnsupportedFormat(rel, "an AVIF image, which this Pillow does not read "
                                         "(Pillow 11.3 or later does): pip install -U pillow")
        import pytesseract
        from PIL import Image as PILImage
        from PIL import UnidentifiedImageError

        data = read_bytes(path, rel)
        warnings: list[str] = []
        try:
            with py_warnings.catch_warnings():  # over MAX_PIXELS is refused below, with its size
                py_warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
                img = PILImage.open(io.BytesIO(data), formats=opened_formats())
            with img:
                pages = _pages(img, rel, warnings)
                title = _metadata_title(img)
                # its own type (a HEIC's image/heic; Pillow's format names HEIF at large)
                media_type = img.get_format_mimetype() or "image/" + suffix[1:]
        except PILImage.DecompressionBombError as exc:  # twice Pillow's limit, refused at open
            raise ExtractionError(rel, f"the image is too large to read ({exc})") from exc
        except UnidentifiedImageError as exc:
            if (other := _other_format(data)) is not None:
                raise UnsupportedFormat(rel, (
                    f"an image in a format citeline does not read ({other}), under a "
                    f"{suffix} name: save it as PNG or JPEG"), lasting=True) from exc
            raise ExtractionError(rel, _why_not_an_image(data, heif)) from exc
        except pytesseract.TesseractError as exc:  # Tesseract itself stopped on the picture
            raise ExtractionError(rel, f"OCR failed ({exc})") from exc
        except (OSError, SyntaxError, ValueError) as exc:  # Pillow's words for a damaged file
            # (libheif's messages end in a newline)
            raise ExtractionError(rel, "a damaged image, cut short or corrupt "
                                       f"({str(exc).strip()})") from exc
        every = [line for lines in pages for line in lines]
        if not holds_text(every):
            words, sure = sum(len(line.words) for line in every), sure_words(every)
            raise UnsupportedFormat(rel, (
                f"no text found in the image: OCR read {sure} of {words} words with "
                f"confidence {LOW_OCR_CONFIDENCE:g} or more (a photo or a drawing is not indexed)"
                if words else "no text found in the image (a photo or a drawing is not indexed)"),
                lasting=True)
        text, regions = _text(pages)
        low = [(n, c) for n, lines in enumerate(pages, 1)
               if (c := mean_confidence(lines)) is not None and c < LOW_OCR_CONFIDENCE]
        if low:
            where = (", ".join(f"page {n} ({c:g})" for n, c in low) if len(pages) > 1
                     else f"mean word confidence {low[0][1]:g}")
            warnings.append(f"low OCR confidence (under {LOW_OCR_CONFIDENCE:g}): {where}; "
                            "citations from it are flagged")
        own, named = metadata_title(title, path.stem) if title else (None, None)
        return Document(
            path=rel,
            title=own or named or path.stem,
            text=text,
            media_type=media_type,
            extractor=self.name,
            extractor_version=self.version,
            regions=tuple(regions),
            warnings=tuple(warnings),
            headings="none",
        )


def picture_text(data: bytes, where: str, warnings: list[str]) -> str | None:
    """The text OCR reads in a picture a document holds (a screenshot in a Word
    document), by the image reader's rules: its lines, a blank line between Tesseract's
    paragraphs; "" when it holds no text by :func:`~citeline.extract.ocr.holds_text` (a
    logo, a photo) or cannot be read (damaged, over :data:`MAX_PIXELS`: a warning naming
    ``where``); None when it is in no format of :data:`FORMATS` (a Windows metafile, an
    SVG: the caller counts those). Only the first page or frame is read; OCR must be
    available (:func:`~citeline.extract.ocr.ocr_status`)."""
    import pytesseract
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    try:
        with py_warnings.catch_warnings():
            py_warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
            img = PILImage.open(io.BytesIO(data), formats=opened_formats())
        with img:
            if (why := _too_large(img)) is not None:
                warnings.append(f"{where}: {why}; not read")
                return ""
            lines, turn = read_upright_once(_as_shown(img), hashlib.sha256(data).hexdigest())
    except UnidentifiedImageError:
        return None
    except PILImage.DecompressionBombError:
        warnings.append(f"{where}: too large to read; not read")
        return ""
    except pytesseract.TesseractError as exc:
        warnings.append(f"{where}: OCR failed ({exc}); not read")
        return ""
    except (OSError, SyntaxError, ValueError) as exc:
        warnings.append(f"{where}: a damaged image ({str(exc).strip()}); not read")
        return ""
    if not holds_text(lines):
        return ""
    if turn:
        warnings.append(turned_warning(where, turn))
    return _text([lines])[0]


class PictureReader:
    """The text of the pictures one document holds (a Word document's screenshots, a
    deck's pasted scans), each read once by content by :func:`picture_text`, however
    often the document shows it. What is not read is said once, at :meth:`close`, in
    ``warnings``: pictures in formats Pillow does not read here (Windows metafiles), or
    every picture when OCR is not installed. An SVG picture's words are text, read
    without OCR (:func:`citeline.extract.svg.drawing_text`)."""

    def __init__(self, warnings: list[str]) -> None:
        self.warnings = warnings
        self.read: dict[str, str] = {}  # by content
        self.other: dict[str, int] = {}  # pictures not read, by format
        self.no_ocr = 0
        self.shown = 0

    def text(self, data: bytes, name: str) -> str:
        """The text of the picture ``data`` (``name``: its file name in the document's
        package, for a warning), "" for none."""
        self.shown += 1
        key = hashlib.sha256(data).hexdigest()
        if key not in self.read:
            self.read[key] = self._read(data, name)
        return self.read[key]

    def _read(self, data: bytes, name: str) -> str:
        base = name.rsplit("/", 1)[-1]
        where = f"picture {self.shown} ({base})"
        if drawing_format(data) == "SVG":  # its words are text: read without OCR
            from citeline.extract import svg

            try:
                return svg.drawing_text(svg.parse(data))
            except ValueError as exc:
                self.warnings.append(f"{where}: {exc}; not read")
                return ""
        if ocr_status() is not None:
            self.no_ocr += 1
            return ""
        text = picture_text(data, where, self.warnings)
        if text is None:
            if (kind := drawing_format(data)) is not None:
                self.other[kind] = self.other.get(kind, 0) + 1
            else:  # named as a picture, and none: damaged, or another kind of file
                self.warnings.append(f"{where}: {why_not_an_image(data)}; not read")
            return ""
        return text

    def not_read(self, kind: str) -> None:
        """Count a picture the document holds in a format not read for text (``kind``:
        ``EMF``; a metafile a Word 97-2003 file stores compressed), said at :meth:`close`."""
        self.shown += 1
        self.other[kind] = self.other.get(kind, 0) + 1

    def damaged(self, why: str) -> None:
        """Say a picture the document shows cannot be found in it (``why``: its record
        runs past its stream); the document is read without it."""
        self.shown += 1
        self.warnings.append(f"picture {self.shown}: {why} (a damaged file); not read")

    def close(self) -> None:
        if self.no_ocr:
            self.warnings.append(f"{_pictures(self.no_ocr)} not read for their text: "
                                 f"{ocr_status()}")
        if self.other:
            kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.other.items()))
            self.warnings.append(f"{_pictures(sum(self.other.values()))} in a format citeline "
                                 f"does not read for text ({kinds}): not read")


def drawing_format(data: bytes) -> str | None:
    """The format of a picture Pillow does not read here, by its content, as a document
    holds one: ``WMF`` or ``EMF`` (Windows metafiles), ``SVG``, another format Pillow
    knows (``ICO``); None for no picture at all (damaged, or another kind of file)."""
    if data[40:44] == b" EMF":  # an EMF header's signature (Pillow names both WMF)
        return "EMF"
    if (other := _other_format(data)) is not None:
        return other.split(",")[0]
    head = data[:512].lstrip().lower()
    return "SVG" if head.startswith(b"<svg") or head.startswith(b"<?xml") and b"<svg" in head \
        else None


def why_not_an_image(data: bytes) -> str:
    """Why Pillow does not open ``data``, a picture in a document or an attachment that
    is no picture :data:`FORMATS` holds (damaged, or another kind of file)."""
    return _why_not_an_image(data, heif_status())


def _pictures(n: int) -> str:
    return f"{n} picture{'s' if n != 1 else ''}"


def _pages(img: Image, rel: str, warnings: list[str]) -> list[list[Line]]:
    """The lines OCR reads on each page (:func:`page_count`): a multi-page TIFF's every
    page, else the image as opened (an animation's first frame; a HEIF file's primary
    image, which need not be its first)."""
    if (why := _too_large(img)) is not None:
        raise ExtractionError(rel, why)
    frames = getattr(img, "n_frames", 1)
    if frames > 1 and img.format == "HEIF":
        warnings.append(f"a HEIF file of {frames} images: only its primary image is read")
    elif frames > 1 and img.format != "TIFF":
        warnings.append(f"an animated image of {frames} frames: only the first is read")
    frames = page_count(img)
    pages = []
    for n in range(frames):
        if frames > 1:
            img.seek(n)
        lines, turn = read_upright(_as_shown(img))
        if turn:
            warnings.append(turned_warning(f"page {n + 1}" if frames > 1 else "the image", turn))
        pages.append(lines)
    return pages


def _too_large(img: Image) -> str | None:
    """Why ``img`` is not read for its size (over :data:`MAX_PIXELS`), or None."""
    if img.width * img.height <= MAX_PIXELS:
        return None
    return (f"the image is {img.width} x {img.height} pixels "
            f"({img.width * img.height / 1e6:.0f} megapixels), over the "
            f"{MAX_PIXELS / 1e6:.0f} citeline reads (a decompression bomb, or a huge scan: "
            "scale it down)")


def page_count(img: Image) -> int:
    """How many pages an opened image has as a document: a TIFF's pages (a scanner's
    multi-page file), else one (an animation's frames and a HEIF file's other images are
    not pages). The server's ``/image`` shows them by the same count."""
    return getattr(img, "n_frames", 1) if img.format == "TIFF" else 1


def upright(img: Image) -> Image:
    """The current page turned by its EXIF orientation, as a viewer shows it: where an
    image's OCR boxes are, and what the server's ``/image`` shows."""
    from PIL import ImageOps

    with py_warnings.catch_warnings():  # a broken EXIF block is no reason to stop
        py_warnings.simplefilter("ignore")
        return ImageOps.exif_transpose(img)


def deep_grey_as_8_bit(img: Image) -> Image:
    """A 16- or 32-bit grey or float image (a scan, a microscope's picture) as 8-bit grey,
    stretched between its darkest and lightest pixel (a 12-bit scan in a 16-bit file
    would read, and show, nearly black otherwise); any other image as it is.

    >>> from PIL import Image
    >>> deep_grey_as_8_bit(Image.new("I;16", (2, 1), 1000)).getextrema()
    (0, 0)
    """
    if not (img.mode.startswith("I") or img.mode == "F"):
        return img
    lo, hi = img.getextrema()
    scale = 255 / (hi - lo) if hi > lo else 1.0
    return img.convert("F").point(lambda v: (v - lo) * scale).convert("L")


def _as_shown(img: Image) -> Image:
    """The image as a viewer shows it, in a mode Tesseract reads: turned by its EXIF
    orientation, deep greys in 8 bits, and anything transparent laid on white."""
    from PIL import Image as PILImage

    shown = deep_grey_as_8_bit(upright(img))
    if shown.mode in ("1", "L", "RGB"):
        return shown
    if shown.mode in ("RGBA", "LA", "PA", "P", "RGBa", "La") or "transparency" in shown.info:
        rgba = shown.convert("RGBA")
        return PILImage.alpha_composite(PILImage.new("RGBA", rgba.size, "white"), rgba).convert("RGB")
    return shown.convert("RGB")  # CMYK, YCbCr ...


def _text(pages: list[list[Line]]) -> tuple[str, list[Region]]:
    """The canonical text of the pages' lines, and a LINE region for each line."""
    parts: list[str] = []
    regions: list[Region] = []
    at = 0
    for n, lines in enumerate(pages, 1):
        confidence = mean_confidence(lines)
        for i, line in enumerate(lines):
            if parts:
                gap = "\n" if i and line.paragraph == lines[i - 1].paragraph else "\n\n"
                parts.append(gap)
                at += len(gap)
            parts.append(line.text)
            regions.append(Region(RegionKind.LINE, at, at + len(line.text),
                                  page=n if len(pages) > 1 else None,
                                  confidence=confidence, box=line.box))
            at += len(line.text)
    return "".join(parts), regions


def _metadata_title(img: Image) -> str:
    """The title the image's metadata gives: a PNG's Title text, else the TIFF or EXIF
    ImageDescription; "" when none."""
    title = img.info.get("Title")
    if isinstance(title, str) and title.strip():
        return title
    try:
        description = img.getexif().get(270)  # ImageDescription
    except Exception:  # noqa: BLE001 - a damaged EXIF block names nothing
        return ""
    return description if isinstance(description, str) else ""


def _why_not_an_image(data: bytes, heif: str | None) -> str:
    """Why Pillow does not open ``data`` as an image of :data:`FORMATS`: what it is, when
    its first bytes say. ``heif``: why HEIF is not read (:func:`heif_status`), None when
    it is."""
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return (f"a HEIF image, not read: {heif}" if heif is not None
                else "a damaged HEIF image, cut short or corrupt (libheif cannot read it)")
    head = data[:512].lstrip().lower()
    for magic, what in _NOT_IMAGE:
        if head.startswith(magic.lower()):
            return f"not an image: it is {what}"
    if (own := _signature(data, FORMATS)) is not None:  # its header does not parse
        return f"a damaged {own[0]} image, cut short or corrupt"
    return "not a readable image: the file is corrupt or in a format Pillow does not read"


def _other_format(data: bytes) -> str | None:
    """The format of an image that is none of :data:`FORMATS` (an icon, an EPS drawing,
    a Photoshop file saved under an image's name), as Pillow's signatures name it: "ICO,
    Windows Icon"; None when its first bytes are no other format Pillow knows."""
    from PIL import Image as PILImage

    PILImage.init()
    found = _signature(data, tuple(n for n in PILImage.OPEN if n not in FORMATS))
    return None if found is None else ", ".join(n for n in found if n)


def _signature(data: bytes, formats: tuple[str, ...]) -> tuple[str, str] | None:
    """The first of Pillow's ``formats`` whose signature check accepts the start of
    ``data`` (the 16 bytes Pillow itself reads to choose an opener; nothing is
    decoded), as (name, Pillow's description or ""); None when none does. Formats Pillow
    knows by no signature (Targa, for one) are never named."""
    from PIL import Image as PILImage

    PILImage.init()
    for name in formats:
        factory, accept = PILImage.OPEN.get(name, (None, None))
        try:
            if accept is not None and accept(data[:16]):
                return name, getattr(factory, "format_description", None) or ""
        except Exception:  # noqa: BLE001, S112 - a check that cannot tell says no
            continue
    return None


@functools.cache
def heif_status() -> str | None:
    """None once Pillow opens HEIF images (pillow-heif's opener, registered on the first
    call), else why it cannot. Lazy: importing pillow-heif loads libheif, which a
    collection without a HEIC never needs."""
    try:
        import pillow_heif
    except ImportError:
        return "pillow-heif is not installed: pip install 'citeline[ocr]'"
    pillow_heif.register_heif_opener()
    return None


def opened_formats() -> tuple[str, ...]:
    """The formats of :data:`FORMATS` this Pillow opens, to pass to ``Image.open``: HEIF
    once pillow-heif is installed (registered here, :func:`heif_status`), AVIF with a
    Pillow that reads it. Pillow's open fails with a KeyError, not as for a file it does
    not know, when asked for a format it has no opener for."""
    from PIL import Image as PILImage

    heif_status()
    PILImage.init()
    return tuple(f for f in FORMATS if f in PILImage.OPEN)


def avif_readable() -> bool:
    """Whether this Pillow reads AVIF (11.3 or later, built with libavif)."""
    from PIL import features

    return "avif" in features.modules and bool(features.check_module("avif"))


register(ImageExtractor())
