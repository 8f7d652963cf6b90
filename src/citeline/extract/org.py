"""Org mode files (Emacs): the file as written, its sections read from its headlines.

Canonical text = the file decoded as a text file is (:func:`citeline.extract.text.decode`),
line endings ``\\n``: every ``#char=`` offset is an offset in the ``.org`` file itself.

Sections (``headings="outline"``): a headline is a line of stars and a space at the
line's start (``* Tides``, ``** Spring tides``), its level the number of stars; its title
is read as Org shows it in an outline, less a TODO keyword (``TODO``, ``DONE``, or those a
``#+TODO:``/``#+SEQ_TODO:``/``#+TYP_TODO:`` line declares), a priority cookie (``[#A]``),
a statistics cookie (``[2/5]``, ``[40%]``) and its tags (``:harbour:gauge:``). A line of
stars inside a block (``#+BEGIN_SRC`` ... ``#+END_SRC``, any ``#+BEGIN_x``) is the
block's, not a headline. The title is ``#+TITLE:``'s, else the file's name.
"""

from __future__ import annotations

import re
from pathlib import Path

from citeline.chunk import text_lines
from citeline.extract import register
from citeline.extract.text import outlined_text
from citeline.types import Document, Heading

_HEADLINE = re.compile(r"(?P<stars>\*+)[ \t]+(?P<rest>.*?)[ \t]*")
_TAGS = re.compile(r"[ \t]+:(?:[\w@#%]+:)+$")
_PRIORITY = re.compile(r"^\[#[A-Za-z0-9]\][ \t]*")
_COOKIE = re.compile(r"[ \t]*\[\d*(?:/\d*|%)\]")
_KEYWORD = re.compile(r"#\+(?P<key>[A-Za-z_]+):[ \t]*(?P<value>.*?)[ \t]*", re.I)
_BEGIN = re.compile(r"[ \t]*#\+begin_(?P<kind>\S+)", re.I)
_TODO_KEYS = ("TODO", "SEQ_TODO", "TYP_TODO")
DEFAULT_TODO = ("TODO", "DONE")


def headline_title(rest: str, todo: frozenset[str]) -> str:
    """A headline's title, less its keyword, priority, cookies and tags.

    >>> headline_title("TODO [#A] Check the gauge [1/3] :harbour:gauge:", frozenset({"TODO"}))
    'Check the gauge'
    """
    rest = _TAGS.sub("", rest)
    first, _, after = rest.partition(" ")
    if first in todo:
        rest = after.lstrip()
    rest = _COOKIE.sub("", _PRIORITY.sub("", rest))
    return " ".join(rest.split())


def org_outline(text: str, fallback: str) -> tuple[str, tuple[Heading, ...]]:
    """The file's title and its headlines (see the module docstring).

    >>> t, hs = org_outline("#+TITLE: Harbour\\n* TODO Tides :sea:\\n#+BEGIN_SRC sh\\n"
    ...                     "* not a headline\\n#+END_SRC\\n** Spring\\n", "harbour")
    >>> t, [(h.level, h.title) for h in hs]
    ('Harbour', [(1, 'Tides'), (2, 'Spring')])
    """
    lines = text_lines(text)
    todo = set(DEFAULT_TODO)
    title = ""
    for _, _, line in lines:
        if (m := _KEYWORD.fullmatch(line)) is None:
            continue
        key = m.group("key").upper()
        if key == "TITLE" and not title:
            title = m.group("value")
        elif key in _TODO_KEYS:  # "TODO NEXT | DONE CANCELLED(c)": keywords, less their keys
            todo.update(re.sub(r"\(.*?\)", "", w) for w in m.group("value").split() if w != "|")
    heads: list[Heading] = []
    block: str | None = None
    for start, end, line in lines:
        if block is not None:
            if re.fullmatch(rf"[ \t]*#\+end_{re.escape(block)}[ \t]*", line, re.I):
                block = None
            continue
        if (m := _BEGIN.match(line)) is not None:
            block = m.group("kind")
            continue
        if (m := _HEADLINE.fullmatch(line)) is not None:
            name = headline_title(m.group("rest"), frozenset(todo))
            if name:
                heads.append(Heading(start, len(m.group("stars")), name, end))
    return title or fallback, tuple(heads)


class OrgExtractor:
    name = "org"
    version = "1"
    suffixes = (".org",)

    def extract(self, path: Path, rel: str) -> Document:
        return outlined_text(path, rel, self.name, self.version, "text/org", org_outline)


register(OrgExtractor())
