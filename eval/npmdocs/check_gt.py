#!/usr/bin/env python3
"""Check the npm-documentation corpus and its needle-style ground truth (gtcheck.py says
what is checked): npm's Markdown pages with YAML front matter, copied as they are.

Usage: python3 check_gt.py [--no-rebuild]
  If npm's documentation sources are installed (/usr/lib/node_modules/npm/docs), every
  document is copied afresh with build/copy.py into a temporary folder and compared
  byte-for-byte, and the installed npm version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

NPM_DIR = "/usr/lib/node_modules/npm"
SRC_DIR = os.path.join(NPM_DIR, "docs")

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"\b72\b", r"\bhours?\b", r"unpublish polic"],
    "u02": [r"granular", r"\bcidr\b", r"token create"],
    "u03": [r"\boidc\b", r"trusted publish", r"id-token"],
    "u04": [r"cache verify", r"garbage", r"corrupt"],
    "u05": [r"\bdoctor\b"],
    "u06": [r"\bsbom\b", r"cyclonedx", r"bill of materials"],
    "u07": [r"\bproxy\b", r"https-proxy", r"noproxy"],
    "u08": [r"typings", r"\.d\.ts", r"typesVersions", r"declaration files?"],
    "u09": [r"dual package", r"\.mjs\b", r"\.cjs\b", r"hazard"],
    "u10": [r"\b429\b", r"rate.limit", r"too many requests"],
    "u11": [r"squat", r"dispute"],
    "u12": [r"enable-2fa", r"\b2fa\b", r"auth-and-writes", r"authenticator app"],
    "u13": [r"completion", r"bashrc", r"zshrc"],
    "u14": [r"webhook", r"npm hook"],
    "u15": [r"staged", r"npm stage", r"stage a release"],
    "u16": [r"download count", r"downloads? stat", r"weekly downloads", r"last week"],
    "u17": [r"\bsaml\b", r"single sign", r"\bsso\b"],
    "u18": [r"\bstars?\b", r"starred"],
    "u19": [r"whoami", r"logged in as"],
    "u20": [r"(change|reset) (your |my )?password"],
    "u21": [r"\bping\b"],
    "u22": [r"air condition", r"\bHVAC\b"],
    "u23": [r"juggl"],
    "u24": [r"splinter", r"tweezers"],
    "u25": [r"whetstone", r"\bknife\b"],
    "u26": [r"rabbit", r"\bhay\b"],
    "u27": [r"fitted sheet", r"\blinen"],
    "u28": [r"\bswim", r"freestyle"],
    "u29": [r"telescope", r"saturn"],
    "u30": [r"drywall", r"spackle"],
}


class NpmDocs(gtcheck.MarkdownCorpus):
    COMMIT_IS = "a version string"
    SOURCE = "npm"
    SECTIONS = "top-level sections"
    TITLE_IS = "front matter title"
    SKIPPED = f"skipped (no {SRC_DIR})"

    def title(self, f):
        """The `title:` of the page's YAML front matter (the block between the first two '---' lines)."""
        lines = self.docs[f].split("\n")
        if not lines or lines[0] != "---":
            return None
        for line in lines[1:]:
            if line == "---":
                break
            if line.startswith("title:"):
                return line[len("title:"):].strip()
        return None

    def sections(self, f):
        """Lines starting with '### ' (these pages' top level; the front matter holds the
        title) or with '## ' (one upstream slip, the '## See Also' of dependency-selectors,
        is at that same level)."""
        return self.headings_outside_fences(f, r"#{1,3} ")

    def rebuild(self):
        if not os.path.isdir(SRC_DIR):
            return None
        try:
            same = self.fresh_copy("copy.py", "differs from a fresh copy of npm's documentation source")
            with open(os.path.join(NPM_DIR, "package.json"), encoding="utf-8") as fh:
                installed = json.load(fh).get("version")
            self.check_version(installed, "installed npm")
        except subprocess.CalledProcessError as e:
            return f"rebuild failed ({e})"
        return (f"{same}/{len(self.files)} docs byte-identical to a fresh copy "
                f"from {SRC_DIR}/content (npm {installed})")


if __name__ == "__main__":
    NpmDocs(__file__, UNANSWERABLE_TERMS).run()
