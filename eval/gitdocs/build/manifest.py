#!/usr/bin/env python3
"""Write MANIFEST.json from docs/.

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
import html
import importlib.util
import json
import os
import re

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# build/copy.py holds the page list; load it by path (its name would shadow the stdlib `copy`)
_spec = importlib.util.spec_from_file_location("gitdocs_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)
PAGES = _copy.PAGES


def page_title(raw):
    m = re.search(r"<title>(.*?)</title>", raw, re.S)
    return html.unescape(m.group(1)).strip()


def h2_count(raw):
    return len(re.findall(r"<h2[\s>]", raw))


def package_version(src):
    with gzip.open(os.path.join(src, "changelog.Debian.gz"), "rt", encoding="utf-8") as fh:
        first = fh.readline()
    m = re.match(r"git \(([^)]+)\)", first)
    return m.group(1)


def main():
    src = _copy.source_dir()
    version = package_version(src)
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        raw = open(os.path.join(HERE, "docs", f), "rb").read().decode("utf-8")
        docs.append({"file": f, "title": page_title(raw), "chars": len(raw), "sections": h2_count(raw)})
    manifest = {
        "source": f"Git's HTML documentation from Debian's git-doc package {version} (Git 2.39.5, "
                  f"Debian 12 bookworm), {len(PAGES)} AsciiDoc-generated pages (the User Manual via DocBook) copied byte-for-byte from "
                  "/usr/share/doc/git-doc/ (= /usr/share/doc/git/html/) ("
                  + ", ".join(rel[:-5] for _, rel in PAGES)
                  + "); upstream source: Documentation/ of https://git.kernel.org/pub/scm/git/git.git "
                  "(https://github.com/git/git), also at https://git-scm.com/docs",
        "commit": version,
        "license": "GPL-2.0-only",
        "attribution": "Git documentation, by Linus Torvalds, Junio C Hamano and the Git contributors "
                       "(https://git-scm.com), licensed under the GNU General Public License version 2 "
                       "(see LICENSE); copied unmodified from Debian's git-doc package",
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
