#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document's canonical text
(citeline's HTML extraction of the page, not the raw HTML) between a start marker and an
end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run).

Run with citeline's interpreter: /work/main/.venv/bin/python build/make_gt.py"""
import json
import os
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402


def canonical(name):
    p = Path(HERE, "docs", name)
    return extractor_for(p).extract(p, name).text


# (document, start marker, end marker, course query, ticket query)
GT = [
    ("01-gittutorial.html", "you can adjust gitk’s fonts", "pressing \"-\" or \"+\".",
     "How can I make the text in gitk bigger or smaller?",
     "the history browser window that comes with git has tiny unreadable text on my 4K monitor, is there a zoom shortcut?"),
    ("02-gittutorial-2.html", "So by default git commit uses the index", "all changes in the working tree.",
     "When I run git commit without -a, does it record the working tree or the staged state?",
     "I edited config.py after staging it, committed, and the commit has the old version of the file; my latest edits weren't included, why?"),
    ("03-giteveryday.html", "log-in shell is set to /usr/bin/git-shell", "git push and git pull.",
     "How can developers be given ssh accounts that only permit Git transfers and nothing else?",
     "we want contributors to ssh into our server only to push and fetch repos, never get an interactive bash prompt; what login program should their accounts use?"),
    ("04-user-manual.html", "In this case, though, Git may not eventually", "a later bad commit.",
     "What is the downside of skipping commits during a bisection?",
     "I told bisect to skip a bunch of commits that don't compile and now it ends by listing several candidates instead of naming one culprit"),
    ("04-user-manual.html", "The reflogs are kept by default", "they may be pruned.",
     "How long does Git keep reflog entries before they can be cleaned up?",
     "a reset I did about six weeks ago no longer shows up when I look through HEAD@{n}; how long does git hold on to that by default?"),
    ("04-user-manual.html", "By default, it will allow access to any directory", "git-daemon-export-ok.",
     "Which repositories will git daemon serve when it is started without restricting paths?",
     "started the git:// daemon on our box, but clients get 'repository not exported' for our bare repo; what does it require before sharing a directory?"),
    ("04-user-manual.html", "You can also push to a repository that has a checked-out", "to prevent confusion.",
     "Will Git accept a push that updates the branch a remote working copy is sitting on?",
     "git push to my colleague's working clone fails with 'refusing to update checked out branch: refs/heads/main'"),
    ("04-user-manual.html", "Merging inside a shallow clone will work", "in the recent history.",
     "Does merging work in a repository cloned with --depth?",
     "CI clones with depth 1 and then the merge step explodes with tons of conflicts as if the two branches had nothing in common"),
    ("04-user-manual.html", "One major difference between git submodule update", "rather than the tip of a branch.",
     "Why is a submodule left on a detached HEAD after it gets updated from the superproject?",
     "every time I sync the submodules, the lib folder ends up 'HEAD detached at abc123' and not on main; how do I stay on a branch?"),
    ("04-user-manual.html", "Note that the grafts mechanism is outdated", "to do the same thing.",
     "Are grafts still a recommended way to change a commit's recorded parents?",
     "I used .git/info/grafts to stitch old SVN history onto our repo and now pushing and cloning behave weirdly; is there a better mechanism?"),
    ("04-user-manual.html", "This is presently only HEAD and any refs that start with refs/bisect/", "other unusual refs.",
     "Which references does each working tree keep for itself rather than sharing globally?",
     "running a bisect in one linked worktree, and my other worktree doesn't see the good/bad markers; which refs are private to each checkout?"),
    ("05-gitcore-tutorial.html", "Note that when you’ve moved or copied a Git repository", "will likely need to be refreshed.",
     "What has to be done after duplicating a repository to another directory with cp -a?",
     "I copied my whole project folder including .git to a new disk and now git status claims every file is modified though nothing changed"),
    ("05-gitcore-tutorial.html", "If there were more commits on the master branch after the merge", "by git show-branch by default.",
     "Under what circumstances does show-branch leave out a merge from its output?",
     "after merging my branch and adding a couple more commits on top, the merge itself vanished from the show-branch listing"),
    ("05-gitcore-tutorial.html", "Many installations of sshd do not invoke your shell", "not .bash_profile.",
     "Why might programs on the remote side of an ssh push not be found even though my PATH is set in my profile?",
     "git push over ssh fails with 'git-receive-pack: command not found', but when I log in interactively the command works fine"),
    ("06-gitworkflows.html", "Always commit your fixes to the oldest", "that requires them.",
     "On which branch should a bug fix be committed first when several release lines are maintained?",
     "we have maint, master and next; a bugfix went into master and now needs backporting by cherry-pick every time, where should fixes be made originally?"),
    ("07-gitfaq.html", "Note that increasing this value will increase the memory", "whether or not it is all used.",
     "What is the cost of raising http.postBuffer?",
     "someone on Stack Overflow told me to set postBuffer to 500MB to fix my failing HTTPS push; any downside to that?"),
    ("07-gitfaq.html", "This is because the code has changed on one side", "Git adopts the change.",
     "Why does a merge keep a change when one branch made it and the other branch reverted it?",
     "fixed a bug on release and on main, then reverted it on main; merging release into main brings the fix back, I expected it to stay gone"),
    ("08-gitrevisions.html", "This is typically useful for merge commits where you can just pass", "(including <commit> itself).",
     "What shorthand lists every commit that a given merge brought in?",
     "need a quick way to show the commits from the feature branch that merge abc123 pulled into main, without typing a range by hand"),
    ("09-gitignore.html", "It is not possible to re-include a file", "of that file is excluded.",
     "Can a negated ! pattern in .gitignore bring back a file inside an ignored directory?",
     "my .gitignore has build/ and then !build/keep.txt but keep.txt still doesn't show up in git status"),
    ("10-gitattributes.html", "patterns that match a directory do not recursively", "use path/** instead)",
     "Does an attributes pattern naming a directory apply to the files inside it?",
     "I put 'vendor/ -diff' in .gitattributes and diffs under vendor still show in full; what's wrong with that line?"),
    ("10-gitattributes.html", "Custom macro attributes can be defined only", "top-level gitattributes files",
     "In which gitattributes files is it allowed to declare my own attribute macros?",
     "defined [attr]mybin in src/.gitattributes but Git ignores it, while the same line in the root one works"),
    ("11-gitsubmodules.html", "When cloning or pulling a repository containing submodules", "recurse into submodules.",
     "Are submodules populated automatically when a superproject is cloned?",
     "cloned our repo and the third_party/ folders are all empty directories; what step did I miss?"),
    ("12-gitcredentials.html", "This means that a credential stored for", "https://example.com/bar.git.",
     "Does a saved HTTP login apply to other repositories on the same host?",
     "Git keeps logging into our second project on the same server with the token from the first one, even though they need different accounts"),
    ("13-git-reset.html", "Any untracked files or directories in the way", "are simply deleted.",
     "What happens to untracked files that block a hard reset from writing tracked files?",
     "ran reset --hard to an older commit and a local notes folder I never committed vanished; how?"),
    ("14-git-stash.html", "Applying the state can fail with conflicts", "removed from the stash list.",
     "Is a stash entry dropped when popping it results in conflicts?",
     "stash pop gave me merge conflicts; I fixed them but the entry still shows in git stash list, is it safe to delete?"),
    ("15-git-rebase.html", "Because of this, when a merge conflict happens, the side reported as ours", "theirs is the working branch.",
     "While rebasing, why are my own commits labeled as the other party in conflict markers?",
     "during git rebase main, I used checkout --ours to keep my version but it gave me main's code instead"),
    ("15-git-rebase.html", "Due to the lack of accurate tree information", "disabled in the apply backend.",
     "Does the apply backend of rebase detect directory renames?",
     "after rebasing with --apply, new files upstream added to src/old/ stayed there even though my branch moved the whole folder to src/new/"),
    ("15-git-rebase.html", "These labels are created as worktree-local refs", "when the rebase finishes.",
     "What happens to the labels made while rebasing with --rebase-merges once it is done?",
     "are the refs/rewritten/* refs that appear during a rebase with merges something I have to clean up, and could two worktrees clash over them?"),
    ("16-git-bisect.html", "It should be noted that a program that terminates via exit(-1)", "chopped with & 0377.",
     "Why does a bisect run script that calls exit(-1) stop the bisection?",
     "my test script for automated bisect returns -1 when the test fails and bisect quits instead of marking the commit bad"),
    ("17-git-worktree.html", "Note that the main worktree or linked worktrees containing submodules", "cannot be moved with this command.",
     "Which worktrees can't be relocated with git worktree move?",
     "trying to move my linked checkout to another folder and git refuses; the project uses submodules, is that the reason?"),
    ("18-howto-revert-a-faulty-merge.html", "If you merge the updated side branch (with D at its tip)", "because they were reverted by W.",
     "What happens when a side branch whose merge was reverted is merged again after fixes?",
     "we reverted the feature merge last week, pushed fixes to the feature branch, merged it again, and only the fixes landed; the original feature code is still missing"),
    ("19-howto-recover-corrupted-blob-object.html", "just clone the repository somewhere else", "not the same disk/machine",
     "What should I avoid when making a clone of a repository to serve as a backup?",
     "my backup strategy is git clone /repo /repo-backup on the same server; is that good enough protection against corruption?"),
]


def main():
    texts = {}
    out = []
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        text = texts.setdefault(doc, canonical(doc))
        assert text.count(start) == 1, (n, doc, start, text.count(start))
        i = text.index(start)
        j = text.index(end, i) + len(end)
        needle = text[i:j]
        out.append({"id": f"q{n:02d}", "doc": doc, "needle": needle,
                    "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for row in out:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    for row in out:
        print(row["id"], len(row["needle"]), row["needle"][:90])


if __name__ == "__main__":
    main()
