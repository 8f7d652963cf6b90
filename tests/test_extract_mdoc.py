"""Manual pages in BSD's mdoc(7) macros: read to a man(7) page's conventions.

The text is checked against groff's own rendering of the same source (``groff -mdoc``,
an independent reader: every word groff prints is in the document, and no other), and
its structure against what the macros say: sections are headings, an option and its
text one paragraph, ``.Op Fl a Ar file`` the ``[-a file]`` groff sets, a column list's
row a line, a literal display a fenced block. The pages are written here, as the BSDs
write theirs; none is read from /usr/share/man.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from citeline.chunk import chunk_document
from citeline.errors import UnsupportedFormat
from citeline.extract import extractor_for

# A utility's page as OpenBSD writes one: the licence comment, the prologue, a synopsis
# of options, a tagged list of them (one with an .Xo tag and .Sm off), bullets, an
# enumeration, a column list, displays, quotes, a standard, a reference, the exit status.
TIDE = r""".\"	$OpenBSD: tide.1,v 1.4 2026/03/01 harbour Exp $
.\" Copyright (c) 2026 The Harbour Authority
.Dd $Mdocdate: March 1 2026 $
.Dt TIDE 1
.Os
.Sh NAME
.Nm tide
.Nd read the harbour tide gauge
.Sh SYNOPSIS
.Nm tide
.Op Fl qv
.Op Fl o Ar file
.Op Fl L Oo Ar bind_address : Oc Ns Ar port
.Ar gauge ...
.Nm tide
.Fl r
.Sh DESCRIPTION
.Nm
reads the tide gauge at the north quay, as
.Xr tidectl 8
sets it, and reports the height above chart datum
.Pq in metres .
Its configuration is read from
.Pa /etc/tide.conf ,
or from the file named by
.Ev TIDE_CONF .
A reading is
.Dq high
or
.Sq low ;
a quoted command is
.Ql tide -q .
.Pp
The options are as follows:
.Bl -tag -width Ds
.It Fl o Ar file
Write the readings to
.Ar file
instead of the standard output.
.It Xo
.Fl L
.Sm off
.Oo Ar bind_address : Oc
.Ar port
.Sm on
.Xc
Listen for readers on
.Ar port .
.It Fl q
Report nothing unless the tide passes a warning mark.
.El
.Ss Warning marks
A warning is raised when:
.Bl -bullet -compact
.It
the spring tide passes four point two metres;
.It
the gauge stops for more than an hour.
.El
.Pp
A reset runs in three steps:
.Bl -enum
.It
the gauge is stopped;
.It
its float is lowered to chart datum;
.It
it is started again.
.El
.Sh FILES
.Bl -column "/var/lib/tide/readings" "Holds"
.It Sy File Ta Sy Holds
.It Pa /etc/tide.conf Ta the gauge's calibration
.It Pa /var/lib/tide/readings	the last 48 hours of readings
.El
.Sh EXIT STATUS
.Ex -std
.Sh EXAMPLES
Read the gauge once, quietly:
.Dl $ tide -q north
.Pp
A configuration file:
.Bd -literal -offset indent
# the north quay gauge
gauge north {
	datum 0.0
}
.Ed
.Sh STANDARDS
The output follows
.St -p1003.1-2008
and
.Rs
.%A J. Doe
.%A K. Roe
.%T Tide Gauges and Their Readings
.%J Journal of Harbours
.%D 2019
.Re
.Sh HISTORY
A
.Nm
command appeared in
.Ox 7.5 .
"""

# A library function's page: its synopsis is the include and the prototypes groff sets.
TIDE_READ = r""".Dd March 1, 2026
.Dt TIDE_READ 3
.Os
.Sh NAME
.Nm tide_read ,
.Nm tide_close
.Nd read the harbour tide gauge
.Sh LIBRARY
.Lb libc
.Sh SYNOPSIS
.In tide.h
.Ft int
.Fn tide_read "int fd" "double *height"
.Ft void
.Fo tide_close
.Fa "int fd"
.Fc
.Sh DESCRIPTION
The
.Fn tide_read
function reads the height into
.Fa height .
.Sh RETURN VALUES
.Rv -std tide_read
"""


def page(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(source)
    return path


def read(path: Path):  # type: ignore[no-untyped-def]
    return extractor_for(path).extract(path, path.name)


def words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.casefold()))


@pytest.mark.parametrize(("name", "source"), [("tide.1", TIDE), ("tide_read.3", TIDE_READ)])
def test_words_are_those_groff_sets(tmp_path: Path, name: str, source: str):
    doc = read(page(tmp_path, name, source))
    groff = subprocess.run(["groff", "-mdoc", "-Tutf8", "-P-cbou", "-rLL=300n", "-rHY=0"],
                           input=source.encode(), capture_output=True, check=True)
    # mdoc hyphenates whatever -rHY says: a word broken at a line's end is one word
    text = re.sub(r"\u2010\n\s*", "", groff.stdout.decode())
    lines = [ln for ln in text.split("\n") if ln.strip()]
    # groff's header and footer lines (name, section, date, system) are page furniture
    assert words("\n".join(lines[1:-1])) == words(doc.text)


def test_sections_options_lists_and_displays_keep_their_shape(tmp_path: Path):
    doc = read(page(tmp_path, "tide.1", TIDE))
    assert doc.title == "tide(1) \u2014 read the harbour tide gauge"
    assert (doc.extractor, doc.headings, doc.media_type) == ("man", "atx", "text/troff")
    blocks = doc.text.split("\n\n")
    assert [b for b in blocks if b.startswith("#")] == [
        "# NAME", "# SYNOPSIS", "# DESCRIPTION", "## Warning marks", "# FILES",
        "# EXIT STATUS", "# EXAMPLES", "# STANDARDS", "# HISTORY"]
    # each .Nm of the synopsis starts a line; .Op Fl o Ar file is "[-o file]", and
    # .Ns and .Sm off take the spaces out of "[bind_address:]port"
    assert "tide [-qv] [-o file] [-L [bind_address:]port] gauge ...\ntide -r" in blocks
    description = next(b for b in blocks if b.startswith("tide reads"))
    assert "as tidectl(8) sets it" in description  # .Xr
    assert "chart datum (in metres). Its configuration is read from /etc/tide.conf, or " \
           "from the file named by TIDE_CONF." in description  # punctuation attached
    assert "A reading is \u201chigh\u201d or \u2018low\u2019; a quoted command is " \
           "\u2018tide -q\u2019." in description
    # an option and what it does: one paragraph, the tag on its own line
    assert "-o file\nWrite the readings to file instead of the standard output." in blocks
    assert "-L [bind_address:]port\nListen for readers on port." in blocks
    assert "- the spring tide passes four point two metres;" in blocks
    assert ["1. the gauge is stopped;", "2. its float is lowered to chart datum;",
            "3. it is started again."] == [b for b in blocks if b[:2] in ("1.", "2.", "3.")]
    # a column list: a row a line, cells (.Ta or a tab) joined as a table's are
    assert "File | Holds\n/etc/tide.conf | the gauge's calibration\n" \
           "/var/lib/tide/readings | the last 48 hours of readings" in blocks
    assert "The tide utility exits 0 on success, and >0 if an error occurs." in blocks
    assert "```\n$ tide -q north\n```" in blocks  # .Dl, a line of code
    assert "```\n# the north quay gauge\ngauge north {\n\tdatum 0.0\n}\n```" in blocks
    assert "The output follows IEEE Std 1003.1-2008 (\u201cPOSIX.1\u201d) and" in blocks
    assert "J. Doe and K. Roe, \u201cTide Gauges and Their Readings\u201d, Journal of " \
           "Harbours, 2019." in blocks  # a reference, one paragraph
    assert "A tide command appeared in OpenBSD 7.5." in blocks  # .Nm alone: the name
    assert not doc.warnings
    # sections for the chunker: the option's chunk is under DESCRIPTION
    chunks = chunk_document(doc)
    option = next(c for c in chunks if "-o file\nWrite" in c.content)
    assert option.section.endswith("> DESCRIPTION")
    assert option.content == doc.text[option.start:option.end]


def test_a_function_s_synopsis_is_its_include_and_prototypes(tmp_path: Path):
    doc = read(page(tmp_path, "tide_read.3", TIDE_READ))
    assert doc.title == "tide_read(3) \u2014 read the harbour tide gauge"
    blocks = doc.text.split("\n\n")
    assert "tide_read, tide_close \u2014 read the harbour tide gauge" in blocks
    assert "Standard C Library (libc, -lc)" in blocks
    assert blocks[blocks.index("# SYNOPSIS") + 1:blocks.index("# DESCRIPTION")] == [
        "#include <tide.h>", "int\ntide_read(int fd, double *height);",
        "void\ntide_close(int fd);"]
    assert "The tide_read() function reads the height into height." in blocks
    assert "The tide_read() function returns the value 0 if successful; otherwise the " \
           "value -1 is returned and the global variable errno is set to indicate the " \
           "error." in blocks


def test_a_page_in_neither_macro_set_is_still_skipped(tmp_path: Path):
    # a .TH or .Dd line is what makes a page: this file has neither near its start
    notes = page(tmp_path, "tide.1", "Sh NAME\nThe tide, as read on 1 March.\n.Sh NOTES\n")
    with pytest.raises(UnsupportedFormat, match=re.escape("not a manual page: no .TH line")):
        read(notes)
