"""Extraction: one file -> one :class:`~citeline.types.Document`.

Each format has an extractor behind the :class:`Extractor` protocol, registered
by file suffix in :data:`REGISTRY` (an explicit dict: no guessing by regex); a
page's language variant named for content negotiation (``index.html.fr``) goes by
the suffix before its language (:func:`type_suffix`), and a compressed file
(``NEWS.md.gz``) is read decompressed by its inner name's extractor
(:mod:`citeline.extract.compressed`).
An extractor either returns a Document whose ``text`` is the canonical text
every offset refers to, or raises :class:`~citeline.errors.ExtractionError`
with a reason a person can act on. Its ``name`` and ``version`` are stamped on
every document it produced; bumping ``version`` marks those documents stale, as does
bumping the version of a reader that read part of one (an e-mail's attachment:
:func:`with_readers`, :func:`current_version`).
"""

from __future__ import annotations

import codecs
import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from citeline.errors import UnsupportedFormat
from citeline.extract import compressed
from citeline.types import Document


class Extractor(Protocol):
    """A format's reader. It may also define ``fingerprint(path) -> str`` (see
    :func:`fingerprint`) when a file's indexed content is not just its own bytes."""

    name: str
    version: str
    suffixes: tuple[str, ...]

    def extract(self, path: Path, rel: str) -> Document:
        """Read ``path`` (shown to users as ``rel``) into a Document, or raise ExtractionError."""
        ...


REGISTRY: dict[str, Extractor] = {}


def read_bytes(path: Path, rel: str, empty: str = "empty file (no text to index)") -> bytes:
    """The file's bytes, or ExtractionError naming ``rel`` when unreadable or blank."""
    from citeline.errors import ExtractionError

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ExtractionError(rel, f"cannot read file: {exc.strerror or exc}") from exc
    if not data.strip():
        raise ExtractionError(rel, empty)
    return data


def register(extractor: Extractor) -> Extractor:
    for suffix in extractor.suffixes:
        REGISTRY[suffix.lower()] = extractor
    return extractor


# Content negotiation's language variants: Apache httpd (MultiViews) serves "index.html"
# from "index.html.en", "index.html.fr", "index.html.ja.utf8", and its manual (as its
# source tree and web site keep it) is written so. A page's variants are read as pages;
# another type's are not ("notes.txt.de" follows no such convention).
VARIANT_SUFFIXES = frozenset({".html", ".htm"})
# ISO 639-1's two-letter codes, the language a variant's name gives (httpd's own: da de
# en es fr ja ko pt-br ru tr zh-cn). Not its three-letter ones (ISO 639-2, -3): nearly
# every three-letter suffix is one ("bak" is Bashkir), and "page.html.bak" is a backup.
LANGUAGES = frozenset("""
    aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo bs ca ce ch co cr cs cu cv
    cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho
    hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku
    kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn
    no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm
    sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr tt tw ty ug uk ur uz ve vi vo
    wa wo xh yi yo za zh zu""".split())
# ... less two that name a file of another kind after a page's name: "br" (Breton) is
# Brotli's suffix, a page compressed beside its "index.html.gz" for a web server to send,
# and "ts" (Tsonga) TypeScript's, a template's module ("page.html.ts").


def _language(tag: str) -> bool:
    """A language tag as httpd's variants write it: "fr", "zh-cn", "es-419"."""
    lang, _, region = tag.partition("-")
    return lang in LANGUAGES and (not region or (len(region) == 2 and region.isalpha())
                                  or (len(region) == 3 and region.isdigit()))


def _charset(name: str) -> bool:
    """A text encoding's name ("utf8", "euc-kr", "koi8-r"), as a variant's last suffix."""
    try:
        return codecs.lookup(name)._is_text_encoding
    except LookupError:
        return False


def variant_base(name: str) -> str | None:
    """A language variant's file name less its language and charset, or None when
    ``name`` is none (see :data:`VARIANT_SUFFIXES`).

    >>> [variant_base(n) for n in ("bind.html.en", "Index.HTML.ja.utf8", "a.html.zh-cn",
    ...                            "a.html.bak", "a.html.br", "notes.txt.de", "a.html")]
    ['bind.html', 'Index.HTML', 'a.html', None, None, None, None]
    """
    parts = name.split(".")
    low = [p.lower() for p in parts]
    cut = 2 if len(parts) > 3 and _charset(low[-1]) and _language(low[-2]) else \
        1 if len(parts) > 2 and _language(low[-1]) else 0
    base = ".".join(parts[:-cut]) if cut else ""
    return base if cut and Path(base).suffix.lower() in VARIANT_SUFFIXES else None


# Files a source tree or a package's documentation names by convention, with no suffix,
# read as plain text: the GNU Coding Standards' (README, INSTALL, NEWS, ChangeLog, COPYING,
# AUTHORS, THANKS, TODO, BUGS, HACKING), those projects keep beside them (LICENSE,
# CHANGELOG, CHANGES, CONTRIBUTING, ...), and Debian's: a package's copyright and changelog,
# and the ".Debian" notes its maintainer adds (README.Debian, NEWS.Debian,
# changelog.Debian) -- most of /usr/share/doc. Any other name without a suffix is not
# read: a suffix-less file is as often a program, a lock file or data.
PLAIN_TEXT_NAMES = frozenset("""
    readme install news changelog changes copying authors thanks todo bugs hacking
    license licence notice contributing contributors maintainers copyright history faq
    """.split())
# ... with no suffix, or Debian's maintainer suffix
PLAIN_TEXT_NAME_SUFFIXES = ("", ".debian")


# A manual page is named for its section: a digit and, in a distribution, a word for the
# package's own part of it (``openssl-req.1ssl``, ``Carp.3perl``, ``GET.1p``,
# ``stat.3type``); each is read as a page, ``.man`` (see citeline.extract.man), which
# tells a page from a rotated log (``syslog.1``) by its content. Not these, which name
# other kinds of file: a 7-Zip archive, a 3GPP video, 3D models.
MAN_SECTION = re.compile(r"\.[1-9][a-z]{1,10}")
NOT_MAN_SECTIONS = frozenset({".7z", ".3gp", ".3g", ".3ds", ".3mf", ".3dm", ".3dxml"})


# A part of a GNU Info manual makeinfo split: "find.info-1", "find.info-2" (see
# citeline.extract.info), read as an Info file.
INFO_PART = re.compile(r"\.info-\d+")


def type_suffix(path: Path) -> str:
    """The suffix ``path``'s extractor is registered by: its last, lower-cased, but a
    language variant's the one before its language (:func:`variant_base`), plain
    text's (``.txt``) for a file named by convention (:data:`PLAIN_TEXT_NAMES`), and a
    manual page's (``.man``) for a section with a word (:data:`MAN_SECTION`), and an Info
    file's for a part of a split manual (:data:`INFO_PART`).

    >>> [type_suffix(Path(n)) for n in ("a.PDF", "index.html.fr", "notes.txt.bak", "x",
    ...                                 "README", "ChangeLog", "changelog.Debian", "Makefile")]
    ['.pdf', '.html', '.bak', '', '.txt', '.txt', '.txt', '']
    >>> [type_suffix(Path(n)) for n in ("ls.1", "openssl-req.1ssl", "Carp.3perl", "a.7z")]
    ['.1', '.man', '.man', '.7z']
    >>> [type_suffix(Path(n)) for n in ("find.info", "find.info-2", "a.infox-2")]
    ['.info', '.info', '.infox-2']
    """
    base = variant_base(path.name)
    if base:
        return Path(base).suffix.lower()
    suffix = path.suffix.lower()
    if suffix in PLAIN_TEXT_NAME_SUFFIXES and path.stem.lower() in PLAIN_TEXT_NAMES:
        return ".txt"
    if MAN_SECTION.fullmatch(suffix) and suffix not in NOT_MAN_SECTIONS:
        return ".man"
    if INFO_PART.fullmatch(suffix):
        return ".info"
    return suffix


def extractor_for(path: Path) -> Extractor:
    """The extractor registered for ``path``'s type (:func:`type_suffix`), or for a
    compressed file's a :class:`~citeline.extract.compressed.Decompressing` one around
    it; UnsupportedFormat saying why (:func:`why_unsupported`) if none."""
    why = why_unsupported(path)
    if why is not None:
        raise UnsupportedFormat(str(path), why)
    plain = compressed.inner(path)
    if plain is not None:
        return compressed.Decompressing(REGISTRY[type_suffix(plain)])
    return REGISTRY[type_suffix(path)]


def why_unsupported(path: Path) -> str | None:
    """Why no extractor reads ``path`` (a reason for the skipped list), or None if one does.

    A compressed file is read when its name less the compression's suffix is
    (``NEWS.md.gz``, ``changelog.Debian.gz``), so ``data.gz`` is not, as ``data`` is not;
    nor is a tar archive, compressed or not, nor a compressed recording (whose transcript,
    not itself, is what is read) or a compressed file compressed again.

    >>> [why_unsupported(Path(n)) for n in ("a.md", "a.md.gz", "a.xyz", "README.gz", "data.gz")]
    [None, None, "unsupported file type '.xyz'", None, "unsupported file type 'data' (gzip-compressed)"]
    >>> why_unsupported(Path("src.tar.gz"))
    'a tar archive (gzip-compressed), not a document: unpack it to index its files'
    """
    _load_builtin()
    plain = compressed.inner(path)
    how = "" if plain is None else f" ({compressed.CODECS[path.suffix.lower()].name}-compressed)"
    plain = plain or path
    if plain.suffix.lower() in compressed.ARCHIVE_SUFFIXES:
        return f"a tar archive{how}, not a document: unpack it to index its files"
    suffix = type_suffix(plain)
    if suffix not in REGISTRY:
        return f"unsupported file type '{plain.suffix or plain.name}'{how}"
    if how:
        from citeline.extract.transcript import MEDIA_SUFFIXES  # registered it: importable

        if suffix in MEDIA_SUFFIXES:
            return (f"a recording{how}: a recording is never read, only the transcript "
                    "beside it (uncompressed)")
    return None


def fingerprint(path: Path) -> str:
    """The content hash that decides whether ``path`` changed since it was indexed.

    The file's SHA-256, unless its extractor defines ``fingerprint(path)``: a
    media file's is its sidecar transcript's bytes (the recording itself is
    never read). A compressed file's is its decompressed content's
    (:func:`~citeline.extract.compressed.content_hash`), so one compressed again,
    unchanged but for its gzip header's time, is unchanged. Raises OSError when the
    file cannot be read.
    """
    _load_builtin()
    if compressed.inner(path) is not None:
        return compressed.content_hash(path)
    ext = REGISTRY.get(type_suffix(path))
    hook = getattr(ext, "fingerprint", None)
    if hook is not None:
        return str(hook(path))
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(FINGERPRINT_BLOCK):
            h.update(block)
    return h.hexdigest()


# Read files in 1 MiB blocks when hashing: large PDFs never sit in memory twice.
FINGERPRINT_BLOCK = 1 << 20


def read_as(path: Path, rel: str, suffix: str, why: str) -> Document:
    """``path`` read by ``suffix``'s extractor as a file of that suffix (through a link to
    it so named), the document warned ``why``: a file saved under another format's name,
    which the program of that name opens by its content (an RTF ``letter.doc``, a web
    page ``report.xls``)."""
    import os
    import shutil
    import tempfile
    from dataclasses import replace

    _load_builtin()
    with tempfile.TemporaryDirectory(prefix="citeline-") as tmp:
        named = Path(tmp) / (path.stem + suffix)
        try:
            os.symlink(path.resolve(), named)
        except OSError:  # no symbolic links here (some Windows setups): a copy
            shutil.copyfile(path, named)
        doc = REGISTRY[suffix].extract(named, rel)
    return replace(doc, warnings=(*doc.warnings, why))


def supported(path: Path) -> bool:
    """Whether an extractor reads ``path`` (:func:`why_unsupported` says why not)."""
    return why_unsupported(path) is None


def extractor_versions() -> dict[str, str]:
    """name -> version of every registered extractor (for staleness checks)."""
    _load_builtin()
    return {e.name: e.version for e in REGISTRY.values()}


def with_readers(version: str, readers: Mapping[str, str]) -> str:
    """The version stamped on a document read partly by other extractors (an e-mail's
    attachments): its own, then each of theirs by name, ``7 (docx 14, pdf 15)``; a
    change to any of them marks the document stale (:func:`current_version`)."""
    if not readers:
        return version
    return f"{version} (" + ", ".join(f"{n} {v}" for n, v in sorted(readers.items())) + ")"


def readers_of(stamped: str) -> tuple[str, dict[str, str]]:
    """A stamped version split into its extractor's own and the readers
    :func:`with_readers` named in it."""
    found = _WITH_READERS.fullmatch(stamped)
    if found is None:
        return stamped, {}
    own, readers = found.groups()
    return own, dict(r.rsplit(" ", 1) for r in readers.split(", "))


_WITH_READERS = re.compile(r"(\S+) \(((?:\S+ \S+, )*\S+ \S+)\)")


def current_version(extractor: str, stamped: str,
                    versions: Mapping[str, str] | None = None) -> str | None:
    """The version ``extractor`` would stamp today on the document stamped ``stamped``
    (``versions``: :func:`extractor_versions`, asked when not given), the readers it
    names at their versions now (one no longer registered ``absent``); None when no
    registered extractor has that name. The document is stale when this differs."""
    versions = extractor_versions() if versions is None else versions
    own = versions.get(extractor)
    if own is None:
        return None
    return with_readers(own, {n: versions.get(n, "absent") for n in readers_of(stamped)[1]})


_loaded = False


def _load_builtin() -> None:
    """Import the built-in extractor modules once; each registers itself.

    A format whose optional library is missing simply does not register.
    """
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    from citeline.extract import (  # noqa: F401
        asciidoc,
        calendar,
        image,
        info,
        latex,
        man,
        notebook,
        org,
        rtf,
        text,
    )

    for mod in BUILTIN_OPTIONAL:
        try:
            importlib.import_module(f"citeline.extract.{mod}")
        except ImportError:  # optional dependency absent: the format stays unsupported
            continue


# Modules that register extractors for formats needing third-party libraries.
# Each is one module under citeline/extract/ that calls register() at import.
BUILTIN_OPTIONAL: tuple[str, ...] = ("pdf", "docx", "doc", "slides", "ppt", "html", "sheet", "xls",
                                     "transcript", "opendocument", "epub", "email_msg", "outlook",
                                     "pst", "svg")
