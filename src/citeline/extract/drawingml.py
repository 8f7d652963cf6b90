"""DrawingML ([ECMA-376] Part 1, 20-21), what Word, PowerPoint and Excel draw with: what
a drawing says beside its pixels, for the readers of those formats.

- :func:`drawing_alt`: a drawing's alt text, what a reader who cannot see it gets (its
  description, else its title), unless it says nothing
  (:func:`~citeline.extract.blocks.described`) or the author marked the drawing
  :func:`decorative`;
- :func:`chart_text`: what a chart says of itself, a sentence of its title, kind, series
  and axes (its numbers are a workbook's cells, or the chart's own cache);
- :func:`smartart_text`: a SmartArt diagram's text, one line per node in its order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from lxml import etree

from citeline.extract.blocks import described, one_paragraph

_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_CHART = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
_DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
# The points that are a diagram's content (ST_PtType): the rest are its document root,
# the connectors' transitions and the layout's presentation shapes.
_CONTENT_POINTS = frozenset({"node", "asst"})


# Microsoft 365's mark on a drawing its author set as decorative (a border, a divider):
# an a:extLst extension of its non-visual properties, [MS-ODRAWXML] 2.5.2.
_DECORATIVE = "{http://schemas.microsoft.com/office/drawing/2017/decorative}decorative"


def decorative(props: Any) -> bool:
    """Whether the author marked the Office Open XML drawing whose non-visual properties
    are ``props`` (Word's ``wp:docPr``, a ``cNvPr``) as decorative: a border, a divider,
    which a screen reader skips and which holds nothing to index, its pixels' text
    neither."""
    return props is not None and any(mark.get("val") in ("1", "true")
                                     for mark in props.iter(_DECORATIVE))


def drawing_alt(props: Any) -> str:
    """The alt text of an Office Open XML drawing (a picture, a chart), from its
    non-visual properties ``props``: its description, else its title (the two fields of
    Office's alt text; mammoth reads them so), as
    :func:`~citeline.extract.blocks.described` keeps it; "" for none, or for a drawing
    marked :func:`decorative`."""
    if props is None or decorative(props):
        return ""
    return described(props.get("descr") or "") or described(props.get("title") or "")


def chart_text(space: Any) -> str:
    """What a chart (a DrawingML ``chartSpace``, ECMA-376 Part 1, 21.2) says of itself, as
    a sentence or two: its title, its kind, its series' names, its axes' titles; the
    numbers are the sheet's cells. "" for a chart that names nothing.

    >>> xml = ('<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart">'
    ...        '<c:chart><c:title><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>Units by site'
    ...        '</c:v></c:pt></c:strCache></c:strRef></c:tx></c:title><c:plotArea><c:barChart>'
    ...        '<c:barDir val="col"/></c:barChart></c:plotArea></c:chart></c:chartSpace>')
    >>> chart_text(etree.fromstring(xml))
    'Units by site. A column chart.'
    """
    chart = space.find(_CHART + "chart")
    plot = chart.find(_CHART + "plotArea") if chart is not None else None
    if plot is None:
        return ""
    title = _chart_label(chart.find(_CHART + "title"))
    kinds: dict[str, None] = {}
    for el in plot:
        name = etree.QName(el).localname
        if name.endswith("Chart"):
            kind = name.removesuffix("Chart").replace("3D", "").removeprefix("of").lower()
            if kind == "bar" and el.find(_CHART + "barDir") is not None and \
                    el.find(_CHART + "barDir").get("val") == "col":
                kind = "column"
            kinds[kind] = None
    series = [name for ser in plot.iter(_CHART + "ser")
              if (name := _chart_label(ser.find(_CHART + "tx")))]
    axes = [name for ax in plot if etree.QName(ax).localname in ("catAx", "valAx", "dateAx",
                                                                "serAx")
            if (name := _chart_label(ax.find(_CHART + "title")))]
    return chart_sentence(title, list(kinds), series, axes)


def chart_sentence(title: str, kinds: Sequence[str], series: Sequence[str],
                   axes: Sequence[str]) -> str:
    """What a chart says of itself as the text shows it, the same for an .xlsx's and an
    .ods's; "" when it names nothing.

    >>> chart_sentence("Flow", ["line"], ["Pump A", "Pump B"], ["Month"])
    'Flow. A line chart of Pump A, Pump B; axes: Month.'
    """
    if not (title or series or axes):
        return ""
    said = f"A {' and '.join(kinds) or 'plain'} chart"
    said += f" of {', '.join(series)}" if series else ""
    said += f"; axes: {', '.join(axes)}" if axes else ""
    return f"{title}. {said}." if title else f"{said}."


def _chart_label(el: Any) -> str:
    """The text of a chart's title or series name: its rich text's runs, or the cached
    value of the cell it names (``strRef``'s ``strCache``), or a literal ``v``."""
    if el is None:
        return ""
    runs = [t.text or "" for t in el.iter(_A + "t")]
    if not runs:
        runs = [v.text or "" for v in el.iter(_CHART + "v")]
    return " ".join("".join(runs).split())


def smartart_text(data: Any) -> str:
    """A SmartArt diagram's text, from its data part (``dgm:dataModel``, ECMA-376 Part 1,
    21.4; a deck's and a Word document's alike): one line per node, in the diagram's
    order (from its root, each node's children by their ``srcOrd``, a node's sub-points
    right after it); a node no connection reaches comes last, in the order the data
    lists it."""
    texts: dict[str, str] = {}
    roots = []
    for pt in data.iter(f"{_DGM}pt"):
        kind, model = pt.get("type", "node"), pt.get("modelId", "")
        if kind == "doc":
            roots.append(model)
        elif kind in _CONTENT_POINTS and (t := pt.find(f"{_DGM}t")) is not None:
            texts[model] = one_paragraph("\n".join(
                "".join(r.text or "" for r in p.iter(f"{_A}t")) for p in t.iter(f"{_A}p")))
    children: defaultdict[str, list[tuple[int, str]]] = defaultdict(list)
    for cxn in data.iter(f"{_DGM}cxn"):
        if cxn.get("type", "parOf") == "parOf":
            order = cxn.get("srcOrd", "0")
            children[cxn.get("srcId", "")].append((int(order) if order.isdigit() else 0,
                                                   cxn.get("destId", "")))
    order: list[str] = []
    seen: set[str] = set()
    stack = [child for root in reversed(roots) for _, child in sorted(children[root], reverse=True)]
    while stack:  # depth first, without recursion (a diagram's data may be deep or cyclic)
        model = stack.pop()
        if model not in seen:
            seen.add(model)
            order.append(model)
            stack.extend(child for _, child in sorted(children[model], reverse=True))
    order += [m for m in texts if m not in seen]
    return "\n".join(texts[m] for m in order if texts.get(m))
