"""The refusal gate: the one part of the pipeline that can say no.

Keep at most ``max_hits`` hits whose cosine distance is under the threshold, in
retrieval order. None left means NO ANSWER, decided by comparing two numbers,
before any model is asked. The threshold is per index; ``calibrate`` proposes
one from in-domain and out-of-domain questions (0.675 is the chapter's
starting value, not a law).

A question that names a code (``P-4021``, ``E1042``: a word with letters and
digits) is asked about that row, so a sheet's chunk that does not hold the code is
no source for it, however near: the embedding model reads every row of a sheet,
and ``P-9999`` and ``P-4021``, alike, and quoting other rows would answer a question
nobody asked (:func:`keyed`). Prose is kept either way: a paragraph can answer
a ticket that quotes its own order number. Such a sheet chunk is gated at the
distance of its nearest row that holds the code (:func:`code_rows`; the pipeline
embeds them), not at its own: the answer quotes that row alone, and a chunk's ten
rows sit farther from a lookup than the one it names (124 of 124 lookups in
benchmarks/sheet_lookup.py pass the gate so, 101 by the chunk's distance).

The named row is near a lookup of any column, the sheet's or not, so distance cannot
refuse "What is the warranty period of P-4021?" when the sheet has no such column:
a sheet chunk whose sheet has no column for what the question asks is no source for
it either (:func:`asks_no_column`, weighed on a :class:`Lookup` the pipeline builds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from citeline.chunk import CELL_SEP, DRAWN_LINE, NOTE_LINE, row_notes
from citeline.retrieve.bm25 import key_terms, key_words, tokenize
from citeline.types import Hit

DEFAULT_THRESHOLD = 0.675
# The chapter keeps four: more chunks cost prompt tokens and, past a point,
# accuracy (long-context degradation), while four covers most multi-part answers.
MAX_KEPT = 4

# The words of a lookup that name no column: function words, question words and the
# verbs of asking. What is left once these, the codes, the key column's own words
# ("employee", "part number") and the row's values are gone names the column asked for.
FUNCTION_WORDS = frozenset("""a an the of for to in on at by from with about into per and
or is are was were be been being am do does did done have has had will would shall should
can could may might must what which who whom whose when where why how s me my i we our us
you your it its this that these those there here give tell show find get list please much
many""".split())
# Words that ask for a whole row, not one of its cells ("Tell me about E1042").
ROW_WORDS = frozenset("details detail information info record row entry everything data".split())
# Two words are one when one is the other's prefix and the shorter has this many letters
# (price / prices, desc / description), or they share this many first letters (supplies /
# supplier, manufactured / manufacturer): English inflection without a stemmer.
MIN_PREFIX, MIN_STEM = 3, 5
# A header word abbreviated to 3-4 letters keeps its first letter and the rest in order
# (qty, dept, ext, amt). Only against a header, never a value: "Emil" is no "email".
ABBREVIATION = (3, 4)
# The model's cosine at which a column is taken for the asked words that no header
# word spells (all-MiniLM-L6-v2: those words, together and each alone, against each
# header cell and each of its words). Measured on benchmarks/sheet_lookup.py
# (docs/retrieval-experiments.md section 51): columns the sheets have, asked in words no
# header spells, scored 0.41-0.74 ("stored" ~ "warehouse bin" 0.41, "billed" ~
# "customer" 0.50, "city" ~ "office" 0.52, "owed" ~ "amount due" 0.57, "cost" ~ "price"
# 0.74); columns no sheet has 0.36-0.56 ("manufactured" ~ "supplier" 0.53, "sales
# representative" ~ "customer" 0.51, "currency" ~ "amount" 0.56). The model cannot part
# the two in 0.41-0.56, and the value was chosen on those same questions: at 0.55 the 20
# absent-column bluffs of section 48 are refused, and so are 9 of 90 lookups of a real
# column in words that far from its header (city, stored, billed). The trade-off: a
# refusal the user can re-ask in the header's words, against a row quoted as the
# answer to a question it does not answer.
COLUMN_SIMILARITY = 0.55


@dataclass(frozen=True)
class Lookup:
    """A sheet chunk that holds a row a question names by its code, read by its sheet's
    columns: what :func:`asks_no_column` weighs. The pipeline builds it
    (:func:`lookup`) and fills ``similarity`` with the model (:func:`column_texts`)."""

    hit: Hit
    code: str  # the code as the question writes it
    header: tuple[str, ...]  # the sheet's header cells
    key_column: int | None  # the header cell over the code, when the row's cells align
    header_words: tuple[str, ...]  # asked words a header word spells: a column is named
    unspelt: tuple[str, ...]  # asked words neither a header word nor a value spells
    similarity: float = 0.0  # the model's best cosine of ``unspelt`` to a header cell or word
    nearest: str = ""  # that header cell or word

    @property
    def sheet(self) -> str:
        """The sheet's name, as its range gives it."""
        return (self.hit.locator.sheet_range or "").rpartition("!")[0]


@dataclass(frozen=True)
class GateResult:
    kept: tuple[Hit, ...]
    threshold: float
    nearest: float | None  # smallest distance among the candidates
    keys: tuple[str, ...] = ()  # the codes the question names, as written, when other_rows
    other_rows: tuple[Hit, ...] = ()  # sheet hits under the threshold without any of them
    holder: Hit | None = None  # then the first candidate holding one of them, if any
    # the lookups whose sheets have no column for what is asked, when only they passed
    no_column: tuple[Lookup, ...] = ()

    @property
    def refused(self) -> bool:
        return not self.kept


def keyed(question: str, hits: Sequence[Hit]) -> tuple[list[Hit], list[Hit]]:
    """(the hits that can answer ``question``, the sheet hits that cannot), each in
    retrieval order: when the question names codes, a sheet's chunk holds one of
    them in its rows, its header row, its sheet's or its file's name, or it answers
    nothing; a question naming no code keeps every hit.

    >>> from citeline.types import Locator
    >>> def hit(text, sheet):
    ...     return Hit(1, 1, "s.csv", "s", "s", 0, len(text),
    ...                Locator(0, len(text), sheet_range=sheet), text, 0.4, 1.0)
    >>> rows, note = hit("P-4018 | Hex nut | 0.12", "s!A2:C2"), hit("Order P-9999 twice.", None)
    >>> [len(x) for x in keyed("What does part P-4018 cost?", [rows, note])]
    [2, 0]
    >>> [len(x) for x in keyed("What does part P-9999 cost?", [rows, note])]
    [1, 1]
    >>> [len(x) for x in keyed("What does a hex nut cost?", [rows, note])]
    [2, 0]
    """
    keys = set(key_terms(question))
    if not keys:
        return list(hits), []
    can: list[Hit] = []
    cannot: list[Hit] = []
    for h in hits:
        (can if not h.locator.sheet_range or _holds(h, keys) else cannot).append(h)
    return can, cannot


def code_rows(keys: set[str], hit: Hit) -> list[str]:
    """The rows of a sheet ``hit`` (lines of its content) that hold one of ``keys`` (a
    question's :func:`~citeline.retrieve.bm25.key_terms`), in order; [] for prose, or
    for no keys.

    >>> from citeline.types import Locator
    >>> text = "id | city\\nE1 | Oslo\\nE2 | Lyon"
    >>> h = Hit(1, 1, "s.csv", "s", "s", 0, len(text), Locator(0, len(text),
    ...         sheet_range="s!A1:B3"), text, 0.4, 1.0)
    >>> code_rows({"e2"}, h), code_rows(set(), h)
    (['E2 | Lyon'], [])

    A row's comments (the lines under it that :func:`~citeline.extract.sheet.note_line`
    wrote, :func:`~citeline.chunk.row_notes`) are part of it; a comment holding the code
    is a row of its own:

    >>> text = "id | city\\nE1 | Oslo\\nComment on B2: the old harbour office\\nE2 | Lyon"
    >>> h = Hit(1, 1, "s.csv", "s", "s", 0, len(text), Locator(0, len(text),
    ...         sheet_range="s!A1:B3"), text, 0.4, 1.0)
    >>> code_rows({"e1"}, h)
    ['E1 | Oslo\\nComment on B2: the old harbour office']
    """
    if not keys or not hit.locator.sheet_range:
        return []
    lines = [line.strip() for line in hit.content.split("\n")]
    rows: list[str] = []
    for i, line in enumerate(lines):
        if not line or not keys & set(tokenize(line)):
            continue
        if not NOTE_LINE.match(line):  # a row holding the code, with its comments
            line = "\n".join((line, *row_notes(lines[i + 1:])))
        rows.append(line)
    return rows


def same_word(a: str, b: str, abbreviation: bool = False) -> bool:
    """Whether two lower-case words are one for a column's name: equal, one the other's
    prefix (:data:`MIN_PREFIX`), one stem (:data:`MIN_STEM`), or (``abbreviation``) the
    shorter an abbreviation of the longer (:data:`ABBREVIATION`).

    >>> [same_word(*p) for p in [("prices", "price"), ("supplies", "supplier"), ("cost", "customer")]]
    [True, True, False]
    >>> same_word("qty", "quantity", abbreviation=True), same_word("qty", "quantity")
    (True, False)
    """
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if len(short) >= MIN_PREFIX and long.startswith(short):
        return True
    if len(short) >= MIN_STEM and short[:MIN_STEM] == long[:MIN_STEM]:
        return True
    if not abbreviation or not ABBREVIATION[0] <= len(short) <= ABBREVIATION[1]:
        return False
    rest = iter(long[1:])
    return short[0] == long[0] and len(long) > len(short) and all(ch in rest for ch in short[1:])


def lookup(question: str, hit: Hit, header: str, rows: Sequence[str]) -> Lookup | None:
    """``hit`` read as the answer to a lookup of ``question`` by a code ``rows`` (its
    :func:`code_rows`) hold, under its sheet's ``header`` row; None when there is no
    such lookup to weigh: no row holds the code, the sheet has no header row or its
    header was cut (``… ``: columns unseen), or nothing is asked but the row itself.

    The asked words are the question's, less :data:`FUNCTION_WORDS`, :data:`ROW_WORDS`,
    the codes and the key column's words ("employee" of "employee id"). Those a word of
    another header cell spells name a column (``header_words``); those a value of
    another column of the chunk's rows spells ("paid", "Hex bolt") are about the row
    and ask nothing more; the rest are ``unspelt``.

    >>> from citeline.types import Locator
    >>> text = "P-4018 | Hex nut | 0.12\\nP-4021 | Hex bolt | 0.45"
    >>> h = Hit(1, 1, "s.csv", "s", "s", 0, len(text), Locator(0, len(text),
    ...         sheet_range="s!A2:C3"), text, 0.4, 1.0)
    >>> head = "part number | description | unit price"
    >>> lk = lookup("What are the prices of part P-4021?", h, head, ["P-4021 | Hex bolt | 0.45"])
    >>> lk.key_column, lk.header_words, lk.unspelt
    (0, ('prices',), ())
    >>> lookup("Who made the hex bolt P-4021?", h, head, ["P-4021 | Hex bolt | 0.45"]).unspelt
    ('made',)
    >>> lookup("Tell me about part P-4021", h, head, ["P-4021 | Hex bolt | 0.45"]) is None
    True
    """
    cells = tuple(c.strip() for c in header.split(CELL_SEP))
    if not rows or not header.strip() or cells[-1] == "…":
        return None
    if NOTE_LINE.match(rows[0]) or DRAWN_LINE.match(rows[0]):  # the code is in a comment
        return None  # or a drawing's text: prose, where no column is asked
    keys = set(key_terms(question))
    first, *notes = rows[0].split("\n")
    row = first.split(CELL_SEP)
    code = next((w for w in key_words(question) if keys & set(tokenize(w))
                 and set(tokenize(w)) & set(tokenize(rows[0]))), "")
    key_column = next((j for j, c in enumerate(row) if keys & set(tokenize(c))), None)
    if len(row) != len(cells):  # an empty first or last cell: the columns do not align
        key_column = None
    others = [j for j in range(len(cells)) if j != key_column]
    codes = {t for w in key_words(question) for t in tokenize(w)}
    key_words_ = set(tokenize(cells[key_column])) if key_column is not None else set()
    asked = [t for t in dict.fromkeys(tokenize(question))
             if t not in FUNCTION_WORDS and t not in ROW_WORDS and t not in codes
             and not any(same_word(t, k) for k in key_words_)]
    if not asked:
        return None
    heads = {w for j in others for w in tokenize(cells[j])}
    named = tuple(t for t in asked if any(same_word(t, w, abbreviation=True) for w in heads))
    values = {w for note in notes for w in tokenize(note)}  # what the row's comments say
    for line in hit.content.split("\n"):
        parts = line.split(CELL_SEP)
        if len(parts) == len(cells) and parts != list(cells):
            values.update(w for j in others for w in tokenize(parts[j]))
    unspelt = tuple(t for t in asked if t not in named
                    and not any(same_word(t, v) for v in values))
    if not named and not unspelt:
        return None
    return Lookup(hit, code, cells, key_column, named, unspelt)


def column_texts(lk: Lookup) -> tuple[list[str], list[str]]:
    """What the model compares for ``lk``: (the unspelt words together, then each alone;
    each header cell but the key's, then each of their words)."""
    cols = [c for j, c in enumerate(lk.header) if j != lk.key_column]
    words = [w for c in cols for w in dict.fromkeys(tokenize(c))
             if w not in cols and w not in FUNCTION_WORDS]  # "in" of "quantity in stock"
    asked = [" ".join(lk.unspelt), *(w for w in lk.unspelt if len(lk.unspelt) > 1)]
    return asked, cols + words


def asks_no_column(lk: Lookup, min_similarity: float = COLUMN_SIMILARITY) -> bool:
    """Whether no column of ``lk``'s sheet holds what its question asks: no asked word
    is a header word, some asked word is not a value of its rows either, and the model
    finds no header cell or word within ``min_similarity`` of those words.

    A lookup that names a column in the header's words, or a plural, a stem or an
    abbreviation of them ("unit price", "prices", "supplies", "qty"), is answered;
    one in other words is left to the model ("cost" ~ "unit price" 0.62, answered;
    "warranty period" ~ any header of a stock sheet under 0.35, refused). The trade-off
    is :data:`COLUMN_SIMILARITY`'s. A word of a header the question shares with a column
    it does not mean ("date" of "date of birth" and "start date") names that column:
    lexically it is "phone" of "phone number" and "phone extension", and refusing both
    would refuse the sheet's own column asked in a user's words."""
    return not lk.header_words and bool(lk.unspelt) and lk.similarity < min_similarity


def with_columns(hits: Sequence[Hit], lookups: Mapping[int, Lookup] | None) -> list[Hit]:
    """``hits`` less the sheet hits whose ``lookups`` (by chunk id) find no column for
    what is asked (:func:`asks_no_column`), in order: what the gate can keep of them,
    whatever its threshold (the eval's sweep hands it that)."""
    if not lookups:
        return list(hits)
    return [h for h in hits if (lk := lookups.get(h.chunk_id)) is None or not asks_no_column(lk)]


def _holds(hit: Hit, keys: set[str]) -> bool:
    return bool(keys & set(tokenize(" ".join((hit.content, hit.columns, hit.section,
                                               hit.title)))))


def gate(hits: Sequence[Hit], threshold: float, max_hits: int = MAX_KEPT,
         question: str = "", lookups: Mapping[int, Lookup] | None = None) -> GateResult:
    """``hits`` under ``threshold``, at most ``max_hits``; with ``question``, only the
    hits :func:`keyed` leaves it (``other_rows`` says which it took away); with
    ``lookups`` (by chunk id), not the sheet hits whose sheets have no column for what
    it asks (:func:`asks_no_column`; ``no_column`` says which, when nothing is left)."""
    nearest = min((h.distance for h in hits), default=None)
    can, cannot = keyed(question, hits)
    under = [h for h in can if h.distance < threshold]
    missing = tuple(lk for h in under if (lk := (lookups or {}).get(h.chunk_id)) is not None
                    and asks_no_column(lk))
    kept = tuple(with_columns(under, lookups))[:max_hits]
    other = tuple(h for h in cannot if h.distance < threshold)
    if not other:
        return GateResult(kept, threshold, nearest, no_column=() if kept else missing)
    keys = set(key_terms(question))
    holder = next((h for h in can if _holds(h, keys)), None)
    return GateResult(kept, threshold, nearest, tuple(key_words(question)), other, holder,
                      no_column=() if kept else missing)


def refusal_line(question: str, threshold: float, keys: Sequence[str] = (),
                 no_column: Sequence[Lookup] = ()) -> str:
    """The refusal: nothing under the threshold, (``keys``) nothing under it that holds
    a code the question names, or (``no_column``) the code's row found, in a sheet with
    no column for what is asked."""
    if no_column:
        lk = no_column[0]
        asked = " ".join(lk.unspelt)
        return (f'NO ANSWER: "{lk.code}" is in {lk.hit.document}, but no column of its '
                f'sheet holds "{asked}" for "{question}"')
    if keys:
        named = " or ".join(f'"{k}"' for k in keys)
        return f'NO ANSWER: nothing under cosine distance {threshold:g} holds {named} for "{question}"'
    return f'NO ANSWER: nothing under cosine distance {threshold:g} for "{question}"'


def no_column_reason(no_column: Sequence[Lookup], min_similarity: float = COLUMN_SIMILARITY) -> str:
    """Why lookups were refused for their sheets' columns: the code found, where, and
    the header that does not hold what is asked, with the model's nearest column.

    >>> from citeline.types import Locator
    >>> h = Hit(1, 1, "stock.csv", "stock", "stock", 0, 9, Locator(0, 9,
    ...         sheet_range="stock!A8:C17"), "P-4021 | x | 1", 0.41, 1.0)
    >>> lk = Lookup(h, "P-4021", ("part number", "description", "unit price"), 0, (),
    ...             ("warranty", "period"), 0.32, "description")
    >>> print(no_column_reason([lk]))
    "P-4021" is in stock.csv stock!A8:C17 (at 0.410), but no column of sheet "stock" (part number | description | unit price) holds "warranty period": the nearest, "description", is at cosine 0.32, under 0.55
    """
    out = []
    for lk in no_column:
        out.append(f'"{lk.code}" is in {lk.hit.document} {lk.hit.locator.sheet_range} (at '
                   f'{lk.hit.distance:.3f}), but no column of sheet "{lk.sheet}" '
                   f'({CELL_SEP.join(lk.header)}) holds "{" ".join(lk.unspelt)}": the nearest, '
                   f'"{lk.nearest}", is at cosine {lk.similarity:.2f}, under {min_similarity:g}')
    return "; ".join(out)
