#!/usr/bin/env python3
"""Write MANIFEST.json from docs/.

chars    = characters of the raw file (UTF-8 decoded), which is what citeline's loader
           compares (the needles, by contrast, are cut from the extracted text);
title    = the page's <title> without Sphinx's " — Django 3.2.25 documentation" suffix;
sections = the number of <h2> elements in the page, its top-level sections (the page's own
           title is its second <h1>: the first is the site header "Django 3.2.25
           documentation").
"commit" is the Debian version of the python-django-doc package whose pages were copied.

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
_spec = importlib.util.spec_from_file_location("djangodocs_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)
PAGES = _copy.PAGES
SUFFIX = " \u2014 Django 3.2.25 documentation"


def page_title(raw):
    m = re.search(r"<title>(.*?)</title>", raw, re.S)
    t = html.unescape(m.group(1)).strip()
    return t[: -len(SUFFIX)] if t.endswith(SUFFIX) else t


def h2_count(raw):
    return len(re.findall(r"<h2[ >]", raw))


def package_version(src):
    """Debian version of python-django-doc: dpkg's record if installed, else the first line of
    the unpacked package's changelog.Debian.gz ("python-django (3:3.2.25-0+deb12u3) ...")."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python-django-doc"],
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
        docs.append({"file": f, "title": page_title(raw), "chars": len(raw), "sections": h2_count(raw)})
    manifest = {
        "source": f"Django 3.2 documentation as packaged by Debian (python-django-doc {version}, "
                  f"bookworm), {len(PAGES)} Sphinx HTML pages of the topic guides copied byte-for-byte "
                  "from /usr/share/doc/python-django-doc/html/ ("
                  + ", ".join(page for _, page in PAGES)
                  + "); https://docs.djangoproject.com/en/3.2/topics/",
        "commit": version,
        "license": "BSD-3-Clause",
        "attribution": "Django 3.2 documentation, Copyright (c) Django Software Foundation and "
                       "individual contributors, under the BSD 3-Clause License (see LICENSE); "
                       "copied unmodified from Debian's python-django-doc package",
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
