"""Which documents a search may rank: a user's paths and patterns, matched against the
index's document paths (POSIX, relative to the indexed folder, as ``status`` lists them).

Each entry of a filter is one of::

    handbook/leave.md        that document (an entry equal to a document's path names it,
                             glob characters and all: ``notes[1].md``)
    handbook/                a folder: every document under it, at any depth
    handbook/**              the same
    contracts/2024-*.pdf     ``*`` is any run of characters within one path segment
    **/*.pdf                 ``**`` as a whole segment is any number of segments, none too
    ?, [abc], [!abc], [a-z]  one character (never ``/``), as fnmatch has them

``*`` does not cross ``/``, as in a shell, git's pathspecs and ``.gitignore``: "only
the top folder's PDFs" (``*.pdf``) can be said at all, and ``**`` says "any depth".
Matching is case-sensitive, as the paths are stored. A leading ``./`` is dropped. The
trade-off of "exact path first": ``notes[1].md`` never also means ``notes1.md`` when a
document of that very name exists; without one, it is the glob.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

GLOB_CHARS = frozenset("*?[")


def is_glob(pattern: str) -> bool:
    return bool(GLOB_CHARS & set(pattern)) or pattern.endswith("/")


def normal(pattern: str) -> str:
    """``pattern`` without a leading ``./`` (what a shell's completion puts there)."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern


@lru_cache(maxsize=256)
def pattern_regex(pattern: str) -> re.Pattern[str]:
    """The regular expression a glob ``pattern`` stands for (module docstring), matched
    against a whole document path.

    >>> bool(pattern_regex("handbook/**").fullmatch("handbook/a/b.md"))
    True
    >>> bool(pattern_regex("*.md").fullmatch("handbook/b.md"))
    False
    """
    if pattern.endswith("/"):
        pattern += "**"
    segments = pattern.split("/")
    out: list[str] = []
    for n, seg in enumerate(segments):
        last = n == len(segments) - 1
        if seg == "**":
            # any number of whole segments: "a/**/b" matches "a/b", "**/x" matches "x",
            # "a/**" matches every path below a/ (not a/ itself: no document is a folder)
            out.append(".+" if last else "(?:[^/]+/)*")
            continue
        out.append(_segment(seg) + ("" if last else "/"))
    return re.compile("".join(out), re.DOTALL)


def _segment(seg: str) -> str:
    """One path segment's glob as a regular expression; nothing in it matches ``/``."""
    out: list[str] = []
    i = 0
    while i < len(seg):
        c = seg[i]
        i += 1
        if c == "*":
            while i < len(seg) and seg[i] == "*":  # "a**b" within a segment is "a*b"
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i
            if j < len(seg) and seg[j] in "!^":
                j += 1
            if j < len(seg) and seg[j] == "]":  # "[]]": a ] first is a member
                j += 1
            while j < len(seg) and seg[j] != "]":
                j += 1
            if j >= len(seg):  # no closing ]: a literal [
                out.append(re.escape(c))
                continue
            body = seg[i:j]
            i = j + 1
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            # escaped as fnmatch does: a backslash, ], [ and ^ are members, and "&&",
            # "~~", "||" (set operations a later re may read) are two characters each
            body = re.sub(r"([\\\][^&~|])", r"\\\1", body)
            out.append(f"[^/{body}]" if negate else f"(?!/)[{body}]")
        else:
            out.append(re.escape(c))
    return "".join(out)


def match_documents(patterns: Sequence[str], paths: Sequence[str]
                    ) -> tuple[list[str], list[str]]:
    """(the ``paths`` some pattern matches, in their order; the patterns that match
    none of them, in theirs). An entry equal to a path names that path only."""
    known = set(paths)
    exact: set[str] = set()
    globs: list[re.Pattern[str]] = []
    unmatched: list[str] = []
    for raw in dict.fromkeys(patterns):
        p = normal(raw)
        if p in known:
            exact.add(p)
        elif not is_glob(p):
            unmatched.append(raw)
        else:
            rx = pattern_regex(p)
            if not any(rx.fullmatch(path) for path in paths):
                unmatched.append(raw)
            globs.append(rx)
    matched = [p for p in paths if p in exact or any(rx.fullmatch(p) for rx in globs)]
    return matched, unmatched


def folder_hint(pattern: str, paths: Sequence[str]) -> str:
    """A hint for an entry that matched nothing but names a folder documents are in
    (``handbook`` for ``handbook/leave.md``): how to say "that folder's documents"."""
    p = normal(pattern).rstrip("/")
    if p and not is_glob(p) and any(path.startswith(p + "/") for path in paths):
        return f" ({p!r} is a folder: '{p}/' or '{p}/**' names its documents)"
    return ""
