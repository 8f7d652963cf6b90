"""Manual pages: roff source in the man(7) macros, as ``/usr/share/man`` keeps them.

``ls.1.gz`` is read as ``ls.1`` (:mod:`citeline.extract.compressed`), and ``ls.1`` by
this reader: the roff the page is written in is interpreted here, in Python, as
``man`` would set it on a terminal, less the terminal's layout (no program such as
groff or mandoc is run, so a machine without them reads pages the same).

Canonical text, every ``#char=`` offset refers to it:

- ``.SH`` and ``.SS`` are ``#`` and ``##`` headings (NAME, SYNOPSIS, OPTIONS, ...);
- text is filled into paragraphs as roff fills it (``.PP``, ``.sp``, a blank line
  part them; ``.br`` and a line starting with a space break a line);
- a tagged item (``.TP``, ``.IP`` with a tag) is one paragraph: the tag on its own line
  (an option: ``-a, --all``), its text below, so an option and what it does are found
  and cited together; an ``.IP`` bullet is a ``- `` item, a number a ``1.`` one;
- an example (``.EX``/``.EE``, pod2man's ``.Vb``/``.Ve``) is a fenced code block, and
  so is a no-fill block (``.nf``/``.fi``: a synopsis, DocBook's examples) unless its
  lines are prose (:func:`~citeline.extract.blocks.prose_pre`, as an HTML ``<pre>``);
- a tbl(1) table (``.TS``/``.TE``) is one line a row, its cells joined by " | ";
- fonts, sizes, motions and index entries (``.IX``) are dropped; special characters
  (``\\(em``, ``\\[u00E9]``, ``\\*(lq``) are the characters they name, and strings the
  page defines (``.ds``) are what it defines; a condition (``.if``, ``.ie``/``.el``) is
  taken as a terminal (``n``) takes it.

The title is the page's first name, its section and its NAME line's description
(``ls(1) — list directory contents``), else ``.TH``'s name and section.

A page in BSD's mdoc(7) macros (``.Dd``/``.Dt``/``.Sh``: most of macOS's and the BSDs'
pages, OpenSSH's everywhere) is read to the same conventions by
:mod:`citeline.extract.mdoc`, on this module's interpreter.

Not read: a page that only includes another (``.so man1/foo.1``: an alias, the page
it names is the document); a file with no ``.TH`` (or ``.Dd``) line near its start (a
rotated log ``syslog.1``, a library ``libfoo.so.1``: not a page). A macro the page
defines itself (``.de``, ``.am``, ``.als``) is run with its arguments; a line calling a
macro no one defines is dropped, as man drops it, and a warning names those that carried
text.
"""

from __future__ import annotations

import re
from pathlib import Path

from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import read_bytes, register
from citeline.extract.blocks import TextBuilder, escape_markdown, fenced, prose_pre
from citeline.extract.text import decode
from citeline.types import Document

# A page's header comes in its first lines, after the comment block of its licence and
# pod2man's or docutils' macro definitions (a few KB); a file without one there is not a
# page. Bytes: a library's binary is tested without being decoded.
SNIFF_BYTES = 64 << 10
_HEADER = re.compile(rb"^[.'][ \t]*(TH|Dd|so)[ \t]", re.M)
MAX_PAGE_BYTES = 16 << 20  # the largest page in Debian is under 1 MB (perltoc.1: 0.6)

# man(7)'s and groff's named characters (groff_char(7)) that pages use, by name
_CHARS = {
    "em": "\u2014", "en": "\u2013", "hy": "-", "mi": "-", "bu": "\u2022", "aq": "'",
    "dq": '"', "lq": "\u201c", "rq": "\u201d", "oq": "\u2018", "cq": "\u2019",
    "Fo": "\u00ab", "Fc": "\u00bb", "fo": "\u2039", "fc": "\u203a", "bq": "\u201a",
    "Bq": "\u201e", "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "ba": "|", "br": "|",
    "or": "|", "ul": "_", "ru": "_", "pl": "+", "eq": "=", "**": "*", "co": "\u00a9",
    "rg": "\u00ae", "tm": "\u2122", "de": "\u00b0", "mu": "\u00d7", "di": "\u00f7",
    "+-": "\u00b1", "<=": "\u2264", ">=": "\u2265", "!=": "\u2260", "==": "\u2261",
    "~=": "\u2245", "ap": "~", "->": "\u2192", "<-": "\u2190", "<>": "\u2194",
    "rA": "\u21d2", "lA": "\u21d0", "hA": "\u21d4", "ua": "\u2191", "da": "\u2193",
    "dg": "\u2020", "dd": "\u2021", "sc": "\u00a7", "ps": "\u00b6", "ct": "\u00a2",
    "Po": "\u00a3", "Ye": "\u00a5", "Eu": "\u20ac", "eu": "\u20ac", "Do": "$",
    "12": "\u00bd", "14": "\u00bc", "34": "\u00be", "S1": "\u00b9", "S2": "\u00b2",
    "S3": "\u00b3", "ss": "\u00df", "AE": "\u00c6", "ae": "\u00e6", "OE": "\u0152",
    "oe": "\u0153", "/o": "\u00f8", "/O": "\u00d8", "oA": "\u00c5", "oa": "\u00e5",
    "-D": "\u00d0", "Sd": "\u00f0", "TP": "\u00de", "Tp": "\u00fe", "ci": "\u25cb",
    "sq": "\u25a1", "OK": "\u2713", "lh": "\u261c", "rh": "\u261e", "at": "@", "sh": "#",
    "aa": "\u00b4", "ga": "`", "a-": "\u00af", "a.": "\u02d9", "a^": "^", "ah": "\u02c7",
    "ao": "\u02da", "a~": "~", "ad": "\u00a8", "ho": "\u02db",
    "tno": "\u00ac", "no": "\u00ac", "if": "\u221e", "pd": "\u2202", "gr": "\u2207",
    "sr": "\u221a", "is": "\u222b", "es": "\u2205", "mo": "\u2208", "pt": "\u221d",
    "fa": "\u2200", "te": "\u2203", "AN": "\u2227", "OR": "\u2228", "ca": "\u2229",
    "cu": "\u222a", "sb": "\u2282", "sp": "\u2283", "ib": "\u2286", "ip": "\u2287",
    "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "\u27e8", "ra": "\u27e9",
    "an": "\u23af", "rn": "\u203e", "bv": "|", "tf": "\u2234", "md": "\u22c5",
    "pc": "\u00b7", "r!": "\u00a1", "r?": "\u00bf", "Of": "\u00aa", "Om": "\u00ba",
    "Cs": "\u00a4", "bb": "\u00a6", "fm": "\u2032", "sd": "\u2033", "st": "\u220b",
    "mc": "\u00b5", "ff": "ff", "fi": "fi", "fl": "fl", "Fi": "ffi", "Fl": "ffl",
    "wp": "\u2118", "Ah": "\u2135", "Im": "\u2111", "Re": "\u211c",
    "c*": "\u2297", "c+": "\u2295", "lz": "\u25ca",
}
_GREEK = "abgdezyhiklmncoprstufxqw"
for _i, _c in enumerate("\u03b1\u03b2\u03b3\u03b4\u03b5\u03b6\u03b7\u03b8\u03b9\u03ba\u03bb"
                        "\u03bc\u03bd\u03be\u03bf\u03c0\u03c1\u03c3\u03c4\u03c5\u03c6"
                        "\u03c7\u03c8\u03c9"):
    _CHARS["*" + _GREEK[_i]] = _c
    _CHARS["*" + _GREEK[_i].upper()] = _c.upper()
# an accent and a letter: \('e is é, \(:u ü, \(,c ç, \(~n ñ, \(^o ô, \(`a à, \(oa å
_ACCENTS = {"'": "\u0301", "`": "\u0300", ":": "\u0308", "^": "\u0302", "~": "\u0303",
            ",": "\u0327", "o": "\u030a", "v": "\u030c"}
# man(7)'s predefined strings: \*R, \*(Tm, \*(lq, \*(rq (and \*S, a size reset)
_STRINGS = {"R": "\u00ae", "Tm": "\u2122", "lq": "\u201c", "rq": "\u201d", "S": ""}

# escapes taking a delimited argument (\h'1i', \w'text'), dropped with it
_DELIMITED = set("hvwlLDXboxSHRNAZBC")
# escapes taking a name, one character or "(xx" or "[name]", dropped with it
_NAMED = set("fgkmMFYVn$")

# A macro's argument in its lines: \$1 .. \$9, \$(12, \$[12], \$*, \$@, \$0
_ARG = re.compile(r"\\\$(?:\(([0-9]{2})|\[([0-9]+|\*|@)\]|([0-9*@]))")
MAX_DEPTH = 20  # a page's macros calling each other (or themselves): no page nests more
MAX_EXPANDED = 200_000  # lines all its macro calls may run

JOIN = "\x01"  # \c: the next text continues this line with no space


def _special(name: str) -> str:
    """The character a special-character name gives (``em``, ``u00E9``, ``'e``)."""
    if name in _CHARS:
        return _CHARS[name]
    if re.fullmatch(r"u[0-9A-Fa-f]{4,6}(_[0-9A-Fa-f]{4,6})*", name):
        return "".join(chr(int(h, 16)) for h in name[1:].split("_"))
    if re.fullmatch(r"char\d+", name):
        return chr(int(name[4:]))
    if len(name) == 2 and name[0] in _ACCENTS and name[1].isalpha():
        import unicodedata
        return unicodedata.normalize("NFC", name[1] + _ACCENTS[name[0]])
    return ""


class _Roff:
    """One page's interpreter state: its strings and the macros it defines."""

    def __init__(self) -> None:
        self.strings = dict(_STRINGS)
        self.aliases: dict[str, str] = {}  # .als of a macro this reader knows
        self.macros: dict[str, list[str]] = {}  # the page's own (.de), their lines

    def unescape(self, s: str) -> str:
        """A line's text with its escapes interpreted; a trailing ``\\c`` as :data:`JOIN`."""
        out: list[str] = []
        i, n = 0, len(s)
        while i < n:
            c = s[i]
            if c != "\\" or i + 1 == n:
                out.append(c)
                i += 1
                continue
            e = s[i + 1]
            i += 2
            if e in "e\\E":
                out.append("\\")
            elif e in "-":
                out.append("-")
            elif e in ".'`":
                out.append({".": ".", "'": "'", "`": "`"}[e])
            elif e in " ~0":
                out.append(" ")
            elif e == "(":
                out.append(_special(s[i:i + 2]))
                i += 2
            elif e == "[":
                end = s.find("]", i)
                end = n if end < 0 else end
                name = s[i:end].split()
                out.append("".join(_special(p) for p in name[:1]))
                i = end + 1
            elif e == "*":
                name, i = _name(s, i)
                out.append(self.unescape(self.strings.get(name, "")))
            elif e == "c":
                out.append(JOIN)
            elif e in '"#':
                break  # a comment to the line's end
            elif e == "s":  # \s-1 \s0 \s+2 \s(12 \s[12] \s'12'
                if i < n and s[i] in "+-":
                    i += 1
                if i < n and s[i] == "(":
                    i += 3
                elif i < n and s[i] in "['":
                    close = "]" if s[i] == "[" else "'"
                    end = s.find(close, i + 1)
                    i = n if end < 0 else end + 1
                elif i < n and s[i].isdigit():
                    i += 2 if i + 1 < n and s[i] in "123" and s[i + 1].isdigit() else 1
            elif e in _DELIMITED:
                if i < n:
                    end = s.find(s[i], i + 1)
                    arg = s[i + 1:end] if end > 0 else ""
                    i = n if end < 0 else end + 1
                    if e == "C":
                        out.append(_special(arg))
                    elif e == "h" and re.fullmatch(r"\+?0*[1-9][\d.]*[a-zA-Z]?|\+?0*\.\d*[1-9]\d*[a-zA-Z]?", arg):
                        out.append(" ")  # a move right: a space (DocBook's "1.\h'+01'")
                    elif e == "Z":
                        out.append(self.unescape(arg))
            elif e in _NAMED:
                if e == "n" and i < n and s[i] in "+-":
                    i += 1
                _, i = _name(s, i)
            elif e == "z":
                pass  # the next character, set with no width: still the character
            elif e == "t":
                out.append("\t")
            # \& \| \^ \) \% \: \/ \, \a \d \u \r \p \{ \} \! \? and the rest: nothing
        return "".join(out)


def _name(s: str, i: int) -> tuple[str, int]:
    """A name after an escape: one character, ``(xx``, or ``[name]``; and where it ends."""
    if i >= len(s):
        return "", i
    if s[i] == "(":
        return s[i + 1:i + 3], i + 3
    if s[i] == "[":
        end = s.find("]", i)
        end = len(s) if end < 0 else end
        return s[i + 1:end], end + 1
    return s[i], i + 1


def copy_mode(arg: str) -> str:
    """A macro's argument as roff reads it before the macro sets it ("copy mode"): an
    escaped backslash is one backslash, so ``"\\-\\-show\\\\-limits"`` (xargs(1)) is set
    ``--show-limits``, where the escape after it was kept as a backslash and a dash.

    >>> copy_mode("\\\\\\\\-limits") == "\\\\-limits"  # two backslashes: one
    True
    """
    return arg.replace("\\\\", "\\")


# A macro's argument: quoted (to its closing quote, a doubled one a quote; to the line's
# end when unclosed) or a run of characters up to a space or tab (roff's only separators);
# an escape (a backslash and what follows) whole
_ARGUMENT = re.compile(r'"((?:[^"\\]|\\.?|"")*)(?:"|$)|((?:[^ \t\\]|\\.?)+)', re.S)


def arguments(rest: str) -> list[str]:
    """A macro call's arguments as roff splits them: at spaces, a quoted argument whole
    (``""`` in it is one ``"``), an escaped space (``\\ ``) inside an argument.

    >>> arguments('"-o, --output" FILE\\\\ NAME "say ""hi"" twice"')
    ['-o, --output', 'FILE\\\\ NAME', 'say "hi" twice']
    """
    return [m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2)
            for m in _ARGUMENT.finditer(rest)]


# the fonts' macros: one font (arguments joined by spaces) or two alternating (joined)
_ONE_FONT = frozenset("B I SM SB R".split())
_ALTERNATING = frozenset("BR RB BI IB IR RI".split())
_PARAGRAPH = frozenset("PP LP P HP".split())
# requests and macros with no text: layout, registers, fonts, hyphenation, index entries
_SILENT = frozenset("""
    ad na nh hy hc hw hym hys ne in ti ft fam ps vs ll pl ta tc lc ls ns rs rm rr rn als
    nr af PD DT AT UC IX LINKSTYLE tm tm1 tmc ev fl pc ss cs bd cu ul ce rj fp ftr sty mk rt
    lg kern ch wh em it itc mso so pso sy open opena close write writec writem cp do ab ex
    lf mc nm nn pn po pvs sizes fschar fchar char schar rchar hcode ig tr trnt trin ec eo cc
    c2 eqn EQ EN TA UN Dd Os
    """.split())
# The man(7) macros this reader sets itself, whatever a page defines by their names (a
# page's own .SH). Those the generators define in each page they write (pod2man's .Vb,
# .Ve, .Sp and .IX, docutils' .INDENT and .UNINDENT) are set by the page's definition when
# it has one, by this reader's otherwise: readline's history(3) has a .Vb of its own, a
# variable's declaration ("int history_base"), which read as pod2man's lost its words.
_NATIVE = frozenset("""
    TH SH SS PP LP P HP TP TQ IP RS RE nf fi EX EE sp br bp UR UE MT ME SY OP YS TS TE
    """.split()) | _ONE_FONT | _ALTERNATING
_BULLETS = frozenset("\u2022 - * \u2013 \u2014 o \u00b7".split())
_ENUMERATOR = re.compile(r"\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|\([0-9a-zA-Z]{1,3}\)")


class Page:
    """The blocks of a page as it is interpreted, line by line."""

    def __init__(self, roff: _Roff) -> None:
        self.roff = roff
        self.blocks: list[str] = []
        self.lines: list[str] = []  # the paragraph's finished lines
        self.words: list[str] = []  # its current line's pieces
        self.heading = 0  # the next text is a heading of this level (.SH, .SS alone)
        self.tag = False  # the next text is an item's tag (.TP)
        self.verbatim: str | None = None  # "nf" or "code" when lines are kept as written
        self.raw: list[str] = []  # a verbatim block's lines
        self.sections: list[tuple[str, int]] = []  # (heading, its block's index)
        self.dropped: dict[str, int] = {}  # calls of its own macros not run (too deep)
        self.unknown: dict[str, int] = {}  # lines calling no macro there is, with text
        self.link: list[str] = []  # .UR/.MT's address, written after its text at .UE/.ME

    # -- text
    def text(self, s: str) -> None:
        """One line's worth of text (unescaped), as the current mode takes it."""
        if self.verbatim is not None:
            if self.raw and self.raw[-1].endswith(JOIN):
                self.raw[-1] = self.raw[-1][:-1] + s
            else:
                self.raw.append(s)
            return
        s = s.strip(" \t")
        if not s.replace(JOIN, ""):
            if s and self.words:  # "\c" alone: keep joining
                self.words[-1] += JOIN
            return
        if self.heading:
            level, self.heading = self.heading, 0
            self.add_heading(level, s.replace(JOIN, ""))
            return
        if self.words and self.words[-1].endswith(JOIN):
            self.words[-1] = self.words[-1][:-1] + s
        else:
            self.words.append(s)
        if self.tag and not s.endswith(JOIN):
            self.tag = False
            self.line_break()

    def line_break(self) -> None:
        if self.words:
            line = " ".join(self.words).replace(JOIN, "")
            self.lines.append(re.sub(r"[ \t]+", " ", line).strip())
            self.words = []

    def paragraph(self) -> None:
        self.line_break()
        self.tag = False
        if self.lines:
            body = "\n".join(ln for ln in self.lines if ln)
            if body.startswith("\u2022 "):  # DocBook's bullet, set by hand: a list item
                body = "- " + body[2:]
            self.blocks.append(escape_markdown(body))
            self.lines = []

    def add_heading(self, level: int, title: str) -> None:
        self.end_verbatim()
        self.paragraph()
        title = re.sub(r"\s+", " ", title).strip()
        if title:
            self.sections.append((title, len(self.blocks)))
            self.blocks.append(f"{'#' * level} {title}")

    # -- verbatim blocks
    def start_verbatim(self, kind: str) -> None:
        if self.verbatim == kind:
            return
        self.end_verbatim()
        self.paragraph()
        self.verbatim = kind

    def end_verbatim(self) -> None:
        if self.verbatim is None:
            return
        kind, self.verbatim = self.verbatim, None
        lines = [ln.replace(JOIN, "").rstrip() for ln in self.raw]
        self.raw = []
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines:
            return
        body = "\n".join(lines)
        if kind == "code" or not prose_pre(body):
            self.blocks.append(fenced(body))
        else:  # lines of prose set as written: paragraphs of text, parted at blank lines
            self.blocks.extend(escape_markdown(p) for p in re.split(r"\n\s*\n", body)
                               if p.strip())

    def table(self, rows: list[list[str]]) -> None:
        self.end_verbatim()
        self.paragraph()
        lines = [" | ".join(c for c in row) for row in rows if any(c.strip() for c in row)]
        if lines:
            self.blocks.append(escape_markdown("\n".join(lines)))

    def finish(self) -> None:
        self.end_verbatim()
        self.paragraph()


# A comment in a line: \" to the line's end (not an escaped backslash's quote: \\")
_COMMENT = re.compile(r'(?<!\\)((?:\\\\)*)\\".*$')


def split_control(line: str) -> tuple[str, str] | None:
    """A control line's name and the rest (``.TP 8`` -> ("TP", "8")), or None for text."""
    if not line or line[0] not in ".'":
        return None
    body = line[1:].lstrip(" \t")
    m = re.match(r"(\S+)", body)
    if m is None:
        return "", ""
    name = m.group(1)
    if name.startswith('\\"') or name.startswith("\\#"):
        return "", ""  # a comment line: .\" ...
    cut = name.find("\\")  # ".TP\" comment" and ".B\fB" name no escape
    if cut > 0:
        name = name[:cut]
    return name, _COMMENT.sub(r"\1", body[len(name):]).strip(" \t")


class _Condition:
    """Evaluates ``.if``'s and ``.ie``'s conditions as a terminal (nroff) does."""

    def __init__(self, roff: _Roff) -> None:
        self.roff = roff

    def split(self, rest: str) -> tuple[bool, str]:
        """(whether the condition holds, the line after it)."""
        neg = rest.startswith("!")
        if neg:
            rest = rest[1:]
        m = re.match(r"([ntoe])(?=[\s\\]|$)", rest)
        if m:
            held = m.group(1) == "n"
            tail = rest[1:]
        elif rest[:1] in "dmrc" and len(rest) > 1 and rest[1] in " \t":
            kind, name_tail = rest[0], rest[2:].lstrip()
            name, _, tail = name_tail.partition(" ")
            held = kind == "d" and (name in self.roff.strings or name in self.roff.macros)
            tail = " " + tail
        elif rest[:1] in "'\"/|":  # a string comparison: 'a'b'
            d = rest[0]
            parts = rest.split(d, 3)
            held = len(parts) == 4 and self.roff.unescape(parts[1]) == self.roff.unescape(parts[2])
            tail = parts[3] if len(parts) == 4 else ""
        else:  # a number: "1", "0", "\n(.g", "(\n(.H>23)": only a literal is known
            m = re.match(r"(\S+)", rest)
            expr = m.group(1) if m else ""
            held = expr.isdigit() and int(expr) > 0 or expr in ("\\n(.g", "\\n[.g]")
            tail = rest[len(expr):]
        return held != neg, tail.lstrip(" \t")


def _brace_block(first: str, lines: list[str], i: int) -> tuple[list[str], int]:
    """A conditional's body: ``first`` (the line after its condition) and, when that
    opens a ``\\{`` block, the lines to its matching ``\\}``; the index after it."""
    if not first.startswith("\\{"):
        return [first], i
    depth = first.count("\\{") - first.count("\\}")
    body = [first[2:].lstrip() if first[2:].strip() not in ("\\", "") else ""]
    while depth > 0 and i < len(lines):
        line = lines[i]
        i += 1
        depth += line.count("\\{") - line.count("\\}")
        body.append(line)
    if body:
        body[-1] = re.sub(r"\\}.*$", "", body[-1]) if depth <= 0 else body[-1]
    return [b for b in body if b.strip() not in ("", "\\")], i


class Interpreter:
    def __init__(self) -> None:
        self.roff = _Roff()
        self.page = Page(self.roff)
        self.cond = _Condition(self.roff)
        self.title: tuple[str, str] | None = None  # .TH's name and section
        self.last_if = True  # .ie's condition, for its .el
        self.depth = 0  # the page's own macros running, one in another
        self.expanded = 0  # lines their calls have run

    def run(self, lines: list[str]) -> None:
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            ctl = split_control(line)
            if ctl is None:
                self.text_line(line)
                continue
            name, rest = ctl
            if name in ("de", "de1", "dei", "am", "am1", "ig"):
                args = arguments(rest)
                end = "." + args[1 if name != "ig" else 0] if len(args) > (name != "ig") \
                    else ".."
                start = i
                while i < len(lines) and not _ends(lines[i], end):
                    i += 1
                if name != "ig" and args:
                    kept = self.roff.macros.get(args[0], []) if name.startswith("am") else []
                    self.roff.macros[args[0]] = kept + lines[start:i]
                i += 1
            elif name in ("if", "ie"):
                held, tail = self.cond.split(rest)
                if name == "ie":
                    self.last_if = held
                body, i = _brace_block(tail, lines, i)
                if held:
                    self.run(body)
            elif name == "el":
                body, i = _brace_block(rest.lstrip(), lines, i)
                if not self.last_if:
                    self.run(body)
            elif name == "TS":
                end = i
                while end < len(lines) and not re.match(r"[.']\s*TE\b", lines[end]):
                    end += 1
                self.page.table(self.tbl(lines[i:end]))
                i = end + 1
            else:
                self.macro(name, rest)

    def text_line(self, line: str) -> None:
        page = self.page
        if page.verbatim is None:
            if not line.strip():
                page.paragraph()
                return
            if line[0] in " \t":
                page.line_break()
        page.text(self.roff.unescape(line))

    def call(self, name: str, args: list[str]) -> None:
        """Run the page's own macro ``name`` with ``args``: its lines read in copy mode
        (``\\\\`` is one backslash) with ``\\$1``... ``\\$*`` ``\\$@`` filled in. Nested
        calls stop at :data:`MAX_DEPTH`, all of them at :data:`MAX_EXPANDED` lines."""
        if self.depth >= MAX_DEPTH or self.expanded >= MAX_EXPANDED:
            self.page.dropped[name] = self.page.dropped.get(name, 0) + 1
            return
        body = self.roff.macros[name]
        self.expanded += len(body)

        def arg(m: re.Match[str]) -> str:
            key = m.group(1) or m.group(2) or m.group(3)
            if key == "*":
                return " ".join(args)
            if key == "@":
                return " ".join(f'"{a}"' for a in args)
            if key == "0":
                return name
            k = int(key)
            return args[k - 1] if k <= len(args) else ""

        lines = [_ARG.sub(arg, ln.replace("\\\\", "\\").replace("\\n(.$", str(len(args))))
                 for ln in body]
        self.depth += 1
        try:
            self.run(lines)
        finally:
            self.depth -= 1

    def macro(self, name: str, rest: str) -> None:  # noqa: C901 (one case a macro)
        page, roff = self.page, self.roff
        args = [copy_mode(a) for a in arguments(rest)]
        name = roff.aliases.get(name, name)
        if name in roff.macros and name not in _NATIVE:
            self.call(name, args)
        elif name == "als" and len(args) > 1:
            new, old = args[0], roff.aliases.get(args[1], args[1])
            if old in roff.macros:
                roff.macros[new] = roff.macros[old]
            else:
                roff.aliases[new] = old
        elif name == "rn" and len(args) > 1:
            if args[0] in roff.macros:
                roff.macros[args[1]] = roff.macros.pop(args[0])
            elif args[0] in roff.strings:
                roff.strings[args[1]] = roff.strings.pop(args[0])
        elif name == "nop":  # groff: the rest of the line is text
            self.text_line(rest)
        elif name == "do" and rest:  # groff: a request run with compatibility off
            self.run(["." + rest])
        elif name == "rm":
            for a in args:
                roff.macros.pop(a, None)
                roff.strings.pop(a, None)
        elif name == "TH":
            if args:
                self.title = (roff.unescape(args[0]), roff.unescape(args[1]) if len(args) > 1 else "")
        elif name in ("SH", "SS"):
            level = 1 if name == "SH" else 2
            if args:
                page.add_heading(level, roff.unescape(" ".join(args)))
            else:
                page.end_verbatim()
                page.paragraph()
                page.heading = level
        elif name in _ONE_FONT:
            if args:
                page.text(" ".join(roff.unescape(a) for a in args))
        elif name in _ALTERNATING:
            page.text("".join(roff.unescape(a) for a in args))
        elif name in _PARAGRAPH:
            if page.verbatim is not None:  # no-fill goes on (a synopsis' groups): a blank line
                page.raw.append("")
            else:
                page.paragraph()
        elif name in ("TP", "TQ"):
            page.end_verbatim()
            if name == "TP":
                page.paragraph()
            else:
                page.line_break()
            page.tag = True
        elif name == "IP":
            page.end_verbatim()
            page.paragraph()
            tag = roff.unescape(args[0]).strip() if args else ""
            if tag in _BULLETS:
                page.words.append("-")
            elif tag and _ENUMERATOR.fullmatch(tag):
                page.words.append(tag)
            elif tag:
                page.text(tag)
                page.line_break()
        elif name in ("sp", "bp", "Sp"):
            if page.verbatim is not None:
                page.raw.append("")
            else:
                page.paragraph()
        elif name == "br":
            if page.verbatim is None:
                page.line_break()
        elif name in ("RS", "RE", "INDENT", "UNINDENT"):
            if page.verbatim is None:
                page.line_break()
        elif name == "nf":
            page.start_verbatim("nf")
        elif name in ("EX", "Vb"):
            page.start_verbatim("code")
        elif name in ("fi", "EE", "Ve"):
            page.end_verbatim()
        elif name in ("ds", "ds1", "as", "as1"):
            if args:
                value = rest[len(rest) - len(rest.lstrip()):].lstrip()
                value = value[len(args[0]):].lstrip(" \t")
                value = value[1:] if value.startswith('"') else value
                key = args[0]
                roff.strings[key] = (roff.strings.get(key, "") if name.startswith("as") else "") \
                    + value
        elif name in ("UR", "MT"):
            page.link.append(args[0] if args else "")
        elif name in ("UE", "ME"):
            address = page.link.pop() if page.link else ""
            if address:
                page.text(f"<{roff.unescape(address)}>" + JOIN)
            page.text(roff.unescape(" ".join(args)) if args else "")
        elif name == "URL":  # an old groff-www macro: .URL address text trailing
            label = roff.unescape(args[1]) if len(args) > 1 else ""
            address = roff.unescape(args[0]) if args else ""
            page.text(f"{label} <{address}>".strip() + (roff.unescape(args[2]) if len(args) > 2 else ""))
        elif name == "SY":
            page.end_verbatim()
            page.paragraph()
            page.text(" ".join(roff.unescape(a) for a in args))
        elif name == "OP":
            page.text("[" + " ".join(roff.unescape(a) for a in args) + "]")
        elif name == "YS":
            page.paragraph()
        elif name == "TE":
            pass  # a table's end without its start
        elif name in _SILENT or name == "":
            pass
        elif any(re.search(r"[^\W\d_]", roff.unescape(a)) for a in args):
            # no macro of that name (nor a request): man drops the line too, but it may
            # have been meant as text (a line of a page starting ".gcloudignore")
            page.unknown[name] = page.unknown.get(name, 0) + 1

    def tbl(self, lines: list[str]) -> list[list[str]]:
        """A tbl(1) table's rows, each a list of its cells' text."""
        tab = "\t"
        i = 0
        if lines and lines[0].rstrip().endswith(";"):
            m = re.search(r"tab\s*\((.)\)", lines[0])
            tab = m.group(1) if m else tab
            i = 1
        while i < len(lines) and not lines[i].rstrip().endswith("."):
            i += 1  # the format lines, up to the one ending with "."
        i += 1
        rows: list[list[str]] = []
        cells: list[str] = []
        block: list[str] | None = None  # a T{ ... T} cell's lines
        while i < len(lines):
            line = lines[i]
            i += 1
            if block is not None:
                if line.startswith("T}"):
                    cells.append(" ".join(block))
                    block = None
                    after = line[2:]
                    if after.startswith(tab):
                        rest = after[1:].split(tab)
                        opened = self._cells(rest, cells)
                        if opened:
                            block = []
                            continue
                    rows.append(cells)
                    cells = []
                    continue
                ctl = split_control(line)
                if ctl is None:
                    block.append(self.roff.unescape(line).replace(JOIN, "").strip())
                else:
                    block.extend(self.cell_macro(*ctl))
                continue
            if re.match(r"[.']\s*T&", line):
                while i < len(lines) and not lines[i].rstrip().endswith("."):
                    i += 1
                i += 1
                continue
            if split_control(line) is not None or line.strip() in ("_", "=", ""):
                continue
            if self._cells(line.split(tab), cells):
                block = []
                continue
            rows.append(cells)
            cells = []
        if cells:
            rows.append(cells)
        return rows

    def cell_macro(self, name: str, rest: str) -> list[str]:
        """The text a macro line sets in a table's T{ ... T} cell: a font's macro's words."""
        if name not in _ONE_FONT | _ALTERNATING:
            return []
        joiner = " " if name in _ONE_FONT else ""
        return [joiner.join(self.roff.unescape(a) for a in arguments(rest))]

    def _cells(self, raw: list[str], cells: list[str]) -> bool:
        """Append a data line's cells to ``cells``; True when its last opens a T{ block."""
        for k, cell in enumerate(raw):
            if cell == "T{" and k == len(raw) - 1:
                return True
            text = "" if cell.strip() in ("_", "=", "\\_", "\\^") else cell
            cells.append(self.roff.unescape(text).replace(JOIN, "").strip())
        return False


def _ends(line: str, end: str) -> bool:
    """Whether ``line`` ends a macro's definition or an ignored block: ``..`` (or the
    name ``.de``'s third argument gave), spaces allowed after the dot."""
    return re.fullmatch(r"[.']\s*" + re.escape(end[1:]) + r"\s*(\\\".*)?", line) is not None


def _logical_lines(text: str) -> list[str]:
    """The source's lines, a line ending in an escaped newline joined to the next."""
    return re.sub(r"(?<!\\)((?:\\\\)*)\\\n", r"\1", text).split("\n")


class ManExtractor:
    name = "man"
    # 2: pages in BSD's mdoc(7) macros are read (citeline.extract.mdoc); 3: a macro's
    # arguments are read in copy mode, an escaped backslash one ("\-\-show\\-limits"),
    # and a page's own .Vb, .Ve, .Sp, .IX, .INDENT or .UNINDENT is run as it defines it
    version = "3"
    suffixes = (".man", *(f".{n}" for n in range(1, 10)))

    def extract(self, path: Path, rel: str) -> Document:
        data = read_bytes(path, rel)
        if len(data) > MAX_PAGE_BYTES or not _HEADER.search(data[:SNIFF_BYTES]):
            raise UnsupportedFormat(rel, f"unsupported file type '{path.suffix}' (not a "
                                         "manual page: no .TH line at its start)")
        text, warning = decode(rel, data, western=True)
        lines = _logical_lines(text)
        first = next((ln for ln in lines if split_control(ln) not in (("", ""),)
                      and ln.strip()), "")
        ctl = split_control(first)
        if ctl is not None and ctl[0] == "so":
            raise UnsupportedFormat(rel, f"an alias of {ctl[1].strip()} (it includes that "
                                         "page and nothing else), which is read as itself")
        interp = Interpreter()
        if ctl is not None and ctl[0] in ("Dd", "Dt") or \
                re.search(r"^[.']\s*Dt\s", text, re.M) and not re.search(r"^[.']\s*TH\s", text, re.M):
            # BSD's mdoc macros: their reader builds on this one (a late import, as
            # citeline.extract.mdoc imports this module)
            from citeline.extract.mdoc import MdocInterpreter
            interp = MdocInterpreter()
        interp.run(lines)
        page = interp.page
        page.finish()
        out = TextBuilder()
        for block in page.blocks:
            out.add(block, sep="\n\n")
        body = out.text()
        if not any(not b.startswith("#") for b in page.blocks):
            raise ExtractionError(rel, "no text in this manual page (only its headings)")
        warnings = [warning] if warning else []
        if page.dropped:
            warnings.append(f"{sum(page.dropped.values())} calls of the page's own macros "
                            f"nested past {MAX_DEPTH} deep were not run: {_counts(page.dropped)}")
        if page.unknown:
            warnings.append(f"{sum(page.unknown.values())} lines start with a macro name no "
                            f"macro has, and were dropped as man drops them: "
                            f"{_counts(page.unknown)}")
        return Document(
            path=rel, title=_title(page, interp.title, path), text=body,
            media_type="text/troff", extractor=self.name, extractor_version=self.version,
            headings="atx", warnings=tuple(warnings),
        )


def _counts(calls: dict[str, int]) -> str:
    """The five names called most, with their counts: ".ZN (12), .q (3)"."""
    top = sorted(calls.items(), key=lambda kv: -kv[1])[:5]
    return ", ".join(f".{k} ({v})" for k, v in top) + (", ..." if len(calls) > 5 else "")


def _title(page: Page, header: tuple[str, str] | None, path: Path) -> str:
    """``ls(1) — list directory contents``: the NAME line's first name and description
    with ``.TH``'s section; else ``.TH``'s name and section; else the file's name."""
    section = header[1] if header else path.suffix.lstrip(".")
    for k, (heading, at) in enumerate(page.sections):
        if heading.upper() not in ("NAME", "NOM", "NOMBRE", "NAZWA", "BEZEICHNUNG",
                                   "NOME", "NAAM", "ИМЯ", "НАЗВАНИЕ", "名前", "名称"):
            continue
        end = page.sections[k + 1][1] if k + 1 < len(page.sections) else len(page.blocks)
        line = " ".join(page.blocks[at + 1:end]).replace("\n", " ")
        m = re.match(r"\s*(.+?)\s+[-\u2013\u2014]+\s+(.+)", line)
        if m:
            names = m.group(1).split(",")[0].strip()
            return f"{names}({section}) \u2014 {m.group(2).strip()}" if section \
                else f"{names} \u2014 {m.group(2).strip()}"
    if header and header[0]:
        return f"{header[0]}({section})" if section else header[0]
    return path.name


register(ManExtractor())
