"""Checking what a generator wrote: [n] markers, links, uncited sentences.

The model may only write ``[n]``. Everything that points somewhere (document,
locator URL, quote) is attached by citeline afterwards from what it retrieved,
so this module's job is to make sure nothing else survives:

- every citation form a model produces is recognised — ``[1]``, ``[1, 2]``,
  ``[1-3]``, ``[1][2]``, ``[Source 2]``, fullwidth ``［１］`` / ``【1】``, extra
  spaces — and rewritten canonically (``[1, 2]``, ranges expanded);
- numbers that match no source are removed and reported (``invalid_markers``);
- URLs, Markdown links/images, autolinks and HTML anchors are stripped and
  reported (``stripped_links``); a link's text is kept, its target dropped;
- answer sentences without any valid marker are reported (``uncited_sentences``).

Worked example (2 sources)::

    raw:    "Boil it [1][7]. See [the manual](http://x.example) or http://y.example"
    text:   "Boil it [1]. See the manual or"
    invalid_markers: ["[7]"]
    stripped_links:  ["http://x.example", "http://y.example"]
    uncited_sentences: ["See the manual or"]
    cited: {1}

Streaming uses the same code: :func:`segments` cuts text only at whitespace
outside any open ``[`` ``(`` ``<``, so a link or marker is never split, and
``sanitize(full)`` is by construction the concatenation of the sanitized
segments that :class:`StreamSanitizer` emitted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Digits: ``\d`` also matches fullwidth digits, and int() reads them. Any number a model
# writes in a marker is one (``[12345]`` is removed and reported like ``[7]``).
_NUM = r"\d{1,18}"
_SEP = r"\s*(?:[,，、;；]|and)\s*"
_DASH = r"\s*[-‐‑‒–—~〜]\s*"
_ITEM = rf"{_NUM}(?:{_DASH}{_NUM})?"
_OPEN = r"[\[［【〔]"
_CLOSE = r"[\]］】〕]"
_PREFIX = r"(?:(?:sources?|refs?|references?|citations?)\s*(?:no\.?\s*)?#?\s*)?"
_BODY = rf"{_OPEN}\s*{_PREFIX}(?P<body>{_ITEM}(?:{_SEP}{_ITEM})*)\s*{_CLOSE}"
# In a model's answer "fast[1]" is a citation, so any character may precede one.
MARKER = re.compile(_BODY, re.I)
# In quoted document text ``v[1]`` is code, not a citation: an identifier may not precede.
QUOTED_MARKER = re.compile(rf"(?<![\w)\]]){_BODY}", re.I)
_ITEM_RE = re.compile(rf"(?P<a>{_NUM})(?:{_DASH}(?P<b>{_NUM}))?")
# A range wider than this is not a citation a model meant; it is reported whole.
MAX_RANGE = 20

_MD_LINK = re.compile(r"(?P<bang>!?)\[(?P<label>[^\]\n]{0,300})\]\((?P<target>[^)\s]*)(?:\s+\"[^\"]*\")?\)")
_HTML_A = re.compile(r"<a\b(?:[^>]*?\bhref\s*=\s*[\"']?(?P<href>[^\"'\s>]*))?[^>]*>", re.I)
_HTML_TAG = re.compile(r"</a\s*>|<img\b[^>]*>", re.I)
_AUTOLINK = re.compile(r"<(?P<url>[a-z][a-z0-9+.\-]*:[^>\s]+)>", re.I)
_URL = re.compile(
    r"(?:\b[a-z][a-z0-9+.\-]*://|\bwww\.|\bmailto:)[^\s<>\"'\])]*[^\s<>\"'\]).,;:!?]", re.I
)
# A bare domain the model presents as a place to go ("evil.example/login").
_DOMAIN_PATH = re.compile(r"\b(?:[a-z0-9-]+\.)+[a-z]{2,}/[^\s<>\"')\]]*", re.I)
_REF_DEF = re.compile(r"^\s*\[[^\]\n]+\]:\s*\S+.*$", re.M)  # [1]: http://... reference lines

# An open bracket is closed within this many characters or is treated as text:
# keeps one stray "[" from holding back a whole stream.
MAX_OPEN = 400


@dataclass
class Checked:
    """A sanitized answer and what was removed from it."""

    text: str
    cited: set[int] = field(default_factory=set)
    invalid_markers: list[str] = field(default_factory=list)
    stripped_links: list[str] = field(default_factory=list)


def parse_marker(body: str, n_sources: int) -> tuple[list[int], list[str]]:
    """The source numbers in one marker's body, and the invalid parts as ``[k]`` strings.

    >>> parse_marker("1, 3-4", 4)
    ([1, 3, 4], [])
    >>> parse_marker("2-6", 4)
    ([2, 3, 4], ['[5]', '[6]'])
    """
    valid: list[int] = []
    invalid: list[str] = []
    for m in _ITEM_RE.finditer(body):
        a = int(m["a"])
        b = int(m["b"]) if m["b"] else a
        if b < a or b - a >= MAX_RANGE:
            invalid.append(f"[{a}-{b}]")
            continue
        for k in range(a, b + 1):
            if 1 <= k <= n_sources:
                if k not in valid:
                    valid.append(k)
            else:
                invalid.append(f"[{k}]")
    return valid, invalid


def segments(text: str) -> list[str]:
    """Cut ``text`` after whitespace that lies outside any open ``[`` ``(`` ``<``.

    The pieces concatenate back to ``text``; a cut never falls inside a marker,
    a Markdown link or an HTML tag, so each piece can be sanitized alone.
    """
    out: list[str] = []
    start = 0
    depth = 0
    opened = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in "[(<［【〔":
            if depth == 0:
                opened = i
            depth += 1
        elif ch in "])>］】〕" and depth:
            depth -= 1
        elif depth and i - opened > MAX_OPEN:
            depth = 0
        if ch.isspace() and depth == 0:
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n:  # whitespace at the very end may still be followed by more
                out.append(text[start:j])
                start = j
            i = j
            continue
        i += 1
    if start < n:
        out.append(text[start:])
    return out


def _sanitize_piece(piece: str, n_sources: int, checked: Checked, quoted: bool = False) -> str:
    def md_link(m: re.Match[str]) -> str:
        label = m["label"]
        checked.stripped_links.append(m["target"] or m.group(0))
        if MARKER.fullmatch(f"[{label}]"):
            return f"[{label}]"  # a citation dressed as a link: keep the citation
        return "" if m["bang"] and not label.strip() else label

    def html_a(m: re.Match[str]) -> str:
        checked.stripped_links.append(m["href"] or m.group(0))
        return ""

    def autolink(m: re.Match[str]) -> str:
        checked.stripped_links.append(m["url"])
        return ""

    def url(m: re.Match[str]) -> str:
        checked.stripped_links.append(m.group(0))
        return ""

    def marker(m: re.Match[str]) -> str:
        valid, invalid = parse_marker(m["body"], n_sources)
        checked.invalid_markers.extend(invalid)
        checked.cited.update(valid)
        return "[" + ", ".join(map(str, valid)) + "]" if valid else ""

    s = _REF_DEF.sub(lambda m: url(m) if _URL.search(m.group(0)) else m.group(0), piece)
    s = _MD_LINK.sub(md_link, s)
    s = _HTML_A.sub(html_a, s)
    s = _HTML_TAG.sub("", s)
    s = _AUTOLINK.sub(autolink, s)
    s = _URL.sub(url, s)
    s = _DOMAIN_PATH.sub(url, s)
    s = (QUOTED_MARKER if quoted else MARKER).sub(marker, s)
    return s


def _tidy(s: str) -> str:
    # Removing a marker or URL can leave "word  ." or "( )": close those gaps.
    s = re.sub(r"[ \t]+([.,;:!?])", r"\1", s)
    s = re.sub(r"\(\s*\)", "", s)
    return re.sub(r"[ \t]{2,}", " ", s)


def sanitize(text: str, n_sources: int, *, quoted: bool = False) -> Checked:
    """Strip links and invalid markers; canonicalise valid markers. See the module doc.

    ``quoted=True`` is for document text citeline quotes itself: there every
    marker-looking ``[n]`` is foreign (citeline adds its own afterwards), so all
    are removed, but only where no identifier precedes them (``v[1]`` is code).
    """
    s = StreamSanitizer(n_sources, quoted=quoted)
    s.feed(text)
    return s.finish()[1]


class StreamSanitizer:
    """Sanitize a token stream piece by piece; ``finish()`` gives the full :class:`Checked`.

    Emits only completed segments (see :func:`segments`), so a URL or marker
    that arrives over several tokens is never shown half-way. Whitespace after
    a segment is held back until the next one, so that removing ``[9]`` from
    ``"now [9]."`` gives ``"now."`` in the stream and in the final text alike.
    """

    def __init__(self, n_sources: int, *, quoted: bool = False) -> None:
        self.n_sources = 0 if quoted else n_sources
        self.quoted = quoted
        self.checked = Checked(text="")
        self._buf = ""
        self._pending_ws = ""
        self._out: list[str] = []

    def _emit(self, pieces: list[str]) -> str:
        shown: list[str] = []
        for piece in pieces:
            clean = _tidy(_sanitize_piece(piece, self.n_sources, self.checked, self.quoted))
            core = clean.rstrip()
            if not core.strip():
                continue  # the piece was a link or marker and nothing else
            core_l = core.lstrip() if not self._out and not shown else core
            lead = "" if (not self._out and not shown) or core_l[0] in ".,;:!?" else self._pending_ws
            shown.append(lead + core_l)
            self._pending_ws = clean[len(core) :] or " " * (piece != piece.rstrip())
        text = "".join(shown)
        if text:
            self._out.append(text)
        return text

    def feed(self, token: str) -> str:
        """Add streamed text; returns what can be shown now (possibly "")."""
        self._buf += token
        parts = segments(self._buf)
        if len(parts) <= 1:
            return ""
        done, self._buf = parts[:-1], parts[-1]
        return self._emit(done)

    def finish(self) -> tuple[str, Checked]:
        """The last text to show, and the whole checked answer."""
        last = self._emit([self._buf]) if self._buf else ""
        self._buf = ""
        self.checked.text = "".join(self._out).strip()
        return last.rstrip(), self.checked


_SENT_END = re.compile(r"(?<=[.!?。！？])[\"'”’)\]]*\s+|\n+")
_LEADING_MARKERS = re.compile(rf"^(?:\s*{MARKER.pattern})+", re.I)


def answer_sentences(text: str) -> list[str]:
    """Split an answer into sentences; markers that follow a full stop stay with it.

    >>> answer_sentences("It boils. [1] It is safe [2].\\nDone")
    ['It boils. [1]', 'It is safe [2].', 'Done']
    """
    raw = [s for s in _SENT_END.split(text) if s is not None]
    out: list[str] = []
    for s in raw:
        s = s.strip()
        if not s:
            continue
        lead = _LEADING_MARKERS.match(s)
        if lead and out:
            out[-1] = f"{out[-1]} {lead.group(0).strip()}"
            s = s[lead.end() :].strip()
            if not s:
                continue
        out.append(s)
    return out


def uncited_sentences(text: str) -> list[str]:
    """Sentences with words in them and no marker (run after :func:`sanitize`)."""
    return [
        s
        for s in answer_sentences(text)
        if re.search(r"\w{2,}", s) and not MARKER.search(s) and not _is_refusal(s)
    ]


def _is_refusal(sentence: str) -> bool:
    # "The sources do not contain the answer." is the one sentence that needs no [n].
    s = sentence.lower()
    return "sources" in s and ("not contain" in s or "don't contain" in s or "do not" in s)

