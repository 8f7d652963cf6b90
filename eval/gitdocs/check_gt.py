#!/usr/bin/env python3
"""Check the Git documentation corpus (gitdocs) and its needle-style ground truth
(gtcheck.py says what is checked): the AsciiDoc HTML pages of Debian's git-doc package,
which have no <main>, so citeline reads the whole <body>; every text check runs on
citeline's canonical text; title is the page's <title> as it is, sections are its <h2>
elements, and the package version read from its changelog.Debian.gz is compared with
"commit".

Usage: /work/main/.venv/bin/python check_gt.py [--no-rebuild]
  If git-doc is available (installed in /usr/share/doc/git-doc, or unpacked with
  `cd /tmp && apt-get download git-doc && dpkg-deb -x git-doc_*.deb gitdoc`, or named by
  the GITDOC_HTML environment variable), every document is copied afresh with
  build/copy.py into a temporary folder and compared byte-for-byte, and the package's
  version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(os.path.dirname(os.path.abspath(__file__)), "gitdocs_copy")

# Key terms that must NOT occur anywhere in the corpus (canonical texts) for each
# unanswerable query (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"\blfs\b", r"large file storage", r"git-lfs"],
    "u02": [r"\bcone\b", r"sparse-checkout (set|init|add)"],
    "u03": [r"partial clone", r"blobless", r"filter=blob", r"promisor"],
    "u04": [r"git maintenance", r"git-maintenance", r"prefetch", r"incremental[- ]repack"],
    "u05": [r"allowed.?signers", r"gpg\.format", r"ssh signing", r"signing key"],
    "u06": [r"ignore-revs", r"blame\.ignore", r"\breformat"],
    "u07": [r"orphan", r"gh-pages"],
    "u08": [r"fsmonitor", r"filesystem monitor", r"file system monitor"],
    "u09": [r"pre-push"],
    "u10": [r"includeIf", r"conditional include", r"gitdir:"],
    "u11": [r"force-with-lease", r"force-if-includes"],
    "u12": [r"sha-?256", r"object-format"],
    "u13": [r"longpaths", r"too long"],
    "u14": [r"protocol\.version", r"protocol v2", r"wire protocol"],
    "u15": [r"safe\.directory", r"dubious"],
    "u16": [r"pull\.rebase", r"pull\.ff", r"divergent", r"reconcile divergent"],
    "u17": [r"insteadOf"],
    "u18": [r"hooksPath"],
    "u19": [r"difftool", r"beyond compare"],
    "u20": [r"interpret-trailers", r"co-authored"],
    "u21": [r"\bscalar\b", r"monorepo"],
    "u22": [r"snowboard", r"\bwax"],
    "u23": [r"paint", r"second coat"],
    "u24": [r"parrot"],
    "u25": [r"firewood", r"wood stove", r"\bstove\b"],
    "u26": [r"origami", r"\bcrane\b"],
    "u27": [r"chewing gum", r"\bhair\b"],
    "u28": [r"pickles?\b", r"cucumber"],
    "u29": [r"piano"],
    "u30": [r"\bdeer\b", r"tulip"],
}


class GitDocs(gtcheck.HtmlCorpus):
    SRC_DIR = _copy.source_dir()
    SOURCE = "git-doc"
    SKIPPED = "skipped (git-doc not found: " + ", ".join(d for d in _copy.CANDIDATES if d) + ")"

    def sections(self, f):
        """<h2> elements of the page (its top-level sections). AsciiDoc's pages have no <main>:
        citeline reads the whole <body>, and every <h2> is content."""
        return len(re.findall(r"<h2[\s>]", self.raws[f]))

    def check_doc(self, f):
        secs, heads = self.sections(f), len(gtcheck.atx_lines(self.docs[f], 2))
        if heads != secs:
            self.fail(f"{f}: {secs} <h2> in the page but {heads} '## ' lines in the extracted text")

    def rebuild(self):
        if self.SRC_DIR is None:
            return None
        return self.copy_rebuild(
            "differs from a fresh copy of git-doc's page",
            lambda: gtcheck.changelog_version(os.path.join(self.SRC_DIR, "changelog.Debian.gz"), "git"),
            f"git-doc in {self.SRC_DIR}", "git-doc")


if __name__ == "__main__":
    GitDocs(__file__, UNANSWERABLE_TERMS).run()
