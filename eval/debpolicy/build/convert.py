#!/usr/bin/env python3
"""Pre-clean the Sphinx reST sources of the Debian Policy Manual (chapters 1-12) and
convert them to GitHub Markdown with pandoc.
Usage: python3 build/convert.py [OUT_DIR]  (default: docs/)"""
import os
import re
import subprocess
import sys
import tempfile

SRC = "/usr/share/doc/debian-policy/policy.html/_sources"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
LUA = os.path.join(HERE, "build", "policy.lua")

# The first toctree of index.rst.txt (the numbered chapters 1-12). The second toctree
# (appendices A-K: the old dpkg manual, the policy process, the upgrading checklist, the
# license) is left out; see README.md.
CHAPTERS = [
    ("ch-scope", "01-about.md"),
    ("ch-archive", "02-archive.md"),
    ("ch-binary", "03-binary.md"),
    ("ch-source", "04-source.md"),
    ("ch-controlfields", "05-controlfields.md"),
    ("ch-maintainerscripts", "06-maintainerscripts.md"),
    ("ch-relationships", "07-relationships.md"),
    ("ch-sharedlibs", "08-sharedlibs.md"),
    ("ch-opersys", "09-opersys.md"),
    ("ch-files", "10-files.md"),
    ("ch-customized-programs", "11-customized-programs.md"),
    ("ch-docs", "12-docs.md"),
]

ADORN = re.compile(r"^([=\-*#~^\"'`+])\1{3,}\s*$")


def sources():
    """Every .rst.txt of the manual (chapters and appendices), by stem."""
    return {n[:-len(".rst.txt")]: open(os.path.join(SRC, n), encoding="utf-8").read()
            for n in sorted(os.listdir(SRC)) if n.endswith(".rst.txt")}


def first_title(lines, i):
    """The section title at or after line i (skipping blanks, labels, overlines), or None."""
    for j in range(i, min(i + 8, len(lines) - 1)):
        s = lines[j].strip()
        if not s or ADORN.match(lines[j]) or lines[j].startswith(".."):
            continue
        return s if ADORN.match(lines[j + 1]) else None
    return None


def label_titles(srcs):
    """Map every `.. _label:` in the manual to the title of the section it precedes
    (what Sphinx prints for a bare :ref:); map every document to its first title (:doc:)."""
    titles, docs = {}, {}
    for stem, text in srcs.items():
        lines = text.split("\n")
        docs[stem] = first_title(lines, 0)
        for i, line in enumerate(lines):
            m = re.match(r"^\.\. _([^:]+):\s*$", line)
            if m:
                title = first_title(lines, i + 1)
                if title:
                    titles[m.group(1).lower()] = title
    return titles, docs


SRCS = sources()
TITLES, DOC_TITLES = label_titles(SRCS)


def role(m):
    name, body = m.group(1), m.group(2)
    text, target = body, body
    t = re.match(r"^(.*?)\s*<([^>]+)>$", body, re.S)
    if t:
        text, target = t.group(1), t.group(2)
    if name == "ref":
        if not t:
            if target.lower() not in TITLES:
                sys.exit(f"unknown :ref: label {target}")
            text = TITLES[target.lower()]
        return text
    if name == "doc":
        if not t:
            if target not in DOC_TITLES:
                sys.exit(f"unknown :doc: {target}")
            text = DOC_TITLES[target]
        return text
    if name == "manpage":  # Sphinx: <em class="manpage">
        return f"*{text}*"
    sys.exit(f"unhandled role :{name}:")


ROLE = re.compile(r":([a-z]+):`([^`]+)`")


def drop_block(lines, i):
    """Index of the first line after the directive at i and its indented body."""
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or lines[j].startswith((" ", "\t"))):
        j += 1
    return j


def indented_body(lines, i):
    """Index just past the body of the directive at line i: the lines indented further
    than the directive's `..` (which may follow a list marker, as in `1. .. parsed-literal::`)."""
    ind = lines[i].index("..")
    j = i + 1
    last = i
    while j < len(lines):
        if lines[j].strip():
            if len(lines[j].expandtabs(8)) - len(lines[j].expandtabs(8).lstrip()) <= ind:
                break
            last = j
        j += 1
    return last + 1


def parsed_literal(line):
    """A parsed-literal line as Sphinx shows it: *emphasis* markers and \\ escapes removed
    (the emphasis itself is lost in a fenced code block)."""
    line = re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"\1", line)
    return line.replace("\\\\", "\\")


def clean(text):
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"^\s*\.\. index::?", line):  # index entries (one is `.. index:`, a comment)
            i = drop_block(lines, i)
            continue
        m = re.match(r"^(\s*(?:\d+\.\s+)?)\.\. parsed-literal::\s*$", line)
        if m:  # -> a plain literal block with the inline markup resolved
            j = indented_body(lines, i)
            out.append(m.group(1) + "::")
            out.extend(parsed_literal(ln.expandtabs(8)) for ln in lines[i + 1:j])
            i = j
            continue
        m = re.match(r"^(\s*\S.*?) ::$", line)
        if m:  # "text ::" expands to "text" + a literal block (no colon shown)
            out.extend([m.group(1), "", " " * (len(line) - len(line.lstrip())) + "::"])
            i += 1
            continue
        out.append(line)
        i += 1
    return ROLE.sub(role, "\n".join(out))


def main():
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmpdir:
        for n, (stem, md) in enumerate(CHAPTERS, 1):
            tmp = os.path.join(tmpdir, stem + ".rst")
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(clean(SRCS[stem]))
            subprocess.run(["pandoc", "-f", "rst", "-t", "gfm", "--wrap=preserve",
                            "--markdown-headings=atx", "-M", f"chapter={n}", "--lua-filter", LUA,
                            tmp, "-o", os.path.join(OUT, md)], check=True)


if __name__ == "__main__":
    main()
