#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's DjangoDocs
(through gtcheck.manifest_documents), the code that checks it:

chars    = characters of the raw file (UTF-8 decoded), which is what citeline's loader
           compares (the needles, by contrast, are cut from the extracted text);
title    = the page's <title> without Sphinx's " — Django 3.2.25 documentation" suffix;
sections = the number of <h2> elements in the page, its top-level sections (the page's own
           title is its second <h1>: the first is the site header "Django 3.2.25
           documentation").
"commit" is the Debian version of the python-django-doc package whose pages were copied.

Run with citeline's interpreter: /work/main/.venv/bin/python build/manifest.py"""
import gzip
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(HERE, "djangodocs_copy")
PAGES = _copy.PAGES
CHECK = gtcheck.load_check(HERE, "djangodocs_check")


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
    docs = gtcheck.manifest_documents(CHECK.DjangoDocs, HERE)
    manifest = gtcheck.write_manifest(
        HERE, docs,
        source=f"Django 3.2 documentation as packaged by Debian (python-django-doc {version}, "
               f"bookworm), {len(PAGES)} Sphinx HTML pages of the topic guides copied byte-for-byte "
               "from /usr/share/doc/python-django-doc/html/ ("
               + ", ".join(page for _, page in PAGES)
               + "); https://docs.djangoproject.com/en/3.2/topics/",
        commit=version,
        license="BSD-3-Clause",
        attribution="Django 3.2 documentation, Copyright (c) Django Software Foundation and "
                    "individual contributors, under the BSD 3-Clause License (see LICENSE); "
                    "copied unmodified from Debian's python-django-doc package")
    for d in docs:
        print(d)
    print(manifest["total_chars"], manifest["total_sections"])


if __name__ == "__main__":
    main()
