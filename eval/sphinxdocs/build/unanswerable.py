#!/usr/bin/env python3
"""Write unanswerable.jsonl.  check_gt.py holds, for each question, key-term regexes
(UNANSWERABLE_TERMS) that must not occur anywhere in the corpus, as evidence the
documents do not answer it.  `near` questions are documentation-tooling topics around
Sphinx (third-party extensions, themes, hosting) that the 30 chosen pages do not cover;
`off` questions are off-topic (none of them one of the off questions of the other
folders under eval/)."""
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
U = [
    ("near", "How do I add a copy-to-clipboard button to every code block with sphinx-copybutton?"),
    ("near", "How do I show tabbed content, one tab per operating system, with sphinx-tabs or sphinx-design?"),
    ("near", "How do I switch my docs to the PyData Sphinx theme and enable its dark mode toggle?"),
    ("near", "How do I get the browser to reload automatically while I edit, using sphinx-autobuild?"),
    ("near", "How do I include Jupyter notebooks in my Sphinx docs with nbsphinx or myst-nb?"),
    ("near", "How do I draw flowcharts with Mermaid syntax in my documentation?"),
    ("near", "How do I generate an example gallery from Python scripts with sphinx-gallery?"),
    ("near", "How do I build docs for every git tag and add a version switcher with sphinx-multiversion?"),
    ("near", "How do I replace the built-in search with Algolia DocSearch?"),
    ("near", "How do I generate a sitemap.xml for search engines with the sphinx-sitemap extension?"),
    ("near", "How can I render an OpenAPI (Swagger) specification of my REST API inside Sphinx?"),
    ("near", "How do I document an argparse-based command-line tool automatically with sphinx-argparse?"),
    ("near", "How do I spell-check my documentation with sphinxcontrib-spelling?"),
    ("near", "What goes into the .readthedocs.yaml file to pin the Python version used for my build?"),
    ("near", "How do I cite entries from a BibTeX file and print a bibliography with sphinxcontrib-bibtex?"),
    ("near", "How can I turn my reStructuredText sources into reveal.js presentation slides?"),
    ("near", "How do I use sphinx-autoapi to document a package without importing it?"),
    ("near", "How do I embed an interactive Plotly chart in a documentation page?"),
    ("near", "How do I deploy the built HTML to Cloudflare Pages or Vercel?"),
    ("near", "How do I track requirements and link them to test cases with sphinx-needs?"),
    ("near", "How do I lint the prose style of my docs with Vale in CI?"),
    ("off", "How do I reupholster a dining chair seat with new fabric?"),
    ("off", "What is the quickest way to de-ice a car windscreen on a frosty morning?"),
    ("off", "How do I brew kombucha at home and keep the SCOBY healthy?"),
    ("off", "How do I teach a toddler to ride a balance bike?"),
    ("off", "How should I store winter tyres over the summer?"),
    ("off", "What is a good beginner routine for learning to hold a handstand?"),
    ("off", "Can I grow oyster mushrooms on used coffee grounds?"),
    ("off", "How tight should climbing shoes be for indoor bouldering?"),
    ("off", "What should I feed a hedgehog that visits my garden at night?"),
]


def main():
    with open(os.path.join(HERE, "unanswerable.jsonl"), "w", encoding="utf-8") as fh:
        for n, (kind, q) in enumerate(U, 1):
            fh.write(json.dumps({"id": f"u{n:02d}", "query": q, "kind": kind},
                                ensure_ascii=False) + "\n")
    print(f"{len(U)} unanswerable questions written")


if __name__ == "__main__":
    main()
