#!/usr/bin/env python3
"""Write MANIFEST.json from docs/ (chars = len(text), sections = lines starting with '## ')."""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "debian-policy"],
                         check=True, capture_output=True, text=True).stdout.strip()
docs = []
for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
    text = open(os.path.join(HERE, "docs", f), encoding="utf-8").read()
    lines = text.split("\n")
    assert lines[0].startswith("# "), f
    docs.append({"file": f, "title": lines[0][2:].strip(), "chars": len(text),
                 "sections": sum(1 for ln in lines if ln.startswith("## "))})
manifest = {
    "source": "Debian package debian-policy, chapters 1-12 "
              "(/usr/share/doc/debian-policy/policy.html/_sources/ch-*.rst.txt); "
              "https://www.debian.org/doc/debian-policy/",
    "commit": version,
    "license": "GPL-2.0-or-later",
    "attribution": "Debian Policy Manual, Copyright \u00a9 1996-1998 Ian Jackson and Christian Schwarz, "
                   "1999 Chris Waters, Joey Hess and Joost Witteveen, 1999, 2001 Rapha\u00ebl Hertzog "
                   "and Brendan O'Dea, 1999-2018 many other Debian contributors (see LICENSE); "
                   "converted from reStructuredText to Markdown with pandoc",
    "documents": docs,
    "total_chars": sum(d["chars"] for d in docs),
    "total_sections": sum(d["sections"] for d in docs),
}
with open(os.path.join(HERE, "MANIFEST.json"), "w", encoding="utf-8") as fh:
    json.dump(manifest, fh, ensure_ascii=False, indent=2)
    fh.write("\n")
print(json.dumps(manifest, ensure_ascii=False, indent=2))
