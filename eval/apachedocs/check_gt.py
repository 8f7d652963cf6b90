#!/usr/bin/env python3
"""Check the Apache HTTP Server documentation corpus and its needle-style ground truth
(gtcheck.py says what is checked): English HTML pages of Debian's apache2-doc package (the
manual's own XSLT output), every text check run on citeline's canonical text; title is the
page's <title> less " - Apache HTTP Server Version 2.4"; sections are the page's <h2>
elements (its top-level sections), cross-checked with the '## ' lines of the extracted text;
the page must have exactly one '# ' line, its title; and no needle may occur in the text of
the page's frame (the menu, breadcrumb, language bars, page contents and "See also" list,
footer: html extractor 19 kept it all as text, 20 keeps the "See also" list), so that the
needles stay unique whatever an extractor keeps of it.

Usage: /work/main/.venv/bin/python check_gt.py [--no-rebuild]
  If the apache2-doc HTML is available (installed under /usr/share/doc, unpacked under
  /tmp/apachedoc, or named by $APACHEDOC_HTML; see build/copy.py), every document is copied
  afresh with build/copy.py into a temporary folder and compared byte-for-byte, and the
  package version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(os.path.dirname(os.path.abspath(__file__)), "apachedocs_copy")
PACKAGE = "apache2-doc"
LICENSE = "Apache-2.0"
# the manual's frame around each page's content (see README.md)
FURNITURE = "div#page-header, div#path, div.toplang, div.bottomlang, div#quickview, div#footer"

# Key terms that must NOT occur anywhere in the corpus (canonical texts) for each
# unanswerable query (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"haproxy"],
    "u02": [r"varnish", r"\bvcl\b"],
    "u03": [r"try_files", r"server block", r"nginx\.conf"],  # Nginx is named once, as a server type
    "u04": [r"\bquic\b", r"http/3", r"\bh3\b"],
    "u05": [r"brotli"],
    "u06": [r"\bcors\b", r"access-control-allow", r"preflight", r"cross-origin"],
    "u07": [r"\bhsts\b", r"strict-transport-security", r"preload list"],
    "u08": [r"content-security-policy", r"\bcsp\b", r"inline script"],
    "u09": [r"websocket", r"wstunnel", r"\bwss?://"],
    "u10": [r"tomcat", r"\bajp\b", r"mod_jk"],
    "u11": [r"php-fpm", r"pm\.max_children", r"\bfpm\b"],
    "u12": [r"geoip", r"maxmind", r"geolocation"],
    "u13": [r"rate.?limit", r"mod_evasive", r"mod_qos"],  # "throttles" occurs (the worker MPM), of no client
    "u14": [r"samesite", r"httponly"],
    "u15": [r"openid", r"oauth", r"single sign-on"],
    "u16": [r"kerberos", r"spnego", r"gssapi", r"active directory"],
    "u17": [r"django", r"mod_wsgi", r"wsgidaemonprocess"],
    "u18": [r"docker", r"podman"],
    "u19": [r"awstats", r"goaccess", r"webalizer"],
    "u20": [r"selinux", r"setsebool", r"httpd_can_network"],
    "u21": [r"passenger", r"phusion", r"\brails\b"],
    "u22": [r"\bjar\b", r"\blid\b"],
    "u23": [r"strawberr", r"\bjam\b"],
    "u24": [r"kitten", r"\bdog\b"],
    "u25": [r"inner tube", r"bicycle", r"\btyre"],
    "u26": [r"\bmulch", r"flower bed"],
    "u27": [r"hammock", r"\bknot\b"],
    "u28": [r"rust stain", r"bathtub", r"porcelain"],
    "u29": [r"castling", r"\bchess\b"],
    "u30": [r"chopping board", r"cutting board", r"\boiled\b"],
}


def squash(text):
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


class ApacheDocs(gtcheck.HtmlCorpus):
    SRC_DIR = _copy.source_dir()
    SOURCE = PACKAGE
    TITLE_SUFFIX = " - Apache HTTP Server Version 2.4"
    SKIPPED = f"skipped ({PACKAGE} HTML not found)"

    def __init__(self, script, unanswerable_terms):
        super().__init__(script, unanswerable_terms)
        self._furniture = None

    def check_manifest(self, manifest):
        if manifest.get("license") != LICENSE:
            self.fail(f"MANIFEST license is {manifest.get('license')!r}, want {LICENSE!r}")

    def sections(self, f):
        """<h2> elements: the page's top-level sections (the <h3> titles of its notes, of its
        "See also" list and its subsections are not counted)."""
        return len(re.findall(r"<h2[ >]", self.raws[f]))

    def check_doc(self, f):
        text, secs, title = self.docs[f], self.sections(f), squash(self.title(f) or "")
        heads = len(gtcheck.atx_lines(text, 2))
        if heads != secs:
            self.fail(f"{f}: {secs} <h2> elements but {heads} '## ' lines in the extracted text")
        h1 = gtcheck.atx_lines(text, 1)
        if [squash(h) for h in h1] != ["# " + title]:
            self.fail(f"{f}: the page should have one '# ' line, its title {title!r}: {h1}")

    def furniture(self):
        """The text of the furniture around every page's content, squashed."""
        if self._furniture is None:
            from citeline.extract import html as citeline_html

            out = []
            for f in self.files:
                tree = citeline_html.LexborHTMLParser(self.raws[f])
                out += [squash(n.text(separator=" ")) for n in tree.css(FURNITURE)]
            self._furniture = "\n".join(out)
        return self._furniture

    def check_needle(self, tag, gid, f, needle, first, code):
        if squash(needle) in self.furniture():
            self.fail(f"{tag}: needle also occurs in the page furniture ({FURNITURE})")

    def rebuild(self):
        if self.SRC_DIR is None:
            return None
        changelog = os.path.join(os.path.dirname(os.path.dirname(self.SRC_DIR)), "changelog.Debian.gz")
        return self.copy_rebuild(
            f"differs from a fresh copy of the {PACKAGE} HTML",
            lambda: gtcheck.dpkg_version(PACKAGE) or gtcheck.changelog_version(changelog),
            PACKAGE, PACKAGE)


if __name__ == "__main__":
    ApacheDocs(__file__, UNANSWERABLE_TERMS).run()
