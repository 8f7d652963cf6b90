"""Plain-text headings measured (docs/retrieval-experiments.md, section 26): a copy of a
Markdown ground truth whose ATX headings are rewritten as underlined titles and whose
files are renamed .txt, so the text extractor's plain-text rule (version 4: underlined
titles make sections) can be scored against the heading-less reading (version 3) on
the same documents and questions.

    python benchmarks/underlined_copy.py make eval/rustbook /tmp/rust_txt
    citeline eval /tmp/rust_txt --strategies E --fusions "" --out reports/txt-v4
    (the same with the text extractor of version 3, e.g. from a git worktree of an
     older commit, --out reports/txt-v3)
    python benchmarks/underlined_copy.py compare reports/txt-v4/report.json \\
        reports/txt-v3/report.json --out benchmarks/results/txt_headings_rustbook.json

Only heading lines change (outside code fences): "## Title" becomes "Title" over a
line of "-" as long (at least 4), one underline character per level (= - ~ ^ + *).
Needles never touch a heading, so every question stays valid; MANIFEST.json gets
the new file names and lengths.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

from figures import emit, paired, read_report, report_rows, summary

UNDERLINE = {1: "=", 2: "-", 3: "~", 4: "^", 5: "+", 6: "*"}
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_ATX = re.compile(r"(#{1,6})[ \t]+(.+?)[ \t#]*")


def underlined(markdown: str) -> str:
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        m = None if fenced else _ATX.fullmatch(line)
        if m:
            title = m.group(2)
            out += [title, UNDERLINE[len(m.group(1))] * max(4, len(title))]
        else:
            out.append(line)
    return "\n".join(out)


def make(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "docs").mkdir(parents=True)
    names = {}
    for f in sorted((src / "docs").glob("*.md")):
        names[f.name] = f.stem + ".txt"
        (dst / "docs" / names[f.name]).write_text(underlined(f.read_text(encoding="utf-8")),
                                                  encoding="utf-8")
    manifest = json.loads((src / "MANIFEST.json").read_text(encoding="utf-8"))
    for d in manifest["documents"]:
        d["file"] = names[d["file"]]
        d["chars"] = len((dst / "docs" / d["file"]).read_text(encoding="utf-8"))
    manifest["total_chars"] = sum(d["chars"] for d in manifest["documents"])
    manifest["attribution"] += " Copy: ATX headings rewritten as underlined titles, files renamed .txt."
    (dst / "MANIFEST.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    questions = [json.loads(line) for line in
                 (src / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]
    (dst / "questions.jsonl").write_text(
        "".join(json.dumps({**q, "doc": names[q["doc"]]}) + "\n" for q in questions),
        encoding="utf-8")
    shutil.copy(src / "unanswerable.jsonl", dst / "unanswerable.jsonl")


def compare(new: Path, old: Path, out: str | None) -> int:
    a, b = read_report(new), read_report(old)
    result = {}
    for run in a["queries"][0]["ranks"]:
        x, y = report_rows(a, run), report_rows(b, run)
        result[run] = {"new": summary(x), "old": summary(y), "new vs old": paired(x, y)}
    return emit(result, out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make", help="write the underlined .txt copy of a ground truth")
    m.add_argument("src", type=Path)
    m.add_argument("dst", type=Path)
    c = sub.add_parser("compare", help="pair two `citeline eval` reports, query by query")
    c.add_argument("new", type=Path)
    c.add_argument("old", type=Path)
    c.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    if args.command == "make":
        make(args.src, args.dst)
        return 0
    return compare(args.new, args.old, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
