#!/usr/bin/env python3
"""Write MANIFEST.json from docs/: chars = len(text); title = line 7 of the chapter, the
line under the "VIM REFERENCE MANUAL    by Bram Moolenaar" banner (line 4) after blank
lines, with its *tags* removed, or the file name without .txt when nothing is left
(diff.txt, cmdline.txt: that line holds only tags); sections = the chapter's section
title lines, i.e. the non-blank lines directly under a line of 78 `=`
(`1. Undo and redo commands\t\t\t\t*undo-commands*`), not counting the modeline
(` vim:tw=78:...`) that stands under the last rule of fold.txt. "commit" is the version of the
installed vim-runtime package whose files were copied."""
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULE = "=" * 78
MODELINE = re.compile(r"^\s*vim:")   # fold.txt ends with a rule above its modeline


def chapter_title(text, name):
    lines = text.split("\n")
    assert "VIM REFERENCE MANUAL" in lines[3], lines[3]
    assert not lines[4].strip() and not lines[5].strip(), name
    title = re.sub(r"\*[^*\s]+\*", "", lines[6]).strip()
    return title or name[:-4]


def sections(text):
    lines = text.split("\n")
    return sum(1 for i in range(1, len(lines))
               if lines[i - 1] == RULE and lines[i].strip() and not MODELINE.match(lines[i]))


def main():
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "vim-runtime"],
                             check=True, capture_output=True, text=True).stdout.strip()
    docs = []
    for f in sorted(os.listdir(os.path.join(HERE, "docs"))):
        text = open(os.path.join(HERE, "docs", f), encoding="utf-8").read()
        docs.append({"file": f, "title": chapter_title(text, f), "chars": len(text),
                     "sections": sections(text)})
    manifest = {
        "source": f"Vim 9.0 reference manual as installed by Debian's vim-runtime {version}: "
                  f"{len(docs)} help files copied byte-for-byte from /usr/share/vim/vim90/doc/ ("
                  + ", ".join(d["file"] for d in docs)
                  + "); https://github.com/vim/vim (runtime/doc/), https://vimhelp.org",
        "commit": version,
        "license": "OPUBL-1.0+ / Vim",
        "attribution": "Vim reference manual, Copyright (c) 1988-2003 by Bram Moolenaar, "
                       "distributed under the Open Publication License v1.0 or later; part of "
                       "Vim, which is distributed under the Vim license (see LICENSE); copied "
                       "unmodified from Debian's vim-runtime package",
        "documents": docs,
        "total_chars": sum(d["chars"] for d in docs),
        "total_sections": sum(d["sections"] for d in docs),
    }
    with open(os.path.join(HERE, "MANIFEST.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
