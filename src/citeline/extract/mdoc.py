"""Manual pages in BSD's mdoc(7) macros: ``.Dd``, ``.Dt``, ``.Sh``, ``.Op Fl a Ar file``.

macOS's and the BSDs' pages are written so, and on Linux OpenSSH's, libffi's, tmux's
and dash's. :class:`MdocInterpreter` reads them on :mod:`citeline.extract.man`'s
interpreter (its escapes, strings, conditionals and a page's own macros are roff's, the
same in both) and writes the same canonical text as a man(7) page:

- ``.Sh`` and ``.Ss`` are ``#`` and ``##`` headings; ``.Pp`` parts paragraphs;
- a list (``.Bl``/``.It``/``.El``): a tagged item (``-tag``, ``-hang``, ``-ohang``,
  ``-inset``, ``-diag``) is one paragraph, its tag on its own line (``-a file``) and its
  text below; a ``-bullet``, ``-dash`` or ``-hyphen`` item is a ``- `` item, an
  ``-enum`` one ``1.``, ``2.``...; a ``-column`` list is one line a row, its cells
  (``.Ta`` or a tab parts them) joined by " | ", as a tbl table is;
- a display: ``.Bd -literal`` (or ``-unfilled``) is a fenced code block unless its lines
  are prose (:func:`~citeline.extract.blocks.prose_pre`), ``.Dl`` lines are code, ``.D1``
  a line of text;
- the inline macros set their words as groff sets them on a terminal, fonts dropped:
  ``.Op Fl a Ar file`` is ``[-a file]``, ``.Xr ls 1 ,`` is ``ls(1),`` (punctuation
  arguments attach to the word before, an opening one to the word after; ``.Ns``,
  ``.Pf`` and ``.Sm off`` take spaces out), ``.Dq`` quotes with “ ”, ``.Fn f int`` is
  ``f(int)``, ``.St -p1003.1-2008`` the standard's name, ``.Ex -std`` and ``.Rv -std``
  the sentences groff writes; a reference (``.Rs``/``.Re``) is one paragraph;
- in the SYNOPSIS, each ``.Nm`` starts a line, and a function (``.Ft``, ``.Fn`` or
  ``.Fo``/``.Fc``) is a paragraph of its own, as groff lays them out.

The title is the NAME section's ``.Nm`` and ``.Nd`` with ``.Dt``'s section
(``ssh-add(1) — adds private key identities ...``), as for a man(7) page.

>>> from citeline.extract.man import JOIN
>>> m = MdocInterpreter()
>>> m.run([".Nm ls", ".Op Fl a Ar file ...", ".Xr ls 1 ,", "and", ".Dq Li \\\\-\\\\- ."])
>>> " ".join(m.page.words).replace(JOIN, "")
'ls [-a file ...] ls(1), and “--”.'

Not interpreted: fonts and widths (``.Bf``, ``-width``, ``-offset``), keeps (``.Bk``),
tags (``.Tg``); a macro no one defines is dropped and counted, as for a man(7) page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from citeline.extract.man import JOIN, Interpreter, arguments

# mdoc's delimiters: a closing one attaches to the word before it, an opening one to the
# word after it; "|" stands apart. Only an argument that is the character alone is one.
_OPENING = frozenset("([")
_CLOSING = frozenset(".,:;)]?!")

# the semantic macros: each argument a word, set in the macro's font (dropped here)
_WORDS = frozenset("Ad An Ar Cd Cm Dv Em Er Ev Fa Fl Ft Ic Li Ms Mt Nm No Pa Sx Sy Tn "
                   "Va Vt".split())
# the enclosures of the rest of the line (its last punctuation left outside) ...
_ENCLOSE = {"Op": ("[", "]"), "Dq": ("\u201c", "\u201d"), "Sq": ("\u2018", "\u2019"),
            "Ql": ("\u2018", "\u2019"), "Qq": ('"', '"'), "Pq": ("(", ")"),
            "Bq": ("[", "]"), "Brq": ("{", "}"), "Aq": ("\u27e8", "\u27e9")}
# ... and their open and close halves, which may be lines apart
_OPEN = {"Oo": "[", "Do": "\u201c", "So": "\u2018", "Qo": '"', "Po": "(", "Bo": "[",
         "Bro": "{", "Ao": "\u27e8"}
_CLOSE = {"Oc": "]", "Dc": "\u201d", "Sc": "\u2019", "Qc": '"', "Pc": ")", "Bc": "]",
          "Brc": "}", "Ac": "\u27e9"}
_BSD = {"Bsx": "BSD/OS", "Dx": "DragonFly", "Fx": "FreeBSD", "Nx": "NetBSD", "Ox": "OpenBSD"}
# The macros called by name from another's arguments (mdoc(7)'s "callable" ones): a word
# such as "No" or "In" among a macro's arguments is that macro, as in groff and mandoc.
_CALLABLE = _WORDS | _ENCLOSE.keys() | _OPEN.keys() | _CLOSE.keys() | _BSD.keys() | \
    frozenset("Ap At Bx Eo Ec Fn In Lk Ns Pf Sm St Ta Ux Xc Xo Xr".split())
# macros read only at a line's start, with no text of their own here
_SILENT = frozenset("Dd Os Bf Ef Bk Ek Tg Db Hf".split())

# mdoc's predefined strings (groff_mdoc(7), "Predefined strings")
_STRINGS = {"Lq": "\u201c", "Rq": "\u201d", "q": '"', "Ba": "|", "Ne": "\u2260",
            "Ge": "\u2265", "Le": "\u2264", "Lt": "<", "Gt": ">", "Pm": "\u00b1",
            "If": "\u221e", "Pi": "\u03c0", "Na": "NaN", "Am": "&", "Px": "POSIX",
            "Ai": "ANSI", "Tm": "\u2122", "Ua": "\u2191", "Da": "\u2193", "Ra": "\u2192",
            "La": "\u2190"}

# .St's standards, as groff's doc-syms names them: (name, short name)
_STANDARDS = {
    "-ansiC": ("ANSI X3.159-1989", "ANSI C89"), "-ansiC-89": ("ANSI X3.159-1989", "ANSI C89"),
    "-isoC": ("ISO/IEC 9899:1990", "ISO C90"), "-isoC-90": ("ISO/IEC 9899:1990", "ISO C90"),
    "-isoC-99": ("ISO/IEC 9899:1999", "ISO C99"), "-isoC-2011": ("ISO/IEC 9899:2011", "ISO C11"),
    "-isoC-amd1": ("ISO/IEC 9899/AMD1:1995", "ISO C90, Amendment 1"),
    "-isoC-tcor1": ("ISO/IEC 9899/TCOR1:1994", "ISO C90, Technical Corrigendum 1"),
    "-isoC-tcor2": ("ISO/IEC 9899/TCOR2:1995", "ISO C90, Technical Corrigendum 2"),
    "-p1003.1": ("IEEE Std 1003.1", "POSIX.1"), "-p1003.1b": ("IEEE Std 1003.1b", "POSIX.1"),
    "-p1003.1-88": ("IEEE Std 1003.1-1988", "POSIX.1"),
    "-p1003.1-90": ("ISO/IEC 9945-1:1990", "POSIX.1"),
    "-iso9945-1-90": ("ISO/IEC 9945-1:1990", "POSIX.1"),
    "-p1003.1b-93": ("IEEE Std 1003.1b-1993", "POSIX.1"),
    "-p1003.1c-95": ("IEEE Std 1003.1c-1995", "POSIX.1"),
    "-p1003.1i-95": ("IEEE Std 1003.1i-1995", "POSIX.1"),
    "-p1003.1-96": ("ISO/IEC 9945-1:1996", "POSIX.1"),
    "-iso9945-1-96": ("ISO/IEC 9945-1:1996", "POSIX.1"),
    "-p1003.1g-2000": ("IEEE Std 1003.1g-2000", "POSIX.1"),
    "-p1003.1-2001": ("IEEE Std 1003.1-2001", "POSIX.1"),
    "-p1003.1-2004": ("IEEE Std 1003.1-2004", "POSIX.1"),
    "-p1003.1-2008": ("IEEE Std 1003.1-2008", "POSIX.1"),
    "-p1003.2": ("IEEE Std 1003.2", "POSIX.2"), "-p1003.2-92": ("IEEE Std 1003.2-1992", "POSIX.2"),
    "-p1003.2a-92": ("IEEE Std 1003.2a-1992", "POSIX.2"),
    "-iso9945-2-93": ("ISO/IEC 9945-2:1993", "POSIX.2"),
    "-susv2": ("Version 2 of the Single UNIX Specification", "SUSv2"),
    "-susv3": ("Version 3 of the Single UNIX Specification", "SUSv3"),
    "-svid4": ("System V Interface Definition, Fourth Edition", "SVID4"),
    "-xbd5": ("X/Open Base Definitions Issue 5", "XBD5"),
    "-xcu5": ("X/Open Commands and Utilities Issue 5", "XCU5"),
    "-xcurses4.2": ("X/Open Curses Issue 4, Version 2", "XCURSES4.2"),
    "-xns5": ("X/Open Networking Services Issue 5", "XNS5"),
    "-xns5.2": ("X/Open Networking Services Issue 5.2", "XNS5.2"),
    "-xpg3": ("X/Open Portability Guide Issue 3", "XPG3"),
    "-xpg4": ("X/Open Portability Guide Issue 4", "XPG4"),
    "-xpg4.2": ("X/Open Portability Guide Issue 4, Version 2", "XPG4.2"),
    "-xsh5": ("X/Open System Interfaces and Headers Issue 5", "XSH5"),
    "-ieee754": ("IEEE Std 754-1985", ""), "-ieee1275-94": ("IEEE Std 1275-1994", "Open Firmware"),
    "-iso8601": ("ISO 8601", ""), "-iso8802-3": ("ISO/IEC 8802-3:1989", ""),
}
# .At's versions of AT&T UNIX
_AT = {**{f"v{n}": f"Version {n} AT&T UNIX" for n in range(1, 8)},
       "32v": "Version 32V AT&T UNIX", "III": "AT&T System III UNIX",
       "V": "AT&T System V UNIX",
       **{f"V.{n}": f"AT&T System V Release {n} UNIX" for n in range(1, 5)}}
# .Lb's libraries, the common ones (groff's doc-syms has the BSDs' rarer ones); another
# is named as groff names one it does not know: library “libfoo”
_LIBRARIES = {
    "libc": "Standard C Library", "libcrypt": "Crypt Library", "libm": "Math Library",
    "libpthread": "POSIX Threads Library", "libutil": "System Utilities Library",
    "libz": "Compression Library", "libkvm": "Kernel Data Access Library",
    "libedit": "Command Line Editor Library", "libcurses": "Curses Library",
    "librt": "POSIX Real-time Library",
    "libdl": "Dynamic Linker Services Filter", "libmagic": "Magic Number Recognition Library",
    "libarchive": "Reading and Writing Streaming Archives Library",
    "libelf": "ELF Access Library", "libevent": "Event Notification Library",
    "libcompat": "Compatibility Library", "libbsm": "Basic Security Module Library",
}
_LIST_KINDS = frozenset("tag hang ohang inset diag item bullet dash hyphen enum column".split())


class _Words:
    """One line's pieces as mdoc spaces them: a space between two, unless the second is
    a closing delimiter or the first an opening one (or ``.Ns`` came between)."""

    def __init__(self, spacing: bool) -> None:
        self.parts: list[str] = []
        self.glue = False  # the next piece follows with no space
        self.joined = False  # the first piece follows the text before this line
        self.spacing = spacing  # .Sm: off sets pieces with no space at all

    def piece(self, s: str, before: bool = True) -> None:
        """Append ``s``; ``before``: a space may part it from the piece before."""
        if not s:
            return
        if self.parts:
            if before and not self.glue and self.spacing:
                self.parts.append(" ")
        elif not before or self.glue:  # (with spacing off, a line still follows a space)
            self.joined = True
        self.parts.append(s)
        self.glue = False

    def opening(self, s: str) -> None:
        self.piece(s)
        self.glue = True

    def text(self) -> str:
        return "".join(self.parts)


@dataclass
class _List:
    """An open ``.Bl`` list: its kind, the items counted, a column list's rows."""

    kind: str
    count: int = 0
    rows: list[list[str]] = field(default_factory=list)
    row: list[str] | None = None  # the row being read


class MdocInterpreter(Interpreter):
    """man.py's interpreter, with mdoc's macros read before roff's requests."""

    def __init__(self) -> None:
        super().__init__()
        self.roff.strings.update(_STRINGS)
        self.name = ""  # the page's name: the first .Nm's; .Nm alone repeats it
        self.section = ""  # the current .Sh's title, upper case
        self.lists: list[_List] = []
        self.displays: list[bool] = []  # open .Bd's: True when literal (no-fill)
        self.spacing = True  # .Sm
        self.dl = False  # a .Dl line's code block is open (the next .Dl adds to it)
        self.xo = False  # an .It's tag goes on past .Xo, to .Xc
        self.function: tuple[str, list[str]] | None = None  # .Fo's name and .Fa's
        self.reference: dict[str, list[str]] | None = None  # .Rs's %A, %T, ...
        self.split_authors = True  # .An -split / -nosplit
        self.authors = 0  # .An lines in the AUTHORS section
        self.break_after = False  # a synopsis line ends here (.Fn, .In, .Fd)

    # -- lines
    def text_line(self, line: str) -> None:
        if self.dl:
            self._end_dl()
        row = self._row()
        if row is not None:
            cells = self.roff.unescape(line).replace(JOIN, "").split("\t")
            row[-1] = f"{row[-1]} {cells[0]}".strip()
            row.extend(c.strip() for c in cells[1:])
            return
        super().text_line(line)

    def macro(self, name: str, rest: str) -> None:  # noqa: C901 (one case a macro)
        page = self.page
        if self.dl and name and name != "Dl":
            self._end_dl()
        if name in self.roff.macros or name in self.roff.aliases:
            super().macro(name, rest)
            return
        args = arguments(rest)
        synopsis = self.section == "SYNOPSIS"
        if name in ("Sh", "Ss"):
            self._end_lists()
            while self.displays:
                self._end_display()
            title = self._render(args).text()
            self.section = title.upper() if name == "Sh" else self.section
            self.authors = 0
            page.add_heading(1 if name == "Sh" else 2, title)
        elif name == "Dt":
            if args:
                self.title = (self.roff.unescape(args[0]),
                              self.roff.unescape(args[1]) if len(args) > 1 else "")
        elif name in ("Pp", "Lp"):
            if page.verbatim is not None:
                page.raw.append("")
            else:
                page.paragraph()
        elif name == "Nd":
            words = _Words(self.spacing)
            words.piece("\u2014")
            self._inline(args, words)
            self._put(words)
        elif name == "Bl":
            kind = next((a[1:] for a in args if a[1:] in _LIST_KINDS), "tag")
            if page.verbatim is None:
                page.paragraph()
            self.lists.append(_List(kind))
        elif name == "It":
            self._item(rest, args)
        elif name == "El":
            if self.lists:
                self._end_list(self.lists.pop())
        elif name == "Bd":
            literal = bool({"-literal", "-unfilled"} & set(args))
            if literal:
                page.start_verbatim("nf")
            elif page.verbatim is None:
                page.paragraph()
            self.displays.append(literal)
        elif name == "Ed":
            if self.displays:
                self._end_display()
        elif name == "D1":  # a line of its own: in a list's item, a line of the item
            part = page.line_break if self.lists else page.paragraph
            if page.verbatim is None:
                part()
            self._line(args)
            if page.verbatim is None:
                part()
        elif name == "Dl":
            if page.verbatim is None:
                page.start_verbatim("code")
                self.dl = True
            self._line(args)
        elif name == "Rs":
            self.reference = {}
        elif name.startswith("%") and self.reference is not None:
            self.reference.setdefault(name[1:], []).append(self._render(args).text())
        elif name == "Re":
            if self.reference is not None:
                page.paragraph()
                page.text(_reference(self.reference))
                page.paragraph()
            self.reference = None
        elif name == "Fo":
            self.function = (self.roff.unescape(args[0]) if args else "", [])
        elif name == "Fa" and self.function is not None:
            self.function[1].extend(self.roff.unescape(a) for a in args)
        elif name == "Fc":
            words = _Words(self.spacing)
            if self.function is not None:
                fn, fargs = self.function
                words.piece(f"{fn}({', '.join(fargs)})" + (";" if synopsis else ""))
                self.function = None
            self._inline(args, words)
            self._put(words)
            if synopsis:
                page.line_break()
        elif name == "An" and args[:1] in (["-split"], ["-nosplit"]):
            self.split_authors = args[0] == "-split"
        elif name in ("Ex", "Rv"):
            page.line_break()
            names = [self.roff.unescape(a) for a in args if a != "-std"]
            page.text(_exit_status(names or [self.name]) if name == "Ex"
                      else _return_value(names))
        elif name in ("Bt", "Ud"):
            page.text("is currently in beta test." if name == "Bt"
                      else "currently under development.")
        elif name == "Lb":
            lib = self.roff.unescape(args[0]) if args else ""
            page.text(f"{_LIBRARIES[lib]} ({lib}, -l{lib[3:]})" if lib in _LIBRARIES
                      else f"library \u201c{lib}\u201d")
        elif name in _SILENT:
            pass
        elif name in _CALLABLE:
            if synopsis and name in ("Nm", "In", "Fd", "Ft"):
                if name == "Ft":
                    page.paragraph()
                else:
                    page.line_break()
            elif name == "An" and self.section == "AUTHORS":
                if self.authors and self.split_authors:
                    page.line_break()
                self.authors += 1
            self._line([name, *args])
            if synopsis and name in ("In", "Fd", "Ft"):
                page.line_break()
        elif name == "Fd":
            if synopsis:
                page.line_break()
            self._line(args)
            if synopsis:
                page.line_break()
        else:
            super().macro(name, rest)

    def _line(self, tokens: list[str]) -> None:
        """A line of macros and words, set into the page (or a column list's row)."""
        row = self._row()
        if row is not None:
            cells = _split_at(tokens, "Ta")
            texts = [self._render(c).text() for c in cells]
            row[-1] = f"{row[-1]} {texts[0]}".strip()
            row.extend(texts[1:])
            return
        words = self._render(tokens)
        self._put(words)
        if self.break_after:
            self.break_after = False
            self.page.line_break()
        if self.xo and "Xc" in tokens:
            self.xo = False
            self.page.line_break()

    def _render(self, tokens: list[str]) -> _Words:
        words = _Words(self.spacing)
        self._inline(tokens, words)
        return words

    def _put(self, words: _Words) -> None:
        """Set a line's words into the page: joined to the text before when its first
        piece attaches to it, and to the text after when its last one does."""
        page = self.page
        text = words.text()
        if words.joined:
            if page.verbatim is not None and page.raw:
                page.raw[-1] += JOIN
            elif page.verbatim is None and page.words:
                page.words[-1] += JOIN
        if words.glue or text and not self.spacing:
            text += JOIN
        if text:
            page.text(text)

    # -- inline macros
    def _inline(self, tokens: list[str], words: _Words) -> None:
        i = 0
        while i < len(tokens):
            if tokens[i] in _CALLABLE:
                i = self._call(tokens[i], tokens, i + 1, words)
            else:
                self._word(tokens[i], words)
                i += 1

    def _word(self, raw: str, words: _Words, prefix: str = "") -> None:
        if raw in _CLOSING:
            words.piece(raw, before=False)
        elif raw in _OPENING:
            words.opening(raw)
        elif raw == "|":
            words.piece(raw)
        else:
            text = self.roff.unescape(raw)
            words.piece(prefix + text.replace(JOIN, ""))
            if text.endswith(JOIN):
                words.glue = True

    def _call(self, name: str, tokens: list[str], i: int, words: _Words) -> int:  # noqa: C901
        """Run the inline macro ``name`` on ``tokens[i:]``; where the next one starts."""
        n = len(tokens)
        nxt = tokens[i] if i < n else None
        plain = nxt is not None and nxt not in _CALLABLE and nxt not in _CLOSING \
            and nxt not in _OPENING and nxt != "|"
        if name in _WORDS:
            if not plain and name in ("Fl", "Ar", "Nm"):  # no word of its own: its default
                words.piece({"Fl": "-", "Ar": "file ...", "Nm": self.name}[name])
            if name == "Nm" and plain and not self.name:
                self.name = self.roff.unescape(nxt or "")
            first = True
            while i < n and tokens[i] not in _CALLABLE:
                if name == "Fa" and not first and tokens[i] not in _CLOSING:
                    words.piece(",", before=False)
                self._word(tokens[i], words, "-" if name == "Fl" else "")
                first = False
                i += 1
            return i
        if name in _ENCLOSE:
            end = n
            while end > i and tokens[end - 1] in _CLOSING:
                end -= 1  # the sentence's punctuation goes after the closing mark
            opening, closing = _ENCLOSE[name]
            if name == "Aq" and nxt == "Mt":
                opening, closing = "<", ">"
            words.opening(opening)
            self._inline(tokens[i:end], words)
            words.piece(closing, before=False)
            return end
        if name in _OPEN or name == "Eo":
            mark = _OPEN.get(name, "")
            if name == "Eo" and nxt is not None and nxt not in _CALLABLE:
                mark, i = self.roff.unescape(nxt), i + 1
            words.opening(mark)
            return i
        if name in _CLOSE or name == "Ec":
            mark = _CLOSE.get(name, "")
            if name == "Ec" and nxt is not None and nxt not in _CALLABLE:
                mark, i = self.roff.unescape(nxt), i + 1
            words.piece(mark, before=False)
            return i
        if name == "Ns":
            words.glue = True
            if not words.parts:
                words.joined = True
        elif name == "Ap":
            words.piece("'", before=False)
            words.glue = True
        elif name == "Pf" and nxt is not None:
            words.opening(self.roff.unescape(nxt))
            return i + 1
        elif name == "Xr" and plain:
            page = self.roff.unescape(nxt or "")
            i += 1
            if i < n and tokens[i] not in _CALLABLE and tokens[i] not in _CLOSING:
                page += f"({self.roff.unescape(tokens[i])})"
                i += 1
            words.piece(page)
        elif name == "Fn" and plain:
            fn, args = self.roff.unescape(nxt or ""), []
            i += 1
            while i < n and tokens[i] not in _CALLABLE and tokens[i] not in _CLOSING:
                args.append(self.roff.unescape(tokens[i]))
                i += 1
            synopsis = self.section == "SYNOPSIS"
            words.piece(f"{fn}({', '.join(args)})" + (";" if synopsis else ""))
            self.break_after = self.break_after or synopsis
        elif name == "In" and plain:
            header = f"<{self.roff.unescape(nxt or '')}>"
            words.piece(f"#include {header}" if self.section == "SYNOPSIS" else header)
            return i + 1
        elif name == "Lk" and plain:
            url, label = self.roff.unescape(nxt or ""), []
            i += 1
            while i < n and tokens[i] not in _CALLABLE and tokens[i] not in _CLOSING:
                label.append(self.roff.unescape(tokens[i]))
                i += 1
            words.piece(f"{' '.join(label)} <{url}>" if label else url)
        elif name == "St" and nxt is not None:
            full, short = _STANDARDS.get(nxt, (self.roff.unescape(nxt), ""))
            words.piece(f"{full} (\u201c{short}\u201d)" if short else full)
            return i + 1
        elif name == "At":
            if nxt in _AT:
                words.piece(_AT[nxt])
                return i + 1
            words.piece("AT&T UNIX")
        elif name == "Bx":
            version = ""
            if plain:
                version = self.roff.unescape(nxt or "")
                i += 1
                if i < n and tokens[i] not in _CALLABLE and tokens[i] not in _CLOSING:
                    version += "BSD-" + self.roff.unescape(tokens[i])
                    i += 1
                else:
                    version += "BSD"
            words.piece(version or "BSD")
        elif name in _BSD:
            words.piece(_BSD[name] + (f" {self.roff.unescape(nxt or '')}" if plain else ""))
            return i + plain
        elif name == "Ux":
            words.piece("UNIX")
        elif name == "Sm":
            self.spacing = {"on": True, "off": False}.get(nxt or "", not self.spacing)
            words.spacing = self.spacing
            if self.spacing and self.page.words and self.page.words[-1].endswith(JOIN):
                self.page.words[-1] = self.page.words[-1].rstrip(JOIN)
            return i + (nxt in ("on", "off"))
        # Ta outside a column list, Xo and Xc (an .It's tag goes on): nothing to set
        return i

    def cell_macro(self, name: str, rest: str) -> list[str]:
        """A tbl cell's macro line (``.Nm crypt_r ,``): its words, set as on a page."""
        if name not in _CALLABLE:
            return super().cell_macro(name, rest)
        return [self._render([name, *arguments(rest)]).text()]

    # -- lists and displays
    def _item(self, rest: str, args: list[str]) -> None:
        page = self.page
        if not self.lists:
            return  # an item in no list: groff drops it
        lst = self.lists[-1]
        self._end_row(lst)
        if lst.kind == "column":
            lst.row = [self._render(c).text() for seg in rest.split("\t")
                       for c in _split_at(arguments(seg), "Ta")]
            return
        page.end_verbatim()
        page.paragraph()
        if lst.kind in ("bullet", "dash", "hyphen"):
            page.words.append("-")
        elif lst.kind == "enum":
            lst.count += 1
            page.words.append(f"{lst.count}.")
        elif lst.kind != "item":
            self.xo = "Xo" in args
            self._put(self._render(args))
            if not self.xo:
                page.line_break()

    def _row(self) -> list[str] | None:
        """The column list's row being read, if one is."""
        if self.lists and self.lists[-1].kind == "column":
            return self.lists[-1].row
        return None

    def _end_row(self, lst: _List) -> None:
        if lst.row is not None:
            lst.rows.append(lst.row)
            lst.row = None

    def _end_list(self, lst: _List) -> None:
        self.xo = False
        if lst.kind == "column":
            self._end_row(lst)
            self.page.table(lst.rows)
        elif self.page.verbatim is None:
            self.page.paragraph()

    def _end_lists(self) -> None:
        while self.lists:
            self._end_list(self.lists.pop())

    def _end_display(self) -> None:
        literal = self.displays.pop()
        if literal and not any(self.displays):
            self.page.end_verbatim()
        elif not literal and self.page.verbatim is None:
            self.page.paragraph()

    def _end_dl(self) -> None:
        self.dl = False
        self.page.end_verbatim()


def _split_at(tokens: list[str], mark: str) -> list[list[str]]:
    """``tokens`` parted at each ``mark``: a column list's cells at ``Ta``."""
    parts: list[list[str]] = [[]]
    for t in tokens:
        if t == mark:
            parts.append([])
        else:
            parts[-1].append(t)
    return parts


def _series(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b, and c``."""
    if len(items) < 3:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _exit_status(names: list[str]) -> str:
    """``.Ex -std``: groff's sentence.

    >>> _exit_status(["scp"])
    'The scp utility exits 0 on success, and >0 if an error occurs.'
    """
    one = len(names) == 1
    return f"The {_series(names)} {'utility exits' if one else 'utilities exit'} 0 on " \
           "success, and >0 if an error occurs."


def _return_value(names: list[str]) -> str:
    """``.Rv -std``: groff's sentence, for the functions named or none."""
    error = "the value -1 is returned and the global variable errno is set to indicate " \
            "the error."
    if not names:
        return f"Upon successful completion, the value 0 is returned; otherwise {error}"
    one = len(names) == 1
    return f"The {_series([f'{n}()' for n in names])} " \
           f"{'function returns' if one else 'functions return'} the value 0 if " \
           f"successful; otherwise {error}"


# a reference's parts in the order groff sets them
_REFERENCE_ORDER = "A T B I J R N V U P Q C D O".split()


def _reference(parts: dict[str, list[str]]) -> str:
    """An ``.Rs`` reference as one sentence: authors, “title”, book, journal, ... date.

    >>> _reference({"A": ["J. Doe", "K. Roe"], "T": ["A paper"], "D": ["2001"]})
    'J. Doe and K. Roe, “A paper”, 2001.'
    """
    out: list[str] = []
    for key in _REFERENCE_ORDER:
        values = parts.get(key, [])
        if not values:
            continue
        if key == "A":
            out.append(_series(values))
        elif key == "T":
            out.extend(f"\u201c{v}\u201d" for v in values)
        else:
            out.extend(values)
    return ", ".join(out) + "." if out else ""
