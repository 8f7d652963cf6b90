#!/usr/bin/env python3
"""Write questions.jsonl: 32 needle-style ground truths over the Vim reference chapters.

Each needle is cut out of its document between a start marker (unique in the document)
and the first end marker after it, so it is byte-exact; the queries were written by hand
from the text alone (no retrieval, search, embedding or model was run on this corpus)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (doc, start marker, end marker, course query, ticket query)
GT = [
    ("cmdline.txt", "But for a mapping, only the last search is", "trash the history).",
     "Does every pattern looked for inside a key mapping get recorded in the list of earlier searches?",
     "my mapping does three / searches in a row, afterwards pressing / and Up only ever shows the last one"),
    ("cmdline.txt", "The default is \".bak,~,.o,.h,.info,.swp,.obj\"", "are sometimes ignored.",
     "Which file extensions get lower priority by default when a file name completes to several candidates?",
     "both util.c and util.h exist, :e util.<Tab> always fills in the .c one and I never get the header first"),
    ("cmdline.txt", "If you insert blanks the '!' will be seen as an", "which has a different meaning.",
     "What is the effect of typing a space between an Ex command name and its exclamation mark?",
     "meant to force-save with ':w !' (typo, extra space) and instead of overwriting it tried to run a shell thing"),
    ("cmdline.txt", "The default line specifier for most commands is the cursor position", "(1,$) as default.",
     "Which Ex commands act on the entire buffer when no line range is typed?",
     "typed :g/TODO/d expecting it to only look at the current line like :d does, but it wiped TODOs all over the file"),
    ("diff.txt", "This means\n\t\t\t\tthat parts in the middle", "highlighted anyway.",
     "Why can unchanged characters inside a modified line still get the changed-text colour in diff mode?",
     "vimdiff colours a whole stretch of the line red although only the first and last words differ, the middle is identical"),
    ("diff.txt", "Using \"diff -u\" will NOT work", "use \"diff -U0\".",
     "Which unified output flag must an external comparison program use so that diff mode can parse it?",
     "wrote my own diffexpr that shells out with the usual unified option and now vimdiff just errors E97"),
    ("editing.txt", "The default \"~\" is a bit\nstrange", "overwriting existing files.",
     "Why does the default backup name end in a tilde rather than a normal extension?",
     "vim leaves notes.txt~ files all over my folders, why such a weird name instead of .bak like other editors"),
    ("editing.txt", "When writing this doesn't happen, thus a next write", "old value of the option.",
     "Does a one-off format argument on a write command change the buffer's format for later saves?",
     "did :w ++ff=dos once for a colleague, then my next plain :w produced unix line endings again"),
    ("editing.txt", "Only when ALL lines end in <CR><NL>", "otherwise it is set to \"unix\".",
     "How is the end-of-line style of a freshly opened file chosen when both unix and dos are allowed?",
     "a file from a Windows machine shows ^M at the end of nearly every line; someone had appended one line on Linux"),
    ("editing.txt", "When writing a file that was read Vim\nwill preserve", "clear the s-bit.",
     "Are all permission bits of an existing file kept when the editor rewrites it?",
     "after fixing a typo in a setuid helper with vim, ls -l no longer shows the s in the mode"),
    ("editing.txt", "Note that commands\n\tsuch as `:xit` and `ZZ`", "unless there are other\n\tchanges.",
     "After entering a new encryption key, will the exit-and-save-if-modified commands store the file encrypted?",
     "ran :X, typed a password twice, hit ZZ, and the file on disk is still readable plain text"),
    ("editing.txt", "This doesn't work at the moment you write the\nfile though", "changed inside of Vim.",
     "When is a file that changed outside the editor not reloaded automatically despite the auto-reload option?",
     "autoread is on, but when the formatter rewrites the file while I have unsaved edits vim still prompts instead of reloading"),
    ("fold.txt", "If there is some error in the expression, or the resulting value isn't", "the fold level will be zero.",
     "What happens when the expression that computes fold levels fails or returns something unexpected?",
     "my custom foldexpr function must have a bug somewhere, but there's no message at all, simply nothing gets folded"),
    ("fold.txt", "When starting a search in a closed fold it will not find", "current fold.",
     "Can a search that begins inside a collapsed region match text hidden in that same region?",
     "cursor sits on a folded block, I search for a word I know is inside it and vim jumps to some later spot in the file"),
    ("motion.txt", "Example: \"}\" moves to the first line after a paragraph,", "will not include that line.",
     "Why does deleting up to the next paragraph boundary leave the line the cursor motion itself would land on?",
     "} puts the cursor on the blank line after the paragraph, but d} keeps that blank line, why the difference"),
    ("motion.txt", "If a count of 2 or larger is\n\t\t\tgiven", "the cursor doesn't move.",
     "What happens when the end-of-line motion gets a count of two or more on the final line of the buffer?",
     "my macro uses 2$ and works everywhere except on the very last line of the file where it beeps and stays put"),
    ("motion.txt", "In contrast with |G| this command", "|jumplist|.",
     "Does going to a line by typing its number after a colon record a position I can return to?",
     "after :250 pressing ctrl-o doesn't bring me back, but if I use 250G instead it does"),
    ("motion.txt", "If you delete a line that contains a mark", "that mark is erased.",
     "What becomes of a lowercase mark when the line holding it is removed?",
     "I set ma on a line, later dd'd that line, now 'a just says E20 Mark not set"),
    ("motion.txt", "When two undo-able changes are in the same line and at a column position less",
     "only the last one is remembered.",
     "Why are several nearby edits on one line collapsed into a single entry of the change history?",
     "made five little fixes on the same short line, but g; skips straight past them as if only one edit happened there"),
    ("recover.txt", "When you use your home directory, and somebody else", "warning message.",
     "What is the drawback of keeping swap files under my home folder when others open the same files?",
     "set dir=~/tmp, and today a coworker and I edited the shared config simultaneously without either of us being warned"),
    ("tabpage.txt", "Note that the use of {count} is different", "tab page number.",
     "Is the number given before the backward tab-switch key an index, like for the forward one?",
     "3gt takes me to the third tab, but 3gT from tab five lands on tab two, not three"),
    ("tabpage.txt", "Currently there is only one option local to a tab page", "'cmdheight'.",
     "Which setting can hold a different value in each tab page?",
     "bumped the command area to 3 lines in one tab and then noticed the other tabs still have a single line"),
    ("tagsrch.txt", "When you type CTRL-] to jump to a\ntag", "the telnet prompt instead.",
     "Why might the jump-to-definition key be intercepted when working on a remote machine?",
     "logged into the old server through telnet and pressing ctrl-] in vim drops me at a telnet> prompt"),
    ("tagsrch.txt", "If the stack was full (it can hold up to 20", "the oldest entry is deleted",
     "How many entries does the stack of visited definitions keep, and what is dropped beyond that?",
     "after drilling through about 25 nested definitions ctrl-t can't take me all the way back to where I started"),
    ("tagsrch.txt", "When an include file could not be found it is silently", "ignored.",
     "What happens during a definition search through headers when one of the referenced headers cannot be located?",
     "[I shows nothing from my project headers and gives no error; turned out my path setting was wrong"),
    ("undo.txt", "When \"U\" changes the\nbuffer back", "it is still considered changed.",
     "After restoring a line with the line-undo command, is the buffer counted as unmodified again?",
     "pressed U to put the line back exactly as it was, yet :q still refuses with No write since last change"),
    ("undo.txt", "When you set 'undolevels' to -1 the undo information is not immediately",
     "this happens at the next change.",
     "Does setting the number of remembered changes to minus one throw away the history right away?",
     "set undolevels=-1 to wipe the history before handing the file over, but u still reverts my earlier edits"),
    ("windows.txt", "If\nthere are more file names than windows", "do not get a window.",
     "When the numbered horizontal-split startup flag is smaller than the number of files given, what happens to the rest?",
     "vim -o2 a.c b.c c.c only shows two splits, where did c.c go?"),
    ("windows.txt", "but that does not work, because the CTRL-C cancels the", "command.",
     "Why does the control-C variant of the close-window key sequence fail to do anything?",
     "ctrl-w ctrl-q closes a split fine, but ctrl-w ctrl-c does nothing at all"),
    ("windows.txt", "When you try to quit Vim while there is a hidden, modified buffer", "the current buffer.",
     "What happens on exit when a buffer that is not displayed still has unsaved changes?",
     "typed :q in my only window to leave, vim complained instead and suddenly showed me some other file I had switched away from"),
    ("windows.txt", "Note that a buffer whose name is a number", "use the buffer number instead.",
     "How do I switch to a buffer whose file name is made only of digits?",
     "I have a file literally called 2024 open, :b 2024 gives me some other buffer or an error"),
    ("windows.txt", "If you are in a help buffer, this takes you to the next help", "(if there is one).",
     "When cycling to the next buffer from a documentation page, which buffers are visited?",
     ":bn from the help window keeps cycling through help pages and never reaches my source files"),
]


def main():
    rows = []
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        text = open(os.path.join(HERE, "docs", doc), encoding="utf-8").read()
        assert text.count(start) == 1, (n, "start marker not unique", start)
        a = text.index(start)
        b = text.index(end, a) + len(end)
        rows.append({"id": f"q{n:02d}", "doc": doc, "needle": text[a:b],
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        text = open(os.path.join(HERE, "docs", r["doc"]), encoding="utf-8").read()
        pos = text.index(r["needle"]) / len(text)
        print(r["id"], r["doc"], len(r["needle"]), f"{pos:.2f}", repr(r["needle"])[:200])


if __name__ == "__main__":
    main()
