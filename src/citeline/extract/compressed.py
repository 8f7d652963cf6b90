"""Compressed documents: ``NEWS.md.gz`` is read as ``NEWS.md``, by the Markdown reader.

Debian compresses every document over 4 KB under /usr/share/doc (``NEWS.md.gz``,
``manual.pdf.gz``, ``FAQ.html.gz``), and exports and logs are kept as ``.gz``. A file
named for one of :data:`CODECS` is decompressed into a temporary folder under its
name less that suffix, and the extractor of that name's type
(:func:`citeline.extract.type_suffix`: ``bind.html.en.gz`` is a page) reads it as it
reads the plain file, told the user's name (``rel``) for its reasons. Every
extractor takes a path, and some read their file themselves (PDFium, the zip-based
formats), so a file, not bytes, is what each is given; the folder goes when it
returns or fails.

So the document is the decompressed file: its canonical text, its ``#char=`` and
``#page=`` offsets, its title, its media type (``text/markdown``: what the content
is, as HTTP keeps a ``Content-Encoding`` apart from the ``Content-Type``), and its
extractor's name and version (``text`` for ``NEWS.md.gz``: bumping that reader
re-reads the compressed files too) are the plain file's; its name says it was
compressed. Its fingerprint is the decompressed content's (:func:`content_hash`):
compressed again with a new gzip header time, unchanged text is not read again.

Not read: a compressed copy beside its plain file (a web server's precompressed
``index.html.gz`` next to ``index.html``: the plain file is the document); a tar
archive (``.tar.gz``, ``.tgz``), many files and no document; a compressed recording
(a recording is never read: its transcript beside it is); a compressed file within a
compressed file (``a.md.gz.gz``); and a name with no type under the suffix
(``data.gz``), as ``data`` itself is not (see :func:`citeline.extract.why_unsupported`;
``README.gz`` is read, as ``README`` is).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract.blocks import MAX_UNPACKED
from citeline.types import Document

if TYPE_CHECKING:
    from citeline.extract import Extractor


class Codec(NamedTuple):
    """A compression: its name as a reason gives it, and a reader decompressing a file
    opened for binary reading."""

    name: str
    reader: Callable[[IO[bytes]], IO[bytes]]


# The stdlib's three: gzip is what Debian, logrotate and most exports write; bzip2 and
# xz (lzma) cost one line each here and compress the same kinds of files.
CODECS: dict[str, Codec] = {
    ".gz": Codec("gzip", lambda f: gzip.GzipFile(fileobj=f, mode="rb")),
    ".bz2": Codec("bzip2", lambda f: bz2.BZ2File(f)),
    ".xz": Codec("xz", lambda f: lzma.LZMAFile(f)),
}
# A tar archive holds files, not a document: named so compressed (.tar.gz) or not, or
# by its short names.
ARCHIVE_SUFFIXES = frozenset({".tar", ".tgz", ".taz", ".tbz", ".tbz2", ".txz"})

# The most a compressed file may decompress to: what an Office package may unpack to
# (blocks.MAX_UNPACKED, 1 GiB), the most citeline reads of one file. Checked as it
# decompresses, a block at a time, so a decompression bomb (gzip packs zeros 1000 to 1:
# a 1 MB file of 1 GB, or of a TB) costs at most this much temporary disk (TMPDIR) and
# a block of memory before it is refused.
MAX_DECOMPRESSED = MAX_UNPACKED
BLOCK = 1 << 20  # bytes decompressed at a time

# What a damaged stream raises: gzip's BadGzipFile and bzip2's "Invalid data stream"
# (OSErrors without an errno), zlib's error inside a gzip member, xz's LZMAError, and
# EOFError when the stream is cut short.
_DAMAGED = (OSError, EOFError, zlib.error, lzma.LZMAError)


def codec_of(path: Path) -> Codec | None:
    """The compression ``path`` is named for, or None."""
    return CODECS.get(path.suffix.lower())


def inner(path: Path) -> Path | None:
    """The name ``path`` decompresses to (``a.md.gz`` -> ``a.md``), or None when it is
    not named for a compression."""
    return path.with_suffix("") if codec_of(path) else None


def blocks(path: Path, rel: str) -> Iterator[bytes]:
    """``path`` decompressed, a block at a time; ExtractionError naming ``rel`` when the
    stream is damaged or decompresses past :data:`MAX_DECOMPRESSED`. OSError when the
    file cannot be read."""
    codec = CODECS[path.suffix.lower()]
    total = 0
    with path.open("rb") as raw, codec.reader(raw) as f:
        while True:
            try:
                block = f.read(BLOCK)
            except _DAMAGED as exc:
                if isinstance(exc, OSError) and exc.errno is not None:
                    raise  # the disk, not the data
                raise ExtractionError(rel, f"not a valid {codec.name} file: {exc}") from exc
            if not block:
                return
            total += len(block)
            if total > MAX_DECOMPRESSED:
                raise ExtractionError(rel, f"decompresses to more than {MAX_DECOMPRESSED >> 20} "
                                           "MB (the most read of a compressed file): too big to "
                                           "index, or a decompression bomb")
            yield block


def decompress(path: Path, rel: str, dest: Path) -> None:
    """Write ``path`` decompressed to ``dest``; ExtractionError naming ``rel`` if it cannot
    be (``dest`` may then hold part of it)."""
    try:
        with dest.open("wb") as out:
            for block in blocks(path, rel):
                out.write(block)
    except OSError as exc:
        raise ExtractionError(rel, f"cannot decompress it: {exc.strerror or exc}") from exc


def original_beside(path: Path) -> Path | None:
    """The plain file compressed file ``path`` is a copy of, when it is beside it: a web
    server's precompressed ``index.html.gz`` next to ``index.html`` (nginx's gzip_static),
    which is indexed instead, or every hit on the page would be listed twice."""
    plain = path.with_suffix("")
    return plain if plain.is_file() else None


def content_hash(path: Path) -> str:
    """The decompressed content's SHA-256 (the plain file's, so compressing it again
    changes nothing); the file's own bytes' when it does not decompress, which its
    extraction then fails, saying why; the plain file's name when that is beside it
    (:func:`original_beside`: not read), so the copy is read when that goes. OSError
    when the file cannot be read."""
    if (plain := original_beside(path)) is not None:
        return hashlib.sha256(b"copy of " + os.fsencode(plain.name)).hexdigest()
    h = hashlib.sha256()
    try:
        for block in blocks(path, path.name):
            h.update(block)
    except ExtractionError:
        h = hashlib.sha256(b"undecompressed\0")
        with path.open("rb") as fh:
            while block := fh.read(BLOCK):
                h.update(block)
    return h.hexdigest()


class Decompressing:
    """``inner``'s reader of a compressed file: it reads the file decompressed, under its
    name less the compression's suffix, and stamps the document as ``inner`` does."""

    suffixes: tuple[str, ...] = ()  # never registered: extractor_for makes one

    def __init__(self, inner: Extractor) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version

    def extract(self, path: Path, rel: str) -> Document:
        if (plain := original_beside(path)) is not None:
            raise UnsupportedFormat(rel, f"a compressed copy of {plain.name}, which is "
                                         "indexed instead")
        with tempfile.TemporaryDirectory(prefix="citeline-") as tmp:
            plain = Path(tmp) / path.with_suffix("").name
            decompress(path, rel, plain)
            if getattr(self.inner, "reads_beside", False):  # files beside it are its own
                # (a split Info manual's parts): they are beside the compressed file
                return self.inner.extract(plain, rel, beside=path.parent)  # type: ignore[call-arg]
            return self.inner.extract(plain, rel)
