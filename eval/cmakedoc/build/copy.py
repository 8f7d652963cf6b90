#!/usr/bin/env python3
"""Copy the chosen CMake 3.25 manuals byte-for-byte into docs/ (or into the folder given
as the first argument), renamed with a numeric prefix in reading order.  No conversion:
citeline reads reStructuredText, so the raw .rst file is the canonical text."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC_DIR = "/usr/share/cmake-3.25/Help/manual"
MANUALS = [
    "cmake-buildsystem.7.rst",
    "cmake-language.7.rst",
    "cmake-generator-expressions.7.rst",
    "cmake-compile-features.7.rst",
    "cmake-packages.7.rst",
    "cmake-toolchains.7.rst",
    "cmake-qt.7.rst",
    "cmake-presets.7.rst",
    "cmake.1.rst",
    "ctest.1.rst",
    "cmake-developer.7.rst",
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for n, name in enumerate(MANUALS, 1):
        dest = os.path.join(out, f"{n:02d}-{name}")
        shutil.copyfile(os.path.join(SRC_DIR, name), dest)
        print(dest, os.path.getsize(dest))


if __name__ == "__main__":
    main()
