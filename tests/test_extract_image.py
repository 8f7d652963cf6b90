"""Images of text read by OCR: screenshots and a scan made by other programs
(tests/fixtures/real, SOURCES.md) read as the page or PDF they show, checked against the
HTML and PDF readers' text of it; each line cited by its place in the picture; pictures
with no text, files that are no image and a missing OCR each say why."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageDraw, ImageFont

import doc_builders as b
from citeline import cli
from citeline.chunk import locate
from citeline.errors import ConfigError, ExtractionError, UnsupportedFormat
from citeline.extract import extractor_for, fingerprint
from citeline.extract import image as imagemod
from citeline.types import Document, RegionKind

REAL = Path(__file__).parent / "fixtures" / "real"
LINES = ["Gate 4 closes at 22:40", "Ferries to Brindle leave from pier B", "Lost tickets are not refunded"]


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.casefold()))


def share_read(reference: str, read: str) -> tuple[float, float]:
    """(the share of ``reference``'s words OCR read, the share of its words that are not
    ``reference``'s), counted with repeats."""
    ref, got = words(reference), words(read)
    found = sum(min(n, got[w]) for w, n in ref.items())
    extra = sum(max(0, n - ref[w]) for w, n in got.items())
    return found / sum(ref.values()), extra / sum(got.values())


def notice(tmp_path: Path, name: str = "notice.png", **save) -> tuple[Path, list[tuple[int, int, int, int]]]:  # type: ignore[no-untyped-def]
    """A notice of :data:`LINES`, black on white, and each line's box as drawn."""
    img = Image.new("RGB", (1100, 420), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=44)
    drawn = []
    for i, line in enumerate(LINES):
        left, top, right, bottom = draw.textbbox((60, 60 + i * 110), line, font=font)
        draw.text((60, 60 + i * 110), line, fill="black", font=font)
        drawn.append((left, top, right - left, bottom - top))
    path = tmp_path / name
    img.save(path, **save)
    return path, drawn


def overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def test_screenshots_read_as_the_page_they_show():
    """Chromium's screenshots of a page (PNG, and JPEG at quality 80) against the HTML
    reader's text of that page: 99% of its words read, under 1% of what was read not
    in it (measured: 211 of 213; "In a burst" read "Ina burst")."""
    page = extract(REAL / "irrigation-handset.html").text
    for name, media_type in (("irrigation-handset.png", "image/png"),
                             ("irrigation-handset.jpg", "image/jpeg")):
        doc = extract(REAL / name)
        found, extra = share_read(page, doc.text)
        assert found >= 0.98 and extra <= 0.01, (name, found, extra)
        assert doc.title == "irrigation-handset" and doc.media_type == media_type
        assert not doc.warnings and doc.extractor == "image"
        assert "Cut the old emitter off flush with the pipe" in doc.text
        assert {r.kind for r in doc.regions} == {RegionKind.LINE}
        assert all(doc.text[r.start:r.end].strip() for r in doc.regions)


def test_each_line_is_cited_by_the_area_it_takes(tmp_path: Path):
    """Every line is a region holding its box: the box Tesseract found is where the line
    was drawn, and a range of lines is located at the box around them (#xywh=)."""
    path, drawn = notice(tmp_path)
    doc = extract(path)
    assert [doc.text[r.start:r.end] for r in doc.regions] == LINES
    for region, box in zip(doc.regions, drawn, strict=True):
        assert region.box is not None and overlap(region.box, box) > 0.6, (region.box, box)
        assert region.page is None and region.confidence is not None and region.confidence > 80
    second, third = doc.regions[1], doc.regions[2]
    loc = locate(doc, second.start, third.end)
    x, y, w, h = loc.xywh or (0, 0, 0, 0)
    assert (x, y) == (min(second.box[0], third.box[0]), second.box[1])  # type: ignore[index]
    assert y + h == third.box[1] + third.box[3]  # type: ignore[index]
    assert loc.fragment == f"#xywh={x},{y},{w},{h}" and loc.pages == ()
    assert loc.to_json()["xywh"] == [x, y, w, h]
    assert loc.ocr_confidence == second.confidence


def test_a_multi_page_scan_reads_page_by_page():
    """A two-page Group 4 TIFF (pdftoppm + tiffcp) against the text layer of the PDF pages
    it was made from: every word but the slides' small page numbers, each line cited on
    its own page (#page=N&xywh=)."""
    doc = extract(REAL / "water-budget.tiff")
    pdf = pdfium.PdfDocument(str(REAL / "water-budget.pdf"))
    layer = [pdf[i].get_textpage().get_text_range() for i in (1, 2)]
    pdf.close()
    assert [r.page for r in doc.regions if "Agenda" in doc.text[r.start:r.end]] == [1]
    first = doc.text[: next(r.start for r in doc.regions if r.page == 2)]
    second = doc.text[len(first):]
    for on_pdf, read in zip(layer, (first, second), strict=True):
        numbers = re.findall(r"\n(\d+)$", on_pdf)  # the slide number, printed small
        found, extra = share_read(re.sub(r"\n\d+$", "", on_pdf), read)
        assert found == 1.0 and extra == 0.0, (read, found, extra)
        assert numbers and all(n not in words(read) for n in numbers)
    page2 = [r for r in doc.regions if r.page == 2]
    loc = locate(doc, page2[0].start, page2[-1].end)
    assert loc.pages == (2,) and loc.fragment.startswith("#page=2&xywh=")
    assert doc.media_type == "image/tiff" and doc.title == "water-budget"


def test_an_image_is_read_as_a_viewer_shows_it(tmp_path: Path):
    """A phone's photo is stored sideways with an EXIF orientation a viewer turns it by,
    and a screenshot may have its text on a transparent background (black once the
    transparency is dropped: black on black)."""
    upright, _ = notice(tmp_path)
    sideways = tmp_path / "sideways.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 degrees clockwise to show"
    Image.open(upright).rotate(90, expand=True).save(sideways, exif=exif, quality=95)
    doc = extract(sideways)
    assert [doc.text[r.start:r.end] for r in doc.regions] == LINES
    assert all(r.box is not None and r.box[0] + r.box[2] <= 1100 for r in doc.regions)

    clear = Image.new("RGBA", (1100, 420), (0, 0, 0, 0))  # transparent black
    ImageDraw.Draw(clear).text((60, 60), LINES[0], fill=(0, 0, 0, 255),
                               font=ImageFont.load_default(size=44))
    clear.save(tmp_path / "clear.png")
    assert extract(tmp_path / "clear.png").text == LINES[0]


def test_a_page_scanned_upside_down_is_read_turned(tmp_path: Path):
    """Fed into a scanner the wrong way up, a page reads as noise; it is read turned,
    with a warning, and its lines' boxes are still where they are in the stored image."""
    path, drawn = notice(tmp_path)
    width, height = Image.open(path).size
    Image.open(path).rotate(180).save(tmp_path / "upside-down.png")
    doc = extract(tmp_path / "upside-down.png")
    assert [doc.text[r.start:r.end] for r in doc.regions] == LINES
    assert doc.warnings == ("the image read turned 180\u00b0 clockwise: its text does not stand "
                            "the way up it is stored (scanned upside down or sideways)",)
    for region, (x, y, w, h) in zip(doc.regions, drawn, strict=True):
        assert region.box is not None and overlap(region.box, (width - x - w, height - y - h, w, h)) > 0.6
    # a PDF's scanned page too: its text is read, the warning names the page
    scan = b.scanned_image()
    pdf = tmp_path / "upside-down.pdf"
    scan.rotate(180).save(pdf, "PDF", resolution=150)
    doc = extract(pdf)
    assert all(line in doc.text for line in b.SCANNED_LINES), doc.text
    assert any(w.startswith("page 1 read turned 180\u00b0") for w in doc.warnings), doc.warnings


def test_a_sideways_page_s_warning_names_the_way_its_text_stands(tmp_path: Path):
    """Tesseract reads text lying on its right side as it is, so a page stored turned a
    quarter anticlockwise reads as well turned 180 degrees as turned 90: the warning
    names the quarter turn that stands it up. The other sideways page is read as stored,
    with no warning, its boxes the tall ones its lines take."""
    path, drawn = notice(tmp_path)
    Image.open(path).rotate(90, expand=True).save(tmp_path / "left.png")
    doc = extract(tmp_path / "left.png")
    assert [doc.text[r.start:r.end] for r in doc.regions] == LINES
    assert doc.warnings == ("the image read turned 90\u00b0 clockwise: its text does not stand "
                            "the way up it is stored (scanned upside down or sideways)",)
    Image.open(path).rotate(270, expand=True).save(tmp_path / "right.png")
    doc = extract(tmp_path / "right.png")
    assert [doc.text[r.start:r.end] for r in doc.regions] == LINES and not doc.warnings
    for region, (x, y, w, h) in zip(doc.regions, drawn, strict=True):  # stored: 420 x 1100
        assert region.box is not None and overlap(region.box, (420 - y - h, x, h, w)) > 0.6


def test_a_16_bit_scan_is_read_in_its_own_contrast(tmp_path: Path):
    """A scanner's 16-bit grey TIFF holding 12 bits (0-4095): read stretched between its
    darkest and lightest pixel, as the server's /image shows it (it failed as a damaged
    image: Pillow's autocontrast has no 16-bit mode)."""
    import numpy as np

    path, _ = notice(tmp_path)
    grey = np.asarray(Image.open(path).convert("L"), dtype=np.uint16) * 16  # 0..4080
    Image.fromarray(grey).save(tmp_path / "scan16.tif")
    assert Image.open(tmp_path / "scan16.tif").mode.startswith("I;16")
    doc = extract(tmp_path / "scan16.tif")
    assert [doc.text[r.start:r.end] for r in doc.regions] == LINES


def test_a_picture_with_no_text_is_skipped_saying_what_ocr_read(tmp_path: Path):
    blank = tmp_path / "blank.png"
    Image.new("RGB", (400, 300), "white").save(blank)
    with pytest.raises(UnsupportedFormat, match=r"no text found in the image \(a photo"):
        extract(blank)
    # a photograph of a board: its lettering is read as a few words, mostly guessed
    with pytest.raises(UnsupportedFormat, match=r"no text found in the image: OCR read [1-9] of "
                                                r"\d\d words with confidence 60 or more"):
        extract(REAL / "board-photo.jpeg")


def test_a_diagram_s_labels_are_read():
    """A diagram of labelled boxes is text enough to index: its labels are what a search
    for it would name."""
    doc = extract(REAL / "crates-diagram.png")
    for label in ("Microcontroller", "Peripheral Access", "HAL Crate", "High level of abstraction"):
        assert label in doc.text


def test_a_file_that_is_no_image_fails_saying_what_it_is(tmp_path: Path):
    page = tmp_path / "download.png"
    page.write_text("<!DOCTYPE html><html><body>Sign in to continue</body></html>")
    with pytest.raises(ExtractionError, match="not an image: it is an HTML page"):
        extract(page)
    path, _ = notice(tmp_path, "cut.png")
    path.write_bytes(path.read_bytes()[:3000])  # an interrupted copy
    with pytest.raises(ExtractionError, match="a damaged image"):
        extract(path)
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(ExtractionError, match="empty file"):
        extract(tmp_path / "empty.jpg")


def test_an_image_in_another_format_under_an_image_s_name_is_not_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Only the formats of the reader's suffixes are opened, whatever a file is named: an
    icon or an EPS drawing saved as .png is skipped naming what it is (Pillow's EPS reader
    would run Ghostscript on it), though it shows text; a PNG whose header is broken is a
    damaged PNG."""
    from PIL import EpsImagePlugin

    def no_ghostscript(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("Ghostscript was run on a file named .png")

    monkeypatch.setattr(EpsImagePlugin, "Ghostscript", no_ghostscript)
    path, _ = notice(tmp_path)
    for fmt, named in (("ICO", r"ICO, Windows Icon"), ("EPS", r"EPS, Encapsulated Postscript")):
        other = tmp_path / f"{fmt.lower()}.png"
        Image.open(path).convert("RGB").save(other, fmt)
        with pytest.raises(UnsupportedFormat, match=(
                rf"an image in a format citeline does not read \({named}\), under a \.png "
                r"name: save it as PNG or JPEG")) as info:
            extract(other)
        assert info.value.lasting
    broken = tmp_path / "broken.png"
    broken.write_bytes(path.read_bytes()[:8] + b"\x00" * 64)  # the signature, then no IHDR
    with pytest.raises(ExtractionError, match=r"a damaged PNG image, cut short or corrupt$"):
        extract(broken)


def test_tesseract_stopping_fails_the_image_saying_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import pytesseract

    path, _ = notice(tmp_path)

    def stops(image):  # type: ignore[no-untyped-def]
        raise pytesseract.TesseractError(1, "Error in pixReadMem: Unknown format")

    monkeypatch.setattr(imagemod, "read_upright", stops)
    with pytest.raises(ExtractionError, match=r"OCR failed \(\(1, 'Error in pixReadMem"):
        extract(path)


def test_a_huge_image_is_refused_before_it_is_decoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path, _ = notice(tmp_path)
    monkeypatch.setattr(imagemod, "MAX_PIXELS", 1000 * 400)
    with pytest.raises(ExtractionError, match=r"1100 x 420 pixels \(0 megapixels\), over the 0"):
        extract(path)


def test_only_an_animation_s_first_frame_is_read(tmp_path: Path):
    path, _ = notice(tmp_path)
    first = Image.open(path).convert("P")
    second = Image.new("P", first.size, 255)
    first.save(tmp_path / "notice.gif", save_all=True, append_images=[second], duration=500)
    doc = extract(tmp_path / "notice.gif")
    assert doc.text.splitlines()[0] == LINES[0]
    assert doc.warnings == ("an animated image of 2 frames: only the first is read",)


def test_without_ocr_an_image_is_skipped_saying_what_to_install(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch):
    path, _ = notice(tmp_path)
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "pytesseract is not installed: pip "
                                                        "install 'citeline[ocr]'")
    with pytest.raises(UnsupportedFormat, match=r"an image, whose text only OCR can read: "
                                                r"pytesseract is not installed"):
        extract(path)


# --- HEIC (an iPhone's photos) and AVIF ----------------------------------------------------


def test_an_iphone_s_heic_reads_as_the_png_it_was_made_from():
    """The page's screenshot saved as HEIC by pillow-heif (libheif, x265, its default
    quality: make_heic.py) reads word for word as the PNG does, each line's box within a
    pixel of the PNG's (measured: the same text, boxes equal); stored sideways with the
    rotation an iPhone writes (HEIF's irot box and EXIF orientation 6), it reads upright,
    its boxes in the picture as shown (900 x 700), not as stored (700 x 900)."""
    png = extract(REAL / "irrigation-handset.png")
    for name in ("irrigation-handset.heic", "irrigation-handset-rotated.heic"):
        doc = extract(REAL / name)
        assert doc.text == png.text, name
        assert doc.media_type == "image/heic" and doc.title == Path(name).stem
        assert not doc.warnings, (name, doc.warnings)  # not read turned: it stood upright
        assert len(doc.regions) == len(png.regions) == 18
        for ours, theirs in zip(doc.regions, png.regions, strict=True):
            assert ours.box is not None and theirs.box is not None
            assert max(abs(a - b) for a, b in zip(ours.box, theirs.box)) <= 2, (name, ours, theirs)
    stored = (REAL / "irrigation-handset-rotated.heic").read_bytes()
    assert b"irot" in stored and Image.open(REAL / "irrigation-handset-rotated.heic").size == (900, 700)


def test_a_heic_s_exif_orientation_without_irot_is_not_obeyed(tmp_path: Path):
    """HEIF turns a picture by its own irot box; an EXIF orientation is information only
    (the HEIF standard; libheif, Safari and macOS 14 ignore it, and pillow-heif sets it to
    1). A sideways picture whose only rotation is its EXIF tag is read as stored, so it
    is read turned, with a warning, its boxes in the stored picture, where /image shows
    them too."""
    assert imagemod.heif_status() is None  # pillow-heif's opener and saver registered
    upright, drawn = notice(tmp_path)
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 degrees clockwise to show"
    path = tmp_path / "exif-only.heic"
    # pillow-heif writes irot from EXIF given as bytes; from an Exif object, the tag alone
    Image.open(upright).rotate(90, expand=True).save(path, exif=exif)
    assert b"irot" not in path.read_bytes()
    doc = extract(path)
    assert [doc.text[r.start:r.end] for r in doc.regions] == LINES
    assert len(doc.warnings) == 1 and doc.warnings[0].startswith("the image read turned 90\u00b0")
    for region, (x, y, w, h) in zip(doc.regions, drawn, strict=True):  # stored: 420 x 1100
        assert region.box is not None and overlap(region.box, (y, 1100 - x - w, h, w)) > 0.6


def test_a_heif_file_s_primary_image_is_read_not_its_first(tmp_path: Path):
    """A HEIF file may hold several images (a burst, an edit and its original); the one
    it shows, its primary, need not be the first."""
    assert imagemod.heif_status() is None
    shown, _ = notice(tmp_path)
    path = tmp_path / "burst.heic"
    Image.new("RGB", (600, 300), "white").save(path, save_all=True,
                                               append_images=[Image.open(shown)], primary_index=1)
    doc = extract(path)
    assert doc.text.splitlines()[0] == LINES[0]
    assert doc.warnings == ("a HEIF file of 2 images: only its primary image is read",)


def test_a_heic_that_is_no_heic_says_what_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A JPEG under a .heic name is read as the JPEG it is, as a JPEG named .png is (Pillow
    knows a file by its bytes); bytes that are no image, or a HEIC cut short, fail saying
    so; without pillow-heif a HEIC is skipped saying what to install, and not remembered
    (installing it reads the file)."""
    jpeg = tmp_path / "IMG_0001.heic"
    jpeg.write_bytes((REAL / "irrigation-handset.jpg").read_bytes())
    doc = extract(jpeg)
    assert doc.media_type == "image/jpeg" and doc.text == extract(REAL / "irrigation-handset.jpg").text
    (tmp_path / "noise.heic").write_bytes(bytes(range(256)) * 64)
    with pytest.raises(ExtractionError, match=r"not a readable image: the file is corrupt or in "
                                              r"a format Pillow does not read"):
        extract(tmp_path / "noise.heic")
    heic = (REAL / "irrigation-handset.heic").read_bytes()
    for cut, why in ((200, r"a damaged HEIF image, cut short or corrupt \(libheif cannot read "
                           r"it\)$"),
                     (20_000, r"a damaged image, cut short or corrupt \(Invalid input: "
                              r"Unexpected end of file: .*\)$")):
        (tmp_path / "cut.heic").write_bytes(heic[:cut])
        with pytest.raises(ExtractionError, match=why):
            extract(tmp_path / "cut.heic")
    missing = "pillow-heif is not installed: pip install 'citeline[ocr]'"
    monkeypatch.setattr(imagemod, "heif_status", lambda: missing)
    with pytest.raises(UnsupportedFormat, match=r"a HEIF image \(an iPhone's photo\): "
                                                r"pillow-heif is not installed") as info:
        extract(REAL / "irrigation-handset.heic")
    assert not info.value.lasting
    # a HEIC under another name: Pillow cannot tell it without pillow-heif, its bytes can
    assert imagemod._why_not_an_image(heic, missing) == f"a HEIF image, not read: {missing}"


def test_an_avif_is_read_when_pillow_reads_avif(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Pillow 11.3 and later read AVIF themselves (libavif in their wheels); an older
    Pillow, or one built without libavif, skips it saying so."""
    assert imagemod.avif_readable()
    path, _ = notice(tmp_path)
    Image.open(path).save(tmp_path / "notice.avif", quality=90)
    doc = extract(tmp_path / "notice.avif")
    assert [doc.text[r.start:r.end] for r in doc.regions] == LINES
    assert doc.media_type == "image/avif"
    monkeypatch.setattr(imagemod, "avif_readable", lambda: False)
    with pytest.raises(UnsupportedFormat, match=r"an AVIF image, which this Pillow does not "
                                                r"read \(Pillow 11.3 or later does\)"):
        extract(tmp_path / "notice.avif")


# --- through the pipeline ------------------------------------------------------------------


@pytest.fixture(scope="module")
def indexed(index_of):  # type: ignore[no-untyped-def]
    noise = Image.effect_noise((640, 480), 64).convert("RGB")
    buf = io.BytesIO()
    noise.save(buf, format="JPEG")
    return index_of({"screens/handset.png": (REAL / "irrigation-handset.png").read_bytes(),
                     "scans/budget.tiff": (REAL / "water-budget.tiff").read_bytes(),
                     "photos/greenhouse.jpg": buf.getvalue()})


def test_an_image_is_indexed_and_its_hit_points_at_its_lines(indexed, capsys):
    idx, report = indexed
    assert sorted(report.indexed) == ["scans/budget.tiff", "screens/handset.png"]
    assert "no text found in the image" in dict(report.skipped)["photos/greenhouse.jpg"]
    text = idx.document_text("screens/handset.png")
    hit = idx.search("how do I replace a drip emitter", k=3).hits[0]
    assert hit.document == "screens/handset.png" and "insertion tool" in hit.content
    assert hit.content == text[hit.start:hit.end]
    regions = idx.store.document_regions("screens/handset.png")
    assert regions is not None
    boxes = [r.box for r in regions if r.start < hit.end and r.end > hit.start]
    x, y, w, h = hit.locator.xywh or (0, 0, 0, 0)
    assert boxes and all(x <= b[0] and y <= b[1] and b[0] + b[2] <= x + w and b[1] + b[3] <= y + h
                         for b in boxes if b is not None)
    assert cli.main(["search", "how do I replace a drip emitter", "--index", idx.location,
                     "-k", "1"]) == 0
    out = capsys.readouterr().out
    assert f"screens/handset.png#xywh={x},{y},{w},{h}" in out and "(OCR confidence" in out
    cli.main(["search", "how do I replace a drip emitter", "--index", idx.location, "-k", "1",
              "--json"])
    location = json.loads(capsys.readouterr().out)["hits"][0]["location"]
    assert location["xywh"] == [x, y, w, h] and "pages" not in location


def test_an_answer_s_sentence_points_at_its_own_lines(indexed):
    idx, _ = indexed
    ans = idx.ask("how do I stop the water in a burst")
    assert not ans.refused and ans.generator == "extractive", ans.reason
    span = next(sp for sp in ans.spans if "red main valve" in sp.text)
    chunk = ans.citations[span.citation - 1].locator
    assert span.locator.xywh is not None and chunk.xywh is not None
    sx, sy, sw, sh = span.locator.xywh
    cx, cy, cw, ch = chunk.xywh
    assert cx <= sx and cy <= sy and sx + sw <= cx + cw and sy + sh <= cy + ch
    assert sh < ch  # the sentence's line, not the chunk's paragraphs
    # the scan's two short pages are one chunk: it names both, its box is on the first
    hit = idx.search("leak findings agenda", k=2).hits[0]
    assert hit.document == "scans/budget.tiff" and hit.locator.pages == (1, 2)
    regions = idx.store.document_regions("scans/budget.tiff") or []
    first = [r.box for r in regions if r.page == 1 and r.box is not None]
    assert hit.locator.xywh == (min(b[0] for b in first), min(b[1] for b in first),
                                max(b[0] + b[2] for b in first) - min(b[0] for b in first),
                                max(b[1] + b[3] for b in first) - min(b[1] for b in first))
    assert hit.to_json()["locator"] == "#page=1&xywh=" + ",".join(map(str, hit.locator.xywh))


def test_the_worked_examples_hold():
    import doctest

    from citeline import chunk
    from citeline.extract import ocr

    for mod in (chunk, imagemod, ocr):  # chunk: the box around a range's lines
        assert doctest.testmod(mod).failed == 0, mod.__name__


def test_a_picture_skipped_for_its_content_is_not_read_again(indexed, monkeypatch):
    """Telling a photo has no text takes seconds of OCR: the next run skips the same
    content for the same reason unread, until the image reader's version changes. A skip
    that can go away (OCR not installed) is not remembered."""
    idx, _ = indexed
    docs = Path(idx.location).parent / "docs"
    read = []
    real = imagemod.read_upright
    monkeypatch.setattr(imagemod, "read_upright", lambda img: read.append(img.size) or real(img))
    report = idx.index(docs)
    assert dict(report.skipped)["photos/greenhouse.jpg"].startswith("no text found in the image")
    assert read == [] and sorted(report.unchanged) == ["scans/budget.tiff", "screens/handset.png"]
    # a copy of the photo under another name is the same content
    (docs / "photos" / "copy.jpg").write_bytes((docs / "photos" / "greenhouse.jpg").read_bytes())
    notice(docs / "photos", "notice.png")
    monkeypatch.setattr(imagemod, "ocr_status", lambda: "the tesseract program is not installed")
    report = idx.index(docs)
    skipped = dict(report.skipped)
    assert skipped["photos/copy.jpg"] == skipped["photos/greenhouse.jpg"] and read == []
    assert "whose text only OCR can read" in skipped["photos/notice.png"]
    monkeypatch.setattr(imagemod, "ocr_status", lambda: None)
    report = idx.index(docs)
    assert report.indexed == ["photos/notice.png"] and read == [(1100, 420)]
    # a new version of the reader looks again
    monkeypatch.setattr(extractor_for(docs / "photos" / "copy.jpg"), "version", "1+test")
    report = idx.index(docs)
    assert (640, 480) in read and "photos/greenhouse.jpg" in dict(report.skipped)


def test_compact_drops_the_skips_only_an_older_reader_remembered(index_of, monkeypatch,
                                                                 capsys):
    """A remembered skip is asked for by its content and its reader's version: once the
    image reader's version changes, the skip of a photograph no longer in the folder is
    never asked for again, and compact drops it; the current reader's it keeps."""
    noise = Image.effect_noise((320, 240), 64).convert("RGB")
    buf = io.BytesIO()
    noise.save(buf, format="JPEG")
    idx, report = index_of({"photos/board.jpg": buf.getvalue(),
                            "notes.md": "# Notes\n\nThe board photo is on the wall.\n"})
    assert "no text found in the image" in dict(report.skipped)["photos/board.jpg"]
    digest = fingerprint(Path(idx.location).parent / "docs" / "photos" / "board.jpg")
    reader = extractor_for(Path("board.jpg"))
    assert idx.store.skip_reason(digest, reader.name, reader.version) is not None
    assert idx.compact().skips_dropped == 0  # the reader of today asks for it
    monkeypatch.setattr(reader, "version", reader.version + "+test")
    capsys.readouterr()
    assert cli.main(["compact", "--index", idx.location]) == 0
    assert "dropped 1 remembered skips of a reader's older version" in capsys.readouterr().out
    monkeypatch.undo()
    assert idx.store.skip_reason(digest, reader.name, reader.version) is None
    assert cli.main(["compact", "--index", idx.location, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skips_dropped"] == 0


def test_a_scan_in_german_is_read_in_the_languages_the_index_names(index_of, capsys):
    """A notice in German (Chromium's screenshot of a page) read with English alone loses
    its umlauts and ß ("StraRe", "fiir"); with the index's ``ocr_languages`` set to
    deu+eng it reads as the page, and the change re-reads the documents OCR read."""
    page = extract(REAL / "hafen-aushang.html").text
    idx, report = index_of({"aushang.png": (REAL / "hafen-aushang.png").read_bytes()})
    assert report.indexed == ["aushang.png"] and idx.ocr_languages == "eng"
    assert "Straße" not in idx.document_text("aushang.png")
    english, _ = share_read(page, idx.document_text("aushang.png") or "")
    docs = Path(idx.location).parent / "docs"
    with pytest.raises(ConfigError, match=r"ocr_languages: Tesseract has no tlh language pack "
                                          r"\(it has .*deu.*\); Debian: apt-get install "
                                          r"tesseract-ocr-tlh"):
        idx.index(docs, ocr_languages="deu+tlh")
    assert idx.ocr_languages == "eng"  # a refused run changes no setting
    idx.set_ocr_languages("deu + eng")
    assert idx.ocr_languages == "deu+eng"
    (status,) = idx.status()
    assert status.state == "stale" and "|ocr:deu+eng|" in status.stale_reasons[0]
    report = idx.index(docs)
    assert report.indexed == ["aushang.png"]
    text = idx.document_text("aushang.png") or ""
    german, extra = share_read(page, text)
    assert german == 1.0 and extra == 0.0 and english < 0.9, (english, german, extra)
    assert "Die Straße zum Fähranleger ist wegen Bauarbeiten für Fußgänger gesperrt" in text
    hit = idx.search("Ist die Straße für Fußgänger gesperrt?", k=1).hits[0]
    assert hit.document == "aushang.png" and "Fußgänger" in hit.content
    assert cli.main(["status", "--index", idx.location, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ocr_languages"] == "deu+eng"
