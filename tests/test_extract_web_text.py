"""HTML, plain-text and slide-deck extraction on awkward inputs: what is cited must be
what the reader sees in the original, under the section the original shows it in.

No embedding model here: the extractors, and the sections and chunks cut from them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from citeline.chunk import chunk_document
from citeline.errors import ExtractionError
from citeline.extract import extractor_for, fingerprint, supported
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
                        "Vec::with_capacity once.\n\n```\nlet v = Vec::with_capacity(8);\n```")
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
        "byte 0xE9 at offset 53, line 1); correct the declaration, or save the page in that charset")


_DGM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"


def _add_smartart(slide, n: int, points: list[tuple[str, str | None, str]],  # type: ignore[no-untyped-def]
                  links: list[tuple[str, str, int]]) -> None:
    """A SmartArt diagram as PowerPoint stores it (ECMA-376 Part 1, 21.4): a graphic frame
    naming a diagramData part; the part's points (id, type, text) hold the text, its
    connections (parent, child, srcOrd) the order. python-pptx cannot write one."""
    from lxml import etree
    from pptx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI

    pts = "".join(
        f'<dgm:pt modelId="{mid}"{f" type={chr(34)}{kind}{chr(34)}" if kind else ""}><dgm:prSet/>'
        "<dgm:spPr/>" + ("<dgm:t><a:bodyPr/><a:lstStyle/>" + "".join(
            f"<a:p><a:r><a:t>{line}</a:t></a:r></a:p>" for line in text.split("\n")) + "</dgm:t>"
            if kind in (None, "doc") else "") + "</dgm:pt>"
        for mid, kind, text in points)
    cxns = "".join(f'<dgm:cxn modelId="c{i}" srcId="{src}" destId="{dst}" srcOrd="{order}" '
                   'destOrd="0"/>' for i, (src, dst, order) in enumerate(links))
    data = (f'<dgm:dataModel xmlns:dgm="{_DGM}" xmlns:a="{_A}"><dgm:ptLst>{pts}</dgm:ptLst>'
            f"<dgm:cxnLst>{cxns}</dgm:cxnLst><dgm:bg/><dgm:whole/></dgm:dataModel>")
    part = Part(PackURI(f"/ppt/diagrams/data{n}.xml"), CONTENT_TYPE.DML_DIAGRAM_DATA,
                slide.part.package, data.encode())
    rid = slide.part.relate_to(part, RELATIONSHIP_TYPE.DIAGRAM_DATA)
    slide.shapes._spTree.append(etree.fromstring(
        '<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
        f'xmlns:a="{_A}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        f'<p:nvGraphicFramePr><p:cNvPr id="{100 + n}" name="Diagram {n}"/><p:cNvGraphicFramePr/>'
        '<p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="914400" y="1828800"/>'
        f'<a:ext cx="7315200" cy="3657600"/></p:xfrm><a:graphic><a:graphicData uri="{_DGM}">'
        f'<dgm:relIds xmlns:dgm="{_DGM}" r:dm="{rid}" r:lo="{rid}" r:qs="{rid}" r:cs="{rid}"/>'
        "</a:graphicData></a:graphic></p:graphicFrame>"))


def test_pptx_smartart_text_is_read_in_the_diagram_s_order(tmp_path: Path):
    """A SmartArt diagram (a process, a cycle: common in real decks) keeps its text in its
    own part, which python-pptx does not read: a slide of one lost all of it, and one
    with no title was warned of as 'no text (a picture or a drawing)'. Its nodes are read
    in the order the diagram draws them (its connections' srcOrd), not the order they
    were created in, each node's sub-points after it."""
    from pptx import Presentation

    from citeline.chunk import locate

    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Release process"
    _add_smartart(s, 1, [("0", "doc", ""), ("3", None, "Ship to the mirrors"),
                         ("1", None, "Plan the release"), ("2", None, "Build"),
                         ("2b", None, "Sign the tarball"), ("2a", None, "Tag the commit"),
                         ("t1", "parTrans", ""), ("t2", "sibTrans", ""), ("p1", "pres", "")],
                  [("0", "1", 0), ("0", "3", 2), ("0", "2", 1), ("2", "2b", 1), ("2", "2a", 0)])
    s = prs.slides.add_slide(prs.slide_layouts[6])  # no title, only a diagram
    _add_smartart(s, 2, [("0", "doc", ""), ("1", None, "Spring sowing\nby hand")], [("0", "1", 0)])
    path = tmp_path / "release.pptx"
    prs.save(str(path))

    doc = extract(path)
    assert doc.text == ("# Release process\n\nPlan the release\nBuild\nTag the commit\n"
                        "Sign the tarball\nShip to the mirrors\n\n# Slide 2\n\nSpring sowing\nby hand")
    assert doc.warnings == ()
    sign = doc.text.index("Sign the tarball")
    assert locate(doc, sign, sign + len("Sign the tarball")).slides == (1,)
    sowing = doc.text.index("Spring sowing")
    assert locate(doc, sowing, len(doc.text)).slides == (2,)
    assert sections(doc) == ["Release process", "Release process > Slide 2"]


def test_html_with_utf_32_s_byte_order_mark_is_read_as_utf_32(tmp_path: Path):
    """UTF-32LE's mark (FF FE 00 00) begins with UTF-16LE's (FF FE): read as UTF-16, the
    page's every tag came out as text ('<p>Kiln log</p>' indexed, markup and all)."""
    import codecs

    for bom, enc in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                     (codecs.BOM_UTF16_LE, "utf-16-le")):
        page = tmp_path / f"{enc}.html"
        page.write_bytes(bom + "<html><body><h1>Kiln log</h1><p>Fired at 1240 °C.</p></body></html>"
                         .encode(enc))
        assert extract(page).text == "# Kiln log\n\nFired at 1240 °C.", enc


def test_a_file_that_is_no_html_page_is_named_for_what_it_is(tmp_path: Path):
    """A page fetched compressed and saved as sent, a PDF or a Word file behind a link saved
    as .html: each was refused as 'not valid utf-8 (undecodable byte ...); declare the
    page's charset', which sent the reader to look for a charset; an image, with NUL
    bytes, too, when its bytes broke UTF-8 before the NUL check came."""
    import gzip

    cases = {
        "fetched.html": (gzip.compress(b"<html><body><p>Tide tables</p></body></html>"),
                         "not an HTML page but a gzip-compressed file (a page saved as the "
                         "server sent it); decompress it with gunzip"),
        "report.html": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n",
                        "not an HTML page but a PDF document; name it .pdf"),
        "minutes.htm": (b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00",
                        "not an HTML page but a ZIP archive or an Office document; unpack it or "
                        "give it its own suffix"),
        "logo.html": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\xff\xd8",
                      "contains NUL bytes: binary, or UTF-16 without a byte-order mark; save "
                      "the page as UTF-8"),
    }
    for name, (data, reason) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ExtractionError) as err:
            extract(tmp_path / name)
        assert str(err.value) == f"{name}: {reason}"


def test_html_ordered_list_items_keep_their_numbers(tmp_path: Path):
    """A browser draws "1.", "2." before an ordered list's items, and a manual's steps
    refer to them ("go back to step 2"); the numbers were lost, so "2. Wait ten seconds"
    was indexed as "Wait ten seconds". Numbered as HTML numbers them: from ``start``, down
    when ``reversed``, an item's ``value`` restarting the count, in the list's ``type``; a
    hidden item is not counted, an unordered list's items get no bullet (no word to find)."""
    page = tmp_path / "reset.html"
    page.write_text(
        "<html><body><h1>Resetting the router</h1><ol><li>Unplug the unit</li>"
        "<li><p>Wait ten seconds.</p><p>The light goes out.</p></li>"
        "<li>Plug it in<ol type='a'><li>the power cable</li><li hidden>draft</li>"
        "<li>the network cable</li></ol></li></ol>"
        "<ol start='4'><li>Press reset</li><li value='9'>Hold it</li><li>Let go</li></ol>"
        "<ol reversed><li>three</li><li>two</li><li>one</li></ol>"
        "<ol type='I' start='3'><li><h2>Appendix</h2></li></ol>"
        "<ul><li>apples</li></ul><ol style='list-style: none'><li>no mark</li></ol>"
        "<table><tr><td><ol><li>red</li><li>blue</li></ol></td><td>wires</td></tr></table>"
        "</body></html>", encoding="utf-8")
    doc = extract(page)
    assert doc.text.split("\n\n") == [
        "# Resetting the router", "1. Unplug the unit", "2. Wait ten seconds.",
        "The light goes out.", "3. Plug it in", "   a. the power cable", "   b. the network cable",
        "4. Press reset", "9. Hold it", "10. Let go", "3. three", "2. two", "1. one",
        "## III. Appendix", "apples", "no mark", "1. red 2. blue | wires"]
    assert sections(doc)[-1] == "Resetting the router > III. Appendix"


def test_html_pre_keeps_its_blank_lines(tmp_path: Path):
    """Preformatted text is shown as written: the blank lines between a listing's
    functions or a poem's stanzas were dropped, so a quote of it matched no copy of the
    page. Kept; only the blank lines opening and closing the block (and spaces ending a
    line) go; the fence keeps a "#" line from the chunker's headings (html 21)."""
    page = tmp_path / "listing.html"
    page.write_text(
        "<html><body><h1>Listing</h1><pre>\n\n  def f():\n      return 1   \n\n\n"
        "# two blank lines above\ndef g():\n\tpass\n\n</pre>"
        "<pre><code>Roses are red,\n\nViolets are blue.</code></pre></body></html>",
        encoding="utf-8")
    doc = extract(page)
    assert doc.text == ("# Listing\n\n```\n  def f():\n      return 1\n\n\n# two blank lines above\n"
                        "def g():\n\tpass\n```\n\n```\nRoses are red,\n\nViolets are blue.\n```")
    assert sections(doc) == ["Listing"]


def test_html_pre_is_a_fenced_code_block_as_the_page_shows_it(tmp_path: Path):
    """A <pre> was written unfenced, its "#" lines escaped "\\#" so the chunker took none for a
    heading: a quote showed "\\# apt-get", a phrase copied from the page matched nothing, and
    nothing downstream knew it was code, so the extractive answer cut it into "sentences" at
    full stops. Now a fenced block (html 21): unescaped inside, no heading from its "#" lines,
    one unit for the answer; a paragraph starting with "# " is still escaped."""
    from citeline.answer.extractive import sentence_spans
    from citeline.chunk import fence_starts, headings

    page = tmp_path / "setup.html"
    page.write_text(
        "<html><body><h1>Setup</h1><p>Run this as root:</p><pre># apt-get install foo\n"
        "# systemctl restart foo. Wait a minute.\nfoo --check\n</pre><p>Then check.</p>"
        "<p># not a heading, a paragraph</p></body></html>", encoding="utf-8")
    doc = extract(page)
    block = "```\n# apt-get install foo\n# systemctl restart foo. Wait a minute.\nfoo --check\n```"
    assert doc.text == ("# Setup\n\nRun this as root:\n\n" + block + "\n\nThen check.\n\n"
                        "\\# not a heading, a paragraph")
    assert "# apt-get install foo\n# systemctl restart foo" in doc.text
    assert [h.title for h in headings(doc.text, "atx")] == ["Setup"]
    assert len(fence_starts(doc.text)) == 2
    assert set(sections(doc)) == {"Setup"}
    spans = [doc.text[s:e] for s, e in sentence_spans(doc.text)]
    assert block in spans  # whole, not cut after "foo."
    assert spans == ["Run this as root:", block, "Then check.", "\\# not a heading, a paragraph"]


@pytest.mark.parametrize(("markup", "info"), [
    ('<pre><code class="hljs language-python">x = 1</code></pre>', "python"),  # highlight.js
    ('<pre class="language-python"><code class="language-python">x = 1</code></pre>',
     "python"),  # Prism
    ('<div class="highlight-python notranslate"><div class="highlight"><pre><span></span>'
     'x = 1</pre></div></div>', "python"),  # Sphinx
    ('<div class="language-python highlight"><pre><span></span><code>x = 1</code></pre></div>',
     "python"),  # MkDocs (pymdownx.highlight)
    ('<div class="language-python highlighter-rouge"><div class="highlight"><pre '
     'class="highlight"><code>x = 1</code></pre></div></div>', "python"),  # Jekyll
    ('<div class="sourceCode"><pre class="sourceCode python"><code class="sourceCode python">'
     'x = 1</code></pre></div>', "python"),  # Pandoc
    ('<pre class="prettyprint lang-config">x = 1</pre>', "config"),  # prettify (Apache)
    ('<div class="example-wrap"><pre class="rust rust-example-rendered"><code>x = 1</code>'
     '</pre></div>', "rust"),  # rustdoc
    ('<pre><code class="language-rust ignore">x = 1</code></pre>', "rust"),  # mdBook
    ('<pre><code class="language-c``">x = 1</code></pre>', "c"),  # no backtick in an info
    ('<pre class="programlisting">x = 1</pre>', ""),  # DocBook names no language
    ('<div class="highlight-default notranslate"><div class="highlight"><pre>x = 1</pre>'
     '</div></div>', ""),  # Sphinx's project default: not named on the page
    ('<pre class="language-none"><code>x = 1</code></pre>', ""),  # Prism's "no language"
    ("<pre>def f():\n    return 1</pre>", ""),  # Python, but the page does not say so
])
def test_html_pre_fence_names_the_language_the_page_names(tmp_path: Path, markup: str,
                                                           info: str):
    page = tmp_path / "code.html"
    page.write_text(f"<html><body><p>Example:</p>{markup}</body></html>", encoding="utf-8")
    fence = extract(page).text.split("\n\n")[1].split("\n")[0]
    assert fence == "```" + info


def test_html_backticks_inside_a_pre_lengthen_its_fence(tmp_path: Path):
    """A page showing Markdown (a README's source) holds fences of its own: the block's
    fence is longer than any run of backticks inside, so none of them closes it, and the
    "# Title" line of the example is no heading."""
    from citeline.chunk import fence_starts, headings

    page = tmp_path / "readme.html"
    page.write_text(
        "<html><body><h1>Writing a README</h1><pre># Title\n\n````text\n```\nnested\n```\n````\n"
        "Inline `code` here.</pre><p>After the example.</p></body></html>", encoding="utf-8")
    doc = extract(page)
    assert "`````\n# Title\n\n````text\n```\nnested\n```\n````\nInline `code` here.\n`````" \
        in doc.text
    assert [doc.text[i:].split("\n")[0] for i in fence_starts(doc.text)] == ["`````", "`````"]
    assert [h.title for h in headings(doc.text, "atx")] == ["Writing a README"]
    assert set(sections(doc)) == {"Writing a README"}


def test_html_pre_in_a_list_item_or_a_table_cell_is_still_a_fence(tmp_path: Path):
    """A fence indented four spaces is none (its "#" lines would be headings), so a <pre> in
    a nested list item is not indented; one opening an ordered item has its number on a line
    of its own above the fence; one in a layout table's cell is a block as any; one in a
    data cell is read into the row, as the cell's other text is."""
    from citeline.chunk import fence_starts, headings

    page = tmp_path / "steps.html"
    page.write_text(
        "<html><body><h1>Steps</h1><ol><li>Install it:<pre># make install</pre></li>"
        "<li><pre>$ make check\n# all passed</pre></li>"
        "<li>Nested<ul><li>Inner item<pre>x = 1\n# not a heading</pre></li></ul></li></ol>"
        "<table><tr><td><h2>Layout</h2></td><td><pre># in a layout cell</pre></td></tr></table>"
        "<table><tr><td>data</td><td><pre># cell\nline two</pre></td></tr></table>"
        "</body></html>", encoding="utf-8")
    doc = extract(page)
    assert doc.text.split("\n\n") == [
        "# Steps", "1. Install it:", "```\n# make install\n```",
        "2.\n```\n$ make check\n# all passed\n```", "3. Nested", "   Inner item",
        "```\nx = 1\n# not a heading\n```", "## Layout", "```\n# in a layout cell\n```",
        "data | # cell line two"]
    assert len(fence_starts(doc.text)) == 8
    assert [h.title for h in headings(doc.text, "atx")] == ["Steps", "Layout"]
    assert sections(doc)  # every chunk's content is its slice of the text


def test_html_prose_in_a_pre_stays_text(tmp_path: Path):
    """A mailing-list archive's message, an RFC, a text file served as a page: a <pre> of
    prose that nothing marks as code is read as text, as before html 21 (its "# " line
    escaped), so the answer still cuts it at its sentences: fenced, the chunk holding its
    first line would be quoted whole. The same lines marked as code (a <code> in the <pre>)
    are fenced, and so are two prose lines alone (a log's message)."""
    from citeline.answer.extractive import sentence_spans

    message = (
        "Hi all,\n\n"
        "I upgraded the mirror to the new release last night and the sync job now fails\n"
        "every time it reaches the security archive. The log says the signature is bad,\n"
        "but the keyring package was updated in the same run, so it should be current.\n"
        "> Did you restart the daemon after the keyring was replaced on the server?\n"
        "# Yes, twice, and the second time it failed the same way as the first one did.\n\n"
        "Thanks,\nAna")
    page = tmp_path / "msg.html"
    page.write_text(f"<html><body><h1>Mirror sync fails</h1><pre>{message}</pre>"
                    f"<pre><code>{message}</code></pre>"
                    "<pre>The sync job failed with a bad signature error again tonight.\n"
                    "Please check the keyring package on the mirror host before noon.</pre>"
                    "</body></html>", encoding="utf-8")
    doc = extract(page)
    prose = message.replace("# Yes", "\\# Yes")
    assert doc.text == (
        f"# Mirror sync fails\n\n{prose}\n\n```\n{message}\n```\n\n```\nThe sync job failed "
        "with a bad signature error again tonight.\nPlease check the keyring package on the "
        "mirror host before noon.\n```")
    spans = [prose[s:e] for s, e in sentence_spans(prose)]
    assert "I upgraded the mirror to the new release last night and the sync job now fails\n" \
           "every time it reaches the security archive." in spans


def test_the_worked_examples_in_the_html_extractor_s_docstrings_hold():
    import doctest

    from citeline.extract import blocks, html

    for mod in (html, blocks):
        result = doctest.testmod(mod)
        assert result.attempted > 0 and result.failed == 0, mod.__name__


def test_html_spaces_meeting_across_elements_are_one(tmp_path: Path):
    """A browser shows the spaces on either side of an element boundary as one space;
    they were kept double ("a  standby.signal  file", "Price  5" around a hidden span),
    so a quote copied from the page, or a phrase typed as seen, matched no chunk."""
    page = tmp_path / "standby.html"
    page.write_text(
        "<html><body><p>A server enters standby mode if a <code> standby.signal </code> file "
        "exists.</p><p>Price <span hidden>in cents</span> 5 <span></span> euros.<br> "
        "<b>Second </b> line.</p></body></html>", encoding="utf-8")
    doc = extract(page)
    assert doc.text == ("A server enters standby mode if a standby.signal file exists.\n\n"
                        "Price 5 euros.\nSecond line.")


def test_html_text_hidden_from_sight_or_from_screen_readers_is_left_out(tmp_path: Path):
    """Screen-reader-only text (sr-only, visually-hidden, WordPress's screen-reader-text)
    is not on the page a reader sees: skip links, an icon's label, a "Warning" glued to
    the sentence beside it ("WarningYou can be fined"). It was indexed, so a quote held
    words the page does not show. It is dropped like hidden and aria-hidden text; a
    collapsed part a search in the page opens (hidden="until-found", a closed <details>)
    is kept."""
    page = tmp_path / "fines.html"
    page.write_text(
        "<html><body><a class='visually-hidden-focusable' href='#main'>Skip to content</a>"
        "<main id='main'><h1>Parking<span class='sr-only'> (section 2)</span></h1>"
        "<p class='govuk-warning-text'><span aria-hidden='true'>!</span>"
        "<strong><span class='govuk-visually-hidden'>Warning</span>You can be fined up to "
        "£5,000.</strong></p><p>Pay <a href='/pay'>online<span class='Screen-Reader-Text'> "
        "(opens in a new tab)</span></a> within 28 days.</p>"
        "<p hidden>Draft: raise the fine.</p><p style='display: none'>Old fine: £100.</p>"
        "<div hidden='until-found'><p>Appeals take 8 weeks.</p></div>"
        "<details><summary>Exemptions</summary><p>Blue badge holders.</p></details>"
        "</main></body></html>", encoding="utf-8")
    doc = extract(page)
    assert doc.text == ("# Parking\n\nYou can be fined up to £5,000.\n\nPay online within 28 "
                        "days.\n\nAppeals take 8 weeks.\n\nExemptions\n\nBlue badge holders.")
    assert sections(doc) == ["Parking"]


def test_a_byte_order_mark_then_bytes_that_break_it_are_refused_naming_the_byte(tmp_path: Path):
    """A file opening with UTF-8's byte-order mark, with a Latin-1 "é" pasted in later: the
    text extractor said 'not valid UTF-8 (undecodable byte at offset 17)', counting from
    after the mark (the byte is at 20) and calling the whole file not UTF-8; the HTML
    extractor indexed the byte as U+FFFD without a word. Both refuse it, naming the byte as
    a hex editor finds it, its line, and what happened."""
    import codecs

    body = "héllo wörld\n".encode() + b"caf\xe9 au lait\n"
    cases = {"notes.txt": (codecs.BOM_UTF8 + body, "UTF-8", 20, 2),
             "notes.md": (codecs.BOM_UTF8 + b"# Caf\xe9\n" + body, "UTF-8", 8, 1),
             "page.html": (codecs.BOM_UTF8 + b"<p>h\xc3\xa9llo</p>\n<p>caf\xe9</p>", "UTF-8", 23, 2),
             "page16.html": (codecs.BOM_UTF16_LE + "<p>a</p>\n".encode("utf-16-le") + b"\x00\xdc",
                             "UTF-16", 20, 2)}
    for name, (data, encoding, offset, line) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ExtractionError) as err:
            extract(tmp_path / name)
        byte = data[offset] if encoding == "UTF-8" else None
        shown = f"byte 0x{byte:02X}" if byte is not None else "bytes 0x00 0xDC"
        assert str(err.value) == (
            f"{name}: starts with {encoding}'s byte-order mark, but its {shown} at offset {offset}, "
            f"line {line}, {'is' if byte else 'are'} not {encoding}: part of the file was saved in "
            "another encoding, or it is damaged"), name
        assert byte is None or byte == 0xE9


def test_a_file_that_is_not_utf_8_is_read_as_windows_1252_only_when_it_is_western_text(
        tmp_path: Path):
    """A .txt saved by Notepad as "ANSI" in Western Europe, or a page with no charset, is
    Windows-1252 (Latin-1's superset): both were refused as 'not valid UTF-8', though a
    browser shows the page. Such a file is read so, with a warning naming the encoding
    assumed and the first word it decided, so a wrong guess (Czech "Příliš" in
    Windows-1250 would read "Pøíliš") shows; a file whose words read so are no Western
    words (Cyrillic, Greek, Central European, East Asian, a DOS box drawing) is refused,
    saying why, never indexed garbled."""
    from citeline.extract.text import western_text

    notes = tmp_path / "notes.txt"
    notes.write_bytes("Crème brûlée\r\n============\r\n\r\nIt’s “smart” – 20 °C, ½ kg, "
                      "£3, col·lecció.\r\n".encode("cp1252"))
    doc = extract(notes)
    assert doc.text == ("Crème brûlée\n============\n\nIt’s “smart” – 20 °C, ½ kg, £3, "
                        "col·lecció.\n")
    assert doc.title == "Crème brûlée" and sections(doc) == ["Crème brûlée"]
    assert doc.warnings == ("not UTF-8: read as Windows-1252, Western European (line 1 reads "
                            "'Crème'); if accented letters look wrong, save it as UTF-8",)
    page = tmp_path / "page.html"
    page.write_bytes("<html><body><h1>Größe</h1><p>Maße für Käufer.</p></body></html>"
                     .encode("cp1252"))
    doc = extract(page)
    assert doc.text == "# Größe\n\nMaße für Käufer." and sections(doc) == ["Größe"]
    assert doc.warnings == (
        "no charset declared, and not UTF-8: read as Windows-1252, Western European, as a "
        "browser there reads it (line 1 reads 'Größe'); if accented letters look wrong, "
        "declare the page's charset",)

    (tmp_path / "ru.md").write_bytes("# Привет\n\nЭто тест.\n".encode("cp1251"))
    with pytest.raises(ExtractionError) as err:
        extract(tmp_path / "ru.md")
    assert str(err.value) == (
        "ru.md: not valid UTF-8 (undecodable byte 0xCF at offset 2, line 1), nor Western "
        "European text (Windows-1252): read so, line 1 holds 'Ïðèâåò', no Western European "
        "word; it is in some other encoding: save it as UTF-8")
    (tmp_path / "jp.html").write_bytes("<p>日本語です。</p>".encode("shift_jis"))
    with pytest.raises(ExtractionError, match=r"^jp.html: not valid utf-8 \(undecodable byte "
                       r"0x93 at offset 3, line 1\), nor Western European text \(Windows-1252\): "
                       r"its byte 0x81 at offset 13 is no character there; declare the page's"):
        extract(tmp_path / "jp.html")
    for text, encoding in (("Zażółć gęślą, była może", "cp1250"), ("Καλημέρα κόσμε", "cp1253"),
                           ("中文文本测试", "gbk"), ("한국어 텍스트", "euc-kr"),
                           ("שלום עולם", "cp1255"), ("╔════╗", "cp437")):
        assert western_text(text.encode(encoding))[0] is None, encoding
    for text in ("Þýðing, ævintýrið", "Ações, não", "Hääyö", "Ærø, blåbærgrød", "naïve œuvre"):
        assert western_text(text.encode("cp1252"))[0] == text


def test_footnotes_and_endnotes_are_text_even_in_an_aside_or_hidden(tmp_path: Path):
    # an EPUB 3 chapter keeps each note in an <aside epub:type="footnote">, often hidden
    # until its reference is followed; the page reader dropped every aside as a web
    # page's sidebar, so a book's notes were never indexed
    page = tmp_path / "chapter.xhtml"
    page.write_text(
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
        "<body><h1>Tides</h1>"
        '<p>The spring tide comes twice a month.<a epub:type="noteref" href="#n1">1</a></p>'
        '<aside epub:type="footnote" id="n1" hidden="hidden"><p>1. Near the new and the '
        "full moon.</p></aside>"
        '<aside class="sidebar"><p>Subscribe to our newsletter.</p></aside>'
        '<section role="doc-endnotes"><ol><li id="e1">Tables of Brest, 1911.</li></ol>'
        "</section></body></html>")
    text = extract(page).text
    assert "Near the new and the full moon." in text
    assert "Tables of Brest, 1911." in text
    assert "newsletter" not in text  # an aside that is no note is still a sidebar


def test_a_list_of_notes_is_read_with_its_notes(tmp_path: Path):
    """Docutils (Sphinx 5+, and the EPUBs Sphinx builds) wraps a page's footnotes in an
    <aside class="footnote-list"> with no role of its own, each note an <aside role="note">
    (markup from Debian's Developer's Reference EPUB): dropped as an aside, the list took
    its notes with it while their [1] marks stayed (found writing eval/devreference). An
    aside holding a note and anything else is still dropped."""
    page = tmp_path / "salvage.html"
    page.write_text(
        "<html><body><main><h1>Salvaging packages</h1>"
        '<p>The bug should start with ITS: package-name <a class="footnote-reference brackets" '
        'href="#id3" role="doc-noteref">[1]</a>.</p>'
        '<aside class="footnote-list brackets"><!-- notes --><aside class="footnote brackets" id="id3" '
        'role="note"><span class="label"><span class="fn-bracket">[</span>1<span '
        'class="fn-bracket">]</span></span><p>ITS is shorthand for "Intend to Salvage".</p>'
        "</aside></aside>"
        '<aside class="related"><aside role="note"><p>See also the NMU rules.</p></aside>'
        "<p>Sponsored: hosting from 3 EUR.</p></aside></main></body></html>")
    text = extract(page).text
    assert text == ("# Salvaging packages\n\nThe bug should start with ITS: package-name [1].\n\n"
                    '[1]\n\nITS is shorthand for "Intend to Salvage".')


# The Apache HTTP Server manual's frame around a page's content, as Debian's apache2-doc
# ships it (eval/apachedocs): a header, a breadcrumb, two language bars, the page's
# contents with a "See also" list, a footer; no <nav>, <header>, <footer> or role says so.
APACHE_PAGE = (
    '<html lang="en"><head><title>Binding - Apache HTTP Server Version 2.4</title></head>'
    '<body id="manual-page"><div id="page-header"><p class="menu"><a href="mod/">Modules</a>'
    ' | <a href="glossary.html">Glossary</a></p><p class="apache">Apache HTTP Server Version '
    '2.4</p><img alt="" src="feather.png"></div>'
    '<div class="up"><a href="./"><img title="&lt;-" alt="&lt;-" src="left.gif"></a></div>'
    '<div id="path">\n<a href="https://www.apache.org/">Apache</a> &gt; <a href="https://'
    'httpd.apache.org/">HTTP Server</a> &gt; <a href="https://httpd.apache.org/docs/">'
    'Documentation</a> &gt; <a href="./">Version 2.4</a></div>'
    '<div id="page-content"><div id="preamble"><h1>Binding</h1>'
    '<div class="toplang"><p><span>Available Languages: </span>'
    '<a href="../en/bind.html" title="English">&nbsp;en&nbsp;</a> |\n'
    '<a href="../fr/bind.html" hreflang="fr" rel="alternate" title="Fran&ccedil;ais">'
    '&nbsp;fr&nbsp;</a></p></div>'
    '<p>Configuring the addresses and ports that httpd uses.</p></div>'
    '<div id="quickview"><ul id="toc"><li><img alt="" src="down.gif"> <a href="#overview">'
    'Overview</a></li>\n<li><img alt="" src="down.gif"> <a href="#ipv6">IPv6</a></li></ul>'
    '<h3>See also</h3><ul class="seealso"><li><a href="vhosts/">Virtual Hosts</a></li></ul>'
    '</div><div class="top"><a href="#page-header"><img alt="top" src="up.gif"></a></div>'
    '<div class="section"><h2 id="overview">Overview <a class="permalink" href="#overview">'
    '&para;</a></h2><p>Listen takes a port.</p><h3 id="ask">Questions</h3>'
    '<ul><li><a href="#q1">How do I listen on two ports?</a></li>'
    '<li><a href="#q2">How do I listen on IPv6 only?</a></li></ul>'
    '<h4 id="q1">How do I listen on two ports?</h4><p>Use two Listen lines.</p>'
    '<h4 id="q2">How do I listen on IPv6 only?</h4><p>Give an IPv6 address.</p>'
    '<table class="related"><tr><th>Related Modules</th><th>Related Directives</th></tr>'
    '<tr><td>core</td><td>Listen</td></tr></table></div></div>'
    '<div class="bottomlang"><p><span>Available Languages: </span>'
    '<a href="../en/bind.html" title="English">&nbsp;en&nbsp;</a> |\n'
    '<a href="../fr/bind.html" hreflang="fr" rel="alternate" title="Fran&ccedil;ais">'
    '&nbsp;fr&nbsp;</a></p></div><div id="footer"><p class="apache">Copyright 2026 The '
    'Apache Software Foundation.</p><p class="menu"><a href="mod/">Modules</a></p></div>'
    '</body></html>')



# A chapter of a DocBook manual as Valgrind's XSL writes it: a navigation table with no
# navheader around it, then the chapter's own table of contents in a <dl>, its links
# naming the page's own file.
DOCBOOK_CHAPTER = (
    '<html><head><title>4. Memcheck</title></head><body><div><table class="nav" '
    'width="100%" summary="Navigation header"><tr><td><a accesskey="p" href="manual-core.html">'
    '<img src="images/prev.png" alt="Prev"></a></td><th>Valgrind User Manual</th>'
    '<td><a accesskey="n" href="cg-manual.html"><img src="images/next.png" alt="Next"></a>'
    '</td></tr></table></div><div class="chapter"><div class="titlepage"><h1 class="title">'
    '<a name="mc-manual"></a>4. Memcheck</h1></div><div class="toc"><p><b>Table of Contents'
    '</b></p><dl class="toc"><dt><span class="sect1"><a href="mc-manual.html#mc-manual.overview">'
    '4.1. Overview</a></span></dt><dt><span class="sect1"><a href="mc-manual.html#mc-manual.errormsgs">'
    '4.2. Error messages</a></span></dt><dd><dl><dt><span class="sect2">'
    '<a href="mc-manual.html#mc-manual.badrw">4.2.1. Illegal reads</a></span></dt></dl></dd>'
    '</dl></div><p>Memcheck is the default tool.</p><div class="sect1"><h2 class="title">'
    '<a name="mc-manual.overview"></a>4.1. Overview</h2><p>It finds leaks.</p>'
    '<div class="glosslist"><dl><dt><a href="mc-manual.html#mc-manual.badrw">Illegal read</a>'
    '</dt><dd><p>Reading memory the program does not own.</p></dd>'
    '<dt><a href="mc-manual.html#mc-manual.overview">Leak</a></dt><dd><p>Memory never freed.'
    '</p></dd></dl></div><p>See the core options:</p><dl><dt><a href="manual-core.html#opt.a">'
    '--tool</a></dt><dt><a href="manual-core.html#opt.b">--log-file</a></dt></dl></div></div>'
    '<div><table class="nav" width="100%" summary="Navigation footer"><tr><td>'
    '<a accesskey="p" href="manual-core.html">Prev</a></td><td><a accesskey="h" '
    'href="index.html">Home</a></td></tr></table></div></body></html>')


def test_html_a_docbook_chapter_s_own_contents_and_navigation_tables_are_dropped(
        tmp_path: Path):
    """Valgrind's manual opens each chapter with its navigation table (Prev, Up, Home,
    Next: no navheader around it, only DocBook's summary) and a table of contents of the
    chapter in a <dl>, whose links name the page's own file; both were read as text,
    a block of section titles that every question about the chapter matched. A glossary's
    <dl> (definitions beside its linked terms) and a <dl> of links to another page stay."""
    page = tmp_path / "mc-manual.html"
    page.write_text(DOCBOOK_CHAPTER, encoding="utf-8")
    doc = extract(page)
    assert doc.text.split("\n\n") == [
        "# 4. Memcheck", "Memcheck is the default tool.", "## 4.1. Overview",
        "It finds leaks.", "Illegal read", "Reading memory the program does not own.",
        "Leak", "Memory never freed.", "See the core options:", "--tool", "--log-file"]
    # under another name its links are to another page: a list of them is text
    other = tmp_path / "memcheck-copy.html"
    other.write_text(DOCBOOK_CHAPTER, encoding="utf-8")
    text = extract(other).text
    assert "Table of Contents" in text and "4.2.1. Illegal reads" in text
    assert "Valgrind User Manual" not in text  # the navigation table still goes

def test_html_a_page_s_frame_is_dropped_by_its_name_or_its_shape(tmp_path: Path):
    """The Apache manual's frame was read as text, 4% of the manual (found writing
    eval/apachedocs): a <div> named for the page's header or footer is dropped as <header>
    and <footer> are; a language bar (links with hreflang, and the page's own language's
    to the same file), the page's own table of contents (a list of links to #places in
    the page) and a breadcrumb trail ("A > B > C" of links) by their shape. The "See
    also" list, the writer's pointers to other pages, and the related-modules table stay."""
    page = tmp_path / "bind.html"
    page.write_text(APACHE_PAGE, encoding="utf-8")
    doc = extract(page)
    assert doc.text.split("\n\n") == [
        "# Binding", "Configuring the addresses and ports that httpd uses.", "### See also",
        "Virtual Hosts", "## Overview", "Listen takes a port.", "### Questions",
        "#### How do I listen on two ports?", "Use two Listen lines.",
        "#### How do I listen on IPv6 only?", "Give an IPv6 address.",
        "Related Modules | Related Directives", "core | Listen"]
    assert sections(doc)[-1].endswith(" > Binding > Overview > Questions > How do I listen on IPv6 only?")
    # the same names and shapes inside a sectioning element, or holding a heading, are text
    page.write_text(
        "<html><body><div class='page-header'><h1>Firing a kiln</h1></div>"
        "<div id='header'><p>Clay Club</p></div>"
        "<article><div class='footer'>Written by Ines.</div></article>"
        "<div class='card-header'>Cone 6</div><table><tr class='header'><td>Hours</td></tr>"
        "</table><p>Longer text, so that no part named a header or footer holds half the "
        "page's text.</p><div id='site-footer'>Imprint</div>"
        # httpd's own tree names a page's translations bind.html.en, bind.html.de
        "<div class='languages'>In: <a href='kiln.html.en'>en</a> "
        "<a href='kiln.html.de' hreflang='de'>de</a></div></body></html>")
    assert extract(page).text.split("\n\n") == [
        "# Firing a kiln", "Written by Ines.", "Cone 6", "Hours",
        "Longer text, so that no part named a header or footer holds half the page's text."]


def test_html_lists_and_lines_of_links_that_are_text_are_kept(tmp_path: Path):
    """What the frame's shapes must not take: a list of links to the page's places that a
    sentence introduces (Django's logging guide), a list inside a list item whose outer
    list has plain items (mdBook's summary), an item with words of its own, a paragraph
    naming a translation among other words, and "A > B" lines that are not three links."""
    page = tmp_path / "logging.html"
    page.write_text(
        "<html><body><h1>Logging</h1>"
        "<p>A Python logging configuration consists of four parts:</p><ul class='simple'>"
        "<li><a href='#loggers'>Loggers</a></li><li><a href='#handlers'>Handlers</a></li></ul>"
        "<ul><li>API compatibility<ul><li><a href='#items'>Major: removing items</a></li>"
        "<li><a href='#types'>Minor: adding items</a></li></ul></li></ul>"
        "<ul><li><a href='#loggers'>Loggers</a>, where messages go</li>"
        "<li><a href='#handlers'>Handlers</a></li></ul>"
        "<p>This guide is also kept in <a href='../fr/logging.html' hreflang='fr'>French</a>"
        " and <a href='../de/logging.html' hreflang='de'>German</a> by volunteers, who "
        "update it a month after each release.</p>"
        "<p><a href='a.html'>Tools</a> &gt; <a href='b.html'>Options</a></p>"
        "<p><a href='a.html'>Home</a> &gt; <a href='b.html'>Docs</a> &gt; This page</p>"
        "<p><a href='a.html'>len(a)</a> / <a href='b.html'>len(b)</a> / <a href='c.html'>c</a>"
        "</p><h2 id='loggers'>Loggers</h2><h2 id='handlers'>Handlers</h2></body></html>")
    assert extract(page).text.split("\n\n") == [
        "# Logging", "A Python logging configuration consists of four parts:", "Loggers",
        "Handlers", "API compatibility", "  Major: removing items", "  Minor: adding items",
        "Loggers, where messages go", "Handlers",
        "This guide is also kept in French and German by volunteers, who update it a month "
        "after each release.", "Tools > Options", "Home > Docs > This page",
        "len(a) / len(b) / c", "## Loggers", "## Handlers"]


def test_html_a_list_inside_a_list_item_keeps_its_nesting(tmp_path: Path):
    """A nested list was read at one level: the steps of content negotiation's step 2 (the
    Apache manual) read "2. Select...", "1. Multiply...", "2. Select...", "3. The
    algorithm...", as if the list had restarted. Indented as Markdown indents it, by the
    width of the item's mark (two spaces under an unordered item), each list numbered by
    its own count; only a block's first line, so the page's text stays whole in it (a
    quote across a <br> is found); a heading or <pre> in such an item is not indented."""
    page = tmp_path / "negotiation.html"
    page.write_text(
        "<html><body><h1>Negotiation</h1><ol><li>Find the variants.</li>"
        "<li>Select the best variant.<ol><li>Multiply the quality factors.</li>"
        "<li><p>Select the highest language factor.</p><p>Ties go on.</p>"
        "<ul><li>English<br>then French</li></ul></li>"
        "<li><ol type='a'><li>A list opening an item</li></ol></li>"
        "<li><h3>A heading in an item</h3><pre>  code\n  kept</pre></li></ol>"
        "The algorithm goes on.</li><li>Return it.</li></ol>"
        "<ul><li>Stream ciphers<ul><li>RC4</li></ul></li><li>Block ciphers</li></ul>"
        "</body></html>", encoding="utf-8")
    doc = extract(page)
    assert doc.text.split("\n\n") == [
        "# Negotiation", "1. Find the variants.", "2. Select the best variant.",
        "   1. Multiply the quality factors.", "   2. Select the highest language factor.",
        "   Ties go on.", "      English\nthen French", "   3. a. A list opening an item",
        "### 4. A heading in an item", "```\n  code\n  kept\n```", "The algorithm goes on.",
        "3. Return it.", "Stream ciphers", "  RC4", "Block ciphers"]
    assert "English\nthen French" in doc.text
    assert "Negotiation > 4. A heading in an item" in sections(doc)


def test_a_page_s_language_variant_is_read_as_a_page(tmp_path: Path):
    """Apache httpd's content negotiation names a page's translations "bind.html.en",
    "bind.html.fr", "bind.html.ja.utf8" (its manual's own tree is kept so); they were
    skipped as an unknown type ".en". Only a page's variants, in a two-letter language (a
    three-letter suffix is a backup's or a swap file's: "page.html.bak"), not Brotli's
    "page.html.br" nor another type's ("notes.txt.de")."""
    for name in ("bind.html.en", "bind.html.fr", "bind.html.ja.utf8", "index.html.zh-cn.utf8",
                 "index.html.pt-br", "old.htm.de", "Index.HTML.KO.EUC-KR"):
        page = tmp_path / name
        page.write_text("<html><body><h1>Binding</h1><p>Listen takes a port.</p></body></html>",
                        encoding="utf-8")
        assert supported(page), name
        doc = extract(page)
        assert (doc.text, doc.extractor) == ("# Binding\n\nListen takes a port.", "html"), name
        assert fingerprint(page) == hashlib.sha256(page.read_bytes()).hexdigest()
    for name in ("page.html.bak", "page.html.br", "page.html.swp",  # (.gz: a compressed page)
                 "notes.txt.de", "page.html.en.bak", "page.html.utf8", "page.en"):
        assert not supported(tmp_path / name), name


# rustdoc's markup (Rust 1.9x's std::collections::HashMap, trimmed): the page title's
# sub-heading and every item's <span class="rightside"> hold a "since" version badge and a
# "Source" link to the source page; an impl's header a bare a.src.rightside; the top doc a
# <details> toggled by "Expand description"; a trait's declaration a toggle inside its <pre>;
# a trait method's summary line ends in "Read more".
RUSTDOC_PAGE = (
    '<html><head><title>HashMap in std::collections - Rust</title></head><body><main>'
    '<section id="main-content" class="content"><div class="main-heading">'
    '<h1>Struct <span class="struct">HashMap</span>&nbsp;<button id="copy-path">Copy item '
    'path</button></h1><span class="sub-heading"><span class="since" title="Stable since '
    'Rust version 1.0.0">1.0.0</span> · <a class="src" href="../../src/std/collections/'
    'hash/map.rs.html#247-254">Source</a> </span></div>'
    '<pre class="rust item-decl"><code>pub trait Iterator {\n    type Item;\n<details '
    'class="toggle type-contents-toggle"><summary class="hideme"><span>Show 76 methods</span>'
    '</summary>    // Required method\n    fn next(&amp;mut self);\n</details>}</code></pre>'
    '<details class="toggle top-doc" open><summary class="hideme"><span>Expand description'
    '</span></summary><div class="docblock"><p>A hash map implemented with quadratic probing.'
    '</p></div></details>'
    '<h2 id="implementations" class="section-header">Implementations<a href="#implementations"'
    ' class="anchor">§</a></h2><details class="toggle implementors-toggle" open><summary>'
    '<section id="impl-HashMap" class="impl"><a class="src rightside" href="../../src/std/'
    'collections/hash/map.rs.html#256-293">Source</a><a href="#impl-HashMap" class="anchor">'
    '§</a><h3 class="code-header">impl&lt;K, V&gt; HashMap&lt;K, V&gt;</h3></section>'
    '</summary><div class="impl-items"><details class="toggle method-toggle" open><summary>'
    '<section id="method.new" class="method"><span class="rightside"><span class="since" '
    'title="Stable since Rust version 1.0.0 (const: unstable)">1.0.0 (const: unstable)</span>'
    ' · <a class="src" href="../../src/std/collections/hash/map.rs.html#271-273">Source</a>'
    '</span><h4 class="code-header">pub fn new() -&gt; HashMap&lt;K, V&gt;</h4></section>'
    '</summary><div class="docblock"><p>Creates an empty HashMap.</p></div></details>'
    '<details class="toggle method-toggle" open><summary><section id="method.new_in" '
    'class="method"><a class="src rightside" href="../../src/std/collections/hash/map.rs.html'
    '#310">Source</a><h4 class="code-header">pub fn new_in(alloc: A) -&gt; Self</h4>'
    '</section></summary><span class="item-info"><div class="stab unstable"><span class='
    '"emoji">🔬</span><span>This is a nightly-only experimental API. (<code>allocator_api'
    '</code>&nbsp;<a href="https://github.com/rust-lang/rust/issues/32838">#32838</a>)</span>'
    '</div></span><div class="docblock"><p>Creates an empty HashMap using the given allocator.'
    '</p></div></details><details class="toggle method-toggle" open><summary><section '
    'id="method.clone" class="method trait-impl"><a class="src rightside" href="../../src/std/'
    'collections/hash/map.rs.html#1397-1399">Source</a><h4 class="code-header">fn clone(&amp;'
    'self) -&gt; Self</h4></section></summary><div class=\'docblock\'>Returns a duplicate of '
    'the value. <a href="../clone/trait.Clone.html#tymethod.clone">Read more</a></div>'
    '</details></div></details></section></main></body></html>')


def test_html_rustdoc_s_source_links_version_badges_and_toggles_are_left_out(tmp_path: Path):
    """rustdoc writes "1.0.0 · Source" above nearly every item, "Source" above every impl,
    "Expand description" over the top doc and "Read more" after a trait method's summary:
    read as text, once per function, they filled each method's chunk with noise (1,449
    characters of HashMap's page, 8.5% of 21 pages'). The nightly-only note is the item's
    own text and stays."""
    page = tmp_path / "struct.HashMap.html"
    page.write_text(RUSTDOC_PAGE, encoding="utf-8")
    assert extract(page).text.split("\n\n") == [
        "# Struct HashMap",
        "```rust\npub trait Iterator {\n    type Item;\n    // Required method\n"
        "    fn next(&mut self);\n}\n```",
        "A hash map implemented with quadratic probing.", "## Implementations",
        "### impl<K, V> HashMap<K, V>", "#### pub fn new() -> HashMap<K, V>",
        "Creates an empty HashMap.", "#### pub fn new_in(alloc: A) -> Self",
        "🔬This is a nightly-only experimental API. (allocator_api #32838)",
        "Creates an empty HashMap using the given allocator.", "#### fn clone(&self) -> Self",
        "Returns a duplicate of the value."]


def test_html_sphinx_and_pdoc_source_links_are_left_out(tmp_path: Path):
    """Sphinx's viewcode puts "[source]" after every signature (its markup), a page's
    "Show Source" links its reST, pdoc a "View Source" label over each item's listing."""
    page = tmp_path / "api.html"
    page.write_text(
        '<html><body><div class="body" role="main"><h1>demo</h1><dl class="py class">'
        '<dt class="sig sig-object py" id="demo.Widget">\n<span class="property"><span '
        'class="pre">class</span> </span><span class="sig-prename descclassname"><span '
        'class="pre">demo.</span></span><span class="sig-name descname"><span class="pre">'
        'Widget</span></span><a class="reference internal" href="_modules/demo.html#Widget">'
        '<span class="viewcode-link"><span class="pre">[source]</span></span></a><a '
        'class="headerlink" href="#demo.Widget">¶</a></dt><dd><p>A widget that frobs.</p>'
        '</dd></dl><p><a href="_sources/api.rst.txt" rel="nofollow">Show Source</a></p>'
        '<section id="reset"><input id="reset-view-source" class="view-source-toggle-state" '
        'type="checkbox" aria-hidden="true"><div class="attr function"><span class="def">def'
        '</span> <span class="name">reset</span>(path):<label class="view-source-button" '
        'for="reset-view-source"><span>View Source</span></label></div></section>'
        '</div></body></html>', encoding="utf-8")
    assert extract(page).text.split("\n\n") == [
        "# demo", "class demo.Widget", "A widget that frobs.", "def reset(path):"]


def test_html_a_toggle_s_label_goes_but_summaries_and_links_saying_something_stay(
        tmp_path: Path):
    """A <summary> that only labels its toggle ("Show") goes; what the furniture rules must
    not take stays: an FAQ's question in its <summary>, rustdoc's "marked as
    non-exhaustive" note, the word "source" linked in a sentence or naming a table of
    Cargo's configuration, and "read more" inside a sentence."""
    page = tmp_path / "faq.html"
    page.write_text(
        "<html><body><h1>Kiln FAQ</h1><details><summary>How do I reset it?</summary>"
        "<p>Hold the power button for ten seconds.</p></details>"
        '<details class="toggle non-exhaustive"><summary class="hideme"><span>This struct is '
        "marked as non-exhaustive</span></summary><div class='docblock'>Fields may be added."
        "</div></details><details><summary>Show</summary><p>Shown text.</p></details>"
        "<p>Download the <a href='src/kiln.tar.gz'>source</a> and build it.</p>"
        "<h3 id='source'><a href='#source'>[source]</a></h3>"
        "<p>You can <a href='guide.html'>read more</a>.</p></body></html>", encoding="utf-8")
    assert extract(page).text.split("\n\n") == [
        "# Kiln FAQ", "How do I reset it?", "Hold the power button for ten seconds.",
        "This struct is marked as non-exhaustive", "Fields may be added.", "Shown text.",
        "Download the source and build it.", "### [source]", "You can read more."]
