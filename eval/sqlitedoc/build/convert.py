#!/usr/bin/env python3
"""Convert 14 pages of the SQLite documentation (Debian package sqlite3-doc, HTML) to
GitHub Markdown with pandoc and build/sqlitedoc.lua, then tidy the result.
Usage: python3 build/convert.py [OUT_DIR]  (default: docs/)"""
import os
import re
import subprocess
import sys

SRC = "/usr/share/doc/sqlite3"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
LUA = os.path.join(HERE, "build", "sqlitedoc.lua")

# Substantive prose pages, ordered from the data model through the SQL language to the
# transaction machinery and the query planner (see README.md for why these and not others).
PAGES = [
    ("datatype3", "01-datatypes.md"),
    ("lang_createtable", "02-createtable.md"),
    ("withoutrowid", "03-withoutrowid.md"),
    ("autoinc", "04-autoincrement.md"),
    ("foreignkeys", "05-foreignkeys.md"),
    ("partialindex", "06-partialindex.md"),
    ("lang_expr", "07-expressions.md"),
    ("lang_select", "08-select.md"),
    ("json1", "09-json.md"),
    ("lang_transaction", "10-transactions.md"),
    ("isolation", "11-isolation.md"),
    ("atomiccommit", "12-atomiccommit.md"),
    ("wal", "13-wal.md"),
    ("queryplanner", "14-queryplanner.md"),
]

PIPE_ROW = re.compile(r"^\|.*\|$")
CELL_SEP = re.compile(r"(?<!\\)\|")  # a cell boundary; "\|" is a pipe inside a cell


def tidy(md):
    """Pipe tables without the writer's column padding (cells stripped, rules "---"); no trailing spaces except a
    Markdown hard break (exactly two; code lines lose all of theirs); at most one blank line in a row; one final newline."""
    out, fenced = [], False
    for line in md.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            line = line.rstrip()
        elif fenced:
            line = line.rstrip()
        elif PIPE_ROW.match(line):
            cells = [c.strip() for c in CELL_SEP.split(line)[1:-1]]
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                cells = [re.sub(r"-+", "---", c) for c in cells]
            line = "| " + " | ".join(cells) + " |"
        elif line.endswith("  ") and line.strip():
            line = line.rstrip() + "  "
        else:
            line = line.rstrip()
        out.append(line)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")
    return text + "\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    for page, md in PAGES:
        res = subprocess.run(["pandoc", "-f", "html", "-t", "gfm", "--wrap=preserve",
                              "--markdown-headings=atx", "--lua-filter", LUA,
                              os.path.join(SRC, page + ".html")],
                             check=True, capture_output=True, text=True)
        with open(os.path.join(OUT, md), "w", encoding="utf-8") as fh:
            fh.write(tidy(res.stdout))


if __name__ == "__main__":
    main()
