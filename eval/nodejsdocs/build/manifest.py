#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's NodejsDocs
(through gtcheck.manifest_documents), the code that checks it: chars = len(text); title =
the first '# ' heading (each page's first line); sections = lines outside fenced code that
start with '## ' (these pages' top level: one '# ' title per page, then '## ' sections,
'### ' and deeper below). "commit" is the version of the Debian nodejs-doc package whose
pages were copied."""
import json
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

PAGES = gtcheck.load_build_module(HERE, "nodejsdocs_copy").PAGES
CHECK = gtcheck.load_check(HERE, "nodejsdocs_check")

VERSION = "18.20.4+dfsg-1~deb12u3"  # Debian package nodejs-doc (bookworm-security)


def main():
    docs = gtcheck.manifest_documents(CHECK.NodejsDocs, HERE)
    manifest = gtcheck.write_manifest(
        HERE, docs,
        source=f"Node.js 18.20.4 API documentation, {len(PAGES)} Markdown pages copied "
               "byte-for-byte (gunzipped) from Debian's nodejs-doc package "
               f"{VERSION}, /usr/share/doc/nodejs/api/ ("
               + ", ".join(f"{src} -> {name}" for name, src in PAGES)
               + "); upstream https://github.com/nodejs/node/tree/v18.20.4/doc/api, "
               "https://nodejs.org/docs/v18.20.4/api/",
        commit=VERSION,
        license="MIT",
        attribution="Node.js API documentation, Copyright Node.js contributors and Joyent, Inc. "
                    "and other Node contributors, licensed under the MIT (Expat) license (see "
                    "LICENSE); copied unmodified from Debian's nodejs-doc package")
    print(json.dumps({k: v for k, v in manifest.items() if k != "documents"}, ensure_ascii=False, indent=2))
    for d in docs:
        print(d)


if __name__ == "__main__":
    main()
