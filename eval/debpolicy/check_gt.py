#!/usr/bin/env python3
"""Check the Debian-Policy corpus and its needle-style ground truth (gtcheck.py says what is
checked): Markdown pages converted with pandoc from Debian's debian-policy package.

Usage: python3 check_gt.py [--no-rebuild]
  If the Debian debian-policy sources and pandoc are installed, every document is rebuilt
  with build/convert.py into a temporary folder and compared byte-for-byte.
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"git-buildpackage", r"\bgbp\b", r"pristine"],
    "u02": [r"chroot", r"sbuild", r"pbuilder", r"cowbuilder"],
    "u03": [r"debsign", r"\bdput\b", r"dupload"],
    "u04": [r"lintian", r"overrides file"],
    "u05": [r"pybuild", r"dh.python"],
    "u06": [r"(?-i:\bITP\b)", r"wnpp", r"intent to package"],
    "u07": [r"\bcrates?\b", r"debcargo", r"\bcargo\b"],
    "u08": [r"(?-i:\bGo\b)", r"golang", r"vendored"],
    "u09": [r"node\.?js", r"\bnpm\b"],
    "u10": [r"override_dh", r"dh_auto_test", r"dh_auto"],
    "u11": [r"reprepro", r"aptly", r"APT repositor"],
    "u12": [r"\bpin(s|ned|ning)?\b", r"apt.preferences", r"pin-priority"],
    "u13": [r"\btimers?\b", r"\.timer\b"],
    "u14": [r"britney", r"excuses", r"migrating"],
    "u15": [r"apparmor", r"dh_apparmor"],
    "u16": [r"\bdkms\b", r"kernel modules?", r"out-of-tree"],
    "u17": [r"\bsalsa\b", r"gitlab", r"(?-i:\bCI\b)", r"pipeline"],
    "u18": [r"hardening", r"DEB_BUILD_MAINT_OPTIONS", r"stack.protector", r"(?-i:\bPIE\b)"],
    "u19": [r"DEP-3", r"(?-i:\bDEP\b)", r"Forwarded:", r"Origin:"],
    "u20": [r"Multi-Arch", r"\bforeign\b"],
    "u21": [r"piuparts"],
    "u22": [r"lasagna", r"vegetarian"],
    "u23": [r"\bsleep\b", r"teenager"],
    "u24": [r"northern lights", r"aurora", r"Norway"],
    "u25": [r"\bwine\b", r"\bstain\b", r"carpet", r"\bwool\b"],
    "u26": [r"\bchess\b", r"Sicilian", r"\bItalian\b"],
    "u27": [r"engine oil", r"\boil\b", r"Honda", r"Civic"],
    "u28": [r"offside", r"football"],
    "u29": [r"\btea\b", r"steep", r"bitter"],
    "u30": [r"\bdogs?\b", r"leash", r"walks?\b"],
}


class DebPolicy(gtcheck.PandocCorpus):
    SRC_DIR = "/usr/share/doc/debian-policy/policy.html/_sources"
    PAGES = "debian-policy sources"
    SOURCE = "debian-policy"


if __name__ == "__main__":
    DebPolicy(__file__, UNANSWERABLE_TERMS).run()
