"""Jupyter notebooks (.ipynb), on files nbformat writes (the library Jupyter saves with,
each validated against the notebook schema): the cells in order as one Markdown text,
code fenced in the kernel's language, text outputs after their cell, what is no text
named in a warning, and a file that is no notebook refused with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from citeline.chunk import chunk_document, headings
from citeline.errors import ExtractionError
from citeline.extract import REGISTRY, extractor_for
from citeline.pipeline import Index
from citeline.types import Document


def extract(path: Path) -> Document:
    return extractor_for(path).extract(path, path.name)


def write(path: Path, cells: list, **metadata: object) -> Path:
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"},
        "language_info": {"name": "python", "version": "3.11.2"}, **metadata})
    nbformat.validate(nb)
    nbformat.write(nb, str(path))
    return path


def churn(folder: Path) -> Path:
    """A data scientist's notebook: prose with headings, code, what the code printed."""
    return write(folder / "churn.ipynb", [
        new_markdown_cell("# Churn model\n\nWhich customers leave, and why."),
        new_markdown_cell("## Loading the data\n\nOne row per customer, from the CRM export."),
        new_code_cell("import pandas as pd\n# the March export\ndf = pd.read_csv('churn.csv')\n"
                      "print(len(df), 'customers')", execution_count=1, outputs=[
                          new_output("stream", name="stdout", text="7043 customers\n")]),
        new_markdown_cell("## Results\n\nThe gradient-boosted model reached an AUC of 0.84 on "
                          "the held-out quarter; tenure under six months was the strongest "
                          "sign that a customer would leave."),
        new_code_cell("model.score(X_test, y_test)", execution_count=2, outputs=[
            new_output("execute_result", data={"text/plain": "0.8123"}, execution_count=2)]),
    ])


CHURN_TEXT = (
    "# Churn model\n\nWhich customers leave, and why.\n\n"
    "## Loading the data\n\nOne row per customer, from the CRM export.\n\n"
    "```python\nimport pandas as pd\n# the March export\ndf = pd.read_csv('churn.csv')\n"
    "print(len(df), 'customers')\n```\n\n"
    "```output\n7043 customers\n```\n\n"
    "## Results\n\nThe gradient-boosted model reached an AUC of 0.84 on the held-out quarter; "
    "tenure under six months was the strongest sign that a customer would leave.\n\n"
    "```python\nmodel.score(X_test, y_test)\n```\n\n"
    "```output\n0.8123\n```")


def test_cells_are_one_markdown_text_in_order_code_fenced_outputs_after(tmp_path: Path):
    doc = extract(churn(tmp_path))
    assert doc.text == CHURN_TEXT
    assert (doc.title, doc.extractor, doc.extractor_version) == ("Churn model", "ipynb", "2")
    assert doc.media_type == "application/x-ipynb+json" and not doc.warnings
    # the code's "# the March export" is a comment in a fence, not a section
    assert [h.title for h in headings(doc.text, doc.headings)] == [
        "Churn model", "Loading the data", "Results"]
    for c in chunk_document(doc):
        assert doc.text[c.start:c.end] == c.content
    assert {c.section for c in chunk_document(doc)} >= {"Churn model > Results"}


def test_pictures_and_widgets_are_named_in_a_warning_their_repr_not_indexed(tmp_path: Path):
    path = write(tmp_path / "plots.ipynb", [
        new_code_cell("df.plot()", outputs=[
            new_output("display_data", data={"image/png": "iVBORw0KGgo=",
                                             "text/plain": "<Figure size 640x480 with 1 Axes>"}),
            new_output("display_data", data={"image/png": "iVBORw0KGgo="}),
            new_output("display_data", data={
                "application/vnd.jupyter.widget-view+json": {"model_id": "ab12",
                                                             "version_major": 2,
                                                             "version_minor": 0},
                "text/plain": "<ipywidgets.IntSlider object>"}),
            # a table shown as HTML and as text: the text is read
            new_output("execute_result", data={"text/html": "<table><tr><td>42</td></tr></table>",
                                               "text/plain": "   n\n0  42"}, execution_count=3),
        ]),
    ])
    doc = extract(path)
    assert doc.text == "```python\ndf.plot()\n```\n\n```output\n   n\n0  42\n```"
    assert doc.warnings == ("3 parts with no text to read not indexed: "
                            "application/vnd.jupyter.widget-view+json, image/png (2)",)
    assert doc.title == "plots"  # no heading, no title in the metadata: the file's name


def test_a_picture_pasted_into_markdown_keeps_its_uri_not_its_data(tmp_path: Path):
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    path = write(tmp_path / "pasted.ipynb", [
        new_markdown_cell(f"# Plots\n\nThe loss curve:\n\n![loss](data:image/png;base64,{png})\n\n"
                          f'<img src="data:image/jpeg;base64,{png * 2}" alt="ROC">'),
    ], language_info={"name": "my lang`"})
    doc = extract(path)
    assert doc.text == ("# Plots\n\nThe loss curve:\n\n![loss](data:image/png;base64,…)\n\n"
                        '<img src="data:image/jpeg;base64,…" alt="ROC">')
    assert doc.warnings == ("2 parts with no text to read not indexed: image/jpeg, image/png",)
    path = write(tmp_path / "lang.ipynb", [new_code_cell("x = 1")],
                 language_info={"name": "my lang`"})
    assert extract(path).text == "```mylang\nx = 1\n```"


def test_errors_are_their_name_and_message_without_the_terminal_traceback(tmp_path: Path):
    path = write(tmp_path / "fails.ipynb", [
        new_code_cell("df['tenure']", outputs=[
            new_output("stream", name="stderr", text="\x1b[0;33mwarning:\x1b[0m old pandas\n"),
            new_output("error", ename="KeyError", evalue="'tenure'",
                       traceback=["\x1b[0;31m---------\x1b[0m", "\x1b[0;31mKeyError\x1b[0m: 'tenure'"]),
            new_output("error", ename="KeyboardInterrupt", evalue="", traceback=[]),
        ]),
    ])
    assert extract(path).text == ("```python\ndf['tenure']\n```\n\n```output\nwarning: old pandas\n"
                                  "```\n\n```output\nKeyError: 'tenure'\n```\n\n"
                                  "```output\nKeyboardInterrupt\n```")


def test_a_progress_bar_s_line_is_its_last_state_as_jupyter_shows_it(tmp_path: Path):
    """tqdm and pip rewrite one line with carriage returns; the notebook stores every
    update, and Jupyter's output area shows the last."""
    bar = "".join(f"\r{p:3d}%|{'#' * (p // 10):<10}| {p}/100" for p in range(0, 101, 5))
    path = write(tmp_path / "train.ipynb", [
        new_code_cell("fit(model)", outputs=[
            new_output("stream", name="stderr", text=f"{bar}\r\n"),
            new_output("stream", name="stdout", text="epoch 1\rEpoch 1: loss 0.41\nEpoch 2: loss 0.33\n"),
        ]),
    ])
    assert extract(path).text == ("```python\nfit(model)\n```\n\n```output\n100%|##########| 100/100\n"
                                  "```\n\n```output\nEpoch 1: loss 0.41\nEpoch 2: loss 0.33\n```")


def test_backticks_in_code_never_close_its_fence(tmp_path: Path):
    code = 'readme = """\n```\n# Install\n```\n"""'
    path = write(tmp_path / "docs.ipynb", [
        new_code_cell(code), new_markdown_cell("# After the code\n\nProse again.")])
    doc = extract(path)
    assert doc.text == f"````python\n{code}\n````\n\n# After the code\n\nProse again."
    assert [h.title for h in headings(doc.text, doc.headings)] == ["After the code"]


def test_a_fence_a_markdown_cell_leaves_open_is_closed_at_its_end(tmp_path: Path):
    """Jupyter renders each cell on its own: an unclosed fence must not turn every later
    cell into code (here, the next section's heading)."""
    path = write(tmp_path / "open.ipynb", [
        new_markdown_cell("# Setup\n\nRun this:\n~~~~bash\npip install churn"),
        new_markdown_cell("# Training\n\nFit the model."),
    ])
    doc = extract(path)
    assert doc.text == ("# Setup\n\nRun this:\n~~~~bash\npip install churn\n~~~~\n\n"
                        "# Training\n\nFit the model.")
    assert [h.title for h in headings(doc.text, doc.headings)] == ["Setup", "Training"]


def test_raw_cells_the_metadata_title_and_another_kernel_s_language(tmp_path: Path):
    path = write(tmp_path / "r.ipynb", [
        new_raw_cell(".. note:: for nbconvert"), new_markdown_cell("# Survival curves"),
        new_code_cell("fit <- survfit(Surv(time, status) ~ 1)"), new_code_cell("   \n"),
    ], title="Churn in R", kernelspec={"name": "ir", "language": "R", "display_name": "R"},
        language_info={"name": "R"})
    doc = extract(path)
    assert doc.title == "Churn in R"
    assert doc.text == ("```raw\n.. note:: for nbconvert\n```\n\n# Survival curves\n\n"
                        "```R\nfit <- survfit(Surv(time, status) ~ 1)\n```")


@pytest.mark.parametrize(("content", "reason"), [
    (b"", "empty file (0 bytes), not a Jupyter notebook"),
    (b'{"cells": [], "nbformat": 4,', "not a Jupyter notebook: invalid JSON at line 1, column 29"),
    (b"\xff\xfe{}", "not a Jupyter notebook: not UTF-8 (byte 0)"),
    (b'{"name": "package.json, not a notebook"}', "not a Jupyter notebook: no nbformat version"),
    (json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": []}).encode(),
     "a version 3 notebook (IPython 3 or older): open it in Jupyter and save it"),
    (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": {}}).encode(),
     "not a valid notebook: 'cells' is not a list"),
    (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                 "cells": [{"cell_type": "markdown", "source": 7}]}).encode(),
     "not a valid notebook: cell 1's source is neither text nor a list of lines"),
    (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                 "cells": [{"cell_type": "code", "source": "", "outputs": []}]}).encode(),
     "the notebook has no text in its 1 cells"),
])
def test_a_file_that_is_no_notebook_says_why(tmp_path: Path, content: bytes, reason: str):
    path = tmp_path / "bad.ipynb"
    path.write_bytes(content)
    with pytest.raises(ExtractionError) as err:
        extract(path)
    assert err.value.path == "bad.ipynb" and err.value.reason.startswith(reason), err.value.reason


def test_the_suffix_is_registered_with_a_name_and_version():
    assert (REGISTRY[".ipynb"].name, REGISTRY[".ipynb"].version) == ("ipynb", "2")


def test_a_notebook_s_result_is_found_through_the_index_and_a_broken_one_fails_alone(
        tmp_path: Path, embedder):
    """The real pipeline: real SQLite, the real model. A notebook was skipped as an unknown
    type; now its prose and outputs are searchable, cited by its heading path, and a
    damaged notebook beside it fails with its reason while the rest is indexed."""
    folder = tmp_path / "docs"
    folder.mkdir()
    churn(folder)
    (folder / "broken.ipynb").write_text('{"nbformat": 4, "cells": [')
    idx = Index(tmp_path / "index", embedder=embedder)
    try:
        report = idx.index(folder)
        assert report.indexed == ["churn.ipynb"]
        assert report.failed == [
            ("broken.ipynb", "not a Jupyter notebook: invalid JSON at line 1, column 27 "
                             "(Expecting value)")]
        hit = idx.search("what was the strongest sign a customer would churn", k=3).hits[0]
        assert "tenure under six months was the strongest sign" in hit.content
        assert (hit.document, hit.section) == ("churn.ipynb", "Churn model > Results")
        assert idx.store.document_text("churn.ipynb")[hit.start:hit.end] == hit.content
        assert hit.to_json()["locator"] == f"#char={hit.start},{hit.end}"
    finally:
        idx.close()


def test_a_long_output_keeps_its_head_and_tail_and_says_what_was_left_out(tmp_path: Path):
    from citeline.extract.notebook import OUTPUT_KEEP_CHARS, OUTPUT_KEEP_LINES
    log = "".join(f"epoch {i} loss {1 / i:.4f}\n" for i in range(1, 10_001)) + "final AUC 0.931\n"
    table = "".join(f"row {i}\n" for i in range(OUTPUT_KEEP_LINES * 2 + OUTPUT_KEEP_LINES))
    one_line = "[" + ", ".join(str(i) for i in range(40_000)) + "]"
    doc = extract(write(tmp_path / "train.ipynb", [
        new_markdown_cell("# Training\n\nThe model trained for ten thousand epochs."),
        new_code_cell("fit(model)", outputs=[new_output("stream", name="stdout", text=log)]),
        new_code_cell("print(table)", outputs=[new_output("stream", name="stdout", text=table)]),
        new_code_cell("ids", outputs=[new_output("execute_result", data={"text/plain": one_line},
                                                 execution_count=3)]),
    ]))
    logs = log.strip("\n").split("\n")
    left_out = "\n".join(logs[OUTPUT_KEEP_LINES:-OUTPUT_KEEP_LINES])
    assert ("```output\n" + "\n".join(logs[:OUTPUT_KEEP_LINES])
            + f"\n[… {len(left_out):,} characters ({len(logs) - 2 * OUTPUT_KEEP_LINES:,} lines) "
            "of this output left out …]\n" + "\n".join(logs[-OUTPUT_KEEP_LINES:]) + "\n```"
            ) in doc.text
    assert "epoch 5000 loss" not in doc.text and "final AUC 0.931\n```" in doc.text
    # left out only when the middle is more than one end keeps: 120 lines stay whole
    assert "```output\n" + table.strip("\n") + "\n```" in doc.text
    # an output of one enormous line keeps as many characters from each end
    assert ("```output\n" + one_line[:OUTPUT_KEEP_CHARS] + "\n[… "
            f"{len(one_line) - 2 * OUTPUT_KEEP_CHARS:,} characters (1 line) of this output "
            "left out …]\n" + one_line[-OUTPUT_KEEP_CHARS:] + "\n```") in doc.text
    assert doc.warnings == ("2 long outputs indexed as their first and last lines, the middle "
                            "left out: cells 2, 4",)
