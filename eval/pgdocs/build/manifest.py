#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's PgDocs (through
gtcheck.manifest_documents), the code that checks it:

chars    = characters of the raw file (UTF-8 decoded), which is what citeline's loader
           compares (the needles, by contrast, are cut from the extracted text);
title    = the page's <title> (DocBook's section number and title, e.g. "25.1. Routine Vacuuming");
sections = the number of <div class="sect2"> elements in the page, its numbered top-level
           subsections: each page is one DocBook sect1 whose own title is the page's single
           <h2>; its sect2 subsections are <h3> headings, which the extracted text shows as
           '### 25.1.1. ...' lines (admonitions such as "Tip" and "Note" are <h3> too, but
           are not sections and are not counted).
"commit" is the Debian version of the postgresql-doc-15 package whose pages were copied.

Run with citeline's interpreter: /work/main/.venv/bin/python build/manifest.py"""
import gzip
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(HERE, "pgdocs_copy")
PAGES = _copy.PAGES
CHECK = gtcheck.load_check(HERE, "pgdocs_check")


def package_version(src):
    """Debian version of postgresql-doc-15: dpkg's record if installed, else the first line of
    the unpacked package's changelog.Debian.gz ("postgresql-15 (15.20-0+deb12u1) ...")."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "postgresql-doc-15"],
                             capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    with gzip.open(os.path.join(os.path.dirname(src), "changelog.Debian.gz"), "rt") as fh:
        return re.match(r"\S+ \(([^)]+)\)", fh.readline()).group(1)


def main():
    src = _copy.source_dir()
    version = package_version(src)
    docs = gtcheck.manifest_documents(CHECK.PgDocs, HERE)
    manifest = gtcheck.write_manifest(
        HERE, docs,
        source=f"PostgreSQL 15 documentation as packaged by Debian (postgresql-doc-15 {version}, "
               f"bookworm-security), {len(PAGES)} DocBook HTML pages copied byte-for-byte from "
               "/usr/share/doc/postgresql-doc-15/html/ ("
               + ", ".join(page for _, page in PAGES)
               + "); https://www.postgresql.org/docs/15/",
        commit=version,
        license="PostgreSQL",
        attribution="PostgreSQL 15 documentation, Copyright (c) 1996-2026 The PostgreSQL Global "
                    "Development Group and (c) 1994 The Regents of the University of California, "
                    "under the PostgreSQL License (see LICENSE); copied unmodified from Debian's "
                    "postgresql-doc-15 package")
    for d in docs:
        print(d)
    print(manifest["total_chars"], manifest["total_sections"])


if __name__ == "__main__":
    main()
