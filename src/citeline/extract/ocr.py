"""Reading text from pictures with Tesseract: a PDF's scanned pages, and images.

Tesseract runs through pytesseract (``pip install 'citeline[ocr]'``) and needs the
``tesseract`` program (Debian: ``tesseract-ocr``). Its word boxes give each line its
place in the picture, so a citation can point at the lines it quotes.
"""

from __future__ import annotations

import functools
import re
import shutil
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, NamedTuple

from citeline.errors import ConfigError
from citeline.extract.blocks import LOW_OCR_CONFIDENCE

if TYPE_CHECKING:
    from PIL.Image import Image

# The Tesseract language packs a picture is read with, "+"-joined as Tesseract takes
# them: an index's ``ocr_languages`` setting, which the pipeline sets around each file
# it reads (:func:`reading_in`). Debian's tesseract-ocr ships English ("eng").
DEFAULT_LANGUAGES = "eng"
_languages: ContextVar[str] = ContextVar("ocr_languages", default=DEFAULT_LANGUAGES)
# Tesseract's pack names: ISO 639-2 codes, some with a script or variant ("chi_sim",
# "deu_latf"), and whole scripts ("script/Latin" is not offered: a pack file's name).
_LANGUAGE = re.compile(r"[a-z]{3}(?:_[a-z]+)?")
# A picture holds text when at least this many of its words, and half of them, are read
# with confidence LOW_OCR_CONFIDENCE or more: fewer is a logo's name, an icon's "~".
MIN_TEXT_WORDS = 3
# The turns (clockwise, in degrees) tried on a picture whose text does not read upright:
# a page fed into a scanner upside down, a sideways photo without an EXIF orientation.
# Tesseract itself reads text lying one way on its side (turned 90 degrees clockwise), so
# a picture stored turned 90 degrees anticlockwise reads as well turned 180 as turned 90,
# and one upside down as well turned 270 as turned 180: of turns that read equally well,
# the first in this order is the way the text stands, and the one a warning names.
TURNS = (90, 180, 270)

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


@functools.cache
def installed_languages() -> frozenset[str]:
    """The language packs the tesseract program has (``tesseract --list-langs``)."""
    import pytesseract

    return frozenset(pytesseract.get_languages(config=""))


def checked_languages(languages: str) -> str:
    """``languages`` ("eng+deu", "deu, eng") as Tesseract takes them, each pack checked
    to be one it has (when OCR is installed at all); ConfigError naming the setting,
    the pack and how to install it otherwise.

    >>> checked_languages(" eng ")
    'eng'
    >>> checked_languages("English")
    Traceback (most recent call last):
    ...
    citeline.errors.ConfigError: ocr_languages: 'English' is no Tesseract language pack name (three lower-case letters, as eng, deu, fra, or a pack such as chi_sim), joined by '+'
    """
    packs = [p for p in re.split(r"[+,\s]+", languages.strip()) if p]
    for pack in packs:
        if not _LANGUAGE.fullmatch(pack):
            raise ConfigError(
                f"ocr_languages: {pack!r} is no Tesseract language pack name (three lower-case "
                "letters, as eng, deu, fra, or a pack such as chi_sim), joined by '+'")
    if not packs:
        raise ConfigError("ocr_languages: empty; name at least one language pack, as eng")
    if ocr_status() is None:
        have = installed_languages()
        missing = [p for p in packs if p not in have]
        if missing:
            debian = " ".join("tesseract-ocr-" + p.replace("_", "-") for p in missing)
            raise ConfigError(
                f"ocr_languages: Tesseract has no {', '.join(missing)} language pack (it has "
                f"{', '.join(sorted(have))}); Debian: apt-get install {debian}")
    return "+".join(dict.fromkeys(packs))


def signature(languages: str) -> str:
    """What reading in ``languages`` adds to a version that OCR output depends on (the
    pipeline's, a remembered skip's): nothing for English, so indexes that read English
    keep the versions they had.

    >>> signature("eng"), signature("deu+eng")
    ('', '|ocr:deu+eng')
    """
    return "" if languages == DEFAULT_LANGUAGES else f"|ocr:{languages}"


def languages() -> str:
    """The language packs pictures are read with here (:func:`reading_in`)."""
    return _languages.get()


@contextmanager
def reading_in(languages: str) -> Iterator[None]:
    """Read pictures with ``languages`` (an index's ``ocr_languages``) inside the block."""
    token = _languages.set(languages)
    try:
        yield
    finally:
        _languages.reset(token)


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

    data = pytesseract.image_to_data(image, lang=_languages.get(),
                                     output_type=pytesseract.Output.DICT)
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


def sure_words(lines: list[Line]) -> int:
    """How many of the lines' words were read with confidence LOW_OCR_CONFIDENCE or more."""
    return sum(c >= LOW_OCR_CONFIDENCE for line in lines for c in line.confidences)


def holds_text(lines: list[Line]) -> bool:
    """Whether the lines are text (:data:`MIN_TEXT_WORDS`), not guesses at a picture."""
    sure = sure_words(lines)
    return sure >= MIN_TEXT_WORDS and 2 * sure >= sum(len(line.words) for line in lines)


def read_upright(image: Image) -> tuple[list[Line], int]:
    """The lines of ``image`` read the way up its text stands, and the clockwise turn (0,
    90, 180 or 270 degrees) that stood it up. A picture whose first reading holds no
    text, or text read with low confidence, is read again turned each way (:data:`TURNS`);
    the turn that reads the most confident words is kept when it holds text and reads at
    least twice the confident words of the first reading. Boxes are in ``image``'s own
    pixels whichever way it was read."""
    lines = read_lines(image)
    if sum(len(line.words) for line in lines) < MIN_TEXT_WORDS:
        return lines, 0  # nothing to stand up: an icon, a blank page, a photo of a wall
    if holds_text(lines) and (mean_confidence(lines) or 0) >= LOW_OCR_CONFIDENCE:
        return lines, 0
    best, turn = lines, 0
    enough = 2 * max(1, sure_words(lines))
    for angle in TURNS:
        turned = read_lines(image.rotate(-angle, expand=True))  # Pillow turns anticlockwise
        sure = sure_words(turned)
        if holds_text(turned) and sure >= enough and (not turn or sure > sure_words(best)):
            best, turn = turned, angle
    if turn:
        best = [line._replace(box=unturned(line.box, turn, image.size)) for line in best]
    return best, turn


# What read_upright read in a document's picture, by the picture's content and the
# languages read with: a picture that recurs across the documents of a folder (a deck
# template's logo, one screenshot pasted into several reports) is read once a run, not
# once a document. Bounded: the least recently used reading is forgotten first.
REMEMBERED_READINGS = 512
_readings: OrderedDict[tuple[str, str], tuple[tuple[Line, ...], int]] = OrderedDict()
_readings_lock = threading.Lock()


def read_upright_once(image: Image, digest: str) -> tuple[list[Line], int]:
    """:func:`read_upright` of ``image``, whose file's SHA-256 is ``digest``: read again
    only when no picture of that content was among the last :data:`REMEMBERED_READINGS`
    read with the same languages (Tesseract reads the same pixels the same way)."""
    key = (digest, _languages.get())
    with _readings_lock:
        if key in _readings:
            _readings.move_to_end(key)
            lines, turn = _readings[key]
            return list(lines), turn
    lines, turn = read_upright(image)
    with _readings_lock:
        _readings[key] = (tuple(lines), turn)
        while len(_readings) > REMEMBERED_READINGS:
            _readings.popitem(last=False)
    return lines, turn


def turned_warning(where: str, turn: int) -> str:
    """The warning for ``where`` (``page 3``, ``the image``) read turned by ``turn``."""
    return (f"{where} read turned {turn}\u00b0 clockwise: its text does not stand the way "
            "up it is stored (scanned upside down or sideways)")


def unturned(box: tuple[int, int, int, int], turn: int,
             size: tuple[int, int]) -> tuple[int, int, int, int]:
    """``box`` (x, y, width, height) found in a picture of ``size`` (width, height) turned
    clockwise by ``turn`` degrees, in the picture as it is.

    >>> unturned((10, 20, 30, 5), 180, (100, 50))
    (60, 25, 30, 5)
    >>> unturned((10, 20, 30, 5), 90, (100, 50))
    (20, 10, 5, 30)
    >>> unturned((10, 20, 30, 5), 270, (100, 50))
    (75, 10, 5, 30)
    """
    x, y, w, h = box
    width, height = size
    if turn == 180:
        return width - x - w, height - y - h, w, h
    if turn == 90:  # the picture's left edge became the top
        return y, height - x - w, h, w
    if turn == 270:  # its right edge became the top
        return width - y - h, x, h, w
    return box


def mean_confidence(lines: list[Line]) -> float | None:
    """The mean confidence of the lines' words (one decimal), None with no word."""
    confs = [c for line in lines for c in line.confidences]
    return round(sum(confs) / len(confs), 1) if confs else None
