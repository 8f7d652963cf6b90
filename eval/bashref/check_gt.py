#!/usr/bin/env python3
"""Check the Bash Reference Manual corpus and its needle-style ground truth (gtcheck.py says
what is checked): one PDF (Texinfo, pdfTeX) from Debian's bash-doc package, every text check
run on citeline's canonical text (its PDF extraction). What differs from gtcheck's classes:

- the document is a PDF, not UTF-8 text: its "characters" (MANIFEST chars, what citeline's
  loader compares for such a file) are those of the extracted text; its title is the title
  page's first line (the PDF's /Title is empty; citeline titles it so since pdf extractor 12,
  by its file name before), and a note names any other title citeline gives; its sections
  are the headings citeline's PDF extractor places from the bookmarks (its outline: all 141
  since pdf extractor 10, which reads "Appendix A Reporting Bugs" as the bookmark "Reporting
  Bugs"), and any bookmark it does not place is named in a note;
- a needle must touch no heading line: the outline's, an appendix title line ("Appendix A
  Reporting Bugs", not placed before pdf extractor 10), nor a running head ("Chapter 3: Basic
  Shell Features 13") or a page number alone on its line, which pdf extractor 10 leaves out
  and versions before it kept;
- "inside code" is inside a line set wholly in the typewriter font (CMTT: Texinfo's example
  blocks and the names it sets alone on a line), read from the PDF's fonts;
- one document holds all 32 needles, so the rule "10 documents covered" is replaced by "10
  chapters or appendices covered" (a context line names them).

Usage: /work/main/.venv/bin/python check_gt.py [--no-rebuild]
  If bash-doc's bashref.pdf is available (installed, unpacked under /tmp/bashdoc, or named
  by $BASHREF_PDF; see build/copy.py), it is copied afresh with build/copy.py into a temporary
  folder and compared byte-for-byte, and the package version is compared with MANIFEST's
  "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import ctypes
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(os.path.dirname(os.path.abspath(__file__)), "bashref_copy")
PACKAGE = "bash-doc"
LICENSE = "GFDL-1.3-no-invariants-or-later"
MIN_PARTS = 10   # chapters or appendices holding a needle
# a running head ("Chapter 3: Basic Shell Features 13", "Appendix B: ... 169") and a page
# number alone ("167", "iii"), which pdf extractors before 10 kept, and an appendix title,
# which they did not place as a heading: still refused should an extraction keep them
RUNNING_HEAD = re.compile(r"(?:Chapter \d+|Appendix [A-D]): .* \d+")
PAGE_NUMBER = re.compile(r"\d+|[ivx]+")
APPENDIX = re.compile(r"Appendix ([A-D]) \S.*")
TYPEWRITER = re.compile(r"CMTT|CMSLTT|CMITT")

# Key terms that must NOT occur anywhere in the corpus (canonical text) for each
# unanswerable query (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"\bzsh", r"oh-my"],
    "u02": [r"\bfish\b", r"\babbr\b"],
    "u03": [r"shellcheck", r"SC2086"],
    "u04": [r"tmux", r"terminal multiplexer"],
    "u05": [r"crontab", r"\bcron\b"],
    "u06": [r"systemd", r"systemctl"],
    "u07": [r"\bbats\b", r"unit test"],
    "u08": [r"\bjq\b", r"\bjson\b"],
    "u09": [r"starship", r"powerline"],
    "u10": [r"ssh-agent", r"ssh-add"],
    "u11": [r"\bwsl\b", r"windows subsystem"],
    "u12": [r"homebrew", r"macos", r"\bbrew\b"],
    "u13": [r"bashdb", r"breakpoint"],
    "u14": [r"\bgetopt\b", r"util-linux"],
    "u15": [r"\bflock\b", r"lock ?file"],
    "u16": [r"\bmailx\b", r"sendmail"],
    "u17": [r"whiptail", r"progress bar"],
    "u18": [r"dos2unix", r"\bcrlf\b"],
    "u19": [r"rsync"],
    "u20": [r"__git_ps1", r"git-prompt"],
    "u21": [r"direnv", r"\.envrc"],
    "u22": [r"chainsaw"],
    "u23": [r"mackerel", r"fillet"],
    "u24": [r"\bgrout", r"\btiles?\b"],
    "u25": [r"cockatiel", r"\bbird"],
    "u26": [r"potato", r"\broast"],
    "u27": [r"\bski\b", r"\bboots?\b"],
    "u28": [r"\blawn", r"reseed"],
    "u29": [r"mahjong", r"\btiles?\b"],
    "u30": [r"\bcanoe", r"\bpaddl"],
}


def _page_typewriter_lines(textpage):
    """The text lines (whitespace squashed) of one PDFium text page whose every visible
    character is set in a typewriter font."""
    import pypdfium2.raw as pdfium_c

    buf = ctypes.create_string_buffer(256)
    flags = ctypes.c_int()
    lines, cur, fonts = set(), [], []
    for k in range(textpage.count_chars() + 1):
        ch = chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, k)) if k < textpage.count_chars() else "\n"
        if ch in "\r\n":
            text = " ".join("".join(cur).split())
            if text and fonts and all(TYPEWRITER.search(fn) for fn in fonts):
                lines.add(text)
            cur, fonts = [], []
            continue
        cur.append(ch)
        if not ch.isspace():
            pdfium_c.FPDFText_GetFontInfo(textpage.raw, k, buf, 256, ctypes.byref(flags))
            fonts.append(buf.value.decode("latin-1"))
    return lines


def typewriter_lines(pdf_path):
    """For each page (0-based), the set of its text lines (whitespace squashed) set wholly in
    a typewriter font, read from PDFium's text page."""
    import pypdfium2 as pdfium

    out = []
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            tp = page.get_textpage()
            out.append(_page_typewriter_lines(tp))
            tp.close()
            page.close()
    finally:
        pdf.close()
    return out


class BashRef(gtcheck.Corpus):
    FILE_NAME = r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.pdf"
    SOURCE = PACKAGE
    SECTIONS = "sections (bookmark headings)"
    TITLE_IS = "the title page's first line"
    CODE = "typewriter lines"
    EXTRACTED = True
    SKIPPED = f"skipped ({PACKAGE}'s bashref.pdf not found)"

    def __init__(self, script, unanswerable_terms):
        super().__init__(script, unanswerable_terms)
        self.pdfs, self.bookmarks, self.parts = {}, {}, {}

    # ------------------------------------------------------------ reading the PDF
    def read_docs(self):
        """Each PDF read by citeline's extractor: its text is both what needles are found in
        and what the loader counts as its characters (a PDF is not UTF-8 text)."""
        from citeline.extract import extractor_for

        self.files = files = sorted(f for f in os.listdir(self.docs_dir) if not f.startswith("."))
        for f in files:
            if not re.fullmatch(self.FILE_NAME, f):
                self.fail(f"bad document file name {f}")
            p = Path(self.docs_dir, f)
            doc = extractor_for(p).extract(p, f)
            self.pdfs[f] = doc
            self.raws[f] = self.docs[f] = doc.text
        self.check_files(files)
        return files

    def title(self, f):
        return self.docs[f].split("\n", 1)[0].strip() or None

    def sections(self, f):
        """The headings citeline's PDF extractor places from the bookmarks (all levels)."""
        return len(self.pdfs[f].outline)

    def check_manifest(self, manifest):
        if manifest.get("license") != LICENSE:
            self.fail(f"MANIFEST license is {manifest.get('license')!r}, want {LICENSE!r}")

    def check_doc(self, f):
        import pypdfium2 as pdfium

        doc = self.pdfs[f]
        if doc.headings != "outline":
            self.fail(f"{f}: the extractor found no bookmarks (headings {doc.headings!r})")
        pdf = pdfium.PdfDocument(str(Path(self.docs_dir, f)))
        try:
            titles = [" ".join(b.get_title().split()) for b in pdf.get_toc(max_depth=6)]
        finally:
            pdf.close()
        placed = {h.title for h in doc.outline}
        missing = [t for t in titles if t not in placed]
        self.bookmarks[f] = (len(titles), missing)
        if missing:
            self.notes.append(f"{f}: {len(missing)} of {len(titles)} bookmarks not placed as headings "
                              f"by the extractor: {missing}")
        if doc.title != self.title(f):
            self.notes.append(f"{f}: citeline titles the document {doc.title!r}, not by the "
                              "title page's first line")

    # ------------------------------------------------------------ headings and code
    def _head_lines(self, f):
        if not hasattr(self, "_heads"):
            self._heads = {}
        if f not in self._heads:
            lines = set()
            for h in self.pdfs[f].outline:
                lines.update(range(self.line_of(f, h.start), self.line_of(f, max(h.start, h.end - 1)) + 1))
            for ln, line in enumerate(self.docs[f].split("\n")):
                s = line.strip()
                if RUNNING_HEAD.fullmatch(s) or PAGE_NUMBER.fullmatch(s) or APPENDIX.fullmatch(s):
                    lines.add(ln)
            self._heads[f] = lines
        return self._heads[f]

    def is_heading(self, f, ln, line):
        return ln in self._head_lines(f)

    def code_lines(self, f):
        tt = typewriter_lines(Path(self.docs_dir, f))
        lines = self.docs[f].split("\n")
        out = [False] * len(lines)
        for r in self.pdfs[f].regions:
            if r.page is None:
                continue
            for ln in range(self.line_of(f, r.start), self.line_of(f, max(r.start, r.end - 1)) + 1):
                out[ln] = " ".join(lines[ln].split()) in tt[r.page - 1]
        return out

    def part_problems(self, part):
        if RUNNING_HEAD.fullmatch(part.strip()):
            yield "a line of the needle is a running head"

    # ------------------------------------------------------------ one document, many parts
    def part_of(self, f, off):
        """The chapter ('3') or appendix ('B') whose text holds offset off: the last level-1
        heading of the outline ('3 Basic Shell Features', 'Appendix B Major ...'), or appendix
        title line, before it."""
        text, best, name = self.docs[f], -1, None
        for h in self.pdfs[f].outline:
            if h.level == 1 and best < h.start <= off:
                words = text[h.start:h.end].split()
                best, name = h.start, words[1] if words[0] == "Appendix" else words[0]
        for m in re.finditer(r"^Appendix ([A-D]) \S", text, re.M):
            if best < m.start() <= off:
                best, name = m.start(), m.group(1)
        return name

    def check_needle(self, tag, gid, f, needle, first, code):
        self.parts[gid] = self.part_of(f, self.docs[f].index(needle))

    def _check_questions(self):
        super()._check_questions()
        # one document: the needles are spread over its chapters instead of over documents
        self.errors = [e for e in self.errors if not e.startswith("needles cover ")]
        covered = {p for p in self.parts.values() if p}
        if len(covered) < MIN_PARTS:
            self.fail(f"needles cover {len(covered)} chapters or appendices, want >= {MIN_PARTS}")

    def gt_lines(self):
        count = {}
        for p in self.parts.values():
            count[p] = count.get(p, 0) + 1
        key = lambda p: (not p.isdigit(), int(p) if p.isdigit() else p)  # noqa: E731
        return ["context  : needles in " + str(len(count)) + " chapters and appendices: "
                + ", ".join(f"{p}:{count[p]}" for p in sorted(count, key=key))]

    def corpus_lines(self, tot_c, tot_s):
        nbytes = sum(len(Path(self.docs_dir, f).read_bytes()) for f in self.files)
        pages = sum(len({r.page for r in self.pdfs[f].regions}) for f in self.files)
        marks = sum(self.bookmarks.get(f, (0, []))[0] for f in self.files)
        tt = sum(sum(self._code[f]) for f in self.files) if hasattr(self, "_code") else 0
        tt_chars = sum(len(line) for f in self.files
                       for line, c in zip(self.docs[f].split("\n"), self._code.get(f, [])) if c) \
            if hasattr(self, "_code") else 0
        return [f"corpus   : {len(self.files)} docs, {nbytes:,} bytes, {pages} pages with text, "
                f"{tot_c:,} extracted chars, {tot_s} {self.SECTIONS} of {marks} bookmarks; "
                f"source {self.SOURCE} {self.manifest.get('commit', '')}",
                f"code     : {tt:,} typewriter lines, {tt_chars:,} extracted chars"]

    def rebuild(self):
        if _copy.source_file() is None:
            return None
        try:
            same = self.fresh_copy("copy.py", f"differs from a fresh copy of {PACKAGE}'s bashref.pdf")
            version = gtcheck.dpkg_version(PACKAGE) or gtcheck.changelog_version(_copy.changelog())
            self.check_version(version, f"{PACKAGE} version")
        except (subprocess.CalledProcessError, OSError) as e:
            return f"rebuild failed ({e})"
        return (f"{same}/{len(self.files)} docs byte-identical to a fresh copy "
                f"of {_copy.source_file()} ({PACKAGE} {version})")


if __name__ == "__main__":
    BashRef(__file__, UNANSWERABLE_TERMS).run()
