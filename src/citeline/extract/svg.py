"""SVG drawings (.svg): the words a diagram is labelled with, which are text, not pixels.

A diagram exported as SVG (Graphviz's, matplotlib's with its fonts kept as text, a
draw.io or Mermaid export) keeps its labels as text: ``<text>`` elements (their
``<tspan>`` lines) and, for labels laid out as HTML, ``<foreignObject>``. They are read
without OCR, in document order (the order a screen reader reads them), each label a
paragraph of its own (a ``<text>`` of several lines, a line each), so the chunker packs
them and a citation is a ``#char=`` range of this text. Canonical text: the drawing's
description (the root's ``<desc>``) first, then the labels.

Read as a browser draws it: a ``<switch>`` shows its first child only (draw.io puts its
HTML label first and the same words as ``<text>`` after it, for viewers without HTML,
and a "Text is not SVG - cannot display" notice in a second switch); nothing inside
``<defs>``, ``<symbol>``, ``<style>``, ``<script>``, ``<metadata>``, masks, patterns,
markers or clip paths is drawn where it stands, nor is an element set ``display="none"``.
A ``<title>`` inside the drawing is a tooltip (Graphviz writes each node's name there), not
read; the root's is the document's title, unless it says nothing (Graphviz's ``%3`` for a
graph with no name). A drawing with no words (an icon, a logo) is skipped, as an image
with no text is.

The file is untrusted XML: no entities, DTDs or network (a "billion laughs" file is
refused, not expanded).
"""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import read_bytes, register
from citeline.extract.blocks import squash
from citeline.types import Document

SVG_MEDIA_TYPE = "image/svg+xml"
# Elements whose content is not drawn where it stands (definitions, styles, resources)
_NOT_DRAWN = frozenset({"defs", "symbol", "style", "script", "metadata", "clipPath", "mask",
                        "pattern", "marker", "linearGradient", "radialGradient", "filter",
                        "title", "desc"})
# A title that names nothing: Graphviz's "%3" (a graph with no name), a letter or two
_NO_TITLE = re.compile(r"%?\w{0,2}")
# Groups nested deeper than this are not read: the parser's huge-tree mode (needed for
# embedded rasters) lets 2,048 levels through, past Python's recursion limit
MAX_DEPTH = 200


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def _shown(el: etree._Element) -> bool:
    style = (el.get("style") or "").replace(" ", "")
    return el.get("display") != "none" and "display:none" not in style


def text_lines(el: etree._Element) -> str:
    """A ``<text>``'s words, a line for each ``<tspan>`` placed on a line of its own (with
    ``x`` or ``dy``), as a browser lays them out; a hidden ``<tspan>`` left out."""
    lines: list[list[str]] = [[]]

    def visit(node: etree._Element, depth: int) -> None:
        if node is not el and _local(node) == "tspan" and \
                (node.get("x") is not None or node.get("dy")):
            lines.append([])
        lines[-1].append(node.text or "")
        for child in node:
            if _local(child) and _shown(child) and _local(child) not in _NOT_DRAWN and \
                    depth < MAX_DEPTH:
                visit(child, depth + 1)
            lines[-1].append(child.tail or "")

    visit(el, 0)
    return "\n".join(said for parts in lines if (said := squash("".join(parts))))


def labels(root: etree._Element) -> list[str]:
    """The drawing's labels in document order (see the module doc): each ``<text>``'s
    lines (:func:`text_lines`), the ``<text>`` elements that follow one another in a group
    one label (Graphviz writes a node's label of two lines as two), each
    ``<foreignObject>``'s words; empty ones left out."""
    out: list[str] = []

    def walk(children: list[etree._Element], depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            return
        run = False  # the last element drawn was a <text>: the next one is its next line
        for child in children:
            name = _local(child)
            if not name or name in ("title", "desc"):  # a comment, a tooltip: no break
                continue
            if name in _NOT_DRAWN or not _shown(child):
                continue
            if name == "text":
                if said := text_lines(child):
                    if run and out:
                        out[-1] += "\n" + said
                    else:
                        out.append(said)
                    run = True
                continue
            run = False
            if name == "foreignObject":
                if said := squash(" ".join(child.itertext())):
                    out.append(said)
            elif name == "switch":  # a browser draws its first child (the one it can)
                walk([c for c in child if _local(c)][:1], depth + 1)
            else:
                walk(list(child), depth + 1)

    walk(list(root))
    return out


def parse(data: bytes) -> etree._Element:
    """The ``<svg>`` root of ``data``, parsed as untrusted XML (see the module doc);
    ValueError saying why when it is damaged or no SVG."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             huge_tree=True)  # an embedded raster may be megabytes long
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise ValueError(f"not a readable SVG drawing: its XML is damaged ({exc})") from exc
    if _local(root) != "svg":
        raise ValueError(f"not an SVG drawing: its root element is <{_local(root) or root.tag}>, "
                         "not <svg>")
    return root


def drawing_text(root: etree._Element) -> str:
    """A drawing's text: the root's ``<desc>``, then its :func:`labels`, a paragraph
    each; "" for a drawing with no words. The SVG reader's, and a document's SVG
    picture's (:class:`~citeline.extract.image.PictureReader`)."""
    desc = _own(root, "desc")
    return "\n\n".join(([desc] if desc else []) + labels(root))


def _own(root: etree._Element, name: str) -> str:
    """The words of the root's own ``<title>`` or ``<desc>`` (not a tooltip inside)."""
    return next((squash(" ".join(c.itertext())) for c in root if _local(c) == name), "")


class SvgExtractor:
    name = "svg"
    version = "1"
    suffixes = (".svg",)

    def extract(self, path: Path, rel: str) -> Document:
        try:
            root = parse(read_bytes(path, rel))
        except ValueError as exc:
            raise ExtractionError(rel, str(exc)) from exc
        if not (text := drawing_text(root)):
            raise UnsupportedFormat(rel, "no text in the drawing (an icon or a picture drawn "
                                         "without words is not indexed)", lasting=True)
        title = _own(root, "title")
        return Document(path=rel, title=title if not _NO_TITLE.fullmatch(title) else path.stem,
                        text=text, media_type=SVG_MEDIA_TYPE, extractor=self.name,
                        extractor_version=self.version, headings="none")


register(SvgExtractor())
