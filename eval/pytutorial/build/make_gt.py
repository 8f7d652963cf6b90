#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document between a
start marker and an end marker (both included), so nothing is retyped by hand."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GT = [
    ("01-appetite.md", "By the way, the language is named", "nothing to do with reptiles.",
     "Where does the name of the Python programming language come from?",
     "is python called that because of the snake? my kid asked me and I honestly have no clue"),
    ("02-interpreter.md", "Typing an end-of-file character", "zero exit\nstatus.",
     "Which key combination at the primary prompt ends an interactive interpreter session, and with what exit status?",
     "I'm stuck in the >>> thing in my terminal, how do I get out without closing the whole window?"),
    ("03-introduction.md", "To do floor division and\nget an integer", "the remainder you can use `%`:",
     "Which operator yields the integer part of a division, and which computes the remainder?",
     "7/2 gives me 3.5 but I just want 3, how do I get a whole number when dividing?"),
    ("03-introduction.md", "In interactive mode, the last printed expression", "`_`.",
     "In interactive mode, which variable holds the value of the most recently displayed expression?",
     "using the python prompt as a calculator, can I reuse the previous answer without retyping it, like ANS on a calculator?"),
    ("03-introduction.md", "Python strings cannot be changed", "they are immutable.",
     "Can an individual character of a str object be modified in place?",
     "s[0] = 'J' gives TypeError 'str' object does not support item assignment, how do I fix one letter in my text?"),
    ("04-controlflow.md", "a `try` statement's `else` clause runs\nwhen no exception", "no `break`\noccurs.",
     "Under what condition does the else clause attached to a for or while loop execute?",
     "what's the point of putting else after a for loop? the code in it ran and I don't get when it's skipped"),
    ("04-controlflow.md", "In fact, even functions without a\n", "albeit a rather boring one.",
     "What value does a function produce if its body contains no return statement?",
     "I printed what my function gives back and it just says None, where is that coming from?"),
    ("04-controlflow.md", "**Important warning:** The default value", "evaluated only once.",
     "How often is a parameter's default value computed, and why does this matter when it is a list?",
     "my function keeps remembering the list from the previous call, why??"),
    ("04-controlflow.md", "Wrap lines so that", "79 characters.",
     "What maximum line length does the PEP 8 style guide recommend?",
     "reviewer keeps complaining my lines are too long, is there an official limit for how wide python code should be?"),
    ("05-datastructures.md", "While appends and pops from the end of list are", "shifted by one).",
     "Why is a plain list inefficient when used as a first-in, first-out queue?",
     "my job queue does list.pop(0) and it gets really slow once there are 100k items, why?"),
    ("05-datastructures.md", "create an empty set you have to use", "creates an\nempty dictionary",
     "How do you create an empty set, and what does a pair of empty curly braces create instead?",
     "I wrote x = {} to start a set but then x.add(1) fails with AttributeError dict object has no attribute add"),
    ("05-datastructures.md", "Note that in Python, unlike C, assignment inside expressions", "walrus operator `:=`.",
     "How can a value be assigned to a name inside a condition or other expression?",
     "coming from C, if (x = f()) doesn't work in python, gives SyntaxError. is there any way to do that?"),
    ("06-modules.md", "you can make the file usable as a script", "executed as the \"main\" file:",
     "How can one file work both as an importable module and as a standalone program?",
     "when I import my helper file it runs all its test code at the top, I only want that when I run it directly"),
    ("06-modules.md", "This means that scripts in that\ndirectory will be loaded", "library\ndirectory.",
     "What happens when a script's own directory contains a file with the same name as a standard library module?",
     "named my script random.py and now import random says module 'random' has no attribute 'randint'"),
    ("06-modules.md", "The `__init__.py` files are required", "containing the file as packages.",
     "What file must a directory contain for Python to treat it as a package?",
     "I made a folder with my code files but `import myfolder.utils` says No module named, what am I missing?"),
    ("07-inputoutput.md", "The `str()` function is meant to return", "which can be read by the interpreter",
     "What is the difference in purpose between str() and repr()?",
     "printing a string shows hello but in the console it shows 'hello' with quotes, why two different outputs?"),
    ("07-inputoutput.md", "`'w'`\nfor only writing", "will be erased)",
     "What happens to an existing file when it is opened with mode 'w'?",
     "I open my log with open(path, 'w') each run and all the old lines vanish!! how do I keep them"),
    ("07-inputoutput.md", "`f.readline()` reads a single line from the file;", "is left at the end of the string",
     "Does the string returned by readline() include the trailing newline character?",
     "every line I read from my text file has an extra \\n stuck on the end, where does it come from?"),
    ("08-errors.md", "Note that if the *except clauses* were reversed", "is triggered.",
     "When several except clauses could match, which one handles the exception?",
     "my except Exception block catches everything so my except ValueError below it never runs, why?"),
    ("08-errors.md", "If a `finally` clause includes a `return`", "`return`\n    statement.",
     "If both the try block and the finally block contain return statements, which value is returned?",
     "function returns True inside try but the caller gets False, there's also a return in my cleanup block"),
    ("08-errors.md", "For this\npurpose, exceptions have a method", "notes list.",
     "How can extra information be attached to an exception after it has been caught?",
     "I catch an error deep in a loop and want to tack on which iteration failed before re-raising, without a new exception type"),
    ("09-classes.md", "if not declared nonlocal, those variables are read-only", "outer variable unchanged).",
     "What happens when a nested function assigns to a variable from an enclosing scope without declaring it?",
     "inner function does count = count + 1 but the outer count never changes, what am I doing wrong"),
    ("09-classes.md", "the *tricks* list in the following code should not be used", "*Dog*\ninstances:",
     "Why is it a mistake to store a mutable list as a class variable when each instance needs its own?",
     "every object of my class ends up with the same items in its list, adding to one adds to all of them"),
    ("09-classes.md", "`__spam` (at least two leading underscores", "with `_classname__spam`",
     "How does Python transform attribute names that begin with two underscores inside a class?",
     "obj.__secret raises AttributeError from outside but I can see it in dir(obj) under a weird name, what's going on"),
    ("09-classes.md", "What makes generators so\ncompact", "are created automatically.",
     "Why are generators more compact to write than class-based iterators?",
     "do I really need to write __iter__ and __next__ by hand to make something loopable? so much boilerplate"),
    ("10-stdlib.md", "Be sure to use the `import os` style", "`from os import *`.",
     "Which import style is recommended for the os module, and why?",
     "after a star import from os my open('notes.txt') call suddenly wants an integer flags argument, huh?"),
    ("11-stdlib2.md", "the preferred approach to task coordination is", "requests from other threads.",
     "What is the recommended way to coordinate several threads that need the same resource?",
     "my worker threads keep stepping on each other writing to the same file, locks everywhere are a mess, better pattern?"),
    ("11-stdlib2.md", "The `heapq` module provides functions", "regular lists.",
     "Which standard module implements a heap on top of an ordinary list?",
     "I keep sorting my list again and again just to grab the smallest item, is there something built in that's faster"),
    ("12-venv.md", "`python -m pip freeze` will produce", "`python -m pip install` expects.",
     "Which command lists installed packages in a format suitable for a requirements file?",
     "how do I export everything installed in my env so a coworker gets the exact same versions?"),
    ("14-floatingpoint.md", "Note that this is in the very nature of binary", "not a bug in your code either.",
     "Is the imprecise display of values such as 0.1 a defect in Python?",
     "0.1 + 0.2 prints 0.30000000000000004, is my python install broken??"),
    ("14-floatingpoint.md", "the `round()` function can be useful for post-rounding", "comparable to one another",
     "How can float results that should be equal be made comparable despite representation error?",
     "comparing two calculated decimals with == says False even though they print identical, how do I check they match"),
    ("15-appendix.md", "On some platforms, this first line must end", "line\nending.",
     "What line-ending requirement applies to the #! line of an executable script?",
     "./myscript.py fails with bad interpreter: /usr/bin/env: 'python3\\r' after I edited it on my windows laptop"),
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
        print(r["id"], r["doc"], len(r["needle"]), repr(r["needle"])[:300])


if __name__ == "__main__":
    main()
