#!/usr/bin/env python3
"""Copy the selected chapters of the Vim reference manual byte-for-byte into docs/ (or
into the folder given as the first argument), keeping their names (motion.txt, ...).

Source: the help files installed by Debian's vim-runtime package,
/usr/share/vim/vim90/doc/. Nothing is converted: tabs, tags (*tag*), links (|link|),
example markers (` >` ... `<`) and the `====` separator lines stay exactly as shipped."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = "/usr/share/vim/vim90/doc"

# ten prose-rich reference chapters, 367,715 characters
CHAPTERS = ["cmdline.txt", "diff.txt", "editing.txt", "fold.txt", "motion.txt",
            "recover.txt", "tabpage.txt", "tagsrch.txt", "undo.txt", "windows.txt"]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name in CHAPTERS:
        shutil.copyfile(os.path.join(SRC, name), os.path.join(out, name))


if __name__ == "__main__":
    main()
