#!/usr/bin/env python3
"""Write MANIFEST.json from docs/.

chars    = characters of citeline's extracted text of the PDF: what citeline's loader compares
           for a file that is not UTF-8 text (a PDF's or an Office file's text);
title    = the first line of the title page (citeline's first text line): "Bash Reference
           Manual". The PDF's Info dictionary has an empty /Title, so citeline itself titles
           the document by its file name ("01-bashref");
sections = the headings citeline's PDF extractor places from the PDF's bookmarks (its
           outline, all levels: chapters, sections, subsections, sub-subsections): 137 of the
           141 bookmarks; the four appendix bookmarks are not found as lines of their pages
           (see README.md).
"commit" is the Debian version of the bash-doc package whose PDF was copied.

Run with citeline's interpreter: /work/main/.venv/bin/python build/manifest.py"""
import gzip
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402

# build/copy.py finds the source; load it by path (its name would shadow the stdlib `copy`)
_spec = importlib.util.spec_from_file_location("bashref_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)


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
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        p = Path(HERE, "docs", f)
        doc = extractor_for(p).extract(p, f)
        docs.append({"file": f, "title": doc.text.split("\n", 1)[0].strip(), "chars": len(doc.text),
                     "sections": len(doc.outline)})
    manifest = {
        "source": f"Bash Reference Manual (Edition 5.2, for Bash version 5.2, 19 September 2022) as "
                  f"packaged by Debian (bash-doc {version}, bookworm): /usr/share/doc/bash/bashref.pdf "
                  "(Texinfo, pdfTeX, 196 pages) copied byte-for-byte; "
                  "https://www.gnu.org/software/bash/manual/",
        "commit": version,
        "license": "GFDL-1.3-no-invariants-or-later",
        "attribution": "Bash Reference Manual, by Chet Ramey (Case Western Reserve University) and "
                       "Brian Fox (Free Software Foundation), Copyright 1988-2022 Free Software "
                       "Foundation, Inc., under the GNU Free Documentation License, Version 1.3 or "
                       "any later version, with no Invariant Sections, no Front-Cover Texts and no "
                       "Back-Cover Texts (see LICENSE); copied unmodified from Debian's bash-doc "
                       "package",
        "documents": docs,
        "total_chars": sum(d["chars"] for d in docs),
        "total_sections": sum(d["sections"] for d in docs),
    }
    with open(os.path.join(HERE, "MANIFEST.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    for d in docs:
        print(d)
    print(manifest["total_chars"], manifest["total_sections"])


if __name__ == "__main__":
    main()
