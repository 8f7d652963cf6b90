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

from citeline.answer.prompt import REFUSAL_SENTENCE

# Digits: ``\d`` also matches fullwidth digits, and int() reads them. Any number a model
# writes in a marker is one (``[12345]`` is removed and reported like ``[7]``).
_NUM = r"\d{1,18}"
_SEP = r"\s*(?:[,，、;；]|and)\s*"
_DASH = r"\s*[-‐‑‒–—~〜]\s*"
_ITEM = rf"{_NUM}(?:{_DASH}{_NUM})?"
_OPEN = r"[\[［【〔]"
_CLOSE = r"[\]］】〕]"
_PREFIX = r"(?:(?:sources?|refs?|references?|citations?)\s*(?:no\.?\s*)?#?\s*)?"


def _body(caret: str = "") -> str:
    """A marker's pattern; ``caret`` is what may follow the opening bracket."""
    return rf"{_OPEN}\s*{caret}{_PREFIX}(?P<body>{_ITEM}(?:{_SEP}{_ITEM})*)\s*{_CLOSE}"


# In a model's answer "fast[1]" is a citation, so any character may precede one, and a
# Markdown footnote reference "[^1]" is one too (a document's own footnotes, in quoted
# text, are left as they are).
MARKER = re.compile(_body(r"\^?\s*"), re.I)
# In quoted document text ``v[1]`` is code, not a citation: an identifier may not precede.
QUOTED_MARKER = re.compile(rf"(?<![\w)\]]){_body()}", re.I)
_ITEM_RE = re.compile(rf"(?P<a>{_NUM})(?:{_DASH}(?P<b>{_NUM}))?")
# A range wider than this is not a citation a model meant; it is reported whole.
MAX_RANGE = 20
# In quoted document text a bracketed number above this is the document's own text, not
# a marker it could forge: no answer holds a hundred sources, and "[2019] EWCA Civ 12"
# (a law report's year) or "[1066]" lost its brackets' contents when quoted.
QUOTED_MAX_MARKER = 99

# a link's target may hold one level of balanced parentheses (Kettle_(appliance),
# javascript:alert(1)): all of it goes, not up to its first ")"
_MD_LINK = re.compile(r"(?P<bang>!?)\[(?P<label>[^\]\n]{0,300})\]"
                      r"\((?P<target>(?:[^()\s]|\([^()\s]*\))*)(?:\s+\"[^\"]*\")?\)")
_HTML_A = re.compile(r"<a\b(?:[^>]*?\bhref\s*=\s*[\"']?(?P<href>[^\"'\s>]*))?[^>]*>", re.I)
_HTML_TAG = re.compile(r"</a\s*>|<img\b[^>]*>", re.I)
_AUTOLINK = re.compile(r"<(?P<url>[a-z][a-z0-9+.\-]*:[^>\s]+)>", re.I)
# A URL starts where no scheme character precedes it, and its scheme is read without
# backtracking (possessive): on a 32 KB answer of "1.2.1.2..." the checks took 10 s,
# growing with the square of the length. Its path may hold balanced parentheses.
_URL = re.compile(
    r"(?:(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]*+://|\bwww\.|\bmailto:)"
    r"(?:[^\s<>\"'\]()]|\([^\s<>\"'\]()]*\))*(?<![.,;:!?])", re.I
)
# A bare domain the model presents as a place to go ("evil.example/login").
_DOMAIN_PATH = re.compile(
    r"(?<![a-z0-9.\-])(?:[a-z0-9-]+\.)++[a-z]{2,}/(?:[^\s<>\"')\]]*[^\s<>\"')\].,;:!?])?",
    re.I)  # not the full stop
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


def _sanitize_piece(piece: str, n_sources: int, checked: Checked, quoted: bool = False,
                    markers: bool = True) -> str:
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
        if quoted and all(int(x) > QUOTED_MAX_MARKER for x in re.findall(_NUM, m["body"])):
            return m.group(0)
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
    if markers:  # in code, ``a[1]`` or ``[1, 3]`` is code, not a citation
        s = (QUOTED_MARKER if quoted else MARKER).sub(marker, s)
    return s


def _tidy(s: str) -> str:
    # Removing a marker or URL can leave "word  ." or "( )": close those gaps. Only
    # gaps between words: a line's indentation is kept.
    s = re.sub(r"[ \t]+([.,;:!?])", r"\1", s)
    s = re.sub(r"\(\s*\)", "", s)
    return re.sub(r"(?<=\S)[ \t]{2,}(?=\S)", " ", s)


def _code_parts(piece: str, fence: bool, inline: bool) -> tuple[list[tuple[str, bool]], bool, bool]:
    """``piece`` cut into (text, is code) parts, and the code state after it: inside a
    fenced block (``` toggles it) or an inline code span (a backtick toggles it; a
    line break ends it, so one stray backtick cannot swallow the answer's citations).

    >>> _code_parts("see `a[1]` [2]", False, False)[0]
    [('see ', False), ('`a[1]`', True), (' [2]', False)]
    """
    parts: list[tuple[str, bool]] = []
    start, i = 0, 0

    def cut(at: int, code: bool) -> None:
        if at > start:
            if parts and parts[-1][1] == code:
                parts[-1] = (parts[-1][0] + piece[start:at], code)
            else:
                parts.append((piece[start:at], code))

    while i < len(piece):
        if piece.startswith("```", i):
            cut(i, fence or inline)
            start, i = i, i + 3
            cut(i, True)
            start, fence, inline = i, not fence, False
            continue
        if piece[i] == "`" and not fence:
            if not inline:
                cut(i, False)
                start = i
            inline = not inline
            if not inline:
                cut(i + 1, True)
                start = i + 1
        elif piece[i] == "\n" and inline:
            inline = False
            cut(i, True)
            start = i
        i += 1
    cut(len(piece), fence or inline)
    return parts, fence, inline


def sanitize(text: str, n_sources: int, *, quoted: bool = False) -> Checked:
    """Strip links and invalid markers; canonicalise valid markers. See the module doc.

    ``quoted=True`` is for document text citeline quotes itself: there every
    marker-looking ``[n]`` is foreign (citeline adds its own afterwards), so all
    are removed, but only where no identifier precedes them (``v[1]`` is code), and
    a bracketed number no answer could cite (above :data:`QUOTED_MAX_MARKER`) stays.

    >>> sanitize("Smith v Jones [2019] EWCA Civ 12, as [3] says.", 4, quoted=True).text
    'Smith v Jones [2019] EWCA Civ 12, as says.'
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
        self._fence = False  # inside a fenced code block
        self._inline = False  # inside an inline code span
        self._dropped = False  # the last piece was removed whole (a marker or link alone)

    def _clean(self, piece: str) -> tuple[str, bool]:
        """The piece sanitized, and whether anything was removed or rewritten. Code
        keeps its brackets and spacing; links are stripped everywhere."""
        parts, self._fence, self._inline = _code_parts(piece, self._fence, self._inline)
        out = []
        for text, code in parts:
            clean = _sanitize_piece(text, self.n_sources, self.checked, self.quoted,
                                    markers=not code)
            out.append(clean if clean == text or code else _tidy(clean))
        joined = "".join(out)
        return joined, joined != piece

    def _emit(self, pieces: list[str]) -> str:
        shown: list[str] = []
        for piece in pieces:
            clean, changed = self._clean(piece)
            core = clean.rstrip()
            if not core.strip():
                self._dropped = self._dropped or changed
                continue  # the piece was a link or marker and nothing else
            first = not self._out and not shown
            core_l = core.lstrip() if first else core
            # "now [9]." loses its marker: the full stop closes up to "now"; a "?" or
            # ":" the text itself spaced off ("ready ? 1 : 0", "« chaud » :") stays
            closes_gap = (changed or self._dropped) and core_l[0] in ".,;:!?"
            lead = "" if first or closes_gap else self._pending_ws
            shown.append(lead + core_l)
            self._dropped = False
            self._pending_ws = clean[len(core) :] or " " * (piece != piece.rstrip())
        text = "".join(shown)
        if text:
            self._out.append(text)
        return text

    def feed(self, token: str) -> str:
        """Add streamed text; returns what can be shown now (possibly "")."""
        self._buf += token
        if not any(ch.isspace() for ch in token):
            return ""  # cuts fall after whitespace: none is new (and a long run of text
            # without any is not scanned again for every piece)
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


_INLINE_CODE = re.compile(r"`+[^`\n]*`+")


def uncited_sentences(text: str) -> list[str]:
    """Sentences with words in them and no marker (run after :func:`sanitize`); a
    bracket inside inline code is code, not a marker (```sensors[1]``` cites nothing)."""
    return [
        s
        for s in answer_sentences(text)
        # any letter or digit makes a claim ("9." answers "what rpm?")
        if re.search(r"[^\W_]", s) and not MARKER.search(_INLINE_CODE.sub(" ", s))
        and not _is_refusal(s)
    ]


def _normal(sentence: str) -> str:
    s = " ".join(sentence.lower().replace("’", "'").replace("don't", "do not").split())
    return s.rstrip(" .!")


def _is_refusal(sentence: str) -> bool:
    """The refusal sentence the prompt asks for is the one sentence that needs no [n];
    any other sentence about the sources ("The sources say you need not ...") is a claim."""
    return _normal(sentence) == _normal(REFUSAL_SENTENCE)

