#!/usr/bin/env python3
"""Write questions.jsonl: each needle is cut verbatim from its document's canonical text
(as citeline's extractor returns it) between a start marker and an end marker (both
included), so nothing is retyped by hand.  The queries were written by hand from the
text alone (no retrieval, search, embedding or model was run)."""
import json
import os
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))
from citeline.extract import extractor_for  # noqa: E402

INS, QS, BAS, ROL = ("01-usage-installation.rst", "02-usage-quickstart.rst",
                     "03-usage-restructuredtext-basics.rst", "04-usage-restructuredtext-roles.rst")
DIR, FLD, DOM = ("05-usage-restructuredtext-directives.rst",
                 "06-usage-restructuredtext-field-lists.rst",
                 "07-usage-restructuredtext-domains.rst")
CFG, BLD, THM, INTL = ("09-usage-configuration.rst", "10-usage-builders.rst",
                       "11-usage-theming.rst", "12-usage-advanced-intl.rst")
AUD, AUS, DT, ISX = ("14-usage-extensions-autodoc.rst", "15-usage-extensions-autosummary.rst",
                     "16-usage-extensions-doctest.rst", "17-usage-extensions-intersphinx.rst")
NAP, MATH, VC, TPL = ("18-usage-extensions-napoleon.rst", "19-usage-extensions-math.rst",
                      "21-usage-extensions-viewcode.rst", "22-templating.rst")
SB, APD, DEP, FAQ = ("23-man-sphinx-build.rst", "24-man-sphinx-apidoc.rst",
                     "29-tutorial-deploying.rst", "30-faq.rst")

GT = [
    # --- installing
    (INS, "there are at least two other packages with", "(*Sphinx search*).",
     "Which unrelated software projects share the Sphinx name and could be confused with the "
     "documentation tool when searching a distribution's packages?",
     "apt search sphinx lists a bunch of stuff including voice recognition libraries, which one "
     "is the doc generator?"),
    # --- getting started
    (QS, "A common gotcha with directives is that", "as the options are**.",
     "What indentation rule applies to the first line of a directive's body when the directive "
     "also has options?",
     "my toctree with :maxdepth: 2 renders nothing; the entries underneath were indented with 4 "
     "spaces but the option with 3"),
    (QS, "Intersphinx also works for some other", "as that is non-domain role.",
     "Is intersphinx limited to object roles, or does it also resolve :ref: labels and :doc: "
     "page links into another project?",
     ":ref: to a label in the Python docs gets linked through intersphinx fine, but :doc: to one "
     "of their pages stays unresolved"),
    # --- reStructuredText primer
    (BAS, "(Be sure to give the include file a file name", "as a standalone document.)",
     "When sharing substitutions through an included snippet, what naming should that snippet "
     "get so Sphinx does not treat it as a page of its own?",
     "put my common |substitutions| into defs.rst and .. include:: it everywhere; now the build "
     "warns defs.rst isn't in any toctree and it shows up as its own page"),
    # --- roles
    (ROL, "Labels that aren't placed before a section title can", "you must give the link an explicit title",
     "Can a label that does not precede a section heading be referenced with :ref:, and what "
     "must the reference then include?",
     "put .. _retry-note: above a paragraph (no heading after it) and :ref:`retry-note` gives an "
     "undefined label warning"),
    (ROL, "Unlike the :rst:dir:`code-block` directive, this role", "set by the :rst:dir:`highlight` directive.",
     "Is inline :code: text coloured according to the lexer chosen earlier in the file with "
     ".. highlight::?",
     "after .. highlight:: python my code-blocks are colored but :code:`foo(bar)` inline stays "
     "plain monospace"),
    # --- directives
    (DIR, "Note that there must be no blank line between the directive head", "visually continuous in the markup.",
     "How must the explanation text be placed relative to a versionadded or versionchanged "
     "directive line?",
     "reviewer says my '.. versionchanged:: 2.1' followed by an empty line and then the "
     "explanation is wrong style; is a gap allowed there?"),
    (DIR, "This directive is designed to control only content", "only content of document.",
     "Can the only directive be used to include or exclude whole sections and their labels "
     "depending on the builder?",
     "wrapped a whole chapter heading in '.. only:: html' but the section still appears in the "
     "PDF's table of contents"),
    # --- field lists
    (FLD, "A field list appearing after the document title", "will be displayed in the output.",
     "What happens to a :orphan: or :tocdepth: field placed below the page heading rather than "
     "at the very start of the file?",
     "':nosearch:' shows up as a visible 'Nosearch:' line on the rendered page and the page is "
     "still searchable; I put it under the title"),
    # --- domains
    (DOM, "There is no ``py:deco`` role to link", "use the :rst:role:`py:func` role.",
     "Which cross-reference role points at something declared through py:decorator?",
     "tried :py:deco:`retry` to link my decorator docs, Sphinx says unknown interpreted text role"),
    # --- configuration
    (CFG, "The contents of the config namespace are pickled", "so it may not contain unpickleable values",
     "Are there restrictions on what kinds of Python objects may be left as top-level names in "
     "conf.py?",
     "since I assigned an open file handle to a variable in conf.py the build complains that "
     "something can't be pickled"),
    (CFG, "For security reasons, dotfiles under", "not be copied.",
     "Are hidden files whose names start with a dot copied from the static path into the HTML "
     "output?",
     "my _static/.well-known/ folder never makes it into _build/html/_static, every other asset "
     "does"),
    (CFG, "Since this requires\n   downloading the whole document", "considerably slower when enabled.",
     "Why does validating #fragment targets make the link checker noticeably slower?",
     "make linkcheck takes ages on our site with thousands of links to GitHub line anchors like "
     "#L42"),
    # --- builders
    (BLD, "This\n      makes sure the needed number of runs", "tables of contents right.",
     "Why does make latexpdf rely on latexmk instead of calling the LaTeX engine once?",
     "when I run pdflatex by hand on the generated .tex, the PDF has an empty table of contents "
     "and ?? instead of page numbers"),
    # --- theming
    (THM, "Note that from these themes only the Alabaster", "if the screen is too narrow.",
     "Which of the builtin HTML themes adapt to small phone screens?",
     "docs built with the nature theme need sideways scrolling on my phone, which bundled theme "
     "works on mobile?"),
    # --- internationalization
    (INTL, "turn it off for one message only", "end the message with ``#noqa``",
     "How can the warning about mismatched cross-references in a translated paragraph be "
     "silenced for a single message?",
     "our French .po drops a :ref: on purpose in one msgstr and the build keeps warning about "
     "references differing from the original; want to hush that one entry without turning the "
     "check off globally"),
    (INTL, "Currently, transifex does not allow", "version number in\n   your project name.",
     "How should a Transifex project be named if the documentation has several maintained "
     "versions?",
     "we translate both the 1.x and 2.x docs on Transifex, can one project hold both branches?"),
    # --- autodoc
    (AUD, "Note that attributes from imported modules", "parsing the source file of the current module.",
     "If automodule is told to include re-exported names, do variables that came from another "
     "module get their #: comments rendered?",
     "pkg/__init__.py does from .settings import TIMEOUT; automodule pkg with :imported-members: "
     "shows the classes but TIMEOUT and its doc-comment are missing"),
    (AUD, "a decorator replaces the decorated function with another", "``__doc__`` to the new function.",
     "What must a decorator do so that autodoc still finds the wrapped function's docstring?",
     "every function wrapped with our @retry decorator shows up in the API docs with an empty "
     "description"),
    (AUD, "The type aliases are only available if your program enables", "annotations``.",
     "What does autodoc_type_aliases require from the documented module in order to take effect?",
     "set autodoc_type_aliases = {'JSON': 'mylib.JSON'} but signatures still show the fully "
     "expanded Dict[str, Union[...]] instead of JSON"),
    # --- autosummary
    (AUS, "This is necessary to avoid\n   filename conflicts", "are case-insensitive.",
     "Why might autosummary need an explicit mapping from object names to output file names?",
     "on macOS the generated stub for mymod.Parser overwrites the one for mymod.parser and one of "
     "the pages is lost"),
    # --- doctest
    (DT, "Therefore, output will *not* be generated", "use ``print``.",
     "In a testcode block, is the value of a lone expression echoed like in an interactive "
     "session?",
     "testcode has `1 + 1` and testoutput says 2, make doctest fails saying nothing was printed"),
    (DT, "Note though that you can't have blank lines in reST doctest blocks.", "doctest blocks.",
     "May a plain reST doctest block contain an empty line in the middle of an example?",
     "my >>> example in a docstring has an empty line in its expected output and the doctest "
     "builder treats the rest as a separate test"),
    # --- intersphinx
    (ISX, "The downloaded\n   inventory is cached in the Sphinx environment", "whenever you do a full rebuild.",
     "When are remote intersphinx inventories fetched again?",
     "every time CI runs sphinx-build -E it hits docs.python.org for objects.inv, can't that be "
     "cached?"),
    # --- napoleon
    (NAP, "`Python 2/3 compatible annotations`_ aren't currently", "won't show up in the docs.",
     "Does napoleon pick up types written as # type: comments in the Python 2 compatible style?",
     "legacy code uses '# type: (int, str) -> bool' comments under each def and none of these "
     "types appear in the rendered docs"),
    # --- math
    (MATH, "Because MathJax (and the necessary fonts) is very large", "from a third-party site.",
     "Does Sphinx bundle MathJax with the HTML output, or where is it loaded from?",
     "equations render fine at the office but show raw LaTeX on the air-gapped lab machine"),
    # --- viewcode
    (VC, "This extension works only on HTML related builders like", "``singlehtml``.",
     "With which builders does the viewcode extension produce its highlighted source pages?",
     "[source] links show up in make html but are completely missing from the single-page HTML "
     "build"),
    # --- templating
    (TPL, "The following four blocks are *only* used for pages", ":confval:`html_sidebars` config value.",
     "When are the sidebar blocks of layout.html such as sidebartoc and sidebarsearch actually "
     "used?",
     "overrode {% block sidebarsearch %} in _templates/layout.html and nothing changes since I "
     "added html_sidebars to conf.py"),
    # --- sphinx-build
    (SB, "Sphinx only recognizes the ``-M`` option", "if it is placed first.",
     "Where on the sphinx-build command line must the make-mode option go?",
     "sphinx-build -a -M html docs out fails, complaining about html as a source dir, but without "
     "-a it works"),
    # --- sphinx-apidoc
    (APD, "A comma-separated list of option to append to generated", "directives.",
     "How can I change which flags sphinx-apidoc writes into every automodule directive it "
     "generates?",
     "apidoc output documents all the undocumented helpers too; I don't want undoc-members on any "
     "of the generated pages but editing 80 files by hand is no option"),
    # --- deploying
    (DEP, "You will need to `validate your account`_", "will then be reimbursed).",
     "What account step does GitLab require before its CI will run the pipeline that publishes "
     "the docs?",
     "pushed .gitlab-ci.yml for Pages, the job never starts and GitLab asks for a credit card; is "
     "that expected?"),
    # --- FAQ
    (FAQ, "Colons (``:``) cannot be properly escaped", "menu entries and xrefs.",
     "How are colons handled in Texinfo menu entries and cross-references?",
     "in the Info manual, my section 'Step 1: Setup' shows up as 'Step 1; Setup' in the menu"),
]


def main():
    docs = Path(HERE) / "docs"
    texts = {}
    rows = []
    for n, (doc, start, end, course, ticket) in enumerate(GT, 1):
        if doc not in texts:
            p = docs / doc
            texts[doc] = extractor_for(p).extract(p, doc).text
        text = texts[doc]
        i = text.find(start)
        if i < 0:
            sys.exit(f"q{n:02d}: start marker not found in {doc}: {start!r}")
        j = text.find(end, i)
        if j < 0:
            sys.exit(f"q{n:02d}: end marker not found in {doc}: {end!r}")
        rows.append({"id": f"q{n:02d}", "doc": doc, "needle": text[i:j + len(end)],
                     "queries": {"course": course, "ticket": ticket}})
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(rows)} ground truths written")


if __name__ == "__main__":
    main()
