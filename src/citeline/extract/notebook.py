"""Jupyter notebooks (``.ipynb``, nbformat 4): the cells as one Markdown text.

A notebook is JSON: a list of cells, each Markdown prose, code, or raw text, a code
cell with the outputs its last run printed or displayed. What a reader of the
notebook sees, in the cells' order, is the canonical text:

- a Markdown cell as written (its ``#`` headings are the notebook's sections, as
  JupyterLab's table of contents reads them);
- a code cell as a fenced block in the kernel's language (```` ```python ````), its
  fence longer than any run of backticks in the code, so no line of code closes it;
- each text output of a code cell after it, as a fenced ```` ```output ```` block: what
  it printed (stdout, stderr), the value it returned or displayed (``text/plain``,
  else ``text/markdown``), an error as ``ValueError: the message`` (the traceback,
  coloured for a terminal, is left out); terminal colour codes are removed, and a line a
  progress bar rewrote with ``\r`` is its last state, as Jupyter shows it. A long output
  keeps its first and last :data:`OUTPUT_KEEP_LINES` lines (at most
  :data:`OUTPUT_KEEP_CHARS` characters each), with a line between them saying how much
  was left out, and a warning names its cell: a training loop's ten thousand log lines or
  a data frame printed whole are pages of numbers no question is answered from, which
  would outnumber the notebook's prose in the index, while its first lines (what ran,
  with which settings) and its last (where it ended, the final figures) are what a reader
  looks at;
- a raw cell as a fenced ```` ```raw ```` block (nbconvert's pass-through text).

Cells are separated by a blank line. A Markdown cell that opens a code fence and
never closes it is closed at the cell's end, as Jupyter renders each cell on its
own: otherwise every cell after it would read as code. What is not text is named in
a warning, never silently dropped: pictures, HTML-only and widget outputs, and the
base64 data of a picture pasted into a Markdown cell as a ``data:`` URI (the URI is
kept, its data shortened to "…").

Citations are ``#char=`` ranges with the heading path, as for Markdown.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from citeline.chunk import fence_starts
from citeline.errors import ExtractionError
from citeline.extract import read_bytes, register
from citeline.extract.blocks import TextBuilder, fenced
from citeline.extract.text import heading_title
from citeline.types import Document

MEDIA_TYPE = "application/x-ipynb+json"
# The text a display or result is read from, the first the output has.
TEXT_OUTPUTS = ("text/plain", "text/markdown")
# ECMA-48 control sequences (colours, cursor moves) that terminals, and so
# tracebacks and progress bars, write into a stream.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# A carriage return takes the line back to its start: a progress bar (tqdm, pip) writes
# every update of one line, and Jupyter shows the last, dropping what comes before the
# line's last run of "\r" as its output area does (removeOverwrittenChars).
_CR_BEFORE_NEWLINE = re.compile(r"\r+\n")
_OVERWRITTEN = re.compile(r"^.*\r+", re.M)
# An object's default repr, all the text/plain a picture or widget output carries
# ("<Figure size 640x480 with 1 Axes>", "<IPython.core.display.Image object>").
_REPR = re.compile(r"<[^<>\n]*>")
# A picture pasted into a Markdown cell as a data URI (``![plot](data:image/png;base64,...)``,
# ``<img src="data:...">``): kilobytes of base64 that no one reads. Its data is left out
# (the URI keeps its type), the picture counted in the warning.
_DATA_URI = re.compile(r"(data:([\w.+-]+/[\w.+-]+)(?:;[\w=.-]+)*;base64,)[A-Za-z0-9+/=\s]{64,}")

# How much of a long output is kept at each end (lines, and characters for outputs of a
# few enormous lines); the middle is left out with a line that says how much.
OUTPUT_KEEP_LINES = 40
OUTPUT_KEEP_CHARS = 4000


def _source(value: Any, where: str, rel: str) -> str:
    """A cell's source or an output's text: a string, or a list of lines to join."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return "".join(value)
    raise ExtractionError(rel, f"not a valid notebook: {where} is neither text nor a list "
                               "of lines")


def _closed(markdown: str) -> str:
    """A Markdown cell with a fence it opens and never closes, closed at its end."""
    starts = fence_starts(markdown)
    if len(starts) % 2 == 0:
        return markdown
    opener = re.match(r" {0,3}(`{3,}|~{3,})", markdown[starts[-1]:])
    assert opener is not None  # fence_starts gives only fence lines
    return f"{markdown}\n{opener.group(1)}"


def _head(text: str) -> str:
    """The first lines of ``text`` up to :data:`OUTPUT_KEEP_LINES` lines and
    :data:`OUTPUT_KEEP_CHARS` characters (cut inside a line only when the first is longer)."""
    head = "\n".join(text.split("\n", OUTPUT_KEEP_LINES)[:OUTPUT_KEEP_LINES])
    if len(head) > OUTPUT_KEEP_CHARS:
        head = head[:OUTPUT_KEEP_CHARS]
        head = head[:head.rindex("\n")] if "\n" in head else head
    return head


def _tail(text: str) -> str:
    """The last lines of ``text``, as :func:`_head` takes the first."""
    tail = "\n".join(text.rsplit("\n", OUTPUT_KEEP_LINES)[-OUTPUT_KEEP_LINES:])
    if len(tail) > OUTPUT_KEEP_CHARS:
        tail = tail[-OUTPUT_KEEP_CHARS:]
        tail = tail[tail.index("\n") + 1:] if "\n" in tail else tail
    return tail


def _shortened(text: str) -> str | None:
    """A long output as its head and tail around a line that says what is left out
    between them; None when what would be left out is less than one end keeps."""
    head, tail = _head(text), _tail(text)
    middle = text[len(head):len(text) - len(tail)].strip("\n")
    lines = middle.count("\n") + 1
    if lines <= OUTPUT_KEEP_LINES and len(middle) <= OUTPUT_KEEP_CHARS:
        return None
    return (f"{head}\n[… {len(middle):,} characters ({lines:,} line{'s' * (lines > 1)}) of "
            f"this output left out …]\n{tail}")


def _output(out: Any, n: int, rel: str, left_out: Counter[str],
            shortened: list[int]) -> str | None:
    """The text of one output of code cell ``n`` (None when it has none to read)."""
    if not isinstance(out, dict):
        raise ExtractionError(rel, f"not a valid notebook: output of cell {n} is no object")
    kind = out.get("output_type")
    if kind == "stream":
        text = _source(out.get("text", ""), f"cell {n}'s {out.get('name', 'stream')}", rel)
    elif kind in ("execute_result", "display_data"):
        data = out.get("data")
        if not isinstance(data, dict):
            data = {}
        shown = next((t for t in TEXT_OUTPUTS if t in data), None)
        text = "" if shown is None else _source(data[shown], f"cell {n}'s {shown} output", rel)
        rich = [t for t in data if t not in TEXT_OUTPUTS]
        if shown is None or (rich and _REPR.fullmatch(text.strip())):
            left_out.update(rich or ["an empty display"])
            return None
    elif kind == "error":
        name, value = str(out.get("ename") or "Error"), str(out.get("evalue") or "")
        text = f"{name}: {value}" if value else name
    else:
        left_out[f"output type {kind!r}"] += 1
        return None
    text = _OVERWRITTEN.sub("", _CR_BEFORE_NEWLINE.sub("\n", _ANSI.sub("", text))).strip("\n")
    if not text.strip():
        return None
    if (short := _shortened(text)) is not None:
        shortened.append(n)
        return short
    return text


class NotebookExtractor:
    name = "ipynb"
    version = "2"  # 2: a long output keeps its head and tail, its middle left out
    suffixes = (".ipynb",)

    def extract(self, path: Path, rel: str) -> Document:
        data = read_bytes(path, rel, empty="empty file (0 bytes), not a Jupyter notebook")
        try:
            nb = json.loads(data.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise ExtractionError(rel, f"not a Jupyter notebook: not UTF-8 (byte "
                                       f"{exc.start})") from exc
        except json.JSONDecodeError as exc:
            raise ExtractionError(rel, f"not a Jupyter notebook: invalid JSON at line "
                                       f"{exc.lineno}, column {exc.colno} ({exc.msg})") from exc
        if not isinstance(nb, dict) or not isinstance(nb.get("nbformat"), int):
            raise ExtractionError(rel, "not a Jupyter notebook: no nbformat version in it")
        if nb["nbformat"] < 4:
            raise ExtractionError(rel, f"a version {nb['nbformat']} notebook (IPython 3 or "
                                       "older): open it in Jupyter and save it, which "
                                       "converts it to version 4, then index it again")
        cells = nb.get("cells")
        if not isinstance(cells, list):
            raise ExtractionError(rel, "not a valid notebook: 'cells' is not a list")
        meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
        info = meta.get("language_info") if isinstance(meta.get("language_info"), dict) else {}
        spec = meta.get("kernelspec") if isinstance(meta.get("kernelspec"), dict) else {}
        language = str(info.get("name") or spec.get("language") or "")  # fenced() cleans it
        out = TextBuilder()
        left_out: Counter[str] = Counter()
        shortened: list[int] = []
        for n, cell in enumerate(cells, start=1):
            if not isinstance(cell, dict):
                raise ExtractionError(rel, f"not a valid notebook: cell {n} is no object")
            kind = cell.get("cell_type")
            source = _source(cell.get("source", ""), f"cell {n}'s source", rel).strip("\n")
            if kind == "markdown":
                for m in _DATA_URI.finditer(source):
                    left_out[m.group(2)] += 1
                source = _DATA_URI.sub(r"\1…", source)
                if source.strip():
                    out.add(_closed(source.rstrip()), sep="\n\n")
            elif kind == "code":
                if source.strip():
                    out.add(fenced(source, language), sep="\n\n")
                outputs = cell.get("outputs", [])
                for output in outputs if isinstance(outputs, list) else []:
                    if (text := _output(output, n, rel, left_out, shortened)) is not None:
                        out.add(fenced(text, "output"), sep="\n\n")
            elif kind == "raw":
                if source.strip():
                    out.add(fenced(source, "raw"), sep="\n\n")
            else:
                left_out[f"cell type {kind!r}"] += 1
        text = out.text()
        if not text.strip():
            raise ExtractionError(rel, f"the notebook has no text in its {len(cells)} cells")
        warnings: list[str] = []
        if left_out:
            n = sum(left_out.values())
            what = ", ".join(f"{k} ({v})" if v > 1 else k for k, v in sorted(left_out.items()))
            warnings.append(f"{n} part{'s' if n > 1 else ''} with no text to read not indexed: "
                            f"{what}")
        if shortened:
            cells_named = sorted(set(shortened))
            warnings.append(f"{len(shortened)} long output{'s' * (len(shortened) > 1)} indexed "
                            f"as {'their' if len(shortened) > 1 else 'its'} first and last lines, the middle left out: "
                            f"cell{'s' * (len(cells_named) > 1)} "
                            f"{', '.join(map(str, cells_named))}")
        title = str(meta.get("title") or "").strip() or heading_title(text, "markdown",
                                                                      path.stem)
        return Document(
            path=rel,
            title=title,
            text=text,
            media_type=MEDIA_TYPE,
            extractor=self.name,
            extractor_version=self.version,
            headings="markdown",
            warnings=tuple(warnings),
        )


register(NotebookExtractor())
