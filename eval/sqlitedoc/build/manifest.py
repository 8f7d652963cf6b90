#!/usr/bin/env python3
"""Write MANIFEST.json from docs/ (chars = len(text), sections = lines starting with '## ')."""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "sqlite3-doc"],
                         check=True, capture_output=True, text=True).stdout.strip()
docs = []
for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
    text = open(os.path.join(HERE, "docs", f), encoding="utf-8").read()
    lines = text.split("\n")
    assert lines[0].startswith("# "), f
    docs.append({"file": f, "title": lines[0][2:].strip(), "chars": len(text),
                 "sections": sum(1 for line in lines if line.startswith("## "))})
manifest = {
    "source": "Debian package sqlite3-doc (the SQLite documentation for SQLite 3.40.1), 14 pages "
              "from /usr/share/doc/sqlite3/*.html (datatype3, lang_createtable, withoutrowid, "
              "autoinc, foreignkeys, partialindex, lang_expr, lang_select, json1, "
              "lang_transaction, isolation, atomiccommit, wal, queryplanner); "
              "https://www.sqlite.org/docs.html",
    "commit": version,
    "license": "public-domain",
    "attribution": "SQLite documentation by D. Richard Hipp and the SQLite developers, dedicated "
                   "to the public domain (see LICENSE); converted from HTML to Markdown with "
                   "pandoc",
    "documents": docs,
    "total_chars": sum(d["chars"] for d in docs),
    "total_sections": sum(d["sections"] for d in docs),
}
with open(os.path.join(HERE, "MANIFEST.json"), "w", encoding="utf-8") as fh:
    json.dump(manifest, fh, ensure_ascii=False, indent=2)
    fh.write("\n")
print(json.dumps(manifest, ensure_ascii=False, indent=2))
