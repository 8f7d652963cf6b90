#!/usr/bin/env python3
"""Check the pytest documentation corpus (31 reStructuredText pages of pytest 9.2.0's
doc/en/) and its needle-style ground truth (gtcheck.py says what is checked).

Usage: python3 check_gt.py [--no-rebuild] [-v]
  If pytest's sdist is present ($PYTEST_SDIST, default /tmp/rstsrc/pytest-9.2.0.tar.gz;
  fetch it with `pip download --no-binary :all: --no-deps pytest==9.2.0 -d /tmp/rstsrc`),
  every document is copied again from it with build/copy.py (which checks the sdist's
  SHA-256) into a temporary folder and compared byte-for-byte. -v lists each needle's
  context.
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

SRC_SDIST = os.environ.get("PYTEST_SDIST", "/tmp/rstsrc/pytest-9.2.0.tar.gz")

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"asyncio", r"pytest-asyncio", r"event loop", r"async def"],
    "u02": [r"mocker", r"pytest-mock", r"\bspy\b"],
    "u03": [r"hypothesis", r"property-based", r"@given"],
    "u04": [r"benchmark"],
    "u05": [r"snapshot test", r"syrupy"],
    "u06": [r"freezegun", r"freeze", r"time-machine", r"datetime\.now"],
    "u07": [r"pytest-html", r"html report"],
    "u08": [r"github actions", r"\bmatrix\b"],
    "u09": [r"vs ?code", r"test explorer"],
    "u10": [r"pycharm"],
    "u11": [r"sqlalchemy", r"rollback", r"rolled back"],
    "u12": [r"clirunner", r"\bclick\b"],
    "u13": [r"fastapi", r"testclient"],
    "u14": [r"\bmoto\b", r"\bs3\b", r"boto"],
    "u15": [r"qtbot", r"pytest-qt", r"\bqt\b"],
    "u16": [r"nbval", r"notebook", r"jupyter"],
    "u17": [r"faker", r"factory.boy"],
    "u18": [r"pytest-split", r"shard"],
    "u19": [r"pandas", r"dataframe", r"assert_frame_equal"],
    "u20": [r"\bnox\b", r"noxfile"],
    "u21": [r"pre-commit", r"git hook"],
    "u22": [r"snowboard", r"\bwax"],
    "u23": [r"\bcats?\b", r"sofa", r"scratching"],
    "u24": [r"leather", r"\bboots?\b", r"waterproof"],
    "u25": [r"pickles?\b", r"cucumbers?"],
    "u26": [r"paper airplane", r"glides?\b"],
    "u27": [r"picture frame", r"plasterboard"],
    "u28": [r"sunscreen", r"\bspf\b", r"beach"],
    "u29": [r"chewing gum", r"jeans"],
    "u30": [r"warm-up", r"\b5k\b"],
}


class PytestDocs(gtcheck.RstCorpus):
    FILE_NAME = r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*\.rst"
    COMMIT = r"pytest [0-9]+\.[0-9]+\.[0-9]+"
    COMMIT_IS = "'pytest X.Y.Z'"
    SKIPPED = f"skipped (no {SRC_SDIST})"

    def check_manifest(self, manifest):
        if manifest.get("license") != "MIT":
            self.fail("MANIFEST license should be 'MIT' (pytest's LICENSE)")

    def rebuild(self):
        if not os.path.isfile(SRC_SDIST):
            return None
        return self.copy_rebuild(SRC_SDIST, "differs from the sdist page it was copied from")


if __name__ == "__main__":
    PytestDocs(__file__, UNANSWERABLE_TERMS).run()
