#!/usr/bin/env python3
"""Write MANIFEST.json from docs/.

chars    = characters of citeline's extracted text of the PDF: what citeline's loader compares
           for a file that is not UTF-8 text (a PDF's or an Office file's text);
title    = the first line of the title page (citeline's first text line): "Bash Reference
           Manual". The PDF's Info dictionary has an empty /Title; citeline titles the
           document by that line since pdf extractor 12 (by its file name, "01-bashref",
           before);
sections = the headings citeline's PDF extractor places from the PDF's bookmarks (its
           outline, all levels: chapters and appendices, sections, subsections,
           sub-subsections): all 141 since pdf extractor 10 (137 with extractor 9, which did not
           find the four appendix bookmarks as lines of their pages, "Appendix A Reporting
           Bugs"; see README.md).
"commit" is the Debian version of the bash-doc package whose PDF was copied.

The entries are measured by check_gt.py's own class (gtcheck.manifest_documents), so
what is written is what the check compares. Run with citeline's interpreter:
/work/main/.venv/bin/python build/manifest.py"""
import gzip
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(HERE, "bashref_copy")


def package_version():
    """Debian version of bash-doc: dpkg's record if installed, else the first line of the
    unpacked package's changelog.Debian.gz ("bash (5.2.15-2) unstable; ...")."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "bash-doc"],
                             capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    with gzip.open(_copy.changelog(), "rt") as fh:
        return re.match(r"\S+ \(([^)]+)\)", fh.readline()).group(1)


def main():
    version = package_version()
    # the documents measured by check_gt.py's own class: what the check compares
    docs = gtcheck.manifest_documents(gtcheck.load_check(HERE, "bashref_check").BashRef, HERE)
    manifest = gtcheck.write_manifest(
        HERE, docs,
        source=f"Bash Reference Manual (Edition 5.2, for Bash version 5.2, 19 September 2022) as "
               f"packaged by Debian (bash-doc {version}, bookworm): /usr/share/doc/bash/bashref.pdf "
               "(Texinfo, pdfTeX, 196 pages) copied byte-for-byte; "
               "https://www.gnu.org/software/bash/manual/",
        commit=version,
        license="GFDL-1.3-no-invariants-or-later",
        attribution="Bash Reference Manual, by Chet Ramey (Case Western Reserve University) and "
                    "Brian Fox (Free Software Foundation), Copyright 1988-2022 Free Software "
                    "Foundation, Inc., under the GNU Free Documentation License, Version 1.3 or "
                    "any later version, with no Invariant Sections, no Front-Cover Texts and no "
                    "Back-Cover Texts (see LICENSE); copied unmodified from Debian's bash-doc "
                    "package")
    for d in docs:
        print(d)
    print(manifest["total_chars"], manifest["total_sections"])


if __name__ == "__main__":
    main()
