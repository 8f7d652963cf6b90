#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the chosen
chapters do not answer it.  `near` questions are Vim topics that the reference manual
covers in chapters left out of this corpus (spell.txt, quickfix.txt, pattern.txt,
map.txt, change.txt, insert.txt, syntax.txt, remote.txt, sign.txt, gui.txt,
indent.txt, options.txt, if_pyth.txt, repeat.txt, starting.txt); `off` questions are
off-topic and differ from those of every other ground truth under eval/."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I turn on spell checking for British English and add a word to my own good-word list?"),
    ("near", "How do I tell Vim which build program to run when I compile from inside the editor, and how are the compiler's error lines parsed?"),
    ("near", "How do I write a search pattern that only matches text preceded by something else, like a lookbehind, or that starts the match halfway through the pattern?"),
    ("near", "When writing a plugin, how do I expose a mapping through <Plug> and use the user's leader key so users can remap it?"),
    ("near", "How do I make the Tab key insert spaces while editing, and convert the existing tabs in a file into spaces?"),
    ("near", "How do I get language-aware completion of identifiers in Insert mode with an omni completion function?"),
    ("near", "How do I define keywords and regions in a syntax highlighting file for my own language?"),
    ("near", "How do I open a file in an already running gvim from the shell instead of starting a second instance?"),
    ("near", "How do I place a sign in the column left of a line, the way linters mark errors?"),
    ("near", "Which setting controls whether comments are wrapped automatically and the comment leader inserted on a new line?"),
    ("near", "How do I choose the font and font size that gvim uses to display text?"),
    ("near", "How do I add my own entries to gvim's menu bar?"),
    ("near", "How do I turn on automatic C indentation and tune how case labels and continuation lines are indented?"),
    ("near", "How do I shorten how long Vim waits for the rest of a mapped key sequence before giving up?"),
    ("near", "How do I hide markup characters, for example in Markdown, and show replacement characters instead?"),
    ("near", "How do I run Python 3 code from inside Vim and check whether my build supports it?"),
    ("near", "How do I install a plugin as a package so that it is only loaded when I ask for it?"),
    ("near", "How do I stop the key that adds one to a number from treating 007 as an octal number?"),
    ("near", "How do I highlight every match of the last search pattern and switch that highlighting off again?"),
    ("near", "How do I find out which of my startup scripts makes Vim slow to start?"),
    ("near", "How do I make Vim show tabs and trailing spaces as visible characters?"),
    ("off", "How do I keep a backyard compost heap from smelling?"),
    ("off", "How often should the water in a goldfish bowl be changed?"),
    ("off", "What is the correct fingering for a C major scale on the piano?"),
    ("off", "How do I get rid of moths in a wardrobe full of wool sweaters?"),
    ("off", "At what temperature and for how long should homemade pizza bake in a home oven?"),
    ("off", "Which yoga poses are safe for a complete beginner with stiff hamstrings?"),
    ("off", "How do I jump-start a car with a dead battery using jumper cables?"),
    ("off", "How can I tell whether an avocado in the shop is ripe?"),
    ("off", "Should I send a thank-you email after a job interview, and what should it say?"),
]
with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
    for n, (kind, q) in enumerate(U, 1):
        fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind}, ensure_ascii=False) + "\n")
