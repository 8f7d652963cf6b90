#!/usr/bin/env python3
"""Copy the Bash Reference Manual's PDF byte-for-byte into docs/ (or into the folder given as
the first argument), renamed with a numeric prefix.

Source: Debian's bash-doc package (bookworm, 5.2.15-2: the manual's edition 5.2 for Bash 5.2,
typeset by Texinfo and pdfTeX), installed at /usr/share/doc/bash/bashref.pdf
(apt-get install bash-doc; /usr/share/doc/bash-doc/bashref.pdf is a link to it) or unpacked with
  cd /tmp && apt-get download bash-doc && dpkg-deb -x bash-doc_*.deb bashdoc
(then at /tmp/bashdoc/usr/share/doc/bash/bashref.pdf). The environment variable BASHREF_PDF
names the file instead. Nothing is converted."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CANDIDATES = [
    os.environ.get("BASHREF_PDF", ""),
    "/usr/share/doc/bash/bashref.pdf",
    "/tmp/bashdoc/usr/share/doc/bash/bashref.pdf",
]

# (target name, source file): the whole manual is one document
PAGES = [("01-bashref.pdf", "bashref.pdf")]


def source_file():
    """The package's bashref.pdf, or None."""
    for f in CANDIDATES:
        if f and os.path.isfile(f):
            return f
    return None


def source_dir():
    f = source_file()
    return os.path.dirname(f) if f else None


def changelog():
    """bash-doc's changelog.Debian.gz beside the found PDF (installed or unpacked): its first
    line names the package version ("bash (5.2.15-2) unstable; ...")."""
    f = source_file()
    if f is None:
        return None
    return os.path.join(os.path.dirname(os.path.dirname(f)), "bash-doc", "changelog.Debian.gz")


def main():
    src = source_file()
    if src is None:
        sys.exit("bashref.pdf not found (install bash-doc or set BASHREF_PDF)")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, _ in PAGES:
        shutil.copyfile(src, os.path.join(out, name))


if __name__ == "__main__":
    main()
