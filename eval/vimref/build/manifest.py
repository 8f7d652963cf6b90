#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's VimRef (through
gtcheck.manifest_documents), the code that checks it: chars = len(text); title = line 7 of
the chapter, the line under the "VIM REFERENCE MANUAL    by Bram Moolenaar" banner (line 4)
after blank lines, with its *tags* removed, or the file name without .txt when nothing is
left (diff.txt, cmdline.txt: that line holds only tags); sections = the chapter's section
title lines, i.e. the non-blank lines directly under a line of 78 `=`
(`1. Undo and redo commands\t\t\t\t*undo-commands*`), not counting the modeline
(` vim:tw=78:...`) that stands under the last rule of fold.txt. "commit" is the version of the
installed vim-runtime package whose files were copied."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

CHECK = gtcheck.load_check(HERE, "vimref_check")


def main():
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "vim-runtime"],
                             check=True, capture_output=True, text=True).stdout.strip()
    docs = gtcheck.manifest_documents(CHECK.VimRef, HERE)
    manifest = gtcheck.write_manifest(
        HERE, docs,
        source=f"Vim 9.0 reference manual as installed by Debian's vim-runtime {version}: "
               f"{len(docs)} help files copied byte-for-byte from /usr/share/vim/vim90/doc/ ("
               + ", ".join(d["file"] for d in docs)
               + "); https://github.com/vim/vim (runtime/doc/), https://vimhelp.org",
        commit=version,
        license="OPUBL-1.0+ / Vim",
        attribution="Vim reference manual, Copyright (c) 1988-2003 by Bram Moolenaar, "
                    "distributed under the Open Publication License v1.0 or later; part of "
                    "Vim, which is distributed under the Vim license (see LICENSE); copied "
                    "unmodified from Debian's vim-runtime package")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
