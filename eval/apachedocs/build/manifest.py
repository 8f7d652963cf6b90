#!/usr/bin/env python3
"""Write MANIFEST.json from docs/.

chars    = characters of the raw file (UTF-8 decoded), which is what citeline's loader
           compares (the needles, by contrast, are cut from the extracted text);
title    = the page's <title> less the manual's suffix " - Apache HTTP Server Version 2.4"
           ("Reverse Proxy Guide - Apache HTTP Server Version 2.4" -> "Reverse Proxy Guide");
sections = the number of <h2> elements in the page: its top-level sections (each a
           <div class="section">); the <h3> titles of its notes ("Note", "Warning") and of
           the "See also" list, and its subsections, are not counted.
"commit" is the Debian version of the apache2-doc package whose pages were copied.

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
_spec = importlib.util.spec_from_file_location("apachedocs_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)
PAGES = _copy.PAGES
TITLE_SUFFIX = " - Apache HTTP Server Version 2.4"


def page_title(raw):
    t = html.unescape(re.search(r"<title>(.*?)</title>", raw, re.S).group(1)).strip()
    return t[: -len(TITLE_SUFFIX)] if t.endswith(TITLE_SUFFIX) else t


def h2_count(raw):
    return len(re.findall(r"<h2[ >]", raw))


def package_version(src):
    """Debian version of apache2-doc: dpkg's record if installed, else the first line of
    the unpacked package's changelog.Debian.gz ("apache2 (2.4.71-1~deb12u1) ...")."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "apache2-doc"],
                             capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    changelog = os.path.join(os.path.dirname(os.path.dirname(src)), "changelog.Debian.gz")
    with gzip.open(changelog, "rt") as fh:
        return re.match(r"\S+ \(([^)]+)\)", fh.readline()).group(1)


def main():
    src = _copy.source_dir()
    version = package_version(src)
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        raw = open(os.path.join(HERE, "docs", f), "rb").read().decode("utf-8")
        docs.append({"file": f, "title": page_title(raw), "chars": len(raw), "sections": h2_count(raw)})
    manifest = {
        "source": f"Apache HTTP Server Version 2.4 documentation as packaged by Debian (apache2-doc "
                  f"{version}, bookworm-security), {len(PAGES)} English HTML pages (the manual's own "
                  "XSLT output) copied byte-for-byte from /usr/share/doc/apache2-doc/manual/en/ ("
                  + ", ".join(page for _, page in PAGES)
                  + "); https://httpd.apache.org/docs/2.4/",
        "commit": version,
        "license": "Apache-2.0",
        "attribution": "Apache HTTP Server documentation, Copyright The Apache Software Foundation, "
                       "licensed under the Apache License, Version 2.0 (see LICENSE, Debian's "
                       "copyright file for apache2-doc); copied unmodified from Debian's apache2-doc "
                       "package, whose pages carry Debian's edits (apache2.conf, apache2ctl)",
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
