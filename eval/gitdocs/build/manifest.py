#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's GitDocs (through
gtcheck.manifest_documents), the code that checks it:

chars    = characters of the raw file (UTF-8 decoded), which is what citeline's loader
           compares (the needles, by contrast, are cut from the extracted text);
title    = the page's <title>, as it is (AsciiDoc man pages: "git-reset(1)"; the user
           manual and the how-tos: their own title);
sections = the number of <h2> elements in the page (its top-level sections: each page has
           one <h1>, the manual page's or article's title; the user manual's chapters are
           <h1> too, and their sections <h2>; the extracted text shows the <h2> as '## '
           lines). The pages have no <main>, so citeline reads the whole <body>.
"commit" is the Debian version of the git-doc package the pages were copied from, read
from its changelog.Debian.gz.

Run with citeline's interpreter: /work/main/.venv/bin/python build/manifest.py"""
import gzip
import os
import re
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(HERE, "gitdocs_copy")
PAGES = _copy.PAGES
CHECK = gtcheck.load_check(HERE, "gitdocs_check")


def package_version(src):
    with gzip.open(os.path.join(src, "changelog.Debian.gz"), "rt", encoding="utf-8") as fh:
        first = fh.readline()
    m = re.match(r"git \(([^)]+)\)", first)
    return m.group(1)


def main():
    src = _copy.source_dir()
    version = package_version(src)
    docs = gtcheck.manifest_documents(CHECK.GitDocs, HERE)
    manifest = gtcheck.write_manifest(
        HERE, docs,
        source=f"Git's HTML documentation from Debian's git-doc package {version} (Git 2.39.5, "
               f"Debian 12 bookworm), {len(PAGES)} AsciiDoc-generated pages (the User Manual via DocBook) copied byte-for-byte from "
               "/usr/share/doc/git-doc/ (= /usr/share/doc/git/html/) ("
               + ", ".join(rel[:-5] for _, rel in PAGES)
               + "); upstream source: Documentation/ of https://git.kernel.org/pub/scm/git/git.git "
               "(https://github.com/git/git), also at https://git-scm.com/docs",
        commit=version,
        license="GPL-2.0-only",
        attribution="Git documentation, by Linus Torvalds, Junio C Hamano and the Git contributors "
                    "(https://git-scm.com), licensed under the GNU General Public License version 2 "
                    "(see LICENSE); copied unmodified from Debian's git-doc package")
    for d in docs:
        print(d)
    print(manifest["total_chars"], manifest["total_sections"])


if __name__ == "__main__":
    main()
