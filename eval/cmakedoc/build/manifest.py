#!/usr/bin/env python3
"""Write MANIFEST.json from docs/: chars = len(text); title = the document's first
level-1 reStructuredText section title; sections = its level-2 section titles (the
top-level sections under the title).  Levels follow reStructuredText: one level per
adornment style (underline character, with or without overline) in order of first use,
read as citeline's loader reads them."""
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ADORN = re.compile(r"([!-/:-@\[-`{-~])\1+[ \t]*")


def rst_headings(text):
    """[(first line, last line, level, title)] of every section title, in order."""
    lines = text.split("\n")
    out, styles, i = [], [], 0
    while i + 1 < len(lines):
        title = lines[i]
        under = ADORN.fullmatch(lines[i + 1])
        over = ADORN.fullmatch(lines[i - 1]) if i else None
        overlined = bool(over and under and over.group(1) == under.group(1))
        above_ok = i == 0 or not lines[i - 1].strip() or (
            overlined and (i == 1 or not lines[i - 2].strip()))
        name = title.strip()
        if (under and name and above_ok and not ADORN.fullmatch(title)
                and (overlined or not title[0].isspace()) and not title.startswith(".. ")
                and len(under.group().rstrip()) >= min(len(name), 4)):
            style = (under.group(1), overlined)
            if style not in styles:
                styles.append(style)
            out.append((i - 1 if overlined else i, i + 1, styles.index(style) + 1, name))
            i += 2
            continue
        i += 1
    return out


def main():
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "cmake-data"],
                             check=True, capture_output=True, text=True).stdout.strip()
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        with open(os.path.join(HERE, "docs", f), encoding="utf-8", newline="") as fh:
            text = fh.read()
        hs = rst_headings(text)
        title = next(h[3] for h in hs if h[2] == 1)
        docs.append({"file": f, "title": title, "chars": len(text),
                     "sections": sum(1 for h in hs if h[2] == 2)})
    manifest = {
        "source": "Debian package cmake-data (the CMake 3.25 documentation sources), 11 "
                  "reStructuredText manuals from /usr/share/cmake-3.25/Help/manual/ "
                  "(cmake-buildsystem.7, cmake-language.7, cmake-generator-expressions.7, "
                  "cmake-compile-features.7, cmake-packages.7, cmake-toolchains.7, "
                  "cmake-qt.7, cmake-presets.7, cmake.1, ctest.1, cmake-developer.7), "
                  "copied byte-for-byte; https://cmake.org/cmake/help/v3.25/",
        "commit": version,
        "license": "BSD-3-Clause",
        "attribution": "CMake documentation, Copyright 2000-2022 Kitware, Inc., Insight "
                       "Software Consortium, distributed under the OSI-approved BSD 3-Clause "
                       "License (see LICENSE); unmodified .rst sources as shipped in "
                       "Debian's cmake-data package",
        "documents": docs,
        "total_chars": sum(d["chars"] for d in docs),
        "total_sections": sum(d["sections"] for d in docs),
    }
    with open(os.path.join(HERE, "MANIFEST.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
