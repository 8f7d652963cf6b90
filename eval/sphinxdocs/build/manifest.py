#!/usr/bin/env python3
"""Write MANIFEST.json from docs/ (the original paths from build/copy.py): chars = len(text)
(the file's characters, which is what citeline's loader compares; for these UTF-8 .rst
files it is also the length of citeline's canonical text); title = the document's first
level-1 reStructuredText section title; sections = its level-2 section titles (the
top-level sections under the title).  Levels follow reStructuredText: one level per
adornment style (underline character, with or without overline) in order of first use,
read as citeline's loader reads them."""
import json
import os
import re

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


import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location("copy_pages", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)


def main():
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        with open(os.path.join(HERE, "docs", f), encoding="utf-8", newline="") as fh:
            text = fh.read()
        hs = rst_headings(text)
        title = next(h[3] for h in hs if h[2] == 1)
        docs.append({"file": f, "title": title, "chars": len(text),
                     "sections": sum(1 for h in hs if h[2] == 2)})
    originals = "; ".join(f"{n:02d}-{name}.rst <- {src}"
                          for n, (src, name) in enumerate(_copy.PAGES, 1))
    manifest = {
        "source": "Sphinx 5.3 documentation, reStructuredText sources as shipped in Debian's "
                  "sphinx-doc package 5.3.0-4 (sphinx-doc_5.3.0-4_all.deb, sha256 "
                  + _copy.DEB_SHA256 + "; source package sphinx), "
                  "/usr/share/doc/sphinx-doc/html/_sources/; https://www.sphinx-doc.org/, "
                  "https://github.com/sphinx-doc/sphinx; 30 pages (the usage guide, "
                  "templating, three man pages, four tutorial pages and the FAQ) copied "
                  "byte-for-byte, renamed with a reading-order prefix and .rst: " + originals,
        "commit": "5.3.0-4",
        "license": "BSD-2-Clause",
        "attribution": "Sphinx documentation, Copyright 2007-2022 the Sphinx team (see the AUTHORS "
                       "file of Sphinx), distributed under the BSD 2-Clause License (see LICENSE); "
                       "unmodified .rst sources as shipped in Debian",
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
