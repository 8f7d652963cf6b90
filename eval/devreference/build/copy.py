#!/usr/bin/env python3
"""Copy the Debian Developer's Reference e-book byte-for-byte into docs/ (or into the folder
given as the first argument) as 01-developers-reference.epub.

Source: the English EPUB of Debian's developers-reference package (bookworm, 12.18; built with
Sphinx's epub3 builder), installed at /usr/share/developers-reference/developers-reference.epub
(apt-get install developers-reference) or unpacked with
  cd /tmp && apt-get download developers-reference && dpkg-deb -x developers-reference_*.deb devref
(then under /tmp/devref/usr/share/developers-reference/). The environment variable DEVREF_EPUB
(the .epub file) overrides the location. Nothing is converted."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CANDIDATES = [
    os.environ.get("DEVREF_EPUB", ""),
    "/usr/share/developers-reference/developers-reference.epub",
    "/tmp/devref/usr/share/developers-reference/developers-reference.epub",
]
# (target name, source file)
BOOKS = [("01-developers-reference.epub", "developers-reference.epub")]


def source_file():
    for f in CANDIDATES:
        if f and os.path.isfile(f):
            return f
    return None


def source_dir():
    f = source_file()
    return os.path.dirname(f) if f else None


def main():
    src = source_file()
    if src is None:
        sys.exit("developers-reference EPUB not found (set DEVREF_EPUB)")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, _ in BOOKS:
        shutil.copyfile(src, os.path.join(out, name))


if __name__ == "__main__":
    main()
