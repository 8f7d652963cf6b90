#!/usr/bin/env python3
"""Check the Debian Administrator's Handbook corpus and its needle-style ground truth
(gtcheck.py says what is checked): English HTML pages (Publican, DocBook) of Debian's
debian-handbook package, every text check run on citeline's canonical text; title is the
page's <title> as it is; sections are the page's <h3> elements (the numbered sections
X.Y.Z), cross-checked with the '### ' lines of the extracted text; a chapter page must have
exactly one '# ' line, its title, and a section page none, its first '## ' line being its
title; and no needle may occur in the text of a boxed aside (<div class="sidebar">), which
html extractors before 18 dropped, so that the needles are unique with the boxes read or not.

Usage: /work/main/.venv/bin/python check_gt.py [--no-rebuild]
  If the debian-handbook HTML is available (installed under /usr/share/doc, unpacked under
  /tmp/debhandbook, or named by $DEBHANDBOOK_HTML; see build/copy.py), every document is
  copied afresh with build/copy.py into a temporary folder and compared byte-for-byte, and
  the package version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(os.path.dirname(os.path.abspath(__file__)), "debhandbook_copy")
PACKAGE = "debian-handbook"
LICENSE = "GPL-2.0-or-later OR CC-BY-SA-3.0"

# Key terms that must NOT occur anywhere in the corpus (canonical texts) for each
# unanswerable query (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"\bzfs\b", r"zpool", r"scrub"],
    "u02": [r"kubernetes", r"kubeadm", r"kubelet"],
    "u03": [r"ansible", r"playbook"],
    "u04": [r"wireguard", r"wg-quick"],
    "u05": [r"restic", r"\bborg", r"\bS3\b", r"dedupl"],
    "u06": [r"postgresql", r"pg_basebackup", r"streaming replication"],
    "u07": [r"mariadb", r"skip-grant-tables", r"mysqld_safe"],
    "u08": [r"proxy_pass", r"reverse.proxy"],  # nginx is named, as Apache's rival only
    "u09": [r"\bluks\b", r"cryptsetup", r"crypttab"],
    "u10": [r"smartctl", r"smartmontools", r"smartd\b"],
    "u11": [r"unattended"],
    "u12": [r"chrony"],
    "u13": [r"kerberos", r"kinit", r"krb5"],
    "u14": [r"prometheus", r"node_exporter", r"grafana"],
    "u15": [r"flatpak", r"flathub"],
    "u16": [r"dovecot", r"\bimap"],
    "u17": [r"tmux", r"terminal multiplexer"],
    "u18": [r"haproxy", r"load.balanc"],
    "u19": [r"iscsi", r"targetcli"],
    "u20": [r"\bbonding\b", r"ifenslave", r"\bbond0"],
    "u21": [r"oncalendar", r"list-timers", r"systemd timer"],  # timer units named, not set up
    "u22": [r"badminton", r"restring"],
    "u23": [r"chickpea", r"\bsoak"],
    "u24": [r"hamster"],
    "u25": [r"limescale", r"shower"],
    "u26": [r"wallpaper"],
    "u27": [r"\bslugs?\b", r"lettuce", r"vegetable"],
    "u28": [r"helmet", r"bicycle"],
    "u29": [r"\bpasta\b", r"\bdough\b"],
    "u30": [r"rugby"],
}


def squash(text):
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


class DebHandbook(gtcheck.HtmlCorpus):
    SRC_DIR = _copy.source_dir()
    SOURCE = PACKAGE
    SECTIONS = "sections (<h3>)"
    SKIPPED = f"skipped ({PACKAGE} HTML not found)"

    def __init__(self, script, unanswerable_terms):
        super().__init__(script, unanswerable_terms)
        self._asides = None

    def check_manifest(self, manifest):
        if manifest.get("license") != LICENSE:
            self.fail(f"MANIFEST license is {manifest.get('license')!r}, want {LICENSE!r}")

    def title(self, f):
        """The <title> as it is (Publican's has attributes and no site suffix)."""
        m = re.search(r"<title[^>]*>(.*?)</title>", self.raws[f], re.S)
        return html.unescape(m.group(1)).strip() if m else None

    def sections(self, f):
        """<h3> elements: the numbered sections X.Y.Z (a section page's top-level sections; on
        a chapter page, those of the chapter's first section, which the page holds)."""
        return len(re.findall(r"<h3[ >]", self.raws[f]))

    def check_doc(self, f):
        text, secs, title = self.docs[f], self.sections(f), squash(self.title(f) or "")
        heads = len(gtcheck.atx_lines(text, 3))
        if heads != secs:
            self.fail(f"{f}: {secs} <h3> elements but {heads} '### ' lines in the extracted text")
        h1, h2 = gtcheck.atx_lines(text, 1), gtcheck.atx_lines(text, 2)
        if title.startswith("Chapter "):
            if [squash(h) for h in h1] != ["# " + title]:
                self.fail(f"{f}: a chapter page should have one '# ' line, its title {title!r}: {h1}")
        elif h1 or not h2 or squash(h2[0]) != "## " + title:
            self.fail(f"{f}: a section page should have no '# ' line and its title {title!r} "
                      f"as its first '## ' line: {h1} {h2[:1]}")

    def asides(self):
        """The text of every boxed aside (<div class="sidebar">) of the corpus, squashed."""
        if self._asides is None:
            from citeline.extract import html as citeline_html

            out = []
            for f in self.files:
                tree = citeline_html.LexborHTMLParser(self.raws[f])
                out += [squash(n.text()) for n in tree.css("div.sidebar")]
            self._asides = "\n".join(out)
        return self._asides

    def check_needle(self, tag, gid, f, needle, first, code):
        if squash(needle) in self.asides():
            self.fail(f"{tag}: needle also occurs in a boxed aside (<div class=\"sidebar\">), "
                      "which html extractors before 18 dropped")

    def rebuild(self):
        if self.SRC_DIR is None:
            return None
        changelog = os.path.join(os.path.dirname(os.path.dirname(self.SRC_DIR)), "changelog.gz")
        return self.copy_rebuild(
            f"differs from a fresh copy of the {PACKAGE} HTML",
            lambda: gtcheck.dpkg_version(PACKAGE) or gtcheck.changelog_version(changelog),
            PACKAGE, PACKAGE)


if __name__ == "__main__":
    DebHandbook(__file__, UNANSWERABLE_TERMS).run()
