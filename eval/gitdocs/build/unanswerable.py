#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus (the canonical texts), as
evidence the pages do not answer it.  `near` questions are Git topics that the chosen 19
pages do not cover (most are documented in Git's other manual pages: git-lfs is a separate
project, the rest are git-sparse-checkout, git-clone's --filter, git-maintenance,
gpg.format=ssh, git-blame, git-switch --orphan, core.fsmonitor, githooks, includeIf,
git-push, --object-format, protocol.version, safe.directory, pull.rebase, url.insteadOf,
core.hooksPath, git-difftool, git-interpret-trailers and scalar); `off` questions are
off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I track large video files with Git LFS so they are stored outside the normal object database?"),
    ("near", "How do I enable cone mode for sparse checkout so only two top-level directories are present in my working tree?"),
    ("near", "How do I make a blobless partial clone that downloads file contents only when they are needed?"),
    ("near", "How do I register a repository with git maintenance so prefetch and incremental repacking run on a schedule?"),
    ("near", "How do I sign my commits with an SSH key instead of GPG, and set up an allowed signers file to verify them?"),
    ("near", "How can git blame skip a bulk reformatting commit listed in an ignore-revs file?"),
    ("near", "How do I create an orphan branch with no history for a gh-pages documentation site?"),
    ("near", "How do I turn on the built-in filesystem monitor daemon to make git status faster in a huge repository?"),
    ("near", "What arguments and standard input does a pre-push hook receive, and how can it stop the push?"),
    ("near", "How do I use a different user.email for every repository under ~/work with a conditional includeIf in my gitconfig?"),
    ("near", "What does push --force-with-lease protect against compared with a plain forced push?"),
    ("near", "How do I create a new repository that uses SHA-256 object names instead of SHA-1?"),
    ("near", "On Windows, checkout fails with 'Filename too long'; how do I enable core.longpaths?"),
    ("near", "How do I force Git to use wire protocol v2 when talking to a server, and what does it improve?"),
    ("near", "Git says it detected dubious ownership in a repository on a shared drive; how do I add it to safe.directory?"),
    ("near", "git pull warns that I need to specify how to reconcile divergent branches; what do the pull.rebase and pull.ff settings do?"),
    ("near", "How do I make Git rewrite https://github.com/ remote URLs to SSH automatically with url.<base>.insteadOf?"),
    ("near", "How can a team share its hook scripts by pointing core.hooksPath at a directory committed in the repository?"),
    ("near", "How do I configure git difftool to open changes side by side in Beyond Compare?"),
    ("near", "How do I add a Co-authored-by line to commit messages automatically with git interpret-trailers?"),
    ("near", "How do I register a large monorepo with scalar to get the recommended performance settings?"),
    ("off", "How do I wax a snowboard at home without a proper workbench?"),
    ("off", "How long should a freshly painted wall dry before I apply the second coat?"),
    ("off", "How do I teach a parrot to step up onto my hand?"),
    ("off", "Which kinds of firewood burn longest in a wood stove?"),
    ("off", "What are the folding steps for a traditional origami crane?"),
    ("off", "How do I get chewing gum out of a child's hair?"),
    ("off", "How do I make quick refrigerator pickles from cucumbers?"),
    ("off", "What should I look for when buying a secondhand acoustic piano?"),
    ("off", "How do I keep deer from eating the tulips in my front garden?"),
]


def main():
    with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
        for n, (kind, q) in enumerate(U, 1):
            fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
