"""LaTeX sources: the file as written, its sections read from its sectioning commands.

Canonical text = the ``.tex`` file decoded as a text file is
(:func:`citeline.extract.text.decode`): every ``#char=`` offset is an offset in the file a
user edits, and a citation quotes its markup as written (``\\emph{...}``, ``$x$``).

Sections (``headings="outline"``): ``\\part``, ``\\chapter``, ``\\section``,
``\\subsection``, ``\\subsubsection``, ``\\paragraph`` and ``\\subparagraph`` (starred or
not, with a short title in brackets or not), their levels in that order among those the
file uses (an article's ``\\section`` is level 1, a book's ``\\chapter``), each titled by its
argument read as text (``The \\texttt{-o} option`` is "The -o option"). None in a comment
(after an unescaped ``%``), in ``\\iffalse ... \\fi``, or in an environment whose body is
not LaTeX (``verbatim``, ``lstlisting``, ``minted``, ``comment``, ...). The title is
``\\title{...}``'s, read as text, else the file's name.
"""

from __future__ import annotations

import re
from pathlib import Path

from citeline.chunk import text_lines
from citeline.extract import register
from citeline.extract.text import outlined_text
from citeline.types import Document, Heading

SECTIONING = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph",
              "subparagraph")
_COMMAND = re.compile(r"\\(?P<cmd>" + "|".join(SECTIONING) + r"|title)\*?\s*(?:\[[^\]]*\]\s*)?\{")
# environments whose body is not LaTeX: no section is read inside them
VERBATIM = frozenset("verbatim verbatim* Verbatim BVerbatim lstlisting minted comment "
                     "alltt filecontents filecontents*".split())
_BEGIN = re.compile(r"\\begin\{(?P<env>[^}]+)\}")
_COMMENT = re.compile(r"(?<!\\)%.*$")
# a command's name and its optional argument, read out of a title: "\texttt{-o}" -> "-o"
_MARKUP = re.compile(r"\\(?:thanks|footnote|label|index)\{[^{}]*\}|\\[A-Za-z]+\*?(?:\[[^\]]*\])?")
_SPECIAL = {"~": " ", "\\\\": " ", "\\&": "&", "\\%": "%", "\\$": "$", "\\#": "#", "\\_": "_",
            "\\{": "{", "\\}": "}", "``": "\u201c", "''": "\u201d", "---": "\u2014",
            "--": "\u2013"}


def braced(text: str, at: int) -> tuple[str, int] | None:
    """The argument whose ``{`` is at ``at``, its braces balanced, and where it ends; None
    when it is not closed.

    >>> braced(r"{The \\texttt{-o} option} more", 0)
    ('The \\\\texttt{-o} option', 24)
    """
    depth = 0
    i = at
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[at + 1:i], i + 1
        i += 1
    return None


def as_text(markup: str) -> str:
    """A title's LaTeX read as the words it sets.

    >>> as_text(r"The \\texttt{-o} option\\thanks{ok}~and `quotes'")
    "The -o option and `quotes'"
    """
    for k, v in _SPECIAL.items():
        markup = markup.replace(k, v)
    markup = _MARKUP.sub("", markup)
    return " ".join(markup.replace("{", "").replace("}", "").split())


def latex_outline(text: str, fallback: str) -> tuple[str, tuple[Heading, ...]]:
    """The document's title and its sections (see the module docstring).

    >>> t, hs = latex_outline("\\\\title{Tides}\\n\\\\section{Ebb}\\n% \\\\section{Old}\\n"
    ...                       "\\\\begin{verbatim}\\n\\\\section{x}\\n\\\\end{verbatim}\\n"
    ...                       "\\\\subsection*{Neap \\\\emph{tides}}\\n", "tides")
    >>> t, [(h.level, h.title) for h in hs]
    ('Tides', [(1, 'Ebb'), (2, 'Neap tides')])
    """
    found: list[tuple[int, int, str, str]] = []  # (start, end, command, title)
    title = ""
    env: str | None = None  # the verbatim environment we are in
    skipping = False  # inside \iffalse ... \fi
    for start, end, line in text_lines(text):
        if env is not None:
            if f"\\end{{{env}}}" in line:
                env = None
            continue
        code = _COMMENT.sub("", line)
        if skipping:
            skipping = not re.search(r"\\fi\b", code)
            continue
        if re.match(r"\s*\\iffalse\b", code):
            skipping = True
            continue
        if (m := _BEGIN.search(code)) is not None and m.group("env") in VERBATIM:
            env = m.group("env")
            continue
        for m in _COMMAND.finditer(code):
            arg = braced(text, start + m.end() - 1)
            if arg is None:
                continue
            words = as_text(arg[0])
            if m.group("cmd") == "title":
                title = title or words
            elif words:
                found.append((start + m.start(), max(end, arg[1]), m.group("cmd"), words))
    used = sorted({cmd for _, _, cmd, _ in found}, key=SECTIONING.index)
    heads = tuple(Heading(s, used.index(cmd) + 1, words, e) for s, e, cmd, words in found)
    return title or fallback, heads


class LatexExtractor:
    name = "latex"
    version = "1"
    suffixes = (".tex", ".latex", ".ltx")

    def extract(self, path: Path, rel: str) -> Document:
        return outlined_text(path, rel, self.name, self.version, "text/x-tex", latex_outline)


register(LatexExtractor())
