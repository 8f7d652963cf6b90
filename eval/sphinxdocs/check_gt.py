#!/usr/bin/env python3
"""Check the Sphinx documentation corpus (30 reStructuredText pages of the Sphinx 5.3
documentation, from Debian's sphinx-doc package) and its needle-style ground truth
(gtcheck.py says what is checked). Every document is read with citeline's own extractor,
`citeline.extract.extractor_for(path).extract(path, rel).text`, which must give the file's
text as it is, so needles, offsets and MANIFEST's chars agree.

Usage: python3 check_gt.py [--no-rebuild] [-v]
  If the unpacked package is present ($SPHINX_DOC_ROOT, default /tmp/sphinxdoc; get it with
  `cd /tmp && apt-get download sphinx-doc && dpkg-deb -x sphinx-doc_*.deb sphinxdoc`),
  every document is copied again from it with build/copy.py (which checks the .deb's
  SHA-256 when the .deb is at $SPHINX_DOC_DEB) into a temporary folder and compared
  byte-for-byte. -v lists each needle's context.
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
_copy = gtcheck.load_build_module(HERE, "sphinxdocs_copy")
SRC_DIR = os.path.join(_copy.ROOT, _copy.SOURCES)

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"copybutton", r"clipboard", r"copy button"],
    "u02": [r"sphinx-tabs", r"sphinx.design", r"tabbed", r"tab-set", r"tab-item"],
    "u03": [r"pydata", r"dark.?mode", r"toggle"],
    "u04": [r"autobuild", r"live.?reload", r"reloads? automatically"],
    "u05": [r"nbsphinx", r"jupyter", r"notebook", r"myst-nb"],
    "u06": [r"mermaid", r"flowchart"],
    "u07": [r"sphinx.gallery", r"example gallery"],
    "u08": [r"multiversion", r"version switcher", r"git tags?\b"],
    "u09": [r"algolia", r"docsearch"],
    "u10": [r"sitemap\.xml", r"sphinx-sitemap", r"search engines?"],
    "u11": [r"openapi", r"swagger", r"rest api"],
    "u12": [r"argparse"],
    "u13": [r"spelling", r"spell.?check", r"enchant"],
    "u14": [r"readthedocs\.ya?ml", r"build\.os", r"pin the python"],
    "u15": [r"bibtex", r"\bbibliography\b", r"\bcit(e|ation) entr"],
    "u16": [r"reveal\.?js", r"\bslides?\b", r"presentation slides", r"hieroglyph"],
    "u17": [r"autoapi"],
    "u18": [r"plotly", r"interactive chart"],
    "u19": [r"cloudflare", r"vercel"],
    "u20": [r"sphinx-needs", r"traceab", r"test cases?\b"],
    "u21": [r"\bvale\b", r"prose lint", r"\blinting prose"],
    "u22": [r"upholster", r"\bchairs?\b", r"fabric"],
    "u23": [r"windscreen", r"windshield", r"\bfrost", r"de-ice"],
    "u24": [r"kombucha", r"\bscoby\b"],
    "u25": [r"toddler", r"balance bike", r"\bbikes?\b"],
    "u26": [r"\btyres?\b", r"\btires?\b"],
    "u27": [r"handstand"],
    "u28": [r"mushrooms?", r"coffee grounds"],
    "u29": [r"climbing shoes?", r"boulder"],
    "u30": [r"hedgehog"],
}


class SphinxDocs(gtcheck.RstCorpus):
    FILE_NAME = r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.rst"
    SOURCE = "sphinx-doc"
    SKIPPED = f"skipped (no {SRC_DIR})"

    def check_manifest(self, manifest):
        if manifest.get("license") != "BSD-2-Clause":
            self.fail("MANIFEST license should be 'BSD-2-Clause' (Sphinx's license)")

    def extract(self, f, raw):
        from citeline.extract import extractor_for

        path = Path(self.docs_dir, f)
        text = extractor_for(path).extract(path, f).text
        if text != raw:
            self.fail(f"{f}: citeline's canonical text differs from the file's text "
                      "(offsets and 'chars' would disagree)")
        super().extract(f, raw)
        return text

    def rebuild(self):
        if not os.path.isdir(SRC_DIR):
            return None
        return self.copy_rebuild(f"{SRC_DIR}*.rst.txt", "differs from the package page it was copied from")


if __name__ == "__main__":
    SphinxDocs(__file__, UNANSWERABLE_TERMS).run()
