#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's PyTutorial (through
gtcheck.manifest_documents), the code that checks it: chars = len(text), title = the first
'# ' heading, sections = lines starting with '## '."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

CHECK = gtcheck.load_check(HERE, "pytutorial_check")

version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3.11-doc"],
                         check=True, capture_output=True, text=True).stdout.strip()
manifest = gtcheck.write_manifest(
    HERE, gtcheck.manifest_documents(CHECK.PyTutorial, HERE),
    source="Debian package python3.11-doc (/usr/share/doc/python3.11/html/_sources/tutorial/*.rst.txt); "
           "https://docs.python.org/3.11/tutorial/",
    commit=version,
    license="PSF-2.0",
    attribution="The Python Tutorial, Copyright \u00a9 2001-2023 Python Software Foundation; "
                "converted from reStructuredText to Markdown with pandoc")
print(json.dumps(manifest, ensure_ascii=False, indent=2))
