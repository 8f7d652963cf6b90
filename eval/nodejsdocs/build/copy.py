#!/usr/bin/env python3
"""Copy the selected Node.js API pages byte-for-byte into docs/ (or into the folder
given as the first argument), renamed with a numeric prefix in reading order.

Source: Debian's nodejs-doc package (18.20.4+dfsg-1~deb12u3), which installs the
Markdown sources of the API documentation gzip-compressed as
/usr/share/doc/nodejs/api/<page>.md.gz. Without installing it:
    apt-get download nodejs-doc && dpkg-deb -x nodejs-doc_*.deb root
and set NODEJS_DOC_API=root/usr/share/doc/nodejs/api. Each page is only
decompressed (gzip), nothing is converted: the Markdown, the HTML comments
(<!-- YAML ... -->) and the link reference definitions stay exactly as shipped."""
import gzip
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.environ.get("NODEJS_DOC_API", "/usr/share/doc/nodejs/api")

# (target name, source page under the api/ folder), in reading order
PAGES = [
    ("01-documentation.md", "documentation.md.gz"),
    ("02-cli.md", "cli.md.gz"),
    ("03-modules.md", "modules.md.gz"),
    ("04-esm.md", "esm.md.gz"),
    ("05-packages.md", "packages.md.gz"),
    ("06-corepack.md", "corepack.md.gz"),
    ("07-path.md", "path.md.gz"),
    ("08-events.md", "events.md.gz"),
    ("09-timers.md", "timers.md.gz"),
    ("10-console.md", "console.md.gz"),
    ("11-child-process.md", "child_process.md.gz"),
    ("12-cluster.md", "cluster.md.gz"),
    ("13-worker-threads.md", "worker_threads.md.gz"),
    ("14-permissions.md", "permissions.md.gz"),
    ("15-report.md", "report.md.gz"),
    ("16-debugger.md", "debugger.md.gz"),
    ("17-single-executable-applications.md", "single-executable-applications.md.gz"),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, src in PAGES:
        with gzip.open(os.path.join(SRC, src), "rb") as fh:
            data = fh.read()
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(data)


if __name__ == "__main__":
    main()
