#!/usr/bin/env python3
"""Check the Vim-user-manual corpus and its needle-style ground truth (gtcheck.py says what
is checked): the user manual's chapters usr_NN.txt of Vim's help, kept as shipped, with
their chapter titles, `*NN.N*` sections and capitals sub-headings.

Usage: python3 check_gt.py [--no-rebuild]
  If the Vim runtime files are installed (/usr/share/vim/vim90/doc), every document is
  copied afresh with build/copy.py into a temporary folder and compared byte-for-byte,
  and the installed vim-runtime version is compared with MANIFEST's "commit".
  Exit status 0 = all checks pass, 1 = at least one failure.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gtcheck  # noqa: E402

SECTION_LINE = re.compile(r"^\*\d\d\.\d+\*")
# a sub-heading of Vim's help: a line of capitals ("GETTING OUT OF TROUBLE",
# "WHAT IS THE MODE?", "NAMED MARKS  *bookmark*"), optionally followed by tags
SUBHEADING_LINE = re.compile(r"^[A-Z][A-Z0-9 ,;:'\"?!&()/.-]*[A-Z?)]\s*(\*[^*\s]+\*\s*)*$")

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"foldmethod", r"foldlevel", r"\bzR\b", r"\bzf"],
    "u02": [r":earlier\b", r"undolist", r"undo.?tree", r"\bbranch"],
    "u03": [r"makeprg", r"errorformat", r"compiler plugin"],
    "u04": [r":center", r":right\b", r"justif", r"\bcenter"],
    "u05": [r"linebreak", r"breakat", r"showbreak"],
    "u06": [r"\bwindo\b", r"\bbufdo\b", r"\bargdo\b", r"\btabdo\b"],
    "u07": [r"\\zs", r"lookbehind", r"\\@<="],
    "u08": [r"guifont", r"font size"],
    "u09": [r"vim9", r"\bdef\b"],
    "u10": [r"syn(tax)? keyword", r"syn(tax)? region", r"syn(tax)? match"],
    "u11": [r":term\b", r":terminal", r"terminal-normal", r"CTRL-W N\b"],
    "u12": [r"--enable", r"python", r"make install"],
    "u13": [r"expandtab", r"softtabstop", r"retab"],
    "u14": [r"<Plug>", r"<SID>"],
    "u15": [r"popup_", r"popup window"],
    "u16": [r"breakadd", r":debug\b", r"breakpoint"],
    "u17": [r"vimgrep"],
    "u18": [r"gg=G", r"equalprg", r"cinoptions"],
    "u19": [r"--remote", r"servername", r"clientserver"],
    "u20": [r":sign\b", r"signcolumn", r"sign column"],
    "u21": [r"spelllang", r"\bzg\b", r"spell ?check", r"spellfile"],
    "u22": [r"\brice\b", r"fridge", r"refrigerat"],
    "u23": [r"cast iron", r"skillet"],
    "u24": [r"radiator", r"\bbleed"],
    "u25": [r"puppy", r"puppies", r"vaccin"],
    "u26": [r"unclog", r"\bdrain\b", r"\bsink\b"],
    "u27": [r"\brose bush", r"\bprun(e|ing)\b"],
    "u28": [r"\bfog", r"face mask", r"glasses"],
    "u29": [r"\bskat", r"\bice\b"],
    "u30": [r"\bbasil\b", r"\bwilt"],
}


class VimManual(gtcheck.VimHelpCorpus):
    CHAPTERS = [f"usr_{n:02d}.txt" for n in (*range(1, 13), 20, 21, 22, 23, 24)]
    FILE_NAME = r"usr_\d\d\.txt"
    SECTIONS = "sections (*NN.N* title lines)"
    TITLE_IS = "chapter title"

    def title(self, f):
        """The centered line under "VIM USER MANUAL - by Bram Moolenaar" (line 5)."""
        lines = self.docs[f].split("\n")
        if len(lines) < 5 or "VIM USER MANUAL" not in lines[2]:
            return None
        return lines[4].strip()

    def sections(self, f):
        """Section title lines: lines starting with a `*NN.N*` tag (`*05.1*\tThe vimrc file`)."""
        return sum(1 for line in self.docs[f].split("\n") if SECTION_LINE.match(line))

    def is_heading(self, f, ln, line):
        """The chapter header (first 5 lines), the `====` separators, `*NN.N*` section
        titles and all-capitals sub-headings."""
        return (ln < 5 or bool(re.fullmatch(r"=+", line.strip())) or bool(SECTION_LINE.match(line))
                or bool(SUBHEADING_LINE.match(line)))

    def doc_label(self, f):
        return f[4:6]


if __name__ == "__main__":
    VimManual(__file__, UNANSWERABLE_TERMS).run()
