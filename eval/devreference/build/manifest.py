#!/usr/bin/env python3
"""Write MANIFEST.json from docs/.

An EPUB is a ZIP package, not text, so every figure is the extracted text's, as citeline's
loader takes it (citeline.eval.groundtruth: a file that is not UTF-8 text has its canonical
text's length as its character count):
chars    = characters of citeline's canonical text of the book (citeline.extract's EPUB
           extractor), which is what citeline's loader compares;
title    = the book's title as citeline's extractor gives it (the package document's first
           dc:title: Sphinx writes the project's name, "developers-reference");
sections = the '## ' heading lines of that text: the numbered sections X.Y (the chapters are
           '# ' lines, the subsections X.Y.Z '### ' and below).
"commit" is the Debian version of the developers-reference package whose EPUB was copied.

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
# build/ holds copy.py, which would shadow the standard library's `copy` that citeline's
# dependencies import: run without it on the path
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.join(HERE, "build")]
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402

# build/copy.py finds the source; load it by path (its name would shadow the stdlib `copy`)
_spec = importlib.util.spec_from_file_location("devreference_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)


def package_version(src_dir):
    """Debian version of developers-reference: dpkg's record if installed, else the first line
    of the unpacked package's changelog.gz ("developers-reference (12.18) unstable; ...")."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "developers-reference"],
                             capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    changelog = os.path.join(os.path.dirname(os.path.dirname(src_dir)), "doc", "developers-reference",
                             "changelog.gz")
    with gzip.open(changelog, "rt") as fh:
        return re.match(r"\S+ \(([^)]+)\)", fh.readline()).group(1)


def main():
    version = package_version(_copy.source_dir())
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        p = Path(HERE, "docs", f)
        doc = extractor_for(p).extract(p, f)
        docs.append({"file": f, "title": doc.title, "chars": len(doc.text),
                     "sections": len(re.findall(r"^## ", doc.text, re.M))})
    manifest = {
        "source": f"Debian Developer's Reference as packaged by Debian (developers-reference {version}, "
                  "bookworm), the English EPUB (Sphinx) copied byte-for-byte from "
                  "/usr/share/developers-reference/developers-reference.epub; "
                  "https://www.debian.org/doc/manuals/developers-reference/",
        "commit": version,
        "license": "GPL-2.0-or-later",
        "attribution": "Debian Developer's Reference, Copyright 2019-2023 Holger Levsen, 2015-2020 "
                       "Hideki Yamane, 2008-2015 Lucas Nussbaum, 2004-2007 Andreas Barth, 2002-2009 "
                       "Rapha\u00ebl Hertzog, 1998-2003 Adam Di Carlo, 1997-1998 Christian Schwarz, "
                       "under the GNU General Public License version 2 or later (see LICENSE); copied "
                       "unmodified from Debian's developers-reference package",
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
