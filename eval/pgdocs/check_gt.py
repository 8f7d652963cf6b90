#!/usr/bin/env python3
"""Check the PostgreSQL documentation corpus and its needle-style ground truth (gtcheck.py
says what is checked): the DocBook HTML pages of Debian's postgresql-doc-15 package, every
text check run on citeline's canonical text; title is the page's <title> as it is;
sections are the page's <div class="sect2"> elements (its numbered subsections,
cross-checked with the '### N.N.N. ' lines of the extracted text).

Usage: /work/main/.venv/bin/python check_gt.py [--no-rebuild]
  If the postgresql-doc-15 HTML is available (installed under /usr/share/doc, unpacked
  under /tmp/pgdoc, or named by $PGDOC_HTML; see build/copy.py), every document is copied
  afresh with build/copy.py into a temporary folder and compared byte-for-byte, and the
  package version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(os.path.dirname(os.path.abspath(__file__)), "pgdocs_copy")
PACKAGE = "postgresql-doc-15"

# Key terms that must NOT occur anywhere in the corpus (canonical texts) for each
# unanswerable query (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"pgbouncer", r"transaction pooling"],
    "u02": [r"ts_rank", r"tsvector", r"text search"],
    "u03": [r"pgstattuple", r"free_percent", r"dead_tuple_percent"],
    "u04": [r"at time zone", r"without time zone"],
    "u05": [r"return query", r"returns table", r"\bsetof\b"],
    "u06": [r"pg_repack", r"repack"],
    "u07": [r"patroni", r"\betcd\b"],
    "u08": [r"postgis", r"alter extension"],
    "u09": [r"pg_cron", r"cron\.schedule"],
    "u10": [r"event trigger", r"ddl_command"],
    "u11": [r"log_rotation", r"log_filename", r"log rotation", r"rotate (the |its )?log"],
    "u12": [r"window function", r"running total", r"\bover \("],
    "u13": [r"pg_checksums", r"data-checksums"],
    "u14": [r"jsonb", r"json document"],
    "u15": [r"auto_explain", r"log_min_duration"],
    "u16": [r"pgbench"],
    "u17": [r"kerberos", r"keytab", r"\bkrb"],
    "u18": [r"pg_hint_plan", r"/\*\+"],
    "u19": [r"plan_cache_mode", r"generic plan", r"custom plan"],
    "u20": [r"\bjit\b", r"just-in-time"],
    "u21": [r"fillfactor", r"heap-only", r"\bHOT update"],
    "u22": [r"\bskis?\b", r"\bwax\b"],
    "u23": [r"christmas", r"\bpine\b"],
    "u24": [r"plaster"],
    "u25": [r"aquarium", r"tropical", r"\bfish\b"],
    "u26": [r"chewing gum", r"\bgum\b", r"\bhair\b"],
    "u27": [r"cricket", r"hat-trick"],
    "u28": [r"cycling", r"sportive", r"kilomet"],
    "u29": [r"\bdeer\b", r"hostas?\b"],
    "u30": [r"baking soda", r"baking powder"],
}


class PgDocs(gtcheck.HtmlCorpus):
    SRC_DIR = _copy.source_dir()
    SOURCE = PACKAGE
    SECTIONS = "sections (sect2)"
    SKIPPED = f"skipped ({PACKAGE} HTML not found)"

    def sections(self, f):
        """<div class="sect2"> elements: the page's numbered subsections (each page is one DocBook
        sect1 whose title is its only <h2>; the sect2 titles are <h3>, like the admonitions'
        "Tip" / "Note" titles, which are not sections)."""
        return len(re.findall(r'<div class="sect2"', self.raws[f]))

    def check_doc(self, f):
        secs, text = self.sections(f), self.docs[f]
        heads = sum(bool(re.match(r"### \d+(?:\.\d+)+\. ", h)) for h in gtcheck.atx_lines(text, 3))
        if heads != secs:
            self.fail(f"{f}: {secs} sect2 elements but {heads} '### N.N.N. ' lines in the extracted text")
        if len(gtcheck.atx_lines(text, 2)) != 1:
            self.fail(f"{f}: the extracted text should have exactly one '## ' line (the page title)")

    def rebuild(self):
        if self.SRC_DIR is None:
            return None
        return self.copy_rebuild(f"differs from a fresh copy of the {PACKAGE} HTML",
                                 lambda: gtcheck.installed_version(PACKAGE, self.SRC_DIR), PACKAGE, PACKAGE)


if __name__ == "__main__":
    PgDocs(__file__, UNANSWERABLE_TERMS).run()
