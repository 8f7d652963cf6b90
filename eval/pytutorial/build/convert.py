#!/usr/bin/env python3
"""Pre-clean the Sphinx reST sources of the Python 3.11 tutorial and convert them
to GitHub Markdown with pandoc.  Usage: python3 build/convert.py [OUT_DIR]  (default: docs/)"""
import os
import re
import subprocess
import sys

SRC = "/usr/share/doc/python3.11/html/_sources/tutorial"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
TMP = os.path.join(HERE, "build", "clean")
LUA = os.path.join(HERE, "build", "tutorial.lua")

# index.rst.txt toctree order; whatnow.rst is only a list of links and is skipped
CHAPTERS = [
    ("appetite", "01-appetite.md"),
    ("interpreter", "02-interpreter.md"),
    ("introduction", "03-introduction.md"),
    ("controlflow", "04-controlflow.md"),
    ("datastructures", "05-datastructures.md"),
    ("modules", "06-modules.md"),
    ("inputoutput", "07-inputoutput.md"),
    ("errors", "08-errors.md"),
    ("classes", "09-classes.md"),
    ("stdlib", "10-stdlib.md"),
    ("stdlib2", "11-stdlib2.md"),
    ("venv", "12-venv.md"),
    ("interactive", "13-interactive.md"),
    ("floatingpoint", "14-floatingpoint.md"),
    ("appendix", "15-appendix.md"),
]

ADORN = re.compile(r"^([=\-*#~^\"'`+])\1{3,}\s*$")


def label_titles():
    """Map every `.. _label:` in the tutorial to the title of the section it precedes."""
    titles = {}
    for dirpath, _, names in os.walk(os.path.dirname(SRC)):
      for name in names:
        if not name.endswith(".rst.txt"):
            continue
        lines = open(os.path.join(dirpath, name), encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            m = re.match(r"^\.\. _([^:]+):\s*$", line)
            if not m:
                continue
            for j in range(i + 1, min(i + 8, len(lines) - 1)):
                if lines[j].strip() and not ADORN.match(lines[j]) and not lines[j].startswith(".."):
                    if ADORN.match(lines[j + 1]):
                        titles[m.group(1).lower()] = lines[j].strip()
                    break
    return titles


TITLES = label_titles()
CODE_ROLES = {"func", "meth", "class", "mod", "exc", "attr", "data", "const", "keyword",
              "file", "envvar", "option", "program", "kbd", "samp", "obj"}


def role(m):
    name, body = m.group(1), m.group(2)
    text, target = body, body
    t = re.match(r"^(.*?)\s*<([^>]+)>$", body, re.S)
    if t:
        text, target = t.group(1), t.group(2)
    elif body.startswith("~"):
        text = body[1:].rsplit(".", 1)[-1]
    text = text.lstrip("!~")
    if name == "ref":
        if not t:
            text = TITLES.get(target.lower(), target)
        return text
    if name == "term":
        return text
    if name == "dfn":
        return f"*{text}*"
    if name == "pep":
        return f"PEP {text}"
    if name == "rfc":
        return f"RFC {text}"
    if name == "newsgroup":
        return text
    if name in CODE_ROLES:
        if name in ("func", "meth") and not text.endswith(")"):
            text += "()"
        return f"``{text}``"
    sys.exit(f"unhandled role :{name}:")


ROLE = re.compile(r":([a-z]+)(?::[a-z]+)?:`([^`]+)`")


def drop_block(lines, i):
    """Index of the first line after the directive at i and its indented body."""
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or lines[j].startswith((" ", "\t"))):
        j += 1
    return j


def clean(text):
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"^\.\. (index|testsetup|only|sectionauthor|toctree)::", line):
            i = drop_block(lines, i)
            continue
        if line == ".." :  # reST comment block
            i = drop_block(lines, i)
            continue
        m = re.match(r"^\.\. method:: (.+)$", line)
        if m:
            out.append(f"``{m.group(1).strip()}``")
            j = drop_block(lines, i)
            body = [ln for ln in lines[i + 1:j] if ln.strip() != ":noindex:"]
            for ln in body:
                out.append(ln[3:] if ln.startswith("   ") else ln)
            i = j
            continue
        m = re.match(r"^(\s*\S.*?) ::$", line)
        if m:  # "text ::" expands to "text" + a literal block (no colon shown)
            out.extend([m.group(1), "", " " * (len(line) - len(line.lstrip())) + "::"])
            i += 1
            continue
        out.append(line)
        i += 1
    text = ROLE.sub(role, "\n".join(out))
    return ROLE.sub(role, text)  # section titles substituted for :ref: may hold roles


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(TMP, exist_ok=True)
    for stem, md in CHAPTERS:
        src = open(os.path.join(SRC, stem + ".rst.txt"), encoding="utf-8").read()
        tmp = os.path.join(TMP, stem + ".rst")
        open(tmp, "w", encoding="utf-8").write(clean(src))
        subprocess.run(["pandoc", "-f", "rst", "-t", "gfm", "--wrap=preserve",
                        "--markdown-headings=atx", "--lua-filter", LUA, tmp, "-o", os.path.join(OUT, md)], check=True)


if __name__ == "__main__":
    main()
