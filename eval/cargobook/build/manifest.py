#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's CargoBook (through
gtcheck.manifest_documents), the code that checks it:

chars    = characters of the raw file (UTF-8 decoded), which is what citeline's loader
           compares (the needles, by contrast, are cut from the extracted text);
title    = the page's <title> minus " - The Cargo Book";
sections = the number of <h2> elements inside the page's <main> (its top-level sections:
           each page has one <h1>, the chapter title; the extracted text shows the <h2> as
           '## ' lines; the one <h2> outside it, mdBook's hidden "Keyboard shortcuts" help,
           is not content).
"commit" is the version of the toolchain's cargo whose book was copied (`cargo --version`).

Run with citeline's interpreter: /work/main/.venv/bin/python build/manifest.py"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

PAGES = gtcheck.load_build_module(HERE, "cargobook_copy").PAGES
CHECK = gtcheck.load_check(HERE, "cargobook_check")

CARGO = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo"


def cargo_version():
    out = subprocess.run([CARGO, "--version"], check=True, capture_output=True, text=True).stdout
    return out.split()[1], out.strip()


def main():
    version, full = cargo_version()
    docs = gtcheck.manifest_documents(CHECK.CargoBook, HERE)
    manifest = gtcheck.write_manifest(
        HERE, docs,
        source=f"The Cargo Book as shipped with the stable Rust toolchain ({full}), {len(PAGES)} "
               "mdBook HTML pages copied byte-for-byte from "
               "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/cargo/ ("
               + ", ".join(src[:-5] for _, src in PAGES)
               + "); https://github.com/rust-lang/cargo (src/doc/), https://doc.rust-lang.org/cargo/",
        commit=version,
        license="MIT OR Apache-2.0",
        attribution="The Cargo Book, by the Cargo team and contributors (https://github.com/rust-lang/cargo), "
                    "licensed under the MIT license or the Apache License 2.0, at your option (see "
                    "LICENSE); copied unmodified from the Rust toolchain's documentation")
    for d in docs:
        print(d)
    print(manifest["total_chars"], manifest["total_sections"])


if __name__ == "__main__":
    main()
