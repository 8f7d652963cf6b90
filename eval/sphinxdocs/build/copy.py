#!/usr/bin/env python3
"""Copy the chosen Sphinx 5.3 documentation pages byte-for-byte into docs/ (or into the
folder given as the first argument), renamed with a numeric prefix for reading order.
No conversion: citeline reads reStructuredText, so the raw .rst source is the canonical
text.  Source: Debian's sphinx-doc package (5.3.0-4), which ships the reStructuredText
sources of the HTML documentation as html/_sources/**/*.rst.txt:

    cd /tmp && apt-get download sphinx-doc && dpkg-deb -x sphinx-doc_*.deb sphinxdoc

The extracted tree is read from $SPHINX_DOC_ROOT (default /tmp/sphinxdoc); if the .deb is
at $SPHINX_DOC_DEB (default /tmp/sphinx-doc_5.3.0-4_all.deb) its SHA-256 is checked."""
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.environ.get("SPHINX_DOC_ROOT", "/tmp/sphinxdoc")
DEB = os.environ.get("SPHINX_DOC_DEB", "/tmp/sphinx-doc_5.3.0-4_all.deb")
DEB_SHA256 = "1da3d08bb3a0bc82a4b8b8109410e223054bf5fb13904557ec8ea869046f65b4"
SOURCES = "usr/share/doc/sphinx-doc/html/_sources/"
PAGES = [
    ("usage/installation.rst.txt", "usage-installation"),
    ("usage/quickstart.rst.txt", "usage-quickstart"),
    ("usage/restructuredtext/basics.rst.txt", "usage-restructuredtext-basics"),
    ("usage/restructuredtext/roles.rst.txt", "usage-restructuredtext-roles"),
    ("usage/restructuredtext/directives.rst.txt", "usage-restructuredtext-directives"),
    ("usage/restructuredtext/field-lists.rst.txt", "usage-restructuredtext-field-lists"),
    ("usage/restructuredtext/domains.rst.txt", "usage-restructuredtext-domains"),
    ("usage/markdown.rst.txt", "usage-markdown"),
    ("usage/configuration.rst.txt", "usage-configuration"),
    ("usage/builders/index.rst.txt", "usage-builders"),
    ("usage/theming.rst.txt", "usage-theming"),
    ("usage/advanced/intl.rst.txt", "usage-advanced-intl"),
    ("usage/advanced/setuptools.rst.txt", "usage-advanced-setuptools"),
    ("usage/extensions/autodoc.rst.txt", "usage-extensions-autodoc"),
    ("usage/extensions/autosummary.rst.txt", "usage-extensions-autosummary"),
    ("usage/extensions/doctest.rst.txt", "usage-extensions-doctest"),
    ("usage/extensions/intersphinx.rst.txt", "usage-extensions-intersphinx"),
    ("usage/extensions/napoleon.rst.txt", "usage-extensions-napoleon"),
    ("usage/extensions/math.rst.txt", "usage-extensions-math"),
    ("usage/extensions/todo.rst.txt", "usage-extensions-todo"),
    ("usage/extensions/viewcode.rst.txt", "usage-extensions-viewcode"),
    ("templating.rst.txt", "templating"),
    ("man/sphinx-build.rst.txt", "man-sphinx-build"),
    ("man/sphinx-apidoc.rst.txt", "man-sphinx-apidoc"),
    ("man/sphinx-quickstart.rst.txt", "man-sphinx-quickstart"),
    ("tutorial/narrative-documentation.rst.txt", "tutorial-narrative-documentation"),
    ("tutorial/describing-code.rst.txt", "tutorial-describing-code"),
    ("tutorial/automatic-doc-generation.rst.txt", "tutorial-automatic-doc-generation"),
    ("tutorial/deploying.rst.txt", "tutorial-deploying"),
    ("faq.rst.txt", "faq"),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
    if os.path.isfile(DEB):
        with open(DEB, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        if digest != DEB_SHA256:
            sys.exit(f"{DEB}: sha256 {digest} != {DEB_SHA256}")
    os.makedirs(out, exist_ok=True)
    for n, (src, name) in enumerate(PAGES, 1):
        with open(os.path.join(ROOT, SOURCES, src), "rb") as fh:
            data = fh.read()
        dest = os.path.join(out, f"{n:02d}-{name}.rst")
        with open(dest, "wb") as fh:
            fh.write(data)
        print(dest, len(data))


if __name__ == "__main__":
    main()
