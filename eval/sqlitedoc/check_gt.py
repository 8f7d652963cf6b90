#!/usr/bin/env python3
"""Check the SQLite-documentation corpus and its needle-style ground truth (gtcheck.py says what is
checked): Markdown pages converted with pandoc from Debian's sqlite3-doc package.

Usage: python3 check_gt.py [--no-rebuild]
  If the Debian sqlite3-doc pages and pandoc are installed, every document is rebuilt
  with build/convert.py into a temporary folder and compared byte-for-byte.
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"fts[345]", r"bm25", r"full.?text"],
    "u02": [r"row_number", r"partition by", r"OVER \("],
    "u03": [r"rename column"],
    "u04": [r"vacuum into", r"sqlite3_backup", r"online backup"],
    "u05": [r"upsert", r"DO UPDATE", r"(?-i:DO NOTHING)", r"excluded\."],
    "u06": [r"with recursive", r"recursive (common|cte)", r"hierarch"],
    "u07": [r"strftime", r"julianday", r"unixepoch", r"localtime", r"local time"],
    "u08": [r"\bR\*?-?Tree", r"spatial", r"bounding.box"],
    "u09": [r"sqlcipher", r"password", r"encryption"],
    "u10": [r"load_extension", r"\.load\b", r"loadable extension"],
    "u11": [r"auto_vacuum", r"incremental_vacuum", r"shrink"],
    "u12": [r"busy_timeout", r"busy handler", r"busy timeout"],
    "u13": [r"\bEXPLAIN\b"],
    "u14": [r"\bCSV\b", r"\.import\b"],
    "u15": [r"terabyte", r"max_page_count", r"\b281\b"],
    "u16": [r"PRAGMA optimize", r"optimize pragma"],
    "u17": [r"changesets?", r"session extension", r"sqlite3session"],
    "u18": [r"threadsafe", r"multi-thread", r"threading mode", r"SQLITE_CONFIG"],
    "u19": [r":memory:", r"in-memory", r"memdb"],
    "u20": [r"drop column"],
    "u21": [r"median", r"percentile"],
    "u22": [r"monstera", r"repot", r"potting"],
    "u23": [r"deadlift", r"barbell", r"muscles?"],
    "u24": [r"\beggs?\b", r"yolk", r"\bboil"],
    "u25": [r"\brust\b", r"bicycle", r"\bbike\b"],
    "u26": [r"hiking", r"\bAlps\b", r"\bhut\b"],
    "u27": [r"\bknit", r"scarf", r"\byarn\b"],
    "u28": [r"tomato", r"seedlings?", r"\bfrost\b"],
    "u29": [r"coffee", r"cold brew", r"\bbrew\b"],
    "u30": [r"stretch", r"back pain", r"lower back"],
}


class SqliteDoc(gtcheck.PandocCorpus):
    SRC_DIR = "/usr/share/doc/sqlite3"
    PAGES = "sqlite3-doc pages"
    SOURCE = "sqlite3-doc"


if __name__ == "__main__":
    SqliteDoc(__file__, UNANSWERABLE_TERMS).run()
