#!/usr/bin/env python3
"""Write MANIFEST.json from docs/.

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
import html
import importlib.util
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# build/copy.py holds the page list; load it by path (its name would shadow the stdlib `copy`)
_spec = importlib.util.spec_from_file_location("pgdocs_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)
PAGES = _copy.PAGES


def page_title(raw):
    m = re.search(r"<title>(.*?)</title>", raw, re.S)
    return html.unescape(m.group(1)).strip()


def sect2_count(raw):
    return len(re.findall(r'<div class="sect2"', raw))


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
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        raw = open(os.path.join(HERE, "docs", f), "rb").read().decode("utf-8")
        docs.append({"file": f, "title": page_title(raw), "chars": len(raw), "sections": sect2_count(raw)})
    manifest = {
        "source": f"PostgreSQL 15 documentation as packaged by Debian (postgresql-doc-15 {version}, "
                  f"bookworm-security), {len(PAGES)} DocBook HTML pages copied byte-for-byte from "
                  "/usr/share/doc/postgresql-doc-15/html/ ("
                  + ", ".join(page for _, page in PAGES)
                  + "); https://www.postgresql.org/docs/15/",
        "commit": version,
        "license": "PostgreSQL",
        "attribution": "PostgreSQL 15 documentation, Copyright (c) 1996-2026 The PostgreSQL Global "
                       "Development Group and (c) 1994 The Regents of the University of California, "
                       "under the PostgreSQL License (see LICENSE); copied unmodified from Debian's "
                       "postgresql-doc-15 package",
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
