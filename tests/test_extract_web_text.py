"""HTML, plain-text and slide-deck extraction on awkward inputs: what is cited must be
what the reader sees in the original, under the section the original shows it in.

No embedding model here: the extractors, and the sections and chunks cut from them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.chunk import chunk_document
from citeline.errors import ExtractionError
from citeline.extract import extractor_for
from citeline.types import Document


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def sections(doc: Document) -> list[str]:
    chunks = chunk_document(doc)
    assert all(c.content == doc.text[c.start:c.end] for c in chunks)
    return [c.section for c in chunks]


def test_html_heading_permalinks_are_not_part_of_the_title(tmp_path: Path):
    """Documentation generators put a link to the heading's own place beside it, shown
    on hover: Sphinx and MkDocs a "¶" after it, rustdoc a "§" before or after it,
    VuePress a "#" before it, Docusaurus a zero-width space (markup copied from their
    output). It made every section label "Menus¶" and every heading line end in it."""
    page = tmp_path / "idle.html"
    page.write_text(
        "<html><head><title>IDLE</title></head><body><div class='body' role='main'>"
        '<h1>IDLE<a class="headerlink" href="#idle" title="Link to this heading">¶</a></h1>'
        "<p>IDLE is Python's editor.</p>"
        '<h2>Menus<a class="headerlink" href="#menus" title="Permalink to this heading">¶</a></h2>'
        "<dl><dt id='f'>File menu<a class='headerlink' href='#f' title='Link to this definition'>¶</a>"
        "</dt><dd>Open a file.</dd></dl>"
        '<h2 id="examples"><a class="doc-anchor" href="#examples">§</a>Examples</h2>'
        "<p>Push a value.</p>"
        '<h2 id="impls" class="section-header">Implementations<a href="#impls" class="anchor">§</a></h2>'
        "<p>Trait impls.</p>"
        '<h3 id="setup"><a class="header-anchor" href="#setup" aria-hidden="true">#</a> Setup</h3>'
        "<p>Install it.</p>"
        '<h3 class="anchor" id="run">Running<a href="#run" class="hash-link" '
        'aria-label="Direct link to Running" title="Direct link to Running">\u200b</a></h3>'
        # links to places on the page that say something stay: they are what the reader sees
        "<p>See <a href='#menus'>the menus</a>, footnote<a href='#fn1'>1</a> and "
        "<a href='#s2'>§ 2</a>.</p></div></body></html>", encoding="utf-8")
    doc = extract(page)
    assert "¶" not in doc.text and "\u200b" not in doc.text
    heads = [ln for ln in doc.text.split("\n") if ln.startswith("#")]
    assert heads == ["# IDLE", "## Menus", "## Examples", "## Implementations", "### Setup",
                     "### Running"]
    assert "File menu\n\nOpen a file." in doc.text
    assert "See the menus, footnote1 and § 2." in doc.text
    assert sections(doc) == ["IDLE", "IDLE > Menus", "IDLE > Examples", "IDLE > Implementations",
                             "IDLE > Implementations > Setup",
                             "IDLE > Implementations > Running"]


def test_html_invisible_characters_inside_words_are_left_out(tmp_path: Path):
    """A soft hyphen (&shy;, a line-break hint in long compounds) and a zero-width space
    (&#8203;, a break hint in long identifiers) show as nothing: the reader sees one word,
    so the cited text has one word, and BM25 finds it whole (it read "ex" and "ample")."""
    from citeline.retrieve.bm25 import tokenize

    page = tmp_path / "schiff.html"
    page.write_text(
        "<html><head><title>Donau&shy;dampf&shy;schiff</title></head><body>"
        "<h2>Kapitäns&shy;mütze</h2><p>Die Donau&shy;dampf&shy;schiff&shy;fahrt fährt "
        "täglich; call <code>Vec::with&#8203;_capacity</code> once.&#xFEFF;</p>"
        "<pre>let v = Vec::with\u200b_capacity(8);</pre></body></html>", encoding="utf-8")
    doc = extract(page)
    assert doc.title == "Donaudampfschiff"
    assert doc.text == ("## Kapitänsmütze\n\nDie Donaudampfschifffahrt fährt täglich; call "
                        "Vec::with_capacity once.\n\nlet v = Vec::with_capacity(8);")
    assert "donaudampfschifffahrt" in tokenize(doc.text)
    assert sections(doc) == ["Donaudampfschiff > Kapitänsmütze"]


def test_html_reads_the_charset_an_xml_declaration_names(tmp_path: Path):
    """XHTML (an EPUB's chapters, DocBook's and older sites' pages) names its encoding in
    its XML declaration, which XML reads before any <meta>; such a page in Latin-1 or
    Windows-1250 was refused as 'not valid utf-8 ... declare the page's charset', which
    it had declared. A page whose bytes break the charset it declares says so."""
    chapter = tmp_path / "chapter.xhtml"
    chapter.write_bytes(
        b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE html>\n'
        b'<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Caf\xe9s</title></head>'
        b"<body><h1>Caf\xe9s</h1><p>Cr\xe8me br\xfbl\xe9e, na\xefvely.</p></body></html>")
    doc = extract(chapter)
    assert doc.title == "Cafés" and doc.text == "# Cafés\n\nCrème brûlée, naïvely."
    # XML reads its declaration, not a <meta> copied from an HTML template
    czech = tmp_path / "czech.xhtml"
    czech.write_bytes(
        b'<?xml version="1.0" encoding="windows-1250"?><html xmlns="http://www.w3.org/1999/xhtml">'
        b'<head><meta charset="utf-8"/></head><body><p>P\xf8\xedli\x9a \x9elu\x9dou\xe8k\xfd k\xf9\xf2'
        b"</p></body></html>")
    assert extract(czech).text == "Příliš žluťoučký kůň"
    # an HTML page with no <meta> but an XML declaration is read by it too
    old = tmp_path / "old.html"
    old.write_bytes(b'<?xml version="1.0" encoding="iso-8859-1"?><html><body><p>D\xe9j\xe0 vu.</p>'
                    b"</body></html>")
    assert extract(old).text == "Déjà vu."

    lying = tmp_path / "lying.html"
    lying.write_bytes(b'<html><head><meta charset="utf-8"></head><body><p>caf\xe9</p></body></html>')
    with pytest.raises(ExtractionError) as err:
        extract(lying)
    assert str(err.value) == (
        "lying.html: not valid utf-8, the charset its <meta charset> declares (undecodable "
        "byte at offset 53); correct the declaration, or save the page in that charset")
