#!/usr/bin/env python3
"""Check the Django documentation corpus and its needle-style ground truth (gtcheck.py says
what is checked): the Sphinx HTML pages of the topic guides in Debian's python-django-doc
package, every text check run on citeline's canonical text; title is the page's <title>
without Sphinx's " \u2014 Django 3.2.25 documentation" suffix; sections are the page's <h2>
elements (its top-level sections), cross-checked with the '## ' lines of the extracted
text, less the <h2>s inside an element citeline's extractor drops; each page must have
exactly two '# ' lines (the site header and the page title).

Usage: /work/main/.venv/bin/python check_gt.py [--no-rebuild]
  If the python-django-doc HTML is available (installed under /usr/share/doc, unpacked
  under /tmp/djangodoc, or named by $DJANGODOC_HTML; see build/copy.py), every document is
  copied afresh with build/copy.py into a temporary folder and compared byte-for-byte, and
  the package version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

_copy = gtcheck.load_build_module(os.path.dirname(os.path.abspath(__file__)), "djangodocs_copy")
PACKAGE = "python-django-doc"
SITE_HEADER = "# Django 3.2.25 documentation"

# Key terms that must NOT occur anywhere in the corpus (canonical texts) for each
# unanswerable query (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"argon2"],
    "u02": [r"makemessages", r"compilemessages", r"\.po\b"],
    "u03": [r"rest framework", r"rest_framework", r"apiview"],
    "u04": [r"simple_tag", r"templatetags", r"inclusion_tag"],
    "u05": [r"websocket", r"\bchannels\b"],
    "u06": [r"whitenoise"],
    "u07": [r"searchvector", r"searchrank", r"full.text"],
    "u08": [r"basecommand", r"add_arguments", r"management/commands"],
    "u09": [r"gunicorn", r"nginx"],
    "u10": [r"geodjango", r"postgis", r"contrib\.gis", r"pointfield"],
    "u11": [r"genericforeignkey", r"genericrelation"],
    "u12": [r"sitemap"],
    "u13": [r"rownumber", r"window\(", r"window function", r"partition_by"],
    "u14": [r"from_db_value", r"db_type", r"get_prep_value"],
    "u15": [r"\bcors\b", r"access-control", r"react"],
    "u16": [r"timestampsigner", r"signing\.dumps"],
    "u17": [r"two-factor", r"\btotp\b", r"authenticator app"],
    "u18": [r"graphql", r"graphene"],
    "u19": [r"get_context_data", r"detailview"],
    "u20": [r"manifeststaticfilesstorage", r"staticfilesstorage"],
    "u21": [r"content.security.policy", r"\bcsp\b"],
    "u22": [r"bowline", r"\bknot", r"dinghy"],
    "u23": [r"tennis", r"tie-break"],
    "u24": [r"orchid"],
    "u25": [r"pumpkin", r"\broast"],
    "u26": [r"rooster", r"crowing"],
    "u27": [r"wetsuit", r"cornwall"],
    "u28": [r"whistle"],
    "u29": [r"\byoga\b", r"hamstring"],
    "u30": [r"\bteak\b", r"\bbench\b", r"garden"],
}


def shown_h2_count(raw):
    """<h2> elements that citeline's extractor keeps: those not inside an element it drops
    (its own _dropped rule, e.g. a Sphinx section whose id names a "cookie")."""
    from citeline.extract import html as citeline_html

    tree = citeline_html.LexborHTMLParser(raw)
    page_chars = len(citeline_html.squash(tree.body.text()))
    furniture = citeline_html._furniture(tree.root)  # the frame it knows by shape (html 20)
    n = 0
    for h in tree.css("h2"):
        up, dropped = h, False
        while up is not None and up.tag not in ("body", "html"):
            if citeline_html._dropped(up, False, page_chars, furniture):
                dropped = True
                break
            up = up.parent
        n += not dropped
    return n


class DjangoDocs(gtcheck.HtmlCorpus):
    SRC_DIR = _copy.source_dir()
    TITLE_SUFFIX = " \u2014 Django 3.2.25 documentation"
    SOURCE = PACKAGE
    SECTIONS = "sections (<h2>)"
    SKIPPED = f"skipped ({PACKAGE} HTML not found)"

    def sections(self, f):
        """<h2> elements: the page's top-level sections (Sphinx writes the page title as an <h1>,
        after the site header's <h1>; the top-level sections' titles are <h2>)."""
        return len(re.findall(r"<h2[ >]", self.raws[f]))

    def check_doc(self, f):
        raw, text, secs = self.raws[f], self.docs[f], self.sections(f)
        heads = len(gtcheck.atx_lines(text, 2))
        shown = shown_h2_count(raw)
        if heads != shown:
            self.fail(f"{f}: {shown} <h2> elements kept by the extractor but {heads} '## ' lines")
        if shown != secs:
            self.notes.append(f"{f}: {secs - shown} of its {secs} <h2> sections dropped by citeline's extractor")
        h1 = gtcheck.atx_lines(text, 1)
        if len(h1) != 2 or h1[0] != SITE_HEADER:
            self.fail(f"{f}: the extracted text should have two '# ' lines, the site header and the page title: {h1}")
        elif h1[1] != "# " + (self.title(f) or ""):
            self.fail(f"{f}: page heading {h1[1]!r} is not the <title> {self.title(f)!r}")

    def rebuild(self):
        if self.SRC_DIR is None:
            return None
        return self.copy_rebuild(f"differs from a fresh copy of the {PACKAGE} HTML",
                                 lambda: gtcheck.installed_version(PACKAGE, self.SRC_DIR), PACKAGE, PACKAGE)


if __name__ == "__main__":
    DjangoDocs(__file__, UNANSWERABLE_TERMS).run()
