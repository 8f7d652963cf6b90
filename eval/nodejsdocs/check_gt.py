#!/usr/bin/env python3
"""Check the Node.js API documentation corpus and its needle-style ground truth (gtcheck.py
says what is checked): the Markdown pages of Debian's nodejs-doc package (gunzipped by
build/copy.py), each a '# ' title and '## ' top-level sections.

Usage: python3 check_gt.py [--no-rebuild]
  If the Node.js API pages of Debian's nodejs-doc package are available (installed as
  /usr/share/doc/nodejs/api/*.md.gz, or extracted from the .deb with dpkg-deb -x and
  pointed to by NODEJS_DOC_API=<root>/usr/share/doc/nodejs/api), every document is
  copied afresh with build/copy.py into a temporary folder and compared byte-for-byte;
  when the package is installed, its version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

SRC_DIR = os.environ.get("NODEJS_DOC_API", "/usr/share/doc/nodejs/api")

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"line by line", r"createInterface", r"crlfDelay", r"one line at a time"],
    "u02": [r"maxSockets", r"keep-?alive", r"\bagent\b"],
    "u03": [r"backpressure", r"highWaterMark", r"stream\.pipeline"],
    "u04": [r"brotli", r"gzip", r"deflate"],
    "u05": [r"randomUUID", r"\buuid v?4", r"version.4", r"RFC ?4122"],
    "u06": [r"mkdir", r"recursive: ?true", r"mkdirp"],
    "u07": [r"\bmock", r"fake timers"],
    "u08": [r"checkServerIdentity", r"pinning", r"fingerprint"],
    "u09": [r"URLSearchParams", r"searchParams"],
    "u10": [r"AsyncLocalStorage", r"request context", r"getStore", r"request id"],
    "u11": [r"pushStream", r"server push", r"PUSH_PROMISE"],
    "u12": [r"server-sent", r"EventSource", r"event-stream"],
    "u13": [r"node-gyp", r"binding\.gyp", r"\bgyp\b"],
    "u14": [r"createReadStream", r"byte range", r"range request"],
    "u15": [r"defineCommand", r"dot-command", r"\.reload\b"],
    "u16": [r"runInNewContext", r"microtaskMode", r"untrusted code"],
    "u17": [r"performance\.mark", r"PerformanceObserver", r"user timing"],
    "u18": [r"StringDecoder", r"split across", r"partial character"],
    "u19": [r"setNoDelay", r"Nagle", r"TCP_NODELAY"],
    "u20": [r"setRawMode", r"raw ?mode", r"password"],
    "u21": [r"resolveSrv", r"\bSRV\b"],
    "u22": [r"\btent", r"guy ?lines?"],
    "u23": [r"press(ed|ing)? flowers", r"petal"],
    "u24": [r"bonsai", r"juniper"],
    "u25": [r"\biron(ing)?\b", r"dress shirt", r"wrinkle"],
    "u26": [r"turkey", r"\bthaw"],
    "u27": [r"\bwick\b", r"candle", r"\bsoy\b"],
    "u28": [r"kilimanjaro", r"acclimati"],
    "u29": [r"raised (garden )?bed", r"timber", r"planter"],
    "u30": [r"\bhorse", r"horsebox"],
}


class NodejsDocs(gtcheck.MarkdownCorpus):
    COMMIT_IS = "a version string"
    SOURCE = "nodejs-doc"
    SECTIONS = "top-level sections"
    SKIPPED = f"skipped (no {SRC_DIR}; set NODEJS_DOC_API, see the docstring)"

    def sections(self, f):
        return self.headings_outside_fences(f, r"## ")

    def rebuild(self):
        if not os.path.isfile(os.path.join(SRC_DIR, "cli.md.gz")):
            return None
        try:
            same = self.fresh_copy("copy.py", "differs from a fresh copy of the nodejs-doc pages",
                                   env={**os.environ, "NODEJS_DOC_API": SRC_DIR})
        except subprocess.CalledProcessError as e:
            return f"rebuild failed ({e})"
        installed = "not installed as a package, version not compared"
        version = gtcheck.dpkg_version("nodejs-doc")
        if version:
            installed = f"nodejs-doc {version}"
            self.check_version(version, "installed nodejs-doc")
        return f"{same}/{len(self.files)} docs byte-identical to a fresh copy from {SRC_DIR} ({installed})"


if __name__ == "__main__":
    NodejsDocs(__file__, UNANSWERABLE_TERMS).run()
