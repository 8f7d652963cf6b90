#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's DebPolicy (through
gtcheck.manifest_documents), the code that checks it: chars = len(text), title = the first
'# ' heading, sections = lines starting with '## '."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

CHECK = gtcheck.load_check(HERE, "debpolicy_check")

version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "debian-policy"],
                         check=True, capture_output=True, text=True).stdout.strip()
manifest = gtcheck.write_manifest(
    HERE, gtcheck.manifest_documents(CHECK.DebPolicy, HERE),
    source="Debian package debian-policy, chapters 1-12 "
           "(/usr/share/doc/debian-policy/policy.html/_sources/ch-*.rst.txt); "
           "https://www.debian.org/doc/debian-policy/",
    commit=version,
    license="GPL-2.0-or-later",
    attribution="Debian Policy Manual, Copyright \u00a9 1996-1998 Ian Jackson and Christian Schwarz, "
                "1999 Chris Waters, Joey Hess and Joost Witteveen, 1999, 2001 Rapha\u00ebl Hertzog "
                "and Brendan O'Dea, 1999-2018 many other Debian contributors (see LICENSE); "
                "converted from reStructuredText to Markdown with pandoc")
print(json.dumps(manifest, ensure_ascii=False, indent=2))
