"""LaTeX sources: read as written, their sections from their sectioning commands.

The canonical text is the ``.tex`` file, so a hit's content is checked against the file's
own text; a section's title is its argument read as text, levels follow the commands the
file uses, and nothing in a comment, an ``\\iffalse`` block or a verbatim environment is
a section. Through the real pipeline (real SQLite, the real model).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.extract import extractor_for

PAPER = r"""\documentclass{article}
\usepackage{listings}
\title{Reading the Harbour Tide Gauge\thanks{Written for the harbour office.}}
\author{Ana Ruiz}
\begin{document}
\maketitle

\section{Introduction}
The gauge at the north quay reads the tide every ten minutes.

\section[Calibration]{Calibration of the \texttt{tidectl} gauge}
\label{sec:calibration}
Reset the gauge to chart datum before the first reading: the reset takes two minutes.

% \section{An old section, commented out}
\begin{lstlisting}
\section{not a section: a line of the listing}
tidectl --reset north
\end{lstlisting}

\iffalse
\section{Left out of the paper}
\fi

\subsection*{Spring tides --- warnings}
A warning is raised when the spring tide passes 4.2~m (50\% above the mean).

\end{document}
"""


def test_sections_are_the_sectioning_commands_outside_comments_and_listings(tmp_path: Path):
    path = tmp_path / "gauge.tex"
    path.write_text(PAPER)
    doc = extractor_for(path).extract(path, "gauge.tex")
    assert doc.text == PAPER and (doc.extractor, doc.headings) == ("latex", "outline")
    assert doc.title == "Reading the Harbour Tide Gauge"
    assert [(h.level, h.title) for h in doc.outline] == [
        (1, "Introduction"), (1, "Calibration of the tidectl gauge"),
        (2, "Spring tides \u2014 warnings")]
    for h in doc.outline:  # each heading's span is its command in the file
        assert PAPER[h.start:h.end].startswith("\\") and PAPER[h.start:h.end].endswith("}")


def test_a_file_without_a_title_is_titled_by_its_name(tmp_path: Path):
    path = tmp_path / "chapter2.tex"
    path.write_text("\\chapter{Tides}\nThe ebb turns at noon.\n\\section{Ebb}\nIt turns.\n")
    doc = extractor_for(path).extract(path, "chapter2.tex")
    assert doc.title == "chapter2"
    assert [(h.level, h.title) for h in doc.outline] == [(1, "Tides"), (2, "Ebb")]


@pytest.fixture(scope="module")
def indexed(index_of):  # type: ignore[no-untyped-def]
    return index_of({"gauge.tex": PAPER})


def test_a_latex_hit_cites_the_file_and_its_section(indexed):
    idx, report = indexed
    assert report.indexed == ["gauge.tex"] and not report.failed
    hit = idx.search("how long does it take to reset the gauge to chart datum", k=3).hits[0]
    assert hit.document == "gauge.tex" and "two minutes" in hit.content
    assert hit.content == PAPER[hit.start:hit.end]
    assert hit.section == "Reading the Harbour Tide Gauge > Calibration of the tidectl gauge"
