"""Manual pages (roff in the man(7) macros): read as ``man`` sets them.

The text is checked against groff's own rendering of the same source (an independent
reader: every word groff prints is in the document, and no other), and its structure
against what the page's macros say: sections are headings, an option and its text one
paragraph, an example a fenced block, a table's row a line. Files named like pages that
are not (a rotated log, a library) and aliases (``.so``) are skipped, each saying why
(BSD's mdoc pages are read: tests/test_extract_mdoc.py); a page goes through the real pipeline (real SQLite, the real model)
compressed, as /usr/share/man keeps it.
"""

from __future__ import annotations

import gzip
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from citeline.chunk import chunk_document
from citeline.errors import UnsupportedFormat
from citeline.extract import extractor_for, type_suffix, why_unsupported

# A page as the generators write them: a licence comment, pod2man's preamble (strings set
# by a condition, macros defined in it), a macro of the page's own, a synopsis in no-fill
# mode, options as tagged paragraphs, bullets, an example, a tbl table, a link.
TIDECTL = r""".\" Copyright 2026 The Harbour Authority
.\" SPDX-License-Identifier: MIT
.de Vb \" Begin verbatim text
.ft CW
.nf
.ne \\$1
..
.de Ve \" End verbatim text
.ft R
.fi
..
.ie n \{\
.    ds C` ""
.    ds C' ""
'br\}
.el\{\
.    ds C`
.    ds C'
'br\}
.ds Pa \fI/etc/tide\fP
.de FN
\fI\|\\$1\|\fP\\$2
..
.TH TIDECTL 8 "2026-03-01" "tidectl 2.1" "System Manager's Manual"
.SH NAME
tidectl \- control the harbour tide gauge
.SH SYNOPSIS
.nf
.B tidectl
.RB [ \-r | \-\-reset ]
.RI [ gauge ...]
.fi
.SH DESCRIPTION
.B tidectl
reads the tide gauge at the north quay and reports the height above chart datum
\(em in metres \(em every ten minutes.
Its configuration is read from
.FN /etc/tide/gauge.conf ,
in the folder \*(Pa, as \(lqthe caf\('e clock\(rq sets it: the \[u00E9]cluse
opens at high water.
.if t This line is set only on a typesetter.
.if n This line is set on a terminal.
.PP
The gauge keeps
.B 48
hours of readings.
.SH OPTIONS
.TP
.BR \-r ", " \-\-reset
Reset the gauge to chart datum before the first reading.
The reset takes two minutes.
.TP
\fB\-s\fR, \fB\-\-silent\fR
Report nothing unless the tide passes a warning mark.
.TP
.B "\-\-show\\-marks"
List the warning marks.
.SS Warning marks
A warning is raised when:
.IP \(bu 2
the spring tide passes four point two metres;
.IP \(bu 2
the gauge stops for more than an hour.
.SH EXAMPLES
.EX
# reset the north quay gauge
tidectl \-\-reset north
.EE
.SH FILES
.TS
tab(;);
l l.
File;Holds
_
/etc/tide/gauge.conf;the gauge's calibration
/var/lib/tide/readings;the last 48 hours of readings
.TE
.SH SEE ALSO
.UR https://tide.example.org/manual
The tide manual
.UE .
"""


def page(tmp_path: Path, name: str, source: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(source if isinstance(source, bytes) else source.encode())
    return path


def read(path: Path):  # type: ignore[no-untyped-def]
    return extractor_for(path).extract(path, path.name)


def words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.casefold()))


def test_words_are_those_groff_sets(tmp_path: Path):
    path = page(tmp_path, "tidectl.8", TIDECTL)
    doc = read(path)
    groff = subprocess.run(["groff", "-man", "-t", "-Tutf8", "-P-cbou", "-rLL=300n", "-rHY=0"],
                           input=TIDECTL.encode(), capture_output=True, check=True)
    lines = [ln for ln in groff.stdout.decode().split("\n") if ln.strip()]
    # groff's header and footer lines (name, section, date, source) are page furniture
    assert words("\n".join(lines[1:-1])) == words(doc.text)


def test_sections_options_examples_and_tables_keep_their_shape(tmp_path: Path):
    doc = read(page(tmp_path, "tidectl.8", TIDECTL))
    assert doc.title == "tidectl(8) \u2014 control the harbour tide gauge"
    assert (doc.extractor, doc.headings, doc.media_type) == ("man", "atx", "text/troff")
    blocks = doc.text.split("\n\n")
    assert [b for b in blocks if b.startswith("#")] == [
        "# NAME", "# SYNOPSIS", "# DESCRIPTION", "# OPTIONS", "## Warning marks",
        "# EXAMPLES", "# FILES", "# SEE ALSO"]
    # an option and what it does: one paragraph, the tag on its own line
    assert "-r, --reset\nReset the gauge to chart datum before the first reading. The " \
        "reset takes two minutes." in blocks
    assert "-s, --silent\nReport nothing unless the tide passes a warning mark." in blocks
    assert "--show-marks\nList the warning marks." in blocks  # "\\-" in an argument: a dash
    assert "- the spring tide passes four point two metres;" in blocks
    # an example is code, its "#" line a comment, not a heading
    assert "```\n# reset the north quay gauge\ntidectl --reset north\n```" in blocks
    assert "```\ntidectl\n[-r|--reset]\n[gauge...]\n```" in blocks  # the synopsis as set
    assert "File | Holds\n/etc/tide/gauge.conf | the gauge's calibration\n" \
           "/var/lib/tide/readings | the last 48 hours of readings" in blocks
    description = next(b for b in blocks if b.startswith("tidectl reads"))
    # special characters, the page's strings and its own macro (.FN), a terminal's branch
    assert "datum \u2014 in metres \u2014 every" in description
    assert "read from /etc/tide/gauge.conf, in the folder /etc/tide, as \u201cthe caf\u00e9 " \
           "clock\u201d sets it: the \u00e9cluse opens" in description
    assert "on a terminal" in description and "typesetter" not in doc.text
    assert "The tide manual <https://tide.example.org/manual>." in blocks
    assert not doc.warnings
    # sections for the chunker: the option's chunk is under OPTIONS
    chunks = chunk_document(doc)
    reset = next(c for c in chunks if "--reset\nReset" in c.content)
    assert reset.section.endswith("> OPTIONS") and reset.content == doc.text[reset.start:reset.end]


def test_a_line_calling_no_macro_is_dropped_with_a_warning(tmp_path: Path):
    source = TIDECTL.replace(".SH EXAMPLES", ".gcloudignore files are skipped\n.SH EXAMPLES")
    doc = read(page(tmp_path, "tidectl.8", source))
    assert "gcloudignore" not in doc.text  # as man drops it
    assert doc.warnings == ("1 lines start with a macro name no macro has, and were dropped "
                            "as man drops them: .gcloudignore (1)",)


def test_a_page_s_own_macros_nested_without_end_stop(tmp_path: Path):
    source = TIDECTL.replace(".SH OPTIONS", ".de LOOP\n.LOOP \\\\$1\n..\n.LOOP x\n.SH OPTIONS")
    doc = read(page(tmp_path, "tidectl.8", source))
    assert "# OPTIONS" in doc.text
    assert doc.warnings and "nested past 20 deep were not run: .LOOP (1)" in doc.warnings[0]


def test_files_named_like_pages_that_are_not_are_skipped_saying_why(tmp_path: Path):
    log = page(tmp_path, "syslog.1", "Mar  1 10:00:01 quay gauged: reading 4.2 m\n")
    library = page(tmp_path, "libtide.so.1", b"\x7fELF\x02\x01\x01" + bytes(200))
    alias = page(tmp_path, "tidestat.8", ".so man8/tidectl.8\n")
    for path, reason in ((log, "not a manual page: no .TH line"),
                         (library, "not a manual page: no .TH line"),
                         (alias, "an alias of man8/tidectl.8")):
        with pytest.raises(UnsupportedFormat, match=re.escape(reason)):
            read(path)
    assert why_unsupported(tmp_path / "backup.7z") == "unsupported file type '.7z'"


def test_a_distribution_s_section_suffixes_are_pages(tmp_path: Path):
    assert [type_suffix(Path(n)) for n in ("tidectl.8", "Tide::Gauge.3pm", "tide-req.1ssl",
                                           "tide.man", "tide.3gp")] == \
        [".8", ".man", ".man", ".man", ".3gp"]
    doc = read(page(tmp_path, "tide-req.1ssl", TIDECTL.replace("TIDECTL 8", "TIDE-REQ 1SSL")))
    assert doc.title.startswith("tidectl(1SSL) ")


def test_a_latin1_page_is_read_with_a_warning(tmp_path: Path):
    source = TIDECTL.replace("caf\\('e", "caf\u00e9").encode("latin-1")
    doc = read(page(tmp_path, "tidectl.8", source))
    assert "the caf\u00e9 clock" in doc.text and "Windows-1252" in doc.warnings[0]


@pytest.fixture(scope="module")
def indexed(index_of):  # type: ignore[no-untyped-def]
    return index_of({"man8/tidectl.8.gz": gzip.compress(TIDECTL.encode(), mtime=0),
                     "man8/tidestat.8.gz": gzip.compress(b".so man8/tidectl.8\n"),
                     "man8/tidectl.8.log.1": "gauge restarted\n"})


def test_a_compressed_page_is_indexed_and_its_option_cited(indexed):
    idx, report = indexed
    assert report.indexed == ["man8/tidectl.8.gz"] and not report.failed
    skipped = dict(report.skipped)
    assert "an alias of man8/tidectl.8" in skipped["man8/tidestat.8.gz"]
    assert "not a manual page" in skipped["man8/tidectl.8.log.1"]
    text = idx.document_text("man8/tidectl.8.gz")
    hits = idx.search("how do I reset the tide gauge to chart datum", k=3).hits
    hit = hits[0]
    assert hit.document == "man8/tidectl.8.gz" and "--reset\nReset the gauge" in hit.content
    assert hit.content == text[hit.start:hit.end]
    assert hit.section == "tidectl(8) \u2014 control the harbour tide gauge > OPTIONS"
    rec = idx.store.document("man8/tidectl.8.gz")
    assert rec is not None and rec.title.startswith("tidectl(8)")
