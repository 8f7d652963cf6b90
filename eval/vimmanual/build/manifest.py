#!/usr/bin/env python3
"""Write MANIFEST.json from docs/, each document measured by check_gt.py's VimManual (through
gtcheck.manifest_documents), the code that checks it: chars = len(text); title = the chapter
title, the centered line under "VIM USER MANUAL - by Bram Moolenaar" (line 5 of every
chapter); sections = the chapter's section title lines, i.e. lines that start with a
`*NN.N*` tag (`*05.1*	The vimrc file	*vimrc-intro*`). "commit" is the version of the
installed vim-runtime package whose files were copied."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(HERE))
import gtcheck  # noqa: E402

CHECK = gtcheck.load_check(HERE, "vimmanual_check")


def main():
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "vim-runtime"],
                             check=True, capture_output=True, text=True).stdout.strip()
    docs = gtcheck.manifest_documents(CHECK.VimManual, HERE)
    manifest = gtcheck.write_manifest(
        HERE, docs,
        source=f"Vim 9.0 user manual as installed by Debian's vim-runtime {version}: "
               f"{len(docs)} help files copied byte-for-byte from /usr/share/vim/vim90/doc/ ("
               + ", ".join(d["file"] for d in docs)
               + "); https://github.com/vim/vim (runtime/doc/), https://vimhelp.org/usr_toc.txt.html",
        commit=version,
        license="OPUBL-1.0+ / Vim",
        attribution="Vim user manual, Copyright (c) 1988-2003 by Bram Moolenaar (parts from "
                    "\"Vi IMproved - Vim\" by Steve Oualline, New Riders), distributed under the "
                    "Open Publication License v1.0 or later; part of Vim, which is distributed "
                    "under the Vim license (see LICENSE); copied unmodified from Debian's "
                    "vim-runtime package")
    print(json.dumps(manifest, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
