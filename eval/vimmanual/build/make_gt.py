#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document between a
start marker and an end marker (both included), so nothing is retyped by hand.
The queries were written by hand from the text alone (no retrieval was run)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (document, start marker, end marker, course phrasing, ticket phrasing)
GT = [
    ("usr_01.txt", "If it is in the\nlist, there must be some other place", "switched\nback on.",
     "What does it mean when my startup file is among the loaded scripts yet the editor still runs in Vi-compatible mode?",
     "~/.vimrc shows up in :scriptnames but :set compatible? keeps answering 'compatible', what now"),
    ("usr_02.txt", "If you type \"u\" twice, and the result", "to work Vi compatible.",
     "Why would a second undo bring back the edit that the first undo just reverted?",
     "hitting u two times just flips my last edit back and forth instead of going further back"),
    ("usr_02.txt", "If you want help for an option, you need", "single quotation marks.",
     "How do I look up the documentation of a setting rather than a command that has the same name?",
     "typed :help list wanting the setting that shows tabs and line ends, got a page about Vim script lists instead"),
    ("usr_03.txt", "The cursor is never moved to another line.", "another line.",
     "Can the single-character find motion reach a character on the following line?",
     "pressing fx when the x sits on the next line does nothing, cursor just stays where it is"),
    ("usr_03.txt", "(If you use MS-Windows compatible", "instead of scroll.)",
     "Is there a configuration where the key for scrolling one line down does something else?",
     "in my Windows gvim Ctrl-Y re-applies an edit I undid rather than moving the view by a line"),
    ("usr_03.txt", "Also, \"j\" and \"k\" are not considered to be a jump", "quite a long way away.",
     "Do counted up/down line motions get recorded as positions to return to with CTRL-O?",
     "did 200j to look at something, then ctrl-o to go back, and it took me somewhere totally different"),
    ("usr_04.txt", "The c operator works just like the d operator, with one", "exception: \"cw\".",
     "Is there a case where the change operator does not behave like the delete operator with the same motion?",
     "dw eats the trailing blank but cw leaves it in place, is that a bug?"),
    ("usr_04.txt", "Unexpectedly, while \"D\" deletes from the cursor", "it yanks the whole line.",
     "Does capital Y copy only from the cursor onward, the way capital D removes just the rest of the line?",
     "pressed Y then p hoping to duplicate just the tail after the cursor, got a full new line pasted"),
    ("usr_05.txt", "Normally Vim waits a second", "start of an escape sequence.",
     "Why is there a pause before Insert mode ends after pressing the Escape key in a terminal?",
     "over ssh there's a noticeable lag each time I hit Esc before the -- INSERT -- indicator goes away"),
    ("usr_05.txt", "The |defaults.vim| file is loaded when", "has no vimrc file.",
     "Which bundled settings file stops being read once I have my own startup file?",
     "made a ~/.vimrc containing only 'set number' and suddenly colors, the ruler and incsearch are all gone"),
    ("usr_05.txt", "If you use \"otherstuff.vim\" it wouldn't work", "for the \"otherstuff\" filetype.",
     "What naming rule must a second plugin file for one file type follow so it gets used for that type?",
     "saved my extra Python tweaks as ~/.vim/ftplugin/pythonmore.vim and they never take effect on .py files"),
    ("usr_06.txt", "Make sure you put this _before_ the \":syntax enable\" command,", "will already have been set.",
     "In what order should the background option and turning on syntax coloring appear in my vimrc?",
     "vimrc has set background=dark near the bottom but the colors are still the ones meant for white terminals"),
    ("usr_07.txt", "Notice that the CTRL-^ command does not change the idea", "in the list of files.",
     "Does toggling to the alternate file move my position in the argument list?",
     "went back to one.c with ctrl-^, then :next opened three.c instead of two.c"),
    ("usr_07.txt", "When the 'backup' option isn't set but the 'writebackup' is", "still create a backup file.",
     "Is a backup copy made during saving even when the backup option is turned off?",
     "with nobackup set my file watcher still sees a notes.txt~ pop up for a moment on every :w"),
    ("usr_08.txt", "But \":close\" prevents you from accidentally exiting Vim", "last window.",
     "What is the advantage of the close command over quit for getting rid of a window?",
     "I keep quitting the whole editor when I only meant to dismiss what I thought was one of several splits"),
    ("usr_08.txt", "The file on\nyour harddisk will remain unmodified", "write the file).",
     "Does applying a patch in diff mode change the file on disk right away?",
     "ran :vertical diffpatch fix.diff, the windows show the fix, but git status says nothing was touched"),
    ("usr_09.txt", "However, when you move the cursor to a window on the", "the scrollbar controls.",
     "With side-by-side windows in the GUI, which window does the single scrollbar operate on?",
     "gvim with a vertical split: dragging the bar on the right edge scrolls the left pane's text"),
    ("usr_10.txt", "When using Visual mode to select part of a line, or using CTRL-V", "apply to whole\n\tlines.",
     "If only part of a line is highlighted, is a colon command limited to that part?",
     "highlighted two words with v, ran :s/a/o/g and it also replaced letters outside what I had marked"),
    ("usr_10.txt", "If the block spans short lines that do not extend into the block", "not inserted in that line.",
     "What happens to lines too short to reach a rectangular selection when inserting text in front of it?",
     "ctrl-v over 10 lines then I# and Esc: most lines got the prefix but a couple of short ones were skipped"),
    ("usr_10.txt", "A blank line, which contains white space, does NOT separate", "paragraphs.",
     "Does a line holding only spaces count as a paragraph boundary when reformatting text?",
     "gqap merged two of my paragraphs into one though there is an empty looking line between them"),
    ("usr_11.txt", "Vim flushes the\nchanges to disk when you don't type", "two hundred characters.",
     "How often is the swap file updated, so how much work might a crash cost me?",
     "recovered with vim -r after a power cut but the last sentence or so I typed is missing"),
    ("usr_11.txt", "On Unix this choice is only offered when the process", "does not appear to be running.",
     "When is removing the swap file offered among the choices of the existing-swap-file warning?",
     "the ATTENTION prompt only offers O/E/R/Q/A, there's no (D) option, why not?"),
    ("usr_12.txt", "The \"e\" flag tells \":substitute\" that not finding", "is not an error.",
     "How can a substitution be kept from failing in a file that has no occurrences of the pattern?",
     "my recorded macro doing :%s plus :wnext over 40 files halted at the third file, which lacks the word"),
    ("usr_20.txt", "If you are at the start of the command line, pressing <BS>", "will cancel the\ncommand.",
     "What does backspace do when nothing is left before the cursor on the colon prompt?",
     "while fixing a typo in a : command I hit backspace once too often and the whole prompt vanished"),
    ("usr_20.txt", "In that case you will get\na <Tab> inserted", "(displayed as ^I).",
     "What happens when completion is not available for what I am typing after a colon?",
     "pressing Tab in a : command sometimes just shows ^I instead of completing anything"),
    ("usr_21.txt", "When you run Vim multiple times, the last one exiting", "store its\ninformation.",
     "With several editor instances open, whose history ends up saved in the viminfo file?",
     "did a bunch of searches in one terminal's vim but after closing them all those searches are not in my history"),
    ("usr_21.txt", "There must be\nwhite space before \"vim\"", "at the start of the line.",
     "What has to come before the vim: marker for a modeline to be recognized?",
     "my modeline '//vim: set sw=2:' at the bottom of the file has no effect at all"),
    ("usr_22.txt", "Without the \"./\", thus \"proto\", Vim would look", "below the current directory.",
     "How does a relative entry in the path option without a leading dot differ from one with it?",
     "added set path+=include to my vimrc; gf on a header works when I launch vim from the project root but not from inside src/"),
    ("usr_22.txt", "It's actually made \"unlisted\", it no longer appears", "\":buffers\".",
     "Does deleting a buffer make the editor forget it entirely?",
     "after :bd the file is gone from :ls, yet :ls! still lists it; didn't :bd delete the buffer?"),
    ("usr_23.txt", "Vim does not have a mechanism to check if the key is the right one", "harder to break the key).",
     "Does the editor tell me when I enter the wrong password for an encrypted file?",
     "opened my encrypted notes, mistyped the passphrase, and instead of an error I got a screen of junk"),
    ("usr_24.txt", "If the register contains characters such as <BS>", "typed from the keyboard.",
     "When inserting a register's contents in Insert mode, how are control characters in it handled?",
     "ctrl-r a in insert mode to paste a recorded macro mangles the text, the backspaces in it actually delete stuff"),
    ("usr_24.txt", "When you now type @a, you will get", "\"adisk-doorer\".",
     "Can an Insert mode mapping interfere with the text an abbreviation expands to?",
     "my abbreviation expands into garbage that contains the right-hand side of one of my imaps"),
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
