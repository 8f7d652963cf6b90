#!/usr/bin/env python3
"""Write MANIFEST.json from docs/ (the original paths from build/copy.py), each document
measured by check_gt.py's SphinxDocs (through gtcheck.manifest_documents), the code that
checks it: chars = len(text) (the file's characters, which is what citeline's loader
compares; for these UTF-8 .rst files it is also the length of citeline's canonical text, as
the check's reading of the files asserts); title = the document's first level-1
reStructuredText section title; sections = its level-2 section titles (the top-level
sections under the title).  Levels follow reStructuredText: one level per adornment style
(underline character, with or without overline) in order of first use, read as citeline's
loader reads them (gtcheck.rst_headings).

Run with citeline's interpreter: /work/main/.venv/bin/python build/manifest.py"""
import json
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(HERE, "sphinxdocs_copy")
CHECK = gtcheck.load_check(HERE, "sphinxdocs_check")


def main():
    originals = "; ".join(f"{n:02d}-{name}.rst <- {src}"
                          for n, (src, name) in enumerate(_copy.PAGES, 1))
    manifest = gtcheck.write_manifest(
        HERE, gtcheck.manifest_documents(CHECK.SphinxDocs, HERE),
        source="Sphinx 5.3 documentation, reStructuredText sources as shipped in Debian's "
               "sphinx-doc package 5.3.0-4 (sphinx-doc_5.3.0-4_all.deb, sha256 "
               + _copy.DEB_SHA256 + "; source package sphinx), "
               "/usr/share/doc/sphinx-doc/html/_sources/; https://www.sphinx-doc.org/, "
               "https://github.com/sphinx-doc/sphinx; 30 pages (the usage guide, "
               "templating, three man pages, four tutorial pages and the FAQ) copied "
               "byte-for-byte, renamed with a reading-order prefix and .rst: " + originals,
        commit="5.3.0-4",
        license="BSD-2-Clause",
        attribution="Sphinx documentation, Copyright 2007-2022 the Sphinx team (see the AUTHORS "
                    "file of Sphinx), distributed under the BSD 2-Clause License (see LICENSE); "
                    "unmodified .rst sources as shipped in Debian")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
