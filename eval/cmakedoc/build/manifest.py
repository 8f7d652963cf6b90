#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's CmakeDoc (through
gtcheck.manifest_documents), the code that checks it: chars = len(text); title = the
document's first level-1 reStructuredText section title; sections = its level-2 section
titles (the top-level sections under the title).  Levels follow reStructuredText: one level
per adornment style (underline character, with or without overline) in order of first use,
read as citeline's loader reads them (gtcheck.rst_headings)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

CHECK = gtcheck.load_check(HERE, "cmakedoc_check")


def main():
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "cmake-data"],
                             check=True, capture_output=True, text=True).stdout.strip()
    manifest = gtcheck.write_manifest(
        HERE, gtcheck.manifest_documents(CHECK.CmakeDoc, HERE),
        source="Debian package cmake-data (the CMake 3.25 documentation sources), 11 "
               "reStructuredText manuals from /usr/share/cmake-3.25/Help/manual/ "
               "(cmake-buildsystem.7, cmake-language.7, cmake-generator-expressions.7, "
               "cmake-compile-features.7, cmake-packages.7, cmake-toolchains.7, "
               "cmake-qt.7, cmake-presets.7, cmake.1, ctest.1, cmake-developer.7), "
               "copied byte-for-byte; https://cmake.org/cmake/help/v3.25/",
        commit=version,
        license="BSD-3-Clause",
        attribution="CMake documentation, Copyright 2000-2022 Kitware, Inc., Insight "
                    "Software Consortium, distributed under the OSI-approved BSD 3-Clause "
                    "License (see LICENSE); unmodified .rst sources as shipped in "
                    "Debian's cmake-data package")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
