#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's SqliteDoc (through
gtcheck.manifest_documents), the code that checks it: chars = len(text), title = the first
'# ' heading, sections = lines starting with '## '."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

CHECK = gtcheck.load_check(HERE, "sqlitedoc_check")

version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "sqlite3-doc"],
                         check=True, capture_output=True, text=True).stdout.strip()
manifest = gtcheck.write_manifest(
    HERE, gtcheck.manifest_documents(CHECK.SqliteDoc, HERE),
    source="Debian package sqlite3-doc (the SQLite documentation for SQLite 3.40.1), 14 pages "
           "from /usr/share/doc/sqlite3/*.html (datatype3, lang_createtable, withoutrowid, "
           "autoinc, foreignkeys, partialindex, lang_expr, lang_select, json1, "
           "lang_transaction, isolation, atomiccommit, wal, queryplanner); "
           "https://www.sqlite.org/docs.html",
    commit=version,
    license="public-domain",
    attribution="SQLite documentation by D. Richard Hipp and the SQLite developers, dedicated "
                "to the public domain (see LICENSE); converted from HTML to Markdown with "
                "pandoc")
print(json.dumps(manifest, ensure_ascii=False, indent=2))
