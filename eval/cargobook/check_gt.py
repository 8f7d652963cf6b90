#!/usr/bin/env python3
"""Check the Cargo Book corpus and its needle-style ground truth (gtcheck.py says what is
checked): mdBook's HTML pages from the installed Rust toolchain, every text check run on
citeline's canonical text; title and sections come from the page's <title> and the <h2>
elements of its <main>.

Usage: /work/main/.venv/bin/python check_gt.py [--no-rebuild]
  If the toolchain's Cargo Book is installed, every document is copied afresh with
  build/copy.py into a temporary folder and compared byte-for-byte, and the toolchain's
  cargo version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

TOOLCHAIN = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu"
SRC_DIR = os.path.join(TOOLCHAIN, "share/doc/rust/html/cargo")
CARGO = os.path.join(TOOLCHAIN, "bin/cargo")

# Key terms that must NOT occur anywhere in the corpus (canonical texts) for each
# unanswerable query (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"cargo fix", r"cargo-fix", r"--edition\b", r"idioms"],
    "u02": [r"clippy\.toml", r"cognitive", r"complexity"],
    "u03": [r"nextest", r"own process"],
    "u04": [r"\bmiri\b", r"memory errors?"],
    "u05": [r"\boidc\b", r"trusted publish", r"id-token"],
    "u06": [r"rustsec", r"advisor(y|ies)", r"vulnerab", r"cargo-audit"],
    "u07": [r"build-std", r"rust-src", r"standard library from source"],
    "u08": [r"single-file", r"frontmatter", r"cargo-script", r"#!/usr/bin/env cargo"],
    "u09": [r"llvm-cov", r"tarpaulin", r"code coverage", r"line-coverage", r"instrument-coverage"],
    "u10": [r"fuzz"],
    "u11": [r"binstall", r"prebuilt", r"pre-built"],
    "u12": [r"merge conflict", r"git merge", r"<<<<<<<"],
    "u13": [r"cargo[- ]expand", r"macro expansion", r"macro_rules"],
    "u14": [r"link\.exe", r"visual studio", r"build tools"],
    "u15": [r"semver-checks", r"public-api"],
    "u16": [r"jemalloc", r"allocator"],
    "u17": [r"profile-guided", r"\bpgo\b", r"llvm-profdata"],
    "u18": [r"sanitizer", r"\basan\b", r"out-of-bounds"],
    "u19": [r"\bmusl\b", r"crt-static", r"fully static"],
    "u20": [r"rust-analyzer", r"language server", r"\beditor\b"],
    "u21": [r"bisect"],
    "u22": [r"\bbasil\b", r"wilt"],
    "u23": [r"radiator", r"\bbleed"],
    "u24": [r"ukulele", r"\bchords?\b"],
    "u25": [r"candle", r"tablecloth"],
    "u26": [r"chicken", r"\bhens?\b", r"\beggs?\b"],
    "u27": [r"greyhound"],
    "u28": [r"cast iron", r"skillet"],
    "u29": [r"garlic", r"cloves?\b"],
    "u30": [r"hiccup", r"newborn"],
}


class CargoBook(gtcheck.HtmlCorpus):
    SRC_DIR = SRC_DIR
    TITLE_SUFFIX = " - The Cargo Book"
    SOURCE = "cargo"
    SKIPPED = f"skipped (no {SRC_DIR})"

    def sections(self, f):
        """<h2> elements inside <main>, the part citeline reads (the page's top-level sections;
        the one <h2> outside it is mdBook's hidden "Keyboard shortcuts" help)."""
        raw = self.raws[f]
        if "<main>" not in raw or "</main>" not in raw:
            return None
        return len(re.findall(r"<h2[\s>]", raw[raw.index("<main>"): raw.index("</main>")]))

    def check_doc(self, f):
        secs, heads = self.sections(f), len(gtcheck.atx_lines(self.docs[f], 2))
        if heads != secs:
            self.fail(f"{f}: {secs} <h2> in <main> but {heads} '## ' lines in the extracted text")

    def rebuild(self):
        if not os.path.isdir(SRC_DIR):
            return None
        return self.copy_rebuild(
            "differs from a fresh copy of the toolchain's Cargo Book",
            lambda: subprocess.run([CARGO, "--version"], check=True, capture_output=True,
                                   text=True).stdout.split()[1],
            "the toolchain's cargo", "cargo")


if __name__ == "__main__":
    CargoBook(__file__, UNANSWERABLE_TERMS).run()
