#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the chosen
chapters do not answer it.  `near` questions are Vim topics that the user manual covers
in chapters left out of this corpus (folding, the undo tree, :make and quickfix, text
alignment, long-line display, :windo/:bufdo, search patterns, GUI fonts, Vim9 script,
syntax files, the terminal window, installing from source, tab settings, plugin
writing, popups, script debugging, re-indenting C, client-server, signs, relative
numbers, spell checking); `off` questions are off-topic."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I make Vim fold a source file automatically by its indentation, and then open every fold at once?"),
    ("near", "After undoing a few changes and typing something new, how do I get back the text of the abandoned undo branch, or the file as it was ten minutes ago?"),
    ("near", "How do I tell the editor which build program to run when I compile from inside it, and how are the compiler's error lines recognised?"),
    ("near", "How do I center a line of text, or align it against the right margin, within the text width?"),
    ("near", "How can wrapped long lines be broken on screen at word boundaries instead of in the middle of a word?"),
    ("near", "How do I run one Ex command in every open window, or in every buffer, with a single command?"),
    ("near", "How do I write a search pattern that only matches text preceded by something else, like a lookbehind, or starts the match halfway through the pattern?"),
    ("near", "How do I choose the font gvim uses to display text?"),
    ("near", "How do I declare a function with typed arguments and a return type in Vim9 script?"),
    ("near", "How do I define keywords, regions and matches in a syntax highlighting file for my own language?"),
    ("near", "How do I open a shell inside a Vim window and switch that terminal window to Normal mode to copy its output?"),
    ("near", "Which options do I pass when building Vim from source so that it has Python 3 support?"),
    ("near", "How do I make the Tab key insert spaces, and convert the tabs already in a file into spaces?"),
    ("near", "When writing a plugin, how do I use <Plug> and <SID> so users can remap my mappings without clashes?"),
    ("near", "How do I show a popup window with popup_create() and close it when the user presses a key?"),
    ("near", "How do I set a breakpoint in a Vim script function and step through it line by line?"),
    ("near", "How do I search many files with Vim's own regular expression engine instead of an external grep program?"),
    ("near", "How do I re-indent a whole C file at once with the = operator, and tune the style of C indenting?"),
    ("near", "How do I open a file in an already running gvim from the shell instead of starting a second instance?"),
    ("near", "How do I place a sign in the column left of a line, the way linters mark errors?"),
    ("near", "How do I turn on spell checking for British English and add a word to my own word list?"),
    ("off", "How long can cooked rice safely stay in the fridge?"),
    ("off", "What is the best way to clean a cast iron skillet without ruining its seasoning?"),
    ("off", "How do I bleed the air out of a home radiator?"),
    ("off", "Which vaccinations does a puppy need in its first year?"),
    ("off", "How do I unclog a bathroom sink drain without using chemicals?"),
    ("off", "When and how should I prune a rose bush?"),
    ("off", "How do I stop my glasses from fogging up when I wear a face mask?"),
    ("off", "What is a good way for a beginner to learn to ice skate backwards?"),
    ("off", "How should fresh basil be stored so that it does not wilt?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")
