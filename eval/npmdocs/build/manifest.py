#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's NpmDocs (through
gtcheck.manifest_documents), the code that checks it: chars = len(text); title = the front
matter's `title:`; sections = top-level section headings, i.e. lines outside fenced code
that start with '### ' (these pages' top level: the title lives in the front matter) or
'## ' (the one '## See Also' of dependency-selectors, an upstream slip at the same level).
"commit" is the version of the installed npm whose docs were copied."""
import json
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

PAGES = gtcheck.load_build_module(HERE, "npmdocs_copy").PAGES
CHECK = gtcheck.load_check(HERE, "npmdocs_check")

NPM_DIR = "/usr/lib/node_modules/npm"


def main():
    with open(os.path.join(NPM_DIR, "package.json"), encoding="utf-8") as fh:
        version = json.load(fh)["version"]
    manifest = gtcheck.write_manifest(
        HERE, gtcheck.manifest_documents(CHECK.NpmDocs, HERE),
        source=f"npm {version} documentation sources, {len(PAGES)} Markdown pages copied "
               "byte-for-byte from /usr/lib/node_modules/npm/docs/content/ ("
               + ", ".join(src[:-3] for _, src in PAGES)
               + "); https://github.com/npm/cli (docs/), "
               "https://docs.npmjs.com/cli/v11",
        commit=version,
        license="Artistic-2.0",
        attribution="npm documentation, Copyright (c) npm, Inc. and Contributors, licensed on "
                    "the terms of The Artistic License 2.0 (see LICENSE); copied unmodified "
                    "from the npm package (npm/cli)")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
