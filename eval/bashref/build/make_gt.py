#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from the canonical text (citeline's PDF
extraction of the manual, not the PDF's bytes) between a start marker and an end marker (both
included), so nothing is retyped by hand. A line break inside a needle is the PDF's line end.
The queries were written by hand from the text alone (no retrieval was run).

Run with citeline's interpreter: /work/main/.venv/bin/python build/make_gt.py"""
import json
import os
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402

DOC = "01-bashref.pdf"

# (start marker, end marker, course, ticket), in the manual's order
GT = [
    # 1.2 What is a shell?
    ("For example, cd, break,", "cannot be implemented outside of the shell",
     "Why do some commands such as cd have to be built into the shell instead of being separate programs?",
     "there's no /usr/bin/cd on my machine, so how does changing directory even work? why isn't it a normal program like ls"),
    # 2 Definitions
    ("A word consisting solely of letters, numbers, and underscores, and beginning",
     "with a letter or underscore.",
     "Which characters are allowed in the name of a shell variable or function?",
     "my-var=5 gives 'command not found' but myvar=5 works fine. what's wrong with the dash?"),
    # 3.2.3 Pipelines
    ("If the lastpipe option is enabled using the shopt builtin", "when job control is not active.",
     "Can the final command of a pipeline run in the current shell rather than in a subshell?",
     "I pipe a file into a while read loop and bump a counter inside it, but after the loop the counter is back to 0"),
    # 3.2.5.3 Grouping Commands
    ("Since\nthe list is executed in a subshell,", "after the subshell completes.",
     "What happens to variables assigned inside a parenthesized command group once it finishes?",
     "wrapped a few lines in ( ) to redirect them together, and now the variable I set in there is empty afterwards"),
    # 3.3 Shell Functions
    ("Functions may be exported\nso that child shell processes", "with the -f option to the export builtin",
     "How can a shell function be made available to shells started from the current one?",
     "defined a helper function in my terminal, but when I call it from bash -c or from a script it says command not found"),
    # 3.4.1 Positional Parameters
    ("When a positional parameter consisting of more than a single digit is expanded, it must",
     "be enclosed in braces.",
     "How is the tenth or any later argument of a script referred to?",
     "echo $10 in my script prints the first argument with a 0 stuck to it instead of the tenth one"),
    # 3.5.3 Shell Parameter Expansion
    ("Note that a negative offset\nmust be separated", "with the \u2018:-\u2019 expansion.",
     "How should a substring counted from the end of a variable's value be written?",
     "${name:-3} is supposed to give me the last three characters but it just prints the whole string"),
    # 3.5.8 Filename Expansion
    ("When a pattern is used for filename expansion, the character \u2018.\u2019 at the start",
     "unless the shell option dotglob\nis set.",
     "Do wildcard patterns match file names that begin with a dot?",
     "ran rm -r * to empty a folder and the hidden config files were all still there"),
    # 3.6 Redirections
    ("directs only the standard output to file dirlist, because", "was redirected to dirlist.",
     "Why does the position of 2>&1 relative to a file redirection change where errors are written?",
     "cmd 2>&1 > out.log still prints the errors on my terminal; only the normal output lands in the log"),
    # 3.6.6 Here Documents
    ("If the redirection operator is \u2018<<-\u2019, then all leading tab characters",
     "and the line containing delimiter.",
     "How can the lines of a here-document be indented inside a script?",
     "indented my heredoc inside an if block and now bash complains it can't find the end marker"),
    # 3.7.6 Signals
    ("To prevent the shell from sending the SIGHUP signal", "with the disown builtin",
     "How is one background job kept from receiving the hangup signal when the shell exits?",
     "I started a long copy with & over ssh, closed my laptop, and the copy was dead when I logged back in"),
    # 4.1 Bourne Shell Builtins (.)
    ("If filename does not contain a slash, the PATH variable is used to find",
     "but filename does not need to be executable.",
     "How does the dot builtin locate a file named without a directory, and must that file have execute permission?",
     "I sourced settings.sh without ./ and it loaded some other copy of the file from one of my bin folders"),
    # 4.2 Bash Builtin Commands (read)
    ("If there are more\nwords than names,", "are\nassigned to the last name.",
     "When a line holds more fields than the variables given to read, where do the extra fields go?",
     "read first second <<< 'a b c d' and second ends up holding 'b c d' not just 'b'"),
    # 4.3.1 The Set Builtin (-e)
    ("The shell does not exit if the command that fails is part of the\ncommand list",
     "part of the test in an if statement",
     "In which situations does a failing command not stop a script running with errexit?",
     "turned on set -e but the script carries on after a command in my if condition fails"),
    # 4.3.2 The Shopt Builtin (globstar)
    ("If set, the pattern \u2018**\u2019 used in a filename expansion context will",
     "zero or more directories and subdirectories.",
     "Which option lets a double asterisk pattern search through nested folders?",
     "ls **/*.log only finds logs one folder deep, nothing in the deeper subfolders"),
    # 5.2 Bash Variables (HISTCONTROL)
    ("If the list of values includes \u2018ignorespace\u2019, lines which begin with",
     "are not saved in the history list.",
     "How can particular commands be kept out of the command history as they are typed?",
     "I have to type an API token on the command line sometimes, how do I stop it from landing in my history"),
    # 5.2 Bash Variables (PIPESTATUS)
    ("containing a list of\nexit status values from the processes", "foreground\npipeline",
     "Which variable records the exit code of every stage of the most recent pipeline?",
     "curl ... | tee file always returns 0 even when curl fails; how do I get curl's own code"),
    # 5.2 Bash Variables (TMOUT)
    ("Bash terminates after\nwaiting for that number of seconds", "does not arrive.",
     "What does an interactive shell do when a timeout variable is set and no command is entered?",
     "my terminal on the server just closes by itself after I leave it alone for a while"),
    # 6.2 Bash Startup Files
    ("After reading that file, it looks for ~/.bash_profile", "exists\nand is readable.",
     "Which personal startup files does a login shell read, and in what order?",
     "I created a .bash_profile and since then everything I had put in .profile is ignored when I log in"),
    # 6.5 Shell Arithmetic
    ("Constants with a leading 0 are interpreted as octal numbers.", "interpreted as octal numbers.",
     "How are integer constants that start with zero treated in arithmetic?",
     "$(( 08 + 1 )) fails with 'value too great for base' but 07 works"),
    # 6.6 Aliases
    ("Aliases are not expanded when the shell is not interactive, unless", "set using shopt",
     "Are aliases available in scripts?",
     "my alias ll works in the terminal, but in a script it says ll: command not found"),
    # 6.7 Arrays
    ("negative indices count back from the end of the array, and an index of -1 references the last",
     "references the last\nelement.",
     "How can an element be addressed relative to the end of an indexed array?",
     "how do I grab the final item of my list without computing its length first"),
    # 6.10 The Restricted Shell
    ("When a command that is found to be a shell script is executed", "spawned to execute the script.",
     "Do the limits of a restricted shell still apply while it runs a shell script?",
     "we gave a user rbash, yet a shell script they get to run can cd and redirect output freely"),
    # 7.1 Job Control Basics
    ("If a second attempt to exit is made\nwithout an intervening command,", "jobs are terminated.",
     "What happens when the user exits a second time after being warned about stopped jobs?",
     "typed exit and got 'There are stopped jobs.' if I just type exit again, is my suspended vim lost?"),
    # 8.5 Readline vi Mode
    ("When you enter a line in vi mode, you are already placed in", "had typed an \u2018i\u2019.",
     "In which mode does the vi-style line editor begin each new input line?",
     "after set -o vi, pressing h or l types the letters instead of moving the cursor like in vim"),
    # 8.6 Programmable Completion
    ("It must put the\npossible completions in the COMPREPLY array variable", "one per array element.",
     "Where does a function registered with complete -F hand back the candidates it generates?",
     "my tab completion function runs (I can see the debug echo) but pressing tab offers nothing"),
    # 9.1 Bash History Facilities
    ("If HISTFILE is unset, or if the history file is", "the history is not saved.",
     "Under what conditions is the command history not written to a file when the shell exits?",
     "none of my commands survive between sessions, history is empty every time I open a new terminal"),
    # 9.3 History Expansion
    ("The -p option to the history builtin command may be used to see what a",
     "history expansion will do before using it.",
     "How can the result of a history substitution be inspected without running it?",
     "I'd like to check what !-3:s/foo/bar/ will turn into before it actually executes"),
    # 10.1 Basic Installation
    ("To also remove the files that configure created", "type \u2018make distclean\u2019.",
     "What cleans a Bash source tree back to its state before it was configured?",
     "built bash for x86, now need to build the same tree for arm and the old settings keep getting reused"),
    # 10.4 Installation Names
    ("If you want to see the files bash will install and where it will install them without",
     "specify the variable DESTDIR as an argument to make.",
     "How can the installation be staged under a separate root directory?",
     "packaging bash for our distro, I need make install to drop files into a build folder rather than /usr/local"),
    # Appendix A Reporting Bugs
    ("Once you have determined that a bug actually exists, use the bashbug command",
     "submit a bug report.",
     "Which tool is meant for sending a Bash bug report?",
     "I think I found a crash in bash itself, where do I send it and is there a tool for that?"),
    # Appendix B, B.1 Implementation Differences From The SVR4.2 Shell
    ("Bash does not fork a subshell when redirecting into or out of a shell control structure",
     "such as an if or while statement.",
     "Does feeding a loop from a file with a redirection make Bash run the loop in a subshell, as the old System V shell did?",
     "porting old sh scripts: we always assumed while ... done < file runs in a separate process; is that still so in bash?"),
]


def canonical():
    p = Path(HERE, "docs", DOC)
    return extractor_for(p).extract(p, DOC).text


def main():
    text = canonical()
    rows = []
    for n, (start, end, course, ticket) in enumerate(GT, 1):
        assert text.count(start) == 1, (n, "start marker not unique", text.count(start), start)
        a = text.index(start)
        assert text.find(end, a) >= 0, (n, "end marker not found", end)
        b = text.index(end, a) + len(end)
        needle = text[a:b]
        rows.append({"id": f"q{n:02d}", "doc": DOC, "needle": needle,
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        print(r["id"], len(r["needle"]), f"{text.index(r['needle']) / len(text):.3f}", repr(r["needle"])[:150])


if __name__ == "__main__":
    main()
