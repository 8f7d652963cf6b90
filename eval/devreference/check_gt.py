#!/usr/bin/env python3
"""Check the Debian Developer's Reference corpus and its needle-style ground truth
(gtcheck.py says what is checked): one EPUB e-book from Debian's developers-reference
package, every text check run on citeline's canonical text of it (its EPUB extractor).

What differs from gtcheck.py's rules, because the corpus is one book, not pages:
  - the document is a ZIP package, not text: MANIFEST's chars are the extracted text's
    length (what citeline's loader compares for a file that is not UTF-8 text), its title
    the extractor's (the package document's dc:title), its sections the '## ' lines of
    the extracted text (the numbered sections X.Y);
  - "needles cover at least 10 documents" means nothing for one book: instead the needles
    must cover every chapter of it (the '# ' lines: the eight numbered chapters and the
    appendix), checked here, and gtcheck's early / middle / late thirds are the book's;
  - "inside code" is inside a <pre> element of one of the book's chapter files;
  - no needle may occur in the text of a footnote (Sphinx's <aside class="footnote">),
    which html extractors before 19 dropped, so the needles are unique either way.

Usage: /work/main/.venv/bin/python check_gt.py [--no-rebuild]
  If the developers-reference EPUB is available (installed under /usr/share, unpacked
  under /tmp/devref, or named by $DEVREF_EPUB; see build/copy.py), the book is copied
  afresh with build/copy.py into a temporary folder and compared byte-for-byte, and the
  package version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(os.path.dirname(os.path.abspath(__file__)), "devreference_copy")
PACKAGE = "developers-reference"
LICENSE = "GPL-2.0-or-later"
# the chapters, as the '# ' lines of the extracted text (the book's title page first, its
# empty index last: neither is a chapter a needle could be in)
FRONT, BACK = "Debian Developer's Reference", "Index"
CHAPTERS = ["1. Scope of This Document", "2. Applying to Become a Member",
            "3. Debian Developer's Duties", "4. Resources for Debian Members", "5. Managing Packages",
            "6. Best Packaging Practices", "7. Beyond Packaging",
            "8. Internationalization and Translations", "1. Overview of Debian Maintainer Tools"]
CHAPTER_LABELS = ["1", "2", "3", "4", "5", "6", "7", "8", "A"]

# Key terms that must NOT occur anywhere in the corpus (canonical text) for each
# unanswerable query (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"reprotest", r"\breproducib"],  # "unreproducible" (a bug tag) occurs
    "u02": [r"debcargo", r"\bcrates?\b", r"\brust\b"],
    "u03": [r"salsa.ci", r"gitlab-ci", r"pipeline"],
    "u04": [r"appstream", r"metainfo"],
    "u05": [r"pybuild", r"dh.python"],
    "u06": [r"dh_installsystemd", r"systemctl", r"systemd service"],  # systemd.unit named once (duck)
    "u07": [r"golang", r"dh-make-golang"],
    "u08": [r"bash.completion", r"dh_bash"],
    "u09": [r"multi.?arch"],
    "u10": [r"gensymbols", r"symbols file"],
    "u11": [r"dkms", r"kernel module"],
    "u12": [r"\bdgit\b"],
    "u13": [r"popcon", r"popularity"],
    "u14": [r"npm2deb", r"node\.?js", r"\bnpm\b"],
    "u15": [r"initramfs", r"early boot"],
    "u16": [r"buildflags", r"fortify", r"(?-i:\bPIE\b)"],
    "u17": [r"debmirror", r"partial mirror"],
    "u18": [r"code search", r"codesearch"],
    "u19": [r"reimburs", r"(?-i:\bSPI\b)", r"travel"],
    "u20": [r"yubikey", r"smart.?card"],
    "u21": [r"xvfb", r"headless"],
    "u22": [r"stitch", r"\bknit"],
    "u23": [r"\blatte\b", r"flat white"],
    "u24": [r"puppy", r"\bcrate\b"],
    "u25": [r"paddleboard", r"puncture"],
    "u26": [r"constellation", r"naked eye"],
    "u27": [r"sponge cake", r"\bbake\b"],
    "u28": [r"highlands", r"hill walking"],
    "u29": [r"greenfly", r"\broses?\b"],
    "u30": [r"bowling", r"ten-pin"],
}


def squash(text):
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


class DevReference(gtcheck.Corpus):
    FILE_NAME = r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.epub"
    COMMIT_IS = "a Debian package version string"
    SOURCE = PACKAGE
    SECTIONS = "'## ' sections"
    TITLE_IS = "extractor's title (dc:title)"
    CODE = "<pre> blocks"
    EXTRACTED = True
    UNIT = "block"
    SRC_DIR = _copy.source_dir()
    SKIPPED = f"skipped ({PACKAGE} EPUB not found)"

    def __init__(self, script, unanswerable_terms):
        super().__init__(script, unanswerable_terms)
        self.titles, self.pres, self.footnotes = {}, {}, {}
        self.chapter_hits = {}

    # ------------------------------------------------------------ the book
    def read_book(self, f):
        """citeline's canonical text and title of the book, and the squashed text of its
        chapter files' <pre> elements and footnotes (read with the extractor's parser)."""
        from citeline.extract import extractor_for
        from citeline.extract.html import LexborHTMLParser

        p = Path(self.docs_dir, f)
        doc = extractor_for(p).extract(p, f)
        pres, notes = [], []
        with zipfile.ZipFile(p) as z:
            for name in sorted(z.namelist()):
                if name.endswith(".xhtml") and name != "nav.xhtml":
                    tree = LexborHTMLParser(z.read(name).decode("utf-8"))
                    pres += [n.text() for n in tree.css("pre")]
                    notes += [squash(n.text()) for n in tree.css("aside.footnote")]
        return doc, pres, notes

    def check_manifest(self, manifest):
        if manifest.get("license") != LICENSE:
            self.fail(f"MANIFEST license is {manifest.get('license')!r}, want {LICENSE!r}")

    def read_docs(self):
        """The book read by citeline's extractor: an EPUB is a ZIP package, not UTF-8 text,
        so its extracted text is both what needles are found in and what the loader counts
        as its characters (gtcheck's manifest check compares them with MANIFEST)."""
        self.files = files = sorted(f for f in os.listdir(self.docs_dir) if not f.startswith("."))
        for f in files:
            if not re.fullmatch(self.FILE_NAME, f):
                self.fail(f"bad document file name {f}")
            if not zipfile.is_zipfile(Path(self.docs_dir, f)):
                self.fail(f"{f}: not a ZIP package (an EPUB is one)")
                continue
            doc, self.pres[f], self.footnotes[f] = self.read_book(f)
            self.docs[f] = self.raws[f] = doc.text
            self.titles[f] = doc.title
        self.check_files(files)
        return files

    def title(self, f):
        return self.titles.get(f)

    def sections(self, f):
        return len(gtcheck.atx_lines(self.docs[f], 2))

    def chapter_starts(self, f):
        from citeline.chunk import headings

        return [(h.start, h.title) for h in headings(self.docs[f], "atx") if h.level == 1]

    def check_doc(self, f):
        heads = [h for _, h in self.chapter_starts(f)]
        if heads != [FRONT, *CHAPTERS, BACK]:
            self.fail(f"{f}: the '# ' lines are {heads}, want the title page, the chapters and the index")

    def chapter_of(self, f, off):
        label = None
        for start, head in self.chapter_starts(f):
            if start > off:
                break
            label = CHAPTER_LABELS[CHAPTERS.index(head)] if head in CHAPTERS else head
        return label

    # ------------------------------------------------------------ needles
    def in_code(self, f, off, end, first, last):
        needle = squash(self.docs[f][off:end])
        return any(needle in squash(p) for p in self.pres[f])

    def check_needle(self, tag, gid, f, needle, first, code):
        chapter = self.chapter_of(f, self.docs[f].find(needle))
        if chapter not in CHAPTER_LABELS:
            self.fail(f"{tag}: needle is in no chapter ({chapter!r})")
        self.chapter_hits[chapter] = self.chapter_hits.get(chapter, 0) + 1
        if any(squash(needle) in n for n in self.footnotes[f]):
            self.fail(f"{tag}: needle also occurs in a footnote, which html extractors "
                      "before 19 dropped")

    def _check_questions(self):
        # one book: gtcheck's "at least 10 documents" is replaced by "every chapter"
        saved, gtcheck.MIN_DOCS = gtcheck.MIN_DOCS, 1
        try:
            super()._check_questions()
        finally:
            gtcheck.MIN_DOCS = saved
        missing = [c for c in CHAPTER_LABELS if c not in self.chapter_hits]
        if missing:
            self.fail(f"needles cover {len(self.chapter_hits)} of {len(CHAPTER_LABELS)} chapters; none in {missing}")

    def gt_lines(self):
        return ["chapters : " + ", ".join(f"{c}:{self.chapter_hits.get(c, 0)}" for c in CHAPTER_LABELS)]

    def corpus_lines(self, tot_c, tot_s):
        nbytes = sum(len(Path(self.docs_dir, f).read_bytes()) for f in self.files)
        pres = [p for ps in self.pres.values() for p in ps]
        notes = [n for ns in self.footnotes.values() for n in ns]
        return [f"corpus   : {len(self.files)} docs, {nbytes:,} bytes, {tot_c:,} extracted chars, "
                f"{tot_s} {self.SECTIONS}; source {self.SOURCE} {self.manifest.get('commit', '')}",
                f"code     : {len(pres)} <pre> blocks, {sum(len(p) for p in pres):,} chars; "
                f"{len(notes)} footnotes, {sum(len(n) for n in notes):,} chars"]

    def doc_label(self, f):
        return f[:2]

    # ------------------------------------------------------------ source
    def rebuild(self):
        if self.SRC_DIR is None:
            return None
        changelog = os.path.join(os.path.dirname(self.SRC_DIR), "doc", PACKAGE, "changelog.gz")
        try:
            same = self.fresh_copy("copy.py", f"differs from a fresh copy of the {PACKAGE} EPUB")
            version = gtcheck.dpkg_version(PACKAGE) or gtcheck.changelog_version(changelog)
            self.check_version(version, PACKAGE)
        except (subprocess.CalledProcessError, OSError) as e:
            return f"rebuild failed ({e})"
        return (f"{same}/{len(self.files)} docs byte-identical to a fresh copy "
                f"from {self.SRC_DIR} ({PACKAGE} {version})")


if __name__ == "__main__":
    DevReference(__file__, UNANSWERABLE_TERMS).run()
