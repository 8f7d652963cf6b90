#!/usr/bin/env python3
"""Write MANIFEST.json from docs/: chars = len(text); title = the front matter's `title:`;
sections = top-level section headings, i.e. lines outside fenced code that start with
'### ' (these pages' top level: the title lives in the front matter) or '## ' (the one
'## See Also' of dependency-selectors, an upstream slip at the same level).
"commit" is the version of the installed npm whose docs were copied."""
import importlib.util
import json
import os
import re

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# build/copy.py holds the page list; load it by path (its name would shadow the stdlib `copy`)
_spec = importlib.util.spec_from_file_location("npmdocs_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)
PAGES = _copy.PAGES

NPM_DIR = "/usr/lib/node_modules/npm"


def front_matter_title(text):
    lines = text.split("\n")
    assert lines[0] == "---"
    for line in lines[1:]:
        if line == "---":
            break
        if line.startswith("title:"):
            return line[len("title:"):].strip()
    raise AssertionError("no title in front matter")


def top_sections(text):
    inside, n = False, 0
    for line in text.split("\n"):
        s = line.lstrip()
        if s.startswith("```") or s.startswith("~~~"):
            inside = not inside
        elif not inside and re.match(r"#{1,3} ", line):
            n += 1
    return n


def main():
    with open(os.path.join(NPM_DIR, "package.json"), encoding="utf-8") as fh:
        version = json.load(fh)["version"]
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        text = open(os.path.join(HERE, "docs", f), encoding="utf-8").read()
        docs.append({"file": f, "title": front_matter_title(text), "chars": len(text),
                     "sections": top_sections(text)})
    manifest = {
        "source": f"npm {version} documentation sources, {len(PAGES)} Markdown pages copied "
                  "byte-for-byte from /usr/lib/node_modules/npm/docs/content/ ("
                  + ", ".join(src[:-3] for _, src in PAGES)
                  + "); https://github.com/npm/cli (docs/), "
                  "https://docs.npmjs.com/cli/v11",
        "commit": version,
        "license": "Artistic-2.0",
        "attribution": "npm documentation, Copyright (c) npm, Inc. and Contributors, licensed on "
                       "the terms of The Artistic License 2.0 (see LICENSE); copied unmodified "
                       "from the npm package (npm/cli)",
        "documents": docs,
        "total_chars": sum(d["chars"] for d in docs),
        "total_sections": sum(d["sections"] for d in docs),
    }
    with open(os.path.join(HERE, "MANIFEST.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
