#!/usr/bin/env python3
"""Copy the selected pages of Git's HTML documentation byte-for-byte into docs/ (or into
the folder given as the first argument), renamed with a numeric prefix in reading order.

Source: Debian's git-doc package (1:2.39.5-0+deb12u3, Debian 12 bookworm), which installs
the AsciiDoc-generated HTML under /usr/share/doc/git-doc/ (/usr/share/doc/git/html is a
symlink to it). Without installing it:

    cd /tmp && apt-get download git-doc && dpkg-deb -x git-doc_*.deb gitdoc

gives /tmp/gitdoc/usr/share/doc/git-doc/. The first existing folder of GITDOC_HTML (an
environment variable), /usr/share/doc/git-doc and /tmp/gitdoc/usr/share/doc/git-doc is
used. Nothing is converted and no asset (CSS, images) is copied."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CANDIDATES = [os.environ.get("GITDOC_HTML", ""), "/usr/share/doc/git-doc", "/tmp/gitdoc/usr/share/doc/git-doc"]

# (target name, source path under the git-doc folder), in reading order
PAGES = [
    ("01-gittutorial.html", "gittutorial.html"),
    ("02-gittutorial-2.html", "gittutorial-2.html"),
    ("03-giteveryday.html", "giteveryday.html"),
    ("04-user-manual.html", "user-manual.html"),
    ("05-gitcore-tutorial.html", "gitcore-tutorial.html"),
    ("06-gitworkflows.html", "gitworkflows.html"),
    ("07-gitfaq.html", "gitfaq.html"),
    ("08-gitrevisions.html", "gitrevisions.html"),
    ("09-gitignore.html", "gitignore.html"),
    ("10-gitattributes.html", "gitattributes.html"),
    ("11-gitsubmodules.html", "gitsubmodules.html"),
    ("12-gitcredentials.html", "gitcredentials.html"),
    ("13-git-reset.html", "git-reset.html"),
    ("14-git-stash.html", "git-stash.html"),
    ("15-git-rebase.html", "git-rebase.html"),
    ("16-git-bisect.html", "git-bisect.html"),
    ("17-git-worktree.html", "git-worktree.html"),
    ("18-howto-revert-a-faulty-merge.html", "howto/revert-a-faulty-merge.html"),
    ("19-howto-recover-corrupted-blob-object.html", "howto/recover-corrupted-blob-object.html"),
]


def source_dir():
    for d in CANDIDATES:
        if d and os.path.isfile(os.path.join(d, "user-manual.html")):
            return d
    return None


def main():
    src = source_dir()
    if src is None:
        sys.exit("git-doc not found: install it, or apt-get download git-doc and dpkg-deb -x it into /tmp/gitdoc")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    os.makedirs(out, exist_ok=True)
    for name, rel in PAGES:
        shutil.copyfile(os.path.join(src, rel), os.path.join(out, name))


if __name__ == "__main__":
    main()
