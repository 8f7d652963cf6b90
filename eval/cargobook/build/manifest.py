#!/usr/bin/env python3
"""Write MANIFEST.json from docs/.

chars    = characters of the raw file (UTF-8 decoded), which is what citeline's loader
           compares (the needles, by contrast, are cut from the extracted text);
title    = the page's <title> minus " - The Cargo Book";
sections = the number of <h2> elements inside the page's <main> (its top-level sections:
           each page has one <h1>, the chapter title; the extracted text shows the <h2> as
           '## ' lines).
"commit" is the version of the toolchain's cargo whose book was copied (`cargo --version`).

Run with citeline's interpreter: /work/main/.venv/bin/python build/manifest.py"""
import html
import importlib.util
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# build/copy.py holds the page list; load it by path (its name would shadow the stdlib `copy`)
_spec = importlib.util.spec_from_file_location("cargobook_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)
PAGES = _copy.PAGES

CARGO = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo"
SUFFIX = " - The Cargo Book"


def page_title(raw):
    m = re.search(r"<title>(.*?)</title>", raw, re.S)
    t = html.unescape(m.group(1)).strip()
    assert t.endswith(SUFFIX), t
    return t[: -len(SUFFIX)]


def h2_count(raw):
    """<h2> elements inside the page's <main> (the part citeline reads; the one <h2> outside
    it, mdBook's hidden "Keyboard shortcuts" help, is not content)."""
    main = raw[raw.index("<main>"): raw.index("</main>")]
    return len(re.findall(r"<h2[\s>]", main))


def cargo_version():
    out = subprocess.run([CARGO, "--version"], check=True, capture_output=True, text=True).stdout
    return out.split()[1], out.strip()


def main():
    version, full = cargo_version()
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        raw = open(os.path.join(HERE, "docs", f), "rb").read().decode("utf-8")
        docs.append({"file": f, "title": page_title(raw), "chars": len(raw), "sections": h2_count(raw)})
    manifest = {
        "source": f"The Cargo Book as shipped with the stable Rust toolchain ({full}), {len(PAGES)} "
                  "mdBook HTML pages copied byte-for-byte from "
                  "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/cargo/ ("
                  + ", ".join(src[:-5] for _, src in PAGES)
                  + "); https://github.com/rust-lang/cargo (src/doc/), https://doc.rust-lang.org/cargo/",
        "commit": version,
        "license": "MIT OR Apache-2.0",
        "attribution": "The Cargo Book, by the Cargo team and contributors (https://github.com/rust-lang/cargo), "
                       "licensed under the MIT license or the Apache License 2.0, at your option (see "
                       "LICENSE); copied unmodified from the Rust toolchain's documentation",
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
