"""HTML pages, parsed with selectolax's Lexbor engine (MIT).

Why selectolax: Lexbor is a WHATWG-conformant HTML5 parser, so broken markup
becomes the same tree a browser builds (BeautifulSoup's bundled
``html.parser`` is not HTML5-conformant, and html5lib is pure Python and
slow); it is one self-contained wheel with no other dependencies, and it parses
a large page in milliseconds.

Canonical text is Markdown-shaped: ``<h1>``-``<h6>`` become ``#``-heading
lines (the chunker's section path), paragraphs, list items, ``<pre>`` blocks
and table rows (cells joined by `` | ``) become blocks separated by a blank
line; inline whitespace is collapsed as a browser does. An ordered list's item
opens with the number a browser draws before it (``3. ``, ``b. ``, ``IV. ``); an
unordered list's item is a block with no bullet, which is no word to search for.
A line of text that Markdown would read as a heading or a fence is escaped
(``\\# not a heading``: :func:`~citeline.extract.blocks.escape_markdown`).
A list inside a list item is indented as a Markdown writer indents it, by the width of the
item's mark (three spaces under ``2. ``; two under an unordered item, as under a
writer's ``- ``), and numbered by its own count: ``2. Select the best variant``, then
``   1. Multiply the quality factor``. Only a block's first line is indented, as Markdown
lets a paragraph's later lines start anywhere, so the text of the page stays whole in
the block and a quote of it is found; not a heading (four spaces would make it none),
nor a ``<pre>`` (kept as written, and a fence indented four spaces is none; an item's
number opening it is a line of its own above the fence, ``2.``). An item's later
paragraphs start where its mark does, so a page's lists of one level read as they did. A
table used for page layout (a cell holds a heading or another table) is not data: each
cell's contents are read as blocks, headings included. Locators are
``#char=`` offsets into this extracted text. Characters a browser shows as nothing
inside a word (a soft hyphen, a zero-width space) are left out, so the word is one.

A ``<pre>`` block is kept as written, its blank lines and indentation too, as a
CommonMark fenced code block (:func:`~citeline.extract.blocks.fenced`: backticks longer
than any run inside), with no escape inside: its ``# apt-get install`` line reads as the
page shows it, and the chunker never takes it for a heading (a fence is never cut into
sections), while the extractive answer quotes the block whole instead of cutting it at
full stops, as it does Markdown's and a notebook's code. The fence's info string is the
language the page names, never one guessed from the code (:func:`pre_language`):
``class="language-python"`` or ``lang-python`` on the ``<pre>``, its ``<code>`` or the
highlighter's ``<div>`` around it (the HTML standard's convention: highlight.js, Prism,
Pandoc, mdBook, MkDocs, Jekyll; prettify), Sphinx's ``<div class="highlight-python">``,
rustdoc's ``<pre class="rust">``, Pandoc's ``<pre class="sourceCode python">``; none for
DocBook's ``programlisting`` or ``screen``, Sphinx's ``highlight-default`` or Prism's
``language-none``, which name no language.

Prose set preformatted is the exception: a ``<pre>`` that nothing marks as code (no
language class, no ``<code>``, ``<samp>`` or ``<kbd>`` in it, no class of
:data:`CODE_CLASSES` on it or its ``<div>``), of three lines or more, over half of whose
characters are in lines that read as prose (:func:`prose_pre`: long lines of words, few
signs of code), stays a block of text as html 20 wrote it, its ``#`` lines escaped: a
mailing-list archive's message, an RFC, a text file shown as a page. Why: the chunker is
sane with a long fenced block (it
cuts one over the budget at its blank lines, then its sentences, then its words, as any
paragraph, and splits a chunk over the encoder window again; no character is lost), but
the answer is not: a chunk carries a slice of the block, a fence at one end at most, and
:func:`~citeline.answer.extractive.sentence_spans` reads the text after an opening fence
it sees as one unit to its end (the chunk that starts a page-long message would be quoted
whole, ~500 characters) and a closing fence it sees as an opening one (the text after it
too). Prose wants its sentences. A content rule can err: a bare ``<pre>`` of commands
that read as English (gnuplot's ``set style textbox transparent border lc "black"``) or
of a program's messages may pass for prose; it is then read as html 20 read it, no worse.
Measured: of the bundled HTML corpora's 2,205 ``<pre>``, 24 are marked as nothing, none
reads as prose (the EPUB's 47 are all Sphinx's); of Debian's HTML manuals, gnuplot's 1,008
(all bare) give 9, 6 of them paragraphs set preformatted and 3 command examples, MPICH's 666
give 7, all paragraphs, and the 28,866 of /usr/share/doc's pages here (643 bare) give 4,
the GFDL's text three times and one JavaScript example.

Dropped, never indexed (but a footnote or endnote, marked so by EPUB's ``epub:type``
or a ``doc-footnote``/``doc-endnote`` role, is text of the page wherever it is and
however it is hidden): scripts, styles, ``<nav>``, ``<aside>``, forms,
``<noscript>``, templates, embedded SVG/iframes, hidden elements, a heading's
permalink (a link to a place on the page whose text is only ``¶``, ``§``, ``#`` or
nothing visible, as Sphinx, MkDocs and rustdoc write), landmark roles for navigation, banners,
footers, search and complementary content, the page-level ``<header>`` and
``<footer>`` (one inside an ``<article>``, ``<section>`` or ``<main>`` is that
part's own and is kept, as HTML's landmark rule has it) and a ``<div>`` named as one
(``header``, ``page-header``, ``footer``, ``site-footer``: HTML 4's way to write them,
the Apache manual's frame, asciidoc's "Last updated" footer), unless it holds a heading
(Bootstrap's ``.page-header`` around the page's ``<h1>``, asciidoc's ``div#header`` with
the title and the NAME section) or half of the page's text, and elements whose class
or id names cookie banners, breadcrumbs, sidebars, navbars (DocBook's and
Publican's Prev / Up / Next bars too) or adverts — unless the name states a state
(``has-sidebar``, ``ads-free``), the element holds over half of the page's text
(``cookie-recipe`` on a recipe page), the name is an id the page's generator wrote
from its text (a heading's anchor, ``using-cookie-based-sessions``; a dotted API
path), or the element is a book's boxed aside (DocBook's ``<sidebar>``, a "sidebar"
holding its title page). When the page marks
its ``<main>`` content, only that is indexed: the first ``<main>`` (then
``role="main"``) that is shown, neither hidden itself nor inside a dropped part (a
page may keep other, hidden ``<main>`` elements, as a single-page app does).

The page's frame that no name marks is known by its shape, and dropped too: a language
bar (links to this page in other languages, each carrying an ``hreflang`` but the one to
the page's own language, which points at the same file; two languages or more; no more
words outside the links than a label's, "Available Languages:"), a table of contents of
the page (a list, not inside another list, whose every item is links to ``#places`` in
the page and nothing else, two or more: the Apache manual's ``ul#toc``, a section's list
of the questions it answers under their own headings, Sphinx's ``.. contents::``;
DocBook's ``dl.toc``, a ``<dl>`` of such links and nothing else, whose links name the
page's own file, ``mc-manual.html#mc-manual.overview``), with the title it stands under
when the element right before it says only that ("Table of Contents", "Contents"); a
DocBook navigation table (``summary="Navigation header"`` or ``"Navigation footer"``,
Valgrind's manual's Prev / Up / Home / Next, with no ``navheader`` around it); and a
breadcrumb trail (a ``<div>`` or ``<p>`` of three links or more joined by ``>``, ``›``,
``»`` or ``→``, and nothing else: "Apache > HTTP Server > Documentation"; ``path``, the
Apache manual's name for it, is too common a word to drop by). Each is made so as not to
take text: a list of links that a sentence introduces (the text before it ends with
":", "A Python logging configuration consists of four parts:") ends that sentence and is
kept, a list inside a list item is judged with its outer list (mdBook's summaries, whose
items name groups in plain text), and a trail must be links only. Kept, by choice: a "See
also" list beside the contents (the Apache manual's): its links are the writer's own
pointers to other pages, as those of a Sphinx ``seealso`` box in the text are, and no shape
tells it from a list of related pages a writer puts in the text; its heading makes a
section holding only those links, which ends at the page's first section, so it files no
other text under "See also".

API documentation's furniture, the controls a generator writes beside every item, is
dropped too (:func:`_api_furniture`), as it fills every function's chunk with the same
words: a link to the item's source whose only text is "Source", "[src]", "[source]" or
"Show Source", pointing at a page of the source or a file of code (rustdoc's
``src/.../map.rs.html``, Sphinx viewcode's ``_modules/``, a page's ``_sources/``, a
repository's ``blob/``), with no words around it in its parent ("download the source and
build it" keeps its link); pdoc's "View Source" label; rustdoc's version badge beside it
(``<span class="since">`` "1.0.0 (const: unstable)" in an item's ``rightside`` header) and
the "·" left between them; a ``<details>``' ``<summary>`` that only labels the toggle
("Expand description", "Show 76 methods", "Show more", "Collapse"), not one saying what it
opens (an FAQ's question, rustdoc's "This struct is marked as non-exhaustive"); and a
"Read more" link ending a line of text (rustdoc's, after a trait method's summary; "you can
read more." in a sentence stays). Kept: rustdoc's notes on an item ("This is a
nightly-only experimental API", "Available on crate feature std only", deprecation), which
are its text. Trade-off: the Rust release an item is stable since is lost with its badge.
Measured on rustdoc's std: HashMap's page 41,008 -> 39,559 characters (3.5%), it and 20
other pages 279,540 -> 255,877 (8.5%), every removed piece furniture; Django's topic guides
(eval/djangodocs) lose their 82 viewcode "[source]" links, nothing else.

Hidden text: what is indexed is the text a reader sees on the page and a screen
reader reads aloud, both, so a quote can be found on the page as shown. Hidden from
sight and dropped: ``hidden``, an inline ``display: none`` or ``visibility: hidden``,
and the screen-reader-only classes of :data:`VISUALLY_HIDDEN` (``sr-only``,
``visually-hidden``: skip links, "opens in a new tab", icons' labels, often glued to
the visible words beside them). Hidden from screen readers and dropped:
``aria-hidden="true"``, which marks decoration and duplicates (a carousel's cloned
slides) and, beside a stylesheet's class citeline does not read, closed menus and
dialogs. Kept: a closed ``<details>`` and ``hidden="until-found"`` (collapsed parts a
click, or a search in the page, opens). Not read: a page's stylesheets, so a class
that hides by them alone (Tailwind's ``hidden``, Bootstrap's ``d-none``, often undone
at another screen width) is kept.

Pictures: a web page's give no text (nor an e-mail body's from the web): the text indexed
is what a reader sees, and an ``alt`` is seen by none, while a page's pictures carry
the site's furniture (a logo, an avatar, a share button: "Company logo", "Twitter"), whose
alt texts the decorative rule below does not catch. An e-book's chapter
(:func:`read_page` with ``pictures``) reads them: its pictures are figures in the flow of
the book and their alt text is what a reader of the book who cannot see them gets (EPUB
Accessibility asks one of each). Such a picture's alt text is a line of its own, in the
paragraph the picture is in (a ``<figure>``'s, a paragraph of its own), unless it is
decorative or says nothing (:func:`image_text`): empty (``alt=""``), ``role="presentation"``
or ``"none"``, a file name (``image1.png``, as converters write), a word such as
``Cover``, ``Image 3`` or ``Figure``, or the text of its ``<figure>``'s caption again.
The text OCR reads in the picture (a scanned page, a screenshot; the EPUB extractor
reads it, and the e-mail one for a picture the message carries) follows as blocks of
their own; a picture in a table cell is read after its row, and an SVG's ``<image>`` (a
fixed-layout book's page) as an ``<img>``.

A page's language variant named for content negotiation, as Apache httpd serves them
and its manual is kept (``bind.html.en``, ``bind.html.ja.utf8``), is read as a page
(:func:`citeline.extract.type_suffix`).

An ``.xhtml`` file is XML, where ``<script/>`` or ``<iframe/>`` is an empty element;
an HTML parser reads it as an open tag that swallows the rest of the page, so such
self-closing tags are written out as an opening and a closing tag first.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import email
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

from citeline.errors import ExtractionError
from citeline.extract import read_bytes, register, variant_base
from citeline.extract.blocks import (
    TextBuilder,
    described,
    escape_markdown,
    fenced,
    prose_pre,
    roman,
    squash,
)
from citeline.extract.text import damaged_after_mark, undecodable, western_text
from citeline.types import Document

DROP_TAGS = frozenset(
    "script style nav aside form noscript template svg iframe button select textarea "
    "canvas object embed dialog menu head title".split()
)
DROP_ROLES = frozenset("navigation banner contentinfo complementary search".split())
# Class/id words that mark boilerplate on real sites; kept short on purpose,
# since a false match drops real content (e.g. "share" would hit "share-price").
BOILERPLATE_WORDS = frozenset(
    "cookie cookies consent breadcrumb breadcrumbs sidebar navbar advert advertisement ads "
    # the navigation bars documentation generators write around each page: DocBook XSL's
    # (PostgreSQL's manual, Debian's) and Publican's Prev / Up / Home / Next lists
    "navheader navfooter docnav".split()
)
# ... and words that make such a name a state, not a part: "has-sidebar" on the page's
# wrapper, "ads-free", "no-cookies".
STATE_WORDS = frozenset("has no is with without free".split())
# An element holding more than this share of the page's text is the content, whatever
# its class says ("cookie-recipe" on a recipe page).
BOILERPLATE_MAX_SHARE = 0.5
# A <header>/<footer> inside one of these is that part's own (HTML's rule for the
# banner and contentinfo landmarks), not the page's.
SECTIONING = frozenset("article aside main nav section".split())
# A <div> named for the page's header or footer is one, as HTML 4 pages (and generators
# that still write them) mark what <header> and <footer> became: the Apache manual's
# div#page-header and div#footer, asciidoc's div#footer ("Last updated ..."). These names
# only (case and separators aside: "page_header", "siteFooter"), on a <div> only: a
# "card-header", "table-header" or "entry-footer" is a part of the content, a
# <tr class="header"> a table's, mdBook's <a class="header"> a heading's link.
PAGE_PART_NAMES = frozenset(
    where + part for where in ("", "page", "site", "global") for part in ("header", "footer"))
# A block of links to this page in other languages ("Available Languages: en | fr | ko")
# has no more words outside its links than a label's ("This page is also available
# in:" is 6); a paragraph mentioning two translations is text.
LANGUAGE_LABEL_WORDS = 8
# A breadcrumb trail ("Apache > HTTP Server > Documentation") is drawn with these signs,
# not "/", "|" or ":", which join alternatives and labels in running text ("TCP/IP",
# "GET | POST"); and it has 3 links or more: two linked words with a ">" between them may
# be a comparison.
_CRUMB_SEPARATOR = re.compile(r"\s*[>\u203a\u00bb\u2192]\s*")
BREADCRUMB_MIN_LINKS = 3
# A table of contents' own title, the whole text of the element right before it: DocBook's
# "Table of Contents", docutils' "Contents"; dropped with it, or it would stand alone.
CONTENTS_TITLES = frozenset({"contents", "table of contents", "on this page", "page contents"})
# DocBook XSL's navigation tables say what they are in their summary (Valgrind's manual,
# whose tables carry no navheader class around them: "Prev | Up | Home | Next").
NAV_TABLE_SUMMARIES = frozenset({"navigation header", "navigation footer"})
# Inline elements that may wrap one crumb's link (schema.org's <span itemprop=...>).
_CRUMB_WRAPPERS = frozenset("span b strong em i small code".split())
# API documentation's furniture, written beside every item (:func:`_api_furniture`). A link
# to the item's source code says only this (rustdoc's "Source", older rustdoc's "[src]",
# Sphinx viewcode's "[source]", "Show Source" to a page's reST) ...
SOURCE_LINK_TEXTS = frozenset({"source", "[source]", "src", "[src]", "view source",
                               "[view source]", "show source"})
# ... and points at the source: a page of it (rustdoc's src/std/.../map.rs.html, Javadoc's
# src-html/, Sphinx's _modules/ and _sources/, a repository's blob/), or a file of code.
_SOURCE_HREF = re.compile(
    r"(?:^|/)(?:src|src-html|_modules|_sources|blob)/|\.(?:rs|py|pyx|c|cc|cpp|h|hpp|go|java|"
    r"kt|scala|js|mjs|ts|rb|php|pl|lua|swift|hs|ml|ex|exs)(?:\.html)?(?:[#?]|$)", re.I)
# rustdoc's version badge beside it, <span class="since">: the Rust release an item is stable
# since, and the one its const use is ("1.0.0", "1.0.0 (const: unstable)", "const: 1.83.0"),
# in the item's header (<span class="rightside">, the page title's "sub-heading").
_VERSION = r"\d+(?:\.\d+)+"
_SINCE_BADGE = re.compile(rf"{_VERSION}(?: \(const: (?:unstable|{_VERSION})\))?|"
                          rf"const: (?:unstable|{_VERSION})")
RUSTDOC_HEADER_CLASSES = frozenset({"rightside", "sub-heading"})
# A <details>' <summary> that only labels the toggle ("Expand description", rustdoc's
# "Show 76 methods", "Show more", "Collapse"), not one stating what it opens (an FAQ's
# question, rustdoc's "This struct is marked as non-exhaustive").
_TOGGLE_LABEL = re.compile(
    r"(?:click (?:here )?to )?(?:expand|collapse|show|hide|toggle)"
    r"(?: (?:all|more|less|details|description|\d+ (?:more )?[^\W\d_]+))?", re.I)
# A "Read more" link ending a summary line (rustdoc's, after a trait method's first line).
_READ_MORE = re.compile(r"\W*read more\W*", re.I)
# Marks around a toggle's label: "Show more \u25be", "\u25b8 Expand", "Read more\u2026".
_EDGE_MARKS = re.compile(r"^[\W_]+|[\W_]+$")
# A list item inside another list is indented by its parent item's mark ("2. ": 3 spaces),
# as a Markdown writer indents it; an unordered item draws no bullet, but is indented as
# under a writer's "- ".
UNORDERED_INDENT = 2
HEADINGS = {f"h{n}": n for n in range(1, 7)}
BLOCK_TAGS = frozenset(
    "p div section article main li ul ol dl dt dd blockquote figure figcaption table thead "
    "tbody tfoot caption address details summary hr center fieldset legend body html".split()
)
# Enough of the file to find a <meta charset> (the HTML standard looks at 1024 bytes).
CHARSET_SNIFF_BYTES = 2048
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
# Files saved under an .html name that are something else (a page fetched compressed and
# saved as sent, a PDF or an archive behind a link): said so, not "not valid utf-8 ...
# declare the page's charset", which sends the reader looking for a charset.
_NOT_HTML = (
    (b"\x1f\x8b", "a gzip-compressed file (a page saved as the server sent it)",
     "decompress it with gunzip"),
    (b"%PDF-", "a PDF document", "name it .pdf"),
    (b"PK\x03\x04", "a ZIP archive or an Office document", "unpack it or give it its own suffix"),
)
# An XML declaration's encoding, which can only open the file.
_XML_ENCODING = re.compile(rb"""<\?xml\s[^>]*?\bencoding\s*=\s*["']\s*([A-Za-z0-9._:-]+)""")
_WORDS = re.compile(r"[\s_-]+")
_TEXT_WORDS = re.compile(r"[^\W_]+")  # a heading's words, as a slug of it keeps them
# The classes a page's stylesheet uses to hide text from sight while a screen reader
# still reads it: Bootstrap's and Tailwind's sr-only, Bootstrap 5's and Drupal's
# visually-hidden, HTML5 Boilerplate's visuallyhidden, WordPress's screen-reader-text,
# Drupal 7's element-invisible, Foundation's show-for-sr, GOV.UK's and jQuery UI's own.
# Such text is no part of the page a reader sees: a skip link, "(opens in a new tab)",
# an icon's label, a "Warning" glued to the visible sentence ("WarningYou can be fined").
VISUALLY_HIDDEN = frozenset(
    "sr-only visually-hidden visually-hidden-focusable visuallyhidden screen-reader-text "
    "screen-reader-only element-invisible show-for-sr govuk-visually-hidden "
    "ui-helper-hidden-accessible".split())
# An inline style that hides its element (a closed modal, a collapsed menu).
_STYLE_HIDDEN = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b", re.I)
# A table cell holding a heading or a table of its own is page layout (the 1990s'
# way to put a menu beside the text), not a data cell: its blocks are read as blocks.
_HEADING_TAGS = "h1, h2, h3, h4, h5, h6"
_LAYOUT = f"{_HEADING_TAGS}, table"
_WS = re.compile(r"\s+")
_RUN_OF_SPACES = re.compile(r"  +")
# A permalink beside a heading or a definition (Sphinx's and MkDocs' "¶" headerlink,
# rustdoc's "§", VuePress's "#", Docusaurus's zero-width hash-link): a link to its own
# place in the page, shown on hover, not part of the title. Known by its target (a
# fragment of this page) and its text, one of these marks or nothing visible.
PERMALINK_MARKS = frozenset({"", "\u00b6", "\u00a7", "#", "\U0001f517", "\u2693"})
# Characters a browser shows as nothing inside a word: a soft hyphen (&shy;, a line-break
# hint for long compounds), a zero-width space (&#8203;, a break hint in URLs and
# identifiers), a word joiner, a stray byte-order mark. Kept, they cut the word in two
# for BM25 ("Donau\u00addampf" is "donau" and "dampf") and for a needle's match.
_INVISIBLE = re.compile("[\u00ad\u200b\u2060\ufeff]")
_BR = "\n"
# An XML self-closing tag (attribute values quoted with either quote, or bare), and the
# HTML elements that are empty anyway (their "/>" is harmless).
_SELF_CLOSING = re.compile(
    r"""<([A-Za-z][\w:.-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*/>""")
VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr keygen".split())
# An ordered list's numbering (HTML's <ol type> and <li type>, or an inline style's
# list-style-type): "1." a browser shows before an item is part of what the reader sees,
# and what "step 3" in a question refers to.
_HTML_INT = re.compile(r"\s*([-+]?\d+)")  # HTML's rules for parsing integers: "3rd" is 3
_LIST_STYLE = re.compile(r"list-style(?:-type)?\s*:\s*([a-z-]+)", re.I)
_STYLE_TYPES = {"decimal": "1", "lower-alpha": "a", "lower-latin": "a", "upper-alpha": "A",
                "upper-latin": "A", "lower-roman": "i", "upper-roman": "I", "none": ""}
ROMAN_MAX = 3999  # CSS's roman counters stop here and fall back to decimal
# Roles that make a picture decoration, whatever its alt says (ARIA: "presentation" and
# its synonym "none" remove it from what a screen reader reads).
DECORATIVE_ROLES = frozenset({"presentation", "none"})
# A <pre>'s language, as the page names it in a class: "language-python", the HTML
# standard's convention for <code> (highlight.js, Prism, Pandoc, mdBook; MkDocs writes
# it on the <div class="highlight"> around the <pre>), or prettify's "lang-python" (the
# Apache manual's <pre class="prettyprint lang-config">) ...
_LANGUAGE_CLASS = re.compile(r"(?:language|lang)-(.+)")
# ... Sphinx's <div class="highlight-python"> around Pygments' <div class="highlight"> ...
_SPHINX_LANGUAGE = re.compile(r"highlight-(.+)")
# ... rustdoc's <pre class="rust">, and Pandoc's <pre class="sourceCode python"> (its
# highlighted blocks: the language is the class beside "sourceCode").
RUSTDOC_CLASS = "rust"
PANDOC_CLASS = "sourcecode"
# Class names that name no language: Prism's language-none, Sphinx's highlight-none, and
# Sphinx's highlight-default (the project's highlight_language, which the page does not say).
NO_LANGUAGE = frozenset({"none", "default"})
# A <pre> is code when its markup says so: a language (above), a <code>, <samp> (a
# program's output) or <kbd> (what is typed) inside it, or a class the generators that
# write code blocks give it or the <div> around it: DocBook's programlisting, screen and
# synopsis (PostgreSQL's manual, Debian's), Texinfo's example, smallexample, lisp and
# verbatim, rustdoc's rust, prettify's prettyprint, Pandoc's sourceCode, Pygments'
# highlight and codehilite (Sphinx, MkDocs).
_CODE_ELEMENTS = "code, samp, kbd"
CODE_CLASSES = frozenset(
    "programlisting screen synopsis example smallexample lisp verbatim rust prettyprint "
    "sourcecode highlight codehilite".split())


def open_self_closing(xhtml: str) -> str:
    """XHTML's ``<tag .../>`` of a non-empty HTML element as ``<tag ...></tag>``.

    >>> open_self_closing('<p>a<script src="x.js"/>b<br/><a id="n" />c</p>')
    '<p>a<script src="x.js"></script>b<br/><a id="n"></a>c</p>'
    """
    def expand(m: re.Match[str]) -> str:
        tag = m.group(1)
        if tag.rsplit(":", 1)[-1].lower() in VOID_TAGS:
            return m.group(0)
        return f"<{tag}{m.group(2)}></{tag}>"

    return _SELF_CLOSING.sub(expand, xhtml)


def decode_html(data: bytes, rel: str, xhtml: bool = False) -> tuple[str, str]:
    """Bytes -> (text, a warning or ""): BOM, then the declared charset, then UTF-8, then
    Windows-1252 for Western European text; a clear error otherwise.

    A page declares its charset in a ``<meta charset>`` (or ``http-equiv``) tag; an XML
    page (XHTML, an EPUB's chapters) in its ``<?xml ... encoding="..."?>`` declaration,
    which XML reads first, and which an HTML page without a ``<meta>`` may carry too. A
    page declaring none, not UTF-8, is read as Windows-1252 as a browser in Western
    Europe reads it, when it is Western European text (:func:`western_text`), with a
    warning saying so; another legacy encoding is refused, never shown garbled.
    """
    # UTF-32's marks before UTF-16's: UTF-32LE's FF FE 00 00 starts with UTF-16LE's FF FE,
    # and read as UTF-16 its every tag is text ("<\x00p\x00>" is no tag)
    for bom, enc, name in ((codecs.BOM_UTF8, "utf-8", "UTF-8"),
                           (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
                           (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
                           (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
                           (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16")):
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(enc), ""
            except UnicodeDecodeError as exc:  # refused, as bytes breaking a declared charset
                # are (each was indexed as U+FFFD, with no word that anything was wrong)
                raise ExtractionError(rel, damaged_after_mark(
                    name, undecodable(data, enc, exc, len(bom)))) from exc
    for magic, what, fix in _NOT_HTML:
        if data.startswith(magic):
            raise ExtractionError(rel, f"not an HTML page but {what}; {fix}")
    if b"\x00" in data:  # before decoding: a binary file is no page in any charset
        raise ExtractionError(rel, "contains NUL bytes: binary, or UTF-16 without a byte-order "
                                   "mark; save the page as UTF-8")
    enc = "utf-8"
    head = data[:CHARSET_SNIFF_BYTES]
    meta, xml = _META_CHARSET.search(head), _XML_ENCODING.match(head)
    found = (xml or meta) if xhtml else (meta or xml)
    if found:
        declared = found.group(1).decode("ascii").lower()
        try:
            enc = codecs.lookup(declared).name
        except LookupError:
            enc = "utf-8"
        # The HTML standard reads these labels as windows-1252; and a UTF-16 or UTF-32
        # label found by this ASCII scan is wrong (such a page holds no ASCII bytes), so
        # it reads UTF-8.
        if enc in ("latin-1", "iso8859-1", "ascii"):
            enc = "cp1252"
        elif enc.startswith(("utf-16", "utf-32")):
            enc = "utf-8"
    try:
        text = data.decode(enc)
    except UnicodeDecodeError as exc:
        where = undecodable(data, enc, exc)
        if found:
            what = "XML declaration" if found is xml else "<meta charset>"
            reason = (f"not valid {enc}, the charset its {what} declares (undecodable {where}); "
                      "correct the declaration, or save the page in that charset")
            raise ExtractionError(rel, reason) from exc
        legacy, seen = western_text(data)
        if legacy is None:
            raise ExtractionError(rel, f"not valid {enc} (undecodable {where}), nor Western "
                                       f"European text (Windows-1252): {seen}; declare the "
                                       "page's charset") from exc
        return legacy, (f"no charset declared, and not UTF-8: read as Windows-1252, Western "
                        f"European, as a browser there reads it ({seen}); if accented letters "
                        "look wrong, declare the page's charset")
    return text, ""


def _classes(node: LexborNode | None) -> list[str]:
    return (node.attributes.get("class") or "").lower().split() if node is not None else []


def _language_class(pre: LexborNode) -> str | None:
    """The language a class names for a ``<pre>``'s code (lower-cased, as written:
    ``"none"`` too), or None when no class names one; see :data:`_LANGUAGE_CLASS` and
    after. Looked for on the ``<pre>``, its ``<code>``, the highlighter's
    ``<div class="highlight">`` around it and the ``<div>`` around that (Sphinx's,
    Jekyll's), never in the code itself."""
    code = next((c for c in pre.iter() if c.tag == "code"), None)
    wrapper = pre.parent if "highlight" in _classes(pre.parent) else None
    outer = wrapper.parent if wrapper is not None else None
    for node in (pre, code, wrapper, outer):
        classes = _classes(node)
        for name in classes:
            if m := _LANGUAGE_CLASS.fullmatch(name):
                return m.group(1)
        if node is not outer and PANDOC_CLASS in classes and len(classes) > 1:
            return next(c for c in classes if c != PANDOC_CLASS)
    if RUSTDOC_CLASS in _classes(pre):
        return RUSTDOC_CLASS
    for name in _classes(outer):
        if m := _SPHINX_LANGUAGE.fullmatch(name):
            return m.group(1)
    return None


def pre_language(pre: LexborNode) -> str:
    """The language a page names for a ``<pre>``'s code, for its fence's info string, or
    "" (none named, or one naming no language: :data:`NO_LANGUAGE`).

    >>> pre = LexborHTMLParser('<div class="highlight-python notranslate"><div '
    ...                        'class="highlight"><pre>x = 1</pre></div></div>').css_first("pre")
    >>> pre_language(pre)
    'python'
    """
    name = _language_class(pre)
    return "" if name is None or name in NO_LANGUAGE else name


def _marked_as_code(pre: LexborNode) -> bool:
    """Whether a ``<pre>``'s markup says it holds code (see :data:`CODE_CLASSES`)."""
    return _language_class(pre) is not None or pre.css_first(_CODE_ELEMENTS) is not None \
        or any(c in CODE_CLASSES for c in (*_classes(pre), *_classes(pre.parent)))


def _html_int(value: str | None) -> int | None:
    m = _HTML_INT.match(value or "")
    return int(m.group(1)) if m else None


def list_label(n: int, kind: str) -> str:
    """An ordered list item's mark as a browser draws it: its number ``n`` in the list's
    ``type`` ("1", "a", "A", "i", "I"; "" draws none).

    >>> [list_label(n, k) for n, k in ((3, "1"), (28, "a"), (14, "I"), (0, "i"), (2, ""))]
    ['3. ', 'ab. ', 'XIV. ', '0. ', '']
    """
    if not kind:
        return ""
    mark = str(n)
    if kind in "aA" and n > 0:
        mark = ""
        while n:
            n, r = divmod(n - 1, 26)
            mark = chr(ord("a") + r) + mark
    elif kind in "iI" and 0 < n <= ROMAN_MAX:
        mark = roman(n)
    return (mark.upper() if kind in "AI" else mark) + ". "


def _list_type(node: LexborNode, inherited: str) -> str:
    """The numbering an <ol> or <li> asks for: its inline style, else its type attribute."""
    attrs = node.attributes
    if (m := _LIST_STYLE.search(attrs.get("style") or "")) and m.group(1).lower() in _STYLE_TYPES:
        return _STYLE_TYPES[m.group(1).lower()]
    kind = (attrs.get("type") or "").strip()
    return kind if kind in ("1", "a", "A", "i", "I") else inherited


def _is_note(attrs: dict) -> bool:
    """Whether an element is a footnote or endnote by its semantics (EPUB 3's
    ``epub:type``, DPUB-ARIA's ``role``): an e-book puts each note in an ``<aside>``,
    often hidden until its reference is tapped, and it is the book's text."""
    kinds = f"{attrs.get('epub:type') or ''} {attrs.get('role') or ''}".lower().split()
    return any(k in _NOTE_KINDS for k in kinds)


_NOTE_KINDS = frozenset("footnote footnotes endnote endnotes rearnote rearnotes note "
                        "doc-footnote doc-endnote doc-endnotes".split())


def _holds_notes_only(node: LexborNode) -> bool:
    """Whether an element is a list of notes: it has element children, and each is a
    note (:func:`_is_note`). Docutils (Sphinx 5+, its EPUBs too) wraps a page's footnotes
    in an ``<aside class="footnote-list">`` with no role of its own; dropped as an aside, it
    took every note inside with it, while their ``[3]`` marks stayed in the text."""
    children = [c for c in node.iter() if c.tag and not c.tag.startswith("-")]  # no comments
    return bool(children) and all(_is_note(c.attributes) for c in children)


def _dropped(node: LexborNode, in_section: bool, page_chars: int,
             furniture: frozenset[int]) -> bool:
    """Whether the walk leaves ``node`` out (see the module doc); a note, or a list of
    notes, never (its children are looked at only for an element that would go).
    ``furniture``: the page's frame known by its shape (:func:`_furniture`)."""
    return _drops(node, in_section, page_chars, furniture) and not _holds_notes_only(node)


def _drops(node: LexborNode, in_section: bool, page_chars: int,
           furniture: frozenset[int]) -> bool:
    tag = node.tag
    if _is_note(node.attributes):
        return False
    if tag in DROP_TAGS or node.mem_id in furniture:
        return True
    if tag in ("header", "footer") and not in_section:
        return True
    attrs = node.attributes
    if (attrs.get("role") or "").strip().lower() in DROP_ROLES:
        return True
    # hidden="until-found" is a collapsed part (an accordion's) that the browser opens
    # when a search finds text in it: kept, as a closed <details> is
    if "hidden" in attrs and (attrs.get("hidden") or "").strip().lower() != "until-found":
        return True
    if (attrs.get("aria-hidden") or "").strip().lower() == "true":
        return True
    if _STYLE_HIDDEN.search(attrs.get("style") or ""):
        return True
    classes = (attrs.get("class") or "").lower().split()
    if VISUALLY_HIDDEN.intersection(classes):
        return True
    if tag == "a" and (attrs.get("href") or "").startswith("#") and \
            _INVISIBLE.sub("", squash(node.text())) in PERMALINK_MARKS:
        return True
    ids = (attrs.get("id") or "").lower().split()
    if tag == "div" and not in_section and \
            any(_WORDS.sub("", n) in PAGE_PART_NAMES for n in (*classes, *ids)) and \
            node.css_first(_HEADING_TAGS) is None and \
            len(squash(node.text())) <= BOILERPLATE_MAX_SHARE * page_chars:
        return True  # a page's header or footer by name; one holding a heading titles
        # the content (Bootstrap's .page-header, asciidoc's div#header with its <h1>)
    named = any(_boilerplate_name(n) for n in classes) or \
        any(_boilerplate_name(n) and not _anchor_id(node, n) for n in ids)
    return named and not _book_sidebar(node, classes) and \
        len(squash(node.text())) <= BOILERPLATE_MAX_SHARE * page_chars


def _book_sidebar(node: LexborNode, classes: list[str]) -> bool:
    """Whether an element named "sidebar" is a book's boxed aside, DocBook's ``<sidebar>``
    ("TIP", "BACK TO BASICS", "CAUTION" boxes), not a web page's column of links: the
    DocBook XSL stylesheets (and Publican, which builds on them) write one as
    ``<div class="sidebar">`` holding its title in a ``<div class="titlepage">``, a
    class those stylesheets give titled elements and sites do not. The Debian
    Administrator's Handbook has 199 of them in 28 pages, 27% of its text (found writing
    eval/debhandbook)."""
    return "sidebar" in classes and any(
        child.tag == "div" and "titlepage" in (child.attributes.get("class") or "").split()
        for child in node.iter())


def _anchor_id(node: LexborNode, ident: str) -> bool:
    """Whether an id is a place in the page's text rather than the name of a part: a
    dotted API path (Sphinx's ``django.contrib.sessions...set_test_cookie`` on a method's
    signature) or the anchor of the heading the element is or holds, its words the
    heading's, less a letter or number it adds (``s-using-cookie-based-sessions`` on
    Django's section headed "Using cookie-based sessions"). Generators write such ids from the text; a page's author names a banner
    or a sidebar. Trade-off: a cookie banner whose only name is an id that is also its
    own heading's (``<div id="cookies"><h2>Cookies</h2>``) is kept; its class, role or
    tag (a ``<dialog>``) still drops it."""
    if "." in ident:
        return True
    head = node if node.tag in HEADINGS else node.css_first(_HEADING_TAGS)
    if head is None:
        return False
    # a letter or a number is the generator's own (Django's "s-" prefix, "cookies-1")
    words = {w for w in _WORDS.split(ident) if len(w) > 1 and not w.isdigit()}
    return bool(words) and words <= set(_TEXT_WORDS.findall(head.text().lower()))


def image_text(node: LexborNode) -> str:
    """An ``<img>``'s alt text as a reader of the page who cannot see it gets it, or ""
    when it is decorative or describes nothing (see the module doc): ``alt=""``,
    ``role="presentation"``, a file name, a bare word such as ``Cover`` or ``Image 3``,
    or its ``<figure>``'s caption again (read once, as the caption)."""
    attrs = node.attributes
    alt = squash(_INVISIBLE.sub("", attrs.get("alt") or ""))
    if not described(alt) or (attrs.get("role") or "").strip().lower() in DECORATIVE_ROLES:
        return ""
    up = node.parent
    while up is not None and up.tag != "figure":
        up = up.parent
    caption = up.css_first("figcaption") if up is not None else None
    if caption is not None and squash(_INVISIBLE.sub("", caption.text())).casefold() == \
            alt.casefold():
        return ""
    return alt


def _furniture(root: LexborNode, names: frozenset[str] = frozenset()) -> frozenset[int]:
    """The page's frame that no name marks, known by its shape (see the module doc): its
    language bars, its own tables of contents (with their "Table of Contents" titles),
    its breadcrumb trails, DocBook's navigation tables, and API documentation's furniture
    (:func:`_api_furniture`); each element's ``mem_id``. ``names``: the page's own file
    names, which a link to a place in it may give ("mc-manual.html#overview", as DocBook
    writes them). Looked for once per page, from the elements each starts from (a link
    with ``hreflang``, a list, a ``<div>`` or ``<p>``), not by the walk at every element."""
    found: set[int] = set()
    bars: dict[int, bool] = {}  # an element's _language_bar, asked once
    for link in root.css("a[hreflang]"):
        bar, up = None, link.parent
        while up is not None and up.tag not in ("body", "html"):
            if up.mem_id not in bars:
                bars[up.mem_id] = _language_bar(up)
            if bars[up.mem_id]:
                bar = up  # the outermost of the elements around the link that are a bar
            elif bar is not None:
                break
            up = up.parent
        if bar is not None:
            found.add(bar.mem_id)
    for contents in root.css("ul, ol, dl"):
        if _page_contents(contents, names):
            found.add(contents.mem_id)
            if (title := _contents_title(contents)) is not None:
                found.add(title.mem_id)
    found.update(n.mem_id for n in root.css("div, p") if _breadcrumb(n))
    found.update(n.mem_id for n in root.css("table[summary]")
                 if squash(n.attributes.get("summary") or "").casefold() in NAV_TABLE_SUMMARIES)
    found.update(_api_furniture(root))
    return frozenset(found)


def _shown_text(node: LexborNode) -> str:
    return squash(_INVISIBLE.sub("", node.text()))


def _own_text(node: LexborNode) -> str:
    """The text of an element's text children, not of the elements inside it."""
    return "".join(c.text_content or "" for c in node.iter(include_text=True)
                   if c.tag == "-text")


def _source_link(link: LexborNode) -> bool:
    """Whether a link is one to its item's source code (:data:`SOURCE_LINK_TEXTS`,
    :data:`_SOURCE_HREF`), standing apart: the text around it in its parent has no
    letters, so "download the <a href='src/'>source</a> and build it" keeps its word."""
    return _SOURCE_HREF.search(link.attributes.get("href") or "") is not None and \
        _shown_text(link).casefold() in SOURCE_LINK_TEXTS and \
        link.parent is not None and not _letters(_own_text(link.parent))


def _read_more(link: LexborNode) -> bool:
    """Whether a link is a "Read more" ending a line of text: text before it in its parent,
    none after it (a sentence's "you can <a>read more</a>." goes on with its full stop)."""
    if not _READ_MORE.fullmatch(_shown_text(link)):
        return False
    after, before = link.next, link.prev
    while after is not None:
        if (after.tag == "-text" or not (after.tag or "-").startswith("-")) and \
                squash(after.text()):
            return False
        after = after.next
    while before is not None and not (before.tag != "-comment" and _letters(before.text())):
        before = before.prev
    return before is not None


def _api_furniture(root: LexborNode) -> set[int]:
    """The controls API documentation generators write beside every item, each element's
    ``mem_id`` (see the module doc): links to the source, rustdoc's version badges, toggle
    labels, "Read more" links; and a ``<span>`` they leave holding only marks (rustdoc's
    "1.0.0 · Source" leaves its "·")."""
    nodes = [a for a in root.css("a[href]") if _source_link(a) or _read_more(a)]
    nodes += [s for s in root.css("span.since")
              if s.parent is not None and _SINCE_BADGE.fullmatch(_shown_text(s))
              and RUSTDOC_HEADER_CLASSES.intersection(_classes(s.parent))]
    nodes += [s for s in root.css("details > summary")
              if _TOGGLE_LABEL.fullmatch(_EDGE_MARKS.sub("", _shown_text(s)))]
    # pdoc's "View Source": a <label> for the checkbox that shows the item's source listing
    nodes += [lb for lb in root.css("label[for]")
              if _shown_text(lb).casefold() in SOURCE_LINK_TEXTS]
    found = {n.mem_id for n in nodes}
    for up in {n.parent.mem_id: n.parent for n in nodes if n.parent is not None}.values():
        if up.tag == "span" and not _letters(_own_text(up)) and all(
                c.mem_id in found for c in up.iter() if not (c.tag or "-").startswith("-")):
            found.add(up.mem_id)
    return found


def _words(text: str) -> int:
    return len(_TEXT_WORDS.findall(text))


def _language_bar(node: LexborNode) -> bool:
    """Whether an element is a list of links to its page in other languages: two links or
    more, each carrying the ``hreflang`` of the language it is in, but for the page's own
    language's (a generator writes none on it: it is no alternate), which points at the
    same file as one of them; two languages or more; no more words outside the links than
    a label's (:data:`LANGUAGE_LABEL_WORDS`). The Apache manual's toplang and bottomlang
    bars, with "en" and "fr" links to ``../../en/bind.html`` and ``../../fr/bind.html``."""
    links = node.css("a[href]")
    tagged = [a for a in links if (a.attributes.get("hreflang") or "").strip()]
    if len(links) < 2 or not tagged:
        return False
    pages = {_page_file(a) for a in tagged}
    own = [a for a in links if not (a.attributes.get("hreflang") or "").strip()]
    if any(_page_file(a) not in pages for a in own):
        return False
    langs = {(a.attributes.get("hreflang") or "").strip().lower() for a in tagged}
    label = _words(node.text(separator=" ")) - sum(_words(a.text(separator=" ")) for a in links)
    return len(langs) + bool(own) >= 2 and label <= LANGUAGE_LABEL_WORDS


def _page_file(link: LexborNode) -> str:
    """The file a link points at, less its folders, query, fragment and, for a language
    variant (``bind.html.fr``), its language: ``../fr/bind.html#x`` -> ``bind.html``."""
    href = (link.attributes.get("href") or "").split("#")[0].split("?")[0]
    name = href.rstrip("/").rsplit("/", 1)[-1].lower()
    return variant_base(name) or name


def _fragment_link(link: LexborNode, names: frozenset[str] = frozenset()) -> bool:
    """Whether a link is to a place in its own page: ``#place``, or ``page.html#place``
    where ``page.html`` is one of the page's own ``names``."""
    page, _, place = (link.attributes.get("href") or "").strip().partition("#")
    return bool(place) and (not page or page in names)


def _contents_title(contents: LexborNode) -> LexborNode | None:
    """The title a table of contents stands under, when the element just before it (the
    nearest earlier sibling with text) says only that: DocBook's "Table of Contents",
    docutils' "Contents" (:data:`CONTENTS_TITLES`)."""
    prev = _text_before(contents)
    if prev is None or prev.tag == "-text":
        return None
    return prev if squash(prev.text()).casefold().rstrip(":") in CONTENTS_TITLES else None


def _letters(text: str) -> int:
    return sum(len(w) for w in _TEXT_WORDS.findall(text))


def _page_contents(node: LexborNode, names: frozenset[str] = frozenset()) -> bool:
    """Whether a list is a table of contents of its own page: every item of it (items of
    lists inside them too) is links to places in the page (:func:`_fragment_link`) and
    nothing else, two of them or more. The Apache manual's ``ul#toc`` of each page's
    sections, Sphinx's ``.. contents::`` list, DocBook's ``dl.toc`` of a page's sections
    (a ``<dl>`` of such links and nothing else: a glossary's terms have definitions). Not
    one inside a list item (the outer list decides: mdBook's summary of a page, "API
    compatibility" over its linked entries, is read whole), nor one a sentence introduces,
    its previous text ending with ":" ("A Python logging configuration consists of four
    parts:" over four links, in Django's guide): that list ends the sentence, whatever it
    links to."""
    up = node.parent
    while up is not None:
        if up.tag in ("li", "dd"):
            return False
        up = up.parent
    links = [a for a in node.css("a[href]") if _fragment_link(a, names)]
    if len(links) < 2:
        return False
    if node.tag == "dl":
        if _letters(node.text()) != sum(_letters(a.text()) for a in links):
            return False
    else:
        items = node.css("li")
        if len(items) < 2:
            return False
        for item in items:
            letters = _letters(item.text())
            if not letters or letters != sum(_letters(a.text()) for a in item.css("a[href]")
                                             if _fragment_link(a, names)):
                return False
    return not _introduced(node)


def _text_before(node: LexborNode) -> LexborNode | None:
    """The nearest earlier sibling of an element that has text, a text node or an element
    (comments aside); None when none has."""
    prev = node.prev
    while prev is not None:
        if (prev.tag == "-text" or not (prev.tag or "-").startswith("-")) and \
                squash(prev.text()):
            return prev
        prev = prev.prev
    return None


def _introduced(node: LexborNode) -> bool:
    """Whether the text just before an element, in its parent (:func:`_text_before`), ends
    with ":". Not the text before its parent: the Apache manual's contents box follows an
    introduction ending "A typical implementation is below:" over a picture."""
    prev = _text_before(node)
    return prev is not None and squash(prev.text()).endswith(":")


def _breadcrumb(node: LexborNode) -> bool:
    """Whether a ``<div>`` or ``<p>`` is a breadcrumb trail by its shape: links, each alone
    or in an inline element of its own, joined by ``>``, ``›``, ``»`` or ``→``
    (:data:`_CRUMB_SEPARATOR`), and nothing else; :data:`BREADCRUMB_MIN_LINKS` or more.
    The Apache manual's ``div#path``: "Apache > HTTP Server > Documentation > Version 2.4",
    a name ("path") too common to say so. A trail ending in the page's own title as plain
    text is not known so (a path of menus in a sentence may end so); its name, when it
    has one (``breadcrumb``), still drops it."""
    pieces = []
    for child in node.iter(include_text=True):
        tag = child.tag or ""
        if tag == "-text":
            pieces.append(child.text_content or "")
        elif tag == "a" or tag in _CRUMB_WRAPPERS and len(child.css("a")) == 1 and \
                _letters(child.text()) == _letters(child.css_first("a").text()):
            if not _letters(child.text()):
                return False  # a picture's link (an "up" arrow): no crumb
            pieces.append("\0")
        elif not tag.startswith("-"):  # comments aside, any other element is no crumb
            return False
    crumbs = _CRUMB_SEPARATOR.split(squash("".join(pieces)))
    return len(crumbs) >= BREADCRUMB_MIN_LINKS and all(c == "\0" for c in crumbs)


def _boilerplate_name(name: str) -> bool:
    """Whether one class or id names a boilerplate part ("cookie-banner", "sidebar")."""
    words = set(_WORDS.split(name))
    return bool(words & BOILERPLATE_WORDS) and not words & STATE_WORDS


def _main(tree: LexborHTMLParser, furniture: frozenset[int]) -> LexborNode | None:
    """The page's shown main content: the first ``<main>``, then ``role="main"``, that
    is neither dropped (hidden, boilerplate) nor inside a dropped element."""
    top = tree.body or tree.root
    page_chars = len(squash(top.text())) if top is not None else 0
    for node in (*tree.css("main"), *tree.css("[role=main]")):
        up: LexborNode | None = node
        while up is not None and up.tag not in ("body", "html"):
            if _dropped(up, True, page_chars, furniture):
                break
            up = up.parent
        else:
            return node
    return None


# What read_page's ``page_break`` makes of an element: None, an element like any other;
# else the text written in its place (an e-book's mark for where a printed page begins)
# and whether its own content is read after it.
PageBreak = Callable[[LexborNode], tuple[str, bool] | None]


class _Walker:
    """Turn the kept DOM into blocks of text, in document order."""

    def __init__(self, page_chars: int, pictures: Callable[[str], str | None] | None = None,
                 page_break: PageBreak | None = None,
                 furniture: frozenset[int] = frozenset()) -> None:
        self.pictures = pictures  # read_page's: None, pictures give no text
        self.page_break = page_break  # read_page's: None, no element is one
        self.furniture = furniture  # the page's frame known by its shape (_furniture)
        self.blocks: list[str] = []
        self.buf: list[str] = []
        self.page_chars = page_chars  # the walked root's text, for _dropped's share
        self.mark = ""  # an ordered list item's "3. ", until its first block takes it
        self.mark_indent = ""  # the indentation of the item whose mark that is
        self.indent = ""  # the current list item's blocks' indentation
        self.inner = ""  # ... and that of the items of a list inside it

    def flush(self) -> None:
        # spaces meeting across elements are one, as a browser shows them ("Price " and
        # " 5" around a dropped or empty <span>)
        lines = (_RUN_OF_SPACES.sub(" ", ln).strip() for ln in "".join(self.buf).split(_BR))
        text = "\n".join(ln for ln in lines if ln)
        self.buf = []
        if text:
            self.add_block(text)

    def add_block(self, text: str) -> None:
        """A block of text (not a heading, not a <pre>), after the mark it opens with and
        indented as its list item is: its first line only, as Markdown lets a paragraph's
        later lines be, so the text a page shows stays whole in the block."""
        indent = self.mark_indent if self.mark else self.indent
        self.blocks.append(indent + escape_markdown(self.take_mark() + text))

    def add_pre(self, pre: LexborNode, text: str) -> None:
        """A ``<pre>``'s text as a fenced code block, its language the info string; or,
        prose that nothing marks as code (:func:`prose_pre`), as a block of text. Neither
        is indented in a list item: a fence indented four spaces is none, and its lines
        would have to be indented as far, which the page does not show. An item's number
        opening it is a line of its own above the fence (``2.``), as no fence opens
        after one."""
        if not _marked_as_code(pre) and prose_pre(text):
            self.blocks.append(escape_markdown(self.take_mark() + text))
            return
        mark = self.take_mark().rstrip()
        block = fenced(text, pre_language(pre))
        self.blocks.append(f"{mark}\n{block}" if mark else block)

    def take_mark(self) -> str:
        mark, self.mark = self.mark, ""
        return mark

    def picture(self, node: LexborNode) -> None:
        """An ``<img>`` (or an SVG's ``<image>``) of a page whose pictures give text
        (read_page's ``pictures``): its meaningful alt text a line of its own in its
        paragraph, then the text read in it blocks of their own, the paragraph going on
        after them."""
        if self.pictures is None:
            return
        attrs = node.attributes
        read = self.pictures(attrs.get("src") or attrs.get("xlink:href") or attrs.get("href")
                             or "")
        if read is None:  # not the text's: the book's cover
            return
        if alt := image_text(node):
            self.buf += [_BR, alt, _BR]
        if read:
            self.flush()
            for paragraph in read.split("\n\n"):
                self.add_block(paragraph)

    def children(self, node: LexborNode, in_section: bool
                 ) -> list[tuple[LexborNode, str, tuple[str, bool] | None]]:
        """``node``'s children that are shown, each with the mark a browser draws before
        it: an ordered list's items are numbered from its ``start`` (down from it, or
        from their count, when ``reversed``), an item's ``value`` restarting the count;
        and what ``page_break`` makes of it (asked once per element): a page break is
        kept though hidden, its content then not read."""
        kept: list[tuple[LexborNode, tuple[str, bool] | None]] = []
        for c in node.iter(include_text=True):
            if not c.tag or c.tag.startswith("-"):
                kept.append((c, None))
                continue
            brk = self.page_break(c) if self.page_break is not None else None
            if c.tag == "svg" and self.pictures is not None and \
                    (c.attributes.get("aria-hidden") or "").strip().lower() != "true":
                kept += [(image, None) for image in c.css("image")]  # its pictures alone
                continue
            if _dropped(c, in_section, self.page_chars, self.furniture):
                if brk is not None:
                    kept.append((c, (brk[0], False)))
                continue
            kept.append((c, brk))
        if node.tag != "ol":
            return [(c, "", brk) for c, brk in kept]
        attrs = node.attributes
        step = -1 if "reversed" in attrs else 1
        items = sum(c.tag == "li" for c, _ in kept)
        start = _html_int(attrs.get("start"))
        n = (start if start is not None else items if step < 0 else 1) - step
        kind = _list_type(node, "1")
        out = []
        for c, brk in kept:
            mark = ""
            if c.tag == "li":
                value = _html_int(c.attributes.get("value"))
                n = value if value is not None else n + step
                mark = list_label(n, _list_type(c, kind))
            out.append((c, mark, brk))
        return out

    def item(self, node: LexborNode, mark: str, in_section: bool) -> None:
        """A list item, opening with ``mark`` (its number, or ""): its blocks start where
        its list's items do, and a list inside it is indented by the width of its mark
        (:data:`UNORDERED_INDENT` for no mark), as in Markdown."""
        self.flush()
        outer = self.indent, self.inner
        self.indent, self.inner = self.inner, self.inner + " " * (len(mark) or UNORDERED_INDENT)
        if mark:  # after its list's item's when the item opens with the list ("1. a. ...")
            if not self.mark:
                self.mark_indent = self.indent
            self.mark += mark
        self.walk(node, in_section)
        self.flush()
        if mark:
            self.mark = ""  # an empty item is counted, and draws its number on nothing
        self.indent, self.inner = outer

    def inline(self, node: LexborNode, in_section: bool, pre: bool = False) -> str:
        """The text of a subtree (dropped parts skipped); <br> is a line break."""
        parts: list[str] = []
        for child, mark, brk in self.children(node, in_section):
            tag = child.tag
            if brk is not None:
                parts.append(brk[0])
                if not brk[1]:
                    continue
            if tag == "-text":
                raw = _INVISIBLE.sub("", child.text_content or "")
                parts.append(raw if pre else _WS.sub(" ", raw))
            elif tag == "br":
                parts.append(_BR)
            elif tag and not tag.startswith("-"):
                inner = mark + self.inline(child, in_section or tag in SECTIONING,
                                           pre or tag == "pre")
                parts.append(inner if pre or tag not in BLOCK_TAGS else f" {inner} ")
        return "".join(parts)

    def walk(self, node: LexborNode, in_section: bool = False) -> None:
        for child, mark, brk in self.children(node, in_section):
            tag = child.tag
            if brk is not None:
                self.buf.append(brk[0])
                if not brk[1]:
                    continue
            if tag == "-text":
                self.buf.append(_WS.sub(" ", _INVISIBLE.sub("", child.text_content or "")))
                continue
            if not tag or tag.startswith("-"):
                continue
            if tag == "li":
                self.item(child, mark, in_section)
            elif tag == "br":
                self.buf.append(_BR)
            elif tag in ("img", "image"):  # an SVG's <image>: a fixed-layout book's page
                self.picture(child)
            elif tag in HEADINGS:
                self.flush()
                title = squash(self.inline(child, in_section))
                if title:
                    self.blocks.append("#" * HEADINGS[tag] + " " + self.take_mark() + title)
            elif tag == "tr":
                self.flush()
                cells = [c for c in child.iter() if c.tag in ("td", "th") and
                         not _dropped(c, in_section, self.page_chars, self.furniture)]
                if any(c.css_first(_LAYOUT) is not None for c in cells):
                    for cell in cells:  # page layout, not data: each cell is a column of blocks
                        self.walk(cell, in_section)
                        self.flush()
                    continue
                texts = [squash(self.inline(c, in_section)) for c in cells]
                if any(texts):
                    self.add_block(" | ".join(texts))
                if self.pictures is not None:  # a cell's pictures after its row
                    for cell in cells:
                        for img in cell.css("img, image"):
                            self.picture(img)
                    self.flush()
            elif tag == "pre":
                self.flush()
                # as written, blank lines too (they part a listing's functions, a poem's
                # stanzas); only the blank lines around it and the spaces ending a line go
                lines = [ln.rstrip() for ln in self.inline(child, in_section, pre=True).split("\n")]
                text = "\n".join(lines).strip("\n")
                if text:
                    self.add_pre(child, text)
            elif tag in BLOCK_TAGS:
                self.flush()
                self.walk(child, in_section or tag in SECTIONING)
                self.flush()
            else:
                self.walk(child, in_section)


@dataclass(frozen=True)
class Page:
    """A page read into canonical blocks: the text's pieces, joined by blank lines."""

    blocks: list[str]  # ``#``-heading lines, paragraphs, list items, table rows, <pre>
    title: str  # its <title>, else its first shown level-1 heading, else any <h1>; or ""


def data_uri_bytes(uri: str) -> bytes | None:
    """The bytes a base64 ``data:`` URI holds (a picture written into a page, an e-book's
    chapter or a message: ``data:image/png;base64,...``); None for one in another
    encoding (an SVG written out as text) or whose data is no base64."""
    head, _, payload = uri.partition(",")
    if not head.lower().endswith(";base64"):
        return None
    try:
        return base64.b64decode(payload)
    except (binascii.Error, ValueError):
        return None


def read_page(html: str, rel: str, xhtml: bool = False,
              pictures: Callable[[str], str | None] | None = None,
              page_break: PageBreak | None = None, name: str = "") -> Page:
    """A decoded page (see :func:`decode_html`) as Markdown-shaped blocks, as described in
    the module docstring; ``xhtml``: the page is XML (see :func:`open_self_closing`). The
    blocks may be none (a page of images); ExtractionError naming ``rel`` when the page
    cannot be parsed. The HTML extractor writes one page's blocks, the EPUB one a chapter's.

    ``pictures``: None, pictures give no text (a web page); else (an e-book's chapter, an
    e-mail's HTML body) ``pictures(src)`` (an ``<img>``'s ``src`` as written, an SVG
    ``<image>``'s ``href``) is None for a picture that is not the text's (a book's cover,
    a picture on the web), else the text OCR reads in it ("" for none): the picture's
    meaningful alt text (:func:`image_text`) is a line of its own in its paragraph, and
    the text read in it blocks of their own after that (a picture in a table cell: after
    the row).

    ``page_break``: None, no element is special (a web page, an e-mail); else asked of
    each element the walk meets (once), it names an e-book's page-break markers: the
    text it returns is written where the element is (hidden or not), and the element's
    own content is read after it only when it says so. The EPUB extractor writes a
    character of its own there, to find where each printed page begins in the blocks.

    ``name``: the page's file name ("mc-manual.html"), by which its links to places in
    itself may name it.
    """
    if xhtml:
        html = open_self_closing(html)
    tree = LexborHTMLParser(html)
    names = frozenset(n for n in (name, variant_base(name)) if n)
    furniture = _furniture(tree.root, names) if tree.root is not None else frozenset()
    root = _main(tree, furniture) or tree.body or tree.root
    if root is None:
        raise ExtractionError(rel, "no HTML content could be parsed")
    walker = _Walker(len(squash(root.text())), pictures, page_break, furniture)
    try:
        walker.walk(root, in_section=root.tag in SECTIONING
                    or (root.attributes.get("role") or "").strip().lower() == "main")
    except RecursionError as exc:  # thousands of nested elements: generated junk, not a page
        raise ExtractionError(rel, "HTML nested too deeply to read") from exc
    walker.flush()
    title_node = tree.css_first("head > title") or tree.css_first("title")
    title = squash(_INVISIBLE.sub("", title_node.text())) if title_node is not None else ""
    if not title:  # the first level-1 heading as shown, else any <h1> (a hidden one)
        shown = next((b[2:] for b in walker.blocks if b.startswith("# ")), "")
        h1 = tree.css_first("h1")
        title = shown or (squash(_INVISIBLE.sub("", h1.text())) if h1 is not None else "")
    return Page(walker.blocks, title)


def html_of_archive(blob: bytes) -> bytes | None:
    """The page of a web archive (MHTML: a browser's "Webpage, Single File", Word's
    ``.mht``): its first text/html part, as bytes with a ``<meta charset>`` saying the
    part's charset when its header names one; None when it holds none."""
    message = email.message_from_bytes(blob)
    for part in message.walk():
        if part.get_content_type() == "text/html":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                charset = part.get_content_charset()
                return (f'<meta charset="{charset}">'.encode() if charset else b"") + payload
    return None


def page_document(page: Page, rel: str, fallback: str, extractor: str, version: str,
                  media_type: str, warning: str) -> Document:
    """A page's blocks as a Document (``fallback`` its title when the page has none), or
    ExtractionError naming ``rel`` when no text is left."""
    out = TextBuilder()
    for block in page.blocks:
        out.add(block, sep="\n\n")
    text = out.text()
    if not text.strip():
        raise ExtractionError(rel, "no text left after dropping scripts, navigation and boilerplate")
    return Document(path=rel, title=page.title or fallback, text=text, media_type=media_type,
                    extractor=extractor, extractor_version=version, headings="atx",
                    warnings=(warning,) if warning else ())


class HtmlExtractor:
    name = "html"
    version = "23"  # 2: layout tables are read as blocks, their headings as headings; 3: a
    # header/footer inside a section or main is kept, a class naming a state or on most
    # of the page is no boilerplate, an inline display: none hides; 4: a UTF-16/32
    # <meta charset> reads UTF-8 (the HTML standard), and NUL bytes are refused; 5: the
    # first shown <main>, not a hidden one; XHTML's self-closing tags are empty elements;
    # 6: a heading's permalink ("¶", "§") is no part of its title; 7: soft hyphens and
    # zero-width spaces are dropped from words; 8: an XML declaration's encoding is read;
    # 9: a page with UTF-32's byte-order mark is read as UTF-32, not UTF-16; 10: an
    # ordered list's items open with their numbers ("2. "); 11: a <pre> keeps its blank lines;
    # 12: spaces meeting across elements are one; 13: screen-reader-only text (sr-only,
    # visually-hidden) is dropped, hidden="until-found" kept; 14: a page whose bytes break
    # its byte-order mark's encoding is refused (they were indexed as U+FFFD); 15: a page
    # declaring no charset, not UTF-8, is read as Windows-1252 when it is Western text;
    # 16: a footnote or endnote (epub:type, role="doc-footnote") is kept, in an <aside>
    # or hidden until its reference is followed; 17: an id that is a heading's anchor or a
    # dotted API path names no boilerplate (Sphinx's "using-cookie-based-sessions" section);
    # 18: DocBook's boxed asides (a sidebar with its title page) are text, DocBook's and
    # Publican's Prev / Up / Next bars (navheader, navfooter, docnav) are navigation; 19:
    # a list of notes is read with its notes (docutils' <aside class="footnote-list">);
    # 20: a page's frame: a <div> named header or footer as <header> and <footer>, and by
    # their shape language bars, the page's own table of contents and breadcrumb trails (the
    # Apache manual's); a list inside a list item is indented; "bind.html.en" is a page;
    # 21: a <pre> is a fenced code block, unescaped, in the language the page names (one of
    # prose that nothing marks as code stays a block of text); 22: API documentation's
    # furniture is dropped: "Source" and "[source]" links, rustdoc's version badges, a
    # toggle's label ("Expand description"), "Read more" ending a line; 23: DocBook's
    # table of contents of its page (a <dl> of links to it, "mc-manual.html#overview") with
    # its "Table of Contents" title, and its navigation tables by their summary
    suffixes = (".html", ".htm", ".xhtml")

    def extract(self, path: Path, rel: str) -> Document:
        data = read_bytes(path, rel)
        xhtml = path.suffix.lower() == ".xhtml"
        html, warning = decode_html(data, rel, xhtml=xhtml)
        page = read_page(html, rel, xhtml=xhtml, name=path.name)
        return page_document(page, rel, path.stem, self.name, self.version, "text/html",
                             warning)


register(HtmlExtractor())


class MhtmlExtractor:
    """A web page saved as one file (MHTML: Chrome's and Edge's "Webpage, Single File",
    Internet Explorer's and Word's ``.mht``): its page read as an HTML file is, its
    pictures and style sheets (the archive's other parts) not."""

    name = "mhtml"
    version = "1"
    suffixes = (".mhtml", ".mht")

    def extract(self, path: Path, rel: str) -> Document:
        blob = html_of_archive(read_bytes(path, rel))
        if blob is None:
            raise ExtractionError(rel, "a web archive (MHTML) with no HTML page in it")
        html, warning = decode_html(blob, rel)
        page = read_page(html, rel)
        return page_document(page, rel, path.stem, self.name, self.version,
                             "multipart/related", warning)


register(MhtmlExtractor())
