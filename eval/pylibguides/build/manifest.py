#!/usr/bin/env python3
"""Write MANIFEST.json from docs/ (versions read from the vendored projects' version
files): chars = len(text); title = the document's first
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


SRC_ROOT = "/usr/lib/google-cloud-sdk/platform/gsutil/third_party"


def _version(path, pattern):
    with open(os.path.join(SRC_ROOT, path), encoding="utf-8") as fh:
        return ".".join(re.search(pattern, fh.read()).groups())


def versions():
    """The vendored versions, read from each project's version file."""
    return {
        "requests": _version("requests/src/requests/__version__.py", r'__version__ = "([\d.]+)"'),
        "urllib3": _version("urllib3/src/urllib3/_version.py", r'__version__ = "([\d.]+)"'),
        "google-auth": _version("google-auth-library-python/google/auth/version.py",
                                r'__version__ = "([\d.]+)"'),
        "pyparsing": _version("pyparsing/pyparsing/__init__.py",
                              r"__version_info__ = version_info\((\d+), (\d+), (\d+)"),
    }


def main():
    v = versions()
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        with open(os.path.join(HERE, "docs", f), encoding="utf-8", newline="") as fh:
            text = fh.read()
        hs = rst_headings(text)
        title = next(h[3] for h in hs if h[2] == 1)
        docs.append({"file": f, "title": title, "chars": len(text),
                     "sections": sum(1 for h in hs if h[2] == 2)})
    manifest = {
        "source": "The reStructuredText user-guide sources of four Python libraries, as vendored "
                  "by the Google Cloud SDK's gsutil (/usr/lib/google-cloud-sdk/platform/gsutil/"
                  "third_party/): requests docs/user/quickstart.rst, advanced.rst, "
                  "authentication.rst, docs/community/faq.rst, recommended.rst; urllib3 "
                  "docs/user-guide.rst, advanced-usage.rst, v2-migration-guide.rst; "
                  "google-auth-library-python docs/user-guide.rst, oauth2client-deprecation.rst; "
                  "pyparsing docs/HowToUsePyparsing.rst, whats_new_in_3_0_0.rst; copied "
                  "byte-for-byte; https://github.com/psf/requests, "
                  "https://github.com/urllib3/urllib3, "
                  "https://github.com/googleapis/google-auth-library-python, "
                  "https://github.com/pyparsing/pyparsing",
        "commit": ", ".join(f"{k} {x}" for k, x in v.items()),
        "license": ["Apache-2.0 (requests)", "MIT (urllib3)", "Apache-2.0 (google-auth)",
                    "MIT (pyparsing)"],
        "attribution": "requests documentation, Copyright 2019 Kenneth Reitz (Apache-2.0, NOTICE "
                       "reproduced in LICENSE); urllib3 documentation, Copyright (c) 2008-2020 "
                       "Andrey Petrov and contributors (MIT); google-auth documentation, "
                       "Copyright 2016 Google, Inc. (Apache-2.0); pyparsing documentation, "
                       "Copyright 2003-2023 Paul McGuire (MIT); unmodified .rst sources, see "
                       "LICENSE",
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
