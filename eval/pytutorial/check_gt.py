#!/usr/bin/env python3
"""Check the Python-tutorial corpus and its needle-style ground truth (gtcheck.py says what is
checked): Markdown pages converted with pandoc from Debian's python3.11-doc package.

Usage: python3 check_gt.py [--no-rebuild]
  If the Debian python3.11-doc sources and pandoc are installed, every document is rebuilt
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
    "u01": [r"asyncio", r"\bawait\b", r"async def", r"\bgather\b"],
    "u02": [r"(?-i:\bGIL\b)", r"global interpreter lock", r"(?-i:\bCPU\b)"],
    "u03": [r"\btwine\b", r"\bwheels?\b", r"upload", r"pyproject"],
    "u04": [r"TypeVar", r"\bgenerics?\b"],
    "u05": [r"__enter__", r"__exit__", r"context manager"],
    "u06": [r"decorator", r"functools", r"@wraps"],
    "u07": [r"metaclass"],
    "u08": [r"multiprocessing", r"(?-i:\bPool\b)"],
    "u09": [r"SQLAlchemy", r"(?-i:\bORM\b)"],
    "u10": [r"pytest", r"fixtures?"],
    "u11": [r"__slots__"],
    "u12": [r"abstractmethod", r"abstract base class", r"abc\.ABC"],
    "u13": [r"subprocess", r"capture_output"],
    "u14": [r"zoneinfo", r"astimezone", r"time zone", r"Europe/"],
    "u15": [r"@property", r"\bsetters?\b", r"descriptor"],
    "u16": [r"groupby", r"itertools"],
    "u17": [r"(?-i:\bCounter\b)", r"most_common"],
    "u18": [r"lru_cache", r"memoi[sz]", r"functools"],
    "u19": [r"PyInstaller", r"bundle"],
    "u20": [r"\bmypy\b", r"type.check"],
    "u21": [r"editable mode", r"install -e\b", r"develop mode"],
    "u22": [r"sourdough", r"\bflour\b", r"hydration"],
    "u23": [r"Australia", r"Sydney", r"Canberra"],
    "u24": [r"fiddle", r"houseplant"],
    "u25": [r"\btires?\b", r"\bbike\b", r"\bpsi\b"],
    "u26": [r"marathon", r"training plan"],
    "u27": [r"income tax", r"\bfiling\b", r"tax return"],
    "u28": [r"guitar", r"drop D\b"],
    "u29": [r"jet lag", r"Tokyo", r"\bflight\b"],
    "u30": [r"wedding", r"best man"],
}


class PyTutorial(gtcheck.PandocCorpus):
    SRC_DIR = "/usr/share/doc/python3.11/html/_sources/tutorial"
    PAGES = "python3.11-doc sources"
    SOURCE = "python3.11-doc"


if __name__ == "__main__":
    PyTutorial(__file__, UNANSWERABLE_TERMS).run()
