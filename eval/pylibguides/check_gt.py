#!/usr/bin/env python3
"""Check the Python-library user-guide corpus (requests, urllib3, google-auth, pyparsing,
reStructuredText) and its needle-style ground truth (gtcheck.py says what is checked).

Usage: python3 check_gt.py [--no-rebuild] [-v]
  If /usr/lib/google-cloud-sdk/platform/gsutil/third_party exists (the Google Cloud
  SDK's vendored copies), every document is copied again with build/copy.py into a
  temporary folder and compared byte-for-byte. -v lists each needle's context.
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

SRC_DIR = "/usr/lib/google-cloud-sdk/platform/gsutil/third_party"

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"aiohttp", r"ClientSession", r"asyncio"],
    "u02": [r"http/?2\b", r"multiplex", r"\bh2\b"],
    "u03": [r"websocket", r"ping frames?"],
    "u04": [r"\bmock", r"responses library", r"requests.mock"],
    "u05": [r"pkce", r"code.verifier", r"code_challenge"],
    "u06": [r"pyjwt", r"HS256", r"shared secret"],
    "u07": [r"sigv4", r"signature version", r"aws4"],
    "u08": [r"ijson", r"streaming json", r"incremental"],
    "u09": [r"\blark\b", r"LALR", r"earley"],
    "u10": [r"beautifulsoup", r"\bbs4\b", r"lxml"],
    "u11": [r"elementtree", r"xpath"],
    "u12": [r"argparse", r"subparser"],
    "u13": [r"dateutil", r"strptime"],
    "u14": [r"secret manager", r"secretmanager"],
    "u15": [r"signed url", r"generate_signed_url"],
    "u16": [r"api key", r"api_key"],
    "u17": [r"resumable", r"MediaFileUpload"],
    "u18": [r"tqdm", r"progress bar", r"upload progress"],
    "u19": [r"unix socket", r"unix domain", r"requests-unixsocket"],
    "u20": [r"graphql"],
    "u21": [r"\bsoap\b", r"\bzeep", r"wsdl"],
    "u22": [r"\bscrews?\b", r"furniture"],
    "u23": [r"\bbasil", r"\bwilt"],
    "u24": [r"\bfog", r"glasses", r"face mask"],
    "u25": [r"\bsteak", r"\bgrill"],
    "u26": [r"cast iron", r"skillet", r"seasoning"],
    "u27": [r"board games?", r"children"],
    "u28": [r"\blatte", r"flat white", r"espresso"],
    "u29": [r"\btap\b", r"dripping", r"\bfaucet"],
    "u30": [r"toothbrush", r"bristles"],
}


class PyLibGuides(gtcheck.RstCorpus):
    FILE_NAME = r"\d\d-(?:requests|urllib3|google-auth|pyparsing)(?:-[a-z0-9]+)+\.rst"
    COMMIT = r"requests [0-9.]+, urllib3 [0-9.]+, google-auth [0-9.]+, pyparsing [0-9.]+"
    COMMIT_IS = "'requests X, urllib3 X, google-auth X, pyparsing X'"
    SKIPPED = f"skipped (no {SRC_DIR})"

    def check_manifest(self, manifest):
        if not (isinstance(manifest.get("license"), list) and len(manifest["license"]) == 4):
            self.fail("MANIFEST license should list the four projects' licenses")

    def rebuild(self):
        if not os.path.isdir(SRC_DIR):
            return None
        return self.copy_rebuild(SRC_DIR, "differs from the vendored page it was copied from")


if __name__ == "__main__":
    PyLibGuides(__file__, UNANSWERABLE_TERMS).run()
