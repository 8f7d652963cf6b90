#!/usr/bin/env python3
"""Write MANIFEST.json from docs/ (the original paths from build/copy.py), each document
measured by check_gt.py's PytestDocs (through gtcheck.manifest_documents), the code that
checks it: chars = len(text); title = the document's first level-1 reStructuredText section
title; sections = its level-2 section titles (the top-level sections under the title).
Levels follow reStructuredText: one level per adornment style (underline character, with or
without overline) in order of first use, read as citeline's loader reads them
(gtcheck.rst_headings)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(HERE, "pytestdocs_copy")
CHECK = gtcheck.load_check(HERE, "pytestdocs_check")


def main():
    originals = "; ".join(f"{n:02d}-{name}.rst <- doc/en/{src}"
                          for n, (src, name) in enumerate(_copy.PAGES, 1))
    manifest = gtcheck.write_manifest(
        HERE, gtcheck.manifest_documents(CHECK.PytestDocs, HERE),
        source="pytest's reStructuredText documentation (doc/en/) from its sdist on PyPI, "
               "pytest-9.2.0.tar.gz (sha256 " + _copy.SDIST_SHA256 + "), "
               "https://pypi.org/project/pytest/9.2.0/, https://github.com/pytest-dev/pytest; "
               "31 pages (getting started, how-to guides, explanations, backwards "
               "compatibility) copied byte-for-byte, renamed with a reading-order prefix: "
               + originals,
        commit="pytest 9.2.0",
        license="MIT",
        attribution="pytest documentation, Copyright (c) 2004 Holger Krekel and others "
                    "(MIT, see LICENSE); unmodified .rst sources")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
