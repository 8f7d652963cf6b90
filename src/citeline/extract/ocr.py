"""Reading text from pictures with Tesseract: a PDF's scanned pages, and images.

Tesseract runs through pytesseract (``pip install 'citeline[ocr]'``) and needs the
``tesseract`` program (Debian: ``tesseract-ocr``). Its word boxes give each line its
place in the picture, so a citation can point at the lines it quotes.
"""

from __future__ import annotations

import functools
import re
import shutil
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from PIL.Image import Image

# Debian's tesseract-ocr package ships English ("eng") as its default model.
OCR_LANG = "eng"

# What Tesseract may put in a word that is no text: control characters, and the
# replacement character of a byte it could not decode.
_NOT_TEXT = re.compile(r"[\x00-\x1f\x7f\ufeff\ufffd]")


@functools.cache
def _probe() -> str | None:
    try:
        import PIL  # noqa: F401
        import pytesseract  # noqa: F401
    except ImportError:
        return "pytesseract is not installed: pip install 'citeline[ocr]'"
    if shutil.which("tesseract") is None:
        return "the tesseract program is not installed: apt-get install tesseract-ocr"
    return None


def ocr_status() -> str | None:
    """None when OCR can run, else why not (shown in warnings, failures and skips)."""
    return _probe()


class Line(NamedTuple):
    """One line Tesseract read: its words, their confidences (0..100), and where it is."""

    paragraph: tuple[int, int]  # Tesseract's (block, paragraph): lines of one go together
    words: tuple[str, ...]
    confidences: tuple[float, ...]
    box: tuple[int, int, int, int]  # x, y, width, height in the picture's pixels

    @property
    def text(self) -> str:
        return " ".join(self.words)


def read_lines(image: Image) -> list[Line]:
    """The lines of text Tesseract finds in ``image``, in its reading order."""
    import pytesseract

    data = pytesseract.image_to_data(image, lang=OCR_LANG, output_type=pytesseract.Output.DICT)
    found: dict[tuple[int, int, int], list[int]] = {}
    for i, word in enumerate(data["text"]):
        # conf -1 marks a layout box (a block, a line), not a word
        if _NOT_TEXT.sub("", word).strip() and float(data["conf"][i]) >= 0:
            key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
            found.setdefault(key, []).append(i)
    lines = []
    for (block, par, _), at in sorted(found.items()):
        left = min(data["left"][i] for i in at)
        top = min(data["top"][i] for i in at)
        right = max(data["left"][i] + data["width"][i] for i in at)
        bottom = max(data["top"][i] + data["height"][i] for i in at)
        lines.append(Line(
            paragraph=(block, par),
            words=tuple(_NOT_TEXT.sub("", data["text"][i]).strip() for i in at),
            confidences=tuple(float(data["conf"][i]) for i in at),
            box=(left, top, right - left, bottom - top),
        ))
    return lines


def mean_confidence(lines: list[Line]) -> float | None:
    """The mean confidence of the lines' words (one decimal), None with no word."""
    confs = [c for line in lines for c in line.confidences]
    return round(sum(confs) / len(confs), 1) if confs else None
