"""SVG drawings: a diagram's labels are text, read without OCR, in document order."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

from citeline.chunk import chunk_document, locate
from citeline.errors import ExtractionError, UnsupportedFormat
from citeline.extract import extractor_for
from citeline.types import Document

REAL = Path(__file__).parent / "fixtures" / "real"


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def test_a_graphviz_diagram_s_labels_are_its_text():
    doc = extract(REAL / "pumps-graph.svg")
    # each node's two lines one label; the nodes' names (tooltips) are not read
    assert doc.text.split("\n\n") == [
        "Harbour pumping: who feeds whom", "Sea intake\nscreen S-1", "P-104\nHarbour East",
        "raw water", "Header tank T-3", "120 m³/h", "P-102\nŁódź Północ"]
    assert (doc.extractor, doc.extractor_version, doc.title, doc.warnings) == (
        "svg", "1", "pumps-graph", ())
    at = doc.text.index("120 m³/h")
    assert locate(doc, at, at + 8).fragment == f"#char={at},{at + 8}"
    assert [c.content for c in chunk_document(doc)] == [doc.text]


def test_a_matplotlib_chart_with_its_fonts_as_text_gives_its_title_and_labels(tmp_path: Path):
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    with plt.rc_context({"svg.fonttype": "none"}):  # text as <text>, not as paths
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.plot(["Jan", "Feb", "Mar"], [120, 135, 150], label="Pump A")
        ax.set_title("Monthly flow at the harbour pumps")
        ax.set_xlabel("Month")
        ax.set_ylabel("Flow (m³/h)")
        ax.legend()
        fig.savefig(tmp_path / "flow.svg")
        plt.close(fig)
    blocks = extract(tmp_path / "flow.svg").text.split("\n\n")
    assert blocks[:3] == ["Jan", "Feb", "Mar"]
    for label in ("Month", "Flow (m³/h)", "Monthly flow at the harbour pumps", "Pump A"):
        assert label in blocks


def svg(body: str, head: str = "") -> bytes:
    return (f'<?xml version="1.0"?>{head}<svg xmlns="http://www.w3.org/2000/svg" '
            f'xmlns:xhtml="http://www.w3.org/1999/xhtml">{body}</svg>').encode()


def test_a_switch_draws_its_first_child_and_hidden_parts_are_not_read(tmp_path: Path):
    # draw.io's way: the HTML label first, the same words as <text> for viewers without
    # HTML, and a notice in a second switch; a tspan on a line of its own; hidden parts
    (tmp_path / "d.svg").write_bytes(svg(
        "<title>Pump room wiring</title><desc>How the float switch reaches the panel.</desc>"
        "<defs><text>a marker's text</text></defs>"
        '<switch><foreignObject><xhtml:div><xhtml:b>Float</xhtml:b> switch</xhtml:div>'
        "</foreignObject><text>Float switch</text></switch>"
        '<text>Panel <tspan x="0" dy="1.2em">terminal 3</tspan>'
        '<tspan display="none">hidden</tspan></text>'
        '<g style="display: none"><text>not drawn</text></g>'
        '<switch><g requiredFeatures="http://www.w3.org/TR/SVG11/feature#Extensibility"/>'
        "<a><text>Text is not SVG - cannot display</text></a></switch>"))
    doc = extract(tmp_path / "d.svg")
    assert doc.text.split("\n\n") == ["How the float switch reaches the panel.",
                                      "Float switch", "Panel\nterminal 3"]
    assert doc.title == "Pump room wiring"


def test_a_drawing_without_words_is_skipped_as_an_image_without_text():
    icon = Path(matplotlib.get_data_path()) / "images" / "home.svg"  # a toolbar icon
    with pytest.raises(UnsupportedFormat) as err:
        extract(icon)
    assert "no text in the drawing" in err.value.reason and err.value.lasting


def test_an_svg_that_is_not_one_is_named(tmp_path: Path):
    (tmp_path / "cut.svg").write_bytes(svg("<text>cut")[:-10])
    with pytest.raises(ExtractionError, match="its XML is damaged"):
        extract(tmp_path / "cut.svg")
    (tmp_path / "page.svg").write_bytes(b"<html><body>a web page</body></html>")
    with pytest.raises(ExtractionError, match="its root element is <html>, not <svg>"):
        extract(tmp_path / "page.svg")


def test_entities_are_not_expanded(tmp_path: Path):
    # a "billion laughs" file: entity definitions nested ten deep
    defs = '<!ENTITY a0 "lol">' + "".join(
        f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10))
    (tmp_path / "lol.svg").write_bytes(svg("<text>Pump &a9;</text>",
                                           f"<!DOCTYPE svg [{defs}]>"))
    with pytest.raises(ExtractionError, match="entity amplification"):  # libxml2 refuses it
        extract(tmp_path / "lol.svg")
    # one entity, used once: left as it is, not expanded
    (tmp_path / "one.svg").write_bytes(svg("<text>Pump &a0;</text>",
                                           '<!DOCTYPE svg [<!ENTITY a0 "P-104">]>'))
    assert "P-104" not in extract(tmp_path / "one.svg").text


def test_a_document_s_svg_picture_is_read_for_its_words_without_ocr(monkeypatch):
    from citeline.extract import image as imagemod

    monkeypatch.setattr(imagemod, "ocr_status", lambda: "OCR is not installed here")
    warnings: list[str] = []
    pictures = imagemod.PictureReader(warnings)
    graph = (REAL / "pumps-graph.svg").read_bytes()
    assert pictures.text(graph, "OEBPS/images/pumps.svg") == extract(REAL / "pumps-graph.svg").text
    assert pictures.text(b"<svg xmlns='http://www.w3.org/2000/svg'><text>cut", "b.svg") == ""
    pictures.close()
    assert len(warnings) == 1 and warnings[0].startswith(
        "picture 2 (b.svg): not a readable SVG drawing: its XML is damaged (")


def test_groups_nested_past_the_limit_are_not_read(tmp_path: Path):
    from citeline.extract.svg import MAX_DEPTH

    deep = "<g>" * 1500 + "<text>buried</text>" + "</g>" * 1500  # no RecursionError
    (tmp_path / "deep.svg").write_bytes(svg("<text>Pump room</text>" + deep))
    assert extract(tmp_path / "deep.svg").text == "Pump room"
    near = "<g>" * (MAX_DEPTH - 1) + "<text>found</text>" + "</g>" * (MAX_DEPTH - 1)
    (tmp_path / "near.svg").write_bytes(svg(near))
    assert extract(tmp_path / "near.svg").text == "found"
