#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's DebHandbook
(through gtcheck.manifest_documents), the code that checks it:

chars    = characters of the raw file (UTF-8 decoded), which is what citeline's loader
           compares (the needles, by contrast, are cut from the extracted text);
title    = the page's <title> as it is (Publican writes the section's number and title,
           "6.2. aptitude, apt-get, and apt Commands", or the chapter's, "Chapter 9. Unix
           Services", with no site suffix);
sections = the number of <h3> elements in the page: the numbered sections X.Y.Z. On a section
           page (sect.*.html, titled by its <h2>) they are its top-level sections; on a
           chapter page (titled by its <h1>) they are those of the chapter's first section X.1,
           which the chapter page holds after its introduction.
"commit" is the Debian version of the debian-handbook package whose pages were copied.

Run with citeline's interpreter: /work/main/.venv/bin/python build/manifest.py"""
import gzip
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(HERE, "debhandbook_copy")
PAGES = _copy.PAGES
CHECK = gtcheck.load_check(HERE, "debhandbook_check")


def package_version(src):
    """Debian version of debian-handbook: dpkg's record if installed, else the first line of
    the unpacked package's changelog.gz ("debian-handbook (11.20220922) unstable; ...")."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "debian-handbook"],
                             capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    with gzip.open(os.path.join(os.path.dirname(os.path.dirname(src)), "changelog.gz"), "rt") as fh:
        return re.match(r"\S+ \(([^)]+)\)", fh.readline()).group(1)


def main():
    src = _copy.source_dir()
    version = package_version(src)
    docs = gtcheck.manifest_documents(CHECK.DebHandbook, HERE)
    manifest = gtcheck.write_manifest(
        HERE, docs,
        source=f"The Debian Administrator's Handbook (edition for Debian 11 bullseye) as packaged by "
               f"Debian (debian-handbook {version}, bookworm), {len(PAGES)} English HTML pages "
               "(Publican, DocBook) copied byte-for-byte from /usr/share/doc/debian-handbook/html/en-US/ ("
               + ", ".join(page for _, page in PAGES)
               + "); https://debian-handbook.info/browse/stable/",
        commit=version,
        license="GPL-2.0-or-later OR CC-BY-SA-3.0",
        attribution="The Debian Administrator's Handbook, Copyright 2003-2015 Rapha\u00ebl Hertzog, "
                    "2006-2015 Roland Mas, 2013-2015 Freexian SARL, under the GNU General Public "
                    "License version 2 or later or the Creative Commons Attribution-ShareAlike 3.0 "
                    "Unported license (see LICENSE); copied unmodified from Debian's "
                    "debian-handbook package")
    for d in docs:
        print(d)
    print(manifest["total_chars"], manifest["total_sections"])


if __name__ == "__main__":
    main()
