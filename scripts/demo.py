"""`make demo`: index the bundled sample corpus, ask one question it answers and one it refuses."""

from __future__ import annotations

import sys
from pathlib import Path

from citeline.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "samples" / "corpus"
INDEX = ROOT / ".demo-index"
ANSWERED = "What should I do when my inverter shows error E-104?"
REFUSED = "How do I renew my Spanish passport?"


def run(*argv: str) -> int:
    print(f"\n$ citeline {' '.join(repr(a) if ' ' in a else a for a in argv)}", flush=True)
    return main(list(argv))


if __name__ == "__main__":
    status = run("index", str(CORPUS), "--index", str(INDEX))
    status |= run("ask", ANSWERED, "--index", str(INDEX))
    status |= run("ask", REFUSED, "--index", str(INDEX))
    sys.exit(status)
