#!/usr/bin/env python3
"""Write MANIFEST.json from docs/: chars = len(text); title = the first '# ' heading (each
page's first line); sections = lines outside fenced code that start with '## ' (these pages'
top level: one '# ' title per page, then '## ' sections, '### ' and deeper below).
"commit" is the version of the Debian nodejs-doc package whose pages were copied."""
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# build/copy.py holds the page list; load it by path (its name would shadow the stdlib `copy`)
_spec = importlib.util.spec_from_file_location("nodejsdocs_copy", os.path.join(HERE, "build", "copy.py"))
_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_copy)
PAGES = _copy.PAGES

VERSION = "18.20.4+dfsg-1~deb12u3"  # Debian package nodejs-doc (bookworm-security)


def top_sections(text):
    inside, n = False, 0
    for line in text.split("\n"):
        s = line.lstrip()
        if s.startswith("```") or s.startswith("~~~"):
            inside = not inside
        elif not inside and line.startswith("## "):
            n += 1
    return n


def main():
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        text = open(os.path.join(HERE, "docs", f), encoding="utf-8").read()
        title = next(ln[2:].strip() for ln in text.split("\n") if ln.startswith("# "))
        docs.append({"file": f, "title": title, "chars": len(text), "sections": top_sections(text)})
    manifest = {
        "source": f"Node.js 18.20.4 API documentation, {len(PAGES)} Markdown pages copied "
                  "byte-for-byte (gunzipped) from Debian's nodejs-doc package "
                  f"{VERSION}, /usr/share/doc/nodejs/api/ ("
                  + ", ".join(f"{src} -> {name}" for name, src in PAGES)
                  + "); upstream https://github.com/nodejs/node/tree/v18.20.4/doc/api, "
                  "https://nodejs.org/docs/v18.20.4/api/",
        "commit": VERSION,
        "license": "MIT",
        "attribution": "Node.js API documentation, Copyright Node.js contributors and Joyent, Inc. "
                       "and other Node contributors, licensed under the MIT (Expat) license (see "
                       "LICENSE); copied unmodified from Debian's nodejs-doc package",
        "documents": docs,
        "total_chars": sum(d["chars"] for d in docs),
        "total_sections": sum(d["sections"] for d in docs),
    }
    with open(os.path.join(HERE, "MANIFEST.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    print(json.dumps({k: v for k, v in manifest.items() if k != "documents"}, ensure_ascii=False, indent=2))
    for d in docs:
        print(d)


if __name__ == "__main__":
    main()
