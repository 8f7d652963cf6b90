#!/usr/bin/env python3
"""Check the Vim-reference-manual corpus and its needle-style ground truth (gtcheck.py says
what is checked): ten reference chapters of Vim's help (names as shipped: motion.txt, ...),
with the reference manual's header, `====` sections, and capitals and `~`-terminated
sub-headings.

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

RULE = "=" * 78              # the line above each section title
# a sub-heading of Vim's help: a line of capitals ("CLOSING A TAB PAGE:",
# "FINDING THE DIFFERENCES  *diff-diffexpr*"), optionally followed by tags
SUBHEADING_LINE = re.compile(r"^[A-Z][A-Z0-9 ,;:'\"?!&()/.-]*[A-Z?):]\s*(\*[^*\s]+\*\s*)*$")
# a sub-heading ending in " ~" ("Updating the swapfile ~", "OPENING AND CLOSING FOLDS ~")
TILDE_HEADING = re.compile(r"^\S.*\s~$")

# Key terms that must NOT occur anywhere in the corpus for each unanswerable query
# (regexes, case-insensitive unless wrapped in (?-i:...)).
UNANSWERABLE_TERMS = {
    "u01": [r"spelllang", r"\bzg\b", r"spell ?check"],
    "u02": [r"makeprg", r"errorformat", r"compiler"],
    "u03": [r"\\zs", r"lookbehind", r"\\@<="],
    "u04": [r"<Plug>", r"mapleader"],
    "u05": [r"retab", r"softtabstop", r"smarttab"],
    "u06": [r"omnifunc", r"omni", r"CTRL-X CTRL-"],
    "u07": [r"syn(tax)? keyword", r"syn(tax)? region"],
    "u08": [r"--remote", r"servername", r"clientserver"],
    "u09": [r"signcolumn", r"sign column", r"sign_place"],
    "u10": [r"formatoptions", r"autoformat", r"comment leader"],
    "u11": [r"guifont", r"font size"],
    "u12": [r":amenu", r"menu item", r"menu bar"],
    "u13": [r"cindent", r"cinoptions", r"smartindent"],
    "u14": [r"timeoutlen", r"ttimeout"],
    "u15": [r"conceal"],
    "u16": [r":py3", r"python3", r"py3eval"],
    "u17": [r"packadd", r"packpath", r"pack/"],
    "u18": [r"nrformats", r"octal", r"increment"],
    "u19": [r"hlsearch", r"nohl"],
    "u20": [r"startuptime", r"startup time"],
    "u21": [r"listchars", r"trailing spaces? (are|is) shown"],
    "u22": [r"compost", r"manure"],
    "u23": [r"goldfish", r"aquarium", r"\bfish"],
    "u24": [r"piano", r"fingering", r"\bscale\b"],
    "u25": [r"\bmoths?\b", r"wardrobe", r"sweater"],
    "u26": [r"pizza", r"\boven\b", r"\bbak(e|ing)\b"],
    "u27": [r"yoga", r"\bposes?\b", r"hamstring"],
    "u28": [r"\bcar\b", r"dead battery", r"jump.?start", r"jumper cable"],
    "u29": [r"avocado", r"\bripe"],
    "u30": [r"interview", r"thank.you"],
}


def section_lines(text):
    """Indexes of section title lines: the non-blank lines right under a line of 78 `=`,
    except the modeline (` vim:tw=78:...`, under the last rule of fold.txt)."""
    lines = text.split("\n")
    return {i for i in range(1, len(lines))
            if lines[i - 1] == RULE and lines[i].strip() and not re.match(r"\s*vim:", lines[i])}


class VimRef(gtcheck.VimHelpCorpus):
    CHAPTERS = ["cmdline.txt", "diff.txt", "editing.txt", "fold.txt", "motion.txt",
                "recover.txt", "tabpage.txt", "tagsrch.txt", "undo.txt", "windows.txt"]
    FILE_NAME = r"[a-z]+\.txt"
    SECTIONS = "sections (title lines under a 78-= rule)"
    TITLE_IS = "chapter title"

    def title(self, f):
        """Line 7 of the chapter, the line under the "VIM REFERENCE MANUAL    by Bram
        Moolenaar" banner (line 4) after blank lines, with its *tags* removed; the file
        name without .txt when nothing is left (the line holds only tags)."""
        lines = self.docs[f].split("\n")
        if len(lines) < 7 or "VIM REFERENCE MANUAL" not in lines[3] or lines[4].strip() or lines[5].strip():
            return None
        return re.sub(r"\*[^*\s]+\*", "", lines[6]).strip() or f[:-4]

    def sections(self, f):
        return len(section_lines(self.docs[f]))

    def is_heading(self, f, ln, line):
        """The chapter header and banner and the title line under it (first 7 lines), the
        `====`/`----` rule lines, section title lines, capitals sub-headings and
        `~`-terminated sub-headings."""
        return (ln < 7 or bool(re.fullmatch(r"=+|-+", line.strip())) or ln in section_lines(self.docs[f])
                or bool(SUBHEADING_LINE.match(line)) or bool(TILDE_HEADING.match(line)))

    def doc_label(self, f):
        return f[:-4]


if __name__ == "__main__":
    VimRef(__file__, UNANSWERABLE_TERMS).run()
